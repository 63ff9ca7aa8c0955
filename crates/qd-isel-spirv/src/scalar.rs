//! Scalar ops: constants, arithmetic, comparisons, selects, conversions and bitcasts.
//!
//! Exactness is the rule (the interpreter is bit-for-bit the reference), and SPIR-V leaves more
//! undefined than PTX, so the lowering spells out every corner the MIR defines:
//! - float `add sub mul div` carry `NoContraction` (no fusing into an `fma`);
//! - float `min`/`max` are selects (minNum/maxNum, NaN ignored, `-0 < +0`), not `FMin`, whose
//!   NaN and signed-zero results are undefined;
//! - float `rem` is an exact `fmod` (a shift-and-subtract loop, every step exact);
//! - float → int conversions clamp in the float domain first (NaN → 0, saturation), since
//!   `OpConvertFToS` is undefined out of range;
//! - shifts clamp amounts ≥ the width (undefined in SPIR-V); signed `div`/`rem` patch
//!   `INT_MIN / -1`; a zero divisor divides by 1 instead (the interpreter faults there, and the
//!   result is unspecified as on PTX);
//! - `clz`/`popcount`/`bitrev` on 64 bits work on the 32-bit halves (Vulkan allows the bit
//!   instructions on 32-bit values only).

use crate::control::header_loop;
use crate::emit::TyKey;
use crate::lower::Lower;
use crate::CompileError;
use qd_mir::{BinOp, UnOp};
use qd_mir::{CmpCond, Imm, Inst, ScalarType};
use rspirv::spirv::{Capability, Decoration, GlslStd450Op as Glsl, Op};

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
    let d = match op {
        ScalarOp::Const => {
            let Imm::Const(b) = data.imm else { return Err(lw.internal("malformed constant")) };
            lw.c(rt, b)?
        }
        ScalarOp::Binary(op) => {
            let (a, b) = (lw.v(args[0])?, lw.v(args[1])?);
            if let Some(i) = plus_zero_operand(lw, op, rt, args[0], args[1]) {
                let d = minus_zero_to_plus(lw, rt, if i == 0 { a } else { b })?;
                lw.set(res, d);
                return Ok(());
            }
            match const_of(lw, args[1]) {
                // A constant divisor that is neither 0 nor (signed) -1 needs no guard.
                Some(k)
                    if matches!(op, BinOp::Div | BinOp::Rem)
                        && rt.is_int()
                        && k != 0
                        && !(rt.is_signed() && qd_mir::eval::as_i64(rt, k) == -1) =>
                {
                    let ty = lw.ty(rt)?;
                    let sop = match (op == BinOp::Div, rt.is_signed()) {
                        (true, true) => Op::SDiv,
                        (true, false) => Op::UDiv,
                        (false, true) => Op::SRem,
                        (false, false) => Op::UMod,
                    };
                    lw.e.op(sop, ty, &[a, b])
                }
                _ => binary(lw, op, rt, a, b)?,
            }
        }
        ScalarOp::Unary(op) => {
            let a = lw.v(args[0])?;
            unary(lw, op, rt, a)?
        }
        ScalarOp::Fma => {
            let (a, b, c) = (lw.v(args[0])?, lw.v(args[1])?, lw.v(args[2])?);
            fma_exact(lw, rt, a, b, c)?
        }
        ScalarOp::Select => {
            let (c, a, b) = (lw.v(args[0])?, lw.v(args[1])?, lw.v(args[2])?);
            let t = lw.ty(rt)?;
            lw.e.op(Op::Select, t, &[c, a, b])
        }
        ScalarOp::Cmp => {
            let Imm::Cond(cond) = data.imm else { return Err(lw.internal("malformed condition")) };
            let (a, b) = (lw.v(args[0])?, lw.v(args[1])?);
            let ot = lw.scalar(args[0]);
            compare(lw, cond, ot, a, b)?
        }
        ScalarOp::Cast => {
            let a = lw.v(args[0])?;
            let from = lw.scalar(args[0]);
            cast(lw, from, rt, a)?
        }
        ScalarOp::Bitcast => {
            let a = lw.v(args[0])?;
            let from = lw.scalar(args[0]);
            let (ft, tt) = (lw.ty(from)?, lw.ty(rt)?);
            if ft == tt {
                a
            } else {
                lw.e.op(Op::Bitcast, tt, &[a])
            }
        }
    };
    lw.set(res, d);
    Ok(())
}

/// The bits of a value defined by a `const`.
pub(crate) fn const_of(lw: &Lower<'_>, v: qd_mir::Value) -> Option<u64> {
    match lw.f.values[v].def {
        qd_mir::ValueDef::Result(i, _) if lw.f.insts[i].opcode == qd_mir::Opcode::Const => match lw.f.insts[i].imm {
            Imm::Const(b) => Some(b),
            _ => None,
        },
        _ => None,
    }
}

/// For `x + (+0.0)`, `(+0.0) + x` and `x - (-0.0)`: which operand is `x` (0 or 1). Drivers fold
/// these to `x` (Mesa's lavapipe does, even with `NoContraction` and `SignedZeroInfNanPreserve`),
/// which is wrong for `x = -0.0` (IEEE gives `+0.0`); they are lowered exactly by
/// [`minus_zero_to_plus`] instead.
fn plus_zero_operand(lw: &Lower<'_>, op: BinOp, t: ScalarType, a: qd_mir::Value, b: qd_mir::Value) -> Option<usize> {
    if !t.is_float() {
        return None;
    }
    let sign = if t == ScalarType::F32 { 1u64 << 31 } else { 1u64 << 63 };
    match op {
        BinOp::Add if const_of(lw, b) == Some(0) => Some(0),
        BinOp::Add if const_of(lw, a) == Some(0) => Some(1),
        BinOp::Sub if const_of(lw, b) == Some(sign) => Some(0),
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::Div
        | BinOp::Rem
        | BinOp::Min
        | BinOp::Max
        | BinOp::And
        | BinOp::Or
        | BinOp::Xor
        | BinOp::Shl
        | BinOp::Shr => None,
    }
}

/// `x + 0.0` exactly: `x`, except that `-0.0` becomes `+0.0` (NaNs and every other value pass
/// unchanged), with integer ops a driver cannot fold away.
fn minus_zero_to_plus(lw: &mut Lower<'_>, t: ScalarType, x: u32) -> Result<u32, CompileError> {
    let ty = lw.ty(t)?;
    let (ut, _, sign) = bits_of(lw, t)?;
    let bits = lw.e.op(Op::Bitcast, ut, &[x]);
    let us = if t == ScalarType::F32 { ScalarType::U32 } else { ScalarType::U64 };
    let neg0 = lw.c(us, sign)?;
    let bt = lw.bool_ty();
    let is_neg0 = lw.e.op(Op::IEqual, bt, &[bits, neg0]);
    let zero = lw.c(t, 0)?;
    Ok(lw.e.op(Op::Select, ty, &[is_neg0, zero, x]))
}

/// `fma` rounded once, as MIR defines it. Vulkan lets `GLSL.std.450 Fma` round twice (lavapipe
/// does), so f32 is computed in f64 and rounded to odd before the final rounding to f32, which is
/// then correct (Boldo–Melquiond: 53 ≥ 2·24 + 2 bits): the product is exact in f64, the sum is
/// rounded to nearest, its error comes from TwoSum, and an inexact even sum moves one ulp toward
/// the true value. f64 has no wider type, so it is computed in integer arithmetic (`softfma`).
fn fma_exact(lw: &mut Lower<'_>, t: ScalarType, a: u32, b: u32, c: u32) -> Result<u32, CompileError> {
    if t == ScalarType::F64 {
        return crate::softfma::fma_f64(lw, a, b, c);
    }
    let why = "an exact f32 fma (computed in f64 with round-to-odd)";
    lw.need(Capability::Float64, lw.opts.caps.float64, &format!("64-bit floats (shaderFloat64) for {why}"))?;
    lw.need(Capability::Int64, lw.opts.caps.int64, &format!("64-bit integers (shaderInt64) for {why}"))?;
    let (f32t, f64t) = (lw.ty(ScalarType::F32)?, lw.ty(ScalarType::F64)?);
    let u64t = lw.ty(ScalarType::U64)?;
    let bt = lw.bool_ty();
    let [da, db, dc] = [a, b, c].map(|x| lw.e.op(Op::FConvert, f64t, &[x]));
    let p = exact(lw, Op::FMul, f64t, da, db);
    let sum = exact(lw, Op::FAdd, f64t, p, dc);
    // TwoSum: the rounding error of `p + dc`.
    let bb = exact(lw, Op::FSub, f64t, sum, p);
    let t1 = exact(lw, Op::FSub, f64t, sum, bb);
    let t2 = exact(lw, Op::FSub, f64t, p, t1);
    let t3 = exact(lw, Op::FSub, f64t, dc, bb);
    let err = exact(lw, Op::FAdd, f64t, t2, t3);
    let zero = lw.c(ScalarType::F64, 0)?;
    let inexact = lw.e.op(Op::FOrdNotEqual, bt, &[err, zero]);
    let bits = lw.e.op(Op::Bitcast, u64t, &[sum]);
    let one = lw.c(ScalarType::U64, 1)?;
    let low = lw.e.op(Op::BitwiseAnd, u64t, &[bits, one]);
    let z64 = lw.c(ScalarType::U64, 0)?;
    let even = lw.e.op(Op::IEqual, bt, &[low, z64]);
    let mag = lw.e.ext(f64t, Glsl::FAbs as u32, &[sum]);
    let inf = lw.c(ScalarType::F64, f64::INFINITY.to_bits())?;
    let finite = lw.e.op(Op::FOrdLessThan, bt, &[mag, inf]);
    let e_pos = lw.e.op(Op::FOrdGreaterThan, bt, &[err, zero]);
    let s_pos = lw.e.op(Op::FOrdGreaterThan, bt, &[sum, zero]);
    let same = lw.e.op(Op::LogicalEqual, bt, &[e_pos, s_pos]);
    let minus_one = lw.c(ScalarType::U64, u64::MAX)?;
    let step = lw.e.op(Op::Select, u64t, &[same, one, minus_one]);
    let moved = lw.e.op(Op::IAdd, u64t, &[bits, step]);
    let moved = lw.e.op(Op::Bitcast, f64t, &[moved]);
    let c1 = lw.e.op(Op::LogicalAnd, bt, &[inexact, even]);
    let fix = lw.e.op(Op::LogicalAnd, bt, &[c1, finite]);
    let odd = lw.e.op(Op::Select, f64t, &[fix, moved, sum]);
    Ok(lw.e.op(Op::FConvert, f32t, &[odd]))
}

/// IEEE division. Vulkan defines `OpFDiv` only for divisors of magnitude in `[2^-126, 2^126]`
/// (lavapipe gives `x / 0 = 0`), so the IEEE results for a zero or infinite divisor are made
/// explicit: `x / ±0` is `±inf` with the sign `sign(x) ^ sign(y)` (NaN for `0 / 0` and a NaN `x`),
/// `x / ±inf` is a signed zero (NaN for `inf / inf` and a NaN `x`).
fn fdiv(lw: &mut Lower<'_>, t: ScalarType, a: u32, b: u32) -> Result<u32, CompileError> {
    let ty = lw.ty(t)?;
    let (ut, _, sign) = bits_of(lw, t)?;
    let us = if t == ScalarType::F32 { ScalarType::U32 } else { ScalarType::U64 };
    let bt = lw.bool_ty();
    let q = exact(lw, Op::FDiv, ty, a, b);
    let (xa, xb) = (lw.e.op(Op::Bitcast, ut, &[a]), lw.e.op(Op::Bitcast, ut, &[b]));
    let x = lw.e.op(Op::BitwiseXor, ut, &[xa, xb]);
    let sign_c = lw.c(us, sign)?;
    let s = lw.e.op(Op::BitwiseAnd, ut, &[x, sign_c]);
    let inf_bits = if t == ScalarType::F32 { u64::from(f32::INFINITY.to_bits()) } else { f64::INFINITY.to_bits() };
    let inf_c = lw.c(us, inf_bits)?;
    let signed_inf = lw.e.op(Op::BitwiseOr, ut, &[s, inf_c]);
    let signed_inf = lw.e.op(Op::Bitcast, ty, &[signed_inf]);
    let signed_zero = lw.e.op(Op::Bitcast, ty, &[s]);
    let nan = lw.c(t, if t == ScalarType::F32 { u64::from(f32::NAN.to_bits()) } else { f64::NAN.to_bits() })?;
    let zero = lw.c(t, 0)?;
    let ma = lw.e.ext(ty, Glsl::FAbs as u32, &[a]);
    let mb = lw.e.ext(ty, Glsl::FAbs as u32, &[b]);
    let inf = lw.c(t, inf_bits)?;
    let b_zero = lw.e.op(Op::FOrdEqual, bt, &[mb, zero]);
    let b_inf = lw.e.op(Op::FOrdEqual, bt, &[mb, inf]);
    let a_zero = lw.e.op(Op::FOrdEqual, bt, &[ma, zero]);
    let a_inf = lw.e.op(Op::FOrdEqual, bt, &[ma, inf]);
    let a_nan = lw.e.op(Op::IsNan, bt, &[a]);
    let by_zero = {
        let bad = lw.e.op(Op::LogicalOr, bt, &[a_zero, a_nan]);
        lw.e.op(Op::Select, ty, &[bad, nan, signed_inf])
    };
    let by_inf = {
        let bad = lw.e.op(Op::LogicalOr, bt, &[a_inf, a_nan]);
        lw.e.op(Op::Select, ty, &[bad, nan, signed_zero])
    };
    let r = lw.e.op(Op::Select, ty, &[b_inf, by_inf, q]);
    Ok(lw.e.op(Op::Select, ty, &[b_zero, by_zero, r]))
}

/// An op whose result must not be contracted with its neighbours.
pub(crate) fn exact(lw: &mut Lower<'_>, op: Op, t: u32, a: u32, b: u32) -> u32 {
    let d = lw.e.op(op, t, &[a, b]);
    lw.e.decorate(d, Decoration::NoContraction, &[]);
    d
}

/// The unsigned integer type of a float's width and the sign bit; for f64 this is a 64-bit
/// integer, which needs `Int64` (checked here: the error names the type).
fn bits_of(lw: &mut Lower<'_>, t: ScalarType) -> Result<(u32, u32, u64), CompileError> {
    let w = t.bits();
    if w == 64 {
        let why = "64-bit integers (shaderInt64) for the sign and payload bits of f64";
        lw.need(Capability::Int64, lw.opts.caps.int64, why)?;
    }
    let u = lw.int_ty(w);
    Ok((u, w, 1u64 << (w - 1)))
}

/// `a op b` on scalars of type `t`.
pub(crate) fn binary(lw: &mut Lower<'_>, op: BinOp, t: ScalarType, a: u32, b: u32) -> Result<u32, CompileError> {
    let ty = lw.ty(t)?;
    let bt = lw.bool_ty();
    Ok(match t {
        ScalarType::Bool => match op {
            BinOp::And => lw.e.op(Op::LogicalAnd, ty, &[a, b]),
            BinOp::Or => lw.e.op(Op::LogicalOr, ty, &[a, b]),
            BinOp::Xor => lw.e.op(Op::LogicalNotEqual, ty, &[a, b]),
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
            BinOp::Add => exact(lw, Op::FAdd, ty, a, b),
            BinOp::Sub => exact(lw, Op::FSub, ty, a, b),
            BinOp::Mul => exact(lw, Op::FMul, ty, a, b),
            BinOp::Div => fdiv(lw, t, a, b)?,
            BinOp::Rem => fmod(lw, t, a, b)?,
            BinOp::Min | BinOp::Max => {
                // minNum/maxNum: the ordered pick, the other operand when `b` is NaN (`a` NaN
                // already picks `b`), and equal operands (±0) combined bitwise.
                let is_min = op == BinOp::Min;
                let lt = lw.e.op(if is_min { Op::FOrdLessThan } else { Op::FOrdGreaterThan }, bt, &[a, b]);
                let r0 = lw.e.op(Op::Select, ty, &[lt, a, b]);
                let bn = lw.e.op(Op::IsNan, bt, &[b]);
                let r1 = lw.e.op(Op::Select, ty, &[bn, a, r0]);
                let eq = lw.e.op(Op::FOrdEqual, bt, &[a, b]);
                let (u, _, _) = bits_of(lw, t)?;
                let (ia, ib) = (lw.e.op(Op::Bitcast, u, &[a]), lw.e.op(Op::Bitcast, u, &[b]));
                let z = lw.e.op(if is_min { Op::BitwiseOr } else { Op::BitwiseAnd }, u, &[ia, ib]);
                let zf = lw.e.op(Op::Bitcast, ty, &[z]);
                lw.e.op(Op::Select, ty, &[eq, zf, r1])
            }
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => {
                return Err(lw.internal(format!("{op:?} on {t}, which the verifier rejects")))
            }
        },
        ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
            let signed = t.is_signed();
            let w = u64::from(t.bits());
            match op {
                BinOp::Add => lw.e.op(Op::IAdd, ty, &[a, b]),
                BinOp::Sub => lw.e.op(Op::ISub, ty, &[a, b]),
                BinOp::Mul => lw.e.op(Op::IMul, ty, &[a, b]),
                BinOp::Div | BinOp::Rem => {
                    let (zero, one) = (lw.c(t, 0)?, lw.c(t, 1)?);
                    let z = lw.e.op(Op::IEqual, bt, &[b, zero]);
                    if signed {
                        let m1 = lw.c(t, u64::MAX)?;
                        let neg1 = lw.e.op(Op::IEqual, bt, &[b, m1]);
                        let bad = lw.e.op(Op::LogicalOr, bt, &[z, neg1]);
                        let bs = lw.e.op(Op::Select, ty, &[bad, one, b]);
                        if op == BinOp::Div {
                            let q = lw.e.op(Op::SDiv, ty, &[a, bs]);
                            let na = lw.e.op(Op::SNegate, ty, &[a]);
                            lw.e.op(Op::Select, ty, &[neg1, na, q])
                        } else {
                            // `x rem ±1` is 0, which `x rem 1` gives.
                            lw.e.op(Op::SRem, ty, &[a, bs])
                        }
                    } else {
                        let bs = lw.e.op(Op::Select, ty, &[z, one, b]);
                        lw.e.op(if op == BinOp::Div { Op::UDiv } else { Op::UMod }, ty, &[a, bs])
                    }
                }
                BinOp::Min | BinOp::Max => {
                    let c = match (op == BinOp::Min, signed) {
                        (true, true) => Op::SLessThan,
                        (true, false) => Op::ULessThan,
                        (false, true) => Op::SGreaterThan,
                        (false, false) => Op::UGreaterThan,
                    };
                    let p = lw.e.op(c, bt, &[a, b]);
                    lw.e.op(Op::Select, ty, &[p, a, b])
                }
                BinOp::And => lw.e.op(Op::BitwiseAnd, ty, &[a, b]),
                BinOp::Or => lw.e.op(Op::BitwiseOr, ty, &[a, b]),
                BinOp::Xor => lw.e.op(Op::BitwiseXor, ty, &[a, b]),
                BinOp::Shl | BinOp::Shr => {
                    // The amount is read unsigned; ≥ width: 0 (shl, logical shr) or the sign.
                    let wc = lw.c(t, w)?;
                    let big = lw.e.op(Op::UGreaterThanEqual, bt, &[b, wc]);
                    if op == BinOp::Shr && signed {
                        let wm1 = lw.c(t, w - 1)?;
                        let s = lw.e.op(Op::Select, ty, &[big, wm1, b]);
                        lw.e.op(Op::ShiftRightArithmetic, ty, &[a, s])
                    } else {
                        let sop = if op == BinOp::Shl { Op::ShiftLeftLogical } else { Op::ShiftRightLogical };
                        let r = lw.e.op(sop, ty, &[a, b]);
                        let zero = lw.c(t, 0)?;
                        lw.e.op(Op::Select, ty, &[big, zero, r])
                    }
                }
            }
        }
    })
}

/// Exact `fmod` (the sign of the dividend): long division of `|x|` by `|y| · 2^k`, largest `k`
/// first, each subtraction exact. NaN operands, an infinite dividend or a zero divisor give the
/// canonical NaN; `|x| < |y|` gives `x`.
fn fmod(lw: &mut Lower<'_>, t: ScalarType, x: u32, y: u32) -> Result<u32, CompileError> {
    let ty = lw.ty(t)?;
    let bt = lw.bool_ty();
    let (u, _, sign) = bits_of(lw, t)?;
    let cf = |lw: &mut Lower<'_>, v: f64| -> Result<u32, CompileError> {
        let bits = if t == ScalarType::F32 { u64::from((v as f32).to_bits()) } else { v.to_bits() };
        lw.c(t, bits)
    };
    let (inf, zero, one, two, half) = (cf(lw, f64::INFINITY)?, cf(lw, 0.0)?, cf(lw, 1.0)?, cf(lw, 2.0)?, cf(lw, 0.5)?);
    let nan = lw.c(t, if t == ScalarType::F32 { 0x7fc0_0000 } else { 0x7ff8_0000_0000_0000 })?;
    let glsl_abs = Glsl::FAbs as u32;
    let ax = lw.e.ext(ty, glsl_abs, &[x]);
    let ay = lw.e.ext(ty, glsl_abs, &[y]);
    let xn = lw.e.op(Op::IsNan, bt, &[x]);
    let yn = lw.e.op(Op::IsNan, bt, &[y]);
    let xi = lw.e.op(Op::FOrdEqual, bt, &[ax, inf]);
    let yz = lw.e.op(Op::FOrdEqual, bt, &[ay, zero]);
    let b1 = lw.e.op(Op::LogicalOr, bt, &[xn, yn]);
    let b2 = lw.e.op(Op::LogicalOr, bt, &[xi, yz]);
    let bad = lw.e.op(Op::LogicalOr, bt, &[b1, b2]);
    let small = lw.e.op(Op::FOrdLessThan, bt, &[ax, ay]);
    let skip = lw.e.op(Op::LogicalOr, bt, &[bad, small]);
    // Skipped cases run the loops on 0 rem 1 (one trip each).
    let ax0 = lw.e.op(Op::Select, ty, &[skip, zero, ax]);
    let ay0 = lw.e.op(Op::Select, ty, &[skip, one, ay]);
    // tt = the largest ay · 2^k ≤ ax.
    let tt = header_loop(lw, &[ty], &[ay0], |lw, p| {
        let t2 = exact(lw, Op::FMul, ty, p[0], two);
        let again = lw.e.op(Op::FOrdLessThanEqual, bt, &[t2, ax0]);
        Ok((again, vec![t2], vec![p[0]]))
    })?[0];
    let r = header_loop(lw, &[ty, ty], &[ax0, tt], |lw, p| {
        let (r, tt) = (p[0], p[1]);
        let ge = lw.e.op(Op::FOrdGreaterThanEqual, bt, &[r, tt]);
        let sub = exact(lw, Op::FSub, ty, r, tt);
        let r1 = lw.e.op(Op::Select, ty, &[ge, sub, r]);
        let done = lw.e.op(Op::FOrdEqual, bt, &[tt, ay0]);
        let again = lw.e.op(Op::LogicalNot, bt, &[done]);
        let t2 = exact(lw, Op::FMul, ty, tt, half);
        Ok((again, vec![r1, t2], vec![r1]))
    })?[0];
    let sc = lw.e.constant(u, t.bits(), sign);
    let rb = lw.e.op(Op::Bitcast, u, &[r]);
    let xb = lw.e.op(Op::Bitcast, u, &[x]);
    let xs = lw.e.op(Op::BitwiseAnd, u, &[xb, sc]);
    let rs = lw.e.op(Op::BitwiseOr, u, &[rb, xs]);
    let signed_r = lw.e.op(Op::Bitcast, ty, &[rs]);
    let out = lw.e.op(Op::Select, ty, &[small, x, signed_r]);
    Ok(lw.e.op(Op::Select, ty, &[bad, nan, out]))
}

/// `op a` on a scalar of type `t`.
pub(crate) fn unary(lw: &mut Lower<'_>, op: UnOp, t: ScalarType, a: u32) -> Result<u32, CompileError> {
    let ty = lw.ty(t)?;
    let bt = lw.bool_ty();
    Ok(match (op, t) {
        (UnOp::Not, ScalarType::Bool) => lw.e.op(Op::LogicalNot, ty, &[a]),
        (UnOp::Neg | UnOp::Abs | UnOp::Sqrt | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev, ScalarType::Bool) => {
            return Err(lw.internal(format!("{op:?} on bool, which the verifier rejects")))
        }
        // Floats: on the sign bit alone (the MIR flips or clears the sign of NaNs too).
        (UnOp::Neg | UnOp::Abs, ScalarType::F32 | ScalarType::F64) => {
            let (u, w, sign) = bits_of(lw, t)?;
            let x = lw.e.op(Op::Bitcast, u, &[a]);
            let r = if op == UnOp::Neg {
                let s = lw.e.constant(u, w, sign);
                lw.e.op(Op::BitwiseXor, u, &[x, s])
            } else {
                let s = lw.e.constant(u, w, sign - 1);
                lw.e.op(Op::BitwiseAnd, u, &[x, s])
            };
            lw.e.op(Op::Bitcast, ty, &[r])
        }
        (UnOp::Neg, _) => lw.e.op(Op::SNegate, ty, &[a]),
        (UnOp::Abs, ScalarType::U32 | ScalarType::U64) => a,
        (UnOp::Abs, _) => {
            let z = lw.c(t, 0)?;
            let neg = lw.e.op(Op::SLessThan, bt, &[a, z]);
            let n = lw.e.op(Op::SNegate, ty, &[a]);
            lw.e.op(Op::Select, ty, &[neg, n, a])
        }
        (UnOp::Sqrt, ScalarType::F32 | ScalarType::F64) => lw.e.ext(ty, Glsl::Sqrt as u32, &[a]),
        (UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev, ScalarType::F32 | ScalarType::F64)
        | (UnOp::Sqrt, _) => return Err(lw.internal(format!("{op:?} on {t}, which the verifier rejects"))),
        (UnOp::Not, _) => lw.e.op(Op::Not, ty, &[a]),
        (UnOp::Clz, _) => bit_op(lw, BitOp::Clz, t, a)?,
        (UnOp::Popcount, _) => bit_op(lw, BitOp::Popcount, t, a)?,
        (UnOp::Bitrev, _) => bit_op(lw, BitOp::Bitrev, t, a)?,
    })
}

/// The integer bit operations, which Vulkan allows on 32-bit values only.
#[derive(Copy, Clone, PartialEq, Eq)]
enum BitOp {
    Clz,
    Popcount,
    Bitrev,
}

/// `clz`, `popcount` or `bitrev` of an integer of type `t` (64 bits: on the 32-bit halves).
fn bit_op(lw: &mut Lower<'_>, op: BitOp, t: ScalarType, a: u32) -> Result<u32, CompileError> {
    if t.bits() == 32 {
        return Ok(bit_op32(lw, op, a));
    }
    let ty = lw.ty(t)?;
    if op == BitOp::Bitrev {
        // As a `uvec2` (x = low word): reverse both words and swap them. Built from
        // truncations and shifts instead, llvmpipe's 256/512-bit vector code returned
        // wrong bits (lavapipe at widths 8 and 16).
        let v2 = uvec2(lw);
        let words = lw.e.op(Op::Bitcast, v2, &[a]);
        let rev = lw.e.op(Op::BitReverse, v2, &[words]);
        let swapped = lw.e.op(Op::VectorShuffle, v2, &[rev, rev, 1, 0]);
        return Ok(lw.e.op(Op::Bitcast, ty, &[swapped]));
    }
    let bt = lw.bool_ty();
    let u = lw.int_ty(32);
    let c32 = lw.c(t, 32)?;
    let lo = lw.e.op(Op::UConvert, u, &[a]);
    let hs = lw.e.op(Op::ShiftRightLogical, ty, &[a, c32]);
    let hi = lw.e.op(Op::UConvert, u, &[hs]);
    let s = if op == BitOp::Popcount {
        let (pl, ph) = (bit_op32(lw, op, lo), bit_op32(lw, op, hi));
        lw.e.op(Op::IAdd, u, &[pl, ph])
    } else {
        let (cl, ch) = (bit_op32(lw, op, lo), bit_op32(lw, op, hi));
        let z = lw.c_u32(0);
        let hz = lw.e.op(Op::IEqual, bt, &[hi, z]);
        let k32 = lw.c_u32(32);
        let low = lw.e.op(Op::IAdd, u, &[cl, k32]);
        lw.e.op(Op::Select, u, &[hz, low, ch])
    };
    Ok(lw.e.op(Op::UConvert, ty, &[s]))
}

/// `clz`, `popcount` or `bitrev` of a 32-bit value.
fn bit_op32(lw: &mut Lower<'_>, op: BitOp, a: u32) -> u32 {
    let u = lw.int_ty(32);
    match op {
        BitOp::Popcount => lw.e.op(Op::BitCount, u, &[a]),
        BitOp::Bitrev => lw.e.op(Op::BitReverse, u, &[a]),
        BitOp::Clz => {
            // 31 - FindUMsb(a); FindUMsb(0) = -1 gives 32.
            let msb = lw.e.ext(u, Glsl::FindUMsb as u32, &[a]);
            let c31 = lw.c_u32(31);
            lw.e.op(Op::ISub, u, &[c31, msb])
        }
    }
}

/// `a cond b` (signedness from the type; floats ordered except `ne`).
pub(crate) fn compare(lw: &mut Lower<'_>, cond: CmpCond, t: ScalarType, a: u32, b: u32) -> Result<u32, CompileError> {
    let bt = lw.bool_ty();
    let op = match t {
        ScalarType::Bool => match cond {
            CmpCond::Eq => Op::LogicalEqual,
            CmpCond::Ne => Op::LogicalNotEqual,
            CmpCond::Lt | CmpCond::Le | CmpCond::Gt | CmpCond::Ge => {
                return Err(lw.internal("an ordered comparison of bools, which the verifier rejects"))
            }
        },
        ScalarType::F32 | ScalarType::F64 => match cond {
            CmpCond::Eq => Op::FOrdEqual,
            CmpCond::Ne => Op::FUnordNotEqual,
            CmpCond::Lt => Op::FOrdLessThan,
            CmpCond::Le => Op::FOrdLessThanEqual,
            CmpCond::Gt => Op::FOrdGreaterThan,
            CmpCond::Ge => Op::FOrdGreaterThanEqual,
        },
        ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
            let s = t.is_signed();
            match cond {
                CmpCond::Eq => Op::IEqual,
                CmpCond::Ne => Op::INotEqual,
                CmpCond::Lt if s => Op::SLessThan,
                CmpCond::Lt => Op::ULessThan,
                CmpCond::Le if s => Op::SLessThanEqual,
                CmpCond::Le => Op::ULessThanEqual,
                CmpCond::Gt if s => Op::SGreaterThan,
                CmpCond::Gt => Op::UGreaterThan,
                CmpCond::Ge if s => Op::SGreaterThanEqual,
                CmpCond::Ge => Op::UGreaterThanEqual,
            }
        }
    };
    // Make sure 64-bit operand types are declared with their capability.
    lw.ty(t)?;
    Ok(lw.e.op(op, bt, &[a, b]))
}

/// A float constant of type `t` with value `v` (exactly representable).
fn fconst(lw: &mut Lower<'_>, t: ScalarType, v: f64) -> Result<u32, CompileError> {
    let bits = if t == ScalarType::F32 { u64::from((v as f32).to_bits()) } else { v.to_bits() };
    lw.c(t, bits)
}

/// `cast<to>(a)`.
pub(crate) fn cast(lw: &mut Lower<'_>, from: ScalarType, to: ScalarType, a: u32) -> Result<u32, CompileError> {
    use ScalarType as S;
    let tt = lw.ty(to)?;
    let ft = lw.ty(from)?;
    let bt = lw.bool_ty();
    if ft == tt {
        return Ok(a);
    }
    Ok(match (from, to) {
        (S::Bool, _) => {
            let (one, zero) =
                if to.is_float() { (fconst(lw, to, 1.0)?, fconst(lw, to, 0.0)?) } else { (lw.c(to, 1)?, lw.c(to, 0)?) };
            lw.e.op(Op::Select, tt, &[a, one, zero])
        }
        (S::F32 | S::F64, S::Bool) => {
            let z = fconst(lw, from, 0.0)?;
            lw.e.op(Op::FUnordNotEqual, bt, &[a, z])
        }
        (_, S::Bool) => {
            let z = lw.c(from, 0)?;
            lw.e.op(Op::INotEqual, bt, &[a, z])
        }
        (S::F32 | S::F64, S::F32 | S::F64) => lw.e.op(Op::FConvert, tt, &[a]),
        (S::F32 | S::F64, _) => {
            // Clamp in the float domain: NaN → 0, below the range → its minimum, at or above
            // 2^bits(-1) → the maximum (selected after the conversion).
            let w = to.bits() as i32;
            let (lo, hi, max) = if to.is_signed() {
                (-(2f64.powi(w - 1)), 2f64.powi(w - 1), (1u64 << (w - 1)) - 1)
            } else {
                (0.0, 2f64.powi(w), if w == 64 { u64::MAX } else { (1u64 << w) - 1 })
            };
            let (lo_c, hi_c, zero) = (fconst(lw, from, lo)?, fconst(lw, from, hi)?, fconst(lw, from, 0.0)?);
            let nan = lw.e.op(Op::IsNan, bt, &[a]);
            let x0 = lw.e.op(Op::Select, ft, &[nan, zero, a]);
            let below = lw.e.op(Op::FOrdLessThan, bt, &[x0, lo_c]);
            let x1 = lw.e.op(Op::Select, ft, &[below, lo_c, x0]);
            let over = lw.e.op(Op::FOrdGreaterThanEqual, bt, &[x1, hi_c]);
            let x2 = lw.e.op(Op::Select, ft, &[over, zero, x1]);
            let r = lw.e.op(if to.is_signed() { Op::ConvertFToS } else { Op::ConvertFToU }, tt, &[x2]);
            let m = lw.c(to, max)?;
            lw.e.op(Op::Select, tt, &[over, m, r])
        }
        (_, S::F32 | S::F64) => lw.e.op(if from.is_signed() { Op::ConvertSToF } else { Op::ConvertUToF }, tt, &[a]),
        _ if from.bits() < to.bits() => lw.e.op(if from.is_signed() { Op::SConvert } else { Op::UConvert }, tt, &[a]),
        _ => lw.e.op(Op::UConvert, tt, &[a]),
    })
}

/// The `uvec2` type (64-bit values travel through subgroup ops as two words).
pub(crate) fn uvec2(lw: &mut Lower<'_>) -> u32 {
    let u = lw.int_ty(32);
    lw.e.ty(TyKey::Vector(u, 2))
}
