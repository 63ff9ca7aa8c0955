//! The instruction reference, generated from the table: [`instruction_reference`] renders
//! `docs/amdgcn-instructions.md` (one Markdown table per format listing every [`Op`] with its
//! per-architecture mnemonic, format and opcode, its operands and its DPP forms), and
//! [`support_summary`] the per-format × per-architecture op counts that `docs/amdgcn.md` quotes.
//!
//! Both are pure functions of the table and the checker's DPP rule, so the documentation cannot
//! drift from the code: `tests/isa_reference_doc.rs` regenerates them and fails when the
//! committed files differ. Regenerate with
//! `cargo run -p qd-amdgcn-isa --example gen_instruction_doc > docs/amdgcn-instructions.md`.

use std::fmt::Write as _;

use crate::check::dpp_allowed;
use crate::layout::{self, Enc32};
use crate::table::{flags, Enc, Format, Op, Shape, SoppImm};
use crate::target::{Arch, Family};

/// Every format, in the order the reference lists them.
pub(crate) const FORMATS: [Format; 14] = [
    Format::Sop1,
    Format::Sop2,
    Format::Sopk,
    Format::Sopc,
    Format::Sopp,
    Format::Smem,
    Format::Vop1,
    Format::Vop2,
    Format::Vopc,
    Format::Vop3,
    Format::Ds,
    Format::Flat,
    Format::Global,
    Format::Mubuf,
];

/// The format's name as the AMD ISA manuals write it (`SOP1`, `VOP3`, `GLOBAL`, ...).
pub(crate) fn format_name(f: Format) -> &'static str {
    match f {
        Format::Sop1 => "SOP1",
        Format::Sop2 => "SOP2",
        Format::Sopk => "SOPK",
        Format::Sopc => "SOPC",
        Format::Sopp => "SOPP",
        Format::Smem => "SMEM",
        Format::Vop1 => "VOP1",
        Format::Vop2 => "VOP2",
        Format::Vopc => "VOPC",
        Format::Vop3 => "VOP3",
        Format::Ds => "DS",
        Format::Flat => "FLAT",
        Format::Global => "GLOBAL",
        Format::Mubuf => "MUBUF",
    }
}

/// The format an op is listed under: its GFX9 format, or its GFX11 format for GFX11-only ops.
pub(crate) fn listed_format(op: Op) -> Option<Format> {
    let info = op.info();
    info.gfx9.or(info.gfx11).map(|e| e.format)
}

/// A register operand with its width: `vdst` for one register, `vdst:b64` for two, etc.
fn w(name: &str, regs: u8) -> String {
    if regs == 1 {
        name.to_string()
    } else {
        format!("{name}:b{}", 32 * u32::from(regs))
    }
}

/// The operand list of a shape in assembler order, in words (LLVM's operand names; `:b64` marks
/// a 64-bit operand, `mask` a lane mask — an SGPR pair in wave64, one SGPR in wave32).
pub(crate) fn shape_words(shape: Shape) -> String {
    let list = |v: &[String]| v.join(", ");
    match shape {
        Shape::Sop1 { d, s } => list(&[w("sdst", d), w("ssrc0", s)]),
        Shape::Sop1Dst { d } => w("sdst", d),
        Shape::Sop1Src { s } => w("ssrc0", s),
        Shape::Sop2 { d, s0, s1 } => list(&[w("sdst", d), w("ssrc0", s0), w("ssrc1", s1)]),
        Shape::Sopk => "sdst, simm16".into(),
        Shape::SopkCmp => "ssrc, simm16".into(),
        Shape::SopkWaitcnt => "null, simm16".into(),
        Shape::Sopc { s } => list(&[w("ssrc0", s), w("ssrc1", s)]),
        Shape::Sopp(kind) => match kind {
            SoppImm::None => "(none)".into(),
            SoppImm::Imm => "simm16".into(),
            SoppImm::Branch => "label (simm16 dword offset)".into(),
            SoppImm::Waitcnt => "vmcnt(n) expcnt(n) lgkmcnt(n)".into(),
            SoppImm::Depctr => "depctr_*(n) fields".into(),
            SoppImm::DelayAlu => "instid0(..) instskip(..) instid1(..)".into(),
            SoppImm::Sendmsg => "sendmsg(MSG_*)".into(),
        },
        Shape::SmemLoad { d, base } => {
            format!("{}, {}, soffset or offset [offset:n] [glc] [dlc]", w("sdata", d), w("sbase", base))
        }
        Shape::SmemNone => "(none)".into(),
        Shape::SmemDst { d } => w("sdst", d),
        Shape::Vop1 { d, s } => list(&[w("vdst", d), w("src0", s)]),
        Shape::Vop1Sdst => "sdst, vsrc0".into(),
        Shape::Vop1None => "(none)".into(),
        Shape::Vop2 { d, s0, s1 } => list(&[w("vdst", d), w("src0", s0), w("vsrc1", s1)]),
        Shape::Vop2Tied => "vdst (also the addend), src0, vsrc1".into(),
        Shape::Vop2Cndmask => "vdst, src0, vsrc1, mask (vcc in e32)".into(),
        Shape::Vop2CarryOut => "vdst, carry-out mask, src0, vsrc1".into(),
        Shape::Vop2CarryInOut => "vdst, carry-out mask, src0, vsrc1, carry-in mask".into(),
        Shape::Vopc { s } => list(&["mask (vcc in e32)".into(), w("src0", s), w("vsrc1", s)]),
        Shape::VopcX { s } => format!(
            "GFX9: mask (vcc in e32), {src0}, {src1}; GFX11: {src0}, {src1} (writes exec)",
            src0 = w("src0", s),
            src1 = w("vsrc1", s)
        ),
        Shape::Vop3 { d, s0, s1 } => list(&[w("vdst", d), w("src0", s0), w("src1", s1)]),
        Shape::Vop3Three { d, s0, s1, s2 } => list(&[w("vdst", d), w("src0", s0), w("src1", s1), w("src2", s2)]),
        Shape::Vop3bMad => "vdst:b64, carry-out mask, src0, src1, src2:b64".into(),
        Shape::Vop3bDivScale { s } => {
            list(&[w("vdst", s), "vcc-like mask".into(), w("src0", s), w("src1", s), w("src2", s)])
        }
        Shape::VopcClass { s } => list(&["mask (vcc in e32)".into(), w("src0", s), "vsrc1 (class mask)".into()]),
        Shape::Readlane => "sdst, vsrc0, lane select".into(),
        Shape::Writelane => "vdst, ssrc0, lane select".into(),
        Shape::Permlane => "vdst (also read), vsrc0, ssrc1 (selects lo), ssrc2 (selects hi)".into(),
        Shape::DsLoad { d } => format!("{}, vaddr [offset:n]", w("vdst", d)),
        Shape::DsLoad2 { d } => format!("{}, vaddr [offset0:n] [offset1:n]", w("vdst", 2 * d)),
        Shape::DsStore { s } | Shape::DsAtomic { s } => format!("vaddr, {} [offset:n]", w("vdata", s)),
        Shape::DsAtomicRtn { s } => format!("{}, vaddr, {} [offset:n]", w("vdst", s), w("vdata", s)),
        Shape::DsCmpstRtn { s } => format!(
            "{}, vaddr, {}, {} (GFX9: compare, new; GFX11: new, compare) [offset:n]",
            w("vdst", s),
            w("vdata0", s),
            w("vdata1", s)
        ),
        Shape::DsSwizzle => "vdst, vaddr offset:swizzle(..)".into(),
        Shape::DsAddtid => "vdst [offset:n]".into(),
        Shape::FlatLoad { d } => format!("{}, vaddr:b64 [offset:n]", w("vdst", d)),
        Shape::FlatStore { s } => format!("vaddr:b64, {} [offset:n]", w("vdata", s)),
        Shape::GlobalLoad { d } => format!("{}, vaddr, saddr:b64 or off [offset:n]", w("vdst", d)),
        Shape::GlobalStore { s } => format!("vaddr, {}, saddr:b64 or off [offset:n]", w("vdata", s)),
        Shape::GlobalAtomic { s } => {
            format!("[{},] vaddr, {}, saddr:b64 or off [offset:n]", w("vdst", s), w("vdata", s))
        }
        Shape::GlobalAtomicCas { s } => {
            format!("[{},] vaddr, {} (new, compare), saddr:b64 or off [offset:n]", w("vdst", s), w("vdata", 2 * s))
        }
        Shape::CacheCtl => "(none) [cache bits]".into(),
    }
}

/// The encodings of `op` on `arch` that take a DPP modifier: `(32-bit form, VOP3 form)`.
pub(crate) fn dpp_forms(op: Op, arch: Arch) -> (bool, bool) {
    let Some(enc) = op.enc(arch) else { return (false, false) };
    if !layout::is_valu(enc.format) {
        return (false, false);
    }
    let own32 = matches!(enc.format, Format::Vop1 | Format::Vop2 | Format::Vopc);
    let e32 = own32 && dpp_allowed(op, enc, Enc32::E32, arch);
    let vop3 = (!own32 || layout::has_e64(op)) && dpp_allowed(op, enc, Enc32::Vop3, arch);
    (e32, vop3)
}

/// Whether a DPP8 form of `op` exists on `arch` (GFX11 only; same encodings as DPP16).
pub(crate) fn has_dpp8(op: Op, arch: Arch) -> (bool, bool) {
    if arch.family() == Family::Gfx11 {
        dpp_forms(op, arch)
    } else {
        (false, false)
    }
}

fn enc_cell(enc: Option<&Enc>) -> String {
    match enc {
        Some(e) => format!("`{}` {} 0x{:x}", e.name, format_name(e.format), e.opcode),
        None => "—".into(),
    }
}

/// Which archs have a DPP form, and in which encodings, for a table cell.
fn dpp_cell(op: Op, forms: impl Fn(Op, Arch) -> (bool, bool)) -> String {
    let mut parts = Vec::new();
    for arch in Arch::ALL {
        let (e32, vop3) = forms(op, arch);
        let which = match (e32, vop3) {
            (false, false) => continue,
            (true, false) => "",
            (false, true) => " (e64)",
            (true, true) => " (e32, e64)",
        };
        parts.push(format!("{arch}{which}"));
    }
    if op == Op::VMovB64 && !parts.is_empty() {
        parts.push("row_newbcast only".into());
    }
    if parts.is_empty() {
        "—".into()
    } else {
        parts.join(", ")
    }
}

fn notes(op: Op) -> String {
    let mut n = Vec::new();
    if op.has(flags::FLOAT) {
        n.push("float");
    }
    if op.has(flags::GFX942_ONLY) {
        n.push("gfx942 only on GFX9");
    }
    if op.has(flags::GFX90A_ONLY) {
        n.push("gfx90a only on GFX9");
    }
    let info = op.info();
    if let (Some(a), Some(b)) = (info.gfx9, info.gfx11) {
        if a.format != b.format {
            n.push("format differs");
        }
    }
    n.join("; ")
}

/// The number of ops `arch` encodes in `format` (by the op's format on that architecture, so
/// GFX11's VOP3-only `v_add_co_u32` counts as VOP3 on gfx1100 and as VOP2 on GFX9).
pub fn count(format: Format, arch: Arch) -> usize {
    Op::ALL.iter().filter(|op| op.enc(arch).is_some_and(|e| e.format == format)).count()
}

/// The Markdown table of op counts per format (rows) and architecture (columns, by the op's
/// format on that architecture, see [`count`]), with the number of rows the reference lists
/// under each format ([`listed_format`]) and a total row.
pub fn support_summary() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| format | rows in the reference | on gfx90a | on gfx942 | on gfx1100 |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for f in FORMATS {
        let listed = Op::ALL.iter().filter(|&&op| listed_format(op) == Some(f)).count();
        let _ = write!(s, "| {} | {listed} |", format_name(f));
        for arch in Arch::ALL {
            let _ = write!(s, " {} |", count(f, arch));
        }
        s.push('\n');
    }
    let _ = write!(s, "| **all** | **{}** |", Op::ALL.len());
    for arch in Arch::ALL {
        let _ = write!(s, " **{}** |", Op::ALL.iter().filter(|op| op.available(arch)).count());
    }
    s.push('\n');
    s
}

/// The operand words of an op (its shape's, with the one per-op refinement the layout makes).
fn operand_words(op: Op) -> String {
    match op {
        // v_permlane64_b32 reads its source across the wave: src0 must be a VGPR.
        Op::VPermlane64B32 => "vdst, vsrc0".into(),
        _ => shape_words(op.info().shape),
    }
}

/// The whole of `docs/amdgcn-instructions.md`.
pub fn instruction_reference() -> String {
    let mut s = String::new();
    s.push_str(
        "<!-- Generated from crates/qd-amdgcn-isa/src/table.rs; do not edit. Regenerate with\n     \
         cargo run -p qd-amdgcn-isa --example gen_instruction_doc > docs/amdgcn-instructions.md\n     \
         (tests/isa_reference_doc.rs fails when this file is stale). -->\n\n",
    );
    s.push_str("# AMDGCN instruction reference\n\n");
    s.push_str(
        "Every instruction in qd's AMDGCN table (`qd_amdgcn_isa::Op`), one table per encoding \
         format, generated from the table itself. The user guide is [amdgcn.md](amdgcn.md).\n\n\
         - **gfx90a / gfx942 / gfx1100**: the LLVM 19 mnemonic on that architecture (without \
         `_e32`/`_e64`/`_dpp` suffixes), the encoding format and the opcode in that format; — \
         where the architecture lacks the op. gfx90a and gfx942 share the GFX9 row; gfx1100 is GFX11.\n\
         - **operands**: the assembler operand list in order (`Shape`). `:b64`/`:b128`/... mark \
         operands wider than one 32-bit register; `mask` is a lane mask (an SGPR pair or `vcc` in \
         wave64, one SGPR or `vcc_lo` in wave32); `vsrc1` must be a VGPR in the 32-bit (`_e32`) \
         encoding; modifiers in brackets are optional.\n\
         - **DPP16 / DPP8**: the architectures where the op takes a DPP16 (`row_*`, `quad_perm`, \
         ...) or DPP8 (`dpp8:[...]`) modifier, and in which encodings: the 32-bit one (`_dpp`) and \
         on gfx1100 also the VOP3 one (`_e64_dpp`).\n\
         - **notes**: `float` ops take neg/abs source modifiers, clamp and omod in VOP3; ops whose \
         format differs per family (`format differs`) are listed under their GFX9 format. The counts \
         are by each architecture's own format of the op.\n\n",
    );
    s.push_str("## Counts\n\n");
    s.push_str(&support_summary());
    for f in FORMATS {
        let ops: Vec<Op> = Op::ALL.iter().copied().filter(|&op| listed_format(op) == Some(f)).collect();
        if ops.is_empty() {
            continue;
        }
        let _ = write!(s, "\n## {} ({} ops)\n\n", format_name(f), ops.len());
        s.push_str("| op | gfx90a | gfx942 | gfx1100 | operands | DPP16 | DPP8 | notes |\n");
        s.push_str("|---|---|---|---|---|---|---|---|\n");
        for op in ops {
            let _ = writeln!(
                s,
                "| `{op:?}` | {} | {} | {} | {} | {} | {} | {} |",
                enc_cell(op.enc(Arch::Gfx90a)),
                enc_cell(op.enc(Arch::Gfx942)),
                enc_cell(op.enc(Arch::Gfx1100)),
                operand_words(op),
                dpp_cell(op, dpp_forms),
                dpp_cell(op, has_dpp8),
                notes(op),
            );
        }
    }
    s
}
