//! The Vulkan cross-check of the whole corpus: every `; run:` line of `filetests/**/*.qdm` and
//! every interpreter-test kernel (the `.qdm` files `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib
//! interp::` writes, one per `run_kernel`/`run_program` call of the interpreter's unit tests) runs
//! on `vulkan:0` — lavapipe on a machine without GPU — and must match the interpreter run at the
//! device's subgroup width bit for bit (`qd_tests::crosscheck`; schedule-dependent buffers are
//! skips with the reason).
//!
//! Multi-dimensional blocks match too: Vulkan leaves the split of a multi-dimensional workgroup
//! into subgroups to the driver (lavapipe 22.3 puts x in the lane and z in the subgroup), so the
//! SPIR-V back end compiles every block as a 1-D workgroup and derives x, y, z from the linear
//! index, which is MIR's rule (lane = linear id mod W).
//!
//! The device's width is fixed when the driver loads: lavapipe gives 8 by default and 4 / 16 with
//! `LP_NATIVE_VECTOR_WIDTH=128` / `512`, so scripts/test.sh runs this test once per value in
//! separate processes. `QD_EXPECT_VULKAN_WIDTH=N` says which width a run is for: when the device
//! reports another, the run prints why and skips. Without a Vulkan device the tests print that
//! they are skipped, unless `QD_REQUIRE_VULKAN=1`. `QD_VULKAN_DEVICE=vulkan:N` picks another
//! device. The interpreter corpus is `QD_KERNEL_CORPUS`, default `target/qd-kernel-corpus` at the
//! workspace root; when it is absent the second test says so and skips (with
//! `QD_REQUIRE_VULKAN=1` it fails). Each test prints
//! `vulkan filetests (width W): N matched, M skipped (expected fault), K failed`.

use qd_rt::crosscheck::Tally;
use qd_rt::Device;
use std::path::PathBuf;

fn required() -> bool {
    std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1")
}

/// The device, or `None` (with the reason printed) when this run has none to use.
fn device(test: &str) -> Option<Device> {
    let spec = std::env::var("QD_VULKAN_DEVICE").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "vulkan:0".into());
    let dev = match Device::open(&spec) {
        Ok(d) => d,
        Err(e) if required() => panic!("QD_REQUIRE_VULKAN=1 but {spec} cannot be opened: {e}"),
        Err(e) => {
            eprintln!("{test}: skipped ({spec} cannot be opened: {e})");
            return None;
        }
    };
    let w = dev.info().subgroup_width;
    let lp = std::env::var("LP_NATIVE_VECTOR_WIDTH").unwrap_or_else(|_| "unset".into());
    if let Ok(want) = std::env::var("QD_EXPECT_VULKAN_WIDTH") {
        if want.parse::<u32>().ok() != Some(w) {
            let why = format!(
                "{test}: width {want} skipped: {} reports subgroup size {w} with LP_NATIVE_VECTOR_WIDTH={lp} (this CPU or driver does not offer {want})",
                dev.info().name
            );
            println!("{why}");
            eprintln!("{why}");
            return None;
        }
    }
    eprintln!(
        "{test}: on {} — {} ({}), LP_NATIVE_VECTOR_WIDTH={lp}",
        dev.info().spec(),
        dev.info().name,
        dev.info().detail
    );
    Some(dev)
}

/// The kernels a run line launches.
fn check(dev: &Device, files: &[PathBuf], what: &str) {
    let mut tally = Tally::default();
    for f in files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        qd_tests::crosscheck::file(&src, f, dev, &mut tally);
    }
    let label = format!("vulkan {what} (width {})", dev.info().subgroup_width);
    println!("{}", tally.summary(&label));
    eprintln!("{}", tally.summary(&label));
    assert!(tally.matched > 0, "{label}: nothing matched");
    assert!(
        tally.failures.is_empty(),
        "{} cross-check failure(s):\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}

#[test]
fn filetests_match_on_vulkan() {
    let Some(dev) = device("filetests_match_on_vulkan") else { return };
    let files = qd_tests::corpus::qdm_files(&[qd_tests::corpus::repo().join("tests/filetests")]);
    assert!(files.len() > 20, "{} filetests", files.len());
    check(&dev, &files, "filetests");
}

#[test]
fn interpreter_test_kernels_match_on_vulkan() {
    let Some(dev) = device("interpreter_test_kernels_match_on_vulkan") else { return };
    let dir = qd_tests::corpus::kernel_corpus_dir();
    let files = qd_tests::corpus::qdm_files(std::slice::from_ref(&dir));
    if files.is_empty() {
        let why = format!(
            "no kernel corpus in {} (write it with `QD_DUMP_KERNELS={} cargo test -p qd-mir --lib interp::`)",
            dir.display(),
            dir.display()
        );
        assert!(!required(), "QD_REQUIRE_VULKAN=1 but {why}");
        eprintln!("interpreter_test_kernels_match_on_vulkan: skipped ({why})");
        return;
    }
    check(&dev, &files, "interpreter-test kernels");
}
