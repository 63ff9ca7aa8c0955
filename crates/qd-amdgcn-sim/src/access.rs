//! Which registers an instruction reads and writes, derived from its [`Shape`] (operand order)
//! plus the implicit operands (EXEC for compares-to-EXEC and saveexec, VCC for branches, M0 for
//! `ds_read_addtid`). The hazard checker and the memory-wait checker both work from this, and so
//! do the compiler's wait and hazard passes, which compute it once per instruction: the lists
//! are kept inline ([`Regs`]), so computing one allocates nothing.

use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{Inst, Operand, RegRange, Shape, MAX_OPERANDS};

use super::ops::Sem;

/// Scalar register numbers in one space for every family: s0..s105, then vcc_lo = 106,
/// vcc_hi = 107, m0 = 124, exec_lo = 126, exec_hi = 127.
pub(crate) const VCC_LO: u16 = 106;
pub(crate) const M0: u16 = 124;
pub(crate) const EXEC_LO: u16 = 126;

/// A run of scalar registers in that numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SRange {
    /// The first register.
    pub first: u16,
    /// How many registers.
    pub len: u8,
}

impl SRange {
    /// Whether the two runs share a register.
    pub fn overlaps(self, o: SRange) -> bool {
        let (a0, b0) = (u32::from(self.first), u32::from(o.first));
        a0 < b0 + u32::from(o.len) && b0 < a0 + u32::from(self.len)
    }

    pub(crate) fn is_exec(self) -> bool {
        self.overlaps(SRange { first: EXEC_LO, len: 2 })
    }

    pub(crate) fn is_vcc(self) -> bool {
        self.overlaps(SRange { first: VCC_LO, len: 2 })
    }
}

/// Whether two VGPR ranges overlap.
pub fn voverlap(a: RegRange, b: RegRange) -> bool {
    let (a0, b0) = (u32::from(a.first), u32::from(b.first));
    a0 < b0 + u32::from(b.len) && b0 < a0 + u32::from(a.len)
}

/// Something a [`Regs`] list can hold, with a filler value for its unused entries.
pub trait Filler: Copy {
    /// The filler.
    const FILLER: Self;
}

impl Filler for RegRange {
    const FILLER: RegRange = RegRange { first: 0, len: 0 };
}

impl Filler for SRange {
    const FILLER: SRange = SRange { first: 0, len: 0 };
}

/// A list of at most `N` register ranges, kept inline. It reads as a slice.
#[derive(Clone, Copy)]
pub struct Regs<T: Filler, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Filler, const N: usize> Regs<T, N> {
    /// The empty list.
    pub const EMPTY: Self = Regs { len: 0, items: [T::FILLER; N] };

    /// Appends `x`. The capacities of [`Access`] are those of the operand array (each operand
    /// slot adds at most one range, and the implicit registers have their own room), so a full
    /// list cannot be pushed to.
    fn push(&mut self, x: T) {
        self.items[usize::from(self.len)] = x;
        self.len += 1;
    }

    fn extend(&mut self, x: Option<T>) {
        if let Some(x) = x {
            self.push(x);
        }
    }
}

impl<T: Filler, const N: usize> Default for Regs<T, N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<T: Filler, const N: usize> std::ops::Deref for Regs<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }
}

impl<'a, T: Filler, const N: usize> IntoIterator for &'a Regs<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Filler + std::fmt::Debug, const N: usize> std::fmt::Debug for Regs<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Filler + PartialEq, const N: usize> PartialEq for Regs<T, N> {
    fn eq(&self, o: &Self) -> bool {
        **self == **o
    }
}

/// Room for one range per operand slot.
const OPS: usize = MAX_OPERANDS;

/// VGPR ranges of one instruction ([`Access::vdefs`], [`Access::vuses`]).
pub type VRegs = Regs<RegRange, OPS>;

/// Scalar registers one instruction writes ([`Access::sdefs`]).
pub type SDefs = Regs<SRange, { OPS + 1 }>;

/// The scalar registers an operand names (nothing for VGPRs and constants).
pub(crate) fn srange(op: Operand, lanes: u32) -> Option<SRange> {
    let mask_len = if lanes == 64 { 2 } else { 1 };
    Some(match op {
        Operand::Sgpr(r) => SRange { first: r.first, len: r.len },
        Operand::Vcc => SRange { first: VCC_LO, len: mask_len },
        Operand::VccLo => SRange { first: VCC_LO, len: 1 },
        Operand::VccHi => SRange { first: VCC_LO + 1, len: 1 },
        Operand::Exec => SRange { first: EXEC_LO, len: mask_len },
        Operand::ExecLo => SRange { first: EXEC_LO, len: 1 },
        Operand::ExecHi => SRange { first: EXEC_LO + 1, len: 1 },
        Operand::M0 => SRange { first: M0, len: 1 },
        _ => return None,
    })
}

/// The registers one instruction reads and writes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Access {
    /// VGPRs written.
    pub vdefs: VRegs,
    /// VGPRs read (explicit operands).
    pub vuses: VRegs,
    /// Scalar registers written (explicit and implicit).
    pub sdefs: SDefs,
    /// Scalar registers read explicitly.
    pub suses: Regs<SRange, OPS>,
    /// Scalar registers read implicitly (VCC of a branch, EXEC of saveexec, M0 of addtid).
    pub simplicit: Regs<SRange, 1>,
    /// Whether a literal is among the sources.
    pub literal: bool,
}

impl Access {
    /// Whether the instruction writes EXEC (or part of it).
    pub fn writes_exec(&self) -> bool {
        self.sdefs.iter().any(|r| r.is_exec())
    }
}

/// Operand slot roles of a shape: (defs, uses) as operand indices.
fn roles(shape: Shape, family: Family) -> (&'static [usize], &'static [usize]) {
    match shape {
        Shape::Sop1 { .. } => (&[0], &[1]),
        Shape::Sop1Dst { .. } => (&[0], &[]),
        Shape::Sop1Src { .. } => (&[], &[0]),
        Shape::Sop2 { .. } => (&[0], &[1, 2]),
        Shape::Sopk => (&[0], &[0]),
        Shape::SopkCmp | Shape::SopkWaitcnt => (&[], &[0]),
        Shape::Sopc { .. } => (&[], &[0, 1]),
        Shape::Sopp(_) | Shape::SmemNone | Shape::Vop1None | Shape::CacheCtl => (&[], &[]),
        Shape::SmemLoad { .. } => (&[0], &[1, 2]),
        Shape::SmemDst { .. } => (&[0], &[]),
        Shape::Vop1 { .. } | Shape::Vop1Sdst => (&[0], &[1]),
        Shape::Vop2 { .. } | Shape::Vop3 { .. } | Shape::Vopc { .. } | Shape::VopcClass { .. } => (&[0], &[1, 2]),
        Shape::Vop2Tied => (&[0], &[0, 1, 2]),
        Shape::Vop2Cndmask => (&[0], &[1, 2, 3]),
        Shape::Vop2CarryOut => (&[0, 1], &[2, 3]),
        Shape::Vop2CarryInOut | Shape::Vop3bMad | Shape::Vop3bDivScale { .. } => (&[0, 1], &[2, 3, 4]),
        Shape::VopcX { .. } => match family {
            Family::Gfx9 => (&[0], &[1, 2]),
            Family::Gfx11 => (&[], &[0, 1]),
        },
        Shape::Vop3Three { .. } => (&[0], &[1, 2, 3]),
        Shape::Readlane => (&[0], &[1, 2]),
        Shape::Writelane => (&[0], &[1, 2]),
        Shape::Permlane => (&[0], &[0, 1, 2, 3]),
        Shape::DsLoad { .. } | Shape::DsLoad2 { .. } | Shape::DsSwizzle => (&[0], &[1]),
        Shape::DsStore { .. } | Shape::DsAtomic { .. } => (&[], &[0, 1]),
        Shape::DsAtomicRtn { .. } => (&[0], &[1, 2]),
        Shape::DsCmpstRtn { .. } => (&[0], &[1, 2, 3]),
        Shape::DsAddtid => (&[0], &[]),
        Shape::FlatLoad { .. } => (&[0], &[1]),
        Shape::FlatStore { .. } => (&[], &[0, 1]),
        Shape::GlobalLoad { .. } => (&[0], &[1, 2]),
        Shape::GlobalStore { .. } => (&[], &[0, 1, 2]),
        Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. } => (&[0], &[1, 2, 3]),
    }
}

/// The registers `inst` reads and writes in a wave of `lanes` lanes.
pub fn access(inst: &Inst, sem: Sem, family: Family, lanes: u32) -> Access {
    let mut a = Access::default();
    let (defs, uses) = roles(inst.op.info().shape, family);
    for &i in defs {
        match inst.operands[i] {
            Operand::Vgpr(r) => a.vdefs.push(r),
            op => a.sdefs.extend(srange(op, lanes)),
        }
    }
    for &i in uses {
        match inst.operands[i] {
            Operand::Vgpr(r) => a.vuses.push(r),
            Operand::Literal(_) => a.literal = true,
            op => a.suses.extend(srange(op, lanes)),
        }
    }
    let exec = SRange { first: EXEC_LO, len: if lanes == 64 { 2 } else { 1 } };
    let vcc = SRange { first: VCC_LO, len: if lanes == 64 { 2 } else { 1 } };
    match sem {
        Sem::SSaveexec(_) => {
            a.sdefs.push(exec);
            a.simplicit.push(exec);
        }
        Sem::VCmpx(..) => a.sdefs.push(exec),
        Sem::SBranch(super::ops::Cond::Vccz | super::ops::Cond::Vccnz) => a.simplicit.push(vcc),
        Sem::SBranch(super::ops::Cond::Execz | super::ops::Cond::Execnz) => a.simplicit.push(exec),
        Sem::DsAddtid => a.simplicit.push(SRange { first: M0, len: 1 }),
        Sem::VDivFmas(_) => a.simplicit.push(vcc),
        _ => {}
    }
    a
}
