//! The `sim-*` devices: qd's AMDGCN back end (`qd_isel_amdgcn::compile_kernel`) run on its
//! lane-exact wave simulator (`qd_isel_amdgcn::runner`), so the machine code qd emits for AMD GPUs
//! is tested end to end — kernels, programs, the qd-lib suite — on a machine without one.
//!
//! | spec | target | subgroup width |
//! |---|---|---|
//! | `sim-gfx942` | gfx942 (CDNA3, MI300) | 64 |
//! | `sim-gfx90a` | gfx90a (CDNA2, MI200) | 64 |
//! | `sim-gfx1100` | gfx1100 (RDNA3), wave64 | 64 |
//! | `sim-gfx1100-w32` | gfx1100 (RDNA3), wave32 | 32 |
//!
//! Buffers are host memory, as on the `cpu` device (the two devices share that buffer kind), and
//! a launch copies them into the simulator's global memory and back. The simulator runs with its
//! hazard and memory-wait checkers on: a missing `s_nop` or `s_waitcnt` is a compiler bug, and
//! surfaces as an error rather than as a wrong number. Compile errors are
//! [`RtErrorKind::Compile`](crate::RtErrorKind::Compile) with the back end's message (the target,
//! the op and type to blame); simulator faults (out-of-bounds accesses, a trap, a wave past
//! [`STEP_LIMIT_PER_WAVE`] instructions) are [`RtErrorKind::Simulator`](crate::RtErrorKind::Simulator)
//! naming the kernel, the grid and block, and the instruction, wave and lane.
//!
//! `grid(saturating)` launches [`SATURATING_BLOCKS`] blocks, as the interpreter does: the
//! simulator is slow, and a grid-stride kernel is correct at any grid size. The simulator runs
//! workgroups one after another, each to completion, so a block may wait on a flag an earlier
//! block sets (`forward_progress`). Kernels are compiled at each `run_kernel` and once per
//! [`Device::compile`](crate::Device::compile) (a compile takes microseconds next to the
//! simulation); there is no cache.
//!
//! The sim devices are not in [`Device::available`](crate::Device::available) and never
//! [`Device::best`](crate::Device::best): they are test and research tools, far slower than the
//! interpreter's `cpu` device. Open them by spec, or list them with
//! [`Device::simulated`](crate::Device::simulated); `QD_TEST_DEVICES=sim-gfx942,sim-gfx1100-w32`
//! puts them in a test suite's [`DeviceMatrix`](crate::DeviceMatrix).

use crate::amdgcn;
use crate::args;
use crate::cpu::{self, CpuBuffer};
use crate::error::RtError;
use crate::{DeviceInfo, DeviceKind, LaunchOptions};
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner::{self, RunError};
use qd_isel_amdgcn::{Arch, CompiledKernel, Family, Target, WaveSize};
use qd_mir::interp::ArgValue;
use qd_mir::{Function, GridPolicy};

/// The sim devices: spec and target, in the order of [`DeviceInfo::ordinal`].
pub(crate) const DEVICES: [(&str, Target); 4] = [
    ("sim-gfx942", Target { arch: Arch::Gfx942, wave: WaveSize::W64 }),
    ("sim-gfx90a", Target { arch: Arch::Gfx90a, wave: WaveSize::W64 }),
    ("sim-gfx1100", Target { arch: Arch::Gfx1100, wave: WaveSize::W64 }),
    ("sim-gfx1100-w32", Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }),
];

/// The blocks of a `grid(saturating)` launch: the interpreter's count.
pub const SATURATING_BLOCKS: u32 = GridPolicy::INTERP_SATURATING_BLOCKS;

/// Instructions one wave may execute before the launch fails (a kernel that does not end).
pub const STEP_LIMIT_PER_WAVE: u64 = 50_000_000;

/// The ordinal and target of a spec (`sim-gfx942`), or `None` when it names no sim device.
pub(crate) fn parse(spec: &str) -> Option<(usize, Target)> {
    DEVICES.iter().position(|(s, _)| *s == spec).map(|i| (i, DEVICES[i].1))
}

/// The target a sim spec names (`sim-gfx1100-w32` → gfx1100 in wave32), or `None`.
pub fn target(spec: &str) -> Option<Target> {
    parse(spec).map(|(_, t)| t)
}

/// The spec of sim device `ordinal`.
pub(crate) fn spec(ordinal: usize) -> &'static str {
    DEVICES.get(ordinal).map_or("sim-?", |d| d.0)
}

/// The description of sim device `ordinal` (an index in [`DEVICES`]).
pub(crate) fn info(ordinal: usize) -> DeviceInfo {
    let (_, t) = DEVICES[ordinal.min(DEVICES.len() - 1)];
    let lanes = t.wave.lanes();
    let arch = match t.arch.family() {
        Family::Gfx9 => t.arch.name().to_string(),
        Family::Gfx11 => format!("{}, wave{lanes}", t.arch.name()),
    };
    DeviceInfo {
        kind: DeviceKind::Sim,
        ordinal,
        name: format!("AMDGCN wave simulator ({arch})"),
        subgroup_width: lanes,
        detail: format!(
            "qd's AMDGCN code for {} (wave{lanes}) on the lane-exact wave simulator, hazard and wait checks on, \
             64 KiB LDS, workgroups in order, saturating grid {SATURATING_BLOCKS} blocks",
            t.arch.name()
        ),
        // The simulator runs workgroups one after another in order, each to completion (its
        // waves round-robin between barriers): by the time a block starts, every earlier block
        // has finished, so a flag an earlier block sets is already set.
        forward_progress: true,
    }
}

fn options() -> SimOptions {
    SimOptions {
        max_steps_per_wave: STEP_LIMIT_PER_WAVE,
        check_hazards: true,
        check_waits: true,
        ..SimOptions::default()
    }
}

/// The grid of a launch of `f`: the override, else its policy (saturating: [`SATURATING_BLOCKS`]).
pub(crate) fn grid(
    f: &Function,
    grid_override: Option<[u32; 3]>,
    scalar: impl Fn(usize) -> Option<(qd_mir::ScalarType, u64)>,
) -> Result<[u32; 3], RtError> {
    // A saturating grid is 4 blocks per compute unit: one unit gives the interpreter's 4 blocks.
    const _: () = assert!(SATURATING_BLOCKS == 4);
    amdgcn::grid(f, grid_override, scalar, 1)
}

/// Runs a compiled kernel over one argument per parameter (`bind` as `runner::run` takes it).
pub(crate) fn run(
    k: &CompiledKernel,
    grid: [u32; 3],
    argv: &mut [ArgValue],
    bind: Option<&[usize]>,
) -> Result<(), RtError> {
    runner::run(k, grid, argv, bind, &options()).map(|_| ()).map_err(|e| match e {
        RunError::Args(m) => RtError::usage(m).context(format!("kernel @{}", k.name)),
        RunError::Sim(s) => RtError::simulator(format!(
            "kernel @{} (grid {grid:?}, block {:?}) on the {} simulator: {s}",
            k.name, k.block, k.target
        )),
    })
}

/// Runs a kernel over host arguments (updated in place); `opts.block` recompiles for that block.
pub(crate) fn run_kernel(
    target: Target,
    f: &Function,
    argv: &mut [ArgValue],
    opts: &LaunchOptions,
) -> Result<(), RtError> {
    args::check_kernel_args(f, argv).map_err(|e| e.context(format!("kernel @{}", f.name)))?;
    let f = amdgcn::with_block(f, opts.block);
    let f = &*f;
    let k = amdgcn::compile(target, f)?;
    let g = grid(f, opts.grid, |i| match argv.get(i) {
        Some(ArgValue::Scalar(t, v)) => Some((*t, *v)),
        _ => None,
    })?;
    run(&k, g, argv, None)
}

/// Launches a compiled kernel over device arguments: `bufs[i]` is parameter `i`'s buffer,
/// `scalars[i]` its scalar; a buffer passed for several parameters is one memory.
pub(crate) fn launch(
    k: &CompiledKernel,
    f: &Function,
    bufs: &[Option<&CpuBuffer>],
    scalars: Vec<ArgValue>,
    grid_override: Option<[u32; 3]>,
) -> Result<(), RtError> {
    let g = grid(f, grid_override, |i| match (bufs.get(i), scalars.get(i)) {
        (Some(None), Some(ArgValue::Scalar(t, v))) => Some((*t, *v)),
        _ => None,
    })?;
    cpu::with_bound_buffers(bufs, scalars, |argv, bind| run(k, g, argv, Some(bind)))
}
