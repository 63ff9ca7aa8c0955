//! The per-architecture hazard checker: docs/amdgcn-isa-facts.md §11.1, with the exact conditions of
//! LLVM 19's `GCNHazardRecognizer.cpp` (checkDPPHazards, checkVALUHazards, checkRWLaneHazards,
//! checkVMEMHazards, fixVALUTransUseHazard, fixVALUPartialForwardingHazard,
//! fixVALUMaskWriteHazard, fixVcmpxPermlaneHazards).
//!
//! Each wave keeps a short history of issued instructions (what they wrote, how many wait states
//! they provide: 1, or N+1 for `s_nop N`). Before an instruction executes, the checker walks that
//! history backwards the way the recogniser does and reports a hazard when the required wait
//! states (GFX9) or the required `s_waitcnt_depctr` / intervening VALU (GFX11) are missing. The
//! walk follows the dynamic path, so hazards across branches are caught where they happen.
//!
//! Rows checked: GFX9 1/1b (any VGPR write → DPP reads it: 2 states; LLVM checks every VGPR use of
//! the DPP instruction — src0, src1 and the tied `old` operand, i.e. the destination — not only
//! src0, and so do we, so `v_mov_b32 v2, 0` right before `v_mov_b32_dpp v2, …` needs the nops too), 2 (VALU EXEC write → DPP: 5), 4 (VALU
//! SGPR write → readlane/writelane lane select: 4), 10 (VALU SGPR write → VMEM reads it: 5; EXEC,
//! which VMEM reads implicitly, included as LLVM does), the
//! wide-store-data hazard of §11.2 (VALU overwrites the >64-bit data VGPRs of a FLAT/GLOBAL store:
//! 1 state gfx90a, 2 gfx942); gfx942 only 6 (VALU EXEC write → readlane/readfirstlane/writelane:
//! 4), 7 (VALU VGPR write → readlane/readfirstlane source: 1), 8/9 (VALU SGPR/VCC write → VALU
//! reads it: 2), 13 (trans result → non-trans VALU: 1); gfx1100 13 (trans use: ≤ 5 VALUs / 1 trans
//! without `s_waitcnt_depctr va_vdst(0)`), 14 (wave64 partial forwarding), 15 (wave64 SGPR mask
//! write), 16 (`v_cmpx` → `v_permlane*` needs a non-`v_nop` VALU in between). Rows 3, 5, 11 are
//! "none" on every target; row 17 (setreg) concerns instructions outside the table. Row 12 (GFX9
//! soft clauses, LLVM checkSoftClauseHazards) is checked as if XNACK were on, because qd's code
//! objects declare xnack "any" and so must also be right on an XNACK-enabled GPU: a run of
//! consecutive SMEM instructions, or of consecutive VMEM/FLAT ones, may be replayed after a page
//! fault, so once an instruction of the run writes a register, no instruction of the run may read
//! a register any of them writes (itself included) and no store or atomic may join it; a
//! non-clause instruction (`s_nop 0`) must end the run first. Row 18 (GFX9:
//! a VALU write of VCC → `v_div_fmas`, which reads VCC implicitly: 4 wait states, LLVM's
//! checkDivFMasHazards) is checked; GFX11 has no such hazard.

use std::collections::VecDeque;

use qd_amdgcn_isa::{Arch, Family};
use qd_amdgcn_isa::{Dpp, Inst, Operand, RegRange};

use super::access::{srange, voverlap, Access, SDefs, SRange, VRegs};
use super::ops::{self, Sem, VCarry};
use super::{Fault, SimErrorKind};

/// How many issued instructions the history keeps.
const HISTORY: usize = 64;

/// One issued instruction, as the hazard rules see it.
#[derive(Clone, Debug)]
struct Rec {
    offset: u32,
    /// Wait states this instruction provides (1; `s_nop N`: N + 1).
    states: u32,
    valu: bool,
    trans: bool,
    salu: bool,
    /// VMEM, FLAT or DS: these make GFX11 wait for `va_vdst`.
    mem: bool,
    vnop: bool,
    /// A VOPC that writes EXEC (`v_cmpx`).
    vcmpx: bool,
    /// `s_waitcnt_depctr` immediate.
    depctr: Option<u16>,
    vdefs: VRegs,
    sdefs: SDefs,
    /// Data VGPRs of a FLAT/GLOBAL store wider than 64 bits.
    wide_store: Option<RegRange>,
    /// The soft-clause class of an SMEM or VMEM instruction (row 12).
    clause: Option<Clause>,
    /// VGPRs and scalar registers a clause member reads (row 12; empty otherwise).
    vuses: Vec<RegRange>,
    suses: Vec<SRange>,
}

/// The two kinds of GFX9 soft clause (row 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clause {
    /// Scalar memory loads.
    Smem,
    /// Vector memory (global and flat) loads, stores and atomics.
    Vmem,
}

fn clause_of(sem: Sem) -> Option<Clause> {
    match sem {
        Sem::SLoad | Sem::SBufferLoad | Sem::SMemtime | Sem::SDcacheInv => Some(Clause::Smem),
        _ if ops::is_vmem(sem) => Some(Clause::Vmem),
        _ => None,
    }
}

/// Stores and atomics (which may not join a soft clause that already writes a register).
fn clause_store(sem: Sem) -> bool {
    matches!(sem, Sem::FlatStore | Sem::GStore(_) | Sem::GAtomic(_) | Sem::GCas)
}

/// The hazard state of one wave.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    hist: VecDeque<Rec>,
    /// GFX11 row 15: SGPRs read as a lane mask by a VALU, not yet expired.
    mask_reads: Vec<SRange>,
    /// GFX11 row 15: SGPRs written by a SALU after such a mask read (with the SALU's offset).
    mask_armed: Vec<(SRange, u32)>,
    /// Report hazards without their messages (the compiler's hazard pass only asks whether
    /// there is one, many times per kernel).
    quiet: bool,
}

fn depctr_va_vdst(imm: u16) -> u16 {
    imm >> 12 & 0xF
}

fn depctr_sa_sdst(imm: u16) -> u16 {
    imm & 1
}

/// The SGPRs a VALU instruction reads as a lane mask (row 15).
fn mask_operand(inst: &Inst, sem: Sem, lanes: u32) -> Option<SRange> {
    match sem {
        Sem::VCndmask => srange(inst.operands[3], lanes),
        Sem::VCarry(VCarry::Addc | VCarry::Subb | VCarry::Subbrev) => srange(inst.operands[4], lanes),
        _ => None,
    }
}

impl Tracker {
    /// Wait states since the most recent instruction matching `pred`, if fewer than `limit`
    /// (with the matching instruction's offset).
    fn since(&self, limit: u32, pred: impl Fn(&Rec) -> bool) -> Option<(u32, u32)> {
        let mut ws = 0;
        for r in self.hist.iter().rev() {
            if pred(r) {
                return Some((ws, r.offset));
            }
            ws += r.states;
            if ws >= limit {
                return None;
            }
        }
        None
    }

    /// (`what` is only formatted when there is a hazard.)
    fn need(
        &self,
        row: &str,
        need: u32,
        what: impl std::fmt::Display,
        pred: impl Fn(&Rec) -> bool,
    ) -> Result<(), Fault> {
        if let Some((ws, at)) = self.since(need, pred) {
            return Err(self.fault(
                row,
                || format!(
                    "{what} (written by the instruction at 0x{at:x}) after {ws} wait state(s); {need} are required (s_nop {})",
                    need - ws - 1
                ),
            ));
        }
        Ok(())
    }

    /// Makes the faults carry no message (the compiler's hazard pass) or their message again.
    pub fn set_quiet(&mut self, quiet: bool) {
        self.quiet = quiet;
    }

    /// The fault of a hazard of `row` (its message built only when the tracker is not quiet).
    fn fault(&self, row: &str, msg: impl FnOnce() -> String) -> Fault {
        if self.quiet {
            return Fault::new(SimErrorKind::Hazard, String::new());
        }
        Fault::new(SimErrorKind::Hazard, format!("§11.1 row {row}: {}", msg()))
    }

    /// Forgets the history (the compiler's hazard pass, at a block start it flushes).
    pub fn clear(&mut self) {
        self.hist.clear();
        self.mask_reads.clear();
        self.mask_armed.clear();
    }

    /// Checks the instruction about to issue against the history.
    pub fn check(&self, arch: Arch, lanes: u32, inst: &Inst, sem: Sem, acc: &Access) -> Result<(), Fault> {
        match arch.family() {
            Family::Gfx9 => self.check_gfx9(arch, inst, sem, acc),
            Family::Gfx11 => self.check_gfx11(lanes, inst, sem, acc),
        }
    }

    fn check_gfx9(&self, arch: Arch, inst: &Inst, sem: Sem, acc: &Access) -> Result<(), Fault> {
        let gfx942 = arch == Arch::Gfx942;
        let valu = ops::is_valu(sem);
        self.soft_clause(sem, acc)?;
        if inst.dpp != Dpp::None {
            // The destination is LLVM's tied `old` use of a DPP instruction.
            for &v in acc.vuses.iter().chain(&acc.vdefs) {
                self.need("1", 2, format_args!("DPP instruction reads v{}", v.first), |r| {
                    r.vdefs.iter().any(|&d| voverlap(d, v))
                })?;
            }
            self.need("2", 5, "DPP instruction follows a VALU write of EXEC", |r| {
                r.valu && r.sdefs.iter().any(|s| s.is_exec())
            })?;
        }
        if matches!(sem, Sem::VReadlane | Sem::VWritelane) {
            if let Some(sel) = srange(inst.operands[2], 64) {
                self.need("4", 4, "v_readlane/v_writelane lane select reads an SGPR written by a VALU", |r| {
                    r.valu && r.sdefs.iter().any(|&d| d.overlaps(sel))
                })?;
            }
        }
        if ops::is_vmem(sem) {
            // LLVM's VMEM uses() include the implicit EXEC, so a VALU EXEC write counts too.
            let exec = SRange { first: super::access::EXEC_LO, len: 2 };
            for &s in acc.suses.iter().chain(std::iter::once(&exec)) {
                self.need("10", 5, "a VMEM instruction reads an SGPR written by a VALU", |r| {
                    r.valu && r.sdefs.iter().any(|&d| d.overlaps(s))
                })?;
            }
        }
        if matches!(sem, Sem::VDivFmas(_)) {
            self.need("18", 4, "v_div_fmas reads VCC written by a VALU", |r| {
                r.valu && r.sdefs.iter().any(|s| s.is_vcc())
            })?;
        }
        if valu {
            let need = if gfx942 { 2 } else { 1 };
            for &v in &acc.vdefs {
                self.need("11.2 (wide store data)", need, "a VALU overwrites the data of a >64-bit store", |r| {
                    r.wide_store.is_some_and(|d| voverlap(d, v))
                })?;
            }
        }
        if !gfx942 {
            return Ok(());
        }
        if matches!(sem, Sem::VReadlane | Sem::VReadfirstlane | Sem::VWritelane) {
            self.need("6", 4, "v_readlane/v_readfirstlane/v_writelane follows a VALU write of EXEC", |r| {
                r.valu && r.sdefs.iter().any(|s| s.is_exec())
            })?;
        }
        if matches!(sem, Sem::VReadlane | Sem::VReadfirstlane) {
            if let Operand::Vgpr(v) = inst.operands[1] {
                self.need("7", 1, format_args!("v_readlane/v_readfirstlane reads v{}", v.first), |r| {
                    r.valu && r.vdefs.iter().any(|&d| voverlap(d, v))
                })?;
            }
        }
        if valu {
            for &s in acc.suses.iter().chain(acc.simplicit.iter().filter(|s| s.is_vcc())) {
                let row = if s.is_vcc() { "9" } else { "8" };
                self.need(row, 2, "a VALU reads an SGPR/VCC written by a VALU", |r| {
                    r.valu && r.sdefs.iter().any(|&d| d.overlaps(s))
                })?;
            }
            if !ops::is_trans(sem) {
                for &v in &acc.vuses {
                    self.need(
                        "13",
                        1,
                        format_args!("a VALU reads v{} written by a transcendental op", v.first),
                        |r| r.trans && r.vdefs.iter().any(|&d| voverlap(d, v)),
                    )?;
                }
            }
        }
        Ok(())
    }

    fn check_gfx11(&self, lanes: u32, inst: &Inst, sem: Sem, acc: &Access) -> Result<(), Fault> {
        let valu = ops::is_valu(sem);
        if valu {
            self.trans_use(acc)?;
            if lanes == 64 {
                self.partial_forwarding(acc)?;
            }
        }
        if matches!(sem, Sem::VPermlane16 | Sem::VPermlanex16 | Sem::VPermlane64) {
            for r in self.hist.iter().rev() {
                if r.vcmpx {
                    return Err(self.fault("16", || {
                        format!(
                            "{} follows the v_cmpx at 0x{:x} with no VALU in between (v_nop does not count)",
                            inst.op.name(Arch::Gfx1100),
                            r.offset
                        )
                    }));
                }
                if r.valu && !r.vnop {
                    break;
                }
            }
        }
        if lanes == 64 && ops::is_salu(sem) {
            for &s in acc.suses.iter().chain(&acc.simplicit) {
                if let Some(&(_, at)) = self.mask_armed.iter().find(|(a, _)| a.overlaps(s)) {
                    return Err(self.fault("15", || {
                        format!(
                            "a SALU reads s{}, which the SALU at 0x{at:x} wrote after a VALU read it as a lane mask; \
                             s_waitcnt_depctr 0xfffe (sa_sdst(0)) is required after that write",
                            s.first
                        )
                    }));
                }
            }
        }
        Ok(())
    }

    /// GFX9 row 12 (LLVM checkSoftClauseHazards with XNACK on; see the module doc).
    fn soft_clause(&self, sem: Sem, acc: &Access) -> Result<(), Fault> {
        let Some(kind) = clause_of(sem) else { return Ok(()) };
        let (mut vdefs, mut sdefs, mut vuses, mut suses) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut first = None;
        for r in self.hist.iter().rev() {
            if r.clause != Some(kind) {
                break;
            }
            vdefs.extend(r.vdefs.iter().copied());
            sdefs.extend(r.sdefs.iter().copied());
            vuses.extend(r.vuses.iter().copied());
            suses.extend(r.suses.iter().copied());
            first = Some(r.offset);
        }
        let Some(at) = first else { return Ok(()) };
        if vdefs.is_empty() && sdefs.is_empty() {
            return Ok(());
        }
        let what = match kind {
            Clause::Smem => "SMEM",
            Clause::Vmem => "VMEM",
        };
        if clause_store(sem) {
            return Err(self.fault("12", || {
                format!(
                    "a store or atomic joins the {what} soft clause starting at 0x{at:x}, which writes registers \
                     (with XNACK on a clause may be replayed); s_nop 0 must end the clause first"
                )
            }));
        }
        vdefs.extend(acc.vdefs.iter().copied());
        sdefs.extend(acc.sdefs.iter().copied());
        vuses.extend(acc.vuses.iter().copied());
        suses.extend(acc.suses.iter().copied());
        let vclash = vdefs.iter().find(|&&d| vuses.iter().any(|&u| voverlap(d, u)));
        let sclash = sdefs.iter().find(|&&d| suses.iter().any(|&u| d.overlaps(u)));
        let clash = match (vclash, sclash) {
            (Some(v), _) => format!("v{}", v.first),
            (None, Some(s)) => format!("s{}", s.first),
            (None, None) => return Ok(()),
        };
        Err(self.fault("12", || {
            format!(
                "the {what} soft clause starting at 0x{at:x} would both write and read {clash} (with XNACK on a \
                 clause may be replayed); s_nop 0 must end the clause first"
            )
        }))
    }

    /// GFX11 row 13 (LLVM fixVALUTransUseHazard).
    fn trans_use(&self, acc: &Access) -> Result<(), Fault> {
        let (mut valus, mut trans) = (0, 0);
        for r in self.hist.iter().rev() {
            if valus > 5 || trans > 1 || r.mem || r.depctr.is_some_and(|d| depctr_va_vdst(d) == 0) {
                return Ok(());
            }
            if r.trans {
                if let Some(v) = acc.vuses.iter().find(|&&v| r.vdefs.iter().any(|&d| voverlap(d, v))) {
                    return Err(self.fault("13", || {
                        format!(
                            "a VALU reads v{} written by the transcendental op at 0x{:x} after {valus} VALU(s); \
                             s_waitcnt_depctr 0x0fff (va_vdst(0)) is required",
                            v.first, r.offset
                        )
                    }));
                }
            }
            valus += u32::from(r.valu);
            trans += u32::from(r.trans);
        }
        Ok(())
    }

    /// GFX11 wave64 row 14 (LLVM fixVALUPartialForwardingHazard).
    fn partial_forwarding(&self, acc: &Access) -> Result<(), Fault> {
        let mut srcs: Vec<RegRange> = Vec::new();
        for &v in &acc.vuses {
            if !srcs.contains(&v) {
                srcs.push(v);
            }
        }
        if srcs.len() <= 1 {
            return Ok(());
        }
        let mut def_pos: Vec<Option<(i32, u32)>> = vec![None; srcs.len()];
        let mut exec_pos: Option<(i32, u32)> = None;
        let mut valus = 0i32;
        for r in self.hist.iter().rev() {
            if valus > 8 || r.mem || r.depctr.is_some_and(|d| depctr_va_vdst(d) == 0) {
                return Ok(());
            }
            let mut changed = false;
            if r.valu {
                for (i, &s) in srcs.iter().enumerate() {
                    if def_pos[i].is_none() && r.vdefs.iter().any(|&d| voverlap(d, s)) {
                        def_pos[i] = Some((valus, r.offset));
                        changed = true;
                    }
                }
            } else if r.salu
                && exec_pos.is_none()
                && def_pos.iter().any(Option::is_some)
                && r.sdefs.iter().any(|s| s.is_exec())
            {
                exec_pos = Some((valus, r.offset));
                changed = true;
            }
            if valus > 4 && def_pos.iter().all(Option::is_none) {
                return Ok(());
            }
            if changed {
                if let Some((ep, eat)) = exec_pos {
                    let pre = def_pos.iter().flatten().filter(|d| d.0 >= ep).min_by_key(|d| d.0);
                    let post = def_pos.iter().flatten().filter(|d| d.0 < ep).min_by_key(|d| d.0);
                    if let Some(&(post, _)) = post {
                        if post > 4 || ep - post - 1 > 2 {
                            return Ok(());
                        }
                        if let Some(&(pre, pat)) = pre {
                            let intv1 = pre - ep;
                            if intv1 > 2 || intv1 + (ep - post - 1) > 2 {
                                return Ok(());
                            }
                            return Err(self.fault("14", || {
                                format!(
                                    "wave64 VALU partial forwarding: a VALU reads a VGPR written at 0x{pat:x} before \
                                     the SALU EXEC write at 0x{eat:x} and one written after it; \
                                     s_waitcnt_depctr 0x0fff (va_vdst(0)) is required"
                                )
                            }));
                        }
                    }
                }
            }
            valus += i32::from(r.valu);
        }
        Ok(())
    }

    /// Records an issued instruction.
    pub fn record(&mut self, family: Family, lanes: u32, inst: &Inst, sem: Sem, acc: &Access, offset: u32) {
        let valu = ops::is_valu(sem);
        let salu = ops::is_salu(sem);
        let depctr = (sem == Sem::SWaitcntDepctr).then_some(inst.imm as u16);
        let wide_store = match (sem, inst.op.info().shape) {
            (Sem::FlatStore, _) | (Sem::GStore(_), _) => acc.vuses.iter().copied().find(|r| r.len > 2),
            (Sem::GAtomic(_) | Sem::GCas, _) => match inst.operands[2] {
                Operand::Vgpr(r) if r.len > 2 => Some(r),
                _ => None,
            },
            _ => None,
        };
        let states = if sem == Sem::SNop { (inst.imm as u32 & 0xF) + 1 } else { 1 };
        let clause = clause_of(sem).filter(|_| family == Family::Gfx9);
        let (vuses, suses) = if clause.is_some() { (acc.vuses.to_vec(), acc.suses.to_vec()) } else { (vec![], vec![]) };
        let rec = Rec {
            offset,
            states,
            valu,
            trans: ops::is_trans(sem),
            salu,
            mem: ops::is_vmem(sem) || ops::is_ds(sem),
            vnop: sem == Sem::VNop,
            vcmpx: matches!(sem, Sem::VCmpx(..)) || (matches!(sem, Sem::VCmp(..)) && acc.writes_exec()),
            depctr,
            vdefs: acc.vdefs,
            sdefs: acc.sdefs,
            wide_store,
            clause,
            vuses,
            suses,
        };
        if self.hist.len() == HISTORY {
            self.hist.pop_front();
        }
        self.hist.push_back(rec);
        if family != Family::Gfx11 || lanes != 64 {
            return;
        }
        // Row 15 bookkeeping (LLVM fixVALUMaskWriteHazard).
        if depctr.is_some_and(|d| depctr_sa_sdst(d) == 0) {
            self.mask_reads.clear();
            self.mask_armed.clear();
        }
        if valu {
            let mask = mask_operand(inst, sem, lanes);
            let reads_scalar =
                acc.literal || acc.suses.iter().any(|s| !s.is_exec()) || acc.simplicit.iter().any(|s| s.is_vcc());
            if reads_scalar {
                self.mask_reads.retain(|m| mask.is_some_and(|k| k.overlaps(*m)));
            }
            if let Some(m) = mask.filter(|m| !m.is_exec()) {
                if !self.mask_reads.contains(&m) {
                    self.mask_reads.push(m);
                }
            }
        }
        if salu {
            for &d in acc.sdefs.iter().filter(|d| !d.is_exec() && d.first != super::access::M0) {
                if self.mask_reads.iter().any(|m| m.overlaps(d)) {
                    self.mask_armed.push((d, offset));
                }
            }
        }
    }
}
