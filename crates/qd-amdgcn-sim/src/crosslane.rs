//! Cross-lane data movement: the DPP16/DPP8 source-lane plan of a VALU instruction,
//! `v_readlane/v_writelane/v_readfirstlane`, `v_permlane16/x16/64` and the LDS-routed
//! `ds_swizzle_b32`, `ds_bpermute_b32`, `ds_permute_b32`.
//!
//! Semantics and sources:
//! * DPP16 (docs/amdgcn-isa-facts.md §9.1–§9.2, AMDGPUModifierSyntax.rst): a lane whose row or bank
//!   mask bit is 0 is not written; an invalid source (off the row/wave edge, or EXEC-inactive
//!   unless FI is set on GFX11 — GFX9 has no FI and treats inactive sources as invalid) reads 0
//!   when the BOUND_CTRL bit is 1 and leaves the lane unwritten when it is 0.
//! * DPP8 (§9.5): lane 8·(i/8) + sel[i%8]; with FI = 0 an inactive source reads 0.
//! * `v_permlane16/x16_b32` (RDNA3 ISA guide, V_PERMLANE16_B32 pseudocode): lane 16r + k reads
//!   lane 16r' + nibble k of {src2, src1}, r' = r (permlane16) or r xor 1 (permlanex16), i.e.
//!   within each 32-lane half. OP_SEL[0] is the DPP FI bit and OP_SEL[1] the DPP BOUND_CTRL bit
//!   (the guide: "OPSEL[0] is overloaded to represent the DPP 'FI' … OPSEL[1] … 'BOUND_CTRL'"), so an
//!   inactive source lane follows the DPP16 invalid-lane rule above.
//! * `v_permlane64_b32` (RDNA3 ISA guide): lane i of an active lane reads lane i xor 32 whatever
//!   that lane's EXEC bit ("may read values from disabled lanes"); a no-op in wave32.
//! * `v_readlane_b32` reads lane (select mod wave size) regardless of EXEC, `v_writelane_b32` writes
//!   one lane regardless of EXEC, `v_readfirstlane_b32` reads the lowest active lane (lane 0 when
//!   EXEC is 0) (§10.3).
//! * `ds_swizzle_b32` (AMD "RDNA3" Instruction Set Architecture Reference Guide, DS_SWIZZLE_B32
//!   pseudocode — the same text is in the Vega/MI-series guides; a copy is at
//!   <https://huggingface.co/spaces/3gg/isa/raw/main/rdna3.txt>; encodings confirmed by LLVM's
//!   `llvm/test/MC/AMDGPU/ds_swizzle.s`, e.g. `swizzle(FFT,5)` = 0xE005, `swizzle(ROTATE,1,0)` =
//!   0xC400): offset ≥ 0xE000 is FFT — `j = reverse_bits(i & 0x1f) >> count_ones(mask) | (i & mask)
//!   | (i & 0x20)`, mask = offset[4:0]; offset ≥ 0xC000 is rotate — `j = (i & mask) | ((i + rot) &
//!   ~mask) | (i & 0x20)`, rot = offset[9:5], negated when offset[10] is set (so bit 10 = 1 means
//!   lane i reads i − rot), mask = offset[4:0]; offset[15] = 1 is quad-perm; otherwise bitmask
//!   (`j = ((i & 0x1f & and) | or) ^ xor | (i & 0x20)`). The guide writes `reverse_bits` and the
//!   rotate sum without a width; both are taken as 5-bit (lane-in-group) quantities, the only
//!   reading that keeps j inside the lane's group of 32 as the guide says all modes do. In every
//!   mode an EXEC-inactive source lane reads 0 ("thread_valid[j] ? thread_in[j] : 0").
//! * `ds_bpermute_b32` / `ds_permute_b32` (RDNA3 guide pseudocode, §10.4): lane index =
//!   ((addr + offset) / 4) mod 64 on GFX9 (wave-wide), mod 32 on GFX11 — within the lane's own
//!   32-lane half in wave64 (§10.4); bpermute reads 0 from an inactive source; permute pushes only
//!   from active lanes, the highest-numbered source wins a collision, and an active lane nobody
//!   wrote gets 0.

use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{Dpp, Inst, Operand, Swizzle};

use super::state::{vgpr_of, Wave};
use super::{Fault, SimErrorKind};

/// Where one lane's src0 comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Its own lane (no DPP).
    Own,
    /// Another lane.
    From(u32),
    /// The value 0 (an invalid DPP source with BOUND_CTRL, or an inactive DPP8 source).
    Zero,
    /// The lane does not execute (EXEC off, masked off by DPP, or an invalid source without
    /// BOUND_CTRL).
    Skip,
}

fn illegal(msg: String) -> Fault {
    Fault::new(SimErrorKind::InvalidOperand, msg)
}

/// The src0 plan of a VALU instruction for every lane of the wave.
pub(crate) fn src0_plan(w: &Wave, inst: &Inst) -> Result<[Lane; 64], Fault> {
    let mut plan = [Lane::Skip; 64];
    let gfx11 = w.family() == Family::Gfx11;
    if inst.dpp != Dpp::None && !matches!(inst.operands.get(src0_slot(inst, w.family())), Some(Operand::Vgpr(_))) {
        return Err(illegal("DPP needs a VGPR src0".into()));
    }
    match inst.dpp {
        Dpp::None => {
            for lane in 0..w.lanes {
                if w.active(lane) {
                    plan[lane as usize] = Lane::Own;
                }
            }
        }
        Dpp::Dpp16(d) => {
            if !d.ctrl.legal_on(w.target.arch) {
                return Err(illegal(format!("DPP control {:?} does not exist on {}", d.ctrl, w.target)));
            }
            if d.fi && !gfx11 {
                return Err(illegal(format!("DPP fi does not exist on {}", w.target)));
            }
            for lane in 0..w.lanes {
                if !w.active(lane) || !d.lane_enabled(lane) {
                    continue;
                }
                let valid = d.ctrl.src_lane(lane, w.lanes).filter(|&s| s < w.lanes && (w.active(s) || (d.fi && gfx11)));
                plan[lane as usize] = match valid {
                    Some(s) => Lane::From(s),
                    None if d.bound_ctrl => Lane::Zero,
                    None => Lane::Skip,
                };
            }
        }
        Dpp::Dpp8(d) => {
            if !gfx11 {
                return Err(illegal(format!("DPP8 does not exist on {}", w.target)));
            }
            for lane in 0..w.lanes {
                if !w.active(lane) {
                    continue;
                }
                let s = d.src_lane(lane);
                plan[lane as usize] = if s < w.lanes && (w.active(s) || d.fi) { Lane::From(s) } else { Lane::Zero };
            }
        }
    }
    Ok(plan)
}

/// The operand slot of src0 for the op's shape.
fn src0_slot(inst: &Inst, family: Family) -> usize {
    use qd_amdgcn_isa::Shape;
    match (inst.op.info().shape, family) {
        (Shape::Vop2CarryOut | Shape::Vop2CarryInOut | Shape::Vop3bMad | Shape::Vop3bDivScale { .. }, _) => 2,
        (Shape::VopcX { .. }, Family::Gfx11) => 0,
        _ => 1,
    }
}

fn no_dpp(inst: &Inst) -> Result<(), Fault> {
    if inst.dpp != Dpp::None {
        return Err(illegal(format!("{:?} cannot take DPP", inst.op)));
    }
    Ok(())
}

/// `v_readfirstlane_b32 sdst, vsrc`.
pub(crate) fn readfirstlane(w: &mut Wave, inst: &Inst) -> Result<(), Fault> {
    no_dpp(inst)?;
    let v = vgpr_of(inst.operands[1], 1)?;
    let exec = w.exec_mask();
    let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
    let x = w.vgpr_read(u32::from(v.first), lane)?;
    w.write_s32(inst.operands[0], x)
}

/// `v_readlane_b32 sdst, vsrc, lane`.
pub(crate) fn readlane(w: &mut Wave, inst: &Inst) -> Result<(), Fault> {
    no_dpp(inst)?;
    let v = vgpr_of(inst.operands[1], 1)?;
    let lane = w.read_s32(inst.operands[2])? & (w.lanes - 1);
    let x = w.vgpr_read(u32::from(v.first), lane)?;
    w.write_s32(inst.operands[0], x)
}

/// `v_writelane_b32 vdst, ssrc, lane`.
pub(crate) fn writelane(w: &mut Wave, inst: &Inst) -> Result<(), Fault> {
    no_dpp(inst)?;
    let v = vgpr_of(inst.operands[0], 1)?;
    let x = w.read_s32(inst.operands[1])?;
    let lane = w.read_s32(inst.operands[2])? & (w.lanes - 1);
    w.vgpr_write(u32::from(v.first), lane, x)
}

/// `v_permlane16_b32` / `v_permlanex16_b32 vdst, vsrc, sel_lo, sel_hi`.
pub(crate) fn permlane16(w: &mut Wave, inst: &Inst, cross: bool) -> Result<(), Fault> {
    no_dpp(inst)?;
    let m = inst.mods;
    if m.op_sel & !3 != 0 || m.neg != 0 || m.abs != 0 || m.omod != 0 || m.clamp {
        return Err(illegal("v_permlane16/x16 take only op_sel bits 0 (FI) and 1 (BOUND_CTRL)".into()));
    }
    let (fi, bc) = (m.op_sel & 1 == 1, m.op_sel & 2 == 2);
    let dst = vgpr_of(inst.operands[0], 1)?;
    let src = vgpr_of(inst.operands[1], 1)?;
    let sel = u64::from(w.read_s32(inst.operands[2])?) | u64::from(w.read_s32(inst.operands[3])?) << 32;
    let mut writes = Vec::new();
    for lane in 0..w.lanes {
        if !w.active(lane) {
            continue;
        }
        let row = lane >> 4;
        let src_row = if cross { row ^ 1 } else { row };
        let s = src_row * 16 + (sel >> (4 * (lane & 15)) & 15) as u32;
        if w.active(s) || fi {
            writes.push((lane, w.vgpr_read(u32::from(src.first), s)?));
        } else if bc {
            writes.push((lane, 0));
        }
    }
    for (lane, x) in writes {
        w.vgpr_write(u32::from(dst.first), lane, x)?;
    }
    Ok(())
}

/// `v_permlane64_b32 vdst, vsrc`.
pub(crate) fn permlane64(w: &mut Wave, inst: &Inst) -> Result<(), Fault> {
    no_dpp(inst)?;
    let dst = vgpr_of(inst.operands[0], 1)?;
    let src = vgpr_of(inst.operands[1], 1)?;
    if w.lanes == 32 {
        return Ok(());
    }
    let mut writes = Vec::new();
    for lane in 0..64 {
        if w.active(lane) {
            writes.push((lane, w.vgpr_read(u32::from(src.first), lane ^ 32)?));
        }
    }
    for (lane, x) in writes {
        w.vgpr_write(u32::from(dst.first), lane, x)?;
    }
    Ok(())
}

/// `ds_swizzle_b32 vdst, vsrc offset:pattern`.
pub(crate) fn swizzle(w: &mut Wave, inst: &Inst) -> Result<(), Fault> {
    let dst = vgpr_of(inst.operands[0], 1)?;
    let src = vgpr_of(inst.operands[1], 1)?;
    let offset = (inst.imm as u32 & 0xFFFF) as u16;
    let mut writes = Vec::new();
    for lane in 0..w.lanes {
        if !w.active(lane) {
            continue;
        }
        let s = Swizzle::decode(offset).src_lane(lane);
        let x = if s < w.lanes && w.active(s) { w.vgpr_read(u32::from(src.first), s)? } else { 0 };
        writes.push((lane, x));
    }
    for (lane, x) in writes {
        w.vgpr_write(u32::from(dst.first), lane, x)?;
    }
    Ok(())
}

/// The lane a ds_bpermute/ds_permute byte address selects from lane `i`.
fn permute_lane(w: &Wave, i: u32, addr: u32) -> u32 {
    let index = addr >> 2;
    match w.family() {
        Family::Gfx9 => index & (w.lanes - 1),
        Family::Gfx11 => (i & 32) | (index & 31),
    }
}

/// `ds_bpermute_b32 vdst, vaddr, vdata offset:n` (pull) and `ds_permute_b32` (push).
pub(crate) fn permute(w: &mut Wave, inst: &Inst, backward: bool) -> Result<(), Fault> {
    let dst = vgpr_of(inst.operands[0], 1)?;
    let addr = vgpr_of(inst.operands[1], 1)?;
    let data = vgpr_of(inst.operands[2], 1)?;
    let offset = inst.imm as u32 & 0xFFFF;
    let mut tmp = [0u32; 64];
    for lane in 0..w.lanes {
        let a = w.vgpr_read(u32::from(addr.first), lane)?.wrapping_add(offset);
        let other = permute_lane(w, lane, a);
        if backward {
            if w.active(other) {
                tmp[lane as usize] = w.vgpr_read(u32::from(data.first), other)?;
            }
        } else if w.active(lane) {
            tmp[other as usize] = w.vgpr_read(u32::from(data.first), lane)?;
        }
    }
    for lane in 0..w.lanes {
        if w.active(lane) {
            w.vgpr_write(u32::from(dst.first), lane, tmp[lane as usize])?;
        }
    }
    Ok(())
}
