//! Shared harness of the end-to-end SIMT interpreter tests (`interp_simt*.rs`).
//!
//! There is no parser on this branch, so kernels are built with the `Function` API through a small
//! builder ([`K`]). Every collective test runs one kernel *template* through the real interpreter
//! (`qd_mir::interp::run_kernel`): each thread loads its inputs (`x`, `aux`, a divergence `flag`
//! and a loop `trip` count) at `gid = block_id·block_dim + thread_id`, enters a divergent region
//! chosen by a [`Mode`] (then arm, else arm, lane pattern, nested ifs, after an early `return`,
//! inside a loop after some lanes broke), runs a list of collectives ([`Coll`]) there and stores
//! each result to its own slice of the output buffer; lanes that do not run them store a
//! sentinel. The expected buffer is computed here in plain Rust: the harness replays the
//! geometry (subgroups of `W` lanes, a partial last subgroup whose missing lanes are permanently
//! inactive, several blocks), derives each subgroup's active mask from the inputs, and applies
//! independent, obvious reference definitions (sequential folds and prefixes, direct index math)
//! written in `reference.rs` without calling `qd_mir::eval` or `qd_mir::interp::simt`. Every kernel is also checked
//! by the verifier first, so the tests only exercise well-formed MIR.

// Each test binary uses a different part of the harness.
#![allow(dead_code)]
// The references are deliberately written as plain lane-index loops, the most obvious form.
#![allow(clippy::needless_range_loop)]

pub mod reference;

pub use reference::*;

use qd_mir::interp::simt::{ShuffleKind, VoteKind};
use qd_mir::interp::{run_kernel, ArgValue, Buffer, RunConfig};
use qd_mir::verify::verify_function;
use qd_mir::{
    AddrSpace, CmpCond, Dim, Function, GridPolicy, GroupOp, Imm, Inst, Opcode, Region, ScalarType, Tile, Type, Value,
};

// ----------------------------------------------------------------------------------------------
// Deterministic PRNG
// ----------------------------------------------------------------------------------------------

/// SplitMix64 (Steele, Lea, Flood 2014).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

// ----------------------------------------------------------------------------------------------
// Kernel builder
// ----------------------------------------------------------------------------------------------

/// Builds a kernel instruction by instruction into a current region (a stack of open regions).
pub struct K {
    /// The kernel being built.
    pub f: Function,
    cur: Vec<Region>,
}

impl K {
    /// An empty kernel with a 1-D block of `block` threads and a fixed grid of `grid` blocks.
    pub fn new(name: &str, block: u32, grid: u32) -> K {
        let mut f = Function::new(name);
        f.launch.block = [block, 1, 1];
        f.launch.grid = GridPolicy::Fixed([grid, 1, 1]);
        let body = f.body;
        K { f, cur: vec![body] }
    }

    /// A `ptr<global, elem>` buffer parameter.
    pub fn buf(&mut self, name: &str, elem: ScalarType) -> Value {
        self.f.add_param(name, Type::Ptr(AddrSpace::Global, elem), false)
    }

    /// A uniform scalar parameter.
    pub fn scalar_param(&mut self, name: &str, ty: ScalarType) -> Value {
        self.f.add_param(name, ty.into(), true)
    }

    fn region(&self) -> Region {
        *self.cur.last().expect("the builder always has an open region (the body at least)")
    }

    /// Appends an instruction with results of the given types.
    pub fn inst(&mut self, op: Opcode, imm: Imm, args: &[Value], tys: &[Type]) -> Inst {
        let i = self.f.make_inst(op, imm, args, tys);
        let r = self.region();
        self.f.append_inst(r, i);
        i
    }

    /// Appends a one-result instruction and returns its result.
    pub fn op(&mut self, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
        let i = self.inst(op, imm, args, &[ty]);
        self.f.first_result(i).expect("a one-result instruction was just built")
    }

    /// A constant of raw bits.
    pub fn c(&mut self, ty: ScalarType, bits: u64) -> Value {
        self.op(Opcode::Const, Imm::Const(bits), &[], ty.into())
    }

    /// A `u32` constant.
    pub fn u(&mut self, v: u32) -> Value {
        self.c(ScalarType::U32, u64::from(v))
    }

    /// A binary op whose result has the type of `a`.
    pub fn bin(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.op(op, Imm::None, &[a, b], ty)
    }

    /// A comparison.
    pub fn cmp(&mut self, cond: CmpCond, a: Value, b: Value) -> Value {
        self.op(Opcode::Cmp, Imm::Cond(cond), &[a, b], Type::BOOL)
    }

    /// A `cast`.
    pub fn cast(&mut self, v: Value, ty: ScalarType) -> Value {
        self.op(Opcode::Cast, Imm::None, &[v], ty.into())
    }

    /// A `u32` op without operands (`lane_id`, `subgroup_id`, `subgroup_size`).
    pub fn nullary(&mut self, op: Opcode) -> Value {
        self.op(op, Imm::None, &[], Type::U32)
    }

    /// A `u32` op with a dimension immediate (`thread_id x`, …).
    pub fn dim(&mut self, op: Opcode, d: Dim) -> Value {
        self.op(op, Imm::Dim(d), &[], Type::U32)
    }

    /// Global thread index `block_id.x * block_dim.x + thread_id.x`.
    pub fn gid(&mut self) -> Value {
        let b = self.dim(Opcode::BlockId, Dim::X);
        let d = self.dim(Opcode::BlockDim, Dim::X);
        let t = self.dim(Opcode::ThreadId, Dim::X);
        let m = self.bin(Opcode::Mul, b, d);
        self.bin(Opcode::Add, m, t)
    }

    /// `load p[i]`.
    pub fn load_at(&mut self, p: Value, i: Value) -> Value {
        let ty = self.f.value_type(p);
        let (_, e) = ty.pointer().expect("load_at takes a pointer");
        let q = self.op(Opcode::PtrOffset, Imm::None, &[p, i], ty);
        self.op(Opcode::Load, Imm::None, &[q], e.into())
    }

    /// `store p[i], v`.
    pub fn store_at(&mut self, p: Value, i: Value, v: Value) {
        let ty = self.f.value_type(p);
        let q = self.op(Opcode::PtrOffset, Imm::None, &[p, i], ty);
        self.inst(Opcode::Store, Imm::None, &[q, v], &[]);
    }

    /// A terminator (`yield`, `break`, `continue`, `return`).
    pub fn term(&mut self, op: Opcode, args: &[Value]) {
        self.inst(op, Imm::None, args, &[]);
    }

    /// `if c -> (tys) { then } else { els }`; each closure must end its arm with a terminator.
    pub fn if_(&mut self, c: Value, tys: &[Type], then: impl FnOnce(&mut K), els: impl FnOnce(&mut K)) -> Vec<Value> {
        let i = self.inst(Opcode::If, Imm::None, &[c], tys);
        let (t, e) = (self.f.make_region(), self.f.make_region());
        self.f.set_inst_regions(i, Some(t), Some(e));
        self.cur.push(t);
        then(self);
        self.cur.pop();
        self.cur.push(e);
        els(self);
        self.cur.pop();
        self.f.inst_results(i).to_vec()
    }

    /// `loop (carried = inits) -> (tys) { body }`; the body gets the carried values.
    pub fn loop_(&mut self, inits: &[Value], tys: &[Type], body: impl FnOnce(&mut K, &[Value])) -> Vec<Value> {
        let i = self.inst(Opcode::Loop, Imm::None, inits, tys);
        let r = self.f.make_region();
        let init_tys: Vec<Type> = inits.iter().map(|&v| self.f.value_type(v)).collect();
        let params: Vec<Value> = init_tys.into_iter().map(|t| self.f.add_region_param(r, t)).collect();
        self.f.set_inst_regions(i, Some(r), None);
        self.cur.push(r);
        body(self, &params);
        self.cur.pop();
        self.f.inst_results(i).to_vec()
    }

    /// The finished kernel; panics with the rendered verifier errors if it does not verify.
    pub fn finish(self) -> Function {
        if let Err(e) = verify_function(&self.f) {
            panic!("test kernel @{} does not verify:\n{}", self.f.name, e.render(&self.f));
        }
        self.f
    }
}

// ----------------------------------------------------------------------------------------------
// Buffers and running
// ----------------------------------------------------------------------------------------------

/// A buffer argument of raw element bits.
pub fn buffer(elem: ScalarType, bits: &[u64]) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(elem, bits.iter().copied()))
}

/// The element bits of a buffer argument.
pub fn bits_of(a: &ArgValue) -> Vec<u64> {
    match a {
        ArgValue::Buffer(b) => b.to_bits(),
        ArgValue::Scalar(_, v) => vec![*v],
    }
}

/// The run configuration for subgroup width `w` (with a generous step limit against hangs).
pub fn cfg(w: u32) -> RunConfig {
    RunConfig { subgroup_size: w, step_limit: Some(50_000_000), ..RunConfig::default() }
}

/// The subgroup widths every sweep covers.
pub const WIDTHS: [u32; 3] = [8, 32, 64];

/// Launch geometries `(block threads, blocks)` for width `w`: a multiple of `w` with one block,
/// a block that is *not* a multiple of `w` (a partial last subgroup) with two blocks, and a
/// multiple of `w` with two blocks.
pub fn geometries(w: u32) -> [(u32, u32); 3] {
    let (mult, partial) = match w {
        8 => (64, 20),
        32 => (64, 40),
        _ => (128, w + 8),
    };
    [(mult, 1), (partial, 2), (mult, 2)]
}

/// The tiles of a sweep at width `w`: every `Log2(0..=log2 w)`, one larger `Log2` (clamped to
/// the width) when it exists, and `Full`.
pub fn tiles(w: u32) -> Vec<Tile> {
    let lw = w.trailing_zeros() as u8;
    let mut t: Vec<Tile> = (0..=lw).map(Tile::Log2).collect();
    if lw < 6 {
        t.push(Tile::Log2(lw + 1));
    }
    t.push(Tile::Full);
    t
}

// ----------------------------------------------------------------------------------------------
// Collectives and their references
// ----------------------------------------------------------------------------------------------

/// Where a `broadcast` takes its (uniform) lane operand from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BLane {
    /// A `u32` constant.
    Const(u32),
    /// The kernel's uniform scalar parameter `%lane`.
    Param,
}

/// The type of a `subgroup.segreduce` head operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Head {
    /// The `u32` aux input itself (tested `!= 0`).
    U32,
    /// `cmp ne aux, 0 : bool`.
    Bool,
}

/// One collective op run by the kernel template. `x` is the value input (of the case's type),
/// `aux` the per-lane `u32` input (shuffle index/delta/mask, segment heads).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Coll {
    /// `shuffle.idx|up|down|xor x, aux` (not `Broadcast`: see [`Coll::Broadcast`]).
    Shuffle(ShuffleKind),
    /// `broadcast x, lane`.
    Broadcast(BLane),
    /// `ballot x` (x: bool) → u64.
    Ballot,
    /// `ballot.first_n n x` (x: bool) → u32.
    BallotFirstN(u8),
    /// `vote.all|any|eq tile x` → bool (stored as u32).
    Vote(VoteKind, Tile),
    /// `subgroup.reduce op tile x`.
    Reduce(GroupOp, Tile),
    /// `subgroup.scan (inclusive|exclusive) op tile x`.
    Scan(GroupOp, Tile, bool),
    /// `subgroup.segreduce op tile x, head(aux)`.
    SegReduce(GroupOp, Tile, Head),
    /// `lane_id`.
    LaneId,
    /// `subgroup_id`.
    SubgroupId,
    /// `subgroup_size`.
    SubgroupSize,
}

impl Coll {
    /// The result type for input type `ty`.
    pub fn result(self, ty: ScalarType) -> ScalarType {
        match self {
            Coll::Shuffle(_) | Coll::Broadcast(_) | Coll::Reduce(..) | Coll::Scan(..) | Coll::SegReduce(..) => ty,
            Coll::Ballot => ScalarType::U64,
            Coll::BallotFirstN(_) | Coll::LaneId | Coll::SubgroupId | Coll::SubgroupSize => ScalarType::U32,
            Coll::Vote(..) => ScalarType::Bool,
        }
    }

    /// Emits the op at the builder's current position.
    fn emit(self, k: &mut K, ty: ScalarType, x: Value, aux: Value, lane_param: Value) -> Value {
        let t: Type = self.result(ty).into();
        let group = |op, tile, inclusive| Imm::Group { op, tile, inclusive };
        match self {
            Coll::Shuffle(kind) => {
                let opc = match kind {
                    ShuffleKind::Idx => Opcode::ShuffleIdx,
                    ShuffleKind::Up => Opcode::ShuffleUp,
                    ShuffleKind::Down => Opcode::ShuffleDown,
                    ShuffleKind::Xor => Opcode::ShuffleXor,
                    ShuffleKind::Broadcast => Opcode::Broadcast,
                };
                k.op(opc, Imm::None, &[x, aux], t)
            }
            Coll::Broadcast(BLane::Const(c)) => {
                let l = k.u(c);
                k.op(Opcode::Broadcast, Imm::None, &[x, l], t)
            }
            Coll::Broadcast(BLane::Param) => k.op(Opcode::Broadcast, Imm::None, &[x, lane_param], t),
            Coll::Ballot => k.op(Opcode::Ballot, Imm::None, &[x], t),
            Coll::BallotFirstN(n) => k.op(Opcode::BallotFirstN, Imm::Count(n), &[x], t),
            Coll::Vote(kind, tile) => {
                let opc = match kind {
                    VoteKind::All => Opcode::VoteAll,
                    VoteKind::Any => Opcode::VoteAny,
                    VoteKind::Eq => Opcode::VoteEq,
                };
                k.op(opc, Imm::Tile(tile), &[x], t)
            }
            Coll::Reduce(op, tile) => k.op(Opcode::SubgroupReduce, group(op, tile, true), &[x], t),
            Coll::Scan(op, tile, incl) => k.op(Opcode::SubgroupScan, group(op, tile, incl), &[x], t),
            Coll::SegReduce(op, tile, head) => {
                let h = match head {
                    Head::U32 => aux,
                    Head::Bool => {
                        let z = k.u(0);
                        k.cmp(CmpCond::Ne, aux, z)
                    }
                };
                k.op(Opcode::SegmentedReduce, group(op, tile, true), &[x, h], t)
            }
            Coll::LaneId => k.nullary(Opcode::LaneId),
            Coll::SubgroupId => k.nullary(Opcode::SubgroupId),
            Coll::SubgroupSize => k.nullary(Opcode::SubgroupSize),
        }
    }

    /// The reference results of one subgroup: `x`/`aux` are the lanes' registers (0 for lanes
    /// without a thread), `active` the lanes that execute the op, `sg` the subgroup index.
    /// Entries of inactive lanes are unspecified (and never compared).
    #[allow(clippy::too_many_arguments)]
    pub fn reference(
        self,
        ty: ScalarType,
        x: &[u64],
        aux: &[u64],
        active: u64,
        w: usize,
        sg: u32,
        lane_param: u32,
    ) -> Vec<u64> {
        match self {
            Coll::Shuffle(kind) => ref_shuffle(kind, x, aux, active, w),
            Coll::Broadcast(l) => {
                let src = match l {
                    BLane::Const(c) => c,
                    BLane::Param => lane_param,
                } as usize
                    % w;
                // Reads the source lane's register whatever its activity.
                vec![x[src]; w]
            }
            Coll::Ballot => vec![ref_ballot(x, active, w, 64); w],
            Coll::BallotFirstN(n) => vec![ref_ballot(x, active, w, usize::from(n)); w],
            Coll::Vote(kind, tile) => ref_vote(kind, ty, x, active, w, tile),
            Coll::Reduce(op, tile) => ref_reduce(op, ty, x, active, w, tile),
            Coll::Scan(op, tile, incl) => ref_scan(op, ty, incl, x, active, w, tile),
            Coll::SegReduce(op, tile, _) => ref_segreduce(op, ty, x, aux, active, w, tile),
            Coll::LaneId => (0..w as u64).collect(),
            Coll::SubgroupId => vec![u64::from(sg); w],
            Coll::SubgroupSize => vec![w as u64; w],
        }
    }
}

// ----------------------------------------------------------------------------------------------
// The kernel template
// ----------------------------------------------------------------------------------------------

/// Where (under which divergence) the collectives run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// In the body: every thread (a partial subgroup's missing lanes stay inactive).
    Full,
    /// In the then arm of `if flag != 0` (sentinel in the else arm).
    Then,
    /// In the else arm of `if flag != 0` (sentinel in the then arm).
    Else,
    /// In the then arm of `if lane_id & 3 != 0` (computed in the kernel).
    LaneMask,
    /// In `if flag & 1 != 0 { if flag & 2 != 0 { HERE } }`.
    Nested,
    /// In the body after `if flag != 0 { store sentinel; return }`.
    AfterReturn,
    /// In a loop `for i in 0.. { if i >= trip { break }; HERE }` at every iteration: iteration
    /// `i` runs with the lanes whose trip count exceeds `i` (the others already broke).
    Loop,
}

/// Every mode.
pub const MODES: [Mode; 7] =
    [Mode::Full, Mode::Then, Mode::Else, Mode::LaneMask, Mode::Nested, Mode::AfterReturn, Mode::Loop];

/// The largest loop trip count (the loop mode's outputs have this many iterations).
pub const MAX_TRIP: u32 = 3;

/// Stored by lanes that do not run the collectives (and pre-filled in loop mode).
pub fn sentinel(elem: ScalarType) -> u64 {
    if elem.bits() == 64 {
        0xDEAD_BEEF_0BAD_F00D
    } else {
        0xDEAD_BEEF
    }
}

/// Pre-filled in the outputs of the if/return modes, where every thread stores something.
pub fn poison(elem: ScalarType) -> u64 {
    if elem.bits() == 64 {
        0x5A5A_5A5A_5A5A_5A5A
    } else {
        0x5A5A_5A5A
    }
}

/// The element type of the output buffer (bool results are stored as `u32` 0/1).
fn out_elem(r: ScalarType) -> ScalarType {
    if r == ScalarType::Bool {
        ScalarType::U32
    } else {
        r
    }
}

/// One kernel run: the collectives `colls` (all with input type `ty` and one result type) under
/// `mode` at width `w` over `grid` blocks of `block` threads, on the given per-thread inputs
/// (`block * grid` entries each).
pub struct Case {
    /// Input type.
    pub ty: ScalarType,
    /// The collectives, each stored to its own output slice.
    pub colls: Vec<Coll>,
    /// Subgroup width.
    pub w: u32,
    /// Threads per block.
    pub block: u32,
    /// Blocks.
    pub grid: u32,
    /// Where the collectives run.
    pub mode: Mode,
    /// Value input (canonical bits of `ty`).
    pub x: Vec<u64>,
    /// `u32` aux input.
    pub aux: Vec<u64>,
    /// `u32` divergence flags.
    pub flag: Vec<u64>,
    /// `u32` loop trip counts (`0..=MAX_TRIP`).
    pub trip: Vec<u64>,
    /// The `%lane` uniform parameter (for `broadcast` from a parameter).
    pub lane_param: u32,
}

impl Case {
    /// A case with control inputs drawn from `rng` (see [`control_inputs`]) and the given values.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rng: &mut SplitMix64,
        ty: ScalarType,
        colls: Vec<Coll>,
        w: u32,
        (block, grid): (u32, u32),
        mode: Mode,
        x: Vec<u64>,
        aux: Vec<u64>,
    ) -> Case {
        let (flag, trip) = control_inputs(rng, w, block, grid);
        let lane_param = rng.below(u64::from(2 * w)) as u32;
        Case { ty, colls, w, block, grid, mode, x, aux, flag, trip, lane_param }
    }

    fn n(&self) -> u32 {
        self.block * self.grid
    }

    fn iters(&self) -> u32 {
        if self.mode == Mode::Loop {
            MAX_TRIP
        } else {
            1
        }
    }

    fn res_elem(&self) -> ScalarType {
        let r = self.colls[0].result(self.ty);
        assert!(self.colls.iter().all(|c| c.result(self.ty) == r), "a case's collectives share one result type");
        r
    }

    /// What the case is, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "ty={} W={} block={} grid={} mode={:?} lane_param={}",
            self.ty, self.w, self.block, self.grid, self.mode, self.lane_param
        )
    }

    /// Builds the kernel (see the module docs).
    pub fn kernel(&self) -> Function {
        let (ty, n, nc) = (self.ty, self.n(), self.colls.len() as u32);
        let res = self.res_elem();
        let oe = out_elem(res);
        let mut k = K::new("simt_case", self.block, self.grid);
        let xb = k.buf("x", ty);
        let auxb = k.buf("aux", ScalarType::U32);
        let flagb = k.buf("flag", ScalarType::U32);
        let tripb = k.buf("trip", ScalarType::U32);
        let out = k.buf("out", oe);
        let lane_param = k.scalar_param("lane", ScalarType::U32);
        let gid = k.gid();
        let x = k.load_at(xb, gid);
        let aux = k.load_at(auxb, gid);
        let flag = k.load_at(flagb, gid);
        let zero = k.u(0);
        let colls = self.colls.clone();
        let emit = move |k: &mut K, base: Value| {
            for (ci, c) in colls.iter().enumerate() {
                let mut r = c.emit(k, ty, x, aux, lane_param);
                if res == ScalarType::Bool {
                    r = k.cast(r, ScalarType::U32);
                }
                let off = k.u(ci as u32 * n);
                let idx = k.bin(Opcode::Add, base, off);
                k.store_at(out, idx, r);
            }
        };
        let sent = move |k: &mut K| {
            let s = k.c(oe, sentinel(oe));
            for ci in 0..nc {
                let off = k.u(ci * n);
                let idx = k.bin(Opcode::Add, gid, off);
                k.store_at(out, idx, s);
            }
        };
        let yield_ = |k: &mut K| k.term(Opcode::Yield, &[]);
        match self.mode {
            Mode::Full => emit(&mut k, gid),
            Mode::Then | Mode::Else | Mode::LaneMask => {
                let c = if self.mode == Mode::LaneMask {
                    let l = k.nullary(Opcode::LaneId);
                    let three = k.u(3);
                    let m = k.bin(Opcode::And, l, three);
                    k.cmp(CmpCond::Ne, m, zero)
                } else {
                    k.cmp(CmpCond::Ne, flag, zero)
                };
                let run = |k: &mut K| {
                    emit(k, gid);
                    yield_(k);
                };
                let skip = |k: &mut K| {
                    sent(k);
                    yield_(k);
                };
                if self.mode == Mode::Else {
                    k.if_(c, &[], skip, run);
                } else {
                    k.if_(c, &[], run, skip);
                }
            }
            Mode::Nested => {
                let (one, two) = (k.u(1), k.u(2));
                let b0 = k.bin(Opcode::And, flag, one);
                let c0 = k.cmp(CmpCond::Ne, b0, zero);
                let b1 = k.bin(Opcode::And, flag, two);
                let c1 = k.cmp(CmpCond::Ne, b1, zero);
                k.if_(
                    c0,
                    &[],
                    |k| {
                        k.if_(
                            c1,
                            &[],
                            |k| {
                                emit(k, gid);
                                yield_(k);
                            },
                            |k| {
                                sent(k);
                                yield_(k);
                            },
                        );
                        yield_(k);
                    },
                    |k| {
                        sent(k);
                        yield_(k);
                    },
                );
            }
            Mode::AfterReturn => {
                let c = k.cmp(CmpCond::Ne, flag, zero);
                k.if_(
                    c,
                    &[],
                    |k| {
                        sent(k);
                        k.term(Opcode::Return, &[]);
                    },
                    yield_,
                );
                emit(&mut k, gid);
            }
            Mode::Loop => {
                let trip = k.load_at(tripb, gid);
                let one = k.u(1);
                let stride = k.u(nc * n);
                k.loop_(&[zero], &[], |k, p| {
                    let i = p[0];
                    let done = k.cmp(CmpCond::Ge, i, trip);
                    k.if_(done, &[], |k| k.term(Opcode::Break, &[]), yield_);
                    let ib = k.bin(Opcode::Mul, i, stride);
                    let base = k.bin(Opcode::Add, ib, gid);
                    emit(k, base);
                    let i2 = k.bin(Opcode::Add, i, one);
                    k.term(Opcode::Continue, &[i2]);
                });
            }
        }
        k.term(Opcode::Return, &[]);
        k.finish()
    }

    /// Does thread `gid` (lane `lane`) run the collectives in iteration `iter`?
    fn runs(&self, gid: usize, lane: usize, iter: u32) -> bool {
        let f = self.flag[gid];
        match self.mode {
            Mode::Full => true,
            Mode::Then => f != 0,
            Mode::Else | Mode::AfterReturn => f == 0,
            Mode::LaneMask => lane & 3 != 0,
            Mode::Nested => f & 3 == 3,
            Mode::Loop => self.trip[gid] > u64::from(iter),
        }
    }

    /// The expected output buffer.
    pub fn expected(&self) -> Vec<u64> {
        let (n, nc, w) = (self.n() as usize, self.colls.len(), self.w as usize);
        let oe = out_elem(self.res_elem());
        let fill = if self.mode == Mode::Loop { sentinel(oe) } else { poison(oe) };
        let mut want = vec![fill; self.iters() as usize * nc * n];
        let nsg = self.block.div_ceil(self.w);
        for b in 0..self.grid as usize {
            for iter in 0..self.iters() {
                for s in 0..nsg {
                    // Registers of lanes without a thread stay 0.
                    let mut xs = vec![0u64; w];
                    let mut auxs = vec![0u64; w];
                    let mut active = 0u64;
                    let mut gids = vec![None; w];
                    for l in 0..w {
                        let t = s as usize * w + l;
                        if t >= self.block as usize {
                            continue;
                        }
                        let gid = b * self.block as usize + t;
                        gids[l] = Some(gid);
                        xs[l] = self.x[gid];
                        auxs[l] = self.aux[gid];
                        if self.runs(gid, l, iter) {
                            active |= 1 << l;
                        }
                    }
                    for (ci, c) in self.colls.iter().enumerate() {
                        let r = c.reference(self.ty, &xs, &auxs, active, w, s, self.lane_param);
                        for l in 0..w {
                            let Some(gid) = gids[l] else { continue };
                            let slot = (iter as usize * nc + ci) * n + gid;
                            if act(active, l) {
                                want[slot] = r[l];
                            } else if self.mode != Mode::Loop {
                                want[slot] = sentinel(oe);
                            }
                        }
                    }
                }
            }
        }
        want
    }

    /// Runs the kernel in the interpreter and compares every output element with the reference;
    /// `Err` describes the mismatches.
    pub fn check(&self) -> Result<(), String> {
        let f = self.kernel();
        let n = self.n() as usize;
        for (what, v) in [("x", &self.x), ("aux", &self.aux), ("flag", &self.flag), ("trip", &self.trip)] {
            assert_eq!(v.len(), n, "case input {what} must have block*grid entries");
        }
        let oe = out_elem(self.res_elem());
        let fill = if self.mode == Mode::Loop { sentinel(oe) } else { poison(oe) };
        let nout = self.iters() as usize * self.colls.len() * n;
        let mut args = vec![
            buffer(self.ty, &self.x),
            buffer(ScalarType::U32, &self.aux),
            buffer(ScalarType::U32, &self.flag),
            buffer(ScalarType::U32, &self.trip),
            buffer(oe, &vec![fill; nout]),
            ArgValue::Scalar(ScalarType::U32, u64::from(self.lane_param)),
        ];
        if let Err(e) = run_kernel(&f, &cfg(self.w), &mut args) {
            return Err(format!("{}: interpreter error: {e}", self.describe()));
        }
        let got = bits_of(&args[4]);
        let want = self.expected();
        let mut msgs = Vec::new();
        let mut bad = 0usize;
        for (slot, (&g, &e)) in got.iter().zip(&want).enumerate() {
            if g == e {
                continue;
            }
            bad += 1;
            if msgs.len() < 6 {
                msgs.push(self.explain(slot, e, g));
            }
        }
        if got.len() != want.len() {
            msgs.push(format!("output has {} elements, expected {}", got.len(), want.len()));
            bad += 1;
        }
        if bad == 0 {
            Ok(())
        } else {
            Err(format!("{}: {bad} wrong element(s):\n    {}", self.describe(), msgs.join("\n    ")))
        }
    }

    /// A mismatch in output slot `slot`, with its collective, thread, subgroup and active mask.
    fn explain(&self, slot: usize, want: u64, got: u64) -> String {
        let (n, nc, w) = (self.n() as usize, self.colls.len(), self.w as usize);
        let gid = slot % n;
        let ci = slot / n % nc;
        let iter = slot / n / nc;
        let (b, t) = (gid / self.block as usize, gid % self.block as usize);
        let (s, l) = (t / w, t % w);
        let mut active = 0u64;
        for lane in 0..w {
            let tt = s * w + lane;
            if tt < self.block as usize && self.runs(b * self.block as usize + tt, lane, iter as u32) {
                active |= 1 << lane;
            }
        }
        format!(
            "{:?} iter {iter}: block {b} subgroup {s} lane {l} (gid {gid}), active mask {active:#x}: \
             expected {want:#x}, got {got:#x}",
            self.colls[ci]
        )
    }
}

/// Per-thread divergence flags and loop trip counts. The pattern depends on the subgroup
/// (and block) so that some subgroups are fully active, fully inactive, sparse or random:
/// flags `3` (every if-mode runs / `Else` none), random `0..4`, mostly `0`, all `0`.
pub fn control_inputs(rng: &mut SplitMix64, w: u32, block: u32, grid: u32) -> (Vec<u64>, Vec<u64>) {
    let mut flag = Vec::new();
    let mut trip = Vec::new();
    for b in 0..grid {
        for t in 0..block {
            let pat = (t / w + b) % 4;
            flag.push(match pat {
                0 => 3,
                1 => rng.below(4),
                2 if rng.chance(1, 6) => 1 + rng.below(3),
                _ => 0,
            });
            trip.push(if (t / w + b).is_multiple_of(3) {
                u64::from(MAX_TRIP)
            } else {
                rng.below(u64::from(MAX_TRIP) + 1)
            });
        }
    }
    (flag, trip)
}

/// Runs every case and panics with a summary of all failing ones.
pub fn check_all(what: &str, cases: impl IntoIterator<Item = Case>) {
    let mut fails = Vec::new();
    let mut total = 0usize;
    for c in cases {
        total += 1;
        if let Err(e) = c.check() {
            fails.push(e);
        }
    }
    assert!(total > 0, "{what}: no case generated");
    if !fails.is_empty() {
        let shown: Vec<&str> = fails.iter().take(12).map(String::as_str).collect();
        panic!("{what}: {} of {total} case(s) failed; first ones:\n  {}", fails.len(), shown.join("\n  "));
    }
}
