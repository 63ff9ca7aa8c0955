//! The memory-result wait checker (docs/amdgcn-isa-facts.md §8.2, §11.2).
//!
//! Loads write their registers when they are simulated (at issue), but the registers stay *pending*
//! until an `s_waitcnt` proves the result has returned; reading (or overwriting) a pending register
//! is a `MissingWait` error naming both instructions. What a wait proves:
//! * lgkmcnt(N): DS operations return in order among themselves, so all but the N youngest DS
//!   operations are done; SMEM (and the LDS half of FLAT) may return out of order, so only
//!   lgkmcnt(0) completes them;
//! * vmcnt(N): vector-memory loads (and returning atomics) return in order, so all but the N
//!   youngest are done; on GFX9 stores share the counter and are in order among stores;
//! * vscnt(N) (GFX11): the same for stores and non-returning atomics.
//!
//! A wave that reaches `s_barrier` with an LDS write still pending is also an error: the other
//! waves of the workgroup would not be guaranteed to see it (LLVM always emits `lgkmcnt(0)` there).

use std::collections::VecDeque;

use qd_amdgcn_isa::Family;
use qd_amdgcn_isa::{RegRange, Waitcnt};

use super::access::{voverlap, Access, SRange};
use super::{Fault, SimErrorKind};

/// What kind of operation is outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Scalar memory load (lgkmcnt, out of order).
    Smem,
    /// LDS operation (lgkmcnt, in order).
    Ds,
    /// Vector-memory load or returning atomic (vmcnt, in order).
    VmLoad,
    /// Vector-memory store or non-returning atomic (vmcnt on GFX9, vscnt on GFX11; in order).
    VmStore,
    /// The LDS half of a FLAT access (lgkmcnt, out of order).
    FlatLgkm,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Smem => "SMEM load",
            Kind::Ds => "LDS operation",
            Kind::VmLoad => "vector-memory load",
            Kind::VmStore => "vector-memory store",
            Kind::FlatLgkm => "FLAT access",
        }
    }

    fn counter(self) -> &'static str {
        match self {
            Kind::Smem | Kind::FlatLgkm => "lgkmcnt(0)",
            Kind::Ds => "lgkmcnt",
            Kind::VmLoad => "vmcnt",
            Kind::VmStore => "vmcnt/vscnt",
        }
    }
}

#[derive(Clone, Debug)]
struct Pending {
    kind: Kind,
    offset: u32,
    vdefs: Vec<RegRange>,
    sdefs: Vec<SRange>,
    lds_write: bool,
}

/// The outstanding memory operations of one wave.
#[derive(Clone, Debug, Default)]
pub(crate) struct Waits {
    lgkm: VecDeque<Pending>,
    vm: VecDeque<Pending>,
    vs: VecDeque<Pending>,
}

fn retire_in_order(q: &mut VecDeque<Pending>, kind: Kind, keep: usize) {
    let total = q.iter().filter(|p| p.kind == kind).count();
    let mut drop = total.saturating_sub(keep);
    q.retain(|p| {
        if drop > 0 && p.kind == kind {
            drop -= 1;
            false
        } else {
            true
        }
    });
}

impl Waits {
    fn all(&self) -> impl Iterator<Item = &Pending> {
        self.lgkm.iter().chain(&self.vm).chain(&self.vs)
    }

    /// Checks that the registers `acc` reads and writes are not pending. A write is allowed when
    /// the pending operation is of the same in-order kind as the writer (`writer`), since the
    /// older result then lands first.
    pub(crate) fn check(&self, acc: &Access, writer: Option<Kind>) -> Result<(), Fault> {
        for p in self.all() {
            for &v in &acc.vuses {
                if p.vdefs.iter().any(|&d| voverlap(d, v)) {
                    return Err(missing(p, &format!("reads v{}", v.first)));
                }
            }
            for &s in acc.suses.iter().chain(&acc.simplicit) {
                if p.sdefs.iter().any(|&d| d.overlaps(s)) {
                    return Err(missing(p, &format!("reads s{}", s.first)));
                }
            }
            let same_order = writer == Some(p.kind) && matches!(p.kind, Kind::Ds | Kind::VmLoad);
            if same_order {
                continue;
            }
            for &v in &acc.vdefs {
                if p.vdefs.iter().any(|&d| voverlap(d, v)) {
                    return Err(missing(p, &format!("overwrites v{}", v.first)));
                }
            }
            for &s in &acc.sdefs {
                if p.sdefs.iter().any(|&d| d.overlaps(s)) {
                    return Err(missing(p, &format!("overwrites s{}", s.first)));
                }
            }
        }
        Ok(())
    }

    /// Records an issued memory operation.
    pub(crate) fn issue(&mut self, family: Family, kind: Kind, offset: u32, acc: &Access, lds_write: bool) {
        let p = Pending { kind, offset, vdefs: acc.vdefs.to_vec(), sdefs: acc.sdefs.to_vec(), lds_write };
        match kind {
            Kind::Smem | Kind::Ds | Kind::FlatLgkm => self.lgkm.push_back(p),
            Kind::VmLoad => self.vm.push_back(p),
            Kind::VmStore => match family {
                Family::Gfx9 => self.vm.push_back(p),
                Family::Gfx11 => self.vs.push_back(p),
            },
        }
    }

    /// A FLAT access: counted by vmcnt (or vscnt) and lgkmcnt; its registers stay pending until
    /// both entries are retired.
    pub(crate) fn issue_flat(&mut self, family: Family, store: bool, offset: u32, acc: &Access) {
        self.issue(family, if store { Kind::VmStore } else { Kind::VmLoad }, offset, acc, false);
        self.issue(family, Kind::FlatLgkm, offset, acc, false);
    }

    /// `s_waitcnt`.
    pub(crate) fn wait(&mut self, w: Waitcnt, family: Family) {
        let lgkm = usize::from(w.lgkm);
        if lgkm == 0 {
            self.lgkm.clear();
        } else if lgkm < usize::from(Waitcnt::lgkm_max(family)) {
            retire_in_order(&mut self.lgkm, Kind::Ds, lgkm);
        }
        let vm = usize::from(w.vm);
        if vm < usize::from(Waitcnt::VM_MAX) {
            retire_in_order(&mut self.vm, Kind::VmLoad, vm);
            retire_in_order(&mut self.vm, Kind::VmStore, vm);
        }
    }

    /// `s_waitcnt_vscnt` (GFX11).
    pub(crate) fn wait_vs(&mut self, n: u32) {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        retire_in_order(&mut self.vs, Kind::VmStore, n);
    }

    /// Fails if an LDS write is still pending (checked at `s_barrier`).
    pub(crate) fn check_barrier(&self) -> Result<(), Fault> {
        if let Some(p) = self.lgkm.iter().find(|p| p.lds_write) {
            return Err(Fault::new(
                SimErrorKind::MissingWait,
                format!(
                    "s_barrier with the LDS write at 0x{:x} not yet waited for; other waves may not see it \
                     (s_waitcnt lgkmcnt(0) is required before the barrier)",
                    p.offset
                ),
            ));
        }
        Ok(())
    }
}

fn missing(p: &Pending, what: &str) -> Fault {
    Fault::new(
        SimErrorKind::MissingWait,
        format!(
            "{what} before the {} at 0x{:x} was waited for (needs s_waitcnt {})",
            p.kind.name(),
            p.offset,
            p.kind.counter()
        ),
    )
}
