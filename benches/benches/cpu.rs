//! The native `cpu` device against its anchors, side by side in one run:
//!
//! - `cpu lane-instructions`: the bench kernel (`qd_benches::build_kernel`, 16 Ki elements) on
//!   native code and on the interpreter at widths 8, 32 and 64, as lane-instructions per second
//!   (the interpreter's count for both, so the ratio of the two throughputs is the speed-up).
//! - `cpu compile`: MIR → callable native code for the bench kernel (verified MIR in), at widths
//!   8 and 32.
//! - `cpu sort`: `qd_lib::algorithms::sort` of 2^20 random `u32` keys (and key-value pairs) on
//!   `cpu:W` against `slice::sort_unstable` (`sort_unstable_by_key` on pairs) of the same keys.
//! - `cpu reduce/scan`: `reduce_add` and `exclusive_scan_add` of 2^24 `u32` on `cpu:W` against a
//!   plain Rust loop (`iter().sum()`, a sequential prefix loop).
//!
//! Run with `cargo bench -p qd-benches --bench cpu` (`QD_BENCH_CPU_WIDTH=W`, default 32, picks the
//! algorithms' width; `QD_BENCH_N_SORT`, `QD_BENCH_N_SCAN` change the sizes).

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use qd_benches::{bench_kernel_args, build_kernel, build_verified_kernel, splitmix64};
use qd_frontend::{FunctionBuilderContext, ScalarType};
use qd_lib::algorithms::{Capacity, DeviceClass, Options, Target};
use qd_mir::interp::{run_kernel, Buffer, RunConfig};
use qd_mir::Type;
use qd_rt::{Device, DeviceArg, DeviceBuffer};
use qdc::algo::{build, Algo, AlgoSpec, Combine};

fn lane_instructions(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let mut group = c.benchmark_group("cpu lane-instructions");
    group.sample_size(10);
    for width in [8u32, 32, 64] {
        let cfg = RunConfig { subgroup_size: width, ..RunConfig::default() };
        let mut a = bench_kernel_args();
        let stats = run_kernel(&kernel, &cfg, &mut a).expect("runs");
        group.throughput(Throughput::Elements(stats.lane_instructions));
        group.bench_with_input(BenchmarkId::new("interp", width), &width, |b, _| {
            b.iter(|| run_kernel(&kernel, &cfg, &mut a).expect("runs"));
        });
        let k = qd_isel_cpu::cache::get(&kernel, width).expect("compiles");
        let opts = qd_isel_cpu::RunOptions::default();
        group.bench_with_input(BenchmarkId::new("native", width), &width, |b, _| {
            b.iter(|| k.run(&mut a, &opts).expect("runs"));
        });
    }
    group.finish();
}

fn compile(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let vk = build_verified_kernel(&mut ctx).expect("bench kernel builds");
    let mut group = c.benchmark_group("cpu compile");
    for width in [8u32, 32] {
        let opts = qd_isel_cpu::CpuOptions { width };
        let k = qd_isel_cpu::compile_verified(&vk, &opts).expect("compiles");
        let t = k.times();
        eprintln!(
            "bench_kernel at width {width}: lowering {:.0} µs, Cranelift {:.0} µs",
            t.lower.as_secs_f64() * 1e6,
            t.codegen.as_secs_f64() * 1e6
        );
        group.bench_with_input(BenchmarkId::new("bench_kernel", width), &width, |b, _| {
            b.iter(|| qd_isel_cpu::compile_verified(&vk, &opts).expect("compiles"));
        });
    }
    group.finish();
}

fn env_n(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn device() -> Device {
    let w = env_n("QD_BENCH_CPU_WIDTH", 32) as u32;
    Device::cpu_with_width(w).expect("cpu device")
}

/// The program of `algo` on `dev` with its resident buffers: `data` for the first parameter,
/// `values` for the second where given, the rest zeroed; `n` as the live count.
fn program(
    dev: &Device,
    algo: Algo,
    dtype: ScalarType,
    values: Option<ScalarType>,
    n: u64,
    data: &[u32],
) -> (qd_mir::Module, Vec<(DeviceBuffer, Buffer)>) {
    let info = dev.info();
    let target = Target {
        subgroup_width: info.subgroup_width,
        forward_progress: info.forward_progress,
        class: DeviceClass::of_host(info.is_host()),
    };
    let cap = Capacity::new(n).expect("capacity");
    let spec = AlgoSpec { algo, dtype, values, cap, end_bit: None, opts: Options::new(target) };
    let m = build(&spec).expect("builds");
    let p = &m.programs[0];
    let bufs = p
        .params
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let Type::Ptr(_, elem) = q.ty else { panic!("buffers only") };
            let len = p.min_len(i).max(1) as usize;
            let host = match q.name.as_str() {
                "n" => Buffer::from_bits(elem, [n]),
                "arr" | "keys" | "values" => Buffer::from_bits(elem, data.iter().map(|&x| u64::from(x))),
                _ => Buffer::from_bits(elem, (0..len).map(|_| 0)),
            };
            (dev.upload(&host).expect("upload"), host)
        })
        .collect();
    (m, bufs)
}

fn sort(c: &mut Criterion) {
    let n = env_n("QD_BENCH_N_SORT", 1 << 20);
    let dev = device();
    let mut next = splitmix64(7);
    let keys: Vec<u32> = (0..n).map(|_| next() as u32).collect();
    let mut group = c.benchmark_group(format!("cpu sort n={n} {}", dev.info().spec()));
    group.sample_size(10);
    group.throughput(Throughput::Elements(n));
    group.bench_function("slice::sort_unstable", |b| {
        b.iter_batched(|| keys.clone(), |mut k| k.sort_unstable(), BatchSize::LargeInput)
    });
    let pairs: Vec<(u32, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
    group.bench_function("slice::sort_unstable_by_key (pairs)", |b| {
        b.iter_batched(|| pairs.clone(), |mut p| p.sort_unstable_by_key(|&(k, _)| k), BatchSize::LargeInput)
    });
    for values in [None, Some(ScalarType::U32)] {
        let (m, bufs) = program(&dev, Algo::Sort, ScalarType::U32, values, n, &keys);
        let argv: Vec<DeviceArg<'_>> = bufs.iter().map(|(d, _)| DeviceArg::Buffer(d)).collect();
        let p = &m.programs[0];
        dev.run_program_resident(&m, p, &argv).expect("first run");
        let name = if values.is_some() { "qd sort (pairs)" } else { "qd sort (keys)" };
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    for (d, host) in &bufs {
                        dev.write(d, host).expect("write");
                    }
                },
                |()| dev.run_program_resident(&m, p, &argv).expect("run"),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn reduce_scan(c: &mut Criterion) {
    let n = env_n("QD_BENCH_N_SCAN", 1 << 24);
    let dev = device();
    let mut next = splitmix64(11);
    let xs: Vec<u32> = (0..n).map(|_| next() as u32).collect();
    let mut group = c.benchmark_group(format!("cpu reduce-scan n={n} {}", dev.info().spec()));
    group.sample_size(10);
    group.throughput(Throughput::Bytes(n * 4));
    group.bench_function("plain sum", |b| b.iter(|| xs.iter().fold(0u32, |a, &x| a.wrapping_add(x))));
    let mut out = vec![0u32; n as usize];
    group.bench_function("plain exclusive prefix", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (o, &x) in out.iter_mut().zip(&xs) {
                *o = acc;
                acc = acc.wrapping_add(x);
            }
            acc
        })
    });
    for algo in [Algo::Reduce(Combine::Add), Algo::Scan(Combine::Add)] {
        let (m, bufs) = program(&dev, algo, ScalarType::U32, None, n, &xs);
        let argv: Vec<DeviceArg<'_>> = bufs.iter().map(|(d, _)| DeviceArg::Buffer(d)).collect();
        let p = &m.programs[0];
        dev.run_program_resident(&m, p, &argv).expect("first run");
        group.bench_function(format!("qd {}", algo.program_name()), |b| {
            b.iter(|| dev.run_program_resident(&m, p, &argv).expect("run"))
        });
    }
    // f32: integer-valued data (every partial sum exact); qd's result has the GPU form's tree.
    let fs: Vec<f32> = xs.iter().map(|&x| (x % 1000) as f32).collect();
    group.bench_function("plain sum f32", |b| b.iter(|| fs.iter().sum::<f32>()));
    let bits: Vec<u32> = fs.iter().map(|x| x.to_bits()).collect();
    let (m, bufs) = program(&dev, Algo::Reduce(Combine::Add), ScalarType::F32, None, n, &bits);
    let argv: Vec<DeviceArg<'_>> = bufs.iter().map(|(d, _)| DeviceArg::Buffer(d)).collect();
    let p = &m.programs[0];
    dev.run_program_resident(&m, p, &argv).expect("first run");
    group.bench_function("qd reduce_add f32", |b| b.iter(|| dev.run_program_resident(&m, p, &argv).expect("run")));
    group.finish();
}

criterion_group!(benches, lane_instructions, compile, sort, reduce_scan);
criterion_main!(benches);
