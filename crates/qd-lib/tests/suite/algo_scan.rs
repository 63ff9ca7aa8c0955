//! `algorithms::exclusive_scan_{add,min,max}`: every dtype × operator, one compiled program
//! replayed at every small live count × every input shape (depths 1, 2 and an over-specified 3;
//! `out[n..]` must stay untouched), the large live counts for a few dtypes, both strategies
//! where the device has forward progress (bit-for-bit agreement on integers), 1 000 003 elements
//! on CUDA only, and the error paths.

use crate::algo_ref::{
    build_prog, chunked_on, exclusive_ref, expect_aliased, expect_build_error, expect_check, expect_status, input,
    opts, run_prog, run_raw, small_runs, strategies, ty, Input,
};
use crate::elem::Elem;
use crate::harness::{buf, check, read, Outcome, Suite};
use qd_frontend::{BuildError, ProgramArg, ProgramBuilder};
use qd_lib::algorithms::{self, exclusive_scan_scratch_slots, Capacity, Options, Strategy};
use qd_mir::interp::ArgValue;
use qd_mir::{GroupOp, Module, ScalarType};
use qd_rt::{Device, DeviceKind};

type ScanFn = fn(
    &mut ProgramBuilder,
    &Options,
    ProgramArg,
    ProgramArg,
    ProgramArg,
    ProgramArg,
    Capacity,
) -> Result<(), BuildError>;

fn scan_fn(op: GroupOp) -> ScanFn {
    match op {
        GroupOp::Add => algorithms::exclusive_scan_add,
        GroupOp::Min => algorithms::exclusive_scan_min,
        _ => algorithms::exclusive_scan_max,
    }
}

const OPS: [GroupOp; 3] = [GroupOp::Add, GroupOp::Min, GroupOp::Max];

/// Registers the cases.
pub fn register(s: &mut Suite) {
    let mut salt = 0usize;
    crate::for_each_dtype!(T => {
        for op in OPS {
            salt += 1;
            // every shape at every live count for i32 add and the float adds; an over-specified
            // depth for i32 and f64
            let full = op == GroupOp::Add && (T::TY == ScalarType::I32 || !T::is_int());
            let deep = T::TY == ScalarType::I32 && op == GroupOp::Add;
            let name = format!("algo::exclusive_scan_{}/{}/small_ns", op.name(), ty::<T>());
            s.case(name, move |dev| small::<T>(dev, op, salt, full, deep));
        }
    });
    s.case("algo::exclusive_scan_add/i32/big_ns", |dev| {
        big::<i32>(dev, GroupOp::Add, &[(65_535, Input::Random), (65_536, Input::Specials)])
    });
    s.case("algo::exclusive_scan_add/f32/big_ns", |dev| big::<f32>(dev, GroupOp::Add, &[(65_537, Input::Specials)]));
    s.case("algo::exclusive_scan_min/f64/big_ns", |dev| {
        big::<f64>(dev, GroupOp::Min, &[(65_537, Input::Specials), (40_000, Input::Random)])
    });
    s.case("algo::exclusive_scan_max/f32/big_ns", |dev| big::<f32>(dev, GroupOp::Max, &[(65_536, Input::Specials)]));
    s.case("algo::exclusive_scan/f32/nan_payload_order", nan_order::<f32>);
    s.case("algo::exclusive_scan/f64/nan_payload_order", nan_order::<f64>);
    s.case("algo::exclusive_scan_add/u32/strategies_agree", |dev| {
        agree::<u32>(dev, GroupOp::Add, &[(65_537, Input::Random)])
    });
    s.case("algo::exclusive_scan_max/i64/strategies_agree", |dev| {
        agree::<i64>(dev, GroupOp::Max, &[(3000, Input::Sorted), (1024, Input::FewDistinct)])
    });
    s.case("algo::exclusive_scan_add/u32/n1000003 (cuda and vulkan; skipped on the interpreter)", huge);
    s.case("algo::exclusive_scan+reduce/two_calls_one_program", two_calls);
    s.case("algo::exclusive_scan/errors/short_scratch", short_scratch);
    s.case("algo::exclusive_scan/errors/live_count_out_of_range", out_of_range);
    s.case("algo::exclusive_scan/errors/aliased_buffers", aliased);
    s.case("algo::exclusive_scan/errors/build", |_| build_errors());
}

fn program<T: Elem>(dev: &Device, op: GroupOp, o: &Options, cap: Capacity) -> Result<Module, String> {
    build_prog(dev, "scan", |pb| {
        let arr = pb.buffer("arr", T::TY);
        let out = pb.buffer("out", T::TY);
        let st = if T::TY.bits() > 32 { ScalarType::U64 } else { ScalarType::U32 };
        let scratch = pb.buffer("scratch", st);
        let n = pb.buffer("n", ScalarType::I32);
        scan_fn(op)(pb, o, arr, out, scratch, n, cap)
    })
}

/// A recognisable value `out` starts with (its tail must keep it).
fn marker<T: Elem>() -> T {
    T::from_bits(0x5a5a)
}

fn args<T: Elem>(xs: &[T], live: i64, cap: Capacity) -> Result<Vec<ArgValue>, String> {
    let max_n = (cap.max_n() as usize).max(1);
    let mut data = xs.to_vec();
    data.resize(max_n, T::identity(GroupOp::Add));
    let slots = exclusive_scan_scratch_slots(cap.max_n(), Some(cap.log256())).map_err(|e| e.to_string())? as usize;
    let scratch =
        if T::TY.bits() > 32 { buf(&vec![0xdead_beef_u64; slots]) } else { buf(&vec![0xdead_beef_u32; slots]) };
    Ok(vec![buf(&data), buf(&vec![marker::<T>(); max_n]), scratch, buf(&[live as i32])])
}

/// One scan of `xs` (live count `xs.len()`); returns the whole `out` buffer.
fn run_one<T: Elem>(dev: &Device, m: &Module, xs: &[T], cap: Capacity) -> Result<Vec<T>, String> {
    let mut a = args(xs, xs.len() as i64, cap)?;
    run_prog(dev, m, &mut a)?;
    Ok(read::<T>(&a[1]))
}

/// `out` as expected: the exclusive scan, then the untouched tail.
fn want<T: Elem>(op: GroupOp, xs: &[T], cap: Capacity) -> Vec<T> {
    let mut w = exclusive_ref(op, xs);
    w.resize((cap.max_n() as usize).max(1), marker::<T>());
    w
}

/// A strategy, a capacity and the runs of one compiled program.
type Plan = (Strategy, Capacity, Vec<(usize, Input)>);

/// One program per capacity replayed over the small live counts: depth 2 (`max_n` 257) with
/// every shape (rotating, or all of them for `full`), depth 1 (`max_n` 256), an over-specified
/// depth 3 for `deep`; the single pass (forward-progress devices) at three live counts.
fn small<T: Elem>(dev: &Device, op: GroupOp, salt: usize, full: bool, deep: bool) -> Outcome {
    let mut plans: Vec<Plan> = vec![
        (Strategy::MultiLaunch, cap(257, None)?, small_runs(salt, full, 257)),
        (Strategy::MultiLaunch, cap(256, None)?, vec![(0, Input::Random), (256, Input::Specials)]),
    ];
    if deep {
        plans.push((Strategy::MultiLaunch, cap(257, Some(3))?, vec![(1, Input::Random), (257, Input::Reversed)]));
    }
    if chunked_on(dev) {
        // the CPU form: depth 1 and 2, and 64 chunks with live counts around the chunk size
        plans.push((Strategy::Chunked, cap(257, None)?, small_runs(salt, full, 257)));
        plans.push((Strategy::Chunked, cap(256, None)?, vec![(0, Input::Random), (256, Input::Specials)]));
        let runs = [(1, Input::Random), (63, Input::Sorted), (64, Input::Specials), (65, Input::Reversed)];
        let more = [(8191, Input::FewDistinct), (16_384, Input::Random), (20_000, Input::AllEqual)];
        plans.push((Strategy::Chunked, cap(20_000, None)?, runs.into_iter().chain(more).collect()));
    }
    if dev.info().forward_progress {
        let runs = vec![(2, Input::FewDistinct), (257, Input::Specials)];
        plans.push((Strategy::SinglePass, cap(257, None)?, runs));
    }
    for (strategy, cap, runs) in plans {
        let m = program::<T>(dev, op, &opts(dev, strategy), cap)?;
        for (k, (n, shape)) in runs.into_iter().enumerate() {
            let xs: Vec<T> = input(shape, n, (k + salt * 16) as u64);
            let got = run_one(dev, &m, &xs, cap)?;
            check(&format!("{strategy:?} D={} n={n} {shape:?}", cap.log256()), &got, &want(op, &xs, cap))?;
        }
    }
    Ok(())
}

/// A capacity (natural depth, or `log256`).
fn cap(max_n: u64, log256: Option<u32>) -> Result<Capacity, String> {
    match log256 {
        None => Capacity::new(max_n),
        Some(d) => Capacity::with_log256(max_n, d),
    }
    .map_err(|e| e.to_string())
}

/// Multi-launch at large live counts (one program, `max_n` 65 537, depth 3), and on the host
/// devices the chunked form, bit for bit with it (NaN payloads included: floats keep the
/// multi-launch form's order).
fn big<T: Elem>(dev: &Device, op: GroupOp, runs: &[(usize, Input)]) -> Outcome {
    let cap = cap(65_537, None)?;
    let m = program::<T>(dev, op, &opts(dev, Strategy::MultiLaunch), cap)?;
    let chunked = match chunked_on(dev) {
        true => Some(program::<T>(dev, op, &opts(dev, Strategy::Chunked), cap)?),
        false => None,
    };
    for &(n, shape) in runs {
        let xs: Vec<T> = input(shape, n, n as u64 + 5);
        let got = run_one(dev, &m, &xs, cap)?;
        check(&format!("n={n} {shape:?}"), &got, &want(op, &xs, cap))?;
        if let Some(c) = &chunked {
            let cg = run_one(dev, c, &xs, cap)?;
            if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != cg[i].to_bits()) {
                return Err(format!("n={n} {shape:?}: [{i}] multi-launch {:?}, chunked {:?}", got[i], cg[i]));
            }
        }
    }
    Ok(())
}

/// Multi-launch and single pass bit-for-bit on integers (forward-progress devices).
fn agree<T: Elem>(dev: &Device, op: GroupOp, runs: &[(usize, Input)]) -> Outcome {
    let cap = Capacity::new(70_000).map_err(|e| e.to_string())?;
    let multi = program::<T>(dev, op, &opts(dev, Strategy::MultiLaunch), cap)?;
    // Without forward progress there is one strategy: it is checked against the reference.
    let single = match dev.info().forward_progress {
        true => Some(program::<T>(dev, op, &opts(dev, Strategy::SinglePass), cap)?),
        false => None,
    };
    let chunked = match chunked_on(dev) {
        true => Some(program::<T>(dev, op, &opts(dev, Strategy::Chunked), cap)?),
        false => None,
    };
    for &(n, shape) in runs {
        let xs: Vec<T> = input(shape, n, 42);
        let a = run_one(dev, &multi, &xs, cap)?;
        if let Some(single) = &single {
            let b = run_one(dev, single, &xs, cap)?;
            if let Some(i) = (0..a.len()).find(|&i| a[i].to_bits() != b[i].to_bits()) {
                return Err(format!("n={n}: [{i}] multi-launch {:?}, single-pass {:?}", a[i], b[i]));
            }
        }
        if let Some(chunked) = &chunked {
            let c = run_one(dev, chunked, &xs, cap)?;
            if let Some(i) = (0..a.len()).find(|&i| a[i].to_bits() != c[i].to_bits()) {
                return Err(format!("n={n}: [{i}] multi-launch {:?}, chunked {:?}", a[i], c[i]));
            }
        }
        check(&format!("n={n}"), &a, &want(op, &xs, cap))?;
    }
    Ok(())
}

fn huge(dev: &Device) -> Outcome {
    if matches!(dev.info().kind, DeviceKind::Interp | DeviceKind::Sim) {
        return Ok(()); // 1 000 003 elements: too slow for the interpreter and the simulator
    }
    let n = 1_000_003usize;
    let cap = Capacity::new(n as u64).map_err(|e| e.to_string())?;
    let chunked = chunked_on(dev).then_some(Strategy::Chunked);
    for strategy in strategies(dev).into_iter().chain(chunked) {
        let m = program::<u32>(dev, GroupOp::Add, &opts(dev, strategy), cap)?;
        let xs: Vec<u32> = input(Input::Random, n, 3);
        let got = run_one(dev, &m, &xs, cap)?;
        check(&format!("{strategy:?}"), &got, &want(GroupOp::Add, &xs, cap))?;
    }
    Ok(())
}

fn short_scratch(dev: &Device) -> Outcome {
    let cap = Capacity::new(70_000).map_err(|e| e.to_string())?;
    let m = program::<i64>(dev, GroupOp::Add, &opts(dev, Strategy::Auto), cap)?;
    let xs: Vec<i64> = input(Input::Random, 10, 1);
    let mut a = args(&xs, 10, cap)?;
    // exclusive_scan_scratch_slots(70000, 3) = 274 + 2
    a[2] = buf(&[0u64; 275]);
    expect_check(run_raw(dev, &m, &mut a), "scratch")?;
    let mut a = args(&xs, 10, cap)?;
    a[1] = buf(&[0i64; 69_999]);
    expect_check(run_raw(dev, &m, &mut a), "out")
}

/// Resident runs with `out` (and `scratch`, of the same u32 type) bound to `arr`'s buffer: the
/// program checks name `arr` before any launch, on both strategies.
fn aliased(dev: &Device) -> Outcome {
    let cap = Capacity::new(2000).map_err(|e| e.to_string())?;
    for strategy in strategies(dev) {
        let m = program::<u32>(dev, GroupOp::Add, &opts(dev, strategy), cap)?;
        let xs: Vec<u32> = input(Input::Random, 2000, 4);
        let a = args(&xs, 2000, cap)?;
        expect_aliased(dev, &m, &a, "arr", "out").map_err(|e| format!("{strategy:?}: {e}"))?;
        expect_aliased(dev, &m, &a, "arr", "scratch").map_err(|e| format!("{strategy:?}: {e}"))?;
    }
    Ok(())
}

fn out_of_range(dev: &Device) -> Outcome {
    let cap = Capacity::new(2000).map_err(|e| e.to_string())?;
    for strategy in strategies(dev) {
        let m = program::<i32>(dev, GroupOp::Min, &opts(dev, strategy), cap)?;
        let xs: Vec<i32> = input(Input::Random, 2000, 2);
        for live in [2001i64, -1] {
            let mut a = args(&xs, live, cap)?;
            expect_status(run_raw(dev, &m, &mut a))?;
            check(
                &format!("{strategy:?} out untouched (n = {live})"),
                &read::<i32>(&a[1]),
                &vec![marker::<i32>(); 2000],
            )?;
            if read::<u32>(&a[2]).iter().any(|&w| w != 0xdead_beef) {
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
    let i = pb.buffer("i", ScalarType::I32);
    let i2 = pb.buffer("i2", ScalarType::I32);
    let u = pb.buffer("u", ScalarType::U32);
    let u64b = pb.buffer("u64b", ScalarType::U64);
    let n = pb.buffer("n", ScalarType::I32);
    let line = line!() + 1;
    let r = algorithms::exclusive_scan_add(&mut pb, &o, i, i, u, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let line = line!() + 1;
    let r = algorithms::exclusive_scan_min(&mut pb, &o, i, i2, u64b, n, cap);
    expect_build_error(r, line, "`scratch` must be a buffer of u32")?;
    let line = line!() + 1;
    let r = algorithms::exclusive_scan_max(&mut pb, &o, i, u, u, n, cap);
    expect_build_error(r, line, "`out` must be a buffer of i32")?;
    // the live count aliasing the output
    let line = line!() + 1;
    let r = algorithms::exclusive_scan_add(&mut pb, &o, i, n, u, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    // a forced single pass that cannot fit: none for scans (the state always fits); a target
    // width that does not divide 256
    let bad = Options::new(algorithms::Target {
        subgroup_width: 3,
        forward_progress: true,
        class: algorithms::DeviceClass::Gpu,
    });
    let line = line!() + 1;
    let r = algorithms::exclusive_scan_add(&mut pb, &bad, i, i2, u, n, cap);
    expect_build_error(r, line, "subgroup width 3")?;
    Ok(())
}

/// A reduce and a scan of the same buffer in one program: the shared phase kernel is added
/// once (same name, same text), each call has its own status bit, and both results are right.
fn two_calls(dev: &Device) -> Outcome {
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let o = opts(dev, Strategy::MultiLaunch);
    let m = build_prog(dev, "two", |pb| {
        let arr = pb.buffer("arr", ScalarType::I32);
        let out = pb.buffer("out", ScalarType::I32);
        let total = pb.buffer("total", ScalarType::I32);
        let s1 = pb.buffer("s1", ScalarType::U32);
        let s2 = pb.buffer("s2", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        algorithms::exclusive_scan_add(pb, &o, arr, out, s1, n, cap)?;
        algorithms::reduce_add(pb, &o, arr, total, s2, n, cap)
    })?;
    let names: Vec<&str> = m.kernels.iter().map(|f| f.name.as_str()).collect();
    let shared = "qd_scan_reduce_i32_add_w";
    if names.iter().filter(|k| k.starts_with(shared) && k.ends_with("_i32_zn0_u32_zt0")).count() != 1 {
        return Err(format!("expected one shared level-0 reduce kernel, got {names:?}"));
    }
    let bits = m.programs[0].status.as_ref().map_or(0, |s| s.bits.len());
    if bits != 2 {
        return Err(format!("expected two status bits, got {bits}"));
    }
    let xs: Vec<i32> = input(Input::Random, 1000, 11);
    let slots = exclusive_scan_scratch_slots(1000, None).map_err(|e| e.to_string())? as usize;
    let mut a = vec![
        buf(&xs),
        buf(&[0i32; 1000]),
        buf(&[0i32]),
        buf(&vec![0u32; slots]),
        buf(&vec![0u32; slots]),
        buf(&[1000i32]),
    ];
    run_prog(dev, &m, &mut a)?;
    check("scan", &read::<i32>(&a[1]), &exclusive_ref(GroupOp::Add, &xs))?;
    check("reduce", &read::<i32>(&a[2]), &[xs.iter().fold(0i32, |s, &x| s.wrapping_add(x))])
}

/// On the host devices: the chunked form against multi-launch, bit for bit, where only the order
/// of the operands decides the result bits — NaNs of different signs and payloads (an IEEE
/// operation on two NaNs keeps one of them, by position), mixed with ordinary values — for add,
/// min and max at depths 2 and 3.
fn nan_order<T: Elem>(dev: &Device) -> Outcome {
    if !chunked_on(dev) {
        return Ok(());
    }
    let bits = T::TY.bits();
    let (quiet, sign) = if bits == 64 { (0x7FF8_0000_0000_0000u64, 1u64 << 63) } else { (0x7FC0_0000, 1 << 31) };
    let xs: Vec<T> = (0..3000u64)
        .map(|i| match i % 5 {
            4 => T::from_bits(if bits == 64 { (i as f64).to_bits() } else { u64::from((i as f32).to_bits()) }),
            _ => T::from_bits(quiet | (crate::elem::mix(i) & 0xFFFF) | if i % 2 == 1 { sign } else { 0 }),
        })
        .collect();
    for (max_n, n) in [(3000u64, 3000usize), (70_000, 3000)] {
        let cap = cap(max_n, None)?;
        for op in OPS {
            let multi = program::<T>(dev, op, &opts(dev, Strategy::MultiLaunch), cap)?;
            let chunked = program::<T>(dev, op, &opts(dev, Strategy::Chunked), cap)?;
            let a = run_one(dev, &multi, &xs[..n], cap)?;
            let c = run_one(dev, &chunked, &xs[..n], cap)?;
            if let Some(i) = (0..a.len()).find(|&i| a[i].to_bits() != c[i].to_bits()) {
                return Err(format!(
                    "{} max_n={max_n}: [{i}] multi-launch {:#x}, chunked {:#x}",
                    op.name(),
                    a[i].to_bits(),
                    c[i].to_bits()
                ));
            }
        }
    }
    Ok(())
}
