//! The group operators of reductions, scans and segmented reductions as vector-ALU steps inside
//! one `MInst` (they run inside whole-wave sequences, so they cannot be separate MIR ops).
//!
//! Each combination `a ⊕ b` (`a` the left operand of `qd_mir::eval::combine`) is bit-identical
//! to the interpreter on every type: integers wrap; 64-bit `add` is a carry pair and 64-bit `mul`
//! the low 64 bits of the product from 32-bit pieces; float `add`/`mul` take `a` as src0 so the
//! NaN that propagates is the same one; float `min`/`max` are compare-and-select sequences with
//! the interpreter's rules (equal values: bits OR / AND, so `min(+0, -0) = -0`; one NaN: the
//! other operand, untouched; two NaNs: `b`, as the host's `f32::min` gives) instead of `v_min`/`v_max`, which quiet signalling
//! NaNs. Results are fresh VGPR defs of the `MInst`; VCC may be clobbered.

use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use super::simt::{e64, t};
use super::{Lower, Val};
use crate::isa::{Op, Operand};
use crate::vcode::{MInst, A};

/// A fresh working register (VGPR or VGPR pair) for values of `ty`.
pub(crate) fn work_reg(cx: &mut Lower<'_>, ty: ScalarType) -> Val {
    if ty.bits() == 64 {
        Val::V64(cx.new_w())
    } else {
        Val::V(cx.new_v())
    }
}

/// Appends `d = a ⊕ b` and returns `d`.
pub(crate) fn combine(cx: &mut Lower<'_>, m: &mut MInst, op: GroupOp, ty: ScalarType, a: Val, b: Val) -> Val {
    let d = work_reg(cx, ty);
    let vcc = A::K(cx.vcc());
    match (d, a, b) {
        (Val::V(d), Val::V(a), Val::V(b)) => {
            let (ua, ub, dd) = (A::U(a), A::U(b), A::D(d));
            let signed = ty == ScalarType::I32;
            match (op, ty) {
                (GroupOp::Add, ScalarType::F32) => {
                    m.step(t(cx, Op::VAddF32), &[dd, ua, ub]);
                }
                (GroupOp::Mul, ScalarType::F32) => {
                    m.step(t(cx, Op::VMulF32), &[dd, ua, ub]);
                }
                (GroupOp::Min | GroupOp::Max, ScalarType::F32) => {
                    let max = op == GroupOp::Max;
                    let (t1, t2, t3, o) = (cx.new_v(), cx.new_v(), cx.new_v(), cx.new_v());
                    // t1 = a < b (a > b for max) ? a : b
                    let lt = if max { Op::VCmpGtF32 } else { Op::VCmpLtF32 };
                    m.step(t(cx, lt), &[vcc, ua, ub]);
                    m.step(t(cx, Op::VCndmaskB32), &[A::D(t1), ub, ua, vcc]);
                    // t2 = isnan(b) ? a : t1
                    m.step(t(cx, Op::VCmpUF32), &[vcc, ub, ub]);
                    m.step(t(cx, Op::VCndmaskB32), &[A::D(t2), A::U(t1), ua, vcc]);
                    // t3 = isnan(a) ? b : t2
                    m.step(t(cx, Op::VCmpUF32), &[vcc, ua, ua]);
                    m.step(t(cx, Op::VCndmaskB32), &[A::D(t3), A::U(t2), ub, vcc]);
                    // d = a == b ? (a | b for min, a & b for max) : t2
                    let bit = if max { Op::VAndB32 } else { Op::VOrB32 };
                    m.step(t(cx, bit), &[A::D(o), ua, ub]);
                    m.step(t(cx, Op::VCmpEqF32), &[vcc, ua, ub]);
                    m.step(t(cx, Op::VCndmaskB32), &[dd, A::U(t3), A::U(o), vcc]);
                }
                (GroupOp::Add, _) => {
                    m.step(t(cx, Op::VAddU32), &[dd, ua, ub]);
                }
                (GroupOp::Mul, _) => {
                    m.step(t(cx, Op::VMulLoU32), &[dd, ua, ub]);
                }
                (GroupOp::Min, _) => {
                    m.step(t(cx, if signed { Op::VMinI32 } else { Op::VMinU32 }), &[dd, ua, ub]);
                }
                (GroupOp::Max, _) => {
                    m.step(t(cx, if signed { Op::VMaxI32 } else { Op::VMaxU32 }), &[dd, ua, ub]);
                }
                (GroupOp::And, _) => {
                    m.step(t(cx, Op::VAndB32), &[dd, ua, ub]);
                }
                (GroupOp::Or, _) => {
                    m.step(t(cx, Op::VOrB32), &[dd, ua, ub]);
                }
                (GroupOp::Xor, _) => {
                    m.step(t(cx, Op::VXorB32), &[dd, ua, ub]);
                }
            }
        }
        (Val::V64(d), Val::V64(a), Val::V64(b)) => combine64(cx, m, op, ty, d, a, b),
        _ => unreachable!("combine of mixed widths"),
    }
    d
}

fn combine64(
    cx: &mut Lower<'_>,
    m: &mut MInst,
    op: GroupOp,
    ty: ScalarType,
    d: regalloc2::VReg,
    a: regalloc2::VReg,
    b: regalloc2::VReg,
) {
    let vcc = A::K(cx.vcc());
    let halves = |m: &mut MInst, o: Op| {
        m.step(t(cx, o), &[A::DL(d), A::UL(a), A::UL(b)]);
        m.step(t(cx, o), &[A::DH(d), A::UH(a), A::UH(b)]);
    };
    let select = |m: &mut MInst, f: A, tr: A| {
        // d = vcc ? tr : f, both 64-bit pairs given as whole uses.
        let (fl, fh, tl, th) = match (f, tr) {
            (A::U(f), A::U(tr)) => (A::UL(f), A::UH(f), A::UL(tr), A::UH(tr)),
            _ => unreachable!(),
        };
        m.step(t(cx, Op::VCndmaskB32), &[A::DL(d), fl, tl, vcc]);
        m.step(t(cx, Op::VCndmaskB32), &[A::DH(d), fh, th, vcc]);
    };
    match (op, ty) {
        (GroupOp::Add, ScalarType::F64) => {
            m.step(t(cx, Op::VAddF64), &[A::D(d), A::U(a), A::U(b)]);
        }
        (GroupOp::Mul, ScalarType::F64) => {
            m.step(t(cx, Op::VMulF64), &[A::D(d), A::U(a), A::U(b)]);
        }
        (GroupOp::Min | GroupOp::Max, ScalarType::F64) => {
            let max = op == GroupOp::Max;
            let (t1, t2, t3, o) = (cx.new_w(), cx.new_w(), cx.new_w(), cx.new_w());
            let lt = if max { Op::VCmpGtF64 } else { Op::VCmpLtF64 };
            m.step(t(cx, lt), &[vcc, A::U(a), A::U(b)]);
            let sel = |m: &mut MInst, dst: regalloc2::VReg, f: regalloc2::VReg, tr: regalloc2::VReg| {
                m.step(t(cx, Op::VCndmaskB32), &[A::DL(dst), A::UL(f), A::UL(tr), vcc]);
                m.step(t(cx, Op::VCndmaskB32), &[A::DH(dst), A::UH(f), A::UH(tr), vcc]);
            };
            sel(m, t1, b, a);
            m.step(t(cx, Op::VCmpUF64), &[vcc, A::U(b), A::U(b)]);
            sel(m, t2, t1, a);
            m.step(t(cx, Op::VCmpUF64), &[vcc, A::U(a), A::U(a)]);
            sel(m, t3, t2, b);
            let bit = if max { Op::VAndB32 } else { Op::VOrB32 };
            m.step(t(cx, bit), &[A::DL(o), A::UL(a), A::UL(b)]);
            m.step(t(cx, bit), &[A::DH(o), A::UH(a), A::UH(b)]);
            m.step(t(cx, Op::VCmpEqF64), &[vcc, A::U(a), A::U(b)]);
            sel(m, d, t3, o);
        }
        (GroupOp::Add, _) => {
            m.step(t(cx, Op::VAddCoU32), &[A::DL(d), vcc, A::UL(a), A::UL(b)]);
            m.step(t(cx, Op::VAddcCoU32), &[A::DH(d), vcc, A::UH(a), A::UH(b), vcc]);
        }
        (GroupOp::Mul, _) => {
            // lo = al·bl; hi = mulhi(al, bl) + al·bh + ah·bl.
            let (h1, h2, h3) = (cx.new_v(), cx.new_v(), cx.new_v());
            m.step(t(cx, Op::VMulHiU32), &[A::D(h1), A::UL(a), A::UL(b)]);
            m.step(t(cx, Op::VMulLoU32), &[A::D(h2), A::UL(a), A::UH(b)]);
            m.step(t(cx, Op::VMulLoU32), &[A::D(h3), A::UH(a), A::UL(b)]);
            m.step(t(cx, Op::VAddU32), &[A::D(h1), A::U(h1), A::U(h2)]);
            m.step(t(cx, Op::VAddU32), &[A::DH(d), A::U(h1), A::U(h3)]);
            m.step(t(cx, Op::VMulLoU32), &[A::DL(d), A::UL(a), A::UL(b)]);
        }
        (GroupOp::Min | GroupOp::Max, _) => {
            let signed = ty == ScalarType::I64;
            let c = match (op == GroupOp::Max, signed) {
                (false, true) => Op::VCmpLtI64,
                (false, false) => Op::VCmpLtU64,
                (true, true) => Op::VCmpGtI64,
                (true, false) => Op::VCmpGtU64,
            };
            m.step(t(cx, c), &[vcc, A::U(a), A::U(b)]);
            select(m, A::U(b), A::U(a));
        }
        (GroupOp::And, _) => halves(m, Op::VAndB32),
        (GroupOp::Or, _) => halves(m, Op::VOrB32),
        (GroupOp::Xor, _) => halves(m, Op::VXorB32),
    }
    let _ = e64;
    let _ = Operand::None;
}
