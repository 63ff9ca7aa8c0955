//! The legality checker: [`Inst::check`] rejects every instruction the target cannot encode, with
//! an [`IsaError`] naming the instruction, the target and the rule (docs/amdgcn-isa-facts.md §2,
//! §9).
//!
//! The encoder runs it first, and the decoder runs it on what it decoded, so an instruction that
//! passes is exactly one that has a single well-defined encoding: operand kinds and widths per
//! the op's [`Shape`], register ranges and tuple alignment, availability, form, literal rules,
//! constant-bus limits, DPP rules, modifiers, immediates and cache bits per family.

use crate::dpp::DppCtrl;
use crate::inst::{Cache, Dpp, Inst, IsaError, Mods, MAX_OPERANDS};
use crate::layout::{self, Enc32, Kind, Layout, Slot};
use crate::operand::Operand;
use crate::table::{flags, Enc, Format, Op, Shape, SoppImm};
use crate::target::{Arch, Family, Target};
use crate::waitcnt::Waitcnt;

/// What the checker resolved about a legal instruction (shared with the encoder and printer).
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    /// The op's encoding on the target.
    pub enc: &'static Enc,
    /// The VALU encoding.
    pub enc32: Enc32,
    /// The operand slots.
    pub layout: Layout,
    /// The literal dword, if any operand is a literal.
    pub literal: Option<u32>,
}

impl Inst {
    /// Checks that this instruction is encodable on `target` (see the module doc for the rules).
    pub fn check(&self, target: Target) -> Result<(), IsaError> {
        resolve(self, target).map(|_| ())
    }
}

/// Checks an instruction and returns what the encoder needs.
pub(crate) fn resolve(inst: &Inst, target: Target) -> Result<Resolved, IsaError> {
    let err = |reason: String| IsaError::new(inst.op, target, reason);
    if Target::new(target.arch, target.wave).is_none() {
        return Err(err(format!("{} cannot run {}-lane waves", target.arch, target.wave.lanes())));
    }
    let enc = inst.op.enc(target.arch).ok_or_else(|| err(format!("not available on {}", target.arch)))?;
    let enc32 = layout::resolve_form(inst.op, enc, inst.form).map_err(err)?;
    let variant = layout::variant_of(inst, enc32);
    let slots = layout::layout(inst.op, target, variant);
    check_operands(inst, target, &slots).map_err(err)?;
    check_dpp(inst, target, enc, enc32).map_err(err)?;
    check_mods(inst, target, enc32, &slots).map_err(err)?;
    check_imm(inst, target).map_err(err)?;
    check_cache(inst, target).map_err(err)?;
    let literal = check_literals(inst, target, enc, enc32, &slots).map_err(err)?;
    if layout::is_valu(enc.format) {
        check_constant_bus(inst, target, &slots).map_err(err)?;
    }
    Ok(Resolved { enc, enc32, layout: slots, literal })
}

fn check_operands(inst: &Inst, target: Target, slots: &[Slot]) -> Result<(), String> {
    for (i, op) in inst.operands.iter().enumerate() {
        match slots.get(i) {
            Some(s) => operand_ok(*op, s, target).map_err(|e| format!("operand {i} ({}): {e}", s.field.role()))?,
            None if *op != Operand::None => {
                return Err(format!("operand {i} is {op:?} but the instruction has {} operands", slots.len()))
            }
            None => {}
        }
    }
    debug_assert!(slots.len() <= MAX_OPERANDS);
    Ok(())
}

/// Whether `op` fits slot `s` on `target`.
pub(crate) fn operand_ok(op: Operand, s: &Slot, target: Target) -> Result<(), String> {
    let family = target.family();
    let w = s.width;
    let scalar_kind = matches!(s.kind, Kind::SDst | Kind::SSrc | Kind::VSrc);
    let width_is = |n: u8| {
        if w == n {
            Ok(())
        } else {
            Err(format!("{op:?} is {n} register(s) wide, the slot takes {w}"))
        }
    };
    match op {
        Operand::None => {
            if s.optional {
                Ok(())
            } else {
                Err("missing operand".into())
            }
        }
        Operand::Sgpr(r) => {
            if !matches!(s.kind, Kind::SDst | Kind::SSrc | Kind::SReg | Kind::VSrc | Kind::MaskDst | Kind::MaskSrc) {
                return Err(format!("an SGPR is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(r.len)?;
            if r.len == 0 || r.last() > layout::max_sgpr(family) {
                return Err(format!("s{} is out of range (max s{})", r.last(), layout::max_sgpr(family)));
            }
            let align = if r.len >= 4 { 4 } else { r.len.min(2) } as u16;
            if r.first % align != 0 {
                return Err(format!("SGPR tuple s[{}:{}] must be {align}-aligned", r.first, r.last()));
            }
            Ok(())
        }
        Operand::Vgpr(r) => {
            if !matches!(s.kind, Kind::VReg | Kind::VSrc) {
                return Err(format!("a VGPR is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(r.len)?;
            if r.len == 0 || r.last() > 255 {
                return Err(format!("v{} is out of range", r.last()));
            }
            if family == Family::Gfx9 && r.len >= 2 && r.first % 2 != 0 {
                return Err(format!("VGPR tuple v[{}:{}] must be 64-bit aligned on GFX9", r.first, r.last()));
            }
            Ok(())
        }
        Operand::Vcc | Operand::Exec => {
            let mask_ok = matches!(s.kind, Kind::MaskDst | Kind::MaskSrc | Kind::ImplicitVcc);
            if !(scalar_kind || mask_ok) || (s.kind == Kind::ImplicitVcc && op != Operand::Vcc) {
                return Err(format!("{op:?} is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(2)
        }
        Operand::VccLo => {
            if !(scalar_kind || matches!(s.kind, Kind::MaskDst | Kind::MaskSrc | Kind::ImplicitVcc)) {
                return Err(format!("vcc_lo is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(1)
        }
        Operand::ExecLo => {
            if !(scalar_kind || matches!(s.kind, Kind::MaskDst | Kind::MaskSrc)) {
                return Err(format!("exec_lo is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(1)
        }
        Operand::VccHi | Operand::ExecHi | Operand::M0 => {
            if !scalar_kind {
                return Err(format!("{op:?} is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(1)
        }
        Operand::Null => {
            if family != Family::Gfx11 {
                return Err("null exists only on GFX11".into());
            }
            if !matches!(s.kind, Kind::SDst | Kind::SSrc | Kind::VSrc | Kind::MaskDst | Kind::Null) {
                return Err(format!("null is not allowed here: the slot takes {}", s.kind.describe()));
            }
            Ok(())
        }
        Operand::Scc => {
            if !matches!(s.kind, Kind::SSrc | Kind::VSrc) {
                return Err(format!("src_scc is not allowed here: the slot takes {}", s.kind.describe()));
            }
            width_is(1)
        }
        Operand::Int(i) => {
            if !matches!(s.kind, Kind::SSrc | Kind::VSrc) {
                return Err(format!("a constant is not allowed here: the slot takes {}", s.kind.describe()));
            }
            if !(-16..=64).contains(&i) {
                return Err(format!("inline integer {i} is outside -16..=64 (use a literal)"));
            }
            Ok(())
        }
        Operand::Float(_) | Operand::Literal(_) => {
            if !matches!(s.kind, Kind::SSrc | Kind::VSrc) {
                return Err(format!("a constant is not allowed here: the slot takes {}", s.kind.describe()));
            }
            Ok(())
        }
    }
    .and_then(|()| {
        // The implicit vcc and mask slots take exactly the wave's mask width.
        if s.kind == Kind::ImplicitVcc {
            let want = target.wave.vcc();
            if op != want {
                return Err(format!("the 32-bit encoding implies {want:?}"));
            }
        }
        if s.kind == Kind::Null && op != Operand::Null {
            return Err("must be null".into());
        }
        Ok(())
    })
}

/// Which forms of `op` take DPP on `arch`.
pub(crate) fn dpp_allowed(op: Op, enc: &Enc, enc32: Enc32, arch: Arch) -> bool {
    let fam = arch.family();
    match (fam, enc32) {
        (Family::Gfx9, Enc32::E32) => {
            (op.has(flags::DPP) && matches!(enc.format, Format::Vop1 | Format::Vop2))
                || (op == Op::VMovB64 && arch == Arch::Gfx942)
        }
        (Family::Gfx11, Enc32::E32) => op.has(flags::DPP),
        (Family::Gfx11, Enc32::Vop3) => {
            if enc.format == Format::Vop3 && !layout::has_vop32_format(op) {
                op.has(flags::VOP3_DPP)
            } else {
                op.has(flags::DPP)
            }
        }
        (Family::Gfx9, Enc32::Vop3) | (_, Enc32::Other) => false,
    }
}

fn check_dpp(inst: &Inst, target: Target, enc: &Enc, enc32: Enc32) -> Result<(), String> {
    let arch = target.arch;
    if inst.dpp == Dpp::None {
        return Ok(());
    }
    if !dpp_allowed(inst.op, enc, enc32, arch) {
        return Err(format!("no DPP form in this encoding on {arch}"));
    }
    match inst.dpp {
        Dpp::None => Ok(()),
        Dpp::Dpp16(d) => {
            if !d.ctrl.legal_on(arch) {
                return Err(format!("DPP control {:?} is not available on {arch}", d.ctrl));
            }
            if inst.op == Op::VMovB64 && !matches!(d.ctrl, DppCtrl::RowShare(_)) {
                return Err("v_mov_b64_dpp takes only row_newbcast".into());
            }
            if d.row_mask > 15 || d.bank_mask > 15 {
                return Err("row_mask and bank_mask are 4-bit".into());
            }
            if d.fi && arch.family() == Family::Gfx9 {
                return Err("fi (fetch inactive) does not exist on GFX9".into());
            }
            Ok(())
        }
        Dpp::Dpp8(d) => {
            if arch.family() != Family::Gfx11 {
                return Err("DPP8 exists only on GFX11".into());
            }
            if d.sel.iter().any(|&s| s > 7) {
                return Err("DPP8 selectors are 0..=7".into());
            }
            Ok(())
        }
    }
}

/// The number of value sources (modifier bits) of a layout: slots in SRC0..SRC2 that are not masks.
pub(crate) fn value_sources(slots: &[Slot]) -> usize {
    slots
        .iter()
        .filter(|s| {
            matches!(s.field, layout::Field::Src0 | layout::Field::Src1 | layout::Field::Src2)
                && s.kind != Kind::MaskSrc
        })
        .count()
}

fn check_mods(inst: &Inst, _target: Target, enc32: Enc32, slots: &[Slot]) -> Result<(), String> {
    let m = inst.mods;
    if m == Mods::default() {
        return Ok(());
    }
    let float = inst.op.has(flags::FLOAT);
    let nsrc = value_sources(slots);
    let src_bits = (1u8 << nsrc) - 1;
    match enc32 {
        Enc32::Other => Err("modifiers apply only to VALU instructions".into()),
        Enc32::E32 => match inst.dpp {
            Dpp::Dpp16(_) => {
                if !float || (m.neg | m.abs) & !src_bits.min(3) != 0 {
                    return Err("DPP16 32-bit forms take only neg/abs on float src0/src1".into());
                }
                if m.clamp || m.omod != 0 || m.op_sel != 0 {
                    return Err("clamp/omod/op_sel need the VOP3 encoding".into());
                }
                Ok(())
            }
            _ => Err("modifiers need the VOP3 (_e64) encoding".into()),
        },
        Enc32::Vop3 => {
            if (m.neg | m.abs) != 0 && !float {
                return Err("neg/abs apply only to float operations".into());
            }
            if (m.neg | m.abs) & !src_bits != 0 {
                return Err(format!("neg/abs bits name sources beyond the {nsrc} the op has"));
            }
            if m.clamp && !float {
                return Err("clamp is supported only on float operations".into());
            }
            if m.omod > 3 {
                return Err("omod is 0..=3".into());
            }
            let lim = layout::mod_limits(inst.op, nsrc);
            if (m.neg | m.abs) & !lim.src_mods != 0 {
                return Err("neg/abs apply only to the float sources (not to an integer operand)".into());
            }
            if m.abs != 0 && !lim.abs {
                return Err("abs does not exist in VOP3B instructions".into());
            }
            if m.clamp && !lim.clamp {
                return Err("clamp is not available on this op".into());
            }
            if m.omod != 0 && (!float || !lim.omod) {
                return Err("omod applies only to float results".into());
            }
            let permlane = matches!(inst.op.info().shape, Shape::Permlane);
            if m.op_sel != 0 && !(permlane && m.op_sel <= 3) {
                return Err("op_sel is supported only as the permlane FI/BOUND_CTRL bits".into());
            }
            Ok(())
        }
    }
}

/// Whether a `s_delay_alu` immediate has only defined fields.
pub(crate) fn delay_alu_valid(imm: u16) -> bool {
    imm >> 11 == 0 && imm & 0xF <= 11 && (imm >> 4) & 7 <= 5 && (imm >> 7) & 0xF <= 11
}

/// The `s_sendmsg` immediates the printer can spell, with their LLVM 19 text.
pub(crate) fn sendmsg_name(imm: u16, family: Family) -> Option<&'static str> {
    match (family, imm) {
        (_, 1) => Some("sendmsg(MSG_INTERRUPT)"),
        (Family::Gfx9, 3) => Some("sendmsg(MSG_GS_DONE, GS_OP_NOP)"),
        (Family::Gfx11, 3) => Some("sendmsg(MSG_DEALLOC_VGPRS)"),
        _ => None,
    }
}

fn check_imm(inst: &Inst, target: Target) -> Result<(), String> {
    let family = target.family();
    let imm = inst.imm;
    let shape = inst.op.info().shape;
    if inst.imm1 != 0 && !matches!(shape, Shape::DsLoad2 { .. }) {
        return Err("imm1 is only the offset1 of two-address DS ops".into());
    }
    let in_range = |lo: i32, hi: i32, what: &str| {
        if (lo..=hi).contains(&imm) {
            Ok(())
        } else {
            Err(format!("{what} {imm} is outside {lo}..={hi}"))
        }
    };
    match shape {
        Shape::Sopp(kind) => match kind {
            SoppImm::None => in_range(0, 0, "immediate"),
            SoppImm::Imm => match inst.op {
                Op::SClause => in_range(0, 0x3F, "clause length"),
                _ => in_range(0, 0xFFFF, "immediate"),
            },
            SoppImm::Branch => in_range(-32768, 32767, "branch offset"),
            SoppImm::Waitcnt => {
                in_range(0, 0xFFFF, "waitcnt")?;
                let v = imm as u16;
                if Waitcnt::decode(v, family).encode(family) != v {
                    return Err(format!("waitcnt 0x{v:x} sets bits outside the counter fields"));
                }
                Ok(())
            }
            SoppImm::Depctr => in_range(0, 0xFFFF, "depctr"),
            SoppImm::DelayAlu => {
                in_range(0, 0xFFFF, "s_delay_alu")?;
                if delay_alu_valid(imm as u16) {
                    Ok(())
                } else {
                    Err(format!("s_delay_alu 0x{imm:x} has undefined fields"))
                }
            }
            SoppImm::Sendmsg => {
                in_range(0, 0xFFFF, "message")?;
                sendmsg_name(imm as u16, family)
                    .map(|_| ())
                    .ok_or_else(|| format!("message {imm} is not one this assembler spells"))
            }
        },
        Shape::Sopk | Shape::SopkCmp => in_range(-32768, 65535, "simm16"),
        Shape::SopkWaitcnt => in_range(0, 0xFFFF, "count"),
        Shape::SmemLoad { base: 4, .. } => in_range(0, 0xF_FFFF, "SMEM buffer offset"),
        Shape::SmemLoad { .. } => in_range(-0x10_0000, 0xF_FFFF, "SMEM offset"),
        Shape::DsLoad { .. }
        | Shape::DsStore { .. }
        | Shape::DsAtomic { .. }
        | Shape::DsAtomicRtn { .. }
        | Shape::DsCmpstRtn { .. }
        | Shape::DsSwizzle
        | Shape::DsAddtid => in_range(0, 0xFFFF, "DS offset"),
        Shape::DsLoad2 { .. } => in_range(0, 255, "DS offset0"),
        Shape::FlatLoad { .. } | Shape::FlatStore { .. } => in_range(0, 4095, "FLAT offset"),
        Shape::GlobalLoad { .. }
        | Shape::GlobalStore { .. }
        | Shape::GlobalAtomic { .. }
        | Shape::GlobalAtomicCas { .. } => in_range(-4096, 4095, "global offset"),
        Shape::Sop1 { .. }
        | Shape::Sop1Dst { .. }
        | Shape::Sop1Src { .. }
        | Shape::Sop2 { .. }
        | Shape::Sopc { .. }
        | Shape::SmemNone
        | Shape::SmemDst { .. }
        | Shape::Vop1 { .. }
        | Shape::Vop1Sdst
        | Shape::Vop1None
        | Shape::Vop2 { .. }
        | Shape::Vop2Tied
        | Shape::Vop2Cndmask
        | Shape::Vop2CarryOut
        | Shape::Vop2CarryInOut
        | Shape::Vopc { .. }
        | Shape::VopcX { .. }
        | Shape::Vop3 { .. }
        | Shape::Vop3Three { .. }
        | Shape::Vop3bMad
        | Shape::Vop3bDivScale { .. }
        | Shape::VopcClass { .. }
        | Shape::Readlane
        | Shape::Writelane
        | Shape::Permlane
        | Shape::CacheCtl => in_range(0, 0, "immediate"),
    }
}

/// The cache bits a family allows on a format (as a `Cache` mask).
pub(crate) fn cache_allowed(arch: Arch, shape: Shape) -> Cache {
    let none = Cache::default();
    let global_like = matches!(
        shape,
        Shape::FlatLoad { .. }
            | Shape::FlatStore { .. }
            | Shape::GlobalLoad { .. }
            | Shape::GlobalStore { .. }
            | Shape::GlobalAtomic { .. }
            | Shape::GlobalAtomicCas { .. }
    );
    let atomic = matches!(shape, Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. });
    match shape {
        Shape::SmemLoad { .. } => match arch {
            Arch::Gfx90a | Arch::Gfx942 => Cache { glc_sc0: true, ..none },
            Arch::Gfx1100 => Cache { glc_sc0: true, dlc: true, ..none },
        },
        Shape::CacheCtl => match arch {
            Arch::Gfx942 => Cache { glc_sc0: true, sc1: true, ..none },
            Arch::Gfx90a | Arch::Gfx1100 => none,
        },
        _ if global_like => {
            let base = match arch {
                Arch::Gfx90a => Cache { glc_sc0: true, slc_nt: true, ..none },
                Arch::Gfx942 => Cache { glc_sc0: true, slc_nt: true, sc1: true, dlc: false },
                Arch::Gfx1100 => Cache { glc_sc0: true, slc_nt: true, dlc: true, sc1: false },
            };
            // Atomics: GLC/SC0 means "return" and follows the vdst operand.
            if atomic {
                Cache { glc_sc0: false, ..base }
            } else {
                base
            }
        }
        _ => none,
    }
}

fn check_cache(inst: &Inst, target: Target) -> Result<(), String> {
    let allowed = cache_allowed(target.arch, inst.op.info().shape);
    let c = inst.cache;
    let bad = (c.glc_sc0 && !allowed.glc_sc0)
        || (c.slc_nt && !allowed.slc_nt)
        || (c.sc1 && !allowed.sc1)
        || (c.dlc && !allowed.dlc);
    if bad {
        return Err(format!("cache bits {c:?} are not available here on {} (allowed: {allowed:?})", target.arch));
    }
    Ok(())
}

/// Whether a literal value in a slot of `width` registers is canonical (not an inline constant).
pub(crate) fn literal_is_canonical(value: u32, width: u8) -> bool {
    if width == 1 {
        Operand::imm32(value) == Operand::Literal(value)
    } else {
        value > 64
    }
}

fn check_literals(inst: &Inst, target: Target, enc: &Enc, enc32: Enc32, slots: &[Slot]) -> Result<Option<u32>, String> {
    let mut lit: Option<u32> = None;
    for (o, s) in inst.operands.iter().zip(slots) {
        if let Operand::Literal(v) = *o {
            if !literal_is_canonical(v, s.width) {
                return Err(format!("literal 0x{v:x} is an inline constant; use Operand::imm32"));
            }
            if s.width > 1 && layout::is_valu(enc.format) {
                return Err("literals in 64-bit VALU operands are not supported".into());
            }
            match lit {
                Some(l) if l != v => return Err("only one unique literal value is allowed".into()),
                _ => lit = Some(v),
            }
        }
    }
    if lit.is_some() {
        if matches!(inst.op.info().shape, Shape::Readlane | Shape::Writelane)
            && matches!(inst.operands[2], Operand::Literal(_))
        {
            return Err("the lane select cannot be a literal".into());
        }
        if inst.dpp != Dpp::None {
            return Err("DPP instructions cannot take a literal".into());
        }
        if enc32 == Enc32::Vop3 && target.family() == Family::Gfx9 {
            return Err("VOP3 instructions cannot take a literal on GFX9".into());
        }
    }
    Ok(lit)
}

/// A constant-bus read, for counting distinct values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BusRead {
    /// A scalar register by code and width (LLVM counts `vcc_lo` and `vcc` as different).
    Reg(u16, u8),
    Lit(u32),
}

fn check_constant_bus(inst: &Inst, target: Target, slots: &[Slot]) -> Result<(), String> {
    let family = target.family();
    // Distinct reads: at most one per operand and the implicit VCC.
    let mut buf = [BusRead::Lit(0); MAX_OPERANDS + 1];
    let mut n = 0;
    let mut add = |r: BusRead| {
        if !buf[..n].contains(&r) {
            buf[n] = r;
            n += 1;
        }
    };
    for (o, s) in inst.operands.iter().zip(slots) {
        if !s.field.is_valu_source() {
            continue;
        }
        // GFX9 v_writelane_b32 reads m0 as the lane select without using the bus.
        if family == Family::Gfx9 && inst.op == Op::VWritelaneB32 && s.field == layout::Field::Src1 && *o == Operand::M0
        {
            continue;
        }
        let r = match *o {
            Operand::Literal(v) => BusRead::Lit(v),
            Operand::Null | Operand::None | Operand::Int(_) | Operand::Float(_) | Operand::Vgpr(_) => continue,
            other => match other.src_code(family) {
                Some(c) => BusRead::Reg(c, s.width),
                None => continue,
            },
        };
        add(r);
    }
    if layout::reads_vcc_implicitly(inst.op) {
        // LLVM 19 treats the implicit read as `vcc` in wave64 (an explicit `vcc` source is the
        // same value, `vcc_lo` is not) and counts it apart from an explicit `vcc_lo` in wave32
        // (width 0 here), as llvm-mc's constant-bus errors show.
        let width = if target.wave.mask_sgprs() == 2 { 2 } else { 0 };
        add(BusRead::Reg(Operand::VccLo.src_code(family).unwrap_or(106), width));
    }
    let limit = match family {
        Family::Gfx9 => 1,
        Family::Gfx11 if layout::is_wide_shift(inst.op) => 1,
        Family::Gfx11 => 2,
    };
    if n > limit {
        return Err(format!("reads {n} scalar values (SGPRs/literals) but the constant bus allows {limit}"));
    }
    Ok(())
}
