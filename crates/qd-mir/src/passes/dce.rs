//! Dead code elimination.
//!
//! What it does: removes instructions whose results are all unused when the op is `pure` in the
//! op table (no memory access, no side effect, not convergent), and `if` instructions whose
//! results are unused and whose arms hold only pure instructions, nested removable `if`s and
//! `yield`s. Use counts are kept up to date as instructions go, and the sweep (innermost regions
//! and last instructions first) repeats to a fixed point, so whole dead chains disappear.
//!
//! What it never does: remove loads (they can fault), stores, atomics, barriers, fences,
//! convergent ops (shuffles, ballots, votes, reductions: removing one can change which lanes
//! communicate in code generated from it), terminators, or any `loop` (it might not terminate;
//! proving termination is not this pass's job). An `if` containing `break`/`continue`/`return`
//! is control flow that matters and stays.

use super::rewrite::use_counts;
use crate::entities::{Inst, Region};
use crate::function::Function;
use crate::ops::Opcode;
use cranelift_entity::SecondaryMap;

/// Runs DCE to a fixed point; returns whether anything was removed.
pub fn run(f: &mut Function) -> bool {
    let mut uses = use_counts(f);
    let mut changed = false;
    loop {
        let body = f.body;
        if !sweep(f, body, &mut uses) {
            return changed;
        }
        changed = true;
    }
}

/// One backward sweep over `region` (nested regions first); returns whether it removed anything.
fn sweep(f: &mut Function, region: Region, uses: &mut SecondaryMap<crate::Value, u32>) -> bool {
    let mut changed = false;
    let mut idx = f.regions[region].insts.len();
    while idx > 0 {
        idx -= 1;
        let Some(&inst) = f.regions[region].insts.get(idx) else { continue };
        let dead = f.inst_results(inst).iter().all(|&r| uses[r] == 0) && removable(f, inst);
        if dead {
            release_uses(f, inst, uses);
            f.regions[region].insts.remove(idx);
            changed = true;
            continue;
        }
        let nested: Vec<Region> = f.inst_regions(inst).collect();
        for r in nested {
            changed |= sweep(f, r, uses);
        }
    }
    changed
}

/// Whether `inst` has no effect besides its results (also the raising pass's test).
pub(crate) fn removable(f: &Function, inst: Inst) -> bool {
    let op = f.insts[inst].opcode;
    let info = op.info();
    if info.pure {
        return !info.terminator;
    }
    op == Opcode::If && f.inst_regions(inst).all(|r| region_is_effect_free(f, r))
}

/// Whether a region holds only removable instructions and its `yield`.
pub(crate) fn region_is_effect_free(f: &Function, r: Region) -> bool {
    f.regions[r].insts.iter().all(|&i| f.insts[i].opcode == Opcode::Yield || removable(f, i))
}

/// Decrements the use counts of every operand of `inst` and of the instructions it owns.
fn release_uses(f: &Function, inst: Inst, uses: &mut SecondaryMap<crate::Value, u32>) {
    for &a in f.args(inst) {
        uses[a] = uses[a].saturating_sub(1);
    }
    for r in f.inst_regions(inst) {
        for &i in &f.regions[r].insts {
            release_uses(f, i, uses);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Imm;
    use crate::passes::testutil::{count, B};
    use crate::types::{ScalarType, Type};
    use crate::{AddrSpace, CmpCond};

    #[test]
    fn removes_dead_pure_chains_keeps_effects() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p); // unused load stays (it can fault)
        let one = b.u32(1);
        let a = b.bin(Opcode::Add, x, one);
        let _m = b.bin(Opcode::Mul, a, a);
        let _s = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32); // convergent stays
        let y = b.u32(5);
        b.store(p, y);
        b.term(Opcode::Return, &[]);
        assert!(run(&mut b.f));
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::Add) + count(&b.f, Opcode::Mul), 0, "{text}");
        assert_eq!(count(&b.f, Opcode::Load), 1);
        assert_eq!(count(&b.f, Opcode::ShuffleXor), 1);
        assert_eq!(count(&b.f, Opcode::Const), 2, "{text}"); // `one` (shuffle operand) and `y`
        assert!(!run(&mut b.f));
    }

    #[test]
    fn removes_pure_if_but_not_effectful_or_loops() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let z = b.u32(0);
        let c = b.cmp(CmpCond::Eq, x, z);
        // Dead pure `if` (with a nested pure `if`).
        b.if_(
            c,
            &[Type::U32],
            |b| {
                let r = b.if_(
                    c,
                    &[Type::U32],
                    |b| {
                        let v = b.bin(Opcode::Add, x, x);
                        b.term(Opcode::Yield, &[v]);
                    },
                    Some(Box::new(move |b: &mut B| b.term(Opcode::Yield, &[x]))),
                );
                b.term(Opcode::Yield, &[r[0]]);
            },
            Some(Box::new(move |b: &mut B| b.term(Opcode::Yield, &[z]))),
        );
        // An `if` that stores stays; an `if` that returns stays.
        b.if_(
            c,
            &[],
            |b| {
                b.store(p, x);
                b.term(Opcode::Yield, &[]);
            },
            None,
        );
        b.if_(c, &[], |b| b.term(Opcode::Return, &[]), None);
        // A dead loop stays.
        b.loop_(&[z], &[Type::U32], |b, ps| b.term(Opcode::Break, &[ps[0]]));
        b.term(Opcode::Return, &[]);
        run(&mut b.f);
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::If), 2, "{text}");
        assert_eq!(count(&b.f, Opcode::Loop), 1, "{text}");
        assert_eq!(count(&b.f, Opcode::Add), 0, "{text}");
    }

    #[test]
    fn warp_builtins_dead_lane_masks_go_convergent_ops_and_nanosleep_stay() {
        let mut b = B::new();
        for op in [Opcode::LaneMaskLt, Opcode::LaneMaskLe, Opcode::LaneMaskEq, Opcode::LaneMaskGe, Opcode::LaneMaskGt] {
            b.op(op, Imm::None, &[], Type::U64);
        }
        let x = b.u32(7);
        b.op(Opcode::MatchAny, Imm::None, &[x], Type::U64);
        b.op(Opcode::MatchAll, Imm::None, &[x], Type::U64);
        b.op(Opcode::ActiveMask, Imm::None, &[], Type::U64);
        b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
        let ns = b.u32(100);
        b.inst(Opcode::Nanosleep, Imm::None, &[ns], &[]);
        b.term(Opcode::Return, &[]);
        assert!(run(&mut b.f));
        let text = b.print();
        let masks =
            [Opcode::LaneMaskLt, Opcode::LaneMaskLe, Opcode::LaneMaskEq, Opcode::LaneMaskGe, Opcode::LaneMaskGt];
        assert_eq!(masks.iter().map(|&op| count(&b.f, op)).sum::<usize>(), 0, "{text}");
        for op in [Opcode::MatchAny, Opcode::MatchAll, Opcode::ActiveMask, Opcode::Elect, Opcode::Nanosleep] {
            assert_eq!(count(&b.f, op), 1, "{op}: {text}");
        }
        assert_eq!(count(&b.f, Opcode::Const), 2, "{text}");
    }
}
