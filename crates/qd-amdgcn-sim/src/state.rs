//! One wave's architectural state (SGPRs, VGPRs, EXEC, VCC, M0, SCC, program counter) and the
//! operand access rules: how an [`Operand`] reads as a 32- or 64-bit scalar, a lane mask or a
//! per-lane vector value, and how results are written back (docs/amdgcn-isa-facts.md §2).

use qd_amdgcn_isa::{Family, Target};
use qd_amdgcn_isa::{Operand, RegRange};

use super::hazard::Tracker;
use super::waits::Waits;
use super::{Fault, SimErrorKind, WaveId};

/// SGPRs s0..s105 (GFX11 has all of them; GFX9 stops at s101).
pub(crate) const NUM_SGPRS: usize = 106;

/// How a 32-bit literal widens into a 64-bit operand slot (LLVM PR #70274: the hardware
/// sign-extends for signed integer operands and zero-extends otherwise; an f64 operand takes the
/// literal as its high dword).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lit64 {
    /// Zero-extend (unsigned and bitwise 64-bit operands).
    Zext,
    /// Sign-extend (signed 64-bit integer operands).
    Sext,
    /// High dword of a double.
    F64,
}

/// One wave.
#[derive(Clone, Debug)]
pub(crate) struct Wave {
    pub target: Target,
    /// 32 or 64.
    pub lanes: u32,
    pub id: WaveId,
    pub sgpr: [u32; NUM_SGPRS],
    /// SGPRs at or above this index are outside the kernel's allocation.
    pub sgpr_limit: u32,
    /// `nvgpr` registers × 64 lanes, register-major.
    pub vgpr: Vec<u32>,
    pub nvgpr: u32,
    pub vcc: u64,
    pub exec: u64,
    pub m0: u32,
    pub scc: bool,
    /// Index into the program's instruction list.
    pub pc: usize,
    pub done: bool,
    pub at_barrier: bool,
    pub hazards: Tracker,
    pub waits: Waits,
    pub steps: u64,
    pub cycles: u64,
}

impl Wave {
    /// A wave with every register zero and no lanes active.
    pub(crate) fn new(target: Target, id: WaveId, sgpr_limit: u32, nvgpr: u32) -> Wave {
        Wave {
            target,
            lanes: target.wave.lanes(),
            id,
            sgpr: [0; NUM_SGPRS],
            sgpr_limit,
            vgpr: vec![0; nvgpr as usize * 64],
            nvgpr,
            vcc: 0,
            exec: 0,
            m0: 0,
            scc: false,
            pc: 0,
            done: false,
            at_barrier: false,
            hazards: Tracker::default(),
            waits: Waits::default(),
            steps: 0,
            cycles: 0,
        }
    }

    pub(crate) fn family(&self) -> Family {
        self.target.family()
    }

    /// All-lanes mask of the wave size.
    pub(crate) fn full_mask(&self) -> u64 {
        if self.lanes == 64 {
            u64::MAX
        } else {
            (1u64 << self.lanes) - 1
        }
    }

    /// EXEC restricted to the wave's lanes.
    pub(crate) fn exec_mask(&self) -> u64 {
        self.exec & self.full_mask()
    }

    pub(crate) fn active(&self, lane: u32) -> bool {
        lane < self.lanes && self.exec >> lane & 1 == 1
    }

    // ---- SGPRs -------------------------------------------------------------------------------

    fn sgpr_index(&self, r: u32) -> Result<usize, Fault> {
        let max = match self.family() {
            Family::Gfx9 => 102,
            Family::Gfx11 => NUM_SGPRS as u32,
        };
        if r >= max {
            return Err(Fault::new(SimErrorKind::RegisterRange, format!("s{r} does not exist on {}", self.target)));
        }
        if r >= self.sgpr_limit {
            return Err(Fault::new(
                SimErrorKind::RegisterRange,
                format!("s{r} is beyond the kernel's SGPR allocation (next_free_sgpr = {})", self.sgpr_limit),
            ));
        }
        Ok(r as usize)
    }

    pub(crate) fn sgpr_read(&self, r: u32) -> Result<u32, Fault> {
        Ok(self.sgpr[self.sgpr_index(r)?])
    }

    pub(crate) fn sgpr_write(&mut self, r: u32, v: u32) -> Result<(), Fault> {
        let i = self.sgpr_index(r)?;
        self.sgpr[i] = v;
        Ok(())
    }

    /// Sets an SGPR without the allocation check (initial state).
    pub(crate) fn sgpr_init(&mut self, r: usize, v: u32) {
        if let Some(s) = self.sgpr.get_mut(r) {
            *s = v;
        }
    }

    // ---- scalar operands ---------------------------------------------------------------------

    /// Reads an operand in a 32-bit scalar (or VALU uniform) slot.
    pub(crate) fn read_s32(&self, op: Operand) -> Result<u32, Fault> {
        Ok(match op {
            Operand::Sgpr(r) => {
                width(op, r, 1)?;
                self.sgpr_read(u32::from(r.first))?
            }
            Operand::VccLo => self.vcc as u32,
            Operand::VccHi => (self.vcc >> 32) as u32,
            Operand::ExecLo => self.exec as u32,
            Operand::ExecHi => (self.exec >> 32) as u32,
            Operand::Vcc if self.lanes == 32 => self.vcc as u32,
            Operand::Exec if self.lanes == 32 => self.exec as u32,
            Operand::M0 => self.m0,
            Operand::Null => self.null_read()?,
            Operand::Scc => u32::from(self.scc),
            Operand::Int(i) => i32::from(i) as u32,
            Operand::Float(f) => f.f32_bits(),
            Operand::Literal(v) => v,
            Operand::Vcc | Operand::Exec | Operand::Vgpr(_) | Operand::None => {
                return Err(bad_operand(op, "a 32-bit scalar"));
            }
        })
    }

    /// Reads an operand in a 64-bit scalar slot.
    pub(crate) fn read_s64(&self, op: Operand, lit: Lit64) -> Result<u64, Fault> {
        Ok(match op {
            Operand::Sgpr(r) => {
                width(op, r, 2)?;
                let lo = self.sgpr_read(u32::from(r.first))?;
                let hi = self.sgpr_read(u32::from(r.first) + 1)?;
                u64::from(lo) | u64::from(hi) << 32
            }
            Operand::Vcc => self.vcc,
            Operand::Exec => self.exec,
            Operand::Null => u64::from(self.null_read()?),
            Operand::Scc => u64::from(self.scc),
            Operand::Int(i) => i64::from(i) as u64,
            Operand::Float(f) => f.f64_bits(),
            Operand::Literal(v) => match lit {
                Lit64::Zext => u64::from(v),
                Lit64::Sext => i64::from(v as i32) as u64,
                Lit64::F64 => u64::from(v) << 32,
            },
            Operand::M0 => u64::from(self.m0),
            Operand::VccLo | Operand::VccHi | Operand::ExecLo | Operand::ExecHi | Operand::Vgpr(_) | Operand::None => {
                return Err(bad_operand(op, "a 64-bit scalar"))
            }
        })
    }

    fn null_read(&self) -> Result<u32, Fault> {
        match self.family() {
            Family::Gfx11 => Ok(0),
            Family::Gfx9 => Err(bad_operand(Operand::Null, "a GFX9 operand")),
        }
    }

    /// Reads a scalar operand of `w` (1 or 2) dwords.
    pub(crate) fn read_scalar(&self, op: Operand, w: u8, lit: Lit64) -> Result<u64, Fault> {
        if w == 2 {
            self.read_s64(op, lit)
        } else {
            self.read_s32(op).map(u64::from)
        }
    }

    /// Writes a 32-bit scalar destination.
    pub(crate) fn write_s32(&mut self, op: Operand, v: u32) -> Result<(), Fault> {
        match op {
            Operand::Sgpr(r) => {
                width(op, r, 1)?;
                self.sgpr_write(u32::from(r.first), v)
            }
            Operand::VccLo => {
                self.vcc = self.vcc & !0xFFFF_FFFF | u64::from(v);
                Ok(())
            }
            Operand::VccHi => {
                self.vcc = self.vcc & 0xFFFF_FFFF | u64::from(v) << 32;
                Ok(())
            }
            Operand::ExecLo => {
                self.exec = self.exec & !0xFFFF_FFFF | u64::from(v);
                Ok(())
            }
            Operand::ExecHi => {
                self.exec = self.exec & 0xFFFF_FFFF | u64::from(v) << 32;
                Ok(())
            }
            Operand::Vcc if self.lanes == 32 => self.write_s32(Operand::VccLo, v),
            Operand::Exec if self.lanes == 32 => self.write_s32(Operand::ExecLo, v),
            Operand::M0 => {
                self.m0 = v;
                Ok(())
            }
            Operand::Null => self.null_read().map(|_| ()),
            _ => Err(bad_operand(op, "a 32-bit scalar destination")),
        }
    }

    /// Writes a 64-bit scalar destination.
    pub(crate) fn write_s64(&mut self, op: Operand, v: u64) -> Result<(), Fault> {
        match op {
            Operand::Sgpr(r) => {
                width(op, r, 2)?;
                self.sgpr_write(u32::from(r.first), v as u32)?;
                self.sgpr_write(u32::from(r.first) + 1, (v >> 32) as u32)
            }
            Operand::Vcc => {
                self.vcc = v;
                Ok(())
            }
            Operand::Exec => {
                self.exec = v;
                Ok(())
            }
            Operand::Null => self.null_read().map(|_| ()),
            _ => Err(bad_operand(op, "a 64-bit scalar destination")),
        }
    }

    /// Writes a scalar destination of `w` dwords.
    pub(crate) fn write_scalar(&mut self, op: Operand, w: u8, v: u64) -> Result<(), Fault> {
        if w == 2 {
            self.write_s64(op, v)
        } else {
            self.write_s32(op, v as u32)
        }
    }

    /// Reads a lane mask operand (an SGPR pair or `vcc`/`exec` in wave64, one SGPR or
    /// `vcc_lo`/`exec_lo` in wave32).
    pub(crate) fn read_mask(&self, op: Operand) -> Result<u64, Fault> {
        if self.lanes == 64 {
            self.read_s64(op, Lit64::Zext)
        } else {
            self.read_s32(op).map(u64::from)
        }
    }

    /// Writes a lane mask destination.
    pub(crate) fn write_mask(&mut self, op: Operand, v: u64) -> Result<(), Fault> {
        if self.lanes == 64 {
            self.write_s64(op, v)
        } else {
            self.write_s32(op, v as u32)
        }
    }

    // ---- VGPRs -------------------------------------------------------------------------------

    fn vgpr_index(&self, r: u32, lane: u32) -> Result<usize, Fault> {
        if r >= self.nvgpr {
            return Err(Fault::new(
                SimErrorKind::RegisterRange,
                format!("v{r} is beyond the kernel's VGPR allocation (next_free_vgpr = {})", self.nvgpr),
            ));
        }
        Ok(r as usize * 64 + (lane & 63) as usize)
    }

    pub(crate) fn vgpr_read(&self, r: u32, lane: u32) -> Result<u32, Fault> {
        Ok(self.vgpr[self.vgpr_index(r, lane)?])
    }

    pub(crate) fn vgpr_write(&mut self, r: u32, lane: u32, v: u32) -> Result<(), Fault> {
        let i = self.vgpr_index(r, lane)?;
        self.vgpr[i] = v;
        Ok(())
    }

    /// Checks that a VGPR range is allocated.
    pub(crate) fn vgpr_check(&self, r: RegRange) -> Result<(), Fault> {
        let last = (u32::from(r.first) + u32::from(r.len)).saturating_sub(1);
        self.vgpr_index(last, 0).map(|_| ())
    }

    /// Reads `r` (1 or 2 registers) in one lane as a u64.
    pub(crate) fn vread(&self, r: RegRange, lane: u32) -> Result<u64, Fault> {
        let lo = self.vgpr_read(u32::from(r.first), lane)?;
        if r.len >= 2 {
            let hi = self.vgpr_read(u32::from(r.first) + 1, lane)?;
            Ok(u64::from(lo) | u64::from(hi) << 32)
        } else {
            Ok(u64::from(lo))
        }
    }

    /// Writes `r` (1 or 2 registers) in one lane.
    pub(crate) fn vwrite(&mut self, r: RegRange, lane: u32, v: u64) -> Result<(), Fault> {
        self.vgpr_write(u32::from(r.first), lane, v as u32)?;
        if r.len >= 2 {
            self.vgpr_write(u32::from(r.first) + 1, lane, (v >> 32) as u32)?;
        }
        Ok(())
    }
}

/// Checks a register range's width against the slot's.
pub(crate) fn width(op: Operand, r: RegRange, w: u8) -> Result<(), Fault> {
    if r.len != w {
        return Err(Fault::new(
            SimErrorKind::InvalidOperand,
            format!("operand {op:?} has {} registers where the slot takes {w}", r.len),
        ));
    }
    Ok(())
}

pub(crate) fn bad_operand(op: Operand, slot: &str) -> Fault {
    Fault::new(SimErrorKind::InvalidOperand, format!("operand {op:?} cannot be used as {slot}"))
}

/// The VGPR range of an operand that must be a VGPR of `w` registers.
pub(crate) fn vgpr_of(op: Operand, w: u8) -> Result<RegRange, Fault> {
    match op {
        Operand::Vgpr(r) => {
            width(op, r, w)?;
            Ok(r)
        }
        _ => Err(bad_operand(op, "a VGPR")),
    }
}
