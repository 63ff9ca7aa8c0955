//! Scalar arithmetic: constants, integer and float binary/unary ops, `fma`, `select`, `cmp` and
//! `bitcast`, for every MIR scalar type, on the scalar ALU for uniform integer values and on the
//! vector ALU otherwise, with the interpreter's exact semantics (`qd_mir::eval`). Conversions are
//! in `convert`, divisions and square roots in `divide`.
//!
//! Shapes of the lowering:
//! - uniform integers and bools (SGPRs): one SALU instruction per 32-bit half (`s_add_u32` +
//!   `s_addc_u32` for 64 bits); compares are `s_cmp` + `s_cselect` in one `MInst` (SCC does not
//!   survive between `MInst`s); 64-bit orderings use the borrow of `s_sub_u32` + `s_subb_u32`
//!   (with the sign bits flipped for signed types);
//! - everything else on the VALU: 64-bit integers as VGPR pairs with carry chains, f64 natively;
//!   operands that live in SGPRs are copied to VGPRs where an encoding needs one (VOP2 `src1`, a
//!   second constant-bus read on GFX9, instructions that also read VCC);
//! - shifts: the hardware masks the amount, the MIR gives 0 (`shl`, logical `shr`) or the sign
//!   fill (arithmetic `shr`) for amounts ≥ the width: compare and select, or clamp the amount;
//! - float `neg`/`abs` are sign-bit operations (they act on NaNs too, as the interpreter does);
//! - float `min`/`max`: `v_min/max` orders −0 < +0 like the MIR, but returns a quieted signalling
//!   NaN where the MIR ignores any NaN operand, so both operands are tested and the other one
//!   selected (two NaNs give the second operand, as the interpreter's `f32::min` does);
//! - f64 `sub` is `v_add_f64` with the negate modifier, whose NaN sign is then restored (x86 and
//!   the MIR return the subtrahend's NaN unnegated).
//!
//! Float `rem` (an exact `fmod`, unrolled) is in `fdiv`, reached through `divide`.

use qd_mir::types::{AddrSpace, ScalarType, Type};
use qd_mir::{BinOp, UnOp};
use qd_mir::{CmpCond, Imm, Inst, Value};
use regalloc2::VReg;

use super::{convert, divide, Lower, Val};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::{Mods, Op, Operand};
use qd_mir::CompileError;

// ----- operand helpers (shared with `convert` and `divide`) -----------------------------------

/// The scalar type of a value (pointers as the unsigned integer of their width).
pub(crate) fn sty(cx: &Lower<'_>, v: Value) -> ScalarType {
    match cx.f.value_type(v) {
        Type::Scalar(s) => s,
        Type::Ptr(AddrSpace::Global, _) => ScalarType::U64,
        Type::Ptr(AddrSpace::Shared, _) => ScalarType::U32,
    }
}

/// True for 64-bit scalar types.
pub(crate) fn wide(t: ScalarType) -> bool {
    t.bits() == 64
}

fn width_err(cx: &Lower<'_>, i: Inst) -> CompileError {
    cx.internal(i, "an operand of an unexpected register width")
}

/// A 32-bit value in a VGPR.
pub(crate) fn v32(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_vgpr(val) {
        Val::V(r) => Ok(r),
        _ => Err(width_err(cx, i)),
    }
}

/// A 32-bit uniform value in an SGPR.
pub(crate) fn s32(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_sgpr(val) {
        Val::S(r) => Ok(r),
        _ => Err(width_err(cx, i)),
    }
}

/// A 64-bit value in a VGPR pair.
pub(crate) fn v64(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_vgpr(val) {
        Val::V64(w) => Ok(w),
        _ => Err(width_err(cx, i)),
    }
}

/// A 64-bit uniform value in two SGPRs.
pub(crate) fn s64(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<(VReg, VReg), CompileError> {
    match cx.in_sgpr(val) {
        Val::S64(l, h) => Ok((l, h)),
        _ => Err(width_err(cx, i)),
    }
}

/// A 32-bit VALU source slot: an SGPR stays one (the caller allows one constant-bus read).
fn src32(cx: &Lower<'_>, i: Inst, val: Val) -> Result<A, CompileError> {
    match val {
        Val::S(r) | Val::V(r) => Ok(A::U(r)),
        _ => Err(width_err(cx, i)),
    }
}

/// A 64-bit VALU source slot: a VGPR pair, or an SGPR pair (one constant-bus read).
fn src64(cx: &Lower<'_>, i: Inst, val: Val) -> Result<A, CompileError> {
    match val {
        Val::V64(w) => Ok(A::U(w)),
        Val::S64(l, h) => Ok(A::SPair(l, h)),
        _ => Err(width_err(cx, i)),
    }
}

/// The registers to compute a VALU result in: `d` itself when it is in VGPRs, else fresh ones
/// (then [`finish`] copies them to `d`).
pub(crate) fn vtarget(cx: &mut Lower<'_>, d: Val) -> Val {
    match d {
        Val::V(_) | Val::V64(_) => d,
        Val::S(_) => Val::V(cx.new_v()),
        Val::S64(..) => Val::V64(cx.new_w()),
    }
}

/// Moves a computed result into the value's registers when they differ (VGPR → SGPR for uniform
/// results computed on the VALU: `v_readfirstlane`).
pub(crate) fn finish(cx: &mut Lower<'_>, d: Val, r: Val) {
    if d != r {
        cx.copy_into(d, r);
    }
}

/// The single VGPR of a 32-bit target.
pub(crate) fn reg32(cx: &Lower<'_>, i: Inst, v: Val) -> Result<VReg, CompileError> {
    match v {
        Val::V(r) | Val::S(r) => Ok(r),
        _ => Err(width_err(cx, i)),
    }
}

/// The VGPR pair of a 64-bit VALU target.
pub(crate) fn reg64(cx: &Lower<'_>, i: Inst, v: Val) -> Result<VReg, CompileError> {
    match v {
        Val::V64(w) => Ok(w),
        _ => Err(width_err(cx, i)),
    }
}

/// `vcc` as a fixed operand.
pub(crate) fn vcc(cx: &Lower<'_>) -> A {
    A::K(cx.vcc())
}

/// A constant slot.
pub(crate) fn k(bits: u32) -> A {
    A::K(Operand::imm32(bits))
}

/// `v_cndmask_b32 dst, f, t, vcc` (dst = vcc ? t : f): the VOP3 form when `t` is a constant.
pub(crate) fn cndmask(cx: &Lower<'_>, m: &mut MInst, dst: A, f: A, t: A) {
    let tm = cx.mi(Op::VCndmaskB32, &[]);
    let tm = if matches!(t, A::K(_)) { tm.e64() } else { tm };
    m.step(tm, &[dst, f, t, vcc(cx)]);
}

/// Materialises a 64-bit constant in two SGPRs (for f64 operands: VALU literals are 32-bit).
pub(crate) fn sconst64(cx: &mut Lower<'_>, bits: u64) -> A {
    let (l, h) = (cx.new_s(), cx.new_s());
    let mut m = MInst::one(cx.mi(Op::SMovB32, &[]), &[A::D(l), k(bits as u32)]);
    m.step(cx.mi(Op::SMovB32, &[]), &[A::D(h), k((bits >> 32) as u32)]);
    cx.emit(m);
    A::SPair(l, h)
}

/// A VOP2 op `dst = a op b` with `b` forced into a VGPR (swapped first when `commutes` and only
/// `a` is in one). Not for floats, whose NaN propagation depends on the operand order.
fn vop2(cx: &mut Lower<'_>, i: Inst, op: Op, dst: VReg, a: Val, b: Val, commutes: bool) -> Result<(), CompileError> {
    let (x, y) = match (a, b) {
        (Val::V(_), Val::S(_)) if commutes => (b, a),
        _ => (a, b),
    };
    let y = v32(cx, i, y)?;
    let x = src32(cx, i, x)?;
    cx.emit1(op, &[A::D(dst), x, A::U(y)]);
    Ok(())
}

/// Sources for one VOP3 instruction: the first SGPR operand stays (one constant-bus read on
/// GFX9), the others are copied to VGPRs.
fn vop3_srcs(cx: &mut Lower<'_>, i: Inst, vals: &[Val]) -> Result<Vec<A>, CompileError> {
    let mut scalar_used = false;
    let mut out = Vec::new();
    for &v in vals {
        let v = if v.is_scalar() && scalar_used { cx.in_vgpr(v) } else { v };
        scalar_used |= v.is_scalar();
        out.push(match v {
            Val::S(_) | Val::V(_) => src32(cx, i, v)?,
            Val::S64(..) | Val::V64(_) => src64(cx, i, v)?,
        });
    }
    Ok(out)
}

// ----- const ---------------------------------------------------------------------------------

/// `const`: the bits in a fresh register of the value's class.
pub(crate) fn constant(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let bits = cx.const_bits(v).ok_or_else(|| cx.internal(i, "a constant without bits"))?;
    let d = cx.def(v);
    let mut m = MInst::new();
    match d {
        Val::S(r) => {
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(r), k(bits as u32)]);
        }
        Val::V(r) => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::D(r), k(bits as u32)]);
        }
        Val::S64(lo, hi) => {
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(lo), k(bits as u32)]);
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(hi), k((bits >> 32) as u32)]);
        }
        Val::V64(w) => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), k(bits as u32)]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), k((bits >> 32) as u32)]);
        }
    }
    cx.emit(m);
    Ok(())
}

// ----- binary --------------------------------------------------------------------------------

/// The binary ops (`add sub mul div rem min max and or xor shl shr`).
pub(crate) fn binary(cx: &mut Lower<'_>, i: Inst, op: BinOp) -> Result<(), CompileError> {
    let [a, b] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let ty = sty(cx, a);
    let v = cx.f.inst_results(i)[0];
    let (va, vb) = (cx.val(a), cx.val(b));
    let d = cx.def(v);
    use ScalarType as S;
    match ty {
        S::F32 | S::F64 => float_binary(cx, i, op, ty, d, va, vb),
        S::Bool => match op {
            BinOp::And | BinOp::Or | BinOp::Xor => int32_binary(cx, i, op, S::U32, d, va, vb),
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Min
            | BinOp::Max
            | BinOp::Shl
            | BinOp::Shr => Err(cx.internal(i, "not defined on bool")),
        },
        S::I32 | S::U32 => int32_binary(cx, i, op, ty, d, va, vb),
        S::I64 | S::U64 => int64_binary(cx, i, op, ty, d, va, vb),
    }
}

fn int32_binary(
    cx: &mut Lower<'_>,
    i: Inst,
    op: BinOp,
    ty: ScalarType,
    d: Val,
    va: Val,
    vb: Val,
) -> Result<(), CompileError> {
    let signed = ty == ScalarType::I32;
    if matches!(op, BinOp::Div | BinOp::Rem) {
        return divide::int32(cx, i, op == BinOp::Rem, signed, d, va, vb);
    }
    if let Val::S(r) = d {
        let (x, y) = (s32(cx, i, va)?, s32(cx, i, vb)?);
        let simple = match op {
            BinOp::Add => Some(Op::SAddU32),
            BinOp::Sub => Some(Op::SSubU32),
            BinOp::Mul => Some(Op::SMulI32),
            BinOp::And => Some(Op::SAndB32),
            BinOp::Or => Some(Op::SOrB32),
            BinOp::Xor => Some(Op::SXorB32),
            BinOp::Min => Some(if signed { Op::SMinI32 } else { Op::SMinU32 }),
            BinOp::Max => Some(if signed { Op::SMaxI32 } else { Op::SMaxU32 }),
            BinOp::Shl | BinOp::Shr | BinOp::Div | BinOp::Rem => None,
        };
        if let Some(o) = simple {
            cx.emit1(o, &[A::D(r), A::U(x), A::U(y)]);
            return Ok(());
        }
        let mut m = MInst::new();
        if op == BinOp::Shr && signed {
            // Amounts ≥ 32 fill with the sign: clamp the amount to 31.
            let t = cx.new_s();
            m.step(cx.mi(Op::SMinU32, &[]), &[A::T(t), A::U(y), k(31)]);
            m.step(cx.mi(Op::SAshrI32, &[]), &[A::D(r), A::U(x), A::U(t)]);
        } else {
            let o = if op == BinOp::Shl { Op::SLshlB32 } else { Op::SLshrB32 };
            m.step(cx.mi(o, &[]), &[A::D(r), A::U(x), A::U(y)]);
            m.step(cx.mi(Op::SCmpLtU32, &[]), &[A::U(y), k(32)]);
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(r), A::U(r), k(0)]);
        }
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg32(cx, i, rv)?;
    match op {
        BinOp::Add => vop2(cx, i, Op::VAddU32, r, va, vb, true)?,
        BinOp::Sub => {
            if matches!(vb, Val::S(_)) && matches!(va, Val::V(_)) {
                vop2(cx, i, Op::VSubrevU32, r, vb, va, false)?
            } else {
                vop2(cx, i, Op::VSubU32, r, va, vb, false)?
            }
        }
        BinOp::Mul => {
            let s = vop3_srcs(cx, i, &[va, vb])?;
            cx.emit1(Op::VMulLoU32, &[A::D(r), s[0], s[1]]);
        }
        BinOp::And => vop2(cx, i, Op::VAndB32, r, va, vb, true)?,
        BinOp::Or => vop2(cx, i, Op::VOrB32, r, va, vb, true)?,
        BinOp::Xor => vop2(cx, i, Op::VXorB32, r, va, vb, true)?,
        BinOp::Min => vop2(cx, i, if signed { Op::VMinI32 } else { Op::VMinU32 }, r, va, vb, true)?,
        BinOp::Max => vop2(cx, i, if signed { Op::VMaxI32 } else { Op::VMaxU32 }, r, va, vb, true)?,
        BinOp::Shl | BinOp::Shr => {
            let (x, y) = (v32(cx, i, va)?, v32(cx, i, vb)?);
            let mut m = MInst::new();
            if op == BinOp::Shr && signed {
                let t = cx.new_v();
                m.step(cx.mi(Op::VMinU32, &[]), &[A::T(t), k(31), A::U(y)]);
                m.step(cx.mi(Op::VAshrrevI32, &[]), &[A::D(r), A::U(t), A::U(x)]);
            } else {
                let o = if op == BinOp::Shl { Op::VLshlrevB32 } else { Op::VLshrrevB32 };
                let t = cx.new_v();
                m.step(cx.mi(o, &[]), &[A::T(t), A::U(y), A::U(x)]);
                m.step(cx.mi(Op::VCmpGtU32, &[]), &[vcc(cx), k(32), A::U(y)]);
                cndmask(cx, &mut m, A::D(r), k(0), A::U(t));
            }
            cx.emit(m);
        }
        BinOp::Div | BinOp::Rem => return Err(cx.internal(i, "division reached the plain path")),
    }
    finish(cx, d, rv);
    Ok(())
}

/// Steps setting SCC to `a < b` for 64-bit uniform integers (the borrow of `a - b`; signed
/// compares flip both sign bits first).
fn scc_lt64(cx: &mut Lower<'_>, m: &mut MInst, signed: bool, a: (VReg, VReg), b: (VReg, VReg)) {
    let (ah, bh) = if signed {
        let (x, y) = (cx.new_s(), cx.new_s());
        m.step(cx.mi(Op::SXorB32, &[]), &[A::T(x), A::U(a.1), k(0x8000_0000)]);
        m.step(cx.mi(Op::SXorB32, &[]), &[A::T(y), A::U(b.1), k(0x8000_0000)]);
        (x, y)
    } else {
        (a.1, b.1)
    };
    let t = cx.new_s();
    m.step(cx.mi(Op::SSubU32, &[]), &[A::T(t), A::U(a.0), A::U(b.0)]);
    m.step(cx.mi(Op::SSubbU32, &[]), &[A::T(t), A::U(ah), A::U(bh)]);
}

fn int64_binary(
    cx: &mut Lower<'_>,
    i: Inst,
    op: BinOp,
    ty: ScalarType,
    d: Val,
    va: Val,
    vb: Val,
) -> Result<(), CompileError> {
    let signed = ty == ScalarType::I64;
    if matches!(op, BinOp::Div | BinOp::Rem) {
        return divide::int64(cx, i, op == BinOp::Rem, signed, d, va, vb);
    }
    if let Val::S64(rl, rh) = d {
        let (x, y) = (s64(cx, i, va)?, s64(cx, i, vb)?);
        let mut m = MInst::new();
        let two = |cx: &Lower<'_>, m: &mut MInst, o: Op| {
            m.step(cx.mi(o, &[]), &[A::D(rl), A::U(x.0), A::U(y.0)]);
            m.step(cx.mi(o, &[]), &[A::D(rh), A::U(x.1), A::U(y.1)]);
        };
        match op {
            BinOp::Add => {
                m.step(cx.mi(Op::SAddU32, &[]), &[A::D(rl), A::U(x.0), A::U(y.0)]);
                m.step(cx.mi(Op::SAddcU32, &[]), &[A::D(rh), A::U(x.1), A::U(y.1)]);
            }
            BinOp::Sub => {
                m.step(cx.mi(Op::SSubU32, &[]), &[A::D(rl), A::U(x.0), A::U(y.0)]);
                m.step(cx.mi(Op::SSubbU32, &[]), &[A::D(rh), A::U(x.1), A::U(y.1)]);
            }
            BinOp::Mul => {
                let t = cx.new_s();
                m.step(cx.mi(Op::SMulHiU32, &[]), &[A::D(rh), A::U(x.0), A::U(y.0)]);
                m.step(cx.mi(Op::SMulI32, &[]), &[A::T(t), A::U(x.0), A::U(y.1)]);
                m.step(cx.mi(Op::SAddU32, &[]), &[A::D(rh), A::U(rh), A::U(t)]);
                m.step(cx.mi(Op::SMulI32, &[]), &[A::T(t), A::U(x.1), A::U(y.0)]);
                m.step(cx.mi(Op::SAddU32, &[]), &[A::D(rh), A::U(rh), A::U(t)]);
                m.step(cx.mi(Op::SMulI32, &[]), &[A::D(rl), A::U(x.0), A::U(y.0)]);
            }
            BinOp::And => two(cx, &mut m, Op::SAndB32),
            BinOp::Or => two(cx, &mut m, Op::SOrB32),
            BinOp::Xor => two(cx, &mut m, Op::SXorB32),
            BinOp::Min | BinOp::Max => {
                scc_lt64(cx, &mut m, signed, x, y);
                let (p, q) = if op == BinOp::Min { (x, y) } else { (y, x) };
                m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rl), A::U(p.0), A::U(q.0)]);
                m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rh), A::U(p.1), A::U(q.1)]);
            }
            BinOp::Shl | BinOp::Shr => {
                // c = (y ≥ 2^32) ? 64 : min(y, 64).
                let c = cx.new_s();
                m.step(cx.mi(Op::SMinU32, &[]), &[A::T(c), A::U(y.0), k(64)]);
                m.step(cx.mi(Op::SCmpLgU32, &[]), &[A::U(y.1), k(0)]);
                m.step(cx.mi(Op::SCselectB32, &[]), &[A::T(c), k(64), A::U(c)]);
                if op == BinOp::Shr && signed {
                    m.step(cx.mi(Op::SMinU32, &[]), &[A::T(c), A::U(c), k(63)]);
                    m.step(cx.mi(Op::SAshrI64, &[]), &[A::SPairDef(rl, rh), A::SPair(x.0, x.1), A::U(c)]);
                } else {
                    let o = if op == BinOp::Shl { Op::SLshlB64 } else { Op::SLshrB64 };
                    m.step(cx.mi(o, &[]), &[A::SPairDef(rl, rh), A::SPair(x.0, x.1), A::U(c)]);
                    m.step(cx.mi(Op::SCmpLtU32, &[]), &[A::U(c), k(64)]);
                    m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rl), A::U(rl), k(0)]);
                    m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rh), A::U(rh), k(0)]);
                }
            }
            BinOp::Div | BinOp::Rem => return Err(cx.internal(i, "division reached the plain path")),
        }
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg64(cx, i, rv)?;
    let (x, y) = (v64(cx, i, va)?, v64(cx, i, vb)?);
    let mut m = MInst::new();
    let two = |cx: &Lower<'_>, m: &mut MInst, o: Op| {
        m.step(cx.mi(o, &[]), &[A::DL(r), A::UL(x), A::UL(y)]);
        m.step(cx.mi(o, &[]), &[A::DH(r), A::UH(x), A::UH(y)]);
    };
    match op {
        BinOp::Add => {
            m.step(cx.mi(Op::VAddCoU32, &[]), &[A::DL(r), vcc(cx), A::UL(x), A::UL(y)]);
            m.step(cx.mi(Op::VAddcCoU32, &[]), &[A::DH(r), vcc(cx), A::UH(x), A::UH(y), vcc(cx)]);
        }
        BinOp::Sub => {
            m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(r), vcc(cx), A::UL(x), A::UL(y)]);
            m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(r), vcc(cx), A::UH(x), A::UH(y), vcc(cx)]);
        }
        BinOp::Mul => {
            let (t1, t2, t3) = (cx.new_v(), cx.new_v(), cx.new_v());
            m.step(cx.mi(Op::VMulHiU32, &[]), &[A::T(t1), A::UL(x), A::UL(y)]);
            m.step(cx.mi(Op::VMulLoU32, &[]), &[A::T(t2), A::UL(x), A::UH(y)]);
            m.step(cx.mi(Op::VMulLoU32, &[]), &[A::T(t3), A::UH(x), A::UL(y)]);
            m.step(cx.mi(Op::VAdd3U32, &[]), &[A::DH(r), A::U(t1), A::U(t2), A::U(t3)]);
            m.step(cx.mi(Op::VMulLoU32, &[]), &[A::DL(r), A::UL(x), A::UL(y)]);
        }
        BinOp::And => two(cx, &mut m, Op::VAndB32),
        BinOp::Or => two(cx, &mut m, Op::VOrB32),
        BinOp::Xor => two(cx, &mut m, Op::VXorB32),
        BinOp::Min | BinOp::Max => {
            let lt = if signed { Op::VCmpLtI64 } else { Op::VCmpLtU64 };
            m.step(cx.mi(lt, &[]), &[vcc(cx), A::U(x), A::U(y)]);
            let (p, q) = if op == BinOp::Min { (x, y) } else { (y, x) };
            cndmask(cx, &mut m, A::DL(r), A::UL(q), A::UL(p));
            cndmask(cx, &mut m, A::DH(r), A::UH(q), A::UH(p));
        }
        BinOp::Shl | BinOp::Shr => {
            if op == BinOp::Shr && signed {
                // Amount min(y, 63) (the sign fill for amounts ≥ 64).
                let c = cx.new_v();
                m.step(cx.mi(Op::VMinU32, &[]), &[A::T(c), k(63), A::UL(y)]);
                m.step(cx.mi(Op::VCmpNeU32, &[]), &[vcc(cx), k(0), A::UH(y)]);
                cndmask(cx, &mut m, A::T(c), A::U(c), k(63));
                m.step(cx.mi(Op::VAshrrevI64, &[]), &[A::D(r), A::U(c), A::U(x)]);
            } else {
                let o = if op == BinOp::Shl { Op::VLshlrevB64 } else { Op::VLshrrevB64 };
                m.step(cx.mi(o, &[]), &[A::D(r), A::UL(y), A::U(x)]);
                m.step(cx.mi(Op::VCmpGtU64, &[]), &[vcc(cx), k(64), A::U(y)]);
                cndmask(cx, &mut m, A::DL(r), k(0), A::UL(r));
                cndmask(cx, &mut m, A::DH(r), k(0), A::UH(r));
            }
        }
        BinOp::Div | BinOp::Rem => return Err(cx.internal(i, "division reached the plain path")),
    }
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

/// Float `add sub mul div rem min max` (`div`/`rem` in `fdiv`).
fn float_binary(
    cx: &mut Lower<'_>,
    i: Inst,
    op: BinOp,
    ty: ScalarType,
    d: Val,
    va: Val,
    vb: Val,
) -> Result<(), CompileError> {
    let f64_ = ty == ScalarType::F64;
    match op {
        BinOp::Div => return divide::fdiv(cx, i, ty, d, va, vb),
        BinOp::Rem => return divide::frem(cx, i, ty, d, va, vb),
        BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => {
            return Err(cx.internal(i, "not defined on floats"))
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Min | BinOp::Max => {}
    }
    let rv = vtarget(cx, d);
    if !f64_ {
        let r = reg32(cx, i, rv)?;
        // Operand order is kept (NaN propagation takes the first NaN source): src1 in a VGPR.
        let y = v32(cx, i, vb)?;
        let x = src32(cx, i, va)?;
        match op {
            BinOp::Add => cx.emit1(Op::VAddF32, &[A::D(r), x, A::U(y)]),
            BinOp::Sub => cx.emit1(Op::VSubF32, &[A::D(r), x, A::U(y)]),
            BinOp::Mul => cx.emit1(Op::VMulF32, &[A::D(r), x, A::U(y)]),
            BinOp::Div | BinOp::Rem | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => {
                return Err(cx.internal(i, "not a plain float operation"))
            }
            BinOp::Min | BinOp::Max => {
                let xv = v32(cx, i, va)?;
                let o = if op == BinOp::Min { Op::VMinF32 } else { Op::VMaxF32 };
                let t = cx.new_v();
                let mut m = MInst::one(cx.mi(o, &[]), &[A::T(t), A::U(xv), A::U(y)]);
                // b NaN → a; then a NaN → b (so two NaNs give b).
                m.step(cx.mi(Op::VCmpUF32, &[]), &[vcc(cx), A::U(y), A::U(y)]);
                cndmask(cx, &mut m, A::T(t), A::U(t), A::U(xv));
                m.step(cx.mi(Op::VCmpUF32, &[]), &[vcc(cx), A::U(xv), A::U(xv)]);
                cndmask(cx, &mut m, A::D(r), A::U(t), A::U(y));
                cx.emit(m);
            }
        }
    } else {
        let r = reg64(cx, i, rv)?;
        match op {
            BinOp::Add | BinOp::Mul => {
                let s = vop3_srcs(cx, i, &[va, vb])?;
                let o = if op == BinOp::Add { Op::VAddF64 } else { Op::VMulF64 };
                cx.emit1(o, &[A::D(r), s[0], s[1]]);
            }
            BinOp::Sub => {
                let (x, y) = (v64(cx, i, va)?, v64(cx, i, vb)?);
                let neg = cx.mi(Op::VAddF64, &[]).mods(Mods { neg: 2, ..Mods::default() });
                let mut m = MInst::one(neg, &[A::D(r), A::U(x), A::U(y)]);
                // A NaN result with a non-NaN minuend is the negated subtrahend: flip it back.
                let (t, u) = (cx.new_v(), cx.new_v());
                m.step(cx.mi(Op::VXorB32, &[]), &[A::T(t), k(0x8000_0000), A::UH(r)]);
                m.step(cx.mi(Op::VCmpUF64, &[]), &[vcc(cx), A::U(r), A::U(r)]);
                cndmask(cx, &mut m, A::T(u), A::UH(r), A::U(t));
                m.step(cx.mi(Op::VCmpUF64, &[]), &[vcc(cx), A::U(x), A::U(x)]);
                cndmask(cx, &mut m, A::DH(r), A::U(u), A::UH(r));
                cx.emit(m);
            }
            BinOp::Div | BinOp::Rem | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => {
                return Err(cx.internal(i, "not a plain float operation"))
            }
            BinOp::Min | BinOp::Max => {
                let (x, y) = (v64(cx, i, va)?, v64(cx, i, vb)?);
                let o = if op == BinOp::Min { Op::VMinF64 } else { Op::VMaxF64 };
                let t = cx.new_w();
                let mut m = MInst::one(cx.mi(o, &[]), &[A::D(t), A::U(x), A::U(y)]);
                m.step(cx.mi(Op::VCmpUF64, &[]), &[vcc(cx), A::U(y), A::U(y)]);
                cndmask(cx, &mut m, A::DL(t), A::UL(t), A::UL(x));
                cndmask(cx, &mut m, A::DH(t), A::UH(t), A::UH(x));
                m.step(cx.mi(Op::VCmpUF64, &[]), &[vcc(cx), A::U(x), A::U(x)]);
                cndmask(cx, &mut m, A::DL(r), A::UL(t), A::UL(y));
                cndmask(cx, &mut m, A::DH(r), A::UH(t), A::UH(y));
                cx.emit(m);
            }
        }
    }
    finish(cx, d, rv);
    Ok(())
}

// ----- unary ---------------------------------------------------------------------------------

/// The unary ops (`neg abs not sqrt clz popcount bitrev`).
pub(crate) fn unary(cx: &mut Lower<'_>, i: Inst, op: UnOp) -> Result<(), CompileError> {
    let a = cx.f.args(i)[0];
    let ty = sty(cx, a);
    let v = cx.f.inst_results(i)[0];
    let va = cx.val(a);
    let d = cx.def(v);
    use ScalarType as S;
    match (ty, op) {
        (S::Bool, UnOp::Not) => {
            let rv = if let Val::S(r) = d {
                let x = s32(cx, i, va)?;
                cx.emit1(Op::SXorB32, &[A::D(r), A::U(x), k(1)]);
                d
            } else {
                let rv = vtarget(cx, d);
                let (r, x) = (reg32(cx, i, rv)?, v32(cx, i, va)?);
                cx.emit1(Op::VXorB32, &[A::D(r), k(1), A::U(x)]);
                rv
            };
            finish(cx, d, rv);
            Ok(())
        }
        (S::Bool, _) => Err(cx.internal(i, "not defined on bool")),
        (S::F32 | S::F64, UnOp::Sqrt) => divide::fsqrt(cx, i, ty, d, va),
        (S::F32 | S::F64, UnOp::Neg | UnOp::Abs) => {
            // Sign-bit operations on the (high) word.
            let (o, mask) = if op == UnOp::Neg { (Op::VXorB32, 0x8000_0000) } else { (Op::VAndB32, 0x7FFF_FFFF) };
            let rv = vtarget(cx, d);
            if ty == S::F32 {
                let (r, x) = (reg32(cx, i, rv)?, v32(cx, i, va)?);
                cx.emit1(o, &[A::D(r), k(mask), A::U(x)]);
            } else {
                let (r, x) = (reg64(cx, i, rv)?, v64(cx, i, va)?);
                let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(r), A::UL(x)]);
                m.step(cx.mi(o, &[]), &[A::DH(r), k(mask), A::UH(x)]);
                cx.emit(m);
            }
            finish(cx, d, rv);
            Ok(())
        }
        (S::F32 | S::F64, UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev) => {
            Err(cx.internal(i, "not defined on floats"))
        }
        (S::I32 | S::U32 | S::I64 | S::U64, UnOp::Sqrt) => Err(cx.internal(i, "not defined on integers")),
        (S::I32 | S::U32, _) => int32_unary(cx, i, op, ty, d, va),
        (S::I64 | S::U64, _) => int64_unary(cx, i, op, ty, d, va),
    }
}

fn int32_unary(cx: &mut Lower<'_>, i: Inst, op: UnOp, ty: ScalarType, d: Val, va: Val) -> Result<(), CompileError> {
    let signed = ty == ScalarType::I32;
    if let Val::S(r) = d {
        let x = s32(cx, i, va)?;
        let mut m = MInst::new();
        match op {
            UnOp::Neg => {
                m.step(cx.mi(Op::SSubU32, &[]), &[A::D(r), k(0), A::U(x)]);
            }
            UnOp::Abs if signed => {
                m.step(cx.mi(Op::SAbsI32, &[]), &[A::D(r), A::U(x)]);
            }
            UnOp::Abs => {
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(r), A::U(x)]);
            }
            UnOp::Not => {
                m.step(cx.mi(Op::SNotB32, &[]), &[A::D(r), A::U(x)]);
            }
            UnOp::Clz => {
                // s_flbit gives −1 for 0; the MIR gives the width.
                m.step(cx.mi(Op::SFlbitI32B32, &[]), &[A::D(r), A::U(x)]);
                m.step(cx.mi(Op::SMinU32, &[]), &[A::D(r), A::U(r), k(32)]);
            }
            UnOp::Popcount => {
                m.step(cx.mi(Op::SBcnt1I32B32, &[]), &[A::D(r), A::U(x)]);
            }
            UnOp::Bitrev => {
                m.step(cx.mi(Op::SBrevB32, &[]), &[A::D(r), A::U(x)]);
            }
            UnOp::Sqrt => return Err(cx.internal(i, "not defined on integers")),
        }
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg32(cx, i, rv)?;
    let x = v32(cx, i, va)?;
    let mut m = MInst::new();
    match op {
        UnOp::Neg => {
            m.step(cx.mi(Op::VSubU32, &[]), &[A::D(r), k(0), A::U(x)]);
        }
        UnOp::Abs if signed => {
            let t = cx.new_v();
            m.step(cx.mi(Op::VSubU32, &[]), &[A::T(t), k(0), A::U(x)]);
            m.step(cx.mi(Op::VMaxI32, &[]), &[A::D(r), A::U(x), A::U(t)]);
        }
        UnOp::Abs => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::D(r), A::U(x)]);
        }
        UnOp::Not => {
            m.step(cx.mi(Op::VNotB32, &[]), &[A::D(r), A::U(x)]);
        }
        UnOp::Clz => {
            m.step(cx.mi(Op::VFfbhU32, &[]), &[A::D(r), A::U(x)]);
            m.step(cx.mi(Op::VMinU32, &[]), &[A::D(r), k(32), A::U(r)]);
        }
        UnOp::Popcount => {
            m.step(cx.mi(Op::VBcntU32B32, &[]), &[A::D(r), A::U(x), k(0)]);
        }
        UnOp::Bitrev => {
            m.step(cx.mi(Op::VBfrevB32, &[]), &[A::D(r), A::U(x)]);
        }
        UnOp::Sqrt => return Err(cx.internal(i, "not defined on integers")),
    }
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

fn int64_unary(cx: &mut Lower<'_>, i: Inst, op: UnOp, ty: ScalarType, d: Val, va: Val) -> Result<(), CompileError> {
    let signed = ty == ScalarType::I64;
    if let Val::S64(rl, rh) = d {
        let x = s64(cx, i, va)?;
        let mut m = MInst::new();
        match op {
            UnOp::Neg => {
                m.step(cx.mi(Op::SSubU32, &[]), &[A::D(rl), k(0), A::U(x.0)]);
                m.step(cx.mi(Op::SSubbU32, &[]), &[A::D(rh), k(0), A::U(x.1)]);
            }
            UnOp::Abs if signed => {
                // (x ^ s) - s with s the sign mask.
                let (s, a, b) = (cx.new_s(), cx.new_s(), cx.new_s());
                m.step(cx.mi(Op::SAshrI32, &[]), &[A::T(s), A::U(x.1), k(31)]);
                m.step(cx.mi(Op::SXorB32, &[]), &[A::T(a), A::U(x.0), A::U(s)]);
                m.step(cx.mi(Op::SXorB32, &[]), &[A::T(b), A::U(x.1), A::U(s)]);
                m.step(cx.mi(Op::SSubU32, &[]), &[A::D(rl), A::U(a), A::U(s)]);
                m.step(cx.mi(Op::SSubbU32, &[]), &[A::D(rh), A::U(b), A::U(s)]);
            }
            UnOp::Abs => {
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(rl), A::U(x.0)]);
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(rh), A::U(x.1)]);
            }
            UnOp::Not => {
                m.step(cx.mi(Op::SNotB32, &[]), &[A::D(rl), A::U(x.0)]);
                m.step(cx.mi(Op::SNotB32, &[]), &[A::D(rh), A::U(x.1)]);
            }
            UnOp::Clz => {
                m.step(cx.mi(Op::SFlbitI32B64, &[]), &[A::D(rl), A::SPair(x.0, x.1)]);
                m.step(cx.mi(Op::SMinU32, &[]), &[A::D(rl), A::U(rl), k(64)]);
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(rh), k(0)]);
            }
            UnOp::Popcount => {
                m.step(cx.mi(Op::SBcnt1I32B64, &[]), &[A::D(rl), A::SPair(x.0, x.1)]);
                m.step(cx.mi(Op::SMovB32, &[]), &[A::D(rh), k(0)]);
            }
            UnOp::Bitrev => {
                m.step(cx.mi(Op::SBrevB32, &[]), &[A::D(rl), A::U(x.1)]);
                m.step(cx.mi(Op::SBrevB32, &[]), &[A::D(rh), A::U(x.0)]);
            }
            UnOp::Sqrt => return Err(cx.internal(i, "not defined on integers")),
        }
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg64(cx, i, rv)?;
    let x = v64(cx, i, va)?;
    let mut m = MInst::new();
    match op {
        UnOp::Neg => {
            m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(r), vcc(cx), k(0), A::UL(x)]);
            m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(r), vcc(cx), k(0), A::UH(x), vcc(cx)]);
        }
        UnOp::Abs if signed => {
            let (s, a, b) = (cx.new_v(), cx.new_v(), cx.new_v());
            m.step(cx.mi(Op::VAshrrevI32, &[]), &[A::T(s), k(31), A::UH(x)]);
            m.step(cx.mi(Op::VXorB32, &[]), &[A::T(a), A::U(s), A::UL(x)]);
            m.step(cx.mi(Op::VXorB32, &[]), &[A::T(b), A::U(s), A::UH(x)]);
            m.step(cx.mi(Op::VSubCoU32, &[]), &[A::DL(r), vcc(cx), A::U(a), A::U(s)]);
            m.step(cx.mi(Op::VSubbCoU32, &[]), &[A::DH(r), vcc(cx), A::U(b), A::U(s), vcc(cx)]);
        }
        UnOp::Abs => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(r), A::UL(x)]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(r), A::UH(x)]);
        }
        UnOp::Not => {
            m.step(cx.mi(Op::VNotB32, &[]), &[A::DL(r), A::UL(x)]);
            m.step(cx.mi(Op::VNotB32, &[]), &[A::DH(r), A::UH(x)]);
        }
        UnOp::Clz => {
            // min(ffbh(hi), min(ffbh(lo), 32) + 32): ffbh(0) is all ones.
            let (h, l) = (cx.new_v(), cx.new_v());
            m.step(cx.mi(Op::VFfbhU32, &[]), &[A::T(l), A::UL(x)]);
            m.step(cx.mi(Op::VMinU32, &[]), &[A::T(l), k(32), A::U(l)]);
            m.step(cx.mi(Op::VAddU32, &[]), &[A::T(l), k(32), A::U(l)]);
            m.step(cx.mi(Op::VFfbhU32, &[]), &[A::T(h), A::UH(x)]);
            m.step(cx.mi(Op::VMinU32, &[]), &[A::DL(r), A::U(h), A::U(l)]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(r), k(0)]);
        }
        UnOp::Popcount => {
            let t = cx.new_v();
            m.step(cx.mi(Op::VBcntU32B32, &[]), &[A::T(t), A::UL(x), k(0)]);
            m.step(cx.mi(Op::VBcntU32B32, &[]), &[A::DL(r), A::UH(x), A::U(t)]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(r), k(0)]);
        }
        UnOp::Bitrev => {
            m.step(cx.mi(Op::VBfrevB32, &[]), &[A::DL(r), A::UH(x)]);
            m.step(cx.mi(Op::VBfrevB32, &[]), &[A::DH(r), A::UL(x)]);
        }
        UnOp::Sqrt => return Err(cx.internal(i, "not defined on integers")),
    }
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

// ----- fma, select, cmp, bitcast -------------------------------------------------------------

/// `fma a, b, c` (one rounding: `v_fma_f32` / `v_fma_f64`).
pub(crate) fn fma(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let args = [cx.f.args(i)[0], cx.f.args(i)[1], cx.f.args(i)[2]];
    let ty = sty(cx, args[0]);
    let v = cx.f.inst_results(i)[0];
    let vals = [cx.val(args[0]), cx.val(args[1]), cx.val(args[2])];
    let d = cx.def(v);
    let o = match ty {
        ScalarType::F32 => Op::VFmaF32,
        ScalarType::F64 => Op::VFmaF64,
        _ => return Err(cx.internal(i, "fma is defined on floats only")),
    };
    let rv = vtarget(cx, d);
    let r = match rv {
        Val::V(r) | Val::V64(r) => r,
        _ => return Err(width_err(cx, i)),
    };
    let s = vop3_srcs(cx, i, &vals)?;
    cx.emit1(o, &[A::D(r), s[0], s[1], s[2]]);
    finish(cx, d, rv);
    Ok(())
}

/// `select c, a, b`: `s_cmp_lg_u32 c, 0` + `s_cselect` for uniform values, `v_cmp_ne_u32` +
/// `v_cndmask_b32` per 32-bit half otherwise.
pub(crate) fn select(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [c, a, b] = [cx.f.args(i)[0], cx.f.args(i)[1], cx.f.args(i)[2]];
    let v = cx.f.inst_results(i)[0];
    let (vc, va, vb) = (cx.val(c), cx.val(a), cx.val(b));
    let d = cx.def(v);
    let mut m = MInst::new();
    match d {
        Val::S(r) => {
            let (cc, x, y) = (s32(cx, i, vc)?, s32(cx, i, va)?, s32(cx, i, vb)?);
            m.step(cx.mi(Op::SCmpLgU32, &[]), &[A::U(cc), k(0)]);
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(r), A::U(x), A::U(y)]);
        }
        Val::S64(rl, rh) => {
            let (cc, x, y) = (s32(cx, i, vc)?, s64(cx, i, va)?, s64(cx, i, vb)?);
            m.step(cx.mi(Op::SCmpLgU32, &[]), &[A::U(cc), k(0)]);
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rl), A::U(x.0), A::U(y.0)]);
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(rh), A::U(x.1), A::U(y.1)]);
        }
        Val::V(r) => {
            let (cc, x, y) = (v32(cx, i, vc)?, v32(cx, i, va)?, v32(cx, i, vb)?);
            m.step(cx.mi(Op::VCmpNeU32, &[]), &[vcc(cx), k(0), A::U(cc)]);
            cndmask(cx, &mut m, A::D(r), A::U(y), A::U(x));
        }
        Val::V64(r) => {
            let (cc, x, y) = (v32(cx, i, vc)?, v64(cx, i, va)?, v64(cx, i, vb)?);
            m.step(cx.mi(Op::VCmpNeU32, &[]), &[vcc(cx), k(0), A::U(cc)]);
            cndmask(cx, &mut m, A::DL(r), A::UL(y), A::UL(x));
            cndmask(cx, &mut m, A::DH(r), A::UH(y), A::UH(x));
        }
    }
    cx.emit(m);
    Ok(())
}

/// The VALU compare for a condition and type (`ne` on floats is the unordered `neq`).
fn vcmp_op(cond: CmpCond, ty: ScalarType) -> Op {
    use CmpCond as C;
    use ScalarType as S;
    match ty {
        S::F32 => match cond {
            C::Eq => Op::VCmpEqF32,
            C::Ne => Op::VCmpNeqF32,
            C::Lt => Op::VCmpLtF32,
            C::Le => Op::VCmpLeF32,
            C::Gt => Op::VCmpGtF32,
            C::Ge => Op::VCmpGeF32,
        },
        S::F64 => match cond {
            C::Eq => Op::VCmpEqF64,
            C::Ne => Op::VCmpNeqF64,
            C::Lt => Op::VCmpLtF64,
            C::Le => Op::VCmpLeF64,
            C::Gt => Op::VCmpGtF64,
            C::Ge => Op::VCmpGeF64,
        },
        S::I32 => match cond {
            C::Eq => Op::VCmpEqI32,
            C::Ne => Op::VCmpNeI32,
            C::Lt => Op::VCmpLtI32,
            C::Le => Op::VCmpLeI32,
            C::Gt => Op::VCmpGtI32,
            C::Ge => Op::VCmpGeI32,
        },
        S::Bool | S::U32 => match cond {
            C::Eq => Op::VCmpEqU32,
            C::Ne => Op::VCmpNeU32,
            C::Lt => Op::VCmpLtU32,
            C::Le => Op::VCmpLeU32,
            C::Gt => Op::VCmpGtU32,
            C::Ge => Op::VCmpGeU32,
        },
        S::I64 => match cond {
            C::Eq => Op::VCmpEqI64,
            C::Ne => Op::VCmpNeI64,
            C::Lt => Op::VCmpLtI64,
            C::Le => Op::VCmpLeI64,
            C::Gt => Op::VCmpGtI64,
            C::Ge => Op::VCmpGeI64,
        },
        S::U64 => match cond {
            C::Eq => Op::VCmpEqU64,
            C::Ne => Op::VCmpNeU64,
            C::Lt => Op::VCmpLtU64,
            C::Le => Op::VCmpLeU64,
            C::Gt => Op::VCmpGtU64,
            C::Ge => Op::VCmpGeU64,
        },
    }
}

/// The SALU compare for a condition on 32-bit integers.
fn scmp_op(cond: CmpCond, signed: bool) -> Op {
    use CmpCond as C;
    match (cond, signed) {
        (C::Eq, _) => Op::SCmpEqU32,
        (C::Ne, _) => Op::SCmpLgU32,
        (C::Lt, true) => Op::SCmpLtI32,
        (C::Le, true) => Op::SCmpLeI32,
        (C::Gt, true) => Op::SCmpGtI32,
        (C::Ge, true) => Op::SCmpGeI32,
        (C::Lt, false) => Op::SCmpLtU32,
        (C::Le, false) => Op::SCmpLeU32,
        (C::Gt, false) => Op::SCmpGtU32,
        (C::Ge, false) => Op::SCmpGeU32,
    }
}

/// `cmp cond a, b` → bool (0/1).
pub(crate) fn cmp(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Cond(cond) = cx.f.insts[i].imm else { return Err(cx.internal(i, "cmp without a condition")) };
    let [a, b] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let ty = sty(cx, a);
    let v = cx.f.inst_results(i)[0];
    let (va, vb) = (cx.val(a), cx.val(b));
    let d = cx.def(v);
    let float = matches!(ty, ScalarType::F32 | ScalarType::F64);
    if let (Val::S(r), false) = (d, float) {
        let signed = matches!(ty, ScalarType::I32 | ScalarType::I64);
        let mut m = MInst::new();
        if wide(ty) {
            let (x, y) = (s64(cx, i, va)?, s64(cx, i, vb)?);
            // SCC = the condition, or its negation when `inv`.
            let inv = match cond {
                CmpCond::Eq | CmpCond::Ne => {
                    let o = if cond == CmpCond::Eq { Op::SCmpEqU64 } else { Op::SCmpLgU64 };
                    m.step(cx.mi(o, &[]), &[A::SPair(x.0, x.1), A::SPair(y.0, y.1)]);
                    false
                }
                CmpCond::Lt => {
                    scc_lt64(cx, &mut m, signed, x, y);
                    false
                }
                CmpCond::Gt => {
                    scc_lt64(cx, &mut m, signed, y, x);
                    false
                }
                CmpCond::Ge => {
                    scc_lt64(cx, &mut m, signed, x, y);
                    true
                }
                CmpCond::Le => {
                    scc_lt64(cx, &mut m, signed, y, x);
                    true
                }
            };
            let (t, f) = if inv { (0, 1) } else { (1, 0) };
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(r), k(t), k(f)]);
        } else {
            let (x, y) = (s32(cx, i, va)?, s32(cx, i, vb)?);
            m.step(cx.mi(scmp_op(cond, signed), &[]), &[A::U(x), A::U(y)]);
            m.step(cx.mi(Op::SCselectB32, &[]), &[A::D(r), k(1), k(0)]);
        }
        cx.emit(m);
        return Ok(());
    }
    let rv = vtarget(cx, d);
    let r = reg32(cx, i, rv)?;
    // src1 of the 32-bit compare encoding must be a VGPR; src0 may be an SGPR.
    let (x, y) = if wide(ty) {
        let y = v64(cx, i, vb)?;
        (src64(cx, i, va)?, A::U(y))
    } else {
        let y = v32(cx, i, vb)?;
        (src32(cx, i, va)?, A::U(y))
    };
    let mut m = MInst::one(cx.mi(vcmp_op(cond, ty), &[]), &[vcc(cx), x, y]);
    cndmask(cx, &mut m, A::D(r), k(0), k(1));
    cx.emit(m);
    finish(cx, d, rv);
    Ok(())
}

/// `bitcast`: the same bits, moved between register files when the classes differ.
pub(crate) fn bitcast(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let a = cx.f.args(i)[0];
    let v = cx.f.inst_results(i)[0];
    let va = cx.val(a);
    let want = cx.cls_of(v);
    let same = matches!(
        (va, want),
        (Val::S(_) | Val::S64(..), super::Cls::Scalar) | (Val::V(_) | Val::V64(_), super::Cls::Vector)
    );
    if same {
        cx.bind(v, va);
        return Ok(());
    }
    if wide(sty(cx, a)) != wide(sty(cx, v)) {
        return Err(cx.internal(i, "bitcast between different widths"));
    }
    let d = cx.def(v);
    cx.copy_into(d, va);
    Ok(())
}

pub(crate) use convert::cast;
