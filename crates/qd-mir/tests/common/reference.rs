//! Independent plain-Rust references for the end-to-end SIMT tests: typed scalar combination
//! with native arithmetic (no `qd_mir::eval`), identities written out per type, and the obvious
//! definitions of every collective over one subgroup (direct index math for shuffles, loops for
//! ballots and votes, sequential folds and prefixes in lane order for reductions, scans and
//! segmented reductions). Adapted from `tests/simt_reference.rs`, which checks `simt.rs` directly;
//! here they are the oracle for whole kernels run by the interpreter.

use qd_mir::interp::simt::{ShuffleKind, VoteKind};
use qd_mir::{GroupOp, ScalarType, Tile};
// ----------------------------------------------------------------------------------------------
// Scalar references (native typed arithmetic; no `eval`)
// ----------------------------------------------------------------------------------------------

/// f32 → bits.
pub fn f32b(x: f32) -> u64 {
    u64::from(x.to_bits())
}
/// bits → f32.
pub fn bf32(b: u64) -> f32 {
    f32::from_bits(b as u32)
}
/// f64 → bits.
pub fn f64b(x: f64) -> u64 {
    x.to_bits()
}
/// bits → f64.
pub fn bf64(b: u64) -> f64 {
    f64::from_bits(b)
}

/// A float of type `ty` (f32 or f64) as bits.
pub fn fbits(ty: ScalarType, x: f64) -> u64 {
    if ty == ScalarType::F32 {
        f32b(x as f32)
    } else {
        f64b(x)
    }
}

/// Whether `op` is legal on `ty` for the collectives themselves (`interp::simt`): bitwise
/// operators are not defined on floats.
pub fn legal(op: GroupOp, ty: ScalarType) -> bool {
    match op {
        GroupOp::And | GroupOp::Or | GroupOp::Xor => !ty.is_float(),
        GroupOp::Add | GroupOp::Mul | GroupOp::Min | GroupOp::Max => true,
    }
}

/// Whether the MIR verifier accepts `op` on `ty` in a reduction or scan: [`legal`], and no
/// `add`/`mul` on `bool`.
pub fn mir_legal(op: GroupOp, ty: ScalarType) -> bool {
    legal(op, ty) && !(matches!(op, GroupOp::Add | GroupOp::Mul) && ty == ScalarType::Bool)
}

macro_rules! int_op {
    ($t:ty, $op:expr, $a:expr, $b:expr) => {{
        let (x, y) = ($a, $b);
        let r: $t = match $op {
            GroupOp::Add => x.wrapping_add(y),
            GroupOp::Mul => x.wrapping_mul(y),
            GroupOp::Min => x.min(y),
            GroupOp::Max => x.max(y),
            GroupOp::And => x & y,
            GroupOp::Or => x | y,
            GroupOp::Xor => x ^ y,
        };
        r
    }};
}

// IEEE minNum/maxNum with the documented signed-zero order: min(+0, -0) = -0, max(+0, -0) = +0.
macro_rules! zero_aware {
    ($x:expr, $y:expr, min) => {
        if $x == 0.0 && $y == 0.0 {
            if $x.is_sign_negative() || $y.is_sign_negative() {
                -0.0
            } else {
                0.0
            }
        } else {
            $x.min($y)
        }
    };
    ($x:expr, $y:expr, max) => {
        if $x == 0.0 && $y == 0.0 {
            if $x.is_sign_positive() || $y.is_sign_positive() {
                0.0
            } else {
                -0.0
            }
        } else {
            $x.max($y)
        }
    };
}

/// `a ⊕ b` with native Rust arithmetic on the typed values (bool: add/max = or, mul/min = and).
pub fn rcomb(op: GroupOp, ty: ScalarType, a: u64, b: u64) -> u64 {
    match ty {
        ScalarType::I32 => int_op!(i32, op, a as u32 as i32, b as u32 as i32) as u32 as u64,
        ScalarType::U32 => u64::from(int_op!(u32, op, a as u32, b as u32)),
        ScalarType::I64 => int_op!(i64, op, a as i64, b as i64) as u64,
        ScalarType::U64 => int_op!(u64, op, a, b),
        ScalarType::F32 => {
            let (x, y) = (bf32(a), bf32(b));
            f32b(match op {
                GroupOp::Add => x + y,
                GroupOp::Mul => x * y,
                GroupOp::Min => zero_aware!(x, y, min),
                GroupOp::Max => zero_aware!(x, y, max),
                GroupOp::And | GroupOp::Or | GroupOp::Xor => panic!("reference: {} is illegal on f32", op.name()),
            })
        }
        ScalarType::F64 => {
            let (x, y) = (bf64(a), bf64(b));
            f64b(match op {
                GroupOp::Add => x + y,
                GroupOp::Mul => x * y,
                GroupOp::Min => zero_aware!(x, y, min),
                GroupOp::Max => zero_aware!(x, y, max),
                GroupOp::And | GroupOp::Or | GroupOp::Xor => panic!("reference: {} is illegal on f64", op.name()),
            })
        }
        ScalarType::Bool => {
            let (x, y) = (a != 0, b != 0);
            u64::from(match op {
                GroupOp::Add | GroupOp::Or | GroupOp::Max => x | y,
                GroupOp::Mul | GroupOp::And | GroupOp::Min => x & y,
                GroupOp::Xor => x ^ y,
            })
        }
    }
}

/// The identity of `op` on `ty`, written out per type.
pub fn rid(op: GroupOp, ty: ScalarType) -> u64 {
    use GroupOp as G;
    use ScalarType as S;
    match (ty, op) {
        (S::Bool, G::Mul | G::And | G::Min) => 1,
        (S::Bool, _) => 0,
        (S::F32 | S::F64, G::Add) => fbits(ty, 0.0),
        (S::F32 | S::F64, G::Mul) => fbits(ty, 1.0),
        (S::F32 | S::F64, G::Min) => fbits(ty, f64::INFINITY),
        (S::F32 | S::F64, G::Max) => fbits(ty, f64::NEG_INFINITY),
        (S::F32 | S::F64, _) => panic!("reference: {} is illegal on {ty}", op.name()),
        (_, G::Add | G::Or | G::Xor) => 0,
        (_, G::Mul) => 1,
        (S::I32, G::Min) => i32::MAX as u64,
        (S::I32, G::Max) => i32::MIN as u32 as u64,
        (S::I32 | S::U32, G::And) | (S::U32, G::Min) => u64::from(u32::MAX),
        (S::I64, G::Min) => i64::MAX as u64,
        (S::I64, G::Max) => i64::MIN as u64,
        (S::I64 | S::U64, G::And) | (S::U64, G::Min) => u64::MAX,
        (S::U32 | S::U64, G::Max) => 0,
    }
}

/// Is lane `i` in the mask?
pub fn act(active: u64, i: usize) -> bool {
    i < 64 && (active >> i) & 1 != 0
}

/// Lanes per tile at width `w` (clamped to the width).
pub fn tile_size(tile: Tile, w: usize) -> usize {
    match tile {
        Tile::Full => w,
        Tile::Log2(l) => (1usize << l.min(6)).min(w),
    }
}

/// A lane value taken as a predicate, as `cast` to `bool` does (`-0.0` false, NaN true).
pub fn truthy(ty: ScalarType, b: u64) -> bool {
    match ty {
        ScalarType::F32 => bf32(b) != 0.0,
        ScalarType::F64 => bf64(b) != 0.0,
        _ => b != 0,
    }
}

fn native_eq(ty: ScalarType, a: u64, b: u64) -> bool {
    match ty {
        ScalarType::F32 => bf32(a) == bf32(b),
        ScalarType::F64 => bf64(a) == bf64(b),
        _ => a == b,
    }
}

/// Shuffles by direct index math: inactive lanes, inactive sources and out-of-range sources keep
/// the reading lane's own value; `idx`/`broadcast` wrap mod `w`; `broadcast` takes the first
/// active lane's index and reads the source whatever its activity; operands are `u32`.
pub fn ref_shuffle(kind: ShuffleKind, v: &[u64], src: &[u64], active: u64, w: usize) -> Vec<u64> {
    let first = (0..w).find(|&i| act(active, i));
    (0..w)
        .map(|i| {
            if !act(active, i) {
                return v[i];
            }
            let s = src[i] as u32 as usize;
            let from = match kind {
                ShuffleKind::Idx => Some(s % w),
                ShuffleKind::Up => (s <= i).then(|| i - s),
                ShuffleKind::Down => (i + s < w).then_some(i + s),
                ShuffleKind::Xor => ((i ^ s) < w).then_some(i ^ s),
                ShuffleKind::Broadcast => first.map(|f| src[f] as u32 as usize % w),
            };
            match from {
                Some(f) if kind == ShuffleKind::Broadcast || act(active, f) => v[f],
                _ => v[i],
            }
        })
        .collect()
}

/// Bit `i` for every active lane `i < limit` whose predicate is non-zero.
pub fn ref_ballot(pred: &[u64], active: u64, w: usize, limit: usize) -> u64 {
    let mut m = 0u64;
    for i in 0..w.min(limit) {
        if act(active, i) && pred[i] != 0 {
            m |= 1 << i;
        }
    }
    m
}

/// Votes over the active lanes of each tile (all pairs compared for `eq`).
pub fn ref_vote(kind: VoteKind, ty: ScalarType, v: &[u64], active: u64, w: usize, tile: Tile) -> Vec<u64> {
    let t = tile_size(tile, w);
    let mut out = v.to_vec();
    for base in (0..w).step_by(t) {
        let lanes: Vec<usize> = (base..base + t).filter(|&i| act(active, i)).collect();
        let r = match kind {
            VoteKind::All => lanes.iter().all(|&i| truthy(ty, v[i])),
            VoteKind::Any => lanes.iter().any(|&i| truthy(ty, v[i])),
            VoteKind::Eq => lanes.iter().all(|&i| lanes.iter().all(|&j| native_eq(ty, v[i], v[j]))),
        };
        for &i in &lanes {
            out[i] = u64::from(r);
        }
    }
    out
}

/// Sequential fold of the active lanes of each tile, in lane order, from the identity.
pub fn ref_reduce(op: GroupOp, ty: ScalarType, v: &[u64], active: u64, w: usize, tile: Tile) -> Vec<u64> {
    let t = tile_size(tile, w);
    let mut out = v.to_vec();
    for base in (0..w).step_by(t) {
        let mut acc = rid(op, ty);
        for i in base..base + t {
            if act(active, i) {
                acc = rcomb(op, ty, acc, v[i]);
            }
        }
        for (i, o) in out.iter_mut().enumerate().skip(base).take(t) {
            if act(active, i) {
                *o = acc;
            }
        }
    }
    out
}

/// Sequential prefix over the active lanes of each tile, in lane order, from the identity.
pub fn ref_scan(op: GroupOp, ty: ScalarType, incl: bool, v: &[u64], active: u64, w: usize, tile: Tile) -> Vec<u64> {
    let t = tile_size(tile, w);
    let mut out = v.to_vec();
    for base in (0..w).step_by(t) {
        let mut acc = rid(op, ty);
        for i in base..base + t {
            if act(active, i) {
                let before = acc;
                acc = rcomb(op, ty, acc, v[i]);
                out[i] = if incl { acc } else { before };
            }
        }
    }
    out
}

/// Sequential scan restarting at each tile base and at every active head (`head != 0`).
pub fn ref_segreduce(
    op: GroupOp,
    ty: ScalarType,
    v: &[u64],
    heads: &[u64],
    active: u64,
    w: usize,
    tile: Tile,
) -> Vec<u64> {
    let t = tile_size(tile, w);
    let mut out = v.to_vec();
    let mut acc = 0;
    for i in 0..w {
        if i % t == 0 || (act(active, i) && heads[i] != 0) {
            acc = rid(op, ty);
        }
        if act(active, i) {
            acc = rcomb(op, ty, acc, v[i]);
            out[i] = acc;
        }
    }
    out
}
