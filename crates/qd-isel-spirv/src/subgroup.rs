//! Launch indices, subgroup data movement (shuffles, broadcast, ballots, `match.*`, lane masks,
//! `elect`), votes, and barriers/fences; reductions and scans are in `tree.rs`.
//!
//! Activity: the MIR defines every op over the *active* lanes (docs/interpreter.md §2), while
//! SPIR-V leaves a shuffle from an inactive or out-of-range invocation undefined. So every
//! shuffle reads through `OpGroupNonUniformShuffle` with a source index that is always valid:
//! the computed source lane when it is in range (and, unless the whole subgroup is known active,
//! active in `OpGroupNonUniformBallot(true)`), else the reading lane itself — which yields the
//! MIR's "own value" rule without a select. Lane masks are `u32` for subgroups of ≤ 32 lanes and
//! `u64` (capability `Int64`) for 64; MIR-visible masks are always `u64`.

use crate::emit::TyKey;
use crate::lower::{Lower, SCOPE_DEVICE, SCOPE_SUBGROUP, SCOPE_WORKGROUP, SEM_ACQ_REL_ALL};
use crate::scalar;
use crate::CompileError;
use qd_mir::{
    CmpCond, Collective, Dim, ExchangeOp, Imm, IndexOp, Inst, LaneMask, PredOp, ScalarType, Scope, ShuffleKind, SyncOp,
    Tile, Value,
};
use rspirv::spirv::{BuiltIn, Capability, GlslStd450Op as Glsl, Op};

/// Lowers a launch index, size or lane mask.
pub(crate) fn index(lw: &mut Lower<'_>, inst: Inst, op: IndexOp) -> Result<(), CompileError> {
    let f = lw.f;
    let imm = f.insts[inst].imm;
    let res = lw.result(inst)?;
    let dim = |lw: &Lower<'_>| match imm {
        Imm::Dim(dim) => Ok(dim_index(dim)),
        _ => Err(lw.internal("malformed dimension")),
    };
    let d = match op {
        IndexOp::ThreadId => {
            let k = dim(lw)?;
            thread_id(lw, k)?
        }
        IndexOp::BlockId => {
            let k = dim(lw)?;
            lw.builtin_dim(BuiltIn::WorkgroupId, k)?
        }
        IndexOp::BlockDim => {
            let k = dim(lw)?;
            lw.c_u32(f.launch.block[k])
        }
        IndexOp::GridDim => {
            let k = dim(lw)?;
            lw.builtin_dim(BuiltIn::NumWorkgroups, k)?
        }
        IndexOp::LaneId => lw.lane()?,
        IndexOp::SubgroupId => lw.builtin(BuiltIn::SubgroupId)?,
        IndexOp::SubgroupSize => lw.c_u32(lw.w),
        IndexOp::LaneMask(m) => {
            let u64t = lw.ty(ScalarType::U64)?;
            let lane = lw.lane()?;
            let one = lw.c(ScalarType::U64, 1)?;
            let eq = lw.e.op(Op::ShiftLeftLogical, u64t, &[one, lane]);
            let lt = lw.e.op(Op::ISub, u64t, &[eq, one]);
            let le = lw.e.op(Op::BitwiseOr, u64t, &[lt, eq]);
            let full = lw.c(ScalarType::U64, full_bits(lw.w))?;
            match m {
                LaneMask::Lt => lt,
                LaneMask::Le => le,
                LaneMask::Eq => eq,
                LaneMask::Ge => {
                    let n = lw.e.op(Op::Not, u64t, &[lt]);
                    lw.e.op(Op::BitwiseAnd, u64t, &[full, n])
                }
                LaneMask::Gt => {
                    let n = lw.e.op(Op::Not, u64t, &[le]);
                    lw.e.op(Op::BitwiseAnd, u64t, &[full, n])
                }
            }
        }
    };
    lw.set(res, d);
    Ok(())
}

/// Lowers a lane exchange: shuffles, `broadcast`, ballots, `match.*`, `activemask`, `elect`.
pub(crate) fn exchange(lw: &mut Lower<'_>, inst: Inst, op: ExchangeOp) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    let res = lw.result(inst)?;
    let d = match op {
        ExchangeOp::Shuffle(kind) => shuffle(lw, kind, args[0], args[1])?,
        ExchangeOp::Broadcast => {
            let t = lw.scalar(args[0]);
            let v = lw.v(args[0])?;
            let b = lane_operand(lw, args[1])?;
            let u = lw.int_ty(32);
            let m = lw.c_u32(lw.w - 1);
            let src = lw.e.op(Op::BitwiseAnd, u, &[b, m]);
            shfl(lw, t, v, src)?
        }
        ExchangeOp::Ballot => {
            let p = lw.v(args[0])?;
            let m = ballot(lw, p)?;
            mask_to_u64(lw, m)?
        }
        ExchangeOp::BallotFirstN => {
            let Imm::Count(n) = data.imm else { return Err(lw.internal("malformed count")) };
            let p = lw.v(args[0])?;
            let v4 = ballot_vec(lw, p)?;
            let u = lw.int_ty(32);
            let x = lw.e.op(Op::CompositeExtract, u, &[v4, 0]);
            let keep = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
            let k = lw.c_u32(keep);
            lw.e.op(Op::BitwiseAnd, u, &[x, k])
        }
        ExchangeOp::ActiveMask => {
            let m = active(lw)?;
            mask_to_u64(lw, m)?
        }
        ExchangeOp::MatchAny => match_any(lw, args[0])?,
        ExchangeOp::MatchAll => {
            let key = match_key(lw, args[0])?;
            lw.need_subgroup(Capability::GroupNonUniformBallot)?;
            let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
            let first = lw.e.op(Op::GroupNonUniformBroadcastFirst, key.1, &[scope, key.0]);
            let eq = key_eq(lw, key, first);
            let b = ballot(lw, eq)?;
            let act = active(lw)?;
            let bt = lw.bool_ty();
            let all = lw.e.op(Op::IEqual, bt, &[b, act]);
            let a64 = mask_to_u64(lw, act)?;
            let z = lw.c(ScalarType::U64, 0)?;
            let u64t = lw.ty(ScalarType::U64)?;
            lw.e.op(Op::Select, u64t, &[all, a64, z])
        }
        ExchangeOp::Elect => {
            lw.need_subgroup(Capability::GroupNonUniform)?;
            let (bt, scope) = (lw.bool_ty(), lw.c_u32(SCOPE_SUBGROUP as u32));
            lw.e.op(Op::GroupNonUniformElect, bt, &[scope])
        }
    };
    lw.set(res, d);
    Ok(())
}

/// Lowers a tiled collective: votes here, reductions and scans in `tree.rs`.
pub(crate) fn collective(lw: &mut Lower<'_>, inst: Inst, op: Collective) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    let res = lw.result(inst)?;
    let group = match op {
        Collective::VoteAll | Collective::VoteAny | Collective::VoteEq => {
            let Imm::Tile(tile) = data.imm else { return Err(lw.internal("malformed tile")) };
            let t = tile.lanes(lw.w);
            let pred = if op == Collective::VoteEq { vote_eq_pred(lw, args[0], t)? } else { lw.v(args[0])? };
            let d = vote(lw, op != Collective::VoteAny, pred, t, tile == Tile::Full)?;
            lw.set(res, d);
            return Ok(());
        }
        Collective::Reduce => Group::Reduce,
        Collective::Scan => Group::Scan,
        Collective::SegReduce => Group::SegReduce,
    };
    let Imm::Group { op: g, tile, inclusive } = data.imm else {
        return Err(lw.internal("malformed group immediate"));
    };
    let d = crate::tree::group(lw, group, g, tile, inclusive, args)?;
    lw.set(res, d);
    Ok(())
}

/// Lowers a barrier, fence or `nanosleep`.
pub(crate) fn sync(lw: &mut Lower<'_>, inst: Inst, op: SyncOp) -> Result<(), CompileError> {
    let f = lw.f;
    let data = &f.insts[inst];
    let args = f.args(inst);
    match op {
        SyncOp::Nanosleep => {
            // A scheduling hint with no SPIR-V counterpart: changes no value or memory.
            lw.v(args[0])?;
        }
        SyncOp::SubgroupSync => {
            // An execution barrier of the subgroup where every lane is known to reach it; under
            // divergence SPIR-V's barrier would be undefined, and the lanes need no ordering.
            if lw.converged() {
                lw.need_subgroup(Capability::GroupNonUniform)?;
                let (s, z) = (lw.c_u32(SCOPE_SUBGROUP as u32), lw.c_u32(0));
                lw.e.op_void(Op::ControlBarrier, &[s, s, z]);
            }
        }
        SyncOp::BlockSync => lw.block_barrier(),
        SyncOp::BlockSyncPred => {
            let Imm::Pred(pop) = data.imm else { return Err(lw.internal("malformed predicate op")) };
            let res = lw.result(inst)?;
            let p = lw.v(args[0])?;
            let d = sync_pred(lw, pop, p)?;
            lw.set(res, d);
        }
        SyncOp::Fence => {
            let Imm::Scope(s) = data.imm else { return Err(lw.internal("malformed scope")) };
            let scope = match s {
                Scope::Subgroup | Scope::Block => SCOPE_WORKGROUP,
                Scope::Device => SCOPE_DEVICE,
            };
            let (sc, m) = (lw.c_u32(scope as u32), lw.c_u32(SEM_ACQ_REL_ALL as u32));
            lw.e.op_void(Op::MemoryBarrier, &[sc, m]);
        }
    }
    Ok(())
}

/// The lane-combining collectives with an operator: how `tree::group` lowers each.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Group {
    Reduce,
    Scan,
    SegReduce,
}

fn dim_index(d: Dim) -> usize {
    match d {
        Dim::X => 0,
        Dim::Y => 1,
        Dim::Z => 2,
    }
}

/// The `W` low bits set.
pub(crate) fn full_bits(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// The lane-mask type: `u32` for ≤ 32 lanes, `u64` for 64.
pub(crate) fn mask_ty(lw: &mut Lower<'_>) -> Result<(u32, ScalarType), CompileError> {
    if lw.w > 32 {
        Ok((lw.ty(ScalarType::U64)?, ScalarType::U64))
    } else {
        Ok((lw.int_ty(32), ScalarType::U32))
    }
}

/// A constant of the mask type.
pub(crate) fn mask_const(lw: &mut Lower<'_>, v: u64) -> Result<u32, CompileError> {
    let (_, s) = mask_ty(lw)?;
    lw.c(s, v)
}

/// `thread_id` along dimension `k`. Every workgroup is compiled 1-D (`LocalSize` = the block's
/// thread count; see `lower.rs`), because Vulkan leaves how a multi-dimensional workgroup is split
/// into subgroups to the driver (lavapipe 22.3 puts x in the lane and z in the subgroup), while MIR
/// fixes subgroups as runs of the linear index `x + bx·(y + by·z)`. So the linear index is the
/// 1-D invocation id and `x`, `y`, `z` are derived from it.
fn thread_id(lw: &mut Lower<'_>, k: usize) -> Result<u32, CompileError> {
    let [bx, by, bz] = lw.f.launch.block;
    let idx = lw.builtin_dim(BuiltIn::LocalInvocationId, 0)?;
    if by == 1 && bz == 1 {
        return Ok(if k == 0 { idx } else { lw.c_u32(0) });
    }
    let u = lw.int_ty(32);
    Ok(match k {
        0 => {
            let c = lw.c_u32(bx);
            lw.e.op(Op::UMod, u, &[idx, c])
        }
        1 => {
            let c = lw.c_u32(bx);
            let q = lw.e.op(Op::UDiv, u, &[idx, c]);
            let c = lw.c_u32(by);
            lw.e.op(Op::UMod, u, &[q, c])
        }
        _ => {
            let c = lw.c_u32(bx * by);
            lw.e.op(Op::UDiv, u, &[idx, c])
        }
    })
}

/// `OpGroupNonUniformBallot` as a `uvec4`.
fn ballot_vec(lw: &mut Lower<'_>, p: u32) -> Result<u32, CompileError> {
    lw.need_subgroup(Capability::GroupNonUniformBallot)?;
    let u = lw.int_ty(32);
    let v4 = lw.e.ty(TyKey::Vector(u, 4));
    let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
    Ok(lw.e.op(Op::GroupNonUniformBallot, v4, &[scope, p]))
}

/// The ballot of a predicate as a lane mask.
pub(crate) fn ballot(lw: &mut Lower<'_>, p: u32) -> Result<u32, CompileError> {
    let v4 = ballot_vec(lw, p)?;
    let u = lw.int_ty(32);
    if lw.w <= 32 {
        Ok(lw.e.op(Op::CompositeExtract, u, &[v4, 0]))
    } else {
        let (mt, _) = mask_ty(lw)?;
        let v2 = scalar::uvec2(lw);
        let xy = lw.e.op(Op::VectorShuffle, v2, &[v4, v4, 0, 1]);
        Ok(lw.e.op(Op::Bitcast, mt, &[xy]))
    }
}

/// The mask of the active lanes.
pub(crate) fn active(lw: &mut Lower<'_>) -> Result<u32, CompileError> {
    let t = lw.e.bool_const(true);
    ballot(lw, t)
}

/// A lane mask as the MIR's `u64`.
pub(crate) fn mask_to_u64(lw: &mut Lower<'_>, m: u32) -> Result<u32, CompileError> {
    let u64t = lw.ty(ScalarType::U64)?;
    Ok(if lw.w > 32 { m } else { lw.e.op(Op::UConvert, u64t, &[m]) })
}

/// Whether bit `lane` (a `u32` below `W`) of a mask is set.
pub(crate) fn bit_set(lw: &mut Lower<'_>, m: u32, lane: u32) -> Result<u32, CompileError> {
    let (mt, _) = mask_ty(lw)?;
    let s = lw.e.op(Op::ShiftRightLogical, mt, &[m, lane]);
    let one = mask_const(lw, 1)?;
    let b = lw.e.op(Op::BitwiseAnd, mt, &[s, one]);
    let z = mask_const(lw, 0)?;
    let bt = lw.bool_ty();
    Ok(lw.e.op(Op::INotEqual, bt, &[b, z]))
}

/// The lowest set bit of a non-zero mask, as a `u32` lane.
pub(crate) fn lowest_bit(lw: &mut Lower<'_>, m: u32) -> Result<u32, CompileError> {
    let u = lw.int_ty(32);
    if lw.w <= 32 {
        return Ok(lw.e.ext(u, Glsl::FindILsb as u32, &[m]));
    }
    let (mt, _) = mask_ty(lw)?;
    let lo = lw.e.op(Op::UConvert, u, &[m]);
    let c32 = mask_const(lw, 32)?;
    let hs = lw.e.op(Op::ShiftRightLogical, mt, &[m, c32]);
    let hi = lw.e.op(Op::UConvert, u, &[hs]);
    let (fl, fh) = (lw.e.ext(u, Glsl::FindILsb as u32, &[lo]), lw.e.ext(u, Glsl::FindILsb as u32, &[hi]));
    let k32 = lw.c_u32(32);
    let fh32 = lw.e.op(Op::IAdd, u, &[fh, k32]);
    let z = lw.c_u32(0);
    let bt = lw.bool_ty();
    let lz = lw.e.op(Op::IEqual, bt, &[lo, z]);
    Ok(lw.e.op(Op::Select, u, &[lz, fh32, fl]))
}

/// A shuffle/lane/mask operand as a `u32` (64-bit operands: their low half).
fn lane_operand(lw: &mut Lower<'_>, v: Value) -> Result<u32, CompileError> {
    let x = lw.v(v)?;
    if lw.scalar(v).bits() == 64 {
        let u = lw.int_ty(32);
        Ok(lw.e.op(Op::UConvert, u, &[x]))
    } else {
        Ok(x)
    }
}

/// `OpGroupNonUniformShuffle` (or `ShuffleXor` with `xor`) of a value of any scalar type:
/// `bool` travels as `u32` 0/1, 64-bit values as a `uvec2` (subgroup ops on 64-bit scalars need
/// a device feature Vulkan 1.1 does not require). `src` must name an active lane.
pub(crate) fn shfl_op(lw: &mut Lower<'_>, t: ScalarType, v: u32, src: u32, xor: bool) -> Result<u32, CompileError> {
    lw.need_subgroup(Capability::GroupNonUniformShuffle)?;
    let op = if xor { Op::GroupNonUniformShuffleXor } else { Op::GroupNonUniformShuffle };
    let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
    Ok(match t {
        ScalarType::Bool => {
            let u = lw.int_ty(32);
            let (one, z) = (lw.c_u32(1), lw.c_u32(0));
            let x = lw.e.op(Op::Select, u, &[v, one, z]);
            let y = lw.e.op(op, u, &[scope, x, src]);
            let bt = lw.bool_ty();
            lw.e.op(Op::INotEqual, bt, &[y, z])
        }
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => {
            let ty = lw.ty(t)?;
            lw.e.op(op, ty, &[scope, v, src])
        }
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => {
            let ty = lw.ty(t)?;
            let v2 = scalar::uvec2(lw);
            let x = lw.e.op(Op::Bitcast, v2, &[v]);
            let y = lw.e.op(op, v2, &[scope, x, src]);
            lw.e.op(Op::Bitcast, ty, &[y])
        }
    })
}

/// `OpGroupNonUniformShuffle` of a value of any scalar type from an active lane.
pub(crate) fn shfl(lw: &mut Lower<'_>, t: ScalarType, v: u32, src: u32) -> Result<u32, CompileError> {
    shfl_op(lw, t, v, src, false)
}

/// `shuffle.idx/up/down/xor` with the interpreter's rules for out-of-range and inactive sources.
fn shuffle(lw: &mut Lower<'_>, op: ShuffleKind, val: Value, x: Value) -> Result<u32, CompileError> {
    let t = lw.scalar(val);
    let v = lw.v(val)?;
    let b = lane_operand(lw, x)?;
    let lane = lw.lane()?;
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let w = lw.c_u32(lw.w);
    let (src, valid) = match op {
        ShuffleKind::Idx => {
            let m = lw.c_u32(lw.w - 1);
            (lw.e.op(Op::BitwiseAnd, u, &[b, m]), None)
        }
        ShuffleKind::Up => {
            let s = lw.e.op(Op::ISub, u, &[lane, b]);
            (s, Some(lw.e.op(Op::ULessThanEqual, bt, &[b, lane])))
        }
        ShuffleKind::Down => {
            let s = lw.e.op(Op::IAdd, u, &[lane, b]);
            let small = lw.e.op(Op::ULessThan, bt, &[b, w]);
            let inr = lw.e.op(Op::ULessThan, bt, &[s, w]);
            (s, Some(lw.e.op(Op::LogicalAnd, bt, &[small, inr])))
        }
        ShuffleKind::Xor => {
            let s = lw.e.op(Op::BitwiseXor, u, &[lane, b]);
            (s, Some(lw.e.op(Op::ULessThan, bt, &[s, w])))
        }
    };
    let valid = if lw.full_activity() {
        valid
    } else {
        // The source must also be active: test its bit (at the own lane when out of range).
        let act = active(lw)?;
        let probe = match valid {
            Some(q) => lw.e.op(Op::Select, u, &[q, src, lane]),
            None => src,
        };
        let on = bit_set(lw, act, probe)?;
        Some(match valid {
            Some(q) => lw.e.op(Op::LogicalAnd, bt, &[q, on]),
            None => on,
        })
    };
    let src = match valid {
        Some(q) => lw.e.op(Op::Select, u, &[q, src, lane]),
        None => src,
    };
    shfl(lw, t, v, src)
}

/// Registers for the tile of the current lane: (tile base lane as `u32`, the tile's lane mask).
pub(crate) fn tile_mask(lw: &mut Lower<'_>, t: u32) -> Result<(u32, u32), CompileError> {
    let (mt, _) = mask_ty(lw)?;
    let u = lw.int_ty(32);
    let lane = lw.lane()?;
    let m = lw.c_u32(!(t - 1));
    let base = lw.e.op(Op::BitwiseAnd, u, &[lane, m]);
    let ones = mask_const(lw, full_bits(t))?;
    let tm = lw.e.op(Op::ShiftLeftLogical, mt, &[ones, base]);
    Ok((base, tm))
}

/// `vote.all` / `vote.any` of a predicate over the active lanes of each `t`-lane tile.
fn vote(lw: &mut Lower<'_>, all: bool, p: u32, t: u32, full_tile: bool) -> Result<u32, CompileError> {
    let bt = lw.bool_ty();
    if t == 1 {
        return Ok(p);
    }
    if (full_tile || t >= lw.w) && lw.opts.caps.subgroup_ops.vote {
        lw.need_subgroup(Capability::GroupNonUniformVote)?;
        let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
        let op = if all { Op::GroupNonUniformAll } else { Op::GroupNonUniformAny };
        return Ok(lw.e.op(op, bt, &[scope, p]));
    }
    let (mt, _) = mask_ty(lw)?;
    let b = ballot(lw, p)?;
    let (_, tm) = tile_mask(lw, t)?;
    let bm = lw.e.op(Op::BitwiseAnd, mt, &[b, tm]);
    if all {
        let act = active(lw)?;
        let am = lw.e.op(Op::BitwiseAnd, mt, &[act, tm]);
        Ok(lw.e.op(Op::IEqual, bt, &[bm, am]))
    } else {
        let z = mask_const(lw, 0)?;
        Ok(lw.e.op(Op::INotEqual, bt, &[bm, z]))
    }
}

/// The per-lane predicate of `vote.eq`: the value equals the tile's first active lane's.
fn vote_eq_pred(lw: &mut Lower<'_>, val: Value, t: u32) -> Result<u32, CompileError> {
    let ty = lw.scalar(val);
    let v = lw.v(val)?;
    if t == 1 {
        return scalar::compare(lw, CmpCond::Eq, ty, v, v);
    }
    let (base, tm) = tile_mask(lw, t)?;
    let first = if lw.full_activity() {
        base
    } else {
        let (mt, _) = mask_ty(lw)?;
        let act = active(lw)?;
        let m = lw.e.op(Op::BitwiseAnd, mt, &[act, tm]);
        lowest_bit(lw, m)?
    };
    let x = shfl(lw, ty, v, first)?;
    scalar::compare(lw, CmpCond::Eq, ty, v, x)
}

/// A value's bits as a key for `match.*`: (key, key type); `bool` as `u32`, 32-bit values as
/// `u32`, 64-bit as `uvec2`.
fn match_key(lw: &mut Lower<'_>, val: Value) -> Result<(u32, u32, bool), CompileError> {
    let t = lw.scalar(val);
    let v = lw.v(val)?;
    let u = lw.int_ty(32);
    Ok(match t {
        ScalarType::Bool => {
            let (one, z) = (lw.c_u32(1), lw.c_u32(0));
            (lw.e.op(Op::Select, u, &[v, one, z]), u, false)
        }
        ScalarType::I32 | ScalarType::U32 => (v, u, false),
        ScalarType::F32 => (lw.e.op(Op::Bitcast, u, &[v]), u, false),
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => {
            lw.ty(t)?;
            let v2 = scalar::uvec2(lw);
            (lw.e.op(Op::Bitcast, v2, &[v]), v2, true)
        }
    })
}

/// Whether a key equals another (bitwise).
fn key_eq(lw: &mut Lower<'_>, key: (u32, u32, bool), other: u32) -> u32 {
    let bt = lw.bool_ty();
    if key.2 {
        let b2 = lw.e.ty(TyKey::Vector(bt, 2));
        let e = lw.e.op(Op::IEqual, b2, &[key.0, other]);
        lw.e.op(Op::All, bt, &[e])
    } else {
        lw.e.op(Op::IEqual, bt, &[key.0, other])
    }
}

/// `match.any`: straight-line over the `W` lanes — broadcast lane `j`'s key (a constant lane id, so
/// no divergent loop: a per-lane ballot carried out of a divergent loop came back wrong on
/// lavapipe), set bit `j` where it equals this lane's key, then keep only the active lanes (an
/// inactive lane's broadcast is undefined, its bit is cleared).
fn match_any(lw: &mut Lower<'_>, val: Value) -> Result<u32, CompileError> {
    let key = match_key(lw, val)?;
    lw.need_subgroup(Capability::GroupNonUniformBallot)?;
    let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
    let (mt, _) = mask_ty(lw)?;
    let mut m = mask_const(lw, 0)?;
    let zero = m;
    for j in 0..lw.w {
        let lane = lw.c_u32(j);
        let kj = lw.e.op(Op::GroupNonUniformBroadcast, key.1, &[scope, key.0, lane]);
        let eq = key_eq(lw, key, kj);
        let bit = mask_const(lw, 1u64 << j)?;
        let sel = lw.e.op(Op::Select, mt, &[eq, bit, zero]);
        m = lw.e.op(Op::BitwiseOr, mt, &[m, sel]);
    }
    let act = active(lw)?;
    let m = lw.e.op(Op::BitwiseAnd, mt, &[m, act]);
    mask_to_u64(lw, m)
}

/// `block.sync_pred`: every thread folds its predicate into a workgroup slot with an atomic
/// between two barriers, reads the slot, and after a third barrier clears it for the next use.
fn sync_pred(lw: &mut Lower<'_>, pop: PredOp, p: u32) -> Result<u32, CompileError> {
    let slot = lw.sync_slot.ok_or_else(|| lw.internal("no workgroup slot for block.sync_pred"))?;
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let (one, z) = (lw.c_u32(1), lw.c_u32(0));
    let (scope, sem) = (lw.c_u32(SCOPE_WORKGROUP as u32), lw.c_u32(0));
    lw.block_barrier();
    let (op, x) = match pop {
        // and: count the false predicates; or / count: the true ones.
        PredOp::And => (Op::AtomicIAdd, lw.e.op(Op::Select, u, &[p, z, one])),
        PredOp::Or | PredOp::Count => (Op::AtomicIAdd, lw.e.op(Op::Select, u, &[p, one, z])),
    };
    lw.e.op(op, u, &[slot, scope, sem, x]);
    lw.block_barrier();
    let n = lw.e.op(Op::AtomicLoad, u, &[slot, scope, sem]);
    lw.block_barrier();
    lw.e.op_void(Op::AtomicStore, &[slot, scope, sem, z]);
    Ok(match pop {
        PredOp::And => lw.e.op(Op::IEqual, bt, &[n, z]),
        PredOp::Or => lw.e.op(Op::INotEqual, bt, &[n, z]),
        PredOp::Count => n,
    })
}
