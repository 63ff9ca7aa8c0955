//! `Inst::new_for` picks the encoding form from the op's row on the target: for every op on every
//! target (gfx90a, gfx942, gfx1100 wave64 and wave32), operands built from the op's shape widths
//! give an instruction that passes `check`, encodes, and decodes back to itself; ops the target
//! lacks are rejected as unavailable. `Inst::new` keeps its GFX9-format default.

mod common;

use qd_amdgcn_isa::{decode, encode_all, Form, Format, Inst, Op, Operand, Shape, SoppImm};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};

fn v(first: u16, width: u8) -> Operand {
    Operand::vr(first, width)
}

fn s(first: u16, width: u8) -> Operand {
    Operand::sr(first, width)
}

/// Operands that fit `op`'s shape on `t` in every form: VGPRs for vector operands and VALU
/// sources (so src1 is legal in the 32-bit encoding and DPP would be too), the wave's `vcc` for
/// lane masks (the 32-bit encodings imply it), SGPR tuples aligned to their width, at most one
/// scalar source per VALU op (the GFX9 constant bus), registers aligned for GFX9 VGPR tuples.
fn operands(op: Op, t: Target) -> Vec<Operand> {
    let vcc = match t.wave {
        WaveSize::W64 => Operand::Vcc,
        WaveSize::W32 => Operand::VccLo,
    };
    match op.info().shape {
        Shape::Sop1 { d, s: w } => vec![s(0, d), s(4, w)],
        Shape::Sop1Dst { d } => vec![s(0, d)],
        Shape::Sop1Src { s: w } => vec![s(4, w)],
        Shape::Sop2 { d, s0, s1 } => vec![s(0, d), s(4, s0), s(8, s1)],
        Shape::Sopk | Shape::SopkCmp => vec![s(0, 1)],
        Shape::SopkWaitcnt => vec![Operand::Null],
        Shape::Sopc { s: w } => vec![s(0, w), s(4, w)],
        Shape::Sopp(_) | Shape::SmemNone | Shape::Vop1None | Shape::CacheCtl => vec![],
        Shape::SmemLoad { d, base } => vec![s(16, d), s(4, base)],
        Shape::SmemDst { d } => vec![s(0, d)],
        Shape::Vop1 { d, s: w } => vec![v(0, d), v(4, w)],
        Shape::Vop1Sdst => vec![s(0, 1), v(4, 1)],
        Shape::Vop2 { d, s0, s1 } | Shape::Vop3 { d, s0, s1 } => vec![v(0, d), v(4, s0), v(8, s1)],
        Shape::Vop2Tied => vec![v(0, 1), v(4, 1), v(8, 1)],
        Shape::Vop2Cndmask => vec![v(0, 1), v(4, 1), v(8, 1), vcc],
        Shape::Vop2CarryOut => vec![v(0, 1), vcc, v(4, 1), v(8, 1)],
        Shape::Vop2CarryInOut => vec![v(0, 1), vcc, v(4, 1), v(8, 1), vcc],
        Shape::Vopc { s: w } => vec![vcc, v(4, w), v(8, w)],
        Shape::VopcX { s: w } => match t.family() {
            Family::Gfx9 => vec![vcc, v(4, w), v(8, w)],
            Family::Gfx11 => vec![v(4, w), v(8, w)],
        },
        Shape::Vop3Three { d, s0, s1, s2 } => vec![v(0, d), v(4, s0), v(8, s1), v(12, s2)],
        Shape::Vop3bMad => vec![v(0, 2), vcc, v(4, 1), v(5, 1), v(8, 2)],
        Shape::Vop3bDivScale { s: w } => vec![v(0, w), vcc, v(4, w), v(8, w), v(12, w)],
        Shape::VopcClass { s: w } => vec![vcc, v(4, w), v(8, 1)],
        Shape::Readlane => vec![s(0, 1), v(4, 1), s(2, 1)],
        Shape::Writelane => vec![v(0, 1), s(2, 1), Operand::Int(3)],
        Shape::Permlane => vec![v(0, 1), v(4, 1), s(2, 1), s(3, 1)],
        Shape::DsLoad { d } => vec![v(0, d), v(8, 1)],
        Shape::DsLoad2 { d } => vec![v(0, 2 * d), v(8, 1)],
        Shape::DsStore { s: w } | Shape::DsAtomic { s: w } => vec![v(8, 1), v(0, w)],
        Shape::DsAtomicRtn { s: w } => vec![v(0, w), v(8, 1), v(4, w)],
        Shape::DsCmpstRtn { s: w } => vec![v(0, w), v(8, 1), v(4, w), v(6, w)],
        Shape::DsSwizzle => vec![v(0, 1), v(8, 1)],
        Shape::DsAddtid => vec![v(0, 1)],
        Shape::FlatLoad { d } | Shape::GlobalLoad { d } => vec![v(0, d), v(8, 2)],
        Shape::FlatStore { s: w } | Shape::GlobalStore { s: w } => vec![v(8, 2), v(0, w)],
        Shape::GlobalAtomic { s: w } => vec![v(0, w), v(8, 2), v(4, w)],
        Shape::GlobalAtomicCas { s: w } => vec![v(0, w), v(8, 2), v(4, 2 * w)],
    }
}

/// `Inst::new_for` with the immediate a few SOPP kinds need to be meaningful.
fn build(op: Op, t: Target) -> Inst {
    let inst = Inst::new_for(t, op, &operands(op, t));
    match op.info().shape {
        // Message 0 is not one the assembler spells; 1 is MSG_INTERRUPT on every family.
        Shape::Sopp(SoppImm::Sendmsg) => inst.imm(1),
        _ => inst,
    }
}

#[test]
fn new_for_builds_a_legal_instruction_for_every_op_on_every_target() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for t in common::targets() {
        for &op in Op::ALL {
            let inst = build(op, t);
            if !op.available(t.arch) {
                match inst.check(t) {
                    Err(e) if e.reason.contains("not available") => {}
                    other => failures.push(format!("{t}: {op:?} is not on the arch but check gave {other:?}")),
                }
                continue;
            }
            checked += 1;
            let bytes = match encode_all(&[inst], t) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{t}: {op:?} {:?}: {e}", inst.form));
                    continue;
                }
            };
            match decode(&bytes, t) {
                Ok((back, size)) if back == inst && size == bytes.len() => {}
                Ok((back, _)) => failures.push(format!("{t}: {op:?}: decodes to {back:?}, built {inst:?}")),
                Err(e) => failures.push(format!("{t}: {op:?}: decode: {e}")),
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} of {checked} (op, target) pairs fail", failures.len());
    // 309 ops, most on every target: the loop must really have covered the table.
    assert!(checked > 3 * Op::ALL.len(), "only {checked} available (op, target) pairs");
}

#[test]
fn new_for_form_follows_the_targets_format() {
    for t in common::targets() {
        for &op in Op::ALL {
            let Some(enc) = op.enc(t.arch) else { continue };
            let form = Inst::new_for(t, op, &[]).form;
            let expected: &[Form] = match enc.format {
                Format::Vop1 | Format::Vop2 | Format::Vopc => &[Form::E32],
                Format::Vop3 => &[Form::Native, Form::E64],
                _ => &[Form::Native],
            };
            assert!(expected.contains(&form), "{t}: {op:?} ({:?}) got {form:?}", enc.format);
            // On GFX9 the target's row is the GFX9 row, so the two constructors agree.
            if t.family() == Family::Gfx9 {
                assert_eq!(form, Inst::new(op, &[]).form, "{t}: {op:?}");
            }
        }
    }
}

#[test]
fn carry_ops_need_no_e64_on_gfx1100() {
    let g11 = Target::wave64(Arch::Gfx1100);
    let g942 = Target::wave64(Arch::Gfx942);
    for op in [Op::VAddCoU32, Op::VSubCoU32, Op::VSubrevCoU32] {
        let ops = [Operand::v(0), Operand::Vcc, Operand::v(1), Operand::v(2)];
        // The GFX9-format default is the 32-bit VOP2 form, which gfx1100 does not have ...
        let gfx9_default = Inst::new(op, &ops);
        assert_eq!(gfx9_default.form, Form::E32);
        let err = gfx9_default.check(g11).expect_err("VOP2 form on gfx1100");
        assert!(err.reason.contains("no 32-bit encoding"), "{err}");
        // ... new_for picks the VOP3 form there, identical to the manual `.e64()`,
        let picked = Inst::new_for(g11, op, &ops);
        assert_eq!(picked, gfx9_default.e64());
        picked.check(g11).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(picked.display(g11).to_string(), format!("{} v0, vcc, v1, v2", op.name(g11.arch)));
        // ... and the 32-bit form on GFX9.
        let gfx9 = Inst::new_for(g942, op, &ops);
        assert_eq!(gfx9, gfx9_default);
        assert_eq!(gfx9.display(g942).to_string(), format!("{}_e32 v0, vcc, v1, v2", op.name(g942.arch)));
    }
}
