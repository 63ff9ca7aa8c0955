//! The onesweep radix sort: one launch per 8-bit pass, with decoupled look-back over the tiles
//! (targets with forward progress between blocks: the cpu interpreter, CUDA).
//!
//! Launches (`P` passes): `init` zeroes the state; `hist` counts the digits of every pass in one
//! read of the keys (per-block shared histograms, then device atomics); `scan` (one block) turns
//! each pass's 256 counts into exclusive digit offsets; then per pass one `pass` kernel: `3 + P`
//! launches whatever `D`.
//!
//! Pass kernel: a tile is [`TILE`] = 2048 keys, ranked as [`SUB_TILES`] sub-tiles of 256 (one key
//! per thread, [`super::sort_rank::block_rank`]); a key's place in its tile among equal digits is
//! its rank in its sub-tile plus the count of its digit in the earlier sub-tiles, so ranks stay
//! stable. One block per tile (grid `ceil(max_n / 2048)`, blocks past the live tiles return);
//! each block takes a ticket from an atomic counter (the order blocks start in), so a block only
//! waits on blocks that are already running. For each digit `d`, thread `d` publishes the tile's
//! count as an *aggregate* status word, walks back over the earlier tickets adding their counts
//! until it meets an *inclusive prefix* (spinning on `atomic.rmw or device w, 0` while a word is
//! still 0, then a device fence), and publishes its own inclusive prefix. A status word is the
//! flag in the top two bits (`01` aggregate, `10` inclusive prefix) and the count in the low 30,
//! one word, so the value and its flag are written at once; hence `max_n < 2^30`. Keys then go to
//! `digit_offset[d] + exclusive look-back prefix[d] + place in tile`.
//!
//! State in `scratch` (`u32`): `[0, 256P)` the digit counts, then offsets, of each pass;
//! `[256P, 257P)` the ticket counter of each pass; then the status words, two sets used by
//! alternate passes, interleaved per tile: set `s` of tile `t` at `257P + (2t + s) * 256`. Pass
//! `p` uses set `p % 2` and zeroes tile `t`'s words of the other set when it finishes tile `t`
//! (the previous pass, which used them, has finished), so the next pass finds them zero; `init`
//! zeroes the counts, tickets and both sets for the live tiles. All of it must fit in
//! `sort_scratch_slots(max_n, Some(D))` ([`fits`]): `257P + 512 * ceil(max_n / 2048)`, which
//! holds from `max_n = 1281` up with 4 passes and from 2817 up with 8 (natural depth).

use super::common::{for_tiles, live_count, phase_kernel, tiles_of, Call};
use super::sort_keys::{digit, load_digit, sortable, Dir, Moves, Payload};
use super::sort_rank::block_rank;
use super::staircase::finish_phase;
use super::{sort_scratch_slots, Capacity, Options, BLOCK_DIM};
use crate::block::SharedArray;
use qd_frontend::{
    AtomicOp, BuildError, Dim, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType, Scope,
    Type, Val,
};

/// Sub-tiles of 256 keys per tile.
pub(crate) const SUB_TILES: u32 = 8;
/// Keys per tile.
pub(crate) const TILE: u32 = SUB_TILES * BLOCK_DIM;
/// The status flag of a tile's own count.
const AGGREGATE: u32 = 1 << 30;
/// The status flag of an inclusive prefix.
const PREFIX: u32 = 2 << 30;
/// The count bits of a status word.
const COUNT: u32 = (1 << 30) - 1;

/// Whether the onesweep state fits, and what it needs (for the error of a forced single pass).
#[derive(Clone, Debug)]
pub(crate) struct Fit {
    /// True when it fits.
    pub ok: bool,
    /// What it needs against what there is.
    pub need: String,
}

/// The scratch slots the onesweep state takes for `max_n` and `passes`.
fn state_slots(max_n: u64, passes: u32) -> u64 {
    257 * u64::from(passes) + 2 * max_n.div_ceil(u64::from(TILE)) * u64::from(BLOCK_DIM)
}

/// Whether the onesweep state fits the Quadrants scratch for `cap` (and `max_n < 2^30`).
pub(crate) fn fits(cap: Capacity, passes: u32) -> Fit {
    let (m, d) = (cap.max_n(), cap.log256());
    let need = state_slots(m, passes);
    let have = sort_scratch_slots(m, Some(d)).unwrap_or(0);
    let ok = m < 1 << 30 && need <= have;
    let need = format!(
        "onesweep needs max_n < 2^30 and 257 * {passes} passes + 512 * ceil(max_n / {TILE}) = {need} u32 slots; \
         sort_scratch_slots({m}, {d}) = {have}"
    );
    Fit { ok, need }
}

/// `init`: zero `scratch[0 : hdr + 512 * ceil(n / TILE)]`. Kernel `qd_sort_os_init_w<W>`.
fn init_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    scratch: ProgramArg,
    hdr: u32,
) -> Result<(), BuildError> {
    let name = format!("qd_sort_os_init_w{}", opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let sc = k.buffer("scratch", ScalarType::U32);
    let h = k.scalar("hdr", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let nt = tiles_of_tile(&mut k, n)?;
    let per = k.const_u32(2 * BLOCK_DIM)?;
    let st = k.mul(nt, per)?;
    let len = k.add(h, st)?;
    let t = k.thread_id(Dim::X)?;
    let b = k.block_id(Dim::X)?;
    let g = k.grid_dim(Dim::X)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let b0 = k.mul(b, bd)?;
    let start = k.add(b0, t)?;
    let step = k.mul(g, bd)?;
    k.for_range(start, len, Some(step), |k, i| {
        let z = k.const_u32(0)?;
        k.store(sc, i, z)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([scratch, ProgramArg::u32(hdr)]);
    pb.launch(&f, &args)
}

/// `ceil(n / TILE)`.
fn tiles_of_tile(k: &mut KernelBuilder<'_>, n: Val) -> Result<Val, BuildError> {
    let c = k.const_u32(TILE - 1)?;
    let s = k.add(n, c)?;
    let d = k.const_u32(TILE)?;
    k.div(s, d)
}

/// `hist`: the digit counts of every pass, `scratch[p * 256 + d]`. Kernel
/// `qd_sort_os_hist_<key>_w<W>`.
fn hist_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    keys: ProgramArg,
    scratch: ProgramArg,
    passes: u32,
) -> Result<(), BuildError> {
    let name = p.name("os_hist", false, opts, "");
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let src = k.buffer("src", p.kt.elem);
    let sc = k.buffer("scratch", ScalarType::U32);
    let np = k.scalar("passes", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let maxp = p.kt.max_passes();
    let sh = SharedArray::new(&mut k, "qd_sort_hists", ScalarType::U32, &[maxp * BLOCK_DIM])?;
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    for m in 0..maxp {
        let off = k.const_u32(m * BLOCK_DIM)?;
        let i = k.add(off, t)?;
        k.store(sh.buf(), i, zero)?;
    }
    let nb = tiles_of(&mut k, n)?;
    for_tiles(&mut k, nb, |k, tile| {
        let base = k.mul(tile, bd)?;
        let i = k.add(base, t)?;
        let live = k.lt(i, n)?;
        k.if_then(live, |k| {
            let key = k.load(src, i)?;
            let bits = sortable(k, p.kt, key)?;
            k.for_range(zero, np, None, |k, pass| {
                let eight = k.const_u32(8)?;
                let bit = k.mul(pass, eight)?;
                let d = digit(k, p.kt, bits, bit)?;
                let row = k.mul(pass, bd)?;
                let at = k.add(row, d)?;
                let one = k.const_u32(1)?;
                let _ = k.atomic_rmw(AtomicOp::Add, Scope::Block, sh.buf(), at, one)?;
                Ok(())
            })
        })
    })?;
    k.block_sync()?;
    k.for_range(zero, np, None, |k, pass| {
        let row = k.mul(pass, bd)?;
        let at = k.add(row, t)?;
        let c = k.load(sh.buf(), at)?;
        let nz = k.ne(c, zero)?;
        k.if_then(nz, |k| {
            let _ = k.atomic_rmw(AtomicOp::Add, Scope::Device, sc, at, c)?;
            Ok(())
        })
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([keys, scratch, ProgramArg::u32(passes)]);
    pb.launch(&f, &args)
}

/// `scan`: one block turns each pass's 256 counts into exclusive offsets in place. Kernel
/// `qd_sort_os_scan_w<W>`.
fn scan_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    scratch: ProgramArg,
    passes: u32,
) -> Result<(), BuildError> {
    let name = format!("qd_sort_os_scan_w{}", opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    k.grid_fixed(1)?;
    let sc = k.buffer("scratch", ScalarType::U32);
    let np = k.scalar("passes", ScalarType::U32);
    let _ = live_count(&mut k, &pp)?;
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    k.for_range(zero, np, None, |k, pass| {
        k.block_sync()?;
        let bd = k.const_u32(BLOCK_DIM)?;
        let row = k.mul(pass, bd)?;
        let at = k.add(row, t)?;
        let c = k.load(sc, at)?;
        let e = crate::block::exclusive_add(k, c, BLOCK_DIM)?;
        k.store(sc, at, e)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([scratch, ProgramArg::u32(passes)]);
    pb.launch(&f, &args)
}

/// The launch constants of one pass.
#[derive(Copy, Clone, Debug)]
struct PassArgs {
    bit_start: u32,
    /// `p * 256`: this pass's digit offsets.
    digit_off: u32,
    /// This pass's ticket counter.
    ticket: u32,
    /// Offset of this pass's status set (tile stride 512).
    cur: u32,
    /// Offset of the other status set.
    other: u32,
    /// `max_tiles * 256`: the grid covers `max_tiles` blocks.
    cover: u32,
}

/// The shared arrays of the pass kernel.
struct PassShared {
    ticket: SharedArray,
    run: SharedArray,
    pos: SharedArray,
    bins: SharedArray,
    excl: SharedArray,
    gbase: SharedArray,
}

/// One pass. Kernel `qd_sort_os_pass_<key>[_<value>]_w<W>_t2048`.
fn pass_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    dir: Dir,
    scratch: ProgramArg,
    a: PassArgs,
) -> Result<(), BuildError> {
    let name = p.name("os_pass", true, opts, &format!("_t{TILE}"));
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let mv = Moves::declare(&mut k, p);
    let sc = k.buffer("scratch", ScalarType::U32);
    let bit = k.scalar("bit_start", ScalarType::U32);
    let digit_off = k.scalar("digit_off", ScalarType::U32);
    let ticket = k.scalar("ticket", ScalarType::U32);
    let cur = k.scalar("cur", ScalarType::U32);
    let other = k.scalar("other", ScalarType::U32);
    let cover = k.scalar("cover", ScalarType::U32);
    k.grid_cover(cover)?;
    let n = live_count(&mut k, &pp)?;
    let nt = tiles_of_tile(&mut k, n)?;
    let b = k.block_id(Dim::X)?;
    let idle = k.ge(b, nt)?;
    k.if_then(idle, |k| k.return_())?;
    let sh = PassShared {
        ticket: SharedArray::new(&mut k, "qd_sort_ticket", ScalarType::U32, &[1])?,
        run: SharedArray::new(&mut k, "qd_sort_run", ScalarType::U32, &[BLOCK_DIM])?,
        pos: SharedArray::new(&mut k, "qd_sort_pos", ScalarType::U32, &[TILE])?,
        bins: SharedArray::new(&mut k, "qd_sort_bins", ScalarType::I32, &[BLOCK_DIM])?,
        excl: SharedArray::new(&mut k, "qd_sort_excl", ScalarType::I32, &[BLOCK_DIM])?,
        gbase: SharedArray::new(&mut k, "qd_sort_gbase", ScalarType::U32, &[BLOCK_DIM])?,
    };
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let first_thread = k.eq(t, zero)?;
    k.if_then(first_thread, |k| {
        let one = k.const_u32(1)?;
        let tk = k.atomic_rmw(AtomicOp::Add, Scope::Device, sc, ticket, one)?;
        k.store(sh.ticket.buf(), zero, tk)
    })?;
    k.store(sh.run.buf(), t, zero)?;
    k.block_sync()?;
    let tile = k.load(sh.ticket.buf(), zero)?;
    let tsz = k.const_u32(TILE)?;
    let base = k.mul(tile, tsz)?;
    rank_tile(&mut k, &mv, p, &sh, bit, n, base)?;
    let count = tile_count(&mut k, &sh, n, base)?;
    let excl = look_back(&mut k, sc, cur, tile, count)?;
    let g = k.add(digit_off, t)?;
    let g = k.load(sc, g)?;
    let g = k.add(g, excl)?;
    k.store(sh.gbase.buf(), t, g)?;
    let stride = k.const_u32(2 * BLOCK_DIM)?;
    let row = k.mul(tile, stride)?;
    let o = k.add(other, row)?;
    let o = k.add(o, t)?;
    k.store(sc, o, zero)?;
    k.block_sync()?;
    scatter_tile(&mut k, &mv, p, &sh, bit, n, base)?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend(dir.args());
    args.push(scratch);
    args.extend([a.bit_start, a.digit_off, a.ticket, a.cur, a.other, a.cover].map(ProgramArg::u32));
    pb.launch(&f, &args)
}

/// Ranks the tile's sub-tiles: `pos[j * 256 + t]` = the key's place among the keys of its digit
/// in the tile; `run[d]` ends as the tile's count of digit `d` (lanes past `n` count as 0xFF).
fn rank_tile(
    k: &mut KernelBuilder<'_>,
    mv: &Moves,
    p: Payload,
    sh: &PassShared,
    bit: Val,
    n: Val,
    base: Val,
) -> Result<(), BuildError> {
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let subs = k.const_u32(SUB_TILES)?;
    k.for_range(zero, subs, None, |k, j| {
        k.block_sync()?;
        let bd = k.const_u32(BLOCK_DIM)?;
        let jb = k.mul(j, bd)?;
        let slot = k.add(jb, t)?;
        let i = k.add(base, slot)?;
        let live = k.lt(i, n)?;
        let one = k.const_u32(1)?;
        let last = k.sub(n, one)?;
        let safe = k.min(i, last)?;
        let (_, d) = load_digit(k, p.kt, mv.src, safe, bit)?;
        let ff = k.const_u32(0xFF)?;
        let d = k.select(live, d, ff)?;
        let rank = block_rank(k, d, &sh.bins, &sh.excl)?;
        let e = k.load(sh.excl.buf(), d)?;
        let within = k.sub(rank, e)?;
        let within = k.bitcast(within, ScalarType::U32)?;
        let before = k.load(sh.run.buf(), d)?;
        let place = k.add(before, within)?;
        k.store(sh.pos.buf(), slot, place)?;
        k.block_sync()?;
        let c = k.load(sh.bins.buf(), t)?;
        let c = k.bitcast(c, ScalarType::U32)?;
        let r = k.load(sh.run.buf(), t)?;
        let r = k.add(r, c)?;
        k.store(sh.run.buf(), t, r)
    })?;
    k.block_sync()
}

/// Thread `d`'s count of digit `d` in the tile, without the lanes past `n` (counted as 0xFF).
fn tile_count(k: &mut KernelBuilder<'_>, sh: &PassShared, n: Val, base: Val) -> Result<Val, BuildError> {
    let t = k.thread_id(Dim::X)?;
    let c = k.load(sh.run.buf(), t)?;
    let tsz = k.const_u32(TILE)?;
    let end = k.add(base, tsz)?;
    let live_end = k.min(end, n)?;
    let past = k.sub(end, live_end)?;
    let fixed = k.sub(c, past)?;
    let ff = k.const_u32(0xFF)?;
    let is_ff = k.eq(t, ff)?;
    k.select(is_ff, fixed, c)
}

/// Publishes thread `d`'s tile count, looks back over the earlier tiles and publishes the
/// inclusive prefix; returns the exclusive prefix of digit `d` over the earlier tiles.
fn look_back(
    k: &mut KernelBuilder<'_>,
    sc: qd_frontend::Buf,
    cur: Val,
    tile: Val,
    count: Val,
) -> Result<Val, BuildError> {
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let one = k.const_u32(1)?;
    let stride = k.const_u32(2 * BLOCK_DIM)?;
    let word_of = |k: &mut KernelBuilder<'_>, tl: Val| -> Result<Val, BuildError> {
        let row = k.mul(tl, stride)?;
        let w = k.add(cur, row)?;
        k.add(w, t)
    };
    let mine = word_of(k, tile)?;
    let first = k.eq(tile, zero)?;
    let agg = k.const_u32(AGGREGATE)?;
    let pre = k.const_u32(PREFIX)?;
    let flag = k.select(first, pre, agg)?;
    let word = k.or(flag, count)?;
    let _ = k.atomic_rmw(AtomicOp::Exch, Scope::Device, sc, mine, word)?;
    let excl = k.declare_var(Type::U32);
    k.def_var(excl, zero)?;
    let later = k.ne(tile, zero)?;
    k.if_then(later, |k| {
        let j = k.declare_var(Type::U32);
        let prev = k.sub(tile, one)?;
        k.def_var(j, prev)?;
        k.loop_(|k| {
            let jj = k.use_var(j)?;
            let at = word_of(k, jj)?;
            let seen = k.declare_var(Type::U32);
            k.def_var(seen, zero)?;
            k.loop_(|k| {
                let x = k.atomic_rmw(AtomicOp::Or, Scope::Device, sc, at, zero)?;
                k.def_var(seen, x)?;
                let ready = k.ne(x, zero)?;
                k.if_then(ready, |k| k.break_())
            })?;
            let x = k.use_var(seen)?;
            let m = k.const_u32(COUNT)?;
            let c = k.and(x, m)?;
            let acc = k.use_var(excl)?;
            let acc = k.add(acc, c)?;
            k.def_var(excl, acc)?;
            let p = k.and(x, pre)?;
            let is_prefix = k.ne(p, zero)?;
            let at_start = k.eq(jj, zero)?;
            let stop = k.or(is_prefix, at_start)?;
            k.if_then(stop, |k| k.break_())?;
            let next = k.sub(jj, one)?;
            k.def_var(j, next)
        })?;
        k.fence(Scope::Device)?;
        let e = k.use_var(excl)?;
        let incl = k.add(e, count)?;
        let w = k.or(pre, incl)?;
        let _ = k.atomic_rmw(AtomicOp::Exch, Scope::Device, sc, mine, w)?;
        Ok(())
    })?;
    k.use_var(excl)
}

/// Writes each live key (and value) of the tile to `gbase[d] + pos`.
fn scatter_tile(
    k: &mut KernelBuilder<'_>,
    mv: &Moves,
    p: Payload,
    sh: &PassShared,
    bit: Val,
    n: Val,
    base: Val,
) -> Result<(), BuildError> {
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let subs = k.const_u32(SUB_TILES)?;
    k.for_range(zero, subs, None, |k, j| {
        let bd = k.const_u32(BLOCK_DIM)?;
        let jb = k.mul(j, bd)?;
        let slot = k.add(jb, t)?;
        let i = k.add(base, slot)?;
        let live = k.lt(i, n)?;
        k.if_then(live, |k| {
            let (key, d) = load_digit(k, p.kt, mv.src, i, bit)?;
            let g = k.load(sh.gbase.buf(), d)?;
            let q = k.load(sh.pos.buf(), slot)?;
            let to = k.add(g, q)?;
            mv.put(k, key, i, to)
        })
    })
}

/// Appends the onesweep launches: `init`, `hist`, `scan`, then one `pass` per direction.
pub(crate) fn emit(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    dirs: &[Dir],
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let passes = dirs.len() as u32;
    let hdr = 257 * passes;
    let max_tiles = call.cap.max_n().div_ceil(u64::from(TILE)).max(1) as u32;
    init_phase(pb, opts, call, scratch, hdr)?;
    let keys = dirs.first().map_or(scratch, |d| d.src);
    hist_phase(pb, opts, call, p, keys, scratch, passes)?;
    scan_phase(pb, opts, call, scratch, passes)?;
    for (pass, dir) in dirs.iter().enumerate() {
        let pass = pass as u32;
        let a = PassArgs {
            bit_start: 8 * pass,
            digit_off: BLOCK_DIM * pass,
            ticket: BLOCK_DIM * passes + pass,
            cur: hdr + BLOCK_DIM * (pass % 2),
            other: hdr + BLOCK_DIM * ((pass + 1) % 2),
            cover: max_tiles * BLOCK_DIM,
        };
        pass_phase(pb, opts, call, p, *dir, scratch, a)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The onesweep state fits the Quadrants scratch from 1281 keys up with 4 passes and from
    /// 2817 up with 8 (natural depth), and never at `max_n >= 2^30`.
    #[test]
    fn fit_thresholds() -> Result<(), BuildError> {
        for (passes, first) in [(4u32, 1281u64), (8, 2817)] {
            assert!(!fits(Capacity::new(first - 1)?, passes).ok, "{passes} passes at {}", first - 1);
            for m in [first, first + 1, 65_536, 65_537, 1_000_000, (1 << 30) - 1] {
                assert!(fits(Capacity::new(m)?, passes).ok, "{passes} passes at {m}");
            }
            assert!(!fits(Capacity::new(1 << 30)?, passes).ok);
        }
        for m in [0u64, 1, 256, 257] {
            let f = fits(Capacity::new(m)?, 1);
            assert!(!f.ok && f.need.contains("sort_scratch_slots"), "{m}: {}", f.need);
        }
        Ok(())
    }

    /// The status words of both sets of the last tile end inside the scratch.
    #[test]
    fn state_inside_scratch() -> Result<(), BuildError> {
        for m in [1281u64, 2048, 2049, 4096, 65_537, 300_000] {
            let cap = Capacity::new(m)?;
            let last = 257 * 4 + (2 * (m.div_ceil(u64::from(TILE)) - 1) + 1) * 256 + 255;
            assert!(last < sort_scratch_slots(m, Some(cap.log256()))?, "max_n {m}");
            assert_eq!(state_slots(m, 4), last + 1);
        }
        Ok(())
    }
}
