//! Subgroup operations compiled inline on the lane arrays: shuffles and `broadcast`, ballots,
//! `activemask`, `elect`, full-subgroup votes on `bool`, and integer and `bool` reductions and
//! scans (whose result does not depend on the order the lanes are combined in, so a serial
//! combination in lane order is exact). Everything else — `match.*`, `vote.eq`, tiled votes,
//! float reductions and scans (whose association order is the interpreter's butterfly and
//! Hillis–Steele trees), segmented reductions — goes to the host, which runs the interpreter's
//! own lane functions.
//!
//! The rules are the interpreter's (`qd_mir::interp::simt`): inactive lanes keep their registers;
//! a shuffle from an inactive or out-of-range lane gives the reading lane its own value;
//! `broadcast` reads its source lane whatever its activity; inactive lanes count as the identity
//! in a reduction or scan.

use super::{Home, Lower};
use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder};
use qd_mir::inst::Imm;
use qd_mir::ops::{Collective, ExchangeOp, GroupOp, ShuffleKind};
use qd_mir::{CompileError, Inst, ScalarType, Tile, Type, Value};

impl Lower<'_, '_> {
    /// Compiles `inst` inline when this module knows how; `false` sends it to the host.
    pub(super) fn inline_exchange(&mut self, inst: Inst) -> Result<bool, CompileError> {
        let f = self.f;
        let data = &f.insts[inst];
        let args: Vec<Value> = f.args(inst).to_vec();
        let Some(&r) = f.inst_results(inst).first() else { return Ok(false) };
        let arg_ty = |k: usize| args.get(k).map(|&v| f.values[v].ty);
        let imm = data.imm;
        match (data.opcode.exchange(), data.opcode.collective()) {
            (Some(x), _) => match x {
                ExchangeOp::Shuffle(kind) => self.shuffle(kind, args[0], args[1], r)?,
                ExchangeOp::Broadcast => self.broadcast(args[0], args[1], r)?,
                ExchangeOp::Ballot => {
                    let b = self.ballot(args[0])?;
                    self.define(r, b)?;
                }
                ExchangeOp::BallotFirstN => {
                    let Imm::Count(n) = imm else { return Ok(false) };
                    let b = self.ballot(args[0])?;
                    let b = self.b.ins().band_imm_s(b, ((1u64 << n.min(32)) - 1) as i64);
                    let b = self.b.ins().ireduce(types::I32, b);
                    self.define(r, b)?;
                }
                ExchangeOp::ActiveMask => {
                    let m = self.b.use_var(self.mask);
                    self.define(r, m)?;
                }
                ExchangeOp::Elect => {
                    let m = self.b.use_var(self.mask);
                    let first = self.b.ins().ctz(m);
                    self.per_active_lane_result(r, |l, lane| Ok(l.b.ins().icmp(IntCC::Equal, lane, first)))?;
                }
                // Compared bit for bit across lanes: the host's lane functions.
                ExchangeOp::MatchAny | ExchangeOp::MatchAll => return Ok(false),
            },
            (None, Some(c)) => match c {
                Collective::VoteAll | Collective::VoteAny => {
                    // Tiled votes and votes on other types: the host.
                    if imm != Imm::Tile(Tile::Full) || arg_ty(0) != Some(Type::BOOL) {
                        return Ok(false);
                    }
                    let b = self.ballot(args[0])?;
                    let m = self.b.use_var(self.mask);
                    let t = if c == Collective::VoteAll {
                        self.b.ins().icmp(IntCC::Equal, b, m)
                    } else {
                        self.b.ins().icmp_imm_s(IntCC::NotEqual, b, 0)
                    };
                    self.define(r, t)?;
                }
                Collective::Reduce | Collective::Scan => {
                    let (Imm::Group { op, tile, inclusive }, Some(Type::Scalar(ty))) = (imm, arg_ty(0)) else {
                        return Ok(false);
                    };
                    // A scan at width 1 (every value uniform there): the host's lane functions.
                    if c == Collective::Scan && matches!(self.home(r)?, Home::Uniform(_)) {
                        return Ok(false);
                    }
                    match (c == Collective::Reduce, ty.is_float()) {
                        (true, true) => self.float_reduce(op, ty, tile, args[0], r)?,
                        (false, true) => self.float_scan(op, ty, tile, inclusive, args[0], r)?,
                        (true, false) => self.int_reduce(op, ty, tile, args[0], r)?,
                        (false, false) => self.int_scan(op, ty, tile, inclusive, args[0], r)?,
                    }
                }
                Collective::VoteEq | Collective::SegReduce => return Ok(false),
            },
            // Not an exchange or a collective.
            (None, None) => return Ok(false),
        }
        Ok(true)
    }

    /// `v` in lane `lane` (an `i64`), as bits.
    fn lane_bits(&mut self, v: Value, lane: ir::Value) -> Result<ir::Value, CompileError> {
        match self.home(v)? {
            Home::Uniform(var) => {
                let x = self.b.use_var(var);
                Ok(self.bits_of(self.ty(v), x))
            }
            Home::Lanes(slot) => Ok(self.load_lane(slot, lane)),
        }
    }

    /// Defines `r` lane by lane over the active lanes from `value(lane)` (a register value).
    fn per_active_lane_result(
        &mut self,
        r: Value,
        mut value: impl FnMut(&mut Self, ir::Value) -> Result<ir::Value, CompileError>,
    ) -> Result<(), CompileError> {
        let t = self.ty(r);
        match self.home(r)? {
            Home::Uniform(var) => {
                let m = self.b.use_var(self.mask);
                let lane = self.b.ins().ctz(m);
                let x = value(self, lane)?;
                self.b.def_var(var, x);
                Ok(())
            }
            Home::Lanes(slot) => self.active_lane_loop(|l, lane| {
                let x = value(l, lane)?;
                let bits = l.bits_of(t, x);
                l.store_lane(slot, lane, bits);
                Ok(())
            }),
        }
    }

    /// `shuffle.* %v, %s`.
    fn shuffle(&mut self, kind: ShuffleKind, v: Value, s: Value, r: Value) -> Result<(), CompileError> {
        if let Home::Uniform(var) = self.home(v)? {
            // Every lane, active or not, holds the value: each reads it.
            let x = self.b.use_var(var);
            return self.define(r, x);
        }
        let w = i64::from(self.w);
        let t = self.ty(r);
        self.per_active_lane_result(r, |l, lane| {
            let sb = l.lane_bits(s, lane)?;
            let op = l.b.ins().band_imm_s(sb, 0xFFFF_FFFF);
            let (src, in_range) = match kind {
                ShuffleKind::Idx => (l.b.ins().band_imm_s(op, w - 1), None),
                ShuffleKind::Up => {
                    let src = l.b.ins().isub(lane, op);
                    (src, Some(l.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, op, lane)))
                }
                ShuffleKind::Down => {
                    let src = l.b.ins().iadd(lane, op);
                    (src, Some(l.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, src, w)))
                }
                ShuffleKind::Xor => {
                    let src = l.b.ins().bxor(lane, op);
                    (src, Some(l.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, src, w)))
                }
            };
            // The source must be in range and active; shifting by an out-of-range amount is
            // harmless, as the range check masks it.
            let m = l.b.use_var(l.mask);
            let amt = l.b.ins().band_imm_s(src, 63);
            let bit = l.b.ins().ushr(m, amt);
            let bit = l.b.ins().band_imm_s(bit, 1);
            let mut ok = l.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0);
            if let Some(r) = in_range {
                ok = l.b.ins().band(ok, r);
            }
            let from = l.b.ins().select(ok, src, lane);
            let bits = l.lane_bits(v, from)?;
            Ok(l.value_of_bits(t, bits))
        })
    }

    /// `broadcast %v, %lane`: the source lane is the first active lane's `%lane`, read whatever
    /// its activity.
    fn broadcast(&mut self, v: Value, s: Value, r: Value) -> Result<(), CompileError> {
        let m = self.b.use_var(self.mask);
        let first = self.b.ins().ctz(m);
        let sb = self.lane_bits(s, first)?;
        let src = self.b.ins().band_imm_s(sb, i64::from(self.w) - 1);
        let bits = self.lane_bits(v, src)?;
        let x = self.value_of_bits(self.ty(r), bits);
        self.define(r, x)
    }

    /// Combines two register values of `ty` with an order-independent group operator.
    fn combine(&mut self, op: GroupOp, ty: ScalarType, a: ir::Value, b: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        if ty == ScalarType::Bool {
            return match op {
                GroupOp::Add | GroupOp::Or | GroupOp::Max => ins.bor(a, b),
                GroupOp::Mul | GroupOp::And | GroupOp::Min => ins.band(a, b),
                GroupOp::Xor => ins.bxor(a, b),
            };
        }
        let s = ty.is_signed();
        match op {
            GroupOp::Add => ins.iadd(a, b),
            GroupOp::Mul => ins.imul(a, b),
            GroupOp::Min if s => ins.smin(a, b),
            GroupOp::Min => ins.umin(a, b),
            GroupOp::Max if s => ins.smax(a, b),
            GroupOp::Max => ins.umax(a, b),
            GroupOp::And => ins.band(a, b),
            GroupOp::Or => ins.bor(a, b),
            GroupOp::Xor => ins.bxor(a, b),
        }
    }

    /// Lane `lane`'s contribution: its value when active, else the identity.
    fn contribution(
        &mut self,
        v: Value,
        ty: ScalarType,
        lane: ir::Value,
        identity: ir::Value,
    ) -> Result<ir::Value, CompileError> {
        let bits = self.lane_bits(v, lane)?;
        let x = self.value_of_bits(Type::Scalar(ty), bits);
        let m = self.b.use_var(self.mask);
        let bit = self.b.ins().ushr(m, lane);
        let bit = self.b.ins().band_imm_s(bit, 1);
        Ok(self.b.ins().select(bit, x, identity))
    }

    fn identity(&mut self, op: GroupOp, ty: ScalarType) -> ir::Value {
        let bits = op.identity(ty);
        let c = self.b.ins().iconst(types::I64, bits as i64);
        self.value_of_bits(Type::Scalar(ty), c)
    }

    /// `subgroup.reduce` of an integer or `bool`: each tile combined in lane order.
    fn int_reduce(&mut self, op: GroupOp, ty: ScalarType, tile: Tile, v: Value, r: Value) -> Result<(), CompileError> {
        let t = tile_lanes(tile, self.w);
        let id = self.identity(op, ty);
        let rt = Type::Scalar(ty);
        let acc = self.b.declare_var(super::cl_scalar(ty));
        let scratch = self.scratch[1];
        self.lane_loop(|l, lane| {
            let start = l.b.ins().band_imm_s(lane, i64::from(t) - 1);
            let first = l.b.ins().icmp_imm_s(IntCC::Equal, start, 0);
            let a = l.b.use_var(acc);
            let a = l.b.ins().select(first, id, a);
            let x = l.contribution(v, ty, lane, id)?;
            let a = l.combine(op, ty, a, x);
            l.b.def_var(acc, a);
            // The tile's last lane records the tile's result.
            let tile_ix = l.b.ins().ushr_imm_s(lane, i64::from(t.trailing_zeros()));
            let bits = l.bits_of(rt, a);
            l.store_lane(scratch, tile_ix, bits);
            Ok(())
        })?;
        if t == self.w {
            let z = self.b.ins().iconst(types::I64, 0);
            let bits = self.load_lane(scratch, z);
            let x = self.value_of_bits(rt, bits);
            return self.define(r, x);
        }
        self.per_active_lane_result(r, |l, lane| {
            let tile_ix = l.b.ins().ushr_imm_s(lane, i64::from(t.trailing_zeros()));
            let bits = l.load_lane(scratch, tile_ix);
            Ok(l.value_of_bits(rt, bits))
        })
    }

    /// `subgroup.scan` of an integer or `bool`: a prefix in lane order within each tile.
    fn int_scan(
        &mut self,
        op: GroupOp,
        ty: ScalarType,
        tile: Tile,
        inclusive: bool,
        v: Value,
        r: Value,
    ) -> Result<(), CompileError> {
        let t = tile_lanes(tile, self.w);
        let id = self.identity(op, ty);
        let rt = Type::Scalar(ty);
        let acc = self.b.declare_var(super::cl_scalar(ty));
        let Home::Lanes(dst) = self.home(r)? else {
            // A scan is varying; a uniform home would be an analysis defect.
            return Err(CompileError::internal(super::TARGET, "a scan with a uniform result"));
        };
        self.lane_loop(|l, lane| {
            let start = l.b.ins().band_imm_s(lane, i64::from(t) - 1);
            let first = l.b.ins().icmp_imm_s(IntCC::Equal, start, 0);
            let a = l.b.use_var(acc);
            let a = l.b.ins().select(first, id, a);
            let x = l.contribution(v, ty, lane, id)?;
            let next = l.combine(op, ty, a, x);
            l.b.def_var(acc, next);
            let out = if inclusive { next } else { a };
            // Written for every lane, then restored below for the inactive ones.
            let m = l.b.use_var(l.mask);
            let bit = l.b.ins().ushr(m, lane);
            let bit = l.b.ins().band_imm_s(bit, 1);
            let old = l.load_lane(dst, lane);
            let new = l.bits_of(rt, out);
            let keep = l.b.ins().select(bit, new, old);
            l.store_lane(dst, lane, keep);
            Ok(())
        })
    }

    /// Combines two floats exactly as `qd_mir::eval::combine` does (`a` the left operand).
    fn float_combine(&mut self, op: GroupOp, ty: ScalarType, a: ir::Value, b: ir::Value) -> ir::Value {
        let bin = match op {
            GroupOp::Add => qd_mir::ops::BinOp::Add,
            GroupOp::Mul => qd_mir::ops::BinOp::Mul,
            GroupOp::Min => qd_mir::ops::BinOp::Min,
            GroupOp::Max => qd_mir::ops::BinOp::Max,
            // Not defined on floats: the verifier rejects them.
            GroupOp::And | GroupOp::Or | GroupOp::Xor => qd_mir::ops::BinOp::Add,
        };
        self.float_binary(bin, ty, a, b)
    }

    /// Loads every lane's contribution (identity for inactive lanes) into scratch slot 1, as bits.
    fn load_contributions(&mut self, op: GroupOp, ty: ScalarType, v: Value) -> Result<u32, CompileError> {
        let id = self.identity(op, ty);
        let work = self.scratch[1];
        let rt = Type::Scalar(ty);
        self.lane_loop(|l, lane| {
            let x = l.contribution(v, ty, lane, id)?;
            let bits = l.bits_of(rt, x);
            l.store_lane(work, lane, bits);
            Ok(())
        })?;
        Ok(work)
    }

    /// Writes scratch slot `work`'s lanes to `r` for the active lanes (or defines a uniform `r`
    /// from the lowest active lane).
    fn write_back(&mut self, work: u32, ty: ScalarType, r: Value) -> Result<(), CompileError> {
        let rt = Type::Scalar(ty);
        self.per_active_lane_result(r, |l, lane| {
            let bits = l.load_lane(work, lane);
            Ok(l.value_of_bits(rt, bits))
        })
    }

    /// `subgroup.reduce` of floats: the interpreter's butterfly — in round `k` lanes `i` and
    /// `i ^ k` both combine, each with its own value on the left — within each tile.
    fn float_reduce(
        &mut self,
        op: GroupOp,
        ty: ScalarType,
        tile: Tile,
        v: Value,
        r: Value,
    ) -> Result<(), CompileError> {
        let t = tile_lanes(tile, self.w);
        let work = self.load_contributions(op, ty, v)?;
        let rt = Type::Scalar(ty);
        let half = self.w / 2;
        let mut k = 1u32;
        while k < t {
            let s = i64::from(k.trailing_zeros());
            self.counted_loop(half, |l, i| {
                // The i-th pair: lane `lo` has bit `s` clear, `hi = lo | k`.
                let up = l.b.ins().ushr_imm_s(i, s);
                let up = l.b.ins().ishl_imm_s(up, s + 1);
                let low = l.b.ins().band_imm_s(i, i64::from(k) - 1);
                let lo = l.b.ins().bor(up, low);
                let hi = l.b.ins().iadd_imm_s(lo, i64::from(k));
                let (ab, bb) = (l.load_lane(work, lo), l.load_lane(work, hi));
                let (a, b) = (l.value_of_bits(rt, ab), l.value_of_bits(rt, bb));
                let x = l.float_combine(op, ty, a, b);
                let y = l.float_combine(op, ty, b, a);
                let (xb, yb) = (l.bits_of(rt, x), l.bits_of(rt, y));
                l.store_lane(work, lo, xb);
                l.store_lane(work, hi, yb);
                Ok(())
            })?;
            k <<= 1;
        }
        self.write_back(work, ty, r)
    }

    /// `subgroup.scan` of floats: the interpreter's Hillis–Steele steps within each tile
    /// (`v[i] = v[i - k] ⊕ v[i]` for `i mod t ≥ k`, highest lane first).
    fn float_scan(
        &mut self,
        op: GroupOp,
        ty: ScalarType,
        tile: Tile,
        inclusive: bool,
        v: Value,
        r: Value,
    ) -> Result<(), CompileError> {
        let t = tile_lanes(tile, self.w);
        let work = self.load_contributions(op, ty, v)?;
        let rt = Type::Scalar(ty);
        let w = self.w;
        if !inclusive {
            let id = self.identity(op, ty);
            let idb = self.bits_of(rt, id);
            self.counted_loop(w, |l, j| {
                // Descending: lane i = w - 1 - j takes lane i - 1's value (identity at a tile start).
                let top = l.b.ins().iconst(types::I64, i64::from(w) - 1);
                let i = l.b.ins().isub(top, j);
                let pos = l.b.ins().band_imm_s(i, i64::from(t) - 1);
                let start = l.b.ins().icmp_imm_s(IntCC::Equal, pos, 0);
                let prev = l.b.ins().iadd_imm_s(i, -1);
                let prev = l.b.ins().select(start, i, prev);
                let pb = l.load_lane(work, prev);
                let nb = l.b.ins().select(start, idb, pb);
                l.store_lane(work, i, nb);
                Ok(())
            })?;
        }
        let mut k = 1u32;
        while k < t {
            let kk = i64::from(k);
            self.counted_loop(w, |l, j| {
                let top = l.b.ins().iconst(types::I64, i64::from(w) - 1);
                let i = l.b.ins().isub(top, j);
                let pos = l.b.ins().band_imm_s(i, i64::from(t) - 1);
                let go = l.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, pos, kk);
                let (yes, done) = (l.b.create_block(), l.b.create_block());
                l.b.ins().brif(go, yes, &[], done, &[]);
                l.b.switch_to_block(yes);
                let src = l.b.ins().iadd_imm_s(i, -kk);
                let (ab, bb) = (l.load_lane(work, src), l.load_lane(work, i));
                let (a, b) = (l.value_of_bits(rt, ab), l.value_of_bits(rt, bb));
                let x = l.float_combine(op, ty, a, b);
                let xb = l.bits_of(rt, x);
                l.store_lane(work, i, xb);
                l.b.ins().jump(done, &[]);
                l.b.switch_to_block(done);
                Ok(())
            })?;
            k <<= 1;
        }
        self.write_back(work, ty, r)
    }

    /// Runs `body(i)` for `i` in `0..n` (a counted loop; nothing when `n` is 0).
    fn counted_loop(
        &mut self,
        n: u32,
        mut body: impl FnMut(&mut Self, ir::Value) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        if n == 0 {
            return Ok(());
        }
        if n == 1 {
            // One lane: no loop.
            let lane = self.b.ins().iconst(types::I64, 0);
            self.enter_lane(lane);
            body(self, lane)?;
            self.lane_addr = None;
            return Ok(());
        }
        let iv = self.b.declare_var(types::I64);
        let z = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(iv, z);
        let (head, exit) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let i = self.b.use_var(iv);
        self.enter_lane(i);
        body(self, i)?;
        self.lane_addr = None;
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(iv, next);
        let more = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, next, i64::from(n));
        self.b.ins().brif(more, head, &[], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// Runs `body(lane)` for lanes `0..W` in order (a counted loop).
    fn lane_loop(
        &mut self,
        body: impl FnMut(&mut Self, ir::Value) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        self.counted_loop(self.w, body)
    }

    /// Runs `body(lane)` for every active lane in ascending order.
    pub(super) fn active_lane_loop(
        &mut self,
        mut body: impl FnMut(&mut Self, ir::Value) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        if self.w == 1 {
            // Width 1: the one lane is active wherever code runs (see `branches`).
            return self.counted_loop(1, body);
        }
        let m = self.b.use_var(self.mask);
        let rem = self.b.declare_var(types::I64);
        self.b.def_var(rem, m);
        let (head, exit) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(m, head, &[], exit, &[]);
        self.b.switch_to_block(head);
        let r = self.b.use_var(rem);
        let lane = self.b.ins().ctz(r);
        self.enter_lane(lane);
        body(self, lane)?;
        self.lane_addr = None;
        let r = self.b.use_var(rem);
        let r1 = self.b.ins().iadd_imm_s(r, -1);
        let r2 = self.b.ins().band(r, r1);
        self.b.def_var(rem, r2);
        self.b.ins().brif(r2, head, &[], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }
}

/// The lanes of a tile in a subgroup of `w` lanes (the interpreter's clamping).
fn tile_lanes(tile: Tile, w: u32) -> u32 {
    match tile {
        Tile::Full => w,
        Tile::Log2(l) => Tile::Log2(l.min(6)).lanes(w).max(1),
    }
}
