//! MIR → SPIR-V for a Vulkan device through `qd-isel-spirv`: the compile options from the
//! device's properties (target environment from its API version, subgroup size and operations,
//! features, limits) and the module's interface (bindings and push constants) in the form the
//! device launches with. `QD_VULKAN_ENV=vulkan1.1|vulkan1.2|vulkan1.3` forces an older target
//! environment than the device's (to run the other SPIR-V versions on the same driver).

use super::props::Props;
use crate::error::RtError;
use ash::vk;
use qd_isel_spirv::{compile_kernel, DeviceCaps, SpirvOptions, SubgroupOps, TargetEnv};
use qd_mir::{Function, ScalarType};

/// A compiled kernel module and its interface.
pub(crate) struct Compiled {
    pub words: Vec<u32>,
    /// The entry point's name.
    pub entry: String,
    /// For each binding k (in order) the parameter index of buffer parameter k.
    pub bindings: Vec<usize>,
    /// Each scalar parameter's (index, byte offset, type) in the push-constant block.
    pub push: Vec<(usize, u32, ScalarType)>,
    pub push_bytes: u32,
}

/// The newest target environment the device's API version allows.
pub(crate) fn device_env(p: &Props) -> TargetEnv {
    if p.api_version >= vk::API_VERSION_1_3 {
        TargetEnv::Vulkan1_3
    } else if p.api_version >= vk::API_VERSION_1_2 {
        TargetEnv::Vulkan1_2
    } else {
        TargetEnv::Vulkan1_1
    }
}

/// The target environment of a device: its own, or `QD_VULKAN_ENV` when that is older.
pub(crate) fn env_for(p: &Props) -> Result<TargetEnv, RtError> {
    let own = device_env(p);
    match std::env::var("QD_VULKAN_ENV") {
        Ok(s) if !s.is_empty() => {
            let e = TargetEnv::parse(&s)
                .ok_or_else(|| RtError::usage(format!("QD_VULKAN_ENV={s}: want vulkan1.1, vulkan1.2 or vulkan1.3")))?;
            if e > own {
                return Err(RtError::usage(format!(
                    "QD_VULKAN_ENV={s}: the device supports only {} ({})",
                    own.name(),
                    p.name
                )));
            }
            Ok(e)
        }
        _ => Ok(own),
    }
}

/// What the back end may use on this device, at subgroup width `width`.
pub(crate) fn caps(p: &Props, width: u32) -> DeviceCaps {
    let has = |f: vk::SubgroupFeatureFlags| p.subgroup_ops.contains(f);
    let f = p.features;
    DeviceCaps {
        subgroup_size: width,
        subgroup_ops: SubgroupOps {
            basic: has(vk::SubgroupFeatureFlags::BASIC),
            vote: has(vk::SubgroupFeatureFlags::VOTE),
            arithmetic: has(vk::SubgroupFeatureFlags::ARITHMETIC),
            ballot: has(vk::SubgroupFeatureFlags::BALLOT),
            shuffle: has(vk::SubgroupFeatureFlags::SHUFFLE),
            shuffle_relative: has(vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE),
            clustered: has(vk::SubgroupFeatureFlags::CLUSTERED),
            quad: has(vk::SubgroupFeatureFlags::QUAD),
        },
        int64: f.int64,
        float64: f.float64,
        int64_atomics: f.int64_atomics,
        float32_atomic_add: f.float32_atomic_add,
        max_shared_bytes: p.limits.max_shared_bytes,
        max_workgroup_invocations: p.limits.max_invocations,
        signed_zero_inf_nan_preserve: f.signed_zero_inf_nan_preserve,
    }
}

/// Compiles a kernel for a device at subgroup width `width`, in target environment `env`.
pub(crate) fn compile(f: &Function, p: &Props, env: TargetEnv, width: u32) -> Result<Compiled, RtError> {
    let opts = SpirvOptions::new(env, caps(p, width));
    let k = compile_kernel(f, &opts).map_err(|e| RtError::compile(&e))?;
    p.limits.check_shared(u64::from(k.shared_bytes))?;
    let mut bindings = Vec::with_capacity(k.bindings.len());
    for (i, b) in k.bindings.iter().enumerate() {
        if b.set != 0 || b.binding as usize != i {
            return Err(RtError::compile_text(format!(
                "buffer parameter {} is at set {} binding {}; the device expects set 0 binding {i}",
                b.param, b.set, b.binding
            )));
        }
        bindings.push(b.param);
    }
    Ok(Compiled {
        words: k.words,
        entry: qd_isel_spirv::ENTRY_POINT.to_string(),
        bindings,
        push: k.push_constants.iter().map(|pf| (pf.param, pf.offset, pf.ty)).collect(),
        push_bytes: k.push_constant_bytes,
    })
}
