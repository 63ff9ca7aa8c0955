//! Structured control flow on the EXEC mask, end to end: divergent and uniform `if` with
//! results, divergent loops with `break`/`continue` at depth, `return` under divergence; every
//! kernel on every simulated target against the interpreter.

mod lower_util;

use lower_util::*;
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::ScalarType;

fn flags(n: usize, seed: u64, every: u64) -> Buffer {
    let mut x = seed;
    Buffer::from_bits(
        ScalarType::Bool,
        (0..n).map(|i| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            u64::from((x >> 33).is_multiple_of(every) || i + 1 == n)
        }),
    )
}

fn u32s(n: usize, f: impl Fn(u64) -> u64) -> Buffer {
    Buffer::from_bits(ScalarType::U32, (0..n as u64).map(f))
}

#[test]
fn divergent_if_else_with_results() {
    let f = kernel(
        "kernel @k(%c: ptr<global, bool>, %a: ptr<global, u32>, %o: ptr<global, u32>) block(100, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %cp = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %cp : bool
  %ap = ptr.offset %a, %t : ptr<global, u32>
  %av = load %ap : u32
  %one = const 1 : u32
  %two = const 1000 : u32
  %r = if %cv -> (u32) {
    %x = add %av, %one : u32
    yield %x
  } else {
    %y = add %av, %two : u32
    yield %y
  }
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %r
  return
}
",
    );
    for t in targets() {
        for seed in [1, 2, 3] {
            let args = [
                ArgValue::Buffer(flags(100, seed, 2)),
                ArgValue::Buffer(u32s(100, |i| i * 7)),
                ArgValue::Buffer(u32s(100, |_| 0)),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
}

#[test]
fn uniform_if_on_a_parameter() {
    let f = kernel(
        "kernel @k(%c: bool uniform, %a: ptr<global, u32>, %o: ptr<global, u32>) block(64, 1, 1) grid(2, 1, 1) {
  %t = thread_id x : u32
  %ap = ptr.offset %a, %t : ptr<global, u32>
  %av = load %ap : u32
  %b = block_id x : u32
  %r = if %c -> (u32) {
    %x = add %av, %b : u32
    yield %x
  } else {
    yield %av
  }
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %r
  return
}
",
    );
    for t in targets() {
        for c in [0, 1] {
            let args = [
                ArgValue::Scalar(ScalarType::Bool, c),
                ArgValue::Buffer(u32s(64, |i| i * 3)),
                ArgValue::Buffer(u32s(64, |_| 0)),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
}

/// Each lane walks its flag row until the first set flag: a loop with a divergent break and
/// continue, carrying a counter and a sum.
#[test]
fn divergent_loop_break_and_continue() {
    let f = kernel(
        "kernel @k(%fl: ptr<global, bool>, %a: ptr<global, u32>, %o: ptr<global, u32>, %s: ptr<global, u32>) block(96, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %zero = const 0 : u32
  %one = const 1 : u32
  %n, %sum = loop (%i: u32 = %t, %acc: u32 = %zero) -> (u32, u32) {
    %fp = ptr.offset %fl, %i : ptr<global, bool>
    %stop = load %fp : bool
    %ap = ptr.offset %a, %i : ptr<global, u32>
    %av = load %ap : u32
    %acc2 = add %acc, %av : u32
    if %stop {
      break %i, %acc2
    } else {
      yield
    }
    %i2 = add %i, %one : u32
    continue %i2, %acc2
  }
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %n
  %sp = ptr.offset %s, %t : ptr<global, u32>
  store %sp, %sum
  return
}
",
    );
    for t in targets() {
        for seed in [5, 6] {
            let args = [
                ArgValue::Buffer(flags(400, seed, 7)),
                ArgValue::Buffer(u32s(400, |i| i * i)),
                ArgValue::Buffer(u32s(96, |_| 0)),
                ArgValue::Buffer(u32s(96, |_| 0)),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
}

/// `return` under a divergent condition, a store after the `if` that only the survivors make,
/// and nested ifs inside a loop with `continue` in one arm and `break` in a nested arm.
#[test]
fn return_and_nested_exits() {
    let f = kernel(
        "kernel @k(%fl: ptr<global, bool>, %g: ptr<global, bool>, %o: ptr<global, u32>) block(128, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %one = const 1 : u32
  %gp = ptr.offset %g, %t : ptr<global, bool>
  %gone = load %gp : bool
  if %gone {
    return
  } else {
    yield
  }
  %n = loop (%i: u32 = %t) -> (u32) {
    %fp = ptr.offset %fl, %i : ptr<global, bool>
    %f1 = load %fp : bool
    %i2 = add %i, %one : u32
    %fp2 = ptr.offset %fl, %i2 : ptr<global, bool>
    %f2 = load %fp2 : bool
    if %f1 {
      continue %i2
    } else {
      if %f2 {
        break %i
      } else {
        yield
      }
      yield
    }
    continue %i2
  }
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %n
  return
}
",
    );
    for t in targets() {
        for seed in [11, 12] {
            let args = [
                ArgValue::Buffer(flags(400, seed, 3)),
                ArgValue::Buffer(flags(128, seed + 100, 4)),
                ArgValue::Buffer(u32s(128, |_| 7)),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
}

/// Twelve values live across a divergent `if` whose arms need registers too, compiled with a
/// 16-VGPR budget: the allocator must spill and reload inside the divergent arms, whole-wave, so
/// lanes outside EXEC keep their values.
#[test]
fn spills_inside_divergent_regions() {
    let mut src = String::from(
        "kernel @k(%c: ptr<global, bool>, %a: ptr<global, u32>, %o: ptr<global, u32>) block(80, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %cp = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %cp : bool
  %k80 = const 80 : u32
",
    );
    let n = 12;
    for j in 0..n {
        let prev = if j == 0 { "%t".to_string() } else { format!("%i{}", j - 1) };
        src.push_str(&format!(
            "  %i{j} = add {prev}, %k80 : u32\n  %p{j} = ptr.offset %a, %i{j} : ptr<global, u32>\n  %v{j} = load %p{j} : u32\n"
        ));
    }
    src.push_str("  %r = if %cv -> (u32) {\n");
    let mut acc = "%v0".to_string();
    for j in 1..n {
        src.push_str(&format!("    %x{j} = add {acc}, %v{j} : u32\n"));
        acc = format!("%x{j}");
    }
    src.push_str(&format!("    yield {acc}\n  }} else {{\n"));
    let mut acc = format!("%v{}", n - 1);
    for j in (0..n - 1).rev() {
        src.push_str(&format!("    %y{j} = add {acc}, %v{j} : u32\n    %z{j} = add %y{j}, %v{j} : u32\n"));
        acc = format!("%z{j}");
    }
    src.push_str(&format!("    yield {acc}\n  }}\n"));
    let mut acc = "%r".to_string();
    for j in 0..n {
        src.push_str(&format!("  %w{j} = add {acc}, %v{j} : u32\n"));
        acc = format!("%w{j}");
    }
    src.push_str(&format!("  %op = ptr.offset %o, %t : ptr<global, u32>\n  store %op, {acc}\n  return\n}}\n"));
    let f = kernel(&src);
    for t in targets() {
        let mut o = qd_isel_amdgcn::AmdgcnOptions::new(t);
        o.check_regalloc = true;
        o.max_vgprs = 16;
        let args = [
            ArgValue::Buffer(flags(80, 3, 2)),
            ArgValue::Buffer(u32s(80 * 13, |i| i * 2654435761 % 1000)),
            ArgValue::Buffer(u32s(80, |_| 0)),
        ];
        let (_, k) = check_kernel(&f, &o, [1, 1, 1], &args);
        if std::env::var("QD_DUMP").is_ok() {
            eprintln!("{}", k.asm());
        }
        assert!(k.spill_bytes_per_lane > 0, "{t}: the budget forces spills");
        assert!(k.resources.next_free_vgpr <= 16, "{t}: {} VGPRs", k.resources.next_free_vgpr);
    }
}

/// A kernel with `n` values of `ty` (`u32` or `f64`) live across a divergent `if` whose arms
/// combine them in opposite orders: far more than regalloc2's 63 registers of a class.
fn pressure_kernel(ty: &str, n: usize) -> String {
    let mut src = format!(
        "kernel @k(%c: ptr<global, bool>, %a: ptr<global, {ty}>, %o: ptr<global, {ty}>) block(64, 1, 1) grid(1, 1, 1) {{
  %t = thread_id x : u32
  %cp = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %cp : bool
  %k64 = const 64 : u32
"
    );
    for j in 0..n {
        let prev = if j == 0 { "%t".to_string() } else { format!("%i{}", j - 1) };
        src.push_str(&format!(
            "  %i{j} = add {prev}, %k64 : u32\n  %p{j} = ptr.offset %a, %i{j} : ptr<global, {ty}>\n  %v{j} = load %p{j} : {ty}\n"
        ));
    }
    src.push_str(&format!("  %r = if %cv -> ({ty}) {{\n"));
    let mut acc = "%v0".to_string();
    for j in 1..n {
        src.push_str(&format!("    %x{j} = add {acc}, %v{j} : {ty}\n"));
        acc = format!("%x{j}");
    }
    src.push_str(&format!("    yield {acc}\n  }} else {{\n"));
    let mut acc = format!("%v{}", n - 1);
    for j in (0..n - 1).rev() {
        src.push_str(&format!("    %y{j} = mul {acc}, %v{j} : {ty}\n    %z{j} = add %y{j}, %v{j} : {ty}\n"));
        acc = format!("%z{j}");
    }
    src.push_str(&format!("    yield {acc}\n  }}\n"));
    let mut acc = "%r".to_string();
    for j in 0..n {
        src.push_str(&format!("  %w{j} = add {acc}, %v{j} : {ty}\n"));
        acc = format!("%w{j}");
    }
    src.push_str(&format!("  %op = ptr.offset %o, %t : ptr<global, {ty}>\n  store %op, {acc}\n  return\n}}\n"));
    src
}

/// Past regalloc2's 63 registers of a class, spill slots live in the spare VGPRs (a spill is a
/// `v_mov`, no spill area); with a VGPR budget too small for all of them, the rest go to memory.
/// Both against the interpreter on every target, for single (u32) and pair (f64) slots.
#[test]
fn spills_into_spare_vgprs_then_memory() {
    for (ty, n, elem) in [("u32", 90usize, ScalarType::U32), ("f64", 62, ScalarType::F64)] {
        let f = kernel(&pressure_kernel(ty, n));
        let data: Vec<u64> = (0..64 * (n as u64 + 1))
            .map(|i| if ty == "f64" { (((i * 37) % 19) as f64 * 0.25 - 2.0).to_bits() } else { i * 2654435761 % 1000 })
            .collect();
        let args = [
            ArgValue::Buffer(flags(64, 5, 2)),
            ArgValue::Buffer(Buffer::from_bits(elem, data)),
            ArgValue::Buffer(Buffer::from_bits(elem, vec![0; 64])),
        ];
        for t in targets() {
            let mut o = qd_isel_amdgcn::AmdgcnOptions::new(t);
            o.check_regalloc = true;
            let (_, k) = check_kernel(&f, &o, [1, 1, 1], &args);
            assert_eq!(k.spill_bytes_per_lane, 0, "{t} {ty}: every slot fits the spare VGPRs");
            assert!(k.spill_vgprs > 0, "{t} {ty}: {} VGPRs: the slots should be registers", k.resources.next_free_vgpr);
            // Smaller budgets: the spare VGPRs fill up to the budget, the rest goes to memory.
            let mut mixed = 0;
            for budget in [64, 80, 96, 112] {
                o.max_vgprs = budget;
                let (_, k) = check_kernel(&f, &o, [1, 1, 1], &args);
                let v = k.resources.next_free_vgpr;
                assert!(v <= budget, "{t} {ty}: {v} VGPRs over a budget of {budget}");
                if k.spill_bytes_per_lane > 0 && k.spill_vgprs > 0 && v + 1 >= budget {
                    mixed += 1;
                }
            }
            assert!(mixed > 0, "{t} {ty}: no budget split the slots between VGPRs and memory");
        }
    }
}

/// Loop bodies and `if` arms longer than a SOPP branch reaches (±32,767 dwords): the branches
/// over them become `s_getpc_b64`/`s_add_u32`/`s_addc_u32`/`s_setpc_b64` sequences (a
/// conditional one behind its inverted short branch), forward and backward, uniform and
/// divergent — on every target against the interpreter.
#[test]
fn branches_past_128_kib() {
    let chain = |src: &mut String, from: &str, tag: &str, n: usize| -> String {
        let mut acc = from.to_string();
        for j in 0..n {
            src.push_str(&format!("  %{tag}m{j} = mul {acc}, %k3 : u32\n  %{tag}a{j} = add %{tag}m{j}, %t : u32\n"));
            acc = format!("%{tag}a{j}");
        }
        acc
    };
    let n = 12_000;
    let mut src = String::from(
        "kernel @k(%o: ptr<global, u32>, %trips: u32) block(64, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %k3 = const 2654435761 : u32
  %one = const 1 : u32
  %zero = const 0 : u32
  %low = and %t, %one : u32
  %odd = cmp ne %low, %zero : bool
  %r = if %odd -> (u32) {
",
    );
    let x = chain(&mut src, "%t", "d", n);
    src.push_str(&format!("    yield {x}\n  }} else {{\n    yield %t\n  }}\n"));
    src.push_str(
        "  %res = loop (%i: u32 = %zero, %acc: u32 = %r) -> (u32) {
    %done = cmp ge %i, %trips : bool
    if %done {
      break %acc
    } else {
      yield
    }
",
    );
    let y = chain(&mut src, "%acc", "u", n);
    src.push_str(&format!(
        "    %i2 = add %i, %one : u32\n    continue %i2, {y}\n  }}\n  %op = ptr.offset %o, %t : ptr<global, u32>\n  store %op, %res\n  return\n}}\n"
    ));
    let f = kernel(&src);
    for t in targets() {
        let args = [ArgValue::Buffer(u32s(64, |_| 0)), ArgValue::Scalar(ScalarType::U32, 2)];
        let (_, k) = check_kernel(&f, &qd_isel_amdgcn::AmdgcnOptions::new(t), [1, 1, 1], &args);
        let ops: Vec<String> = k.insts.iter().map(|(_, i)| i.display(t).to_string()).collect();
        let long = ops.iter().filter(|o| o.starts_with("s_setpc_b64")).count();
        let backward = ops.iter().any(|o| o.starts_with("s_addc_u32") && o.ends_with(", -1"));
        assert!(k.code.len() > 2 * 131_072 && long >= 2, "{t}: {} bytes, {long} long branches", k.code.len());
        assert!(backward, "{t}: no backward long branch (the loop's)");
    }
}
