//! PTX targets and ISA versions: which `.target` (sm_70 … sm_90) and which `.version` a module
//! declares, and the minimum of each per feature the lowering may use.
//!
//! The `.version` of a module is the highest of the target's own minimum and the minimum of every
//! feature it uses (docs/ptx.md §1), and never above the cap a driver sets
//! ([`PtxVersion::from_driver_version`]).

use core::fmt;

/// A PTX target architecture (`.target sm_XY`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sm {
    /// Volta (V100): the minimum, `shfl.sync`/`vote.sync`/`match.sync` and scoped atomics.
    Sm70,
    /// Turing.
    Sm75,
    /// Ampere (A100): adds `redux.sync`.
    Sm80,
    /// Ampere (GA10x).
    Sm86,
    /// Ada.
    Sm89,
    /// Hopper (H100): adds `elect.sync`.
    Sm90,
}

impl Sm {
    /// Every target, oldest first.
    pub const ALL: [Sm; 6] = [Sm::Sm70, Sm::Sm75, Sm::Sm80, Sm::Sm86, Sm::Sm89, Sm::Sm90];

    /// The `.target` name (`sm_80`).
    pub fn name(self) -> &'static str {
        match self {
            Sm::Sm70 => "sm_70",
            Sm::Sm75 => "sm_75",
            Sm::Sm80 => "sm_80",
            Sm::Sm86 => "sm_86",
            Sm::Sm89 => "sm_89",
            Sm::Sm90 => "sm_90",
        }
    }

    /// Parses `sm_80` (also `80`).
    pub fn from_name(s: &str) -> Option<Sm> {
        let s = s.strip_prefix("sm_").unwrap_or(s);
        Sm::ALL.into_iter().find(|t| &t.name()[3..] == s)
    }

    /// The compute capability as `major * 10 + minor`.
    pub fn cc(self) -> u32 {
        self.name()[3..].parse().unwrap_or(70)
    }

    /// The newest target a device of compute capability `major.minor` runs (PTX for `sm_XY`
    /// JIT-compiles on any newer GPU, so devices newer than sm_90 get sm_90); `None` below 7.0.
    pub fn from_compute_capability(major: u32, minor: u32) -> Option<Sm> {
        let cc = major * 10 + minor;
        Sm::ALL.into_iter().rev().find(|t| t.cc() <= cc)
    }

    /// The most shared memory one block may use, in bytes (with the opt-in above the 48 KiB a
    /// kernel may declare statically; CUDA C Programming Guide, "Technical Specifications per
    /// Compute Capability").
    pub fn max_shared_bytes(self) -> u32 {
        match self {
            Sm::Sm70 => 96 * 1024,
            Sm::Sm75 => 64 * 1024,
            Sm::Sm80 => 163 * 1024,
            Sm::Sm86 | Sm::Sm89 => 99 * 1024,
            Sm::Sm90 => 227 * 1024,
        }
    }

    /// The lowest `.version` ptxas accepts for this target.
    pub fn min_version(self) -> PtxVersion {
        match self {
            Sm::Sm70 => PtxVersion::new(6, 0),
            Sm::Sm75 => PtxVersion::new(6, 3),
            Sm::Sm80 => PtxVersion::new(7, 0),
            Sm::Sm86 => PtxVersion::new(7, 1),
            Sm::Sm89 | Sm::Sm90 => PtxVersion::new(7, 8),
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A PTX ISA version (`.version 8.0`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    /// Major number.
    pub major: u8,
    /// Minor number.
    pub minor: u8,
}

impl PtxVersion {
    /// `major.minor`.
    pub const fn new(major: u8, minor: u8) -> PtxVersion {
        PtxVersion { major, minor }
    }

    /// The newest PTX ISA a CUDA driver of `cuDriverGetVersion` = `v` (e.g. 12080) loads
    /// (docs/ptx.md §1, "Which PTX a driver loads": 12.x loads 8.x, 13.x loads 9.x; 11.x
    /// loads 7.x).
    pub fn from_driver_version(v: u32) -> PtxVersion {
        let (major, minor) = (v / 1000, (v % 1000) / 10);
        match major {
            0..=8 => PtxVersion::new(5, 0),
            9 => PtxVersion::new(6, minor.min(2) as u8),
            10 => PtxVersion::new(6, if minor >= 2 { 5 } else { 3 + minor as u8 }),
            11 => PtxVersion::new(7, minor.min(8) as u8),
            12 => match minor {
                0..=4 => PtxVersion::new(8, minor as u8),
                5 | 6 => PtxVersion::new(8, 5),
                m => PtxVersion::new(8, (m - 1).min(9) as u8),
            },
            13 => PtxVersion::new(9, minor.min(9) as u8),
            _ => PtxVersion::new(9, 9),
        }
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A PTX feature whose minimum target or version is above the sm_70 / 6.0 baseline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `activemask.b32` (PTX 6.2).
    ActiveMask,
    /// `nanosleep.u32` (PTX 6.3).
    Nanosleep,
    /// `redux.sync` on 32-bit integers (sm_80, PTX 7.0).
    Redux,
    /// `elect.sync` (sm_90, PTX 8.0).
    Elect,
}

impl Feature {
    /// The instruction text the feature stands for (used in errors).
    pub fn name(self) -> &'static str {
        match self {
            Feature::ActiveMask => "activemask.b32",
            Feature::Nanosleep => "nanosleep.u32",
            Feature::Redux => "redux.sync",
            Feature::Elect => "elect.sync",
        }
    }

    /// The oldest target that has it.
    pub fn min_target(self) -> Sm {
        match self {
            Feature::ActiveMask | Feature::Nanosleep => Sm::Sm70,
            Feature::Redux => Sm::Sm80,
            Feature::Elect => Sm::Sm90,
        }
    }

    /// The oldest PTX ISA version that has it.
    pub fn min_version(self) -> PtxVersion {
        match self {
            Feature::ActiveMask => PtxVersion::new(6, 2),
            Feature::Nanosleep => PtxVersion::new(6, 3),
            Feature::Redux => PtxVersion::new(7, 0),
            Feature::Elect => PtxVersion::new(8, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_capabilities() {
        for t in Sm::ALL {
            assert_eq!(Sm::from_name(t.name()), Some(t));
        }
        assert_eq!(Sm::from_name("sm_72"), None);
        assert_eq!(Sm::from_compute_capability(9, 0), Some(Sm::Sm90));
        assert_eq!(Sm::from_compute_capability(10, 0), Some(Sm::Sm90));
        assert_eq!(Sm::from_compute_capability(8, 7), Some(Sm::Sm86));
        assert_eq!(Sm::from_compute_capability(7, 2), Some(Sm::Sm70));
        assert_eq!(Sm::from_compute_capability(6, 1), None);
    }

    #[test]
    fn driver_versions() {
        assert_eq!(PtxVersion::from_driver_version(12080), PtxVersion::new(8, 7));
        assert_eq!(PtxVersion::from_driver_version(12040), PtxVersion::new(8, 4));
        assert_eq!(PtxVersion::from_driver_version(12060), PtxVersion::new(8, 5));
        assert_eq!(PtxVersion::from_driver_version(13000), PtxVersion::new(9, 0));
        assert_eq!(PtxVersion::from_driver_version(11080), PtxVersion::new(7, 8));
        assert_eq!(PtxVersion::from_driver_version(12000), PtxVersion::new(8, 0));
    }
}
