//! `radix_rank_match_atomic_or` (Quadrants §2.5): the stable rank of each thread's key digit in
//! the block, with the digit histogram and its exclusive prefix, by per-subgroup histograms and an
//! atomic-OR match of the lanes that share a digit.
//!
//! Steps (one key per thread, `R = 2^radix_bits = block_dim` digits, `NUM_SG` subgroups):
//! 1. each lane zeroes `R / W` entries of its subgroup's histogram `offsets[sg*R ..]` and match
//!    masks `match[sg*R ..]`; subgroup sync + fence; every thread `atomic_add(offsets[sg*R + d], 1)`;
//!    `block.sync`.
//! 2. thread `t` (= digit `t`) walks the subgroups: `offsets[j*R + t]` becomes the running count
//!    of the subgroups before `j`; `bin_count` = the block's count of digit `t`.
//! 3. `excl = block::exclusive_add(bin_count)`.
//! 4. `offsets[j*R + t] += excl`; `block.sync`.
//! 5. every thread ORs its lane bit into `match[sg*R + d]`; subgroup sync + fence; the highest lane
//!    of each digit (the leader) claims `popc` slots with `atomic_add(offsets[sg*R + d], popc)`,
//!    where `popc = popcount(mask & lanes ≤ mine)` (the leader's is the subgroup's count); the
//!    old value is shuffled from the leader; the leader clears the mask; subgroup sync + fence;
//!    `rank = offset + popc - 1`.
//! 6. `bins[t] = bin_count`, `excl_prefix[t] = excl`; `block.sync`.
//!
//! Widths up to 32 use `i32` match masks (`31 - clz`), wave64 `i64` masks (`63 - clz`); the
//! algorithm is exact at every width (Quadrants accepts only 32 and 64).

use super::collective::block_geometry;
use super::{fresh_shared_name, shared_bytes, ElemShape, SharedArray};
use crate::common::{at, err, Loc};
use crate::op::Op;
use qd_frontend::{AtomicOp, BuildError, ErrorKind, KernelBuilder, ScalarType, Scope, SharedBuf, Val};
use qd_mir::GroupOp;
use std::panic::Location;

const NAME: &str = "block::radix_rank_match_atomic_or";

fn check_out(loc: Loc, what: &str, a: &SharedArray, r: u32) -> Result<(), BuildError> {
    if a.dtype() != ScalarType::I32 || a.elem_shape() != ElemShape::Scalar || a.shape() != [r] {
        return Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!(
                "{NAME}: {what} must be a SharedArray of shape [{r}] (1 << radix_bits) of i32 scalars, got @{} of \
                 shape {:?} of {} {:?}",
                a.name(),
                a.shape(),
                a.dtype(),
                a.elem_shape()
            ),
        ));
    }
    Ok(())
}

/// Subgroup barrier plus subgroup fence (Quadrants `_subgroup_sync_fence`: `__syncwarp`
/// semantics on every back end).
fn sync_fence(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    b.subgroup_sync()?;
    b.fence(Scope::Subgroup)
}

#[allow(clippy::too_many_arguments)]
fn rank_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    key: Val,
    block_dim: u32,
    radix_bits: u32,
    bit_start: u32,
    num_bits: u32,
    bins: &SharedArray,
    excl_prefix: &SharedArray,
) -> Result<Val, BuildError> {
    if key.scalar() != Some(ScalarType::U32) {
        return Err(err(loc, ErrorKind::TypeMismatch, format!("{NAME}: the key must be u32, got {}", key.ty())));
    }
    if !(1..=10).contains(&radix_bits) {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{NAME}: radix_bits {radix_bits} is outside 1..=10 (block_dim = 1 << radix_bits threads, at most \
                 1024)"
            ),
        ));
    }
    if block_dim != 1u32 << radix_bits {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{NAME}: block_dim must equal RADIX_DIGITS (1 << radix_bits): block_dim {block_dim}, radix_bits \
                 {radix_bits}"
            ),
        ));
    }
    if num_bits == 0 || num_bits > radix_bits || bit_start >= 32 {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{NAME}: need 1 <= num_bits <= radix_bits and bit_start < 32 (num_bits {num_bits}, radix_bits \
                 {radix_bits}, bit_start {bit_start})"
            ),
        ));
    }
    let (w, nsg) = block_geometry(b, loc, NAME, block_dim)?;
    let r = block_dim;
    check_out(loc, "bins", bins, r)?;
    check_out(loc, "excl_prefix", excl_prefix, r)?;
    let wide = w > 32;
    let mty = if wide { ScalarType::I64 } else { ScalarType::I32 };
    let cells = nsg * r;
    let need = u64::from(cells) * u64::from(4 + mty.bytes()) + 4 * u64::from(nsg);
    if shared_bytes(b) + need > 64 * 1024 {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{NAME}: needs {need} bytes of shared memory ({nsg} subgroups × {r} digits × (4 + {}) bytes), which \
                 would bring the kernel over the 64 KiB limit",
                mty.bytes()
            ),
        ));
    }
    let name = fresh_shared_name(b, "qd_radix_offsets");
    let offsets: SharedBuf = b.shared_array(&name, ScalarType::I32, cells);
    let name = fresh_shared_name(b, "qd_radix_match");
    let matches: SharedBuf = b.shared_array(&name, mty, cells);

    let sg = b.subgroup_id()?;
    let lane = b.lane_id()?;
    let wv = b.const_u32(w)?;
    let rv = b.const_u32(r)?;
    let sg_w = b.mul(sg, wv)?;
    let tid = b.add(sg_w, lane)?; // the linear thread id = this thread's digit in steps 2–6
    let sg_base = b.mul(sg, rv)?;
    let zero_i = b.const_i32(0)?;
    let zero_m = b.const_scalar(mty, 0)?;

    // Step 1: zero this subgroup's histogram and match masks, then count.
    for k in 0..r / w {
        let kv = b.const_u32(k * w)?;
        let bin = b.add(lane, kv)?;
        let idx = b.add(sg_base, bin)?;
        b.store(offsets, idx, zero_i)?;
        b.store(matches, idx, zero_m)?;
    }
    sync_fence(b)?;
    let shift = b.const_u32(bit_start)?;
    let shifted = b.shr(key, shift)?;
    let dmask = b.const_u32(((1u64 << num_bits) - 1) as u32)?;
    let digit = b.and(shifted, dmask)?;
    let cell = b.add(sg_base, digit)?;
    let one_i = b.const_i32(1)?;
    let _ = b.atomic_rmw(AtomicOp::Add, Scope::Block, offsets, cell, one_i)?;
    b.block_sync()?;

    // Step 2: column sums over the subgroups for digit `tid`.
    let mut bin_count = zero_i;
    for j in 0..nsg {
        let base = b.const_u32(j * r)?;
        let idx = b.add(base, tid)?;
        let count = b.load(offsets, idx)?;
        b.store(offsets, idx, bin_count)?;
        bin_count = b.add(bin_count, count)?;
    }

    // Step 3: the block-wide exclusive prefix of the digit counts.
    let excl = super::collective::exclusive_core(b, loc, NAME, bin_count, block_dim, Op::Builtin(GroupOp::Add), None)?;

    // Step 4: add it into every subgroup's offsets.
    for j in 0..nsg {
        let base = b.const_u32(j * r)?;
        let idx = b.add(base, tid)?;
        let o = b.load(offsets, idx)?;
        let o = b.add(o, excl)?;
        b.store(offsets, idx, o)?;
    }
    b.block_sync()?;

    // Step 5: the atomic-OR match.
    let (leader, popc) = if wide {
        let lane64 = b.cast(lane, ScalarType::U64)?;
        let one = b.const_u64(1)?;
        let m = b.shl(one, lane64)?;
        let m1 = b.sub(m, one)?;
        let le = b.or(m, m1)?;
        let mi = b.bitcast(m, ScalarType::I64)?;
        let _ = b.atomic_rmw(AtomicOp::Or, Scope::Block, matches, cell, mi)?;
        sync_fence(b)?;
        let got = b.load(matches, cell)?;
        let bin_mask = b.bitcast(got, ScalarType::U64)?;
        let clz = b.clz(bin_mask)?;
        let c63 = b.const_u64(63)?;
        let leader = b.sub(c63, clz)?;
        let leader = b.cast(leader, ScalarType::U32)?;
        let mine = b.and(bin_mask, le)?;
        let popc = b.popcount(mine)?;
        let popc = b.cast(popc, ScalarType::I32)?;
        (leader, popc)
    } else {
        let one = b.const_u32(1)?;
        let m = b.shl(one, lane)?;
        let m1 = b.sub(m, one)?;
        let le = b.or(m, m1)?;
        let mi = b.bitcast(m, ScalarType::I32)?;
        let _ = b.atomic_rmw(AtomicOp::Or, Scope::Block, matches, cell, mi)?;
        sync_fence(b)?;
        let got = b.load(matches, cell)?;
        let bin_mask = b.bitcast(got, ScalarType::U32)?;
        let clz = b.clz(bin_mask)?;
        let c31 = b.const_u32(31)?;
        let leader = b.sub(c31, clz)?;
        let mine = b.and(bin_mask, le)?;
        let popc = b.popcount(mine)?;
        let popc = b.bitcast(popc, ScalarType::I32)?;
        (leader, popc)
    };
    let is_leader = b.eq(lane, leader)?;
    let off = b.declare_var(ScalarType::I32);
    b.def_var(off, zero_i)?;
    b.if_then(is_leader, |b| {
        let old = b.atomic_rmw(AtomicOp::Add, Scope::Block, offsets, cell, popc)?;
        b.def_var(off, old)
    })?;
    let off = b.use_var(off)?;
    let off = b.shuffle_idx(off, leader)?;
    b.if_then(is_leader, |b| b.store(matches, cell, zero_m))?;
    sync_fence(b)?;
    let rank = b.add(off, popc)?;
    let rank = b.sub(rank, one_i)?;

    // Step 6: publish the histogram and its prefix.
    b.store(bins.buf(), tid, bin_count)?;
    b.store(excl_prefix.buf(), tid, excl)?;
    b.block_sync()?;
    Ok(rank)
}

/// The stable rank of this thread's key in the block by the digit
/// `(key >> bit_start) & ((1 << num_bits) - 1)`: `excl_prefix[d] + #{j < tid : digit_j == d}`
/// (i32), where `tid` is the linear thread id. Also writes `bins[d]` (the number of keys with
/// digit `d`) and `excl_prefix[d]` (the exclusive prefix sum of `bins`), then syncs the block so
/// every thread can read them.
///
/// Quadrants `qd.simt.block.radix_rank_match_atomic_or(key, block_dim, radix_bits, bit_start,
/// num_bits, bins, excl_prefix)`. `key`: u32, one per thread, every thread of the block taking
/// part. `block_dim` must equal `1 << radix_bits` and the kernel's block size (a positive multiple
/// of the subgroup width); `1 <= num_bits <= radix_bits`, `bit_start < 32`; `bins` and
/// `excl_prefix`: [`SharedArray`]s of shape `[1 << radix_bits]` of i32. Every width is supported
/// exactly (i32 match masks up to 32 lanes, i64 on wave64). Shared memory: `NUM_SG * R * 4` bytes
/// of offsets plus `NUM_SG * R * 4` (≤ 32 lanes) or `* 8` (wave64) of match masks plus the
/// exclusive scan's `NUM_SG * 4`. Cost: 2 atomics per thread, 4 block barriers (one inside the
/// exclusive scan), `2 * NUM_SG` shared loads/stores per thread.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn radix_rank_match_atomic_or(
    b: &mut KernelBuilder<'_>,
    key: Val,
    block_dim: u32,
    radix_bits: u32,
    bit_start: u32,
    num_bits: u32,
    bins: &SharedArray,
    excl_prefix: &SharedArray,
) -> Result<Val, BuildError> {
    let loc = Location::caller();
    rank_impl(b, loc, key, block_dim, radix_bits, bit_start, num_bits, bins, excl_prefix).map_err(at(loc))
}
