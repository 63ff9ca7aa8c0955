//! Compile-latency cost of the shuffle selector and of the raising pass (issue #5; the figures
//! `docs/performance.md` reports under "Shuffle selector (issue #5)"):
//!
//! - `docs/examples/explain_shuffles.qdm` (shuffle_xor(1), shuffle_down(1) and broadcast(lane 5)
//!   in tiles of 16, a 64-lane reduce_add) compiled for gfx942 and gfx1100 wave64 with the
//!   selector choosing (`auto`) and with every op forced to the `ds_bpermute` baseline — the
//!   selector enumerates, proves and prices every candidate in both, so the difference is what
//!   the cheaper code saves in register allocation and emission;
//! - a Quadrants-style hand-written xor-butterfly reduction (`tests/filetests/raise/
//!   quadrants_reduce_all.qdm`, kernel `all_add_f32`) compiled with the raising pass on (the
//!   default: the tree becomes one `subgroup.reduce`) and off (every shuffle lowered alone).
//!
//! The criterion loop compiles the same kernel again, so the selector's per-thread caches
//! (`select/cache.rs`) are warm after the first iteration; `explain_shuffles` is also timed with
//! them emptied before every compile (cold, a process's first compile).
//!
//! Run with `cargo bench -p qd-benches --bench shuffle_select`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, ShuffleLowering, Target};
use qd_mir::Function;

fn kernel(path: &str, name: &str) -> Function {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{full}: {e:?}"));
    m.kernels.into_iter().find(|k| k.name == name).unwrap_or_else(|| panic!("no @{name} in {full}"))
}

fn shuffle_select(c: &mut Criterion) {
    let explain = kernel("docs/examples/explain_shuffles.qdm", "explain_shuffles");
    let tree = kernel("tests/filetests/raise/quadrants_reduce_all.qdm", "all_add_f32");
    for (tname, target) in [("gfx942", Target::wave64(Arch::Gfx942)), ("gfx1100 wave64", Target::wave64(Arch::Gfx1100))]
    {
        for (lname, lowering) in [("auto", ShuffleLowering::Auto), ("bpermute", ShuffleLowering::Bpermute)] {
            let opts = AmdgcnOptions { shuffle_lowering: lowering, ..AmdgcnOptions::new(target) };
            let k = compile_kernel(&explain, &opts).expect("explain_shuffles compiles");
            eprintln!("explain_shuffles {tname} {lname}: {} instructions, {} choices", k.insts.len(), k.choices.len());
            c.bench_function(&format!("compile explain_shuffles {tname} ({lname})"), |b| {
                b.iter(|| black_box(compile_kernel(black_box(&explain), black_box(&opts)).expect("compiles")));
            });
            c.bench_function(&format!("compile explain_shuffles {tname} ({lname}, cold selector caches)"), |b| {
                b.iter(|| {
                    qd_isel_amdgcn::select::clear_caches();
                    black_box(compile_kernel(black_box(&explain), black_box(&opts)).expect("compiles"))
                });
            });
        }
        for (rname, raise) in [("raise on", true), ("raise off", false)] {
            let opts = AmdgcnOptions { raise, ..AmdgcnOptions::new(target) };
            let k = compile_kernel(&tree, &opts).expect("all_add_f32 compiles");
            eprintln!("all_add_f32 {tname} {rname}: {} instructions, {} choices", k.insts.len(), k.choices.len());
            c.bench_function(&format!("compile hand-written butterfly {tname} ({rname})"), |b| {
                b.iter(|| black_box(compile_kernel(black_box(&tree), black_box(&opts)).expect("compiles")));
            });
        }
    }
}

criterion_group!(benches, shuffle_select);
criterion_main!(benches);
