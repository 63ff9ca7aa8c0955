//! The subgroup execution engine: lock-step subgroups with `u64` active masks, run as explicit
//! resumable state machines, and the per-block round-robin scheduler that implements block
//! barriers.
//!
//! # Subgroups
//!
//! The threads of a block are linearised x fastest; subgroup `k` holds linear threads
//! `[k·W, (k+1)·W)`, `lane_id = linear % W`, `subgroup_id = linear / W`. The lanes of a partial last
//! subgroup that have no thread are permanently inactive. Registers are one flat `Vec<u64>` per
//! subgroup: value `v` of lane `l` lives at `v.index() · W + l`. Registers are zero-filled at the
//! start of every block.
//!
//! # Control flow (the state machine)
//!
//! A subgroup is a stack of [`Frame`]s — a region, the index of its next instruction, the active
//! mask and what to do when the region finishes — never Rust recursion, so a subgroup can suspend
//! at a block barrier and resume later. `if %c` runs the then arm with `M ∧ c`, then the else arm
//! with `M ∧ ¬c`; afterwards the active mask is the set of lanes that reached a `yield`. A loop
//! frame accumulates the lanes that `continue` (with their carried values written at once) and the
//! lanes that `break` (with the loop results written at once); the body reruns with the continuing
//! lanes until none is left, then the loop's active mask is the breaking lanes. `return` removes
//! lanes from the subgroup's live mask for good. A region whose mask becomes empty (all its lanes
//! left through `break`/`continue`/`return` in a nested region) finishes at once; a region entered
//! with an empty mask is not executed.
//!
//! # Block barriers and scheduling
//!
//! Blocks run one after another in linear order (block id x fastest): inter-block ordering is
//! sequential, so even racy programs are deterministic. Within a block, subgroup 0 runs until it
//! finishes or waits at a barrier, then subgroup 1, and so on; when every subgroup with live lanes
//! waits, the barrier is released (all must wait at the same barrier instruction, and every live
//! lane of a subgroup must be active when it arrives) and the round starts again. Returned lanes and
//! finished subgroups count as arrived. `subgroup.sync` and fences are no-ops: execution is
//! sequential, so every write is visible to every later instruction of any thread; `subgroup.sync`
//! checks nothing (the subgroup always runs in lock-step).
//!
//! # Instructions
//!
//! Every opcode is handled in one exhaustive `match` in [`Exec::exec`]. Pure ops evaluate per
//! active lane through [`crate::eval`]; collectives call [`super::simt`]; memory goes through
//! [`super::memory::Memory`]. Atomics are applied lane by lane in ascending lane order.

use super::memory::{self, Memory};
use super::simt::{self, ShuffleKind, VoteKind};
use super::Fault;
use crate::entities::{Inst, Region, Value};
use crate::eval::{self, EvalError};
use crate::function::Function;
use crate::inst::Imm;
use crate::ops::{
    Collective, Dim, ExchangeOp, IndexOp, LaneMask, MemoryOp, OpClass, Opcode, PredOp, SyncOp, Terminator,
};
use crate::text::printer::print_inst;
use crate::types::{AddrSpace, ScalarType, Type};
use cranelift_entity::EntityRef;

/// What a finished frame's region belongs to.
#[derive(Copy, Clone, Debug)]
enum Kind {
    /// The kernel body.
    Body,
    /// The then arm of `inst`; the else arm runs next with `else_mask`.
    Then { inst: Inst, else_mask: u64, yielded: u64 },
    /// The else arm of `inst`.
    Else { inst: Inst, yielded: u64 },
    /// The body of loop `inst`.
    Loop { inst: Inst, brk: u64, cont: u64 },
}

/// One region being executed by a subgroup.
#[derive(Copy, Clone, Debug)]
struct Frame {
    region: Region,
    pc: usize,
    mask: u64,
    kind: Kind,
}

/// Scheduling state of a subgroup.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Running,
    /// Waiting at this barrier instruction.
    Waiting(Inst),
    Done,
}

/// One subgroup of the current block.
pub(crate) struct Subgroup {
    regs: Vec<u64>,
    frames: Vec<Frame>,
    live: u64,
    state: State,
    /// Linear thread index (within the block) of lane 0.
    first_thread: u32,
    /// Subgroup index within the block.
    index: u32,
}

/// Geometry and arguments of one launch.
pub(crate) struct Launch<'f> {
    /// The kernel.
    pub f: &'f Function,
    /// Subgroup width.
    pub width: u32,
    /// Block size.
    pub block: [u32; 3],
    /// Grid size.
    pub grid: [u32; 3],
    /// Register bits of each kernel parameter.
    pub params: Vec<u64>,
}

/// Per-launch counters (limits shared across the launches of a program).
pub(crate) struct Counters {
    /// Lane-instructions executed so far.
    pub steps: u64,
    /// Fault when `steps` exceeds this.
    pub limit: Option<u64>,
    /// Blocks run.
    pub blocks: u64,
    /// Barriers released.
    pub barriers: u64,
}

/// Iterator over the set bits (lanes) of a mask, ascending.
struct Lanes(u64);

impl Iterator for Lanes {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

fn all_lanes(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// What the subgroup does after an instruction.
enum Step {
    Next,
    Wait,
}

/// The executor of one launch.
struct Exec<'f, 'm, 'b, 'c> {
    f: &'f Function,
    w: usize,
    l: &'f Launch<'f>,
    mem: &'m mut Memory<'b>,
    cnt: &'c mut Counters,
    block_id: [u32; 3],
    block_linear: u64,
    scratch: Vec<u64>,
}

/// Runs every block of a launch.
pub(crate) fn run_launch(l: &Launch<'_>, mem: &mut Memory<'_>, cnt: &mut Counters) -> Result<(), Fault> {
    let [bx, by, bz] = l.block;
    let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
    let w = l.width;
    let nsg = threads.div_ceil(u64::from(w));
    let nvals = l.f.values.len() * w as usize;
    let mut sgs: Vec<Subgroup> = (0..nsg)
        .map(|k| Subgroup {
            regs: vec![0; nvals],
            frames: Vec::with_capacity(16),
            live: 0,
            state: State::Done,
            first_thread: (k * u64::from(w)) as u32,
            index: k as u32,
        })
        .collect();
    let [gx, gy, gz] = l.grid;
    let mut ex =
        Exec { f: l.f, w: w as usize, l, mem, cnt, block_id: [0; 3], block_linear: 0, scratch: Vec::with_capacity(8) };
    let mut linear = 0u64;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                ex.block_id = [x, y, z];
                ex.block_linear = linear;
                linear += 1;
                ex.run_block(&mut sgs, threads)?;
                ex.cnt.blocks += 1;
            }
        }
    }
    Ok(())
}

impl Exec<'_, '_, '_, '_> {
    fn fault(&self, message: String, inst: Option<Inst>) -> Fault {
        Fault { message, inst, block: Some(self.block_id), subgroup: None, thread: None, lane: None }
    }

    fn sg_fault(&self, sg: &Subgroup, message: String, inst: Inst) -> Fault {
        Fault { subgroup: Some(sg.index), ..self.fault(message, Some(inst)) }
    }

    fn lane_fault(&self, sg: &Subgroup, message: String, inst: Inst, lane: usize) -> Fault {
        Fault {
            thread: Some(sg.first_thread + lane as u32),
            lane: Some(lane as u32),
            ..self.fault(message, Some(inst))
        }
    }

    fn eval_fault(&self, sg: &Subgroup, e: EvalError, inst: Inst, lane: usize) -> Fault {
        let msg = match e {
            EvalError::DivByZero => "integer division by zero".to_string(),
            EvalError::BadType => format!("`{}` is not defined on this type", self.f.insts[inst].opcode),
        };
        self.lane_fault(sg, msg, inst, lane)
    }

    fn run_block(&mut self, sgs: &mut [Subgroup], threads: u64) -> Result<(), Fault> {
        self.mem.reset_shared();
        let w = self.w;
        for sg in sgs.iter_mut() {
            sg.regs.fill(0);
            for (p, &bits) in self.f.params.iter().zip(&self.l.params) {
                let base = p.value.index() * w;
                if let Some(slot) = sg.regs.get_mut(base..base + w) {
                    slot.fill(bits);
                }
            }
            let present = threads.saturating_sub(u64::from(sg.first_thread)).min(w as u64) as u32;
            sg.live = all_lanes(present);
            sg.frames.clear();
            sg.frames.push(Frame { region: self.f.body, pc: 0, mask: sg.live, kind: Kind::Body });
            sg.state = State::Running;
        }
        loop {
            for sg in sgs.iter_mut() {
                if sg.state == State::Running {
                    self.run_subgroup(sg)?;
                }
            }
            let mut waiting = sgs.iter().filter_map(|s| match s.state {
                State::Waiting(i) => Some((s.index, i)),
                State::Running | State::Done => None,
            });
            let Some((first_sg, barrier)) = waiting.next() else { return Ok(()) };
            if let Some((other_sg, other)) = waiting.find(|&(_, i)| i != barrier) {
                let msg = format!(
                    "subgroups of block {} wait at different barriers: subgroup {first_sg} at `{}` ({barrier}), \
                     subgroup {other_sg} at `{}` ({other})",
                    self.block_linear,
                    print_inst(self.f, barrier),
                    print_inst(self.f, other)
                );
                return Err(self.fault(msg, None));
            }
            self.release(sgs, barrier)?;
        }
    }

    /// Releases a barrier every live subgroup waits at (computing `block.sync_pred`'s result).
    fn release(&mut self, sgs: &mut [Subgroup], barrier: Inst) -> Result<(), Fault> {
        let f = self.f;
        let w = self.w;
        let data = &f.insts[barrier];
        if data.opcode == Opcode::BlockSyncPred {
            let (&[p], &[r]) = (f.args(barrier), f.inst_results(barrier)) else {
                return Err(self.fault("malformed `block.sync_pred`".into(), Some(barrier)));
            };
            let Imm::Pred(op) = data.imm else {
                return Err(self.fault("malformed immediate".into(), Some(barrier)));
            };
            let (mut count, mut all, mut any) = (0u64, true, false);
            for sg in sgs.iter() {
                for l in Lanes(sg.live) {
                    let t = sg.regs[p.index() * w + l] != 0;
                    count += u64::from(t);
                    all &= t;
                    any |= t;
                }
            }
            let v = match op {
                PredOp::And => u64::from(all),
                PredOp::Or => u64::from(any),
                PredOp::Count => count & 0xFFFF_FFFF,
            };
            for sg in sgs.iter_mut() {
                for l in Lanes(sg.live) {
                    sg.regs[r.index() * w + l] = v;
                }
            }
        }
        for sg in sgs.iter_mut() {
            if let State::Waiting(_) = sg.state {
                sg.state = State::Running;
            }
        }
        self.cnt.barriers += 1;
        Ok(())
    }

    /// Runs a subgroup until it finishes or waits at a barrier.
    fn run_subgroup(&mut self, sg: &mut Subgroup) -> Result<(), Fault> {
        let f = self.f;
        loop {
            let Some(top) = sg.frames.last_mut() else {
                sg.state = State::Done;
                return Ok(());
            };
            let insts = &f.regions[top.region].insts;
            let Some(&inst) = insts.get(top.pc).filter(|_| top.mask != 0) else {
                self.finish_frame(sg)?;
                continue;
            };
            top.pc += 1;
            let mask = top.mask;
            self.cnt.steps += u64::from(mask.count_ones());
            if let Some(limit) = self.cnt.limit {
                if self.cnt.steps > limit {
                    return Err(self.fault(format!("step limit of {limit} lane-instructions exceeded"), Some(inst)));
                }
            }
            match self.exec(sg, inst, mask)? {
                Step::Next => {}
                Step::Wait => return Ok(()),
            }
        }
    }

    /// Pops the finished top frame and continues its owner (else arm, next iteration, or the
    /// enclosing region with its new active mask).
    fn finish_frame(&mut self, sg: &mut Subgroup) -> Result<(), Fault> {
        let Some(fr) = sg.frames.pop() else { return Ok(()) };
        let parent_mask = match fr.kind {
            Kind::Body => {
                // Falling off the end of the body ends the remaining lanes, like `return`.
                sg.live &= !fr.mask;
                return Ok(());
            }
            _ if fr.mask != 0 => {
                let owner = self.f.regions[fr.region].parent.expand();
                return Err(Fault {
                    subgroup: Some(sg.index),
                    ..self.fault("region ends without a terminator".into(), owner)
                });
            }
            Kind::Then { inst, else_mask, yielded } => match self.f.insts[inst].regions[1].expand() {
                Some(els) if else_mask != 0 => {
                    sg.frames.push(Frame { region: els, pc: 0, mask: else_mask, kind: Kind::Else { inst, yielded } });
                    return Ok(());
                }
                _ => yielded | else_mask_without_region(self.f, inst, else_mask),
            },
            Kind::Else { yielded, .. } => yielded,
            Kind::Loop { inst, brk, cont } => {
                if cont != 0 {
                    let kind = Kind::Loop { inst, brk, cont: 0 };
                    sg.frames.push(Frame { region: fr.region, pc: 0, mask: cont, kind });
                    return Ok(());
                }
                brk
            }
        };
        if let Some(parent) = sg.frames.last_mut() {
            parent.mask = parent_mask;
        }
        Ok(())
    }

    fn scalar(&self, sg: &Subgroup, v: Value, inst: Inst) -> Result<ScalarType, Fault> {
        self.f.values[v]
            .ty
            .scalar()
            .ok_or_else(|| self.sg_fault(sg, format!("expected a scalar, found {}", self.f.values[v].ty), inst))
    }

    /// Faults unless every value of `vals` has type `ty` (what the verifier checks; kept so that
    /// unverified MIR gives an error rather than garbage).
    fn expect(&self, sg: &Subgroup, inst: Inst, vals: &[Value], ty: Type) -> Result<(), Fault> {
        match vals.iter().find(|&&v| self.f.values[v].ty != ty) {
            None => Ok(()),
            Some(&v) => {
                let msg = format!("type mismatch: expected {ty}, found {}", self.f.values[v].ty);
                Err(self.sg_fault(sg, msg, inst))
            }
        }
    }

    /// Faults unless `dst` and `src` have the same length and pairwise types.
    fn expect_types(&self, sg: &Subgroup, inst: Inst, dst: &[Value], src: &[Value], what: &str) -> Result<(), Fault> {
        let ty = |v: &Value| self.f.values[*v].ty;
        if dst.len() != src.len() || !dst.iter().map(ty).eq(src.iter().map(ty)) {
            let list = |vs: &[Value]| vs.iter().map(|v| ty(v).to_string()).collect::<Vec<_>>().join(", ");
            let msg = format!("{what}: ({}) given for ({})", list(src), list(dst));
            return Err(self.sg_fault(sg, msg, inst));
        }
        Ok(())
    }

    fn pointer(&self, sg: &Subgroup, v: Value, inst: Inst) -> Result<(AddrSpace, ScalarType), Fault> {
        self.f.values[v]
            .ty
            .pointer()
            .ok_or_else(|| self.sg_fault(sg, format!("expected a pointer, found {}", self.f.values[v].ty), inst))
    }

    /// Copies `src` values into `dst` values for the lanes of `mask` (all sources read first).
    fn copy_lanes(&mut self, sg: &mut Subgroup, dst: &[Value], src: &[Value], mask: u64) {
        let w = self.w;
        for l in Lanes(mask) {
            self.scratch.clear();
            self.scratch.extend(src.iter().map(|s| sg.regs[s.index() * w + l]));
            for (d, &v) in dst.iter().zip(&self.scratch) {
                sg.regs[d.index() * w + l] = v;
            }
        }
    }

    /// Writes a per-lane function of the lane index to `r` for the lanes of `mask`.
    fn set_lanes(&self, sg: &mut Subgroup, r: Value, mask: u64, mut val: impl FnMut(usize) -> u64) {
        let base = r.index() * self.w;
        for l in Lanes(mask) {
            sg.regs[base + l] = val(l);
        }
    }

    /// Executes one instruction for the lanes of `mask`.
    fn exec(&mut self, sg: &mut Subgroup, inst: Inst, mask: u64) -> Result<Step, Fault> {
        use Opcode as O;
        let f = self.f;
        let w = self.w;
        let data = &f.insts[inst];
        let args = f.args(inst);
        let results = f.inst_results(inst);
        let op = data.opcode;
        let arity = || self.arity(sg, inst);
        match op.class() {
            OpClass::Const => {
                let (Imm::Const(bits), &[r]) = (data.imm, results) else { return Err(arity()) };
                let v = eval::canon(self.scalar(sg, r, inst)?, bits);
                self.set_lanes(sg, r, mask, |_| v);
            }
            OpClass::Binary(bop) => {
                let (&[a, b], &[r]) = (args, results) else { return Err(arity()) };
                let ty = self.scalar(sg, r, inst)?;
                self.expect(sg, inst, args, ty.into())?;
                let (ai, bi, ri) = (a.index() * w, b.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match eval::eval_binop(bop, ty, sg.regs[ai + l], sg.regs[bi + l]) {
                        Ok(v) => sg.regs[ri + l] = v,
                        Err(e) => return Err(self.eval_fault(sg, e, inst, l)),
                    }
                }
            }
            OpClass::Unary(uop) => {
                let (&[a], &[r]) = (args, results) else { return Err(arity()) };
                let ty = self.scalar(sg, r, inst)?;
                self.expect(sg, inst, args, ty.into())?;
                let (ai, ri) = (a.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match eval::eval_unop(uop, ty, sg.regs[ai + l]) {
                        Ok(v) => sg.regs[ri + l] = v,
                        Err(e) => return Err(self.eval_fault(sg, e, inst, l)),
                    }
                }
            }
            OpClass::Fma => {
                let (&[a, b, c], &[r]) = (args, results) else { return Err(arity()) };
                let ty = self.scalar(sg, r, inst)?;
                self.expect(sg, inst, args, ty.into())?;
                let (ai, bi, ci, ri) = (a.index() * w, b.index() * w, c.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match eval::fma(ty, sg.regs[ai + l], sg.regs[bi + l], sg.regs[ci + l]) {
                        Ok(v) => sg.regs[ri + l] = v,
                        Err(e) => return Err(self.eval_fault(sg, e, inst, l)),
                    }
                }
            }
            OpClass::Select => {
                let (&[c, a, b], &[r]) = (args, results) else { return Err(arity()) };
                self.expect(sg, inst, &[c], Type::BOOL)?;
                self.expect(sg, inst, &[a, b], f.values[r].ty)?;
                let (ci, ai, bi, ri) = (c.index() * w, a.index() * w, b.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    sg.regs[ri + l] = if sg.regs[ci + l] != 0 { sg.regs[ai + l] } else { sg.regs[bi + l] };
                }
            }
            OpClass::Cmp => {
                let (Imm::Cond(cond), &[a, b], &[r]) = (data.imm, args, results) else { return Err(arity()) };
                let ty = self.scalar(sg, a, inst)?;
                self.expect(sg, inst, &[b], ty.into())?;
                self.expect(sg, inst, &[r], Type::BOOL)?;
                let (ai, bi, ri) = (a.index() * w, b.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    sg.regs[ri + l] = u64::from(eval::compare(cond, ty, sg.regs[ai + l], sg.regs[bi + l]));
                }
            }
            OpClass::Cast => {
                let (&[a], &[r]) = (args, results) else { return Err(arity()) };
                let (from, to) = (self.scalar(sg, a, inst)?, self.scalar(sg, r, inst)?);
                let (ai, ri) = (a.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    sg.regs[ri + l] = eval::cast(from, to, sg.regs[ai + l]);
                }
            }
            OpClass::Bitcast => {
                let (&[a], &[r]) = (args, results) else { return Err(arity()) };
                let (from, to) = (self.scalar(sg, a, inst)?, self.scalar(sg, r, inst)?);
                if from.bits() != to.bits() {
                    return Err(self.sg_fault(sg, format!("bitcast from {from} to {to} changes the width"), inst));
                }
                let (ai, ri) = (a.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    sg.regs[ri + l] = eval::canon(to, sg.regs[ai + l]);
                }
            }
            OpClass::Memory(MemoryOp::SharedAddr) => {
                let (Imm::Shared(s), &[r]) = (data.imm, results) else { return Err(arity()) };
                let elem = f.shared.get(s).map_or(ScalarType::U32, |d| d.elem);
                self.expect(sg, inst, &[r], Type::Ptr(AddrSpace::Shared, elem))?;
                let v = memory::encode(AddrSpace::Shared, s.as_u32(), 0);
                self.set_lanes(sg, r, mask, |_| v);
            }
            OpClass::Memory(MemoryOp::PtrOffset) => {
                let (&[p, i], &[r]) = (args, results) else { return Err(arity()) };
                let (_, elem) = self.pointer(sg, p, inst)?;
                self.expect(sg, inst, &[r], f.values[p].ty)?;
                let ity = self.scalar(sg, i, inst)?;
                if !ity.is_int() {
                    return Err(self.sg_fault(sg, format!("ptr.offset index must be an integer, found {ity}"), inst));
                }
                let (pi, ii, ri) = (p.index() * w, i.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    let raw = sg.regs[ii + l];
                    let idx = if ity.is_signed() { i128::from(eval::as_i64(ity, raw)) } else { i128::from(raw) };
                    sg.regs[ri + l] = memory::offset(sg.regs[pi + l], idx, elem.bytes());
                }
            }
            OpClass::Memory(MemoryOp::Load) => {
                let (&[p], &[r]) = (args, results) else { return Err(arity()) };
                let (_, elem) = self.pointer(sg, p, inst)?;
                self.expect(sg, inst, &[r], elem.into())?;
                let (pi, ri) = (p.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match self.mem.load(sg.regs[pi + l], elem) {
                        Ok(v) => sg.regs[ri + l] = v,
                        Err(m) => return Err(self.lane_fault(sg, m, inst, l)),
                    }
                }
            }
            OpClass::Memory(MemoryOp::Store) => {
                let &[p, v] = args else { return Err(arity()) };
                let (_, elem) = self.pointer(sg, p, inst)?;
                self.expect(sg, inst, &[v], elem.into())?;
                let (pi, vi) = (p.index() * w, v.index() * w);
                for l in Lanes(mask) {
                    if let Err(m) = self.mem.store(sg.regs[pi + l], elem, sg.regs[vi + l]) {
                        return Err(self.lane_fault(sg, m, inst, l));
                    }
                }
            }
            OpClass::Memory(MemoryOp::AtomicRmw) => {
                let (Imm::Atomic(aop, _), &[p, v], &[r]) = (data.imm, args, results) else { return Err(arity()) };
                let (_, elem) = self.pointer(sg, p, inst)?;
                self.expect(sg, inst, &[v, r], elem.into())?;
                let (pi, vi, ri) = (p.index() * w, v.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match self.mem.rmw(sg.regs[pi + l], elem, aop, sg.regs[vi + l]) {
                        Ok(old) => sg.regs[ri + l] = old,
                        Err(m) => return Err(self.lane_fault(sg, m, inst, l)),
                    }
                }
            }
            OpClass::Memory(MemoryOp::AtomicCas) => {
                let (&[p, e, n], &[r]) = (args, results) else { return Err(arity()) };
                let (_, elem) = self.pointer(sg, p, inst)?;
                self.expect(sg, inst, &[e, n, r], elem.into())?;
                let (pi, ei, ni, ri) = (p.index() * w, e.index() * w, n.index() * w, r.index() * w);
                for l in Lanes(mask) {
                    match self.mem.cas(sg.regs[pi + l], elem, sg.regs[ei + l], sg.regs[ni + l]) {
                        Ok(old) => sg.regs[ri + l] = old,
                        Err(m) => return Err(self.lane_fault(sg, m, inst, l)),
                    }
                }
            }
            OpClass::Index(IndexOp::ThreadId) => {
                let (Imm::Dim(d), &[r]) = (data.imm, results) else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::U32)?;
                let [bx, by, _] = self.l.block;
                let first = sg.first_thread;
                self.set_lanes(sg, r, mask, |l| {
                    let lin = first + l as u32;
                    u64::from(match d {
                        Dim::X => lin % bx,
                        Dim::Y => lin / bx % by,
                        Dim::Z => lin / (bx * by),
                    })
                });
            }
            OpClass::Index(IndexOp::BlockId) => self.uniform_dim(sg, inst, self.block_id, mask)?,
            OpClass::Index(IndexOp::BlockDim) => self.uniform_dim(sg, inst, self.l.block, mask)?,
            OpClass::Index(IndexOp::GridDim) => self.uniform_dim(sg, inst, self.l.grid, mask)?,
            OpClass::Index(IndexOp::LaneId) => {
                let &[r] = results else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::U32)?;
                self.set_lanes(sg, r, mask, |l| l as u64);
            }
            OpClass::Index(IndexOp::SubgroupId) => {
                let &[r] = results else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::U32)?;
                let v = u64::from(sg.index);
                self.set_lanes(sg, r, mask, |_| v);
            }
            OpClass::Index(IndexOp::SubgroupSize) => {
                let &[r] = results else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::U32)?;
                self.set_lanes(sg, r, mask, |_| w as u64);
            }
            OpClass::Exchange(ExchangeOp::Shuffle(k)) => self.shuffle(sg, inst, ShuffleKind::of(k), mask)?,
            OpClass::Exchange(ExchangeOp::Broadcast) => self.shuffle(sg, inst, ShuffleKind::Broadcast, mask)?,
            OpClass::Exchange(ExchangeOp::Ballot) | OpClass::Exchange(ExchangeOp::BallotFirstN) => {
                let (&[p], &[r]) = (args, results) else { return Err(arity()) };
                self.expect(sg, inst, &[p], Type::BOOL)?;
                self.expect(sg, inst, &[r], if op == O::Ballot { Type::U64 } else { Type::U32 })?;
                let pi = p.index() * w;
                let mut b = simt::ballot(&sg.regs[pi..pi + w], mask, w as u32);
                if op == O::BallotFirstN {
                    let Imm::Count(n @ 1..=32) = data.imm else { return Err(arity()) };
                    b &= (1u64 << n) - 1;
                }
                self.set_lanes(sg, r, mask, |_| b);
            }
            OpClass::Exchange(ExchangeOp::MatchAny) | OpClass::Exchange(ExchangeOp::MatchAll) => {
                let (&[v], &[r]) = (args, results) else { return Err(arity()) };
                let ty = self.scalar(sg, v, inst)?;
                self.expect(sg, inst, &[r], Type::U64)?;
                let vals = &sg.regs[v.index() * w..v.index() * w + w];
                if op == O::MatchAny {
                    let out = simt::match_any(ty, vals, mask, w as u32);
                    self.write_out(sg, r, mask, &out);
                } else {
                    let m = simt::match_all(ty, vals, mask, w as u32);
                    self.set_lanes(sg, r, mask, |_| m);
                }
            }
            OpClass::Exchange(ExchangeOp::ActiveMask) => {
                let &[r] = results else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::U64)?;
                let m = simt::active_mask(mask, w as u32);
                self.set_lanes(sg, r, mask, |_| m);
            }
            OpClass::Index(IndexOp::LaneMask(m)) => self.lane_mask(sg, inst, m, mask)?,
            OpClass::Exchange(ExchangeOp::Elect) => {
                let &[r] = results else { return Err(arity()) };
                self.expect(sg, inst, &[r], Type::BOOL)?;
                let out = simt::elect(mask, w as u32);
                self.write_out(sg, r, mask, &out);
            }
            OpClass::Collective(Collective::VoteAll) => self.vote(sg, inst, VoteKind::All, mask)?,
            OpClass::Collective(Collective::VoteAny) => self.vote(sg, inst, VoteKind::Any, mask)?,
            OpClass::Collective(Collective::VoteEq) => self.vote(sg, inst, VoteKind::Eq, mask)?,
            OpClass::Collective(Collective::Reduce) | OpClass::Collective(Collective::Scan) => {
                let (Imm::Group { op: gop, tile, inclusive }, &[v], &[r]) = (data.imm, args, results) else {
                    return Err(arity());
                };
                let ty = self.scalar(sg, r, inst)?;
                self.expect(sg, inst, &[v], ty.into())?;
                let vals = &sg.regs[v.index() * w..v.index() * w + w];
                let out = if op == O::SubgroupReduce {
                    simt::reduce(gop, ty, vals, mask, w as u32, tile)
                } else {
                    simt::scan(gop, ty, inclusive, vals, mask, w as u32, tile)
                };
                let out = out.map_err(|_| self.sg_fault(sg, format!("`{op}` is not defined on {ty}"), inst))?;
                self.write_out(sg, r, mask, &out);
            }
            OpClass::Collective(Collective::SegReduce) => {
                let (Imm::Group { op: gop, tile, .. }, &[v, h], &[r]) = (data.imm, args, results) else {
                    return Err(arity());
                };
                let ty = self.scalar(sg, r, inst)?;
                self.expect(sg, inst, &[v], ty.into())?;
                if f.values[h].ty.is_float() || f.values[h].ty.is_ptr() {
                    return Err(self.sg_fault(sg, "segment heads must be bool or integer".into(), inst));
                }
                let (vi, hi) = (v.index() * w, h.index() * w);
                let out = simt::segreduce(gop, ty, &sg.regs[vi..vi + w], &sg.regs[hi..hi + w], mask, w as u32, tile)
                    .map_err(|_| self.sg_fault(sg, format!("`{op}` is not defined on {ty}"), inst))?;
                self.write_out(sg, r, mask, &out);
            }
            // The subgroup always executes in lock-step and memory is sequentially consistent.
            OpClass::Sync(SyncOp::SubgroupSync) | OpClass::Sync(SyncOp::Fence) => {}
            // A scheduling hint only: no value or memory changes.
            OpClass::Sync(SyncOp::Nanosleep) => {
                self.expect(sg, inst, args, Type::U32)?;
                let &[_] = args else { return Err(arity()) };
            }
            OpClass::Sync(SyncOp::BlockSync) | OpClass::Sync(SyncOp::BlockSyncPred) => {
                if mask != sg.live {
                    let msg =
                        format!("barrier reached under divergence (active lanes {mask:#x}, live lanes {:#x})", sg.live);
                    return Err(self.sg_fault(sg, msg, inst));
                }
                if op == O::BlockSyncPred {
                    let (&[p], &[r], Imm::Pred(pop)) = (args, results, data.imm) else { return Err(arity()) };
                    self.expect(sg, inst, &[p], Type::BOOL)?;
                    self.expect(sg, inst, &[r], if pop == PredOp::Count { Type::U32 } else { Type::BOOL })?;
                }
                sg.state = State::Waiting(inst);
                return Ok(Step::Wait);
            }
            OpClass::If => {
                let &[c] = args else { return Err(arity()) };
                self.expect(sg, inst, args, Type::BOOL)?;
                let Some(then) = data.regions[0].expand() else { return Err(arity()) };
                let ci = c.index() * w;
                let mut tm = 0u64;
                for l in Lanes(mask) {
                    tm |= u64::from(sg.regs[ci + l] != 0) << l;
                }
                let kind = Kind::Then { inst, else_mask: mask & !tm, yielded: 0 };
                sg.frames.push(Frame { region: then, pc: 0, mask: tm, kind });
            }
            OpClass::Loop => {
                let Some(body) = data.regions[0].expand() else { return Err(arity()) };
                self.expect_types(sg, inst, f.region_params(body), args, "loop initial values")?;
                self.copy_lanes(sg, f.region_params(body), args, mask);
                sg.frames.push(Frame { region: body, pc: 0, mask, kind: Kind::Loop { inst, brk: 0, cont: 0 } });
            }
            OpClass::Terminator(Terminator::Yield) => {
                let Some(top) = sg.frames.last() else { return Err(arity()) };
                let owner = match top.kind {
                    Kind::Then { inst, .. } => inst,
                    Kind::Else { inst, .. } => inst,
                    Kind::Body | Kind::Loop { .. } => {
                        return Err(self.sg_fault(sg, "`yield` outside an `if` arm".into(), inst));
                    }
                };
                let dst = f.inst_results(owner);
                self.expect_types(sg, inst, dst, args, "`yield` values do not match the `if` results")?;
                self.copy_lanes(sg, dst, args, mask);
                if let Some(top) = sg.frames.last_mut() {
                    match &mut top.kind {
                        Kind::Then { yielded, .. } | Kind::Else { yielded, .. } => *yielded |= mask,
                        Kind::Body | Kind::Loop { .. } => {}
                    }
                    top.mask = 0;
                }
            }
            OpClass::Terminator(Terminator::Break) | OpClass::Terminator(Terminator::Continue) => {
                let Some(li) = sg.frames.iter().rposition(|fr| matches!(fr.kind, Kind::Loop { .. })) else {
                    return Err(self.sg_fault(sg, format!("`{op}` outside a loop"), inst));
                };
                let (lregion, Kind::Loop { inst: linst, .. }) = (sg.frames[li].region, sg.frames[li].kind) else {
                    return Err(arity());
                };
                let dst = if op == O::Break { f.inst_results(linst) } else { f.region_params(lregion) };
                let what = if op == O::Break { "loop results" } else { "carried values" };
                self.expect_types(sg, inst, dst, args, &format!("`{op}` values do not match the {what}"))?;
                self.copy_lanes(sg, dst, args, mask);
                if let Kind::Loop { brk, cont, .. } = &mut sg.frames[li].kind {
                    if op == O::Break {
                        *brk |= mask;
                    } else {
                        *cont |= mask;
                    }
                }
                if let Some(top) = sg.frames.last_mut() {
                    top.mask = 0;
                }
            }
            OpClass::Terminator(Terminator::Return) => {
                sg.live &= !mask;
                if let Some(top) = sg.frames.last_mut() {
                    top.mask = 0;
                }
            }
        }
        Ok(Step::Next)
    }

    fn arity(&self, sg: &Subgroup, inst: Inst) -> Fault {
        let op = self.f.insts[inst].opcode;
        self.sg_fault(sg, format!("malformed `{op}` (operands, results or immediate)"), inst)
    }

    fn lane_mask(&self, sg: &mut Subgroup, inst: Inst, kind: LaneMask, mask: u64) -> Result<(), Fault> {
        let &[r] = self.f.inst_results(inst) else { return Err(self.arity(sg, inst)) };
        self.expect(sg, inst, &[r], Type::U64)?;
        let w = self.w as u32;
        self.set_lanes(sg, r, mask, |l| simt::lane_mask(kind, l as u32, w));
        Ok(())
    }

    fn uniform_dim(&self, sg: &mut Subgroup, inst: Inst, src: [u32; 3], mask: u64) -> Result<(), Fault> {
        let (Imm::Dim(d), &[r]) = (self.f.insts[inst].imm, self.f.inst_results(inst)) else {
            return Err(self.arity(sg, inst));
        };
        self.expect(sg, inst, &[r], Type::U32)?;
        let v = u64::from(src[d.index()]);
        self.set_lanes(sg, r, mask, |_| v);
        Ok(())
    }

    fn shuffle(&self, sg: &mut Subgroup, inst: Inst, kind: ShuffleKind, mask: u64) -> Result<(), Fault> {
        let (&[v, s], &[r]) = (self.f.args(inst), self.f.inst_results(inst)) else {
            return Err(self.arity(sg, inst));
        };
        self.expect(sg, inst, &[r], self.f.values[v].ty)?;
        if !self.f.values[s].ty.is_int() {
            return Err(self.sg_fault(
                sg,
                format!("lane operand must be an integer, found {}", self.f.values[s].ty),
                inst,
            ));
        }
        let w = self.w;
        let (vi, si) = (v.index() * w, s.index() * w);
        let out = simt::shuffle(kind, &sg.regs[vi..vi + w], &sg.regs[si..si + w], mask, w as u32);
        self.write_out(sg, r, mask, &out);
        Ok(())
    }

    fn vote(&self, sg: &mut Subgroup, inst: Inst, kind: VoteKind, mask: u64) -> Result<(), Fault> {
        let (Imm::Tile(tile), &[v], &[r]) = (self.f.insts[inst].imm, self.f.args(inst), self.f.inst_results(inst))
        else {
            return Err(self.arity(sg, inst));
        };
        let ty = match kind {
            VoteKind::Eq => self.scalar(sg, v, inst)?,
            VoteKind::All | VoteKind::Any => {
                self.expect(sg, inst, &[v], Type::BOOL)?;
                ScalarType::Bool
            }
        };
        self.expect(sg, inst, &[r], Type::BOOL)?;
        let w = self.w;
        let vi = v.index() * w;
        let out = simt::vote(kind, ty, &sg.regs[vi..vi + w], mask, w as u32, tile);
        self.write_out(sg, r, mask, &out);
        Ok(())
    }

    fn write_out(&self, sg: &mut Subgroup, r: Value, mask: u64, out: &[u64]) {
        let base = r.index() * self.w;
        for l in Lanes(mask) {
            if let Some(&v) = out.get(l) {
                sg.regs[base + l] = v;
            }
        }
    }
}

/// Lanes that skip an `if` with no else region count as having yielded (such an `if` has no
/// results: the pre-check rejects one that has).
fn else_mask_without_region(f: &Function, inst: Inst, else_mask: u64) -> u64 {
    if f.insts[inst].regions[1].is_none() {
        else_mask
    } else {
        0
    }
}

/// The register bits a scalar argument or a buffer parameter starts with.
pub(crate) fn param_bits(ty: Type, index: usize, scalar: Option<u64>) -> u64 {
    match (ty, scalar) {
        (Type::Ptr(space, _), _) => memory::encode(space, index as u32, 0),
        (Type::Scalar(s), Some(bits)) => eval::canon(s, bits),
        (Type::Scalar(_), None) => 0,
    }
}
