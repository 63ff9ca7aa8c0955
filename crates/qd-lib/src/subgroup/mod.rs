//! `qd_lib::subgroup`: Quadrants' `qd.simt.subgroup` — ids, data movement, ballots and votes,
//! lane masks, reductions, scans, segmented reductions and the bitonic key/value sort, each with
//! its `_tiled(…, log2_size)` form where Quadrants has one.
//!
//! Naming follows Quadrants: full-subgroup ops are unsuffixed, tiled ops carry `_tiled` and take
//! `log2_size` (a tile is `2^log2_size` consecutive lanes aligned to its size). Results are placed
//! as Quadrants documents (lane 0 for `reduce_*`, every lane of the tile for `reduce_all_*`, per
//! lane for scans). Reductions and scans emit MIR collectives so that each back end chooses its
//! sequence. All lanes of the subgroup must be active (Quadrants' caller contract, §0.4).

mod generic;

pub use generic::{exclusive_scan_tiled_with, inclusive_scan_tiled_with, reduce_tiled_with};

use crate::common::{at, log2_width, width};
use crate::op::Op;
use qd_frontend::{BuildError, KernelBuilder, ScalarType, Val};
use std::panic::Location;

/// The subgroup width of the target (Quadrants `group_size()`: a compile-time value).
#[track_caller]
pub fn group_size(b: &KernelBuilder<'_>) -> Result<u32, BuildError> {
    width(b, Location::caller(), "subgroup::group_size")
}

/// log2 of [`group_size`] (5 on a 32-lane subgroup, 6 on wave64).
#[track_caller]
pub fn log2_group_size(b: &KernelBuilder<'_>) -> Result<u32, BuildError> {
    log2_width(b, Location::caller(), "subgroup::log2_group_size")
}

/// The lane index within the subgroup, as Quadrants' `i32`.
#[track_caller]
pub fn invocation_id(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    let lane = b.lane_id().map_err(at(loc))?;
    b.cast(lane, ScalarType::I32).map_err(at(loc))
}

/// Sum over each tile of `2^log2_size` lanes; the result is defined at tile lane 0 (qd gives
/// every lane of the tile the same value).
#[track_caller]
pub fn reduce_add_tiled(b: &mut KernelBuilder<'_>, v: Val, log2_size: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    generic::reduce_impl(b, loc, "subgroup::reduce_add_tiled", v, Op::ADD, Some(log2_size)).map_err(at(loc))
}
