//! Pointers whose buffer is known at compile time: a cheaper `ptr.offset` and access check.
//!
//! A kernel parameter's pointer is always its own buffer at offset 0 (the launch encodes
//! parameter `k` as buffer `k`, offset 0), and `shared_addr @a` is shared array `a` at offset 0.
//! A `ptr.offset` of such a pointer by a 32-bit index (`u32`, `i32` or `bool`) moves it by at most
//! `2^32 · 8 = 2^35` bytes, inside the encoding's ±2^39 range, so it is never poisoned. For these
//! pointers the general code — decode the buffer id from the pointer, bound it, load the table
//! entry, check poison and alignment — reduces to: the entry's base and length (loaded once at
//! kernel entry), the byte offset (the scaled index), one bounds compare. Alignment holds by
//! construction (offset 0 plus whole elements of the pointee type the access uses). Faults keep
//! the general path's report: the pointer bits are still computed, for the message.

use super::Lower;
use crate::abi::off;
use cranelift_codegen::ir::{self, types, InstBuilder, MemFlagsData};
use cranelift_entity::SecondaryMap;
use qd_mir::ops::MemoryOp;
use qd_mir::{AddrSpace, Function, Inst, ScalarType, Type, Value};

/// Where a pointer value points, when the compiler knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Prov {
    /// The memory-table entry: the parameter index of a global buffer, `nparams + i` for shared
    /// array `i`.
    pub slot: u32,
    /// Offset 0 exactly (a parameter or `shared_addr`), not a `ptr.offset` of one.
    pub exact: bool,
}

/// The known pointers of `f`.
pub(super) fn analyse(f: &Function) -> SecondaryMap<Value, Option<Prov>> {
    let mut prov: SecondaryMap<Value, Option<Prov>> = SecondaryMap::with_capacity(f.values.len());
    for (k, p) in f.params.iter().enumerate() {
        if let Type::Ptr(AddrSpace::Global, _) = p.ty {
            prov[p.value] = Some(Prov { slot: k as u32, exact: true });
        }
    }
    let nparams = f.params.len() as u32;
    for (inst, data) in f.insts.iter() {
        if data.opcode.memory() != Some(MemoryOp::SharedAddr) {
            continue;
        }
        let qd_mir::inst::Imm::Shared(arr) = data.imm else { continue };
        let (Some(id), Some(&r)) = (f.shared.keys().position(|k| k == arr), f.inst_results(inst).first()) else {
            continue;
        };
        prov[r] = Some(Prov { slot: nparams + id as u32, exact: true });
    }
    for (inst, data) in f.insts.iter() {
        if data.opcode.memory() != Some(MemoryOp::PtrOffset) {
            continue;
        }
        let (&[p, i], Some(&r)) = (f.args(inst), f.inst_results(inst).first()) else { continue };
        let narrow = matches!(f.values[i].ty, Type::Scalar(ScalarType::U32 | ScalarType::I32 | ScalarType::Bool));
        if let (Some(Prov { slot, exact: true }), true) = (prov[p], narrow) {
            prov[r] = Some(Prov { slot, exact: false });
        }
    }
    prov
}

impl Lower<'_, '_> {
    /// Loads every table entry a known pointer uses, at kernel entry: `(base, len)` per slot.
    pub(super) fn load_known_entries(&mut self) {
        let mut slots: Vec<u32> = self.prov.values().filter_map(|p| p.map(|p| p.slot)).collect();
        slots.sort_unstable();
        slots.dedup();
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        for s in slots {
            let at = i64::from(s) * off::MEM_DESC;
            let base = self.b.ins().load(types::I64, flags, self.mem, at as i32);
            let len = self.b.ins().load(types::I64, flags, self.mem, at as i32 + off::MEM_LEN);
            self.entries.insert(s, (base, len));
        }
    }

    /// The provenance of the pointer an access instruction uses (its first operand).
    pub(super) fn access_prov(&self, inst: Inst) -> Option<Prov> {
        let &p = self.f.args(inst).first()?;
        self.prov[p]
    }

    /// `ptr.offset` of a known base by a 32-bit index: never poisoned, so the new pointer is the
    /// base's bits with the scaled index as its offset. Remembers the offset for the access.
    pub(super) fn known_ptr_offset(&mut self, p: ir::Value, i: ir::Value, it: ScalarType, bytes: u32) -> ir::Value {
        let idx = match it {
            ScalarType::I32 => self.b.ins().sextend(types::I64, i),
            _ => self.b.ins().uextend(types::I64, i),
        };
        let scaled = self.b.ins().imul_imm_s(idx, i64::from(bytes));
        let mask = (1i64 << 40) - 1;
        let lo = self.b.ins().band_imm_s(scaled, mask);
        let hi = self.b.ins().band_imm_s(p, !mask);
        let q = self.b.ins().bor(hi, lo);
        self.known_offsets.insert(q, scaled);
        q
    }

    /// The checked native address of an access through a known pointer `p` (bits) to `slot`.
    pub(super) fn known_address(
        &mut self,
        p: ir::Value,
        prov: Prov,
        bytes: u32,
        inst: Inst,
        lane: ir::Value,
        on: super::OnFault,
    ) -> Option<ir::Value> {
        let &(base, len) = self.entries.get(&prov.slot)?;
        let offset = match self.known_offsets.get(&p) {
            Some(&o) => o,
            None => {
                let sh = self.b.ins().ishl_imm_s(p, 24);
                self.b.ins().sshr_imm_s(sh, 24)
            }
        };
        // `offset + bytes <= len`, with len a multiple of the element size: `offset < len`.
        let oob = self.b.ins().icmp(ir::condcodes::IntCC::UnsignedGreaterThanOrEqual, offset, len);
        self.fault_if(oob, crate::helpers::code::ACCESS, inst, lane, p, bytes, on);
        Some(self.b.ins().iadd(base, offset))
    }
}
