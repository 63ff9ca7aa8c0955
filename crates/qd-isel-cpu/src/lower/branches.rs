//! Structured control flow at width 1: real branches instead of execution masks.
//!
//! A subgroup of one lane has every value uniform and an execution mask that is 1 wherever its
//! code runs, so an `if` is a conditional branch, a `loop` a loop header, and the terminators are
//! jumps: `yield` to the block after its `if`, `break` to the block after its loop, `continue` to
//! the header, `return` to the end of the kernel. Region values (an `if`'s results, a loop's
//! parameters and results) are Cranelift variables defined before each jump, so the kernel is
//! plain scalar code — the CPU forms of the qd-lib algorithms run at this width.

use super::{IfFrame, LoopFrame, Lower, TARGET};
use cranelift_codegen::ir::{types, InstBuilder};
use qd_mir::ops::Terminator;
use qd_mir::{CompileError, Inst, Value};

impl Lower<'_, '_> {
    /// `if` as a conditional branch.
    pub(super) fn if_branch(&mut self, inst: Inst) -> Result<(), CompileError> {
        let (Some(&c), Some(then)) = (self.f.args(inst).first(), self.f.insts[inst].regions[0].expand()) else {
            return Err(CompileError::internal(TARGET, "malformed `if`").at(inst));
        };
        let els = self.f.insts[inst].regions[1].expand();
        let cond = self.uniform(c)?;
        let (then_b, join) = (self.b.create_block(), self.b.create_block());
        let else_b = match els {
            Some(_) => self.b.create_block(),
            None => join,
        };
        self.b.ins().brif(cond, then_b, &[], else_b, &[]);
        let yielded = self.b.declare_var(types::I64);
        self.ifs.push(IfFrame { inst, yielded, join: Some(join) });
        self.b.switch_to_block(then_b);
        self.region(then, false)?;
        self.b.ins().jump(join, &[]);
        if let Some(els) = els {
            self.b.switch_to_block(else_b);
            self.region(els, false)?;
            self.b.ins().jump(join, &[]);
        }
        self.ifs.pop();
        self.b.switch_to_block(join);
        Ok(())
    }

    /// `loop` as a header block that `continue` jumps back to; the body charges its budget on
    /// every iteration.
    pub(super) fn loop_branch(&mut self, inst: Inst) -> Result<(), CompileError> {
        let Some(body) = self.f.insts[inst].regions[0].expand() else {
            return Err(CompileError::internal(TARGET, "malformed `loop`").at(inst));
        };
        let params: Vec<Value> = self.f.region_params(body).to_vec();
        let init: Vec<Value> = self.f.args(inst).to_vec();
        self.copy_masked(&params, &init)?;
        let (head, exit) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let (brk, cont) = (self.b.declare_var(types::I64), self.b.declare_var(types::I64));
        self.loops.push(LoopFrame { inst, body, brk, cont, edges: Some((head, exit)) });
        self.region(body, true)?;
        self.loops.pop();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// A terminator as a jump, after defining the values it passes.
    pub(super) fn terminator_branch(&mut self, inst: Inst, t: Terminator) -> Result<(), CompileError> {
        let args: Vec<Value> = self.f.args(inst).to_vec();
        let target = match t {
            Terminator::Yield => {
                let Some(&IfFrame { inst: owner, join: Some(join), .. }) = self.ifs.last() else {
                    return Err(CompileError::internal(TARGET, "`yield` outside an `if`").at(inst));
                };
                let dst: Vec<Value> = self.f.inst_results(owner).to_vec();
                self.copy_masked(&dst, &args)?;
                join
            }
            Terminator::Break | Terminator::Continue => {
                let Some(&LoopFrame { inst: owner, body, edges: Some((head, exit)), .. }) = self.loops.last() else {
                    return Err(CompileError::internal(TARGET, "`break`/`continue` outside a loop").at(inst));
                };
                if t == Terminator::Break {
                    let dst: Vec<Value> = self.f.inst_results(owner).to_vec();
                    self.copy_masked(&dst, &args)?;
                    exit
                } else {
                    let dst: Vec<Value> = self.f.region_params(body).to_vec();
                    self.copy_masked(&dst, &args)?;
                    head
                }
            }
            Terminator::Return => self.ret_done,
        };
        self.b.ins().jump(target, &[]);
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        Ok(())
    }
}
