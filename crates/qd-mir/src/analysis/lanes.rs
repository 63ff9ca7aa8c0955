//! Lane functions and shuffle patterns: which lane each lane of a subgroup reads in a shuffle, and
//! the named pattern (xor, shift within tiles, broadcast, rotate, reverse, quad permutation) that
//! source table is.
//!
//! A value is a *lane function* when its bits on every lane follow from the lane index alone:
//! constants, `lane_id`, `subgroup_size` (the width) and any pure scalar op (`add`, `and`, `xor`,
//! `cmp`, `select`, `cast`, …) of lane functions. [`lane_function`] evaluates such a value on
//! every lane with [`crate::eval`] — the same arithmetic as the interpreter, so the table is what
//! the kernel computes — which makes "constant folding" of a source-lane expression complete for
//! every shape a user can write: `lane ^ 1`, `(lane & ~15) | ((lane + 1) & 15)`,
//! `select(lane % 16 < 15, lane + 1, lane)`, … all reduce to the same table.
//!
//! [`shuffle_sources`] applies a shuffle op's own rule (`shuffle.idx` wraps, `shuffle.up/down/xor`
//! keep the own value out of range, `broadcast` reads one lane) to that table, giving the source
//! lane of every lane when all lanes are active; [`classify`] names the pattern. Back ends pick
//! their cross-lane sequence from the pattern and prove it against the table (the AMDGCN shuffle
//! selector), and the raising pass (`passes::raise`) recognises shuffle trees with it.
//!
//! Reading one's own lane and keeping one's own value are the same thing here: a source of `L`
//! for lane `L` means "the own value".

use crate::entities::{Inst, Value};
use crate::eval;
use crate::function::{Function, ValueDef};
use crate::inst::Imm;
use crate::ops::{ExchangeOp, IndexOp, OpClass, ShuffleKind};
use crate::types::{ScalarType, Type};
use core::fmt;
use std::collections::HashMap;

/// How deep [`lane_function`] follows operands before giving up (expressions are small; this
/// only bounds pathological inputs).
const MAX_DEPTH: u32 = 64;

/// The bits of `v` on every lane `0..width` (canonical, as [`crate::eval`] holds them), when `v`
/// is a lane function (see the module docs); `None` when it depends on anything else (data,
/// parameters, thread or block indices, loop-carried values) or cannot be evaluated (a division
/// by zero on some lane). `width` is clamped to 1..=64.
pub fn lane_function(f: &Function, v: Value, width: u32) -> Option<Vec<u64>> {
    let w = width.clamp(1, 64);
    let mut memo = HashMap::new();
    eval_value(f, v, w, 0, &mut memo)
}

fn eval_value(
    f: &Function,
    v: Value,
    w: u32,
    depth: u32,
    memo: &mut HashMap<Value, Option<Vec<u64>>>,
) -> Option<Vec<u64>> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(r) = memo.get(&v) {
        return r.clone();
    }
    let r = eval_uncached(f, v, w, depth, memo);
    memo.insert(v, r.clone());
    r
}

fn eval_uncached(
    f: &Function,
    v: Value,
    w: u32,
    depth: u32,
    memo: &mut HashMap<Value, Option<Vec<u64>>>,
) -> Option<Vec<u64>> {
    let data = f.values.get(v)?;
    let ValueDef::Result(inst, _) = data.def else { return None };
    let rt = match data.ty {
        Type::Scalar(s) => s,
        Type::Ptr(..) => return None,
    };
    let op = f.insts.get(inst)?.opcode;
    let args: Vec<Value> = f.args(inst).to_vec();
    let arg = |i: usize, memo: &mut HashMap<Value, Option<Vec<u64>>>| -> Option<(ScalarType, Vec<u64>)> {
        let a = *args.get(i)?;
        let ty = f.value_type(a).scalar()?;
        Some((ty, eval_value(f, a, w, depth + 1, memo)?))
    };
    let lanes = w as usize;
    match op.class() {
        OpClass::Const => {
            let Imm::Const(bits) = f.insts[inst].imm else { return None };
            Some(vec![eval::canon(rt, bits); lanes])
        }
        OpClass::Index(IndexOp::LaneId) => Some((0..u64::from(w)).collect()),
        OpClass::Index(IndexOp::SubgroupSize) => Some(vec![u64::from(w); lanes]),
        OpClass::Binary(_) => {
            let (ty, a) = arg(0, memo)?;
            let (_, b) = arg(1, memo)?;
            a.iter().zip(&b).map(|(&x, &y)| eval::binary(op, ty, x, y).ok()).collect()
        }
        OpClass::Unary(_) => {
            let (ty, a) = arg(0, memo)?;
            a.iter().map(|&x| eval::unary(op, ty, x).ok()).collect()
        }
        OpClass::Fma => {
            let (ty, a) = arg(0, memo)?;
            let (_, b) = arg(1, memo)?;
            let (_, c) = arg(2, memo)?;
            (0..lanes).map(|i| eval::fma(ty, a[i], b[i], c[i]).ok()).collect()
        }
        OpClass::Cmp => {
            let Imm::Cond(cond) = f.insts[inst].imm else { return None };
            let (ty, a) = arg(0, memo)?;
            let (_, b) = arg(1, memo)?;
            Some(a.iter().zip(&b).map(|(&x, &y)| u64::from(eval::compare(cond, ty, x, y))).collect())
        }
        OpClass::Select => {
            let (_, c) = arg(0, memo)?;
            let (_, t) = arg(1, memo)?;
            let (_, e) = arg(2, memo)?;
            Some((0..lanes).map(|i| if c[i] & 1 != 0 { t[i] } else { e[i] }).collect())
        }
        OpClass::Cast => {
            let (from, a) = arg(0, memo)?;
            Some(a.iter().map(|&x| eval::cast(from, rt, x)).collect())
        }
        OpClass::Bitcast => {
            let (from, a) = arg(0, memo)?;
            (from.bits() == rt.bits()).then(|| a.iter().map(|&x| eval::canon(rt, x)).collect())
        }
        // Values that differ per thread or block, memory, other lanes' data and control flow
        // have no per-lane value known from the subgroup width alone.
        OpClass::Index(
            IndexOp::ThreadId
            | IndexOp::BlockId
            | IndexOp::BlockDim
            | IndexOp::GridDim
            | IndexOp::SubgroupId
            | IndexOp::LaneMask(_),
        )
        | OpClass::Memory(_)
        | OpClass::Exchange(_)
        | OpClass::Collective(_)
        | OpClass::Sync(_)
        | OpClass::If
        | OpClass::Loop
        | OpClass::Terminator(_) => None,
    }
}

/// The source lane of every lane `0..width` of shuffle-like `inst` (`shuffle.idx`, `shuffle.up`,
/// `shuffle.down`, `shuffle.xor`, `broadcast`) under MIR's rules with every lane active, when its
/// lane operand is a lane function; `None` otherwise (or for another op). A lane that keeps its
/// own value (out of range) has itself as source.
pub fn shuffle_sources(f: &Function, inst: Inst, width: u32) -> Option<Vec<u8>> {
    let w = width.clamp(1, 64);
    let data = f.insts.get(inst)?;
    let operand = *f.args(inst).get(1)?;
    let x = lane_function(f, operand, w)?;
    // Shuffle operands are u32: only the low 32 bits count.
    let op = |i: u32| x[i as usize] as u32;
    let src = |i: u32| -> Option<u32> {
        Some(match data.opcode.exchange()? {
            ExchangeOp::Shuffle(ShuffleKind::Idx) => op(i) % w,
            ExchangeOp::Shuffle(ShuffleKind::Up) => i.checked_sub(op(i)).unwrap_or(i),
            ExchangeOp::Shuffle(ShuffleKind::Down) => i.checked_add(op(i)).filter(|&s| s < w).unwrap_or(i),
            ExchangeOp::Shuffle(ShuffleKind::Xor) => Some(i ^ op(i)).filter(|&s| s < w).unwrap_or(i),
            // The index of the first active lane: lane 0 when all are.
            ExchangeOp::Broadcast => op(0) % w,
            ExchangeOp::Ballot
            | ExchangeOp::BallotFirstN
            | ExchangeOp::MatchAny
            | ExchangeOp::MatchAll
            | ExchangeOp::ActiveMask
            | ExchangeOp::Elect => return None,
        })
    };
    (0..w).map(|i| src(i).map(|s| s as u8)).collect()
}

/// A named lane pattern: what a source table (lane `L` reads lane `src[L]`) is. Tiles are
/// `tile` consecutive lanes aligned to a multiple of `tile` (a power of two ≥ 2); `base` is a
/// lane's tile start and `l = L - base` its index in the tile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LanePattern {
    /// Every lane keeps its own value.
    Identity,
    /// `src = L ^ mask` (`0 < mask < width`; every partner exists).
    Xor {
        /// The constant mask.
        mask: u32,
    },
    /// Reverse within tiles: `src = base + tile - 1 - l` (the same table as `xor tile-1`; named
    /// for tiles of 4 lanes and more).
    Reverse {
        /// The tile.
        tile: u32,
    },
    /// `src = l + delta < tile ? L + delta : L` (CUDA `__shfl_down_sync(…, delta, tile)`).
    Down {
        /// The shift, `1..tile`.
        delta: u32,
        /// The tile.
        tile: u32,
    },
    /// `src = l >= delta ? L - delta : L` (CUDA `__shfl_up_sync(…, delta, tile)`).
    Up {
        /// The shift, `1..tile`.
        delta: u32,
        /// The tile.
        tile: u32,
    },
    /// `src = base + (l + delta) mod tile` (a rotation that reads `delta` lanes further down).
    Rotate {
        /// The rotation, `1..tile`.
        delta: u32,
        /// The tile.
        tile: u32,
    },
    /// `src = base + lane` on every lane (`tile` = the width: a wave-wide broadcast).
    Broadcast {
        /// The lane read in each tile, `0..tile`.
        lane: u32,
        /// The tile.
        tile: u32,
    },
    /// The same permutation (or any map) of the 4 lanes of every quad: `src = (L & !3) + sel[L & 3]`,
    /// when none of the patterns above.
    QuadPerm {
        /// The selector of each quad lane.
        sel: [u8; 4],
    },
    /// A constant table with no name.
    Arbitrary {
        /// The source of every lane.
        src: Vec<u8>,
    },
    /// The source is not a function of the lane index alone (data-dependent, a parameter, …).
    Dynamic,
}

/// Names the pattern of a source table (`src.len()` = the width, a power of two ≤ 64). The first
/// match in this order wins: identity, reverse (tiles ≥ 4), xor, broadcast, down, up, rotate,
/// quad permutation, arbitrary; among tiles the smallest that fits.
pub fn classify(src: &[u8]) -> LanePattern {
    let w = src.len() as u32;
    let s = |l: u32| u32::from(src[l as usize]);
    let all = |p: &dyn Fn(u32) -> u32| (0..w).all(|l| s(l) == p(l));
    if all(&|l| l) {
        return LanePattern::Identity;
    }
    let m = s(0);
    if m > 0 && m < w && all(&|l| l ^ m) {
        return if m >= 3 && (m + 1).is_power_of_two() {
            LanePattern::Reverse { tile: m + 1 }
        } else {
            LanePattern::Xor { mask: m }
        };
    }
    let tiles = || (1..=6).map(|k| 1u32 << k).filter(move |&t| t <= w);
    for t in tiles() {
        let j = s(0);
        if j < t && all(&|l| (l & !(t - 1)) + j) {
            return LanePattern::Broadcast { lane: j, tile: t };
        }
    }
    for t in tiles() {
        for d in 1..t {
            if all(&|l| if (l & (t - 1)) + d < t { l + d } else { l }) {
                return LanePattern::Down { delta: d, tile: t };
            }
        }
    }
    for t in tiles() {
        for d in 1..t {
            if all(&|l| if (l & (t - 1)) >= d { l - d } else { l }) {
                return LanePattern::Up { delta: d, tile: t };
            }
        }
    }
    for t in tiles() {
        for d in 1..t {
            if all(&|l| (l & !(t - 1)) + (((l & (t - 1)) + d) & (t - 1))) {
                return LanePattern::Rotate { delta: d, tile: t };
            }
        }
    }
    if w >= 4 {
        let sel: [u8; 4] = std::array::from_fn(|k| src[k]);
        if sel.iter().all(|&x| x < 4) && all(&|l| (l & !3) + u32::from(sel[(l & 3) as usize])) {
            return LanePattern::QuadPerm { sel };
        }
    }
    LanePattern::Arbitrary { src: src.to_vec() }
}

/// The pattern of shuffle-like `inst` on a subgroup of `width` lanes ([`LanePattern::Dynamic`]
/// when its source is not a lane function).
pub fn shuffle_pattern(f: &Function, inst: Inst, width: u32) -> LanePattern {
    match shuffle_sources(f, inst, width) {
        Some(src) => classify(&src),
        None => LanePattern::Dynamic,
    }
}

impl LanePattern {
    /// The source lane of lane `l` in a subgroup of `width` lanes (`None` for `Dynamic`).
    pub fn src_lane(&self, l: u32, width: u32) -> Option<u32> {
        let tile_base = |t: u32| l & !(t - 1);
        Some(match *self {
            LanePattern::Identity => l,
            LanePattern::Xor { mask } => Some(l ^ mask).filter(|&s| s < width).unwrap_or(l),
            LanePattern::Reverse { tile } => l ^ (tile - 1),
            LanePattern::Down { delta, tile } => {
                if (l & (tile - 1)) + delta < tile {
                    l + delta
                } else {
                    l
                }
            }
            LanePattern::Up { delta, tile } => {
                if (l & (tile - 1)) >= delta {
                    l - delta
                } else {
                    l
                }
            }
            LanePattern::Rotate { delta, tile } => tile_base(tile) + (((l & (tile - 1)) + delta) & (tile - 1)),
            LanePattern::Broadcast { lane, tile } => tile_base(tile) + lane,
            LanePattern::QuadPerm { sel } => (l & !3) + u32::from(sel[(l & 3) as usize]),
            LanePattern::Arbitrary { ref src } => u32::from(*src.get(l as usize)?),
            LanePattern::Dynamic => return None,
        })
    }

    /// The source table over `width` lanes (`None` for `Dynamic`).
    pub fn table(&self, width: u32) -> Option<Vec<u8>> {
        (0..width).map(|l| self.src_lane(l, width).map(|s| s as u8)).collect()
    }
}

impl fmt::Display for LanePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LanePattern::Identity => write!(f, "identity"),
            LanePattern::Xor { mask } => write!(f, "xor {mask}"),
            LanePattern::Reverse { tile } => write!(f, "reverse in tiles of {tile}"),
            LanePattern::Down { delta, tile } => write!(f, "down {delta} in tiles of {tile}"),
            LanePattern::Up { delta, tile } => write!(f, "up {delta} in tiles of {tile}"),
            LanePattern::Rotate { delta, tile } => write!(f, "rotate {delta} in tiles of {tile}"),
            LanePattern::Broadcast { lane, tile } => write!(f, "broadcast lane {lane} in tiles of {tile}"),
            LanePattern::QuadPerm { sel } => write!(f, "quad_perm [{},{},{},{}]", sel[0], sel[1], sel[2], sel[3]),
            LanePattern::Arbitrary { .. } => write!(f, "arbitrary constant"),
            LanePattern::Dynamic => write!(f, "data-dependent"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(w: u32, p: impl Fn(u32) -> u32) -> Vec<u8> {
        (0..w).map(|l| p(l) as u8).collect()
    }

    #[test]
    fn classifies_every_named_pattern_and_round_trips() {
        for w in [32u32, 64] {
            for m in 1..w {
                let p = classify(&table(w, |l| l ^ m));
                let named = if m >= 3 && (m + 1).is_power_of_two() {
                    LanePattern::Reverse { tile: m + 1 }
                } else {
                    LanePattern::Xor { mask: m }
                };
                assert_eq!(p, named, "xor {m}");
                assert_eq!(p.table(w).unwrap(), table(w, |l| l ^ m));
            }
            for t in [2u32, 4, 8, 16, 32, 64].into_iter().filter(|&t| t <= w) {
                for d in 1..t {
                    let down = LanePattern::Down { delta: d, tile: t };
                    let tab = down.table(w).unwrap();
                    let got = classify(&tab);
                    assert_eq!(got.table(w).unwrap(), tab, "down {d} tile {t}");
                    let up = LanePattern::Up { delta: d, tile: t };
                    let tab = up.table(w).unwrap();
                    assert_eq!(classify(&tab).table(w).unwrap(), tab, "up {d} tile {t}");
                    let rot = LanePattern::Rotate { delta: d, tile: t };
                    let tab = rot.table(w).unwrap();
                    assert_eq!(classify(&tab).table(w).unwrap(), tab, "rotate {d} tile {t}");
                }
                for j in 0..t {
                    let b = LanePattern::Broadcast { lane: j, tile: t };
                    assert_eq!(classify(&b.table(w).unwrap()), b, "broadcast {j} tile {t}");
                }
            }
            // Tiles of 16 and up keep their names.
            assert_eq!(
                classify(&table(w, |l| if l % 16 < 15 { l + 1 } else { l })),
                LanePattern::Down { delta: 1, tile: 16 }
            );
            assert_eq!(classify(&table(w, |l| (l & !15) + ((l + 3) & 15))), LanePattern::Rotate { delta: 3, tile: 16 });
            assert_eq!(
                classify(&table(w, |l| (l & !3) + [2, 0, 3, 1][(l & 3) as usize])),
                LanePattern::QuadPerm { sel: [2, 0, 3, 1] }
            );
            assert_eq!(classify(&table(w, |l| l)), LanePattern::Identity);
            let odd = table(w, |l| (l * 7 + 3) % w);
            assert_eq!(classify(&odd), LanePattern::Arbitrary { src: odd.clone() });
        }
    }

    #[test]
    fn evaluates_source_lane_expressions_of_any_shape() {
        let src = "kernel @k(%out: ptr<global, u32>, %x: u32) block(64, 1, 1) grid(1, 1, 1) {\n\
            %l = lane_id : u32\n\
            %m = const 15 : u32\n\
            %n = const 4294967280 : u32\n\
            %one = const 1 : u32\n\
            %t = and %l, %m : u32\n\
            %b = and %l, %n : u32\n\
            %t1 = add %t, %one : u32\n\
            %w = and %t1, %m : u32\n\
            %s = or %b, %w : u32\n\
            %r = shuffle.idx %x, %s : u32\n\
            %sixteen = const 16 : u32\n\
            %c = cmp lt %t1, %sixteen : bool\n\
            %l1 = add %l, %one : u32\n\
            %s2 = select %c, %l1, %l : u32\n\
            %r2 = shuffle.idx %x, %s2 : u32\n\
            %r3 = shuffle.down %x, %one : u32\n\
            %r4 = shuffle.idx %x, %x : u32\n\
            %five = const 5 : u32\n\
            %r5 = broadcast %x, %five : u32\n\
            return\n}\n";
        let m = crate::parse_module(src).expect("parses");
        let f = &m.kernels[0];
        let shuffles: Vec<Inst> = f
            .insts
            .keys()
            .filter(|&i| {
                matches!(
                    f.insts[i].opcode,
                    crate::ops::Opcode::ShuffleIdx | crate::ops::Opcode::ShuffleDown | crate::ops::Opcode::Broadcast
                )
            })
            .collect();
        let pats: Vec<LanePattern> = shuffles.iter().map(|&i| shuffle_pattern(f, i, 64)).collect();
        assert_eq!(
            pats,
            vec![
                LanePattern::Rotate { delta: 1, tile: 16 },
                LanePattern::Down { delta: 1, tile: 16 },
                LanePattern::Down { delta: 1, tile: 64 },
                LanePattern::Dynamic,
                LanePattern::Broadcast { lane: 5, tile: 64 },
            ]
        );
    }
}
