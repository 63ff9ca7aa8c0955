//! [`Op`]: the binary operator of the generic collectives (`block::reduce`, `block::inclusive_scan`,
//! `subgroup::reduce_tiled_with`, …) — one of MIR's group operators, which the back ends lower
//! with their best sequence, or a user closure, which the library applies in a shuffle tree.

use crate::common::{err, Loc};
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, Val};
use qd_mir::GroupOp;

/// The signature of a user operator: combines two values of the same type.
pub type CustomOp<'f> = &'f dyn Fn(&mut KernelBuilder<'_>, Val, Val) -> Result<Val, BuildError>;

/// A binary operator for the generic collectives (Quadrants' template `op` argument).
///
/// A builtin operator (`Op::from(GroupOp::Add)`, `Op::ADD`, …) lets each back end choose its own
/// sequence (a MIR `subgroup.reduce`/`subgroup.scan`); a custom one must return its operands' type
/// (else the library function is a [`BuildError`] naming it) and be associative (scans
/// apply it as `op(predecessor, own)`, never reordering operands); it is applied in shuffle trees
/// (reductions: MIR's butterfly; scans: Quadrants' Hillis–Steele tree).
#[derive(Clone, Copy)]
pub enum Op<'f> {
    /// One of MIR's group operators.
    Builtin(GroupOp),
    /// A user operator.
    Custom(CustomOp<'f>),
}

impl<'f> Op<'f> {
    /// `add`.
    pub const ADD: Op<'static> = Op::Builtin(GroupOp::Add);
    /// `mul`.
    pub const MUL: Op<'static> = Op::Builtin(GroupOp::Mul);
    /// `min` (floats: minNum, `-0 < +0`).
    pub const MIN: Op<'static> = Op::Builtin(GroupOp::Min);
    /// `max` (floats: maxNum, `-0 < +0`).
    pub const MAX: Op<'static> = Op::Builtin(GroupOp::Max);
    /// `and` (integers).
    pub const AND: Op<'static> = Op::Builtin(GroupOp::And);
    /// `or` (integers).
    pub const OR: Op<'static> = Op::Builtin(GroupOp::Or);
    /// `xor` (integers).
    pub const XOR: Op<'static> = Op::Builtin(GroupOp::Xor);

    /// A user operator.
    pub fn custom(f: CustomOp<'f>) -> Op<'f> {
        Op::Custom(f)
    }

    /// The MIR group operator, for a builtin.
    pub fn group(&self) -> Option<GroupOp> {
        match self {
            Op::Builtin(g) => Some(*g),
            Op::Custom(_) => None,
        }
    }

    /// `add`, …, or `custom` (for messages).
    pub fn name(&self) -> &'static str {
        match self {
            Op::Builtin(g) => g.name(),
            Op::Custom(_) => "custom",
        }
    }

    /// `x op y`: the MIR binary op of a builtin (min/max with MIR's float rules, bool min/max as
    /// and/or), or the user closure.
    pub fn apply(&self, b: &mut KernelBuilder<'_>, x: Val, y: Val) -> Result<Val, BuildError> {
        match self {
            Op::Builtin(g) => match g {
                GroupOp::Add => b.add(x, y),
                GroupOp::Mul => b.mul(x, y),
                GroupOp::Min => b.min(x, y),
                GroupOp::Max => b.max(x, y),
                GroupOp::And => b.and(x, y),
                GroupOp::Or => b.or(x, y),
                GroupOp::Xor => b.xor(x, y),
            },
            Op::Custom(f) => f(b, x, y),
        }
    }

    /// [`Op::apply`] inside the library function `name`: a custom operator whose result is not of
    /// its operands' type is an error at `loc` naming the function (rather than a value of another
    /// type, or a type error from some instruction the library emits after it).
    pub(crate) fn combine(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        name: &str,
        x: Val,
        y: Val,
    ) -> Result<Val, BuildError> {
        let r = self.apply(b, x, y)?;
        if r.ty() != x.ty() {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!(
                    "{name}: the custom operator returned {} for {} operands (it must return its operands' type)",
                    r.ty(),
                    x.ty()
                ),
            ));
        }
        Ok(r)
    }
}

impl From<GroupOp> for Op<'static> {
    fn from(g: GroupOp) -> Self {
        Op::Builtin(g)
    }
}

impl std::fmt::Debug for Op<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op({})", self.name())
    }
}
