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
//! Ion spreads values over every register it is offered (each search for a free register starts
//! at an offset that rotates with the value), so [`compact`] then renumbers the registers it
//! chose onto as few as the program's interference allows — on the bench kernel, the most VGPRs
//! live at any point (docs/performance.md). (Offering Ion only a few registers as "preferred"
//! packs less well and makes its search slower.)

use regalloc2::{
    Allocation, Block, Function, Inst as RaInst, InstRange, MachineEnv, Operand as RaOperand, Output, PReg, PRegSet,
    RegClass, RegallocOptions, VReg,
};

use crate::vcode::{MInst, Term, VCode, SGPR, VGPR, VGPR64};
use qd_amdgcn_isa::{Family, Target};
use qd_mir::CompileError;

/// The abstract register number of each class's scratch register.
pub(crate) const SCRATCH: usize = 63;

/// VGPRs every kernel reserves below the allocated ones: `v0` (the packed work-item ids on
/// entry), `v1` (the VGPR class scratch), `v[2:3]` (the pair scratch) and `v[4:5]` (the
/// per-lane spill address, when the kernel spills).
pub(crate) const RESERVED_VGPRS: u32 = 6;

/// SGPRs every kernel reserves below the allocated ones: `s[0:7]` hold the ABI registers on
/// entry (kernarg pointer, workgroup ids), `s[8:13]` the three [`crate::vcode::Fill::Pair`]
/// temporaries, `s[14:15]` the saved EXEC of whole-wave moves.
pub(crate) const RESERVED_SGPRS: u32 = 16;

/// How many registers of each class the allocator may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
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
    pub(crate) fn new(target: Target, max_vgprs: u32, max_sgprs: u32) -> Budget {
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
        let regs = |class: RegClass, n: usize| (0..n).map(|i| PReg::new(i, class)).collect::<Vec<_>>();
        MachineEnv {
            preferred_regs_by_class: [regs(SGPR, self.sgprs), regs(VGPR, self.vgprs), regs(VGPR64, self.pairs)],
            non_preferred_regs_by_class: [Vec::new(), Vec::new(), Vec::new()],
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
pub(crate) struct RaFunc<'a> {
    vcode: &'a VCode,
    insts: Vec<&'a MInst>,
    ranges: Vec<InstRange>,
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
}

impl<'a> RaFunc<'a> {
    /// Flattens `vcode` (whose critical edges must be split).
    pub(crate) fn new(vcode: &'a VCode) -> RaFunc<'a> {
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
    pub(crate) fn inst(&self, i: RaInst) -> &MInst {
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
pub(crate) struct Allocated<'a> {
    /// regalloc2's output.
    pub output: Output,
    /// The flattened function it is for (emission walks it again).
    pub func: RaFunc<'a>,
}

/// Allocates registers; with `check`, runs regalloc2's checker on the result.
///
/// Each class gets at least as many registers as the most operands of that class any single
/// instruction names (a budget below what one instruction needs cannot be met by spilling), and
/// a panic inside regalloc2 is turned into an error rather than unwinding through the caller.
pub(crate) fn allocate(
    vcode: &VCode,
    budget: Budget,
    check: bool,
    target: Target,
) -> Result<Allocated<'_>, CompileError> {
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
        .map_err(|_| CompileError::internal(target, "regalloc2 panicked on this kernel"))?;
    let output = run.map_err(|e| CompileError::internal(target, format!("register allocation failed: {e:?}")))?;
    if check {
        let mut checker = regalloc2::checker::Checker::new(&func, &env);
        checker.prepare(&output);
        checker.run().map_err(|e| {
            CompileError::internal(target, format!("the regalloc2 checker rejected the allocation: {e:?}"))
        })?;
    }
    Ok(Allocated { output, func })
}

/// The abstract register number of an allocation (`None` for a spill slot).
pub(crate) fn reg_of(a: Allocation) -> Option<(RegClass, usize)> {
    a.as_reg().map(|p| (p.class(), p.hw_enc()))
}

/// A set of abstract registers per class (bit `i` of word `c`: register `i` of class `c`; the
/// scratch register is never in one).
type RegSet = [u64; 3];

fn bit_of(a: Allocation) -> Option<(usize, u64)> {
    match reg_of(a) {
        Some((c, i)) if i != SCRATCH => Some((c as usize, 1u64 << i)),
        _ => None,
    }
}

fn add(s: &mut RegSet, a: Allocation) {
    if let Some((c, b)) = bit_of(a) {
        s[c] |= b;
    }
}

/// The registers an instruction or an allocator move reads and writes.
#[derive(Clone, Copy)]
struct Item {
    uses: RegSet,
    defs: RegSet,
    /// A move's source: not made to interfere with its destination (the two may merge, and the
    /// move then vanishes).
    move_from: RegSet,
}

/// Appends the items of `block`, in program order.
fn items(a: &Allocated<'_>, block: Block, out: &mut Vec<Item>) {
    for ie in a.output.block_insts_and_edits(&a.func, block) {
        let mut it = Item { uses: [0; 3], defs: [0; 3], move_from: [0; 3] };
        match ie {
            regalloc2::InstOrEdit::Inst(i) => {
                let ops = a.func.inst_operands(i);
                for (o, &al) in ops.iter().zip(a.output.inst_allocs(i)) {
                    match o.kind() {
                        regalloc2::OperandKind::Use => add(&mut it.uses, al),
                        regalloc2::OperandKind::Def => add(&mut it.defs, al),
                    }
                }
            }
            regalloc2::InstOrEdit::Edit(regalloc2::Edit::Move { from, to }) => {
                add(&mut it.uses, *from);
                add(&mut it.move_from, *from);
                add(&mut it.defs, *to);
            }
        }
        out.push(it);
    }
}

/// A renumbering of the registers regalloc2 chose, per class, onto as few registers as possible:
/// `(map, used)` gives register `i` of class `c` the number `map[c][i] < used[c]`.
///
/// Two registers can become one when no point of the program needs both: the liveness of every
/// register is computed over the allocated program (instructions and the allocator's moves, on
/// the same control-flow graph regalloc2 allocated on), a register written by an instruction
/// interferes with every register live after it and with every other register the instruction
/// names, and the interference graph is coloured greedily. regalloc2 spreads values over all the
/// registers it is offered (each search for a free register starts at a rotating offset), so
/// this pass, not the allocator, decides how many registers a kernel uses; it costs a few
/// bit operations per instruction.
pub(crate) fn compact(a: &Allocated<'_>) -> ([[u16; SCRATCH]; 3], [usize; 3]) {
    let nb = a.func.num_blocks();
    // Every block's items, once: block b is all[start[b]..start[b + 1]].
    let mut all = Vec::with_capacity(a.func.num_insts() + a.output.edits.len());
    let mut start = Vec::with_capacity(nb + 1);
    for b in 0..nb {
        start.push(all.len());
        items(a, Block::new(b), &mut all);
    }
    start.push(all.len());
    // Upward-exposed uses and definitions of each block.
    let mut gen = vec![[0u64; 3]; nb];
    let mut kill = vec![[0u64; 3]; nb];
    let mut seen: RegSet = [0; 3];
    for b in 0..nb {
        for it in &all[start[b]..start[b + 1]] {
            for c in 0..3 {
                gen[b][c] |= it.uses[c] & !kill[b][c];
                kill[b][c] |= it.defs[c];
                seen[c] |= it.uses[c] | it.defs[c];
            }
        }
    }
    // Live-in sets to a fixed point.
    let mut live_in = vec![[0u64; 3]; nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut out: RegSet = [0; 3];
            for s in a.func.block_succs(Block::new(b)) {
                for c in 0..3 {
                    out[c] |= live_in[s.index()][c];
                }
            }
            for c in 0..3 {
                let inn = gen[b][c] | (out[c] & !kill[b][c]);
                if inn != live_in[b][c] {
                    live_in[b][c] = inn;
                    changed = true;
                }
            }
        }
    }
    // Interference, walking each block backwards from its live-out set.
    let mut interf = [[0u64; SCRATCH]; 3];
    for b in 0..nb {
        let mut live: RegSet = [0; 3];
        for s in a.func.block_succs(Block::new(b)) {
            for c in 0..3 {
                live[c] |= live_in[s.index()][c];
            }
        }
        for it in all[start[b]..start[b + 1]].iter().rev() {
            for c in 0..3 {
                let named = it.uses[c] | it.defs[c];
                let mut d = it.defs[c];
                while d != 0 {
                    let r = d.trailing_zeros() as usize;
                    d &= d - 1;
                    interf[c][r] |= (live[c] & !it.move_from[c]) | (named & !it.move_from[c]);
                }
                if it.move_from[c] == 0 {
                    let mut u = it.uses[c];
                    while u != 0 {
                        let r = u.trailing_zeros() as usize;
                        u &= u - 1;
                        interf[c][r] |= named;
                    }
                }
                live[c] = (live[c] & !it.defs[c]) | it.uses[c];
            }
        }
    }
    let mut map = [[0u16; SCRATCH]; 3];
    let mut used = [0usize; 3];
    for c in 0..3 {
        // Symmetric, and no register interferes with itself.
        for r in 0..SCRATCH {
            let mut m = interf[c][r];
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                interf[c][s] |= 1 << r;
            }
        }
        let mut colour_of = [u16::MAX; SCRATCH];
        for r in (0..SCRATCH).filter(|&r| seen[c] >> r & 1 == 1) {
            let mut taken = 0u64;
            let mut m = interf[c][r] & !(1u64 << r);
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                if colour_of[s] != u16::MAX {
                    taken |= 1 << colour_of[s];
                }
            }
            let k = (!taken).trailing_zeros() as u16;
            colour_of[r] = k;
            map[c][r] = k;
            used[c] = used[c].max(usize::from(k) + 1);
        }
    }
    (map, used)
}
