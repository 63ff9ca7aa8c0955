//! Per-instruction checks: result arity here; operand arity, the immediate against the op's
//! format, and the operand/result types of every op by [`crate::typerules`], the rules the
//! builder applies too.
//!
//! Messages name the op and the 1-based operand: `add: operand 2 has type f32, expected u32`.

use super::Ctx;
use crate::entities::{AnyEntity, Inst, Value};
use crate::typerules::{self, Violation};
use crate::types::Type;

/// Arity, immediate and types of one placed instruction: the result count here, everything else
/// by the shared type rules ([`crate::typerules`]).
pub(super) fn check_inst(cx: &mut Ctx<'_>, inst: Inst) {
    let func = cx.func;
    let Some(data) = func.insts.get(inst) else { return };
    let op = data.opcode;
    let loc = AnyEntity::Inst(inst);
    let (Some(args), Some(results)) = (cx.args(inst), cx.results(inst)) else { return };
    if let Some(n) = op.info().num_results {
        if results.len() != usize::from(n) {
            cx.err(loc, format!("{op}: expected {n} result(s), found {}", results.len()));
            return;
        }
    }
    let ty = |v: Value| func.values.get(v).map(|d| d.ty);
    // Fixed-arity ops have at most three operands: no allocation for them.
    let mut small = [Type::U32; 3];
    let heap: Vec<Type>;
    let arg_types: &[Type] = if args.len() <= small.len() {
        for (slot, &v) in small.iter_mut().zip(args) {
            let Some(t) = ty(v) else { return };
            *slot = t;
        }
        &small[..args.len()]
    } else {
        let Some(v) = args.iter().map(|&v| ty(v)).collect::<Option<Vec<Type>>>() else { return };
        heap = v;
        &heap
    };
    let checked = typerules::operand_rule(func, op, data.imm, arg_types).and_then(|rule| {
        match results.first().and_then(|&v| ty(v)) {
            Some(t) => rule.check(op, t),
            None => Ok(()),
        }
    });
    if let Err(e) = checked {
        // Say which value is at fault: `add: operand 2 has type f32, expected u32 (operand 2 is %x)`.
        let culprit = match e.violation {
            Violation::Operand { index, .. } => {
                args.get(index).map(|&v| format!(" (operand {} is {})", index + 1, cx.name(v)))
            }
            _ => None,
        };
        cx.err(loc, format!("{e}{}", culprit.unwrap_or_default()));
    }
}
