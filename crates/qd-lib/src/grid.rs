//! `qd_lib::grid`: the grid-wide memory fence (Quadrants `qd.simt.grid`).
//!
//! There is no grid barrier, by design (as in Quadrants): kernels that need one are split into
//! launches of a program.

use crate::common::at;
use qd_frontend::{BuildError, KernelBuilder, Scope};
use std::panic::Location;

/// Device-scope memory fence (`membar.gl` / `fence.sc.gpu` on CUDA, `fence agent` on AMDGPU,
/// `OpMemoryBarrier(Device, …)` on SPIR-V): this thread's earlier memory accesses are visible to
/// every thread of the grid before its later ones. No convergence requirement.
#[track_caller]
pub fn mem_fence(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Device).map_err(at(loc))
}

/// Deprecated Quadrants name of [`mem_fence`].
#[deprecated(note = "qd.simt.grid.memfence() is deprecated; use qd_lib::grid::mem_fence() instead")]
#[track_caller]
pub fn memfence(b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
    let loc = Location::caller();
    b.fence(Scope::Device).map_err(at(loc))
}
