//! Entity references: `u32` newtypes into the `PrimaryMap`s of a [`Function`](crate::Function).
//!
//! `Display` prints the raw text syntax (`%7`, `inst7`, `region3`, `@shared2`); the printer renumbers
//! values densely in definition order so that printed MIR never depends on allocation history.

use cranelift_entity::entity_impl;

/// An SSA value: an instruction result, a region parameter or a kernel parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "%");

/// An instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A region: one straight-line block of instructions with parameters, owned by an `if`/`loop`
/// instruction or by the function (its body).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "region");

/// A fixed-size shared (block-local) array declared by a kernel.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedArr(u32);
entity_impl!(SharedArr, "shared");

/// A kernel parameter (buffer or scalar), by position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Param(u32);
entity_impl!(Param, "param");

/// Any entity a diagnostic can point at (the verifier and annotated printing use it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AnyEntity {
    /// The function as a whole (its header line).
    Function,
    /// A kernel parameter, by position.
    Param(u16),
    /// A shared array declaration.
    Shared(SharedArr),
    /// An instruction.
    Inst(Inst),
    /// A region (its opening line).
    Region(Region),
    /// A value (its definition).
    Value(Value),
}
