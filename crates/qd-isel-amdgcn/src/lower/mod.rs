//! MIR → VCode instruction selection: the lowering context and the one dispatch over opcodes.
//!
//! Every MIR value gets a [`Val`]: uniform integer-like values (and kernel parameters, which are
//! uniform by construction) live in SGPRs and use the scalar ALU where one exists; everything
//! else lives in VGPRs (64-bit varying values in an aligned VGPR pair). Booleans are 0/1 in a
//! 32-bit register of their class. The uniformity analysis decides (`qd_mir::analysis`).
//!
//! [`Lower::lower_inst`] is the exhaustive match over [`Opcode`]: each arm calls the function of
//! the module that owns the op — `arith` (scalar arithmetic, compares, casts), `memory`
//! (addresses, loads, stores, atomics, barriers, fences), `index` (launch indices, lane masks),
//! `simt` (subgroup exchange and collectives, each behind a replaceable strategy) and `control`
//! (structured control flow on the EXEC mask). A new opcode breaks the build here.

pub(crate) mod arith;
pub(crate) mod control;
pub(crate) mod convert;
pub(crate) mod divide;
pub(crate) mod fdiv;
pub(crate) mod index;
pub(crate) mod memory;
pub(crate) mod shuffle_emit;
pub(crate) mod simt;
mod simt_coll;

use cranelift_entity::SecondaryMap;
use qd_mir::types::{AddrSpace, ScalarType, Type};
use qd_mir::{Function, Imm, Inst, KernelFacts, Opcode, Region, Terminator, Value};
use regalloc2::VReg;

use crate::abi::KernargLayout;
use crate::vcode::{MInst, Term, VBlock, VCode, A, SGPR, VGPR, VGPR64};
use crate::AmdgcnOptions;
use qd_amdgcn_isa::{Inst as MI, Op, Operand};
use qd_amdgcn_isa::{Target, WaveSize};
use qd_mir::CompileError;

/// The launch dimensions in register order.
const DIMS: [qd_mir::ops::Dim; 3] = [qd_mir::ops::Dim::X, qd_mir::ops::Dim::Y, qd_mir::ops::Dim::Z];

/// Where a MIR value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// A 32-bit value (or bool, or shared pointer) in an SGPR.
    S(VReg),
    /// A 32-bit value in a VGPR.
    V(VReg),
    /// A 64-bit uniform value in two SGPRs (lo, hi).
    S64(VReg, VReg),
    /// A 64-bit varying value in an aligned VGPR pair.
    V64(VReg),
}

impl Val {
    /// True for the SGPR forms.
    pub(crate) fn is_scalar(self) -> bool {
        matches!(self, Val::S(_) | Val::S64(..))
    }
}

/// The register class family chosen for a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cls {
    /// SGPR(s).
    Scalar,
    /// VGPR(s).
    Vector,
}

/// Registers the kernel entry defines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EntryRegs {
    /// Workgroup ids X, Y, Z.
    pub block_id: [VReg; 3],
    /// Work-item ids X, Y, Z (VGPRs).
    pub thread_id: [VReg; 3],
    /// Grid size in blocks X, Y, Z (loaded from the kernarg segment).
    pub grid: [VReg; 3],
}

/// What the kernel's entry must provide, from one scan of its instructions.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EntryNeeds {
    /// Some `grid_dim` reads the grid size.
    pub grid_dim: bool,
    /// Some `block_id` reads workgroup id X, Y, Z.
    pub block_id: [bool; 3],
    /// The kernel has a `block.sync_pred` (which needs its LDS word).
    pub sync_pred: bool,
}

impl EntryNeeds {
    fn of(f: &Function) -> EntryNeeds {
        let mut n = EntryNeeds::default();
        for d in f.insts.values() {
            n.grid_dim |= d.opcode == Opcode::GridDim;
            n.sync_pred |= d.opcode == Opcode::BlockSyncPred;
            if let (Opcode::BlockId, Imm::Dim(dim)) = (d.opcode, d.imm) {
                n.block_id[DIMS.iter().position(|&x| x == dim).unwrap_or(0)] = true;
            }
        }
        n
    }
}

/// The lowering context: one kernel being selected.
pub(crate) struct Lower<'a> {
    pub f: &'a Function,
    /// The verifier's facts about `f` (uniformity, threads per block).
    pub facts: &'a KernelFacts,
    pub target: Target,
    pub opts: &'a AmdgcnOptions,
    pub vcode: VCode,
    /// The block instructions are appended to.
    pub cur: VBlock,
    vals: SecondaryMap<Value, Option<Val>>,
    pub entry: EntryRegs,
    /// What the entry must provide.
    pub needs: EntryNeeds,
    pub kernarg: KernargLayout,
    /// LDS byte offset of every shared array.
    pub shared_offsets: SecondaryMap<qd_mir::SharedArr, u32>,
    /// LDS bytes used (shared arrays plus anything lowering allocates).
    pub lds_bytes: u32,
    /// The LDS word `block.sync_pred` combines through, when the kernel has one.
    pub sync_pred_word: Option<u32>,
    /// Source line of the instruction being lowered.
    pub line: u32,
    /// MIR line of each instruction (empty: none known).
    pub lines: &'a dyn Fn(Inst) -> Option<u32>,
    /// State of the structured control flow being lowered (owned by `control`).
    pub cf: control::CfState,
    /// The shuffle selector's decisions so far (`CompiledKernel::choices`).
    pub choices: Vec<crate::select::Choice>,
}

impl<'a> Lower<'a> {
    pub(crate) fn new(
        f: &'a Function,
        facts: &'a KernelFacts,
        opts: &'a AmdgcnOptions,
        kernarg: KernargLayout,
        lines: &'a dyn Fn(Inst) -> Option<u32>,
    ) -> Lower<'a> {
        let mut vcode = VCode::default();
        let entry_block = vcode.new_block("entry", false);
        let entry = EntryRegs {
            block_id: [vcode.new_vreg(SGPR), vcode.new_vreg(SGPR), vcode.new_vreg(SGPR)],
            thread_id: [vcode.new_vreg(VGPR), vcode.new_vreg(VGPR), vcode.new_vreg(VGPR)],
            grid: [vcode.new_vreg(SGPR), vcode.new_vreg(SGPR), vcode.new_vreg(SGPR)],
        };
        Lower {
            f,
            facts,
            target: opts.target,
            opts,
            vcode,
            cur: entry_block,
            vals: SecondaryMap::new(),
            entry,
            needs: EntryNeeds::of(f),
            kernarg,
            shared_offsets: SecondaryMap::new(),
            lds_bytes: 0,
            sync_pred_word: None,
            line: 0,
            lines,
            cf: control::CfState::new(entry_block),
            choices: Vec::new(),
        }
    }

    // ----- shuffle selector -----------------------------------------------------------------

    /// The lowering family forced on `inst` (its `op_lowering` entry, else the kernel's
    /// `shuffle_lowering`).
    pub(crate) fn forced(&self, inst: Inst) -> crate::select::ShuffleLowering {
        self.opts.op_lowering.iter().rev().find(|(i, _)| *i == inst).map_or(self.opts.shuffle_lowering, |&(_, l)| l)
    }

    /// The candidate named for `inst` in `op_candidate`, if any (the last entry wins).
    pub(crate) fn forced_candidate(&self, inst: Inst) -> Option<&str> {
        self.opts.op_candidate.iter().rev().find(|(i, _)| *i == inst).map(|(_, n)| n.as_str())
    }

    /// True when EXEC is known to hold every lane of the wave here: the block size is a multiple
    /// of the wave (so no wave starts partial) and the current block is not divergent (no lane
    /// has left through a divergent branch, loop exit or return).
    pub(crate) fn exec_full(&self) -> bool {
        self.facts.whole_subgroups(self.target.wave.lanes()) && !self.vcode.blocks[self.cur.index()].divergent
    }

    // ----- errors -------------------------------------------------------------------------

    /// "`op` on `ty` has no lowering for `target`: why" — a real gap of the target or of the
    /// options (a forced lowering family that has no sequence for the op).
    pub(crate) fn unsupported(&self, inst: Inst, why: impl Into<String>) -> CompileError {
        let op = self.f.insts[inst].opcode;
        let ty = self.f.first_result(inst).or_else(|| self.f.args(inst).first().copied()).map(|v| self.f.value_type(v));
        CompileError::unsupported(self.target, Some(op), ty, why).at(inst)
    }

    /// The selector had no sequence for `inst`: the options forced one it does not have
    /// (`Unsupported`), or it built none (`Internal`).
    pub(crate) fn no_choice(&self, inst: Inst, e: crate::select::NoChoice, context: &str) -> CompileError {
        match e {
            crate::select::NoChoice::NoCandidate => self.internal(inst, format!("{e}{context}")),
            crate::select::NoChoice::Family { .. } | crate::select::NoChoice::Name { .. } => {
                self.unsupported(inst, format!("{e}{context}"))
            }
        }
    }

    /// A lowering invariant failed on verified MIR: a back-end defect, never the user's error.
    pub(crate) fn internal(&self, inst: Inst, why: impl Into<String>) -> CompileError {
        let op = self.f.insts[inst].opcode;
        CompileError::internal(self.target, format!("`{op}`: {}", why.into())).at(inst)
    }

    // ----- values -------------------------------------------------------------------------

    /// The register class for a value: SGPRs for uniform non-float values and parameters.
    pub(crate) fn cls_of(&self, v: Value) -> Cls {
        let ty = self.f.value_type(v);
        let float = matches!(ty, Type::Scalar(ScalarType::F32 | ScalarType::F64));
        let param = self.f.params.iter().any(|p| p.value == v);
        if !float && (param || self.facts.uniformity().is_uniform(v)) {
            Cls::Scalar
        } else {
            Cls::Vector
        }
    }

    /// True for 64-bit values (i64, u64, f64, global pointers).
    pub(crate) fn is_wide(&self, ty: Type) -> bool {
        match ty {
            Type::Scalar(s) => s.bits() == 64,
            Type::Ptr(AddrSpace::Global, _) => true,
            Type::Ptr(AddrSpace::Shared, _) => false,
        }
    }

    /// Fresh registers for a value of `ty` in class `cls`.
    pub(crate) fn fresh(&mut self, ty: Type, cls: Cls) -> Val {
        match (self.is_wide(ty), cls) {
            (false, Cls::Scalar) => Val::S(self.vcode.new_vreg(SGPR)),
            (false, Cls::Vector) => Val::V(self.vcode.new_vreg(VGPR)),
            (true, Cls::Scalar) => Val::S64(self.vcode.new_vreg(SGPR), self.vcode.new_vreg(SGPR)),
            (true, Cls::Vector) => Val::V64(self.vcode.new_vreg(VGPR64)),
        }
    }

    /// Creates the registers of MIR value `v` (its class from [`Lower::cls_of`]) and records them.
    pub(crate) fn def(&mut self, v: Value) -> Val {
        let val = self.fresh(self.f.value_type(v), self.cls_of(v));
        self.vals[v] = Some(val);
        val
    }

    /// Records existing registers as MIR value `v`.
    pub(crate) fn bind(&mut self, v: Value, val: Val) {
        self.vals[v] = Some(val);
    }

    /// The registers of an already lowered value.
    pub(crate) fn val(&self, v: Value) -> Val {
        self.vals[v]
            .unwrap_or_else(|| panic!("MIR value {v} used before it was lowered (the verifier guarantees dominance)"))
    }

    /// The constant bits of `v` when it is a `const`.
    pub(crate) fn const_bits(&self, v: Value) -> Option<u64> {
        match self.f.values[v].def {
            qd_mir::function::ValueDef::Result(i, _) if self.f.insts[i].opcode == Opcode::Const => {
                match self.f.insts[i].imm {
                    Imm::Const(b) => Some(b),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(crate) fn new_s(&mut self) -> VReg {
        self.vcode.new_vreg(SGPR)
    }

    pub(crate) fn new_v(&mut self) -> VReg {
        self.vcode.new_vreg(VGPR)
    }

    pub(crate) fn new_w(&mut self) -> VReg {
        self.vcode.new_vreg(VGPR64)
    }

    /// The ISA instruction template for this target.
    pub(crate) fn mi(&self, op: Op, ops: &[Operand]) -> MI {
        MI::new_for(self.target, op, ops)
    }

    /// True for wave64.
    pub(crate) fn wave64(&self) -> bool {
        self.target.wave == WaveSize::W64
    }

    /// `vcc` (wave64) or `vcc_lo` (wave32).
    pub(crate) fn vcc(&self) -> Operand {
        self.target.wave.vcc()
    }

    /// `exec` (wave64) or `exec_lo` (wave32).
    pub(crate) fn exec(&self) -> Operand {
        if self.wave64() {
            Operand::Exec
        } else {
            Operand::ExecLo
        }
    }

    // ----- emitting ------------------------------------------------------------------------

    /// Appends an instruction to the current block.
    pub(crate) fn emit(&mut self, mut m: MInst) {
        m.line = self.line;
        self.vcode.blocks[self.cur.index()].insts.push(m);
    }

    /// Appends one ISA instruction with slots from `args`.
    pub(crate) fn emit1(&mut self, op: Op, args: &[A]) {
        let t = self.mi(op, &[]);
        self.emit(MInst::one(t, args));
    }

    /// A 32-bit value in a VGPR: `val` itself, or a copy of an SGPR value.
    pub(crate) fn in_vgpr(&mut self, val: Val) -> Val {
        match val {
            Val::V(_) | Val::V64(_) => val,
            Val::S(s) => {
                let d = self.new_v();
                self.emit1(Op::VMovB32, &[A::D(d), A::U(s)]);
                Val::V(d)
            }
            Val::S64(lo, hi) => {
                let d = self.new_w();
                let mut m = MInst::one(self.mi(Op::VMovB32, &[]), &[A::DL(d), A::U(lo)]);
                m.step(self.mi(Op::VMovB32, &[]), &[A::DH(d), A::U(hi)]);
                self.emit(m);
                Val::V64(d)
            }
        }
    }

    /// A value in SGPRs, read from the first active lane when it is in VGPRs (only correct for
    /// values that are the same on every active lane).
    pub(crate) fn in_sgpr(&mut self, val: Val) -> Val {
        match val {
            Val::S(_) | Val::S64(..) => val,
            Val::V(v) => {
                let d = self.new_s();
                self.emit1(Op::VReadfirstlaneB32, &[A::D(d), A::U(v)]);
                Val::S(d)
            }
            Val::V64(w) => {
                let (lo, hi) = (self.new_s(), self.new_s());
                let mut m = MInst::one(self.mi(Op::VReadfirstlaneB32, &[]), &[A::D(lo), A::UL(w)]);
                m.step(self.mi(Op::VReadfirstlaneB32, &[]), &[A::D(hi), A::UH(w)]);
                self.emit(m);
                Val::S64(lo, hi)
            }
        }
    }

    /// Moves `src` into the registers of `dst` (same width; any classes a move can do).
    pub(crate) fn copy_into(&mut self, dst: Val, src: Val) {
        let mov =
            |cx: &Self, d: VReg| if d.class() == SGPR { cx.mi(Op::SMovB32, &[]) } else { cx.mi(Op::VMovB32, &[]) };
        match (dst, src) {
            (Val::S(d), Val::S(s)) | (Val::V(d), Val::S(s)) | (Val::V(d), Val::V(s)) => {
                let t = mov(self, d);
                self.emit(MInst::one(t, &[A::D(d), A::U(s)]));
            }
            (Val::S(d), Val::V(s)) => self.emit1(Op::VReadfirstlaneB32, &[A::D(d), A::U(s)]),
            (Val::S64(dl, dh), Val::S64(sl, sh)) => {
                let mut m = MInst::one(self.mi(Op::SMovB32, &[]), &[A::D(dl), A::U(sl)]);
                m.step(self.mi(Op::SMovB32, &[]), &[A::D(dh), A::U(sh)]);
                self.emit(m);
            }
            (Val::V64(d), Val::S64(sl, sh)) => {
                let mut m = MInst::one(self.mi(Op::VMovB32, &[]), &[A::DL(d), A::U(sl)]);
                m.step(self.mi(Op::VMovB32, &[]), &[A::DH(d), A::U(sh)]);
                self.emit(m);
            }
            (Val::V64(d), Val::V64(s)) => {
                let mut m = MInst::one(self.mi(Op::VMovB32, &[]), &[A::DL(d), A::UL(s)]);
                m.step(self.mi(Op::VMovB32, &[]), &[A::DH(d), A::UH(s)]);
                self.emit(m);
            }
            (Val::S64(dl, dh), Val::V64(s)) => {
                let mut m = MInst::one(self.mi(Op::VReadfirstlaneB32, &[]), &[A::D(dl), A::UL(s)]);
                m.step(self.mi(Op::VReadfirstlaneB32, &[]), &[A::D(dh), A::UH(s)]);
                self.emit(m);
            }
            (d, s) => panic!("copy between values of different widths: {d:?} <- {s:?}"),
        }
    }

    /// Loads a 32-bit constant into a fresh register of class `cls`.
    pub(crate) fn const32(&mut self, bits: u32, cls: Cls) -> Val {
        match cls {
            Cls::Scalar => {
                let d = self.new_s();
                self.emit1(Op::SMovB32, &[A::D(d), A::K(Operand::imm32(bits))]);
                Val::S(d)
            }
            Cls::Vector => {
                let d = self.new_v();
                self.emit1(Op::VMovB32, &[A::D(d), A::K(Operand::imm32(bits))]);
                Val::V(d)
            }
        }
    }

    // ----- the walk -----------------------------------------------------------------------

    /// Lowers every instruction of a region, in order.
    pub(crate) fn lower_region(&mut self, r: Region) -> Result<(), CompileError> {
        let insts = self.f.regions[r].insts.clone();
        for i in insts {
            // Errors blame the instruction being lowered (the innermost one, for nested regions).
            self.lower_inst(i).map_err(|e| e.at(i))?;
        }
        Ok(())
    }

    /// Lowers one instruction (the exhaustive dispatch over opcodes).
    pub(crate) fn lower_inst(&mut self, i: Inst) -> Result<(), CompileError> {
        self.line = (self.lines)(i).unwrap_or(0);
        use qd_mir::{Collective as C, ExchangeOp as X, IndexOp as I, MemoryOp as M, OpClass, SyncOp as S};
        match self.f.insts[i].opcode.class() {
            OpClass::Const => arith::constant(self, i),
            OpClass::Binary(op) => arith::binary(self, i, op),
            OpClass::Unary(op) => arith::unary(self, i, op),
            OpClass::Fma => arith::fma(self, i),
            OpClass::Select => arith::select(self, i),
            OpClass::Cmp => arith::cmp(self, i),
            OpClass::Cast => arith::cast(self, i),
            OpClass::Bitcast => arith::bitcast(self, i),
            OpClass::Memory(M::SharedAddr) => memory::shared_addr(self, i),
            OpClass::Memory(M::PtrOffset) => memory::ptr_offset(self, i),
            OpClass::Memory(M::Load) => memory::load(self, i),
            OpClass::Memory(M::Store) => memory::store(self, i),
            OpClass::Memory(M::AtomicRmw) => memory::atomic_rmw(self, i),
            OpClass::Memory(M::AtomicCas) => memory::atomic_cas(self, i),
            OpClass::Sync(S::Fence) => memory::fence(self, i),
            OpClass::Sync(S::BlockSync) => memory::block_sync(self, i),
            OpClass::Sync(S::BlockSyncPred) => memory::block_sync_pred(self, i),
            OpClass::Sync(S::Nanosleep) => memory::nanosleep(self, i),
            OpClass::Sync(S::SubgroupSync) => simt::subgroup_sync(self, i),
            OpClass::Index(I::ThreadId) => index::launch_index(self, i, index::Launch::ThreadId),
            OpClass::Index(I::BlockId) => index::launch_index(self, i, index::Launch::BlockId),
            OpClass::Index(I::BlockDim) => index::launch_index(self, i, index::Launch::BlockDim),
            OpClass::Index(I::GridDim) => index::launch_index(self, i, index::Launch::GridDim),
            OpClass::Index(I::LaneId) => index::lane_id(self, i),
            OpClass::Index(I::SubgroupId) => index::subgroup_id(self, i),
            OpClass::Index(I::SubgroupSize) => index::subgroup_size(self, i),
            OpClass::Index(I::LaneMask(m)) => index::lanemask(self, i, m),
            OpClass::Exchange(X::Shuffle(k)) => simt::shuffle(self, i, k),
            OpClass::Exchange(X::Broadcast) => simt::broadcast(self, i),
            OpClass::Exchange(X::Ballot | X::BallotFirstN) => simt::ballot(self, i),
            OpClass::Exchange(X::MatchAny | X::MatchAll) => simt::match_(self, i),
            OpClass::Exchange(X::ActiveMask) => simt::activemask(self, i),
            OpClass::Exchange(X::Elect) => simt::elect(self, i),
            OpClass::Collective(C::VoteAll) => simt::vote(self, i, simt::Vote::All),
            OpClass::Collective(C::VoteAny) => simt::vote(self, i, simt::Vote::Any),
            OpClass::Collective(C::VoteEq) => simt::vote(self, i, simt::Vote::Eq),
            OpClass::Collective(C::Reduce) => simt::collective(self, i, simt::Combine::Reduce),
            OpClass::Collective(C::Scan) => simt::collective(self, i, simt::Combine::Scan),
            OpClass::Collective(C::SegReduce) => simt::collective(self, i, simt::Combine::Segmented),
            OpClass::If => control::if_(self, i),
            OpClass::Loop => control::loop_(self, i),
            OpClass::Terminator(Terminator::Yield) => control::yield_(self, i),
            OpClass::Terminator(Terminator::Break) => control::break_(self, i),
            OpClass::Terminator(Terminator::Continue) => control::continue_(self, i),
            OpClass::Terminator(Terminator::Return) => control::return_(self, i),
        }
    }

    /// Emits the entry: the ABI registers copied into vregs and the grid size loaded.
    pub(crate) fn entry(&mut self) {
        let e = self.entry;
        // One MInst, so nothing runs between the hardware's initial registers and the reads of
        // them: the kernarg loads address `s[0:1]` directly (64-bit parameters as two dwords,
        // which needs no SGPR-pair temporary), then the ids are copied.
        let mut m = MInst::new();
        let kernarg = A::K(Operand::s2(0));
        let load = |cx: &Self, m: &mut MInst, d: VReg, off: u32| {
            m.step(cx.mi(Op::SLoadDword, &[]).imm(off as i32), &[A::D(d), kernarg, A::K(Operand::None)]);
        };
        if self.needs.grid_dim {
            for d in 0..3 {
                load(self, &mut m, e.grid[d], self.kernarg.grid_offset + 4 * d as u32);
            }
        }
        let mut params = Vec::new();
        for (k, p) in self.f.params.iter().enumerate() {
            let off = self.kernarg.params[k].offset;
            let val = self.fresh(p.ty, Cls::Scalar);
            match val {
                Val::S(d) => load(self, &mut m, d, off),
                Val::S64(lo, hi) => {
                    load(self, &mut m, lo, off);
                    load(self, &mut m, hi, off + 4);
                }
                Val::V(_) | Val::V64(_) => unreachable!("parameters are scalar"),
            }
            params.push((p.value, val));
        }
        // Workgroup ids: only the dimensions some `block_id` reads (the others are never used).
        for d in 0..3 {
            if self.needs.block_id[d] {
                let sgpr = crate::abi::workgroup_id_sgpr(self.target) + d as u16;
                m.step(self.mi(Op::SMovB32, &[]), &[A::D(e.block_id[d]), A::K(Operand::s(sgpr))]);
            }
        }
        m.step(self.mi(Op::VAndB32, &[]), &[A::D(e.thread_id[0]), A::K(Operand::imm32(0x3ff)), A::K(Operand::v(0))]);
        for (d, shift) in [(1usize, 10), (2, 20)] {
            if self.f.launch.block[d] > 1 {
                m.step(
                    self.mi(Op::VBfeU32, &[]),
                    &[A::D(e.thread_id[d]), A::K(Operand::v(0)), A::K(Operand::Int(shift)), A::K(Operand::Int(10))],
                );
            } else {
                m.step(self.mi(Op::VMovB32, &[]), &[A::D(e.thread_id[d]), A::K(Operand::Int(0))]);
            }
        }
        self.emit(m);
        for (v, val) in params {
            self.vals[v] = Some(val);
        }
    }

    /// Ends the kernel in the current block.
    pub(crate) fn end_kernel(&mut self) {
        let mut m = MInst::one(self.mi(Op::SEndpgm, &[]), &[]);
        m.term = Term::Ret;
        self.emit(m);
    }
}
