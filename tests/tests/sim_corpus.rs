//! The whole corpus on the simulated AMD devices: every `; run:` line of `filetests/**/*.qdm` and
//! every interpreter-test kernel (the `.qdm` files `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib
//! interp::` writes; `scripts/test.sh` writes them first) runs on `sim-gfx942`, `sim-gfx90a`,
//! `sim-gfx1100` and `sim-gfx1100-w32` — qd's AMDGCN code objects on the wave simulator, through
//! the `qd_rt::Device` API — and must match the interpreter at the device's wave width bit for bit
//! (`qd_tests::crosscheck`, the same check the Vulkan corpus uses). When the kernel corpus is
//! absent the second test says so and skips. Each test prints, per device,
//! `N matched, M skipped (…), K failed`.

use qd_rt::Device;
use std::path::PathBuf;

const DEVICES: [&str; 4] = ["sim-gfx942", "sim-gfx90a", "sim-gfx1100", "sim-gfx1100-w32"];

fn check(files: &[PathBuf], what: &str) {
    let devices: Vec<(String, Device)> = DEVICES
        .iter()
        .map(|&spec| (spec.to_string(), Device::open(spec).expect("the simulated devices always open")))
        .collect();
    qd_tests::crosscheck::files_on_devices(&devices, files, what);
}

#[test]
fn filetests_match_on_the_simulated_amd_devices() {
    let files = qd_tests::corpus::qdm_files(&[qd_tests::corpus::repo().join("tests/filetests")]);
    assert!(files.len() > 20, "{} filetests", files.len());
    check(&files, "filetests");
}

#[test]
fn interpreter_test_kernels_match_on_the_simulated_amd_devices() {
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
