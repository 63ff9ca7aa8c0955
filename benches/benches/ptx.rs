//! MIR → PTX compile-latency benches (issue #6; the figures `docs/performance.md` reports): the
//! ~100-instruction bench kernel through `qd_isel_ptx` for sm_90 and for sm_70, side by side:
//! `compile_kernel` (the MIR verifier, then the lowering) and `compile_verified` (the lowering
//! alone, on the kernel `KernelBuilder::finish_verified` verified once, with its facts). The
//! verifier is timed alone too. Run with `cargo bench -p qd-benches --bench ptx`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_verified_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_ptx::{compile_kernel, compile_verified, PtxOptions, Sm};

fn ptx(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let verified = build_verified_kernel(&mut ctx).expect("bench kernel builds");
    let kernel = verified.function();
    let insts = kernel.walk_insts().len();
    for sm in [Sm::Sm90, Sm::Sm70] {
        let k = compile_kernel(kernel, &PtxOptions::new(sm)).expect("bench kernel compiles");
        assert_eq!(compile_verified(&verified, &PtxOptions::new(sm)).as_ref(), Ok(&k), "same PTX either way");
        eprintln!(
            "bench kernel: {insts} MIR instructions -> {sm}: {} bytes, {} lines of PTX ({})",
            k.ptx.len(),
            k.ptx.lines().count(),
            k.version
        );
    }

    for sm in [Sm::Sm90, Sm::Sm70] {
        let opts = PtxOptions::new(sm);
        c.bench_function(&format!("compile_kernel {sm} (verify + lower)"), |b| {
            b.iter(|| black_box(compile_kernel(black_box(kernel), black_box(&opts)).expect("compiles")));
        });
        c.bench_function(&format!("compile_verified {sm} (lower)"), |b| {
            b.iter(|| black_box(compile_verified(black_box(&verified), black_box(&opts)).expect("compiles")));
        });
    }
    c.bench_function("verify alone", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(kernel)).is_ok()));
    });
}

criterion_group!(benches, ptx);
criterion_main!(benches);
