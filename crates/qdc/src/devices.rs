//! `qdc devices`: every device `qd_rt::Device::available()` finds, one per line as
//! `SPEC  NAME (DETAIL)`, and why CUDA or Vulkan is absent when it is.

/// Runs `qdc devices`.
pub fn devices(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("qdc devices: unexpected argument '{a}'"));
    }
    for d in qd_rt::Device::available() {
        println!("{:<8} {} ({})", d.spec(), d.name, d.detail);
    }
    if let Some(why) = qd_rt::Device::cuda_unavailable_reason() {
        println!("cuda: not available: {why}");
    }
    if let Some(why) = qd_rt::Device::vulkan_unavailable_reason() {
        println!("vulkan: not available: {why}");
    }
    Ok(())
}
