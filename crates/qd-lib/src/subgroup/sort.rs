//! The bitonic key/value sort (Quadrants §1.8): `bitonic_sort_kv(_tiled)(key, value) -> (key,
//! value)` sorts the `(key, value)` pairs of each tile of `2^log2_size` lanes ascending in
//! lexicographic order: tile lane `i` ends with the `i`-th smallest pair; equal keys come out
//! ordered by ascending value.
//!
//! The sort is not a MIR collective: it is Quadrants' compare-exchange network, stage by stage,
//! built from `shuffle.xor` (the partner `lane ^ 2^j` is always inside the tile), compares and
//! selects. For `k = 1 … L` (`kmask = 2^k`) and `j = k-1 … 0` (`jmask = 2^j`):
//! `i_am_low = lane & jmask == 0`, `ascending = lane & kmask & (2^L - 1) == 0` (every tile
//! ascending), `take_min = i_am_low == ascending`,
//! `their_lt = k' < k || (k' == k && v' < v)`; a `take_min` lane takes the partner's pair iff
//! `their_lt`, the other lane iff `!their_lt && (k' != k || v' != v)`. Comparisons are the
//! dtype's (`<` ordered: NaN keys leave the tile unsorted, implementation-defined as in
//! Quadrants; `-0.0 == +0.0` so signed zeros tie and are ordered by value). Cost:
//! `L(L+1)/2` stages of 2 shuffles (30 shuffles for 32 lanes, 42 for 64).

use crate::common::{at, dtype, log2_width, tile, Loc, NUMERIC};
use qd_frontend::{BuildError, KernelBuilder, Val};
use std::panic::Location;

fn sort_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    key: Val,
    value: Val,
    log2_size: Option<u32>,
) -> Result<(Val, Val), BuildError> {
    let l = match log2_size {
        Some(l) => {
            tile(b, loc, name, l)?;
            l
        }
        None => log2_width(b, loc, name)?,
    };
    dtype(loc, name, key, NUMERIC)?;
    dtype(loc, name, value, NUMERIC)?;
    if l == 0 {
        return Ok((key, value));
    }
    let tile_mask = (1u32 << l) - 1;
    let lane = b.lane_id()?;
    let zero = b.const_u32(0)?;
    let (mut key, mut value) = (key, value);
    for k in 1..=l {
        let kbits = (1u32 << k) & tile_mask;
        // `ascending` is a compile-time true in the last merge (k = L): `take_min` is `i_am_low`.
        let ascending = if kbits == 0 {
            None
        } else {
            let m = b.const_u32(kbits)?;
            let bit = b.and(lane, m)?;
            Some(b.eq(bit, zero)?)
        };
        for j in (0..k).rev() {
            let jm = b.const_u32(1 << j)?;
            let their_key = b.shuffle_xor(key, jm)?;
            let their_value = b.shuffle_xor(value, jm)?;
            let bit = b.and(lane, jm)?;
            let i_am_low = b.eq(bit, zero)?;
            let take_min = match ascending {
                Some(asc) => b.eq(i_am_low, asc)?,
                None => i_am_low,
            };
            // their_lt = k' < k || (k' == k && v' < v)
            let key_lt = b.lt(their_key, key)?;
            let key_eq = b.eq(their_key, key)?;
            let value_lt = b.lt(their_value, value)?;
            let tie_lt = b.and(key_eq, value_lt)?;
            let their_lt = b.or(key_lt, tie_lt)?;
            // differs = k' != k || v' != v
            let key_ne = b.ne(their_key, key)?;
            let value_ne = b.ne(their_value, value)?;
            let differs = b.or(key_ne, value_ne)?;
            let not_lt = b.not(their_lt)?;
            let take_max = b.and(not_lt, differs)?;
            let take = b.select(take_min, their_lt, take_max)?;
            key = b.select(take, their_key, key)?;
            value = b.select(take, their_value, value)?;
        }
    }
    Ok((key, value))
}

/// Quadrants `bitonic_sort_kv_tiled(key, value, log2_size)`: sorts the `(key, value)` pairs of
/// each tile of `2^log2_size` lanes ascending by `key`, ties by ascending `value`; returns the
/// lane's `(key, value)` after the sort (tile lane `i` holds the `i`-th smallest pair).
///
/// `key` and `value` are independently any of i32 u32 i64 u64 f32 f64. To sort fewer than
/// `2^log2_size` pairs, pad the high lanes with a key greater than every real key (`+inf`,
/// `INT_MAX`, …): the padding ends at the tile's tail. `log2_size = 0` returns the inputs.
/// Quadrants' exact schedule (see the module docs); cost `log2_size·(log2_size+1)` shuffles.
///
/// Errors: a tile wider than the subgroup; an unsupported key or value dtype.
#[track_caller]
pub fn bitonic_sort_kv_tiled(
    b: &mut KernelBuilder<'_>,
    key: Val,
    value: Val,
    log2_size: u32,
) -> Result<(Val, Val), BuildError> {
    let loc = Location::caller();
    sort_impl(b, loc, "subgroup::bitonic_sort_kv_tiled", key, value, Some(log2_size)).map_err(at(loc))
}

/// Quadrants `bitonic_sort_kv(key, value)`: [`bitonic_sort_kv_tiled`] over the whole subgroup
/// (`log2_size = log2_group_size()`).
///
/// Errors: no subgroup width recorded in the kernel; an unsupported key or value dtype.
#[track_caller]
pub fn bitonic_sort_kv(b: &mut KernelBuilder<'_>, key: Val, value: Val) -> Result<(Val, Val), BuildError> {
    let loc = Location::caller();
    sort_impl(b, loc, "subgroup::bitonic_sort_kv", key, value, None).map_err(at(loc))
}
