//! The AMD GPU targets qd emits code for, and the facts about them that every layer needs:
//! encoding family, wave size, e_flags machine number and the target-id string.
//!
//! gfx90a (CDNA2) and gfx942 (CDNA3) share the GFX9 encoding family; gfx1100 (RDNA3) is GFX11.
//! Wave64 is the default everywhere (as in Quadrants); gfx1100 can also run wave32.

use std::fmt;

/// One AMD GPU architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// MI200 (CDNA2), GFX9 family.
    Gfx90a,
    /// MI300 (CDNA3), GFX9 family with the gfx940 additions.
    Gfx942,
    /// RDNA3, GFX11 family.
    Gfx1100,
}

/// The instruction-encoding family of an [`Arch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// gfx90a, gfx942.
    Gfx9,
    /// gfx1100.
    Gfx11,
}

impl Arch {
    /// Every supported architecture, in a stable order.
    pub const ALL: [Arch; 3] = [Arch::Gfx90a, Arch::Gfx942, Arch::Gfx1100];

    /// The encoding family.
    pub fn family(self) -> Family {
        match self {
            Arch::Gfx90a | Arch::Gfx942 => Family::Gfx9,
            Arch::Gfx1100 => Family::Gfx11,
        }
    }

    /// The LLVM processor name (`-mcpu`), e.g. `gfx942`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Gfx90a => "gfx90a",
            Arch::Gfx942 => "gfx942",
            Arch::Gfx1100 => "gfx1100",
        }
    }

    /// Parses an LLVM processor name.
    pub fn from_name(name: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.name() == name)
    }

    /// `EF_AMDGPU_MACH` (the low byte of e_flags).
    pub fn mach(self) -> u32 {
        match self {
            Arch::Gfx90a => 0x03F,
            Arch::Gfx942 => 0x04C,
            Arch::Gfx1100 => 0x041,
        }
    }

    /// Whether the target has the xnack and sramecc target features (e_flags bits).
    pub fn has_xnack_sramecc(self) -> bool {
        self.family() == Family::Gfx9
    }

    /// The wave sizes the architecture can run.
    pub fn wave_sizes(self) -> &'static [WaveSize] {
        match self {
            Arch::Gfx90a | Arch::Gfx942 => &[WaveSize::W64],
            Arch::Gfx1100 => &[WaveSize::W64, WaveSize::W32],
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Lanes per wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveSize {
    /// 32 lanes (gfx1100 only).
    W32,
    /// 64 lanes (every target; qd's default).
    W64,
}

impl WaveSize {
    /// The number of lanes.
    pub fn lanes(self) -> u32 {
        match self {
            WaveSize::W32 => 32,
            WaveSize::W64 => 64,
        }
    }

    /// SGPRs in a lane mask (VCC, EXEC, compare results): 1 in wave32, 2 in wave64.
    pub fn mask_sgprs(self) -> u8 {
        match self {
            WaveSize::W32 => 1,
            WaveSize::W64 => 2,
        }
    }

    /// The lane-mask register VOPC compares write and `v_cndmask` reads: `vcc` in wave64,
    /// `vcc_lo` in wave32.
    pub fn vcc(self) -> crate::Operand {
        match self {
            WaveSize::W32 => crate::Operand::VccLo,
            WaveSize::W64 => crate::Operand::Vcc,
        }
    }
}

/// An architecture together with the wave size the code is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture.
    pub arch: Arch,
    /// The wave size; must be one of `arch.wave_sizes()`.
    pub wave: WaveSize,
}

impl Target {
    /// The architecture in wave64.
    pub fn wave64(arch: Arch) -> Target {
        Target { arch, wave: WaveSize::W64 }
    }

    /// A target, or `None` when the architecture cannot run that wave size.
    pub fn new(arch: Arch, wave: WaveSize) -> Option<Target> {
        arch.wave_sizes().contains(&wave).then_some(Target { arch, wave })
    }

    /// The encoding family.
    pub fn family(self) -> Family {
        self.arch.family()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.arch.family(), self.wave) {
            (Family::Gfx11, WaveSize::W64) => write!(f, "{} (wave64)", self.arch),
            (Family::Gfx11, WaveSize::W32) => write!(f, "{} (wave32)", self.arch),
            (Family::Gfx9, _) => write!(f, "{}", self.arch),
        }
    }
}
