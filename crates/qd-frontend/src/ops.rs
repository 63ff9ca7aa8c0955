//! Typed op methods: one (or more) [`KernelBuilder`] method per opcode of the op table, each
//! checking its operands eagerly.
//!
//! Type rules (what the builder accepts; the MIR verifier checks the same at integration):
//! - `add sub mul div rem min max`: two equal numeric scalars; `and or xor`: integers or bool;
//!   `shl shr`: integers, the amount of the same type; `neg abs`: numeric; `not`: integer or bool;
//!   `sqrt`: float; `clz popcount bitrev`: integer; `fma`: three equal floats;
//!   `select`: a bool and two equal types; `cmp`: equal scalars (`lt le gt ge` numeric only) → bool;
//!   `cast`: scalar → scalar; `bitcast`: non-bool scalars of the same width.
//! - memory: `ptr.offset` takes any integer index; `load`/`store` the pointee type; atomics:
//!   `add` on integers and f32, `min max and or xor` on integers, `exch` on any non-bool scalar,
//!   `cas` on integers.
//! - SIMT: shuffles and `broadcast` move any scalar with a `u32` lane/delta/mask; `ballot` → u64,
//!   `ballot.first_n N` (1 ≤ N ≤ 32) → u32; votes → bool; reductions/scans on numbers or bool
//!   (`and or xor` not on floats); `segreduce` heads are integers or bool; tiles are `2^0…2^6`.
//! - CUDA warp builtins: `match_any`/`match_all` (`__match_any_sync`/`__match_all_sync`) take any
//!   scalar (bool, i32/u32, i64/u64, f32/f64, compared by bits) → u64; `active_mask`
//!   (`__activemask`) and `lane_mask_lt/le/eq/ge/gt` (`%lanemask_*`) → u64; `elect`
//!   (`elect.sync`) → bool; `nanosleep` (`__nanosleep`) takes a u32 and has no result.

use crate::builder::{KernelBuilder, Mem, SharedBuf, Val};
use crate::error::{BuildError, ErrorKind, Loc};
use qd_mir::eval::{bits_f32, bits_f64, canon};
use qd_mir::{AddrSpace, AtomicOp, CmpCond, Dim, GroupOp, Imm, Opcode, PredOp, ScalarType, Scope, Tile, Type};
use std::panic::Location;

fn mismatch(loc: Loc, msg: String) -> BuildError {
    BuildError::new(loc, ErrorKind::TypeMismatch, msg)
}

/// The operand classes the type rules use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    Numeric,
    IntOrBool,
    Int,
    Float,
    AnyScalar,
}

impl Class {
    fn accepts(self, s: ScalarType) -> bool {
        match self {
            Class::Numeric => s.is_numeric(),
            Class::IntOrBool => s.is_int() || s == ScalarType::Bool,
            Class::Int => s.is_int(),
            Class::Float => s.is_float(),
            Class::AnyScalar => true,
        }
    }
    fn describe(self) -> &'static str {
        match self {
            Class::Numeric => "a numeric (integer or float)",
            Class::IntOrBool => "an integer or bool",
            Class::Int => "an integer",
            Class::Float => "a float",
            Class::AnyScalar => "a scalar",
        }
    }
}

/// Which opcodes the binary and unary helpers take.
fn binary_class(op: Opcode) -> Class {
    match op {
        Opcode::And | Opcode::Or | Opcode::Xor => Class::IntOrBool,
        Opcode::Shl | Opcode::Shr => Class::Int,
        _ => Class::Numeric,
    }
}

fn unary_class(op: Opcode) -> Class {
    match op {
        Opcode::Not => Class::IntOrBool,
        Opcode::Sqrt => Class::Float,
        Opcode::Clz | Opcode::Popcount | Opcode::Bitrev => Class::Int,
        _ => Class::Numeric,
    }
}

fn check_tile(loc: Loc, op: &str, tile: Tile) -> Result<(), BuildError> {
    match tile {
        Tile::Log2(l) if l > 6 => Err(BuildError::new(
            loc,
            ErrorKind::OutOfRange,
            format!("{op}: tile(2^{l}) is larger than the largest subgroup (tile log2 must be 0..=6)"),
        )),
        _ => Ok(()),
    }
}

impl KernelBuilder<'_> {
    // ---- operand checking ---------------------------------------------------------------------

    /// Checks `v` and that it is a scalar of `class`; returns the scalar type.
    fn operand(&self, loc: Loc, op: &str, v: Val, class: Class) -> Result<ScalarType, BuildError> {
        self.check_val(loc, op, v)?;
        match v.ty.scalar() {
            Some(s) if class.accepts(s) => Ok(s),
            _ => Err(mismatch(loc, format!("{op}: expected {} operand, got {}", class.describe(), v.ty))),
        }
    }

    /// Checks two operands of the same scalar type of `class`.
    fn same_pair(&self, loc: Loc, op: &str, a: Val, b: Val, class: Class) -> Result<ScalarType, BuildError> {
        self.check_val(loc, op, a)?;
        self.check_val(loc, op, b)?;
        if a.ty != b.ty {
            return Err(mismatch(loc, format!("{op}: operand types differ: {} and {}", a.ty, b.ty)));
        }
        self.operand(loc, op, a, class)
    }

    /// Checks a pointer operand; returns (address space, element type).
    fn pointer(&self, loc: Loc, op: &str, p: Val) -> Result<(AddrSpace, ScalarType), BuildError> {
        self.check_val(loc, op, p)?;
        p.ty.pointer().ok_or_else(|| mismatch(loc, format!("{op}: expected a pointer operand, got {}", p.ty)))
    }

    fn require_ty(&self, loc: Loc, op: &str, what: &str, v: Val, ty: Type) -> Result<(), BuildError> {
        self.check_val(loc, op, v)?;
        if v.ty != ty {
            return Err(mismatch(loc, format!("{op}: {what} must be {ty}, got {}", v.ty)));
        }
        Ok(())
    }

    // ---- constants ----------------------------------------------------------------------------

    /// `const` with raw bits (canonicalised for `ty`).
    pub(crate) fn const_bits(&mut self, loc: Loc, ty: ScalarType, bits: u64) -> Result<Val, BuildError> {
        self.emit_val(loc, Opcode::Const, Imm::Const(canon(ty, bits)), &[], Type::Scalar(ty))
    }

    /// A constant of any scalar type from its raw bits (see `qd_mir::eval`).
    #[track_caller]
    pub fn const_scalar(&mut self, ty: ScalarType, bits: u64) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ty, bits)
    }
    /// A `u32` constant.
    #[track_caller]
    pub fn const_u32(&mut self, x: u32) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::U32, u64::from(x))
    }
    /// An `i32` constant.
    #[track_caller]
    pub fn const_i32(&mut self, x: i32) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::I32, u64::from(x as u32))
    }
    /// A `u64` constant.
    #[track_caller]
    pub fn const_u64(&mut self, x: u64) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::U64, x)
    }
    /// An `i64` constant.
    #[track_caller]
    pub fn const_i64(&mut self, x: i64) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::I64, x as u64)
    }
    /// An `f32` constant.
    #[track_caller]
    pub fn const_f32(&mut self, x: f32) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::F32, bits_f32(x))
    }
    /// An `f64` constant.
    #[track_caller]
    pub fn const_f64(&mut self, x: f64) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::F64, bits_f64(x))
    }
    /// A `bool` constant.
    #[track_caller]
    pub fn const_bool(&mut self, x: bool) -> Result<Val, BuildError> {
        self.const_bits(Location::caller(), ScalarType::Bool, u64::from(x))
    }

    // ---- arithmetic ---------------------------------------------------------------------------

    fn binary(&mut self, loc: Loc, op: Opcode, a: Val, b: Val) -> Result<Val, BuildError> {
        let s = self.same_pair(loc, op.name(), a, b, binary_class(op))?;
        self.emit_val(loc, op, Imm::None, &[a.value, b.value], Type::Scalar(s))
    }

    fn unary(&mut self, loc: Loc, op: Opcode, a: Val) -> Result<Val, BuildError> {
        let s = self.operand(loc, op.name(), a, unary_class(op))?;
        self.emit_val(loc, op, Imm::None, &[a.value], Type::Scalar(s))
    }

    /// `a + b` (wrapping for integers).
    #[track_caller]
    pub fn add(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Add, a, b)
    }
    /// `a - b`.
    #[track_caller]
    pub fn sub(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Sub, a, b)
    }
    /// `a * b`.
    #[track_caller]
    pub fn mul(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Mul, a, b)
    }
    /// `a / b` (integers truncate toward zero).
    #[track_caller]
    pub fn div(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Div, a, b)
    }
    /// `a % b` (sign of the dividend).
    #[track_caller]
    pub fn rem(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Rem, a, b)
    }
    /// `min(a, b)`.
    #[track_caller]
    pub fn min(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Min, a, b)
    }
    /// `max(a, b)`.
    #[track_caller]
    pub fn max(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Max, a, b)
    }
    /// `a & b` (integers, bool).
    #[track_caller]
    pub fn and(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::And, a, b)
    }
    /// `a | b` (integers, bool).
    #[track_caller]
    pub fn or(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Or, a, b)
    }
    /// `a ^ b` (integers, bool).
    #[track_caller]
    pub fn xor(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Xor, a, b)
    }
    /// `a << b` (integers; amounts ≥ width give 0).
    #[track_caller]
    pub fn shl(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Shl, a, b)
    }
    /// `a >> b` (arithmetic for signed types).
    #[track_caller]
    pub fn shr(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.binary(Location::caller(), Opcode::Shr, a, b)
    }
    /// `-a`.
    #[track_caller]
    pub fn neg(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Neg, a)
    }
    /// `|a|`.
    #[track_caller]
    pub fn abs(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Abs, a)
    }
    /// `!a` (integers, bool).
    #[track_caller]
    pub fn not(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Not, a)
    }
    /// `sqrt(a)` (floats).
    #[track_caller]
    pub fn sqrt(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Sqrt, a)
    }
    /// Count leading zeros (integers).
    #[track_caller]
    pub fn clz(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Clz, a)
    }
    /// Population count (integers).
    #[track_caller]
    pub fn popcount(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Popcount, a)
    }
    /// Bit reversal (integers).
    #[track_caller]
    pub fn bitrev(&mut self, a: Val) -> Result<Val, BuildError> {
        self.unary(Location::caller(), Opcode::Bitrev, a)
    }

    /// `a * b + c` with one rounding (floats).
    #[track_caller]
    pub fn fma(&mut self, a: Val, b: Val, c: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let s = self.same_pair(loc, "fma", a, b, Class::Float)?;
        self.same_pair(loc, "fma", a, c, Class::Float)?;
        self.emit_val(loc, Opcode::Fma, Imm::None, &[a.value, b.value, c.value], Type::Scalar(s))
    }

    /// `c ? a : b`.
    #[track_caller]
    pub fn select(&mut self, c: Val, a: Val, b: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.require_ty(loc, "select", "the condition", c, Type::BOOL)?;
        self.check_val(loc, "select", a)?;
        self.check_val(loc, "select", b)?;
        if a.ty != b.ty {
            return Err(mismatch(loc, format!("select: operand types differ: {} and {}", a.ty, b.ty)));
        }
        self.emit_val(loc, Opcode::Select, Imm::None, &[c.value, a.value, b.value], a.ty)
    }

    // ---- comparisons and conversions ----------------------------------------------------------

    fn cmp_at(&mut self, loc: Loc, cond: CmpCond, a: Val, b: Val) -> Result<Val, BuildError> {
        let class = match cond {
            CmpCond::Eq | CmpCond::Ne => Class::AnyScalar,
            CmpCond::Lt | CmpCond::Le | CmpCond::Gt | CmpCond::Ge => Class::Numeric,
        };
        let name = format!("cmp {}", cond.name());
        self.same_pair(loc, &name, a, b, class)?;
        self.emit_val(loc, Opcode::Cmp, Imm::Cond(cond), &[a.value, b.value], Type::BOOL)
    }

    /// `cmp cond a, b` → bool (signedness from the operand type).
    #[track_caller]
    pub fn cmp(&mut self, cond: CmpCond, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), cond, a, b)
    }
    /// `a < b`.
    #[track_caller]
    pub fn lt(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Lt, a, b)
    }
    /// `a <= b`.
    #[track_caller]
    pub fn le(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Le, a, b)
    }
    /// `a > b`.
    #[track_caller]
    pub fn gt(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Gt, a, b)
    }
    /// `a >= b`.
    #[track_caller]
    pub fn ge(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Ge, a, b)
    }
    /// `a == b`.
    #[track_caller]
    pub fn eq(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Eq, a, b)
    }
    /// `a != b`.
    #[track_caller]
    pub fn ne(&mut self, a: Val, b: Val) -> Result<Val, BuildError> {
        self.cmp_at(Location::caller(), CmpCond::Ne, a, b)
    }

    /// Numeric conversion to `to` (see `qd_mir::eval::cast`).
    #[track_caller]
    pub fn cast(&mut self, v: Val, to: ScalarType) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.operand(loc, "cast", v, Class::AnyScalar)?;
        self.emit_val(loc, Opcode::Cast, Imm::None, &[v.value], Type::Scalar(to))
    }

    /// Reinterprets the bits of `v` as `to` (same width, not bool).
    #[track_caller]
    pub fn bitcast(&mut self, v: Val, to: ScalarType) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let from = self.operand(loc, "bitcast", v, Class::Numeric)?;
        if to == ScalarType::Bool || from.bits() != to.bits() {
            return Err(mismatch(
                loc,
                format!("bitcast: cannot reinterpret {from} as {to} (different widths or bool)"),
            ));
        }
        self.emit_val(loc, Opcode::Bitcast, Imm::None, &[v.value], Type::Scalar(to))
    }

    // ---- memory -------------------------------------------------------------------------------

    /// `shared.addr @arr`: a fresh pointer to element 0 of a shared array (the handle's
    /// [`SharedBuf::ptr`] is the same value, emitted at the top of the body).
    #[track_caller]
    pub fn shared_addr(&mut self, arr: SharedBuf) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.check_val(loc, "shared.addr", arr.ptr)?;
        self.emit_val(loc, Opcode::SharedAddr, Imm::Shared(arr.arr), &[], arr.ptr.ty)
    }

    fn offset_at(&mut self, loc: Loc, p: Val, index: Val) -> Result<Val, BuildError> {
        self.pointer(loc, "ptr.offset", p)?;
        self.operand(loc, "ptr.offset", index, Class::Int)?;
        self.emit_val(loc, Opcode::PtrOffset, Imm::None, &[p.value, index.value], p.ty)
    }

    /// `ptr.offset p, index`: the pointer `index` elements after `p`.
    #[track_caller]
    pub fn ptr_offset(&mut self, p: Val, index: Val) -> Result<Val, BuildError> {
        self.offset_at(Location::caller(), p, index)
    }

    fn load_at(&mut self, loc: Loc, p: Val) -> Result<Val, BuildError> {
        let (_, elem) = self.pointer(loc, "load", p)?;
        self.emit_val(loc, Opcode::Load, Imm::None, &[p.value], Type::Scalar(elem))
    }

    fn store_at(&mut self, loc: Loc, p: Val, v: Val) -> Result<(), BuildError> {
        let (_, elem) = self.pointer(loc, "store", p)?;
        self.require_ty(loc, "store", "the stored value", v, Type::Scalar(elem))?;
        self.emit(loc, Opcode::Store, Imm::None, &[p.value, v.value], None)
    }

    /// Loads through a pointer.
    #[track_caller]
    pub fn load_ptr(&mut self, p: Val) -> Result<Val, BuildError> {
        self.load_at(Location::caller(), p)
    }

    /// Stores through a pointer.
    #[track_caller]
    pub fn store_ptr(&mut self, p: Val, v: Val) -> Result<(), BuildError> {
        self.store_at(Location::caller(), p, v)
    }

    /// `mem[index]` (`ptr.offset` then `load`).
    #[track_caller]
    pub fn load(&mut self, mem: impl Into<Mem>, index: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let p = self.offset_at(loc, mem.into().base(), index)?;
        self.load_at(loc, p)
    }

    /// `mem[index] = v` (`ptr.offset` then `store`).
    #[track_caller]
    pub fn store(&mut self, mem: impl Into<Mem>, index: Val, v: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        let mem = mem.into();
        // check the value before emitting the address
        self.check_val(loc, "store", v)?;
        let elem = Type::Scalar(match mem {
            Mem::Global(b) => b.elem,
            Mem::Shared(s) => s.elem,
        });
        self.require_ty(loc, "store", "the stored value", v, elem)?;
        let p = self.offset_at(loc, mem.base(), index)?;
        self.store_at(loc, p, v)
    }

    fn rmw_at(&mut self, loc: Loc, op: AtomicOp, scope: Scope, p: Val, v: Val) -> Result<Val, BuildError> {
        let name = format!("atomic.rmw {}", op.name());
        let (_, elem) = self.pointer(loc, &name, p)?;
        self.require_ty(loc, &name, "the operand", v, Type::Scalar(elem))?;
        let ok = match op {
            AtomicOp::Add => elem.is_int() || elem == ScalarType::F32,
            AtomicOp::Min | AtomicOp::Max | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => elem.is_int(),
            AtomicOp::Exch => elem != ScalarType::Bool,
        };
        if !ok {
            return Err(mismatch(loc, format!("{name}: not supported on {elem} memory")));
        }
        self.emit_val(loc, Opcode::AtomicRmw, Imm::Atomic(op, scope), &[p.value, v.value], Type::Scalar(elem))
    }

    /// Atomic read-modify-write of `mem[index]`; returns the old value.
    #[track_caller]
    pub fn atomic_rmw(
        &mut self,
        op: AtomicOp,
        scope: Scope,
        mem: impl Into<Mem>,
        index: Val,
        v: Val,
    ) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let p = self.offset_at(loc, mem.into().base(), index)?;
        self.rmw_at(loc, op, scope, p, v)
    }

    /// Atomic read-modify-write through a pointer; returns the old value.
    #[track_caller]
    pub fn atomic_rmw_ptr(&mut self, op: AtomicOp, scope: Scope, p: Val, v: Val) -> Result<Val, BuildError> {
        self.rmw_at(Location::caller(), op, scope, p, v)
    }

    fn cas_at(&mut self, loc: Loc, scope: Scope, p: Val, expected: Val, new: Val) -> Result<Val, BuildError> {
        let (_, elem) = self.pointer(loc, "atomic.cas", p)?;
        if !elem.is_int() {
            return Err(mismatch(loc, format!("atomic.cas: not supported on {elem} memory (integers only)")));
        }
        self.require_ty(loc, "atomic.cas", "the expected value", expected, Type::Scalar(elem))?;
        self.require_ty(loc, "atomic.cas", "the new value", new, Type::Scalar(elem))?;
        self.emit_val(
            loc,
            Opcode::AtomicCas,
            Imm::Scope(scope),
            &[p.value, expected.value, new.value],
            Type::Scalar(elem),
        )
    }

    /// Atomic compare-exchange of `mem[index]`; returns the old value.
    #[track_caller]
    pub fn atomic_cas(
        &mut self,
        scope: Scope,
        mem: impl Into<Mem>,
        index: Val,
        expected: Val,
        new: Val,
    ) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let p = self.offset_at(loc, mem.into().base(), index)?;
        self.cas_at(loc, scope, p, expected, new)
    }

    /// Atomic compare-exchange through a pointer; returns the old value.
    #[track_caller]
    pub fn atomic_cas_ptr(&mut self, scope: Scope, p: Val, expected: Val, new: Val) -> Result<Val, BuildError> {
        self.cas_at(Location::caller(), scope, p, expected, new)
    }

    // ---- indices ------------------------------------------------------------------------------

    fn dim_op(&mut self, loc: Loc, op: Opcode, dim: Dim) -> Result<Val, BuildError> {
        self.emit_val(loc, op, Imm::Dim(dim), &[], Type::U32)
    }

    /// Thread index within the block (u32).
    #[track_caller]
    pub fn thread_id(&mut self, dim: Dim) -> Result<Val, BuildError> {
        self.dim_op(Location::caller(), Opcode::ThreadId, dim)
    }
    /// Block index within the grid (u32).
    #[track_caller]
    pub fn block_id(&mut self, dim: Dim) -> Result<Val, BuildError> {
        self.dim_op(Location::caller(), Opcode::BlockId, dim)
    }
    /// Block size (u32). (The launch setter is [`KernelBuilder::set_block_dim`].)
    #[track_caller]
    pub fn block_dim(&mut self, dim: Dim) -> Result<Val, BuildError> {
        self.dim_op(Location::caller(), Opcode::BlockDim, dim)
    }
    /// Grid size in blocks (u32).
    #[track_caller]
    pub fn grid_dim(&mut self, dim: Dim) -> Result<Val, BuildError> {
        self.dim_op(Location::caller(), Opcode::GridDim, dim)
    }
    /// Lane index within the subgroup (u32).
    #[track_caller]
    pub fn lane_id(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneId, Imm::None, &[], Type::U32)
    }
    /// Subgroup index within the block (u32).
    #[track_caller]
    pub fn subgroup_id(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::SubgroupId, Imm::None, &[], Type::U32)
    }
    /// Subgroup width (u32, a target constant).
    #[track_caller]
    pub fn subgroup_size(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::SubgroupSize, Imm::None, &[], Type::U32)
    }

    // ---- subgroup ops -------------------------------------------------------------------------

    fn lane_op(&mut self, loc: Loc, op: Opcode, v: Val, lane: Val) -> Result<Val, BuildError> {
        let s = self.operand(loc, op.name(), v, Class::AnyScalar)?;
        let what = match op {
            Opcode::ShuffleUp | Opcode::ShuffleDown => "the lane delta",
            Opcode::ShuffleXor => "the lane mask",
            _ => "the source lane",
        };
        self.require_ty(loc, op.name(), what, lane, Type::U32)?;
        self.emit_val(loc, op, Imm::None, &[v.value, lane.value], Type::Scalar(s))
    }

    /// `v` of lane `lane mod width`.
    #[track_caller]
    pub fn shuffle_idx(&mut self, v: Val, lane: Val) -> Result<Val, BuildError> {
        self.lane_op(Location::caller(), Opcode::ShuffleIdx, v, lane)
    }
    /// `v` of lane `lane_id - delta` (own value when out of range).
    #[track_caller]
    pub fn shuffle_up(&mut self, v: Val, delta: Val) -> Result<Val, BuildError> {
        self.lane_op(Location::caller(), Opcode::ShuffleUp, v, delta)
    }
    /// `v` of lane `lane_id + delta` (own value when out of range).
    #[track_caller]
    pub fn shuffle_down(&mut self, v: Val, delta: Val) -> Result<Val, BuildError> {
        self.lane_op(Location::caller(), Opcode::ShuffleDown, v, delta)
    }
    /// `v` of lane `lane_id ^ mask` (own value when out of range).
    #[track_caller]
    pub fn shuffle_xor(&mut self, v: Val, mask: Val) -> Result<Val, BuildError> {
        self.lane_op(Location::caller(), Opcode::ShuffleXor, v, mask)
    }
    /// `v` of lane `lane` on every lane (`lane` must be uniform).
    #[track_caller]
    pub fn broadcast(&mut self, v: Val, lane: Val) -> Result<Val, BuildError> {
        self.lane_op(Location::caller(), Opcode::Broadcast, v, lane)
    }

    /// u64 mask of the active lanes whose `p` is true.
    #[track_caller]
    pub fn ballot(&mut self, p: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.require_ty(loc, "ballot", "the predicate", p, Type::BOOL)?;
        self.emit_val(loc, Opcode::Ballot, Imm::None, &[p.value], Type::U64)
    }

    /// u32 ballot restricted to lanes `< n` (1 ≤ n ≤ 32).
    #[track_caller]
    pub fn ballot_first_n(&mut self, n: u32, p: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        if !(1..=32).contains(&n) {
            return Err(BuildError::new(
                loc,
                ErrorKind::OutOfRange,
                format!("ballot.first_n: lane count {n} is out of range 1..=32"),
            ));
        }
        self.require_ty(loc, "ballot.first_n", "the predicate", p, Type::BOOL)?;
        self.emit_val(loc, Opcode::BallotFirstN, Imm::Count(n as u8), &[p.value], Type::U32)
    }

    /// u64 mask of the active lanes whose `v` has the same bits as this lane's
    /// (`__match_any_sync`). `v`: any scalar.
    #[track_caller]
    pub fn match_any(&mut self, v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.operand(loc, "match.any", v, Class::AnyScalar)?;
        self.emit_val(loc, Opcode::MatchAny, Imm::None, &[v.value], Type::U64)
    }
    /// The u64 active mask if `v` has the same bits on every active lane, else 0
    /// (`__match_all_sync`). `v`: any scalar.
    #[track_caller]
    pub fn match_all(&mut self, v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.operand(loc, "match.all", v, Class::AnyScalar)?;
        self.emit_val(loc, Opcode::MatchAll, Imm::None, &[v.value], Type::U64)
    }
    /// u64 mask of the active lanes (`__activemask`).
    #[track_caller]
    pub fn active_mask(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::ActiveMask, Imm::None, &[], Type::U64)
    }
    /// u64 mask of the lanes below this one (`%lanemask_lt`).
    #[track_caller]
    pub fn lane_mask_lt(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneMaskLt, Imm::None, &[], Type::U64)
    }
    /// u64 mask of the lanes up to and including this one (`%lanemask_le`).
    #[track_caller]
    pub fn lane_mask_le(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneMaskLe, Imm::None, &[], Type::U64)
    }
    /// u64 with only this lane's bit set (`%lanemask_eq`).
    #[track_caller]
    pub fn lane_mask_eq(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneMaskEq, Imm::None, &[], Type::U64)
    }
    /// u64 mask of this lane and the lanes above it, below the width (`%lanemask_ge`).
    #[track_caller]
    pub fn lane_mask_ge(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneMaskGe, Imm::None, &[], Type::U64)
    }
    /// u64 mask of the lanes above this one, below the width (`%lanemask_gt`).
    #[track_caller]
    pub fn lane_mask_gt(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::LaneMaskGt, Imm::None, &[], Type::U64)
    }
    /// True exactly on the lowest active lane (`elect.sync`).
    #[track_caller]
    pub fn elect(&mut self) -> Result<Val, BuildError> {
        self.emit_val(Location::caller(), Opcode::Elect, Imm::None, &[], Type::BOOL)
    }
    /// A hint to suspend the thread for about `ns` (u32) nanoseconds (`__nanosleep`); changes no
    /// value.
    #[track_caller]
    pub fn nanosleep(&mut self, ns: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.require_ty(loc, "nanosleep", "the duration", ns, Type::U32)?;
        self.emit(loc, Opcode::Nanosleep, Imm::None, &[ns.value], None)
    }

    fn vote(&mut self, loc: Loc, op: Opcode, tile: Tile, v: Val) -> Result<Val, BuildError> {
        check_tile(loc, op.name(), tile)?;
        if op == Opcode::VoteEq {
            self.operand(loc, op.name(), v, Class::AnyScalar)?;
        } else {
            self.require_ty(loc, op.name(), "the predicate", v, Type::BOOL)?;
        }
        self.emit_val(loc, op, Imm::Tile(tile), &[v.value], Type::BOOL)
    }

    /// True iff `p` holds on every active lane of the tile.
    #[track_caller]
    pub fn vote_all(&mut self, tile: Tile, p: Val) -> Result<Val, BuildError> {
        self.vote(Location::caller(), Opcode::VoteAll, tile, p)
    }
    /// True iff `p` holds on some active lane of the tile.
    #[track_caller]
    pub fn vote_any(&mut self, tile: Tile, p: Val) -> Result<Val, BuildError> {
        self.vote(Location::caller(), Opcode::VoteAny, tile, p)
    }
    /// True iff `v` is equal on every active lane of the tile.
    #[track_caller]
    pub fn vote_eq(&mut self, tile: Tile, v: Val) -> Result<Val, BuildError> {
        self.vote(Location::caller(), Opcode::VoteEq, tile, v)
    }

    fn group_operand(&self, loc: Loc, name: &str, op: GroupOp, tile: Tile, v: Val) -> Result<ScalarType, BuildError> {
        check_tile(loc, name, tile)?;
        let s = self.operand(loc, name, v, Class::AnyScalar)?;
        let bitwise = matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor);
        if bitwise && s.is_float() {
            return Err(mismatch(loc, format!("{name} {}: not defined on {s}", op.name())));
        }
        Ok(s)
    }

    /// Reduction of `v` over the active lanes of each tile.
    #[track_caller]
    pub fn subgroup_reduce(&mut self, op: GroupOp, tile: Tile, v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let s = self.group_operand(loc, "subgroup.reduce", op, tile, v)?;
        let imm = Imm::Group { op, tile, inclusive: true };
        self.emit_val(loc, Opcode::SubgroupReduce, imm, &[v.value], Type::Scalar(s))
    }

    /// Inclusive or exclusive scan of `v` in lane order within each tile.
    #[track_caller]
    pub fn subgroup_scan(&mut self, op: GroupOp, tile: Tile, inclusive: bool, v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let s = self.group_operand(loc, "subgroup.scan", op, tile, v)?;
        let imm = Imm::Group { op, tile, inclusive };
        self.emit_val(loc, Opcode::SubgroupScan, imm, &[v.value], Type::Scalar(s))
    }

    /// Per-lane inclusive scan restarted at each lane whose `head` is non-zero.
    #[track_caller]
    pub fn segmented_reduce(&mut self, op: GroupOp, tile: Tile, v: Val, head: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let s = self.group_operand(loc, "subgroup.segreduce", op, tile, v)?;
        self.operand(loc, "subgroup.segreduce", head, Class::IntOrBool)?;
        let imm = Imm::Group { op, tile, inclusive: true };
        self.emit_val(loc, Opcode::SegmentedReduce, imm, &[v.value, head.value], Type::Scalar(s))
    }

    // ---- barriers and fences ------------------------------------------------------------------

    /// Subgroup execution barrier.
    #[track_caller]
    pub fn subgroup_sync(&mut self) -> Result<(), BuildError> {
        self.emit(Location::caller(), Opcode::SubgroupSync, Imm::None, &[], None)
    }
    /// Block barrier (`__syncthreads`).
    #[track_caller]
    pub fn block_sync(&mut self) -> Result<(), BuildError> {
        self.emit(Location::caller(), Opcode::BlockSync, Imm::None, &[], None)
    }
    /// Block barrier combining `p` over the block (`and`/`or` → bool, `count` → u32).
    #[track_caller]
    pub fn block_sync_pred(&mut self, op: PredOp, p: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let name = format!("block.sync_pred {}", op.name());
        self.require_ty(loc, &name, "the predicate", p, Type::BOOL)?;
        let ty = match op {
            PredOp::And | PredOp::Or => Type::BOOL,
            PredOp::Count => Type::U32,
        };
        self.emit_val(loc, Opcode::BlockSyncPred, Imm::Pred(op), &[p.value], ty)
    }
    /// Memory fence with a scope.
    #[track_caller]
    pub fn fence(&mut self, scope: Scope) -> Result<(), BuildError> {
        self.emit(Location::caller(), Opcode::Fence, Imm::Scope(scope), &[], None)
    }
}

#[cfg(test)]
mod tests {
    use crate::{AtomicOp, BuildError, FunctionBuilderContext, GroupOp, KernelBuilder, ScalarType, Scope, Tile};
    use qd_mir::text::print_function;

    #[test]
    fn shared_memory_and_constants() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "smem");
        let hist = b.shared_array("hist", ScalarType::U32, 32);
        let lane = b.lane_id()?;
        let one = b.const_u32(1)?;
        b.store(hist, lane, one)?;
        b.block_sync()?;
        let _ = b.atomic_rmw(AtomicOp::Max, Scope::Block, hist, one, lane)?;
        let _ = b.atomic_cas(Scope::Block, hist, lane, one, lane)?;
        let v = b.load(hist, lane)?;
        let _ = b.subgroup_scan(GroupOp::Add, Tile::Full, true, v)?;
        let _ = b.const_i64(-5)?;
        let _ = b.const_f64(-0.25)?;
        let _ = b.const_scalar(ScalarType::F32, 0x7fc0_0001)?;
        let f = b.finish()?;
        assert_eq!(
            print_function(&f),
            "\
kernel @smem() block(1, 1, 1) grid(1, 1, 1) {
  shared @hist: [u32; 32]
  %0 = shared.addr @hist : ptr<shared, u32>
  %1 = lane_id : u32
  %2 = const 1 : u32
  %3 = ptr.offset %0, %1 : ptr<shared, u32>
  store %3, %2
  block.sync
  %4 = ptr.offset %0, %2 : ptr<shared, u32>
  %5 = atomic.rmw max block %4, %1 : u32
  %6 = ptr.offset %0, %1 : ptr<shared, u32>
  %7 = atomic.cas block %6, %2, %1 : u32
  %8 = ptr.offset %0, %1 : ptr<shared, u32>
  %9 = load %8 : u32
  %10 = subgroup.scan inclusive add %9 : u32
  %11 = const -5 : i64
  %12 = const -0.25 : f64
  %13 = const 0x7fc00001 : f32
  return
}
"
        );
        Ok(())
    }
}
