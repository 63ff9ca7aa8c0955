//! Collectives: `subgroup.reduce`, `subgroup.scan`, `subgroup.segreduce` (whole-wave ladders),
//! `vote.all/any/eq` (lane masks, per tile) and `match.any/all` (exact for any active-lane
//! pattern).
//!
//! Reductions, scans and segmented reductions follow `qd_mir::interp::simt` step for step (see
//! `simt.rs` for the strategy): in one `MInst` — when EXEC may be partial, in the whole-wave frame
//! (EXEC saved and set to every lane, each lane's working value its operand when it was active
//! and the identity otherwise; frameless when `Lower::exec_full`) —
//! - reduce: for `k = 1, 2, …, T/2`: `v = v ⊕ v[lane ^ k]`;
//! - inclusive scan: for `k = 1, …, T/2`: `v = (lane mod T) >= k ? v[lane - k] ⊕ v : v`;
//!   exclusive first shifts: `v = (lane mod T) == 0 ? identity : v[lane - 1]`;
//! - segmented reduce: `dist = lane - (last head or tile start at or below the lane)`, computed as
//!   the leading-zero count of the head mask (active heads | tile starts) shifted so that the
//!   lane's bit is the top bit; for `k = 1, …, T/2`: `v = dist >= k ? v ⊕ v[lane - k] : v`;
//!
//! and EXEC is restored (framed). Bools are combined as u32 0/1 with `GroupOp::on_bool`
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
use super::simt::{def_parts, e64, fetch, lane_id, put, t, use_parts, vgprs, whole_wave_begin, Route, ShuffleStrategy};
use super::{Lower, Val};
use crate::select::collective::seq::{Arg, Class};
use crate::select::collective::{Built, Kind, Spec};
use crate::select::{self, Candidate, Choice, ShuffleLowering};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::{Op, Operand};
use qd_mir::inst::Tile;
use qd_mir::CompileError;

fn scalar_type(cx: &Lower<'_>, i: Inst) -> Result<ScalarType, CompileError> {
    match cx.f.value_type(cx.f.args(i)[0]) {
        Type::Scalar(s) => Ok(s),
        Type::Ptr(..) => Err(cx.internal(i, "collectives combine scalar values, not pointers")),
    }
}

/// Which lane-combining collective an op is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Combine {
    /// `subgroup.reduce`
    Reduce,
    /// `subgroup.scan`
    Scan,
    /// `subgroup.segreduce`
    Segmented,
}

/// Which vote an op is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vote {
    /// `vote.all`
    All,
    /// `vote.any`
    Any,
    /// `vote.eq`
    Eq,
}

/// `subgroup.reduce`, `subgroup.scan`, `subgroup.segreduce`: every candidate sequence of
/// `select::collective` is built and priced, one is chosen (`select::decide`, honouring a forced
/// family or a named candidate), recorded as a `Choice`, and emitted.
pub(crate) fn collective(cx: &mut Lower<'_>, i: Inst, which: Combine) -> Result<(), CompileError> {
    let Imm::Group { op, tile, inclusive } = cx.f.insts[i].imm else {
        return Err(cx.internal(i, "a collective without an operator"));
    };
    let ty = scalar_type(cx, i)?;
    let dom = GroupDomain::new(ty, op);
    let float = matches!(ty, ScalarType::F32 | ScalarType::F64);
    if float && matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
        return Err(cx.internal(i, format!("`{}` does not apply to floats", op.name())));
    }
    let w = cx.target.wave.lanes();
    let tl = tile.lanes(w);
    let kind = match which {
        Combine::Reduce => Kind::Reduce,
        Combine::Scan => Kind::Scan { inclusive },
        Combine::Segmented => Kind::Seg,
    };
    let framed = !cx.exec_full();
    let spec = Spec { target: cx.target, kind, op: dom.work_op, ty: dom.work, id: dom.identity(), tl, framed };
    let built = select::collective_candidates(spec);
    let mut cands: Vec<Candidate> = built.iter().map(|b| b.cand.clone()).collect();
    let forced = cx.forced(i);
    let chosen = select::decide(&mut cands, forced, cx.forced_candidate(i))
        .map_err(|e| cx.no_choice(i, e, &format!(" ({ty}, {})", cx.target)))?;
    let name = cands[chosen].name.clone();
    let Some(pos) = built.iter().position(|b| b.cand.name == name) else {
        return Err(cx.internal(i, format!("no sequence built for candidate `{name}`")));
    };
    let b = &built[pos];
    let what = match kind {
        Kind::Reduce => "reduce".to_string(),
        Kind::Scan { inclusive: true } => "inclusive scan".to_string(),
        Kind::Scan { inclusive: false } => "exclusive scan".to_string(),
        Kind::Seg => "segmented reduce".to_string(),
    };
    let pattern = if tl == w { format!("{what} over {w} lanes") } else { format!("{what} over {tl}-lane tiles") };
    let tile_text = match tile {
        Tile::Full => String::new(),
        Tile::Log2(k) => format!(" tile({k})"),
    };
    let op_text = match kind {
        Kind::Reduce => format!("subgroup.reduce {}{tile_text}", op.name()),
        Kind::Scan { inclusive } => {
            let k = if inclusive { "inclusive" } else { "exclusive" };
            format!("subgroup.scan {k} {}{tile_text}", op.name())
        }
        Kind::Seg => format!("subgroup.segreduce {}{tile_text}", op.name()),
    };
    cx.choices.push(Choice {
        inst: i,
        line: cx.line,
        op: op_text,
        ty,
        pattern,
        candidates: cands,
        chosen,
        forced: (forced != ShuffleLowering::Auto).then_some(forced),
        note: if framed {
            "EXEC may be partial here: whole-wave frame (EXEC saved and set to every lane, inactive lanes \
             take the identity, EXEC restored)"
                .into()
        } else {
            "EXEC is every lane here: frameless (the ladder runs on the operand)".into()
        },
    });
    emit_built(cx, i, b, tl)
}

/// Emits a built candidate: the head mask (segmented), EXEC saved, then the sequence in one
/// `MInst` (it restores EXEC), and binds the result.
fn emit_built(cx: &mut Lower<'_>, i: Inst, b: &Built, tl: u32) -> Result<(), CompileError> {
    let args = cx.f.args(i).to_vec();
    let v = cx.f.inst_results(i)[0];
    let x = vgprs(cx, args[0]);
    let heads = match b.frame.heads {
        Some(_) => Some(head_mask(cx, args[1], tl)?),
        None => None,
    };
    let seq = &b.seq;
    let mut map: Vec<Option<VReg>> = vec![None; seq.regs.len()];
    map[b.frame.x as usize] = Some(match x {
        Val::V(r) | Val::V64(r) => r,
        Val::S(_) | Val::S64(..) => return Err(cx.internal(i, "a collective operand not in VGPRs")),
    });
    if let Some((rlo, rhi)) = b.frame.saved {
        // The saved mask as the sequence reads it (an SGPR pair in wave64, one SGPR in wave32).
        let saved = whole_wave_begin(cx);
        let (slo, shi) = match saved.arg() {
            A::SPair(lo, hi) => (lo, Some(hi)),
            _ => (saved.lo, None),
        };
        map[rlo as usize] = Some(slo);
        if let (Some(h), Some(r)) = (shi, rhi) {
            map[r as usize] = Some(h);
        }
    }
    if let (Some((hl, hh)), Some((rl, rh))) = (heads, b.frame.heads) {
        map[rl as usize] = Some(hl);
        map[rh as usize] = Some(hh);
    }
    let regs: Vec<VReg> = seq
        .regs
        .iter()
        .zip(map)
        .map(|(c, m)| match (m, c) {
            (Some(r), _) => r,
            (None, Class::V) => cx.new_v(),
            (None, Class::W) => cx.new_w(),
            (None, Class::S) => cx.new_s(),
        })
        .collect();
    let mut m = MInst::new();
    for (inst, sargs) in &seq.steps {
        let a: Vec<A> = sargs
            .iter()
            .map(|x| match *x {
                Arg::K(o) => A::K(o),
                Arg::U(r) => A::U(regs[r as usize]),
                Arg::UL(r) => A::UL(regs[r as usize]),
                Arg::UH(r) => A::UH(regs[r as usize]),
                Arg::D(r) => A::D(regs[r as usize]),
                Arg::DL(r) => A::DL(regs[r as usize]),
                Arg::DH(r) => A::DH(regs[r as usize]),
                Arg::SPair(lo, hi) => A::SPair(regs[lo as usize], regs[hi as usize]),
            })
            .collect();
        m.step(*inst, &a);
    }
    if !seq.steps.is_empty() {
        cx.emit(m);
    }
    let out = regs[b.out as usize];
    let val = match seq.class(b.out) {
        Class::W => Val::V64(out),
        Class::V => Val::V(out),
        Class::S => Val::S(out),
    };
    put(cx, v, val);
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
pub(crate) fn vote(cx: &mut Lower<'_>, i: Inst, op: Vote) -> Result<(), CompileError> {
    let Imm::Tile(tile) = cx.f.insts[i].imm else { return Err(cx.internal(i, "a vote without a tile")) };
    let ty = scalar_type(cx, i)?;
    let v = cx.f.inst_results(i)[0];
    let w = cx.target.wave.lanes();
    let tl = tile.lanes(w);
    let x = vgprs(cx, cx.f.args(i)[0]);
    // c = the lanes that break the vote: true lanes for any, false lanes for all, unequal lanes
    // for eq (all active ones among them); "any" looks for a set bit, the others for none.
    let (cl, ch) = (cx.new_s(), cx.new_s());
    let mut m = MInst::new();
    let zero64 = A::K(Operand::Int(0));
    match op {
        Vote::All | Vote::Any => {
            cmp_steps(cx, &mut m, ty, false, zero64, whole(x));
            if op == Vote::All {
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
        Vote::Eq => {
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
    cx.emit(m);
    let any = op == Vote::Any;
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
    let tmp = Temps::new(cx);
    // The first active lane of the tile is the read's source lane.
    let (base, bits, first) = (cx.new_v(), cx.new_v(), tmp.src);
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
    put(cx, v, Val::V64(out));
    Ok(())
}

/// A fresh working register (VGPR or VGPR pair) for values of `ty`. The group operators
/// themselves (`a ⊕ b`, bit-identical to the interpreter on every type) are VALU steps of a
/// collective sequence (`select/collective/seq.rs`, `combine`), so the selector prices exactly
/// what is emitted.
fn work_reg(cx: &mut Lower<'_>, ty: ScalarType) -> Val {
    if ty.bits() == 64 {
        Val::V64(cx.new_w())
    } else {
        Val::V(cx.new_v())
    }
}
