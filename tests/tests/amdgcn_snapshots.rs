//! Snapshots of the AMDGCN back end's final assembly: every kernel of every filetest
//! (`tests/filetests/**/*.qdm` that parses and verifies) compiled for gfx942, gfx90a, gfx1100
//! wave64 and gfx1100 wave32; each listing (`CompiledKernel::asm()`, after a header with the
//! kernel's resources) is an insta snapshot a human reviews, in `tests/tests/snapshots/amdgcn/`
//! named `DIR__FILE__KERNEL@TARGET.snap`.
//!
//! Kernels that do not compile for a target (an op with no lowering yet, a kernel built for
//! another subgroup width) are skipped and listed in the test output. Every snapshot is checked
//! (all mismatches are reported, not only the first), and a snapshot file whose kernel no longer
//! compiles, or no longer exists, fails the test as stale: delete it or fix the regression.
//! Review new and changed listings with `cargo insta review` (or accept them with
//! `INSTA_UPDATE=always`) after reading them; never commit `.snap.new` files.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, CompiledKernel, Target, WaveSize};

/// The four targets and their snapshot-name spelling.
fn targets() -> [(Target, &'static str); 4] {
    [
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx90a), "gfx90a"),
        (Target::wave64(Arch::Gfx1100), "gfx1100-w64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100-w32"),
    ]
}

/// The header line and the listing.
fn listing(k: &CompiledKernel) -> String {
    let r = &k.resources;
    format!(
        "; kernel @{}: {} (wave{}): {} VGPRs, {} SGPRs, {} bytes LDS, {} spill bytes per lane; {} instructions, {} bytes of code\n{}",
        k.name,
        k.target.arch,
        k.target.wave.lanes(),
        r.next_free_vgpr,
        r.next_free_sgpr,
        r.group_segment_size,
        k.spill_bytes_per_lane,
        k.insts.len(),
        k.code.len(),
        k.asm()
    )
}

fn snapshot_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/amdgcn")
}

#[test]
fn amdgcn_assembly_snapshots() {
    let root = qd_tests::corpus::repo().join("tests/filetests");
    let modules = qd_tests::corpus::verified_modules(std::slice::from_ref(&root));
    assert!(modules.len() > 30, "{} filetests", modules.len());
    let mut names = BTreeSet::new();
    let mut skipped = Vec::new();
    let mut mismatches = Vec::new();
    let mut kernels = 0;
    for (path, m) in &modules {
        let rel = path.strip_prefix(&root).unwrap_or(path);
        let stem = rel.with_extension("").to_string_lossy().replace(['/', '\\'], "__");
        for f in &m.kernels {
            kernels += 1;
            for (t, label) in targets() {
                let name = format!("{stem}__{}@{label}", f.name);
                let k = match compile_kernel(f, &AmdgcnOptions { check_regalloc: true, ..AmdgcnOptions::new(t) }) {
                    Ok(k) => k,
                    Err(e) => {
                        skipped.push(format!("{name}: {e}"));
                        continue;
                    }
                };
                let text = listing(&k);
                let mut settings = insta::Settings::clone_current();
                settings.set_snapshot_path(snapshot_dir());
                settings.set_prepend_module_to_snapshot(false);
                settings.set_omit_expression(true);
                settings.set_description(format!("{} @{} for {t}", rel.display(), f.name));
                let checked = catch_unwind(AssertUnwindSafe(|| {
                    settings.bind(|| insta::assert_snapshot!(name.clone(), text));
                }));
                if checked.is_err() {
                    mismatches.push(name.clone());
                }
                names.insert(name);
            }
        }
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "AMDGCN snapshots: {} kernels × 4 targets: {} compiled and snapshotted, {} skipped (do not compile):",
        kernels,
        names.len(),
        skipped.len()
    );
    for s in &skipped {
        let _ = writeln!(report, "  skipped {s}");
    }
    println!("{report}");
    let stale: Vec<String> = std::fs::read_dir(snapshot_dir())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".snap").map(str::to_string))
        .filter(|n| !names.contains(n))
        .collect();
    assert!(mismatches.is_empty(), "{} snapshot(s) differ or are new: {mismatches:#?}", mismatches.len());
    assert!(
        stale.is_empty(),
        "stale snapshots in {} (the kernel no longer compiles or no longer exists): {stale:#?}",
        snapshot_dir().display()
    );
}
