//! Every error path of the builder: each misuse returns a `BuildError` (never a panic) whose
//! location is the line of the offending call in THIS file, with a message naming the op and the
//! types involved.

use qd_frontend::{
    AtomicOp, BuildError, Dim, ErrorKind, FunctionBuilderContext, GroupOp, KernelBuilder, PredOp, ProgramArg,
    ProgramBuilder, ScalarType, Scope, Tile, Type,
};

/// Pairs a builder call with the line it is written on (`line!()` of a macro is the line of its
/// invocation, where the call's tokens are too).
macro_rules! at {
    ($call:expr) => {
        ($call, line!())
    };
}

/// Checks kind, location (this file, `line`) and that the message contains `needle`.
#[track_caller]
fn check<T: std::fmt::Debug>((r, line): (Result<T, BuildError>, u32), kind: ErrorKind, needle: &str) {
    let e = r.expect_err("expected a build error");
    assert!(e.location.file().ends_with("errors.rs"), "location {} is not in errors.rs", e.location);
    assert_eq!(e.location.line(), line, "wrong line for {e}");
    assert_eq!(e.kind, kind, "wrong kind for {e}");
    assert!(e.message.contains(needle), "message {:?} lacks {needle:?}", e.message);
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("{}:{line}:", e.location.file())), "{shown}");
    assert!(shown.ends_with(&e.message), "{shown}");
}

/// Runs `f` on a fresh builder with a few values ready.
fn with_builder(f: impl FnOnce(&mut KernelBuilder<'_>, Vals)) {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "k");
    let v = Vals {
        u: b.const_u32(1).unwrap(),
        i: b.const_i32(1).unwrap(),
        f: b.const_f32(1.0).unwrap(),
        d: b.const_f64(1.0).unwrap(),
        t: b.const_bool(true).unwrap(),
        buf: b.buffer("buf", ScalarType::F32),
        ibuf: b.buffer("ibuf", ScalarType::I32),
    };
    f(&mut b, v);
}

#[derive(Copy, Clone)]
struct Vals {
    u: qd_frontend::Val,
    i: qd_frontend::Val,
    f: qd_frontend::Val,
    d: qd_frontend::Val,
    t: qd_frontend::Val,
    buf: qd_frontend::Buf,
    ibuf: qd_frontend::Buf,
}

use ErrorKind::*;

#[test]
fn arithmetic_type_errors() {
    with_builder(|b, v| {
        check(at!(b.add(v.u, v.f)), TypeMismatch, "add: operand 2 has type f32, expected u32");
        check(at!(b.sub(v.i, v.u)), TypeMismatch, "sub: operand 2 has type u32, expected i32");
        check(at!(b.mul(v.t, v.t)), TypeMismatch, "mul: operand 1 has type bool, expected a numeric type");
        check(
            at!(b.div(v.buf.ptr(), v.buf.ptr())),
            TypeMismatch,
            "div: operand 1 has type ptr<global, f32>, expected a numeric type",
        );
        check(at!(b.rem(v.f, v.d)), TypeMismatch, "rem: operand 2 has type f64, expected f32");
        check(at!(b.min(v.t, v.t)), TypeMismatch, "min: operand 1 has type bool, expected a numeric type");
        check(at!(b.max(v.u, v.i)), TypeMismatch, "max: operand 2 has type i32, expected u32");
        check(at!(b.and(v.f, v.f)), TypeMismatch, "and: operand 1 has type f32, expected an integer or bool type");
        check(at!(b.or(v.d, v.d)), TypeMismatch, "or: operand 1 has type f64, expected an integer or bool type");
        check(at!(b.xor(v.t, v.u)), TypeMismatch, "xor: operand 2 has type u32, expected bool");
        check(at!(b.shl(v.t, v.t)), TypeMismatch, "shl: operand 1 has type bool, expected an integer type");
        check(at!(b.shr(v.u, v.i)), TypeMismatch, "shr: operand 2 has type i32, expected u32");
        check(at!(b.neg(v.t)), TypeMismatch, "neg: operand 1 has type bool, expected a numeric type");
        check(at!(b.abs(v.t)), TypeMismatch, "abs: operand 1 has type bool, expected a numeric type");
        check(at!(b.not(v.f)), TypeMismatch, "not: operand 1 has type f32, expected an integer or bool type");
        check(at!(b.sqrt(v.u)), TypeMismatch, "sqrt: operand 1 has type u32, expected a float type");
        check(at!(b.clz(v.f)), TypeMismatch, "clz: operand 1 has type f32, expected an integer type");
        check(at!(b.popcount(v.t)), TypeMismatch, "popcount: operand 1 has type bool, expected an integer type");
        check(at!(b.bitrev(v.d)), TypeMismatch, "bitrev: operand 1 has type f64, expected an integer type");
        check(at!(b.fma(v.f, v.f, v.d)), TypeMismatch, "fma: operand 3 has type f64, expected f32");
        check(at!(b.fma(v.u, v.u, v.u)), TypeMismatch, "fma: operand 1 has type u32, expected a float type");
        check(at!(b.select(v.u, v.f, v.f)), TypeMismatch, "select: operand 1 has type u32, expected bool");
        check(at!(b.select(v.t, v.f, v.u)), TypeMismatch, "select: operand 3 has type u32, expected f32");
        check(at!(b.lt(v.t, v.t)), TypeMismatch, "cmp: condition lt is not defined on bool (only eq, ne)");
        check(at!(b.eq(v.f, v.u)), TypeMismatch, "cmp: operand 2 has type u32, expected f32");
        check(
            at!(b.cast(v.buf.ptr(), ScalarType::U32)),
            TypeMismatch,
            "cast: operand 1 has type ptr<global, f32>, expected a scalar type",
        );
        check(
            at!(b.bitcast(v.f, ScalarType::U64)),
            TypeMismatch,
            "bitcast: result type u64 has 64 bits, operand type f32 has 32",
        );
        check(
            at!(b.bitcast(v.u, ScalarType::Bool)),
            TypeMismatch,
            "bitcast: result has type bool, expected a non-bool scalar type",
        );
    });
}

#[test]
fn memory_errors() {
    with_builder(|b, v| {
        check(at!(b.load(v.buf, v.f)), TypeMismatch, "ptr.offset: operand 2 has type f32, expected an integer type");
        check(at!(b.store(v.buf, v.u, v.u)), TypeMismatch, "store: operand 2 has type u32, expected f32");
        check(at!(b.load_ptr(v.u)), TypeMismatch, "load: operand 1 has type u32, expected a pointer");
        check(at!(b.store_ptr(v.buf.ptr(), v.d)), TypeMismatch, "store: operand 2 has type f64, expected f32");
        check(at!(b.ptr_offset(v.f, v.u)), TypeMismatch, "ptr.offset: operand 1 has type f32, expected a pointer");
        check(
            at!(b.atomic_rmw(AtomicOp::And, Scope::Device, v.buf, v.u, v.f)),
            TypeMismatch,
            "atomic.rmw: operation and is not defined on f32",
        );
        check(
            at!(b.atomic_rmw(AtomicOp::Add, Scope::Device, v.ibuf, v.u, v.u)),
            TypeMismatch,
            "atomic.rmw: operand 2 has type u32, expected i32",
        );
        check(
            at!(b.atomic_rmw_ptr(AtomicOp::Exch, Scope::Block, v.u, v.u)),
            TypeMismatch,
            "atomic.rmw: operand 1 has type u32, expected a pointer",
        );
        check(
            at!(b.atomic_cas(Scope::Device, v.buf, v.u, v.f, v.f)),
            TypeMismatch,
            "atomic.cas: element type f32 is not a 32/64-bit integer",
        );
        check(
            at!(b.atomic_cas_ptr(Scope::Device, v.ibuf.ptr(), v.i, v.u)),
            TypeMismatch,
            "atomic.cas: operand 3 has type u32, expected i32",
        );
    });
}

#[test]
fn simt_errors() {
    with_builder(|b, v| {
        check(at!(b.shuffle_idx(v.f, v.i)), TypeMismatch, "shuffle.idx: operand 2 has type i32, expected u32");
        check(at!(b.shuffle_up(v.f, v.f)), TypeMismatch, "shuffle.up: operand 2 has type f32, expected u32");
        check(
            at!(b.shuffle_down(v.buf.ptr(), v.u)),
            TypeMismatch,
            "shuffle.down: operand 1 has type ptr<global, f32>, expected a scalar type",
        );
        check(at!(b.shuffle_xor(v.u, v.t)), TypeMismatch, "shuffle.xor: operand 2 has type bool, expected u32");
        check(at!(b.broadcast(v.u, v.i)), TypeMismatch, "broadcast: operand 2 has type i32, expected u32");
        check(at!(b.ballot(v.u)), TypeMismatch, "ballot: operand 1 has type u32, expected bool");
        check(at!(b.ballot_first_n(0, v.t)), OutOfRange, "ballot.first_n: count 0 is outside 1..=32");
        check(at!(b.ballot_first_n(33, v.t)), OutOfRange, "ballot.first_n: count 33 is outside 1..=32");
        check(at!(b.vote_all(Tile::Full, v.u)), TypeMismatch, "vote.all: operand 1 has type u32, expected bool");
        check(at!(b.vote_any(Tile::Log2(7), v.t)), OutOfRange, "vote.any: tile log2 7 exceeds 6");
        check(
            at!(b.vote_eq(Tile::Full, v.buf.ptr())),
            TypeMismatch,
            "vote.eq: operand 1 has type ptr<global, f32>, expected a scalar type",
        );
        check(
            at!(b.subgroup_reduce(GroupOp::Xor, Tile::Full, v.f)),
            TypeMismatch,
            "subgroup.reduce: operator xor is not defined on f32",
        );
        check(
            at!(b.subgroup_reduce(GroupOp::Add, Tile::Log2(9), v.f)),
            OutOfRange,
            "subgroup.reduce: tile log2 9 exceeds 6",
        );
        check(
            at!(b.subgroup_scan(GroupOp::And, Tile::Full, true, v.d)),
            TypeMismatch,
            "subgroup.scan: operator and is not defined on f64",
        );
        check(
            at!(b.segmented_reduce(GroupOp::Add, Tile::Full, v.u, v.f)),
            TypeMismatch,
            "subgroup.segreduce: operand 2 has type f32, expected an integer or bool type",
        );
        check(
            at!(b.match_any(v.buf.ptr())),
            TypeMismatch,
            "match.any: operand 1 has type ptr<global, f32>, expected a scalar type",
        );
        check(
            at!(b.match_all(v.ibuf.ptr())),
            TypeMismatch,
            "match.all: operand 1 has type ptr<global, i32>, expected a scalar type",
        );
        check(at!(b.nanosleep(v.i)), TypeMismatch, "nanosleep: operand 1 has type i32, expected u32");
        check(at!(b.nanosleep(v.f)), TypeMismatch, "nanosleep: operand 1 has type f32, expected u32");
        check(
            at!(b.block_sync_pred(PredOp::And, v.u)),
            TypeMismatch,
            "block.sync_pred: operand 1 has type u32, expected bool",
        );
    });
}

#[test]
fn control_flow_errors() {
    with_builder(|b, v| {
        check(at!(b.if_then(v.u, |_| Ok(()))), TypeMismatch, "if: operand 1 has type u32, expected bool");
        check(at!(b.break_()), NotInLoop, "break: not inside a loop");
        check(at!(b.continue_()), NotInLoop, "continue: not inside a loop");
        check(
            at!(b.for_range(v.u, v.i, None, |_, _| Ok(()))),
            TypeMismatch,
            "for_range: start and end must have the same integer type, got u32 and i32",
        );
        check(
            at!(b.for_range(v.f, v.f, None, |_, _| Ok(()))),
            TypeMismatch,
            "for_range: start and end must have the same integer type",
        );
        check(
            at!(b.for_range(v.u, v.u, Some(v.i), |_, _| Ok(()))),
            TypeMismatch,
            "for_range: step has type i32 but the range is u32",
        );
        check(
            at!(b.parallel_for(v.f, |_, _| Ok(()))),
            TypeMismatch,
            "parallel_for: the count must be an integer, got f32",
        );
        // an error inside a closure is reported at its own line and propagates out
        let mut inner = 0;
        let r = b.if_then(v.t, |b| {
            inner = line!() + 1;
            b.add(v.u, v.f).map(|_| ())
        });
        check((r, inner), TypeMismatch, "add: operand 2 has type");
        // ... and the builder is still usable afterwards
        b.if_then(v.t, |b| b.fence(Scope::Block)).unwrap();
        // ops after a region ended
        let mut after = 0;
        let r = b.loop_(|b| {
            b.break_()?;
            after = line!() + 1;
            b.const_u32(3).map(|_| ())
        });
        check((r, after), RegionEnded, "const: the current region already ended");
        let mut after = 0;
        let r = b.loop_(|b| {
            b.continue_()?;
            after = line!() + 1;
            b.if_then(v.t, |_| Ok(()))
        });
        check((r, after), RegionEnded, "if: the current region already ended");
        b.return_().unwrap();
        check(at!(b.return_()), RegionEnded, "return: the current region already ended");
        check(at!(b.loop_(|_| Ok(()))), RegionEnded, "loop: the current region already ended");
    });
}

#[test]
fn visibility_and_foreign_handles() {
    let mut ctx = FunctionBuilderContext::new();
    let mut other_ctx = FunctionBuilderContext::new();
    let mut other = KernelBuilder::new(&mut other_ctx, "other");
    let foreign = other.const_u32(1).unwrap();
    let foreign_var = other.declare_var(ScalarType::U32);
    let mut b = KernelBuilder::new(&mut ctx, "k");
    let one = b.const_u32(1).unwrap();
    check(at!(b.add(one, foreign)), ForeignHandle, "add: a u32 value made by another kernel builder");
    check(
        at!(b.use_var(foreign_var)),
        ForeignHandle,
        "use_var: variable v0 (u32) was declared by another kernel builder",
    );
    let t = b.const_bool(true).unwrap();
    let mut escaped = None;
    b.if_then(t, |b| {
        escaped = Some(b.const_f32(2.0)?);
        Ok(())
    })
    .unwrap();
    let escaped = escaped.unwrap();
    check(at!(b.neg(escaped)), NotVisible, "neg: a f32 value is used outside the region that defines it");
    let mut in_loop = None;
    b.loop_(|b| {
        in_loop = Some(b.lane_id()?);
        b.break_()
    })
    .unwrap();
    check(at!(b.add(one, in_loop.unwrap())), NotVisible, "add: a u32 value is used outside the region");
    let v = b.declare_var(ScalarType::F32);
    check(at!(b.def_var(v, escaped)), NotVisible, "def_var: a f32 value is used outside");
    // a value from a previous kernel built with the same context
    let f = b.finish().unwrap();
    assert_eq!(f.name, "k");
    let mut b = KernelBuilder::new(&mut ctx, "k2");
    check(at!(b.neg(one)), ForeignHandle, "neg: a u32 value made by another kernel builder");
    let _ = other.finish().unwrap();
}

#[test]
fn variable_errors() {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "k");
    let v = b.declare_var(ScalarType::U32);
    let w = b.declare_named_var("count", Type::I64);
    let f = b.const_f32(1.0).unwrap();
    check(at!(b.use_var(v)), UndefinedVar, "use_var: variable v0 (u32) is used before it is defined on some path");
    check(at!(b.def_var(w, f)), TypeMismatch, "def_var: variable `count` (v1) has type i64 but the value has type f32");
    // defined in one arm only, with no definition before: undefined after the `if`
    let t = b.const_bool(true).unwrap();
    b.if_then(t, |b| {
        let x = b.const_u32(5)?;
        b.def_var(v, x)
    })
    .unwrap();
    check(at!(b.use_var(v)), UndefinedVar, "variable v0 (u32) is used before it is defined");
    // read in a loop before any definition outside of it: reported inside the loop
    let mut at = 0;
    let r = b.loop_(|b| {
        at = line!() + 1;
        let c = b.use_var(w)?;
        b.def_var(w, c)?;
        b.break_()
    });
    check((r, at), UndefinedVar, "use_var: variable `count` (v1) (i64) is used before it is defined");
    // defined in both arms: fine
    b.if_then_else(t, |b| b.def_var(v, f).or(Ok(())), |_| Ok(())).unwrap();
    let k = b.finish().unwrap();
    assert_eq!(k.name, "k");
}

#[test]
fn configuration_errors() {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "k");
    check(at!(b.set_block_dim([0, 1, 1])), OutOfRange, "set_block_dim: block [0, 1, 1] must have every dimension >= 1");
    check(at!(b.set_block_dim([2048, 1, 1])), OutOfRange, "at most 1024 threads");
    check(at!(b.grid_fixed(0)), OutOfRange, "grid_fixed: grid [0, 1, 1]");
    let x = b.scalar("x", ScalarType::F64);
    check(at!(b.grid_cover(x)), Config, "grid_cover: expected a scalar integer kernel parameter, got a f64 value");
    let line = line!() + 1;
    let _ = b.buffer("9lives", ScalarType::U32);
    check((b.finish(), line), Config, "buffer: name \"9lives\" is not an identifier");

    let line = line!() + 1;
    let b = KernelBuilder::new(&mut ctx, "not a name");
    check((b.finish(), line), Config, "kernel name \"not a name\" is not an identifier");

    let mut b = KernelBuilder::new(&mut ctx, "k");
    let _ = b.shared_array("s", ScalarType::U32, 4);
    let line = line!() + 1;
    let _ = b.shared_array("s", ScalarType::U32, 4);
    check((b.finish(), line), Config, "shared_array: kernel @k already has a shared array @s");

    let mut b = KernelBuilder::new(&mut ctx, "k");
    let line = line!() + 1;
    let _ = b.shared_array("z", ScalarType::U32, 0);
    check((b.finish(), line), OutOfRange, "shared_array @z: length must be at least 1");
}

#[test]
fn program_errors() {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "fill");
    let buf = b.buffer("buf", ScalarType::U32);
    let n = b.scalar("n", ScalarType::U32);
    b.parallel_for(n, |b, i| b.store(buf, i, i)).unwrap();
    let fill = b.finish().unwrap();
    let mut b = KernelBuilder::new(&mut ctx, "fill");
    let _ = b.buffer("buf", ScalarType::U32);
    let _ = b.scalar("n", ScalarType::U32);
    let other_fill = b.finish().unwrap();

    let mut p = ProgramBuilder::new("prog");
    let data = p.buffer("data", ScalarType::U32);
    let fdata = p.buffer("fdata", ScalarType::F32);
    let count = p.scalar("count", ScalarType::U32);
    check(at!(p.launch("fill", &[data, count])), Program, "launch @fill: no such kernel in program @prog");
    check(at!(p.launch(&fill, &[data])), Program, "launch @fill: expects 2 argument(s), got 1");
    check(
        at!(p.launch(&fill, &[fdata, count])),
        Program,
        "launch @fill argument 0 (%buf): expected ptr<global, u32>, got program parameter of type ptr<global, f32>",
    );
    check(
        at!(p.launch(&fill, &[data, ProgramArg::i32(4)])),
        Program,
        "argument 1 (%n): expected u32, got a i32 constant",
    );
    check(
        at!(p.launch(&fill, &[ProgramArg::u32(1), count])),
        Program,
        "argument 0 (%buf): expected ptr<global, u32>, got a u32 constant",
    );
    check(at!(p.launch(&other_fill, &[data, count])), Program, "program @prog: two different kernels are named @fill");
    let mut q = ProgramBuilder::new("q");
    let foreign = q.buffer("data", ScalarType::U32);
    check(at!(p.launch(&fill, &[foreign, count])), Program, "the parameter belongs to another program builder");
    p.launch(&fill, &[data, count]).unwrap();

    let line = line!() + 1;
    let _ = q.scalar("data", ScalarType::U32);
    check((q.finish(), line), Config, "scalar: program @q already has a parameter %data");
    let line = line!() + 1;
    let r = ProgramBuilder::new("1x");
    check((r.finish(), line), Config, "program name \"1x\" is not an identifier");
}

#[test]
fn finish_runs_the_verifier() {
    // A block barrier under a thread-dependent condition is legal to build op by op, but the
    // finished kernel breaks the SIMT rule the verifier checks: `finish` reports it at its caller.
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "k");
    let t = b.thread_id(Dim::X).unwrap();
    let zero = b.const_u32(0).unwrap();
    let c = b.eq(t, zero).unwrap();
    b.if_then(c, |b| b.block_sync()).unwrap();
    check(at!(b.finish()), Verify, "block barrier in divergent control flow");
}
