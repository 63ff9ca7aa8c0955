//! Launch indices (`thread_id`, `block_id`, `block_dim`, `grid_dim`), lane indices (`lane_id`,
//! `subgroup_id`, `subgroup_size`) and the `lanemask.*` constants of the lane.

use qd_mir::ops::Dim;
use qd_mir::{Imm, Inst, Opcode};

use super::{Cls, Lower, Val};
use crate::CompileError;

fn dim_index(d: Dim) -> usize {
    match d {
        Dim::X => 0,
        Dim::Y => 1,
        Dim::Z => 2,
    }
}

/// `thread_id`, `block_id`, `block_dim`, `grid_dim`.
pub(crate) fn launch_index(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let Imm::Dim(d) = cx.f.insts[i].imm else { return Err(cx.unsupported(i, "a launch index without a dimension")) };
    let k = dim_index(d);
    let val = match cx.f.insts[i].opcode {
        Opcode::ThreadId => Val::V(cx.entry.thread_id[k]),
        Opcode::BlockId => Val::S(cx.entry.block_id[k]),
        Opcode::GridDim => Val::S(cx.entry.grid[k]),
        _ => cx.const32(cx.f.launch.block[k], Cls::Scalar),
    };
    cx.bind(v, val);
    Ok(())
}

/// `lane_id`, `subgroup_id`, `subgroup_size`.
pub(crate) fn lane_index(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    Err(cx.unsupported(i, "no AMDGCN lowering yet"))
}

/// `lanemask.*`.
pub(crate) fn lanemask(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    Err(cx.unsupported(i, "no AMDGCN lowering yet"))
}
