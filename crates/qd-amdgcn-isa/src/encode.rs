//! The encoder: [`Inst`] → little-endian machine words for gfx90a, gfx942 and gfx1100
//! (docs/amdgcn-isa-facts.md §3). Every instruction is checked first ([`Inst::check`]), so the bytes
//! are always ones the target decodes back to the same instruction.
//!
//! Operands are gathered into their encoding fields through the shared operand layout
//! ([`crate::layout`]), then one packing function per format places the fields.

use crate::check::{self, Resolved};
use crate::dpp::{Dpp16, Dpp8};
use crate::inst::{Dpp, Inst, IsaError};
use crate::layout::{Enc32, Field};
use crate::operand::Operand;
use crate::table::{Format, Shape};
use crate::target::{Family, Target};

/// DPP16 marker in a SRC0 field.
pub(crate) const SRC_DPP16: u32 = 0xFA;
/// DPP8 marker (FI = 0) in a SRC0 field.
pub(crate) const SRC_DPP8: u32 = 0xE9;
/// DPP8 marker (FI = 1).
pub(crate) const SRC_DPP8_FI: u32 = 0xEA;
/// Literal marker.
pub(crate) const SRC_LITERAL: u32 = 0xFF;

/// Encodes one instruction, appending its bytes to `out`.
pub fn encode(inst: &Inst, target: Target, out: &mut Vec<u8>) -> Result<(), IsaError> {
    let r = check::resolve(inst, target)?;
    for w in words(inst, target, &r).iter() {
        out.extend_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// Encodes a sequence of instructions back to back.
pub fn encode_all(insts: &[Inst], target: Target) -> Result<Vec<u8>, IsaError> {
    let mut out = Vec::new();
    for inst in insts {
        encode(inst, target, &mut out)?;
    }
    Ok(out)
}

/// The size in bytes of an instruction's encoding (including a literal or DPP dword). For an
/// instruction that does not check, the size it would have if its operands were legal.
pub fn inst_size(inst: &Inst, target: Target) -> usize {
    let Some(enc) = inst.op.enc(target.arch) else { return 4 };
    let enc32 = crate::layout::resolve_form(inst.op, enc, inst.form).unwrap_or(Enc32::Other);
    let base = match enc.format {
        Format::Vop1 | Format::Vop2 | Format::Vopc if enc32 == Enc32::E32 => 4,
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc | Format::Sopp => 4,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => 8,
        Format::Smem | Format::Ds | Format::Flat | Format::Global | Format::Mubuf => 8,
    };
    let dpp = if inst.dpp != Dpp::None { 4 } else { 0 };
    let lit = if inst.operands.iter().any(|o| matches!(o, Operand::Literal(_))) { 4 } else { 0 };
    base + dpp + lit
}

/// Encoding-field values gathered from the operands.
#[derive(Default)]
struct Fields {
    sdst: u32,
    ssrc0: u32,
    ssrc1: u32,
    vdst: u32,
    src0: u32,
    src1: u32,
    src2: u32,
    sdst3: u32,
    smem_data: u32,
    smem_base: u32,
    smem_off: Option<u32>,
    ds_vdst: u32,
    ds_addr: u32,
    ds_data0: u32,
    ds_data1: u32,
    flat_vdst: u32,
    flat_addr: u32,
    flat_data: u32,
    flat_saddr: Option<u32>,
}

/// The register number of a VGPR (8-bit fields), or the scalar/source code of anything else.
fn reg8(o: Operand, family: Family) -> u32 {
    match o {
        Operand::Vgpr(r) => u32::from(r.first),
        other => u32::from(other.src_code(family).unwrap_or(0)) & 0xFF,
    }
}

fn src9(o: Operand, family: Family) -> u32 {
    u32::from(o.src_code(family).unwrap_or(0))
}

fn gather(inst: &Inst, target: Target, r: &Resolved) -> Fields {
    let fam = target.family();
    let mut f = Fields::default();
    for (o, s) in inst.operands.iter().zip(&r.layout) {
        let o = *o;
        match s.field {
            Field::Sdst => f.sdst = reg8(o, fam),
            Field::Ssrc0 => f.ssrc0 = src9(o, fam) & 0xFF,
            Field::Ssrc1 => f.ssrc1 = src9(o, fam) & 0xFF,
            Field::Vdst => f.vdst = reg8(o, fam),
            Field::Src0 => f.src0 = src9(o, fam),
            Field::Src1 => f.src1 = src9(o, fam),
            Field::Src2 => f.src2 = src9(o, fam),
            Field::Sdst3 => f.sdst3 = reg8(o, fam),
            Field::SmemData => f.smem_data = reg8(o, fam),
            Field::SmemBase => f.smem_base = reg8(o, fam),
            Field::SmemOff => f.smem_off = (o != Operand::None).then(|| reg8(o, fam)),
            Field::DsVdst => f.ds_vdst = reg8(o, fam),
            Field::DsAddr => f.ds_addr = reg8(o, fam),
            Field::DsData0 => f.ds_data0 = reg8(o, fam),
            Field::DsData1 => f.ds_data1 = reg8(o, fam),
            Field::FlatVdst => f.flat_vdst = reg8(o, fam),
            Field::FlatAddr => f.flat_addr = reg8(o, fam),
            Field::FlatData => f.flat_data = reg8(o, fam),
            Field::FlatSaddr => f.flat_saddr = (o != Operand::None).then(|| reg8(o, fam)),
            Field::ImplicitSrc | Field::ImplicitDst => {}
        }
    }
    // GFX11 v_cmpx_* in VOP3 writes EXEC through VDST = exec_lo.
    if fam == Family::Gfx11 && matches!(inst.op.info().shape, Shape::VopcX { .. }) {
        f.vdst = 0x7E;
    }
    f
}

/// The DPP16 dword (src0 is the VGPR number).
pub(crate) fn dpp16_word(d: &Dpp16, src0_vgpr: u32, neg: u8, abs: u8) -> u32 {
    src0_vgpr & 0xFF
        | u32::from(d.ctrl.encode()) << 8
        | u32::from(d.fi) << 18
        | u32::from(d.bound_ctrl) << 19
        | u32::from(neg & 1) << 20
        | u32::from(abs & 1) << 21
        | u32::from(neg >> 1 & 1) << 22
        | u32::from(abs >> 1 & 1) << 23
        | u32::from(d.bank_mask & 15) << 24
        | u32::from(d.row_mask & 15) << 28
}

/// The DPP8 dword.
pub(crate) fn dpp8_word(d: &Dpp8, src0_vgpr: u32) -> u32 {
    src0_vgpr & 0xFF | d.encode_sel() << 8
}

/// The VOP3 opcode of an op whose own format is `format` with opcode `opcode`.
pub(crate) fn vop3_opcode(format: Format, opcode: u16, family: Family) -> u32 {
    let base = match (format, family) {
        (Format::Vopc, _) => 0,
        (Format::Vop2, _) => 0x100,
        (Format::Vop1, Family::Gfx9) => 0x140,
        (Format::Vop1, Family::Gfx11) => 0x180,
        _ => 0,
    };
    base + u32::from(opcode)
}

/// The machine words of one instruction (at most 3: a 64-bit encoding plus a literal or DPP
/// dword), kept inline; it reads as a slice.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Words {
    len: u8,
    w: [u32; 4],
}

impl Words {
    fn push(&mut self, x: u32) {
        self.w[usize::from(self.len)] = x;
        self.len += 1;
    }

    fn extend(&mut self, x: Option<u32>) {
        if let Some(x) = x {
            self.push(x);
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.w[..usize::from(self.len)]
    }
}

pub(crate) fn words(inst: &Inst, target: Target, r: &Resolved) -> Words {
    let fam = target.family();
    let gfx9 = fam == Family::Gfx9;
    let f = gather(inst, target, r);
    let op = u32::from(r.enc.opcode);
    let imm16 = (inst.imm as u32) & 0xFFFF;
    let c = inst.cache;
    let mut w = Words::default();
    match r.enc.format {
        Format::Sop1 => {
            w.push(0xBE80_0000 | f.sdst << 16 | op << 8 | f.ssrc0);
            w.extend(r.literal);
        }
        Format::Sop2 => {
            w.push(0x8000_0000 | op << 23 | f.sdst << 16 | f.ssrc1 << 8 | f.ssrc0);
            w.extend(r.literal);
        }
        Format::Sopk => w.push(0xB000_0000 | op << 23 | f.sdst << 16 | imm16),
        Format::Sopc => {
            w.push(0xBF00_0000 | op << 16 | f.ssrc1 << 8 | f.ssrc0);
            w.extend(r.literal);
        }
        Format::Sopp => w.push(0xBF80_0000 | op << 16 | imm16),
        Format::Smem => {
            let off = (inst.imm as u32) & 0x1F_FFFF;
            let is_load = matches!(inst.op.info().shape, Shape::SmemLoad { .. });
            let common = op << 18 | f.smem_data << 6 | f.smem_base >> 1;
            if gfx9 {
                let glc = u32::from(c.glc_sc0) << 16;
                let (w0, w1) = match (is_load, f.smem_off) {
                    (false, _) => (0, 0),
                    (true, None) => (1 << 17, off),
                    (true, Some(s)) if inst.imm == 0 => (0, s),
                    (true, Some(s)) => (1 << 17 | 1 << 14, off | s << 25),
                };
                w.push(0xC000_0000 | common | glc | w0);
                w.push(w1);
            } else {
                let bits = u32::from(c.glc_sc0) << 14 | u32::from(c.dlc) << 13;
                let w1 = if is_load { off | f.smem_off.unwrap_or(0x7C) << 25 } else { 0 };
                w.push(0xF400_0000 | common | bits);
                w.push(w1);
            }
        }
        Format::Vop1 | Format::Vop2 | Format::Vopc if r.enc32 == Enc32::E32 => {
            let (src0, extra) = match inst.dpp {
                Dpp::None => (f.src0, r.literal),
                Dpp::Dpp16(d) => (SRC_DPP16, Some(dpp16_word(&d, f.src0 - 256, inst.mods.neg, inst.mods.abs))),
                Dpp::Dpp8(d) => (if d.fi { SRC_DPP8_FI } else { SRC_DPP8 }, Some(dpp8_word(&d, f.src0 - 256))),
            };
            let vsrc1 = f.src1.saturating_sub(256) & 0xFF;
            w.push(match r.enc.format {
                Format::Vop1 => 0x7E00_0000 | f.vdst << 17 | op << 9 | src0,
                Format::Vop2 => op << 25 | f.vdst << 17 | vsrc1 << 9 | src0,
                _ => 0x7C00_0000 | op << 17 | vsrc1 << 9 | src0,
            });
            w.extend(extra);
        }
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => {
            let op3 = vop3_opcode(r.enc.format, r.enc.opcode, fam);
            let prefix = if gfx9 { 0xD000_0000 } else { 0xD400_0000 };
            let m = inst.mods;
            let vop3b = r.layout.iter().any(|s| s.field == Field::Sdst3);
            let mid = if vop3b { f.sdst3 << 8 } else { u32::from(m.op_sel & 15) << 11 | u32::from(m.abs & 7) << 8 };
            let w0 = prefix | op3 << 16 | u32::from(m.clamp) << 15 | mid | f.vdst;
            let (src0, extra) = match inst.dpp {
                Dpp::None => (f.src0, r.literal),
                Dpp::Dpp16(d) => (SRC_DPP16, Some(dpp16_word(&d, f.src0 - 256, 0, 0))),
                Dpp::Dpp8(d) => (if d.fi { SRC_DPP8_FI } else { SRC_DPP8 }, Some(dpp8_word(&d, f.src0 - 256))),
            };
            let w1 = u32::from(m.neg & 7) << 29 | u32::from(m.omod & 3) << 27 | f.src2 << 18 | f.src1 << 9 | src0;
            w.push(w0);
            w.push(w1);
            w.extend(extra);
        }
        Format::Ds => {
            let offset = match inst.op.info().shape {
                Shape::DsLoad2 { .. } => (inst.imm as u32 & 0xFF) | u32::from(inst.imm1) << 8,
                _ => imm16,
            };
            let opf = if gfx9 { op << 17 } else { op << 18 };
            w.push(0xD800_0000 | opf | offset);
            w.push(f.ds_vdst << 24 | f.ds_data1 << 16 | f.ds_data0 << 8 | f.ds_addr);
        }
        Format::Flat | Format::Global => {
            let seg = if r.enc.format == Format::Global { 2 } else { 0 };
            let off = (inst.imm as u32) & 0x1FFF;
            let ret = matches!(inst.op.info().shape, Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. })
                && inst.operands[0] != Operand::None;
            let glc = c.glc_sc0 || ret;
            let (w0, off_code) = if gfx9 {
                let bits = u32::from(glc) << 16 | u32::from(c.slc_nt) << 17 | u32::from(c.sc1) << 25;
                (0xDC00_0000 | op << 18 | seg << 14 | bits | off, 0x7F)
            } else {
                let bits = u32::from(c.slc_nt) << 15 | u32::from(glc) << 14 | u32::from(c.dlc) << 13;
                (0xDC00_0000 | op << 18 | seg << 16 | bits | off, 0x7C)
            };
            let saddr = match (r.enc.format, f.flat_saddr) {
                (_, Some(s)) => s,
                (Format::Flat, None) if gfx9 => 0,
                (_, None) => off_code,
            };
            w.push(w0);
            w.push(f.flat_vdst << 24 | saddr << 16 | f.flat_data << 8 | f.flat_addr);
        }
        Format::Mubuf => {
            let bits =
                if gfx9 { u32::from(c.glc_sc0) << 14 | u32::from(c.sc1) << 15 | u32::from(c.slc_nt) << 17 } else { 0 };
            w.push(0xE000_0000 | op << 18 | bits);
            w.push(0);
        }
    }
    w
}
