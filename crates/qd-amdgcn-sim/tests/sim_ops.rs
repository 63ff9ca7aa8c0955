//! Every op of the table runs in the simulator on every target that has it (a legal instance built
//! from the op's shape, checked by `Inst::check`, round-tripped through the encoder and decoder),
//! and the scalar/vector ALU semantics that are easy to get wrong (SCC, saveexec, carries, masks of
//! inactive lanes, saturating conversions, IEEE min/max, bit counts, 64-bit shifts, modifiers) hold
//! on hand-checked values.

mod sim_util;

use qd_amdgcn_isa::{decode_all, encode_all, Inst, Op, Operand, Shape, SoppImm};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};
use qd_amdgcn_sim::{GlobalMemory, SimErrorKind, WaveSim};
use sim_util::{asm, targets};

fn mask_reg(t: Target) -> Operand {
    if t.wave == WaveSize::W64 {
        Operand::Vcc
    } else {
        Operand::VccLo
    }
}

/// A legal instance of `op` for `t`, from its shape.
fn instance(op: Op, t: Target) -> Inst {
    use Operand as O;
    let m = mask_reg(t);
    let ops: Vec<Operand> = match op.info().shape {
        Shape::Sop1 { d, s } => vec![O::sr(4, d), O::sr(8, s)],
        Shape::Sop1Dst { d } => vec![O::sr(4, d)],
        Shape::Sop1Src { s } => vec![O::sr(10, s)],
        Shape::Sop2 { d, s0, s1 } => vec![O::sr(4, d), O::sr(8, s0), O::sr(12, s1)],
        Shape::Sopk | Shape::SopkCmp => vec![O::s(4)],
        Shape::SopkWaitcnt => vec![O::Null],
        Shape::Sopc { s } => vec![O::sr(8, s), O::sr(12, s)],
        Shape::Sopp(_) | Shape::SmemNone | Shape::Vop1None | Shape::CacheCtl => vec![],
        Shape::SmemLoad { d, base: 4 } => vec![O::sr(24, d), O::sr(20, 4)],
        Shape::SmemLoad { d, .. } => vec![O::sr(24, d), O::s2(2)],
        Shape::SmemDst { d } => vec![O::sr(4, d)],
        Shape::Vop1 { d, s } => vec![O::vr(4, d), O::vr(8, s)],
        Shape::Vop1Sdst => vec![O::s(4), O::v(8)],
        Shape::Vop2 { d, s0, s1 } | Shape::Vop3 { d, s0, s1 } => vec![O::vr(4, d), O::vr(8, s0), O::vr(10, s1)],
        Shape::Vop2Tied => vec![O::v(4), O::v(8), O::v(10)],
        Shape::Vop2Cndmask => vec![O::v(4), O::v(8), O::v(10), m],
        Shape::Vop2CarryOut => vec![O::v(4), m, O::v(8), O::v(10)],
        Shape::Vop2CarryInOut => vec![O::v(4), m, O::v(8), O::v(10), m],
        Shape::Vopc { s } => vec![m, O::vr(8, s), O::vr(10, s)],
        Shape::VopcX { s } if t.family() == Family::Gfx9 => vec![m, O::vr(8, s), O::vr(10, s)],
        Shape::VopcX { s } => vec![O::vr(8, s), O::vr(10, s)],
        Shape::Vop3Three { d, s0, s1, s2 } => vec![O::vr(4, d), O::vr(8, s0), O::vr(10, s1), O::vr(12, s2)],
        Shape::Vop3bMad => vec![O::v2(4), m, O::v(8), O::v(10), O::v2(12)],
        Shape::Vop3bDivScale { s } => vec![O::vr(4, s), m, O::vr(8, s), O::vr(10, s), O::vr(12, s)],
        Shape::VopcClass { s } => vec![m, O::vr(8, s), O::v(10)],
        Shape::Readlane => vec![O::s(4), O::v(8), O::Int(3)],
        Shape::Writelane => vec![O::v(4), O::s(5), O::Int(3)],
        Shape::Permlane => vec![O::v(4), O::v(8), O::s(5), O::s(6)],
        Shape::DsLoad { d } => vec![O::vr(4, d), O::v(1)],
        Shape::DsLoad2 { d } => vec![O::vr(4, 2 * d), O::v(1)],
        Shape::DsStore { s } | Shape::DsAtomic { s } => vec![O::v(1), O::vr(8, s)],
        Shape::DsAtomicRtn { s } => vec![O::vr(4, s), O::v(1), O::vr(8, s)],
        Shape::DsCmpstRtn { s } => vec![O::vr(4, s), O::v(1), O::vr(8, s), O::vr(10, s)],
        Shape::DsSwizzle => vec![O::v(4), O::v(8)],
        Shape::DsAddtid => vec![O::v(4)],
        Shape::FlatLoad { d } | Shape::GlobalLoad { d } => vec![O::vr(4, d), O::v2(2)],
        Shape::FlatStore { s } | Shape::GlobalStore { s } => vec![O::v2(2), O::vr(8, s)],
        Shape::GlobalAtomic { s } => vec![O::vr(4, s), O::v2(2), O::vr(8, s)],
        Shape::GlobalAtomicCas { s } => vec![O::vr(4, s), O::v2(2), O::vr(8, 2 * s)],
    };
    let mut inst = Inst::new(op, &ops);
    inst.imm = match op.info().shape {
        Shape::Sopk | Shape::SopkCmp => 5,
        Shape::Sopp(SoppImm::Depctr) => 0xFFF,
        Shape::Sopp(SoppImm::Sendmsg) => 3,
        Shape::Sopp(SoppImm::DelayAlu) => 1,
        Shape::DsSwizzle => 0x041F,
        _ => 0,
    };
    if let Shape::DsLoad2 { .. } = op.info().shape {
        inst.imm1 = 1;
    }
    inst
}

#[test]
fn every_op_runs_on_every_target_that_has_it() {
    let mut ran = 0;
    let mut problems = Vec::new();
    for t in targets() {
        for &op in Op::ALL {
            if !op.available(t.arch) {
                continue;
            }
            let mut inst = instance(op, t);
            if inst.check(t).is_err() {
                // VOP2 ops that are VOP3-only on this target (GFX11 v_add_co_u32 and friends).
                inst = inst.e64();
            }
            if let Err(e) = inst.check(t) {
                problems.push(format!("{t}: {op:?}: my instance is illegal: {e}"));
                continue;
            }
            let end = Inst::new(Op::SEndpgm, &[]);
            let bytes = encode_all(&[inst, end], t).unwrap_or_else(|e| panic!("{t} {op:?}: {e}"));
            let prog = decode_all(&bytes, t).unwrap_or_else(|e| panic!("{t} {op:?}: {e}"));
            let mut mem = GlobalMemory::new();
            let buf = mem.alloc(4096, 4096);
            let mut sim = WaveSim::new(t, 32, 32, 1024);
            for lane in 0..sim.lanes() {
                sim.set_vgpr(1, lane, 0).unwrap();
                sim.set_vgpr(2, lane, buf as u32).unwrap();
                sim.set_vgpr(3, lane, (buf >> 32) as u32).unwrap();
                for r in 8..16 {
                    sim.set_vgpr(r, lane, 0x4000_0000 + lane * 8 + r).unwrap();
                }
            }
            let next = prog[1].0;
            for (r, v) in [
                (2, buf as u32),
                (3, (buf >> 32) as u32),
                (8, next),
                (9, 0),
                (10, next),
                (11, 0),
                (20, buf as u32),
                (21, 0),
                (22, 256),
            ] {
                sim.set_sgpr(r, v).unwrap();
            }
            sim.set_sgpr(21, (buf >> 32) as u32).unwrap();
            match (op, sim.run(&prog, &mut mem)) {
                (Op::STrap, Err(e)) if e.kind == SimErrorKind::Trap => ran += 1,
                (_, Ok(_)) if op != Op::STrap => ran += 1,
                (_, r) => problems.push(format!("{t}: {op:?}: {r:?}")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(ran > 4 * 250, "{ran}");
}

fn wave(t: Target) -> WaveSim {
    WaveSim::new(t, 16, 32, 0)
}

fn go(sim: &mut WaveSim, t: Target, text: &str) {
    let mut mem = GlobalMemory::new();
    sim.run(&asm(text, t), &mut mem).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
}

const G942: Target = Target { arch: Arch::Gfx942, wave: WaveSize::W64 };
const G1100: Target = Target { arch: Arch::Gfx1100, wave: WaveSize::W64 };

#[test]
fn salu_values_and_scc() {
    let t = G942;
    let mut s = wave(t);
    let cases: &[(&str, u32, bool)] = &[
        ("s_add_u32 s4, s8, s9", 0xFFFF_FFFF, false), // 0xFFFFFFFF + 0 → no carry
        ("s_add_u32 s4, s8, 1", 0, true),             // carry out
        ("s_sub_u32 s4, 1, s8", 2, true),             // 1 - (-1): borrow
        ("s_add_i32 s4, s10, 1", 0x8000_0000, true),  // 0x7fffffff + 1 overflows
        ("s_min_i32 s4, s8, 0", 0xFFFF_FFFF, true),   // -1 < 0
        ("s_max_u32 s4, s8, 0", 0xFFFF_FFFF, true),
        ("s_and_b32 s4, s8, 0", 0, false),
        ("s_lshl_b32 s4, s10, 1", 0xFFFF_FFFE, true),
        ("s_bfe_u32 s4, s10, 0x40004", 0xF, true), // width 4 at offset 4
        ("s_bfe_i32 s4, s8, 0x30002", 0xFFFF_FFFF, true),
        ("s_bcnt1_i32_b32 s4, s10", 31, true),
        ("s_abs_i32 s4, s8", 1, true),
        ("s_not_b32 s4, s8", 0, false),
    ];
    for &(text, want, scc) in cases {
        s.set_sgpr(8, 0xFFFF_FFFF).unwrap();
        s.set_sgpr(9, 0).unwrap();
        s.set_sgpr(10, 0x7FFF_FFFF).unwrap();
        s.set_scc(!scc);
        go(&mut s, t, text);
        assert_eq!((s.sgpr(4).unwrap(), s.scc()), (want, scc), "{text}");
    }
    // SCC-preserving ops.
    for text in
        ["s_mov_b32 s4, 5", "s_cselect_b32 s4, 5, 6", "s_mul_i32 s4, s8, 3", "s_ff1_i32_b32 s4, 0", "s_brev_b32 s4, 1"]
    {
        s.set_scc(true);
        go(&mut s, t, text);
        assert!(s.scc(), "{text} must not touch SCC");
    }
    go(&mut s, t, "s_ff1_i32_b32 s4, 0\ns_flbit_i32_b32 s5, 0\ns_flbit_i32_b32 s6, 1\ns_brev_b32 s7, 1");
    assert_eq!(
        [s.sgpr(4).unwrap(), s.sgpr(5).unwrap(), s.sgpr(6).unwrap(), s.sgpr(7).unwrap()],
        [u32::MAX, u32::MAX, 31, 1 << 31]
    );
    s.set_scc(true);
    go(&mut s, t, "s_cselect_b64 s[6:7], -1, 0\ns_addc_u32 s4, 1, 2\ns_lshl_b64 s[8:9], 1, 40");
    assert_eq!(s.sgpr(4).unwrap(), 4);
    assert_eq!((s.sgpr(6).unwrap(), s.sgpr(7).unwrap()), (u32::MAX, u32::MAX));
    assert_eq!((s.sgpr(8).unwrap(), s.sgpr(9).unwrap()), (0, 1 << 8));
}

#[test]
fn saveexec_and_branches() {
    for (t, save, andn2) in [
        (G942, "s_and_saveexec_b64 s[4:5], s[8:9]", "s_andn2_saveexec_b64 s[6:7], s[8:9]"),
        (G1100, "s_and_saveexec_b64 s[4:5], s[8:9]", "s_and_not1_saveexec_b64 s[6:7], s[8:9]"),
    ] {
        let mut s = wave(t);
        s.set_exec(0xFFFF_0000_FFFF_0000);
        s.set_sgpr(8, 0x0F0F_0F0F).unwrap();
        s.set_sgpr(9, 0).unwrap();
        go(&mut s, t, save);
        assert_eq!((s.sgpr(4).unwrap(), s.sgpr(5).unwrap()), (0xFFFF_0000, 0xFFFF_0000));
        assert_eq!(s.exec(), 0x0F0F_0000);
        assert!(s.scc());
        go(&mut s, t, andn2);
        assert_eq!(s.exec(), 0x0F0F_0F0F & !0x0F0F_0000);
        // A taken branch skips the next instruction; a fall-through executes it.
        s.set_exec(0);
        go(&mut s, t, "s_mov_b32 s4, 1\ns_cbranch_execz skip\ns_mov_b32 s4, 2\nskip:\ns_cbranch_execnz skip2\ns_mov_b32 s5, 7\nskip2:");
        assert_eq!((s.sgpr(4).unwrap(), s.sgpr(5).unwrap()), (1, 7));
    }
}

#[test]
fn valu_carries_compares_and_masks() {
    let t = G942;
    let mut s = wave(t);
    s.set_exec(0x0000_FFFF_0000_FFFF);
    for lane in 0..64 {
        s.set_vgpr(1, lane, 0xFFFF_FFF0 + lane % 16).unwrap();
        s.set_vgpr(2, lane, 0x10).unwrap();
    }
    s.set_vcc(u64::MAX);
    go(&mut s, t, "v_add_co_u32_e32 v3, vcc, v1, v2\ns_nop 1\nv_addc_co_u32_e32 v4, vcc, 0, v5, vcc");
    for lane in 0..64u32 {
        let active = lane % 32 < 16;
        if active {
            assert_eq!(s.vgpr(3, lane).unwrap(), lane % 16, "lane {lane}");
            assert_eq!(s.vgpr(4, lane).unwrap(), 1, "carry into lane {lane}");
        }
    }
    // Carry-out bits of inactive lanes are 0 (and v_addc's carry out is 0 for 0 + 0 + 1).
    assert_eq!(s.vcc(), 0);
    go(&mut s, t, "v_cmp_gt_u32_e64 s[4:5], v1, v2");
    assert_eq!(s.sgpr(4).unwrap(), 0xFFFF, "only active lanes compare true");
    // GFX9 v_cmpx writes EXEC and VCC; GFX11 only EXEC.
    go(&mut s, t, "v_cmpx_lt_u32_e32 vcc, 0xfffffff8, v1");
    assert_eq!(s.exec(), 0x0000_FE00_0000_FE00, "active lanes with v1 = 0xfffffff0 + lane % 16 > 0xfffffff8");
    assert_eq!(s.vcc(), s.exec());
    let mut g = wave(G1100);
    g.set_vcc(0x1234);
    for lane in 0..64 {
        g.set_vgpr(1, lane, lane).unwrap();
    }
    go(&mut g, G1100, "v_cmpx_gt_u32_e32 10, v1");
    assert_eq!((g.exec(), g.vcc()), (0x3FF, 0x1234));
    // v_mad_u64_u32 and 64-bit shifts.
    go(
        &mut s,
        t,
        "s_mov_b64 exec, -1\nv_mov_b32_e32 v1, -1\nv_mov_b32_e32 v2, 2\nv_mov_b32_e32 v6, -1\nv_mov_b32_e32 v7, -1",
    );
    go(&mut s, t, "v_mad_u64_u32 v[4:5], s[8:9], v1, v2, v[6:7]");
    assert_eq!((s.vgpr(4, 0).unwrap(), s.vgpr(5, 0).unwrap()), (0xFFFF_FFFD, 1));
    assert_eq!(s.sgpr(8).unwrap(), u32::MAX, "the 64-bit add carried in every lane");
    go(
        &mut s,
        t,
        "v_lshlrev_b64 v[4:5], 36, v[6:7]\nv_ashrrev_i64 v[8:9], 60, v[6:7]\nv_lshrrev_b64 v[10:11], 60, v[6:7]",
    );
    assert_eq!((s.vgpr(4, 0).unwrap(), s.vgpr(5, 0).unwrap()), (0, 0xFFFF_FFF0));
    assert_eq!((s.vgpr(8, 0).unwrap(), s.vgpr(9, 0).unwrap()), (u32::MAX, u32::MAX));
    assert_eq!((s.vgpr(10, 0).unwrap(), s.vgpr(11, 0).unwrap()), (0xF, 0));
}

#[test]
fn valu_conversions_minmax_bits() {
    for t in [G942, G1100] {
        let mut s = wave(t);
        let f = |x: f32| x.to_bits();
        let cases: &[(&str, u32, u32)] = &[
            ("v_cvt_u32_f32_e32 v4, v1", f(-5.0), 0),
            ("v_cvt_u32_f32_e32 v4, v1", f(1e10), u32::MAX),
            ("v_cvt_u32_f32_e32 v4, v1", f32::NAN.to_bits(), 0),
            ("v_cvt_i32_f32_e32 v4, v1", f(-1e10), 0x8000_0000),
            ("v_cvt_i32_f32_e32 v4, v1", f(-7.9), (-7i32) as u32),
            ("v_cvt_f32_u32_e32 v4, v1", 0xFFFF_FFFF, f(4294967296.0)),
            ("v_ffbh_u32_e32 v4, v1", 0, u32::MAX),
            ("v_ffbh_u32_e32 v4, v1", 0x0001_0000, 15),
            ("v_ffbl_b32_e32 v4, v1", 0x0001_0000, 16),
            ("v_ffbh_i32_e32 v4, v1", 0xFFFF_0000, 16),
            ("v_ffbh_i32_e32 v4, v1", 0xFFFF_FFFF, u32::MAX),
            ("v_bfrev_b32_e32 v4, v1", 1, 1 << 31),
            ("v_min_f32_e32 v4, v1, v2", f32::NAN.to_bits(), f(2.0)),
            ("v_max_f32_e32 v4, v1, v2", 0x7F80_0001, 0x7FC0_0001),
            ("v_min_f32_e32 v4, v1, v3", f(0.0), f(-0.0)),
            ("v_max_f32_e32 v4, v1, v3", f(0.0), f(0.0)),
            ("v_bcnt_u32_b32 v4, v1, 5", 0xFF, 13),
            ("v_bfe_i32 v4, v1, 4, 4", 0x80, 0xFFFF_FFF8),
            ("v_alignbit_b32 v4, v1, v2, 4", 0xA, 0xA400_0000),
            ("v_mul_hi_u32_u24_e32 v4, v1, v1", 0xFF_FFFF, 0xFFFF),
            ("v_mul_i32_i24_e32 v4, 2, v1", 0x80_0000, 0xFF00_0000),
        ];
        for &(text, a, want) in cases {
            let text = if t.family() == Family::Gfx11 {
                text.replace("v_ffbh_u32", "v_clz_i32_u32")
                    .replace("v_ffbl_b32", "v_ctz_i32_b32")
                    .replace("v_ffbh_i32", "v_cls_i32")
            } else {
                text.to_string()
            };
            s.set_vgpr(1, 0, a).unwrap();
            s.set_vgpr(2, 0, f(2.0)).unwrap();
            s.set_vgpr(3, 0, f(-0.0)).unwrap();
            go(&mut s, t, &text);
            assert_eq!(s.vgpr(4, 0).unwrap(), want, "{t}: {text} ({a:#x})");
        }
        // mbcnt gives every lane its id.
        go(&mut s, t, "v_mbcnt_lo_u32_b32 v5, -1, 0\nv_mbcnt_hi_u32_b32 v5, -1, v5");
        for lane in 0..64 {
            assert_eq!(s.vgpr(5, lane).unwrap(), lane);
        }
    }
}

#[test]
fn float_modifiers_and_f64() {
    let t = G942;
    let mut s = wave(t);
    s.set_vgpr(1, 0, 3.0f32.to_bits()).unwrap();
    s.set_vgpr(2, 0, (-0.25f32).to_bits()).unwrap();
    go(&mut s, t, "v_add_f32_e64 v4, -v1, |v2|\nv_mul_f32_e64 v5, v1, v1 mul:2\nv_add_f32_e64 v6, v1, v1 clamp\nv_sub_f32_e64 v7, v2, v1 clamp");
    assert_eq!(f32::from_bits(s.vgpr(4, 0).unwrap()), -2.75);
    assert_eq!(f32::from_bits(s.vgpr(5, 0).unwrap()), 18.0);
    assert_eq!(f32::from_bits(s.vgpr(6, 0).unwrap()), 1.0);
    assert_eq!(f32::from_bits(s.vgpr(7, 0).unwrap()), 0.0);
    let d = 1.0f64 / 3.0;
    s.set_vgpr(8, 0, d.to_bits() as u32).unwrap();
    s.set_vgpr(9, 0, (d.to_bits() >> 32) as u32).unwrap();
    go(&mut s, t, "v_add_f64 v[10:11], v[8:9], 1.0\nv_fma_f64 v[12:13], v[8:9], 4.0, -v[8:9]\nv_cvt_f32_f64_e32 v14, v[8:9]\nv_cvt_i32_f64_e32 v15, v[10:11]");
    let r64 = |lo: u32| f64::from_bits(u64::from(s.vgpr(lo, 0).unwrap()) | u64::from(s.vgpr(lo + 1, 0).unwrap()) << 32);
    assert_eq!(r64(10), d + 1.0);
    assert_eq!(r64(12), d.mul_add(4.0, -d));
    assert_eq!(f32::from_bits(s.vgpr(14, 0).unwrap()), d as f32);
    assert_eq!(s.vgpr(15, 0).unwrap(), 1);
}

/// (The `s_nop 0` before the store ends the VMEM soft clause of the returning atomic:
/// docs/amdgcn-isa-facts.md §11.1 row 12.)
#[test]
fn lds_and_global_memory_ops() {
    for t in targets() {
        let g9 = t.family() == Family::Gfx9;
        let mut mem = GlobalMemory::new();
        let buf = mem.alloc(1024, 256);
        let mut s = WaveSim::new(t, 16, 32, 1024);
        let lanes = s.lanes();
        for lane in 0..lanes {
            s.set_vgpr(0, lane, lane).unwrap();
            s.set_vgpr(2, lane, buf as u32).unwrap();
            s.set_vgpr(3, lane, (buf >> 32) as u32).unwrap();
        }
        s.set_sgpr(2, buf as u32).unwrap();
        s.set_sgpr(3, (buf >> 32) as u32).unwrap();
        let text = if g9 {
            "v_lshlrev_b32_e32 v1, 2, v0
             v_mov_b32_e32 v4, 0
             ds_write_b32 v4, v4 offset:512
             ds_write_b32 v1, v0
             ds_add_u32 v4, v0 offset:512
             ds_read2_b32 v[6:7], v1 offset1:1
             ds_cmpst_rtn_b32 v8, v4, v4, v0 offset:516
             s_waitcnt lgkmcnt(0)
             ds_read_b32 v9, v4 offset:512
             global_atomic_add v10, v4, v0, s[2:3] GLC
             s_nop 0
             global_store_dword v1, v6, s[2:3] offset:256
             s_waitcnt vmcnt(0) lgkmcnt(0)"
        } else {
            "v_lshlrev_b32_e32 v1, 2, v0
             v_mov_b32_e32 v4, 0
             ds_store_b32 v4, v4 offset:512
             ds_store_b32 v1, v0
             ds_add_u32 v4, v0 offset:512
             ds_load_2addr_b32 v[6:7], v1 offset1:1
             ds_cmpstore_rtn_b32 v8, v4, v0, v4 offset:516
             s_waitcnt lgkmcnt(0)
             ds_load_b32 v9, v4 offset:512
             global_atomic_add_u32 v10, v4, v0, s[2:3] glc
             global_store_b32 v1, v6, s[2:3] offset:256
             s_waitcnt vmcnt(0) lgkmcnt(0)"
        };
        let text = text.replace("GLC", if t.arch == Arch::Gfx942 { "sc0" } else { "glc" });
        s.run(&asm(&text, t), &mut mem).unwrap_or_else(|e| panic!("{t}: {e}"));
        let sum: u32 = (0..lanes).sum();
        for lane in 0..lanes {
            assert_eq!(s.vgpr(6, lane).unwrap(), lane, "{t} read2 first");
            assert_eq!(s.vgpr(9, lane).unwrap(), sum, "{t} ds_add total");
            // cmpst on LDS[516] = 0 with compare 0: lane 0 stores 0, lane 1 stores 1, then every
            // later lane sees 1 and fails the compare (lane order).
            assert_eq!(s.vgpr(8, lane).unwrap(), u32::from(lane >= 2), "{t} cmpst old of lane {lane}");
            // The returning global atomic adds lane ids in lane order at buf[0].
            assert_eq!(s.vgpr(10, lane).unwrap(), (0..lane).sum::<u32>(), "{t} atomic old");
        }
        assert_eq!(s.vgpr(7, lanes - 2).unwrap(), lanes - 1);
        let bytes = mem.read(buf, 4).unwrap();
        assert_eq!(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]), sum);
        let bytes = mem.read(buf + 256 + 4 * 5, 4).unwrap();
        assert_eq!(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]), 5);
    }
}

#[test]
fn ds_cmpst_operand_order_per_family() {
    // GFX9 ds_cmpst_rtn_b32: data0 = compare, data1 = new value; GFX11 ds_cmpstore_rtn_b32:
    // data0 = new value, data1 = compare (RDNA3 ISA guide).
    for (t, text) in [
        (G942, "ds_cmpst_rtn_b32 v4, v1, v2, v3\ns_waitcnt lgkmcnt(0)\nds_read_b32 v5, v1\ns_waitcnt lgkmcnt(0)"),
        (G1100, "ds_cmpstore_rtn_b32 v4, v1, v3, v2\ns_waitcnt lgkmcnt(0)\nds_load_b32 v5, v1\ns_waitcnt lgkmcnt(0)"),
    ] {
        let mut s = WaveSim::new(t, 16, 16, 64);
        s.set_exec(1);
        s.lds_write(0, 7).unwrap();
        s.set_vgpr(1, 0, 0).unwrap();
        s.set_vgpr(2, 0, 7).unwrap(); // compare
        s.set_vgpr(3, 0, 99).unwrap(); // new
        go(&mut s, t, text);
        assert_eq!((s.vgpr(4, 0).unwrap(), s.vgpr(5, 0).unwrap()), (7, 99), "{t}");
    }
}

/// (`s_nop 0` ends a VMEM soft clause before a store or atomic joins one that writes registers:
/// docs/amdgcn-isa-facts.md §11.1 row 12, checked on GFX9 as if XNACK were on.)
#[test]
fn global_flat_widths_and_atomics() {
    for t in targets() {
        let g9 = t.family() == Family::Gfx9;
        let rtn = match t.arch {
            Arch::Gfx942 => "sc0",
            _ => "glc",
        };
        let names: [&str; 9] = if g9 {
            [
                "global_load_ubyte",
                "global_load_ushort",
                "global_store_byte",
                "global_store_short",
                "global_load_dwordx4",
                "global_atomic_add",
                "global_atomic_cmpswap",
                "flat_load_dword",
                "global_atomic_add_x2",
            ]
        } else {
            [
                "global_load_u8",
                "global_load_u16",
                "global_store_b8",
                "global_store_b16",
                "global_load_b128",
                "global_atomic_add_u32",
                "global_atomic_cmpswap_b32",
                "flat_load_b32",
                "global_atomic_add_u64",
            ]
        };
        let [ld8, ld16, st8, st16, ld128, add, cas, flat_ld, add64] = names;
        let text = format!(
            "v_mov_b32_e32 v1, 0
             {ld8} v4, v1, s[2:3] offset:1
             {ld16} v5, v1, s[2:3] offset:2
             s_nop 0
             {st8} v1, v10, s[2:3] offset:16
             {st16} v1, v10, s[2:3] offset:18
             {ld128} v[12:15], v1, s[2:3]
             s_nop 0
             {add} v1, v11, s[2:3] offset:32
             {cas} v6, v1, v[8:9], s[2:3] offset:36 {rtn}
             {flat_ld} v7, v[2:3] offset:4
             s_nop 0
             {add64} v1, v[8:9], s[2:3] offset:40
             s_waitcnt vmcnt(0) lgkmcnt(0)"
        );
        let mut mem = GlobalMemory::new();
        let buf = mem.alloc(64, 64);
        mem.write(buf, &[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 9, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        mem.write(buf + 36, &7u32.to_le_bytes()).unwrap();
        let mut s = WaveSim::new(t, 16, 8, 0);
        s.set_exec(0b11);
        for lane in 0..2 {
            s.set_vgpr(2, lane, buf as u32).unwrap();
            s.set_vgpr(3, lane, (buf >> 32) as u32).unwrap();
            s.set_vgpr(8, lane, 100 + lane).unwrap(); // cmpswap: new value
            s.set_vgpr(9, lane, 7).unwrap(); // cmpswap: compare
            s.set_vgpr(10, lane, 0xABCD_EF01).unwrap();
            s.set_vgpr(11, lane, 5).unwrap();
        }
        s.set_sgpr(2, buf as u32).unwrap();
        s.set_sgpr(3, (buf >> 32) as u32).unwrap();
        s.run(&asm(&text, t), &mut mem).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(s.vgpr(4, 0).unwrap(), 0x22, "{t} ubyte zero-extends");
        assert_eq!(s.vgpr(5, 0).unwrap(), 0x4433, "{t} ushort zero-extends");
        assert_eq!(s.vgpr(12, 1).unwrap(), 0x4433_2211);
        assert_eq!(s.vgpr(14, 1).unwrap(), 9);
        assert_eq!(s.vgpr(7, 0).unwrap(), 0x8877_6655, "{t} flat load");
        // Lane 0's compare matches 7 and stores 100; lane 1 then sees 100 and fails.
        assert_eq!((s.vgpr(6, 0).unwrap(), s.vgpr(6, 1).unwrap()), (7, 100), "{t} cmpswap returns");
        let word = |off: u64| {
            let b = mem.read(buf + off, 4).unwrap();
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        assert_eq!(word(16), 0xEF01_0001, "{t} byte store at 16, short store at 18");
        assert_eq!(word(32), 10, "{t} non-returning add from two lanes");
        assert_eq!(word(36), 100, "{t} cmpswap stored");
        // 64-bit add of {100 + lane, 7} twice into the zeroed qword at 40.
        assert_eq!((word(40), word(44)), (201, 14), "{t} 64-bit atomic add");
    }
}

#[test]
fn cycle_estimates_follow_the_7_1_table() {
    use qd_amdgcn_sim::CostTable;
    // gfx942 baseline shuffle: A (address VALU) + B (ds_bpermute incl. wait) = 54.
    let mut s = wave(G942);
    let mut mem = GlobalMemory::new();
    let stats = s
        .run(&asm("v_lshlrev_b32_e32 v1, 2, v0\nds_bpermute_b32 v2, v1, v3\ns_waitcnt lgkmcnt(0)", G942), &mut mem)
        .unwrap();
    assert_eq!(stats.est_cycles, 54);
    // gfx1100 wave64 full-wave emulation E = permlane64 + B + v_cndmask = 65.
    let mut s = wave(G1100);
    let text = "v_permlane64_b32 v4, v3\nds_bpermute_b32 v2, v1, v3\ns_waitcnt lgkmcnt(0)\nv_cndmask_b32_e64 v2, v2, v4, s[4:5]";
    let stats = s.run(&asm(text, G1100), &mut mem).unwrap();
    assert_eq!(stats.est_cycles, 65);
    assert_eq!(CostTable::for_target(G1100).lds_swizzle, 40);
    assert_eq!(CostTable::for_target(G942).valu, 4);
    assert_eq!(CostTable::for_target(G1100).valu, 7);
}
