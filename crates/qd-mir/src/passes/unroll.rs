//! Full unrolling of loops whose control path is decided by constants ("peel and fold").
//!
//! What it does: for a `loop`, repeatedly clones its body into a staging region with the region
//! parameters replaced by the current carried values (the inits first), folds the clone with
//! [`fold::fold_region`](super::fold::fold_region), and requires the clone's path to be static:
//! after folding, no instruction of the clone's top level may still contain a `break`/`continue`
//! for this loop (every guard `if` must have been decided by a constant and inlined). The
//! clone's terminator then says what happens: `continue` gives the next carried values and
//! another clone follows; `break` gives the loop's results and ends the unrolling; `return` ends
//! it too (the rest of the enclosing region is dropped as unreachable). On success the loop is
//! replaced by the concatenated clones. This covers the frontend's `for_range` shape (guard at
//! the top: `if cmp ge %i, %end { break … }`), guard-at-bottom loops, any constant step, and
//! carried values that are not constants (accumulators). Inner loops are unrolled first; the
//! pass repeats to a fixed point so loops whose bounds become constant after an outer unroll
//! are handled too.
//!
//! What it refuses (the loop is left untouched): a path not decided by constants, more than
//! [`PassOptions::unroll_max_trips`] iterations, or more than [`MAX_UNROLLED_INSTS`]
//! instructions in the unrolled result. Loops containing barriers and other convergent ops are
//! unrolled: a static path means every lane runs the same iterations, so convergence is
//! unchanged. Abandoned attempts leave unreachable clones in the function's arenas (harmless:
//! everything walks the region tree from the body).

use super::fold::fold_region;
use super::rewrite::{clone_region_insts, jumps_out, region_size, resolve, substitute_all, Subst};
use super::PassOptions;
use crate::entities::{Inst, Region, Value};
use crate::function::Function;
use crate::ops::Opcode;

/// Largest number of instructions an unrolled loop may expand to.
pub const MAX_UNROLLED_INSTS: usize = 4096;

/// Runs unrolling to a fixed point (bounded); returns whether any loop was unrolled.
pub fn run(f: &mut Function, opts: &PassOptions) -> bool {
    let mut changed = false;
    for _ in 0..8 {
        let body = f.body;
        if !unroll_region(f, body, opts) {
            break;
        }
        changed = true;
    }
    changed
}

fn unroll_region(f: &mut Function, region: Region, opts: &PassOptions) -> bool {
    let mut changed = false;
    let mut idx = 0;
    while let Some(&inst) = f.regions[region].insts.get(idx) {
        let nested: Vec<Region> = f.inst_regions(inst).collect();
        for r in nested {
            changed |= unroll_region(f, r, opts);
        }
        if f.insts[inst].opcode == Opcode::Loop {
            if let Some(n) = try_unroll(f, region, idx, inst, opts) {
                changed = true;
                idx += n;
                continue;
            }
        }
        idx += 1;
    }
    changed
}

/// How the unrolled code leaves.
enum Exit {
    /// `break` with the loop's results.
    Break(Vec<Value>),
    /// A `return` (the last of the unrolled instructions).
    Return,
}

/// Tries to unroll the loop `inst` at `idx` of `region`. On success splices the unrolled
/// instructions in its place and returns how many there are.
fn try_unroll(f: &mut Function, region: Region, idx: usize, inst: Inst, opts: &PassOptions) -> Option<usize> {
    let body = f.insts[inst].regions[0].expand()?;
    let per_iter = region_size(f, body);
    let params: Vec<Value> = f.region_params(body).to_vec();
    let mut carried: Vec<Value> = f.args(inst).to_vec();
    if carried.len() != params.len() {
        return None;
    }
    let mut out: Vec<Inst> = Vec::new();
    let mut size = 0usize;
    let mut trips = 0u32;
    let mut subst = Subst::new();
    let exit = loop {
        size += per_iter;
        if size > MAX_UNROLLED_INSTS {
            return None;
        }
        let stage = f.make_region();
        for (&p, &c) in params.iter().zip(&carried) {
            subst.insert(p, c);
        }
        clone_region_insts(f, body, stage, &mut subst);
        fold_region(f, stage, &mut subst, opts);
        let mut insts = std::mem::take(&mut f.regions[stage].insts);
        let term = insts.pop()?;
        // The path must be static: nothing left at the top level may jump to this loop.
        if insts.iter().any(|&i| jumps_out(f, i)) {
            return None;
        }
        let targs: Vec<Value> = f.args(term).iter().map(|&a| resolve(&subst, a)).collect();
        let op = f.insts[term].opcode;
        if op == Opcode::Continue {
            out.extend(insts);
            trips += 1;
            if trips > opts.unroll_max_trips || targs.len() != params.len() {
                return None;
            }
            carried = targs;
        } else if op == Opcode::Break {
            out.extend(insts);
            break Exit::Break(targs);
        } else if op == Opcode::Return {
            out.extend(insts);
            out.push(term);
            break Exit::Return;
        } else {
            return None;
        }
    };
    let n = out.len();
    let mut results = Subst::new();
    match exit {
        Exit::Break(vals) => {
            let rs = f.inst_results(inst).to_vec();
            if rs.len() != vals.len() {
                return None;
            }
            results.extend(rs.into_iter().zip(vals));
            super::rewrite::splice_replace(f, region, idx, out);
        }
        Exit::Return => {
            super::rewrite::splice_replace(f, region, idx, out);
            f.regions[region].insts.truncate(idx + n);
        }
    }
    // Values defined in the clones were substituted on the fly; the loop's results are used
    // after it, possibly in nested regions.
    substitute_all(f, &results);
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::{Imm, Tile};
    use crate::passes::testutil::{count, stored_const, B};
    use crate::passes::{run_pipeline, Pass};
    use crate::types::{ScalarType, Type};
    use crate::{AddrSpace, CmpCond, GroupOp};

    /// `for i in start..end step step { acc = acc + i * i }`, top-guard `for_range` shape.
    fn sum_squares(start: u32, end: u32, step: u32) -> B {
        let mut b = B::new();
        let s = b.u32(start);
        let e = b.u32(end);
        let st = b.u32(step);
        let a0 = b.u32(0);
        let r = b.loop_(&[s, a0], &[Type::U32], |b, ps| {
            let (i, acc) = (ps[0], ps[1]);
            let c = b.cmp(CmpCond::Ge, i, e);
            b.if_(c, &[], |b| b.term(Opcode::Break, &[acc]), None);
            let sq = b.bin(Opcode::Mul, i, i);
            let acc2 = b.bin(Opcode::Add, acc, sq);
            let n = b.bin(Opcode::Add, i, st);
            b.term(Opcode::Continue, &[n, acc2]);
        });
        b.sink(r[0]);
        b.term(Opcode::Return, &[]);
        b
    }

    #[test]
    fn unrolls_for_range_and_folds_the_sum() {
        let mut b = sum_squares(0, 10, 1);
        assert!(run(&mut b.f, &PassOptions::default()));
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::Loop), 0, "{text}");
        run_pipeline(&mut b.f, &[Pass::Fold, Pass::Dce], &PassOptions::default()).unwrap();
        assert_eq!(stored_const(&b.f, 0), Some(285), "{}", b.print());
        let mut b = sum_squares(3, 20, 4); // 3, 7, 11, 15, 19
        run_pipeline(&mut b.f, &[Pass::Unroll, Pass::Fold, Pass::Dce], &PassOptions::default()).unwrap();
        assert_eq!(stored_const(&b.f, 0), Some(9 + 49 + 121 + 225 + 361));
        assert_eq!(b.f.walk_insts().len(), 3, "{}", b.print()); // const, store, return
        let mut b = sum_squares(5, 5, 1); // zero trips
        run(&mut b.f, &PassOptions::default());
        run(&mut b.f, &PassOptions::default());
        crate::passes::dce::run(&mut b.f);
        assert_eq!(stored_const(&b.f, 0), Some(0));
    }

    #[test]
    fn respects_the_trip_limit() {
        let mut b = sum_squares(0, 65, 1);
        assert!(!run(&mut b.f, &PassOptions::default()));
        assert_eq!(count(&b.f, Opcode::Loop), 1);
        let mut b = sum_squares(0, 64, 1);
        assert!(run(&mut b.f, &PassOptions::default()));
        let opts = PassOptions { unroll_max_trips: 3, ..PassOptions::default() };
        let mut b = sum_squares(0, 4, 1);
        assert!(!run(&mut b.f, &opts));
        let mut b = sum_squares(0, 3, 1);
        assert!(run(&mut b.f, &opts));
    }

    #[test]
    fn leaves_loops_with_dynamic_bounds() {
        let mut b = B::new();
        let n = b.param("n", Type::U32);
        let z = b.u32(0);
        b.loop_(&[z], &[], |b, ps| {
            let c = b.cmp(CmpCond::Ge, ps[0], n);
            b.if_(c, &[], |b| b.term(Opcode::Break, &[]), None);
            let one = b.u32(1);
            let i2 = b.bin(Opcode::Add, ps[0], one);
            b.term(Opcode::Continue, &[i2]);
        });
        b.term(Opcode::Return, &[]);
        let before = b.print();
        assert!(!run(&mut b.f, &PassOptions::default()));
        assert_eq!(b.print(), before);
    }

    #[test]
    fn guard_at_bottom_with_varying_accumulator_and_convergent_ops() {
        // acc = load; do { acc = reduce(acc) + acc; i += 1 } while i < 3
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::F32));
        let x = b.load(p);
        let z = b.u32(0);
        let r = b.loop_(&[z, x], &[Type::F32], |b, ps| {
            let (i, acc) = (ps[0], ps[1]);
            let red = b.group(Opcode::SubgroupReduce, GroupOp::Add, Tile::Full, true, &[acc]);
            let acc2 = b.bin(Opcode::Add, red, acc);
            b.inst(Opcode::BlockSync, Imm::None, &[], &[]);
            let one = b.u32(1);
            let three = b.u32(3);
            let i2 = b.bin(Opcode::Add, i, one);
            let c = b.cmp(CmpCond::Lt, i2, three);
            b.if_(
                c,
                &[],
                |b| b.term(Opcode::Continue, &[i2, acc2]),
                Some(Box::new(move |b: &mut B| b.term(Opcode::Break, &[acc2]))),
            );
            b.term(Opcode::Break, &[acc2]); // unreachable after the `if` (both arms leave)
        });
        b.store(p, r[0]);
        b.term(Opcode::Return, &[]);
        assert!(run(&mut b.f, &PassOptions::default()));
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::Loop), 0, "{text}");
        assert_eq!(count(&b.f, Opcode::If), 0, "{text}");
        assert_eq!(count(&b.f, Opcode::SubgroupReduce), 3, "{text}");
        assert_eq!(count(&b.f, Opcode::BlockSync), 3, "{text}");
        // The stored value is the third iteration's accumulator.
        assert!(text.contains("store %p, %"), "{text}");
        let last_add = b.f.walk_insts().into_iter().rev().find(|&i| b.f.insts[i].opcode == Opcode::Add);
        let st = b.f.walk_insts().into_iter().find(|&i| b.f.insts[i].opcode == Opcode::Store).unwrap();
        assert_eq!(b.f.args(st)[1], b.f.first_result(last_add.unwrap()).unwrap(), "{text}");
    }

    #[test]
    fn nested_loops_unroll_inner_first_and_triangular_bounds() {
        // for i in 0..4 { for j in 0..i { acc += 1 } }  => 0+1+2+3 = 6
        let mut b = B::new();
        let z = b.u32(0);
        let one = b.u32(1);
        let four = b.u32(4);
        let r = b.loop_(&[z, z], &[Type::U32], |b, ps| {
            let (i, acc) = (ps[0], ps[1]);
            let c = b.cmp(CmpCond::Ge, i, four);
            b.if_(c, &[], |b| b.term(Opcode::Break, &[acc]), None);
            let inner = b.loop_(&[z, acc], &[Type::U32], |b, qs| {
                let (j, a) = (qs[0], qs[1]);
                let c = b.cmp(CmpCond::Ge, j, i);
                b.if_(c, &[], |b| b.term(Opcode::Break, &[a]), None);
                let a2 = b.bin(Opcode::Add, a, one);
                let j2 = b.bin(Opcode::Add, j, one);
                b.term(Opcode::Continue, &[j2, a2]);
            });
            let i2 = b.bin(Opcode::Add, i, one);
            b.term(Opcode::Continue, &[i2, inner[0]]);
        });
        b.sink(r[0]);
        b.term(Opcode::Return, &[]);
        run_pipeline(&mut b.f, &[Pass::Unroll, Pass::Fold, Pass::Dce], &PassOptions::default()).unwrap();
        assert_eq!(count(&b.f, Opcode::Loop), 0, "{}", b.print());
        assert_eq!(stored_const(&b.f, 0), Some(6), "{}", b.print());
    }

    #[test]
    fn loop_with_varying_break_is_left_alone() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(AddrSpace::Global, ScalarType::U32));
        let z = b.u32(0);
        let four = b.u32(4);
        b.loop_(&[z], &[], |b, ps| {
            let c = b.cmp(CmpCond::Ge, ps[0], four);
            b.if_(c, &[], |b| b.term(Opcode::Break, &[]), None);
            let x = b.load(p);
            let c2 = b.cmp(CmpCond::Eq, x, z);
            b.if_(c2, &[], |b| b.term(Opcode::Break, &[]), None);
            let one = b.u32(1);
            let i2 = b.bin(Opcode::Add, ps[0], one);
            b.term(Opcode::Continue, &[i2]);
        });
        b.term(Opcode::Return, &[]);
        assert!(!run(&mut b.f, &PassOptions::default()));
        assert_eq!(count(&b.f, Opcode::Loop), 1);
    }
}
