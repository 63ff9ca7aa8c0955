//! `qdc devices`: every device `qd_rt::Device::available()` finds, one per line as
//! `SPEC  NAME (DETAIL)`; why CUDA, HSA (AMD GPUs) or Vulkan is absent when it is; then the AMDGCN
//! wave simulators (`Device::simulated()`), which are always there, each marked `[simulator]`
//! (test tools running qd's AMD machine code lane by lane, not hardware).

/// Runs `qdc devices`.
pub fn devices(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("qdc devices: unexpected argument '{a}'"));
    }
    for d in qd_rt::Device::available() {
        println!("{:<10} {} ({})", d.spec(), d.name, d.detail);
    }
    if let Some(why) = qd_rt::Device::cuda_unavailable_reason() {
        println!("cuda: not available: {why}");
    }
    if let Some(why) = qd_rt::Device::hsa_unavailable_reason() {
        println!("hsa: not available: {why}");
    }
    if let Some(why) = qd_rt::Device::vulkan_unavailable_reason() {
        println!("vulkan: not available: {why}");
    }
    for d in qd_rt::Device::simulated() {
        println!("{:<10} {} ({}) [simulator]", d.spec(), d.name, d.detail);
    }
    Ok(())
}
