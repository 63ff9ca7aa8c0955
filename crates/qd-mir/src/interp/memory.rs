//! Interpreter memory: global buffers (the kernel's buffer arguments), per-block shared arrays,
//! the interpreter-private pointer encoding, and bounds-checked loads, stores and atomics.
//!
//! # Pointer encoding (interpreter-private)
//!
//! A pointer register holds a `u64`:
//!
//! ```text
//!  63..62  space tag: 1 = global, 2 = shared (0 and 3 are not pointers: access faults)
//!  61      poison: an offset computation left the representable range (access faults)
//!  60..40  id: the kernel parameter index (global) or the shared array index (shared)
//!  39..0   byte offset, signed 40-bit two's complement
//! ```
//!
//! `ptr.offset` adds `index × element size` exactly (in `i128`); a result outside the signed
//! 40-bit range sets the sticky poison bit instead of wrapping, so a wild index can never alias a
//! valid element. Pointers are checked only when dereferenced: misaligned offsets (not a multiple
//! of the element size) and out-of-bounds offsets fault, naming the buffer parameter (`%buf`) or
//! shared array (`@tile`) and the element index.
//!
//! Memory is bytes, little-endian; a `bool` element is one byte (stores write 0/1, loads read
//! "byte != 0"). Global buffers are the caller's `Buffer`s, updated in place. Shared arrays are
//! allocated per launch and zero-filled at the start of every block.

use super::Buffer;
use crate::eval::{self, EvalError};
use crate::ops::{AtomicOp, BinOp};
use crate::types::{AddrSpace, ScalarType};

const TAG_SHIFT: u32 = 62;
const TAG_GLOBAL: u64 = 1;
const TAG_SHARED: u64 = 2;
const POISON: u64 = 1 << 61;
const ID_SHIFT: u32 = 40;
const ID_MASK: u64 = (1 << 21) - 1;
const OFF_BITS: u32 = 40;
const OFF_MASK: u64 = (1 << OFF_BITS) - 1;
/// Largest number of buffer parameters / shared arrays a pointer can name.
pub const MAX_IDS: usize = 1 << 21;

/// Encodes a pointer to byte offset `off` of global buffer parameter / shared array `id`.
pub fn encode(space: AddrSpace, id: u32, off: i64) -> u64 {
    let tag = match space {
        AddrSpace::Global => TAG_GLOBAL,
        AddrSpace::Shared => TAG_SHARED,
    };
    (tag << TAG_SHIFT) | ((u64::from(id) & ID_MASK) << ID_SHIFT) | (off as u64 & OFF_MASK)
}

/// `ptr.offset`: the pointer `index × elem_bytes` bytes after `ptr` (poisoned when the offset
/// leaves the representable range).
pub fn offset(ptr: u64, index: i128, elem_bytes: u32) -> u64 {
    let off = sign_extend(ptr & OFF_MASK);
    let new = i128::from(off) + index * i128::from(elem_bytes);
    let limit = 1i128 << (OFF_BITS - 1);
    if new < -limit || new >= limit {
        ptr | POISON
    } else {
        (ptr & !OFF_MASK) | (new as u64 & OFF_MASK)
    }
}

fn sign_extend(off: u64) -> i64 {
    ((off << (64 - OFF_BITS)) as i64) >> (64 - OFF_BITS)
}

/// The memory a launch sees.
pub struct Memory<'a> {
    /// Buffer slots (one per argument; `None` for scalar arguments).
    slots: Vec<Option<&'a mut Buffer>>,
    /// Per kernel parameter: the slot of its buffer (`None` for scalars).
    param_slot: Vec<Option<usize>>,
    /// Per kernel parameter: its name (for fault messages).
    param_names: Vec<String>,
    /// Shared arrays of the current block.
    shared: Vec<Vec<u8>>,
    /// Shared array names.
    shared_names: Vec<String>,
}

/// A resolved element location.
struct Loc {
    space: AddrSpace,
    byte: usize,
}

impl<'a> Memory<'a> {
    /// Memory over buffer `slots`; `param_slot[i]` is the slot kernel parameter `i` refers to.
    pub fn new(
        slots: Vec<Option<&'a mut Buffer>>,
        param_slot: Vec<Option<usize>>,
        param_names: Vec<String>,
        shared_arrays: &[(String, u64)],
    ) -> Memory<'a> {
        let shared = shared_arrays.iter().map(|(_, bytes)| vec![0u8; *bytes as usize]).collect();
        let shared_names = shared_arrays.iter().map(|(n, _)| n.clone()).collect();
        Memory { slots, param_slot, param_names, shared, shared_names }
    }

    /// Zero-fills every shared array (called at the start of each block).
    pub fn reset_shared(&mut self) {
        for s in &mut self.shared {
            s.fill(0);
        }
    }

    fn name(&self, space: AddrSpace, id: usize) -> String {
        match space {
            AddrSpace::Global => {
                format!("%{}", self.param_names.get(id).map(String::as_str).unwrap_or("?"))
            }
            AddrSpace::Shared => format!("@{}", self.shared_names.get(id).map(String::as_str).unwrap_or("?")),
        }
    }

    fn bytes_mut(&mut self, space: AddrSpace, id: usize) -> Option<&mut [u8]> {
        match space {
            AddrSpace::Global => {
                let slot = (*self.param_slot.get(id)?)?;
                self.slots.get_mut(slot)?.as_deref_mut().map(|b| b.data.as_mut_slice())
            }
            AddrSpace::Shared => self.shared.get_mut(id).map(Vec::as_mut_slice),
        }
    }

    /// Resolves a pointer to an element of `bytes` bytes, checking tag, alignment and bounds.
    fn locate(&mut self, ptr: u64, bytes: u32) -> Result<Loc, String> {
        let (space, id) = decode_target(ptr).unwrap_or((AddrSpace::Global, usize::MAX));
        let len = self.bytes_mut(space, id).map(|d| d.len());
        let byte = resolve(ptr, bytes, |s, i| self.name(s, i), |s, i| if (s, i) == (space, id) { len } else { None })?;
        Ok(Loc { space, byte })
    }

    fn read_raw(&mut self, loc: &Loc, id: usize, bytes: u32) -> u64 {
        let Some(data) = self.bytes_mut(loc.space, id) else { return 0 };
        let mut r = 0u64;
        for (k, b) in data.iter().skip(loc.byte).take(bytes as usize).enumerate() {
            r |= u64::from(*b) << (8 * k);
        }
        r
    }

    fn write_raw(&mut self, loc: &Loc, id: usize, bytes: u32, v: u64) {
        if let Some(data) = self.bytes_mut(loc.space, id) {
            for (k, b) in data.iter_mut().skip(loc.byte).take(bytes as usize).enumerate() {
                *b = (v >> (8 * k)) as u8;
            }
        }
    }

    /// Loads one element of type `ty`.
    pub fn load(&mut self, ptr: u64, ty: ScalarType) -> Result<u64, String> {
        let loc = self.locate(ptr, ty.bytes())?;
        let raw = self.read_raw(&loc, id_of(ptr), ty.bytes());
        Ok(from_mem(ty, raw))
    }

    /// Stores one element of type `ty`.
    pub fn store(&mut self, ptr: u64, ty: ScalarType, v: u64) -> Result<(), String> {
        let loc = self.locate(ptr, ty.bytes())?;
        self.write_raw(&loc, id_of(ptr), ty.bytes(), eval::canon(ty, v));
        Ok(())
    }

    /// `atomic.rmw`: applies `op` with `v`, returns the old value.
    pub fn rmw(&mut self, ptr: u64, ty: ScalarType, op: AtomicOp, v: u64) -> Result<u64, String> {
        let new_of = |old: u64| -> Result<u64, String> {
            let bad = || format!("atomic {} is not defined on {ty}", op.name());
            let r = match op {
                AtomicOp::Add if ty.is_numeric() => eval::eval_binop(BinOp::Add, ty, old, v),
                AtomicOp::Min if ty.is_int() => eval::eval_binop(BinOp::Min, ty, old, v),
                AtomicOp::Max if ty.is_int() => eval::eval_binop(BinOp::Max, ty, old, v),
                AtomicOp::And if ty.is_int() => eval::eval_binop(BinOp::And, ty, old, v),
                AtomicOp::Or if ty.is_int() => eval::eval_binop(BinOp::Or, ty, old, v),
                AtomicOp::Xor if ty.is_int() => eval::eval_binop(BinOp::Xor, ty, old, v),
                AtomicOp::Exch if ty != ScalarType::Bool => Ok(eval::canon(ty, v)),
                AtomicOp::Add
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
                | AtomicOp::Exch => Err(EvalError::BadType),
            };
            r.map_err(|_| bad())
        };
        let loc = self.locate(ptr, ty.bytes())?;
        let id = id_of(ptr);
        let old = from_mem(ty, self.read_raw(&loc, id, ty.bytes()));
        let new = new_of(old)?;
        self.write_raw(&loc, id, ty.bytes(), new);
        Ok(old)
    }

    /// `atomic.cas`: stores `new` if the element's bits equal `expected`'s; returns the old value.
    pub fn cas(&mut self, ptr: u64, ty: ScalarType, expected: u64, new: u64) -> Result<u64, String> {
        if ty == ScalarType::Bool {
            return Err("atomic.cas is not defined on bool".into());
        }
        let loc = self.locate(ptr, ty.bytes())?;
        let id = id_of(ptr);
        let old = from_mem(ty, self.read_raw(&loc, id, ty.bytes()));
        if old == eval::canon(ty, expected) {
            self.write_raw(&loc, id, ty.bytes(), eval::canon(ty, new));
        }
        Ok(old)
    }
}

/// The address space and buffer/shared-array id a pointer names, when its tag is a valid one.
pub fn decode_target(ptr: u64) -> Option<(AddrSpace, usize)> {
    let space = match ptr >> TAG_SHIFT {
        TAG_GLOBAL => AddrSpace::Global,
        TAG_SHARED => AddrSpace::Shared,
        _ => return None,
    };
    Some((space, ((ptr >> ID_SHIFT) & ID_MASK) as usize))
}

/// Checks an access of `bytes` bytes through `ptr` and gives its byte offset, or the fault
/// message every device reports for it: an invalid tag, a poisoned offset, a misaligned offset, a
/// pointer to something that is not a buffer, or an index out of bounds. `name(space, id)` names
/// the buffer parameter (`%buf`) or shared array (`@tile`); `len(space, id)` is its length in
/// bytes (`None` when the id is not a buffer or array). The interpreter and the native `cpu`
/// back end both report faults through this one function, so their messages agree.
pub fn resolve(
    ptr: u64,
    bytes: u32,
    name: impl Fn(AddrSpace, usize) -> String,
    len: impl Fn(AddrSpace, usize) -> Option<usize>,
) -> Result<usize, String> {
    let Some((space, id)) = decode_target(ptr) else {
        return Err(format!("invalid pointer {ptr:#x} (not derived from a buffer or shared array)"));
    };
    if ptr & POISON != 0 {
        return Err(format!("out of bounds: pointer into {} was offset far out of range", name(space, id)));
    }
    let off = sign_extend(ptr & OFF_MASK);
    let bytes_i = i64::from(bytes.max(1));
    if off.rem_euclid(bytes_i) != 0 {
        return Err(format!(
            "misaligned access: byte offset {off} into {} is not a multiple of {bytes}",
            name(space, id)
        ));
    }
    let index = off.div_euclid(bytes_i);
    let Some(data_len) = len(space, id) else {
        return Err(format!("invalid pointer {ptr:#x}: {} is not a buffer", name(space, id)));
    };
    let len = data_len as i64 / bytes_i;
    if index < 0 || index >= len {
        return Err(format!("out of bounds: index {index} of {} (length {len})", name(space, id)));
    }
    Ok(off as usize)
}

fn id_of(ptr: u64) -> usize {
    ((ptr >> ID_SHIFT) & ID_MASK) as usize
}

fn from_mem(ty: ScalarType, raw: u64) -> u64 {
    match ty {
        ScalarType::Bool => u64::from(raw & 0xFF != 0),
        _ => eval::canon(ty, raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_offsets_are_exact_and_poison_far_values() {
        let p = encode(AddrSpace::Global, 3, 0);
        let q = offset(p, -1, 4);
        assert_eq!(offset(q, 1, 4), p);
        let far = offset(p, 1i128 << 40, 4);
        assert_ne!(far & POISON, 0);
        assert_ne!(offset(far, -(1i128 << 40), 4) & POISON, 0);
    }

    #[test]
    fn loads_stores_and_bounds() {
        let mut b = Buffer { elem: ScalarType::U32, data: vec![0; 16] };
        let mut m = Memory::new(vec![Some(&mut b)], vec![Some(0)], vec!["buf".into()], &[("t".into(), 16)]);
        let p = encode(AddrSpace::Global, 0, 0);
        m.store(offset(p, 2, 4), ScalarType::U32, 0xdead_beef).unwrap();
        assert_eq!(m.load(offset(p, 2, 4), ScalarType::U32), Ok(0xdead_beef));
        assert_eq!(m.load(offset(p, 4, 4), ScalarType::U32), Err("out of bounds: index 4 of %buf (length 4)".into()));
        assert_eq!(m.load(offset(p, -1, 4), ScalarType::U32), Err("out of bounds: index -1 of %buf (length 4)".into()));
        assert!(m.load(offset(p, 1, 2), ScalarType::U32).unwrap_err().starts_with("misaligned access"));
        assert!(m.load(0, ScalarType::U32).unwrap_err().starts_with("invalid pointer"));
        let s = encode(AddrSpace::Shared, 0, 0);
        m.store(offset(s, 12, 1), ScalarType::Bool, 1).unwrap();
        assert_eq!(m.load(offset(s, 12, 1), ScalarType::Bool), Ok(1));
        assert_eq!(m.rmw(offset(s, 1, 4), ScalarType::U32, AtomicOp::Add, 5), Ok(0));
        assert_eq!(m.cas(offset(s, 1, 4), ScalarType::U32, 5, 9), Ok(5));
        assert_eq!(m.load(offset(s, 1, 4), ScalarType::U32), Ok(9));
        m.reset_shared();
        assert_eq!(m.load(offset(s, 1, 4), ScalarType::U32), Ok(0));
        drop(m);
        assert_eq!(&b.data[8..12], &[0xef, 0xbe, 0xad, 0xde]);
    }
}
