//! Instruction data: an opcode, its immediate, its operand list and up to two regions.
//!
//! One struct for every format keeps passes and the interpreter simple; the [`Format`](crate::Format)
//! of the opcode says which fields are meaningful, and the verifier checks that they match.

use crate::entities::{Region, SharedArr, Value};
use crate::ops::{AtomicOp, CmpCond, Dim, GroupOp, Opcode, PredOp, Scope};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::EntityList;

/// A list of values in the function's list pool.
pub type ValueList = EntityList<Value>;

/// The tile of a tiled subgroup op: `2^log2` consecutive, aligned lanes, or the whole subgroup.
///
/// The whole subgroup is its own variant because the subgroup width is a target constant: the
/// MIR never bakes 32 or 64 in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    /// The whole subgroup.
    Full,
    /// `2^log2` lanes (0 ≤ log2 ≤ 6).
    Log2(u8),
}

impl Tile {
    /// The tile width for a subgroup of `width` lanes (clamped to the subgroup).
    pub fn lanes(self, width: u32) -> u32 {
        match self {
            Tile::Full => width,
            Tile::Log2(l) => (1u32 << l).min(width),
        }
    }
}

/// The immediate operand of an instruction; which variant is valid is fixed by the format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Imm {
    /// No immediate.
    None,
    /// A constant's raw bits (zero-extended to 64 bits; floats as their IEEE bits, bool 0/1).
    Const(u64),
    /// A comparison condition.
    Cond(CmpCond),
    /// A launch dimension.
    Dim(Dim),
    /// A shared array.
    Shared(SharedArr),
    /// An atomic read-modify-write operation and its scope.
    Atomic(AtomicOp, Scope),
    /// A scope (fences, compare-exchange).
    Scope(Scope),
    /// A lane count (`ballot.first_n`).
    Count(u8),
    /// A tile (votes).
    Tile(Tile),
    /// A reduction/scan: operator, tile and (for scans) inclusive.
    Group {
        /// The combining operator.
        op: GroupOp,
        /// The tile the op works within.
        tile: Tile,
        /// Inclusive (true) or exclusive (false); always true for reductions.
        inclusive: bool,
    },
    /// The combiner of `block.sync_pred`.
    Pred(PredOp),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstData {
    /// The opcode.
    pub opcode: Opcode,
    /// The immediate (by format).
    pub imm: Imm,
    /// The operands (in the function's value-list pool).
    pub args: ValueList,
    /// `if`: then and else; `loop`: the body; otherwise none.
    pub regions: [PackedOption<Region>; 2],
}

impl InstData {
    /// An instruction with no regions.
    pub fn new(opcode: Opcode, imm: Imm, args: ValueList) -> InstData {
        InstData { opcode, imm, args, regions: [None.into(), None.into()] }
    }
}
