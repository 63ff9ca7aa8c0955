//! VCode: the kernel as AMDGCN machine instructions over *virtual* registers, between MIR
//! lowering and register allocation.
//!
//! One [`MInst`] is a short sequence of ISA instruction templates ([`Step`]) that share one list
//! of regalloc2 operands: the operand list is the single description of what the instruction reads
//! and writes, used both by the allocator (through the `regalloc2::Function` impl in
//! `regalloc.rs`) and by emission (`emit.rs`, which fills each template slot from the allocation
//! of the operand it names). Keeping SCC, VCC and the fixed SGPR-pair temporaries inside one
//! `MInst` means the allocator never has to preserve them across its own moves.
//!
//! Register classes: SGPR (regalloc2 `Int`), VGPR (`Float`) and aligned VGPR pairs (`Vector`)
//! for varying 64-bit values. A uniform 64-bit value is two SGPR vregs; an instruction that needs
//! an SGPR pair (`s_and_saveexec_b64`, `v_cndmask_b32` masks, `s_lshl_b64`, …) names the two
//! halves with [`A::SPair`]/[`A::SPairDef`] and emission copies them through a fixed temporary
//! pair. Divergent joins are merge instructions whose def reuses the register of the value it
//! merges into ([`A::Tied`]), never block parameters; block parameters only carry lane-complete
//! values, and every allocator move of a VGPR in a divergent block is emitted whole-wave.

use std::fmt;

use regalloc2::{Operand as RaOperand, OperandConstraint, OperandKind, OperandPos, RegClass, VReg};

use qd_amdgcn_isa::{Inst, Operand, MAX_OPERANDS};

/// regalloc2 class of SGPRs.
pub(crate) const SGPR: RegClass = RegClass::Int;
/// regalloc2 class of VGPRs.
pub(crate) const VGPR: RegClass = RegClass::Float;
/// regalloc2 class of aligned VGPR pairs.
pub(crate) const VGPR64: RegClass = RegClass::Vector;

/// A VCode block index.
pub(crate) type VBlock = regalloc2::Block;

/// Which part of an allocated register a template slot takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    /// The whole register (an SGPR, a VGPR, or a VGPR pair as `v[n:n+1]`).
    Whole,
    /// The low VGPR of a pair.
    Lo,
    /// The high VGPR of a pair.
    Hi,
}

/// What fills one operand slot of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fill {
    /// The template's own operand (a constant, `exec`, `vcc`, `off`, a fixed register).
    Keep,
    /// The allocation of regalloc operand `op`, or part of it.
    Reg {
        /// Index into [`MInst::operands`].
        op: u8,
        /// Which part.
        part: Part,
    },
    /// An SGPR pair assembled from two SGPR operands through fixed temporary pair `temp`
    /// (0..[`PAIR_TEMPS`]): for uses the halves are copied in before the step, for defs copied
    /// out after it.
    Pair {
        /// Operand index of the low half.
        lo: u8,
        /// Operand index of the high half.
        hi: u8,
        /// Which fixed temporary pair.
        temp: u8,
        /// True when the step writes the pair (copied out after it), false when it reads it
        /// (copied in before it) — even when the halves are defs of an earlier step.
        def: bool,
    },
    /// The fixed VGPR quad `v[6:9]` (or one dword of it), for the few instructions that need four
    /// consecutive VGPRs (`global_atomic_cmpswap_x2` data). Emission reserves it only in kernels
    /// that use it; its contents do not survive the MInst.
    Quad {
        /// `Some(k)`: dword k (0..4); `None`: the whole quad.
        dword: Option<u8>,
    },
}

/// Fixed SGPR pairs available to [`Fill::Pair`] inside one `MInst`.
pub(crate) const PAIR_TEMPS: u8 = 3;

/// One ISA instruction template and how to fill its slots.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step {
    /// The template (its `Keep` slots are final; the others are replaced).
    pub inst: Inst,
    /// One fill per operand slot.
    pub fills: [Fill; MAX_OPERANDS],
}

/// How an `MInst` ends its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    /// Not a terminator.
    None,
    /// `s_endpgm` (or any end of the kernel).
    Ret,
    /// Unconditional jump (`s_branch`, elided when the target is the next block).
    Jump(VBlock),
    /// The steps end with a conditional branch (`s_cbranch_*` as the last step, its offset filled
    /// at emission) to `taken`; otherwise control goes to `not_taken` (a `s_branch` is added when
    /// that is not the next block).
    Branch {
        /// Target when the branch is taken.
        taken: VBlock,
        /// Target when it falls through.
        not_taken: VBlock,
    },
}

/// A machine instruction over virtual registers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MInst {
    /// The ISA instructions, in order (empty for pure pseudos such as an implicit def).
    pub steps: Vec<Step>,
    /// The regalloc2 operands: the one description of what this instruction reads and writes.
    pub operands: Vec<RaOperand>,
    /// Terminator kind.
    pub term: Term,
    /// Arguments to the successors' block parameters, per successor (in [`MInst::succs`] order).
    pub succ_args: Vec<Vec<VReg>>,
    /// MIR source line of the instruction this came from (0: none).
    pub line: u32,
}

/// An argument of [`MInst::step`]: what goes into one template slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum A {
    /// A fixed operand (constant, special register).
    K(Operand),
    /// Read a vreg (whole).
    U(VReg),
    /// Read the low half of a VGPR-pair vreg.
    UL(VReg),
    /// Read the high half of a VGPR-pair vreg.
    UH(VReg),
    /// Write a vreg (whole).
    D(VReg),
    /// Write the low half of a VGPR-pair vreg (the other half must be written in the same MInst).
    DL(VReg),
    /// Write the high half of a VGPR-pair vreg.
    DH(VReg),
    /// Write `def`, in the register that holds `old` (a merge under EXEC: lanes not written keep
    /// `old`'s value).
    Tied {
        /// The new value.
        def: VReg,
        /// The value whose register it takes over.
        old: VReg,
    },
    /// Like [`A::Tied`] for the low half of a VGPR pair (write the high half with [`A::DH`] of
    /// `def` in the same MInst).
    TiedLo {
        /// The new value.
        def: VReg,
        /// The value whose register it takes over.
        old: VReg,
    },
    /// A scratch register live only inside this MInst (allocated; class of the vreg).
    T(VReg),
    /// Read an SGPR pair made of two SGPR vregs (lo, hi).
    SPair(VReg, VReg),
    /// Write an SGPR pair into two SGPR vregs (lo, hi).
    SPairDef(VReg, VReg),
    /// One dword (0..4) of the fixed VGPR quad ([`Fill::Quad`]).
    Quad(u8),
    /// The whole fixed VGPR quad `v[6:9]`.
    QuadAll,
}

impl MInst {
    /// An empty non-terminator.
    pub(crate) fn new() -> MInst {
        MInst { steps: Vec::new(), operands: Vec::new(), term: Term::None, succ_args: Vec::new(), line: 0 }
    }

    /// One ISA instruction with its slots given by `args` (in the op's assembler order).
    pub(crate) fn one(inst: Inst, args: &[A]) -> MInst {
        let mut m = MInst::new();
        m.step(inst, args);
        m
    }

    fn operand_index(&mut self, want: RaOperand) -> u8 {
        if let Some(i) = self.operands.iter().position(|o| *o == want) {
            return i as u8;
        }
        self.operands.push(want);
        (self.operands.len() - 1) as u8
    }

    fn use_of(&mut self, v: VReg) -> u8 {
        // A vreg defined earlier in this MInst is read from its def's register.
        if let Some(i) = self.operands.iter().position(|o| o.vreg() == v && o.kind() == OperandKind::Def) {
            return i as u8;
        }
        self.operand_index(RaOperand::reg_use(v))
    }

    fn def_of(&mut self, v: VReg) -> u8 {
        if let Some(i) = self.operands.iter().position(|o| o.vreg() == v && o.kind() == OperandKind::Def) {
            return i as u8;
        }
        // Early defs never share a register with this instruction's uses, so multi-step
        // sequences may write a def before reading their last use.
        self.operand_index(RaOperand::new(v, OperandConstraint::Reg, OperandKind::Def, OperandPos::Early))
    }

    /// Appends one step. Templates' own operands are replaced slot by slot from `args`; slots
    /// past `args` keep the template's operand.
    pub(crate) fn step(&mut self, inst: Inst, args: &[A]) -> &mut MInst {
        let mut t = inst;
        let mut fills = [Fill::Keep; MAX_OPERANDS];
        let mut temp = 0u8;
        for (slot, a) in args.iter().enumerate() {
            fills[slot] = match *a {
                A::K(o) => {
                    t.operands[slot] = o;
                    Fill::Keep
                }
                A::U(v) => Fill::Reg { op: self.use_of(v), part: Part::Whole },
                A::UL(v) => Fill::Reg { op: self.use_of(v), part: Part::Lo },
                A::UH(v) => Fill::Reg { op: self.use_of(v), part: Part::Hi },
                A::D(v) => Fill::Reg { op: self.def_of(v), part: Part::Whole },
                A::DL(v) => Fill::Reg { op: self.def_of(v), part: Part::Lo },
                A::DH(v) => Fill::Reg { op: self.def_of(v), part: Part::Hi },
                A::Tied { def, old } => {
                    let u = self.operand_index(RaOperand::reg_use(old)) as usize;
                    let d = self.operand_index(RaOperand::reg_reuse_def(def, u));
                    Fill::Reg { op: d, part: Part::Whole }
                }
                A::TiedLo { def, old } => {
                    let u = self.operand_index(RaOperand::reg_use(old)) as usize;
                    let d = self.operand_index(RaOperand::reg_reuse_def(def, u));
                    Fill::Reg { op: d, part: Part::Lo }
                }
                A::T(v) => Fill::Reg { op: self.operand_index(RaOperand::reg_temp(v)), part: Part::Whole },
                A::SPair(lo, hi) => {
                    let (lo, hi) = (self.use_of(lo), self.use_of(hi));
                    temp += 1;
                    Fill::Pair { lo, hi, temp: temp - 1, def: false }
                }
                A::SPairDef(lo, hi) => {
                    let (lo, hi) = (self.def_of(lo), self.def_of(hi));
                    temp += 1;
                    Fill::Pair { lo, hi, temp: temp - 1, def: true }
                }
                A::Quad(k) => Fill::Quad { dword: Some(k) },
                A::QuadAll => Fill::Quad { dword: None },
            };
        }
        assert!(temp <= PAIR_TEMPS, "an instruction names more than {PAIR_TEMPS} SGPR pairs");
        self.steps.push(Step { inst: t, fills });
        self
    }

    /// Adds an operand that no template slot names (a use that must stay live, an implicit def).
    pub(crate) fn extra(&mut self, o: RaOperand) -> &mut MInst {
        self.operands.push(o);
        self
    }

    /// The successor blocks, in order.
    pub(crate) fn succs(&self) -> Vec<VBlock> {
        match self.term {
            Term::None | Term::Ret => Vec::new(),
            Term::Jump(b) => vec![b],
            Term::Branch { taken, not_taken } => vec![taken, not_taken],
        }
    }
}

impl Default for MInst {
    fn default() -> Self {
        MInst::new()
    }
}

/// One block of VCode.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct VBlockData {
    /// Block parameters (SSA values defined on entry; carried by the predecessors' branches).
    pub params: Vec<VReg>,
    /// The instructions; the last one is the terminator.
    pub insts: Vec<MInst>,
    /// True when EXEC may be a strict subset of the lanes that entered the kernel here: allocator
    /// moves of VGPRs in this block are emitted whole-wave.
    pub divergent: bool,
    /// A label for listings (`if.then`, `loop.body`, …).
    pub name: String,
}

/// A kernel's VCode: blocks in layout (emission) order, block 0 the entry.
#[derive(Clone, Debug, Default)]
pub(crate) struct VCode {
    /// The blocks.
    pub blocks: Vec<VBlockData>,
    /// Class of every vreg, by index.
    pub vreg_classes: Vec<RegClass>,
}

impl VCode {
    /// A new vreg of a class.
    pub(crate) fn new_vreg(&mut self, class: RegClass) -> VReg {
        let v = VReg::new(self.vreg_classes.len(), class);
        self.vreg_classes.push(class);
        v
    }

    /// Appends an empty block.
    pub(crate) fn new_block(&mut self, name: impl Into<String>, divergent: bool) -> VBlock {
        self.blocks.push(VBlockData { name: name.into(), divergent, ..VBlockData::default() });
        VBlock::new(self.blocks.len() - 1)
    }

    /// Puts the blocks in the order `order` lists them (blocks it omits follow, in their current
    /// order), renumbering every reference. Block 0 must come first.
    pub(crate) fn reorder(&mut self, order: &[VBlock]) {
        let n = self.blocks.len();
        let mut seq: Vec<usize> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        for b in order.iter().map(|b| b.index()).chain(0..n) {
            if !placed[b] {
                placed[b] = true;
                seq.push(b);
            }
        }
        let mut new_of = vec![0usize; n];
        for (new, &old) in seq.iter().enumerate() {
            new_of[old] = new;
        }
        let renum = |b: VBlock| VBlock::new(new_of[b.index()]);
        let mut old_blocks: Vec<Option<VBlockData>> = std::mem::take(&mut self.blocks).into_iter().map(Some).collect();
        for &old in &seq {
            let mut blk = old_blocks[old].take().expect("each block once");
            for m in &mut blk.insts {
                m.term = match m.term {
                    Term::Jump(b) => Term::Jump(renum(b)),
                    Term::Branch { taken, not_taken } => {
                        Term::Branch { taken: renum(taken), not_taken: renum(not_taken) }
                    }
                    ref t => t.clone(),
                };
            }
            self.blocks.push(blk);
        }
    }

    /// True when some instruction uses the fixed VGPR quad ([`Fill::Quad`]), which the register
    /// layout then reserves.
    pub(crate) fn uses_quad(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .flat_map(|m| &m.steps)
            .any(|s| s.fills.iter().any(|f| matches!(f, Fill::Quad { .. })))
    }

    /// The successors of a block (from its terminator).
    pub(crate) fn succs(&self, b: VBlock) -> Vec<VBlock> {
        self.blocks[b.index()].insts.last().map(MInst::succs).unwrap_or_default()
    }

    /// Splits every critical edge (a block with several successors to a block with several
    /// predecessors), and every edge of a two-way branch that passes block arguments, with an
    /// empty block that jumps on, as regalloc2 requires (only jumps carry arguments). The new block is
    /// placed right after the predecessor when the edge is its fall-through, at the end otherwise.
    pub(crate) fn split_critical_edges(&mut self) {
        let original = self.blocks.len();
        // Predecessor edges per block, counted once: splitting an edge replaces its predecessor
        // with the new block, so the counts hold throughout.
        let mut npreds = vec![0usize; original];
        for b in 0..original {
            for s in self.succs(VBlock::new(b)) {
                npreds[s.index()] += 1;
            }
        }
        let mut edges: Vec<(usize, usize, usize)> = Vec::new(); // (new block, pred, succ)
        let mut b = 0;
        while b < original {
            let succs = self.succs(VBlock::new(b));
            if succs.len() > 1 {
                for (k, s) in succs.iter().enumerate() {
                    let has_args =
                        self.blocks[b].insts.last().is_some_and(|m| m.succ_args.get(k).is_some_and(|a| !a.is_empty()));
                    if npreds[s.index()] > 1 || has_args {
                        let divergent = self.blocks[s.index()].divergent;
                        let args = self.blocks[b].insts.last().map(|m| m.succ_args.get(k).cloned().unwrap_or_default());
                        let n = self.new_block(format!("edge.{}.{}", b, s.index()), divergent);
                        edges.push((n.index(), b, s.index()));
                        let mut j = MInst::new();
                        j.term = Term::Jump(*s);
                        j.succ_args = vec![args.unwrap_or_default()];
                        self.blocks[n.index()].insts.push(j);
                        let last = self.blocks[b].insts.last_mut().expect("a block with successors has a terminator");
                        if let Some(a) = last.succ_args.get_mut(k) {
                            a.clear();
                        }
                        last.term = match last.term {
                            Term::Branch { not_taken, .. } if k == 0 => Term::Branch { taken: n, not_taken },
                            Term::Branch { taken, .. } => Term::Branch { taken, not_taken: n },
                            ref t => t.clone(),
                        };
                    }
                }
            }
            b += 1;
        }
        // Lay each new block out right before its successor when that comes after the
        // predecessor (the predecessor's fall-through is kept), else right after the predecessor
        // (a back edge): every block but a loop header then follows one of its predecessors, the
        // order regalloc2's checker walks in.
        let mut before: Vec<Vec<usize>> = vec![Vec::new(); original];
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); original];
        for &(n, p, s) in &edges {
            if p < s {
                before[s].push(n);
            } else {
                after[p].push(n);
            }
        }
        let mut order = Vec::with_capacity(self.blocks.len());
        for i in 0..original {
            order.extend(before[i].iter().map(|&n| VBlock::new(n)));
            order.push(VBlock::new(i));
            order.extend(after[i].iter().map(|&n| VBlock::new(n)));
        }
        self.reorder(&order);
    }
}

impl fmt::Display for VCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.blocks.iter().enumerate() {
            write!(f, "block{i} ({})", b.name)?;
            if !b.params.is_empty() {
                let ps: Vec<String> = b.params.iter().map(|v| vreg_name(*v)).collect();
                write!(f, "({})", ps.join(", "))?;
            }
            if b.divergent {
                write!(f, " divergent")?;
            }
            writeln!(f, ":")?;
            for m in &b.insts {
                writeln!(f, "  {}", minst_text(m))?;
            }
        }
        Ok(())
    }
}

/// `%s3`, `%v7`, `%w2` (VGPR pair).
pub(crate) fn vreg_name(v: VReg) -> String {
    let c = match v.class() {
        RegClass::Int => 's',
        RegClass::Float => 'v',
        RegClass::Vector => 'w',
    };
    format!("%{c}{}", v.vreg())
}

/// A fixed operand as the assembler writes it.
fn operand_text(o: Operand) -> String {
    let range = |p: char, r: qd_amdgcn_isa::RegRange| {
        if r.len == 1 {
            format!("{p}{}", r.first)
        } else {
            format!("{p}[{}:{}]", r.first, r.last())
        }
    };
    match o {
        Operand::None => "off".into(),
        Operand::Sgpr(r) => range('s', r),
        Operand::Vgpr(r) => range('v', r),
        Operand::Vcc => "vcc".into(),
        Operand::VccLo => "vcc_lo".into(),
        Operand::VccHi => "vcc_hi".into(),
        Operand::Exec => "exec".into(),
        Operand::ExecLo => "exec_lo".into(),
        Operand::ExecHi => "exec_hi".into(),
        Operand::M0 => "m0".into(),
        Operand::Null => "null".into(),
        Operand::Scc => "scc".into(),
        Operand::Int(i) => i.to_string(),
        Operand::Float(f) => f.text().into(),
        Operand::Literal(x) => format!("0x{x:x}"),
    }
}

fn minst_text(m: &MInst) -> String {
    let mut parts = Vec::new();
    for s in &m.steps {
        let mut ops = Vec::new();
        let used = (0..MAX_OPERANDS)
            .rposition(|k| s.fills[k] != Fill::Keep || s.inst.operands[k] != Operand::None)
            .map_or(0, |k| k + 1);
        for (slot, o) in s.inst.operands[..used].iter().enumerate() {
            ops.push(match s.fills[slot] {
                Fill::Keep => operand_text(*o),
                Fill::Reg { op, part } => {
                    let name = vreg_name(m.operands[op as usize].vreg());
                    match part {
                        Part::Whole => name,
                        Part::Lo => format!("{name}.lo"),
                        Part::Hi => format!("{name}.hi"),
                    }
                }
                Fill::Quad { dword: Some(k) } => format!("quad.{k}"),
                Fill::Quad { dword: None } => "quad".into(),
                Fill::Pair { lo, hi, .. } => format!(
                    "[{}, {}]",
                    vreg_name(m.operands[lo as usize].vreg()),
                    vreg_name(m.operands[hi as usize].vreg())
                ),
            });
        }
        parts.push(format!(
            "{} {}",
            s.inst.op.info().gfx9.or(s.inst.op.info().gfx11).map_or("?", |e| e.name),
            ops.join(", ")
        ));
    }
    let mut text = if parts.is_empty() { "pseudo".to_string() } else { parts.join("; ") };
    let ops: Vec<String> = m.operands.iter().map(|o| format!("{o}")).collect();
    text.push_str(&format!("   [{}]", ops.join(", ")));
    match &m.term {
        Term::None => {}
        Term::Ret => text.push_str(" ret"),
        Term::Jump(b) => text.push_str(&format!(" -> block{}", b.index())),
        Term::Branch { taken, not_taken } => {
            text.push_str(&format!(" -> block{} / block{}", taken.index(), not_taken.index()))
        }
    }
    for (k, a) in m.succ_args.iter().enumerate() {
        if !a.is_empty() {
            let names: Vec<String> = a.iter().map(|v| vreg_name(*v)).collect();
            text.push_str(&format!(" args{k}({})", names.join(", ")));
        }
    }
    text
}
