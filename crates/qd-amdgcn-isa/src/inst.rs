//! A machine instruction as qd builds, encodes, decodes, prints and simulates it.
//!
//! [`Inst`] is a plain value: the table [`Op`], the encoding form (for VALU ops), the operands in
//! assembler order as the op's [`Shape`](crate::Shape) lists them, modifiers, the immediate
//! field and the cache-policy bits. [`Inst::check`] (run by the encoder) rejects every combination
//! the target cannot encode — with an [`IsaError`] naming the instruction and target — so wrong
//! bytes are never produced.

use std::fmt;

use crate::dpp::{Dpp16, Dpp8};
use crate::operand::Operand;
use crate::table::{Format, Op};
use crate::target::Target;

/// Most operands any shape has.
pub const MAX_OPERANDS: usize = 5;

/// Which encoding a VALU instruction uses. Non-VALU instructions are always [`Form::Native`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// The instruction's only encoding (SALU, SMEM, DS, FLAT/GLOBAL, MUBUF) — and for VALU ops
    /// whose table format is VOP3 (VOP3-only ops), the VOP3 encoding.
    #[default]
    Native,
    /// The 32-bit VOP1/VOP2/VOPC encoding (`_e32`).
    E32,
    /// The 64-bit VOP3 encoding of a VOP1/VOP2/VOPC op (`_e64`).
    E64,
}

/// A DPP modifier on a VALU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dpp {
    /// No DPP.
    #[default]
    None,
    /// DPP16 (on the E32 form; on GFX11 also on E64/VOP3-only ops whose row allows it).
    Dpp16(Dpp16),
    /// DPP8 (GFX11 only).
    Dpp8(Dpp8),
}

/// VALU source and output modifiers (VOP3 fields; DPP16 carries src0/src1 neg/abs for VOP1/2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mods {
    /// Bit i negates source i (float ops).
    pub neg: u8,
    /// Bit i takes |source i| (float ops).
    pub abs: u8,
    /// Clamp the result.
    pub clamp: bool,
    /// Output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2.
    pub omod: u8,
    /// The VOP3 OP_SEL field (for `v_permlane(x)16`: bit 0 = FI, bit 1 = BOUND_CTRL).
    pub op_sel: u8,
}

/// Cache-policy bits of a memory instruction, by meaning. Each family accepts a subset:
/// GFX9 gfx90a glc/slc, gfx942 sc0/sc1/nt, GFX11 glc/slc/dlc (SMEM glc/dlc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cache {
    /// GLC (gfx90a, GFX11) / SC0 (gfx942). For atomics the encoder derives it from "returns".
    pub glc_sc0: bool,
    /// SLC (gfx90a, GFX11) / NT (gfx942).
    pub slc_nt: bool,
    /// SC1 (gfx942 only).
    pub sc1: bool,
    /// DLC (GFX11 only).
    pub dlc: bool,
}

/// One machine instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The table row.
    pub op: Op,
    /// The VALU encoding form.
    pub form: Form,
    /// DPP modifier.
    pub dpp: Dpp,
    /// Operands in assembler order; unused trailing slots are [`Operand::None`].
    pub operands: [Operand; MAX_OPERANDS],
    /// VALU modifiers.
    pub mods: Mods,
    /// The immediate field: SOPP/SOPK simm16 (branch offsets sign-extended, in dwords), SMEM byte
    /// offset (21-bit signed), DS offset / offset0, ds_swizzle pattern, FLAT/GLOBAL byte offset
    /// (13-bit signed on GFX9 global, 12-bit on GFX9 flat, 13-bit signed on GFX11).
    pub imm: i32,
    /// DS offset1 (two-address forms).
    pub imm1: u8,
    /// Cache-policy bits (memory instructions).
    pub cache: Cache,
}

impl Inst {
    /// An instruction with these operands, no modifiers, no immediate, in the form the op's
    /// **GFX9** row implies (the GFX11 row for GFX11-only ops): [`Form::E32`] when that format is
    /// VOP1/VOP2/VOPC, [`Form::Native`] otherwise.
    ///
    /// This is the GFX9-format default: an op whose format differs per family gets the GFX9 form
    /// on every target, so on gfx1100 `v_add_co_u32`, `v_sub_co_u32` and `v_subrev_co_u32` (VOP2
    /// on GFX9, VOP3-only on GFX11) need `.e64()`. Use [`Inst::new_for`] to pick the form from
    /// the target's own row.
    pub fn new(op: Op, ops: &[Operand]) -> Inst {
        let info = op.info();
        let form = match info.gfx9.or(info.gfx11).map(|e| e.format) {
            Some(Format::Vop1 | Format::Vop2 | Format::Vopc) => Form::E32,
            _ => Form::Native,
        };
        Inst::with_form(op, form, ops)
    }

    /// An instruction with these operands, no modifiers, no immediate, in the form the op's
    /// encoding **on `target`** implies: [`Form::E32`] when the target's format for the op is
    /// VOP1/VOP2/VOPC; for a VOP3 format on the target, the VOP3 form — [`Form::E64`] when the
    /// op has a 32-bit format in the other family (GFX11 `v_add_co_u32`, the form the decoder
    /// produces and `Inst::new(..).e64()` builds), [`Form::Native`] for ops that are VOP3-only
    /// everywhere; [`Form::Native`] for every non-VALU op.
    ///
    /// An op the target lacks gets the [`Inst::new`] form (its check then fails with "not
    /// available"). With operands that fit the op's [`Shape`](crate::Shape) on the target,
    /// the result passes [`Inst::check`] and is exactly what `decode` returns for its bytes.
    pub fn new_for(target: Target, op: Op, ops: &[Operand]) -> Inst {
        let form = match op.enc(target.arch).map(|e| e.format) {
            None => return Inst::new(op, ops),
            Some(Format::Vop1 | Format::Vop2 | Format::Vopc) => Form::E32,
            Some(Format::Vop3) => crate::layout::vop3_form(op),
            Some(
                Format::Sop1
                | Format::Sop2
                | Format::Sopk
                | Format::Sopc
                | Format::Sopp
                | Format::Smem
                | Format::Ds
                | Format::Flat
                | Format::Global
                | Format::Mubuf,
            ) => Form::Native,
        };
        Inst::with_form(op, form, ops)
    }

    fn with_form(op: Op, form: Form, ops: &[Operand]) -> Inst {
        let mut operands = [Operand::None; MAX_OPERANDS];
        for (slot, o) in operands.iter_mut().zip(ops) {
            *slot = *o;
        }
        Inst { op, form, dpp: Dpp::None, operands, mods: Mods::default(), imm: 0, imm1: 0, cache: Cache::default() }
    }

    /// The same instruction in the VOP3 (`_e64`) encoding.
    pub fn e64(mut self) -> Inst {
        if self.form == Form::E32 {
            self.form = Form::E64;
        }
        self
    }

    /// With an immediate field.
    pub fn imm(mut self, imm: i32) -> Inst {
        self.imm = imm;
        self
    }

    /// With a DPP16 modifier.
    pub fn dpp16(mut self, dpp: Dpp16) -> Inst {
        self.dpp = Dpp::Dpp16(dpp);
        self
    }

    /// With a DPP8 modifier.
    pub fn dpp8(mut self, dpp: Dpp8) -> Inst {
        self.dpp = Dpp::Dpp8(dpp);
        self
    }

    /// With VALU modifiers.
    pub fn mods(mut self, mods: Mods) -> Inst {
        self.mods = mods;
        self
    }

    /// With cache bits.
    pub fn cache(mut self, cache: Cache) -> Inst {
        self.cache = cache;
        self
    }

    /// The used operands.
    pub fn ops(&self) -> &[Operand] {
        let n = self.operands.iter().rposition(|o| *o != Operand::None).map_or(0, |i| i + 1);
        &self.operands[..n]
    }
}

/// Why an instruction cannot be encoded (or decoded) for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsaError {
    /// The instruction's mnemonic on the target (or the raw word when decoding).
    pub inst: String,
    /// The target.
    pub target: String,
    /// What is wrong.
    pub reason: String,
}

impl IsaError {
    /// An error about `op` on `target`.
    pub fn new(op: Op, target: Target, reason: impl Into<String>) -> IsaError {
        IsaError { inst: op.name(target.arch).to_string(), target: target.to_string(), reason: reason.into() }
    }
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` on {}: {}", self.inst, self.target, self.reason)
    }
}

impl std::error::Error for IsaError {}
