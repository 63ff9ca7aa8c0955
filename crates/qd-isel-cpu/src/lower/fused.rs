//! Fused lane loops: a run of lane-local instructions — and of `if`s whose arms hold only such
//! instructions — compiled as one loop over the active lanes in ascending order, each value a
//! scalar in a register.
//!
//! Lane-serial execution of such a run is lock-step execution: nothing in it writes memory or
//! talks across lanes, so no lane can see another's work. An `if` inside a run becomes a real
//! branch per lane (each lane runs the arm its condition picks, exactly the lanes lock-step
//! execution would run it with), its results a join of the two arms' yields. A lane that faults
//! stops; the fault kept is that of the earliest instruction in program order (then arm before else
//! arm), then of the lowest lane — the one lock-step execution meets first.

use super::{cl_type, Home, Lower, OnFault};
use cranelift_codegen::ir::{self, types, BlockArg, InstBuilder};
use cranelift_frontend::Variable;
use qd_mir::ops::{MemoryOp, OpClass, Terminator};
use qd_mir::{CompileError, Inst, Region, Type, Value};
use std::collections::{HashMap, HashSet};

/// What one lane loop emits with.
struct LaneLoop<'r> {
    lane: ir::Value,
    next: ir::Block,
    pending: Variable,
    in_run: &'r HashSet<Inst>,
    env: HashMap<Value, ir::Value>,
    key: u32,
}

impl Lower<'_, '_> {
    /// Whether the op computes its results lane by lane from its operands and memory reads.
    fn lane_class(&self, inst: Inst) -> bool {
        match self.f.insts[inst].opcode.class() {
            OpClass::Const
            | OpClass::Binary(_)
            | OpClass::Unary(_)
            | OpClass::Fma
            | OpClass::Select
            | OpClass::Cmp
            | OpClass::Cast
            | OpClass::Bitcast
            | OpClass::Index(_) => true,
            OpClass::Memory(m) => match m {
                MemoryOp::SharedAddr | MemoryOp::PtrOffset | MemoryOp::Load => true,
                MemoryOp::Store | MemoryOp::AtomicRmw | MemoryOp::AtomicCas => false,
            },
            OpClass::Exchange(_)
            | OpClass::Collective(_)
            | OpClass::Sync(_)
            | OpClass::If
            | OpClass::Loop
            | OpClass::Terminator(_) => false,
        }
    }

    /// Whether the instruction belongs in a fused lane loop at the top of a run: a lane-local op
    /// with a varying result, or an `if` whose arms are fusable.
    pub(super) fn is_lane_local(&self, inst: Inst) -> bool {
        if self.f.insts[inst].opcode.class() == OpClass::If {
            // At width 1 every `if` is a real branch: there is one lane.
            return self.w > 1 && self.is_fusable_if(inst);
        }
        let res = self.f.inst_results(inst);
        if res.is_empty() || res.iter().all(|&v| self.is_uniform(v)) {
            return false;
        }
        self.lane_class(inst)
    }

    /// An `if` whose arms hold only lane-local ops (any uniformity) and fusable `if`s, each arm
    /// ending in `yield`.
    fn is_fusable_if(&self, inst: Inst) -> bool {
        self.f.insts[inst].regions.iter().filter_map(|r| r.expand()).all(|r| self.is_fusable_arm(r))
    }

    fn is_fusable_arm(&self, r: Region) -> bool {
        let insts = &self.f.regions[r].insts;
        let Some((&last, body)) = insts.split_last() else { return false };
        self.f.insts[last].opcode.terminator() == Some(Terminator::Yield)
            && body.iter().all(|&i| {
                if self.f.insts[i].opcode.class() == OpClass::If {
                    self.is_fusable_if(i)
                } else {
                    self.lane_class(i)
                }
            })
    }

    /// Whether a uniform instruction may be computed ahead of the fused loop it sits in: pure and
    /// unable to fault.
    pub(super) fn is_hoistable(&self, inst: Inst) -> bool {
        let res = self.f.inst_results(inst);
        if res.is_empty() || !res.iter().all(|&v| self.is_uniform(v)) {
            return false;
        }
        let op = self.f.insts[inst].opcode;
        if !op.info().pure {
            return false;
        }
        // Integer division and remainder fault on a zero divisor.
        let divides = matches!(op.as_binop(), Some(qd_mir::ops::BinOp::Div | qd_mir::ops::BinOp::Rem));
        !divides || res.first().is_some_and(|&v| self.ty(v).is_float())
    }

    /// Adds `inst` and everything nested in it to `set`.
    fn collect(&self, inst: Inst, set: &mut HashSet<Inst>) {
        set.insert(inst);
        for r in self.f.insts[inst].regions.iter().filter_map(|r| r.expand()) {
            for &i in &self.f.regions[r].insts {
                self.collect(i, set);
            }
        }
    }

    /// Emits a fused lane loop over the active lanes for `run`.
    pub(super) fn run(&mut self, run: &[Inst]) -> Result<(), CompileError> {
        let mut in_run = HashSet::new();
        for &i in run {
            self.collect(i, &mut in_run);
        }
        let m = self.b.use_var(self.mask);
        let rem = self.b.declare_var(types::I64);
        let pending = self.b.declare_var(types::I8);
        self.b.def_var(rem, m);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(pending, zero8);
        // Bools used after the run: their true lanes, gathered as the lanes run.
        for &inst in run {
            for &v in self.f.inst_results(inst) {
                let outside = self.users[v].iter().any(|u| !in_run.contains(u));
                if outside && self.ty(v) == Type::BOOL && matches!(self.home(v)?, Home::Lanes(_)) {
                    let var = self.b.declare_var(types::I64);
                    let z = self.b.ins().iconst(types::I64, 0);
                    self.b.def_var(var, z);
                    self.cond_bits.insert(v, var);
                }
            }
        }
        let (head, next, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let r = self.b.use_var(rem);
        let lane = self.b.ins().ctz(r);
        self.enter_lane(lane);
        let mut ll = LaneLoop { lane, next, pending, in_run: &in_run, env: HashMap::new(), key: 0 };
        for &inst in run {
            self.lane_inst(inst, &mut ll)?;
        }
        self.lane_addr = None;
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        let r = self.b.use_var(rem);
        let r1 = self.b.ins().iadd_imm_s(r, -1);
        let r2 = self.b.ins().band(r, r1);
        self.b.def_var(rem, r2);
        self.b.ins().brif(r2, head, &[], exit, &[]);
        self.b.switch_to_block(exit);
        let p = self.b.use_var(pending);
        let go = self.b.create_block();
        self.b.ins().brif(p, self.ret_fault, &[], go, &[]);
        self.b.switch_to_block(go);
        Ok(())
    }

    /// An operand's value in the current lane.
    fn lane_operand(&mut self, a: Value, ll: &LaneLoop<'_>) -> Result<ir::Value, CompileError> {
        match ll.env.get(&a) {
            Some(&x) => Ok(x),
            None => self.lane_value(a, ll.lane),
        }
    }

    /// One instruction of a fused loop for the current lane.
    fn lane_inst(&mut self, inst: Inst, ll: &mut LaneLoop<'_>) -> Result<(), CompileError> {
        let outs = if self.f.insts[inst].opcode.class() == OpClass::If {
            self.lane_if(inst, ll)?
        } else {
            let mut args = Vec::new();
            for &a in self.f.args(inst) {
                args.push(self.lane_operand(a, ll)?);
            }
            let on_fault = OnFault::Lane { key: ll.key, next: ll.next, pending: ll.pending };
            ll.key += 1;
            self.scalar_inst(inst, &args, ll.lane, on_fault)?
        };
        for (&v, &x) in self.f.inst_results(inst).iter().zip(&outs) {
            ll.env.insert(v, x);
            let outside = self.users[v].iter().any(|u| !ll.in_run.contains(u));
            if !outside {
                continue;
            }
            match self.home(v)? {
                Home::Lanes(slot) => {
                    let bits = self.bits_of(self.ty(v), x);
                    self.store_lane(slot, ll.lane, bits);
                    if let Some(&var) = self.cond_bits.get(&v) {
                        let bit = self.b.ins().ishl(bits, ll.lane);
                        let acc = self.b.use_var(var);
                        let acc = self.b.ins().bor(acc, bit);
                        self.b.def_var(var, acc);
                    }
                }
                Home::Uniform(var) => self.b.def_var(var, x),
            }
        }
        Ok(())
    }

    /// A fused `if`: the current lane runs the arm its condition picks; the results join.
    fn lane_if(&mut self, inst: Inst, ll: &mut LaneLoop<'_>) -> Result<Vec<ir::Value>, CompileError> {
        let f = self.f;
        let (Some(&c), Some(then)) = (f.args(inst).first(), f.insts[inst].regions[0].expand()) else {
            return Err(CompileError::internal(super::TARGET, "malformed `if`").at(inst));
        };
        let els = f.insts[inst].regions[1].expand();
        let cond = self.lane_operand(c, ll)?;
        let (then_b, else_b, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let params: Vec<ir::Value> =
            f.inst_results(inst).iter().map(|&v| self.b.append_block_param(join, cl_type(self.ty(v)))).collect();
        self.b.ins().brif(cond, then_b, &[], else_b, &[]);
        for (arm, block) in [(Some(then), then_b), (els, else_b)] {
            self.b.switch_to_block(block);
            let Some(arm) = arm else {
                self.b.ins().jump(join, &[]);
                continue;
            };
            let insts: Vec<Inst> = f.regions[arm].insts.clone();
            let Some((&last, body)) = insts.split_last() else {
                return Err(CompileError::internal(super::TARGET, "an empty `if` arm").at(inst));
            };
            for &i in body {
                self.lane_inst(i, ll)?;
            }
            let mut vals = Vec::new();
            for &a in f.args(last) {
                vals.push(BlockArg::Value(self.lane_operand(a, ll)?));
            }
            self.b.ins().jump(join, &vals);
        }
        self.b.switch_to_block(join);
        Ok(params)
    }
}
