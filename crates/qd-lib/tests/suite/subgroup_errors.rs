//! Bad input to `qd_lib::subgroup` and what the functions emit: every check is a `BuildError` at
//! the caller's line (asserted with `line!()`) with a message naming the op and the problem — a
//! tile wider than the subgroup, `ballot_first_n` n outside 1..=32, an unsupported dtype, a float
//! bitwise scan, a segmented `log2_size > 6`, a non-integer predicate / lane / head flag, a
//! per-lane `broadcast` index, a missing width — and builtin reductions, scans, segmented
//! reductions and votes are the MIR collectives (no hand-built shuffle trees).

use crate::harness::{Outcome, Suite};
use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType, Val};
use qd_lib::subgroup as sg;
use qd_mir::text::print_function;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    s.case("subgroup::errors/wide_tile", |_| wide_tile());
    s.case("subgroup::errors/ballot_first_n_range", |_| ballot_first_n_range());
    s.case("subgroup::errors/dtype", |_| bad_dtype());
    s.case("subgroup::errors/float_bitwise", |_| float_bitwise());
    s.case("subgroup::errors/segmented_log2", |_| segmented_log2());
    s.case("subgroup::errors/operands", |_| operands());
    s.case("subgroup::errors/broadcast_uniform", |_| broadcast_uniform());
    s.case("subgroup::errors/no_width", |_| no_width());
    s.case("subgroup::errors/custom_op_type", |_| custom_op_type());
    s.case("subgroup::mir/collectives", |_| collectives());
}

/// Checks that `r` failed at `line` of this file with every one of `needles` in its message.
fn expect<T>(r: Result<T, BuildError>, line: u32, needles: &[&str]) -> Outcome {
    match r {
        Ok(_) => Err(format!("line {line}: expected an error containing {needles:?}")),
        Err(e) => {
            if e.location.line() != line || !e.location.file().ends_with("subgroup_errors.rs") {
                return Err(format!(
                    "error points at {}:{}, want line {line}: {e}",
                    e.location.file(),
                    e.location.line()
                ));
            }
            match needles.iter().find(|n| !e.message.contains(**n)) {
                Some(n) => Err(format!("line {line}: message {:?} lacks {n:?}", e.message)),
                None => Ok(()),
            }
        }
    }
}

/// A 32-lane kernel builder's inputs: an f32, an i32, a u64 and a bool value.
struct Vals {
    f: Val,
    i: Val,
    u64: Val,
    b: Val,
}

fn with_builder(width: Option<u32>, body: impl FnOnce(&mut KernelBuilder<'_>, Vals) -> Outcome) -> Outcome {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "errors");
    let r = (|| -> Result<Vals, BuildError> {
        if let Some(w) = width {
            k.set_subgroup_size(w)?;
        }
        Ok(Vals { f: k.const_f32(1.5)?, i: k.const_i32(-3)?, u64: k.const_u64(5)?, b: k.const_bool(true)? })
    })();
    let v = r.map_err(|e| e.to_string())?;
    body(&mut k, v)
}

fn wide_tile() -> Outcome {
    with_builder(Some(32), |k, v| {
        let m = &["log2_size 6", "64 lanes", "wider than the subgroup", "32 lanes"];
        expect(sg::reduce_add_tiled(k, v.f, 6), line!(), &[m, &["subgroup::reduce_add_tiled"][..]].concat())?;
        expect(sg::reduce_min_tiled(k, v.i, 6), line!(), m)?;
        expect(sg::reduce_all_max_tiled(k, v.u64, 6), line!(), &["subgroup::reduce_all_max_tiled", "log2_size 6"])?;
        expect(sg::inclusive_xor_tiled(k, v.i, 6), line!(), &["subgroup::inclusive_xor_tiled", "log2_size 6"])?;
        expect(sg::exclusive_mul_tiled(k, v.f, 9), line!(), &["subgroup::exclusive_mul_tiled", "log2_size 9"])?;
        let m = &["segmented_reduce_max_tiled", "log2_size 6"];
        expect(sg::segmented_reduce_max_tiled(k, v.f, v.i, 6), line!(), m)?;
        expect(sg::all_true_tiled(k, v.i, 6), line!(), &["subgroup::all_true_tiled", "log2_size 6"])?;
        expect(sg::any_true_tiled(k, v.b, 6), line!(), &["subgroup::any_true_tiled", "log2_size 6"])?;
        expect(sg::all_equal_tiled(k, v.f, 6), line!(), &["subgroup::all_equal_tiled", "log2_size 6"])?;
        let m = &["subgroup::bitonic_sort_kv_tiled", "log2_size 6"];
        expect(sg::bitonic_sort_kv_tiled(k, v.f, v.i, 6), line!(), m)?;
        expect(sg::reduce_tiled_with(k, v.f, qd_lib::Op::ADD, 6), line!(), &["reduce_tiled_with", "log2_size 6"])?;
        // The largest tile is fine.
        sg::reduce_add_tiled(k, v.f, 5).map_err(|e| e.to_string())?;
        Ok(())
    })?;
    with_builder(Some(8), |k, v| {
        expect(sg::inclusive_add_tiled(k, v.i, 4), line!(), &["log2_size 4", "16 lanes", "8 lanes"])
    })
}

fn ballot_first_n_range() -> Outcome {
    with_builder(Some(32), |k, v| {
        expect(sg::ballot_first_n(k, v.i, 0), line!(), &["subgroup::ballot_first_n", "n = 0", "1..=32"])?;
        expect(sg::ballot_first_n(k, v.i, 33), line!(), &["subgroup::ballot_first_n", "n = 33", "1..=32"])?;
        sg::ballot_first_n(k, v.i, 32).map_err(|e| e.to_string())?;
        sg::ballot_first_n(k, v.i, 1).map_err(|e| e.to_string())?;
        Ok(())
    })
}

fn bad_dtype() -> Outcome {
    with_builder(Some(32), |k, v| {
        let set = "i32, u32, i64, u64, f32, f64";
        expect(sg::shuffle(k, v.b, v.i), line!(), &["subgroup::shuffle:", "unsupported dtype bool", set])?;
        expect(sg::shuffle_up(k, v.b, v.i), line!(), &["subgroup::shuffle_up", "unsupported dtype bool"])?;
        expect(sg::shuffle_down(k, v.b, v.i), line!(), &["subgroup::shuffle_down", "unsupported dtype bool"])?;
        expect(sg::shuffle_xor(k, v.b, v.i), line!(), &["subgroup::shuffle_xor", "unsupported dtype bool"])?;
        expect(sg::broadcast_first(k, v.b), line!(), &["subgroup::broadcast_first", "unsupported dtype bool"])?;
        expect(sg::reduce_add(k, v.b), line!(), &["subgroup::reduce_add", "unsupported dtype bool", set])?;
        expect(sg::reduce_all_min_tiled(k, v.b, 2), line!(), &["subgroup::reduce_all_min_tiled", "bool"])?;
        expect(sg::inclusive_mul(k, v.b), line!(), &["subgroup::inclusive_mul", "unsupported dtype bool"])?;
        expect(sg::exclusive_max_tiled(k, v.b, 3), line!(), &["subgroup::exclusive_max_tiled", "bool"])?;
        expect(sg::segmented_reduce_add(k, v.b, v.i), line!(), &["subgroup::segmented_reduce_add", "bool"])?;
        expect(sg::all_equal(k, v.b), line!(), &["subgroup::all_equal", "unsupported dtype bool"])?;
        expect(sg::bitonic_sort_kv(k, v.b, v.i), line!(), &["subgroup::bitonic_sort_kv", "unsupported dtype bool"])?;
        let m = &["bitonic_sort_kv_tiled", "unsupported dtype bool"];
        expect(sg::bitonic_sort_kv_tiled(k, v.f, v.b, 2), line!(), m)?;
        Ok(())
    })
}

fn float_bitwise() -> Outcome {
    with_builder(Some(32), |k, v| {
        let ints = "(supported: i32, u32, i64, u64)";
        expect(sg::inclusive_and(k, v.f), line!(), &["subgroup::inclusive_and", "unsupported dtype f32", ints])?;
        expect(sg::inclusive_or_tiled(k, v.f, 3), line!(), &["subgroup::inclusive_or_tiled", "f32", ints])?;
        expect(sg::inclusive_xor_tiled(k, v.f, 0), line!(), &["subgroup::inclusive_xor_tiled", "f32", ints])?;
        let d = k.const_f64(2.0).map_err(|e| e.to_string())?;
        expect(sg::exclusive_and_tiled(k, d, 5), line!(), &["subgroup::exclusive_and_tiled", "f64", ints])?;
        expect(sg::exclusive_or(k, d), line!(), &["subgroup::exclusive_or", "f64", ints])?;
        expect(sg::exclusive_xor(k, v.f), line!(), &["subgroup::exclusive_xor", "f32", ints])?;
        Ok(())
    })
}

fn segmented_log2() -> Outcome {
    for w in [32, 64] {
        with_builder(Some(w), |k, v| {
            let m = &["subgroup::segmented_reduce_add_tiled", "requires log2_size <= 6", "got 7"];
            expect(sg::segmented_reduce_add_tiled(k, v.f, v.i, 7), line!(), m)?;
            expect(sg::segmented_reduce_min_tiled(k, v.i, v.i, 40), line!(), &["requires log2_size <= 6"])?;
            Ok(())
        })?;
    }
    Ok(())
}

fn operands() -> Outcome {
    with_builder(Some(32), |k, v| {
        expect(sg::ballot(k, v.f), line!(), &["subgroup::ballot", "predicate must be an integer or bool, got f32"])?;
        expect(sg::all_true(k, v.f), line!(), &["subgroup::all_true", "predicate"])?;
        expect(sg::any_true_tiled(k, v.f, 2), line!(), &["subgroup::any_true_tiled", "predicate"])?;
        expect(sg::ballot_first_n(k, v.f, 4), line!(), &["subgroup::ballot_first_n", "predicate"])?;
        expect(sg::shuffle(k, v.i, v.f), line!(), &["subgroup::shuffle", "the index must be an integer, got f32"])?;
        expect(sg::shuffle_up(k, v.i, v.b), line!(), &["subgroup::shuffle_up", "the offset must be an integer"])?;
        expect(sg::shuffle_xor(k, v.i, v.f), line!(), &["subgroup::shuffle_xor", "the mask must be an integer"])?;
        expect(sg::broadcast(k, v.i, v.f), line!(), &["subgroup::broadcast", "the index must be an integer"])?;
        expect(sg::lanemask_lt(k, v.f), line!(), &["subgroup::lanemask_lt", "lane id must be an integer, got f32"])?;
        expect(sg::lanemask_ge(k, v.b), line!(), &["subgroup::lanemask_ge", "lane id must be an integer, got bool"])?;
        let m = &["segmented_reduce_add", "head flag must be an integer or bool, got f32"];
        expect(sg::segmented_reduce_add(k, v.i, v.f), line!(), m)?;
        Ok(())
    })
}

fn broadcast_uniform() -> Outcome {
    with_builder(Some(32), |k, v| {
        let lane = k.lane_id().map_err(|e| e.to_string())?;
        expect(sg::broadcast(k, v.f, lane), line!(), &["subgroup::broadcast", "must be uniform", "subgroup::shuffle"])?;
        let t = k.thread_id(qd_frontend::Dim::X).map_err(|e| e.to_string())?;
        let one = k.const_u32(1).map_err(|e| e.to_string())?;
        let varying = k.add(t, one).map_err(|e| e.to_string())?;
        expect(sg::broadcast(k, v.i, varying), line!(), &["must be uniform"])?;
        // Uniform indices: constants, subgroup_id arithmetic, a uniform parameter, a ballot.
        let sid = k.subgroup_id().map_err(|e| e.to_string())?;
        sg::broadcast(k, v.f, sid).map_err(|e| e.to_string())?;
        let p = k.scalar("p", ScalarType::I32);
        sg::broadcast(k, v.f, p).map_err(|e| e.to_string())?;
        let bal = sg::ballot(k, lane).map_err(|e| e.to_string())?;
        sg::broadcast(k, v.f, bal).map_err(|e| e.to_string())?;
        sg::broadcast(k, v.f, v.u64).map_err(|e| e.to_string())?;
        Ok(())
    })?;
    // A per-lane index computed inside an open `if` arm is not judged at the call (the arm is not
    // in the kernel's tree yet); the verifier rejects it at `finish`.
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "late");
    let r = (|| -> Result<(), BuildError> {
        k.set_subgroup_size(32)?;
        let p = k.scalar("p", ScalarType::U32);
        let zero = k.const_u32(0)?;
        let c = k.gt(p, zero)?;
        let x = k.const_f32(2.0)?;
        k.if_then(c, |k| {
            let lane = k.lane_id()?;
            sg::broadcast(k, x, lane).map(|_| ())
        })
    })();
    r.map_err(|e| format!("inside the arm: {e}"))?;
    match k.finish() {
        Ok(_) => Err("a per-lane broadcast index inside an if arm passed finish".into()),
        Err(e) if e.kind == qd_frontend::ErrorKind::Verify && e.message.contains("broadcast") => Ok(()),
        Err(e) => Err(format!("unexpected finish error: {e}")),
    }
}

fn no_width() -> Outcome {
    with_builder(None, |k, v| {
        expect(sg::group_size(k), line!(), &["subgroup::group_size", "set_subgroup_size"])?;
        expect(sg::log2_group_size(k), line!(), &["subgroup::log2_group_size", "set_subgroup_size"])?;
        expect(sg::bitonic_sort_kv(k, v.f, v.i), line!(), &["subgroup::bitonic_sort_kv", "set_subgroup_size"])?;
        expect(sg::inclusive_min_tiled(k, v.f, 1), line!(), &["subgroup::inclusive_min_tiled", "set_subgroup_size"])?;
        // Full-subgroup collectives need no width: they are MIR ops without a tile.
        sg::reduce_add(k, v.f).map_err(|e| e.to_string())?;
        sg::inclusive_xor(k, v.i).map_err(|e| e.to_string())?;
        sg::all_equal(k, v.f).map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// A custom operator must return its operands' type: one that widens (here i32 → i64) is an
/// error at the call naming the operator, not a result of another type or a message about some
/// `select`/`store` inside the library.
fn custom_op_type() -> Outcome {
    let widen = |k: &mut KernelBuilder<'_>, a: Val, _b: Val| k.cast(a, ScalarType::I64);
    let op = qd_lib::Op::custom(&widen);
    with_builder(Some(32), |k, v| {
        let m = &["custom operator", "returned i64", "i32 operands"];
        expect(sg::reduce_tiled_with(k, v.i, op, 3), line!(), &[&m[..], &["subgroup::reduce_tiled_with"]].concat())?;
        expect(sg::inclusive_scan_tiled_with(k, v.i, op, 5), line!(), m)?;
        expect(sg::exclusive_scan_tiled_with(k, v.i, op, v.i, 2), line!(), m)?;
        Ok(())
    })
}

type Emit = fn(&mut KernelBuilder<'_>, Val) -> Result<Val, BuildError>;

/// Builtin collectives emit exactly one MIR collective and no shuffle.
fn collectives() -> Outcome {
    let cases: Vec<(&str, Emit, &str)> = vec![
        ("reduce_add_tiled", |k, x| sg::reduce_add_tiled(k, x, 3), "subgroup.reduce add tile(3)"),
        ("reduce_min", sg::reduce_min, "subgroup.reduce min %"),
        ("reduce_all_max_tiled", |k, x| sg::reduce_all_max_tiled(k, x, 5), "subgroup.reduce max tile(5)"),
        ("inclusive_xor_tiled", |k, x| sg::inclusive_xor_tiled(k, x, 2), "subgroup.scan inclusive xor tile(2)"),
        ("exclusive_mul", sg::exclusive_mul, "subgroup.scan exclusive mul %"),
        ("exclusive_and_tiled", |k, x| sg::exclusive_and_tiled(k, x, 4), "subgroup.scan exclusive and tile(4)"),
        (
            "segmented_reduce_add_tiled",
            |k, x| sg::segmented_reduce_add_tiled(k, x, x, 4),
            "subgroup.segreduce add tile(4)",
        ),
        ("segmented_reduce_max", |k, x| sg::segmented_reduce_max(k, x, x), "subgroup.segreduce max %"),
        ("all_true_tiled", |k, x| sg::all_true_tiled(k, x, 3), "vote.all tile(3)"),
        ("any_true", sg::any_true, "vote.any %"),
        ("all_equal_tiled", |k, x| sg::all_equal_tiled(k, x, 1), "vote.eq tile(1)"),
        ("ballot", sg::ballot, "ballot %"),
        ("ballot_first_n", |k, x| sg::ballot_first_n(k, x, 12), "ballot.first_n 12"),
        ("shuffle", |k, x| sg::shuffle(k, x, x), "shuffle.idx"),
        ("shuffle_xor", |k, x| sg::shuffle_xor(k, x, x), "shuffle.xor"),
        ("broadcast_first", sg::broadcast_first, "broadcast %"),
    ];
    for (name, f, want) in cases {
        let mut ctx = FunctionBuilderContext::new();
        let mut k = KernelBuilder::new(&mut ctx, name);
        let text = (|| -> Result<String, BuildError> {
            k.set_subgroup_size(32)?;
            let buf = k.buffer("b", ScalarType::U32);
            let t = k.thread_id(qd_frontend::Dim::X)?;
            let x = k.load(buf, t)?;
            let r = f(&mut k, x)?;
            let r = match r.scalar() {
                Some(ScalarType::U32) => r,
                _ => k.cast(r, ScalarType::U32)?,
            };
            k.store(buf, t, r)?;
            Ok(print_function(&k.finish()?))
        })()
        .map_err(|e| format!("{name}: {e}"))?;
        if !text.contains(want) {
            return Err(format!("{name}: MIR lacks `{want}`:\n{text}"));
        }
        let collective = !name.starts_with("shuffle");
        if collective && text.contains("shuffle") {
            return Err(format!("{name}: a builtin collective must not be a shuffle tree:\n{text}"));
        }
    }
    Ok(())
}
