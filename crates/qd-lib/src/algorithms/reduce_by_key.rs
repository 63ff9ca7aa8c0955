//! Reduce-by-key (Quadrants `reduce_by_key_add`, docs/algorithms.md §6): each run of
//! consecutive equal keys of `keys_in[0:n]` becomes one `(key, sum of its values)` in
//! `keys_out`/`values_out`, in order; `num_runs[0]` is the number of runs.
//!
//! Phases (`2D + 3` launches multi-launch, 6 single-pass, 7 chunked — the CPU form, whose
//! flags scan is [`super::chunked`]'s, for capacities above 256): head flags `scratch[i] = (i == 0 ||
//! keys[i] != keys[i-1])`; their exclusive scan in place in `scratch[0:n]` (partials, or the
//! look-back state, from `scratch[n]`); `values_out[0:n] = 0`; the scatter (`pos =
//! scratch[i] + head(i) - 1`, the head writes `keys_out[pos] = keys[i]`, every element `atomic
//! add values_out[pos] += values[i]`); a one-thread count `num_runs[0] = scratch[n-1] +
//! head(n-1)`.
//!
//! Semantics as Quadrants: keys compare with `!=` (a NaN key is a run of its own, `-0.0 ==
//! +0.0`), `values_out[0:n]` is zeroed (so `values_out[num_runs..n]`
//! becomes 0), `keys_out[num_runs..]` is left as it was, f32 sums follow the order of the
//! atomic adds (exact for integer-valued data). Unlike Quadrants: only a run's first element
//! writes its key (Quadrants has all of them write, which races between `-0.0` and `+0.0` in
//! one run; here the run's key is its first key's bits), `n = 0` writes `num_runs[0] = 0`
//! (Quadrants reads `keys[-1]`), and the scratch check covers an over-specified
//! `log256_max_n`.

use super::args::{dtype_in, need_data, need_distinct, need_len, scratch_need};
use super::chunked;
use super::common::{buffer_elem, live_count, phase_kernel, single_pass, Call};
use super::lookback;
use super::select::for_elems;
use super::staircase::{emit_scan_inplace, finish_phase, inplace_footprint, Io, Len, ScanOp, Span};
use super::{reduce_by_key_scratch_slots, Capacity, Options};
use crate::common::{at, Loc};
use qd_frontend::{
    AtomicOp, Buf, BuildError, Dim, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType,
    Scope, Type, Val,
};
use qd_mir::GroupOp;
use std::panic::Location;

/// The key and value dtypes (Quadrants' documented set).
const DTYPES: &[ScalarType] = &[ScalarType::I32, ScalarType::U32, ScalarType::F32];

/// `head(i)`: `i == 0 || keys[i] != keys[i-1]` (bool; `i < n`).
fn head(k: &mut KernelBuilder<'_>, keys: Buf, i: Val) -> Result<Val, BuildError> {
    let r = k.declare_var(Type::BOOL);
    let t = k.const_bool(true)?;
    k.def_var(r, t)?;
    let z = k.const_u32(0)?;
    let not_first = k.ne(i, z)?;
    k.if_then(not_first, |k| {
        let one = k.const_u32(1)?;
        let p = k.sub(i, one)?;
        let a = k.load(keys, i)?;
        let b = k.load(keys, p)?;
        let d = k.ne(a, b)?;
        k.def_var(r, d)
    })?;
    k.use_var(r)
}

/// One element-wise phase kernel: `name`, buffers `(name, dtype)`, and the body over `i < n`.
fn elementwise<F>(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    name: &str,
    bufs: &[(&str, ScalarType, ProgramArg)],
    body: F,
) -> Result<(), BuildError>
where
    F: Fn(&mut KernelBuilder<'_>, &[Buf], Val) -> Result<(), BuildError>,
{
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, name, opts)?;
    let kb: Vec<Buf> = bufs.iter().map(|(nm, ty, _)| k.buffer(nm, *ty)).collect();
    let n = live_count(&mut k, &p)?;
    for_elems(&mut k, n, |k, i| body(k, &kb, i))?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend(bufs.iter().map(|(_, _, a)| *a));
    pb.launch(&f, &args)
}

/// `_rbk_count_phase`: one thread writes `num_runs[0] = scratch[n-1] + head(n-1)` (0 for `n = 0`).
fn count_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    kt: ScalarType,
    keys: ProgramArg,
    num_runs: ProgramArg,
    scratch: ProgramArg,
) -> Result<(), BuildError> {
    let name = format!("qd_rbk_count_{kt}_w{}", opts.target.subgroup_width);
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    k.grid_fixed(1)?;
    let kbuf = k.buffer("keys", kt);
    let obuf = k.buffer("num_runs", ScalarType::I32);
    let sbuf = k.buffer("scratch", ScalarType::U32);
    let n = live_count(&mut k, &p)?;
    let t = k.thread_id(Dim::X)?;
    let z = k.const_u32(0)?;
    let t0 = k.eq(t, z)?;
    k.if_then(t0, |k| {
        let zero = k.const_i32(0)?;
        let r = k.declare_var(Type::I32);
        k.def_var(r, zero)?;
        let some = k.ne(n, z)?;
        k.if_then(some, |k| {
            let one = k.const_u32(1)?;
            let last = k.sub(n, one)?;
            let base = k.load(sbuf, last)?;
            let h = head(k, kbuf, last)?;
            let hu = k.cast(h, ScalarType::U32)?;
            let c = k.add(base, hu)?;
            let ci = k.bitcast(c, ScalarType::I32)?;
            k.def_var(r, ci)
        })?;
        let v = k.use_var(r)?;
        k.store(obuf, z, v)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend([keys, num_runs, scratch]);
    pb.launch(&f, &args)
}

/// The scratch a reduce-by-key needs for `cap`: Quadrants' formula, or the footprint of the
/// in-place scan's partial levels when an over-specified depth needs more; with the text.
fn rbk_need(cap: Capacity) -> (u64, String) {
    let max_n = cap.max_n();
    let formula = reduce_by_key_scratch_slots(max_n);
    let d = cap.log256();
    let foot = inplace_footprint(Span::root(Len::Zero, Len::N), d - 1, max_n);
    scratch_need(format!("reduce_by_key_scratch_slots({max_n})"), formula, foot, d)
}

/// Reduce-by-key with add — Quadrants `qd.algorithms.reduce_by_key_add(keys_in, values_in,
/// keys_out, values_out, num_runs, scratch, n, value_dtype, log256_max_n)`: each run of
/// consecutive equal keys (`!=`: NaN keys are runs of one, `-0.0 == +0.0`) of `keys_in[0:n]`
/// becomes `(its first key, the sum of its values)` at `keys_out[r]`, `values_out[r]`, in
/// order; `num_runs[0]` = the number of runs. `values_out[0:n]` is zeroed first (Quadrants),
/// `keys_out[num_runs..]` is left as it was.
///
/// `keys_in`/`keys_out`: i32 u32 f32 (one dtype); `values_in`/`values_out`: i32 u32 f32 (one
/// dtype, independent of the keys'); each of at least `max_n` elements; `num_runs`: a
/// one-element i32 buffer; `scratch`: u32, at least
/// [`reduce_by_key_scratch_slots(max_n)`](super::reduce_by_key_scratch_slots) (more for an
/// over-specified depth); `n`: a one-element i32 buffer holding the live count. The program
/// checks the lengths, that no written buffer is bound to another buffer of the call of its
/// dtype, and (status bit) that `0 <= n <= max_n` — else nothing is written. f32 sums add in
/// the order of the atomic adds (run to run on a GPU they may round differently).
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn reduce_by_key_add(
    pb: &mut ProgramBuilder,
    opts: &Options,
    keys_in: ProgramArg,
    values_in: ProgramArg,
    keys_out: ProgramArg,
    values_out: ProgramArg,
    num_runs: ProgramArg,
    scratch: ProgramArg,
    n: ProgramArg,
    cap: Capacity,
) -> Result<(), BuildError> {
    let loc: Loc = Location::caller();
    let algo = "reduce_by_key_add";
    let kt = dtype_in(loc, algo, "keys_in", keys_in, DTYPES)?;
    let vt = dtype_in(loc, algo, "values_in", values_in, DTYPES)?;
    dtype_in(loc, algo, "keys_out", keys_out, &[kt])?;
    dtype_in(loc, algo, "values_out", values_out, &[vt])?;
    buffer_elem(loc, algo, "num_runs", num_runs, Some(ScalarType::I32))?;
    buffer_elem(loc, algo, "scratch", scratch, Some(ScalarType::U32))?;
    let call = Call::new(pb, loc, algo, opts, n, cap)?;
    need_data(pb, loc, cap, &[keys_in, values_in, keys_out, values_out])?;
    need_len(pb, loc, num_runs, 1, "one element")?;
    let (slots, why) = rbk_need(cap);
    need_len(pb, loc, scratch, slots, &why)?;
    let roles = [
        (keys_in, false),
        (values_in, false),
        (keys_out, true),
        (values_out, true),
        (num_runs, true),
        (scratch, true),
        (n, false),
    ];
    need_distinct(pb, loc, &roles)?;
    let max_n = cap.max_n();
    let formula = reduce_by_key_scratch_slots(max_n);
    let fits = lookback::fits(cap, max_n, formula);
    // The head flags' scan is exact in any order: the chunked CPU form on CPU targets, where the
    // scratch has room for its partials after the flags (above one tile; a one-tile capacity's
    // formula is the flags alone).
    let chunk = chunked::pick(
        loc,
        algo,
        opts,
        max_n > u64::from(super::BLOCK_DIM),
        "a capacity of at most 256 keeps the GPU forms",
    )?;
    let single = !chunk && single_pass(loc, algo, opts, fits, &lookback::need_text(cap, max_n, formula))?;
    let w = opts.target.subgroup_width;
    (|| {
        // (1) head flags
        let bufs = [("keys", kt, keys_in), ("scratch", ScalarType::U32, scratch)];
        elementwise(pb, opts, &call, &format!("qd_rbk_head_{kt}_w{w}"), &bufs, |k, b, i| {
            let h = head(k, b[0], i)?;
            let hu = k.cast(h, ScalarType::U32)?;
            k.store(b[1], i, hu)
        })?;
        // (2) their exclusive scan in place
        let sop = ScanOp { ty: ScalarType::I32, op: GroupOp::Add };
        let flags = Span::root(Len::Zero, Len::N);
        if chunk {
            let io = Io { buf: scratch, span: flags };
            let part = Io { buf: scratch, span: Span::root(Len::N, Len::Zero) };
            chunked::exclusive_scan(pb, &call, sop, io, io, part)?;
        } else if single {
            let io = Io { buf: scratch, span: flags };
            let state = Io { buf: scratch, span: Span::root(Len::N, Len::Zero) };
            lookback::emit(pb, opts, &call, sop, io, Some(io), None, state)?;
        } else {
            emit_scan_inplace(pb, opts, &call, sop, scratch, flags, cap.log256() - 1)?;
        }
        // (3) values_out[0:n] = 0
        let bufs = [("values_out", vt, values_out)];
        elementwise(pb, opts, &call, &format!("qd_rbk_zero_{vt}_w{w}"), &bufs, |k, b, i| {
            let z = k.const_scalar(vt, 0)?;
            k.store(b[0], i, z)
        })?;
        // (4) scatter
        let bufs = [
            ("keys", kt, keys_in),
            ("values", vt, values_in),
            ("keys_out", kt, keys_out),
            ("values_out", vt, values_out),
            ("scratch", ScalarType::U32, scratch),
        ];
        elementwise(pb, opts, &call, &format!("qd_rbk_scatter_{kt}_{vt}_w{w}"), &bufs, |k, b, i| {
            let h = head(k, b[0], i)?;
            let hu = k.cast(h, ScalarType::U32)?;
            let s = k.load(b[4], i)?;
            let one = k.const_u32(1)?;
            let sh = k.add(s, hu)?;
            let pos = k.sub(sh, one)?;
            // Only the run's head writes its key (Quadrants has every element of the run write
            // its own: equal keys, but `-0.0` and `+0.0` race there).
            k.if_then(h, |k| {
                let key = k.load(b[0], i)?;
                k.store(b[2], pos, key)
            })?;
            let v = k.load(b[1], i)?;
            k.atomic_rmw(AtomicOp::Add, Scope::Device, b[3], pos, v)?;
            Ok(())
        })?;
        // (5) count
        count_phase(pb, opts, &call, kt, keys_in, num_runs, scratch)
    })()
    .map_err(at(loc))
}
