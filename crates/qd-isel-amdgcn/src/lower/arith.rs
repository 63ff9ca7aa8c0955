//! Scalar arithmetic: constants, integer and float binary/unary ops, `fma`, `select`, `cmp`,
//! `cast` and `bitcast`, for every MIR scalar type, on the scalar ALU for uniform integer values
//! and on the vector ALU otherwise, with the interpreter's exact semantics.

use qd_mir::types::{ScalarType, Type};
use qd_mir::Inst;

use super::{Cls, Lower, Val};
use crate::isa::{Op, Operand};
use crate::vcode::{MInst, A};
use crate::CompileError;

/// `const`: the bits in a fresh register of the value's class.
pub(crate) fn constant(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let bits = cx.const_bits(v).ok_or_else(|| cx.unsupported(i, "a constant without bits"))?;
    let d = cx.def(v);
    let mut m = MInst::new();
    match d {
        Val::S(r) => {
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(r), A::K(Operand::imm32(bits as u32))]);
        }
        Val::V(r) => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::D(r), A::K(Operand::imm32(bits as u32))]);
        }
        Val::S64(lo, hi) => {
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(lo), A::K(Operand::imm32(bits as u32))]);
            m.step(cx.mi(Op::SMovB32, &[]), &[A::D(hi), A::K(Operand::imm32((bits >> 32) as u32))]);
        }
        Val::V64(w) => {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::K(Operand::imm32(bits as u32))]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::K(Operand::imm32((bits >> 32) as u32))]);
        }
    }
    cx.emit(m);
    Ok(())
}

/// The binary ops.
pub(crate) fn binary(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let op = cx.f.insts[i].opcode;
    let [a, b] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let ty = cx.f.value_type(a);
    let is32int = matches!(ty, Type::Scalar(ScalarType::I32 | ScalarType::U32));
    if op != qd_mir::Opcode::Add || !is32int {
        return Err(cx.unsupported(i, "no AMDGCN lowering yet"));
    }
    let v = cx.f.inst_results(i)[0];
    let (va, vb) = (cx.val(a), cx.val(b));
    let d = cx.def(v);
    match d {
        Val::S(r) => {
            let (Val::S(x), Val::S(y)) = (va, vb) else {
                return Err(cx.unsupported(i, "scalar add of vector operands"));
            };
            cx.emit1(Op::SAddU32, &[A::D(r), A::U(x), A::U(y)]);
        }
        Val::V(r) => {
            // VOP2: src1 must be a VGPR.
            let (x, y) = match (va, vb) {
                (Val::S(x), Val::V(y)) | (Val::V(y), Val::S(x)) => (A::U(x), A::U(y)),
                (Val::V(x), Val::V(y)) => (A::U(x), A::U(y)),
                (Val::S(x), Val::S(y)) => {
                    let Val::V(yv) = cx.in_vgpr(Val::S(y)) else { unreachable!() };
                    (A::U(x), A::U(yv))
                }
                _ => return Err(cx.unsupported(i, "64-bit operands of a 32-bit add")),
            };
            cx.emit1(Op::VAddU32, &[A::D(r), x, y]);
        }
        Val::S64(..) | Val::V64(_) => return Err(cx.unsupported(i, "no AMDGCN lowering yet")),
    }
    let _ = Cls::Scalar;
    Ok(())
}

macro_rules! not_yet {
    ($($name:ident),*) => {$(
        /// Not lowered yet (a clear compile error).
        pub(crate) fn $name(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
            Err(cx.unsupported(i, "no AMDGCN lowering yet"))
        }
    )*};
}
not_yet!(unary, fma, select, cmp, cast, bitcast);
