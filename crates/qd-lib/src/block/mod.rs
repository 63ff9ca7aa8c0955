//! `qd_lib::block`: Quadrants' `qd.simt.block` — barriers (plain and with a predicate), fences,
//! thread indices, shared arrays, block reductions and scans (builtin and user operators) and the
//! radix-rank primitive of the device sort.
//!
//! Block collectives combine a subgroup collective with one slot per subgroup in shared memory, so
//! they need the target's subgroup width ([`qd_frontend::KernelBuilder::set_subgroup_size`]) and a
//! `block_dim` that is a positive multiple of it and equal to the kernel's block size; all are
//! checked at the caller's line. Subgroups are MIR's: the aligned runs of `W` consecutive linear
//! thread ids (`subgroup_id`, `lane_id`), which for a 1-D block is Quadrants'
//! `thread_idx // W`, `thread_idx & (W-1)`. See `docs/block.md` for the op tables and lowerings.

mod collective;
mod radix;
pub(crate) mod shared;

pub use collective::{
    exclusive_add, exclusive_max, exclusive_min, exclusive_scan, inclusive_add, inclusive_max, inclusive_min,
    inclusive_scan, reduce, reduce_add, reduce_all, reduce_all_add, reduce_all_max, reduce_all_min, reduce_max,
    reduce_min,
};
pub use radix::radix_rank_match_atomic_or;
pub use shared::{ElemShape, SharedArray};

/// The examples of `docs/block.md` (block, grid and warp), compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/block.md")]
pub struct BlockMdExamples;

use crate::common::{at, i32_of_bool, truthy, Loc};
use qd_frontend::{BuildError, Dim, KernelBuilder, PredOp, ScalarType, Scope, Val};
use std::panic::Location;

/// Block barrier (`__syncthreads`, MIR `block.sync`): every thread of the block waits until all
/// have arrived; shared and global writes before it are visible to the block after it.
///
/// Quadrants `qd.simt.block.sync()`. Must be reached by every thread of the block (the verifier
/// rejects it in divergent control flow). Cost: one barrier.
#[track_caller]
pub fn sync(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.block_sync().map_err(at(loc))
}

fn sync_pred(b: &mut KernelBuilder<'_>, loc: Loc, name: &str, op: PredOp, p: Val) -> Result<Val, BuildError> {
    let p = truthy(b, loc, name, p)?;
    let r = b.block_sync_pred(op, p)?;
    match op {
        PredOp::Count => b.cast(r, ScalarType::I32),
        PredOp::And | PredOp::Or => i32_of_bool(b, r),
    }
}

/// Block barrier that also returns, to every thread, `1` if `p != 0` in every thread of the
/// block, else `0` (i32). `p`: any integer or bool.
///
/// Quadrants `qd.simt.block.sync_all_nonzero(p)`; MIR `block.sync_pred and` (CUDA
/// `bar.red.and.pred`). Cost: one barrier.
#[track_caller]
pub fn sync_all_nonzero(b: &mut KernelBuilder<'_>, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    sync_pred(b, loc, "block::sync_all_nonzero", PredOp::And, p).map_err(at(loc))
}

/// Block barrier that also returns, to every thread, `1` if `p != 0` in some thread of the
/// block, else `0` (i32). `p`: any integer or bool.
///
/// Quadrants `qd.simt.block.sync_any_nonzero(p)`; MIR `block.sync_pred or`. Cost: one barrier.
#[track_caller]
pub fn sync_any_nonzero(b: &mut KernelBuilder<'_>, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    sync_pred(b, loc, "block::sync_any_nonzero", PredOp::Or, p).map_err(at(loc))
}

/// Block barrier that also returns, to every thread, the number of threads of the block whose
/// `p != 0` (i32). `p`: any integer or bool.
///
/// Quadrants `qd.simt.block.sync_count_nonzero(p)`; MIR `block.sync_pred count`. Cost: one
/// barrier.
#[track_caller]
pub fn sync_count_nonzero(b: &mut KernelBuilder<'_>, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    sync_pred(b, loc, "block::sync_count_nonzero", PredOp::Count, p).map_err(at(loc))
}

/// Block-scope memory fence (MIR `fence block`; CUDA `membar.cta`): this thread's earlier memory
/// accesses are visible to the threads of its block before its later ones. No execution
/// barrier; allowed in divergent control flow.
///
/// Quadrants `qd.simt.block.mem_fence()`.
#[track_caller]
pub fn mem_fence(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Block).map_err(at(loc))
}

/// Deprecated Quadrants name of [`mem_fence`].
#[deprecated(note = "qd.simt.block.mem_sync() is deprecated; use qd_lib::block::mem_fence() instead")]
#[track_caller]
pub fn mem_sync(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Block).map_err(at(loc))
}

/// The thread's index within its block along x, as Quadrants' `i32` (MIR `thread_id x`).
///
/// Quadrants `qd.simt.block.thread_idx()` (only the x dimension exists there).
#[track_caller]
pub fn thread_idx(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let t = b.thread_id(Dim::X)?;
        b.cast(t, ScalarType::I32)
    })()
    .map_err(at(loc))
}

/// The thread's global index along x, `block_id * block_dim + thread_id` (wrapping u32
/// arithmetic), as Quadrants' `i32`.
///
/// Quadrants `qd.simt.block.global_thread_idx()` (CUDA/AMDGPU's `linear_thread_idx`: no range-for
/// `begin`, no grid-stride wrap).
#[track_caller]
pub fn global_thread_idx(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let t = b.thread_id(Dim::X)?;
        let bid = b.block_id(Dim::X)?;
        let bdim = b.block_dim(Dim::X)?;
        let base = b.mul(bid, bdim)?;
        let g = b.add(base, t)?;
        b.cast(g, ScalarType::I32)
    })()
    .map_err(at(loc))
}

/// A shared-array name not yet used in the kernel: `base` if free, else `base_1`, `base_2`, …
/// (every library call site and every [`SharedArray`] constructor call gets its own array).
pub(crate) fn fresh_shared_name(b: &KernelBuilder<'_>, base: &str) -> String {
    let taken = |n: &str| b.func().shared.values().any(|s| s.name == n);
    if !taken(base) {
        return base.to_string();
    }
    (1u32..).map(|i| format!("{base}_{i}")).find(|n| !taken(n)).unwrap_or_else(|| base.to_string())
}

/// The shared-memory bytes the kernel declares so far.
pub(crate) fn shared_bytes(b: &KernelBuilder<'_>) -> u64 {
    b.func().shared.values().map(|s| u64::from(s.len) * u64::from(s.elem.bytes())).sum()
}
