//! MIR → AMDGCN code-object compile-latency benches (issue #4; the figures `docs/performance.md`
//! reports under "AMDGCN back end (issue #4)"): the ~100-instruction bench kernel through
//! `qd_isel_amdgcn::compile_kernel` — verify, lower, register allocation, emission, waits,
//! hazards, encoding and the HSA code object (ELF) — for gfx942, gfx90a, gfx1100 (wave64) and
//! gfx1100 (wave32); and through `compile_verified` on the builder-verified kernel (no second
//! verification, the verifier's analyses reused), side by side. The verifier is timed alone too.
//! Each target is timed twice: with the shuffle selector's per-thread collective cache warm (the
//! criterion loop compiles the same kernel again) and emptied before every compile (cold).
//! Run with `cargo bench -p qd-benches --bench amdgcn`.
//!
//! A kernel the back end cannot compile yet ends the bench with its `CompileError` (exit code 1)
//! instead of timing anything.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_verified_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_amdgcn::{compile_kernel, compile_verified, AmdgcnOptions, Arch, Target, WaveSize};

/// The targets timed, with their bench labels.
fn targets() -> [(&'static str, Target); 4] {
    [
        ("compile gfx942 (MIR -> code object)", Target::wave64(Arch::Gfx942)),
        ("compile gfx90a (MIR -> code object)", Target::wave64(Arch::Gfx90a)),
        ("compile gfx1100 wave64 (MIR -> code object)", Target::wave64(Arch::Gfx1100)),
        ("compile gfx1100 wave32 (MIR -> code object)", Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }),
    ]
}

fn amdgcn(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let verified = build_verified_kernel(&mut ctx).expect("bench kernel builds");
    let kernel = verified.function().clone();
    let insts = kernel.walk_insts().len();
    for (_, target) in targets() {
        match compile_kernel(&kernel, &AmdgcnOptions::new(target)) {
            Ok(k) => eprintln!(
                "bench kernel: {insts} MIR instructions -> {target}: {} instructions, {} bytes of code, \
                 {}-byte code object, {} VGPRs, {} SGPRs, {} spill bytes per lane",
                k.insts.len(),
                k.code.len(),
                k.code_object.len(),
                k.resources.next_free_vgpr,
                k.resources.next_free_sgpr,
                k.spill_bytes_per_lane
            ),
            Err(e) => {
                eprintln!("the bench kernel does not compile for {target}: {e}");
                std::process::exit(1);
            }
        }
    }

    for (label, target) in targets() {
        let opts = AmdgcnOptions::new(target);
        // Warm: the selector's per-thread collective cache holds the bench kernel's reduce and
        // scan after the first iteration (a JIT compiling many kernels with the same
        // collectives). Cold: emptied before every compile (a process's first compile).
        c.bench_function(label, |b| {
            b.iter(|| black_box(compile_kernel(black_box(&kernel), black_box(&opts)).expect("compiles")));
        });
        c.bench_function(&format!("{label} compile_verified"), |b| {
            b.iter(|| black_box(compile_verified(black_box(&verified), black_box(&opts)).expect("compiles")));
        });
        c.bench_function(&format!("{label} cold selector caches"), |b| {
            b.iter(|| {
                qd_isel_amdgcn::select::clear_caches();
                black_box(compile_kernel(black_box(&kernel), black_box(&opts)).expect("compiles"))
            });
        });
    }
    c.bench_function("verify alone (subtract for the back end)", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(&kernel)).is_ok()));
    });
}

criterion_group!(benches, amdgcn);
criterion_main!(benches);
