//! `algorithms::reduce_by_key_add`: every key × value dtype (i32 u32 f32), one compiled program
//! replayed at every small live count with rotating key patterns (random runs, all equal, all
//! distinct, few distinct, alternating, f32 NaN and ±0 keys), depth 1 and 2, the single pass
//! where the device has forward progress, the large live counts (with multi-launch vs
//! single-pass agreement), and the error paths. Float values are integer-valued, so the sums
//! are exact in any atomic order.

use crate::algo_ref::{
    build_prog, chunked_on, expect_build_error, expect_check, expect_status, min_len, opts, run_prog, run_raw,
    strategies, value, SMALL_NS,
};
use crate::elem::{mix, Elem};
use crate::harness::{buf, check, read, Outcome, Suite};
use qd_frontend::ProgramBuilder;
use qd_lib::algorithms::{self, reduce_by_key_scratch_slots, Capacity, Options, Strategy};
use qd_mir::interp::ArgValue;
use qd_mir::{GroupOp, Module, ScalarType};
use qd_rt::{Device, DeviceKind};

/// Registers the cases.
pub fn register(s: &mut Suite) {
    let mut salt = 0usize;
    macro_rules! kv {
        ($K:ty, $V:ty) => {{
            salt += 1;
            let sa = salt;
            s.case(format!("algo::reduce_by_key_add/{}_{}/small_ns", <$K>::TY, <$V>::TY), move |dev| {
                small::<$K, $V>(dev, sa)
            });
        }};
    }
    kv!(i32, i32);
    kv!(i32, u32);
    kv!(i32, f32);
    kv!(u32, i32);
    kv!(u32, u32);
    kv!(u32, f32);
    kv!(f32, i32);
    kv!(f32, u32);
    kv!(f32, f32);
    s.case("algo::reduce_by_key_add/u32_i32/big_ns_and_strategies", big::<u32, i32>);
    s.case("algo::reduce_by_key_add/f32_f32/n20000_nan_keys", big_nan);
    s.case("algo::reduce_by_key_add/u32_f32/over_specified_depth", over_specified);
    s.case("algo::reduce_by_key_add/u32_i32/n1000003_cuda_and_cpu", huge);
    s.case("algo::reduce_by_key_add/errors/short_scratch", short_scratch);
    s.case("algo::reduce_by_key_add/errors/live_count_out_of_range", out_of_range);
    s.case("algo::reduce_by_key_add/errors/build", |_| build_errors());
}

fn program<K: Elem, V: Elem>(dev: &Device, o: &Options, cap: Capacity) -> Result<Module, String> {
    build_prog(dev, "rbk", |pb| {
        let keys = pb.buffer("keys", K::TY);
        let values = pb.buffer("values", V::TY);
        let keys_out = pb.buffer("keys_out", K::TY);
        let values_out = pb.buffer("values_out", V::TY);
        let num_runs = pb.buffer("num_runs", ScalarType::I32);
        let scratch = pb.buffer("scratch", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        algorithms::reduce_by_key_add(pb, o, keys, values, keys_out, values_out, num_runs, scratch, n, cap)
    })
}

/// Keys of pattern `p`: runs of random lengths, all equal, all distinct, four distinct values at
/// random, alternating two values, or (f32) runs with NaN and ±0 keys mixed in.
fn keys_of<K: Elem>(p: usize, n: usize, seed: u64) -> Vec<K> {
    let mut out = Vec::with_capacity(n);
    let mut cur: K = value(seed);
    for i in 0..n {
        let r = mix(seed ^ (i as u64).wrapping_mul(0x9e37));
        let k = match p % 6 {
            0 => {
                if r.is_multiple_of(5) {
                    cur = value(r);
                }
                cur
            }
            1 => value(seed),
            2 => K::from_bits(i as u64 * 3 + 1),
            3 => value(seed ^ (r % 4)),
            4 => value(seed ^ (i as u64 % 2)),
            _ if !K::is_int() => match r % 6 {
                0 => K::from_bits(nan_bits::<K>()),
                1 => K::from_bits(neg_zero_bits::<K>()),
                2 => K::from_bits(0),
                _ => cur,
            },
            _ => value(r % 3),
        };
        out.push(k);
    }
    out
}

fn nan_bits<K: Elem>() -> u64 {
    if K::TY.bits() == 32 {
        u64::from(f32::NAN.to_bits())
    } else {
        f64::NAN.to_bits()
    }
}

fn neg_zero_bits<K: Elem>() -> u64 {
    if K::TY.bits() == 32 {
        u64::from((-0.0f32).to_bits())
    } else {
        (-0.0f64).to_bits()
    }
}

/// The reference: runs by `!=`, the first key of each, the exact sums; the outputs' tails as
/// Quadrants leaves them (keys untouched, values zeroed up to `n`).
fn reference<K: Elem, V: Elem>(keys: &[K], values: &[V], max_n: usize, kmark: K, vmark: V) -> (Vec<K>, Vec<V>, i32) {
    let mut ko: Vec<K> = Vec::new();
    let mut vo: Vec<V> = Vec::new();
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        if i == 0 || k != keys[i - 1] {
            ko.push(k);
            vo.push(V::identity(GroupOp::Add));
        }
        if let Some(last) = vo.last_mut() {
            *last = V::combine(GroupOp::Add, *last, v);
        }
    }
    let runs = ko.len() as i32;
    ko.resize(max_n, kmark);
    vo.resize(keys.len(), V::from_bits(0));
    vo.resize(max_n, vmark);
    (ko, vo, runs)
}

struct Run<K, V> {
    args: Vec<ArgValue>,
    want: (Vec<K>, Vec<V>, i32),
}

fn make_run<K: Elem, V: Elem>(keys: &[K], max_n: usize, live: i64, seed: u64) -> Run<K, V> {
    let max_n = max_n.max(1);
    let n = keys.len();
    let values: Vec<V> = (0..n as u64).map(|i| value(seed ^ (i << 4))).collect();
    let (kmark, vmark) = (K::from_bits(0x7a), V::from_bits(0x7b));
    let want = reference(keys, &values, max_n, kmark, vmark);
    let mut kin = keys.to_vec();
    kin.resize(max_n, K::from_bits(5));
    let mut vin = values;
    vin.resize(max_n, V::from_bits(6));
    let slots = reduce_by_key_scratch_slots(max_n as u64) as usize;
    let args = vec![
        buf(&kin),
        buf(&vin),
        buf(&vec![kmark; max_n]),
        buf(&vec![vmark; max_n]),
        buf(&[0x55i32]),
        buf(&vec![0xdead_beef_u32; slots]),
        buf(&[live as i32]),
    ];
    Run { args, want }
}

fn run_check<K: Elem, V: Elem>(dev: &Device, m: &Module, keys: &[K], cap: Capacity, what: &str) -> Outcome {
    run_check_scratch::<K, V>(dev, m, keys, cap, what, None)
}

/// [`run_check`] with a scratch of `scratch` elements (default: the formula's).
fn run_check_scratch<K: Elem, V: Elem>(
    dev: &Device,
    m: &Module,
    keys: &[K],
    cap: Capacity,
    what: &str,
    scratch: Option<u64>,
) -> Outcome {
    let n = keys.len();
    let mut r = make_run::<K, V>(keys, cap.max_n() as usize, n as i64, n as u64 + 17);
    if let Some(len) = scratch {
        r.args[5] = buf(&vec![0xdead_beef_u32; len as usize]);
    }
    run_prog(dev, m, &mut r.args)?;
    check(&format!("{what} n={n} num_runs"), &read::<i32>(&r.args[4]), &[r.want.2])?;
    check(&format!("{what} n={n} keys_out"), &read::<K>(&r.args[2]), &r.want.0)?;
    check(&format!("{what} n={n} values_out"), &read::<V>(&r.args[3]), &r.want.1)
}

fn small<K: Elem, V: Elem>(dev: &Device, salt: usize) -> Outcome {
    let cap257 = Capacity::new(257).map_err(|e| e.to_string())?;
    let m = program::<K, V>(dev, &opts(dev, Strategy::MultiLaunch), cap257)?;
    for (k, &n) in SMALL_NS.iter().enumerate() {
        let p = k + salt;
        run_check::<K, V>(dev, &m, &keys_of::<K>(p, n, p as u64), cap257, &format!("multi-launch D=2 pattern {p}"))?;
    }
    let cap256 = Capacity::new(256).map_err(|e| e.to_string())?;
    let m = program::<K, V>(dev, &opts(dev, Strategy::MultiLaunch), cap256)?;
    run_check::<K, V>(dev, &m, &keys_of::<K>(salt + 5, 256, 9), cap256, "multi-launch D=1")?;
    if dev.info().forward_progress {
        let m = program::<K, V>(dev, &opts(dev, Strategy::SinglePass), cap257)?;
        for (n, p) in [(0usize, 0usize), (257, salt + 3)] {
            run_check::<K, V>(dev, &m, &keys_of::<K>(p, n, 3), cap257, &format!("single-pass pattern {p}"))?;
        }
    }
    if chunked_on(dev) {
        let m = program::<K, V>(dev, &opts(dev, Strategy::Chunked), cap257)?;
        for (k, &n) in SMALL_NS.iter().enumerate() {
            let p = k + salt;
            run_check::<K, V>(dev, &m, &keys_of::<K>(p, n, p as u64), cap257, &format!("chunked pattern {p}"))?;
        }
    }
    Ok(())
}

fn big<K: Elem, V: Elem>(dev: &Device) -> Outcome {
    let cap = Capacity::new(65_537).map_err(|e| e.to_string())?;
    let m = program::<K, V>(dev, &opts(dev, Strategy::MultiLaunch), cap)?;
    let keys = keys_of::<K>(3, 65_537, 2);
    run_check::<K, V>(dev, &m, &keys, cap, "multi-launch few distinct")?;
    if dev.info().forward_progress {
        // the single pass over 5 tiles of 1024 (its long chains are covered by the scan family)
        let single = program::<K, V>(dev, &opts(dev, Strategy::SinglePass), cap)?;
        run_check::<K, V>(dev, &single, &keys[..5000], cap, "single-pass few distinct")?;
    }
    if chunked_on(dev) {
        let chunked = program::<K, V>(dev, &opts(dev, Strategy::Chunked), cap)?;
        for n in [65_537, 1025, 1024, 63] {
            run_check::<K, V>(dev, &chunked, &keys[..n], cap, &format!("chunked few distinct n={n}"))?;
        }
    }
    Ok(())
}

fn big_nan(dev: &Device) -> Outcome {
    let cap = Capacity::new(20_000).map_err(|e| e.to_string())?;
    let m = program::<f32, f32>(dev, &opts(dev, Strategy::MultiLaunch), cap)?;
    run_check::<f32, f32>(dev, &m, &keys_of::<f32>(5, 20_000, 4), cap, "multi-launch NaN/±0 keys")
}

/// An over-specified `log256_max_n`: the scratch check asks for more than the formula (the
/// partial levels the kernels write) and a scratch of exactly that is enough — the interpreter
/// faults on any access past it.
fn over_specified(dev: &Device) -> Outcome {
    for (max_n, d) in [(8u64, 3u32), (300, 4)] {
        let cap = Capacity::with_log256(max_n, d).map_err(|e| e.to_string())?;
        let m = program::<u32, f32>(dev, &opts(dev, Strategy::MultiLaunch), cap)?;
        let need = min_len(&m, "scratch")?;
        if need <= reduce_by_key_scratch_slots(max_n) {
            return Err(format!("max_n {max_n} D {d}: the check asks {need}, not above the formula"));
        }
        for (k, n) in [max_n as usize, 1, 0].into_iter().enumerate() {
            let keys = keys_of::<u32>(k, n, 3);
            run_check_scratch::<u32, f32>(dev, &m, &keys, cap, &format!("D={d}"), Some(need))?;
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
    let n = 1_000_003usize;
    let cap = Capacity::new(n as u64).map_err(|e| e.to_string())?;
    let keys = keys_of::<u32>(0, n, 8);
    for strategy in list {
        let m = program::<u32, i32>(dev, &opts(dev, strategy), cap)?;
        run_check::<u32, i32>(dev, &m, &keys, cap, &format!("{strategy:?}"))?;
    }
    Ok(())
}

fn short_scratch(dev: &Device) -> Outcome {
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let m = program::<u32, u32>(dev, &opts(dev, Strategy::Auto), cap)?;
    let keys = keys_of::<u32>(0, 10, 1);
    let mut r = make_run::<u32, u32>(&keys, 1000, 10, 1);
    r.args[5] = buf(&vec![0u32; reduce_by_key_scratch_slots(1000) as usize - 1]);
    expect_check(run_raw(dev, &m, &mut r.args), "scratch")?;
    let mut r = make_run::<u32, u32>(&keys, 1000, 10, 1);
    r.args[3] = buf(&[0u32; 999]);
    expect_check(run_raw(dev, &m, &mut r.args), "values_out")
}

fn out_of_range(dev: &Device) -> Outcome {
    let cap = Capacity::new(700).map_err(|e| e.to_string())?;
    let mut strategies = vec![Strategy::MultiLaunch];
    if dev.info().forward_progress {
        strategies.push(Strategy::SinglePass);
    }
    if chunked_on(dev) {
        strategies.push(Strategy::Chunked);
    }
    for strategy in strategies {
        let m = program::<f32, i32>(dev, &opts(dev, strategy), cap)?;
        let keys = keys_of::<f32>(0, 700, 5);
        for live in [701i64, -1] {
            let mut r = make_run::<f32, i32>(&keys, 700, live, 5);
            expect_status(run_raw(dev, &m, &mut r.args))?;
            check(
                &format!("{strategy:?} n={live} keys_out"),
                &read::<f32>(&r.args[2]),
                &vec![f32::from_bits(0x7a); 700],
            )?;
            check(&format!("{strategy:?} n={live} values_out"), &read::<i32>(&r.args[3]), &vec![0x7b; 700])?;
            check(&format!("{strategy:?} n={live} num_runs"), &read::<i32>(&r.args[4]), &[0x55])?;
        }
    }
    Ok(())
}

fn build_errors() -> Outcome {
    let o = Options::new(algorithms::Target {
        subgroup_width: 64,
        forward_progress: false,
        class: algorithms::DeviceClass::Gpu,
    });
    let cap = Capacity::new(100).map_err(|e| e.to_string())?;
    let mut pb = ProgramBuilder::new("e");
    let k = pb.buffer("k", ScalarType::F32);
    let ko = pb.buffer("ko", ScalarType::F32);
    let v = pb.buffer("v", ScalarType::I32);
    let vo = pb.buffer("vo", ScalarType::I32);
    let d = pb.buffer("d", ScalarType::F64);
    let num = pb.buffer("num", ScalarType::I32);
    let s = pb.buffer("s", ScalarType::U32);
    let n = pb.buffer("n", ScalarType::I32);
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &o, d, v, d, vo, num, s, n, cap);
    expect_build_error(r, line, "`keys_in` must be a buffer of i32, u32, f32")?;
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &o, k, v, vo, vo, num, s, n, cap);
    expect_build_error(r, line, "`keys_out` must be a buffer of f32")?;
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &o, k, v, k, vo, num, s, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &o, k, v, ko, v, num, s, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    // num_runs aliasing the (i32) values
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &o, k, v, ko, vo, vo, s, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let fs = o.with_strategy(Strategy::SinglePass);
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &fs, k, v, ko, vo, num, s, n, cap);
    expect_build_error(r, line, "forward progress")?;
    // forward progress but a capacity whose scratch has no room for the look-back state
    let fp = Options::new(algorithms::Target {
        subgroup_width: 64,
        forward_progress: true,
        class: algorithms::DeviceClass::Gpu,
    })
    .with_strategy(Strategy::SinglePass);
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &fp, k, v, ko, vo, num, s, n, cap);
    expect_build_error(r, line, "does not fit the scratch")?;
    Ok(())
}
