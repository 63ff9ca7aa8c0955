//! The scalar ALU (SOP1/SOP2/SOPK/SOPC) and program control (SOPP): values, SCC rules, saveexec,
//! branches, `s_waitcnt`, `s_barrier`, `s_endpgm`.
//!
//! SCC (ISA pseudocode): `s_add_u32`/`s_addc_u32` carry out, `s_sub_u32`/`s_subb_u32` borrow,
//! `s_add_i32`/`s_sub_i32`/`s_addk_i32` signed overflow, `s_min_*` = S0 < S1, `s_max_*` = S0 > S1,
//! bitwise ops, shifts, `s_bfe_*`, `s_not`, `s_bcnt1`, `s_abs` = result ≠ 0, saveexec = new EXEC ≠ 0,
//! `s_lshlN_add_u32` = the 64-bit (S0 << N) + S1 ≥ 2^32,
//! compares = the relation; `s_mov`, `s_cselect`, `s_mul*`, `s_bfm`, `s_brev`, `s_ff1`, `s_flbit`, `s_sext`,
//! `s_movk`, `s_mulk` leave SCC alone. The program counter is the instruction's byte offset in the
//! program, so `s_getpc_b64` returns the offset of the next instruction and `s_setpc_b64` jumps to
//! a byte offset.

use qd_amdgcn_isa::{Inst, Shape, Waitcnt};

use super::ops::{Cond, Rel, SBin, SUn, SaveOp, Sem};
use super::state::{Lit64, Wave};
use super::{Fault, SimErrorKind};

/// What the wave does after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    /// Continue at a byte offset.
    Jump(u64),
    End,
    Barrier,
}

fn shape_widths(inst: &Inst) -> (u8, u8, u8) {
    match inst.op.info().shape {
        Shape::Sop1 { d, s } => (d, s, 0),
        Shape::Sop2 { d, s0, s1 } => (d, s0, s1),
        Shape::Sopc { s } => (0, s, s),
        Shape::Sop1Dst { d } => (d, 0, 0),
        Shape::Sop1Src { s } => (0, s, 0),
        _ => (1, 1, 1),
    }
}

fn compare(rel: Rel, signed: bool, w64: bool, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    let ord = match (signed, w64) {
        (true, false) => (a as u32 as i32).cmp(&(b as u32 as i32)),
        (true, true) => (a as i64).cmp(&(b as i64)),
        (false, false) => (a as u32).cmp(&(b as u32)),
        (false, true) => a.cmp(&b),
    };
    match rel {
        Rel::Eq => ord == Ordering::Equal,
        Rel::Ne | Rel::Lg | Rel::Neq => ord != Ordering::Equal,
        Rel::Lt => ord == Ordering::Less,
        Rel::Le => ord != Ordering::Greater,
        Rel::Gt => ord == Ordering::Greater,
        Rel::Ge => ord != Ordering::Less,
        Rel::O => true,
        Rel::U => false,
    }
}

fn sun(op: SUn, a: u64, w64: bool) -> (u64, Option<bool>) {
    let a32 = a as u32;
    let bits = if w64 { 64 } else { 32 };
    let all = if w64 { u64::MAX } else { 0xFFFF_FFFF };
    match op {
        SUn::Not => {
            let r = !a & all;
            (r, Some(r != 0))
        }
        SUn::Brev => (u64::from(a32.reverse_bits()), None),
        SUn::Bcnt1 => {
            let r = u64::from((a & all).count_ones());
            (r, Some(r != 0))
        }
        SUn::Ff1 => {
            let v = a & all;
            (if v == 0 { 0xFFFF_FFFF } else { u64::from(v.trailing_zeros()) }, None)
        }
        SUn::Flbit => {
            let v = a & all;
            (if v == 0 { 0xFFFF_FFFF } else { u64::from(v.leading_zeros() - (64 - bits)) }, None)
        }
        SUn::Abs => {
            let r = u64::from((a32 as i32).wrapping_abs() as u32);
            (r, Some(r != 0))
        }
        SUn::Sext8 => (u64::from(a32 as i8 as i32 as u32), None),
    }
}

fn sbin(op: SBin, a: u64, b: u64, scc: bool, w64: bool) -> (u64, Option<bool>) {
    let (a32, b32, c) = (a as u32, b as u32, u32::from(scc));
    let bits = if w64 { 64 } else { 32 };
    let all = if w64 { u64::MAX } else { 0xFFFF_FFFF };
    let nz = |r: u64| (r & all, Some(r & all != 0));
    match op {
        SBin::AddU32 => {
            let (r, carry) = a32.overflowing_add(b32);
            (u64::from(r), Some(carry))
        }
        SBin::SubU32 => (u64::from(a32.wrapping_sub(b32)), Some(b32 > a32)),
        SBin::AddI32 => {
            let (r, o) = (a32 as i32).overflowing_add(b32 as i32);
            (u64::from(r as u32), Some(o))
        }
        SBin::SubI32 => {
            let (r, o) = (a32 as i32).overflowing_sub(b32 as i32);
            (u64::from(r as u32), Some(o))
        }
        SBin::AddcU32 => {
            let r = u64::from(a32) + u64::from(b32) + u64::from(c);
            (r & 0xFFFF_FFFF, Some(r > 0xFFFF_FFFF))
        }
        SBin::SubbU32 => {
            (u64::from(a32.wrapping_sub(b32).wrapping_sub(c)), Some(u64::from(b32) + u64::from(c) > u64::from(a32)))
        }
        SBin::MinI32 => {
            let lt = (a32 as i32) < (b32 as i32);
            (u64::from(if lt { a32 } else { b32 }), Some(lt))
        }
        SBin::MinU32 => (u64::from(a32.min(b32)), Some(a32 < b32)),
        SBin::MaxI32 => {
            let gt = (a32 as i32) > (b32 as i32);
            (u64::from(if gt { a32 } else { b32 }), Some(gt))
        }
        SBin::MaxU32 => (u64::from(a32.max(b32)), Some(a32 > b32)),
        SBin::Cselect => (if scc { a } else { b }, None),
        SBin::And => nz(a & b),
        SBin::Or => nz(a | b),
        SBin::Xor => nz(a ^ b),
        SBin::Andn2 => nz(a & !b),
        SBin::Orn2 => nz(a | !b),
        SBin::Xnor => nz(!(a ^ b)),
        SBin::Lshl => nz(a << (b32 & (bits - 1))),
        SBin::Lshr => nz((a & all) >> (b32 & (bits - 1))),
        SBin::Ashr => {
            let r =
                if w64 { ((a as i64) >> (b32 & 63)) as u64 } else { u64::from(((a32 as i32) >> (b32 & 31)) as u32) };
            nz(r)
        }
        SBin::MulI32 => (u64::from(a32.wrapping_mul(b32)), None),
        SBin::Bfm => (u64::from(((1u64 << (a32 & 31)) - 1) as u32) << (b32 & 31) & 0xFFFF_FFFF, None),
        SBin::LshlAdd(n) => {
            let t = (u64::from(a32) << n) + u64::from(b32);
            (t & 0xFFFF_FFFF, Some(t >= 1 << 32))
        }
        SBin::BfeU32 | SBin::BfeI32 => {
            let (off, width) = (b32 & 31, (b32 >> 16) & 0x7F);
            let mask = if width >= 32 { u32::MAX } else { (1u32 << width) - 1 };
            let r = if op == SBin::BfeU32 {
                (a32 >> off) & mask
            } else {
                let field = (((a32 as i32) >> off) as u32) & mask;
                if width == 0 {
                    0
                } else if width >= 32 {
                    field
                } else {
                    ((field << (32 - width)) as i32 >> (32 - width)) as u32
                }
            };
            (u64::from(r), Some(r != 0))
        }
        SBin::MulHiU32 => ((u64::from(a32) * u64::from(b32)) >> 32, None),
        SBin::MulHiI32 => (u64::from(((i64::from(a32 as i32) * i64::from(b32 as i32)) >> 32) as u32), None),
    }
}

/// Executes a SALU or SOPP instruction. `next` is the byte offset of the next instruction.
pub(crate) fn exec(w: &mut Wave, inst: &Inst, sem: Sem, next: u64) -> Result<Flow, Fault> {
    let (dw, s0w, s1w) = shape_widths(inst);
    let ops = &inst.operands;
    let simm = i64::from(inst.imm as i16);
    match sem {
        Sem::SMov => {
            let v = w.read_scalar(ops[1], s0w, Lit64::Zext)?;
            w.write_scalar(ops[0], dw, v)?;
        }
        Sem::SUn(op) => {
            let v = w.read_scalar(ops[1], s0w, Lit64::Zext)?;
            let (r, scc) = sun(op, v, s0w == 2);
            w.write_scalar(ops[0], dw, r)?;
            if let Some(scc) = scc {
                w.scc = scc;
            }
        }
        Sem::SSaveexec(op) => {
            let s = w.read_scalar(ops[1], s0w, Lit64::Zext)?;
            let mask = if dw == 2 { u64::MAX } else { 0xFFFF_FFFF };
            let old = w.exec & mask;
            let new = match op {
                SaveOp::And => s & old,
                SaveOp::Or => s | old,
                SaveOp::Xor => s ^ old,
                SaveOp::Andn2 => s & !old,
            } & mask;
            w.write_scalar(ops[0], dw, old)?;
            w.exec = w.exec & !mask | new;
            w.scc = new != 0;
        }
        Sem::SGetpc => w.write_s64(ops[0], next)?,
        Sem::SSetpc => return Ok(Flow::Jump(w.read_s64(ops[0], Lit64::Zext)?)),
        Sem::SSwappc => {
            let target = w.read_s64(ops[1], Lit64::Zext)?;
            w.write_s64(ops[0], next)?;
            return Ok(Flow::Jump(target));
        }
        Sem::SBin(op) => {
            let lit = if matches!(op, SBin::Ashr) { Lit64::Sext } else { Lit64::Zext };
            let a = w.read_scalar(ops[1], s0w, lit)?;
            let b = w.read_scalar(ops[2], s1w, Lit64::Zext)?;
            let (r, scc) = sbin(op, a, b, w.scc, dw == 2);
            w.write_scalar(ops[0], dw, r)?;
            if let Some(scc) = scc {
                w.scc = scc;
            }
        }
        Sem::SMovk => w.write_s32(ops[0], simm as u32)?,
        Sem::SAddk => {
            let (r, o) = (w.read_s32(ops[0])? as i32).overflowing_add(simm as i32);
            w.write_s32(ops[0], r as u32)?;
            w.scc = o;
        }
        Sem::SMulk => {
            let r = (w.read_s32(ops[0])? as i32).wrapping_mul(simm as i32);
            w.write_s32(ops[0], r as u32)?;
        }
        Sem::SCmpk(rel, signed) => {
            let a = u64::from(w.read_s32(ops[0])?);
            let b = if signed { simm as u64 } else { u64::from(inst.imm as u32 & 0xFFFF) };
            w.scc = compare(rel, signed, false, a, b);
        }
        Sem::SCmp(rel, signed) => {
            let lit = if signed { Lit64::Sext } else { Lit64::Zext };
            let a = w.read_scalar(ops[0], s0w, lit)?;
            let b = w.read_scalar(ops[1], s1w, lit)?;
            w.scc = compare(rel, signed, s0w == 2, a, b);
        }
        Sem::SBitcmp1 => {
            let a = w.read_s32(ops[0])?;
            let b = w.read_s32(ops[1])?;
            w.scc = a >> (b & 31) & 1 == 1;
        }
        Sem::SWaitcntVscnt => {
            let n = w.read_s32(ops[0])?.wrapping_add(inst.imm as u32 & 0xFFFF);
            w.waits.wait_vs(n);
        }
        Sem::SWaitcnt => {
            let family = w.family();
            w.waits.wait(Waitcnt::decode(inst.imm as u16, family), family);
        }
        Sem::SNop | Sem::SWaitcntDepctr | Sem::SHint => {}
        Sem::SEndpgm => return Ok(Flow::End),
        Sem::SBarrier => return Ok(Flow::Barrier),
        Sem::STrap => {
            return Err(Fault::new(SimErrorKind::Trap, format!("s_trap {}", inst.imm & 0xFF)));
        }
        Sem::SBranch(cond) => {
            let taken = match cond {
                Cond::Always => true,
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc & w.full_mask() == 0,
                Cond::Vccnz => w.vcc & w.full_mask() != 0,
                Cond::Execz => w.exec_mask() == 0,
                Cond::Execnz => w.exec_mask() != 0,
            };
            if taken {
                return Ok(Flow::Jump(next.wrapping_add((simm * 4) as u64)));
            }
        }
        _ => return Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} is not scalar", inst.op))),
    }
    Ok(Flow::Next)
}
