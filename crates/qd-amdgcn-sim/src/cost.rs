//! Instruction classes and THE cycle-estimate table (docs/shuffle-lowering.md §5), in one place.
//!
//! The estimate is a serial issue model: every executed instruction of a wave costs its class's
//! cycles, `s_nop N` costs N + 1 wait states. Values marked §5 are the cost-model seed of
//! docs/shuffle-lowering.md §5 (its VALU, permlane, readlane, `ds_swizzle` and `ds_bpermute` rows —
//! with the wait states gfx942 needs after a `v_readlane` (docs/amdgcn-isa-facts.md §11.1 row 8)
//! left to the `s_nop`s that the code really contains, and the LDS rows including their
//! `s_waitcnt`, so waits cost 0); the others are estimates, marked (I) ("inferred"). All of them
//! are to be recalibrated on hardware (docs/shuffle-lowering.md §5, last paragraph).

use qd_amdgcn_isa::{Dpp, Inst};
use qd_amdgcn_isa::{Family, Target, WaveSize};

use super::ops::{self, Sem};

/// The class an executed instruction is counted under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstClass {
    /// Scalar ALU.
    Salu,
    /// Vector ALU (not DPP, not cross-lane, not transcendental).
    Valu,
    /// Transcendental VALU (`v_rcp/sqrt/rsq/exp/log_f32`).
    Trans,
    /// A VALU instruction with DPP16 or DPP8.
    Dpp,
    /// `v_permlane16/x16/64_b32`.
    Permlane,
    /// `v_readlane/v_writelane/v_readfirstlane_b32`.
    Readlane,
    /// `ds_bpermute_b32` / `ds_permute_b32`.
    LdsPermute,
    /// `ds_swizzle_b32`.
    LdsSwizzle,
    /// LDS loads, stores and atomics.
    Lds,
    /// Scalar memory.
    Smem,
    /// FLAT/GLOBAL memory.
    Vmem,
    /// Branches and PC writes.
    Branch,
    /// `s_waitcnt`, `s_waitcnt_vscnt`, `s_waitcnt_depctr`.
    Waitcnt,
    /// `s_nop`, `v_nop`.
    Nop,
    /// `s_barrier`.
    Barrier,
    /// Everything else (`s_endpgm`, hints, cache control).
    Other,
}

/// The class of an instruction.
pub fn class(inst: &Inst, sem: Sem) -> InstClass {
    if ops::is_valu(sem) {
        return match sem {
            Sem::VNop => InstClass::Nop,
            Sem::VPermlane16 | Sem::VPermlanex16 | Sem::VPermlane64 => InstClass::Permlane,
            Sem::VReadlane | Sem::VWritelane | Sem::VReadfirstlane => InstClass::Readlane,
            _ if inst.dpp != Dpp::None => InstClass::Dpp,
            _ if ops::is_trans(sem) => InstClass::Trans,
            _ => InstClass::Valu,
        };
    }
    match sem {
        Sem::DsBpermute | Sem::DsPermute => InstClass::LdsPermute,
        Sem::DsSwizzle => InstClass::LdsSwizzle,
        _ if ops::is_ds(sem) => InstClass::Lds,
        _ if ops::is_vmem(sem) => InstClass::Vmem,
        Sem::SLoad | Sem::SBufferLoad | Sem::SMemtime => InstClass::Smem,
        Sem::SBranch(_) | Sem::SSetpc | Sem::SSwappc => InstClass::Branch,
        Sem::SWaitcnt | Sem::SWaitcntVscnt | Sem::SWaitcntDepctr => InstClass::Waitcnt,
        Sem::SNop => InstClass::Nop,
        Sem::SBarrier => InstClass::Barrier,
        Sem::SEndpgm | Sem::STrap | Sem::SHint | Sem::SDcacheInv | Sem::CacheCtl => InstClass::Other,
        _ => InstClass::Salu,
    }
}

/// Cycles per class and per target (docs/shuffle-lowering.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostTable {
    /// Scalar ALU ((I): GFX9 one issue per 4 clocks; GFX11 SISchedule SALU = 2).
    pub salu: u32,
    /// §5's VALU row (gfx942 4, gfx1100 wave64 7; wave32 (I) 5 = one pass, SISchedule GFX11 VALU).
    pub valu: u32,
    /// Transcendentals ((I): as VALU).
    pub trans: u32,
    /// A DPP VALU step without its wait states (§5's DPP VALU row; GFX9's are the s_nops).
    pub dpp: u32,
    /// §5's permlane row (gfx1100: 8; gfx9 has no permlane).
    pub permlane: u32,
    /// §5's readlane row, without gfx942's wait states after it (gfx942 4, gfx1100 8).
    pub readlane: u32,
    /// §5's `ds_bpermute_b32` row, including the wait (50).
    pub lds_permute: u32,
    /// §5's `ds_swizzle_b32` row, including the wait (40).
    pub lds_swizzle: u32,
    /// LDS load/store/atomic including the wait ((I): as `ds_swizzle`, same LDS path).
    pub lds: u32,
    /// Scalar memory load including the wait ((I): SISchedule SMEM 5 × 4 clocks).
    pub smem: u32,
    /// Vector memory access including the wait ((I): a cached global access).
    pub vmem: u32,
    /// Branch ((I)).
    pub branch: u32,
    /// A wait instruction itself: 0, the memory costs (`ds_swizzle`, `ds_bpermute`, …) already
    /// include their wait.
    pub waitcnt: u32,
    /// One wait state of `s_nop` (GFX9: 4 clocks, §5; GFX11 (I) 1).
    pub nop_state: u32,
    /// `s_barrier` ((I)).
    pub barrier: u32,
    /// Other instructions ((I)).
    pub other: u32,
}

impl CostTable {
    /// The table for a target.
    pub fn for_target(target: Target) -> CostTable {
        match (target.family(), target.wave) {
            (Family::Gfx9, _) => CostTable {
                salu: 4,
                valu: 4,
                trans: 4,
                dpp: 4,
                permlane: 8,
                readlane: 4,
                lds_permute: 50,
                lds_swizzle: 40,
                lds: 40,
                smem: 20,
                vmem: 300,
                branch: 4,
                waitcnt: 0,
                nop_state: 4,
                barrier: 4,
                other: 1,
            },
            (Family::Gfx11, wave) => {
                let v = if wave == WaveSize::W64 { 7 } else { 5 };
                CostTable {
                    salu: 2,
                    valu: v,
                    trans: v,
                    dpp: v,
                    permlane: 8,
                    readlane: 8,
                    lds_permute: 50,
                    lds_swizzle: 40,
                    lds: 40,
                    smem: 20,
                    vmem: 300,
                    branch: 4,
                    waitcnt: 0,
                    nop_state: 1,
                    barrier: 4,
                    other: 1,
                }
            }
        }
    }

    /// The cost of one executed instruction of `class` (`nop_states` for `s_nop`).
    pub fn cost(&self, class: InstClass, nop_states: u32) -> u32 {
        match class {
            InstClass::Salu => self.salu,
            InstClass::Valu => self.valu,
            InstClass::Trans => self.trans,
            InstClass::Dpp => self.dpp,
            InstClass::Permlane => self.permlane,
            InstClass::Readlane => self.readlane,
            InstClass::LdsPermute => self.lds_permute,
            InstClass::LdsSwizzle => self.lds_swizzle,
            InstClass::Lds => self.lds,
            InstClass::Smem => self.smem,
            InstClass::Vmem => self.vmem,
            InstClass::Branch => self.branch,
            InstClass::Waitcnt => self.waitcnt,
            InstClass::Nop => self.nop_state * nop_states.max(1),
            InstClass::Barrier => self.barrier,
            InstClass::Other => self.other,
        }
    }
}
