//! The host functions compiled kernels call: fault recording, the subgroup collectives and lane
//! exchanges (computed by the interpreter's own `simt` functions on the lane arrays, so they are
//! exact by construction), block barriers, the step/time budget, and the few float operations
//! whose NaN results the native instructions would not reproduce bit for bit.
//!
//! Every helper is `extern "C"` and takes the subgroup's [`SgCtx`]; its `host` field points at the
//! subgroup's [`SgHost`]. None of them unwinds: a problem becomes a recorded fault and a status.

use crate::abi::{SgCtx, STATUS_ABORT, STATUS_FAULT};
use crate::launch::Shared;
use corosensei::Yielder;
use cranelift_entity::EntityRef;
use qd_mir::eval::{self, EvalError};
use qd_mir::interp::pointer;
use qd_mir::interp::simt::{self, ShuffleKind, VoteKind};
use qd_mir::ops::{BinOp, Collective, ExchangeOp, PredOp};
use qd_mir::{AddrSpace, Function, Imm, Inst, ScalarType};
use std::sync::atomic::Ordering;

/// A fault a subgroup met, before it is rendered into an `InterpError`.
#[derive(Clone, Debug)]
pub struct PendingFault {
    /// Ordering key inside a fused lane loop: the instruction's position in the run.
    pub key: u32,
    /// The message (the interpreter's words).
    pub message: String,
    /// The faulting instruction.
    pub inst: Option<Inst>,
    /// The faulting lane (`None` for subgroup-wide faults).
    pub lane: Option<u32>,
}

/// What a suspended subgroup tells the block scheduler.
#[derive(Copy, Clone, Debug)]
pub struct BarrierCall {
    /// The barrier instruction.
    pub inst: Inst,
}

/// What the block scheduler answers a subgroup waiting at a barrier.
#[derive(Copy, Clone, Debug)]
pub enum BarrierReply {
    /// Go on; `block.sync_pred`'s result.
    Release(u64),
    /// Stop: the block faulted elsewhere.
    Abort,
}

/// The host side of one subgroup.
pub struct SgHost<'k> {
    /// The launch this subgroup belongs to.
    pub shared: &'k Shared<'k>,
    /// The first fault met (lowest key, then lowest lane, within a fused lane loop).
    pub fault: Option<PendingFault>,
    /// The coroutine yielder when the block's subgroups take turns at barriers.
    pub yielder: *const Yielder<BarrierReply, BarrierCall>,
    /// Where a waiting subgroup's `block.sync_pred` predicate lanes are (read by the scheduler).
    pub pred: *const u64,
    /// The live lanes of a waiting subgroup.
    pub live: u64,
    /// Lane-instructions charged so far.
    pub steps: u64,
}

impl SgHost<'_> {
    fn function(&self) -> &Function {
        self.shared.kernel.function()
    }

    fn width(&self) -> usize {
        self.shared.kernel.width() as usize
    }

    fn record(&mut self, f: PendingFault) {
        let better = match &self.fault {
            None => true,
            Some(old) => (f.key, f.lane.unwrap_or(0)) < (old.key, old.lane.unwrap_or(0)),
        };
        if better {
            self.fault = Some(f);
        }
    }
}

/// The subgroup's host state.
///
/// # Safety
/// `ctx` must be the context a launch built, whose `host` points at a live `SgHost` used by no one
/// else while the subgroup runs (each subgroup has its own).
unsafe fn host<'a>(ctx: *mut SgCtx) -> &'a mut SgHost<'a> {
    // SAFETY: the caller's contract; the launch keeps ctx and host alive for the whole call.
    unsafe { &mut *((*ctx).host as *mut SgHost<'a>) }
}

/// Lane array `p` of width `w` (empty for a null `p`: an operand the op does not have).
///
/// # Safety
/// `p` must be null or point at `w` readable `u64`s (a slot of the subgroup's register file).
unsafe fn lanes<'a>(p: *const u64, w: usize) -> &'a [u64] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, w) }
}

/// Fault codes of [`qd_fault`].
pub mod code {
    /// A memory access: `a` is the pointer, `b` the element size in bytes.
    pub const ACCESS: u32 = 0;
    /// Integer division or remainder by zero.
    pub const DIV_ZERO: u32 = 1;
}

/// Records a per-lane fault: a memory access that failed the inline check, or a division by
/// zero. `key` orders faults met in one fused lane loop (the lowest key, then the lowest lane, is
/// the one lock-step execution meets first).
pub extern "C" fn qd_fault(ctx: *mut SgCtx, code: u32, inst: u32, key: u32, lane: u32, a: u64, b: u64) {
    // SAFETY: called by compiled code with its own context.
    let h = unsafe { host(ctx) };
    let message =
        if code == code::ACCESS { access_message(h, a, b as u32) } else { "integer division by zero".to_string() };
    h.record(PendingFault { key, message, inst: Some(Inst::new(inst as usize)), lane: Some(lane) });
}

/// The interpreter's message for a failed access through `ptr`.
fn access_message(h: &SgHost<'_>, ptr: u64, bytes: u32) -> String {
    let f = h.function();
    let sh = h.shared;
    let name = |space: AddrSpace, id: usize| match space {
        AddrSpace::Global => format!("%{}", f.params.get(id).map(|p| p.name.as_str()).unwrap_or("?")),
        AddrSpace::Shared => {
            let arr = f.shared.values().nth(id).map(|s| s.name.as_str()).unwrap_or("?");
            format!("@{arr}")
        }
    };
    let len = |space: AddrSpace, id: usize| sh.len_of(space, id);
    match pointer::resolve(ptr, bytes, name, len) {
        Err(m) => m,
        Ok(_) => format!("access through {ptr:#x} failed the bounds check"),
    }
}

/// Runs an exchange or collective instruction on the lane arrays `a` (and `b`) for the lanes of
/// `mask`, writing the active lanes of `dst`; returns the result of the lowest active lane (the
/// value of a uniform result).
pub extern "C" fn qd_exchange(
    ctx: *mut SgCtx,
    inst: u32,
    a: *const u64,
    b: *const u64,
    dst: *mut u64,
    mask: u64,
) -> u64 {
    // SAFETY: called by compiled code with its own context.
    let h = unsafe { host(ctx) };
    let w = h.width();
    let sh = h.shared;
    let f = sh.kernel.function();
    let inst = Inst::new(inst as usize);
    let data = &f.insts[inst];
    let args = f.args(inst);
    let ty_of = |k: usize| args.get(k).and_then(|&v| f.values[v].ty.scalar()).unwrap_or(ScalarType::U64);
    // SAFETY: the lowering passes lane arrays of the subgroup (or its scratch slots) of width w.
    let (va, vb) = unsafe { (lanes(a, w), lanes(b, w)) };
    let wu = w as u32;
    let fill = |v: u64| vec![v; w];
    let bad = |h: &mut SgHost<'_>| {
        let message = format!("`{}` is not defined on {}", data.opcode, ty_of(0));
        h.record(PendingFault { key: 0, message, inst: Some(inst), lane: None });
    };
    let group = |out: Result<Vec<u64>, EvalError>, h: &mut SgHost<'_>| out.map_err(|_| bad(h)).ok();
    let out: Option<Vec<u64>> = match (data.opcode.exchange(), data.opcode.collective(), data.imm) {
        (Some(x), _, imm) => Some(match x {
            ExchangeOp::Shuffle(k) => simt::shuffle(ShuffleKind::of(k), va, vb, mask, wu),
            ExchangeOp::Broadcast => simt::shuffle(ShuffleKind::Broadcast, va, vb, mask, wu),
            ExchangeOp::Ballot => fill(simt::ballot(va, mask, wu)),
            ExchangeOp::BallotFirstN => {
                let n = if let Imm::Count(n) = imm { n.min(32) } else { 32 };
                fill(simt::ballot(va, mask, wu) & ((1u64 << n) - 1))
            }
            ExchangeOp::MatchAny => simt::match_any(ty_of(0), va, mask, wu),
            ExchangeOp::MatchAll => fill(simt::match_all(ty_of(0), va, mask, wu)),
            ExchangeOp::ActiveMask => fill(simt::active_mask(mask, wu)),
            ExchangeOp::Elect => simt::elect(mask, wu),
        }),
        (None, Some(c), Imm::Tile(t)) => match c {
            Collective::VoteAll => Some(simt::vote(VoteKind::All, ty_of(0), va, mask, wu, t)),
            Collective::VoteAny => Some(simt::vote(VoteKind::Any, ty_of(0), va, mask, wu, t)),
            Collective::VoteEq => Some(simt::vote(VoteKind::Eq, ty_of(0), va, mask, wu, t)),
            Collective::Reduce | Collective::Scan | Collective::SegReduce => None,
        },
        (None, Some(c), Imm::Group { op, tile, inclusive }) => match c {
            Collective::Reduce => group(simt::reduce(op, ty_of(0), va, mask, wu, tile), h),
            Collective::Scan => group(simt::scan(op, ty_of(0), inclusive, va, mask, wu, tile), h),
            Collective::SegReduce => group(simt::segreduce(op, ty_of(0), va, vb, mask, wu, tile), h),
            Collective::VoteAll | Collective::VoteAny | Collective::VoteEq => None,
        },
        // Not an exchange or collective, or a malformed immediate: the verifier rules these out.
        (None, _, _) => None,
    };
    let Some(out) = out else {
        if h.fault.is_none() {
            bad(h);
        }
        return 0;
    };
    let mut first = None;
    for (l, &v) in out.iter().enumerate().take(w) {
        if (mask >> l) & 1 != 0 {
            // SAFETY: dst is a lane array of width w of this subgroup.
            unsafe { *dst.add(l) = v };
            first.get_or_insert(v);
        }
    }
    first.unwrap_or(0)
}

/// A block barrier (`block.sync`, `block.sync_pred` with its predicate lanes `pred`): checks that
/// the whole subgroup arrived, then waits for the other subgroups of the block (when they take
/// turns on coroutines) and gives `block.sync_pred`'s result; a negative value is a status
/// (`-STATUS_FAULT`, `-STATUS_ABORT`).
pub extern "C" fn qd_barrier(ctx: *mut SgCtx, inst: u32, pred: *const u64, mask: u64, live: u64) -> i64 {
    // SAFETY: called by compiled code with its own context.
    let h = unsafe { host(ctx) };
    let inst = Inst::new(inst as usize);
    if mask != live {
        let message = format!("barrier reached under divergence (active lanes {mask:#x}, live lanes {live:#x})");
        h.record(PendingFault { key: 0, message, inst: Some(inst), lane: None });
        return -i64::from(STATUS_FAULT);
    }
    h.pred = pred;
    h.live = live;
    if h.yielder.is_null() {
        // The only subgroup of its block: the barrier releases at once.
        return sync_pred_result(h.function(), inst, &[(pred, live)], h.width()) as i64;
    }
    // SAFETY: the yielder belongs to the coroutine this code runs on, which outlives the call.
    let y = unsafe { &*h.yielder };
    match y.suspend(BarrierCall { inst }) {
        BarrierReply::Release(v) => v as i64,
        BarrierReply::Abort => -i64::from(STATUS_ABORT),
    }
}

/// `block.sync_pred`'s combination over the live lanes of every subgroup (0 for `block.sync`).
pub fn sync_pred_result(f: &Function, inst: Inst, sgs: &[(*const u64, u64)], w: usize) -> u64 {
    let Imm::Pred(op) = f.insts[inst].imm else { return 0 };
    let (mut count, mut all, mut any) = (0u64, true, false);
    for &(pred, live) in sgs {
        if pred.is_null() {
            continue;
        }
        // SAFETY: a waiting subgroup's predicate lane array stays valid while it is suspended.
        let p = unsafe { lanes(pred, w) };
        for (l, &bit) in p.iter().enumerate() {
            if (live >> l) & 1 != 0 {
                let t = bit != 0;
                count += u64::from(t);
                all &= t;
                any |= t;
            }
        }
    }
    match op {
        PredOp::And => u64::from(all),
        PredOp::Or => u64::from(any),
        PredOp::Count => count & 0xFFFF_FFFF,
    }
}

/// How many lane-instructions a subgroup takes from the launch's budget at a time.
pub const BUDGET_CHUNK: i64 = 1 << 22;

/// The compiled code ran out of budget at `inst` (`spent` lane-instructions over what it had):
/// takes another chunk from the launch's step limit and checks its time limit and cancellation.
/// Returns the new budget, or a negative status after recording the fault.
pub extern "C" fn qd_refill(ctx: *mut SgCtx, inst: u32, budget: i64) -> i64 {
    // SAFETY: called by compiled code with its own context.
    let h = unsafe { host(ctx) };
    let sh = h.shared;
    let used = (BUDGET_CHUNK - budget).max(0) as u64;
    h.steps += used;
    let inst = Inst::new(inst as usize);
    let stop = |h: &mut SgHost<'_>, message: String| {
        h.record(PendingFault { key: 0, message, inst: Some(inst), lane: None });
        -i64::from(STATUS_FAULT)
    };
    if sh.abort.load(Ordering::Relaxed) {
        return -i64::from(STATUS_ABORT);
    }
    let total = sh.steps.fetch_add(used, Ordering::Relaxed) + used;
    if let Some(limit) = sh.limits.step_limit {
        if total > limit {
            return stop(h, format!("step limit of {limit} lane-instructions exceeded"));
        }
    }
    if let Some(deadline) = sh.deadline {
        if std::time::Instant::now() > deadline {
            let secs = sh.limits.time_limit.map(|d| d.as_secs_f64()).unwrap_or(0.0);
            return stop(h, format!("time limit of {secs} s exceeded"));
        }
    }
    BUDGET_CHUNK
}

/// `fma` exactly as the interpreter computes it (`mul_add`), NaN payloads included.
pub extern "C" fn qd_fma(ty: u32, a: u64, b: u64, c: u64) -> u64 {
    let ty = if ty == 32 { ScalarType::F32 } else { ScalarType::F64 };
    eval::fma(ty, a, b, c).unwrap_or(0)
}

/// A float binary op exactly as the interpreter computes it: `rem`, and `min`/`max` when an
/// operand is NaN. `op` is 0 rem, 1 min, 2 max.
pub extern "C" fn qd_float_binop(op: u32, ty: u32, a: u64, b: u64) -> u64 {
    let ty = if ty == 32 { ScalarType::F32 } else { ScalarType::F64 };
    let op = match op {
        0 => BinOp::Rem,
        1 => BinOp::Min,
        _ => BinOp::Max,
    };
    eval::eval_binop(op, ty, a, b).unwrap_or_else(|e: EvalError| match e {
        EvalError::DivByZero | EvalError::BadType => 0,
    })
}
