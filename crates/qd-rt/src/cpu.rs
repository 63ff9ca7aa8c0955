//! The `cpu` device: the MIR interpreter (`qd_mir::interp`) at a chosen subgroup width (32 by
//! default, any power of two 1..=64). Buffers are host memory; a launch runs to completion, so
//! `synchronize` has nothing to wait for.

use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind, HostBuffer, LaunchOptions};
use qd_mir::interp::{self, ArgValue, RunConfig};
use qd_mir::{Function, Module, Program};
use std::sync::Mutex;

/// Checks a subgroup width.
pub(crate) fn check_width(w: u32) -> Result<(), RtError> {
    if w.is_power_of_two() && w <= 64 {
        Ok(())
    } else {
        Err(RtError::usage(format!("cpu subgroup width must be a power of two from 1 to 64, got {w}")))
    }
}

/// The description of a cpu device of width `w`.
pub(crate) fn info(w: u32) -> DeviceInfo {
    DeviceInfo {
        kind: DeviceKind::Cpu,
        ordinal: 0,
        name: "MIR interpreter".to_string(),
        subgroup_width: w,
        detail: format!("MIR interpreter, subgroup width {w}"),
        forward_progress: true,
    }
}

fn config(w: u32, opts: &LaunchOptions) -> RunConfig {
    RunConfig { subgroup_size: w, grid: opts.grid, block: opts.block, step_limit: None }
}

/// Runs a kernel on the interpreter.
pub(crate) fn run_kernel(w: u32, f: &Function, args: &mut [ArgValue], opts: &LaunchOptions) -> Result<(), RtError> {
    interp::run_kernel(f, &config(w, opts), args).map(|_| ()).map_err(|e| RtError::interp(&e))
}

/// Runs a program on the interpreter.
pub(crate) fn run_program(w: u32, m: &Module, p: &Program, args: &mut [ArgValue]) -> Result<(), RtError> {
    crate::program::check_args(p, args)?;
    let cfg = RunConfig { subgroup_size: w, ..RunConfig::default() };
    let (_, status) = interp::run_program_status(m, p, &cfg, args).map_err(|e| RtError::interp(&e))?;
    crate::program::check_status(p, status)
}

/// A host buffer the cpu device launches on.
pub(crate) struct CpuBuffer(pub Mutex<HostBuffer>);

/// Runs a kernel over device arguments on the interpreter (see [`with_bound_buffers`]).
pub(crate) fn launch(
    w: u32,
    f: &Function,
    bufs: &[Option<&CpuBuffer>],
    scalars: Vec<ArgValue>,
    grid: Option<[u32; 3]>,
) -> Result<(), RtError> {
    let cfg = RunConfig { subgroup_size: w, grid, block: None, step_limit: None };
    with_bound_buffers(bufs, scalars, |args, bind| {
        interp::run_kernel_shared(f, &cfg, args, bind).map(|_| ()).map_err(|e| RtError::interp(&e))
    })
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
