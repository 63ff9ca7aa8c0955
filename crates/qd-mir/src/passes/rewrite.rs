//! Rewrite utilities shared by the passes: value substitution over every operand list, use
//! counts, instruction removal and splicing, constant lookup, and cloning a region's
//! instructions with a value substitution (for unrolling).
//!
//! Removed instructions and regions stay allocated in the function's arenas but become
//! unreachable from the body: every consumer (printer, verifier, interpreter, back ends) walks the
//! region tree from [`Function::body`], so orphans are invisible. Nothing here matches on
//! `Opcode` except through [`OpInfo`](crate::OpInfo) properties.

use crate::entities::{Inst, Region, Value};
use crate::function::{Function, ValueDef};
use crate::inst::Imm;
use crate::ops::Opcode;
use crate::types::ScalarType;
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;

/// A value substitution: `old → new`. Chains (`a → b → c`) are followed by [`resolve`].
pub type Subst = HashMap<Value, Value>;

/// Follows a substitution chain from `v` to its final value (cycles are cut after a bounded walk).
pub fn resolve(map: &Subst, v: Value) -> Value {
    let mut cur = v;
    for _ in 0..=map.len() {
        match map.get(&cur) {
            Some(&n) if n != cur => cur = n,
            _ => return cur,
        }
    }
    cur
}

/// Rewrites the operands of one instruction through `map`; returns whether anything changed.
pub fn substitute_inst(f: &mut Function, inst: Inst, map: &Subst) -> bool {
    if map.is_empty() {
        return false;
    }
    let args = f.args(inst);
    if !args.iter().any(|a| map.contains_key(a)) {
        return false;
    }
    let new: Vec<Value> = args.iter().map(|&a| resolve(map, a)).collect();
    f.set_args(inst, &new);
    true
}

/// Rewrites every operand list reachable from the body (terminators and loop inits included)
/// through `map`.
pub fn substitute_all(f: &mut Function, map: &Subst) {
    if map.is_empty() {
        return;
    }
    for inst in f.walk_insts() {
        substitute_inst(f, inst, map);
    }
}

/// Replaces every use of `old` by `new` in the instructions reachable from the body.
pub fn replace_all_uses(f: &mut Function, old: Value, new: Value) {
    let mut map = Subst::new();
    map.insert(old, new);
    substitute_all(f, &map);
}

/// Number of uses of every value by instructions reachable from the body.
pub fn use_counts(f: &Function) -> SecondaryMap<Value, u32> {
    let mut counts = SecondaryMap::with_default(0u32);
    for inst in f.walk_insts() {
        for &a in f.args(inst) {
            counts[a] += 1;
        }
    }
    counts
}

/// Removes `inst` from `region`'s instruction list; returns whether it was there.
pub fn remove_inst(f: &mut Function, region: Region, inst: Inst) -> bool {
    let insts = &mut f.regions[region].insts;
    match insts.iter().position(|&i| i == inst) {
        Some(pos) => {
            insts.remove(pos);
            true
        }
        None => false,
    }
}

/// Replaces the instruction at `index` of `region` by `insts` (in order).
pub fn splice_replace(f: &mut Function, region: Region, index: usize, insts: Vec<Inst>) {
    let list = &mut f.regions[region].insts;
    if index < list.len() {
        list.splice(index..=index, insts);
    } else {
        list.extend(insts);
    }
}

/// The constant bits of `v` if it is the result of a `const` instruction, with its scalar type.
pub fn const_of(f: &Function, v: Value) -> Option<(ScalarType, u64)> {
    let data = f.values.get(v)?;
    let ValueDef::Result(inst, 0) = data.def else { return None };
    let idata = f.insts.get(inst)?;
    match idata.imm {
        Imm::Const(bits) if idata.opcode == Opcode::Const => Some((data.ty.scalar()?, bits)),
        _ => None,
    }
}

/// Creates (without placing) a `const` instruction of type `ty` and returns it and its value.
pub fn make_const(f: &mut Function, ty: ScalarType, bits: u64) -> (Inst, Value) {
    let inst = f.make_inst(Opcode::Const, Imm::Const(crate::eval::canon(ty, bits)), &[], &[ty.into()]);
    let v = f.inst_results(inst)[0];
    (inst, v)
}

/// Number of instructions in a region, nested regions included.
pub fn region_size(f: &Function, r: Region) -> usize {
    f.regions[r].insts.iter().map(|&i| 1 + f.inst_regions(i).map(|rg| region_size(f, rg)).sum::<usize>()).sum()
}

/// Whether control can leave `inst` other than by falling through to the next instruction: a
/// `return` anywhere inside it, or a `break`/`continue` inside it that targets a loop enclosing
/// `inst` (an `if` arm's own break/continue; for a `loop`, only those of loops around it).
pub fn escapes(f: &Function, inst: Inst) -> bool {
    inst_jumps(f, inst, true)
}

/// Whether `inst` contains a `break`/`continue` that targets a loop enclosing `inst` (returns
/// are not counted).
pub fn jumps_out(f: &Function, inst: Inst) -> bool {
    inst_jumps(f, inst, false)
}

fn inst_jumps(f: &Function, inst: Inst, returns: bool) -> bool {
    let depth = usize::from(f.insts[inst].opcode == Opcode::Loop);
    f.inst_regions(inst).any(|r| region_jumps(f, r, depth, returns))
}

/// Whether `region` contains a `break`/`continue` that targets a loop outside the walk (or, when
/// `returns`, a `return`): `depth` is the number of loops between `region` and the walk's start
/// (a jump escapes when it is nested in no loop entered since the start).
pub fn region_jumps(f: &Function, region: Region, depth: usize, returns: bool) -> bool {
    f.regions[region].insts.iter().any(|&i| {
        let op = f.insts[i].opcode;
        if (returns && op == Opcode::Return) || ((op == Opcode::Break || op == Opcode::Continue) && depth == 0) {
            return true;
        }
        let inner = if op == Opcode::Loop { depth + 1 } else { depth };
        f.inst_regions(i).any(|r| region_jumps(f, r, inner, returns))
    })
}

/// Clones the instructions of `src` (all of them, terminator included) and appends the clones
/// to `dst`, substituting operands through `subst`; each original result is mapped to its clone's
/// result in `subst` (and each nested region parameter to its clone's). Nested regions are cloned
/// recursively. Returns the cloned instructions of the top level, in order.
pub fn clone_region_insts(f: &mut Function, src: Region, dst: Region, subst: &mut Subst) -> Vec<Inst> {
    let insts = f.regions[src].insts.clone();
    let mut out = Vec::with_capacity(insts.len());
    for inst in insts {
        let c = clone_inst(f, inst, subst);
        f.append_inst(dst, c);
        out.push(c);
    }
    out
}

/// Clones one instruction (and its regions) with operands substituted through `subst`, mapping
/// its results to the clone's results. The clone is not placed in any region.
pub fn clone_inst(f: &mut Function, inst: Inst, subst: &mut Subst) -> Inst {
    let data = f.insts[inst].clone();
    let args: Vec<Value> = f.args(inst).iter().map(|&a| resolve(subst, a)).collect();
    let tys: Vec<_> = f.inst_results(inst).iter().map(|&r| f.value_type(r)).collect();
    let c = f.make_inst(data.opcode, data.imm, &args, &tys);
    let olds: Vec<Value> = f.inst_results(inst).to_vec();
    let news: Vec<Value> = f.inst_results(c).to_vec();
    for (o, n) in olds.into_iter().zip(news) {
        subst.insert(o, n);
    }
    let regions: Vec<Option<Region>> = data.regions.iter().map(|r| r.expand()).collect();
    let mut cloned = [None, None];
    for (slot, r) in regions.into_iter().enumerate() {
        if let (Some(r), Some(out)) = (r, cloned.get_mut(slot)) {
            let nr = f.make_region();
            let params: Vec<Value> = f.region_params(r).to_vec();
            for p in params {
                let ty = f.value_type(p);
                let np = f.add_region_param(nr, ty);
                subst.insert(p, np);
            }
            clone_region_insts(f, r, nr, subst);
            *out = Some(nr);
        }
    }
    if cloned.iter().any(Option::is_some) {
        f.set_inst_regions(c, cloned[0], cloned[1]);
    }
    c
}
