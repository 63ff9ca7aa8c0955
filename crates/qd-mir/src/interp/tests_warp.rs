//! Interpreter tests, part 3: the CUDA warp builtins (`match.any`, `match.all`, `activemask`,
//! `lanemask.*`, `elect`, `nanosleep`) at subgroup widths 8, 32 and 64, with every lane active,
//! under a varying `if` and in a partial last subgroup, checked against a plain per-thread
//! reference; plus the pure [`simt`] functions at their edges.

use super::simt;
use super::tests::{cfg, B, U32};
use super::*;
use crate::entities::Value;
use crate::inst::Imm;
use crate::ops::LaneMask;
use crate::ops::{CmpCond, Dim, Opcode};

/// What is written to the output before the run: inactive threads must leave it there.
const SENTINEL: u64 = 0xDEAD_BEEF_0BAD_F00D;

/// The values each thread stores, one output slice per entry, in this order.
const SLOTS: [&str; 13] = [
    "match.any u32 (t % 3)",
    "match.any f32 (-0.0 on t % 4 == 0, else +0.0)",
    "match.any bool (lane < 5)",
    "match.all u32 (subgroup_id)",
    "match.all u32 (t % 3)",
    "match.all f64 (subgroup_id)",
    "activemask",
    "lanemask.lt",
    "lanemask.le",
    "lanemask.eq",
    "lanemask.ge",
    "lanemask.gt",
    "elect",
];

/// Which threads execute the builtins.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Activity {
    /// Every thread (no `if`).
    Full,
    /// Threads with `t % 3 != 0`, inside an `if` on that (varying) condition.
    Partial,
}

fn active(act: Activity, t: u32) -> bool {
    act == Activity::Full || !t.is_multiple_of(3)
}

/// Emits every builtin for thread `t` and stores the results to `out[slot * n + t]`.
fn emit_builtins(b: &mut B, out: Value, t: Value, n: u32) {
    let lane = b.nullary(Opcode::LaneId);
    let sg = b.nullary(Opcode::SubgroupId);
    let three = b.u(3);
    let four = b.u(4);
    let five = b.u(5);
    let zero = b.u(0);
    let t3 = b.bin(Opcode::Rem, t, three);
    let t4 = b.bin(Opcode::Rem, t, four);
    let is0 = b.cmp(CmpCond::Eq, t4, zero);
    let neg0 = b.c(ScalarType::F32, u64::from((-0.0f32).to_bits()));
    let pos0 = b.c(ScalarType::F32, 0);
    let fz = b.op(Opcode::Select, Imm::None, &[is0, neg0, pos0], Type::F32);
    let small = b.cmp(CmpCond::Lt, lane, five);
    let sgf = b.un(Opcode::Cast, sg, Type::F64);
    // `nanosleep` in the middle: it must change nothing.
    b.inst(Opcode::Nanosleep, Imm::None, &[t], &[]);
    let mut vals = vec![
        b.un(Opcode::MatchAny, t3, Type::U64),
        b.un(Opcode::MatchAny, fz, Type::U64),
        b.un(Opcode::MatchAny, small, Type::U64),
        b.un(Opcode::MatchAll, sg, Type::U64),
        b.un(Opcode::MatchAll, t3, Type::U64),
        b.un(Opcode::MatchAll, sgf, Type::U64),
    ];
    for op in [
        Opcode::ActiveMask,
        Opcode::LaneMaskLt,
        Opcode::LaneMaskLe,
        Opcode::LaneMaskEq,
        Opcode::LaneMaskGe,
        Opcode::LaneMaskGt,
    ] {
        vals.push(b.op(op, Imm::None, &[], Type::U64));
    }
    let e = b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
    vals.push(b.un(Opcode::Cast, e, Type::U64));
    assert_eq!(vals.len(), SLOTS.len());
    for (k, v) in vals.into_iter().enumerate() {
        let base = b.u(k as u32 * n);
        let i = b.bin(Opcode::Add, base, t);
        b.store_at(out, i, v);
    }
}

/// A kernel of one block of `n` threads running [`emit_builtins`] under `act`.
fn kernel(n: u32, act: Activity) -> Function {
    let mut b = B::new("warp", [n, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U64);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    match act {
        Activity::Full => emit_builtins(&mut b, out, t, n),
        Activity::Partial => {
            let three = b.u(3);
            let zero = b.u(0);
            let m = b.bin(Opcode::Rem, t, three);
            let c = b.cmp(CmpCond::Ne, m, zero);
            b.if_(
                c,
                &[],
                |b| {
                    emit_builtins(b, out, t, n);
                    b.term(Opcode::Yield, &[]);
                },
                |b| b.term(Opcode::Yield, &[]),
            );
        }
    }
    b.ret();
    if let Err(e) = crate::verify::verify_function(&b.f) {
        panic!("{}", e.render(&b.f));
    }
    b.f
}

/// The reference: what thread `t` of a block of `n` threads stores in each slot, computed per
/// thread from the definitions (independently of [`simt`]).
fn reference(w: u32, n: u32, act: Activity, t: u32) -> [u64; 13] {
    if !active(act, t) {
        return [SENTINEL; 13];
    }
    let (base, lane) = (t - t % w, t % w);
    // The threads of this subgroup that execute the builtin (lanes that exist and are active).
    let peers: Vec<u32> = (0..w).filter(|&j| base + j < n && active(act, base + j)).collect();
    let mask_of = |keep: &dyn Fn(u32) -> bool| peers.iter().filter(|&&j| keep(base + j)).fold(0u64, |m, &j| m | 1 << j);
    let amask = mask_of(&|_| true);
    let same = |f: &dyn Fn(u32) -> u64| mask_of(&|u| f(u) == f(t));
    let all_same = |f: &dyn Fn(u32) -> u64| if same(f) == amask { amask } else { 0 };
    let f0 = |u: u32| u64::from(if u.is_multiple_of(4) { (-0.0f32).to_bits() } else { 0 });
    let below = (1u64 << lane) - 1; // lane < 64
    let width = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let first = peers.first().copied();
    [
        same(&|u| u64::from(u % 3)),
        same(&f0),
        same(&|u| u64::from(u % w < 5)),
        all_same(&|u| u64::from(u / w)),
        all_same(&|u| u64::from(u % 3)),
        all_same(&|u| (u64::from(u / w) as f64).to_bits()),
        amask,
        below,
        below | 1 << lane,
        1 << lane,
        width & !below,
        width & !(below | 1 << lane),
        u64::from(Some(lane) == first),
    ]
}

/// Runs the kernel at width `w` with `n` threads under `act` and compares every slot of every
/// thread with [`reference`]; returns the output for extra spot checks.
fn check(w: u32, n: u32, act: Activity) -> Vec<u64> {
    let f = kernel(n, act);
    let len = SLOTS.len() * n as usize;
    let mut args = vec![ArgValue::Buffer(Buffer::from_bits(ScalarType::U64, vec![SENTINEL; len]))];
    if let Err(e) = run_kernel(&f, &cfg(w), &mut args) {
        panic!("width {w}, {n} threads, {act:?}: {e}");
    }
    let got = super::tests::bits(&args[0]);
    for t in 0..n {
        let want = reference(w, n, act, t);
        for (k, name) in SLOTS.iter().enumerate() {
            let g = got[k * n as usize + t as usize];
            assert_eq!(
                g, want[k],
                "width {w}, {n} threads, {act:?}: thread {t}, {name}: got {g:#x}, want {:#x}",
                want[k]
            );
        }
    }
    got
}

/// Slot `k` of thread `t` in an output of `n` threads.
fn at(out: &[u64], n: u32, k: usize, t: u32) -> u64 {
    out[k * n as usize + t as usize]
}

#[test]
fn width_8() {
    for act in [Activity::Full, Activity::Partial] {
        check(8, 16, act);
        check(8, 13, act); // second subgroup has 5 lanes
    }
    // Spot checks with literal numbers (t = 0..16, subgroups {0..8}, {8..16}).
    let o = check(8, 16, Activity::Full);
    assert_eq!(at(&o, 16, 0, 0), 0b0100_1001); // t % 3 == 0: t = 0, 3, 6
    assert_eq!(at(&o, 16, 0, 9), 0b0100_1001 << 1); // t = 9, 12, 15 → lanes 1, 4, 7
    assert_eq!(at(&o, 16, 1, 4), 0b0001_0001); // -0.0 at t = 0, 4
    assert_eq!(at(&o, 16, 1, 5), 0b1110_1110);
    assert_eq!(at(&o, 16, 2, 2), 0b0001_1111); // lane < 5
    assert_eq!(at(&o, 16, 3, 10), 0xFF);
    assert_eq!(at(&o, 16, 4, 10), 0);
    assert_eq!(at(&o, 16, 5, 3), 0xFF);
    assert_eq!(at(&o, 16, 6, 11), 0xFF);
    assert_eq!([7, 8, 9, 10, 11].map(|k| at(&o, 16, k, 11)), [0b0111, 0b1111, 0b1000, 0xF8, 0xF0]);
    assert_eq!((0..16).map(|t| at(&o, 16, 12, t)).collect::<Vec<_>>(), [[1, 0, 0, 0, 0, 0, 0, 0]; 2].concat());
    let o = check(8, 16, Activity::Partial);
    // Active: t % 3 != 0 → subgroup 0 lanes 1, 2, 4, 5, 7; subgroup 1 lanes 0, 2, 3, 5, 6.
    assert_eq!(at(&o, 16, 6, 1), 0b1011_0110);
    assert_eq!(at(&o, 16, 6, 8), 0b0110_1101);
    assert_eq!(at(&o, 16, 0, 1), 0b1001_0010); // t % 3 == 1: t = 1, 4, 7
    assert_eq!(at(&o, 16, 3, 1), 0b1011_0110); // uniform value: the active mask
    assert_eq!(at(&o, 16, 4, 1), 0); // 1 and 2 differ
    assert_eq!(at(&o, 16, 0, 0), SENTINEL);
    assert_eq!((0..8).map(|t| at(&o, 16, 12, t)).collect::<Vec<_>>(), [SENTINEL, 1, 0, SENTINEL, 0, 0, SENTINEL, 0]);
    assert_eq!(at(&o, 16, 12, 8), 1); // lane 0 of subgroup 1 is active
                                      // The lane masks do not depend on activity.
    assert_eq!([7, 8, 9, 10, 11].map(|k| at(&o, 16, k, 13)), [0x1F, 0x3F, 0x20, 0xE0, 0xC0]);
    // A partial subgroup: lanes 5..8 of subgroup 1 do not exist.
    let o = check(8, 13, Activity::Full);
    assert_eq!(at(&o, 13, 6, 12), 0x1F);
    assert_eq!(at(&o, 13, 3, 12), 0x1F);
    assert_eq!(at(&o, 13, 10, 12), 0xF0); // lanemask.ge still covers every lane < W
}

#[test]
fn width_32() {
    for act in [Activity::Full, Activity::Partial] {
        check(32, 64, act);
        check(32, 45, act);
    }
    let o = check(32, 64, Activity::Full);
    assert_eq!(at(&o, 64, 0, 0), 0x4924_9249); // t = 0, 3, …, 30
    assert_eq!(at(&o, 64, 0, 32), 0x4924_9249); // t % 3 == 2: t = 32, 35, …, 62 → lanes 0, 3, …, 30
    assert_eq!(at(&o, 64, 0, 33), 0x9249_2492); // t = 33, 36, …, 63 → lanes 1, 4, …, 31
    assert_eq!(at(&o, 64, 6, 40), 0xFFFF_FFFF);
    assert_eq!(at(&o, 64, 11, 63), 0);
    assert_eq!(at(&o, 64, 10, 63), 0x8000_0000);
    assert_eq!(at(&o, 64, 8, 63), 0xFFFF_FFFF);
    let o = check(32, 64, Activity::Partial);
    let act0: u64 = (0..32).filter(|t| t % 3 != 0).map(|t| 1 << t).sum();
    assert_eq!(act0, 0xB6DB_6DB6);
    assert_eq!(at(&o, 64, 6, 1), act0);
    assert_eq!(at(&o, 64, 5, 2), act0);
    assert_eq!(at(&o, 64, 12, 1), 1);
    assert_eq!(at(&o, 64, 12, 32), 1); // t = 32 (lane 0): 32 % 3 = 2, active, so elected
    assert_eq!(at(&o, 64, 12, 34), 0);
}

#[test]
fn width_64() {
    for act in [Activity::Full, Activity::Partial] {
        check(64, 128, act);
        check(64, 100, act);
    }
    let o = check(64, 128, Activity::Full);
    assert_eq!(at(&o, 128, 6, 0), u64::MAX);
    assert_eq!(at(&o, 128, 3, 70), u64::MAX);
    assert_eq!(at(&o, 128, 0, 0), 0x9249_2492_4924_9249);
    assert_eq!([7, 8, 9, 10, 11].map(|k| at(&o, 128, k, 127)), [u64::MAX >> 1, u64::MAX, 1 << 63, 1 << 63, 0]);
    assert_eq!([7, 8, 9, 10, 11].map(|k| at(&o, 128, k, 64)), [0, 1, 1, u64::MAX, u64::MAX - 1]);
    let o = check(64, 100, Activity::Full);
    assert_eq!(at(&o, 100, 6, 99), (1 << 36) - 1);
    let o = check(64, 128, Activity::Partial);
    let act0: u64 = (0..64).filter(|t| t % 3 != 0).map(|t| 1 << t).sum();
    assert_eq!(at(&o, 128, 6, 1), act0);
    assert_eq!(at(&o, 128, 0, 1), (0..64).filter(|t| t % 3 == 1).map(|t| 1u64 << t).sum::<u64>());
}

/// `match.*` compare bits: `+0.0` and `-0.0` differ, equal NaN bits match; stray high bits of an
/// `i32` register are ignored (canonicalisation).
#[test]
fn simt_match_compares_canonical_bits() {
    let (p0, n0, nan) = (0u64, u64::from((-0.0f32).to_bits()), u64::from(f32::NAN.to_bits()));
    let vals = [p0, n0, nan, nan, p0, n0, nan, p0];
    assert_eq!(
        simt::match_any(ScalarType::F32, &vals, 0xFF, 8),
        [0b1001_0001, 0b0010_0010, 0b0100_1100, 0b0100_1100, 0b1001_0001, 0b0010_0010, 0b0100_1100, 0b1001_0001]
    );
    // Inactive lanes neither match nor receive a mask.
    assert_eq!(simt::match_any(ScalarType::F32, &vals, 0b0000_0110, 8), [0, 0b10, 0b100, 0, 0, 0, 0, 0]);
    assert_eq!(simt::match_all(ScalarType::F32, &vals, 0b0000_1100, 8), 0b1100);
    assert_eq!(simt::match_all(ScalarType::F32, &vals, 0b0001_0001, 8), 0b0001_0001);
    assert_eq!(simt::match_all(ScalarType::F32, &vals, 0b0000_0011, 8), 0);
    assert_eq!(simt::match_all(ScalarType::F32, &vals, 0, 8), 0);
    let i32s = [0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 5, 0x1_0000_0005];
    assert_eq!(simt::match_any(ScalarType::I32, &i32s, 0xF, 4), [0b0011, 0b0011, 0b1100, 0b1100]);
    assert_eq!(simt::match_all(ScalarType::Bool, &[1, 1, 1], 0b111, 4), 0b111);
    // Mask bits at or above the width are ignored.
    assert_eq!(simt::match_all(ScalarType::U32, &[7; 4], 0xFF, 4), 0xF);
    assert_eq!(simt::active_mask(0xFF, 4), 0xF);
    assert_eq!(simt::active_mask(u64::MAX, 64), u64::MAX);
    assert_eq!(simt::elect(0b1010_0000, 8), [0, 0, 0, 0, 0, 1, 0, 0]);
    assert_eq!(simt::elect(0, 4), [0; 4]);
    assert_eq!(simt::elect(0xF0, 4), [0; 4]);
}

#[test]
fn simt_lane_masks_at_the_edges() {
    use LaneMask as K;
    let all = [K::Lt, K::Le, K::Eq, K::Ge, K::Gt];
    assert_eq!(all.map(|k| simt::lane_mask(k, 0, 64)), [0, 1, 1, u64::MAX, u64::MAX - 1]);
    assert_eq!(all.map(|k| simt::lane_mask(k, 63, 64)), [u64::MAX >> 1, u64::MAX, 1 << 63, 1 << 63, 0]);
    assert_eq!(all.map(|k| simt::lane_mask(k, 31, 32)), [0x7FFF_FFFF, 0xFFFF_FFFF, 1 << 31, 1 << 31, 0]);
    assert_eq!(all.map(|k| simt::lane_mask(k, 3, 8)), [0b111, 0b1111, 0b1000, 0xF8, 0xF0]);
    // Out-of-range lanes and widths do not panic: the width clamps to 64, a lane past the end
    // is above every lane.
    assert_eq!(all.map(|k| simt::lane_mask(k, 70, 8)), [0xFF, 0xFF, 0, 0, 0]);
    assert_eq!(all.map(|k| simt::lane_mask(k, 2, 1000)), [0b11, 0b111, 0b100, !0b11, !0b111]);
    assert_eq!(all.map(|k| simt::lane_mask(k, 0, 0)), [0; 5]);
}

/// Unverified MIR with a pointer operand faults instead of producing garbage.
#[test]
fn match_on_a_pointer_faults() {
    let mut b = B::new("bad", [8, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U64);
    b.un(Opcode::MatchAny, out, Type::U64);
    b.ret();
    let mut args = vec![ArgValue::Buffer(Buffer::from_bits(ScalarType::U64, vec![0; 1]))];
    let e = run_kernel(&b.f, &cfg(8), &mut args).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("expected a scalar, found ptr<global, u64>"), "{e}");
    let mut b = B::new("bad", [8, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    b.param("x", U32);
    let big = b.c(ScalarType::U64, 5);
    b.inst(Opcode::Nanosleep, Imm::None, &[big], &[]);
    b.ret();
    let mut args = vec![ArgValue::Scalar(ScalarType::U32, 0)];
    let e = run_kernel(&b.f, &cfg(8), &mut args).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("type mismatch: expected u32, found u64"), "{e}");
}
