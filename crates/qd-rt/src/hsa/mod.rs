//! The `hsa` device: an AMD GPU driven through the HSA runtime (ROCr), for AMDGCN code objects
//! written by `qd_amdgcn_isa::code_object`.
//!
//! [`HsaDevice::open`] initialises the runtime (`hsa_init`), picks the ordinal-th GPU agent, its
//! coarse-grained global memory pool (device buffers), the CPU agent's kernarg-init pool (kernel
//! arguments) and fine-grained pool (staging for copies), and creates one AQL queue and one
//! completion signal. [`HsaDevice::load_kernel`] loads a code object into an executable and looks
//! up the kernel descriptor symbol `NAME.kd`; [`HsaDevice::dispatch`] writes a kernel-dispatch
//! packet (grid size in work-items, barrier bit, system-scope acquire and release fences), rings
//! the doorbell and waits on the completion signal.
//!
//! A machine without the library gets "no HSA runtime (libhsa-runtime64.so) found"; a failing
//! `hsa_init` (no `/dev/kfd`) or no GPU agent is kind `Unavailable` naming the call and its
//! status; every later failing call is a driver error naming the call. A kernel that does not
//! finish within the timeout (`QD_HSA_TIMEOUT_S`, default 60 s) or a queue error reported by the
//! runtime poisons the device: nothing is freed any more (the GPU may still use it) and every
//! later call fails at once saying why.
//!
//! [`HsaDevice::list`] describes the GPU agents without opening a queue (for
//! `Device::available`). [`device`] puts all this behind the public `Device` API (`hsa`,
//! `hsa:N`): the target from the agent's ISA, compiled kernels, launches.
//!
//! All `unsafe` of the device is here and in [`ffi`]; each block says why it is sound.

pub(crate) mod device;
pub(crate) mod ffi;
#[cfg(test)]
mod tests;

use crate::error::RtError;
use ffi::{Agent, Api, DispatchPacket, Executable, Pool, Queue, Signal, Status};
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What an HSA GPU agent is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HsaInfo {
    /// The ordinal among the GPU agents.
    pub ordinal: usize,
    /// The agent name, the architecture (`gfx942`).
    pub name: String,
    /// The marketing name (`AMD Instinct MI300X`), empty when the runtime gives none.
    pub product: String,
    /// The first ISA of the agent (`amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`).
    pub isa: String,
    /// Lanes per wavefront (64, or 32 on RDNA).
    pub wavefront_size: u32,
    /// The largest workgroup in work-items.
    pub workgroup_max_size: u32,
    /// Compute units.
    pub compute_units: u32,
    /// The packets of the device's queue.
    pub queue_size: u32,
}

/// The largest LDS allocation of one workgroup on gfx9 / gfx11 (bytes).
pub(crate) const MAX_GROUP_SEGMENT: u32 = 64 * 1024;

/// What the device's buffers, kernels and dispatches share.
struct Inner {
    api: Arc<Api>,
    gpu: Agent,
    gpu_pool: Pool,
    kernarg_pool: Pool,
    staging_pool: Pool,
    queue: *mut Queue,
    signal: Signal,
    /// Written by the runtime's queue-error callback (0 = none): a `Box` turned into a pointer,
    /// freed after the queue is destroyed, and never when poisoned (the queue then lives on).
    queue_error: *mut AtomicU32,
    /// One dispatch (one packet, one signal) at a time.
    dispatch_lock: Mutex<()>,
    /// Why the device is unusable (a hung kernel, a queue error).
    poisoned: Mutex<Option<String>>,
    poisoned_flag: AtomicBool,
    workgroup_max_size: u32,
    timeout: Duration,
}

// SAFETY: the HSA runtime is thread-safe: every call may come from any thread. The only raw
// pointer, `queue`, is the runtime's queue object, read through its API (and the ring written
// under `dispatch_lock`); it is destroyed once, in `Drop`, when no other reference exists.
unsafe impl Send for Inner {}
// SAFETY: as above; shared references only make thread-safe runtime calls, and the packet ring is
// written only under `dispatch_lock`.
unsafe impl Sync for Inner {}

impl Inner {
    fn check_usable(&self) -> Result<(), RtError> {
        if !self.poisoned_flag.load(Ordering::SeqCst) {
            return Ok(());
        }
        let why = self.poisoned.lock().unwrap_or_else(|p| p.into_inner()).clone().unwrap_or_default();
        Err(RtError::unavailable(format!("the hsa device is unusable: {why}")))
    }

    fn poison(&self, why: String) {
        *self.poisoned.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        self.poisoned_flag.store(true, Ordering::SeqCst);
    }

    /// `hsa_amd_memory_pool_allocate` of at least `bytes` (at least 16) from `pool`, made
    /// accessible to the GPU agent when `share` is set.
    fn allocate(&self, pool: Pool, bytes: usize, share: bool) -> Result<*mut c_void, RtError> {
        let api = &self.api;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: `pool` came from this runtime's pool iteration; `p` is a valid out pointer.
        api.check("hsa_amd_memory_pool_allocate", unsafe {
            (api.hsa_amd_memory_pool_allocate)(pool, bytes.max(16), 0, &mut p)
        })?;
        if share {
            // SAFETY: `p` was just allocated; one agent is passed with a null flags array, as the
            // API allows.
            let r = unsafe { (api.hsa_amd_agents_allow_access)(1, &self.gpu, std::ptr::null(), p) };
            if let Err(e) = api.check("hsa_amd_agents_allow_access", r) {
                // SAFETY: `p` was allocated above and is freed once.
                unsafe { (api.hsa_amd_memory_pool_free)(p) };
                return Err(e);
            }
        }
        Ok(p)
    }

    /// Frees a pool allocation unless the device is poisoned (the GPU may still use it).
    fn free(&self, p: *mut c_void) {
        if !self.poisoned_flag.load(Ordering::SeqCst) {
            // SAFETY: `p` came from `hsa_amd_memory_pool_allocate` and its owner frees it once.
            unsafe { (self.api.hsa_amd_memory_pool_free)(p) };
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.poisoned_flag.load(Ordering::SeqCst) {
            return;
        }
        // SAFETY: every buffer, kernel and dispatch holds an `Arc<Inner>`, so none is left; the
        // queue and signal are this object's and are destroyed once; the queue-error word came
        // from `Box::into_raw` and no callback can run once its queue is gone; then the runtime's
        // reference count taken in `open` is dropped.
        unsafe {
            (self.api.hsa_signal_destroy)(self.signal);
            (self.api.hsa_queue_destroy)(self.queue);
            drop(Box::from_raw(self.queue_error));
            (self.api.hsa_shut_down)();
        }
    }
}

/// An AMD GPU agent with its queue.
pub(crate) struct HsaDevice {
    inner: Arc<Inner>,
}

/// A buffer in the GPU's coarse-grained global memory.
pub(crate) struct HsaBuffer {
    inner: Arc<Inner>,
    ptr: *mut c_void,
    bytes: usize,
}

// SAFETY: the buffer is device memory named by an address; it is only read or written through
// runtime copies, which are thread-safe.
unsafe impl Send for HsaBuffer {}
// SAFETY: as above; `&HsaBuffer` gives only the address and the size.
unsafe impl Sync for HsaBuffer {}

impl HsaBuffer {
    /// The device address, as a kernel argument.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.ptr as u64
    }

    /// Whether `dev` allocated this buffer.
    pub(crate) fn is_of(&self, dev: &HsaDevice) -> bool {
        Arc::ptr_eq(&self.inner, &dev.inner)
    }
}

impl Drop for HsaBuffer {
    fn drop(&mut self) {
        self.inner.free(self.ptr);
    }
}

/// A loaded, frozen executable; destroyed when its last kernel goes.
struct LoadedExecutable {
    inner: Arc<Inner>,
    exe: Executable,
}

impl Drop for LoadedExecutable {
    fn drop(&mut self) {
        if !self.inner.poisoned_flag.load(Ordering::SeqCst) {
            // SAFETY: the executable is this object's and is destroyed once; no dispatch of it
            // runs (dispatches wait for completion while holding a kernel).
            unsafe { (self.inner.api.hsa_executable_destroy)(self.exe) };
        }
    }
}

/// A kernel of a loaded code object.
#[derive(Clone)]
pub(crate) struct HsaKernel {
    exe: Arc<LoadedExecutable>,
    /// What the dispatch packet needs.
    pub segments: KernelSegments,
}

/// A kernel's name and what its executable symbol says (`hsa_executable_symbol_get_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernelSegments {
    /// The kernel name (without `.kd`).
    pub name: String,
    /// `KERNEL_OBJECT`: the descriptor's address, as the packet wants it.
    pub kernel_object: u64,
    /// Bytes of the kernarg segment (explicit and hidden arguments).
    pub kernarg_segment_size: u32,
    /// Its alignment.
    pub kernarg_segment_align: u32,
    /// Static LDS bytes.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
}

impl HsaDevice {
    /// Opens the `ordinal`-th GPU agent of the HSA runtime and describes it.
    pub(crate) fn open(ordinal: usize) -> Result<(HsaDevice, HsaInfo), RtError> {
        Self::open_with(ffi::api()?, ordinal)
    }

    /// Opens with a given runtime library (tests load one by another name).
    pub(crate) fn open_with(api: Arc<Api>, ordinal: usize) -> Result<(HsaDevice, HsaInfo), RtError> {
        // SAFETY: `hsa_init` has no preconditions; it is reference counted, and a success is
        // matched by the `hsa_shut_down` of `Inner::drop` (or of `ShutDown` below on failure).
        api.check_unavailable("hsa_init", unsafe { (api.hsa_init)() })
            .map_err(|e| RtError::unavailable(format!("{} (no AMD GPU, or no access to /dev/kfd)", e.message)))?;
        let guard = ShutDown(Some(api.clone()));
        let (gpus, cpus) = gpu_and_cpu_agents(&api)?;
        if gpus.is_empty() {
            return Err(RtError::unavailable(format!(
                "hsa_iterate_agents found no GPU agent (the HSA runtime {} sees {} CPU agent{})",
                api.path,
                cpus.len(),
                if cpus.len() == 1 { "" } else { "s" }
            )));
        }
        let Some(&gpu) = gpus.get(ordinal) else {
            return Err(RtError::unavailable(format!(
                "no HSA GPU agent {ordinal} (the runtime reports {} GPU agent{})",
                gpus.len(),
                if gpus.len() == 1 { "" } else { "s" }
            )));
        };
        let info = describe(&api, gpu, ordinal)?;
        let gpu_pool = find_pool(&api, &[gpu], ffi::POOL_FLAG_COARSE_GRAINED)?.ok_or_else(|| {
            RtError::unavailable(format!("HSA GPU agent {ordinal} has no coarse-grained global pool"))
        })?;
        let kernarg_pool = find_pool(&api, &cpus, ffi::POOL_FLAG_KERNARG_INIT)?
            .or(find_pool(&api, &[gpu], ffi::POOL_FLAG_KERNARG_INIT)?)
            .ok_or_else(|| RtError::unavailable("the HSA runtime has no kernarg memory pool"))?;
        let staging_pool = find_pool(&api, &cpus, ffi::POOL_FLAG_FINE_GRAINED)?.unwrap_or(kernarg_pool);

        let queue_error = Box::into_raw(Box::new(AtomicU32::new(0)));
        let error_word = ErrorWord(queue_error);
        let mut queue: *mut Queue = std::ptr::null_mut();
        // SAFETY: `gpu` is a GPU agent; the size is a power of two no larger than the agent's
        // maximum; the callback only stores into the boxed atomic passed as `data`, which lives in
        // `Inner` and so outlives the queue (destroyed first in `Inner::drop`, or never when
        // poisoned, in which case the box is leaked with it below); `queue` is a valid out pointer.
        let r = unsafe {
            (api.hsa_queue_create)(
                gpu,
                info.queue_size,
                ffi::QUEUE_TYPE_MULTI,
                Some(queue_error_callback),
                queue_error.cast::<c_void>(),
                u32::MAX,
                u32::MAX,
                &mut queue,
            )
        };
        api.check("hsa_queue_create", r)?;
        let mut signal = Signal::default();
        // SAFETY: initial value 1, no consumer list (any agent may wait); `signal` is an out pointer.
        let r = unsafe { (api.hsa_signal_create)(1, 0, std::ptr::null(), &mut signal) };
        if let Err(e) = api.check("hsa_signal_create", r) {
            // SAFETY: the queue was created above and is destroyed once.
            unsafe { (api.hsa_queue_destroy)(queue) };
            return Err(e);
        }
        let timeout = std::env::var("QD_HSA_TIMEOUT_S").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60);
        let mut guard = guard;
        guard.0 = None; // `Inner::drop` shuts the runtime down from here on,
        std::mem::forget(error_word); // and frees the queue-error word.
        let inner = Inner {
            api,
            gpu,
            gpu_pool,
            kernarg_pool,
            staging_pool,
            queue,
            signal,
            queue_error,
            dispatch_lock: Mutex::new(()),
            poisoned: Mutex::new(None),
            poisoned_flag: AtomicBool::new(false),
            workgroup_max_size: info.workgroup_max_size,
            timeout: Duration::from_secs(timeout),
        };
        Ok((HsaDevice { inner: Arc::new(inner) }, info))
    }

    /// Describes every GPU agent of the runtime without opening a queue (`hsa_init`, the agents,
    /// `hsa_shut_down`): an empty list when the runtime sees no GPU; `Err` as [`HsaDevice::open`]
    /// when the library is missing or `hsa_init` fails.
    pub(crate) fn list() -> Result<Vec<HsaInfo>, RtError> {
        let api = ffi::api()?;
        // SAFETY: as in `open_with`; the reference is dropped by the guard below.
        api.check_unavailable("hsa_init", unsafe { (api.hsa_init)() })
            .map_err(|e| RtError::unavailable(format!("{} (no AMD GPU, or no access to /dev/kfd)", e.message)))?;
        let _guard = ShutDown(Some(api.clone()));
        let (gpus, _) = gpu_and_cpu_agents(&api)?;
        gpus.iter().enumerate().map(|(i, &g)| describe(&api, g, i)).collect()
    }

    /// Allocates `bytes` (at least 16) of device memory.
    pub(crate) fn alloc(&self, bytes: usize) -> Result<HsaBuffer, RtError> {
        let inner = &self.inner;
        inner.check_usable()?;
        let ptr = inner.allocate(inner.gpu_pool, bytes, false)?;
        Ok(HsaBuffer { inner: inner.clone(), ptr, bytes })
    }

    /// Copies `src` to the start of `dst` (through a host staging buffer the runtime owns).
    pub(crate) fn upload(&self, dst: &HsaBuffer, src: &[u8]) -> Result<(), RtError> {
        self.check_buffer(dst, src.len(), "upload")?;
        if src.is_empty() {
            return Ok(());
        }
        let staging = Staging::new(&self.inner, src.len())?;
        // SAFETY: the staging block holds `src.len()` host-accessible bytes; `src` is a valid slice
        // that does not overlap it.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), staging.ptr.cast::<u8>(), src.len()) };
        // SAFETY: both pointers are runtime allocations of at least `src.len()` bytes (checked
        // above), accessible to the GPU agent.
        let r = unsafe { (self.inner.api.hsa_memory_copy)(dst.ptr, staging.ptr, src.len()) };
        self.inner.api.check("hsa_memory_copy", r)
    }

    /// Copies the start of `src` into `dst`.
    pub(crate) fn download(&self, src: &HsaBuffer, dst: &mut [u8]) -> Result<(), RtError> {
        self.check_buffer(src, dst.len(), "download")?;
        if dst.is_empty() {
            return Ok(());
        }
        let staging = Staging::new(&self.inner, dst.len())?;
        // SAFETY: both pointers are runtime allocations of at least `dst.len()` bytes.
        let r = unsafe { (self.inner.api.hsa_memory_copy)(staging.ptr, src.ptr, dst.len()) };
        self.inner.api.check("hsa_memory_copy", r)?;
        // SAFETY: the copy above completed (hsa_memory_copy is synchronous) and filled the
        // staging block's first `dst.len()` bytes; `dst` is an exclusive slice not overlapping it.
        unsafe { std::ptr::copy_nonoverlapping(staging.ptr.cast::<u8>(), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn check_buffer(&self, b: &HsaBuffer, n: usize, what: &str) -> Result<(), RtError> {
        self.inner.check_usable()?;
        if !Arc::ptr_eq(&b.inner, &self.inner) {
            return Err(RtError::usage(format!("{what}: the buffer belongs to another hsa device")));
        }
        if n > b.bytes {
            return Err(RtError::usage(format!("{what} of {n} bytes into a buffer of {} bytes", b.bytes)));
        }
        Ok(())
    }

    /// Loads an AMDGCN code object (an HSA code object v5 ELF) and finds `kernel_name`'s
    /// descriptor symbol `kernel_name.kd`.
    pub(crate) fn load_kernel(&self, code_object: &[u8], kernel_name: &str) -> Result<HsaKernel, RtError> {
        let inner = &self.inner;
        inner.check_usable()?;
        let api = &inner.api;
        let sym_name = CString::new(format!("{kernel_name}.kd"))
            .map_err(|_| RtError::usage(format!("kernel name {kernel_name:?} has a NUL")))?;
        let mut reader = ffi::Reader::default();
        // SAFETY: the slice is valid for the call; the runtime copies what it needs into the
        // reader, which is destroyed below before the slice's borrow ends.
        let r = unsafe {
            (api.hsa_code_object_reader_create_from_memory)(code_object.as_ptr().cast(), code_object.len(), &mut reader)
        };
        api.check("hsa_code_object_reader_create_from_memory", r)?;
        let loaded = self.load_executable(reader, kernel_name);
        // SAFETY: the reader was created above and is destroyed once (the executable keeps its
        // own copy of the code once loaded).
        unsafe { (api.hsa_code_object_reader_destroy)(reader) };
        let exe = Arc::new(LoadedExecutable { inner: inner.clone(), exe: loaded? });

        let mut sym = ffi::ExecSymbol::default();
        // SAFETY: `exe` is frozen; the name is NUL-terminated; the agent pointer is valid.
        let r = unsafe { (api.hsa_executable_get_symbol_by_name)(exe.exe, sym_name.as_ptr(), &inner.gpu, &mut sym) };
        api.check("hsa_executable_get_symbol_by_name", r)
            .map_err(|e| e.context(format!("kernel symbol {kernel_name}.kd")))?;
        let mut kernel_object = 0u64;
        symbol_info(api, sym, ffi::SYMBOL_INFO_KERNEL_OBJECT, &mut kernel_object)?;
        let mut u32s = [0u32; 4];
        for (v, attr) in u32s.iter_mut().zip([
            ffi::SYMBOL_INFO_KERNARG_SEGMENT_SIZE,
            ffi::SYMBOL_INFO_KERNARG_SEGMENT_ALIGNMENT,
            ffi::SYMBOL_INFO_GROUP_SEGMENT_SIZE,
            ffi::SYMBOL_INFO_PRIVATE_SEGMENT_SIZE,
        ]) {
            symbol_info(api, sym, attr, v)?;
        }
        Ok(HsaKernel {
            exe,
            segments: KernelSegments {
                name: kernel_name.to_string(),
                kernel_object,
                kernarg_segment_size: u32s[0],
                kernarg_segment_align: u32s[1],
                group_segment_size: u32s[2],
                private_segment_size: u32s[3],
            },
        })
    }

    /// Creates an executable, loads the reader's code object for the GPU and freezes it.
    fn load_executable(&self, reader: ffi::Reader, kernel_name: &str) -> Result<Executable, RtError> {
        let api = &self.inner.api;
        let mut exe = Executable::default();
        // SAFETY: profile and rounding mode are valid enum values; no options; `exe` is an out
        // pointer.
        let r = unsafe {
            (api.hsa_executable_create_alt)(
                ffi::PROFILE_FULL,
                ffi::FLOAT_ROUNDING_MODE_DEFAULT,
                std::ptr::null(),
                &mut exe,
            )
        };
        api.check("hsa_executable_create_alt", r)?;
        let result = (|| {
            let mut loaded = ffi::LoadedCodeObject::default();
            // SAFETY: `exe` is unfrozen, `reader` valid, the agent is a GPU agent; no options.
            let r = unsafe {
                (api.hsa_executable_load_agent_code_object)(exe, self.inner.gpu, reader, std::ptr::null(), &mut loaded)
            };
            api.check("hsa_executable_load_agent_code_object", r)?;
            // SAFETY: `exe` holds the loaded code object; no options.
            api.check("hsa_executable_freeze", unsafe { (api.hsa_executable_freeze)(exe, std::ptr::null()) })?;
            let mut bad = 0u32;
            // SAFETY: `exe` is frozen; `bad` is an out pointer.
            api.check("hsa_executable_validate", unsafe { (api.hsa_executable_validate)(exe, &mut bad) })?;
            if bad != 0 {
                return Err(RtError::usage(format!(
                    "hsa_executable_validate rejects the code object of kernel {kernel_name} ({bad:#x}): \
                     its target does not match the agent"
                )));
            }
            Ok(())
        })();
        if let Err(e) = result {
            // SAFETY: `exe` was created above, is used by nothing else, and is destroyed once.
            unsafe { (api.hsa_executable_destroy)(exe) };
            return Err(e.context(format!("loading the code object of kernel {kernel_name}")));
        }
        Ok(exe)
    }

    /// Runs `kernel` on a grid of `grid_blocks` workgroups of `block` work-items and waits for it.
    /// `kernarg` is copied to the start of a zeroed kernarg segment of the kernel's size;
    /// `dynamic_lds_bytes` of LDS are added to the kernel's static LDS.
    pub(crate) fn dispatch(
        &self,
        kernel: &HsaKernel,
        kernarg: &[u8],
        grid_blocks: [u32; 3],
        block: [u32; 3],
        dynamic_lds_bytes: u32,
    ) -> Result<(), RtError> {
        let inner = &self.inner;
        inner.check_usable()?;
        let k = &kernel.segments;
        if !Arc::ptr_eq(&kernel.exe.inner, inner) {
            return Err(RtError::usage(format!("kernel {} was loaded on another hsa device", k.name)));
        }
        if kernarg.len() > k.kernarg_segment_size as usize {
            return Err(RtError::usage(format!(
                "kernel {}: {} bytes of arguments for a kernarg segment of {} bytes",
                k.name,
                kernarg.len(),
                k.kernarg_segment_size
            )));
        }
        let mut packet = dispatch_packet(k, grid_blocks, block, dynamic_lds_bytes, inner.workgroup_max_size)?;
        let api = &inner.api;
        let _one = inner.dispatch_lock.lock().unwrap_or_else(|p| p.into_inner());

        let kernarg_bytes = (k.kernarg_segment_size as usize).max(kernarg.len());
        let args = Staging { inner, ptr: inner.allocate(inner.kernarg_pool, kernarg_bytes, true)? };
        // SAFETY: the kernarg block holds at least `kernarg_bytes` (≥ 16) host-writable bytes;
        // it is zeroed, then the arguments are copied to its start; no GPU reads it yet.
        unsafe {
            std::ptr::write_bytes(args.ptr.cast::<u8>(), 0, kernarg_bytes.max(16));
            std::ptr::copy_nonoverlapping(kernarg.as_ptr(), args.ptr.cast::<u8>(), kernarg.len());
        }
        packet.kernarg_address = args.ptr as u64;
        packet.completion_signal = inner.signal;
        // SAFETY: the signal is this device's; no dispatch uses it (the lock is held).
        unsafe { (api.hsa_signal_store_relaxed)(inner.signal, 1) };

        let start = Instant::now();
        // SAFETY: `queue` is this device's live queue; the runtime fills its fields at creation.
        let (base, size, doorbell) =
            unsafe { ((*inner.queue).base_address, (*inner.queue).size, (*inner.queue).doorbell_signal) };
        // SAFETY: the queue is live; reserving one slot has no other precondition.
        let index = unsafe { (api.hsa_queue_add_write_index_relaxed)(inner.queue, 1) };
        // Wait for the slot to be free: the packet processor has read up to `index - size`.
        loop {
            // SAFETY: as above.
            let read = unsafe { (api.hsa_queue_load_read_index_scacquire)(inner.queue) };
            if index.wrapping_sub(read) < u64::from(size) {
                break;
            }
            self.check_progress(start, &k.name)?;
            std::thread::yield_now();
        }
        let slot = (index % u64::from(size)) as usize;
        // SAFETY: `base` is the queue's ring of `size` 64-byte packets and `slot < size`; the slot
        // is ours (reserved above and no longer read by the packet processor). Everything but the
        // first 32 bits is written first; the header and setup are then published with one
        // release store, so the packet processor never sees a valid header over a partial packet.
        unsafe {
            let dst = base.cast::<u8>().add(slot * 64);
            let src = (&packet as *const DispatchPacket).cast::<u8>();
            std::ptr::copy_nonoverlapping(src.add(4), dst.add(4), 60);
            let word = u32::from(packet.header) | (u32::from(packet.setup) << 16);
            (*dst.cast::<AtomicU32>()).store(word, Ordering::Release);
            (api.hsa_signal_store_screlease)(doorbell, index as i64);
        }
        self.wait(start, &k.name)?;
        drop(args);
        Ok(())
    }

    /// Waits for the completion signal to drop below 1.
    fn wait(&self, start: Instant, kernel: &str) -> Result<(), RtError> {
        let inner = &self.inner;
        loop {
            // SAFETY: the signal is this device's and alive; the wait is bounded by the hint (in
            // timestamp units; the runtime may return earlier) and checked against the timeout.
            let v = unsafe {
                (inner.api.hsa_signal_wait_scacquire)(
                    inner.signal,
                    ffi::SIGNAL_CONDITION_LT,
                    1,
                    10_000_000,
                    ffi::WAIT_STATE_BLOCKED,
                )
            };
            if v < 1 {
                return Ok(());
            }
            self.check_progress(start, kernel)?;
        }
    }

    /// Fails (and poisons the device) on a queue error or past the timeout.
    fn check_progress(&self, start: Instant, kernel: &str) -> Result<(), RtError> {
        let inner = &self.inner;
        // SAFETY: the word lives as long as `inner` (see `Inner::queue_error`).
        let q = unsafe { (*inner.queue_error).load(Ordering::SeqCst) };
        if q != 0 {
            let e = inner.api.error("the HSA queue", q).context(format!("kernel {kernel}"));
            inner.poison(e.message.clone());
            return Err(e);
        }
        if start.elapsed() > inner.timeout {
            let msg = format!(
                "kernel {kernel} did not finish within {} s (set QD_HSA_TIMEOUT_S to wait longer)",
                inner.timeout.as_secs()
            );
            inner.poison(msg.clone());
            return Err(RtError::timeout(msg));
        }
        Ok(())
    }
}

/// The packet of a dispatch, without kernarg address and completion signal: header with the
/// barrier bit and system-scope acquire/release fences, setup = dimensions (the highest with a
/// size above 1), grid size in work-items (`grid_blocks * block`).
pub(crate) fn dispatch_packet(
    kernel: &KernelSegments,
    grid_blocks: [u32; 3],
    block: [u32; 3],
    dynamic_lds_bytes: u32,
    workgroup_max_size: u32,
) -> Result<DispatchPacket, RtError> {
    let what = || format!("kernel {} on grid {grid_blocks:?} of blocks {block:?}", kernel.name);
    if grid_blocks.contains(&0) || block.contains(&0) {
        return Err(RtError::usage(format!("{}: every dimension must be at least 1", what())));
    }
    let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
    if threads > u64::from(workgroup_max_size) {
        return Err(RtError::limit("HSA_AGENT_INFO_WORKGROUP_MAX_SIZE", threads, workgroup_max_size.into(), what()));
    }
    let mut workgroup_size = [0u16; 3];
    let mut grid_size = [0u32; 3];
    for d in 0..3 {
        workgroup_size[d] = u16::try_from(block[d])
            .map_err(|_| RtError::limit("workgroup_size (16 bits)", block[d].into(), u16::MAX.into(), what()))?;
        let items = u64::from(grid_blocks[d]) * u64::from(block[d]);
        grid_size[d] = u32::try_from(items)
            .map_err(|_| RtError::limit("grid_size (32 bits, in work-items)", items, u32::MAX.into(), what()))?;
    }
    let group = u64::from(kernel.group_segment_size) + u64::from(dynamic_lds_bytes);
    if group > u64::from(MAX_GROUP_SEGMENT) {
        return Err(RtError::limit("group segment size (LDS per workgroup)", group, MAX_GROUP_SEGMENT.into(), what()));
    }
    let dims = if grid_size[2] > 1 || block[2] > 1 {
        3
    } else if grid_size[1] > 1 || block[1] > 1 {
        2
    } else {
        1
    };
    Ok(DispatchPacket {
        header: dispatch_header(),
        setup: dims,
        workgroup_size,
        reserved0: 0,
        grid_size,
        private_segment_size: kernel.private_segment_size,
        group_segment_size: group as u32,
        kernel_object: kernel.kernel_object,
        kernarg_address: 0,
        reserved2: 0,
        completion_signal: Signal(0),
    })
}

/// A kernel-dispatch packet header: type, barrier bit, system-scope acquire and release fences.
pub(crate) fn dispatch_header() -> u16 {
    ffi::PACKET_TYPE_KERNEL_DISPATCH
        | (1 << ffi::PACKET_HEADER_BARRIER)
        | (ffi::FENCE_SCOPE_SYSTEM << ffi::PACKET_HEADER_ACQUIRE_FENCE_SCOPE)
        | (ffi::FENCE_SCOPE_SYSTEM << ffi::PACKET_HEADER_RELEASE_FENCE_SCOPE)
}

/// A host-accessible pool block freed on drop (copy staging, kernargs).
struct Staging<'a> {
    inner: &'a Inner,
    ptr: *mut c_void,
}

impl<'a> Staging<'a> {
    fn new(inner: &'a Inner, bytes: usize) -> Result<Staging<'a>, RtError> {
        Ok(Staging { inner, ptr: inner.allocate(inner.staging_pool, bytes, true)? })
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        self.inner.free(self.ptr);
    }
}

/// Frees the queue-error word when `open` fails after creating it (any queue using it has been
/// destroyed by then).
struct ErrorWord(*mut AtomicU32);

impl Drop for ErrorWord {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `open`, which forgets this guard once
        // `Inner` owns the word; on an early return no queue using it is left.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

/// Drops the runtime reference of a successful `hsa_init` when `open` fails half-way.
struct ShutDown(Option<Arc<Api>>);

impl Drop for ShutDown {
    fn drop(&mut self) {
        if let Some(api) = &self.0 {
            // SAFETY: matches the successful `hsa_init` of `open`; nothing created since is left.
            unsafe { (api.hsa_shut_down)() };
        }
    }
}

/// Records a queue error for the dispatch loop (runs on a runtime thread).
unsafe extern "C" fn queue_error_callback(status: Status, _queue: *mut Queue, data: *mut c_void) {
    if !data.is_null() {
        // SAFETY: `data` is the boxed `AtomicU32` of the device that created the queue, alive as
        // long as the queue (see `open`).
        unsafe { (*data.cast::<AtomicU32>()).store(status.max(1), Ordering::SeqCst) };
    }
}

unsafe extern "C" fn push_agent(a: Agent, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Vec<Agent>` that `agents` passes, alive and unaliased for the call.
    unsafe { (*data.cast::<Vec<Agent>>()).push(a) };
    ffi::STATUS_SUCCESS
}

unsafe extern "C" fn push_pool(p: Pool, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Vec<Pool>` that `pools` passes, alive and unaliased for the call.
    unsafe { (*data.cast::<Vec<Pool>>()).push(p) };
    ffi::STATUS_SUCCESS
}

unsafe extern "C" fn first_isa(isa: ffi::Isa, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Option<Isa>` that `describe` passes, alive and unaliased for the call.
    unsafe { *data.cast::<Option<ffi::Isa>>() = Some(isa) };
    ffi::STATUS_INFO_BREAK
}

fn agents(api: &Api) -> Result<Vec<Agent>, RtError> {
    let mut v: Vec<Agent> = Vec::new();
    // SAFETY: the runtime is initialised; the callback receives `&mut v` as `data` and only pushes.
    let r = unsafe { (api.hsa_iterate_agents)(push_agent, (&mut v as *mut Vec<Agent>).cast()) };
    api.check_unavailable("hsa_iterate_agents", r)?;
    Ok(v)
}

/// The GPU agents and the CPU agents, each in the runtime's order.
fn gpu_and_cpu_agents(api: &Api) -> Result<(Vec<Agent>, Vec<Agent>), RtError> {
    let mut gpus = Vec::new();
    let mut cpus = Vec::new();
    for a in agents(api)? {
        match agent_u32(api, a, ffi::AGENT_INFO_DEVICE)? {
            ffi::DEVICE_TYPE_GPU => gpus.push(a),
            ffi::DEVICE_TYPE_CPU => cpus.push(a),
            _ => {}
        }
    }
    Ok((gpus, cpus))
}

fn pools(api: &Api, a: Agent) -> Result<Vec<Pool>, RtError> {
    let mut v: Vec<Pool> = Vec::new();
    // SAFETY: `a` is an agent of the runtime; the callback receives `&mut v` and only pushes.
    let r = unsafe { (api.hsa_amd_agent_iterate_memory_pools)(a, push_pool, (&mut v as *mut Vec<Pool>).cast()) };
    api.check("hsa_amd_agent_iterate_memory_pools", r)?;
    Ok(v)
}

fn pool_u32(api: &Api, p: Pool, attr: u32) -> Result<u32, RtError> {
    let mut v = 0u32;
    // SAFETY: the attributes asked for (segment, global flags, runtime-alloc-allowed) are 32-bit
    // values (enum, u32, bool widened into a zeroed u32); `v` is a valid out pointer.
    api.check("hsa_amd_memory_pool_get_info", unsafe {
        (api.hsa_amd_memory_pool_get_info)(p, attr, (&mut v as *mut u32).cast())
    })?;
    Ok(v)
}

/// The first global-segment pool of `agents` that the runtime can allocate from and whose flags
/// include `flag`.
fn find_pool(api: &Api, agents: &[Agent], flag: u32) -> Result<Option<Pool>, RtError> {
    for &a in agents {
        for p in pools(api, a)? {
            if pool_u32(api, p, ffi::POOL_INFO_SEGMENT)? != ffi::SEGMENT_GLOBAL {
                continue;
            }
            let alloc = pool_u32(api, p, ffi::POOL_INFO_RUNTIME_ALLOC_ALLOWED)? & 0xff != 0;
            if alloc && pool_u32(api, p, ffi::POOL_INFO_GLOBAL_FLAGS)? & flag != 0 {
                return Ok(Some(p));
            }
        }
    }
    Ok(None)
}

fn agent_u32(api: &Api, a: Agent, attr: u32) -> Result<u32, RtError> {
    let mut v = 0u32;
    // SAFETY: every attribute asked for this way is a 32-bit value (device type, sizes, counts);
    // `v` is a valid out pointer.
    api.check("hsa_agent_get_info", unsafe { (api.hsa_agent_get_info)(a, attr, (&mut v as *mut u32).cast()) })?;
    Ok(v)
}

fn agent_text(api: &Api, a: Agent, attr: u32) -> Result<String, RtError> {
    let mut buf: [c_char; 64] = [0; 64];
    // SAFETY: the name attributes are `char[64]`, which `buf` holds.
    api.check("hsa_agent_get_info", unsafe { (api.hsa_agent_get_info)(a, attr, buf.as_mut_ptr().cast()) })?;
    buf[63] = 0;
    // SAFETY: `buf` is NUL-terminated (its last byte was just set to 0).
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().trim().to_string())
}

fn describe(api: &Api, gpu: Agent, ordinal: usize) -> Result<HsaInfo, RtError> {
    let name = agent_text(api, gpu, ffi::AGENT_INFO_NAME)?;
    let product = agent_text(api, gpu, ffi::AMD_AGENT_INFO_PRODUCT_NAME).unwrap_or_default();
    let mut isa: Option<ffi::Isa> = None;
    // SAFETY: `gpu` is an agent; the callback stores the first ISA into `isa` and stops.
    let r = unsafe { (api.hsa_agent_iterate_isas)(gpu, first_isa, (&mut isa as *mut Option<ffi::Isa>).cast()) };
    if r != ffi::STATUS_INFO_BREAK {
        api.check("hsa_agent_iterate_isas", r)?;
    }
    let isa = match isa {
        Some(isa) => isa_name(api, isa)?,
        None => String::new(),
    };
    let max_queue = agent_u32(api, gpu, ffi::AGENT_INFO_QUEUE_MAX_SIZE)?;
    Ok(HsaInfo {
        ordinal,
        name,
        product,
        isa,
        wavefront_size: agent_u32(api, gpu, ffi::AGENT_INFO_WAVEFRONT_SIZE)?,
        workgroup_max_size: agent_u32(api, gpu, ffi::AGENT_INFO_WORKGROUP_MAX_SIZE)?,
        compute_units: agent_u32(api, gpu, ffi::AMD_AGENT_INFO_COMPUTE_UNIT_COUNT).unwrap_or(0),
        queue_size: queue_size(max_queue),
    })
}

/// The queue size: the largest power of two up to 1024 packets that the agent allows.
pub(crate) fn queue_size(max: u32) -> u32 {
    let cap = max.clamp(1, 1024);
    1 << (31 - cap.leading_zeros())
}

fn isa_name(api: &Api, isa: ffi::Isa) -> Result<String, RtError> {
    let mut len = 0u32;
    // SAFETY: NAME_LENGTH is a u32; `len` is a valid out pointer.
    api.check("hsa_isa_get_info_alt", unsafe {
        (api.hsa_isa_get_info_alt)(isa, ffi::ISA_INFO_NAME_LENGTH, (&mut len as *mut u32).cast())
    })?;
    let mut buf = vec![0u8; len as usize + 1];
    // SAFETY: NAME is a char array of NAME_LENGTH bytes, which `buf` holds (plus a NUL).
    api.check("hsa_isa_get_info_alt", unsafe {
        (api.hsa_isa_get_info_alt)(isa, ffi::ISA_INFO_NAME, buf.as_mut_ptr().cast())
    })?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

fn symbol_info<T>(api: &Api, sym: ffi::ExecSymbol, attr: u32, out: &mut T) -> Result<(), RtError> {
    // SAFETY: the callers pass, for each attribute, an out value of the type the header gives it
    // (u64 for KERNEL_OBJECT, u32 for the segment sizes and alignment).
    api.check("hsa_executable_symbol_get_info", unsafe {
        (api.hsa_executable_symbol_get_info)(sym, attr, (out as *mut T).cast())
    })
}
