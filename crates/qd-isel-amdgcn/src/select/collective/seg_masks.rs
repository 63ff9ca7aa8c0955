//! Segmented reductions whose guards are lane masks computed on the scalar unit from the head
//! mask, instead of a per-lane distance and one VALU compare per step.
//!
//! Every guard of a segmented reduction only asks where the segment heads are, so each step's
//! lane mask is a function of `H` (active heads | tile starts, the frame's SGPR pair). These
//! candidates build the masks with SALU ops in VCC and select with `v_cndmask`; the partners,
//! the operand order and the combination order are those of the ladder (`seg`) and of the
//! integer tree (`int_seg_wide`) they replace — only how a guard is computed changes:
//!
//! * the row steps `k = 1, 2, 4, 8` (`row_shr:k`): the lanes that keep their value are `W_k`,
//!   the lanes with a head or a row start in `(lane - k, lane]` (`min(dist, lane mod 16) < k`;
//!   in tiles of at most 16 lanes the row starts are tile starts, so this is `dist < k`).
//!   `W_1 = H | row starts`, `W_2k = W_k | W_k << k` per 32-bit half (a row start sits at bit 0
//!   of each half, so the bits a 64-bit shift would carry into the high half are set anyway):
//!   `(salu masks)`. Where scalar ops cost as much as vector ones and wave64 takes two per
//!   half-step (GFX9), `W_1` guards step 1 and the later steps compare the row distance
//!   `dr` = `ffbh` of the high half of `W_1 << (63 - lane)` (the low word in wave32):
//!   `(salu masks + dist)`.
//! * the lane-15 step of 32/64-lane tiles (rows 1 and 3 take lane 15 of the row below): the
//!   lanes that combine are those of rows 1 and 3 with no head from their row start up to
//!   themselves, per half `(h - 0x10000) & !h` — the subtraction borrows through the bits of the
//!   upper row up to its first head and leaves the lower row as it is, which the and-not
//!   clears.
//! * the lane-31 step of 64-lane tiles (rows 2 and 3 take lane 31): `(h_hi - 1) & !h_hi` in the
//!   high half, 0 in the low one.
//!
//! A lane a step's read leaves unwritten in its temporary is always a lane whose mask keeps the
//! old value, so the temporary is never filled with the old value first.

use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use super::seq::{combine, dpp, dpp_masked, Arg, Class, R};
use super::{Allow, Plan, B};
use qd_amdgcn_isa::{DppCtrl, Op, Operand};

/// How the row steps' guards are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guards {
    /// Every row mask by the SALU chain `W_2k = W_k | W_k << k`.
    Chain,
    /// `W_1` for step 1, then a VALU compare on the row distance.
    Dist,
}

/// True when `combine` of `op` on `ty` writes VCC (compare-and-select, carry).
fn combine_writes_vcc(op: GroupOp, ty: ScalarType) -> bool {
    let wide_or_float = matches!(ty, ScalarType::F32 | ScalarType::F64 | ScalarType::I64 | ScalarType::U64);
    match op {
        GroupOp::Min | GroupOp::Max => wide_or_float,
        GroupOp::Add => matches!(ty, ScalarType::I64 | ScalarType::U64),
        GroupOp::Mul | GroupOp::And | GroupOp::Or | GroupOp::Xor => false,
    }
}

impl B {
    /// The VCC halves with the head mask half each one is computed from.
    fn mask_halves(&self, (hl, hh): (R, R)) -> Vec<(Operand, R)> {
        if self.spec.w() == 64 {
            vec![(Operand::VccLo, hl), (Operand::VccHi, hh)]
        } else {
            vec![(Operand::VccLo, hl)]
        }
    }

    /// `c = cur ⊕ cur(p)` (fused into the DPP read where the operator allows, as `seg_step`);
    /// VCC is left alone by the fused form only.
    fn seg_c(&mut self, p: Plan) -> R {
        let vc = self.vclass();
        let cur = self.cur;
        let c = self.s.temp(vc);
        match p {
            Plan::Dpp(d) if !self.spec.float() && self.fuses() => {
                self.fused(d, c);
            }
            _ => {
                let t = self.s.temp(vc);
                self.read(p, cur, t);
                combine(&mut self.s, self.spec.op, self.spec.ty, c, cur, t);
            }
        }
        c
    }

    /// `cur = VCC ? cur : c` (`keep`: VCC holds the lanes that keep) or `cur = VCC ? c : cur`.
    fn seg_select(&mut self, c: R, keep: bool) {
        let cur = self.cur;
        let dst = self.own(true);
        if keep {
            self.s.select_vcc(dst, c, cur);
        } else {
            self.s.select_vcc(dst, cur, c);
        }
        self.cur = dst;
    }

    /// The row distance from `W_1` in VCC: `ffbh` of the lane's bit and the 31 below it.
    fn row_dist(&mut self) -> R {
        let lane = self.lane();
        let w = self.spec.w();
        let (sh, dr) = (self.s.temp(Class::V), self.s.temp(Class::V));
        self.s.op64(Op::VSubU32, &[Arg::D(sh), Arg::K(Operand::imm32(w - 1)), Arg::U(lane)]);
        if w == 64 {
            let y = self.s.temp(Class::W);
            self.s.op(Op::VLshlrevB64, &[Arg::D(y), Arg::U(sh), Arg::K(Operand::Vcc)]);
            self.s.op(Op::VFfbhU32, &[Arg::D(dr), Arg::UH(y)]);
        } else {
            let y = self.s.temp(Class::V);
            self.s.op64(Op::VLshlrevB32, &[Arg::D(y), Arg::U(sh), Arg::K(Operand::VccLo)]);
            self.s.op(Op::VFfbhU32, &[Arg::D(dr), Arg::U(y)]);
        }
        dr
    }

    /// VCC = per half `(h - first) & !h`: the lanes from bit `log2(first)` of the half up to
    /// (not including) its first head at or above that bit, 0 below it.
    fn below_first_head(&mut self, halves: &[(Operand, R)], first: u32, subs: &mut Vec<((R, u32), R)>) {
        for &(v, h) in halves {
            let t = self.sub_first(h, first, subs);
            self.s.op(Op::SAndn2B32, &[Arg::K(v), Arg::U(t), Arg::U(h)]);
        }
    }

    /// `h - first` in an SGPR (made once per pair).
    fn sub_first(&mut self, h: R, first: u32, subs: &mut Vec<((R, u32), R)>) -> R {
        if let Some(&(_, t)) = subs.iter().find(|(key, _)| *key == (h, first)) {
            return t;
        }
        let t = self.s.temp(Class::S);
        self.s.op(Op::SSubU32, &[Arg::D(t), Arg::U(h), Arg::K(Operand::imm32(first))]);
        subs.push(((h, first), t));
        t
    }

    /// A segmented reduction with SALU-built guards (see the module docs); None where the
    /// candidate does not apply.
    pub(super) fn seg_masks(&mut self, a: Allow, g: Guards) -> Option<String> {
        let (tl, gfx9) = (self.spec.tl, self.spec.gfx9());
        let heads = self.frame.heads?;
        let wide = tl >= 32;
        let (op, ty) = (self.spec.op, self.spec.ty);
        let fused = !self.spec.float() && self.fuses();
        let ok = tl >= 2
            && !(g == Guards::Dist && tl <= 2)
            && !(g == Guards::Chain && combine_writes_vcc(op, ty) && !fused)
            && if wide {
                !self.spec.float() && if gfx9 { a == Allow::default() } else { a.permlane }
            } else {
                a == Allow::default()
            };
        if !ok {
            return None;
        }
        let halves = self.mask_halves(heads);
        let mut dr: Option<R> = None;
        // GFX9 Dist: the `h - first` halves of the row-crossing masks (they read only `H`) are
        // emitted among the row steps, where the wait-state scheduler finds them to fill the
        // wait state between each compare and its DPP read.
        let mut spare: Vec<(R, u32)> = Vec::new();
        if wide && gfx9 && g == Guards::Dist {
            spare.extend(halves.iter().map(|&(_, h)| (h, 0x1_0000)));
            if tl == 64 {
                spare.push((heads.1, 1));
            }
        }
        let mut subs: Vec<((R, u32), R)> = Vec::new();
        let mut k = 1;
        while k < tl.min(16) {
            let p = Plan::Dpp(dpp(DppCtrl::RowShr(k as u8)));
            // A fused step sets VCC first (it fills a wait state before the DPP read); a
            // separate combine may write VCC, so the mask follows it.
            let c = if fused { None } else { Some(self.seg_c(p)) };
            let keep = match (g, k) {
                (_, 1) => {
                    for &(v, h) in &halves {
                        self.s.op(Op::SOrB32, &[Arg::K(v), Arg::U(h), Arg::K(Operand::imm32(0x0001_0001))]);
                    }
                    true
                }
                (Guards::Chain, _) => {
                    for &(v, _) in &halves {
                        let t = self.s.temp(Class::S);
                        self.s.op(Op::SLshlB32, &[Arg::D(t), Arg::K(v), Arg::K(Operand::imm32(k / 2))]);
                        self.s.op(Op::SOrB32, &[Arg::K(v), Arg::K(v), Arg::U(t)]);
                    }
                    true
                }
                (Guards::Dist, _) => {
                    let vcc = Arg::K(self.s.vcc());
                    let d = dr.unwrap_or(0);
                    self.s.op(Op::VCmpLeU32, &[vcc, Arg::K(Operand::imm32(k)), Arg::U(d)]);
                    if !spare.is_empty() {
                        let (h, first) = spare.remove(0);
                        self.sub_first(h, first, &mut subs);
                    }
                    false
                }
            };
            let c = match c {
                Some(c) => c,
                None => self.seg_c(p),
            };
            self.seg_select(c, keep);
            if k == 1 && g == Guards::Dist {
                dr = Some(self.row_dist());
            }
            k <<= 1;
        }
        let suffix = match g {
            Guards::Chain => " (salu masks)",
            Guards::Dist => " (salu masks + dist)",
        };
        if !wide {
            return Some(format!("dpp ladder{suffix}"));
        }
        if !gfx9 {
            return Some(self.seg_cross_exec(&halves, suffix, &mut subs));
        }
        // Lane 15 of the row below into rows 1 and 3.
        let c = self.seg_c(Plan::Dpp(dpp_masked(DppCtrl::RowBcast15, 0xA, 0xF)));
        self.below_first_head(&halves, 0x1_0000, &mut subs);
        self.seg_select(c, false);
        if tl == 64 {
            // Lane 31 into rows 2 and 3.
            let c = self.seg_c(Plan::Dpp(dpp_masked(DppCtrl::RowBcast31, 0xC, 0xF)));
            self.s.op(Op::SMovB32, &[Arg::K(Operand::VccLo), Arg::K(Operand::Int(0))]);
            self.below_first_head(&halves[1..], 1, &mut subs);
            self.seg_select(c, false);
        }
        Some("dpp segmented scan + row_bcast".to_string() + suffix)
    }

    /// GFX11 row-crossing steps under an EXEC of exactly the lanes that combine (no DPP read
    /// here: the partner comes from `v_permlanex16` or `v_readlane`, which ignore EXEC), each
    /// combining in place; EXEC is every lane again at the end (framed: the frame's restore, next).
    fn seg_cross_exec(&mut self, halves: &[(Operand, R)], suffix: &str, subs: &mut Vec<((R, u32), R)>) -> String {
        let (op, ty) = (self.spec.op, self.spec.ty);
        let w64 = self.spec.w() == 64;
        let exec: Vec<(Operand, R)> = halves
            .iter()
            .map(|&(v, h)| (if v == Operand::VccLo { Operand::ExecLo } else { Operand::ExecHi }, h))
            .collect();
        // Lane 15 of the other row (rows 1 and 3 combine).
        let cur = self.cur;
        let t = self.other_row_lane15(self.cur);
        self.below_first_head(&exec, 0x1_0000, subs);
        let dst = self.own(true);
        combine(&mut self.s, op, ty, dst, cur, t);
        self.cur = dst;
        let mut name = self.ladder_name("dpp segmented scan");
        if self.spec.tl == 64 {
            // Lane 31 (rows 2 and 3 combine).
            let cur = self.cur;
            self.s.op(Op::SMovB32, &[Arg::K(Operand::ExecLo), Arg::K(Operand::Int(0))]);
            self.below_first_head(&exec[1..], 1, subs);
            if self.spec.wide() {
                let u = self.s.temp(self.vclass());
                for k in 0..self.s.parts(u) {
                    let sg = self.s.temp(Class::S);
                    let (d, src) = (self.s.pd(u, k), self.s.pu(cur, k));
                    self.s.op(Op::VReadlaneB32, &[Arg::D(sg), src, Arg::K(Operand::Int(31))]);
                    self.s.op(Op::VMovB32, &[d, Arg::U(sg)]);
                }
                combine(&mut self.s, op, ty, cur, cur, u);
            } else {
                // The scalar in src0 (integer operators commute).
                let sg = self.s.temp(Class::S);
                self.s.op(Op::VReadlaneB32, &[Arg::D(sg), Arg::U(cur), Arg::K(Operand::Int(31))]);
                combine(&mut self.s, op, ty, cur, sg, cur);
            }
            name.push_str(" + readlane");
        }
        if self.spec.framed {
            // The frame restores the saved EXEC next.
        } else if w64 {
            self.s.op(Op::SMovB64, &[Arg::K(Operand::Exec), Arg::K(Operand::Int(-1))]);
        } else {
            self.s.op(Op::SMovB32, &[Arg::K(Operand::ExecLo), Arg::K(Operand::Int(-1))]);
        }
        name + suffix
    }
}
