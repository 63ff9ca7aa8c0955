//! The decoder: machine words → [`Inst`] for gfx90a, gfx942 and gfx1100
//! (docs/amdgcn-isa-facts.md §3).
//!
//! Decoding is lenient field extraction followed by two strict steps: the result must pass
//! [`Inst::check`], and re-encoding it must give back exactly the input bytes. So every bit is
//! accounted for (reserved bits, SDWA, GDS, AGPRs, scratch and other encodings qd does not use are
//! rejected with an error, never misread), and decode never panics on any input.

use crate::check;
use crate::dpp::{Dpp16, Dpp8, DppCtrl};
use crate::encode::{self, SRC_DPP16, SRC_DPP8, SRC_DPP8_FI, SRC_LITERAL};
use crate::inst::{Cache, Dpp, Form, Inst, IsaError, Mods, MAX_OPERANDS};
use crate::layout::{self, Field, Kind, Slot, Variant};
use crate::operand::{InlineFloat, Operand, RegRange};
use crate::table::{Enc, Format, Op, Shape, SoppImm};
use crate::target::{Family, Target};

/// Decodes one instruction at the start of `bytes`; returns it and its size in bytes.
pub fn decode(bytes: &[u8], target: Target) -> Result<(Inst, usize), IsaError> {
    let w0 = word(bytes, 0).ok_or_else(|| raw_err(bytes, target, "fewer than 4 bytes"))?;
    let err = |reason: String| IsaError { inst: format!("0x{w0:08x}"), target: target.to_string(), reason };
    let (inst, size) = decode_fields(bytes, w0, target).map_err(err)?;
    let r =
        check::resolve(&inst, target).map_err(|e| err(format!("decodes to an illegal instruction: {}", e.reason)))?;
    let words = encode::words(&inst, target, &r);
    let again: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if again.len() != size || bytes.get(..size) != Some(&again[..]) {
        return Err(err(
            "uses encoding bits qd does not model (reserved bits, SDWA, GDS, AGPRs or a non-canonical form)".into(),
        ));
    }
    Ok((inst, size))
}

/// Decodes a whole code blob; returns each instruction with its byte offset.
pub fn decode_all(bytes: &[u8], target: Target) -> Result<Vec<(u32, Inst)>, IsaError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let (inst, size) = decode(&bytes[at..], target).map_err(|mut e| {
            e.reason = format!("at byte offset {at}: {}", e.reason);
            e
        })?;
        out.push((at as u32, inst));
        at += size;
    }
    Ok(out)
}

fn raw_err(bytes: &[u8], target: Target, reason: &str) -> IsaError {
    IsaError { inst: format!("{bytes:02x?}"), target: target.to_string(), reason: reason.to_string() }
}

fn word(bytes: &[u8], i: usize) -> Option<u32> {
    let b = bytes.get(4 * i..4 * i + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn need(bytes: &[u8], i: usize) -> Result<u32, String> {
    word(bytes, i).ok_or_else(|| format!("truncated: needs dword {i}"))
}

fn find_op(target: Target, pred: impl Fn(Op, &Enc) -> bool) -> Option<Op> {
    Op::ALL.iter().copied().find(|&op| op.enc(target.arch).is_some_and(|e| pred(op, e)))
}

fn sext(v: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((v << shift) as i32) >> shift
}

/// An operand from a source/scalar code (9-bit; VGPRs are 256 + n).
pub(crate) fn operand_from_code(code: u32, width: u8, family: Family, literal: Option<u32>) -> Result<Operand, String> {
    let w = width.max(1);
    Ok(match code {
        c if c <= u32::from(layout::max_sgpr(family)) => Operand::Sgpr(RegRange { first: c as u16, len: w }),
        106 if w == 2 => Operand::Vcc,
        106 => Operand::VccLo,
        107 => Operand::VccHi,
        124 if family == Family::Gfx9 => Operand::M0,
        124 => Operand::Null,
        125 if family == Family::Gfx11 => Operand::M0,
        126 if w == 2 => Operand::Exec,
        126 => Operand::ExecLo,
        127 => Operand::ExecHi,
        128..=192 => Operand::Int((code - 128) as i8),
        193..=208 => Operand::Int(-((code - 192) as i8)),
        240..=248 => Operand::Float(InlineFloat::ALL[(code - 240) as usize]),
        253 => Operand::Scc,
        255 => Operand::Literal(literal.ok_or("literal marker without a literal")?),
        256..=511 => Operand::Vgpr(RegRange { first: (code - 256) as u16, len: w }),
        c => return Err(format!("source code {c} is not supported (special register or reserved)")),
    })
}

/// Raw field values of one instruction (9-bit codes for sources).
#[derive(Default)]
struct Raw {
    sdst: u32,
    ssrc0: u32,
    ssrc1: u32,
    vdst: u32,
    src: [u32; 3],
    sdst3: u32,
    smem: [u32; 3],
    smem_off_present: bool,
    ds: [u32; 4],
    flat: [u32; 4],
}

/// Builds the operands of a layout from raw fields.
fn operands(
    slots: &[Slot],
    raw: &Raw,
    target: Target,
    literal: Option<u32>,
) -> Result<[Operand; MAX_OPERANDS], String> {
    let fam = target.family();
    let mut ops = [Operand::None; MAX_OPERANDS];
    for (i, s) in slots.iter().enumerate() {
        let vgpr = |n: u32| Operand::Vgpr(RegRange { first: n as u16, len: s.width });
        let scalar = |c: u32| operand_from_code(c, s.width, fam, literal);
        let implicit = target.wave.vcc();
        let o = match s.field {
            Field::Sdst => scalar(raw.sdst)?,
            Field::Ssrc0 => scalar(raw.ssrc0)?,
            Field::Ssrc1 => scalar(raw.ssrc1)?,
            Field::Vdst if s.kind == Kind::VReg => vgpr(raw.vdst),
            Field::Vdst => scalar(raw.vdst)?,
            Field::Src0 => scalar(raw.src[0])?,
            Field::Src1 => scalar(raw.src[1])?,
            Field::Src2 => scalar(raw.src[2])?,
            Field::Sdst3 => scalar(raw.sdst3)?,
            Field::SmemData => scalar(raw.smem[0])?,
            Field::SmemBase => scalar(raw.smem[1] << 1)?,
            Field::SmemOff if raw.smem_off_present => scalar(raw.smem[2])?,
            Field::SmemOff => Operand::None,
            Field::DsVdst => vgpr(raw.ds[0]),
            Field::DsAddr => vgpr(raw.ds[1]),
            Field::DsData0 => vgpr(raw.ds[2]),
            Field::DsData1 => vgpr(raw.ds[3]),
            Field::FlatVdst => vgpr(raw.flat[0]),
            Field::FlatAddr => vgpr(raw.flat[1]),
            Field::FlatData => vgpr(raw.flat[2]),
            Field::FlatSaddr => match raw.flat[3] {
                0x7F if fam == Family::Gfx9 => Operand::None,
                0x7C if fam == Family::Gfx11 => Operand::None,
                c => scalar(c)?,
            },
            Field::ImplicitSrc | Field::ImplicitDst => implicit,
        };
        ops[i] = o;
    }
    Ok(ops)
}

fn blank(op: Op, form: Form) -> Inst {
    Inst {
        op,
        form,
        dpp: Dpp::None,
        operands: [Operand::None; MAX_OPERANDS],
        mods: Mods::default(),
        imm: 0,
        imm1: 0,
        cache: Cache::default(),
    }
}

fn decode_fields(bytes: &[u8], w: u32, target: Target) -> Result<(Inst, usize), String> {
    let fam = target.family();
    let gfx9 = fam == Family::Gfx9;
    let mut raw = Raw::default();
    let top6 = w >> 26;
    // Scalar ALU formats.
    let salu = if w >> 23 == 0x17D {
        raw.sdst = w >> 16 & 0x7F;
        raw.ssrc0 = w & 0xFF;
        Some((Format::Sop1, w >> 8 & 0xFF))
    } else if w >> 23 == 0x17E {
        raw.ssrc0 = w & 0xFF;
        raw.ssrc1 = w >> 8 & 0xFF;
        Some((Format::Sopc, w >> 16 & 0x7F))
    } else if w >> 23 == 0x17F {
        Some((Format::Sopp, w >> 16 & 0x7F))
    } else if w >> 28 == 0xB {
        raw.sdst = w >> 16 & 0x7F;
        Some((Format::Sopk, w >> 23 & 0x1F))
    } else if w >> 30 == 0b10 {
        raw.sdst = w >> 16 & 0x7F;
        raw.ssrc0 = w & 0xFF;
        raw.ssrc1 = w >> 8 & 0xFF;
        Some((Format::Sop2, w >> 23 & 0x7F))
    } else {
        None
    };
    if let Some((format, opcode)) = salu {
        let op = find_op(target, |_, e| e.format == format && u32::from(e.opcode) == opcode)
            .ok_or_else(|| format!("unknown {format:?} opcode {opcode}"))?;
        let mut inst = blank(op, Form::Native);
        let slots = layout::layout(op, target, Variant::default());
        let uses_lit = slots.iter().any(|s| {
            (s.field == Field::Ssrc0 && raw.ssrc0 == SRC_LITERAL)
                || (s.field == Field::Ssrc1 && raw.ssrc1 == SRC_LITERAL)
        });
        let literal = if uses_lit { Some(need(bytes, 1)?) } else { None };
        inst.operands = operands(&slots, &raw, target, literal)?;
        let imm16 = w & 0xFFFF;
        inst.imm = match op.info().shape {
            Shape::Sopp(SoppImm::Branch) | Shape::Sopk | Shape::SopkCmp => sext(imm16, 16),
            _ if format == Format::Sopp || format == Format::Sopk => imm16 as i32,
            _ => 0,
        };
        return Ok((inst, if literal.is_some() { 8 } else { 4 }));
    }
    let smem_prefix = if gfx9 { 0x30 } else { 0x3D };
    if top6 == smem_prefix {
        let w1 = need(bytes, 1)?;
        let opcode = w >> 18 & 0xFF;
        let op = find_op(target, |_, e| e.format == Format::Smem && u32::from(e.opcode) == opcode)
            .ok_or_else(|| format!("unknown SMEM opcode {opcode}"))?;
        let mut inst = blank(op, Form::Native);
        raw.smem[0] = w >> 6 & 0x7F;
        raw.smem[1] = w & 0x3F;
        let is_load = matches!(op.info().shape, Shape::SmemLoad { .. });
        if gfx9 {
            inst.cache.glc_sc0 = w >> 16 & 1 == 1;
            let (imm_bit, soe) = (w >> 17 & 1 == 1, w >> 14 & 1 == 1);
            if is_load {
                match (imm_bit, soe) {
                    (true, false) => inst.imm = sext(w1 & 0x1F_FFFF, 21),
                    (false, _) => {
                        raw.smem_off_present = true;
                        raw.smem[2] = w1 & 0x7F;
                    }
                    (true, true) => {
                        raw.smem_off_present = true;
                        raw.smem[2] = w1 >> 25;
                        inst.imm = sext(w1 & 0x1F_FFFF, 21);
                    }
                }
            }
        } else {
            inst.cache.glc_sc0 = w >> 14 & 1 == 1;
            inst.cache.dlc = w >> 13 & 1 == 1;
            if is_load {
                inst.imm = sext(w1 & 0x1F_FFFF, 21);
                raw.smem[2] = w1 >> 25;
                raw.smem_off_present = raw.smem[2] != 0x7C;
            }
        }
        let slots = layout::layout(op, target, Variant::default());
        inst.operands = operands(&slots, &raw, target, None)?;
        return Ok((inst, 8));
    }
    match top6 {
        0x36 => return decode_ds(bytes, w, target, raw),
        0x37 => return decode_flat(bytes, w, target, raw),
        0x38 => {
            let opcode = if gfx9 { w >> 18 & 0x7F } else { w >> 18 & 0xFF };
            let op = find_op(target, |_, e| e.format == Format::Mubuf && u32::from(e.opcode) == opcode)
                .ok_or_else(|| format!("unknown MUBUF opcode {opcode}"))?;
            need(bytes, 1)?;
            let mut inst = blank(op, Form::Native);
            if gfx9 {
                inst.cache =
                    Cache { glc_sc0: w >> 14 & 1 == 1, sc1: w >> 15 & 1 == 1, slc_nt: w >> 17 & 1 == 1, dlc: false };
            }
            return Ok((inst, 8));
        }
        _ => {}
    }
    let vop3_prefix = if gfx9 { 0x34 } else { 0x35 };
    if top6 == vop3_prefix {
        return decode_vop3(bytes, w, target, raw);
    }
    // 32-bit VALU encodings.
    let (format, opcode) = if w >> 25 == 0x3F {
        raw.vdst = w >> 17 & 0xFF;
        (Format::Vop1, w >> 9 & 0xFF)
    } else if w >> 25 == 0x3E {
        raw.src[1] = 256 + (w >> 9 & 0xFF);
        (Format::Vopc, w >> 17 & 0xFF)
    } else if w >> 31 == 0 {
        raw.vdst = w >> 17 & 0xFF;
        raw.src[1] = 256 + (w >> 9 & 0xFF);
        (Format::Vop2, w >> 25 & 0x3F)
    } else {
        return Err(format!("unknown or unsupported encoding (prefix 0x{top6:02x})"));
    };
    let op = find_op(target, |_, e| e.format == format && u32::from(e.opcode) == opcode)
        .ok_or_else(|| format!("unknown {format:?} opcode {opcode}"))?;
    let mut inst = blank(op, Form::E32);
    let src0 = w & 0x1FF;
    let mut size = 4;
    let mut literal = None;
    match src0 {
        SRC_DPP16 => {
            let d = need(bytes, 1)?;
            size = 8;
            let (dpp, neg, abs) = dpp16_from(d)?;
            inst.dpp = Dpp::Dpp16(dpp);
            inst.mods.neg = neg;
            inst.mods.abs = abs;
            raw.src[0] = 256 + (d & 0xFF);
        }
        SRC_DPP8 | SRC_DPP8_FI if fam == Family::Gfx11 => {
            let d = need(bytes, 1)?;
            size = 8;
            inst.dpp = Dpp::Dpp8(Dpp8 { sel: Dpp8::decode_sel(d >> 8), fi: src0 == SRC_DPP8_FI });
            raw.src[0] = 256 + (d & 0xFF);
        }
        0xF9 if gfx9 => return Err("SDWA is not supported".into()),
        SRC_LITERAL => {
            literal = Some(need(bytes, 1)?);
            size = 8;
            raw.src[0] = src0;
        }
        _ => raw.src[0] = src0,
    }
    let v = Variant { vop3: false, dpp: inst.dpp != Dpp::None, saddr: false };
    let slots = layout::layout(op, target, v);
    inst.operands = operands(&slots, &raw, target, literal)?;
    Ok((inst, size))
}

fn dpp16_from(d: u32) -> Result<(Dpp16, u8, u8), String> {
    let ctrl_bits = (d >> 8 & 0x1FF) as u16;
    let ctrl = DppCtrl::decode(ctrl_bits).ok_or_else(|| format!("reserved DPP control 0x{ctrl_bits:x}"))?;
    let dpp = Dpp16 {
        ctrl,
        row_mask: (d >> 28 & 15) as u8,
        bank_mask: (d >> 24 & 15) as u8,
        bound_ctrl: d >> 19 & 1 == 1,
        fi: d >> 18 & 1 == 1,
    };
    let neg = (d >> 20 & 1 | (d >> 22 & 1) << 1) as u8;
    let abs = (d >> 21 & 1 | (d >> 23 & 1) << 1) as u8;
    Ok((dpp, neg, abs))
}

fn decode_vop3(bytes: &[u8], w: u32, target: Target, mut raw: Raw) -> Result<(Inst, usize), String> {
    let fam = target.family();
    let w1 = need(bytes, 1)?;
    let op3 = w >> 16 & 0x3FF;
    let op = find_op(target, |op, e| {
        layout::is_valu(e.format)
            && (e.format == Format::Vop3 || layout::has_e64(op))
            && encode::vop3_opcode(e.format, e.opcode, fam) == op3
    })
    .ok_or_else(|| format!("unknown VOP3 opcode 0x{op3:x}"))?;
    let mut inst = blank(op, layout::vop3_form(op));
    raw.vdst = w & 0xFF;
    raw.sdst3 = w >> 8 & 0x7F;
    inst.mods = Mods {
        neg: (w1 >> 29) as u8,
        abs: (w >> 8 & 7) as u8,
        clamp: w >> 15 & 1 == 1,
        omod: (w1 >> 27 & 3) as u8,
        op_sel: (w >> 11 & 15) as u8,
    };
    raw.src = [w1 & 0x1FF, w1 >> 9 & 0x1FF, w1 >> 18 & 0x1FF];
    let mut size = 8;
    let mut literal = None;
    match raw.src[0] {
        SRC_DPP16 if fam == Family::Gfx11 => {
            let d = need(bytes, 2)?;
            size = 12;
            let (dpp, neg, abs) = dpp16_from(d)?;
            if neg | abs != 0 {
                return Err("VOP3-DPP keeps its modifiers in the VOP3 word".into());
            }
            inst.dpp = Dpp::Dpp16(dpp);
            raw.src[0] = 256 + (d & 0xFF);
        }
        SRC_DPP8 | SRC_DPP8_FI if fam == Family::Gfx11 => {
            let d = need(bytes, 2)?;
            size = 12;
            inst.dpp = Dpp::Dpp8(Dpp8 { sel: Dpp8::decode_sel(d >> 8), fi: raw.src[0] == SRC_DPP8_FI });
            raw.src[0] = 256 + (d & 0xFF);
        }
        _ => {}
    }
    let v = Variant { vop3: true, dpp: inst.dpp != Dpp::None, saddr: false };
    let slots = layout::layout(op, target, v);
    let vop3b = slots.iter().any(|s| s.field == Field::Sdst3);
    if vop3b {
        inst.mods.abs = 0;
        inst.mods.op_sel = 0;
    }
    let uses_lit = slots.iter().any(|s| match s.field {
        Field::Src0 => raw.src[0] == SRC_LITERAL,
        Field::Src1 => raw.src[1] == SRC_LITERAL,
        Field::Src2 => raw.src[2] == SRC_LITERAL,
        _ => false,
    });
    if uses_lit {
        literal = Some(need(bytes, size / 4)?);
        size += 4;
    }
    inst.operands = operands(&slots, &raw, target, literal)?;
    Ok((inst, size))
}

fn decode_ds(bytes: &[u8], w: u32, target: Target, mut raw: Raw) -> Result<(Inst, usize), String> {
    let gfx9 = target.family() == Family::Gfx9;
    let w1 = need(bytes, 1)?;
    let opcode = if gfx9 { w >> 17 & 0xFF } else { w >> 18 & 0xFF };
    let op = find_op(target, |_, e| e.format == Format::Ds && u32::from(e.opcode) == opcode)
        .ok_or_else(|| format!("unknown DS opcode {opcode}"))?;
    let mut inst = blank(op, Form::Native);
    match op.info().shape {
        Shape::DsLoad2 { .. } => {
            inst.imm = (w & 0xFF) as i32;
            inst.imm1 = (w >> 8 & 0xFF) as u8;
        }
        _ => inst.imm = (w & 0xFFFF) as i32,
    }
    raw.ds = [w1 >> 24, w1 & 0xFF, w1 >> 8 & 0xFF, w1 >> 16 & 0xFF];
    let slots = layout::layout(op, target, Variant::default());
    inst.operands = operands(&slots, &raw, target, None)?;
    Ok((inst, 8))
}

fn decode_flat(bytes: &[u8], w: u32, target: Target, mut raw: Raw) -> Result<(Inst, usize), String> {
    let gfx9 = target.family() == Family::Gfx9;
    let w1 = need(bytes, 1)?;
    let seg = if gfx9 { w >> 14 & 3 } else { w >> 16 & 3 };
    let format = match seg {
        0 => Format::Flat,
        2 => Format::Global,
        _ => return Err("scratch instructions are not supported".into()),
    };
    let opcode = w >> 18 & 0x7F;
    let op = find_op(target, |_, e| e.format == format && u32::from(e.opcode) == opcode)
        .ok_or_else(|| format!("unknown {format:?} opcode {opcode}"))?;
    let mut inst = blank(op, Form::Native);
    inst.imm = if format == Format::Global { sext(w & 0x1FFF, 13) } else { (w & 0x1FFF) as i32 };
    let glc = if gfx9 { w >> 16 & 1 } else { w >> 14 & 1 } == 1;
    inst.cache = if gfx9 {
        Cache { glc_sc0: glc, slc_nt: w >> 17 & 1 == 1, sc1: w >> 25 & 1 == 1, dlc: false }
    } else {
        Cache { glc_sc0: glc, slc_nt: w >> 15 & 1 == 1, dlc: w >> 13 & 1 == 1, sc1: false }
    };
    raw.flat = [w1 >> 24, w1 & 0xFF, w1 >> 8 & 0xFF, w1 >> 16 & 0x7F];
    let atomic = matches!(op.info().shape, Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. });
    let off_code = if gfx9 { 0x7F } else { 0x7C };
    let saddr = format == Format::Global && raw.flat[3] != off_code;
    if format == Format::Flat && raw.flat[3] != if gfx9 { 0 } else { 0x7C } {
        return Err("FLAT with an saddr is not supported".into());
    }
    let v = Variant { vop3: false, dpp: false, saddr };
    let slots = layout::layout(op, target, v);
    inst.operands = operands(&slots, &raw, target, None)?;
    if atomic {
        inst.cache.glc_sc0 = false;
        if !glc {
            inst.operands[0] = Operand::None;
        }
    }
    Ok((inst, 8))
}
