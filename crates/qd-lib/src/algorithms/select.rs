//! Stream compaction (Quadrants `select`, docs/algorithms.md §6): every element `i < n` whose
//! flag is non-zero is copied to `out[idx[i]]`, `idx` the exclusive add-scan of the flags, in
//! order (stable); `num_out[0]` is the number copied. Elements are scalars, structs (one buffer
//! per field, [`Elems::soa`]) or `k` consecutive scalars ([`Elems::aos`]).
//!
//! Phases: the scan of the flags into `scratch[0:n]` (i32 values staged as u32), its block
//! partials from `scratch[n]` (multi-launch: `2D - 1` launches of [`super::staircase`]; single
//! pass: 2 launches of [`super::lookback`] with its state from `scratch[n]`), then the scatter
//! and a one-thread count: `2D + 1` launches (multi-launch), 4 (single pass) or 5 (chunked, the
//! CPU form: the scan of [`super::chunked`], partials from `scratch[n]`).
//!
//! As in Quadrants the flags must be exactly 0 or 1 (they are summed as they are: another value
//! gives wrong indices; a non-zero flag selects). Unlike Quadrants, `n = 0` writes
//! `num_out[0] = 0` (Quadrants reads `idx[-1]`), and the scratch check covers an over-specified
//! `log256_max_n` (the formula counts the natural depth's partial levels only).

use super::args::{need_data, need_distinct, need_len, scratch_need};
use super::chunked;
use super::common::{buffer_elem, live_count, phase_kernel, single_pass, Call};
use super::lookback;
use super::staircase::{emit_scan, finish_phase, inplace_footprint, Io, Len, ScanOp, Span};
use super::{select_scratch_slots, Capacity, Options, BLOCK_DIM};
use crate::common::{at, err, Loc};
use qd_frontend::{
    Buf, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType, Val,
};
use qd_mir::GroupOp;
use std::panic::Location;

/// The elements of a [`select`]: one scalar buffer, a struct as one buffer per field, or `k`
/// consecutive scalars of one buffer per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elems {
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Scalar(ProgramArg),
    Soa(Vec<ProgramArg>),
    Aos(ProgramArg, u32),
}

impl Elems {
    /// Element `i` is `buf[i]` (any scalar dtype).
    pub fn scalar(buf: ProgramArg) -> Elems {
        Elems { kind: Kind::Scalar(buf) }
    }

    /// Element `i` is the struct `(fields[0][i], fields[1][i], …)`: one buffer per field, each
    /// of any scalar dtype (at least one field).
    pub fn soa(fields: &[ProgramArg]) -> Elems {
        Elems { kind: Kind::Soa(fields.to_vec()) }
    }

    /// Element `i` is `buf[i*k .. i*k + k]` (`k >= 1` scalars of the buffer's dtype).
    pub fn aos(buf: ProgramArg, k: u32) -> Elems {
        Elems { kind: Kind::Aos(buf, k) }
    }

    /// The buffers, with the number of scalars per element each holds.
    fn buffers(&self) -> Vec<(ProgramArg, u32)> {
        match &self.kind {
            Kind::Scalar(b) => vec![(*b, 1)],
            Kind::Soa(fs) => fs.iter().map(|f| (*f, 1)).collect(),
            Kind::Aos(b, k) => vec![(*b, *k)],
        }
    }

    /// The element signature for kernel names and shape checks: `u32`, `soa_f32_i64`, `aos3_f32`.
    fn signature(&self, loc: Loc, what: &str) -> Result<String, BuildError> {
        let elem = |b: ProgramArg| buffer_elem(loc, "select", what, b, None);
        match &self.kind {
            Kind::Scalar(b) => Ok(elem(*b)?.to_string()),
            Kind::Soa(fs) if fs.is_empty() => {
                Err(err(loc, ErrorKind::Config, format!("select: `{what}` is a struct of no fields")))
            }
            Kind::Soa(fs) => {
                let names: Result<Vec<String>, BuildError> = fs.iter().map(|f| Ok(elem(*f)?.to_string())).collect();
                Ok(format!("soa_{}", names?.join("_")))
            }
            Kind::Aos(_, 0) => {
                Err(err(loc, ErrorKind::Config, format!("select: `{what}` has k = 0 scalars per element")))
            }
            Kind::Aos(b, k) => Ok(format!("aos{k}_{}", elem(*b)?)),
        }
    }
}

/// `for i in (block_id * 256 + thread_id .. count).step_by(grid_dim * 256)`: an element-wise
/// grid-stride loop (no barriers inside).
pub(crate) fn for_elems<F>(k: &mut KernelBuilder<'_>, count: Val, body: F) -> Result<(), BuildError>
where
    F: FnOnce(&mut KernelBuilder<'_>, Val) -> Result<(), BuildError>,
{
    let t = k.thread_id(Dim::X)?;
    let b = k.block_id(Dim::X)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let base = k.mul(b, bd)?;
    let start = k.add(base, t)?;
    let g = k.grid_dim(Dim::X)?;
    let stride = k.mul(g, bd)?;
    k.for_range(start, count, Some(stride), body)
}

/// `k.load(buf, i) != 0` for an i32 flag buffer.
pub(crate) fn nonzero(k: &mut KernelBuilder<'_>, buf: Buf, i: Val) -> Result<Val, BuildError> {
    let f = k.load(buf, i)?;
    let z = k.const_i32(0)?;
    k.ne(f, z)
}

/// `_select_scatter_phase`: `out[scratch[i]] = arr[i]` where `flags[i] != 0`, for `i < n`.
#[allow(clippy::too_many_arguments)]
fn scatter_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sig: &str,
    arr: &Elems,
    flags: ProgramArg,
    out: &Elems,
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let name = format!("qd_select_scatter_{sig}_w{}", opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let ins = arr.buffers();
    let outs = out.buffers();
    let elem = |a: ProgramArg| buffer_elem(Location::caller(), "select", "arr", a, None);
    let mut in_bufs = Vec::with_capacity(ins.len());
    for (j, (b, w)) in ins.iter().enumerate() {
        in_bufs.push((k.buffer(&format!("arr{j}"), elem(*b)?), *w));
    }
    let fbuf = k.buffer("flags", ScalarType::I32);
    let mut out_bufs = Vec::with_capacity(outs.len());
    for (j, (b, _)) in outs.iter().enumerate() {
        out_bufs.push(k.buffer(&format!("out{j}"), elem(*b)?));
    }
    let sbuf = k.buffer("scratch", ScalarType::U32);
    let n = live_count(&mut k, &p)?;
    for_elems(&mut k, n, |k, i| {
        let sel = nonzero(k, fbuf, i)?;
        k.if_then(sel, |k| {
            let idx = k.load(sbuf, i)?;
            for ((src, width), dst) in in_bufs.iter().zip(&out_bufs) {
                let wv = k.const_u32(*width)?;
                let si = k.mul(i, wv)?;
                let di = k.mul(idx, wv)?;
                for c in 0..*width {
                    let cv = k.const_u32(c)?;
                    let s = k.add(si, cv)?;
                    let d = k.add(di, cv)?;
                    let v = k.load(*src, s)?;
                    k.store(*dst, d, v)?;
                }
            }
            Ok(())
        })
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend(ins.iter().map(|(b, _)| *b));
    args.push(flags);
    args.extend(outs.iter().map(|(b, _)| *b));
    args.push(scratch);
    pb.launch(&f, &args)
}

/// `_select_count_phase`: one thread writes `num_out[0] = idx[n-1] + (flags[n-1] != 0)`, or 0
/// for `n = 0`.
fn count_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    flags: ProgramArg,
    num_out: ProgramArg,
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let name = format!("qd_select_count_w{}", opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    k.grid_fixed(1)?;
    let fbuf = k.buffer("flags", ScalarType::I32);
    let obuf = k.buffer("num_out", ScalarType::I32);
    let sbuf = k.buffer("scratch", ScalarType::U32);
    let n = live_count(&mut k, &p)?;
    let t = k.thread_id(Dim::X)?;
    let z = k.const_u32(0)?;
    let t0 = k.eq(t, z)?;
    k.if_then(t0, |k| {
        let zero = k.const_i32(0)?;
        let r = k.declare_var(qd_frontend::Type::I32);
        k.def_var(r, zero)?;
        let some = k.ne(n, z)?;
        k.if_then(some, |k| {
            let one = k.const_u32(1)?;
            let last = k.sub(n, one)?;
            let idx = k.load(sbuf, last)?;
            let sel = nonzero(k, fbuf, last)?;
            let s = k.cast(sel, ScalarType::U32)?;
            let c = k.add(idx, s)?;
            let ci = k.bitcast(c, ScalarType::I32)?;
            k.def_var(r, ci)
        })?;
        let v = k.use_var(r)?;
        k.store(obuf, z, v)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([flags, num_out, scratch]);
    pb.launch(&f, &args)
}

/// The scratch a select needs for `cap`: Quadrants' formula, or the footprint of the partial
/// levels of an over-specified depth when that is larger; with the text of the check.
pub(crate) fn select_need(cap: Capacity) -> (u64, String) {
    let max_n = cap.max_n();
    let formula = select_scratch_slots(max_n);
    let d = cap.log256();
    let foot = if d >= 2 { inplace_footprint(Span::root(Len::N, Len::Tiles), d - 2, max_n) } else { max_n };
    scratch_need(format!("select_scratch_slots({max_n})"), formula, foot, d)
}

/// Stream compaction — Quadrants `qd.algorithms.select(arr, flags, out, num_out, scratch, n,
/// log256_max_n)`: for every `i < n` with `flags[i] != 0`, in order, `out[j] = arr[i]` for
/// `j = 0, 1, …`; `num_out[0]` = the number selected. `out[num_out..]` is left as it was.
///
/// `arr` and `out`: [`Elems`] of the same shape and dtypes (buffers of at least `max_n`
/// elements, `max_n * k` scalars for [`Elems::aos`]); `flags`: i32, 0 or 1 each (see the module
/// docs); `num_out`: a one-element i32 buffer; `scratch`: u32, at least
/// [`select_scratch_slots(max_n)`](super::select_scratch_slots) (more for an over-specified
/// depth); `n`: a one-element i32 buffer holding the live count. The program checks the lengths,
/// that no written buffer is bound to another buffer of the call of its dtype, and (status bit)
/// that `0 <= n <= max_n` — else nothing is written.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn select(
    pb: &mut ProgramBuilder,
    opts: &Options,
    arr: &Elems,
    flags: ProgramArg,
    out: &Elems,
    num_out: ProgramArg,
    scratch: ProgramArg,
    n: ProgramArg,
    cap: Capacity,
) -> Result<(), BuildError> {
    let loc = Location::caller();
    let sig = arr.signature(loc, "arr")?;
    let osig = out.signature(loc, "out")?;
    if sig != osig {
        return Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("select: `out` ({osig}) must have the shape and dtypes of `arr` ({sig})"),
        ));
    }
    buffer_elem(loc, "select", "flags", flags, Some(ScalarType::I32))?;
    buffer_elem(loc, "select", "num_out", num_out, Some(ScalarType::I32))?;
    buffer_elem(loc, "select", "scratch", scratch, Some(ScalarType::U32))?;
    let call = Call::new(pb, loc, "select", opts, n, cap)?;
    let max_n = cap.max_n();
    for (b, w) in arr.buffers().into_iter().chain(out.buffers()) {
        need_len(pb, loc, b, max_n * u64::from(w), &format!("max_n = {max_n} elements of {w} scalar(s)"))?;
    }
    need_data(pb, loc, cap, &[flags])?;
    need_len(pb, loc, num_out, 1, "one element")?;
    let (slots, why) = select_need(cap);
    need_len(pb, loc, scratch, slots, &why)?;
    let mut roles: Vec<(ProgramArg, bool)> = arr.buffers().into_iter().map(|(b, _)| (b, false)).collect();
    roles.extend(out.buffers().into_iter().map(|(b, _)| (b, true)));
    roles.extend([(flags, false), (num_out, true), (scratch, true), (n, false)]);
    need_distinct(pb, loc, &roles)?;
    let formula = select_scratch_slots(max_n);
    let fits = lookback::fits(cap, max_n, formula);
    // The flags' scan is exact in any order: the chunked CPU form on CPU targets.
    let chunk = chunked::pick(loc, "select", opts, true, "")?;
    let single = !chunk && single_pass(loc, "select", opts, fits, &lookback::need_text(cap, max_n, formula))?;
    (|| {
        let sop = ScanOp { ty: ScalarType::I32, op: GroupOp::Add };
        let src = Io { buf: flags, span: Span::data() };
        let idx = Io { buf: scratch, span: Span::root(Len::Zero, Len::N) };
        if chunk {
            let part = Io { buf: scratch, span: Span::root(Len::N, Len::Zero) };
            chunked::exclusive_scan(pb, &call, sop, src, idx, part)?;
        } else if single {
            let state = Io { buf: scratch, span: Span::root(Len::N, Len::Zero) };
            lookback::emit(pb, opts, &call, sop, src, Some(idx), None, state)?;
        } else {
            let partials = Io { buf: scratch, span: Span::root(Len::N, Len::Tiles) };
            emit_scan(pb, opts, &call, sop, src, idx, partials, cap.log256())?;
        }
        scatter_phase(pb, opts, &call, &sig, arr, flags, out, scratch)?;
        count_phase(pb, opts, &call, flags, num_out, scratch)
    })()
    .map_err(at(loc))
}
