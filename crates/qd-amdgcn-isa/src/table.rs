//! THE instruction table: every AMDGCN instruction qd emits, once, with its operand shape, its
//! per-family mnemonic, encoding format and opcode, and its per-architecture availability.
//!
//! The table drives everything that lists instructions — the encoder, decoder, printer, parser,
//! wave simulator and the golden tests — so adding a row breaks the build (exhaustive matches over
//! [`Op`]) until every consumer handles it. Opcodes follow docs/amdgcn-isa-facts.md §4 and are
//! checked against `llvm-mc-19` by the golden tests. An [`Op`] is a *semantic* instruction: where
//! GFX9 and GFX11 spell or encode the same operation differently (`v_add_u32` vs `v_add_nc_u32`,
//! `v_add_co_u32` as VOP2 vs VOP3-only) the row carries both spellings.

use std::fmt;

/// An instruction encoding format (docs/amdgcn-isa-facts.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar ALU with a 16-bit immediate.
    Sopk,
    /// Scalar compare into SCC.
    Sopc,
    /// Scalar program control (branches, waits, barrier).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, one source (32-bit encoding).
    Vop1,
    /// Vector ALU, two sources (32-bit encoding).
    Vop2,
    /// Vector compare (32-bit encoding, result in VCC or EXEC).
    Vopc,
    /// Vector ALU, 64-bit encoding (VOP3A, and VOP3B with a scalar destination).
    Vop3,
    /// LDS (local data share) instructions.
    Ds,
    /// Generic-address memory.
    Flat,
    /// Global memory (the FLAT format with SEG = global).
    Global,
    /// Untyped buffer format, used here only for cache-control instructions.
    Mubuf,
}

/// How a SOPP instruction's 16-bit immediate is read and printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SoppImm {
    /// No operand (`s_endpgm`, `s_barrier`); the field is 0.
    None,
    /// A plain number (`s_nop 3`, `s_sleep 1`).
    Imm,
    /// A signed dword offset from the next instruction (`s_branch`, `s_cbranch_*`).
    Branch,
    /// Counter fields, printed as `vmcnt(0) lgkmcnt(0)` (see [`crate::Waitcnt`]).
    Waitcnt,
    /// `s_waitcnt_depctr` (GFX11) raw immediate.
    Depctr,
    /// `s_delay_alu` (GFX11) raw immediate.
    DelayAlu,
    /// `s_sendmsg` message id.
    Sendmsg,
}

/// The operand signature of an instruction: which operands it has, in assembler order, and their
/// widths in 32-bit registers. "mask" slots (VCC, compare and carry results) are one SGPR in wave32
/// and an SGPR pair in wave64. Immediates (offsets, SOPP/SOPK fields) live in
/// [`crate::Inst::imm`], not in the operand list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // field names: d = destination width, s/s0/s1/s2 = source widths, base = SMEM base width
pub enum Shape {
    /// `[sdst, ssrc0]`.
    Sop1 { d: u8, s: u8 },
    /// `[sdst]` (`s_getpc_b64`).
    Sop1Dst { d: u8 },
    /// `[ssrc0]` (`s_setpc_b64`).
    Sop1Src { s: u8 },
    /// `[sdst, ssrc0, ssrc1]`.
    Sop2 { d: u8, s0: u8, s1: u8 },
    /// `[sdst]` + simm16 (`s_movk_i32 s0, 0x1234`); `s_addk`/`s_mulk` also read sdst.
    Sopk,
    /// `[ssrc]` + simm16 compared into SCC (`s_cmpk_eq_i32 s0, 0x10`); the register sits in the SDST field.
    SopkCmp,
    /// `[sdst]` + simm16 count (`s_waitcnt_vscnt null, 0x0`).
    SopkWaitcnt,
    /// `[ssrc0, ssrc1]`, both of width `s`.
    Sopc { s: u8 },
    /// No operands; simm16 read as the kind says.
    Sopp(SoppImm),
    /// `[sdata, sbase, soffset-or-None]` + imm byte offset.
    SmemLoad { d: u8, base: u8 },
    /// No operands (`s_dcache_inv`).
    SmemNone,
    /// `[sdst]` (`s_memtime`).
    SmemDst { d: u8 },
    /// `[vdst, src0]`.
    Vop1 { d: u8, s: u8 },
    /// `[sdst, src0]` where src0 is a VGPR (`v_readfirstlane_b32`).
    Vop1Sdst,
    /// No operands (`v_nop`).
    Vop1None,
    /// `[vdst, src0, src1]`; src1 must be a VGPR in the 32-bit encoding.
    Vop2 { d: u8, s0: u8, s1: u8 },
    /// `[vdst, src0, src1]` with vdst also the addend (`v_fmac_f32`).
    Vop2Tied,
    /// `[vdst, src0, src1, mask]` (`v_cndmask_b32`; mask is VCC in the 32-bit encoding).
    Vop2Cndmask,
    /// `[vdst, carry-out mask, src0, src1]`.
    Vop2CarryOut,
    /// `[vdst, carry-out mask, src0, src1, carry-in mask]`.
    Vop2CarryInOut,
    /// `[mask, src0, src1]`, sources of width `s` (`v_cmp_*`; VCC in the 32-bit encoding).
    Vopc { s: u8 },
    /// `v_cmp_class_f32/f64 [mask, src0, src1]`: src0 is `s` registers wide (the float tested),
    /// src1 is the 32-bit class mask (integer: no neg/abs on it).
    VopcClass { s: u8 },
    /// `v_cmpx_*`: writes EXEC. GFX9 `[mask, src0, src1]` (also writes the mask); GFX11 `[src0, src1]`.
    VopcX { s: u8 },
    /// `[vdst, src0, src1]` in the 64-bit encoding only.
    Vop3 { d: u8, s0: u8, s1: u8 },
    /// `[vdst, src0, src1, src2]`.
    Vop3Three { d: u8, s0: u8, s1: u8, s2: u8 },
    /// `v_mad_u64_u32 [vdst(2), carry-out mask, src0, src1, src2(2)]`.
    Vop3bMad,
    /// `v_div_scale_f32/f64 [vdst, mask, src0, src1, src2]` (VOP3B: a lane-mask destination in the
    /// SDST field, so neg is the only source modifier), every value operand `s` registers wide.
    Vop3bDivScale { s: u8 },
    /// `v_readlane_b32 [sdst, vsrc, lane-select]`.
    Readlane,
    /// `v_writelane_b32 [vdst, ssrc, lane-select]` (other lanes of vdst keep their value).
    Writelane,
    /// `v_permlane(x)16_b32 [vdst, vsrc0, sel-lo, sel-hi]` (vdst also read).
    Permlane,
    /// `[vdst, addr]` + offset.
    DsLoad { d: u8 },
    /// `[vdst (2·d), addr]` + offset0 (imm), offset1 (imm1), in units of d dwords.
    DsLoad2 { d: u8 },
    /// `[addr, data0]` + offset.
    DsStore { s: u8 },
    /// `[addr, data0]` + offset, no return.
    DsAtomic { s: u8 },
    /// `[vdst, addr, data0]` + offset (also `ds_bpermute`/`ds_permute`).
    DsAtomicRtn { s: u8 },
    /// `[vdst, addr, data0, data1]` + offset, each data operand and vdst `s` dwords. GFX9
    /// `ds_cmpst_rtn_b32/b64` compare with data0 and store data1; GFX11 `ds_cmpstore_rtn_b32/b64`
    /// store data0 and compare with data1.
    DsCmpstRtn { s: u8 },
    /// `[vdst, data0]` + offset = the swizzle pattern.
    DsSwizzle,
    /// `[vdst]` + offset.
    DsAddtid,
    /// `[vdst, vaddr(2)]` + offset.
    FlatLoad { d: u8 },
    /// `[vaddr(2), vdata]` + offset.
    FlatStore { s: u8 },
    /// `[vdst, vaddr, saddr-or-None]` + offset: vaddr is a VGPR pair with `off` (None), a 32-bit
    /// offset VGPR with an SGPR-pair saddr.
    GlobalLoad { d: u8 },
    /// `[vaddr, vdata, saddr-or-None]` + offset.
    GlobalStore { s: u8 },
    /// `[vdst-or-None, vaddr, vdata, saddr-or-None]` + offset; a vdst means "return the old value"
    /// (the encoder sets GLC, or SC0 on gfx942).
    GlobalAtomic { s: u8 },
    /// Compare-and-swap: like `GlobalAtomic` with vdata of 2·s dwords (new value, then compare).
    GlobalAtomicCas { s: u8 },
    /// No operands; cache bits in [`crate::Inst::cache`].
    CacheCtl,
}

/// One encoding of an [`Op`] in one family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Enc {
    /// The LLVM mnemonic in this family, without `_e32`/`_e64`/`_dpp` suffixes.
    pub name: &'static str,
    /// The instruction's own format (VOP1/VOP2/VOPC ops also have a VOP3 form).
    pub format: Format,
    /// The opcode in that format.
    pub opcode: u16,
}

/// Row flags.
pub mod flags {
    /// A DPP16 (and on GFX11 DPP8) form exists for the 32-bit encoding.
    pub const DPP: u16 = 1 << 0;
    /// Float operation: source modifiers neg/abs, clamp and omod apply; inline float constants
    /// are of the operand's float type.
    pub const FLOAT: u16 = 1 << 1;
    /// On GFX9 only gfx942 has it.
    pub const GFX942_ONLY: u16 = 1 << 2;
    /// On GFX9 only gfx90a has it.
    pub const GFX90A_ONLY: u16 = 1 << 3;
    /// A VOP3-only op that takes DPP16/DPP8 in its VOP3 encoding on GFX11.
    pub const VOP3_DPP: u16 = 1 << 4;
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The operand signature.
    pub shape: Shape,
    /// [`flags`] bits.
    pub flags: u16,
    /// The GFX9 encoding (gfx90a and gfx942 unless a flag says otherwise).
    pub gfx9: Option<Enc>,
    /// The GFX11 encoding.
    pub gfx11: Option<Enc>,
}

use self::flags::*;

macro_rules! isa_table {
    ($($op:ident => $shape:expr, $flags:expr, $g9:expr, $g11:expr;)*) => {
        /// Every instruction in the table (see the module doc).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum Op { $($op,)* }

        impl Op {
            /// Every op, in table order.
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// The op's table row.
            pub fn info(self) -> &'static OpInfo {
                &TABLE[self as usize]
            }
        }

        static TABLE: &[OpInfo] = &[$(OpInfo { shape: $shape, flags: $flags, gfx9: $g9, gfx11: $g11 },)*];
    };
}

isa_table! {
    SMovB32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_mov_b32", format: Format::Sop1, opcode: 0x0 }), Some(Enc { name: "s_mov_b32", format: Format::Sop1, opcode: 0x0 });
    SMovB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_mov_b64", format: Format::Sop1, opcode: 0x1 }), Some(Enc { name: "s_mov_b64", format: Format::Sop1, opcode: 0x1 });
    SNotB32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_not_b32", format: Format::Sop1, opcode: 0x4 }), Some(Enc { name: "s_not_b32", format: Format::Sop1, opcode: 0x1e });
    SNotB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_not_b64", format: Format::Sop1, opcode: 0x5 }), Some(Enc { name: "s_not_b64", format: Format::Sop1, opcode: 0x1f });
    SBrevB32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_brev_b32", format: Format::Sop1, opcode: 0x8 }), Some(Enc { name: "s_brev_b32", format: Format::Sop1, opcode: 0x4 });
    SBcnt1I32B32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_bcnt1_i32_b32", format: Format::Sop1, opcode: 0xc }), Some(Enc { name: "s_bcnt1_i32_b32", format: Format::Sop1, opcode: 0x18 });
    SBcnt1I32B64 => Shape::Sop1 { d: 1, s: 2 }, 0, Some(Enc { name: "s_bcnt1_i32_b64", format: Format::Sop1, opcode: 0xd }), Some(Enc { name: "s_bcnt1_i32_b64", format: Format::Sop1, opcode: 0x19 });
    SFf1I32B32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_ff1_i32_b32", format: Format::Sop1, opcode: 0x10 }), Some(Enc { name: "s_ctz_i32_b32", format: Format::Sop1, opcode: 0x8 });
    SFf1I32B64 => Shape::Sop1 { d: 1, s: 2 }, 0, Some(Enc { name: "s_ff1_i32_b64", format: Format::Sop1, opcode: 0x11 }), Some(Enc { name: "s_ctz_i32_b64", format: Format::Sop1, opcode: 0x9 });
    SFlbitI32B32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_flbit_i32_b32", format: Format::Sop1, opcode: 0x12 }), Some(Enc { name: "s_clz_i32_u32", format: Format::Sop1, opcode: 0xa });
    SFlbitI32B64 => Shape::Sop1 { d: 1, s: 2 }, 0, Some(Enc { name: "s_flbit_i32_b64", format: Format::Sop1, opcode: 0x13 }), Some(Enc { name: "s_clz_i32_u64", format: Format::Sop1, opcode: 0xb });
    SAbsI32 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_abs_i32", format: Format::Sop1, opcode: 0x30 }), Some(Enc { name: "s_abs_i32", format: Format::Sop1, opcode: 0x15 });
    SSextI32I8 => Shape::Sop1 { d: 1, s: 1 }, 0, Some(Enc { name: "s_sext_i32_i8", format: Format::Sop1, opcode: 0x16 }), Some(Enc { name: "s_sext_i32_i8", format: Format::Sop1, opcode: 0xe });
    SAndSaveexecB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_and_saveexec_b64", format: Format::Sop1, opcode: 0x20 }), Some(Enc { name: "s_and_saveexec_b64", format: Format::Sop1, opcode: 0x21 });
    SOrSaveexecB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_or_saveexec_b64", format: Format::Sop1, opcode: 0x21 }), Some(Enc { name: "s_or_saveexec_b64", format: Format::Sop1, opcode: 0x23 });
    SXorSaveexecB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_xor_saveexec_b64", format: Format::Sop1, opcode: 0x22 }), Some(Enc { name: "s_xor_saveexec_b64", format: Format::Sop1, opcode: 0x25 });
    SAndn2SaveexecB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_andn2_saveexec_b64", format: Format::Sop1, opcode: 0x23 }), Some(Enc { name: "s_and_not1_saveexec_b64", format: Format::Sop1, opcode: 0x31 });
    SSwappcB64 => Shape::Sop1 { d: 2, s: 2 }, 0, Some(Enc { name: "s_swappc_b64", format: Format::Sop1, opcode: 0x1e }), Some(Enc { name: "s_swappc_b64", format: Format::Sop1, opcode: 0x49 });
    SAndSaveexecB32 => Shape::Sop1 { d: 1, s: 1 }, 0, None, Some(Enc { name: "s_and_saveexec_b32", format: Format::Sop1, opcode: 0x20 });
    SOrSaveexecB32 => Shape::Sop1 { d: 1, s: 1 }, 0, None, Some(Enc { name: "s_or_saveexec_b32", format: Format::Sop1, opcode: 0x22 });
    SXorSaveexecB32 => Shape::Sop1 { d: 1, s: 1 }, 0, None, Some(Enc { name: "s_xor_saveexec_b32", format: Format::Sop1, opcode: 0x24 });
    SAndn2SaveexecB32 => Shape::Sop1 { d: 1, s: 1 }, 0, None, Some(Enc { name: "s_and_not1_saveexec_b32", format: Format::Sop1, opcode: 0x30 });
    SGetpcB64 => Shape::Sop1Dst { d: 2 }, 0, Some(Enc { name: "s_getpc_b64", format: Format::Sop1, opcode: 0x1c }), Some(Enc { name: "s_getpc_b64", format: Format::Sop1, opcode: 0x47 });
    SSetpcB64 => Shape::Sop1Src { s: 2 }, 0, Some(Enc { name: "s_setpc_b64", format: Format::Sop1, opcode: 0x1d }), Some(Enc { name: "s_setpc_b64", format: Format::Sop1, opcode: 0x48 });
    SAddU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_add_u32", format: Format::Sop2, opcode: 0x0 }), Some(Enc { name: "s_add_u32", format: Format::Sop2, opcode: 0x0 });
    SSubU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_sub_u32", format: Format::Sop2, opcode: 0x1 }), Some(Enc { name: "s_sub_u32", format: Format::Sop2, opcode: 0x1 });
    SAddI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_add_i32", format: Format::Sop2, opcode: 0x2 }), Some(Enc { name: "s_add_i32", format: Format::Sop2, opcode: 0x2 });
    SSubI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_sub_i32", format: Format::Sop2, opcode: 0x3 }), Some(Enc { name: "s_sub_i32", format: Format::Sop2, opcode: 0x3 });
    SAddcU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_addc_u32", format: Format::Sop2, opcode: 0x4 }), Some(Enc { name: "s_addc_u32", format: Format::Sop2, opcode: 0x4 });
    SSubbU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_subb_u32", format: Format::Sop2, opcode: 0x5 }), Some(Enc { name: "s_subb_u32", format: Format::Sop2, opcode: 0x5 });
    SMinI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_min_i32", format: Format::Sop2, opcode: 0x6 }), Some(Enc { name: "s_min_i32", format: Format::Sop2, opcode: 0x12 });
    SMinU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_min_u32", format: Format::Sop2, opcode: 0x7 }), Some(Enc { name: "s_min_u32", format: Format::Sop2, opcode: 0x13 });
    SMaxI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_max_i32", format: Format::Sop2, opcode: 0x8 }), Some(Enc { name: "s_max_i32", format: Format::Sop2, opcode: 0x14 });
    SMaxU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_max_u32", format: Format::Sop2, opcode: 0x9 }), Some(Enc { name: "s_max_u32", format: Format::Sop2, opcode: 0x15 });
    SCselectB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_cselect_b32", format: Format::Sop2, opcode: 0xa }), Some(Enc { name: "s_cselect_b32", format: Format::Sop2, opcode: 0x30 });
    SCselectB64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_cselect_b64", format: Format::Sop2, opcode: 0xb }), Some(Enc { name: "s_cselect_b64", format: Format::Sop2, opcode: 0x31 });
    SAndB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_and_b32", format: Format::Sop2, opcode: 0xc }), Some(Enc { name: "s_and_b32", format: Format::Sop2, opcode: 0x16 });
    SAndB64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_and_b64", format: Format::Sop2, opcode: 0xd }), Some(Enc { name: "s_and_b64", format: Format::Sop2, opcode: 0x17 });
    SOrB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_or_b32", format: Format::Sop2, opcode: 0xe }), Some(Enc { name: "s_or_b32", format: Format::Sop2, opcode: 0x18 });
    SOrB64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_or_b64", format: Format::Sop2, opcode: 0xf }), Some(Enc { name: "s_or_b64", format: Format::Sop2, opcode: 0x19 });
    SXorB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_xor_b32", format: Format::Sop2, opcode: 0x10 }), Some(Enc { name: "s_xor_b32", format: Format::Sop2, opcode: 0x1a });
    SXorB64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_xor_b64", format: Format::Sop2, opcode: 0x11 }), Some(Enc { name: "s_xor_b64", format: Format::Sop2, opcode: 0x1b });
    SAndn2B32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_andn2_b32", format: Format::Sop2, opcode: 0x12 }), Some(Enc { name: "s_and_not1_b32", format: Format::Sop2, opcode: 0x22 });
    SAndn2B64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_andn2_b64", format: Format::Sop2, opcode: 0x13 }), Some(Enc { name: "s_and_not1_b64", format: Format::Sop2, opcode: 0x23 });
    SOrn2B64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_orn2_b64", format: Format::Sop2, opcode: 0x15 }), Some(Enc { name: "s_or_not1_b64", format: Format::Sop2, opcode: 0x25 });
    SXnorB64 => Shape::Sop2 { d: 2, s0: 2, s1: 2 }, 0, Some(Enc { name: "s_xnor_b64", format: Format::Sop2, opcode: 0x1b }), Some(Enc { name: "s_xnor_b64", format: Format::Sop2, opcode: 0x21 });
    SLshlB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshl_b32", format: Format::Sop2, opcode: 0x1c }), Some(Enc { name: "s_lshl_b32", format: Format::Sop2, opcode: 0x8 });
    SLshlB64 => Shape::Sop2 { d: 2, s0: 2, s1: 1 }, 0, Some(Enc { name: "s_lshl_b64", format: Format::Sop2, opcode: 0x1d }), Some(Enc { name: "s_lshl_b64", format: Format::Sop2, opcode: 0x9 });
    SLshrB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshr_b32", format: Format::Sop2, opcode: 0x1e }), Some(Enc { name: "s_lshr_b32", format: Format::Sop2, opcode: 0xa });
    SLshrB64 => Shape::Sop2 { d: 2, s0: 2, s1: 1 }, 0, Some(Enc { name: "s_lshr_b64", format: Format::Sop2, opcode: 0x1f }), Some(Enc { name: "s_lshr_b64", format: Format::Sop2, opcode: 0xb });
    SAshrI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_ashr_i32", format: Format::Sop2, opcode: 0x20 }), Some(Enc { name: "s_ashr_i32", format: Format::Sop2, opcode: 0xc });
    SAshrI64 => Shape::Sop2 { d: 2, s0: 2, s1: 1 }, 0, Some(Enc { name: "s_ashr_i64", format: Format::Sop2, opcode: 0x21 }), Some(Enc { name: "s_ashr_i64", format: Format::Sop2, opcode: 0xd });
    SMulI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_mul_i32", format: Format::Sop2, opcode: 0x24 }), Some(Enc { name: "s_mul_i32", format: Format::Sop2, opcode: 0x2c });
    SBfeU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_bfe_u32", format: Format::Sop2, opcode: 0x25 }), Some(Enc { name: "s_bfe_u32", format: Format::Sop2, opcode: 0x26 });
    SBfeI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_bfe_i32", format: Format::Sop2, opcode: 0x26 }), Some(Enc { name: "s_bfe_i32", format: Format::Sop2, opcode: 0x27 });
    SMulHiU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_mul_hi_u32", format: Format::Sop2, opcode: 0x2c }), Some(Enc { name: "s_mul_hi_u32", format: Format::Sop2, opcode: 0x2d });
    SMulHiI32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_mul_hi_i32", format: Format::Sop2, opcode: 0x2d }), Some(Enc { name: "s_mul_hi_i32", format: Format::Sop2, opcode: 0x2e });
    SBfmB32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_bfm_b32", format: Format::Sop2, opcode: 0x22 }), Some(Enc { name: "s_bfm_b32", format: Format::Sop2, opcode: 0x2a });
    SLshl1AddU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshl1_add_u32", format: Format::Sop2, opcode: 0x2e }), Some(Enc { name: "s_lshl1_add_u32", format: Format::Sop2, opcode: 0xe });
    SLshl2AddU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshl2_add_u32", format: Format::Sop2, opcode: 0x2f }), Some(Enc { name: "s_lshl2_add_u32", format: Format::Sop2, opcode: 0xf });
    SLshl3AddU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshl3_add_u32", format: Format::Sop2, opcode: 0x30 }), Some(Enc { name: "s_lshl3_add_u32", format: Format::Sop2, opcode: 0x10 });
    SLshl4AddU32 => Shape::Sop2 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "s_lshl4_add_u32", format: Format::Sop2, opcode: 0x31 }), Some(Enc { name: "s_lshl4_add_u32", format: Format::Sop2, opcode: 0x11 });
    SMovkI32 => Shape::Sopk, 0, Some(Enc { name: "s_movk_i32", format: Format::Sopk, opcode: 0x0 }), Some(Enc { name: "s_movk_i32", format: Format::Sopk, opcode: 0x0 });
    SAddkI32 => Shape::Sopk, 0, Some(Enc { name: "s_addk_i32", format: Format::Sopk, opcode: 0xe }), Some(Enc { name: "s_addk_i32", format: Format::Sopk, opcode: 0xf });
    SMulkI32 => Shape::Sopk, 0, Some(Enc { name: "s_mulk_i32", format: Format::Sopk, opcode: 0xf }), Some(Enc { name: "s_mulk_i32", format: Format::Sopk, opcode: 0x10 });
    SCmpkEqI32 => Shape::SopkCmp, 0, Some(Enc { name: "s_cmpk_eq_i32", format: Format::Sopk, opcode: 0x2 }), Some(Enc { name: "s_cmpk_eq_i32", format: Format::Sopk, opcode: 0x3 });
    SCmpkLgU32 => Shape::SopkCmp, 0, Some(Enc { name: "s_cmpk_lg_u32", format: Format::Sopk, opcode: 0x9 }), Some(Enc { name: "s_cmpk_lg_u32", format: Format::Sopk, opcode: 0xa });
    SWaitcntVscnt => Shape::SopkWaitcnt, 0, None, Some(Enc { name: "s_waitcnt_vscnt", format: Format::Sopk, opcode: 0x18 });
    SCmpEqI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_eq_i32", format: Format::Sopc, opcode: 0x0 }), Some(Enc { name: "s_cmp_eq_i32", format: Format::Sopc, opcode: 0x0 });
    SCmpEqU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_eq_u32", format: Format::Sopc, opcode: 0x6 }), Some(Enc { name: "s_cmp_eq_u32", format: Format::Sopc, opcode: 0x6 });
    SCmpLgI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_lg_i32", format: Format::Sopc, opcode: 0x1 }), Some(Enc { name: "s_cmp_lg_i32", format: Format::Sopc, opcode: 0x1 });
    SCmpLgU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_lg_u32", format: Format::Sopc, opcode: 0x7 }), Some(Enc { name: "s_cmp_lg_u32", format: Format::Sopc, opcode: 0x7 });
    SCmpGtI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_gt_i32", format: Format::Sopc, opcode: 0x2 }), Some(Enc { name: "s_cmp_gt_i32", format: Format::Sopc, opcode: 0x2 });
    SCmpGtU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_gt_u32", format: Format::Sopc, opcode: 0x8 }), Some(Enc { name: "s_cmp_gt_u32", format: Format::Sopc, opcode: 0x8 });
    SCmpGeI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_ge_i32", format: Format::Sopc, opcode: 0x3 }), Some(Enc { name: "s_cmp_ge_i32", format: Format::Sopc, opcode: 0x3 });
    SCmpGeU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_ge_u32", format: Format::Sopc, opcode: 0x9 }), Some(Enc { name: "s_cmp_ge_u32", format: Format::Sopc, opcode: 0x9 });
    SCmpLtI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_lt_i32", format: Format::Sopc, opcode: 0x4 }), Some(Enc { name: "s_cmp_lt_i32", format: Format::Sopc, opcode: 0x4 });
    SCmpLtU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_lt_u32", format: Format::Sopc, opcode: 0xa }), Some(Enc { name: "s_cmp_lt_u32", format: Format::Sopc, opcode: 0xa });
    SCmpLeI32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_le_i32", format: Format::Sopc, opcode: 0x5 }), Some(Enc { name: "s_cmp_le_i32", format: Format::Sopc, opcode: 0x5 });
    SCmpLeU32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_cmp_le_u32", format: Format::Sopc, opcode: 0xb }), Some(Enc { name: "s_cmp_le_u32", format: Format::Sopc, opcode: 0xb });
    SCmpEqU64 => Shape::Sopc { s: 2 }, 0, Some(Enc { name: "s_cmp_eq_u64", format: Format::Sopc, opcode: 0x12 }), Some(Enc { name: "s_cmp_eq_u64", format: Format::Sopc, opcode: 0x10 });
    SCmpLgU64 => Shape::Sopc { s: 2 }, 0, Some(Enc { name: "s_cmp_lg_u64", format: Format::Sopc, opcode: 0x13 }), Some(Enc { name: "s_cmp_lg_u64", format: Format::Sopc, opcode: 0x11 });
    SBitcmp1B32 => Shape::Sopc { s: 1 }, 0, Some(Enc { name: "s_bitcmp1_b32", format: Format::Sopc, opcode: 0xd }), Some(Enc { name: "s_bitcmp1_b32", format: Format::Sopc, opcode: 0xd });
    SNop => Shape::Sopp(SoppImm::Imm), 0, Some(Enc { name: "s_nop", format: Format::Sopp, opcode: 0x0 }), Some(Enc { name: "s_nop", format: Format::Sopp, opcode: 0x0 });
    SEndpgm => Shape::Sopp(SoppImm::None), 0, Some(Enc { name: "s_endpgm", format: Format::Sopp, opcode: 0x1 }), Some(Enc { name: "s_endpgm", format: Format::Sopp, opcode: 0x30 });
    SBranch => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_branch", format: Format::Sopp, opcode: 0x2 }), Some(Enc { name: "s_branch", format: Format::Sopp, opcode: 0x20 });
    SCbranchScc0 => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_scc0", format: Format::Sopp, opcode: 0x4 }), Some(Enc { name: "s_cbranch_scc0", format: Format::Sopp, opcode: 0x21 });
    SCbranchScc1 => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_scc1", format: Format::Sopp, opcode: 0x5 }), Some(Enc { name: "s_cbranch_scc1", format: Format::Sopp, opcode: 0x22 });
    SCbranchVccz => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_vccz", format: Format::Sopp, opcode: 0x6 }), Some(Enc { name: "s_cbranch_vccz", format: Format::Sopp, opcode: 0x23 });
    SCbranchVccnz => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_vccnz", format: Format::Sopp, opcode: 0x7 }), Some(Enc { name: "s_cbranch_vccnz", format: Format::Sopp, opcode: 0x24 });
    SCbranchExecz => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_execz", format: Format::Sopp, opcode: 0x8 }), Some(Enc { name: "s_cbranch_execz", format: Format::Sopp, opcode: 0x25 });
    SCbranchExecnz => Shape::Sopp(SoppImm::Branch), 0, Some(Enc { name: "s_cbranch_execnz", format: Format::Sopp, opcode: 0x9 }), Some(Enc { name: "s_cbranch_execnz", format: Format::Sopp, opcode: 0x26 });
    SBarrier => Shape::Sopp(SoppImm::None), 0, Some(Enc { name: "s_barrier", format: Format::Sopp, opcode: 0xa }), Some(Enc { name: "s_barrier", format: Format::Sopp, opcode: 0x3d });
    SWaitcnt => Shape::Sopp(SoppImm::Waitcnt), 0, Some(Enc { name: "s_waitcnt", format: Format::Sopp, opcode: 0xc }), Some(Enc { name: "s_waitcnt", format: Format::Sopp, opcode: 0x9 });
    SSleep => Shape::Sopp(SoppImm::Imm), 0, Some(Enc { name: "s_sleep", format: Format::Sopp, opcode: 0xe }), Some(Enc { name: "s_sleep", format: Format::Sopp, opcode: 0x3 });
    SSetprio => Shape::Sopp(SoppImm::Imm), 0, Some(Enc { name: "s_setprio", format: Format::Sopp, opcode: 0xf }), Some(Enc { name: "s_setprio", format: Format::Sopp, opcode: 0x35 });
    STrap => Shape::Sopp(SoppImm::Imm), 0, Some(Enc { name: "s_trap", format: Format::Sopp, opcode: 0x12 }), Some(Enc { name: "s_trap", format: Format::Sopp, opcode: 0x10 });
    SIcacheInv => Shape::Sopp(SoppImm::None), 0, Some(Enc { name: "s_icache_inv", format: Format::Sopp, opcode: 0x13 }), Some(Enc { name: "s_icache_inv", format: Format::Sopp, opcode: 0x3c });
    SSendmsg => Shape::Sopp(SoppImm::Sendmsg), 0, Some(Enc { name: "s_sendmsg", format: Format::Sopp, opcode: 0x10 }), Some(Enc { name: "s_sendmsg", format: Format::Sopp, opcode: 0x36 });
    SWaitcntDepctr => Shape::Sopp(SoppImm::Depctr), 0, None, Some(Enc { name: "s_waitcnt_depctr", format: Format::Sopp, opcode: 0x8 });
    SDelayAlu => Shape::Sopp(SoppImm::DelayAlu), 0, None, Some(Enc { name: "s_delay_alu", format: Format::Sopp, opcode: 0x7 });
    SClause => Shape::Sopp(SoppImm::Imm), 0, None, Some(Enc { name: "s_clause", format: Format::Sopp, opcode: 0x5 });
    SLoadDword => Shape::SmemLoad { d: 1, base: 2 }, 0, Some(Enc { name: "s_load_dword", format: Format::Smem, opcode: 0x0 }), Some(Enc { name: "s_load_b32", format: Format::Smem, opcode: 0x0 });
    SLoadDwordx2 => Shape::SmemLoad { d: 2, base: 2 }, 0, Some(Enc { name: "s_load_dwordx2", format: Format::Smem, opcode: 0x1 }), Some(Enc { name: "s_load_b64", format: Format::Smem, opcode: 0x1 });
    SLoadDwordx4 => Shape::SmemLoad { d: 4, base: 2 }, 0, Some(Enc { name: "s_load_dwordx4", format: Format::Smem, opcode: 0x2 }), Some(Enc { name: "s_load_b128", format: Format::Smem, opcode: 0x2 });
    SLoadDwordx8 => Shape::SmemLoad { d: 8, base: 2 }, 0, Some(Enc { name: "s_load_dwordx8", format: Format::Smem, opcode: 0x3 }), Some(Enc { name: "s_load_b256", format: Format::Smem, opcode: 0x3 });
    SBufferLoadDword => Shape::SmemLoad { d: 1, base: 4 }, 0, Some(Enc { name: "s_buffer_load_dword", format: Format::Smem, opcode: 0x8 }), Some(Enc { name: "s_buffer_load_b32", format: Format::Smem, opcode: 0x8 });
    SDcacheInv => Shape::SmemNone, 0, Some(Enc { name: "s_dcache_inv", format: Format::Smem, opcode: 0x20 }), Some(Enc { name: "s_dcache_inv", format: Format::Smem, opcode: 0x21 });
    SMemtime => Shape::SmemDst { d: 2 }, 0, Some(Enc { name: "s_memtime", format: Format::Smem, opcode: 0x24 }), None;
    VMovB32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_mov_b32", format: Format::Vop1, opcode: 0x1 }), Some(Enc { name: "v_mov_b32", format: Format::Vop1, opcode: 0x1 });
    VNotB32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_not_b32", format: Format::Vop1, opcode: 0x2b }), Some(Enc { name: "v_not_b32", format: Format::Vop1, opcode: 0x37 });
    VBfrevB32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_bfrev_b32", format: Format::Vop1, opcode: 0x2c }), Some(Enc { name: "v_bfrev_b32", format: Format::Vop1, opcode: 0x38 });
    VFfbhU32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_ffbh_u32", format: Format::Vop1, opcode: 0x2d }), Some(Enc { name: "v_clz_i32_u32", format: Format::Vop1, opcode: 0x39 });
    VFfblB32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_ffbl_b32", format: Format::Vop1, opcode: 0x2e }), Some(Enc { name: "v_ctz_i32_b32", format: Format::Vop1, opcode: 0x3a });
    VFfbhI32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_ffbh_i32", format: Format::Vop1, opcode: 0x2f }), Some(Enc { name: "v_cls_i32", format: Format::Vop1, opcode: 0x3b });
    VCvtF32I32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_cvt_f32_i32", format: Format::Vop1, opcode: 0x5 }), Some(Enc { name: "v_cvt_f32_i32", format: Format::Vop1, opcode: 0x5 });
    VCvtF32U32 => Shape::Vop1 { d: 1, s: 1 }, DPP, Some(Enc { name: "v_cvt_f32_u32", format: Format::Vop1, opcode: 0x6 }), Some(Enc { name: "v_cvt_f32_u32", format: Format::Vop1, opcode: 0x6 });
    VCvtU32F32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cvt_u32_f32", format: Format::Vop1, opcode: 0x7 }), Some(Enc { name: "v_cvt_u32_f32", format: Format::Vop1, opcode: 0x7 });
    VCvtI32F32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cvt_i32_f32", format: Format::Vop1, opcode: 0x8 }), Some(Enc { name: "v_cvt_i32_f32", format: Format::Vop1, opcode: 0x8 });
    VCvtF64I32 => Shape::Vop1 { d: 2, s: 1 }, 0, Some(Enc { name: "v_cvt_f64_i32", format: Format::Vop1, opcode: 0x4 }), Some(Enc { name: "v_cvt_f64_i32", format: Format::Vop1, opcode: 0x4 });
    VCvtF64U32 => Shape::Vop1 { d: 2, s: 1 }, 0, Some(Enc { name: "v_cvt_f64_u32", format: Format::Vop1, opcode: 0x16 }), Some(Enc { name: "v_cvt_f64_u32", format: Format::Vop1, opcode: 0x16 });
    VCvtI32F64 => Shape::Vop1 { d: 1, s: 2 }, FLOAT, Some(Enc { name: "v_cvt_i32_f64", format: Format::Vop1, opcode: 0x3 }), Some(Enc { name: "v_cvt_i32_f64", format: Format::Vop1, opcode: 0x3 });
    VCvtU32F64 => Shape::Vop1 { d: 1, s: 2 }, FLOAT, Some(Enc { name: "v_cvt_u32_f64", format: Format::Vop1, opcode: 0x15 }), Some(Enc { name: "v_cvt_u32_f64", format: Format::Vop1, opcode: 0x15 });
    VCvtF32F64 => Shape::Vop1 { d: 1, s: 2 }, FLOAT, Some(Enc { name: "v_cvt_f32_f64", format: Format::Vop1, opcode: 0xf }), Some(Enc { name: "v_cvt_f32_f64", format: Format::Vop1, opcode: 0xf });
    VCvtF64F32 => Shape::Vop1 { d: 2, s: 1 }, FLOAT, Some(Enc { name: "v_cvt_f64_f32", format: Format::Vop1, opcode: 0x10 }), Some(Enc { name: "v_cvt_f64_f32", format: Format::Vop1, opcode: 0x10 });
    VRcpF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_rcp_f32", format: Format::Vop1, opcode: 0x22 }), Some(Enc { name: "v_rcp_f32", format: Format::Vop1, opcode: 0x2a });
    VSqrtF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_sqrt_f32", format: Format::Vop1, opcode: 0x27 }), Some(Enc { name: "v_sqrt_f32", format: Format::Vop1, opcode: 0x33 });
    VRsqF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_rsq_f32", format: Format::Vop1, opcode: 0x24 }), Some(Enc { name: "v_rsq_f32", format: Format::Vop1, opcode: 0x2e });
    VExpF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_exp_f32", format: Format::Vop1, opcode: 0x20 }), Some(Enc { name: "v_exp_f32", format: Format::Vop1, opcode: 0x25 });
    VLogF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_log_f32", format: Format::Vop1, opcode: 0x21 }), Some(Enc { name: "v_log_f32", format: Format::Vop1, opcode: 0x27 });
    VTruncF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_trunc_f32", format: Format::Vop1, opcode: 0x1c }), Some(Enc { name: "v_trunc_f32", format: Format::Vop1, opcode: 0x21 });
    VFloorF32 => Shape::Vop1 { d: 1, s: 1 }, DPP | FLOAT, Some(Enc { name: "v_floor_f32", format: Format::Vop1, opcode: 0x1f }), Some(Enc { name: "v_floor_f32", format: Format::Vop1, opcode: 0x24 });
    VMovB64 => Shape::Vop1 { d: 2, s: 2 }, GFX942_ONLY, Some(Enc { name: "v_mov_b64", format: Format::Vop1, opcode: 0x38 }), None;
    VPermlane64B32 => Shape::Vop1 { d: 1, s: 1 }, 0, None, Some(Enc { name: "v_permlane64_b32", format: Format::Vop1, opcode: 0x67 });
    VReadfirstlaneB32 => Shape::Vop1Sdst, 0, Some(Enc { name: "v_readfirstlane_b32", format: Format::Vop1, opcode: 0x2 }), Some(Enc { name: "v_readfirstlane_b32", format: Format::Vop1, opcode: 0x2 });
    VNop => Shape::Vop1None, 0, Some(Enc { name: "v_nop", format: Format::Vop1, opcode: 0x0 }), Some(Enc { name: "v_nop", format: Format::Vop1, opcode: 0x0 });
    VAddF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_add_f32", format: Format::Vop2, opcode: 0x1 }), Some(Enc { name: "v_add_f32", format: Format::Vop2, opcode: 0x3 });
    VSubF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_sub_f32", format: Format::Vop2, opcode: 0x2 }), Some(Enc { name: "v_sub_f32", format: Format::Vop2, opcode: 0x4 });
    VSubrevF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_subrev_f32", format: Format::Vop2, opcode: 0x3 }), Some(Enc { name: "v_subrev_f32", format: Format::Vop2, opcode: 0x5 });
    VMulF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_mul_f32", format: Format::Vop2, opcode: 0x5 }), Some(Enc { name: "v_mul_f32", format: Format::Vop2, opcode: 0x8 });
    VMulI32I24 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_mul_i32_i24", format: Format::Vop2, opcode: 0x6 }), Some(Enc { name: "v_mul_i32_i24", format: Format::Vop2, opcode: 0x9 });
    VMulU32U24 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_mul_u32_u24", format: Format::Vop2, opcode: 0x8 }), Some(Enc { name: "v_mul_u32_u24", format: Format::Vop2, opcode: 0xb });
    VMulHiU32U24 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_mul_hi_u32_u24", format: Format::Vop2, opcode: 0x9 }), Some(Enc { name: "v_mul_hi_u32_u24", format: Format::Vop2, opcode: 0xc });
    VMinF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_min_f32", format: Format::Vop2, opcode: 0xa }), Some(Enc { name: "v_min_f32", format: Format::Vop2, opcode: 0xf });
    VMaxF32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP | FLOAT, Some(Enc { name: "v_max_f32", format: Format::Vop2, opcode: 0xb }), Some(Enc { name: "v_max_f32", format: Format::Vop2, opcode: 0x10 });
    VMinI32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_min_i32", format: Format::Vop2, opcode: 0xc }), Some(Enc { name: "v_min_i32", format: Format::Vop2, opcode: 0x11 });
    VMaxI32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_max_i32", format: Format::Vop2, opcode: 0xd }), Some(Enc { name: "v_max_i32", format: Format::Vop2, opcode: 0x12 });
    VMinU32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_min_u32", format: Format::Vop2, opcode: 0xe }), Some(Enc { name: "v_min_u32", format: Format::Vop2, opcode: 0x13 });
    VMaxU32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_max_u32", format: Format::Vop2, opcode: 0xf }), Some(Enc { name: "v_max_u32", format: Format::Vop2, opcode: 0x14 });
    VLshrrevB32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_lshrrev_b32", format: Format::Vop2, opcode: 0x10 }), Some(Enc { name: "v_lshrrev_b32", format: Format::Vop2, opcode: 0x19 });
    VAshrrevI32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_ashrrev_i32", format: Format::Vop2, opcode: 0x11 }), Some(Enc { name: "v_ashrrev_i32", format: Format::Vop2, opcode: 0x1a });
    VLshlrevB32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_lshlrev_b32", format: Format::Vop2, opcode: 0x12 }), Some(Enc { name: "v_lshlrev_b32", format: Format::Vop2, opcode: 0x18 });
    VAndB32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_and_b32", format: Format::Vop2, opcode: 0x13 }), Some(Enc { name: "v_and_b32", format: Format::Vop2, opcode: 0x1b });
    VOrB32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_or_b32", format: Format::Vop2, opcode: 0x14 }), Some(Enc { name: "v_or_b32", format: Format::Vop2, opcode: 0x1c });
    VXorB32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_xor_b32", format: Format::Vop2, opcode: 0x15 }), Some(Enc { name: "v_xor_b32", format: Format::Vop2, opcode: 0x1d });
    VAddU32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_add_u32", format: Format::Vop2, opcode: 0x34 }), Some(Enc { name: "v_add_nc_u32", format: Format::Vop2, opcode: 0x25 });
    VSubU32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_sub_u32", format: Format::Vop2, opcode: 0x35 }), Some(Enc { name: "v_sub_nc_u32", format: Format::Vop2, opcode: 0x26 });
    VSubrevU32 => Shape::Vop2 { d: 1, s0: 1, s1: 1 }, DPP, Some(Enc { name: "v_subrev_u32", format: Format::Vop2, opcode: 0x36 }), Some(Enc { name: "v_subrev_nc_u32", format: Format::Vop2, opcode: 0x27 });
    VFmacF32 => Shape::Vop2Tied, DPP | FLOAT, Some(Enc { name: "v_fmac_f32", format: Format::Vop2, opcode: 0x3b }), Some(Enc { name: "v_fmac_f32", format: Format::Vop2, opcode: 0x2b });
    VCndmaskB32 => Shape::Vop2Cndmask, DPP, Some(Enc { name: "v_cndmask_b32", format: Format::Vop2, opcode: 0x0 }), Some(Enc { name: "v_cndmask_b32", format: Format::Vop2, opcode: 0x1 });
    VAddCoU32 => Shape::Vop2CarryOut, DPP, Some(Enc { name: "v_add_co_u32", format: Format::Vop2, opcode: 0x19 }), Some(Enc { name: "v_add_co_u32", format: Format::Vop3, opcode: 0x300 });
    VSubCoU32 => Shape::Vop2CarryOut, DPP, Some(Enc { name: "v_sub_co_u32", format: Format::Vop2, opcode: 0x1a }), Some(Enc { name: "v_sub_co_u32", format: Format::Vop3, opcode: 0x301 });
    VSubrevCoU32 => Shape::Vop2CarryOut, DPP, Some(Enc { name: "v_subrev_co_u32", format: Format::Vop2, opcode: 0x1b }), Some(Enc { name: "v_subrev_co_u32", format: Format::Vop3, opcode: 0x302 });
    VAddcCoU32 => Shape::Vop2CarryInOut, DPP, Some(Enc { name: "v_addc_co_u32", format: Format::Vop2, opcode: 0x1c }), Some(Enc { name: "v_add_co_ci_u32", format: Format::Vop2, opcode: 0x20 });
    VSubbCoU32 => Shape::Vop2CarryInOut, DPP, Some(Enc { name: "v_subb_co_u32", format: Format::Vop2, opcode: 0x1d }), Some(Enc { name: "v_sub_co_ci_u32", format: Format::Vop2, opcode: 0x21 });
    VSubbrevCoU32 => Shape::Vop2CarryInOut, DPP, Some(Enc { name: "v_subbrev_co_u32", format: Format::Vop2, opcode: 0x1e }), Some(Enc { name: "v_subrev_co_ci_u32", format: Format::Vop2, opcode: 0x22 });
    VCmpLtI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_lt_i32", format: Format::Vopc, opcode: 0xc1 }), Some(Enc { name: "v_cmp_lt_i32", format: Format::Vopc, opcode: 0x41 });
    VCmpEqI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_eq_i32", format: Format::Vopc, opcode: 0xc2 }), Some(Enc { name: "v_cmp_eq_i32", format: Format::Vopc, opcode: 0x42 });
    VCmpLeI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_le_i32", format: Format::Vopc, opcode: 0xc3 }), Some(Enc { name: "v_cmp_le_i32", format: Format::Vopc, opcode: 0x43 });
    VCmpGtI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_gt_i32", format: Format::Vopc, opcode: 0xc4 }), Some(Enc { name: "v_cmp_gt_i32", format: Format::Vopc, opcode: 0x44 });
    VCmpNeI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_ne_i32", format: Format::Vopc, opcode: 0xc5 }), Some(Enc { name: "v_cmp_ne_i32", format: Format::Vopc, opcode: 0x45 });
    VCmpGeI32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_ge_i32", format: Format::Vopc, opcode: 0xc6 }), Some(Enc { name: "v_cmp_ge_i32", format: Format::Vopc, opcode: 0x46 });
    VCmpLtU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_lt_u32", format: Format::Vopc, opcode: 0xc9 }), Some(Enc { name: "v_cmp_lt_u32", format: Format::Vopc, opcode: 0x49 });
    VCmpEqU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_eq_u32", format: Format::Vopc, opcode: 0xca }), Some(Enc { name: "v_cmp_eq_u32", format: Format::Vopc, opcode: 0x4a });
    VCmpLeU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_le_u32", format: Format::Vopc, opcode: 0xcb }), Some(Enc { name: "v_cmp_le_u32", format: Format::Vopc, opcode: 0x4b });
    VCmpGtU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_gt_u32", format: Format::Vopc, opcode: 0xcc }), Some(Enc { name: "v_cmp_gt_u32", format: Format::Vopc, opcode: 0x4c });
    VCmpNeU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_ne_u32", format: Format::Vopc, opcode: 0xcd }), Some(Enc { name: "v_cmp_ne_u32", format: Format::Vopc, opcode: 0x4d });
    VCmpGeU32 => Shape::Vopc { s: 1 }, DPP, Some(Enc { name: "v_cmp_ge_u32", format: Format::Vopc, opcode: 0xce }), Some(Enc { name: "v_cmp_ge_u32", format: Format::Vopc, opcode: 0x4e });
    VCmpLtI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_lt_i64", format: Format::Vopc, opcode: 0xe1 }), Some(Enc { name: "v_cmp_lt_i64", format: Format::Vopc, opcode: 0x51 });
    VCmpEqI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_eq_i64", format: Format::Vopc, opcode: 0xe2 }), Some(Enc { name: "v_cmp_eq_i64", format: Format::Vopc, opcode: 0x52 });
    VCmpLeI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_le_i64", format: Format::Vopc, opcode: 0xe3 }), Some(Enc { name: "v_cmp_le_i64", format: Format::Vopc, opcode: 0x53 });
    VCmpGtI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_gt_i64", format: Format::Vopc, opcode: 0xe4 }), Some(Enc { name: "v_cmp_gt_i64", format: Format::Vopc, opcode: 0x54 });
    VCmpNeI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_ne_i64", format: Format::Vopc, opcode: 0xe5 }), Some(Enc { name: "v_cmp_ne_i64", format: Format::Vopc, opcode: 0x55 });
    VCmpGeI64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_ge_i64", format: Format::Vopc, opcode: 0xe6 }), Some(Enc { name: "v_cmp_ge_i64", format: Format::Vopc, opcode: 0x56 });
    VCmpLtU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_lt_u64", format: Format::Vopc, opcode: 0xe9 }), Some(Enc { name: "v_cmp_lt_u64", format: Format::Vopc, opcode: 0x59 });
    VCmpEqU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_eq_u64", format: Format::Vopc, opcode: 0xea }), Some(Enc { name: "v_cmp_eq_u64", format: Format::Vopc, opcode: 0x5a });
    VCmpLeU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_le_u64", format: Format::Vopc, opcode: 0xeb }), Some(Enc { name: "v_cmp_le_u64", format: Format::Vopc, opcode: 0x5b });
    VCmpGtU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_gt_u64", format: Format::Vopc, opcode: 0xec }), Some(Enc { name: "v_cmp_gt_u64", format: Format::Vopc, opcode: 0x5c });
    VCmpNeU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_ne_u64", format: Format::Vopc, opcode: 0xed }), Some(Enc { name: "v_cmp_ne_u64", format: Format::Vopc, opcode: 0x5d });
    VCmpGeU64 => Shape::Vopc { s: 2 }, 0, Some(Enc { name: "v_cmp_ge_u64", format: Format::Vopc, opcode: 0xee }), Some(Enc { name: "v_cmp_ge_u64", format: Format::Vopc, opcode: 0x5e });
    VCmpLtF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_lt_f32", format: Format::Vopc, opcode: 0x41 }), Some(Enc { name: "v_cmp_lt_f32", format: Format::Vopc, opcode: 0x11 });
    VCmpEqF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_eq_f32", format: Format::Vopc, opcode: 0x42 }), Some(Enc { name: "v_cmp_eq_f32", format: Format::Vopc, opcode: 0x12 });
    VCmpLeF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_le_f32", format: Format::Vopc, opcode: 0x43 }), Some(Enc { name: "v_cmp_le_f32", format: Format::Vopc, opcode: 0x13 });
    VCmpGtF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_gt_f32", format: Format::Vopc, opcode: 0x44 }), Some(Enc { name: "v_cmp_gt_f32", format: Format::Vopc, opcode: 0x14 });
    VCmpLgF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_lg_f32", format: Format::Vopc, opcode: 0x45 }), Some(Enc { name: "v_cmp_lg_f32", format: Format::Vopc, opcode: 0x15 });
    VCmpGeF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_ge_f32", format: Format::Vopc, opcode: 0x46 }), Some(Enc { name: "v_cmp_ge_f32", format: Format::Vopc, opcode: 0x16 });
    VCmpOF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_o_f32", format: Format::Vopc, opcode: 0x47 }), Some(Enc { name: "v_cmp_o_f32", format: Format::Vopc, opcode: 0x17 });
    VCmpUF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_u_f32", format: Format::Vopc, opcode: 0x48 }), Some(Enc { name: "v_cmp_u_f32", format: Format::Vopc, opcode: 0x18 });
    VCmpNeqF32 => Shape::Vopc { s: 1 }, DPP | FLOAT, Some(Enc { name: "v_cmp_neq_f32", format: Format::Vopc, opcode: 0x4d }), Some(Enc { name: "v_cmp_neq_f32", format: Format::Vopc, opcode: 0x1d });
    VCmpLtF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_lt_f64", format: Format::Vopc, opcode: 0x61 }), Some(Enc { name: "v_cmp_lt_f64", format: Format::Vopc, opcode: 0x21 });
    VCmpEqF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_eq_f64", format: Format::Vopc, opcode: 0x62 }), Some(Enc { name: "v_cmp_eq_f64", format: Format::Vopc, opcode: 0x22 });
    VCmpLeF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_le_f64", format: Format::Vopc, opcode: 0x63 }), Some(Enc { name: "v_cmp_le_f64", format: Format::Vopc, opcode: 0x23 });
    VCmpGtF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_gt_f64", format: Format::Vopc, opcode: 0x64 }), Some(Enc { name: "v_cmp_gt_f64", format: Format::Vopc, opcode: 0x24 });
    VCmpLgF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_lg_f64", format: Format::Vopc, opcode: 0x65 }), Some(Enc { name: "v_cmp_lg_f64", format: Format::Vopc, opcode: 0x25 });
    VCmpGeF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_ge_f64", format: Format::Vopc, opcode: 0x66 }), Some(Enc { name: "v_cmp_ge_f64", format: Format::Vopc, opcode: 0x26 });
    VCmpOF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_o_f64", format: Format::Vopc, opcode: 0x67 }), Some(Enc { name: "v_cmp_o_f64", format: Format::Vopc, opcode: 0x27 });
    VCmpUF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_u_f64", format: Format::Vopc, opcode: 0x68 }), Some(Enc { name: "v_cmp_u_f64", format: Format::Vopc, opcode: 0x28 });
    VCmpNeqF64 => Shape::Vopc { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_neq_f64", format: Format::Vopc, opcode: 0x6d }), Some(Enc { name: "v_cmp_neq_f64", format: Format::Vopc, opcode: 0x2d });
    VCmpxLtI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_lt_i32", format: Format::Vopc, opcode: 0xd1 }), Some(Enc { name: "v_cmpx_lt_i32", format: Format::Vopc, opcode: 0xc1 });
    VCmpxEqI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_eq_i32", format: Format::Vopc, opcode: 0xd2 }), Some(Enc { name: "v_cmpx_eq_i32", format: Format::Vopc, opcode: 0xc2 });
    VCmpxLeI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_le_i32", format: Format::Vopc, opcode: 0xd3 }), Some(Enc { name: "v_cmpx_le_i32", format: Format::Vopc, opcode: 0xc3 });
    VCmpxGtI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_gt_i32", format: Format::Vopc, opcode: 0xd4 }), Some(Enc { name: "v_cmpx_gt_i32", format: Format::Vopc, opcode: 0xc4 });
    VCmpxNeI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_ne_i32", format: Format::Vopc, opcode: 0xd5 }), Some(Enc { name: "v_cmpx_ne_i32", format: Format::Vopc, opcode: 0xc5 });
    VCmpxGeI32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_ge_i32", format: Format::Vopc, opcode: 0xd6 }), Some(Enc { name: "v_cmpx_ge_i32", format: Format::Vopc, opcode: 0xc6 });
    VCmpxLtU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_lt_u32", format: Format::Vopc, opcode: 0xd9 }), Some(Enc { name: "v_cmpx_lt_u32", format: Format::Vopc, opcode: 0xc9 });
    VCmpxEqU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_eq_u32", format: Format::Vopc, opcode: 0xda }), Some(Enc { name: "v_cmpx_eq_u32", format: Format::Vopc, opcode: 0xca });
    VCmpxLeU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_le_u32", format: Format::Vopc, opcode: 0xdb }), Some(Enc { name: "v_cmpx_le_u32", format: Format::Vopc, opcode: 0xcb });
    VCmpxGtU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_gt_u32", format: Format::Vopc, opcode: 0xdc }), Some(Enc { name: "v_cmpx_gt_u32", format: Format::Vopc, opcode: 0xcc });
    VCmpxNeU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_ne_u32", format: Format::Vopc, opcode: 0xdd }), Some(Enc { name: "v_cmpx_ne_u32", format: Format::Vopc, opcode: 0xcd });
    VCmpxGeU32 => Shape::VopcX { s: 1 }, DPP, Some(Enc { name: "v_cmpx_ge_u32", format: Format::Vopc, opcode: 0xde }), Some(Enc { name: "v_cmpx_ge_u32", format: Format::Vopc, opcode: 0xce });
    VMulLoU32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "v_mul_lo_u32", format: Format::Vop3, opcode: 0x285 }), Some(Enc { name: "v_mul_lo_u32", format: Format::Vop3, opcode: 0x32c });
    VMulHiU32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "v_mul_hi_u32", format: Format::Vop3, opcode: 0x286 }), Some(Enc { name: "v_mul_hi_u32", format: Format::Vop3, opcode: 0x32d });
    VMulHiI32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, 0, Some(Enc { name: "v_mul_hi_i32", format: Format::Vop3, opcode: 0x287 }), Some(Enc { name: "v_mul_hi_i32", format: Format::Vop3, opcode: 0x32e });
    VMadU32U24 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_mad_u32_u24", format: Format::Vop3, opcode: 0x1c3 }), Some(Enc { name: "v_mad_u32_u24", format: Format::Vop3, opcode: 0x20b });
    VFmaF32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP | FLOAT, Some(Enc { name: "v_fma_f32", format: Format::Vop3, opcode: 0x1cb }), Some(Enc { name: "v_fma_f32", format: Format::Vop3, opcode: 0x213 });
    VFmaF64 => Shape::Vop3Three { d: 2, s0: 2, s1: 2, s2: 2 }, FLOAT, Some(Enc { name: "v_fma_f64", format: Format::Vop3, opcode: 0x1cc }), Some(Enc { name: "v_fma_f64", format: Format::Vop3, opcode: 0x214 });
    VBfeU32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_bfe_u32", format: Format::Vop3, opcode: 0x1c8 }), Some(Enc { name: "v_bfe_u32", format: Format::Vop3, opcode: 0x210 });
    VBfeI32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_bfe_i32", format: Format::Vop3, opcode: 0x1c9 }), Some(Enc { name: "v_bfe_i32", format: Format::Vop3, opcode: 0x211 });
    VBfiB32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_bfi_b32", format: Format::Vop3, opcode: 0x1ca }), Some(Enc { name: "v_bfi_b32", format: Format::Vop3, opcode: 0x212 });
    VAlignbitB32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_alignbit_b32", format: Format::Vop3, opcode: 0x1ce }), Some(Enc { name: "v_alignbit_b32", format: Format::Vop3, opcode: 0x216 });
    VLshlAddU32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_lshl_add_u32", format: Format::Vop3, opcode: 0x1fd }), Some(Enc { name: "v_lshl_add_u32", format: Format::Vop3, opcode: 0x246 });
    VAddLshlU32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_add_lshl_u32", format: Format::Vop3, opcode: 0x1fe }), Some(Enc { name: "v_add_lshl_u32", format: Format::Vop3, opcode: 0x247 });
    VAdd3U32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, VOP3_DPP, Some(Enc { name: "v_add3_u32", format: Format::Vop3, opcode: 0x1ff }), Some(Enc { name: "v_add3_u32", format: Format::Vop3, opcode: 0x255 });
    VLshlrevB64 => Shape::Vop3 { d: 2, s0: 1, s1: 2 }, 0, Some(Enc { name: "v_lshlrev_b64", format: Format::Vop3, opcode: 0x28f }), Some(Enc { name: "v_lshlrev_b64", format: Format::Vop3, opcode: 0x33c });
    VLshrrevB64 => Shape::Vop3 { d: 2, s0: 1, s1: 2 }, 0, Some(Enc { name: "v_lshrrev_b64", format: Format::Vop3, opcode: 0x290 }), Some(Enc { name: "v_lshrrev_b64", format: Format::Vop3, opcode: 0x33d });
    VAshrrevI64 => Shape::Vop3 { d: 2, s0: 1, s1: 2 }, 0, Some(Enc { name: "v_ashrrev_i64", format: Format::Vop3, opcode: 0x291 }), Some(Enc { name: "v_ashrrev_i64", format: Format::Vop3, opcode: 0x33e });
    VBcntU32B32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, VOP3_DPP, Some(Enc { name: "v_bcnt_u32_b32", format: Format::Vop3, opcode: 0x28b }), Some(Enc { name: "v_bcnt_u32_b32", format: Format::Vop3, opcode: 0x31e });
    VMbcntLoU32B32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, VOP3_DPP, Some(Enc { name: "v_mbcnt_lo_u32_b32", format: Format::Vop3, opcode: 0x28c }), Some(Enc { name: "v_mbcnt_lo_u32_b32", format: Format::Vop3, opcode: 0x31f });
    VMbcntHiU32B32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, VOP3_DPP, Some(Enc { name: "v_mbcnt_hi_u32_b32", format: Format::Vop3, opcode: 0x28d }), Some(Enc { name: "v_mbcnt_hi_u32_b32", format: Format::Vop3, opcode: 0x320 });
    VAddF64 => Shape::Vop3 { d: 2, s0: 2, s1: 2 }, FLOAT, Some(Enc { name: "v_add_f64", format: Format::Vop3, opcode: 0x280 }), Some(Enc { name: "v_add_f64", format: Format::Vop3, opcode: 0x327 });
    VMulF64 => Shape::Vop3 { d: 2, s0: 2, s1: 2 }, FLOAT, Some(Enc { name: "v_mul_f64", format: Format::Vop3, opcode: 0x281 }), Some(Enc { name: "v_mul_f64", format: Format::Vop3, opcode: 0x328 });
    VMinF64 => Shape::Vop3 { d: 2, s0: 2, s1: 2 }, FLOAT, Some(Enc { name: "v_min_f64", format: Format::Vop3, opcode: 0x282 }), Some(Enc { name: "v_min_f64", format: Format::Vop3, opcode: 0x329 });
    VMaxF64 => Shape::Vop3 { d: 2, s0: 2, s1: 2 }, FLOAT, Some(Enc { name: "v_max_f64", format: Format::Vop3, opcode: 0x283 }), Some(Enc { name: "v_max_f64", format: Format::Vop3, opcode: 0x32a });
    VMadU64U32 => Shape::Vop3bMad, 0, Some(Enc { name: "v_mad_u64_u32", format: Format::Vop3, opcode: 0x1e8 }), Some(Enc { name: "v_mad_u64_u32", format: Format::Vop3, opcode: 0x2fe });
    VReadlaneB32 => Shape::Readlane, 0, Some(Enc { name: "v_readlane_b32", format: Format::Vop3, opcode: 0x289 }), Some(Enc { name: "v_readlane_b32", format: Format::Vop3, opcode: 0x360 });
    VWritelaneB32 => Shape::Writelane, 0, Some(Enc { name: "v_writelane_b32", format: Format::Vop3, opcode: 0x28a }), Some(Enc { name: "v_writelane_b32", format: Format::Vop3, opcode: 0x361 });
    VLshlAddU64 => Shape::Vop3Three { d: 2, s0: 2, s1: 1, s2: 2 }, GFX942_ONLY, Some(Enc { name: "v_lshl_add_u64", format: Format::Vop3, opcode: 0x208 }), None;
    VPermlane16B32 => Shape::Permlane, 0, None, Some(Enc { name: "v_permlane16_b32", format: Format::Vop3, opcode: 0x25b });
    VPermlanex16B32 => Shape::Permlane, 0, None, Some(Enc { name: "v_permlanex16_b32", format: Format::Vop3, opcode: 0x25c });
    VDivScaleF32 => Shape::Vop3bDivScale { s: 1 }, FLOAT, Some(Enc { name: "v_div_scale_f32", format: Format::Vop3, opcode: 0x1e0 }), Some(Enc { name: "v_div_scale_f32", format: Format::Vop3, opcode: 0x2fc });
    VDivScaleF64 => Shape::Vop3bDivScale { s: 2 }, FLOAT, Some(Enc { name: "v_div_scale_f64", format: Format::Vop3, opcode: 0x1e1 }), Some(Enc { name: "v_div_scale_f64", format: Format::Vop3, opcode: 0x2fd });
    VDivFmasF32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, FLOAT, Some(Enc { name: "v_div_fmas_f32", format: Format::Vop3, opcode: 0x1e2 }), Some(Enc { name: "v_div_fmas_f32", format: Format::Vop3, opcode: 0x237 });
    VDivFmasF64 => Shape::Vop3Three { d: 2, s0: 2, s1: 2, s2: 2 }, FLOAT, Some(Enc { name: "v_div_fmas_f64", format: Format::Vop3, opcode: 0x1e3 }), Some(Enc { name: "v_div_fmas_f64", format: Format::Vop3, opcode: 0x238 });
    VDivFixupF32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, FLOAT, Some(Enc { name: "v_div_fixup_f32", format: Format::Vop3, opcode: 0x1de }), Some(Enc { name: "v_div_fixup_f32", format: Format::Vop3, opcode: 0x227 });
    VDivFixupF64 => Shape::Vop3Three { d: 2, s0: 2, s1: 2, s2: 2 }, FLOAT, Some(Enc { name: "v_div_fixup_f64", format: Format::Vop3, opcode: 0x1df }), Some(Enc { name: "v_div_fixup_f64", format: Format::Vop3, opcode: 0x228 });
    VRcpF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_rcp_f64", format: Format::Vop1, opcode: 0x25 }), Some(Enc { name: "v_rcp_f64", format: Format::Vop1, opcode: 0x2f });
    VRsqF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_rsq_f64", format: Format::Vop1, opcode: 0x26 }), Some(Enc { name: "v_rsq_f64", format: Format::Vop1, opcode: 0x31 });
    VSqrtF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_sqrt_f64", format: Format::Vop1, opcode: 0x28 }), Some(Enc { name: "v_sqrt_f64", format: Format::Vop1, opcode: 0x34 });
    VLdexpF32 => Shape::Vop3 { d: 1, s0: 1, s1: 1 }, FLOAT, Some(Enc { name: "v_ldexp_f32", format: Format::Vop3, opcode: 0x288 }), Some(Enc { name: "v_ldexp_f32", format: Format::Vop3, opcode: 0x31c });
    VLdexpF64 => Shape::Vop3 { d: 2, s0: 2, s1: 1 }, FLOAT, Some(Enc { name: "v_ldexp_f64", format: Format::Vop3, opcode: 0x284 }), Some(Enc { name: "v_ldexp_f64", format: Format::Vop3, opcode: 0x32b });
    VFrexpMantF32 => Shape::Vop1 { d: 1, s: 1 }, FLOAT, Some(Enc { name: "v_frexp_mant_f32", format: Format::Vop1, opcode: 0x34 }), Some(Enc { name: "v_frexp_mant_f32", format: Format::Vop1, opcode: 0x40 });
    VFrexpMantF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_frexp_mant_f64", format: Format::Vop1, opcode: 0x31 }), Some(Enc { name: "v_frexp_mant_f64", format: Format::Vop1, opcode: 0x3d });
    VFrexpExpI32F32 => Shape::Vop1 { d: 1, s: 1 }, FLOAT, Some(Enc { name: "v_frexp_exp_i32_f32", format: Format::Vop1, opcode: 0x33 }), Some(Enc { name: "v_frexp_exp_i32_f32", format: Format::Vop1, opcode: 0x3f });
    VFrexpExpI32F64 => Shape::Vop1 { d: 1, s: 2 }, FLOAT, Some(Enc { name: "v_frexp_exp_i32_f64", format: Format::Vop1, opcode: 0x30 }), Some(Enc { name: "v_frexp_exp_i32_f64", format: Format::Vop1, opcode: 0x3c });
    VCmpClassF32 => Shape::VopcClass { s: 1 }, FLOAT, Some(Enc { name: "v_cmp_class_f32", format: Format::Vopc, opcode: 0x10 }), Some(Enc { name: "v_cmp_class_f32", format: Format::Vopc, opcode: 0x7e });
    VCmpClassF64 => Shape::VopcClass { s: 2 }, FLOAT, Some(Enc { name: "v_cmp_class_f64", format: Format::Vopc, opcode: 0x12 }), Some(Enc { name: "v_cmp_class_f64", format: Format::Vopc, opcode: 0x7f });
    VRcpIflagF32 => Shape::Vop1 { d: 1, s: 1 }, FLOAT, Some(Enc { name: "v_rcp_iflag_f32", format: Format::Vop1, opcode: 0x23 }), Some(Enc { name: "v_rcp_iflag_f32", format: Format::Vop1, opcode: 0x2b });
    VTruncF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_trunc_f64", format: Format::Vop1, opcode: 0x17 }), Some(Enc { name: "v_trunc_f64", format: Format::Vop1, opcode: 0x17 });
    VFloorF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_floor_f64", format: Format::Vop1, opcode: 0x1a }), Some(Enc { name: "v_floor_f64", format: Format::Vop1, opcode: 0x1a });
    VRndneF32 => Shape::Vop1 { d: 1, s: 1 }, FLOAT, Some(Enc { name: "v_rndne_f32", format: Format::Vop1, opcode: 0x1e }), Some(Enc { name: "v_rndne_f32", format: Format::Vop1, opcode: 0x23 });
    VRndneF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_rndne_f64", format: Format::Vop1, opcode: 0x19 }), Some(Enc { name: "v_rndne_f64", format: Format::Vop1, opcode: 0x19 });
    VFractF32 => Shape::Vop1 { d: 1, s: 1 }, FLOAT, Some(Enc { name: "v_fract_f32", format: Format::Vop1, opcode: 0x1b }), Some(Enc { name: "v_fract_f32", format: Format::Vop1, opcode: 0x20 });
    VFractF64 => Shape::Vop1 { d: 2, s: 2 }, FLOAT, Some(Enc { name: "v_fract_f64", format: Format::Vop1, opcode: 0x32 }), Some(Enc { name: "v_fract_f64", format: Format::Vop1, opcode: 0x3e });
    VMed3I32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_med3_i32", format: Format::Vop3, opcode: 0x1d7 }), Some(Enc { name: "v_med3_i32", format: Format::Vop3, opcode: 0x220 });
    VMed3U32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_med3_u32", format: Format::Vop3, opcode: 0x1d8 }), Some(Enc { name: "v_med3_u32", format: Format::Vop3, opcode: 0x221 });
    VMed3F32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, FLOAT, Some(Enc { name: "v_med3_f32", format: Format::Vop3, opcode: 0x1d6 }), Some(Enc { name: "v_med3_f32", format: Format::Vop3, opcode: 0x21f });
    VMin3F32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, FLOAT, Some(Enc { name: "v_min3_f32", format: Format::Vop3, opcode: 0x1d0 }), Some(Enc { name: "v_min3_f32", format: Format::Vop3, opcode: 0x219 });
    VMin3I32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_min3_i32", format: Format::Vop3, opcode: 0x1d1 }), Some(Enc { name: "v_min3_i32", format: Format::Vop3, opcode: 0x21a });
    VMin3U32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_min3_u32", format: Format::Vop3, opcode: 0x1d2 }), Some(Enc { name: "v_min3_u32", format: Format::Vop3, opcode: 0x21b });
    VMax3F32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, FLOAT, Some(Enc { name: "v_max3_f32", format: Format::Vop3, opcode: 0x1d3 }), Some(Enc { name: "v_max3_f32", format: Format::Vop3, opcode: 0x21c });
    VMax3I32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_max3_i32", format: Format::Vop3, opcode: 0x1d4 }), Some(Enc { name: "v_max3_i32", format: Format::Vop3, opcode: 0x21d });
    VMax3U32 => Shape::Vop3Three { d: 1, s0: 1, s1: 1, s2: 1 }, 0, Some(Enc { name: "v_max3_u32", format: Format::Vop3, opcode: 0x1d5 }), Some(Enc { name: "v_max3_u32", format: Format::Vop3, opcode: 0x21e });
    VCvtF32Ubyte0 => Shape::Vop1 { d: 1, s: 1 }, 0, Some(Enc { name: "v_cvt_f32_ubyte0", format: Format::Vop1, opcode: 0x11 }), Some(Enc { name: "v_cvt_f32_ubyte0", format: Format::Vop1, opcode: 0x11 });
    VMadI64I32 => Shape::Vop3bMad, 0, Some(Enc { name: "v_mad_i64_i32", format: Format::Vop3, opcode: 0x1e9 }), Some(Enc { name: "v_mad_i64_i32", format: Format::Vop3, opcode: 0x2ff });
    DsReadB32 => Shape::DsLoad { d: 1 }, 0, Some(Enc { name: "ds_read_b32", format: Format::Ds, opcode: 0x36 }), Some(Enc { name: "ds_load_b32", format: Format::Ds, opcode: 0x36 });
    DsReadB64 => Shape::DsLoad { d: 2 }, 0, Some(Enc { name: "ds_read_b64", format: Format::Ds, opcode: 0x76 }), Some(Enc { name: "ds_load_b64", format: Format::Ds, opcode: 0x76 });
    DsReadB128 => Shape::DsLoad { d: 4 }, 0, Some(Enc { name: "ds_read_b128", format: Format::Ds, opcode: 0xff }), Some(Enc { name: "ds_load_b128", format: Format::Ds, opcode: 0xff });
    DsRead2B32 => Shape::DsLoad2 { d: 1 }, 0, Some(Enc { name: "ds_read2_b32", format: Format::Ds, opcode: 0x37 }), Some(Enc { name: "ds_load_2addr_b32", format: Format::Ds, opcode: 0x37 });
    DsWriteB32 => Shape::DsStore { s: 1 }, 0, Some(Enc { name: "ds_write_b32", format: Format::Ds, opcode: 0xd }), Some(Enc { name: "ds_store_b32", format: Format::Ds, opcode: 0xd });
    DsWriteB64 => Shape::DsStore { s: 2 }, 0, Some(Enc { name: "ds_write_b64", format: Format::Ds, opcode: 0x4d }), Some(Enc { name: "ds_store_b64", format: Format::Ds, opcode: 0x4d });
    DsWriteB128 => Shape::DsStore { s: 4 }, 0, Some(Enc { name: "ds_write_b128", format: Format::Ds, opcode: 0xdf }), Some(Enc { name: "ds_store_b128", format: Format::Ds, opcode: 0xdf });
    DsAddU32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_add_u32", format: Format::Ds, opcode: 0x0 }), Some(Enc { name: "ds_add_u32", format: Format::Ds, opcode: 0x0 });
    DsSubU32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_sub_u32", format: Format::Ds, opcode: 0x1 }), Some(Enc { name: "ds_sub_u32", format: Format::Ds, opcode: 0x1 });
    DsMinI32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_min_i32", format: Format::Ds, opcode: 0x5 }), Some(Enc { name: "ds_min_i32", format: Format::Ds, opcode: 0x5 });
    DsMaxI32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_max_i32", format: Format::Ds, opcode: 0x6 }), Some(Enc { name: "ds_max_i32", format: Format::Ds, opcode: 0x6 });
    DsMinU32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_min_u32", format: Format::Ds, opcode: 0x7 }), Some(Enc { name: "ds_min_u32", format: Format::Ds, opcode: 0x7 });
    DsMaxU32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_max_u32", format: Format::Ds, opcode: 0x8 }), Some(Enc { name: "ds_max_u32", format: Format::Ds, opcode: 0x8 });
    DsAndB32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_and_b32", format: Format::Ds, opcode: 0x9 }), Some(Enc { name: "ds_and_b32", format: Format::Ds, opcode: 0x9 });
    DsOrB32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_or_b32", format: Format::Ds, opcode: 0xa }), Some(Enc { name: "ds_or_b32", format: Format::Ds, opcode: 0xa });
    DsXorB32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_xor_b32", format: Format::Ds, opcode: 0xb }), Some(Enc { name: "ds_xor_b32", format: Format::Ds, opcode: 0xb });
    DsAddF32 => Shape::DsAtomic { s: 1 }, 0, Some(Enc { name: "ds_add_f32", format: Format::Ds, opcode: 0x15 }), Some(Enc { name: "ds_add_f32", format: Format::Ds, opcode: 0x15 });
    DsAddRtnU32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_add_rtn_u32", format: Format::Ds, opcode: 0x20 }), Some(Enc { name: "ds_add_rtn_u32", format: Format::Ds, opcode: 0x20 });
    DsSubRtnU32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_sub_rtn_u32", format: Format::Ds, opcode: 0x21 }), Some(Enc { name: "ds_sub_rtn_u32", format: Format::Ds, opcode: 0x21 });
    DsMinRtnI32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_min_rtn_i32", format: Format::Ds, opcode: 0x25 }), Some(Enc { name: "ds_min_rtn_i32", format: Format::Ds, opcode: 0x25 });
    DsMaxRtnI32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_max_rtn_i32", format: Format::Ds, opcode: 0x26 }), Some(Enc { name: "ds_max_rtn_i32", format: Format::Ds, opcode: 0x26 });
    DsMinRtnU32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_min_rtn_u32", format: Format::Ds, opcode: 0x27 }), Some(Enc { name: "ds_min_rtn_u32", format: Format::Ds, opcode: 0x27 });
    DsMaxRtnU32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_max_rtn_u32", format: Format::Ds, opcode: 0x28 }), Some(Enc { name: "ds_max_rtn_u32", format: Format::Ds, opcode: 0x28 });
    DsAndRtnB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_and_rtn_b32", format: Format::Ds, opcode: 0x29 }), Some(Enc { name: "ds_and_rtn_b32", format: Format::Ds, opcode: 0x29 });
    DsOrRtnB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_or_rtn_b32", format: Format::Ds, opcode: 0x2a }), Some(Enc { name: "ds_or_rtn_b32", format: Format::Ds, opcode: 0x2a });
    DsXorRtnB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_xor_rtn_b32", format: Format::Ds, opcode: 0x2b }), Some(Enc { name: "ds_xor_rtn_b32", format: Format::Ds, opcode: 0x2b });
    DsWrxchgRtnB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_wrxchg_rtn_b32", format: Format::Ds, opcode: 0x2d }), Some(Enc { name: "ds_storexchg_rtn_b32", format: Format::Ds, opcode: 0x2d });
    DsAddRtnF32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_add_rtn_f32", format: Format::Ds, opcode: 0x35 }), Some(Enc { name: "ds_add_rtn_f32", format: Format::Ds, opcode: 0x79 });
    DsCmpstRtnB32 => Shape::DsCmpstRtn { s: 1 }, 0, Some(Enc { name: "ds_cmpst_rtn_b32", format: Format::Ds, opcode: 0x30 }), Some(Enc { name: "ds_cmpstore_rtn_b32", format: Format::Ds, opcode: 0x30 });
    DsBpermuteB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_bpermute_b32", format: Format::Ds, opcode: 0x3f }), Some(Enc { name: "ds_bpermute_b32", format: Format::Ds, opcode: 0xb3 });
    DsPermuteB32 => Shape::DsAtomicRtn { s: 1 }, 0, Some(Enc { name: "ds_permute_b32", format: Format::Ds, opcode: 0x3e }), Some(Enc { name: "ds_permute_b32", format: Format::Ds, opcode: 0xb2 });
    DsSwizzleB32 => Shape::DsSwizzle, 0, Some(Enc { name: "ds_swizzle_b32", format: Format::Ds, opcode: 0x3d }), Some(Enc { name: "ds_swizzle_b32", format: Format::Ds, opcode: 0x35 });
    DsReadAddtidB32 => Shape::DsAddtid, 0, Some(Enc { name: "ds_read_addtid_b32", format: Format::Ds, opcode: 0xb6 }), Some(Enc { name: "ds_load_addtid_b32", format: Format::Ds, opcode: 0xb1 });
    DsReadU8 => Shape::DsLoad { d: 1 }, 0, Some(Enc { name: "ds_read_u8", format: Format::Ds, opcode: 0x3a }), Some(Enc { name: "ds_load_u8", format: Format::Ds, opcode: 0x3a });
    DsWriteB8 => Shape::DsStore { s: 1 }, 0, Some(Enc { name: "ds_write_b8", format: Format::Ds, opcode: 0x1e }), Some(Enc { name: "ds_store_b8", format: Format::Ds, opcode: 0x1e });
    DsAddRtnU64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_add_rtn_u64", format: Format::Ds, opcode: 0x60 }), Some(Enc { name: "ds_add_rtn_u64", format: Format::Ds, opcode: 0x60 });
    DsSubRtnU64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_sub_rtn_u64", format: Format::Ds, opcode: 0x61 }), Some(Enc { name: "ds_sub_rtn_u64", format: Format::Ds, opcode: 0x61 });
    DsMinRtnI64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_min_rtn_i64", format: Format::Ds, opcode: 0x65 }), Some(Enc { name: "ds_min_rtn_i64", format: Format::Ds, opcode: 0x65 });
    DsMaxRtnI64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_max_rtn_i64", format: Format::Ds, opcode: 0x66 }), Some(Enc { name: "ds_max_rtn_i64", format: Format::Ds, opcode: 0x66 });
    DsMinRtnU64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_min_rtn_u64", format: Format::Ds, opcode: 0x67 }), Some(Enc { name: "ds_min_rtn_u64", format: Format::Ds, opcode: 0x67 });
    DsMaxRtnU64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_max_rtn_u64", format: Format::Ds, opcode: 0x68 }), Some(Enc { name: "ds_max_rtn_u64", format: Format::Ds, opcode: 0x68 });
    DsAndRtnB64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_and_rtn_b64", format: Format::Ds, opcode: 0x69 }), Some(Enc { name: "ds_and_rtn_b64", format: Format::Ds, opcode: 0x69 });
    DsOrRtnB64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_or_rtn_b64", format: Format::Ds, opcode: 0x6a }), Some(Enc { name: "ds_or_rtn_b64", format: Format::Ds, opcode: 0x6a });
    DsXorRtnB64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_xor_rtn_b64", format: Format::Ds, opcode: 0x6b }), Some(Enc { name: "ds_xor_rtn_b64", format: Format::Ds, opcode: 0x6b });
    DsWrxchgRtnB64 => Shape::DsAtomicRtn { s: 2 }, 0, Some(Enc { name: "ds_wrxchg_rtn_b64", format: Format::Ds, opcode: 0x6d }), Some(Enc { name: "ds_storexchg_rtn_b64", format: Format::Ds, opcode: 0x6d });
    DsCmpstRtnB64 => Shape::DsCmpstRtn { s: 2 }, 0, Some(Enc { name: "ds_cmpst_rtn_b64", format: Format::Ds, opcode: 0x70 }), Some(Enc { name: "ds_cmpstore_rtn_b64", format: Format::Ds, opcode: 0x70 });
    FlatLoadDword => Shape::FlatLoad { d: 1 }, 0, Some(Enc { name: "flat_load_dword", format: Format::Flat, opcode: 0x14 }), Some(Enc { name: "flat_load_b32", format: Format::Flat, opcode: 0x14 });
    FlatStoreDword => Shape::FlatStore { s: 1 }, 0, Some(Enc { name: "flat_store_dword", format: Format::Flat, opcode: 0x1c }), Some(Enc { name: "flat_store_b32", format: Format::Flat, opcode: 0x1a });
    GlobalLoadUbyte => Shape::GlobalLoad { d: 1 }, 0, Some(Enc { name: "global_load_ubyte", format: Format::Global, opcode: 0x10 }), Some(Enc { name: "global_load_u8", format: Format::Global, opcode: 0x10 });
    GlobalLoadUshort => Shape::GlobalLoad { d: 1 }, 0, Some(Enc { name: "global_load_ushort", format: Format::Global, opcode: 0x12 }), Some(Enc { name: "global_load_u16", format: Format::Global, opcode: 0x12 });
    GlobalLoadDword => Shape::GlobalLoad { d: 1 }, 0, Some(Enc { name: "global_load_dword", format: Format::Global, opcode: 0x14 }), Some(Enc { name: "global_load_b32", format: Format::Global, opcode: 0x14 });
    GlobalLoadDwordx2 => Shape::GlobalLoad { d: 2 }, 0, Some(Enc { name: "global_load_dwordx2", format: Format::Global, opcode: 0x15 }), Some(Enc { name: "global_load_b64", format: Format::Global, opcode: 0x15 });
    GlobalLoadDwordx4 => Shape::GlobalLoad { d: 4 }, 0, Some(Enc { name: "global_load_dwordx4", format: Format::Global, opcode: 0x17 }), Some(Enc { name: "global_load_b128", format: Format::Global, opcode: 0x17 });
    GlobalStoreByte => Shape::GlobalStore { s: 1 }, 0, Some(Enc { name: "global_store_byte", format: Format::Global, opcode: 0x18 }), Some(Enc { name: "global_store_b8", format: Format::Global, opcode: 0x18 });
    GlobalStoreShort => Shape::GlobalStore { s: 1 }, 0, Some(Enc { name: "global_store_short", format: Format::Global, opcode: 0x1a }), Some(Enc { name: "global_store_b16", format: Format::Global, opcode: 0x19 });
    GlobalStoreDword => Shape::GlobalStore { s: 1 }, 0, Some(Enc { name: "global_store_dword", format: Format::Global, opcode: 0x1c }), Some(Enc { name: "global_store_b32", format: Format::Global, opcode: 0x1a });
    GlobalStoreDwordx2 => Shape::GlobalStore { s: 2 }, 0, Some(Enc { name: "global_store_dwordx2", format: Format::Global, opcode: 0x1d }), Some(Enc { name: "global_store_b64", format: Format::Global, opcode: 0x1b });
    GlobalStoreDwordx4 => Shape::GlobalStore { s: 4 }, 0, Some(Enc { name: "global_store_dwordx4", format: Format::Global, opcode: 0x1f }), Some(Enc { name: "global_store_b128", format: Format::Global, opcode: 0x1d });
    GlobalAtomicSwap => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_swap", format: Format::Global, opcode: 0x40 }), Some(Enc { name: "global_atomic_swap_b32", format: Format::Global, opcode: 0x33 });
    GlobalAtomicCmpswap => Shape::GlobalAtomicCas { s: 1 }, 0, Some(Enc { name: "global_atomic_cmpswap", format: Format::Global, opcode: 0x41 }), Some(Enc { name: "global_atomic_cmpswap_b32", format: Format::Global, opcode: 0x34 });
    GlobalAtomicAdd => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_add", format: Format::Global, opcode: 0x42 }), Some(Enc { name: "global_atomic_add_u32", format: Format::Global, opcode: 0x35 });
    GlobalAtomicSub => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_sub", format: Format::Global, opcode: 0x43 }), Some(Enc { name: "global_atomic_sub_u32", format: Format::Global, opcode: 0x36 });
    GlobalAtomicSmin => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_smin", format: Format::Global, opcode: 0x44 }), Some(Enc { name: "global_atomic_min_i32", format: Format::Global, opcode: 0x38 });
    GlobalAtomicUmin => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_umin", format: Format::Global, opcode: 0x45 }), Some(Enc { name: "global_atomic_min_u32", format: Format::Global, opcode: 0x39 });
    GlobalAtomicSmax => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_smax", format: Format::Global, opcode: 0x46 }), Some(Enc { name: "global_atomic_max_i32", format: Format::Global, opcode: 0x3a });
    GlobalAtomicUmax => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_umax", format: Format::Global, opcode: 0x47 }), Some(Enc { name: "global_atomic_max_u32", format: Format::Global, opcode: 0x3b });
    GlobalAtomicAnd => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_and", format: Format::Global, opcode: 0x48 }), Some(Enc { name: "global_atomic_and_b32", format: Format::Global, opcode: 0x3c });
    GlobalAtomicOr => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_or", format: Format::Global, opcode: 0x49 }), Some(Enc { name: "global_atomic_or_b32", format: Format::Global, opcode: 0x3d });
    GlobalAtomicXor => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_xor", format: Format::Global, opcode: 0x4a }), Some(Enc { name: "global_atomic_xor_b32", format: Format::Global, opcode: 0x3e });
    GlobalAtomicAddF32 => Shape::GlobalAtomic { s: 1 }, 0, Some(Enc { name: "global_atomic_add_f32", format: Format::Global, opcode: 0x4d }), Some(Enc { name: "global_atomic_add_f32", format: Format::Global, opcode: 0x56 });
    GlobalAtomicAddX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_add_x2", format: Format::Global, opcode: 0x62 }), Some(Enc { name: "global_atomic_add_u64", format: Format::Global, opcode: 0x43 });
    GlobalAtomicCmpswapX2 => Shape::GlobalAtomicCas { s: 2 }, 0, Some(Enc { name: "global_atomic_cmpswap_x2", format: Format::Global, opcode: 0x61 }), Some(Enc { name: "global_atomic_cmpswap_b64", format: Format::Global, opcode: 0x42 });
    GlobalAtomicSwapX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_swap_x2", format: Format::Global, opcode: 0x60 }), Some(Enc { name: "global_atomic_swap_b64", format: Format::Global, opcode: 0x41 });
    GlobalAtomicSubX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_sub_x2", format: Format::Global, opcode: 0x63 }), Some(Enc { name: "global_atomic_sub_u64", format: Format::Global, opcode: 0x44 });
    GlobalAtomicSminX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_smin_x2", format: Format::Global, opcode: 0x64 }), Some(Enc { name: "global_atomic_min_i64", format: Format::Global, opcode: 0x45 });
    GlobalAtomicUminX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_umin_x2", format: Format::Global, opcode: 0x65 }), Some(Enc { name: "global_atomic_min_u64", format: Format::Global, opcode: 0x46 });
    GlobalAtomicSmaxX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_smax_x2", format: Format::Global, opcode: 0x66 }), Some(Enc { name: "global_atomic_max_i64", format: Format::Global, opcode: 0x47 });
    GlobalAtomicUmaxX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_umax_x2", format: Format::Global, opcode: 0x67 }), Some(Enc { name: "global_atomic_max_u64", format: Format::Global, opcode: 0x48 });
    GlobalAtomicAndX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_and_x2", format: Format::Global, opcode: 0x68 }), Some(Enc { name: "global_atomic_and_b64", format: Format::Global, opcode: 0x49 });
    GlobalAtomicOrX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_or_x2", format: Format::Global, opcode: 0x69 }), Some(Enc { name: "global_atomic_or_b64", format: Format::Global, opcode: 0x4a });
    GlobalAtomicXorX2 => Shape::GlobalAtomic { s: 2 }, 0, Some(Enc { name: "global_atomic_xor_x2", format: Format::Global, opcode: 0x6a }), Some(Enc { name: "global_atomic_xor_b64", format: Format::Global, opcode: 0x4b });
    BufferWbl2 => Shape::CacheCtl, 0, Some(Enc { name: "buffer_wbl2", format: Format::Mubuf, opcode: 0x28 }), None;
    BufferInvl2 => Shape::CacheCtl, GFX90A_ONLY, Some(Enc { name: "buffer_invl2", format: Format::Mubuf, opcode: 0x29 }), None;
    BufferInv => Shape::CacheCtl, GFX942_ONLY, Some(Enc { name: "buffer_inv", format: Format::Mubuf, opcode: 0x29 }), None;
    BufferWbinvl1Vol => Shape::CacheCtl, GFX90A_ONLY, Some(Enc { name: "buffer_wbinvl1_vol", format: Format::Mubuf, opcode: 0x3f }), None;
    BufferGl0Inv => Shape::CacheCtl, 0, None, Some(Enc { name: "buffer_gl0_inv", format: Format::Mubuf, opcode: 0x2b });
    BufferGl1Inv => Shape::CacheCtl, 0, None, Some(Enc { name: "buffer_gl1_inv", format: Format::Mubuf, opcode: 0x2c });
}

impl Op {
    /// The encoding of this op on `arch`, or `None` when the architecture lacks it.
    pub fn enc(self, arch: crate::target::Arch) -> Option<&'static Enc> {
        use crate::target::Arch;
        let info = self.info();
        match arch {
            Arch::Gfx90a if info.flags & GFX942_ONLY != 0 => None,
            Arch::Gfx942 if info.flags & GFX90A_ONLY != 0 => None,
            Arch::Gfx90a | Arch::Gfx942 => info.gfx9.as_ref(),
            Arch::Gfx1100 => info.gfx11.as_ref(),
        }
    }

    /// Whether `arch` has this op.
    pub fn available(self, arch: crate::target::Arch) -> bool {
        self.enc(arch).is_some()
    }

    /// Whether the row has a flag.
    pub fn has(self, flag: u16) -> bool {
        self.info().flags & flag != 0
    }

    /// The op's mnemonic on `arch` (GFX9 spelling when the arch lacks the op).
    pub fn name(self, arch: crate::target::Arch) -> &'static str {
        let info = self.info();
        self.enc(arch).or(info.gfx9.as_ref()).or(info.gfx11.as_ref()).map_or("<none>", |e| e.name)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        let name = info.gfx9.or(info.gfx11).map_or("<none>", |e| e.name);
        f.write_str(name)
    }
}
