//! The integer and bool trees over 32- and 64-lane tiles: any combination tree is exact for
//! these operators (associative and commutative, wrapping), so these candidates need not follow
//! the interpreter's ladder. They are offered for integers and bool, and `keys.rs`
//! runs them on the integer order keys of floats for float min/max.
//!
//! * `dpp scan + row_bcast` (GFX9) and `dpp scan + permlanex16 [+ readlane]` (GFX11): the row
//!   scan (`row_scan`), then the row-crossing totals — GFX9 `row_bcast:15` row mask 0xA and
//!   `row_bcast:31` row mask 0xC; GFX11 lane 15 of the other row of the pair by `v_permlanex16`
//!   merged into rows 1 and 3, and in 64-lane tiles of wave64 lane 31 by `v_readlane` merged into
//!   rows 2 and 3 (`cross_rows`). Exclusive scans shift first.
//! * `dpp scan + row_shr + permlanex16 [+ readlane]` (GFX11 exclusive scans): the shift last
//!   instead of first — GFX11 has no `wave_shr`, so a shift across rows costs permlanes. The
//!   inclusive row scan, its row-exclusive values by one `row_shr:1` move (the first lane of
//!   each row keeps the identity), then the same row-crossing totals, read off the inclusive
//!   values, merged into the exclusive ones.
//! * `dpp ladder + row_bcast + readlane` (GFX9 reductions): row totals by the butterfly,
//!   `row_bcast:15/31` towards lanes 31 and 63, `v_readlane` of the totals.
//! * `dpp ladder + readlane + salu` (32-bit reductions over a whole wave64): row totals by the
//!   butterfly, the four row totals into SGPRs by `v_readlane` and a two-level tree of scalar
//!   ops (`s_add_u32`, `s_mul_i32`, `s_min/max_[iu]32`, `s_and/or/xor_b32`): no row-crossing
//!   DPP wait states, and the total is uniform in an SGPR.
//!
//! * `…, high then low halves` (64-bit min/max reductions, any tile): two 32-bit reductions
//!   (`int_reduce_halves`) — the high halves, then the low halves of the lanes whose high half
//!   won.
//!
//! Operators that fuse into a DPP VALU op (32-bit add/min/max/and/or/xor, and the bitwise ones
//! per half of a 64-bit value) step in place: `v_op_dpp v, v(ctrl), v`, lanes without a source
//! unwritten. The others (32-bit `mul` — `v_mul_lo_u32` is VOP3-only and takes no DPP on either
//! family — and 64-bit add/mul/min/max) read the partner with a DPP move into a temporary and
//! combine: the row scan reads into *one* identity-filled temporary at the distances 8, 4, 2, 1
//! (each read leaves the first `d` lanes of a row unwritten, and those lanes were left unwritten
//! by every longer read before it, so they still hold the identity: one fill for four steps), and
//! a row-crossing merge combines on every lane into a temporary and moves the result into the
//! rows that take it with one row-masked DPP move.

use qd_mir::eval::identity;
use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use super::seq::{bitwise, combine, dpp, dpp_masked, fusable, Arg, Class, Seq, R};
use super::{Allow, Kind, Spec, B};
use qd_amdgcn_isa::{Dpp16, DppCtrl, Op, Operand};

/// Every lane reads itself: with a row mask, a DPP move that copies exactly those rows.
pub(super) const SAME_LANE: DppCtrl = DppCtrl::QuadPerm([0, 1, 2, 3]);

/// The 32-bit reduction both passes of `int_reduce_halves` run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HalfTree {
    /// The butterfly ladder (`reduce`).
    Ladder,
    /// `int_reduce_wide` (GFX9, 32/64-lane tiles).
    Wide,
    /// `int_reduce_salu` (whole wave64).
    Salu,
}

impl HalfTree {
    /// Every tree, in the order the candidates are built.
    pub(super) const ALL: [HalfTree; 3] = [HalfTree::Ladder, HalfTree::Wide, HalfTree::Salu];
}

impl B {
    /// `cur = cur ⊕ cur(d)` on the lanes `d` writes (integers: any order; the identity fills the
    /// unwritten lanes of the partner for ops that do not fuse).
    fn int_step(&mut self, d: Dpp16, partner: Option<R>) {
        let cur = self.cur;
        let src = partner.unwrap_or(cur);
        let (op, ty) = (self.spec.op, self.spec.ty);
        let o = if self.spec.wide() { bitwise(op) } else { fusable(op, ty) };
        if let Some(o) = o {
            let dst = self.own(self.full(d));
            for k in 0..self.s.parts(cur) {
                let (dd, u, p) = (self.s.pd(dst, k), self.s.pu(cur, k), self.s.pu(src, k));
                self.s.dpp(o, d, &[dd, p, u]);
            }
            self.cur = dst;
            return;
        }
        let t = self.id_fill();
        self.s.mov_dpp(d, t, src);
        let dst = self.own(true);
        combine(&mut self.s, op, ty, dst, cur, t);
        self.cur = dst;
    }

    /// A register filled with the identity, one `v_mov` per part.
    pub(super) fn id_fill(&mut self) -> R {
        let t = self.s.temp(self.vclass());
        for k in 0..self.s.parts(t) {
            let d = self.s.pd(t, k);
            self.s.op(Op::VMovB32, &[d, Arg::K(Operand::imm32((self.spec.id >> (32 * k)) as u32))]);
        }
        t
    }

    /// The scan inside each row of 16 lanes (`row_shr:k`). Fusing operators step in place at
    /// k = 1, 2, 4, 8; the others read into one identity-filled temporary at k = 8, 4, 2, 1
    /// (module docs), which is returned: the first lane of every row still holds the identity.
    fn row_scan(&mut self) -> Option<R> {
        if self.fuses() {
            for k in [1u8, 2, 4, 8] {
                self.int_step(dpp(DppCtrl::RowShr(k)), None);
            }
            return None;
        }
        let t = self.id_fill();
        for k in [8u8, 4, 2, 1] {
            let cur = self.cur;
            self.s.mov_dpp(dpp(DppCtrl::RowShr(k)), t, cur);
            let dst = self.own(true);
            combine(&mut self.s, self.spec.op, self.spec.ty, dst, t, cur);
            self.cur = dst;
        }
        Some(t)
    }

    /// Lane `lane` of `src` as a uniform partner: an SGPR where the merge reads one (a 32-bit
    /// operator that does not fuse: its VOP3 op takes an SGPR source), else copied into VGPRs.
    fn lane_value(&mut self, src: R, lane: i8) -> R {
        if !self.spec.wide() && !self.fuses() {
            let sg = self.s.temp(Class::S);
            self.s.op(Op::VReadlaneB32, &[Arg::D(sg), Arg::U(src), Arg::K(Operand::Int(lane))]);
            return sg;
        }
        let u = self.s.temp(self.vclass());
        for k in 0..self.s.parts(u) {
            let sg = self.s.temp(Class::S);
            let (d, p) = (self.s.pd(u, k), self.s.pu(src, k));
            self.s.op(Op::VReadlaneB32, &[Arg::D(sg), p, Arg::K(Operand::Int(lane))]);
            self.s.op(Op::VMovB32, &[d, Arg::U(sg)]);
        }
        u
    }

    /// `cur = partner ⊕ cur` on the rows of `row_mask`, the other rows untouched: fusing
    /// operators in one row-masked `v_op_dpp` per part; the others combine on every lane into a
    /// temporary and move it into those rows with one row-masked DPP move per part.
    fn merge_rows(&mut self, row_mask: u8, partner: R) {
        let d = Dpp16 { row_mask, ..dpp(SAME_LANE) };
        if self.fuses() {
            self.int_step(d, Some(partner));
            return;
        }
        let cur = self.cur;
        let c = self.s.temp(self.vclass());
        combine(&mut self.s, self.spec.op, self.spec.ty, c, partner, cur);
        let dst = self.own(false);
        self.s.mov_dpp(d, dst, c);
        self.cur = dst;
    }

    /// Integer scans over 32/64-lane tiles: row scan, then the row-crossing totals.
    pub(super) fn int_scan_wide(&mut self, a: Allow) -> Option<String> {
        if self.spec.tl < 32 {
            return None;
        }
        if let Kind::Scan { inclusive: false } = self.spec.kind {
            self.shift(a)?;
        }
        self.row_scan();
        if self.spec.gfx9() {
            self.int_step(dpp_masked(DppCtrl::RowBcast15, 0xA, 0xF), None);
            if self.spec.tl == 64 {
                self.int_step(dpp_masked(DppCtrl::RowBcast31, 0xC, 0xF), None);
            }
            return Some("dpp scan + row_bcast".into());
        }
        if !a.permlane {
            return None;
        }
        let incl = self.cur;
        Some(self.cross_rows(incl, "dpp scan"))
    }

    /// GFX11 exclusive scans with the shift last (module docs).
    pub(super) fn int_exclusive_late(&mut self, a: Allow) -> Option<String> {
        let excl = self.spec.kind == (Kind::Scan { inclusive: false });
        if self.spec.gfx9() || !a.permlane || !excl || self.spec.tl < 32 {
            return None;
        }
        let t = self.row_scan();
        let incl = self.cur;
        let e = match t {
            Some(t) => t,
            None => self.id_fill(),
        };
        self.s.mov_dpp(dpp(DppCtrl::RowShr(1)), e, incl);
        self.cur = e;
        Some(self.cross_rows(incl, "dpp scan + row_shr"))
    }

    /// GFX11 row-crossing steps after a row scan whose inclusive values are in `incl`, merged
    /// into `cur` (`incl` itself, or the row-exclusive values): rows 1 and 3 take the total of
    /// the row below (lane 15 of the other row of the pair by `v_permlanex16`), and in 64-lane
    /// tiles of wave64 rows 2 and 3 the total of lanes 0..=31, lane 31 of `incl` ⊕ that.
    fn cross_rows(&mut self, incl: R, base: &str) -> String {
        let acc = self.cur;
        let p = self.other_row_lane15(incl);
        let top = self.spec.tl == 64 && self.spec.w() == 64;
        if acc == incl {
            self.merge_rows(0xA, p);
            if !top {
                return self.ladder_name(base);
            }
            let cur = self.cur;
            let u = self.lane_value(cur, 31);
            self.merge_rows(0xC, u);
            return self.ladder_name(base) + " + readlane";
        }
        let low = if top {
            let c = self.s.temp(self.vclass());
            combine(&mut self.s, self.spec.op, self.spec.ty, c, p, incl);
            Some(self.lane_value(c, 31))
        } else {
            None
        };
        self.merge_rows(0xA, p);
        match low {
            Some(u) => {
                self.merge_rows(0xC, u);
                self.ladder_name(base) + " + readlane"
            }
            None => self.ladder_name(base),
        }
    }

    /// GFX9 integer reductions over 32/64-lane tiles: row totals, `row_bcast` towards lanes 31
    /// and 63, `v_readlane` of the totals.
    pub(super) fn int_reduce_wide(&mut self, a: Allow) -> Option<String> {
        if !self.spec.gfx9() || self.spec.tl < 32 {
            return None;
        }
        self.reduce(a, 16)?;
        self.int_step(dpp_masked(DppCtrl::RowBcast15, 0xA, 0xF), None);
        let tl = self.spec.tl;
        if tl == 64 {
            self.int_step(dpp_masked(DppCtrl::RowBcast31, 0xC, 0xF), None);
        }
        let cur = self.cur;
        if tl == 64 && !self.spec.wide() {
            // The wave total, uniform: left in an SGPR (a free scalar operand for its users).
            let sg = self.s.temp(Class::S);
            self.s.op(Op::VReadlaneB32, &[Arg::D(sg), Arg::U(cur), Arg::K(Operand::Int(63))]);
            self.cur = sg;
            return Some("dpp ladder + row_bcast + readlane".into());
        }
        let hi_half = if tl == 32 { Some(self.s.temp(self.vclass())) } else { None };
        let dst = self.own(true);
        self.cur = dst;
        for k in 0..self.s.parts(cur) {
            let sg = self.s.temp(Class::S);
            let (src, d) = (self.s.pu(cur, k), self.s.pd(dst, k));
            self.s.op(Op::VReadlaneB32, &[Arg::D(sg), src, Arg::K(Operand::Int(if tl == 64 { 63 } else { 31 }))]);
            if let Some(h) = hi_half {
                let s2 = self.s.temp(Class::S);
                self.s.op(Op::VReadlaneB32, &[Arg::D(s2), src, Arg::K(Operand::Int(63))]);
                let hd = self.s.pd(h, k);
                self.s.op(Op::VMovB32, &[hd, Arg::U(s2)]);
            }
            self.s.op(Op::VMovB32, &[d, Arg::U(sg)]);
        }
        if let Some(h) = hi_half {
            self.s.vcc_mask(0xFFFF_FFFF_0000_0000);
            self.s.select_vcc(dst, dst, h);
        }
        Some("dpp ladder + row_bcast + readlane".into())
    }

    /// 32-bit reductions over a whole wave64: row totals by the butterfly, the four row totals
    /// into SGPRs and a two-level scalar tree; the total is left in an SGPR.
    pub(super) fn int_reduce_salu(&mut self, a: Allow) -> Option<String> {
        if self.spec.wide() || self.spec.tl != 64 || self.spec.w() != 64 {
            return None;
        }
        self.reduce(a, 16)?;
        let cur = self.cur;
        let mut rows = [0; 4];
        for (r, row) in (0i8..).zip(rows.iter_mut()) {
            *row = self.s.temp(Class::S);
            self.s.op(Op::VReadlaneB32, &[Arg::D(*row), Arg::U(cur), Arg::K(Operand::Int(16 * r + 15))]);
        }
        let (lo, hi) = (self.s.temp(Class::S), self.s.temp(Class::S));
        let (op, ty) = (self.spec.op, self.spec.ty);
        salu_combine(&mut self.s, op, ty, lo, rows[0], rows[1]);
        salu_combine(&mut self.s, op, ty, hi, rows[2], rows[3]);
        salu_combine(&mut self.s, op, ty, lo, lo, hi);
        self.cur = lo;
        Some(self.ladder_name("dpp ladder") + " + readlane + salu")
    }
}

impl B {
    /// 64-bit min/max reductions as two 32-bit ones: the high halves first (signed for `i64`),
    /// then the low halves (unsigned) of the lanes whose high half is the tile's result, every
    /// other lane's low half replaced by the identity. Each pass is a 32-bit tree that fuses into
    /// DPP (`v_min_u32_dpp` …) where a 64-bit step costs two moves, a 64-bit compare and two
    /// selects.
    pub(super) fn int_reduce_halves(&mut self, a: Allow, tree: HalfTree) -> Option<String> {
        let spec = self.spec;
        let minmax = matches!(spec.op, GroupOp::Min | GroupOp::Max);
        if !spec.wide() || spec.float() || !minmax || spec.kind != Kind::Reduce || spec.tl < 2 {
            return None;
        }
        let x = self.cur;
        let hty = if spec.ty == ScalarType::I64 { ScalarType::I32 } else { ScalarType::U32 };
        let hi = self.s.temp(Class::V);
        self.s.op(Op::VMovB32, &[Arg::D(hi), Arg::UH(x)]);
        self.half_spec(hty);
        self.cur = hi;
        let name = self.half_tree(a, tree);
        let h = self.cur;
        let lo = self.s.temp(Class::V);
        if name.is_some() {
            let vcc = Arg::K(self.s.vcc());
            self.s.op(Op::VCmpEqU32, &[vcc, Arg::U(h), Arg::UH(x)]);
            let id = Operand::imm32(identity(spec.op, ScalarType::U32) as u32);
            self.s.op(Op::VCndmaskB32, &[Arg::D(lo), Arg::K(id), Arg::UL(x), vcc]);
            self.half_spec(ScalarType::U32);
            self.cur = lo;
        }
        let done = name.and_then(|n| self.half_tree(a, tree).map(|_| n));
        self.spec = spec;
        self.idv = None;
        let name = done?;
        let (l, d) = (self.cur, self.s.temp(Class::W));
        self.s.op(Op::VMovB32, &[Arg::DL(d), Arg::U(l)]);
        self.s.op(Op::VMovB32, &[Arg::DH(d), Arg::U(h)]);
        self.cur = d;
        Some(format!("{name}, high then low halves"))
    }

    /// The builder's spec narrowed to a 32-bit half of type `ty` (same operator and tile).
    fn half_spec(&mut self, ty: ScalarType) {
        self.spec = Spec { ty, id: identity(self.spec.op, ty), ..self.spec };
        self.idv = None;
    }

    /// One 32-bit reduction pass of `int_reduce_halves` on `cur`.
    fn half_tree(&mut self, a: Allow, tree: HalfTree) -> Option<String> {
        match tree {
            HalfTree::Ladder => {
                let tl = self.spec.tl;
                self.reduce(a, tl).map(|()| self.ladder_name("dpp ladder"))
            }
            HalfTree::Wide => self.int_reduce_wide(a),
            HalfTree::Salu => self.int_reduce_salu(a),
        }
    }
}

/// `d = a ⊕ b` on the scalar unit, 32-bit integers and bool (may clobber SCC).
fn salu_combine(s: &mut Seq, op: GroupOp, ty: ScalarType, d: R, a: R, b: R) {
    let signed = ty == ScalarType::I32;
    let o = match op {
        GroupOp::Add => Op::SAddU32,
        GroupOp::Mul => Op::SMulI32,
        GroupOp::Min if signed => Op::SMinI32,
        GroupOp::Min => Op::SMinU32,
        GroupOp::Max if signed => Op::SMaxI32,
        GroupOp::Max => Op::SMaxU32,
        GroupOp::And => Op::SAndB32,
        GroupOp::Or => Op::SOrB32,
        GroupOp::Xor => Op::SXorB32,
    };
    s.op(o, &[Arg::D(d), Arg::U(a), Arg::U(b)]);
}
