//! Memory: `shared.addr`, `ptr.offset`, loads and stores in global memory and LDS, atomics,
//! `block.sync` / `block.sync_pred` barriers, fences and `nanosleep`.
//!
//! Global pointers are 64-bit (an SGPR pair when uniform, a VGPR pair otherwise); shared pointers
//! are 32-bit LDS byte addresses. Shared arrays are laid out in the group segment by the driver
//! of the lowering (`lib.rs`), `shared.addr` is their constant offset.

use qd_mir::types::{AddrSpace, ScalarType, Type};
use qd_mir::{Imm, Inst};

use super::{Cls, Lower, Val};
use crate::isa::{Op, Operand};
use crate::vcode::{MInst, A};
use crate::CompileError;

/// Bytes of one element of `s` in memory (bool is one byte).
pub(crate) fn elem_bytes(s: ScalarType) -> u32 {
    match s {
        ScalarType::Bool => 1,
        other => other.bits() / 8,
    }
}

/// `shared.addr`: the array's LDS offset.
pub(crate) fn shared_addr(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Shared(s) = cx.f.insts[i].imm else { return Err(cx.unsupported(i, "shared.addr without an array")) };
    let off = cx.shared_offsets[s];
    let v = cx.f.inst_results(i)[0];
    let val = cx.const32(off, cx.cls_of(v));
    cx.bind(v, val);
    Ok(())
}

/// `ptr.offset %p, %i`: `p + i * sizeof(elem)`, with `i` sign- or zero-extended by its type.
pub(crate) fn ptr_offset(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [p, idx] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let Type::Ptr(space, elem) = cx.f.value_type(p) else {
        return Err(cx.unsupported(i, "ptr.offset of a non-pointer"));
    };
    let ity = cx.f.value_type(idx).scalar().ok_or_else(|| cx.unsupported(i, "a pointer index"))?;
    let k = elem_bytes(elem).trailing_zeros();
    let signed = matches!(ity, ScalarType::I32 | ScalarType::I64);
    let v = cx.f.inst_results(i)[0];
    let (vp, vi) = (cx.val(p), cx.val(idx));
    let d = cx.def(v);
    match (space, d) {
        (AddrSpace::Shared, Val::S(r)) => {
            let (Val::S(pp), Val::S(ii) | Val::S64(ii, _)) = (vp, vi) else {
                return Err(cx.unsupported(i, "a uniform shared pointer from varying operands"));
            };
            let t = cx.new_s();
            cx.emit1(Op::SLshlB32, &[A::D(t), A::U(ii), A::K(Operand::imm32(k))]);
            cx.emit1(Op::SAddU32, &[A::D(r), A::U(pp), A::U(t)]);
        }
        (AddrSpace::Shared, Val::V(r)) => {
            let ii = match vi {
                Val::S(x) | Val::V(x) | Val::S64(x, _) => A::U(x),
                Val::V64(w) => A::UL(w),
            };
            let pp = match vp {
                Val::S(x) | Val::V(x) => x,
                _ => return Err(cx.unsupported(i, "a 64-bit shared pointer")),
            };
            // v_lshl_add_u32 d, i, k, p — at most one SGPR source (GFX9 constant bus).
            let (ii, pp) = match (ii, vp) {
                (A::U(x), Val::S(_)) if x.class() == crate::vcode::SGPR => {
                    let Val::V(xv) = cx.in_vgpr(Val::S(x)) else { unreachable!() };
                    (A::U(xv), A::U(pp))
                }
                (ii, _) => (ii, A::U(pp)),
            };
            cx.emit1(Op::VLshlAddU32, &[A::D(r), ii, A::K(Operand::imm32(k)), pp]);
        }
        (AddrSpace::Global, Val::S64(dl, dh)) => {
            let (Val::S64(pl, ph), true) = (vp, vi.is_scalar()) else {
                return Err(cx.unsupported(i, "a uniform global pointer from varying operands"));
            };
            let (il, ih) = match vi {
                Val::S(x) => {
                    let h = cx.new_s();
                    if signed {
                        cx.emit1(Op::SAshrI32, &[A::D(h), A::U(x), A::K(Operand::Int(31))]);
                    } else {
                        cx.emit1(Op::SMovB32, &[A::D(h), A::K(Operand::Int(0))]);
                    }
                    (x, h)
                }
                Val::S64(l, h) => (l, h),
                _ => unreachable!(),
            };
            let (ol, oh) = (cx.new_s(), cx.new_s());
            cx.emit1(Op::SLshlB64, &[A::SPairDef(ol, oh), A::SPair(il, ih), A::K(Operand::imm32(k))]);
            let mut m = MInst::one(cx.mi(Op::SAddU32, &[]), &[A::D(dl), A::U(pl), A::U(ol)]);
            m.step(cx.mi(Op::SAddcU32, &[]), &[A::D(dh), A::U(ph), A::U(oh)]);
            cx.emit(m);
        }
        (AddrSpace::Global, Val::V64(dw)) => {
            // off = sext/zext(i) << k, as a VGPR pair.
            let w = cx.new_w();
            let mut m = MInst::new();
            match vi {
                Val::S(x) | Val::V(x) => {
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::U(x)]);
                    if signed {
                        m.step(cx.mi(Op::VAshrrevI32, &[]), &[A::DH(w), A::K(Operand::Int(31)), A::U(x)]);
                    } else {
                        m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::K(Operand::Int(0))]);
                    }
                }
                Val::S64(l, h) => {
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::U(l)]);
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::U(h)]);
                }
                Val::V64(x) => {
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::UL(x)]);
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::UH(x)]);
                }
            }
            cx.emit(m);
            let off = if k > 0 {
                let o = cx.new_w();
                cx.emit1(Op::VLshlrevB64, &[A::D(o), A::K(Operand::imm32(k)), A::U(w)]);
                o
            } else {
                w
            };
            let Val::V64(pw) = cx.in_vgpr(vp) else { return Err(cx.unsupported(i, "a 32-bit global pointer")) };
            let vcc = A::K(cx.vcc());
            let mut m = MInst::one(cx.mi(Op::VAddCoU32, &[]), &[A::DL(dw), vcc, A::UL(pw), A::UL(off)]);
            m.step(cx.mi(Op::VAddcCoU32, &[]), &[A::DH(dw), vcc, A::UH(pw), A::UH(off), vcc]);
            cx.emit(m);
        }
        _ => return Err(cx.unsupported(i, "a pointer of an unexpected register form")),
    }
    let _ = Cls::Vector;
    Ok(())
}

/// `load`.
pub(crate) fn load(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let p = cx.f.args(i)[0];
    let Type::Ptr(space, elem) = cx.f.value_type(p) else {
        return Err(cx.unsupported(i, "load through a non-pointer"));
    };
    let v = cx.f.inst_results(i)[0];
    let addr = cx.val(p);
    let val = cx.fresh(cx.f.value_type(v), Cls::Vector);
    let (op, dst) = match (space, elem, val) {
        (AddrSpace::Global, ScalarType::Bool, Val::V(d)) => (Op::GlobalLoadUbyte, A::D(d)),
        (AddrSpace::Global, _, Val::V(d)) => (Op::GlobalLoadDword, A::D(d)),
        (AddrSpace::Global, _, Val::V64(d)) => (Op::GlobalLoadDwordx2, A::D(d)),
        (AddrSpace::Shared, ScalarType::Bool, _) => return Err(cx.unsupported(i, "no AMDGCN lowering yet")),
        (AddrSpace::Shared, _, Val::V(d)) => (Op::DsReadB32, A::D(d)),
        (AddrSpace::Shared, _, Val::V64(d)) => (Op::DsReadB64, A::D(d)),
        _ => return Err(cx.unsupported(i, "a load of an unexpected register form")),
    };
    let a = cx.in_vgpr(addr);
    let a = match a {
        Val::V(x) | Val::V64(x) => A::U(x),
        _ => unreachable!(),
    };
    let t = cx.mi(op, &[]);
    let args: Vec<A> = match space {
        AddrSpace::Global => vec![dst, a, A::K(Operand::None)],
        AddrSpace::Shared => vec![dst, a],
    };
    cx.emit(MInst::one(t, &args));
    cx.bind(v, val);
    Ok(())
}

/// `store`.
pub(crate) fn store(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [p, x] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let Type::Ptr(space, elem) = cx.f.value_type(p) else {
        return Err(cx.unsupported(i, "store through a non-pointer"));
    };
    let data = cx.val(x);
    let data = cx.in_vgpr(data);
    let addr = cx.val(p);
    let a = match cx.in_vgpr(addr) {
        Val::V(r) | Val::V64(r) => A::U(r),
        _ => unreachable!(),
    };
    let (op, dv) = match (space, elem, data) {
        (AddrSpace::Global, ScalarType::Bool, Val::V(d)) => (Op::GlobalStoreByte, d),
        (AddrSpace::Global, _, Val::V(d)) => (Op::GlobalStoreDword, d),
        (AddrSpace::Global, _, Val::V64(d)) => (Op::GlobalStoreDwordx2, d),
        (AddrSpace::Shared, ScalarType::Bool, _) => return Err(cx.unsupported(i, "no AMDGCN lowering yet")),
        (AddrSpace::Shared, _, Val::V(d)) => (Op::DsWriteB32, d),
        (AddrSpace::Shared, _, Val::V64(d)) => (Op::DsWriteB64, d),
        _ => return Err(cx.unsupported(i, "a store of an unexpected register form")),
    };
    let t = cx.mi(op, &[]);
    let args: Vec<A> = match space {
        AddrSpace::Global => vec![a, A::U(dv), A::K(Operand::None)],
        AddrSpace::Shared => vec![a, A::U(dv)],
    };
    cx.emit(MInst::one(t, &args));
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
not_yet!(atomic_rmw, atomic_cas, fence, block_sync, block_sync_pred, nanosleep);
