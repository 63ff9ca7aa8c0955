//! Driver-level tests of the `cuda` device (opt-in with `QD_TEST_CUDA=1`): the JIT error log of a
//! rejected module reaches the error.

use super::{driver, open};

#[test]
fn jit_errors_carry_the_log() {
    if std::env::var("QD_TEST_CUDA").as_deref() != Ok("1") {
        eprintln!("jit_errors_carry_the_log: skipped (set QD_TEST_CUDA=1 to run the CUDA tests)");
        return;
    }
    let (dev, _) = open(0).expect("QD_TEST_CUDA=1 but cuda:0 cannot be opened");
    let _st = dev.shared.lock().unwrap();
    let bad =
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() {\n  bogus.instruction %r1;\n  ret;\n}\n";
    let e = driver::load_ptx(bad).unwrap_err();
    let text = e.to_string();
    eprintln!("{text}");
    assert!(text.contains("cuModuleLoadDataEx failed with CUDA_ERROR_INVALID_PTX"), "{text}");
    assert!(text.contains("JIT error log:"), "{text}");
    assert!(e.log.as_deref().is_some_and(|l| l.contains("bogus") || l.contains("error")), "{text}");
}
