//! The generic subgroup collectives: reduce, inclusive scan and exclusive scan of a tile under any
//! [`Op`] (Quadrants' private `_reduce_tiled`, `_inclusive_scan_tiled`, `_exclusive_scan_tiled`,
//! public here because block collectives and users with their own operators need them).
//!
//! A builtin operator becomes one MIR collective (`subgroup.reduce`, `subgroup.scan`), so each back
//! end picks its best sequence; a custom operator is applied in shuffle trees:
//!
//! - reduce: MIR's butterfly, `v = op(v, shuffle_xor(v, k))` for `k = 1, 2, …, T/2` — **not**
//!   Quadrants' `_reduce_tiled` (a `shuffle_down` tree, offsets `T/2 … 1`, defined at tile lane 0
//!   only): every lane of the tile ends with a reduction, tile lane 0 with the in-order
//!   `v[0] op v[1] op …` (so associative non-commutative operators work there; other lanes see
//!   other operand orders, bit-identical to lane 0's when `op` is commutative);
//! - inclusive scan (Quadrants' tree): Hillis–Steele, for `k = 1, 2, …`: `v = op(shuffle_up(v, k), v)` on tile
//!   lanes `≥ k` (predecessor on the left: non-commutative associative operators keep order);
//! - exclusive scan: shift the input up one lane (the identity in tile lane 0), then the inclusive
//!   scan — Quadrants' order, so an explicit identity takes part exactly as there.
//!
//! All lanes of each tile must be active (Quadrants §0.4).

use crate::common::{at, dtype, dtypes_of, err, lane_in_tile, tile, Loc, NUMERIC};
use crate::op::Op;
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, ScalarType, Tile, Val};
use std::panic::Location;

/// The dtypes `op` accepts (custom operators: the shuffle dtypes).
pub(crate) fn check_dtype(loc: Loc, name: &str, v: Val, op: Op<'_>) -> Result<ScalarType, BuildError> {
    match op.group() {
        Some(g) => dtype(loc, name, v, dtypes_of(g)),
        None => dtype(loc, name, v, NUMERIC),
    }
}

/// `log2_size` as a MIR tile (`None`: the whole subgroup) and as a count of tree steps (`None`
/// when the width is not needed because the operator is builtin and the tile is the subgroup).
fn geometry(
    b: &KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    log2_size: Option<u32>,
    custom: bool,
) -> Result<(Tile, Option<u32>), BuildError> {
    match log2_size {
        Some(l) => Ok((tile(b, loc, name, l)?, Some(l))),
        None if custom => {
            let l = crate::common::log2_width(b, loc, name)?;
            Ok((Tile::Full, Some(l)))
        }
        None => Ok((Tile::Full, None)),
    }
}

/// Reduce over each tile, result on every lane.
pub(crate) fn reduce_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    op: Op<'_>,
    log2_size: Option<u32>,
) -> Result<Val, BuildError> {
    check_dtype(loc, name, v, op)?;
    let (t, steps) = geometry(b, loc, name, log2_size, op.group().is_none())?;
    match (op.group(), steps) {
        (Some(g), _) => b.subgroup_reduce(g, t, v),
        (None, Some(l)) => {
            let mut v = v;
            for i in 0..l {
                let k = b.const_u32(1 << i)?;
                let other = b.shuffle_xor(v, k)?;
                v = op.combine(b, loc, name, v, other)?;
            }
            Ok(v)
        }
        (None, None) => Err(err(loc, ErrorKind::Config, format!("{name}: no tile size"))),
    }
}

/// The Hillis–Steele inclusive scan of `v` under `op` over tiles of `2^l` lanes.
fn hillis_steele(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    op: Op<'_>,
    l: u32,
) -> Result<Val, BuildError> {
    let lig = lane_in_tile(b, l)?;
    let mut v = v;
    for i in 0..l {
        let k = b.const_u32(1 << i)?;
        let pred = b.shuffle_up(v, k)?;
        let combined = op.combine(b, loc, name, pred, v)?;
        let take = b.ge(lig, k)?;
        v = b.select(take, combined, v)?;
    }
    Ok(v)
}

/// Inclusive scan over each tile.
pub(crate) fn inclusive_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    op: Op<'_>,
    log2_size: Option<u32>,
) -> Result<Val, BuildError> {
    check_dtype(loc, name, v, op)?;
    let (t, steps) = geometry(b, loc, name, log2_size, op.group().is_none())?;
    match (op.group(), steps) {
        (Some(g), _) => b.subgroup_scan(g, t, true, v),
        (None, Some(l)) => hillis_steele(b, loc, name, v, op, l),
        (None, None) => Err(err(loc, ErrorKind::Config, format!("{name}: no tile size"))),
    }
}

/// Exclusive scan over each tile; `identity: None` uses the builtin operator's identity (one MIR
/// `subgroup.scan exclusive`), an explicit identity runs Quadrants' shift-then-scan tree.
pub(crate) fn exclusive_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    op: Op<'_>,
    identity: Option<Val>,
    log2_size: Option<u32>,
) -> Result<Val, BuildError> {
    let ty = check_dtype(loc, name, v, op)?;
    if let Some(id) = identity {
        if id.scalar() != Some(ty) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{name}: the identity is {} but the value is {ty}", id.ty()),
            ));
        }
    }
    let custom = op.group().is_none() || identity.is_some();
    let (t, steps) = geometry(b, loc, name, log2_size, custom)?;
    match (op.group(), identity, steps) {
        (Some(g), None, _) => b.subgroup_scan(g, t, false, v),
        (_, Some(id), Some(l)) => {
            let lig = lane_in_tile(b, l)?;
            let one = b.const_u32(1)?;
            let prev = b.shuffle_up(v, one)?;
            let zero = b.const_u32(0)?;
            let first = b.eq(lig, zero)?;
            let shifted = b.select(first, id, prev)?;
            hillis_steele(b, loc, name, shifted, op, l)
        }
        (None, None, _) => Err(err(
            loc,
            ErrorKind::Config,
            format!("{name}: a custom operator needs an explicit identity for an exclusive scan"),
        )),
        (_, Some(_), None) => Err(err(loc, ErrorKind::Config, format!("{name}: no tile size"))),
    }
}

/// `op` over each tile of `2^log2_size` lanes, on every lane of the tile.
#[track_caller]
pub fn reduce_tiled_with(b: &mut KernelBuilder<'_>, v: Val, op: Op<'_>, log2_size: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    reduce_impl(b, loc, "subgroup::reduce_tiled_with", v, op, Some(log2_size)).map_err(at(loc))
}

/// Inclusive scan under `op` over each tile of `2^log2_size` lanes: tile lane `k` gets
/// `v[0] op … op v[k]`.
#[track_caller]
pub fn inclusive_scan_tiled_with(
    b: &mut KernelBuilder<'_>,
    v: Val,
    op: Op<'_>,
    log2_size: u32,
) -> Result<Val, BuildError> {
    let loc = Location::caller();
    inclusive_impl(b, loc, "subgroup::inclusive_scan_tiled_with", v, op, Some(log2_size)).map_err(at(loc))
}

/// Exclusive scan under `op` with an explicit `identity` over each tile of `2^log2_size` lanes:
/// tile lane 0 gets `identity`, lane `k` gets `identity op v[0] op … op v[k-1]` in Quadrants'
/// shift-then-scan order.
#[track_caller]
pub fn exclusive_scan_tiled_with(
    b: &mut KernelBuilder<'_>,
    v: Val,
    op: Op<'_>,
    identity: Val,
    log2_size: u32,
) -> Result<Val, BuildError> {
    let loc = Location::caller();
    exclusive_impl(b, loc, "subgroup::exclusive_scan_tiled_with", v, op, Some(identity), Some(log2_size))
        .map_err(at(loc))
}
