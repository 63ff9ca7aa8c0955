//! The `cuda` device: compiles kernels with `qd_isel_ptx` for the GPU's `sm_XY` (with the PTX
//! `.version` capped at the driver's), JIT-loads them with `cuModuleLoadDataEx` (the JIT's error
//! log goes into the error), caches them by (kernel text, target), and launches them on one
//! stream per device with the parameter ABI of [`crate::args`].
//!
//! A sticky error (an illegal address, a launch failure) leaves the CUDA context of the whole
//! process unusable (the driver documents that the process must be restarted), and a kernel that
//! does not finish within the timeout (`QD_CUDA_TIMEOUT_S`, default 60 s) cannot be stopped: in
//! both cases the device is marked unusable, its context is leaked (tearing it down would wait or
//! fail) and every later call on it fails at once with a message that says why.

pub(crate) mod driver;
#[cfg(test)]
mod tests;

use crate::args::{self, ArgKind};
use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind};
use driver::{CUdeviceptr, CUfunction, Context};
use qd_isel_ptx::{compile_kernel, PtxKernel, PtxOptions, PtxVersion, ReduceStrategy, Sm};
use qd_mir::{Function, ScalarType};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// A kernel loaded into the current context.
#[derive(Clone)]
pub(crate) struct Loaded {
    pub func: CUfunction,
    pub ptx: Arc<PtxKernel>,
}

// SAFETY: a `CUfunction` handle may be used from any thread with its context current; it is only
// used under the device's state lock.
unsafe impl Send for Loaded {}
// SAFETY: as above; the handle is never mutated through a shared reference.
unsafe impl Sync for Loaded {}

/// The mutable part of a device: the context and the module cache.
pub(crate) struct State {
    pub ctx: Context,
    cache: HashMap<(String, Sm, ReduceStrategy), Loaded>,
    /// Set when a kernel hung: nothing can run any more.
    poisoned: Option<String>,
}

/// What a device shares with its buffers. Buffers free themselves without taking the state lock
/// (a buffer may be dropped while its device holds it); none is freed once the device is unusable.
pub(crate) struct Shared {
    state: Mutex<State>,
    ctx: AtomicPtr<driver::CUctx_st>,
    poisoned: AtomicBool,
}

impl Shared {
    /// Locks the state and binds the context to this thread.
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, State>, RtError> {
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = &st.poisoned {
            return Err(RtError::unavailable(format!("the cuda device is unusable: {why}")));
        }
        st.ctx.bind()?;
        Ok(st)
    }
}

/// A CUDA GPU.
pub(crate) struct CudaDevice {
    pub shared: Arc<Shared>,
    pub sm: Sm,
    pub sms: u32,
    pub max_version: PtxVersion,
    pub reduce: ReduceStrategy,
    timeout: Duration,
}

/// A buffer in device memory.
pub(crate) struct CudaBuffer {
    pub ptr: CUdeviceptr,
    pub bytes: usize,
    shared: Arc<Shared>,
}

impl CudaBuffer {
    /// Whether the buffer was allocated by the device that shares `shared`.
    pub(crate) fn is_of(&self, shared: &Arc<Shared>) -> bool {
        Arc::ptr_eq(&self.shared, shared)
    }
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        let sh = &self.shared;
        if !sh.poisoned.load(Ordering::SeqCst) {
            driver::free(sh.ctx.load(Ordering::SeqCst), self.ptr);
        }
    }
}

/// The number of CUDA devices, or why there are none.
pub(crate) fn count() -> Result<usize, RtError> {
    driver::device_count()
}

/// Opens CUDA device `ordinal` and describes it.
pub(crate) fn open(ordinal: usize) -> Result<(CudaDevice, DeviceInfo), RtError> {
    driver::init()?;
    let n = driver::device_count()?;
    if ordinal >= n {
        return Err(RtError::unavailable(format!(
            "no CUDA device {ordinal} (the driver reports {n} device{})",
            if n == 1 { "" } else { "s" }
        )));
    }
    let dev = driver::device(ordinal)?;
    let name = driver::device_name(dev)?;
    let (major, minor, sms, _optin) = driver::device_props(dev)?;
    let driver_version = driver::driver_version()?;
    let sm = Sm::from_compute_capability(major, minor).ok_or_else(|| {
        RtError::unavailable(format!(
            "CUDA device {ordinal} ({name}) has compute capability {major}.{minor}; qd needs 7.0 or newer"
        ))
    })?;
    let ctx = Context::new(dev)?;
    let timeout = std::env::var("QD_CUDA_TIMEOUT_S").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60);
    let detail = format!(
        "{}, compute capability {major}.{minor}, driver {}.{}, {sms} SMs",
        sm.name(),
        driver_version / 1000,
        (driver_version % 1000) / 10
    );
    let info = DeviceInfo { kind: DeviceKind::Cuda, ordinal, name, subgroup_width: 32, detail, forward_progress: true };
    let d = CudaDevice {
        shared: Arc::new(Shared {
            ctx: AtomicPtr::new(ctx.ctx),
            state: Mutex::new(State { ctx, cache: HashMap::new(), poisoned: None }),
            poisoned: AtomicBool::new(false),
        }),
        sm,
        sms,
        max_version: PtxVersion::from_driver_version(driver_version),
        reduce: ReduceStrategy::Auto,
        timeout: Duration::from_secs(timeout),
    };
    Ok((d, info))
}

/// A kernel argument on the device: a buffer's pointer or a scalar.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Ptr(CUdeviceptr),
    Scalar(ScalarType, u64),
}

impl CudaDevice {
    /// The compile options for this device.
    pub(crate) fn options(&self) -> PtxOptions {
        PtxOptions { max_version: Some(self.max_version), reduce: self.reduce, ..PtxOptions::new(self.sm) }
    }

    /// Compiles (or finds in the cache) and loads a kernel.
    pub(crate) fn load(&self, st: &mut State, f: &Function) -> Result<Loaded, RtError> {
        let key = (qd_mir::text::print_function(f), self.sm, self.reduce);
        if let Some(l) = st.cache.get(&key) {
            return Ok(l.clone());
        }
        let k = compile_kernel(f, &self.options())
            .map_err(|e| RtError::compile(&e).context(format!("kernel @{}", f.name)))?;
        let module = driver::load_ptx(&k.ptx).map_err(|e| e.context(format!("kernel @{} ({})", f.name, k.target)))?;
        let func = driver::function(module, &k.name).map_err(|e| e.context(format!("kernel @{}", f.name)))?;
        if k.dynamic_shared_bytes > 0 {
            driver::set_max_dynamic_shared(func, k.dynamic_shared_bytes)
                .map_err(|e| e.context(format!("kernel @{}", f.name)))?;
        }
        let l = Loaded { func, ptx: Arc::new(k) };
        st.cache.insert(key, l.clone());
        Ok(l)
    }

    /// Allocates a device buffer and copies `data` into it.
    pub(crate) fn upload(&self, _st: &State, data: &[u8]) -> Result<CudaBuffer, RtError> {
        let ptr = driver::alloc(data.len())?;
        let b = CudaBuffer { ptr, bytes: data.len(), shared: self.shared.clone() };
        driver::upload(ptr, data)?;
        Ok(b)
    }

    /// Copies `data` into the start of a device buffer (at most its size).
    pub(crate) fn write(&self, _st: &State, b: &CudaBuffer, data: &[u8]) -> Result<(), RtError> {
        let n = data.len().min(b.bytes);
        driver::upload(b.ptr, &data[..n])
    }

    /// Copies a device buffer back.
    pub(crate) fn download(&self, _st: &State, b: &CudaBuffer, out: &mut [u8]) -> Result<(), RtError> {
        let n = out.len().min(b.bytes);
        driver::download(&mut out[..n], b.ptr)
    }

    /// Launches a loaded kernel (asynchronously, on the device's stream). A grid with a zero
    /// dimension launches nothing.
    pub(crate) fn launch(&self, st: &State, k: &Loaded, slots: &[Slot], grid: [u32; 3]) -> Result<(), RtError> {
        if args::is_empty_grid(grid) {
            return Ok(());
        }
        let mut params: Vec<u64> = slots
            .iter()
            .map(|s| match *s {
                Slot::Ptr(p) => p,
                Slot::Scalar(t, bits) => args::scalar_slot(t, bits),
            })
            .collect();
        driver::launch(k.func, grid, k.ptx.block, k.ptx.dynamic_shared_bytes, st.ctx.stream, &mut params)
            .map_err(|e| e.context(format!("kernel @{} (grid {grid:?}, block {:?})", k.ptx.name, k.ptx.block)))
    }

    /// Waits for the stream.
    pub(crate) fn sync(&self, st: &State) -> Result<(), RtError> {
        st.ctx.sync(self.timeout)
    }

    /// After an error: a sticky error or a timeout marks the device unusable.
    pub(crate) fn recover(&self, st: &mut State, e: RtError) -> RtError {
        if e.kind != crate::RtErrorKind::Timeout && !driver::is_sticky(&e) {
            return e;
        }
        let why = format!(
            "an earlier launch failed ({}); the CUDA context of this process cannot be used again, restart the process",
            e.message
        );
        st.poisoned = Some(why);
        st.cache.clear();
        self.shared.poisoned.store(true, Ordering::SeqCst);
        st.ctx.leak();
        RtError { message: format!("{} (the CUDA context of this process is now unusable)", e.message), ..e }
    }

    /// Runs one kernel: uploads the buffers, launches, waits, downloads the buffers in place.
    pub(crate) fn run_kernel(
        &self,
        f: &Function,
        argv: &mut [qd_mir::interp::ArgValue],
        grid_override: Option<[u32; 3]>,
    ) -> Result<(), RtError> {
        args::check_kernel_args(f, argv).map_err(|e| e.context(format!("kernel @{}", f.name)))?;
        let mut st = self.shared.lock()?;
        let r = self.run_kernel_locked(&mut st, f, argv, grid_override);
        r.map_err(|e| self.recover(&mut st, e))
    }

    fn run_kernel_locked(
        &self,
        st: &mut State,
        f: &Function,
        argv: &mut [qd_mir::interp::ArgValue],
        grid_override: Option<[u32; 3]>,
    ) -> Result<(), RtError> {
        use qd_mir::interp::ArgValue;
        let k = self.load(st, f)?;
        let mut bufs: Vec<Option<CudaBuffer>> = Vec::with_capacity(argv.len());
        let mut slots = Vec::with_capacity(argv.len());
        for a in argv.iter() {
            match a {
                ArgValue::Buffer(b) => {
                    let d = self.upload(st, &b.data)?;
                    slots.push(Slot::Ptr(d.ptr));
                    bufs.push(Some(d));
                }
                ArgValue::Scalar(t, v) => {
                    slots.push(Slot::Scalar(*t, *v));
                    bufs.push(None);
                }
            }
        }
        let grid = args::grid(f, grid_override, |i| scalar_of(&slots, i), self.sms)
            .map_err(|e| e.context(format!("kernel @{}", f.name)))?;
        self.launch(st, &k, &slots, grid)?;
        self.sync(st).map_err(|e| e.context(format!("kernel @{} (grid {grid:?}, block {:?})", f.name, k.ptx.block)))?;
        for (a, d) in argv.iter_mut().zip(&bufs) {
            if let (ArgValue::Buffer(b), Some(d)) = (a, d) {
                self.download(st, d, &mut b.data)?;
            }
        }
        Ok(())
    }

    /// Runs a program: its buffers stay on the device across the launches (one stream, in order);
    /// they are downloaded once at the end.
    pub(crate) fn run_program(
        &self,
        m: &qd_mir::Module,
        p: &qd_mir::Program,
        argv: &mut [qd_mir::interp::ArgValue],
    ) -> Result<(), RtError> {
        crate::program::check_args(p, argv)?;
        let mut st = self.shared.lock()?;
        let r = self.run_program_locked(&mut st, m, p, argv);
        r.map_err(|e| self.recover(&mut st, e))
    }

    fn run_program_locked(
        &self,
        st: &mut State,
        m: &qd_mir::Module,
        p: &qd_mir::Program,
        argv: &mut [qd_mir::interp::ArgValue],
    ) -> Result<(), RtError> {
        use qd_mir::interp::ArgValue;
        use qd_mir::LaunchArg;
        let mut bufs: Vec<Option<CudaBuffer>> = Vec::with_capacity(argv.len());
        for a in argv.iter() {
            bufs.push(match a {
                ArgValue::Buffer(b) => Some(self.upload(st, &b.data)?),
                ArgValue::Scalar(..) => None,
            });
        }
        let status = match p.status {
            Some(_) => Some(self.upload(st, &[0u8; 4])?),
            None => None,
        };
        for (li, l) in p.launches.iter().enumerate() {
            let ctx = || format!("program @{}, launch {li}: kernel @{}", p.name, l.kernel);
            let f = m.kernel(&l.kernel).ok_or_else(|| RtError::usage(format!("{}: no such kernel", ctx())))?;
            if f.params.len() != l.args.len() {
                return Err(RtError::usage(format!(
                    "{}: kernel expects {} argument(s), launch gives {}",
                    ctx(),
                    f.params.len(),
                    l.args.len()
                )));
            }
            let mut slots = Vec::with_capacity(l.args.len());
            for (i, (param, la)) in f.params.iter().zip(&l.args).enumerate() {
                let want = args::param_kind(param.ty, &param.name, i).map_err(|e| e.context(ctx()))?;
                let slot = match *la {
                    LaunchArg::Param(n) => match (&argv.get(usize::from(n)), bufs.get(usize::from(n))) {
                        (Some(ArgValue::Buffer(b)), Some(Some(d))) if want == ArgKind::Buffer(b.elem) => {
                            Slot::Ptr(d.ptr)
                        }
                        (Some(ArgValue::Scalar(t, v)), _) if want == ArgKind::Scalar(*t) => Slot::Scalar(*t, *v),
                        (Some(a), _) => {
                            return Err(RtError::usage(format!(
                                "{}: argument {i} (%{}) gets {}",
                                ctx(),
                                param.name,
                                args::describe(a)
                            )))
                        }
                        (None, _) => return Err(RtError::usage(format!("{}: no program parameter {n}", ctx()))),
                    },
                    LaunchArg::Const(t, v) if want == ArgKind::Scalar(t) => Slot::Scalar(t, v),
                    LaunchArg::Const(t, _) => {
                        return Err(RtError::usage(format!(
                            "{}: argument {i} (%{}) gets a {t} constant",
                            ctx(),
                            param.name
                        )))
                    }
                    LaunchArg::Status => match &status {
                        Some(d) if want == ArgKind::Buffer(ScalarType::U32) => Slot::Ptr(d.ptr),
                        _ => {
                            return Err(RtError::usage(format!(
                                "{}: argument {i} (%{}) gets the status word, which is a u32 buffer of a program that has one",
                                ctx(),
                                param.name
                            )))
                        }
                    },
                };
                slots.push(slot);
            }
            let k = self.load(st, f).map_err(|e| e.context(format!("program @{}, launch {li}", p.name)))?;
            let grid = args::grid(f, None, |i| scalar_of(&slots, i), self.sms).map_err(|e| e.context(ctx()))?;
            self.launch(st, &k, &slots, grid).map_err(|e| e.context(format!("program @{}, launch {li}", p.name)))?;
        }
        self.sync(st).map_err(|e| e.context(format!("program @{}", p.name)))?;
        for (a, d) in argv.iter_mut().zip(&bufs) {
            if let (ArgValue::Buffer(b), Some(d)) = (a, d) {
                self.download(st, d, &mut b.data)?;
            }
        }
        if let Some(d) = &status {
            let mut word = [0u8; 4];
            self.download(st, d, &mut word)?;
            crate::program::check_status(p, u32::from_le_bytes(word))?;
        }
        Ok(())
    }
}

fn scalar_of(slots: &[Slot], i: usize) -> Option<(ScalarType, u64)> {
    match slots.get(i) {
        Some(Slot::Scalar(t, v)) => Some((*t, *v)),
        _ => None,
    }
}
