//! MIR → SPIR-V compile-latency benches (issue #7; the figures `docs/performance.md` reports):
//! the ~100-instruction bench kernel through `qd_isel_spirv` for vulkan1.1 and vulkan1.3 at
//! lavapipe's capabilities (subgroup width 8), side by side: `compile_kernel` (the MIR verifier,
//! then the lowering to SPIR-V words) and `compile_verified` (the lowering alone, on the kernel
//! `KernelBuilder::finish_verified` verified once, with its facts). The verifier is timed alone
//! too. The same kernel in GLSL (`benches/glsl/bench_kernel.comp`) through `glslangValidator -V`
//! is timed by hand (see the doc). Run with `cargo bench -p qd-benches --bench spirv`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_verified_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_spirv::{compile_kernel, compile_verified, DeviceCaps, SpirvOptions, TargetEnv};

fn spirv(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let verified = build_verified_kernel(&mut ctx).expect("bench kernel builds");
    let kernel = verified.function();
    let insts = kernel.walk_insts().len();
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let opts = SpirvOptions::new(env, DeviceCaps::lavapipe());
        let k = compile_kernel(kernel, &opts).expect("compiles");
        assert_eq!(compile_verified(&verified, &opts).as_ref(), Ok(&k), "same module either way");
        eprintln!("bench kernel: {insts} MIR instructions -> {env}: {} SPIR-V words", k.words.len());
    }
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let opts = SpirvOptions::new(env, DeviceCaps::lavapipe());
        c.bench_function(&format!("compile_kernel {env} (verify + lower)"), |b| {
            b.iter(|| black_box(compile_kernel(black_box(kernel), black_box(&opts)).expect("compiles")));
        });
        c.bench_function(&format!("compile_verified {env} (lower)"), |b| {
            b.iter(|| black_box(compile_verified(black_box(&verified), black_box(&opts)).expect("compiles")));
        });
    }
    c.bench_function("verify alone", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(kernel)).is_ok()));
    });
}

criterion_group!(benches, spirv);
criterion_main!(benches);
