//! Interpreter throughput: lane-instructions per second of the SIMT interpreter (the `cpu`
//! device) on the ~100-instruction bench kernel at subgroup widths 8, 32 and 64, and on a
//! straight-line arithmetic kernel. Run with `cargo bench -p qd-benches --bench interp`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qd_benches::{bench_kernel_args, build_kernel};
use qd_frontend::FunctionBuilderContext;
use qd_mir::interp::{run_kernel, RunConfig};

fn interp(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let mut group = c.benchmark_group("interp lane-instructions");
    group.sample_size(10);
    for width in [8u32, 32, 64] {
        let cfg = RunConfig { subgroup_size: width, ..RunConfig::default() };
        let mut a = bench_kernel_args();
        let stats = run_kernel(&kernel, &cfg, &mut a).expect("runs");
        group.throughput(Throughput::Elements(stats.lane_instructions));
        group.bench_with_input(BenchmarkId::new("bench_kernel", width), &width, |b, _| {
            b.iter(|| run_kernel(&kernel, &cfg, &mut a).expect("runs"));
        });
    }
    group.finish();
}

criterion_group!(benches, interp);
criterion_main!(benches);
