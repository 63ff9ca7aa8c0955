//! The kernel builder core: [`FunctionBuilderContext`], [`KernelBuilder`], the typed handles
//! ([`Val`], [`Var`], [`Buf`], [`SharedBuf`]), parameters, launch configuration and `finish`.
//!
//! Invariants the rest of the crate relies on:
//! - The builder keeps a stack of open regions (`ctx.frames`): the body at depth 0, then one frame
//!   per `if` arm or loop body being built. Instructions are appended only to the top frame's
//!   region, so "defined in an open region" is the same as "dominates the insertion point": a
//!   value is *visible* iff its defining region is on the stack (`ctx.region_depth != 0`).
//! - Every handle carries the id of the builder that made it; ids come from a global counter, so a
//!   [`Val`] from another kernel (even one built with the same context) is rejected.
//! - A frame whose region ended (`break`/`continue`/`return`) is `terminated`: emitting into it is
//!   an error, never a panic.
//! - Errors from parameter declarations (bad names) are *deferred*: the declaring method returns its
//!   handle and `finish` reports the first such error, located at the declaring call.

use crate::error::{BuildError, ErrorKind, Loc};
use cranelift_entity::packed_option::{PackedOption, ReservedValue};
use cranelift_entity::SecondaryMap;
use qd_mir::{
    AddrSpace, CompileError, Function, GridPolicy, Imm, Inst, Opcode, Region, ScalarType, SharedArr, Type, Value,
    ValueDef, VerifiedKernel,
};
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT_BUILDER_ID: AtomicU32 = AtomicU32::new(1);

/// A fresh builder identity (kernel and program builders share the counter).
pub(crate) fn fresh_id() -> u32 {
    NEXT_BUILDER_ID.fetch_add(1, Ordering::Relaxed)
}

/// A typed SSA value of the kernel being built: the MIR [`Value`] plus its [`Type`].
///
/// `Val` is `Copy`; it is only meaningful for the builder that made it and only inside the region
/// that defines it (values made in an `if` arm or loop body are carried out through variables).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Val {
    pub(crate) value: Value,
    pub(crate) ty: Type,
    pub(crate) builder: u32,
}

impl Val {
    /// The MIR value.
    pub fn value(self) -> Value {
        self.value
    }
    /// Its type.
    pub fn ty(self) -> Type {
        self.ty
    }
    /// Its scalar type, if it is a scalar.
    pub fn scalar(self) -> Option<ScalarType> {
        self.ty.scalar()
    }
}

/// A variable: a mutable name that the builder turns into SSA values (see [`crate::ssa`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    pub(crate) index: u32,
    pub(crate) ty: Type,
    pub(crate) builder: u32,
}

impl Var {
    /// The variable's type.
    pub fn ty(self) -> Type {
        self.ty
    }
    /// Its index (declaration order, from 0).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// A global-memory buffer parameter (`ptr<global, T>`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Buf {
    pub(crate) ptr: Val,
    pub(crate) elem: ScalarType,
}

impl Buf {
    /// The pointer value of element 0 (for the raw pointer ops).
    pub fn ptr(self) -> Val {
        self.ptr
    }
    /// The element type.
    pub fn elem(self) -> ScalarType {
        self.elem
    }
}

/// A shared (block-local) array. Its `shared.addr` is emitted once at the top of the body, so the
/// handle is usable in every region.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedBuf {
    pub(crate) arr: SharedArr,
    pub(crate) ptr: Val,
    pub(crate) elem: ScalarType,
    pub(crate) len: u32,
}

impl SharedBuf {
    /// The `ptr<shared, T>` value of element 0.
    pub fn ptr(self) -> Val {
        self.ptr
    }
    /// The element type.
    pub fn elem(self) -> ScalarType {
        self.elem
    }
    /// The number of elements.
    pub fn len(self) -> u32 {
        self.len
    }
    /// True if the array has no elements (never, for a successfully built kernel).
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    /// The MIR shared-array entity.
    pub fn entity(self) -> SharedArr {
        self.arr
    }
}

/// Memory addressed by element index: a global buffer or a shared array.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mem {
    /// A global buffer parameter.
    Global(Buf),
    /// A shared array.
    Shared(SharedBuf),
}

impl Mem {
    pub(crate) fn base(self) -> Val {
        match self {
            Mem::Global(b) => b.ptr,
            Mem::Shared(s) => s.ptr,
        }
    }
}

impl From<Buf> for Mem {
    fn from(b: Buf) -> Mem {
        Mem::Global(b)
    }
}

impl From<SharedBuf> for Mem {
    fn from(s: SharedBuf) -> Mem {
        Mem::Shared(s)
    }
}

/// Three launch dimensions; `From<u32>` gives `[x, 1, 1]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dims(pub [u32; 3]);

impl From<u32> for Dims {
    fn from(x: u32) -> Dims {
        Dims([x, 1, 1])
    }
}

impl From<[u32; 3]> for Dims {
    fn from(d: [u32; 3]) -> Dims {
        Dims(d)
    }
}

/// What kind of region a frame builds.
#[derive(Copy, Clone, Debug)]
pub(crate) enum FrameKind {
    /// The function body.
    Body,
    /// An `if` arm.
    Arm,
    /// A loop body; `for_range` loops carry their induction variable.
    Loop(Option<Induction>),
}

/// The induction variable of a `for_range`/`parallel_for` loop (region param 0).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Induction {
    pub param: Value,
    pub start: Value,
    pub step: Value,
    pub ty: ScalarType,
}

/// One open region.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Frame {
    pub region: Region,
    pub kind: FrameKind,
    pub terminated: bool,
}

/// A variable's current definition: the value and the frame depth that defined it.
pub(crate) type CurDef = Option<(Value, u32)>;

/// A loop-carried variable: the region param standing for it and the value entering the loop.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Carried {
    pub var: u32,
    pub param: Value,
    pub init: Value,
    pub removed: bool,
}

/// A `break` or `continue` of a loop; its operands are set when the loop is finished.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Exit {
    pub inst: Inst,
    pub is_break: bool,
    /// Range into the loop's `snaps`: (var, value) sorted by var, the variables defined inside the
    /// loop up to this exit.
    pub snap: (u32, u32),
    /// `continue` of a `for_range`: the incremented induction variable.
    pub next: Option<Value>,
}

/// Per-depth scratch vectors, reused across frames and kernels.
#[derive(Default, Debug)]
pub(crate) struct DepthScratch {
    /// Undo log: variable definitions made in this frame, with the definition they shadowed.
    pub log: Vec<(u32, CurDef)>,
    /// Loop frames: carried variables.
    pub carried: Vec<Carried>,
    /// Loop frames: exits.
    pub exits: Vec<Exit>,
    /// Loop frames: exit snapshots.
    pub snaps: Vec<(u32, Value)>,
}

/// A declared variable.
#[derive(Clone, Debug)]
pub(crate) struct VarSlot {
    pub ty: Type,
    pub name: Option<String>,
    pub cur: CurDef,
}

/// Where a builder-made kernel's instructions were built ([`KernelBuilder::finish_with_lines`]).
#[derive(Clone, Debug, Default)]
pub struct SourceLines {
    file: Option<&'static str>,
    lines: SecondaryMap<Inst, u32>,
}

impl SourceLines {
    /// The Rust source file most of the kernel was built in.
    pub fn file(&self) -> Option<&'static str> {
        self.file
    }

    /// The line in [`SourceLines::file`] of the builder call that made `inst` (`None` for
    /// instructions made elsewhere or implicitly, such as region terminators).
    pub fn line(&self, inst: Inst) -> Option<u32> {
        self.lines.get(inst).copied().filter(|&l| l != 0)
    }
}

/// Reusable allocations for building kernels: create one and pass it to every
/// [`KernelBuilder::new`]; its vectors and maps keep their capacity between kernels.
#[derive(Default, Debug)]
pub struct FunctionBuilderContext {
    pub(crate) frames: Vec<Frame>,
    pub(crate) scratch: Vec<DepthScratch>,
    pub(crate) vars: Vec<VarSlot>,
    pub(crate) value_region: SecondaryMap<Value, PackedOption<Region>>,
    /// Depth + 1 of an open region; 0 when closed.
    pub(crate) region_depth: SecondaryMap<Region, u32>,
    pub(crate) alias: SecondaryMap<Value, PackedOption<Value>>,
    pub(crate) stamps: Vec<u32>,
    pub(crate) epoch: u32,
    pub(crate) arm_defs: Vec<(u32, Value)>,
    pub(crate) tmp_vars: Vec<u32>,
    pub(crate) tmp_vals: Vec<Value>,
    pub(crate) tmp_types: Vec<Type>,
    pub(crate) merge: Vec<(u32, Option<Value>, Option<Value>)>,
    pub(crate) loop_results: Vec<u32>,
    pub(crate) walk: Vec<Region>,
    /// The caller location of every instruction emitted (for [`KernelBuilder::finish_with_lines`]).
    pub(crate) locs: SecondaryMap<Inst, Option<Loc>>,
}

impl FunctionBuilderContext {
    /// An empty context.
    pub fn new() -> FunctionBuilderContext {
        FunctionBuilderContext::default()
    }

    fn reset(&mut self) {
        self.frames.clear();
        self.vars.clear();
        self.value_region.clear();
        self.region_depth.clear();
        self.alias.clear();
        self.arm_defs.clear();
        self.merge.clear();
        self.walk.clear();
        self.locs.clear();
    }

    /// A fresh stamp epoch for de-duplicating variable indices.
    pub(crate) fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        let n = self.vars.len();
        if self.stamps.len() < n {
            self.stamps.resize(n, 0);
        }
        self.epoch
    }
}

/// Builds one kernel ([`Function`]). See the crate documentation for a worked example.
///
/// Methods that emit instructions return `Result<Val, BuildError>` (or `Result<(), BuildError>`)
/// and check their operands eagerly; they are `#[track_caller]`, so errors point at the caller.
#[derive(Debug)]
pub struct KernelBuilder<'c> {
    pub(crate) ctx: &'c mut FunctionBuilderContext,
    pub(crate) func: Function,
    pub(crate) id: u32,
    pub(crate) deferred: Option<BuildError>,
    pub(crate) prologue: usize,
}

/// True for names the `.qdm` text format prints and parses back: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
        _ => false,
    }
}

impl<'c> KernelBuilder<'c> {
    /// Starts a kernel named `name`, reusing the context's allocations. An invalid name is reported
    /// by [`KernelBuilder::finish`], located here.
    #[track_caller]
    pub fn new(ctx: &'c mut FunctionBuilderContext, name: &str) -> KernelBuilder<'c> {
        let loc = Location::caller();
        ctx.reset();
        let func = Function::new(name);
        let mut b = KernelBuilder { ctx, func, id: fresh_id(), deferred: None, prologue: 0 };
        if !valid_name(name) {
            b.defer(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("kernel name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        let body = b.func.body;
        b.push_frame(body, FrameKind::Body);
        b
    }

    /// The function built so far (for inspection; printing it shows open regions as built so far).
    pub fn func(&self) -> &Function {
        &self.func
    }

    pub(crate) fn defer(&mut self, e: BuildError) {
        if self.deferred.is_none() {
            self.deferred = Some(e);
        }
    }

    fn param_name_ok(&mut self, loc: Loc, what: &str, name: &str) {
        if !valid_name(name) {
            self.defer(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("{what}: name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        } else if self.func.param_index(name).is_some() {
            self.defer(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("{what}: kernel @{} already has a parameter %{name}", self.func.name),
            ));
        }
    }

    /// Declares a global buffer parameter `%name: ptr<global, elem>`.
    #[track_caller]
    pub fn buffer(&mut self, name: &str, elem: ScalarType) -> Buf {
        let loc = Location::caller();
        self.param_name_ok(loc, "buffer", name);
        let ty = Type::Ptr(AddrSpace::Global, elem);
        let value = self.func.add_param(name, ty, false);
        self.ctx.value_region[value] = self.func.body.into();
        Buf { ptr: Val { value, ty, builder: self.id }, elem }
    }

    /// Declares a scalar parameter `%name: ty uniform` (host-passed scalars are uniform).
    #[track_caller]
    pub fn scalar(&mut self, name: &str, ty: ScalarType) -> Val {
        let loc = Location::caller();
        self.param_name_ok(loc, "scalar", name);
        let ty = Type::Scalar(ty);
        let value = self.func.add_param(name, ty, true);
        self.ctx.value_region[value] = self.func.body.into();
        Val { value, ty, builder: self.id }
    }

    /// Declares a shared array `@name: [elem; len]`; its `shared.addr` goes to the top of the body.
    #[track_caller]
    pub fn shared_array(&mut self, name: &str, elem: ScalarType, len: u32) -> SharedBuf {
        let loc = Location::caller();
        if !valid_name(name) {
            self.defer(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("shared_array: name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        } else if self.func.shared.values().any(|s| s.name == name) {
            self.defer(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("shared_array: kernel @{} already has a shared array @{name}", self.func.name),
            ));
        }
        if len == 0 {
            self.defer(BuildError::new(
                loc,
                ErrorKind::OutOfRange,
                format!("shared_array @{name}: length must be at least 1"),
            ));
        }
        let arr = self.func.add_shared(name, elem, len);
        let ty = Type::Ptr(AddrSpace::Shared, elem);
        let inst = self.func.make_inst(Opcode::SharedAddr, Imm::Shared(arr), &[], &[ty]);
        let body = self.func.body;
        let at = self.prologue.min(self.func.regions[body].insts.len());
        self.func.regions[body].insts.insert(at, inst);
        self.prologue = at + 1;
        // `make_inst` always creates one result per given type; the fallback is never taken.
        let value = match self.func.first_result(inst) {
            Some(v) => v,
            None => {
                self.defer(BuildError::new(loc, ErrorKind::Structure, "shared.addr: no result was created"));
                Value::reserved_value()
            }
        };
        self.ctx.value_region[value] = body.into();
        SharedBuf { arr, ptr: Val { value, ty, builder: self.id }, elem, len }
    }

    /// Sets the block size (`256` or `[16, 16, 1]`); each dimension ≥ 1, at most 1024 threads.
    #[track_caller]
    pub fn set_block_dim(&mut self, dims: impl Into<Dims>) -> Result<(), BuildError> {
        let loc = Location::caller();
        let Dims(d) = dims.into();
        let total = d.iter().map(|&x| u64::from(x)).product::<u64>();
        if d.contains(&0) || total > 1024 {
            return Err(BuildError::new(
                loc,
                ErrorKind::OutOfRange,
                format!("set_block_dim: block {d:?} must have every dimension >= 1 and at most 1024 threads"),
            ));
        }
        self.func.launch.block = d;
        Ok(())
    }

    /// Fixes the subgroup width the kernel is built for (`subgroup(N)` in the text): a power of two
    /// from 1 to 64, normally a device's width (`qd_rt::DeviceInfo::subgroup_width`). Library code
    /// that depends on the width (`qd_lib`'s block collectives, tiled subgroup ops) reads it back
    /// with [`KernelBuilder::subgroup_size_hint`]; a device of another width refuses the kernel.
    #[track_caller]
    pub fn set_subgroup_size(&mut self, width: u32) -> Result<(), BuildError> {
        let loc = Location::caller();
        if !width.is_power_of_two() || width > 64 {
            return Err(BuildError::new(
                loc,
                ErrorKind::OutOfRange,
                format!("set_subgroup_size: {width} is not a power of two from 1 to 64"),
            ));
        }
        self.func.launch.subgroup_size = Some(width);
        Ok(())
    }

    /// The subgroup width set by [`KernelBuilder::set_subgroup_size`], if any.
    pub fn subgroup_size_hint(&self) -> Option<u32> {
        self.func.launch.subgroup_size
    }

    /// The block size set so far (`[1, 1, 1]` until [`KernelBuilder::set_block_dim`]).
    pub fn block_dims(&self) -> [u32; 3] {
        self.func.launch.block
    }

    /// Launches a fixed grid of blocks (every dimension ≥ 1).
    #[track_caller]
    pub fn grid_fixed(&mut self, dims: impl Into<Dims>) -> Result<(), BuildError> {
        let loc = Location::caller();
        let Dims(d) = dims.into();
        if d.contains(&0) {
            return Err(BuildError::new(
                loc,
                ErrorKind::OutOfRange,
                format!("grid_fixed: grid {d:?} must have every dimension >= 1"),
            ));
        }
        self.func.launch.grid = GridPolicy::Fixed(d);
        Ok(())
    }

    /// Launches `ceil(param / block.x)` blocks: `param` must be a scalar integer kernel parameter.
    #[track_caller]
    pub fn grid_cover(&mut self, param: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.check_val(loc, "grid_cover", param)?;
        match self.scalar_param_index(param) {
            Some(i) if param.ty.is_int() => {
                self.func.launch.grid = GridPolicy::Cover(i);
                Ok(())
            }
            _ => Err(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("grid_cover: expected a scalar integer kernel parameter, got a {} value", param.ty),
            )),
        }
    }

    /// Launches the target's saturating grid (the kernel loops grid-stride).
    pub fn grid_saturating(&mut self) {
        self.func.launch.grid = GridPolicy::Saturating;
    }

    /// The parameter index of `v` if it is a scalar kernel parameter.
    pub(crate) fn scalar_param_index(&self, v: Val) -> Option<u16> {
        match self.func.values.get(v.value).map(|d| d.def) {
            Some(ValueDef::Param(i)) if v.ty.scalar().is_some() => Some(i),
            _ => None,
        }
    }

    /// Finishes the kernel: appends `return` if the body is still open, checks that no region is
    /// left open, reports the first deferred declaration error, and runs the MIR verifier.
    #[track_caller]
    pub fn finish(self) -> Result<Function, BuildError> {
        self.finish_verified().map(VerifiedKernel::into_function)
    }

    /// [`KernelBuilder::finish`], keeping what the verifier computed: the [`VerifiedKernel`]
    /// every back end's `compile_verified` takes without verifying again.
    #[track_caller]
    pub fn finish_verified(mut self) -> Result<VerifiedKernel, BuildError> {
        let loc = Location::caller();
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        if self.ctx.frames.len() != 1 {
            return Err(BuildError::new(
                loc,
                ErrorKind::Structure,
                format!("finish: {} region(s) are still open", self.ctx.frames.len().saturating_sub(1)),
            ));
        }
        if !self.top().terminated {
            self.emit(loc, Opcode::Return, Imm::None, &[], None)?;
        }
        self.pop_frame();
        // Rules that need the whole kernel (SIMT uniformity of barriers and broadcast lanes, launch
        // limits) are the verifier's: run it so that a finished kernel is always valid MIR.
        let name = self.func.name.clone();
        VerifiedKernel::new(self.func).map_err(|e| {
            let rendered = match &e {
                CompileError::Verify { rendered, .. } => rendered.clone(),
                other => other.to_string(),
            };
            BuildError::new(loc, ErrorKind::Verify, format!("finish: kernel @{name} fails verification:\n{rendered}"))
        })
    }

    /// [`KernelBuilder::finish`], also returning where each instruction was built: the Rust file
    /// most of the kernel's builder calls are in, and the line of the call that made each
    /// instruction in that file — what a back end's debug line table (the AMDGCN code object's
    /// DWARF `.debug_line`) records for builder-made kernels.
    #[track_caller]
    pub fn finish_with_lines(self) -> Result<(Function, SourceLines), BuildError> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for loc in self.ctx.locs.values().flatten() {
            match counts.iter_mut().find(|(f, _)| *f == loc.file()) {
                Some((_, n)) => *n += 1,
                None => counts.push((loc.file(), 1)),
            }
        }
        let file = counts.iter().max_by_key(|(_, n)| *n).map(|(f, _)| *f);
        let mut lines = SecondaryMap::new();
        for (inst, loc) in self.ctx.locs.iter() {
            if let Some(loc) = loc.filter(|l| Some(l.file()) == file) {
                lines[inst] = loc.line();
            }
        }
        let f = self.finish()?;
        Ok((f, SourceLines { file, lines }))
    }

    // ---- frames -------------------------------------------------------------------------------

    pub(crate) fn depth(&self) -> usize {
        self.ctx.frames.len().saturating_sub(1)
    }

    pub(crate) fn top(&self) -> Frame {
        // The body frame is pushed in `new` and popped only by `finish`, which consumes `self`.
        self.ctx.frames.last().copied().unwrap_or(Frame {
            region: self.func.body,
            kind: FrameKind::Body,
            terminated: true,
        })
    }

    pub(crate) fn push_frame(&mut self, region: Region, kind: FrameKind) {
        let depth = self.ctx.frames.len();
        if self.ctx.scratch.len() <= depth {
            self.ctx.scratch.push(DepthScratch::default());
        }
        let s = &mut self.ctx.scratch[depth];
        s.log.clear();
        s.carried.clear();
        s.exits.clear();
        s.snaps.clear();
        self.ctx.region_depth[region] = depth as u32 + 1;
        self.ctx.frames.push(Frame { region, kind, terminated: false });
    }

    /// Pops the top frame, undoing its variable definitions.
    pub(crate) fn pop_frame(&mut self) {
        let depth = self.depth();
        self.restore_log(depth);
        if let Some(f) = self.ctx.frames.pop() {
            self.ctx.region_depth[f.region] = 0;
        }
    }

    /// Undoes (and clears) the variable definitions logged at `depth`.
    pub(crate) fn restore_log(&mut self, depth: usize) {
        if let Some(s) = self.ctx.scratch.get_mut(depth) {
            while let Some((var, old)) = s.log.pop() {
                if let Some(slot) = self.ctx.vars.get_mut(var as usize) {
                    slot.cur = old;
                }
            }
        }
    }

    pub(crate) fn set_terminated(&mut self) {
        if let Some(f) = self.ctx.frames.last_mut() {
            f.terminated = true;
        }
    }

    // ---- checks and emission ------------------------------------------------------------------

    /// Checks that `v` was made by this builder and is visible at the insertion point.
    pub(crate) fn check_val(&self, loc: Loc, op: &str, v: Val) -> Result<(), BuildError> {
        if v.builder != self.id {
            return Err(BuildError::new(
                loc,
                ErrorKind::ForeignHandle,
                format!("{op}: a {} value made by another kernel builder was used here", v.ty),
            ));
        }
        if !self.visible(v.value) {
            return Err(BuildError::new(
                loc,
                ErrorKind::NotVisible,
                format!(
                    "{op}: a {} value is used outside the region that defines it (an `if` arm or loop body \
                     that has ended); carry it out through a variable",
                    v.ty
                ),
            ));
        }
        Ok(())
    }

    /// True if `v`'s defining region is open.
    pub(crate) fn visible(&self, v: Value) -> bool {
        self.ctx.value_region.get(v).and_then(|r| r.expand()).is_some_and(|r| self.ctx.region_depth[r] != 0)
    }

    /// Errors if the current region already ended.
    pub(crate) fn check_open(&self, loc: Loc, op: &str) -> Result<(), BuildError> {
        if self.top().terminated {
            return Err(BuildError::new(
                loc,
                ErrorKind::RegionEnded,
                format!("{op}: the current region already ended (after `break`, `continue` or `return`)"),
            ));
        }
        Ok(())
    }

    /// Creates an instruction at the end of the current region; returns it.
    pub(crate) fn emit_inst(
        &mut self,
        loc: Loc,
        opcode: Opcode,
        imm: Imm,
        args: &[Value],
        result: Option<Type>,
    ) -> Result<Inst, BuildError> {
        let types: &[Type] = match &result {
            Some(t) => core::slice::from_ref(t),
            None => &[],
        };
        self.emit_inst_multi(loc, opcode, imm, args, types)
    }

    /// Creates an instruction with any number of results at the end of the current region.
    pub(crate) fn emit_inst_multi(
        &mut self,
        loc: Loc,
        opcode: Opcode,
        imm: Imm,
        args: &[Value],
        types: &[Type],
    ) -> Result<Inst, BuildError> {
        self.check_open(loc, opcode.name())?;
        let inst = self.func.make_inst(opcode, imm, args, types);
        self.ctx.locs[inst] = Some(loc);
        let region = self.top().region;
        self.func.append_inst(region, inst);
        for i in 0..self.func.inst_results(inst).len() {
            let v = self.func.inst_results(inst)[i];
            self.ctx.value_region[v] = region.into();
        }
        Ok(inst)
    }

    /// Emits an instruction without a result.
    pub(crate) fn emit(
        &mut self,
        loc: Loc,
        opcode: Opcode,
        imm: Imm,
        args: &[Value],
        result: Option<Type>,
    ) -> Result<(), BuildError> {
        self.emit_inst(loc, opcode, imm, args, result).map(|_| ())
    }

    /// Emits an instruction with one result of type `ty`.
    pub(crate) fn emit_val(
        &mut self,
        loc: Loc,
        opcode: Opcode,
        imm: Imm,
        args: &[Value],
        ty: Type,
    ) -> Result<Val, BuildError> {
        let inst = self.emit_inst(loc, opcode, imm, args, Some(ty))?;
        match self.func.first_result(inst) {
            Some(value) => Ok(Val { value, ty, builder: self.id }),
            None => Err(BuildError::new(loc, ErrorKind::Structure, format!("{opcode}: no result was created"))),
        }
    }

    /// Wraps a raw value of this builder.
    pub(crate) fn val(&self, value: Value) -> Val {
        Val { value, ty: self.func.value_type(value), builder: self.id }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_mir::text::print_function;

    #[test]
    fn names_are_identifiers() {
        assert!(valid_name("src"));
        assert!(valid_name("_x9"));
        assert!(!valid_name(""));
        assert!(!valid_name("9a"));
        assert!(!valid_name("a-b"));
    }

    #[test]
    fn empty_kernel_gets_return() {
        let mut ctx = FunctionBuilderContext::new();
        let b = KernelBuilder::new(&mut ctx, "empty");
        let f = b.finish().unwrap();
        assert_eq!(print_function(&f), "kernel @empty() block(1, 1, 1) grid(1, 1, 1) {\n  return\n}\n");
    }

    #[test]
    fn shared_addr_goes_to_the_prologue() {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "k");
        let _t = b.thread_id(qd_mir::Dim::X).unwrap();
        let s = b.shared_array("tile", ScalarType::F32, 64);
        assert_eq!(s.len(), 64);
        assert!(!s.is_empty());
        let f = b.finish().unwrap();
        assert_eq!(
            print_function(&f),
            "kernel @k() block(1, 1, 1) grid(1, 1, 1) {\n  shared @tile: [f32; 64]\n  \
             %0 = shared.addr @tile : ptr<shared, f32>\n  %1 = thread_id x : u32\n  return\n}\n"
        );
    }

    #[test]
    fn deferred_name_errors() {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "k");
        let _ = b.buffer("a", ScalarType::U32);
        let line = line!() + 1;
        let _ = b.scalar("a", ScalarType::U32);
        let e = b.finish().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Config);
        assert_eq!(e.location.line(), line);
        assert!(e.message.contains("already has a parameter %a"), "{}", e.message);

        let mut b = KernelBuilder::new(&mut ctx, "bad name");
        let _ = b.shared_array("s", ScalarType::U32, 0);
        let e = b.finish().unwrap_err();
        assert!(e.message.contains("kernel name \"bad name\""), "{}", e.message);
    }

    #[test]
    fn launch_setters() {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "k");
        let n = b.scalar("n", ScalarType::U32);
        let x = b.scalar("x", ScalarType::F32);
        b.set_block_dim([8, 8, 2]).unwrap();
        assert_eq!(b.set_block_dim(0).unwrap_err().kind, ErrorKind::OutOfRange);
        assert_eq!(b.set_block_dim([64, 64, 1]).unwrap_err().kind, ErrorKind::OutOfRange);
        assert_eq!(b.grid_fixed([1, 0, 1]).unwrap_err().kind, ErrorKind::OutOfRange);
        b.grid_fixed(3).unwrap();
        assert_eq!(b.func().launch.grid, GridPolicy::Fixed([3, 1, 1]));
        let e = b.grid_cover(x).unwrap_err();
        assert!(e.message.contains("got a f32 value"), "{}", e.message);
        let one = b.const_u32(1).unwrap();
        assert_eq!(b.grid_cover(one).unwrap_err().kind, ErrorKind::Config);
        b.grid_cover(n).unwrap();
        assert_eq!(b.func().launch.grid, GridPolicy::Cover(0));
        b.grid_saturating();
        let f = b.finish().unwrap();
        assert_eq!(f.launch.block, [8, 8, 2]);
        assert_eq!(f.launch.grid, GridPolicy::Saturating);
    }
}
