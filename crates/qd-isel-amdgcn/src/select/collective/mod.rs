//! Reductions, scans and segmented reductions: every candidate sequence per target, built once
//! as a [`Seq`] (rendered both as the priced listing and as the kernel's `MInst`).
//!
//! When EXEC may be partial ([`Spec::framed`]) every candidate runs in the whole-wave frame of
//! `lower/simt_coll.rs`: EXEC is saved and set to every lane (an `MInst` of its own, the listing's
//! first line), each lane's working value is its operand when it was active and the operator's
//! identity otherwise, the ladder runs with every lane active, and EXEC is restored (the
//! sequence's last step). When EXEC is known to hold every lane the frame is pure overhead and
//! every candidate (the baseline too, so ratios compare like with like) runs frameless: the
//! first step reads the operand and writes a fresh register (filled with the operand first only
//! when that step leaves lanes unwritten). The ladders:
//!
//! * `bpermute ladder` — the baseline: every cross-lane read is a `ds_bpermute_b32` (with the
//!   permlane64 halves emulation on gfx1100 wave64), the interpreter's steps one by one.
//! * `dpp ladder [+ swizzle] [+ permlanex16] [+ permlane64] [+ bpermute]` — the same steps with
//!   each read done by the cheapest primitive the candidate allows (its name lists the kinds it
//!   really uses): DPP16 inside rows (quad_perm, row_half_mirror, row_ror:8, row_xmask, row_shr,
//!   wave_shr:1), ds_swizzle (xor 16, rotate within 32) and ds_bpermute on GFX9 for the row- and
//!   half-crossing reads, v_permlanex16 / v_permlane64 on GFX11. Reads are exact partners
//!   (`lane ^ k`, `lane - k`), so the result is bit-exact for floats too; own value on the left
//!   for reductions and segmented reductions (`op own, partner`), predecessor on the left for
//!   scans. When a single DPP read's written lanes are exactly the lanes that combine (rows for
//!   tiles of 16, bank mask 0xA for the 4-step in tiles of 8, `wave_shr:1` in a 64-lane scan),
//!   the step is one fused in-place `v_op_dpp v, v(ctrl), v` with bound_ctrl 0 (unwritten lanes
//!   keep their value, never combined with an identity); otherwise a constant lane mask in VCC
//!   and a `v_cndmask` keep the lanes the interpreter leaves alone. Integer and bool operators
//!   (exactly associative and commutative) also take "any lane of the partner group" reads
//!   (`row_half_mirror`, `row_mirror`) and fuse with the partner in src0.
//! * Integer/bool only (any combination tree is exact), in `collective/int_trees.rs`:
//!   `dpp scan + row_bcast` (GFX9), `dpp scan [+ row_shr] + permlanex16 [+ readlane]` (GFX11),
//!   `dpp ladder + row_bcast + readlane` (GFX9), `dpp ladder + readlane + salu` (wave64
//!   reductions whose row totals are combined on the scalar unit) and `…, high then low halves`
//!   (64-bit min/max reductions as two 32-bit ones).
//! * Float min/max, in `collective/keys.rs`: `… on order keys` — the integer trees on the floats'
//!   total-order keys, with the NaN-only tiles answered as the interpreter's order answers them.
//!
//! * Integer/bool segmented reductions over 32/64-lane tiles: `dpp segmented scan + row_bcast`
//!   (GFX9) and `dpp segmented scan + permlanex16 [+ readlane]` (GFX11), the same trees on the
//!   (value, head) segmented operator (see `int_seg_wide`).
//! * Segmented reductions whose guards are lane masks built on the scalar unit from the head
//!   mask (`collective/seg_masks.rs`): `dpp ladder (salu masks)` in tiles of up to 16 lanes (every
//!   type), and the integer trees above with `(salu masks)` / `(salu masks + dist)`.
//!
//! On GFX9 every built sequence is wait-state scheduled (`Seq::schedule`) before it is priced
//! and emitted, so independent steps fill the `s_nop`s of dependent DPP / VCC reads.
//!
//! The family of a candidate is the costliest kind it uses (`select::ShuffleLowering`);
//! readlane, writelane and plain VALU are DPP-family glue.

use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use self::seq::{bitwise, combine, dpp, dpp_masked, fusable, Arg, Class, Seq, R};
use super::{estimate, Candidate, Listing, ShuffleLowering};
use qd_amdgcn_isa::{Dpp16, DppCtrl, Inst, Op, Operand};
use qd_amdgcn_isa::{Family, Target};

pub(crate) mod seq;

mod int_trees;
mod keys;
mod seg_masks;

/// Which collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `subgroup.reduce`.
    Reduce,
    /// `subgroup.scan`.
    Scan {
        /// Inclusive (else exclusive).
        inclusive: bool,
    },
    /// `subgroup.segreduce`.
    Seg,
}

/// One collective to lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Spec {
    /// The target.
    pub target: Target,
    /// The collective.
    pub kind: Kind,
    /// The operator in the working type.
    pub op: GroupOp,
    /// The working type (bool works as u32).
    pub ty: ScalarType,
    /// The identity's bits.
    pub id: u64,
    /// Lanes per tile (1..=wave).
    pub tl: u32,
    /// True when EXEC may be partial: the sequence runs in the whole-wave frame (EXEC saved and
    /// set to every lane, inactive lanes take the identity, EXEC restored). False when EXEC is
    /// known to hold every lane (`Lower::exec_full`): the ladder runs on the operand directly.
    pub framed: bool,
}

impl Spec {
    fn float(&self) -> bool {
        self.ty.is_float()
    }

    fn wide(&self) -> bool {
        self.ty.bits() == 64
    }

    fn w(&self) -> u32 {
        self.target.wave.lanes()
    }

    fn gfx9(&self) -> bool {
        self.target.family() == Family::Gfx9
    }
}

/// The registers a built sequence reads from outside (defined before it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// The operand.
    pub x: R,
    /// The saved EXEC (lo, and hi in wave64); None when frameless.
    pub saved: Option<(R, Option<R>)>,
    /// The segment-head mask (lo, hi), segmented reductions only.
    pub heads: Option<(R, R)>,
}

/// One candidate, built.
#[derive(Clone, Debug)]
pub(crate) struct Built {
    /// Its priced description.
    pub cand: Candidate,
    /// The sequence.
    pub seq: Seq,
    /// Its external registers.
    pub frame: Frame,
    /// The register holding the result.
    pub out: R,
}

/// The cross-lane kinds a candidate may use beyond DPP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Allow {
    swizzle: bool,
    permlane: bool,
    bpermute: bool,
}

/// The cross-lane kinds a candidate used.
#[derive(Clone, Copy, Debug, Default)]
struct Used {
    swizzle: bool,
    plx: bool,
    pl64: bool,
    bpermute: bool,
}

/// How one step reads its partner's value.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// One DPP16 read.
    Dpp(Dpp16),
    /// Two DPP16 moves into the same temporary (disjoint written lanes).
    Dpp2(Dpp16, Dpp16),
    /// `ds_swizzle_b32` with this offset.
    Swizzle(u16),
    /// `v_permlanex16` with these selectors; `row2`: row 2 from `v_permlane64` then the same
    /// permlanex16 (wave64, 64-lane tiles); `then`: a DPP read over the result (valid lanes).
    Plx { lo: u32, hi: u32, row2: bool, then: Option<Dpp16> },
    /// `v_permlane64_b32`.
    Pl64,
    /// `ds_bpermute_b32` from `lane ^ k` (xor) or `lane - k`.
    Bperm { xor: bool, k: u32 },
}

/// The candidate builder.
struct B {
    s: Seq,
    spec: Spec,
    frame: Frame,
    lane: Option<R>,
    dist: Option<R>,
    addr: Option<R>,
    sel: Vec<((u32, u32), (R, R))>,
    row2: Option<(R, R)>,
    idv: Option<R>,
    cur: R,
    used: Used,
}

impl B {
    fn new(spec: Spec) -> B {
        let mut s = Seq::new(spec.target);
        let vc = if spec.wide() { Class::W } else { Class::V };
        let x = s.external(vc, 10);
        let saved = spec.framed.then(|| {
            let lo = s.external(Class::S, 20);
            let hi = (spec.w() == 64).then(|| s.external(Class::S, 21));
            (lo, hi)
        });
        let heads = (spec.kind == Kind::Seg).then(|| (s.external(Class::S, 22), s.external(Class::S, 23)));
        let frame = Frame { x, saved, heads };
        let mut b = B {
            s,
            spec,
            frame,
            lane: None,
            dist: None,
            addr: None,
            sel: Vec::new(),
            row2: None,
            idv: None,
            cur: x,
            used: Used::default(),
        };
        let Some((lo, hi)) = saved else {
            // Frameless: the ladder starts on the operand itself (`own` copies it on first write).
            return b;
        };
        // The identity as an inline constant where it is one, else in VGPRs.
        let inline = (0..if spec.wide() { 2 } else { 1 })
            .all(|k| !matches!(Operand::imm32((spec.id >> (32 * k)) as u32), Operand::Literal(_)));
        let idv = if inline { None } else { Some(b.idv()) };
        let cur = b.s.temp(vc);
        let mask = match hi {
            Some(hi) => Arg::SPair(lo, hi),
            None => Arg::U(lo),
        };
        for k in 0..b.s.parts(cur) {
            let i = match idv {
                Some(r) => b.s.pu(r, k),
                None => Arg::K(Operand::imm32((spec.id >> (32 * k)) as u32)),
            };
            let (d, xx) = (b.s.pd(cur, k), b.s.pu(x, k));
            b.s.op64(Op::VCndmaskB32, &[d, i, xx, mask]);
        }
        b.cur = cur;
        b
    }

    /// The register the next working value is written into: `cur` once it is a temporary; while
    /// `cur` is still the operand (frameless, before the first step), a fresh temporary — first
    /// filled with the operand when the write leaves some lanes unwritten (`full` false). The
    /// caller sets `cur` to it after the write.
    fn own(&mut self, full: bool) -> R {
        if self.cur != self.frame.x {
            return self.cur;
        }
        let t = self.s.temp(self.vclass());
        if !full {
            for k in 0..self.s.parts(t) {
                let (d, u) = (self.s.pd(t, k), self.s.pu(self.cur, k));
                self.s.op(Op::VMovB32, &[d, u]);
            }
        }
        t
    }

    /// True when a DPP16 read writes every lane.
    fn full(&self, d: Dpp16) -> bool {
        let w = self.spec.w();
        self.written(d) == if w == 64 { u64::MAX } else { (1u64 << w) - 1 }
    }

    /// True when the operator fuses into a DPP VALU op (per 32-bit part).
    fn fuses(&self) -> bool {
        let (op, ty) = (self.spec.op, self.spec.ty);
        if self.spec.wide() {
            bitwise(op).is_some()
        } else {
            fusable(op, ty).is_some()
        }
    }

    fn vclass(&self) -> Class {
        if self.spec.wide() {
            Class::W
        } else {
            Class::V
        }
    }

    /// The identity in VGPRs (made at first use).
    fn idv(&mut self) -> R {
        if let Some(r) = self.idv {
            return r;
        }
        let r = self.s.temp(self.vclass());
        for k in 0..self.s.parts(r) {
            let d = self.s.pd(r, k);
            self.s.op(Op::VMovB32, &[d, Arg::K(Operand::imm32((self.spec.id >> (32 * k)) as u32))]);
        }
        self.idv = Some(r);
        r
    }

    /// The lane index (computed at first use).
    fn lane(&mut self) -> R {
        if let Some(l) = self.lane {
            return l;
        }
        let l = self.s.temp(Class::V);
        self.s.op64(Op::VMbcntLoU32B32, &[Arg::D(l), Arg::K(Operand::Int(-1)), Arg::K(Operand::Int(0))]);
        if self.s.wave64() {
            self.s.op64(Op::VMbcntHiU32B32, &[Arg::D(l), Arg::K(Operand::Int(-1)), Arg::U(l)]);
        }
        self.lane = Some(l);
        l
    }

    /// Restores EXEC and returns the candidate.
    fn finish(mut self, name: String) -> Built {
        let t = self.spec.target;
        let mut body = Vec::new();
        if let Some((lo, hi)) = self.frame.saved {
            match hi {
                Some(hi) => self.s.op(Op::SMovB64, &[Arg::K(Operand::Exec), Arg::SPair(lo, hi)]),
                None => self.s.op(Op::SMovB32, &[Arg::K(Operand::ExecLo), Arg::U(lo)]),
            }
            body.push(if hi.is_some() {
                Inst::new_for(t, Op::SOrSaveexecB64, &[Operand::s2(20), Operand::Int(-1)])
            } else {
                Inst::new_for(t, Op::SOrSaveexecB32, &[Operand::s(20), Operand::Int(-1)])
            });
        }
        let input = self.s.placeholder(self.frame.x);
        self.s.schedule(input);
        body.extend(self.s.listing());
        let (listing, cost) = estimate(t, &body, self.s.placeholder(self.frame.x), self.s.placeholder(self.cur));
        let u = self.used;
        let family = if u.bpermute {
            ShuffleLowering::Bpermute
        } else if u.swizzle {
            ShuffleLowering::Swizzle
        } else if u.plx || u.pl64 {
            ShuffleLowering::Permlane
        } else {
            ShuffleLowering::Dpp
        };
        let listing = Listing::new(t, listing);
        let out = self.cur;
        Built { cand: Candidate { name, family, cost, listing }, seq: self.s, frame: self.frame, out }
    }

    /// The generic name from the kinds used.
    fn ladder_name(&self, base: &str) -> String {
        let u = self.used;
        let mut n = base.to_string();
        for (used, what) in
            [(u.swizzle, "swizzle"), (u.plx, "permlanex16"), (u.pl64, "permlane64"), (u.bpermute, "bpermute")]
        {
            if used {
                n.push_str(" + ");
                n.push_str(what);
            }
        }
        n
    }

    // ----- partner reads ----------------------------------------------------------------------

    /// Alternatives for reading `lane ^ k` (reductions), cheapest kind first.
    fn plan_xor(&self, k: u32) -> Vec<Plan> {
        let exact = self.spec.float();
        let gfx9 = self.spec.gfx9();
        match k {
            1 => vec![Plan::Dpp(dpp(DppCtrl::QuadPerm([1, 0, 3, 2])))],
            2 => vec![Plan::Dpp(dpp(DppCtrl::QuadPerm([2, 3, 0, 1])))],
            4 if !exact => vec![Plan::Dpp(dpp(DppCtrl::RowHalfMirror))],
            4 if gfx9 => {
                vec![Plan::Dpp2(dpp_masked(DppCtrl::RowShr(4), 0xF, 0xA), dpp_masked(DppCtrl::RowShl(4), 0xF, 0x5))]
            }
            4 => vec![Plan::Dpp(dpp(DppCtrl::RowXmask(4)))],
            8 => vec![Plan::Dpp(dpp(DppCtrl::RowRor(8)))],
            16 if gfx9 => vec![Plan::Swizzle(0x401F), Plan::Bperm { xor: true, k }],
            16 => vec![Plan::Plx { lo: 0x7654_3210, hi: 0xFEDC_BA98, row2: false, then: None }],
            _ if gfx9 => vec![Plan::Bperm { xor: true, k }],
            _ => vec![Plan::Pl64],
        }
    }

    /// Alternatives for reading `lane - k` on the lanes with `lane mod T >= k`.
    fn plan_down(&self, k: u32) -> Vec<Plan> {
        let tl = self.spec.tl;
        if tl <= 16 {
            return vec![Plan::Dpp(dpp(DppCtrl::RowShr(k as u8)))];
        }
        if self.spec.gfx9() {
            return match (k, tl) {
                (1, _) => vec![Plan::Dpp(dpp(DppCtrl::WaveShr1))],
                (_, 32) => vec![Plan::Swizzle(0xC000 | 0x400 | (k as u16) << 5), Plan::Bperm { xor: false, k }],
                _ => vec![Plan::Bperm { xor: false, k }],
            };
        }
        let row2 = tl == 64 && self.spec.w() == 64;
        if k < 16 {
            let (mut lo, mut hi) = (0u32, 0u32);
            for l in 0..8 {
                lo |= ((l + 16 - k) & 15) << (4 * l);
                hi |= ((l + 8 + 16 - k) & 15) << (4 * l);
            }
            vec![Plan::Plx { lo, hi, row2, then: Some(dpp(DppCtrl::RowShr(k as u8))) }]
        } else if k == 16 {
            vec![Plan::Plx { lo: 0x7654_3210, hi: 0xFEDC_BA98, row2, then: None }]
        } else {
            vec![Plan::Pl64]
        }
    }

    fn allowed(p: &Plan, a: Allow) -> bool {
        match p {
            Plan::Dpp(_) | Plan::Dpp2(..) => true,
            Plan::Swizzle(_) => a.swizzle,
            Plan::Plx { .. } | Plan::Pl64 => a.permlane,
            Plan::Bperm { .. } => a.bpermute,
        }
    }

    fn choose(alts: Vec<Plan>, a: Allow) -> Option<Plan> {
        alts.into_iter().find(|p| B::allowed(p, a))
    }

    /// `v_permlanex16` of `src` with every selector 15 into a fresh register: every
    /// lane reads lane 15 (the last) of the other row of its pair (GFX11) — rows 1 and 3 get the
    /// total of the row below once the rows are scanned.
    fn other_row_lane15(&mut self, src: R) -> R {
        self.used.plx = true;
        let t = self.s.temp(self.vclass());
        let (sa, sb) = self.selectors(u32::MAX, u32::MAX);
        for k in 0..self.s.parts(t) {
            let (d, u) = (self.s.pd(t, k), self.s.pu(src, k));
            self.s.op(Op::VPermlanex16B32, &[d, u, Arg::U(sa), Arg::U(sb)]);
        }
        t
    }

    /// Selector SGPRs for `v_permlanex16` (set once per pair).
    fn selectors(&mut self, lo: u32, hi: u32) -> (R, R) {
        if let Some((_, r)) = self.sel.iter().find(|(k, _)| *k == (lo, hi)) {
            return *r;
        }
        let (a, b) = (self.s.temp(Class::S), self.s.temp(Class::S));
        self.s.op(Op::SMovB32, &[Arg::D(a), Arg::K(Operand::imm32(lo))]);
        self.s.op(Op::SMovB32, &[Arg::D(b), Arg::K(Operand::imm32(hi))]);
        self.sel.push(((lo, hi), (a, b)));
        (a, b)
    }

    /// Reads `src` at the plan's partner lanes into `dst` (same class).
    fn read(&mut self, p: Plan, src: R, dst: R) {
        let parts = self.s.parts(src);
        match p {
            Plan::Dpp(d) => self.s.mov_dpp(d, dst, src),
            Plan::Dpp2(a, b) => {
                self.s.mov_dpp(a, dst, src);
                self.s.mov_dpp(b, dst, src);
            }
            Plan::Swizzle(off) => {
                self.used.swizzle = true;
                for k in 0..parts {
                    let inst = Inst::new_for(self.s.target, Op::DsSwizzleB32, &[]).imm(i32::from(off));
                    let (d, u) = (self.s.pd(dst, k), self.s.pu(src, k));
                    self.s.inst(inst, &[d, u]);
                }
            }
            Plan::Plx { lo, hi, row2, then } => {
                self.used.plx = true;
                let (a, b) = self.selectors(lo, hi);
                let (t1, t2) = if row2 {
                    self.used.pl64 = true;
                    *self.row2.get_or_insert_with(|| (self.s.temp(Class::V), self.s.temp(Class::V)))
                } else {
                    (0, 0)
                };
                for k in 0..parts {
                    let (d, u) = (self.s.pd(dst, k), self.s.pu(src, k));
                    self.s.op(Op::VPermlanex16B32, &[d, u, Arg::U(a), Arg::U(b)]);
                    if row2 {
                        self.s.op(Op::VPermlane64B32, &[Arg::D(t1), u]);
                        self.s.op(Op::VPermlanex16B32, &[Arg::D(t2), Arg::U(t1), Arg::U(a), Arg::U(b)]);
                        let rm = dpp_masked(DppCtrl::QuadPerm([0, 1, 2, 3]), 0x4, 0xF);
                        self.s.dpp(Op::VMovB32, rm, &[d, Arg::U(t2)]);
                    }
                }
                if let Some(t) = then {
                    self.s.mov_dpp(t, dst, src);
                }
            }
            Plan::Pl64 => {
                self.used.pl64 = true;
                for k in 0..parts {
                    let (d, u) = (self.s.pd(dst, k), self.s.pu(src, k));
                    self.s.op(Op::VPermlane64B32, &[d, u]);
                }
            }
            Plan::Bperm { xor, k } => {
                self.used.bpermute = true;
                let lane = self.lane();
                let a = *self.addr.get_or_insert_with(|| self.s.temp(Class::V));
                if xor {
                    self.s.op64(Op::VXorB32, &[Arg::D(a), Arg::K(Operand::imm32(k)), Arg::U(lane)]);
                } else {
                    self.s.op64(Op::VSubU32, &[Arg::D(a), Arg::U(lane), Arg::K(Operand::imm32(k))]);
                }
                self.s.op64(Op::VLshlrevB32, &[Arg::D(a), Arg::K(Operand::Int(2)), Arg::U(a)]);
                for j in 0..parts {
                    let (d, u) = (self.s.pd(dst, j), self.s.pu(src, j));
                    self.s.op(Op::DsBpermuteB32, &[d, Arg::U(a), u]);
                }
            }
        }
    }

    /// `cur = op_dpp(cur(d), cur)` into `dst` per part (32-bit fusable ops, and bitwise ops per
    /// half of a 64-bit value); false when the op does not fuse.
    fn fused(&mut self, d: Dpp16, dst: R) -> bool {
        let (op, ty) = (self.spec.op, self.spec.ty);
        let o = if self.spec.wide() { bitwise(op) } else { fusable(op, ty) };
        let Some(o) = o else { return false };
        let cur = self.cur;
        for k in 0..self.s.parts(cur) {
            let (dd, u) = (self.s.pd(dst, k), self.s.pu(cur, k));
            self.s.dpp(o, d, &[dd, u, u]);
        }
        true
    }

    /// The lanes written by a DPP16 read (row/bank enabled and a valid source).
    fn written(&self, d: Dpp16) -> u64 {
        let w = self.spec.w();
        (0..w).filter(|&i| d.lane_enabled(i) && d.ctrl.src_lane(i, w).is_some()).fold(0, |m, i| m | 1 << i)
    }

    /// `d` with row/bank masks whose written lanes are exactly `want`, if any.
    fn masked_to(&self, d: Dpp16, want: u64) -> Option<Dpp16> {
        // The lanes with a valid source, then each mask pair as bit operations on it (the same
        // set as `written` computes lane by lane, without 225 walks over the wave).
        let valid = self.written(Dpp16 { row_mask: 0xF, bank_mask: 0xF, ..d });
        let rows = |rm: u8| (0..4).filter(|r| rm >> r & 1 == 1).fold(0u64, |m, r| m | 0xFFFF << (16 * r));
        let banks =
            |bm: u8| (0..4).filter(|b| bm >> b & 1 == 1).fold(0u64, |m, b| m | 0x000F_000F_000F_000F << (4 * b));
        for rm in (1..=15u8).rev() {
            let in_rows = valid & rows(rm);
            for bm in (1..=15u8).rev() {
                if in_rows & banks(bm) == want {
                    return Some(Dpp16 { row_mask: rm, bank_mask: bm, ..d });
                }
            }
        }
        None
    }

    /// The lanes with `lane mod T >= k`.
    fn mask_ge(&self, k: u32) -> u64 {
        (0..self.spec.w()).filter(|&i| i % self.spec.tl >= k).fold(0, |m, i| m | 1 << i)
    }

    // ----- ladders ----------------------------------------------------------------------------

    /// The butterfly: `v = v ⊕ v[lane ^ k]`.
    fn reduce(&mut self, a: Allow, upto: u32) -> Option<()> {
        let mut k = 1;
        while k < upto {
            let p = B::choose(self.plan_xor(k), a)?;
            let cur = self.cur;
            match p {
                Plan::Dpp(d) if !self.spec.float() && self.fuses() => {
                    let dst = self.own(self.full(d));
                    self.fused(d, dst);
                    self.cur = dst;
                }
                _ => {
                    let t = self.s.temp(self.vclass());
                    self.read(p, cur, t);
                    let dst = self.own(true);
                    combine(&mut self.s, self.spec.op, self.spec.ty, dst, cur, t);
                    self.cur = dst;
                }
            }
            k <<= 1;
        }
        Some(())
    }

    /// Exclusive scans: `v = lane mod T == 0 ? identity : v[lane - 1]`.
    fn shift(&mut self, a: Allow) -> Option<()> {
        let vc = self.vclass();
        if self.spec.tl == 1 {
            self.cur = self.idv();
            return Some(());
        }
        let p = B::choose(self.plan_down(1), a)?;
        let want = self.mask_ge(1);
        let t = self.s.temp(vc);
        if let Plan::Dpp(d) = p {
            if let Some(m) = self.masked_to(d, want) {
                // t = identity, then the DPP read writes exactly the lanes that move.
                let idv = self.idv();
                for k in 0..self.s.parts(t) {
                    let (dd, u) = (self.s.pd(t, k), self.s.pu(idv, k));
                    self.s.op(Op::VMovB32, &[dd, u]);
                }
                self.s.mov_dpp(m, t, self.cur);
                self.cur = t;
                return Some(());
            }
        }
        self.read(p, self.cur, t);
        self.s.vcc_mask(want);
        let idv = self.idv();
        let dst = self.own(true);
        self.s.select_vcc(dst, idv, t);
        self.cur = dst;
        Some(())
    }

    /// Hillis–Steele: `if lane mod T >= k: v = v[lane - k] ⊕ v`.
    fn scan(&mut self, a: Allow) -> Option<()> {
        let vc = self.vclass();
        let mut k = 1;
        while k < self.spec.tl {
            let p = B::choose(self.plan_down(k), a)?;
            let want = self.mask_ge(k);
            let cur = self.cur;
            if let Plan::Dpp(d) = p {
                if let Some(m) = self.masked_to(d, want).filter(|_| self.fuses()) {
                    let dst = self.own(self.full(m));
                    self.fused(m, dst);
                    self.cur = dst;
                    k <<= 1;
                    continue;
                }
            }
            let c = self.s.temp(vc);
            let done = match p {
                Plan::Dpp(d) => self.fused(d, c),
                _ => false,
            };
            if !done {
                let t = self.s.temp(vc);
                self.read(p, cur, t);
                combine(&mut self.s, self.spec.op, self.spec.ty, c, t, cur);
            }
            self.s.vcc_mask(want);
            let dst = self.own(true);
            self.s.select_vcc(dst, cur, c);
            self.cur = dst;
            k <<= 1;
        }
        Some(())
    }

    /// `dist` = lane − (last head or tile start at or below the lane).
    fn dist(&mut self) -> R {
        if let Some(d) = self.dist {
            return d;
        }
        let w = self.spec.w();
        let lane = self.lane();
        let (hl, hh) = self.frame.heads.unwrap_or((0, 0));
        let (sh, dist) = (self.s.temp(Class::V), self.s.temp(Class::V));
        self.s.op64(Op::VSubU32, &[Arg::D(sh), Arg::K(Operand::imm32(w - 1)), Arg::U(lane)]);
        if w == 64 {
            let (y, fl) = (self.s.temp(Class::W), self.s.temp(Class::V));
            self.s.op(Op::VLshlrevB64, &[Arg::D(y), Arg::U(sh), Arg::SPair(hl, hh)]);
            self.s.op(Op::VFfbhU32, &[Arg::D(dist), Arg::UH(y)]);
            self.s.op(Op::VFfbhU32, &[Arg::D(fl), Arg::UL(y)]);
            self.s.op(Op::VAddU32, &[Arg::D(fl), Arg::K(Operand::Int(32)), Arg::U(fl)]);
            self.s.op(Op::VMinU32, &[Arg::D(dist), Arg::U(dist), Arg::U(fl)]);
        } else {
            let y = self.s.temp(Class::V);
            self.s.op64(Op::VLshlrevB32, &[Arg::D(y), Arg::U(sh), Arg::U(hl)]);
            self.s.op(Op::VFfbhU32, &[Arg::D(dist), Arg::U(y)]);
        }
        self.dist = Some(dist);
        dist
    }

    /// Segmented: `if dist >= k: v = v ⊕ v[lane - k]`.
    fn seg(&mut self, a: Allow) -> Option<()> {
        let dist = self.dist();
        let mut k = 1;
        while k < self.spec.tl {
            let p = B::choose(self.plan_down(k), a)?;
            self.seg_step(p, k, dist);
            k <<= 1;
        }
        Some(())
    }

    /// One guarded step: `if k <= guard: v = v ⊕ v(p)` (the partner read by `p` is `lane - k`
    /// wherever the guard holds). A fused step sets VCC first, so that the compare fills a wait
    /// state between the previous step's select and this step's DPP read.
    fn seg_step(&mut self, p: Plan, k: u32, guard: R) {
        let vc = self.vclass();
        let cur = self.cur;
        let c = self.s.temp(vc);
        let vcc = Arg::K(self.s.vcc());
        let cmp = |s: &mut Seq| s.op(Op::VCmpLeU32, &[vcc, Arg::K(Operand::imm32(k)), Arg::U(guard)]);
        match p {
            Plan::Dpp(d) if !self.spec.float() && self.fuses() => {
                cmp(&mut self.s);
                self.fused(d, c);
            }
            _ => {
                let t = self.s.temp(vc);
                self.read(p, cur, t);
                combine(&mut self.s, self.spec.op, self.spec.ty, c, cur, t);
                cmp(&mut self.s);
            }
        }
        let dst = self.own(true);
        self.s.select_vcc(dst, cur, c);
        self.cur = dst;
    }

    /// Integer segmented reductions over 32/64-lane tiles as a segmented scan: the pair (value,
    /// "the lane's range holds a head") with `(a, fa) ⊕ (b, fb) = (fb ? b : a ⊕ b, fa | fb)` is
    /// associative, so the register-only scan tree of `int_scan_wide` computes it, each step
    /// combining exactly where the lane's own range `[lo, lane]` holds no head, i.e. where
    /// `dist > lane - lo` (tile starts are heads; inactive lanes hold the identity and are no
    /// heads, as in the interpreter). The flag is not carried: it is read off `dist`. Row scan
    /// `row_shr:1,2,4,8` guarded by `min(dist, lane mod 16) >= k`; then lane 15 of the row below
    /// (GFX9 `row_bcast:15` row mask 0xA, GFX11 `v_permlanex16` merged into rows 1 and 3 by a
    /// row-masked op) where `dist > lane mod 16`, and for 64-lane tiles lane 31 (GFX9
    /// `row_bcast:31` row mask 0xC, GFX11 `v_readlane`) where `dist > lane mod 32`. Integer
    /// operators only: the tree combines in another order than the interpreter's ladder.
    fn int_seg_wide(&mut self, a: Allow) -> Option<String> {
        let gfx9 = self.spec.gfx9();
        if !gfx9 && !a.permlane {
            return None;
        }
        let dist = self.dist();
        let lane = self.lane();
        let (lm15, dr) = (self.s.temp(Class::V), self.s.temp(Class::V));
        self.s.op64(Op::VAndB32, &[Arg::D(lm15), Arg::K(Operand::Int(15)), Arg::U(lane)]);
        self.s.op(Op::VMinU32, &[Arg::D(dr), Arg::U(dist), Arg::U(lm15)]);
        for k in [1u8, 2, 4, 8] {
            self.seg_step(Plan::Dpp(dpp(DppCtrl::RowShr(k))), u32::from(k), dr);
        }
        let id = Dpp16::new(int_trees::SAME_LANE);
        if gfx9 {
            self.seg_cross(dpp_masked(DppCtrl::RowBcast15, 0xA, 0xF), None, dist, lm15);
        } else {
            let t = self.other_row_lane15(self.cur);
            self.seg_cross(Dpp16 { row_mask: 0xA, ..id }, Some(t), dist, lm15);
        }
        if self.spec.tl < 64 {
            return Some(if gfx9 {
                "dpp segmented scan + row_bcast".into()
            } else {
                self.ladder_name("dpp segmented scan")
            });
        }
        let lm31 = self.s.temp(Class::V);
        self.s.op64(Op::VAndB32, &[Arg::D(lm31), Arg::K(Operand::Int(31)), Arg::U(lane)]);
        if gfx9 {
            self.seg_cross(dpp_masked(DppCtrl::RowBcast31, 0xC, 0xF), None, dist, lm31);
            return Some("dpp segmented scan + row_bcast".into());
        }
        // Lane 31 in every lane: rows 0 and 1 never pass `dist > lane mod 32` (lane 0 is a head).
        let u = self.s.temp(self.vclass());
        for k in 0..self.s.parts(u) {
            let sg = self.s.temp(Class::S);
            let (d, src) = (self.s.pd(u, k), self.s.pu(self.cur, k));
            self.s.op(Op::VReadlaneB32, &[Arg::D(sg), src, Arg::K(Operand::Int(31))]);
            self.s.op(Op::VMovB32, &[d, Arg::U(sg)]);
        }
        let cur = self.cur;
        let c = self.s.temp(self.vclass());
        combine(&mut self.s, self.spec.op, self.spec.ty, c, cur, u);
        self.guarded_select(c, dist, lm31);
        Some(self.ladder_name("dpp segmented scan") + " + readlane")
    }

    /// A row-crossing step of `int_seg_wide`: `c = cur ⊕ src(d)` on the lanes `d` writes (the
    /// others hold `cur`: a copy under a fused op, the identity under a separate move), then
    /// `cur = dist > lm ? c : cur`.
    fn seg_cross(&mut self, d: Dpp16, partner: Option<R>, dist: R, lm: R) {
        let vc = self.vclass();
        let cur = self.cur;
        let src = partner.unwrap_or(cur);
        let c = self.s.temp(vc);
        let (op, ty) = (self.spec.op, self.spec.ty);
        let o = if self.spec.wide() { bitwise(op) } else { fusable(op, ty) };
        if let Some(o) = o {
            for k in 0..self.s.parts(c) {
                let (dd, u) = (self.s.pd(c, k), self.s.pu(cur, k));
                self.s.op(Op::VMovB32, &[dd, u]);
            }
            for k in 0..self.s.parts(c) {
                let (dd, u, p) = (self.s.pd(c, k), self.s.pu(cur, k), self.s.pu(src, k));
                self.s.dpp(o, d, &[dd, p, u]);
            }
        } else {
            let idv = self.idv();
            let t = self.s.temp(vc);
            for k in 0..self.s.parts(t) {
                let (dd, u) = (self.s.pd(t, k), self.s.pu(idv, k));
                self.s.op(Op::VMovB32, &[dd, u]);
            }
            self.s.mov_dpp(d, t, src);
            combine(&mut self.s, op, ty, c, cur, t);
        }
        self.guarded_select(c, dist, lm);
    }

    /// `cur = dist > lm ? c : cur`.
    fn guarded_select(&mut self, c: R, dist: R, lm: R) {
        let cur = self.cur;
        let vcc = Arg::K(self.s.vcc());
        self.s.op(Op::VCmpGtU32, &[vcc, Arg::U(dist), Arg::U(lm)]);
        let dst = self.own(true);
        self.s.select_vcc(dst, cur, c);
        self.cur = dst;
    }
}

impl B {
    /// `y` = `x` read from lane `src` (a VGPR of lane indices) with `ds_bpermute_b32`, per part.
    /// `halves`: GFX11 wave64 with reads that may cross the 32-lane halves (bpermute stays in
    /// its half there): also the other half through `v_permlane64`, and a select on whether the
    /// source lane is in the other half. `t`: scratch VGPRs (address, cross, three values).
    fn bpermute_from(&mut self, src: R, x: R, y: R, halves: bool, t: [R; 5]) {
        let [addr, cross, xs, ta, tb] = t;
        let vcc = Arg::K(self.s.vcc());
        let lane = self.lane();
        self.s.op64(Op::VLshlrevB32, &[Arg::D(addr), Arg::K(Operand::Int(2)), Arg::U(src)]);
        if halves {
            self.s.op64(Op::VXorB32, &[Arg::D(cross), Arg::U(src), Arg::U(lane)]);
            self.s.op64(Op::VAndB32, &[Arg::D(cross), Arg::K(Operand::Int(32)), Arg::U(cross)]);
        }
        for j in 0..self.s.parts(x) {
            let (d, u) = (self.s.pd(y, j), self.s.pu(x, j));
            if halves {
                self.s.op(Op::VPermlane64B32, &[Arg::D(xs), u]);
                self.s.op(Op::DsBpermuteB32, &[Arg::D(ta), Arg::U(addr), u]);
                self.s.op(Op::DsBpermuteB32, &[Arg::D(tb), Arg::U(addr), Arg::U(xs)]);
                self.s.op(Op::VCmpNeU32, &[vcc, Arg::K(Operand::Int(0)), Arg::U(cross)]);
                self.s.op(Op::VCndmaskB32, &[d, Arg::U(ta), Arg::U(tb), vcc]);
            } else {
                self.s.op(Op::DsBpermuteB32, &[d, Arg::U(addr), u]);
            }
        }
    }
}

/// The bpermute-ladder baseline: the interpreter's steps with `ds_bpermute_b32` reads (the
/// permlane64 halves emulation on gfx1100 wave64, one `v_permlane64` for the xor-32 step there).
fn bpermute_ladder(spec: Spec) -> Built {
    let mut b = B::new(spec);
    let vc = b.vclass();
    let halves = spec.target.family() == Family::Gfx11 && spec.w() == 64;
    let lane = b.lane();
    let local = b.s.temp(Class::V);
    b.s.op64(Op::VAndB32, &[Arg::D(local), Arg::K(Operand::imm32(spec.tl - 1)), Arg::U(lane)]);
    let (src, addr, cross, xs, ta, tb) = (
        b.s.temp(Class::V),
        b.s.temp(Class::V),
        b.s.temp(Class::V),
        b.s.temp(Class::V),
        b.s.temp(Class::V),
        b.s.temp(Class::V),
    );
    let vcc = Arg::K(b.s.vcc());
    // Reads `v` at `lane ^ k` / `lane - k` into a fresh register.
    let read = |b: &mut B, k: u32, xor: bool| -> R {
        let y = b.s.temp(vc);
        let cur = b.cur;
        if halves && xor && k == 32 {
            for j in 0..b.s.parts(cur) {
                let (d, u) = (b.s.pd(y, j), b.s.pu(cur, j));
                b.s.op(Op::VPermlane64B32, &[d, u]);
            }
            return y;
        }
        if xor {
            b.s.op64(Op::VXorB32, &[Arg::D(src), Arg::K(Operand::imm32(k)), Arg::U(lane)]);
        } else {
            b.s.op64(Op::VSubU32, &[Arg::D(src), Arg::U(lane), Arg::K(Operand::imm32(k))]);
        }
        b.bpermute_from(src, cur, y, halves && spec.tl == 64, [addr, cross, xs, ta, tb]);
        y
    };
    let (op, ty) = (spec.op, spec.ty);
    // The Hillis–Steele steps of a scan (`own_left` false: the lower lane's value is the left
    // operand) or of a segmented reduction (`own_left` true, the order the interpreter combines
    // in): step `k` combines with the value `k` lanes down where `k <= reach` (the lane's index in
    // its tile, or its distance to the segment start).
    let ladder = |b: &mut B, reach: R, own_left: bool| {
        let mut k = 1;
        while k < spec.tl {
            let y = read(b, k, false);
            let cur = b.cur;
            let c = b.s.temp(vc);
            let (l, r) = if own_left { (cur, y) } else { (y, cur) };
            combine(&mut b.s, op, ty, c, l, r);
            b.s.op(Op::VCmpLeU32, &[vcc, Arg::K(Operand::imm32(k)), Arg::U(reach)]);
            let dst = b.own(true);
            b.s.select_vcc(dst, cur, c);
            b.cur = dst;
            k <<= 1;
        }
    };
    match spec.kind {
        Kind::Reduce => {
            let mut k = 1;
            while k < spec.tl {
                let y = read(&mut b, k, true);
                let cur = b.cur;
                let dst = b.own(true);
                combine(&mut b.s, op, ty, dst, cur, y);
                b.cur = dst;
                k <<= 1;
            }
        }
        Kind::Scan { inclusive } => {
            if !inclusive {
                let y = read(&mut b, 1, false);
                b.s.op(Op::VCmpEqU32, &[vcc, Arg::K(Operand::Int(0)), Arg::U(local)]);
                let idv = b.idv();
                let dst = b.own(true);
                b.s.select_vcc(dst, y, idv);
                b.cur = dst;
            }
            ladder(&mut b, local, false);
        }
        Kind::Seg => {
            let dist = b.dist();
            ladder(&mut b, dist, true);
        }
    }
    b.used = Used { bpermute: true, ..Used::default() };
    b.finish("bpermute ladder".into())
}

/// Every candidate for `spec`, the bpermute ladder first.
pub(crate) fn candidates(spec: Spec) -> Vec<Built> {
    let mut out = vec![bpermute_ladder(spec)];
    let allows = [
        Allow::default(),
        Allow { swizzle: true, ..Allow::default() },
        Allow { swizzle: true, bpermute: true, ..Allow::default() },
        Allow { bpermute: true, ..Allow::default() },
        Allow { permlane: true, ..Allow::default() },
    ];
    // Two allowances often build the same ladder: skip it by name before pricing it again.
    let mut push = |b: B, name: String| {
        if !out.iter().any(|o| o.cand.name == name) {
            out.push(b.finish(name));
        }
    };
    for a in allows {
        let mut b = B::new(spec);
        let ok = match spec.kind {
            Kind::Reduce => b.reduce(a, spec.tl),
            Kind::Scan { inclusive } => {
                if inclusive {
                    Some(())
                } else {
                    b.shift(a)
                }
            }
            .and_then(|()| b.scan(a)),
            Kind::Seg => b.seg(a),
        };
        if ok.is_some() {
            let name = b.ladder_name("dpp ladder");
            push(b, name);
        }
    }
    // Integer-only trees (`collective/int_trees.rs`).
    if !spec.float() && spec.tl >= 32 {
        type Tree = fn(&mut B, Allow) -> Option<String>;
        let trees: &[Tree] = match spec.kind {
            Kind::Scan { .. } => &[B::int_scan_wide, B::int_exclusive_late],
            Kind::Reduce => &[B::int_reduce_wide, B::int_reduce_salu],
            Kind::Seg => &[B::int_seg_wide],
        };
        for a in [Allow::default(), Allow { permlane: true, ..Allow::default() }] {
            for tree in trees {
                let mut b = B::new(spec);
                if let Some(n) = tree(&mut b, a) {
                    push(b, n);
                }
            }
        }
    }
    // 64-bit integer min/max reductions as two 32-bit passes (`collective/int_trees.rs`).
    let minmax = matches!(spec.op, GroupOp::Min | GroupOp::Max);
    let halves = spec.wide() && !spec.float() && minmax && spec.kind == Kind::Reduce;
    for a in allows.into_iter().filter(|_| halves) {
        for tree in int_trees::HalfTree::ALL {
            let mut b = B::new(spec);
            if let Some(n) = b.int_reduce_halves(a, tree) {
                push(b, n);
            }
        }
    }
    // Float min/max on order keys (`collective/keys.rs`).
    let keyed = spec.float() && minmax;
    for a in allows.into_iter().filter(|_| keyed) {
        for tree in keys::KeyTree::ALL {
            let mut b = B::new(spec);
            if let Some(n) = b.float_keys(a, tree) {
                push(b, n);
            }
        }
    }
    // Segment guards as SALU-built lane masks (`collective/seg_masks.rs`).
    if spec.kind == Kind::Seg {
        for g in [seg_masks::Guards::Chain, seg_masks::Guards::Dist] {
            for a in [Allow::default(), Allow { permlane: true, ..Allow::default() }] {
                let mut b = B::new(spec);
                if let Some(n) = b.seg_masks(a, g) {
                    push(b, n);
                }
            }
        }
    }
    out
}
