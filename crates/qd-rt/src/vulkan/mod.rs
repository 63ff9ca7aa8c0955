//! The `vulkan` device: kernels compiled to SPIR-V by `qd-isel-spirv` for the device's subgroup
//! size and features, run as compute pipelines through ash (loader opened at run time; on a
//! machine without GPU, Mesa's lavapipe runs them on the CPU).
//!
//! * **Selection**: `vulkan:N` is the N-th physical device of the loader's enumeration.
//! * **Subgroup width**: the device's `subgroupSize`. A kernel that declares `subgroup(W)` runs
//!   with a pipeline that requires W (subgroup size control) when the device offers W; otherwise
//!   it is refused unless W is the device's size. When the device's size may vary (min < max),
//!   every pipeline requires the default size, so the width the kernel was compiled for is the
//!   width it runs at.
//! * **ABI** (docs/vulkan.md "ABI"): descriptor set 0, buffer parameter k at binding k (a storage buffer);
//!   the scalar parameters in one push-constant block at offsets the back end reports.
//! * **Limits** are checked before anything is created or launched, each failure naming the
//!   limit: maxComputeSharedMemorySize, maxComputeWorkGroupSize / Invocations,
//!   maxComputeWorkgroupSubgroups (with a required size), maxPushConstantsSize,
//!   maxPerStageDescriptorStorageBuffers, maxComputeWorkGroupCount, maxStorageBufferRange.
//! * **Pipelines** are cached by (kernel text, block, subgroup width); a program is one command
//!   buffer with a compute→compute barrier between launches.
//! * **Buffers** (`staging`): host-visible and mapped on lavapipe, integrated GPUs and mapped
//!   discrete memory; device-local with batched staging copies on a discrete GPU
//!   (`QD_VULKAN_MEMORY=staged|mapped` overrides).
//! * A dispatch that does not finish within `QD_VULKAN_TIMEOUT_S` (default 60 s), or a lost
//!   device, marks the device unusable (its objects are leaked: the driver may still use them).

mod props;
pub(crate) mod raw;
mod spirv;
pub(crate) mod staging;
#[cfg(test)]
mod tests;

use crate::args::{self, ArgKind};
use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind};
use qd_mir::interp::ArgValue;
use qd_mir::{Function, LaunchArg, Module, Program, ScalarType};
use raw::{Buf, Dispatch, Gpu, Pending, Pipe, PipeDesc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub(crate) use spirv::Compiled;

/// The grid of `grid(saturating)` on a GPU: 4 blocks per unit, with this many units (Vulkan has
/// no portable count of compute units). On a CPU device the unit count is the host's threads,
/// at least [`CPU_MIN_SATURATING_UNITS`].
const GPU_SATURATING_UNITS: u32 = 32;

/// The least unit count of a CPU device's saturating grid (256 blocks). llvmpipe, under
/// lavapipe, ends every loop of a shader invocation after 65,535 iterations counted over all its
/// loops together (`LP_MAX_TGSI_LOOP_ITERATIONS`, an infinite-loop guard) and carries on with
/// wrong results. A grid-stride kernel on a grid of 4 blocks per host thread makes each
/// invocation loop over `tiles / (4 × threads)` tiles, and a million-key sort's scatter (about
/// 195 inner-loop trips per tile at width 4) crossed the limit at 2 threads; 256 blocks keep an
/// invocation's trips 32× fewer.
const CPU_MIN_SATURATING_UNITS: u32 = 64;

/// A kernel ready to launch: its pipeline and how its parameters reach it.
pub(crate) struct Kernel {
    pub pipe: Arc<Pipe>,
    pub words: Arc<[u32]>,
    pub block: [u32; 3],
    /// The subgroup width it was compiled for and runs at.
    pub width: u32,
    /// For each binding (in order) the parameter index that fills it.
    pub bindings: Vec<usize>,
    /// Each scalar parameter's (index, byte offset, type) in the push-constant block.
    pub push: Vec<(usize, u32, ScalarType)>,
    pub push_bytes: u32,
}

struct State {
    cache: HashMap<(String, [u32; 3], u32), Arc<Kernel>>,
    /// Launches of the low-level API not yet waited for.
    pending: Vec<Pending>,
    poisoned: Option<String>,
}

/// A Vulkan physical device, opened.
pub(crate) struct VulkanDevice {
    pub(crate) gpu: Arc<Gpu>,
    /// The SPIR-V target environment kernels are compiled for.
    env: qd_isel_spirv::TargetEnv,
    state: Mutex<State>,
    timeout: Duration,
    /// The saturating grid's unit count.
    pub units: u32,
}

impl Drop for VulkanDevice {
    fn drop(&mut self) {
        // Wait for the low-level launches still pending, so their buffers and pipelines can be
        // freed (a launch that does not finish within the timeout is leaked instead).
        let st = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        for p in &mut st.pending {
            let _ = p.wait(self.timeout);
        }
    }
}

/// The description of each Vulkan device (by ordinal), or why there is none.
pub(crate) fn list() -> Result<Vec<DeviceInfo>, RtError> {
    let all = raw::list()?;
    if all.is_empty() {
        return Err(RtError::unavailable(
            "the Vulkan loader reports no device (no ICD? install mesa-vulkan-drivers for lavapipe)",
        ));
    }
    Ok(all.iter().enumerate().map(|(i, p)| info(i, p)).collect())
}

/// The ordinals of the Vulkan devices that are real GPUs (not CPU implementations such as
/// lavapipe).
pub(crate) fn gpu_ordinals() -> Vec<usize> {
    raw::list().unwrap_or_default().iter().enumerate().filter(|(_, p)| !p.is_cpu()).map(|(i, _)| i).collect()
}

fn info(ordinal: usize, p: &props::Props) -> DeviceInfo {
    DeviceInfo {
        kind: DeviceKind::Vulkan,
        ordinal,
        name: p.name.clone(),
        subgroup_width: p.subgroup_size,
        detail: p.detail(),
        forward_progress: false,
    }
}

/// Opens Vulkan device `ordinal`.
pub(crate) fn open(ordinal: usize) -> Result<(VulkanDevice, DeviceInfo), RtError> {
    let gpu = Gpu::open(ordinal)?;
    let p = &gpu.props;
    if p.api_version < ash::vk::API_VERSION_1_1 {
        return Err(RtError::unavailable(format!(
            "Vulkan device {ordinal} ({}) supports Vulkan {}; qd needs 1.1",
            p.name,
            props::version_text(p.api_version)
        )));
    }
    if !p.subgroup_size.is_power_of_two() {
        return Err(RtError::unavailable(format!(
            "Vulkan device {ordinal} ({}) reports subgroup size {}; qd needs a power of two",
            p.name, p.subgroup_size
        )));
    }
    let units = if p.is_cpu() {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32).max(CPU_MIN_SATURATING_UNITS)
    } else {
        GPU_SATURATING_UNITS
    };
    let timeout = std::env::var("QD_VULKAN_TIMEOUT_S").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60);
    let env = spirv::env_for(p)?;
    let info = info(ordinal, p);
    let d = VulkanDevice {
        env,
        gpu,
        state: Mutex::new(State { cache: HashMap::new(), pending: Vec::new(), poisoned: None }),
        timeout: Duration::from_secs(timeout),
        units,
    };
    Ok((d, info))
}

/// The bytes of a kernel's shared arrays (each aligned to its element size).
fn shared_bytes(f: &Function) -> u64 {
    f.shared.values().fold(0u64, |at, s| {
        let b = u64::from(s.elem.bytes());
        at.next_multiple_of(b) + b * u64::from(s.len)
    })
}

/// A kernel argument on the device.
#[derive(Clone)]
pub(crate) enum Slot {
    Buf(Arc<Buf>),
    Scalar(ScalarType, u64),
}

fn scalar_of(slots: &[Slot], i: usize) -> Option<(ScalarType, u64)> {
    match slots.get(i) {
        Some(Slot::Scalar(t, v)) => Some((*t, *v)),
        _ => None,
    }
}

impl VulkanDevice {
    /// Locks the state; fails when the device is unusable.
    fn lock(&self) -> Result<MutexGuard<'_, State>, RtError> {
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = &st.poisoned {
            return Err(RtError::unavailable(format!("the vulkan device is unusable: {why}")));
        }
        Ok(st)
    }

    /// Compiles (or finds in the cache) a kernel, checking the limits first.
    fn load(&self, st: &mut State, f: &Function) -> Result<Arc<Kernel>, RtError> {
        let ctx = || format!("kernel @{}", f.name);
        let (width, required) = self.gpu.props.width_for(f.launch.subgroup_size).map_err(|e| e.context(ctx()))?;
        let key = (qd_mir::text::print_function(f), f.launch.block, width);
        if let Some(k) = st.cache.get(&key) {
            return Ok(k.clone());
        }
        let limits = &self.gpu.props.limits;
        limits.check_block(f.launch.block).map_err(|e| e.context(ctx()))?;
        // The SPIR-V back end compiles every block as a 1-D workgroup of all its threads.
        let linear = [f.launch.block.iter().product::<u32>(), 1, 1];
        limits.check_block(linear).map_err(|e| e.context(ctx()))?;
        limits.check_shared(shared_bytes(f)).map_err(|e| e.context(ctx()))?;
        let c = spirv::compile(f, &self.gpu.props, self.env, width).map_err(|e| e.context(ctx()))?;
        let k = self.make_kernel(linear, c, width, required).map_err(|e| e.context(ctx()))?;
        let k = Arc::new(k);
        st.cache.insert(key, k.clone());
        Ok(k)
    }

    /// Checks a compiled module against the limits and creates its pipeline.
    pub(crate) fn make_kernel(
        &self,
        block: [u32; 3],
        c: Compiled,
        width: u32,
        required: Option<u32>,
    ) -> Result<Kernel, RtError> {
        let p = &self.gpu.props;
        p.limits.check_interface(c.bindings.len(), c.push_bytes)?;
        let mut full = false;
        if let (Some(w), Some(sc)) = (required, p.size_control) {
            let n: u64 = block.iter().map(|&b| u64::from(b)).product();
            let max = u64::from(w) * u64::from(sc.max_workgroup_subgroups);
            if n > max {
                return Err(RtError::limit(
                    "maxComputeWorkgroupSubgroups",
                    n.div_ceil(u64::from(w)),
                    u64::from(sc.max_workgroup_subgroups),
                    format!("block {block:?} has {n} threads, {} subgroups of {w}", n.div_ceil(u64::from(w))),
                ));
            }
            full = sc.full_subgroups && block[0].is_multiple_of(w);
        }
        let pipe = self.gpu.pipeline(&PipeDesc {
            words: &c.words,
            entry: &c.entry,
            bindings: c.bindings.len() as u32,
            push_bytes: c.push_bytes,
            required_subgroup: required,
            full_subgroups: full,
        })?;
        Ok(Kernel {
            pipe: Arc::new(pipe),
            words: c.words.into(),
            block,
            width,
            bindings: c.bindings,
            push: c.push,
            push_bytes: c.push_bytes,
        })
    }

    /// A new buffer holding `data`.
    pub(crate) fn upload(&self, data: &[u8]) -> Result<Buf, RtError> {
        self.gpu.props.limits.check_buffer(data.len() as u64)?;
        let mut v = self.gpu.buffers_with(&[(data.len() as u64, data)])?;
        v.pop().ok_or_else(|| RtError::usage("no buffer made"))
    }

    /// The dispatch of one launch (`None` for an empty grid, which launches nothing).
    pub(crate) fn dispatch(
        &self,
        k: &Arc<Kernel>,
        f: &Function,
        slots: &[Slot],
        grid_override: Option<[u32; 3]>,
    ) -> Result<Option<Dispatch>, RtError> {
        let grid = args::grid(f, grid_override, |i| scalar_of(slots, i), self.units)?;
        if args::is_empty_grid(grid) {
            return Ok(None);
        }
        self.gpu.props.limits.check_grid(grid)?;
        let mut buffers = Vec::with_capacity(k.bindings.len());
        for (b, &pi) in k.bindings.iter().enumerate() {
            match slots.get(pi) {
                Some(Slot::Buf(d)) => buffers.push(d.clone()),
                _ => return Err(RtError::usage(format!("binding {b}: parameter {pi} is not a buffer"))),
            }
        }
        let mut push = vec![0u8; k.push_bytes as usize];
        for &(pi, off, ty) in &k.push {
            let Some((t, bits)) = scalar_of(slots, pi) else {
                return Err(RtError::usage(format!("push constant at {off}: parameter {pi} is not a scalar")));
            };
            if t != ty {
                return Err(RtError::usage(format!("push constant at {off}: parameter {pi} is {t}, not {ty}")));
            }
            let v = args::scalar_slot(t, bits).to_le_bytes();
            let n = if ty.bytes() == 8 { 8 } else { 4 };
            let at = off as usize;
            let dst = push.get_mut(at..at + n).ok_or_else(|| {
                RtError::usage(format!("push constant at {off} lies outside the {}-byte block", k.push_bytes))
            })?;
            dst.copy_from_slice(&v[..n]);
        }
        Ok(Some(Dispatch { pipe: k.pipe.clone(), buffers, push, grid }))
    }

    /// Submits dispatches and waits for them.
    pub(crate) fn run(&self, dispatches: Vec<Dispatch>) -> Result<(), RtError> {
        if dispatches.is_empty() {
            return Ok(());
        }
        let mut p = self.gpu.submit(dispatches)?;
        p.wait(self.timeout)
    }

    /// Submits dispatches in one command buffer (a compute→compute barrier before each) without
    /// waiting (the low-level API's asynchronous launch); nothing is submitted when there are
    /// none.
    pub(crate) fn launch_all(&self, ds: Vec<Dispatch>) -> Result<(), RtError> {
        if ds.is_empty() {
            return Ok(());
        }
        let mut st = self.lock()?;
        match self.gpu.submit(ds) {
            Ok(p) => {
                st.pending.push(p);
                Ok(())
            }
            Err(e) => Err(self.recover(&mut st, e)),
        }
    }

    /// Waits for every pending low-level launch.
    pub(crate) fn sync(&self) -> Result<(), RtError> {
        let mut st = self.lock()?;
        let mut pending = std::mem::take(&mut st.pending);
        for p in &mut pending {
            if let Err(e) = p.wait(self.timeout) {
                st.pending = pending;
                return Err(self.recover(&mut st, e));
            }
        }
        Ok(())
    }

    /// Compiles a kernel for the low-level API.
    pub(crate) fn compile(&self, f: &Function) -> Result<Arc<Kernel>, RtError> {
        let mut st = self.lock()?;
        self.load(&mut st, f)
    }

    /// After an error: a lost device or a timeout marks the device unusable.
    fn recover(&self, st: &mut State, e: RtError) -> RtError {
        if !raw::is_fatal(&e) {
            return e;
        }
        st.poisoned = Some(format!("an earlier dispatch failed ({}); open the device again", e.message));
        self.gpu.poison();
        // Dropping them destroys nothing now (the device is poisoned): their handles are leaked.
        st.pending.clear();
        st.cache.clear();
        RtError { message: format!("{} (the vulkan device is now unusable)", e.message), ..e }
    }

    /// Runs one kernel: uploads the buffers, dispatches, waits, downloads them in place.
    pub(crate) fn run_kernel(
        &self,
        f: &Function,
        argv: &mut [ArgValue],
        grid_override: Option<[u32; 3]>,
    ) -> Result<(), RtError> {
        let ctx = || format!("kernel @{}", f.name);
        args::check_kernel_args(f, argv).map_err(|e| e.context(ctx()))?;
        let mut st = self.lock()?;
        let r = self.run_kernel_locked(&mut st, f, argv, grid_override);
        r.map_err(|e| self.recover(&mut st, e))
    }

    fn run_kernel_locked(
        &self,
        st: &mut State,
        f: &Function,
        argv: &mut [ArgValue],
        grid_override: Option<[u32; 3]>,
    ) -> Result<(), RtError> {
        let ctx = || format!("kernel @{}", f.name);
        let k = self.load(st, f)?;
        let slots = self.upload_args(argv).map_err(|e| e.context(ctx()))?;
        let d = self.dispatch(&k, f, &slots, grid_override).map_err(|e| e.context(ctx()))?;
        let shape = d.as_ref().map(|d| d.grid);
        self.run(d.into_iter().collect())
            .map_err(|e| e.context(format!("kernel @{} (grid {shape:?}, block {:?})", f.name, k.block)))?;
        self.download(argv, &slots)
    }

    /// The slots of `argv`: its buffers uploaded (together: one staging submission on a staged
    /// device), its scalars as they are.
    fn upload_args(&self, argv: &[ArgValue]) -> Result<Vec<Slot>, RtError> {
        let mut items = Vec::new();
        for a in argv {
            if let ArgValue::Buffer(b) = a {
                self.gpu.props.limits.check_buffer(b.data.len() as u64)?;
                items.push((b.data.len() as u64, b.data.as_slice()));
            }
        }
        let mut bufs = self.gpu.buffers_with(&items)?.into_iter();
        argv.iter()
            .map(|a| match a {
                ArgValue::Buffer(_) => {
                    bufs.next().map(|b| Slot::Buf(Arc::new(b))).ok_or_else(|| RtError::usage("a buffer was not made"))
                }
                ArgValue::Scalar(t, v) => Ok(Slot::Scalar(*t, *v)),
            })
            .collect()
    }

    /// Runs a program: one command buffer, its launches in order with barriers between them; the
    /// buffers are downloaded once at the end.
    pub(crate) fn run_program(&self, m: &Module, p: &Program, argv: &mut [ArgValue]) -> Result<(), RtError> {
        crate::program::check_args(p, argv)?;
        let mut st = self.lock()?;
        let r = self.run_program_locked(&mut st, m, p, argv);
        r.map_err(|e| self.recover(&mut st, e))
    }

    fn run_program_locked(
        &self,
        st: &mut State,
        m: &Module,
        p: &Program,
        argv: &mut [ArgValue],
    ) -> Result<(), RtError> {
        let prog = self.upload_args(argv).map_err(|e| e.context(format!("program @{}", p.name)))?;
        let status = match p.status {
            Some(_) => {
                let word = [ArgValue::Buffer(qd_mir::interp::Buffer { elem: ScalarType::U32, data: vec![0; 4] })];
                self.upload_args(&word).map_err(|e| e.context(format!("program @{}", p.name)))?.pop()
            }
            None => None,
        };
        let mut dispatches = Vec::with_capacity(p.launches.len());
        for (li, l) in p.launches.iter().enumerate() {
            let ctx = || format!("program @{}, launch {li}: kernel @{}", p.name, l.kernel);
            let f = m.kernel(&l.kernel).ok_or_else(|| RtError::usage(format!("{}: no such kernel", ctx())))?;
            let slots = launch_slots(f, &l.args, argv, &prog, status.as_ref()).map_err(|e| e.context(ctx()))?;
            let k = self.load(st, f).map_err(|e| e.context(format!("program @{}, launch {li}", p.name)))?;
            if let Some(d) = self.dispatch(&k, f, &slots, None).map_err(|e| e.context(ctx()))? {
                dispatches.push(d);
            }
        }
        self.run(dispatches).map_err(|e| e.context(format!("program @{}", p.name)))?;
        self.download(argv, &prog)?;
        if let Some(Slot::Buf(d)) = &status {
            let mut word = [0u8; 4];
            d.read(&mut word)?;
            crate::program::check_status(p, u32::from_le_bytes(word))?;
        }
        Ok(())
    }

    /// Copies every buffer back into its argument (one staging submission on a staged device).
    fn download(&self, argv: &mut [ArgValue], slots: &[Slot]) -> Result<(), RtError> {
        let mut items: Vec<(&Buf, &mut [u8])> = Vec::new();
        for (a, s) in argv.iter_mut().zip(slots) {
            if let (ArgValue::Buffer(b), Slot::Buf(d)) = (a, s) {
                items.push((d.as_ref(), b.data.as_mut_slice()));
            }
        }
        self.gpu.read_all(&mut items, self.timeout)
    }
}

/// The slots of one launch of a program, checked against the kernel's parameters.
fn launch_slots(
    f: &Function,
    largs: &[LaunchArg],
    argv: &[ArgValue],
    prog: &[Slot],
    status: Option<&Slot>,
) -> Result<Vec<Slot>, RtError> {
    if f.params.len() != largs.len() {
        return Err(RtError::usage(format!(
            "kernel expects {} argument(s), launch gives {}",
            f.params.len(),
            largs.len()
        )));
    }
    let mut slots = Vec::with_capacity(largs.len());
    for (i, (param, la)) in f.params.iter().zip(largs).enumerate() {
        let want = args::param_kind(param.ty, &param.name, i)?;
        let slot = match *la {
            LaunchArg::Param(n) => match (argv.get(usize::from(n)), prog.get(usize::from(n))) {
                (Some(ArgValue::Buffer(b)), Some(s @ Slot::Buf(_))) if want == ArgKind::Buffer(b.elem) => s.clone(),
                (Some(ArgValue::Scalar(t, v)), _) if want == ArgKind::Scalar(*t) => Slot::Scalar(*t, *v),
                (Some(a), _) => {
                    return Err(RtError::usage(format!("argument {i} (%{}) gets {}", param.name, args::describe(a))))
                }
                (None, _) => return Err(RtError::usage(format!("no program parameter {n}"))),
            },
            LaunchArg::Const(t, v) if want == ArgKind::Scalar(t) => Slot::Scalar(t, v),
            LaunchArg::Const(t, _) => {
                return Err(RtError::usage(format!("argument {i} (%{}) gets a {t} constant", param.name)))
            }
            LaunchArg::Status => match status {
                Some(s) if want == ArgKind::Buffer(ScalarType::U32) => s.clone(),
                _ => {
                    return Err(RtError::usage(format!(
                        "argument {i} (%{}) gets the status word, which is a u32 buffer of a program that has one",
                        param.name
                    )))
                }
            },
        };
        slots.push(slot);
    }
    Ok(slots)
}
