//! Launch indices (`thread_id`, `block_id`, `block_dim`, `grid_dim`), lane indices (`lane_id`,
//! `subgroup_id`, `subgroup_size`) and the `lanemask.*` constants of the lane.
//!
//! Launch indices come from the entry registers (`EntryRegs`); `block_dim` is the compile-time
//! block size. Lane indices use `v_mbcnt`; see `simt.rs` for the shared lane helpers.

use qd_mir::ops::Dim;
use qd_mir::{Imm, Inst, LaneMask};

use super::{simt, Cls, Lower, Val};
use crate::vcode::{MInst, A};
use qd_amdgcn_isa::{Op, Operand};
use qd_mir::CompileError;

fn dim_index(d: Dim) -> usize {
    match d {
        Dim::X => 0,
        Dim::Y => 1,
        Dim::Z => 2,
    }
}

/// Which launch index or size an op reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Launch {
    /// `thread_id`
    ThreadId,
    /// `block_id`
    BlockId,
    /// `block_dim`
    BlockDim,
    /// `grid_dim`
    GridDim,
}

/// `thread_id`, `block_id`, `block_dim`, `grid_dim`.
pub(crate) fn launch_index(cx: &mut Lower<'_>, i: Inst, which: Launch) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let Imm::Dim(d) = cx.f.insts[i].imm else { return Err(cx.internal(i, "a launch index without a dimension")) };
    let k = dim_index(d);
    let val = match which {
        Launch::ThreadId => Val::V(cx.entry.thread_id[k]),
        Launch::BlockId => Val::S(cx.entry.block_id[k]),
        Launch::GridDim => Val::S(cx.entry.grid[k]),
        Launch::BlockDim => cx.const32(cx.f.launch.block[k], Cls::Scalar),
    };
    cx.bind(v, val);
    Ok(())
}

/// `lane_id`: `v_mbcnt_lo/hi` of all ones.
pub(crate) fn lane_id(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let l = simt::lane_id(cx);
    simt::put(cx, v, Val::V(l));
    Ok(())
}

/// `subgroup_size`: the wave size.
pub(crate) fn subgroup_size(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let c = cx.const32(cx.target.wave.lanes(), cx.cls_of(v));
    cx.bind(v, c);
    Ok(())
}

/// `subgroup_id`: the flat work-item id `x + bx·(y + by·z)` of the first active lane, divided by
/// the wave size (waves hold consecutive flat ids, as the interpreter's subgroups do).
pub(crate) fn subgroup_id(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let w = cx.target.wave.lanes();
    let [bx, by, _] = cx.f.launch.block;
    let [tx, ty, tz] = cx.entry.thread_id;
    let flat = if by == 1 && cx.f.launch.block[2] == 1 {
        tx
    } else {
        // flat = (z·by + y)·bx + x; every factor < 2^24, so the u24 multiply is exact.
        let (sb, sx, yz, flat) = (cx.new_s(), cx.new_s(), cx.new_v(), cx.new_v());
        let mut m = MInst::one(cx.mi(Op::SMovB32, &[]), &[A::D(sb), A::K(Operand::imm32(by))]);
        m.step(cx.mi(Op::SMovB32, &[]), &[A::D(sx), A::K(Operand::imm32(bx))]);
        m.step(cx.mi(Op::VMadU32U24, &[]), &[A::D(yz), A::U(tz), A::U(sb), A::U(ty)]);
        m.step(cx.mi(Op::VMadU32U24, &[]), &[A::D(flat), A::U(yz), A::U(sx), A::U(tx)]);
        cx.emit(m);
        flat
    };
    let (f, r) = (cx.new_s(), cx.new_s());
    let mut m = MInst::one(cx.mi(Op::VReadfirstlaneB32, &[]), &[A::D(f), A::U(flat)]);
    m.step(cx.mi(Op::SLshrB32, &[]), &[A::D(r), A::U(f), A::K(Operand::Int(w.trailing_zeros() as i8))]);
    cx.emit(m);
    simt::put(cx, v, Val::S(r));
    Ok(())
}

/// `lanemask.*` (u64; bits only below the wave size): `eq = 1 << lane`, `ge = -1 << lane`,
/// `gt = -2 << lane` (within the wave's width), `lt = !ge`, `le = !gt`.
pub(crate) fn lanemask(cx: &mut Lower<'_>, i: Inst, mask: LaneMask) -> Result<(), CompileError> {
    let v = cx.f.inst_results(i)[0];
    let (k, invert) = match mask {
        LaneMask::Eq => (1, false),
        LaneMask::Ge => (-1, false),
        LaneMask::Lt => (-1, true),
        LaneMask::Gt => (-2, false),
        LaneMask::Le => (-2, true),
    };
    let lane = simt::lane_id(cx);
    let out = cx.new_w();
    let mut m = MInst::new();
    if cx.wave64() {
        let sh = cx.new_w();
        m.step(cx.mi(Op::VLshlrevB64, &[]), &[A::D(sh), A::U(lane), A::K(Operand::Int(k))]);
        if invert {
            m.step(cx.mi(Op::VNotB32, &[]), &[A::DL(out), A::UL(sh)]);
            m.step(cx.mi(Op::VNotB32, &[]), &[A::DH(out), A::UH(sh)]);
        } else {
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DL(out), A::UL(sh)]);
            m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(out), A::UH(sh)]);
        }
    } else {
        let sh = cx.new_v();
        m.step(simt::e64(cx, Op::VLshlrevB32), &[A::D(sh), A::U(lane), A::K(Operand::Int(k))]);
        let mv = if invert { Op::VNotB32 } else { Op::VMovB32 };
        m.step(cx.mi(mv, &[]), &[A::DL(out), A::U(sh)]);
        m.step(cx.mi(Op::VMovB32, &[]), &[A::DH(out), A::K(Operand::Int(0))]);
    }
    cx.emit(m);
    simt::put(cx, v, Val::V64(out));
    Ok(())
}
