//! The C ABI of the HSA runtime (ROCr, `libhsa-runtime64.so.1`) that the `hsa` device calls,
//! declared by hand from the public `hsa.h` / `hsa_ext_amd.h` headers, and the library loaded with
//! `dlopen` (libloading) so that a machine without ROCm gets an [`RtError`] of kind `Unavailable`
//! ("no HSA runtime (libhsa-runtime64.so) found"), never a link error or a panic.
//!
//! Handles (`hsa_agent_t`, `hsa_signal_t`, ...) are C structs of one `uint64_t`: here
//! `#[repr(transparent)]` newtypes of `u64`, passed exactly like the C structs. Enums are `u32`,
//! `hsa_status_t` is `u32` (0 success, 1 `HSA_STATUS_INFO_BREAK`, errors from 0x1000; the AMD
//! extension adds 40–44), and `hsa_signal_value_t` is `i64` (the large model of 64-bit hosts).
//! Every failing status becomes an error naming the call, the status and the runtime's own text
//! (`hsa_status_string`).
//!
//! The function table is resolved once; it owns the `Library`, so no function pointer outlives it.

use crate::error::RtError;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, OnceLock};

/// `hsa_status_t`.
pub(crate) type Status = u32;
/// `HSA_STATUS_SUCCESS`.
pub(crate) const STATUS_SUCCESS: Status = 0;
/// `HSA_STATUS_INFO_BREAK`: a callback's "stop iterating, no error".
pub(crate) const STATUS_INFO_BREAK: Status = 1;

macro_rules! handle {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        pub(crate) struct $name(pub u64);
    )*};
}

handle!(
    /// `hsa_agent_t`.
    Agent,
    /// `hsa_amd_memory_pool_t`.
    Pool,
    /// `hsa_signal_t`.
    Signal,
    /// `hsa_isa_t`.
    Isa,
    /// `hsa_code_object_reader_t`.
    Reader,
    /// `hsa_executable_t`.
    Executable,
    /// `hsa_executable_symbol_t`.
    ExecSymbol,
    /// `hsa_loaded_code_object_t`.
    LoadedCodeObject,
);

/// `hsa_queue_t` (40 bytes on a 64-bit host).
#[repr(C)]
pub(crate) struct Queue {
    pub queue_type: u32,
    pub features: u32,
    pub base_address: *mut c_void,
    pub doorbell_signal: Signal,
    pub size: u32,
    pub reserved1: u32,
    pub id: u64,
}

/// `hsa_kernel_dispatch_packet_t`: one 64-byte AQL packet. Sizes are in work-items, not groups.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DispatchPacket {
    pub header: u16,
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub reserved0: u16,
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    pub completion_signal: Signal,
}

const _: () = assert!(std::mem::size_of::<DispatchPacket>() == 64);
const _: () = assert!(std::mem::size_of::<Queue>() == 40);
const _: () = assert!(cfg!(target_pointer_width = "64"), "the HSA bindings assume a 64-bit (large model) host");

// hsa_agent_info_t / hsa_amd_agent_info_t.
pub(crate) const AGENT_INFO_NAME: u32 = 0;
pub(crate) const AGENT_INFO_WAVEFRONT_SIZE: u32 = 6;
pub(crate) const AGENT_INFO_WORKGROUP_MAX_SIZE: u32 = 8;
pub(crate) const AGENT_INFO_QUEUE_MAX_SIZE: u32 = 14;
pub(crate) const AGENT_INFO_DEVICE: u32 = 17;
pub(crate) const AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: u32 = 0xA002;
pub(crate) const AMD_AGENT_INFO_PRODUCT_NAME: u32 = 0xA009;
// hsa_device_type_t.
pub(crate) const DEVICE_TYPE_CPU: u32 = 0;
pub(crate) const DEVICE_TYPE_GPU: u32 = 1;
// hsa_isa_info_t.
pub(crate) const ISA_INFO_NAME_LENGTH: u32 = 0;
pub(crate) const ISA_INFO_NAME: u32 = 1;
// hsa_amd_memory_pool_info_t, hsa_amd_segment_t, hsa_amd_memory_pool_global_flag_t.
pub(crate) const POOL_INFO_SEGMENT: u32 = 0;
pub(crate) const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
pub(crate) const POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
pub(crate) const SEGMENT_GLOBAL: u32 = 0;
pub(crate) const POOL_FLAG_KERNARG_INIT: u32 = 1;
pub(crate) const POOL_FLAG_FINE_GRAINED: u32 = 2;
pub(crate) const POOL_FLAG_COARSE_GRAINED: u32 = 4;
// hsa_queue_type_t.
pub(crate) const QUEUE_TYPE_MULTI: u32 = 0;
// hsa_profile_t, hsa_default_float_rounding_mode_t.
pub(crate) const PROFILE_FULL: u32 = 1;
pub(crate) const FLOAT_ROUNDING_MODE_DEFAULT: u32 = 0;
// hsa_executable_symbol_info_t.
pub(crate) const SYMBOL_INFO_KERNARG_SEGMENT_SIZE: u32 = 11;
pub(crate) const SYMBOL_INFO_KERNARG_SEGMENT_ALIGNMENT: u32 = 12;
pub(crate) const SYMBOL_INFO_GROUP_SEGMENT_SIZE: u32 = 13;
pub(crate) const SYMBOL_INFO_PRIVATE_SEGMENT_SIZE: u32 = 14;
pub(crate) const SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
// hsa_signal_condition_t, hsa_wait_state_t.
pub(crate) const SIGNAL_CONDITION_LT: u32 = 2;
pub(crate) const WAIT_STATE_BLOCKED: u32 = 0;
// hsa_packet_type_t, hsa_packet_header_t bit offsets, hsa_fence_scope_t.
pub(crate) const PACKET_TYPE_KERNEL_DISPATCH: u16 = 2;
pub(crate) const PACKET_HEADER_BARRIER: u16 = 8;
pub(crate) const PACKET_HEADER_ACQUIRE_FENCE_SCOPE: u16 = 9;
pub(crate) const PACKET_HEADER_RELEASE_FENCE_SCOPE: u16 = 11;
pub(crate) const FENCE_SCOPE_SYSTEM: u16 = 2;

/// `hsa_iterate_agents` callback.
pub(crate) type AgentCallback = unsafe extern "C" fn(Agent, *mut c_void) -> Status;
/// `hsa_agent_iterate_isas` callback.
pub(crate) type IsaCallback = unsafe extern "C" fn(Isa, *mut c_void) -> Status;
/// `hsa_amd_agent_iterate_memory_pools` callback.
pub(crate) type PoolCallback = unsafe extern "C" fn(Pool, *mut c_void) -> Status;
/// `hsa_queue_create` error callback.
pub(crate) type QueueCallback = unsafe extern "C" fn(Status, *mut Queue, *mut c_void);

/// Declares the function table: each entry's C signature (from the headers) and how it is
/// resolved.
macro_rules! api {
    ($( $name:ident : fn($($arg:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        /// The resolved entry points, with the library that holds them.
        pub(crate) struct Api {
            $( pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?, )*
            /// Where the library was found.
            pub path: String,
            _lib: libloading::Library,
        }

        impl Api {
            fn resolve(lib: libloading::Library, path: String) -> Result<Api, RtError> {
                $(
                    // SAFETY: the symbol is looked up by its exact C name and given the C
                    // signature that hsa.h / hsa_ext_amd.h declare for it; the pointer is copied
                    // out and kept beside the `Library` in `Api`, so it never outlives it.
                    let $name = unsafe {
                        lib.get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                    }
                    .map(|s| *s)
                    .map_err(|e| {
                        RtError::unavailable(format!(
                            "the HSA runtime {path} lacks {}: {e}",
                            stringify!($name)
                        ))
                    })?;
                )*
                Ok(Api { $($name,)* path, _lib: lib })
            }
        }
    };
}

api! {
    hsa_init: fn() -> Status;
    hsa_shut_down: fn() -> Status;
    hsa_status_string: fn(Status, *mut *const c_char) -> Status;
    hsa_iterate_agents: fn(AgentCallback, *mut c_void) -> Status;
    hsa_agent_get_info: fn(Agent, u32, *mut c_void) -> Status;
    hsa_agent_iterate_isas: fn(Agent, IsaCallback, *mut c_void) -> Status;
    hsa_isa_get_info_alt: fn(Isa, u32, *mut c_void) -> Status;
    hsa_amd_agent_iterate_memory_pools: fn(Agent, PoolCallback, *mut c_void) -> Status;
    hsa_amd_memory_pool_get_info: fn(Pool, u32, *mut c_void) -> Status;
    hsa_amd_memory_pool_allocate: fn(Pool, usize, u32, *mut *mut c_void) -> Status;
    hsa_amd_memory_pool_free: fn(*mut c_void) -> Status;
    hsa_amd_agents_allow_access: fn(u32, *const Agent, *const u32, *const c_void) -> Status;
    hsa_memory_copy: fn(*mut c_void, *const c_void, usize) -> Status;
    hsa_queue_create: fn(Agent, u32, u32, Option<QueueCallback>, *mut c_void, u32, u32, *mut *mut Queue) -> Status;
    hsa_queue_destroy: fn(*mut Queue) -> Status;
    hsa_queue_load_read_index_scacquire: fn(*const Queue) -> u64;
    hsa_queue_add_write_index_relaxed: fn(*const Queue, u64) -> u64;
    hsa_signal_create: fn(i64, u32, *const Agent, *mut Signal) -> Status;
    hsa_signal_destroy: fn(Signal) -> Status;
    hsa_signal_store_relaxed: fn(Signal, i64);
    hsa_signal_store_screlease: fn(Signal, i64);
    hsa_signal_wait_scacquire: fn(Signal, u32, i64, u64, u32) -> i64;
    hsa_code_object_reader_create_from_memory: fn(*const c_void, usize, *mut Reader) -> Status;
    hsa_code_object_reader_destroy: fn(Reader) -> Status;
    hsa_executable_create_alt: fn(u32, u32, *const c_char, *mut Executable) -> Status;
    hsa_executable_load_agent_code_object: fn(Executable, Agent, Reader, *const c_char, *mut LoadedCodeObject) -> Status;
    hsa_executable_freeze: fn(Executable, *const c_char) -> Status;
    hsa_executable_validate: fn(Executable, *mut u32) -> Status;
    hsa_executable_destroy: fn(Executable) -> Status;
    hsa_executable_get_symbol_by_name: fn(Executable, *const c_char, *const Agent, *mut ExecSymbol) -> Status;
    hsa_executable_symbol_get_info: fn(ExecSymbol, u32, *mut c_void) -> Status;
}

/// The library names tried in order: the versioned soname, the development link, then ROCm's
/// default install directory (often not on the loader path).
pub(crate) const LIBRARY_NAMES: [&str; 3] =
    ["libhsa-runtime64.so.1", "libhsa-runtime64.so", "/opt/rocm/lib/libhsa-runtime64.so.1"];

/// Loads the first of `names` that opens and resolves every entry point.
pub(crate) fn load_from(names: &[&str]) -> Result<Api, RtError> {
    let mut why = Vec::new();
    for name in names {
        // SAFETY: opening the HSA runtime runs its ELF initialisers, which only set up the
        // library's own globals (the runtime does nothing until `hsa_init`).
        match unsafe { libloading::Library::new(name) } {
            Ok(lib) => return Api::resolve(lib, (*name).to_string()),
            Err(e) => why.push(format!("{name}: {e}")),
        }
    }
    Err(RtError::unavailable(format!(
        "no HSA runtime (libhsa-runtime64.so) found (install ROCm, or Debian's libhsa-runtime64-1; tried {})",
        why.join("; ")
    )))
}

/// The process-wide runtime library, loaded at first use.
pub(crate) fn api() -> Result<Arc<Api>, RtError> {
    static API: OnceLock<Result<Arc<Api>, RtError>> = OnceLock::new();
    API.get_or_init(|| load_from(&LIBRARY_NAMES).map(Arc::new)).clone()
}

/// The symbolic name of a status code, from the headers.
pub(crate) fn status_name(s: Status) -> &'static str {
    match s {
        0x0 => "HSA_STATUS_SUCCESS",
        0x1 => "HSA_STATUS_INFO_BREAK",
        0x1000 => "HSA_STATUS_ERROR",
        0x1001 => "HSA_STATUS_ERROR_INVALID_ARGUMENT",
        0x1002 => "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION",
        0x1003 => "HSA_STATUS_ERROR_INVALID_ALLOCATION",
        0x1004 => "HSA_STATUS_ERROR_INVALID_AGENT",
        0x1005 => "HSA_STATUS_ERROR_INVALID_REGION",
        0x1006 => "HSA_STATUS_ERROR_INVALID_SIGNAL",
        0x1007 => "HSA_STATUS_ERROR_INVALID_QUEUE",
        0x1008 => "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        0x1009 => "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
        0x100A => "HSA_STATUS_ERROR_RESOURCE_FREE",
        0x100B => "HSA_STATUS_ERROR_NOT_INITIALIZED",
        0x100C => "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW",
        0x100D => "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
        0x100E => "HSA_STATUS_ERROR_INVALID_INDEX",
        0x100F => "HSA_STATUS_ERROR_INVALID_ISA",
        0x1010 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT",
        0x1011 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE",
        0x1012 => "HSA_STATUS_ERROR_FROZEN_EXECUTABLE",
        0x1013 => "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME",
        0x1014 => "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED",
        0x1015 => "HSA_STATUS_ERROR_VARIABLE_UNDEFINED",
        0x1016 => "HSA_STATUS_ERROR_EXCEPTION",
        0x1017 => "HSA_STATUS_ERROR_INVALID_ISA_NAME",
        0x1018 => "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL",
        0x1019 => "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL",
        0x1020 => "HSA_STATUS_ERROR_INVALID_FILE",
        0x1021 => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER",
        0x1022 => "HSA_STATUS_ERROR_INVALID_CACHE",
        0x1023 => "HSA_STATUS_ERROR_INVALID_WAVEFRONT",
        0x1024 => "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP",
        0x1025 => "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE",
        0x1026 => "HSA_STATUS_ERROR_FATAL",
        40 => "HSA_STATUS_ERROR_INVALID_MEMORY_POOL",
        41 => "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION",
        42 => "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION",
        43 => "HSA_STATUS_ERROR_MEMORY_FAULT",
        44 => "HSA_STATUS_CU_MASK_REDUCED",
        _ => "an unknown HSA status",
    }
}

impl Api {
    /// The runtime's own description of a status (`hsa_status_string`), when it gives one.
    pub(crate) fn status_text(&self, s: Status) -> Option<String> {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: `p` is a valid out pointer; the runtime stores a pointer to a static string.
        let r = unsafe { (self.hsa_status_string)(s, &mut p) };
        if r != STATUS_SUCCESS || p.is_null() {
            return None;
        }
        // SAFETY: on success `p` points at a NUL-terminated string owned by the runtime that lives
        // as long as the library (it is copied here).
        let text = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        // The runtime's text repeats the name (`HSA_STATUS_ERROR_X: ...`): keep what follows.
        let text = text.strip_prefix(status_name(s)).map(|t| t.trim_start_matches(':')).unwrap_or(&text).trim();
        (!text.is_empty()).then(|| text.to_string())
    }

    /// `call failed with NAME (0x…): the runtime's text`, as a driver error.
    pub(crate) fn error(&self, call: &'static str, s: Status) -> RtError {
        let mut e = RtError::driver(call, s, status_name(s).to_string());
        e.message = format!("{call} failed with {} ({s:#x})", status_name(s));
        if let Some(text) = self.status_text(s) {
            e.message.push_str(&format!(": {text}"));
        }
        e
    }

    /// Turns a status into a result naming the call.
    pub(crate) fn check(&self, call: &'static str, s: Status) -> Result<(), RtError> {
        if s == STATUS_SUCCESS {
            Ok(())
        } else {
            Err(self.error(call, s))
        }
    }

    /// Like [`Api::check`], as kind `Unavailable` (initialisation and discovery: the device is
    /// not there).
    pub(crate) fn check_unavailable(&self, call: &'static str, s: Status) -> Result<(), RtError> {
        self.check(call, s).map_err(|e| RtError::unavailable(e.message))
    }
}
