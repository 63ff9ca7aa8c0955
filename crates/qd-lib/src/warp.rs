//! `qd_lib::warp`: Quadrants' legacy `qd.simt.warp`, the CUDA warp builtins with member masks
//! (`__all_sync`, `__any_sync`, `__uni_sync`, `__ballot_sync`, `__shfl*_sync`, `__match_*_sync`,
//! `__activemask`, `__syncwarp`), as portable equivalents built from MIR ops.
//!
//! The warp is the subgroup, so these need a target of at most 32 lanes (the CUDA builtins are
//! 32-lane; masks are u32): on a 64-wide target every function is a [`BuildError`] naming the op
//! and the width. On narrower targets (8, 16 lanes) lane ids and masks are those of the subgroup.
//!
//! Member masks: the participating lanes are `mask ∩ active` (MIR's active mask is the set of lanes
//! executing the instruction, so under an `if` only the lanes that took the arm take part). Votes
//! and ballots consider only those lanes; `match_*` results are restricted to them; a shuffle whose
//! source lane is outside the mask gives the caller its own value (CUDA leaves it undefined).
//! CUDA requires the calling lane to be in `mask`; here a caller outside it still gets a result
//! computed over the members. Results follow Quadrants' types: i32 for votes and `ballot`, u32 for
//! `match_*` and `active_mask`.

use crate::common::{at, dtype, err, lane_u32, truthy, width, Loc, NUMERIC};
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, ScalarType, Val};
use std::panic::Location;

/// The kernel's width, if it is at most 32 lanes.
fn warp_width(b: &KernelBuilder<'_>, loc: Loc, op: &str) -> Result<u32, BuildError> {
    let w = width(b, loc, op)?;
    if w > 32 {
        return Err(err(
            loc,
            ErrorKind::Config,
            format!(
                "{op}: the CUDA warp builtins are 32-lane, but this kernel's subgroup is {w} lanes wide; use \
                 qd_lib::subgroup (ballot, shuffle, all_true, …) on {w}-lane targets"
            ),
        ));
    }
    Ok(w)
}

/// `mask ∩ active` as u32 (the active mask's bits ≥ W are 0).
fn members(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, mask: Val) -> Result<Val, BuildError> {
    let mask = lane_u32(b, loc, op, "the member mask", mask)?;
    let act = b.active_mask()?;
    let act = b.cast(act, ScalarType::U32)?;
    b.and(mask, act)
}

/// The ballot of `p` over the member lanes (u32).
fn member_ballot(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, mask: Val, p: Val) -> Result<(Val, Val), BuildError> {
    warp_width(b, loc, op)?;
    let p = truthy(b, loc, op, p)?;
    let m = members(b, loc, op, mask)?;
    let bal = b.ballot(p)?;
    let bal = b.cast(bal, ScalarType::U32)?;
    let bal = b.and(bal, m)?;
    Ok((bal, m))
}

/// `1` if `p != 0` on every member lane (`mask` ∩ active), else `0` (i32).
///
/// Quadrants `qd.simt.warp.all_nonzero(mask, p)` (CUDA `__all_sync`, `vote.sync.all`). MIR: `ballot`,
/// `activemask`, `and`, `cmp`. `p`: any integer or bool; `mask`: any integer (low 32 bits).
#[track_caller]
pub fn all_nonzero(b: &mut KernelBuilder<'_>, mask: Val, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let (bal, m) = member_ballot(b, loc, "warp::all_nonzero", mask, p)?;
        let r = b.eq(bal, m)?;
        b.cast(r, ScalarType::I32)
    })()
    .map_err(at(loc))
}

/// `1` if `p != 0` on some member lane, else `0` (i32).
///
/// Quadrants `qd.simt.warp.any_nonzero(mask, p)` (CUDA `__any_sync`, `vote.sync.any`).
#[track_caller]
pub fn any_nonzero(b: &mut KernelBuilder<'_>, mask: Val, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let (bal, _) = member_ballot(b, loc, "warp::any_nonzero", mask, p)?;
        let z = b.const_u32(0)?;
        let r = b.ne(bal, z)?;
        b.cast(r, ScalarType::I32)
    })()
    .map_err(at(loc))
}

/// `1` if `p != 0` has the same value on every member lane (all true or all false), else `0`
/// (i32).
///
/// Quadrants `qd.simt.warp.unique(mask, p)` (CUDA `__uni_sync`, `vote.sync.uni`).
#[track_caller]
pub fn unique(b: &mut KernelBuilder<'_>, mask: Val, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let (bal, m) = member_ballot(b, loc, "warp::unique", mask, p)?;
        let all = b.eq(bal, m)?;
        let z = b.const_u32(0)?;
        let none = b.eq(bal, z)?;
        let r = b.or(all, none)?;
        b.cast(r, ScalarType::I32)
    })()
    .map_err(at(loc))
}

/// The bits of the active lanes whose `p != 0`, as Quadrants' i32 (bit `i` = lane `i`).
///
/// Quadrants `qd.simt.warp.ballot(p)` (CUDA `__ballot_sync(0xFFFFFFFF, p)`). MIR `ballot`, truncated.
#[track_caller]
pub fn ballot(b: &mut KernelBuilder<'_>, p: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let op = "warp::ballot";
        warp_width(b, loc, op)?;
        let p = truthy(b, loc, op, p)?;
        let bal = b.ballot(p)?;
        b.cast(bal, ScalarType::I32)
    })()
    .map_err(at(loc))
}

#[derive(Copy, Clone)]
enum Shfl {
    Idx,
    Up,
    Down,
    Xor,
}

#[allow(clippy::too_many_arguments)]
fn shfl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    op: &str,
    kind: Shfl,
    ty: ScalarType,
    mask: Val,
    v: Val,
    arg: Val,
) -> Result<Val, BuildError> {
    let w = warp_width(b, loc, op)?;
    if v.scalar() != Some(ty) {
        return Err(err(loc, ErrorKind::TypeMismatch, format!("{op}: the value must be {ty}, got {}", v.ty())));
    }
    let mask = lane_u32(b, loc, op, "the member mask", mask)?;
    let arg = lane_u32(b, loc, op, "the lane operand", arg)?;
    let lane = b.lane_id()?;
    let wm = b.const_u32(w - 1)?;
    // The source lane (as MIR computes it) and whether it exists.
    let (got, src, in_range) = match kind {
        Shfl::Idx => {
            let src = b.and(arg, wm)?;
            (b.shuffle_idx(v, arg)?, src, None)
        }
        Shfl::Up => {
            let src = b.sub(lane, arg)?;
            let ok = b.le(arg, lane)?;
            (b.shuffle_up(v, arg)?, src, Some(ok))
        }
        Shfl::Down => {
            let src = b.add(lane, arg)?;
            let wv = b.const_u32(w)?;
            let ok = b.lt(src, wv)?;
            // `lane + arg` may wrap: it is in range only if also `>= lane`.
            let nowrap = b.ge(src, lane)?;
            let ok = b.and(ok, nowrap)?;
            (b.shuffle_down(v, arg)?, src, Some(ok))
        }
        Shfl::Xor => {
            let src = b.xor(lane, arg)?;
            let wv = b.const_u32(w)?;
            let ok = b.lt(src, wv)?;
            (b.shuffle_xor(v, arg)?, src, Some(ok))
        }
    };
    // A source lane outside the member mask gives the caller its own value.
    let s = b.and(src, wm)?;
    let bit = b.shr(mask, s)?;
    let one = b.const_u32(1)?;
    let bit = b.and(bit, one)?;
    let member = b.eq(bit, one)?;
    let member = match in_range {
        Some(ok) => b.and(member, ok)?,
        None => member,
    };
    b.select(member, got, v)
}

macro_rules! shfl_fn {
    ($(#[$doc:meta])* $name:ident, $kind:expr, $ty:expr, $arg:ident) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name(b: &mut KernelBuilder<'_>, mask: Val, v: Val, $arg: Val) -> Result<Val, BuildError> {
            let loc = Location::caller();
            shfl(b, loc, concat!("warp::", stringify!($name)), $kind, $ty, mask, v, $arg).map_err(at(loc))
        }
    };
}

shfl_fn!(
    /// `v` of lane `lane mod W` (i32) (Quadrants `warp.shfl_sync_i32`, CUDA `__shfl_sync`; MIR
    /// `shuffle.idx`). A source lane outside `mask` or inactive gives the caller its own value.
    shfl_sync_i32, Shfl::Idx, ScalarType::I32, lane
);
shfl_fn!(
    /// `v` of lane `lane mod W` (f32) (Quadrants `warp.shfl_sync_f32`). See [`shfl_sync_i32`].
    shfl_sync_f32, Shfl::Idx, ScalarType::F32, lane
);
shfl_fn!(
    /// `v` of lane `i - delta` (i32); lanes `< delta` keep their own value (Quadrants
    /// `warp.shfl_up_i32`, CUDA `__shfl_up_sync`; MIR `shuffle.up`). A source outside `mask` gives
    /// the own value.
    shfl_up_i32, Shfl::Up, ScalarType::I32, delta
);
shfl_fn!(
    /// `v` of lane `i - delta` (f32) (Quadrants `warp.shfl_up_f32`). See [`shfl_up_i32`].
    shfl_up_f32, Shfl::Up, ScalarType::F32, delta
);
shfl_fn!(
    /// `v` of lane `i + delta` (i32); lanes whose source is `>= W` keep their own value (Quadrants
    /// `warp.shfl_down_i32`, CUDA `__shfl_down_sync`; MIR `shuffle.down`).
    shfl_down_i32, Shfl::Down, ScalarType::I32, delta
);
shfl_fn!(
    /// `v` of lane `i + delta` (f32) (Quadrants `warp.shfl_down_f32`). See [`shfl_down_i32`].
    shfl_down_f32, Shfl::Down, ScalarType::F32, delta
);
shfl_fn!(
    /// `v` of lane `i ^ lane_mask` (i32); a source `>= W` keeps the own value (Quadrants
    /// `warp.shfl_xor_i32`, CUDA `__shfl_xor_sync`; MIR `shuffle.xor`).
    shfl_xor_i32, Shfl::Xor, ScalarType::I32, lane_mask
);

/// The member lanes whose `v` has the same bits as this lane's (u32).
///
/// Quadrants `qd.simt.warp.match_any(mask, v)` (CUDA `__match_any_sync`, sm_70+). MIR `match.any`
/// masked with `mask ∩ active`. `v`: i32 u32 i64 u64 f32 f64 (compared by bits).
#[track_caller]
pub fn match_any(b: &mut KernelBuilder<'_>, mask: Val, v: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let op = "warp::match_any";
        warp_width(b, loc, op)?;
        dtype(loc, op, v, NUMERIC)?;
        let m = members(b, loc, op, mask)?;
        let same = b.match_any(v)?;
        let same = b.cast(same, ScalarType::U32)?;
        b.and(same, m)
    })()
    .map_err(at(loc))
}

/// `mask` (u32) if every member lane's `v` has the same bits, else 0.
///
/// Quadrants `qd.simt.warp.match_all(mask, v)` (CUDA `__match_all_sync`, the predicate output
/// dropped). MIR `match.any`, `activemask`. `v`: i32 u32 i64 u64 f32 f64.
#[track_caller]
pub fn match_all(b: &mut KernelBuilder<'_>, mask: Val, v: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        let op = "warp::match_all";
        warp_width(b, loc, op)?;
        dtype(loc, op, v, NUMERIC)?;
        let mask32 = lane_u32(b, loc, op, "the member mask", mask)?;
        let m = members(b, loc, op, mask32)?;
        let same = b.match_any(v)?;
        let same = b.cast(same, ScalarType::U32)?;
        let same = b.and(same, m)?;
        let all = b.eq(same, m)?;
        let z = b.const_u32(0)?;
        b.select(all, mask32, z)
    })()
    .map_err(at(loc))
}

/// The active lanes (u32).
///
/// Quadrants `qd.simt.warp.active_mask()` (CUDA `__activemask`). MIR `activemask`, truncated.
#[track_caller]
pub fn active_mask(b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        warp_width(b, loc, "warp::active_mask")?;
        let m = b.active_mask()?;
        b.cast(m, ScalarType::U32)
    })()
    .map_err(at(loc))
}

/// Converges the lanes of the warp (CUDA `__syncwarp(mask)`, `bar.warp.sync`). MIR `subgroup.sync`:
/// the whole subgroup's active lanes; `mask` is checked to be an integer and otherwise not needed.
///
/// Quadrants `qd.simt.warp.sync(mask)`.
#[track_caller]
pub fn sync(b: &mut KernelBuilder<'_>, mask: Val) -> Result<(), BuildError> {
    let loc = Location::caller();
    (|| {
        let op = "warp::sync";
        warp_width(b, loc, op)?;
        lane_u32(b, loc, op, "the member mask", mask)?;
        b.subgroup_sync()
    })()
    .map_err(at(loc))
}
