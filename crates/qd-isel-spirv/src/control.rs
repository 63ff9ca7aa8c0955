//! Structured loops the lowering builds for itself (not from MIR regions): the strided
//! zero-fill of workgroup memory and the straight-line loops of the exact `fmod`.
//!
//! Both follow the shape glslang emits: a header with the carried values' φs and
//! `OpLoopMerge %merge %cont`, a conditional branch out, and a continue block holding the back
//! edge.

use crate::lower::Lower;
use crate::CompileError;
use rspirv::spirv::Op;

/// `for (i = start; i < end; i += step) body(i)` on `u32` values.
pub(crate) fn counted_loop(
    lw: &mut Lower<'_>,
    start: u32,
    end: u32,
    step: u32,
    body: impl FnOnce(&mut Lower<'_>, u32) -> Result<(), CompileError>,
) -> Result<(), CompileError> {
    let u = lw.int_ty(32);
    let b = lw.bool_ty();
    let pre = lw.e.cur_label();
    let (header, body_l, cont, merge) = (lw.e.id(), lw.e.id(), lw.e.id(), lw.e.id());
    lw.e.branch(header);
    lw.e.begin(header);
    let hidx = lw.e.cur_index();
    let i = lw.e.id();
    let c = lw.e.op(Op::ULessThan, b, &[i, end]);
    lw.e.op_void(Op::LoopMerge, &[merge, cont, 0]);
    lw.e.terminate(Op::BranchConditional, &[c, body_l, merge]);
    lw.e.begin(body_l);
    body(lw, i)?;
    lw.e.branch(cont);
    lw.e.begin(cont);
    let next = lw.e.op(Op::IAdd, u, &[i, step]);
    lw.e.branch(header);
    lw.e.phi_in(hidx, u, i, &[(start, pre), (next, cont)]);
    lw.e.begin(merge);
    Ok(())
}

/// A loop whose body is straight-line code in the header: `body(params)` returns whether to
/// run again, the next iteration's values and the values to leave with (defined in the body).
/// Returns those last values.
pub(crate) fn header_loop(
    lw: &mut Lower<'_>,
    tys: &[u32],
    inits: &[u32],
    body: impl FnOnce(&mut Lower<'_>, &[u32]) -> Result<(u32, Vec<u32>, Vec<u32>), CompileError>,
) -> Result<Vec<u32>, CompileError> {
    let pre = lw.e.cur_label();
    let (header, cont, merge) = (lw.e.id(), lw.e.id(), lw.e.id());
    lw.e.branch(header);
    lw.e.begin(header);
    let hidx = lw.e.cur_index();
    let params: Vec<u32> = tys.iter().map(|_| lw.e.id()).collect();
    let (again, next, out) = body(lw, &params)?;
    lw.e.op_void(Op::LoopMerge, &[merge, cont, 0]);
    lw.e.terminate(Op::BranchConditional, &[again, cont, merge]);
    lw.e.begin(cont);
    lw.e.branch(header);
    for (k, &ty) in tys.iter().enumerate() {
        lw.e.phi_in(hidx, ty, params[k], &[(inits[k], pre), (next[k], cont)]);
    }
    lw.e.begin(merge);
    Ok(out)
}
