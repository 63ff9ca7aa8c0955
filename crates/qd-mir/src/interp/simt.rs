//! Pure SIMT collective semantics over lane arrays: shuffles, ballots, votes, reductions, scans
//! and segmented reductions of one subgroup, and the CUDA warp builtins (`match.any`,
//! `match.all`, `activemask`, `lanemask.*`, `elect`).
//!
//! The interpreter core gathers an operand of every lane of a subgroup into a `&[u64]` (lane `i`
//! at index `i`, canonical bits as in [`crate::eval`]), together with the subgroup's active mask
//! (bit `i` = lane `i` executes the op), and calls one of these functions to obtain every lane's
//! result. Keeping them free of interpreter state makes them the single definition of each
//! collective, testable against plain sequential reference definitions
//! (`tests/simt_reference.rs`).
//!
//! # Combination orders (bit-exact with the shuffle-tree expansion)
//!
//! Floating-point `add`/`mul` are not associative, so the order in which lanes are combined is part
//! of the semantics. Every function follows the order fixed in docs/mir.md §5.12 ("Combination
//! order is fixed"), which is the order of the shuffle trees that the `expand` pass emits and
//! that Quadrants uses (docs/subgroup.md §3.3, §3.6):
//!
//! * [`reduce`]: inactive lanes hold the op's [`identity`]; butterfly for `k = 1, 2, 4, …, T/2`:
//!   `v[i] = v[i] ⊕ v[i ^ k]` (own value on the LEFT). Every active lane gets its own tile's result.
//! * [`scan`] inclusive: inactive lanes hold the identity; Hillis–Steele for `k = 1, 2, …, T/2`:
//!   `if i mod T >= k { v[i] = v[i - k] ⊕ v[i] }` (predecessor on the LEFT).
//!   Exclusive: first shift, `p[i] = (i mod T == 0) ? identity : v[i - 1]`, then the inclusive scan
//!   of `p`.
//! * [`segreduce`]: inactive lanes hold the identity and have no head; `d_i = i - h_i` where `h_i`
//!   is the last head in `[tile_base, i]` (the tile base if none); Hillis–Steele for
//!   `k = 1, 2, …, T/2`: `if d_i >= k { v[i] = v[i] ⊕ v[i - k] }` (own value on the LEFT, as
//!   Quadrants' `segmented_reduce_*`).
//!
//! Every step reads the values of the previous step (the in-place updates below are ordered so
//! that this holds), exactly like a register shuffle.
//!
//! # Implementation-defined choices (documented, relied on by tests)
//!
//! * **Inactive lanes' results.** Entries of lanes not in `active` are unspecified by the
//!   contract; every function returns the lane's own (input) value there.
//! * **Inactive source lane.** A shuffle whose source lane is not active yields the reading lane's
//!   own value. `broadcast` instead reads the source lane's register whatever its activity (the
//!   value that lane last held; registers start at 0), so its result is uniform in every case.
//! * **Out-of-range source lane.** `shuffle.up` with `d > i`, `shuffle.down` with `i + d >= W`
//!   and `shuffle.xor` with `i ^ m >= W` yield the reading lane's own value (what CUDA's `shfl`
//!   does for up/down). `shuffle.idx` and `broadcast` wrap their index: `s = index mod W`.
//! * **Shuffle operands** (index, delta, xor mask) are `u32`: only the low 32 bits of each lane's
//!   operand are used.
//! * **Broadcast index** must be uniform; the index used is the operand of the *first* (lowest)
//!   active lane. With no active lane every result is the lane's own value.
//! * **Votes.** `vote.all`/`vote.any` test a lane's value for truth as a `cast` to `bool` does
//!   (integers and bool: `!= 0`; floats: `!= 0.0`, so `-0.0` is false and NaN true) and look only
//!   at the active lanes of the tile (an empty set gives all = true, any = false, but such a tile
//!   has no active lane to receive it). `vote.eq` compares every active lane of the tile with the
//!   first active lane of the tile under `cmp eq` (so a NaN anywhere, even alone, gives false, and
//!   `+0.0 == -0.0`). Results are `bool` (0/1).
//! * **Ballots.** A predicate is true iff its bits are non-zero. `ballot.first_n n` keeps the bits
//!   of lanes `< min(n, 32)` (it takes no width: lanes beyond `pred` read as false, so a
//!   subgroup narrower than `n` contributes only its own lanes); its result is a `u32` held in a
//!   `u64`.
//! * **Warp builtins.** Masks are `u64` with only bits `< W` set. `match.any`/`match.all` compare
//!   the [`canon`]ical bits of the values (so `+0.0` and `-0.0` differ and a NaN matches the same
//!   NaN bits; bool is 0/1) over the active lanes only; inactive lanes get 0 from
//!   [`match_any`] and [`elect`] (the interpreter never writes them).
//! * **Operator/type errors.** `reduce`, `scan` and `segreduce` check the operator against the type
//!   *before* looking at the lanes (by combining the identity with itself), so an illegal pair
//!   (e.g. `xor` on `f32`) is [`EvalError::BadType`] whatever the mask or tile is. `combine` never
//!   divides, so no other error can arise.
//! * **Input canonicalisation.** Typed functions canonicalise each input lane with [`canon`]
//!   before use (so stray high bits in an `i32` never leak into a result); shuffles and ballots
//!   are untyped and move/test bits unchanged.
//!
//! # Robustness (never panics)
//!
//! The contract says slices have length `width`, `width` is a power of two in `1..=64`. Other
//! inputs are handled without panicking:
//!
//! * `width` is clamped to 64 (a `u64` mask cannot name more lanes); every result `Vec` has
//!   exactly `min(width, 64)` entries. `width == 0` gives an empty result (and ballot 0).
//! * A lane missing from a too-short slice reads as `0` (for `vals`, `src`, `pred` and `heads`);
//!   extra entries are ignored. Mask bits at or above the width are ignored.
//! * A width that is not a power of two behaves as the next power of two whose extra lanes are
//!   inactive (and absent from the result); a tile larger than the width is clamped to it
//!   ([`Tile::lanes`]).
//!
//! No heap memory is used beyond the returned `Vec`: the working lanes live in a fixed
//! 64-entry array on the stack.

use crate::eval::{canon, cast, combine, compare, identity, EvalError};
use crate::inst::Tile;
use crate::ops::LaneMask;
use crate::ops::{CmpCond, GroupOp};
use crate::types::ScalarType;

/// The most lanes a subgroup can have (the width of a lane mask).
pub const MAX_WIDTH: u32 = 64;

/// Which lane a shuffle reads from (see the module docs for range and activity rules).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleKind {
    /// `shuffle.idx`: lane `i` reads lane `src[i] mod W`.
    Idx,
    /// `shuffle.up`: lane `i` reads lane `i - src[i]` (own value if `src[i] > i`).
    Up,
    /// `shuffle.down`: lane `i` reads lane `i + src[i]` (own value if `>= W`).
    Down,
    /// `shuffle.xor`: lane `i` reads lane `i ^ src[i]` (own value if `>= W`).
    Xor,
    /// `broadcast`: every lane reads lane `src[f] mod W`, `f` the first active lane.
    Broadcast,
}

/// Which vote a `vote.*` op takes over the active lanes of a tile.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VoteKind {
    /// `vote.all`: every active lane's value is true.
    All,
    /// `vote.any`: some active lane's value is true.
    Any,
    /// `vote.eq`: every active lane's value equals the others under `cmp eq`.
    Eq,
}

/// The effective number of lanes for a requested `width` (clamped to [`MAX_WIDTH`]).
fn lanes(width: u32) -> usize {
    width.min(MAX_WIDTH) as usize
}

/// Lane `i` of a slice, 0 when the slice is too short.
fn lane(vals: &[u64], i: usize) -> u64 {
    vals.get(i).copied().unwrap_or(0)
}

/// Whether lane `i` (< 64) is in the mask.
fn is_active(active: u64, i: usize) -> bool {
    i < 64 && (active >> i) & 1 != 0
}

/// Each lane's own input value (the result of inactive lanes).
fn own_values(vals: &[u64], w: usize) -> Vec<u64> {
    (0..w).map(|i| lane(vals, i)).collect()
}

/// The tile size for `tile` in a subgroup of `w` lanes (≥ 1 when `w ≥ 1`).
fn tile_lanes(tile: Tile, w: usize) -> usize {
    // `w <= 64`, so the conversion is lossless; `Tile::Log2` shifts are clamped to avoid overflow.
    let t = match tile {
        Tile::Full => w,
        Tile::Log2(l) => Tile::Log2(l.min(6)).lanes(w as u32) as usize,
    };
    t.max(1)
}

/// Shuffles `vals` across the lanes of a subgroup of `width` lanes; `src` holds each lane's
/// index / delta / xor mask (low 32 bits). Returns every lane's result (own value for inactive
/// lanes, inactive sources and out-of-range sources).
pub fn shuffle(kind: ShuffleKind, vals: &[u64], src: &[u64], active: u64, width: u32) -> Vec<u64> {
    let w = lanes(width);
    let mut out = own_values(vals, w);
    if w == 0 {
        return out;
    }
    let bcast = (0..w).find(|&i| is_active(active, i)).map(|f| lane(src, f) as u32 as usize % w);
    for (i, slot) in out.iter_mut().enumerate() {
        if !is_active(active, i) {
            continue;
        }
        let op = lane(src, i) as u32 as usize;
        let s = match kind {
            ShuffleKind::Idx => Some(op % w),
            ShuffleKind::Up => i.checked_sub(op),
            ShuffleKind::Down => i.checked_add(op).filter(|&s| s < w),
            ShuffleKind::Xor => Some(i ^ op).filter(|&s| s < w),
            ShuffleKind::Broadcast => bcast,
        };
        // Broadcast reads the source lane's register whatever its activity (like `v_readlane` and
        // `OpGroupNonUniformBroadcast`), so its result is uniform; shuffles from an inactive
        // source keep the reading lane's own value.
        if let Some(s) = s.filter(|&s| kind == ShuffleKind::Broadcast || is_active(active, s)) {
            *slot = lane(vals, s);
        }
    }
    out
}

/// `ballot`: bit `i` set iff lane `i` is active and its predicate bits are non-zero.
pub fn ballot(pred: &[u64], active: u64, width: u32) -> u64 {
    (0..lanes(width)).filter(|&i| is_active(active, i) && lane(pred, i) != 0).fold(0, |m, i| m | 1 << i)
}

/// `ballot.first_n n`: [`ballot`] restricted to lanes `< min(n, 32)` (lanes beyond `pred` read as
/// false); a `u32` in a `u64`.
pub fn ballot_first_n(pred: &[u64], active: u64, n: u32) -> u64 {
    let n = n.min(32);
    ballot(pred, active, n) & 0xFFFF_FFFF
}

/// The mask of lanes `0..min(width, 64)`.
fn width_mask(width: u32) -> u64 {
    match lanes(width) {
        64 => u64::MAX,
        w => (1u64 << w) - 1,
    }
}

/// `match.any` (`__match_any_sync`): for each active lane `i`, the mask of active lanes whose
/// value has the same bits (after [`canon`] for `ty`) as lane `i`'s; 0 for inactive lanes.
pub fn match_any(ty: ScalarType, vals: &[u64], active: u64, width: u32) -> Vec<u64> {
    let w = lanes(width);
    let bits: Vec<u64> = (0..w).map(|i| canon(ty, lane(vals, i))).collect();
    (0..w)
        .map(|i| {
            if !is_active(active, i) {
                return 0;
            }
            (0..w).filter(|&j| is_active(active, j) && bits[j] == bits[i]).fold(0, |m, j| m | 1 << j)
        })
        .collect()
}

/// `match.all` (`__match_all_sync`): the active mask (bits `< width`) if every active lane's value
/// has the same bits (after [`canon`] for `ty`), else 0. The same for every lane.
pub fn match_all(ty: ScalarType, vals: &[u64], active: u64, width: u32) -> u64 {
    let w = lanes(width);
    let mut act = (0..w).filter(|&i| is_active(active, i)).map(|i| canon(ty, lane(vals, i)));
    let Some(first) = act.next() else { return 0 };
    if act.all(|b| b == first) {
        active & width_mask(width)
    } else {
        0
    }
}

/// `activemask` (`__activemask`): bit `i` set iff lane `i < width` is active.
pub fn active_mask(active: u64, width: u32) -> u64 {
    active & width_mask(width)
}

impl ShuffleKind {
    /// The source rule of a `shuffle.*` op.
    pub fn of(kind: crate::ops::ShuffleKind) -> ShuffleKind {
        match kind {
            crate::ops::ShuffleKind::Idx => ShuffleKind::Idx,
            crate::ops::ShuffleKind::Up => ShuffleKind::Up,
            crate::ops::ShuffleKind::Down => ShuffleKind::Down,
            crate::ops::ShuffleKind::Xor => ShuffleKind::Xor,
        }
    }
}

/// `lanemask.*` for lane `lane` of a subgroup of `width` lanes: the bits `j` with `j < width` and
/// `j ⋈ lane`. Independent of activity. A lane `>= min(width, 64)` gets the bits it would get as
/// a lane past the end (e.g. `lt` is every lane of the subgroup, `eq` is 0).
pub fn lane_mask(kind: LaneMask, lane: u32, width: u32) -> u64 {
    let all = width_mask(width);
    // Bits strictly below `lane` (all 64 when `lane >= 64`).
    let below = if lane >= 64 { u64::MAX } else { (1u64 << lane) - 1 };
    let eq = if lane >= 64 { 0 } else { 1u64 << lane };
    all & match kind {
        LaneMask::Lt => below,
        LaneMask::Le => below | eq,
        LaneMask::Eq => eq,
        LaneMask::Ge => !below,
        LaneMask::Gt => !(below | eq),
    }
}

/// `elect` (`elect.sync`): 1 on the lowest active lane `< width`, 0 on every other lane.
pub fn elect(active: u64, width: u32) -> Vec<u64> {
    let w = lanes(width);
    let first = (0..w).find(|&i| is_active(active, i));
    (0..w).map(|i| u64::from(Some(i) == first)).collect()
}

/// `vote.all` / `vote.any` / `vote.eq` over the active lanes of each tile; every active lane gets
/// its tile's result as a `bool` (0/1), inactive lanes keep their own value.
pub fn vote(kind: VoteKind, ty: ScalarType, vals: &[u64], active: u64, width: u32, tile: Tile) -> Vec<u64> {
    let w = lanes(width);
    let mut out = own_values(vals, w);
    if w == 0 {
        return out;
    }
    let t = tile_lanes(tile, w);
    for base in (0..w).step_by(t) {
        let end = (base + t).min(w);
        let mut act = (base..end).filter(|&i| is_active(active, i)).map(|i| canon(ty, lane(vals, i)));
        let first = match act.next() {
            Some(v) => v,
            None => continue,
        };
        let truth = |v: u64| cast(ty, ScalarType::Bool, v) != 0;
        let result = match kind {
            VoteKind::All => truth(first) && act.all(truth),
            VoteKind::Any => truth(first) || act.any(truth),
            VoteKind::Eq => compare(CmpCond::Eq, ty, first, first) && act.all(|v| compare(CmpCond::Eq, ty, first, v)),
        };
        for (i, slot) in out.iter_mut().enumerate().take(end).skip(base) {
            if is_active(active, i) {
                *slot = u64::from(result);
            }
        }
    }
    out
}

/// Working lanes: the next power of two ≥ the width, inactive and padding lanes at `fill`.
struct Lanes {
    /// The lane values (`v[..padded]` meaningful).
    v: [u64; 64],
    /// Real lanes (the clamped width).
    w: usize,
    /// Lanes including padding (a power of two ≤ 64).
    padded: usize,
}

impl Lanes {
    /// Loads canonical values of active lanes, `fill` for inactive and padding lanes.
    fn load(ty: ScalarType, vals: &[u64], active: u64, w: usize, fill: u64) -> Lanes {
        let mut v = [fill; 64];
        for (i, slot) in v.iter_mut().enumerate().take(w) {
            if is_active(active, i) {
                *slot = canon(ty, lane(vals, i));
            }
        }
        Lanes { v, w, padded: w.next_power_of_two().min(64) }
    }

    /// The result vector: working value for active lanes, own input value for inactive ones.
    fn finish(&self, vals: &[u64], active: u64) -> Vec<u64> {
        (0..self.w).map(|i| if is_active(active, i) { self.v[i] } else { lane(vals, i) }).collect()
    }
}

/// Checks that `op` applies to `ty` (independently of the lanes) and returns its identity.
fn checked_identity(op: GroupOp, ty: ScalarType) -> Result<u64, EvalError> {
    let id = identity(op, ty);
    combine(op, ty, id, id)?;
    Ok(id)
}

/// `subgroup.reduce op tile`: every active lane gets `op` over the active lanes of its tile,
/// combined in the butterfly order (own value left); see the module docs.
pub fn reduce(
    op: GroupOp,
    ty: ScalarType,
    vals: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let id = checked_identity(op, ty)?;
    let w = lanes(width);
    if w == 0 {
        return Ok(Vec::new());
    }
    let mut l = Lanes::load(ty, vals, active, w, id);
    // A non-power-of-two tile (only possible as the whole of a non-power-of-two subgroup) is
    // padded with identity lanes up to the next power of two.
    let t = tile_lanes(tile, w).next_power_of_two().min(l.padded);
    let mut k = 1;
    while k < t {
        for i in 0..l.padded {
            let j = i ^ k;
            if i < j {
                let (a, b) = (l.v[i], l.v[j]);
                l.v[i] = combine(op, ty, a, b)?;
                l.v[j] = combine(op, ty, b, a)?;
            }
        }
        k <<= 1;
    }
    Ok(l.finish(vals, active))
}

/// Inclusive Hillis–Steele scan of `v[..w]` within tiles of `t` lanes, predecessor left.
fn hillis_steele(op: GroupOp, ty: ScalarType, v: &mut [u64; 64], w: usize, t: usize) -> Result<(), EvalError> {
    let mut k = 1;
    while k < t {
        // Descending, so `v[i - k]` still holds the previous step's value when read.
        for i in (0..w).rev() {
            if i % t >= k {
                v[i] = combine(op, ty, v[i - k], v[i])?;
            }
        }
        k <<= 1;
    }
    Ok(())
}

/// `subgroup.scan op tile`: every active lane gets the inclusive (or exclusive) prefix of the
/// active lanes of its tile, in Hillis–Steele order; see the module docs.
pub fn scan(
    op: GroupOp,
    ty: ScalarType,
    inclusive: bool,
    vals: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let id = checked_identity(op, ty)?;
    let w = lanes(width);
    if w == 0 {
        return Ok(Vec::new());
    }
    let mut l = Lanes::load(ty, vals, active, w, id);
    let t = tile_lanes(tile, w);
    if !inclusive {
        for i in (0..w).rev() {
            l.v[i] = if i % t == 0 { id } else { l.v[i - 1] };
        }
    }
    hillis_steele(op, ty, &mut l.v, w, t)?;
    Ok(l.finish(vals, active))
}

/// `subgroup.segreduce op tile`: every active lane gets `op` over its segment's values from the
/// last head (or the tile start) to itself, in Quadrants' distance order (own value left); see
/// the module docs. `heads[i] != 0` marks lane `i` as a segment head (ignored when inactive).
pub fn segreduce(
    op: GroupOp,
    ty: ScalarType,
    vals: &[u64],
    heads: &[u64],
    active: u64,
    width: u32,
    tile: Tile,
) -> Result<Vec<u64>, EvalError> {
    let id = checked_identity(op, ty)?;
    let w = lanes(width);
    if w == 0 {
        return Ok(Vec::new());
    }
    let mut l = Lanes::load(ty, vals, active, w, id);
    let t = tile_lanes(tile, w);
    let mut dist = [0usize; 64];
    let mut head = 0;
    for (i, d) in dist.iter_mut().enumerate().take(w) {
        if i % t == 0 || (is_active(active, i) && lane(heads, i) != 0) {
            head = i;
        }
        *d = i - head;
    }
    let mut k = 1;
    while k < t {
        for i in (0..w).rev() {
            if dist[i] >= k {
                l.v[i] = combine(op, ty, l.v[i], l.v[i - k])?;
            }
        }
        k <<= 1;
    }
    Ok(l.finish(vals, active))
}
