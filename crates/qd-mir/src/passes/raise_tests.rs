//! Unit tests of the raising pass's internals: the collective expression trees it compares
//! against are the interpreter's combination orders (checked numerically against
//! `interp::simt` on NaN payloads, signed zeros and rounding-sensitive data), leaf multisets
//! treat identities as neutral and other constants as mismatches, and the legality gates.

use super::*;
use crate::interp::simt;

/// Evaluates node `id` with input lanes `x` (canonical bits), combining with `eval::combine`.
fn value(nodes: &Nodes, id: u32, x: &[u64], op: GroupOp, ty: ScalarType) -> u64 {
    match nodes.list[id as usize] {
        Node::Leaf(l) => x[usize::from(l)],
        Node::Const(c) => c,
        Node::Op(a, b) => {
            let (a, b) = (value(nodes, a, x, op, ty), value(nodes, b, x, op, ty));
            eval::combine(op, ty, a, b).expect("legal pair")
        }
    }
}

/// Order-sensitive data: NaN payloads (quiet, negative, signalling), ±0, ±inf, and values of
/// widely different magnitudes; integers get extremes and mixed bits.
fn data(ty: ScalarType, n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..n)
        .map(|i| {
            let r = next();
            let bits = match ty {
                ScalarType::F32 => match i % 8 {
                    0 => 0x7FC0_0000 | (r & 0xFF),
                    1 => 0xFFC0_0000 | (r & 0xFF00),
                    2 => 0x7F80_0001,
                    3 => [0u64, 0x8000_0000][(r & 1) as usize],
                    4 => u64::from(((r % 1000) as f32 * 1e7f32.powi((r >> 20) as i32 % 3)).to_bits()),
                    _ => u64::from(((r >> 11) as f32 / 7.0 - 3.0e5).to_bits()),
                },
                ScalarType::F64 => match i % 8 {
                    0 => 0x7FF8_0000_0000_0000 | (r & 0xFFFF),
                    1 => 0xFFF8_0000_0000_0000 | (r & 0xFF_0000),
                    2 => 0x7FF0_0000_0000_0001,
                    3 => [0u64, 1 << 63][(r & 1) as usize],
                    _ => ((r >> 11) as f64 / 7.0 - 3.0e14).to_bits(),
                },
                _ => match i % 4 {
                    0 => 1 << 31,
                    1 => u64::MAX,
                    _ => r,
                },
            };
            eval::canon(ty, bits)
        })
        .collect()
}

#[test]
fn expected_trees_are_the_interpreters_orders() {
    let types = [ScalarType::F32, ScalarType::F64, ScalarType::I32, ScalarType::U64, ScalarType::Bool];
    let mut checked = 0;
    for ty in types {
        for op in GroupOp::ALL.into_iter().filter(|&op| group_op_legal(op, ty)) {
            let identity = eval::identity(op, ty);
            for w in [8usize, 32, 64] {
                let x = data(ty, w, (w as u64) << 8 | op as u64);
                let mut t = 2;
                while t <= w {
                    let tile = Tile::Log2(t.trailing_zeros() as u8);
                    let all = all_lanes(w as u32);
                    for kind in [RaisedKind::Reduce, RaisedKind::InclusiveScan, RaisedKind::ExclusiveScan] {
                        let mut nodes = Nodes::new(identity);
                        let tree = expected(&mut nodes, kind, w, t);
                        let got: Vec<u64> = tree.iter().map(|&id| value(&nodes, id, &x, op, ty)).collect();
                        let want = match kind {
                            RaisedKind::Reduce => simt::reduce(op, ty, &x, all, w as u32, tile),
                            RaisedKind::InclusiveScan => simt::scan(op, ty, true, &x, all, w as u32, tile),
                            RaisedKind::ExclusiveScan => simt::scan(op, ty, false, &x, all, w as u32, tile),
                        };
                        assert_eq!(Ok(got), want, "{kind:?} {} {ty} W={w} T={t}", op.name());
                        checked += 1;
                    }
                    t <<= 1;
                }
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn float_orders_are_distinguished_by_the_data() {
    // The descending butterfly is a different tree, and on this data different bits: the
    // structural comparison is not stricter than it needs to be for add.
    let (op, ty, w) = (GroupOp::Add, ScalarType::F32, 32usize);
    let x = data(ty, w, 99);
    let mut nodes = Nodes::new(eval::identity(op, ty));
    let asc = expected(&mut nodes, RaisedKind::Reduce, w, w);
    let mut v: Vec<u32> = (0..w).map(|l| nodes.get(Node::Leaf(l as u8))).collect();
    for k in [16, 8, 4, 2, 1] {
        let prev = v.clone();
        for (l, slot) in v.iter_mut().enumerate() {
            *slot = nodes.get(Node::Op(prev[l], prev[l ^ k]));
        }
    }
    assert!(asc.iter().zip(&v).all(|(a, d)| a != d));
    let vals = |ids: &[u32]| ids.iter().map(|&id| value(&nodes, id, &x, op, ty)).collect::<Vec<_>>();
    assert_ne!(vals(&asc), vals(&v));
    // ... while as multisets (the integer rule) they are equal.
    assert!(asc.iter().zip(&v).all(|(&a, &d)| nodes.bag(a) == nodes.bag(d)));
}

#[test]
fn bags_drop_identities_and_reject_other_constants() {
    // Identity 0 (add, or, xor).
    let mut n = Nodes::new(0);
    let (a, b) = (n.get(Node::Leaf(0)), n.get(Node::Leaf(1)));
    let zero = n.get(Node::Const(0));
    let one = n.get(Node::Const(1));
    let ab = n.get(Node::Op(a, b));
    let ba0 = {
        let ba = n.get(Node::Op(b, a));
        n.get(Node::Op(zero, ba))
    };
    let ab1 = n.get(Node::Op(ab, one));
    let aab = n.get(Node::Op(a, ab));
    assert_eq!(n.bag(ab), n.bag(ba0));
    assert_eq!(n.bag(ab1), None, "1 is not the identity of add");
    assert_ne!(n.bag(aab), n.bag(ab), "a lane counted twice");
    assert_eq!(n.bag(zero).map(|b| b.iter().map(|&c| u32::from(c)).sum::<u32>()), Some(0));
    // Identity 1 (mul).
    let mut m = Nodes::new(1);
    let (a, b, one) = (m.get(Node::Leaf(0)), m.get(Node::Leaf(1)), m.get(Node::Const(1)));
    let ab = m.get(Node::Op(a, b));
    let ab1 = m.get(Node::Op(ab, one));
    assert_eq!(m.bag(ab1), m.bag(ab), "1 is the identity of mul");
}

#[test]
fn width_gates() {
    let mut f = Function::new("k");
    f.launch.block = [64, 1, 1];
    assert_eq!(width(&f, &PassOptions::default()), None);
    assert_eq!(width(&f, &PassOptions::with_width(32)), Some(32));
    assert_eq!(width(&f, &PassOptions::with_width(1)), None, "one lane has no tree");
    assert_eq!(width(&f, &PassOptions::with_width(48)), None);
    f.launch.block = [16, 3, 1];
    assert_eq!(width(&f, &PassOptions::with_width(32)), None, "48 threads: partial subgroup");
    assert_eq!(width(&f, &PassOptions::with_width(16)), Some(16));
    f.launch.subgroup_size = Some(32);
    assert_eq!(width(&f, &PassOptions::with_width(16)), None, "kernel built for another width");
}

#[test]
fn raised_display_is_mir_op_text() {
    let r = Raised {
        inst: Inst::from_u32(0),
        kind: RaisedKind::ExclusiveScan,
        op: GroupOp::Min,
        ty: ScalarType::I32,
        tile: 8,
        lanes: 0xFF,
    };
    assert_eq!(r.to_string(), "subgroup.scan exclusive min tile(3)");
    let r = Raised { kind: RaisedKind::Reduce, op: GroupOp::Add, tile: 64, ..r };
    assert_eq!(r.to_string(), "subgroup.reduce add tile(6)");
}
