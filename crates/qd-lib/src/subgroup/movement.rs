//! Subgroup data movement (Quadrants §1.2): `shuffle`, `shuffle_up`, `shuffle_down`,
//! `shuffle_xor`, `broadcast`, `broadcast_first` — one MIR op each (`shuffle.idx`, `shuffle.up`,
//! `shuffle.down`, `shuffle.xor`, `broadcast`).
//!
//! Values: i32 u32 i64 u64 f32 f64 (anything else is a [`BuildError`]). Lane, offset and mask
//! operands: any integer type, read as Quadrants' `u32` (low 32 bits; a negative `i32` is a huge
//! offset). Out-of-range sources are defined in qd (docs/mir.md §5.10) where Quadrants leaves
//! them implementation-defined: `shuffle`/`broadcast` wrap the lane modulo the width;
//! `shuffle_up`/`shuffle_down`/`shuffle_xor` give the reading lane its own value (CUDA's
//! `shfl.sync` rule).

use crate::common::{at, dtype, err, lane_u32, Loc, NUMERIC};
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, Val};
use qd_mir::analysis::{Layout, Uniformity};
use qd_mir::{Function, Value, ValueDef};
use std::panic::Location;

/// Which MIR data-movement op.
#[derive(Clone, Copy)]
enum Move {
    Idx,
    Up,
    Down,
    Xor,
}

fn movement(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    what: &str,
    kind: Move,
    v: Val,
    lane: Val,
) -> Result<Val, BuildError> {
    dtype(loc, name, v, NUMERIC)?;
    let l = lane_u32(b, loc, name, what, lane)?;
    match kind {
        Move::Idx => b.shuffle_idx(v, l),
        Move::Up => b.shuffle_up(v, l),
        Move::Down => b.shuffle_down(v, l),
        Move::Xor => b.shuffle_xor(v, l),
    }
}

/// Quadrants `shuffle(value, index)`: each lane reads `value` of lane `index` (its own `index`:
/// the index may differ per lane). An index `≥ W` wraps modulo the width `W` (as CUDA's
/// `index & 31`). MIR `shuffle.idx`; one `shfl.sync.idx` on PTX (two for 64-bit values).
#[track_caller]
pub fn shuffle(b: &mut KernelBuilder<'_>, value: Val, index: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    movement(b, loc, "subgroup::shuffle", "the index", Move::Idx, value, index).map_err(at(loc))
}

/// Quadrants `shuffle_up(value, offset)`: lane `i` reads lane `i - offset`; lanes with
/// `offset > i` keep their own value (CUDA's rule; Quadrants leaves it undefined on AMDGPU and
/// SPIR-V). The whole subgroup is one window (no tiles). MIR `shuffle.up`; `shfl.sync.up` on PTX.
#[track_caller]
pub fn shuffle_up(b: &mut KernelBuilder<'_>, value: Val, offset: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    movement(b, loc, "subgroup::shuffle_up", "the offset", Move::Up, value, offset).map_err(at(loc))
}

/// Quadrants `shuffle_down(value, offset)`: lane `i` reads lane `i + offset`; lanes with
/// `i + offset ≥ W` keep their own value (CUDA's rule). MIR `shuffle.down`; `shfl.sync.down` on
/// PTX.
#[track_caller]
pub fn shuffle_down(b: &mut KernelBuilder<'_>, value: Val, offset: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    movement(b, loc, "subgroup::shuffle_down", "the offset", Move::Down, value, offset).map_err(at(loc))
}

/// Quadrants `shuffle_xor(value, mask)`: lane `i` reads lane `i ^ mask`; when `i ^ mask ≥ W` the
/// lane keeps its own value (Quadrants' `shuffle(value, lane ^ mask)` would wrap instead — both
/// implementation-defined there). MIR `shuffle.xor`; `shfl.sync.bfly` on PTX.
#[track_caller]
pub fn shuffle_xor(b: &mut KernelBuilder<'_>, value: Val, mask: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    movement(b, loc, "subgroup::shuffle_xor", "the mask", Move::Xor, value, mask).map_err(at(loc))
}

/// True if the uniformity analysis of the kernel built so far proves `v` varying. Only values
/// already placed in the kernel's region tree are judged: the instructions of a region still being
/// built (an open `if` arm or loop body) are not in the tree yet, so an index computed there is
/// left to the verifier at `finish` — as is a loop-carried value that becomes varying further
/// down its loop body.
fn provably_varying(func: &Function, v: Value) -> bool {
    let layout = Layout::new(func);
    let placed = match func.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result(inst, _)) => layout.inst_pos(inst).is_some(),
        Some(ValueDef::RegionParam(r, _)) => layout.region_pos(r).is_some(),
        Some(ValueDef::Param(_)) => true,
        None => false,
    };
    placed && !Uniformity::with_layout(func, &layout).is_uniform(v)
}

fn broadcast_impl(b: &mut KernelBuilder<'_>, loc: Loc, name: &str, v: Val, index: Val) -> Result<Val, BuildError> {
    dtype(loc, name, v, NUMERIC)?;
    let l = lane_u32(b, loc, name, "the index", index)?;
    // SPIR-V's OpGroupNonUniformBroadcast (and MIR's `broadcast`) need a uniform lane. The MIR
    // verifier checks it at `finish`; check here too so that the error names the caller's line.
    if provably_varying(b.func(), l.value()) {
        return Err(err(
            loc,
            ErrorKind::Verify,
            format!(
                "{name}: the index must be uniform across the subgroup (the same on every lane); \
                 use subgroup::shuffle for a per-lane index"
            ),
        ));
    }
    b.broadcast(v, l)
}

/// Quadrants `broadcast(value, index)`: every lane reads `value` of lane `index`, which must be
/// uniform (the same on every lane: a constant, a uniform parameter, `subgroup_id`, a ballot, …;
/// a per-lane index is a [`BuildError`] here, undefined behaviour on Quadrants' SPIR-V). The
/// index wraps modulo the width. MIR `broadcast`; `shfl.sync.idx` on PTX.
#[track_caller]
pub fn broadcast(b: &mut KernelBuilder<'_>, value: Val, index: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    broadcast_impl(b, loc, "subgroup::broadcast", value, index).map_err(at(loc))
}

/// Quadrants `broadcast_first(value)`: lane 0's `value` on every lane (`broadcast(value, 0)`).
/// MIR `broadcast` with a constant lane.
#[track_caller]
pub fn broadcast_first(b: &mut KernelBuilder<'_>, value: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let zero = b.const_u32(0)?;
        broadcast_impl(b, loc, "subgroup::broadcast_first", value, zero)
    })()
    .map_err(at(loc))
}
