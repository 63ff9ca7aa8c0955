//! A straight-line collective sequence over *symbolic* registers ([`Seq`]), rendered two ways
//! from one description: as an ISA listing over placeholder registers (what
//! [`super::estimate`] prices and the catalog prints) and as the steps of one `MInst` over
//! virtual registers (what the kernel really gets). Building a candidate once and rendering it
//! twice is what guarantees that the sequence the selector costs is the sequence it emits.
//!
//! Registers are numbered; a register may be written several times (in place): in the `MInst`
//! every write of a register is a write of the same early def, so `v = v ⊕ dpp(v)` ladders and
//! DPP writes whose disabled lanes keep the previous contents work as on the hardware. A register
//! must be written before it is read, except the *external* ones (the input value, the saved
//! EXEC, a head mask), which are uses defined before the sequence.
//!
//! [`combine`] is the group operator as VALU steps, bit-identical to `qd_mir::eval::combine` on
//! every type (the left operand is `a`): integers wrap; 64-bit `add` is a carry pair and 64-bit
//! `mul` the low 64 bits built from 32-bit pieces; float `add`/`mul` take `a` as src0 so the NaN
//! that propagates is the same one; float `min`/`max` are compare-and-select sequences with the
//! interpreter's rules (equal values: bits OR / AND, so `min(+0, -0) = -0`; one NaN: the other
//! operand, untouched; two NaNs: `b`) instead of `v_min`/`v_max`, which quiet signalling NaNs.
//! It may clobber VCC.

use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use qd_amdgcn_isa::{Dpp16, DppCtrl, Inst, Op, Operand, RegRange};
use qd_amdgcn_isa::{Family, Target, WaveSize};
use qd_amdgcn_sim::access::{access, Access, SRange, VRegs};
use qd_amdgcn_sim::hazard::Tracker;
use qd_amdgcn_sim::ops::{self, sem, Sem};

/// A register of a [`Seq`].
pub(crate) type R = u16;

/// The class of a [`Seq`] register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// One VGPR.
    V,
    /// An aligned VGPR pair.
    W,
    /// One SGPR.
    S,
}

/// What fills one operand slot of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// A fixed operand (constant, `vcc`, `exec`).
    K(Operand),
    /// Read a register (whole).
    U(R),
    /// Read the low half of a pair.
    UL(R),
    /// Read the high half of a pair.
    UH(R),
    /// Write a register (whole).
    D(R),
    /// Write the low half of a pair.
    DL(R),
    /// Write the high half of a pair.
    DH(R),
    /// Read an SGPR pair made of two SGPR registers (lo, hi).
    SPair(R, R),
}

impl Arg {
    /// The use of a 32-bit part of a value register (`V`: whole, `W`: half `k`).
    fn part_use(class: Class, r: R, k: usize) -> Arg {
        match (class, k) {
            (Class::W, 0) => Arg::UL(r),
            (Class::W, _) => Arg::UH(r),
            _ => Arg::U(r),
        }
    }

    /// The def of a 32-bit part of a value register.
    fn part_def(class: Class, r: R, k: usize) -> Arg {
        match (class, k) {
            (Class::W, 0) => Arg::DL(r),
            (Class::W, _) => Arg::DH(r),
            _ => Arg::D(r),
        }
    }
}

/// A straight-line sequence over symbolic registers (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Seq {
    /// The target it is built for.
    pub target: Target,
    /// Class of every register.
    pub regs: Vec<Class>,
    /// Placeholder physical register of the external registers (None: a temporary).
    pub ext: Vec<Option<u16>>,
    /// The steps: template and one argument per leading operand slot.
    pub steps: Vec<(Inst, Vec<Arg>)>,
    /// Float min/max scratch, per value class (created on first use, reused by every combine).
    scratch: [Option<[R; 4]>; 2],
}

impl Seq {
    /// An empty sequence.
    pub(crate) fn new(target: Target) -> Seq {
        Seq { target, regs: Vec::new(), ext: Vec::new(), steps: Vec::new(), scratch: [None, None] }
    }

    /// True for wave64.
    pub(crate) fn wave64(&self) -> bool {
        self.target.wave == WaveSize::W64
    }

    /// `vcc` or `vcc_lo`.
    pub(crate) fn vcc(&self) -> Operand {
        self.target.wave.vcc()
    }

    /// An external register (defined before the sequence) with its placeholder.
    pub(crate) fn external(&mut self, class: Class, placeholder: u16) -> R {
        self.regs.push(class);
        self.ext.push(Some(placeholder));
        (self.regs.len() - 1) as R
    }

    /// A fresh temporary.
    pub(crate) fn temp(&mut self, class: Class) -> R {
        self.regs.push(class);
        self.ext.push(None);
        (self.regs.len() - 1) as R
    }

    /// The class of a register.
    pub(crate) fn class(&self, r: R) -> Class {
        self.regs[r as usize]
    }

    /// Number of 32-bit parts of a value register.
    pub(crate) fn parts(&self, r: R) -> usize {
        if self.class(r) == Class::W {
            2
        } else {
            1
        }
    }

    /// Part `k` of `r` as a use.
    pub(crate) fn pu(&self, r: R, k: usize) -> Arg {
        Arg::part_use(self.class(r), r, k)
    }

    /// Part `k` of `r` as a def.
    pub(crate) fn pd(&self, r: R, k: usize) -> Arg {
        Arg::part_def(self.class(r), r, k)
    }

    /// Appends `op` in the target's own form.
    pub(crate) fn op(&mut self, op: Op, args: &[Arg]) {
        let inst = Inst::new_for(self.target, op, &[]);
        self.steps.push((inst, args.to_vec()));
    }

    /// Appends `op` in its VOP3 (`_e64`) form.
    pub(crate) fn op64(&mut self, op: Op, args: &[Arg]) {
        let inst = Inst::new_for(self.target, op, &[]).e64();
        self.steps.push((inst, args.to_vec()));
    }

    /// Appends a prepared template.
    pub(crate) fn inst(&mut self, inst: Inst, args: &[Arg]) {
        self.steps.push((inst, args.to_vec()));
    }

    /// Appends `op` with a DPP16 modifier (src0 read through it).
    pub(crate) fn dpp(&mut self, op: Op, d: Dpp16, args: &[Arg]) {
        let inst = Inst::new_for(self.target, op, &[]).dpp16(d);
        self.steps.push((inst, args.to_vec()));
    }

    /// `dst = mov_dpp(src)` for every 32-bit part (`dst`'s disabled lanes keep their contents).
    pub(crate) fn mov_dpp(&mut self, d: Dpp16, dst: R, src: R) {
        for k in 0..self.parts(src) {
            let (a, b) = (self.pd(dst, k), self.pu(src, k));
            self.dpp(Op::VMovB32, d, &[a, b]);
        }
    }

    /// Sets VCC to a constant lane mask.
    pub(crate) fn vcc_mask(&mut self, mask: u64) {
        self.op(Op::SMovB32, &[Arg::K(Operand::VccLo), Arg::K(Operand::imm32(mask as u32))]);
        if self.wave64() {
            self.op(Op::SMovB32, &[Arg::K(Operand::VccHi), Arg::K(Operand::imm32((mask >> 32) as u32))]);
        }
    }

    /// `d = VCC ? tr : f` per part (VOP2 `v_cndmask_b32`).
    pub(crate) fn select_vcc(&mut self, d: R, f: R, tr: R) {
        let vcc = Arg::K(self.vcc());
        for k in 0..self.parts(d) {
            let (dd, ff, tt) = (self.pd(d, k), self.pu(f, k), self.pu(tr, k));
            self.op(Op::VCndmaskB32, &[dd, ff, tt, vcc]);
        }
    }

    /// Every register's placeholder for the listing: externals as given (the input at v10 or
    /// v[10:11], SGPRs s20..s23), VGPR temporaries from v12 (pairs aligned), SGPR temporaries
    /// from s24 — so temporaries never meet an external.
    fn placeholders(&self) -> Vec<u16> {
        let (mut v, mut s) = (12u16, 24u16);
        let mut out = Vec::with_capacity(self.regs.len());
        for (i, c) in self.regs.iter().enumerate() {
            if let Some(p) = self.ext[i] {
                out.push(p);
                continue;
            }
            match c {
                Class::V => {
                    out.push(v);
                    v += 1;
                }
                Class::W => {
                    v += v & 1;
                    out.push(v);
                    v += 2;
                }
                Class::S => {
                    out.push(s);
                    s += 1;
                }
            }
        }
        out
    }

    /// The placeholder operand of register `r` (whole).
    pub(crate) fn placeholder(&self, r: R) -> Operand {
        let ph = self.placeholders();
        self.operand(&ph, r, None)
    }

    fn operand(&self, ph: &[u16], r: R, half: Option<u16>) -> Operand {
        let p = ph[r as usize];
        match (self.class(r), half) {
            (Class::S, _) => Operand::s(p),
            (Class::V, _) => Operand::v(p),
            (Class::W, None) => Operand::Vgpr(RegRange::pair(p)),
            (Class::W, Some(h)) => Operand::v(p + h),
        }
    }

    /// The sequence over placeholder registers.
    pub(crate) fn listing(&self) -> Vec<Inst> {
        let ph = self.placeholders();
        self.steps
            .iter()
            .map(|(inst, args)| {
                let mut i = *inst;
                for (slot, a) in args.iter().enumerate() {
                    i.operands[slot] = match *a {
                        Arg::K(o) => o,
                        Arg::U(r) | Arg::D(r) => self.operand(&ph, r, None),
                        Arg::UL(r) | Arg::DL(r) => self.operand(&ph, r, Some(0)),
                        Arg::UH(r) | Arg::DH(r) => self.operand(&ph, r, Some(1)),
                        Arg::SPair(lo, _) => Operand::s2(ph[lo as usize]),
                    };
                }
                i
            })
            .collect()
    }
}

/// True when `op` on `ty` is one VOP2 instruction that takes DPP on src0 on every target
/// (32-bit integer add/min/max/and/or/xor, f32 add/mul).
pub(crate) fn fusable(op: GroupOp, ty: ScalarType) -> Option<Op> {
    let signed = ty == ScalarType::I32;
    match (op, ty) {
        (GroupOp::Add, ScalarType::F32) => Some(Op::VAddF32),
        (GroupOp::Mul, ScalarType::F32) => Some(Op::VMulF32),
        (GroupOp::Min | GroupOp::Max | GroupOp::And | GroupOp::Or | GroupOp::Xor, ScalarType::F32) => None,
        (_, ScalarType::F64 | ScalarType::I64 | ScalarType::U64) => None,
        (GroupOp::Add, _) => Some(Op::VAddU32),
        (GroupOp::Mul, _) => None,
        (GroupOp::Min, _) => Some(if signed { Op::VMinI32 } else { Op::VMinU32 }),
        (GroupOp::Max, _) => Some(if signed { Op::VMaxI32 } else { Op::VMaxU32 }),
        (GroupOp::And, _) => Some(Op::VAndB32),
        (GroupOp::Or, _) => Some(Op::VOrB32),
        (GroupOp::Xor, _) => Some(Op::VXorB32),
    }
}

/// True for the bitwise operators, which also fuse per 32-bit half of a 64-bit value.
pub(crate) fn bitwise(op: GroupOp) -> Option<Op> {
    match op {
        GroupOp::And => Some(Op::VAndB32),
        GroupOp::Or => Some(Op::VOrB32),
        GroupOp::Xor => Some(Op::VXorB32),
        GroupOp::Add | GroupOp::Mul | GroupOp::Min | GroupOp::Max => None,
    }
}

/// A DPP16 control with full masks and bound_ctrl 0 (invalid lanes are not written).
pub(crate) fn dpp(ctrl: DppCtrl) -> Dpp16 {
    Dpp16::new(ctrl)
}

/// A DPP16 control with a row and a bank mask.
pub(crate) fn dpp_masked(ctrl: DppCtrl, row_mask: u8, bank_mask: u8) -> Dpp16 {
    Dpp16 { row_mask, bank_mask, ..Dpp16::new(ctrl) }
}

/// Appends `d = a ⊕ b` (see the module docs); `d` may be `a` or `b`.
pub(crate) fn combine(s: &mut Seq, op: GroupOp, ty: ScalarType, d: R, a: R, b: R) {
    let vcc = Arg::K(s.vcc());
    if s.class(d) == Class::W {
        return combine64(s, op, ty, d, a, b);
    }
    let (ua, ub, dd) = (Arg::U(a), Arg::U(b), Arg::D(d));
    let signed = ty == ScalarType::I32;
    match (op, ty) {
        (GroupOp::Add, ScalarType::F32) => s.op(Op::VAddF32, &[dd, ua, ub]),
        (GroupOp::Mul, ScalarType::F32) => s.op(Op::VMulF32, &[dd, ua, ub]),
        (GroupOp::Min | GroupOp::Max, ScalarType::F32) => {
            let max = op == GroupOp::Max;
            let [t1, t2, t3, o] = scratch(s, Class::V);
            let lt = if max { Op::VCmpGtF32 } else { Op::VCmpLtF32 };
            s.op(lt, &[vcc, ua, ub]);
            s.op(Op::VCndmaskB32, &[Arg::D(t1), ub, ua, vcc]);
            s.op(Op::VCmpUF32, &[vcc, ub, ub]);
            s.op(Op::VCndmaskB32, &[Arg::D(t2), Arg::U(t1), ua, vcc]);
            s.op(Op::VCmpUF32, &[vcc, ua, ua]);
            s.op(Op::VCndmaskB32, &[Arg::D(t3), Arg::U(t2), ub, vcc]);
            let bit = if max { Op::VAndB32 } else { Op::VOrB32 };
            s.op(bit, &[Arg::D(o), ua, ub]);
            s.op(Op::VCmpEqF32, &[vcc, ua, ub]);
            s.op(Op::VCndmaskB32, &[dd, Arg::U(t3), Arg::U(o), vcc]);
        }
        (GroupOp::Add, _) => s.op(Op::VAddU32, &[dd, ua, ub]),
        (GroupOp::Mul, _) => s.op(Op::VMulLoU32, &[dd, ua, ub]),
        (GroupOp::Min, _) => s.op(if signed { Op::VMinI32 } else { Op::VMinU32 }, &[dd, ua, ub]),
        (GroupOp::Max, _) => s.op(if signed { Op::VMaxI32 } else { Op::VMaxU32 }, &[dd, ua, ub]),
        (GroupOp::And, _) => s.op(Op::VAndB32, &[dd, ua, ub]),
        (GroupOp::Or, _) => s.op(Op::VOrB32, &[dd, ua, ub]),
        (GroupOp::Xor, _) => s.op(Op::VXorB32, &[dd, ua, ub]),
    }
}

/// The float min/max scratch registers of a class.
fn scratch(s: &mut Seq, class: Class) -> [R; 4] {
    let i = usize::from(class == Class::W);
    if let Some(r) = s.scratch[i] {
        return r;
    }
    let r = [s.temp(class), s.temp(class), s.temp(class), s.temp(class)];
    s.scratch[i] = Some(r);
    r
}

fn combine64(s: &mut Seq, op: GroupOp, ty: ScalarType, d: R, a: R, b: R) {
    let vcc = Arg::K(s.vcc());
    let sel = |s: &mut Seq, dst: R, f: R, tr: R| {
        s.op(Op::VCndmaskB32, &[Arg::DL(dst), Arg::UL(f), Arg::UL(tr), vcc]);
        s.op(Op::VCndmaskB32, &[Arg::DH(dst), Arg::UH(f), Arg::UH(tr), vcc]);
    };
    match (op, ty) {
        (GroupOp::Add, ScalarType::F64) => s.op(Op::VAddF64, &[Arg::D(d), Arg::U(a), Arg::U(b)]),
        (GroupOp::Mul, ScalarType::F64) => s.op(Op::VMulF64, &[Arg::D(d), Arg::U(a), Arg::U(b)]),
        (GroupOp::Min | GroupOp::Max, ScalarType::F64) => {
            let max = op == GroupOp::Max;
            let [t1, t2, t3, o] = scratch(s, Class::W);
            let lt = if max { Op::VCmpGtF64 } else { Op::VCmpLtF64 };
            s.op(lt, &[vcc, Arg::U(a), Arg::U(b)]);
            sel(s, t1, b, a);
            s.op(Op::VCmpUF64, &[vcc, Arg::U(b), Arg::U(b)]);
            sel(s, t2, t1, a);
            s.op(Op::VCmpUF64, &[vcc, Arg::U(a), Arg::U(a)]);
            sel(s, t3, t2, b);
            let bit = if max { Op::VAndB32 } else { Op::VOrB32 };
            s.op(bit, &[Arg::DL(o), Arg::UL(a), Arg::UL(b)]);
            s.op(bit, &[Arg::DH(o), Arg::UH(a), Arg::UH(b)]);
            s.op(Op::VCmpEqF64, &[vcc, Arg::U(a), Arg::U(b)]);
            sel(s, d, t3, o);
        }
        (GroupOp::Add, _) => {
            s.op(Op::VAddCoU32, &[Arg::DL(d), vcc, Arg::UL(a), Arg::UL(b)]);
            s.op(Op::VAddcCoU32, &[Arg::DH(d), vcc, Arg::UH(a), Arg::UH(b), vcc]);
        }
        (GroupOp::Mul, _) => {
            // lo = al·bl; hi = mulhi(al, bl) + al·bh + ah·bl (hi first: `d` may be `a` or `b`,
            // whose low halves are read last).
            let [h1, h2, h3, _] = scratch(s, Class::V);
            s.op(Op::VMulHiU32, &[Arg::D(h1), Arg::UL(a), Arg::UL(b)]);
            s.op(Op::VMulLoU32, &[Arg::D(h2), Arg::UL(a), Arg::UH(b)]);
            s.op(Op::VMulLoU32, &[Arg::D(h3), Arg::UH(a), Arg::UL(b)]);
            s.op(Op::VAddU32, &[Arg::D(h1), Arg::U(h1), Arg::U(h2)]);
            s.op(Op::VAddU32, &[Arg::DH(d), Arg::U(h1), Arg::U(h3)]);
            s.op(Op::VMulLoU32, &[Arg::DL(d), Arg::UL(a), Arg::UL(b)]);
        }
        (GroupOp::Min | GroupOp::Max, _) => {
            let signed = ty == ScalarType::I64;
            let c = match (op == GroupOp::Max, signed) {
                (false, true) => Op::VCmpLtI64,
                (false, false) => Op::VCmpLtU64,
                (true, true) => Op::VCmpGtI64,
                (true, false) => Op::VCmpGtU64,
            };
            s.op(c, &[vcc, Arg::U(a), Arg::U(b)]);
            sel(s, d, b, a);
        }
        (GroupOp::And | GroupOp::Or | GroupOp::Xor, _) => {
            let o = bitwise(op).unwrap_or(Op::VAndB32);
            s.op(o, &[Arg::DL(d), Arg::UL(a), Arg::UL(b)]);
            s.op(o, &[Arg::DH(d), Arg::UH(a), Arg::UH(b)]);
        }
    }
}

/// True when step `b` (after `a`) must stay after it: a register one writes and the other reads
/// or writes, EXEC written by either (every vector instruction reads it), two scalar
/// instructions (SCC), or two LDS instructions (their completion order is what the memory
/// waits count).
fn depends(a: (Sem, &Access), b: (Sem, &Access)) -> bool {
    let ((sa, aa), (sb, ab)) = (a, b);
    if aa.writes_exec() || ab.writes_exec() {
        return true;
    }
    if (ops::is_salu(sa) && ops::is_salu(sb)) || (ops::is_ds(sa) && ops::is_ds(sb)) {
        return true;
    }
    let over =
        |r: &RegRange, s: &RegRange| r.first < s.first + u16::from(s.len) && s.first < r.first + u16::from(r.len);
    let vv = |x: &VRegs, y: &VRegs| x.iter().any(|r| y.iter().any(|s| over(r, s)));
    // Called for every pair of a sequence's steps: no allocation here.
    let hits = |r: &SRange, y: &Access| y.sdefs.iter().any(|s| r.overlaps(*s));
    let reads_hit = |x: &Access, y: &Access| x.suses.iter().chain(x.simplicit.iter()).any(|r| hits(r, y));
    vv(&aa.vdefs, &ab.vuses)
        || vv(&aa.vdefs, &ab.vdefs)
        || vv(&aa.vuses, &ab.vdefs)
        || reads_hit(ab, aa)
        || aa.sdefs.iter().any(|r| hits(r, ab))
        || reads_hit(aa, ab)
}

impl Seq {
    /// GFX9 wait-state scheduling: reorders the steps, keeping every dependence
    /// ([`depends`]), so that fewer `s_nop`s are needed — independent work (the other half of a
    /// 64-bit value, a compare on another chain, a mask or identity set-up) issues in the wait
    /// states a dependent DPP, lane-select or VCC read would otherwise spend idle. Greedy list
    /// scheduling in the hazard tracker of the simulator (the rules `hazard.rs` applies): at each
    /// point, among the ready steps of a window of the next unscheduled ones, the one needing
    /// the fewest wait states goes next, ties in the original order. `input` is the register a
    /// producer wrote right before the sequence (as [`super::super::estimate`] assumes). GFX11
    /// resolves its hazards with interlocks and `s_waitcnt_depctr`, so the order is kept there.
    pub(crate) fn schedule(&mut self, input: Operand) {
        if self.target.family() != Family::Gfx9 || self.steps.len() < 2 {
            return;
        }
        const WINDOW: usize = 12;
        let (family, lanes, arch) = (self.target.family(), self.target.wave.lanes(), self.target.arch);
        let list = self.listing();
        let info: Vec<(Sem, Access)> = list
            .iter()
            .map(|i| {
                let s = sem(i.op);
                (s, access(i, s, family, lanes))
            })
            .collect();
        let n = list.len();
        let mut preds = vec![0usize; n];
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for j in 0..n {
            for i in 0..j {
                if depends((info[i].0, &info[i].1), (info[j].0, &info[j].1)) {
                    preds[j] += 1;
                    succs[i].push(j);
                }
            }
        }
        let nop = Inst::new(Op::SNop, &[]).imm(0);
        let (nop_sem, nop_acc) = (sem(nop.op), access(&nop, sem(nop.op), family, lanes));
        let waits = |tr: &Tracker, k: usize| -> u32 {
            // Most steps need no wait state: check in place and clone the tracker only when one
            // does (cloning it for every trial was a third of the selector's compile time).
            if tr.check(arch, lanes, &list[k], info[k].0, &info[k].1).is_ok() {
                return 0;
            }
            let mut t = tr.clone();
            let mut w = 0;
            while w < 16 && t.check(arch, lanes, &list[k], info[k].0, &info[k].1).is_err() {
                t.record(family, lanes, &nop, nop_sem, &nop_acc, 0);
                w += 1;
            }
            w
        };
        let mut tr = Tracker::default();
        tr.set_quiet(true);
        let producer = Inst::new_for(self.target, Op::VMovB32, &[input, Operand::Int(0)]);
        let ps = sem(producer.op);
        tr.record(family, lanes, &producer, ps, &access(&producer, ps, family, lanes), 0);
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let mut best: Option<(u32, usize)> = None;
            for k in (0..n).filter(|&k| !done[k]).take(WINDOW) {
                if preds[k] > 0 {
                    continue;
                }
                let w = waits(&tr, k);
                if best.is_none_or(|(bw, _)| w < bw) {
                    best = Some((w, k));
                }
                if w == 0 {
                    // Nothing later in the window can beat it (ties go to the earlier step).
                    break;
                }
            }
            // The first unscheduled step is always ready (its predecessors all come before it).
            let (w, k) = best.unwrap_or((0, (0..n).find(|&k| !done[k]).unwrap_or(0)));
            for _ in 0..w {
                tr.record(family, lanes, &nop, nop_sem, &nop_acc, 0);
            }
            tr.record(family, lanes, &list[k], info[k].0, &info[k].1, 0);
            done[k] = true;
            order.push(k);
            for &s in &succs[k] {
                preds[s] -= 1;
            }
        }
        let steps = std::mem::take(&mut self.steps);
        self.steps = order.into_iter().map(|k| steps[k].clone()).collect();
    }
}
