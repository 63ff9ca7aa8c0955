//! Integer `div`/`rem` (truncating; `INT_MIN / -1` wraps); float `div`/`sqrt`/`rem` via `fdiv`.
//!
//! Division by zero faults in the interpreter; here it produces a defined value without trapping,
//! as RISC-V does: the quotient is all ones (−1 for signed types) and the remainder is the
//! dividend.
//!
//! - 32-bit (uniform operands too: the SALU has no reciprocal, so the VALU computes and
//!   `v_readfirstlane` brings the result back): the reciprocal-estimate sequence — `z ≈ 2^32/d`
//!   from `v_rcp_iflag_f32` (the reciprocal meant for integer division: the same ≈1 ULP
//!   estimate, signalling no float exceptions) of `v_cvt_f32_u32(d)`, scaled by `0x4F7FFFF8`
//!   (2^32 − 2048 = 2^32·(1 − 2^−21)), one Newton step in integers (`z += mulhi(z, −d·z)`),
//!   `q = mulhi(n, z)`, `r = n − q·d`, and two conditional corrections `r ≥ d → q += 1,
//!   r −= d`. The Newton step needs `z ≤ 2^32/d` (else `−d·z` wraps and `z` doubles): the
//!   reciprocal's error (up to 1.5 ULP, 1.5·2^−23, as the simulator's `trans_ulp` models) plus
//!   the roundings of the conversion and the product (2^−24 each) stay below the 2^−21 margin,
//!   whereas LLVM's `0x4F7FFFFE` (a 2^−23 margin) overestimates with a reciprocal 1 ULP above the
//!   correctly rounded one (`d = 3`). From `z ≥ (2^32/d)(1 − 2^−20)` the step gives
//!   `2^32/d − 1 − 2^−8/d ≤ z' ≤ 2^32/d`, so `q` is the quotient or up to two below it.
//!   Signed division runs on magnitudes and fixes the signs (quotient: sign of `n ^ d`,
//!   remainder: sign of `n`).
//! - 64-bit: restoring long division, 64 unrolled shift-subtract steps on VGPR pairs (the bit
//!   shifted out of the partial remainder forces the subtraction, so divisors ≥ 2^63 work).
//! - float `div`, `sqrt` and `rem` are in `fdiv` (re-exported here for `arith`).

use qd_mir::Inst;
use regalloc2::VReg;

use super::arith::{cndmask, finish, k, reg32, reg64, v32, v64, vcc, vtarget};
use super::{Lower, Val};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::Op;
use qd_mir::CompileError;

/// Emits `(q, r) = (n / d, n % d)` for u32 values in VGPRs (any `d`; `d = 0` gives garbage that
/// the caller replaces).
fn udiv32(cx: &mut Lower<'_>, n: VReg, d: VReg) -> (VReg, VReg) {
    let (q, r) = (cx.new_v(), cx.new_v());
    let (f, z, nd, t, u) = (cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v());
    let mut m = MInst::one(cx.mi(Op::VCvtF32U32, &[]), &[A::T(f), A::U(d)]);
    m.step(cx.mi(Op::VRcpIflagF32, &[]), &[A::T(f), A::U(f)]);
    m.step(cx.mi(Op::VMulF32, &[]), &[A::T(f), k(0x4F7F_FFF8), A::U(f)]);
    m.step(cx.mi(Op::VCvtU32F32, &[]), &[A::T(z), A::U(f)]);
    m.step(cx.mi(Op::VSubU32, &[]), &[A::T(nd), k(0), A::U(d)]);
    m.step(cx.mi(Op::VMulLoU32, &[]), &[A::T(t), A::U(nd), A::U(z)]);
    m.step(cx.mi(Op::VMulHiU32, &[]), &[A::T(t), A::U(z), A::U(t)]);
    m.step(cx.mi(Op::VAddU32, &[]), &[A::T(z), A::U(z), A::U(t)]);
    m.step(cx.mi(Op::VMulHiU32, &[]), &[A::D(q), A::U(n), A::U(z)]);
    m.step(cx.mi(Op::VMulLoU32, &[]), &[A::T(t), A::U(q), A::U(d)]);
    m.step(cx.mi(Op::VSubU32, &[]), &[A::D(r), A::U(n), A::U(t)]);
    for _ in 0..2 {
        m.step(cx.mi(Op::VCmpGeU32, &[]), &[vcc(cx), A::U(r), A::U(d)]);
        m.step(cx.mi(Op::VSubU32, &[]), &[A::T(t), A::U(r), A::U(d)]);
        m.step(cx.mi(Op::VAddU32, &[]), &[A::T(u), k(1), A::U(q)]);
        cndmask(cx, &mut m, A::D(q), A::U(q), A::U(u));
        cndmask(cx, &mut m, A::D(r), A::U(r), A::U(t));
    }
    cx.emit(m);
    (q, r)
}

/// `|x|` of an i32 and its sign mask (all ones when negative).
fn abs32(cx: &mut Lower<'_>, x: VReg) -> (VReg, VReg) {
    let (s, a) = (cx.new_v(), cx.new_v());
    let mut m = MInst::one(cx.mi(Op::VAshrrevI32, &[]), &[A::D(s), k(31), A::U(x)]);
    m.step(cx.mi(Op::VXorB32, &[]), &[A::D(a), A::U(s), A::U(x)]);
    m.step(cx.mi(Op::VSubU32, &[]), &[A::D(a), A::U(a), A::U(s)]);
    cx.emit(m);
    (a, s)
}

/// 32-bit `div` / `rem`.
pub(crate) fn int32(
    cx: &mut Lower<'_>,
    i: Inst,
    rem: bool,
    signed: bool,
    d: Val,
    va: Val,
    vb: Val,
) -> Result<(), CompileError> {
    let (n, dv) = (v32(cx, i, va)?, v32(cx, i, vb)?);
    let rv = vtarget(cx, d);
    let out = reg32(cx, i, rv)?;
    let res = if signed {
        let (an, sa) = abs32(cx, n);
        let (ad, sb) = abs32(cx, dv);
        let (q, r) = udiv32(cx, an, ad);
        let (res, sign) = if rem { (r, sa) } else { (q, cx.new_v()) };
        let fixed = cx.new_v();
        let mut m = MInst::new();
        if !rem {
            m.step(cx.mi(Op::VXorB32, &[]), &[A::T(sign), A::U(sa), A::U(sb)]);
        }
        m.step(cx.mi(Op::VXorB32, &[]), &[A::D(fixed), A::U(sign), A::U(res)]);
        m.step(cx.mi(Op::VSubU32, &[]), &[A::D(fixed), A::U(fixed), A::U(sign)]);
        cx.emit(m);
        fixed
    } else {
        let (q, r) = udiv32(cx, n, dv);
        if rem {
            r
        } else {
            q
        }
    };
    // Division by zero: quotient all ones, remainder the dividend.
    let mut m = MInst::one(cx.mi(Op::VCmpEqU32, &[]), &[vcc(cx), k(0), A::U(dv)]);
    let by_zero = if rem { A::U(n) } else { k(u32::MAX) };
    cndmask(cx, &mut m, A::D(out), A::U(res), by_zero);
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

/// `|x|` of an i64 pair and its sign mask (a 32-bit VGPR, all ones when negative).
fn abs64(cx: &mut Lower<'_>, x: VReg) -> (VReg, VReg) {
    let (s, a, t0, t1) = (cx.new_v(), cx.new_w(), cx.new_v(), cx.new_v());
    let mut m = MInst::one(cx.mi(Op::VAshrrevI32, &[]), &[A::D(s), k(31), A::UH(x)]);
    m.step(cx.mi(Op::VXorB32, &[]), &[A::T(t0), A::U(s), A::UL(x)]);
    m.step(cx.mi(Op::VXorB32, &[]), &[A::T(t1), A::U(s), A::UH(x)]);
    m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(a), vcc(cx), A::U(t0), A::U(s)]);
    m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(a), vcc(cx), A::U(t1), A::U(s), vcc(cx)]);
    cx.emit(m);
    (a, s)
}

/// `(x ^ s) - s` on a pair: negates when the 32-bit mask `s` is all ones.
fn apply_sign64(cx: &mut Lower<'_>, x: VReg, s: VReg) -> VReg {
    let (r, t0, t1) = (cx.new_w(), cx.new_v(), cx.new_v());
    let mut m = MInst::one(cx.mi(Op::VXorB32, &[]), &[A::T(t0), A::U(s), A::UL(x)]);
    m.step(cx.mi(Op::VXorB32, &[]), &[A::T(t1), A::U(s), A::UH(x)]);
    m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(r), vcc(cx), A::U(t0), A::U(s)]);
    m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(r), vcc(cx), A::U(t1), A::U(s), vcc(cx)]);
    cx.emit(m);
    r
}

/// `(q, r) = (n / d, n % d)` for u64 pairs: 64 restoring steps. `d = 0` gives `q = 2^64 - 1`,
/// `r = n`.
fn udiv64(cx: &mut Lower<'_>, n: VReg, d: VReg) -> (VReg, VReg) {
    let mut r = cx.new_w();
    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(r), k(0)]);
    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(r), k(0)]);
    cx.emit(m);
    let mut q = n;
    for _ in 0..64 {
        let (rs, qs, rn, qn) = (cx.new_w(), cx.new_w(), cx.new_w(), cx.new_w());
        let (b, c, tl, th, g) = (cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v());
        // (r:q) <<= 1, the carry c out of r's top.
        let mut m = MInst::one(cx.mi(Op::VLshlrevB64, &[]), &[A::D(rs), k(1), A::U(r)]);
        m.step(cx.mi(Op::VLshrrevB32, &[]), &[A::T(b), k(31), A::UH(q)]);
        m.step(cx.mi(Op::VOrB32, &[]), &[A::DL(rs), A::U(b), A::UL(rs)]);
        m.step(cx.mi(Op::VLshrrevB32, &[]), &[A::T(c), k(31), A::UH(r)]);
        m.step(cx.mi(Op::VLshlrevB64, &[]), &[A::D(qs), k(1), A::U(q)]);
        // t = rs - d; subtract when no borrow or when the carry makes rs ≥ 2^64 > d.
        m.step(cx.mi(Op::VSubCoU32, &[]), &[A::T(tl), vcc(cx), A::UL(rs), A::UL(d)]);
        m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::T(th), vcc(cx), A::UH(rs), A::UH(d), vcc(cx)]);
        cndmask(cx, &mut m, A::T(g), k(1), k(0));
        m.step(cx.mi(Op::VOrB32, &[]), &[A::T(g), A::U(g), A::U(c)]);
        m.step(cx.mi(Op::VCmpNeU32, &[]), &[vcc(cx), k(0), A::U(g)]);
        cndmask(cx, &mut m, A::DL(rn), A::UL(rs), A::U(tl));
        cndmask(cx, &mut m, A::DH(rn), A::UH(rs), A::U(th));
        m.step(cx.mi(Op::VOrB32, &[]), &[A::DL(qn), A::U(g), A::UL(qs)]);
        m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(qn), A::UH(qs)]);
        cx.emit(m);
        r = rn;
        q = qn;
    }
    (q, r)
}

/// 64-bit `div` / `rem`.
pub(crate) fn int64(
    cx: &mut Lower<'_>,
    i: Inst,
    rem: bool,
    signed: bool,
    d: Val,
    va: Val,
    vb: Val,
) -> Result<(), CompileError> {
    let (n, dv) = (v64(cx, i, va)?, v64(cx, i, vb)?);
    let rv = vtarget(cx, d);
    let out = reg64(cx, i, rv)?;
    let res = if signed {
        let (an, sa) = abs64(cx, n);
        let (ad, sb) = abs64(cx, dv);
        let (q, r) = udiv64(cx, an, ad);
        if rem {
            apply_sign64(cx, r, sa)
        } else {
            let s = cx.new_v();
            cx.emit1(Op::VXorB32, &[A::D(s), A::U(sa), A::U(sb)]);
            apply_sign64(cx, q, s)
        }
    } else {
        let (q, r) = udiv64(cx, n, dv);
        if rem {
            r
        } else {
            q
        }
    };
    // Division by zero: the unsigned steps already give all ones / the dividend; the signed
    // quotient's sign fix-up would turn −1 into 1 for negative dividends, so select explicitly.
    let mut m = MInst::one(cx.mi(Op::VCmpEqU64, &[]), &[vcc(cx), k(0), A::U(dv)]);
    let (zl, zh) = if rem { (A::UL(n), A::UH(n)) } else { (k(u32::MAX), k(u32::MAX)) };
    cndmask(cx, &mut m, A::DL(out), A::UL(res), zl);
    cndmask(cx, &mut m, A::DH(out), A::UH(res), zh);
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

// The float operations live in `fdiv`; `arith` dispatches through this module.
pub(crate) use super::fdiv::{fdiv, frem, fsqrt};
