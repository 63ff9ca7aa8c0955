//! `qd-rt`: the runtime — one [`Device`] API over the `cpu` device (native code from
//! `qd-isel-cpu`, Cranelift, on every core), the `interp` device (the MIR interpreter), the
//! `cuda` device (the CUDA driver through cudarc, kernels compiled by `qd-isel-ptx`), the
//! `vulkan` device (ash, kernels compiled by `qd-isel-spirv`; Mesa's lavapipe runs it on a CPU),
//! the `hsa` device (an AMD GPU through the HSA runtime, kernels compiled by `qd-isel-amdgcn`) and
//! the `sim-*` devices (kernels compiled by `qd-isel-amdgcn` for gfx942, gfx90a or gfx1100, run on
//! its wave simulator).
//!
//! ```no_run
//! use qd_rt::{ArgValue, Device, HostBuffer, LaunchOptions};
//! # fn demo(f: &qd_mir::Function) -> Result<(), qd_rt::RtError> {
//! let dev = Device::best();                 // cuda, else an AMD GPU (hsa), else a Vulkan GPU, else cpu
//! let mut args = vec![ArgValue::Buffer(HostBuffer::from_bits(qd_mir::ScalarType::U32, 0..64))];
//! dev.run_kernel(f, &mut args, &LaunchOptions::default())?; // buffers updated in place
//! # Ok(()) }
//! ```
//!
//! Devices are opened by spec ([`Device::open`]: `cpu`, `cpu:8`, `interp`, `interp:8`, `cuda`, `cuda:1`, `vulkan`,
//! `vulkan:1`, `hsa`, `hsa:1`, `sim-gfx942`, `sim-gfx90a`, `sim-gfx1100`, `sim-gfx1100-w32`,
//! `best`). The `cuda` device probes for `libcuda` before any other driver call, and the `vulkan`
//! and `hsa` devices open the Vulkan loader and the HSA runtime with `dlopen`, so a machine
//! without a driver gets a clear [`RtError`] ("no CUDA driver (libcuda.so) found", "no Vulkan
//! loader (libvulkan.so.1) found", "hsa_init failed with HSA_STATUS_…"), never a panic; driver failures name the API call and its `CUresult` / `VkResult`, and
//! a launch over a device limit fails before it starts with [`RtErrorKind::Limit`] naming it. [`crosscheck`] runs a kernel on the interpreter
//! and on a device and compares every buffer bit for bit.
//!
//! Programs run two ways: [`Device::run_program`] over host buffers (uploaded, run, downloaded
//! in place) and [`Device::run_program_resident`] over [`DeviceBuffer`]s that stay on the device
//! (one upload, many runs; [`Device::write`] changes a small input such as a live count between
//! runs). Both make the program's argument checks before the first launch
//! ([`RtErrorKind::ProgramCheck`] naming the parameter) and read its status word after the last
//! ([`RtErrorKind::ProgramStatus`] with the messages of the bits set).
//!
//! This is the only crate of the workspace allowed `unsafe`: the driver calls in `cuda/driver.rs`,
//! `vulkan/raw.rs` and `hsa/` and the `Send`/`Sync` claims for driver handles, each with a
//! `// SAFETY:` comment.

mod amdgcn;
mod args;
pub mod cpu;
pub mod crosscheck;
mod cuda;
mod error;
mod hsa;
mod lowlevel;
pub mod matrix;
mod program;
mod resident;
pub mod sim;
mod timing;
mod vulkan;

pub use error::{RtError, RtErrorKind};
pub use lowlevel::{CompiledKernel, DeviceArg, DeviceBuffer};
pub use matrix::{DeviceMatrix, Skipped};
pub use qd_mir::interp::{ArgValue, Buffer as HostBuffer};
pub use timing::{Clock, Phase};

use qd_mir::{Function, Module, Program};

/// The kind of a device.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// Native code on the host's cores (Cranelift).
    Cpu,
    /// The MIR interpreter (the oracle).
    Interp,
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
    /// A Vulkan device (a GPU, or lavapipe on the CPU) through ash.
    Vulkan,
    /// An AMD GPU through the HSA runtime (ROCr), running qd's AMDGCN code.
    Hsa,
    /// qd's AMDGCN code on the wave simulator (`sim-gfx942`, `sim-gfx90a`, `sim-gfx1100`,
    /// `sim-gfx1100-w32`).
    Sim,
}

impl DeviceKind {
    /// `cpu`, `cuda`, `vulkan`, `hsa` or `sim`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Interp => "interp",
            DeviceKind::Cuda => "cuda",
            DeviceKind::Vulkan => "vulkan",
            DeviceKind::Hsa => "hsa",
            DeviceKind::Sim => "sim",
        }
    }
}

/// What a device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Its kind.
    pub kind: DeviceKind,
    /// The CUDA, Vulkan or HSA GPU-agent ordinal (0 for cpu; for sim, the index in [`Device::simulated`]:
    /// 0 `sim-gfx942`, 1 `sim-gfx90a`, 2 `sim-gfx1100`, 3 `sim-gfx1100-w32`).
    pub ordinal: usize,
    /// The device's name (the GPU's marketing name — for hsa the agent's product name, or
    /// `AMD GPU (gfx942)` when it has none; `MIR interpreter` for cpu,
    /// `AMDGCN wave simulator (gfx942)` for sim).
    pub name: String,
    /// The subgroup (warp) width.
    pub subgroup_width: u32,
    /// A one-line description (`sm_90, compute capability 9.0, driver 12.8, 132 SMs`; for Vulkan
    /// the driver, API version, device type and subgroup size; for hsa the ISA name, compute
    /// units and wave size).
    pub detail: String,
    /// True when a block of a launch may wait (spin) on a flag that a block which started
    /// earlier sets, and be sure to see it set: the device keeps running started blocks. This
    /// is what single-pass algorithms (decoupled look-back scan, onesweep radix sort) need, with
    /// blocks numbered by an atomic ticket in start order. `cpu` and `sim-*` run blocks one
    /// after another, each to completion, CUDA and HSA GPUs keep resident blocks running; Vulkan does not
    /// promise it (a lavapipe or GPU driver may run a later workgroup to completion before an
    /// earlier one starts).
    pub forward_progress: bool,
}

impl DeviceInfo {
    /// True for the host devices (`cpu`, `interp`): they run on the CPU and run a kernel at the
    /// subgroup width it declares.
    pub fn is_host(&self) -> bool {
        match self.kind {
            DeviceKind::Cpu | DeviceKind::Interp => true,
            DeviceKind::Cuda | DeviceKind::Vulkan | DeviceKind::Hsa | DeviceKind::Sim => false,
        }
    }

    /// The spec that opens this device again (`cpu:16`, `cuda:0`, `vulkan:0`, `hsa:0`,
    /// `sim-gfx942`).
    pub fn spec(&self) -> String {
        match self.kind {
            DeviceKind::Cpu => format!("cpu:{}", self.subgroup_width),
            DeviceKind::Interp => format!("interp:{}", self.subgroup_width),
            DeviceKind::Cuda => format!("cuda:{}", self.ordinal),
            DeviceKind::Vulkan => format!("vulkan:{}", self.ordinal),
            DeviceKind::Hsa => format!("hsa:{}", self.ordinal),
            DeviceKind::Sim => sim::spec(self.ordinal).to_string(),
        }
    }
}

/// Launch overrides of [`Device::run_kernel`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    /// Replaces the kernel's grid.
    pub grid: Option<[u32; 3]>,
    /// Replaces the kernel's block size (on CUDA, Vulkan, hsa and sim the kernel is compiled for
    /// it).
    pub block: Option<[u32; 3]>,
}

/// A device that runs kernels and programs.
pub struct Device {
    info: DeviceInfo,
    pub(crate) imp: Imp,
}

pub(crate) enum Imp {
    Cpu { engine: cpu::Engine, width: u32 },
    Cuda(Box<cuda::CudaDevice>),
    Vulkan(Box<vulkan::VulkanDevice>),
    Hsa(Box<hsa::device::HsaGpu>),
    Sim { target: qd_isel_amdgcn::Target },
}

impl Device {
    /// Native code on the host's cores at the default width ([`cpu::DEFAULT_CPU_WIDTH`]).
    pub fn cpu() -> Device {
        let w = cpu::DEFAULT_CPU_WIDTH;
        Device { info: cpu::info(cpu::Engine::Jit, w), imp: Imp::Cpu { engine: cpu::Engine::Jit, width: w } }
    }

    /// Native code on the host's cores at subgroup width `w` (a power of two, 1..=64).
    pub fn cpu_with_width(w: u32) -> Result<Device, RtError> {
        cpu::check_width(w)?;
        Ok(Device { info: cpu::info(cpu::Engine::Jit, w), imp: Imp::Cpu { engine: cpu::Engine::Jit, width: w } })
    }

    /// The MIR interpreter (the oracle) at subgroup width `w` (a power of two, 1..=64).
    pub fn interp(w: u32) -> Result<Device, RtError> {
        cpu::check_width(w)?;
        Ok(Device { info: cpu::info(cpu::Engine::Interp, w), imp: Imp::Cpu { engine: cpu::Engine::Interp, width: w } })
    }

    /// CUDA device `ordinal`. Without a driver: `Err` ("no CUDA driver (libcuda.so) found").
    pub fn cuda(ordinal: usize) -> Result<Device, RtError> {
        let (d, info) = cuda::open(ordinal)?;
        Ok(Device { info, imp: Imp::Cuda(Box::new(d)) })
    }

    /// Vulkan device `ordinal` (the loader's enumeration order). Without a loader, an ICD or a
    /// device: `Err` of kind `Unavailable` saying which is missing.
    pub fn vulkan(ordinal: usize) -> Result<Device, RtError> {
        let (d, info) = vulkan::open(ordinal)?;
        Ok(Device { info, imp: Imp::Vulkan(Box::new(d)) })
    }

    /// HSA GPU agent `ordinal` (the runtime's agent order, GPUs only): an AMD GPU running qd's
    /// AMDGCN code, compiled for the agent's architecture (gfx90a, gfx942 or gfx1100) and
    /// wavefront size. Without the runtime library, `/dev/kfd` or a GPU agent: `Err` of kind
    /// `Unavailable` naming the failing HSA call and its status; another architecture is
    /// `Unavailable` naming it and the supported ones.
    pub fn hsa(ordinal: usize) -> Result<Device, RtError> {
        let (g, info) = hsa::device::open(ordinal)?;
        Ok(Device { info, imp: Imp::Hsa(Box::new(g)) })
    }

    /// The AMDGCN wave simulator for `target` (gfx942, gfx90a or gfx1100 in wave64, gfx1100 in
    /// wave32): kernels compiled by `qd-isel-amdgcn`, run lane by lane (see [`sim`]). `Err` for a
    /// target that cannot run its wave size.
    pub fn sim(target: qd_isel_amdgcn::Target) -> Result<Device, RtError> {
        let ordinal = sim::DEVICES.iter().position(|(_, t)| *t == target).ok_or_else(|| {
            RtError::usage(format!("no sim device for {} in wave{}", target.arch, target.wave.lanes()))
        })?;
        Ok(Device { info: sim::info(ordinal), imp: Imp::Sim { target } })
    }

    /// The four sim devices, in ordinal order (`sim-gfx942`, `sim-gfx90a`, `sim-gfx1100`,
    /// `sim-gfx1100-w32`). They are not in [`Device::available`]: they are always there, and
    /// they are test tools, far slower than the `cpu` device.
    pub fn simulated() -> Vec<DeviceInfo> {
        (0..sim::DEVICES.len()).map(sim::info).collect()
    }

    /// Opens a device by spec: `cpu` (width 32), `cpu:N` (width N), `interp`, `interp:N` (the
    /// interpreter), `cuda` (ordinal 0),
    /// `cuda:N`, `vulkan` (ordinal 0), `vulkan:N`, `hsa` (ordinal 0), `hsa:N`, `sim-gfx942`, `sim-gfx90a`, `sim-gfx1100`
    /// (wave64), `sim-gfx1100-w32` (wave32), `best`.
    pub fn open(spec: &str) -> Result<Device, RtError> {
        let bad = || {
            RtError::usage(format!(
                "unknown device '{spec}' (want cpu, cpu:WIDTH, interp, interp:WIDTH, cuda, cuda:ORDINAL, vulkan, vulkan:ORDINAL, \
                 hsa, hsa:ORDINAL, sim-gfx942, sim-gfx90a, sim-gfx1100, sim-gfx1100-w32 or best)"
            ))
        };
        if let Some((_, target)) = sim::parse(spec) {
            return Device::sim(target);
        }
        let (kind, arg) = match spec.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (spec, None),
        };
        match (kind, arg) {
            ("best", None) => Ok(Device::best()),
            ("cpu", None) => Ok(Device::cpu()),
            ("cpu", Some(w)) => {
                let w = w
                    .parse::<u32>()
                    .map_err(|_| RtError::usage(format!("cpu:{w}: the width must be a power of two from 1 to 64")))?;
                Device::cpu_with_width(w)
            }
            ("interp", None) => Device::interp(cpu::DEFAULT_CPU_WIDTH),
            ("interp", Some(w)) => {
                let w = w.parse::<u32>().map_err(|_| {
                    RtError::usage(format!("interp:{w}: the width must be a power of two from 1 to 64"))
                })?;
                Device::interp(w)
            }
            ("cuda", None) => Device::cuda(0),
            ("cuda", Some(n)) => {
                let n = n
                    .parse::<usize>()
                    .map_err(|_| RtError::usage(format!("cuda:{n}: the ordinal must be a number")))?;
                Device::cuda(n)
            }
            ("vulkan", None) => Device::vulkan(0),
            ("vulkan", Some(n)) => {
                let n = n
                    .parse::<usize>()
                    .map_err(|_| RtError::usage(format!("vulkan:{n}: the ordinal must be a number")))?;
                Device::vulkan(n)
            }
            ("hsa", None) => Device::hsa(0),
            ("hsa", Some(n)) => {
                let n =
                    n.parse::<usize>().map_err(|_| RtError::usage(format!("hsa:{n}: the ordinal must be a number")))?;
                Device::hsa(n)
            }
            _ => Err(bad()),
        }
    }

    /// CUDA device 0 when it can be opened, else the first HSA GPU qd compiles for (qd's own
    /// AMDGCN code, not SPIR-V through a Vulkan driver), else the first Vulkan device that is a
    /// real GPU (not a CPU implementation such as lavapipe, which is slower than the interpreter
    /// is useful), else the cpu device; [`Device::info`] says which. Never a sim device.
    pub fn best() -> Device {
        if let Ok(d) = Device::cuda(0) {
            return d;
        }
        if let Ok((gpus, _)) = hsa::device::list() {
            for info in gpus {
                if let Ok(d) = Device::hsa(info.ordinal) {
                    return d;
                }
            }
        }
        for i in vulkan::gpu_ordinals() {
            if let Ok(d) = Device::vulkan(i) {
                return d;
            }
        }
        Device::cpu()
    }

    /// Every device present: the cpu device (native code, width 32) and the interpreter
    /// (`interp:32`) first, then each CUDA GPU, then each HSA
    /// GPU agent qd compiles for, then each Vulkan device (an AMD GPU may be there twice, as
    /// `hsa:N` and as `vulkan:M`). The sim devices are not listed (see [`Device::simulated`]).
    /// Never fails: a missing driver only leaves its devices out.
    pub fn available() -> Vec<DeviceInfo> {
        let mut v = vec![
            cpu::info(cpu::Engine::Jit, cpu::DEFAULT_CPU_WIDTH),
            cpu::info(cpu::Engine::Interp, cpu::DEFAULT_CPU_WIDTH),
        ];
        if let Ok(n) = cuda::count() {
            for i in 0..n {
                if let Ok((_, info)) = cuda::open(i) {
                    v.push(info);
                }
            }
        }
        if let Ok((gpus, _)) = hsa::device::list() {
            v.extend(gpus);
        }
        v.extend(vulkan::list().unwrap_or_default());
        v
    }

    /// Why no HSA device can be used (`None` when at least one can): the missing runtime library,
    /// a failing `hsa_init` (no `/dev/kfd`), no GPU agent, or GPU agents of architectures qd does
    /// not compile for.
    pub fn hsa_unavailable_reason() -> Option<String> {
        hsa::device::unavailable_reason()
    }

    /// Why no Vulkan device can be used (`None` when at least one can): no loader, no ICD, no
    /// device.
    pub fn vulkan_unavailable_reason() -> Option<String> {
        vulkan::list().err().map(|e| e.to_string())
    }

    /// Why no CUDA device can be used (`None` when at least one can): the missing driver, a
    /// failing `cuInit`, no GPU.
    pub fn cuda_unavailable_reason() -> Option<String> {
        match cuda::count() {
            Ok(0) => Some("the driver reports no CUDA device".to_string()),
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        }
    }

    /// What this device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Runs a kernel: uploads the buffers, launches, waits and downloads them in place.
    pub fn run_kernel(&self, f: &Function, args: &mut [ArgValue], opts: &LaunchOptions) -> Result<(), RtError> {
        match &self.imp {
            Imp::Cpu { engine, width } => cpu::run_kernel(*engine, *width, f, args, opts),
            Imp::Cuda(c) => match opts.block {
                Some(b) => {
                    let mut g = f.clone();
                    g.launch.block = b;
                    c.run_kernel(&g, args, opts.grid)
                }
                None => c.run_kernel(f, args, opts.grid),
            },
            Imp::Vulkan(v) => match opts.block {
                Some(b) => {
                    let mut g = f.clone();
                    g.launch.block = b;
                    v.run_kernel(&g, args, opts.grid)
                }
                None => v.run_kernel(f, args, opts.grid),
            },
            Imp::Hsa(_) => self.run_kernel_uploaded(f, args, opts),
            Imp::Sim { target } => sim::run_kernel(*target, f, args, opts),
        }
    }

    /// Runs a program of `m`: its launches in order on one stream (CUDA), in one command buffer
    /// with barriers between them (Vulkan) or one after another (cpu, hsa, sim), the buffers resident
    /// on the device in between,
    /// downloaded in place at the end. The arguments are checked first (one per parameter, of
    /// its type, then the program's `check`s: [`RtErrorKind::ProgramCheck`]); a program with a
    /// status word gets a zeroed one, and a non-zero word after the last launch is
    /// [`RtErrorKind::ProgramStatus`] (the buffers are downloaded all the same). To keep the
    /// buffers on the device across runs, see [`Device::run_program_resident`].
    pub fn run_program(&self, m: &Module, p: &Program, args: &mut [ArgValue]) -> Result<(), RtError> {
        match &self.imp {
            Imp::Cpu { engine, width } => cpu::run_program(*engine, *width, m, p, args),
            Imp::Cuda(c) => c.run_program(m, p, args),
            Imp::Vulkan(v) => v.run_program(m, p, args),
            Imp::Hsa(_) | Imp::Sim { .. } => self.run_program_uploaded(m, p, args),
        }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("info", &self.info).finish()
    }
}
