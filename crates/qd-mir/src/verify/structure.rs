//! Structural checks: handles and the region tree, terminators and the targets of
//! `yield`/`break`/`continue`, SSA dominance, and the static SIMT rules.

use super::Ctx;
use crate::analysis::{DefSite, DomTree, LayoutDefect, Uniformity};
use crate::entities::{AnyEntity, Inst, Region, Value};
use crate::function::ValueDef;
use crate::ops::{OpClass, Opcode, Scope, Terminator};
use core::fmt;
use cranelift_entity::SecondaryMap;

fn def_text(def: ValueDef) -> String {
    match def {
        ValueDef::Result(i, n) => format!("result {n} of {i}"),
        ValueDef::RegionParam(r, n) => format!("parameter {n} of {r}"),
        ValueDef::Param(n) => format!("kernel parameter {n}"),
    }
}

/// An instruction's op name for messages (`?` for a dangling handle), looked up only when an
/// error is formatted.
#[derive(Copy, Clone)]
struct OpName(Option<Opcode>);

impl fmt::Display for OpName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.map_or("?", Opcode::name))
    }
}

fn op_name(cx: &Ctx<'_>, inst: Inst) -> OpName {
    OpName(cx.func.insts.get(inst).map(|d| d.opcode))
}

/// Tree defects, value lists, value handles, definition back-pointers, duplicate definitions and
/// region parent links.
pub(super) fn check_handles(cx: &mut Ctx<'_>) {
    let func = cx.func;
    for &d in cx.layout.defects() {
        match d {
            LayoutDefect::MissingBody => {
                cx.err(AnyEntity::Function, format!("the body region {} does not exist", func.body));
            }
            LayoutDefect::MissingRegion { inst, slot, region } => {
                let op = op_name(cx, inst);
                cx.err(AnyEntity::Inst(inst), format!("{op}: region {slot} ({region}) does not exist"));
            }
            LayoutDefect::SharedRegion { inst, slot, region } => {
                let op = op_name(cx, inst);
                cx.err(
                    AnyEntity::Inst(inst),
                    format!("{op}: region {slot} ({region}) is already the body or owned by another instruction"),
                );
            }
            LayoutDefect::MissingInst { region, index, inst } => {
                let loc = cx.region_loc(region);
                cx.err(loc, format!("{region} lists {inst} at index {index}, which does not exist"));
            }
            LayoutDefect::DuplicateInst { inst, again, first } => {
                let op = op_name(cx, inst);
                cx.err(
                    AnyEntity::Inst(inst),
                    format!(
                        "{op}: instruction is placed more than once ({} index {} and {} index {})",
                        first.region, first.index, again.region, again.index
                    ),
                );
            }
        }
    }

    let mut defined: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(func.values.len());
    for (i, p) in func.params.iter().enumerate() {
        let loc = AnyEntity::Param(i as u16);
        let v = p.value;
        let Some(vd) = func.values.get(v) else {
            cx.err(loc, format!("parameter %{}: its value {} does not exist", p.name, v));
            continue;
        };
        if vd.def != ValueDef::Param(i as u16) {
            cx.err(loc, format!("parameter %{}: its value records its definition as {}", p.name, def_text(vd.def)));
        }
        if vd.ty != p.ty {
            cx.err(loc, format!("parameter %{}: its value has type {}, expected {}", p.name, vd.ty, p.ty));
        }
        if defined[v] {
            cx.err(loc, format!("parameter %{}: value {} is defined more than once", p.name, cx.name(v)));
        }
        defined[v] = true;
    }

    for &r in cx.layout.regions() {
        let loc = cx.region_loc(r);
        let Some(rd) = func.regions.get(r) else { continue };
        let owner = cx.layout.region_pos(r).and_then(|p| p.owner).map(|(i, _)| i);
        if rd.parent.expand() != owner {
            let found = rd.parent.expand().map_or("none".to_string(), |i| i.to_string());
            let want = owner.map_or("none (it is the body)".to_string(), |i| i.to_string());
            cx.err(loc, format!("{r}: parent is {found}, expected {want}"));
        }
        let Some(params) = cx.params(r) else {
            cx.err(loc, format!("{r}: parameter list is not in the function's pool"));
            continue;
        };
        for (k, &v) in params.iter().enumerate() {
            let Some(vd) = func.values.get(v) else {
                cx.err(loc, format!("{r}: parameter {k} ({v}) does not exist"));
                continue;
            };
            if vd.def != ValueDef::RegionParam(r, k as u16) {
                let n = cx.name(v);
                cx.err(loc, format!("{r}: parameter {k} ({n}) records its definition as {}", def_text(vd.def)));
            }
            if defined[v] {
                let n = cx.name(v);
                cx.err(loc, format!("{r}: value {n} is defined more than once"));
            }
            defined[v] = true;
        }
    }

    for &inst in cx.layout.insts() {
        let loc = AnyEntity::Inst(inst);
        let op = op_name(cx, inst);
        match cx.args(inst) {
            None => cx.err(loc, format!("{op}: operand list is not in the function's pool")),
            Some(args) => {
                for (k, &v) in args.iter().enumerate() {
                    if func.values.get(v).is_none() {
                        cx.err(loc, format!("{op}: operand {} ({}) does not exist", k + 1, cx.name(v)));
                    }
                }
            }
        }
        let Some(results) = cx.results(inst) else {
            cx.err(loc, format!("{op}: result list is not in the function's pool"));
            continue;
        };
        for (k, &v) in results.iter().enumerate() {
            let Some(vd) = func.values.get(v) else {
                cx.err(loc, format!("{op}: result {k} ({v}) does not exist"));
                continue;
            };
            if vd.def != ValueDef::Result(inst, k as u16) {
                let n = cx.name(v);
                cx.err(loc, format!("{op}: result {k} ({n}) records its definition as {}", def_text(vd.def)));
            }
            if defined[v] {
                let n = cx.name(v);
                cx.err(loc, format!("{op}: value {n} is defined more than once"));
            }
            defined[v] = true;
        }
    }
}

/// Every reachable region ends with exactly one terminator; the body ends with `return`.
pub(super) fn check_regions(cx: &mut Ctx<'_>) {
    let func = cx.func;
    for &r in cx.layout.regions() {
        let Some(rd) = func.regions.get(r) else { continue };
        let is_body = r == func.body;
        let Some(&last) = rd.insts.last() else {
            let loc = cx.region_loc(r);
            if is_body {
                cx.err(loc, "the function body is empty: it must end with `return`");
            } else {
                cx.err(loc, format!("{r} is empty: it must end with a terminator"));
            }
            continue;
        };
        for (idx, &inst) in rd.insts.iter().enumerate() {
            let Some(d) = func.insts.get(inst) else { continue };
            if d.opcode.info().terminator && idx + 1 != rd.insts.len() {
                cx.err(AnyEntity::Inst(inst), format!("{}: terminator before the end of its region", d.opcode));
            }
        }
        if let Some(d) = func.insts.get(last) {
            if !d.opcode.info().terminator {
                let msg = if is_body {
                    format!("{}: the function body must end with `return`", d.opcode)
                } else {
                    format!("{}: the last instruction of a region must be a terminator", d.opcode)
                };
                cx.err(AnyEntity::Inst(last), msg);
            }
        }
    }
}

/// The innermost loop enclosing a region (through any number of `if` arms).
fn innermost_loop(cx: &Ctx<'_>, mut r: Region) -> Option<Inst> {
    loop {
        let rp = cx.layout.region_pos(r)?;
        let (owner, _) = rp.owner?;
        if cx.func.insts.get(owner)?.opcode == Opcode::Loop {
            return Some(owner);
        }
        r = rp.parent?.region;
    }
}

/// Checks `values` against the types of `targets` (skipped when a target value does not exist:
/// the handle checks report it).
fn check_values_against(cx: &mut Ctx<'_>, inst: Inst, what: &str, values: &[Value], target: &str, targets: &[Value]) {
    let func = cx.func;
    if !targets.iter().all(|&t| func.values.get(t).is_some()) {
        return;
    }
    let op = op_name(cx, inst);
    let loc = AnyEntity::Inst(inst);
    if values.len() != targets.len() {
        cx.err(loc, format!("{op}: {} value(s) for {} {target}(s)", values.len(), targets.len()));
        return;
    }
    for (k, (&v, &t)) in values.iter().zip(targets).enumerate() {
        let Some(want) = func.values.get(t).map(|d| d.ty) else { continue };
        if let Some(vd) = func.values.get(v) {
            if vd.ty != want {
                cx.err(loc, format!("{op}: {what} {} has type {}, expected {want} ({target})", k + 1, vd.ty));
            }
        }
    }
}

/// Region shapes of `if`/`loop` and the targets of `yield`/`break`/`continue`.
pub(super) fn check_context(cx: &mut Ctx<'_>, inst: Inst) {
    let func = cx.func;
    let Some(data) = func.insts.get(inst) else { return };
    let Some(pos) = cx.layout.inst_pos(inst) else { return };
    let op = data.opcode;
    let loc = AnyEntity::Inst(inst);
    let [first, second] = [data.regions[0].expand(), data.regions[1].expand()];
    let results = cx.results(inst).unwrap_or(&[]);
    let args = cx.args(inst).unwrap_or(&[]);
    match op.class() {
        OpClass::If => {
            if first.is_none() {
                cx.err(loc, "if: missing then region");
            }
            if second.is_none() && !results.is_empty() {
                cx.err(loc, "if: an `if` with results must have an else region");
            }
            for r in [first, second].into_iter().flatten() {
                if cx.params(r).is_some_and(|p| !p.is_empty()) {
                    cx.err(AnyEntity::Region(r), format!("if: arm {r} must have no parameters"));
                }
            }
        }
        OpClass::Loop => {
            if second.is_some() {
                cx.err(loc, "loop: a loop has exactly one region, found a second");
            }
            match first {
                None => cx.err(loc, "loop: missing body region"),
                Some(body) => {
                    if let Some(params) = cx.params(body) {
                        check_values_against(cx, inst, "initial value", args, "body parameter", params);
                    }
                }
            }
        }
        OpClass::Terminator(Terminator::Yield) => {
            let owner = cx.layout.region_pos(pos.region).and_then(|p| p.owner).map(|(i, _)| i);
            match owner.filter(|&o| func.insts.get(o).is_some_and(|d| d.opcode == Opcode::If)) {
                None => cx.err(loc, "yield: not directly inside an `if` arm"),
                Some(target) => {
                    let rs = cx.results(target).unwrap_or(&[]);
                    check_values_against(cx, inst, "value", args, "`if` result", rs);
                }
            }
        }
        OpClass::Terminator(Terminator::Break | Terminator::Continue) => match innermost_loop(cx, pos.region) {
            None => cx.err(loc, format!("{op}: not inside a loop")),
            Some(lp) => {
                let targets = if op == Opcode::Break {
                    cx.results(lp)
                } else {
                    func.insts.get(lp).and_then(|d| d.regions[0].expand()).and_then(|b| cx.params(b))
                };
                let targets = targets.unwrap_or(&[]);
                let target = if op == Opcode::Break { "loop result" } else { "loop parameter" };
                check_values_against(cx, inst, "value", args, target, targets);
            }
        },
        OpClass::Const
        | OpClass::Binary(_)
        | OpClass::Unary(_)
        | OpClass::Fma
        | OpClass::Select
        | OpClass::Cmp
        | OpClass::Cast
        | OpClass::Bitcast
        | OpClass::Memory(_)
        | OpClass::Index(_)
        | OpClass::Exchange(_)
        | OpClass::Collective(_)
        | OpClass::Sync(_)
        | OpClass::Terminator(Terminator::Return) => {}
    }
    if !matches!(op, Opcode::If | Opcode::Loop) && (first.is_some() || second.is_some()) {
        cx.err(loc, format!("{op}: only `if` and `loop` own regions"));
    }
}

/// Every operand is defined before its use (structured dominance).
pub(super) fn check_dominance(cx: &mut Ctx<'_>, dom: &DomTree) {
    let func = cx.func;
    for &inst in cx.layout.insts() {
        let op = op_name(cx, inst);
        for (k, &v) in cx.args(inst).unwrap_or(&[]).iter().enumerate() {
            if func.values.get(v).is_none() || dom.dominates(v, inst) {
                continue;
            }
            let n = cx.name(v);
            let msg = match dom.def_site(v) {
                DefSite::Nowhere => format!("{op}: operand {} ({n}) is not defined in the function body", k + 1),
                DefSite::Everywhere | DefSite::Region(_) | DefSite::After(_) => {
                    format!("{op}: operand {} ({n}) is used where its definition does not dominate", k + 1)
                }
            };
            cx.err(AnyEntity::Inst(inst), msg);
        }
    }
}

/// Block barriers only in uniform control flow; `broadcast` lanes uniform.
pub(super) fn check_simt(cx: &mut Ctx<'_>, uni: &Uniformity) {
    let func = cx.func;
    for &inst in cx.layout.insts() {
        let Some(d) = func.insts.get(inst) else { continue };
        let Some(pos) = cx.layout.inst_pos(inst) else { continue };
        // Block barriers are the ops the op table gives a block sync scope.
        if d.opcode.info().sync_scope == Some(Scope::Block) {
            if !uni.is_uniform_region(pos.region) {
                let cond = match uni.divergence_cause(pos.region) {
                    Some(c) => format!("condition {}", cx.name(c)),
                    None => "a condition".to_string(),
                };
                cx.err(
                    AnyEntity::Inst(inst),
                    format!("{}: block barrier in divergent control flow ({cond} is varying)", d.opcode),
                );
            }
        } else if d.opcode == Opcode::Broadcast {
            if let Some(&lane) = cx.args(inst).and_then(|a| a.get(1)) {
                if func.values.get(lane).is_some() && !uni.is_uniform(lane) {
                    let n = cx.name(lane);
                    cx.err(
                        AnyEntity::Inst(inst),
                        format!("broadcast: lane operand {n} is varying; it must be uniform"),
                    );
                }
            }
        }
    }
}
