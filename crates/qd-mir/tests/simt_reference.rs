//! Reference tests for the SIMT collective semantics (`qd_mir::interp::simt`).
//!
//! Every collective is compared with an independent, obvious plain-Rust definition written here
//! (sequential folds/prefixes in lane order, direct index math for shuffles, loops for ballots and
//! votes, native typed arithmetic instead of `eval`) for every op × group operator × type ×
//! width × tile × active-mask pattern, with a deterministic SplitMix64 generator. Float inputs of
//! the bulk sweep are integer-valued (or powers of two for `mul`) so that the evaluation order
//! cannot change a result. The exact butterfly / Hillis–Steele / segmented orders are checked
//! separately, bit for bit, on adversarial floats against double-buffered tree-order references,
//! against the literal Quadrants segment-distance formula, and against the shuffle-tree expansion
//! built from `simt::shuffle` itself.

// The references are deliberately written as plain lane-index loops, the most obvious form.
#![allow(clippy::needless_range_loop)]

use qd_mir::eval::EvalError;
use qd_mir::interp::simt::{self, ShuffleKind, VoteKind};
use qd_mir::{GroupOp, ScalarType, Tile};

// The plain-Rust reference definitions, shared with the whole-kernel tests (`interp_simt*.rs`);
// each test binary uses a different part of them.
#[allow(dead_code)]
#[path = "common/reference.rs"]
mod reference;
use reference::*;

// ----------------------------------------------------------------------------------------------
// Deterministic PRNG
// ----------------------------------------------------------------------------------------------

/// SplitMix64 (Steele, Lea, Flood 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ----------------------------------------------------------------------------------------------
// Independent scalar semantics (native typed arithmetic; no `eval`)
// ----------------------------------------------------------------------------------------------

const TYPES: [ScalarType; 7] = [
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
    ScalarType::Bool,
];
const WIDTHS: [u32; 5] = [4, 8, 16, 32, 64];

// ----------------------------------------------------------------------------------------------
// Obvious reference definitions
// ----------------------------------------------------------------------------------------------

// ----------------------------------------------------------------------------------------------
// Input generators
// ----------------------------------------------------------------------------------------------

/// Values for which every evaluation order gives the same result.
fn gen_vals(rng: &mut SplitMix64, op: GroupOp, ty: ScalarType, w: usize) -> Vec<u64> {
    (0..w)
        .map(|_| match ty {
            ScalarType::Bool => rng.below(2),
            ScalarType::I32 | ScalarType::U32 => rng.next() & 0xFFFF_FFFF,
            ScalarType::I64 | ScalarType::U64 => rng.next(),
            ScalarType::F32 | ScalarType::F64 => {
                let x = if op == GroupOp::Mul {
                    // Powers of two (and their negatives): every product is exact.
                    [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0][rng.below(7) as usize]
                } else {
                    rng.below(201) as f64 - 100.0
                };
                if ty == ScalarType::F32 {
                    f32b(x as f32)
                } else {
                    f64b(x)
                }
            }
        })
        .collect()
}

/// Is the value "odd" (for the divergent then-arm mask)?
fn odd(ty: ScalarType, b: u64) -> bool {
    match ty {
        ScalarType::F32 => (bf32(b) as i64) & 1 != 0,
        ScalarType::F64 => (bf64(b) as i64) & 1 != 0,
        _ => b & 1 != 0,
    }
}

/// Active-mask patterns: full, empty, single lanes, alternating, random partial, sparse,
/// the then-arm `v odd` and the then-arm of a partial mask.
fn masks(rng: &mut SplitMix64, ty: ScalarType, vals: &[u64], w: usize) -> Vec<u64> {
    let full = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let then_arm = (0..w).filter(|&i| odd(ty, vals[i])).fold(0u64, |m, i| m | 1 << i);
    let partial = rng.next() & full;
    vec![
        full,
        0,
        1,
        1 << (w - 1),
        1 << rng.below(w as u64),
        0x5555_5555_5555_5555 & full,
        0xAAAA_AAAA_AAAA_AAAA & full,
        rng.next() & full,
        rng.next() & rng.next() & full,
        full & !(1 << rng.below(w as u64)),
        then_arm,
        then_arm & partial,
    ]
}

fn tiles(w: u32) -> Vec<Tile> {
    let lw = w.trailing_zeros() as u8;
    let mut t = vec![Tile::Full];
    t.extend((0..=lw).map(Tile::Log2));
    if lw < 6 {
        t.push(Tile::Log2(lw + 1)); // clamped to the width
    }
    t
}

fn heads_patterns(rng: &mut SplitMix64, w: usize) -> Vec<Vec<u64>> {
    vec![
        vec![0; w],
        vec![1; w],
        (0..w).map(|_| if rng.below(4) == 0 { rng.next() | 1 } else { 0 }).collect(),
        (0..w).map(|i| u64::from(i % 5 == 3)).collect(),
    ]
}

// ----------------------------------------------------------------------------------------------
// Bulk sweeps
// ----------------------------------------------------------------------------------------------

#[test]
fn reduce_scan_segreduce_match_sequential_references() {
    let mut rng = SplitMix64(0x5157_0001);
    let mut checked = 0u64;
    for w in WIDTHS {
        let wu = w as usize;
        for tile in tiles(w) {
            for ty in TYPES {
                for op in GroupOp::ALL {
                    if !legal(op, ty) {
                        continue;
                    }
                    for _ in 0..2 {
                        let vals = gen_vals(&mut rng, op, ty, wu);
                        let heads = heads_patterns(&mut rng, wu);
                        for active in masks(&mut rng, ty, &vals, wu) {
                            let ctx =
                                format!("w={w} tile={tile:?} ty={ty:?} op={op:?} active={active:#x} vals={vals:x?}");
                            let got = simt::reduce(op, ty, &vals, active, w, tile).expect("legal reduce");
                            assert_eq!(got, ref_reduce(op, ty, &vals, active, wu, tile), "reduce {ctx}");
                            for incl in [true, false] {
                                let got = simt::scan(op, ty, incl, &vals, active, w, tile).expect("legal scan");
                                let want = ref_scan(op, ty, incl, &vals, active, wu, tile);
                                assert_eq!(got, want, "scan incl={incl} {ctx}");
                            }
                            for h in &heads {
                                let got = simt::segreduce(op, ty, &vals, h, active, w, tile).expect("legal segreduce");
                                let want = ref_segreduce(op, ty, &vals, h, active, wu, tile);
                                assert_eq!(got, want, "segreduce heads={h:x?} {ctx}");
                            }
                            checked += 7;
                        }
                    }
                }
            }
        }
    }
    eprintln!("reduce/scan/segreduce cases checked: {checked}");
    assert!(checked > 50_000);
}

#[test]
fn illegal_operator_type_pairs_are_bad_type_for_every_mask_and_tile() {
    let mut n = 0;
    for ty in [ScalarType::F32, ScalarType::F64] {
        for op in [GroupOp::And, GroupOp::Or, GroupOp::Xor] {
            for w in WIDTHS {
                for tile in tiles(w) {
                    for active in [0u64, 1, u64::MAX] {
                        let v = vec![f32b(1.0); w as usize];
                        assert_eq!(simt::reduce(op, ty, &v, active, w, tile), Err(EvalError::BadType));
                        assert_eq!(simt::scan(op, ty, true, &v, active, w, tile), Err(EvalError::BadType));
                        assert_eq!(simt::scan(op, ty, false, &v, active, w, tile), Err(EvalError::BadType));
                        assert_eq!(simt::segreduce(op, ty, &v, &v, active, w, tile), Err(EvalError::BadType));
                        n += 4;
                    }
                }
            }
        }
    }
    assert_eq!(n, 2 * 3 * 3 * 4 * (5 + 6 + 7 + 8 + 8));
}

#[test]
fn votes_match_loop_references() {
    let mut rng = SplitMix64(0x5157_0002);
    let mut checked = 0u64;
    for w in WIDTHS {
        let wu = w as usize;
        for tile in tiles(w) {
            for ty in TYPES {
                for pattern in 0..5 {
                    let base = gen_vals(&mut rng, GroupOp::Add, ty, wu);
                    let c = base[0];
                    let vals: Vec<u64> = match pattern {
                        0 => base.clone(),
                        1 => vec![c; wu],
                        // Mostly one value, a few differing lanes.
                        2 => base.iter().map(|&b| if rng.below(8) == 0 { b } else { c }).collect(),
                        // Mostly zero (false) / mostly non-zero (true).
                        3 => base.iter().map(|&b| if rng.below(8) == 0 { b } else { 0 }).collect(),
                        _ => base.iter().map(|&b| if truthy(ty, b) { b } else { rid(GroupOp::Mul, ty) }).collect(),
                    };
                    for active in masks(&mut rng, ty, &vals, wu) {
                        for kind in [VoteKind::All, VoteKind::Any, VoteKind::Eq] {
                            let got = simt::vote(kind, ty, &vals, active, w, tile);
                            let want = ref_vote(kind, ty, &vals, active, wu, tile);
                            assert_eq!(
                                got, want,
                                "{kind:?} w={w} tile={tile:?} ty={ty:?} active={active:#x} {vals:x?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("vote cases checked: {checked}");
    assert!(checked > 10_000);
}

#[test]
fn vote_eq_float_edge_cases() {
    let nan = f32b(f32::NAN);
    let (pz, nz) = (f32b(0.0), f32b(-0.0));
    let t = Tile::Full;
    // +0 == -0.
    assert_eq!(simt::vote(VoteKind::Eq, ScalarType::F32, &[pz, nz, pz, nz], 0xF, 4, t), vec![1; 4]);
    // A NaN anywhere → false, even alone.
    assert_eq!(simt::vote(VoteKind::Eq, ScalarType::F32, &[pz, nan, pz, pz], 0xF, 4, t), vec![0; 4]);
    assert_eq!(simt::vote(VoteKind::Eq, ScalarType::F32, &[nan, 7, 8, 9], 0x1, 4, t), vec![0, 7, 8, 9]);
    // …unless the NaN lane is inactive.
    assert_eq!(simt::vote(VoteKind::Eq, ScalarType::F32, &[pz, nan, nz, pz], 0xD, 4, t), vec![1, nan, 1, 1]);
    // Tiles are independent.
    let v = [1, 1, 2, 3, 5, 5, 5, 5];
    assert_eq!(simt::vote(VoteKind::Eq, ScalarType::I32, &v, 0xFF, 8, Tile::Log2(1)), vec![1, 1, 0, 0, 1, 1, 1, 1]);
    // Truth of floats: -0.0 is false, NaN true.
    assert_eq!(simt::vote(VoteKind::Any, ScalarType::F32, &[nz, nz], 0x3, 2, t), vec![0, 0]);
    assert_eq!(simt::vote(VoteKind::All, ScalarType::F32, &[nan, f32b(1.0)], 0x3, 2, t), vec![1, 1]);
}

#[test]
fn shuffles_match_index_math() {
    let mut rng = SplitMix64(0x5157_0003);
    let mut checked = 0u64;
    for w in WIDTHS {
        let wu = w as usize;
        for round in 0..40 {
            let vals: Vec<u64> = (0..wu).map(|_| rng.next()).collect();
            let any_src: Vec<u64> = (0..wu)
                .map(|_| match rng.below(6) {
                    0 => u64::from(u32::MAX),
                    1 => rng.below(2 * w as u64 + 3),
                    _ => rng.below(w as u64),
                })
                .collect();
            let small: Vec<u64> = (0..wu).map(|_| rng.below(4)).collect();
            let uni = vec![if round % 5 == 0 { rng.next() & 0xFFFF_FFFF } else { rng.below(w as u64) }; wu];
            let uniform_small = vec![1u64 << rng.below(u64::from(w.trailing_zeros()) + 1); wu];
            for active in masks(&mut rng, ScalarType::U64, &vals, wu) {
                let cases = [
                    (ShuffleKind::Idx, &any_src),
                    (ShuffleKind::Up, &any_src),
                    (ShuffleKind::Up, &small),
                    (ShuffleKind::Up, &uniform_small),
                    (ShuffleKind::Down, &any_src),
                    (ShuffleKind::Down, &small),
                    (ShuffleKind::Down, &uniform_small),
                    (ShuffleKind::Xor, &any_src),
                    (ShuffleKind::Xor, &uniform_small),
                    (ShuffleKind::Broadcast, &uni),
                    (ShuffleKind::Broadcast, &any_src),
                ];
                for (kind, src) in cases {
                    let got = simt::shuffle(kind, &vals, src, active, w);
                    let want = ref_shuffle(kind, &vals, src, active, wu);
                    assert_eq!(got, want, "{kind:?} w={w} active={active:#x} src={src:?}");
                    checked += 1;
                }
            }
        }
    }
    eprintln!("shuffle cases checked: {checked}");
}

#[test]
fn shuffle_documented_choices() {
    let v: Vec<u64> = (100..108).collect();
    let all = 0xFF;
    // Out of range → own value.
    assert_eq!(simt::shuffle(ShuffleKind::Up, &v, &[3; 8], all, 8), vec![100, 101, 102, 100, 101, 102, 103, 104]);
    assert_eq!(simt::shuffle(ShuffleKind::Down, &v, &[3; 8], all, 8), vec![103, 104, 105, 106, 107, 105, 106, 107]);
    assert_eq!(simt::shuffle(ShuffleKind::Xor, &v, &[8; 8], all, 8), v);
    // idx wraps mod W.
    assert_eq!(simt::shuffle(ShuffleKind::Idx, &v, &[9; 8], all, 8), vec![101; 8]);
    // Inactive source → own value; inactive lane → own value.
    assert_eq!(simt::shuffle(ShuffleKind::Idx, &v, &[0; 8], 0xFE, 8), v);
    assert_eq!(simt::shuffle(ShuffleKind::Idx, &v, &[2; 8], 0x0F, 8), vec![102, 102, 102, 102, 104, 105, 106, 107]);
    // Broadcast uses the first active lane's index (lane 2: index 5).
    let idx = [7, 6, 5, 4, 3, 2, 1, 0];
    assert_eq!(simt::shuffle(ShuffleKind::Broadcast, &v, &idx, 0xFC, 8), vec![100, 101, 105, 105, 105, 105, 105, 105]);
    // The source lane need not be active: broadcast reads its register (lane 1 here).
    assert_eq!(
        simt::shuffle(ShuffleKind::Broadcast, &v, &[1; 8], 0xF0, 8),
        vec![100, 101, 102, 103, 101, 101, 101, 101]
    );
    // Operands are u32: high bits ignored.
    assert_eq!(simt::shuffle(ShuffleKind::Idx, &v, &[(1 << 32) | 3; 8], all, 8), vec![103; 8]);
    // No active lane: own values.
    assert_eq!(simt::shuffle(ShuffleKind::Broadcast, &v, &idx, 0, 8), v);
}

#[test]
fn ballots_match_loop_references() {
    let mut rng = SplitMix64(0x5157_0004);
    for w in WIDTHS {
        let wu = w as usize;
        for _ in 0..50 {
            let pred: Vec<u64> = (0..wu).map(|_| if rng.below(2) == 0 { 0 } else { rng.next() | 1 }).collect();
            for active in masks(&mut rng, ScalarType::U64, &pred, wu) {
                assert_eq!(simt::ballot(&pred, active, w), ref_ballot(&pred, active, wu, 64));
                for n in [1, 2, 7, 16, 31, 32, 33, 64] {
                    let got = simt::ballot_first_n(&pred, active, n);
                    assert_eq!(got, ref_ballot(&pred, active, wu, (n as usize).min(32)), "n={n} w={w}");
                    assert!(got <= u64::from(u32::MAX));
                }
            }
        }
    }
    let pred = [1u64; 64];
    assert_eq!(simt::ballot(&pred, u64::MAX, 64), u64::MAX);
    assert_eq!(simt::ballot(&pred, u64::MAX, 32), 0xFFFF_FFFF);
    assert_eq!(simt::ballot_first_n(&pred, u64::MAX, 32), 0xFFFF_FFFF);
    assert_eq!(simt::ballot_first_n(&pred, u64::MAX, 5), 0x1F);
    assert_eq!(simt::ballot_first_n(&pred[..4], u64::MAX, 32), 0xF);
}

// ----------------------------------------------------------------------------------------------
// Exact combination order on adversarial floats
// ----------------------------------------------------------------------------------------------

fn adversarial_f32(rng: &mut SplitMix64) -> u64 {
    const POOL: [f32; 16] = [
        1e30,
        -1e30,
        1.0,
        -1.0,
        1.1,
        1e-7,
        1.0e-45,
        -0.0,
        0.0,
        f32::MAX,
        f32::MIN,
        0.1,
        1.0 / 3.0,
        16_777_216.0,
        f32::INFINITY,
        -3.5e-38,
    ];
    match rng.below(8) {
        0 => f32b(f32::NAN),
        1..=3 => f32b(f32::from_bits(rng.next() as u32 & 0x7F7F_FFFF) * if rng.below(2) == 0 { 1.0 } else { -1.0 }),
        _ => f32b(POOL[rng.below(16) as usize]),
    }
}

fn adversarial_f64(rng: &mut SplitMix64) -> u64 {
    const POOL: [f64; 14] = [
        1e300,
        -1e300,
        1.0,
        -1.0,
        0.1,
        1e-17,
        5e-324,
        -0.0,
        0.0,
        f64::MAX,
        1.0 / 3.0,
        9.007e15,
        f64::NEG_INFINITY,
        2.5,
    ];
    match rng.below(8) {
        0 => f64b(f64::NAN),
        1..=3 => f64b(f64::from_bits(rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * if rng.below(2) == 0 { 1.0 } else { -1.0 }),
        _ => f64b(POOL[rng.below(14) as usize]),
    }
}

/// Butterfly with a fresh array per step: `v'[i] = v[i] ⊕ v[i ^ k]`, inactive lanes identity.
fn tree_reduce(op: GroupOp, ty: ScalarType, v: &[u64], active: u64, w: usize, t: usize) -> Vec<u64> {
    let mut cur: Vec<u64> = (0..w).map(|i| if act(active, i) { v[i] } else { rid(op, ty) }).collect();
    let mut k = 1;
    while k < t {
        cur = (0..w).map(|i| rcomb(op, ty, cur[i], cur[i ^ k])).collect();
        k *= 2;
    }
    (0..w).map(|i| if act(active, i) { cur[i] } else { v[i] }).collect()
}

/// Hillis–Steele with a fresh array per step: `v'[i] = v[i-k] ⊕ v[i]` when `i mod T >= k`.
fn tree_scan(op: GroupOp, ty: ScalarType, incl: bool, v: &[u64], active: u64, w: usize, t: usize) -> Vec<u64> {
    let id = rid(op, ty);
    let mut cur: Vec<u64> = (0..w).map(|i| if act(active, i) { v[i] } else { id }).collect();
    if !incl {
        cur = (0..w).map(|i| if i % t == 0 { id } else { cur[i - 1] }).collect();
    }
    let mut k = 1;
    while k < t {
        cur = (0..w).map(|i| if i % t >= k { rcomb(op, ty, cur[i - k], cur[i]) } else { cur[i] }).collect();
        k *= 2;
    }
    (0..w).map(|i| if act(active, i) { cur[i] } else { v[i] }).collect()
}

/// Quadrants' `_segment_head_distance_tiled`, literally (ballot, clz, half-local coordinates).
fn quadrants_distance(heads: &[u64], active: u64, w: usize, l: u32) -> Vec<usize> {
    let full = ref_ballot(heads, active, w, 64);
    (0..w)
        .map(|lane| {
            if l <= 5 {
                let half_base = lane & !31;
                let head_mask = (full >> half_base) as u32;
                let lih = (lane - half_base) as u32;
                let group_base = lih & !((1u32 << l) - 1);
                let group_mask = (((1u64 << (1u32 << l)) - 1) as u32) << group_base;
                let eff = (head_mask & group_mask) | (1 << group_base);
                let incl = 0xFFFF_FFFFu32 >> (31 - lih);
                let head = 31 - (eff & incl).leading_zeros();
                (lih - head) as usize
            } else {
                let lih = lane as u64;
                let eff = full | 1;
                let incl = u64::MAX >> (63 - lih);
                let head = 63 - u64::from((eff & incl).leading_zeros());
                (lih - head) as usize
            }
        })
        .collect()
}

/// Segmented Hillis–Steele with a fresh array per step: `v'[i] = v[i] ⊕ v[i-k]` when `d_i >= k`.
fn tree_segreduce(op: GroupOp, ty: ScalarType, v: &[u64], heads: &[u64], active: u64, w: usize, t: usize) -> Vec<u64> {
    let l = t.trailing_zeros();
    let d = quadrants_distance(heads, active, w, l);
    let mut cur: Vec<u64> = (0..w).map(|i| if act(active, i) { v[i] } else { rid(op, ty) }).collect();
    let mut k = 1;
    while k < t {
        cur = (0..w).map(|i| if d[i] >= k { rcomb(op, ty, cur[i], cur[i - k]) } else { cur[i] }).collect();
        k *= 2;
    }
    (0..w).map(|i| if act(active, i) { cur[i] } else { v[i] }).collect()
}

#[test]
fn float_orders_are_bit_exact_with_the_tree_references() {
    let mut rng = SplitMix64(0x5157_0005);
    let mut checked = 0u64;
    let mut order_sensitive = 0u64;
    for ty in [ScalarType::F32, ScalarType::F64] {
        for w in WIDTHS {
            let wu = w as usize;
            for tile in tiles(w) {
                let t = tile_size(tile, wu);
                for op in [GroupOp::Add, GroupOp::Mul, GroupOp::Min, GroupOp::Max] {
                    for _ in 0..4 {
                        let vals: Vec<u64> = (0..wu)
                            .map(|_| {
                                if ty == ScalarType::F32 {
                                    adversarial_f32(&mut rng)
                                } else {
                                    adversarial_f64(&mut rng)
                                }
                            })
                            .collect();
                        let heads: Vec<u64> = (0..wu).map(|_| u64::from(rng.below(3) == 0)).collect();
                        for active in masks(&mut rng, ty, &vals, wu) {
                            let ctx = format!("{ty:?} {op:?} w={w} {tile:?} active={active:#x}");
                            let got = simt::reduce(op, ty, &vals, active, w, tile).expect("reduce");
                            assert_eq!(got, tree_reduce(op, ty, &vals, active, wu, t), "reduce {ctx}");
                            if got != ref_reduce(op, ty, &vals, active, wu, tile) {
                                order_sensitive += 1;
                            }
                            for incl in [true, false] {
                                let got = simt::scan(op, ty, incl, &vals, active, w, tile).expect("scan");
                                assert_eq!(got, tree_scan(op, ty, incl, &vals, active, wu, t), "scan {incl} {ctx}");
                            }
                            let got = simt::segreduce(op, ty, &vals, &heads, active, w, tile).expect("segreduce");
                            assert_eq!(got, tree_segreduce(op, ty, &vals, &heads, active, wu, t), "segreduce {ctx}");
                            checked += 4;
                        }
                    }
                }
            }
        }
    }
    eprintln!("adversarial float cases: {checked}, reduce results differing from a sequential fold: {order_sensitive}");
    // The inputs really do make the order observable, so the bit-exact checks above have teeth.
    assert!(order_sensitive > 100, "only {order_sensitive} order-sensitive cases");
}

#[test]
fn known_order_dependent_sums() {
    let f = |xs: &[f32]| xs.iter().map(|&x| f32b(x)).collect::<Vec<_>>();
    let v = f(&[1e30, 1.0, -1e30, 1.0]);
    // Butterfly: k=1: (1e30+1, 1+1e30, -1e30+1, 1-1e30) = (1e30, 1e30, -1e30, -1e30); k=2: 0.
    let got = simt::reduce(GroupOp::Add, ScalarType::F32, &v, 0xF, 4, Tile::Full).unwrap();
    assert_eq!(got, vec![f32b(0.0); 4]);
    // Sequential would give ((1e30 + 1) - 1e30) + 1 = 1.
    // Hillis–Steele: k=1: (1e30, 1e30, -1e30+1=-1e30, 1-1e30=-1e30); k=2: lane2 = 1e30 + -1e30 = 0, lane3 = 1e30-1e30 = 0.
    let got = simt::scan(GroupOp::Add, ScalarType::F32, true, &v, 0xF, 4, Tile::Full).unwrap();
    assert_eq!(got, f(&[1e30, 1e30, 0.0, 0.0]));
    let got = simt::scan(GroupOp::Add, ScalarType::F32, false, &v, 0xF, 4, Tile::Full).unwrap();
    assert_eq!(got, f(&[0.0, 1e30, 1e30, 0.0]));
    // All -0.0 over a full tile stays -0.0 (no identity is mixed in).
    let nz = f(&[-0.0; 4]);
    assert_eq!(simt::reduce(GroupOp::Add, ScalarType::F32, &nz, 0xF, 4, Tile::Full).unwrap(), nz);
    // …but an inactive lane contributes +0.0: -0 + +0 = +0.
    assert_eq!(
        simt::reduce(GroupOp::Add, ScalarType::F32, &nz, 0x7, 4, Tile::Full).unwrap(),
        vec![f32b(0.0), f32b(0.0), f32b(0.0), nz[3]]
    );
}

/// With every lane active, each collective equals its shuffle-tree expansion built from
/// `simt::shuffle` (what the `expand` pass emits), bit for bit.
#[test]
fn full_mask_equals_shuffle_tree_expansion() {
    let mut rng = SplitMix64(0x5157_0006);
    for ty in [ScalarType::F32, ScalarType::F64, ScalarType::I32, ScalarType::U64] {
        for w in WIDTHS {
            let wu = w as usize;
            let full = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            for tile in tiles(w) {
                let t = tile_size(tile, wu);
                for op in GroupOp::ALL.into_iter().filter(|&op| legal(op, ty)) {
                    for _ in 0..3 {
                        let vals: Vec<u64> = (0..wu)
                            .map(|_| match ty {
                                ScalarType::F32 => adversarial_f32(&mut rng),
                                ScalarType::F64 => adversarial_f64(&mut rng),
                                ScalarType::I32 => rng.next() & 0xFFFF_FFFF,
                                _ => rng.next(),
                            })
                            .collect();
                        let comb = |a: &[u64], b: &[u64], on: &dyn Fn(usize) -> bool| -> Vec<u64> {
                            (0..wu).map(|i| if on(i) { rcomb(op, ty, a[i], b[i]) } else { a[i] }).collect()
                        };
                        // reduce: v = v ⊕ shuffle_xor(v, k)
                        let mut v = vals.clone();
                        let mut k = 1;
                        while k < t {
                            let p = simt::shuffle(ShuffleKind::Xor, &v, &vec![k as u64; wu], full, w);
                            v = comb(&v, &p, &|_| true);
                            k *= 2;
                        }
                        assert_eq!(
                            simt::reduce(op, ty, &vals, full, w, tile).unwrap(),
                            v,
                            "reduce {op:?} {ty:?} {tile:?}"
                        );
                        // scans: partner = shuffle_up(v, k); if lig >= k { v = partner ⊕ v }
                        for incl in [true, false] {
                            let mut v = vals.clone();
                            if !incl {
                                let p = simt::shuffle(ShuffleKind::Up, &v, &vec![1; wu], full, w);
                                v = (0..wu).map(|i| if i % t == 0 { rid(op, ty) } else { p[i] }).collect();
                            }
                            let mut k = 1;
                            while k < t {
                                let p = simt::shuffle(ShuffleKind::Up, &v, &vec![k as u64; wu], full, w);
                                v = (0..wu)
                                    .map(|i| if i % t >= k { rcomb(op, ty, p[i], v[i]) } else { v[i] })
                                    .collect();
                                k *= 2;
                            }
                            let got = simt::scan(op, ty, incl, &vals, full, w, tile).unwrap();
                            assert_eq!(got, v, "scan {incl} {op:?} {ty:?} {tile:?}");
                        }
                        // segreduce: Quadrants distance, partner = shuffle_up(v, k); if d >= k { v = v ⊕ partner }
                        let heads: Vec<u64> = (0..wu).map(|_| u64::from(rng.below(4) == 0)).collect();
                        let d = quadrants_distance(&heads, full, wu, t.trailing_zeros());
                        let mut v = vals.clone();
                        let mut k = 1;
                        while k < t {
                            let p = simt::shuffle(ShuffleKind::Up, &v, &vec![k as u64; wu], full, w);
                            v = comb(&v, &p, &|i| d[i] >= k);
                            k *= 2;
                        }
                        let got = simt::segreduce(op, ty, &vals, &heads, full, w, tile).unwrap();
                        assert_eq!(got, v, "segreduce {op:?} {ty:?} {tile:?}");
                    }
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Robustness: malformed inputs never panic and follow the documented rules
// ----------------------------------------------------------------------------------------------

#[test]
fn short_slices_read_as_zero_and_widths_clamp() {
    let (ty, op) = (ScalarType::I32, GroupOp::Add);
    // Missing lanes read as 0.
    let got = simt::reduce(op, ty, &[1, 2, 3], 0xFF, 8, Tile::Full).unwrap();
    assert_eq!(got, vec![6, 6, 6, 6, 6, 6, 6, 6]);
    assert_eq!(simt::shuffle(ShuffleKind::Idx, &[5, 6], &[1], 0xF, 4), vec![6, 5, 5, 5]);
    assert_eq!(simt::ballot(&[1, 1], 0xF, 4), 0b11);
    let got = simt::segreduce(op, ty, &[1, 1, 1, 1], &[0, 0, 1], 0xF, 4, Tile::Full).unwrap();
    assert_eq!(got, vec![1, 2, 1, 2]);
    // Width 0: empty results.
    assert!(simt::reduce(op, ty, &[], u64::MAX, 0, Tile::Full).unwrap().is_empty());
    assert!(simt::scan(op, ty, false, &[], u64::MAX, 0, Tile::Log2(3)).unwrap().is_empty());
    assert!(simt::segreduce(op, ty, &[], &[], u64::MAX, 0, Tile::Full).unwrap().is_empty());
    assert!(simt::vote(VoteKind::Eq, ty, &[], u64::MAX, 0, Tile::Full).is_empty());
    assert!(simt::shuffle(ShuffleKind::Broadcast, &[], &[], u64::MAX, 0).is_empty());
    assert_eq!(simt::ballot(&[1; 4], u64::MAX, 0), 0);
    // Width > 64 clamps to 64 lanes.
    let ones = vec![1u64; 100];
    let got = simt::reduce(op, ty, &ones, u64::MAX, 100, Tile::Full).unwrap();
    assert_eq!(got, vec![64; 64]);
    assert_eq!(simt::reduce(op, ty, &ones, u64::MAX, u32::MAX, Tile::Log2(200)).unwrap(), vec![64; 64]);
    assert_eq!(simt::shuffle(ShuffleKind::Down, &ones, &ones, u64::MAX, u32::MAX).len(), 64);
    // Mask bits beyond the width are ignored.
    assert_eq!(simt::ballot(&[1; 8], u64::MAX, 4), 0xF);
    assert_eq!(simt::reduce(op, ty, &[1; 8], u64::MAX, 4, Tile::Full).unwrap(), vec![4; 4]);
    // Oversized tile log2 clamps to the width.
    assert_eq!(simt::scan(op, ty, true, &[1; 8], 0xFF, 8, Tile::Log2(255)).unwrap(), (1..=8).collect::<Vec<_>>());
    // Non-canonical i32 inputs are canonicalised.
    let got = simt::reduce(op, ty, &[0xFFFF_FFFF_0000_0001, 1], 0x3, 2, Tile::Full).unwrap();
    assert_eq!(got, vec![2, 2]);
}

#[test]
fn non_power_of_two_widths_match_references() {
    let mut rng = SplitMix64(0x5157_0007);
    for w in [1u32, 3, 5, 6, 12, 24, 48, 63] {
        let wu = w as usize;
        let mut ts = vec![Tile::Full];
        ts.extend((0..=6).map(Tile::Log2));
        for tile in ts {
            for ty in [ScalarType::I32, ScalarType::U64, ScalarType::F64, ScalarType::Bool] {
                for op in GroupOp::ALL.into_iter().filter(|&op| legal(op, ty)) {
                    let vals = gen_vals(&mut rng, op, ty, wu);
                    let heads = heads_patterns(&mut rng, wu);
                    for active in masks(&mut rng, ty, &vals, wu) {
                        let got = simt::reduce(op, ty, &vals, active, w, tile).unwrap();
                        assert_eq!(got, ref_reduce_clamped(op, ty, &vals, active, wu, tile), "w={w} {tile:?} {op:?}");
                        for incl in [true, false] {
                            let got = simt::scan(op, ty, incl, &vals, active, w, tile).unwrap();
                            assert_eq!(got, ref_scan_clamped(op, ty, incl, &vals, active, wu, tile));
                        }
                        let got = simt::segreduce(op, ty, &vals, &heads[2], active, w, tile).unwrap();
                        assert_eq!(got, ref_segreduce(op, ty, &vals, &heads[2], active, wu, tile));
                    }
                }
            }
        }
    }
}

/// [`ref_reduce`] for tiles that may run past a non-power-of-two width.
fn ref_reduce_clamped(op: GroupOp, ty: ScalarType, v: &[u64], active: u64, w: usize, tile: Tile) -> Vec<u64> {
    let mut padded = v.to_vec();
    let p = w.next_power_of_two();
    padded.resize(p, 0);
    let t = tile_size(tile, w);
    let mut out =
        ref_reduce(op, ty, &padded, active & low_bits(w), p, Tile::Log2(t.next_power_of_two().trailing_zeros() as u8));
    out.truncate(w);
    out
}

fn ref_scan_clamped(op: GroupOp, ty: ScalarType, incl: bool, v: &[u64], active: u64, w: usize, tile: Tile) -> Vec<u64> {
    let mut padded = v.to_vec();
    let p = w.next_power_of_two();
    padded.resize(p, 0);
    let t = tile_size(tile, w);
    let mut out = ref_scan(
        op,
        ty,
        incl,
        &padded,
        active & low_bits(w),
        p,
        Tile::Log2(t.next_power_of_two().trailing_zeros() as u8),
    );
    out.truncate(w);
    out
}

fn low_bits(w: usize) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// An order-insensitive value of `ty` from random bits (integer-valued / power-of-two floats).
fn prop_value(op: GroupOp, ty: ScalarType, r: u64) -> u64 {
    let x = if op == GroupOp::Mul { [0.5, 1.0, 2.0, -1.0][(r % 4) as usize] } else { (r % 41) as f64 - 20.0 };
    match ty {
        ScalarType::Bool => r & 1,
        ScalarType::I32 | ScalarType::U32 => r & 0xFFFF_FFFF,
        ScalarType::F32 => f32b(x as f32),
        ScalarType::F64 => f64b(x),
        ScalarType::I64 | ScalarType::U64 => r,
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn random_masks_and_values(
            lw in 0u32..=6,
            tl in 0u8..=7,
            full_tile in any::<bool>(),
            active in any::<u64>(),
            raw in proptest::collection::vec(any::<u64>(), 64),
            heads in proptest::collection::vec(0u64..3, 64),
            op_i in 0usize..7,
            ty_i in 0usize..7,
        ) {
            let w = 1u32 << lw;
            let wu = w as usize;
            let (op, ty) = (GroupOp::ALL[op_i], TYPES[ty_i]);
            prop_assume!(legal(op, ty));
            let tile = if full_tile { Tile::Full } else { Tile::Log2(tl) };
            let vals: Vec<u64> = raw[..wu].iter().map(|&r| prop_value(op, ty, r)).collect();
            let active = active & low_bits(wu);
            prop_assert_eq!(simt::reduce(op, ty, &vals, active, w, tile).unwrap(), ref_reduce(op, ty, &vals, active, wu, tile));
            prop_assert_eq!(simt::scan(op, ty, false, &vals, active, w, tile).unwrap(), ref_scan(op, ty, false, &vals, active, wu, tile));
            prop_assert_eq!(simt::segreduce(op, ty, &vals, &heads[..wu], active, w, tile).unwrap(),
                ref_segreduce(op, ty, &vals, &heads[..wu], active, wu, tile));
            prop_assert_eq!(simt::ballot(&vals, active, w), ref_ballot(&vals, active, wu, 64));
            let src: Vec<u64> = raw[..wu].iter().map(|&r| (r >> 40) % (2 * w as u64)).collect();
            for kind in [ShuffleKind::Idx, ShuffleKind::Up, ShuffleKind::Down, ShuffleKind::Xor, ShuffleKind::Broadcast] {
                prop_assert_eq!(simt::shuffle(kind, &vals, &src, active, w), ref_shuffle(kind, &vals, &src, active, wu));
            }
        }
    }
}
