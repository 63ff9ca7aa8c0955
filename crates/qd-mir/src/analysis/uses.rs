//! Use counts: how many operand slots of placed instructions name each value.
//!
//! Passes use it to find dead values (count 0) and single-use values. Only instructions reachable
//! from the body count (instructions left detached in the function's maps are dead); a value named
//! twice by one instruction counts twice. Region parameters are definitions, not uses.

use super::Layout;
use crate::entities::Value;
use crate::function::Function;
use cranelift_entity::SecondaryMap;

/// The number of uses of every value.
#[derive(Clone, Debug)]
pub struct UseCounts {
    counts: SecondaryMap<Value, u32>,
}

impl UseCounts {
    /// Counts the uses in `func` (never panics, whatever it holds).
    pub fn new(func: &Function) -> UseCounts {
        UseCounts::with_layout(func, &Layout::new(func))
    }

    /// Counts the uses from an already built layout of `func`.
    pub fn with_layout(func: &Function, layout: &Layout) -> UseCounts {
        let mut counts: SecondaryMap<Value, u32> = SecondaryMap::new();
        for &inst in layout.insts() {
            for &v in layout.pool().args(func, inst).unwrap_or(&[]) {
                // Values outside the function's map are counted too (SecondaryMap grows);
                // the verifier reports them.
                if func.values.get(v).is_some() {
                    counts[v] = counts[v].saturating_add(1);
                }
            }
        }
        UseCounts { counts }
    }

    /// The number of uses of `v`.
    pub fn count(&self, v: Value) -> u32 {
        self.counts.get(v).copied().unwrap_or(0)
    }

    /// True if `v` has no use.
    pub fn is_unused(&self, v: Value) -> bool {
        self.count(v) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Imm;
    use crate::ops::Opcode;
    use crate::types::Type;

    #[test]
    fn counts_placed_uses() {
        let mut f = Function::new("k");
        let p = f.add_param("n", Type::U32, true);
        let a = f.make_inst(Opcode::Add, Imm::None, &[p, p], &[Type::U32]);
        let av = f.inst_results(a)[0];
        let lp = f.make_inst(Opcode::Loop, Imm::None, &[av], &[]);
        let lb = f.make_region();
        let x = f.add_region_param(lb, Type::U32);
        f.set_inst_regions(lp, Some(lb), None);
        let br = f.make_inst(Opcode::Continue, Imm::None, &[x], &[]);
        f.append_inst(lb, br);
        let dead = f.make_inst(Opcode::Add, Imm::None, &[av, av], &[Type::U32]);
        let body = f.body;
        f.append_inst(body, a);
        f.append_inst(body, lp);
        let u = UseCounts::new(&f);
        assert_eq!(u.count(p), 2);
        assert_eq!(u.count(av), 1, "the detached instruction does not count");
        assert_eq!(u.count(x), 1);
        assert!(u.is_unused(f.inst_results(dead)[0]));
        assert_eq!(u.count(Value::from_u32(12345)), 0);
    }
}
