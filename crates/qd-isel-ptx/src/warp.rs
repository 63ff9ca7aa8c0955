//! Launch indices, warp ops (shuffles, ballots, votes, reductions, scans, segmented reductions)
//! and barriers/fences.
//!
//! Member masks come from the structure: under full activity (the region is uniform, every warp
//! of the block is whole and no lane has returned early) the mask is `0xffffffff`; elsewhere it
//! is `activemask.b32` read at the op. Every op then follows the interpreter's definition
//! exactly (docs/interpreter.md §2):
//! - shuffles read the source lane through `shfl.sync` and keep the own value when the source is
//!   out of range, the delta is ≥ 32 (PTX reads only its low 5 bits) or, under partial activity,
//!   the source lane is inactive;
//! - votes over a tile narrower than the warp use the ballot restricted to the tile;
//! - reductions use `redux.sync` (sm_80+, 32-bit integers; tile lanes by member mask) or the
//!   `shfl.sync.bfly` butterfly; scans the `shfl.sync.up` Hillis–Steele steps with the segment
//!   clamp as the predicate; both in the expansion's exact combination order;
//! - under partial activity a reduction or scan that `redux.sync` cannot do gathers the tile's
//!   values (`shfl.sync.idx`, the identity for inactive lanes) and runs the same tree on them in
//!   registers, so results stay bit-identical to the interpreter.

use crate::emit::{arith, bits, ins, Class, Immediate, OrPred, Pair, Reg};
use crate::lower::{mov_ty, Lower};
use crate::scalar;
use crate::target::Feature;
use crate::text::{Hex, Hex16, Hex8};
use crate::{CompileError, ReduceStrategy};
use qd_mir::eval::identity;
use qd_mir::BinOp;
use qd_mir::{
    CmpCond, Collective, Dim, ExchangeOp, GroupOp, Imm, IndexOp, Inst, LaneMask, Opcode, PredOp, ScalarType,
    ShuffleKind, SyncOp, Tile, ValueDef,
};

/// The lane-combining collectives with an operator: how [`group`] lowers each.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Group {
    Reduce,
    Scan,
    SegReduce,
}

/// Lowers a launch index, size or lane mask.
pub(crate) fn index(lw: &mut Lower<'_>, inst: Inst, op: IndexOp) -> Result<(), CompileError> {
    let imm = lw.f.insts[inst].imm;
    let res = lw.result(inst)?;
    let sreg = match op {
        IndexOp::ThreadId => "%tid",
        IndexOp::BlockId => "%ctaid",
        IndexOp::BlockDim => "%ntid",
        IndexOp::GridDim => "%nctaid",
        IndexOp::LaneId => {
            let d = lw.def(res);
            ins!(lw.e, "mov.u32 {}, %laneid", d);
            return Ok(());
        }
        IndexOp::SubgroupId => {
            let tid = lw.linear_tid();
            let d = lw.def(res);
            ins!(lw.e, "shr.u32 {}, {}, 5", d, tid);
            return Ok(());
        }
        IndexOp::SubgroupSize => {
            let d = lw.def(res);
            ins!(lw.e, "mov.b32 {}, 32", d);
            return Ok(());
        }
        IndexOp::LaneMask(m) => {
            let sreg = match m {
                LaneMask::Lt => "%lanemask_lt",
                LaneMask::Le => "%lanemask_le",
                LaneMask::Eq => "%lanemask_eq",
                LaneMask::Ge => "%lanemask_ge",
                LaneMask::Gt => "%lanemask_gt",
            };
            let r = lw.e.reg(Class::B32);
            ins!(lw.e, "mov.u32 {}, {}", r, sreg);
            let d = lw.def(res);
            ins!(lw.e, "cvt.u64.u32 {}, {}", d, r);
            return Ok(());
        }
    };
    let Imm::Dim(dim) = imm else { return Err(lw.internal("malformed dimension")) };
    let d = lw.def(res);
    ins!(lw.e, "mov.u32 {}, {}.{}", d, sreg, dim_name(dim));
    Ok(())
}

/// Lowers a lane exchange: shuffles, `broadcast`, ballots, `match.*`, `activemask`, `elect`.
pub(crate) fn exchange(lw: &mut Lower<'_>, inst: Inst, op: ExchangeOp) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    let res = lw.result(inst)?;
    match op {
        ExchangeOp::Shuffle(kind) => shuffle(lw, kind, args[0], args[1], res),
        ExchangeOp::Broadcast => {
            let t = lw.scalar(args[0]);
            let v = lw.r(args[0])?;
            let lane = lane_operand(lw, args[1])?;
            let mask = lw.member_mask()?;
            let (r, _) = shfl(lw, "idx", t, v, &lane, 0x1f, &mask, false);
            let d = lw.def(res);
            ins!(lw.e, "mov.{} {}, {}", mov_ty(d.class), d, r);
            Ok(())
        }
        ExchangeOp::Ballot | ExchangeOp::BallotFirstN => {
            let p = lw.r(args[0])?;
            let mask = lw.member_mask()?;
            let b = lw.e.reg(Class::B32);
            ins!(lw.e, "vote.sync.ballot.b32 {}, {}, {}", b, p, mask);
            let d = lw.def(res);
            if op == ExchangeOp::Ballot {
                ins!(lw.e, "cvt.u64.u32 {}, {}", d, b);
            } else {
                let Imm::Count(n) = data.imm else { return Err(lw.internal("malformed count")) };
                let keep = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
                ins!(lw.e, "and.b32 {}, {}, 0x{}", d, b, Hex8(keep));
            }
            Ok(())
        }
        ExchangeOp::ActiveMask => {
            lw.need(Feature::ActiveMask)?;
            let r = lw.e.reg(Class::B32);
            ins!(lw.e, "activemask.b32 {}", r);
            let d = lw.def(res);
            ins!(lw.e, "cvt.u64.u32 {}, {}", d, r);
            Ok(())
        }
        ExchangeOp::MatchAny | ExchangeOp::MatchAll => {
            let t = lw.scalar(args[0]);
            let v = lw.r(args[0])?;
            let mask = lw.member_mask()?;
            let x = if t == ScalarType::Bool {
                let x = lw.e.reg(Class::B32);
                ins!(lw.e, "selp.u32 {}, 1, 0, {}", x, v);
                x
            } else {
                v
            };
            let w = if t.bits() == 64 { "b64" } else { "b32" };
            let kind = if op == ExchangeOp::MatchAny { "any" } else { "all" };
            let r = lw.e.reg(Class::B32);
            ins!(lw.e, "match.{}.sync.{} {}, {}, {}", kind, w, r, x, mask);
            let d = lw.def(res);
            ins!(lw.e, "cvt.u64.u32 {}, {}", d, r);
            Ok(())
        }
        ExchangeOp::Elect => {
            let mask = lw.member_mask()?;
            let d = lw.def(res);
            if lw.e.target >= Feature::Elect.min_target() {
                lw.need(Feature::Elect)?;
                ins!(lw.e, "elect.sync _|{}, {}", d, mask);
            } else {
                // The lowest member lane: no member below this lane.
                let (lt, m) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32));
                ins!(lw.e, "mov.u32 {}, %lanemask_lt", lt);
                ins!(lw.e, "and.b32 {}, {}, {}", m, lt, mask);
                ins!(lw.e, "setp.eq.u32 {}, {}, 0", d, m);
            }
            Ok(())
        }
    }
}

/// Lowers a tiled collective: votes, reductions, scans, segmented reductions.
pub(crate) fn collective(lw: &mut Lower<'_>, inst: Inst, op: Collective) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    let res = lw.result(inst)?;
    let group_kind = match op {
        Collective::VoteAll | Collective::VoteAny | Collective::VoteEq => {
            let Imm::Tile(tile) = data.imm else { return Err(lw.internal("malformed tile")) };
            let t = tile_lanes(tile);
            let d = lw.def(res);
            let pred = if op == Collective::VoteEq { vote_eq_pred(lw, args[0], t)? } else { lw.r(args[0])? };
            return vote(lw, op != Collective::VoteAny, pred, t, d);
        }
        Collective::Reduce => Group::Reduce,
        Collective::Scan => Group::Scan,
        Collective::SegReduce => Group::SegReduce,
    };
    let Imm::Group { op: g, tile, inclusive } = data.imm else {
        return Err(lw.internal("malformed group immediate"));
    };
    group(lw, group_kind, g, tile_lanes(tile), inclusive, args, res)
}

/// Lowers a barrier, fence or `nanosleep`.
pub(crate) fn sync(lw: &mut Lower<'_>, inst: Inst, op: SyncOp) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    match op {
        SyncOp::Nanosleep => {
            lw.need(Feature::Nanosleep)?;
            let ns = lw.r(args[0])?;
            ins!(lw.e, "nanosleep.u32 {}", ns);
        }
        SyncOp::SubgroupSync => {
            let mask = lw.member_mask()?;
            ins!(lw.e, "bar.warp.sync {}", mask);
        }
        SyncOp::BlockSync => ins!(lw.e, "bar.sync 0"),
        SyncOp::BlockSyncPred => {
            let Imm::Pred(pop) = data.imm else { return Err(lw.internal("malformed predicate op")) };
            let p = lw.r(args[0])?;
            let d = lw.def(lw.result(inst)?);
            match pop {
                PredOp::And => ins!(lw.e, "bar.red.and.pred {}, 0, {}", d, p),
                PredOp::Or => ins!(lw.e, "bar.red.or.pred {}, 0, {}", d, p),
                PredOp::Count => ins!(lw.e, "bar.red.popc.u32 {}, 0, {}", d, p),
            }
        }
        SyncOp::Fence => {
            let Imm::Scope(s) = data.imm else { return Err(lw.internal("malformed scope")) };
            ins!(lw.e, "fence.sc.{}", crate::lower::scope_name(s));
        }
    }
    Ok(())
}

fn dim_name(d: Dim) -> &'static str {
    match d {
        Dim::X => "x",
        Dim::Y => "y",
        Dim::Z => "z",
    }
}

/// Lanes of a tile in a 32-lane warp.
fn tile_lanes(t: Tile) -> u32 {
    t.lanes(32)
}

/// A lane/delta/mask operand as a 32-bit register name (64-bit operands: their low half).
fn lane_operand(lw: &mut Lower<'_>, v: qd_mir::Value) -> Result<String, CompileError> {
    let r = lw.r(v)?;
    if r.class == Class::B64 {
        let lo = lw.e.reg(Class::B32);
        ins!(lw.e, "cvt.u32.u64 {}, {}", lo, r);
        Ok(lo.to_string())
    } else {
        Ok(r.to_string())
    }
}

/// The constant value of `v`, if it is defined by a `const`.
fn const_of(lw: &Lower<'_>, v: qd_mir::Value) -> Option<u64> {
    match lw.f.values[v].def {
        ValueDef::Result(i, _) if lw.f.insts[i].opcode == Opcode::Const => match lw.f.insts[i].imm {
            Imm::Const(b) => Some(b),
            _ => None,
        },
        _ => None,
    }
}

/// One `shfl.sync` of a value of any scalar type: bool travels as 0/1, 64-bit values as two
/// halves with the same lane operands. Returns the shuffled value and, if asked, the in-range
/// predicate.
#[allow(clippy::too_many_arguments)]
fn shfl(
    lw: &mut Lower<'_>,
    mode: &str,
    t: ScalarType,
    v: Reg,
    b: &str,
    c: u32,
    mask: &str,
    want_pred: bool,
) -> (Reg, Option<Reg>) {
    let p = want_pred.then(|| lw.e.reg(Class::Pred));
    match t {
        ScalarType::Bool => {
            let (x, y) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32));
            ins!(lw.e, "selp.u32 {}, 1, 0, {}", x, v);
            ins!(lw.e, "shfl.sync.{}.b32 {}{}, {}, {}, 0x{}, {}", mode, y, OrPred(p), x, b, Hex(c), mask);
            let d = lw.e.reg(Class::Pred);
            ins!(lw.e, "setp.ne.u32 {}, {}, 0", d, y);
            (d, p)
        }
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => {
            let d = lw.e.reg(v.class);
            ins!(lw.e, "shfl.sync.{}.b32 {}{}, {}, {}, 0x{}, {}", mode, d, OrPred(p), v, b, Hex(c), mask);
            (d, p)
        }
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => {
            let (lo, hi) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32));
            ins!(lw.e, "mov.b64 {}, {}", Pair(lo, hi), v);
            ins!(lw.e, "shfl.sync.{}.b32 {}{}, {}, {}, 0x{}, {}", mode, lo, OrPred(p), lo, b, Hex(c), mask);
            ins!(lw.e, "shfl.sync.{}.b32 {}, {}, {}, 0x{}, {}", mode, hi, hi, b, Hex(c), mask);
            let d = lw.e.reg(v.class);
            ins!(lw.e, "mov.b64 {}, {}", d, Pair(lo, hi));
            (d, p)
        }
    }
}

/// `d = q ? a : b` for any register class.
fn select(lw: &mut Lower<'_>, d: Reg, q: Reg, a: Reg, b: Reg) {
    if d.class == Class::Pred {
        let (t1, t2) = (lw.e.reg(Class::Pred), lw.e.reg(Class::Pred));
        ins!(lw.e, "and.pred {}, {}, {}", t1, q, a);
        ins!(lw.e, "and.pred {}, !{}, {}", t2, q, b);
        ins!(lw.e, "or.pred {}, {}, {}", d, t1, t2);
    } else {
        ins!(lw.e, "selp.{} {}, {}, {}, {}", sel_bits(d.class), d, a, b, q);
    }
}

fn sel_bits(c: Class) -> &'static str {
    match c {
        Class::Pred | Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    }
}

/// `shuffle.idx/up/down/xor` with the interpreter's rules for out-of-range and inactive sources.
fn shuffle(
    lw: &mut Lower<'_>,
    op: ShuffleKind,
    val: qd_mir::Value,
    x: qd_mir::Value,
    res: qd_mir::Value,
) -> Result<(), CompileError> {
    let t = lw.scalar(val);
    let v = lw.r(val)?;
    let b = lane_operand(lw, x)?;
    let full = lw.full_activity();
    let mask = lw.member_mask()?;
    let (mode, c) = match op {
        ShuffleKind::Idx => ("idx", 0x1f),
        ShuffleKind::Up => ("up", 0),
        ShuffleKind::Down => ("down", 0x1f),
        ShuffleKind::Xor => ("bfly", 0x1f),
    };
    let d = lw.def(res);
    let xc = const_of(lw, x).map(|k| k & 0xffff_ffff);
    if op != ShuffleKind::Idx && xc.is_some_and(|k| k >= 32) {
        // Every source is out of range: the own value.
        ins!(lw.e, "mov.{} {}, {}", mov_ty(d.class), d, v);
        return Ok(());
    }
    // `idx` is always in range; so is `bfly` with a constant mask below 32 (lane ^ k < 32).
    let want_pred = !(op == ShuffleKind::Idx || (op == ShuffleKind::Xor && xc.is_some()));
    let (r, p) = shfl(lw, mode, t, v, &b, c, &mask, want_pred);
    // The validity predicate: in range, delta < 32, and (partial activity) the source active.
    let mut valid = p;
    if want_pred && xc.is_none() {
        let q = lw.e.reg(Class::Pred);
        let p = valid.ok_or_else(|| lw.internal("a relative shuffle without its in-range predicate"))?;
        ins!(lw.e, "setp.lt.and.u32 {}, {}, 32, {}", q, b, p);
        valid = Some(q);
    }
    if !full {
        let (lane, src, bit) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32), lw.e.reg(Class::B32));
        ins!(lw.e, "mov.u32 {}, %laneid", lane);
        match op {
            ShuffleKind::Idx => ins!(lw.e, "and.b32 {}, {}, 31", src, b),
            ShuffleKind::Up => ins!(lw.e, "sub.u32 {}, {}, {}", src, lane, b),
            ShuffleKind::Down => ins!(lw.e, "add.u32 {}, {}, {}", src, lane, b),
            ShuffleKind::Xor => ins!(lw.e, "xor.b32 {}, {}, {}", src, lane, b),
        }
        ins!(lw.e, "shr.b32 {}, {}, {}", bit, mask, src);
        ins!(lw.e, "and.b32 {}, {}, 1", bit, bit);
        let q = lw.e.reg(Class::Pred);
        match valid {
            Some(p) => ins!(lw.e, "setp.ne.and.u32 {}, {}, 0, {}", q, bit, p),
            None => ins!(lw.e, "setp.ne.u32 {}, {}, 0", q, bit),
        }
        valid = Some(q);
    }
    match valid {
        Some(q) => select(lw, d, q, r, v),
        None => ins!(lw.e, "mov.{} {}, {}", mov_ty(d.class), d, r),
    }
    Ok(())
}

/// Registers for the tile of the current lane: (tile base lane, tile's lane mask).
fn tile_mask(lw: &mut Lower<'_>, t: u32) -> (Reg, Reg) {
    let (base, tm) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32));
    ins!(lw.e, "mov.u32 {}, %laneid", base);
    ins!(lw.e, "and.b32 {}, {}, 0x{}", base, base, Hex8(!(t - 1)));
    let ones = if t >= 32 { u32::MAX } else { (1u32 << t) - 1 };
    ins!(lw.e, "shl.b32 {}, 0x{}, {}", tm, Hex8(ones), base);
    (base, tm)
}

/// `vote.all` / `vote.any` of a predicate over the active lanes of each tile.
fn vote(lw: &mut Lower<'_>, all: bool, p: Reg, t: u32, d: Reg) -> Result<(), CompileError> {
    if t == 1 {
        ins!(lw.e, "mov.pred {}, {}", d, p);
        return Ok(());
    }
    let mask = lw.member_mask()?;
    if t >= 32 {
        ins!(lw.e, "vote.sync.{}.pred {}, {}, {}", if all { "all" } else { "any" }, d, p, mask);
        return Ok(());
    }
    let b = lw.e.reg(Class::B32);
    ins!(lw.e, "vote.sync.ballot.b32 {}, {}, {}", b, p, mask);
    let (_, tm) = tile_mask(lw, t);
    ins!(lw.e, "and.b32 {}, {}, {}", b, b, tm);
    if all {
        let a = lw.e.reg(Class::B32);
        ins!(lw.e, "and.b32 {}, {}, {}", a, mask, tm);
        ins!(lw.e, "setp.eq.u32 {}, {}, {}", d, b, a);
    } else {
        ins!(lw.e, "setp.ne.u32 {}, {}, 0", d, b);
    }
    Ok(())
}

/// The per-lane predicate of `vote.eq`: the value equals the tile's first active lane's.
fn vote_eq_pred(lw: &mut Lower<'_>, val: qd_mir::Value, t: u32) -> Result<Reg, CompileError> {
    let ty = lw.scalar(val);
    let v = lw.r(val)?;
    let eq = lw.e.reg(Class::Pred);
    if t == 1 {
        scalar::compare(lw, CmpCond::Eq, ty, eq, v, v)?;
        return Ok(eq);
    }
    let full = lw.full_activity();
    let mask = lw.member_mask()?;
    let (base, tm) = tile_mask(lw, t);
    let first = if full {
        base
    } else {
        let (m, first) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32));
        ins!(lw.e, "and.b32 {}, {}, {}", m, mask, tm);
        ins!(lw.e, "brev.b32 {}, {}", m, m);
        ins!(lw.e, "clz.b32 {}, {}", first, m);
        first
    };
    let (x, _) = shfl(lw, "idx", ty, v, &first.to_string(), 0x1f, &mask, false);
    scalar::compare(lw, CmpCond::Eq, ty, eq, v, x)?;
    Ok(eq)
}

/// The domain a group op computes in: bool travels as u32 0/1 with its bool operator.
struct Domain {
    orig: ScalarType,
    work: ScalarType,
    combine: BinOp,
    op: GroupOp,
}

impl Domain {
    fn new(orig: ScalarType, op: GroupOp) -> Domain {
        let g = qd_mir::GroupDomain::new(orig, op);
        Domain { orig, work: g.work, combine: g.work_op.binop(), op }
    }

    fn identity_reg(&self, lw: &mut Lower<'_>) -> Reg {
        let bits_ = identity(self.op, self.orig);
        let r = lw.e.reg(Class::of_scalar(self.work));
        match self.work {
            ScalarType::Bool | ScalarType::I32 | ScalarType::U32 => {
                ins!(lw.e, "mov.b32 {}, 0x{}", r, Hex8(bits_ as u32))
            }
            ScalarType::I64 | ScalarType::U64 => ins!(lw.e, "mov.b64 {}, 0x{}", r, Hex16(bits_)),
            ScalarType::F32 | ScalarType::F64 => {
                ins!(lw.e, "mov.{} {}, {}", arith(self.work), r, Immediate(self.work, bits_))
            }
        }
        r
    }

    /// `d = a ⊕ b` in the working type.
    fn combine(&self, lw: &mut Lower<'_>, a: Reg, b: Reg) -> Result<Reg, CompileError> {
        let d = lw.e.reg(Class::of_scalar(self.work));
        scalar::binary(lw, self.combine, self.work, d, a, b)?;
        Ok(d)
    }

    fn enter(&self, lw: &mut Lower<'_>, v: Reg) -> Reg {
        if self.orig == ScalarType::Bool {
            let x = lw.e.reg(Class::B32);
            ins!(lw.e, "selp.u32 {}, 1, 0, {}", x, v);
            x
        } else {
            v
        }
    }

    fn leave(&self, lw: &mut Lower<'_>, x: Reg, d: Reg) {
        if self.orig == ScalarType::Bool {
            ins!(lw.e, "setp.ne.u32 {}, {}, 0", d, x);
        } else {
            ins!(lw.e, "mov.{} {}, {}", mov_ty(d.class), d, x);
        }
    }
}

/// `redux.sync` applies: 32-bit integers (or bool as 0/1) and an operator it has.
fn redux_op(d: &Domain) -> Option<&'static str> {
    let int32 = matches!(d.work, ScalarType::I32 | ScalarType::U32);
    if !int32 {
        return None;
    }
    let signed = d.work == ScalarType::I32;
    Some(match d.combine {
        BinOp::Add => "add.u32",
        BinOp::Min if signed => "min.s32",
        BinOp::Min => "min.u32",
        BinOp::Max if signed => "max.s32",
        BinOp::Max => "max.u32",
        BinOp::And => "and.b32",
        BinOp::Or => "or.b32",
        BinOp::Xor => "xor.b32",
        BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr => return None,
    })
}

/// Reductions, scans and segmented reductions.
fn group(
    lw: &mut Lower<'_>,
    kind: Group,
    g: GroupOp,
    t: u32,
    inclusive: bool,
    args: &[qd_mir::Value],
    res: qd_mir::Value,
) -> Result<(), CompileError> {
    let ty = lw.scalar(args[0]);
    let dom = Domain::new(ty, g);
    let v = lw.r(args[0])?;
    let d = lw.def(res);
    if t == 1 {
        // A one-lane tile: reduce/inclusive scan/segreduce are the value, exclusive the identity.
        if kind == Group::Scan && !inclusive {
            let id = dom.identity_reg(lw);
            dom.leave(lw, id, d);
        } else {
            ins!(lw.e, "mov.{} {}, {}", mov_ty(d.class), d, v);
        }
        return Ok(());
    }
    let full = lw.full_activity();
    let x = dom.enter(lw, v);
    let out = match kind {
        Group::Reduce => {
            let redux = redux_op(&dom);
            let use_redux = match lw.opts.reduce {
                ReduceStrategy::Redux => {
                    let Some(_) = redux else {
                        return Err(lw.unsupported(
                            Some(ty),
                            format!("`redux.sync` has no `{}` on {} (forced strategy `redux`)", g.name(), ty.name()),
                        ));
                    };
                    lw.need(Feature::Redux)?;
                    true
                }
                ReduceStrategy::Auto => redux.is_some() && lw.e.target >= Feature::Redux.min_target(),
                ReduceStrategy::ShuffleTree => false,
            };
            if use_redux {
                lw.need(Feature::Redux)?;
                let rop = redux.ok_or_else(|| lw.internal("`redux.sync` chosen without an operator"))?;
                let mask = lw.member_mask()?;
                let m = if t >= 32 {
                    mask
                } else {
                    let (_, tm) = tile_mask(lw, t);
                    if full {
                        tm.to_string()
                    } else {
                        let m = lw.e.reg(Class::B32);
                        ins!(lw.e, "and.b32 {}, {}, {}", m, mask, tm);
                        m.to_string()
                    }
                };
                let r = lw.e.reg(Class::B32);
                ins!(lw.e, "redux.sync.{} {}, {}, {}", rop, r, x, m);
                r
            } else if full {
                let mut x = x;
                let mut k = 1;
                while k < t {
                    let (s, _) = shfl(lw, "bfly", dom.work, x, &k.to_string(), 0x1f, "0xffffffff", false);
                    x = dom.combine(lw, x, s)?;
                    k <<= 1;
                }
                x
            } else {
                partial_butterfly(lw, &dom, x, t)?
            }
        }
        Group::Scan => {
            if full {
                let c_up = (32 - t) << 8;
                let mut x = x;
                if !inclusive {
                    let (p, q) = shfl(lw, "up", dom.work, x, "1", c_up, "0xffffffff", true);
                    let id = dom.identity_reg(lw);
                    let e = lw.e.reg(x.class);
                    select(lw, e, q.expect("asked for"), p, id);
                    x = e;
                }
                let mut k = 1;
                while k < t {
                    let (p, q) = shfl(lw, "up", dom.work, x, &k.to_string(), c_up, "0xffffffff", true);
                    let c = dom.combine(lw, p, x)?;
                    let nx = lw.e.reg(x.class);
                    select(lw, nx, q.expect("asked for"), c, x);
                    x = nx;
                    k <<= 1;
                }
                x
            } else {
                let vals = gather(lw, &dom, x, t)?;
                let mut e: Vec<Reg> = if inclusive {
                    vals
                } else {
                    let mut s = vec![dom.identity_reg(lw)];
                    s.extend_from_slice(&vals[..vals.len() - 1]);
                    s
                };
                let mut k = 1;
                while k < t as usize {
                    for i in (k..t as usize).rev() {
                        e[i] = dom.combine(lw, e[i - k], e[i])?;
                    }
                    k <<= 1;
                }
                pick_own(lw, &e, t)
            }
        }
        Group::SegReduce => {
            let head = lw.r(args[1])?;
            let hty = lw.scalar(args[1]);
            let hb = if hty == ScalarType::Bool {
                head
            } else {
                let p = lw.e.reg(Class::Pred);
                ins!(lw.e, "setp.ne.{} {}, {}, 0", bits(hty), p, head);
                p
            };
            let mask = lw.member_mask()?;
            let hm = lw.e.reg(Class::B32);
            ins!(lw.e, "vote.sync.ballot.b32 {}, {}, {}", hm, hb, mask);
            if full {
                let (base, tm) = tile_mask(lw, t);
                let (lane, eff, bb, incl, m, h, dist) = (
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                    lw.e.reg(Class::B32),
                );
                ins!(lw.e, "mov.u32 {}, %laneid", lane);
                ins!(lw.e, "and.b32 {}, {}, {}", eff, hm, tm);
                ins!(lw.e, "shl.b32 {}, 1, {}", bb, base);
                ins!(lw.e, "or.b32 {}, {}, {}", eff, eff, bb);
                ins!(lw.e, "sub.u32 {}, 31, {}", incl, lane);
                ins!(lw.e, "shr.b32 {}, 0xFFFFFFFF, {}", incl, incl);
                ins!(lw.e, "and.b32 {}, {}, {}", m, eff, incl);
                ins!(lw.e, "clz.b32 {}, {}", h, m);
                ins!(lw.e, "sub.u32 {}, 31, {}", h, h);
                ins!(lw.e, "sub.u32 {}, {}, {}", dist, lane, h);
                let mut x = x;
                let mut k = 1;
                while k < t {
                    let (p, _) = shfl(lw, "up", dom.work, x, &k.to_string(), 0, "0xffffffff", false);
                    let q = lw.e.reg(Class::Pred);
                    ins!(lw.e, "setp.ge.u32 {}, {}, {}", q, dist, k);
                    let c = dom.combine(lw, x, p)?;
                    let nx = lw.e.reg(x.class);
                    select(lw, nx, q, c, x);
                    x = nx;
                    k <<= 1;
                }
                x
            } else {
                let vals = gather(lw, &dom, x, t)?;
                let (base, _) = tile_mask(lw, t);
                let hmt = lw.e.reg(Class::B32);
                ins!(lw.e, "shr.b32 {}, {}, {}", hmt, hm, base);
                let mut e = vals;
                let mut k = 1usize;
                while k < t as usize {
                    for i in (k..t as usize).rev() {
                        // dist_i >= k  ⟺  no head at tile positions i-k+1 ..= i.
                        let window = (((1u64 << k) - 1) << (i - k + 1)) as u32;
                        // c = 0 when the window has no head (combine), -1 otherwise.
                        let w = lw.e.reg(Class::B32);
                        ins!(lw.e, "and.b32 {}, {}, 0x{}", w, hmt, Hex8(window));
                        ins!(lw.e, "min.u32 {}, {}, 1", w, w);
                        ins!(lw.e, "neg.s32 {}, {}", w, w);
                        let c = dom.combine(lw, e[i], e[i - k])?;
                        let ni = lw.e.reg(c.class);
                        ins!(lw.e, "slct.{}.s32 {}, {}, {}, {}", sel_bits(ni.class), ni, c, e[i], w);
                        e[i] = ni;
                    }
                    k <<= 1;
                }
                pick_own(lw, &e, t)
            }
        }
    };
    dom.leave(lw, out, d);
    Ok(())
}

/// The butterfly under partial activity, exact: after the steps below `k`, every lane of an
/// aligned `k`-lane group holds the same partial (the operators are commutative), so the partner
/// group's partial can be read from ANY active lane of that group — its first — and a group with
/// no active lane contributes the identity. log2(T) `shfl.sync.idx` steps instead of a gather.
fn partial_butterfly(lw: &mut Lower<'_>, dom: &Domain, x: Reg, t: u32) -> Result<Reg, CompileError> {
    let mask = lw.member_mask()?;
    let id = dom.identity_reg(lw);
    let lane = lw.e.reg(Class::B32);
    ins!(lw.e, "mov.u32 {}, %laneid", lane);
    let mut x = x;
    let mut k = 1u32;
    while k < t {
        let (g, gm, src, c) = (lw.e.reg(Class::B32), lw.e.reg(Class::B32), lw.e.reg(Class::B32), lw.e.reg(Class::B32));
        ins!(lw.e, "xor.b32 {}, {}, {}", g, lane, k);
        ins!(lw.e, "and.b32 {}, {}, 0x{}", g, g, Hex8(!(k - 1)));
        ins!(lw.e, "shr.b32 {}, {}, {}", gm, mask, g);
        ins!(lw.e, "and.b32 {}, {}, 0x{}", gm, gm, Hex8((1u64 << k) as u32 - 1));
        ins!(lw.e, "brev.b32 {}, {}", src, gm);
        ins!(lw.e, "clz.b32 {}, {}", src, src);
        ins!(lw.e, "add.u32 {}, {}, {}", src, src, g);
        let (s, _) = shfl(lw, "idx", dom.work, x, &src.to_string(), 0x1f, &mask, false);
        // c = -1 when the partner group has an active lane (take its partial), else 0 (identity).
        ins!(lw.e, "min.u32 {}, {}, 1", c, gm);
        ins!(lw.e, "neg.s32 {}, {}", c, c);
        let p = lw.e.reg(s.class);
        ins!(lw.e, "slct.{}.s32 {}, {}, {}, {}", sel_bits(p.class), p, id, s, c);
        x = dom.combine(lw, x, p)?;
        k <<= 1;
    }
    Ok(x)
}

/// The tile's values in lane order, read with `shfl.sync.idx`; inactive lanes give the identity.
fn gather(lw: &mut Lower<'_>, dom: &Domain, x: Reg, t: u32) -> Result<Vec<Reg>, CompileError> {
    let mask = lw.member_mask()?;
    let (base, _) = tile_mask(lw, t);
    let am = lw.e.reg(Class::B32);
    ins!(lw.e, "shr.b32 {}, {}, {}", am, mask, base);
    let id = dom.identity_reg(lw);
    let mut out = Vec::with_capacity(t as usize);
    for j in 0..t {
        let src = lw.e.reg(Class::B32);
        ins!(lw.e, "add.u32 {}, {}, {}", src, base, j);
        let (r, _) = shfl(lw, "idx", dom.work, x, &src.to_string(), 0x1f, &mask, false);
        // -1 when lane j of the tile is active, else 0: a predicate-free select (32 live
        // predicates would exceed the 7 hardware predicates ptxas has on sm_90).
        let m = lw.e.reg(Class::B32);
        ins!(lw.e, "bfe.s32 {}, {}, {}, 1", m, am, j);
        let v = lw.e.reg(r.class);
        ins!(lw.e, "slct.{}.s32 {}, {}, {}, {}", sel_bits(v.class), v, id, r, m);
        out.push(v);
    }
    Ok(out)
}

/// `e[laneid & (t-1)]` by a tree of selects on the bits of the tile-local lane.
fn pick_own(lw: &mut Lower<'_>, e: &[Reg], t: u32) -> Reg {
    let idx = lw.e.reg(Class::B32);
    ins!(lw.e, "mov.u32 {}, %laneid", idx);
    ins!(lw.e, "and.b32 {}, {}, {}", idx, idx, t - 1);
    let mut level: Vec<Reg> = e.to_vec();
    let mut bit = 0;
    while level.len() > 1 {
        let m = lw.e.reg(Class::B32);
        ins!(lw.e, "bfe.s32 {}, {}, {}, 1", m, idx, bit);
        let mut next = Vec::with_capacity(level.len() / 2);
        for pair in level.chunks(2) {
            let d = lw.e.reg(pair[0].class);
            ins!(lw.e, "slct.{}.s32 {}, {}, {}, {}", sel_bits(d.class), d, pair[0], pair[1], m);
            next.push(d);
        }
        level = next;
        bit += 1;
    }
    level[0]
}
