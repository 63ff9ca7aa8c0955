//! The `s_waitcnt` immediate: per-family counter layout (docs/amdgcn-isa-facts.md §8.1).

use crate::target::Family;

/// Counter thresholds of one `s_waitcnt`. A counter at its family maximum means "don't wait".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Waitcnt {
    /// Outstanding vector-memory loads (GFX9: also stores) allowed.
    pub vm: u8,
    /// Outstanding exports allowed.
    pub exp: u8,
    /// Outstanding LDS/GDS/SMEM/message operations allowed.
    pub lgkm: u8,
}

impl Waitcnt {
    /// Largest vmcnt (both families).
    pub const VM_MAX: u8 = 63;
    /// Largest expcnt.
    pub(crate) const EXP_MAX: u8 = 7;

    /// Largest lgkmcnt of a family (15 on GFX9, 63 on GFX11).
    pub fn lgkm_max(family: Family) -> u8 {
        match family {
            Family::Gfx9 => 15,
            Family::Gfx11 => 63,
        }
    }

    /// Waits for nothing.
    pub fn none(family: Family) -> Waitcnt {
        Waitcnt { vm: Self::VM_MAX, exp: Self::EXP_MAX, lgkm: Self::lgkm_max(family) }
    }

    /// Waits for all vector memory.
    pub fn vm(n: u8, family: Family) -> Waitcnt {
        Waitcnt { vm: n, ..Waitcnt::none(family) }
    }

    /// Waits for LDS/SMEM.
    pub fn lgkm(n: u8, family: Family) -> Waitcnt {
        Waitcnt { lgkm: n, ..Waitcnt::none(family) }
    }

    /// The SIMM16 field. Counters above the family maximum saturate.
    pub fn encode(self, family: Family) -> u16 {
        let vm = u16::from(self.vm.min(Self::VM_MAX));
        let exp = u16::from(self.exp.min(Self::EXP_MAX));
        let lgkm = u16::from(self.lgkm.min(Self::lgkm_max(family)));
        match family {
            Family::Gfx9 => (vm & 15) | exp << 4 | lgkm << 8 | (vm >> 4) << 14,
            Family::Gfx11 => exp | lgkm << 4 | vm << 10,
        }
    }

    /// The counters of a SIMM16 field.
    pub fn decode(simm16: u16, family: Family) -> Waitcnt {
        match family {
            Family::Gfx9 => Waitcnt {
                vm: ((simm16 & 15) | (simm16 >> 14 & 3) << 4) as u8,
                exp: (simm16 >> 4 & 7) as u8,
                lgkm: (simm16 >> 8 & 15) as u8,
            },
            Family::Gfx11 => {
                Waitcnt { vm: (simm16 >> 10 & 63) as u8, exp: (simm16 & 7) as u8, lgkm: (simm16 >> 4 & 63) as u8 }
            }
        }
    }
}
