//! Representative kernels built with the builder, compared line for line against the printed MIR
//! (`qd_mir::text::print_function`). The expected texts are reviewed like code: each one shows
//! the SSA the builder constructed for the variables.

use qd_frontend::{
    AtomicOp, BuildError, CmpCond, Dim, FunctionBuilderContext, GroupOp, KernelBuilder, PredOp, ScalarType, Scope, Tile,
};
use qd_mir::text::print_function;
use qd_mir::{GridPolicy, Opcode};
use std::collections::BTreeSet;

type R = Result<(), BuildError>;

#[track_caller]
fn assert_text(f: &qd_mir::Function, expected: &str) {
    let got = print_function(f);
    assert!(got == expected, "printed MIR differs\n--- got ---\n{got}\n--- expected ---\n{expected}");
}

#[test]
fn saxpy_with_parallel_for() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "saxpy");
    let x = b.buffer("x", ScalarType::F32);
    let y = b.buffer("y", ScalarType::F32);
    let a = b.scalar("a", ScalarType::F32);
    let n = b.scalar("n", ScalarType::U32);
    b.set_block_dim(256)?;
    b.parallel_for(n, |b, i| {
        let xi = b.load(x, i)?;
        let yi = b.load(y, i)?;
        let r = b.fma(a, xi, yi)?;
        b.store(y, i, r)
    })?;
    let f = b.finish()?;
    assert_eq!(f.launch.grid, GridPolicy::Cover(3));
    assert_text(
        &f,
        "\
kernel @saxpy(%x: ptr<global, f32>, %y: ptr<global, f32>, %a: f32 uniform, %n: u32 uniform) block(256, 1, 1) grid(cover %n) {
  %0 = thread_id x : u32
  %1 = block_dim x : u32
  %2 = block_id x : u32
  %3 = mul %1, %2 : u32
  %4 = add %0, %3 : u32
  %5 = grid_dim x : u32
  %6 = mul %1, %5 : u32
  loop (%7: u32 = %4) {
    %8 = cmp ge %7, %n : bool
    if %8 {
      break
    }
    %9 = ptr.offset %x, %7 : ptr<global, f32>
    %10 = load %9 : f32
    %11 = ptr.offset %y, %7 : ptr<global, f32>
    %12 = load %11 : f32
    %13 = fma %a, %10, %12 : f32
    %14 = ptr.offset %y, %7 : ptr<global, f32>
    store %14, %13
    %15 = add %7, %6 : u32
    continue %15
  }
  return
}
",
    );
    Ok(())
}

#[test]
fn parallel_for_over_a_loaded_i32_count_is_saturating() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "count");
    let counts = b.buffer("counts", ScalarType::I32);
    let zero = b.const_u32(0)?;
    let n = b.load(counts, zero)?;
    b.parallel_for(n, |b, i| b.store(counts, i, i))?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @count(%counts: ptr<global, i32>) block(1, 1, 1) grid(saturating) {
  %0 = const 0 : u32
  %1 = ptr.offset %counts, %0 : ptr<global, i32>
  %2 = load %1 : i32
  %3 = thread_id x : u32
  %4 = block_dim x : u32
  %5 = block_id x : u32
  %6 = mul %4, %5 : u32
  %7 = add %3, %6 : u32
  %8 = grid_dim x : u32
  %9 = mul %4, %8 : u32
  %10 = cast %7 : i32
  %11 = cast %9 : i32
  loop (%12: i32 = %10) {
    %13 = cmp ge %12, %2 : bool
    if %13 {
      break
    }
    %14 = ptr.offset %counts, %12 : ptr<global, i32>
    store %14, %12
    %15 = add %12, %11 : i32
    continue %15
  }
  return
}
",
    );
    Ok(())
}

#[test]
fn if_else_with_a_variable_defined_in_one_arm() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "ifelse");
    let out = b.buffer("out", ScalarType::U32);
    let t = b.thread_id(Dim::X)?;
    let v = b.declare_var(ScalarType::U32);
    let zero = b.const_u32(0)?;
    b.def_var(v, zero)?;
    let c = b.lt(t, zero)?;
    b.if_then_else(
        c,
        |b| {
            let one = b.const_u32(1)?;
            b.def_var(v, one)
        },
        |b| {
            let _ = b.lane_id()?;
            Ok(())
        },
    )?;
    let r = b.use_var(v)?;
    b.store(out, t, r)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @ifelse(%out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 0 : u32
  %2 = cmp lt %0, %1 : bool
  %3 = if %2 -> (u32) {
    %4 = const 1 : u32
    yield %4
  } else {
    %5 = lane_id : u32
    yield %1
  }
  %6 = ptr.offset %out, %0 : ptr<global, u32>
  store %6, %3
  return
}
",
    );
    Ok(())
}

#[test]
fn if_then_without_else_gets_an_else_yielding_the_incoming_value() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "ifthen");
    let n = b.scalar("n", ScalarType::I32);
    let out = b.buffer("out", ScalarType::I32);
    let v = b.declare_var(ScalarType::I32);
    b.def_var(v, n)?;
    let zero = b.const_i32(0)?;
    let neg = b.lt(n, zero)?;
    b.if_then(neg, |b| {
        let m = b.neg(n)?;
        b.def_var(v, m)
    })?;
    // an arm that assigns nothing: no results, no else region
    b.if_then(neg, |b| b.fence(Scope::Device))?;
    let r = b.use_var(v)?;
    let u = b.const_u32(0)?;
    b.store(out, u, r)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @ifthen(%n: i32 uniform, %out: ptr<global, i32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : i32
  %1 = cmp lt %n, %0 : bool
  %2 = if %1 -> (i32) {
    %3 = neg %n : i32
    yield %3
  } else {
    yield %n
  }
  if %1 {
    fence device
    yield
  }
  %4 = const 0 : u32
  %5 = ptr.offset %out, %4 : ptr<global, i32>
  store %5, %2
  return
}
",
    );
    Ok(())
}

#[test]
fn loop_with_carried_accumulator_and_conditional_break() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "acc");
    let out = b.buffer("out", ScalarType::U32);
    let acc = b.declare_var(ScalarType::U32);
    let k = b.declare_var(ScalarType::U32);
    let zero = b.const_u32(0)?;
    b.def_var(acc, zero)?;
    b.def_var(k, zero)?;
    b.loop_(|b| {
        let a = b.use_var(acc)?;
        let kk = b.use_var(k)?;
        let s = b.add(a, kk)?;
        b.def_var(acc, s)?;
        let one = b.const_u32(1)?;
        let k2 = b.add(kk, one)?;
        b.def_var(k, k2)?;
        let lim = b.const_u32(100)?;
        let c = b.gt(s, lim)?;
        b.if_then(c, |b| b.break_())
    })?;
    let a = b.use_var(acc)?;
    b.store(out, zero, a)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @acc(%out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  %1, %2 = loop (%3: u32 = %0, %4: u32 = %0) -> (u32, u32) {
    %5 = add %3, %4 : u32
    %6 = const 1 : u32
    %7 = add %4, %6 : u32
    %8 = const 100 : u32
    %9 = cmp gt %5, %8 : bool
    if %9 {
      break %5, %7
    }
    continue %5, %7
  }
  %10 = ptr.offset %out, %0 : ptr<global, u32>
  store %10, %1
  return
}
",
    );
    Ok(())
}

#[test]
fn nested_for_range_carries_through_two_levels() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "nested");
    let out = b.buffer("out", ScalarType::U32);
    let n = b.scalar("n", ScalarType::U32);
    let acc = b.declare_var(ScalarType::U32);
    let zero = b.const_u32(0)?;
    b.def_var(acc, zero)?;
    b.for_range(zero, n, None, |b, i| {
        b.for_range(zero, i, None, |b, j| {
            let a = b.use_var(acc)?;
            let s = b.add(a, j)?;
            b.def_var(acc, s)
        })
    })?;
    let a = b.use_var(acc)?;
    b.store(out, zero, a)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @nested(%out: ptr<global, u32>, %n: u32 uniform) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  %1 = const 1 : u32
  %2 = loop (%3: u32 = %0, %4: u32 = %0) -> (u32) {
    %5 = cmp ge %3, %n : bool
    if %5 {
      break %4
    }
    %6 = const 1 : u32
    %7 = loop (%8: u32 = %0, %9: u32 = %4) -> (u32) {
      %10 = cmp ge %8, %3 : bool
      if %10 {
        break %9
      }
      %11 = add %9, %8 : u32
      %12 = add %8, %6 : u32
      continue %12, %11
    }
    %13 = add %3, %1 : u32
    continue %13, %7
  }
  %14 = ptr.offset %out, %0 : ptr<global, u32>
  store %14, %2
  return
}
",
    );
    Ok(())
}

#[test]
fn trivial_loop_params_are_removed() -> R {
    // `scale` and `bias` are read in both loops but never assigned there: the parameters created
    // for them lazily are trivial and their uses are rewritten to the values entering the loops.
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "trivial");
    let buf = b.buffer("buf", ScalarType::I64);
    let n = b.scalar("n", ScalarType::I64);
    let scale = b.declare_named_var("scale", ScalarType::I64);
    let bias = b.declare_named_var("bias", ScalarType::I64);
    let two = b.const_i64(2)?;
    b.def_var(scale, two)?;
    b.def_var(bias, n)?;
    let zero = b.const_i64(0)?;
    let step = b.const_i64(3)?;
    b.for_range(zero, n, Some(step), |b, i| {
        b.loop_(|b| {
            let s = b.use_var(scale)?;
            let c = b.use_var(bias)?;
            let v = b.mul(i, s)?;
            let v = b.add(v, c)?;
            b.store(buf, i, v)?;
            b.break_()
        })
    })?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @trivial(%buf: ptr<global, i64>, %n: i64 uniform) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 2 : i64
  %1 = const 0 : i64
  %2 = const 3 : i64
  loop (%3: i64 = %1) {
    %4 = cmp ge %3, %n : bool
    if %4 {
      break
    }
    loop () {
      %5 = mul %3, %0 : i64
      %6 = add %5, %n : i64
      %7 = ptr.offset %buf, %3 : ptr<global, i64>
      store %7, %6
      break
    }
    %8 = add %3, %2 : i64
    continue %8
  }
  return
}
",
    );
    Ok(())
}

#[test]
fn loop_exits_with_values_from_several_paths() -> R {
    // `last` is only written in the loop (so it is carried: a `break` may see the previous
    // iteration's value), `x`/`y` swap every iteration, `continue_` in a `for_range` increments
    // the induction variable, and `tmp` (undefined before the loop) is undefined after it.
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "exits");
    let out = b.buffer("out", ScalarType::U32);
    let n = b.scalar("n", ScalarType::U32);
    let last = b.declare_var(ScalarType::U32);
    let x = b.declare_var(ScalarType::U32);
    let y = b.declare_var(ScalarType::U32);
    let tmp = b.declare_named_var("tmp", ScalarType::U32);
    let zero = b.const_u32(0)?;
    let one = b.const_u32(1)?;
    b.def_var(last, zero)?;
    b.def_var(x, zero)?;
    b.def_var(y, one)?;
    b.for_range(zero, n, Some(one), |b, i| {
        b.def_var(last, i)?;
        let xv = b.use_var(x)?;
        let yv = b.use_var(y)?;
        b.def_var(x, yv)?;
        b.def_var(y, xv)?;
        b.def_var(tmp, i)?;
        let c = b.eq(i, one)?;
        b.if_then(c, |b| b.continue_())?;
        let c2 = b.eq(i, n)?;
        b.if_then(c2, |b| {
            let t = b.add(i, one)?;
            b.def_var(last, t)?;
            b.break_()
        })
    })?;
    let l = b.use_var(last)?;
    b.store(out, zero, l)?;
    let e = b.use_var(tmp).unwrap_err();
    assert!(e.message.contains("variable `tmp` (v3) (u32) is used before it is defined"), "{}", e.message);
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @exits(%out: ptr<global, u32>, %n: u32 uniform) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  %1 = const 1 : u32
  %2, %3, %4 = loop (%5: u32 = %0, %6: u32 = %0, %7: u32 = %0, %8: u32 = %1) -> (u32, u32, u32) {
    %9 = cmp ge %5, %n : bool
    if %9 {
      break %6, %7, %8
    }
    %10 = cmp eq %5, %1 : bool
    if %10 {
      %11 = add %5, %1 : u32
      continue %11, %5, %8, %7
    }
    %12 = cmp eq %5, %n : bool
    if %12 {
      %13 = add %5, %1 : u32
      break %13, %8, %7
    }
    %14 = add %5, %1 : u32
    continue %14, %5, %8, %7
  }
  %15 = ptr.offset %out, %0 : ptr<global, u32>
  store %15, %2
  return
}
",
    );
    Ok(())
}

#[test]
fn arms_that_leave_contribute_nothing() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "leave");
    let out = b.buffer("out", ScalarType::U32);
    let v = b.declare_var(ScalarType::U32);
    let t = b.thread_id(Dim::X)?;
    let zero = b.const_u32(0)?;
    b.def_var(v, zero)?;
    let c = b.eq(t, zero)?;
    // the then arm returns, so only the else arm's value flows on: still an `if` result, since
    // it is defined inside the arm
    b.if_then_else(
        c,
        |b| b.return_(),
        |b| {
            let w = b.add(t, t)?;
            b.def_var(v, w)
        },
    )?;
    let r = b.use_var(v)?;
    b.store(out, t, r)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @leave(%out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 0 : u32
  %2 = cmp eq %0, %1 : bool
  %3 = if %2 -> (u32) {
    return
  } else {
    %4 = add %0, %0 : u32
    yield %4
  }
  %5 = ptr.offset %out, %0 : ptr<global, u32>
  store %5, %3
  return
}
",
    );
    Ok(())
}

#[test]
fn a_reused_context_builds_100_kernels() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut texts = Vec::new();
    for k in 0..100u32 {
        let mut b = KernelBuilder::new(&mut ctx, &format!("k{k}"));
        let buf = b.buffer("buf", ScalarType::U32);
        let n = b.scalar("n", ScalarType::U32);
        let acc = b.declare_var(ScalarType::U32);
        let c = b.const_u32(k)?;
        b.def_var(acc, c)?;
        b.parallel_for(n, |b, i| {
            let a = b.use_var(acc)?;
            let s = b.add(a, i)?;
            b.def_var(acc, s)?;
            b.store(buf, i, s)
        })?;
        let f = b.finish()?;
        assert_eq!(f.name, format!("k{k}"));
        texts.push(print_function(&f));
    }
    // same shape every time, only the name and the constant differ
    for (k, t) in texts.iter().enumerate() {
        let normalized =
            t.replacen(&format!("@k{k}("), "@k(", 1).replacen(&format!("const {k} : u32"), "const K : u32", 1);
        let first = texts[0].replacen("@k0(", "@k(", 1).replacen("const 0 : u32", "const K : u32", 1);
        assert_eq!(normalized, first);
    }
    assert!(texts[7].contains("%8 = loop (%9: u32 = %5, %10: u32 = %0) -> (u32) {"), "{}", texts[7]);
    Ok(())
}

#[test]
fn one_kernel_uses_every_opcode() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "everything");
    let gi = b.buffer("gi", ScalarType::I32);
    let gu = b.buffer("gu", ScalarType::U32);
    let n = b.scalar("n", ScalarType::U32);
    let sh = b.shared_array("tile", ScalarType::F32, 64);
    b.set_block_dim(64)?;
    let t = b.thread_id(Dim::X)?;
    let blk = b.block_id(Dim::X)?;
    let bd = b.block_dim(Dim::Y)?;
    let gd = b.grid_dim(Dim::Z)?;
    let lane = b.lane_id()?;
    let sg = b.subgroup_id()?;
    let sgs = b.subgroup_size()?;
    let i = b.const_i32(-3)?;
    let _ = b.const_u64(1)?;
    let _ = b.const_i64(-1)?;
    let _ = b.const_f64(0.5)?;
    let f1 = b.const_f32(1.5)?;
    let tr = b.const_bool(true)?;
    let mut u = b.add(t, blk)?;
    u = b.sub(u, bd)?;
    u = b.mul(u, gd)?;
    u = b.div(u, sgs)?;
    u = b.rem(u, sgs)?;
    u = b.min(u, lane)?;
    u = b.max(u, sg)?;
    u = b.and(u, t)?;
    u = b.or(u, t)?;
    u = b.xor(u, t)?;
    u = b.shl(u, t)?;
    u = b.shr(u, t)?;
    u = b.not(u)?;
    u = b.clz(u)?;
    u = b.popcount(u)?;
    u = b.bitrev(u)?;
    let ni = b.neg(i)?;
    let ai = b.abs(ni)?;
    let fs = b.sqrt(f1)?;
    let ff = b.fma(fs, f1, f1)?;
    let c = b.cmp(CmpCond::Le, ai, i)?;
    let sel = b.select(c, ai, i)?;
    let cf = b.cast(sel, ScalarType::F32)?;
    let bits = b.bitcast(cf, ScalarType::U32)?;
    let _ = b.shared_addr(sh)?;
    let p = b.ptr_offset(gu.ptr(), t)?;
    let _ = b.load_ptr(p)?;
    b.store_ptr(p, bits)?;
    b.store(sh, t, ff)?;
    let _ = b.atomic_rmw(AtomicOp::Add, Scope::Device, gu, t, u)?;
    let _ = b.atomic_cas(Scope::Block, gi, t, i, ai)?;
    let s1 = b.shuffle_idx(u, lane)?;
    let s2 = b.shuffle_up(s1, lane)?;
    let s3 = b.shuffle_down(s2, lane)?;
    let s4 = b.shuffle_xor(s3, lane)?;
    let s5 = b.broadcast(s4, sg)?;
    let _ = b.ballot(tr)?;
    let _ = b.ballot_first_n(16, tr)?;
    let _ = b.vote_all(Tile::Full, tr)?;
    let _ = b.vote_any(Tile::Log2(3), tr)?;
    let _ = b.vote_eq(Tile::Log2(6), s5)?;
    let _ = b.subgroup_reduce(GroupOp::Add, Tile::Full, s5)?;
    let _ = b.subgroup_scan(GroupOp::Max, Tile::Log2(2), false, s5)?;
    let _ = b.segmented_reduce(GroupOp::Min, Tile::Full, s5, tr)?;
    b.subgroup_sync()?;
    b.block_sync()?;
    let _ = b.block_sync_pred(PredOp::Count, tr)?;
    b.fence(Scope::Block)?;
    let m1 = b.match_any(s5)?;
    let m2 = b.match_all(ff)?;
    let _ = b.active_mask()?;
    let _ = b.lane_mask_lt()?;
    let _ = b.lane_mask_le()?;
    let _ = b.lane_mask_eq()?;
    let _ = b.lane_mask_ge()?;
    let _ = b.lane_mask_gt()?;
    let _ = b.elect()?;
    let _ = b.and(m1, m2)?;
    b.nanosleep(u)?;
    b.for_range(t, n, None, |b, j| {
        b.if_then(c, |b| b.continue_())?;
        b.if_then(c, |b| b.store(gu, j, j))
    })?;
    let f = b.finish()?;
    let used: BTreeSet<Opcode> = f.walk_insts().iter().map(|&inst| f.insts[inst].opcode).collect();
    let all: BTreeSet<Opcode> = Opcode::ALL.iter().copied().collect();
    let missing: Vec<_> = all.difference(&used).collect();
    assert!(missing.is_empty(), "opcodes not built: {missing:?}");
    let text = print_function(&f);
    for line in [
        "atomic.rmw add device",
        "atomic.cas block",
        "ballot.first_n 16",
        "vote.any tile(3)",
        "subgroup.scan exclusive max tile(2)",
        "subgroup.segreduce min",
        "block.sync_pred count",
        ": u64\n  nanosleep %",
        "const -3 : i32",
        "const 1.5 : f32",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    Ok(())
}

#[test]
fn a_failed_construct_is_abandoned_and_the_builder_stays_usable() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "recover");
    let out = b.buffer("out", ScalarType::U32);
    let acc = b.declare_var(ScalarType::U32);
    let zero = b.const_u32(0)?;
    b.def_var(acc, zero)?;
    let bad = b.loop_(|b| {
        let a = b.use_var(acc)?;
        let f = b.const_f32(1.0)?;
        let s = b.add(a, f)?; // error: the whole loop is dropped
        b.def_var(acc, s)
    });
    assert!(bad.is_err());
    let a = b.use_var(acc)?; // still the value from before the failed loop
    b.store(out, zero, a)?;
    let f = b.finish()?;
    assert_text(
        &f,
        "\
kernel @recover(%out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  %1 = ptr.offset %out, %0 : ptr<global, u32>
  store %1, %0
  return
}
",
    );
    Ok(())
}

/// The warp builtins built with the builder, printed, and run by the interpreter at width 8
/// under `if t % 3 != 0`: exact masks per thread.
#[test]
fn warp_builtins_under_a_varying_if() -> R {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "warp");
    let out = b.buffer("out", ScalarType::U64);
    b.set_block_dim(16)?;
    let t = b.thread_id(Dim::X)?;
    let three = b.const_u32(3)?;
    let m = b.rem(t, three)?;
    let zero = b.const_u32(0)?;
    let c = b.cmp(CmpCond::Ne, m, zero)?;
    b.if_then(c, |b| {
        let any = b.match_any(m)?;
        let act = b.active_mask()?;
        let lt = b.lane_mask_lt()?;
        let e = b.elect()?;
        let e = b.cast(e, ScalarType::U64)?;
        b.nanosleep(t)?;
        // out[t] = match.any | (activemask << 8) | (lanemask.lt << 16) | (elect << 24)
        let eight = b.const_u64(8)?;
        let act = b.shl(act, eight)?;
        let sixteen = b.const_u64(16)?;
        let lt = b.shl(lt, sixteen)?;
        let tw4 = b.const_u64(24)?;
        let e = b.shl(e, tw4)?;
        let r = b.or(any, act)?;
        let r = b.or(r, lt)?;
        let r = b.or(r, e)?;
        b.store(out, t, r)
    })?;
    let f = b.finish()?;
    let text = print_function(&f);
    for line in ["match.any %2 : u64", "activemask : u64", "lanemask.lt : u64", "elect : bool", "nanosleep %0"] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    use qd_mir::interp::{run_kernel, ArgValue, Buffer, RunConfig};
    let mut args = vec![ArgValue::Buffer(Buffer::from_bits(ScalarType::U64, vec![0; 16]))];
    let cfg = RunConfig { subgroup_size: 8, ..RunConfig::default() };
    if let Err(e) = run_kernel(&f, &cfg, &mut args) {
        panic!("{e}");
    }
    let ArgValue::Buffer(got) = &args[0] else { panic!("not a buffer") };
    // Active threads: 1 2 4 5 7 | 8 10 11 13 14 (lanes 0 2 3 5 6 of subgroup 1).
    let (a0, a1) = (0b1011_0110u64, 0b0110_1101u64);
    let row = |any: u64, act: u64, lane: u32, el: u64| any | act << 8 | ((1u64 << lane) - 1) << 16 | el << 24;
    let want: Vec<u64> = (0..16u64)
        .map(|t| {
            if t % 3 == 0 {
                return 0;
            }
            let base = t - t % 8;
            let act: u64 = (0..8).filter(|j| (base + j) % 3 != 0).map(|j| 1u64 << j).sum();
            let any: u64 = (0..8).filter(|j| (base + j) % 3 == t % 3).map(|j| 1u64 << j).sum();
            let first = u64::from(u64::from(act.trailing_zeros()) == t % 8);
            row(any, act, (t % 8) as u32, first)
        })
        .collect();
    // Spot checks of the reference with literal numbers.
    assert_eq!(want[1], row(0b1001_0010, a0, 1, 1)); // t % 3 == 1: t = 1, 4, 7; lane 1 is the lowest
    assert_eq!(want[5], row(0b0010_0100, a0, 5, 0)); // t % 3 == 2: t = 2, 5
    assert_eq!(want[8], row(0b0100_1001, a1, 0, 1)); // t % 3 == 2: t = 8, 11, 14
    assert_eq!(want[10], row(0b0010_0100, a1, 2, 0)); // t % 3 == 1: t = 10, 13
    assert_eq!(got.to_bits(), want);
    Ok(())
}
