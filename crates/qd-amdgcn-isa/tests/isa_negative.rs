//! Negative tests: illegal instructions are rejected by `Inst::check` / `encode` with an
//! `IsaError` that names the instruction and the target, undecodable bytes are decode errors, and
//! bad assembler text is an `AsmError` with a line, a column and a caret rendering.

use qd_amdgcn_isa::{decode, encode, parse_asm, Cache, Dpp16, Dpp8, DppCtrl, Inst, IsaError, Mods, Op, Operand as O};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

fn g90a() -> Target {
    Target::wave64(Arch::Gfx90a)
}
fn g942() -> Target {
    Target::wave64(Arch::Gfx942)
}
fn g11() -> Target {
    Target::wave64(Arch::Gfx1100)
}

/// Asserts `inst` is rejected on `t` with an error naming the op's mnemonic, the target and
/// containing `why`; and that `encode` refuses it too.
fn rejects(inst: Inst, t: Target, why: &str) -> IsaError {
    let err = inst.check(t).expect_err(&format!("{inst:?} should be illegal on {t}"));
    assert_eq!(err.inst, inst.op.name(t.arch), "error names the instruction");
    assert_eq!(err.target, t.to_string(), "error names the target");
    assert!(err.reason.contains(why), "reason `{}` should mention `{why}`", err.reason);
    let shown = err.to_string();
    assert!(shown.contains(inst.op.name(t.arch)) && shown.contains(t.arch.name()), "{shown}");
    let mut out = Vec::new();
    assert!(encode(&inst, t, &mut out).is_err() && out.is_empty(), "encode must refuse and write nothing");
    err
}

fn accepts(inst: Inst, t: Target) {
    inst.check(t).unwrap_or_else(|e| panic!("{inst:?} should be legal on {t}: {e}"));
}

fn mov_dpp(ctrl: DppCtrl) -> Inst {
    Inst::new(Op::VMovB32, &[O::v(0), O::v(1)]).dpp16(Dpp16::new(ctrl))
}

#[test]
fn dpp_controls_per_arch() {
    rejects(mov_dpp(DppCtrl::RowXmask(1)), g942(), "not available on gfx942");
    rejects(mov_dpp(DppCtrl::RowXmask(1)), g90a(), "not available on gfx90a");
    for c in [DppCtrl::WaveShl1, DppCtrl::WaveRor1, DppCtrl::RowBcast15, DppCtrl::RowBcast31] {
        rejects(mov_dpp(c), g11(), "not available on gfx1100");
        accepts(mov_dpp(c), g942());
    }
    rejects(mov_dpp(DppCtrl::RowShl(0)), g942(), "DPP control");
    rejects(mov_dpp(DppCtrl::RowShr(16)), g11(), "DPP control");
    accepts(mov_dpp(DppCtrl::RowXmask(15)), g11());
    let fi = Dpp16 { fi: true, ..Dpp16::new(DppCtrl::RowShr(1)) };
    rejects(Inst::new(Op::VMovB32, &[O::v(0), O::v(1)]).dpp16(fi), g942(), "fi");
    accepts(Inst::new(Op::VMovB32, &[O::v(0), O::v(1)]).dpp16(fi), g11());
}

#[test]
fn dpp_forms_and_operands() {
    let d = Dpp16::new(DppCtrl::RowShr(1));
    let d8 = Dpp8 { sel: [1, 0, 3, 2, 5, 4, 7, 6], fi: false };
    // DPP8 is GFX11 only.
    rejects(Inst::new(Op::VMovB32, &[O::v(0), O::v(1)]).dpp8(d8), g90a(), "DPP8");
    rejects(Inst::new(Op::VMovB32, &[O::v(0), O::v(1)]).dpp8(d8), g942(), "DPP8");
    // VOPC and VOP3 DPP are GFX11 only.
    let cmp = Inst::new(Op::VCmpEqU32, &[O::Vcc, O::v(1), O::v(2)]);
    rejects(cmp.dpp16(d), g942(), "no DPP form");
    accepts(cmp.dpp16(d), g11());
    let add = Inst::new(Op::VAddF32, &[O::v(0), O::v(1), O::v(2)]);
    rejects(add.e64().dpp16(d), g90a(), "no DPP form");
    accepts(add.e64().dpp16(d), g11());
    // Ops with no DPP form at all.
    rejects(Inst::new(Op::VMulLoU32, &[O::v(0), O::v(1), O::v(2)]).dpp16(d), g11(), "no DPP form");
    rejects(Inst::new(Op::VReadfirstlaneB32, &[O::s(0), O::v(1)]).dpp16(d), g11(), "no DPP form");
    // src0 must be a VGPR; no literal with DPP.
    rejects(Inst::new(Op::VMovB32, &[O::v(0), O::s(1)]).dpp16(d), g942(), "SGPR");
    rejects(Inst::new(Op::VAddU32, &[O::v(0), O::v(1), O::Literal(0x1234)]).dpp16(d), g942(), "VGPR");
    let lit = Inst::new(Op::VAdd3U32, &[O::v(0), O::v(1), O::v(2), O::Literal(0x1234)]).dpp16(d);
    rejects(lit, g11(), "literal");
    // v_mov_b64 DPP only with row_newbcast (gfx942).
    let mov64 = Inst::new(Op::VMovB64, &[O::v2(0), O::v2(2)]);
    accepts(mov64.dpp16(Dpp16::new(DppCtrl::RowShare(1))), g942());
    rejects(mov64.dpp16(d), g942(), "row_newbcast");
}

#[test]
fn literals() {
    // No literal in VOP3 on GFX9; one unique literal on GFX11.
    let e64 = Inst::new(Op::VAddF32, &[O::v(0), O::v(1), O::Literal(0x3f80_0001)]).e64();
    rejects(e64, g942(), "literal");
    rejects(e64, g90a(), "literal");
    accepts(e64, g11());
    let two = Inst::new(Op::VMadU32U24, &[O::v(0), O::Literal(0x1234), O::Literal(0x1235), O::v(3)]);
    rejects(two, g11(), "one unique literal");
    accepts(Inst::new(Op::VMadU32U24, &[O::v(0), O::Literal(0x1234), O::Literal(0x1234), O::v(3)]), g11());
    // A literal that is an inline constant is not canonical.
    rejects(Inst::new(Op::SMovB32, &[O::s(0), O::Literal(1)]), g942(), "inline constant");
    rejects(Inst::new(Op::SMovB32, &[O::s(0), O::Literal(0x3f80_0000)]), g942(), "inline constant");
    rejects(Inst::new(Op::VReadlaneB32, &[O::s(0), O::v(1), O::Literal(0x41)]), g11(), "lane select");
}

#[test]
fn constant_bus() {
    let two_sgprs = Inst::new(Op::VAddF32, &[O::v(0), O::s(1), O::s(2)]).e64();
    rejects(two_sgprs, g942(), "constant bus");
    accepts(two_sgprs, g11());
    accepts(Inst::new(Op::VAddF32, &[O::v(0), O::s(1), O::s(1)]).e64(), g942());
    // Implicit vcc counts.
    rejects(Inst::new(Op::VCndmaskB32, &[O::v(0), O::s(1), O::v(2), O::Vcc]), g90a(), "constant bus");
    accepts(Inst::new(Op::VCndmaskB32, &[O::v(0), O::s(1), O::v(2), O::Vcc]), g11());
    // 64-bit shifts allow one scalar on GFX11 too.
    rejects(Inst::new(Op::VLshlrevB64, &[O::v2(0), O::s(2), O::s2(4)]), g11(), "constant bus");
    // A scalar destination does not count.
    accepts(Inst::new(Op::VAddCoU32, &[O::v(0), O::s2(4), O::s(1), O::v(2)]).e64(), g942());
    // GFX9 writelane: m0 as lane select is free, two SGPRs are not.
    accepts(Inst::new(Op::VWritelaneB32, &[O::v(0), O::s(1), O::M0]), g942());
    rejects(Inst::new(Op::VWritelaneB32, &[O::v(0), O::s(1), O::s(2)]), g942(), "constant bus");
    // vcc_lo and vcc are different registers to the bus.
    rejects(Inst::new(Op::VCndmaskB32, &[O::v(0), O::VccLo, O::v(2), O::Vcc]), g942(), "constant bus");
}

#[test]
fn availability_and_forms() {
    rejects(Inst::new(Op::VPermlane64B32, &[O::v(0), O::v(1)]), g942(), "not available on gfx942");
    rejects(Inst::new(Op::VLshlAddU64, &[O::v2(0), O::v2(2), O::Int(2), O::v2(4)]), g90a(), "not available");
    rejects(Inst::new(Op::VMovB64, &[O::v2(0), O::v2(2)]), g90a(), "not available");
    rejects(Inst::new(Op::SWaitcntVscnt, &[O::Null]), g942(), "not available");
    rejects(Inst::new(Op::BufferInv, &[]), g90a(), "not available");
    rejects(Inst::new(Op::BufferInvl2, &[]), g942(), "not available");
    rejects(Inst::new(Op::SMemtime, &[O::s2(0)]), g11(), "not available");
    // GFX11 v_add_co_u32 has no 32-bit encoding.
    rejects(Inst::new(Op::VAddCoU32, &[O::v(0), O::Vcc, O::v(1), O::v(2)]), g11(), "no 32-bit encoding");
    accepts(Inst::new(Op::VAddCoU32, &[O::v(0), O::Vcc, O::v(1), O::v(2)]).e64(), g11());
    rejects(Inst::new(Op::VReadfirstlaneB32, &[O::s(0), O::v(1)]).e64(), g942(), "no VOP3");
    // wave32 on a GFX9 target.
    let w32 = Target { arch: Arch::Gfx942, wave: WaveSize::W32 };
    rejects(Inst::new(Op::SNop, &[]), w32, "32-lane");
}

#[test]
fn registers_and_operand_kinds() {
    // 64-bit VGPR tuples are even-aligned on GFX9 only; SGPR tuples always.
    let add64 = Inst::new(Op::VAddF64, &[O::v2(0), O::vr(1, 2), O::v2(4)]);
    rejects(add64, g942(), "64-bit aligned");
    rejects(add64, g90a(), "64-bit aligned");
    accepts(add64, g11());
    rejects(Inst::new(Op::SMovB64, &[O::sr(1, 2), O::s2(2)]), g11(), "aligned");
    rejects(Inst::new(Op::SLoadDwordx4, &[O::sr(2, 4), O::s2(4)]), g942(), "aligned");
    // Widths and kinds.
    rejects(Inst::new(Op::SMovB32, &[O::s(0), O::v(1)]), g942(), "VGPR is not allowed");
    rejects(Inst::new(Op::VAddF32, &[O::v(0), O::v(1), O::s(2)]), g942(), "SGPR is not allowed");
    rejects(Inst::new(Op::SMovB64, &[O::s2(0), O::s(2)]), g942(), "wide");
    rejects(Inst::new(Op::SMovB32, &[O::s(102), O::s(1)]), g942(), "out of range");
    accepts(Inst::new(Op::SMovB32, &[O::s(105), O::s(1)]), g11());
    rejects(Inst::new(Op::SMovB32, &[O::Null, O::s(1)]), g942(), "null");
    rejects(Inst::new(Op::VCmpEqU32, &[O::s2(0), O::v(1), O::v(2)]), g942(), "implies");
    rejects(Inst::new(Op::SMovB32, &[O::s(0)]), g942(), "missing");
    rejects(Inst::new(Op::SEndpgm, &[O::s(0)]), g942(), "0 operands");
    // wave32 masks are single SGPRs.
    let w32 = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };
    rejects(Inst::new(Op::VCmpEqU32, &[O::s2(0), O::v(1), O::v(2)]).e64(), w32, "wide");
    accepts(Inst::new(Op::VCmpEqU32, &[O::s(0), O::v(1), O::v(2)]).e64(), w32);
}

#[test]
fn modifiers_immediates_and_cache_bits() {
    let mods = |m: Mods| Inst::new(Op::VAddU32, &[O::v(0), O::v(1), O::v(2)]).e64().mods(m);
    rejects(mods(Mods { neg: 1, ..Mods::default() }), g942(), "float");
    rejects(
        Inst::new(Op::VAddF32, &[O::v(0), O::v(1), O::v(2)]).mods(Mods { clamp: true, ..Mods::default() }),
        g942(),
        "VOP3",
    );
    rejects(
        Inst::new(Op::VAddF32, &[O::v(0), O::v(1), O::v(2)]).e64().mods(Mods { neg: 4, ..Mods::default() }),
        g942(),
        "sources",
    );
    let g = |imm: i32| Inst::new(Op::GlobalLoadDword, &[O::v(0), O::v2(2)]).imm(imm);
    accepts(g(-4096), g942());
    rejects(g(4096), g942(), "global offset");
    rejects(Inst::new(Op::FlatLoadDword, &[O::v(0), O::v2(2)]).imm(-1), g11(), "FLAT offset");
    rejects(Inst::new(Op::DsReadB32, &[O::v(0), O::v(1)]).imm(65536), g942(), "DS offset");
    rejects(Inst::new(Op::SLoadDword, &[O::s(0), O::s2(4)]).imm(0x10_0000), g942(), "SMEM offset");
    rejects(Inst::new(Op::SBufferLoadDword, &[O::s(0), O::sr(4, 4)]).imm(-4), g11(), "buffer offset");
    rejects(Inst::new(Op::SBranch, &[]).imm(40000), g942(), "branch offset");
    rejects(Inst::new(Op::SWaitcnt, &[]).imm(0x0080), g942(), "counter fields");
    rejects(Inst::new(Op::SDelayAlu, &[]).imm(0xC), g11(), "undefined fields");
    rejects(Inst::new(Op::SMovB32, &[O::s(0), O::s(1)]).imm(1), g942(), "immediate");
    let c = |cache: Cache| Inst::new(Op::GlobalLoadDword, &[O::v(0), O::v2(2)]).cache(cache);
    rejects(c(Cache { sc1: true, ..Cache::default() }), g90a(), "cache bits");
    rejects(c(Cache { dlc: true, ..Cache::default() }), g942(), "cache bits");
    accepts(c(Cache { dlc: true, ..Cache::default() }), g11());
    // An atomic's GLC/SC0 follows its vdst.
    let atomic = Inst::new(Op::GlobalAtomicAdd, &[O::None, O::v2(2), O::v(1)]);
    rejects(atomic.cache(Cache { glc_sc0: true, ..Cache::default() }), g942(), "cache bits");
}

#[test]
fn undecodable_bytes() {
    let err = |bytes: &[u8], t: Target| decode(bytes, t).expect_err(&format!("{bytes:02x?} should not decode on {t}"));
    // Truncated.
    err(&[0x01, 0x00], g942());
    err(&0xDC50_8000u32.to_le_bytes(), g942());
    // SDWA (`v_mov_b32_sdwa v0, v1 ...`).
    let sdwa = [0xF9, 0x02, 0x00, 0x7E, 0x01, 0x06, 0x05, 0x00];
    assert!(err(&sdwa, g942()).reason.contains("SDWA"));
    // A reserved DPP control (0x131).
    let bad_dpp = [0xFA, 0x02, 0x00, 0x7E, 0x01, 0x31, 0x01, 0xFF];
    assert!(err(&bad_dpp, g942()).reason.contains("DPP"));
    // GFX11 encodings on GFX9 and vice versa.
    err(&[0x00, 0x00, 0xB0, 0xBF], g942()); // gfx11 s_endpgm is an unknown SOPP on gfx9
    err(&[0x02, 0x00, 0x00, 0xF4, 0x10, 0x00, 0x00, 0xF8], g942());
    // DS with GDS set.
    err(&[0x00, 0x00, 0x1B, 0xD8, 0x01, 0x02, 0x00, 0x00], g942());
    // An unknown VOP3 opcode.
    err(&[0x00, 0x00, 0xFF, 0xD3, 0x00, 0x00, 0x00, 0x00], g942());
}

#[test]
fn bad_assembler_text() {
    let t = g942();
    let src = "s_nop 0\n  v_mov_b32 v0, v1 row_xmask:1\n";
    let e = parse_asm(src, t).expect_err("row_xmask is GFX11 only");
    assert_eq!(e.line, 2);
    let rendered = e.render(src);
    assert!(rendered.contains("v_mov_b32 v0, v1 row_xmask:1") && rendered.contains('^'), "{rendered}");

    let e = parse_asm("v_bogus_b32 v0, v1", t).expect_err("unknown");
    assert_eq!((e.line, e.col), (1, 1));
    assert!(e.message.contains("unknown instruction"));
    let e = parse_asm("s_mov_b32 s0, s1, s2", t).expect_err("too many operands");
    assert!(e.message.contains("expected 2 operands"), "{}", e.message);
    let e = parse_asm("s_mov_b32 s0,   q7", t).expect_err("bad operand");
    assert_eq!(e.col, 17, "{e}");
    let e = parse_asm("s_branch nowhere", t).expect_err("undefined label");
    assert!(e.message.contains("undefined label"));
    let e = parse_asm("x:\nx: s_nop 0", t).expect_err("duplicate label");
    assert_eq!(e.line, 2);
    assert!(parse_asm("global_load_dword v0, v[2:3], off glc", t).is_err(), "glc is spelled sc0 on gfx942");
    assert!(parse_asm("global_load_dword v0, v[2:3], off sc0", g90a()).is_err(), "sc0 is spelled glc on gfx90a");
    assert!(parse_asm("v_add_f32_sdwa v0, v1, v2", t).is_err());
    assert!(parse_asm(".globl foo", t).is_err());
    assert!(parse_asm("v_permlane64_b32 v0, v1", t).unwrap_err().message.contains("not an instruction of gfx942"));
}
