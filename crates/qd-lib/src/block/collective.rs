//! Block reductions and scans (Quadrants `block.reduce*`, `block.inclusive*`, `block.exclusive*`,
//! §2.3–§2.4): a subgroup collective, then one shared slot per subgroup.
//!
//! - reduce: `agg` = the subgroup reduction (MIR `subgroup.reduce` for a builtin operator, the
//!   butterfly tree for a custom one); with one subgroup it is the result. Else lane 0 of each
//!   subgroup stores `agg` in `slots[subgroup]`, a `block.sync`, and thread 0 folds
//!   `((slots[0] op slots[1]) op slots[2]) …` left to right. Only thread 0's result is defined
//!   (others keep their subgroup's `agg`).
//! - reduce_all: reduce, then thread 0 stores the result in a one-slot array, `block.sync`, every
//!   thread reads it (no short cut for one subgroup, as in Quadrants).
//! - scans: the subgroup scan; with one subgroup it is the result. Else the **last** lane of each
//!   subgroup stores the subgroup aggregate (inclusive: its value; exclusive: `op(excl, value)`),
//!   one `block.sync`, and every thread folds the slots redundantly: `running = slots[0]`; for
//!   `w = 1 …`: the prefix of subgroup `w` is `running`, then `running = op(running, slots[w])`;
//!   subgroups other than 0 return `op(prefix, own scan)` (prefix on the left).
//!
//! Shared memory: `NUM_SG * sizeof(T)` bytes per reduce/scan call site (none with one subgroup),
//! plus `sizeof(T)` for reduce_all; fresh arrays per call site (`qd_block_*`).

use super::fresh_shared_name;
use crate::common::{at, err, identity, Loc};
use crate::op::Op;
use crate::subgroup::generic;
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, SharedBuf, Val};
use qd_mir::GroupOp;
use std::panic::Location;

// The subgroup step is `subgroup::generic` over the whole subgroup: a builtin operator is one
// full-subgroup MIR collective (each back end picks its sequence); a custom one runs the
// butterfly (reduce) and Hillis–Steele (scans) trees of `subgroup::generic` (tile = the width).

/// Checks `block_dim` against the width and the kernel's block; returns (width, subgroups).
pub(crate) fn block_geometry(
    b: &KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    block_dim: u32,
) -> Result<(u32, u32), BuildError> {
    let w = crate::common::width(b, loc, name)?;
    if block_dim == 0 || !block_dim.is_multiple_of(w) {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!("{name}: block_dim must be a positive multiple of the subgroup size (block_dim {block_dim}, subgroup {w} lanes)"),
        ));
    }
    let dims = b.block_dims();
    let threads = u64::from(dims[0]) * u64::from(dims[1]) * u64::from(dims[2]);
    if u64::from(block_dim) != threads {
        return Err(err(
            loc,
            ErrorKind::Config,
            format!(
                "{name}: block_dim {block_dim} is not the kernel's block size ({threads} threads, {dims:?}); \
                 call set_block_dim first and pass the same size"
            ),
        ));
    }
    Ok((w, block_dim / w))
}

/// A fresh shared array of `n` elements of `v`'s type for one call site.
fn slots(b: &mut KernelBuilder<'_>, base: &str, v: Val, n: u32) -> Result<SharedBuf, BuildError> {
    let ty = v.scalar().ok_or_else(|| {
        BuildError::new(Location::caller(), ErrorKind::TypeMismatch, format!("{base}: expected a scalar"))
    })?;
    let name = fresh_shared_name(b, base);
    Ok(b.shared_array(&name, ty, n))
}

/// `lane == k` as a bool.
fn lane_is(b: &mut KernelBuilder<'_>, k: u32) -> Result<Val, BuildError> {
    let lane = b.lane_id()?;
    let kv = b.const_u32(k)?;
    b.eq(lane, kv)
}

/// True in the block's first thread (subgroup 0, lane 0).
fn is_thread0(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let sg = b.subgroup_id()?;
    let lane = b.lane_id()?;
    let id = b.or(sg, lane)?;
    let zero = b.const_u32(0)?;
    b.eq(id, zero)
}

fn reduce_core(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    block_dim: u32,
    op: Op<'_>,
) -> Result<Val, BuildError> {
    let (_, nsg) = block_geometry(b, loc, name, block_dim)?;
    let agg = generic::reduce_impl(b, loc, name, v, op, None)?;
    if nsg == 1 {
        return Ok(agg);
    }
    let shared = slots(b, "qd_block_reduce", v, nsg)?;
    let first = lane_is(b, 0)?;
    b.if_then(first, |b| {
        let sg = b.subgroup_id()?;
        b.store(shared, sg, agg)
    })?;
    b.block_sync()?;
    let result = b.declare_var(agg.ty());
    b.def_var(result, agg)?;
    let t0 = is_thread0(b)?;
    b.if_then(t0, |b| {
        let z = b.const_u32(0)?;
        let mut r = b.load(shared, z)?;
        for w in 1..nsg {
            let i = b.const_u32(w)?;
            let x = b.load(shared, i)?;
            r = op.combine(b, loc, name, r, x)?;
        }
        b.def_var(result, r)
    })?;
    b.use_var(result)
}

fn reduce_all_core(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    block_dim: u32,
    op: Op<'_>,
) -> Result<Val, BuildError> {
    let r = reduce_core(b, loc, name, v, block_dim, op)?;
    let bcast = slots(b, "qd_block_bcast", v, 1)?;
    let t0 = is_thread0(b)?;
    b.if_then(t0, |b| {
        let z = b.const_u32(0)?;
        b.store(bcast, z, r)
    })?;
    b.block_sync()?;
    let z = b.const_u32(0)?;
    b.load(bcast, z)
}

/// The cross-subgroup step of both scans: `scan` is this lane's subgroup scan, `agg` the value the
/// last lane publishes, `sg0_prefix` the placeholder prefix of subgroup 0; `(loc, name)` the
/// caller and the public function, for errors.
#[allow(clippy::too_many_arguments)]
fn scan_fold(
    b: &mut KernelBuilder<'_>,
    w: u32,
    nsg: u32,
    scan: Val,
    agg: Val,
    sg0_prefix: Val,
    op: Op<'_>,
    (loc, name): (Loc, &str),
) -> Result<Val, BuildError> {
    let shared = slots(b, "qd_block_scan", scan, nsg)?;
    let last = lane_is(b, w - 1)?;
    b.if_then(last, |b| {
        let sg = b.subgroup_id()?;
        b.store(shared, sg, agg)
    })?;
    b.block_sync()?;
    let sg = b.subgroup_id()?;
    let z = b.const_u32(0)?;
    let mut running = b.load(shared, z)?;
    let mut prefix = sg0_prefix;
    for k in 1..nsg {
        let kv = b.const_u32(k)?;
        let mine = b.eq(sg, kv)?;
        prefix = b.select(mine, running, prefix)?;
        let addend = b.load(shared, kv)?;
        running = op.combine(b, loc, name, running, addend)?;
    }
    let result = b.declare_var(scan.ty());
    b.def_var(result, scan)?;
    let not_first = b.ne(sg, z)?;
    b.if_then(not_first, |b| {
        let r = op.combine(b, loc, name, prefix, scan)?;
        b.def_var(result, r)
    })?;
    b.use_var(result)
}

fn inclusive_core(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    block_dim: u32,
    op: Op<'_>,
) -> Result<Val, BuildError> {
    let (w, nsg) = block_geometry(b, loc, name, block_dim)?;
    let scan = generic::inclusive_impl(b, loc, name, v, op, None)?;
    if nsg == 1 {
        return Ok(scan);
    }
    // Subgroup 0's prefix is never applied; any value of the type stands in (Quadrants: slot 0).
    scan_fold(b, w, nsg, scan, scan, scan, op, (loc, name))
}

pub(crate) fn exclusive_core(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    v: Val,
    block_dim: u32,
    op: Op<'_>,
    id: Option<Val>,
) -> Result<Val, BuildError> {
    let (w, nsg) = block_geometry(b, loc, name, block_dim)?;
    let ty = generic::check_dtype(loc, name, v, op)?;
    let scan = generic::exclusive_impl(b, loc, name, v, op, id, None)?;
    if nsg == 1 {
        return Ok(scan);
    }
    let agg = op.combine(b, loc, name, scan, v)?;
    let sg0 = match (id, op.group()) {
        (Some(i), _) => i,
        (None, Some(g)) => identity(b, g, ty)?,
        (None, None) => scan,
    };
    scan_fold(b, w, nsg, scan, agg, sg0, op, (loc, name))
}

macro_rules! wrap {
    ($(#[$doc:meta])* $name:ident, $core:ident, $qname:literal, $op:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name(b: &mut KernelBuilder<'_>, v: Val, block_dim: u32) -> Result<Val, BuildError> {
            let loc = Location::caller();
            $core(b, loc, $qname, v, block_dim, Op::Builtin($op)).map_err(at(loc))
        }
    };
}

/// Block reduction under `op` (builtin or custom, associative). **Defined in thread 0 only**;
/// other threads hold their subgroup's reduction.
///
/// Quadrants `qd.simt.block.reduce(value, block_dim, op, dtype)` (the dtype is `v`'s). `block_dim`
/// must be a positive multiple of the subgroup width and equal to the kernel's block size.
/// dtypes: i32 u32 i64 u64 f32 f64 (and/or/xor: integers). Cost: one subgroup reduction; with
/// more than one subgroup, `NUM_SG` shared slots, one `block.sync` and `NUM_SG - 1` ops on thread 0.
#[track_caller]
pub fn reduce(b: &mut KernelBuilder<'_>, v: Val, block_dim: u32, op: Op<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    reduce_core(b, loc, "block::reduce", v, block_dim, op).map_err(at(loc))
}

/// Block reduction under `op`, broadcast to every thread.
///
/// Quadrants `qd.simt.block.reduce_all(value, block_dim, op, dtype)`. Cost: [`reduce`] plus one
/// shared slot and one more `block.sync`.
#[track_caller]
pub fn reduce_all(b: &mut KernelBuilder<'_>, v: Val, block_dim: u32, op: Op<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    reduce_all_core(b, loc, "block::reduce_all", v, block_dim, op).map_err(at(loc))
}

/// Block inclusive scan under `op`: thread `i` gets `v[0] op … op v[i]`, in every thread.
///
/// Quadrants `qd.simt.block.inclusive_scan(value, block_dim, op, dtype)`. Cost: one subgroup scan;
/// with more than one subgroup, `NUM_SG` shared slots, one `block.sync` and `NUM_SG` ops per thread.
#[track_caller]
pub fn inclusive_scan(b: &mut KernelBuilder<'_>, v: Val, block_dim: u32, op: Op<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    inclusive_core(b, loc, "block::inclusive_scan", v, block_dim, op).map_err(at(loc))
}

/// Block exclusive scan under `op` with an explicit `identity` (of `v`'s type): thread 0 gets
/// `identity`, thread `i` gets `v[0] op … op v[i-1]` when `identity` is neutral for `op`, in
/// Quadrants' order: the subgroup step shifts the input up one lane with `identity` in lane 0 of
/// **every** subgroup, then scans, so a non-neutral identity enters once per subgroup up to
/// thread `i`'s (as in Quadrants).
///
/// Quadrants `qd.simt.block.exclusive_scan(value, block_dim, op, identity, dtype)`. Cost: as
/// [`inclusive_scan`] plus one shuffle and one op.
#[track_caller]
pub fn exclusive_scan(
    b: &mut KernelBuilder<'_>,
    v: Val,
    block_dim: u32,
    op: Op<'_>,
    identity: Val,
) -> Result<Val, BuildError> {
    let loc = Location::caller();
    exclusive_core(b, loc, "block::exclusive_scan", v, block_dim, op, Some(identity)).map_err(at(loc))
}

wrap!(
    /// Block sum, **defined in thread 0 only** (Quadrants `block.reduce_add`). See [`reduce`].
    reduce_add, reduce_core, "block::reduce_add", GroupOp::Add
);
wrap!(
    /// Block minimum (floats: minNum, `-0 < +0`), **defined in thread 0 only** (Quadrants
    /// `block.reduce_min`). See [`reduce`].
    reduce_min, reduce_core, "block::reduce_min", GroupOp::Min
);
wrap!(
    /// Block maximum (floats: maxNum, `-0 < +0`), **defined in thread 0 only** (Quadrants
    /// `block.reduce_max`). See [`reduce`].
    reduce_max, reduce_core, "block::reduce_max", GroupOp::Max
);
wrap!(
    /// Block sum broadcast to every thread (Quadrants `block.reduce_all_add`). See [`reduce_all`].
    reduce_all_add, reduce_all_core, "block::reduce_all_add", GroupOp::Add
);
wrap!(
    /// Block minimum broadcast to every thread (Quadrants `block.reduce_all_min`).
    reduce_all_min, reduce_all_core, "block::reduce_all_min", GroupOp::Min
);
wrap!(
    /// Block maximum broadcast to every thread (Quadrants `block.reduce_all_max`).
    reduce_all_max, reduce_all_core, "block::reduce_all_max", GroupOp::Max
);
wrap!(
    /// Block inclusive prefix sum: thread `i` gets `v[0] + … + v[i]` (Quadrants
    /// `block.inclusive_add`). See [`inclusive_scan`].
    inclusive_add, inclusive_core, "block::inclusive_add", GroupOp::Add
);
wrap!(
    /// Block inclusive prefix minimum (Quadrants `block.inclusive_min`).
    inclusive_min, inclusive_core, "block::inclusive_min", GroupOp::Min
);
wrap!(
    /// Block inclusive prefix maximum (Quadrants `block.inclusive_max`).
    inclusive_max, inclusive_core, "block::inclusive_max", GroupOp::Max
);

macro_rules! wrap_excl {
    ($(#[$doc:meta])* $name:ident, $qname:literal, $op:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name(b: &mut KernelBuilder<'_>, v: Val, block_dim: u32) -> Result<Val, BuildError> {
            let loc = Location::caller();
            exclusive_core(b, loc, $qname, v, block_dim, Op::Builtin($op), None).map_err(at(loc))
        }
    };
}

wrap_excl!(
    /// Block exclusive prefix sum: thread 0 gets 0, thread `i` gets `v[0] + … + v[i-1]` (Quadrants
    /// `block.exclusive_add`; the subgroup step is one MIR `subgroup.scan exclusive add`).
    exclusive_add, "block::exclusive_add", GroupOp::Add
);
wrap_excl!(
    /// Block exclusive prefix minimum; thread 0 gets the dtype's min identity (`+inf`, `INT_MAX`,
    /// `UINT_MAX`) (Quadrants `block.exclusive_min`).
    exclusive_min, "block::exclusive_min", GroupOp::Min
);
wrap_excl!(
    /// Block exclusive prefix maximum; thread 0 gets the dtype's max identity (`-inf`, `INT_MIN`,
    /// 0 unsigned) (Quadrants `block.exclusive_max`).
    exclusive_max, "block::exclusive_max", GroupOp::Max
);
