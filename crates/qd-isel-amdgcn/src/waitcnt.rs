//! `s_waitcnt` insertion on the emitted instruction list, per family's counters.
//!
//! Memory instructions write their result registers (and, for stores, read their data) some time
//! after they issue; the counters say how many are still outstanding (amdgcn-encoding.md §8):
//! `lgkmcnt` for SMEM and LDS, `vmcnt` for vector-memory loads and returning atomics (and GFX9
//! stores), `vscnt` for GFX11 stores. The pass tracks, within a block, which registers a
//! load still has to write, and before an instruction that reads or overwrites one of them waits
//! for the counter to drop far enough: for in-order counters (`vmcnt`, LDS-only `lgkmcnt`) just
//! below the youngest pending writer of that register, for SMEM (which returns out of order) to
//! zero. At block boundaries (branch targets, branches, `s_endpgm`) everything outstanding is
//! waited for, and before `s_barrier` also every store, so that the barrier orders memory the
//! way `block.sync` promises.

use crate::emit::Emitted;
use crate::isa::{Inst, Op, Operand, RegRange, Waitcnt};
use crate::sim::access::{access, voverlap, SRange};
use crate::sim::ops::{is_ds, is_vmem, sem, Sem};
use crate::target::{Family, Target};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Counter {
    Vm,
    Lgkm,
}

struct Pending {
    counter: Counter,
    smem: bool,
    vdefs: Vec<RegRange>,
    sdefs: Vec<SRange>,
}

struct State {
    family: Family,
    lanes: u32,
    /// Outstanding results, oldest first.
    pending: Vec<Pending>,
    /// Stores not yet waited for (GFX9: in `vmcnt`; GFX11: `vscnt`).
    stores: u32,
    /// LDS writes not yet waited for (lgkmcnt).
    lds_writes: bool,
}

fn is_store(s: Sem) -> bool {
    matches!(s, Sem::GStore(_) | Sem::FlatStore | Sem::DsStore)
}

fn is_branch_or_end(op: Op) -> bool {
    matches!(
        op,
        Op::SBranch
            | Op::SCbranchScc0
            | Op::SCbranchScc1
            | Op::SCbranchVccz
            | Op::SCbranchVccnz
            | Op::SCbranchExecz
            | Op::SCbranchExecnz
            | Op::SEndpgm
    )
}

impl State {
    fn wait_inst(&self, vm: Option<u8>, lgkm: Option<u8>) -> Inst {
        let mut w = Waitcnt::none(self.family);
        if let Some(n) = vm {
            w.vm = n;
        }
        if let Some(n) = lgkm {
            w.lgkm = n;
        }
        Inst::new(Op::SWaitcnt, &[]).imm(i32::from(w.encode(self.family)))
    }

    /// The waits needed before `inst`, and the state after them.
    fn before(&mut self, inst: &Inst, out: &mut Vec<Inst>) {
        let s = sem(inst.op);
        let barrier = inst.op == Op::SBarrier;
        if barrier || is_branch_or_end(inst.op) {
            self.wait_all(out, barrier);
            return;
        }
        let acc = access(inst, s, self.family, self.lanes);
        let touches = |p: &Pending| {
            let v = acc.vuses.iter().chain(&acc.vdefs).any(|r| p.vdefs.iter().any(|d| voverlap(*r, *d)));
            let sc = acc
                .suses
                .iter()
                .chain(&acc.sdefs)
                .chain(&acc.simplicit)
                .any(|r| p.sdefs.iter().any(|d| r.overlaps(*d)));
            v || sc
        };
        // One counter at a time: an instruction may read results of both kinds.
        while let Some(last) = self.pending.iter().rposition(touches) {
            self.wait_for(last, out);
        }
    }

    /// Waits until pending entry `last` (and every older one of its counter) has completed.
    fn wait_for(&mut self, last: usize, out: &mut Vec<Inst>) {
        let counter = self.pending[last].counter;
        let needs_zero =
            self.pending.iter().filter(|p| p.counter == counter).any(|p| p.smem) && counter == Counter::Lgkm;
        // In-order counter: keep the pending ones younger than `last`.
        let younger = self.pending[last + 1..].iter().filter(|p| p.counter == counter).count();
        let keep = if needs_zero { 0 } else { younger.min(15) };
        match counter {
            Counter::Vm => out.push(self.wait_inst(Some(keep as u8), None)),
            Counter::Lgkm => out.push(self.wait_inst(None, Some(keep as u8))),
        }
        // Drop all but the `keep` youngest of that counter.
        let total = self.pending.iter().filter(|p| p.counter == counter).count();
        let mut drop = total - keep;
        self.pending.retain(|p| {
            if drop > 0 && p.counter == counter {
                drop -= 1;
                false
            } else {
                true
            }
        });
        if counter == Counter::Lgkm && keep == 0 {
            self.lds_writes = false;
        }
        if counter == Counter::Vm && keep == 0 && self.family == Family::Gfx9 {
            self.stores = 0;
        }
    }

    fn wait_all(&mut self, out: &mut Vec<Inst>, stores_too: bool) {
        let vm =
            self.pending.iter().any(|p| p.counter == Counter::Vm) || (self.family == Family::Gfx9 && self.stores > 0);
        let lgkm = self.pending.iter().any(|p| p.counter == Counter::Lgkm) || self.lds_writes;
        if vm || lgkm {
            out.push(self.wait_inst(vm.then_some(0), lgkm.then_some(0)));
        }
        if stores_too && self.family == Family::Gfx11 && self.stores > 0 {
            out.push(Inst::new(Op::SWaitcntVscnt, &[Operand::Null]).imm(0));
        }
        self.pending.clear();
        self.lds_writes = false;
        if stores_too || self.family == Family::Gfx9 {
            self.stores = 0;
        }
    }

    fn after(&mut self, inst: &Inst) {
        let s = sem(inst.op);
        if inst.op == Op::SWaitcnt {
            // A wait written by lowering: trust it only as "everything done" when it is zero.
            let w = Waitcnt::decode(inst.imm as u16, self.family);
            if w.vm == 0 {
                self.pending.retain(|p| p.counter != Counter::Vm);
                if self.family == Family::Gfx9 {
                    self.stores = 0;
                }
            }
            if w.lgkm == 0 {
                self.pending.retain(|p| p.counter != Counter::Lgkm);
                self.lds_writes = false;
            }
            return;
        }
        let smem = matches!(s, Sem::SLoad | Sem::SBufferLoad | Sem::SMemtime);
        let ds = is_ds(s);
        let vmem = is_vmem(s);
        if !(smem || ds || vmem) {
            return;
        }
        if is_store(s) {
            if ds {
                self.lds_writes = true;
            } else {
                self.stores += 1;
            }
            return;
        }
        if matches!(s, Sem::DsAtomic(_, false)) {
            self.lds_writes = true;
            return;
        }
        let acc = access(inst, s, self.family, self.lanes);
        if ds {
            self.lds_writes = true;
        }
        if acc.vdefs.is_empty() && acc.sdefs.is_empty() {
            if vmem {
                self.stores += 1;
            }
            return;
        }
        let counter = if vmem { Counter::Vm } else { Counter::Lgkm };
        self.pending.push(Pending { counter, smem, vdefs: acc.vdefs, sdefs: acc.sdefs });
    }
}

/// Inserts the waits. Branch-target blocks start with nothing outstanding (their predecessors
/// waited before branching or falling through).
pub fn insert_waits(e: &mut Emitted, target: Target) {
    let mut st = State {
        family: target.family(),
        lanes: target.wave.lanes(),
        pending: Vec::new(),
        stores: 0,
        lds_writes: false,
    };
    let mut inserts: Vec<(usize, Vec<Inst>)> = Vec::new();
    let starts: std::collections::HashSet<usize> = e.block_starts.iter().copied().collect();
    for (i, inst) in e.insts.iter().enumerate() {
        let mut before = Vec::new();
        if starts.contains(&i) && i > 0 {
            // Falling into a block: finish what the previous block left outstanding.
            st.wait_all(&mut before, false);
        }
        st.before(inst, &mut before);
        st.after(inst);
        if !before.is_empty() {
            inserts.push((i, before));
        }
    }
    e.splice(inserts);
}
