//! Unit tests of the verifier: one (or more) per rule, each asserting the error's location and
//! message, built with the `Function` API (there is no parser in this crate's worktree).

use super::*;
use crate::function::{GridPolicy, Launch, LaunchArg, LaunchConfig, Program, ProgramParam};
use crate::inst::{Imm, Tile};
use crate::ops::{AtomicOp, CmpCond, Dim, GroupOp, Opcode, PredOp, Scope};
use crate::types::{AddrSpace, ScalarType, Type};
use cranelift_entity::{EntityList, ListPool};

struct K {
    f: Function,
}

impl K {
    fn new() -> K {
        K { f: Function::new("k") }
    }
    fn body(&self) -> Region {
        self.f.body
    }
    fn i(&mut self, r: Region, op: Opcode, imm: Imm, args: &[Value], tys: &[Type]) -> Inst {
        let i = self.f.make_inst(op, imm, args, tys);
        self.f.append_inst(r, i);
        i
    }
    fn v(&mut self, r: Region, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
        let i = self.i(r, op, imm, args, &[ty]);
        self.f.inst_results(i)[0]
    }
    fn c(&mut self, r: Region, ty: Type, bits: u64) -> Value {
        self.v(r, Opcode::Const, Imm::Const(bits), &[], ty)
    }
    fn ret(&mut self) -> Inst {
        let b = self.body();
        self.i(b, Opcode::Return, Imm::None, &[], &[])
    }
    fn if_(&mut self, r: Region, cond: Value, tys: &[Type], with_else: bool) -> (Inst, Region, Option<Region>) {
        let i = self.i(r, Opcode::If, Imm::None, &[cond], tys);
        let t = self.f.make_region();
        let e = with_else.then(|| self.f.make_region());
        self.f.set_inst_regions(i, Some(t), e);
        (i, t, e)
    }
    fn loop_(&mut self, r: Region, inits: &[Value], res: &[Type]) -> (Inst, Region, Vec<Value>) {
        let i = self.i(r, Opcode::Loop, Imm::None, inits, res);
        let b = self.f.make_region();
        self.f.set_inst_regions(i, Some(b), None);
        let ps = inits.iter().map(|&v| self.f.value_type(v)).collect::<Vec<_>>();
        let ps = ps.into_iter().map(|t| self.f.add_region_param(b, t)).collect();
        (i, b, ps)
    }
    /// A thread-varying bool and a uniform bool, in the body.
    fn conds(&mut self) -> (Value, Value) {
        let b = self.body();
        let tid = self.v(b, Opcode::ThreadId, Imm::Dim(Dim::X), &[], Type::U32);
        let z = self.c(b, Type::U32, 0);
        let vary = self.v(b, Opcode::Cmp, Imm::Cond(CmpCond::Eq), &[tid, z], Type::BOOL);
        let uni = self.v(b, Opcode::Cmp, Imm::Cond(CmpCond::Eq), &[z, z], Type::BOOL);
        (vary, uni)
    }
}

fn errors(f: &Function) -> Vec<VerifyError> {
    match verify_function(f) {
        Ok(_) => Vec::new(),
        Err(e) => e.0,
    }
}

#[track_caller]
fn has(f: &Function, loc: AnyEntity, msg: &str) {
    let errs = errors(f);
    assert!(
        errs.iter().any(|e| e.location == loc && e.message.contains(msg)),
        "no error at {loc:?} containing {msg:?}; got:\n{}",
        VerifyErrors(errs.clone())
    );
}

#[track_caller]
fn only(f: &Function, loc: AnyEntity, msg: &str) {
    has(f, loc, msg);
    let n = errors(f).len();
    assert_eq!(n, 1, "expected exactly one error, got {}", VerifyErrors(errors(f)));
}

#[track_caller]
fn ok(f: &Function) {
    if let Err(e) = verify_function(f) {
        panic!("unexpected errors:\n{}", e.render(f));
    }
}

/// A binary op with operands of types `a`, `b` and result `r`, in an otherwise valid kernel.
fn binop(op: Opcode, a: Type, b: Type, r: Type) -> (Function, Inst) {
    let mut k = K::new();
    let x = k.f.add_param("x", a, true);
    let y = k.f.add_param("y", b, true);
    let body = k.body();
    let i = k.i(body, op, Imm::None, &[x, y], &[r]);
    k.ret();
    (k.f, i)
}

fn unop(op: Opcode, imm: Imm, a: Type, r: Type) -> (Function, Inst) {
    let mut k = K::new();
    let x = k.f.add_param("x", a, true);
    let body = k.body();
    let i = k.i(body, op, imm, &[x], &[r]);
    k.ret();
    (k.f, i)
}

// ---------------------------------------------------------------- valid kernels

#[test]
fn valid_kernel_with_control_flow_and_collectives() {
    let mut k = K::new();
    let buf = k.f.add_param("buf", Type::Ptr(AddrSpace::Global, ScalarType::F32), true);
    let n = k.f.add_param("n", Type::U32, true);
    k.f.launch = LaunchConfig { block: [64, 1, 1], grid: GridPolicy::Cover(1), subgroup_size: None };
    let sh = k.f.add_shared("tmp", ScalarType::F32, 64);
    let body = k.body();
    let tid = k.v(body, Opcode::ThreadId, Imm::Dim(Dim::X), &[], Type::U32);
    let p = k.v(body, Opcode::PtrOffset, Imm::None, &[buf, tid], Type::Ptr(AddrSpace::Global, ScalarType::F32));
    let x = k.v(body, Opcode::Load, Imm::None, &[p], Type::F32);
    let sp = k.v(body, Opcode::SharedAddr, Imm::Shared(sh), &[], Type::Ptr(AddrSpace::Shared, ScalarType::F32));
    let sq = k.v(body, Opcode::PtrOffset, Imm::None, &[sp, tid], Type::Ptr(AddrSpace::Shared, ScalarType::F32));
    k.i(body, Opcode::Store, Imm::None, &[sq, x], &[]);
    k.i(body, Opcode::BlockSync, Imm::None, &[], &[]);
    let zero = k.c(body, Type::U32, 0);
    let bc = k.v(body, Opcode::Broadcast, Imm::None, &[x, zero], Type::F32);
    let g = Imm::Group { op: GroupOp::Add, tile: Tile::Log2(3), inclusive: false };
    let sc = k.v(body, Opcode::SubgroupScan, g, &[bc], Type::F32);
    let c = k.v(body, Opcode::Cmp, Imm::Cond(CmpCond::Lt), &[tid, n], Type::BOOL);
    let (_, t, e) = k.if_(body, c, &[Type::F32], true);
    let s = k.v(t, Opcode::Add, Imm::None, &[sc, x], Type::F32);
    k.i(t, Opcode::Yield, Imm::None, &[s], &[]);
    k.i(e.unwrap_or(t), Opcode::Yield, Imm::None, &[x], &[]);
    let one = k.c(body, Type::U32, 1);
    let (lp, lb, ps) = k.loop_(body, &[zero], &[Type::U32]);
    let i2 = k.v(lb, Opcode::Add, Imm::None, &[ps[0], one], Type::U32);
    let done = k.v(lb, Opcode::Cmp, Imm::Cond(CmpCond::Ge), &[i2, n], Type::BOOL);
    let (_, t2, _) = k.if_(lb, done, &[], false);
    k.i(t2, Opcode::Break, Imm::None, &[i2], &[]);
    k.i(lb, Opcode::BlockSync, Imm::None, &[], &[]);
    k.i(lb, Opcode::Continue, Imm::None, &[i2], &[]);
    let r = k.f.inst_results(lp)[0];
    let _ = k.v(body, Opcode::Add, Imm::None, &[r, r], Type::U32);
    k.ret();
    ok(&k.f);
}

// ---------------------------------------------------------------- types

#[test]
fn arithmetic_types() {
    let (f, i) = binop(Opcode::Add, Type::U32, Type::F32, Type::U32);
    only(&f, AnyEntity::Inst(i), "add: operand 2 has type f32, expected u32");
    let (f, i) = binop(Opcode::Sub, Type::BOOL, Type::BOOL, Type::BOOL);
    has(&f, AnyEntity::Inst(i), "sub: operand 1 has type bool, expected a numeric type");
    let (f, i) = binop(Opcode::Mul, Type::I32, Type::I32, Type::U32);
    only(&f, AnyEntity::Inst(i), "mul: result has type u32, expected i32");
    let (f, _) = binop(Opcode::Div, Type::F64, Type::F64, Type::F64);
    ok(&f);
    let (f, _) = binop(Opcode::Rem, Type::I64, Type::I64, Type::I64);
    ok(&f);
    let (f, i) = binop(Opcode::Min, Type::Ptr(AddrSpace::Global, ScalarType::U32), Type::U32, Type::U32);
    has(&f, AnyEntity::Inst(i), "min: operand 1 has type ptr<global, u32>, expected a numeric type");
}

#[test]
fn bitwise_and_shift_types() {
    let (f, _) = binop(Opcode::And, Type::BOOL, Type::BOOL, Type::BOOL);
    ok(&f);
    let (f, i) = binop(Opcode::Or, Type::F32, Type::F32, Type::F32);
    only(&f, AnyEntity::Inst(i), "or: operand 1 has type f32, expected an integer or bool type");
    let (f, i) = binop(Opcode::Shl, Type::U32, Type::U64, Type::U32);
    only(&f, AnyEntity::Inst(i), "shl: operand 2 has type u64, expected u32");
    let (f, i) = binop(Opcode::Shr, Type::BOOL, Type::BOOL, Type::BOOL);
    has(&f, AnyEntity::Inst(i), "shr: operand 1 has type bool, expected an integer type");
}

#[test]
fn unary_types() {
    let (f, i) = unop(Opcode::Sqrt, Imm::None, Type::U32, Type::U32);
    only(&f, AnyEntity::Inst(i), "sqrt: operand 1 has type u32, expected a float type");
    let (f, i) = unop(Opcode::Clz, Imm::None, Type::F32, Type::F32);
    only(&f, AnyEntity::Inst(i), "clz: operand 1 has type f32, expected an integer type");
    let (f, i) = unop(Opcode::Neg, Imm::None, Type::BOOL, Type::BOOL);
    only(&f, AnyEntity::Inst(i), "neg: operand 1 has type bool, expected a numeric type");
    let (f, _) = unop(Opcode::Not, Imm::None, Type::BOOL, Type::BOOL);
    ok(&f);
    let (f, i) = unop(Opcode::Popcount, Imm::None, Type::U64, Type::U32);
    only(&f, AnyEntity::Inst(i), "popcount: result has type u32, expected u64");
    let (f, _) = unop(Opcode::Abs, Imm::None, Type::I32, Type::I32);
    ok(&f);
    let (f, _) = unop(Opcode::Bitrev, Imm::None, Type::U64, Type::U64);
    ok(&f);
}

#[test]
fn fma_select_cmp() {
    let mut k = K::new();
    let a = k.f.add_param("a", Type::F32, true);
    let b = k.f.add_param("b", Type::F64, true);
    let c = k.f.add_param("c", Type::U32, true);
    let p = k.f.add_param("p", Type::BOOL, true);
    let body = k.body();
    let fma = k.i(body, Opcode::Fma, Imm::None, &[a, a, b], &[Type::F32]);
    let sel = k.i(body, Opcode::Select, Imm::None, &[c, a, a], &[Type::F32]);
    let sel2 = k.i(body, Opcode::Select, Imm::None, &[p, a, b], &[Type::F32]);
    let cmp = k.i(body, Opcode::Cmp, Imm::Cond(CmpCond::Lt), &[p, p], &[Type::BOOL]);
    let cmp2 = k.i(body, Opcode::Cmp, Imm::Cond(CmpCond::Eq), &[c, c], &[Type::U32]);
    let cmp3 = k.i(body, Opcode::Cmp, Imm::Cond(CmpCond::Ne), &[p, p], &[Type::BOOL]);
    k.ret();
    let errs = errors(&k.f);
    has(&k.f, AnyEntity::Inst(fma), "fma: operand 3 has type f64, expected f32");
    has(&k.f, AnyEntity::Inst(sel), "select: operand 1 has type u32, expected bool");
    has(&k.f, AnyEntity::Inst(sel2), "select: operand 3 has type f64, expected f32");
    has(&k.f, AnyEntity::Inst(cmp), "cmp: condition lt is not defined on bool");
    has(&k.f, AnyEntity::Inst(cmp2), "cmp: result has type u32, expected bool");
    assert!(!errs.iter().any(|e| e.location == AnyEntity::Inst(cmp3)));
    assert_eq!(errs.len(), 5);
}

#[test]
fn cast_bitcast_const() {
    let (f, _) = unop(Opcode::Cast, Imm::None, Type::F32, Type::BOOL);
    ok(&f);
    let (f, i) = unop(Opcode::Cast, Imm::None, Type::Ptr(AddrSpace::Global, ScalarType::U32), Type::U64);
    only(&f, AnyEntity::Inst(i), "cast: operand 1 has type ptr<global, u32>, expected a scalar type");
    let (f, _) = unop(Opcode::Bitcast, Imm::None, Type::F32, Type::I32);
    ok(&f);
    let (f, i) = unop(Opcode::Bitcast, Imm::None, Type::U32, Type::F64);
    only(&f, AnyEntity::Inst(i), "bitcast: result type f64 has 64 bits, operand type u32 has 32");
    let (f, i) = unop(Opcode::Bitcast, Imm::None, Type::BOOL, Type::BOOL);
    has(&f, AnyEntity::Inst(i), "bitcast: operand 1 has type bool, expected a non-bool scalar type");

    let mut k = K::new();
    let body = k.body();
    let c1 = k.i(body, Opcode::Const, Imm::Const(1 << 40), &[], &[Type::U32]);
    let c2 = k.i(body, Opcode::Const, Imm::Const(2), &[], &[Type::BOOL]);
    let c3 = k.i(body, Opcode::Const, Imm::Const(0), &[], &[Type::Ptr(AddrSpace::Global, ScalarType::U32)]);
    let c4 = k.i(body, Opcode::Const, Imm::Const(0xFFFF_FFFF), &[], &[Type::I32]);
    k.ret();
    has(&k.f, AnyEntity::Inst(c1), "const: bits 0x10000000000 are not canonical for u32 (expected 0x0)");
    has(&k.f, AnyEntity::Inst(c2), "const: bits 0x2 are not canonical for bool");
    has(&k.f, AnyEntity::Inst(c3), "const: result has type ptr<global, u32>, expected a scalar type");
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(c4)));
}

#[test]
fn memory_types() {
    let gp = Type::Ptr(AddrSpace::Global, ScalarType::F32);
    let mut k = K::new();
    let buf = k.f.add_param("buf", gp, true);
    let u = k.f.add_param("u", Type::U32, true);
    let x = k.f.add_param("x", Type::F32, true);
    let sh = k.f.add_shared("s", ScalarType::I32, 4);
    let body = k.body();
    let off = k.i(body, Opcode::PtrOffset, Imm::None, &[buf, x], &[gp]);
    let off2 = k.i(body, Opcode::PtrOffset, Imm::None, &[u, u], &[gp]);
    let ld = k.i(body, Opcode::Load, Imm::None, &[buf], &[Type::U32]);
    let st = k.i(body, Opcode::Store, Imm::None, &[buf, u], &[]);
    let sa = k.i(body, Opcode::SharedAddr, Imm::Shared(sh), &[], &[Type::Ptr(AddrSpace::Shared, ScalarType::F32)]);
    let sb = k.i(
        body,
        Opcode::SharedAddr,
        Imm::Shared(crate::SharedArr::from_u32(9)),
        &[],
        &[Type::Ptr(AddrSpace::Shared, ScalarType::F32)],
    );
    k.ret();
    has(&k.f, AnyEntity::Inst(off), "ptr.offset: operand 2 has type f32, expected an integer type");
    has(&k.f, AnyEntity::Inst(off2), "ptr.offset: operand 1 has type u32, expected a pointer");
    has(&k.f, AnyEntity::Inst(ld), "load: result has type u32, expected f32");
    has(&k.f, AnyEntity::Inst(st), "store: operand 2 has type u32, expected f32");
    has(&k.f, AnyEntity::Inst(sa), "shared.addr: result has type ptr<shared, f32>, expected ptr<shared, i32>");
    has(&k.f, AnyEntity::Inst(sb), "shared.addr: shared array shared9 does not exist");
    assert_eq!(errors(&k.f).len(), 6);
}

#[test]
fn atomic_types() {
    let mk = |elem: ScalarType, imm: Imm, cas: bool| {
        let mut k = K::new();
        let p = k.f.add_param("p", Type::Ptr(AddrSpace::Global, elem), true);
        let v = k.f.add_param("v", Type::Scalar(elem), true);
        let body = k.body();
        let i = if cas {
            k.i(body, Opcode::AtomicCas, imm, &[p, v, v], &[Type::Scalar(elem)])
        } else {
            k.i(body, Opcode::AtomicRmw, imm, &[p, v], &[Type::Scalar(elem)])
        };
        k.ret();
        (k.f, i)
    };
    let rmw = |op| Imm::Atomic(op, Scope::Device);
    ok(&mk(ScalarType::F32, rmw(AtomicOp::Add), false).0);
    ok(&mk(ScalarType::I64, rmw(AtomicOp::Max), false).0);
    ok(&mk(ScalarType::F64, rmw(AtomicOp::Exch), false).0);
    ok(&mk(ScalarType::U64, Imm::Scope(Scope::Block), true).0);
    let (f, i) = mk(ScalarType::F64, rmw(AtomicOp::Add), false);
    only(&f, AnyEntity::Inst(i), "atomic.rmw: operation add is not defined on f64");
    let (f, i) = mk(ScalarType::F32, rmw(AtomicOp::Min), false);
    only(&f, AnyEntity::Inst(i), "atomic.rmw: operation min is not defined on f32");
    let (f, i) = mk(ScalarType::Bool, rmw(AtomicOp::Exch), false);
    only(&f, AnyEntity::Inst(i), "atomic.rmw: operation exch is not defined on bool");
    let (f, i) = mk(ScalarType::F32, Imm::Scope(Scope::Device), true);
    only(&f, AnyEntity::Inst(i), "atomic.cas: element type f32 is not a 32/64-bit integer");
    // Shared-memory atomics are fine; a value of the wrong type is not.
    let mut k = K::new();
    let sh = k.f.add_shared("s", ScalarType::U32, 8);
    let v = k.f.add_param("v", Type::I32, true);
    let body = k.body();
    let p = k.v(body, Opcode::SharedAddr, Imm::Shared(sh), &[], Type::Ptr(AddrSpace::Shared, ScalarType::U32));
    let i = k.i(body, Opcode::AtomicRmw, rmw(AtomicOp::Add), &[p, v], &[Type::U32]);
    k.ret();
    only(&k.f, AnyEntity::Inst(i), "atomic.rmw: operand 2 has type i32, expected u32");
}

#[test]
fn index_and_subgroup_types() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::F32, true);
    let i32v = k.f.add_param("i", Type::I32, true);
    let p = k.f.add_param("p", Type::BOOL, true);
    let buf = k.f.add_param("buf", Type::Ptr(AddrSpace::Global, ScalarType::F32), true);
    let body = k.body();
    let tid = k.i(body, Opcode::ThreadId, Imm::Dim(Dim::Y), &[], &[Type::I32]);
    let ssz = k.i(body, Opcode::SubgroupSize, Imm::None, &[], &[Type::U64]);
    let sh = k.i(body, Opcode::ShuffleXor, Imm::None, &[x, i32v], &[Type::F32]);
    let sh2 = k.i(body, Opcode::ShuffleIdx, Imm::None, &[buf, buf], &[Type::F32]);
    let bal = k.i(body, Opcode::Ballot, Imm::None, &[p], &[Type::U32]);
    let fnn = k.i(body, Opcode::BallotFirstN, Imm::Count(0), &[p], &[Type::U32]);
    let fn33 = k.i(body, Opcode::BallotFirstN, Imm::Count(33), &[p], &[Type::U32]);
    let va = k.i(body, Opcode::VoteAll, Imm::Tile(Tile::Full), &[x], &[Type::BOOL]);
    let ve = k.i(body, Opcode::VoteEq, Imm::Tile(Tile::Log2(7)), &[x], &[Type::BOOL]);
    let fine = k.i(body, Opcode::VoteAny, Imm::Tile(Tile::Log2(6)), &[p], &[Type::BOOL]);
    k.ret();
    has(&k.f, AnyEntity::Inst(tid), "thread_id: result has type i32, expected u32");
    has(&k.f, AnyEntity::Inst(ssz), "subgroup_size: result has type u64, expected u32");
    has(&k.f, AnyEntity::Inst(sh), "shuffle.xor: operand 2 has type i32, expected u32");
    has(&k.f, AnyEntity::Inst(sh2), "shuffle.idx: operand 1 has type ptr<global, f32>, expected a scalar type");
    has(&k.f, AnyEntity::Inst(bal), "ballot: result has type u32, expected u64");
    has(&k.f, AnyEntity::Inst(fnn), "ballot.first_n: count 0 is outside 1..=32");
    has(&k.f, AnyEntity::Inst(fn33), "ballot.first_n: count 33 is outside 1..=32");
    has(&k.f, AnyEntity::Inst(va), "vote.all: operand 1 has type f32, expected bool");
    has(&k.f, AnyEntity::Inst(ve), "vote.eq: tile log2 7 exceeds 6");
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(fine)));
    // One type error per instruction (the type rules stop at the first): `sh2`'s second operand
    // is not reported.
    assert_eq!(errors(&k.f).len(), 9);
}

#[test]
fn warp_builtin_types() {
    // match.* accept every scalar type and give u64.
    for t in ScalarType::ALL {
        for op in [Opcode::MatchAny, Opcode::MatchAll] {
            ok(&unop(op, Imm::None, t.into(), Type::U64).0);
        }
    }
    let ptr = Type::Ptr(AddrSpace::Global, ScalarType::U32);
    let (f, i) = unop(Opcode::MatchAny, Imm::None, ptr, Type::U64);
    only(&f, AnyEntity::Inst(i), "match.any: operand 1 has type ptr<global, u32>, expected a scalar type");
    let (f, i) = unop(Opcode::MatchAll, Imm::None, Type::U32, Type::U32);
    only(&f, AnyEntity::Inst(i), "match.all: result has type u32, expected u64");
    let (f, i) = unop(Opcode::MatchAny, Imm::Tile(Tile::Full), Type::U32, Type::U64);
    only(&f, AnyEntity::Inst(i), "match.any: immediate Tile(Full) does not fit; expected no immediate");
    // nanosleep takes a u32 and has no result.
    let (f, i) = unop(Opcode::Nanosleep, Imm::None, Type::U32, Type::U32);
    only(&f, AnyEntity::Inst(i), "nanosleep: expected 0 result(s), found 1");
    let mut k = K::new();
    let x = k.f.add_param("x", Type::U32, true);
    let y = k.f.add_param("y", Type::U64, true);
    let body = k.body();
    let good = k.i(body, Opcode::Nanosleep, Imm::None, &[x], &[]);
    let wide = k.i(body, Opcode::Nanosleep, Imm::None, &[y], &[]);
    let none = k.i(body, Opcode::Nanosleep, Imm::None, &[], &[]);
    // Masks are u64, elect is bool; none takes an operand.
    let mut bad = Vec::new();
    for op in [
        Opcode::ActiveMask,
        Opcode::LaneMaskLt,
        Opcode::LaneMaskLe,
        Opcode::LaneMaskEq,
        Opcode::LaneMaskGe,
        Opcode::LaneMaskGt,
    ] {
        k.i(body, op, Imm::None, &[], &[Type::U64]);
        bad.push((op, k.i(body, op, Imm::None, &[], &[Type::U32])));
    }
    k.i(body, Opcode::Elect, Imm::None, &[], &[Type::BOOL]);
    let el = k.i(body, Opcode::Elect, Imm::None, &[], &[Type::U32]);
    let el2 = k.i(body, Opcode::Elect, Imm::None, &[x], &[Type::BOOL]);
    let ma = k.i(body, Opcode::MatchAny, Imm::None, &[], &[Type::U64]);
    k.ret();
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(good)));
    has(&k.f, AnyEntity::Inst(wide), "nanosleep: operand 1 has type u64, expected u32");
    has(&k.f, AnyEntity::Inst(none), "nanosleep: expected 1 operand(s), found 0");
    for (op, i) in &bad {
        has(&k.f, AnyEntity::Inst(*i), &format!("{op}: result has type u32, expected u64"));
    }
    has(&k.f, AnyEntity::Inst(el), "elect: result has type u32, expected bool");
    has(&k.f, AnyEntity::Inst(el2), "elect: expected 0 operand(s), found 1");
    has(&k.f, AnyEntity::Inst(ma), "match.any: expected 1 operand(s), found 0");
    assert_eq!(errors(&k.f).len(), 6 + 5, "{}", VerifyErrors(errors(&k.f)));
}

#[test]
fn group_op_types() {
    let g = |op, inclusive| Imm::Group { op, tile: Tile::Full, inclusive };
    let (f, i) = unop(Opcode::SubgroupReduce, g(GroupOp::And, true), Type::F32, Type::F32);
    only(&f, AnyEntity::Inst(i), "subgroup.reduce: operator and is not defined on f32");
    let (f, i) = unop(Opcode::SubgroupReduce, g(GroupOp::Add, true), Type::BOOL, Type::BOOL);
    only(&f, AnyEntity::Inst(i), "subgroup.reduce: operator add is not defined on bool");
    let (f, i) = unop(Opcode::SubgroupReduce, g(GroupOp::Max, false), Type::U32, Type::U32);
    only(&f, AnyEntity::Inst(i), "subgroup.reduce: reductions are inclusive");
    let (f, _) = unop(Opcode::SubgroupScan, g(GroupOp::Max, false), Type::BOOL, Type::BOOL);
    ok(&f);
    let (f, i) = unop(Opcode::SubgroupScan, g(GroupOp::Mul, true), Type::F64, Type::F32);
    only(&f, AnyEntity::Inst(i), "subgroup.scan: result has type f32, expected f64");
    let (f, i) = binop(Opcode::SegmentedReduce, Type::F32, Type::BOOL, Type::F32);
    // binop gives Imm::None: the immediate does not fit the Group format.
    only(&f, AnyEntity::Inst(i), "subgroup.segreduce: immediate None does not fit; expected a group operator");
    let seg = |op, head: Type| {
        let mut k = K::new();
        let x = k.f.add_param("x", Type::F32, true);
        let h = k.f.add_param("h", head, true);
        let body = k.body();
        let i = k.i(body, Opcode::SegmentedReduce, g(op, true), &[x, h], &[Type::F32]);
        k.ret();
        (k.f, i)
    };
    ok(&seg(GroupOp::Min, Type::U32).0);
    ok(&seg(GroupOp::Add, Type::BOOL).0);
    let (f, i) = seg(GroupOp::Mul, Type::BOOL);
    only(&f, AnyEntity::Inst(i), "subgroup.segreduce: operator mul is not supported (add, min, max)");
    let (f, i) = seg(GroupOp::Add, Type::F32);
    only(&f, AnyEntity::Inst(i), "subgroup.segreduce: operand 2 has type f32, expected an integer or bool type");
}

#[test]
fn sync_pred_types() {
    let (f, _) = unop(Opcode::BlockSyncPred, Imm::Pred(PredOp::Count), Type::BOOL, Type::U32);
    ok(&f);
    let (f, i) = unop(Opcode::BlockSyncPred, Imm::Pred(PredOp::Count), Type::BOOL, Type::BOOL);
    only(&f, AnyEntity::Inst(i), "block.sync_pred: result has type bool, expected u32");
    let (f, i) = unop(Opcode::BlockSyncPred, Imm::Pred(PredOp::Or), Type::U32, Type::BOOL);
    only(&f, AnyEntity::Inst(i), "block.sync_pred: operand 1 has type u32, expected bool");
}

// ---------------------------------------------------------------- format / arity

#[test]
fn arity_and_immediates() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::U32, true);
    let body = k.body();
    let a3 = k.i(body, Opcode::Add, Imm::None, &[x, x, x], &[Type::U32]);
    let r2 = k.i(body, Opcode::Neg, Imm::None, &[x], &[Type::U32, Type::U32]);
    let st = k.i(body, Opcode::Store, Imm::None, &[x, x], &[Type::U32]);
    let im = k.i(body, Opcode::Add, Imm::Const(3), &[x, x], &[Type::U32]);
    let td = k.i(body, Opcode::ThreadId, Imm::None, &[], &[Type::U32]);
    let fe = k.i(body, Opcode::Fence, Imm::Scope(Scope::Block), &[], &[]);
    let ret = k.i(body, Opcode::Return, Imm::None, &[x], &[]);
    has(&k.f, AnyEntity::Inst(a3), "add: expected 2 operand(s), found 3");
    has(&k.f, AnyEntity::Inst(r2), "neg: expected 1 result(s), found 2");
    has(&k.f, AnyEntity::Inst(st), "store: expected 0 result(s), found 1");
    has(&k.f, AnyEntity::Inst(im), "add: immediate Const(3) does not fit; expected no immediate");
    has(&k.f, AnyEntity::Inst(td), "thread_id: immediate None does not fit; expected a dimension");
    has(&k.f, AnyEntity::Inst(ret), "return: expected 0 operand(s), found 1");
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(fe)));
    assert_eq!(errors(&k.f).len(), 6);
}

// ---------------------------------------------------------------- structure

#[test]
fn terminators() {
    let mut k = K::new();
    let body = k.body();
    let r1 = k.ret();
    let c = k.c(body, Type::U32, 1);
    let ci = match k.f.values[c].def {
        ValueDef::Result(i, _) => i,
        _ => r1,
    };
    has(&k.f, AnyEntity::Inst(r1), "return: terminator before the end of its region");
    has(&k.f, AnyEntity::Inst(ci), "const: the function body must end with `return`");

    let f = Function::new("empty");
    only(&f, AnyEntity::Function, "the function body is empty: it must end with `return`");

    let mut k = K::new();
    let (_, uni) = k.conds();
    let body = k.body();
    let (_, t, e) = k.if_(body, uni, &[], true);
    let last = k.i(t, Opcode::Const, Imm::Const(0), &[], &[Type::U32]);
    k.ret();
    let e = e.unwrap_or(t);
    has(&k.f, AnyEntity::Inst(last), "const: the last instruction of a region must be a terminator");
    has(&k.f, AnyEntity::Region(e), "is empty: it must end with a terminator");
    assert_eq!(errors(&k.f).len(), 2);
}

#[test]
fn yield_break_continue_placement() {
    let mut k = K::new();
    let (_, uni) = k.conds();
    let body = k.body();
    let z = k.c(body, Type::U32, 0);
    // break inside an if in the body: not in a loop
    let (_, t, _) = k.if_(body, uni, &[], false);
    let br = k.i(t, Opcode::Break, Imm::None, &[], &[]);
    // yield directly in a loop body
    let (_, lb, _) = k.loop_(body, &[], &[]);
    let y = k.i(lb, Opcode::Yield, Imm::None, &[], &[]);
    // continue in an if nested in a loop is fine; break nested in an inner loop's if refers to it
    let (_, ob, ps) = k.loop_(body, &[z], &[Type::U32]);
    let (_, ot, oe) = k.if_(ob, uni, &[], true);
    k.i(ot, Opcode::Continue, Imm::None, &[ps[0]], &[]);
    let (_, ib, _) = k.loop_(oe.unwrap_or(ot), &[], &[]);
    let (_, it, _) = k.if_(ib, uni, &[], false);
    let bad_break = k.i(it, Opcode::Break, Imm::None, &[ps[0]], &[]);
    k.i(ib, Opcode::Continue, Imm::None, &[], &[]);
    k.i(oe.unwrap_or(ot), Opcode::Yield, Imm::None, &[], &[]);
    k.i(ob, Opcode::Break, Imm::None, &[ps[0]], &[]);
    k.ret();
    has(&k.f, AnyEntity::Inst(br), "break: not inside a loop");
    has(&k.f, AnyEntity::Inst(y), "yield: not directly inside an `if` arm");
    has(&k.f, AnyEntity::Inst(bad_break), "break: 1 value(s) for 0 loop result(s)");
    assert_eq!(errors(&k.f).len(), 3, "{}", VerifyErrors(errors(&k.f)));
}

#[test]
fn yield_break_continue_types() {
    let mut k = K::new();
    let (_, uni) = k.conds();
    let body = k.body();
    let z = k.c(body, Type::U32, 0);
    let fz = k.c(body, Type::F32, 0);
    let (_, t, e) = k.if_(body, uni, &[Type::U32], true);
    let y1 = k.i(t, Opcode::Yield, Imm::None, &[fz], &[]);
    let y2 = k.i(e.unwrap_or(t), Opcode::Yield, Imm::None, &[], &[]);
    let (_, lb, _) = k.loop_(body, &[z], &[Type::U32]);
    let (_, lt, _) = k.if_(lb, uni, &[], false);
    let b1 = k.i(lt, Opcode::Break, Imm::None, &[fz], &[]);
    let c1 = k.i(lb, Opcode::Continue, Imm::None, &[fz], &[]);
    k.ret();
    has(&k.f, AnyEntity::Inst(y1), "yield: value 1 has type f32, expected u32 (`if` result)");
    has(&k.f, AnyEntity::Inst(y2), "yield: 0 value(s) for 1 `if` result(s)");
    has(&k.f, AnyEntity::Inst(b1), "break: value 1 has type f32, expected u32 (loop result)");
    has(&k.f, AnyEntity::Inst(c1), "continue: value 1 has type f32, expected u32 (loop parameter)");
    assert_eq!(errors(&k.f).len(), 4);
}

#[test]
fn if_and_loop_shapes() {
    let mut k = K::new();
    let (vary, uni) = k.conds();
    let body = k.body();
    let z = k.c(body, Type::U32, 0);
    let (i1, t1, _) = k.if_(body, uni, &[Type::U32], false);
    k.i(t1, Opcode::Yield, Imm::None, &[z], &[]);
    let i2 = k.i(body, Opcode::If, Imm::None, &[z], &[]);
    let arm = k.f.make_region();
    k.f.set_inst_regions(i2, None, Some(arm));
    k.i(arm, Opcode::Yield, Imm::None, &[], &[]);
    let (_, t3, _) = k.if_(body, vary, &[], false);
    k.f.add_region_param(t3, Type::U32);
    k.i(t3, Opcode::Yield, Imm::None, &[], &[]);
    let l1 = k.i(body, Opcode::Loop, Imm::None, &[z], &[]);
    let lb = k.f.make_region();
    let extra = k.f.make_region();
    k.f.set_inst_regions(l1, Some(lb), Some(extra));
    k.f.add_region_param(lb, Type::F32);
    k.f.add_region_param(lb, Type::U32);
    k.i(lb, Opcode::Break, Imm::None, &[], &[]);
    k.i(extra, Opcode::Break, Imm::None, &[], &[]);
    let l2 = k.i(body, Opcode::Loop, Imm::None, &[z], &[]);
    let lb2 = k.f.make_region();
    k.f.set_inst_regions(l2, Some(lb2), None);
    k.f.add_region_param(lb2, Type::F32);
    k.i(lb2, Opcode::Break, Imm::None, &[], &[]);
    let l3 = k.i(body, Opcode::Loop, Imm::None, &[], &[]);
    let add = k.i(body, Opcode::Add, Imm::None, &[z, z], &[Type::U32]);
    let junk = k.f.make_region();
    k.i(junk, Opcode::Return, Imm::None, &[], &[]);
    k.f.set_inst_regions(add, Some(junk), None);
    k.ret();
    has(&k.f, AnyEntity::Inst(i1), "if: an `if` with results must have an else region");
    has(&k.f, AnyEntity::Inst(i2), "if: missing then region");
    has(&k.f, AnyEntity::Inst(i2), "if: operand 1 has type u32, expected bool");
    has(&k.f, AnyEntity::Region(t3), "if: arm region");
    has(&k.f, AnyEntity::Inst(l1), "loop: a loop has exactly one region, found a second");
    has(&k.f, AnyEntity::Inst(l1), "loop: 1 value(s) for 2 body parameter(s)");
    has(&k.f, AnyEntity::Inst(l2), "loop: initial value 1 has type u32, expected f32 (body parameter)");
    has(&k.f, AnyEntity::Inst(l3), "loop: missing body region");
    has(&k.f, AnyEntity::Inst(add), "add: only `if` and `loop` own regions");
    assert_eq!(errors(&k.f).len(), 9, "{}", VerifyErrors(errors(&k.f)));
}

// ---------------------------------------------------------------- handles

#[test]
fn dangling_handles() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::U32, true);
    let body = k.body();
    let bad = Value::from_u32(999);
    let a = k.i(body, Opcode::Add, Imm::None, &[x, bad], &[Type::U32]);
    let i = k.i(body, Opcode::If, Imm::None, &[x], &[]);
    k.f.insts[i].regions[0] = Region::from_u32(77).into();
    k.f.append_inst(body, Inst::from_u32(555));
    k.ret();
    has(&k.f, AnyEntity::Inst(a), "add: operand 2 (%?999) does not exist");
    has(&k.f, AnyEntity::Inst(i), "if: region 0 (region77) does not exist");
    has(&k.f, AnyEntity::Function, "region0 lists inst555 at index 2, which does not exist");
    // Rendering a function the printer cannot print falls back to a list.
    let r = match verify_function(&k.f) {
        Err(e) => e.render(&k.f),
        Ok(_) => String::new(),
    };
    assert!(r.starts_with("kernel @k: cannot print the function"), "{r}");
    assert!(r.contains("error: add: operand 2 (%?999) does not exist (at inst0)"), "{r}");
}

#[test]
fn shared_regions_and_duplicate_insts() {
    let mut k = K::new();
    let (_, uni) = k.conds();
    let body = k.body();
    let (i1, t1, _) = k.if_(body, uni, &[], false);
    let y = k.i(t1, Opcode::Yield, Imm::None, &[], &[]);
    let i2 = k.i(body, Opcode::If, Imm::None, &[uni], &[]);
    k.f.insts[i2].regions[0] = t1.into();
    let i3 = k.i(body, Opcode::If, Imm::None, &[uni], &[]);
    let t3 = k.f.make_region();
    k.f.set_inst_regions(i3, Some(t3), None);
    k.f.append_inst(t3, y);
    let cyc = k.i(body, Opcode::Loop, Imm::None, &[], &[]);
    k.f.insts[cyc].regions[0] = body.into();
    k.ret();
    let _ = i1;
    has(&k.f, AnyEntity::Inst(i2), "if: region 0 (region1) is already the body or owned by another instruction");
    has(&k.f, AnyEntity::Inst(y), "yield: instruction is placed more than once (region1 index 0 and region2 index 0)");
    has(&k.f, AnyEntity::Inst(cyc), "loop: region 0 (region0) is already the body");
    assert_eq!(errors(&k.f).len(), 3, "{}", VerifyErrors(errors(&k.f)));
}

#[test]
fn definitions_and_parents() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::U32, true);
    let body = k.body();
    let a = k.i(body, Opcode::Add, Imm::None, &[x, x], &[Type::U32]);
    let av = k.f.inst_results(a)[0];
    // A second instruction claiming the same result value.
    let b = k.i(body, Opcode::Add, Imm::None, &[x, x], &[]);
    k.f.results[b] = EntityList::from_slice(&[av], &mut k.f.pool);
    let (vary, _) = k.conds();
    let (_, t, _) = k.if_(body, vary, &[], false);
    k.i(t, Opcode::Yield, Imm::None, &[], &[]);
    k.f.regions[t].parent = a.into();
    k.f.values[x].ty = Type::F32;
    k.ret();
    has(&k.f, AnyEntity::Inst(b), "add: result 0 (%1) records its definition as result 0 of inst0");
    has(&k.f, AnyEntity::Inst(b), "add: value %1 is defined more than once");
    has(&k.f, AnyEntity::Region(t), "region1: parent is inst0, expected inst6");
    has(&k.f, AnyEntity::Param(0), "parameter %x: its value has type f32, expected u32");
}

#[test]
fn foreign_value_lists_do_not_panic() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::U32, true);
    let body = k.body();
    let a = k.i(body, Opcode::Add, Imm::None, &[x, x], &[Type::U32]);
    k.ret();
    let mut other = ListPool::new();
    let mut big = EntityList::new();
    for _ in 0..64 {
        big = EntityList::from_slice(&[x; 9], &mut other);
    }
    k.f.insts[a].args = big;
    k.f.results[a] = big;
    k.f.regions[body].params = big;
    has(&k.f, AnyEntity::Inst(a), "add: operand list is not in the function's pool");
    has(&k.f, AnyEntity::Inst(a), "add: result list is not in the function's pool");
    has(&k.f, AnyEntity::Function, "region0: parameter list is not in the function's pool");
    let r = match verify_function(&k.f) {
        Err(e) => e.render(&k.f),
        Ok(_) => String::new(),
    };
    assert!(r.ends_with("3 verifier error(s)\n"), "{r}");
}

// ---------------------------------------------------------------- dominance

#[test]
fn dominance() {
    let mut k = K::new();
    let (vary, _) = k.conds();
    let body = k.body();
    // use before definition in the same region
    let early = k.f.make_inst(Opcode::Const, Imm::Const(1), &[], &[Type::U32]);
    let ev = k.f.inst_results(early)[0];
    let use_early = k.i(body, Opcode::Add, Imm::None, &[ev, ev], &[Type::U32]);
    k.f.append_inst(body, early);
    // then-arm value used in the else arm and after the if
    let (_, t, e) = k.if_(body, vary, &[], true);
    let tv = k.v(t, Opcode::Const, Imm::Const(2), &[], Type::U32);
    k.i(t, Opcode::Yield, Imm::None, &[], &[]);
    let e = e.unwrap_or(t);
    let in_else = k.i(e, Opcode::Neg, Imm::None, &[tv], &[Type::U32]);
    k.i(e, Opcode::Yield, Imm::None, &[], &[]);
    let after = k.i(body, Opcode::Neg, Imm::None, &[tv], &[Type::U32]);
    // loop parameter used after the loop
    let (_, lb, ps) = k.loop_(body, &[ev], &[]);
    k.i(lb, Opcode::Break, Imm::None, &[], &[]);
    let lp_after = k.i(body, Opcode::Neg, Imm::None, &[ps[0]], &[Type::U32]);
    // result of a detached instruction
    let loose = k.f.make_inst(Opcode::Const, Imm::Const(3), &[], &[Type::U32]);
    let lv = k.f.inst_results(loose)[0];
    let use_loose = k.i(body, Opcode::Neg, Imm::None, &[lv], &[Type::U32]);
    k.ret();
    has(&k.f, AnyEntity::Inst(use_early), "add: operand 1 (%5) is used where its definition does not dominate");
    has(&k.f, AnyEntity::Inst(use_early), "add: operand 2 (%5)");
    has(&k.f, AnyEntity::Inst(in_else), "neg: operand 1 (%6) is used where its definition does not dominate");
    has(&k.f, AnyEntity::Inst(after), "neg: operand 1 (%6)");
    has(&k.f, AnyEntity::Inst(lp_after), "neg: operand 1 (%9) is used where");
    has(&k.f, AnyEntity::Inst(use_loose), "is not defined in the function body");
    assert_eq!(errors(&k.f).len(), 6, "{}", VerifyErrors(errors(&k.f)));
}

// ---------------------------------------------------------------- SIMT rules

#[test]
fn barrier_under_varying_if() {
    let mut k = K::new();
    let (vary, uni) = k.conds();
    let body = k.body();
    let (_, t, _) = k.if_(body, uni, &[], false);
    k.i(t, Opcode::BlockSync, Imm::None, &[], &[]);
    k.i(t, Opcode::Yield, Imm::None, &[], &[]);
    let (_, t, _) = k.if_(body, vary, &[], false);
    let (_, t2, _) = k.if_(t, uni, &[], false);
    let p = k.c(t2, Type::BOOL, 1);
    let s = k.i(t2, Opcode::BlockSyncPred, Imm::Pred(PredOp::And), &[p], &[Type::BOOL]);
    k.i(t2, Opcode::Yield, Imm::None, &[], &[]);
    k.i(t, Opcode::Yield, Imm::None, &[], &[]);
    k.ret();
    // %0 = thread_id, %1 = const, %2 = cmp (varying), %3 = cmp (uniform)
    only(
        &k.f,
        AnyEntity::Inst(s),
        "block.sync_pred: block barrier in divergent control flow (condition %2 is varying)",
    );
}

#[test]
fn barrier_in_loop_with_divergent_exit() {
    let mut k = K::new();
    let (vary, _) = k.conds();
    let body = k.body();
    let (_, lb, _) = k.loop_(body, &[], &[]);
    let (_, t, _) = k.if_(lb, vary, &[], false);
    k.i(t, Opcode::Break, Imm::None, &[], &[]);
    let s = k.i(lb, Opcode::BlockSync, Imm::None, &[], &[]);
    k.i(lb, Opcode::Continue, Imm::None, &[], &[]);
    let after = k.i(body, Opcode::BlockSync, Imm::None, &[], &[]);
    k.ret();
    only(&k.f, AnyEntity::Inst(s), "block.sync: block barrier in divergent control flow (condition %2 is varying)");
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(after)));
}

#[test]
fn barrier_after_divergent_return_is_fine() {
    let mut k = K::new();
    let (vary, _) = k.conds();
    let body = k.body();
    let (_, t, _) = k.if_(body, vary, &[], false);
    k.i(t, Opcode::Return, Imm::None, &[], &[]);
    k.i(body, Opcode::BlockSync, Imm::None, &[], &[]);
    k.ret();
    ok(&k.f);
}

#[test]
fn broadcast_lane_must_be_uniform() {
    let mut k = K::new();
    let x = k.f.add_param("x", Type::F32, false);
    let body = k.body();
    let lane = k.v(body, Opcode::LaneId, Imm::None, &[], Type::U32);
    let b = k.i(body, Opcode::Broadcast, Imm::None, &[x, lane], &[Type::F32]);
    let sz = k.v(body, Opcode::SubgroupSize, Imm::None, &[], Type::U32);
    let b2 = k.i(body, Opcode::Broadcast, Imm::None, &[x, sz], &[Type::F32]);
    k.ret();
    only(&k.f, AnyEntity::Inst(b), "broadcast: lane operand %0 is varying; it must be uniform");
    assert!(!errors(&k.f).iter().any(|e| e.location == AnyEntity::Inst(b2)));
}

// ---------------------------------------------------------------- launch / header

#[test]
fn launch_config_and_params() {
    let mut k = K::new();
    k.f.add_param("a", Type::U32, true);
    k.f.add_param("a", Type::Ptr(AddrSpace::Shared, ScalarType::U32), true);
    k.f.add_param("f", Type::F32, true);
    k.f.launch = LaunchConfig { block: [0, 2048, 1], grid: GridPolicy::Cover(2), subgroup_size: None };
    let s0 = k.f.add_shared("s", ScalarType::F64, 0);
    let s1 = k.f.add_shared("s", ScalarType::F64, 9000);
    k.ret();
    has(&k.f, AnyEntity::Function, "launch: block dimension x is 0, it must be at least 1");
    has(&k.f, AnyEntity::Function, "launch: grid(cover %f) needs a scalar integer parameter, found f32");
    has(&k.f, AnyEntity::Param(1), "parameter %a: name already used");
    has(&k.f, AnyEntity::Param(1), "parameter %a: type ptr<shared, u32> is not allowed");
    has(&k.f, AnyEntity::Shared(s0), "shared @s: length must be at least 1");
    has(&k.f, AnyEntity::Shared(s1), "shared @s: name already used");
    has(&k.f, AnyEntity::Function, "shared memory: 72000 bytes declared, at most 65536 allowed");
    assert_eq!(errors(&k.f).len(), 7, "{}", VerifyErrors(errors(&k.f)));

    let mut k = K::new();
    k.f.launch = LaunchConfig { block: [32, 32, 2], grid: GridPolicy::Cover(5), subgroup_size: None };
    k.ret();
    has(&k.f, AnyEntity::Function, "launch: block has 2048 threads, at most 1024 allowed");
    has(&k.f, AnyEntity::Function, "launch: grid(cover) names parameter 5, which does not exist");
}

// ---------------------------------------------------------------- rendering

#[test]
fn render_annotates_lines() {
    let (f, _) = binop(Opcode::Add, Type::U32, Type::F32, Type::U32);
    let r = match verify_function(&f) {
        Err(e) => e.render(&f),
        Ok(_) => String::new(),
    };
    let want = "kernel @k(%x: u32 uniform, %y: f32 uniform) block(1, 1, 1) grid(1, 1, 1) {\n  \
                %0 = add %x, %y : u32\n  \
                ; ^ error: add: operand 2 has type f32, expected u32 (operand 2 is %y)\n  \
                return\n}\n1 verifier error(s)\n";
    assert_eq!(r, want);
}

// ---------------------------------------------------------------- modules

fn simple_kernel(name: &str, params: &[Type]) -> Function {
    let mut k = K::new();
    k.f.name = name.into();
    for (i, &t) in params.iter().enumerate() {
        k.f.add_param(format!("p{i}"), t, true);
    }
    k.ret();
    k.f
}

#[test]
fn module_checks() {
    let buf = Type::Ptr(AddrSpace::Global, ScalarType::U32);
    let mut m = Module::default();
    m.kernels.push(simple_kernel("a", &[buf, Type::U32]));
    m.kernels.push(simple_kernel("a", &[]));
    let mut bad = simple_kernel("bad", &[]);
    bad.launch.block = [0, 1, 1];
    m.kernels.push(bad);
    let launch = |k: &str, args: Vec<LaunchArg>| Launch { kernel: k.into(), args };
    m.programs.push(Program {
        name: "p".into(),
        status: None,
        checks: vec![],
        params: vec![
            ProgramParam { name: "b".into(), ty: buf },
            ProgramParam { name: "s".into(), ty: Type::Ptr(AddrSpace::Shared, ScalarType::U32) },
            ProgramParam { name: "f".into(), ty: Type::F32 },
        ],
        launches: vec![
            launch("a", vec![LaunchArg::Param(0), LaunchArg::Const(ScalarType::U32, 7)]),
            launch("nope", vec![]),
            launch("a", vec![LaunchArg::Param(0)]),
            launch("a", vec![LaunchArg::Param(2), LaunchArg::Param(9)]),
            launch("a", vec![LaunchArg::Param(0), LaunchArg::Const(ScalarType::I32, 1 << 33)]),
        ],
    });
    m.programs.push(Program::new("p"));
    let e = match verify_module(&m) {
        Err(e) => e,
        Ok(()) => ModuleErrors::default(),
    };
    let pe = e.program_errors();
    let want = [
        "kernel @a: name already used",
        "program @p: name already used",
        "program @p: parameter %s: type ptr<shared, u32> is not allowed",
        "program @p: launch 1 of @nope: no kernel @nope",
        "program @p: launch 2 of @a: 1 argument(s) for 2 parameter(s)",
        "program @p: launch 3 of @a: argument 0 (%f) has type f32, parameter %p0 has type ptr<global, u32>",
        "program @p: launch 3 of @a: argument 1 names program parameter 9, which does not exist",
        "program @p: launch 4 of @a: argument 1 is a i32 constant, parameter %p1 has type u32",
        "program @p: launch 4 of @a: argument 1: bits 0x200000000 are not canonical for i32",
    ];
    for w in want {
        assert!(pe.iter().any(|m| m.contains(w)), "missing {w:?} in {pe:#?}");
    }
    assert_eq!(pe.len(), want.len(), "{pe:#?}");
    assert_eq!(e.kernels.len(), 1);
    assert_eq!(e.kernels[0].name, "bad");
    assert_eq!(e.kernels[0].index, 2);
    let shown = e.to_string();
    assert!(shown.contains("; ^ error: launch: block dimension x is 0"), "{shown}");
    assert!(shown.ends_with("10 verifier error(s) in the module"), "{shown}");

    let mut good = Module::default();
    good.kernels.push(simple_kernel("a", &[buf, Type::U32]));
    good.programs.push(Program {
        name: "p".into(),
        status: None,
        checks: vec![],
        params: vec![ProgramParam { name: "b".into(), ty: buf }],
        launches: vec![launch("a", vec![LaunchArg::Param(0), LaunchArg::Const(ScalarType::U32, 7)])],
    });
    assert_eq!(verify_module(&good), Ok(()));
}
