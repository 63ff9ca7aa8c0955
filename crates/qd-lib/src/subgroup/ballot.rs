//! Ballots, votes and lane masks (Quadrants §1.3–§1.4): `ballot`, `ballot_first_n`,
//! `all_true(_tiled)`, `any_true(_tiled)`, `all_equal(_tiled)`, `lanemask_{lt,le,eq,gt,ge}` and the
//! deprecated `ballot_full_subgroup`.
//!
//! Predicates are Quadrants' (any integer, tested `!= 0`) or a bool. Ballots and votes are one
//! MIR op each (`ballot`, `ballot.first_n`, `vote.all`, `vote.any`, `vote.eq`, the tile as the
//! op's `tile(L)`), so each back end picks its sequence; the results are converted to
//! Quadrants' types (`u64` / `u32` masks, `i32` 0/1 votes). The lane masks are pure `u32`
//! arithmetic on a given lane id, as in Quadrants.

use crate::common::{at, dtype, err, i32_of_bool, tile, truthy, Loc, NUMERIC};
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, ScalarType, Tile, Val};
use std::panic::Location;

fn ballot_impl(b: &mut KernelBuilder<'_>, loc: Loc, name: &str, p: Val) -> Result<Val, BuildError> {
    let p = truthy(b, loc, name, p)?;
    b.ballot(p)
}

/// Quadrants `ballot(predicate)`: a `u64` with bit `i` set iff lane `i`'s predicate is non-zero
/// (bits `≥ W` are 0: the high half is 0 on a 32-lane subgroup). The same on every lane.
/// MIR `ballot`; `vote.sync.ballot.b32` widened to 64 bits on PTX.
#[track_caller]
pub fn ballot(b: &mut KernelBuilder<'_>, predicate: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    ballot_impl(b, loc, "subgroup::ballot", predicate).map_err(at(loc))
}

/// Deprecated Quadrants name of [`ballot`].
#[deprecated(note = "qd.simt.subgroup.ballot_full_subgroup() is deprecated; use qd_lib::subgroup::ballot() instead")]
#[track_caller]
pub fn ballot_full_subgroup(b: &mut KernelBuilder<'_>, predicate: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    ballot_impl(b, loc, "subgroup::ballot_full_subgroup", predicate).map_err(at(loc))
}

/// Quadrants `ballot_first_n(predicate, n)`: a `u32` with bit `i` set iff `i < n` and lane `i`'s
/// predicate is non-zero. The same on every lane. MIR `ballot.first_n N`; one
/// `vote.sync.ballot.b32` and a mask on PTX.
///
/// Errors: `n` outside `1..=32` (Quadrants documents the range but does not check it).
#[track_caller]
pub fn ballot_first_n(b: &mut KernelBuilder<'_>, predicate: Val, n: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    (|| {
        if !(1..=32).contains(&n) {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("subgroup::ballot_first_n: n = {n} is out of range 1..=32 (the result is a u32 mask)"),
            ));
        }
        let p = truthy(b, loc, "subgroup::ballot_first_n", predicate)?;
        b.ballot_first_n(n, p)
    })()
    .map_err(at(loc))
}

/// Which vote.
#[derive(Clone, Copy)]
enum Vote {
    All,
    Any,
    Eq,
}

fn vote_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    kind: Vote,
    v: Val,
    log2_size: Option<u32>,
) -> Result<Val, BuildError> {
    let t = match log2_size {
        Some(l) => tile(b, loc, name, l)?,
        None => Tile::Full,
    };
    let r = match kind {
        Vote::All => {
            let p = truthy(b, loc, name, v)?;
            b.vote_all(t, p)?
        }
        Vote::Any => {
            let p = truthy(b, loc, name, v)?;
            b.vote_any(t, p)?
        }
        Vote::Eq => {
            dtype(loc, name, v, NUMERIC)?;
            b.vote_eq(t, v)?
        }
    };
    i32_of_bool(b, r)
}

/// Quadrants `all_true_tiled(predicate, log2_size)`: `i32` 1 on every lane of a tile of
/// `2^log2_size` lanes iff the predicate is non-zero on all of them, else 0. MIR
/// `vote.all tile(L)`; PTX: `vote.sync.all` (full warp) or the ballot of the tile's bits.
///
/// Errors: a tile wider than the subgroup; a non-integer predicate.
#[track_caller]
pub fn all_true_tiled(b: &mut KernelBuilder<'_>, predicate: Val, log2_size: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::all_true_tiled", Vote::All, predicate, Some(log2_size)).map_err(at(loc))
}

/// Quadrants `all_true(predicate)`: [`all_true_tiled`] over the whole subgroup.
#[track_caller]
pub fn all_true(b: &mut KernelBuilder<'_>, predicate: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::all_true", Vote::All, predicate, None).map_err(at(loc))
}

/// Quadrants `any_true_tiled(predicate, log2_size)`: `i32` 1 on every lane of a tile iff the
/// predicate is non-zero on some lane of it, else 0. MIR `vote.any tile(L)`; PTX:
/// `vote.sync.any` or the tile's ballot bits.
///
/// Errors: a tile wider than the subgroup; a non-integer predicate.
#[track_caller]
pub fn any_true_tiled(b: &mut KernelBuilder<'_>, predicate: Val, log2_size: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::any_true_tiled", Vote::Any, predicate, Some(log2_size)).map_err(at(loc))
}

/// Quadrants `any_true(predicate)`: [`any_true_tiled`] over the whole subgroup.
#[track_caller]
pub fn any_true(b: &mut KernelBuilder<'_>, predicate: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::any_true", Vote::Any, predicate, None).map_err(at(loc))
}

/// Quadrants `all_equal_tiled(value, log2_size)`: `i32` 1 on every lane of a tile iff `value`
/// equals the tile's first lane's under the dtype's `==` (floats: any NaN in the tile gives 0,
/// `+0.0 == -0.0`), else 0. MIR `vote.eq tile(L)`; PTX: one `shfl.sync.idx` from the tile's
/// first lane, `setp.eq`, then the all-vote.
///
/// Errors: a tile wider than the subgroup; a dtype other than i32 u32 i64 u64 f32 f64.
#[track_caller]
pub fn all_equal_tiled(b: &mut KernelBuilder<'_>, value: Val, log2_size: u32) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::all_equal_tiled", Vote::Eq, value, Some(log2_size)).map_err(at(loc))
}

/// Quadrants `all_equal(value)`: [`all_equal_tiled`] over the whole subgroup.
#[track_caller]
pub fn all_equal(b: &mut KernelBuilder<'_>, value: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    vote_impl(b, loc, "subgroup::all_equal", Vote::Eq, value, None).map_err(at(loc))
}

/// Which lane mask.
#[derive(Clone, Copy)]
enum Mask {
    Lt,
    Le,
    Eq,
    Gt,
    Ge,
}

/// `lane` as a u32 shift amount that keeps "≥ 32" for every wide or negative input: 64-bit
/// values are clamped to 32 before narrowing (so 2^32 is not read as 0), signed values are read
/// unsigned (a negative lane is ≥ 32).
fn shift_amount(b: &mut KernelBuilder<'_>, loc: Loc, name: &str, lane: Val) -> Result<Val, BuildError> {
    match lane.scalar() {
        Some(ScalarType::U32) => Ok(lane),
        Some(ScalarType::I32) => b.cast(lane, ScalarType::U32),
        Some(ScalarType::I64 | ScalarType::U64) => {
            let wide = b.bitcast(lane, ScalarType::U64)?;
            let cap = b.const_u64(32)?;
            let clamped = b.min(wide, cap)?;
            b.cast(clamped, ScalarType::U32)
        }
        _ => {
            Err(err(loc, ErrorKind::TypeMismatch, format!("{name}: the lane id must be an integer, got {}", lane.ty())))
        }
    }
}

fn lanemask(b: &mut KernelBuilder<'_>, loc: Loc, name: &str, kind: Mask, lane: Val) -> Result<Val, BuildError> {
    let l = shift_amount(b, loc, name, lane)?;
    let one = b.const_u32(1)?;
    // MIR's `shl` gives 0 for amounts ≥ 32, so every formula below is defined for every lane.
    let bit = b.shl(one, l)?;
    let below = b.sub(bit, one)?; // lanemask_lt
    match kind {
        Mask::Lt => Ok(below),
        Mask::Le => b.or(bit, below),
        Mask::Eq => Ok(bit),
        Mask::Gt => {
            let le = b.or(bit, below)?;
            b.not(le)
        }
        Mask::Ge => b.not(below),
    }
}

/// Quadrants `lanemask_lt(l)`: `u32` with the bits of lanes `< l` set, `(1 << l) - 1`.
/// `l` is any integer (not only the own lane). Lanes `≥ 32` (and negative signed ones) are
/// defined in qd — Quadrants leaves them an undefined shift — and saturate: `0xFFFFFFFF`.
/// Pure arithmetic (shift, subtract).
#[track_caller]
pub fn lanemask_lt(b: &mut KernelBuilder<'_>, l: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    lanemask(b, loc, "subgroup::lanemask_lt", Mask::Lt, l).map_err(at(loc))
}

/// Quadrants `lanemask_le(l)`: `u32` with the bits of lanes `≤ l` set,
/// `(1 << l) | ((1 << l) - 1)` (lane 31 → `0xFFFFFFFF`). Lanes `≥ 32` saturate: `0xFFFFFFFF`.
#[track_caller]
pub fn lanemask_le(b: &mut KernelBuilder<'_>, l: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    lanemask(b, loc, "subgroup::lanemask_le", Mask::Le, l).map_err(at(loc))
}

/// Quadrants `lanemask_eq(l)`: `u32` `1 << l`. Lanes `≥ 32` give 0 (no bit in a u32).
#[track_caller]
pub fn lanemask_eq(b: &mut KernelBuilder<'_>, l: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    lanemask(b, loc, "subgroup::lanemask_eq", Mask::Eq, l).map_err(at(loc))
}

/// Quadrants `lanemask_gt(l)`: `u32` with the bits of lanes `> l` set, `!lanemask_le(l)`
/// (lane 31 → 0). Lanes `≥ 32` give 0.
#[track_caller]
pub fn lanemask_gt(b: &mut KernelBuilder<'_>, l: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    lanemask(b, loc, "subgroup::lanemask_gt", Mask::Gt, l).map_err(at(loc))
}

/// Quadrants `lanemask_ge(l)`: `u32` with the bits of lanes `≥ l` set, `!lanemask_lt(l)`
/// (lane 0 → `0xFFFFFFFF`). Lanes `≥ 32` give 0.
#[track_caller]
pub fn lanemask_ge(b: &mut KernelBuilder<'_>, l: Val) -> Result<Val, BuildError> {
    let loc = Location::caller();
    lanemask(b, loc, "subgroup::lanemask_ge", Mask::Ge, l).map_err(at(loc))
}
