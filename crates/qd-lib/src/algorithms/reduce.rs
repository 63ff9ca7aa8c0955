//! Device-wide reductions (Quadrants `reduce_add/min/max`, docs/algorithms.md §6): `out[0] =
//! op(arr[0:n])`, the identity for `n = 0`.
//!
//! Multi-launch (every target): `D` phases of `_reduce_phase` — phase `k < D` reduces the
//! 256-element blocks of its input (`arr`, then the previous partials) into the next level of
//! block partials in `scratch` (`ceil(n/256)` at offset 0, then `ceil(b0/256)` after them, …);
//! the last phase is one block reducing the ≤ 256 remaining values into `out[0]`. The float add
//! order is that block tree (subgroup reduction, then the subgroup partials left to right).
//!
//! Chunked (the CPU form, [`Strategy::Chunked`]; `Auto` on CPU targets): see
//! [`super::chunked`] — 2 launches for integers, `D` for floats (the block tree, exactly).
//!
//! Single-pass (targets with forward progress; integers and float min/max under
//! [`Strategy::Auto`], any dtype when forced): the decoupled look-back pass of
//! [`super::lookback`] without outputs; the last tile's inclusive prefix is `out[0]`. Its
//! result is the multi-launch result bit for bit for integers and float min/max (NaN when
//! every value is NaN and `n = 256^D`, as Quadrants' unpadded tree gives: see the look-back's
//! reduce form). `Auto` keeps float add multi-launch: the look-back adds tile sums in an order
//! that depends on timing.

use super::args::{dtype_in, need_data, need_distinct, need_len, scratch_type};
use super::chunked;
use super::common::{single_pass, Call};
use super::lookback;
use super::staircase::{reduce_phase, Io, Len, ScanOp, Span};
use super::{reduce_scratch_slots, Capacity, Options, Strategy};
use crate::common::{at, Loc, NUMERIC};
use qd_frontend::{BuildError, ProgramArg, ProgramBuilder};
use qd_mir::GroupOp;
use std::panic::Location;

#[allow(clippy::too_many_arguments)]
fn reduce_impl(
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
    let algo = format!("reduce_{}", op.name());
    let ty = dtype_in(loc, &algo, "arr", arr, NUMERIC)?;
    dtype_in(loc, &algo, "out", out, &[ty])?;
    let st = scratch_type(ty);
    dtype_in(loc, &algo, "scratch", scratch, &[st])?;
    let call = Call::new(pb, loc, &algo, opts, n, cap)?;
    let d = cap.log256();
    need_data(pb, loc, cap, &[arr])?;
    need_len(pb, loc, out, 1, "one element")?;
    let slots = reduce_scratch_slots(cap.max_n(), Some(d)).map_err(at(loc))?;
    need_len(pb, loc, scratch, slots, &format!("reduce_scratch_slots({}, {d})", cap.max_n()))?;
    need_distinct(pb, loc, &[(arr, false), (out, true), (scratch, true), (n, false)])?;
    let sop = ScanOp { ty, op };
    if chunked::pick(loc, &algo, opts, true, "")? {
        return if ty.is_int() {
            chunked::reduce(pb, &call, sop, arr, out, scratch)
        } else {
            chunked::reduce_tree(pb, opts, &call, sop, arr, out, scratch)
        }
        .map_err(at(loc));
    }
    // Auto keeps float add multi-launch: the look-back's float add order depends on timing.
    let order_free = ty.is_int() || op != GroupOp::Add;
    let fits = lookback::fits(cap, 0, slots) && (order_free || opts.strategy == Strategy::SinglePass);
    let need = if fits || order_free || opts.strategy == Strategy::SinglePass {
        lookback::need_text(cap, 0, slots)
    } else {
        "Auto keeps float add reductions multi-launch".to_string()
    };
    if single_pass(loc, &algo, opts, fits, &need)? {
        let src = Io { buf: arr, span: Span::data() };
        let state = Io { buf: scratch, span: Span::root(Len::Zero, Len::Zero) };
        return lookback::emit(pb, opts, &call, sop, src, None, Some(out), state).map_err(at(loc));
    }
    (|| {
        let mut src = Io { buf: arr, span: Span::data() };
        let mut level = Span::root(Len::Zero, Len::Tiles);
        for _ in 1..d {
            let dst = Io { buf: scratch, span: level };
            reduce_phase(pb, opts, &call, sop, src, dst, false)?;
            src = dst;
            level = level.up();
        }
        let dst = Io { buf: out, span: Span::root(Len::Zero, Len::Zero) };
        reduce_phase(pb, opts, &call, sop, src, dst, true)
    })()
    .map_err(at(loc))
}

macro_rules! reduce_fn {
    ($(#[$doc:meta])* $name:ident, $op:expr) => {
        $(#[$doc])*
        ///
        /// `arr` and `out`: buffers of one dtype (i32 u32 f32 i64 u64 f64); `scratch`: u32 for
        /// 4-byte dtypes, u64 for 8-byte ones, at least
        /// [`reduce_scratch_slots(max_n, Some(D))`](super::reduce_scratch_slots) elements; `n`: a
        /// one-element i32 buffer holding the live count. The program checks the lengths, that
        /// `out` and `scratch` are not bound to another buffer of the call, and (status bit)
        /// that `0 <= n <= max_n` — else nothing is written. Launches: `D` (multi-launch, chunked
        /// floats) or 2 (single-pass, chunked integers).
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
            reduce_impl(pb, Location::caller(), $op, opts, arr, out, scratch, n, cap)
        }
    };
}

reduce_fn!(
    /// `out[0] = arr[0] + … + arr[n-1]` (0 for `n = 0`; integers wrap; floats in the block-tree
    /// order) — Quadrants `qd.algorithms.reduce_add`.
    reduce_add,
    GroupOp::Add
);
reduce_fn!(
    /// `out[0] = min(arr[0:n])` (the dtype's max for `n = 0`; floats: minNum, `-0 < +0`, NaNs
    /// are ignored; when every value is NaN the result is NaN if `n = 256^D`, where Quadrants'
    /// block tree pads no lane, else the identity `+inf`) — Quadrants `qd.algorithms.reduce_min`.
    reduce_min,
    GroupOp::Min
);
reduce_fn!(
    /// `out[0] = max(arr[0:n])` (the dtype's min for `n = 0`; floats: maxNum, `-0 < +0`, NaNs
    /// as for [`reduce_min`], the identity being `-inf`) — Quadrants `qd.algorithms.reduce_max`.
    reduce_max,
    GroupOp::Max
);
