//! Constant folding and local simplification.
//!
//! What it does, walking the region tree in order (so operands are simplified before users):
//! - evaluates pure scalar ops (binary, unary, `fma`, `cmp`, `cast`, `bitcast`) whose operands are
//!   all `const`, with the shared scalar semantics of [`crate::eval`] (bit-exact with the
//!   interpreter); the instruction is turned into a `const` in place, keeping its result value;
//! - folds `subgroup_size` when [`PassOptions::subgroup_width`] is known;
//! - `select` with a constant condition (or equal arms), `cast` to the same type;
//! - integer/bool identities: `x+0`, `x-0`, `x-x`, `x*1`, `x*0`, `x/1`, `x&0`, `x&~0`, `x|0`,
//!   `x|~0`, `x^0`, `x^x`, shifts by 0;
//! - an `if` with a constant condition is replaced by the chosen arm, inlined into the parent
//!   region: an arm ending in `yield` replaces the `if`'s results by the yielded values; an arm
//!   ending in `break`/`continue`/`return` is inlined with its terminator and the rest of the
//!   parent region (unreachable) is dropped; an absent else arm on a false condition removes the
//!   `if` (when it has no results).
//!
//! What it never does: fold an integer division/remainder by zero (the runtime fault must stay),
//! apply algebraic identities to floats (`x + 0.0` is not `x` for `x = -0.0`, `x * 0.0` is not
//! `0.0` for NaN/inf), touch memory, convergent ops or loops, or deduplicate anything (that is
//! [`cse`](super::cse)). Unused instructions are left for [`dce`](super::dce).

use super::rewrite::{const_of, splice_replace, substitute_all, substitute_inst, Subst};
use super::PassOptions;
use crate::entities::{Inst, Region, Value};
use crate::eval;
use crate::function::Function;
use crate::inst::Imm;
use crate::ops::{IndexOp, OpClass, Opcode};
use crate::types::ScalarType;

/// Runs folding to a fixed point (bounded); returns whether anything changed.
pub fn run(f: &mut Function, opts: &PassOptions) -> bool {
    let mut changed = false;
    for _ in 0..8 {
        let mut subst = Subst::new();
        let body = f.body;
        let c = fold_region(f, body, &mut subst, opts);
        substitute_all(f, &subst);
        if !c {
            break;
        }
        changed = true;
    }
    changed
}

/// How the folder treats an opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Binary,
    Unary,
    Fma,
    Cmp,
    Cast,
    Bitcast,
    Select,
    SubgroupSize,
    If,
    Other,
}

fn kind(op: Opcode) -> Kind {
    match op.class() {
        OpClass::Binary(_) => Kind::Binary,
        OpClass::Unary(_) => Kind::Unary,
        OpClass::Fma => Kind::Fma,
        OpClass::Select => Kind::Select,
        OpClass::Cmp => Kind::Cmp,
        OpClass::Cast => Kind::Cast,
        OpClass::Bitcast => Kind::Bitcast,
        OpClass::Index(IndexOp::SubgroupSize) => Kind::SubgroupSize,
        OpClass::If => Kind::If,
        OpClass::Const
        | OpClass::Memory(_)
        | OpClass::Index(
            IndexOp::ThreadId
            | IndexOp::BlockId
            | IndexOp::BlockDim
            | IndexOp::GridDim
            | IndexOp::LaneId
            | IndexOp::SubgroupId
            | IndexOp::LaneMask(_),
        )
        | OpClass::Exchange(_)
        | OpClass::Collective(_)
        | OpClass::Sync(_)
        | OpClass::Loop
        | OpClass::Terminator(_) => Kind::Other,
    }
}

/// The outcome of simplifying one instruction.
enum Simp {
    /// Its single result is this constant.
    Const(u64),
    /// Its single result equals an existing value.
    Value(Value),
}

/// Folds the instructions of `region` (and, recursively, of nested regions), recording value
/// replacements in `subst` (applied to operands as instructions are visited). Returns whether
/// anything changed. Used by [`unroll`](super::unroll) on its staging regions too.
pub fn fold_region(f: &mut Function, region: Region, subst: &mut Subst, opts: &PassOptions) -> bool {
    let mut changed = false;
    let mut idx = 0;
    while let Some(&inst) = f.regions[region].insts.get(idx) {
        substitute_inst(f, inst, subst);
        if kind(f.insts[inst].opcode) == Kind::If && inline_const_if(f, region, idx, inst, subst) {
            changed = true;
            continue;
        }
        match simplify(f, inst, opts) {
            Some(Simp::Const(bits)) => {
                make_const_in_place(f, inst, bits);
                changed = true;
            }
            Some(Simp::Value(v)) => {
                if let Some(r) = f.first_result(inst) {
                    subst.insert(r, v);
                    f.regions[region].insts.remove(idx);
                    changed = true;
                    continue;
                }
            }
            None => {}
        }
        let nested: Vec<Region> = f.inst_regions(inst).collect();
        for r in nested {
            changed |= fold_region(f, r, subst, opts);
        }
        idx += 1;
    }
    changed
}

fn make_const_in_place(f: &mut Function, inst: Inst, bits: u64) {
    let ty = f.first_result(inst).and_then(|r| f.value_type(r).scalar()).unwrap_or(ScalarType::U64);
    f.set_args(inst, &[]);
    let data = &mut f.insts[inst];
    data.opcode = Opcode::Const;
    data.imm = Imm::Const(eval::canon(ty, bits));
}

/// Replaces an `if` with a constant condition by its chosen arm; returns whether it did.
fn inline_const_if(f: &mut Function, region: Region, idx: usize, inst: Inst, subst: &mut Subst) -> bool {
    let Some(&cond) = f.args(inst).first() else { return false };
    let Some((ScalarType::Bool, bits)) = const_of(f, cond) else { return false };
    let arm = f.insts[inst].regions[usize::from(bits & 1 == 0)].expand();
    let Some(arm) = arm else {
        // The implicit empty else arm falls through; only valid without results.
        if f.inst_results(inst).is_empty() {
            f.regions[region].insts.remove(idx);
            return true;
        }
        return false;
    };
    let Some(&last) = f.regions[arm].insts.last() else { return false };
    let term = f.insts[last].opcode;
    if term == Opcode::Yield {
        let results = f.inst_results(inst).to_vec();
        let yielded = f.args(last).to_vec();
        if results.len() != yielded.len() {
            return false;
        }
        for (r, y) in results.into_iter().zip(yielded) {
            let y = super::rewrite::resolve(subst, y);
            subst.insert(r, y);
        }
        let mut body = std::mem::take(&mut f.regions[arm].insts);
        body.pop();
        splice_replace(f, region, idx, body);
        true
    } else if [Opcode::Break, Opcode::Continue, Opcode::Return].contains(&term) {
        let body = std::mem::take(&mut f.regions[arm].insts);
        let n = body.len();
        splice_replace(f, region, idx, body);
        f.regions[region].insts.truncate(idx + n);
        true
    } else {
        false
    }
}

fn simplify(f: &Function, inst: Inst, opts: &PassOptions) -> Option<Simp> {
    let op = f.insts[inst].opcode;
    let k = kind(op);
    if matches!(k, Kind::Other | Kind::If) {
        return None;
    }
    let result = f.first_result(inst)?;
    let rt = f.value_type(result).scalar()?;
    let args = f.args(inst);
    let c = |i: usize| args.get(i).and_then(|&a| const_of(f, a));
    let aty = |i: usize| args.get(i).and_then(|&a| f.value_type(a).scalar());
    match k {
        Kind::SubgroupSize => f.launch.subgroup_size.or(opts.subgroup_width).map(|w| Simp::Const(u64::from(w))),
        Kind::Binary => {
            let ty = aty(0)?;
            if ty != rt {
                return None;
            }
            match (c(0), c(1)) {
                (Some((_, a)), Some((_, b))) => eval::binary(op, ty, a, b).ok().map(Simp::Const),
                (x, y) => identity(op, ty, args.first().copied()?, args.get(1).copied()?, x, y),
            }
        }
        Kind::Unary => {
            let (ty, a) = c(0)?;
            if ty != rt {
                return None;
            }
            eval::unary(op, ty, a).ok().map(Simp::Const)
        }
        Kind::Fma => {
            let ((ty, a), (_, b), (_, cc)) = (c(0)?, c(1)?, c(2)?);
            if ty != rt {
                return None;
            }
            eval::fma(ty, a, b, cc).ok().map(Simp::Const)
        }
        Kind::Cmp => {
            let Imm::Cond(cond) = f.insts[inst].imm else { return None };
            let ((ty, a), (_, b)) = (c(0)?, c(1)?);
            Some(Simp::Const(u64::from(eval::compare(cond, ty, a, b))))
        }
        Kind::Cast => {
            let x = *args.first()?;
            if aty(0)? == rt {
                return Some(Simp::Value(x));
            }
            let (from, a) = c(0)?;
            Some(Simp::Const(eval::cast(from, rt, a)))
        }
        Kind::Bitcast => {
            let (from, a) = c(0)?;
            (from.bits() == rt.bits()).then(|| Simp::Const(eval::canon(rt, a)))
        }
        Kind::Select => {
            let (t, e) = (*args.get(1)?, *args.get(2)?);
            if t == e {
                return Some(Simp::Value(t));
            }
            match c(0)? {
                (ScalarType::Bool, b) => Some(Simp::Value(if b & 1 != 0 { t } else { e })),
                _ => None,
            }
        }
        Kind::If | Kind::Other => None,
    }
}

/// Algebraic identities on integers and bools (never floats).
fn identity(
    op: Opcode,
    ty: ScalarType,
    a: Value,
    b: Value,
    ca: Option<(ScalarType, u64)>,
    cb: Option<(ScalarType, u64)>,
) -> Option<Simp> {
    if !(ty.is_int() || ty == ScalarType::Bool) {
        return None;
    }
    let ones = eval::canon(ty, u64::MAX);
    let ca = ca.map(|(_, x)| x);
    let cb = cb.map(|(_, x)| x);
    // A commutative op with the constant on the left is treated as constant-on-the-right.
    let is = |ops: &[Opcode]| ops.contains(&op);
    let commutative = is(&[Opcode::Add, Opcode::Mul, Opcode::And, Opcode::Or, Opcode::Xor]);
    let (x, k) = match (ca, cb) {
        (_, Some(k)) => (a, Some(k)),
        (Some(k), None) if commutative => (b, Some(k)),
        _ => (a, None),
    };
    if let Some(k) = k {
        let neutral = (k == 0 && is(&[Opcode::Add, Opcode::Sub, Opcode::Or, Opcode::Xor, Opcode::Shl, Opcode::Shr]))
            || (k == 1 && ty.is_int() && is(&[Opcode::Mul, Opcode::Div]))
            || (k == ones && op == Opcode::And);
        return if neutral {
            Some(Simp::Value(x))
        } else if k == 0 && is(&[Opcode::Mul, Opcode::And]) {
            Some(Simp::Const(0))
        } else if k == ones && op == Opcode::Or {
            Some(Simp::Const(ones))
        } else {
            None
        };
    }
    if a == b && ty.is_int() && is(&[Opcode::Sub, Opcode::Xor]) {
        return Some(Simp::Const(0));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::{count, stored_const, B};
    use crate::types::Type;
    use crate::CmpCond;

    fn fold(b: &mut B) {
        run(&mut b.f, &PassOptions::with_width(32));
    }

    #[test]
    fn folds_integer_arithmetic_chain() {
        let mut b = B::new();
        let x = b.u32(7);
        let y = b.u32(5);
        let s = b.bin(Opcode::Add, x, y); // 12
        let m = b.bin(Opcode::Mul, s, y); // 60
        let n = b.un(Opcode::Neg, m); // -60 as u32
        let sh = b.bin(Opcode::Shr, n, y);
        b.sink(sh);
        fold(&mut b);
        assert_eq!(stored_const(&b.f, 0), Some(u64::from(0u32.wrapping_sub(60) >> 5)));
        assert_eq!(count(&b.f, Opcode::Add) + count(&b.f, Opcode::Mul) + count(&b.f, Opcode::Shr), 0);
    }

    #[test]
    fn folds_floats_bit_exactly_and_casts_and_compares() {
        let mut b = B::new();
        let x = b.f32(0.1);
        let y = b.f32(0.2);
        let s = b.bin(Opcode::Add, x, y);
        b.sink(s);
        let fm = b.op(Opcode::Fma, Imm::None, &[x, y, s], Type::F32);
        b.sink(fm);
        let c = b.op(Opcode::Cast, Imm::None, &[s], Type::I32);
        b.sink(c);
        let lt = b.cmp(CmpCond::Lt, x, y);
        b.sink(lt);
        let bc = b.op(Opcode::Bitcast, Imm::None, &[x], Type::U32);
        b.sink(bc);
        fold(&mut b);
        assert_eq!(stored_const(&b.f, 0), Some(u64::from((0.1f32 + 0.2f32).to_bits())));
        assert_eq!(stored_const(&b.f, 1), Some(u64::from(0.1f32.mul_add(0.2, 0.1 + 0.2).to_bits())));
        assert_eq!(stored_const(&b.f, 2), Some(0));
        assert_eq!(stored_const(&b.f, 3), Some(1));
        assert_eq!(stored_const(&b.f, 4), Some(u64::from(0.1f32.to_bits())));
    }

    #[test]
    fn never_folds_division_by_zero() {
        let mut b = B::new();
        let x = b.u32(7);
        let z = b.u32(0);
        let d = b.bin(Opcode::Div, x, z);
        b.sink(d);
        let r = b.bin(Opcode::Rem, x, z);
        b.sink(r);
        fold(&mut b);
        assert_eq!(count(&b.f, Opcode::Div), 1);
        assert_eq!(count(&b.f, Opcode::Rem), 1);
    }

    #[test]
    fn integer_identities_but_not_float_ones() {
        let mut b = B::new();
        let p = b.param("p", Type::Ptr(crate::AddrSpace::Global, ScalarType::U32));
        let x = b.load(p);
        let z = b.u32(0);
        let one = b.u32(1);
        let a = b.bin(Opcode::Add, z, x);
        let m = b.bin(Opcode::Mul, a, one);
        let o = b.bin(Opcode::Or, m, z);
        let s = b.bin(Opcode::Shl, o, z);
        b.sink(s);
        let zero = b.bin(Opcode::Mul, x, z);
        b.sink(zero);
        let q = b.param("q", Type::Ptr(crate::AddrSpace::Global, ScalarType::F32));
        let fx = b.load(q);
        let fz = b.f32(0.0);
        let fa = b.bin(Opcode::Add, fx, fz);
        b.sink(fa);
        fold(&mut b);
        let text = b.print();
        assert!(text.contains("store %out1, %0"), "{text}");
        assert_eq!(stored_const(&b.f, 1), Some(0));
        assert_eq!(count(&b.f, Opcode::Add), 1, "{text}"); // the float add stays
        assert_eq!(count(&b.f, Opcode::Shl) + count(&b.f, Opcode::Or), 0, "{text}");
    }

    #[test]
    fn subgroup_size_folds_only_with_a_width() {
        let mut b = B::new();
        let w = b.op(Opcode::SubgroupSize, Imm::None, &[], Type::U32);
        b.sink(w);
        let mut f2 = b.f.clone();
        run(&mut f2, &PassOptions::default());
        assert_eq!(count(&f2, Opcode::SubgroupSize), 1);
        run(&mut b.f, &PassOptions::with_width(64));
        assert_eq!(stored_const(&b.f, 0), Some(64));
    }

    #[test]
    fn constant_select_and_if_with_yield_are_inlined() {
        let mut b = B::new();
        let t = b.k(ScalarType::Bool, 1);
        let x = b.u32(3);
        let y = b.u32(4);
        let s = b.op(Opcode::Select, Imm::None, &[t, x, y], Type::U32);
        b.sink(s);
        let f = b.cmp(CmpCond::Gt, x, y); // false
        let r = b.if_(
            f,
            &[Type::U32],
            |b| {
                let v = b.u32(10);
                b.term(Opcode::Yield, &[v]);
            },
            Some(Box::new(move |b: &mut B| {
                let v = b.bin(Opcode::Add, x, y);
                b.term(Opcode::Yield, &[v]);
            })),
        );
        b.sink(r[0]);
        fold(&mut b);
        assert_eq!(count(&b.f, Opcode::If), 0, "{}", b.print());
        assert_eq!(stored_const(&b.f, 0), Some(3));
        assert_eq!(stored_const(&b.f, 1), Some(7));
    }

    #[test]
    fn constant_if_with_break_truncates_the_parent_region() {
        let mut b = B::new();
        let zero = b.u32(0);
        let r = b.loop_(&[zero], &[Type::U32], |b, ps| {
            let i = ps[0];
            let t = b.k(ScalarType::Bool, 1);
            b.if_(t, &[], |b| b.term(Opcode::Break, &[i]), None);
            let one = b.u32(1);
            let n = b.bin(Opcode::Add, i, one);
            b.term(Opcode::Continue, &[n]);
        });
        b.sink(r[0]);
        fold(&mut b);
        let text = b.print();
        assert_eq!(count(&b.f, Opcode::If), 0, "{text}");
        assert_eq!(count(&b.f, Opcode::Continue), 0, "{text}");
        assert_eq!(count(&b.f, Opcode::Break), 1, "{text}");
        // An implicit empty else arm on a false condition removes the `if`.
        let mut b = B::new();
        let fls = b.k(ScalarType::Bool, 0);
        b.if_(fls, &[], |b| b.term(Opcode::Return, &[]), None);
        let v = b.u32(1);
        b.sink(v);
        fold(&mut b);
        assert_eq!(count(&b.f, Opcode::If) + count(&b.f, Opcode::Return), 0);
        assert_eq!(count(&b.f, Opcode::Store), 1);
    }

    #[test]
    fn warp_builtins_are_never_folded() {
        for width in [1, 32, 64] {
            let mut b = B::new();
            let ops = [
                Opcode::LaneMaskLt,
                Opcode::LaneMaskLe,
                Opcode::LaneMaskEq,
                Opcode::LaneMaskGe,
                Opcode::LaneMaskGt,
                Opcode::ActiveMask,
            ];
            for op in ops {
                let v = b.op(op, Imm::None, &[], Type::U64);
                b.sink(v);
            }
            let x = b.u32(3);
            for op in [Opcode::MatchAny, Opcode::MatchAll] {
                let v = b.op(op, Imm::None, &[x], Type::U64);
                b.sink(v);
            }
            let e = b.op(Opcode::Elect, Imm::None, &[], Type::BOOL);
            b.sink(e);
            b.inst(Opcode::Nanosleep, Imm::None, &[x], &[]);
            run(&mut b.f, &PassOptions::with_width(width));
            let text = b.print();
            for op in ops.into_iter().chain([Opcode::MatchAny, Opcode::MatchAll, Opcode::Elect, Opcode::Nanosleep]) {
                assert_eq!(count(&b.f, op), 1, "{op} at width {width}: {text}");
            }
            assert_eq!(count(&b.f, Opcode::Const), 1, "{text}");
        }
    }
}
