//! `qd_lib::algorithms::sort` on every device of the matrix against a plain-Rust stable sort of
//! the twiddled key bits (written here, not shared with the library): every key dtype, keys only
//! and key-value (an index payload shows stability; other value dtypes ride along), random /
//! sorted / reversed / all-equal / few-distinct keys, float specials (both NaN signs, ±0, ±inf),
//! `end_bit` below the width (odd pass counts end with the copy phase), one compiled module
//! replayed at several live counts, multi-launch against onesweep bit for bit where the device
//! has forward progress, the program checks and status, and the build errors.

use crate::algo_ref::expect_aliased;
use crate::block_basic::expect_err;
use crate::elem::{mix, Elem};
use crate::harness::{check, Outcome, Suite};
use qd_frontend::{ProgramBuilder, ScalarType};
use qd_lib::algorithms::{sort, sort_scratch_slots, Capacity, DeviceClass, Options, Strategy, Target};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::Module;
use qd_rt::{Device, DeviceKind, RtErrorKind};

/// Registers the cases.
pub fn register(s: &mut Suite) {
    // The slowest cases first, so that the parallel runner packs the rest around them.
    strategies(s);
    // Big live counts for two dtypes: the staircase scan at D = 3 (65537) and the most tiles of
    // D = 2 (65536, 65535). The n-dependent phases are the same at every bit position, so these
    // sort fewer bits (16, or 8 with the copy phase) to stay within the interpreter's budget.
    for (kind, n, end_bit, kv) in
        [("random", 65_537usize, 16, true), ("few", 65_536, 8, false), ("reversed", 65_535, 8, true)]
    {
        s.case(format!("algo::sort/big/u32/{kind}/{n}/end_bit{end_bit}"), move |dev| {
            let keys = keys_of::<u32>(kind, n, 5);
            let vals = kv.then(|| index_values(n));
            run_case(dev, &keys, vals, end_bit, n as u64, &[n], Strategy::MultiLaunch)
        });
    }
    // Full-width key-value sorts at 65 537 (D = 3): every digit of u32 keys (multi-launch) and
    // of f32 keys with the specials (Auto: onesweep where there is forward progress). About 2 s
    // each on the interpreter: cpu:32 only among the interpreter widths.
    s.case("algo::sort/big/u32/random/65537/full_width_kv (cpu: width 32 only)", |dev| {
        if !full_width_runs_on(dev) {
            return Ok(());
        }
        let keys = keys_of::<u32>("random", 65_537, 31);
        run_case(dev, &keys, Some(index_values(65_537)), 32, 65_537, &[65_537], Strategy::MultiLaunch)
    });
    s.case("algo::sort/big/f32/random/65537/full_width_kv (cpu: width 32 only)", |dev| {
        if !full_width_runs_on(dev) {
            return Ok(());
        }
        let keys = keys_of::<f32>("random", 65_537, 32);
        run_case(dev, &keys, Some(index_values(65_537)), 32, 65_537, &[65_537], Strategy::Auto)
    });
    s.case("algo::sort/big/i64/random/65537/end_bit8", |dev| {
        let keys = keys_of::<i64>("random", 65_537, 7);
        run_case(dev, &keys, Some(index_values(65_537)), 8, 65_537, &[65_537], Strategy::MultiLaunch)
    });
    small::<u32>(s);
    small::<i32>(s);
    small::<f32>(s);
    small::<u64>(s);
    small::<i64>(s);
    small::<f64>(s);
    for (name, vt) in [("u64_f32", ScalarType::F32), ("i32_u64", ScalarType::U64), ("f64_i32", ScalarType::I32)] {
        s.case(format!("algo::sort/values/{name}"), move |dev| mixed_values(dev, name, vt));
    }
    s.case("algo::sort/values/f32_bool", |dev| {
        let keys = keys_of::<f32>("few", 257, 9);
        let vals: Vec<u64> = (0..257u64).map(|i| u64::from(mix(i).is_multiple_of(3))).collect();
        run_case(dev, &keys, Some((ScalarType::Bool, vals)), 32, 257, &[257, 100], Strategy::MultiLaunch)
    });
    end_bits(s);
    s.case("algo::sort/replay/u32_kv", |dev| {
        let keys = keys_of::<u32>("random", 3000, 11);
        let lives = [3000, 0, 1, 2, 255, 256, 257, 2049];
        run_case(dev, &keys, Some(index_values(3000)), 32, 3000, &lives, Strategy::MultiLaunch)
    });
    s.case("algo::sort/replay/capacity0", |dev| {
        let opts = options(dev, Strategy::Auto);
        let cap = Capacity::new(0).map_err(|e| e.to_string())?;
        let m = build_module(&opts, ScalarType::F64, None, 64, cap)?;
        run_check::<f64>(dev, &m, &[], None, 64, cap, 0).map(|_| ())
    });
    s.case("algo::sort/replay/over_specified_d3", |dev| {
        let keys = keys_of::<i32>("random", 300, 12);
        let opts = options(dev, Strategy::MultiLaunch);
        let cap = Capacity::with_log256(300, 3).map_err(|e| e.to_string())?;
        let m = build_module(&opts, ScalarType::I32, Some(ScalarType::U32), 32, cap)?;
        for live in [300, 257, 1, 0] {
            run_check(dev, &m, &keys, Some(&index_values(300)), 32, cap, live)?;
        }
        Ok(())
    });
    s.case("algo::sort/big/u32/1000003 (skipped on the interpreter and the simulators)", |dev| {
        let n = 1_000_003;
        match dev.info().kind {
            // The interpreter and the AMDGCN simulator: far too slow for a million keys.
            DeviceKind::Interp | DeviceKind::Sim => return Ok(()),
            // lavapipe: about 2 s a million keys; the full-width u32 keys only.
            DeviceKind::Vulkan => {
                let keys = keys_of::<u32>("random", n, 15);
                return run_case(dev, &keys, None, 32, n as u64, &[n], Strategy::MultiLaunch);
            }
            // A GPU through CUDA or HSA, and native code on the host: the whole case.
            DeviceKind::Cpu | DeviceKind::Cuda | DeviceKind::Hsa => {}
        }
        strategies_agree::<u32>(dev, n, 32, "random", &[n, 65_537])?;
        let keys = keys_of::<f64>("random", n, 14);
        run_case(dev, &keys, None, 64, n as u64, &[n], Strategy::MultiLaunch)
    });
    s.case("algo::sort/errors/program", program_errors);
    s.case("algo::sort/errors/build", |_| build_errors());
}

/// The full-width big sorts run on every device but the interpreter at widths other than 32.
fn full_width_runs_on(dev: &Device) -> bool {
    let info = dev.info();
    match info.kind {
        DeviceKind::Interp => info.subgroup_width == 32,
        // The simulator is slower than the interpreter: the end_bit sorts at 65 537 suffice.
        DeviceKind::Sim => false,
        DeviceKind::Cpu | DeviceKind::Cuda | DeviceKind::Hsa | DeviceKind::Vulkan => true,
    }
}

/// Small live counts for dtype `K`, keys only and with an index payload, every input kind: one
/// module at capacity 256 (`D = 1`) replayed at 256 (and 255, 0, 1, 2 on random keys), and one
/// at 257 (`D = 2`).
fn small<K: Elem>(s: &mut Suite) {
    for kv in [false, true] {
        let mode = if kv { "kv" } else { "keys" };
        s.case(format!("algo::sort/small/{}/{mode}", K::TY), move |dev| {
            let opts = options(dev, Strategy::Auto);
            let bits = K::TY.bits();
            let vt = kv.then_some(ScalarType::U32);
            for (max_n, lives) in [(256u64, &[256usize][..]), (257, &[257][..])] {
                let cap = Capacity::new(max_n).map_err(|e| e.to_string())?;
                let m = build_module(&opts, K::TY, vt, bits, cap)?;
                for (ki, kind) in KINDS.iter().enumerate() {
                    let keys = keys_of::<K>(kind, max_n as usize, ki as u64 * 31 + max_n);
                    let vals = index_values(max_n as usize);
                    // The other counts once (random keys), on the capacity-256 module.
                    let tiny: &[usize] = if ki == 0 && max_n == 256 { &[255, 0, 1, 2] } else { &[] };
                    for &live in lives.iter().chain(tiny) {
                        run_check(dev, &m, &keys, kv.then_some(&vals), bits, cap, live)
                            .map_err(|e| format!("{kind}: {e}"))?;
                    }
                }
            }
            Ok(())
        });
    }
}

/// `end_bit` below the key width: 16 and 24 (3 passes: the copy phase) on u32, 8 on i64 (the
/// sign flip is outside the sorted byte: keys order by their low byte), 8 on f32 (negative floats
/// are complemented, so their low byte orders descending), 56 on f64.
fn end_bits(s: &mut Suite) {
    s.case("algo::sort/end_bit/u32/16", |dev| {
        let keys = keys_of::<u32>("random", 3000, 21);
        run_case(dev, &keys, Some(index_values(3000)), 16, 3000, &[3000, 17], Strategy::Auto)
    });
    s.case("algo::sort/end_bit/u32/24", |dev| {
        let keys = keys_of::<u32>("random", 3000, 22);
        run_case(dev, &keys, Some(index_values(3000)), 24, 3000, &[3000, 257], Strategy::Auto)
    });
    s.case("algo::sort/end_bit/i64/8", |dev| {
        let keys = keys_of::<i64>("random", 700, 23);
        run_case(dev, &keys, Some(index_values(700)), 8, 700, &[700], Strategy::Auto)
    });
    s.case("algo::sort/end_bit/f32/8", |dev| {
        let keys = keys_of::<f32>("random", 700, 24);
        run_case(dev, &keys, Some(index_values(700)), 8, 700, &[700], Strategy::MultiLaunch)
    });
    s.case("algo::sort/end_bit/f64/56", |dev| {
        let keys = keys_of::<f64>("random", 600, 25);
        run_case(dev, &keys, None, 56, 600, &[600], Strategy::MultiLaunch)
    });
}

/// Multi-launch against onesweep (and the chunked CPU form on the host devices), bit for bit and
/// against the reference, on devices with forward progress (one module per strategy, replayed at
/// several live counts); elsewhere the forced single pass must be a build error.
fn strategies(s: &mut Suite) {
    s.case("algo::sort/strategy/u32/random/end_bit8", |dev| {
        strategies_agree::<u32>(dev, 65_537, 8, "random", &[65_537, 2049, 1, 0])
    });
    s.case("algo::sort/strategy/u32/few", |dev| strategies_agree::<u32>(dev, 12_000, 32, "few", &[12_000, 257]));
    s.case("algo::sort/strategy/i32/few", |dev| strategies_agree::<i32>(dev, 3000, 32, "few", &[3000, 2048]));
    s.case("algo::sort/strategy/f32/random", |dev| strategies_agree::<f32>(dev, 3000, 32, "random", &[3000]));
    s.case("algo::sort/strategy/u64/random", |dev| strategies_agree::<u64>(dev, 4000, 64, "random", &[4000, 2047]));
    s.case("algo::sort/strategy/f64/sorted_end56", |dev| strategies_agree::<f64>(dev, 3000, 56, "sorted", &[3000]));
}

/// Builds one module per strategy and compares them (see [`strategies`]).
fn strategies_agree<K: Elem>(dev: &Device, n: usize, bits: u32, kind: &str, lives: &[usize]) -> Outcome {
    let keys = keys_of::<K>(kind, n, 41);
    let vals = index_values(n);
    let cap = Capacity::new(n as u64).map_err(|e| e.to_string())?;
    let multi = options(dev, Strategy::MultiLaunch);
    let single = options(dev, Strategy::SinglePass);
    let ms = build_module(&single, K::TY, Some(ScalarType::U32), bits, cap);
    if !dev.info().forward_progress {
        return match ms {
            Err(e) if e.contains("forward progress") => Ok(()),
            Err(e) => Err(format!("unexpected error: {e}")),
            Ok(_) => Err("SinglePass built on a target without forward progress".into()),
        };
    }
    let ms = ms?;
    let mm = build_module(&multi, K::TY, Some(ScalarType::U32), bits, cap)?;
    // Launch counts: onesweep 3 + P, multi-launch P * (2D + 1), each + 1 copy when P is odd.
    let (p, d) = (bits as usize / 8, cap.log256() as usize);
    let copy = p % 2;
    let got = (ms.programs[0].launches.len(), mm.programs[0].launches.len());
    if got != (3 + p + copy, p * (2 * d + 1) + copy) {
        return Err(format!("launches (onesweep, multi-launch) = {got:?} for P = {p}, D = {d}"));
    }
    // The chunked CPU form on the host devices: 3 launches per pass.
    let chunked = match dev.info().is_host() {
        true => Some(build_module(&options(dev, Strategy::Chunked), K::TY, Some(ScalarType::U32), bits, cap)?),
        false => None,
    };
    if let Some(mc) = &chunked {
        if mc.programs[0].launches.len() != 3 * p + copy {
            return Err(format!("chunked: {} launches for P = {p}", mc.programs[0].launches.len()));
        }
    }
    for &live in lives {
        let a = run_check(dev, &ms, &keys, Some(&vals), bits, cap, live).map_err(|e| format!("onesweep: {e}"))?;
        let b = run_check(dev, &mm, &keys, Some(&vals), bits, cap, live).map_err(|e| format!("multi: {e}"))?;
        if a != b {
            return Err(format!("n = {live}: onesweep and multi-launch differ"));
        }
        if let Some(mc) = &chunked {
            let c = run_check(dev, mc, &keys, Some(&vals), bits, cap, live).map_err(|e| format!("chunked: {e}"))?;
            if a != c {
                return Err(format!("n = {live}: onesweep and chunked differ"));
            }
        }
    }
    Ok(())
}

const KINDS: [&str; 5] = ["random", "sorted", "reversed", "equal", "few"];

/// The options for `dev` with `strategy`.
fn options(dev: &Device, strategy: Strategy) -> Options {
    let info = dev.info();
    Options::new(Target {
        subgroup_width: info.subgroup_width,
        forward_progress: info.forward_progress,
        class: DeviceClass::of_host(info.is_host()),
    })
    .with_strategy(strategy)
}

/// Quadrants' sortable bits of a key (unsigned: as is; signed: sign flipped; floats: all bits
/// flipped when negative, else the sign flipped).
fn sortable<K: Elem>(x: K) -> u64 {
    let w = K::TY.bits();
    let bits = x.to_bits();
    let sign = 1u64 << (w - 1);
    let ones = if w == 64 { u64::MAX } else { u64::from(u32::MAX) };
    match K::TY {
        ScalarType::I32 | ScalarType::I64 => bits ^ sign,
        ScalarType::F32 | ScalarType::F64 if bits & sign != 0 => bits ^ ones,
        ScalarType::F32 | ScalarType::F64 => bits ^ sign,
        _ => bits,
    }
}

/// Keys of one kind; float keys mix in the specials (both NaN signs, ±0, ±inf).
fn keys_of<K: Elem>(kind: &str, n: usize, seed: u64) -> Vec<K> {
    let float = !K::is_int();
    let specials = {
        let mut v = K::specials();
        if float {
            v.push(K::from_bits(neg_nan_bits(K::TY)));
        }
        v
    };
    let random = |i: usize| -> K {
        let r = mix(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
        if r.is_multiple_of(9) {
            specials[(r >> 8) as usize % specials.len()]
        } else if r.is_multiple_of(5) {
            K::from_bits(mix(r))
        } else {
            K::sample(r)
        }
    };
    let sorted = || {
        let mut v: Vec<K> = (0..n).map(random).collect();
        v.sort_by_key(|&x| sortable(x));
        v
    };
    match kind {
        "sorted" => sorted(),
        "reversed" => {
            let mut v = sorted();
            v.reverse();
            v
        }
        "equal" => vec![random(7); n],
        "few" => {
            let pool: Vec<K> = if float {
                vec![
                    K::from_bits(0),
                    K::from_bits(1u64 << (K::TY.bits() - 1)),
                    specials[0],
                    specials[specials.len() - 1],
                ]
            } else {
                vec![random(1), random(2), random(3)]
            };
            (0..n).map(|i| pool[mix(seed + i as u64) as usize % pool.len()]).collect()
        }
        _ => (0..n).map(random).collect(),
    }
}

/// The bits of the negative-sign quiet NaN of a float dtype.
fn neg_nan_bits(ty: ScalarType) -> u64 {
    if ty.bits() == 64 {
        0xFFF8_0000_0000_0000
    } else {
        0xFFC0_0000
    }
}

/// The index payload `0, 1, …` as u32 bits.
fn index_values(n: usize) -> (ScalarType, Vec<u64>) {
    (ScalarType::U32, (0..n as u64).collect())
}

/// Builds a sort program: params `keys, tmp_keys, [values, tmp_values,] scratch, n`.
fn build_module(
    opts: &Options,
    kt: ScalarType,
    vt: Option<ScalarType>,
    end_bit: u32,
    cap: Capacity,
) -> Result<Module, String> {
    let mut pb = ProgramBuilder::new("sort");
    let keys = pb.buffer("keys", kt);
    let tmp = pb.buffer("tmp_keys", kt);
    let values = vt.map(|v| (pb.buffer("values", v), pb.buffer("tmp_values", v)));
    let scratch = pb.buffer("scratch", ScalarType::U32);
    let n = pb.buffer("n", ScalarType::I32);
    sort(&mut pb, opts, keys, tmp, values, scratch, n, end_bit, cap).map_err(|e| format!("build: {e}"))?;
    let m = pb.finish().map_err(|e| format!("finish: {e}"))?;
    dump(&m);
    Ok(m)
}

/// With `QD_LIB_DUMP=DIR`, writes each kernel once to `DIR/<name>.qdm`.
fn dump(m: &Module) {
    if let Some(dir) = std::env::var_os("QD_LIB_DUMP") {
        for f in &m.kernels {
            let p = std::path::Path::new(&dir).join(format!("{}.qdm", f.name));
            if !p.exists() {
                if let Err(e) = std::fs::write(&p, qd_mir::text::print_function(f)) {
                    eprintln!("QD_LIB_DUMP: cannot write {}: {e}", p.display());
                }
            }
        }
    }
}

/// The arguments of a run: keys (bits), tmp keys, values, scratch and the live count.
fn args_for(
    kt: ScalarType,
    keys: &[u64],
    values: Option<(ScalarType, &[u64])>,
    scratch: u64,
    live: i64,
) -> Vec<ArgValue> {
    let len = keys.len();
    let mut a = vec![
        ArgValue::Buffer(Buffer::from_bits(kt, keys.iter().copied())),
        ArgValue::Buffer(Buffer::from_bits(kt, vec![0xA5; len])),
    ];
    if let Some((vt, v)) = values {
        a.push(ArgValue::Buffer(Buffer::from_bits(vt, v.iter().copied())));
        a.push(ArgValue::Buffer(Buffer::from_bits(vt, vec![0; len])));
    }
    a.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0xDEAD; scratch as usize])));
    a.push(ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [live as u64 & 0xFFFF_FFFF])));
    a
}

fn bits_of(a: &ArgValue) -> Vec<u64> {
    match a {
        ArgValue::Buffer(b) => b.to_bits(),
        ArgValue::Scalar(_, v) => vec![*v],
    }
}

/// Sorts the first `live` keys on the device with module `m` and checks keys and values against
/// the reference (elements past `live` untouched); returns the sorted keys and values.
fn run_check<K: Elem>(
    dev: &Device,
    m: &Module,
    keys: &[K],
    values: Option<&(ScalarType, Vec<u64>)>,
    end_bit: u32,
    cap: Capacity,
    live: usize,
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let slots = sort_scratch_slots(cap.max_n(), Some(cap.log256())).map_err(|e| e.to_string())?;
    let kbits: Vec<u64> = keys.iter().map(|k| k.to_bits()).collect();
    let mut args = args_for(K::TY, &kbits, values.map(|(t, v)| (*t, &v[..])), slots, live as i64);
    dev.run_program(m, &m.programs[0], &mut args).map_err(|e| format!("n = {live}: run: {e}"))?;
    // The reference: a stable sort of the first `live` by the low `end_bit` sortable bits.
    let mask = if end_bit == 64 { u64::MAX } else { (1u64 << end_bit) - 1 };
    let mut order: Vec<usize> = (0..live).collect();
    order.sort_by_key(|&i| sortable(keys[i]) & mask);
    let mut want: Vec<K> = order.iter().map(|&i| keys[i]).collect();
    want.extend_from_slice(&keys[live..]);
    let got: Vec<K> = bits_of(&args[0]).into_iter().map(K::from_bits).collect();
    check(&format!("n = {live}: keys"), &got, &want)?;
    let mut vgot = vec![];
    if let Some((_, v)) = values {
        let mut vwant: Vec<u64> = order.iter().map(|&i| v[i]).collect();
        vwant.extend_from_slice(&v[live..]);
        vgot = bits_of(&args[2]);
        check(&format!("n = {live}: values"), &vgot, &vwant)?;
    }
    Ok((bits_of(&args[0]), vgot))
}

/// Builds one module (capacity `max_n`) and checks it at each live count.
fn run_case<K: Elem>(
    dev: &Device,
    keys: &[K],
    values: Option<(ScalarType, Vec<u64>)>,
    end_bit: u32,
    max_n: u64,
    lives: &[usize],
    strategy: Strategy,
) -> Outcome {
    let opts = options(dev, strategy);
    let cap = Capacity::new(max_n).map_err(|e| e.to_string())?;
    let m = build_module(&opts, K::TY, values.as_ref().map(|v| v.0), end_bit, cap)?;
    for &live in lives {
        run_check(dev, &m, keys, values.as_ref(), end_bit, cap, live)?;
    }
    Ok(())
}

/// Keys of one dtype with values of another (the index, in the value dtype).
fn mixed_values(dev: &Device, name: &str, vt: ScalarType) -> Outcome {
    let n = 1000usize;
    let idx: Vec<u64> = match vt {
        ScalarType::F32 => (0..n).map(|i| u64::from((i as f32).to_bits())).collect(),
        ScalarType::F64 => (0..n).map(|i| (i as f64).to_bits()).collect(),
        _ => (0..n as u64).map(|i| i.wrapping_mul(0x1_0000_0001)).map(|x| x & vt_mask(vt)).collect(),
    };
    let vals = Some((vt, idx));
    match name {
        "u64_f32" => run_case(dev, &keys_of::<u64>("few", n, 3), vals, 64, n as u64, &[n, 999], Strategy::Auto),
        "i32_u64" => run_case(dev, &keys_of::<i32>("random", n, 4), vals, 32, n as u64, &[n], Strategy::Auto),
        _ => run_case(dev, &keys_of::<f64>("random", n, 5), vals, 64, n as u64, &[n], Strategy::Auto),
    }
}

fn vt_mask(vt: ScalarType) -> u64 {
    if vt.bits() == 64 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    }
}

/// The runtime's checks: a short scratch (ProgramCheck naming it), `keys` bound to too short a
/// buffer, `n > max_n` and `n < 0` (ProgramStatus; nothing written), `tmp_keys`/`tmp_values`
/// bound to the buffer of `keys`/`values` (ProgramCheck naming the latter).
fn program_errors(dev: &Device) -> Outcome {
    let opts = options(dev, Strategy::Auto);
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let m = build_module(&opts, ScalarType::F32, Some(ScalarType::I64), 32, cap)?;
    let keys: Vec<u64> = keys_of::<f32>("random", 1000, 3).iter().map(|&k| Elem::to_bits(k)).collect();
    let vals: Vec<u64> = (0..1000).collect();
    let slots = sort_scratch_slots(1000, Some(2)).map_err(|e| e.to_string())?;
    let mut a = args_for(ScalarType::F32, &keys, Some((ScalarType::I64, &vals)), slots - 1, 10);
    match dev.run_program(&m, &m.programs[0], &mut a) {
        Err(e)
            if matches!(&e.kind, RtErrorKind::ProgramCheck { param } if param == "scratch")
                && e.to_string().contains("sort_scratch_slots(1000, 2)") => {}
        Err(e) => return Err(format!("short scratch: wrong error {e}")),
        Ok(()) => return Err("short scratch: ran".into()),
    }
    let mut a = args_for(ScalarType::F32, &keys[..999], Some((ScalarType::I64, &vals)), slots, 10);
    match dev.run_program(&m, &m.programs[0], &mut a) {
        Err(e) if matches!(&e.kind, RtErrorKind::ProgramCheck { param } if param == "keys") => {}
        Err(e) => return Err(format!("short keys: wrong error {e}")),
        Ok(()) => return Err("short keys: ran".into()),
    }
    for live in [1001i64, -1] {
        let mut a = args_for(ScalarType::F32, &keys, Some((ScalarType::I64, &vals)), slots, live);
        match dev.run_program(&m, &m.programs[0], &mut a) {
            Err(e) if matches!(e.kind, RtErrorKind::ProgramStatus { .. }) && e.to_string().contains("sort") => {}
            Err(e) => return Err(format!("n = {live}: wrong error {e}")),
            Ok(()) => return Err(format!("n = {live}: ran")),
        }
        if bits_of(&a[0]) != keys || bits_of(&a[2]) != vals {
            return Err(format!("n = {live}: keys or values were written"));
        }
    }
    // Resident runs with `tmp_keys` bound to `keys`' buffer, `tmp_values` to `values`': the
    // program checks name `keys` and `values` before any launch.
    let a = args_for(ScalarType::F32, &keys, Some((ScalarType::I64, &vals)), slots, 1000);
    expect_aliased(dev, &m, &a, "keys", "tmp_keys")?;
    expect_aliased(dev, &m, &a, "values", "tmp_values")
}

/// Build errors at the caller's line.
fn build_errors() -> Outcome {
    let opts = Options::new(Target { subgroup_width: 32, forward_progress: true, class: DeviceClass::Gpu });
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let mut pb = ProgramBuilder::new("e");
    let k32 = pb.buffer("k32", ScalarType::U32);
    let t32 = pb.buffer("t32", ScalarType::U32);
    let kb = pb.buffer("kb", ScalarType::Bool);
    let tb = pb.buffer("tb", ScalarType::Bool);
    let k64 = pb.buffer("k64", ScalarType::I64);
    let v = pb.buffer("v", ScalarType::F32);
    let tv = pb.buffer("tv", ScalarType::F64);
    let sc = pb.buffer("sc", ScalarType::U32);
    let sc64 = pb.buffer("sc64", ScalarType::U64);
    let n = pb.buffer("n", ScalarType::I32);
    let p = &mut pb;
    for eb in [0u32, 12, 40] {
        let l = line!() + 1;
        let r = sort(p, &opts, k32, t32, None, sc, n, eb, cap);
        expect_err("end_bit", r, l, &["sort", &format!("end_bit {eb}"), "multiple of 8", "8..=32"])?;
    }
    let l = line!() + 1;
    let r = sort(p, &opts, k64, k64, None, sc, n, 72, cap);
    expect_err("end_bit 72 on i64", r, l, &["end_bit 72", "8..=64"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, kb, tb, None, sc, n, 8, cap);
    expect_err("bool keys", r, l, &["sort", "`keys`", "u32, i32, f32, u64, i64, f64"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, k64, None, sc, n, 32, cap);
    expect_err("tmp_keys dtype", r, l, &["sort", "`tmp_keys`", "u32"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, t32, Some((v, tv)), sc, n, 32, cap);
    expect_err("tmp_values dtype", r, l, &["sort", "`tmp_values`", "f32"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, t32, None, sc64, n, 32, cap);
    expect_err("scratch dtype", r, l, &["sort", "`scratch`", "u32"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, k32, None, sc, n, 32, cap);
    expect_err("keys == tmp_keys", r, l, &["%k32", "distinct"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, t32, Some((v, v)), sc, n, 32, cap);
    expect_err("values == tmp_values", r, l, &["%v", "distinct"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, t32, None, k32, n, 32, cap);
    expect_err("scratch == keys (u32)", r, l, &["%k32", "distinct"])?;
    let l = line!() + 1;
    let r = sort(p, &opts, k32, t32, None, t32, n, 32, cap);
    expect_err("scratch == tmp_keys", r, l, &["%t32", "distinct"])?;
    let narrow = Options::new(Target { subgroup_width: 1, forward_progress: true, class: DeviceClass::Gpu });
    let l = line!() + 1;
    let r = sort(p, &narrow, k32, t32, None, sc, n, 32, cap);
    expect_err("width 1", r, l, &["sort", "subgroup width 1"])?;
    let no_fp = Options::new(Target { subgroup_width: 32, forward_progress: false, class: DeviceClass::Gpu })
        .with_strategy(Strategy::SinglePass);
    let l = line!() + 1;
    let r = sort(p, &no_fp, k32, t32, None, sc, n, 32, cap);
    expect_err("single pass without forward progress", r, l, &["sort", "forward progress"])?;
    let forced = opts.with_strategy(Strategy::SinglePass);
    let l = line!() + 1;
    let r = sort(p, &forced, k32, t32, None, sc, n, 32, cap);
    expect_err("single pass that does not fit", r, l, &["sort", "does not fit", "sort_scratch_slots(1000, 2)"])?;
    Ok(())
}
