//! The multi-launch scan machinery every device-wide algorithm shares (Quadrants'
//! `_reduce_phase`, `_scan_tile_phase`, `_scan_downsweep_phase`, `_emit_scan_inplace` and
//! `_emit_scan`, docs/algorithms.md §4 "Multi-launch"): each phase is one launch, the kernel boundary is the
//! grid-wide barrier, and the phases and their count depend on `log256_max_n` only.
//!
//! Regions are device values: a [`Span`] names a region of a buffer by a root offset and length
//! ([`Len`]: `0`, `n`, `ceil(n/256)`, `ceil(n/256)*256`, evaluated from the live count in every
//! phase kernel) and a staircase `level`: level `k + 1` is the region of level `k`'s 256-element
//! block partials, placed right after it (`off_{k+1} = off_k + len_k`, `len_{k+1} =
//! ceil(len_k/256)`), exactly Quadrants' cursor arithmetic. The spans are
//! launch constants, so one kernel serves every level and every call of the same value type,
//! operator, width and buffer element types (they are in its name).
//!
//! Values have a type `T` (i32 u32 f32 i64 u64 f64) and are combined in `T` (f32 add adds
//! floats); buffers hold `T` or a same-width staging type (the u32/u64 scratch), converted by
//! bit-cast as Quadrants does.

use super::common::{for_tiles, live_count, phase_kernel, tiles_of, Call};
use super::{Options, BLOCK_DIM};
use crate::common::identity;
use crate::op::Op;
use qd_frontend::{
    Buf, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType,
    Type, Val,
};
use qd_mir::{AddrSpace, GroupOp};
use std::panic::Location;

/// A length or offset the phase kernels evaluate from the live count `n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // `HistLen` is Quadrants' `hist_len`
pub(crate) enum Len {
    /// `0`.
    Zero,
    /// `n`.
    N,
    /// `ceil(n / 256)`: the number of 256-element tiles of `n`.
    Tiles,
    /// `ceil(n / 256) * 256`: the radix sort's digit-major histogram length.
    HistLen,
}

impl Len {
    /// The letter of the length in kernel names.
    fn letter(self) -> char {
        match self {
            Len::Zero => 'z',
            Len::N => 'n',
            Len::Tiles => 't',
            Len::HistLen => 'h',
        }
    }

    /// The kernel-side value for the live count `n` (a `u32`).
    fn emit(self, k: &mut KernelBuilder<'_>, n: Val) -> Result<Val, BuildError> {
        match self {
            Len::Zero => k.const_u32(0),
            Len::N => Ok(n),
            Len::Tiles => tiles_of(k, n),
            Len::HistLen => {
                let t = tiles_of(k, n)?;
                let bd = k.const_u32(BLOCK_DIM)?;
                k.mul(t, bd)
            }
        }
    }

    /// The value for a host-side live count (used by tests and footprint formulas).
    pub(crate) fn eval(self, n: u64) -> u64 {
        match self {
            Len::Zero => 0,
            Len::N => n,
            Len::Tiles => n.div_ceil(u64::from(BLOCK_DIM)),
            Len::HistLen => n.div_ceil(u64::from(BLOCK_DIM)) * u64::from(BLOCK_DIM),
        }
    }
}

/// A region of a buffer: level `level` of the staircase rooted at `[off, off + len)` (level 0 is
/// the root itself; level `k + 1` starts where level `k` ends and has `ceil(len_k / 256)`
/// elements).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// The root offset.
    pub off: Len,
    /// The root length.
    pub len: Len,
    /// The staircase level.
    pub level: u32,
}

impl Span {
    /// Level 0 of `[off, off + len)`.
    pub(crate) fn root(off: Len, len: Len) -> Span {
        Span { off, len, level: 0 }
    }

    /// `[0, n)`: a data buffer's live elements.
    pub(crate) fn data() -> Span {
        Span::root(Len::Zero, Len::N)
    }

    /// The next level up (this level's block partials).
    pub(crate) fn up(self) -> Span {
        Span { level: self.level + 1, ..self }
    }

    /// The host-side `(offset, length)` for a live count `n`.
    pub(crate) fn eval(self, n: u64) -> (u64, u64) {
        let (mut off, mut len) = (self.off.eval(n), self.len.eval(n));
        for _ in 0..self.level {
            off += len;
            len = len.div_ceil(u64::from(BLOCK_DIM));
        }
        (off, len)
    }

    /// The span in kernel names: offset letter, length letter, level (`zt0`).
    pub(crate) fn tag(self) -> String {
        format!("{}{}{}", self.off.letter(), self.len.letter(), self.level)
    }
}

/// A buffer (a `ptr<global, E>` program parameter) and a region of it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Io {
    /// The buffer.
    pub buf: ProgramArg,
    /// The region.
    pub span: Span,
}

/// The values of a scan or reduction: their type and the operator (add, min or max).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScanOp {
    /// The value type `T`.
    pub ty: ScalarType,
    /// The operator.
    pub op: GroupOp,
}

impl ScanOp {
    /// `T_op`, for kernel names.
    pub(crate) fn tag(self) -> String {
        format!("{}_{}", self.ty, self.op.name())
    }
}

/// The element type of a buffer argument (an internal error when it is not a buffer of the
/// width of `T`: the public functions check their buffers first).
fn elem_of(a: ProgramArg, sop: ScanOp) -> Result<ScalarType, BuildError> {
    match a.ty() {
        Type::Ptr(AddrSpace::Global, e) if e.bits() == sop.ty.bits() && e != ScalarType::Bool => Ok(e),
        t => Err(BuildError::new(
            Location::caller(),
            ErrorKind::TypeMismatch,
            format!("scan phase: a {t} argument cannot stage {} values", sop.ty),
        )),
    }
}

/// `v` as type `to` (bit-cast when the types differ; they have one width).
pub(crate) fn rebits(k: &mut KernelBuilder<'_>, v: Val, to: ScalarType) -> Result<Val, BuildError> {
    if v.scalar() == Some(to) {
        Ok(v)
    } else {
        k.bitcast(v, to)
    }
}

/// `buf[off + i] = v` (as the buffer's type `ty`) when `i < len`: a phase's guarded output store.
pub(crate) fn store_below(
    k: &mut KernelBuilder<'_>,
    i: Val,
    len: Val,
    buf: Buf,
    off: Val,
    v: Val,
    ty: ScalarType,
) -> Result<(), BuildError> {
    let live = k.lt(i, len)?;
    k.if_then(live, |k| {
        let at = k.add(off, i)?;
        let bits = rebits(k, v, ty)?;
        k.store(buf, at, bits)
    })
}

/// Finishes a phase kernel and simplifies it (constant folding, CSE, DCE at the target's
/// width; collectives stay as they are for each back end to lower): the prologue's span
/// arithmetic shrinks to what the kernel uses, which every device runs per thread.
pub(crate) fn finish_phase(k: KernelBuilder<'_>, opts: &Options) -> Result<qd_mir::Function, BuildError> {
    finish_phase_at(k, opts.target.subgroup_width)
}

/// [`finish_phase`] for a kernel built at subgroup width `width`.
pub(crate) fn finish_phase_at(k: KernelBuilder<'_>, width: u32) -> Result<qd_mir::Function, BuildError> {
    use qd_mir::passes::{Pass, PassOptions};
    let mut f = k.finish()?;
    let po = PassOptions::with_width(width);
    // `finish` verified the kernel; the passes keep it valid (qd-mir's own tests check them),
    // so they run without the per-pass verification `run_pipeline` adds in debug builds.
    for pass in [Pass::Fold, Pass::Cse, Pass::Dce] {
        pass.run(&mut f, &po)
            .map_err(|e| BuildError::new(Location::caller(), ErrorKind::Config, format!("kernel @{}: {e}", f.name)))?;
    }
    Ok(f)
}

/// Quadrants' `block.exclusive_scan(v, 256, op, identity(op))` with the same result bits and a
/// cheaper cross-subgroup step: the subgroup exclusive scan (MIR `subgroup.scan exclusive`,
/// identity shifted in at lane 0), the last lane of each subgroup publishes `op(scan, v)`, and
/// **thread 0** folds the published aggregates left to right once (`prefix[w]` = the fold of
/// slots `0..w`), where Quadrants has every thread fold them redundantly; subgroups other than 0
/// return `op(prefix[w], scan)`. Two barriers instead of one; the operand order of every `op`
/// is Quadrants', so float sums round the same. Valid in every thread.
pub(crate) fn tile_exclusive_scan(k: &mut KernelBuilder<'_>, v: Val, op: GroupOp) -> Result<Val, BuildError> {
    let w = crate::common::width(k, Location::caller(), "tile scan")?;
    let ty = v.scalar().ok_or_else(|| {
        BuildError::new(Location::caller(), ErrorKind::TypeMismatch, "tile scan: expected a scalar".to_string())
    })?;
    let nsg = BLOCK_DIM / w;
    let scan = k.subgroup_scan(op, qd_frontend::Tile::Full, false, v)?;
    if nsg == 1 {
        return Ok(scan);
    }
    let apply = |k: &mut KernelBuilder<'_>, a: Val, b: Val| Op::Builtin(op).apply(k, a, b);
    let agg = apply(k, scan, v)?;
    let slots_name = crate::block::fresh_shared_name(k, "qd_tile_scan_aggs");
    let slots = k.shared_array(&slots_name, ty, nsg);
    let pre_name = crate::block::fresh_shared_name(k, "qd_tile_scan_prefix");
    let prefix = k.shared_array(&pre_name, ty, nsg);
    let lane = k.lane_id()?;
    let last = k.const_u32(w - 1)?;
    let is_last = k.eq(lane, last)?;
    k.if_then(is_last, |k| {
        let sg = k.subgroup_id()?;
        k.store(slots, sg, agg)
    })?;
    k.block_sync()?;
    let t = k.thread_id(Dim::X)?;
    let zero = k.const_u32(0)?;
    let t0 = k.eq(t, zero)?;
    k.if_then(t0, |k| {
        // a loop, not unrolled: up to 63 steps (width 4) in one thread
        let first = k.load(slots, zero)?;
        let running = k.declare_var(Type::Scalar(ty));
        k.def_var(running, first)?;
        let one = k.const_u32(1)?;
        let end = k.const_u32(nsg)?;
        k.for_range(one, end, None, |k, j| {
            let r = k.use_var(running)?;
            k.store(prefix, j, r)?;
            let x = k.load(slots, j)?;
            let r2 = apply(k, r, x)?;
            k.def_var(running, r2)
        })
    })?;
    k.block_sync()?;
    let sg = k.subgroup_id()?;
    let result = k.declare_var(Type::Scalar(ty));
    k.def_var(result, scan)?;
    let not_first = k.ne(sg, zero)?;
    k.if_then(not_first, |k| {
        let p = k.load(prefix, sg)?;
        let r = apply(k, p, scan)?;
        k.def_var(result, r)
    })?;
    k.use_var(result)
}

/// Quadrants' `block.reduce(v, 256, op)` with the same result bits (MIR `subgroup.reduce`, lane 0
/// of each subgroup publishes, thread 0 folds the subgroup results left to right), the fold a
/// loop rather than unrolled (up to 63 steps at width 4: smaller kernels, faster to compile).
/// **Valid in thread 0 only.**
pub(crate) fn tile_reduce(k: &mut KernelBuilder<'_>, v: Val, op: GroupOp) -> Result<Val, BuildError> {
    let w = crate::common::width(k, Location::caller(), "tile reduce")?;
    let ty = v.scalar().ok_or_else(|| {
        BuildError::new(Location::caller(), ErrorKind::TypeMismatch, "tile reduce: expected a scalar".to_string())
    })?;
    let nsg = BLOCK_DIM / w;
    let agg = k.subgroup_reduce(op, qd_frontend::Tile::Full, v)?;
    if nsg == 1 {
        return Ok(agg);
    }
    let name = crate::block::fresh_shared_name(k, "qd_tile_reduce");
    let slots = k.shared_array(&name, ty, nsg);
    let lane = k.lane_id()?;
    let zero = k.const_u32(0)?;
    let first_lane = k.eq(lane, zero)?;
    k.if_then(first_lane, |k| {
        let sg = k.subgroup_id()?;
        k.store(slots, sg, agg)
    })?;
    k.block_sync()?;
    let result = k.declare_var(Type::Scalar(ty));
    k.def_var(result, agg)?;
    let t = k.thread_id(Dim::X)?;
    let t0 = k.eq(t, zero)?;
    k.if_then(t0, |k| {
        let first = k.load(slots, zero)?;
        k.def_var(result, first)?;
        let one = k.const_u32(1)?;
        let end = k.const_u32(nsg)?;
        k.for_range(one, end, None, |k, j| {
            let r = k.use_var(result)?;
            let x = k.load(slots, j)?;
            let r2 = Op::Builtin(op).apply(k, r, x)?;
            k.def_var(result, r2)
        })
    })?;
    k.use_var(result)
}

/// The kernel-side `(offset, length)` of a span for the live count `n` (uniform values; the
/// span's shape is part of the kernel, its name says which).
pub(crate) fn eval_span(k: &mut KernelBuilder<'_>, n: Val, s: Span) -> Result<(Val, Val), BuildError> {
    let mut off = s.off.emit(k, n)?;
    let mut len = s.len.emit(k, n)?;
    for _ in 0..s.level {
        off = k.add(off, len)?;
        len = tiles_of(k, len)?;
    }
    Ok((off, len))
}

/// `src[off + i]` as `T` when `i < len`, else the identity (no load out of the region).
pub(crate) fn load_or_identity(
    k: &mut KernelBuilder<'_>,
    src: qd_frontend::Buf,
    off: Val,
    i: Val,
    len: Val,
    sop: ScanOp,
) -> Result<Val, BuildError> {
    let id = identity(k, sop.op, sop.ty)?;
    let v = k.declare_var(Type::Scalar(sop.ty));
    k.def_var(v, id)?;
    let inb = k.lt(i, len)?;
    k.if_then(inb, |k| {
        let at = k.add(off, i)?;
        let raw = k.load(src, at)?;
        let x = rebits(k, raw, sop.ty)?;
        k.def_var(v, x)
    })?;
    k.use_var(v)
}

/// `tile * 256 + thread_id`.
fn elem_index(k: &mut KernelBuilder<'_>, tile: Val) -> Result<(Val, Val), BuildError> {
    let t = k.thread_id(Dim::X)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let base = k.mul(tile, bd)?;
    Ok((t, k.add(base, t)?))
}

fn launch(pb: &mut ProgramBuilder, f: &qd_mir::Function, call: &Call, rest: &[ProgramArg]) -> Result<(), BuildError> {
    let mut args = call.args().to_vec();
    args.extend_from_slice(rest);
    pb.launch(f, &args)
}

/// Quadrants `_reduce_phase`: the 256-element blocks of `src` reduced (`block.reduce`, padded with
/// the identity) into `dst[off + block]`; with `at_least_one` one block runs even when `src` is
/// empty (it writes the identity: the last phase of `reduce` into `out[0]`). Kernel
/// `qd_scan_reduce_<T>_<op>_w<W>_<src elem>_<dst elem>`.
pub(crate) fn reduce_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Io,
    at_least_one: bool,
) -> Result<(), BuildError> {
    let (es, ed) = (elem_of(src.buf, sop)?, elem_of(dst.buf, sop)?);
    let name = format!(
        "qd_scan_reduce_{}_w{}_{es}_{}_{ed}_{}",
        sop.tag(),
        opts.target.subgroup_width,
        src.span.tag(),
        dst.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("src", es);
    let dbuf = k.buffer("dst", ed);
    let min_tiles = k.scalar("min_tiles", ScalarType::U32);
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, src.span)?;
    let (doff, _) = eval_span(&mut k, n, dst.span)?;
    let nt0 = tiles_of(&mut k, slen)?;
    let nt = k.max(nt0, min_tiles)?;
    for_tiles(&mut k, nt, |k, tile| {
        let (t, i) = elem_index(k, tile)?;
        let v = load_or_identity(k, sbuf, soff, i, slen, sop)?;
        let r = tile_reduce(k, v, sop.op)?;
        let zero = k.const_u32(0)?;
        let first = k.eq(t, zero)?;
        k.if_then(first, |k| {
            let at = k.add(doff, tile)?;
            let w = rebits(k, r, ed)?;
            k.store(dbuf, at, w)
        })
    })?;
    let f = finish_phase(k, opts)?;
    launch(pb, &f, call, &[src.buf, dst.buf, ProgramArg::u32(u32::from(at_least_one))])
}

/// Quadrants `_scan_tile_phase`: one block's exclusive scan (`block.exclusive_scan` with the
/// identity) of the ≤ 256 elements of `src` into `dst` (in place when they are the same region).
/// Kernel `qd_scan_tile_<T>_<op>_w<W>_<src elem>_<dst elem>`, grid 1.
pub(crate) fn scan_tile_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Io,
) -> Result<(), BuildError> {
    let (es, ed) = (elem_of(src.buf, sop)?, elem_of(dst.buf, sop)?);
    let name = format!(
        "qd_scan_tile_{}_w{}_{es}_{}_{ed}_{}",
        sop.tag(),
        opts.target.subgroup_width,
        src.span.tag(),
        dst.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    k.grid_fixed(1)?;
    let sbuf = k.buffer("src", es);
    let dbuf = k.buffer("dst", ed);
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, src.span)?;
    let (doff, _) = eval_span(&mut k, n, dst.span)?;
    let t = k.thread_id(Dim::X)?;
    let v = load_or_identity(&mut k, sbuf, soff, t, slen, sop)?;
    let e = tile_exclusive_scan(&mut k, v, sop.op)?;
    store_below(&mut k, t, slen, dbuf, doff, e, ed)?;
    let f = finish_phase(k, opts)?;
    launch(pb, &f, call, &[src.buf, dst.buf])
}

/// Quadrants `_scan_downsweep_phase`: per 256-element block of `src`, the block's exclusive scan
/// combined with the block's prefix `prefixes[off + block]` on the left (`op(prefix, tile
/// prefix)`), into `dst` (in place when they are the same region). Kernel
/// `qd_scan_down_<T>_<op>_w<W>_<src elem>_<prefix elem>_<dst elem>`.
pub(crate) fn scan_downsweep_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    prefixes: Io,
    dst: Io,
) -> Result<(), BuildError> {
    let (es, ep, ed) = (elem_of(src.buf, sop)?, elem_of(prefixes.buf, sop)?, elem_of(dst.buf, sop)?);
    let name = format!(
        "qd_scan_down_{}_w{}_{es}_{}_{ep}_{}_{ed}_{}",
        sop.tag(),
        opts.target.subgroup_width,
        src.span.tag(),
        prefixes.span.tag(),
        dst.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("src", es);
    let pbuf = k.buffer("prefixes", ep);
    let dbuf = k.buffer("dst", ed);
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, src.span)?;
    let (poff, _) = eval_span(&mut k, n, prefixes.span)?;
    let (doff, _) = eval_span(&mut k, n, dst.span)?;
    let nt = tiles_of(&mut k, slen)?;
    for_tiles(&mut k, nt, |k, tile| {
        let (_, i) = elem_index(k, tile)?;
        let v = load_or_identity(k, sbuf, soff, i, slen, sop)?;
        let op = Op::Builtin(sop.op);
        let tp = tile_exclusive_scan(k, v, sop.op)?;
        let pat = k.add(poff, tile)?;
        let raw = k.load(pbuf, pat)?;
        let bp = rebits(k, raw, sop.ty)?;
        let r = op.apply(k, bp, tp)?;
        store_below(k, i, slen, dbuf, doff, r, ed)
    })?;
    let f = finish_phase(k, opts)?;
    launch(pb, &f, call, &[src.buf, prefixes.buf, dst.buf])
}

/// Quadrants `_emit_scan_inplace(buf, off, m, levels)`: the exclusive scan of the region `span`
/// of `buf` in place, with `levels` staircase levels above it (`levels == 0`: one tile phase, the
/// region must hold ≤ 256 elements; else reduce into `span.up()`, scan that in place with
/// `levels - 1`, and downsweep back). Launches: `2 * levels + 1`. Writes the partials of every
/// level after the region: `Span::up` … `levels` levels up.
pub(crate) fn emit_scan_inplace(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    buf: ProgramArg,
    span: Span,
    levels: u32,
) -> Result<(), BuildError> {
    let here = Io { buf, span };
    if levels == 0 {
        return scan_tile_phase(pb, opts, call, sop, here, here);
    }
    let up = Io { buf, span: span.up() };
    reduce_phase(pb, opts, call, sop, here, up, false)?;
    emit_scan_inplace(pb, opts, call, sop, buf, span.up(), levels - 1)?;
    scan_downsweep_phase(pb, opts, call, sop, here, up, here)
}

/// Quadrants `_emit_scan`: the out-of-place exclusive scan of `src` into `dst` at depth `d`
/// (`d == 1`: one tile phase; else reduce `src` into the block partials `partials` (a root span
/// whose length must be `ceil(len(src) / 256)`), scan them in place with `d - 2` levels, and
/// downsweep). Launches: `2d - 1`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_scan(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Io,
    partials: Io,
    d: u32,
) -> Result<(), BuildError> {
    if d <= 1 {
        return scan_tile_phase(pb, opts, call, sop, src, dst);
    }
    reduce_phase(pb, opts, call, sop, src, partials, false)?;
    emit_scan_inplace(pb, opts, call, sop, partials.buf, partials.span, d - 2)?;
    scan_downsweep_phase(pb, opts, call, sop, src, partials, dst)
}

/// The scratch elements [`emit_scan_inplace`] touches for a live count `n`: the end of the
/// highest level it writes (`levels` levels above `span`).
pub(crate) fn inplace_footprint(span: Span, levels: u32, n: u64) -> u64 {
    let (off, len) = Span { level: span.level + levels, ..span }.eval(n);
    off + len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_quadrants_cursors() {
        // select at n = 65537: indices [0, n), partials at n: b0 = 257, then 2.
        let s = Span::root(Len::N, Len::Tiles);
        assert_eq!(s.eval(65537), (65537, 257));
        assert_eq!(s.up().eval(65537), (65537 + 257, 2));
        assert_eq!(inplace_footprint(s, 1, 65537), 65796);
        // sort hist scan: [0, hist_len), partials after.
        let h = Span::root(Len::Zero, Len::HistLen);
        assert_eq!(h.eval(257), (0, 512));
        assert_eq!(h.up().eval(257), (512, 2));
        assert_eq!(inplace_footprint(h, 1, 257), 514);
        assert_eq!(Span::data().eval(0), (0, 0));
    }

    /// The radix sort's use: an in-place u32 add scan of `hist_len = ceil(n/256)*256` elements
    /// at offset 0 with `D - 1` levels, on the interpreter, at several live counts of one module.
    #[test]
    fn inplace_hist_scan_on_cpu() -> Result<(), BuildError> {
        use super::super::{Capacity, DeviceClass, Target};
        use qd_mir::interp::{ArgValue, Buffer};
        let opts = Options::new(Target { subgroup_width: 8, forward_progress: true, class: DeviceClass::Gpu });
        let cap = Capacity::new(70_000)?;
        let mut pb = ProgramBuilder::new("hist_scan");
        let scratch = pb.buffer("scratch", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        let call = Call::new(&mut pb, Location::caller(), "t", &opts, n, cap)?;
        let sop = ScanOp { ty: ScalarType::U32, op: GroupOp::Add };
        emit_scan_inplace(&mut pb, &opts, &call, sop, scratch, Span::root(Len::Zero, Len::HistLen), 2)?;
        assert_eq!(pb.program().launches.len(), 5);
        let m = pb.finish()?;
        let dev = qd_rt::Device::cpu_with_width(8)
            .map_err(|e| BuildError::new(Location::caller(), ErrorKind::Config, e.to_string()))?;
        for live in [0u64, 1, 300, 65_537] {
            let (_, len) = Span::root(Len::Zero, Len::HistLen).eval(live);
            let size = inplace_footprint(Span::root(Len::Zero, Len::HistLen), 2, 70_000) as usize;
            let data: Vec<u64> = (0..size as u64).map(|i| (i * 7 + 3) % 11).collect();
            let mut args = vec![
                ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, data.clone())),
                ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [live])),
            ];
            if let Err(e) = dev.run_program(&m, &m.programs[0], &mut args) {
                panic!("n = {live}: {e}");
            }
            let ArgValue::Buffer(got) = &args[0] else { panic!("not a buffer") };
            let got = got.to_bits();
            let mut acc = 0u64;
            for i in 0..len as usize {
                assert_eq!(got[i], acc, "n = {live}, [{i}]");
                acc = (acc + data[i]) & 0xffff_ffff;
            }
        }
        Ok(())
    }
}
