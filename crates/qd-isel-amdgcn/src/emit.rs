//! Emission: allocated VCode → the final physical instruction list.
//!
//! - Abstract register numbers become physical ones, packed from the bottom of each file after
//!   the reserved registers (`regalloc.rs`): SGPRs from `s16`, single VGPRs from `v6`, VGPR pairs
//!   even-aligned after the singles.
//! - Each `MInst`'s steps are filled from the allocations of the operands their slots name; an
//!   SGPR-pair fill goes through its fixed temporary pair (`s[8:9]`, `s[10:11]`, `s[12:13]`).
//! - regalloc2's moves become `s_mov_b32` / `v_mov_b32`; in a divergent block a VGPR move is
//!   whole-wave (EXEC saved in `s[14:15]`, set to all lanes, restored), as is every spill and
//!   reload, so that lanes outside EXEC keep their values. Spill slots live in a per-lane record
//!   of the spill area (a hidden kernel argument), addressed by `v[4:5]`, which a prologue
//!   computes when the kernel spills; SGPRs spill through `v1`.
//! - Branch offsets are resolved once every instruction is encoded ([`encode`]).
//!
//! Memory waits and hazard wait states are added afterwards by `waitcnt.rs` and `hazard.rs`.

use regalloc2::{Allocation, Edit, InstOrEdit, RegClass};

use crate::regalloc::{compact, reg_of, Allocated, RESERVED_SGPRS, RESERVED_VGPRS, SCRATCH};
use crate::vcode::{Fill, MInst, Part, Term, VBlock, VCode};
use qd_amdgcn_isa::{Inst, Op, Operand, RegRange};
use qd_amdgcn_isa::{Target, WaveSize};
use qd_mir::CompileError;

/// The SGPR pair that holds EXEC during a whole-wave sequence.
pub(crate) const EXEC_SAVE: u16 = 14;
/// The first SGPR of the [`Fill::Pair`] temporaries.
pub(crate) const PAIR_TEMP_BASE: u16 = 8;
/// The SGPR scratch of the SGPR class.
pub(crate) const SGPR_SCRATCH: u16 = 7;
/// The VGPR scratch (VGPR class; also the SGPR spill carrier).
pub(crate) const VGPR_SCRATCH: u16 = 1;
/// The VGPR pair scratch.
pub(crate) const PAIR_SCRATCH: u16 = 2;
/// The per-lane spill address `v[4:5]`.
pub(crate) const SPILL_ADDR: u16 = 4;
/// The fixed VGPR quad `v[6:9]` ([`Fill::Quad`]), reserved only in kernels that use it.
pub(crate) const QUAD_BASE: u16 = 6;

/// Where the abstract registers landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RegLayout {
    /// Physical number of abstract SGPR 0.
    pub sgpr_base: u16,
    /// Physical number of abstract VGPR 0.
    pub vgpr_base: u16,
    /// Physical number of abstract pair 0 (even).
    pub pair_base: u16,
    /// VGPRs used (`v0` … `v(n-1)`).
    pub next_free_vgpr: u32,
    /// SGPRs used.
    pub next_free_sgpr: u32,
    /// Spill slots in the spill area (4 bytes per lane each): the slots past
    /// [`RegLayout::reg_slots`].
    pub spill_slots: u32,
    /// Spill slots kept in VGPRs above the allocated ones (`v[slot_base + i]` for slot `i`).
    pub reg_slots: u32,
    /// The VGPR of register slot 0.
    pub slot_base: u16,
}

/// What emission needs to know about the kernel ABI for the spill prologue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpillAbi {
    /// Kernarg byte offset of the spill-area pointer.
    pub spill_ptr_offset: u32,
    /// Kernarg byte offset of the grid size in blocks (X, Y, Z as u32).
    pub grid_offset: u32,
    /// The block size.
    pub block: [u32; 3],
    /// The SGPR holding workgroup id X on entry (Y, Z follow).
    pub workgroup_id_sgpr: u16,
    /// Whether the kernel uses the fixed VGPR quad ([`VCode::uses_quad`]).
    pub uses_quad: bool,
    /// The most VGPRs the kernel may use (`AmdgcnOptions::max_vgprs`, at most 256).
    pub max_vgprs: u32,
}

/// One emitted instruction: the instruction, the MIR line it came from (0: none), and the
/// branch target block of a branch whose offset is still to resolve.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Emitted {
    /// The instructions, branch offsets resolved.
    pub insts: Vec<Inst>,
    /// Per instruction: the MIR source line (0 = none).
    pub lines: Vec<u32>,
    /// Per instruction: `Some(block)` for a branch, whose offset [`resolve_branches`] fills.
    pub targets: Vec<Option<VBlock>>,
    /// Per block: the index of its first instruction.
    pub block_starts: Vec<usize>,
    /// The register layout.
    pub layout: RegLayout,
}

struct Out {
    insts: Vec<Inst>,
    lines: Vec<u32>,
    targets: Vec<Option<VBlock>>,
    line: u32,
}

impl Out {
    fn push(&mut self, i: Inst) {
        self.insts.push(i);
        self.lines.push(self.line);
        self.targets.push(None);
    }
}

/// Emits allocated VCode.
pub(crate) fn emit(
    vcode: &VCode,
    alloc: &Allocated<'_>,
    target: Target,
    abi: &SpillAbi,
) -> Result<Emitted, CompileError> {
    let func = &alloc.func;
    let out_ra = &alloc.output;
    // The abstract registers, renumbered onto as few as possible per class (see
    // `regalloc::compact`).
    let (dense, used) = compact(alloc);
    let slots = out_ra.num_spillslots as u32;
    let vgpr_base = if abi.uses_quad { QUAD_BASE + 4 } else { RESERVED_VGPRS as u16 };
    let pair_base = (vgpr_base + used[RegClass::Float as usize] as u16).next_multiple_of(2);
    let allocated = u32::from(pair_base) + 2 * used[RegClass::Vector as usize] as u32;
    // regalloc2 allocates at most 63 registers of a class, far fewer than the VGPR file holds:
    // its spill slots go to the VGPRs above the allocated ones first (a spill or reload is then a
    // `v_mov`), and only what does not fit there to the spill area in memory. The count is even,
    // so a two-slot (64-bit) slot, which regalloc2 aligns to two, is never split.
    let room = (abi.max_vgprs.min(256).saturating_sub(allocated)) & !1;
    let reg_slots = slots.next_multiple_of(2).min(room);
    let layout = RegLayout {
        sgpr_base: RESERVED_SGPRS as u16,
        vgpr_base,
        pair_base,
        next_free_vgpr: allocated + reg_slots,
        next_free_sgpr: RESERVED_SGPRS + used[RegClass::Int as usize] as u32,
        spill_slots: slots.saturating_sub(reg_slots),
        reg_slots,
        slot_base: allocated as u16,
    };
    let spill_slots = layout.spill_slots;
    if spill_slots * 4 > 4095 {
        // The spill area is addressed with a 12-bit byte offset: 1023 dwords per lane.
        return Err(CompileError::limit(target, "spill slots (dwords per lane)", u64::from(spill_slots), 1023));
    }
    let e = Emitter { target, layout, dense };
    let mut out = Out { insts: Vec::new(), lines: Vec::new(), targets: Vec::new(), line: 0 };
    let mut block_starts = Vec::with_capacity(vcode.blocks.len());
    for (bi, blk) in vcode.blocks.iter().enumerate() {
        block_starts.push(out.insts.len());
        let block = regalloc2::Block::new(bi);
        for ie in out_ra.block_insts_and_edits(func, block) {
            match ie {
                InstOrEdit::Edit(Edit::Move { from, to }) => e.edit_move(&mut out, *from, *to, blk.divergent)?,
                InstOrEdit::Inst(i) => {
                    let m = func.inst(i);
                    out.line = m.line;
                    e.minst(&mut out, m, out_ra.inst_allocs(i), bi)?;
                    // The spill prologue follows the entry instruction (which copies the ABI
                    // registers it may overwrite: on gfx1100 wave32 the workgroup ids sit in
                    // s13-s15, among the temporaries) and precedes any spill.
                    if i.index() == 0 && spill_slots > 0 {
                        e.spill_prologue(&mut out, abi)?;
                    }
                }
            }
        }
    }
    Ok(Emitted { insts: out.insts, lines: out.lines, targets: out.targets, block_starts, layout })
}

struct Emitter {
    target: Target,
    layout: RegLayout,
    /// Dense number of each abstract register, per class.
    dense: [[u16; SCRATCH]; 3],
}

impl Emitter {
    /// A defect between stages (regalloc2's output, the encoder's input): an internal error.
    fn err(&self, msg: &str) -> CompileError {
        CompileError::internal(self.target, msg)
    }

    fn wave64(&self) -> bool {
        self.target.wave == WaveSize::W64
    }

    fn mk(&self, op: Op, ops: &[Operand]) -> Inst {
        Inst::new_for(self.target, op, ops)
    }

    /// The physical operand of an allocation (a register, never a stack slot).
    fn phys(&self, a: Allocation, part: Part) -> Result<Operand, CompileError> {
        let (class, i) = reg_of(a).ok_or_else(|| self.err("an instruction operand was given a stack slot"))?;
        let i16_ = if i == SCRATCH { 0 } else { self.dense[class as usize][i] };
        Ok(match class {
            RegClass::Int if i == SCRATCH => Operand::s(SGPR_SCRATCH),
            RegClass::Int => Operand::s(self.layout.sgpr_base + i16_),
            RegClass::Float if i == SCRATCH => Operand::v(VGPR_SCRATCH),
            RegClass::Float => Operand::v(self.layout.vgpr_base + i16_),
            RegClass::Vector => {
                let base = if i == SCRATCH { PAIR_SCRATCH } else { self.layout.pair_base + 2 * i16_ };
                match part {
                    Part::Whole => Operand::v2(base),
                    Part::Lo => Operand::v(base),
                    Part::Hi => Operand::v(base + 1),
                }
            }
        })
    }

    fn exec_save(&self, out: &mut Out) {
        if self.wave64() {
            out.push(self.mk(Op::SMovB64, &[Operand::s2(EXEC_SAVE), Operand::Exec]));
            out.push(self.mk(Op::SMovB64, &[Operand::Exec, Operand::Int(-1)]));
        } else {
            out.push(self.mk(Op::SMovB32, &[Operand::s(EXEC_SAVE), Operand::ExecLo]));
            out.push(self.mk(Op::SMovB32, &[Operand::ExecLo, Operand::Int(-1)]));
        }
    }

    fn exec_restore(&self, out: &mut Out) {
        if self.wave64() {
            out.push(self.mk(Op::SMovB64, &[Operand::Exec, Operand::s2(EXEC_SAVE)]));
        } else {
            out.push(self.mk(Op::SMovB32, &[Operand::ExecLo, Operand::s(EXEC_SAVE)]));
        }
    }

    /// Where spill slot `slot` lives: `Ok(vgpr)` for a register slot, `Err(byte offset)` in the
    /// lane's spill-area record.
    fn slot(&self, slot: usize) -> Result<u16, i32> {
        let s = slot as u32;
        if s < self.layout.reg_slots {
            Ok(self.layout.slot_base + s as u16)
        } else {
            Err(((s - self.layout.reg_slots) * 4) as i32)
        }
    }

    /// A spill to, or reload from (`reload`), a register slot: `v_mov`s of every lane (EXEC is
    /// all lanes around it); SGPRs go in by `v_mov` and come back by `v_readfirstlane`.
    fn slot_move(
        &self,
        out: &mut Out,
        class: RegClass,
        reg: Allocation,
        vslot: u16,
        reload: bool,
    ) -> Result<(), CompileError> {
        self.exec_save(out);
        let slot = |k: u16| Operand::v(vslot + k);
        match class {
            RegClass::Int => {
                let r = self.phys(reg, Part::Whole)?;
                if reload {
                    out.push(self.mk(Op::VReadfirstlaneB32, &[r, slot(0)]));
                } else {
                    out.push(self.mk(Op::VMovB32, &[slot(0), r]));
                }
            }
            RegClass::Float => {
                let r = self.phys(reg, Part::Whole)?;
                let (d, s) = if reload { (r, slot(0)) } else { (slot(0), r) };
                out.push(self.mk(Op::VMovB32, &[d, s]));
            }
            RegClass::Vector => {
                for (k, part) in [(0, Part::Lo), (1, Part::Hi)] {
                    let r = self.phys(reg, part)?;
                    let (d, s) = if reload { (r, slot(k)) } else { (slot(k), r) };
                    out.push(self.mk(Op::VMovB32, &[d, s]));
                }
            }
        }
        self.exec_restore(out);
        Ok(())
    }

    fn edit_move(&self, out: &mut Out, from: Allocation, to: Allocation, divergent: bool) -> Result<(), CompileError> {
        let class = from.as_reg().map(|p| p.class()).or(to.as_reg().map(|p| p.class()));
        let Some(class) = class else { return Err(self.err("regalloc2 asked for a stack-to-stack move")) };
        let addr = Operand::v2(SPILL_ADDR);
        match (from.as_stack(), to.as_stack()) {
            (None, None) => {
                let (f, t) = (self.phys(from, Part::Whole)?, self.phys(to, Part::Whole)?);
                if f == t {
                    return Ok(());
                }
                match class {
                    RegClass::Int => out.push(self.mk(Op::SMovB32, &[t, f])),
                    RegClass::Float | RegClass::Vector => {
                        if divergent {
                            self.exec_save(out);
                        }
                        if class == RegClass::Float {
                            out.push(self.mk(Op::VMovB32, &[t, f]));
                        } else {
                            let (fl, tl) = (self.phys(from, Part::Lo)?, self.phys(to, Part::Lo)?);
                            let (fh, th) = (self.phys(from, Part::Hi)?, self.phys(to, Part::Hi)?);
                            out.push(self.mk(Op::VMovB32, &[tl, fl]));
                            out.push(self.mk(Op::VMovB32, &[th, fh]));
                        }
                        if divergent {
                            self.exec_restore(out);
                        }
                    }
                }
            }
            (None, Some(slot)) => {
                let off = match self.slot(slot.index()) {
                    Ok(v) => return self.slot_move(out, class, from, v, false),
                    Err(off) => off,
                };
                // Spill: every lane's value, whatever EXEC is.
                self.exec_save(out);
                match class {
                    RegClass::Int => {
                        let f = self.phys(from, Part::Whole)?;
                        out.push(self.mk(Op::VMovB32, &[Operand::v(VGPR_SCRATCH), f]));
                        out.push(
                            self.mk(Op::GlobalStoreDword, &[addr, Operand::v(VGPR_SCRATCH), Operand::None]).imm(off),
                        );
                    }
                    RegClass::Float => {
                        let f = self.phys(from, Part::Whole)?;
                        out.push(self.mk(Op::GlobalStoreDword, &[addr, f, Operand::None]).imm(off));
                    }
                    RegClass::Vector => {
                        let f = self.phys(from, Part::Whole)?;
                        out.push(self.mk(Op::GlobalStoreDwordx2, &[addr, f, Operand::None]).imm(off));
                    }
                }
                self.exec_restore(out);
            }
            (Some(slot), None) => {
                let off = match self.slot(slot.index()) {
                    Ok(v) => return self.slot_move(out, class, to, v, true),
                    Err(off) => off,
                };
                self.exec_save(out);
                match class {
                    RegClass::Int => {
                        let t = self.phys(to, Part::Whole)?;
                        out.push(
                            self.mk(Op::GlobalLoadDword, &[Operand::v(VGPR_SCRATCH), addr, Operand::None]).imm(off),
                        );
                        out.push(self.mk(Op::VReadfirstlaneB32, &[t, Operand::v(VGPR_SCRATCH)]));
                    }
                    RegClass::Float => {
                        let t = self.phys(to, Part::Whole)?;
                        out.push(self.mk(Op::GlobalLoadDword, &[t, addr, Operand::None]).imm(off));
                    }
                    RegClass::Vector => {
                        let t = self.phys(to, Part::Whole)?;
                        out.push(self.mk(Op::GlobalLoadDwordx2, &[t, addr, Operand::None]).imm(off));
                    }
                }
                self.exec_restore(out);
            }
            (Some(_), Some(_)) => return Err(self.err("regalloc2 asked for a stack-to-stack move")),
        }
        Ok(())
    }

    fn minst(&self, out: &mut Out, m: &MInst, allocs: &[Allocation], block: usize) -> Result<(), CompileError> {
        let n = m.steps.len();
        for (k, s) in m.steps.iter().enumerate() {
            let mut inst = s.inst;
            let mut copy_out = Vec::new();
            for (slot, fill) in s.fills.iter().enumerate() {
                match *fill {
                    Fill::Keep => {}
                    Fill::Reg { op, part } => inst.operands[slot] = self.phys(allocs[op as usize], part)?,
                    Fill::Quad { dword } => {
                        inst.operands[slot] = match dword {
                            Some(k) => Operand::v(QUAD_BASE + u16::from(k)),
                            None => Operand::vr(QUAD_BASE, 4),
                        };
                    }
                    Fill::Pair { lo, hi, temp, def } => {
                        let t = PAIR_TEMP_BASE + 2 * u16::from(temp);
                        let (l, h) = (
                            self.phys(allocs[lo as usize], Part::Whole)?,
                            self.phys(allocs[hi as usize], Part::Whole)?,
                        );
                        if def {
                            copy_out.push(self.mk(Op::SMovB32, &[l, Operand::s(t)]));
                            copy_out.push(self.mk(Op::SMovB32, &[h, Operand::s(t + 1)]));
                        } else {
                            out.push(self.mk(Op::SMovB32, &[Operand::s(t), l]));
                            out.push(self.mk(Op::SMovB32, &[Operand::s(t + 1), h]));
                        }
                        inst.operands[slot] = Operand::Sgpr(RegRange::pair(t));
                    }
                }
            }
            out.push(inst);
            if k + 1 == n {
                if let Term::Branch { taken, .. } = m.term {
                    *out.targets.last_mut().expect("just pushed") = Some(taken);
                }
            }
            for c in copy_out {
                out.push(c);
            }
        }
        let next = VBlock::new(block + 1);
        match m.term {
            Term::Branch { not_taken, .. } if not_taken != next => self.jump(out, not_taken),
            Term::Jump(t) if t != next => self.jump(out, t),
            Term::Branch { .. } | Term::Jump(_) | Term::None | Term::Ret => {}
        }
        Ok(())
    }

    fn jump(&self, out: &mut Out, to: VBlock) {
        out.push(self.mk(Op::SBranch, &[]));
        *out.targets.last_mut().expect("just pushed") = Some(to);
    }

    /// Computes `v[4:5]` = spill area + (global wave index × wave lanes + lane) × slots × 4.
    fn spill_prologue(&self, out: &mut Out, abi: &SpillAbi) -> Result<(), CompileError> {
        let t = |op: Op, ops: &[Operand]| self.mk(op, ops);
        let lanes = self.target.wave.lanes();
        let [bx, by, bz] = abi.block;
        let waves_per_group = (bx * by * bz).div_ceil(lanes);
        let record = self.layout.spill_slots * 4;
        // s[8:9] spill base, s[10:11] grid x/y.
        out.push(
            t(Op::SLoadDwordx2, &[Operand::s2(8), Operand::s2(0), Operand::None]).imm(abi.spill_ptr_offset as i32),
        );
        out.push(t(Op::SLoadDwordx2, &[Operand::s2(10), Operand::s2(0), Operand::None]).imm(abi.grid_offset as i32));
        out.push(
            t(Op::SWaitcnt, &[])
                .imm(i32::from(qd_amdgcn_isa::Waitcnt::lgkm(0, self.target.family()).encode(self.target.family()))),
        );
        // s12 = flat workgroup id = x + gx * (y + gy * z); the ids are read before s13 (which holds
        // id X on gfx1100 wave32) is written below.
        let wg = abi.workgroup_id_sgpr;
        out.push(t(Op::SMulI32, &[Operand::s(12), Operand::s(11), Operand::s(wg + 2)]));
        out.push(t(Op::SAddU32, &[Operand::s(12), Operand::s(12), Operand::s(wg + 1)]));
        out.push(t(Op::SMulI32, &[Operand::s(12), Operand::s(12), Operand::s(10)]));
        out.push(t(Op::SAddU32, &[Operand::s(12), Operand::s(12), Operand::s(wg)]));
        // v1 = flat work-item id of this lane; s13 = the first live lane's, / lanes = wave index.
        out.push(t(Op::VBfeU32, &[Operand::v(2), Operand::v(0), Operand::Int(10), Operand::Int(10)]));
        out.push(t(Op::VBfeU32, &[Operand::v(3), Operand::v(0), Operand::Int(20), Operand::Int(10)]));
        // (GFX9 VOP3 takes no literal: the block sizes go through s10/s11, free by now.)
        out.push(t(Op::SMovB32, &[Operand::s(10), Operand::imm32(by)]));
        out.push(t(Op::SMovB32, &[Operand::s(11), Operand::imm32(bx)]));
        out.push(t(Op::VMadU32U24, &[Operand::v(3), Operand::s(10), Operand::v(3), Operand::v(2)]));
        out.push(t(Op::VAndB32, &[Operand::v(2), Operand::imm32(0x3ff), Operand::v(0)]));
        out.push(t(Op::VMadU32U24, &[Operand::v(1), Operand::s(11), Operand::v(3), Operand::v(2)]));
        out.push(t(Op::VReadfirstlaneB32, &[Operand::s(13), Operand::v(1)]));
        out.push(t(Op::SLshrB32, &[Operand::s(13), Operand::s(13), Operand::imm32(lanes.trailing_zeros())]));
        out.push(t(Op::SMulI32, &[Operand::s(12), Operand::s(12), Operand::imm32(waves_per_group)]));
        out.push(t(Op::SAddU32, &[Operand::s(12), Operand::s(12), Operand::s(13)]));
        // byte offset of the wave's records: (wave * lanes * record) as 64 bits in s[12:13]
        let per_wave = lanes * record;
        out.push(t(Op::SMulHiU32, &[Operand::s(13), Operand::s(12), Operand::imm32(per_wave)]));
        out.push(t(Op::SMulI32, &[Operand::s(12), Operand::s(12), Operand::imm32(per_wave)]));
        out.push(t(Op::SAddU32, &[Operand::s(8), Operand::s(8), Operand::s(12)]));
        out.push(t(Op::SAddcU32, &[Operand::s(9), Operand::s(9), Operand::s(13)]));
        // every lane: v[4:5] = s[8:9] + lane * record
        self.exec_save(out);
        out.push(t(Op::VMbcntLoU32B32, &[Operand::v(4), Operand::Int(-1), Operand::Int(0)]));
        if self.wave64() {
            out.push(t(Op::VMbcntHiU32B32, &[Operand::v(4), Operand::Int(-1), Operand::v(4)]));
        }
        out.push(t(Op::VMulU32U24, &[Operand::v(4), Operand::imm32(record), Operand::v(4)]));
        out.push(t(Op::VMovB32, &[Operand::v(5), Operand::s(9)]));
        let mask = self.target.wave.vcc();
        out.push(t(Op::VAddCoU32, &[Operand::v(4), mask, Operand::s(8), Operand::v(4)]));
        out.push(t(Op::VAddcCoU32, &[Operand::v(5), mask, Operand::Int(0), Operand::v(5), mask]));
        self.exec_restore(out);
        Ok(())
    }
}

impl Emitted {
    /// Inserts instructions: each `(i, inst)` puts `inst` before instruction `i` (indices into
    /// the current list, non-decreasing; several at one index go in the order given), as part of
    /// the same block as instruction `i`. Inserted instructions take instruction `i`'s source
    /// line and are not branches.
    pub(crate) fn splice(&mut self, inserts: Vec<(usize, Inst)>) {
        if inserts.is_empty() {
            return;
        }
        let old = self.insts.len();
        let n = old + inserts.len();
        let mut insts = Vec::with_capacity(n);
        let mut lines = Vec::with_capacity(n);
        let mut targets = Vec::with_capacity(n);
        let mut done = 0;
        for &(at, inst) in &inserts {
            let at = at.min(old);
            insts.extend_from_slice(&self.insts[done..at]);
            lines.extend_from_slice(&self.lines[done..at]);
            targets.extend_from_slice(&self.targets[done..at]);
            insts.push(inst);
            lines.push(self.lines.get(at).copied().unwrap_or(0));
            targets.push(None);
            done = at;
        }
        insts.extend_from_slice(&self.insts[done..]);
        lines.extend_from_slice(&self.lines[done..]);
        targets.extend_from_slice(&self.targets[done..]);
        // A block that started at old instruction i now starts at the first instruction inserted
        // before it: i moves by the insertions at indices below i.
        for s in &mut self.block_starts {
            *s += inserts.partition_point(|&(at, _)| at < *s);
        }
        self.insts = insts;
        self.lines = lines;
        self.targets = targets;
    }
}
