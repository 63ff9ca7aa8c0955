//! Register compaction (`regalloc::compact`): regalloc2 spreads values over the whole register
//! file, and emission renumbers its registers by interference so that a kernel uses about as many
//! registers as it has values live at once. These kernels check both halves of that: the counts
//! are small where few values are live at a time (and at least the live count where many are),
//! and the results still match the interpreter on every target — across a divergent loop whose
//! carried values must keep their registers around the back edge while short-lived values
//! inside it share theirs.

mod lower_util;

use lower_util::*;
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::ScalarType;

/// VGPRs below the allocated ones (v0 ids, v1 scratch, v[2:3] pair scratch, v[4:5] spill address).
const RESERVED_VGPRS: u32 = 6;

fn u32s(n: u64, f: impl Fn(u64) -> u64) -> Buffer {
    Buffer::from_bits(ScalarType::U32, (0..n).map(f))
}

/// `n` independent load → add → store chains, one after another: each value is dead once
/// stored, so the whole kernel needs only a handful of VGPRs however long it is.
fn chains(n: u32) -> String {
    let mut s = String::from(
        "kernel @k(%a: ptr<global, u32>, %b: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {\n  %t = thread_id x : u32\n",
    );
    for k in 0..n {
        s += &format!("  %c{k} = const {} : u32\n", k * 7 + 1);
        s += &format!("  %o{k} = const {} : u32\n", k * 64);
        s += &format!("  %i{k} = add %t, %o{k} : u32\n");
        s += &format!("  %p{k} = ptr.offset %a, %i{k} : ptr<global, u32>\n");
        s += &format!("  %v{k} = load %p{k} : u32\n");
        s += &format!("  %x{k} = mul %v{k}, %c{k} : u32\n");
        s += &format!("  %q{k} = ptr.offset %b, %i{k} : ptr<global, u32>\n");
        s += &format!("  store %q{k}, %x{k}\n");
    }
    s += "  return\n}\n";
    s
}

#[test]
fn short_lived_values_share_registers() {
    let n = 40;
    let f = kernel(&chains(n));
    for t in targets() {
        let k = compile(&f, t);
        // Each chain keeps an index, an address pair or two and a loaded value live: far fewer
        // than the 40 chains regalloc2 spreads over the file.
        assert!(
            k.resources.next_free_vgpr <= RESERVED_VGPRS + 16,
            "{t}: {} VGPRs for {n} independent chains",
            k.resources.next_free_vgpr
        );
        let args = [
            ArgValue::Buffer(u32s(64 * u64::from(n), |i| i * 3 + 1)),
            ArgValue::Buffer(u32s(64 * u64::from(n), |_| 0)),
        ];
        check(&f, t, [1, 1, 1], &args);
    }
}

/// 24 loaded values all live until a final reduction (summed in reverse load order): the
/// compaction cannot put two of them in one register.
#[test]
fn simultaneously_live_values_keep_their_registers() {
    let n = 24;
    let mut s = String::from(
        "kernel @k(%a: ptr<global, u32>, %b: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {\n  %t = thread_id x : u32\n",
    );
    for k in 0..n {
        s += &format!("  %o{k} = const {} : u32\n", k * 64);
        s += &format!("  %i{k} = add %t, %o{k} : u32\n");
        s += &format!("  %p{k} = ptr.offset %a, %i{k} : ptr<global, u32>\n");
        s += &format!("  %v{k} = load %p{k} : u32\n");
    }
    // Summed in reverse load order: every loaded value stays live until the sum reaches it.
    s += &format!("  %s{} = mul %v{}, %v{} : u32\n", n - 1, n - 1, n - 1);
    for k in (0..n - 1).rev() {
        s += &format!("  %s{k} = add %s{}, %v{k} : u32\n", k + 1);
    }
    s += "  %q = ptr.offset %b, %t : ptr<global, u32>\n  store %q, %s0\n  return\n}\n";
    let f = kernel(&s);
    for t in targets() {
        let k = compile(&f, t);
        assert!(
            k.resources.next_free_vgpr >= RESERVED_VGPRS + n,
            "{t}: {} VGPRs for {n} values live at once",
            k.resources.next_free_vgpr
        );
        let args = [ArgValue::Buffer(u32s(64 * u64::from(n), |i| i * i + 5)), ArgValue::Buffer(u32s(64, |_| 0))];
        check(&f, t, [1, 1, 1], &args);
    }
}

/// A divergent loop carrying two values, with short-lived temporaries in its body and after it.
#[test]
fn loop_carried_values_survive_compaction() {
    let f = kernel(
        "kernel @k(%a: ptr<global, u32>, %o: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %zero = const 0 : u32
  %one = const 1 : u32
  %three = const 3 : u32
  %lim = and %t, %three : u32
  %n, %sum = loop (%i: u32 = %zero, %acc: u32 = %t) -> (u32, u32) {
    %done = cmp ge %i, %lim : bool
    if %done {
      break %i, %acc
    } else {
      yield
    }
    %j = add %t, %i : u32
    %ap = ptr.offset %a, %j : ptr<global, u32>
    %av = load %ap : u32
    %sq = mul %av, %av : u32
    %acc2 = add %acc, %sq : u32
    %i2 = add %i, %one : u32
    continue %i2, %acc2
  }
  %m = mul %n, %sum : u32
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %m
  return
}
",
    );
    for t in targets() {
        let args = [ArgValue::Buffer(u32s(128, |i| i * 5 + 2)), ArgValue::Buffer(u32s(64, |_| 0))];
        check(&f, t, [1, 1, 1], &args);
    }
}
