//! What a Vulkan physical device is and can do, as plain data ([`Props`]): its name, type, API and
//! driver versions, subgroup properties (size, operations, stages, size control), the features qd
//! enables, and the compute limits. The launch-time limit checks ([`Limits::check_block`],
//! [`Limits::check_grid`], …) live here: each failure is an [`RtError`] of kind
//! [`RtErrorKind::Limit`](crate::RtErrorKind::Limit) naming the Vulkan limit, raised before
//! anything reaches the driver.

use crate::error::RtError;
use ash::vk;

/// Subgroup size control (VK_EXT_subgroup_size_control or Vulkan 1.3), when the device has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SizeControl {
    /// `minSubgroupSize`.
    pub min: u32,
    /// `maxSubgroupSize`.
    pub max: u32,
    /// `maxComputeWorkgroupSubgroups`.
    pub max_workgroup_subgroups: u32,
    /// Feature `computeFullSubgroups`.
    pub full_subgroups: bool,
}

impl SizeControl {
    /// Whether a pipeline may require subgroup size `w`.
    pub fn offers(&self, w: u32) -> bool {
        w.is_power_of_two() && (self.min..=self.max).contains(&w)
    }
}

/// The compute limits qd checks before a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_shared_bytes: u32,
    pub max_invocations: u32,
    pub max_size: [u32; 3],
    pub max_count: [u32; 3],
    pub max_push_constants: u32,
    pub max_storage_buffer_range: u32,
    pub max_storage_buffers: u32,
}

/// Features qd uses, each true when the device supports it (and so it is enabled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Features {
    pub int64: bool,
    pub float64: bool,
    pub int8: bool,
    pub storage_8bit: bool,
    pub int64_atomics: bool,
    pub float32_atomic_add: bool,
    pub subgroup_extended_types: bool,
    pub vulkan_memory_model: bool,
    pub vulkan_memory_model_device_scope: bool,
    /// `shaderSignedZeroInfNanPreserveFloat32` / `…Float64` (float controls).
    pub signed_zero_inf_nan_preserve: [bool; 2],
}

/// A physical device's description.
#[derive(Clone, Debug)]
pub(crate) struct Props {
    pub name: String,
    pub device_type: vk::PhysicalDeviceType,
    /// The device's Vulkan version (`apiVersion`), capped at what qd asks of the instance.
    pub api_version: u32,
    /// The device's `apiVersion` as it reports it.
    pub reported_api: u32,
    /// `llvmpipe`, `NVIDIA`, … (empty when the device does not report it).
    pub driver_name: String,
    /// `Mesa 22.3.6 (LLVM 15.0.6)`, … (empty when the device does not report it).
    pub driver_info: String,
    /// The default subgroup size.
    pub subgroup_size: u32,
    /// `supportedOperations`, or empty when the compute stage has no subgroup operations.
    pub subgroup_ops: vk::SubgroupFeatureFlags,
    pub size_control: Option<SizeControl>,
    pub features: Features,
    pub limits: Limits,
    /// The queue family used (the first with COMPUTE).
    pub queue_family: u32,
    /// Device extensions qd enables (`VK_EXT_subgroup_size_control`, `VK_EXT_shader_atomic_float`).
    pub extensions: Vec<&'static std::ffi::CStr>,
    /// Where buffers live.
    pub memory: super::staging::Memory,
}

/// `1.3.230`.
pub(crate) fn version_text(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

impl Props {
    /// True for a CPU implementation (lavapipe, SwiftShader): not a GPU.
    pub fn is_cpu(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }

    /// `cpu`, `discrete GPU`, …
    pub fn type_text(&self) -> &'static str {
        match self.device_type {
            vk::PhysicalDeviceType::CPU => "cpu",
            vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
            vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
            vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
            _ => "other",
        }
    }

    /// The one-line `detail` of a device's info: driver, API version, type, subgroup size.
    pub fn detail(&self) -> String {
        let driver = match (self.driver_name.is_empty(), self.driver_info.is_empty()) {
            (false, false) => format!("{} {}", self.driver_name, self.driver_info),
            (false, true) => self.driver_name.clone(),
            _ => "unknown driver".to_string(),
        };
        let sizes = match self.size_control {
            Some(sc) if sc.min != sc.max => format!(" (size control {}..{})", sc.min, sc.max),
            Some(_) => " (size control)".to_string(),
            None => String::new(),
        };
        format!(
            "{driver}, Vulkan {}, {}, subgroup size {}{sizes}, subgroup ops: {}, {}",
            version_text(self.reported_api),
            self.type_text(),
            self.subgroup_size,
            self.subgroup_ops_text(),
            self.memory.text()
        )
    }

    /// The width a kernel that declares `declared` (its `subgroup(W)`, if any) runs at, and the
    /// subgroup size its pipeline must require (if any): a declared width the size control offers
    /// is required; the device's own width needs no requirement unless the device's size may vary
    /// (min < max), in which case the default is required so the kernel runs at the width it was
    /// compiled for; any other declared width is refused.
    pub fn width_for(&self, declared: Option<u32>) -> Result<(u32, Option<u32>), RtError> {
        let dflt = self.subgroup_size;
        let sc = self.size_control;
        let varying = sc.is_some_and(|s| s.min != s.max);
        match declared {
            Some(w) if sc.is_some_and(|s| s.offers(w)) && (varying || w != dflt) => Ok((w, Some(w))),
            Some(w) if w == dflt => Ok((w, None)),
            Some(w) => Err(RtError::usage(format!(
                "the kernel declares subgroup({w}) but the device runs subgroups of {dflt}{}",
                match sc {
                    Some(s) => format!(" (subgroup size control offers {}..{})", s.min, s.max),
                    None => " and has no subgroup size control".to_string(),
                }
            ))),
            None if varying && sc.is_some_and(|s| s.offers(dflt)) => Ok((dflt, Some(dflt))),
            None => Ok((dflt, None)),
        }
    }

    /// The names of the supported subgroup operation classes (`basic vote arithmetic …`).
    pub fn subgroup_ops_text(&self) -> String {
        let all = [
            (vk::SubgroupFeatureFlags::BASIC, "basic"),
            (vk::SubgroupFeatureFlags::VOTE, "vote"),
            (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
            (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
            (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
            (vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE, "shuffle_relative"),
            (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
            (vk::SubgroupFeatureFlags::QUAD, "quad"),
        ];
        let v: Vec<&str> = all.iter().filter(|(f, _)| self.subgroup_ops.contains(*f)).map(|(_, n)| *n).collect();
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(" ")
        }
    }
}

fn limit(name: &'static str, needed: u64, max: u64, what: String) -> RtError {
    RtError::limit(name, needed, max, what)
}

impl Limits {
    /// Block shape and size against `maxComputeWorkGroupSize` / `maxComputeWorkGroupInvocations`.
    pub fn check_block(&self, block: [u32; 3]) -> Result<(), RtError> {
        for (d, (&b, &m)) in block.iter().zip(&self.max_size).enumerate() {
            if b > m {
                let axis = ["x", "y", "z"][d];
                return Err(limit(
                    "maxComputeWorkGroupSize",
                    u64::from(b),
                    u64::from(m),
                    format!("block {block:?} has {b} threads in {axis}"),
                ));
            }
        }
        let n: u64 = block.iter().map(|&b| u64::from(b)).product();
        if n > u64::from(self.max_invocations) {
            return Err(limit(
                "maxComputeWorkGroupInvocations",
                n,
                u64::from(self.max_invocations),
                format!("block {block:?} has {n} threads"),
            ));
        }
        Ok(())
    }

    /// Shared (workgroup) memory against `maxComputeSharedMemorySize`.
    pub fn check_shared(&self, bytes: u64) -> Result<(), RtError> {
        if bytes > u64::from(self.max_shared_bytes) {
            return Err(limit(
                "maxComputeSharedMemorySize",
                bytes,
                u64::from(self.max_shared_bytes),
                format!("the kernel's shared arrays take {bytes} bytes"),
            ));
        }
        Ok(())
    }

    /// The number of buffer parameters against `maxPerStageDescriptorStorageBuffers` and the
    /// push-constant block against `maxPushConstantsSize`.
    pub fn check_interface(&self, buffers: usize, push_bytes: u32) -> Result<(), RtError> {
        if buffers as u64 > u64::from(self.max_storage_buffers) {
            return Err(limit(
                "maxPerStageDescriptorStorageBuffers",
                buffers as u64,
                u64::from(self.max_storage_buffers),
                format!("the kernel has {buffers} buffer parameters"),
            ));
        }
        if push_bytes > self.max_push_constants {
            return Err(limit(
                "maxPushConstantsSize",
                u64::from(push_bytes),
                u64::from(self.max_push_constants),
                format!("the kernel's scalar parameters take {push_bytes} bytes of push constants"),
            ));
        }
        Ok(())
    }

    /// A grid against `maxComputeWorkGroupCount`.
    pub fn check_grid(&self, grid: [u32; 3]) -> Result<(), RtError> {
        for (d, (&g, &m)) in grid.iter().zip(&self.max_count).enumerate() {
            if g > m {
                let axis = ["x", "y", "z"][d];
                return Err(limit(
                    "maxComputeWorkGroupCount",
                    u64::from(g),
                    u64::from(m),
                    format!("grid {grid:?} has {g} blocks in {axis}"),
                ));
            }
        }
        Ok(())
    }

    /// A buffer's size in bytes against `maxStorageBufferRange`.
    pub fn check_buffer(&self, bytes: u64) -> Result<(), RtError> {
        if bytes > u64::from(self.max_storage_buffer_range) {
            return Err(limit(
                "maxStorageBufferRange",
                bytes,
                u64::from(self.max_storage_buffer_range),
                format!("a buffer of {bytes} bytes"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RtErrorKind;

    fn lavapipe_limits() -> Limits {
        Limits {
            max_shared_bytes: 32768,
            max_invocations: 1024,
            max_size: [1024; 3],
            max_count: [65535; 3],
            max_push_constants: 128,
            max_storage_buffer_range: 1 << 27,
            max_storage_buffers: 32,
        }
    }

    #[test]
    fn limit_errors_name_the_limit() {
        let l = lavapipe_limits();
        assert!(l.check_block([1024, 1, 1]).is_ok());
        let e = l.check_block([64, 32, 1]).unwrap_err();
        assert_eq!(e.kind, RtErrorKind::Limit { name: "maxComputeWorkGroupInvocations", needed: 2048, max: 1024 });
        assert!(e.to_string().contains("maxComputeWorkGroupInvocations (1024)"), "{e}");
        let e = l.check_block([1, 2048, 1]).unwrap_err();
        assert!(e.to_string().contains("maxComputeWorkGroupSize"), "{e}");
        let e = l.check_shared(65536).unwrap_err();
        assert!(e.to_string().contains("65536") && e.to_string().contains("maxComputeSharedMemorySize"), "{e}");
        assert!(l.check_shared(32768).is_ok());
        let e = l.check_grid([1, 70000, 1]).unwrap_err();
        assert!(e.to_string().contains("maxComputeWorkGroupCount") && e.to_string().contains(" y"), "{e}");
        let e = l.check_interface(2, 132).unwrap_err();
        assert!(e.to_string().contains("maxPushConstantsSize"), "{e}");
        let e = l.check_interface(33, 0).unwrap_err();
        assert!(e.to_string().contains("maxPerStageDescriptorStorageBuffers"), "{e}");
        assert!(l.check_buffer(1 << 28).unwrap_err().to_string().contains("maxStorageBufferRange"));
    }

    fn props(subgroup_size: u32, size_control: Option<SizeControl>) -> Props {
        Props {
            name: "test".into(),
            device_type: vk::PhysicalDeviceType::DISCRETE_GPU,
            api_version: vk::API_VERSION_1_3,
            reported_api: vk::API_VERSION_1_3,
            driver_name: String::new(),
            driver_info: String::new(),
            subgroup_size,
            subgroup_ops: vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::CLUSTERED,
            size_control,
            features: Features::default(),
            limits: lavapipe_limits(),
            queue_family: 0,
            extensions: Vec::new(),
            memory: super::super::staging::Memory::Mapped,
        }
    }

    #[test]
    fn width_choice_follows_the_declared_width_and_size_control() {
        // lavapipe: min = max = 8 — nothing to require; 16 is refused.
        let fixed = SizeControl { min: 8, max: 8, max_workgroup_subgroups: 32, full_subgroups: true };
        let lp = props(8, Some(fixed));
        assert_eq!(lp.width_for(None).unwrap(), (8, None));
        assert_eq!(lp.width_for(Some(8)).unwrap(), (8, None));
        let e = lp.width_for(Some(16)).unwrap_err();
        assert!(
            e.to_string().contains(
                "declares subgroup(16) but the device runs subgroups of 8 (subgroup size control offers 8..8)"
            ),
            "{e}"
        );
        // A GPU whose size varies (Intel-like 8..32, default 32): always required.
        let vary = SizeControl { min: 8, max: 32, max_workgroup_subgroups: 64, full_subgroups: true };
        let gpu = props(32, Some(vary));
        assert_eq!(gpu.width_for(None).unwrap(), (32, Some(32)));
        assert_eq!(gpu.width_for(Some(16)).unwrap(), (16, Some(16)));
        assert_eq!(gpu.width_for(Some(32)).unwrap(), (32, Some(32)));
        assert!(gpu.width_for(Some(64)).is_err());
        // No size control: only the device's width.
        let plain = props(64, None);
        assert_eq!(plain.width_for(Some(64)).unwrap(), (64, None));
        let e = plain.width_for(Some(32)).unwrap_err();
        assert!(e.to_string().contains("has no subgroup size control"), "{e}");
        assert!(
            plain.detail().contains("discrete GPU, subgroup size 64, subgroup ops: basic clustered"),
            "{}",
            plain.detail()
        );
    }

    #[test]
    fn size_control_offers_powers_of_two_in_range() {
        let sc = SizeControl { min: 8, max: 32, max_workgroup_subgroups: 32, full_subgroups: true };
        assert!(sc.offers(8) && sc.offers(16) && sc.offers(32));
        assert!(!sc.offers(4) && !sc.offers(64) && !sc.offers(12));
    }
}
