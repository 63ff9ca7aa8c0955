//! `qd_lib::subgroup`: Quadrants' `qd.simt.subgroup` — ids, data movement, ballots and votes,
//! lane masks, reductions, scans, segmented reductions and the bitonic key/value sort, each with
//! its `_tiled(…, log2_size)` form where Quadrants has one.
//!
//! Naming follows Quadrants: full-subgroup ops are unsuffixed, tiled ops carry `_tiled` and take
//! `log2_size` (a tile is `2^log2_size` consecutive lanes aligned to its size). Results are placed
//! as Quadrants documents (lane 0 for `reduce_*`, every lane of the tile for `reduce_all_*`, per
//! lane for scans). Reductions, scans, segmented reductions and votes emit MIR collectives
//! (`subgroup.reduce`, `subgroup.scan`, `subgroup.segreduce`, `vote.*`) so that each back end
//! chooses its sequence. All lanes of the subgroup must be active (Quadrants' caller contract,
//! §0.4).
//!
//! The families live in submodules and are all re-exported here:
//!
//! | file | functions |
//! |---|---|
//! | this file | `invocation_id`, `group_size`, `log2_group_size`, `elect`, `sync`, `mem_fence`, deprecated `barrier`, `memory_barrier` |
//! | `movement.rs` | `shuffle`, `shuffle_up`, `shuffle_down`, `shuffle_xor`, `broadcast`, `broadcast_first` |
//! | `ballot.rs` | `ballot`, `ballot_first_n`, `all_true`, `any_true`, `all_equal` (+ `_tiled`), `lanemask_{lt,le,eq,gt,ge}`, deprecated `ballot_full_subgroup` |
//! | `reduce.rs` | `reduce_{add,min,max}`, `reduce_all_{add,min,max}` (+ `_tiled`) |
//! | `scan.rs` | `inclusive_{add,mul,min,max,and,or,xor}`, `exclusive_…` (+ `_tiled`) |
//! | `segmented.rs` | `segmented_reduce_{add,min,max}` (+ `_tiled`) |
//! | `sort.rs` | `bitonic_sort_kv`, `bitonic_sort_kv_tiled` |
//! | `generic.rs` | `reduce_tiled_with`, `inclusive_scan_tiled_with`, `exclusive_scan_tiled_with` (any [`Op`](crate::Op)) |
//!
//! Every public function is `#[track_caller]`: its errors (a bad dtype, a tile wider than the
//! subgroup, …) are [`BuildError`]s located at the line of the user's call.

mod ballot;
pub(crate) mod generic;
mod movement;
mod reduce;
mod scan;
mod segmented;
mod sort;

#[allow(deprecated)]
pub use ballot::ballot_full_subgroup;
pub use ballot::{
    all_equal, all_equal_tiled, all_true, all_true_tiled, any_true, any_true_tiled, ballot, ballot_first_n,
    lanemask_eq, lanemask_ge, lanemask_gt, lanemask_le, lanemask_lt,
};
pub use generic::{exclusive_scan_tiled_with, inclusive_scan_tiled_with, reduce_tiled_with};
pub use movement::{broadcast, broadcast_first, shuffle, shuffle_down, shuffle_up, shuffle_xor};
pub use reduce::{
    reduce_add, reduce_add_tiled, reduce_all_add, reduce_all_add_tiled, reduce_all_max, reduce_all_max_tiled,
    reduce_all_min, reduce_all_min_tiled, reduce_max, reduce_max_tiled, reduce_min, reduce_min_tiled,
};
pub use scan::{
    exclusive_add, exclusive_add_tiled, exclusive_and, exclusive_and_tiled, exclusive_max, exclusive_max_tiled,
    exclusive_min, exclusive_min_tiled, exclusive_mul, exclusive_mul_tiled, exclusive_or, exclusive_or_tiled,
    exclusive_xor, exclusive_xor_tiled, inclusive_add, inclusive_add_tiled, inclusive_and, inclusive_and_tiled,
    inclusive_max, inclusive_max_tiled, inclusive_min, inclusive_min_tiled, inclusive_mul, inclusive_mul_tiled,
    inclusive_or, inclusive_or_tiled, inclusive_xor, inclusive_xor_tiled,
};
pub use segmented::{
    segmented_reduce_add, segmented_reduce_add_tiled, segmented_reduce_max, segmented_reduce_max_tiled,
    segmented_reduce_min, segmented_reduce_min_tiled,
};
pub use sort::{bitonic_sort_kv, bitonic_sort_kv_tiled};

use crate::common::{at, i32_of_bool, log2_width, width};
use qd_frontend::{BuildError, KernelBuilder, ScalarType, Scope, Val};
use std::panic::Location;

/// The subgroup width of the target (Quadrants `group_size()`: a compile-time value, here the
/// width recorded with [`KernelBuilder::set_subgroup_size`]). No code is emitted.
///
/// Errors: no width recorded in the kernel.
#[track_caller]
pub fn group_size(b: &KernelBuilder<'_>) -> Result<u32, BuildError> {
    width(b, Location::caller(), "subgroup::group_size")
}

/// log2 of [`group_size`] (3 on cpu:8, 5 on a 32-lane subgroup, 6 on wave64); Quadrants
/// `log2_group_size()`. No code is emitted.
///
/// Errors: no width recorded in the kernel.
#[track_caller]
pub fn log2_group_size(b: &KernelBuilder<'_>) -> Result<u32, BuildError> {
    log2_width(b, Location::caller(), "subgroup::log2_group_size")
}

/// The lane index within the subgroup, `0 … W-1`, as Quadrants' `i32` (`invocation_id()`).
/// Emits `lane_id` and a cast; per lane.
#[track_caller]
pub fn invocation_id(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    let lane = b.lane_id().map_err(at(loc))?;
    b.cast(lane, ScalarType::I32).map_err(at(loc))
}

/// Quadrants `elect()`: `i32(invocation_id() == 0)` — 1 on lane 0 of the subgroup, 0 elsewhere.
///
/// Deliberately lane 0, as Quadrants pins it, not MIR's `elect` (the lowest *active* lane): the
/// two agree under the all-lanes-active contract, and this one is the same on every back end.
/// Cost: `lane_id`, a compare and a cast.
#[track_caller]
pub fn elect(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let lane = b.lane_id()?;
        let zero = b.const_u32(0)?;
        let first = b.eq(lane, zero)?;
        i32_of_bool(b, first)
    })()
    .map_err(at(loc))
}

/// Subgroup execution barrier (Quadrants `sync()`, MIR `subgroup.sync`): converges the lanes of
/// the subgroup; orders no memory (pair it with [`mem_fence`] for that, as Quadrants' radix rank
/// does). Lowering: `bar.warp.sync` on PTX.
#[track_caller]
pub fn sync(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.subgroup_sync().map_err(at(loc))
}

/// Subgroup memory fence (Quadrants `mem_fence()`, MIR `fence subgroup`): this lane's earlier
/// memory accesses are visible to the subgroup before its later ones. No convergence
/// requirement. Lowering: `fence.sc.cta` on PTX.
#[track_caller]
pub fn mem_fence(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Subgroup).map_err(at(loc))
}

/// Deprecated Quadrants name of [`sync`].
#[deprecated(note = "qd.simt.subgroup.barrier() is deprecated; use qd_lib::subgroup::sync() instead")]
#[track_caller]
pub fn barrier(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.subgroup_sync().map_err(at(loc))
}

/// Deprecated Quadrants name of [`mem_fence`].
#[deprecated(note = "qd.simt.subgroup.memory_barrier() is deprecated; use qd_lib::subgroup::mem_fence() instead")]
#[track_caller]
pub fn memory_barrier(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Subgroup).map_err(at(loc))
}

/// The examples of `docs/subgroup.md`, compiled and run as doctests (`cargo test -p qd-lib --doc`).
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/subgroup.md")]
pub struct SubgroupDocExamples;
