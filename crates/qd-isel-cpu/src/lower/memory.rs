//! Memory access: every load, store and atomic checks its pointer inline against the memory
//! table (tag, poison, id, alignment, bounds) before touching memory, so a faulting access is
//! reported — with the interpreter's message, built by the host from the same pointer — and never
//! performed. Stores and atomics run lane by lane in ascending lane order, as in the interpreter;
//! global atomics are the machine's atomics, since blocks run on several threads at once.

use super::{cl_scalar, Home, Lower, OnFault, TARGET};
use crate::abi::off;
use crate::helpers;
use cranelift_codegen::ir::{self, condcodes::IntCC, types, AtomicRmwOp, InstBuilder, MemFlagsData};
use qd_mir::inst::Imm;
use qd_mir::ops::AtomicOp;
use qd_mir::{AddrSpace, CompileError, Inst, ScalarType, Type, Value};

impl Lower<'_, '_> {
    /// Checks an access of one `elem` through pointer `p` in `space` and gives its native address.
    pub(super) fn address(
        &mut self,
        p: ir::Value,
        space: AddrSpace,
        elem: ScalarType,
        inst: Inst,
        lane: ir::Value,
        on: OnFault,
    ) -> ir::Value {
        let bytes = elem.bytes();
        if let Some(prov) = self.access_prov(inst) {
            if let Some(a) = self.known_address(p, prov, bytes, inst, lane, on) {
                return a;
            }
        }
        let nparams = self.f.params.len() as i64;
        let (tag, first, count) = match space {
            AddrSpace::Global => (1i64 << 22, 0i64, nparams),
            AddrSpace::Shared => (2i64 << 22, nparams, self.f.shared.len() as i64),
        };
        let hi = self.b.ins().ushr_imm_s(p, 40);
        let idx = self.b.ins().iadd_imm_s(hi, -tag);
        let bad_id = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, idx, count);
        // A bad id reads the table's entry 0 of the space (the table always has one more entry
        // than it needs, so this stays inside it) and faults below all the same.
        let zero = self.b.ins().iconst(types::I64, 0);
        let idx = self.b.ins().select(bad_id, zero, idx);
        let slot = self.b.ins().iadd_imm_s(idx, first);
        let at = self.b.ins().imul_imm_s(slot, off::MEM_DESC);
        let ent = self.b.ins().iadd(self.mem, at);
        // The table does not change during a launch: its loads may move out of loops.
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        let base = self.b.ins().load(types::I64, flags, ent, 0);
        let len = self.b.ins().load(types::I64, flags, ent, off::MEM_LEN);
        let sh = self.b.ins().ishl_imm_s(p, 24);
        let offset = self.b.ins().sshr_imm_s(sh, 24);
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, offset, len);
        let mut bad = self.b.ins().bor(bad_id, oob);
        if bytes > 1 {
            let mis = self.b.ins().band_imm_s(offset, i64::from(bytes) - 1);
            let mis = self.b.ins().icmp_imm_s(IntCC::NotEqual, mis, 0);
            bad = self.b.ins().bor(bad, mis);
        }
        self.fault_if(bad, helpers::code::ACCESS, inst, lane, p, bytes, on);
        self.b.ins().iadd(base, offset)
    }

    /// A checked load of one `elem`.
    pub(super) fn load(
        &mut self,
        p: ir::Value,
        space: AddrSpace,
        elem: ScalarType,
        inst: Inst,
        lane: ir::Value,
        on: OnFault,
    ) -> ir::Value {
        let a = self.address(p, space, elem, inst, lane, on);
        let flags = MemFlagsData::trusted();
        if elem == ScalarType::Bool {
            let byte = self.b.ins().uload8(types::I32, flags, a, 0);
            self.b.ins().icmp_imm_s(IntCC::NotEqual, byte, 0)
        } else {
            self.b.ins().load(cl_scalar(elem), flags, a, 0)
        }
    }

    /// Stores a result for lane `lane` (or defines a uniform one).
    fn set_lane(&mut self, v: Value, lane: ir::Value, x: ir::Value) -> Result<(), CompileError> {
        match self.home(v)? {
            Home::Uniform(var) => self.b.def_var(var, x),
            Home::Lanes(slot) => {
                let bits = self.bits_of(self.ty(v), x);
                self.store_lane(slot, lane, bits);
            }
        }
        Ok(())
    }

    /// `store %p, %v`, lane by lane.
    pub(super) fn store(&mut self, inst: Inst) -> Result<(), CompileError> {
        let &[p, v] = self.f.args(inst) else {
            return Err(CompileError::internal(TARGET, "malformed `store`").at(inst));
        };
        let Type::Ptr(space, elem) = self.ty(p) else {
            return Err(CompileError::internal(TARGET, "`store` through a non-pointer").at(inst));
        };
        self.active_lane_loop(|l, lane| {
            let pv = l.lane_value(p, lane)?;
            let x = l.lane_value(v, lane)?;
            let a = l.address(pv, space, elem, inst, lane, OnFault::Return);
            // A bool register is an i8 holding 0 or 1: the byte MIR stores.
            l.b.ins().store(MemFlagsData::trusted(), x, a, 0);
            Ok(())
        })
    }

    /// `atomic.rmw` / `atomic.cas`, lane by lane in ascending order.
    pub(super) fn atomic(&mut self, inst: Inst) -> Result<(), CompileError> {
        let f = self.f;
        let data = &f.insts[inst];
        let args: Vec<Value> = self.f.args(inst).to_vec();
        let (Some(&p), Some(&r)) = (args.first(), self.f.inst_results(inst).first()) else {
            return Err(CompileError::internal(TARGET, "malformed atomic").at(inst));
        };
        let Type::Ptr(space, elem) = self.ty(p) else {
            return Err(CompileError::internal(TARGET, "atomic through a non-pointer").at(inst));
        };
        if elem == ScalarType::Bool {
            return Err(
                CompileError::unsupported(TARGET, Some(data.opcode), Some(Type::BOOL), "atomics on bool").at(inst)
            );
        }
        let it = if elem.bits() == 32 { types::I32 } else { types::I64 };
        let t = Type::Scalar(elem);
        self.active_lane_loop(|l, lane| {
            let pv = l.lane_value(p, lane)?;
            let a = l.address(pv, space, elem, inst, lane, OnFault::Return);
            let flags = MemFlagsData::trusted();
            let old_bits = match data.imm {
                Imm::Atomic(op, _) => {
                    let v = l.lane_value(args[1], lane)?;
                    let vb = l.bits_of(t, v);
                    let vi = if it == types::I32 { l.b.ins().ireduce(types::I32, vb) } else { vb };
                    match (op, elem.is_float()) {
                        (AtomicOp::Add, true) => l.float_add_loop(a, it, elem, v),
                        (AtomicOp::Exch, _) => l.b.ins().atomic_rmw(it, flags, AtomicRmwOp::Xchg, a, vi),
                        (op, _) => {
                            let s = elem.is_signed();
                            let rop = match op {
                                AtomicOp::Add => AtomicRmwOp::Add,
                                AtomicOp::Min if s => AtomicRmwOp::Smin,
                                AtomicOp::Min => AtomicRmwOp::Umin,
                                AtomicOp::Max if s => AtomicRmwOp::Smax,
                                AtomicOp::Max => AtomicRmwOp::Umax,
                                AtomicOp::And => AtomicRmwOp::And,
                                AtomicOp::Or => AtomicRmwOp::Or,
                                AtomicOp::Xor => AtomicRmwOp::Xor,
                                AtomicOp::Exch => AtomicRmwOp::Xchg,
                            };
                            l.b.ins().atomic_rmw(it, flags, rop, a, vi)
                        }
                    }
                }
                Imm::Scope(_) => {
                    let (e, n) = (l.lane_value(args[1], lane)?, l.lane_value(args[2], lane)?);
                    let (eb, nb) = (l.bits_of(t, e), l.bits_of(t, n));
                    let (eb, nb) = if it == types::I32 {
                        (l.b.ins().ireduce(types::I32, eb), l.b.ins().ireduce(types::I32, nb))
                    } else {
                        (eb, nb)
                    };
                    l.b.ins().atomic_cas(flags, a, eb, nb)
                }
                _ => return Err(CompileError::internal(TARGET, "malformed atomic immediate").at(inst)),
            };
            let old_bits = if it == types::I32 { l.b.ins().uextend(types::I64, old_bits) } else { old_bits };
            let old = l.value_of_bits(t, old_bits);
            l.set_lane(r, lane, old)
        })
    }

    /// An atomic float add as a compare-exchange loop; gives the old bits (as `it`).
    fn float_add_loop(&mut self, a: ir::Value, it: ir::Type, elem: ScalarType, v: ir::Value) -> ir::Value {
        let flags = MemFlagsData::trusted();
        let ft = cl_scalar(elem);
        let first = self.b.ins().atomic_load(it, flags, a);
        let (head, head_old) = self.join_block(it);
        let (done, done_old) = self.join_block(it);
        self.jump_with(head, first);
        self.b.switch_to_block(head);
        let of = self.b.ins().bitcast(ft, MemFlagsData::new(), head_old);
        let sum = self.b.ins().fadd(of, v);
        let sb = self.b.ins().bitcast(it, MemFlagsData::new(), sum);
        let prev = self.b.ins().atomic_cas(flags, a, head_old, sb);
        let same = self.b.ins().icmp(IntCC::Equal, prev, head_old);
        self.b.ins().brif(same, done, &[ir::BlockArg::Value(prev)], head, &[ir::BlockArg::Value(prev)]);
        self.b.switch_to_block(done);
        done_old
    }
}
