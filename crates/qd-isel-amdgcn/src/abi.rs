//! The kernel ABI qd uses on AMD GPUs: the kernarg segment layout (which the code-object
//! metadata describes) and the registers the hardware initialises.
//!
//! Kernarg segment: the MIR parameters in order (global pointers 8 bytes, 8-aligned; 32-bit
//! scalars and bool 4 bytes; 64-bit scalars 8 bytes, 8-aligned), then qd's hidden arguments: the
//! grid size in blocks (`qd.grid_x/y/z`, three u32) and the per-lane spill area pointer
//! (`qd.spill`, 8 bytes; null when the kernel does not spill). Every kernel enables the kernarg
//! segment pointer (`s[0:1]`), the three workgroup ids (`s2`, `s3`, `s4`; `s13`–`s15` on gfx1100
//! wave32, see `user_sgpr_pad`) and the three packed work-item ids in `v0` (X bits 9:0,
//! Y 19:10, Z 29:20).

use qd_mir::types::{AddrSpace, Type};
use qd_mir::Function;

use qd_amdgcn_isa::code_object::{ArgKind, KernelArg};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

/// Unused user SGPRs after the kernarg pointer: gfx1100 in wave32 needs at least 16 user +
/// system SGPRs initialised (LLVM's `UserSGPRInit16Bug` workaround for Navi31/33), so its
/// USER_SGPR_COUNT is padded from 2 to 13 and the workgroup ids arrive in `s13`–`s15`.
pub(crate) fn user_sgpr_pad(target: Target) -> u8 {
    match (target.arch, target.wave) {
        (Arch::Gfx1100, WaveSize::W32) => 11,
        (Arch::Gfx1100, WaveSize::W64) | (Arch::Gfx90a | Arch::Gfx942, _) => 0,
    }
}

/// The SGPR holding workgroup id X on entry (Y and Z follow).
pub(crate) fn workgroup_id_sgpr(target: Target) -> u16 {
    2 + u16::from(user_sgpr_pad(target))
}

/// One parameter's place in the kernarg segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    /// Byte offset.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// The kernarg segment of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernargLayout {
    /// The MIR parameters, in order.
    pub params: Vec<ParamSlot>,
    /// Offset of `qd.grid_x` (then y, z).
    pub grid_offset: u32,
    /// Offset of `qd.spill`.
    pub spill_ptr_offset: u32,
    /// Total bytes.
    pub size: u32,
    /// The metadata's argument list.
    pub args: Vec<KernelArg>,
}

/// A value to place in the kernarg segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernargValue {
    /// A device address.
    Ptr(u64),
    /// A scalar's bits (zero-extended; bool 0/1).
    Bits(u64),
}

impl KernargLayout {
    /// The layout for `f`.
    pub(crate) fn new(f: &Function) -> KernargLayout {
        let mut at = 0u32;
        let mut params = Vec::new();
        let mut args = Vec::new();
        for p in &f.params {
            let (size, kind) = match p.ty {
                Type::Ptr(AddrSpace::Global, _) => (8, ArgKind::GlobalBuffer),
                Type::Ptr(AddrSpace::Shared, _) => (4, ArgKind::ByValue),
                Type::Scalar(s) => (if s.bits() == 64 { 8 } else { 4 }, ArgKind::ByValue),
            };
            at = at.next_multiple_of(size);
            params.push(ParamSlot { offset: at, size });
            args.push(KernelArg { name: p.name.clone(), offset: at, size, kind });
            at += size;
        }
        at = at.next_multiple_of(4);
        let grid_offset = at;
        for (k, n) in ["qd.grid_x", "qd.grid_y", "qd.grid_z"].into_iter().enumerate() {
            args.push(KernelArg { name: n.into(), offset: at + 4 * k as u32, size: 4, kind: ArgKind::ByValue });
        }
        at += 12;
        at = at.next_multiple_of(8);
        let spill_ptr_offset = at;
        args.push(KernelArg { name: "qd.spill".into(), offset: at, size: 8, kind: ArgKind::GlobalBuffer });
        at += 8;
        KernargLayout { params, grid_offset, spill_ptr_offset, size: at, args }
    }

    /// The kernarg bytes for parameter values (one per parameter), a grid and a spill area.
    pub fn bytes(&self, values: &[KernargValue], grid: [u32; 3], spill: u64) -> Vec<u8> {
        let mut b = vec![0u8; self.size as usize];
        for (slot, v) in self.params.iter().zip(values) {
            let bits = match *v {
                KernargValue::Ptr(p) => p,
                KernargValue::Bits(x) => x,
            };
            let o = slot.offset as usize;
            b[o..o + slot.size as usize].copy_from_slice(&bits.to_le_bytes()[..slot.size as usize]);
        }
        for (k, g) in grid.iter().enumerate() {
            let o = self.grid_offset as usize + 4 * k;
            b[o..o + 4].copy_from_slice(&g.to_le_bytes());
        }
        let o = self.spill_ptr_offset as usize;
        b[o..o + 8].copy_from_slice(&spill.to_le_bytes());
        b
    }
}
