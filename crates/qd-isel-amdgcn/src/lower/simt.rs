//! Subgroup (wave) operations: shuffles, `broadcast`, ballots, `match.*`, `activemask`,
//! `elect`, votes, reductions, scans and segmented reductions, each behind a strategy that the
//! shuffle selector can replace per op.
//!
//! # Shuffles and broadcast: the selector
//!
//! [`shuffle`] and [`broadcast`] build every candidate lowering of the op, price each one from its
//! own instructions (`select::estimate` through `lower/shuffle_emit.rs`), let `select::decide`
//! pick (the cheapest, or the family/name the options force), record a `Choice` and emit the
//! chosen one. The candidates of a shuffle:
//!
//! * the register sequences of `select/shuffle/mod.rs` for its constant lane pattern
//!   (`qd_mir::analysis::shuffle_pattern`): DPP16/DPP8, `ds_swizzle`, permlanes, readlane,
//!   selects, and (`select/shuffle/rows.rs`) permlane rows, readlane/writelane fix-ups and GFX9
//!   wave-shift chains, each proved against the pattern's source table; when EXEC may be partial
//!   (`Lower::exec_full` false) only those exact under any EXEC (one DPP16 or permlane16/x16 step
//!   that leaves unwritten lanes their own value) are offered, and `Choice::note` names the rest;
//! * `own value` (no instruction) for the identity pattern;
//! * `readlane` ([`ShuffleStrategy::Readlane`]) for `shuffle.idx` with a uniform index, exact for
//!   any EXEC;
//! * the `ds_bpermute` baseline, `bpermute` or `bpermute halves` ([`generic_route`]), exact for any
//!   EXEC and the only candidate of a data-dependent, non-uniform index.
//!
//! `broadcast` has `readlane` (a uniform SGPR result) and the `bpermute` baseline run whole-wave.
//!
//! # Strategies
//!
//! The plain strategies, the baselines the selector is measured against:
//!
//! * [`ShuffleStrategy::Readlane`]: `shuffle.idx` with a uniform index — `v_readlane` of the
//!   source lane into an SGPR, kept when that lane is active.
//! * [`ShuffleStrategy::Bpermute`]: `ds_bpermute_b32` with the address `lane * 4`; wave-wide on
//!   GFX9, and also the whole wave in wave32 (gfx1100).
//! * [`ShuffleStrategy::BpermuteHalves`]: gfx1100 wave64, where `ds_bpermute_b32` only permutes
//!   within each 32-lane half: `v_permlane64_b32` builds the other half's values, two
//!   `ds_bpermute_b32` read both, and a `v_cndmask_b32` on "source in the other half" picks one
//!   (docs/amdgcn-isa-facts.md §10.4). This runs whole-wave (EXEC saved and set to all lanes by an
//!   `MInst` of its own, restored at the end of the reading `MInst`), because both `v_permlane64`
//!   and `ds_bpermute` only deliver the data of lanes that execute; which source lanes were active
//!   is tested on the saved EXEC instead.
//! * Reductions, scans and segmented reductions (`simt_coll.rs`): the selector
//!   (`select::collective`) builds every candidate ladder — DPP, swizzle, permlane and the
//!   `ds_bpermute` ladder — in the interpreter's exact combination order, whole-wave with
//!   identity-filled inactive lanes when EXEC may be partial and on the operand when it is known
//!   full, prices them and emits the cheapest (docs/shuffle-lowering.md §3).
//!
//! Ops without a strategy choice: `ballot` is a compare into an SGPR pair ANDed with EXEC
//! (the high half 0 in wave32); `activemask` copies EXEC; `elect` is `v_mbcnt` of EXEC == 0;
//! `match.*` and the votes are in `simt_coll.rs`. `subgroup.sync` emits nothing: a wave executes
//! in lock step, every lane of the wave that is active reaches the op together, and the op has no
//! memory ordering, so there is nothing to wait for.
//!
//! The saved EXEC is read only in a later `MInst` than the one that defines it: an `A::SPair` of
//! SGPRs defined earlier in the same `MInst` is emitted as a def (copied out of the pair temporary
//! after the step, not into it before), so such sequences must not rely on it.
//!
//! # Inactive lanes
//!
//! Results in lanes outside EXEC are not written (their registers hold whatever was there), as
//! the contract leaves them unspecified. A shuffle whose source lane is inactive (or out of
//! range) yields the reading lane's own value, as in the interpreter; `broadcast` reads the
//! source lane's register whatever its activity (the interpreter's rule too), so it matches the
//! interpreter when the source lane's register holds the value the interpreter gives it (always
//! the case for an active source lane).

use qd_mir::analysis::lanes::{shuffle_pattern, LanePattern};
use qd_mir::types::Type;
use qd_mir::{Imm, Inst, Opcode, ShuffleKind, Value};
use regalloc2::VReg;

use super::{Cls, Lower, Val};
use crate::lower::shuffle_emit::{emit_seq, price};
use crate::select::{self, Candidate, Choice, Cost, Listing, ShuffleLowering};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{Inst as MI, Op, Operand};
use qd_mir::CompileError;

pub(crate) use super::simt_coll::{collective, match_, vote, Combine, Vote};

/// How a shuffle moves its data (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShuffleStrategy {
    /// `shuffle.idx` with a uniform index: `v_readlane` and an activity test.
    Readlane,
    /// `ds_bpermute_b32` over the whole wave (GFX9 wave64, any wave32).
    Bpermute,
    /// gfx1100 wave64: `v_permlane64_b32` + two `ds_bpermute_b32` + select, whole-wave.
    BpermuteHalves,
}

/// The cross-lane read primitive of this target when no special pattern applies.
pub(crate) fn generic_route(cx: &Lower<'_>) -> ShuffleStrategy {
    if cx.target.arch.family() == Family::Gfx11 && cx.wave64() {
        ShuffleStrategy::BpermuteHalves
    } else {
        ShuffleStrategy::Bpermute
    }
}

/// The strategy of one shuffle instruction.
pub(crate) fn shuffle_strategy(cx: &Lower<'_>, i: Inst) -> ShuffleStrategy {
    let op = cx.f.insts[i].opcode;
    let lane = cx.f.args(i)[1];
    if op == Opcode::ShuffleIdx && cx.val(lane).is_scalar() {
        ShuffleStrategy::Readlane
    } else {
        generic_route(cx)
    }
}

// ----- shared helpers ------------------------------------------------------------------------

/// The VOP3 (`_e64`) template of a VOP1/VOP2/VOPC op.
pub(crate) fn e64(cx: &Lower<'_>, op: Op) -> MI {
    cx.mi(op, &[]).e64()
}

/// The template of `op` for this target.
pub(crate) fn t(cx: &Lower<'_>, op: Op) -> MI {
    cx.mi(op, &[])
}

/// Gives MIR value `v` the registers `val`, copying when `val` is not in the register class the
/// value must have ([`Lower::cls_of`]).
pub(crate) fn put(cx: &mut Lower<'_>, v: Value, val: Val) {
    let want_scalar = cx.cls_of(v) == Cls::Scalar;
    if want_scalar == val.is_scalar() {
        cx.bind(v, val);
    } else {
        let d = cx.def(v);
        cx.copy_into(d, val);
    }
}

/// Appends `v_mbcnt` steps computing the lane index into `d` (a VGPR def of `m`).
pub(crate) fn lane_id_steps(cx: &Lower<'_>, m: &mut MInst, d: VReg) {
    m.step(e64(cx, Op::VMbcntLoU32B32), &[A::D(d), A::K(Operand::Int(-1)), A::K(Operand::Int(0))]);
    if cx.wave64() {
        m.step(e64(cx, Op::VMbcntHiU32B32), &[A::D(d), A::K(Operand::Int(-1)), A::U(d)]);
    }
}

/// A fresh VGPR holding the lane index.
pub(crate) fn lane_id(cx: &mut Lower<'_>) -> VReg {
    let d = cx.new_v();
    let mut m = MInst::new();
    lane_id_steps(cx, &mut m, d);
    cx.emit(m);
    d
}

/// EXEC saved by [`whole_wave_begin`] (an SGPR pair in wave64, one SGPR in wave32).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SavedExec {
    /// Low half (all of it in wave32).
    pub lo: VReg,
    /// High half (wave64).
    pub hi: Option<VReg>,
}

impl SavedExec {
    /// The saved mask as a lane-mask operand (`v_cndmask` e64 mask, 64-bit SALU source).
    pub(crate) fn arg(self) -> A {
        match self.hi {
            Some(hi) => A::SPair(self.lo, hi),
            None => A::U(self.lo),
        }
    }
}

/// Emits `s_or_saveexec` as an `MInst` of its own (EXEC saved into fresh SGPR defs, EXEC = every
/// lane); the whole-wave body and [`whole_wave_end`] follow in the next `MInst`, which reads the
/// saved mask as ordinary uses. Only allocator moves can come between the two, and with EXEC a
/// superset of the lanes they would otherwise move they change nothing that is live.
pub(crate) fn whole_wave_begin(cx: &mut Lower<'_>) -> SavedExec {
    let lo = cx.new_s();
    let mut m = MInst::new();
    let saved = if cx.wave64() {
        let hi = cx.new_s();
        m.step(t(cx, Op::SOrSaveexecB64), &[A::SPairDef(lo, hi), A::K(Operand::Int(-1))]);
        SavedExec { lo, hi: Some(hi) }
    } else {
        m.step(t(cx, Op::SOrSaveexecB32), &[A::D(lo), A::K(Operand::Int(-1))]);
        SavedExec { lo, hi: None }
    };
    cx.emit(m);
    saved
}

/// Appends the restore of EXEC saved by [`whole_wave_begin`].
pub(crate) fn whole_wave_end(cx: &Lower<'_>, m: &mut MInst, s: SavedExec) {
    match s.hi {
        Some(hi) => m.step(t(cx, Op::SMovB64), &[A::K(Operand::Exec), A::SPair(s.lo, hi)]),
        None => m.step(t(cx, Op::SMovB32), &[A::K(Operand::ExecLo), A::U(s.lo)]),
    };
}

/// The 32-bit parts of a VGPR value as uses.
pub(crate) fn use_parts(val: Val) -> Vec<A> {
    match val {
        Val::V(v) => vec![A::U(v)],
        Val::V64(w) => vec![A::UL(w), A::UH(w)],
        Val::S(s) => vec![A::U(s)],
        Val::S64(lo, hi) => vec![A::U(lo), A::U(hi)],
    }
}

/// The 32-bit parts of a value as defs.
pub(crate) fn def_parts(val: Val) -> Vec<A> {
    match val {
        Val::V(v) | Val::S(v) => vec![A::D(v)],
        Val::V64(w) => vec![A::DL(w), A::DH(w)],
        Val::S64(lo, hi) => vec![A::D(lo), A::D(hi)],
    }
}

/// A value of type `ty` in VGPRs (fresh registers, copied when it is in SGPRs).
pub(crate) fn vgprs(cx: &mut Lower<'_>, v: Value) -> Val {
    let val = cx.val(v);
    cx.in_vgpr(val)
}

/// Scratch VGPRs of the cross-lane reads of one `MInst`, reused by every read in it (each read
/// consumes them before the next one writes them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Temps {
    /// A source lane.
    pub src: VReg,
    /// `source lane * 4`.
    pub addr: VReg,
    /// `(source ^ lane) & 32`.
    pub cross: VReg,
    /// The other half's values (`v_permlane64`).
    pub xs: VReg,
    /// Read from the own half.
    pub a: VReg,
    /// Read from the other half.
    pub b: VReg,
}

impl Temps {
    /// Fresh scratch registers.
    pub(crate) fn new(cx: &mut Lower<'_>) -> Temps {
        Temps { src: cx.new_v(), addr: cx.new_v(), cross: cx.new_v(), xs: cx.new_v(), a: cx.new_v(), b: cx.new_v() }
    }
}

/// How a cross-lane read finds its source: the byte address `lane * 4` for `ds_bpermute`, and on
/// gfx1100 wave64 whether the source is in the other 32-lane half.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Route {
    /// The strategy (never `Readlane`).
    pub how: ShuffleStrategy,
    /// The source is exactly `lane ^ 32` (one `v_permlane64`, gfx1100 wave64 only).
    pub swap_halves: bool,
    /// The registers (`addr` and `cross` hold this route).
    pub tmp: Temps,
}

/// Appends the steps computing the route to source lane `src` from lane `lane` into `tmp`.
pub(crate) fn route(cx: &mut Lower<'_>, m: &mut MInst, how: ShuffleStrategy, src: A, lane: VReg, tmp: Temps) -> Route {
    m.step(e64(cx, Op::VLshlrevB32), &[A::D(tmp.addr), A::K(Operand::Int(2)), src]);
    if how == ShuffleStrategy::BpermuteHalves {
        let c = tmp.cross;
        m.step(e64(cx, Op::VXorB32), &[A::D(c), src, A::U(lane)]);
        m.step(e64(cx, Op::VAndB32), &[A::D(c), A::K(Operand::Int(32)), A::U(c)]);
    }
    Route { how, swap_halves: false, tmp }
}

/// Appends a read of `src` (one 32-bit VGPR part) at the route's source lane into `dst` (a def
/// part). Must run whole-wave for `BpermuteHalves` and `swap_halves` (the callers do), and may
/// clobber VCC.
pub(crate) fn fetch(cx: &mut Lower<'_>, m: &mut MInst, r: &Route, dst: A, src: A) {
    if r.swap_halves {
        m.step(t(cx, Op::VPermlane64B32), &[dst, src]);
        return;
    }
    let addr = A::U(r.tmp.addr);
    match r.how {
        ShuffleStrategy::Bpermute | ShuffleStrategy::Readlane => {
            m.step(t(cx, Op::DsBpermuteB32), &[dst, addr, src]);
        }
        ShuffleStrategy::BpermuteHalves => {
            let Temps { xs, a, b, cross, .. } = r.tmp;
            m.step(t(cx, Op::VPermlane64B32), &[A::D(xs), src]);
            m.step(t(cx, Op::DsBpermuteB32), &[A::D(a), addr, src]);
            m.step(t(cx, Op::DsBpermuteB32), &[A::D(b), addr, A::U(xs)]);
            let vcc = A::K(cx.vcc());
            m.step(t(cx, Op::VCmpNeU32), &[vcc, A::K(Operand::Int(0)), A::U(cross)]);
            m.step(t(cx, Op::VCndmaskB32), &[dst, A::U(a), A::U(b), vcc]);
        }
    }
}

// ----- shuffles ------------------------------------------------------------------------------

/// One way to lower a shuffle or broadcast, built but not yet emitted.
struct Built {
    name: String,
    family: ShuffleLowering,
    minsts: Vec<MInst>,
    out: Val,
}

/// Runs `f` and takes back the `MInst`s it emitted into the current block (a baseline lowering
/// built as a candidate).
fn capture<'a, R>(cx: &mut Lower<'a>, f: impl FnOnce(&mut Lower<'a>) -> R) -> (Vec<MInst>, R) {
    let b = cx.cur.index();
    let n = cx.vcode.blocks[b].insts.len();
    let r = f(cx);
    debug_assert_eq!(cx.cur.index(), b, "a shuffle candidate must not open blocks");
    let ms = cx.vcode.blocks[b].insts.split_off(n);
    (ms, r)
}

/// Prices every candidate, lets [`select::decide`] pick (forced family / named candidate
/// included), records the [`Choice`] and emits the chosen one; returns its result.
fn choose(
    cx: &mut Lower<'_>,
    i: Inst,
    input: Val,
    pattern: String,
    note: String,
    built: Vec<Built>,
) -> Result<Val, CompileError> {
    let mut cands: Vec<Candidate> = built
        .iter()
        .map(|b| {
            let (listing, cost) = if b.minsts.is_empty() {
                (Listing::default(), Cost::default())
            } else {
                price(cx.target, &b.minsts, input, b.out)
            };
            Candidate { name: b.name.clone(), family: b.family, cost, listing }
        })
        .collect();
    let forced = cx.forced(i);
    let k = select::decide(&mut cands, forced, cx.forced_candidate(i)).map_err(|e| cx.no_choice(i, e, ""))?;
    let chosen_name = cands[k].name.clone();
    let x = cx.f.args(i)[0];
    cx.choices.push(Choice {
        inst: i,
        line: cx.line,
        op: cx.f.insts[i].opcode.name().to_string(),
        ty: cx.f.value_type(x).scalar().unwrap_or(qd_mir::ScalarType::U32),
        pattern,
        candidates: cands,
        chosen: k,
        forced: (forced != ShuffleLowering::Auto).then_some(forced),
        note,
    });
    let b = built.into_iter().find(|b| b.name == chosen_name).expect("the chosen candidate was built");
    for m in b.minsts {
        cx.emit(m);
    }
    Ok(b.out)
}

/// `shuffle.idx/up/down/xor`: the selector's candidates for the shuffle's lane pattern
/// (`select/shuffle/mod.rs`) next to the uniform-index readlane and the `ds_bpermute` baseline.
pub(crate) fn shuffle(cx: &mut Lower<'_>, i: Inst, kind: ShuffleKind) -> Result<(), CompileError> {
    let [x, d] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let v = cx.f.inst_results(i)[0];
    if !matches!(cx.f.value_type(x), Type::Scalar(_)) {
        return Err(cx.internal(i, "shuffles move scalar values (bool, 32- and 64-bit numbers)"));
    }
    let xv = cx.val(x);
    if xv.is_scalar() {
        // Every lane, active or not, holds the same bits: any source gives the own value.
        put(cx, v, xv);
        return Ok(());
    }
    let w = cx.target.wave.lanes();
    let ty = cx.f.value_type(v);
    let fam = cx.target.family();
    let pattern = shuffle_pattern(cx.f, i, w);
    let uniform_idx = shuffle_strategy(cx, i) == ShuffleStrategy::Readlane;
    let mut built = Vec::new();
    let mut note = String::new();
    match pattern.table(w) {
        Some(_) if pattern == LanePattern::Identity => {
            built.push(Built { name: "own value".into(), family: ShuffleLowering::Dpp, minsts: Vec::new(), out: xv });
        }
        Some(tab) => {
            let (usable, ruled_out) = select::shuffle_sequences(cx.target, &tab, cx.exec_full());
            let dropped: Vec<String> = ruled_out.iter().map(|s| s.name(fam)).collect();
            for seq in usable {
                let (m, out) = emit_seq(cx, &seq, xv, ty);
                built.push(Built { name: seq.name(fam), family: seq.family(), minsts: vec![m], out });
            }
            if !dropped.is_empty() {
                note = format!(
                    "EXEC may be partial here: only single DPP16/permlane16 steps that leave unwritten lanes their \
                     own value are exact, so {} is not used",
                    dropped.join(", ")
                );
            }
        }
        None => {}
    }
    if uniform_idx {
        let Val::S(idx) = cx.val(d) else { return Err(cx.internal(i, "a 64-bit shuffle index")) };
        let (minsts, out) = capture(cx, |cx| shuffle_readlane(cx, ty, xv, idx, w));
        built.push(Built { name: "readlane".into(), family: ShuffleLowering::Dpp, minsts, out });
    }
    let how = generic_route(cx);
    let dval = match cx.val(d) {
        Val::S64(lo, _) => Val::S(lo),
        Val::V64(_) => return Err(cx.internal(i, "a 64-bit shuffle operand")),
        other => other,
    };
    let (minsts, out) = capture(cx, |cx| {
        let Val::V(dv) = cx.in_vgpr(dval) else { unreachable!("in_vgpr of a 32-bit value") };
        shuffle_bpermute(cx, kind, ty, xv, dv, how, w)
    });
    let name = if how == ShuffleStrategy::BpermuteHalves { "bpermute halves" } else { "bpermute" };
    built.push(Built { name: name.into(), family: ShuffleLowering::Bpermute, minsts, out });
    let mut pat = pattern.to_string();
    if pattern == LanePattern::Dynamic && uniform_idx {
        pat.push_str(" (uniform index)");
    }
    let out = choose(cx, i, xv, pat, note, built)?;
    put(cx, v, out);
    Ok(())
}

/// `shuffle.idx` with a uniform index: `r = exec[s] ? readlane(x, s) : x`.
fn shuffle_readlane(cx: &mut Lower<'_>, ty: Type, xv: Val, idx: VReg, w: u32) -> Val {
    let s = cx.new_s();
    let (m0, m1) = (cx.new_s(), cx.new_s());
    let mut m = MInst::one(t(cx, Op::SAndB32), &[A::D(s), A::U(idx), A::K(Operand::imm32(w - 1))]);
    // mask = (exec >> s) & 1 ? exec : 0, as a lane mask for v_cndmask.
    let (b0, b1) = (cx.new_s(), cx.new_s());
    if cx.wave64() {
        m.step(t(cx, Op::SLshrB64), &[A::SPairDef(b0, b1), A::K(Operand::Exec), A::U(s)]);
        m.step(t(cx, Op::SAndB32), &[A::D(b0), A::U(b0), A::K(Operand::Int(1))]);
        m.step(t(cx, Op::SCmpLgU32), &[A::U(b0), A::K(Operand::Int(0))]);
        m.step(t(cx, Op::SCselectB64), &[A::SPairDef(m0, m1), A::K(Operand::Exec), A::K(Operand::Int(0))]);
    } else {
        m.step(t(cx, Op::SLshrB32), &[A::D(b0), A::K(Operand::ExecLo), A::U(s)]);
        m.step(t(cx, Op::SAndB32), &[A::D(b0), A::U(b0), A::K(Operand::Int(1))]);
        m.step(t(cx, Op::SCmpLgU32), &[A::U(b0), A::K(Operand::Int(0))]);
        m.step(t(cx, Op::SCselectB32), &[A::D(m0), A::K(Operand::ExecLo), A::K(Operand::Int(0))]);
        m.step(t(cx, Op::SMovB32), &[A::D(m1), A::K(Operand::Int(0))]);
    }
    let _ = b1;
    cx.emit(m);
    let out = cx.fresh(ty, Cls::Vector);
    let mask = if cx.wave64() { A::SPair(m0, m1) } else { A::U(m0) };
    let mut m = MInst::new();
    for (dst, src) in def_parts(out).into_iter().zip(use_parts(xv)) {
        let (r, rv) = (cx.new_s(), cx.new_v());
        m.step(t(cx, Op::VReadlaneB32), &[A::D(r), src, A::U(s)]);
        m.step(t(cx, Op::VMovB32), &[A::D(rv), A::U(r)]);
        m.step(e64(cx, Op::VCndmaskB32), &[dst, src, A::U(rv), mask]);
    }
    cx.emit(m);
    out
}

/// The shuffles through `ds_bpermute` (one `MInst`): source lane and validity, the reads, then
/// `valid && exec[src] ? read : own`.
fn shuffle_bpermute(
    cx: &mut Lower<'_>,
    kind: ShuffleKind,
    ty: Type,
    xv: Val,
    d: VReg,
    how: ShuffleStrategy,
    w: u32,
) -> Val {
    let mut m = MInst::new();
    let lane = cx.new_v();
    lane_id_steps(cx, &mut m, lane);
    let (s, ok) = (cx.new_v(), cx.new_v());
    let vcc = A::K(cx.vcc());
    let wm1 = A::K(Operand::imm32(w - 1));
    // s = source lane; VCC = in range.
    match kind {
        ShuffleKind::Idx => {
            m.step(e64(cx, Op::VAndB32), &[A::D(s), wm1, A::U(d)]);
            m.step(t(cx, Op::VCmpEqU32), &[vcc, A::U(s), A::U(s)]);
        }
        ShuffleKind::Up => {
            m.step(t(cx, Op::VSubU32), &[A::D(s), A::U(lane), A::U(d)]);
            m.step(t(cx, Op::VCmpLeU32), &[vcc, A::U(d), A::U(lane)]);
        }
        ShuffleKind::Down => {
            let room = cx.new_v();
            m.step(t(cx, Op::VAddU32), &[A::D(s), A::U(lane), A::U(d)]);
            m.step(t(cx, Op::VSubU32), &[A::D(room), wm1, A::U(lane)]);
            m.step(t(cx, Op::VCmpLeU32), &[vcc, A::U(d), A::U(room)]);
        }
        ShuffleKind::Xor => {
            m.step(t(cx, Op::VXorB32), &[A::D(s), A::U(lane), A::U(d)]);
            m.step(t(cx, Op::VCmpGeU32), &[vcc, wm1, A::U(s)]);
        }
    }
    // ok = in range ? (exec >> s) & 1 : 0.
    if cx.wave64() {
        let sh = cx.new_w();
        m.step(t(cx, Op::VLshrrevB64), &[A::D(sh), A::U(s), A::K(Operand::Exec)]);
        m.step(t(cx, Op::VCndmaskB32), &[A::D(ok), A::K(Operand::Int(0)), A::UL(sh), vcc]);
    } else {
        let sh = cx.new_v();
        m.step(e64(cx, Op::VLshrrevB32), &[A::D(sh), A::U(s), A::K(Operand::ExecLo)]);
        m.step(t(cx, Op::VCndmaskB32), &[A::D(ok), A::K(Operand::Int(0)), A::U(sh), vcc]);
    }
    m.step(t(cx, Op::VAndB32), &[A::D(ok), A::K(Operand::Int(1)), A::U(ok)]);
    let tmp = Temps::new(cx);
    let r = route(cx, &mut m, how, A::U(s), lane, tmp);
    let parts = use_parts(xv);
    let got: Vec<VReg> = parts.iter().map(|_| cx.new_v()).collect();
    let saved = if how == ShuffleStrategy::BpermuteHalves {
        // The route and the activity test above were computed under the caller's EXEC.
        cx.emit(std::mem::take(&mut m));
        Some(whole_wave_begin(cx))
    } else {
        None
    };
    for (g, p) in got.iter().zip(&parts) {
        fetch(cx, &mut m, &r, A::D(*g), *p);
    }
    if let Some(sv) = saved {
        whole_wave_end(cx, &mut m, sv);
    }
    let out = cx.fresh(ty, Cls::Vector);
    m.step(t(cx, Op::VCmpNeU32), &[vcc, A::K(Operand::Int(0)), A::U(ok)]);
    for ((dst, own), g) in def_parts(out).into_iter().zip(parts).zip(got) {
        m.step(t(cx, Op::VCndmaskB32), &[dst, own, A::U(g), vcc]);
    }
    cx.emit(m);
    out
}

// ----- broadcast, ballots, activemask, elect, sync -----------------------------------------

/// `broadcast %x, %lane`: `v_readlane` at the first active lane's index mod the wave size (a
/// uniform SGPR result), or the `ds_bpermute` baseline whole-wave (it must read the source lane
/// whatever its activity).
pub(crate) fn broadcast(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let [x, l] = [cx.f.args(i)[0], cx.f.args(i)[1]];
    let v = cx.f.inst_results(i)[0];
    let xv = cx.val(x);
    if xv.is_scalar() {
        put(cx, v, xv);
        return Ok(());
    }
    let lv = match cx.val(l) {
        Val::S64(lo, _) => Val::S(lo),
        Val::V64(w) => {
            let s = cx.new_s();
            cx.emit1(Op::VReadfirstlaneB32, &[A::D(s), A::UL(w)]);
            Val::S(s)
        }
        other => cx.in_sgpr(other),
    };
    let Val::S(ls) = lv else { unreachable!("a 32-bit SGPR index") };
    let w = cx.target.wave.lanes();
    let ty = cx.f.value_type(v);
    let found = shuffle_pattern(cx.f, i, w);
    let mut pattern = found.to_string();
    if found == LanePattern::Dynamic {
        pattern.push_str(" (uniform index)");
    }
    // A constant lane (a register tile's broadcasts, `broadcast_first`) is the readlane's inline
    // lane operand: no mask, no SGPR.
    let const_lane = cx.const_bits(l).map(|c| (c as u32) & (w - 1));
    let (minsts, out) = capture(cx, |cx| {
        let out = cx.fresh(ty, Cls::Scalar);
        let mut m = MInst::new();
        let lane = match const_lane {
            Some(c) => A::K(Operand::imm32(c)),
            None => {
                let s = cx.new_s();
                m.step(t(cx, Op::SAndB32), &[A::D(s), A::U(ls), A::K(Operand::imm32(w - 1))]);
                A::U(s)
            }
        };
        for (dst, src) in def_parts(out).into_iter().zip(use_parts(xv)) {
            m.step(t(cx, Op::VReadlaneB32), &[dst, src, lane]);
        }
        cx.emit(m);
        out
    });
    let mut built = vec![Built { name: "readlane".into(), family: ShuffleLowering::Dpp, minsts, out }];
    let how = generic_route(cx);
    let (minsts, out) = capture(cx, |cx| broadcast_bpermute(cx, ty, xv, ls, how, w));
    let name = if how == ShuffleStrategy::BpermuteHalves { "bpermute halves" } else { "bpermute" };
    built.push(Built { name: name.into(), family: ShuffleLowering::Bpermute, minsts, out });
    let out = choose(cx, i, xv, pattern, String::new(), built)?;
    put(cx, v, out);
    Ok(())
}

/// `broadcast` through `ds_bpermute` (the baseline): whole-wave, so the source lane is read
/// whatever its activity.
fn broadcast_bpermute(cx: &mut Lower<'_>, ty: Type, xv: Val, ls: VReg, how: ShuffleStrategy, w: u32) -> Val {
    let s = cx.new_s();
    cx.emit1(Op::SAndB32, &[A::D(s), A::U(ls), A::K(Operand::imm32(w - 1))]);
    let saved = whole_wave_begin(cx);
    let mut m = MInst::new();
    let (lane, src) = (cx.new_v(), cx.new_v());
    lane_id_steps(cx, &mut m, lane);
    m.step(t(cx, Op::VMovB32), &[A::D(src), A::U(s)]);
    let tmp = Temps::new(cx);
    let r = route(cx, &mut m, how, A::U(src), lane, tmp);
    let out = cx.fresh(ty, Cls::Vector);
    for (dst, p) in def_parts(out).into_iter().zip(use_parts(xv)) {
        fetch(cx, &mut m, &r, dst, p);
    }
    whole_wave_end(cx, &mut m, saved);
    cx.emit(m);
    out
}

/// `ballot` (u64) and `ballot.first_n` (u32): the predicate compared into a lane mask, ANDed
/// with EXEC.
pub(crate) fn ballot(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let p = cx.f.args(i)[0];
    let v = cx.f.inst_results(i)[0];
    let (lo, hi) = (cx.new_s(), cx.new_s());
    let pv = cx.val(p);
    let mut m = MInst::new();
    let zero = A::K(Operand::Int(0));
    match pv {
        Val::S(s) => {
            m.step(t(cx, Op::SCmpLgU32), &[A::U(s), zero]);
            if cx.wave64() {
                m.step(t(cx, Op::SCselectB64), &[A::SPairDef(lo, hi), A::K(Operand::Exec), zero]);
            } else {
                m.step(t(cx, Op::SCselectB32), &[A::D(lo), A::K(Operand::ExecLo), zero]);
                m.step(t(cx, Op::SMovB32), &[A::D(hi), zero]);
            }
        }
        Val::V(x) => {
            let vcc = cx.vcc();
            m.step(t(cx, Op::VCmpNeU32), &[A::K(vcc), zero, A::U(x)]);
            if cx.wave64() {
                m.step(t(cx, Op::SAndB64), &[A::SPairDef(lo, hi), A::K(vcc), A::K(Operand::Exec)]);
            } else {
                m.step(t(cx, Op::SAndB32), &[A::D(lo), A::K(vcc), A::K(Operand::ExecLo)]);
                m.step(t(cx, Op::SMovB32), &[A::D(hi), zero]);
            }
        }
        Val::S64(..) | Val::V64(_) => return Err(cx.internal(i, "a 64-bit ballot predicate")),
    }
    cx.emit(m);
    if cx.f.insts[i].opcode == Opcode::BallotFirstN {
        let Imm::Count(n) = cx.f.insts[i].imm else { return Err(cx.internal(i, "ballot.first_n without a count")) };
        let n = u32::from(n).min(32);
        let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let r = cx.new_s();
        cx.emit1(Op::SAndB32, &[A::D(r), A::U(lo), A::K(Operand::imm32(mask))]);
        put(cx, v, Val::S(r));
    } else {
        put(cx, v, Val::S64(lo, hi));
    }
    Ok(())
}

/// `activemask`: EXEC (u64; high half 0 in wave32).
pub(crate) fn activemask(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let (lo, hi) = (cx.new_s(), cx.new_s());
    let mut m = MInst::one(t(cx, Op::SMovB32), &[A::D(lo), A::K(Operand::ExecLo)]);
    let h = if cx.wave64() { Operand::ExecHi } else { Operand::Int(0) };
    m.step(t(cx, Op::SMovB32), &[A::D(hi), A::K(h)]);
    cx.emit(m);
    put(cx, v, Val::S64(lo, hi));
    Ok(())
}

/// `elect`: true on the lane with no active lane below it (`v_mbcnt` of EXEC == 0).
pub(crate) fn elect(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let (c, r) = (cx.new_v(), cx.new_v());
    let mut m = MInst::one(e64(cx, Op::VMbcntLoU32B32), &[A::D(c), A::K(Operand::ExecLo), A::K(Operand::Int(0))]);
    if cx.wave64() {
        m.step(e64(cx, Op::VMbcntHiU32B32), &[A::D(c), A::K(Operand::ExecHi), A::U(c)]);
    }
    let vcc = A::K(cx.vcc());
    m.step(t(cx, Op::VCmpEqU32), &[vcc, A::K(Operand::Int(0)), A::U(c)]);
    m.step(e64(cx, Op::VCndmaskB32), &[A::D(r), A::K(Operand::Int(0)), A::K(Operand::Int(1)), vcc]);
    cx.emit(m);
    put(cx, v, Val::V(r));
    Ok(())
}

/// `subgroup.sync`: nothing to emit (see the module docs).
pub(crate) fn subgroup_sync(_cx: &mut Lower<'_>, _i: Inst) -> Result<(), CompileError> {
    Ok(())
}
