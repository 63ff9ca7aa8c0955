//! Where the `.qdm` corpora are and how the oracle tests load them: the repository root, the
//! interpreter-test kernel corpus (`QD_KERNEL_CORPUS`, default `target/qd-kernel-corpus`, written
//! by `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib interp::`), every `.qdm` below some
//! directories, and the ones that parse and verify. One walker for the PTX, SPIR-V, CUDA and
//! Vulkan tests.

use qd_mir::verify::verify_module;
use qd_mir::Module;
use std::path::{Path, PathBuf};

/// The repository root: `QD_REPO_ROOT` when set (a test binary built here and run from a copy
/// of the repository elsewhere, as on the GPU machine), else the one it was built in.
pub fn repo() -> PathBuf {
    if let Some(root) = std::env::var_os("QD_REPO_ROOT").filter(|r| !r.is_empty()) {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// The interpreter-test kernel corpus directory (it may not exist).
pub fn kernel_corpus_dir() -> PathBuf {
    std::env::var_os("QD_KERNEL_CORPUS").map(PathBuf::from).unwrap_or_else(|| repo().join("target/qd-kernel-corpus"))
}

/// Every `.qdm` file below `dirs` (recursively; missing directories are skipped), sorted.
pub fn qdm_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for p in rd.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "qdm") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The modules of [`qdm_files`] that parse and verify (files meant to fail are left out).
pub fn verified_modules(dirs: &[PathBuf]) -> Vec<(PathBuf, Module)> {
    qdm_files(dirs)
        .into_iter()
        .filter_map(|p| {
            let src = std::fs::read_to_string(&p).ok()?;
            let m = qd_mir::parse_module(&src).ok()?;
            verify_module(&m).ok()?;
            Some((p, m))
        })
        .collect()
}
