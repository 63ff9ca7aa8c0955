//! Hazard wait-state insertion on the emitted instruction list (docs/amdgcn-isa-facts.md §11), done
//! in the same walk that places the memory waits `waitcnt.rs` chose.
//!
//! The pass walks the instructions in layout order with the same per-architecture hazard rules the
//! simulator checks (`qd_amdgcn_sim::hazard`, after LLVM 19's `GCNHazardRecognizer`): before each
//! instruction it asks whether the history demands more wait states, and if so inserts the
//! cheapest fix the family has — `s_nop` on GFX9 (grown one state at a time), `s_waitcnt_depctr`
//! on GFX11 — until the instruction is clean. A block that is a branch target can be reached
//! from several places, so it starts with a flush that satisfies every rule for any history
//! (`s_nop 4` on GFX9: the longest GFX9 requirement is 5 states; `s_waitcnt_depctr 0` on GFX11),
//! after which the walk continues from an empty history. qd never emits `v_cmpx` (EXEC is only
//! written by SALU), so GFX11 row 16 cannot arise.
//!
//! Before an instruction the order is: the flush (at a branch target), the memory waits, the
//! wait states, the instruction — the waits are instructions of the history like any other.
//! Every instruction's register access is computed once (`waitcnt::accesses`) and the list is
//! spliced once.

use crate::emit::Emitted;
use qd_amdgcn_isa::{Family, Target};
use qd_amdgcn_isa::{Inst, Op};
use qd_amdgcn_sim::access::{access, Access};
use qd_amdgcn_sim::hazard::Tracker;
use qd_amdgcn_sim::ops::{sem, Sem};
use qd_mir::CompileError;

fn flush(family: Family) -> Inst {
    match family {
        Family::Gfx9 => Inst::new(Op::SNop, &[]).imm(4),
        Family::Gfx11 => Inst::new(Op::SWaitcntDepctr, &[]).imm(0),
    }
}

/// Inserts `waits` (from `waitcnt::waits`: `(i, wait)` before instruction `i`, in order) and the
/// wait states every instruction needs. `acc` is `waitcnt::accesses` of `e.insts`.
pub(crate) fn insert_nops(
    e: &mut Emitted,
    acc: &[(Sem, Access)],
    waits: Vec<(usize, Inst)>,
    target: Target,
) -> Result<(), CompileError> {
    let family = target.family();
    let lanes = target.wave.lanes();
    let arch = target.arch;
    let n = e.insts.len();
    // Instructions that start a block some branch jumps to.
    let mut jumped_to = vec![false; n + 1];
    for b in e.targets.iter().flatten() {
        jumped_to[e.block_starts[b.index()].min(n)] = true;
    }
    let info = |i: &Inst| {
        let s = sem(i.op);
        (s, access(i, s, family, lanes))
    };
    let fix = match family {
        Family::Gfx9 => Inst::new(Op::SNop, &[]).imm(0),
        Family::Gfx11 => Inst::new(Op::SWaitcntDepctr, &[]).imm(0),
    };
    let (fix_sem, fix_acc) = info(&fix);
    let flush = flush(family);
    let (flush_sem, flush_acc) = info(&flush);
    let mut tr = Tracker::default();
    tr.set_quiet(true);
    let mut inserts: Vec<(usize, Inst)> = Vec::with_capacity(waits.len() + n / 8);
    // Issues `inst` after the wait states it needs (inserted before instruction `k`).
    let place = |tr: &mut Tracker, inserts: &mut Vec<(usize, Inst)>, k: usize, inst: &Inst, s: Sem, a: &Access| {
        let first = inserts.len();
        let mut tries = 0;
        while tr.check(arch, lanes, inst, s, a).is_err() {
            tries += 1;
            if tries > 16 {
                let mut loud = tr.clone();
                loud.set_quiet(false);
                let why = loud.check(arch, lanes, inst, s, a).err().map(|f| f.message).unwrap_or_default();
                return Err(CompileError::internal(
                    target,
                    format!("no wait states satisfy the hazard before `{}`: {why}", inst.display(target)),
                ));
            }
            tr.record(family, lanes, &fix, fix_sem, &fix_acc, 0);
            // Merge consecutive GFX9 nops into one `s_nop N`.
            let merge = inserts.len() > first && family == Family::Gfx9;
            match inserts.last_mut() {
                Some((_, last)) if merge && last.imm < 7 => last.imm += 1,
                _ => inserts.push((k, fix)),
            }
        }
        tr.record(family, lanes, inst, s, a, 0);
        Ok(())
    };
    let mut waits = waits.into_iter().peekable();
    for (k, inst) in e.insts.iter().enumerate() {
        if jumped_to[k] {
            tr.clear();
            tr.record(family, lanes, &flush, flush_sem, &flush_acc, 0);
            inserts.push((k, flush));
        }
        while let Some((_, w)) = waits.next_if(|(at, _)| *at == k) {
            let (s, a) = info(&w);
            place(&mut tr, &mut inserts, k, &w, s, &a)?;
            inserts.push((k, w));
        }
        let (s, a) = &acc[k];
        place(&mut tr, &mut inserts, k, inst, *s, a)?;
    }
    e.splice(inserts);
    Ok(())
}
