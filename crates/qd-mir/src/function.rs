//! `Function` (one kernel = one launch), `Program` (an ordered list of launches over shared buffer
//! parameters) and `Module` (what a `.qdm` file holds).
//!
//! Storage is Cranelift-style: `PrimaryMap`s of values, instructions, regions and shared arrays,
//! operand lists in a `ListPool`. A region is a single block: parameters plus an instruction
//! vector. The body region's tree of `if`/`loop` instructions is the whole control flow.

use crate::entities::{Inst, Region, SharedArr, Value};
use crate::inst::{Imm, InstData, ValueList};
use crate::ops::Opcode;
use crate::types::{ScalarType, Type};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityList, ListPool, PrimaryMap, SecondaryMap};

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result `n` of an instruction.
    Result(Inst, u16),
    /// Parameter `n` of a region (loop-carried values).
    RegionParam(Region, u16),
    /// Kernel parameter `n`.
    Param(u16),
}

/// Data of one value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// A region: parameters, then a straight line of instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionData {
    /// Region parameters (a loop body's carried values).
    pub params: ValueList,
    /// The instructions, in order; structured ops own further regions.
    pub insts: Vec<Inst>,
    /// The instruction owning this region (`None` for the function body).
    pub parent: PackedOption<Inst>,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamData {
    /// Its name in the text format (without `%`).
    pub name: String,
    /// Its type: a `ptr<global, T>` buffer or a scalar.
    pub ty: Type,
    /// Declared uniform (same value in every thread): scalars passed by the host are.
    pub uniform: bool,
    /// The SSA value that stands for it in the body.
    pub value: Value,
}

/// A fixed-size shared array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArrData {
    /// Its name (without `@`).
    pub name: String,
    /// Element type.
    pub elem: ScalarType,
    /// Number of elements.
    pub len: u32,
}

/// How many blocks a launch has.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GridPolicy {
    /// A fixed grid.
    Fixed([u32; 3]),
    /// Enough blocks to cover a capacity: `ceil(param / block.x)` along x, where `param` is the
    /// index of a scalar integer parameter (Quadrants' constant-bound range-for).
    Cover(u16),
    /// The target's saturating grid; the kernel loops grid-stride over a count it reads itself
    /// (Quadrants' dynamic-bound range-for). The interpreter uses
    /// [`GridPolicy::INTERP_SATURATING_BLOCKS`] blocks.
    Saturating,
}

impl GridPolicy {
    /// Number of blocks the interpreter and the cpu device launch for [`GridPolicy::Saturating`].
    pub const INTERP_SATURATING_BLOCKS: u32 = 4;
}

/// Launch configuration of a kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Threads per block, per dimension.
    pub block: [u32; 3],
    /// Number of blocks.
    pub grid: GridPolicy,
    /// The subgroup width the kernel was built for (`subgroup(32)` in the text), when its body
    /// depends on it (the library's block collectives size shared memory by it). `None`: the
    /// kernel is width-agnostic and runs at any width. A device of another width refuses the
    /// kernel instead of running it wrongly.
    pub subgroup_size: Option<u32>,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig { block: [1, 1, 1], grid: GridPolicy::Fixed([1, 1, 1]), subgroup_size: None }
    }
}

/// A kernel: one launch.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name (without `@`).
    pub name: String,
    /// Parameters, in order.
    pub params: Vec<ParamData>,
    /// Launch configuration.
    pub launch: LaunchConfig,
    /// Shared arrays.
    pub shared: PrimaryMap<SharedArr, SharedArrData>,
    /// Instructions.
    pub insts: PrimaryMap<Inst, InstData>,
    /// Result values of each instruction.
    pub results: SecondaryMap<Inst, ValueList>,
    /// Values.
    pub values: PrimaryMap<Value, ValueData>,
    /// Regions.
    pub regions: PrimaryMap<Region, RegionData>,
    /// The body region.
    pub body: Region,
    /// Pool of value lists (operands, results, region params).
    pub pool: ListPool<Value>,
}

impl Function {
    /// An empty kernel with an empty body region.
    pub fn new(name: impl Into<String>) -> Function {
        let mut regions = PrimaryMap::new();
        let body = regions.push(RegionData::default());
        Function {
            name: name.into(),
            params: Vec::new(),
            launch: LaunchConfig::default(),
            shared: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            results: SecondaryMap::new(),
            values: PrimaryMap::new(),
            regions,
            body,
            pool: ListPool::new(),
        }
    }

    /// Clears everything but keeps allocations (for reusable builder contexts).
    pub fn clear(&mut self, name: &str) {
        self.name.clear();
        self.name.push_str(name);
        self.params.clear();
        self.launch = LaunchConfig::default();
        self.shared.clear();
        self.insts.clear();
        self.results.clear();
        self.values.clear();
        self.regions.clear();
        self.pool.clear();
        self.body = self.regions.push(RegionData::default());
    }

    /// Adds a kernel parameter and returns its value.
    pub fn add_param(&mut self, name: impl Into<String>, ty: Type, uniform: bool) -> Value {
        let idx = self.params.len() as u16;
        let value = self.values.push(ValueData { ty, def: ValueDef::Param(idx) });
        self.params.push(ParamData { name: name.into(), ty, uniform, value });
        value
    }

    /// Declares a shared array.
    pub fn add_shared(&mut self, name: impl Into<String>, elem: ScalarType, len: u32) -> SharedArr {
        self.shared.push(SharedArrData { name: name.into(), elem, len })
    }

    /// Creates a detached region with no parameters.
    pub fn make_region(&mut self) -> Region {
        self.regions.push(RegionData::default())
    }

    /// Adds a parameter to a region.
    pub fn add_region_param(&mut self, region: Region, ty: Type) -> Value {
        let n = self.regions[region].params.len(&self.pool) as u16;
        let v = self.values.push(ValueData { ty, def: ValueDef::RegionParam(region, n) });
        self.regions[region].params.push(v, &mut self.pool);
        v
    }

    /// Creates an instruction (not yet placed in a region) with results of the given types.
    pub fn make_inst(&mut self, opcode: Opcode, imm: Imm, args: &[Value], result_types: &[Type]) -> Inst {
        let args = EntityList::from_slice(args, &mut self.pool);
        let inst = self.insts.push(InstData::new(opcode, imm, args));
        let mut results = EntityList::new();
        for (i, &ty) in result_types.iter().enumerate() {
            let v = self.values.push(ValueData { ty, def: ValueDef::Result(inst, i as u16) });
            results.push(v, &mut self.pool);
        }
        self.results[inst] = results;
        inst
    }

    /// Sets the regions an `if` (then, else) or `loop` (body) instruction owns.
    pub fn set_inst_regions(&mut self, inst: Inst, first: Option<Region>, second: Option<Region>) {
        self.insts[inst].regions = [first.into(), second.into()];
        for r in [first, second].into_iter().flatten() {
            self.regions[r].parent = inst.into();
        }
    }

    /// Appends an instruction to a region.
    pub fn append_inst(&mut self, region: Region, inst: Inst) {
        self.regions[region].insts.push(inst);
    }

    /// The operands of an instruction.
    pub fn args(&self, inst: Inst) -> &[Value] {
        self.insts[inst].args.as_slice(&self.pool)
    }

    /// The results of an instruction.
    pub fn inst_results(&self, inst: Inst) -> &[Value] {
        self.results[inst].as_slice(&self.pool)
    }

    /// The first result of an instruction, if any.
    pub fn first_result(&self, inst: Inst) -> Option<Value> {
        self.inst_results(inst).first().copied()
    }

    /// The parameters of a region.
    pub fn region_params(&self, region: Region) -> &[Value] {
        self.regions[region].params.as_slice(&self.pool)
    }

    /// The regions an instruction owns (`if`: then, else; `loop`: body).
    pub fn inst_regions(&self, inst: Inst) -> impl Iterator<Item = Region> + '_ {
        self.insts[inst].regions.iter().filter_map(|r| r.expand())
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// Replaces the operands of an instruction.
    pub fn set_args(&mut self, inst: Inst, args: &[Value]) {
        let list = EntityList::from_slice(args, &mut self.pool);
        self.insts[inst].args = list;
    }

    /// Every instruction reachable from the body, in pre-order (an instruction before the
    /// instructions of the regions it owns).
    pub fn walk_insts(&self) -> Vec<Inst> {
        let mut out = Vec::with_capacity(self.insts.len());
        self.walk_region(self.body, &mut out);
        out
    }

    fn walk_region(&self, region: Region, out: &mut Vec<Inst>) {
        for &inst in &self.regions[region].insts {
            out.push(inst);
            for r in self.inst_regions(inst) {
                self.walk_region(r, out);
            }
        }
    }

    /// Looks a parameter up by name.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }
}

/// An argument of a launch in a program.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaunchArg {
    /// Program parameter `n`.
    Param(u16),
    /// A scalar constant (raw bits as in [`Imm::Const`]).
    Const(ScalarType, u64),
    /// The program's status word (see [`ProgramStatus`]), for a `ptr<global, u32>` parameter.
    Status,
}

/// One launch of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Name of the kernel launched (in the same module).
    pub kernel: String,
    /// Arguments, one per kernel parameter.
    pub args: Vec<LaunchArg>,
}

/// A program parameter: a buffer or scalar shared by the launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramParam {
    /// Name (without `%`).
    pub name: String,
    /// Type.
    pub ty: Type,
}

/// A program's status word: a one-element `ptr<global, u32>` buffer that the runtime allocates,
/// zeroes before the first launch and reads after the last. Kernels set bits in it (with
/// `atomic.or`) to report a condition they cannot handle, such as a live count above the
/// capacity the program was built for; any bit set makes the run an error naming its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramStatus {
    /// Name (without `%`), distinct from the parameters'.
    pub name: String,
    /// The message of each bit (bit index 0..=31, message), in bit order, no bit twice.
    pub bits: Vec<(u8, String)>,
}

/// A check the runtime makes on the arguments before the first launch of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramCheck {
    /// `check len %p >= MIN "why"`: buffer parameter `param` has at least `min` elements.
    MinLen {
        /// The buffer parameter.
        param: u16,
        /// The least length, in elements.
        min: u64,
        /// Where the bound comes from (`reduce_scratch_slots(1000, 2)`), shown in the error.
        why: String,
    },
    /// `check distinct %a, %b`: the two buffer parameters are not the same device buffer.
    Distinct {
        /// The first buffer parameter.
        a: u16,
        /// The second buffer parameter.
        b: u16,
    },
}

/// Why a program's arguments failed a [`ProgramCheck`]: the parameter named, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    /// The parameter the failure is about (without `%`).
    pub param: String,
    /// What is wrong, naming the parameter.
    pub message: String,
}

/// An ordered list of kernel launches over shared buffer parameters (Quadrants' top-level
/// phases): what the device-wide algorithms compile to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Name (without `@`).
    pub name: String,
    /// Parameters.
    pub params: Vec<ProgramParam>,
    /// The status word, if any launch reports through one.
    pub status: Option<ProgramStatus>,
    /// Checks on the arguments, made before the first launch.
    pub checks: Vec<ProgramCheck>,
    /// Launches, in order.
    pub launches: Vec<Launch>,
}

impl Program {
    /// An empty program named `name`.
    pub fn new(name: impl Into<String>) -> Program {
        Program { name: name.into(), params: Vec::new(), status: None, checks: Vec::new(), launches: Vec::new() }
    }

    /// Looks a parameter up by name.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    fn param_name(&self, i: u16) -> String {
        self.params.get(usize::from(i)).map_or_else(|| format!("?{i}"), |p| p.name.clone())
    }

    /// Makes the [`ProgramCheck`]s. `len(i)` is the length in elements of the buffer bound to
    /// parameter `i` (`None` when it is not a buffer); `same(i, j)` tells whether parameters `i`
    /// and `j` are bound to the same buffer. The first failing check is returned.
    pub fn check_args(
        &self,
        len: &dyn Fn(usize) -> Option<u64>,
        same: &dyn Fn(usize, usize) -> bool,
    ) -> Result<(), CheckFailure> {
        for c in &self.checks {
            match c {
                ProgramCheck::MinLen { param, min, why } => {
                    let name = self.param_name(*param);
                    match len(usize::from(*param)) {
                        Some(l) if l >= *min => {}
                        Some(l) => {
                            return Err(CheckFailure {
                                message: format!(
                                    "program @{}: buffer %{name} has {l} element(s), needs at least {min} ({why})",
                                    self.name
                                ),
                                param: name,
                            })
                        }
                        None => {
                            return Err(CheckFailure {
                                message: format!("program @{}: %{name} is not bound to a buffer", self.name),
                                param: name,
                            })
                        }
                    }
                }
                ProgramCheck::Distinct { a, b } => {
                    if same(usize::from(*a), usize::from(*b)) {
                        let (na, nb) = (self.param_name(*a), self.param_name(*b));
                        return Err(CheckFailure {
                            message: format!(
                                "program @{}: %{na} and %{nb} are the same buffer; they must be distinct",
                                self.name
                            ),
                            param: na,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The least length its `check len` checks ask of parameter `param` (0 when none does).
    pub fn min_len(&self, param: usize) -> u64 {
        self.checks
            .iter()
            .filter_map(|c| match c {
                ProgramCheck::MinLen { param: p, min, .. } if usize::from(*p) == param => Some(*min),
                ProgramCheck::MinLen { .. } | ProgramCheck::Distinct { .. } => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The error message for a final status word `value` (`None` when it is 0 or the program has
    /// no status): every set bit's message, in bit order.
    pub fn status_message(&self, value: u32) -> Option<String> {
        if value == 0 {
            return None;
        }
        let st = self.status.as_ref()?;
        let mut parts = Vec::new();
        for bit in 0..32u8 {
            if value & (1 << bit) != 0 {
                match st.bits.iter().find(|(b, _)| *b == bit) {
                    Some((_, m)) => parts.push(m.clone()),
                    None => parts.push(format!("bit {bit} set")),
                }
            }
        }
        Some(format!("program @{}: status %{} = {value:#x}: {}", self.name, st.name, parts.join("; ")))
    }
}

/// What a `.qdm` file holds: kernels and programs over them.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Kernels, in file order.
    pub kernels: Vec<Function>,
    /// Programs, in file order.
    pub programs: Vec<Program>,
}

impl Module {
    /// Looks a kernel up by name.
    pub fn kernel(&self, name: &str) -> Option<&Function> {
        self.kernels.iter().find(|k| k.name == name)
    }
    /// Looks a program up by name.
    pub fn program(&self, name: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.name == name)
    }
}
