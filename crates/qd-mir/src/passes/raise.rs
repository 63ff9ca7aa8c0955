//! Raising of hand-written shuffle trees to `subgroup.reduce` / `subgroup.scan` (`raise`).
//!
//! Kernels written against Quadrants or CUDA build their reductions and scans out of shuffles:
//! xor butterflies, `shuffle_down` trees read on tile lane 0, `shuffle_up` Hillis–Steele scans.
//! A back end with native collective sequences (the AMDGCN DPP/permlane selector) lowers a
//! `subgroup.reduce`/`subgroup.scan` far better than each shuffle on its own, so this pass finds
//! such trees and replaces them by the collective — the SCALE idea, as an open, tested pass.
//!
//! # How a tree is recognised: by evaluation, not by shape
//!
//! The pass does not match syntax. For a candidate final value `r` it evaluates `r` **symbolically
//! on every lane** of a subgroup of the known width `W`, with every lane active: the value is an
//! expression tree over the lanes of one input value `x` (leaves `x[j]`), constants and one
//! combining operator. Shuffles move expressions between lanes by their source table
//! ([`crate::analysis::lanes::shuffle_sources`]: the lane operand must be a *lane function* —
//! any expression of `lane_id`, constants and `subgroup_size`, so `shuffle.xor %v, 4`,
//! `shuffle.idx %v, (lane ^ 4)`, `shuffle.down %v, 8` and CUDA's tiled `__shfl_down_sync` written
//! as an index expression all evaluate alike); `select` and `if`/`yield` pick per lane by their
//! condition, which must also be a lane function (`lane >= k`, `(lane & 15) >= k`, …). The
//! same is done for the interpreter's own definition of each collective (`interp::simt`:
//! butterfly with the own value on the left, Hillis–Steele with the predecessor on the left,
//! exclusive = shift-first) for every tile `T = 2, 4, …, W`, and the two are compared lane by
//! lane:
//!
//! * **float operators** (`f32`/`f64` `add mul min max`): the expression trees must be
//!   **identical**, operand order included. Only then is every result bit-identical for every
//!   input (different NaN payloads meeting, `-0 + +0`, rounding all depend on the order). This
//!   admits exactly the interpreter's order: the ascending own-left butterfly, the
//!   predecessor-left shift-up scan, the shift-first exclusive scan — and rejects descending
//!   butterflies, partner-left combines, `shuffle_down` trees and inclusive-then-shift
//!   exclusive scans, whatever they are written with.
//! * **integer and bool operators** (`add mul min max and or xor` on `i32 u32 i64 u64`, `and or
//!   xor min max` on `bool`): these are exactly associative and commutative (wrapping), so only
//!   the **multiset of leaves** matters; constants equal to the operator's identity
//!   ([`crate::eval::identity`]) are neutral and dropped, any other constant fails the lane. This
//!   admits butterflies with masks in any order, operands in either order, `shuffle_down` trees,
//!   masked forms (`v + (lane >= k ? p : 0)`) and the inclusive-then-shift exclusive scan.
//!
//! A lane **matches** when its expression equals the collective's. If every lane matches, the
//! tree is the collective. If only some do (a `shuffle_down` tree is only right on tile lane 0),
//! the tree is raised only when every use of `r` observes `r` on matching lanes only (see
//! *Uses* below). The candidate tiles are tried in the order reduce, inclusive scan, exclusive
//! scan, smallest tile first; the first that covers the observed lanes is taken.
//!
//! # Rewrite
//!
//! The instruction defining `r` (a binary op, a `select`, or an `if` with one result and
//! effect-free arms) is **changed in place** into `subgroup.reduce OP tile(log2 T) %x` or
//! `subgroup.scan inclusive|exclusive OP tile(log2 T) %x`: its `Inst` handle and result `Value`
//! stay, so source lines and per-op options keyed by `Inst` carry over and no use needs
//! rewriting. The tile is always written as `tile(L)` (never the full-subgroup form), which keeps
//! its meaning if the kernel later runs at a wider subgroup. The tree's shuffles, combines,
//! selects and `if`s that become unused are then removed by this pass itself, because [`dce`]
//! never removes convergent ops (shuffles); the lane-index arithmetic and constants left unused
//! are ordinary pure code for `dce`. One tree is raised per round and the analyses are rebuilt
//! before the next, so values of the raised tree still used elsewhere are considered again (as
//! their own, smaller trees).
//!
//! # Legality: when a tree is left alone, and why
//!
//! * **Unknown width** ([`PassOptions::subgroup_width`] is `None`), or a kernel built for another
//!   width (`subgroup(W)` different from it): the source tables of the shuffles depend on `W`.
//! * **Blocks whose thread count is not a multiple of `W`**: the last subgroup is partial, its
//!   missing lanes are inactive. A hand-written tree reads an inactive lane's *own* value where a
//!   collective uses the identity, so the two differ there.
//! * **Non-uniform regions**: the root instruction and every shuffle of the tree must sit in a
//!   region the uniformity analysis proves all lanes reach together, for the same reason (an
//!   `if` on a varying condition, a loop with a divergent exit, a tile only partly active). A
//!   kernel with a `return` under a varying condition is skipped entirely (lanes may have left).
//!   Combines inside lane-guarded `if` arms are fine: they are per-lane arithmetic.
//! * **Exactly one input value** `x`, which must dominate the root (it is the collective's
//!   operand). A second data input (mixed trees, a shuffle of another value) fails the match.
//!   A combine of a different operator is not part of the tree: it is an input, so mixed-operator
//!   trees never match a whole tile.
//! * **Maximal trees only**: a value that is itself the input of a further step (used by a
//!   combine whose other operand is a shuffle of it, directly or through a `select`/`if`) is not
//!   raised on its own. So a near-miss (a butterfly whose last mask is wrong, a mixed-operator
//!   tree) raises nothing, not even its correct first steps.
//! * **Operators and types** are those MIR collectives accept (`add`/`mul` on numbers,
//!   `min`/`max` on numbers and bool, `and`/`or`/`xor` on integers and bool).
//! * **Root replacement**: an `if` root must have one result and arms without side effects
//!   (its arms disappear with it).
//!
//! # Uses (partial matches)
//!
//! For a tree that matches only on some lanes, each use of `r` is checked for the lanes on which
//! it can observe `r`: the lanes that execute the using instruction (narrowed by every enclosing
//! `if` whose condition is a lane function: `if (lane & (T-1)) == 0`, `if lane == 0`, the else arm
//! of `lane != 0`, …); for a `select` with a lane-function condition, the lanes that pick `r`;
//! for a shuffle or `broadcast` reading `r`, the *source* lanes (plus the reading lane itself
//! when the shuffle may run with lanes inactive). Any other cross-lane op reading `r` (a
//! ballot, a collective) observes every lane. The tree is raised only when all observed lanes
//! match. A guard that is not a lane function (`thread_id`-based, data-based) does not narrow:
//! such trees stay as written.
//!
//! # Not in the default pipeline
//!
//! [`super::Pass::Raise`] is not part of [`super::Pass::ALL`]: that order ends with `expand`,
//! which lowers collectives back into shuffle trees for back ends without native collective
//! sequences, so raising before it is undone and raising after it would undo it. A back end
//! with native collective lowering runs `raise` (then `dce`) itself, with its subgroup width.

use super::dce::{region_is_effect_free, removable};
use super::rewrite::{remove_inst, use_counts};
use super::PassOptions;
use crate::analysis::dominance::DomTree;
use crate::analysis::lanes::{lane_function, shuffle_sources};
use crate::analysis::uniformity::Uniformity;
use crate::analysis::Layout;
use crate::entities::{Inst, Region, Value};
use crate::eval;
use crate::function::{Function, ValueDef};
use crate::inst::{Imm, Tile};
use crate::ops::{GroupOp, OpClass, Opcode, Terminator};
use crate::types::{ScalarType, Type};
use crate::verify::group_op_legal;
use core::fmt;
use std::collections::HashMap;

/// How deep the symbolic evaluation follows operands (trees are at most a few dozen values
/// deep; this only bounds pathological inputs).
const MAX_DEPTH: u32 = 256;

/// Which collective a tree became.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RaisedKind {
    /// `subgroup.reduce`.
    Reduce,
    /// `subgroup.scan inclusive`.
    InclusiveScan,
    /// `subgroup.scan exclusive`.
    ExclusiveScan,
}

/// One raised tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Raised {
    /// The instruction that defined the tree's final value and now holds the collective.
    pub inst: Inst,
    /// The collective.
    pub kind: RaisedKind,
    /// Its operator.
    pub op: GroupOp,
    /// The value type.
    pub ty: ScalarType,
    /// Tile lanes (a power of two, `2..=W`).
    pub tile: u32,
    /// The lanes (bit `l` = lane `l`) on which the tree equals the collective; every lane except
    /// for lane-0 trees, whose uses observe only these lanes.
    pub lanes: u64,
}

impl fmt::Display for Raised {
    /// The collective's MIR op text (`subgroup.reduce add tile(5)`,
    /// `subgroup.scan exclusive min tile(3)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.tile.trailing_zeros();
        match self.kind {
            RaisedKind::Reduce => write!(f, "subgroup.reduce {} tile({l})", self.op.name()),
            RaisedKind::InclusiveScan => write!(f, "subgroup.scan inclusive {} tile({l})", self.op.name()),
            RaisedKind::ExclusiveScan => write!(f, "subgroup.scan exclusive {} tile({l})", self.op.name()),
        }
    }
}

/// Runs the pass; returns whether anything was raised.
pub fn run(f: &mut Function, opts: &PassOptions) -> bool {
    !raise(f, opts).is_empty()
}

/// Raises every recognised tree of `f` (see the module docs); returns what was raised, in order.
pub fn raise(f: &mut Function, opts: &PassOptions) -> Vec<Raised> {
    let Some(w) = width(f, opts) else { return Vec::new() };
    let mut out = Vec::new();
    // Each round turns one non-collective instruction into a collective, so the rounds are
    // bounded by the instruction count.
    for _ in 0..f.insts.len() {
        match raise_one(f, w) {
            Some(r) => out.push(r),
            None => break,
        }
    }
    out
}

/// The subgroup width the pass works at, when raising is allowed at all for `f`.
fn width(f: &Function, opts: &PassOptions) -> Option<u32> {
    let w = opts.subgroup_width?;
    if !(2..=64).contains(&w) || !w.is_power_of_two() {
        return None;
    }
    if f.launch.subgroup_size.is_some_and(|s| s != w) {
        return None;
    }
    let threads: u64 = f.launch.block.iter().map(|&d| u64::from(d)).product();
    (threads > 0 && threads.is_multiple_of(u64::from(w))).then_some(w)
}

/// Whether `op` moves values between lanes by a source table (shuffles and `broadcast`).
fn is_shuffle(op: Opcode) -> bool {
    matches!(op, Opcode::ShuffleIdx | Opcode::ShuffleUp | Opcode::ShuffleDown | Opcode::ShuffleXor | Opcode::Broadcast)
}

/// The group operator a binary opcode is, if any.
fn group_op_of(op: Opcode) -> Option<GroupOp> {
    GroupOp::ALL.into_iter().find(|g| g.opcode() == op)
}

/// The value a region's `yield` gives in position `k`, when the region ends in `yield`.
fn yielded(f: &Function, r: Region, k: usize) -> Option<Value> {
    let &last = f.regions.get(r)?.insts.last()?;
    (f.insts[last].opcode.class() == OpClass::Terminator(Terminator::Yield)).then(|| f.args(last).get(k).copied())?
}

/// The then/else regions of an `if`.
fn arms(f: &Function, inst: Inst) -> Option<(Region, Region)> {
    let [t, e] = f.insts[inst].regions;
    Some((t.expand()?, e.expand()?))
}

/// Mask of lanes `0..w`.
fn all_lanes(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Analyses of one round.
struct Cx<'a> {
    f: &'a Function,
    w: u32,
    layout: &'a Layout,
    uniform: &'a Uniformity,
    dom: &'a DomTree,
    users: HashMap<Value, Vec<Inst>>,
}

impl Cx<'_> {
    fn in_uniform_region(&self, inst: Inst) -> bool {
        self.layout.inst_pos(inst).is_some_and(|p| self.uniform.is_uniform_region(p.region))
    }

    fn users(&self, v: Value) -> &[Inst] {
        self.users.get(&v).map_or(&[], Vec::as_slice)
    }

    /// A lane function as a mask of the lanes where it is true (bit 0 of its bits).
    fn lane_mask(&self, cond: Value) -> Option<u64> {
        let bits = lane_function(self.f, cond, self.w)?;
        Some(bits.iter().enumerate().filter(|(_, &b)| b & 1 != 0).fold(0, |m, (l, _)| m | 1 << l))
    }

    /// The lanes that may execute `inst`: every lane, narrowed by each enclosing `if` whose
    /// condition is a lane function.
    fn exec_lanes(&self, inst: Inst) -> u64 {
        let mut mask = all_lanes(self.w);
        let Some(mut region) = self.layout.inst_pos(inst).map(|p| p.region) else { return mask };
        while let Some(rp) = self.layout.region_pos(region) {
            let Some((owner, slot)) = rp.owner else { break };
            if self.f.insts[owner].opcode == Opcode::If {
                if let Some(c) = self.f.args(owner).first().and_then(|&c| self.lane_mask(c)) {
                    mask &= if slot == 0 { c } else { !c };
                }
            }
            match rp.parent {
                Some(p) => region = p.region,
                None => break,
            }
        }
        mask
    }

    /// The lanes of `r` that some use can observe (see the module docs).
    fn observed_lanes(&self, r: Value) -> u64 {
        let all = all_lanes(self.w);
        let mut seen = 0u64;
        for &u in self.users(r) {
            let exec = self.exec_lanes(u);
            let op = self.f.insts[u].opcode;
            for (pos, &a) in self.f.args(u).iter().enumerate() {
                if a != r {
                    continue;
                }
                seen |= if is_shuffle(op) && pos == 0 {
                    let Some(src) = shuffle_sources(self.f, u, self.w) else { return all };
                    // Under partial activity a lane whose source is inactive keeps its own value.
                    let own = op != Opcode::Broadcast && !self.in_uniform_region(u);
                    (0..self.w as usize)
                        .filter(|&l| exec >> l & 1 != 0)
                        .fold(0, |m, l| m | 1 << src[l] | if own { 1 << l } else { 0 })
                } else if op == Opcode::Select && pos > 0 {
                    match self.f.args(u).first().and_then(|&c| self.lane_mask(c)) {
                        Some(c) => exec & if pos == 1 { c } else { !c },
                        None => exec,
                    }
                } else if op.info().convergent {
                    all
                } else {
                    exec
                };
            }
        }
        seen & all
    }

    /// Whether `r` feeds a further tree step: a group combine with `r` as one operand and a
    /// shuffle of `r` (directly or through `select`/`if`) as the other.
    fn is_step_input(&self, r: Value) -> bool {
        self.users(r).iter().any(|&u| {
            let args = self.f.args(u);
            group_op_of(self.f.insts[u].opcode).is_some()
                && args.len() == 2
                && args.iter().enumerate().any(|(i, &a)| a == r && self.shuffle_of(args[1 - i], r, 3))
        })
    }

    fn shuffle_of(&self, v: Value, of: Value, depth: u32) -> bool {
        let ValueDef::Result(inst, k) = self.f.values[v].def else { return false };
        let op = self.f.insts[inst].opcode;
        let args = self.f.args(inst);
        if is_shuffle(op) {
            return args.first() == Some(&of);
        }
        if depth == 0 {
            return false;
        }
        if op == Opcode::Select {
            return args.iter().skip(1).any(|&a| self.shuffle_of(a, of, depth - 1));
        }
        if op == Opcode::If {
            if let Some((t, e)) = arms(self.f, inst) {
                return [t, e]
                    .into_iter()
                    .filter_map(|r| yielded(self.f, r, usize::from(k)))
                    .any(|a| self.shuffle_of(a, of, depth - 1));
            }
        }
        false
    }

    /// The combining opcode of the tree ending in `r`: the first group combine found below it
    /// through shuffles, selects and `if` arms.
    fn combining_op(&self, r: Value) -> Option<Opcode> {
        let mut stack = vec![(r, 0u32)];
        let mut seen = std::collections::HashSet::new();
        while let Some((v, d)) = stack.pop() {
            if d > MAX_DEPTH || !seen.insert(v) {
                continue;
            }
            let ValueDef::Result(inst, k) = self.f.values[v].def else { continue };
            let op = self.f.insts[inst].opcode;
            let args = self.f.args(inst);
            if group_op_of(op).is_some() {
                return Some(op);
            }
            if is_shuffle(op) {
                stack.extend(args.first().map(|&a| (a, d + 1)));
            } else if op == Opcode::Select {
                stack.extend(args.iter().skip(1).rev().map(|&a| (a, d + 1)));
            } else if op == Opcode::If {
                if let Some((t, e)) = arms(self.f, inst) {
                    stack.extend(
                        [e, t].into_iter().filter_map(|r| yielded(self.f, r, usize::from(k))).map(|a| (a, d + 1)),
                    );
                }
            }
        }
        None
    }
}

/// An expression node: a lane of the tree's input, a constant, or the tree's operator applied to
/// two nodes (left operand first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Leaf(u8),
    Const(u64),
    Op(u32, u32),
}

/// A multiset of input lanes (count per lane).
type Bag = [u16; 64];

/// Hash-consed expression nodes of one operator: equal trees have equal ids.
struct Nodes {
    /// The operator's identity (canonical bits): neutral in leaf multisets.
    identity: u64,
    list: Vec<Node>,
    ids: HashMap<Node, u32>,
    bags: HashMap<u32, Option<Box<Bag>>>,
}

impl Nodes {
    fn new(identity: u64) -> Nodes {
        Nodes { identity, list: Vec::new(), ids: HashMap::new(), bags: HashMap::new() }
    }

    fn get(&mut self, n: Node) -> u32 {
        if let Some(&id) = self.ids.get(&n) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(n);
        self.ids.insert(n, id);
        id
    }

    /// The leaves of node `id` as a multiset, identity constants dropped; `None` when it holds a
    /// constant other than the identity (or a lane counted more than `u16::MAX` times).
    fn bag(&mut self, id: u32) -> Option<Box<Bag>> {
        if let Some(b) = self.bags.get(&id) {
            return b.clone();
        }
        let b = match self.list[id as usize] {
            Node::Leaf(l) => {
                let mut b = Box::new([0u16; 64]);
                b[usize::from(l)] = 1;
                Some(b)
            }
            Node::Const(c) => (c == self.identity).then(|| Box::new([0u16; 64])),
            Node::Op(x, y) => match (self.bag(x), self.bag(y)) {
                (Some(mut a), Some(b)) => {
                    let mut ok = true;
                    for (s, t) in a.iter_mut().zip(b.iter()) {
                        match s.checked_add(*t) {
                            Some(n) => *s = n,
                            None => ok = false,
                        }
                    }
                    ok.then_some(a)
                }
                _ => None,
            },
        };
        self.bags.insert(id, b.clone());
        b
    }
}

/// Symbolic evaluation of one candidate tree.
struct Matcher<'c, 'a> {
    cx: &'c Cx<'a>,
    /// The combining opcode.
    comb: Opcode,
    op: GroupOp,
    ty: ScalarType,
    /// Exactly associative and commutative: compare leaf multisets, not trees.
    ac: bool,
    leaf: Option<Value>,
    nodes: Nodes,
    memo: HashMap<Value, Option<Vec<u32>>>,
    shuffled: HashMap<Value, bool>,
    /// Instructions evaluated as part of the tree (for clean-up after the rewrite).
    tree: Vec<Inst>,
}

impl<'c, 'a> Matcher<'c, 'a> {
    fn new(cx: &'c Cx<'a>, comb: Opcode, op: GroupOp, ty: ScalarType) -> Self {
        Matcher {
            cx,
            comb,
            op,
            ty,
            ac: !ty.is_float(),
            leaf: None,
            nodes: Nodes::new(eval::identity(op, ty)),
            memo: HashMap::new(),
            shuffled: HashMap::new(),
            tree: Vec::new(),
        }
    }

    fn lanes(&self) -> usize {
        self.cx.w as usize
    }

    /// Whether `v` is (built from) a shuffle through tree-shaped ops: the filter that tells tree
    /// values from the tree's input.
    fn is_shuffled(&mut self, v: Value, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Some(&s) = self.shuffled.get(&v) {
            return s;
        }
        let f = self.cx.f;
        let s = match f.values[v].def {
            ValueDef::Result(inst, k) => {
                let op = f.insts[inst].opcode;
                let args = f.args(inst);
                if is_shuffle(op) {
                    true
                } else if op == self.comb || op == Opcode::Select {
                    // A combine's operands, a select's arms (not its condition).
                    let skip = usize::from(op == Opcode::Select);
                    args.iter().skip(skip).any(|&a| self.is_shuffled(a, depth + 1))
                } else if op == Opcode::If {
                    arms(f, inst).is_some_and(|(t, e)| {
                        [t, e]
                            .into_iter()
                            .filter_map(|r| yielded(f, r, usize::from(k)))
                            .any(|a| self.is_shuffled(a, depth + 1))
                    })
                } else {
                    false
                }
            }
            ValueDef::Param(_) | ValueDef::RegionParam(..) => false,
        };
        self.shuffled.insert(v, s);
        s
    }

    /// `v` as the tree's input: allowed once (a second input fails the match).
    fn input(&mut self, v: Value) -> Option<Vec<u32>> {
        match self.leaf {
            Some(x) if x != v => None,
            _ => {
                self.leaf = Some(v);
                Some((0..self.lanes()).map(|l| self.nodes.get(Node::Leaf(l as u8))).collect())
            }
        }
    }

    /// Every lane's expression for `v`; `None` when `v` is not a tree of one input.
    fn sym(&mut self, v: Value, depth: u32) -> Option<Vec<u32>> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(r) = self.memo.get(&v) {
            return r.clone();
        }
        let r = if self.cx.f.value_type(v) != Type::from(self.ty) {
            None
        } else if self.leaf == Some(v) {
            self.input(v)
        } else {
            match self.cx.f.values[v].def {
                ValueDef::Result(inst, k) => self.sym_inst(v, inst, usize::from(k), depth),
                ValueDef::Param(_) | ValueDef::RegionParam(..) => self.input(v),
            }
        };
        self.memo.insert(v, r.clone());
        r
    }

    fn sym_inst(&mut self, v: Value, inst: Inst, k: usize, depth: u32) -> Option<Vec<u32>> {
        let f = self.cx.f;
        let op = f.insts[inst].opcode;
        let args = f.args(inst).to_vec();
        let n = self.lanes();
        if op == Opcode::Const {
            let Imm::Const(bits) = f.insts[inst].imm else { return None };
            let c = self.nodes.get(Node::Const(eval::canon(self.ty, bits)));
            return Some(vec![c; n]);
        }
        if is_shuffle(op) {
            // A shuffle without a constant source table, or one that may run with lanes
            // inactive, is opaque: it can only be the tree's input.
            let src = shuffle_sources(f, inst, self.cx.w).filter(|_| self.cx.in_uniform_region(inst));
            let Some(src) = src else { return self.input(v) };
            let d = self.sym(*args.first()?, depth + 1)?;
            self.tree.push(inst);
            return Some(src.iter().map(|&s| d[usize::from(s)]).collect());
        }
        if !(op == self.comb || op == Opcode::Select || op == Opcode::If) || !self.is_shuffled(v, depth) {
            return self.input(v);
        }
        let out = if op == self.comb {
            let [x, y] = args[..] else { return None };
            let a = self.sym(x, depth + 1)?;
            let b = self.sym(y, depth + 1)?;
            (0..n).map(|l| self.nodes.get(Node::Op(a[l], b[l]))).collect()
        } else {
            // `select` / `if` by a per-lane condition; an arm no lane takes is not evaluated.
            let cond = self.cx.lane_mask(*args.first()?)?;
            let (then_v, else_v) = if op == Opcode::Select {
                let [_, t, e] = args[..] else { return None };
                (t, e)
            } else {
                let (t, e) = arms(f, inst)?;
                (yielded(f, t, k)?, yielded(f, e, k)?)
            };
            let takes = |then: bool| (0..n).any(|l| (cond >> l & 1 != 0) == then);
            let t = if takes(true) { Some(self.sym(then_v, depth + 1)?) } else { None };
            let e = if takes(false) { Some(self.sym(else_v, depth + 1)?) } else { None };
            (0..n)
                .map(|l| {
                    let arm = if cond >> l & 1 != 0 { &t } else { &e };
                    arm.as_ref().map(|a| a[l])
                })
                .collect::<Option<Vec<u32>>>()?
        };
        self.tree.push(inst);
        Some(out)
    }

    /// The lanes on which `hand` equals `want`.
    fn matching(&mut self, hand: &[u32], want: &[u32]) -> u64 {
        let mut m = 0u64;
        for (l, (&h, &x)) in hand.iter().zip(want).enumerate() {
            let same = h == x || (self.ac && self.bags_equal(h, x));
            if same {
                m |= 1 << l;
            }
        }
        m
    }

    fn bags_equal(&mut self, a: u32, b: u32) -> bool {
        match (self.nodes.bag(a), self.nodes.bag(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// The first collective (reduce, inclusive, exclusive; smallest tile first) that equals
    /// `hand` on every lane in `observed`.
    fn choose(&mut self, hand: &[u32], observed: u64) -> Option<(RaisedKind, u32, u64)> {
        for kind in [RaisedKind::Reduce, RaisedKind::InclusiveScan, RaisedKind::ExclusiveScan] {
            let mut t = 2u32;
            while t <= self.cx.w {
                let want = expected(&mut self.nodes, kind, self.cx.w as usize, t as usize);
                let m = self.matching(hand, &want);
                if observed & !m == 0 {
                    return Some((kind, t, m));
                }
                t <<= 1;
            }
        }
        None
    }
}

/// The interpreter's expression for every lane `0..n` of a collective over tiles of `t` lanes
/// (`interp::simt::{reduce, scan}` with every lane active).
fn expected(nodes: &mut Nodes, kind: RaisedKind, n: usize, t: usize) -> Vec<u32> {
    let leaves: Vec<u32> = (0..n).map(|l| nodes.get(Node::Leaf(l as u8))).collect();
    let mut v = leaves.clone();
    if kind == RaisedKind::ExclusiveScan {
        let id = nodes.get(Node::Const(nodes.identity));
        v = (0..n).map(|l| if l % t == 0 { id } else { leaves[l - 1] }).collect();
    }
    let mut k = 1;
    while k < t {
        let prev = v.clone();
        for (l, slot) in v.iter_mut().enumerate() {
            *slot = match kind {
                // Butterfly, own value on the left.
                RaisedKind::Reduce => nodes.get(Node::Op(prev[l], prev[l ^ k])),
                // Hillis–Steele, predecessor on the left.
                RaisedKind::InclusiveScan | RaisedKind::ExclusiveScan if l % t >= k => {
                    nodes.get(Node::Op(prev[l - k], prev[l]))
                }
                RaisedKind::InclusiveScan | RaisedKind::ExclusiveScan => prev[l],
            };
        }
        k <<= 1;
    }
    v
}

/// A recognised tree, ready to be rewritten.
struct Plan {
    raised: Raised,
    input: Value,
    tree: Vec<Inst>,
}

/// Whether a `return` sits in a non-uniform region (lanes may have left the kernel).
fn divergent_return(f: &Function, layout: &Layout, uniform: &Uniformity) -> bool {
    layout.insts().iter().any(|&i| {
        f.insts[i].opcode.class() == OpClass::Terminator(Terminator::Return)
            && layout.inst_pos(i).is_some_and(|p| !uniform.is_uniform_region(p.region))
    })
}

/// Finds and rewrites one tree (the last root in program order first); `None` when there is
/// none left.
fn raise_one(f: &mut Function, w: u32) -> Option<Raised> {
    let plan = {
        let layout = Layout::new(f);
        let uniform = Uniformity::with_layout(f, &layout);
        if divergent_return(f, &layout, &uniform) {
            return None;
        }
        let dom = DomTree::with_layout(f, layout.clone());
        let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
        for i in f.walk_insts() {
            for &a in f.args(i) {
                users.entry(a).or_default().push(i);
            }
        }
        let cx = Cx { f, w, layout: &layout, uniform: &uniform, dom: &dom, users };
        let insts = f.walk_insts();
        insts.iter().rev().find_map(|&root| try_root(&cx, root))?
    };
    apply(f, &plan);
    Some(plan.raised)
}

/// Recognises the tree ending at `root`'s result, if any.
fn try_root(cx: &Cx<'_>, root: Inst) -> Option<Plan> {
    let f = cx.f;
    let op = f.insts[root].opcode;
    if !(group_op_of(op).is_some() || op == Opcode::Select || op == Opcode::If) {
        return None;
    }
    let [r] = *f.inst_results(root) else { return None };
    let ty = f.value_type(r).scalar()?;
    if cx.users(r).is_empty() || !cx.in_uniform_region(root) {
        return None;
    }
    if op == Opcode::If
        && !arms(f, root).is_some_and(|(t, e)| region_is_effect_free(f, t) && region_is_effect_free(f, e))
    {
        return None;
    }
    let comb = cx.combining_op(r)?;
    let gop = group_op_of(comb)?;
    if !group_op_legal(gop, ty) || cx.is_step_input(r) {
        return None;
    }
    let mut m = Matcher::new(cx, comb, gop, ty);
    if !m.is_shuffled(r, 0) {
        return None;
    }
    let hand = m.sym(r, 0)?;
    let input = m.leaf?;
    if !cx.dom.dominates(input, root) {
        return None;
    }
    let observed = cx.observed_lanes(r);
    let (kind, tile, lanes) = m.choose(&hand, observed)?;
    let raised = Raised { inst: root, kind, op: m.op, ty, tile, lanes };
    Some(Plan { raised, input, tree: m.tree })
}

/// Rewrites the root in place and removes the tree instructions left unused.
fn apply(f: &mut Function, plan: &Plan) {
    let r = &plan.raised;
    let root = r.inst;
    let (opcode, inclusive) = match r.kind {
        RaisedKind::Reduce => (Opcode::SubgroupReduce, true),
        RaisedKind::InclusiveScan => (Opcode::SubgroupScan, true),
        RaisedKind::ExclusiveScan => (Opcode::SubgroupScan, false),
    };
    let data = &mut f.insts[root];
    data.opcode = opcode;
    data.imm = Imm::Group { op: r.op, tile: Tile::Log2(r.tile.trailing_zeros() as u8), inclusive };
    data.regions = [None.into(), None.into()];
    f.set_args(root, &[plan.input]);
    remove_dead_tree(f, &plan.tree, root);
}

/// Removes the tree's instructions whose results are unused, to a fixed point. Shuffles are
/// removed here because `dce` never deletes convergent ops.
fn remove_dead_tree(f: &mut Function, tree: &[Inst], root: Inst) {
    loop {
        let uses = use_counts(f);
        let layout = Layout::new(f);
        let mut removed = false;
        for &i in tree.iter().rev() {
            if i == root {
                continue;
            }
            let Some(pos) = layout.inst_pos(i) else { continue };
            let op = f.insts[i].opcode;
            let effect_free = is_shuffle(op) || removable(f, i);
            if effect_free && f.inst_results(i).iter().all(|&v| uses[v] == 0) {
                removed |= remove_inst(f, pos.region, i);
            }
        }
        if !removed {
            return;
        }
    }
}

#[cfg(test)]
#[path = "raise_tests.rs"]
mod tests;
