//! `algorithms::select`: scalar elements of every dtype (and bool), a struct of three fields of
//! different dtypes (one buffer per field) and array-of-structs elements (`k` scalars each), one
//! compiled program replayed at every small live count with rotating flag patterns (all 0, all
//! 1, alternating, random, first/last only), depth 1 and 2, the single pass where the device has
//! forward progress, the large live counts (with multi-launch vs single-pass agreement), and the
//! error paths. Elements are raw bits (select copies them), so one reference serves every dtype:
//! the selected elements in order, then `out`'s untouched tail, and the count.

use crate::algo_ref::{
    build_prog, chunked_on, expect_build_error, expect_check, expect_status, min_len, opts, run_prog, run_raw,
    strategies, SMALL_NS,
};
use crate::elem::mix;
use crate::harness::{check, read, Outcome, Suite};
use qd_frontend::ProgramBuilder;
use qd_lib::algorithms::{self, select_scratch_slots, Capacity, Elems, Options, Strategy};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::{Module, ScalarType};
use qd_rt::{Device, DeviceKind};

/// An element layout: one `(dtype, scalars per element)` per buffer, and whether it is a struct
/// of several buffers.
#[derive(Clone, Debug)]
struct Layout {
    fields: Vec<(ScalarType, u32)>,
    soa: bool,
}

impl Layout {
    fn scalar(t: ScalarType) -> Layout {
        Layout { fields: vec![(t, 1)], soa: false }
    }
}

/// Registers the cases.
pub fn register(s: &mut Suite) {
    use ScalarType as S;
    for (i, t) in [S::I32, S::U32, S::F32, S::I64, S::U64, S::F64, S::Bool].into_iter().enumerate() {
        s.case(format!("algo::select/{t}/small_ns"), move |dev| small(dev, &Layout::scalar(t), i));
    }
    let soa = Layout { fields: vec![(S::F32, 1), (S::I64, 1), (S::U32, 1)], soa: true };
    s.case("algo::select/soa_f32_i64_u32/small_ns", move |dev| small(dev, &soa, 7));
    let aos = Layout { fields: vec![(S::F64, 3)], soa: false };
    s.case("algo::select/aos3_f64/small_ns", move |dev| small(dev, &aos, 8));
    let aos2 = Layout { fields: vec![(S::I32, 2)], soa: false };
    s.case("algo::select/aos2_i32/small_ns", move |dev| small(dev, &aos2, 9));
    s.case("algo::select/u32/big_ns_and_strategies", |dev| big(dev, &Layout::scalar(ScalarType::U32)));
    s.case("algo::select/u32/over_specified_depth", over_specified);
    s.case("algo::select/u32/n1000003_cuda_and_cpu", huge);
    s.case("algo::select/errors/short_scratch", short_scratch);
    s.case("algo::select/errors/live_count_out_of_range", out_of_range);
    s.case("algo::select/errors/build", |_| build_errors());
}

/// The `Elems` of a layout over buffers named `{prefix}{j}`.
fn elems(pb: &mut ProgramBuilder, l: &Layout, prefix: &str) -> Elems {
    let bufs: Vec<_> = l.fields.iter().enumerate().map(|(j, (t, _))| pb.buffer(&format!("{prefix}{j}"), *t)).collect();
    match (l.soa, l.fields.first()) {
        (true, _) => Elems::soa(&bufs),
        (false, Some((_, k))) if *k > 1 => Elems::aos(bufs[0], *k),
        _ => Elems::scalar(bufs[0]),
    }
}

fn program(dev: &Device, l: &Layout, o: &Options, cap: Capacity) -> Result<Module, String> {
    build_prog(dev, "select", |pb| {
        let arr = elems(pb, l, "arr");
        let flags = pb.buffer("flags", ScalarType::I32);
        let out = elems(pb, l, "out");
        let num_out = pb.buffer("num_out", ScalarType::I32);
        let scratch = pb.buffer("scratch", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        algorithms::select(pb, o, &arr, flags, &out, num_out, scratch, n, cap)
    })
}

/// Flag patterns.
fn flags_of(pattern: usize, n: usize, seed: u64) -> Vec<i32> {
    (0..n)
        .map(|i| match pattern % 6 {
            0 => (mix(seed ^ i as u64) % 2) as i32,
            1 => 1,
            2 => 0,
            3 => (i % 2) as i32,
            4 => i32::from(i == 0 || i + 1 == n),
            _ => i32::from(mix(seed ^ i as u64).is_multiple_of(7)),
        })
        .collect()
}

/// Random bits of `t` (bool: 0/1).
fn bits(t: ScalarType, seed: u64) -> u64 {
    let r = mix(seed);
    match t {
        ScalarType::Bool => r & 1,
        _ if t.bits() == 32 => r & 0xffff_ffff,
        _ => r,
    }
}

/// The buffers of one run, its reference outputs, and the output's untouched marker.
struct Run {
    args: Vec<ArgValue>,
    want_out: Vec<Vec<u64>>,
    want_count: i32,
}

fn make_run(l: &Layout, max_n: usize, n: usize, live: i64, pattern: usize, seed: u64) -> Result<Run, String> {
    let max_n = max_n.max(1);
    let flags = {
        let mut f = flags_of(pattern, n, seed);
        f.resize(max_n, 1);
        f
    };
    let mut args = Vec::new();
    let mut ins = Vec::new();
    for (j, (t, k)) in l.fields.iter().enumerate() {
        let data: Vec<u64> = (0..max_n as u64 * u64::from(*k)).map(|i| bits(*t, seed ^ (i << 8) ^ j as u64)).collect();
        args.push(ArgValue::Buffer(Buffer::from_bits(*t, data.clone())));
        ins.push(data);
    }
    args.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, flags.iter().map(|&f| f as u32 as u64))));
    let mut want_out = Vec::new();
    for (j, (t, k)) in l.fields.iter().enumerate() {
        let k = *k as usize;
        let marker = if *t == ScalarType::Bool { 1 } else { 0x77 };
        let mut w = Vec::new();
        for i in (0..n).filter(|&i| flags[i] != 0) {
            w.extend_from_slice(&ins[j][i * k..i * k + k]);
        }
        w.resize(max_n * k, marker);
        args.push(ArgValue::Buffer(Buffer::from_bits(*t, vec![marker; max_n * k])));
        want_out.push(w);
    }
    let want_count = flags[..n].iter().filter(|&&f| f != 0).count() as i32;
    args.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [0x55])));
    let slots = select_need(max_n as u64);
    args.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0xdead_beef; slots])));
    args.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [live as u32 as u64])));
    Ok(Run { args, want_out, want_count })
}

/// The formula's scratch (natural depth).
fn select_need(max_n: u64) -> usize {
    select_scratch_slots(max_n) as usize
}

/// Runs one select and checks `out` (selected, then untouched) and `num_out`.
fn run_check(dev: &Device, m: &Module, l: &Layout, cap: Capacity, n: usize, pattern: usize, what: &str) -> Outcome {
    run_check_scratch(dev, m, l, cap, n, pattern, what, None)
}

/// [`run_check`] with a scratch of `scratch` elements (default: the formula's).
#[allow(clippy::too_many_arguments)]
fn run_check_scratch(
    dev: &Device,
    m: &Module,
    l: &Layout,
    cap: Capacity,
    n: usize,
    pattern: usize,
    what: &str,
    scratch: Option<u64>,
) -> Outcome {
    let mut r = make_run(l, cap.max_n() as usize, n, n as i64, pattern, (n * 31 + pattern) as u64)?;
    if let Some(len) = scratch {
        let at = 2 * l.fields.len() + 2;
        r.args[at] = ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0xdead_beef; len as usize]));
    }
    run_prog(dev, m, &mut r.args)?;
    let nf = l.fields.len();
    for j in 0..nf {
        let got = match &r.args[nf + 1 + j] {
            ArgValue::Buffer(b) => b.to_bits(),
            ArgValue::Scalar(..) => return Err("out is not a buffer".into()),
        };
        check(&format!("{what} n={n} pattern {pattern} out{j}"), &got, &r.want_out[j])?;
    }
    check(&format!("{what} n={n} pattern {pattern} num_out"), &read::<i32>(&r.args[2 * nf + 1]), &[r.want_count])
}

fn small(dev: &Device, l: &Layout, salt: usize) -> Outcome {
    let cap257 = Capacity::new(257).map_err(|e| e.to_string())?;
    let m = program(dev, l, &opts(dev, Strategy::MultiLaunch), cap257)?;
    for (k, &n) in SMALL_NS.iter().enumerate() {
        run_check(dev, &m, l, cap257, n, k + salt, "multi-launch D=2")?;
    }
    let cap256 = Capacity::new(256).map_err(|e| e.to_string())?;
    let m = program(dev, l, &opts(dev, Strategy::MultiLaunch), cap256)?;
    run_check(dev, &m, l, cap256, 256, salt, "multi-launch D=1")?;
    if dev.info().forward_progress {
        let m = program(dev, l, &opts(dev, Strategy::SinglePass), cap257)?;
        for (n, pattern) in [(0, 0), (257, salt)] {
            run_check(dev, &m, l, cap257, n, pattern, "single-pass")?;
        }
    }
    if chunked_on(dev) {
        for cap in [cap257, cap256] {
            let m = program(dev, l, &opts(dev, Strategy::Chunked), cap)?;
            for (k, &n) in SMALL_NS.iter().enumerate().filter(|&(_, &n)| n as u64 <= cap.max_n()) {
                run_check(dev, &m, l, cap, n, k + salt, "chunked")?;
            }
        }
    }
    Ok(())
}

fn big(dev: &Device, l: &Layout) -> Outcome {
    let cap = Capacity::new(65_537).map_err(|e| e.to_string())?;
    let m = program(dev, l, &opts(dev, Strategy::MultiLaunch), cap)?;
    run_check(dev, &m, l, cap, 65_537, 5, "multi-launch")?;
    if dev.info().forward_progress {
        let m = program(dev, l, &opts(dev, Strategy::SinglePass), cap)?;
        // 5 tiles of 1024 (the long look-back chains are covered by the scan family)
        run_check(dev, &m, l, cap, 5000, 0, "single-pass")?;
    }
    if chunked_on(dev) {
        // 64 chunks of 1025, live counts around the chunk size
        let m = program(dev, l, &opts(dev, Strategy::Chunked), cap)?;
        for (n, pattern) in [(65_537, 5), (1025, 1), (1024, 2), (63, 3)] {
            run_check(dev, &m, l, cap, n, pattern, "chunked")?;
        }
    }
    Ok(())
}

/// An over-specified `log256_max_n`: the scratch check asks for more than the formula (the
/// partial levels the kernels write) and a scratch of exactly that is enough — the interpreter
/// faults on any access past it.
fn over_specified(dev: &Device) -> Outcome {
    let l = Layout::scalar(ScalarType::U32);
    for (max_n, d) in [(8u64, 3u32), (300, 4)] {
        let cap = Capacity::with_log256(max_n, d).map_err(|e| e.to_string())?;
        let m = program(dev, &l, &opts(dev, Strategy::MultiLaunch), cap)?;
        let need = min_len(&m, "scratch")?;
        if need <= select_scratch_slots(max_n) {
            return Err(format!("max_n {max_n} D {d}: the check asks {need}, not above the formula"));
        }
        for (k, n) in [max_n as usize, 1, 0].into_iter().enumerate() {
            run_check_scratch(dev, &m, &l, cap, n, k + 1, &format!("D={d}"), Some(need))?;
        }
    }
    Ok(())
}

/// 1 000 003 elements, every strategy: CUDA, and the chunked form on the native cpu device (too
/// slow for the interpreter and lavapipe).
fn huge(dev: &Device) -> Outcome {
    let list = match dev.info().kind {
        DeviceKind::Cuda => strategies(dev),
        DeviceKind::Cpu => vec![Strategy::Chunked],
        DeviceKind::Interp | DeviceKind::Vulkan | DeviceKind::Hsa | DeviceKind::Sim => return Ok(()),
    };
    let l = Layout::scalar(ScalarType::U32);
    let n = 1_000_003usize;
    let cap = Capacity::new(n as u64).map_err(|e| e.to_string())?;
    for strategy in list {
        let m = program(dev, &l, &opts(dev, strategy), cap)?;
        run_check(dev, &m, &l, cap, n, 5, &format!("{strategy:?}"))?;
    }
    Ok(())
}

fn short_scratch(dev: &Device) -> Outcome {
    let l = Layout::scalar(ScalarType::F32);
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let m = program(dev, &l, &opts(dev, Strategy::Auto), cap)?;
    let mut r = make_run(&l, 1000, 10, 10, 0, 1)?;
    r.args[4] = ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; select_need(1000) - 1]));
    expect_check(run_raw(dev, &m, &mut r.args), "scratch")?;
    let mut r = make_run(&l, 1000, 10, 10, 0, 1)?;
    r.args[1] = ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, vec![0; 999]));
    expect_check(run_raw(dev, &m, &mut r.args), "flags")
}

fn out_of_range(dev: &Device) -> Outcome {
    let l = Layout::scalar(ScalarType::I64);
    let cap = Capacity::new(600).map_err(|e| e.to_string())?;
    let mut strategies = vec![Strategy::MultiLaunch];
    if dev.info().forward_progress {
        strategies.push(Strategy::SinglePass);
    }
    if chunked_on(dev) {
        strategies.push(Strategy::Chunked);
    }
    for strategy in strategies {
        let m = program(dev, &l, &opts(dev, strategy), cap)?;
        for live in [601i64, -5] {
            let mut r = make_run(&l, 600, 600, live, 1, 3)?;
            expect_status(run_raw(dev, &m, &mut r.args))?;
            let out = match &r.args[2] {
                ArgValue::Buffer(b) => b.to_bits(),
                ArgValue::Scalar(..) => return Err("out is not a buffer".into()),
            };
            if out.iter().any(|&x| x != 0x77) {
                return Err(format!("{strategy:?} n = {live}: out was written"));
            }
            check(&format!("{strategy:?} n = {live}: num_out"), &read::<i32>(&r.args[3]), &[0x55])?;
            if read::<u32>(&r.args[4]).iter().any(|&w| w != 0xdead_beef) {
                return Err(format!("{strategy:?} n = {live}: the scratch was written"));
            }
        }
    }
    Ok(())
}

fn build_errors() -> Outcome {
    let o = Options::new(algorithms::Target {
        subgroup_width: 32,
        forward_progress: true,
        class: algorithms::DeviceClass::Gpu,
    });
    let cap = Capacity::new(100).map_err(|e| e.to_string())?;
    let mut pb = ProgramBuilder::new("e");
    let a = pb.buffer("a", ScalarType::F32);
    let b = pb.buffer("b", ScalarType::F32);
    let c = pb.buffer("c", ScalarType::F64);
    let flags = pb.buffer("flags", ScalarType::I32);
    let fu = pb.buffer("fu", ScalarType::U32);
    let num = pb.buffer("num", ScalarType::I32);
    let s = pb.buffer("s", ScalarType::U32);
    let n = pb.buffer("n", ScalarType::I32);
    let (ea, eb, ec) = (Elems::scalar(a), Elems::scalar(b), Elems::scalar(c));
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &ea, flags, &ec, num, s, n, cap);
    expect_build_error(r, line, "`out` (f64) must have the shape and dtypes of `arr` (f32)")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &ea, fu, &eb, num, s, n, cap);
    expect_build_error(r, line, "`flags` must be a buffer of i32")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &ea, flags, &ea, num, s, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &ea, flags, &eb, flags, s, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &Elems::soa(&[]), flags, &Elems::soa(&[]), num, s, n, cap);
    expect_build_error(r, line, "struct of no fields")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &Elems::aos(a, 0), flags, &Elems::aos(b, 0), num, s, n, cap);
    expect_build_error(r, line, "k = 0")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &Elems::aos(a, 2), flags, &Elems::aos(b, 3), num, s, n, cap);
    expect_build_error(r, line, "must have the shape")?;
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &Elems::soa(&[a, c]), flags, &Elems::soa(&[b, a]), num, s, n, cap);
    expect_build_error(r, line, "must have the shape")?;
    // the scratch aliasing a u32 element buffer
    let (u1, u2) = (pb.buffer("u1", ScalarType::U32), pb.buffer("u2", ScalarType::U32));
    let line = line!() + 1;
    let r = algorithms::select(&mut pb, &o, &Elems::scalar(u1), flags, &Elems::scalar(u2), num, u2, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    Ok(())
}
