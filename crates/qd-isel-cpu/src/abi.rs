//! The contract between compiled kernels and the host: the per-subgroup context the native code
//! receives, the memory table it checks accesses against, and the status codes it returns.
//!
//! A compiled kernel is one native function `extern "C" fn(*mut SgCtx) -> u32` that runs one
//! subgroup of one block from the start of the kernel to its end. Everything the code reads at run
//! time comes through [`SgCtx`]; the offsets the lowering uses are taken with `offset_of!`, so this
//! struct is the single definition of the layout.

use core::mem::offset_of;

/// The subgroup ran to the end of the kernel.
pub const STATUS_DONE: u32 = 0;
/// A fault was recorded in the host state; the subgroup stopped.
pub const STATUS_FAULT: u32 = 1;
/// The launch was abandoned (another subgroup or block faulted); the subgroup stopped.
pub const STATUS_ABORT: u32 = 2;

/// One entry of the memory table: a global buffer (indexed by kernel parameter) or a shared array
/// (indexed after the parameters). `len` is in bytes, a multiple of the element size; 0 for a
/// parameter that is not a buffer, so that every access through it faults.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct MemDesc {
    /// First byte.
    pub base: *mut u8,
    /// Length in bytes.
    pub len: u64,
}

/// What one subgroup's native code reads and writes.
#[repr(C)]
#[derive(Debug)]
pub struct SgCtx {
    /// The subgroup's lane arrays: value slot `s`, lane `l` at `regs[s · W + l]`, canonical bits.
    pub regs: *mut u64,
    /// The memory table: `nparams` global entries, then one per shared array.
    pub mem: *const MemDesc,
    /// Register bits of every kernel parameter (pointers in the shared pointer encoding).
    pub params: *const u64,
    /// Block index.
    pub block_id: [u32; 3],
    /// Subgroup index within the block.
    pub subgroup_id: u32,
    /// Block size.
    pub block_dim: [u32; 3],
    /// Linear thread index of lane 0 within the block.
    pub first_thread: u32,
    /// Grid size.
    pub grid_dim: [u32; 3],
    /// Padding (keeps `live` 8-aligned).
    pub pad: u32,
    /// Lanes that have a thread (a partial last subgroup has fewer).
    pub live: u64,
    /// Lane-instructions left before the code asks the host for more (see `helpers::refill`).
    pub budget: i64,
    /// The host state of this subgroup (`helpers::SgHost`), opaque to the code.
    pub host: *mut core::ffi::c_void,
}

/// Byte offsets of [`SgCtx`] fields, for the lowering.
pub mod off {
    use super::*;
    /// `regs`.
    pub const REGS: i32 = offset_of!(SgCtx, regs) as i32;
    /// `mem`.
    pub const MEM: i32 = offset_of!(SgCtx, mem) as i32;
    /// `params`.
    pub const PARAMS: i32 = offset_of!(SgCtx, params) as i32;
    /// `block_id`.
    pub const BLOCK_ID: i32 = offset_of!(SgCtx, block_id) as i32;
    /// `subgroup_id`.
    pub const SUBGROUP_ID: i32 = offset_of!(SgCtx, subgroup_id) as i32;
    /// `block_dim`.
    pub const BLOCK_DIM: i32 = offset_of!(SgCtx, block_dim) as i32;
    /// `first_thread`.
    pub const FIRST_THREAD: i32 = offset_of!(SgCtx, first_thread) as i32;
    /// `grid_dim`.
    pub const GRID_DIM: i32 = offset_of!(SgCtx, grid_dim) as i32;
    /// `live`.
    pub const LIVE: i32 = offset_of!(SgCtx, live) as i32;
    /// `budget`.
    pub const BUDGET: i32 = offset_of!(SgCtx, budget) as i32;
    /// Size of a [`MemDesc`].
    pub const MEM_DESC: i64 = core::mem::size_of::<MemDesc>() as i64;
    /// `MemDesc::len`.
    pub const MEM_LEN: i32 = offset_of!(MemDesc, len) as i32;
}
