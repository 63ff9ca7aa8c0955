//! The simulator's memories: a sparse, bounds-checked flat global address space made of separate
//! allocations (with unmapped gaps between them, so running off the end of a buffer is an error
//! rather than a silent read of the neighbour), and the per-workgroup LDS.

use std::collections::BTreeMap;

use super::{Fault, SimError, SimErrorKind};

/// The first address handed out by [`GlobalMemory::alloc`]; address 0 and the low pages stay unmapped
/// so that null and small-integer pointers fault.
const FIRST_ADDRESS: u64 = 0x1_0000_0000;
/// Unmapped bytes left between two allocations.
const GUARD_GAP: u64 = 0x1000;

/// A sparse flat address space of allocations. Every access must lie entirely inside one
/// allocation; anything else is an out-of-bounds error.
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    /// Allocations by base address.
    allocs: BTreeMap<u64, Vec<u8>>,
    /// Where the next allocation may start.
    next: u64,
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> Self {
        GlobalMemory { allocs: BTreeMap::new(), next: FIRST_ADDRESS }
    }

    /// Allocates `bytes` zeroed bytes aligned to `align` (rounded up to a power of two; 0 means 1)
    /// and returns the base address. Zero-byte allocations get one byte so that every base address
    /// is distinct and mapped.
    pub fn alloc(&mut self, bytes: usize, align: u64) -> u64 {
        let align = align.max(1).checked_next_power_of_two().unwrap_or(1 << 63);
        let start = self.next.max(FIRST_ADDRESS);
        let base = start.checked_add(align - 1).map_or(start, |v| v & !(align - 1));
        let len = bytes.max(1);
        self.allocs.insert(base, vec![0; len]);
        self.next = base.saturating_add(len as u64).saturating_add(GUARD_GAP);
        base
    }

    /// Writes `data` at `addr`; the whole range must lie in one allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let (buf, at) = self.locate_mut(addr, data.len()).map_err(|f| f.into_host_error())?;
        buf[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Reads `len` bytes at `addr`; the whole range must lie in one allocation.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        let (buf, at) = self.locate(addr, len).map_err(|f| f.into_host_error())?;
        Ok(buf[at..at + len].to_vec())
    }

    /// Reads a little-endian value of `len` ≤ 8 bytes (simulator-internal).
    pub(crate) fn load(&self, addr: u64, len: usize) -> Result<u64, Fault> {
        let (buf, at) = self.locate(addr, len)?;
        Ok(buf[at..at + len].iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
    }

    /// Writes the low `len` ≤ 8 bytes of `value` little-endian (simulator-internal).
    pub(crate) fn store(&mut self, addr: u64, len: usize, value: u64) -> Result<(), Fault> {
        let (buf, at) = self.locate_mut(addr, len)?;
        for (i, b) in buf[at..at + len].iter_mut().enumerate() {
            *b = (value >> (8 * i)) as u8;
        }
        Ok(())
    }

    fn find(&self, addr: u64, len: usize) -> Result<u64, Fault> {
        let oob = || {
            Fault::new(
                SimErrorKind::OutOfBounds,
                format!("global access of {len} bytes at 0x{addr:x} is outside every allocation"),
            )
        };
        let (&base, buf) = self.allocs.range(..=addr).next_back().ok_or_else(oob)?;
        let end = addr.checked_add(len as u64).ok_or_else(oob)?;
        let limit = base.saturating_add(buf.len() as u64);
        if end > limit {
            return Err(Fault::new(
                SimErrorKind::OutOfBounds,
                format!(
                    "global access of {len} bytes at 0x{addr:x} runs past the allocation 0x{base:x}..0x{:x}",
                    limit
                ),
            ));
        }
        Ok(base)
    }

    fn locate(&self, addr: u64, len: usize) -> Result<(&[u8], usize), Fault> {
        let base = self.find(addr, len)?;
        let buf = self.allocs.get(&base).map(Vec::as_slice).unwrap_or(&[]);
        Ok((buf, (addr - base) as usize))
    }

    fn locate_mut(&mut self, addr: u64, len: usize) -> Result<(&mut [u8], usize), Fault> {
        let base = self.find(addr, len)?;
        match self.allocs.get_mut(&base) {
            Some(buf) => Ok((buf.as_mut_slice(), (addr - base) as usize)),
            None => Err(Fault::new(SimErrorKind::OutOfBounds, format!("no allocation at 0x{addr:x}"))),
        }
    }
}

/// One workgroup's LDS: `group_segment_size` bytes, zeroed or poisoned at workgroup start.
#[derive(Clone, Debug)]
pub(crate) struct Lds {
    bytes: Vec<u8>,
}

impl Lds {
    pub(crate) fn new(size: u32) -> Lds {
        Lds { bytes: vec![0; size as usize] }
    }

    /// `size` bytes of garbage (LDS is not cleared between dispatches on the hardware).
    pub(crate) fn poisoned(size: u32, seed: u64) -> Lds {
        let mut bytes = vec![0; size as usize];
        for (k, c) in bytes.chunks_mut(4).enumerate() {
            let w = super::poison_word(seed << 24 | 0xF0_0000 | k as u64).to_le_bytes();
            c.copy_from_slice(&w[..c.len()]);
        }
        Lds { bytes }
    }

    fn check(&self, addr: u32, len: u32) -> Result<usize, Fault> {
        let end = u64::from(addr) + u64::from(len);
        if end > self.bytes.len() as u64 {
            return Err(Fault::new(
                SimErrorKind::OutOfBounds,
                format!(
                    "LDS access of {len} bytes at 0x{addr:x} is outside the group segment of {} bytes",
                    self.bytes.len()
                ),
            ));
        }
        if !addr.is_multiple_of(len.min(8)) {
            return Err(Fault::new(
                SimErrorKind::Misaligned,
                format!("LDS access of {len} bytes at 0x{addr:x} is not {}-byte aligned", len.min(8)),
            ));
        }
        Ok(addr as usize)
    }

    /// Reads one dword.
    pub(crate) fn read32(&self, addr: u32) -> Result<u32, Fault> {
        let at = self.check(addr, 4)?;
        Ok(u32::from_le_bytes([self.bytes[at], self.bytes[at + 1], self.bytes[at + 2], self.bytes[at + 3]]))
    }

    /// Writes one dword.
    pub(crate) fn write32(&mut self, addr: u32, value: u32) -> Result<(), Fault> {
        let at = self.check(addr, 4)?;
        self.bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        Ok(())
    }

    /// Reads one byte (any alignment).
    pub(crate) fn read8(&self, addr: u32) -> Result<u8, Fault> {
        let at = self.check(addr, 1)?;
        Ok(self.bytes[at])
    }

    /// Writes one byte (any alignment).
    pub(crate) fn write8(&mut self, addr: u32, value: u8) -> Result<(), Fault> {
        let at = self.check(addr, 1)?;
        self.bytes[at] = value;
        Ok(())
    }

    /// Checks an access of `dwords` dwords without doing it (alignment follows the access size).
    pub(crate) fn check_access(&self, addr: u32, dwords: u32) -> Result<(), Fault> {
        self.check(addr, 4 * dwords).map(|_| ())
    }
}
