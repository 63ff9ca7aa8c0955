//! The CUDA cross-check of the interpreter-test kernels: every `.qdm` of the corpus that
//! `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib interp::` writes (one file per `run_kernel`/
//! `run_program` call of the interpreter's unit tests, with its inputs as an inline `; run:`
//! line) runs on `cuda:0` and must match the interpreter at subgroup width 32. Opt-in with
//! `QD_TEST_CUDA=1` (or `QD_CROSSCHECK_DEVICE=SPEC`); the corpus is `QD_KERNEL_CORPUS`, default
//! `target/qd-kernel-corpus` at the workspace root. Prints
//! `cuda interpreter-test kernels: N matched, M skipped (expected fault), K failed`.

use std::path::PathBuf;

#[test]
fn interpreter_test_kernels_match_on_the_device() {
    let Some(dev) = qd_tests::crosscheck::device_from_env() else {
        eprintln!("cuda interpreter-test kernels: skipped (set QD_TEST_CUDA=1 and dump the corpus first)");
        return;
    };
    let dir = qd_tests::corpus::kernel_corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read the kernel corpus {}: {e}\n(write it with `QD_DUMP_KERNELS={} cargo test -p qd-mir --lib interp::`)",
                dir.display(),
                dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "qdm"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the kernel corpus {} is empty", dir.display());
    let mut tally = qd_rt::crosscheck::Tally::default();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        qd_tests::crosscheck::file(&src, f, &dev, &mut tally);
    }
    let label = format!("{} interpreter-test kernels", dev.info().kind.name());
    println!("{}", tally.summary(&label));
    eprintln!("{}", tally.summary(&label));
    assert!(
        tally.failures.is_empty(),
        "{} cross-check failure(s):\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}
