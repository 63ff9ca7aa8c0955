//! Interpreter tests, part 2: divergent control flow (if/else with yields, loops with per-lane
//! trip counts and carried values, return inside loops, nested loops with continue) and block
//! barriers (shared-memory exchange across subgroups, `block.sync_pred`, barrier faults).

use super::tests::{cfg, u32s, zeros, B, U32};
use super::*;
use crate::inst::{Imm, Tile};
use crate::ops::{CmpCond, Dim, GroupOp, Opcode, PredOp};

/// Test hook: the interpreter's `run_kernel` (shadowing the glob import), first dumping the
/// kernel and its inputs for the CUDA cross-check when `QD_DUMP_KERNELS` is set
/// (`tests::dump`).
fn run_kernel(f: &Function, cfg: &RunConfig, args: &mut [ArgValue]) -> Result<RunStats, InterpError> {
    super::tests::dump::kernel(f, cfg, args);
    super::run_kernel(f, cfg, args)
}

/// `r = if t % 3 == 0 { t * 2 } else { t + 100 }`, plus a ballot inside each arm (active masks).
#[test]
fn if_else_divergence_with_yields() {
    let mut b = B::new("ifelse", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let masks = b.buf("masks", ScalarType::U64);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let three = b.u(3);
    let m = b.bin(Opcode::Rem, t, three);
    let z = b.u(0);
    let c = b.cmp(CmpCond::Eq, m, z);
    let sg = b.nullary(Opcode::SubgroupId);
    let two = b.u(2);
    let r = b.if_(
        c,
        &[U32, Type::U64],
        |b| {
            let v = b.bin(Opcode::Mul, t, two);
            let tru = b.c(ScalarType::Bool, 1);
            let bal = b.op(Opcode::Ballot, Imm::None, &[tru], Type::U64);
            b.term(Opcode::Yield, &[v, bal]);
        },
        |b| {
            let h = b.u(100);
            let v = b.bin(Opcode::Add, t, h);
            let tru = b.c(ScalarType::Bool, 1);
            let bal = b.op(Opcode::Ballot, Imm::None, &[tru], Type::U64);
            b.term(Opcode::Yield, &[v, bal]);
        },
    );
    b.store_at(out, t, r[0]);
    // After the if every lane is active again.
    let tru = b.c(ScalarType::Bool, 1);
    let after = b.op(Opcode::Ballot, Imm::None, &[tru], Type::U64);
    let sg3 = b.bin(Opcode::Mul, sg, three);
    b.store_at(masks, sg3, r[1]);
    let one = b.u(1);
    let i1 = b.bin(Opcode::Add, sg3, one);
    b.store_at(masks, i1, after);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U64, 6)];
    run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    let want: Vec<u32> = (0..64).map(|t| if t % 3 == 0 { t * 2 } else { t + 100 }).collect();
    assert_eq!(u32s(&args[0]), want);
    // Every lane stores its arm's ballot to the same slot; lanes store in ascending order, so
    // lane 31 wins: t = 31 took the else arm, t = 63 the then arm.
    let else0: u64 = (0..32).filter(|t| t % 3 != 0).map(|t| 1u64 << t).sum();
    let then1: u64 = (32..64).filter(|t| t % 3 == 0).map(|t| 1u64 << (t - 32)).sum();
    let masks = super::tests::bits(&args[1]);
    assert_eq!(masks, vec![else0, 0xFFFF_FFFF, 0, then1, 0xFFFF_FFFF, 0]);
}

/// Per-lane trip counts: `acc = sum(0..t%7)`, with `(a, b)` swapped every iteration (carried
/// values read before any is written) and a loop-exit ballot.
#[test]
fn loops_with_per_lane_trip_counts_and_carried_values() {
    let mut b = B::new("loops", [32, 1, 1], GridPolicy::Fixed([2, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let swp = b.buf("swp", ScalarType::U32);
    let g = b.gid();
    let seven = b.u(7);
    let n = b.bin(Opcode::Rem, g, seven);
    let z = b.u(0);
    let one = b.u(1);
    let r = b.loop_(&[z, z, z, one], &[U32, U32, U32], |b, p| {
        let (i, acc, x, y) = (p[0], p[1], p[2], p[3]);
        let done = b.cmp(CmpCond::Ge, i, n);
        b.if_(done, &[], |b| b.term(Opcode::Break, &[acc, x, i]), |b| b.term(Opcode::Yield, &[]));
        let acc2 = b.bin(Opcode::Add, acc, i);
        let i2 = b.bin(Opcode::Add, i, one);
        b.term(Opcode::Continue, &[i2, acc2, y, x]);
    });
    b.store_at(out, g, r[0]);
    let k = b.u(10);
    let v = b.bin(Opcode::Mul, r[1], k);
    let v = b.bin(Opcode::Add, v, r[2]);
    b.store_at(swp, g, v);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 64)];
    run_kernel(&b.f, &cfg(8), &mut args).unwrap();
    let want: Vec<u32> = (0..64).map(|g| (0..g % 7).sum()).collect();
    assert_eq!(u32s(&args[0]), want);
    let want: Vec<u32> = (0..64).map(|g| (g % 7 % 2) * 10 + g % 7).collect();
    assert_eq!(u32s(&args[1]), want);
}

/// `return` inside a loop: lanes return at iteration t % 5 (writing it), except lanes with
/// t % 5 == 4 which break at iteration 4 and write 99 after the loop.
#[test]
fn return_inside_a_loop() {
    let mut b = B::new("ret", [32, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let after = b.buf("after", ScalarType::U32);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let five = b.u(5);
    let n = b.bin(Opcode::Rem, t, five);
    let four = b.u(4);
    let z = b.u(0);
    b.loop_(&[z], &[], |b, p| {
        let i = p[0];
        let is4 = b.cmp(CmpCond::Eq, i, four);
        b.if_(is4, &[], |b| b.term(Opcode::Break, &[]), |b| b.term(Opcode::Yield, &[]));
        let hit = b.cmp(CmpCond::Eq, i, n);
        b.if_(
            hit,
            &[],
            |b| {
                b.store_at(out, t, i);
                b.ret();
            },
            |b| b.term(Opcode::Yield, &[]),
        );
        let one = b.u(1);
        let i2 = b.bin(Opcode::Add, i, one);
        b.term(Opcode::Continue, &[i2]);
    });
    let tru = b.c(ScalarType::Bool, 1);
    let bal = b.op(Opcode::Ballot, Imm::None, &[tru], Type::U64);
    let bal32 = b.un(Opcode::Cast, bal, U32);
    let k = b.u(99);
    b.store_at(out, t, k);
    b.store_at(after, t, bal32);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 32), zeros(ScalarType::U32, 32)];
    run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    assert_eq!(u32s(&args[0]), (0..32).map(|t| if t % 5 == 4 { 99 } else { t % 5 }).collect::<Vec<u32>>());
    let survivors: u32 = (0..32).filter(|t| t % 5 == 4).map(|t| 1u32 << t).sum();
    assert_eq!(u32s(&args[1]), (0..32).map(|t| if t % 5 == 4 { survivors } else { 0 }).collect::<Vec<u32>>());
}

/// Nested loops with `continue`: count pairs (i, j) in 0..4 × 0..(t % 4 + 1) with i + j + t odd;
/// even pairs `continue` the inner loop early.
#[test]
fn nested_loops_with_continue() {
    let mut b = B::new("nested", [16, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let z = b.u(0);
    let one = b.u(1);
    let two = b.u(2);
    let four = b.u(4);
    let tm = b.bin(Opcode::Rem, t, four);
    let jn = b.bin(Opcode::Add, tm, one);
    let r = b.loop_(&[z, z], &[U32], |b, p| {
        let (i, cnt) = (p[0], p[1]);
        let done = b.cmp(CmpCond::Ge, i, four);
        b.if_(done, &[], |b| b.term(Opcode::Break, &[cnt]), |b| b.term(Opcode::Yield, &[]));
        let inner = b.loop_(&[z, cnt], &[U32], |b, q| {
            let (j, c) = (q[0], q[1]);
            let j1 = b.bin(Opcode::Add, j, one);
            let jd = b.cmp(CmpCond::Ge, j, jn);
            b.if_(jd, &[], |b| b.term(Opcode::Break, &[c]), |b| b.term(Opcode::Yield, &[]));
            let s = b.bin(Opcode::Add, i, j);
            let s = b.bin(Opcode::Add, s, t);
            let par = b.bin(Opcode::Rem, s, two);
            let even = b.cmp(CmpCond::Eq, par, z);
            b.if_(even, &[], |b| b.term(Opcode::Continue, &[j1, c]), |b| b.term(Opcode::Yield, &[]));
            let c1 = b.bin(Opcode::Add, c, one);
            b.term(Opcode::Continue, &[j1, c1]);
        });
        let i1 = b.bin(Opcode::Add, i, one);
        b.term(Opcode::Continue, &[i1, inner[0]]);
    });
    b.store_at(out, t, r[0]);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 16)];
    run_kernel(&b.f, &cfg(4), &mut args).unwrap();
    let want: Vec<u32> = (0..16u32)
        .map(|t| {
            (0..4).flat_map(|i| (0..=t % 4).map(move |j| (i, j))).filter(|(i, j)| (i + j + t) % 2 == 1).count() as u32
        })
        .collect();
    assert_eq!(u32s(&args[0]), want);
}

/// Shared-memory exchange across subgroups: `s[t] = t * 10 + block; sync; out[g] = s[127 - t]`,
/// then `block.sync_pred count (t % 3 == 0)`.
#[test]
fn block_barrier_shared_memory_exchange() {
    for w in [1u32, 8, 32, 64] {
        let mut b = B::new("xchg", [128, 1, 1], GridPolicy::Fixed([2, 1, 1]));
        let out = b.buf("out", ScalarType::U32);
        let cnt = b.buf("cnt", ScalarType::U32);
        let s = b.shared("s", ScalarType::U32, 128);
        let g = b.gid();
        let t = b.dim(Opcode::ThreadId, Dim::X);
        let blk = b.dim(Opcode::BlockId, Dim::X);
        let sa = b.op(Opcode::SharedAddr, Imm::Shared(s), &[], Type::Ptr(AddrSpace::Shared, ScalarType::U32));
        let ten = b.u(10);
        let v = b.bin(Opcode::Mul, t, ten);
        let v = b.bin(Opcode::Add, v, blk);
        // Blocks must not see each other's shared memory: add what was there before (0).
        let prev = b.load_at(sa, t);
        let v = b.bin(Opcode::Add, v, prev);
        b.store_at(sa, t, v);
        b.sync();
        let k = b.u(127);
        let mirror = b.bin(Opcode::Sub, k, t);
        let r = b.load_at(sa, mirror);
        b.store_at(out, g, r);
        let three = b.u(3);
        let m = b.bin(Opcode::Rem, t, three);
        let z = b.u(0);
        let p = b.cmp(CmpCond::Eq, m, z);
        let c = b.op(Opcode::BlockSyncPred, Imm::Pred(PredOp::Count), &[p], U32);
        let all = b.op(Opcode::BlockSyncPred, Imm::Pred(PredOp::And), &[p], Type::BOOL);
        let allu = b.un(Opcode::Cast, all, U32);
        let c = b.bin(Opcode::Add, c, allu);
        b.store_at(cnt, g, c);
        b.ret();
        let mut args = vec![zeros(ScalarType::U32, 256), zeros(ScalarType::U32, 256)];
        let stats = run_kernel(&b.f, &cfg(w), &mut args).unwrap();
        let want: Vec<u32> = (0..256).map(|g| (127 - g % 128) * 10 + g / 128).collect();
        assert_eq!(u32s(&args[0]), want, "w={w}");
        assert_eq!(u32s(&args[1]), vec![43; 256], "w={w}");
        assert_eq!(stats.barriers, 6, "w={w}");
    }
}

/// A subgroup reduce after some lanes returned only sees the live lanes; a barrier after a
/// return counts returned lanes as arrived.
#[test]
fn barrier_after_return_and_reduce_over_live_lanes() {
    let mut b = B::new("retsync", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let k = b.u(40);
    let c = b.cmp(CmpCond::Ge, t, k);
    b.if_(c, &[], |b| b.ret(), |b| b.term(Opcode::Yield, &[]));
    b.sync();
    let sum =
        b.op(Opcode::SubgroupReduce, Imm::Group { op: GroupOp::Add, tile: Tile::Full, inclusive: true }, &[t], U32);
    b.store_at(out, t, sum);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 64)];
    let stats = run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    let s0: u32 = (0..32).sum();
    let s1: u32 = (32..40).sum();
    let want: Vec<u32> = (0..64)
        .map(|t| {
            if t < 32 {
                s0
            } else if t < 40 {
                s1
            } else {
                0
            }
        })
        .collect();
    assert_eq!(u32s(&args[0]), want);
    assert_eq!(stats.barriers, 1);
}

#[test]
fn barrier_under_divergence_faults() {
    let mut b = B::new("div", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let five = b.u(5);
    let c = b.cmp(CmpCond::Lt, t, five);
    b.if_(
        c,
        &[],
        |b| {
            b.sync();
            b.term(Opcode::Yield, &[]);
        },
        |b| b.term(Opcode::Yield, &[]),
    );
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel @div: barrier reached under divergence (active lanes 0x1f, live lanes 0xffffffff) in `block.sync` \
         (block (0,0,0), subgroup 0)"
    );
}

#[test]
fn different_barriers_fault() {
    let mut b = B::new("diff", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let sg = b.nullary(Opcode::SubgroupId);
    let z = b.u(0);
    let c = b.cmp(CmpCond::Eq, sg, z);
    b.if_(
        c,
        &[],
        |b| {
            b.sync();
            b.term(Opcode::Yield, &[]);
        },
        |b| {
            b.sync();
            b.term(Opcode::Yield, &[]);
        },
    );
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel @diff: subgroups of block 0 wait at different barriers: subgroup 0 at `block.sync` (inst4), \
         subgroup 1 at `block.sync` (inst6) (block (0,0,0))"
    );
    // With one subgroup per block the same kernel is fine.
    assert_eq!(run_kernel(&b.f, &cfg(64), &mut []).unwrap().barriers, 1);
}
