//! Thin checked wrappers over the CUDA driver API calls the `cuda` device uses (through cudarc's
//! raw `sys` bindings, loaded with `dlopen` at first use). Every call's `CUresult` becomes an
//! [`RtError`] naming the call and the code. The library is probed with
//! `is_culib_present()` before any other cudarc call: cudarc panics when it cannot load libcuda.
//!
//! All `unsafe` of the CUDA device lives here; each block says why it is sound.

use crate::error::RtError;
use cudarc::driver::sys;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub(crate) use sys::{CUcontext, CUctx_st, CUdevice, CUdeviceptr, CUevent, CUfunction, CUmodule, CUstream};

/// Turns a `CUresult` into a result naming the call.
pub(crate) fn check(call: &'static str, r: sys::CUresult) -> Result<(), RtError> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(RtError::driver(call, r as u32, format!("{r:?}")))
    }
}

/// Whether an error code leaves the context unusable (every later call fails; the driver
/// documents that the process must be restarted).
pub(crate) fn is_sticky(e: &RtError) -> bool {
    use crate::error::RtErrorKind;
    match &e.kind {
        RtErrorKind::Driver { name, .. } => matches!(
            name.as_str(),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
                | "CUDA_ERROR_LAUNCH_FAILED"
                | "CUDA_ERROR_HARDWARE_STACK_ERROR"
                | "CUDA_ERROR_ILLEGAL_INSTRUCTION"
                | "CUDA_ERROR_MISALIGNED_ADDRESS"
                | "CUDA_ERROR_INVALID_ADDRESS_SPACE"
                | "CUDA_ERROR_INVALID_PC"
                | "CUDA_ERROR_ASSERT"
                | "CUDA_ERROR_LAUNCH_TIMEOUT"
        ),
        RtErrorKind::Timeout => true,
        _ => false,
    }
}

/// Probes for libcuda and runs `cuInit(0)` once per process; later calls return the same result.
pub(crate) fn init() -> Result<(), RtError> {
    static INIT: OnceLock<Result<(), RtError>> = OnceLock::new();
    INIT.get_or_init(|| {
        // SAFETY: `is_culib_present` only tries to `dlopen` the candidate library names and drops
        // the handles; it touches no other state.
        if !unsafe { sys::is_culib_present() } {
            return Err(RtError::unavailable("no CUDA driver (libcuda.so) found"));
        }
        // SAFETY: the library is present (checked above), so the symbol lookup cannot panic;
        // `cuInit` takes flags that must be 0 and may be called any number of times.
        check("cuInit", unsafe { sys::cuInit(0) })
    })
    .clone()
}

/// `cuDriverGetVersion` (e.g. 12080).
pub(crate) fn driver_version() -> Result<u32, RtError> {
    init()?;
    let mut v: c_int = 0;
    // SAFETY: the driver is initialised; `v` is a valid out pointer.
    check("cuDriverGetVersion", unsafe { sys::cuDriverGetVersion(&mut v) })?;
    Ok(v.max(0) as u32)
}

/// `cuDeviceGetCount`.
pub(crate) fn device_count() -> Result<usize, RtError> {
    init()?;
    let mut n: c_int = 0;
    // SAFETY: the driver is initialised; `n` is a valid out pointer.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n.max(0) as usize)
}

/// `cuDeviceGet`.
pub(crate) fn device(ordinal: usize) -> Result<CUdevice, RtError> {
    init()?;
    let ord =
        c_int::try_from(ordinal).map_err(|_| RtError::usage(format!("cuda ordinal {ordinal} is out of range")))?;
    let mut d: CUdevice = 0;
    // SAFETY: the driver is initialised; `d` is a valid out pointer.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut d, ord) })?;
    Ok(d)
}

/// `cuDeviceGetName`.
pub(crate) fn device_name(d: CUdevice) -> Result<String, RtError> {
    let mut buf: [c_char; 256] = [0; 256];
    // SAFETY: `buf` holds 256 chars and the length passed says so; the driver NUL-terminates.
    check("cuDeviceGetName", unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, d) })?;
    // SAFETY: the driver wrote a NUL-terminated string into `buf` (its last byte stays 0 at worst
    // because the length passed bounds the write).
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) };
    Ok(s.to_string_lossy().into_owned())
}

/// `cuDeviceGetAttribute`.
pub(crate) fn attribute(d: CUdevice, attr: sys::CUdevice_attribute) -> Result<i32, RtError> {
    let mut v: c_int = 0;
    // SAFETY: `d` came from `cuDeviceGet`; `v` is a valid out pointer.
    check("cuDeviceGetAttribute", unsafe { sys::cuDeviceGetAttribute(&mut v, attr, d) })?;
    Ok(v)
}

/// The compute capability, SM count and opt-in shared memory per block of a device.
pub(crate) fn device_props(d: CUdevice) -> Result<(u32, u32, u32, u32), RtError> {
    use sys::CUdevice_attribute as A;
    let major = attribute(d, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(d, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sms = attribute(d, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let optin = attribute(d, A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
    Ok((major.max(0) as u32, minor.max(0) as u32, sms.max(0) as u32, optin.max(0) as u32))
}

/// A retained primary context and the stream the device runs on.
pub(crate) struct Context {
    pub dev: CUdevice,
    pub ctx: CUcontext,
    pub stream: CUstream,
    leaked: bool,
}

// SAFETY: CUDA contexts and streams are usable from any thread (the driver API is thread-safe);
// every use first makes the context current on the calling thread (`Context::bind`), and the
// device serialises its own calls behind a mutex.
unsafe impl Send for Context {}

impl Context {
    /// Retains the device's primary context, makes it current and creates a stream.
    pub(crate) fn new(dev: CUdevice) -> Result<Context, RtError> {
        let mut ctx: CUcontext = std::ptr::null_mut();
        // SAFETY: `dev` came from `cuDeviceGet`; `ctx` is a valid out pointer.
        check("cuDevicePrimaryCtxRetain", unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, dev) })?;
        let mut c = Context { dev, ctx, stream: std::ptr::null_mut(), leaked: false };
        c.bind()?;
        let mut stream: CUstream = std::ptr::null_mut();
        // SAFETY: the context is current; `stream` is a valid out pointer; flags 0 = default.
        check("cuStreamCreate", unsafe { sys::cuStreamCreate(&mut stream, 0) })?;
        c.stream = stream;
        Ok(c)
    }

    /// Makes the context current on this thread.
    pub(crate) fn bind(&self) -> Result<(), RtError> {
        // SAFETY: `ctx` is a primary context this object retained and has not released.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.ctx) })
    }

    /// Waits for the stream, polling, for at most `timeout`.
    pub(crate) fn sync(&self, timeout: Duration) -> Result<(), RtError> {
        let start = Instant::now();
        let mut nap = Duration::from_micros(20);
        loop {
            // SAFETY: the stream belongs to this context, which is current (callers bind first).
            let r = unsafe { sys::cuStreamQuery(self.stream) };
            if r != sys::CUresult::CUDA_ERROR_NOT_READY {
                return check("cuStreamQuery", r);
            }
            if start.elapsed() > timeout {
                return Err(RtError::timeout(format!(
                    "the kernel did not finish within {} s (set QD_CUDA_TIMEOUT_S to wait longer)",
                    timeout.as_secs()
                )));
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(2));
        }
    }
}

impl Context {
    /// Never releases the context (a kernel still runs in it: teardown would wait for it).
    pub(crate) fn leak(&mut self) {
        self.leaked = true;
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.leaked {
            return;
        }
        // SAFETY: the stream and the retained context are this object's; errors during teardown
        // are ignored (nothing can be done about them).
        unsafe {
            if self.bind().is_ok() && !self.stream.is_null() {
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.dev);
        }
    }
}

/// `cuMemAlloc` of at least one byte.
pub(crate) fn alloc(bytes: usize) -> Result<CUdeviceptr, RtError> {
    let mut p: CUdeviceptr = 0;
    // SAFETY: a context is current (callers bind first); `p` is a valid out pointer.
    check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut p, bytes.max(16)) })?;
    Ok(p)
}

/// `cuMemFree` in context `ctx`; errors ignored (used from destructors).
pub(crate) fn free(ctx: CUcontext, p: CUdeviceptr) {
    // SAFETY: `ctx` is the live context `p` was allocated in (the caller checks that the device is
    // still usable) and `p` is freed once; both calls are thread-safe.
    unsafe {
        if sys::cuCtxSetCurrent(ctx) == sys::CUresult::CUDA_SUCCESS {
            let _ = sys::cuMemFree_v2(p);
        }
    }
}

/// `cuMemcpyHtoD` of a whole host slice.
pub(crate) fn upload(dst: CUdeviceptr, src: &[u8]) -> Result<(), RtError> {
    if src.is_empty() {
        return Ok(());
    }
    // SAFETY: `dst` is an allocation of at least `src.len()` bytes (the caller allocated it for
    // this buffer); `src` is a valid host slice.
    check("cuMemcpyHtoD", unsafe { sys::cuMemcpyHtoD_v2(dst, src.as_ptr().cast::<c_void>(), src.len()) })
}

/// `cuMemcpyDtoH` into a whole host slice.
pub(crate) fn download(dst: &mut [u8], src: CUdeviceptr) -> Result<(), RtError> {
    if dst.is_empty() {
        return Ok(());
    }
    // SAFETY: `src` is an allocation of at least `dst.len()` bytes; `dst` is a valid, exclusively
    // borrowed host slice.
    check("cuMemcpyDtoH", unsafe { sys::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast::<c_void>(), src, dst.len()) })
}

/// Loads PTX text with `cuModuleLoadDataEx`, asking for the JIT's error log so that a rejected
/// module's error carries the log.
pub(crate) fn load_ptx(ptx: &str) -> Result<CUmodule, RtError> {
    let mut text = ptx.as_bytes().to_vec();
    text.push(0);
    const LOG: usize = 16 * 1024;
    let mut log = vec![0u8; LOG];
    let mut opts = [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast::<c_void>(), LOG as *mut c_void];
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: `text` is NUL-terminated PTX; the options arrays have 2 entries as passed; the log
    // buffer has the size given in the second option value (passed by value as a pointer-sized
    // integer, as the driver API specifies); a context is current.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            text.as_ptr().cast::<c_void>(),
            opts.len() as c_uint,
            opts.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    check("cuModuleLoadDataEx", r).map_err(|e| {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        let text = String::from_utf8_lossy(&log[..end]).into_owned();
        e.with_log(format!("JIT error log:\n{text}"))
    })?;
    Ok(module)
}

/// `cuModuleGetFunction`.
pub(crate) fn function(m: CUmodule, name: &str) -> Result<CUfunction, RtError> {
    let cname = std::ffi::CString::new(name).map_err(|_| RtError::usage(format!("kernel name {name:?} has a NUL")))?;
    let mut f: CUfunction = std::ptr::null_mut();
    // SAFETY: `m` is a loaded module; `cname` is NUL-terminated; `f` is a valid out pointer.
    check("cuModuleGetFunction", unsafe { sys::cuModuleGetFunction(&mut f, m, cname.as_ptr()) })?;
    Ok(f)
}

/// Sets `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
pub(crate) fn set_max_dynamic_shared(f: CUfunction, bytes: u32) -> Result<(), RtError> {
    let v = c_int::try_from(bytes).map_err(|_| RtError::usage(format!("{bytes} bytes of dynamic shared memory")))?;
    // SAFETY: `f` came from `cuModuleGetFunction` of a live module.
    check("cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)", unsafe {
        sys::cuFuncSetAttribute(f, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v)
    })
}

/// `cuLaunchKernel` with one 8-byte slot per parameter (scalars narrower than 8 bytes sit in the
/// low bytes of their slot: the host is little-endian).
pub(crate) fn launch(
    f: CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: CUstream,
    params: &mut [u64],
) -> Result<(), RtError> {
    const _: () = assert!(cfg!(target_endian = "little"), "the kernel parameter slots assume a little-endian host");
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| (p as *mut u64).cast::<c_void>()).collect();
    // SAFETY: `f` is a live function whose parameter list matches `params` in count and sizes
    // (the caller packs them from the same MIR signature the PTX was compiled from); each pointer
    // addresses an 8-byte slot that outlives the call (the driver copies the values before
    // returning); the device pointers inside were allocated in this context and stay alive until
    // the caller synchronises the stream.
    let r = unsafe {
        sys::cuLaunchKernel(
            f,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shared,
            stream,
            ptrs.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    check("cuLaunchKernel", r)
}

/// A CUDA event (timing enabled), destroyed on drop.
pub(crate) struct Event(CUevent);

// SAFETY: an event handle may be used from any thread whose current context is the one it was
// created in; the device binds its context before every call, behind its mutex.
unsafe impl Send for Event {}

impl Event {
    /// Creates an event in the current context.
    pub(crate) fn new() -> Result<Event, RtError> {
        let mut e: CUevent = std::ptr::null_mut();
        // SAFETY: a context is current (callers bind first); `e` is a valid out pointer; flags 0
        // = a default event, which records timestamps.
        check("cuEventCreate", unsafe { sys::cuEventCreate(&mut e, 0) })?;
        Ok(Event(e))
    }

    /// Records the event on `stream` (it completes when the work enqueued before it has).
    pub(crate) fn record(&self, stream: CUstream) -> Result<(), RtError> {
        // SAFETY: the event and the stream belong to the current context.
        check("cuEventRecord", unsafe { sys::cuEventRecord(self.0, stream) })
    }

    /// Milliseconds of GPU time from `start` to `self`, once `self` has completed (waits for it).
    pub(crate) fn elapsed_ms_since(&self, start: &Event) -> Result<f32, RtError> {
        // SAFETY: both events were created and recorded in the current context.
        check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(self.0) })?;
        let mut ms = 0f32;
        // SAFETY: `ms` is a valid out pointer; both events have completed.
        check("cuEventElapsedTime", unsafe { sys::cuEventElapsedTime(&mut ms, start.0, self.0) })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: the event is this object's; an error at teardown cannot be acted on.
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.0);
        }
    }
}
