//! Device-wide exclusive scans (Quadrants `exclusive_scan_add/min/max`, docs/algorithms.md §6):
//! `out[0] = identity`, `out[i] = op(arr[0:i])`, out of place.
//!
//! Multi-launch (every target, `2D - 1` launches): `D == 1` is one tile phase; else the block
//! partials of `arr` go to `scratch[0 : ceil(n/256)]`, are scanned in place (the staircase of
//! [`super::staircase`], `D - 2` levels), and the downsweep combines each block's prefix with its
//! block scan into `out`.
//!
//! Chunked (the CPU form, [`Strategy::Chunked`]; `Auto` on CPU targets): see
//! [`super::chunked`] — 3 launches for integers, `2D - 1` for floats (the multi-launch order,
//! exactly).
//!
//! Single-pass (targets with forward progress; integers and float min/max under
//! [`Strategy::Auto`], any dtype when forced): the decoupled look-back scan of
//! [`super::lookback`], 2 launches. `Auto` keeps float add multi-launch (the look-back's
//! summation order depends on timing).

use super::args::{dtype_in, need_data, need_distinct, need_len, scratch_type};
use super::chunked;
use super::common::{single_pass, Call};
use super::lookback;
use super::staircase::{emit_scan, Io, Len, ScanOp, Span};
use super::{exclusive_scan_scratch_slots, Capacity, Options, Strategy};
use crate::common::{at, Loc, NUMERIC};
use qd_frontend::{BuildError, ProgramArg, ProgramBuilder};
use qd_mir::GroupOp;
use std::panic::Location;

#[allow(clippy::too_many_arguments)]
fn scan_impl(
    pb: &mut ProgramBuilder,
    loc: Loc,
    op: GroupOp,
    opts: &Options,
    arr: ProgramArg,
    out: ProgramArg,
    scratch: ProgramArg,
    n: ProgramArg,
    cap: Capacity,
) -> Result<(), BuildError> {
    let algo = format!("exclusive_scan_{}", op.name());
    let ty = dtype_in(loc, &algo, "arr", arr, NUMERIC)?;
    dtype_in(loc, &algo, "out", out, &[ty])?;
    dtype_in(loc, &algo, "scratch", scratch, &[scratch_type(ty)])?;
    let call = Call::new(pb, loc, &algo, opts, n, cap)?;
    let d = cap.log256();
    need_data(pb, loc, cap, &[arr, out])?;
    let slots = exclusive_scan_scratch_slots(cap.max_n(), Some(d)).map_err(at(loc))?;
    need_len(pb, loc, scratch, slots, &format!("exclusive_scan_scratch_slots({}, {d})", cap.max_n()))?;
    need_distinct(pb, loc, &[(arr, false), (out, true), (scratch, true), (n, false)])?;
    let sop = ScanOp { ty, op };
    if chunked::pick(loc, &algo, opts, true, "")? {
        let (src, dst) = (Io { buf: arr, span: Span::data() }, Io { buf: out, span: Span::data() });
        return if ty.is_int() {
            let part = Io { buf: scratch, span: Span::root(Len::Zero, Len::Zero) };
            chunked::exclusive_scan(pb, &call, sop, src, dst, part)
        } else {
            let partials = Io { buf: scratch, span: Span::root(Len::Zero, Len::Tiles) };
            chunked::exclusive_scan_tree(pb, opts, &call, sop, src, dst, partials)
        }
        .map_err(at(loc));
    }
    // Auto keeps float add multi-launch: the look-back's float add order depends on timing.
    let order_free = ty.is_int() || op != GroupOp::Add;
    let fits = lookback::fits(cap, 0, slots) && (order_free || opts.strategy == Strategy::SinglePass);
    let need = if fits || order_free || opts.strategy == Strategy::SinglePass {
        lookback::need_text(cap, 0, slots)
    } else {
        "Auto keeps float add scans multi-launch".to_string()
    };
    if single_pass(loc, &algo, opts, fits, &need)? {
        let src = Io { buf: arr, span: Span::data() };
        let dst = Io { buf: out, span: Span::data() };
        let state = Io { buf: scratch, span: Span::root(Len::Zero, Len::Zero) };
        return lookback::emit(pb, opts, &call, sop, src, Some(dst), None, state).map_err(at(loc));
    }
    let src = Io { buf: arr, span: Span::data() };
    let dst = Io { buf: out, span: Span::data() };
    let partials = Io { buf: scratch, span: Span::root(Len::Zero, Len::Tiles) };
    emit_scan(pb, opts, &call, sop, src, dst, partials, d).map_err(at(loc))
}

macro_rules! scan_fn {
    ($(#[$doc:meta])* $name:ident, $op:expr) => {
        $(#[$doc])*
        ///
        /// `arr` and `out`: distinct buffers of one dtype (i32 u32 f32 i64 u64 f64) of at least
        /// `max_n` elements; `scratch`: u32 for 4-byte dtypes, u64 for 8-byte ones, at least
        /// [`exclusive_scan_scratch_slots(max_n, Some(D))`](super::exclusive_scan_scratch_slots)
        /// elements; `n`: a one-element i32 buffer holding the live count. The program checks
        /// the lengths, that `out` and `scratch` are not bound to another buffer of the call, and
        /// (status bit) that `0 <= n <= max_n` — else nothing is written. `out[n..]` is left as
        /// it was. Launches: `2D - 1` (multi-launch, chunked floats), 2 (single-pass) or 3 (chunked
        /// integers).
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            pb: &mut ProgramBuilder,
            opts: &Options,
            arr: ProgramArg,
            out: ProgramArg,
            scratch: ProgramArg,
            n: ProgramArg,
            cap: Capacity,
        ) -> Result<(), BuildError> {
            scan_impl(pb, Location::caller(), $op, opts, arr, out, scratch, n, cap)
        }
    };
}

scan_fn!(
    /// `out[i] = arr[0] + … + arr[i-1]`, `out[0] = 0` (integers wrap) — Quadrants
    /// `qd.algorithms.exclusive_scan_add`.
    exclusive_scan_add,
    GroupOp::Add
);
scan_fn!(
    /// `out[i] = min(arr[0:i])`, `out[0]` = the dtype's max (`+inf`, `INT_MAX`, `UINT_MAX`);
    /// floats: minNum, `-0 < +0` — Quadrants `qd.algorithms.exclusive_scan_min`.
    exclusive_scan_min,
    GroupOp::Min
);
scan_fn!(
    /// `out[i] = max(arr[0:i])`, `out[0]` = the dtype's min (`-inf`, `INT_MIN`, 0); floats:
    /// maxNum, `-0 < +0` — Quadrants `qd.algorithms.exclusive_scan_max`.
    exclusive_scan_max,
    GroupOp::Max
);
