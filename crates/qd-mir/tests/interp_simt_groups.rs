//! End-to-end interpreter tests of the SIMT group ops: `subgroup.reduce`, `subgroup.scan`
//! (inclusive and exclusive) for every group operator legal on each of i32/u32/i64/u64/f32/f64/
//! bool (bool: and/or/xor/min/max, what the verifier accepts), and `subgroup.segreduce
//! add/min/max` with head flags (`u32` and `bool` heads), over every
//! tile `Log2(0..=log2 W)`, one clamped larger tile, and `Full`.
//!
//! Every case is a whole kernel run by `qd_mir::interp::run_kernel` at subgroup widths 8, 32 and
//! 64, with one block whose size is a multiple of the width and two blocks whose size is not (a
//! partial last subgroup), and the ops placed in every divergence shape of the harness
//! (`common::Mode`), so inactive lanes (identity) and partially active tiles are exercised
//! everywhere. Results are compared element by element with sequential plain-Rust folds and
//! prefixes over the active lanes (see `common/mod.rs`). Float inputs are integer-valued (powers
//! of two for `mul`) so that the combination order cannot change a result; `-0.0` appears only
//! for `min`/`max`, whose results do not depend on the order either.

mod common;

use common::*;
use qd_mir::{GroupOp, ScalarType};

/// Inputs for which every evaluation order gives the same result (see the module docs).
fn group_vals(rng: &mut SplitMix64, op: GroupOp, ty: ScalarType, n: usize) -> Vec<u64> {
    let mut dens = 0;
    (0..n)
        .map(|i| {
            if i % 8 == 0 {
                dens = rng.below(4);
            }
            match ty {
                ScalarType::Bool => u64::from(match dens {
                    0 => false,
                    1 => rng.chance(1, 2),
                    2 => rng.chance(7, 8),
                    _ => true,
                }),
                ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
                    let r = match op {
                        // Mostly ones, so that `and` over many lanes is not always 0.
                        GroupOp::And if dens != 0 => !(1u64 << rng.below(64)) & !(rng.next() & rng.next() & rng.next()),
                        // Small values (and small negatives) make min/max ties and signs matter.
                        GroupOp::Min | GroupOp::Max if dens == 1 => (rng.below(21) as i64 - 10) as u64,
                        _ => rng.next(),
                    };
                    if ty.bits() == 32 {
                        r & 0xFFFF_FFFF
                    } else {
                        r
                    }
                }
                ScalarType::F32 | ScalarType::F64 => {
                    let x = match op {
                        GroupOp::Mul => [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 0.0][rng.below(7) as usize],
                        GroupOp::Min | GroupOp::Max => match rng.below(10) {
                            0 => -0.0,
                            1 => 0.0,
                            2 if dens == 3 => f64::INFINITY,
                            3 if dens == 3 => f64::NEG_INFINITY,
                            _ => rng.below(101) as f64 - 50.0,
                        },
                        _ => rng.below(2001) as f64 - 1000.0,
                    };
                    fbits(ty, x)
                }
            }
        })
        .collect()
}

/// Segment heads: runs of 8 threads with no head, ~1/4, ~1/2 or all heads; a head is any
/// non-zero `u32` (a single random bit), so only `!= 0` may be tested.
fn heads(rng: &mut SplitMix64, n: usize) -> Vec<u64> {
    let mut dens = 0;
    (0..n)
        .map(|i| {
            if i % 8 == 0 {
                dens = [0, 1, 2, 4][rng.below(4) as usize];
            }
            if rng.chance(dens, 4) {
                1 << rng.below(32)
            } else {
                0
            }
        })
        .collect()
}

/// Every (width, geometry, mode) combination, with the first two geometries of each width (one
/// full block; two blocks with a partial last subgroup) to keep the sweep fast.
fn shapes() -> Vec<(u32, (u32, u32), Mode)> {
    let mut v = Vec::new();
    for w in WIDTHS {
        for g in &geometries(w)[..2] {
            let g = *g;
            for m in MODES {
                v.push((w, g, m));
            }
        }
    }
    v
}

/// `subgroup.reduce`, inclusive and exclusive `subgroup.scan` of every legal operator on `ty`,
/// every tile, every shape; one kernel per (operator, shape) holds all tiles.
fn reduce_and_scan(ty: ScalarType, seed: u64) {
    let mut rng = SplitMix64(seed);
    let mut cases = Vec::new();
    for op in GroupOp::ALL.into_iter().filter(|&op| mir_legal(op, ty)) {
        for (w, g, mode) in shapes() {
            let n = (g.0 * g.1) as usize;
            let colls = tiles(w)
                .into_iter()
                .flat_map(|t| [Coll::Reduce(op, t), Coll::Scan(op, t, true), Coll::Scan(op, t, false)])
                .collect();
            let x = group_vals(&mut rng, op, ty, n);
            cases.push(Case::new(&mut rng, ty, colls, w, g, mode, x, vec![0; n]));
        }
    }
    check_all(&format!("subgroup.reduce / subgroup.scan on {ty}"), cases);
}

#[test]
fn reduce_and_scan_i32() {
    reduce_and_scan(ScalarType::I32, 0xE2E_1001);
}

#[test]
fn reduce_and_scan_u32() {
    reduce_and_scan(ScalarType::U32, 0xE2E_1002);
}

#[test]
fn reduce_and_scan_i64() {
    reduce_and_scan(ScalarType::I64, 0xE2E_1003);
}

#[test]
fn reduce_and_scan_u64() {
    reduce_and_scan(ScalarType::U64, 0xE2E_1004);
}

#[test]
fn reduce_and_scan_f32() {
    reduce_and_scan(ScalarType::F32, 0xE2E_1005);
}

#[test]
fn reduce_and_scan_f64() {
    reduce_and_scan(ScalarType::F64, 0xE2E_1006);
}

#[test]
fn reduce_and_scan_bool() {
    reduce_and_scan(ScalarType::Bool, 0xE2E_1007);
}

/// `subgroup.segreduce add/min/max` with `u32` and `bool` heads, every tile, every shape.
#[test]
fn segreduce_add_min_max_with_heads() {
    let mut rng = SplitMix64(0xE2E_1100);
    let mut cases = Vec::new();
    for ty in ScalarType::ALL {
        for op in [GroupOp::Add, GroupOp::Min, GroupOp::Max].into_iter().filter(|&op| mir_legal(op, ty)) {
            for (w, g, mode) in shapes() {
                let n = (g.0 * g.1) as usize;
                let colls = tiles(w)
                    .into_iter()
                    .flat_map(|t| [Coll::SegReduce(op, t, Head::U32), Coll::SegReduce(op, t, Head::Bool)])
                    .collect();
                let x = group_vals(&mut rng, op, ty, n);
                let h = heads(&mut rng, n);
                cases.push(Case::new(&mut rng, ty, colls, w, g, mode, x, h));
            }
        }
    }
    check_all("subgroup.segreduce", cases);
}

/// Hand-computed segmented sums for one subgroup of 8 lanes, lanes 0..=5 active (then arm),
/// heads at lanes 2 and 5 (and at inactive lane 7, which is ignored).
#[test]
fn hand_checked_segreduce_w8() {
    let mut rng = SplitMix64(9);
    let colls = vec![
        Coll::SegReduce(GroupOp::Add, qd_mir::Tile::Full, Head::U32),
        Coll::SegReduce(GroupOp::Add, qd_mir::Tile::Log2(1), Head::Bool),
        Coll::Reduce(GroupOp::Max, qd_mir::Tile::Log2(2)),
        Coll::Scan(GroupOp::Add, qd_mir::Tile::Full, true),
    ];
    let x: Vec<u64> = [1i32, 2, 3, 4, 5, 6, 7, 8].iter().map(|&v| v as u32 as u64).collect();
    let aux = vec![0, 0, 9, 0, 0, 1 << 31, 0, 4];
    let mut case = Case::new(&mut rng, ScalarType::I32, colls, 8, (8, 1), Mode::Then, x, aux);
    case.flag = vec![1, 1, 1, 1, 1, 1, 0, 0];
    let s = sentinel(ScalarType::I32);
    let want = [
        // Segments [0, 1], [2, 4], [5].
        [1, 3, 3, 7, 12, 6, s, s],
        // Tiles of 2 also restart segments: [0, 1], [2, 3], [4], [5].
        [1, 3, 3, 7, 5, 6, s, s],
        // max in tiles of 4 over active lanes: 4, then max(5, 6).
        [4, 4, 4, 4, 6, 6, s, s],
        [1, 3, 6, 10, 15, 21, s, s],
    ];
    assert_eq!(case.expected(), want.concat(), "reference functions disagree with the hand-computed values");
    case.check().expect("hand-checked segmented reduction");
}
