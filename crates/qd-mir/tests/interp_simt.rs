//! End-to-end interpreter tests of the SIMT data-movement and query ops: `shuffle.idx/up/down/xor`
//! (out-of-range and inactive sources), `broadcast` (uniform lane, inactive or missing source),
//! `ballot`, `ballot.first_n`, `vote.all/any/eq` over every tile, `lane_id`/`subgroup_id`/
//! `subgroup_size` and `block.sync_pred and/or/count`.
//!
//! Every case is a whole kernel run by `qd_mir::interp::run_kernel` at subgroup widths 8, 32 and
//! 64, with blocks that are multiples of the width and blocks that are not (a partial last
//! subgroup whose missing lanes are permanently inactive), one and two blocks, and the op placed
//! in every divergence shape of the harness (`common::Mode`: then arm, else arm, lane pattern,
//! nested ifs, after an early `return`, inside a loop after some lanes broke). Results are
//! compared element by element with plain-Rust references computed from the inputs and each
//! subgroup's active mask (see `common/mod.rs`). Reductions, scans and segmented reductions are
//! in `interp_simt_groups.rs`.

mod common;

use common::*;
use qd_mir::interp::run_kernel;
use qd_mir::interp::simt::{ShuffleKind, VoteKind};
use qd_mir::{CmpCond, Opcode, PredOp, ScalarType, Tile, Type};

/// A random canonical value of `ty` (floats: finite, any bits otherwise).
fn rand_val(rng: &mut SplitMix64, ty: ScalarType) -> u64 {
    match ty {
        ScalarType::Bool => rng.below(2),
        ScalarType::I32 | ScalarType::U32 => rng.next() & 0xFFFF_FFFF,
        ScalarType::I64 | ScalarType::U64 => rng.next(),
        ScalarType::F32 => {
            let b = rng.next() & 0xFFFF_FFFF;
            if bf32(b).is_finite() {
                b
            } else {
                f32b(1.5)
            }
        }
        ScalarType::F64 => {
            let b = rng.next();
            if bf64(b).is_finite() {
                b
            } else {
                f64b(-2.25)
            }
        }
    }
}

fn rand_vals(rng: &mut SplitMix64, ty: ScalarType, n: usize) -> Vec<u64> {
    (0..n).map(|_| rand_val(rng, ty)).collect()
}

/// Booleans whose density changes every 8 threads: all false, ~1/2, ~7/8 or all true.
fn bools(rng: &mut SplitMix64, n: usize) -> Vec<u64> {
    let mut dens = 0;
    (0..n)
        .map(|i| {
            if i % 8 == 0 {
                dens = rng.below(4);
            }
            u64::from(match dens {
                0 => false,
                1 => rng.chance(1, 2),
                2 => rng.chance(7, 8),
                _ => true,
            })
        })
        .collect()
}

/// Shuffle operands: mostly in range, some `>= w` (out of range for up/down/xor, wrapping for
/// idx) and some arbitrary `u32`s.
fn shuffle_operands(rng: &mut SplitMix64, w: u32, n: usize) -> Vec<u64> {
    let w = u64::from(w);
    (0..n)
        .map(|_| match rng.below(8) {
            0 => rng.next() & 0xFFFF_FFFF,
            1 => w + rng.below(w),
            _ => rng.below(w),
        })
        .collect()
}

/// Every (width, geometry, mode) combination.
fn shapes() -> Vec<(u32, (u32, u32), Mode)> {
    let mut v = Vec::new();
    for w in WIDTHS {
        for g in geometries(w) {
            for m in MODES {
                v.push((w, g, m));
            }
        }
    }
    v
}

#[test]
fn shuffle_idx_up_down_xor_every_type_width_and_divergence() {
    let mut rng = SplitMix64(0xE2E_0001);
    let kinds = [ShuffleKind::Idx, ShuffleKind::Up, ShuffleKind::Down, ShuffleKind::Xor];
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        for ty in ScalarType::ALL {
            let n = (g.0 * g.1) as usize;
            let x = rand_vals(&mut rng, ty, n);
            let aux = shuffle_operands(&mut rng, w, n);
            let colls = kinds.iter().map(|&k| Coll::Shuffle(k)).collect();
            cases.push(Case::new(&mut rng, ty, colls, w, g, mode, x, aux));
        }
    }
    check_all("shuffle.idx/up/down/xor", cases);
}

#[test]
fn broadcast_reads_source_register_whatever_its_activity() {
    let mut rng = SplitMix64(0xE2E_0002);
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        for ty in ScalarType::ALL {
            let n = (g.0 * g.1) as usize;
            let x = rand_vals(&mut rng, ty, n);
            // Lane 4 is inactive under `LaneMask`; w - 1 is missing in a partial subgroup;
            // w + 2 and u32::MAX wrap modulo the width.
            let mut colls: Vec<Coll> =
                [0, 1, 4, w - 1, w + 2, u32::MAX].into_iter().map(|c| Coll::Broadcast(BLane::Const(c))).collect();
            colls.push(Coll::Broadcast(BLane::Param));
            cases.push(Case::new(&mut rng, ty, colls, w, g, mode, x, vec![0; n]));
        }
    }
    check_all("broadcast", cases);
}

#[test]
fn ballot_and_ballot_first_n() {
    let mut rng = SplitMix64(0xE2E_0003);
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        let n = (g.0 * g.1) as usize;
        for colls in [vec![Coll::Ballot], vec![Coll::BallotFirstN(1), Coll::BallotFirstN(7), Coll::BallotFirstN(32)]] {
            let x = bools(&mut rng, n);
            cases.push(Case::new(&mut rng, ScalarType::Bool, colls, w, g, mode, x, vec![0; n]));
        }
    }
    check_all("ballot / ballot.first_n", cases);
}

#[test]
fn vote_all_any_every_tile() {
    let mut rng = SplitMix64(0xE2E_0004);
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        let n = (g.0 * g.1) as usize;
        let colls = tiles(w).into_iter().flat_map(|t| [Coll::Vote(VoteKind::All, t), Coll::Vote(VoteKind::Any, t)]);
        let x = bools(&mut rng, n);
        cases.push(Case::new(&mut rng, ScalarType::Bool, colls.collect(), w, g, mode, x, vec![0; n]));
    }
    check_all("vote.all / vote.any", cases);
}

/// Values for `vote.eq`: runs of 8 threads share a value, with deviations of density 0, 0, 1/16
/// or 1/4 per run. Float deviations include `-0.0` (equal to `+0.0`) and NaN (never equal).
fn eq_vals(rng: &mut SplitMix64, ty: ScalarType, n: usize) -> Vec<u64> {
    let common = if ty.is_float() { fbits(ty, 0.0) } else { rand_val(rng, ty) };
    let mut dens = 0;
    (0..n)
        .map(|i| {
            if i % 8 == 0 {
                dens = [0, 0, 1, 4][rng.below(4) as usize];
            }
            if !rng.chance(dens, 16) {
                return common;
            }
            match ty {
                ScalarType::Bool => 1 - common,
                ScalarType::F32 | ScalarType::F64 => match rng.below(3) {
                    0 => fbits(ty, -0.0),
                    1 => fbits(ty, f64::NAN),
                    _ => fbits(ty, 1.0),
                },
                ScalarType::I32 | ScalarType::U32 => common ^ (1 << rng.below(32)),
                ScalarType::I64 | ScalarType::U64 => common ^ (1 << rng.below(64)),
            }
        })
        .collect()
}

#[test]
fn vote_eq_every_type_and_tile() {
    let mut rng = SplitMix64(0xE2E_0005);
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        let n = (g.0 * g.1) as usize;
        for ty in ScalarType::ALL {
            let colls = tiles(w).into_iter().map(|t| Coll::Vote(VoteKind::Eq, t)).collect();
            let x = eq_vals(&mut rng, ty, n);
            cases.push(Case::new(&mut rng, ty, colls, w, g, mode, x, vec![0; n]));
        }
    }
    check_all("vote.eq", cases);
}

#[test]
fn lane_id_subgroup_id_subgroup_size_in_divergent_regions() {
    let mut rng = SplitMix64(0xE2E_0006);
    let mut cases = Vec::new();
    for (w, g, mode) in shapes() {
        let n = (g.0 * g.1) as usize;
        let colls = vec![Coll::LaneId, Coll::SubgroupId, Coll::SubgroupSize];
        let x = rand_vals(&mut rng, ScalarType::U32, n);
        cases.push(Case::new(&mut rng, ScalarType::U32, colls, w, g, mode, x, vec![0; n]));
    }
    check_all("lane_id / subgroup_id / subgroup_size", cases);
}

/// Hand-computed values for one subgroup of 8 lanes (lanes 1, 2, 5, 6 active in the then arm),
/// independent of the reference functions: checks the harness itself.
#[test]
fn hand_checked_then_arm_w8() {
    let mut rng = SplitMix64(7);
    let x: Vec<u64> = (10..18).collect();
    let colls = [
        Coll::Shuffle(ShuffleKind::Xor),
        Coll::Shuffle(ShuffleKind::Up),
        Coll::Broadcast(BLane::Const(0)),
        Coll::Broadcast(BLane::Const(6)),
        Coll::Reduce(qd_mir::GroupOp::Add, Tile::Full),
        Coll::Scan(qd_mir::GroupOp::Add, Tile::Log2(2), false),
        Coll::Ballot,
    ];
    // The ballot's result type differs: check it in its own case below.
    let mut case = Case::new(&mut rng, ScalarType::U64, colls[..6].to_vec(), 8, (8, 1), Mode::Then, x, vec![3; 8]);
    case.flag = vec![0, 1, 2, 0, 0, 3, 1, 0];
    let s = sentinel(ScalarType::U64);
    let want = [
        // xor 3: 1<->2, 5<->6.
        [s, 12, 11, s, s, 16, 15, s],
        // up 3: lane 5 reads lane 2, lane 6 reads lane 3 (inactive: own); 1, 2 out of range.
        [s, 11, 12, s, s, 12, 16, s],
        // broadcast from inactive lane 0 and from active lane 6.
        [s, 10, 10, s, s, 10, 10, s],
        [s, 16, 16, s, s, 16, 16, s],
        // 11 + 12 + 15 + 16.
        [s, 54, 54, s, s, 54, 54, s],
        // exclusive add in tiles of 4: (1, 2) and (5, 6).
        [s, 0, 11, s, s, 0, 15, s],
    ];
    assert_eq!(case.expected(), want.concat(), "reference functions disagree with the hand-computed values");
    case.check().expect("hand-checked then-arm case");
    let x = vec![1, 1, 1, 0, 1, 1, 1, 1];
    let mut bal = Case::new(&mut rng, ScalarType::Bool, vec![colls[6]], 8, (8, 1), Mode::Else, x, vec![0; 8]);
    bal.flag = vec![0, 1, 2, 0, 0, 3, 1, 0];
    let s = sentinel(ScalarType::U64);
    assert_eq!(bal.expected(), vec![0x91, s, s, 0x91, 0x91, s, s, 0x91]);
    bal.check().expect("hand-checked else-arm ballot");
}

/// Hand-computed ballots in a loop: lanes break at their trip counts and iteration `i` runs the
/// ballot with the lanes whose trip count exceeds `i` only.
#[test]
fn hand_checked_ballot_after_breaks_in_loop() {
    let mut rng = SplitMix64(8);
    let mut case =
        Case::new(&mut rng, ScalarType::Bool, vec![Coll::Ballot], 8, (8, 1), Mode::Loop, vec![1; 8], vec![0; 8]);
    case.trip = vec![0, 1, 2, 3, 3, 2, 1, 0];
    let s = sentinel(ScalarType::U64);
    let want = [
        [s, 0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0x7E, s],
        [s, s, 0x3C, 0x3C, 0x3C, 0x3C, s, s],
        [s, s, s, 0x18, 0x18, s, s, s],
    ];
    assert_eq!(case.expected(), want.concat());
    case.check().expect("hand-checked loop ballot");
}

/// `block.sync_pred and/or/count` over the live threads of each block, optionally after some
/// threads returned early (whole subgroups included), with partial subgroups and two blocks.
#[test]
fn block_sync_pred_and_or_count() {
    let mut rng = SplitMix64(0xE2E_0007);
    let mut fails = Vec::new();
    let mut total = 0;
    for w in WIDTHS {
        for (block, grid) in geometries(w) {
            for early_return in [false, true] {
                for dens in 0..4 {
                    total += 1;
                    let n = (block * grid) as usize;
                    let (flag, _) = control_inputs(&mut rng, w, block, grid);
                    let one_false = rng.below(n as u64) as usize;
                    let pred: Vec<u64> = (0..n)
                        .map(|i| match dens {
                            0 => 1,
                            1 => 0,
                            2 => rng.below(2),
                            _ => u64::from(i != one_false),
                        })
                        .collect();
                    let mut k = K::new("sync_pred", block, grid);
                    let pb = k.buf("pred", ScalarType::Bool);
                    let fb = k.buf("flag", ScalarType::U32);
                    let outs: Vec<_> = ["and", "or", "count"].iter().map(|s| k.buf(s, ScalarType::U32)).collect();
                    let gid = k.gid();
                    let p = k.load_at(pb, gid);
                    if early_return {
                        let f = k.load_at(fb, gid);
                        let z = k.u(0);
                        let c = k.cmp(CmpCond::Ne, f, z);
                        k.if_(c, &[], |k| k.term(Opcode::Return, &[]), |k| k.term(Opcode::Yield, &[]));
                    }
                    for (po, &ob) in [PredOp::And, PredOp::Or, PredOp::Count].into_iter().zip(&outs) {
                        let ty = if po == PredOp::Count { Type::U32 } else { Type::BOOL };
                        let mut r = k.op(Opcode::BlockSyncPred, qd_mir::Imm::Pred(po), &[p], ty);
                        if po != PredOp::Count {
                            r = k.cast(r, ScalarType::U32);
                        }
                        k.store_at(ob, gid, r);
                    }
                    k.term(Opcode::Return, &[]);
                    let f = k.finish();
                    let poison = poison(ScalarType::U32);
                    let mut args = vec![
                        buffer(ScalarType::Bool, &pred),
                        buffer(ScalarType::U32, &flag),
                        buffer(ScalarType::U32, &vec![poison; n]),
                        buffer(ScalarType::U32, &vec![poison; n]),
                        buffer(ScalarType::U32, &vec![poison; n]),
                    ];
                    let what =
                        format!("W={w} block={block} grid={grid} early_return={early_return} pred pattern {dens}");
                    let stats = match run_kernel(&f, &cfg(w), &mut args) {
                        Ok(s) => s,
                        Err(e) => {
                            fails.push(format!("{what}: interpreter error: {e}"));
                            continue;
                        }
                    };
                    let mut want = vec![vec![poison; n]; 3];
                    let mut want_barriers = 0;
                    for b in 0..grid as usize {
                        let live: Vec<usize> = (b * block as usize..(b + 1) * block as usize)
                            .filter(|&g| !early_return || flag[g] == 0)
                            .collect();
                        if !live.is_empty() {
                            want_barriers += 3;
                        }
                        let cnt = live.iter().filter(|&&g| pred[g] != 0).count() as u64;
                        for &g in &live {
                            want[0][g] = u64::from(cnt == live.len() as u64);
                            want[1][g] = u64::from(cnt > 0);
                            want[2][g] = cnt;
                        }
                    }
                    for (i, name) in ["and", "or", "count"].iter().enumerate() {
                        let got = bits_of(&args[2 + i]);
                        if got != want[i] {
                            let bad = (0..n).find(|&g| got[g] != want[i][g]).unwrap_or(0);
                            fails.push(format!(
                                "{what}: sync_pred {name}: first mismatch at gid {bad}: expected {:#x}, got {:#x}",
                                want[i][bad], got[bad]
                            ));
                        }
                    }
                    if stats.barriers != want_barriers {
                        fails.push(format!("{what}: {} barriers released, expected {want_barriers}", stats.barriers));
                    }
                }
            }
        }
    }
    assert!(fails.is_empty(), "{} of {total} sync_pred case(s) failed:\n  {}", fails.len(), fails.join("\n  "));
}

/// `broadcast` from the uniform `%lane` parameter, for every lane value `0..=w` (the last wraps),
/// in the then arm of a partial last subgroup.
#[test]
fn broadcast_from_uniform_parameter_every_lane() {
    let mut rng = SplitMix64(0xE2E_0008);
    let mut fails = Vec::new();
    for w in WIDTHS {
        let (block, grid) = geometries(w)[1];
        let n = (block * grid) as usize;
        for lane in 0..w + 1 {
            let x = rand_vals(&mut rng, ScalarType::U32, n);
            let mut c = Case::new(
                &mut rng,
                ScalarType::U32,
                vec![Coll::Broadcast(BLane::Param)],
                w,
                (block, grid),
                Mode::Then,
                x,
                vec![0; n],
            );
            c.lane_param = lane;
            if let Err(e) = c.check() {
                fails.push(e);
            }
        }
    }
    assert!(fails.is_empty(), "broadcast from %lane:\n  {}", fails.join("\n  "));
}
