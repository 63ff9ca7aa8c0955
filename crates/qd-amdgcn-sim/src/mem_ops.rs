//! Scalar memory loads, LDS loads/stores/atomics and FLAT/GLOBAL loads/stores/atomics.
//!
//! Choices: `s_load_*` ignores the low two address bits (the hardware does); `s_buffer_load_dword`
//! reads base = V#[47:0] and returns 0 past num_records = V#[95:64] (stride 0, raw buffer);
//! LDS accesses must lie inside the group segment and be naturally aligned (up to 8 bytes);
//! `ds_read_u8`/`ds_write_b8` access one byte (zero-extended on load) at any address;
//! 64-bit LDS atomics read and write 8 naturally aligned bytes and return the old 64-bit value;
//! `ds_read_addtid_b32` addresses M0[15:0] + offset + 4·lane; `ds_cmpst_rtn_b32/b64` compare with
//! data0 and store data1 on GFX9, while GFX11's `ds_cmpstore_rtn_b32/b64` store data0 and compare
//! with data1 (RDNA3 ISA guide: "src = DATA, cmp = DATA2 … the order of src and cmp agree with
//! BUFFER_ATOMIC_CMPSWAP"); global accesses may be unaligned except atomics, which must be
//! naturally aligned; FLAT addresses are global addresses (no LDS or scratch aperture is
//! modelled); atomics of one instruction apply lane by lane in increasing lane order.

use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{Inst, Operand, RegRange, Shape};

use super::memory::{GlobalMemory, Lds};
use super::ops::{AtomOp, MemW, Sem};
use super::state::{bad_operand, vgpr_of, Lit64, Wave};
use super::{Fault, SimErrorKind};

fn sext_offset(inst: &Inst) -> i64 {
    i64::from(inst.imm)
}

fn dwords_of(op: Operand) -> Result<(u32, u8), Fault> {
    match op {
        Operand::Sgpr(r) => Ok((u32::from(r.first), r.len)),
        _ => Err(bad_operand(op, "SMEM data")),
    }
}

/// Scalar memory instructions.
pub(crate) fn smem(w: &mut Wave, inst: &Inst, sem: Sem, mem: &GlobalMemory) -> Result<(), Fault> {
    match sem {
        Sem::SDcacheInv => Ok(()),
        Sem::SMemtime => {
            let t = w.cycles;
            w.write_s64(inst.operands[0], t)
        }
        Sem::SLoad | Sem::SBufferLoad => {
            let Shape::SmemLoad { d, base } = inst.op.info().shape else {
                return Err(bad_operand(inst.operands[0], "SMEM data"));
            };
            let (first, len) = dwords_of(inst.operands[0])?;
            if len != d {
                return Err(bad_operand(inst.operands[0], "SMEM data of the op's width"));
            }
            let soffset = match inst.operands[2] {
                Operand::None => 0,
                op => i64::from(w.read_s32(op)?),
            };
            let offset = sext_offset(inst) + soffset;
            let mut values = Vec::with_capacity(usize::from(d));
            if base == 4 {
                let Operand::Sgpr(r) = inst.operands[1] else {
                    return Err(bad_operand(inst.operands[1], "a buffer resource"));
                };
                super::state::width(inst.operands[1], r, 4)?;
                let s = |k: u32| w.sgpr_read(u32::from(r.first) + k);
                let base_addr = u64::from(s(0)?) | u64::from(s(1)? & 0xFFFF) << 32;
                let records = i64::from(s(2)?);
                for k in 0..i64::from(d) {
                    let off = (offset & !3) + 4 * k;
                    values.push(if off < 0 || off + 4 > records {
                        0
                    } else {
                        mem.load(base_addr.wrapping_add(off as u64), 4)? as u32
                    });
                }
            } else {
                let base_addr = w.read_s64(inst.operands[1], Lit64::Zext)?;
                let addr = base_addr.wrapping_add(offset as u64) & !3;
                for k in 0..u64::from(d) {
                    values.push(mem.load(addr.wrapping_add(4 * k), 4)? as u32);
                }
            }
            for (k, v) in values.into_iter().enumerate() {
                w.sgpr_write(first + k as u32, v)?;
            }
            Ok(())
        }
        _ => Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} is not SMEM", inst.op))),
    }
}

fn atom32(op: AtomOp, old: u32, v: u32) -> u32 {
    match op {
        AtomOp::Swap => v,
        AtomOp::Add => old.wrapping_add(v),
        AtomOp::Sub => old.wrapping_sub(v),
        AtomOp::SMin => (old as i32).min(v as i32) as u32,
        AtomOp::UMin => old.min(v),
        AtomOp::SMax => (old as i32).max(v as i32) as u32,
        AtomOp::UMax => old.max(v),
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::AddF32 => super::alu::fop32(&[old, v], || f32::from_bits(old) + f32::from_bits(v)) as u32,
    }
}

fn atom64(op: AtomOp, old: u64, v: u64) -> Result<u64, Fault> {
    Ok(match op {
        AtomOp::Swap => v,
        AtomOp::Add => old.wrapping_add(v),
        AtomOp::Sub => old.wrapping_sub(v),
        AtomOp::SMin => (old as i64).min(v as i64) as u64,
        AtomOp::UMin => old.min(v),
        AtomOp::SMax => (old as i64).max(v as i64) as u64,
        AtomOp::UMax => old.max(v),
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::AddF32 => {
            return Err(Fault::new(SimErrorKind::Unsupported, "64-bit f32 atomic add".into()));
        }
    })
}

/// Reads `s` (1 or 2) little-endian dwords of LDS.
fn lds_read(lds: &Lds, a: u32, s: u8) -> Result<u64, Fault> {
    let lo = u64::from(lds.read32(a)?);
    Ok(if s == 2 { lo | u64::from(lds.read32(a + 4)?) << 32 } else { lo })
}

/// Writes `s` (1 or 2) little-endian dwords of LDS.
fn lds_write(lds: &mut Lds, a: u32, s: u8, v: u64) -> Result<(), Fault> {
    lds.write32(a, v as u32)?;
    if s == 2 {
        lds.write32(a + 4, (v >> 32) as u32)?;
    }
    Ok(())
}

fn ds_offset(inst: &Inst) -> u32 {
    inst.imm as u32 & 0xFFFF
}

fn lane_vgpr(w: &Wave, r: RegRange, k: u32, lane: u32) -> Result<u32, Fault> {
    w.vgpr_read(u32::from(r.first) + k, lane)
}

/// LDS loads, stores and atomics (not the LDS-routed permutes).
pub(crate) fn ds(w: &mut Wave, inst: &Inst, sem: Sem, lds: &mut Lds) -> Result<(), Fault> {
    let shape = inst.op.info().shape;
    let offset = ds_offset(inst);
    let active: Vec<u32> = (0..w.lanes).filter(|&l| w.active(l)).collect();
    match (sem, shape) {
        (Sem::DsLoad, Shape::DsLoad { d }) => {
            let dst = vgpr_of(inst.operands[0], d)?;
            let addr = vgpr_of(inst.operands[1], 1)?;
            w.vgpr_check(dst)?;
            let mut loads = Vec::new();
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                lds.check_access(a, u32::from(d)).map_err(|e| e.at_lane(lane))?;
                for k in 0..u32::from(d) {
                    loads.push((lane, k, lds.read32(a + 4 * k).map_err(|e| e.at_lane(lane))?));
                }
            }
            for (lane, k, v) in loads {
                w.vgpr_write(u32::from(dst.first) + k, lane, v)?;
            }
            Ok(())
        }
        (Sem::DsLoad2, Shape::DsLoad2 { d }) => {
            let dst = vgpr_of(inst.operands[0], 2 * d)?;
            let addr = vgpr_of(inst.operands[1], 1)?;
            w.vgpr_check(dst)?;
            let stride = 4 * u32::from(d);
            let (o0, o1) = (offset & 0xFF, u32::from(inst.imm1));
            let mut loads = Vec::new();
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?;
                for (half, o) in [(0, o0), (1, o1)] {
                    let at = a.wrapping_add(o * stride);
                    lds.check_access(at, u32::from(d)).map_err(|e| e.at_lane(lane))?;
                    for k in 0..u32::from(d) {
                        let v = lds.read32(at + 4 * k).map_err(|e| e.at_lane(lane))?;
                        loads.push((lane, half * u32::from(d) + k, v));
                    }
                }
            }
            for (lane, k, v) in loads {
                w.vgpr_write(u32::from(dst.first) + k, lane, v)?;
            }
            Ok(())
        }
        (Sem::DsStore, Shape::DsStore { s }) => {
            let addr = vgpr_of(inst.operands[0], 1)?;
            let data = vgpr_of(inst.operands[1], s)?;
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                lds.check_access(a, u32::from(s)).map_err(|e| e.at_lane(lane))?;
                for k in 0..u32::from(s) {
                    let v = lane_vgpr(w, data, k, lane)?;
                    lds.write32(a + 4 * k, v).map_err(|e| e.at_lane(lane))?;
                }
            }
            Ok(())
        }
        (Sem::DsLoadU8, _) => {
            let dst = vgpr_of(inst.operands[0], 1)?;
            let addr = vgpr_of(inst.operands[1], 1)?;
            w.vgpr_check(dst)?;
            let mut loads = Vec::new();
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                loads.push((lane, u32::from(lds.read8(a).map_err(|e| e.at_lane(lane))?)));
            }
            for (lane, v) in loads {
                w.vgpr_write(u32::from(dst.first), lane, v)?;
            }
            Ok(())
        }
        (Sem::DsStoreB8, _) => {
            let addr = vgpr_of(inst.operands[0], 1)?;
            let data = vgpr_of(inst.operands[1], 1)?;
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                let v = lane_vgpr(w, data, 0, lane)?;
                lds.write8(a, v as u8).map_err(|e| e.at_lane(lane))?;
            }
            Ok(())
        }
        (Sem::DsAtomic(op, rtn), _) => {
            let s = match shape {
                Shape::DsAtomicRtn { s } | Shape::DsAtomic { s } => s,
                _ => 1,
            };
            let base = usize::from(rtn);
            let addr = vgpr_of(inst.operands[base], 1)?;
            let data = vgpr_of(inst.operands[base + 1], s)?;
            let dst = if rtn { Some(vgpr_of(inst.operands[0], s)?) } else { None };
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                lds.check_access(a, u32::from(s)).map_err(|e| e.at_lane(lane))?;
                let v = w.vread(data, lane)?;
                let old = lds_read(lds, a, s).map_err(|e| e.at_lane(lane))?;
                let new = if s == 2 {
                    atom64(op, old, v).map_err(|e| e.at_lane(lane))?
                } else {
                    u64::from(atom32(op, old as u32, v as u32))
                };
                lds_write(lds, a, s, new).map_err(|e| e.at_lane(lane))?;
                if let Some(d) = dst {
                    w.vwrite(d, lane, old)?;
                }
            }
            Ok(())
        }
        (Sem::DsCmpst, _) => {
            let s = match shape {
                Shape::DsCmpstRtn { s } => s,
                _ => 1,
            };
            let dst = vgpr_of(inst.operands[0], s)?;
            let addr = vgpr_of(inst.operands[1], 1)?;
            let d0 = vgpr_of(inst.operands[2], s)?;
            let d1 = vgpr_of(inst.operands[3], s)?;
            let (cmp_r, new_r) = match w.family() {
                Family::Gfx9 => (d0, d1),
                Family::Gfx11 => (d1, d0),
            };
            for &lane in &active {
                let a = lane_vgpr(w, addr, 0, lane)?.wrapping_add(offset);
                lds.check_access(a, u32::from(s)).map_err(|e| e.at_lane(lane))?;
                let (cmp, new) = (w.vread(cmp_r, lane)?, w.vread(new_r, lane)?);
                let old = lds_read(lds, a, s).map_err(|e| e.at_lane(lane))?;
                if old == cmp {
                    lds_write(lds, a, s, new).map_err(|e| e.at_lane(lane))?;
                }
                w.vwrite(dst, lane, old)?;
            }
            Ok(())
        }
        (Sem::DsAddtid, _) => {
            let dst = vgpr_of(inst.operands[0], 1)?;
            let base = (w.m0 & 0xFFFF).wrapping_add(offset);
            let mut loads = Vec::new();
            for &lane in &active {
                loads.push((lane, lds.read32(base.wrapping_add(4 * lane)).map_err(|e| e.at_lane(lane))?));
            }
            for (lane, v) in loads {
                w.vgpr_write(u32::from(dst.first), lane, v)?;
            }
            Ok(())
        }
        _ => Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} is not an LDS memory op", inst.op))),
    }
}

/// The per-lane address of a FLAT/GLOBAL instruction (`vaddr` operand slot, `saddr` slot).
fn vaddr(w: &Wave, inst: &Inst, vslot: usize, sslot: Option<usize>, lane: u32) -> Result<u64, Fault> {
    let saddr = sslot.map(|s| inst.operands[s]).unwrap_or(Operand::None);
    let base = match saddr {
        Operand::None => {
            let r = vgpr_of(inst.operands[vslot], 2)?;
            w.vread(r, lane)?
        }
        op => {
            let r = vgpr_of(inst.operands[vslot], 1)?;
            w.read_s64(op, Lit64::Zext)?.wrapping_add(w.vread(r, lane)?)
        }
    };
    Ok(base.wrapping_add(sext_offset(inst) as u64))
}

fn misaligned(addr: u64, n: u64) -> Fault {
    Fault::new(SimErrorKind::Misaligned, format!("atomic at 0x{addr:x} is not {n}-byte aligned"))
}

/// FLAT and GLOBAL instructions.
pub(crate) fn vmem(w: &mut Wave, inst: &Inst, sem: Sem, mem: &mut GlobalMemory) -> Result<(), Fault> {
    let active: Vec<u32> = (0..w.lanes).filter(|&l| w.active(l)).collect();
    match sem {
        Sem::FlatLoad | Sem::GLoad(_) => {
            let (kind, sslot) = match sem {
                Sem::GLoad(k) => (k, Some(2)),
                _ => (MemW::Dwords(1), None),
            };
            let n = match kind {
                MemW::Dwords(n) => n,
                MemW::U8 | MemW::U16 => 1,
            };
            let dst = vgpr_of(inst.operands[0], n)?;
            w.vgpr_check(dst)?;
            let mut loads = Vec::new();
            for &lane in &active {
                let a = vaddr(w, inst, 1, sslot, lane).map_err(|e| e.at_lane(lane))?;
                match kind {
                    MemW::U8 => loads.push((lane, 0, mem.load(a, 1).map_err(|e| e.at_lane(lane))? as u32)),
                    MemW::U16 => loads.push((lane, 0, mem.load(a, 2).map_err(|e| e.at_lane(lane))? as u32)),
                    MemW::Dwords(n) => {
                        for k in 0..u32::from(n) {
                            let v = mem.load(a.wrapping_add(4 * u64::from(k)), 4).map_err(|e| e.at_lane(lane))?;
                            loads.push((lane, k, v as u32));
                        }
                    }
                }
            }
            for (lane, k, v) in loads {
                w.vgpr_write(u32::from(dst.first) + k, lane, v)?;
            }
            Ok(())
        }
        Sem::FlatStore | Sem::GStore(_) => {
            let (kind, vslot, dslot, sslot) = match sem {
                Sem::GStore(k) => (k, 0, 1, Some(2)),
                _ => (MemW::Dwords(1), 0, 1, None),
            };
            let n = match kind {
                MemW::Dwords(n) => n,
                MemW::U8 | MemW::U16 => 1,
            };
            let data = vgpr_of(inst.operands[dslot], n)?;
            for &lane in &active {
                let a = vaddr(w, inst, vslot, sslot, lane).map_err(|e| e.at_lane(lane))?;
                let first = lane_vgpr(w, data, 0, lane)?;
                let r = match kind {
                    MemW::U8 => mem.store(a, 1, u64::from(first)),
                    MemW::U16 => mem.store(a, 2, u64::from(first)),
                    MemW::Dwords(n) => (0..u32::from(n)).try_for_each(|k| {
                        let v = lane_vgpr(w, data, k, lane)?;
                        mem.store(a.wrapping_add(4 * u64::from(k)), 4, u64::from(v))
                    }),
                };
                r.map_err(|e| e.at_lane(lane))?;
            }
            Ok(())
        }
        Sem::GAtomic(_) | Sem::GCas => {
            let (Shape::GlobalAtomic { s } | Shape::GlobalAtomicCas { s }) = inst.op.info().shape else {
                return Err(bad_operand(inst.operands[0], "an atomic"));
            };
            let cas = sem == Sem::GCas;
            let data = vgpr_of(inst.operands[2], if cas { 2 * s } else { s })?;
            let dst = match inst.operands[0] {
                Operand::None => None,
                op => Some(vgpr_of(op, s)?),
            };
            let bytes = 4 * u64::from(s);
            for &lane in &active {
                let a = vaddr(w, inst, 1, Some(3), lane).map_err(|e| e.at_lane(lane))?;
                if a % bytes != 0 {
                    return Err(misaligned(a, bytes).at_lane(lane));
                }
                let old = mem.load(a, bytes as usize).map_err(|e| e.at_lane(lane))?;
                let src = w.vread(RegRange { first: data.first, len: s }, lane)?;
                let new = match sem {
                    Sem::GCas => {
                        let cmp = w.vread(RegRange { first: data.first.saturating_add(u16::from(s)), len: s }, lane)?;
                        if old == cmp {
                            src
                        } else {
                            old
                        }
                    }
                    Sem::GAtomic(op) if s == 1 => u64::from(atom32(op, old as u32, src as u32)),
                    Sem::GAtomic(op) => atom64(op, old, src).map_err(|e| e.at_lane(lane))?,
                    _ => old,
                };
                mem.store(a, bytes as usize, new).map_err(|e| e.at_lane(lane))?;
                if let Some(d) = dst {
                    w.vwrite(d, lane, old)?;
                }
            }
            Ok(())
        }
        _ => Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} is not a vector memory op", inst.op))),
    }
}
