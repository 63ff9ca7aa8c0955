//! MIR → SPIR-V compile-latency benches (issue #7; the figures `docs/performance.md` reports):
//! the ~100-instruction bench kernel through `qd_isel_spirv::compile_kernel` for vulkan1.1 and
//! vulkan1.3 at lavapipe's capabilities (subgroup width 8). `compile_kernel` runs the MIR
//! verifier and then lowers to SPIR-V words; the verifier is timed alone too, so the lowering's
//! share is the difference. The same kernel in GLSL (`benches/glsl/bench_kernel.comp`) through
//! `glslangValidator -V` is timed by hand (see the doc). Run with
//! `cargo bench -p qd-benches --bench spirv`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_spirv::{compile_kernel, DeviceCaps, SpirvOptions, TargetEnv};

fn spirv(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let insts = kernel.walk_insts().len();
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let k = compile_kernel(&kernel, &SpirvOptions::new(env, DeviceCaps::lavapipe())).expect("compiles");
        eprintln!("bench kernel: {insts} MIR instructions -> {env}: {} SPIR-V words", k.words.len());
    }
    for (label, env) in [
        ("compile vulkan1.1 (verify + lower)", TargetEnv::Vulkan1_1),
        ("compile vulkan1.3 (verify + lower)", TargetEnv::Vulkan1_3),
    ] {
        let opts = SpirvOptions::new(env, DeviceCaps::lavapipe());
        c.bench_function(label, |b| {
            b.iter(|| black_box(compile_kernel(black_box(&kernel), black_box(&opts)).expect("compiles")));
        });
    }
    c.bench_function("verify alone (subtract for lowering)", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(&kernel)).is_ok()));
    });
}

criterion_group!(benches, spirv);
criterion_main!(benches);
