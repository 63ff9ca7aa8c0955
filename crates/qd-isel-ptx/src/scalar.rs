//! Scalar ops: constants, arithmetic, comparisons, selects, conversions and bitcasts.
//!
//! Exactness is the rule (the interpreter is bit-for-bit the reference): float `add sub mul` use
//! `.rn` so ptxas never contracts them into an `fma`; `div` and `sqrt` are IEEE (`.rn`); `min`
//! and `max` add the signed-zero fix-up the MIR defines (`min(+0, -0) = -0`); float `rem` is an
//! exact `fmod` (a shift-and-subtract loop, every step exact by Sterbenz); float → int
//! conversions truncate and saturate (`cvt.rzi`, NaN → 0); shifts of 64-bit values clamp the
//! amount before narrowing it to the `.u32` PTX wants.

use crate::emit::{arith, bits, comment, ins, Class, Immediate, Reg};
use crate::lower::Lower;
use crate::text::{Hex16, Hex8};
use crate::CompileError;
use qd_mir::{BinOp, UnOp};
use qd_mir::{CmpCond, Imm, Inst, ScalarType};

/// The scalar op classes ([`qd_mir::OpClass`]'s `Const` … `Bitcast`), with their sub-kinds.
#[derive(Copy, Clone, Debug)]
pub(crate) enum ScalarOp {
    Const,
    Binary(BinOp),
    Unary(UnOp),
    Fma,
    Select,
    Cmp,
    Cast,
    Bitcast,
}

/// Lowers one scalar instruction.
pub(crate) fn lower(lw: &mut Lower<'_>, inst: Inst, op: ScalarOp) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    let res = lw.result(inst)?;
    let rt = lw.scalar(res);
    match op {
        ScalarOp::Const => {
            let Imm::Const(b) = data.imm else { return Err(lw.internal("malformed constant")) };
            let d = lw.def(res);
            match rt {
                ScalarType::Bool => ins!(lw.e, "mov.pred {}, {}", d, b & 1),
                ScalarType::I32 | ScalarType::U32 => ins!(lw.e, "mov.b32 {}, 0x{}", d, Hex8(b as u32)),
                ScalarType::I64 | ScalarType::U64 => ins!(lw.e, "mov.b64 {}, 0x{}", d, Hex16(b)),
                ScalarType::F32 | ScalarType::F64 => ins!(lw.e, "mov.{} {}, {}", arith(rt), d, Immediate(rt, b)),
            }
            Ok(())
        }
        ScalarOp::Binary(op) => {
            let (a, b) = (lw.r(args[0])?, lw.r(args[1])?);
            let d = lw.def(res);
            binary(lw, op, rt, d, a, b)
        }
        ScalarOp::Unary(op) => {
            let a = lw.r(args[0])?;
            let d = lw.def(res);
            unary(lw, op, rt, d, a)
        }
        ScalarOp::Fma => {
            let (a, b, c) = (lw.r(args[0])?, lw.r(args[1])?, lw.r(args[2])?);
            let d = lw.def(res);
            ins!(lw.e, "fma.rn.{} {}, {}, {}, {}", arith(rt), d, a, b, c);
            Ok(())
        }
        ScalarOp::Select => {
            let (c, a, b) = (lw.r(args[0])?, lw.r(args[1])?, lw.r(args[2])?);
            let d = lw.def(res);
            if rt == ScalarType::Bool {
                let (t1, t2) = (lw.e.reg(Class::Pred), lw.e.reg(Class::Pred));
                ins!(lw.e, "and.pred {}, {}, {}", t1, c, a);
                ins!(lw.e, "and.pred {}, !{}, {}", t2, c, b);
                ins!(lw.e, "or.pred {}, {}, {}", d, t1, t2);
            } else {
                ins!(lw.e, "selp.{} {}, {}, {}, {}", sel_ty(lw, args[1]), d, a, b, c);
            }
            Ok(())
        }
        ScalarOp::Cmp => {
            let Imm::Cond(cond) = data.imm else { return Err(lw.internal("malformed condition")) };
            let (a, b) = (lw.r(args[0])?, lw.r(args[1])?);
            let ot = lw.scalar(args[0]);
            let d = lw.def(res);
            compare(lw, cond, ot, d, a, b)
        }
        ScalarOp::Cast => {
            let a = lw.r(args[0])?;
            let from = lw.scalar(args[0]);
            let d = lw.def(res);
            cast(lw, from, rt, d, a);
            Ok(())
        }
        ScalarOp::Bitcast => {
            let a = lw.r(args[0])?;
            let d = lw.def(res);
            ins!(lw.e, "mov.{} {}, {}", bits(rt), d, a);
            Ok(())
        }
    }
}

/// `selp` type of a value (pointers select as their address width).
fn sel_ty(lw: &Lower<'_>, v: qd_mir::Value) -> &'static str {
    bits(lw.scalar(v))
}

/// `d = a op b` on scalars of type `t`.
pub(crate) fn binary(lw: &mut Lower<'_>, op: BinOp, t: ScalarType, d: Reg, a: Reg, b: Reg) -> Result<(), CompileError> {
    let ty = arith(t);
    match t {
        ScalarType::Bool => match op {
            BinOp::And => ins!(lw.e, "and.pred {}, {}, {}", d, a, b),
            BinOp::Or => ins!(lw.e, "or.pred {}, {}, {}", d, a, b),
            BinOp::Xor => ins!(lw.e, "xor.pred {}, {}, {}", d, a, b),
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Min
            | BinOp::Max
            | BinOp::Shl
            | BinOp::Shr => return Err(lw.internal(format!("{op:?} on bool, which the verifier rejects"))),
        },
        ScalarType::F32 | ScalarType::F64 => match op {
            BinOp::Add => ins!(lw.e, "add.rn.{} {}, {}, {}", ty, d, a, b),
            BinOp::Sub => ins!(lw.e, "sub.rn.{} {}, {}, {}", ty, d, a, b),
            BinOp::Mul => ins!(lw.e, "mul.rn.{} {}, {}, {}", ty, d, a, b),
            BinOp::Div => ins!(lw.e, "div.rn.{} {}, {}, {}", ty, d, a, b),
            BinOp::Rem => fmod(lw, t, d, a, b),
            BinOp::Min | BinOp::Max => min_max_float(lw, op == BinOp::Min, t, d, a, b),
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => {
                return Err(lw.internal(format!("{op:?} on {t}, which the verifier rejects")))
            }
        },
        ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
            let bt = bits(t);
            match op {
                BinOp::Add => ins!(lw.e, "add.{} {}, {}, {}", ty, d, a, b),
                BinOp::Sub => ins!(lw.e, "sub.{} {}, {}, {}", ty, d, a, b),
                BinOp::Mul => ins!(lw.e, "mul.lo.{} {}, {}, {}", ty, d, a, b),
                BinOp::Div => ins!(lw.e, "div.{} {}, {}, {}", ty, d, a, b),
                BinOp::Rem => ins!(lw.e, "rem.{} {}, {}, {}", ty, d, a, b),
                BinOp::Min => ins!(lw.e, "min.{} {}, {}, {}", ty, d, a, b),
                BinOp::Max => ins!(lw.e, "max.{} {}, {}, {}", ty, d, a, b),
                BinOp::And => ins!(lw.e, "and.{} {}, {}, {}", bt, d, a, b),
                BinOp::Or => ins!(lw.e, "or.{} {}, {}, {}", bt, d, a, b),
                BinOp::Xor => ins!(lw.e, "xor.{} {}, {}, {}", bt, d, a, b),
                BinOp::Shl | BinOp::Shr => {
                    // PTX shifts take a .u32 amount and clamp it at the width: exactly the MIR
                    // rule once a 64-bit amount is clamped before it is narrowed.
                    let amt = if t.bits() == 64 {
                        let (c, n) = (lw.e.reg(Class::B64), lw.e.reg(Class::B32));
                        ins!(lw.e, "min.u64 {}, {}, 64", c, b);
                        ins!(lw.e, "cvt.u32.u64 {}, {}", n, c);
                        n
                    } else {
                        b
                    };
                    if op == BinOp::Shl {
                        ins!(lw.e, "shl.{} {}, {}, {}", bt, d, a, amt);
                    } else {
                        ins!(lw.e, "shr.{} {}, {}, {}", ty, d, a, amt);
                    }
                }
            }
        }
    }
    Ok(())
}

/// IEEE minNum/maxNum (`min.f32` ignores a NaN operand) plus the MIR's signed-zero order:
/// when the operands compare equal the result is the OR (min) / AND (max) of their bits.
fn min_max_float(lw: &mut Lower<'_>, is_min: bool, t: ScalarType, d: Reg, a: Reg, b: Reg) {
    let ty = arith(t);
    let bc = if t == ScalarType::F32 { Class::B32 } else { Class::B64 };
    let bt = bits(t);
    let (q, ra, rb) = (lw.e.reg(Class::Pred), lw.e.reg(bc), lw.e.reg(bc));
    let name = if is_min { "min" } else { "max" };
    ins!(lw.e, "{}.{} {}, {}, {}", name, ty, d, a, b);
    ins!(lw.e, "setp.eq.{} {}, {}, {}", ty, q, a, b);
    ins!(lw.e, "mov.{} {}, {}", bt, ra, a);
    ins!(lw.e, "mov.{} {}, {}", bt, rb, b);
    ins!(lw.e, "{}.{} {}, {}, {}", if is_min { "or" } else { "and" }, bt, ra, ra, rb);
    ins!(lw.e, "@{} mov.{} {}, {}", q, bt, d, ra);
}

/// Exact `fmod` (the sign of the dividend): long division by `|y| · 2^k`, largest `k` first.
/// NaN operands, an infinite dividend or a zero divisor give the canonical NaN.
fn fmod(lw: &mut Lower<'_>, t: ScalarType, d: Reg, x: Reg, y: Reg) {
    let ty = arith(t);
    let fc = Class::of_scalar(t);
    let (bc, bt) = if t == ScalarType::F32 { (Class::B32, "b32") } else { (Class::B64, "b64") };
    let (inf, zero, two, half, nan, sign) = if t == ScalarType::F32 {
        ("0f7F800000", "0f00000000", "0f40000000", "0f3F000000", "0f7FFFFFFF", "0x80000000")
    } else {
        (
            "0d7FF0000000000000",
            "0d0000000000000000",
            "0d4000000000000000",
            "0d3FE0000000000000",
            "0d7FFFFFFFFFFFFFFF",
            "0x8000000000000000",
        )
    };
    let (ax, ay, r, tt, t2) = (lw.e.reg(fc), lw.e.reg(fc), lw.e.reg(fc), lw.e.reg(fc), lw.e.reg(fc));
    let (p, q) = (lw.e.reg(Class::Pred), lw.e.reg(Class::Pred));
    let (rb, xb) = (lw.e.reg(bc), lw.e.reg(bc));
    let (bad, end, up, down, sign_l) = (lw.e.label(), lw.e.label(), lw.e.label(), lw.e.label(), lw.e.label());
    comment!(lw.e, "fmod {} = {} rem {}", d, x, y);
    ins!(lw.e, "abs.{} {}, {}", ty, ax, x);
    ins!(lw.e, "abs.{} {}, {}", ty, ay, y);
    ins!(lw.e, "mov.{} {}, {}", ty, d, x);
    ins!(lw.e, "setp.nan.{} {}, {}, {}", ty, p, x, y);
    ins!(lw.e, "setp.eq.or.{} {}, {}, {}, {}", ty, p, ax, inf, p);
    ins!(lw.e, "setp.eq.or.{} {}, {}, {}, {}", ty, p, ay, zero, p);
    ins!(lw.e, "@{} bra {}", p, bad);
    ins!(lw.e, "setp.lt.{} {}, {}, {}", ty, p, ax, ay);
    ins!(lw.e, "@{} bra {}", p, end);
    ins!(lw.e, "mov.{} {}, {}", ty, r, ax);
    ins!(lw.e, "mov.{} {}, {}", ty, tt, ay);
    lw.e.place(up);
    ins!(lw.e, "mul.rn.{} {}, {}, {}", ty, t2, tt, two);
    ins!(lw.e, "setp.le.{} {}, {}, {}", ty, q, t2, r);
    ins!(lw.e, "@!{} bra {}", q, down);
    ins!(lw.e, "mov.{} {}, {}", ty, tt, t2);
    ins!(lw.e, "bra {}", up);
    lw.e.place(down);
    ins!(lw.e, "setp.ge.{} {}, {}, {}", ty, q, r, tt);
    ins!(lw.e, "@{} sub.rn.{} {}, {}, {}", q, ty, r, r, tt);
    ins!(lw.e, "setp.eq.{} {}, {}, {}", ty, q, tt, ay);
    ins!(lw.e, "@{} bra {}", q, sign_l);
    ins!(lw.e, "mul.rn.{} {}, {}, {}", ty, tt, tt, half);
    ins!(lw.e, "bra {}", down);
    lw.e.place(sign_l);
    ins!(lw.e, "mov.{} {}, {}", bt, rb, r);
    ins!(lw.e, "mov.{} {}, {}", bt, xb, x);
    ins!(lw.e, "and.{} {}, {}, {}", bt, xb, xb, sign);
    ins!(lw.e, "or.{} {}, {}, {}", bt, rb, rb, xb);
    ins!(lw.e, "mov.{} {}, {}", bt, d, rb);
    ins!(lw.e, "bra {}", end);
    lw.e.place(bad);
    ins!(lw.e, "mov.{} {}, {}", ty, d, nan);
    lw.e.place(end);
}

/// `d = op a` on a scalar of type `t`.
pub(crate) fn unary(lw: &mut Lower<'_>, op: UnOp, t: ScalarType, d: Reg, a: Reg) -> Result<(), CompileError> {
    let ty = arith(t);
    let bt = bits(t);
    let signed = match t {
        ScalarType::I32 | ScalarType::U32 => "s32",
        ScalarType::I64 | ScalarType::U64 => "s64",
        ScalarType::Bool | ScalarType::F32 | ScalarType::F64 => ty,
    };
    match (op, t) {
        (UnOp::Not, ScalarType::Bool) => ins!(lw.e, "not.pred {}, {}", d, a),
        (UnOp::Neg | UnOp::Abs | UnOp::Sqrt | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev, ScalarType::Bool) => {
            return Err(lw.internal(format!("{op:?} on bool, which the verifier rejects")))
        }
        // Floats: on the sign bit alone (`neg.f32`/`abs.f32` return an unspecified NaN for a NaN
        // input; the MIR flips or clears the sign of NaNs too).
        (UnOp::Neg, ScalarType::F32) => ins!(lw.e, "xor.b32 {}, {}, 0x80000000", d, a),
        (UnOp::Neg, ScalarType::F64) => ins!(lw.e, "xor.b64 {}, {}, 0x8000000000000000", d, a),
        (UnOp::Abs, ScalarType::F32) => ins!(lw.e, "and.b32 {}, {}, 0x7FFFFFFF", d, a),
        (UnOp::Abs, ScalarType::F64) => ins!(lw.e, "and.b64 {}, {}, 0x7FFFFFFFFFFFFFFF", d, a),
        (UnOp::Neg, _) => ins!(lw.e, "neg.{} {}, {}", signed, d, a),
        (UnOp::Abs, ScalarType::U32 | ScalarType::U64) => ins!(lw.e, "mov.{} {}, {}", bt, d, a),
        (UnOp::Abs, _) => ins!(lw.e, "abs.{} {}, {}", ty, d, a),
        (UnOp::Sqrt, ScalarType::F32 | ScalarType::F64) => ins!(lw.e, "sqrt.rn.{} {}, {}", ty, d, a),
        (UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev, ScalarType::F32 | ScalarType::F64)
        | (UnOp::Sqrt, _) => return Err(lw.internal(format!("{op:?} on {t}, which the verifier rejects"))),
        (UnOp::Not, _) => ins!(lw.e, "not.{} {}, {}", bt, d, a),
        (UnOp::Bitrev, _) => ins!(lw.e, "brev.{} {}, {}", bt, d, a),
        (UnOp::Clz | UnOp::Popcount, _) => {
            let name = if op == UnOp::Clz { "clz" } else { "popc" };
            if t.bits() == 64 {
                let n = lw.e.reg(Class::B32);
                ins!(lw.e, "{}.b64 {}, {}", name, n, a);
                ins!(lw.e, "cvt.u64.u32 {}, {}", d, n);
            } else {
                ins!(lw.e, "{}.b32 {}, {}", name, d, a);
            }
        }
    }
    Ok(())
}

/// `d = a cond b` (signedness from the type; floats ordered except `ne`).
pub(crate) fn compare(
    lw: &mut Lower<'_>,
    cond: CmpCond,
    t: ScalarType,
    d: Reg,
    a: Reg,
    b: Reg,
) -> Result<(), CompileError> {
    if t == ScalarType::Bool {
        match cond {
            CmpCond::Eq => {
                ins!(lw.e, "xor.pred {}, {}, {}", d, a, b);
                ins!(lw.e, "not.pred {}, {}", d, d);
            }
            CmpCond::Ne => ins!(lw.e, "xor.pred {}, {}, {}", d, a, b),
            CmpCond::Lt | CmpCond::Le | CmpCond::Gt | CmpCond::Ge => {
                return Err(lw.internal("an ordered comparison of bools, which the verifier rejects"))
            }
        }
        return Ok(());
    }
    let c = match cond {
        CmpCond::Eq => "eq",
        CmpCond::Ne if t.is_float() => "neu",
        CmpCond::Ne => "ne",
        CmpCond::Lt => "lt",
        CmpCond::Le => "le",
        CmpCond::Gt => "gt",
        CmpCond::Ge => "ge",
    };
    ins!(lw.e, "setp.{}.{} {}, {}, {}", c, arith(t), d, a, b);
    Ok(())
}

/// `d = cast<to>(a)`.
pub(crate) fn cast(lw: &mut Lower<'_>, from: ScalarType, to: ScalarType, d: Reg, a: Reg) {
    use ScalarType as S;
    match (from, to) {
        _ if from == to => ins!(lw.e, "mov.{} {}, {}", bits(to), d, a),
        (S::Bool, S::F32) => ins!(lw.e, "selp.f32 {}, 0f3F800000, 0f00000000, {}", d, a),
        (S::Bool, S::F64) => ins!(lw.e, "selp.f64 {}, 0d3FF0000000000000, 0d0000000000000000, {}", d, a),
        (S::Bool, _) => ins!(lw.e, "selp.{} {}, 1, 0, {}", bits(to), d, a),
        (S::F32, S::Bool) => ins!(lw.e, "setp.neu.f32 {}, {}, 0f00000000", d, a),
        (S::F64, S::Bool) => ins!(lw.e, "setp.neu.f64 {}, {}, 0d0000000000000000", d, a),
        (_, S::Bool) => ins!(lw.e, "setp.ne.{} {}, {}, 0", bits(from), d, a),
        (S::F32, S::F64) => ins!(lw.e, "cvt.f64.f32 {}, {}", d, a),
        (S::F64, S::F32) => ins!(lw.e, "cvt.rn.f32.f64 {}, {}", d, a),
        (S::F32 | S::F64, _) => {
            // `cvt.rzi` truncates and saturates; NaN → 0 is made explicit (the 64-bit forms
            // return INT64_MIN for NaN on sm_90).
            let q = lw.e.reg(Class::Pred);
            ins!(lw.e, "cvt.rzi.{}.{} {}, {}", arith(to), arith(from), d, a);
            ins!(lw.e, "setp.nan.{} {}, {}, {}", arith(from), q, a, a);
            ins!(lw.e, "@{} mov.{} {}, 0", q, bits(to), d);
        }
        (_, S::F32 | S::F64) => ins!(lw.e, "cvt.rn.{}.{} {}, {}", arith(to), arith(from), d, a),
        _ if from.bits() == to.bits() => ins!(lw.e, "mov.{} {}, {}", bits(to), d, a),
        _ if from.bits() < to.bits() => {
            ins!(lw.e, "cvt.{}.{} {}, {}", if from.is_signed() { "s64" } else { "u64" }, arith(from), d, a)
        }
        _ => ins!(lw.e, "cvt.u32.u64 {}, {}", d, a),
    }
}
