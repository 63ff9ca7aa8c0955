//! Common subexpression elimination, scoped by the region tree.
//!
//! What it does: hash-conses instructions by (opcode, immediate, operands, result types).
//! - Pure ops: an expression computed earlier in the same region or in an enclosing region
//!   (which dominates) replaces a later identical one.
//! - Convergent ops without memory effects (shuffles, broadcast, ballots, votes, reductions,
//!   scans, segmented reductions): only an identical instruction earlier in the SAME region, with
//!   no instruction in between that can take lanes out of the region (an `if`/`loop` containing a
//!   `return`, or a `break`/`continue` leaving it). That guarantees the same active mask, which
//!   these ops' results depend on.
//!
//! What it never does: CSE a convergent op from an enclosing region (the active lanes differ
//! there), or loads, stores, atomics, barriers, fences, `block.sync_pred` (memory effects: the
//! value read may have changed), or structured ops and terminators.

use super::rewrite::{escapes, substitute_all, substitute_inst, Subst};
use crate::entities::{Inst, Region, Value};
use crate::function::Function;
use crate::inst::Imm;
use crate::ops::{OpInfo, Opcode};
use crate::types::Type;
use std::collections::HashMap;

/// Runs CSE over the whole function; returns whether anything was replaced.
pub fn run(f: &mut Function) -> bool {
    let mut cx = Cse { scopes: Vec::new(), subst: Subst::new(), changed: false };
    let body = f.body;
    cx.region(f, body);
    substitute_all(f, &cx.subst);
    cx.changed
}

/// The hash key of an instruction.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    opcode: Opcode,
    imm: Imm,
    args: Vec<Value>,
    tys: Vec<Type>,
}

/// How CSE may treat an instruction.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    /// Available in nested regions too.
    Pure,
    /// Available only later in the same region.
    Convergent,
    /// Never CSE'd.
    Never,
}

fn class(info: OpInfo) -> Class {
    if info.terminator || info.reads || info.writes {
        Class::Never
    } else if info.pure {
        Class::Pure
    } else if info.convergent && info.num_results == Some(1) {
        Class::Convergent
    } else {
        Class::Never
    }
}

struct Cse {
    /// One table of pure expressions per open region, innermost last.
    scopes: Vec<HashMap<Key, Vec<Value>>>,
    subst: Subst,
    changed: bool,
}

impl Cse {
    fn lookup(&self, key: &Key) -> Option<&Vec<Value>> {
        self.scopes.iter().rev().find_map(|s| s.get(key))
    }

    fn region(&mut self, f: &mut Function, region: Region) {
        self.scopes.push(HashMap::new());
        let mut convergent: HashMap<Key, Vec<Value>> = HashMap::new();
        let mut idx = 0;
        while let Some(&inst) = f.regions[region].insts.get(idx) {
            substitute_inst(f, inst, &self.subst);
            let class = class(f.insts[inst].opcode.info());
            if class != Class::Never {
                let key = key_of(f, inst);
                let found = match class {
                    Class::Pure => self.lookup(&key).cloned(),
                    Class::Convergent | Class::Never => convergent.get(&key).cloned(),
                };
                let results = f.inst_results(inst).to_vec();
                if let Some(prev) = found.filter(|p| p.len() == results.len()) {
                    for (r, p) in results.into_iter().zip(prev) {
                        self.subst.insert(r, p);
                    }
                    f.regions[region].insts.remove(idx);
                    self.changed = true;
                    continue;
                }
                match class {
                    Class::Pure => {
                        if let Some(scope) = self.scopes.last_mut() {
                            scope.insert(key, results);
                        }
                    }
                    Class::Convergent | Class::Never => {
                        convergent.insert(key, results);
                    }
                }
            }
            let nested: Vec<Region> = f.inst_regions(inst).collect();
            for r in nested {
                self.region(f, r);
            }
            if escapes(f, inst) {
                // Some lanes may have left: later convergent ops run under a different mask.
                convergent.clear();
            }
            idx += 1;
        }
        self.scopes.pop();
    }
}

fn key_of(f: &Function, inst: Inst) -> Key {
    let data = &f.insts[inst];
    Key {
        opcode: data.opcode,
        imm: data.imm,
        args: f.args(inst).to_vec(),
        tys: f.inst_results(inst).iter().map(|&r| f.value_type(r)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Tile;
    use crate::passes::testutil::{count, B};
    use crate::types::ScalarType;
    use crate::{AddrSpace, CmpCond, GroupOp};

    #[test]
    fn pure_ops_are_shared_into_nested_regions() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let a1 = b.bin(Opcode::Add, x, x);
        let a2 = b.bin(Opcode::Add, x, x);
        let m = b.bin(Opcode::Mul, a1, a2);
        let c = b.cmp(CmpCond::Eq, m, x);
        b.if_(
            c,
            &[],
            |b| {
                let a3 = b.bin(Opcode::Add, x, x);
                b.store(p, a3);
                b.term(Opcode::Yield, &[]);
            },
            None,
        );
        let l2 = b.load(p); // loads are never merged
        b.store(p, l2);
        b.term(Opcode::Return, &[]);
        assert!(run(&mut b.f));
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::Add), 1, "{text}");
        assert_eq!(count(&b.f, Opcode::Load), 2, "{text}");
        assert!(text.contains("mul %1, %1"), "{text}");
        assert!(text.contains("store %p, %1"), "{text}");
    }

    #[test]
    fn nested_pure_ops_are_not_visible_outside_or_in_siblings() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let z = b.u32(0);
        let c = b.cmp(CmpCond::Eq, x, z);
        b.if_(
            c,
            &[],
            |b| {
                let a = b.bin(Opcode::Add, x, x);
                b.store(p, a);
                b.term(Opcode::Yield, &[]);
            },
            Some(Box::new(move |b: &mut B| {
                let a = b.bin(Opcode::Add, x, x);
                b.store(p, a);
                b.term(Opcode::Yield, &[]);
            })),
        );
        let a = b.bin(Opcode::Add, x, x);
        b.store(p, a);
        b.term(Opcode::Return, &[]);
        assert!(!run(&mut b.f));
        assert_eq!(count(&b.f, Opcode::Add), 3);
    }

    #[test]
    fn convergent_ops_only_within_the_same_region() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let one = b.u32(1);
        let s1 = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32);
        let s2 = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32);
        let r1 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
        let r2 = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[x]);
        let r3 = b.group(Opcode::SubgroupReduce, GroupOp::Max, Tile::Full, true, &[x]);
        for v in [s1, s2, r1, r2, r3] {
            b.store(p, v);
        }
        let c = b.cmp(CmpCond::Eq, s1, x);
        b.if_(
            c,
            &[],
            |b| {
                // Same expression in a nested region: different active mask, must stay.
                let s3 = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32);
                b.store(p, s3);
                b.term(Opcode::Yield, &[]);
            },
            None,
        );
        b.term(Opcode::Return, &[]);
        run(&mut b.f);
        assert_eq!(count(&b.f, Opcode::ShuffleXor), 2, "{}", b.print());
        assert_eq!(count(&b.f, Opcode::SubgroupReduce), 2, "{}", b.print());
    }

    #[test]
    fn convergent_ops_not_merged_across_an_escaping_if() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let one = b.u32(1);
        let s1 = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32);
        b.store(p, s1);
        let c = b.cmp(CmpCond::Eq, s1, x);
        b.if_(c, &[], |b| b.term(Opcode::Return, &[]), None);
        let s2 = b.op(Opcode::ShuffleXor, Imm::None, &[x, one], Type::U32);
        b.store(p, s2);
        b.term(Opcode::Return, &[]);
        run(&mut b.f);
        assert_eq!(count(&b.f, Opcode::ShuffleXor), 2);
    }

    #[test]
    fn warp_builtins() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U64));
        let q = b.param("q", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let x = b.load(q);
        // Pure lane masks merge (also into nested regions); convergent ops only in one region.
        let l1 = b.op(Opcode::LaneMaskLt, Imm::None, &[], Type::U64);
        let l2 = b.op(Opcode::LaneMaskLt, Imm::None, &[], Type::U64);
        let g1 = b.op(Opcode::LaneMaskGt, Imm::None, &[], Type::U64);
        let a1 = b.op(Opcode::ActiveMask, Imm::None, &[], Type::U64);
        let a2 = b.op(Opcode::ActiveMask, Imm::None, &[], Type::U64);
        let m1 = b.op(Opcode::MatchAny, Imm::None, &[x], Type::U64);
        let m2 = b.op(Opcode::MatchAny, Imm::None, &[x], Type::U64);
        let m3 = b.op(Opcode::MatchAll, Imm::None, &[x], Type::U64);
        for v in [l1, l2, g1, a1, a2, m1, m2, m3] {
            b.store(p, v);
        }
        let e1 = b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
        let e2 = b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
        let c = b.op(Opcode::And, Imm::None, &[e1, e2], Type::BOOL);
        let ns = b.u32(10);
        b.inst(Opcode::Nanosleep, Imm::None, &[ns], &[]);
        b.inst(Opcode::Nanosleep, Imm::None, &[ns], &[]);
        b.if_(
            c,
            &[],
            |b| {
                let l3 = b.op(Opcode::LaneMaskLt, Imm::None, &[], Type::U64);
                let a3 = b.op(Opcode::ActiveMask, Imm::None, &[], Type::U64);
                let e3 = b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
                let m4 = b.op(Opcode::MatchAny, Imm::None, &[x], Type::U64);
                let e3 = b.op(Opcode::Cast, Imm::None, &[e3], Type::U64);
                for v in [l3, a3, e3, m4] {
                    b.store(p, v);
                }
                b.term(Opcode::Yield, &[]);
            },
            None,
        );
        b.term(Opcode::Return, &[]);
        assert!(run(&mut b.f));
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::LaneMaskLt), 1, "{text}");
        assert_eq!(count(&b.f, Opcode::LaneMaskGt), 1, "{text}");
        assert_eq!(count(&b.f, Opcode::ActiveMask), 2, "{text}");
        assert_eq!(count(&b.f, Opcode::Elect), 2, "{text}");
        assert_eq!(count(&b.f, Opcode::MatchAny), 2, "{text}");
        assert_eq!(count(&b.f, Opcode::MatchAll), 1, "{text}");
        assert_eq!(count(&b.f, Opcode::Nanosleep), 2, "{text}");
    }
}
