//! Structural pre-check run once per launch before interpretation.
//!
//! The interpreter may be handed unverified MIR. This walk makes every later handle access
//! infallible: each region reachable from the body exists and is owned once (no cycles), every
//! instruction, operand, result and region parameter handle is in range, fixed-arity ops have
//! the op table's operand and result counts, `if`/`loop` own their regions, and shared-array
//! immediates and tiles are valid. Type mismatches are not checked here: they are detected per
//! instruction during execution (cheaply, once per instruction and subgroup) and reported as
//! faults. Dominance violations are not detected: a value read before its definition reads 0
//! (registers are zero-filled per block) or the lane's value from an earlier loop iteration,
//! deterministically.

use crate::entities::{Inst, Region, Value};
use crate::function::Function;
use crate::inst::{Imm, Tile};
use crate::ops::Format;
use cranelift_entity::EntityRef;

/// A structural problem: message and the instruction concerned, if any.
pub(crate) type CheckError = (String, Option<Inst>);

fn value_ok(f: &Function, v: Value) -> bool {
    f.values.get(v).is_some()
}

fn tile_ok(t: Tile) -> bool {
    match t {
        Tile::Full => true,
        Tile::Log2(l) => l <= 6,
    }
}

/// Checks the structure of `f` (see the module docs).
pub(crate) fn check_function(f: &Function) -> Result<(), CheckError> {
    for p in &f.params {
        if !value_ok(f, p.value) {
            return Err((format!("parameter %{} has a dangling value handle", p.name), None));
        }
    }
    if f.regions.get(f.body).is_none() {
        return Err(("the body region does not exist".into(), None));
    }
    let mut seen = vec![false; f.regions.len()];
    let mut stack: Vec<Region> = vec![f.body];
    while let Some(r) = stack.pop() {
        let Some(data) = f.regions.get(r) else {
            return Err((format!("dangling region handle {r}"), None));
        };
        let slot = seen.get_mut(r.index());
        match slot {
            Some(s) if !*s => *s = true,
            _ => return Err((format!("{r} is owned by more than one instruction"), None)),
        }
        if let Some(v) = f.region_params(r).iter().find(|&&v| !value_ok(f, v)) {
            return Err((format!("{r} has a dangling parameter handle {v}"), None));
        }
        for &inst in &data.insts {
            let Some(d) = f.insts.get(inst) else {
                return Err((format!("dangling instruction handle {inst} in {r}"), None));
            };
            let bad = |m: String| Err((m, Some(inst)));
            let args = f.args(inst);
            let results = f.inst_results(inst);
            if let Some(v) = args.iter().chain(results).find(|&&v| !value_ok(f, v)) {
                return bad(format!("dangling value handle {v}"));
            }
            let info = d.opcode.info();
            if let Some(n) = info.num_args {
                if args.len() != usize::from(n) {
                    return bad(format!("`{}` takes {n} operand(s), has {}", info.name, args.len()));
                }
            }
            if let Some(n) = info.num_results {
                if results.len() != usize::from(n) {
                    return bad(format!("`{}` has {n} result(s), has {}", info.name, results.len()));
                }
            }
            match (info.format, d.imm) {
                (Format::SharedAddr, Imm::Shared(s)) if f.shared.get(s).is_none() => {
                    return bad(format!("dangling shared array handle {s}"));
                }
                (Format::Tiled, Imm::Tile(t)) | (Format::Group | Format::Scan, Imm::Group { tile: t, .. })
                    if !tile_ok(t) =>
                {
                    return bad(format!("invalid tile {t:?} (log2 must be at most 6)"));
                }
                _ => {}
            }
            let owned: Vec<Region> = f.inst_regions(inst).collect();
            match info.format {
                Format::If => {
                    if d.regions[0].is_none() {
                        return bad("`if` has no then region".into());
                    }
                    if d.regions[1].is_none() && !results.is_empty() {
                        return bad("`if` with results has no else region".into());
                    }
                }
                Format::Loop => {
                    let Some(body) = d.regions[0].expand() else {
                        return bad("`loop` has no body region".into());
                    };
                    let n = f.regions.get(body).map(|b| b.params.len(&f.pool));
                    if n.is_some_and(|n| n != args.len()) {
                        return bad(format!(
                            "`loop` has {} initial value(s) for {} carried value(s)",
                            args.len(),
                            n.unwrap_or(0)
                        ));
                    }
                }
                _ => {
                    if !owned.is_empty() {
                        return bad(format!("`{}` must not own regions", info.name));
                    }
                }
            }
            stack.extend(owned);
        }
    }
    Ok(())
}
