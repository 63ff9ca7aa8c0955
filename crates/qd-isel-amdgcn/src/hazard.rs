//! Hazard wait-state insertion on the emitted instruction list (amdgcn-encoding.md §11).
//!
//! The pass walks the instructions in layout order with the same per-architecture hazard rules the
//! simulator checks (`sim::hazard`, after LLVM 19's `GCNHazardRecognizer`): before each
//! instruction it asks whether the history demands more wait states, and if so inserts the
//! cheapest fix the family has — `s_nop` on GFX9 (grown one state at a time), `s_waitcnt_depctr`
//! on GFX11 — until the instruction is clean. A block that is a branch target can be reached
//! from several places, so it starts with a flush that satisfies every rule for any history
//! (`s_nop 4` on GFX9: the longest GFX9 requirement is 5 states; `s_waitcnt_depctr 0` on GFX11),
//! after which the walk continues from an empty history. qd never emits `v_cmpx` (EXEC is only
//! written by SALU), so GFX11 row 16 cannot arise.

use crate::emit::Emitted;
use crate::isa::{Inst, Op};
use crate::sim::access::access;
use crate::sim::hazard::Tracker;
use crate::sim::ops::sem;
use crate::target::{Family, Target};

fn flush(family: Family) -> Inst {
    match family {
        Family::Gfx9 => Inst::new(Op::SNop, &[]).imm(4),
        Family::Gfx11 => Inst::new(Op::SWaitcntDepctr, &[]).imm(0),
    }
}

/// Inserts the wait states every instruction needs.
pub fn insert_nops(e: &mut Emitted, target: Target) -> Result<(), String> {
    let family = target.family();
    let lanes = target.wave.lanes();
    let arch = target.arch;
    let mut tr = Tracker::default();
    let mut inserts: Vec<(usize, Vec<Inst>)> = Vec::new();
    let starts: std::collections::HashSet<usize> = e
        .block_starts
        .iter()
        .copied()
        .filter(|&s| e.targets.iter().flatten().any(|b| e.block_starts[b.index()] == s))
        .collect();
    let record = |tr: &mut Tracker, i: &Inst| {
        let s = sem(i.op);
        let acc = access(i, s, family, lanes);
        tr.record(family, lanes, i, s, &acc, 0);
    };
    for (k, inst) in e.insts.iter().enumerate() {
        let mut before = Vec::new();
        if starts.contains(&k) {
            tr = Tracker::default();
            let f = flush(family);
            record(&mut tr, &f);
            before.push(f);
        }
        let s = sem(inst.op);
        let acc = access(inst, s, family, lanes);
        let mut tries = 0;
        while tr.check(arch, lanes, inst, s, &acc).is_err() {
            tries += 1;
            if tries > 16 {
                let why = tr.check(arch, lanes, inst, s, &acc).err().map(|f| f.message).unwrap_or_default();
                return Err(format!(
                    "internal: no wait states satisfy the hazard before `{}`: {why}",
                    inst.display(target)
                ));
            }
            let fix = match family {
                Family::Gfx9 => Inst::new(Op::SNop, &[]).imm(0),
                Family::Gfx11 => Inst::new(Op::SWaitcntDepctr, &[]).imm(0),
            };
            record(&mut tr, &fix);
            // Merge consecutive GFX9 nops into one `s_nop N`.
            match before.last_mut() {
                Some(last) if family == Family::Gfx9 && last.op == Op::SNop && last.imm < 7 => last.imm += 1,
                _ => before.push(fix),
            }
        }
        tr.record(family, lanes, inst, s, &acc, 0);
        if !before.is_empty() {
            inserts.push((k, before));
        }
    }
    e.splice(inserts);
    Ok(())
}
