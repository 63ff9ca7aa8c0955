//! Pure lane-array collective functions (shuffles, ballot, votes, reductions, scans, segmented
//! reductions) used by the interpreter's subgroup engine.
//!
//! Every function works on one subgroup: slices of length `width` (lane `i` at index `i`), an
//! active mask (bit `i` = lane `i`), and returns one value per lane. Entries of inactive lanes in
//! the output are unspecified (these implementations return the lane's own value). Semantics and
//! evaluation orders are fixed by CONTRACTS.md ("Shared semantic decisions") so that float results
//! are bit-exact with the shuffle-tree expansion pass.
//!
//! This is a straightforward implementation of exactly the contract signatures so that the core
//! interpreter compiles and is tested; the collectives worker owns the definitive version.

use crate::eval::{self, EvalError};
use crate::inst::Tile;
use crate::ops::{CmpCond, GroupOp};
use crate::types::ScalarType;

/// Which lane a shuffle reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShuffleKind {
    /// `shuffle.idx`: source lane `src mod width`.
    Idx,
    /// `shuffle.up`: source lane `i - d` (own value when `d > i`).
    Up,
    /// `shuffle.down`: source lane `i + d` (own value when `≥ width`).
    Down,
    /// `shuffle.xor`: source lane `i ^ m` (own value when `≥ width`).
    Xor,
    /// `broadcast`: every lane reads lane `src mod width` of the first active lane's `src`.
    Broadcast,
}

/// Which vote.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VoteKind {
    /// True iff the predicate holds on every active lane of the tile.
    All,
    /// True iff the predicate holds on some active lane of the tile.
    Any,
    /// True iff every active lane of the tile holds an equal value (`cmp eq`).
    Eq,
}

fn is_active(active: u64, lane: usize) -> bool {
    lane < 64 && active >> lane & 1 != 0
}

/// Shuffles `vals` per lane; `src` is the per-lane index / delta / mask operand (u32 bits).
pub fn shuffle(kind: ShuffleKind, vals: &[u64], src: &[u64], active: u64, width: u32) -> Vec<u64> {
    let w = width as usize;
    let first = (0..w).find(|&i| is_active(active, i)).and_then(|i| src.get(i)).copied().unwrap_or(0);
    (0..w)
        .map(|i| {
            let own = vals.get(i).copied().unwrap_or(0);
            let s = u64::from(src.get(i).copied().unwrap_or(0) as u32);
            let source = match kind {
                ShuffleKind::Idx => Some(s % u64::from(width)),
                ShuffleKind::Broadcast => Some(u64::from(first as u32) % u64::from(width)),
                ShuffleKind::Up => (i as u64).checked_sub(s),
                ShuffleKind::Down => Some(i as u64 + s).filter(|&t| t < u64::from(width)),
                ShuffleKind::Xor => Some(i as u64 ^ s).filter(|&t| t < u64::from(width)),
            };
            match source {
                Some(t) if is_active(active, t as usize) => vals.get(t as usize).copied().unwrap_or(own),
                _ => own,
            }
        })
        .collect()
}

/// Ballot: bit `i` set iff lane `i` is active and `pred[i] != 0`.
pub fn ballot(pred: &[u64], active: u64, width: u32) -> u64 {
    let mut r = 0u64;
    for (i, &p) in pred.iter().enumerate().take(width as usize) {
        if is_active(active, i) && p != 0 {
            r |= 1 << i;
        }
    }
    r
}

fn tile_range(i: usize, width: u32, tile: Tile) -> core::ops::Range<usize> {
    let t = tile.lanes(width).max(1) as usize;
    let base = i / t * t;
    base..base + t
}

/// Votes over the active lanes of each tile; the bool result is given to every lane.
pub fn vote(kind: VoteKind, ty: ScalarType, vals: &[u64], active: u64, width: u32, tile: Tile) -> Vec<u64> {
    let w = width as usize;
    (0..w)
        .map(|i| {
            let lanes = tile_range(i, width, tile).filter(|&j| is_active(active, j));
            let mut vs = lanes.map(|j| vals.get(j).copied().unwrap_or(0));
            u64::from(match kind {
                VoteKind::All => vs.all(|v| v != 0),
                VoteKind::Any => vs.any(|v| v != 0),
                VoteKind::Eq => match vs.next() {
                    None => true,
                    Some(first) => {
                        eval::compare(CmpCond::Eq, ty, first, first)
                            && vs.all(|v| eval::compare(CmpCond::Eq, ty, v, first))
                    }
                },
            })
        })
        .collect()
}

fn padded(op: GroupOp, ty: ScalarType, vals: &[u64], active: u64, width: u32) -> Vec<u64> {
    let id = eval::identity(op, ty);
    (0..width as usize).map(|i| if is_active(active, i) { vals.get(i).copied().unwrap_or(id) } else { id }).collect()
}

/// Reduction over the active lanes of each tile (butterfly order, own value left).
pub fn reduce(
    op: GroupOp,
    ty: ScalarType,
    vals: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let t = tile.lanes(width) as usize;
    let mut v = padded(op, ty, vals, active, width);
    let mut k = 1;
    while k < t {
        let prev = v.clone();
        for (i, x) in v.iter_mut().enumerate() {
            *x = eval::combine(op, ty, prev[i], prev[i ^ k])?;
        }
        k *= 2;
    }
    Ok(v)
}

fn hillis_steele(op: GroupOp, ty: ScalarType, mut v: Vec<u64>, t: usize) -> Result<Vec<u64>, EvalError> {
    let mut k = 1;
    while k < t {
        let prev = v.clone();
        for (i, x) in v.iter_mut().enumerate() {
            if i % t >= k {
                *x = eval::combine(op, ty, prev[i - k], prev[i])?;
            }
        }
        k *= 2;
    }
    Ok(v)
}

/// Inclusive or exclusive scan in lane order over the active lanes of each tile.
pub fn scan(
    op: GroupOp,
    ty: ScalarType,
    inclusive: bool,
    vals: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let t = tile.lanes(width) as usize;
    let v = padded(op, ty, vals, active, width);
    let v = if inclusive {
        v
    } else {
        let id = eval::identity(op, ty);
        (0..v.len()).map(|i| if i % t == 0 { id } else { v[i - 1] }).collect()
    };
    hillis_steele(op, ty, v, t)
}

/// Per-lane inclusive segmented scan restarted at each lane whose head flag is non-zero.
pub fn segreduce(
    op: GroupOp,
    ty: ScalarType,
    vals: &[u64],
    heads: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let w = width as usize;
    let t = tile.lanes(width) as usize;
    let mut v = padded(op, ty, vals, active, width);
    let dist: Vec<usize> = (0..w)
        .map(|i| {
            let base = i / t * t;
            let h = (base..=i).rev().find(|&j| is_active(active, j) && heads.get(j).is_some_and(|&x| x != 0));
            i - h.unwrap_or(base)
        })
        .collect();
    let mut k = 1;
    while k < t {
        let prev = v.clone();
        for (i, x) in v.iter_mut().enumerate() {
            if dist[i] >= k {
                *x = eval::combine(op, ty, prev[i], prev[i - k])?;
            }
        }
        k *= 2;
    }
    Ok(v)
}
