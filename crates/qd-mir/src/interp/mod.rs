//! The SIMT interpreter: runs a kernel ([`run_kernel`]) or a program of launches
//! ([`run_program`]) on the CPU with exact subgroup semantics. It is the reference oracle for every
//! back end and the engine of the `cpu` device.
//!
//! Arguments are [`ArgValue`]s, one per parameter: buffers (updated in place) and scalars. The
//! engine ([`exec`]) runs lock-step subgroups of any power-of-two width 1..=64 with `u64` active
//! masks through the structured control flow, suspends them at block barriers and schedules them
//! round-robin; memory ([`memory`]) bounds-checks every access; collectives come from [`simt`].
//!
//! # Implementation-defined choices (documented, deterministic)
//!
//! - Blocks run sequentially in linear order (block id x fastest); subgroups of a block run
//!   round-robin between barriers (subgroup 0 first). Racy programs are therefore deterministic.
//! - Shared memory is fresh and zero-filled for every block; registers are zero-filled too.
//! - Fences and `subgroup.sync` are no-ops (execution is sequential and lock-step).
//! - Atomics of one instruction apply lane by lane in ascending lane order; `atomic.cas` compares
//!   raw bits (floats included).
//! - A `bool` in memory is one byte: stores write 0/1, loads read `byte != 0`.
//! - Shuffles from an inactive source lane return the lane's own value (see [`simt`]).
//! - Falling off the end of the kernel body without `return` ends the remaining lanes.
//! - `GridPolicy::Saturating` launches [`GridPolicy::INTERP_SATURATING_BLOCKS`] blocks;
//!   `GridPolicy::Cover(p)` launches `ceil(p / block.x)` blocks (0 when `p ≤ 0`).
//! - A block has at most [`MAX_BLOCK_THREADS`] threads and [`MAX_SHARED_BYTES`] of shared arrays.
//! - In a program, the step limit bounds the lane-instructions of all launches together.
//! - Fault locations name the block id, the linear thread index within the block and the lane
//!   (or the subgroup for subgroup-wide faults such as barriers under divergence).

mod check;
mod exec;
pub(crate) mod memory;
pub mod simt;

/// The pointer encoding and the access check every `cpu` engine shares (see [`memory`]'s docs).
pub mod pointer {
    pub use super::memory::{decode_target, encode, offset, resolve};
}
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_control;
#[cfg(test)]
mod tests_warp;

use crate::entities::Inst;
use crate::function::{Function, GridPolicy, LaunchArg, Module, Program};
use crate::text::printer::print_inst;
use crate::types::{AddrSpace, ScalarType, Type};
use core::fmt;
use exec::{Counters, Launch};
use memory::Memory;

/// The largest number of threads of a block the interpreter runs.
pub const MAX_BLOCK_THREADS: u64 = 1 << 16;

/// The largest total size in bytes of a kernel's shared arrays the interpreter runs.
pub const MAX_SHARED_BYTES: u64 = 1 << 26;

/// A buffer argument: little-endian elements (`bool` = 1 byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Element type.
    pub elem: ScalarType,
    /// The bytes (`len / elem.bytes()` elements).
    pub data: Vec<u8>,
}

impl Buffer {
    /// A buffer of the given elements' raw bits (canonical register bits, as in `eval`).
    pub fn from_bits(elem: ScalarType, bits: impl IntoIterator<Item = u64>) -> Buffer {
        let n = elem.bytes() as usize;
        let mut data = Vec::new();
        for b in bits {
            data.extend_from_slice(&b.to_le_bytes()[..n]);
        }
        Buffer { elem, data }
    }

    /// The elements' raw bits (bool: 0/1).
    pub fn to_bits(&self) -> Vec<u64> {
        let n = self.elem.bytes() as usize;
        self.data
            .chunks_exact(n)
            .map(|c| {
                let v = c.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
                if self.elem == ScalarType::Bool {
                    u64::from(v != 0)
                } else {
                    v
                }
            })
            .collect()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len() / self.elem.bytes() as usize
    }

    /// True when the buffer has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An argument of a kernel or program parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A buffer, for a `ptr<global, T>` parameter (its `elem` must be `T`).
    Buffer(Buffer),
    /// A scalar of a type and its raw bits, for a scalar parameter of that type.
    Scalar(ScalarType, u64),
}

impl ArgValue {
    fn describe(&self) -> String {
        match self {
            ArgValue::Buffer(b) => format!("a buffer of {}", b.elem),
            ArgValue::Scalar(t, _) => format!("a {t} scalar"),
        }
    }
}

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// Subgroup width: a power of two, 1..=64.
    pub subgroup_size: u32,
    /// Overrides the kernel's grid (kernels only).
    pub grid: Option<[u32; 3]>,
    /// Overrides the kernel's block size (kernels only).
    pub block: Option<[u32; 3]>,
    /// Fault after this many lane-instructions.
    pub step_limit: Option<u64>,
    /// Run a kernel that declares its subgroup width (`subgroup(W)`) at that width, with
    /// `subgroup_size` the width of the kernels that declare none — what a host device that
    /// offers every width does. When false, a kernel declaring another width is an error.
    pub declared_width: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { subgroup_size: 32, grid: None, block: None, step_limit: None, declared_width: false }
    }
}

/// What a run did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Instructions executed, counted once per active lane.
    pub lane_instructions: u64,
    /// Blocks run.
    pub blocks: u64,
    /// Block barriers released.
    pub barriers: u64,
}

/// A run-time fault or an argument/configuration error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    /// The kernel (or, for program-level errors, the program) concerned.
    pub kernel: String,
    /// What went wrong.
    pub message: String,
    /// The program, when running one.
    pub program: Option<String>,
    /// The launch index within the program.
    pub launch: Option<usize>,
    /// Where it went wrong (all `None` for argument and configuration errors).
    pub at: Box<FaultSite>,
}

/// Where a fault happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultSite {
    /// The faulting instruction, printed as its MIR line.
    pub inst: Option<String>,
    /// The block id.
    pub block: Option<[u32; 3]>,
    /// The subgroup index within the block (subgroup-wide faults).
    pub subgroup: Option<u32>,
    /// The linear thread index within the block.
    pub thread: Option<u32>,
    /// The lane within the subgroup.
    pub lane: Option<u32>,
}

impl InterpError {
    /// An error of `kernel` with no site (argument and configuration errors).
    pub fn new(kernel: &str, message: String) -> InterpError {
        InterpError { kernel: kernel.to_string(), message, program: None, launch: None, at: Box::default() }
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.program, self.launch) {
            (Some(p), Some(l)) => write!(f, "program @{p}, launch {l}: kernel @{}: {}", self.kernel, self.message)?,
            // The program's check and status messages name the program themselves.
            (Some(p), None) if self.message.starts_with(&format!("program @{p}: ")) => f.write_str(&self.message)?,
            (Some(p), None) => write!(f, "program @{p}: {}", self.message)?,
            (None, _) => write!(f, "kernel @{}: {}", self.kernel, self.message)?,
        }
        let at = &self.at;
        if let Some(i) = &at.inst {
            write!(f, " in `{i}`")?;
        }
        let mut loc = Vec::new();
        if let Some([x, y, z]) = at.block {
            loc.push(format!("block ({x},{y},{z})"));
        }
        if let Some(s) = at.subgroup {
            loc.push(format!("subgroup {s}"));
        }
        if let Some(t) = at.thread {
            loc.push(format!("thread {t}"));
        }
        if let Some(l) = at.lane {
            loc.push(format!("lane {l}"));
        }
        if !loc.is_empty() {
            write!(f, " ({})", loc.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {}

/// An engine fault before it is rendered (instructions are printed only on error).
#[derive(Clone, Debug)]
pub(crate) struct Fault {
    pub message: String,
    pub inst: Option<Inst>,
    pub block: Option<[u32; 3]>,
    pub subgroup: Option<u32>,
    pub thread: Option<u32>,
    pub lane: Option<u32>,
}

impl Fault {
    fn render(self, f: &Function) -> InterpError {
        let at = FaultSite {
            inst: self.inst.map(|i| print_inst(f, i)),
            block: self.block,
            subgroup: self.subgroup,
            thread: self.thread,
            lane: self.lane,
        };
        InterpError { at: Box::new(at), ..InterpError::new(&f.name, self.message) }
    }
}

/// Runs a kernel. `args` has one entry per parameter; buffers are updated in place.
pub fn run_kernel(f: &Function, cfg: &RunConfig, args: &mut [ArgValue]) -> Result<RunStats, InterpError> {
    if args.len() != f.params.len() {
        return Err(InterpError::new(&f.name, format!("expects {} argument(s), got {}", f.params.len(), args.len())));
    }
    let bind: Vec<usize> = (0..args.len()).collect();
    run_kernel_shared(f, cfg, args, &bind)
}

/// Runs a kernel whose parameters may share buffers: `bind[i]` is the index in `args` of the
/// argument of parameter `i`, so one buffer can be bound to several parameters (the kernel
/// then sees one memory through both, as on a GPU). Buffers are updated in place.
pub fn run_kernel_shared(
    f: &Function,
    cfg: &RunConfig,
    args: &mut [ArgValue],
    bind: &[usize],
) -> Result<RunStats, InterpError> {
    let (scalars, param_slot) = bind_args(f, args, bind)?;
    let slots: Vec<Option<&mut Buffer>> = args
        .iter_mut()
        .map(|a| match a {
            ArgValue::Buffer(b) => Some(b),
            ArgValue::Scalar(..) => None,
        })
        .collect();
    let mut cnt = Counters { steps: 0, limit: cfg.step_limit, blocks: 0, barriers: 0 };
    launch(f, cfg, cfg.grid, cfg.block, slots, param_slot, &scalars, &mut cnt)?;
    Ok(RunStats { lane_instructions: cnt.steps, blocks: cnt.blocks, barriers: cnt.barriers })
}

/// Checks a kernel's arguments against its parameters, as every `cpu` engine does before a
/// launch: `bind[i]` is the index in `args` of parameter `i`'s argument. Gives each parameter's
/// canonical scalar bits (`None` for buffers) and the argument slot of each buffer parameter.
#[allow(clippy::type_complexity)]
pub fn bind_args(
    f: &Function,
    args: &[ArgValue],
    bind: &[usize],
) -> Result<(Vec<Option<u64>>, Vec<Option<usize>>), InterpError> {
    let err = |m: String| InterpError::new(&f.name, m);
    if bind.len() != f.params.len() {
        return Err(err(format!("expects {} argument(s), got {}", f.params.len(), bind.len())));
    }
    let mut scalars = Vec::with_capacity(bind.len());
    let mut param_slot = Vec::with_capacity(bind.len());
    for (i, (p, &k)) in f.params.iter().zip(bind).enumerate() {
        let named = |m: String| err(format!("argument {i} (%{}): {m}", p.name));
        let a = args.get(k).ok_or_else(|| named(format!("binds argument {k}, which does not exist")))?;
        let s = check_arg(p.ty, a).map_err(named)?;
        param_slot.push(s.is_none().then_some(k));
        scalars.push(s);
    }
    Ok((scalars, param_slot))
}

/// Runs the launches of a program in order. `args` has one entry per program parameter; a buffer
/// passed to several launches is the same object, so later launches see earlier writes.
///
/// The program's [`ProgramCheck`](crate::ProgramCheck)s are made first (each argument is its
/// own buffer, so `distinct` always holds here), and a status word left non-zero by the launches
/// is an error carrying its bits' messages.
pub fn run_program(m: &Module, p: &Program, cfg: &RunConfig, args: &mut [ArgValue]) -> Result<RunStats, InterpError> {
    let err = |m: String| InterpError { program: Some(p.name.clone()), ..InterpError::new(&p.name, m) };
    let len = |i: usize| match args.get(i) {
        Some(ArgValue::Buffer(b)) => Some(b.len() as u64),
        _ => None,
    };
    p.check_args(&len, &|a, b| a == b).map_err(|f| err(f.message))?;
    let (stats, status) = run_program_status(m, p, cfg, args)?;
    match p.status_message(status) {
        Some(msg) => Err(err(msg)),
        None => Ok(stats),
    }
}

/// Runs the launches of a program without its argument checks, giving the final value of its
/// status word (0 when it has none) instead of turning a non-zero status into an error: the
/// pieces `run_program` is made of, for a runtime that reports those itself.
pub fn run_program_status(
    m: &Module,
    p: &Program,
    cfg: &RunConfig,
    args: &mut [ArgValue],
) -> Result<(RunStats, u32), InterpError> {
    let err = |m: String| InterpError { program: Some(p.name.clone()), ..InterpError::new(&p.name, m) };
    if cfg.grid.is_some() || cfg.block.is_some() {
        return Err(err("grid/block overrides apply to kernels only, not to programs".into()));
    }
    if args.len() != p.params.len() {
        return Err(err(format!("program expects {} argument(s), got {}", p.params.len(), args.len())));
    }
    for (pp, a) in p.params.iter().zip(args.iter()) {
        check_arg(pp.ty, a).map_err(|m| err(format!("program argument %{}: {m}", pp.name)))?;
    }
    let mut cnt = Counters { steps: 0, limit: cfg.step_limit, blocks: 0, barriers: 0 };
    let mut status = Buffer { elem: ScalarType::U32, data: vec![0; 4] };
    let status_slot = args.len();
    for (li, l) in p.launches.iter().enumerate() {
        let lerr = |m: String| InterpError { launch: Some(li), kernel: l.kernel.clone(), ..err(m) };
        let f = m.kernel(&l.kernel).ok_or_else(|| lerr("no such kernel in the module".into()))?;
        if l.args.len() != f.params.len() {
            return Err(lerr(format!("kernel expects {} argument(s), launch gives {}", f.params.len(), l.args.len())));
        }
        let mut scalars = Vec::with_capacity(l.args.len());
        let mut param_slot = Vec::with_capacity(l.args.len());
        for (i, (kp, la)) in f.params.iter().zip(&l.args).enumerate() {
            let named = |m: String| lerr(format!("argument {i} (%{}): {m}", kp.name));
            match *la {
                LaunchArg::Param(pi) => {
                    let a = args
                        .get(usize::from(pi))
                        .ok_or_else(|| named(format!("program parameter {pi} does not exist")))?;
                    let s = check_arg(kp.ty, a).map_err(named)?;
                    param_slot.push(s.is_none().then_some(usize::from(pi)));
                    scalars.push(s);
                }
                LaunchArg::Const(ty, bits) => {
                    let s = check_arg(kp.ty, &ArgValue::Scalar(ty, bits)).map_err(named)?;
                    param_slot.push(None);
                    scalars.push(s);
                }
                LaunchArg::Status => {
                    if p.status.is_none() {
                        return Err(named("the program has no status word".into()));
                    }
                    if kp.ty != Type::Ptr(AddrSpace::Global, ScalarType::U32) {
                        return Err(named(format!(
                            "the status word is a ptr<global, u32>, the parameter is {}",
                            kp.ty
                        )));
                    }
                    param_slot.push(Some(status_slot));
                    scalars.push(None);
                }
            }
        }
        let mut slots: Vec<Option<&mut Buffer>> = args
            .iter_mut()
            .map(|a| match a {
                ArgValue::Buffer(b) => Some(b),
                ArgValue::Scalar(..) => None,
            })
            .collect();
        slots.push(Some(&mut status));
        launch(f, cfg, None, None, slots, param_slot, &scalars, &mut cnt).map_err(|e| InterpError {
            program: Some(p.name.clone()),
            launch: Some(li),
            ..e
        })?;
    }
    let value = u32::from_le_bytes([status.data[0], status.data[1], status.data[2], status.data[3]]);
    Ok((RunStats { lane_instructions: cnt.steps, blocks: cnt.blocks, barriers: cnt.barriers }, value))
}

/// Checks an argument against a parameter type; `Some(bits)` for scalars, `None` for buffers.
fn check_arg(ty: Type, a: &ArgValue) -> Result<Option<u64>, String> {
    match (ty, a) {
        (Type::Ptr(AddrSpace::Global, e), ArgValue::Buffer(b)) if b.elem == e => Ok(None),
        (Type::Scalar(s), ArgValue::Scalar(t, bits)) if *t == s => Ok(Some(crate::eval::canon(s, *bits))),
        (Type::Ptr(AddrSpace::Shared, _), _) => Err(format!("parameter type {ty} cannot be passed by the host")),
        (Type::Ptr(AddrSpace::Global, e), _) => Err(format!("expected a buffer of {e}, got {}", a.describe())),
        (Type::Scalar(s), _) => Err(format!("expected a {s} scalar, got {}", a.describe())),
    }
}

/// Computes the geometry of one launch and runs it.
#[allow(clippy::too_many_arguments)]
fn launch(
    f: &Function,
    cfg: &RunConfig,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    slots: Vec<Option<&mut Buffer>>,
    param_slot: Vec<Option<usize>>,
    scalars: &[Option<u64>],
    cnt: &mut Counters,
) -> Result<(), InterpError> {
    let err = |m: String| InterpError::new(&f.name, m);
    let width = match (cfg.declared_width, f.launch.subgroup_size) {
        (true, Some(w)) => w,
        _ => cfg.subgroup_size,
    };
    if !width.is_power_of_two() || width > 64 {
        return Err(err(format!("subgroup size must be a power of two from 1 to 64, got {width}")));
    }
    if let Some(w) = f.launch.subgroup_size {
        if w != width {
            return Err(err(format!(
                "the kernel was built for subgroup({w}) and cannot run at subgroup width {width}"
            )));
        }
    }
    if f.params.len() >= memory::MAX_IDS || f.shared.len() >= memory::MAX_IDS {
        return Err(err("too many parameters or shared arrays".into()));
    }
    check::check_function(f).map_err(|(m, inst)| {
        let e = err(format!("malformed kernel: {m}"));
        InterpError { at: Box::new(FaultSite { inst: inst.map(|i| i.to_string()), ..FaultSite::default() }), ..e }
    })?;
    let (block, grid) = geometry(f, grid, block, scalars)?;
    let params = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| exec::param_bits(p.ty, i, scalars.get(i).copied().flatten()))
        .collect();
    let names = f.params.iter().map(|p| p.name.clone()).collect();
    let shared: Vec<(String, u64)> =
        f.shared.values().map(|s| (s.name.clone(), u64::from(s.len) * u64::from(s.elem.bytes()))).collect();
    let shared_bytes: u64 = shared.iter().map(|s| s.1).sum();
    if shared_bytes > MAX_SHARED_BYTES {
        return Err(err(format!("shared arrays need {shared_bytes} bytes, more than {MAX_SHARED_BYTES}")));
    }
    let mut mem = Memory::new(slots, param_slot, names, &shared);
    let l = Launch { f, width, block, grid, params };
    exec::run_launch(&l, &mut mem, cnt).map_err(|fault| fault.render(f))
}

/// The block and grid of one launch of `f`: the overrides or the kernel's own launch shape
/// (`grid(cover %n)` computed from the scalar arguments), checked against [`MAX_BLOCK_THREADS`].
pub fn geometry(
    f: &Function,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    scalars: &[Option<u64>],
) -> Result<([u32; 3], [u32; 3]), InterpError> {
    let err = |m: String| InterpError::new(&f.name, m);
    let block = block.unwrap_or(f.launch.block);
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || threads > MAX_BLOCK_THREADS {
        return Err(err(format!(
            "block size {block:?} must have between 1 and {MAX_BLOCK_THREADS} threads (every dimension at least 1)"
        )));
    }
    let grid = match (grid, f.launch.grid) {
        (Some(g), _) | (None, GridPolicy::Fixed(g)) => g,
        (None, GridPolicy::Saturating) => [GridPolicy::INTERP_SATURATING_BLOCKS, 1, 1],
        (None, GridPolicy::Cover(pi)) => {
            let p = f.params.get(usize::from(pi)).ok_or_else(|| err(format!("grid(cover) names parameter {pi}")))?;
            let bits: i128 = match (p.ty.scalar(), scalars.get(usize::from(pi)).copied().flatten()) {
                (Some(s @ (ScalarType::I32 | ScalarType::U32 | ScalarType::I64)), Some(bits)) => {
                    i128::from(crate::eval::as_i64(s, bits))
                }
                (Some(ScalarType::U64), Some(bits)) => i128::from(bits),
                _ => return Err(err(format!("grid(cover %{}) needs an integer scalar parameter", p.name))),
            };
            let n = if bits <= 0 { 0 } else { (bits + i128::from(block[0]) - 1) / i128::from(block[0]) };
            let n = u32::try_from(n).map_err(|_| err(format!("grid(cover %{}) needs {n} blocks: too many", p.name)))?;
            [n, 1, 1]
        }
    };
    Ok((block, grid))
}
