//! Float `div`, `sqrt` and `rem` (f32, f64), bit-identical to the interpreter's Rust `/`,
//! `sqrt` and `%` (NaN results aside: an invalid operation gives the AMD default NaN where the
//! x86 host gives its negative one; propagated NaN payloads are kept).
//!
//! - `div` and `sqrt` emit `seq`'s correctly rounded sequences — the very definitions its
//!   simulator tests check on physical registers — as one `MInst` over virtual registers (the
//!   sequence's temporaries are `MInst` temporaries; VCC is clobbered inside). f32 division uses
//!   `seq::div_f32_via_f64`, which stays exact for any reciprocal within a few ULPs; f64
//!   division uses `seq::div_f64` (`v_div_scale`/`v_div_fmas`/`v_div_fixup`, two Newton steps):
//!   exact when the hardware's `v_rcp_f64` refines to the correctly rounded reciprocal, which a
//!   reciprocal one ULP off does not for divisors with an all-ones significand (see `seq`'s
//!   accuracy caveat) — the one residual hardware risk here. Square roots are exact for any
//!   ≤1 ULP `v_rsq_f64`.
//! - `rem` is an exact `fmod` (result `x − trunc(x/y)·y`, the sign of `x`) without loops: a fixed
//!   number of reduction steps on `r = |x|` (in f64, for f32 operands too), each replacing `r`
//!   by `r mod S` for `S = |y|·2^s`, `s = max(0, e(r) − e(y) − K)` with `K` = [`CHUNK`] bits:
//!   `q = trunc(r/S + ½)` from a refined reciprocal of `|y|`'s significand (the true quotient is
//!   below 2^(K+1), the estimate within 2^−2 of it, so `q` is the floor or one more), then
//!   `r = fma(−q, S, r)` and `r += S` when negative. Every step is exact: the true
//!   `r − q·S` is a multiple of the granularity of `S` (or of `r`, where `q ≤ 1` and Sterbenz
//!   applies) below `S` in magnitude, so it is representable and the fma returns it; adding `S`
//!   back lands in `[0, S)` on the same grid. Each step lowers the exponent gap by `K` until it
//!   is at most `K`, where `s = 0` and one step finishes; once `r < |y|` the steps change
//!   nothing. The largest gap is 276 for f32 (6 steps) and 2097 for f64 (46 steps). Special
//!   cases are selected at the end in the host's priority: a NaN `x` (quieted), a NaN `y`
//!   (quieted), then `x = ±∞` or `y = ±0` (the default NaN), then `y = ±∞` (`x`).

use qd_mir::types::ScalarType;
use qd_mir::Inst;
use regalloc2::{Operand as RaOperand, VReg};

use super::arith::{cndmask, finish, k, reg32, reg64, v32, v64, vcc, vtarget};
use super::{Lower, Val};
use crate::seq::{self, Builder, Reg, Sink, Slot};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::{InlineFloat, Inst as MI, Mods, Op, Operand};
use qd_mir::CompileError;

/// Bits of quotient each `fmod` reduction step removes (see the module doc: the estimate's error
/// is at most 2^(K+1)·2^−50 + 2^(K−52) < ½).
const CHUNK: u32 = 46;

/// Reduction steps: enough for an exponent gap of 276 (f32) / 2097 (f64).
fn fmod_steps(f64_: bool) -> u32 {
    let gap: u32 = if f64_ { 2097 } else { 276 };
    gap.div_ceil(CHUNK)
}

/// A [`Sink`] appending `seq` steps to an `MInst` over virtual registers.
struct VSink<'m>(&'m mut MInst);

impl Sink for VSink<'_> {
    type R = VReg;
    fn step(&mut self, template: MI, slots: &[Slot<VReg>]) {
        let args: Vec<A> = slots
            .iter()
            .map(|s| match *s {
                Slot::K(o) => A::K(o),
                Slot::Read(Reg::One(v) | Reg::Pair(v)) => A::U(v),
                Slot::Read(Reg::Lo(v)) => A::UL(v),
                Slot::Read(Reg::Hi(v)) => A::UH(v),
                Slot::Write(Reg::One(v) | Reg::Pair(v)) => A::D(v),
                Slot::Write(Reg::Lo(v)) => A::DL(v),
                Slot::Write(Reg::Hi(v)) => A::DH(v),
            })
            .collect();
        self.0.step(template, &args);
    }
}

/// Emits one `MInst` running a `seq` body; `temps` are registered first as the `MInst`'s
/// temporaries (so half writes and reads of them name the same allocation).
fn emit_seq(cx: &mut Lower<'_>, temps: &[VReg], body: impl FnOnce(&mut Builder<'_, VSink<'_>>)) {
    let mut m = MInst::new();
    for &t in temps {
        m.extra(RaOperand::reg_temp(t));
    }
    let target = cx.target;
    {
        let mut sink = VSink(&mut m);
        body(&mut Builder::new(target, &mut sink));
    }
    cx.emit(m);
}

/// Float `div`.
pub(crate) fn fdiv(cx: &mut Lower<'_>, i: Inst, ty: ScalarType, d: Val, va: Val, vb: Val) -> Result<(), CompileError> {
    let rv = vtarget(cx, d);
    match ty {
        ScalarType::F32 => {
            let (a, b) = (v32(cx, i, va)?, v32(cx, i, vb)?);
            let dst = reg32(cx, i, rv)?;
            let tmp = [cx.new_w(), cx.new_w(), cx.new_w(), cx.new_w()];
            emit_seq(cx, &tmp, |s| seq::div_f32_via_f64_body(s, dst, a, b, tmp));
        }
        ScalarType::F64 => {
            let (a, b) = (v64(cx, i, va)?, v64(cx, i, vb)?);
            let dst = reg64(cx, i, rv)?;
            let tmp = [cx.new_w(), cx.new_w(), cx.new_w(), cx.new_w()];
            emit_seq(cx, &tmp, |s| seq::div_f64_body(s, dst, a, b, tmp));
        }
        _ => return Err(cx.internal(i, "float division on a non-float type")),
    }
    finish(cx, d, rv);
    Ok(())
}

/// Float `sqrt`.
pub(crate) fn fsqrt(cx: &mut Lower<'_>, i: Inst, ty: ScalarType, d: Val, va: Val) -> Result<(), CompileError> {
    let rv = vtarget(cx, d);
    let tmp = [cx.new_w(), cx.new_w(), cx.new_w(), cx.new_w()];
    let kr = cx.new_v();
    let temps = [tmp[0], tmp[1], tmp[2], tmp[3], kr];
    match ty {
        ScalarType::F32 => {
            let x = v32(cx, i, va)?;
            let dst = reg32(cx, i, rv)?;
            emit_seq(cx, &temps, |s| seq::sqrt_f32_body(s, dst, x, tmp, kr));
        }
        ScalarType::F64 => {
            let x = v64(cx, i, va)?;
            let dst = reg64(cx, i, rv)?;
            emit_seq(cx, &temps, |s| seq::sqrt_f64_body(s, dst, x, tmp, kr));
        }
        _ => return Err(cx.internal(i, "square root on a non-float type")),
    }
    finish(cx, d, rv);
    Ok(())
}

fn half() -> A {
    A::K(Operand::Float(InlineFloat::Half))
}

fn one() -> A {
    A::K(Operand::Float(InlineFloat::One))
}

/// An op with source negate bits.
fn neg(cx: &Lower<'_>, op: Op, bits: u8) -> MI {
    cx.mi(op, &[]).mods(Mods { neg: bits, ..Mods::default() })
}

/// Float `rem`: an exact `fmod` (see the module doc).
pub(crate) fn frem(cx: &mut Lower<'_>, i: Inst, ty: ScalarType, d: Val, va: Val, vb: Val) -> Result<(), CompileError> {
    let f64_ = match ty {
        ScalarType::F32 => false,
        ScalarType::F64 => true,
        _ => return Err(cx.internal(i, "float remainder on a non-float type")),
    };
    let rv = vtarget(cx, d);
    // x and y in VGPRs; X = |x| and Y = |y| as f64.
    let (x, y) = if f64_ { (v64(cx, i, va)?, v64(cx, i, vb)?) } else { (v32(cx, i, va)?, v32(cx, i, vb)?) };
    let (big_x, big_y) = (cx.new_w(), cx.new_w());
    let (myr, ey) = (cx.new_w(), cx.new_v());
    let (my, e) = (cx.new_w(), cx.new_w());
    let mut m = MInst::new();
    for (wide, src) in [(big_x, x), (big_y, y)] {
        if f64_ {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(wide), A::UL(src)]);
            m.step(cx.mi(Op::VAndB32, &[]), &[A::DH(wide), k(0x7FFF_FFFF), A::UH(src)]);
        } else {
            m.step(cx.mi(Op::VCvtF64F32, &[]), &[A::D(wide), A::U(src)]);
            m.step(cx.mi(Op::VAndB32, &[]), &[A::DH(wide), k(0x7FFF_FFFF), A::UH(wide)]);
        }
    }
    // my = significand of Y in [½, 1), ey its exponent; myr ≈ 1/my after two Newton steps.
    m.step(cx.mi(Op::VFrexpMantF64, &[]), &[A::T(my), A::U(big_y)]);
    m.step(cx.mi(Op::VFrexpExpI32F64, &[]), &[A::D(ey), A::U(big_y)]);
    m.step(cx.mi(Op::VRcpF64, &[]), &[A::D(myr), A::U(my)]);
    for _ in 0..2 {
        m.step(neg(cx, Op::VFmaF64, 1), &[A::T(e), A::U(my), A::U(myr), one()]); // 1 − my·r
        m.step(cx.mi(Op::VFmaF64, &[]), &[A::D(myr), A::U(myr), A::U(e), A::U(myr)]);
        // r + r·e
    }
    cx.emit(m);

    let mut r = big_x;
    for _ in 0..fmod_steps(f64_) {
        r = fmod_step(cx, r, big_y, myr, ey);
    }

    // The result with x's sign, then the special cases (later selects win).
    let out = if f64_ { reg64(cx, i, rv)? } else { reg32(cx, i, rv)? };
    let (res, mask, dnan) = (cx.new_v(), cx.new_v(), cx.new_v());
    let mut m = MInst::new();
    // dst = mag | (sign & 0x80000000): `r`'s sign bit is clear (it is +0 or positive).
    let sgn = cx.new_v();
    let with_sign = |cx: &Lower<'_>, m: &mut MInst, dst: A, mag: A, sign: A| {
        m.step(cx.mi(Op::VAndB32, &[]), &[A::T(sgn), k(0x8000_0000), sign]);
        m.step(cx.mi(Op::VOrB32, &[]), &[dst, A::U(sgn), mag]);
    };
    // `class(v) ∈ classes → out = (lo, hi)`, per 32-bit half (`hi` unused for f32).
    let select = |cx: &Lower<'_>, m: &mut MInst, v: VReg, classes: u32, lo: A, hi: A| {
        m.step(cx.mi(Op::VMovB32, &[]), &[A::T(mask), k(classes)]);
        let cmp = if f64_ { Op::VCmpClassF64 } else { Op::VCmpClassF32 };
        m.step(cx.mi(cmp, &[]), &[vcc(cx), A::U(v), A::U(mask)]);
        if f64_ {
            cndmask(cx, m, A::DL(out), A::UL(out), lo);
            cndmask(cx, m, A::DH(out), A::UH(out), hi);
        } else {
            cndmask(cx, m, A::D(out), A::U(out), lo);
        }
    };
    const NAN: u32 = 0b11;
    const INF: u32 = (1 << 2) | (1 << 9);
    const ZERO: u32 = (1 << 5) | (1 << 6);
    // The default NaN (its high word for f64): a VGPR, as VOP3 takes no literal on GFX9.
    let (quiet, default_nan) = if f64_ { (0x0008_0000, 0x7FF8_0000) } else { (0x0040_0000, 0x7FC0_0000) };
    m.step(cx.mi(Op::VMovB32, &[]), &[A::T(dnan), k(default_nan)]);
    if f64_ {
        m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(out), A::UL(r)]);
        with_sign(cx, &mut m, A::DH(out), A::UH(r), A::UH(x));
        select(cx, &mut m, y, INF, A::UL(x), A::UH(x));
        select(cx, &mut m, x, INF, k(0), A::U(dnan));
        select(cx, &mut m, y, ZERO, k(0), A::U(dnan));
        for v in [y, x] {
            m.step(cx.mi(Op::VOrB32, &[]), &[A::T(res), k(quiet), A::UH(v)]);
            select(cx, &mut m, v, NAN, A::UL(v), A::U(res));
        }
    } else {
        m.step(cx.mi(Op::VCvtF32F64, &[]), &[A::T(res), A::U(r)]);
        with_sign(cx, &mut m, A::D(out), A::U(res), A::U(x));
        select(cx, &mut m, y, INF, A::U(x), A::U(x));
        select(cx, &mut m, x, INF, A::U(dnan), A::U(dnan));
        select(cx, &mut m, y, ZERO, A::U(dnan), A::U(dnan));
        for v in [y, x] {
            m.step(cx.mi(Op::VOrB32, &[]), &[A::T(res), k(quiet), A::U(v)]);
            select(cx, &mut m, v, NAN, A::U(res), A::U(res));
        }
    }
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

/// One exact reduction step `r mod (Y·2^s)` (see the module doc); returns the new `r`.
fn fmod_step(cx: &mut Lower<'_>, r: VReg, big_y: VReg, myr: VReg, ey: VReg) -> VReg {
    let out = cx.new_w();
    let (er, dd, s, e2) = (cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v());
    let (mr, t, big_s) = (cx.new_w(), cx.new_w(), cx.new_w());
    let mut m = MInst::new();
    m.step(cx.mi(Op::VFrexpExpI32F64, &[]), &[A::T(er), A::U(r)]);
    m.step(cx.mi(Op::VFrexpMantF64, &[]), &[A::T(mr), A::U(r)]);
    m.step(cx.mi(Op::VSubU32, &[]), &[A::T(dd), A::U(er), A::U(ey)]); // gap
    m.step(cx.mi(Op::VAddU32, &[]), &[A::T(s), k(CHUNK.wrapping_neg()), A::U(dd)]);
    m.step(cx.mi(Op::VMaxI32, &[]), &[A::T(s), k(0), A::U(s)]); // s = max(0, gap − K)
    m.step(cx.mi(Op::VSubU32, &[]), &[A::T(e2), A::U(dd), A::U(s)]); // gap − s ≤ K
                                                                     // q = trunc(mr·myr·2^(gap−s) + ½): the floor of r/S or one more.
    m.step(cx.mi(Op::VMulF64, &[]), &[A::T(t), A::U(mr), A::U(myr)]);
    m.step(cx.mi(Op::VLdexpF64, &[]), &[A::T(t), A::U(t), A::U(e2)]);
    m.step(cx.mi(Op::VAddF64, &[]), &[A::T(t), A::U(t), half()]);
    m.step(cx.mi(Op::VTruncF64, &[]), &[A::T(t), A::U(t)]);
    m.step(cx.mi(Op::VLdexpF64, &[]), &[A::T(big_s), A::U(big_y), A::U(s)]);
    m.step(neg(cx, Op::VFmaF64, 1), &[A::D(out), A::U(t), A::U(big_s), A::U(r)]); // r − q·S
                                                                                  // r < 0 → r + S.
    m.step(cx.mi(Op::VCmpGtF64, &[]), &[vcc(cx), k(0), A::U(out)]);
    m.step(cx.mi(Op::VAddF64, &[]), &[A::T(t), A::U(out), A::U(big_s)]);
    cndmask(cx, &mut m, A::DL(out), A::UL(out), A::UL(t));
    cndmask(cx, &mut m, A::DH(out), A::UH(out), A::UH(t));
    cx.emit(m);
    out
}
