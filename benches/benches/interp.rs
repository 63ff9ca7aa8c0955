//! Interpreter throughput: lane-instructions per second of the SIMT interpreter (the `cpu`
//! device) on the ~100-instruction bench kernel at subgroup widths 8, 32 and 64, and on a
//! straight-line arithmetic kernel. Run with `cargo bench -p qd-benches --bench interp`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_mir::interp::{run_kernel, ArgValue, Buffer, RunConfig};
use qd_mir::ScalarType;

const N: u32 = 16 * 1024;

fn args() -> Vec<ArgValue> {
    let src = Buffer::from_bits(ScalarType::F32, (0..N).map(|i| u64::from((i as f32 * 0.25 - 100.0).to_bits())));
    let idx = Buffer::from_bits(ScalarType::U32, (0..N).map(|i| u64::from(i.wrapping_mul(2_654_435_761) % N)));
    let dst = Buffer::from_bits(ScalarType::F32, (0..N).map(|_| 0));
    vec![
        ArgValue::Buffer(src),
        ArgValue::Buffer(idx),
        ArgValue::Buffer(dst),
        ArgValue::Scalar(ScalarType::U32, u64::from(N)),
        ArgValue::Scalar(ScalarType::F32, u64::from(1.5f32.to_bits())),
    ]
}

fn interp(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let mut group = c.benchmark_group("interp lane-instructions");
    group.sample_size(10);
    for width in [8u32, 32, 64] {
        let cfg = RunConfig { subgroup_size: width, ..RunConfig::default() };
        let mut a = args();
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
