//! Throughput of qd-lib's device-wide algorithms at n = 2^20 on every device present: the `cpu`
//! device (the interpreter, width 32), each Vulkan device (lavapipe in CI) and each CUDA GPU
//! (with `QD_TEST_CUDA=1`). Each program is the one `qdc algo` writes, built once with the
//! device's target and `Strategy::Auto` (and, where Auto picks a single pass, the scan and the
//! keys-only sort also with `Strategy::MultiLaunch`), its buffers resident (`Device::run_program_resident`); the time of one
//! whole program run is measured, inputs rewritten before each run where the algorithm works in
//! place. Run with `cargo bench -p qd-benches --bench algorithms` (`QD_BENCH_DEVICES=cpu:32,vulkan`
//! picks devices; `QD_BENCH_N` changes n).

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use qd_benches::algo_inputs::buffers;
use qd_frontend::ScalarType;
use qd_lib::algorithms::{Capacity, DeviceClass, Options, Strategy, Target};
use qd_rt::{Device, DeviceArg};
use qdc::algo::{build, Algo, AlgoSpec, Combine};

/// The algorithms measured: name, spec pieces (algorithm, dtype, values) and whether the program
/// rewrites its input (so inputs are restored before each run).
const CASES: [(&str, Algo, ScalarType, Option<ScalarType>, bool); 8] = [
    ("reduce_add u32", Algo::Reduce(Combine::Add), ScalarType::U32, None, false),
    ("reduce_add f32", Algo::Reduce(Combine::Add), ScalarType::F32, None, false),
    ("exclusive_scan_add u32", Algo::Scan(Combine::Add), ScalarType::U32, None, false),
    ("exclusive_scan_add f64", Algo::Scan(Combine::Add), ScalarType::F64, None, false),
    ("select u32", Algo::Select, ScalarType::U32, None, false),
    ("reduce_by_key_add u32", Algo::ReduceByKey, ScalarType::U32, None, false),
    ("sort u32 keys", Algo::Sort, ScalarType::U32, None, true),
    ("sort u32 keys + u32 values", Algo::Sort, ScalarType::U32, Some(ScalarType::U32), true),
];

fn devices() -> Vec<Device> {
    match std::env::var("QD_BENCH_DEVICES") {
        Ok(list) if !list.trim().is_empty() => {
            list.split(',').map(|s| Device::open(s.trim()).unwrap_or_else(|e| panic!("{s}: {e}"))).collect()
        }
        _ => Device::available().iter().filter_map(|i| Device::open(&i.spec()).ok()).collect(),
    }
}

fn algorithms(c: &mut Criterion) {
    let n: u64 = std::env::var("QD_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
    let cap = Capacity::new(n).expect("capacity");
    for dev in devices() {
        let info = dev.info().clone();
        let target = Target {
            subgroup_width: info.subgroup_width,
            forward_progress: info.forward_progress,
            class: DeviceClass::of_host(info.is_host()),
        };
        // Auto everywhere; where Auto picks a single pass (forward progress), the multi-launch
        // form of the scan and the keys-only sort beside it.
        let strategies = |algo: Algo, values: Option<ScalarType>| -> &'static [Strategy] {
            match algo {
                Algo::Scan(_) | Algo::Sort if info.forward_progress && values.is_none() => {
                    &[Strategy::Auto, Strategy::MultiLaunch]
                }
                _ => &[Strategy::Auto],
            }
        };
        let mut group = c.benchmark_group(format!("algorithms n={n} {}", info.spec()));
        group.sample_size(10);
        group.throughput(Throughput::Elements(n));
        for (name, algo, dtype, values, in_place) in CASES {
            for &strategy in strategies(algo, values) {
                let spec = AlgoSpec { algo, dtype, values, cap, end_bit: None, opts: Options { target, strategy } };
                let m = build(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
                let bufs = buffers(&dev, &m, n).unwrap_or_else(|e| panic!("{name}: {e}"));
                let argv: Vec<DeviceArg<'_>> = bufs.iter().map(|(_, d, _)| DeviceArg::Buffer(d)).collect();
                let p = &m.programs[0];
                dev.run_program_resident(&m, p, &argv).expect("first run");
                let id = BenchmarkId::new(name, format!("{strategy:?} ({} launches)", p.launches.len()));
                if in_place {
                    group.bench_function(id, |b| {
                        b.iter_batched(
                            || {
                                for (_, d, host) in &bufs {
                                    dev.write(d, host).expect("write");
                                }
                            },
                            |()| dev.run_program_resident(&m, p, &argv).expect("run"),
                            BatchSize::PerIteration,
                        )
                    });
                } else {
                    group.bench_function(id, |b| b.iter(|| dev.run_program_resident(&m, p, &argv).expect("run")));
                }
            }
        }
        group.finish();
    }
}

criterion_group!(benches, algorithms);
criterion_main!(benches);
