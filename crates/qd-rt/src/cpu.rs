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

/// Runs a kernel over device arguments: each distinct buffer is moved into the interpreter's
/// arguments once (a buffer passed for several parameters is one memory, as on a GPU) and back.
pub(crate) fn launch(
    w: u32,
    f: &Function,
    bufs: &[Option<&CpuBuffer>],
    scalars: Vec<ArgValue>,
    grid: Option<[u32; 3]>,
) -> Result<(), RtError> {
    // The distinct buffers, in first-use order, and each parameter's argument index.
    let mut unique: Vec<&CpuBuffer> = Vec::new();
    let mut args: Vec<ArgValue> = Vec::with_capacity(scalars.len());
    let mut bind = Vec::with_capacity(scalars.len());
    let mut buffer_arg = Vec::new();
    for (s, b) in scalars.into_iter().zip(bufs) {
        match b {
            Some(b) => match unique.iter().position(|u| std::ptr::eq(*u, *b)) {
                Some(k) => bind.push(buffer_arg[k]),
                None => {
                    let mut g = b.0.lock().unwrap_or_else(|p| p.into_inner());
                    let taken = HostBuffer { elem: g.elem, data: std::mem::take(&mut g.data) };
                    unique.push(b);
                    buffer_arg.push(args.len());
                    bind.push(args.len());
                    args.push(ArgValue::Buffer(taken));
                }
            },
            None => {
                bind.push(args.len());
                args.push(s);
            }
        }
    }
    let cfg = RunConfig { subgroup_size: w, grid, block: None, step_limit: None };
    let r = interp::run_kernel_shared(f, &cfg, &mut args, &bind).map(|_| ()).map_err(|e| RtError::interp(&e));
    for (b, k) in unique.iter().zip(buffer_arg) {
        if let Some(ArgValue::Buffer(data)) = args.get_mut(k) {
            *b.0.lock().unwrap_or_else(|p| p.into_inner()) =
                std::mem::replace(data, HostBuffer { elem: data.elem, data: Vec::new() });
        }
    }
    r
}
