//! Hand-picked codec checks: a few llvm-mc-19 encodings per format and target (from
//! docs/amdgcn-isa-facts.md, [MC19] rows) through parse → encode and decode → display, so the
//! codec's basics are tested even where the golden tables or llvm-mc are not at hand.

use qd_amdgcn_isa::{decode, decode_all, encode_all, parse_asm};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

/// (text, little-endian dwords as the doc writes them)
fn check(target: Target, cases: &[(&str, &[u32])]) {
    for (text, words) in cases {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let insts = parse_asm(text, target).unwrap_or_else(|e| panic!("{target}: parse `{text}`: {}", e.render(text)));
        let got = encode_all(&insts, target).unwrap_or_else(|e| panic!("{target}: encode `{text}`: {e}"));
        assert_eq!(got, bytes, "{target}: encode `{text}`");
        let (inst, size) = decode(&bytes, target).unwrap_or_else(|e| panic!("{target}: decode `{text}`: {e}"));
        assert_eq!(size, bytes.len(), "{target}: size of `{text}`");
        assert_eq!(inst.display(target).to_string(), *text, "{target}: display");
    }
}

#[test]
fn gfx942_basics() {
    check(
        Target::wave64(Arch::Gfx942),
        &[
            ("s_mov_b32 s0, s1", &[0xBE800001]),
            ("s_mov_b64 exec, -1", &[0xBEFE01C1]),
            ("s_mov_b32 s0, 0x12345678", &[0xBE8000FF, 0x12345678]),
            ("s_lshl_b32 s0, s1, 2", &[0x8E008201]),
            ("s_movk_i32 s0, 0x1234", &[0xB0001234]),
            ("s_cmp_eq_u64 s[0:1], s[2:3]", &[0xBF120200]),
            ("s_waitcnt vmcnt(0) lgkmcnt(0)", &[0xBF8C0070]),
            ("s_branch -1", &[0xBF82FFFF]),
            ("s_endpgm", &[0xBF810000]),
            ("s_load_dword s0, s[4:5], 0x10", &[0xC0020002, 0x00000010]),
            ("s_load_dword s0, s[4:5], s6 offset:0x10", &[0xC0024002, 0x0C000010]),
            ("v_mov_b32_e32 v0, v1", &[0x7E000301]),
            ("v_add_u32_e32 v0, s2, v0", &[0x68000002]),
            ("v_cmp_eq_u32_e64 s[0:1], v1, v2", &[0xD0CA0000, 0x00020501]),
            ("v_add_f32_e64 v0, -v1, |v2|", &[0xD1010200, 0x20020501]),
            ("v_mad_u64_u32 v[0:1], s[4:5], v1, v2, v[2:3]", &[0xD1E80400, 0x040A0501]),
            ("v_add_u32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1", &[0x680202FA, 0xFF091101]),
            ("v_mov_b32_dpp v0, v1 row_newbcast:1 row_mask:0xf bank_mask:0xf", &[0x7E0002FA, 0xFF015101]),
            ("ds_read2_b32 v[0:1], v2 offset0:1 offset1:2", &[0xD86E0201, 0x00000002]),
            ("ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)", &[0xD87A401F, 0x00000001]),
            ("global_load_dword v1, v0, s[4:5]", &[0xDC508000, 0x01040000]),
            ("global_load_dword v0, v[2:3], off offset:-16", &[0xDC509FF0, 0x007F0002]),
            ("global_atomic_add v0, v[2:3], v1, off sc0", &[0xDD098000, 0x007F0102]),
            ("v_lshl_add_u64 v[0:1], v[2:3], 2, v[4:5]", &[0xD2080000, 0x04110502]),
        ],
    );
}

#[test]
fn gfx1100_basics() {
    check(
        Target::wave64(Arch::Gfx1100),
        &[
            ("s_load_b64 s[4:5], s[0:1], 0x0", &[0xF4040100, 0xF8000000]),
            ("s_waitcnt lgkmcnt(0)", &[0xBF89FC07]),
            ("v_add_nc_u32_e32 v0, s2, v0", &[0x4A000002]),
            ("v_add_co_u32 v0, vcc, v1, v2", &[0xD7006A00, 0x00020501]),
            ("v_permlane64_b32 v1, v1", &[0x7E02CF01]),
            ("v_permlane16_b32 v0, v1, s2, s3 op_sel:[1,1]", &[0xD65B1800, 0x000C0501]),
            ("v_add_f32_e64_dpp v0, v1, v2 dpp8:[7,6,5,4,3,2,1,0]", &[0xD5030000, 0x000204E9, 0x05397701]),
            ("v_mov_b32_dpp v0, v1 dpp8:[1,0,3,2,5,4,7,6] fi:1", &[0x7E0002EA, 0xDE54C101]),
            (
                "v_add3_u32_e64_dpp v0, v1, v2, 5 row_shr:1 row_mask:0xf bank_mask:0xf",
                &[0xD6550000, 0x021604FA, 0xFF011101],
            ),
            ("v_cmp_eq_u32_e64 s[0:1], v1, 0x1234", &[0xD44A0000, 0x0001FF01, 0x00001234]),
            ("global_store_b32 v0, v1, s[4:5]", &[0xDC6A0000, 0x00040100]),
            ("global_atomic_add_u32 v0, v[2:3], v1, off glc", &[0xDCD64000, 0x007C0102]),
            ("s_waitcnt_vscnt null, 0x0", &[0xBC7C0000]),
            ("s_delay_alu instid0(VALU_DEP_1)", &[0xBF870001]),
            ("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)", &[0xBFB60003]),
            ("buffer_gl0_inv", &[0xE0AC0000, 0x00000000]),
        ],
    );
}

#[test]
fn gfx90a_basics() {
    check(
        Target::wave64(Arch::Gfx90a),
        &[
            ("global_atomic_add v0, v[2:3], v1, off glc", &[0xDD098000, 0x007F0102]),
            ("global_load_dword v0, v[2:3], off glc slc", &[0xDC538000, 0x007F0002]),
            ("buffer_wbinvl1_vol", &[0xE0FC0000, 0x00000000]),
        ],
    );
}

#[test]
fn gfx1100_wave32_masks() {
    let t = Target::new(Arch::Gfx1100, WaveSize::W32).unwrap();
    let insts = parse_asm("v_cmp_eq_u32_e32 vcc_lo, v1, v2\nv_cndmask_b32_e64 v0, v1, v2, s4", t).unwrap();
    let bytes = encode_all(&insts, t).unwrap();
    let back = decode_all(&bytes, t).unwrap();
    let text: Vec<String> = back.iter().map(|(_, i)| i.display(t).to_string()).collect();
    assert_eq!(text, ["v_cmp_eq_u32_e32 vcc_lo, v1, v2", "v_cndmask_b32_e64 v0, v1, v2, s4"]);
}

#[test]
fn labels_resolve_to_dword_offsets() {
    let t = Target::wave64(Arch::Gfx942);
    let src = "top:\n  s_nop 0\n  s_branch top ; back\n  s_cbranch_scc0 done // forward\n  s_mov_b32 s0, 0x12345678\ndone: s_endpgm\n";
    let insts = parse_asm(src, t).unwrap();
    assert_eq!(insts[1].imm, -2);
    assert_eq!(insts[2].imm, 2);
}

#[test]
fn suffixless_spellings_pick_the_encoding_llvm_picks() {
    use qd_amdgcn_isa::{Dpp, Form};
    let g11 = Target::wave64(Arch::Gfx1100);
    let g942 = Target::wave64(Arch::Gfx942);
    let one = |t, s: &str| parse_asm(s, t).unwrap_or_else(|e| panic!("`{s}`: {}", e.render(s))).remove(0);
    assert_eq!(one(g942, "v_mov_b32 v0, v1").form, Form::E32);
    assert_eq!(one(g942, "v_cmp_eq_u32 vcc, v1, v2").form, Form::E32);
    // Operands only VOP3 can encode select it, as llvm-mc does.
    assert_eq!(one(g11, "v_add_f32 v0, s1, s2").form, Form::E64);
    assert_eq!(one(g942, "v_add_f32 v0, v1, s2").form, Form::E64);
    assert_eq!(one(g942, "v_add_f32 v0, v1, v2 clamp").form, Form::E64);
    assert!(parse_asm("v_add_f32 v0, s1, s2", g942).is_err(), "constant bus on gfx942");
    // GFX11 VOPC DPP is spelled without a suffix.
    let cmp = one(g11, "v_cmp_eq_u32 vcc, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf");
    assert!(matches!(cmp.dpp, Dpp::Dpp16(_)));
    // bound_ctrl:0 sets the bit on GFX9 (LLVM's historical spelling) and clears it on GFX11.
    let bc = |t, s: &str| match one(t, s).dpp {
        Dpp::Dpp16(d) => d.bound_ctrl,
        _ => panic!("no dpp"),
    };
    assert!(bc(g942, "v_mov_b32_dpp v0, v1 row_shr:1 bound_ctrl:0"));
    assert!(bc(g942, "v_mov_b32_dpp v0, v1 row_shr:1 bound_ctrl:1"));
    assert!(!bc(g11, "v_mov_b32_dpp v0, v1 row_shr:1 bound_ctrl:0"));
    assert!(bc(g11, "v_mov_b32_dpp v0, v1 row_shr:1 bound_ctrl:1"));
    // Disassembler spellings: unsigned branch offsets and GFX11 `null` SMEM offsets.
    assert_eq!(one(g942, "s_branch 65535").imm, -1);
    assert_eq!(one(g11, "s_load_b32 s2, s[4:5], null").imm, 0);
}

#[test]
fn whole_kernel_round_trips() {
    // The reference kernel of docs/amdgcn-isa-facts.md §16 (gfx1100 variant), 60 bytes.
    let t = Target::wave64(Arch::Gfx1100);
    let src = "\
        s_load_b64 s[4:5], s[0:1], 0x0
        s_lshl_b32 s2, s2, 6
        v_add_nc_u32_e32 v0, s2, v0
        v_lshlrev_b32_e32 v0, 2, v0
        s_waitcnt lgkmcnt(0)
        global_load_b32 v1, v0, s[4:5]
        s_waitcnt vmcnt(0)
        v_add_nc_u32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        v_permlane64_b32 v1, v1
        global_store_b32 v0, v1, s[4:5]
        s_endpgm";
    let insts = parse_asm(src, t).unwrap();
    let bytes = encode_all(&insts, t).unwrap();
    assert_eq!(bytes.len(), 60);
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(
        words,
        [
            0xF4040100, 0xF8000000, 0x84028602, 0x4A000002, 0x30000082, 0xBF89FC07, 0xDC520000, 0x01040000, 0xBF8903F7,
            0x4A0202FA, 0xFF091101, 0x7E02CF01, 0xDC6A0000, 0x00040100, 0xBFB00000
        ]
    );
    let back = decode_all(&bytes, t).unwrap();
    assert_eq!(back.iter().map(|(o, _)| *o).collect::<Vec<_>>(), [0, 8, 12, 16, 20, 24, 32, 36, 44, 48, 56]);
    let text: Vec<String> = back.iter().map(|(_, i)| i.display(t).to_string()).collect();
    let expect: Vec<&str> = src.lines().map(str::trim).collect();
    assert_eq!(text, expect);
}
