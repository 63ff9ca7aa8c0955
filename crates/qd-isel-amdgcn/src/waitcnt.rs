//! `s_waitcnt` insertion on the emitted instruction list, per family's counters.
//!
//! Memory instructions write their result registers some time after they issue; the counters say
//! how many are still outstanding (docs/amdgcn-isa-facts.md §8): `lgkmcnt` for SMEM and LDS, `vmcnt`
//! for vector-memory loads and returning atomics (and GFX9 stores), `vscnt` for GFX11 stores.
//!
//! The pass tracks, per counter, the outstanding register-writing operations in issue order
//! (oldest first, each with the registers it will write), and before an instruction that reads or
//! overwrites one of them waits for that counter to drop far enough: for in-order counters
//! (`vmcnt`, LDS-only `lgkmcnt`) just below the youngest pending writer of that register — only
//! younger *register-writing* operations are counted as allowed to stay outstanding, which is
//! never more than the hardware (which also counts stores) allows, and is what the simulator's
//! per-kind model checks — and for SMEM (which returns out of order) to zero. Each counter is
//! handled on its own, so one instruction may wait on both.
//!
//! The state flows along the control-flow graph of the emitted code (fall-through and branch
//! edges): a block starts with the join of its predecessors' states — the pending lists aligned
//! at their youngest end, the registers of aligned entries united — iterated to a fixed point over
//! loops, so nothing is waited for at a block boundary just because it is one. `s_endpgm` waits
//! for nothing (the hardware finishes outstanding stores). Before `s_barrier` the wave finishes
//! its LDS operations (`lgkmcnt(0)`: other waves see the LDS writes, reads are done before others
//! overwrite), and on GFX11 (WGP mode, where the waves of a workgroup may sit on the two CUs of a
//! WGP with separate caches) also its vector loads and stores (`vmcnt(0)`, `vscnt(0)`); on GFX9 a
//! workgroup's waves share one CU whose vector memory path is in order, so global stores need no
//! wait there — LLVM's workgroup-scope release sequences (docs/amdgcn-isa-facts.md §8.2).
//! Waits written by lowering (fences) are honoured as what they prove.
//!
//! The pass works from each instruction's register access computed once ([`accesses`], shared
//! with the hazard pass) and returns the waits to insert; `hazard.rs` places them together with
//! its own wait states in one splice of the instruction list.

use crate::emit::Emitted;
use qd_amdgcn_isa::{Family, Target};
use qd_amdgcn_isa::{Inst, Op, Operand, RegRange, Waitcnt};
use qd_amdgcn_sim::access::{access, voverlap, Access, SRange};
use qd_amdgcn_sim::ops::{is_ds, is_vmem, sem, Sem};

/// Longest pending list kept; older entries are merged into their younger neighbour (which only
/// makes later waits stricter).
const MAX_PENDING: usize = 64;

/// One outstanding register-writing memory operation (or, after joins, several at the same age).
#[derive(Clone, Debug, Default, PartialEq)]
struct Pending {
    smem: bool,
    vdefs: Vec<RegRange>,
    sdefs: Vec<SRange>,
}

impl Pending {
    fn absorb(&mut self, o: &Pending) {
        self.smem |= o.smem;
        for v in &o.vdefs {
            if !self.vdefs.contains(v) {
                self.vdefs.push(*v);
            }
        }
        for s in &o.sdefs {
            if !self.sdefs.contains(s) {
                self.sdefs.push(*s);
            }
        }
    }
}

/// What is outstanding at one point of the program.
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    /// `vmcnt` loads and returning atomics, oldest first.
    vm: Vec<Pending>,
    /// `lgkmcnt` SMEM and LDS results, oldest first.
    lgkm: Vec<Pending>,
    /// GFX9 stores not yet waited for (`vmcnt`).
    vm_stores: bool,
    /// GFX11 stores and non-returning atomics not yet waited for (`vscnt`).
    vs_stores: bool,
    /// LDS writes not yet waited for (`lgkmcnt`).
    lds_writes: bool,
}

fn join_list(a: &mut Vec<Pending>, b: &[Pending]) {
    if a.len() < b.len() {
        let mut pad = vec![Pending::default(); b.len() - a.len()];
        pad.append(a);
        *a = pad;
    }
    let off = a.len() - b.len();
    for (k, p) in b.iter().enumerate() {
        a[off + k].absorb(p);
    }
    cap(a);
}

fn cap(l: &mut Vec<Pending>) {
    while l.len() > MAX_PENDING {
        let oldest = l.remove(0);
        l[0].absorb(&oldest);
    }
}

/// Keeps the `keep` youngest entries.
fn retire(l: &mut Vec<Pending>, keep: usize) {
    if l.len() > keep {
        l.drain(..l.len() - keep);
    }
}

impl State {
    fn join(&mut self, o: &State) {
        join_list(&mut self.vm, &o.vm);
        join_list(&mut self.lgkm, &o.lgkm);
        self.vm_stores |= o.vm_stores;
        self.vs_stores |= o.vs_stores;
        self.lds_writes |= o.lds_writes;
    }
}

struct Pass {
    family: Family,
}

fn wait_inst(family: Family, vm: Option<u8>, lgkm: Option<u8>) -> Inst {
    let mut w = Waitcnt::none(family);
    if let Some(n) = vm {
        w.vm = n;
    }
    if let Some(n) = lgkm {
        w.lgkm = n;
    }
    Inst::new(Op::SWaitcnt, &[]).imm(i32::from(w.encode(family)))
}

impl Pass {
    /// Waits until at most `keep` entries of `vm`/`lgkm` are outstanding: updates the state.
    fn apply(&self, st: &mut State, vm: Option<u8>, lgkm: Option<u8>) {
        if let Some(n) = vm {
            retire(&mut st.vm, usize::from(n));
            if n == 0 {
                st.vm_stores = false;
            }
        }
        if let Some(n) = lgkm {
            // SMEM returns out of order: only a zero wait completes anything for sure.
            if n == 0 || !st.lgkm.iter().any(|p| p.smem) {
                retire(&mut st.lgkm, usize::from(n));
            }
            if n == 0 {
                st.lds_writes = false;
            }
        }
    }

    /// The waits needed before `inst` (given to `out`), applied to `st`.
    fn before(&self, st: &mut State, inst: &Inst, acc: &Access, mut out: impl FnMut(Inst)) {
        if inst.op == Op::SBarrier {
            let lgkm = (!st.lgkm.is_empty() || st.lds_writes).then_some(0);
            let vm = match self.family {
                Family::Gfx9 => None,
                Family::Gfx11 => (!st.vm.is_empty()).then_some(0),
            };
            if vm.is_some() || lgkm.is_some() {
                out(wait_inst(self.family, vm, lgkm));
                self.apply(st, vm, lgkm);
            }
            if self.family == Family::Gfx11 && st.vs_stores {
                out(Inst::new(Op::SWaitcntVscnt, &[Operand::Null]).imm(0));
                st.vs_stores = false;
            }
            return;
        }
        if st.vm.is_empty() && st.lgkm.is_empty() {
            return;
        }
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
        let need = |l: &[Pending], max: u8| {
            l.iter().rposition(touches).map(|last| ((l.len() - last - 1).min(usize::from(max))) as u8)
        };
        let vm = need(&st.vm, Waitcnt::VM_MAX - 1);
        let lgkm =
            need(&st.lgkm, Waitcnt::lgkm_max(self.family) - 1)
                .map(|n| if st.lgkm.iter().any(|p| p.smem) { 0 } else { n });
        if vm.is_some() || lgkm.is_some() {
            out(wait_inst(self.family, vm, lgkm));
            self.apply(st, vm, lgkm);
        }
    }

    /// What `inst` leaves outstanding.
    fn after(&self, st: &mut State, inst: &Inst, s: Sem, acc: &Access) {
        match inst.op {
            Op::SWaitcnt => {
                // A wait written by lowering: it proves what its counters say.
                let w = Waitcnt::decode(inst.imm as u16, self.family);
                let vm = (w.vm < Waitcnt::VM_MAX).then_some(w.vm);
                let lgkm = (w.lgkm < Waitcnt::lgkm_max(self.family)).then_some(w.lgkm);
                self.apply(st, vm, lgkm);
                return;
            }
            Op::SWaitcntVscnt => {
                if inst.imm == 0 {
                    st.vs_stores = false;
                }
                return;
            }
            _ => {}
        }
        let smem = matches!(s, Sem::SLoad | Sem::SBufferLoad | Sem::SMemtime);
        let ds = is_ds(s);
        let vmem = is_vmem(s);
        if !(smem || ds || vmem) {
            return;
        }
        let flat = matches!(s, Sem::FlatLoad | Sem::FlatStore);
        if matches!(s, Sem::DsStore | Sem::DsAtomic(..) | Sem::DsCmpst | Sem::FlatStore) {
            st.lds_writes = true;
        }
        if acc.vdefs.is_empty() && acc.sdefs.is_empty() {
            if vmem {
                match self.family {
                    Family::Gfx9 => st.vm_stores = true,
                    Family::Gfx11 => st.vs_stores = true,
                }
            }
            return;
        }
        let p = Pending { smem: smem || flat, vdefs: acc.vdefs.to_vec(), sdefs: acc.sdefs.to_vec() };
        if vmem {
            st.vm.push(p.clone());
            cap(&mut st.vm);
        }
        if smem || ds || flat {
            st.lgkm.push(p);
            cap(&mut st.lgkm);
        }
    }
}

fn ends_flow(op: Op) -> bool {
    matches!(op, Op::SBranch | Op::SEndpgm)
}

/// Each instruction's semantics and register access, computed once for the wait and hazard passes.
pub(crate) fn accesses(insts: &[Inst], target: Target) -> Vec<(Sem, Access)> {
    let (family, lanes) = (target.family(), target.wave.lanes());
    insts
        .iter()
        .map(|i| {
            let s = sem(i.op);
            (s, access(i, s, family, lanes))
        })
        .collect()
}

/// The waits the instructions need (see the module doc): `(i, wait)` goes before instruction
/// `i`, in order. `acc` is [`accesses`] of `e.insts`.
pub(crate) fn waits(e: &Emitted, acc: &[(Sem, Access)], target: Target) -> Vec<(usize, Inst)> {
    let pass = Pass { family: target.family() };
    let n = e.insts.len();
    let nb = e.block_starts.len().max(1);
    // Block b covers [start(b), start(b + 1)); the first also covers any prologue before it.
    let start = |b: usize| if b == 0 { 0 } else { e.block_starts[b].min(n) };
    let end = |b: usize| if b + 1 < nb { e.block_starts[b + 1].min(n) } else { n };
    let falls_through = |b: usize| b + 1 < nb && (start(b)..end(b)).last().is_none_or(|k| !ends_flow(e.insts[k].op));
    let step = |st: &mut State, k: usize, out: &mut dyn FnMut(Inst)| {
        let (s, a) = &acc[k];
        pass.before(st, &e.insts[k], a, out);
        pass.after(st, &e.insts[k], *s, a);
    };

    // Fixed point of the block entry states.
    let mut entry: Vec<Option<State>> = vec![None; nb];
    entry[0] = Some(State::default());
    let mut work = vec![0usize];
    let mut edges: Vec<(usize, State)> = Vec::new();
    while let Some(b) = work.pop() {
        let mut st = entry[b].clone().unwrap_or_default();
        edges.clear();
        for k in start(b)..end(b) {
            step(&mut st, k, &mut |_| {});
            if let Some(t) = e.targets[k] {
                edges.push((t.index(), st.clone()));
            }
        }
        if falls_through(b) {
            edges.push((b + 1, st));
        }
        for (t, s) in edges.drain(..) {
            let changed = match &mut entry[t] {
                slot @ None => {
                    *slot = Some(s);
                    true
                }
                Some(old) => {
                    let mut j = old.clone();
                    j.join(&s);
                    let changed = j != *old;
                    *old = j;
                    changed
                }
            };
            if changed && !work.contains(&t) {
                work.push(t);
            }
        }
    }

    let mut out: Vec<(usize, Inst)> = Vec::new();
    for (b, e0) in entry.into_iter().enumerate() {
        let mut st = e0.unwrap_or_default();
        for k in start(b)..end(b) {
            step(&mut st, k, &mut |w| out.push((k, w)));
        }
    }
    out
}
