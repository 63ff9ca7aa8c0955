//! MIR → Cranelift IR for one subgroup: the structured control flow with execution masks, fused
//! lane loops for the lane-local instructions, and calls to the host for the rest.
//!
//! # The scheme (see `docs/cpu.md`)
//!
//! The function runs one subgroup of `W` lanes in lock-step, exactly as the interpreter does:
//!
//! - **Values.** A value the uniformity analysis proves uniform (kernel parameters count as
//!   uniform: every thread sees the same argument) is one Cranelift variable, computed once. Every
//!   other value has a lane array of `W` canonical `u64`s in the subgroup's register file.
//! - **Fused lane loops.** A maximal run of consecutive lane-local instructions (arithmetic,
//!   compares, casts, `ptr.offset`, loads, lane indices) becomes one loop over the active lanes in
//!   ascending order; inside it each value is a scalar in a machine register, and only values used
//!   after the run are written to their lane arrays. Running the lanes one after another is
//!   lock-step execution for such a run: it writes no memory, so no lane can observe another. A
//!   fault (an access out of bounds, a division by zero) stops its lane; the fault reported is the
//!   one of the earliest instruction, then the lowest lane — the one lock-step execution meets.
//! - **Masks.** `if` runs its then arm with `mask ∧ c` and its else arm with `mask ∧ ¬c`, each
//!   skipped when empty; a loop reruns its body with the lanes that `continue`d until none is
//!   left. Terminators copy their values for their active lanes only and update the masks, as in
//!   the interpreter; a uniform condition costs one select and a real branch.
//! - **The rest** (stores and atomics, lane by lane in ascending order; exchanges, votes,
//!   reductions and scans through the interpreter's own lane functions; block barriers) is emitted
//!   in place, with its operands in lane arrays.

mod branches;
mod fused;
mod lanes;
mod memory;
mod provenance;
mod scalar;

use crate::abi::{off, STATUS_ABORT, STATUS_DONE, STATUS_FAULT};
use crate::helpers;
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Signature, Type as ClType,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_entity::{EntityRef, SecondaryMap};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use qd_mir::analysis::Uniformity;
use qd_mir::ops::{IndexOp, MemoryOp, OpClass, SyncOp, Terminator};
use qd_mir::{CompileError, Function, Inst, Region, ScalarType, Type, Value};
use std::collections::HashMap;

/// The target name in compile errors.
pub(crate) const TARGET: &str = "cpu";

/// Where a MIR value lives.
#[derive(Copy, Clone, Debug)]
enum Home {
    /// Uniform: one Cranelift variable.
    Uniform(Variable),
    /// Varying: lane array `slot` of the register file.
    Lanes(u32),
}

/// How a fault met by an instruction is handled.
#[derive(Copy, Clone, Debug)]
pub(crate) enum OnFault {
    /// Outside a fused loop: record and return from the kernel.
    Return,
    /// In a fused lane loop: record with `key`, flag `pending` and go on with the next lane.
    Lane { key: u32, next: Block, pending: Variable },
}

/// How a region goes on after an instruction emitted on its own.
#[derive(Copy, Clone, Debug)]
enum Flow {
    /// With the same mask.
    Next,
    /// With a mask that nested `break`/`continue`/`return` may have emptied (after `if`, `loop`).
    MaskMayShrink,
    /// Not at all: a terminator ended it.
    Ended,
}

/// Signatures of the host helpers.
struct Sigs {
    fault: ir::SigRef,
    exchange: ir::SigRef,
    barrier: ir::SigRef,
    refill: ir::SigRef,
    fma: ir::SigRef,
    float_binop: ir::SigRef,
}

struct IfFrame {
    inst: Inst,
    yielded: Variable,
    /// Width 1: the block after the `if` (`yield` jumps there).
    join: Option<Block>,
}

struct LoopFrame {
    inst: Inst,
    body: Region,
    brk: Variable,
    cont: Variable,
    /// Width 1: the loop header (`continue`) and the block after the loop (`break`).
    edges: Option<(Block, Block)>,
}

/// The lowered function and the register file it needs.
pub(crate) struct Lowered {
    /// Lane-array slots (values and scratch) per subgroup.
    pub slots: u32,
}

/// The translator of one kernel.
pub(crate) struct Lower<'a, 'b> {
    f: &'a Function,
    uni: &'a Uniformity,
    w: u32,
    b: FunctionBuilder<'b>,
    ctx: ir::Value,
    regs: ir::Value,
    mem: ir::Value,
    geo: Geometry,
    home: SecondaryMap<Value, Option<Home>>,
    /// Instructions using each value (arguments only; regions' uses are their instructions').
    users: SecondaryMap<Value, Vec<Inst>>,
    mask: Variable,
    live: Variable,
    budget: Variable,
    ifs: Vec<IfFrame>,
    loops: Vec<LoopFrame>,
    ret_fault: Block,
    ret_abort: Block,
    /// Width 1: where `return` jumps (the subgroup is done).
    ret_done: Block,
    sigs: Sigs,
    scratch: [u32; 2],
    slots: u32,
    /// For a `bool` computed in a fused loop: the mask of its true lanes, gathered in the loop,
    /// so that an `if` or a ballot on it reads no lane array.
    cond_bits: HashMap<Value, Variable>,
    /// In a loop over lanes: the lane and `regs + 8 · lane`, computed once per iteration.
    lane_addr: Option<(ir::Value, ir::Value)>,
    /// The pointers whose buffer is known (`provenance`).
    prov: SecondaryMap<Value, Option<provenance::Prov>>,
    /// Memory-table entries of the known pointers: slot → (base, length), loaded at entry.
    entries: HashMap<u32, (ir::Value, ir::Value)>,
    /// Pointer bits made by `known_ptr_offset` → their byte offset.
    known_offsets: HashMap<ir::Value, ir::Value>,
    /// The last `ctz` of the mask: its block, the mask value and the lane.
    lowest_lane: Option<(Block, ir::Value, ir::Value)>,
}

/// The launch geometry, loaded once at entry.
#[derive(Copy, Clone)]
struct Geometry {
    block_id: [ir::Value; 3],
    block_dim: [ir::Value; 3],
    grid_dim: [ir::Value; 3],
    subgroup_id: ir::Value,
    first_thread: ir::Value,
}

/// The Cranelift type of a MIR type's value in a register.
pub(crate) fn cl_type(t: Type) -> ClType {
    match t {
        Type::Scalar(s) => cl_scalar(s),
        Type::Ptr(..) => types::I64,
    }
}

/// The Cranelift type of a scalar in a register (`bool` is an `i8` holding 0 or 1).
pub(crate) fn cl_scalar(s: ScalarType) -> ClType {
    match s {
        ScalarType::Bool => types::I8,
        ScalarType::I32 | ScalarType::U32 => types::I32,
        ScalarType::I64 | ScalarType::U64 => types::I64,
        ScalarType::F32 => types::F32,
        ScalarType::F64 => types::F64,
    }
}

fn sig(cc: CallConv, params: &[ClType], ret: Option<ClType>) -> Signature {
    let mut s = Signature::new(cc);
    s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    s.returns.extend(ret.map(AbiParam::new));
    s
}

/// Translates `f` (verified) into `func` for subgroups of `w` lanes.
pub(crate) fn lower(
    f: &Function,
    uni: &Uniformity,
    w: u32,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
    target: TargetFrontendConfig,
) -> Result<Lowered, CompileError> {
    let cc = CallConv::SystemV;
    let (i64t, i32t) = (types::I64, types::I32);
    func.signature = sig(cc, &[i64t], Some(i32t));
    let mut b = FunctionBuilder::new(func, fctx);
    let sigs = Sigs {
        fault: b.import_signature(sig(cc, &[i64t, i32t, i32t, i32t, i32t, i64t, i64t], None)),
        exchange: b.import_signature(sig(cc, &[i64t, i32t, i64t, i64t, i64t, i64t], Some(i64t))),
        barrier: b.import_signature(sig(cc, &[i64t, i32t, i64t, i64t, i64t], Some(i64t))),
        refill: b.import_signature(sig(cc, &[i64t, i32t, i64t], Some(i64t))),
        fma: b.import_signature(sig(cc, &[i32t, i64t, i64t, i64t], Some(i64t))),
        float_binop: b.import_signature(sig(cc, &[i32t, i32t, i64t, i64t], Some(i64t))),
    };
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    // The context's fields but the budget do not change during a call: their loads may move to
    // their uses (fewer values live across the kernel's loops).
    let flags = MemFlagsData::trusted().with_readonly().with_can_move();
    let regs = b.ins().load(i64t, flags, ctx, off::REGS);
    let mem = b.ins().load(i64t, flags, ctx, off::MEM);
    let params = b.ins().load(i64t, flags, ctx, off::PARAMS);
    let dims = |b: &mut FunctionBuilder<'_>, at: i32| [0, 1, 2].map(|k| b.ins().load(i32t, flags, ctx, at + 4 * k));
    let geo = Geometry {
        block_id: dims(&mut b, off::BLOCK_ID),
        block_dim: dims(&mut b, off::BLOCK_DIM),
        grid_dim: dims(&mut b, off::GRID_DIM),
        subgroup_id: b.ins().load(i32t, flags, ctx, off::SUBGROUP_ID),
        first_thread: b.ins().load(i32t, flags, ctx, off::FIRST_THREAD),
    };
    let live0 = b.ins().load(i64t, flags, ctx, off::LIVE);
    let budget0 = b.ins().load(i64t, MemFlagsData::trusted(), ctx, off::BUDGET);
    let (mask, live, budget) = (b.declare_var(i64t), b.declare_var(i64t), b.declare_var(i64t));
    // At width 1 the mask is the constant 1 wherever code runs: a subgroup exists only with its
    // one thread, and control flow is real branches (`branches`).
    let mask0 = if w == 1 { b.ins().iconst(i64t, 1) } else { live0 };
    b.def_var(mask, mask0);
    b.def_var(live, live0);
    b.def_var(budget, budget0);

    // Homes: uniform values get a variable, the others a lane array. At width 1 every value is
    // uniform (one lane): the kernel becomes plain scalar code.
    let mut home: SecondaryMap<Value, Option<Home>> = SecondaryMap::with_capacity(f.values.len());
    let mut slots = 0u32;
    for (v, data) in f.values.iter() {
        let h = if w == 1 || uni.is_uniform(v) {
            Home::Uniform(b.declare_var(cl_type(data.ty)))
        } else {
            slots += 1;
            Home::Lanes(slots - 1)
        };
        home[v] = Some(h);
    }
    let scratch = [slots, slots + 1];
    slots += 2;
    let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
    for (inst, _) in f.insts.iter() {
        for &a in f.args(inst) {
            users[a].push(inst);
        }
    }
    let ret_fault = b.create_block();
    let ret_abort = b.create_block();
    let ret_done = b.create_block();
    let mut l = Lower {
        f,
        uni,
        w,
        b,
        ctx,
        regs,
        mem,
        geo,
        home,
        users,
        mask,
        live,
        budget,
        ifs: Vec::new(),
        loops: Vec::new(),
        ret_fault,
        ret_abort,
        ret_done,
        sigs,
        scratch,
        slots,
        cond_bits: HashMap::new(),
        lane_addr: None,
        prov: provenance::analyse(f),
        entries: HashMap::new(),
        known_offsets: HashMap::new(),
        lowest_lane: None,
    };
    l.load_known_entries();
    // Kernel parameters. A pointer parameter is always its own buffer at offset 0 (the launch
    // encodes parameter `k` so): a constant.
    for (i, p) in f.params.iter().enumerate() {
        let bits = match p.ty {
            Type::Ptr(space, _) => l.b.ins().iconst(i64t, qd_mir::interp::pointer::encode(space, i as u32, 0) as i64),
            _ => l.b.ins().load(i64t, flags, params, (8 * i) as i32),
        };
        l.define_from_bits(p.value, bits)?;
    }
    l.region(f.body, true)?;
    l.b.ins().jump(ret_done, &[]);
    l.b.switch_to_block(ret_done);
    l.finish(STATUS_DONE);
    l.b.switch_to_block(ret_fault);
    l.b.set_cold_block(ret_fault);
    l.finish(STATUS_FAULT);
    l.b.switch_to_block(ret_abort);
    l.b.set_cold_block(ret_abort);
    l.finish(STATUS_ABORT);
    l.b.seal_all_blocks();
    let slots = l.slots;
    l.b.finalize(target);
    Ok(Lowered { slots })
}

impl Lower<'_, '_> {
    /// Stores the budget back and returns `status`.
    fn finish(&mut self, status: u32) {
        let bud = self.b.use_var(self.budget);
        self.b.ins().store(MemFlagsData::trusted(), bud, self.ctx, off::BUDGET);
        let s = self.b.ins().iconst(types::I32, i64::from(status));
        self.b.ins().return_(&[s]);
    }

    fn home(&self, v: Value) -> Result<Home, CompileError> {
        self.home
            .get(v)
            .copied()
            .flatten()
            .ok_or_else(|| CompileError::internal(TARGET, format!("value {v} has no home")))
    }

    /// Whether `v` lives in a variable: proven uniform, or any value at width 1.
    fn is_uniform(&self, v: Value) -> bool {
        self.w == 1 || self.uni.is_uniform(v)
    }

    fn ty(&self, v: Value) -> Type {
        self.f.values[v].ty
    }

    /// Byte offset of lane array `slot` in the register file.
    fn slot_offset(&self, slot: u32) -> i64 {
        i64::from(slot) * i64::from(self.w) * 8
    }

    /// Address of lane array `slot`.
    fn slot_addr(&mut self, slot: u32) -> ir::Value {
        let o = self.slot_offset(slot);
        self.b.ins().iadd_imm_s(self.regs, o)
    }

    /// Canonical `u64` bits of a register value of type `t`.
    pub(crate) fn bits_of(&mut self, t: Type, v: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        match cl_type(t) {
            types::I8 | types::I32 => ins.uextend(types::I64, v),
            types::F32 => {
                let i = ins.bitcast(types::I32, MemFlagsData::new(), v);
                self.b.ins().uextend(types::I64, i)
            }
            types::F64 => ins.bitcast(types::I64, MemFlagsData::new(), v),
            _ => v,
        }
    }

    /// The register value of type `t` of canonical bits.
    pub(crate) fn value_of_bits(&mut self, t: Type, bits: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        match cl_type(t) {
            types::I8 => ins.ireduce(types::I8, bits),
            types::I32 => ins.ireduce(types::I32, bits),
            types::F32 => {
                let i = ins.ireduce(types::I32, bits);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), i)
            }
            types::F64 => ins.bitcast(types::F64, MemFlagsData::new(), bits),
            _ => bits,
        }
    }

    /// `regs + 8 · lane`: the address of lane `lane` of lane array 0 (reused within a lane loop).
    fn lane_base(&mut self, lane: ir::Value) -> ir::Value {
        if let Some((l, a)) = self.lane_addr {
            if l == lane {
                return a;
            }
        }
        let sh = self.b.ins().ishl_imm_s(lane, 3);
        self.b.ins().iadd(self.regs, sh)
    }

    /// Makes `lane` the current lane of a lane loop (its base address computed here, once).
    fn enter_lane(&mut self, lane: ir::Value) {
        self.lane_addr = None;
        let a = self.lane_base(lane);
        self.lane_addr = Some((lane, a));
    }

    /// Lane `lane` (an `i64`) of lane array `slot`, as bits.
    fn load_lane(&mut self, slot: u32, lane: ir::Value) -> ir::Value {
        let o = self.slot_offset(slot);
        let a = self.lane_base(lane);
        self.b.ins().load(types::I64, MemFlagsData::trusted(), a, o as i32)
    }

    /// Stores bits into lane `lane` of lane array `slot`.
    fn store_lane(&mut self, slot: u32, lane: ir::Value, bits: ir::Value) {
        let o = self.slot_offset(slot);
        let a = self.lane_base(lane);
        self.b.ins().store(MemFlagsData::trusted(), bits, a, o as i32);
    }

    /// Defines value `v` for every lane from bits (parameters).
    fn define_from_bits(&mut self, v: Value, bits: ir::Value) -> Result<(), CompileError> {
        let t = self.ty(v);
        match self.home(v)? {
            Home::Uniform(var) => {
                let x = self.value_of_bits(t, bits);
                self.b.def_var(var, x);
            }
            Home::Lanes(slot) => self.splat(slot, bits),
        }
        Ok(())
    }

    /// Writes `bits` to every lane of lane array `slot`.
    fn splat(&mut self, slot: u32, bits: ir::Value) {
        let o = self.slot_offset(slot);
        for l in 0..self.w {
            self.b.ins().store(MemFlagsData::trusted(), bits, self.regs, (o + 8 * i64::from(l)) as i32);
        }
    }

    /// An operand's value in lane `lane`.
    fn lane_value(&mut self, v: Value, lane: ir::Value) -> Result<ir::Value, CompileError> {
        match self.home(v)? {
            Home::Uniform(var) => Ok(self.b.use_var(var)),
            Home::Lanes(slot) => {
                let bits = self.load_lane(slot, lane);
                Ok(self.value_of_bits(self.ty(v), bits))
            }
        }
    }

    /// The value of a uniform operand.
    fn uniform(&mut self, v: Value) -> Result<ir::Value, CompileError> {
        match self.home(v)? {
            Home::Uniform(var) => Ok(self.b.use_var(var)),
            Home::Lanes(slot) => {
                // A varying operand where one value is needed: the lowest active lane's.
                let m = self.b.use_var(self.mask);
                let lane = self.b.ins().ctz(m);
                let bits = self.load_lane(slot, lane);
                Ok(self.value_of_bits(self.ty(v), bits))
            }
        }
    }

    /// The address of a lane array holding `v` (a scratch slot for a uniform value).
    fn lanes_of(&mut self, v: Value, scratch: usize) -> Result<ir::Value, CompileError> {
        match self.home(v)? {
            Home::Lanes(slot) => Ok(self.slot_addr(slot)),
            Home::Uniform(var) => {
                let x = self.b.use_var(var);
                let bits = self.bits_of(self.ty(v), x);
                let slot = self.scratch[scratch];
                self.splat(slot, bits);
                Ok(self.slot_addr(slot))
            }
        }
    }

    /// Calls a host helper by address.
    pub(crate) fn call_helper(&mut self, sig: ir::SigRef, addr: *const (), args: &[ir::Value]) -> Option<ir::Value> {
        let callee = self.b.ins().iconst(types::I64, addr as i64);
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call).first().copied()
    }

    /// Charges `n` instructions for every active lane; asks the host for more budget when it runs
    /// out (`at` names the instruction in a step-limit fault).
    fn charge(&mut self, n: usize, at: Inst) {
        let cost = if self.w == 1 {
            self.b.ins().iconst(types::I64, n as i64)
        } else {
            let m = self.b.use_var(self.mask);
            let pc = self.b.ins().popcnt(m);
            self.b.ins().imul_imm_s(pc, n as i64)
        };
        let bud = self.b.use_var(self.budget);
        let left = self.b.ins().isub(bud, cost);
        self.b.def_var(self.budget, left);
        let out = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, left, 0);
        let (refill, ok) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(out, refill, &[], ok, &[]);
        self.b.switch_to_block(refill);
        self.b.set_cold_block(refill);
        let at = self.b.ins().iconst(types::I32, at.index() as i64);
        let r = self.call_helper(self.sigs.refill, helpers::qd_refill as *const (), &[self.ctx, at, left]);
        let r = r.unwrap_or(left);
        self.status_check(r);
        self.b.def_var(self.budget, r);
        self.b.ins().jump(ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Returns from the kernel when a helper's result `r` is negative (`-status`).
    fn status_check(&mut self, r: ir::Value) {
        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
        let (stop, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(neg, stop, &[], go, &[]);
        self.b.switch_to_block(stop);
        self.b.set_cold_block(stop);
        let is_abort = self.b.ins().icmp_imm_s(IntCC::Equal, r, -i64::from(STATUS_ABORT));
        self.b.ins().brif(is_abort, self.ret_abort, &[], self.ret_fault, &[]);
        self.b.switch_to_block(go);
    }

    /// Emits a region with the current mask (non-empty); afterwards the builder is at the point
    /// where the region has finished.
    fn region(&mut self, r: Region, charged: bool) -> Result<(), CompileError> {
        let insts: Vec<Inst> = self.f.regions[r].insts.clone();
        let end = self.b.create_block();
        if let (true, Some(&first)) = (charged, insts.first()) {
            let n = self.static_count(r);
            self.charge(n, first);
        }
        let mut i = 0;
        while i < insts.len() {
            let inst = insts[i];
            if self.is_lane_local(inst) {
                let mut j = i;
                let mut run = Vec::new();
                while j < insts.len() {
                    let k = insts[j];
                    if self.is_lane_local(k) {
                        run.push(k);
                    } else if self.is_hoistable(k) {
                        self.uniform_inst(k)?;
                    } else {
                        break;
                    }
                    j += 1;
                }
                self.run(&run)?;
                i = j;
                continue;
            }
            match self.inst(inst)? {
                Flow::Next => {}
                Flow::MaskMayShrink => {
                    // Lanes may have left through a nested break, continue or return.
                    let m = self.b.use_var(self.mask);
                    let go = self.b.create_block();
                    self.b.ins().brif(m, go, &[], end, &[]);
                    self.b.switch_to_block(go);
                }
                Flow::Ended => {
                    self.b.ins().jump(end, &[]);
                    let dead = self.b.create_block();
                    self.b.switch_to_block(dead);
                }
            }
            i += 1;
        }
        if r == self.f.body && self.w > 1 {
            // Falling off the end of the body ends the remaining lanes.
            let z = self.b.ins().iconst(types::I64, 0);
            self.b.def_var(self.mask, z);
        }
        self.b.ins().jump(end, &[]);
        self.b.switch_to_block(end);
        Ok(())
    }

    /// The instructions of a region and of the `if` arms nested in it (loop bodies count their
    /// own): what one pass through it charges per active lane. The budget is charged where a
    /// kernel can repeat — at its start and at each loop iteration — which bounds every run.
    fn static_count(&self, r: Region) -> usize {
        self.f.regions[r]
            .insts
            .iter()
            .map(|&i| {
                let d = &self.f.insts[i];
                let nested: usize = if d.opcode.class() == OpClass::If {
                    d.regions.iter().filter_map(|x| x.expand()).map(|x| self.static_count(x)).sum()
                } else {
                    0
                };
                1 + nested
            })
            .sum()
    }

    /// Emits a uniform instruction once (its lane, for a fault, is the lowest active one).
    fn uniform_inst(&mut self, inst: Inst) -> Result<(), CompileError> {
        let mut args = Vec::new();
        for &a in self.f.args(inst) {
            args.push(self.uniform(a)?);
        }
        let lane = self.lowest_active_lane();
        let outs = self.scalar_inst(inst, &args, lane, OnFault::Return)?;
        for (&v, &x) in self.f.inst_results(inst).iter().zip(&outs) {
            self.define(v, x)?;
        }
        Ok(())
    }

    /// The lowest active lane (where a uniform instruction's fault is reported): one `ctz` per
    /// mask value (0 at width 1), not one per instruction.
    fn lowest_active_lane(&mut self) -> ir::Value {
        if self.w == 1 {
            return self.b.ins().iconst(types::I64, 0);
        }
        let m = self.b.use_var(self.mask);
        let block = self.b.current_block();
        match self.lowest_lane {
            Some((b, mv, lane)) if Some(b) == block && mv == m => lane,
            _ => {
                let lane = self.b.ins().ctz(m);
                if let Some(b) = block {
                    self.lowest_lane = Some((b, m, lane));
                }
                lane
            }
        }
    }

    /// Defines `v` from a value that is the same for every active lane.
    fn define(&mut self, v: Value, x: ir::Value) -> Result<(), CompileError> {
        match self.home(v)? {
            Home::Uniform(var) => self.b.def_var(var, x),
            Home::Lanes(slot) => {
                let bits = self.bits_of(self.ty(v), x);
                self.splat(slot, bits);
            }
        }
        Ok(())
    }

    /// Emits one instruction that is not part of a fused loop; says how the region goes on.
    fn inst(&mut self, inst: Inst) -> Result<Flow, CompileError> {
        let op = self.f.insts[inst].opcode;
        let done = match op.class() {
            OpClass::Const
            | OpClass::Binary(_)
            | OpClass::Unary(_)
            | OpClass::Fma
            | OpClass::Select
            | OpClass::Cmp
            | OpClass::Cast
            | OpClass::Bitcast
            | OpClass::Index(_) => self.uniform_inst(inst),
            OpClass::Memory(m) => match m {
                MemoryOp::SharedAddr | MemoryOp::PtrOffset | MemoryOp::Load => self.uniform_inst(inst),
                MemoryOp::Store => self.store(inst),
                MemoryOp::AtomicRmw | MemoryOp::AtomicCas => self.atomic(inst),
            },
            OpClass::Exchange(_) | OpClass::Collective(_) => self.exchange(inst),
            OpClass::Sync(s) => match s {
                SyncOp::SubgroupSync | SyncOp::Nanosleep => Ok(()),
                SyncOp::Fence => {
                    self.b.ins().fence();
                    Ok(())
                }
                SyncOp::BlockSync | SyncOp::BlockSyncPred => self.barrier(inst),
            },
            // Width 1: real branches; the code after them runs only where control reaches it.
            OpClass::If if self.w == 1 => return self.if_branch(inst).map(|()| Flow::Next),
            OpClass::Loop if self.w == 1 => return self.loop_branch(inst).map(|()| Flow::Next),
            OpClass::Terminator(t) if self.w == 1 => return self.terminator_branch(inst, t).map(|()| Flow::Ended),
            OpClass::If => return self.if_(inst).map(|()| Flow::MaskMayShrink),
            OpClass::Loop => return self.loop_(inst).map(|()| Flow::MaskMayShrink),
            OpClass::Terminator(t) => return self.terminator(inst, t).map(|()| Flow::Ended),
        };
        done.map(|()| Flow::Next)
    }

    /// An exchange, vote, reduction or scan: the host computes it on the lane arrays.
    fn exchange(&mut self, inst: Inst) -> Result<(), CompileError> {
        if self.inline_exchange(inst)? {
            return Ok(());
        }
        let args: Vec<Value> = self.f.args(inst).to_vec();
        let null = self.b.ins().iconst(types::I64, 0);
        let a = match args.first() {
            Some(&v) => self.lanes_of(v, 0)?,
            None => null,
        };
        let bb = match args.get(1) {
            Some(&v) => self.lanes_of(v, 1)?,
            None => null,
        };
        let Some(&r) = self.f.inst_results(inst).first() else {
            return Err(CompileError::internal(TARGET, "an exchange without a result").at(inst));
        };
        let dst = match self.home(r)? {
            Home::Lanes(slot) => self.slot_addr(slot),
            Home::Uniform(_) => {
                let s = self.scratch[0];
                self.slot_addr(s)
            }
        };
        let m = self.b.use_var(self.mask);
        let id = self.b.ins().iconst(types::I32, inst.index() as i64);
        let ret = self
            .call_helper(self.sigs.exchange, helpers::qd_exchange as *const (), &[self.ctx, id, a, bb, dst, m])
            .unwrap_or(null);
        if let Home::Uniform(var) = self.home(r)? {
            let x = self.value_of_bits(self.ty(r), ret);
            self.b.def_var(var, x);
        }
        Ok(())
    }

    /// `block.sync` / `block.sync_pred`.
    fn barrier(&mut self, inst: Inst) -> Result<(), CompileError> {
        let pred = match self.f.args(inst).first() {
            Some(&p) => self.lanes_of(p, 0)?,
            None => self.b.ins().iconst(types::I64, 0),
        };
        let m = self.b.use_var(self.mask);
        let live = self.b.use_var(self.live);
        let id = self.b.ins().iconst(types::I32, inst.index() as i64);
        let r = self
            .call_helper(self.sigs.barrier, helpers::qd_barrier as *const (), &[self.ctx, id, pred, m, live])
            .unwrap_or(m);
        self.status_check(r);
        if let Some(&res) = self.f.inst_results(inst).first() {
            let x = self.value_of_bits(self.ty(res), r);
            self.define(res, x)?;
        }
        Ok(())
    }

    /// The lanes of `mask` whose bool value `c` is true.
    fn ballot(&mut self, c: Value) -> Result<ir::Value, CompileError> {
        let m = self.b.use_var(self.mask);
        match self.home(c)? {
            Home::Uniform(var) => {
                let x = self.b.use_var(var);
                let z = self.b.ins().iconst(types::I64, 0);
                Ok(self.b.ins().select(x, m, z))
            }
            Home::Lanes(_) if self.cond_bits.contains_key(&c) => {
                let var = self.cond_bits[&c];
                let bits = self.b.use_var(var);
                Ok(self.b.ins().band(bits, m))
            }
            Home::Lanes(slot) => {
                let o = self.slot_offset(slot);
                let mut acc = self.b.ins().iconst(types::I64, 0);
                for l in 0..self.w {
                    let bit = self.b.ins().load(
                        types::I64,
                        MemFlagsData::trusted(),
                        self.regs,
                        (o + 8 * i64::from(l)) as i32,
                    );
                    let bit = self.b.ins().band_imm_s(bit, 1);
                    let sh = self.b.ins().ishl_imm_s(bit, i64::from(l));
                    acc = self.b.ins().bor(acc, sh);
                }
                Ok(self.b.ins().band(acc, m))
            }
        }
    }

    fn if_(&mut self, inst: Inst) -> Result<(), CompileError> {
        let (Some(&c), Some(then)) = (self.f.args(inst).first(), self.f.insts[inst].regions[0].expand()) else {
            return Err(CompileError::internal(TARGET, "malformed `if`").at(inst));
        };
        let els = self.f.insts[inst].regions[1].expand();
        let tm = self.ballot(c)?;
        let m = self.b.use_var(self.mask);
        let ntm = self.b.ins().bnot(tm);
        let em = self.b.ins().band(m, ntm);
        let yielded = self.b.declare_var(types::I64);
        let z = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(yielded, z);
        let (then_b, after_then, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(tm, then_b, &[], after_then, &[]);
        self.b.switch_to_block(then_b);
        self.b.def_var(self.mask, tm);
        self.ifs.push(IfFrame { inst, yielded, join: None });
        self.region(then, false)?;
        self.b.ins().jump(after_then, &[]);
        self.b.switch_to_block(after_then);
        match els {
            Some(els) => {
                let else_b = self.b.create_block();
                self.b.ins().brif(em, else_b, &[], join, &[]);
                self.b.switch_to_block(else_b);
                self.b.def_var(self.mask, em);
                self.region(els, false)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.ifs.pop();
                let y = self.b.use_var(yielded);
                self.b.def_var(self.mask, y);
            }
            None => {
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.ifs.pop();
                let y = self.b.use_var(yielded);
                let all = self.b.ins().bor(y, em);
                self.b.def_var(self.mask, all);
            }
        }
        Ok(())
    }

    fn loop_(&mut self, inst: Inst) -> Result<(), CompileError> {
        let Some(body) = self.f.insts[inst].regions[0].expand() else {
            return Err(CompileError::internal(TARGET, "malformed `loop`").at(inst));
        };
        let params: Vec<Value> = self.f.region_params(body).to_vec();
        let init: Vec<Value> = self.f.args(inst).to_vec();
        self.copy_masked(&params, &init)?;
        let (brk, cont, iter) =
            (self.b.declare_var(types::I64), self.b.declare_var(types::I64), self.b.declare_var(types::I64));
        let z = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(brk, z);
        let m = self.b.use_var(self.mask);
        self.b.def_var(iter, m);
        let (head, body_b, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let it = self.b.use_var(iter);
        self.b.ins().brif(it, body_b, &[], exit, &[]);
        self.b.switch_to_block(body_b);
        let z = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(cont, z);
        self.b.def_var(self.mask, it);
        self.loops.push(LoopFrame { inst, body, brk, cont, edges: None });
        self.region(body, true)?;
        self.loops.pop();
        let c = self.b.use_var(cont);
        self.b.def_var(iter, c);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        let bm = self.b.use_var(brk);
        self.b.def_var(self.mask, bm);
        Ok(())
    }

    fn terminator(&mut self, inst: Inst, t: Terminator) -> Result<(), CompileError> {
        let args: Vec<Value> = self.f.args(inst).to_vec();
        let m = self.b.use_var(self.mask);
        match t {
            Terminator::Yield => {
                let Some(fr) = self.ifs.last() else {
                    return Err(CompileError::internal(TARGET, "`yield` outside an `if`").at(inst));
                };
                let (owner, yielded) = (fr.inst, fr.yielded);
                let dst: Vec<Value> = self.f.inst_results(owner).to_vec();
                self.copy_masked(&dst, &args)?;
                let y = self.b.use_var(yielded);
                let y = self.b.ins().bor(y, m);
                self.b.def_var(yielded, y);
            }
            Terminator::Break | Terminator::Continue => {
                let Some(fr) = self.loops.last() else {
                    return Err(CompileError::internal(TARGET, "`break`/`continue` outside a loop").at(inst));
                };
                let (owner, body, brk, cont) = (fr.inst, fr.body, fr.brk, fr.cont);
                let (dst, var): (Vec<Value>, Variable) = if t == Terminator::Break {
                    (self.f.inst_results(owner).to_vec(), brk)
                } else {
                    (self.f.region_params(body).to_vec(), cont)
                };
                self.copy_masked(&dst, &args)?;
                let acc = self.b.use_var(var);
                let acc = self.b.ins().bor(acc, m);
                self.b.def_var(var, acc);
            }
            Terminator::Return => {
                let live = self.b.use_var(self.live);
                let nm = self.b.ins().bnot(m);
                let live = self.b.ins().band(live, nm);
                self.b.def_var(self.live, live);
            }
        }
        let z = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(self.mask, z);
        Ok(())
    }

    /// `dst[i] = src[i]` for the active lanes, as a parallel copy.
    pub(super) fn copy_masked(&mut self, dst: &[Value], src: &[Value]) -> Result<(), CompileError> {
        if dst.len() != src.len() {
            return Err(CompileError::internal(TARGET, "value count mismatch in a region transfer"));
        }
        // Uniform destinations: read every source first, then define.
        let mut defs = Vec::new();
        let mut lanes = Vec::new();
        for (&d, &s) in dst.iter().zip(src) {
            match self.home(d)? {
                Home::Uniform(var) => {
                    let x = self.uniform(s)?;
                    defs.push((var, x));
                }
                Home::Lanes(slot) => lanes.push((slot, s)),
            }
        }
        for (var, x) in defs {
            self.b.def_var(var, x);
        }
        if lanes.is_empty() {
            return Ok(());
        }
        // Varying destinations: one loop over the active lanes.
        let mut uniform_bits = Vec::new();
        for &(_, s) in &lanes {
            uniform_bits.push(match self.home(s)? {
                Home::Uniform(var) => {
                    let x = self.b.use_var(var);
                    Some(self.bits_of(self.ty(s), x))
                }
                Home::Lanes(_) => None,
            });
        }
        self.active_lane_loop(|l, lane| {
            // Every source is read before any destination is written: a parallel copy.
            let mut vals = Vec::with_capacity(lanes.len());
            for (&(_, src), bits) in lanes.iter().zip(&uniform_bits) {
                vals.push(match (bits, l.home(src)?) {
                    (Some(b), _) => *b,
                    (None, Home::Lanes(slot)) => l.load_lane(slot, lane),
                    (None, Home::Uniform(_)) => {
                        return Err(CompileError::internal(TARGET, "lost a uniform source"));
                    }
                });
            }
            for (&(slot, _), &bits) in lanes.iter().zip(&vals) {
                l.store_lane(slot, lane, bits);
            }
            Ok(())
        })
    }

    /// Emits `cond ≠ 0 ⇒ fault` (a cold path recording it through `qd_fault`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fault_if(
        &mut self,
        cond: ir::Value,
        code: u32,
        inst: Inst,
        lane: ir::Value,
        a: ir::Value,
        bytes: u32,
        on: OnFault,
    ) {
        let (cold, ok) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, cold, &[], ok, &[]);
        self.b.switch_to_block(cold);
        self.b.set_cold_block(cold);
        let key = match on {
            OnFault::Return => 0,
            OnFault::Lane { key, .. } => key,
        };
        let i32t = types::I32;
        let code = self.b.ins().iconst(i32t, i64::from(code));
        let id = self.b.ins().iconst(i32t, inst.index() as i64);
        let key = self.b.ins().iconst(i32t, i64::from(key));
        let lane32 = self.b.ins().ireduce(i32t, lane);
        let bytes = self.b.ins().iconst(types::I64, i64::from(bytes));
        self.call_helper(self.sigs.fault, helpers::qd_fault as *const (), &[self.ctx, code, id, key, lane32, a, bytes]);
        match on {
            OnFault::Return => {
                self.b.ins().jump(self.ret_fault, &[]);
            }
            OnFault::Lane { next, pending, .. } => {
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(pending, one);
                self.b.ins().jump(next, &[]);
            }
        }
        self.b.switch_to_block(ok);
    }

    /// A join block with one parameter of type `t`, and the argument list for jumping to it.
    pub(crate) fn join_block(&mut self, t: ClType) -> (Block, ir::Value) {
        let j = self.b.create_block();
        let p = self.b.append_block_param(j, t);
        (j, p)
    }

    /// Jumps to `j` passing `v`.
    pub(crate) fn jump_with(&mut self, j: Block, v: ir::Value) {
        self.b.ins().jump(j, &[BlockArg::Value(v)]);
    }

    /// Index-op geometry: the dimension `d` of the block id, block size or grid size.
    fn dim_of(&self, which: IndexOp, d: usize) -> Option<ir::Value> {
        match which {
            IndexOp::BlockId => Some(self.geo.block_id[d]),
            IndexOp::BlockDim => Some(self.geo.block_dim[d]),
            IndexOp::GridDim => Some(self.geo.grid_dim[d]),
            IndexOp::ThreadId
            | IndexOp::LaneId
            | IndexOp::SubgroupId
            | IndexOp::SubgroupSize
            | IndexOp::LaneMask(_) => None,
        }
    }
}
