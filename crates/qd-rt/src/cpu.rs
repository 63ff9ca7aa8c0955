//! The `cpu` device and the `interp` device: kernels on the host's cores.
//!
//! - `cpu` ([`Engine::Jit`]): native code from `qd-isel-cpu` (Cranelift), compiled once per
//!   kernel text and width by its process-wide cache, blocks in parallel on every core.
//! - `interp` ([`Engine::Interp`]): the MIR interpreter (`qd_mir::interp`), the oracle, one block
//!   after another.
//!
//! Both run at a chosen subgroup width (any power of two 1..=64), both report faults in the
//! interpreter's words, and buffers are host memory: a launch runs to completion, so
//! `synchronize` has nothing to wait for. The native engine stops a kernel that runs longer than
//! [`time_limit`] (default [`DEFAULT_TIME_LIMIT_SECS`] s, `QD_CPU_TIME_LIMIT=SECONDS` to change).

use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind, HostBuffer, LaunchOptions};
use qd_isel_cpu::{Limits, RunOptions};
use qd_mir::interp::{self, ArgValue, Buffer, InterpError, RunConfig};
use qd_mir::{Function, LaunchArg, Module, Program, ScalarType, Type};
use std::sync::Mutex;
use std::time::Duration;

/// Which engine a host device runs kernels on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    /// Native code (Cranelift).
    Jit,
    /// The MIR interpreter.
    Interp,
}

/// The default subgroup width of the `cpu` device.
pub const DEFAULT_CPU_WIDTH: u32 = 32;

/// The default time limit of a `cpu` launch (or program run), in seconds.
pub const DEFAULT_TIME_LIMIT_SECS: u64 = 120;

/// The time limit of the `cpu` device: `QD_CPU_TIME_LIMIT` seconds (`0` for none), else
/// [`DEFAULT_TIME_LIMIT_SECS`].
pub fn time_limit() -> Option<Duration> {
    let secs = std::env::var("QD_CPU_TIME_LIMIT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_TIME_LIMIT_SECS);
    (secs > 0).then(|| Duration::from_secs(secs))
}

/// Checks a subgroup width.
pub(crate) fn check_width(w: u32) -> Result<(), RtError> {
    if w.is_power_of_two() && w <= 64 {
        Ok(())
    } else {
        Err(RtError::usage(format!("cpu subgroup width must be a power of two from 1 to 64, got {w}")))
    }
}

/// The description of a host device of width `w`.
pub(crate) fn info(engine: Engine, w: u32) -> DeviceInfo {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    match engine {
        Engine::Jit => DeviceInfo {
            kind: DeviceKind::Cpu,
            ordinal: 0,
            name: "native code (Cranelift)".to_string(),
            subgroup_width: w,
            detail: format!("Cranelift native code, subgroup width {w}, {threads} thread(s)"),
            forward_progress: true,
        },
        Engine::Interp => DeviceInfo {
            kind: DeviceKind::Interp,
            ordinal: 0,
            name: "MIR interpreter".to_string(),
            subgroup_width: w,
            detail: format!("MIR interpreter, subgroup width {w}"),
            forward_progress: true,
        },
    }
}

/// The width a host device of width `w` runs `f` at: the width the kernel declares
/// (`subgroup(W)`), else `w`. Both engines offer every width 1..=64, so a kernel built for a
/// width runs at it — the CPU forms of the qd-lib algorithms are built for width 1.
pub(crate) fn kernel_width(w: u32, f: &Function) -> u32 {
    f.launch.subgroup_size.unwrap_or(w)
}

/// The native code of `f` for a device of width `w` (from the process-wide cache).
fn compiled(w: u32, f: &Function) -> Result<std::sync::Arc<qd_isel_cpu::CpuKernel>, RtError> {
    qd_isel_cpu::cache::get(f, kernel_width(w, f)).map_err(|e| RtError::compile(&e))
}

fn run_options(opts: &LaunchOptions) -> RunOptions {
    RunOptions { grid: opts.grid, block: opts.block, limits: default_limits(), threads: None }
}

/// The limits of a `cpu` launch: no step limit, [`time_limit`].
pub(crate) fn default_limits() -> Limits {
    Limits { step_limit: None, time_limit: time_limit() }
}

/// Runs a kernel on native code with explicit limits (the cross-check's expected-fault runs).
pub(crate) fn jit_kernel_limited(
    w: u32,
    f: &Function,
    args: &mut [ArgValue],
    opts: &LaunchOptions,
    limits: Limits,
) -> Result<(), RtError> {
    let k = compiled(w, f)?;
    let o = RunOptions { limits, ..run_options(opts) };
    k.run(args, &o).map(|_| ()).map_err(|e| RtError::interp(&e))
}

/// Runs a program on native code with explicit limits, with its checks and status word.
pub(crate) fn jit_program_limited(
    w: u32,
    m: &Module,
    p: &Program,
    args: &mut [ArgValue],
    limits: Limits,
) -> Result<(), RtError> {
    crate::program::check_args(p, args)?;
    let status = jit_program_status(w, m, p, args, limits)?;
    crate::program::check_status(p, status)
}

fn config(w: u32, opts: &LaunchOptions) -> RunConfig {
    RunConfig { subgroup_size: w, grid: opts.grid, block: opts.block, step_limit: None, declared_width: true }
}

/// Runs a kernel.
pub(crate) fn run_kernel(
    engine: Engine,
    w: u32,
    f: &Function,
    args: &mut [ArgValue],
    opts: &LaunchOptions,
) -> Result<(), RtError> {
    match engine {
        Engine::Interp => interp::run_kernel(f, &config(w, opts), args).map(|_| ()).map_err(|e| RtError::interp(&e)),
        Engine::Jit => {
            let k = compiled(w, f)?;
            k.run(args, &run_options(opts)).map(|_| ()).map_err(|e| RtError::interp(&e))
        }
    }
}

/// Runs a program.
pub(crate) fn run_program(
    engine: Engine,
    w: u32,
    m: &Module,
    p: &Program,
    args: &mut [ArgValue],
) -> Result<(), RtError> {
    crate::program::check_args(p, args)?;
    let status = match engine {
        Engine::Interp => {
            let cfg = RunConfig { subgroup_size: w, declared_width: true, ..RunConfig::default() };
            interp::run_program_status(m, p, &cfg, args).map_err(|e| RtError::interp(&e))?.1
        }
        Engine::Jit => jit_program_status(w, m, p, args, default_limits())?,
    };
    crate::program::check_status(p, status)
}

/// The launches of a program on native code, in order, over the program's buffers (updated in
/// place), with a zeroed status word; gives the final status word. Errors name the program and
/// the launch as the interpreter's do.
fn jit_program_status(w: u32, m: &Module, p: &Program, args: &mut [ArgValue], limits: Limits) -> Result<u32, RtError> {
    let perr = |e: InterpError| RtError::interp(&InterpError { program: Some(p.name.clone()), ..e });
    let plain = |launch: Option<usize>, kernel: &str, message: String| InterpError {
        program: Some(p.name.clone()),
        launch,
        ..InterpError::new(kernel, message)
    };
    // Every buffer lives in one argument list for the whole run: the program's arguments, then
    // the status word, then each launch's constants.
    let mut all: Vec<ArgValue> =
        args.iter_mut().map(|a| std::mem::replace(a, ArgValue::Scalar(ScalarType::U32, 0))).collect();
    let status_slot = all.len();
    all.push(ArgValue::Buffer(Buffer { elem: ScalarType::U32, data: vec![0; 4] }));
    let opts = RunOptions { limits, ..RunOptions::default() };
    let mut result = Ok(());
    for (li, l) in p.launches.iter().enumerate() {
        let Some(f) = m.kernel(&l.kernel) else {
            result = Err(perr(plain(Some(li), &l.kernel, "no such kernel in the module".into())));
            break;
        };
        all.truncate(status_slot + 1);
        let mut bind = Vec::with_capacity(l.args.len());
        for (i, la) in l.args.iter().enumerate() {
            match *la {
                LaunchArg::Param(pi) => bind.push(usize::from(pi)),
                LaunchArg::Const(ty, bits) => {
                    bind.push(all.len());
                    all.push(ArgValue::Scalar(ty, bits));
                }
                LaunchArg::Status => {
                    let ok = p.status.is_some()
                        && f.params.get(i).map(|kp| kp.ty)
                            == Some(Type::Ptr(qd_mir::AddrSpace::Global, ScalarType::U32));
                    if !ok {
                        let msg = format!("argument {i}: the status word is a ptr<global, u32> of a program with one");
                        result = Err(perr(plain(Some(li), &l.kernel, msg)));
                        break;
                    }
                    bind.push(status_slot);
                }
            }
        }
        if result.is_err() {
            break;
        }
        let k = match compiled(w, f) {
            Ok(k) => k,
            Err(e) => {
                result = Err(e.context(format!("program @{}, launch {li}", p.name)));
                break;
            }
        };
        if let Err(e) = k.run_shared(&mut all, &bind, &opts) {
            result = Err(perr(InterpError { launch: Some(li), ..e }));
            break;
        }
    }
    all.truncate(status_slot + 1);
    let status = match all.pop() {
        Some(ArgValue::Buffer(b)) => u32::from_le_bytes([b.data[0], b.data[1], b.data[2], b.data[3]]),
        _ => 0,
    };
    for (a, v) in args.iter_mut().zip(all) {
        *a = v;
    }
    result.map(|_| status)
}

/// A host buffer the cpu device launches on.
pub(crate) struct CpuBuffer(pub Mutex<HostBuffer>);

/// Runs a kernel over device arguments (see [`with_bound_buffers`]).
pub(crate) fn launch(
    engine: Engine,
    w: u32,
    f: &Function,
    bufs: &[Option<&CpuBuffer>],
    scalars: Vec<ArgValue>,
    grid: Option<[u32; 3]>,
) -> Result<(), RtError> {
    match engine {
        Engine::Interp => {
            let cfg = RunConfig { subgroup_size: w, grid, block: None, step_limit: None, declared_width: true };
            with_bound_buffers(bufs, scalars, |args, bind| {
                interp::run_kernel_shared(f, &cfg, args, bind).map(|_| ()).map_err(|e| RtError::interp(&e))
            })
        }
        Engine::Jit => {
            let k = compiled(w, f)?;
            let opts = run_options(&LaunchOptions { grid, block: None });
            with_bound_buffers(bufs, scalars, |args, bind| {
                k.run_shared(args, bind, &opts).map(|_| ()).map_err(|e| RtError::interp(&e))
            })
        }
    }
}

/// Runs `run` over one argument per parameter, built from host-memory device buffers: each
/// distinct buffer is moved out of its [`CpuBuffer`] once, into the argument of the first
/// parameter that names it, and moved back afterwards (also when `run` fails). A buffer passed
/// for several parameters is one memory, as on a GPU: the later parameters get an empty
/// placeholder buffer of the same element type and `bind[i]` names the first parameter with that
/// buffer (`bind[i] <= i`; `bind[i] == i` for every other parameter). This is the binding both
/// `qd_mir::interp::run_kernel_shared` (the `cpu` device) and `qd_isel_amdgcn::runner::run` (the
/// `sim-*` devices) take. `bufs[i]` is parameter `i`'s buffer, `scalars[i]` its scalar (ignored
/// where there is a buffer).
pub(crate) fn with_bound_buffers<R>(
    bufs: &[Option<&CpuBuffer>],
    scalars: Vec<ArgValue>,
    run: impl FnOnce(&mut [ArgValue], &[usize]) -> Result<R, RtError>,
) -> Result<R, RtError> {
    let mut args: Vec<ArgValue> = Vec::with_capacity(scalars.len());
    let mut bind = Vec::with_capacity(scalars.len());
    // The distinct buffers, in first-use order, with the parameter that holds each.
    let mut owners: Vec<(&CpuBuffer, usize)> = Vec::new();
    for (i, (s, b)) in scalars.into_iter().zip(bufs).enumerate() {
        match b {
            Some(b) => match owners.iter().find(|(u, _)| std::ptr::eq(*u, *b)) {
                Some(&(_, first)) => {
                    let elem = b.0.lock().unwrap_or_else(|p| p.into_inner()).elem;
                    bind.push(first);
                    args.push(ArgValue::Buffer(HostBuffer { elem, data: Vec::new() }));
                }
                None => {
                    let mut g = b.0.lock().unwrap_or_else(|p| p.into_inner());
                    let taken = HostBuffer { elem: g.elem, data: std::mem::take(&mut g.data) };
                    owners.push((b, i));
                    bind.push(i);
                    args.push(ArgValue::Buffer(taken));
                }
            },
            None => {
                bind.push(i);
                args.push(s);
            }
        }
    }
    let r = run(&mut args, &bind);
    for (b, k) in owners {
        if let Some(ArgValue::Buffer(data)) = args.get_mut(k) {
            *b.0.lock().unwrap_or_else(|p| p.into_inner()) =
                std::mem::replace(data, HostBuffer { elem: data.elem, data: Vec::new() });
        }
    }
    r
}
