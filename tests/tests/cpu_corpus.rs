//! The whole corpus on the native `cpu` device: every `; run:` line of `filetests/**/*.qdm` and
//! every interpreter-test kernel (the `.qdm` files `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib
//! interp::` writes; `scripts/test.sh` writes them first) runs on `cpu:1` (plain scalar code: every value uniform), `cpu:2`, `cpu:4`, `cpu:8`, `cpu:16`,
//! `cpu:32` and `cpu:64` — Cranelift native code through the `qd_rt::Device` API — and must match
//! the interpreter at the same width bit for bit (`qd_tests::crosscheck`, the check the Vulkan and
//! simulator corpora use). Expected-fault tests must fault on the native code too, with the
//! interpreter's message. Each test prints, per width, `N matched, M skipped (…), K failed`.

use qd_rt::Device;
use std::path::PathBuf;

const WIDTHS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

fn check(files: &[PathBuf], what: &str) {
    let devices: Vec<(String, Device)> = WIDTHS
        .iter()
        .map(|&w| (format!("cpu:{w}"), Device::cpu_with_width(w).expect("every power-of-two width opens")))
        .collect();
    qd_tests::crosscheck::files_on_devices(&devices, files, what);
}

#[test]
fn filetests_match_on_native_code() {
    let files = qd_tests::corpus::qdm_files(&[qd_tests::corpus::repo().join("tests/filetests")]);
    assert!(files.len() > 20, "{} filetests", files.len());
    check(&files, "filetests");
}

#[test]
fn interpreter_test_kernels_match_on_native_code() {
    let dir = qd_tests::corpus::kernel_corpus_dir();
    let files = qd_tests::corpus::qdm_files(std::slice::from_ref(&dir));
    if files.is_empty() {
        eprintln!(
            "skipped: no kernel corpus in {} (write it with `QD_DUMP_KERNELS={} cargo test -p qd-mir --lib interp::`)",
            dir.display(),
            dir.display()
        );
        return;
    }
    check(&files, "interpreter-test kernels");
}
