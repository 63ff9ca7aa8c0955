//! Structured dominance: which instructions may use a value.
//!
//! In structured SSA dominance follows the region tree, so no CFG is built. A value defined by the
//! instruction at index `p` of region `R` is visible to the instructions of `R` after `p` and to
//! everything nested inside them; a region parameter is visible inside its region; a kernel
//! parameter everywhere. A query walks up the region tree from the user to the depth of the
//! definition's region (precomputed positions and depths), so it costs O(nesting depth).
//!
//! Only definitions the function agrees on count: a result must be listed by its instruction at
//! the index its `ValueDef` says, that instruction must be placed in the tree, and likewise for
//! region and kernel parameters. Anything else dominates nothing.

use super::{InstPos, Layout};
use crate::entities::{Inst, Region, Value};
use crate::function::{Function, ValueDef};
use cranelift_entity::SecondaryMap;

/// Where a value becomes visible.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum DefSite {
    /// Not defined in the function's tree (dangling, or defined by an unplaced instruction).
    #[default]
    Nowhere,
    /// A kernel parameter: visible everywhere.
    Everywhere,
    /// A region parameter: visible inside the region.
    Region(Region),
    /// An instruction result: visible after the instruction.
    After(InstPos),
}

/// Structured dominance over a function's region tree.
#[derive(Clone, Debug)]
pub struct DomTree {
    layout: Layout,
    defs: SecondaryMap<Value, DefSite>,
}

impl DomTree {
    /// Computes dominance for `func` (never panics, whatever it holds).
    pub fn new(func: &Function) -> DomTree {
        DomTree::with_layout(func, Layout::new(func))
    }

    /// Computes dominance from an already built layout of `func`.
    pub fn with_layout(func: &Function, layout: Layout) -> DomTree {
        let mut defs = SecondaryMap::with_capacity(func.values.len());
        for (i, p) in func.params.iter().enumerate() {
            let agrees = func.values.get(p.value).is_some_and(|d| d.def == ValueDef::Param(i as u16));
            if agrees && i <= usize::from(u16::MAX) {
                defs[p.value] = DefSite::Everywhere;
            }
        }
        for &r in layout.regions() {
            for (k, &v) in layout.pool().params(func, r).unwrap_or(&[]).iter().enumerate() {
                if func.values.get(v).is_some_and(|d| d.def == ValueDef::RegionParam(r, k as u16)) {
                    defs[v] = DefSite::Region(r);
                }
            }
        }
        for &inst in layout.insts() {
            let Some(pos) = layout.inst_pos(inst) else { continue };
            for (k, &v) in layout.pool().results(func, inst).unwrap_or(&[]).iter().enumerate() {
                if func.values.get(v).is_some_and(|d| d.def == ValueDef::Result(inst, k as u16)) {
                    defs[v] = DefSite::After(pos);
                }
            }
        }
        DomTree { layout, defs }
    }

    /// The layout the tree was built on.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The layout the tree was built on, giving up the tree.
    pub fn into_layout(self) -> Layout {
        self.layout
    }

    /// Where `v` is defined.
    pub fn def_site(&self, v: Value) -> DefSite {
        self.defs.get(v).copied().unwrap_or_default()
    }

    /// True if `v` may be used by `user`: `user` is placed and lies in the scope of `v`'s
    /// definition (strictly after it, for an instruction result).
    pub fn dominates(&self, v: Value, user: Inst) -> bool {
        let Some(upos) = self.layout.inst_pos(user) else { return false };
        match self.def_site(v) {
            DefSite::Nowhere => false,
            DefSite::Everywhere => true,
            DefSite::Region(r) => self.layout.region_contains(r, upos.region),
            DefSite::After(def) => self.ancestor_in(upos, def.region).is_some_and(|at| at.index > def.index),
        }
    }

    /// The position in `region` of `pos` or of the instruction of `region` that (transitively)
    /// owns the region holding `pos`.
    pub fn ancestor_in(&self, mut pos: InstPos, region: Region) -> Option<InstPos> {
        let target = self.layout.region_pos(region)?.depth;
        loop {
            if pos.region == region {
                return Some(pos);
            }
            let rp = self.layout.region_pos(pos.region)?;
            if rp.depth <= target {
                return None;
            }
            pos = rp.parent?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Imm;
    use crate::ops::Opcode;
    use crate::types::Type;

    fn res(f: &Function, i: Inst) -> Value {
        f.inst_results(i)[0]
    }

    #[test]
    fn straight_line_and_nested() {
        let mut f = Function::new("k");
        let p = f.add_param("n", Type::U32, true);
        let body = f.body;
        let a = f.make_inst(Opcode::Const, Imm::Const(1), &[], &[Type::U32]);
        let av = res(&f, a);
        let c = f.make_inst(Opcode::Cmp, Imm::Cond(crate::CmpCond::Lt), &[av, p], &[Type::BOOL]);
        let cv = res(&f, c);
        let lp = f.make_inst(Opcode::Loop, Imm::None, &[av], &[Type::U32]);
        let lb = f.make_region();
        let x = f.add_region_param(lb, Type::U32);
        f.set_inst_regions(lp, Some(lb), None);
        let iff = f.make_inst(Opcode::If, Imm::None, &[cv], &[]);
        let then = f.make_region();
        let els = f.make_region();
        f.set_inst_regions(iff, Some(then), Some(els));
        let inner = f.make_inst(Opcode::Add, Imm::None, &[x, av], &[Type::U32]);
        let iv = res(&f, inner);
        let brk = f.make_inst(Opcode::Break, Imm::None, &[iv], &[]);
        f.append_inst(then, inner);
        f.append_inst(then, brk);
        let cont = f.make_inst(Opcode::Continue, Imm::None, &[x], &[]);
        f.append_inst(els, cont);
        f.append_inst(lb, iff);
        let after = f.make_inst(Opcode::Add, Imm::None, &[av, av], &[Type::U32]);
        let ret = f.make_inst(Opcode::Return, Imm::None, &[], &[]);
        for i in [a, c, lp, after, ret] {
            f.append_inst(body, i);
        }
        let lv = res(&f, lp);
        let d = DomTree::new(&f);
        assert!(d.dominates(p, a));
        assert!(d.dominates(av, c));
        assert!(!d.dominates(av, a), "a value does not dominate its own definition");
        assert!(!d.dominates(res(&f, c), a), "no forward use");
        assert!(d.dominates(av, brk), "visible in nested regions");
        assert!(d.dominates(x, cont));
        assert!(d.dominates(x, brk), "region param visible in nested regions");
        assert!(!d.dominates(x, after), "region param not visible outside");
        assert!(d.dominates(iv, brk));
        assert!(!d.dominates(iv, cont), "then-arm value not visible in else arm");
        assert!(!d.dominates(iv, after));
        assert!(!d.dominates(lv, brk), "loop result not visible inside the loop");
        assert!(d.dominates(lv, ret));
        assert_eq!(d.def_site(Value::from_u32(999)), DefSite::Nowhere);
        assert!(!d.dominates(Value::from_u32(999), ret));
        // An unplaced instruction's result dominates nothing, and unplaced users see nothing.
        let loose = f.make_inst(Opcode::Const, Imm::Const(0), &[], &[Type::U32]);
        let d = DomTree::new(&f);
        assert!(!d.dominates(res(&f, loose), ret));
        assert!(!d.dominates(p, loose));
    }

    #[test]
    fn disagreeing_def_dominates_nothing() {
        let mut f = Function::new("k");
        let a = f.make_inst(Opcode::Const, Imm::Const(1), &[], &[Type::U32]);
        let av = res(&f, a);
        let ret = f.make_inst(Opcode::Return, Imm::None, &[], &[]);
        let body = f.body;
        f.append_inst(body, a);
        f.append_inst(body, ret);
        f.values[av].def = ValueDef::Result(ret, 0);
        assert!(!DomTree::new(&f).dominates(av, ret));
    }
}
