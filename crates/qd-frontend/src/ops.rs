//! Typed op methods: one (or more) [`KernelBuilder`] method per opcode of the op table, each
//! checking its operands eagerly.
//!
//! Every op method applies the MIR type rules of [`qd_mir::typerules`] — the same rules the
//! verifier applies — before emitting, so any operand, result or immediate the verifier would
//! reject is a [`BuildError`] at the user's call (`ErrorKind::TypeMismatch`, or
//! `ErrorKind::OutOfRange` for tiles and lane counts), never a failure at `finish`. Messages are
//! the verifier's: `add: operand 2 has type f32, expected u32`.
//!
//! In short: `add sub mul div rem min max` take two equal numeric scalars; `and or xor` integers
//! or bool; `shl shr` integers; `fma` three equal floats; `select` a bool and two equal types;
//! `cmp` equal scalars (`lt le gt ge` not on bool) → bool; `cast` scalar → scalar; `bitcast`
//! non-bool scalars of one width; `ptr.offset` any integer index; atomics `add` on integers and
//! f32, `min max and or xor` on integers, `exch` on non-bool scalars, `cas` on integers; shuffles
//! and `broadcast` any scalar with a `u32` lane; reductions/scans by operator (`and or xor` not on
//! floats, `add mul` not on bool); `segreduce` only `add min max`, heads integer or bool; tiles
//! `2^0…2^6` and no wider than a fixed subgroup width; `ballot.first_n` counts 1..=32.
//! CUDA warp builtins: `match_any`/`match_all` (`__match_any_sync`/`__match_all_sync`) take any
//! scalar → u64; `active_mask` (`__activemask`) and `lane_mask_lt/le/eq/ge/gt` (`%lanemask_*`) →
//! u64; `elect` (`elect.sync`) → bool; `nanosleep` (`__nanosleep`) takes a u32.

use crate::builder::{KernelBuilder, Mem, SharedBuf, Val};
use crate::error::{BuildError, ErrorKind, Loc};
use qd_mir::eval::{bits_f32, bits_f64, canon};
use qd_mir::typerules::{self, TypeError};
use qd_mir::{AtomicOp, CmpCond, Dim, GroupOp, Imm, Opcode, PredOp, ScalarType, Scope, Tile, Type, Value};
use std::panic::Location;

/// A type-rule violation as a [`BuildError`] at the caller: immediates out of range (tiles, lane
/// counts) are [`ErrorKind::OutOfRange`], everything else [`ErrorKind::TypeMismatch`].
pub(crate) fn rule_error(loc: Loc, e: TypeError) -> BuildError {
    let kind = if e.violation.is_range() { ErrorKind::OutOfRange } else { ErrorKind::TypeMismatch };
    BuildError::new(loc, kind, e.to_string())
}

impl KernelBuilder<'_> {
    // ---- type checking ------------------------------------------------------------------------

    /// Checks that `args` are this builder's and visible, then applies the MIR type rules
    /// ([`qd_mir::typerules`], the verifier's own) to `op`; returns the result type (`chosen`, for
    /// the ops whose instruction names it: `const`, `cast`, `bitcast`).
    pub(crate) fn typed(
        &self,
        loc: Loc,
        op: Opcode,
        imm: Imm,
        args: &[Val],
        chosen: Option<Type>,
    ) -> Result<Option<Type>, BuildError> {
        for &a in args {
            self.check_val(loc, op.name(), a)?;
        }
        let mut tys = [Type::U32; 3];
        for (t, a) in tys.iter_mut().zip(args) {
            *t = a.ty;
        }
        let tys = tys.get(..args.len()).unwrap_or(&[]);
        typerules::check_op(self.func(), op, imm, tys, chosen).map_err(|e| rule_error(loc, e))
    }

    /// Type-checks and emits an op with one result.
    fn op_val(
        &mut self,
        loc: Loc,
        op: Opcode,
        imm: Imm,
        args: &[Val],
        chosen: Option<Type>,
    ) -> Result<Val, BuildError> {
        let ty = self
            .typed(loc, op, imm, args, chosen)?
            .ok_or_else(|| BuildError::new(loc, ErrorKind::Structure, format!("{op}: the op has no result")))?;
        let mut vals = [Value::from_u32(0); 3];
        for (v, a) in vals.iter_mut().zip(args) {
            *v = a.value;
        }
        self.emit_val(loc, op, imm, vals.get(..args.len()).unwrap_or(&[]), ty)
    }

    /// Type-checks and emits an op without a result.
    fn op_effect(&mut self, loc: Loc, op: Opcode, imm: Imm, args: &[Val]) -> Result<(), BuildError> {
        self.typed(loc, op, imm, args, None)?;
        let mut vals = [Value::from_u32(0); 3];
        for (v, a) in vals.iter_mut().zip(args) {
            *v = a.value;
        }
        self.emit(loc, op, imm, vals.get(..args.len()).unwrap_or(&[]), None)
    }

    // ---- constants ----------------------------------------------------------------------------

    /// `const` with raw bits (canonicalised for `ty`).
    pub(crate) fn const_bits(&mut self, loc: Loc, ty: ScalarType, bits: u64) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::Const, Imm::Const(canon(ty, bits)), &[], Some(Type::Scalar(ty)))
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
        self.op_val(loc, op, Imm::None, &[a, b], None)
    }

    fn unary(&mut self, loc: Loc, op: Opcode, a: Val) -> Result<Val, BuildError> {
        self.op_val(loc, op, Imm::None, &[a], None)
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
        self.op_val(Location::caller(), Opcode::Fma, Imm::None, &[a, b, c], None)
    }

    /// `c ? a : b`.
    #[track_caller]
    pub fn select(&mut self, c: Val, a: Val, b: Val) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::Select, Imm::None, &[c, a, b], None)
    }

    // ---- comparisons and conversions ----------------------------------------------------------

    fn cmp_at(&mut self, loc: Loc, cond: CmpCond, a: Val, b: Val) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::Cmp, Imm::Cond(cond), &[a, b], None)
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
        self.op_val(Location::caller(), Opcode::Cast, Imm::None, &[v], Some(Type::Scalar(to)))
    }

    /// Reinterprets the bits of `v` as `to` (same width, not bool).
    #[track_caller]
    pub fn bitcast(&mut self, v: Val, to: ScalarType) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::Bitcast, Imm::None, &[v], Some(Type::Scalar(to)))
    }

    // ---- memory -------------------------------------------------------------------------------

    /// `shared.addr @arr`: a fresh pointer to element 0 of a shared array (the handle's
    /// [`SharedBuf::ptr`] is the same value, emitted at the top of the body).
    #[track_caller]
    pub fn shared_addr(&mut self, arr: SharedBuf) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.check_val(loc, "shared.addr", arr.ptr)?;
        self.op_val(loc, Opcode::SharedAddr, Imm::Shared(arr.arr), &[], None)
    }

    fn offset_at(&mut self, loc: Loc, p: Val, index: Val) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::PtrOffset, Imm::None, &[p, index], None)
    }

    /// `ptr.offset p, index`: the pointer `index` elements after `p`.
    #[track_caller]
    pub fn ptr_offset(&mut self, p: Val, index: Val) -> Result<Val, BuildError> {
        self.offset_at(Location::caller(), p, index)
    }

    fn load_at(&mut self, loc: Loc, p: Val) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::Load, Imm::None, &[p], None)
    }

    fn store_at(&mut self, loc: Loc, p: Val, v: Val) -> Result<(), BuildError> {
        self.op_effect(loc, Opcode::Store, Imm::None, &[p, v])
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
        let base = mem.into().base();
        // check the load before emitting the address
        self.typed(loc, Opcode::Load, Imm::None, &[base], None)?;
        let p = self.offset_at(loc, base, index)?;
        self.load_at(loc, p)
    }

    /// `mem[index] = v` (`ptr.offset` then `store`).
    #[track_caller]
    pub fn store(&mut self, mem: impl Into<Mem>, index: Val, v: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        let base = mem.into().base();
        // check the value before emitting the address
        self.typed(loc, Opcode::Store, Imm::None, &[base, v], None)?;
        let p = self.offset_at(loc, base, index)?;
        self.store_at(loc, p, v)
    }

    fn rmw_at(&mut self, loc: Loc, op: AtomicOp, scope: Scope, p: Val, v: Val) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::AtomicRmw, Imm::Atomic(op, scope), &[p, v], None)
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
        let base = mem.into().base();
        // check the operation before emitting the address
        self.typed(loc, Opcode::AtomicRmw, Imm::Atomic(op, scope), &[base, v], None)?;
        let p = self.offset_at(loc, base, index)?;
        self.rmw_at(loc, op, scope, p, v)
    }

    /// Atomic read-modify-write through a pointer; returns the old value.
    #[track_caller]
    pub fn atomic_rmw_ptr(&mut self, op: AtomicOp, scope: Scope, p: Val, v: Val) -> Result<Val, BuildError> {
        self.rmw_at(Location::caller(), op, scope, p, v)
    }

    fn cas_at(&mut self, loc: Loc, scope: Scope, p: Val, expected: Val, new: Val) -> Result<Val, BuildError> {
        self.op_val(loc, Opcode::AtomicCas, Imm::Scope(scope), &[p, expected, new], None)
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
        let base = mem.into().base();
        // check the operands before emitting the address
        self.typed(loc, Opcode::AtomicCas, Imm::Scope(scope), &[base, expected, new], None)?;
        let p = self.offset_at(loc, base, index)?;
        self.cas_at(loc, scope, p, expected, new)
    }

    /// Atomic compare-exchange through a pointer; returns the old value.
    #[track_caller]
    pub fn atomic_cas_ptr(&mut self, scope: Scope, p: Val, expected: Val, new: Val) -> Result<Val, BuildError> {
        self.cas_at(Location::caller(), scope, p, expected, new)
    }

    // ---- indices ------------------------------------------------------------------------------

    fn dim_op(&mut self, loc: Loc, op: Opcode, dim: Dim) -> Result<Val, BuildError> {
        self.op_val(loc, op, Imm::Dim(dim), &[], None)
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
        self.op_val(Location::caller(), Opcode::LaneId, Imm::None, &[], None)
    }
    /// Subgroup index within the block (u32).
    #[track_caller]
    pub fn subgroup_id(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::SubgroupId, Imm::None, &[], None)
    }
    /// Subgroup width (u32, a target constant).
    #[track_caller]
    pub fn subgroup_size(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::SubgroupSize, Imm::None, &[], None)
    }

    // ---- subgroup ops -------------------------------------------------------------------------

    fn lane_op(&mut self, loc: Loc, op: Opcode, v: Val, lane: Val) -> Result<Val, BuildError> {
        self.op_val(loc, op, Imm::None, &[v, lane], None)
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
        self.op_val(Location::caller(), Opcode::Ballot, Imm::None, &[p], None)
    }

    /// u32 ballot restricted to lanes `< n` (1 ≤ n ≤ 32).
    #[track_caller]
    pub fn ballot_first_n(&mut self, n: u32, p: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        // Counts past a `u8` are out of range like 33 is (the type rules see a saturated count).
        let count = u8::try_from(n).unwrap_or(u8::MAX);
        self.op_val(loc, Opcode::BallotFirstN, Imm::Count(count), &[p], None)
    }

    /// u64 mask of the active lanes whose `v` has the same bits as this lane's
    /// (`__match_any_sync`). `v`: any scalar.
    #[track_caller]
    pub fn match_any(&mut self, v: Val) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::MatchAny, Imm::None, &[v], None)
    }
    /// The u64 active mask if `v` has the same bits on every active lane, else 0
    /// (`__match_all_sync`). `v`: any scalar.
    #[track_caller]
    pub fn match_all(&mut self, v: Val) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::MatchAll, Imm::None, &[v], None)
    }
    /// u64 mask of the active lanes (`__activemask`).
    #[track_caller]
    pub fn active_mask(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::ActiveMask, Imm::None, &[], None)
    }
    /// u64 mask of the lanes below this one (`%lanemask_lt`).
    #[track_caller]
    pub fn lane_mask_lt(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::LaneMaskLt, Imm::None, &[], None)
    }
    /// u64 mask of the lanes up to and including this one (`%lanemask_le`).
    #[track_caller]
    pub fn lane_mask_le(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::LaneMaskLe, Imm::None, &[], None)
    }
    /// u64 with only this lane's bit set (`%lanemask_eq`).
    #[track_caller]
    pub fn lane_mask_eq(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::LaneMaskEq, Imm::None, &[], None)
    }
    /// u64 mask of this lane and the lanes above it, below the width (`%lanemask_ge`).
    #[track_caller]
    pub fn lane_mask_ge(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::LaneMaskGe, Imm::None, &[], None)
    }
    /// u64 mask of the lanes above this one, below the width (`%lanemask_gt`).
    #[track_caller]
    pub fn lane_mask_gt(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::LaneMaskGt, Imm::None, &[], None)
    }
    /// True exactly on the lowest active lane (`elect.sync`).
    #[track_caller]
    pub fn elect(&mut self) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::Elect, Imm::None, &[], None)
    }
    /// A hint to suspend the thread for about `ns` (u32) nanoseconds (`__nanosleep`); changes no
    /// value.
    #[track_caller]
    pub fn nanosleep(&mut self, ns: Val) -> Result<(), BuildError> {
        self.op_effect(Location::caller(), Opcode::Nanosleep, Imm::None, &[ns])
    }

    fn vote(&mut self, loc: Loc, op: Opcode, tile: Tile, v: Val) -> Result<Val, BuildError> {
        self.op_val(loc, op, Imm::Tile(tile), &[v], None)
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

    /// Reduction of `v` over the active lanes of each tile.
    #[track_caller]
    pub fn subgroup_reduce(&mut self, op: GroupOp, tile: Tile, v: Val) -> Result<Val, BuildError> {
        let imm = Imm::Group { op, tile, inclusive: true };
        self.op_val(Location::caller(), Opcode::SubgroupReduce, imm, &[v], None)
    }

    /// Inclusive or exclusive scan of `v` in lane order within each tile.
    #[track_caller]
    pub fn subgroup_scan(&mut self, op: GroupOp, tile: Tile, inclusive: bool, v: Val) -> Result<Val, BuildError> {
        let imm = Imm::Group { op, tile, inclusive };
        self.op_val(Location::caller(), Opcode::SubgroupScan, imm, &[v], None)
    }

    /// Per-lane inclusive scan restarted at each lane whose `head` is non-zero.
    #[track_caller]
    pub fn segmented_reduce(&mut self, op: GroupOp, tile: Tile, v: Val, head: Val) -> Result<Val, BuildError> {
        let imm = Imm::Group { op, tile, inclusive: true };
        self.op_val(Location::caller(), Opcode::SegmentedReduce, imm, &[v, head], None)
    }

    // ---- barriers and fences ------------------------------------------------------------------

    /// Subgroup execution barrier.
    #[track_caller]
    pub fn subgroup_sync(&mut self) -> Result<(), BuildError> {
        self.op_effect(Location::caller(), Opcode::SubgroupSync, Imm::None, &[])
    }
    /// Block barrier (`__syncthreads`).
    #[track_caller]
    pub fn block_sync(&mut self) -> Result<(), BuildError> {
        self.op_effect(Location::caller(), Opcode::BlockSync, Imm::None, &[])
    }
    /// Block barrier combining `p` over the block (`and`/`or` → bool, `count` → u32).
    #[track_caller]
    pub fn block_sync_pred(&mut self, op: PredOp, p: Val) -> Result<Val, BuildError> {
        self.op_val(Location::caller(), Opcode::BlockSyncPred, Imm::Pred(op), &[p], None)
    }
    /// Memory fence with a scope.
    #[track_caller]
    pub fn fence(&mut self, scope: Scope) -> Result<(), BuildError> {
        self.op_effect(Location::caller(), Opcode::Fence, Imm::Scope(scope), &[])
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
