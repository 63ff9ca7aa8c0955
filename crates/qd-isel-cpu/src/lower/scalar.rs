//! One lane's (or one uniform) computation of the lane-local instructions: constants,
//! arithmetic with MIR's exact integer and float rules, compares, casts, bitcasts, lane indices,
//! and the memory reads of fused loops (through `memory.rs`).
//!
//! Where a native instruction differs from MIR's definition the code says so and fixes it up:
//! shifts by the width or more (Cranelift masks the amount), `INT_MIN / -1` (a hardware trap),
//! float `min`/`max` (IEEE minNum with ordered zeros; a NaN operand goes to the host, which
//! computes what the interpreter computes), `fma` and float `rem` (the host's `mul_add` and `%`).

use super::{cl_scalar, cl_type, Lower, OnFault, TARGET};
use crate::helpers;
use cranelift_codegen::ir::{
    self, condcodes::FloatCC, condcodes::IntCC, immediates::Ieee32, immediates::Ieee64, types, InstBuilder,
    MemFlagsData,
};
use qd_mir::inst::Imm;
use qd_mir::ops::{BinOp, CmpCond, Dim, IndexOp, LaneMask, MemoryOp, OpClass, UnOp};
use qd_mir::{CompileError, Inst, ScalarType, Type};

impl Lower<'_, '_> {
    /// The results of a lane-local instruction for one lane (`lane`: an `i64`), from its operands.
    pub(super) fn scalar_inst(
        &mut self,
        inst: Inst,
        args: &[ir::Value],
        lane: ir::Value,
        on: OnFault,
    ) -> Result<Vec<ir::Value>, CompileError> {
        let f = self.f;
        let data = &f.insts[inst];
        let op = data.opcode;
        let res_ty = self.f.inst_results(inst).first().map(|&v| self.ty(v));
        let bad = || CompileError::internal(TARGET, format!("malformed `{op}`")).at(inst);
        let arg_ty = |k: usize| self.f.args(inst).get(k).map(|&v| self.f.values[v].ty);
        let r = match op.class() {
            OpClass::Const => {
                let (Imm::Const(bits), Some(t)) = (data.imm, res_ty) else { return Err(bad()) };
                self.constant(t, bits)
            }
            OpClass::Binary(b) => {
                let (&[x, y], Some(Type::Scalar(t))) = (args, res_ty) else { return Err(bad()) };
                self.binary(b, t, x, y, inst, lane, on)?
            }
            OpClass::Unary(u) => {
                let (&[x], Some(Type::Scalar(t))) = (args, res_ty) else { return Err(bad()) };
                self.unary(u, t, x)
            }
            OpClass::Fma => {
                let (&[x, y, z], Some(t @ Type::Scalar(s))) = (args, res_ty) else { return Err(bad()) };
                self.fma(t, s, x, y, z)
            }
            OpClass::Select => {
                let &[c, x, y] = args else { return Err(bad()) };
                self.b.ins().select(c, x, y)
            }
            OpClass::Cmp => {
                let (Imm::Cond(cond), &[x, y], Some(Type::Scalar(t))) = (data.imm, args, arg_ty(0)) else {
                    return Err(bad());
                };
                self.compare(cond, t, x, y)
            }
            OpClass::Cast => {
                let (&[x], Some(Type::Scalar(from)), Some(Type::Scalar(to))) = (args, arg_ty(0), res_ty) else {
                    return Err(bad());
                };
                self.cast(from, to, x)
            }
            OpClass::Bitcast => {
                let (&[x], Some(from), Some(to)) = (args, arg_ty(0), res_ty) else { return Err(bad()) };
                if cl_type(from) == cl_type(to) {
                    x
                } else {
                    self.b.ins().bitcast(cl_type(to), MemFlagsData::new(), x)
                }
            }
            OpClass::Memory(m) => match m {
                MemoryOp::SharedAddr => {
                    let Imm::Shared(arr) = data.imm else { return Err(bad()) };
                    let id = self.f.shared.keys().position(|k| k == arr).ok_or_else(bad)?;
                    let p = qd_mir::interp::pointer::encode(qd_mir::AddrSpace::Shared, id as u32, 0);
                    self.b.ins().iconst(types::I64, p as i64)
                }
                MemoryOp::PtrOffset => {
                    let (&[p, i], Some(Type::Ptr(_, elem)), Some(Type::Scalar(it))) = (args, res_ty, arg_ty(1)) else {
                        return Err(bad());
                    };
                    let known = f.inst_results(inst).first().and_then(|&r| self.prov[r]).is_some();
                    if known {
                        self.known_ptr_offset(p, i, it, elem.bytes())
                    } else {
                        self.ptr_offset(p, i, it, elem.bytes())
                    }
                }
                MemoryOp::Load => {
                    let (&[p], Some(Type::Ptr(space, elem))) = (args, arg_ty(0)) else { return Err(bad()) };
                    self.load(p, space, elem, inst, lane, on)
                }
                MemoryOp::Store | MemoryOp::AtomicRmw | MemoryOp::AtomicCas => return Err(bad()),
            },
            OpClass::Index(ix) => self.index(ix, data.imm, lane)?,
            OpClass::Exchange(_)
            | OpClass::Collective(_)
            | OpClass::Sync(_)
            | OpClass::If
            | OpClass::Loop
            | OpClass::Terminator(_) => return Err(bad()),
        };
        Ok(vec![r])
    }

    /// `fma` with one rounding: the machine's (or the C library's) fused multiply-add, which is
    /// correctly rounded like the interpreter's `mul_add`; a NaN result, whose payload the two
    /// may choose differently, is recomputed by the host exactly as the interpreter does.
    fn fma(&mut self, t: Type, s: ScalarType, x: ir::Value, y: ir::Value, z: ir::Value) -> ir::Value {
        let r = self.b.ins().fma(x, y, z);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let out = self.b.append_block_param(join, cl_scalar(s));
        self.b.ins().brif(nan, slow, &[], join, &[ir::BlockArg::Value(r)]);
        self.b.switch_to_block(slow);
        self.b.set_cold_block(slow);
        let bits: Vec<ir::Value> = [x, y, z].iter().map(|&v| self.bits_of(t, v)).collect();
        let w = self.b.ins().iconst(types::I32, i64::from(s.bits()));
        let h = self.call_helper(self.sigs.fma, helpers::qd_fma as *const (), &[w, bits[0], bits[1], bits[2]]);
        let h = h.unwrap_or(bits[0]);
        let v = self.value_of_bits(t, h);
        self.jump_with(join, v);
        self.b.switch_to_block(join);
        out
    }

    fn constant(&mut self, t: Type, bits: u64) -> ir::Value {
        let ins = self.b.ins();
        match t {
            Type::Scalar(ScalarType::F32) => ins.f32const(Ieee32::with_bits(bits as u32)),
            Type::Scalar(ScalarType::F64) => ins.f64const(Ieee64::with_bits(bits)),
            Type::Scalar(ScalarType::Bool) => ins.iconst(types::I8, (bits & 1) as i64),
            Type::Scalar(ScalarType::I32 | ScalarType::U32) => ins.iconst(types::I32, i64::from(bits as u32)),
            Type::Scalar(ScalarType::I64 | ScalarType::U64) | Type::Ptr(..) => ins.iconst(types::I64, bits as i64),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        op: BinOp,
        t: ScalarType,
        x: ir::Value,
        y: ir::Value,
        inst: Inst,
        lane: ir::Value,
        on: OnFault,
    ) -> Result<ir::Value, CompileError> {
        if t.is_float() {
            return Ok(self.float_binary(op, t, x, y));
        }
        let ct = cl_scalar(t);
        let bits = i64::from(t.bits());
        let signed = t.is_signed();
        let ins = self.b.ins();
        Ok(match op {
            BinOp::Add => ins.iadd(x, y),
            BinOp::Sub => ins.isub(x, y),
            BinOp::Mul => ins.imul(x, y),
            BinOp::And => ins.band(x, y),
            BinOp::Or => ins.bor(x, y),
            BinOp::Xor => ins.bxor(x, y),
            BinOp::Min if signed => ins.smin(x, y),
            BinOp::Min => ins.umin(x, y),
            BinOp::Max if signed => ins.smax(x, y),
            BinOp::Max => ins.umax(x, y),
            BinOp::Shl => {
                let s = ins.ishl(x, y);
                let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, y, bits);
                let z = self.b.ins().iconst(ct, 0);
                self.b.ins().select(big, z, s)
            }
            BinOp::Shr if signed => {
                let lim = ins.iconst(ct, bits - 1);
                let amt = self.b.ins().umin(y, lim);
                self.b.ins().sshr(x, amt)
            }
            BinOp::Shr => {
                let s = ins.ushr(x, y);
                let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, y, bits);
                let z = self.b.ins().iconst(ct, 0);
                self.b.ins().select(big, z, s)
            }
            BinOp::Div | BinOp::Rem => {
                let zero = ins.icmp_imm_s(IntCC::Equal, y, 0);
                let unused = self.b.ins().iconst(types::I64, 0);
                self.fault_if(zero, helpers::code::DIV_ZERO, inst, lane, unused, 0, on);
                if signed {
                    // INT_MIN / -1 traps in hardware; MIR wraps (quotient INT_MIN, remainder 0).
                    let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                    let one = self.b.ins().iconst(ct, 1);
                    let safe = self.b.ins().select(m1, one, y);
                    if op == BinOp::Div {
                        let q = self.b.ins().sdiv(x, safe);
                        let n = self.b.ins().ineg(x);
                        self.b.ins().select(m1, n, q)
                    } else {
                        let r = self.b.ins().srem(x, safe);
                        let z = self.b.ins().iconst(ct, 0);
                        self.b.ins().select(m1, z, r)
                    }
                } else if op == BinOp::Div {
                    self.b.ins().udiv(x, y)
                } else {
                    self.b.ins().urem(x, y)
                }
            }
        })
    }

    pub(super) fn float_binary(&mut self, op: BinOp, t: ScalarType, x: ir::Value, y: ir::Value) -> ir::Value {
        let ct = cl_scalar(t);
        let ins = self.b.ins();
        match op {
            BinOp::Add => ins.fadd(x, y),
            BinOp::Sub => ins.fsub(x, y),
            BinOp::Mul => ins.fmul(x, y),
            BinOp::Div => ins.fdiv(x, y),
            BinOp::Rem => self.host_float(0, t, x, y),
            BinOp::Min | BinOp::Max => {
                // Ordered operands inline; a NaN operand on the host's exact path.
                let unord = ins.fcmp(FloatCC::Unordered, x, y);
                let (slow, fast) = (self.b.create_block(), self.b.create_block());
                let (join, r) = self.join_block(ct);
                self.b.ins().brif(unord, slow, &[], fast, &[]);
                self.b.switch_to_block(slow);
                self.b.set_cold_block(slow);
                let s = self.host_float(if op == BinOp::Min { 1 } else { 2 }, t, x, y);
                self.jump_with(join, s);
                self.b.switch_to_block(fast);
                let it = if t == ScalarType::F32 { types::I32 } else { types::I64 };
                let xb = self.b.ins().bitcast(it, MemFlagsData::new(), x);
                let yb = self.b.ins().bitcast(it, MemFlagsData::new(), y);
                let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
                let (zero_fix, pick) = if op == BinOp::Min {
                    (self.b.ins().bor(xb, yb), self.b.ins().fcmp(FloatCC::LessThan, x, y))
                } else {
                    (self.b.ins().band(xb, yb), self.b.ins().fcmp(FloatCC::GreaterThan, x, y))
                };
                let zf = self.b.ins().bitcast(ct, MemFlagsData::new(), zero_fix);
                let chosen = self.b.ins().select(pick, x, y);
                let v = self.b.ins().select(eq, zf, chosen);
                self.jump_with(join, v);
                self.b.switch_to_block(join);
                r
            }
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => x,
        }
    }

    /// A float op computed by the host (`qd_float_binop`).
    fn host_float(&mut self, code: u32, t: ScalarType, x: ir::Value, y: ir::Value) -> ir::Value {
        let ty = Type::Scalar(t);
        let (xb, yb) = (self.bits_of(ty, x), self.bits_of(ty, y));
        let c = self.b.ins().iconst(types::I32, i64::from(code));
        let w = self.b.ins().iconst(types::I32, i64::from(t.bits()));
        let r = self.call_helper(self.sigs.float_binop, helpers::qd_float_binop as *const (), &[c, w, xb, yb]);
        let r = r.unwrap_or(xb);
        self.value_of_bits(ty, r)
    }

    fn unary(&mut self, op: UnOp, t: ScalarType, x: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        if t.is_float() {
            return match op {
                UnOp::Neg => ins.fneg(x),
                UnOp::Abs => ins.fabs(x),
                UnOp::Sqrt => ins.sqrt(x),
                UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => x,
            };
        }
        if t == ScalarType::Bool {
            return match op {
                UnOp::Not => ins.bxor_imm_s(x, 1),
                UnOp::Neg | UnOp::Abs | UnOp::Sqrt | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => x,
            };
        }
        match op {
            UnOp::Neg => ins.ineg(x),
            UnOp::Abs if t.is_signed() => ins.iabs(x),
            UnOp::Abs => x,
            UnOp::Not => ins.bnot(x),
            UnOp::Clz => ins.clz(x),
            UnOp::Popcount => ins.popcnt(x),
            UnOp::Bitrev => ins.bitrev(x),
            UnOp::Sqrt => x,
        }
    }

    fn compare(&mut self, cond: CmpCond, t: ScalarType, x: ir::Value, y: ir::Value) -> ir::Value {
        let ins = self.b.ins();
        if t.is_float() {
            let cc = match cond {
                CmpCond::Eq => FloatCC::Equal,
                CmpCond::Ne => FloatCC::NotEqual,
                CmpCond::Lt => FloatCC::LessThan,
                CmpCond::Le => FloatCC::LessThanOrEqual,
                CmpCond::Gt => FloatCC::GreaterThan,
                CmpCond::Ge => FloatCC::GreaterThanOrEqual,
            };
            return ins.fcmp(cc, x, y);
        }
        let s = t.is_signed();
        let cc = match cond {
            CmpCond::Eq => IntCC::Equal,
            CmpCond::Ne => IntCC::NotEqual,
            CmpCond::Lt if s => IntCC::SignedLessThan,
            CmpCond::Lt => IntCC::UnsignedLessThan,
            CmpCond::Le if s => IntCC::SignedLessThanOrEqual,
            CmpCond::Le => IntCC::UnsignedLessThanOrEqual,
            CmpCond::Gt if s => IntCC::SignedGreaterThan,
            CmpCond::Gt => IntCC::UnsignedGreaterThan,
            CmpCond::Ge if s => IntCC::SignedGreaterThanOrEqual,
            CmpCond::Ge => IntCC::UnsignedGreaterThanOrEqual,
        };
        ins.icmp(cc, x, y)
    }

    fn cast(&mut self, from: ScalarType, to: ScalarType, x: ir::Value) -> ir::Value {
        use ScalarType as S;
        let ct = cl_scalar(to);
        if from == to {
            return x;
        }
        let ins = self.b.ins();
        if to == S::Bool {
            return match from {
                S::F32 => {
                    let z = ins.f32const(0.0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                }
                S::F64 => {
                    let z = ins.f64const(0.0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                }
                S::Bool | S::I32 | S::U32 | S::I64 | S::U64 => ins.icmp_imm_s(IntCC::NotEqual, x, 0),
            };
        }
        match (from, to) {
            (S::F32, S::F64) => ins.fpromote(types::F64, x),
            (S::F64, S::F32) => ins.fdemote(types::F32, x),
            (S::F32 | S::F64, S::I32 | S::I64) => ins.fcvt_to_sint_sat(ct, x),
            (S::F32 | S::F64, S::U32 | S::U64) => ins.fcvt_to_uint_sat(ct, x),
            (S::Bool | S::U32 | S::U64, S::F32 | S::F64) => {
                let v = if from == S::Bool { ins.uextend(types::I32, x) } else { x };
                self.b.ins().fcvt_from_uint(ct, v)
            }
            (S::I32 | S::I64, S::F32 | S::F64) => ins.fcvt_from_sint(ct, x),
            (S::Bool | S::I32 | S::U32 | S::I64 | S::U64, S::I32 | S::U32 | S::I64 | S::U64) => {
                let (fb, tb) = (cl_scalar(from).bits(), ct.bits());
                if fb == tb {
                    x
                } else if fb > tb {
                    ins.ireduce(ct, x)
                } else if from.is_signed() {
                    ins.sextend(ct, x)
                } else {
                    ins.uextend(ct, x)
                }
            }
            // Same-type and to-bool casts returned above.
            (_, S::Bool) | (S::F32, S::F32) | (S::F64, S::F64) => x,
        }
    }

    /// `ptr.offset`: exactly the interpreter's `pointer::offset` (a result outside the signed
    /// 40-bit offset range poisons the pointer, keeping its old offset).
    fn ptr_offset(&mut self, p: ir::Value, i: ir::Value, it: ScalarType, bytes: u32) -> ir::Value {
        let ins = self.b.ins();
        // The index as i64, and whether it is too far for any in-range result.
        let (idx, far) = match it {
            ScalarType::I32 => (ins.sextend(types::I64, i), None),
            ScalarType::U32 | ScalarType::Bool => (ins.uextend(types::I64, i), None),
            ScalarType::I64 => {
                let shifted = ins.iadd_imm_s(i, 1 << 40);
                let far = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, shifted, 1 << 41);
                (i, Some(far))
            }
            ScalarType::U64 | ScalarType::F32 | ScalarType::F64 => {
                let far = ins.icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, 1 << 40);
                (i, Some(far))
            }
        };
        let sh = self.b.ins().ishl_imm_s(p, 24);
        let off = self.b.ins().sshr_imm_s(sh, 24);
        let scaled = self.b.ins().imul_imm_s(idx, i64::from(bytes));
        let new = self.b.ins().iadd(off, scaled);
        let biased = self.b.ins().iadd_imm_s(new, 1 << 39);
        let mut poison = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, biased, 1 << 40);
        if let Some(far) = far {
            poison = self.b.ins().bor(poison, far);
        }
        let mask = (1i64 << 40) - 1;
        let hi = self.b.ins().band_imm_s(p, !mask);
        let lo = self.b.ins().band_imm_s(new, mask);
        let moved = self.b.ins().bor(hi, lo);
        let poisoned = self.b.ins().bor_imm_s(p, 1 << 61);
        self.b.ins().select(poison, poisoned, moved)
    }

    fn index(&mut self, ix: IndexOp, imm: Imm, lane: ir::Value) -> Result<ir::Value, CompileError> {
        let i32t = types::I32;
        let w = self.w;
        Ok(match ix {
            IndexOp::BlockId | IndexOp::BlockDim | IndexOp::GridDim => {
                let Imm::Dim(d) = imm else {
                    return Err(CompileError::internal(TARGET, "index op without a dimension"));
                };
                self.dim_of(ix, d.index())
                    .ok_or_else(|| CompileError::internal(TARGET, "index op without a geometry"))?
            }
            IndexOp::ThreadId => {
                let Imm::Dim(d) = imm else {
                    return Err(CompileError::internal(TARGET, "thread_id without a dimension"));
                };
                let l32 = self.b.ins().ireduce(i32t, lane);
                let lin = self.b.ins().iadd(self.geo.first_thread, l32);
                let [bx, by, _] = self.geo.block_dim;
                match d {
                    Dim::X => self.b.ins().urem(lin, bx),
                    Dim::Y => {
                        let q = self.b.ins().udiv(lin, bx);
                        self.b.ins().urem(q, by)
                    }
                    Dim::Z => {
                        let bxy = self.b.ins().imul(bx, by);
                        self.b.ins().udiv(lin, bxy)
                    }
                }
            }
            IndexOp::LaneId => self.b.ins().ireduce(i32t, lane),
            IndexOp::SubgroupId => self.geo.subgroup_id,
            IndexOp::SubgroupSize => self.b.ins().iconst(i32t, i64::from(w)),
            IndexOp::LaneMask(k) => {
                let all = if w >= 64 { -1i64 } else { (1i64 << w) - 1 };
                let one = self.b.ins().iconst(types::I64, 1);
                let two = self.b.ins().iconst(types::I64, 2);
                let eq = self.b.ins().ishl(one, lane);
                // For lane 63, `2 << 63` is 0, so `le` is all ones.
                let le_sh = self.b.ins().ishl(two, lane);
                let lt = self.b.ins().iadd_imm_s(eq, -1);
                let le = self.b.ins().iadd_imm_s(le_sh, -1);
                let r = match k {
                    LaneMask::Lt => lt,
                    LaneMask::Le => le,
                    LaneMask::Eq => eq,
                    LaneMask::Ge => self.b.ins().bnot(lt),
                    LaneMask::Gt => self.b.ins().bnot(le),
                };
                self.b.ins().band_imm_s(r, all)
            }
        })
    }
}
