//! Tests of collective expansion: shuffle counts per (op, tile, width), errors, and semantic
//! checks with a small test-only lane-array evaluator of the straight-line code the expansion
//! emits, against references written from the contract's combination orders.

use super::*;
use crate::passes::testutil::{count, B};
use crate::types::AddrSpace;

/// Evaluates a straight-line body for `w` lanes, all active. The n-th `load` yields `inputs[n]`;
/// returns the per-lane values of each `store`, in order.
fn simulate(f: &Function, w: u32, inputs: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, String> {
    let n = w as usize;
    let mut vals: HashMap<Value, Vec<u64>> = HashMap::new();
    let mut loads = 0usize;
    let mut stores = Vec::new();
    for &inst in &f.regions[f.body].insts {
        let op = f.insts[inst].opcode;
        let args: Vec<Vec<u64>> =
            f.args(inst).iter().map(|a| vals.get(a).cloned().unwrap_or_else(|| vec![0; n])).collect();
        let aty = |i: usize| f.args(inst).get(i).and_then(|&a| f.value_type(a).scalar()).unwrap_or(ScalarType::U64);
        let rty = f.first_result(inst).and_then(|r| f.value_type(r).scalar()).unwrap_or(ScalarType::U64);
        let lanes = |g: &dyn Fn(usize) -> Result<u64, String>| (0..n).map(g).collect::<Result<Vec<u64>, String>>();
        let src = |kind: Opcode, i: usize, x: u64| -> usize {
            let s = if kind == Opcode::ShuffleIdx {
                Some(x % u64::from(w))
            } else if kind == Opcode::ShuffleUp {
                (i as u64).checked_sub(x)
            } else if kind == Opcode::ShuffleDown {
                Some(i as u64 + x)
            } else {
                Some(i as u64 ^ x)
            };
            match s {
                Some(s) if s < u64::from(w) => s as usize,
                _ => i,
            }
        };
        let out = if op == Opcode::Const {
            let Imm::Const(b) = f.insts[inst].imm else { return Err("const".into()) };
            vec![b; n]
        } else if op == Opcode::LaneId {
            (0..u64::from(w)).collect()
        } else if op == Opcode::Load {
            loads += 1;
            inputs.get(loads - 1).cloned().ok_or("missing input")?
        } else if op == Opcode::Store {
            stores.push(args[1].clone());
            continue;
        } else if op == Opcode::Return {
            break;
        } else if [Opcode::ShuffleIdx, Opcode::ShuffleUp, Opcode::ShuffleDown, Opcode::ShuffleXor].contains(&op) {
            (0..n).map(|i| args[0][src(op, i, args[1][i])]).collect()
        } else if op == Opcode::Ballot {
            let b = (0..n).filter(|&i| args[0][i] != 0).fold(0u64, |m, i| m | 1 << i);
            vec![b; n]
        } else if op == Opcode::Cmp {
            let Imm::Cond(c) = f.insts[inst].imm else { return Err("cmp".into()) };
            lanes(&|i| Ok(u64::from(eval::compare(c, aty(0), args[0][i], args[1][i]))))?
        } else if op == Opcode::Cast {
            lanes(&|i| Ok(eval::cast(aty(0), rty, args[0][i])))?
        } else if op == Opcode::Select {
            lanes(&|i| Ok(if args[0][i] != 0 { args[1][i] } else { args[2][i] }))?
        } else if op.info().format == crate::ops::Format::Binary && op.info().pure {
            lanes(&|i| eval::binary(op, aty(0), args[0][i], args[1][i]).map_err(|e| format!("{e:?}")))?
        } else if op.info().format == crate::ops::Format::Unary && op.info().pure {
            lanes(&|i| eval::unary(op, aty(0), args[0][i]).map_err(|e| format!("{e:?}")))?
        } else {
            return Err(format!("simulate: unsupported {op}"));
        };
        if let Some(r) = f.first_result(inst) {
            vals.insert(r, out);
        }
    }
    Ok(stores)
}

/// Reference reduce (contract order: butterfly, own value left).
fn ref_reduce(op: GroupOp, ty: ScalarType, v: &[u64], t: usize) -> Vec<u64> {
    let mut v = v.to_vec();
    let mut k = 1;
    while k < t {
        v = (0..v.len()).map(|i| eval::combine(op, ty, v[i], v[i ^ k]).unwrap()).collect();
        k <<= 1;
    }
    v
}

/// Reference scan (contract order: Hillis–Steele, predecessor left; exclusive shifts first).
fn ref_scan(op: GroupOp, ty: ScalarType, v: &[u64], t: usize, inclusive: bool) -> Vec<u64> {
    let mut v = v.to_vec();
    if !inclusive {
        let id = eval::identity(op, ty);
        v = (0..v.len()).map(|i| if i % t == 0 { id } else { v[i - 1] }).collect();
    }
    let mut k = 1;
    while k < t {
        v = (0..v.len())
            .map(|i| if i % t >= k { eval::combine(op, ty, v[i - k], v[i]).unwrap() } else { v[i] })
            .collect();
        k <<= 1;
    }
    v
}

/// Reference segmented reduce (contract: d_i = i - h, own value left).
fn ref_seg(op: GroupOp, ty: ScalarType, v: &[u64], heads: &[u64], t: usize) -> Vec<u64> {
    let n = v.len();
    let dist: Vec<usize> = (0..n)
        .map(|i| {
            let base = i - i % t;
            let h = (base..=i).rev().find(|&j| heads[j] != 0).unwrap_or(base);
            i - h
        })
        .collect();
    let mut v = v.to_vec();
    let mut k = 1;
    while k < t {
        v = (0..n).map(|i| if dist[i] >= k { eval::combine(op, ty, v[i], v[i - k]).unwrap() } else { v[i] }).collect();
        k <<= 1;
    }
    v
}

/// Deterministic pseudo-random lane values of a type.
fn data(ty: ScalarType, w: u32, seed: u64) -> Vec<u64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..w)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match ty {
                ScalarType::Bool => s & 1,
                ScalarType::F32 => eval::bits_f32((s % 1000) as f32 / 7.0 - 60.0),
                ScalarType::F64 => eval::bits_f64((s % 100_000) as f64 / 3.0 - 9000.0),
                _ => eval::canon(ty, s % 1000),
            }
        })
        .collect()
}

/// A kernel loading one (or two, for segreduce) value(s) per lane, applying `op`, storing it.
fn kernel(op: Opcode, imm: Imm, ty: ScalarType, head_ty: Option<ScalarType>, rt: ScalarType) -> B {
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ty));
    let x = b.load(p);
    let mut args = vec![x];
    if let Some(h) = head_ty {
        let q = b.param("q", Type::Ptr(AddrSpace::Global, h));
        args.push(b.load(q));
    }
    let r = b.op(op, imm, &args, rt.into());
    b.sink(r);
    b.term(Opcode::Return, &[]);
    b
}

fn no_collectives(f: &Function) -> bool {
    [
        Opcode::SubgroupReduce,
        Opcode::SubgroupScan,
        Opcode::SegmentedReduce,
        Opcode::VoteAll,
        Opcode::VoteAny,
        Opcode::VoteEq,
    ]
    .iter()
    .all(|&op| count(f, op) == 0)
}

const TYPES: [ScalarType; 7] = ScalarType::ALL;

#[test]
fn reduce_counts_and_values() {
    for w in [1u32, 4, 32, 64] {
        for tile in [Tile::Full, Tile::Log2(0), Tile::Log2(2), Tile::Log2(5), Tile::Log2(6)] {
            let Some(t) = (match tile {
                Tile::Log2(l) if (1u32 << l) > w => None,
                _ => Some(tile.lanes(w)),
            }) else {
                continue;
            };
            for ty in TYPES {
                for g in GroupOp::ALL {
                    if ty.is_float() && matches!(g, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
                        continue;
                    }
                    let imm = Imm::Group { op: g, tile, inclusive: true };
                    let mut b = kernel(Opcode::SubgroupReduce, imm, ty, None, ty);
                    run(&mut b.f, &PassOptions::with_width(w)).unwrap();
                    assert!(no_collectives(&b.f));
                    assert_eq!(count(&b.f, Opcode::ShuffleXor), t.trailing_zeros() as usize, "{}", b.print());
                    let input = data(ty, w, u64::from(w) * 7 + t as u64);
                    let got = simulate(&b.f, w, std::slice::from_ref(&input)).unwrap();
                    assert_eq!(got[0], ref_reduce(g, ty, &input, t as usize), "{ty} {g:?} t={t} w={w}");
                }
            }
        }
    }
}

#[test]
fn scan_counts_and_values() {
    for w in [1u32, 8, 32, 64] {
        for tile in [Tile::Full, Tile::Log2(0), Tile::Log2(1), Tile::Log2(3), Tile::Log2(5)] {
            if matches!(tile, Tile::Log2(l) if (1u32 << l) > w) {
                continue;
            }
            let t = tile.lanes(w);
            let l = t.trailing_zeros() as usize;
            for ty in TYPES {
                for g in GroupOp::ALL {
                    if ty.is_float() && matches!(g, GroupOp::And | GroupOp::Or | GroupOp::Xor) {
                        continue;
                    }
                    for inclusive in [true, false] {
                        let imm = Imm::Group { op: g, tile, inclusive };
                        let mut b = kernel(Opcode::SubgroupScan, imm, ty, None, ty);
                        run(&mut b.f, &PassOptions::with_width(w)).unwrap();
                        assert!(no_collectives(&b.f));
                        let ups = if inclusive || t == 1 { l } else { l + 1 };
                        assert_eq!(count(&b.f, Opcode::ShuffleUp), ups, "{}", b.print());
                        assert_eq!(count(&b.f, Opcode::ShuffleXor) + count(&b.f, Opcode::ShuffleIdx), 0);
                        let input = data(ty, w, 11 + u64::from(w) + t as u64);
                        let got = simulate(&b.f, w, std::slice::from_ref(&input)).unwrap();
                        let want = ref_scan(g, ty, &input, t as usize, inclusive);
                        assert_eq!(got[0], want, "{ty} {g:?} incl={inclusive} t={t} w={w}\n{}", b.print());
                    }
                }
            }
        }
    }
}

#[test]
fn segreduce_counts_and_values() {
    for w in [4u32, 32, 64] {
        for tile in [Tile::Full, Tile::Log2(0), Tile::Log2(2), Tile::Log2(4), Tile::Log2(5), Tile::Log2(6)] {
            if matches!(tile, Tile::Log2(l) if (1u32 << l) > w) {
                continue;
            }
            let t = tile.lanes(w);
            for (ty, hty) in [
                (ScalarType::F32, ScalarType::I32),
                (ScalarType::U32, ScalarType::Bool),
                (ScalarType::I64, ScalarType::U64),
                (ScalarType::F64, ScalarType::U32),
                (ScalarType::Bool, ScalarType::Bool),
            ] {
                for g in [GroupOp::Add, GroupOp::Min, GroupOp::Max, GroupOp::Mul] {
                    let imm = Imm::Group { op: g, tile, inclusive: true };
                    let mut b = kernel(Opcode::SegmentedReduce, imm, ty, Some(hty), ty);
                    run(&mut b.f, &PassOptions::with_width(w)).unwrap();
                    assert!(no_collectives(&b.f));
                    let l = t.trailing_zeros() as usize;
                    assert_eq!(count(&b.f, Opcode::ShuffleUp), l);
                    assert_eq!(count(&b.f, Opcode::Ballot), usize::from(t > 1));
                    assert_eq!(count(&b.f, Opcode::Clz), usize::from(t > 1));
                    for seed in 0..4 {
                        let input = data(ty, w, seed + 100);
                        // Sparse heads: value 0 mostly, arbitrary non-zero sometimes.
                        let heads: Vec<u64> = data(ScalarType::U32, w, seed + 7)
                            .into_iter()
                            .map(|x| if x % 5 == 0 { eval::canon(hty, x | 1) } else { 0 })
                            .collect();
                        let got = simulate(&b.f, w, &[input.clone(), heads.clone()]).unwrap();
                        let want = ref_seg(g, ty, &input, &heads, t as usize);
                        assert_eq!(got[0], want, "{ty} {g:?} t={t} w={w} heads={heads:?}\n{}", b.print());
                    }
                }
            }
        }
    }
}

#[test]
fn votes_counts_and_values() {
    for w in [1u32, 16, 32, 64] {
        for tile in [Tile::Full, Tile::Log2(0), Tile::Log2(2), Tile::Log2(4)] {
            if matches!(tile, Tile::Log2(l) if (1u32 << l) > w) {
                continue;
            }
            let t = tile.lanes(w) as usize;
            let l = t.trailing_zeros() as usize;
            for (op, ty) in [
                (Opcode::VoteAll, ScalarType::Bool),
                (Opcode::VoteAny, ScalarType::Bool),
                (Opcode::VoteAll, ScalarType::I32),
                (Opcode::VoteEq, ScalarType::F32),
                (Opcode::VoteEq, ScalarType::U64),
                (Opcode::VoteEq, ScalarType::Bool),
            ] {
                let mut b = kernel(op, Imm::Tile(tile), ty, None, ScalarType::Bool);
                run(&mut b.f, &PassOptions::with_width(w)).unwrap();
                assert!(no_collectives(&b.f));
                assert_eq!(count(&b.f, Opcode::ShuffleXor), l, "{}", b.print());
                let idx = usize::from(op == Opcode::VoteEq && t > 1);
                assert_eq!(count(&b.f, Opcode::ShuffleIdx), idx);
                for seed in 0..6u64 {
                    // Mostly-uniform inputs so that both outcomes occur.
                    let mut input = vec![data(ty, 1, seed)[0]; w as usize];
                    if seed % 2 == 1 {
                        let j = (seed as usize * 5) % w as usize;
                        input[j] = data(ty, 1, seed + 50)[0];
                    }
                    if seed == 4 && ty == ScalarType::F32 {
                        input[0] = eval::bits_f32(f32::NAN);
                    }
                    let got = simulate(&b.f, w, std::slice::from_ref(&input)).unwrap();
                    let want: Vec<u64> = (0..w as usize)
                        .map(|i| {
                            let tile_vals = &input[i - i % t..i - i % t + t];
                            let truthy = |x: u64| eval::cast(ty, ScalarType::Bool, x) != 0;
                            u64::from(if op == Opcode::VoteAll {
                                tile_vals.iter().all(|&x| truthy(x))
                            } else if op == Opcode::VoteAny {
                                tile_vals.iter().any(|&x| truthy(x))
                            } else {
                                tile_vals.iter().all(|&x| eval::compare(CmpCond::Eq, ty, x, tile_vals[0]))
                            })
                        })
                        .collect();
                    assert_eq!(got[0], want, "{op} {ty} t={t} w={w} in={input:?}");
                }
            }
        }
    }
}

#[test]
fn errors_name_the_op() {
    let imm = Imm::Group { op: GroupOp::Add, tile: Tile::Full, inclusive: true };
    let mut b = kernel(Opcode::SubgroupReduce, imm, ScalarType::U32, None, ScalarType::U32);
    let e = run(&mut b.f, &PassOptions::default()).unwrap_err();
    assert!(e.contains("subgroup.reduce add") && e.contains("width"), "{e}");
    let imm = Imm::Group { op: GroupOp::Max, tile: Tile::Log2(6), inclusive: false };
    let mut b = kernel(Opcode::SubgroupScan, imm, ScalarType::U32, None, ScalarType::U32);
    let e = run(&mut b.f, &PassOptions::with_width(32)).unwrap_err();
    assert!(e.contains("subgroup.scan exclusive max tile(6)") && e.contains("32"), "{e}");
    // A tiled op without a width expands with T = 2^l.
    let imm = Imm::Group { op: GroupOp::Add, tile: Tile::Log2(3), inclusive: true };
    let mut b = kernel(Opcode::SubgroupReduce, imm, ScalarType::U32, None, ScalarType::U32);
    assert!(run(&mut b.f, &PassOptions::default()).unwrap());
    assert_eq!(count(&b.f, Opcode::ShuffleXor), 3);
}

#[test]
fn collectives_in_nested_regions_and_chained_uses() {
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
    let x = b.load(p);
    let r1 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
    // A full-subgroup reduction is uniform, so this `if` keeps every lane together.
    let k = b.u32(10);
    let c = b.cmp(CmpCond::Eq, r1, k);
    b.if_(
        c,
        &[],
        |b| {
            let s = b.group(Opcode::SubgroupScan, GroupOp::Add, Tile::Log2(2), false, &[r1]);
            b.store(p, s);
            b.term(Opcode::Yield, &[]);
        },
        None,
    );
    b.term(Opcode::Return, &[]);
    run(&mut b.f, &PassOptions::with_width(32)).unwrap();
    assert!(no_collectives(&b.f));
    let text = b.print();
    assert!(!text.contains("%?"), "dangling value:\n{text}");
    assert_eq!(count(&b.f, Opcode::ShuffleUp), 3, "{text}");
}

#[test]
fn collectives_under_divergent_control_flow_are_left_alone() {
    // `if` on a loaded (varying) value: only some lanes run the arm, so a shuffle tree would read
    // inactive lanes. The reduction before the `if` is expanded, the scan inside it is kept.
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
    let x = b.load(p);
    let r1 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
    let c = b.cmp(CmpCond::Eq, r1, x);
    b.if_(
        c,
        &[],
        |b| {
            let s = b.group(Opcode::SubgroupScan, GroupOp::Add, Tile::Log2(2), false, &[x]);
            b.store(p, s);
            b.term(Opcode::Yield, &[]);
        },
        None,
    );
    b.term(Opcode::Return, &[]);
    run(&mut b.f, &PassOptions::with_width(32)).unwrap();
    assert_eq!(count(&b.f, Opcode::SubgroupReduce), 0);
    assert_eq!(count(&b.f, Opcode::SubgroupScan), 1);
    assert_eq!(count(&b.f, Opcode::ShuffleXor), 5);
}

#[test]
fn pipeline_unroll_fold_cse_expand_dce_matches_reference() {
    // acc = load; for i in 0..3 { acc = acc + reduce add tile(2) (acc * i_as_f32) }; store acc
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::F32));
    let x = b.load(p);
    let z = b.u32(0);
    let one = b.u32(1);
    let three = b.u32(3);
    let r = b.loop_(&[z, x], &[Type::F32], |b, ps| {
        let (i, acc) = (ps[0], ps[1]);
        let c = b.cmp(CmpCond::Ge, i, three);
        b.if_(c, &[], |b| b.term(Opcode::Break, &[acc]), None);
        let fi = b.op(Opcode::Cast, Imm::None, &[i], Type::F32);
        let m = b.bin(Opcode::Mul, acc, fi);
        let red = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Log2(2), true, &[m]);
        let acc2 = b.bin(Opcode::Add, acc, red);
        let n = b.bin(Opcode::Add, i, one);
        b.term(Opcode::Continue, &[n, acc2]);
    });
    b.store(p, r[0]);
    b.term(Opcode::Return, &[]);
    use crate::passes::{run_pipeline, Pass};
    let passes = [Pass::Unroll, Pass::Fold, Pass::Cse, Pass::ExpandCollectives, Pass::Cse, Pass::Fold, Pass::Dce];
    run_pipeline(&mut b.f, &passes, &PassOptions::with_width(32)).unwrap();
    let text = b.print();
    assert_eq!(count(&b.f, Opcode::Loop), 0, "{text}");
    assert!(no_collectives(&b.f), "{text}");
    assert_eq!(count(&b.f, Opcode::ShuffleXor), 6, "{text}");
    assert_eq!(count(&b.f, Opcode::Const), 5, "{text}"); // 0.0, 1.0, 2.0 and the xor masks 1, 2 (shared)
    let input = data(ScalarType::F32, 32, 5);
    let got = simulate(&b.f, 32, std::slice::from_ref(&input)).unwrap();
    let mut acc = input.clone();
    for i in 0..3u32 {
        let fi = eval::bits_f32(i as f32);
        let m: Vec<u64> = acc.iter().map(|&a| eval::binary(Opcode::Mul, ScalarType::F32, a, fi).unwrap()).collect();
        let red = ref_reduce(GroupOp::Add, ScalarType::F32, &m, 4);
        acc = acc.iter().zip(&red).map(|(&a, &r)| eval::binary(Opcode::Add, ScalarType::F32, a, r).unwrap()).collect();
    }
    assert_eq!(got[0], acc);
}

#[test]
fn a_divergent_return_keeps_every_collective() {
    // `if %x == 0 { return }` on a loaded value: lanes may leave, so the reduction after it could
    // run partly active and must not become a shuffle tree.
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
    let x = b.load(p);
    let z = b.u32(0);
    let c = b.cmp(CmpCond::Eq, x, z);
    b.if_(c, &[], |b| b.term(Opcode::Return, &[]), None);
    let r = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
    b.store(p, r);
    b.term(Opcode::Return, &[]);
    assert!(!run(&mut b.f, &PassOptions::with_width(32)).unwrap());
    assert_eq!(count(&b.f, Opcode::SubgroupReduce), 1);
}

#[test]
fn an_error_leaves_the_function_unchanged() {
    // The first reduction is expandable, the second's tile is wider than the width: the pass
    // fails and the function is exactly as before.
    let mut b = B::new();
    let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
    let x = b.load(p);
    let r1 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
    let r2 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Log2(6), true, &[r1]);
    b.store(p, r2);
    b.term(Opcode::Return, &[]);
    let before = b.print();
    assert!(run(&mut b.f, &PassOptions::with_width(32)).is_err());
    assert_eq!(b.print(), before);
}
