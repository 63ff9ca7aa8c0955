//! Per-instruction checks: operand and result arity, the immediate against the op's format, and
//! the operand/result types of every op (one exhaustive `match` over [`Opcode`]).
//!
//! Messages name the op and the 1-based operand: `add: operand 2 has type f32, expected u32`.

use super::Ctx;
use crate::entities::{AnyEntity, Inst, Value};
use crate::eval::canon;
use crate::inst::{Imm, Tile};
use crate::ops::{AtomicOp, CmpCond, Format, GroupOp, Opcode, PredOp};
use crate::types::{AddrSpace, ScalarType, Type};

fn imm_fits(format: Format, imm: Imm) -> bool {
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

/// True if a subgroup reduction/scan operator applies to a type.
pub(crate) fn group_op_legal(op: GroupOp, ty: ScalarType) -> bool {
    match op {
        GroupOp::And | GroupOp::Or | GroupOp::Xor => ty.is_int() || ty == ScalarType::Bool,
        GroupOp::Add | GroupOp::Mul => ty.is_numeric(),
        GroupOp::Min | GroupOp::Max => ty.is_numeric() || ty == ScalarType::Bool,
    }
}

/// True if an `atomic.rmw` operation applies to an element type.
pub(super) fn atomic_op_legal(op: AtomicOp, ty: ScalarType) -> bool {
    match op {
        AtomicOp::Add => ty.is_int() || ty == ScalarType::F32,
        AtomicOp::Min | AtomicOp::Max | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => ty.is_int(),
        AtomicOp::Exch => ty != ScalarType::Bool,
    }
}

struct Ck<'c, 'a> {
    cx: &'c mut Ctx<'a>,
    inst: Inst,
    op: Opcode,
    /// The operands and results; every one exists (checked before a `Ck` is made).
    args: &'a [Value],
    results: &'a [Value],
}

impl Ck<'_, '_> {
    /// The type of operand `k`.
    fn a(&self, k: usize) -> Type {
        self.cx.func.values.get(self.args[k]).map_or(Type::U32, |d| d.ty)
    }

    /// The type of the first result.
    fn r0(&self) -> Type {
        self.cx.func.values.get(self.results[0]).map_or(Type::U32, |d| d.ty)
    }

    fn err(&mut self, msg: String) {
        let m = format!("{}: {msg}", self.op);
        self.cx.err(AnyEntity::Inst(self.inst), m);
    }

    /// Operand `k` has exactly type `want`.
    fn arg(&mut self, k: usize, want: Type) -> bool {
        let t = self.a(k);
        if t != want {
            self.err(format!("operand {} has type {t}, expected {want}", k + 1));
            return false;
        }
        true
    }

    /// Operand `k` satisfies `ok`; returns its scalar type if it does and is scalar.
    fn arg_kind(&mut self, k: usize, ok: fn(Type) -> bool, what: &str) -> Option<Type> {
        let t = self.a(k);
        if !ok(t) {
            self.err(format!("operand {} has type {t}, expected {what}", k + 1));
            return None;
        }
        Some(t)
    }

    fn result(&mut self, want: Type) {
        let t = self.r0();
        if t != want {
            self.err(format!("result has type {t}, expected {want}"));
        }
    }

    fn result_kind(&mut self, ok: fn(Type) -> bool, what: &str) -> bool {
        let t = self.r0();
        if !ok(t) {
            self.err(format!("result has type {t}, expected {what}"));
            return false;
        }
        true
    }

    /// Operands all of the first operand's kind and type; the result has that type.
    fn same(&mut self, n: usize, ok: fn(Type) -> bool, what: &str) {
        let Some(t) = self.arg_kind(0, ok, what) else { return };
        for k in 1..n {
            self.arg(k, t);
        }
        self.result(t);
    }

    /// Operand `k` is a pointer; returns its element type.
    fn ptr(&mut self, k: usize) -> Option<(AddrSpace, ScalarType)> {
        let t = self.a(k);
        let p = t.pointer();
        if p.is_none() {
            self.err(format!("operand {} has type {t}, expected a pointer", k + 1));
        }
        p
    }

    /// Shuffles and broadcast: a scalar value, a u32 lane/delta/mask; result = value type.
    fn shuffle(&mut self) {
        if let Some(t) = self.arg_kind(0, is_scalar, "a scalar type") {
            self.result(t);
        }
        self.arg(1, Type::U32);
    }

    fn tile(&mut self, t: Tile) {
        if let Tile::Log2(l) = t {
            if l > 6 {
                self.err(format!("tile log2 {l} exceeds 6"));
            } else if let Some(w) = self.cx.func.launch.subgroup_size {
                if (1u32 << l) > w {
                    self.err(format!("tile(2^{l}) is wider than the kernel's subgroup({w})"));
                }
            }
        }
    }

    fn group(&mut self, imm: Imm, segmented: bool) {
        let Imm::Group { op, tile, inclusive } = imm else { return };
        self.tile(tile);
        if !inclusive && self.op != Opcode::SubgroupScan {
            self.err("reductions are inclusive; found an exclusive one".into());
        }
        if segmented && !matches!(op, GroupOp::Add | GroupOp::Min | GroupOp::Max) {
            self.err(format!("operator {} is not supported (add, min, max)", op.name()));
        }
        let Some(t) = self.arg_kind(0, is_scalar, "a scalar type") else { return };
        self.result(t);
        if let Some(s) = t.scalar() {
            if !group_op_legal(op, s) {
                self.err(format!("operator {} is not defined on {s}", op.name()));
            }
        }
        if segmented {
            self.arg_kind(1, |t| t.is_int() || t.is_bool(), "an integer or bool head flag");
        }
    }
}

fn is_scalar(t: Type) -> bool {
    t.scalar().is_some()
}
fn is_numeric(t: Type) -> bool {
    t.is_numeric()
}
fn is_int(t: Type) -> bool {
    t.is_int()
}
fn is_float(t: Type) -> bool {
    t.is_float()
}
fn is_int_or_bool(t: Type) -> bool {
    t.is_int() || t.is_bool()
}
fn is_bitcastable(t: Type) -> bool {
    t.scalar().is_some_and(|s| s != ScalarType::Bool)
}

/// Arity, immediate and types of one placed instruction.
pub(super) fn check_inst(cx: &mut Ctx<'_>, inst: Inst) {
    let func = cx.func;
    let Some(data) = func.insts.get(inst) else { return };
    let op = data.opcode;
    let info = op.info();
    let loc = AnyEntity::Inst(inst);
    let (Some(args), Some(results)) = (cx.args(inst), cx.results(inst)) else { return };
    let mut ok = true;
    if let Some(n) = info.num_args {
        if args.len() != usize::from(n) {
            cx.err(loc, format!("{op}: expected {n} operand(s), found {}", args.len()));
            ok = false;
        }
    }
    if let Some(n) = info.num_results {
        if results.len() != usize::from(n) {
            cx.err(loc, format!("{op}: expected {n} result(s), found {}", results.len()));
            ok = false;
        }
    }
    if !imm_fits(info.format, data.imm) {
        cx.err(loc, format!("{op}: immediate {:?} does not fit; expected {}", data.imm, imm_wanted(info.format)));
        ok = false;
    }
    let exists = |vs: &[Value]| vs.iter().all(|&v| func.values.get(v).is_some());
    if !ok || !exists(args) || !exists(results) {
        return;
    }
    let imm = data.imm;
    let mut ck = Ck { cx, inst, op, args, results };
    match op {
        Opcode::Const => {
            if ck.result_kind(is_scalar, "a scalar type") {
                if let (Some(s), Imm::Const(bits)) = (ck.r0().scalar(), imm) {
                    let c = canon(s, bits);
                    if c != bits {
                        ck.err(format!("bits {bits:#x} are not canonical for {s} (expected {c:#x})"));
                    }
                }
            }
        }
        Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Div | Opcode::Rem | Opcode::Min | Opcode::Max => {
            ck.same(2, is_numeric, "a numeric type");
        }
        Opcode::And | Opcode::Or | Opcode::Xor => ck.same(2, is_int_or_bool, "an integer or bool type"),
        Opcode::Shl | Opcode::Shr => ck.same(2, is_int, "an integer type"),
        Opcode::Neg | Opcode::Abs => ck.same(1, is_numeric, "a numeric type"),
        Opcode::Not => ck.same(1, is_int_or_bool, "an integer or bool type"),
        Opcode::Sqrt => ck.same(1, is_float, "a float type"),
        Opcode::Clz | Opcode::Popcount | Opcode::Bitrev => ck.same(1, is_int, "an integer type"),
        Opcode::Fma => ck.same(3, is_float, "a float type"),
        Opcode::Select => {
            ck.arg(0, Type::BOOL);
            let t = ck.a(1);
            ck.arg(2, t);
            ck.result(t);
        }
        Opcode::Cmp => {
            ck.result(Type::BOOL);
            if let Some(t) = ck.arg_kind(0, is_scalar, "a scalar type") {
                ck.arg(1, t);
                if let Imm::Cond(c) = imm {
                    if t.is_bool() && !matches!(c, CmpCond::Eq | CmpCond::Ne) {
                        ck.err(format!("condition {} is not defined on bool (only eq, ne)", c.name()));
                    }
                }
            }
        }
        Opcode::Cast => {
            ck.arg_kind(0, is_scalar, "a scalar type");
            ck.result_kind(is_scalar, "a scalar type");
        }
        Opcode::Bitcast => {
            let a = ck.arg_kind(0, is_bitcastable, "a non-bool scalar type");
            let r = ck.result_kind(is_bitcastable, "a non-bool scalar type");
            if let (Some(a), true) = (a, r) {
                let rt = ck.r0();
                if a.bits() != rt.bits() {
                    ck.err(format!("result type {rt} has {} bits, operand type {a} has {}", rt.bits(), a.bits()));
                }
            }
        }
        Opcode::SharedAddr => {
            if let Imm::Shared(s) = imm {
                match ck.cx.func.shared.get(s) {
                    None => ck.err(format!("shared array {s} does not exist")),
                    Some(d) => ck.result(Type::Ptr(AddrSpace::Shared, d.elem)),
                }
            }
        }
        Opcode::PtrOffset => {
            if ck.ptr(0).is_some() {
                let t = ck.a(0);
                ck.result(t);
            }
            ck.arg_kind(1, is_int, "an integer type");
        }
        Opcode::Load => {
            if let Some((_, e)) = ck.ptr(0) {
                ck.result(Type::Scalar(e));
            }
        }
        Opcode::Store => {
            if let Some((_, e)) = ck.ptr(0) {
                ck.arg(1, Type::Scalar(e));
            }
        }
        Opcode::AtomicRmw => {
            if let Some((_, e)) = ck.ptr(0) {
                ck.arg(1, Type::Scalar(e));
                ck.result(Type::Scalar(e));
                if let Imm::Atomic(aop, _) = imm {
                    if !atomic_op_legal(aop, e) {
                        ck.err(format!("operation {} is not defined on {e}", aop.name()));
                    }
                }
            }
        }
        Opcode::AtomicCas => {
            if let Some((_, e)) = ck.ptr(0) {
                ck.arg(1, Type::Scalar(e));
                ck.arg(2, Type::Scalar(e));
                ck.result(Type::Scalar(e));
                if !e.is_int() {
                    ck.err(format!("element type {e} is not a 32/64-bit integer"));
                }
            }
        }
        Opcode::ThreadId
        | Opcode::BlockId
        | Opcode::BlockDim
        | Opcode::GridDim
        | Opcode::LaneId
        | Opcode::SubgroupId
        | Opcode::SubgroupSize => ck.result(Type::U32),
        Opcode::LaneMaskLt
        | Opcode::LaneMaskLe
        | Opcode::LaneMaskEq
        | Opcode::LaneMaskGe
        | Opcode::LaneMaskGt
        | Opcode::ActiveMask => ck.result(Type::U64),
        Opcode::Elect => ck.result(Type::BOOL),
        Opcode::MatchAny | Opcode::MatchAll => {
            // Every scalar type (bool, i32/u32, i64/u64, f32/f64) compares by its bits.
            ck.arg_kind(0, is_scalar, "a scalar type");
            ck.result(Type::U64);
        }
        Opcode::Nanosleep => {
            ck.arg(0, Type::U32);
        }
        Opcode::ShuffleIdx | Opcode::ShuffleUp | Opcode::ShuffleDown | Opcode::ShuffleXor | Opcode::Broadcast => {
            ck.shuffle();
        }
        Opcode::Ballot => {
            ck.arg(0, Type::BOOL);
            ck.result(Type::U64);
        }
        Opcode::BallotFirstN => {
            ck.arg(0, Type::BOOL);
            ck.result(Type::U32);
            if let Imm::Count(n) = imm {
                if !(1..=32).contains(&n) {
                    ck.err(format!("count {n} is outside 1..=32"));
                }
            }
        }
        Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteEq => {
            if let Imm::Tile(t) = imm {
                ck.tile(t);
            }
            if op == Opcode::VoteEq {
                ck.arg_kind(0, is_scalar, "a scalar type");
            } else {
                ck.arg(0, Type::BOOL);
            }
            ck.result(Type::BOOL);
        }
        Opcode::SubgroupReduce | Opcode::SubgroupScan => ck.group(imm, false),
        Opcode::SegmentedReduce => ck.group(imm, true),
        Opcode::BlockSyncPred => {
            ck.arg(0, Type::BOOL);
            if let Imm::Pred(p) = imm {
                ck.result(match p {
                    PredOp::And | PredOp::Or => Type::BOOL,
                    PredOp::Count => Type::U32,
                });
            }
        }
        Opcode::If => {
            ck.arg(0, Type::BOOL);
        }
        // Arity and immediate are all there is; the region-related rules live in `structure`.
        Opcode::SubgroupSync
        | Opcode::BlockSync
        | Opcode::Fence
        | Opcode::Loop
        | Opcode::Yield
        | Opcode::Break
        | Opcode::Continue
        | Opcode::Return => {}
    }
}
