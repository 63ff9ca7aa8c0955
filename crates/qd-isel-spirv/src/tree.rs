//! Reductions, scans and segmented reductions, bit-exact with the interpreter.
//!
//! - 32-bit integer and `bool` reductions and scans over the whole subgroup use
//!   `OpGroupNonUniform{IAdd,IMul,SMin,…,LogicalXor}` (`Reduce`/`InclusiveScan`/`ExclusiveScan`):
//!   their results over the active invocations are exactly the MIR's (integer operators are
//!   associative and commutative; inactive lanes are left out, i.e. count as the identity).
//!   Tiles use `ClusteredReduce` where the device has `CLUSTERED`. [`ReduceStrategy`] can force
//!   either (an error where it does not apply) or the tree.
//! - Everything else (floats, 64-bit values, tiled scans, segmented reductions) is the shuffle
//!   tree of the MIR `expand` pass, in its combination order: the butterfly
//!   (`v ⊕ shuffle.xor(v, k)`), Hillis–Steele scans (`shuffle.up(v, k) ⊕ v`) and the head-distance
//!   scan of segmented reductions. Under partial activity (a divergent region, a partial last
//!   subgroup, or lanes that returned) the tree must not read inactive lanes: the butterfly reads
//!   each partner group's partial from its first active lane (identity when none is), and scans
//!   gather the tile's values (the identity for inactive lanes) and run the same steps on them —
//!   the same as the PTX back end.

use crate::lower::{Lower, SCOPE_SUBGROUP};
use crate::scalar;
use crate::subgroup::{
    active, ballot, bit_set, full_bits, lowest_bit, mask_const, mask_ty, shfl, shfl_op, tile_mask, Group,
};
use crate::{CompileError, ReduceStrategy};
use qd_mir::eval::identity;
use qd_mir::BinOp;
use qd_mir::{GroupOp, ScalarType, Tile, Value};
use rspirv::spirv::{Capability, GlslStd450Op as Glsl, Op};

/// The domain a group op computes in: `bool` travels as `u32` 0/1 with its bool operator.
struct Domain {
    orig: ScalarType,
    work: ScalarType,
    combine: BinOp,
    op: GroupOp,
}

impl Domain {
    fn new(orig: ScalarType, op: GroupOp) -> Domain {
        let g = qd_mir::GroupDomain::new(orig, op);
        Domain { orig, work: g.work, combine: g.work_op.binop(), op }
    }

    fn identity(&self, lw: &mut Lower<'_>) -> Result<u32, CompileError> {
        lw.c(self.work, identity(self.op, self.orig))
    }

    fn combine(&self, lw: &mut Lower<'_>, a: u32, b: u32) -> Result<u32, CompileError> {
        scalar::binary(lw, self.combine, self.work, a, b)
    }

    fn enter(&self, lw: &mut Lower<'_>, v: u32) -> u32 {
        if self.orig == ScalarType::Bool {
            let u = lw.int_ty(32);
            let (one, z) = (lw.c_u32(1), lw.c_u32(0));
            lw.e.op(Op::Select, u, &[v, one, z])
        } else {
            v
        }
    }

    fn leave(&self, lw: &mut Lower<'_>, x: u32) -> u32 {
        if self.orig == ScalarType::Bool {
            let (bt, z) = (lw.bool_ty(), lw.c_u32(0));
            lw.e.op(Op::INotEqual, bt, &[x, z])
        } else {
            x
        }
    }

    /// `d = c ? a : b` in the working type.
    fn select(&self, lw: &mut Lower<'_>, c: u32, a: u32, b: u32) -> Result<u32, CompileError> {
        let t = lw.ty(self.work)?;
        Ok(lw.e.op(Op::Select, t, &[c, a, b]))
    }
}

/// The `OpGroupNonUniform*` arithmetic instruction for an operator on 32-bit integers or `bool`.
fn group_opcode(ty: ScalarType, g: GroupOp) -> Option<Op> {
    Some(match ty {
        ScalarType::Bool => match g.on_bool() {
            GroupOp::And | GroupOp::Min => Op::GroupNonUniformLogicalAnd,
            GroupOp::Or | GroupOp::Max => Op::GroupNonUniformLogicalOr,
            GroupOp::Xor => Op::GroupNonUniformLogicalXor,
            GroupOp::Add | GroupOp::Mul => return None,
        },
        ScalarType::I32 | ScalarType::U32 => {
            let s = ty == ScalarType::I32;
            match g {
                GroupOp::Add => Op::GroupNonUniformIAdd,
                GroupOp::Mul => Op::GroupNonUniformIMul,
                GroupOp::Min if s => Op::GroupNonUniformSMin,
                GroupOp::Min => Op::GroupNonUniformUMin,
                GroupOp::Max if s => Op::GroupNonUniformSMax,
                GroupOp::Max => Op::GroupNonUniformUMax,
                GroupOp::And => Op::GroupNonUniformBitwiseAnd,
                GroupOp::Or => Op::GroupNonUniformBitwiseOr,
                GroupOp::Xor => Op::GroupNonUniformBitwiseXor,
            }
        }
        ScalarType::I64 | ScalarType::U64 | ScalarType::F32 | ScalarType::F64 => return None,
    })
}

/// How a reduction is lowered.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Plan {
    Group,
    Clustered,
    Tree,
}

/// Lowers `subgroup.reduce` / `subgroup.scan` / `subgroup.segreduce`.
pub(crate) fn group(
    lw: &mut Lower<'_>,
    op: Group,
    g: GroupOp,
    tile: Tile,
    inclusive: bool,
    args: &[Value],
) -> Result<u32, CompileError> {
    let ty = lw.scalar(args[0]);
    let dom = Domain::new(ty, g);
    let v = lw.v(args[0])?;
    let t = tile.lanes(lw.w);
    let whole = t >= lw.w;
    let ops = lw.opts.caps.subgroup_ops;
    if t == 1 {
        // A one-lane tile: reduce/inclusive scan/segreduce are the value, exclusive the identity.
        if op == Group::Scan && !inclusive {
            let id = dom.identity(lw)?;
            return Ok(dom.leave(lw, id));
        }
        return Ok(v);
    }
    let gop = group_opcode(ty, g);
    let full = lw.full_activity();
    match op {
        Group::Reduce => {
            let plan = match lw.opts.reduce {
                ReduceStrategy::Auto => match gop {
                    Some(_) if whole && ops.arithmetic => Plan::Group,
                    Some(_) if ops.clustered && ops.arithmetic => Plan::Clustered,
                    _ => Plan::Tree,
                },
                ReduceStrategy::GroupArithmetic => {
                    if gop.is_none() || !whole {
                        return Err(lw.unsupported(
                            Some(ty),
                            format!(
                                "`OpGroupNonUniform` arithmetic cannot do `{}` on {} over {} (forced strategy `group`: \
                                 32-bit integers and bool over the whole subgroup only)",
                                g.name(),
                                ty.name(),
                                if whole { "the subgroup".to_string() } else { format!("a {t}-lane tile") }
                            ),
                        ));
                    }
                    Plan::Group
                }
                ReduceStrategy::Clustered => {
                    if gop.is_none() {
                        return Err(lw.unsupported(
                            Some(ty),
                            format!(
                                "`ClusteredReduce` cannot do `{}` on {} exactly (forced strategy `clustered`)",
                                g.name(),
                                ty.name()
                            ),
                        ));
                    }
                    Plan::Clustered
                }
                ReduceStrategy::ShuffleTree => Plan::Tree,
            };
            match (plan, gop) {
                (Plan::Group | Plan::Clustered, Some(gop)) => {
                    lw.need_subgroup(Capability::GroupNonUniformArithmetic)?;
                    let rt = lw.ty(ty)?;
                    let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
                    if plan == Plan::Clustered {
                        lw.need_subgroup(Capability::GroupNonUniformClustered)?;
                        let cs = lw.c_u32(t);
                        Ok(lw.e.op(gop, rt, &[scope, 3 /* ClusteredReduce */, v, cs]))
                    } else {
                        Ok(lw.e.op(gop, rt, &[scope, 0 /* Reduce */, v]))
                    }
                }
                _ => {
                    let x = dom.enter(lw, v);
                    let r = if full { butterfly(lw, &dom, x, t)? } else { partial_butterfly(lw, &dom, x, t)? };
                    Ok(dom.leave(lw, r))
                }
            }
        }
        Group::Scan => {
            let use_group = whole && ops.arithmetic && gop.is_some() && lw.opts.reduce != ReduceStrategy::ShuffleTree;
            if let (true, Some(gop)) = (use_group, gop) {
                lw.need_subgroup(Capability::GroupNonUniformArithmetic)?;
                let rt = lw.ty(ty)?;
                let scope = lw.c_u32(SCOPE_SUBGROUP as u32);
                let kind = if inclusive { 1 } else { 2 };
                return Ok(lw.e.op(gop, rt, &[scope, kind, v]));
            }
            let x = dom.enter(lw, v);
            let r = if full { scan_full(lw, &dom, x, t, inclusive)? } else { scan_partial(lw, &dom, x, t, inclusive)? };
            Ok(dom.leave(lw, r))
        }
        Group::SegReduce => {
            let x = dom.enter(lw, v);
            let head = lw.v(args[1])?;
            let hty = lw.scalar(args[1]);
            let hb = if hty == ScalarType::Bool {
                head
            } else {
                let (bt, z) = (lw.bool_ty(), lw.c(hty, 0)?);
                lw.e.op(Op::INotEqual, bt, &[head, z])
            };
            let hm = ballot(lw, hb)?;
            let r = if full { segreduce_full(lw, &dom, x, t, hm)? } else { segreduce_partial(lw, &dom, x, t, hm)? };
            Ok(dom.leave(lw, r))
        }
    }
}

/// The butterfly with every lane active: `x = x ⊕ shuffle.xor(x, k)`, `k = 1, 2, … t/2`.
fn butterfly(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32) -> Result<u32, CompileError> {
    let mut x = x;
    let mut k = 1;
    while k < t {
        let kc = lw.c_u32(k);
        let s = shfl_op(lw, dom.work, x, kc, true)?;
        x = dom.combine(lw, x, s)?;
        k <<= 1;
    }
    Ok(x)
}

/// The butterfly under partial activity, exact: after the steps below `k`, every lane of an
/// aligned `k`-lane group holds the same partial (the operators are commutative), so the partner
/// group's partial can be read from its first active lane; a group with no active lane
/// contributes the identity.
fn partial_butterfly(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32) -> Result<u32, CompileError> {
    let (mt, _) = mask_ty(lw)?;
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let mask = active(lw)?;
    let id = dom.identity(lw)?;
    let lane = lw.lane()?;
    let zero = mask_const(lw, 0)?;
    let mut x = x;
    let mut k = 1u32;
    while k < t {
        let kc = lw.c_u32(k);
        let g0 = lw.e.op(Op::BitwiseXor, u, &[lane, kc]);
        let hm = lw.c_u32(!(k - 1));
        let g = lw.e.op(Op::BitwiseAnd, u, &[g0, hm]);
        let sh = lw.e.op(Op::ShiftRightLogical, mt, &[mask, g]);
        let km = mask_const(lw, full_bits(k))?;
        let gm = lw.e.op(Op::BitwiseAnd, mt, &[sh, km]);
        let any = lw.e.op(Op::INotEqual, bt, &[gm, zero]);
        let lsb = lowest_bit(lw, gm)?;
        let src0 = lw.e.op(Op::IAdd, u, &[g, lsb]);
        let src = lw.e.op(Op::Select, u, &[any, src0, lane]);
        let s = shfl(lw, dom.work, x, src)?;
        let p = dom.select(lw, any, s, id)?;
        x = dom.combine(lw, x, p)?;
        k <<= 1;
    }
    Ok(x)
}

/// The tile-local lane index `lane & (t-1)`.
fn tile_lane(lw: &mut Lower<'_>, t: u32) -> Result<u32, CompileError> {
    let u = lw.int_ty(32);
    let lane = lw.lane()?;
    let m = lw.c_u32(t - 1);
    Ok(lw.e.op(Op::BitwiseAnd, u, &[lane, m]))
}

/// `shuffle.up(x, k)` within the tile with every lane active, and whether it came from the tile
/// (tile lane ≥ k; otherwise the value read is the lane's own).
fn up_in_tile(lw: &mut Lower<'_>, dom: &Domain, x: u32, k: u32, tl: u32) -> Result<(u32, u32), CompileError> {
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let lane = lw.lane()?;
    let kc = lw.c_u32(k);
    let q = lw.e.op(Op::UGreaterThanEqual, bt, &[tl, kc]);
    let s0 = lw.e.op(Op::ISub, u, &[lane, kc]);
    let src = lw.e.op(Op::Select, u, &[q, s0, lane]);
    Ok((shfl(lw, dom.work, x, src)?, q))
}

/// Hillis–Steele with every lane active: `x = shuffle.up(x, k) ⊕ x` where tile lane ≥ k.
fn scan_full(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32, inclusive: bool) -> Result<u32, CompileError> {
    let tl = tile_lane(lw, t)?;
    let mut x = x;
    if !inclusive {
        let (p, q) = up_in_tile(lw, dom, x, 1, tl)?;
        let id = dom.identity(lw)?;
        x = dom.select(lw, q, p, id)?;
    }
    let mut k = 1;
    while k < t {
        let (p, q) = up_in_tile(lw, dom, x, k, tl)?;
        let c = dom.combine(lw, p, x)?;
        x = dom.select(lw, q, c, x)?;
        k <<= 1;
    }
    Ok(x)
}

/// The tile's values in lane order; inactive lanes give the identity.
fn gather(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32) -> Result<Vec<u32>, CompileError> {
    let u = lw.int_ty(32);
    let mask = active(lw)?;
    let (base, _) = tile_mask(lw, t)?;
    let lane = lw.lane()?;
    let id = dom.identity(lw)?;
    let mut out = Vec::with_capacity(t as usize);
    for j in 0..t {
        let jc = lw.c_u32(j);
        let src = lw.e.op(Op::IAdd, u, &[base, jc]);
        let on = bit_set(lw, mask, src)?;
        let s = lw.e.op(Op::Select, u, &[on, src, lane]);
        let r = shfl(lw, dom.work, x, s)?;
        out.push(dom.select(lw, on, r, id)?);
    }
    Ok(out)
}

/// `e[lane & (t-1)]` by a tree of selects on the bits of the tile-local lane.
fn pick_own(lw: &mut Lower<'_>, dom: &Domain, e: &[u32], t: u32) -> Result<u32, CompileError> {
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let tl = tile_lane(lw, t)?;
    let z = lw.c_u32(0);
    let mut level: Vec<u32> = e.to_vec();
    let mut bit = 0;
    while level.len() > 1 {
        let m = lw.c_u32(1 << bit);
        let b = lw.e.op(Op::BitwiseAnd, u, &[tl, m]);
        let odd = lw.e.op(Op::INotEqual, bt, &[b, z]);
        let mut next = Vec::with_capacity(level.len() / 2);
        for pair in level.chunks(2) {
            next.push(if pair.len() == 2 { dom.select(lw, odd, pair[1], pair[0])? } else { pair[0] });
        }
        level = next;
        bit += 1;
    }
    Ok(level[0])
}

/// Scans under partial activity: gather, then the same Hillis–Steele steps in registers.
fn scan_partial(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32, inclusive: bool) -> Result<u32, CompileError> {
    let vals = gather(lw, dom, x, t)?;
    let mut e: Vec<u32> = if inclusive {
        vals
    } else {
        let mut s = vec![dom.identity(lw)?];
        s.extend_from_slice(&vals[..vals.len() - 1]);
        s
    };
    let mut k = 1;
    while k < t as usize {
        for i in (k..t as usize).rev() {
            e[i] = dom.combine(lw, e[i - k], e[i])?;
        }
        k <<= 1;
    }
    pick_own(lw, dom, &e, t)
}

/// The highest set bit of a non-zero mask, as a `u32`.
fn highest_bit(lw: &mut Lower<'_>, m: u32) -> Result<u32, CompileError> {
    let u = lw.int_ty(32);
    if lw.w <= 32 {
        return Ok(lw.e.ext(u, Glsl::FindUMsb as u32, &[m]));
    }
    let (mt, _) = mask_ty(lw)?;
    let lo = lw.e.op(Op::UConvert, u, &[m]);
    let c32 = mask_const(lw, 32)?;
    let hs = lw.e.op(Op::ShiftRightLogical, mt, &[m, c32]);
    let hi = lw.e.op(Op::UConvert, u, &[hs]);
    let (fl, fh) = (lw.e.ext(u, Glsl::FindUMsb as u32, &[lo]), lw.e.ext(u, Glsl::FindUMsb as u32, &[hi]));
    let k32 = lw.c_u32(32);
    let fh32 = lw.e.op(Op::IAdd, u, &[fh, k32]);
    let (z, bt) = (lw.c_u32(0), lw.bool_ty());
    let hz = lw.e.op(Op::IEqual, bt, &[hi, z]);
    Ok(lw.e.op(Op::Select, u, &[hz, fl, fh32]))
}

/// Segmented reduction with every lane active: Hillis–Steele on the distance to the lane's
/// head, `x = x ⊕ shuffle.up(x, k)` where that distance is ≥ k.
fn segreduce_full(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32, hm: u32) -> Result<u32, CompileError> {
    let (mt, _) = mask_ty(lw)?;
    let (u, bt) = (lw.int_ty(32), lw.bool_ty());
    let mw = if lw.w > 32 { 64 } else { 32 };
    let lane = lw.lane()?;
    let (base, tm) = tile_mask(lw, t)?;
    let one = mask_const(lw, 1)?;
    let bb = lw.e.op(Op::ShiftLeftLogical, mt, &[one, base]);
    let ht = lw.e.op(Op::BitwiseAnd, mt, &[hm, tm]);
    let eff = lw.e.op(Op::BitwiseOr, mt, &[ht, bb]);
    let top = lw.c_u32(mw - 1);
    let sh = lw.e.op(Op::ISub, u, &[top, lane]);
    let ones = mask_const(lw, full_bits(mw))?;
    let incl = lw.e.op(Op::ShiftRightLogical, mt, &[ones, sh]);
    let m = lw.e.op(Op::BitwiseAnd, mt, &[eff, incl]);
    let h = highest_bit(lw, m)?;
    let dist = lw.e.op(Op::ISub, u, &[lane, h]);
    let mut x = x;
    let mut k = 1;
    while k < t {
        let kc = lw.c_u32(k);
        let q = lw.e.op(Op::UGreaterThanEqual, bt, &[dist, kc]);
        let s0 = lw.e.op(Op::ISub, u, &[lane, kc]);
        let src = lw.e.op(Op::Select, u, &[q, s0, lane]);
        let p = shfl(lw, dom.work, x, src)?;
        let c = dom.combine(lw, x, p)?;
        x = dom.select(lw, q, c, x)?;
        k <<= 1;
    }
    Ok(x)
}

/// Segmented reduction under partial activity: gather, then the steps in registers, a step
/// combining `e[i]` with `e[i-k]` only when no head lies in tile positions `i-k+1 ..= i`.
fn segreduce_partial(lw: &mut Lower<'_>, dom: &Domain, x: u32, t: u32, hm: u32) -> Result<u32, CompileError> {
    let (mt, _) = mask_ty(lw)?;
    let bt = lw.bool_ty();
    let vals = gather(lw, dom, x, t)?;
    let (base, _) = tile_mask(lw, t)?;
    let hmt = lw.e.op(Op::ShiftRightLogical, mt, &[hm, base]);
    let zero = mask_const(lw, 0)?;
    let mut e = vals;
    let mut k = 1usize;
    while k < t as usize {
        for i in (k..t as usize).rev() {
            let window = ((1u64 << k) - 1) << (i - k + 1);
            let wc = mask_const(lw, window)?;
            let wm = lw.e.op(Op::BitwiseAnd, mt, &[hmt, wc]);
            let has = lw.e.op(Op::INotEqual, bt, &[wm, zero]);
            let c = dom.combine(lw, e[i], e[i - k])?;
            e[i] = dom.select(lw, has, e[i], c)?;
        }
        k <<= 1;
    }
    pick_own(lw, dom, &e, t)
}
