//! The kernel walk: the ABI (storage buffers, the push-constant block, workgroup arrays,
//! built-ins), structured regions → selection and loop constructs, memory ops, and the dispatch
//! of every MIR op to the module that lowers it (an exhaustive match over `Opcode` classes).
//!
//! Control flow: an `if` is `OpSelectionMerge %merge` + `OpBranchConditional`; its results are
//! `OpPhi`s in the merge block fed by the arms' `yield`s. A `loop` is a header block holding the
//! body parameters' φs and `OpLoopMerge %merge %cont`; `continue` branches to the continue block
//! (φs of the continued values, then the back edge), `break` to the merge block (φs of the
//! results), `return` is `OpReturn`. Those are exactly the structured exits SPIR-V allows from any
//! depth of nested selections. A construct no lane leaves normally gets an `OpUnreachable` merge
//! block, and the rest of its region, dead, is not emitted.
//!
//! Pointers: SPIR-V's logical addressing has no pointer values, so a MIR pointer is lowered to a
//! `u32` element index and its base (a buffer parameter or a shared array) is resolved statically
//! by a data-flow pass over the kernel ([`Lower::resolve_bases`]); a pointer whose base differs
//! between paths is a [`CompileError`].

use crate::emit::{Emitter, TyKey};
use crate::scalar::ScalarOp;
use crate::{Binding, CompileError, PushField, SpirvKernel, SpirvOptions};
use cranelift_entity::EntityRef;
use qd_mir::analysis::Layout;
use qd_mir::{
    AddrSpace, AtomicOp, Function, Imm, Inst, KernelFacts, MemoryOp, OpClass, Opcode, Region, ScalarType, Scope,
    SharedArr, SyncOp, Terminator, Type, Value,
};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, Op, StorageClass};

/// Where a pointer points.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// Buffer parameter (its parameter index).
    Buffer(usize),
    /// A shared array.
    Shared(SharedArr),
}

/// A structured construct being lowered: where its terminators go.
enum Frame {
    If { merge: u32, incoming: Vec<(u32, Vec<u32>)> },
    Loop { cont: u32, merge: u32, conts: Vec<(u32, Vec<u32>)>, breaks: Vec<(u32, Vec<u32>)> },
}

/// A storage buffer or workgroup array: its variable and the pointer type of one element.
#[derive(Copy, Clone)]
struct Storage {
    var: u32,
    elem_ptr: u32,
    /// Memory element type (`bool` is stored as `u32`).
    mem_ty: u32,
}

/// Memory semantics: acquire-release on uniform (buffer) and workgroup memory.
pub(crate) const SEM_ACQ_REL_ALL: u64 = 0x8 | 0x40 | 0x100;
/// Scope enumerants.
pub(crate) const SCOPE_DEVICE: u64 = 1;
pub(crate) const SCOPE_WORKGROUP: u64 = 2;
pub(crate) const SCOPE_SUBGROUP: u64 = 3;

/// The lowering state of one kernel.
pub(crate) struct Lower<'a> {
    pub f: &'a Function,
    pub opts: &'a SpirvOptions,
    pub e: Emitter,
    vals: Vec<u32>,
    bases: Vec<Option<Base>>,
    /// The verifier's facts (layout, uniformity, divergent returns).
    facts: &'a KernelFacts,
    /// Every subgroup of a block is whole.
    whole: bool,
    frames: Vec<Frame>,
    pub region: Region,
    pub cur_inst: Option<Inst>,
    builtins: Vec<(BuiltIn, u32)>,
    interface: Vec<u32>,
    buffers: Vec<Option<Storage>>,
    shared: Vec<Option<Storage>>,
    pub sync_slot: Option<u32>,
    /// The kernel has a `block.sync_pred` (it needs a workgroup slot).
    uses_sync_pred: bool,
    /// The subgroup width.
    pub w: u32,
}

/// Lowers one verified kernel with the verifier's facts.
pub(crate) fn lower_kernel(
    f: &Function,
    facts: &KernelFacts,
    opts: &SpirvOptions,
) -> Result<SpirvKernel, CompileError> {
    let env = opts.env;
    let threads = facts.threads();
    if threads > opts.caps.max_workgroup_invocations {
        return Err(CompileError::limit(
            env,
            "threads per block (maxComputeWorkGroupInvocations)",
            u64::from(threads),
            u64::from(opts.caps.max_workgroup_invocations),
        ));
    }
    let w = opts.caps.subgroup_size;
    let mut lw = Lower {
        f,
        opts,
        e: Emitter::new(),
        vals: vec![0; f.values.len()],
        bases: vec![None; f.values.len()],
        facts,
        whole: facts.whole_subgroups(w),
        frames: Vec::new(),
        region: f.body,
        cur_inst: None,
        builtins: Vec::new(),
        interface: Vec::new(),
        buffers: vec![None; f.params.len()],
        shared: vec![None; f.shared.len()],
        sync_slot: None,
        uses_sync_pred: false,
        w,
    };
    lw.resolve_bases()?;
    let main = lw.e.id();
    let entry = lw.e.id();
    lw.e.begin(entry);

    // Parameters: buffers, then the push-constant block.
    let mut bindings = Vec::new();
    let mut push = Vec::new();
    let mut offset = 0u32;
    for (i, p) in f.params.iter().enumerate() {
        match p.ty {
            Type::Ptr(AddrSpace::Global, elem) => {
                let (mem, stride) =
                    if elem == ScalarType::Bool { (lw.int_ty(32), 4) } else { (lw.ty_for(elem, None)?, elem.bytes()) };
                let arr = lw.e.ty(TyKey::RuntimeArray(mem, stride));
                let st = lw.e.ty(TyKey::BufferStruct(arr));
                let ptr = lw.e.ty(TyKey::Ptr(StorageClass::StorageBuffer, st));
                let var = lw.e.global_var(ptr, StorageClass::StorageBuffer);
                let binding = bindings.len() as u32;
                lw.e.decorate(var, Decoration::DescriptorSet, &[0]);
                lw.e.decorate(var, Decoration::Binding, &[binding]);
                let elem_ptr = lw.e.ty(TyKey::Ptr(StorageClass::StorageBuffer, mem));
                lw.buffers[i] = Some(Storage { var, elem_ptr, mem_ty: mem });
                lw.interface_global(var);
                bindings.push(Binding { param: i, set: 0, binding, elem });
                lw.vals[p.value.index()] = lw.c_u32(0);
            }
            Type::Ptr(AddrSpace::Shared, _) => {
                return Err(CompileError::internal(
                    env,
                    format!("parameter %{} is a shared pointer, which the verifier rejects", p.name),
                ))
            }
            Type::Scalar(s) => {
                let field = PushField { param: i, offset: 0, ty: s };
                let bytes = field.bytes();
                offset = offset.next_multiple_of(bytes);
                push.push(PushField { offset, ..field });
                offset += bytes;
            }
        }
    }
    let push_bytes = offset.next_multiple_of(4);
    if !push.is_empty() {
        let mut members = Vec::with_capacity(push.len());
        for pf in &push {
            members.push(if pf.ty == ScalarType::Bool { lw.int_ty(32) } else { lw.ty_for(pf.ty, None)? });
        }
        let st = lw.e.struct_ty(&members);
        lw.e.decorate(st, Decoration::Block, &[]);
        for (m, pf) in push.iter().enumerate() {
            lw.e.member_decorate(st, m as u32, Decoration::Offset, &[pf.offset]);
        }
        let ptr = lw.e.ty(TyKey::Ptr(StorageClass::PushConstant, st));
        let var = lw.e.global_var(ptr, StorageClass::PushConstant);
        lw.interface_global(var);
        for (m, pf) in push.iter().enumerate() {
            let mty = members[m];
            let mptr = lw.e.ty(TyKey::Ptr(StorageClass::PushConstant, mty));
            let idx = lw.c_u32(m as u32);
            let p = lw.e.op(Op::AccessChain, mptr, &[var, idx]);
            let x = lw.e.op(Op::Load, mty, &[p]);
            let v = if pf.ty == ScalarType::Bool {
                let (b, z) = (lw.bool_ty(), lw.c_u32(0));
                lw.e.op(Op::INotEqual, b, &[x, z])
            } else {
                x
            };
            lw.vals[f.params[pf.param].value.index()] = v;
        }
    }

    // Shared arrays (bool elements as u32 words) and the zero fill. The verifier bounds the sum of
    // the arrays' sizes; bools as words and the alignment may still take it past the device's.
    let mut shared_bytes = 0u64;
    for (arr, data) in f.shared.iter() {
        let mem = if data.elem == ScalarType::Bool { lw.int_ty(32) } else { lw.ty_for(data.elem, None)? };
        let bytes = if data.elem == ScalarType::Bool { 4 } else { data.elem.bytes() };
        shared_bytes = shared_bytes.next_multiple_of(8) + u64::from(bytes) * u64::from(data.len);
        let len = lw.c_u32(data.len);
        let at = lw.e.ty(TyKey::Array(mem, len));
        let ptr = lw.e.ty(TyKey::Ptr(StorageClass::Workgroup, at));
        let var = lw.e.global_var(ptr, StorageClass::Workgroup);
        let elem_ptr = lw.e.ty(TyKey::Ptr(StorageClass::Workgroup, mem));
        lw.interface_global(var);
        lw.shared[arr.index()] = Some(Storage { var, elem_ptr, mem_ty: mem });
    }
    if lw.uses_sync_pred {
        let u = lw.int_ty(32);
        let ptr = lw.e.ty(TyKey::Ptr(StorageClass::Workgroup, u));
        let var = lw.e.global_var(ptr, StorageClass::Workgroup);
        lw.interface_global(var);
        lw.sync_slot = Some(var);
        shared_bytes = shared_bytes.next_multiple_of(8) + 4;
    }
    let max_shared = opts.caps.max_shared_bytes;
    let shared_bytes = u32::try_from(shared_bytes).ok().filter(|&b| b <= max_shared).ok_or_else(|| {
        CompileError::limit(
            env,
            "bytes of workgroup memory (maxComputeSharedMemorySize)",
            shared_bytes,
            u64::from(max_shared),
        )
    })?;
    if shared_bytes > 0 {
        lw.zero_shared()?;
    }

    lw.lower_region(f.body)?;
    if lw.e.cur.is_some() {
        lw.e.terminate(Op::Return, &[]);
    }
    let interface = std::mem::take(&mut lw.interface);
    // Float controls: keep IEEE signed zeros, infinities and NaNs for every float width used,
    // where the device supports it (else the driver may fold `x + 0.0` to `x`).
    let mut modes = Vec::new();
    for (i, bits) in [32u32, 64].into_iter().enumerate() {
        if lw.e.has_ty(TyKey::Float(bits)) && opts.caps.signed_zero_inf_nan_preserve[i] {
            lw.e.capability(Capability::SignedZeroInfNanPreserve);
            if env.spirv_version() < (1, 4) {
                lw.e.extension("SPV_KHR_float_controls");
            }
            modes.push((spirv::ExecutionMode::SignedZeroInfNanPreserve as u32, bits));
        }
    }
    // 1-D workgroups: `thread_id` derives x, y, z from the linear index (`subgroup.rs`).
    let local_size = [f.launch.block.iter().product::<u32>(), 1, 1];
    let words = lw.e.finish(env.spirv_version(), local_size, &interface, main, &modes);
    Ok(SpirvKernel {
        name: f.name.clone(),
        words,
        env,
        local_size,
        bindings,
        push_constant_bytes: push_bytes,
        push_constants: push,
        shared_bytes,
    })
}

impl Lower<'_> {
    /// A variable goes in the entry point's interface: Input variables always, every other
    /// global from SPIR-V 1.4 on.
    fn interface_global(&mut self, var: u32) {
        if self.opts.env.spirv_version() >= (1, 4) {
            self.interface.push(var);
        }
    }

    /// The id of a value (pointers: their element index).
    pub(crate) fn v(&self, v: Value) -> Result<u32, CompileError> {
        match self.vals.get(v.index()) {
            Some(&id) if id != 0 => Ok(id),
            _ => Err(self.internal(format!("value {v} used before its definition"))),
        }
    }

    /// The result of `inst` (verified MIR has it).
    pub(crate) fn result(&self, inst: Inst) -> Result<Value, CompileError> {
        self.f.first_result(inst).ok_or_else(|| self.internal("an instruction without its result"))
    }

    /// Binds a MIR value to an id.
    pub(crate) fn set(&mut self, v: Value, id: u32) {
        if let Some(slot) = self.vals.get_mut(v.index()) {
            *slot = id;
        }
    }

    /// The scalar type of a value (pointers count as their `u32` index).
    pub(crate) fn scalar(&self, v: Value) -> ScalarType {
        match self.f.value_type(v) {
            Type::Scalar(s) => s,
            Type::Ptr(..) => ScalarType::U32,
        }
    }

    /// The op being lowered.
    pub(crate) fn cur_op(&self) -> Option<Opcode> {
        self.cur_inst.map(|i| self.f.insts[i].opcode)
    }

    /// The target has no lowering of the current op at `ty`.
    pub(crate) fn unsupported(&self, ty: Option<ScalarType>, why: impl Into<String>) -> CompileError {
        CompileError::unsupported(self.opts.env, self.cur_op(), ty.map(Type::Scalar), why)
    }

    /// A defect: verified MIR never gets here.
    pub(crate) fn internal(&self, message: impl Into<String>) -> CompileError {
        CompileError::internal(self.opts.env, message)
    }

    /// Declares a capability the device must support (`have`), or an error naming it, the
    /// device feature and the op that needs it.
    pub(crate) fn need(&mut self, cap: Capability, have: bool, feature: &str) -> Result<(), CompileError> {
        if !have {
            return Err(CompileError::missing_capability(self.opts.env, format!("{cap:?} ({feature})"), self.cur_op()));
        }
        self.e.capability(cap);
        Ok(())
    }

    /// `GroupNonUniform` + a subgroup capability the device must report.
    pub(crate) fn need_subgroup(&mut self, cap: Capability) -> Result<(), CompileError> {
        let o = self.opts.caps.subgroup_ops;
        let (have, feature) = match cap {
            Capability::GroupNonUniformVote => (o.vote, "subgroup VOTE operations"),
            Capability::GroupNonUniformArithmetic => (o.arithmetic, "subgroup ARITHMETIC operations"),
            Capability::GroupNonUniformBallot => (o.ballot, "subgroup BALLOT operations"),
            Capability::GroupNonUniformShuffle => (o.shuffle, "subgroup SHUFFLE operations"),
            Capability::GroupNonUniformShuffleRelative => (o.shuffle_relative, "subgroup SHUFFLE_RELATIVE operations"),
            Capability::GroupNonUniformClustered => (o.clustered, "subgroup CLUSTERED operations"),
            Capability::GroupNonUniformQuad => (o.quad, "subgroup QUAD operations"),
            _ => (o.basic, "subgroup BASIC operations"),
        };
        self.need(Capability::GroupNonUniform, o.basic, "subgroup BASIC operations")?;
        self.need(cap, have, feature)
    }

    pub(crate) fn bool_ty(&mut self) -> u32 {
        self.e.ty(TyKey::Bool)
    }

    /// The `width`-bit integer type (64 needs `Int64`; the caller checks it).
    pub(crate) fn int_ty(&mut self, width: u32) -> u32 {
        self.e.ty(TyKey::Int(width))
    }

    /// The SPIR-V type of a scalar type, checking `Int64` / `Float64` (the error names `ty`).
    pub(crate) fn ty_for(&mut self, s: ScalarType, _hint: Option<()>) -> Result<u32, CompileError> {
        Ok(match s {
            ScalarType::Bool => self.bool_ty(),
            ScalarType::I32 | ScalarType::U32 => self.int_ty(32),
            ScalarType::I64 | ScalarType::U64 => {
                self.need(Capability::Int64, self.opts.caps.int64, "64-bit integers (shaderInt64)")?;
                self.int_ty(64)
            }
            ScalarType::F32 => self.e.ty(TyKey::Float(32)),
            ScalarType::F64 => {
                self.need(Capability::Float64, self.opts.caps.float64, "64-bit floats (shaderFloat64)")?;
                self.e.ty(TyKey::Float(64))
            }
        })
    }

    /// The SPIR-V type of a scalar type.
    pub(crate) fn ty(&mut self, s: ScalarType) -> Result<u32, CompileError> {
        self.ty_for(s, None)
    }

    /// A `u32` constant.
    pub(crate) fn c_u32(&mut self, v: u32) -> u32 {
        let t = self.int_ty(32);
        self.e.constant(t, 32, u64::from(v))
    }

    /// A constant of a scalar type from its canonical bits.
    pub(crate) fn c(&mut self, s: ScalarType, bits: u64) -> Result<u32, CompileError> {
        if s == ScalarType::Bool {
            return Ok(self.e.bool_const(bits & 1 != 0));
        }
        let t = self.ty(s)?;
        Ok(self.e.constant(t, s.bits(), if s.bits() == 32 { bits & 0xffff_ffff } else { bits }))
    }

    /// The value of an `Input` built-in (declared once), loaded at the current point.
    pub(crate) fn builtin(&mut self, b: BuiltIn) -> Result<u32, CompileError> {
        let vec3 = matches!(b, BuiltIn::LocalInvocationId | BuiltIn::WorkgroupId | BuiltIn::NumWorkgroups);
        let u = self.int_ty(32);
        let ty = if vec3 { self.e.ty(TyKey::Vector(u, 3)) } else { u };
        if matches!(b, BuiltIn::SubgroupLocalInvocationId | BuiltIn::SubgroupId) {
            self.need_subgroup(Capability::GroupNonUniform)?;
        }
        let var = match self.builtins.iter().find(|(k, _)| *k == b) {
            Some(&(_, var)) => var,
            None => {
                let ptr = self.e.ty(TyKey::Ptr(StorageClass::Input, ty));
                let var = self.e.global_var(ptr, StorageClass::Input);
                self.e.decorate(var, Decoration::BuiltIn, &[b as u32]);
                self.builtins.push((b, var));
                self.interface.push(var);
                var
            }
        };
        Ok(self.e.op(Op::Load, ty, &[var]))
    }

    /// One component of a `uvec3` built-in.
    pub(crate) fn builtin_dim(&mut self, b: BuiltIn, dim: usize) -> Result<u32, CompileError> {
        let v = self.builtin(b)?;
        let u = self.int_ty(32);
        Ok(self.e.op(Op::CompositeExtract, u, &[v, dim as u32]))
    }

    /// The linear thread index in the block (x fastest).
    pub(crate) fn linear_tid(&mut self) -> Result<u32, CompileError> {
        self.builtin(BuiltIn::LocalInvocationIndex)
    }

    /// The lane index.
    pub(crate) fn lane(&mut self) -> Result<u32, CompileError> {
        self.builtin(BuiltIn::SubgroupLocalInvocationId)
    }

    /// Every lane of the subgroup is known active in the current region.
    pub(crate) fn full_activity(&self) -> bool {
        self.whole && self.converged()
    }

    /// The current region is uniform and no lane has returned early: a subgroup barrier is safe.
    pub(crate) fn converged(&self) -> bool {
        !self.facts.divergent_return() && self.facts.uniformity().is_uniform_region(self.region)
    }

    /// Zero-fills every workgroup variable (the interpreter's documented start state), each
    /// thread a strided share, then one workgroup barrier.
    fn zero_shared(&mut self) -> Result<(), CompileError> {
        let threads: u32 = self.f.launch.block.iter().product();
        let tid = self.linear_tid()?;
        let step = self.c_u32(threads);
        let mut arrays: Vec<(Storage, u32)> = Vec::new();
        for (arr, data) in self.f.shared.iter() {
            if let Some(s) = self.shared[arr.index()] {
                arrays.push((s, data.len));
            }
        }
        for (s, len) in arrays {
            let end = self.c_u32(len);
            let zero = self.e.constant_null(s.mem_ty);
            crate::control::counted_loop(self, tid, end, step, |lw, i| {
                let p = lw.e.op(Op::AccessChain, s.elem_ptr, &[s.var, i]);
                lw.e.op_void(Op::Store, &[p, zero]);
                Ok(())
            })?;
        }
        if let Some(slot) = self.sync_slot {
            let z = self.c_u32(0);
            self.e.op_void(Op::Store, &[slot, z]);
        }
        self.block_barrier();
        Ok(())
    }

    /// `OpControlBarrier Workgroup Workgroup AcquireRelease|UniformMemory|WorkgroupMemory`.
    pub(crate) fn block_barrier(&mut self) {
        let (s, m) = (self.c_u32(SCOPE_WORKGROUP as u32), self.c_u32(SEM_ACQ_REL_ALL as u32));
        self.e.op_void(Op::ControlBarrier, &[s, s, m]);
    }

    pub(crate) fn lower_region(&mut self, region: Region) -> Result<(), CompileError> {
        let (saved, saved_inst) = (self.region, self.cur_inst);
        self.region = region;
        let f = self.f;
        for &inst in &f.regions[region].insts {
            if self.e.cur.is_none() {
                break; // the rest of the region is unreachable
            }
            self.cur_inst = Some(inst);
            self.lower_inst(inst).map_err(|e| e.at(inst))?;
        }
        (self.region, self.cur_inst) = (saved, saved_inst);
        Ok(())
    }

    fn lower_inst(&mut self, inst: Inst) -> Result<(), CompileError> {
        use crate::scalar;
        use crate::subgroup;
        let f = self.f;
        match f.insts[inst].opcode.class() {
            OpClass::Const => scalar::lower(self, inst, ScalarOp::Const),
            OpClass::Binary(op) => scalar::lower(self, inst, ScalarOp::Binary(op)),
            OpClass::Unary(op) => scalar::lower(self, inst, ScalarOp::Unary(op)),
            OpClass::Fma => scalar::lower(self, inst, ScalarOp::Fma),
            OpClass::Select => scalar::lower(self, inst, ScalarOp::Select),
            OpClass::Cmp => scalar::lower(self, inst, ScalarOp::Cmp),
            OpClass::Cast => scalar::lower(self, inst, ScalarOp::Cast),
            OpClass::Bitcast => scalar::lower(self, inst, ScalarOp::Bitcast),
            OpClass::Memory(op) => self.lower_memory(inst, op),
            OpClass::Index(op) => subgroup::index(self, inst, op),
            OpClass::Exchange(op) => subgroup::exchange(self, inst, op),
            OpClass::Collective(op) => subgroup::collective(self, inst, op),
            OpClass::Sync(op) => subgroup::sync(self, inst, op),
            OpClass::If => self.lower_if(inst),
            OpClass::Loop => self.lower_loop(inst),
            OpClass::Terminator(t) => {
                let args = f.args(inst);
                let srcs: Vec<u32> = args.iter().map(|&v| self.v(v)).collect::<Result<_, _>>()?;
                use Terminator as T;
                match t {
                    T::Return => {
                        self.e.terminate(Op::Return, &[]);
                        Ok(())
                    }
                    T::Yield => {
                        let label = self.e.cur_label();
                        let Some(Frame::If { merge, incoming }) = self.frames.last_mut() else {
                            return Err(self.internal("`yield` outside an `if`"));
                        };
                        incoming.push((label, srcs));
                        let merge = *merge;
                        self.e.branch(merge);
                        Ok(())
                    }
                    T::Break | T::Continue => {
                        let label = self.e.cur_label();
                        let Some(frame) = self.frames.iter_mut().rev().find(|fr| matches!(fr, Frame::Loop { .. }))
                        else {
                            return Err(self.internal("`break`/`continue` outside a loop"));
                        };
                        let Frame::Loop { cont, merge, conts, breaks } = frame else {
                            return Err(self.internal("`break`/`continue` outside a loop"));
                        };
                        let target = if t == T::Break {
                            breaks.push((label, srcs));
                            *merge
                        } else {
                            conts.push((label, srcs));
                            *cont
                        };
                        self.e.branch(target);
                        Ok(())
                    }
                }
            }
        }
    }

    fn lower_if(&mut self, inst: Inst) -> Result<(), CompileError> {
        let f = self.f;
        let cond = self.v(f.args(inst)[0])?;
        let regions: Vec<Region> = f.inst_regions(inst).collect();
        let merge = self.e.id();
        let then_l = self.e.id();
        let else_l = if regions.len() > 1 { self.e.id() } else { merge };
        let header = self.e.cur_label();
        self.e.op_void(Op::SelectionMerge, &[merge, 0]);
        self.e.terminate(Op::BranchConditional, &[cond, then_l, else_l]);
        let mut incoming = Vec::new();
        if regions.len() < 2 {
            if !f.inst_results(inst).is_empty() {
                return Err(self.internal("an `if` with results and no else arm"));
            }
            incoming.push((header, Vec::new()));
        }
        self.frames.push(Frame::If { merge, incoming });
        for (k, &r) in regions.iter().enumerate() {
            self.e.begin(if k == 0 { then_l } else { else_l });
            self.lower_region(r)?;
            if self.e.cur.is_some() {
                // Only unverified MIR falls off an arm; treat it as a bare `yield`.
                self.e.terminate(Op::Unreachable, &[]);
            }
        }
        let Some(Frame::If { incoming, .. }) = self.frames.pop() else {
            return Err(self.internal("unbalanced structure"));
        };
        self.e.begin(merge);
        self.merge_phis(f.inst_results(inst), &incoming)
    }

    /// At the start of the current block: one φ per result from the incoming edges, or
    /// `OpUnreachable` when none reaches it.
    fn merge_phis(&mut self, results: &[Value], incoming: &[(u32, Vec<u32>)]) -> Result<(), CompileError> {
        if incoming.is_empty() {
            self.e.terminate(Op::Unreachable, &[]);
            return Ok(());
        }
        let block = self.e.cur_index();
        for (k, &r) in results.iter().enumerate() {
            let ty = self.ty(self.scalar(r))?;
            let id = self.e.id();
            let edges: Vec<(u32, u32)> = incoming.iter().map(|(l, vs)| (vs.get(k).copied().unwrap_or(0), *l)).collect();
            if edges.iter().any(|&(v, _)| v == 0) {
                return Err(self.internal("a terminator passes too few values"));
            }
            self.e.phi_in(block, ty, id, &edges);
            self.set(r, id);
        }
        Ok(())
    }

    fn lower_loop(&mut self, inst: Inst) -> Result<(), CompileError> {
        let f = self.f;
        let body = f.inst_regions(inst).next().ok_or_else(|| self.internal("a loop without a body"))?;
        let inits: Vec<u32> = f.args(inst).iter().map(|&v| self.v(v)).collect::<Result<_, _>>()?;
        let params = f.region_params(body);
        let mut ptys = Vec::with_capacity(params.len());
        for &p in params {
            ptys.push(self.ty(self.scalar(p))?);
        }
        let pre = self.e.cur_label();
        let (header, body_l, cont, merge) = (self.e.id(), self.e.id(), self.e.id(), self.e.id());
        self.e.branch(header);
        self.e.begin(header);
        let header_idx = self.e.cur_index();
        let phi_ids: Vec<u32> = params.iter().map(|_| self.e.id()).collect();
        for (&p, &id) in params.iter().zip(&phi_ids) {
            self.set(p, id);
        }
        self.e.op_void(Op::LoopMerge, &[merge, cont, 0]);
        self.e.branch(body_l);
        self.frames.push(Frame::Loop { cont, merge, conts: Vec::new(), breaks: Vec::new() });
        self.e.begin(body_l);
        self.lower_region(body)?;
        if self.e.cur.is_some() {
            self.e.terminate(Op::Unreachable, &[]);
        }
        let Some(Frame::Loop { conts, breaks, .. }) = self.frames.pop() else {
            return Err(self.internal("unbalanced structure"));
        };
        // The continue block: φs of the continued values, then the back edge.
        self.e.begin(cont);
        let cont_idx = self.e.cur_index();
        let mut next = Vec::with_capacity(params.len());
        for (k, &ty) in ptys.iter().enumerate() {
            if conts.is_empty() {
                next.push(self.e.undef(ty));
            } else {
                let id = self.e.id();
                let edges: Vec<(u32, u32)> =
                    conts.iter().map(|(l, vs)| (vs.get(k).copied().unwrap_or(0), *l)).collect();
                if edges.iter().any(|&(v, _)| v == 0) {
                    return Err(self.internal("`continue` passes too few values"));
                }
                self.e.phi_in(cont_idx, ty, id, &edges);
                next.push(id);
            }
        }
        self.e.branch(header);
        for (k, &ty) in ptys.iter().enumerate() {
            self.e.phi_in(header_idx, ty, phi_ids[k], &[(inits[k], pre), (next[k], cont)]);
        }
        self.e.begin(merge);
        self.merge_phis(f.inst_results(inst), &breaks)
    }

    /// Resolves the base of every pointer value: a fixed point over the edges a pointer flows
    /// along (`ptr.offset`, `select`, loop entries, yields, breaks and continues), collected in
    /// one walk (which also notes a `block.sync_pred`); a pointer with two possible bases is an
    /// error.
    fn resolve_bases(&mut self) -> Result<(), CompileError> {
        let f = self.f;
        let layout = self.facts.layout();
        for (i, p) in f.params.iter().enumerate() {
            if p.ty.is_ptr() {
                self.bases[p.value.index()] = Some(Base::Buffer(i));
            }
        }
        // (destination, source, the instruction that passes it on)
        let mut edges: Vec<(Value, Value, Inst)> = Vec::new();
        let is_ptr = |v: Value| f.value_type(v).is_ptr();
        for &inst in layout.insts() {
            let data = &f.insts[inst];
            let args = f.args(inst);
            match data.opcode.class() {
                OpClass::Memory(MemoryOp::SharedAddr) => {
                    if let (Imm::Shared(arr), Some(r)) = (data.imm, f.first_result(inst)) {
                        self.bases[r.index()] = Some(Base::Shared(arr));
                    }
                }
                OpClass::Memory(MemoryOp::PtrOffset) => {
                    if let (Some(r), Some(&p)) = (f.first_result(inst), args.first()) {
                        edges.push((r, p, inst));
                    }
                }
                OpClass::Select => {
                    if let Some(r) = f.first_result(inst).filter(|&r| is_ptr(r)) {
                        edges.extend(args.iter().skip(1).map(|&a| (r, a, inst)));
                    }
                }
                OpClass::Loop => {
                    if let Some(body) = f.inst_regions(inst).next() {
                        let params = f.region_params(body).iter().zip(args);
                        edges.extend(params.filter(|(&p, _)| is_ptr(p)).map(|(&p, &a)| (p, a, inst)));
                    }
                }
                OpClass::Terminator(t) => {
                    if let Some(target) = terminator_targets(f, layout, inst, t) {
                        let pairs = target.iter().zip(args);
                        edges.extend(pairs.filter(|(&d, _)| is_ptr(d)).map(|(&d, &s)| (d, s, inst)));
                    }
                }
                // No other op makes a pointer or passes one on.
                OpClass::Memory(MemoryOp::Load | MemoryOp::Store | MemoryOp::AtomicRmw | MemoryOp::AtomicCas)
                | OpClass::Const
                | OpClass::Binary(_)
                | OpClass::Unary(_)
                | OpClass::Fma
                | OpClass::Cmp
                | OpClass::Cast
                | OpClass::Bitcast
                | OpClass::Index(_)
                | OpClass::Exchange(_)
                | OpClass::Collective(_)
                | OpClass::Sync(SyncOp::SubgroupSync | SyncOp::BlockSync | SyncOp::Fence | SyncOp::Nanosleep)
                | OpClass::If => {}
                OpClass::Sync(SyncOp::BlockSyncPred) => self.uses_sync_pred = true,
            }
        }
        // Each round that changes something gives one more value its base: at most one round
        // per edge, and a last one that changes nothing.
        for _round in 0..=edges.len() {
            let mut changed = false;
            for &(dst, src, inst) in &edges {
                let Some(b) = self.bases[src.index()] else { continue };
                match self.bases[dst.index()] {
                    None => {
                        self.bases[dst.index()] = Some(b);
                        changed = true;
                    }
                    Some(old) if old != b => {
                        let why = "a pointer here may point into two different buffers or shared arrays; \
                                   SPIR-V's logical addressing needs one base per pointer";
                        let op = f.insts[inst].opcode;
                        let e = CompileError::unsupported(self.opts.env, Some(op), Some(f.value_type(dst)), why);
                        return Err(e.at(inst));
                    }
                    Some(_) => {}
                }
            }
            if !changed {
                break;
            }
        }
        Ok(())
    }

    /// The base and element type of a pointer value.
    fn ptr_info(&self, p: Value) -> Result<(Base, AddrSpace, ScalarType), CompileError> {
        let Type::Ptr(space, elem) = self.f.value_type(p) else {
            return Err(self.internal("not a pointer"));
        };
        let base = self.bases[p.index()].ok_or_else(|| self.internal("a pointer whose base is unknown"))?;
        Ok((base, space, elem))
    }

    fn storage(&self, base: Base) -> Result<Storage, CompileError> {
        let s = match base {
            Base::Buffer(i) => self.buffers.get(i).copied().flatten(),
            Base::Shared(a) => self.shared.get(a.index()).copied().flatten(),
        };
        s.ok_or_else(|| self.internal("a pointer into an undeclared buffer or shared array"))
    }

    /// The element pointer for an index.
    fn elem_ptr(&mut self, s: Storage, base: Base, idx: u32) -> u32 {
        match base {
            Base::Buffer(_) => {
                let z = self.c_u32(0);
                self.e.op(Op::AccessChain, s.elem_ptr, &[s.var, z, idx])
            }
            Base::Shared(_) => self.e.op(Op::AccessChain, s.elem_ptr, &[s.var, idx]),
        }
    }

    /// For a byte-addressed `bool` buffer: the word pointer and the bit shift of the byte.
    fn bool_word(&mut self, s: Storage, base: Base, idx: u32) -> (u32, u32) {
        let u = self.int_ty(32);
        let (two, three) = (self.c_u32(2), self.c_u32(3));
        let wi = self.e.op(Op::ShiftRightLogical, u, &[idx, two]);
        let p = self.elem_ptr(s, base, wi);
        let b = self.e.op(Op::BitwiseAnd, u, &[idx, three]);
        let sh = self.e.op(Op::ShiftLeftLogical, u, &[b, three]);
        (p, sh)
    }

    fn lower_memory(&mut self, inst: Inst, op: MemoryOp) -> Result<(), CompileError> {
        let f = self.f;
        let data = &f.insts[inst];
        let args = f.args(inst);
        let u = self.int_ty(32);
        match op {
            MemoryOp::SharedAddr => {
                let r = self.result(inst)?;
                let z = self.c_u32(0);
                self.set(r, z);
                Ok(())
            }
            MemoryOp::PtrOffset => {
                let r = self.result(inst)?;
                let (p, i) = (self.v(args[0])?, self.v(args[1])?);
                let it = self.scalar(args[1]);
                let i32_ = if it.bits() == 64 { self.e.op(Op::UConvert, u, &[i]) } else { i };
                let zero = self.c_u32(0);
                let d = if p == zero { i32_ } else { self.e.op(Op::IAdd, u, &[p, i32_]) };
                self.set(r, d);
                Ok(())
            }
            MemoryOp::Load => {
                let r = self.result(inst)?;
                let (base, space, elem) = self.ptr_info(args[0])?;
                let s = self.storage(base)?;
                let idx = self.v(args[0])?;
                let d = if elem == ScalarType::Bool {
                    let b = self.bool_ty();
                    let z = self.c_u32(0);
                    if space == AddrSpace::Global {
                        let (p, sh) = self.bool_word(s, base, idx);
                        let word = self.e.op(Op::Load, u, &[p]);
                        let x = self.e.op(Op::ShiftRightLogical, u, &[word, sh]);
                        let ff = self.c_u32(0xff);
                        let byte = self.e.op(Op::BitwiseAnd, u, &[x, ff]);
                        self.e.op(Op::INotEqual, b, &[byte, z])
                    } else {
                        let p = self.elem_ptr(s, base, idx);
                        let x = self.e.op(Op::Load, u, &[p]);
                        self.e.op(Op::INotEqual, b, &[x, z])
                    }
                } else {
                    let p = self.elem_ptr(s, base, idx);
                    self.e.op(Op::Load, s.mem_ty, &[p])
                };
                self.set(r, d);
                Ok(())
            }
            MemoryOp::Store => {
                let (base, space, elem) = self.ptr_info(args[0])?;
                let s = self.storage(base)?;
                let (idx, v) = (self.v(args[0])?, self.v(args[1])?);
                if elem == ScalarType::Bool {
                    let (one, z) = (self.c_u32(1), self.c_u32(0));
                    let x = self.e.op(Op::Select, u, &[v, one, z]);
                    if space == AddrSpace::Global {
                        // Two atomics on the containing word: clear the byte, then set its bit.
                        let (p, sh) = self.bool_word(s, base, idx);
                        let ff = self.c_u32(0xff);
                        let m = self.e.op(Op::ShiftLeftLogical, u, &[ff, sh]);
                        let keep = self.e.op(Op::Not, u, &[m]);
                        let set = self.e.op(Op::ShiftLeftLogical, u, &[x, sh]);
                        let (scope, sem) = (self.c_u32(SCOPE_DEVICE as u32), self.c_u32(0));
                        self.e.op(Op::AtomicAnd, u, &[p, scope, sem, keep]);
                        self.e.op(Op::AtomicOr, u, &[p, scope, sem, set]);
                    } else {
                        let p = self.elem_ptr(s, base, idx);
                        self.e.op_void(Op::Store, &[p, x]);
                    }
                } else {
                    let p = self.elem_ptr(s, base, idx);
                    self.e.op_void(Op::Store, &[p, v]);
                }
                Ok(())
            }
            MemoryOp::AtomicRmw | MemoryOp::AtomicCas => {
                let r = self.result(inst)?;
                let (base, space, elem) = self.ptr_info(args[0])?;
                let (aop, scope) = match data.imm {
                    Imm::Atomic(op, s) => (Some(op), s),
                    Imm::Scope(s) => (None, s),
                    _ => return Err(self.internal("malformed immediate")),
                };
                if elem == ScalarType::Bool {
                    return Err(self.internal("an atomic on bool elements, which the verifier rejects"));
                }
                let ty = self.ty(elem)?;
                if elem.bits() == 64 {
                    self.need(Capability::Int64Atomics, self.opts.caps.int64_atomics, "64-bit atomics")?;
                }
                let s = self.storage(base)?;
                let idx = self.v(args[0])?;
                let p = self.elem_ptr(s, base, idx);
                let sc = match (space, scope) {
                    (AddrSpace::Global, Scope::Device) => SCOPE_DEVICE,
                    _ => SCOPE_WORKGROUP,
                };
                let (scope_id, sem) = (self.c_u32(sc as u32), self.c_u32(0));
                let d = match aop {
                    None => {
                        let (c, n) = (self.v(args[1])?, self.v(args[2])?);
                        self.e.op(Op::AtomicCompareExchange, ty, &[p, scope_id, sem, sem, n, c])
                    }
                    Some(op) => {
                        let x = self.v(args[1])?;
                        let sop = match (op, elem) {
                            (AtomicOp::Add, ScalarType::F32) => {
                                self.need(
                                    Capability::AtomicFloat32AddEXT,
                                    self.opts.caps.float32_atomic_add,
                                    "32-bit float atomic add (shaderBufferFloat32AtomicAdd)",
                                )?;
                                self.e.extension("SPV_EXT_shader_atomic_float_add");
                                Op::AtomicFAddEXT
                            }
                            (AtomicOp::Add, _) if elem.is_int() => Op::AtomicIAdd,
                            (AtomicOp::Min, _) if elem.is_int() => {
                                if elem.is_signed() {
                                    Op::AtomicSMin
                                } else {
                                    Op::AtomicUMin
                                }
                            }
                            (AtomicOp::Max, _) if elem.is_int() => {
                                if elem.is_signed() {
                                    Op::AtomicSMax
                                } else {
                                    Op::AtomicUMax
                                }
                            }
                            (AtomicOp::And, _) if elem.is_int() => Op::AtomicAnd,
                            (AtomicOp::Or, _) if elem.is_int() => Op::AtomicOr,
                            (AtomicOp::Xor, _) if elem.is_int() => Op::AtomicXor,
                            (AtomicOp::Exch, _) => Op::AtomicExchange,
                            _ => {
                                return Err(self.internal(format!(
                                    "atomic `{}` on {}, which the verifier rejects",
                                    op.name(),
                                    elem.name()
                                )))
                            }
                        };
                        self.e.op(sop, ty, &[p, scope_id, sem, x])
                    }
                };
                self.set(r, d);
                Ok(())
            }
        }
    }
}

/// The values a `yield` (the `if`'s results), `break` (the loop's results) or `continue` (the
/// body's parameters) defines; `return` defines none.
fn terminator_targets<'f>(f: &'f Function, layout: &Layout, inst: Inst, t: Terminator) -> Option<&'f [Value]> {
    let mut region = layout.inst_pos(inst)?.region;
    loop {
        let owner = f.regions[region].parent.expand()?;
        let oop = f.insts[owner].opcode;
        match t {
            Terminator::Return => return None,
            Terminator::Yield if oop == Opcode::If => return Some(f.inst_results(owner)),
            Terminator::Break if oop == Opcode::Loop => return Some(f.inst_results(owner)),
            Terminator::Continue if oop == Opcode::Loop => return Some(f.region_params(f.inst_regions(owner).next()?)),
            Terminator::Yield | Terminator::Break | Terminator::Continue => {}
        }
        region = layout.inst_pos(owner)?.region;
    }
}
