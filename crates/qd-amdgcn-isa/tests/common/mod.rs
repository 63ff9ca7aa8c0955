//! Shared test helpers: the targets, and a generator of random *legal* instructions (random op,
//! form, operands, DPP, modifiers, immediates and cache bits, kept only when `Inst::check`
//! accepts them) driven by a seed, used by the round-trip proptests and the llvm-mc cross-check.

#![allow(dead_code)]

use qd_amdgcn_isa::{
    flags, Cache, Dpp16, Dpp8, DppCtrl, Form, InlineFloat, Inst, Mods, Op, Operand, Shape, SoppImm, Swizzle, Waitcnt,
};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

/// Every target qd supports.
pub fn targets() -> Vec<Target> {
    vec![
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ]
}

/// The llvm-mc flags of a target.
pub fn mc_flags(t: Target) -> Vec<String> {
    let mut v = vec!["-arch=amdgcn".to_string(), format!("-mcpu={}", t.arch.name())];
    if t.arch == Arch::Gfx1100 {
        v.push(format!("-mattr=+wavefrontsize{}", t.wave.lanes()));
    }
    v
}

/// A small deterministic PRNG (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0.max(1);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

fn reg_first(rng: &mut Rng, w: u8, max: u16) -> u16 {
    let align = if w >= 4 { 4 } else { u16::from(w.min(2)) };
    let top = (max + 1).saturating_sub(u16::from(w));
    (rng.below(u64::from(top / align) + 1) as u16 * align).min(top)
}

/// A random operand of width `w` of any kind.
pub fn any_operand(rng: &mut Rng, w: u8, t: Target) -> Operand {
    let max_s = if t.arch == Arch::Gfx1100 { 105 } else { 101 };
    match rng.below(12) {
        0..=3 => Operand::vr(reg_first(rng, w, 255), w),
        4..=5 => Operand::sr(reg_first(rng, w, max_s), w),
        6 => Operand::Int(rng.below(81) as i8 - 16),
        7 => Operand::Float(rng.pick(&InlineFloat::ALL)),
        8 => Operand::imm32(rng.next() as u32 | 0x100),
        9 => {
            if w == 2 {
                rng.pick(&[Operand::Vcc, Operand::Exec])
            } else {
                rng.pick(&[Operand::VccLo, Operand::VccHi, Operand::ExecLo, Operand::ExecHi, Operand::M0, Operand::Scc])
            }
        }
        10 => Operand::Null,
        _ => {
            if t.wave == WaveSize::W64 {
                Operand::Vcc
            } else {
                Operand::VccLo
            }
        }
    }
}

fn vgpr(rng: &mut Rng, w: u8) -> Operand {
    Operand::vr(reg_first(rng, w, 255), w)
}

fn sgpr(rng: &mut Rng, w: u8, t: Target) -> Operand {
    Operand::sr(reg_first(rng, w, if t.arch == Arch::Gfx1100 { 105 } else { 101 }), w)
}

fn mask(rng: &mut Rng, t: Target) -> Operand {
    let w = t.wave.mask_sgprs();
    if rng.chance(30) {
        if w == 2 {
            Operand::Vcc
        } else {
            Operand::VccLo
        }
    } else if rng.chance(10) {
        Operand::Null
    } else {
        sgpr(rng, w, t)
    }
}

fn src(rng: &mut Rng, w: u8, t: Target) -> Operand {
    if rng.chance(55) {
        vgpr(rng, w)
    } else {
        any_operand(rng, w, t)
    }
}

fn ctrl(rng: &mut Rng) -> DppCtrl {
    let n = rng.below(16) as u8;
    match rng.below(12) {
        0 => DppCtrl::QuadPerm(std::array::from_fn(|_| rng.below(4) as u8)),
        1 => DppCtrl::RowShl(n.max(1)),
        2 => DppCtrl::RowShr(n.max(1)),
        3 => DppCtrl::RowRor(n.max(1)),
        4 => rng.pick(&[DppCtrl::WaveShl1, DppCtrl::WaveRol1, DppCtrl::WaveShr1, DppCtrl::WaveRor1]),
        5 => DppCtrl::RowMirror,
        6 => DppCtrl::RowHalfMirror,
        7 => rng.pick(&[DppCtrl::RowBcast15, DppCtrl::RowBcast31]),
        8 | 9 => DppCtrl::RowShare(n),
        _ => DppCtrl::RowXmask(n),
    }
}

/// Operands for a shape (assembler order), random but mostly plausible.
fn operands(rng: &mut Rng, op: Op, t: Target, vop3: bool) -> Vec<Operand> {
    let m = |rng: &mut Rng| {
        if vop3 {
            mask(rng, t)
        } else if t.wave == WaveSize::W64 {
            Operand::Vcc
        } else {
            Operand::VccLo
        }
    };
    match op.info().shape {
        Shape::Sop1 { d, s } => vec![any_operand(rng, d, t), any_operand(rng, s, t)],
        Shape::Sop1Dst { d } => vec![sgpr(rng, d, t)],
        Shape::Sop1Src { s } => vec![sgpr(rng, s, t)],
        Shape::Sop2 { d, s0, s1 } => vec![sgpr(rng, d, t), any_operand(rng, s0, t), any_operand(rng, s1, t)],
        Shape::Sopk | Shape::SopkCmp => vec![sgpr(rng, 1, t)],
        Shape::SopkWaitcnt => vec![Operand::Null],
        Shape::Sopc { s } => vec![any_operand(rng, s, t), any_operand(rng, s, t)],
        Shape::Sopp(_) | Shape::SmemNone | Shape::Vop1None | Shape::CacheCtl => vec![],
        Shape::SmemLoad { d, base } => {
            let off = if rng.chance(40) { sgpr(rng, 1, t) } else { Operand::None };
            vec![sgpr(rng, d, t), sgpr(rng, base, t), off]
        }
        Shape::SmemDst { d } => vec![sgpr(rng, d, t)],
        Shape::Vop1 { d, s } => vec![vgpr(rng, d), src(rng, s, t)],
        Shape::Vop1Sdst => vec![any_operand(rng, 1, t), vgpr(rng, 1)],
        Shape::Vop2 { d, s0, s1 } | Shape::Vop3 { d, s0, s1 } => vec![vgpr(rng, d), src(rng, s0, t), src(rng, s1, t)],
        Shape::Vop2Tied => vec![vgpr(rng, 1), src(rng, 1, t), src(rng, 1, t)],
        Shape::Vop2Cndmask => vec![vgpr(rng, 1), src(rng, 1, t), src(rng, 1, t), m(rng)],
        Shape::Vop2CarryOut => vec![vgpr(rng, 1), m(rng), src(rng, 1, t), src(rng, 1, t)],
        Shape::Vop2CarryInOut => vec![vgpr(rng, 1), m(rng), src(rng, 1, t), src(rng, 1, t), m(rng)],
        Shape::Vopc { s } => vec![m(rng), src(rng, s, t), src(rng, s, t)],
        Shape::VopcX { s } if t.arch == Arch::Gfx1100 => vec![src(rng, s, t), src(rng, s, t)],
        Shape::VopcX { s } => vec![m(rng), src(rng, s, t), src(rng, s, t)],
        Shape::Vop3Three { d, s0, s1, s2 } => {
            vec![vgpr(rng, d), src(rng, s0, t), src(rng, s1, t), src(rng, s2, t)]
        }
        Shape::Vop3bMad => vec![vgpr(rng, 2), mask(rng, t), src(rng, 1, t), src(rng, 1, t), src(rng, 2, t)],
        Shape::Vop3bDivScale { s } => vec![vgpr(rng, s), mask(rng, t), src(rng, s, t), src(rng, s, t), src(rng, s, t)],
        Shape::VopcClass { s } => vec![m(rng), src(rng, s, t), src(rng, 1, t)],
        Shape::Readlane => vec![any_operand(rng, 1, t), vgpr(rng, 1), any_operand(rng, 1, t)],
        Shape::Writelane => vec![vgpr(rng, 1), any_operand(rng, 1, t), any_operand(rng, 1, t)],
        Shape::Permlane => vec![vgpr(rng, 1), vgpr(rng, 1), any_operand(rng, 1, t), any_operand(rng, 1, t)],
        Shape::DsLoad { d } => vec![vgpr(rng, d), vgpr(rng, 1)],
        Shape::DsLoad2 { d } => vec![vgpr(rng, 2 * d), vgpr(rng, 1)],
        Shape::DsStore { s } | Shape::DsAtomic { s } => vec![vgpr(rng, 1), vgpr(rng, s)],
        Shape::DsAtomicRtn { s } => vec![vgpr(rng, s), vgpr(rng, 1), vgpr(rng, s)],
        Shape::DsCmpstRtn { s } => vec![vgpr(rng, s), vgpr(rng, 1), vgpr(rng, s), vgpr(rng, s)],
        Shape::DsSwizzle => vec![vgpr(rng, 1), vgpr(rng, 1)],
        Shape::DsAddtid => vec![vgpr(rng, 1)],
        Shape::FlatLoad { d } => vec![vgpr(rng, d), vgpr(rng, 2)],
        Shape::FlatStore { s } => vec![vgpr(rng, 2), vgpr(rng, s)],
        Shape::GlobalLoad { d } => {
            if rng.chance(50) {
                vec![vgpr(rng, d), vgpr(rng, 1), sgpr(rng, 2, t)]
            } else {
                vec![vgpr(rng, d), vgpr(rng, 2)]
            }
        }
        Shape::GlobalStore { s } => {
            if rng.chance(50) {
                vec![vgpr(rng, 1), vgpr(rng, s), sgpr(rng, 2, t)]
            } else {
                vec![vgpr(rng, 2), vgpr(rng, s)]
            }
        }
        Shape::GlobalAtomic { s } | Shape::GlobalAtomicCas { s } => {
            let dw = if matches!(op.info().shape, Shape::GlobalAtomicCas { .. }) { 2 * s } else { s };
            let dst = if rng.chance(50) { vgpr(rng, s) } else { Operand::None };
            if rng.chance(50) {
                vec![dst, vgpr(rng, 1), vgpr(rng, dw), sgpr(rng, 2, t)]
            } else {
                vec![dst, vgpr(rng, 2), vgpr(rng, dw)]
            }
        }
    }
}

fn imm_for(rng: &mut Rng, op: Op, t: Target) -> i32 {
    let fam = t.family();
    match op.info().shape {
        Shape::Sopp(SoppImm::Waitcnt) => {
            let w = Waitcnt { vm: rng.below(64) as u8, exp: rng.below(8) as u8, lgkm: rng.below(64) as u8 };
            i32::from(w.encode(fam))
        }
        Shape::Sopp(SoppImm::Branch) => rng.below(65536) as i32 - 32768,
        Shape::Sopp(SoppImm::DelayAlu) => {
            let id0 = rng.below(12);
            let skip = rng.below(6);
            let id1 = rng.below(12);
            (id0 | skip << 4 | id1 << 7) as i32
        }
        Shape::Sopp(SoppImm::Sendmsg) => rng.pick(&[1, 3]),
        Shape::Sopp(SoppImm::Imm) if op == Op::SClause => rng.below(64) as i32,
        Shape::Sopp(SoppImm::None) => 0,
        Shape::Sopp(_) | Shape::SopkWaitcnt => rng.below(65536) as i32,
        Shape::Sopk | Shape::SopkCmp => rng.below(65536) as i32 - 32768,
        Shape::SmemLoad { base: 4, .. } => rng.below(0x10_0000) as i32,
        Shape::SmemLoad { .. } => {
            if rng.chance(30) {
                0
            } else {
                rng.below(0x20_0000) as i32 - 0x10_0000
            }
        }
        Shape::DsLoad2 { .. } => rng.below(256) as i32,
        Shape::DsSwizzle => {
            if rng.chance(50) {
                i32::from(Swizzle::QuadPerm(std::array::from_fn(|_| rng.below(4) as u8)).encode())
            } else {
                rng.below(65536) as i32
            }
        }
        Shape::DsLoad { .. }
        | Shape::DsStore { .. }
        | Shape::DsAtomic { .. }
        | Shape::DsAtomicRtn { .. }
        | Shape::DsCmpstRtn { .. }
        | Shape::DsAddtid => rng.below(65536) as i32,
        Shape::FlatLoad { .. } | Shape::FlatStore { .. } => rng.below(4096) as i32,
        Shape::GlobalLoad { .. }
        | Shape::GlobalStore { .. }
        | Shape::GlobalAtomic { .. }
        | Shape::GlobalAtomicCas { .. } => rng.below(8192) as i32 - 4096,
        _ => 0,
    }
}

/// One random instruction candidate (may be illegal).
pub fn candidate(rng: &mut Rng, t: Target) -> Inst {
    let ops: Vec<Op> = Op::ALL.iter().copied().filter(|o| o.available(t.arch)).collect();
    let op = rng.pick(&ops);
    let vop3 = rng.chance(40);
    let mut inst = Inst::new(op, &operands(rng, op, t, vop3));
    if vop3 {
        inst.form = if inst.form == Form::Native { Form::Native } else { Form::E64 };
    }
    inst.imm = imm_for(rng, op, t);
    if matches!(op.info().shape, Shape::DsLoad2 { .. }) {
        inst.imm1 = rng.below(256) as u8;
    }
    if op.has(flags::DPP) || op.has(flags::VOP3_DPP) || op == Op::VMovB64 {
        match rng.below(10) {
            0..=2 => {
                inst.dpp = qd_amdgcn_isa::Dpp::Dpp16(Dpp16 {
                    ctrl: ctrl(rng),
                    row_mask: rng.below(16) as u8,
                    bank_mask: rng.below(16) as u8,
                    bound_ctrl: rng.chance(50),
                    fi: rng.chance(30),
                });
            }
            3 => {
                inst.dpp = qd_amdgcn_isa::Dpp::Dpp8(Dpp8 {
                    sel: std::array::from_fn(|_| rng.below(8) as u8),
                    fi: rng.chance(30),
                })
            }
            _ => {}
        }
    }
    if op.has(flags::FLOAT) && rng.chance(40) {
        inst.mods = Mods {
            neg: rng.below(8) as u8,
            abs: rng.below(8) as u8,
            clamp: rng.chance(30),
            omod: rng.below(4) as u8,
            op_sel: 0,
        };
    }
    if matches!(op.info().shape, Shape::Permlane) {
        inst.mods.op_sel = rng.below(4) as u8;
    }
    if rng.chance(40) {
        inst.cache =
            Cache { glc_sc0: rng.chance(50), slc_nt: rng.chance(50), sc1: rng.chance(50), dlc: rng.chance(50) };
    }
    inst
}

/// A random legal instruction (retrying candidates until one checks).
pub fn legal(rng: &mut Rng, t: Target) -> Inst {
    for _ in 0..10_000 {
        let mut inst = candidate(rng, t);
        if inst.check(t).is_ok() {
            return inst;
        }
        // Shrink the usual reasons for rejection and retry the same op once.
        inst.mods = Mods { op_sel: inst.mods.op_sel, ..Mods::default() };
        inst.cache = Cache::default();
        if inst.check(t).is_ok() {
            return inst;
        }
    }
    Inst::new(Op::SNop, &[])
}
