//! The block rank of the radix sort's phases: 256 threads, one 8-bit digit each, give every
//! thread its stable rank `excl_prefix[d] + #{j < tid : digit_j == d}` and the block's digit
//! histogram `bins` with its exclusive prefix `excl_prefix` (shared `i32[256]` arrays, readable
//! by every thread on return).
//!
//! At subgroup widths 32 and 64 (Quadrants' only ones) this is
//! [`crate::block::radix_rank_match_atomic_or`]. At narrower widths that primitive needs
//! `256 / W` per-subgroup histograms of 256 `i32` counts plus as many match masks (64 KiB at
//! `W = 8`, 128 KiB at `W = 4`: over every shared-memory limit), so the sort ranks with packed
//! byte counters instead:
//! 1. a table of `256 / W` rows of 64 `u32` words, byte `d % 4` of word `d / 4` of row `s`
//!    counting digit `d` in subgroup `s` (a subgroup has at most 64 lanes, so a byte holds it);
//! 2. within a subgroup, `match.any` on the digit gives each lane its peers; the lowest peer
//!    adds their number into the table (one shared atomic per digit and subgroup) and each lane's
//!    rank among its peers is the popcount of the peers below it;
//! 3. 64 threads turn each column of words into its running exclusive prefix over the rows, four
//!    digits per word at once (a prefix over earlier subgroups is at most `256 - W`, so bytes
//!    never carry), and write `bins`;
//! 4. `excl_prefix` = the exclusive prefix of `bins`, by the first subgroup (each lane sums
//!    `256 / W` consecutive bins, one subgroup scan, each lane writes its bins' prefixes);
//! 5. `rank = excl_prefix[d] + byte(table[s][d]) + peers below`.
//!
//! Shared memory: `64 KiB / W` of table (16 KiB at `W = 4`, 8 KiB at `W = 8`), so widths 2 to 16
//! fit every device's limit; width 1 would need 64 KiB and is refused by [`check_width`].

use super::BLOCK_DIM;
use crate::block::SharedArray;
use crate::common::{err, Loc};
use qd_frontend::{AtomicOp, BuildError, Dim, ErrorKind, KernelBuilder, ScalarType, Scope, Tile, Type, Val};
use qd_mir::GroupOp;

/// Words per row of the packed table (four 8-bit digit counts per `u32`).
const WORDS: u32 = BLOCK_DIM / 4;

/// An error unless the sort's block rank can be built at width `w`.
pub(crate) fn check_width(loc: Loc, w: u32) -> Result<(), BuildError> {
    if w < 2 {
        return Err(err(
            loc,
            ErrorKind::Config,
            format!(
                "sort: subgroup width {w} is not supported (the block rank keeps a byte per digit and subgroup: \
                 256 subgroups of one lane would need 64 KiB of shared memory); widths 2 to 64 are"
            ),
        ));
    }
    Ok(())
}

/// The stable rank (`i32`) of this thread's `digit` (a `u32` below 256) in the block of
/// [`BLOCK_DIM`] threads; fills `bins` and `excl_prefix` and syncs the block. Every thread must
/// call it; a caller that calls it in a loop must sync the block between its last reads of the
/// arrays and the next call.
pub(crate) fn block_rank(
    k: &mut KernelBuilder<'_>,
    digit: Val,
    bins: &SharedArray,
    excl_prefix: &SharedArray,
) -> Result<Val, BuildError> {
    let w = k.subgroup_size_hint().unwrap_or(0);
    if w >= 32 {
        return crate::block::radix_rank_match_atomic_or(k, digit, BLOCK_DIM, 8, 0, 8, bins, excl_prefix);
    }
    packed_rank(k, w.max(1), digit, bins, excl_prefix)
}

/// The packed-byte-counter rank of the module docs.
fn packed_rank(
    k: &mut KernelBuilder<'_>,
    w: u32,
    digit: Val,
    bins: &SharedArray,
    excl_prefix: &SharedArray,
) -> Result<Val, BuildError> {
    let nsg = BLOCK_DIM / w;
    let words = nsg * WORDS;
    let name = crate::block::fresh_shared_name(k, "qd_sort_rank_counts");
    let table = k.shared_array(&name, ScalarType::U32, words);
    let tid = k.thread_id(Dim::X)?;
    let sg = k.subgroup_id()?;
    let zero = k.const_u32(0)?;

    // 1. Zero the table (`words` is a multiple of 256 for every width up to 64).
    for m in 0..words / BLOCK_DIM {
        let off = k.const_u32(m * BLOCK_DIM)?;
        let i = k.add(tid, off)?;
        k.store(table, i, zero)?;
    }
    k.block_sync()?;

    // 2. Peers within the subgroup; the lowest one adds the count into the table.
    let peers = k.match_any(digit)?;
    let lt = k.lane_mask_lt()?;
    let below = k.and(peers, lt)?;
    let below = k.popcount(below)?;
    let below = k.cast(below, ScalarType::U32)?;
    let count = k.popcount(peers)?;
    let count = k.cast(count, ScalarType::U32)?;
    let two = k.const_u32(2)?;
    let three = k.const_u32(3)?;
    let c64 = k.const_u32(WORDS)?;
    let row = k.mul(sg, c64)?;
    let col = k.shr(digit, two)?;
    let cell = k.add(row, col)?;
    let byte = k.and(digit, three)?;
    let eight = k.const_u32(8)?;
    let shift = k.mul(byte, eight)?;
    let lowest = k.eq(below, zero)?;
    k.if_then(lowest, |k| {
        let add = k.shl(count, shift)?;
        let _ = k.atomic_rmw(AtomicOp::Add, Scope::Block, table, cell, add)?;
        Ok(())
    })?;
    k.block_sync()?;

    // 3. Column prefixes over the rows, four digits per word; `bins` from the last row.
    let ff = k.const_u32(0xFF)?;
    let is_col = k.lt(tid, c64)?;
    k.if_then(is_col, |k| {
        let run = k.declare_var(Type::U32);
        k.def_var(run, zero)?;
        let last = k.const_u32(nsg - 1)?;
        k.for_range(zero, last, None, |k, j| {
            let r = k.mul(j, c64)?;
            let at = k.add(r, tid)?;
            let c = k.load(table, at)?;
            let acc = k.use_var(run)?;
            k.store(table, at, acc)?;
            let next = k.add(acc, c)?;
            k.def_var(run, next)
        })?;
        let r = k.mul(last, c64)?;
        let at = k.add(r, tid)?;
        let c = k.load(table, at)?;
        let acc = k.use_var(run)?;
        k.store(table, at, acc)?;
        let four = k.const_u32(4)?;
        let d0 = k.mul(tid, four)?;
        for i in 0..4u32 {
            let s = k.const_u32(8 * i)?;
            let a = k.shr(acc, s)?;
            let a = k.and(a, ff)?;
            let b = k.shr(c, s)?;
            let b = k.and(b, ff)?;
            let total = k.add(a, b)?;
            let total = k.bitcast(total, ScalarType::I32)?;
            let iv = k.const_u32(i)?;
            let d = k.add(d0, iv)?;
            k.store(bins.buf(), d, total)?;
        }
        Ok(())
    })?;
    k.block_sync()?;

    // 4. The block's exclusive digit prefix, by the first subgroup alone: lane `l` sums its
    //    `256 / W` consecutive bins, one subgroup scan, then lane `l` writes its bins' prefixes
    //    (a block scan would cost every thread a fold over the `256 / W` subgroup partials).
    let lane = k.lane_id()?;
    let first = k.eq(sg, zero)?;
    k.if_then(first, |k| {
        let per = k.const_u32(BLOCK_DIM / w)?;
        let lo = k.mul(lane, per)?;
        let hi = k.add(lo, per)?;
        let zi = k.const_i32(0)?;
        let sum = k.declare_var(Type::I32);
        k.def_var(sum, zi)?;
        k.for_range(lo, hi, None, |k, d| {
            let c = k.load(bins.buf(), d)?;
            let acc = k.use_var(sum)?;
            let acc = k.add(acc, c)?;
            k.def_var(sum, acc)
        })?;
        let total = k.use_var(sum)?;
        let ex = k.subgroup_scan(GroupOp::Add, Tile::Full, false, total)?;
        k.def_var(sum, ex)?;
        k.for_range(lo, hi, None, |k, d| {
            let acc = k.use_var(sum)?;
            k.store(excl_prefix.buf(), d, acc)?;
            let c = k.load(bins.buf(), d)?;
            let acc = k.add(acc, c)?;
            k.def_var(sum, acc)
        })
    })?;
    k.block_sync()?;

    // 5. The rank.
    let word = k.load(table, cell)?;
    let pre = k.shr(word, shift)?;
    let pre = k.and(pre, ff)?;
    let base = k.load(excl_prefix.buf(), digit)?;
    let base = k.bitcast(base, ScalarType::U32)?;
    let r = k.add(base, pre)?;
    let r = k.add(r, below)?;
    k.bitcast(r, ScalarType::I32)
}
