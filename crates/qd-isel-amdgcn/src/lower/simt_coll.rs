//! Collectives: `subgroup.reduce`, `subgroup.scan`, `subgroup.segreduce` (whole-wave ladders),
//! `vote.all/any/eq` (lane masks, per tile) and `match.any/all` (exact for any active-lane
//! pattern).
//!
//! Reductions, scans and segmented reductions follow `qd_mir::interp::simt` step for step (see
//! `simt.rs` for the strategy): in one `MInst`, EXEC is saved and set to every lane, each lane's
//! working value is its operand when it was active and the identity otherwise, and then
//! - reduce: for `k = 1, 2, …, T/2`: `v = v ⊕ v[lane ^ k]`;
//! - inclusive scan: for `k = 1, …, T/2`: `v = (lane mod T) >= k ? v[lane - k] ⊕ v : v`;
//!   exclusive first shifts: `v = (lane mod T) == 0 ? identity : v[lane - 1]`;
//! - segmented reduce: `dist = lane - (last head or tile start at or below the lane)`, computed as
//!   the leading-zero count of the head mask (active heads | tile starts) shifted so that the
//!   lane's bit is the top bit; for `k = 1, …, T/2`: `v = dist >= k ? v ⊕ v[lane - k] : v`;
//!
//! and EXEC is restored. Bools are combined as u32 0/1 with `GroupOp::on_bool`
//! (`qd_mir::ops::GroupDomain`).
//!
//! Votes test truth as a `cast` to bool does (`!= 0`; floats unordered-not-equal, so NaN is true
//! and -0.0 false) into a lane mask ANDed with EXEC; a full-wave vote compares that mask with EXEC
//! on the scalar unit, a tiled one extracts its tile's bits per lane. `vote.eq` compares every
//! active lane with the first active lane of its tile (read with `v_readfirstlane` for the whole
//! wave, with `ds_bpermute` inside a tile, which never crosses a 32-lane half).
//!
//! `match.any` is exact for any pattern without a loop: for every lane `j` of the wave, the lane
//! mask of `x == x[j]` (ANDed with EXEC) is written into lane `j` of the result with
//! `v_writelane` (W × 5 instructions; a waterfall over the distinct values would be shorter when
//! there are few, and needs a loop). `match.all` compares with the first active lane's value.

use qd_mir::ops::{GroupDomain, GroupOp};
use qd_mir::types::{ScalarType, Type};
use qd_mir::{Imm, Inst, Opcode};
use regalloc2::VReg;

use super::simt::Temps;
use super::simt::{
    collective_strategy, def_parts, e64, fetch, generic_route, lane_id, lane_id_steps, put, route, t, use_parts, vgprs,
    whole_wave_begin, whole_wave_end, CollectiveStrategy, Route, ShuffleStrategy,
};
use super::simt_combine::{combine, work_reg};
use super::{Cls, Lower, Val};
use crate::isa::{Op, Operand};
use crate::vcode::{MInst, A};
use crate::CompileError;

fn scalar_type(cx: &Lower<'_>, i: Inst) -> Result<ScalarType, CompileError> {
    match cx.f.value_type(cx.f.args(i)[0]) {
        Type::Scalar(s) => Ok(s),
        Type::Ptr(..) => Err(cx.unsupported(i, "collectives combine scalar values, not pointers")),
    }
}

/// `subgroup.reduce`, `subgroup.scan`, `subgroup.segreduce`.
pub(crate) fn collective(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Imm::Group { op, tile, inclusive } = cx.f.insts[i].imm else {
        return Err(cx.unsupported(i, "a collective without an operator"));
    };
    let ty = scalar_type(cx, i)?;
    let dom = GroupDomain::new(ty, op);
    let float = matches!(ty, ScalarType::F32 | ScalarType::F64);
    if float && matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
        return Err(cx.unsupported(i, format!("`{}` does not apply to floats", op.name())));
    }
    let w = cx.target.wave.lanes();
    let tl = tile.lanes(w);
    let kind = cx.f.insts[i].opcode;
    match collective_strategy(cx, i) {
        CollectiveStrategy::WholeWave => whole_wave_collective(cx, i, kind, dom, tl, inclusive),
    }
}

/// A working-value route to lane `lane - k` (scans) or `lane ^ k` (reductions), as cheap as the
/// target allows when the read stays inside a 32-lane half.
fn step_route(cx: &mut Lower<'_>, m: &mut MInst, lane: VReg, k: u32, xor: bool, tl: u32, tmp: Temps) -> Route {
    let halves = generic_route(cx) == ShuffleStrategy::BpermuteHalves;
    if halves && xor && k == 32 {
        return Route { how: ShuffleStrategy::BpermuteHalves, swap_halves: true, tmp };
    }
    // Inside a tile of at most 32 lanes every read that is used stays in the lane's half.
    let how = if halves && tl == 64 { ShuffleStrategy::BpermuteHalves } else { ShuffleStrategy::Bpermute };
    let s = tmp.src;
    if xor {
        m.step(e64(cx, Op::VXorB32), &[A::D(s), A::K(Operand::imm32(k)), A::U(lane)]);
    } else {
        m.step(e64(cx, Op::VSubU32), &[A::D(s), A::U(lane), A::K(Operand::imm32(k))]);
    }
    route(cx, m, how, A::U(s), lane, tmp)
}

/// Reads `v` at the route's source into a fresh working register.
fn read(cx: &mut Lower<'_>, m: &mut MInst, r: &Route, v: Val, ty: ScalarType) -> Val {
    let y = work_reg(cx, ty);
    for (d, s) in def_parts(y).into_iter().zip(use_parts(v)) {
        fetch(cx, m, r, d, s);
    }
    y
}

/// `d = VCC ? tr : f` per 32-bit part, into a fresh working register.
fn select_vcc(cx: &mut Lower<'_>, m: &mut MInst, ty: ScalarType, f: Val, tr: Val) -> Val {
    let d = work_reg(cx, ty);
    let vcc = A::K(cx.vcc());
    for ((dd, ff), tt) in def_parts(d).into_iter().zip(use_parts(f)).zip(use_parts(tr)) {
        m.step(t(cx, Op::VCndmaskB32), &[dd, ff, tt, vcc]);
    }
    d
}

fn whole_wave_collective(
    cx: &mut Lower<'_>,
    i: Inst,
    kind: Opcode,
    dom: GroupDomain,
    tl: u32,
    inclusive: bool,
) -> Result<(), CompileError> {
    let args = cx.f.args(i).to_vec();
    let v = cx.f.inst_results(i)[0];
    let ty = dom.work;
    let x = vgprs(cx, args[0]);
    let id = dom.identity();
    let w = cx.target.wave.lanes();
    // Segmented reduce: the head mask (active heads | tile starts), before going whole-wave.
    let heads = if kind == Opcode::SegmentedReduce { Some(head_mask(cx, args[1], tl)?) } else { None };
    let saved = whole_wave_begin(cx);
    let mut m = MInst::new();
    let lane = cx.new_v();
    let tmp = Temps::new(cx);
    lane_id_steps(cx, &mut m, lane);
    // v = active ? x : identity.
    let mut cur = work_reg(cx, ty);
    let idv = work_reg(cx, ty);
    for (k, d) in def_parts(idv).into_iter().enumerate() {
        m.step(t(cx, Op::VMovB32), &[d, A::K(Operand::imm32((id >> (32 * k)) as u32))]);
    }
    for ((d, ii), xx) in def_parts(cur).into_iter().zip(use_parts(idv)).zip(use_parts(x)) {
        m.step(e64(cx, Op::VCndmaskB32), &[d, ii, xx, saved.arg()]);
    }
    let local = cx.new_v();
    m.step(e64(cx, Op::VAndB32), &[A::D(local), A::K(Operand::imm32(tl - 1)), A::U(lane)]);
    let vcc = A::K(cx.vcc());
    match kind {
        Opcode::SubgroupReduce => {
            let mut k = 1;
            while k < tl {
                let r = step_route(cx, &mut m, lane, k, true, tl, tmp);
                let y = read(cx, &mut m, &r, cur, ty);
                cur = combine(cx, &mut m, dom.work_op, ty, cur, y);
                k <<= 1;
            }
        }
        Opcode::SubgroupScan => {
            if !inclusive {
                let r = step_route(cx, &mut m, lane, 1, false, tl, tmp);
                let y = read(cx, &mut m, &r, cur, ty);
                m.step(t(cx, Op::VCmpEqU32), &[vcc, A::K(Operand::Int(0)), A::U(local)]);
                cur = select_vcc(cx, &mut m, ty, y, idv);
            }
            let mut k = 1;
            while k < tl {
                let r = step_route(cx, &mut m, lane, k, false, tl, tmp);
                let y = read(cx, &mut m, &r, cur, ty);
                let c = combine(cx, &mut m, dom.work_op, ty, y, cur);
                m.step(t(cx, Op::VCmpLeU32), &[vcc, A::K(Operand::imm32(k)), A::U(local)]);
                cur = select_vcc(cx, &mut m, ty, cur, c);
                k <<= 1;
            }
        }
        _ => {
            let (hl, hh) = heads.expect("segmented reduce has a head mask");
            // dist = clz(heads << (W-1-lane)) over W bits.
            let (sh, dist) = (cx.new_v(), cx.new_v());
            m.step(e64(cx, Op::VSubU32), &[A::D(sh), A::K(Operand::imm32(w - 1)), A::U(lane)]);
            if cx.wave64() {
                let (y, fl) = (cx.new_w(), cx.new_v());
                m.step(t(cx, Op::VLshlrevB64), &[A::D(y), A::U(sh), A::SPair(hl, hh)]);
                m.step(t(cx, Op::VFfbhU32), &[A::D(dist), A::UH(y)]);
                m.step(t(cx, Op::VFfbhU32), &[A::D(fl), A::UL(y)]);
                m.step(t(cx, Op::VAddU32), &[A::D(fl), A::K(Operand::Int(32)), A::U(fl)]);
                m.step(t(cx, Op::VMinU32), &[A::D(dist), A::U(dist), A::U(fl)]);
            } else {
                let y = cx.new_v();
                m.step(e64(cx, Op::VLshlrevB32), &[A::D(y), A::U(sh), A::U(hl)]);
                m.step(t(cx, Op::VFfbhU32), &[A::D(dist), A::U(y)]);
            }
            let mut k = 1;
            while k < tl {
                let r = step_route(cx, &mut m, lane, k, false, tl, tmp);
                let y = read(cx, &mut m, &r, cur, ty);
                let c = combine(cx, &mut m, dom.work_op, ty, cur, y);
                m.step(t(cx, Op::VCmpLeU32), &[vcc, A::K(Operand::imm32(k)), A::U(dist)]);
                cur = select_vcc(cx, &mut m, ty, cur, c);
                k <<= 1;
            }
        }
    }
    whole_wave_end(cx, &mut m, saved);
    cx.emit(m);
    put(cx, v, cur);
    Ok(())
}

/// The segment-start mask of a segmented reduce: lanes that are active with a true head, and
/// the first lane of every tile (lo, hi SGPRs; hi 0 in wave32).
fn head_mask(cx: &mut Lower<'_>, head: qd_mir::Value, tl: u32) -> Result<(VReg, VReg), CompileError> {
    let (lo, hi) = (cx.new_s(), cx.new_s());
    // A head is any value whose bits are not all zero; a 64-bit one folds its halves first.
    let hv = match cx.val(head) {
        Val::V64(w) => {
            let h = cx.new_v();
            cx.emit1(Op::VOrB32, &[A::D(h), A::UL(w), A::UH(w)]);
            Val::V(h)
        }
        Val::S64(l, hh) => {
            let h = cx.new_s();
            cx.emit1(Op::SOrB32, &[A::D(h), A::U(l), A::U(hh)]);
            cx.in_vgpr(Val::S(h))
        }
        other => cx.in_vgpr(other),
    };
    let Val::V(h) = hv else { unreachable!("a VGPR head") };
    // Bits at multiples of the tile size, per 32-bit half.
    let mut starts = 0u64;
    let mut b = 0;
    while b < 64 {
        starts |= 1 << b;
        b += tl;
    }
    let vcc = cx.vcc();
    let mut m = MInst::one(t(cx, Op::VCmpNeU32), &[A::K(vcc), A::K(Operand::Int(0)), A::U(h)]);
    if cx.wave64() {
        m.step(t(cx, Op::SAndB64), &[A::K(Operand::Vcc), A::K(Operand::Vcc), A::K(Operand::Exec)]);
        m.step(t(cx, Op::SOrB32), &[A::D(lo), A::K(Operand::VccLo), A::K(Operand::imm32(starts as u32))]);
        m.step(t(cx, Op::SOrB32), &[A::D(hi), A::K(Operand::VccHi), A::K(Operand::imm32((starts >> 32) as u32))]);
    } else {
        m.step(t(cx, Op::SAndB32), &[A::K(Operand::VccLo), A::K(Operand::VccLo), A::K(Operand::ExecLo)]);
        m.step(t(cx, Op::SOrB32), &[A::D(lo), A::K(Operand::VccLo), A::K(Operand::imm32(starts as u32))]);
        m.step(t(cx, Op::SMovB32), &[A::D(hi), A::K(Operand::Int(0))]);
    }
    cx.emit(m);
    Ok((lo, hi))
}

// ----- votes -----------------------------------------------------------------------------------

/// The compare of `x` with `y` (two uses of the same width) into VCC: `eq` or truth (`ne 0`).
fn cmp_steps(cx: &Lower<'_>, m: &mut MInst, ty: ScalarType, eq: bool, a: A, b: A) {
    let op = match (ty, eq) {
        (ScalarType::F32, true) => Op::VCmpEqF32,
        (ScalarType::F64, true) => Op::VCmpEqF64,
        (ScalarType::F32, false) => Op::VCmpNeqF32,
        (ScalarType::F64, false) => Op::VCmpNeqF64,
        (ScalarType::I64 | ScalarType::U64, true) => Op::VCmpEqU64,
        (ScalarType::I64 | ScalarType::U64, false) => Op::VCmpNeU64,
        (_, true) => Op::VCmpEqU32,
        (_, false) => Op::VCmpNeU32,
    };
    m.step(t(cx, op), &[A::K(cx.vcc()), a, b]);
}

/// A 64-bit (wave64) or 32-bit use of a VGPR value as a whole.
fn whole(v: Val) -> A {
    match v {
        Val::V(x) | Val::V64(x) => A::U(x),
        Val::S(_) | Val::S64(..) => unreachable!("a VGPR value"),
    }
}

/// `vote.all`, `vote.any`, `vote.eq` with tiles.
pub(crate) fn vote(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let op = cx.f.insts[i].opcode;
    let tile = match cx.f.insts[i].imm {
        Imm::Tile(t) => t,
        _ => qd_mir::inst::Tile::Full,
    };
    let ty = scalar_type(cx, i)?;
    let v = cx.f.inst_results(i)[0];
    let w = cx.target.wave.lanes();
    let tl = tile.lanes(w);
    let x = vgprs(cx, cx.f.args(i)[0]);
    let wide = ty.bits() == 64;
    // c = the lanes that break the vote: true lanes for any, false lanes for all, unequal lanes
    // for eq (all active ones among them); "any" looks for a set bit, the others for none.
    let (cl, ch) = (cx.new_s(), cx.new_s());
    let mut m = MInst::new();
    let zero64 = A::K(Operand::Int(0));
    match op {
        Opcode::VoteAll | Opcode::VoteAny => {
            cmp_steps(cx, &mut m, ty, false, zero64, whole(x));
            if op == Opcode::VoteAll {
                // active & !truth
                if cx.wave64() {
                    m.step(t(cx, Op::SAndn2B64), &[A::SPairDef(cl, ch), A::K(Operand::Exec), A::K(Operand::Vcc)]);
                } else {
                    m.step(t(cx, Op::SAndn2B32), &[A::D(cl), A::K(Operand::ExecLo), A::K(Operand::VccLo)]);
                }
            } else if cx.wave64() {
                m.step(t(cx, Op::SAndB64), &[A::SPairDef(cl, ch), A::K(Operand::Vcc), A::K(Operand::Exec)]);
            } else {
                m.step(t(cx, Op::SAndB32), &[A::D(cl), A::K(Operand::VccLo), A::K(Operand::ExecLo)]);
            }
        }
        _ => {
            let first = if tl == w {
                let f = cx.in_sgpr(x);
                match f {
                    Val::S(s) => A::U(s),
                    Val::S64(lo, hi) => A::SPair(lo, hi),
                    _ => unreachable!(),
                }
            } else {
                let y = tile_first(cx, x, ty, tl);
                whole(y)
            };
            cmp_steps(cx, &mut m, ty, true, first, whole(x));
            if cx.wave64() {
                m.step(t(cx, Op::SAndn2B64), &[A::SPairDef(cl, ch), A::K(Operand::Exec), A::K(Operand::Vcc)]);
            } else {
                m.step(t(cx, Op::SAndn2B32), &[A::D(cl), A::K(Operand::ExecLo), A::K(Operand::VccLo)]);
            }
        }
    }
    if !cx.wave64() {
        m.step(t(cx, Op::SMovB32), &[A::D(ch), A::K(Operand::Int(0))]);
    }
    let _ = wide;
    cx.emit(m);
    let any = op == Opcode::VoteAny;
    let (yes, no) = if any { (1, 0) } else { (0, 1) };
    if tl == w {
        // Uniform: SCC = c != 0.
        let r = cx.new_s();
        let mut m = MInst::new();
        if cx.wave64() {
            m.step(t(cx, Op::SCmpLgU64), &[A::SPair(cl, ch), A::K(Operand::Int(0))]);
        } else {
            m.step(t(cx, Op::SCmpLgU32), &[A::U(cl), A::K(Operand::Int(0))]);
        }
        m.step(t(cx, Op::SCselectB32), &[A::D(r), A::K(Operand::Int(yes)), A::K(Operand::Int(no))]);
        cx.emit(m);
        put(cx, v, Val::S(r));
    } else {
        let lane = lane_id(cx);
        let (base, bits, r) = (cx.new_v(), cx.new_v(), cx.new_v());
        let mut m = MInst::one(t(cx, Op::VAndB32), &[A::D(base), A::K(Operand::imm32(!(tl - 1))), A::U(lane)]);
        if cx.wave64() {
            let sh = cx.new_w();
            m.step(t(cx, Op::VLshrrevB64), &[A::D(sh), A::U(base), A::SPair(cl, ch)]);
            m.step(t(cx, Op::VAndB32), &[A::D(bits), A::K(Operand::imm32(tile_mask(tl))), A::UL(sh)]);
        } else {
            m.step(e64(cx, Op::VLshrrevB32), &[A::D(bits), A::U(base), A::U(cl)]);
            m.step(t(cx, Op::VAndB32), &[A::D(bits), A::K(Operand::imm32(tile_mask(tl))), A::U(bits)]);
        }
        let vcc = A::K(cx.vcc());
        m.step(t(cx, Op::VCmpNeU32), &[vcc, A::K(Operand::Int(0)), A::U(bits)]);
        m.step(e64(cx, Op::VCndmaskB32), &[A::D(r), A::K(Operand::Int(no)), A::K(Operand::Int(yes)), vcc]);
        cx.emit(m);
        put(cx, v, Val::V(r));
    }
    Ok(())
}

/// `2^tl - 1` for a tile of at most 32 lanes.
fn tile_mask(tl: u32) -> u32 {
    if tl >= 32 {
        u32::MAX
    } else {
        (1 << tl) - 1
    }
}

/// Each lane's copy of the value of the first active lane of its tile (tiles ≤ 32 lanes, so the
/// read never leaves the lane's 32-lane half and the source is active: a plain `ds_bpermute`).
fn tile_first(cx: &mut Lower<'_>, x: Val, ty: ScalarType, tl: u32) -> Val {
    let lane = lane_id(cx);
    let (base, bits, first) = (cx.new_v(), cx.new_v(), cx.new_v());
    let mut m = MInst::one(t(cx, Op::VAndB32), &[A::D(base), A::K(Operand::imm32(!(tl - 1))), A::U(lane)]);
    if cx.wave64() {
        let sh = cx.new_w();
        m.step(t(cx, Op::VLshrrevB64), &[A::D(sh), A::U(base), A::K(Operand::Exec)]);
        m.step(t(cx, Op::VAndB32), &[A::D(bits), A::K(Operand::imm32(tile_mask(tl))), A::UL(sh)]);
    } else {
        m.step(e64(cx, Op::VLshrrevB32), &[A::D(bits), A::U(base), A::K(Operand::ExecLo)]);
        m.step(t(cx, Op::VAndB32), &[A::D(bits), A::K(Operand::imm32(tile_mask(tl))), A::U(bits)]);
    }
    m.step(t(cx, Op::VFfblB32), &[A::D(first), A::U(bits)]);
    m.step(t(cx, Op::VAddU32), &[A::D(first), A::U(base), A::U(first)]);
    let tmp = Temps::new(cx);
    let addr = tmp.addr;
    let r = Route { how: ShuffleStrategy::Bpermute, swap_halves: false, tmp };
    m.step(e64(cx, Op::VLshlrevB32), &[A::D(addr), A::K(Operand::Int(2)), A::U(first)]);
    let y = work_reg(cx, ty);
    for (d, s) in def_parts(y).into_iter().zip(use_parts(x)) {
        fetch(cx, &mut m, &r, d, s);
    }
    cx.emit(m);
    y
}

// ----- match -----------------------------------------------------------------------------------

/// `match.any` / `match.all`: lane masks of equal bits among the active lanes.
pub(crate) fn match_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let op = cx.f.insts[i].opcode;
    let ty = scalar_type(cx, i)?;
    let v = cx.f.inst_results(i)[0];
    let xv = cx.val(cx.f.args(i)[0]);
    let bits_ty = if ty.bits() == 64 { ScalarType::U64 } else { ScalarType::U32 };
    if xv.is_scalar() {
        // Every active lane holds the same bits: both results are EXEC.
        let (lo, hi) = (cx.new_s(), cx.new_s());
        let mut m = MInst::one(t(cx, Op::SMovB32), &[A::D(lo), A::K(Operand::ExecLo)]);
        let h = if cx.wave64() { Operand::ExecHi } else { Operand::Int(0) };
        m.step(t(cx, Op::SMovB32), &[A::D(hi), A::K(h)]);
        cx.emit(m);
        put(cx, v, Val::S64(lo, hi));
        return Ok(());
    }
    let x = cx.in_vgpr(xv);
    if op == Opcode::MatchAll {
        let f = cx.in_sgpr(x);
        let first = match f {
            Val::S(s) => A::U(s),
            Val::S64(lo, hi) => A::SPair(lo, hi),
            _ => unreachable!(),
        };
        let (lo, hi) = (cx.new_s(), cx.new_s());
        let mut m = MInst::new();
        cmp_steps(cx, &mut m, bits_ty, true, first, whole(x));
        let zero = A::K(Operand::Int(0));
        if cx.wave64() {
            m.step(t(cx, Op::SAndB64), &[A::K(Operand::Vcc), A::K(Operand::Vcc), A::K(Operand::Exec)]);
            m.step(t(cx, Op::SCmpEqU64), &[A::K(Operand::Vcc), A::K(Operand::Exec)]);
            m.step(t(cx, Op::SCselectB64), &[A::SPairDef(lo, hi), A::K(Operand::Exec), zero]);
        } else {
            m.step(t(cx, Op::SAndB32), &[A::K(Operand::VccLo), A::K(Operand::VccLo), A::K(Operand::ExecLo)]);
            m.step(t(cx, Op::SCmpEqU32), &[A::K(Operand::VccLo), A::K(Operand::ExecLo)]);
            m.step(t(cx, Op::SCselectB32), &[A::D(lo), A::K(Operand::ExecLo), zero]);
            m.step(t(cx, Op::SMovB32), &[A::D(hi), zero]);
        }
        cx.emit(m);
        put(cx, v, Val::S64(lo, hi));
        return Ok(());
    }
    // match.any: lane j of the result = mask of (x == x[j]) & exec.
    let w = cx.target.wave.lanes();
    let out = cx.new_w();
    let parts = use_parts(x);
    let mut m = MInst::new();
    for j in 0..w {
        let sel = A::K(Operand::Int(j as i8));
        // x[j] goes through VCC (read by the compare that overwrites it).
        let first = if parts.len() == 2 {
            m.step(t(cx, Op::VReadlaneB32), &[A::K(Operand::VccLo), parts[0], sel]);
            m.step(t(cx, Op::VReadlaneB32), &[A::K(Operand::VccHi), parts[1], sel]);
            A::K(Operand::Vcc)
        } else {
            m.step(t(cx, Op::VReadlaneB32), &[A::K(Operand::VccLo), parts[0], sel]);
            A::K(Operand::VccLo)
        };
        cmp_steps(cx, &mut m, bits_ty, true, first, whole(x));
        if cx.wave64() {
            m.step(t(cx, Op::SAndB64), &[A::K(Operand::Vcc), A::K(Operand::Vcc), A::K(Operand::Exec)]);
            m.step(t(cx, Op::VWritelaneB32), &[A::DL(out), A::K(Operand::VccLo), sel]);
            m.step(t(cx, Op::VWritelaneB32), &[A::DH(out), A::K(Operand::VccHi), sel]);
        } else {
            m.step(t(cx, Op::SAndB32), &[A::K(Operand::VccLo), A::K(Operand::VccLo), A::K(Operand::ExecLo)]);
            m.step(t(cx, Op::VWritelaneB32), &[A::DL(out), A::K(Operand::VccLo), sel]);
        }
    }
    if !cx.wave64() {
        m.step(t(cx, Op::VMovB32), &[A::DH(out), A::K(Operand::Int(0))]);
    }
    cx.emit(m);
    let _ = Cls::Vector;
    put(cx, v, Val::V64(out));
    Ok(())
}
