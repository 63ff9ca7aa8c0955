//! Operand layouts: for one instruction variant (op, target, VOP3 or not, DPP or not, saddr /
//! soffset / return present or not), which operand slots it has, what each slot accepts and which
//! encoding field holds it.
//!
//! This is the single description the checker, encoder, decoder, printer and parser share, so the
//! five cannot disagree about where an operand lives. Formats and field positions are those of
//! docs/amdgcn-isa-facts.md §3; the slot order is the assembler order of [`Shape`].

use crate::inst::{Dpp, Form, Inst, MAX_OPERANDS};
use crate::operand::Operand;
use crate::table::{Enc, Format, Op, Shape};
use crate::target::{Family, Target};

/// What a slot accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A scalar destination: SGPRs and the writable special registers (vcc, exec, m0, null).
    SDst,
    /// A scalar source: an [`Kind::SDst`] register, a constant, a literal or `src_scc`.
    SSrc,
    /// SGPRs only (SMEM base/offset/data, global saddr).
    SReg,
    /// VGPRs only.
    VReg,
    /// Any VALU source: a VGPR or anything [`Kind::SSrc`] takes.
    VSrc,
    /// A lane-mask destination (compare result, carry-out): an SGPR (pair in wave64), vcc, or null.
    MaskDst,
    /// A lane-mask source (cndmask selector, carry-in): an SGPR (pair in wave64) or vcc.
    MaskSrc,
    /// The implicit vcc of the 32-bit encodings (printed, not encoded).
    ImplicitVcc,
    /// Only `null` (`s_waitcnt_vscnt`).
    Null,
}

impl Kind {
    /// What the slot takes, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::SDst => "a scalar register",
            Kind::SSrc => "a scalar register or constant",
            Kind::SReg => "an SGPR",
            Kind::VReg => "a VGPR",
            Kind::VSrc => "a VGPR, scalar register or constant",
            Kind::MaskDst => "a lane mask (SGPRs, vcc or null)",
            Kind::MaskSrc => "a lane mask (SGPRs or vcc)",
            Kind::ImplicitVcc => "the vcc the 32-bit encoding implies",
            Kind::Null => "null",
        }
    }
}

/// Where a slot lives in the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    /// SOP1/SOP2/SOPK SDST.
    Sdst,
    /// SALU SSRC0.
    Ssrc0,
    /// SALU SSRC1.
    Ssrc1,
    /// VALU VDST (VOP1/VOP2 [24:17], VOP3 [7:0]).
    Vdst,
    /// VALU SRC0.
    Src0,
    /// VALU SRC1 (VOP2/VOPC VSRC1, VOP3 SRC1).
    Src1,
    /// VOP3 SRC2.
    Src2,
    /// VOP3B SDST [14:8].
    Sdst3,
    /// SMEM SDATA.
    SmemData,
    /// SMEM SBASE.
    SmemBase,
    /// SMEM SOFFSET.
    SmemOff,
    /// DS VDST.
    DsVdst,
    /// DS ADDR.
    DsAddr,
    /// DS DATA0.
    DsData0,
    /// DS DATA1.
    DsData1,
    /// FLAT VDST.
    FlatVdst,
    /// FLAT ADDR.
    FlatAddr,
    /// FLAT DATA.
    FlatData,
    /// FLAT SADDR.
    FlatSaddr,
    /// Not encoded, read (implicit vcc carry-in / cndmask selector).
    ImplicitSrc,
    /// Not encoded, written (implicit vcc compare result / carry-out).
    ImplicitDst,
}

impl Field {
    /// The operand's role, for messages.
    pub(crate) fn role(self) -> &'static str {
        match self {
            Field::Sdst | Field::Sdst3 => "sdst",
            Field::Ssrc0 => "ssrc0",
            Field::Ssrc1 => "ssrc1",
            Field::Vdst | Field::DsVdst | Field::FlatVdst => "vdst",
            Field::Src0 => "src0",
            Field::Src1 => "src1",
            Field::Src2 => "src2",
            Field::SmemData => "sdata",
            Field::SmemBase => "sbase",
            Field::SmemOff => "soffset",
            Field::DsAddr | Field::FlatAddr => "vaddr",
            Field::DsData0 | Field::FlatData => "data0",
            Field::DsData1 => "data1",
            Field::FlatSaddr => "saddr",
            Field::ImplicitSrc | Field::ImplicitDst => "vcc",
        }
    }

    /// Whether a VALU reads this slot as a source (for the constant-bus count).
    pub(crate) fn is_valu_source(self) -> bool {
        matches!(self, Field::Src0 | Field::Src1 | Field::Src2 | Field::ImplicitSrc)
    }
}

/// One operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// What it accepts.
    pub kind: Kind,
    /// Width in 32-bit registers.
    pub width: u8,
    /// Where it is encoded.
    pub field: Field,
    /// Whether [`Operand::None`] is allowed (`off` saddr, absent soffset, non-returning atomic).
    pub optional: bool,
}

/// The encoding of a VALU instruction (or the only encoding of anything else).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Enc32 {
    /// Not a VALU op.
    Other,
    /// The 32-bit VOP1/VOP2/VOPC encoding.
    E32,
    /// The 64-bit VOP3 encoding.
    Vop3,
}

/// The variant bits that select a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Variant {
    /// VOP3 encoding.
    pub vop3: bool,
    /// A DPP16 or DPP8 modifier is present.
    pub dpp: bool,
    /// Global instruction with an SGPR saddr (vaddr is then one VGPR).
    pub saddr: bool,
}

/// The slots of an instruction variant, in assembler order: at most one per operand, kept
/// inline (the encoder resolves one per instruction, so it allocates nothing). It reads as a
/// slice of [`Slot`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    len: u8,
    slots: [Slot; MAX_OPERANDS],
}

impl Layout {
    /// The layout of these slots (at most [`MAX_OPERANDS`], as every shape has).
    fn of(slots: &[Slot]) -> Layout {
        let filler = Slot { kind: Kind::Null, width: 0, field: Field::ImplicitSrc, optional: true };
        let mut l = Layout { len: slots.len() as u8, slots: [filler; MAX_OPERANDS] };
        l.slots[..slots.len()].copy_from_slice(slots);
        l
    }
}

impl std::ops::Deref for Layout {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        &self.slots[..usize::from(self.len)]
    }
}

impl<'a> IntoIterator for &'a Layout {
    type Item = &'a Slot;
    type IntoIter = std::slice::Iter<'a, Slot>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

fn slot(kind: Kind, width: u8, field: Field) -> Slot {
    Slot { kind, width, field, optional: false }
}

fn opt(kind: Kind, width: u8, field: Field) -> Slot {
    Slot { kind, width, field, optional: true }
}

/// Whether an op's table format is a 32-bit VALU format in some family (so its VOP3 form is
/// spelled `_e64` there and decodes to [`Form::E64`]).
pub(crate) fn has_vop32_format(op: Op) -> bool {
    let info = op.info();
    [info.gfx9, info.gfx11].iter().flatten().any(|e| matches!(e.format, Format::Vop1 | Format::Vop2 | Format::Vopc))
}

/// Whether the format is a VALU format.
pub(crate) fn is_valu(format: Format) -> bool {
    matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3)
}

/// The form an instruction in the VOP3 encoding of `op` decodes to.
pub(crate) fn vop3_form(op: Op) -> Form {
    if has_vop32_format(op) {
        Form::E64
    } else {
        Form::Native
    }
}

/// Whether the op has a VOP3 (`_e64`) form besides its 32-bit one on this family.
pub(crate) fn has_e64(op: Op) -> bool {
    !matches!(op, Op::VReadfirstlaneB32 | Op::VNop | Op::VPermlane64B32)
}

/// Resolves the encoding of an instruction's form, or says why the form is illegal.
pub(crate) fn resolve_form(op: Op, enc: &Enc, form: Form) -> Result<Enc32, String> {
    match (enc.format, form) {
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Form::E32) => Ok(Enc32::E32),
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Form::E64) => {
            if has_e64(op) {
                Ok(Enc32::Vop3)
            } else {
                Err("has no VOP3 (_e64) encoding".into())
            }
        }
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Form::Native) => {
            Err("a VOP1/VOP2/VOPC op needs Form::E32 or Form::E64".into())
        }
        (Format::Vop3, Form::Native | Form::E64) => Ok(Enc32::Vop3),
        (Format::Vop3, Form::E32) => Err("has no 32-bit encoding on this target (use .e64())".into()),
        (_, Form::Native) => Ok(Enc32::Other),
        (_, Form::E32 | Form::E64) => Err("only VALU instructions have E32/E64 forms".into()),
    }
}

/// The variant of an instruction (assumes the form resolved).
pub(crate) fn variant_of(inst: &Inst, enc32: Enc32) -> Variant {
    let saddr = match inst.op.info().shape {
        Shape::GlobalLoad { .. } | Shape::GlobalStore { .. } => inst.operands[2] != Operand::None,
        Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. } => inst.operands[3] != Operand::None,
        _ => false,
    };
    Variant { vop3: enc32 == Enc32::Vop3, dpp: inst.dpp != Dpp::None, saddr }
}

/// The slots of `op` on `target` in variant `v`.
pub(crate) fn layout(op: Op, target: Target, v: Variant) -> Layout {
    use Field::*;
    use Kind::*;
    let m = target.wave.mask_sgprs();
    let family = target.family();
    // A VALU source slot: any source, or a VGPR under DPP (src0 always; src1 also in GFX11
    // VOP3-DPP, which LLVM 19 rejects with an SGPR there).
    let src0 = |w: u8| slot(if v.dpp { VReg } else { VSrc }, w, Src0);
    let src1 = |w: u8| slot(if v.vop3 && !v.dpp { VSrc } else { VReg }, w, Src1);
    let src2 = |w: u8| slot(VSrc, w, Src2);
    let vcc_dst = if v.vop3 { slot(MaskDst, m, Sdst3) } else { slot(ImplicitVcc, m, ImplicitDst) };
    let vaddr_w = if v.saddr { 1 } else { 2 };
    match op.info().shape {
        Shape::Sop1 { d, s } => Layout::of(&[slot(SDst, d, Sdst), slot(SSrc, s, Ssrc0)]),
        Shape::Sop1Dst { d } => Layout::of(&[slot(SDst, d, Sdst)]),
        Shape::Sop1Src { s } => Layout::of(&[slot(SDst, s, Ssrc0)]),
        Shape::Sop2 { d, s0, s1 } => Layout::of(&[slot(SDst, d, Sdst), slot(SSrc, s0, Ssrc0), slot(SSrc, s1, Ssrc1)]),
        Shape::Sopk | Shape::SopkCmp => Layout::of(&[slot(SDst, 1, Sdst)]),
        Shape::SopkWaitcnt => Layout::of(&[slot(Null, 1, Sdst)]),
        Shape::Sopc { s } => Layout::of(&[slot(SSrc, s, Ssrc0), slot(SSrc, s, Ssrc1)]),
        Shape::Sopp(_) | Shape::SmemNone | Shape::Vop1None | Shape::CacheCtl => Layout::of(&[]),
        Shape::SmemLoad { d, base } => {
            Layout::of(&[slot(SReg, d, SmemData), slot(SReg, base, SmemBase), opt(SReg, 1, SmemOff)])
        }
        Shape::SmemDst { d } => Layout::of(&[slot(SReg, d, SmemData)]),
        Shape::Vop1 { d, .. } if op == Op::VPermlane64B32 => Layout::of(&[slot(VReg, d, Vdst), slot(VReg, 1, Src0)]),
        Shape::Vop1 { d, s } => Layout::of(&[slot(VReg, d, Vdst), src0(s)]),
        Shape::Vop1Sdst => Layout::of(&[slot(SDst, 1, Vdst), slot(VReg, 1, Src0)]),
        Shape::Vop2 { d, s0, s1 } => Layout::of(&[slot(VReg, d, Vdst), src0(s0), src1(s1)]),
        Shape::Vop2Tied => Layout::of(&[slot(VReg, 1, Vdst), src0(1), src1(1)]),
        Shape::Vop2Cndmask => {
            let mask = if v.vop3 { slot(MaskSrc, m, Src2) } else { slot(ImplicitVcc, m, ImplicitSrc) };
            Layout::of(&[slot(VReg, 1, Vdst), src0(1), src1(1), mask])
        }
        Shape::Vop2CarryOut => Layout::of(&[slot(VReg, 1, Vdst), vcc_dst, src0(1), src1(1)]),
        Shape::Vop2CarryInOut => {
            let cin = if v.vop3 { slot(MaskSrc, m, Src2) } else { slot(ImplicitVcc, m, ImplicitSrc) };
            Layout::of(&[slot(VReg, 1, Vdst), vcc_dst, src0(1), src1(1), cin])
        }
        Shape::Vopc { s } => {
            let dst = if v.vop3 { slot(MaskDst, m, Vdst) } else { slot(ImplicitVcc, m, ImplicitDst) };
            Layout::of(&[dst, src0(s), src1(s)])
        }
        Shape::VopcClass { s } => {
            let dst = if v.vop3 { slot(MaskDst, m, Vdst) } else { slot(ImplicitVcc, m, ImplicitDst) };
            Layout::of(&[dst, src0(s), src1(1)])
        }
        Shape::VopcX { s } => match family {
            Family::Gfx9 => {
                let dst = if v.vop3 { slot(MaskDst, m, Vdst) } else { slot(ImplicitVcc, m, ImplicitDst) };
                Layout::of(&[dst, src0(s), src1(s)])
            }
            Family::Gfx11 => Layout::of(&[src0(s), src1(s)]),
        },
        Shape::Vop3 { d, s0, s1 } => Layout::of(&[slot(VReg, d, Vdst), src0(s0), src1(s1)]),
        Shape::Vop3Three { d, s0, s1, s2 } => Layout::of(&[slot(VReg, d, Vdst), src0(s0), src1(s1), src2(s2)]),
        Shape::Vop3bMad => Layout::of(&[slot(VReg, 2, Vdst), slot(MaskDst, m, Sdst3), src0(1), src1(1), src2(2)]),
        Shape::Vop3bDivScale { s } => {
            Layout::of(&[slot(VReg, s, Vdst), slot(MaskDst, m, Sdst3), src0(s), src1(s), src2(s)])
        }
        Shape::Readlane => Layout::of(&[slot(SDst, 1, Vdst), slot(VReg, 1, Src0), slot(SSrc, 1, Src1)]),
        Shape::Writelane => Layout::of(&[slot(VReg, 1, Vdst), slot(SSrc, 1, Src0), slot(SSrc, 1, Src1)]),
        Shape::Permlane => {
            Layout::of(&[slot(VReg, 1, Vdst), slot(VReg, 1, Src0), slot(SSrc, 1, Src1), slot(SSrc, 1, Src2)])
        }
        Shape::DsLoad { d } => Layout::of(&[slot(VReg, d, DsVdst), slot(VReg, 1, DsAddr)]),
        Shape::DsLoad2 { d } => Layout::of(&[slot(VReg, 2 * d, DsVdst), slot(VReg, 1, DsAddr)]),
        Shape::DsStore { s } | Shape::DsAtomic { s } => Layout::of(&[slot(VReg, 1, DsAddr), slot(VReg, s, DsData0)]),
        Shape::DsAtomicRtn { s } => Layout::of(&[slot(VReg, s, DsVdst), slot(VReg, 1, DsAddr), slot(VReg, s, DsData0)]),
        Shape::DsCmpstRtn { s } => {
            Layout::of(&[slot(VReg, s, DsVdst), slot(VReg, 1, DsAddr), slot(VReg, s, DsData0), slot(VReg, s, DsData1)])
        }
        Shape::DsSwizzle => Layout::of(&[slot(VReg, 1, DsVdst), slot(VReg, 1, DsAddr)]),
        Shape::DsAddtid => Layout::of(&[slot(VReg, 1, DsVdst)]),
        Shape::FlatLoad { d } => Layout::of(&[slot(VReg, d, FlatVdst), slot(VReg, 2, FlatAddr)]),
        Shape::FlatStore { s } => Layout::of(&[slot(VReg, 2, FlatAddr), slot(VReg, s, FlatData)]),
        Shape::GlobalLoad { d } => {
            Layout::of(&[slot(VReg, d, FlatVdst), slot(VReg, vaddr_w, FlatAddr), opt(SReg, 2, FlatSaddr)])
        }
        Shape::GlobalStore { s } => {
            Layout::of(&[slot(VReg, vaddr_w, FlatAddr), slot(VReg, s, FlatData), opt(SReg, 2, FlatSaddr)])
        }
        Shape::GlobalAtomic { s } => Layout::of(&[
            opt(VReg, s, FlatVdst),
            slot(VReg, vaddr_w, FlatAddr),
            slot(VReg, s, FlatData),
            opt(SReg, 2, FlatSaddr),
        ]),
        Shape::GlobalAtomicCas { s } => Layout::of(&[
            opt(VReg, s, FlatVdst),
            slot(VReg, vaddr_w, FlatAddr),
            slot(VReg, 2 * s, FlatData),
            opt(SReg, 2, FlatSaddr),
        ]),
    }
}

/// Whether the op is a 64-bit shift (constant bus limit 1 on GFX11 too).
pub(crate) fn is_wide_shift(op: Op) -> bool {
    matches!(op, Op::VLshlrevB64 | Op::VLshrrevB64 | Op::VAshrrevI64)
}

/// Whether an op is a VOPC compare (no omod).
pub(crate) fn is_compare(op: Op) -> bool {
    matches!(op.info().shape, Shape::Vopc { .. } | Shape::VopcX { .. } | Shape::VopcClass { .. })
}

/// Whether the op reads VCC without naming it (`v_div_fmas_f32/f64`: the lanes to scale); the
/// read counts on the constant bus as LLVM counts it.
pub(crate) fn reads_vcc_implicitly(op: Op) -> bool {
    matches!(op, Op::VDivFmasF32 | Op::VDivFmasF64)
}

/// What source and output modifiers a float op takes, where that is less than every value source
/// and clamp/omod (LLVM 19 rejects the rest): `src_mods` bit i = source i takes neg/abs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ModLimits {
    /// Sources that take neg/abs.
    pub src_mods: u8,
    /// Whether abs exists (VOP3B ops have no ABS field).
    pub abs: bool,
    /// Whether clamp exists.
    pub clamp: bool,
    /// Whether omod exists (float results only).
    pub omod: bool,
}

/// The modifier limits of a float op (`nsrc` value sources).
pub(crate) fn mod_limits(op: Op, nsrc: usize) -> ModLimits {
    let all = ((1u16 << nsrc) - 1) as u8;
    let full = ModLimits { src_mods: all, abs: true, clamp: true, omod: !is_compare(op) };
    match op.info().shape {
        // VOP3B: the SDST field takes the ABS bits' place.
        Shape::Vop3bDivScale { .. } => ModLimits { abs: false, ..full },
        // src1 is the integer class mask; no clamp on class compares.
        Shape::VopcClass { .. } => ModLimits { src_mods: 1, clamp: false, ..full },
        _ if matches!(op, Op::VLdexpF32 | Op::VLdexpF64) => ModLimits { src_mods: 1, ..full },
        // Integer result: clamp is accepted, omod is not.
        _ if matches!(op, Op::VFrexpExpI32F32 | Op::VFrexpExpI32F64) => ModLimits { omod: false, ..full },
        _ => full,
    }
}

/// Highest SGPR number of a family.
pub(crate) fn max_sgpr(family: Family) -> u16 {
    match family {
        Family::Gfx9 => 101,
        Family::Gfx11 => 105,
    }
}
