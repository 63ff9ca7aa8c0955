//! Expansion of subgroup collectives into shuffle sequences (`ExpandCollectives`).
//!
//! What it does: replaces `subgroup.reduce`, `subgroup.scan` (inclusive/exclusive),
//! `subgroup.segreduce`, `vote.all`, `vote.any` and `vote.eq` by straight-line code built from
//! `shuffle.xor` / `shuffle.up` / `shuffle.idx` / `ballot` / `clz` / `lane_id` / arithmetic /
//! `select`, following the Quadrants algorithms and the EXACT combination orders of the shared
//! contract, so results are bit-identical to the interpreter (T = tile lanes):
//! - reduce: butterfly `v = v ⊕ shuffle.xor(v, k)` for k = 1, 2, …, T/2 (own value left);
//! - inclusive scan: for k = 1, …, T/2: `p = shuffle.up(v, k)`,
//!   `v = (lane & (T-1)) >= k ? p ⊕ v : v` (predecessor left);
//! - exclusive scan: `p = shuffle.up(v, 1)`, `p = (lane & (T-1)) == 0 ? identity : p`, then the
//!   inclusive scan of `p`;
//! - vote.all / vote.any: predicate to 0/1, butterfly with `and` / `or`;
//! - vote.eq: `base = shuffle.idx(v, lane & ~(T-1))`, `cmp eq v, base`, then the all-butterfly;
//! - segreduce: head distance from `ballot(head != 0)` and `clz` (u32 math in 32-lane
//!   half-local coordinates for T ≤ 32, u64 for T = 64, as docs/subgroup.md §3.6), then
//!   `v = dist >= k ? v ⊕ shuffle.up(v, k) : v` (own value left).
//!
//! Bool values are carried as u32 0/1 through the shuffles (and converted back), combining with
//! the bool forms of the operator (`add`/`max`/`or` → `or`, `mul`/`min`/`and` → `and`), which is
//! bit-identical to `eval::combine` on bools and needs no bool shuffles.
//!
//! What it assumes and refuses: the expansion is exact only when every lane of the tile is active
//! (the same caller contract as Quadrants'); under partial activity the interpreter treats
//! inactive lanes as the identity while a shuffle from an inactive lane returns the reader's own
//! value. So collectives in regions that the uniformity analysis cannot prove uniform (an arm of
//! an `if` on a varying condition, a loop with a varying exit) are left as they are: each back
//! end lowers those natively, under its EXEC mask or member mask. Likewise, when some `return`
//! sits under a varying condition, lanes may have left while their registers still hold values a
//! shuffle would read, so such a kernel's collectives are all kept. On an error the function is
//! left exactly as it was. Blocks whose size is not a
//! multiple of the subgroup width end in a partly filled subgroup, which the expansion does not
//! handle either (Quadrants rounds its launches up to whole blocks for the same reason). A
//! full-subgroup tile needs [`PassOptions::subgroup_width`]; a tile wider than the
//! known width, or a pointer operand, is an error naming the op.

use super::rewrite::{splice_replace, substitute_all, Subst};
use super::PassOptions;
use crate::analysis::uniformity::Uniformity;
use crate::analysis::Layout;
use crate::entities::{Inst, Region, Value};
use crate::eval;
use crate::function::Function;
use crate::inst::{Imm, Tile};
use crate::ops::{CmpCond, Collective as Coll, GroupOp, Opcode};
use crate::types::{ScalarType, Type};
use std::collections::HashMap;

/// Expands every collective reachable from the body; returns whether anything was expanded.
pub fn run(f: &mut Function, opts: &PassOptions) -> Result<bool, String> {
    // Work on a copy so that an error (a tile wider than the width, say) leaves `f` untouched.
    let mut g = f.clone();
    let mut subst = Subst::new();
    let body = g.body;
    // Regions are only rewritten in place (their identities survive), so the analysis made on
    // the input stays valid for the whole walk.
    let layout = Layout::new(&g);
    let uniform = Uniformity::with_layout(&g, &layout);
    // A `return` under a varying condition leaves lanes that no longer execute but whose
    // registers a shuffle tree would still read: then no region is known to be fully active.
    let divergent_exit = layout.insts().iter().any(|&i| {
        g.insts[i].opcode == Opcode::Return && layout.inst_pos(i).is_some_and(|p| !uniform.is_uniform_region(p.region))
    });
    let changed = if divergent_exit { false } else { expand_region(&mut g, body, opts, &uniform, &mut subst)? };
    substitute_all(&mut g, &subst);
    *f = g;
    Ok(changed)
}

/// The collective an opcode is, if this pass expands it (every [`crate::ops::OpClass::Collective`]).
fn collective(op: Opcode) -> Option<Coll> {
    op.collective()
}

fn expand_region(
    f: &mut Function,
    region: Region,
    opts: &PassOptions,
    uniform: &Uniformity,
    subst: &mut Subst,
) -> Result<bool, String> {
    let mut changed = false;
    let mut idx = 0;
    let full_activity = uniform.is_uniform_region(region);
    while let Some(&inst) = f.regions[region].insts.get(idx) {
        if let Some(kind) = collective(f.insts[inst].opcode).filter(|_| full_activity) {
            let (insts, result) = expand_one(f, inst, kind, opts)?;
            if let Some(old) = f.first_result(inst) {
                subst.insert(old, result);
            }
            let n = insts.len();
            splice_replace(f, region, idx, insts);
            idx += n;
            changed = true;
            continue;
        }
        let nested: Vec<Region> = f.inst_regions(inst).collect();
        for r in nested {
            changed |= expand_region(f, r, opts, uniform, subst)?;
        }
        idx += 1;
    }
    Ok(changed)
}

/// Text of an instruction's op for error messages (`subgroup.reduce add tile(3)`).
fn describe(op: Opcode, imm: Imm) -> String {
    let tile = |t: Tile| match t {
        Tile::Full => String::new(),
        Tile::Log2(l) => format!(" tile({l})"),
    };
    match imm {
        Imm::Group { op: g, tile: t, inclusive } if op == Opcode::SubgroupScan => {
            format!("{op} {} {}{}", if inclusive { "inclusive" } else { "exclusive" }, g.name(), tile(t))
        }
        Imm::Group { op: g, tile: t, .. } => format!("{op} {}{}", g.name(), tile(t)),
        Imm::Tile(t) => format!("{op}{}", tile(t)),
        _ => op.to_string(),
    }
}

/// The number of lanes of `tile` for the target.
fn tile_lanes(tile: Tile, width: Option<u32>, what: &str) -> Result<u32, String> {
    match (tile, width) {
        (Tile::Full, Some(w)) => Ok(w),
        (Tile::Full, None) => Err(format!("cannot expand `{what}`: a full-subgroup tile needs a known subgroup width")),
        (Tile::Log2(l), _) if l > 6 => Err(format!("cannot expand `{what}`: tile(2^{l}) exceeds 64 lanes")),
        (Tile::Log2(l), Some(w)) if (1u32 << l) > w => {
            Err(format!("cannot expand `{what}`: tile of {} lanes exceeds the subgroup width {w}", 1u32 << l))
        }
        (Tile::Log2(l), _) => Ok(1u32 << l),
    }
}

/// Emits the expansion of one collective; returns the new instructions and the value replacing
/// the collective's result.
fn expand_one(f: &mut Function, inst: Inst, kind: Coll, opts: &PassOptions) -> Result<(Vec<Inst>, Value), String> {
    let op = f.insts[inst].opcode;
    let imm = f.insts[inst].imm;
    let what = describe(op, imm);
    let args = f.args(inst).to_vec();
    let result = f.first_result(inst).ok_or_else(|| format!("`{what}` has no result"))?;
    let rt = f.value_type(result).scalar().ok_or_else(|| format!("cannot expand `{what}`: non-scalar result"))?;
    let v = *args.first().ok_or_else(|| format!("`{what}` has no operand"))?;
    let vty = f.value_type(v).scalar().ok_or_else(|| format!("cannot expand `{what}`: non-scalar operand"))?;
    let (tile, group) = match (kind, imm) {
        (Coll::Reduce | Coll::Scan | Coll::SegReduce, Imm::Group { op: g, tile, inclusive }) => {
            (tile, Some((g, inclusive)))
        }
        (Coll::VoteAll | Coll::VoteAny | Coll::VoteEq, Imm::Tile(tile)) => (tile, None),
        _ => return Err(format!("cannot expand `{what}`: malformed immediate {imm:?}")),
    };
    let width = f.launch.subgroup_size.or(opts.subgroup_width);
    let t = tile_lanes(tile, width, &what)?;
    let mut em = Em { f, out: Vec::new(), consts: HashMap::new(), lane: None, width };
    let value = match (kind, group) {
        (Coll::Reduce, Some((g, _))) => {
            let d = Domain::new(vty, g);
            let x = em.enter(&d, v);
            let r = em.reduce(&d, x, t);
            em.leave(&d, r)
        }
        (Coll::Scan, Some((g, inclusive))) => {
            let d = Domain::new(vty, g);
            let x = em.enter(&d, v);
            let r = em.scan(&d, x, t, inclusive);
            em.leave(&d, r)
        }
        (Coll::SegReduce, Some((g, _))) => {
            let head = *args.get(1).ok_or_else(|| format!("`{what}` needs a head operand"))?;
            let hty = em.f.value_type(head).scalar().ok_or_else(|| format!("cannot expand `{what}`: bad head"))?;
            let d = Domain::new(vty, g);
            let x = em.enter(&d, v);
            let r = em.segreduce(&d, x, head, hty, t);
            em.leave(&d, r)
        }
        (Coll::VoteAll | Coll::VoteAny, None) => {
            let pb = em.as_bool(v, vty);
            let combine = if kind == Coll::VoteAll { Opcode::And } else { Opcode::Or };
            em.vote(pb, t, combine, rt)
        }
        (Coll::VoteEq, None) => {
            let d = Domain::new(vty, GroupOp::Xor);
            let x = em.enter(&d, v);
            let eq = if t == 1 {
                em.cmp(CmpCond::Eq, x, x)
            } else {
                let lane = em.lane();
                let mask = em.k(ScalarType::U32, u64::from(!(t - 1)));
                let base_lane = em.bin(Opcode::And, lane, mask);
                let base = em.emit(Opcode::ShuffleIdx, Imm::None, &[x, base_lane], d.work.into());
                em.cmp(CmpCond::Eq, x, base)
            };
            em.vote(eq, t, Opcode::And, rt)
        }
        _ => return Err(format!("cannot expand `{what}`: malformed immediate {imm:?}")),
    };
    if em.f.value_type(value) != Type::from(rt) {
        return Err(format!("cannot expand `{what}`: result type {rt} does not match the operand"));
    }
    Ok((em.out, value))
}

/// The domain a collective computes in (bool as u32 0/1 with its bool operator).
type Domain = crate::ops::GroupDomain;

/// Emits instructions into a list (placed by the caller where the collective was).
struct Em<'a> {
    f: &'a mut Function,
    out: Vec<Inst>,
    consts: HashMap<(ScalarType, u64), Value>,
    lane: Option<Value>,
    width: Option<u32>,
}

impl Em<'_> {
    fn emit(&mut self, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
        let inst = self.f.make_inst(op, imm, args, &[ty]);
        self.out.push(inst);
        self.f.inst_results(inst)[0]
    }

    fn k(&mut self, ty: ScalarType, bits: u64) -> Value {
        let bits = eval::canon(ty, bits);
        if let Some(&v) = self.consts.get(&(ty, bits)) {
            return v;
        }
        let v = self.emit(Opcode::Const, Imm::Const(bits), &[], ty.into());
        self.consts.insert((ty, bits), v);
        v
    }

    fn lane(&mut self) -> Value {
        if let Some(l) = self.lane {
            return l;
        }
        let l = self.emit(Opcode::LaneId, Imm::None, &[], Type::U32);
        self.lane = Some(l);
        l
    }

    /// `lane & (t - 1)`, or the lane itself when the tile is the whole (known) subgroup.
    fn lane_in_tile(&mut self, t: u32) -> Value {
        let lane = self.lane();
        if self.width == Some(t) {
            return lane;
        }
        let m = self.k(ScalarType::U32, u64::from(t - 1));
        self.bin(Opcode::And, lane, m)
    }

    fn bin(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.emit(op, Imm::None, &[a, b], ty)
    }

    fn un(&mut self, op: Opcode, a: Value) -> Value {
        let ty = self.f.value_type(a);
        self.emit(op, Imm::None, &[a], ty)
    }

    fn cmp(&mut self, c: CmpCond, a: Value, b: Value) -> Value {
        self.emit(Opcode::Cmp, Imm::Cond(c), &[a, b], Type::BOOL)
    }

    fn cast(&mut self, v: Value, to: ScalarType) -> Value {
        if self.f.value_type(v) == Type::from(to) {
            return v;
        }
        self.emit(Opcode::Cast, Imm::None, &[v], to.into())
    }

    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.emit(Opcode::Select, Imm::None, &[c, a, b], ty)
    }

    fn shuffle(&mut self, op: Opcode, v: Value, k: u32) -> Value {
        let kv = self.k(ScalarType::U32, u64::from(k));
        let ty = self.f.value_type(v);
        self.emit(op, Imm::None, &[v, kv], ty)
    }

    fn enter(&mut self, d: &Domain, v: Value) -> Value {
        self.cast(v, d.work)
    }

    fn leave(&mut self, d: &Domain, v: Value) -> Value {
        self.cast(v, d.orig)
    }

    fn as_bool(&mut self, v: Value, ty: ScalarType) -> Value {
        self.cast(v, if ty == ScalarType::Bool { ty } else { ScalarType::Bool })
    }

    /// Butterfly `v = v ⊕ shuffle.xor(v, k)`, k = 1, 2, …, t/2.
    fn reduce(&mut self, d: &Domain, mut v: Value, t: u32) -> Value {
        let mut k = 1;
        while k < t {
            let s = self.shuffle(Opcode::ShuffleXor, v, k);
            v = self.bin(d.work_op.opcode(), v, s);
            k <<= 1;
        }
        v
    }

    /// Hillis–Steele scan (predecessor left); exclusive shifts the input first.
    fn scan(&mut self, d: &Domain, mut v: Value, t: u32, inclusive: bool) -> Value {
        if !inclusive {
            let id = self.k(d.work, d.identity());
            if t == 1 {
                return id;
            }
            let lig = self.lane_in_tile(t);
            let p = self.shuffle(Opcode::ShuffleUp, v, 1);
            let zero = self.k(ScalarType::U32, 0);
            let first = self.cmp(CmpCond::Eq, lig, zero);
            v = self.select(first, id, p);
        }
        if t == 1 {
            return v;
        }
        let lig = self.lane_in_tile(t);
        let mut k = 1;
        while k < t {
            let p = self.shuffle(Opcode::ShuffleUp, v, k);
            let kv = self.k(ScalarType::U32, u64::from(k));
            let on = self.cmp(CmpCond::Ge, lig, kv);
            let c = self.bin(d.work_op.opcode(), p, v);
            v = self.select(on, c, v);
            k <<= 1;
        }
        v
    }

    /// Segmented inclusive scan: head distance from a ballot, then Hillis–Steele (own left).
    fn segreduce(&mut self, d: &Domain, mut v: Value, head: Value, hty: ScalarType, t: u32) -> Value {
        if t == 1 {
            return v;
        }
        let hb = self.as_bool(head, hty);
        let full = self.emit(Opcode::Ballot, Imm::None, &[hb], Type::U64);
        let lane = self.lane();
        let dist = if t <= 32 {
            let u = ScalarType::U32;
            let (head_mask, lih) = if self.width.is_some_and(|w| w <= 32) {
                // One 32-lane half: half_base = 0.
                (self.cast(full, u), lane)
            } else {
                let not31 = self.k(u, u64::from(!31u32));
                let half_base = self.bin(Opcode::And, lane, not31);
                let hb64 = self.cast(half_base, ScalarType::U64);
                let shifted = self.bin(Opcode::Shr, full, hb64);
                let hm = self.cast(shifted, u);
                (hm, self.bin(Opcode::Sub, lane, half_base))
            };
            let not_t = self.k(u, u64::from(!(t - 1)));
            let group_base = self.bin(Opcode::And, lih, not_t);
            let ones_t = self.k(u, (1u64 << t) - 1);
            let group_mask = self.bin(Opcode::Shl, ones_t, group_base);
            let one = self.k(u, 1);
            let base_bit = self.bin(Opcode::Shl, one, group_base);
            let in_group = self.bin(Opcode::And, head_mask, group_mask);
            let eff = self.bin(Opcode::Or, in_group, base_bit);
            let all = self.k(u, u64::from(u32::MAX));
            let k31 = self.k(u, 31);
            let sh = self.bin(Opcode::Sub, k31, lih);
            let incl = self.bin(Opcode::Shr, all, sh);
            let m = self.bin(Opcode::And, eff, incl);
            let lz = self.un(Opcode::Clz, m);
            let h = self.bin(Opcode::Sub, k31, lz);
            self.bin(Opcode::Sub, lih, h)
        } else {
            let u = ScalarType::U64;
            let lane64 = self.cast(lane, u);
            let one = self.k(u, 1);
            let eff = self.bin(Opcode::Or, full, one);
            let all = self.k(u, u64::MAX);
            let k63 = self.k(u, 63);
            let sh = self.bin(Opcode::Sub, k63, lane64);
            let incl = self.bin(Opcode::Shr, all, sh);
            let m = self.bin(Opcode::And, eff, incl);
            let lz = self.un(Opcode::Clz, m);
            let h = self.bin(Opcode::Sub, k63, lz);
            let d64 = self.bin(Opcode::Sub, lane64, h);
            self.cast(d64, ScalarType::U32)
        };
        let mut k = 1;
        while k < t {
            let p = self.shuffle(Opcode::ShuffleUp, v, k);
            let kv = self.k(ScalarType::U32, u64::from(k));
            let on = self.cmp(CmpCond::Ge, dist, kv);
            let c = self.bin(d.work_op.opcode(), v, p);
            v = self.select(on, c, v);
            k <<= 1;
        }
        v
    }

    /// All/any butterfly over a bool predicate (as u32 0/1); result converted to `rt`.
    fn vote(&mut self, pred: Value, t: u32, combine: Opcode, rt: ScalarType) -> Value {
        if t == 1 {
            return self.cast(pred, rt);
        }
        let mut x = self.cast(pred, ScalarType::U32);
        let mut k = 1;
        while k < t {
            let s = self.shuffle(Opcode::ShuffleXor, x, k);
            x = self.bin(combine, x, s);
            k <<= 1;
        }
        self.cast(x, rt)
    }
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
