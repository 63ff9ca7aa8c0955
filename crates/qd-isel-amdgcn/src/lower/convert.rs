//! `cast`: every conversion between bool, i32, u32, i64, u64, f32 and f64 with the interpreter's
//! semantics (`qd_mir::eval::cast`).
//!
//! - number → bool is `!= 0` (floats: the unordered `neq`, so NaN → true);
//! - integer ↔ integer: truncation, or sign/zero extension by the *source* type;
//! - 32-bit integer → float: `v_cvt_f32_{i32,u32}` (round to nearest even), `v_cvt_f64_*` (exact);
//! - 64-bit integer → f64: `hi · 2^32 + lo` in one `v_fma_f64` (the product and `lo` are exact,
//!   so the one rounding is the correct one);
//! - 64-bit integer → f32 without double rounding: the magnitude is normalised (`v_ffbh_u32` on
//!   the high word, a 64-bit shift), its top 32 bits get a sticky bit for any bit below them,
//!   `v_cvt_f32_u32` rounds that once, and a power-of-two multiply puts the exponent back (exact);
//! - float → 32-bit integer: `v_cvt_{i32,u32}_{f32,f64}` truncate, saturate and give 0 for NaN,
//!   like Rust's `as`;
//! - float → 64-bit integer (f32 via the exact f64): `hi = cvt_u32(x · 2^-32)` (truncating,
//!   saturating), `lo = cvt_u32(fma(hi, -2^32, x))` — the fma is exact, and saturation and NaN
//!   fall out of the two conversions; signed results convert `|x|`, clamp the magnitude to
//!   `2^63 - 1` or `2^63` by the sign, and negate;
//! - f32 ↔ f64: `v_cvt_f64_f32` / `v_cvt_f32_f64` (NaNs quieted with their payload, as on x86).

use qd_mir::types::ScalarType;
use qd_mir::Inst;
use regalloc2::VReg;

use super::arith::{cndmask, finish, k, reg32, reg64, s32, s64, sconst64, sty, v32, v64, vcc, vtarget};
use super::{Cls, Lower, Val};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::Op;
use qd_mir::CompileError;

/// `cast`.
pub(crate) fn cast(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    use ScalarType as S;
    let a = cx.f.args(i)[0];
    let v = cx.f.inst_results(i)[0];
    let (from, to) = (sty(cx, a), sty(cx, v));
    let va = cx.val(a);
    // Same bits, maybe another register file: bind when the form already fits.
    let same_bits = from == to
        || matches!((from, to), (S::Bool | S::I32 | S::U32, S::I32 | S::U32) | (S::I64 | S::U64, S::I64 | S::U64));
    if same_bits {
        let fits = matches!(
            (va, cx.cls_of(v)),
            (Val::S(_) | Val::S64(..), Cls::Scalar) | (Val::V(_) | Val::V64(_), Cls::Vector)
        );
        if fits {
            cx.bind(v, va);
        } else {
            let d = cx.def(v);
            cx.copy_into(d, va);
        }
        return Ok(());
    }
    let d = cx.def(v);
    match (from, to) {
        (_, S::Bool) => to_bool(cx, i, from, d, va),
        (S::Bool | S::U32 | S::I32, S::I64 | S::U64) => extend(cx, i, from == S::I32, d, va),
        (S::I64 | S::U64, S::I32 | S::U32) => {
            let lo = match va {
                Val::S64(l, _) => Val::S(l),
                Val::V64(w) => {
                    let r = cx.new_v();
                    cx.emit1(Op::VMovB32, &[A::D(r), A::UL(w)]);
                    Val::V(r)
                }
                _ => return Err(cx.internal(i, "a 64-bit value in a 32-bit register")),
            };
            cx.copy_into(d, lo);
            Ok(())
        }
        (S::Bool | S::I32 | S::U32, S::F32 | S::F64) => {
            let signed = from == S::I32;
            let x = match va {
                Val::S(r) | Val::V(r) => r,
                _ => return Err(cx.internal(i, "a 64-bit value in a 32-bit register")),
            };
            let rv = vtarget(cx, d);
            let o = match (to, signed) {
                (S::F32, true) => Op::VCvtF32I32,
                (S::F32, false) => Op::VCvtF32U32,
                (_, true) => Op::VCvtF64I32,
                (_, false) => Op::VCvtF64U32,
            };
            let r = if to == S::F32 { reg32(cx, i, rv)? } else { reg64(cx, i, rv)? };
            cx.emit1(o, &[A::D(r), A::U(x)]);
            finish(cx, d, rv);
            Ok(())
        }
        (S::I64 | S::U64, S::F64) => {
            let x = v64(cx, i, va)?;
            let rv = vtarget(cx, d);
            let r = reg64(cx, i, rv)?;
            let two32 = sconst64(cx, 0x41F0_0000_0000_0000);
            let (h, l) = (cx.new_w(), cx.new_w());
            let hop = if from == S::I64 { Op::VCvtF64I32 } else { Op::VCvtF64U32 };
            let mut m = MInst::one(cx.mi(hop, &[]), &[A::T(h), A::UH(x)]);
            m.step(cx.mi(Op::VCvtF64U32, &[]), &[A::T(l), A::UL(x)]);
            m.step(cx.mi(Op::VFmaF64, &[]), &[A::D(r), A::U(h), two32, A::U(l)]);
            cx.emit(m);
            finish(cx, d, rv);
            Ok(())
        }
        (S::I64 | S::U64, S::F32) => {
            let x = v64(cx, i, va)?;
            let rv = vtarget(cx, d);
            let r = reg32(cx, i, rv)?;
            if from == S::U64 {
                u64_to_f32(cx, r, x);
            } else {
                // |x| (wrapping: 2^63 stays exact as unsigned), convert, then copy the sign.
                let (s, u, f) = (cx.new_v(), cx.new_w(), cx.new_v());
                let (a0, a1) = (cx.new_v(), cx.new_v());
                let mut m = MInst::one(cx.mi(Op::VAshrrevI32, &[]), &[A::D(s), k(31), A::UH(x)]);
                m.step(cx.mi(Op::VXorB32, &[]), &[A::T(a0), A::U(s), A::UL(x)]);
                m.step(cx.mi(Op::VXorB32, &[]), &[A::T(a1), A::U(s), A::UH(x)]);
                m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(u), vcc(cx), A::U(a0), A::U(s)]);
                m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(u), vcc(cx), A::U(a1), A::U(s), vcc(cx)]);
                cx.emit(m);
                u64_to_f32(cx, f, u);
                let t = cx.new_v();
                let mut m = MInst::one(cx.mi(Op::VAndB32, &[]), &[A::T(t), k(0x8000_0000), A::U(s)]);
                m.step(cx.mi(Op::VXorB32, &[]), &[A::D(r), A::U(t), A::U(f)]);
                cx.emit(m);
            }
            finish(cx, d, rv);
            Ok(())
        }
        (S::F32, S::F64) => {
            let x = v32(cx, i, va)?;
            let rv = vtarget(cx, d);
            let r = reg64(cx, i, rv)?;
            cx.emit1(Op::VCvtF64F32, &[A::D(r), A::U(x)]);
            finish(cx, d, rv);
            Ok(())
        }
        (S::F64, S::F32) => {
            let x = v64(cx, i, va)?;
            let rv = vtarget(cx, d);
            let r = reg32(cx, i, rv)?;
            cx.emit1(Op::VCvtF32F64, &[A::D(r), A::U(x)]);
            finish(cx, d, rv);
            Ok(())
        }
        (S::F32 | S::F64, S::I32 | S::U32) => {
            let signed = to == S::I32;
            let x = if from == S::F32 { v32(cx, i, va)? } else { v64(cx, i, va)? };
            let o = match (from, signed) {
                (S::F32, true) => Op::VCvtI32F32,
                (S::F32, false) => Op::VCvtU32F32,
                (_, true) => Op::VCvtI32F64,
                (_, false) => Op::VCvtU32F64,
            };
            let rv = vtarget(cx, d);
            let r = reg32(cx, i, rv)?;
            cx.emit1(o, &[A::D(r), A::U(x)]);
            finish(cx, d, rv);
            Ok(())
        }
        (S::F32 | S::F64, S::I64 | S::U64) => {
            let x = if from == S::F32 {
                let x32 = v32(cx, i, va)?;
                let w = cx.new_w();
                cx.emit1(Op::VCvtF64F32, &[A::D(w), A::U(x32)]);
                w
            } else {
                v64(cx, i, va)?
            };
            let rv = vtarget(cx, d);
            let r = reg64(cx, i, rv)?;
            if to == S::U64 {
                f64_to_u64(cx, r, x);
            } else {
                f64_to_i64(cx, r, x);
            }
            finish(cx, d, rv);
            Ok(())
        }
        (S::Bool | S::I32 | S::U32 | S::I64 | S::U64 | S::F32 | S::F64, _) => {
            Err(cx.internal(i, format!("no conversion from {from} to {to}")))
        }
    }
}

/// `!= 0` into a bool.
fn to_bool(cx: &mut Lower<'_>, i: Inst, from: ScalarType, d: Val, va: Val) -> Result<(), CompileError> {
    use ScalarType as S;
    let float = matches!(from, S::F32 | S::F64);
    if let (Val::S(r), false) = (d, float) {
        let mut m = MInst::new();
        if from.bits() == 64 {
            let (l, h) = s64(cx, i, va)?;
            m.step(cx.mi(Op::SCmpLgU64, &[]), &[A::SPair(l, h), k(0)]);
        } else {
            let x = s32(cx, i, va)?;
            m.step(cx.mi(Op::SCmpLgU32, &[]), &[A::U(x), k(0)]);
        }
        m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(r), k(1), k(0)]);
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg32(cx, i, rv)?;
    let (o, x) = match from {
        S::F32 => (Op::VCmpNeqF32, v32(cx, i, va)?),
        S::F64 => (Op::VCmpNeqF64, v64(cx, i, va)?),
        S::I64 | S::U64 => (Op::VCmpNeU64, v64(cx, i, va)?),
        S::Bool | S::I32 | S::U32 => (Op::VCmpNeU32, v32(cx, i, va)?),
    };
    let mut m = MInst::one(cx.mi(o, &[]), &[vcc(cx), k(0), A::U(x)]);
    cndmask(cx, &mut m, A::D(r), k(0), k(1));
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

/// 32 → 64-bit integer, sign- or zero-extended.
fn extend(cx: &mut Lower<'_>, i: Inst, signed: bool, d: Val, va: Val) -> Result<(), CompileError> {
    let mut m = MInst::new();
    match d {
        Val::S64(l, h) => {
            let x = s32(cx, i, va)?;
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(l), A::U(x)]);
            if signed {
                m.step(cx.mi(Op::SAshrI32, &[]), &[A::D(h), A::U(x), k(31)]);
            } else {
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(h), k(0)]);
            }
        }
        Val::V64(w) => {
            let x = v32(cx, i, va)?;
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::U(x)]);
            if signed {
                m.step(cx.mi(Op::VAshrrevI32, &[]), &[A::DH(w), k(31), A::U(x)]);
            } else {
                m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), k(0)]);
            }
        }
        _ => return Err(cx.internal(i, "a 64-bit value in a 32-bit register")),
    }
    cx.emit(m);
    Ok(())
}

/// `r = (f32) x` for a u64 in a VGPR pair, rounded once (see the module doc).
fn u64_to_f32(cx: &mut Lower<'_>, r: VReg, x: VReg) {
    let (s, n, st, top, f, e) = (cx.new_v(), cx.new_w(), cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v());
    // s = min(clz(hi), 32); n = x << s: the leading one (if any) at bit 63, or x's low word
    // in the high word when hi = 0.
    let mut m = MInst::one(cx.mi(Op::VFfbhU32, &[]), &[A::T(s), A::UH(x)]);
    m.step(cx.mi(Op::VMinU32, &[]), &[A::T(s), k(32), A::U(s)]);
    m.step(cx.mi(Op::VLshlrevB64, &[]), &[A::T(n), A::U(s), A::U(x)]);
    // top = n.hi | (n.lo != 0): the sticky bit sits below the rounding position.
    m.step(cx.mi(Op::VCmpNeU32, &[]), &[vcc(cx), k(0), A::UL(n)]);
    cndmask(cx, &mut m, A::T(st), k(0), k(1));
    m.step(cx.mi(Op::VOrB32, &[]), &[A::T(top), A::U(st), A::UH(n)]);
    m.step(cx.mi(Op::VCvtF32U32, &[]), &[A::T(f), A::U(top)]);
    // × 2^(32 - s), built as f32 bits ((127 + 32 - s) << 23): exact.
    m.step(cx.mi(Op::VSubU32, &[]), &[A::T(e), k(159), A::U(s)]);
    m.step(cx.mi(Op::VLshlrevB32, &[]), &[A::T(e), k(23), A::U(e)]);
    m.step(cx.mi(Op::VMulF32, &[]), &[A::D(r), A::U(f), A::U(e)]);
    cx.emit(m);
}

/// `r = x as u64` for an f64 in a VGPR pair (truncating, saturating, NaN → 0).
fn f64_to_u64(cx: &mut Lower<'_>, r: VReg, x: VReg) {
    let inv = sconst64(cx, 0x3DF0_0000_0000_0000); // 2^-32
    let neg = sconst64(cx, 0xC1F0_0000_0000_0000); // -2^32
    let (p, hf, rm) = (cx.new_w(), cx.new_w(), cx.new_w());
    let mut m = MInst::one(cx.mi(Op::VMulF64, &[]), &[A::T(p), A::U(x), inv]);
    m.step(cx.mi(Op::VCvtU32F64, &[]), &[A::DH(r), A::U(p)]);
    m.step(cx.mi(Op::VCvtF64U32, &[]), &[A::T(hf), A::UH(r)]);
    m.step(cx.mi(Op::VFmaF64, &[]), &[A::T(rm), A::U(hf), neg, A::U(x)]);
    m.step(cx.mi(Op::VCvtU32F64, &[]), &[A::DL(r), A::U(rm)]);
    cx.emit(m);
}

/// `r = x as i64` for an f64 in a VGPR pair (truncating, saturating, NaN → 0).
fn f64_to_i64(cx: &mut Lower<'_>, r: VReg, x: VReg) {
    let ax = cx.new_w();
    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(ax), A::UL(x)]);
    m.step(cx.mi(Op::VAndB32, &[]), &[A::DH(ax), k(0x7FFF_FFFF), A::UH(x)]);
    cx.emit(m);
    let u = cx.new_w();
    f64_to_u64(cx, u, ax);
    // s = sign mask; limit = 2^63 - 1 + (s & 1); c = min(u, limit); r = (c ^ s) - s.
    let (s, lim, cl, ch) = (cx.new_v(), cx.new_w(), cx.new_v(), cx.new_v());
    let mut m = MInst::one(cx.mi(Op::VAshrrevI32, &[]), &[A::T(s), k(31), A::UH(x)]);
    m.step(cx.mi(Op::VNotB32, &[]), &[A::DL(lim), A::U(s)]);
    m.step(cx.mi(Op::VSubU32, &[]), &[A::DH(lim), k(0x7FFF_FFFF), A::U(s)]);
    m.step(cx.mi(Op::VCmpLtU64, &[]), &[vcc(cx), A::U(u), A::U(lim)]);
    cndmask(cx, &mut m, A::T(cl), A::UL(lim), A::UL(u));
    cndmask(cx, &mut m, A::T(ch), A::UH(lim), A::UH(u));
    m.step(cx.mi(Op::VXorB32, &[]), &[A::T(cl), A::U(s), A::U(cl)]);
    m.step(cx.mi(Op::VXorB32, &[]), &[A::T(ch), A::U(s), A::U(ch)]);
    m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(r), vcc(cx), A::U(cl), A::U(s)]);
    m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(r), vcc(cx), A::U(ch), A::U(s), vcc(cx)]);
    cx.emit(m);
}
