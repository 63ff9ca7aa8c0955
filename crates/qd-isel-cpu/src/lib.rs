//! qd's native `cpu` back end: verified MIR → Cranelift IR → machine code in memory, run on
//! every core, with the interpreter's semantics bit for bit and its fault reports.
//!
//! - [`compile_verified`] / [`compile_kernel`]: the back-end contract every qd back end offers
//!   (`qd_mir::VerifiedKernel` in, [`CpuKernel`] or a typed [`CompileError`] out).
//! - [`CpuKernel::run`]: one launch, blocks in parallel on a pool of threads (handed out in
//!   increasing block order, so the look-back algorithms keep their forward-progress guarantee),
//!   the subgroups of a block on one thread taking turns at block barriers.
//! - [`cache`]: compiled kernels shared per process, keyed by kernel text and width.
//!
//! The scheme — lane arrays, fused lane loops, masks, barriers on coroutines, faults, the step and
//! time budget — is documented in `docs/cpu.md` and in [`lower`]'s and [`launch`]'s module docs.

mod abi;
pub mod cache;
mod helpers;
mod launch;
mod lower;

pub use launch::{Limits, RunOptions};
pub use qd_mir::CompileError;

use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use qd_mir::analysis::Uniformity;
use qd_mir::{Function, VerifiedKernel};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The signature of a compiled subgroup function.
type Entry = unsafe extern "C" fn(*mut abi::SgCtx) -> u32;

/// Options of a compile.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CpuOptions {
    /// Subgroup width: a power of two from 1 to 64.
    pub width: u32,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions { width: DEFAULT_WIDTH }
    }
}

/// The default subgroup width of the `cpu` device.
pub const DEFAULT_WIDTH: u32 = 32;

/// Time spent in each phase of a compile.
#[derive(Copy, Clone, Debug, Default)]
pub struct CompileTimes {
    /// MIR → Cranelift IR (with the uniformity analysis).
    pub lower: Duration,
    /// Cranelift: IR → machine code, and making it executable.
    pub codegen: Duration,
}

/// A kernel compiled to native code for one subgroup width.
pub struct CpuKernel {
    func: Function,
    width: u32,
    slots: u32,
    has_barrier: bool,
    entry: Entry,
    times: CompileTimes,
    clif: Option<String>,
    disasm: Option<String>,
    /// Owns the executable memory `entry` points into.
    module: Mutex<Option<JITModule>>,
}

// SAFETY: the module is only touched under its mutex (to free it on drop); `entry` points into
// immutable executable memory that lives as long as the module; the rest is plain data.
unsafe impl Send for CpuKernel {}
// SAFETY: as above; running the entry concurrently is what the launch does, each call with its own
// context.
unsafe impl Sync for CpuKernel {}

impl Drop for CpuKernel {
    fn drop(&mut self) {
        let m = self.module.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(m) = m {
            // SAFETY: the kernel is being dropped, so no launch can still run its code.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for CpuKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuKernel").field("kernel", &self.func.name).field("width", &self.width).finish()
    }
}

impl CpuKernel {
    /// The kernel.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// The subgroup width it was compiled for.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// How long the compile took, by phase.
    pub fn times(&self) -> CompileTimes {
        self.times
    }

    /// The Cranelift IR it was compiled from (when asked for with [`compile_with_clif`]).
    pub fn clif(&self) -> Option<&str> {
        self.clif.as_deref()
    }

    /// The machine code Cranelift made of it, as text (with [`compile_with_clif`]).
    pub fn disasm(&self) -> Option<&str> {
        self.disasm.as_deref()
    }

    pub(crate) fn slots(&self) -> u32 {
        self.slots
    }

    pub(crate) fn has_barrier(&self) -> bool {
        self.has_barrier
    }

    pub(crate) fn entry(&self) -> Entry {
        self.entry
    }
}

/// Compiles a verified kernel for subgroups of `opts.width` lanes.
pub fn compile_verified(k: &VerifiedKernel, opts: &CpuOptions) -> Result<CpuKernel, CompileError> {
    compile_inner(k.function(), opts, false)
}

/// Verifies and compiles a kernel.
pub fn compile_kernel(f: &Function, opts: &CpuOptions) -> Result<CpuKernel, CompileError> {
    let k = VerifiedKernel::new(f.clone())?;
    compile_verified(&k, opts)
}

/// Compiles a verified kernel and keeps the Cranelift IR text (for `qdc compile --target cpu` and
/// reviews of the lowering).
pub fn compile_with_clif(k: &VerifiedKernel, opts: &CpuOptions) -> Result<CpuKernel, CompileError> {
    compile_inner(k.function(), opts, true)
}

fn compile_inner(f: &Function, opts: &CpuOptions, keep_clif: bool) -> Result<CpuKernel, CompileError> {
    let w = opts.width;
    if !w.is_power_of_two() || w > 64 {
        return Err(CompileError::limit(lower::TARGET, "subgroup width (a power of two)", u64::from(w), 64));
    }
    if let Some(sw) = f.launch.subgroup_size {
        if sw != w {
            return Err(CompileError::unsupported(
                lower::TARGET,
                None,
                None,
                format!("the kernel was built for subgroup({sw}) and cannot run at subgroup width {w}"),
            ));
        }
    }
    let max_ids = 1usize << 21;
    if f.params.len() >= max_ids || f.shared.len() >= max_ids {
        return Err(CompileError::limit(
            lower::TARGET,
            "parameters or shared arrays",
            f.params.len().max(f.shared.len()) as u64,
            max_ids as u64 - 1,
        ));
    }
    let t0 = Instant::now();
    // Every thread sees the same kernel arguments: parameters are uniform on this device.
    // The kernel keeps this copy (the flag changes nothing the launch or its faults read).
    let mut g = f.clone();
    for p in &mut g.params {
        p.uniform = true;
    }
    let uni = Uniformity::new(&g);
    let mut module = new_module()?;
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let target = module.isa().frontend_config();
    let lowered = lower::lower(&g, &uni, w, &mut ctx.func, &mut fctx, target)?;
    let clif = keep_clif.then(|| ctx.func.display().to_string());
    ctx.set_disasm(keep_clif);
    let t1 = Instant::now();
    let internal = |m: String| CompileError::internal(lower::TARGET, m);
    let id = module
        .declare_function("qd_kernel", Linkage::Local, &ctx.func.signature)
        .map_err(|e| internal(format!("declaring the kernel: {e}")))?;
    module.define_function(id, &mut ctx).map_err(|e| internal(format!("Cranelift: {e:?}")))?;
    // Only when asked for: formatting the code is not part of a compile's cost.
    let disasm = ctx.compiled_code().filter(|_| keep_clif).and_then(|c| {
        let bytes: String = c.buffer.data().iter().map(|b| format!("{b:02x}")).collect();
        c.vcode.as_ref().map(|v| format!("{v}\n; code bytes: {bytes}"))
    });
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| internal(format!("finalizing: {e}")))?;
    let code = module.get_finalized_function(id);
    // SAFETY: `code` is the finalized function just compiled with the `Entry` signature
    // (`lower::lower` declares exactly one i64 parameter and one i32 result, System V).
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(code) };
    let times = CompileTimes { lower: t1 - t0, codegen: t1.elapsed() };
    let has_barrier = f
        .insts
        .values()
        .any(|d| matches!(d.opcode.sync(), Some(qd_mir::ops::SyncOp::BlockSync | qd_mir::ops::SyncOp::BlockSyncPred)));
    Ok(CpuKernel {
        func: g,
        width: w,
        slots: lowered.slots,
        has_barrier,
        entry,
        times,
        clif,
        disasm,
        module: Mutex::new(Some(module)),
    })
}

/// A JIT module for the host machine.
fn new_module() -> Result<JITModule, CompileError> {
    let internal = |m: String| CompileError::internal(lower::TARGET, m);
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, k: &str, v: &str| {
        flags.set(k, v).map_err(|e| internal(format!("Cranelift setting {k}: {e}")))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| internal(format!("host machine: {e}")))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| internal(format!("host ISA: {e}")))?;
    let builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    Ok(JITModule::new(builder))
}
