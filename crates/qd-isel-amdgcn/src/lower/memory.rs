//! Memory: `shared.addr`, `ptr.offset`, loads and stores in global memory and LDS, atomics,
//! `block.sync` / `block.sync_pred` barriers, fences and `nanosleep`.
//!
//! Global pointers are 64-bit (an SGPR pair when uniform, a VGPR pair otherwise); shared pointers
//! are 32-bit LDS byte addresses. Shared arrays are laid out in the group segment by the driver
//! of the lowering (`lib.rs`), `shared.addr` is their constant offset.
//!
//! - A uniform global pointer is used in the `saddr` form (`global_load_dword v, vzero, s[..]`)
//!   instead of being copied into a VGPR pair.
//! - `bool` is one byte in memory; a loaded byte is turned into 0/1 (`min(byte, 1)`), as the
//!   interpreter reads any non-zero byte as `true`.
//! - Atomics always use the returning form. Relaxed device-scope atomics on global memory need no
//!   cache bits beyond "return" (GLC on gfx90a/gfx1100, SC0 on gfx942, which the encoder derives),
//!   as LLVM 19 emits for `syncscope("agent") monotonic`. `add` on f32 in global memory is native
//!   only on gfx942; gfx90a and gfx1100 get a compare-and-swap loop (as LLVM emits: their global
//!   f32 atomics do not honour the IEEE denormal mode). 64-bit `atomic.cas` in global memory takes
//!   its new and expected values in four consecutive VGPRs (`global_atomic_cmpswap_x2`): they are
//!   copied into the fixed VGPR quad `v[6:9]` inside the instruction (`A::Quad`).
//! - Fences follow LLVM's AMDGPU memory-model sequences for `acq_rel` fences: `subgroup` (LLVM's
//!   wavefront scope) needs nothing; `block` waits for LDS (GFX9; all waves of a workgroup share
//!   one CU and its in-order vector memory path) or, on GFX11 (WGP mode), for everything and
//!   invalidates GL0; `device` waits for everything and writes back / invalidates the caches
//!   (gfx90a `buffer_wbinvl1_vol`; gfx942 `buffer_wbl2 sc1` + `buffer_inv sc1`; gfx1100
//!   `buffer_gl1_inv` + `buffer_gl0_inv`).
//! - `block.sync` is `s_barrier`, before which the wait pass (`waitcnt.rs`) finishes every
//!   outstanding memory operation of the wave, LDS and global stores included, and after which
//!   GFX11 invalidates its GL0 cache: shared and global writes before it are visible to the whole
//!   block after it.
//! - `block.sync_pred` combines the predicate through one reserved LDS word, zeroed (and fenced by
//!   a barrier) at kernel entry: every lane atomically adds its contribution, a barrier, every
//!   lane reads the total, a second barrier (no lane may change the word before all have read it),
//!   and every lane subtracts its contribution again, so the word is back to zero for the next
//!   `block.sync_pred` (the subtractions commute with a next use's additions, and the wait pass
//!   completes them before that use's barrier).
//! - `nanosleep` is `s_sleep N` (about 64·N clocks, taken as 32·N ns at 2 GHz), N rounded up
//!   from a constant duration and clamped to the 7-bit field; a duration known only at run time
//!   sleeps the shortest step (`s_sleep 1`), as the instruction takes only an immediate.

use qd_mir::ops::{AtomicOp, PredOp, Scope};
use qd_mir::types::{AddrSpace, ScalarType, Type};
use qd_mir::{Imm, Inst, Value};
use regalloc2::VReg;

use super::{Cls, Lower, Val};
use crate::vcode::{MInst, Term, A};
use qd_amdgcn_isa::{Arch, Family};
use qd_amdgcn_isa::{Cache, Op, Operand, Waitcnt};
use qd_mir::CompileError;

/// Bytes of one element of `s` in memory (bool is one byte).
pub(crate) fn elem_bytes(s: ScalarType) -> u32 {
    s.bytes()
}

// ----- operand helpers -----------------------------------------------------------------------

/// A 32-bit value as a VGPR (an SGPR value is copied).
fn vgpr32(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_vgpr(val) {
        Val::V(v) => Ok(v),
        Val::V64(_) | Val::S64(..) | Val::S(_) => Err(cx.internal(i, "a 64-bit value where 32 bits were expected")),
    }
}

/// A 64-bit value as a VGPR pair (an SGPR pair is copied).
fn vgpr64(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_vgpr(val) {
        Val::V64(w) => Ok(w),
        Val::V(_) | Val::S64(..) | Val::S(_) => Err(cx.internal(i, "a 32-bit value where 64 bits were expected")),
    }
}

/// A 32-bit uniform value as an SGPR (read from the first active lane when in a VGPR).
fn sgpr32(cx: &mut Lower<'_>, i: Inst, val: Val) -> Result<VReg, CompileError> {
    match cx.in_sgpr(val) {
        Val::S(s) => Ok(s),
        Val::S64(..) | Val::V(_) | Val::V64(_) => Err(cx.internal(i, "a 64-bit value where 32 bits were expected")),
    }
}

/// Records `val` (registers in VGPRs) as MIR value `v`, in SGPRs when the value's class is scalar
/// (it is then the same on every active lane).
fn finish(cx: &mut Lower<'_>, v: Value, val: Val) {
    let val = if cx.cls_of(v) == Cls::Scalar && !val.is_scalar() { cx.in_sgpr(val) } else { val };
    cx.bind(v, val);
}

/// The `vaddr` and `saddr` slots of a global access through pointer `p`: a VGPR pair with `off`,
/// or (uniform pointer) a zero VGPR offset with the SGPR pair as `saddr`.
fn global_addr(cx: &mut Lower<'_>, i: Inst, p: Val) -> Result<(A, A), CompileError> {
    match p {
        Val::V64(w) => Ok((A::U(w), A::K(Operand::None))),
        Val::S64(lo, hi) => {
            let z = cx.new_v();
            cx.emit1(Op::VMovB32, &[A::D(z), A::K(Operand::Int(0))]);
            Ok((A::U(z), A::SPair(lo, hi)))
        }
        Val::S(_) | Val::V(_) => Err(cx.internal(i, "a 32-bit global pointer")),
    }
}

/// The element type and space of a pointer operand.
fn pointee(cx: &Lower<'_>, i: Inst, p: Value) -> Result<(AddrSpace, ScalarType), CompileError> {
    match cx.f.value_type(p) {
        Type::Ptr(space, elem) => Ok((space, elem)),
        Type::Scalar(_) => Err(cx.internal(i, "a memory access through a non-pointer")),
    }
}

/// The ISA op for `arch`, or a compile error naming what is missing.
fn need(cx: &Lower<'_>, i: Inst, op: Op) -> Result<Op, CompileError> {
    if op.available(cx.target.arch) {
        Ok(op)
    } else {
        // The atomic tables pick per architecture: an op the architecture lacks is a table defect.
        Err(cx.internal(i, format!("`{}` is not available on {}", op.name(cx.target.arch), cx.target.arch)))
    }
}

// ----- addresses -----------------------------------------------------------------------------

/// `shared.addr`: the array's LDS offset.
pub(crate) fn shared_addr(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Shared(s) = cx.f.insts[i].imm else { return Err(cx.internal(i, "shared.addr without an array")) };
    let off = cx.shared_offsets[s];
    let v = cx.f.inst_results(i)[0];
    let val = cx.const32(off, cx.cls_of(v));
    cx.bind(v, val);
    Ok(())
}

/// `ptr.offset %p, %i`: `p + i * sizeof(elem)`, with `i` sign- (`i32`, `i64`) or zero-extended
/// (`u32`, `u64`) to the pointer width; shared pointers wrap at 32 bits (only the low half of a
/// 64-bit index matters).
pub(crate) fn ptr_offset(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [p, idx] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let (space, elem) = pointee(cx, i, p)?;
    let ity = cx.f.value_type(idx).scalar().ok_or_else(|| cx.internal(i, "a pointer index"))?;
    let k = elem_bytes(elem).trailing_zeros();
    let signed = ity.is_signed();
    let v = cx.f.inst_results(i)[0];
    let (vp, vi) = (cx.val(p), cx.val(idx));
    let d = cx.def(v);
    match (space, d) {
        (AddrSpace::Shared, Val::S(r)) => {
            let pp = sgpr32(cx, i, vp)?;
            let ii = match cx.in_sgpr(vi) {
                Val::S(x) | Val::S64(x, _) => x,
                Val::V(_) | Val::V64(_) => unreachable!("in_sgpr gives SGPRs"),
            };
            if k == 0 {
                cx.emit1(Op::SAddU32, &[A::D(r), A::U(pp), A::U(ii)]);
            } else {
                let t = cx.new_s();
                cx.emit1(Op::SLshlB32, &[A::D(t), A::U(ii), A::K(Operand::imm32(k))]);
                cx.emit1(Op::SAddU32, &[A::D(r), A::U(pp), A::U(t)]);
            }
        }
        (AddrSpace::Shared, Val::V(r)) => {
            // v_lshl_add_u32 r, i, k, p: the index in a VGPR, the pointer may be the one scalar
            // source (k is an inline constant).
            let ii = match vi {
                Val::V(x) => A::U(x),
                Val::V64(w) => A::UL(w),
                Val::S(x) | Val::S64(x, _) => A::U(vgpr32(cx, i, Val::S(x))?),
            };
            let pp = match vp {
                Val::S(x) | Val::V(x) => A::U(x),
                Val::S64(..) | Val::V64(_) => return Err(cx.internal(i, "a 64-bit shared pointer")),
            };
            cx.emit1(Op::VLshlAddU32, &[A::D(r), ii, A::K(Operand::imm32(k)), pp]);
        }
        (AddrSpace::Global, Val::S64(dl, dh)) => {
            let (pl, ph) = match cx.in_sgpr(vp) {
                Val::S64(l, h) => (l, h),
                Val::S(_) | Val::V(_) | Val::V64(_) => return Err(cx.internal(i, "a 32-bit global pointer")),
            };
            let (il, ih) = match cx.in_sgpr(vi) {
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
                Val::V(_) | Val::V64(_) => unreachable!("in_sgpr gives SGPRs"),
            };
            let (ol, oh) = if k == 0 {
                (il, ih)
            } else {
                let (ol, oh) = (cx.new_s(), cx.new_s());
                cx.emit1(Op::SLshlB64, &[A::SPairDef(ol, oh), A::SPair(il, ih), A::K(Operand::imm32(k))]);
                (ol, oh)
            };
            // The carry lives in SCC: add and add-with-carry are one instruction.
            let mut m = MInst::one(cx.mi(Op::SAddU32, &[]), &[A::D(dl), A::U(pl), A::U(ol)]);
            m.step(cx.mi(Op::SAddcU32, &[]), &[A::D(dh), A::U(ph), A::U(oh)]);
            cx.emit(m);
        }
        (AddrSpace::Global, Val::V64(dw)) => {
            // off = sext/zext(i) << k, as a VGPR pair.
            let w = cx.new_w();
            match vi {
                Val::S(_) | Val::V(_) => {
                    let x = vgpr32(cx, i, vi)?;
                    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::U(x)]);
                    if signed {
                        m.step(cx.mi(Op::VAshrrevI32, &[]), &[A::DH(w), A::K(Operand::Int(31)), A::U(x)]);
                    } else {
                        m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::K(Operand::Int(0))]);
                    }
                    cx.emit(m);
                }
                Val::S64(l, h) => {
                    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::U(l)]);
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::U(h)]);
                    cx.emit(m);
                }
                Val::V64(x) => {
                    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(w), A::UL(x)]);
                    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(w), A::UH(x)]);
                    cx.emit(m);
                }
            }
            let off = if k > 0 {
                let o = cx.new_w();
                cx.emit1(Op::VLshlrevB64, &[A::D(o), A::K(Operand::imm32(k)), A::U(w)]);
                o
            } else {
                w
            };
            let vcc = A::K(cx.vcc());
            let m = match vp {
                Val::V64(pw) => {
                    let mut m = MInst::one(cx.mi(Op::VAddCoU32, &[]), &[A::DL(dw), vcc, A::UL(pw), A::UL(off)]);
                    m.step(cx.mi(Op::VAddcCoU32, &[]), &[A::DH(dw), vcc, A::UH(pw), A::UH(off), vcc]);
                    m
                }
                Val::S64(pl, ph) => {
                    // The low half may read the SGPR directly; the carry-in already uses the one
                    // GFX9 scalar source of the high half, so its pointer half goes to a VGPR.
                    let t = cx.new_v();
                    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::T(t), A::U(ph)]);
                    m.step(cx.mi(Op::VAddCoU32, &[]), &[A::DL(dw), vcc, A::U(pl), A::UL(off)]);
                    m.step(cx.mi(Op::VAddcCoU32, &[]), &[A::DH(dw), vcc, A::U(t), A::UH(off), vcc]);
                    m
                }
                Val::S(_) | Val::V(_) => return Err(cx.internal(i, "a 32-bit global pointer")),
            };
            cx.emit(m);
        }
        (AddrSpace::Shared, Val::S64(..) | Val::V64(_)) | (AddrSpace::Global, Val::S(_) | Val::V(_)) => {
            return Err(cx.internal(i, "a pointer of an unexpected register form"))
        }
    }
    Ok(())
}

// ----- loads and stores ----------------------------------------------------------------------

/// `load`.
pub(crate) fn load(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let p = cx.f.args(i)[0];
    let (space, elem) = pointee(cx, i, p)?;
    let v = cx.f.inst_results(i)[0];
    let addr = cx.val(p);
    let wide = elem_bytes(elem) == 8;
    let (dst, val) = if wide {
        let w = cx.new_w();
        (w, Val::V64(w))
    } else {
        let r = cx.new_v();
        (r, Val::V(r))
    };
    match space {
        AddrSpace::Global => {
            let op = match elem_bytes(elem) {
                1 => Op::GlobalLoadUbyte,
                4 => Op::GlobalLoadDword,
                _ => Op::GlobalLoadDwordx2,
            };
            let (va, sa) = global_addr(cx, i, addr)?;
            cx.emit1(op, &[A::D(dst), va, sa]);
        }
        AddrSpace::Shared => {
            let op = match elem_bytes(elem) {
                1 => Op::DsReadU8,
                4 => Op::DsReadB32,
                _ => Op::DsReadB64,
            };
            let a = vgpr32(cx, i, addr)?;
            cx.emit1(op, &[A::D(dst), A::U(a)]);
        }
    }
    let val = if elem == ScalarType::Bool {
        // Any non-zero byte is `true`: min(byte, 1).
        let b = cx.new_v();
        cx.emit1(Op::VMinU32, &[A::D(b), A::K(Operand::Int(1)), A::U(dst)]);
        Val::V(b)
    } else {
        val
    };
    finish(cx, v, val);
    Ok(())
}

/// `store`.
pub(crate) fn store(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [p, x] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let (space, elem) = pointee(cx, i, p)?;
    let data = cx.val(x);
    let dv = if elem_bytes(elem) == 8 { vgpr64(cx, i, data)? } else { vgpr32(cx, i, data)? };
    let addr = cx.val(p);
    match space {
        AddrSpace::Global => {
            let op = match elem_bytes(elem) {
                1 => Op::GlobalStoreByte,
                4 => Op::GlobalStoreDword,
                _ => Op::GlobalStoreDwordx2,
            };
            let (va, sa) = global_addr(cx, i, addr)?;
            cx.emit1(op, &[va, A::U(dv), sa]);
        }
        AddrSpace::Shared => {
            let op = match elem_bytes(elem) {
                1 => Op::DsWriteB8,
                4 => Op::DsWriteB32,
                _ => Op::DsWriteB64,
            };
            let a = vgpr32(cx, i, addr)?;
            cx.emit1(op, &[A::U(a), A::U(dv)]);
        }
    }
    Ok(())
}

// ----- atomics -------------------------------------------------------------------------------

/// The returning global atomic for `op` on `ty`, `None` where the table has none.
fn global_rmw_op(op: AtomicOp, ty: ScalarType, arch: Arch) -> Option<Op> {
    use ScalarType as T;
    let wide = ty.bytes() == 8;
    let r = match op {
        AtomicOp::Add => match ty {
            T::I32 | T::U32 => Op::GlobalAtomicAdd,
            T::I64 | T::U64 => Op::GlobalAtomicAddX2,
            // Only gfx942's global f32 add honours the IEEE denormal mode (LLVM 19 uses it there
            // and a compare-and-swap loop elsewhere, as `atomic_rmw` does).
            T::F32 if arch == Arch::Gfx942 => Op::GlobalAtomicAddF32,
            T::F32 | T::F64 | T::Bool => return None,
        },
        AtomicOp::Min => match ty {
            T::I32 => Op::GlobalAtomicSmin,
            T::U32 => Op::GlobalAtomicUmin,
            T::I64 => Op::GlobalAtomicSminX2,
            T::U64 => Op::GlobalAtomicUminX2,
            T::F32 | T::F64 | T::Bool => return None,
        },
        AtomicOp::Max => match ty {
            T::I32 => Op::GlobalAtomicSmax,
            T::U32 => Op::GlobalAtomicUmax,
            T::I64 => Op::GlobalAtomicSmaxX2,
            T::U64 => Op::GlobalAtomicUmaxX2,
            T::F32 | T::F64 | T::Bool => return None,
        },
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor if !ty.is_int() => return None,
        AtomicOp::And if wide => Op::GlobalAtomicAndX2,
        AtomicOp::And => Op::GlobalAtomicAnd,
        AtomicOp::Or if wide => Op::GlobalAtomicOrX2,
        AtomicOp::Or => Op::GlobalAtomicOr,
        AtomicOp::Xor if wide => Op::GlobalAtomicXorX2,
        AtomicOp::Xor => Op::GlobalAtomicXor,
        AtomicOp::Exch if ty == T::Bool => return None,
        AtomicOp::Exch if wide => Op::GlobalAtomicSwapX2,
        AtomicOp::Exch => Op::GlobalAtomicSwap,
    };
    Some(r)
}

/// The returning LDS atomic for `op` on `ty`, `None` where the table has none.
fn ds_rmw_op(op: AtomicOp, ty: ScalarType) -> Option<Op> {
    use ScalarType as T;
    if ty == T::Bool || (ty.is_float() && !matches!(op, AtomicOp::Exch | AtomicOp::Add)) {
        return None;
    }
    let wide = ty.bytes() == 8;
    let r = match op {
        AtomicOp::Add => match ty {
            T::F32 => Op::DsAddRtnF32,
            T::I32 | T::U32 => Op::DsAddRtnU32,
            T::I64 | T::U64 => Op::DsAddRtnU64,
            T::F64 | T::Bool => return None,
        },
        AtomicOp::Min => match (wide, ty.is_signed()) {
            (false, true) => Op::DsMinRtnI32,
            (false, false) => Op::DsMinRtnU32,
            (true, true) => Op::DsMinRtnI64,
            (true, false) => Op::DsMinRtnU64,
        },
        AtomicOp::Max => match (wide, ty.is_signed()) {
            (false, true) => Op::DsMaxRtnI32,
            (false, false) => Op::DsMaxRtnU32,
            (true, true) => Op::DsMaxRtnI64,
            (true, false) => Op::DsMaxRtnU64,
        },
        AtomicOp::And if wide => Op::DsAndRtnB64,
        AtomicOp::And => Op::DsAndRtnB32,
        AtomicOp::Or if wide => Op::DsOrRtnB64,
        AtomicOp::Or => Op::DsOrRtnB32,
        AtomicOp::Xor if wide => Op::DsXorRtnB64,
        AtomicOp::Xor => Op::DsXorRtnB32,
        AtomicOp::Exch if wide => Op::DsWrxchgRtnB64,
        AtomicOp::Exch => Op::DsWrxchgRtnB32,
    };
    Some(r)
}

/// The value registers of an atomic's result type.
fn atomic_dst(cx: &mut Lower<'_>, ty: ScalarType) -> (VReg, Val) {
    if ty.bytes() == 8 {
        let w = cx.new_w();
        (w, Val::V64(w))
    } else {
        let r = cx.new_v();
        (r, Val::V(r))
    }
}

/// `atomic.rmw OP SCOPE %p, %v`: the returning hardware atomic. Every scope gets the same
/// instruction: relaxed atomics at block and device scope need no cache bits beyond "return".
pub(crate) fn atomic_rmw(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Atomic(aop, _scope) = cx.f.insts[i].imm else {
        return Err(cx.internal(i, "atomic.rmw without an operation"));
    };
    let [p, x] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let (space, ty) = pointee(cx, i, p)?;
    let v = cx.f.inst_results(i)[0];
    let arch = cx.target.arch;
    let op = match space {
        AddrSpace::Global => global_rmw_op(aop, ty, arch),
        AddrSpace::Shared => ds_rmw_op(aop, ty),
    };
    if op.is_none() && space == AddrSpace::Global && aop == AtomicOp::Add && ty == ScalarType::F32 {
        let xv = cx.val(x);
        let xv = vgpr32(cx, i, xv)?;
        let addr = cx.val(p);
        let old = cas_loop_global32(cx, i, addr, |cx, old| {
            // old + x, in the interpreter's operand order (NaN propagation).
            let n = cx.new_v();
            cx.emit1(Op::VAddF32, &[A::D(n), A::U(old), A::U(xv)]);
            n
        })?;
        finish(cx, v, Val::V(old));
        return Ok(());
    }
    let Some(op) = op else {
        let space = match space {
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
        };
        // Every (operation, type, space) the verifier admits has a sequence on every architecture.
        return Err(
            cx.internal(i, format!("atomic {} on {ty} in {space} memory has no {arch} instruction", aop.name()))
        );
    };
    let op = need(cx, i, op)?;
    let data = cx.val(x);
    let dv = if ty.bytes() == 8 { vgpr64(cx, i, data)? } else { vgpr32(cx, i, data)? };
    let addr = cx.val(p);
    let (dst, val) = atomic_dst(cx, ty);
    match space {
        AddrSpace::Global => {
            let (va, sa) = global_addr(cx, i, addr)?;
            cx.emit1(op, &[A::D(dst), va, A::U(dv), sa]);
        }
        AddrSpace::Shared => {
            let a = vgpr32(cx, i, addr)?;
            cx.emit1(op, &[A::D(dst), A::U(a), A::U(dv)]);
        }
    }
    finish(cx, v, val);
    Ok(())
}

/// A compare-and-swap loop on a 32-bit global word: each lane retries `new = f(old)` with
/// `global_atomic_cmpswap` until its swap succeeds, and gets the value it replaced. A divergent
/// loop of its own: EXEC is saved, every iteration turns off the lanes whose swap succeeded
/// (`s_andn2 exec, exec, vcc`), and the exit restores it. The loop-carried expected value is a
/// block parameter; the cmpswap result is tied to it, so a lane that has left keeps its result
/// through later iterations (allocator moves in the divergent loop block are whole-wave).
fn cas_loop_global32(
    cx: &mut Lower<'_>,
    i: Inst,
    addr: Val,
    f: impl FnOnce(&mut Lower<'_>, VReg) -> VReg,
) -> Result<VReg, CompileError> {
    let (va, sa) = global_addr(cx, i, addr)?;
    let old0 = cx.new_v();
    cx.emit1(Op::GlobalLoadDword, &[A::D(old0), va, sa]);
    let exec = A::K(cx.exec());
    let vcc = A::K(cx.vcc());
    let (mov, andn2) = if cx.wave64() { (Op::SMovB64, Op::SAndn2B64) } else { (Op::SMovB32, Op::SAndn2B32) };
    let (saved, saved_use) = if cx.wave64() {
        let (l, h) = (cx.new_s(), cx.new_s());
        (A::SPairDef(l, h), A::SPair(l, h))
    } else {
        let s = cx.new_s();
        (A::D(s), A::U(s))
    };
    cx.emit1(mov, &[saved, exec]);
    let lp = cx.vcode.new_block("cas.loop", true);
    // The exit starts with EXEC empty (every lane's swap succeeded) until the restore: an
    // allocator move there must be whole-wave, so the block is divergent, and the code after the
    // loop continues in a block of the enclosing region's kind.
    let exit = cx.vcode.new_block("cas.exit", true);
    let after = cx.vcode.new_block("cas.after", cx.cf.partial);
    let mut j = MInst::new();
    j.term = Term::Jump(lp);
    j.succ_args = vec![vec![old0]];
    cx.emit(j);

    super::control::switch_to(cx, lp);
    let old = cx.new_v();
    cx.vcode.blocks[lp.index()].params = vec![old];
    let new = f(cx, old);
    let data = cx.new_w();
    let mut m = MInst::one(cx.mi(Op::VMovB32, &[]), &[A::DL(data), A::U(new)]);
    m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(data), A::U(old)]);
    cx.emit(m);
    let ret = cx.new_v();
    cx.emit1(Op::GlobalAtomicCmpswap, &[A::Tied { def: ret, old }, va, A::U(data), sa]);
    let mut m = MInst::one(cx.mi(Op::VCmpEqU32, &[]), &[vcc, A::U(ret), A::UH(data)]);
    m.step(cx.mi(andn2, &[]), &[exec, exec, vcc]);
    m.step(cx.mi(Op::SCbranchExecnz, &[]), &[]);
    m.term = Term::Branch { taken: lp, not_taken: exit };
    m.succ_args = vec![vec![ret], vec![]];
    cx.emit(m);

    super::control::switch_to(cx, exit);
    cx.emit1(mov, &[exec, saved_use]);
    let mut j = MInst::new();
    j.term = Term::Jump(after);
    j.succ_args = vec![vec![]];
    cx.emit(j);
    super::control::switch_to(cx, after);
    Ok(ret)
}

/// `atomic.cas SCOPE %p, %expected, %new`: `global_atomic_cmpswap` (data = new, then expected)
/// or `ds_cmpst_rtn_b32/b64` (GFX9 compares with data0 and stores data1; GFX11's
/// `ds_cmpstore_rtn_b32/b64` stores data0 and compares with data1).
pub(crate) fn atomic_cas(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [p, e, n] = [cx.f.args(i)[0], cx.f.args(i)[1], cx.f.args(i)[2]];
    let (space, ty) = pointee(cx, i, p)?;
    let v = cx.f.inst_results(i)[0];
    let wide = ty.bytes() == 8;
    let (ve, vn) = (cx.val(e), cx.val(n));
    let addr = cx.val(p);
    let (dst, val) = atomic_dst(cx, ty);
    match space {
        AddrSpace::Global if wide => {
            // The data is four consecutive VGPRs (new value, then expected): the fixed quad.
            let halves = |v: Val| match v {
                Val::S64(l, h) => Some((A::U(l), A::U(h))),
                Val::V64(w) => Some((A::UL(w), A::UH(w))),
                Val::S(_) | Val::V(_) => None,
            };
            let (Some((nl, nh)), Some((el, eh))) = (halves(vn), halves(ve)) else {
                return Err(cx.internal(i, "a 32-bit operand of a 64-bit cas"));
            };
            let (va, sa) = global_addr(cx, i, addr)?;
            let mut m = MInst::new();
            for (k, src) in [nl, nh, el, eh].into_iter().enumerate() {
                m.step(cx.mi(Op::VMovB32, &[]), &[A::Quad(k as u8), src]);
            }
            m.step(cx.mi(Op::GlobalAtomicCmpswapX2, &[]), &[A::D(dst), va, A::QuadAll, sa]);
            cx.emit(m);
        }
        AddrSpace::Global => {
            let pair = cx.new_w();
            let mut m = MInst::new();
            for (half, src) in [(A::DL(pair), vn), (A::DH(pair), ve)] {
                let s = match src {
                    Val::S(r) | Val::V(r) => r,
                    Val::S64(..) | Val::V64(_) => return Err(cx.internal(i, "a 64-bit operand of a 32-bit cas")),
                };
                m.step(cx.mi(Op::VMovB32, &[]), &[half, A::U(s)]);
            }
            cx.emit(m);
            let (va, sa) = global_addr(cx, i, addr)?;
            cx.emit1(Op::GlobalAtomicCmpswap, &[A::D(dst), va, A::U(pair), sa]);
        }
        AddrSpace::Shared => {
            let (ev, nv) =
                if wide { (vgpr64(cx, i, ve)?, vgpr64(cx, i, vn)?) } else { (vgpr32(cx, i, ve)?, vgpr32(cx, i, vn)?) };
            let (d0, d1) = match cx.target.family() {
                Family::Gfx9 => (ev, nv),
                Family::Gfx11 => (nv, ev),
            };
            let a = vgpr32(cx, i, addr)?;
            let op = if wide { Op::DsCmpstRtnB64 } else { Op::DsCmpstRtnB32 };
            cx.emit1(op, &[A::D(dst), A::U(a), A::U(d0), A::U(d1)]);
        }
    }
    finish(cx, v, val);
    Ok(())
}

// ----- fences and barriers -------------------------------------------------------------------

/// `s_waitcnt` with the given counters at zero (the others not waited for).
fn wait(cx: &mut Lower<'_>, vm: bool, lgkm: bool) {
    let family = cx.target.family();
    let mut w = Waitcnt::none(family);
    if vm {
        w.vm = 0;
    }
    if lgkm {
        w.lgkm = 0;
    }
    let t = cx.mi(Op::SWaitcnt, &[]).imm(i32::from(w.encode(family)));
    cx.emit(MInst::one(t, &[]));
}

/// GFX11: `s_waitcnt_vscnt null, 0` (all stores done).
fn wait_stores(cx: &mut Lower<'_>) {
    let t = cx.mi(Op::SWaitcntVscnt, &[Operand::Null]).imm(0);
    cx.emit(MInst::one(t, &[]));
}

fn cache_op(cx: &mut Lower<'_>, op: Op, cache: Cache) {
    let t = cx.mi(op, &[]).cache(cache);
    cx.emit(MInst::one(t, &[]));
}

/// `fence SCOPE` (an `acq_rel` fence at that scope; see the module doc).
pub(crate) fn fence(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Scope(scope) = cx.f.insts[i].imm else { return Err(cx.internal(i, "fence without a scope")) };
    let sc1 = Cache { sc1: true, ..Cache::default() };
    match (scope, cx.target.arch) {
        (Scope::Subgroup, _) => {}
        (Scope::Block, Arch::Gfx90a | Arch::Gfx942) => wait(cx, false, true),
        (Scope::Block, Arch::Gfx1100) => {
            wait(cx, true, true);
            wait_stores(cx);
            cache_op(cx, Op::BufferGl0Inv, Cache::default());
        }
        (Scope::Device, Arch::Gfx90a) => {
            wait(cx, true, true);
            cache_op(cx, Op::BufferWbinvl1Vol, Cache::default());
        }
        (Scope::Device, Arch::Gfx942) => {
            cache_op(cx, Op::BufferWbl2, sc1);
            wait(cx, true, true);
            cache_op(cx, Op::BufferInv, sc1);
        }
        (Scope::Device, Arch::Gfx1100) => {
            wait(cx, true, true);
            wait_stores(cx);
            cache_op(cx, Op::BufferGl1Inv, Cache::default());
            cache_op(cx, Op::BufferGl0Inv, Cache::default());
        }
    }
    Ok(())
}

/// `s_barrier` and, on GFX11, the GL0 invalidate that makes other waves' global writes visible
/// (the wait pass finishes this wave's memory operations before the barrier).
fn barrier(cx: &mut Lower<'_>) {
    cx.emit1(Op::SBarrier, &[]);
    if cx.target.family() == Family::Gfx11 {
        cache_op(cx, Op::BufferGl0Inv, Cache::default());
    }
}

/// `block.sync`.
pub(crate) fn block_sync(cx: &mut Lower<'_>, _i: Inst) -> Result<(), CompileError> {
    barrier(cx);
    Ok(())
}

/// The LDS byte offset of the `block.sync_pred` word, reserved after the shared arrays when the
/// kernel has a `block.sync_pred` (lib.rs) and zeroed with them at entry ([`zero_shared`]).
fn sync_pred_word(cx: &mut Lower<'_>, i: Inst) -> Result<u32, CompileError> {
    cx.sync_pred_word.ok_or_else(|| cx.internal(i, "no LDS word was reserved for block.sync_pred"))
}

/// `block.sync_pred and|or|count %p` (see the module doc). `and` counts the lanes where the
/// predicate is false, `or` and `count` those where it is true.
pub(crate) fn block_sync_pred(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Pred(pop) = cx.f.insts[i].imm else { return Err(cx.internal(i, "block.sync_pred without a combiner")) };
    let p = cx.f.args(i)[0];
    let v = cx.f.inst_results(i)[0];
    let word = sync_pred_word(cx, i)? as i32;
    let pv = cx.val(p);
    let pred = vgpr32(cx, i, pv)?;
    let x = match pop {
        PredOp::And => {
            let t = cx.new_v();
            cx.emit1(Op::VXorB32, &[A::D(t), A::K(Operand::Int(1)), A::U(pred)]);
            t
        }
        PredOp::Or | PredOp::Count => pred,
    };
    let a = cx.new_v();
    cx.emit1(Op::VMovB32, &[A::D(a), A::K(Operand::Int(0))]);
    let t = cx.mi(Op::DsAddU32, &[]).imm(word);
    cx.emit(MInst::one(t, &[A::U(a), A::U(x)]));
    barrier(cx);
    let c = cx.new_v();
    let t = cx.mi(Op::DsReadB32, &[]).imm(word);
    cx.emit(MInst::one(t, &[A::D(c), A::U(a)]));
    cx.emit1(Op::SBarrier, &[]);
    let t = cx.mi(Op::DsSubU32, &[]).imm(word);
    cx.emit(MInst::one(t, &[A::U(a), A::U(x)]));
    // The total is the same in every lane.
    let scalar = cx.cls_of(v) == Cls::Scalar;
    let total = if scalar { Val::S(sgpr32(cx, i, Val::V(c))?) } else { Val::V(c) };
    let r = match (pop, total) {
        (PredOp::Count, _) => total,
        (PredOp::Or | PredOp::And, Val::S(s)) => {
            let m = cx.new_s();
            cx.emit1(Op::SMinU32, &[A::D(m), A::U(s), A::K(Operand::Int(1))]);
            if pop == PredOp::Or {
                Val::S(m)
            } else {
                let r = cx.new_s();
                cx.emit1(Op::SSubU32, &[A::D(r), A::K(Operand::Int(1)), A::U(m)]);
                Val::S(r)
            }
        }
        (PredOp::Or | PredOp::And, Val::V(c)) => {
            let m = cx.new_v();
            cx.emit1(Op::VMinU32, &[A::D(m), A::K(Operand::Int(1)), A::U(c)]);
            if pop == PredOp::Or {
                Val::V(m)
            } else {
                let r = cx.new_v();
                cx.emit1(Op::VSubU32, &[A::D(r), A::K(Operand::Int(1)), A::U(m)]);
                Val::V(r)
            }
        }
        (PredOp::Or | PredOp::And, Val::S64(..) | Val::V64(_)) => unreachable!("a 32-bit total"),
    };
    cx.bind(v, r);
    Ok(())
}

/// `nanosleep %ns` (see the module doc).
pub(crate) fn nanosleep(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let ns = cx.f.args(i)[0];
    let n = match cx.const_bits(ns) {
        Some(b) => (b as u32).div_ceil(32).min(127),
        None => 1,
    };
    if n > 0 {
        let t = cx.mi(Op::SSleep, &[]).imm(n as i32);
        cx.emit(MInst::one(t, &[]));
    }
    Ok(())
}

/// Zero-fills the workgroup's shared arrays at kernel entry (MIR semantics: each block sees its
/// shared arrays zero-filled; the hardware leaves LDS undefined at dispatch): a uniform loop in
/// which each work-item stores one dword every `threads * 4` bytes (lanes past the end masked off
/// inside the store's instruction), then a barrier. Kernels without shared arrays get nothing.
pub(crate) fn zero_shared(cx: &mut Lower<'_>) {
    let bytes = cx.lds_bytes.next_multiple_of(4);
    if bytes == 0 {
        return;
    }
    let [bx, by, _] = cx.f.launch.block;
    let threads: u32 = cx.f.launch.block.iter().product();
    let stride = threads * 4;
    // The flat work-item id × 4.
    let e = cx.entry;
    let flat = cx.new_v();
    // The block sizes go through SGPRs: GFX9's VOP3 takes no literal.
    let Val::S(sby) = cx.const32(by, Cls::Scalar) else { unreachable!("a scalar constant") };
    let Val::S(sbx) = cx.const32(bx, Cls::Scalar) else { unreachable!("a scalar constant") };
    let mut m = MInst::new();
    let yz = cx.new_v();
    m.step(cx.mi(Op::VMadU32U24, &[]).e64(), &[A::D(yz), A::U(e.thread_id[2]), A::U(sby), A::U(e.thread_id[1])]);
    m.step(cx.mi(Op::VMadU32U24, &[]).e64(), &[A::D(flat), A::U(yz), A::U(sbx), A::U(e.thread_id[0])]);
    let addr0 = cx.new_v();
    m.step(cx.mi(Op::VLshlrevB32, &[]), &[A::D(addr0), A::K(Operand::Int(2)), A::U(flat)]);
    let zero = cx.new_v();
    m.step(cx.mi(Op::VMovB32, &[]), &[A::D(zero), A::K(Operand::Int(0))]);
    cx.emit(m);
    let off0 = cx.const32(0, Cls::Scalar);
    let Val::S(off0) = off0 else { unreachable!("a scalar constant") };
    let body = cx.vcode.new_block("lds.zero", cx.cf.partial);
    let exit = cx.vcode.new_block("lds.zeroed", cx.cf.partial);
    let mut j = MInst::new();
    j.term = Term::Jump(body);
    j.succ_args = vec![vec![off0]];
    cx.emit(j);

    super::control::switch_to(cx, body);
    let off = cx.new_s();
    cx.vcode.blocks[body.index()].params = vec![off];
    let a = cx.new_v();
    let vcc = A::K(cx.vcc());
    let (saveexec, mov) =
        if cx.wave64() { (Op::SAndSaveexecB64, Op::SMovB64) } else { (Op::SAndSaveexecB32, Op::SMovB32) };
    let (sv, sv_use) = if cx.wave64() {
        let (l, h) = (cx.new_s(), cx.new_s());
        (A::SPairDef(l, h), A::SPair(l, h))
    } else {
        let s = cx.new_s();
        (A::D(s), A::U(s))
    };
    let exec = A::K(cx.exec());
    let mut m = MInst::one(cx.mi(Op::VAddU32, &[]), &[A::D(a), A::U(off), A::U(addr0)]);
    // Only lanes whose address is inside the arrays store (EXEC restored in this instruction).
    m.step(cx.mi(Op::VCmpGtU32, &[]), &[vcc, A::K(Operand::imm32(bytes)), A::U(a)]);
    m.step(cx.mi(saveexec, &[]), &[sv, vcc]);
    m.step(cx.mi(Op::DsWriteB32, &[]), &[A::U(a), A::U(zero)]);
    m.step(cx.mi(mov, &[]), &[exec, sv_use]);
    cx.emit(m);
    let next = cx.new_s();
    let mut m = MInst::one(cx.mi(Op::SAddU32, &[]), &[A::D(next), A::U(off), A::K(Operand::imm32(stride))]);
    m.step(cx.mi(Op::SCmpLtU32, &[]), &[A::U(next), A::K(Operand::imm32(bytes))]);
    m.step(cx.mi(Op::SCbranchScc1, &[]), &[]);
    m.term = Term::Branch { taken: body, not_taken: exit };
    m.succ_args = vec![vec![next], vec![]];
    cx.emit(m);

    super::control::switch_to(cx, exit);
    barrier(cx);
}
