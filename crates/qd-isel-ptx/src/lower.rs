//! The kernel walk: parameters, shared memory, structured regions → labels and branches, and the
//! dispatch of every MIR op to the module that lowers it (an exhaustive match over `Opcode`).
//!
//! Control flow: an `if` becomes `@!%c bra ELSE … bra END; ELSE: … END:` (`bra.uni` when the
//! condition is uniform); its results are registers the arms' `yield`s move into. A `loop` keeps
//! its carried values in the body's parameter registers: `continue` moves into them and jumps to
//! the head, `break` moves into the loop's result registers and jumps past the end, `return` is
//! `ret`. Moves of a `yield`/`continue`/`break` are a parallel copy (through temporaries when a
//! destination is also a source). Any structured shape is a legal PTX CFG; ptxas handles
//! reconvergence.
//!
//! Memory operations (addresses, loads, stores, atomics) are lowered here too; scalar arithmetic
//! is in `scalar.rs`, warp and block ops in `warp.rs`.

use crate::emit::{bits, comment, ins, Class, Emitter, Label, Reg};
use crate::scalar::ScalarOp;
use crate::target::Feature;
use crate::{scalar, warp, CompileError, PtxKernel, PtxOptions};
use core::fmt::Write;
use cranelift_entity::SecondaryMap;
use qd_mir::{
    AddrSpace, AtomicOp, Function, GridPolicy, Imm, Inst, KernelFacts, MemoryOp, OpClass, Opcode, Region, ScalarType,
    Scope, SharedArr, Type, Value,
};

/// Static shared memory a kernel may declare; above it the arrays go to dynamic shared memory.
const STATIC_SHARED_LIMIT: u32 = 48 * 1024;

/// A structured construct being lowered: where its terminators go.
enum Frame {
    /// An `if`: `yield` moves into `results` and jumps to `end`.
    If { end: Label, results: Vec<Reg> },
    /// A `loop`: `continue` moves into `params` and jumps to `head`; `break` into `results`, `exit`.
    Loop { head: Label, exit: Label, params: Vec<Reg>, results: Vec<Reg> },
}

/// The lowering state of one kernel.
pub(crate) struct Lower<'a> {
    pub f: &'a Function,
    pub opts: &'a PtxOptions,
    pub e: Emitter,
    regs: SecondaryMap<Value, Option<Reg>>,
    /// The verifier's facts (uniformity, divergent returns).
    facts: &'a KernelFacts,
    /// Every warp of a block is whole (threads per block a multiple of 32).
    whole_warps: bool,
    frames: Vec<Frame>,
    /// Byte offset of each shared array in the kernel's one shared block.
    shared_off: SecondaryMap<SharedArr, u32>,
    /// The symbol of the shared block.
    shared_sym: &'static str,
    /// The region being lowered.
    pub region: Region,
    /// The register holding the linear thread index, once computed.
    linear_tid: Option<Reg>,
    /// The instruction being lowered (for error messages).
    pub cur_inst: Option<Inst>,
    /// The instruction whose feature raised the `.version` last (blamed when a driver's cap is
    /// below it).
    version_by: Option<Inst>,
}

/// Lowers one verified kernel with the verifier's facts.
pub(crate) fn lower_kernel(f: &Function, facts: &KernelFacts, opts: &PtxOptions) -> Result<PtxKernel, CompileError> {
    let t = opts.target;
    let mut lw = Lower {
        f,
        opts,
        e: Emitter::new(t),
        regs: SecondaryMap::new(),
        facts,
        whole_warps: facts.whole_subgroups(32),
        frames: Vec::new(),
        shared_off: SecondaryMap::new(),
        shared_sym: "qd_shared",
        region: f.body,
        linear_tid: None,
        cur_inst: None,
        version_by: None,
    };

    // Shared arrays: one block, each array aligned to 8 bytes (the verifier bounds the sum of
    // their sizes; the alignment may still take it past what the target has).
    let mut total: u64 = 0;
    for (arr, data) in f.shared.iter() {
        total = total.next_multiple_of(8);
        lw.shared_off[arr] = total as u32;
        total += u64::from(data.elem.bytes()) * u64::from(data.len);
    }
    let total = total.next_multiple_of(16);
    let max = t.max_shared_bytes();
    let total = u32::try_from(total)
        .ok()
        .filter(|&b| b <= max)
        .ok_or_else(|| CompileError::limit(t, "bytes of shared memory", total, u64::from(max)))?;
    let dynamic = total > STATIC_SHARED_LIMIT;
    if dynamic {
        lw.shared_sym = "qd_dyn_shared";
    }

    // Parameters.
    let mut params = String::new();
    for (i, p) in f.params.iter().enumerate() {
        let decl = match p.ty {
            Type::Ptr(AddrSpace::Global, _) => "u64",
            Type::Ptr(AddrSpace::Shared, _) => {
                return Err(CompileError::internal(
                    t,
                    format!("parameter %{} is a shared pointer, which the verifier rejects", p.name),
                ))
            }
            Type::Scalar(ScalarType::Bool) => "u32",
            Type::Scalar(s) => crate::emit::arith(s),
        };
        let _ = write!(params, "{}\t.param .{decl} {}_param_{i}", if i == 0 { "\n" } else { ",\n" }, f.name);
        let r = lw.def(p.value);
        match p.ty {
            Type::Ptr(AddrSpace::Global, _) => {
                ins!(lw.e, "ld.param.u64 {}, [{}_param_{}]", r, f.name, i);
                ins!(lw.e, "cvta.to.global.u64 {}, {}", r, r);
            }
            Type::Scalar(ScalarType::Bool) => {
                let tmp = lw.e.reg(Class::B32);
                ins!(lw.e, "ld.param.u32 {}, [{}_param_{}]", tmp, f.name, i);
                ins!(lw.e, "setp.ne.u32 {}, {}, 0", r, tmp);
            }
            Type::Scalar(s) => ins!(lw.e, "ld.param.{} {}, [{}_param_{}]", crate::emit::arith(s), r, f.name, i),
            Type::Ptr(AddrSpace::Shared, _) => {}
        }
    }

    if total > 0 && opts.zero_shared {
        lw.zero_shared(total)?;
    }
    lw.lower_region(f.body)?;
    // A verified body ends in `return`; this closes the entry in any other case.
    let ends_in_return = f.regions[f.body].insts.last().is_some_and(|&i| f.insts[i].opcode == Opcode::Return);
    if !ends_in_return {
        ins!(lw.e, "ret");
    }

    let version = lw.e.version;
    if let Some(cap) = opts.max_version {
        if version > cap {
            // The target's own minimum, or the op whose instruction raised the version.
            let by = lw.version_by.filter(|_| t.min_version() <= cap);
            let why =
                if by.is_some() { "for the instruction it uses".to_string() } else { format!("the oldest {t} takes") };
            let e = CompileError::missing_capability(
                t,
                format!("PTX ISA {version} ({why}; the driver loads up to {cap})"),
                by.map(|i| f.insts[i].opcode),
            );
            return Err(match by {
                Some(i) => e.at(i),
                None => e,
            });
        }
    }
    let body = lw.e.take_body();
    let mut ptx = String::with_capacity(body.len() + 512);
    let _ = writeln!(ptx, "//\n// Generated by qd (qd-isel-ptx) for kernel @{}\n//\n", f.name);
    let _ = writeln!(ptx, ".version {version}\n.target {}\n.address_size 64\n", t.name());
    if dynamic {
        let _ = writeln!(ptx, ".extern .shared .align 16 .b8 qd_dyn_shared[];\n");
    }
    let _ = write!(ptx, ".visible .entry {}({}\n)", f.name, params);
    let [bx, by, bz] = f.launch.block;
    let _ = writeln!(ptx, "\n.reqntid {bx}, {by}, {bz}\n{{");
    ptx.push_str(&lw.e.reg_decls());
    if total > 0 && !dynamic {
        let _ = writeln!(ptx, "\t.shared .align 16 .b8 qd_shared[{total}];");
    }
    ptx.push('\n');
    ptx.push_str(&body);
    ptx.push_str("}\n");
    Ok(PtxKernel {
        name: f.name.clone(),
        ptx,
        target: t,
        version,
        block: f.launch.block,
        dynamic_shared_bytes: if dynamic { total } else { 0 },
    })
}

impl Lower<'_> {
    /// The register of a value (allocated at its definition).
    pub(crate) fn r(&self, v: Value) -> Result<Reg, CompileError> {
        self.regs[v].ok_or_else(|| self.internal(format!("value {v} used before its definition")))
    }

    /// The result of `inst` (verified MIR has it).
    pub(crate) fn result(&self, inst: Inst) -> Result<Value, CompileError> {
        self.f.first_result(inst).ok_or_else(|| self.internal("an instruction without its result"))
    }

    /// The op being lowered.
    pub(crate) fn cur_op(&self) -> Option<Opcode> {
        self.cur_inst.map(|i| self.f.insts[i].opcode)
    }

    /// Records that the kernel uses `f`: raises the `.version`, or fails on a target without it.
    pub(crate) fn need(&mut self, f: Feature) -> Result<(), CompileError> {
        let t = self.e.target;
        if t < f.min_target() {
            let what = format!("`{}` ({} or newer)", f.name(), f.min_target());
            return Err(CompileError::missing_capability(t, what, self.cur_op()));
        }
        if f.min_version() > self.e.version {
            self.e.version = f.min_version();
            self.version_by = self.cur_inst;
        }
        Ok(())
    }

    /// Allocates the register defining `v`.
    pub(crate) fn def(&mut self, v: Value) -> Reg {
        let r = self.e.reg(Class::of(self.f.value_type(v)));
        self.regs[v] = Some(r);
        r
    }

    /// The scalar type of a value (pointers count as their address integer).
    pub(crate) fn scalar(&self, v: Value) -> ScalarType {
        match self.f.value_type(v) {
            Type::Scalar(s) => s,
            Type::Ptr(AddrSpace::Global, _) => ScalarType::U64,
            Type::Ptr(AddrSpace::Shared, _) => ScalarType::U32,
        }
    }

    /// Every lane of the warp is known active in the current region: the full member mask.
    pub(crate) fn full_activity(&self) -> bool {
        self.whole_warps && !self.facts.divergent_return() && self.facts.uniformity().is_uniform_region(self.region)
    }

    /// Whether a value is uniform across the warp.
    pub(crate) fn is_uniform(&self, v: Value) -> bool {
        self.facts.uniformity().is_uniform(v)
    }

    /// The member mask operand of a warp op here: `0xffffffff` under full activity, else a fresh
    /// `activemask.b32`.
    pub(crate) fn member_mask(&mut self) -> Result<String, CompileError> {
        if self.full_activity() {
            Ok("0xffffffff".to_string())
        } else {
            self.need(Feature::ActiveMask)?;
            let m = self.e.reg(Class::B32);
            ins!(self.e, "activemask.b32 {}", m);
            Ok(m.to_string())
        }
    }

    /// The linear thread index in the block (x fastest), computed once at its first use, in the
    /// body's entry so that every later use is dominated.
    pub(crate) fn linear_tid(&mut self) -> Reg {
        if let Some(r) = self.linear_tid {
            return r;
        }
        let r = self.e.reg(Class::B32);
        let [bx, by, bz] = self.f.launch.block;
        ins!(self.e, "mov.u32 {}, %tid.x", r);
        if by > 1 || bz > 1 {
            let y = self.e.reg(Class::B32);
            ins!(self.e, "mov.u32 {}, %tid.y", y);
            if bz > 1 {
                let z = self.e.reg(Class::B32);
                ins!(self.e, "mov.u32 {}, %tid.z", z);
                ins!(self.e, "mad.lo.u32 {}, {}, {}, {}", y, z, by, y);
            }
            ins!(self.e, "mad.lo.u32 {}, {}, {}, {}", r, y, bx, r);
        }
        // Only cached when computed in the body region, where it dominates everything after.
        if self.region == self.f.body {
            self.linear_tid = Some(r);
        }
        r
    }

    /// Zero-fills the shared block (the interpreter's documented start state), then `bar.sync`.
    fn zero_shared(&mut self, total: u32) -> Result<(), CompileError> {
        let threads: u32 = self.f.launch.block.iter().product();
        let tid = self.linear_tid();
        let (addr, end) = (self.e.reg(Class::B32), self.e.reg(Class::B32));
        let p = self.e.reg(Class::Pred);
        let (head, done) = (self.e.label(), self.e.label());
        comment!(self.e, "zero the {} bytes of shared memory", total);
        ins!(self.e, "mov.u32 {}, {}", end, self.shared_sym);
        ins!(self.e, "shl.b32 {}, {}, 2", addr, tid);
        ins!(self.e, "add.u32 {}, {}, {}", addr, addr, end);
        ins!(self.e, "add.u32 {}, {}, {}", end, end, total);
        self.e.place(head);
        ins!(self.e, "setp.ge.u32 {}, {}, {}", p, addr, end);
        ins!(self.e, "@{} bra {}", p, done);
        ins!(self.e, "st.shared.u32 [{}], 0", addr);
        ins!(self.e, "add.u32 {}, {}, {}", addr, addr, threads.saturating_mul(4));
        ins!(self.e, "bra {}", head);
        self.e.place(done);
        ins!(self.e, "bar.sync 0");
        Ok(())
    }

    fn lower_region(&mut self, region: Region) -> Result<(), CompileError> {
        let (saved, saved_inst) = (self.region, self.cur_inst);
        self.region = region;
        let f = self.f;
        for &inst in &f.regions[region].insts {
            self.cur_inst = Some(inst);
            self.lower_inst(inst).map_err(|e| e.at(inst))?;
        }
        (self.region, self.cur_inst) = (saved, saved_inst);
        Ok(())
    }

    /// The target has no lowering of the current op at `ty`.
    pub(crate) fn unsupported(&self, ty: Option<ScalarType>, why: impl Into<String>) -> CompileError {
        CompileError::unsupported(self.e.target, self.cur_op(), ty.map(Type::Scalar), why)
    }

    /// A defect: verified MIR never gets here.
    pub(crate) fn internal(&self, message: impl Into<String>) -> CompileError {
        CompileError::internal(self.e.target, message)
    }

    fn lower_inst(&mut self, inst: Inst) -> Result<(), CompileError> {
        let f = self.f;
        let args = f.args(inst);
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
            OpClass::Index(op) => warp::index(self, inst, op),
            OpClass::Exchange(op) => warp::exchange(self, inst, op),
            OpClass::Collective(op) => warp::collective(self, inst, op),
            OpClass::Sync(op) => warp::sync(self, inst, op),
            OpClass::If => {
                let cond = self.r(args[0])?;
                let results: Vec<Reg> = f.inst_results(inst).iter().map(|&v| self.def(v)).collect();
                let (else_l, end) = (self.e.label(), self.e.label());
                let uni = if self.is_uniform(args[0]) { ".uni" } else { "" };
                ins!(self.e, "@!{} bra{} {}", cond, uni, else_l);
                let regions: Vec<Region> = f.inst_regions(inst).collect();
                self.frames.push(Frame::If { end, results });
                // Every arm ends in a terminator that jumps: no branch is needed after it.
                if let Some(&then_r) = regions.first() {
                    self.lower_region(then_r)?;
                }
                self.e.place(else_l);
                if let Some(&else_r) = regions.get(1) {
                    self.lower_region(else_r)?;
                } else if !f.inst_results(inst).is_empty() {
                    return Err(self.internal("an `if` with results and no else arm"));
                }
                self.frames.pop();
                self.e.place(end);
                Ok(())
            }
            OpClass::Loop => {
                let body = f.inst_regions(inst).next().ok_or_else(|| self.internal("a loop without a body"))?;
                let params: Vec<Reg> = f.region_params(body).iter().map(|&v| self.def(v)).collect();
                let inits: Vec<Reg> = args.iter().map(|&v| self.r(v)).collect::<Result<_, _>>()?;
                self.parallel_copy(&params, &inits);
                let results: Vec<Reg> = f.inst_results(inst).iter().map(|&v| self.def(v)).collect();
                let (head, exit) = (self.e.label(), self.e.label());
                self.e.place(head);
                self.frames.push(Frame::Loop { head, exit, params, results });
                self.lower_region(body)?;
                self.frames.pop();
                self.e.place(exit);
                Ok(())
            }
            OpClass::Terminator(t) => {
                let srcs: Vec<Reg> = args.iter().map(|&v| self.r(v)).collect::<Result<_, _>>()?;
                use qd_mir::Terminator as T;
                match t {
                    T::Return => {
                        ins!(self.e, "ret");
                        Ok(())
                    }
                    T::Yield => {
                        let Some(Frame::If { end, results }) = self.frames.last() else {
                            return Err(self.internal("`yield` outside an `if`"));
                        };
                        let (end, results) = (*end, results.clone());
                        self.parallel_copy(&results, &srcs);
                        ins!(self.e, "bra.uni {}", end);
                        Ok(())
                    }
                    T::Break | T::Continue => {
                        let Some((head, exit, params, results)) = self.frames.iter().rev().find_map(|fr| match fr {
                            Frame::Loop { head, exit, params, results } => {
                                Some((*head, *exit, params.clone(), results.clone()))
                            }
                            Frame::If { .. } => None,
                        }) else {
                            return Err(self.internal("`break`/`continue` outside a loop"));
                        };
                        if t == T::Break {
                            self.parallel_copy(&results, &srcs);
                            ins!(self.e, "bra {}", exit);
                        } else {
                            self.parallel_copy(&params, &srcs);
                            ins!(self.e, "bra {}", head);
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// `dsts[i] = srcs[i]` for all i at once.
    fn parallel_copy(&mut self, dsts: &[Reg], srcs: &[Reg]) {
        let overlap = dsts.iter().enumerate().any(|(i, d)| srcs.iter().enumerate().any(|(j, s)| s == d && i != j));
        if overlap {
            let tmps: Vec<Reg> = srcs
                .iter()
                .map(|&s| {
                    let t = self.e.reg(s.class);
                    ins!(self.e, "mov.{} {}, {}", mov_ty(s.class), t, s);
                    t
                })
                .collect();
            for (d, t) in dsts.iter().zip(tmps) {
                ins!(self.e, "mov.{} {}, {}", mov_ty(d.class), d, t);
            }
        } else {
            for (d, s) in dsts.iter().zip(srcs) {
                if d != s {
                    ins!(self.e, "mov.{} {}, {}", mov_ty(d.class), d, s);
                }
            }
        }
    }

    fn lower_memory(&mut self, inst: Inst, op: MemoryOp) -> Result<(), CompileError> {
        let f = self.f;
        let data = &f.insts[inst];
        let args = f.args(inst);
        match op {
            MemoryOp::SharedAddr => {
                let Imm::Shared(arr) = data.imm else { return Err(self.internal("malformed immediate")) };
                let d = self.def(self.result(inst)?);
                ins!(self.e, "mov.u32 {}, {}", d, self.shared_sym);
                if self.shared_off[arr] != 0 {
                    ins!(self.e, "add.u32 {}, {}, {}", d, d, self.shared_off[arr]);
                }
                Ok(())
            }
            MemoryOp::PtrOffset => {
                let (p, idx) = (self.r(args[0])?, self.r(args[1])?);
                let it = self.scalar(args[1]);
                let (space, elem) = self.pointee(args[0])?;
                let size = elem.bytes();
                let d = self.def(self.result(inst)?);
                match (space, it.bits()) {
                    (AddrSpace::Global, 32) => {
                        let w = self.e.reg(Class::B64);
                        let sign = if it.is_signed() { "s32" } else { "u32" };
                        ins!(self.e, "mul.wide.{} {}, {}, {}", sign, w, idx, size);
                        ins!(self.e, "add.s64 {}, {}, {}", d, p, w);
                    }
                    (AddrSpace::Global, _) => {
                        let w = self.e.reg(Class::B64);
                        ins!(self.e, "mul.lo.s64 {}, {}, {}", w, idx, size);
                        ins!(self.e, "add.s64 {}, {}, {}", d, p, w);
                    }
                    (AddrSpace::Shared, 32) => ins!(self.e, "mad.lo.s32 {}, {}, {}, {}", d, idx, size, p),
                    (AddrSpace::Shared, _) => {
                        let lo = self.e.reg(Class::B32);
                        ins!(self.e, "cvt.u32.u64 {}, {}", lo, idx);
                        ins!(self.e, "mad.lo.s32 {}, {}, {}, {}", d, lo, size, p);
                    }
                }
                Ok(())
            }
            MemoryOp::Load => {
                let p = self.r(args[0])?;
                let (space, elem) = self.pointee(args[0])?;
                let sp = space_name(space);
                let d = self.def(self.result(inst)?);
                if elem == ScalarType::Bool {
                    let b = self.e.reg(Class::B32);
                    ins!(self.e, "ld.{}.u8 {}, [{}]", sp, b, p);
                    ins!(self.e, "setp.ne.u32 {}, {}, 0", d, b);
                } else {
                    ins!(self.e, "ld.{}.{} {}, [{}]", sp, mem_ty(elem), d, p);
                }
                Ok(())
            }
            MemoryOp::Store => {
                let (p, v) = (self.r(args[0])?, self.r(args[1])?);
                let (space, elem) = self.pointee(args[0])?;
                let sp = space_name(space);
                if elem == ScalarType::Bool {
                    let b = self.e.reg(Class::B32);
                    ins!(self.e, "selp.u32 {}, 1, 0, {}", b, v);
                    ins!(self.e, "st.{}.u8 [{}], {}", sp, p, b);
                } else {
                    ins!(self.e, "st.{}.{} [{}], {}", sp, mem_ty(elem), p, v);
                }
                Ok(())
            }
            MemoryOp::AtomicRmw => {
                let Imm::Atomic(op, scope) = data.imm else { return Err(self.internal("malformed immediate")) };
                let (p, v) = (self.r(args[0])?, self.r(args[1])?);
                let (space, elem) = self.pointee(args[0])?;
                // Every operation the verifier allows has an `atom` form.
                let ty = atomic_type(op, elem).ok_or_else(|| {
                    self.internal(format!(
                        "`atom.{}` has no {} form, and the verifier allows it",
                        op.name(),
                        elem.name()
                    ))
                })?;
                let d = self.def(self.result(inst)?);
                ins!(
                    self.e,
                    "atom.relaxed.{}.{}.{}.{} {}, [{}], {}",
                    scope_name(scope),
                    space_name(space),
                    atom_op(op),
                    ty,
                    d,
                    p,
                    v
                );
                Ok(())
            }
            MemoryOp::AtomicCas => {
                let Imm::Scope(scope) = data.imm else { return Err(self.internal("malformed immediate")) };
                let (p, c, n) = (self.r(args[0])?, self.r(args[1])?, self.r(args[2])?);
                let (space, elem) = self.pointee(args[0])?;
                let d = self.def(self.result(inst)?);
                ins!(
                    self.e,
                    "atom.relaxed.{}.{}.cas.{} {}, [{}], {}, {}",
                    scope_name(scope),
                    space_name(space),
                    bits(elem),
                    d,
                    p,
                    c,
                    n
                );
                Ok(())
            }
        }
    }

    /// The address space and element type of a pointer operand.
    fn pointee(&self, p: Value) -> Result<(AddrSpace, ScalarType), CompileError> {
        match self.f.value_type(p) {
            Type::Ptr(space, elem) => Ok((space, elem)),
            Type::Scalar(_) => Err(self.internal(format!("{p} is not a pointer"))),
        }
    }
}

/// The `mov` type of a register class.
pub(crate) fn mov_ty(c: Class) -> &'static str {
    match c {
        Class::Pred => "pred",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    }
}

fn space_name(s: AddrSpace) -> &'static str {
    match s {
        AddrSpace::Global => "global",
        AddrSpace::Shared => "shared",
    }
}

/// The `ld`/`st` type of a non-bool element.
fn mem_ty(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "u8",
        ScalarType::I32 | ScalarType::U32 => "u32",
        ScalarType::I64 | ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
    }
}

/// `.cta` for subgroup and block scope (PTX has no warp scope), `.gpu` for the device.
pub(crate) fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Subgroup | Scope::Block => "cta",
        Scope::Device => "gpu",
    }
}

fn atom_op(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "add",
        AtomicOp::Min => "min",
        AtomicOp::Max => "max",
        AtomicOp::And => "and",
        AtomicOp::Or => "or",
        AtomicOp::Xor => "xor",
        AtomicOp::Exch => "exch",
    }
}

/// The `atom` type suffix of an operation on an element type, if PTX has it
/// (docs/ptx.md §3, the "(atomic types)" row).
fn atomic_type(op: AtomicOp, elem: ScalarType) -> Option<&'static str> {
    use ScalarType as S;
    Some(match (op, elem) {
        (AtomicOp::Add, S::I32 | S::U32) => "u32",
        (AtomicOp::Add, S::I64 | S::U64) => "u64",
        (AtomicOp::Add, S::F32) => "f32",
        (AtomicOp::Add, S::F64) => "f64",
        (AtomicOp::Min | AtomicOp::Max, S::I32) => "s32",
        (AtomicOp::Min | AtomicOp::Max, S::U32) => "u32",
        (AtomicOp::Min | AtomicOp::Max, S::I64) => "s64",
        (AtomicOp::Min | AtomicOp::Max, S::U64) => "u64",
        (AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exch, S::I32 | S::U32 | S::F32) => "b32",
        (AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exch, S::I64 | S::U64 | S::F64) => "b64",
        (_, S::Bool) | (AtomicOp::Min | AtomicOp::Max, S::F32 | S::F64) => return None,
    })
}

/// The grid a launch of `f` uses on a device with `sms` multiprocessors, given the raw bits of
/// the scalar arguments (`Cover` reads one, with its type's signedness; `n ≤ 0` gives a 0-block
/// grid, which launches nothing): the interpreter's policy, with the saturating grid at 4 blocks
/// per SM. `None` when the argument is missing or the grid does not fit in 32 bits.
pub fn grid_for(f: &Function, scalar_arg: impl Fn(usize) -> Option<u64>, sms: u32) -> Option<[u32; 3]> {
    match f.launch.grid {
        GridPolicy::Fixed(g) => Some(g),
        GridPolicy::Cover(i) => {
            // The count is read with its type's signedness; n ≤ 0 launches no block.
            let bits = scalar_arg(usize::from(i))?;
            let ty = f.params.get(usize::from(i))?.ty.scalar()?;
            let n: i128 =
                if ty == ScalarType::U64 { i128::from(bits) } else { i128::from(qd_mir::eval::as_i64(ty, bits)) };
            if n <= 0 {
                return Some([0, 1, 1]);
            }
            let bx = i128::from(f.launch.block[0].max(1));
            Some([u32::try_from((n + bx - 1) / bx).ok()?, 1, 1])
        }
        GridPolicy::Saturating => Some([sms.max(1) * 4, 1, 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::grid_for;

    fn cover(ty: &str) -> qd_mir::Function {
        let src = format!(
            "kernel @k(%a: ptr<global, u32>, %n: {ty} uniform) block(32, 1, 1) grid(cover %n) {{\n  return\n}}\n"
        );
        qd_mir::parse_module(&src).expect("parses").kernels.remove(0)
    }

    #[test]
    fn cover_grids_read_the_count_with_its_signedness() {
        let f = cover("i32");
        assert_eq!(grid_for(&f, |_| Some(100), 132), Some([4, 1, 1]));
        assert_eq!(grid_for(&f, |_| Some(u64::from((-5i32) as u32)), 132), Some([0, 1, 1]));
        assert_eq!(grid_for(&f, |_| Some(0), 132), Some([0, 1, 1]));
        let f = cover("u32");
        assert_eq!(grid_for(&f, |_| Some(u64::from(u32::MAX)), 132), Some([134_217_728, 1, 1]));
        let f = cover("i64");
        assert_eq!(grid_for(&f, |_| Some((-1i64) as u64), 132), Some([0, 1, 1]));
        assert_eq!(grid_for(&f, |_| None, 132), None);
    }
}
