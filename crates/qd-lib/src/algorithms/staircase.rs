//! The multi-launch scan machinery every device-wide algorithm shares (Quadrants'
//! `_reduce_phase`, `_scan_tile_phase`, `_scan_downsweep_phase`, `_emit_scan_inplace` and
//! `_emit_scan`, quadrants-api.md §6.2–§6.6): each phase is one launch, the kernel boundary is the
//! grid-wide barrier, and the phases and their count depend on `log256_max_n` only.
//!
//! Regions are device values: a [`Span`] names a region of a buffer by a root offset and length
//! ([`Len`]: `0`, `n`, `ceil(n/256)`, `ceil(n/256)*256`, evaluated from the live count in every
//! phase kernel) and a staircase `level`: level `k + 1` is the region of level `k`'s 256-element
//! block partials, placed right after it (`off_{k+1} = off_k + len_k`, `len_{k+1} =
//! ceil(len_k/256)`), exactly Quadrants' cursor arithmetic. The three numbers of a span are
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
    BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType, Type,
    Val,
};
use qd_mir::{AddrSpace, GroupOp};
use std::panic::Location;

/// A length or offset the phase kernels evaluate from the live count `n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
    /// The launch-constant code of the length.
    fn code(self) -> u32 {
        match self {
            Len::Zero => 0,
            Len::N => 1,
            Len::Tiles => 2,
            Len::HistLen => 3,
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

    fn args(self) -> [ProgramArg; 3] {
        [ProgramArg::u32(self.off.code()), ProgramArg::u32(self.len.code()), ProgramArg::u32(self.level)]
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

/// The kernel-side value of a [`Len`] code.
fn eval_len(k: &mut KernelBuilder<'_>, n: Val, code: Val) -> Result<Val, BuildError> {
    let tiles = tiles_of(k, n)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let hist = k.mul(tiles, bd)?;
    let mut r = k.const_u32(0)?;
    for (c, v) in [(Len::N, n), (Len::Tiles, tiles), (Len::HistLen, hist)] {
        let cv = k.const_u32(c.code())?;
        let is = k.eq(code, cv)?;
        r = k.select(is, v, r)?;
    }
    Ok(r)
}

/// A span's three launch-constant parameters, declared on the kernel.
#[derive(Copy, Clone)]
struct SpanParams {
    off: Val,
    len: Val,
    level: Val,
}

fn span_params(k: &mut KernelBuilder<'_>, prefix: &str) -> SpanParams {
    let off = k.scalar(&format!("{prefix}_off"), ScalarType::U32);
    let len = k.scalar(&format!("{prefix}_len"), ScalarType::U32);
    let level = k.scalar(&format!("{prefix}_level"), ScalarType::U32);
    SpanParams { off, len, level }
}

/// The `(offset, length)` of a span in the kernel (uniform values).
fn eval_span(k: &mut KernelBuilder<'_>, n: Val, s: SpanParams) -> Result<(Val, Val), BuildError> {
    let off0 = eval_len(k, n, s.off)?;
    let len0 = eval_len(k, n, s.len)?;
    let off = k.declare_var(Type::U32);
    let len = k.declare_var(Type::U32);
    k.def_var(off, off0)?;
    k.def_var(len, len0)?;
    let zero = k.const_u32(0)?;
    k.for_range(zero, s.level, None, |k, _| {
        let o = k.use_var(off)?;
        let l = k.use_var(len)?;
        let o2 = k.add(o, l)?;
        let l2 = tiles_of(k, l)?;
        k.def_var(off, o2)?;
        k.def_var(len, l2)
    })?;
    Ok((k.use_var(off)?, k.use_var(len)?))
}

/// `src[off + i]` as `T` when `i < len`, else the identity (no load out of the region).
fn load_or_identity(
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
    let name = format!("qd_scan_reduce_{}_w{}_{es}_{ed}", sop.tag(), opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("src", es);
    let sp = span_params(&mut k, "src");
    let dbuf = k.buffer("dst", ed);
    let dp = span_params(&mut k, "dst");
    let min_tiles = k.scalar("min_tiles", ScalarType::U32);
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, sp)?;
    let (doff, _) = eval_span(&mut k, n, dp)?;
    let nt0 = tiles_of(&mut k, slen)?;
    let nt = k.max(nt0, min_tiles)?;
    for_tiles(&mut k, nt, |k, tile| {
        let (t, i) = elem_index(k, tile)?;
        let v = load_or_identity(k, sbuf, soff, i, slen, sop)?;
        let r = crate::block::reduce(k, v, BLOCK_DIM, Op::Builtin(sop.op))?;
        let zero = k.const_u32(0)?;
        let first = k.eq(t, zero)?;
        k.if_then(first, |k| {
            let at = k.add(doff, tile)?;
            let w = rebits(k, r, ed)?;
            k.store(dbuf, at, w)
        })
    })?;
    let f = k.finish()?;
    let [s0, s1, s2] = src.span.args();
    let [d0, d1, d2] = dst.span.args();
    launch(pb, &f, call, &[src.buf, s0, s1, s2, dst.buf, d0, d1, d2, ProgramArg::u32(u32::from(at_least_one))])
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
    let name = format!("qd_scan_tile_{}_w{}_{es}_{ed}", sop.tag(), opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    k.grid_fixed(1)?;
    let sbuf = k.buffer("src", es);
    let sp = span_params(&mut k, "src");
    let dbuf = k.buffer("dst", ed);
    let dp = span_params(&mut k, "dst");
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, sp)?;
    let (doff, _) = eval_span(&mut k, n, dp)?;
    let t = k.thread_id(Dim::X)?;
    let v = load_or_identity(&mut k, sbuf, soff, t, slen, sop)?;
    let id = identity(&mut k, sop.op, sop.ty)?;
    let e = crate::block::exclusive_scan(&mut k, v, BLOCK_DIM, Op::Builtin(sop.op), id)?;
    let inb = k.lt(t, slen)?;
    k.if_then(inb, |k| {
        let at = k.add(doff, t)?;
        let w = rebits(k, e, ed)?;
        k.store(dbuf, at, w)
    })?;
    let f = k.finish()?;
    let [s0, s1, s2] = src.span.args();
    let [d0, d1, d2] = dst.span.args();
    launch(pb, &f, call, &[src.buf, s0, s1, s2, dst.buf, d0, d1, d2])
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
    let name = format!("qd_scan_down_{}_w{}_{es}_{ep}_{ed}", sop.tag(), opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("src", es);
    let sp = span_params(&mut k, "src");
    let pbuf = k.buffer("prefixes", ep);
    let pp = span_params(&mut k, "prefixes");
    let dbuf = k.buffer("dst", ed);
    let dp = span_params(&mut k, "dst");
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, sp)?;
    let (poff, _) = eval_span(&mut k, n, pp)?;
    let (doff, _) = eval_span(&mut k, n, dp)?;
    let nt = tiles_of(&mut k, slen)?;
    for_tiles(&mut k, nt, |k, tile| {
        let (_, i) = elem_index(k, tile)?;
        let v = load_or_identity(k, sbuf, soff, i, slen, sop)?;
        let id = identity(k, sop.op, sop.ty)?;
        let op = Op::Builtin(sop.op);
        let tp = crate::block::exclusive_scan(k, v, BLOCK_DIM, op, id)?;
        let pat = k.add(poff, tile)?;
        let raw = k.load(pbuf, pat)?;
        let bp = rebits(k, raw, sop.ty)?;
        let r = op.apply(k, bp, tp)?;
        let inb = k.lt(i, slen)?;
        k.if_then(inb, |k| {
            let at = k.add(doff, i)?;
            let w = rebits(k, r, ed)?;
            k.store(dbuf, at, w)
        })
    })?;
    let f = k.finish()?;
    let [s0, s1, s2] = src.span.args();
    let [p0, p1, p2] = prefixes.span.args();
    let [d0, d1, d2] = dst.span.args();
    launch(pb, &f, call, &[src.buf, s0, s1, s2, prefixes.buf, p0, p1, p2, dst.buf, d0, d1, d2])
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
        use super::super::{Capacity, Target};
        use qd_mir::interp::{ArgValue, Buffer};
        let opts = Options::new(Target { subgroup_width: 8, forward_progress: true });
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
