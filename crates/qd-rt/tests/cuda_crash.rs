//! A kernel that crashes on the GPU (an illegal address) is an error naming the kernel, the API
//! call and the code, and the device then refuses further work with a clear message (the driver
//! cannot recover the process's context). In its own test binary because it spoils the CUDA
//! context of the whole process. Opt-in with `QD_TEST_CUDA=1`.

mod common;

use common::*;
use qd_mir::ScalarType;
use qd_rt::{Device, LaunchOptions};

#[test]
fn a_crashing_kernel_is_a_clear_error() {
    if std::env::var("QD_TEST_CUDA").as_deref() != Ok("1") {
        eprintln!("a_crashing_kernel_is_a_clear_error: skipped (set QD_TEST_CUDA=1 to run the CUDA tests)");
        return;
    }
    let dev = Device::cuda(0).unwrap_or_else(|e| panic!("QD_TEST_CUDA=1 but cuda:0 cannot be opened: {e}"));
    let m = module();
    let mut a = vec![zeros(ScalarType::U32, 32)];
    let e = dev.run_kernel(m.kernel("wild").unwrap(), &mut a, &LaunchOptions::default()).unwrap_err();
    eprintln!("expected error: {e}");
    let text = e.to_string();
    assert!(text.contains("kernel @wild"), "{text}");
    assert!(text.contains("failed with CUDA_ERROR_"), "{text}");
    let mut b = args_for("scan");
    let e = dev.run_kernel(m.kernel("scan").unwrap(), &mut b, &LaunchOptions::default()).unwrap_err();
    eprintln!("then: {e}");
    assert!(e.to_string().contains("the cuda device is unusable"), "{e}");
}
