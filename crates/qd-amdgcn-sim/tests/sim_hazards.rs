//! The simulator as a checker: every planted hazard of docs/amdgcn-isa-facts.md §11.1, every
//! missing memory wait and every out-of-bounds access is an error of the right kind naming the
//! offending instruction's byte offset (and the lane where it applies), and the fixed program
//! passes.

mod sim_util;

use qd_amdgcn_isa::{Arch, Target, WaveSize};
use qd_amdgcn_isa::{Inst, Operand};
use qd_amdgcn_sim::{GlobalMemory, SimError, SimErrorKind, WaveSim};
use sim_util::asm;

const GFX90A: Target = Target { arch: Arch::Gfx90a, wave: WaveSize::W64 };
const GFX942: Target = Target { arch: Arch::Gfx942, wave: WaveSize::W64 };
const GFX1100: Target = Target { arch: Arch::Gfx1100, wave: WaveSize::W64 };
const GFX1100_W32: Target = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };

/// A wave with a 256-byte global buffer whose address is in v[2:3] (every lane) and s[2:3],
/// 256 bytes of LDS, and v0 = lane id.
fn sim_with_memory(t: Target) -> (WaveSim, GlobalMemory, u64) {
    let mut mem = GlobalMemory::new();
    let buf = mem.alloc(256, 256);
    let mut sim = WaveSim::new(t, 16, 32, 256);
    for lane in 0..sim.lanes() {
        sim.set_vgpr(0, lane, lane).unwrap();
        sim.set_vgpr(2, lane, buf as u32).unwrap();
        sim.set_vgpr(3, lane, (buf >> 32) as u32).unwrap();
    }
    sim.set_sgpr(2, buf as u32).unwrap();
    sim.set_sgpr(3, (buf >> 32) as u32).unwrap();
    (sim, mem, buf)
}

fn exec(t: Target, text: &str) -> Result<(), SimError> {
    let (mut sim, mut mem, _) = sim_with_memory(t);
    sim.run(&asm(text, t), &mut mem).map(|_| ())
}

/// Asserts that `text` fails with `kind` at the instruction on line `line` (0-based, counting
/// instructions only), and returns the error.
fn fails(t: Target, text: &str, kind: SimErrorKind, line: usize) -> SimError {
    let prog = asm(text, t);
    let e = exec(t, text).expect_err(&format!("{t}: expected {kind:?} in\n{text}"));
    assert_eq!(e.kind, kind, "{t}: {e}\n{text}");
    assert_eq!(e.offset, prog[line].0, "{t}: wrong offset: {e}\n{text}");
    assert!(e.to_string().contains(&format!("0x{:x}", e.offset)), "{e}");
    e
}

fn passes(t: Target, text: &str) {
    exec(t, text).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
}

#[test]
fn row1_vgpr_write_then_dpp() {
    for t in [GFX90A, GFX942] {
        let e = fails(
            t,
            "v_mov_b32_e32 v1, v0\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf",
            SimErrorKind::Hazard,
            1,
        );
        assert!(e.message.contains("row 1"), "{e}");
        fails(
            t,
            "v_mov_b32_e32 v1, v0\ns_nop 0\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf",
            SimErrorKind::Hazard,
            2,
        );
        passes(t, "v_mov_b32_e32 v1, v0\ns_nop 1\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf");
        // 1b: one unrelated instruction already in between needs s_nop 0 more.
        fails(t, "v_mov_b32_e32 v1, v0\ns_mov_b32 s5, 0\nv_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", SimErrorKind::Hazard, 2);
        passes(t, "v_mov_b32_e32 v1, v0\ns_mov_b32 s5, 0\ns_nop 0\nv_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf");
        // Any writer counts, a load included (the s_waitcnt is the one state in between).
        fails(
            t,
            "global_load_dword v1, v[2:3], off\ns_waitcnt vmcnt(0)\nv_add_u32_dpp v4, v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf",
            SimErrorKind::Hazard,
            2,
        );
        passes(t, "global_load_dword v1, v[2:3], off\ns_waitcnt vmcnt(0)\ns_nop 0\nv_add_u32_dpp v4, v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf");
        // LLVM checks every VGPR use of the DPP instruction: src1, and the destination (the tied
        // `old` operand) too.
        let dpp_src1 = "v_mov_b32_e32 v5, v0\nv_add_u32_dpp v4, v1, v5 row_shr:1 row_mask:0xf bank_mask:0xf";
        fails(t, dpp_src1, SimErrorKind::Hazard, 1);
        fails(
            t,
            "v_mov_b32_e32 v4, 0\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf",
            SimErrorKind::Hazard,
            1,
        );
        passes(t, "v_mov_b32_e32 v4, 0\ns_nop 1\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf");
    }
    // GFX11 is interlocked.
    passes(GFX1100, "v_mov_b32_e32 v1, v0\nv_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf");
}

#[test]
fn row2_valu_exec_write_then_dpp() {
    for t in [GFX90A, GFX942] {
        let dpp = "v_mov_b32_dpp v4, v1 row_shr:1 row_mask:0xf bank_mask:0xf";
        fails(t, &format!("v_cmpx_le_u32_e32 vcc, 0, v0\ns_nop 3\n{dpp}"), SimErrorKind::Hazard, 2);
        passes(t, &format!("v_cmpx_le_u32_e32 vcc, 0, v0\ns_nop 4\n{dpp}"));
        // A SALU write of EXEC is not a hazard (row 3).
        passes(t, &format!("s_mov_b64 exec, -1\n{dpp}"));
    }
}

#[test]
fn row4_valu_sgpr_write_then_lane_select() {
    for t in [GFX90A, GFX942] {
        fails(t, "v_readfirstlane_b32 s4, v0\ns_nop 2\nv_readlane_b32 s0, v1, s4", SimErrorKind::Hazard, 2);
        passes(t, "v_readfirstlane_b32 s4, v0\ns_nop 3\nv_readlane_b32 s0, v1, s4");
        fails(t, "v_readfirstlane_b32 s4, v0\nv_writelane_b32 v1, 7, s4", SimErrorKind::Hazard, 1);
        // A SALU write is fine (row 5).
        passes(t, "s_mov_b32 s4, 3\nv_readlane_b32 s0, v1, s4");
    }
    passes(GFX1100, "v_readfirstlane_b32 s4, v0\nv_readlane_b32 s0, v1, s4");
}

#[test]
fn gfx942_only_rows_6_7_8_9_13() {
    let cases: [(&str, &str, usize); 5] = [
        // 6: VALU writes EXEC → readlane needs 4.
        (
            "v_cmpx_le_u32_e32 vcc, 0, v0\nv_readlane_b32 s0, v1, 1",
            "v_cmpx_le_u32_e32 vcc, 0, v0\ns_nop 3\nv_readlane_b32 s0, v1, 1",
            1,
        ),
        // 7: VALU writes a VGPR → readlane reads it needs 1.
        (
            "v_mov_b32_e32 v1, v0\nv_readlane_b32 s0, v1, 3",
            "v_mov_b32_e32 v1, v0\ns_nop 0\nv_readlane_b32 s0, v1, 3",
            1,
        ),
        // 8: VALU writes an SGPR → a VALU reads it needs 2.
        (
            "v_readlane_b32 s4, v0, 2\ns_nop 0\nv_add_u32_e32 v5, s4, v1",
            "v_readlane_b32 s4, v0, 2\ns_nop 1\nv_add_u32_e32 v5, s4, v1",
            2,
        ),
        // 9: VALU writes VCC → v_cndmask reads it needs 2.
        (
            "v_cmp_eq_u32_e32 vcc, 1, v0\nv_cndmask_b32_e32 v5, v1, v0, vcc",
            "v_cmp_eq_u32_e32 vcc, 1, v0\ns_nop 1\nv_cndmask_b32_e32 v5, v1, v0, vcc",
            1,
        ),
        // 13: a transcendental's result → a non-trans VALU needs 1.
        (
            "v_exp_f32_e32 v1, v0\nv_add_f32_e32 v5, v1, v0",
            "v_exp_f32_e32 v1, v0\ns_nop 0\nv_add_f32_e32 v5, v1, v0",
            1,
        ),
    ];
    for (bad, good, line) in cases {
        fails(GFX942, bad, SimErrorKind::Hazard, line);
        passes(GFX942, good);
        passes(GFX90A, bad);
    }
}

#[test]
fn row10_valu_sgpr_write_then_vmem() {
    let bad = "v_readfirstlane_b32 s4, v2\nv_readfirstlane_b32 s5, v3\ns_nop 3\nglobal_load_dword v1, v0, s[4:5]";
    let good = "v_readfirstlane_b32 s4, v2\nv_readfirstlane_b32 s5, v3\ns_nop 4\nglobal_load_dword v1, v0, s[4:5]";
    for t in [GFX90A, GFX942] {
        let mut bad_t = bad.to_string();
        let mut good_t = good.to_string();
        if t == GFX942 {
            // gfx942 also needs 2 states between the two VALU SGPR writes and no VALU reads them.
            bad_t = bad_t.replace("v_readfirstlane_b32 s5", "s_nop 1\nv_readfirstlane_b32 s5");
            good_t = good_t.replace("v_readfirstlane_b32 s5", "s_nop 1\nv_readfirstlane_b32 s5");
        }
        let line = if t == GFX942 { 4 } else { 3 };
        fails(t, &bad_t, SimErrorKind::Hazard, line);
        passes(t, &good_t);
    }
    let gfx11 = bad.replace("global_load_dword", "global_load_b32");
    passes(GFX1100, &gfx11);
}

#[test]
fn wide_store_data_overwrite() {
    let bad = "global_store_dwordx4 v[2:3], v[4:7], off\nv_mov_b32_e32 v5, 0";
    fails(GFX90A, bad, SimErrorKind::Hazard, 1);
    passes(GFX90A, "global_store_dwordx4 v[2:3], v[4:7], off\ns_nop 0\nv_mov_b32_e32 v5, 0");
    fails(GFX942, "global_store_dwordx4 v[2:3], v[4:7], off\ns_nop 0\nv_mov_b32_e32 v5, 0", SimErrorKind::Hazard, 2);
    passes(GFX942, "global_store_dwordx4 v[2:3], v[4:7], off\ns_nop 1\nv_mov_b32_e32 v5, 0");
    // 64-bit stores are not affected.
    passes(GFX942, "global_store_dwordx2 v[2:3], v[4:5], off\nv_mov_b32_e32 v5, 0");
}

#[test]
fn gfx11_row13_trans_use() {
    fails(GFX1100, "v_exp_f32_e32 v1, v0\nv_add_f32_e32 v5, v1, v0", SimErrorKind::Hazard, 1);
    passes(GFX1100, "v_exp_f32_e32 v1, v0\ns_waitcnt_depctr 0xfff\nv_add_f32_e32 v5, v1, v0");
    // s_nop does not help on GFX11; six VALUs in between do.
    fails(GFX1100, "v_rcp_f32_e32 v1, v0\ns_nop 7\nv_add_f32_e32 v5, v1, v0", SimErrorKind::Hazard, 2);
    let six = "v_mov_b32_e32 v6, 0\n".repeat(6);
    passes(GFX1100, &format!("v_rcp_f32_e32 v1, v0\n{six}v_add_f32_e32 v5, v1, v0"));
    fails(GFX1100_W32, "v_exp_f32_e32 v1, v0\nv_add_f32_e32 v5, v1, v0", SimErrorKind::Hazard, 1);
}

#[test]
fn gfx11_row14_partial_forwarding() {
    let bad = "v_mov_b32_e32 v1, 1\ns_mov_b64 exec, -1\nv_mov_b32_e32 v4, 2\nv_add_nc_u32_e32 v5, v1, v4";
    fails(GFX1100, bad, SimErrorKind::Hazard, 3);
    passes(GFX1100, "v_mov_b32_e32 v1, 1\ns_mov_b64 exec, -1\nv_mov_b32_e32 v4, 2\ns_waitcnt_depctr 0xfff\nv_add_nc_u32_e32 v5, v1, v4");
    // Without the EXEC write in between, or with only one VGPR source, there is no hazard.
    passes(GFX1100, "v_mov_b32_e32 v1, 1\ns_mov_b32 s4, 0\nv_mov_b32_e32 v4, 2\nv_add_nc_u32_e32 v5, v1, v4");
    passes(GFX1100, "v_mov_b32_e32 v1, 1\ns_mov_b64 exec, -1\nv_mov_b32_e32 v4, 2\nv_add_nc_u32_e32 v5, v1, v1");
    // Wave64 only.
    passes(GFX1100_W32, "v_mov_b32_e32 v1, 1\ns_mov_b32 exec_lo, -1\nv_mov_b32_e32 v4, 2\nv_add_nc_u32_e32 v5, v1, v4");
}

#[test]
fn gfx11_row15_mask_write() {
    let bad = "v_cndmask_b32_e64 v5, v1, v0, s[4:5]\ns_mov_b64 s[4:5], -1\ns_and_b64 s[6:7], s[4:5], exec";
    let e = fails(GFX1100, bad, SimErrorKind::Hazard, 2);
    assert!(e.message.contains("row 15"), "{e}");
    passes(GFX1100, "v_cndmask_b32_e64 v5, v1, v0, s[4:5]\ns_mov_b64 s[4:5], -1\ns_waitcnt_depctr 0xfffe\ns_and_b64 s[6:7], s[4:5], exec");
    // A VALU reading another SGPR in between expires the mask read.
    passes(GFX1100, "v_cndmask_b32_e64 v5, v1, v0, s[4:5]\nv_add_nc_u32_e32 v6, s8, v0\ns_mov_b64 s[4:5], -1\ns_and_b64 s[6:7], s[4:5], exec");
    passes(GFX1100_W32, "v_cndmask_b32_e64 v5, v1, v0, s4\ns_mov_b32 s4, -1\ns_and_b32 s6, s4, exec_lo");
}

#[test]
fn gfx11_row16_cmpx_then_permlane() {
    for t in [GFX1100, GFX1100_W32] {
        for p in ["v_permlane64_b32 v4, v1", "v_permlane16_b32 v4, v1, s0, s1", "v_permlanex16_b32 v4, v1, -1, -1"] {
            fails(t, &format!("v_cmpx_le_u32_e32 0, v0\n{p}"), SimErrorKind::Hazard, 1);
            fails(t, &format!("v_cmpx_le_u32_e32 0, v0\nv_nop\n{p}"), SimErrorKind::Hazard, 2);
            passes(t, &format!("v_cmpx_le_u32_e32 0, v0\nv_mov_b32_e32 v1, v1\n{p}"));
        }
    }
}

#[test]
fn missing_waits() {
    for t in [GFX90A, GFX942, GFX1100, GFX1100_W32] {
        let g9 = t.arch != Arch::Gfx1100;
        let (sload, ds_read, gload, ds_write, add) = if g9 {
            ("s_load_dword", "ds_read_b32", "global_load_dword", "ds_write_b32", "v_add_u32_e32")
        } else {
            ("s_load_b32", "ds_load_b32", "global_load_b32", "ds_store_b32", "v_add_nc_u32_e32")
        };
        // SMEM: only lgkmcnt(0) proves the result is back.
        let e = fails(t, &format!("{sload} s4, s[2:3], 0x0\ns_add_u32 s5, s4, 1"), SimErrorKind::MissingWait, 1);
        assert!(e.message.contains("0x0") && e.message.contains("lgkmcnt(0)"), "{e}");
        fails(
            t,
            &format!("{sload} s4, s[2:3], 0x0\ns_waitcnt lgkmcnt(1)\ns_add_u32 s5, s4, 1"),
            SimErrorKind::MissingWait,
            2,
        );
        passes(t, &format!("{sload} s4, s[2:3], 0x0\ns_waitcnt lgkmcnt(0)\ns_add_u32 s5, s4, 1"));
        // DS: in order, lgkmcnt(1) retires the older of two.
        let two = format!("v_lshlrev_b32_e32 v1, 2, v0\n{ds_read} v4, v1\n{ds_read} v5, v1\ns_waitcnt lgkmcnt(1)\n");
        passes(t, &format!("{two}{add} v6, v4, v0"));
        fails(t, &format!("{two}{add} v6, v5, v0"), SimErrorKind::MissingWait, 4);
        // VMEM loads: in order under vmcnt.
        let two = format!("{gload} v4, v[2:3], off\n{gload} v5, v[2:3], off offset:4\ns_waitcnt vmcnt(1)\n");
        passes(t, &format!("{two}{add} v6, v4, v0"));
        fails(t, &format!("{two}{add} v6, v5, v0"), SimErrorKind::MissingWait, 3);
        // Overwriting a pending load result is an error too.
        let e = fails(t, &format!("{gload} v4, v[2:3], off\nv_mov_b32_e32 v4, 0"), SimErrorKind::MissingWait, 1);
        assert!(e.message.contains("overwrites"), "{e}");
        // LDS writes must be waited for before a barrier.
        let w = format!("v_lshlrev_b32_e32 v1, 2, v0\n{ds_write} v1, v0\n");
        fails(t, &format!("{w}s_barrier"), SimErrorKind::MissingWait, 2);
        passes(t, &format!("{w}s_waitcnt lgkmcnt(0)\ns_barrier"));
    }
}

#[test]
fn out_of_bounds_and_misaligned() {
    for t in [GFX90A, GFX942, GFX1100, GFX1100_W32] {
        let g9 = t.arch != Arch::Gfx1100;
        let (ds_write, ds_read64, gload, sload) = if g9 {
            ("ds_write_b32", "ds_read_b64", "global_load_dword", "s_load_dword")
        } else {
            ("ds_store_b32", "ds_load_b64", "global_load_b32", "s_load_b32")
        };
        // 256 bytes of LDS: lane 16 is the first to write past it at offset 0xc0 + 4·16.
        let e = fails(
            t,
            &format!("v_lshlrev_b32_e32 v1, 2, v0\n{ds_write} v1, v0 offset:192"),
            SimErrorKind::OutOfBounds,
            1,
        );
        assert_eq!(e.lane, Some(16), "{e}");
        assert!(e.to_string().contains("lane 16"), "{e}");
        passes(t, &format!("v_lshlrev_b32_e32 v1, 2, v0\n{ds_write} v1, v0"));
        fails(t, &format!("v_mov_b32_e32 v1, 4\n{ds_read64} v[4:5], v1"), SimErrorKind::Misaligned, 1);
        // Global: the buffer is 256 bytes; lane l reads at 16·l, so lane 16 is the first outside.
        let e = fails(
            t,
            &format!("v_lshlrev_b32_e32 v1, 4, v0\n{gload} v4, v1, s[2:3]\ns_waitcnt vmcnt(0)"),
            SimErrorKind::OutOfBounds,
            1,
        );
        assert_eq!(e.lane, Some(16), "{e}");
        // Scalar load from an unmapped address.
        fails(t, &format!("{sload} s4, s[2:3], 0x1000"), SimErrorKind::OutOfBounds, 0);
        // A register beyond the allocation (16 VGPRs).
        fails(t, "v_mov_b32_e32 v40, 0", SimErrorKind::RegisterRange, 0);
    }
    // The partial wave32 case reaches lane 31 at byte 248: fine.
    passes(GFX1100_W32, "v_lshlrev_b32_e32 v1, 3, v0\nglobal_load_b32 v4, v1, s[2:3]\ns_waitcnt vmcnt(0)");
}

#[test]
fn control_errors() {
    for t in [GFX942, GFX1100] {
        fails(t, "s_trap 2", SimErrorKind::Trap, 0);
        // Branch into the literal dword of the next instruction.
        fails(t, "s_branch 1\nv_mov_b32_e32 v1, 0x12345678\ns_endpgm", SimErrorKind::BadBranch, 0);
        let (mut sim, mut mem, _) = sim_with_memory(t);
        sim.options.max_steps_per_wave = 100;
        let e = sim.run(&asm("loop:\ns_branch loop", t), &mut mem).expect_err("step limit");
        assert_eq!(e.kind, SimErrorKind::StepLimit);
    }
    // An op the architecture lacks, built directly (the assembler would refuse it).
    let (mut sim, mut mem, _) = sim_with_memory(GFX942);
    let inst = Inst::new(qd_amdgcn_isa::Op::VPermlane64B32, &[Operand::v(1), Operand::v(0)]);
    let e = sim.run(&[(0, inst)], &mut mem).expect_err("not on gfx942");
    assert_eq!(e.kind, SimErrorKind::Unsupported);
}

#[test]
fn dpp_scan_step_with_required_nops_runs_clean() {
    // A gfx942 inclusive-scan ladder of the kind the shuffle selector emits, with exactly the
    // §11.1 row 1 wait states: it passes and computes the row prefix sums.
    let t = GFX942;
    let text = "
        v_mov_b32_e32 v1, 1
        s_nop 1
        v_add_u32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
        s_nop 1
        v_add_u32_dpp v1, v1, v1 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:0
        s_nop 1
        v_add_u32_dpp v1, v1, v1 row_shr:4 row_mask:0xf bank_mask:0xf bound_ctrl:0
        s_nop 1
        v_add_u32_dpp v1, v1, v1 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:0";
    let (mut sim, mut mem, _) = sim_with_memory(t);
    let stats = sim.run(&asm(text, t), &mut mem).unwrap_or_else(|e| panic!("{e}"));
    for lane in 0..64 {
        assert_eq!(sim.vgpr(1, lane).unwrap(), lane % 16 + 1, "lane {lane}");
    }
    assert_eq!(stats.count(qd_amdgcn_sim::InstClass::Dpp), 4);
    assert_eq!(stats.count(qd_amdgcn_sim::InstClass::Nop), 4);
    // 4 DPP steps × (4 + 2 wait states × 4) + the first v_mov: 12 per dependent step with the
    // GFX9 costs of docs/shuffle-lowering.md §5.
    assert_eq!(stats.est_cycles, 4 + 4 * 12);
    // Without the nops it is a row 1 hazard at the first DPP step.
    let bad: String = text.lines().filter(|l| !l.contains("s_nop")).collect::<Vec<_>>().join("\n");
    fails(t, &bad, SimErrorKind::Hazard, 1);
}

#[test]
fn row10_includes_the_implicit_exec_of_vmem() {
    for t in [GFX90A, GFX942] {
        fails(t, "v_cmpx_le_u32_e32 vcc, 0, v0\ns_nop 3\nglobal_load_dword v4, v[2:3], off", SimErrorKind::Hazard, 2);
        passes(t, "v_cmpx_le_u32_e32 vcc, 0, v0\ns_nop 4\nglobal_load_dword v4, v[2:3], off");
    }
    passes(GFX1100, "v_cmpx_le_u32_e32 0, v0\nglobal_load_b32 v4, v[2:3], off");
}
