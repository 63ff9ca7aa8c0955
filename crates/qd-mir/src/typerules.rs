//! The operand and result type rules of every MIR op, stated once.
//!
//! Both the verifier ([`crate::verify`]) and the Rust builder (`qd-frontend`) ask this module
//! whether an op, with its immediate and operand types, is well typed, so the two can never
//! disagree: a combination the verifier rejects is rejected by the builder at the user's call.
//!
//! [`operand_rule`] checks the immediate against the op's format (and its range: tiles, lane
//! counts, the group operator or atomic operation on the operand type, the `cmp` condition on
//! `bool`) and the operands, and answers with the [`ResultRule`] the result must satisfy;
//! [`ResultRule::check`] checks a given result type against it. [`check_op`] does both. Every
//! violation is a [`TypeError`] naming the op and saying what was expected and found
//! (`add: operand 2 has type f32, expected u32`).
//!
//! The rules dispatch on [`Opcode::class`] and its sub-kinds exhaustively (no wildcard arm), so a
//! new op or class does not build until its rule is written here. Rules that need more than one
//! instruction (region results and terminators, dominance, uniformity) are the verifier's.

use crate::eval::canon;
use crate::function::Function;
use crate::inst::{Imm, Tile};
use crate::ops::{
    AtomicOp, BinOp, CmpCond, Collective, ExchangeOp, Format, GroupOp, IndexOp, MemoryOp, OpClass, Opcode, PredOp,
    SyncOp, Terminator, UnOp,
};
use crate::types::{AddrSpace, ScalarType, Type};
use core::fmt;

/// What an operand or a result must be: one type or a set of types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Exactly this type.
    Exactly(Type),
    /// Any scalar.
    Scalar,
    /// An integer or float scalar.
    Numeric,
    /// An integer scalar.
    Int,
    /// A float scalar.
    Float,
    /// An integer scalar or `bool`.
    IntOrBool,
    /// A scalar other than `bool`.
    NonBoolScalar,
    /// A pointer.
    Pointer,
}

impl Expected {
    /// True if `t` is in the set.
    pub fn accepts(self, t: Type) -> bool {
        match self {
            Expected::Exactly(want) => t == want,
            Expected::Scalar => t.scalar().is_some(),
            Expected::Numeric => t.is_numeric(),
            Expected::Int => t.is_int(),
            Expected::Float => t.is_float(),
            Expected::IntOrBool => t.is_int() || t.is_bool(),
            Expected::NonBoolScalar => t.scalar().is_some_and(|s| s != ScalarType::Bool),
            Expected::Pointer => t.is_ptr(),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Exactly(t) => write!(f, "{t}"),
            Expected::Scalar => f.write_str("a scalar type"),
            Expected::Numeric => f.write_str("a numeric type"),
            Expected::Int => f.write_str("an integer type"),
            Expected::Float => f.write_str("a float type"),
            Expected::IntOrBool => f.write_str("an integer or bool type"),
            Expected::NonBoolScalar => f.write_str("a non-bool scalar type"),
            Expected::Pointer => f.write_str("a pointer"),
        }
    }
}

/// One way an op can be ill typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The immediate does not fit the op's format.
    Immediate {
        /// The immediate found.
        found: Imm,
    },
    /// The wrong number of operands.
    Arity {
        /// The op's operand count.
        expected: usize,
        /// The count found.
        found: usize,
    },
    /// Operand `index` (0-based) is not of the expected type.
    Operand {
        /// 0-based operand index (printed 1-based).
        index: usize,
        /// What it must be.
        expected: Expected,
        /// What it is.
        found: Type,
    },
    /// The result is not of the expected type.
    Result {
        /// What it must be.
        expected: Expected,
        /// What it is.
        found: Type,
    },
    /// A `bitcast` between types of different widths.
    Width {
        /// The operand type.
        from: Type,
        /// The result type.
        to: Type,
    },
    /// A `cmp` ordering condition on `bool`.
    BoolCondition(CmpCond),
    /// A reduction or scan operator not defined on the operand type.
    GroupOperator(GroupOp, ScalarType),
    /// A segmented reduction operator other than `add`, `min`, `max`.
    SegmentedOperator(GroupOp),
    /// An exclusive reduction (only scans may be exclusive).
    ExclusiveReduction,
    /// An `atomic.rmw` operation not defined on the element type.
    AtomicOperation(AtomicOp, ScalarType),
    /// An `atomic.cas` on a non-integer element type.
    CasElement(ScalarType),
    /// A tile wider than 2^6 lanes.
    TileTooLarge(u8),
    /// A tile wider than the kernel's fixed subgroup width.
    TileWiderThanSubgroup {
        /// log2 of the tile width.
        log2: u8,
        /// The kernel's subgroup width.
        width: u32,
    },
    /// A `ballot.first_n` lane count outside 1..=32.
    Count(u8),
    /// `const` bits that are not the canonical form of the result type.
    NonCanonical {
        /// The result type.
        ty: ScalarType,
        /// The bits found.
        bits: u64,
        /// Their canonical form.
        canonical: u64,
    },
    /// A `shared.addr` of a shared array the function does not have.
    NoSharedArray(crate::entities::SharedArr),
}

impl Violation {
    /// True for an immediate out of its range (tile sizes, lane counts) rather than a type error.
    pub fn is_range(&self) -> bool {
        matches!(self, Violation::TileTooLarge(_) | Violation::TileWiderThanSubgroup { .. } | Violation::Count(_))
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Immediate { found } => write!(f, "immediate {found:?} does not fit; expected "),
            Violation::Arity { expected, found } => write!(f, "expected {expected} operand(s), found {found}"),
            Violation::Operand { index, expected, found } => {
                write!(f, "operand {} has type {found}, expected {expected}", index + 1)
            }
            Violation::Result { expected, found } => write!(f, "result has type {found}, expected {expected}"),
            Violation::Width { from, to } => {
                write!(f, "result type {to} has {} bits, operand type {from} has {}", to.bits(), from.bits())
            }
            Violation::BoolCondition(c) => write!(f, "condition {} is not defined on bool (only eq, ne)", c.name()),
            Violation::GroupOperator(op, s) => write!(f, "operator {} is not defined on {s}", op.name()),
            Violation::SegmentedOperator(op) => write!(f, "operator {} is not supported (add, min, max)", op.name()),
            Violation::ExclusiveReduction => f.write_str("reductions are inclusive; found an exclusive one"),
            Violation::AtomicOperation(op, s) => write!(f, "operation {} is not defined on {s}", op.name()),
            Violation::CasElement(s) => write!(f, "element type {s} is not a 32/64-bit integer"),
            Violation::TileTooLarge(l) => write!(f, "tile log2 {l} exceeds 6"),
            Violation::TileWiderThanSubgroup { log2, width } => {
                write!(f, "tile(2^{log2}) is wider than the kernel's subgroup({width})")
            }
            Violation::Count(n) => write!(f, "count {n} is outside 1..=32"),
            Violation::NonCanonical { ty, bits, canonical } => {
                write!(f, "bits {bits:#x} are not canonical for {ty} (expected {canonical:#x})")
            }
            Violation::NoSharedArray(s) => write!(f, "shared array {s} does not exist"),
        }
    }
}

/// A type-rule violation of one op: `add: operand 2 has type f32, expected u32`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// The op.
    pub op: Opcode,
    /// What is wrong.
    pub violation: Violation,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.violation)?;
        if let Violation::Immediate { .. } = self.violation {
            f.write_str(imm_wanted(self.op.info().format))?;
        }
        Ok(())
    }
}

impl std::error::Error for TypeError {}

/// What an op's result must be, once its immediate and operands are known to be well typed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultRule {
    /// The op has no result (or its results are checked elsewhere: terminators).
    None,
    /// Exactly this type.
    Is(Type),
    /// `const`: the instruction names any scalar type, and the bits must be canonical for it.
    Const(u64),
    /// `cast`: the instruction names any scalar type.
    Cast,
    /// `bitcast`: the instruction names a non-bool scalar of the operand's width.
    Bitcast(Type),
    /// `if`/`loop`: the instruction names its result types; its regions' terminators must agree
    /// (a structural rule the verifier checks).
    Given,
}

impl ResultRule {
    /// The result type when the operands determine it.
    pub fn fixed(self) -> Option<Type> {
        match self {
            ResultRule::Is(t) => Some(t),
            ResultRule::None | ResultRule::Const(_) | ResultRule::Cast | ResultRule::Bitcast(_) | ResultRule::Given => {
                None
            }
        }
    }

    /// Checks the (first) result type `found` of an `op` instruction against the rule.
    pub fn check(self, op: Opcode, found: Type) -> Result<(), TypeError> {
        let err = |violation| Err(TypeError { op, violation });
        let want = |expected: Expected| {
            if expected.accepts(found) {
                Ok(())
            } else {
                err(Violation::Result { expected, found })
            }
        };
        match self {
            ResultRule::None | ResultRule::Given => Ok(()),
            ResultRule::Is(t) => want(Expected::Exactly(t)),
            ResultRule::Cast => want(Expected::Scalar),
            ResultRule::Const(bits) => {
                want(Expected::Scalar)?;
                let Some(ty) = found.scalar() else { return Ok(()) };
                let canonical = canon(ty, bits);
                if canonical != bits {
                    return err(Violation::NonCanonical { ty, bits, canonical });
                }
                Ok(())
            }
            ResultRule::Bitcast(from) => {
                want(Expected::NonBoolScalar)?;
                if from.bits() != found.bits() {
                    return err(Violation::Width { from, to: found });
                }
                Ok(())
            }
        }
    }
}

/// Checks `op` with immediate `imm` and operand types `args`, then its result type `result`
/// (the type the instruction names; `None` to have it inferred). Returns the result type: the
/// inferred or given one, `None` for ops without a result.
///
/// `func` supplies what the rules read from the kernel: its fixed subgroup width (tiles) and
/// its shared arrays (`shared.addr`).
pub fn check_op(
    func: &Function,
    op: Opcode,
    imm: Imm,
    args: &[Type],
    result: Option<Type>,
) -> Result<Option<Type>, TypeError> {
    let rule = operand_rule(func, op, imm, args)?;
    match result {
        Some(t) => rule.check(op, t).map(|()| Some(t)),
        None => Ok(rule.fixed()),
    }
}

/// True if a subgroup reduction/scan operator applies to a type.
pub fn group_op_legal(op: GroupOp, ty: ScalarType) -> bool {
    match op {
        GroupOp::And | GroupOp::Or | GroupOp::Xor => ty.is_int() || ty == ScalarType::Bool,
        GroupOp::Add | GroupOp::Mul => ty.is_numeric(),
        GroupOp::Min | GroupOp::Max => ty.is_numeric() || ty == ScalarType::Bool,
    }
}

/// True if a segmented reduction supports the operator.
pub fn segmented_op_legal(op: GroupOp) -> bool {
    match op {
        GroupOp::Add | GroupOp::Min | GroupOp::Max => true,
        GroupOp::Mul | GroupOp::And | GroupOp::Or | GroupOp::Xor => false,
    }
}

/// True if an `atomic.rmw` operation applies to an element type.
pub fn atomic_op_legal(op: AtomicOp, ty: ScalarType) -> bool {
    match op {
        AtomicOp::Add => ty.is_int() || ty == ScalarType::F32,
        AtomicOp::Min | AtomicOp::Max | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => ty.is_int(),
        AtomicOp::Exch => ty != ScalarType::Bool,
    }
}

/// True if `imm` is the kind of immediate `format` takes.
pub fn imm_fits(format: Format, imm: Imm) -> bool {
    matches!(
        (format, imm),
        (Format::Const, Imm::Const(_))
            | (Format::Dim, Imm::Dim(_))
            | (Format::Cmp, Imm::Cond(_))
            | (Format::SharedAddr, Imm::Shared(_))
            | (Format::Atomic, Imm::Atomic(..))
            | (Format::AtomicCas | Format::Fence, Imm::Scope(_))
            | (Format::Count, Imm::Count(_))
            | (Format::Tiled, Imm::Tile(_))
            | (Format::Group | Format::Scan, Imm::Group { .. })
            | (Format::SyncPred, Imm::Pred(_))
            | (
                Format::Nullary
                    | Format::Unary
                    | Format::Binary
                    | Format::Ternary
                    | Format::If
                    | Format::Loop
                    | Format::Terminator
                    | Format::Effect,
                Imm::None,
            )
    )
}

fn imm_wanted(format: Format) -> &'static str {
    match format {
        Format::Const => "a constant",
        Format::Dim => "a dimension",
        Format::Cmp => "a condition",
        Format::SharedAddr => "a shared array",
        Format::Atomic => "an atomic operation and scope",
        Format::AtomicCas | Format::Fence => "a scope",
        Format::Count => "a lane count",
        Format::Tiled => "a tile",
        Format::Group | Format::Scan => "a group operator",
        Format::SyncPred => "a predicate combiner",
        Format::Nullary
        | Format::Unary
        | Format::Binary
        | Format::Ternary
        | Format::If
        | Format::Loop
        | Format::Terminator
        | Format::Effect => "no immediate",
    }
}

/// The operands of one op being checked.
struct Ops<'a> {
    op: Opcode,
    args: &'a [Type],
}

impl Ops<'_> {
    fn err<T>(&self, violation: Violation) -> Result<T, TypeError> {
        Err(TypeError { op: self.op, violation })
    }

    /// The type of operand `k` (the count was checked, so it exists).
    fn ty(&self, k: usize) -> Type {
        self.args.get(k).copied().unwrap_or(Type::U32)
    }

    /// Operand `k` is in `expected`; returns its type.
    fn arg(&self, k: usize, expected: Expected) -> Result<Type, TypeError> {
        let found = self.ty(k);
        if expected.accepts(found) {
            Ok(found)
        } else {
            self.err(Violation::Operand { index: k, expected, found })
        }
    }

    /// Operand `k` is a scalar in `expected`.
    fn scalar(&self, k: usize, expected: Expected) -> Result<ScalarType, TypeError> {
        let t = self.arg(k, expected)?;
        match t.scalar() {
            Some(s) => Ok(s),
            None => self.err(Violation::Operand { index: k, expected: Expected::Scalar, found: t }),
        }
    }

    /// The first `n` operands have one type, in `expected`; it is the result type.
    fn same(&self, n: usize, expected: Expected) -> Result<ResultRule, TypeError> {
        let t = self.arg(0, expected)?;
        for k in 1..n {
            self.arg(k, Expected::Exactly(t))?;
        }
        Ok(ResultRule::Is(t))
    }

    /// Operand `k` is a pointer; returns its element type.
    fn pointee(&self, k: usize) -> Result<ScalarType, TypeError> {
        let t = self.arg(k, Expected::Pointer)?;
        match t.pointer() {
            Some((_, e)) => Ok(e),
            None => self.err(Violation::Operand { index: k, expected: Expected::Pointer, found: t }),
        }
    }

    fn tile(&self, func: &Function, tile: Tile) -> Result<(), TypeError> {
        match tile {
            Tile::Full => Ok(()),
            Tile::Log2(l) if l > 6 => self.err(Violation::TileTooLarge(l)),
            Tile::Log2(l) => match func.launch.subgroup_size {
                Some(width) if (1u32 << l) > width => self.err(Violation::TileWiderThanSubgroup { log2: l, width }),
                Some(_) | None => Ok(()),
            },
        }
    }

    fn imm_missing<T>(&self, imm: Imm) -> Result<T, TypeError> {
        self.err(Violation::Immediate { found: imm })
    }
}

/// Checks the immediate and the operands of `op`; returns what its result must be.
pub fn operand_rule(func: &Function, op: Opcode, imm: Imm, args: &[Type]) -> Result<ResultRule, TypeError> {
    let o = Ops { op, args };
    let info = op.info();
    if !imm_fits(info.format, imm) {
        return o.imm_missing(imm);
    }
    if let Some(n) = info.num_args {
        if args.len() != usize::from(n) {
            return o.err(Violation::Arity { expected: usize::from(n), found: args.len() });
        }
    }
    match op.class() {
        OpClass::Const => match imm {
            Imm::Const(bits) => Ok(ResultRule::Const(bits)),
            _ => o.imm_missing(imm),
        },
        OpClass::Binary(b) => o.same(
            2,
            match b {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Min | BinOp::Max => {
                    Expected::Numeric
                }
                BinOp::And | BinOp::Or | BinOp::Xor => Expected::IntOrBool,
                BinOp::Shl | BinOp::Shr => Expected::Int,
            },
        ),
        OpClass::Unary(u) => o.same(
            1,
            match u {
                UnOp::Neg | UnOp::Abs => Expected::Numeric,
                UnOp::Not => Expected::IntOrBool,
                UnOp::Sqrt => Expected::Float,
                UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => Expected::Int,
            },
        ),
        OpClass::Fma => o.same(3, Expected::Float),
        OpClass::Select => {
            o.arg(0, Expected::Exactly(Type::BOOL))?;
            let t = o.ty(1);
            o.arg(2, Expected::Exactly(t))?;
            Ok(ResultRule::Is(t))
        }
        OpClass::Cmp => {
            let s = o.scalar(0, Expected::Scalar)?;
            o.arg(1, Expected::Exactly(Type::Scalar(s)))?;
            match imm {
                Imm::Cond(c @ (CmpCond::Lt | CmpCond::Le | CmpCond::Gt | CmpCond::Ge)) if s == ScalarType::Bool => {
                    o.err(Violation::BoolCondition(c))
                }
                _ => Ok(ResultRule::Is(Type::BOOL)),
            }
        }
        OpClass::Cast => {
            o.arg(0, Expected::Scalar)?;
            Ok(ResultRule::Cast)
        }
        OpClass::Bitcast => Ok(ResultRule::Bitcast(o.arg(0, Expected::NonBoolScalar)?)),
        OpClass::Memory(m) => memory_rule(func, &o, m, imm),
        OpClass::Index(i) => Ok(ResultRule::Is(match i {
            IndexOp::ThreadId
            | IndexOp::BlockId
            | IndexOp::BlockDim
            | IndexOp::GridDim
            | IndexOp::LaneId
            | IndexOp::SubgroupId
            | IndexOp::SubgroupSize => Type::U32,
            IndexOp::LaneMask(_) => Type::U64,
        })),
        OpClass::Exchange(e) => match e {
            ExchangeOp::Shuffle(_) | ExchangeOp::Broadcast => {
                let t = o.arg(0, Expected::Scalar)?;
                o.arg(1, Expected::Exactly(Type::U32))?;
                Ok(ResultRule::Is(t))
            }
            ExchangeOp::Ballot => {
                o.arg(0, Expected::Exactly(Type::BOOL))?;
                Ok(ResultRule::Is(Type::U64))
            }
            ExchangeOp::BallotFirstN => {
                match imm {
                    Imm::Count(n) if !(1..=32).contains(&n) => return o.err(Violation::Count(n)),
                    _ => {}
                }
                o.arg(0, Expected::Exactly(Type::BOOL))?;
                Ok(ResultRule::Is(Type::U32))
            }
            // Every scalar type (bool, i32/u32, i64/u64, f32/f64) compares by its bits.
            ExchangeOp::MatchAny | ExchangeOp::MatchAll => {
                o.arg(0, Expected::Scalar)?;
                Ok(ResultRule::Is(Type::U64))
            }
            ExchangeOp::ActiveMask => Ok(ResultRule::Is(Type::U64)),
            ExchangeOp::Elect => Ok(ResultRule::Is(Type::BOOL)),
        },
        OpClass::Collective(c) => collective_rule(func, &o, c, imm),
        OpClass::Sync(s) => match s {
            SyncOp::SubgroupSync | SyncOp::BlockSync | SyncOp::Fence => Ok(ResultRule::None),
            SyncOp::BlockSyncPred => {
                o.arg(0, Expected::Exactly(Type::BOOL))?;
                match imm {
                    Imm::Pred(PredOp::And | PredOp::Or) => Ok(ResultRule::Is(Type::BOOL)),
                    Imm::Pred(PredOp::Count) => Ok(ResultRule::Is(Type::U32)),
                    _ => o.imm_missing(imm),
                }
            }
            SyncOp::Nanosleep => {
                o.arg(0, Expected::Exactly(Type::U32))?;
                Ok(ResultRule::None)
            }
        },
        OpClass::If => {
            o.arg(0, Expected::Exactly(Type::BOOL))?;
            Ok(ResultRule::Given)
        }
        OpClass::Loop => Ok(ResultRule::Given),
        // Their operands must match the enclosing `if`/`loop`: a region rule of the verifier's.
        OpClass::Terminator(t) => match t {
            Terminator::Yield | Terminator::Break | Terminator::Continue | Terminator::Return => Ok(ResultRule::None),
        },
    }
}

fn memory_rule(func: &Function, o: &Ops<'_>, m: MemoryOp, imm: Imm) -> Result<ResultRule, TypeError> {
    match m {
        MemoryOp::SharedAddr => match imm {
            Imm::Shared(s) => match func.shared.get(s) {
                Some(d) => Ok(ResultRule::Is(Type::Ptr(AddrSpace::Shared, d.elem))),
                None => o.err(Violation::NoSharedArray(s)),
            },
            _ => o.imm_missing(imm),
        },
        MemoryOp::PtrOffset => {
            let p = o.arg(0, Expected::Pointer)?;
            o.arg(1, Expected::Int)?;
            Ok(ResultRule::Is(p))
        }
        MemoryOp::Load => Ok(ResultRule::Is(Type::Scalar(o.pointee(0)?))),
        MemoryOp::Store => {
            let e = o.pointee(0)?;
            o.arg(1, Expected::Exactly(Type::Scalar(e)))?;
            Ok(ResultRule::None)
        }
        MemoryOp::AtomicRmw => {
            let e = o.pointee(0)?;
            o.arg(1, Expected::Exactly(Type::Scalar(e)))?;
            match imm {
                Imm::Atomic(a, _) if !atomic_op_legal(a, e) => o.err(Violation::AtomicOperation(a, e)),
                _ => Ok(ResultRule::Is(Type::Scalar(e))),
            }
        }
        MemoryOp::AtomicCas => {
            let e = o.pointee(0)?;
            if !e.is_int() {
                return o.err(Violation::CasElement(e));
            }
            o.arg(1, Expected::Exactly(Type::Scalar(e)))?;
            o.arg(2, Expected::Exactly(Type::Scalar(e)))?;
            Ok(ResultRule::Is(Type::Scalar(e)))
        }
    }
}

fn collective_rule(func: &Function, o: &Ops<'_>, c: Collective, imm: Imm) -> Result<ResultRule, TypeError> {
    match c {
        Collective::VoteAll | Collective::VoteAny | Collective::VoteEq => {
            let Imm::Tile(tile) = imm else { return o.imm_missing(imm) };
            o.tile(func, tile)?;
            let want = match c {
                Collective::VoteEq => Expected::Scalar,
                Collective::VoteAll
                | Collective::VoteAny
                | Collective::Reduce
                | Collective::Scan
                | Collective::SegReduce => Expected::Exactly(Type::BOOL),
            };
            o.arg(0, want)?;
            Ok(ResultRule::Is(Type::BOOL))
        }
        Collective::Reduce | Collective::Scan | Collective::SegReduce => {
            let Imm::Group { op, tile, inclusive } = imm else { return o.imm_missing(imm) };
            o.tile(func, tile)?;
            let scan = match c {
                Collective::Scan => true,
                Collective::Reduce
                | Collective::SegReduce
                | Collective::VoteAll
                | Collective::VoteAny
                | Collective::VoteEq => false,
            };
            if !inclusive && !scan {
                return o.err(Violation::ExclusiveReduction);
            }
            let segmented = c == Collective::SegReduce;
            if segmented && !segmented_op_legal(op) {
                return o.err(Violation::SegmentedOperator(op));
            }
            let s = o.scalar(0, Expected::Scalar)?;
            if !group_op_legal(op, s) {
                return o.err(Violation::GroupOperator(op, s));
            }
            if segmented {
                o.arg(1, Expected::IntOrBool)?;
            }
            Ok(ResultRule::Is(Type::Scalar(s)))
        }
    }
}
