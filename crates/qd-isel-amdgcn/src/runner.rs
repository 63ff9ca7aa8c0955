//! Running a [`CompiledKernel`] on the wave simulator with interpreter-style arguments: the
//! buffers are copied into simulated global memory, the kernarg segment is built from the
//! kernel's [`KernargLayout`](crate::abi::KernargLayout), a spill area is allocated when the
//! kernel spills, and the buffers are copied back after the launch. The `sim-*` devices of
//! `qd-rt` and this crate's tests both run kernels through here.

use qd_mir::interp::ArgValue;

use crate::abi::KernargValue;
use crate::CompiledKernel;
use qd_amdgcn_sim::{self as sim, Dispatch, GlobalMemory, SimError, SimOptions, SimStats};

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
    let spill = if k.spill_bytes_per_lane > 0 {
        let bytes = usize::try_from(k.spill_area_bytes(grid))
            .map_err(|_| RunError::Args("the spill area is too large".into()))?;
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

/// The quiet NaN AMD GPUs produce for an invalid operation (`inf - inf`, `0 * inf`, …): f32.
pub(crate) const AMD_DEFAULT_NAN_F32: u32 = 0x7FC0_0000;
/// The same for f64.
pub(crate) const AMD_DEFAULT_NAN_F64: u64 = 0x7FF8_0000_0000_0000;

/// Where `reference` (an interpreter run) holds the NaN the x86 host creates for an invalid
/// operation (`0xFFC00000`, `0xFFF8000000000000`: sign bit set) and `device` holds the one AMD
/// GPUs create (sign bit clear), makes the device's element the reference's. Only that exact
/// pair is reconciled: a NaN the kernel propagates, or any other difference, still compares
/// unequal. The interpreter takes a created NaN's bits from the host, so they are not part of
/// MIR's semantics (docs/amdgcn-backend.md, "Floating point").
pub fn adopt_host_default_nans(reference: &[ArgValue], device: &mut [ArgValue]) {
    use qd_mir::ScalarType;
    for (r, d) in reference.iter().zip(device.iter_mut()) {
        let (ArgValue::Buffer(r), ArgValue::Buffer(d)) = (r, d) else { continue };
        if r.elem != d.elem || r.data.len() != d.data.len() {
            continue;
        }
        match r.elem {
            ScalarType::F32 => {
                for (rc, dc) in r.data.chunks_exact(4).zip(d.data.chunks_exact_mut(4)) {
                    let (rv, dv) = (
                        u32::from_le_bytes(rc.try_into().unwrap_or_default()),
                        u32::from_le_bytes((&*dc).try_into().unwrap_or_default()),
                    );
                    if rv == 0xFFC0_0000 && dv == AMD_DEFAULT_NAN_F32 {
                        dc.copy_from_slice(rc);
                    }
                }
            }
            ScalarType::F64 => {
                for (rc, dc) in r.data.chunks_exact(8).zip(d.data.chunks_exact_mut(8)) {
                    let (rv, dv) = (
                        u64::from_le_bytes(rc.try_into().unwrap_or_default()),
                        u64::from_le_bytes((&*dc).try_into().unwrap_or_default()),
                    );
                    if rv == 0xFFF8_0000_0000_0000 && dv == AMD_DEFAULT_NAN_F64 {
                        dc.copy_from_slice(rc);
                    }
                }
            }
            ScalarType::Bool | ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {}
        }
    }
}
