//! The CPU forms of reduce, exclusive scan and radix sort ([`Strategy::Chunked`]): what a
//! multicore CPU runs best, as CUB picks its tuning per GPU architecture.
//!
//! A GPU hides memory latency with thousands of lanes and ranks keys across lanes; a CPU core
//! runs one serial loop fastest. So the data is cut into `B = min(CHUNKS, ceil(max_n / 256))`
//! contiguous chunks (chunk `b` is `[b·c, min((b+1)·c, n))` with `c = ceil(n / B)` for the live
//! count `n`), and every phase is a grid of `B` one-thread blocks at subgroup width 1 — on the
//! `cpu` device plain scalar native code, the blocks spread over the cores — each a loop over its
//! chunk:
//!
//! - **reduce** (2 launches): each block folds its chunk into `scratch[b]`; one block folds the
//!   `B` partials into `out[0]`. Floats instead keep the GPU form's exact tree at the target's
//!   width `W` (`D` launches): the first level's 256-element tiles are spread over the blocks,
//!   each tile reduced as the GPU form's `tile_reduce` does — per subgroup the butterfly's lane-0
//!   pairwise tree, then the subgroup results left to right, the identity past the end — and the
//!   small levels above run the GPU form's phases.
//! - **exclusive scan** (3 launches): the chunk folds into `scratch[b]`; one block scans them in
//!   place (exclusive); each block rescans its chunk from its prefix, writing `out`. Floats keep
//!   the GPU form's order (`2D - 1` launches): the float reduce's tree phase for the tile sums,
//!   the GPU form's phases for the small levels, and its downsweep on the blocks, each tile's
//!   block scan computed as the GPU form does it.
//! - **select** (5 launches): that scan of the flags into `scratch[0:n]` (partials at
//!   `scratch[n:]`), then the GPU form's scatter and count phases; **reduce-by-key** likewise
//!   scans its head flags in place (7 launches).
//! - **radix sort** (3 launches per 8-bit pass): each block counts the digits of its chunk into a
//!   256-entry shared histogram and writes it digit-major, `scratch[d·B + b]`; one block
//!   exclusive-scans the `256·B` counts in place (so `scratch[d·B + b]` is the number of keys
//!   with a smaller digit, or the same digit in an earlier chunk); each block walks its chunk in
//!   order and sends every key (and value) to its digit's next slot. Chunks are contiguous and
//!   walked in order, so each pass is stable, as the GPU forms are.
//!
//! The results are the GPU forms' bit for bit: sorting is a permutation that depends only on the
//! keys, and integer reduce and scan are exact in any order. Float reduce and scan are left to the
//! GPU forms (their sums would round in chunk order; Quadrants' block tree pads with the
//! identity). Every chunk count fits the scratch the Quadrants formulas give: `B ≤ ceil(max_n /
//! 256)`, and the sort's histogram `256·B` is at most its `hist_len` (for `max_n ≥ 1`: a sort of
//! capacity 0 keeps the GPU forms, its scratch being one slot). `B` is a build-time
//! constant (in the kernel names), so results never depend on the host's core count.

use super::common::{live_count, shaped_phase_kernel, tiles_of, Call, PhaseParams};
use super::sort_keys::{load_digit, sortable, Dir, Moves, Payload};
use super::staircase::{
    emit_scan_inplace, eval_span, finish_phase_at, load_or_identity, rebits, reduce_phase, scan_tile_phase,
    store_below, Io, Len, ScanOp, Span,
};
use super::{DeviceClass, Options, Strategy, BLOCK_DIM};
use crate::common::{err, identity, Loc};
use crate::op::Op;
use qd_frontend::{
    Buf, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType,
    Type, Val,
};

/// The most chunks (blocks) of a chunked phase: enough to keep 64 cores busy and to balance a
/// few, few enough that the per-chunk histograms of the sort stay small (`256 · 64` counts).
pub const CHUNKS: u32 = 64;

/// The radix of the chunked sort's passes (8-bit digits).
const RADIX: u32 = 256;

/// The chunk count for a capacity: `min(CHUNKS, ceil(max_n / 256))`, at least 1.
pub fn chunks(max_n: u64) -> u32 {
    max_n.div_ceil(256).clamp(1, u64::from(CHUNKS)) as u32
}

/// Whether a call of `algo` builds its chunked form: forced by [`Strategy::Chunked`] (an error on
/// a GPU target, or when `exact` is false — `inexact` says why), or chosen by [`Strategy::Auto`]
/// on a CPU target when it is exact.
pub(crate) fn pick(loc: Loc, algo: &str, opts: &Options, exact: bool, inexact: &str) -> Result<bool, BuildError> {
    let cpu = opts.target.class == DeviceClass::Cpu;
    match opts.strategy {
        Strategy::Chunked if !cpu => Err(err(
            loc,
            ErrorKind::Config,
            format!(
                "{algo}: Strategy::Chunked is the CPU form (one-thread blocks at subgroup width 1); \
                 the target is a GPU (Target::class)"
            ),
        )),
        Strategy::Chunked if !exact => {
            Err(err(loc, ErrorKind::Config, format!("{algo}: Strategy::Chunked is not offered here: {inexact}")))
        }
        Strategy::Chunked => Ok(true),
        Strategy::Auto => Ok(cpu && exact),
        Strategy::MultiLaunch | Strategy::SinglePass => Ok(false),
    }
}

/// A chunked phase kernel: `grid` one-thread blocks at subgroup width 1.
fn chunk_kernel<'c>(
    ctx: &'c mut FunctionBuilderContext,
    name: &str,
    grid: u32,
) -> Result<(KernelBuilder<'c>, PhaseParams), BuildError> {
    let (mut k, p) = shaped_phase_kernel(ctx, name, 1, 1)?;
    k.grid_fixed(grid)?;
    Ok((k, p))
}

/// This block's chunk `[lo, hi)` of `[0, n)` cut into `chunks` pieces.
fn chunk_range(k: &mut KernelBuilder<'_>, n: Val, chunks: u32) -> Result<(Val, Val), BuildError> {
    let b = k.block_id(Dim::X)?;
    let c1 = k.const_u32(chunks - 1)?;
    let cs = k.const_u32(chunks)?;
    // n <= i32::MAX, so neither sum wraps.
    let up = k.add(n, c1)?;
    let size = k.div(up, cs)?;
    let start = k.mul(b, size)?;
    let lo = k.min(start, n)?;
    let end = k.add(lo, size)?;
    let hi = k.min(end, n)?;
    Ok((lo, hi))
}

/// How many elements a chunk loop handles per iteration: the loop's own work (its bound, the
/// budget check on the `cpu` device) is paid once per `UNROLL` elements (16: measured on the
/// 2-core machine, 4 → 8 → 16 took the u32 reduce of 2^24 elements from 6.7 to 5.0 to 4.6 ms).
const UNROLL: u32 = 16;

/// `body(i)` for `i` in `[lo, hi)` in order (`lo <= hi`): a loop doing [`UNROLL`] elements per
/// iteration, then one for the rest.
fn for_chunk<F>(k: &mut KernelBuilder<'_>, lo: Val, hi: Val, mut body: F) -> Result<(), BuildError>
where
    F: FnMut(&mut KernelBuilder<'_>, Val) -> Result<(), BuildError>,
{
    let len = k.sub(hi, lo)?;
    let whole = k.const_u32(!(UNROLL - 1))?;
    let main_len = k.and(len, whole)?;
    let main_end = k.add(lo, main_len)?;
    let step = k.const_u32(UNROLL)?;
    k.for_range(lo, main_end, Some(step), |k, i| {
        for j in 0..UNROLL {
            let at = plus(k, i, j)?;
            body(k, at)?;
        }
        Ok(())
    })?;
    k.for_range(main_end, hi, None, body)
}

/// `base + j` (`base` itself for 0).
fn plus(k: &mut KernelBuilder<'_>, base: Val, j: u32) -> Result<Val, BuildError> {
    if j == 0 {
        return Ok(base);
    }
    let c = k.const_u32(j)?;
    k.add(base, c)
}

/// The `w` elements of one subgroup of a tile from element `first` of the region at `off` of
/// length `len` (the identity past it, as the GPU forms pad): their indices and values.
#[allow(clippy::too_many_arguments)]
fn load_subgroup(
    k: &mut KernelBuilder<'_>,
    src: Buf,
    off: Val,
    len: Val,
    sop: ScanOp,
    first: Val,
    w: u32,
) -> Result<(Vec<Val>, Vec<Val>), BuildError> {
    let mut idx = Vec::with_capacity(w as usize);
    let mut vals = Vec::with_capacity(w as usize);
    for j in 0..w {
        let i = plus(k, first, j)?;
        vals.push(load_or_identity(k, src, off, i, len, sop)?);
        idx.push(i);
    }
    Ok((idx, vals))
}

/// The subgroups of the 256-element tile at `base`, left to right, as the GPU forms' block
/// collectives fold them: `sub(first, None)` for the first subgroup, then `sub(first,
/// Some(fold so far))` for each later one, its result folded in on the right. Gives the fold.
fn fold_subgroups<F>(k: &mut KernelBuilder<'_>, sop: ScanOp, w: u32, base: Val, mut sub: F) -> Result<Val, BuildError>
where
    F: FnMut(&mut KernelBuilder<'_>, Val, Option<Val>) -> Result<Val, BuildError>,
{
    let op = Op::Builtin(sop.op);
    let acc = k.declare_var(Type::Scalar(sop.ty));
    let first = sub(k, base, None)?;
    k.def_var(acc, first)?;
    let one = k.const_u32(1)?;
    let end = k.const_u32(BLOCK_DIM / w)?;
    k.for_range(one, end, None, |k, s| {
        let wc = k.const_u32(w)?;
        let off = k.mul(s, wc)?;
        let at = k.add(base, off)?;
        let prev = k.use_var(acc)?;
        let v = sub(k, at, Some(prev))?;
        let r = op.apply(k, prev, v)?;
        k.def_var(acc, r)
    })?;
    k.use_var(acc)
}

/// `acc = op(acc, f(i, acc))` for `i` in `[lo, hi)` in order, from `init` (`lo <= hi`).
fn fold<F>(k: &mut KernelBuilder<'_>, sop: ScanOp, init: Val, lo: Val, hi: Val, mut f: F) -> Result<Val, BuildError>
where
    F: FnMut(&mut KernelBuilder<'_>, Val, Val) -> Result<Val, BuildError>,
{
    let acc = k.declare_var(Type::Scalar(sop.ty));
    k.def_var(acc, init)?;
    for_chunk(k, lo, hi, |k, i| {
        let a = k.use_var(acc)?;
        let x = f(k, i, a)?;
        let r = Op::Builtin(sop.op).apply(k, a, x)?;
        k.def_var(acc, r)
    })?;
    k.use_var(acc)
}

/// The element type of a buffer argument.
fn elem(a: ProgramArg) -> Result<ScalarType, BuildError> {
    match a.ty() {
        Type::Ptr(_, e) => Ok(e),
        t => Err(BuildError::new(
            std::panic::Location::caller(),
            ErrorKind::TypeMismatch,
            format!("chunked phase: expected a buffer, got {t}"),
        )),
    }
}

fn launch(pb: &mut ProgramBuilder, f: &qd_mir::Function, call: &Call, rest: &[ProgramArg]) -> Result<(), BuildError> {
    let mut args = call.args().to_vec();
    args.extend_from_slice(rest);
    pb.launch(f, &args)
}

/// A chunked phase's kernel over regions of buffers: a buffer parameter per `(name, region)`
/// in order, then the `u32` scalars `scalars`, with the live count checked and every region's
/// `(offset, length)` evaluated.
struct IoKernel<'c> {
    k: KernelBuilder<'c>,
    bufs: Vec<Buf>,
    spans: Vec<(Val, Val)>,
    scalars: Vec<Val>,
}

fn io_kernel<'c>(
    ctx: &'c mut FunctionBuilderContext,
    name: &str,
    grid: u32,
    regions: &[(&str, Io)],
    scalars: &[&str],
) -> Result<IoKernel<'c>, BuildError> {
    let (mut k, p) = chunk_kernel(ctx, name, grid)?;
    let mut bufs = Vec::with_capacity(regions.len());
    for (name, io) in regions {
        bufs.push(k.buffer(name, elem(io.buf)?));
    }
    let scalars = scalars.iter().map(|s| k.scalar(s, ScalarType::U32)).collect();
    let n = live_count(&mut k, &p)?;
    let mut spans = Vec::with_capacity(regions.len());
    for (_, io) in regions {
        spans.push(eval_span(&mut k, n, io.span)?);
    }
    Ok(IoKernel { k, bufs, spans, scalars })
}

/// The error of a chunked kernel whose parameter lists do not have the expected shape.
fn shape_error(what: &str) -> BuildError {
    BuildError::new(std::panic::Location::caller(), ErrorKind::Config, format!("chunked phase: {what}"))
}

/// Each block folds its chunk of the region `src` into element `b` of the region `part`.
fn partials_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    src: Io,
    part: Io,
    b: u32,
) -> Result<(), BuildError> {
    let (es, ep) = (elem(src.buf)?, elem(part.buf)?);
    let name = format!("qd_chunk_reduce_{}_c{b}_{es}_{}_{ep}_{}", sop.tag(), src.span.tag(), part.span.tag());
    let mut ctx = FunctionBuilderContext::new();
    let IoKernel { mut k, bufs, spans, .. } = io_kernel(&mut ctx, &name, b, &[("src", src), ("part", part)], &[])?;
    let (&[s, d], &[(soff, slen), (poff, _)]) = (bufs.as_slice(), spans.as_slice()) else {
        return Err(shape_error("partials"));
    };
    let (lo, hi) = chunk_range(&mut k, slen, b)?;
    let id = identity(&mut k, sop.op, sop.ty)?;
    let r = fold(&mut k, sop, id, lo, hi, |k, i, _| {
        let at = k.add(soff, i)?;
        let x = k.load(s, at)?;
        rebits(k, x, sop.ty)
    })?;
    let blk = k.block_id(Dim::X)?;
    let at = k.add(poff, blk)?;
    let w = rebits(&mut k, r, ep)?;
    k.store(d, at, w)?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[src.buf, part.buf])
}

/// One block: `dst[0] = op(part[0 : b])`.
fn fold_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    part: ProgramArg,
    dst: ProgramArg,
    b: u32,
) -> Result<(), BuildError> {
    let (ep, ed) = (elem(part)?, elem(dst)?);
    let name = format!("qd_chunk_fold_{}_c{b}_{ep}_{ed}", sop.tag());
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = chunk_kernel(&mut ctx, &name, 1)?;
    let s = k.buffer("part", ep);
    let d = k.buffer("dst", ed);
    let _ = live_count(&mut k, &p)?;
    let (zero, end) = (k.const_u32(0)?, k.const_u32(b)?);
    let id = identity(&mut k, sop.op, sop.ty)?;
    let r = fold(&mut k, sop, id, zero, end, |k, j, _| {
        let x = k.load(s, j)?;
        rebits(k, x, sop.ty)
    })?;
    let w = rebits(&mut k, r, ed)?;
    k.store(d, zero, w)?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[part, dst])
}

/// One block: the exclusive scan of `buf[off : off + len]` in place, from the identity.
fn scan_in_place(k: &mut KernelBuilder<'_>, sop: ScanOp, buf: Buf, off: Val, len: Val) -> Result<(), BuildError> {
    let e = buf.elem();
    let zero = k.const_u32(0)?;
    let id = identity(k, sop.op, sop.ty)?;
    fold(k, sop, id, zero, len, |k, j, acc| {
        let at = k.add(off, j)?;
        let x = k.load(buf, at)?;
        let w = rebits(k, acc, e)?;
        k.store(buf, at, w)?;
        rebits(k, x, sop.ty)
    })?;
    Ok(())
}

/// `out[0] = op(arr[0:n])` in two launches; `scratch` holds the chunk partials.
pub(crate) fn reduce(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    arr: ProgramArg,
    out: ProgramArg,
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let b = chunks(call.cap.max_n());
    let part = Io { buf: scratch, span: Span::root(Len::Zero, Len::Zero) };
    partials_phase(pb, call, sop, Io { buf: arr, span: Span::data() }, part, b)?;
    fold_phase(pb, call, sop, scratch, out, b)
}

/// The exclusive scan of the region `src` into the region `dst` (`dst` may be another region of
/// the partials' buffer), in three launches; the `B` chunk partials go to the region `part`.
pub(crate) fn exclusive_scan(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Io,
    part: Io,
) -> Result<(), BuildError> {
    let b = chunks(call.cap.max_n());
    partials_phase(pb, call, sop, src, part, b)?;
    let ep = elem(part.buf)?;
    let name = format!("qd_chunk_scan_parts_{}_c{b}_{ep}_{}", sop.tag(), part.span.tag());
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = chunk_kernel(&mut ctx, &name, 1)?;
    let pbuf = k.buffer("part", ep);
    let n = live_count(&mut k, &p)?;
    let (poff, _) = eval_span(&mut k, n, part.span)?;
    let len = k.const_u32(b)?;
    scan_in_place(&mut k, sop, pbuf, poff, len)?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[part.buf])?;

    let (es, ed) = (elem(src.buf)?, elem(dst.buf)?);
    let name = format!(
        "qd_chunk_scan_{}_c{b}_{es}_{}_{ep}_{}_{ed}_{}",
        sop.tag(),
        src.span.tag(),
        part.span.tag(),
        dst.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = chunk_kernel(&mut ctx, &name, b)?;
    let s = k.buffer("src", es);
    let pbuf = k.buffer("part", ep);
    let d = k.buffer("dst", ed);
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, src.span)?;
    let (poff, _) = eval_span(&mut k, n, part.span)?;
    let (doff, _) = eval_span(&mut k, n, dst.span)?;
    let (lo, hi) = chunk_range(&mut k, slen, b)?;
    let blk = k.block_id(Dim::X)?;
    let at = k.add(poff, blk)?;
    let pre = k.load(pbuf, at)?;
    let pre = rebits(&mut k, pre, sop.ty)?;
    fold(&mut k, sop, pre, lo, hi, |k, i, acc| {
        let si = k.add(soff, i)?;
        let x = k.load(s, si)?;
        let w = rebits(k, acc, ed)?;
        let di = k.add(doff, i)?;
        k.store(d, di, w)?;
        rebits(k, x, sop.ty)
    })?;
    let f = finish_phase_at(k, 1)?;
    // `part` and `dst` may be one buffer (a select's scratch holds both): the launch binds it to
    // both parameters.
    launch(pb, &f, call, &[src.buf, part.buf, dst.buf])
}

/// `op` over `vals` as the butterfly of `subgroup.reduce` leaves it in lane 0: the pairwise tree in
/// lane order, each pair's left value first (`T(lo, hi) = op(T(lo, mid), T(mid, hi))`).
fn lane0_tree(k: &mut KernelBuilder<'_>, op: Op<'_>, vals: &[Val]) -> Result<Val, BuildError> {
    match vals {
        [v] => Ok(*v),
        _ => {
            let (l, r) = vals.split_at(vals.len() / 2);
            let a = lane0_tree(k, op, l)?;
            let b = lane0_tree(k, op, r)?;
            op.apply(k, a, b)
        }
    }
}

/// The first level of the multi-launch reduction (Quadrants' `_reduce_phase` over 256-element
/// tiles), with the result bits of the GPU form at width `w`, as `B` one-thread blocks each
/// taking a contiguous range of tiles. A tile's value is what the GPU form's `tile_reduce`
/// computes: per subgroup of `w` lanes the butterfly's lane-0 tree ([`lane0_tree`]) over the
/// elements (the identity past the region's end), then the subgroup results folded left to
/// right. `min_tiles`: 1 when an empty region still yields one tile (the identity; the last
/// phase of `reduce`).
#[allow(clippy::too_many_arguments)]
fn tree_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    w: u32,
    b: u32,
    src: Io,
    dst: Io,
    at_least_one: bool,
) -> Result<(), BuildError> {
    let (es, ed) = (elem(src.buf)?, elem(dst.buf)?);
    let name = format!("qd_chunk_tree_{}_w{w}_c{b}_{es}_{}_{ed}_{}", sop.tag(), src.span.tag(), dst.span.tag());
    let mut ctx = FunctionBuilderContext::new();
    let IoKernel { mut k, bufs, spans, scalars } =
        io_kernel(&mut ctx, &name, b, &[("src", src), ("dst", dst)], &["min_tiles"])?;
    let (&[sbuf, dbuf], &[(soff, slen), (doff, _)], &[min_tiles]) =
        (bufs.as_slice(), spans.as_slice(), scalars.as_slice())
    else {
        return Err(shape_error("tree"));
    };
    let nt0 = tiles_of(&mut k, slen)?;
    let nt = k.max(nt0, min_tiles)?;
    let (t_lo, t_hi) = chunk_range(&mut k, nt, b)?;
    let op = Op::Builtin(sop.op);
    k.for_range(t_lo, t_hi, None, |k, tile| {
        let bd = k.const_u32(BLOCK_DIM)?;
        let base = k.mul(tile, bd)?;
        // Each subgroup's lane-0 value, folded left to right.
        let r = fold_subgroups(k, sop, w, base, |k, first, _| {
            let (_, vals) = load_subgroup(k, sbuf, soff, slen, sop, first, w)?;
            lane0_tree(k, op, &vals)
        })?;
        let at = k.add(doff, tile)?;
        let bits = rebits(k, r, ed)?;
        k.store(dbuf, at, bits)
    })?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[src.buf, dst.buf, ProgramArg::u32(u32::from(at_least_one))])
}

/// A float `out[0] = op(arr[0:n])` with the multi-launch form's result bits at the target's width
/// (its block tree, identity padding included): the first level by [`tree_phase`] on the CPU's
/// blocks, the `D - 1` small levels above it by the GPU form's phases. `D` launches.
pub(crate) fn reduce_tree(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    arr: ProgramArg,
    out: ProgramArg,
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let d = call.cap.log256();
    let b = chunks(call.cap.max_n());
    let w = opts.target.subgroup_width;
    let src = Io { buf: arr, span: Span::data() };
    if d == 1 {
        let dst = Io { buf: out, span: Span::root(Len::Zero, Len::Zero) };
        return tree_phase(pb, call, sop, w, b, src, dst, true);
    }
    let mut level = Span::root(Len::Zero, Len::Tiles);
    let first = Io { buf: scratch, span: level };
    tree_phase(pb, call, sop, w, b, src, first, false)?;
    let mut src = first;
    level = level.up();
    for _ in 2..d {
        let dst = Io { buf: scratch, span: level };
        reduce_phase(pb, opts, call, sop, src, dst, false)?;
        src = dst;
        level = level.up();
    }
    reduce_phase(pb, opts, call, sop, src, Io { buf: out, span: Span::root(Len::Zero, Len::Zero) }, true)
}

/// One subgroup's `subgroup.scan exclusive` as the interpreter computes it: the identity shifted
/// in at lane 0, then Hillis–Steele steps (`x[i] = op(x[i - k], x[i])` for `i ≥ k`, `k` = 1, 2,
/// 4, …), each lane's predecessor on the left.
fn subgroup_exclusive(k: &mut KernelBuilder<'_>, op: Op<'_>, id: Val, vals: &[Val]) -> Result<Vec<Val>, BuildError> {
    let Some((_, init)) = vals.split_last() else { return Ok(Vec::new()) };
    let mut x: Vec<Val> = std::iter::once(id).chain(init.iter().copied()).collect();
    let mut step = 1;
    while step < x.len() {
        let mut next = x.clone();
        for i in step..x.len() {
            next[i] = op.apply(k, x[i - step], x[i])?;
        }
        x = next;
        step <<= 1;
    }
    Ok(x)
}

/// The last level of the multi-launch exclusive scan (Quadrants' `_scan_downsweep_phase`) with
/// the GPU form's result bits at width `w`, as `B` one-thread blocks each taking a contiguous
/// range of 256-element tiles. Per tile, what `tile_exclusive_scan` computes: each subgroup's
/// exclusive scan ([`subgroup_exclusive`]) and aggregate `op(scan[w-1], v[w-1])`, the aggregates
/// folded left to right into the prefix of the subgroups after them (`op(prefix, scan)` there);
/// then every element is `op(tile prefix, that)`. Elements past the region are the identity and
/// are not written.
#[allow(clippy::too_many_arguments)]
fn downsweep_tree_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    sop: ScanOp,
    w: u32,
    b: u32,
    src: Io,
    prefixes: Io,
    dst: Io,
) -> Result<(), BuildError> {
    let (es, ep, ed) = (elem(src.buf)?, elem(prefixes.buf)?, elem(dst.buf)?);
    let name = format!(
        "qd_chunk_down_{}_w{w}_c{b}_{es}_{}_{ep}_{}_{ed}_{}",
        sop.tag(),
        src.span.tag(),
        prefixes.span.tag(),
        dst.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let regions = [("src", src), ("prefixes", prefixes), ("dst", dst)];
    let IoKernel { mut k, bufs, spans, .. } = io_kernel(&mut ctx, &name, b, &regions, &[])?;
    let (&[sbuf, pbuf, dbuf], &[(soff, slen), (poff, _), (doff, _)]) = (bufs.as_slice(), spans.as_slice()) else {
        return Err(shape_error("downsweep"));
    };
    let nt = tiles_of(&mut k, slen)?;
    let (t_lo, t_hi) = chunk_range(&mut k, nt, b)?;
    let op = Op::Builtin(sop.op);
    k.for_range(t_lo, t_hi, None, |k, tile| {
        let bd = k.const_u32(BLOCK_DIM)?;
        let base = k.mul(tile, bd)?;
        let at = k.add(poff, tile)?;
        let raw = k.load(pbuf, at)?;
        let tp = rebits(k, raw, sop.ty)?;
        // Each subgroup's exclusive scan, after the fold of the earlier subgroups' aggregates
        // (none for the first) and the tile prefix `tp`; its aggregate joins the fold.
        fold_subgroups(k, sop, w, base, |k, first, sp| {
            let (idx, vals) = load_subgroup(k, sbuf, soff, slen, sop, first, w)?;
            let id = identity(k, sop.op, sop.ty)?;
            let scan = subgroup_exclusive(k, op, id, &vals)?;
            for (&i, &x) in idx.iter().zip(&scan) {
                let in_tile = match sp {
                    Some(p) => op.apply(k, p, x)?,
                    None => x,
                };
                let r = op.apply(k, tp, in_tile)?;
                store_below(k, i, slen, dbuf, doff, r, ed)?;
            }
            match (scan.last(), vals.last()) {
                (Some(&s), Some(&v)) => op.apply(k, s, v),
                _ => Err(shape_error("empty subgroup")),
            }
        })?;
        Ok(())
    })?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[src.buf, prefixes.buf, dst.buf])
}

/// A float exclusive scan with the multi-launch form's result bits at the target's width: for
/// `D ≥ 2` the tile sums by [`tree_phase`] and the last level by [`downsweep_tree_phase`] on the
/// CPU's blocks, the small levels between by the GPU form's phases (`2D - 1` launches); `D = 1`
/// (at most 256 elements) is the GPU form's one-tile phase.
#[allow(clippy::too_many_arguments)]
pub(crate) fn exclusive_scan_tree(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Io,
    partials: Io,
) -> Result<(), BuildError> {
    let d = call.cap.log256();
    if d <= 1 {
        return scan_tile_phase(pb, opts, call, sop, src, dst);
    }
    let b = chunks(call.cap.max_n());
    let w = opts.target.subgroup_width;
    tree_phase(pb, call, sop, w, b, src, partials, false)?;
    emit_scan_inplace(pb, opts, call, sop, partials.buf, partials.span, d - 2)?;
    downsweep_tree_phase(pb, call, sop, w, b, src, partials, dst)
}

/// `qd_sort_chunk_<phase>_<key>[_<value>]_c<B>`.
fn sort_name(phase: &str, p: Payload, with_values: bool, b: u32) -> String {
    let v = match (with_values, p.values) {
        (true, Some(v)) => format!("_{v}"),
        _ => String::new(),
    };
    format!("qd_sort_chunk_{phase}_{}{v}_c{b}", p.kt.elem)
}

/// `for d in 0..256 { body(d) }`.
fn each_digit<F>(k: &mut KernelBuilder<'_>, body: F) -> Result<(), BuildError>
where
    F: FnOnce(&mut KernelBuilder<'_>, Val) -> Result<(), BuildError>,
{
    let zero = k.const_u32(0)?;
    let radix = k.const_u32(RADIX)?;
    k.for_range(zero, radix, None, body)
}

/// `scratch[d · b + block] = count of digit d in this block's chunk of src`.
fn sort_hist_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    p: Payload,
    src: ProgramArg,
    scratch: ProgramArg,
    bit_start: u32,
    b: u32,
) -> Result<(), BuildError> {
    let name = sort_name("hist", p, false, b);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = chunk_kernel(&mut ctx, &name, b)?;
    let keys = k.buffer("src", p.kt.elem);
    let sc = k.buffer("scratch", ScalarType::U32);
    let bit = k.scalar("bit_start", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let (lo, hi) = chunk_range(&mut k, n, b)?;
    let counts = k.shared_array("qd_sort_chunk_counts", ScalarType::U32, RADIX);
    each_digit(&mut k, |k, d| {
        let z = k.const_u32(0)?;
        k.store(counts, d, z)
    })?;
    for_chunk(&mut k, lo, hi, |k, i| {
        let (_, d) = load_digit(k, p.kt, keys, i, bit)?;
        let c = k.load(counts, d)?;
        let one = k.const_u32(1)?;
        let c1 = k.add(c, one)?;
        k.store(counts, d, c1)
    })?;
    let blk = k.block_id(Dim::X)?;
    let bs = k.const_u32(b)?;
    each_digit(&mut k, |k, d| {
        let c = k.load(counts, d)?;
        let row = k.mul(d, bs)?;
        let at = k.add(row, blk)?;
        k.store(sc, at, c)
    })?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[src, scratch, ProgramArg::u32(bit_start)])
}

/// One block: the exclusive add-scan of the `256 · b` digit-major counts in place.
fn sort_offsets_phase(pb: &mut ProgramBuilder, call: &Call, scratch: ProgramArg, b: u32) -> Result<(), BuildError> {
    let name = format!("qd_sort_chunk_offsets_c{b}");
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = chunk_kernel(&mut ctx, &name, 1)?;
    let sc = k.buffer("scratch", ScalarType::U32);
    let _ = live_count(&mut k, &pp)?;
    let len = k.const_u32(RADIX * b)?;
    let sop = ScanOp { ty: ScalarType::U32, op: qd_mir::GroupOp::Add };
    let zero = k.const_u32(0)?;
    scan_in_place(&mut k, sop, sc, zero, len)?;
    let f = finish_phase_at(k, 1)?;
    launch(pb, &f, call, &[scratch])
}

/// Each block sends the keys (and values) of its chunk, in order, to their digits' next slots.
#[allow(clippy::too_many_arguments)]
fn sort_scatter_phase(
    pb: &mut ProgramBuilder,
    call: &Call,
    p: Payload,
    dir: Dir,
    scratch: ProgramArg,
    bit_start: u32,
    b: u32,
) -> Result<(), BuildError> {
    let name = sort_name("scatter", p, true, b);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = chunk_kernel(&mut ctx, &name, b)?;
    let mv = Moves::declare(&mut k, p);
    let sc = k.buffer("scratch", ScalarType::U32);
    let bit = k.scalar("bit_start", ScalarType::U32);
    let n = live_count(&mut k, &pp)?;
    let (lo, hi) = chunk_range(&mut k, n, b)?;
    let next = k.shared_array("qd_sort_chunk_next", ScalarType::U32, RADIX);
    let blk = k.block_id(Dim::X)?;
    let bs = k.const_u32(b)?;
    each_digit(&mut k, |k, d| {
        let row = k.mul(d, bs)?;
        let at = k.add(row, blk)?;
        let o = k.load(sc, at)?;
        k.store(next, d, o)
    })?;
    for_chunk(&mut k, lo, hi, |k, i| {
        let key = k.load(mv.src, i)?;
        let bits = sortable(k, p.kt, key)?;
        let d = super::sort_keys::digit(k, p.kt, bits, bit)?;
        let to = k.load(next, d)?;
        let one = k.const_u32(1)?;
        let after = k.add(to, one)?;
        k.store(next, d, after)?;
        mv.put(k, key, i, to)
    })?;
    let f = finish_phase_at(k, 1)?;
    let mut args = dir.args();
    args.extend([scratch, ProgramArg::u32(bit_start)]);
    launch(pb, &f, call, &args)
}

/// The chunked radix sort's passes: `3` launches per pass; `dirs[p]` is pass `p`'s direction.
pub(crate) fn sort(
    pb: &mut ProgramBuilder,
    call: &Call,
    p: Payload,
    dirs: &[Dir],
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let b = chunks(call.cap.max_n());
    for (pass, dir) in dirs.iter().enumerate() {
        let bit_start = 8 * pass as u32;
        sort_hist_phase(pb, call, p, dir.src, scratch, bit_start, b)?;
        sort_offsets_phase(pb, call, scratch, b)?;
        sort_scatter_phase(pb, call, p, *dir, scratch, bit_start, b)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_counts_fit_every_scratch_formula() -> Result<(), BuildError> {
        for max_n in [0u64, 1, 255, 256, 257, 1000, 16_384, 16_385, 65_536, 1 << 20, 1 << 24, i32::MAX as u64] {
            let b = u64::from(chunks(max_n));
            assert!((1..=u64::from(CHUNKS)).contains(&b), "max_n={max_n}: {b}");
            for d in super::super::natural_depth(max_n)..=4 {
                assert!(super::super::reduce_scratch_slots(max_n, Some(d))? >= b, "reduce {max_n} D={d}");
                assert!(super::super::exclusive_scan_scratch_slots(max_n, Some(d))? >= b, "scan {max_n} D={d}");
                if max_n > 0 {
                    assert!(super::super::sort_scratch_slots(max_n, Some(d))? >= 256 * b, "sort {max_n} D={d}");
                }
            }
        }
        assert_eq!(chunks(1 << 20), CHUNKS);
        assert_eq!(chunks(1000), 4);
        Ok(())
    }
}
