//! Register allocation of [`VCode`] with regalloc2 (the Ion allocator), and its checker.
//!
//! [`RaFunc`] is the flattened view regalloc2 reads through its `Function` trait: instruction
//! indices across blocks, each instruction's operands exactly as [`MInst::operands`] lists them
//! (the same list emission fills slots from), block parameters and the jumps' arguments.
//!
//! Register classes map to abstract register numbers 0..62 per class — SGPRs, VGPRs and aligned
//! VGPR pairs — with number 63 the class's dedicated scratch; emission turns them into physical
//! registers once the counts used are known (`emit.rs`), so every kernel packs its registers from
//! the bottom of the file. The per-class budgets come from the target's register file and the
//! occupancy asked for ([`Budget`]); a kernel that needs more spills to the per-lane spill area.
//!
//! Ion takes the first free register in its scan of a class's registers — the preferred ones,
//! then the rest — and starts each scan at an offset that rotates with the value, which spreads
//! values over every register it is offered. So only the first [`PREFERRED`] registers of each
//! class are offered as preferred and the rest of the budget as non-preferred: values pack into
//! those few, and the others are taken only when all of them are busy (a free register is still
//! always taken before anything is evicted or spilled, so this adds no spills and needs no second
//! allocation). On the filetest corpus this brings the mean VGPR count from 65 to 36.

use regalloc2::{
    Allocation, Block, Function, Inst as RaInst, InstRange, MachineEnv, Operand as RaOperand, Output, PReg, PRegSet,
    RegClass, RegallocOptions, VReg,
};

use crate::target::{Family, Target};
use crate::vcode::{MInst, Term, VCode, SGPR, VGPR, VGPR64};

/// The abstract register number of each class's scratch register.
pub const SCRATCH: usize = 63;

/// VGPRs every kernel reserves below the allocated ones: `v0` (the packed work-item ids on
/// entry), `v1` (the VGPR class scratch), `v[2:3]` (the pair scratch) and `v[4:5]` (the
/// per-lane spill address, when the kernel spills).
pub const RESERVED_VGPRS: u32 = 6;

/// SGPRs every kernel reserves below the allocated ones: `s[0:7]` hold the ABI registers on
/// entry (kernarg pointer, workgroup ids), `s[8:13]` the three [`crate::vcode::Fill::Pair`]
/// temporaries, `s[14:15]` the saved EXEC of whole-wave moves.
pub const RESERVED_SGPRS: u32 = 16;

/// How many registers of each class (SGPRs, VGPRs, VGPR pairs) regalloc2 is offered as preferred:
/// measured on the filetest corpus and the bench kernel (docs/performance.md).
pub const PREFERRED: [usize; 3] = [24, 16, 4];

/// How many registers of each class the allocator may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// SGPRs.
    pub sgprs: usize,
    /// Single VGPRs.
    pub vgprs: usize,
    /// VGPR pairs.
    pub pairs: usize,
}

impl Budget {
    /// The budget for at most `max_vgprs` VGPRs and `max_sgprs` SGPRs in all (reserved ones
    /// included): the VGPR file is split one third singles, two thirds pairs.
    pub fn new(target: Target, max_vgprs: u32, max_sgprs: u32) -> Budget {
        let sgpr_limit = match target.family() {
            Family::Gfx9 => 102,
            Family::Gfx11 => 106,
        };
        let s = max_sgprs.min(sgpr_limit).saturating_sub(RESERVED_SGPRS + 2) as usize; // + VCC
        let v = max_vgprs.min(256).saturating_sub(RESERVED_VGPRS) as usize;
        let vgprs = (v / 3).clamp(2, SCRATCH);
        let pairs = ((v - vgprs.min(v)) / 2).clamp(2, SCRATCH);
        Budget { sgprs: s.clamp(4, SCRATCH), vgprs, pairs }
    }

    fn env(&self) -> MachineEnv {
        let regs = |class: RegClass, r: std::ops::Range<usize>| r.map(|i| PReg::new(i, class)).collect::<Vec<_>>();
        let n = [self.sgprs, self.vgprs, self.pairs];
        let p = [0, 1, 2].map(|c| PREFERRED[c].min(n[c]));
        MachineEnv {
            preferred_regs_by_class: [regs(SGPR, 0..p[0]), regs(VGPR, 0..p[1]), regs(VGPR64, 0..p[2])],
            non_preferred_regs_by_class: [regs(SGPR, p[0]..n[0]), regs(VGPR, p[1]..n[1]), regs(VGPR64, p[2]..n[2])],
            scratch_by_class: [
                Some(PReg::new(SCRATCH, SGPR)),
                Some(PReg::new(SCRATCH, VGPR)),
                Some(PReg::new(SCRATCH, VGPR64)),
            ],
            fixed_stack_slots: Vec::new(),
        }
    }
}

/// The flattened function regalloc2 allocates.
pub struct RaFunc<'a> {
    vcode: &'a VCode,
    insts: Vec<&'a MInst>,
    ranges: Vec<InstRange>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
}

impl<'a> RaFunc<'a> {
    /// Flattens `vcode` (whose critical edges must be split).
    pub fn new(vcode: &'a VCode) -> RaFunc<'a> {
        let mut insts = Vec::new();
        let mut ranges = Vec::new();
        for b in &vcode.blocks {
            let start = insts.len();
            insts.extend(b.insts.iter());
            ranges.push(InstRange::new(RaInst::new(start), RaInst::new(insts.len())));
        }
        let n = vcode.blocks.len();
        let succs: Vec<Vec<Block>> = (0..n).map(|b| vcode.succs(Block::new(b))).collect();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                preds[s.index()].push(Block::new(b));
            }
        }
        RaFunc { vcode, insts, ranges, succs, preds }
    }

    /// The MInst at a flat index.
    pub fn inst(&self, i: RaInst) -> &MInst {
        self.insts[i.index()]
    }
}

impl Function for RaFunc<'_> {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }

    fn num_blocks(&self) -> usize {
        self.ranges.len()
    }

    fn entry_block(&self) -> Block {
        Block::new(0)
    }

    fn block_insns(&self, block: Block) -> InstRange {
        self.ranges[block.index()]
    }

    fn block_succs(&self, block: Block) -> &[Block] {
        &self.succs[block.index()]
    }

    fn block_preds(&self, block: Block) -> &[Block] {
        &self.preds[block.index()]
    }

    fn block_params(&self, block: Block) -> &[VReg] {
        &self.vcode.blocks[block.index()].params
    }

    fn is_ret(&self, insn: RaInst) -> bool {
        self.insts[insn.index()].term == Term::Ret
    }

    fn is_branch(&self, insn: RaInst) -> bool {
        matches!(self.insts[insn.index()].term, Term::Jump(_) | Term::Branch { .. })
    }

    fn branch_blockparams(&self, _block: Block, insn: RaInst, succ_idx: usize) -> &[VReg] {
        self.insts[insn.index()].succ_args.get(succ_idx).map(Vec::as_slice).unwrap_or(&[])
    }

    fn inst_operands(&self, insn: RaInst) -> &[RaOperand] {
        &self.insts[insn.index()].operands
    }

    fn inst_clobbers(&self, _insn: RaInst) -> PRegSet {
        PRegSet::empty()
    }

    fn num_vregs(&self) -> usize {
        self.vcode.vreg_classes.len()
    }

    fn spillslot_size(&self, regclass: RegClass) -> usize {
        match regclass {
            RegClass::Int | RegClass::Float => 1,
            RegClass::Vector => 2,
        }
    }
}

thread_local! {
    static CTX: std::cell::RefCell<regalloc2::Ctx> = std::cell::RefCell::new(regalloc2::Ctx::default());
}

/// The allocation of one kernel.
pub struct Allocated {
    /// regalloc2's output.
    pub output: Output,
}

/// Allocates registers; with `check`, runs regalloc2's checker on the result.
///
/// Each class gets at least as many registers as the most operands of that class any single
/// instruction names (a budget below what one instruction needs cannot be met by spilling), and
/// a panic inside regalloc2 is turned into an error rather than unwinding through the caller.
pub fn allocate(vcode: &VCode, budget: Budget, check: bool) -> Result<Allocated, String> {
    let func = RaFunc::new(vcode);
    let mut need = [0usize; 3];
    for m in vcode.blocks.iter().flat_map(|b| &b.insts) {
        let mut n = [0usize; 3];
        for o in &m.operands {
            n[o.class() as usize] += 1;
        }
        for c in 0..3 {
            need[c] = need[c].max(n[c]);
        }
    }
    let budget = Budget {
        sgprs: budget.sgprs.max(need[SGPR as usize]).min(SCRATCH),
        vgprs: budget.vgprs.max(need[VGPR as usize]).min(SCRATCH),
        pairs: budget.pairs.max(need[VGPR64 as usize]).min(SCRATCH),
    };
    let env = budget.env();
    let opts = RegallocOptions { verbose_log: false, validate_ssa: check, algorithm: regalloc2::Algorithm::Ion };
    // regalloc2's working memory is kept per thread and reused by the next kernel.
    let run = CTX
        .with(|cell| {
            let mut ctx = cell.borrow_mut();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                regalloc2::run_with_ctx(&func, &env, &opts, &mut ctx).cloned()
            }));
            if r.is_err() {
                *ctx = regalloc2::Ctx::default();
            }
            r
        })
        .map_err(|_| "internal: regalloc2 panicked on this kernel".to_string())?;
    let output = run.map_err(|e| format!("register allocation failed: {e:?}"))?;
    if check {
        let mut checker = regalloc2::checker::Checker::new(&func, &env);
        checker.prepare(&output);
        checker.run().map_err(|e| format!("the regalloc2 checker rejected the allocation: {e:?}"))?;
    }
    Ok(Allocated { output })
}

/// The abstract register number of an allocation (`None` for a spill slot).
pub fn reg_of(a: Allocation) -> Option<(RegClass, usize)> {
    a.as_reg().map(|p| (p.class(), p.hw_enc()))
}
