//! The multi-launch radix sort (Quadrants' phases, docs/algorithms.md §4 "Multi-launch"), on every target: per
//! 8-bit pass `p` (`bit_start = 8p`, keys ping-pong `keys → tmp` for even `p`, `tmp → keys` for
//! odd `p`):
//! 1. `_radix_hist`: per 256-element tile `b` of the `num_blocks = ceil(n/256)` tiles, a 257-slot
//!    shared histogram (slot 256 takes the lanes past `n`, so the atomic is unconditional),
//!    written digit-major: `scratch[d * num_blocks + b]`;
//! 2. the in-place `u32` exclusive add-scan of `scratch[0 : hist_len]`, `hist_len = num_blocks *
//!    256`, with `D - 1` staircase levels (the shared [`super::staircase`] phases; partials after
//!    `hist_len`, which is where `sort_scratch_slots` counts them): `scratch[d * num_blocks + b]`
//!    becomes the number of keys with a smaller digit, or the same digit in an earlier tile;
//! 3. `_radix_scatter`: per tile, the block rank of the digits (lanes past `n` rank the digit
//!    0xFF of the all-ones key, after every live lane), `block_offsets[d] = scratch[d *
//!    num_blocks + b] - excl_prefix[d]`, and each live key (and value) goes to
//!    `block_offsets[d] + rank`.
//!
//! Launches per pass: `1 + (2(D-1) + 1) + 1 = 2D + 1`.

use super::common::{for_tiles, live_count, phase_kernel, tiles_of, Call};
use super::sort_keys::{load_digit, Dir, KeyType, Moves, Payload};
use super::sort_rank::block_rank;
use super::staircase::{emit_scan_inplace, finish_phase, Len, ScanOp, Span};
use super::{Options, BLOCK_DIM};
use crate::block::SharedArray;
use qd_frontend::{
    AtomicOp, Buf, BuildError, Dim, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType,
    Scope, Val,
};
use qd_mir::GroupOp;

/// One tile's element index, whether it is live, and an index clamped into `[0, n)` that is
/// safe to load (`n >= 1` inside a tile loop).
fn tile_elem(k: &mut KernelBuilder<'_>, tile: Val, n: Val) -> Result<(Val, Val, Val, Val), BuildError> {
    let t = k.thread_id(Dim::X)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let base = k.mul(tile, bd)?;
    let i = k.add(base, t)?;
    let live = k.lt(i, n)?;
    let one = k.const_u32(1)?;
    let last = k.sub(n, one)?;
    let safe = k.min(i, last)?;
    Ok((t, i, live, safe))
}

/// `_radix_hist` for one pass. Kernel `qd_sort_hist_<key>_w<W>`; launch constant `bit_start`.
fn hist_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    src: ProgramArg,
    scratch: ProgramArg,
    bit_start: u32,
) -> Result<(), BuildError> {
    let name = p.name("hist", false, opts, "");
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let keys = k.buffer("src", p.kt.elem);
    let sc = k.buffer("scratch", ScalarType::U32);
    let bit = k.scalar("bit_start", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let nb = tiles_of(&mut k, n)?;
    let hist = SharedArray::new(&mut k, "qd_sort_hist", ScalarType::I32, &[BLOCK_DIM + 1])?;
    for_tiles(&mut k, nb, |k, tile| {
        let (t, _, live, safe) = tile_elem(k, tile, n)?;
        let zero = k.const_i32(0)?;
        k.store(hist.buf(), t, zero)?;
        let z = k.const_u32(0)?;
        let first = k.eq(t, z)?;
        k.if_then(first, |k| {
            let dump = k.const_u32(BLOCK_DIM)?;
            k.store(hist.buf(), dump, zero)
        })?;
        k.block_sync()?;
        let (_, d) = load_digit(k, p.kt, keys, safe, bit)?;
        let dump = k.const_u32(BLOCK_DIM)?;
        let slot = k.select(live, d, dump)?;
        let one = k.const_i32(1)?;
        let _ = k.atomic_rmw(AtomicOp::Add, Scope::Block, hist.buf(), slot, one)?;
        k.block_sync()?;
        let c = k.load(hist.buf(), t)?;
        let c = k.bitcast(c, ScalarType::U32)?;
        let row = k.mul(t, nb)?;
        let at = k.add(row, tile)?;
        k.store(sc, at, c)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([src, scratch, ProgramArg::u32(bit_start)]);
    pb.launch(&f, &args)
}

/// `_radix_scatter` for one pass. Kernel `qd_sort_scatter_<key>[_<value>]_w<W>`; launch constant
/// `bit_start`.
fn scatter_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    dir: Dir,
    scratch: ProgramArg,
    bit_start: u32,
) -> Result<(), BuildError> {
    let name = p.name("scatter", true, opts, "");
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let mv = Moves::declare(&mut k, p);
    let sc = k.buffer("scratch", ScalarType::U32);
    let bit = k.scalar("bit_start", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let nb = tiles_of(&mut k, n)?;
    let bins = SharedArray::new(&mut k, "qd_sort_bins", ScalarType::I32, &[BLOCK_DIM])?;
    let excl = SharedArray::new(&mut k, "qd_sort_excl", ScalarType::I32, &[BLOCK_DIM])?;
    let offs = SharedArray::new(&mut k, "qd_sort_block_offsets", ScalarType::U32, &[BLOCK_DIM])?;
    for_tiles(&mut k, nb, |k, tile| scatter_tile(k, p.kt, &mv, sc, bit, n, nb, tile, [&bins, &excl, &offs]))?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend(dir.args());
    args.extend([scratch, ProgramArg::u32(bit_start)]);
    pb.launch(&f, &args)
}

#[allow(clippy::too_many_arguments)]
fn scatter_tile(
    k: &mut KernelBuilder<'_>,
    kt: KeyType,
    mv: &Moves,
    sc: Buf,
    bit: Val,
    n: Val,
    nb: Val,
    tile: Val,
    [bins, excl, offs]: [&SharedArray; 3],
) -> Result<(), BuildError> {
    let (t, i, live, safe) = tile_elem(k, tile, n)?;
    let (key, d) = load_digit(k, kt, mv.src, safe, bit)?;
    let ff = k.const_u32(0xFF)?;
    let digit = k.select(live, d, ff)?;
    let rank = block_rank(k, digit, bins, excl)?;
    let row = k.mul(t, nb)?;
    let at = k.add(row, tile)?;
    let g = k.load(sc, at)?;
    let e = k.load(excl.buf(), t)?;
    let e = k.bitcast(e, ScalarType::U32)?;
    let o = k.sub(g, e)?;
    k.store(offs.buf(), t, o)?;
    k.block_sync()?;
    k.if_then(live, |k| {
        let o = k.load(offs.buf(), digit)?;
        let r = k.bitcast(rank, ScalarType::U32)?;
        let to = k.add(o, r)?;
        mv.put(k, key, i, to)
    })
}

/// Appends the multi-launch passes: `passes * (2D + 1)` launches; `dirs[p]` is pass `p`'s
/// direction.
pub(crate) fn emit(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    dirs: &[Dir],
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let levels = call.cap.log256() - 1;
    let sop = ScanOp { ty: ScalarType::U32, op: GroupOp::Add };
    for (pass, dir) in dirs.iter().enumerate() {
        let bit_start = 8 * pass as u32;
        hist_phase(pb, opts, call, p, dir.src, scratch, bit_start)?;
        emit_scan_inplace(pb, opts, call, sop, scratch, Span::root(Len::Zero, Len::HistLen), levels)?;
        scatter_phase(pb, opts, call, p, *dir, scratch, bit_start)?;
    }
    Ok(())
}
