//! DPP16 and DPP8 controls: the lane patterns, their 9-bit `dpp_ctrl` encoding and which
//! architecture allows which (docs/amdgcn-isa-facts.md §9.1–§9.3, §9.5).
//!
//! `src_lane` here is the single definition of "which lane does lane i read" for every control;
//! the wave simulator and the shuffle selector both use it.

use crate::target::{Arch, Family};

/// A DPP16 lane pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DppCtrl {
    /// Within each group of 4, lane k reads lane `sel[k]`.
    QuadPerm([u8; 4]),
    /// Lane i reads i + n within its row of 16 (n = 1..=15); out of row is invalid.
    RowShl(u8),
    /// Lane i reads i − n within its row.
    RowShr(u8),
    /// Lane i reads (i − n) mod 16 within its row.
    RowRor(u8),
    /// Lane L reads L + 1 across the wave (GFX9 only).
    WaveShl1,
    /// Lane L reads (L + 1) mod 64 (GFX9 only).
    WaveRol1,
    /// Lane L reads L − 1 (GFX9 only).
    WaveShr1,
    /// Lane L reads (L − 1) mod 64 (GFX9 only).
    WaveRor1,
    /// Lane i reads 15 − i within its row.
    RowMirror,
    /// Lane i reads 7 − i within its half-row of 8.
    RowHalfMirror,
    /// Every lane of row r reads lane 15 of row r − 1; row 0 is invalid (GFX9 only).
    RowBcast15,
    /// Rows 2 and 3 read lane 31; rows 0 and 1 are invalid (GFX9 only).
    RowBcast31,
    /// Every lane reads lane n of its own row (`row_newbcast:n` on gfx90a/gfx942, `row_share:n` on GFX11).
    RowShare(u8),
    /// Lane i reads i xor n within its row (GFX11 only).
    RowXmask(u8),
}

impl DppCtrl {
    /// The 9-bit `dpp_ctrl` field.
    pub fn encode(self) -> u16 {
        match self {
            DppCtrl::QuadPerm(s) => {
                u16::from(s[0] & 3) | u16::from(s[1] & 3) << 2 | u16::from(s[2] & 3) << 4 | u16::from(s[3] & 3) << 6
            }
            DppCtrl::RowShl(n) => 0x100 | u16::from(n & 15),
            DppCtrl::RowShr(n) => 0x110 | u16::from(n & 15),
            DppCtrl::RowRor(n) => 0x120 | u16::from(n & 15),
            DppCtrl::WaveShl1 => 0x130,
            DppCtrl::WaveRol1 => 0x134,
            DppCtrl::WaveShr1 => 0x138,
            DppCtrl::WaveRor1 => 0x13C,
            DppCtrl::RowMirror => 0x140,
            DppCtrl::RowHalfMirror => 0x141,
            DppCtrl::RowBcast15 => 0x142,
            DppCtrl::RowBcast31 => 0x143,
            DppCtrl::RowShare(n) => 0x150 | u16::from(n & 15),
            DppCtrl::RowXmask(n) => 0x160 | u16::from(n & 15),
        }
    }

    /// Decodes a `dpp_ctrl` field; `None` for reserved values.
    pub fn decode(v: u16) -> Option<DppCtrl> {
        let n = (v & 15) as u8;
        Some(match v {
            0x000..=0x0FF => {
                DppCtrl::QuadPerm([(v & 3) as u8, (v >> 2 & 3) as u8, (v >> 4 & 3) as u8, (v >> 6 & 3) as u8])
            }
            0x101..=0x10F => DppCtrl::RowShl(n),
            0x111..=0x11F => DppCtrl::RowShr(n),
            0x121..=0x12F => DppCtrl::RowRor(n),
            0x130 => DppCtrl::WaveShl1,
            0x134 => DppCtrl::WaveRol1,
            0x138 => DppCtrl::WaveShr1,
            0x13C => DppCtrl::WaveRor1,
            0x140 => DppCtrl::RowMirror,
            0x141 => DppCtrl::RowHalfMirror,
            0x142 => DppCtrl::RowBcast15,
            0x143 => DppCtrl::RowBcast31,
            0x150..=0x15F => DppCtrl::RowShare(n),
            0x160..=0x16F => DppCtrl::RowXmask(n),
            _ => return None,
        })
    }

    /// Whether `arch` accepts this control (and its parameter is in range).
    pub fn legal_on(self, arch: Arch) -> bool {
        let gfx9 = arch.family() == Family::Gfx9;
        match self {
            DppCtrl::QuadPerm(s) => s.iter().all(|&x| x < 4),
            DppCtrl::RowShl(n) | DppCtrl::RowShr(n) | DppCtrl::RowRor(n) => (1..=15).contains(&n),
            DppCtrl::WaveShl1
            | DppCtrl::WaveRol1
            | DppCtrl::WaveShr1
            | DppCtrl::WaveRor1
            | DppCtrl::RowBcast15
            | DppCtrl::RowBcast31 => gfx9,
            DppCtrl::RowMirror | DppCtrl::RowHalfMirror => true,
            DppCtrl::RowShare(n) => n < 16,
            DppCtrl::RowXmask(n) => !gfx9 && n < 16,
        }
    }

    /// The lane that lane `lane` reads under this control in a wave of `wave_lanes` lanes, or
    /// `None` when the source is off the row or wave edge ("invalid": bound_ctrl decides). EXEC is
    /// not considered here.
    pub fn src_lane(self, lane: u32, wave_lanes: u32) -> Option<u32> {
        let row = lane & !15;
        let i = lane & 15;
        match self {
            DppCtrl::QuadPerm(s) => Some((lane & !3) + u32::from(s[(lane & 3) as usize] & 3)),
            DppCtrl::RowShl(n) => {
                let j = i + u32::from(n);
                (j < 16).then_some(row + j)
            }
            DppCtrl::RowShr(n) => i.checked_sub(u32::from(n)).map(|j| row + j),
            DppCtrl::RowRor(n) => Some(row + ((i + 16 - u32::from(n)) & 15)),
            DppCtrl::WaveShl1 => (lane + 1 < wave_lanes).then_some(lane + 1),
            DppCtrl::WaveRol1 => Some((lane + 1) % wave_lanes),
            DppCtrl::WaveShr1 => lane.checked_sub(1),
            DppCtrl::WaveRor1 => Some((lane + wave_lanes - 1) % wave_lanes),
            DppCtrl::RowMirror => Some(row + 15 - i),
            DppCtrl::RowHalfMirror => Some((lane & !7) + 7 - (lane & 7)),
            DppCtrl::RowBcast15 => (row >= 16).then(|| row - 1),
            DppCtrl::RowBcast31 => (row >= 32).then_some(31),
            DppCtrl::RowShare(n) => Some(row + u32::from(n)),
            DppCtrl::RowXmask(n) => Some(row + (i ^ u32::from(n))),
        }
    }
}

/// A DPP16 modifier: control, write masks and the invalid/inactive-lane rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpp16 {
    /// The lane pattern.
    pub ctrl: DppCtrl,
    /// Bit r enables the lanes of row r (lanes 16r..16r+15); others are not written.
    pub row_mask: u8,
    /// Bit b enables bank b of every row (lanes 4b..4b+3 of the row); others are not written.
    pub bank_mask: u8,
    /// The BOUND_CTRL *bit*: 1 = an invalid source reads 0; 0 = such a lane is not written.
    /// (GFX9 assembler text spells bit 1 as `bound_ctrl:0`; the printer follows each family.)
    pub bound_ctrl: bool,
    /// FETCH_INACTIVE (GFX10+ only): read EXEC-disabled source lanes instead of treating them as invalid.
    pub fi: bool,
}

impl Dpp16 {
    /// A control with full masks, bound_ctrl 0 and fi 0.
    pub fn new(ctrl: DppCtrl) -> Dpp16 {
        Dpp16 { ctrl, row_mask: 0xF, bank_mask: 0xF, bound_ctrl: false, fi: false }
    }

    /// Whether the lane is enabled by the row and bank masks.
    pub fn lane_enabled(&self, lane: u32) -> bool {
        let row = (lane >> 4) & 3;
        let bank = (lane >> 2) & 3;
        self.row_mask >> row & 1 == 1 && self.bank_mask >> bank & 1 == 1
    }
}

/// A DPP8 modifier (GFX11): within each group of 8 lanes, lane j reads lane `sel[j]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpp8 {
    /// Selector per lane of the group (0..=7).
    pub sel: [u8; 8],
    /// FETCH_INACTIVE: read EXEC-disabled lanes; without it they read 0.
    pub fi: bool,
}

impl Dpp8 {
    /// The 24-bit selector field.
    pub(crate) fn encode_sel(&self) -> u32 {
        self.sel.iter().enumerate().fold(0, |acc, (j, &s)| acc | (u32::from(s) & 7) << (3 * j))
    }

    /// The selectors from the 24-bit field.
    pub(crate) fn decode_sel(field: u32) -> [u8; 8] {
        std::array::from_fn(|j| (field >> (3 * j) & 7) as u8)
    }

    /// The lane that `lane` reads.
    pub fn src_lane(&self, lane: u32) -> u32 {
        (lane & !7) + u32::from(self.sel[(lane & 7) as usize] & 7)
    }
}
