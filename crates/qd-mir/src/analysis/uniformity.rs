//! Uniformity (divergence) analysis: which values are provably identical on every lane of a
//! subgroup, and which regions every lane reaching the function reaches together.
//!
//! The definition is the one in the interface contracts. Uniform sources: constants, kernel
//! parameters marked `uniform`, `block_id`, `block_dim`, `grid_dim`, `subgroup_size`,
//! `subgroup_id`, `shared.addr`, `broadcast`, `ballot`, `ballot.first_n`, `activemask`,
//! full-subgroup votes and reductions, and `block.sync_pred` (a block-wide combination, the same
//! in every thread). Pure ops of uniform operands are uniform. Varying: `thread_id`, `lane_id`,
//! `lanemask.*`, `match.any`, `match.all`, `elect`, loads, atomics, shuffles, scans, segmented
//! reductions, tiled votes and reductions, parameters not marked `uniform`. An `if`'s results are varying when its condition or a yielded value is; a loop's
//! carried values and results are varying when an initial/continued/broken value is, or when the
//! loop's exit is divergent: some `break` or `continue` of it sits under an `if` (between it and
//! the loop) whose condition is varying. (`return` under divergence does not diverge a loop: the
//! lanes left are gone for good.)
//!
//! The analysis is optimistic: every defined value starts uniform and is marked varying until a
//! fixed point, which carried loop values need (a `continue` can make its own loop's parameter
//! varying). Marks only grow, so it terminates; each round is linear in the function.
//!
//! A region is uniform when its enclosing region is and, for an `if` arm, the condition is
//! uniform, or, for a loop body, the loop's exit is not divergent. [`Uniformity::divergence_cause`]
//! names the varying condition responsible, for diagnostics.

use super::Layout;
use crate::entities::{Inst, Region, Value};
use crate::function::Function;
use crate::inst::{Imm, Tile};
use crate::ops::Opcode;
use cranelift_entity::SecondaryMap;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum State {
    /// Not defined by the function's tree: treated as varying.
    #[default]
    Unknown,
    Uniform,
    Varying,
}

/// Why a region or loop exit diverges: `Some(cond)` with the varying condition.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum Cause {
    #[default]
    Unreached,
    Uniform,
    Varying(Option<Value>),
}

/// The uniformity of every value and region of a function.
#[derive(Clone, Debug)]
pub struct Uniformity {
    values: SecondaryMap<Value, State>,
    loop_exit: SecondaryMap<Inst, Option<Option<Value>>>,
    regions: SecondaryMap<Region, Cause>,
}

struct Solver<'a> {
    func: &'a Function,
    layout: &'a Layout,
    values: SecondaryMap<Value, State>,
    loop_exit: SecondaryMap<Inst, Option<Option<Value>>>,
    changed: bool,
}

impl<'a> Solver<'a> {
    fn varying(&self, v: Value) -> bool {
        self.values.get(v).copied().unwrap_or_default() != State::Uniform
    }

    fn mark(&mut self, v: Value) {
        if self.values.get(v).copied() == Some(State::Uniform) {
            self.values[v] = State::Varying;
            self.changed = true;
        }
    }

    fn mark_all(&mut self, vs: &[Value]) {
        for &v in vs {
            self.mark(v);
        }
    }

    fn opcode(&self, inst: Inst) -> Option<Opcode> {
        self.func.insts.get(inst).map(|d| d.opcode)
    }

    fn args(&self, inst: Inst) -> &'a [Value] {
        self.layout.pool().args(self.func, inst).unwrap_or(&[])
    }

    fn results(&self, inst: Inst) -> &'a [Value] {
        self.layout.pool().results(self.func, inst).unwrap_or(&[])
    }

    fn cond_varying(&self, if_inst: Inst) -> Option<Value> {
        self.args(if_inst).first().copied().filter(|&c| self.varying(c))
    }

    /// The `if` owning the region of a `yield`.
    fn yield_target(&self, inst: Inst) -> Option<Inst> {
        let pos = self.layout.inst_pos(inst)?;
        let (owner, _) = self.layout.region_pos(pos.region)?.owner?;
        (self.opcode(owner)? == Opcode::If).then_some(owner)
    }

    /// The innermost loop of a `break`/`continue`, and the innermost varying `if` condition
    /// between the two, if any.
    fn exit_target(&self, inst: Inst) -> Option<(Inst, Option<Value>)> {
        let mut region = self.layout.inst_pos(inst)?.region;
        let mut cause = None;
        loop {
            let rp = self.layout.region_pos(region)?;
            let (owner, _) = rp.owner?;
            let op = self.opcode(owner)?;
            if op == Opcode::Loop {
                return Some((owner, cause));
            }
            if op == Opcode::If && cause.is_none() {
                cause = self.cond_varying(owner);
            }
            region = rp.parent?.region;
        }
    }

    fn loop_body_params(&self, lp: Inst) -> &'a [Value] {
        let body = self.func.insts.get(lp).and_then(|d| d.regions[0].expand());
        body.and_then(|b| self.layout.pool().params(self.func, b)).unwrap_or(&[])
    }

    fn step(&mut self, inst: Inst) {
        let func = self.func;
        let Some(data) = func.insts.get(inst) else { return };
        let args = self.args(inst);
        let results = self.results(inst);
        let any_varying = args.iter().any(|&a| self.varying(a));
        let full_tile = match data.imm {
            Imm::Tile(t) | Imm::Group { tile: t, .. } => t == Tile::Full,
            _ => false,
        };
        match data.opcode {
            Opcode::Const
            | Opcode::SharedAddr
            | Opcode::BlockId
            | Opcode::BlockDim
            | Opcode::GridDim
            | Opcode::SubgroupId
            | Opcode::SubgroupSize
            | Opcode::Broadcast
            | Opcode::Ballot
            | Opcode::BallotFirstN
            | Opcode::ActiveMask
            | Opcode::BlockSyncPred => {}
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Rem
            | Opcode::Min
            | Opcode::Max
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Shl
            | Opcode::Shr
            | Opcode::Neg
            | Opcode::Abs
            | Opcode::Not
            | Opcode::Sqrt
            | Opcode::Clz
            | Opcode::Popcount
            | Opcode::Bitrev
            | Opcode::Fma
            | Opcode::Select
            | Opcode::Cmp
            | Opcode::Cast
            | Opcode::Bitcast
            | Opcode::PtrOffset => {
                if any_varying {
                    self.mark_all(results);
                }
            }
            Opcode::ThreadId
            | Opcode::LaneId
            | Opcode::Load
            | Opcode::AtomicRmw
            | Opcode::AtomicCas
            | Opcode::ShuffleIdx
            | Opcode::ShuffleUp
            | Opcode::ShuffleDown
            | Opcode::ShuffleXor
            | Opcode::SubgroupScan
            | Opcode::SegmentedReduce
            | Opcode::MatchAny
            | Opcode::MatchAll
            | Opcode::Elect
            | Opcode::LaneMaskLt
            | Opcode::LaneMaskLe
            | Opcode::LaneMaskEq
            | Opcode::LaneMaskGe
            | Opcode::LaneMaskGt => self.mark_all(results),
            Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteEq | Opcode::SubgroupReduce => {
                if !full_tile {
                    self.mark_all(results);
                }
            }
            Opcode::Store
            | Opcode::SubgroupSync
            | Opcode::BlockSync
            | Opcode::Fence
            | Opcode::Nanosleep
            | Opcode::Return => {}
            Opcode::If => {
                if self.cond_varying(inst).is_some() {
                    self.mark_all(results);
                }
            }
            Opcode::Loop => {
                let params = self.loop_body_params(inst);
                if self.loop_exit.get(inst).copied().flatten().is_some() {
                    self.mark_all(params);
                    self.mark_all(results);
                } else {
                    for (&a, &p) in args.iter().zip(params) {
                        if self.varying(a) {
                            self.mark(p);
                        }
                    }
                }
            }
            Opcode::Yield => {
                if let Some(target) = self.yield_target(inst) {
                    let tres = self.results(target);
                    for (&a, &r) in args.iter().zip(tres) {
                        if self.varying(a) {
                            self.mark(r);
                        }
                    }
                }
            }
            Opcode::Break | Opcode::Continue => {
                let Some((lp, cause)) = self.exit_target(inst) else { return };
                if cause.is_some() && self.loop_exit.get(lp).copied().flatten().is_none() {
                    self.loop_exit[lp] = Some(cause);
                    self.changed = true;
                }
                let targets = if data.opcode == Opcode::Break { self.results(lp) } else { self.loop_body_params(lp) };
                for (&a, &t) in args.iter().zip(targets) {
                    if self.varying(a) {
                        self.mark(t);
                    }
                }
            }
        }
    }
}

impl Uniformity {
    /// Analyses `func` (never panics, whatever it holds).
    pub fn new(func: &Function) -> Uniformity {
        Uniformity::with_layout(func, &Layout::new(func))
    }

    /// Analyses `func` from an already built layout.
    pub fn with_layout(func: &Function, layout: &Layout) -> Uniformity {
        let mut values = SecondaryMap::with_capacity(func.values.len());
        for p in &func.params {
            if func.values.get(p.value).is_some() {
                values[p.value] = if p.uniform { State::Uniform } else { State::Varying };
            }
        }
        for &r in layout.regions() {
            for &v in layout.pool().params(func, r).unwrap_or(&[]) {
                if func.values.get(v).is_some() && values[v] == State::Unknown {
                    values[v] = State::Uniform;
                }
            }
        }
        for &inst in layout.insts() {
            for &v in layout.pool().results(func, inst).unwrap_or(&[]) {
                if func.values.get(v).is_some() && values[v] == State::Unknown {
                    values[v] = State::Uniform;
                }
            }
        }
        let mut s = Solver { func, layout, values, loop_exit: SecondaryMap::new(), changed: true };
        while s.changed {
            s.changed = false;
            for &inst in layout.insts() {
                s.step(inst);
            }
        }
        let mut regions: SecondaryMap<Region, Cause> = SecondaryMap::with_capacity(func.regions.len());
        for &r in layout.regions() {
            let Some(rp) = layout.region_pos(r) else { continue };
            let outer = rp.parent.map_or(Cause::Uniform, |p| regions.get(p.region).copied().unwrap_or_default());
            let owner = rp.owner.and_then(|(o, _)| Some((o, s.opcode(o)?)));
            let own = owner.and_then(|(o, op)| {
                if op == Opcode::If {
                    s.cond_varying(o).map(|c| Cause::Varying(Some(c)))
                } else if op == Opcode::Loop {
                    s.loop_exit.get(o).copied().flatten().map(Cause::Varying)
                } else {
                    None
                }
            });
            regions[r] = own.unwrap_or(outer);
        }
        Uniformity { values: s.values, loop_exit: s.loop_exit, regions }
    }

    /// True if `v` is provably the same on every lane of a subgroup. Values not defined in the
    /// function's tree are not.
    pub fn is_uniform(&self, v: Value) -> bool {
        self.values.get(v).copied() == Some(State::Uniform)
    }

    /// True if every lane of a subgroup that reaches the function reaches `r` together
    /// (unreachable regions are not uniform).
    pub fn is_uniform_region(&self, r: Region) -> bool {
        self.regions.get(r).copied() == Some(Cause::Uniform)
    }

    /// For a reachable non-uniform region, the varying condition that makes it so (the innermost
    /// divergent `if` condition or loop exit condition); `None` otherwise.
    pub fn divergence_cause(&self, r: Region) -> Option<Value> {
        match self.regions.get(r).copied() {
            Some(Cause::Varying(c)) => c,
            _ => None,
        }
    }

    /// True if some `break`/`continue` of the loop `inst` is under a varying condition.
    pub fn has_divergent_exit(&self, inst: Inst) -> bool {
        self.loop_exit.get(inst).copied().flatten().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{CmpCond, Dim, GroupOp};
    use crate::types::Type;

    struct B {
        f: Function,
    }

    impl B {
        fn new() -> B {
            B { f: Function::new("k") }
        }
        fn inst(&mut self, r: Region, op: Opcode, imm: Imm, args: &[Value], tys: &[Type]) -> Inst {
            let i = self.f.make_inst(op, imm, args, tys);
            self.f.append_inst(r, i);
            i
        }
        fn val(&mut self, r: Region, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
            let i = self.inst(r, op, imm, args, &[ty]);
            self.f.inst_results(i)[0]
        }
    }

    #[test]
    fn sources_and_pure_ops() {
        let mut b = B::new();
        let u = b.f.add_param("u", Type::U32, true);
        let v = b.f.add_param("v", Type::U32, false);
        let body = b.f.body;
        let tid = b.val(body, Opcode::ThreadId, Imm::Dim(Dim::X), &[], Type::U32);
        let bid = b.val(body, Opcode::BlockId, Imm::Dim(Dim::X), &[], Type::U32);
        let s1 = b.val(body, Opcode::Add, Imm::None, &[u, bid], Type::U32);
        let s2 = b.val(body, Opcode::Add, Imm::None, &[s1, tid], Type::U32);
        let bc = b.val(body, Opcode::Broadcast, Imm::None, &[s2, u], Type::U32);
        let full = Imm::Group { op: GroupOp::Add, tile: Tile::Full, inclusive: true };
        let tiled = Imm::Group { op: GroupOp::Add, tile: Tile::Log2(2), inclusive: true };
        let r1 = b.val(body, Opcode::SubgroupReduce, full, &[s2], Type::U32);
        let r2 = b.val(body, Opcode::SubgroupReduce, tiled, &[s2], Type::U32);
        let sc = b.val(body, Opcode::SubgroupScan, full, &[s1], Type::U32);
        let un = Uniformity::new(&b.f);
        assert!(un.is_uniform(u));
        assert!(!un.is_uniform(v));
        assert!(!un.is_uniform(tid));
        assert!(un.is_uniform(bid));
        assert!(un.is_uniform(s1));
        assert!(!un.is_uniform(s2));
        assert!(un.is_uniform(bc));
        assert!(un.is_uniform(r1));
        assert!(!un.is_uniform(r2));
        assert!(!un.is_uniform(sc));
        assert!(!un.is_uniform(Value::from_u32(777)));
        assert!(un.is_uniform_region(body));
    }

    #[test]
    fn warp_builtins() {
        let mut b = B::new();
        let u = b.f.add_param("u", Type::U32, true);
        let body = b.f.body;
        let am = b.val(body, Opcode::ActiveMask, Imm::None, &[], Type::U64);
        let ma = b.val(body, Opcode::MatchAny, Imm::None, &[u], Type::U64);
        let ml = b.val(body, Opcode::MatchAll, Imm::None, &[u], Type::U64);
        let el = b.val(body, Opcode::Elect, Imm::None, &[], Type::BOOL);
        let masks =
            [Opcode::LaneMaskLt, Opcode::LaneMaskLe, Opcode::LaneMaskEq, Opcode::LaneMaskGe, Opcode::LaneMaskGt]
                .map(|op| b.val(body, op, Imm::None, &[], Type::U64));
        let am2 = b.val(body, Opcode::And, Imm::None, &[am, am], Type::U64);
        let un = Uniformity::new(&b.f);
        assert!(un.is_uniform(am));
        assert!(un.is_uniform(am2));
        assert!(!un.is_uniform(ma));
        assert!(!un.is_uniform(ml));
        assert!(!un.is_uniform(el));
        for m in masks {
            assert!(!un.is_uniform(m));
        }
    }

    #[test]
    fn control_dependent_if_results() {
        let mut b = B::new();
        let u = b.f.add_param("u", Type::U32, true);
        let body = b.f.body;
        let tid = b.val(body, Opcode::ThreadId, Imm::Dim(Dim::X), &[], Type::U32);
        let cu = b.val(body, Opcode::Cmp, Imm::Cond(CmpCond::Lt), &[u, u], Type::BOOL);
        let cv = b.val(body, Opcode::Cmp, Imm::Cond(CmpCond::Lt), &[tid, u], Type::BOOL);
        let mk_if = |b: &mut B, c: Value, yt: Value, ye: Value| {
            let i = b.inst(body, Opcode::If, Imm::None, &[c], &[Type::U32]);
            let t = b.f.make_region();
            let e = b.f.make_region();
            b.f.set_inst_regions(i, Some(t), Some(e));
            b.inst(t, Opcode::Yield, Imm::None, &[yt], &[]);
            b.inst(e, Opcode::Yield, Imm::None, &[ye], &[]);
            (b.f.inst_results(i)[0], t)
        };
        let (r_uu, t_uu) = mk_if(&mut b, cu, u, u);
        let (r_vu, t_vu) = mk_if(&mut b, cv, u, u);
        let (r_uv, _) = mk_if(&mut b, cu, u, tid);
        let un = Uniformity::new(&b.f);
        assert!(un.is_uniform(r_uu));
        assert!(!un.is_uniform(r_vu), "uniform yields under a varying condition");
        assert!(!un.is_uniform(r_uv), "varying yield");
        assert!(un.is_uniform_region(t_uu));
        assert!(!un.is_uniform_region(t_vu));
        assert_eq!(un.divergence_cause(t_vu), Some(cv));
        assert_eq!(un.divergence_cause(t_uu), None);
    }

    /// `loop (%i = 0, %x = 0) { %c = cmp lt %i, %u; if %c { %x2 = add %x, %tid?; continue (%i+1, %x2) } else { break %i } }`
    #[test]
    fn loop_fixed_point() {
        let mut b = B::new();
        let u = b.f.add_param("u", Type::U32, true);
        let body = b.f.body;
        let zero = b.val(body, Opcode::Const, Imm::Const(0), &[], Type::U32);
        let one = b.val(body, Opcode::Const, Imm::Const(1), &[], Type::U32);
        let tid = b.val(body, Opcode::ThreadId, Imm::Dim(Dim::X), &[], Type::U32);
        let lp = b.inst(body, Opcode::Loop, Imm::None, &[zero, zero, zero], &[Type::U32, Type::U32]);
        let lb = b.f.make_region();
        b.f.set_inst_regions(lp, Some(lb), None);
        let i = b.f.add_region_param(lb, Type::U32);
        let x = b.f.add_region_param(lb, Type::U32);
        let y = b.f.add_region_param(lb, Type::U32);
        let c = b.val(lb, Opcode::Cmp, Imm::Cond(CmpCond::Lt), &[i, u], Type::BOOL);
        let iff = b.inst(lb, Opcode::If, Imm::None, &[c], &[]);
        let t = b.f.make_region();
        let e = b.f.make_region();
        b.f.set_inst_regions(iff, Some(t), Some(e));
        let i2 = b.val(t, Opcode::Add, Imm::None, &[i, one], Type::U32);
        // x picks up a varying value only through the back edge.
        let x2 = b.val(t, Opcode::Add, Imm::None, &[y, one], Type::U32);
        b.inst(t, Opcode::Continue, Imm::None, &[i2, x2, tid], &[]);
        b.inst(e, Opcode::Break, Imm::None, &[i, x], &[]);
        b.inst(body, Opcode::Return, Imm::None, &[], &[]);
        let un = Uniformity::new(&b.f);
        assert!(un.is_uniform(i));
        assert!(!un.is_uniform(y), "continued with thread_id");
        assert!(!un.is_uniform(x2));
        assert!(!un.is_uniform(x), "varying after the second round");
        let res = b.f.inst_results(lp).to_vec();
        assert!(un.is_uniform(res[0]));
        assert!(!un.is_uniform(res[1]));
        assert!(!un.has_divergent_exit(lp));
        assert!(un.is_uniform_region(lb));
        assert!(un.is_uniform(c));
        assert!(un.is_uniform_region(t));
    }

    #[test]
    fn divergent_loop_exit() {
        let mut b = B::new();
        let body = b.f.body;
        let zero = b.val(body, Opcode::Const, Imm::Const(0), &[], Type::U32);
        let lane = b.val(body, Opcode::LaneId, Imm::None, &[], Type::U32);
        let lp = b.inst(body, Opcode::Loop, Imm::None, &[zero], &[Type::U32]);
        let lb = b.f.make_region();
        b.f.set_inst_regions(lp, Some(lb), None);
        let i = b.f.add_region_param(lb, Type::U32);
        let c = b.val(lb, Opcode::Cmp, Imm::Cond(CmpCond::Eq), &[lane, zero], Type::BOOL);
        let iff = b.inst(lb, Opcode::If, Imm::None, &[c], &[]);
        let t = b.f.make_region();
        b.f.set_inst_regions(iff, Some(t), None);
        b.inst(t, Opcode::Break, Imm::None, &[i], &[]);
        b.inst(lb, Opcode::Continue, Imm::None, &[i], &[]);
        b.inst(body, Opcode::Return, Imm::None, &[], &[]);
        let un = Uniformity::new(&b.f);
        assert!(un.has_divergent_exit(lp));
        assert!(!un.is_uniform_region(lb));
        assert_eq!(un.divergence_cause(lb), Some(c));
        assert!(!un.is_uniform(i));
        assert!(!un.is_uniform(b.f.inst_results(lp)[0]));
        assert!(un.is_uniform_region(body));
    }
}
