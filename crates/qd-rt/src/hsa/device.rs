//! The `hsa` device of [`Device`](crate::Device): qd's AMDGCN code on an AMD GPU. Kernels are
//! compiled by `qd_isel_amdgcn::compile_kernel` exactly as for the `sim-*` devices (shared in
//! `crate::amdgcn`), loaded with [`HsaDevice::load_kernel`] and run with
//! [`HsaDevice::dispatch`].
//!
//! - **Target.** The agent's first ISA name (`amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`) names
//!   the architecture (gfx90a, gfx942 or gfx1100; any other is an `Unavailable` error naming it
//!   and the supported ones) and the agent's wavefront size picks the wave: an RDNA3 agent that
//!   reports 32 gets wave32 code, one that reports 64 wave64. The code objects say xnack and
//!   sramecc "any" (`CodeObjectConfig::new`), which the loader accepts whatever mode the agent
//!   runs in, so the ISA name's feature suffixes do not matter.
//! - **Launches.** The kernarg segment is the back end's ABI (parameters, `qd.grid_x/y/z` in
//!   blocks, `qd.spill`), with a spill area of `waves × lanes × bytes per lane` in device memory
//!   when the kernel spills. `grid(saturating)` is 4 blocks per compute unit. Each dispatch waits
//!   for its completion signal, so launches are synchronous and `synchronize` has nothing to wait
//!   for.
//! - **Forward progress: yes.** As on CUDA, the GPU keeps resident workgroups running: a block
//!   that waits on a flag an earlier-started block sets sees it set (what the decoupled look-back
//!   scan and onesweep need).

use super::{HsaDevice, HsaInfo, HsaKernel};
use crate::amdgcn;
use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind};
use qd_isel_amdgcn::abi::KernargValue;
use qd_isel_amdgcn::{Arch, CompiledKernel, Target, WaveSize};
use qd_mir::{Function, ScalarType};

/// An opened AMD GPU and the target its kernels are compiled for.
pub(crate) struct HsaGpu {
    /// The agent, its queue and pools.
    pub(crate) dev: HsaDevice,
    /// Architecture and wave size.
    pub(crate) target: Target,
    /// Compute units (at least 1): the saturating grid is 4 blocks per unit.
    pub(crate) compute_units: u32,
}

/// One kernel argument of a launch on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A device buffer's address.
    Ptr(u64),
    /// A scalar of a type and its bits.
    Scalar(ScalarType, u64),
}

/// A launch whose grid and kernarg values are known, ready to dispatch.
pub(crate) struct Ready<'k> {
    code: &'k CompiledKernel,
    kernel: &'k HsaKernel,
    values: Vec<KernargValue>,
    grid: [u32; 3],
}

/// The names qd compiles for, for error messages: `gfx90a, gfx942 and gfx1100`.
fn supported() -> String {
    let names: Vec<&str> = Arch::ALL.iter().map(|a| a.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The processor of an ISA name (`amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-` → `gfx942`), or the
/// agent name when the runtime gives no ISA.
pub(crate) fn processor<'a>(isa: &'a str, agent_name: &'a str) -> &'a str {
    if isa.is_empty() {
        return agent_name;
    }
    let after = isa.rsplit_once("--").map_or(isa, |(_, p)| p);
    after.split(':').next().unwrap_or(after)
}

/// The target qd compiles for on an agent: its architecture and wave size.
pub(crate) fn target_of(info: &HsaInfo) -> Result<Target, RtError> {
    let proc = processor(&info.isa, &info.name);
    let what = || {
        let isa = if info.isa.is_empty() { String::new() } else { format!(" ({})", info.isa) };
        format!("HSA GPU agent {} is {proc}{isa}", info.ordinal)
    };
    let arch = Arch::from_name(proc).ok_or_else(|| {
        RtError::unavailable(format!("{}: qd's AMDGCN back end compiles for {} only", what(), supported()))
    })?;
    let wave = match info.wavefront_size {
        32 => WaveSize::W32,
        64 => WaveSize::W64,
        w => return Err(RtError::unavailable(format!("{} with a wavefront size of {w}: qd needs 32 or 64", what()))),
    };
    Target::new(arch, wave).ok_or_else(|| {
        RtError::unavailable(format!(
            "{} with a wavefront size of {}: {arch} runs wave{} only",
            what(),
            info.wavefront_size,
            arch.wave_sizes().iter().map(|w| w.lanes().to_string()).collect::<Vec<_>>().join("/")
        ))
    })
}

/// The description of an agent qd can compile for.
pub(crate) fn info(h: &HsaInfo, target: Target) -> DeviceInfo {
    let lanes = target.wave.lanes();
    DeviceInfo {
        kind: DeviceKind::Hsa,
        ordinal: h.ordinal,
        name: if h.product.is_empty() { format!("AMD GPU ({})", h.name) } else { h.product.clone() },
        subgroup_width: lanes,
        detail: format!(
            "{}, {} compute units, wave{lanes}, qd code for {target}",
            if h.isa.is_empty() { h.name.as_str() } else { h.isa.as_str() },
            h.compute_units
        ),
        // The GPU keeps the workgroups it has started running (they are resident until they
        // end, as on CUDA), so a block spinning on a flag that an earlier-started block sets
        // sees it set.
        forward_progress: true,
    }
}

/// Opens GPU agent `ordinal` and describes it.
pub(crate) fn open(ordinal: usize) -> Result<(HsaGpu, DeviceInfo), RtError> {
    let (dev, h) = HsaDevice::open(ordinal)?;
    let target = target_of(&h)?;
    Ok((HsaGpu { dev, target, compute_units: h.compute_units.max(1) }, info(&h, target)))
}

/// Every GPU agent qd can run on, and for each other one why not. `Err` when the runtime is
/// missing or does not initialise.
pub(crate) fn list() -> Result<(Vec<DeviceInfo>, Vec<String>), RtError> {
    let mut usable = Vec::new();
    let mut not = Vec::new();
    for h in HsaDevice::list()? {
        match target_of(&h) {
            Ok(t) => usable.push(info(&h, t)),
            Err(e) => not.push(e.message),
        }
    }
    Ok((usable, not))
}

/// Why no HSA device can be used, or `None` when one can.
pub(crate) fn unavailable_reason() -> Option<String> {
    match list() {
        Err(e) => Some(e.to_string()),
        Ok((usable, _)) if !usable.is_empty() => None,
        Ok((_, not)) if not.is_empty() => Some("hsa_iterate_agents found no GPU agent".to_string()),
        Ok((_, not)) => Some(not.join("; ")),
    }
}

impl HsaGpu {
    /// Compiles `f` for the GPU's target and loads the code object.
    pub(crate) fn compile(&self, f: &Function) -> Result<(CompiledKernel, HsaKernel), RtError> {
        let code = amdgcn::compile(self.target, f)?;
        let kernel = self
            .dev
            .load_kernel(&code.code_object, &code.name)
            .map_err(|e| e.context(format!("kernel @{}", f.name)))?;
        Ok((code, kernel))
    }

    /// The grid and kernarg values of a launch of `f` (compiled as `code`, loaded as `kernel`)
    /// over `slots`, one per parameter; `None` for a grid without blocks (nothing to run).
    pub(crate) fn prepare<'k>(
        &self,
        f: &Function,
        code: &'k CompiledKernel,
        kernel: &'k HsaKernel,
        slots: &[Slot],
        grid_override: Option<[u32; 3]>,
    ) -> Result<Option<Ready<'k>>, RtError> {
        let scalar = |i: usize| match slots.get(i) {
            Some(Slot::Scalar(t, v)) => Some((*t, *v)),
            _ => None,
        };
        let grid = amdgcn::grid(f, grid_override, scalar, self.compute_units)?;
        if crate::args::is_empty_grid(grid) {
            return Ok(None);
        }
        let values = slots
            .iter()
            .map(|s| match *s {
                Slot::Ptr(p) => KernargValue::Ptr(p),
                Slot::Scalar(t, v) => amdgcn::scalar_value(t, v),
            })
            .collect();
        Ok(Some(Ready { code, kernel, values, grid }))
    }

    /// Runs a prepared launch to completion: allocates its spill area when the kernel spills,
    /// writes the kernarg segment and dispatches.
    pub(crate) fn dispatch(&self, r: &Ready<'_>) -> Result<(), RtError> {
        let k = r.code;
        let ctx = || format!("kernel @{} (grid {:?}, block {:?}) on {}", k.name, r.grid, k.block, k.target);
        let spill_bytes = amdgcn::spill_area_bytes(k, r.grid)?;
        let spill = match spill_bytes {
            0 => None,
            n => Some(self.dev.alloc(n).map_err(|e| e.context(format!("{}: the spill area", ctx())))?),
        };
        let kernarg = amdgcn::kernarg(k, &r.values, r.grid, spill.as_ref().map_or(0, |b| b.device_ptr()));
        self.dev.dispatch(r.kernel, &kernarg, r.grid, k.block, 0).map_err(|e| e.context(ctx()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RtErrorKind;

    fn agent(isa: &str, name: &str, wave: u32) -> HsaInfo {
        HsaInfo {
            ordinal: 1,
            name: name.into(),
            product: String::new(),
            isa: isa.into(),
            wavefront_size: wave,
            workgroup_max_size: 1024,
            compute_units: 96,
            queue_size: 1024,
        }
    }

    #[test]
    fn isa_names_give_the_target() {
        let t = |isa: &str, name: &str, w: u32| target_of(&agent(isa, name, w));
        let mi300 = t("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942", 64).unwrap();
        assert_eq!(mi300, Target::wave64(Arch::Gfx942));
        let mi250 = t("amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+", "gfx90a", 64).unwrap();
        assert_eq!(mi250, Target::wave64(Arch::Gfx90a));
        assert_eq!(
            t("amdgcn-amd-amdhsa--gfx1100", "gfx1100", 32).unwrap(),
            Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }
        );
        assert_eq!(t("amdgcn-amd-amdhsa--gfx1100", "gfx1100", 64).unwrap(), Target::wave64(Arch::Gfx1100));
        // No ISA from the runtime: the agent name.
        assert_eq!(t("", "gfx90a", 64).unwrap(), Target::wave64(Arch::Gfx90a));
        assert_eq!(processor("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "x"), "gfx942");
        assert_eq!(processor("gfx1100", "x"), "gfx1100");
    }

    #[test]
    fn other_agents_are_clear_errors() {
        let e = target_of(&agent("amdgcn-amd-amdhsa--gfx1030", "gfx1030", 32)).unwrap_err();
        assert_eq!(e.kind, RtErrorKind::Unavailable);
        assert_eq!(
            e.message,
            "HSA GPU agent 1 is gfx1030 (amdgcn-amd-amdhsa--gfx1030): qd's AMDGCN back end compiles for \
             gfx90a, gfx942 and gfx1100 only"
        );
        let e = target_of(&agent("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942", 32)).unwrap_err();
        assert!(e.message.ends_with("with a wavefront size of 32: gfx942 runs wave64 only"), "{e}");
        let e = target_of(&agent("amdgcn-amd-amdhsa--gfx1100", "gfx1100", 16)).unwrap_err();
        assert!(e.message.ends_with("with a wavefront size of 16: qd needs 32 or 64"), "{e}");
    }

    #[test]
    fn device_info_names_the_product_isa_and_units() {
        let mut h = agent("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942", 64);
        h.product = "AMD Instinct MI300X".into();
        h.compute_units = 304;
        let i = info(&h, target_of(&h).unwrap());
        assert_eq!(i.kind, DeviceKind::Hsa);
        assert_eq!(i.ordinal, 1);
        assert_eq!(i.name, "AMD Instinct MI300X");
        assert_eq!(i.subgroup_width, 64);
        assert_eq!(
            i.detail,
            "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-, 304 compute units, wave64, qd code for gfx942"
        );
        assert!(i.forward_progress);
        assert_eq!(i.spec(), "hsa:1");
        let h = agent("amdgcn-amd-amdhsa--gfx1100", "gfx1100", 32);
        let i = info(&h, target_of(&h).unwrap());
        assert_eq!((i.name.as_str(), i.subgroup_width), ("AMD GPU (gfx1100)", 32));
        assert!(i.detail.ends_with("wave32, qd code for gfx1100 (wave32)"), "{}", i.detail);
    }
}
