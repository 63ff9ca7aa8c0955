//! The single-pass exclusive scan with decoupled look-back (Merrill & Garland), used by `scan`,
//! `reduce`, `select` and `reduce_by_key_add` on targets with forward progress between blocks
//! ([`Target::forward_progress`](super::Target::forward_progress)).
//!
//! Two launches, whatever the depth: `qd_lb_init` zeroes the state, then one pass over tiles of
//! [`TILE`] = 1024 elements (256 threads × [`ITEMS`] = 4 consecutive elements). A block takes
//! tiles in **ticket** order (an atomic counter, so a tile only ever waits for tiles whose
//! blocks started before it), scans its tile (a sequential scan of each thread's 4 items, then
//! `block.exclusive_scan` of the thread totals), and its last thread (thread 0 in the reduce
//! form below) publishes the tile aggregate, looks back over the predecessors' published
//! aggregates until it finds an inclusive prefix, and publishes the tile's inclusive prefix. The
//! last tile publishes nothing; its inclusive prefix is the reduction.
//!
//! Without an output (the reduce form) the fold reproduces Quadrants' block tree bit for bit on
//! float min/max as well: the tiles pad with, and the look-back starts from, the operator's
//! *neutral* element (NaN for float min/max, whose minNum/maxNum ignores it; `-0.0` for float
//! add; the identity for integers) instead of Quadrants' identity padding, the tile aggregate is
//! `block.reduce` (no identity shifted in), and the final value is combined with the identity
//! unless `n = 256^D` (`full`, a launch constant) — the one case where Quadrants' tree has no
//! padded lane. Quadrants' result of a float min/max is NaN exactly when every value is NaN and
//! `n = 256^D`, and so is this one; a float sum of `-0.0`s only is `-0.0` under the same
//! condition in both.
//!
//! State (scratch elements of the staging type, u32 or u64, from the call's state offset):
//!
//! | element | meaning |
//! |---|---|
//! | `0` | the ticket counter |
//! | `1 + 3s` | tile `s`'s flag: 0 not ready, 1 aggregate published, 2 inclusive prefix published |
//! | `2 + 3s` | tile `s`'s aggregate (bits of `T`) |
//! | `3 + 3s` | tile `s`'s inclusive prefix (bits of `T`) |
//!
//! for the tiles `s < ceil(n / 1024) - 1`: `1 + 3 * (ceil(max_n / 1024) - 1)` elements at most,
//! which fits in the `ceil(max_n / 256)` block partials every Quadrants scratch formula provides
//! above one tile ([`fits`]). Publication: value store, device-scope fence, flag exchange;
//! look-back: spin on `atomic.rmw or device %flag, 0` until non-zero, fence, value read with an
//! atomic `or 0` (no stale cached copy).

use super::common::{live_count, phase_kernel, Call};
use super::staircase::{eval_span, finish_phase, rebits, tile_exclusive_scan, tile_reduce, Io, ScanOp};
use super::{Capacity, Options, BLOCK_DIM};
use crate::common::identity;
use crate::op::Op;
use qd_frontend::{
    AtomicOp, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder,
    ScalarType, Scope, Type, Val,
};
use qd_mir::{AddrSpace, GroupOp};
use std::panic::Location;

/// Elements per thread.
pub(crate) const ITEMS: u32 = 4;
/// Elements per tile (`BLOCK_DIM * ITEMS`).
pub(crate) const TILE: u32 = BLOCK_DIM * ITEMS;

/// Scratch elements of look-back state for a live count `n` (the counter and 3 per tile but
/// the last).
pub(crate) fn state_len(n: u64) -> u64 {
    1 + 3 * n.div_ceil(u64::from(TILE)).saturating_sub(1)
}

/// True when the state for `cap.max_n()` fits after `state_off` (its value at `max_n`) in the
/// `slots` scratch elements the Quadrants formula gives.
pub(crate) fn fits(cap: Capacity, state_off: u64, slots: u64) -> bool {
    state_off + state_len(cap.max_n()) <= slots
}

/// What the state needs, for the error of a forced single pass that does not fit.
pub(crate) fn need_text(cap: Capacity, state_off: u64, slots: u64) -> String {
    format!(
        "the look-back state needs {} scratch element(s) from offset {state_off} for max_n = {}, \
         the scratch formula gives {slots}",
        state_len(cap.max_n()),
        cap.max_n()
    )
}

/// The neutral element of `op` on `ty` (bits): `x op neutral = x` for every `x`, NaN included.
/// Floats: NaN for min/max (minNum/maxNum drop a NaN operand), `-0.0` for add; integers: the
/// identity.
fn neutral(op: GroupOp, ty: ScalarType) -> u64 {
    match (op, ty) {
        (GroupOp::Min | GroupOp::Max, ScalarType::F32) => 0x7FC0_0000,
        (GroupOp::Min | GroupOp::Max, ScalarType::F64) => 0x7FF8_0000_0000_0000,
        (GroupOp::Add, ScalarType::F32) => 0x8000_0000,
        (GroupOp::Add, ScalarType::F64) => 0x8000_0000_0000_0000,
        _ => qd_mir::eval::identity(op, ty),
    }
}

/// `256^D` for the reduce form's `full` launch constant, 0 when it exceeds `u32` (no live count
/// reaches it then).
fn full_count(cap: Capacity) -> u32 {
    u32::try_from(256u64.pow(cap.log256())).unwrap_or(0)
}

/// `src[off + i]` as `T` when `i < len`, else `pad`.
fn load_or(
    k: &mut KernelBuilder<'_>,
    src: qd_frontend::Buf,
    (off, i, len): (Val, Val, Val),
    ty: ScalarType,
    pad: Val,
) -> Result<Val, BuildError> {
    let v = k.declare_var(Type::Scalar(ty));
    k.def_var(v, pad)?;
    let inb = k.lt(i, len)?;
    k.if_then(inb, |k| {
        let at = k.add(off, i)?;
        let raw = k.load(src, at)?;
        let x = rebits(k, raw, ty)?;
        k.def_var(v, x)
    })?;
    k.use_var(v)
}

fn scratch_elem(a: ProgramArg) -> Result<ScalarType, BuildError> {
    match a.ty() {
        Type::Ptr(AddrSpace::Global, e) if matches!(e, ScalarType::U32 | ScalarType::U64) => Ok(e),
        t => Err(BuildError::new(
            Location::caller(),
            ErrorKind::TypeMismatch,
            format!("look-back: the state buffer must hold u32 or u64, got {t}"),
        )),
    }
}

fn buf_elem(a: ProgramArg) -> Result<ScalarType, BuildError> {
    match a.ty() {
        Type::Ptr(AddrSpace::Global, e) => Ok(e),
        t => Err(BuildError::new(
            Location::caller(),
            ErrorKind::TypeMismatch,
            format!("look-back: expected a buffer, got {t}"),
        )),
    }
}

/// `(block_id == 0 && thread_id == 0)`.
fn first_thread(k: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
    let t = k.thread_id(Dim::X)?;
    let b = k.block_id(Dim::X)?;
    let tb = k.or(t, b)?;
    let z = k.const_u32(0)?;
    k.eq(tb, z)
}

/// `qd_lb_init_<S>_w<W>`: zeroes the counter and the flags of the live tiles.
fn init_kernel(pb: &mut ProgramBuilder, opts: &Options, call: &Call, state: Io) -> Result<(), BuildError> {
    let se = scratch_elem(state.buf)?;
    let name = format!("qd_lb_init_{se}_w{}_{}", opts.target.subgroup_width, state.span.tag());
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("state", se);
    let n = live_count(&mut k, &p)?;
    let base = eval_span(&mut k, n, state.span)?.0;
    let nt = tiles_in(&mut k, n)?;
    // words: the counter, then one flag per tile but the last: `nt` words (1 when nt == 0).
    let one = k.const_u32(1)?;
    let words = k.max(nt, one)?;
    let t = k.thread_id(Dim::X)?;
    let b = k.block_id(Dim::X)?;
    let bd = k.const_u32(BLOCK_DIM)?;
    let b0 = k.mul(b, bd)?;
    let g = k.add(b0, t)?;
    let gd = k.grid_dim(Dim::X)?;
    let stride = k.mul(gd, bd)?;
    k.for_range(g, words, Some(stride), |k, w| {
        // word 0: the counter (base); word s + 1: tile s's flag (base + 1 + 3s).
        let z = k.const_u32(0)?;
        let is0 = k.eq(w, z)?;
        let s = k.sub(w, one)?;
        let three = k.const_u32(3)?;
        let s3 = k.mul(s, three)?;
        let f = k.add(s3, one)?;
        let off = k.select(is0, z, f)?;
        let at = k.add(base, off)?;
        let zero = k.const_scalar(se, 0)?;
        k.store(sbuf, at, zero)
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.push(state.buf);
    pb.launch(&f, &args)
}

/// `state[base + 1 + 3s + w]`: word `w` of tile `s` (0 flag, 1 aggregate, 2 inclusive prefix).
fn slot_at(k: &mut KernelBuilder<'_>, base: Val, s: Val, w: u32) -> Result<Val, BuildError> {
    let three = k.const_u32(3)?;
    let s3 = k.mul(s, three)?;
    let o = k.const_u32(1 + w)?;
    let r = k.add(s3, o)?;
    k.add(base, r)
}

/// `ceil(x / TILE)`.
fn tiles_in(k: &mut KernelBuilder<'_>, x: Val) -> Result<Val, BuildError> {
    let c = k.const_u32(TILE - 1)?;
    let s = k.add(x, c)?;
    let d = k.const_u32(TILE)?;
    k.div(s, d)
}

/// Spins until the flag at `state[at]` is non-zero; returns it (after a device fence).
fn wait_flag(k: &mut KernelBuilder<'_>, state: qd_frontend::Buf, at: Val, se: ScalarType) -> Result<Val, BuildError> {
    let flag = k.declare_var(Type::Scalar(se));
    let zero = k.const_scalar(se, 0)?;
    k.def_var(flag, zero)?;
    k.loop_(|k| {
        let f = k.atomic_rmw(AtomicOp::Or, Scope::Device, state, at, zero)?;
        k.def_var(flag, f)?;
        let ready = k.ne(f, zero)?;
        k.if_then(ready, |k| k.break_())
    })?;
    k.fence(Scope::Device)?;
    k.use_var(flag)
}

/// `state[at]` read atomically (`or 0`), as `T`.
fn read_word(
    k: &mut KernelBuilder<'_>,
    state: qd_frontend::Buf,
    at: Val,
    se: ScalarType,
    ty: ScalarType,
) -> Result<Val, BuildError> {
    let zero = k.const_scalar(se, 0)?;
    let w = k.atomic_rmw(AtomicOp::Or, Scope::Device, state, at, zero)?;
    rebits(k, w, ty)
}

/// Publishes `v` (a `T`) in `state[val_at]`, then flag `state[flag_at] = flag`.
fn publish(
    k: &mut KernelBuilder<'_>,
    state: qd_frontend::Buf,
    (flag_at, val_at): (Val, Val),
    v: Val,
    flag: u64,
    se: ScalarType,
) -> Result<(), BuildError> {
    let bits = rebits(k, v, se)?;
    k.atomic_rmw(AtomicOp::Exch, Scope::Device, state, val_at, bits)?;
    k.fence(Scope::Device)?;
    let f = k.const_scalar(se, flag)?;
    k.atomic_rmw(AtomicOp::Exch, Scope::Device, state, flag_at, f)?;
    Ok(())
}

/// Appends the two launches of the single-pass exclusive scan of `src` (values of `sop.ty`)
/// into `dst` (in place when it is `src`), with the reduction into `total[0]` (the identity
/// for an empty `src`) when asked; `state` is the scratch buffer and the span whose offset is
/// where the state starts. Kernels `qd_lb_init_<S>_w<W>` and
/// `qd_lb_scan_<T>_<op>_w<W>_<src elem>_<dst elem|none>_<total|none>`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    sop: ScanOp,
    src: Io,
    dst: Option<Io>,
    total: Option<ProgramArg>,
    state: Io,
) -> Result<(), BuildError> {
    init_kernel(pb, opts, call, state)?;
    let se = scratch_elem(state.buf)?;
    let es = buf_elem(src.buf)?;
    let ed = dst.map(|d| buf_elem(d.buf)).transpose()?;
    let name = format!(
        "qd_lb_scan_{}_w{}_{es}_{}_{}_{}_{}",
        sop.tag(),
        opts.target.subgroup_width,
        src.span.tag(),
        dst.map_or("none".to_string(), |d| format!("{}_{}", ed.map_or(String::new(), |e| e.to_string()), d.span.tag())),
        if total.is_some() { "total" } else { "none" },
        state.span.tag()
    );
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, p) = phase_kernel(&mut ctx, &name, opts)?;
    let sbuf = k.buffer("src", es);
    let dbuf = ed.map(|e| k.buffer("dst", e));
    let tbuf = total.map(|_| k.buffer("total", sop.ty));
    let stbuf = k.buffer("state", se);
    // The reduce form (no output): neutral padding and `block.reduce` tiles (module docs).
    let reduce_form = dst.is_none();
    let full = if reduce_form { Some(k.scalar("full", ScalarType::U32)) } else { None };
    let n = live_count(&mut k, &p)?;
    let (soff, slen) = eval_span(&mut k, n, src.span)?;
    let dspan = match (dbuf, dst) {
        (Some(b), Some(d)) => Some((b, eval_span(&mut k, n, d.span)?.0)),
        _ => None,
    };
    let base = eval_span(&mut k, n, state.span)?.0;
    let nt = tiles_in(&mut k, slen)?;
    let op = Op::Builtin(sop.op);
    let ty = sop.ty;
    if let Some(tb) = tbuf {
        let z = k.const_u32(0)?;
        let empty = k.eq(nt, z)?;
        let first = first_thread(&mut k)?;
        let c = k.and(empty, first)?;
        k.if_then(c, |k| {
            let id = identity(k, sop.op, ty)?;
            k.store(tb, z, id)
        })?;
    }
    let ticket = k.shared_array("qd_lb_ticket", ScalarType::U32, 1);
    let prefix_sh = k.shared_array("qd_lb_prefix", ty, 1);
    let t = k.thread_id(Dim::X)?;
    k.loop_(|k| {
        crate::block::sync(k)?;
        let z = k.const_u32(0)?;
        let t0 = k.eq(t, z)?;
        k.if_then(t0, |k| {
            let one = k.const_scalar(se, 1)?;
            let tk = k.atomic_rmw(AtomicOp::Add, Scope::Device, stbuf, base, one)?;
            let tk32 = k.cast(tk, ScalarType::U32)?;
            k.store(ticket, z, tk32)
        })?;
        crate::block::sync(k)?;
        let raw = k.load(ticket, z)?;
        // The same word in every thread (after the barrier); the broadcast tells the
        // uniformity analysis, so the barriers below the exit verify.
        let tile = k.broadcast(raw, z)?;
        let done = k.ge(tile, nt)?;
        k.if_then(done, |k| k.break_())?;
        // The thread's 4 items and their sequential inclusive scan.
        let tsz = k.const_u32(TILE)?;
        let tbase = k.mul(tile, tsz)?;
        let items = k.const_u32(ITEMS)?;
        let tt = k.mul(t, items)?;
        let first_i = k.add(tbase, tt)?;
        let mut vals = Vec::with_capacity(ITEMS as usize);
        for j in 0..ITEMS {
            let jv = k.const_u32(j)?;
            let i = k.add(first_i, jv)?;
            let pad = if reduce_form { k.const_scalar(ty, neutral(sop.op, ty))? } else { identity(k, sop.op, ty)? };
            vals.push(load_or(k, sbuf, (soff, i, slen), ty, pad)?);
        }
        let mut sum = vals[0];
        for &v in &vals[1..] {
            sum = op.apply(k, sum, v)?;
        }
        // `scanned`: the thread's exclusive prefix in the tile (scan forms; the last thread
        // adds its total for the aggregate), or the tile's aggregate from `block.reduce`, valid
        // in thread 0 (the reduce form). That thread publishes, looks back, publishes again.
        let scanned = if reduce_form { tile_reduce(k, sum, sop.op)? } else { tile_exclusive_scan(k, sum, sop.op)? };
        let pub_t = k.const_u32(if reduce_form { 0 } else { BLOCK_DIM - 1 })?;
        let is_pub = k.eq(t, pub_t)?;
        k.if_then(is_pub, |k| {
            let agg = if reduce_form { scanned } else { op.apply(k, scanned, sum)? };
            let one = k.const_u32(1)?;
            let nt1 = k.sub(nt, one)?;
            let publishes = k.lt(tile, nt1)?;
            let my_flag = slot_at(k, base, tile, 0)?;
            let my_agg = slot_at(k, base, tile, 1)?;
            let my_incl = slot_at(k, base, tile, 2)?;
            let zero = k.const_u32(0)?;
            let is_first_tile = k.eq(tile, zero)?;
            let not_first = k.not(is_first_tile)?;
            let pub_agg = k.and(publishes, not_first)?;
            k.if_then(pub_agg, |k| publish(k, stbuf, (my_flag, my_agg), agg, 1, se))?;
            let prefix = k.declare_var(Type::Scalar(ty));
            let start = match reduce_form {
                true => k.const_scalar(ty, neutral(sop.op, ty))?,
                false => identity(k, sop.op, ty)?,
            };
            k.def_var(prefix, start)?;
            k.if_then(not_first, |k| {
                let j = k.declare_var(Type::U32);
                let one = k.const_u32(1)?;
                let jm = k.sub(tile, one)?;
                k.def_var(j, jm)?;
                k.loop_(|k| {
                    let jj = k.use_var(j)?;
                    let fat = slot_at(k, base, jj, 0)?;
                    let f = wait_flag(k, stbuf, fat, se)?;
                    let two = k.const_scalar(se, 2)?;
                    let inclusive = k.eq(f, two)?;
                    // flag 2: the inclusive prefix (word 2); flag 1: the aggregate (word 1).
                    let agg_at = slot_at(k, base, jj, 1)?;
                    let incl_at = slot_at(k, base, jj, 2)?;
                    let vat = k.select(inclusive, incl_at, agg_at)?;
                    let v = read_word(k, stbuf, vat, se, ty)?;
                    let acc = k.use_var(prefix)?;
                    let nacc = op.apply(k, v, acc)?;
                    k.def_var(prefix, nacc)?;
                    k.if_then(inclusive, |k| k.break_())?;
                    let jn = k.sub(jj, one)?;
                    k.def_var(j, jn)
                })
            })?;
            let pre = k.use_var(prefix)?;
            let incl = op.apply(k, pre, agg)?;
            k.if_then(publishes, |k| publish(k, stbuf, (my_flag, my_incl), incl, 2, se))?;
            if let Some(tb) = tbuf {
                let is_final = k.eq(tile, nt1)?;
                k.if_then(is_final, |k| {
                    // Quadrants' tree pads with the identity unless n = 256^D.
                    let v = match full {
                        Some(full) => {
                            let idv = identity(k, sop.op, ty)?;
                            let padded = op.apply(k, incl, idv)?;
                            let no_pad = k.eq(slen, full)?;
                            k.select(no_pad, incl, padded)?
                        }
                        None => incl,
                    };
                    k.store(tb, zero, v)
                })?;
            }
            k.store(prefix_sh, zero, pre)
        })?;
        crate::block::sync(k)?;
        if let Some((db, doff)) = dspan {
            let tile_prefix = k.load(prefix_sh, z)?;
            let mut run = op.apply(k, tile_prefix, scanned)?;
            for (j, &v) in vals.iter().enumerate() {
                let jv = k.const_u32(j as u32)?;
                let i = k.add(first_i, jv)?;
                let inb = k.lt(i, slen)?;
                let r = run;
                k.if_then(inb, |k| {
                    let at = k.add(doff, i)?;
                    let ed = match db.elem() {
                        e if e == ty => r,
                        e => rebits(k, r, e)?,
                    };
                    k.store(db, at, ed)
                })?;
                run = op.apply(k, run, v)?;
            }
        }
        Ok(())
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.push(src.buf);
    if let Some(d) = dst {
        args.push(d.buf);
    }
    if let Some(t) = total {
        args.push(t);
    }
    args.push(state.buf);
    if full.is_some() {
        args.push(ProgramArg::u32(full_count(call.cap)));
    }
    pb.launch(&f, &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_fits_every_scan_scratch() -> Result<(), BuildError> {
        for max_n in [0u64, 1, 256, 257, 1024, 1025, 4096, 65_536, 65_537, 1_000_003, 1 << 24, i32::MAX as u64] {
            let cap = Capacity::new(max_n)?;
            let slots = super::super::exclusive_scan_scratch_slots(max_n, Some(cap.log256()))?;
            assert!(fits(cap, 0, slots), "scan max_n = {max_n}: {}", need_text(cap, 0, slots));
            let r = super::super::reduce_scratch_slots(max_n, Some(cap.log256()))?;
            assert!(fits(cap, 0, r), "reduce max_n = {max_n}");
            let s = super::super::select_scratch_slots(max_n);
            assert!(fits(cap, max_n, s), "select max_n = {max_n}");
        }
        Ok(())
    }
}
