//! The printer: [`Inst::display`] writes LLVM 19's canonical assembler syntax, exactly as
//! `llvm-mc-19 -show-encoding` and `llvm-objdump-19 -d` print it for the target (mnemonic
//! suffixes `_e32`/`_e64`/`_dpp`/`_e64_dpp`, operand spelling, DPP/cache/offset modifiers and the
//! symbolic `s_waitcnt`, `s_delay_alu`, `s_waitcnt_depctr`, `s_sendmsg` and `ds_swizzle` forms).
//!
//! The golden tests compare this text with llvm-mc's byte for byte; the parser accepts all of it.

use std::fmt::{self, Write as _};

use crate::check::{self, Resolved};
use crate::dpp::{Dpp16, DppCtrl};
use crate::inst::{Dpp, Inst};
use crate::layout::{self, Enc32, Field, Kind};
use crate::operand::{InlineFloat, Operand};
use crate::swizzle::Swizzle;
use crate::table::{Format, Op, Shape, SoppImm};
use crate::target::{Arch, Family, Target};
use crate::waitcnt::Waitcnt;

/// An instruction bound to a target, printable as assembler text.
pub(crate) struct InstDisplay<'a> {
    inst: &'a Inst,
    target: Target,
    style: Style,
}

/// Which of LLVM's two spellings to print. They differ only where LLVM's disassembler prints an
/// operand differently from its assembler: branch offsets (unsigned 16-bit in the disassembler)
/// and the GFX11 SMEM offset 0 with no SGPR offset (`null` in the disassembler).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// `llvm-mc-19 -show-encoding` (the assembler's canonical text).
    Asm,
    /// `llvm-objdump-19 -d` / `llvm-mc-19 -disassemble`.
    Disasm,
}

impl Inst {
    /// The instruction as LLVM 19 assembler text for `target` (an instruction that does not
    /// check prints as its mnemonic followed by the reason, as a comment).
    pub fn display(&self, target: Target) -> impl fmt::Display + '_ {
        InstDisplay { inst: self, target, style: Style::Asm }
    }

    /// The instruction as LLVM 19's disassembler (`llvm-objdump-19 -d`) prints it: the same as
    /// [`Inst::display`] except that branch offsets print as unsigned 16-bit numbers and a GFX11
    /// SMEM offset of 0 with no SGPR offset prints as `null`. The parser accepts both spellings.
    pub fn display_disasm(&self, target: Target) -> impl fmt::Display + '_ {
        InstDisplay { inst: self, target, style: Style::Disasm }
    }
}

impl fmt::Display for InstDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match check::resolve(self.inst, self.target) {
            Ok(r) => f.write_str(&render(self.inst, self.target, &r, self.style)),
            Err(e) => write!(f, "{} ; invalid: {}", e.inst, e.reason),
        }
    }
}

/// The text of one register or constant operand in a slot of `width` registers.
pub(crate) fn operand_text(o: Operand, width: u8) -> String {
    let reg = |p: char, first: u16, len: u8| {
        if len == 1 {
            format!("{p}{first}")
        } else {
            format!("{p}[{first}:{}]", first + u16::from(len) - 1)
        }
    };
    match o {
        Operand::None => "off".into(),
        Operand::Sgpr(r) => reg('s', r.first, r.len),
        Operand::Vgpr(r) => reg('v', r.first, r.len),
        Operand::Vcc => "vcc".into(),
        Operand::VccLo => "vcc_lo".into(),
        Operand::VccHi => "vcc_hi".into(),
        Operand::Exec => "exec".into(),
        Operand::ExecLo => "exec_lo".into(),
        Operand::ExecHi => "exec_hi".into(),
        Operand::M0 => "m0".into(),
        Operand::Null => "null".into(),
        Operand::Scc => "src_scc".into(),
        Operand::Int(i) => i.to_string(),
        Operand::Float(InlineFloat::InvTwoPi) if width == 2 => "0.15915494309189532".into(),
        Operand::Float(x) => x.text().into(),
        Operand::Literal(v) => format!("0x{v:x}"),
    }
}

/// The mnemonic with its encoding suffix.
pub(crate) fn mnemonic(inst: &Inst, target: Target, r: &Resolved) -> String {
    let name = r.enc.name;
    let own32 = matches!(r.enc.format, Format::Vop1 | Format::Vop2 | Format::Vopc);
    let suffix = match (r.enc32, inst.dpp != Dpp::None) {
        (Enc32::Other, _) => "",
        (Enc32::E32, false) if layout::has_e64(inst.op) => "_e32",
        (Enc32::E32, false) => "",
        (Enc32::E32, true) if r.enc.format == Format::Vopc && target.family() == Family::Gfx11 => "",
        (Enc32::E32, true) => "_dpp",
        (Enc32::Vop3, false) if own32 => "_e64",
        (Enc32::Vop3, false) => "",
        (Enc32::Vop3, true) => "_e64_dpp",
    };
    format!("{name}{suffix}")
}

/// A DPP16 control as the assembler spells it on `family` (also the selector's candidate names).
pub fn dpp_ctrl_text(c: DppCtrl, family: Family) -> String {
    match c {
        DppCtrl::QuadPerm(s) => format!("quad_perm:[{},{},{},{}]", s[0], s[1], s[2], s[3]),
        DppCtrl::RowShl(n) => format!("row_shl:{n}"),
        DppCtrl::RowShr(n) => format!("row_shr:{n}"),
        DppCtrl::RowRor(n) => format!("row_ror:{n}"),
        DppCtrl::WaveShl1 => "wave_shl:1".into(),
        DppCtrl::WaveRol1 => "wave_rol:1".into(),
        DppCtrl::WaveShr1 => "wave_shr:1".into(),
        DppCtrl::WaveRor1 => "wave_ror:1".into(),
        DppCtrl::RowMirror => "row_mirror".into(),
        DppCtrl::RowHalfMirror => "row_half_mirror".into(),
        DppCtrl::RowBcast15 => "row_bcast:15".into(),
        DppCtrl::RowBcast31 => "row_bcast:31".into(),
        DppCtrl::RowShare(n) => match family {
            Family::Gfx9 => format!("row_newbcast:{n}"),
            Family::Gfx11 => format!("row_share:{n}"),
        },
        DppCtrl::RowXmask(n) => format!("row_xmask:{n}"),
    }
}

fn dpp16_text(d: &Dpp16, family: Family) -> String {
    let mut s = format!(" {} row_mask:0x{:x} bank_mask:0x{:x}", dpp_ctrl_text(d.ctrl, family), d.row_mask, d.bank_mask);
    if d.bound_ctrl {
        s.push_str(" bound_ctrl:1");
    }
    if d.fi {
        s.push_str(" fi:1");
    }
    s
}

/// LLVM's `s_waitcnt` spelling.
pub(crate) fn waitcnt_text(imm: u16, family: Family) -> String {
    let w = Waitcnt::decode(imm, family);
    let (dv, de, dl) = (w.vm == Waitcnt::VM_MAX, w.exp == Waitcnt::EXP_MAX, w.lgkm == Waitcnt::lgkm_max(family));
    let all = dv && de && dl;
    let mut parts = Vec::new();
    if !dv || all {
        parts.push(format!("vmcnt({})", w.vm));
    }
    if !de || all {
        parts.push(format!("expcnt({})", w.exp));
    }
    if !dl || all {
        parts.push(format!("lgkmcnt({})", w.lgkm));
    }
    parts.join(" ")
}

/// `s_delay_alu` instid names.
pub(crate) const DELAY_IDS: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
/// `s_delay_alu` instskip names.
pub(crate) const DELAY_SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

fn delay_alu_text(imm: u16) -> String {
    let mut parts = Vec::new();
    let id0 = usize::from(imm & 0xF);
    let skip = usize::from(imm >> 4 & 7);
    let id1 = usize::from(imm >> 7 & 0xF);
    if id0 != 0 {
        parts.push(format!("instid0({})", DELAY_IDS.get(id0).unwrap_or(&"?")));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", DELAY_SKIPS.get(skip).unwrap_or(&"?")));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", DELAY_IDS.get(id1).unwrap_or(&"?")));
    }
    if parts.is_empty() {
        "0".into()
    } else {
        parts.join(" | ")
    }
}

/// GFX11 `s_waitcnt_depctr` fields: name, maximum (= default), bit offset, width, in LLVM's
/// printing order.
pub(crate) const DEPCTR_FIELDS: [(&str, u16, u16, u16); 7] = [
    ("depctr_hold_cnt", 1, 7, 1),
    ("depctr_sa_sdst", 1, 0, 1),
    ("depctr_va_vdst", 15, 12, 4),
    ("depctr_va_sdst", 7, 9, 3),
    ("depctr_va_ssrc", 1, 8, 1),
    ("depctr_va_vcc", 1, 1, 1),
    ("depctr_vm_vsrc", 7, 2, 3),
];

fn depctr_text(imm: u16) -> String {
    let used: u16 = DEPCTR_FIELDS.iter().map(|&(_, _, off, w)| ((1u16 << w) - 1) << off).fold(0, |a, b| a | b);
    if imm & !used != 0 {
        return format!("0x{imm:x}");
    }
    let vals: Vec<(&str, u16, bool)> = DEPCTR_FIELDS
        .iter()
        .map(|&(n, dflt, off, w)| (n, imm >> off & ((1 << w) - 1), (imm >> off & ((1 << w) - 1)) == dflt))
        .collect();
    let any_non_default = vals.iter().any(|v| !v.2);
    vals.iter().filter(|v| !v.2 || !any_non_default).map(|v| format!("{}({})", v.0, v.1)).collect::<Vec<_>>().join(" ")
}

/// LLVM's `ds_swizzle_b32` offset spelling, or `None` when only the raw number round-trips.
pub(crate) fn swizzle_text(offset: u16) -> Option<String> {
    if offset & 0xFF00 == 0x8000 {
        let l: Vec<String> = (0..4).map(|k| (offset >> (2 * k) & 3).to_string()).collect();
        return Some(format!("swizzle(QUAD_PERM,{})", l.join(",")));
    }
    let Swizzle::Bitmask { and, or, xor } = Swizzle::decode(offset) else { return None };
    if offset & 0x8000 != 0 {
        return None;
    }
    if and == 0x1F && or == 0 && xor.count_ones() == 1 {
        return Some(format!("swizzle(SWAP,{xor})"));
    }
    if and == 0x1F && or == 0 && xor > 0 && (u32::from(xor) + 1).is_power_of_two() {
        return Some(format!("swizzle(REVERSE,{})", u32::from(xor) + 1));
    }
    let group = 0x1F - u32::from(and) + 1;
    if group > 1 && group.is_power_of_two() && u32::from(or) < group && xor == 0 {
        return Some(format!("swizzle(BROADCAST,{group},{or})"));
    }
    let mut s = String::from("swizzle(BITMASK_PERM,\"");
    for bit in (0..5).rev() {
        let (a, o, x) = (and >> bit & 1, or >> bit & 1, xor >> bit & 1);
        // The per-bit (and, or, xor) triples LLVM's parser produces for "0", "1", "p", "i".
        s.push(match (a, o, x) {
            (0, 0, 0) => '0',
            (0, 1, 0) => '1',
            (1, 0, 0) => 'p',
            (1, 0, 1) => 'i',
            _ => return None,
        });
    }
    s.push_str("\")");
    Some(s)
}

fn cache_text(inst: &Inst, arch: Arch, ret: bool) -> String {
    let c = inst.cache;
    let glc = c.glc_sc0 || ret;
    let mut s = String::new();
    match arch {
        Arch::Gfx90a => {
            if glc {
                s.push_str(" glc");
            }
            if c.slc_nt {
                s.push_str(" slc");
            }
        }
        Arch::Gfx942 => {
            if glc {
                s.push_str(" sc0");
            }
            if c.slc_nt {
                s.push_str(" nt");
            }
            if c.sc1 {
                s.push_str(" sc1");
            }
        }
        Arch::Gfx1100 => {
            if glc {
                s.push_str(" glc");
            }
            if c.slc_nt {
                s.push_str(" slc");
            }
            if c.dlc {
                s.push_str(" dlc");
            }
        }
    }
    s
}

fn hex_signed(v: i32) -> String {
    if v < 0 {
        format!("-0x{:x}", -(i64::from(v)))
    } else {
        format!("0x{v:x}")
    }
}

fn render(inst: &Inst, target: Target, r: &Resolved, style: Style) -> String {
    let fam = target.family();
    let mut out = mnemonic(inst, target, r);
    let shape = inst.op.info().shape;
    let m = inst.mods;
    let mut ops: Vec<String> = Vec::new();
    let mut src_index = 0u8;
    for (o, s) in inst.operands.iter().zip(&r.layout) {
        let o = *o;
        if s.field == Field::SmemOff && o == Operand::None {
            if style == Style::Disasm && fam == Family::Gfx11 && inst.imm == 0 {
                ops.push("null".to_string());
            } else {
                ops.push(hex_signed(inst.imm));
            }
            continue;
        }
        if s.field == Field::FlatVdst && o == Operand::None {
            continue;
        }
        let mut t = operand_text(o, s.width);
        let value_src = matches!(s.field, Field::Src0 | Field::Src1 | Field::Src2) && s.kind != Kind::MaskSrc;
        if value_src {
            let bit = 1 << src_index;
            src_index += 1;
            let abs = m.abs & bit != 0;
            if abs {
                t = format!("|{t}|");
            }
            if m.neg & bit != 0 {
                // LLVM spells a negated constant `neg(c)` so it does not read as `-c`.
                t = if !abs && o.is_const() { format!("neg({t})") } else { format!("-{t}") };
            }
        }
        ops.push(t);
    }
    match shape {
        Shape::Sopk | Shape::SopkCmp | Shape::SopkWaitcnt => ops.push(format!("0x{:x}", inst.imm as u16)),
        Shape::Sopp(kind) => {
            let imm = inst.imm as u16;
            match kind {
                SoppImm::None => {}
                SoppImm::Imm if inst.op == Op::SClause => ops.push(format!("0x{imm:x}")),
                // LLVM prints inline-constant-sized values in decimal, others in hex.
                SoppImm::Imm if imm <= 64 => ops.push(imm.to_string()),
                SoppImm::Imm => ops.push(format!("0x{imm:x}")),
                SoppImm::Branch if style == Style::Disasm => ops.push(imm.to_string()),
                SoppImm::Branch => ops.push(inst.imm.to_string()),
                SoppImm::Waitcnt => ops.push(waitcnt_text(imm, fam)),
                SoppImm::Depctr => ops.push(depctr_text(imm)),
                SoppImm::DelayAlu => ops.push(delay_alu_text(imm)),
                SoppImm::Sendmsg => ops.push(check::sendmsg_name(imm, fam).unwrap_or("0").to_string()),
            }
        }
        _ => {}
    }
    if !ops.is_empty() {
        out.push(' ');
        out.push_str(&ops.join(", "));
    }
    // Trailing modifiers.
    match shape {
        Shape::SmemLoad { .. } => {
            if inst.operands[2] != Operand::None && inst.imm != 0 {
                let _ = write!(out, " offset:{}", hex_signed(inst.imm));
            }
            if inst.cache.glc_sc0 {
                out.push_str(" glc");
            }
            if inst.cache.dlc {
                out.push_str(" dlc");
            }
        }
        Shape::DsLoad2 { .. } => {
            if inst.imm != 0 {
                let _ = write!(out, " offset0:{}", inst.imm);
            }
            if inst.imm1 != 0 {
                let _ = write!(out, " offset1:{}", inst.imm1);
            }
        }
        Shape::DsSwizzle if inst.imm != 0 => {
            let imm = inst.imm as u16;
            let t = swizzle_text(imm).unwrap_or_else(|| imm.to_string());
            let _ = write!(out, " offset:{t}");
        }
        Shape::DsLoad { .. }
        | Shape::DsStore { .. }
        | Shape::DsAtomic { .. }
        | Shape::DsAtomicRtn { .. }
        | Shape::DsCmpstRtn { .. }
        | Shape::DsAddtid
            if inst.imm != 0 =>
        {
            let _ = write!(out, " offset:{}", inst.imm);
        }
        Shape::FlatLoad { .. }
        | Shape::FlatStore { .. }
        | Shape::GlobalLoad { .. }
        | Shape::GlobalStore { .. }
        | Shape::GlobalAtomic { .. }
        | Shape::GlobalAtomicCas { .. } => {
            if inst.imm != 0 {
                let _ = write!(out, " offset:{}", inst.imm);
            }
            let ret = matches!(shape, Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. })
                && inst.operands[0] != Operand::None;
            out.push_str(&cache_text(inst, target.arch, ret));
        }
        Shape::CacheCtl => out.push_str(&cache_text(inst, target.arch, false)),
        _ => {}
    }
    if r.enc32 == Enc32::Vop3 {
        if m.op_sel != 0 {
            let _ = write!(out, " op_sel:[{},{}]", m.op_sel & 1, m.op_sel >> 1 & 1);
        }
        if m.clamp {
            out.push_str(" clamp");
        }
        match m.omod {
            1 => out.push_str(" mul:2"),
            2 => out.push_str(" mul:4"),
            3 => out.push_str(" div:2"),
            _ => {}
        }
    }
    match inst.dpp {
        Dpp::None => {}
        Dpp::Dpp16(d) => out.push_str(&dpp16_text(&d, fam)),
        Dpp::Dpp8(d) => {
            let s: Vec<String> = d.sel.iter().map(|x| x.to_string()).collect();
            let _ = write!(out, " dpp8:[{}]", s.join(","));
            if d.fi {
                out.push_str(" fi:1");
            }
        }
    }
    out
}
