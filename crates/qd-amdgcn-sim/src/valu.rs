//! The vector ALU: operand fetch (VGPR per lane, scalar/constant broadcast, DPP-permuted src0),
//! float source modifiers (neg/abs) and output modifiers (omod, clamp), EXEC and DPP write masks,
//! lane-mask results (compares, carries: bits of lanes that do not execute are written 0), and the
//! compare-to-EXEC forms (GFX9 `v_cmpx` writes EXEC and its mask operand, GFX11 only EXEC).

use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{flags, Inst, Operand};

use super::alu;
use super::crosslane::{src0_plan, Lane};
use super::ops::{CmpTy, Rel, Sem, VBin, VCarry, VTer, VUn};
use super::state::{bad_operand, Lit64, Wave};
use super::{Fault, SimErrorKind};

/// The type of a VALU source or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    B32,
    B64,
    I64,
    F32,
    F64,
}

impl Ty {
    fn width(self) -> u8 {
        match self {
            Ty::B32 | Ty::F32 => 1,
            Ty::B64 | Ty::I64 | Ty::F64 => 2,
        }
    }

    fn lit(self) -> Lit64 {
        match self {
            Ty::I64 => Lit64::Sext,
            Ty::F64 => Lit64::F64,
            Ty::B32 | Ty::B64 | Ty::F32 => Lit64::Zext,
        }
    }

    fn sign_bit(self) -> Option<u64> {
        match self {
            Ty::F32 => Some(1 << 31),
            Ty::F64 => Some(1 << 63),
            Ty::B32 | Ty::B64 | Ty::I64 => None,
        }
    }
}

fn un_types(op: VUn) -> (Ty, Ty) {
    use Ty::*;
    match op {
        VUn::Mov | VUn::Not | VUn::Bfrev | VUn::FfbhU | VUn::FfblB | VUn::FfbhI => (B32, B32),
        VUn::MovB64 => (B64, B64),
        VUn::CvtF32I32 | VUn::CvtF32U32 => (B32, F32),
        VUn::CvtU32F32 | VUn::CvtI32F32 => (F32, B32),
        VUn::CvtF64I32 | VUn::CvtF64U32 => (B32, F64),
        VUn::CvtI32F64 | VUn::CvtU32F64 => (F64, B32),
        VUn::CvtF32F64 => (F64, F32),
        VUn::CvtF64F32 => (F32, F64),
        VUn::Rcp
        | VUn::Sqrt
        | VUn::Rsq
        | VUn::Exp
        | VUn::Log
        | VUn::Trunc
        | VUn::Floor
        | VUn::RcpIflag
        | VUn::RndneF32
        | VUn::FractF32
        | VUn::FrexpMantF32 => (F32, F32),
        VUn::RcpF64
        | VUn::RsqF64
        | VUn::SqrtF64
        | VUn::TruncF64
        | VUn::FloorF64
        | VUn::RndneF64
        | VUn::FractF64
        | VUn::FrexpMantF64 => (F64, F64),
        VUn::FrexpExpF32 => (F32, B32),
        VUn::FrexpExpF64 => (F64, B32),
        VUn::CvtF32Ubyte0 => (B32, F32),
    }
}

fn bin_types(op: VBin) -> (Ty, Ty, Ty) {
    use Ty::*;
    match op {
        VBin::AddF32 | VBin::SubF32 | VBin::SubrevF32 | VBin::MulF32 | VBin::MinF32 | VBin::MaxF32 => (F32, F32, F32),
        VBin::AddF64 | VBin::MulF64 | VBin::MinF64 | VBin::MaxF64 => (F64, F64, F64),
        VBin::LdexpF32 => (F32, B32, F32),
        VBin::LdexpF64 => (F64, B32, F64),
        VBin::Lshlrev64 | VBin::Lshrrev64 => (B32, B64, B64),
        VBin::Ashrrev64 => (B32, I64, I64),
        VBin::MulI32I24
        | VBin::MulU32U24
        | VBin::MulHiU32U24
        | VBin::MinI32
        | VBin::MaxI32
        | VBin::MinU32
        | VBin::MaxU32
        | VBin::Lshrrev
        | VBin::Ashrrev
        | VBin::Lshlrev
        | VBin::And
        | VBin::Or
        | VBin::Xor
        | VBin::AddU32
        | VBin::SubU32
        | VBin::SubrevU32
        | VBin::MulLoU32
        | VBin::MulHiU32
        | VBin::MulHiI32
        | VBin::Bcnt
        | VBin::MbcntLo
        | VBin::MbcntHi => (B32, B32, B32),
    }
}

fn ter_types(op: VTer) -> ([Ty; 3], Ty) {
    use Ty::*;
    match op {
        VTer::FmacF32 | VTer::FmaF32 => ([F32; 3], F32),
        VTer::FmaF64 | VTer::DivFixupF64 => ([F64; 3], F64),
        VTer::DivFixupF32 | VTer::Med3F32 | VTer::Min3F32 | VTer::Max3F32 => ([F32; 3], F32),
        VTer::LshlAddU64 => ([B64, B32, B64], B64),
        VTer::MadU32U24
        | VTer::BfeU32
        | VTer::BfeI32
        | VTer::BfiB32
        | VTer::Alignbit
        | VTer::LshlAddU32
        | VTer::AddLshlU32
        | VTer::Add3U32
        | VTer::Med3I32
        | VTer::Med3U32
        | VTer::Min3I32
        | VTer::Min3U32
        | VTer::Max3I32
        | VTer::Max3U32 => ([B32; 3], B32),
    }
}

fn cmp_ty(ty: CmpTy) -> Ty {
    match ty {
        CmpTy::I32 | CmpTy::U32 => Ty::B32,
        CmpTy::I64 => Ty::I64,
        CmpTy::U64 => Ty::B64,
        CmpTy::F32 => Ty::F32,
        CmpTy::F64 => Ty::F64,
    }
}

/// One source operand with its type and modifiers.
#[derive(Clone, Copy, Debug)]
struct Src {
    op: Operand,
    ty: Ty,
    neg: bool,
    abs: bool,
}

fn src(inst: &Inst, slot: usize, index: usize, ty: Ty, mods: bool) -> Src {
    let bit = |m: u8| mods && m >> index & 1 == 1;
    Src { op: inst.operands[slot], ty, neg: bit(inst.mods.neg), abs: bit(inst.mods.abs) }
}

fn fetch(w: &Wave, s: &Src, lane: u32, plan: Lane) -> Result<u64, Fault> {
    let raw = match (s.op, plan) {
        (_, Lane::Zero) => 0,
        (Operand::Vgpr(r), Lane::From(l)) => {
            super::state::width(s.op, r, s.ty.width())?;
            w.vread(r, l)?
        }
        (Operand::Vgpr(r), _) => {
            super::state::width(s.op, r, s.ty.width())?;
            w.vread(r, lane)?
        }
        (op, _) => w.read_scalar(op, s.ty.width(), s.ty.lit())?,
    };
    Ok(match s.ty.sign_bit() {
        Some(sign) => {
            let v = if s.abs { raw & !sign } else { raw };
            if s.neg {
                v ^ sign
            } else {
                v
            }
        }
        None => raw,
    })
}

/// The per-lane outcome of a VALU op.
struct Out {
    value: u64,
    flag: bool,
}

/// Runs `f` on every executing lane (after reading every source) and writes the results: `dst`
/// gets the value in executing lanes, `mask_dst` a bit per lane (0 where the lane does not execute).
fn run(
    w: &mut Wave,
    inst: &Inst,
    srcs: &[Src],
    dst: Option<(Operand, Ty)>,
    mask_dst: &[Operand],
    f: impl Fn(u32, [u64; 3]) -> Result<Out, Fault>,
) -> Result<u64, Fault> {
    let plan = src0_plan(w, inst)?;
    let mut outs: Vec<(u32, Out)> = Vec::with_capacity(w.lanes as usize);
    for lane in 0..w.lanes {
        let p = plan[lane as usize];
        if p == Lane::Skip {
            continue;
        }
        let mut v = [0u64; 3];
        for (i, s) in srcs.iter().enumerate() {
            v[i] = fetch(w, s, lane, if i == 0 { p } else { Lane::Own }).map_err(|e| e.at_lane(lane))?;
        }
        outs.push((lane, f(lane, v).map_err(|e| e.at_lane(lane))?));
    }
    let mut mask = 0u64;
    if let Some((op, ty)) = dst {
        let r = super::state::vgpr_of(op, ty.width())?;
        w.vgpr_check(r)?;
        for (lane, o) in &outs {
            w.vwrite(r, *lane, o.value)?;
        }
    }
    for (lane, o) in &outs {
        mask |= u64::from(o.flag) << lane;
    }
    for &m in mask_dst {
        w.write_mask(m, mask)?;
    }
    Ok(mask)
}

/// Float output modifiers and clamp on a result of type `ty`.
fn post(inst: &Inst, ty: Ty, v: u64) -> u64 {
    match ty {
        Ty::F32 => {
            let v = alu::omod32(v, inst.mods.omod);
            if inst.mods.clamp {
                alu::clamp32(v)
            } else {
                v
            }
        }
        Ty::F64 => {
            let v = alu::omod64(v, inst.mods.omod);
            if inst.mods.clamp {
                alu::clamp64(v)
            } else {
                v
            }
        }
        Ty::B32 | Ty::B64 | Ty::I64 => v,
    }
}

fn unsupported(inst: &Inst, what: &str) -> Fault {
    Fault::new(SimErrorKind::Unsupported, format!("{what} on {:?} is not modelled", inst.op))
}

/// Rejects output modifiers the op cannot take (integer results).
fn check_out_mods(inst: &Inst, out: Ty, int_clamp_ok: bool) -> Result<(), Fault> {
    let float_out = matches!(out, Ty::F32 | Ty::F64);
    if inst.mods.omod != 0 && !float_out {
        return Err(unsupported(inst, "omod"));
    }
    if inst.mods.clamp && !float_out && !int_clamp_ok {
        return Err(unsupported(inst, "clamp"));
    }
    if inst.mods.op_sel != 0 {
        return Err(unsupported(inst, "op_sel"));
    }
    Ok(())
}

/// Executes the VALU instructions that are not cross-lane moves.
pub(crate) fn exec(w: &mut Wave, inst: &Inst, sem: Sem, trans_ulp: i8) -> Result<(), Fault> {
    let float = inst.op.has(flags::FLOAT);
    match sem {
        Sem::VNop => Ok(()),
        Sem::VUn(op) => {
            let (ti, to) = un_types(op);
            // Integer-result clamp: the saturating conversions saturate anyway, and a frexp
            // exponent (−1074..=1024) cannot overflow, so the bit changes nothing.
            let int_clamp = matches!(
                op,
                VUn::CvtU32F32 | VUn::CvtI32F32 | VUn::CvtI32F64 | VUn::CvtU32F64 | VUn::FrexpExpF32 | VUn::FrexpExpF64
            );
            check_out_mods(inst, to, int_clamp)?;
            let s = [src(inst, 1, 0, ti, float)];
            let approx = trans_ulp != 0
                && matches!(
                    op,
                    VUn::Rcp | VUn::Rsq | VUn::Sqrt | VUn::RcpIflag | VUn::RcpF64 | VUn::RsqF64 | VUn::SqrtF64
                );
            run(w, inst, &s, Some((inst.operands[0], to)), &[], |lane, v| {
                let mut r = alu::un(op, v[0]);
                if approx {
                    let k = if lane % 2 == 0 { trans_ulp } else { -trans_ulp };
                    r = alu::nudge(r, to == Ty::F64, k);
                }
                Ok(Out { value: post(inst, to, r), flag: false })
            })
            .map(|_| ())
        }
        Sem::VBin(op) => {
            let (t0, t1, to) = bin_types(op);
            let sat = inst.mods.clamp && matches!(op, VBin::AddU32 | VBin::SubU32 | VBin::SubrevU32);
            check_out_mods(inst, to, sat)?;
            let s = [src(inst, 1, 0, t0, float), src(inst, 2, 1, t1, float)];
            run(w, inst, &s, Some((inst.operands[0], to)), &[], |lane, v| {
                let value = if sat {
                    let (a, b) = (v[0] as u32, v[1] as u32);
                    u64::from(match op {
                        VBin::AddU32 => a.saturating_add(b),
                        VBin::SubU32 => a.saturating_sub(b),
                        _ => b.saturating_sub(a),
                    })
                } else {
                    post(inst, to, alu::bin(op, v[0], v[1], lane))
                };
                Ok(Out { value, flag: false })
            })
            .map(|_| ())
        }
        Sem::VTer(op) => {
            let (ts, to) = ter_types(op);
            check_out_mods(inst, to, false)?;
            let third = if op == VTer::FmacF32 { 0 } else { 3 };
            let s = [src(inst, 1, 0, ts[0], float), src(inst, 2, 1, ts[1], float), src(inst, third, 2, ts[2], float)];
            run(w, inst, &s, Some((inst.operands[0], to)), &[], |_, v| {
                Ok(Out { value: post(inst, to, alu::ter(op, v[0], v[1], v[2])), flag: false })
            })
            .map(|_| ())
        }
        Sem::VCndmask => {
            check_out_mods(inst, Ty::B32, false)?;
            let mask = w.read_mask(inst.operands[3])?;
            // neg/abs on v_cndmask_b32_e64 act on the f32 sign bit (LLVM accepts them there).
            let s = [src(inst, 1, 0, Ty::F32, true), src(inst, 2, 1, Ty::F32, true)];
            run(w, inst, &s, Some((inst.operands[0], Ty::B32)), &[], |lane, v| {
                Ok(Out { value: if mask >> lane & 1 == 1 { v[1] } else { v[0] }, flag: false })
            })
            .map(|_| ())
        }
        Sem::VCarry(op) => exec_carry(w, inst, op),
        Sem::VCmp(rel, ty) => exec_cmp(w, inst, rel, ty, false),
        Sem::VCmpx(rel, ty) => exec_cmp(w, inst, rel, ty, true),
        Sem::VMadU64U32 => {
            check_out_mods(inst, Ty::B64, false)?;
            let s = [src(inst, 2, 0, Ty::B32, false), src(inst, 3, 1, Ty::B32, false), src(inst, 4, 2, Ty::B64, false)];
            run(w, inst, &s, Some((inst.operands[0], Ty::B64)), &[inst.operands[1]], |_, v| {
                let (sum, carry) = (v[0] * v[1]).overflowing_add(v[2]);
                Ok(Out { value: sum, flag: carry })
            })
            .map(|_| ())
        }
        Sem::VMadI64I32 => {
            check_out_mods(inst, Ty::B64, false)?;
            let s = [src(inst, 2, 0, Ty::B32, false), src(inst, 3, 1, Ty::B32, false), src(inst, 4, 2, Ty::B64, false)];
            run(w, inst, &s, Some((inst.operands[0], Ty::B64)), &[inst.operands[1]], |_, v| {
                // The 65-bit signed sum's bit 64 is the mask bit (ISA: `{ D1.i1, D0.i64 }`).
                let wide = i128::from(v[0] as u32 as i32) * i128::from(v[1] as u32 as i32) + i128::from(v[2] as i64);
                Ok(Out { value: wide as u64, flag: (wide >> 64) & 1 == 1 })
            })
            .map(|_| ())
        }
        Sem::VDivScale(is64) => {
            let t = if is64 { Ty::F64 } else { Ty::F32 };
            check_out_mods(inst, t, false)?;
            let s = [src(inst, 2, 0, t, true), src(inst, 3, 1, t, true), src(inst, 4, 2, t, true)];
            run(w, inst, &s, Some((inst.operands[0], t)), &[inst.operands[1]], |_, v| {
                let (value, flag) = alu::div_scale(v[0], v[1], v[2], is64);
                Ok(Out { value: post(inst, t, value), flag })
            })
            .map(|_| ())
        }
        Sem::VDivFmas(is64) => {
            let t = if is64 { Ty::F64 } else { Ty::F32 };
            check_out_mods(inst, t, false)?;
            let vcc_op = if w.lanes == 64 { Operand::Vcc } else { Operand::VccLo };
            let vcc = w.read_mask(vcc_op)?;
            let s = [src(inst, 1, 0, t, true), src(inst, 2, 1, t, true), src(inst, 3, 2, t, true)];
            run(w, inst, &s, Some((inst.operands[0], t)), &[], |lane, v| {
                let r = alu::div_fmas(v[0], v[1], v[2], vcc >> lane & 1 == 1, is64);
                Ok(Out { value: post(inst, t, r), flag: false })
            })
            .map(|_| ())
        }
        Sem::VCmpClass(is64) => {
            if inst.mods.omod != 0 || inst.mods.op_sel != 0 || inst.mods.clamp {
                return Err(unsupported(inst, "output modifiers"));
            }
            let t = if is64 { Ty::F64 } else { Ty::F32 };
            if matches!(inst.operands[0], Operand::Vgpr(_) | Operand::None) {
                return Err(bad_operand(inst.operands[0], "a compare destination"));
            }
            let s = [src(inst, 1, 0, t, true), src(inst, 2, 1, Ty::B32, false)];
            let dst = [inst.operands[0]];
            run(w, inst, &s, None, &dst, |_, v| Ok(Out { value: 0, flag: alu::class(v[0], v[1] as u32, is64) }))
                .map(|_| ())
        }
        _ => Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} is not a plain VALU op", inst.op))),
    }
}

fn exec_carry(w: &mut Wave, inst: &Inst, op: VCarry) -> Result<(), Fault> {
    check_out_mods(inst, Ty::B32, inst.mods.clamp)?;
    let cin = match op {
        VCarry::Addc | VCarry::Subb | VCarry::Subbrev => w.read_mask(inst.operands[4])?,
        VCarry::AddCo | VCarry::SubCo | VCarry::SubrevCo => 0,
    };
    let clamp = inst.mods.clamp;
    let s = [src(inst, 2, 0, Ty::B32, false), src(inst, 3, 1, Ty::B32, false)];
    run(w, inst, &s, Some((inst.operands[0], Ty::B32)), &[inst.operands[1]], |lane, v| {
        let (a, b, c) = (v[0], v[1], cin >> lane & 1);
        let (wide, carry) = match op {
            VCarry::AddCo | VCarry::Addc => {
                let r = a + b + c;
                (r, r > 0xFFFF_FFFF)
            }
            VCarry::SubCo | VCarry::Subb => (a.wrapping_sub(b).wrapping_sub(c), b + c > a),
            VCarry::SubrevCo | VCarry::Subbrev => (b.wrapping_sub(a).wrapping_sub(c), a + c > b),
        };
        let value = match (clamp, carry, op) {
            (true, true, VCarry::AddCo | VCarry::Addc) => 0xFFFF_FFFF,
            (true, true, _) => 0,
            _ => wide & 0xFFFF_FFFF,
        };
        Ok(Out { value, flag: carry })
    })
    .map(|_| ())
}

fn exec_cmp(w: &mut Wave, inst: &Inst, rel: Rel, ty: CmpTy, to_exec: bool) -> Result<(), Fault> {
    // The VOP3 CLAMP bit of a float compare only controls NaN exception signalling, which the
    // simulator does not model (exceptions are off in compute kernels): the result is the same.
    if inst.mods.omod != 0 || inst.mods.op_sel != 0 || (inst.mods.clamp && !inst.op.has(flags::FLOAT)) {
        return Err(unsupported(inst, "output modifiers"));
    }
    let float = inst.op.has(flags::FLOAT);
    let t = cmp_ty(ty);
    // GFX9 v_cmpx has a mask destination in slot 0 (VCC in the e32 form); GFX11 has none.
    let (first, dst): (usize, Vec<Operand>) = match (to_exec, w.family()) {
        (true, Family::Gfx11) => (0, vec![]),
        _ => (1, vec![inst.operands[0]]),
    };
    if let Some(&d) = dst.first() {
        if matches!(d, Operand::Vgpr(_) | Operand::None) {
            return Err(bad_operand(d, "a compare destination"));
        }
    }
    let s = [src(inst, first, 0, t, float), src(inst, first + 1, 1, t, float)];
    let mask = run(w, inst, &s, None, &dst, |_, v| Ok(Out { value: 0, flag: alu::cmp(rel, ty, v[0], v[1]) }))?;
    if to_exec {
        w.exec = mask;
    }
    Ok(())
}
