//! Shuffle candidates as machine code: a proved [`Seq`] of `select/shuffle/mod.rs` turned into one
//! `MInst` over virtual registers ([`emit_seq`]), and any candidate's `MInst`s rendered with the
//! placeholder registers of docs/shuffle-lowering.md §5 and priced by [`crate::select::estimate`]
//! ([`price`]) — so the listing a Choice shows and prices is, instruction for instruction, what the
//! kernel gets.
//!
//! Registers of a sequence: `X` is the value's 32-bit part (each half of a 64-bit value in turn,
//! with the same steps), `O` the result part — in `X`'s own register when the sequence is tied
//! (`A::Tied`/`A::TiedLo`: regalloc2 copies `X` first when it stays live, so lanes a DPP16 or
//! permlane step leaves unwritten hold their own value) — and `T` one scratch VGPR. Everything a
//! sequence needs besides (permlane selectors in SGPRs set by `s_mov_b32`, a readlane SGPR, the
//! constant lane mask of a select in VCC) is defined inside the same `MInst`, so VCC never lives
//! across the allocator's moves.

use std::collections::HashMap;

use qd_mir::types::Type;
use regalloc2::{OperandConstraint, RegClass, VReg};

use crate::lower::simt::{t, use_parts};
use crate::lower::{Cls, Lower, Val};
use crate::select::shuffle::{Prim, Reg, Seq};
use crate::select::{estimate, Cost, Listing};
use crate::vcode::{Fill, MInst, Part, A};
use qd_amdgcn_isa::Target;
use qd_amdgcn_isa::{Dpp16, Dpp8, Inst, Op, Operand, RegRange};

/// Builds the `MInst` of `seq` moving `xv` (VGPR parts) into a fresh value of type `ty`.
pub(crate) fn emit_seq(cx: &mut Lower<'_>, seq: &Seq, xv: Val, ty: Type) -> (MInst, Val) {
    let out = cx.fresh(ty, Cls::Vector);
    let tmp = if seq.uses(Reg::T) { cx.new_v() } else { VReg::invalid() };
    let tmp2 = if seq.uses(Reg::U) { cx.new_v() } else { VReg::invalid() };
    let mut m = MInst::new();
    let mut sels: HashMap<([u8; 16], bool), (VReg, VReg)> = HashMap::new();
    let xs = use_parts(xv);
    let outs: Vec<(A, A)> = match (out, xv) {
        (Val::V(o), Val::V(x)) => vec![(A::Tied { def: o, old: x }, A::D(o))],
        (Val::V64(o), Val::V64(x)) => vec![(A::TiedLo { def: o, old: x }, A::DL(o)), (A::DH(o), A::DH(o))],
        _ => unreachable!("shuffle sequences move VGPR values of the result's width"),
    };
    let out_uses = use_parts(out);
    for (part, &xa) in xs.iter().enumerate() {
        let mut o_written = false;
        // The readlanes of the fix-ups that read `X` of an untied sequence (which no step
        // writes) go first: the same values, and their SGPR writes are long done when the
        // writelanes read them.
        let mut hoisted: HashMap<usize, VReg> = HashMap::new();
        if !seq.tied {
            for (k, st) in seq.steps.iter().enumerate() {
                if let (Prim::Writelane { src, .. }, Reg::X) = (st.prim, st.a) {
                    let s = cx.new_s();
                    m.step(t(cx, Op::VReadlaneB32), &[A::D(s), xa, A::K(Operand::Int(src as i8))]);
                    hoisted.insert(k, s);
                }
            }
        }
        for (k, st) in seq.steps.iter().enumerate() {
            let rd = |r: Reg| match r {
                Reg::X => xa,
                Reg::O if seq.tied => xa,
                Reg::O => out_uses[part],
                Reg::T => A::U(tmp),
                Reg::U => A::U(tmp2),
            };
            let (a, b) = (rd(st.a), rd(st.b));
            let dst = match st.dst {
                Reg::O if seq.tied && !o_written => outs[part].0,
                Reg::O => outs[part].1,
                Reg::T => A::D(tmp),
                Reg::U => A::D(tmp2),
                Reg::X => unreachable!("no step writes X"),
            };
            if st.dst == Reg::O {
                o_written = true;
            }
            if let (Prim::Writelane { lane, .. }, Some(&s)) = (st.prim, hoisted.get(&k)) {
                m.step(t(cx, Op::VWritelaneB32), &[dst, A::U(s), A::K(Operand::Int(lane as i8))]);
                continue;
            }
            step(cx, &mut m, &st.prim, dst, a, b, &mut sels);
        }
    }
    (m, out)
}

/// Appends the instructions of one primitive.
fn step(
    cx: &mut Lower<'_>,
    m: &mut MInst,
    p: &Prim,
    dst: A,
    a: A,
    b: A,
    sels: &mut HashMap<([u8; 16], bool), (VReg, VReg)>,
) {
    match *p {
        Prim::Dpp16 { ctrl, row_mask, bank_mask, bc } => {
            let d = Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl: bc, fi: false };
            m.step(t(cx, Op::VMovB32).dpp16(d), &[dst, a]);
        }
        Prim::Dpp8 { sel } => {
            m.step(t(cx, Op::VMovB32).dpp8(Dpp8 { sel, fi: false }), &[dst, a]);
        }
        Prim::Swizzle { offset } => {
            m.step(t(cx, Op::DsSwizzleB32).imm(i32::from(offset)), &[dst, a]);
        }
        Prim::Permlane16 { sel, cross } => {
            let (lo, hi) = match sels.get(&(sel, cross)) {
                Some(&r) => r,
                None => {
                    let (lo, hi) = (cx.new_s(), cx.new_s());
                    let nib = |k: usize| (0..8).fold(0u32, |acc, j| acc | u32::from(sel[k + j] & 15) << (4 * j));
                    m.step(t(cx, Op::SMovB32), &[A::D(lo), A::K(Operand::imm32(nib(0)))]);
                    m.step(t(cx, Op::SMovB32), &[A::D(hi), A::K(Operand::imm32(nib(8)))]);
                    sels.insert((sel, cross), (lo, hi));
                    (lo, hi)
                }
            };
            let op = if cross { Op::VPermlanex16B32 } else { Op::VPermlane16B32 };
            m.step(t(cx, op), &[dst, a, A::U(lo), A::U(hi)]);
        }
        Prim::Permlane64 => {
            m.step(t(cx, Op::VPermlane64B32), &[dst, a]);
        }
        Prim::Readlane { lane } => {
            let s = cx.new_s();
            m.step(t(cx, Op::VReadlaneB32), &[A::D(s), a, A::K(Operand::Int(lane as i8))]);
            m.step(t(cx, Op::VMovB32), &[dst, A::U(s)]);
        }
        Prim::Cndmask { mask } => {
            m.step(t(cx, Op::SMovB32), &[A::K(Operand::VccLo), A::K(Operand::imm32(mask as u32))]);
            if cx.wave64() {
                m.step(t(cx, Op::SMovB32), &[A::K(Operand::VccHi), A::K(Operand::imm32((mask >> 32) as u32))]);
            }
            m.step(t(cx, Op::VCndmaskB32), &[dst, a, b, A::K(cx.vcc())]);
        }
        Prim::Writelane { src, lane } => {
            let s = cx.new_s();
            m.step(t(cx, Op::VReadlaneB32), &[A::D(s), a, A::K(Operand::Int(src as i8))]);
            m.step(t(cx, Op::VWritelaneB32), &[dst, A::U(s), A::K(Operand::Int(lane as i8))]);
        }
    }
}

/// A placeholder register: class and first number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ph {
    S(u16),
    V(u16),
    W(u16),
}

impl Ph {
    fn operand(self, part: Part) -> Operand {
        match (self, part) {
            (Ph::S(n), _) => Operand::s(n),
            (Ph::V(n), _) => Operand::v(n),
            (Ph::W(n), Part::Whole) => Operand::v2(n),
            (Ph::W(n), Part::Lo) => Operand::v(n),
            (Ph::W(n), Part::Hi) => Operand::v(n + 1),
        }
    }
}

/// Placeholder registers (docs/shuffle-lowering.md §5): the input in `v10` (`v[10:11]`), other
/// VGPRs from `v12` (pairs even-aligned), SGPRs from `s20`; a tied def takes its use's register.
struct Placeholders {
    map: HashMap<VReg, Ph>,
    next_v: u16,
    next_s: u16,
}

impl Placeholders {
    fn of(&mut self, v: VReg) -> Ph {
        if let Some(&p) = self.map.get(&v) {
            return p;
        }
        let p = match v.class() {
            RegClass::Int => {
                self.next_s += 1;
                Ph::S(self.next_s - 1)
            }
            RegClass::Float => {
                self.next_v += 1;
                Ph::V(self.next_v - 1)
            }
            RegClass::Vector => {
                self.next_v += self.next_v & 1;
                self.next_v += 2;
                Ph::W(self.next_v - 2)
            }
        };
        self.map.insert(v, p);
        p
    }
}

fn val_operand(ph: &mut Placeholders, v: Val) -> Operand {
    match v {
        Val::V(r) | Val::S(r) | Val::S64(r, _) => ph.of(r).operand(Part::Whole),
        Val::V64(r) => ph.of(r).operand(Part::Whole),
    }
}

/// Renders `minsts` with placeholder registers (`input` in `v10`/`v[10:11]`) and prices them
/// with [`estimate`]: the listing as text and the cost.
pub(crate) fn price(target: Target, minsts: &[MInst], input: Val, output: Val) -> (Listing, Cost) {
    let mut ph = Placeholders { map: HashMap::new(), next_v: 12, next_s: 20 };
    match input {
        Val::V(x) => {
            ph.map.insert(x, Ph::V(10));
        }
        Val::V64(x) => {
            ph.map.insert(x, Ph::W(10));
        }
        Val::S(_) | Val::S64(..) => {}
    }
    let mut body: Vec<Inst> = Vec::new();
    for m in minsts {
        for o in &m.operands {
            if let OperandConstraint::Reuse(idx) = o.constraint() {
                let old = ph.of(m.operands[idx].vreg());
                ph.map.insert(o.vreg(), old);
            }
        }
        for s in &m.steps {
            let mut inst = s.inst;
            let mut after = Vec::new();
            for (slot, fill) in s.fills.iter().enumerate() {
                match *fill {
                    Fill::Keep => {}
                    Fill::Reg { op, part } => inst.operands[slot] = ph.of(m.operands[op as usize].vreg()).operand(part),
                    Fill::Quad { dword } => {
                        inst.operands[slot] = match dword {
                            Some(k) => Operand::v(crate::emit::QUAD_BASE + u16::from(k)),
                            None => Operand::vr(crate::emit::QUAD_BASE, 4),
                        }
                    }
                    Fill::Pair { lo, hi, temp, def } => {
                        let tp = crate::emit::PAIR_TEMP_BASE + 2 * u16::from(temp);
                        let l = ph.of(m.operands[lo as usize].vreg()).operand(Part::Whole);
                        let h = ph.of(m.operands[hi as usize].vreg()).operand(Part::Whole);
                        let mov = |d: Operand, s: Operand| Inst::new_for(target, Op::SMovB32, &[d, s]);
                        if def {
                            after.push(mov(l, Operand::s(tp)));
                            after.push(mov(h, Operand::s(tp + 1)));
                        } else {
                            body.push(mov(Operand::s(tp), l));
                            body.push(mov(Operand::s(tp + 1), h));
                        }
                        inst.operands[slot] = Operand::Sgpr(RegRange::pair(tp));
                    }
                }
            }
            body.push(inst);
            body.extend(after);
        }
    }
    let input_op = match input {
        Val::V64(_) => Operand::v2(10),
        _ => Operand::v(10),
    };
    let output_op = val_operand(&mut ph, output);
    let (listing, cost) = estimate(target, &body, input_op, output_op);
    (Listing::new(target, listing), cost)
}
