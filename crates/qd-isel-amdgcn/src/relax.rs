//! Encoding with branch relaxation. A SOPP branch holds a signed 16-bit dword offset, so it
//! reaches ±128 KiB; a kernel whose loop body or `if` arm is longer (a fully unrolled 32 × 32
//! register-tile Cholesky inside a loop is) gets long branches instead:
//!
//! ```text
//! s_branch T            →  s_getpc_b64 s[8:9]            ; s[8:9] = address of the s_add
//!                          s_add_u32   s8, s8, lo(T − .)
//!                          s_addc_u32  s9, s9, hi(T − .)  ; 0 or −1: the direction is fixed
//!                          s_setpc_b64 s[8:9]
//! s_cbranch_C T         →  s_cbranch_!C over the sequence (5 dwords), then the same sequence
//! ```
//!
//! `s[8:9]` is the first of the emitter's SGPR-pair temporaries, free between instructions, and
//! SCC, which the sequence clobbers, is never live across a block boundary in qd's code (every
//! uniform branch reads the SCC its own `s_cmp` set just before). Relaxing only ever grows the
//! code, so the loop that re-encodes until every short branch fits terminates.

use crate::emit::Emitted;
use crate::vcode::VBlock;
use qd_amdgcn_isa::{Inst, Op, Operand, Shape, SoppImm, Target};
use qd_mir::CompileError;

/// The encoded code, and each instruction at its byte offset.
pub(crate) type Encoded = (Vec<u8>, Vec<(u32, Inst)>);

/// The SGPR pair a long branch computes its target in.
const PC_PAIR: u16 = 8;

/// The branch taken when `op`'s is not.
fn inverse(op: Op) -> Option<Op> {
    Some(match op {
        Op::SCbranchScc0 => Op::SCbranchScc1,
        Op::SCbranchScc1 => Op::SCbranchScc0,
        Op::SCbranchVccz => Op::SCbranchVccnz,
        Op::SCbranchVccnz => Op::SCbranchVccz,
        Op::SCbranchExecz => Op::SCbranchExecnz,
        Op::SCbranchExecnz => Op::SCbranchExecz,
        _ => return None,
    })
}

fn is_branch(i: &Inst) -> bool {
    matches!(i.op.info().shape, Shape::Sopp(SoppImm::Branch))
}

/// Encodes every instruction: the code and each instruction's byte offset (one past the end last).
fn encode_all(e: &Emitted, target: Target) -> Result<(Vec<u8>, Vec<u32>), CompileError> {
    let mut code = Vec::with_capacity(8 * e.insts.len());
    let mut offsets = Vec::with_capacity(e.insts.len() + 1);
    for i in &e.insts {
        offsets.push(code.len() as u32);
        qd_amdgcn_isa::encode(i, target, &mut code).map_err(|e| CompileError::internal(target, e.to_string()))?;
    }
    offsets.push(code.len() as u32);
    Ok((code, offsets))
}

/// Replaces the branch at `k` (to `to`) with the long form.
fn lengthen(e: &mut Emitted, target: Target, k: usize, to: VBlock) -> Result<(), CompileError> {
    let op = e.insts[k].op;
    let backward = e.block_starts[to.index()] <= k;
    let mk = |op: Op, ops: &[Operand]| Inst::new_for(target, op, ops);
    let pc = Operand::s2(PC_PAIR);
    let (lo, hi) = (Operand::s(PC_PAIR), Operand::s(PC_PAIR + 1));
    // Placeholder offsets of the final form: a literal low half (a relaxed branch spans more than
    // 128 KiB, never an inline constant), an inline 0 or −1 high half.
    let long = [
        (mk(Op::SGetpcB64, &[pc]), None),
        (mk(Op::SAddU32, &[lo, lo, Operand::Literal(0x8000_0000)]), Some(to)),
        (mk(Op::SAddcU32, &[hi, hi, Operand::Int(if backward { -1 } else { 0 })]), Some(to)),
        (mk(Op::SSetpcB64, &[pc]), None),
    ];
    let mut seq: Vec<(Inst, Option<VBlock>)> = Vec::with_capacity(5);
    if op != Op::SBranch {
        let inv = inverse(op).ok_or_else(|| {
            CompileError::internal(target, format!("no inverse for the branch `{}`", e.insts[k].display(target)))
        })?;
        let mut bytes = Vec::new();
        for (i, _) in &long {
            qd_amdgcn_isa::encode(i, target, &mut bytes).map_err(|e| CompileError::internal(target, e.to_string()))?;
        }
        seq.push((mk(inv, &[]).imm(bytes.len() as i32 / 4), None));
    }
    seq.extend(long);
    let grow = seq.len() - 1;
    let line = e.lines[k];
    e.insts.splice(k..=k, seq.iter().map(|x| x.0));
    e.targets.splice(k..=k, seq.iter().map(|x| x.1));
    e.lines.splice(k..=k, std::iter::repeat_n(line, seq.len()));
    // The sequence belongs to the branch's block: later blocks move down.
    for s in &mut e.block_starts {
        if *s > k {
            *s += grow;
        }
    }
    Ok(())
}

/// Encodes the instructions and fills in the branch offsets (in dwords from the next instruction
/// for a SOPP branch; in bytes from the `s_add_u32` for a long one), lengthening the branches that
/// do not reach: the code, and each instruction at its byte offset.
pub(crate) fn encode(e: &mut Emitted, target: Target) -> Result<Encoded, CompileError> {
    let (mut code, offsets) = loop {
        let (code, offsets) = encode_all(e, target)?;
        let mut far = Vec::new();
        for (k, t) in e.targets.iter().enumerate() {
            let Some(b) = *t else { continue };
            if !is_branch(&e.insts[k]) {
                continue;
            }
            let dwords = (i64::from(offsets[e.block_starts[b.index()]]) - i64::from(offsets[k + 1])) / 4;
            if !(-32768..=32767).contains(&dwords) {
                far.push((k, b));
            }
        }
        if far.is_empty() {
            break (code, offsets);
        }
        // From the last, so that the earlier indices stay valid.
        for &(k, b) in far.iter().rev() {
            lengthen(e, target, k, b)?;
        }
    };
    let mut patched = Vec::new();
    for k in 0..e.insts.len() {
        let Some(b) = e.targets[k] else { continue };
        let dest = i64::from(offsets[e.block_starts[b.index()]]);
        let inst = &mut e.insts[k];
        match inst.op {
            _ if is_branch(inst) => {
                let dwords = (dest - i64::from(offsets[k + 1])) / 4;
                inst.imm = dwords as i32;
                // SIMM16 is the low half of the SOPP word.
                let at = offsets[k] as usize;
                code[at..at + 2].copy_from_slice(&(dwords as i16).to_le_bytes());
            }
            Op::SAddU32 => {
                // s_getpc_b64 (the instruction before) gave the address of this one.
                let delta = dest - i64::from(offsets[k]);
                let fixed = Inst::new_for(
                    target,
                    Op::SAddU32,
                    &[inst.operands[0], inst.operands[1], Operand::Literal(delta as u32)],
                );
                *inst = fixed;
                patched.clear();
                qd_amdgcn_isa::encode(inst, target, &mut patched)
                    .map_err(|e| CompileError::internal(target, e.to_string()))?;
                let at = offsets[k] as usize;
                code[at..at + patched.len()].copy_from_slice(&patched);
            }
            // The high half was fixed when the branch was lengthened.
            Op::SAddcU32 => {}
            _ => {
                return Err(CompileError::internal(target, format!("`{}` has a branch target", inst.display(target))));
            }
        }
    }
    let insts = offsets.iter().zip(&e.insts).map(|(&o, &i)| (o, i)).collect();
    Ok((code, insts))
}
