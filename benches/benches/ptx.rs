//! MIR → PTX compile-latency benches (issue #6; the figures `docs/performance.md` reports): the
//! ~100-instruction bench kernel through `qd_isel_ptx::compile_kernel` for sm_90 and for sm_70.
//! `compile_kernel` runs the MIR verifier and then lowers; the lowering has no public entry point
//! of its own, so the verifier is timed alone here too and the lowering's share is the difference.
//! Run with `cargo bench -p qd-benches --bench ptx`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_ptx::{compile_kernel, PtxOptions, Sm};

fn ptx(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let insts = kernel.walk_insts().len();
    for sm in [Sm::Sm90, Sm::Sm70] {
        let k = compile_kernel(&kernel, &PtxOptions::new(sm)).expect("bench kernel compiles");
        eprintln!(
            "bench kernel: {insts} MIR instructions -> {sm}: {} bytes, {} lines of PTX ({})",
            k.ptx.len(),
            k.ptx.lines().count(),
            k.version
        );
    }

    for (label, sm) in [("compile sm_90 (verify + lower)", Sm::Sm90), ("compile sm_70 (verify + lower)", Sm::Sm70)] {
        let opts = PtxOptions::new(sm);
        c.bench_function(label, |b| {
            b.iter(|| black_box(compile_kernel(black_box(&kernel), black_box(&opts)).expect("compiles")));
        });
    }
    c.bench_function("verify alone (subtract for lowering)", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(&kernel)).is_ok()));
    });
}

criterion_group!(benches, ptx);
criterion_main!(benches);
