//! Running a [`CompiledKernel`] on the wave simulator with interpreter-style arguments: the
//! buffers are copied into simulated global memory, the kernarg segment is built from the
//! kernel's [`KernargLayout`](crate::abi::KernargLayout), a spill area is allocated when the
//! kernel spills, and the buffers are copied back after the launch. The `sim-*` devices of
//! `qd-rt` and this crate's tests both run kernels through here.

use qd_mir::interp::ArgValue;

use crate::abi::KernargValue;
use crate::sim::{self, Dispatch, GlobalMemory, SimError, SimOptions, SimStats};
use crate::CompiledKernel;

/// Why a simulated launch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The arguments do not fit the kernel.
    Args(String),
    /// The simulator stopped with an error.
    Sim(SimError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Args(m) => f.write_str(m),
            RunError::Sim(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs `k` over `grid` blocks with `args` (one per MIR parameter; buffers updated in place).
/// Several parameters may name one buffer through `bind` (`bind[i] = j` makes parameter `i` use
/// parameter `j`'s buffer, `j <= i`); pass `None` for one buffer per parameter.
pub fn run(
    k: &CompiledKernel,
    grid: [u32; 3],
    args: &mut [ArgValue],
    bind: Option<&[usize]>,
    opts: &SimOptions,
) -> Result<SimStats, RunError> {
    if args.len() != k.kernarg.params.len() {
        return Err(RunError::Args(format!(
            "kernel @{} takes {} arguments, {} given",
            k.name,
            k.kernarg.params.len(),
            args.len()
        )));
    }
    if grid.contains(&0) {
        return Ok(SimStats::default());
    }
    let mut mem = GlobalMemory::new();
    let mut addrs: Vec<Option<u64>> = vec![None; args.len()];
    let mut values = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let owner = bind.map_or(i, |b| b[i]);
        match a {
            ArgValue::Buffer(b) => {
                let addr = match addrs[owner] {
                    Some(x) if owner != i => x,
                    _ => {
                        let x = mem.alloc(b.data.len().max(1), 256);
                        mem.write(x, &b.data).map_err(RunError::Sim)?;
                        x
                    }
                };
                addrs[i] = Some(addr);
                values.push(KernargValue::Ptr(addr));
            }
            ArgValue::Scalar(_, bits) => values.push(KernargValue::Bits(*bits)),
        }
    }
    let lanes = k.target.wave.lanes();
    let threads: u32 = k.block.iter().product();
    let waves = u64::from(threads.div_ceil(lanes)) * grid.iter().map(|&g| u64::from(g)).product::<u64>();
    let spill = if k.spill_bytes_per_lane > 0 {
        let bytes = waves * u64::from(lanes) * u64::from(k.spill_bytes_per_lane);
        let bytes = usize::try_from(bytes).map_err(|_| RunError::Args("the spill area is too large".into()))?;
        mem.alloc(bytes, 256)
    } else {
        0
    };
    let kernarg = k.kernarg.bytes(&values, grid, spill);
    let dispatch = Dispatch { grid, block: k.block, kernarg };
    let stats = sim::run_with(&k.sim_program(), &dispatch, &mut mem, opts).map_err(RunError::Sim)?;
    for (i, a) in args.iter_mut().enumerate() {
        if let (ArgValue::Buffer(b), Some(addr)) = (a, addrs[i]) {
            b.data = mem.read(addr, b.data.len()).map_err(RunError::Sim)?;
        }
    }
    Ok(stats)
}
