//! Kernel header checks (launch configuration, parameters, shared arrays) and module-level checks
//! (unique names, program parameters, launches against their kernels).

use super::Ctx;
use crate::entities::AnyEntity;
use crate::eval::canon;
use crate::function::{GridPolicy, LaunchArg, Module, Program, ProgramCheck};
use crate::types::{AddrSpace, ScalarType, Type};
use std::collections::HashSet;

/// Most threads a block may have.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Most bytes of shared memory a kernel may declare.
pub const MAX_SHARED_BYTES: u64 = 64 * 1024;

/// True for the types a kernel or program parameter may have: `ptr<global, T>` or a scalar.
fn param_type_ok(t: Type) -> bool {
    match t {
        Type::Scalar(_) => true,
        Type::Ptr(space, _) => space == AddrSpace::Global,
    }
}

/// A set of names that scans a short list linearly (kernels have a handful of parameters and
/// shared arrays) and only hashes once it grows.
#[derive(Default)]
struct NameSet<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> NameSet<'a> {
    const FEW: usize = 16;

    /// Adds `name`; false if it was already there.
    fn insert(&mut self, name: &'a str) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&name) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(name);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(name)
    }
}

/// Launch configuration, parameters and shared arrays of a kernel.
pub(super) fn check_header(cx: &mut Ctx<'_>) {
    let func = cx.func;
    let f = AnyEntity::Function;
    let block = func.launch.block;
    for (d, &n) in block.iter().enumerate() {
        if n == 0 {
            cx.err(f, format!("launch: block dimension {} is 0, it must be at least 1", ["x", "y", "z"][d]));
        }
    }
    let threads = block.iter().fold(1u64, |acc, &n| acc.saturating_mul(u64::from(n)));
    if threads > MAX_BLOCK_THREADS {
        cx.err(f, format!("launch: block has {threads} threads, at most {MAX_BLOCK_THREADS} allowed"));
    }
    if let Some(w) = func.launch.subgroup_size {
        if !w.is_power_of_two() || w > 64 {
            cx.err(f, format!("launch: subgroup({w}) must be a power of two from 1 to 64"));
        }
    }
    if let GridPolicy::Cover(i) = func.launch.grid {
        match func.params.get(usize::from(i)) {
            None => cx.err(f, format!("launch: grid(cover) names parameter {i}, which does not exist")),
            Some(p) if !p.ty.is_int() => {
                cx.err(f, format!("launch: grid(cover %{}) needs a scalar integer parameter, found {}", p.name, p.ty))
            }
            Some(_) => {}
        }
    }

    let mut names = NameSet::default();
    for (i, p) in func.params.iter().enumerate() {
        let loc = AnyEntity::Param(i as u16);
        if !names.insert(p.name.as_str()) {
            cx.err(loc, format!("parameter %{}: name already used", p.name));
        }
        if !param_type_ok(p.ty) {
            cx.err(loc, format!("parameter %{}: type {} is not allowed (buffers are ptr<global, T>)", p.name, p.ty));
        }
    }
    if func.params.len() > usize::from(u16::MAX) {
        cx.err(f, format!("{} parameters, at most {}", func.params.len(), u16::MAX));
    }

    let mut names = NameSet::default();
    let mut total: u64 = 0;
    for (s, d) in func.shared.iter() {
        let loc = AnyEntity::Shared(s);
        if d.len == 0 {
            cx.err(loc, format!("shared @{}: length must be at least 1", d.name));
        }
        if !names.insert(d.name.as_str()) {
            cx.err(loc, format!("shared @{}: name already used", d.name));
        }
        total = total.saturating_add(u64::from(d.len) * u64::from(d.elem.bytes()));
    }
    if total > MAX_SHARED_BYTES {
        cx.err(f, format!("shared memory: {total} bytes declared, at most {MAX_SHARED_BYTES} allowed"));
    }
}

/// Names, program parameters and launches of a module.
pub(super) fn check_module(m: &Module, errs: &mut Vec<String>) {
    let mut names = HashSet::new();
    for k in &m.kernels {
        if !names.insert(k.name.as_str()) {
            errs.push(format!("kernel @{}: name already used", k.name));
        }
    }
    let mut names = HashSet::new();
    for p in &m.programs {
        if !names.insert(p.name.as_str()) {
            errs.push(format!("program @{}: name already used", p.name));
        }
        let mut pnames = HashSet::new();
        for q in &p.params {
            if !pnames.insert(q.name.as_str()) {
                errs.push(format!("program @{}: parameter %{}: name already used", p.name, q.name));
            }
            if !param_type_ok(q.ty) {
                errs.push(format!(
                    "program @{}: parameter %{}: type {} is not allowed (buffers are ptr<global, T>)",
                    p.name, q.name, q.ty
                ));
            }
        }
        check_status_and_checks(p, errs);
        for (li, l) in p.launches.iter().enumerate() {
            let at = format!("program @{}: launch {} of @{}", p.name, li, l.kernel);
            let Some(k) = m.kernel(&l.kernel) else {
                errs.push(format!("{at}: no kernel @{}", l.kernel));
                continue;
            };
            if l.args.len() != k.params.len() {
                errs.push(format!("{at}: {} argument(s) for {} parameter(s)", l.args.len(), k.params.len()));
            }
            for (ai, (a, kp)) in l.args.iter().zip(&k.params).enumerate() {
                match *a {
                    LaunchArg::Param(pi) => match p.params.get(usize::from(pi)) {
                        None => {
                            errs.push(format!("{at}: argument {ai} names program parameter {pi}, which does not exist"))
                        }
                        Some(q) if q.ty != kp.ty => errs.push(format!(
                            "{at}: argument {ai} (%{}) has type {}, parameter %{} has type {}",
                            q.name, q.ty, kp.name, kp.ty
                        )),
                        Some(_) => {}
                    },
                    LaunchArg::Const(ty, bits) => {
                        if Type::Scalar(ty) != kp.ty {
                            errs.push(format!(
                                "{at}: argument {ai} is a {ty} constant, parameter %{} has type {}",
                                kp.name, kp.ty
                            ));
                        }
                        if canon(ty, bits) != bits {
                            errs.push(format!("{at}: argument {ai}: bits {bits:#x} are not canonical for {ty}"));
                        }
                    }
                    LaunchArg::Status => match &p.status {
                        None => errs.push(format!("{at}: argument {ai} is the status word, but the program has none")),
                        Some(st) if kp.ty != STATUS_TYPE => errs.push(format!(
                            "{at}: argument {ai} (the status word %{}) has type {STATUS_TYPE}, parameter %{} has type {}",
                            st.name, kp.name, kp.ty
                        )),
                        Some(_) => {}
                    },
                }
            }
        }
    }
}

/// The type of a program's status word.
const STATUS_TYPE: Type = Type::Ptr(AddrSpace::Global, ScalarType::U32);

/// A program's status word (a name of its own, bits 0..=31 each once) and checks (buffer
/// parameters that exist; two different parameters for `distinct`).
fn check_status_and_checks(p: &Program, errs: &mut Vec<String>) {
    if let Some(st) = &p.status {
        if p.param_index(&st.name).is_some() {
            errs.push(format!("program @{}: status %{}: name already used by a parameter", p.name, st.name));
        }
        let mut seen = HashSet::new();
        for (bit, _) in &st.bits {
            if *bit > 31 {
                errs.push(format!("program @{}: status bit {bit} is not 0..=31", p.name));
            }
            if !seen.insert(*bit) {
                errs.push(format!("program @{}: status bit {bit} has two messages", p.name));
            }
        }
    }
    let buffer = |i: u16, what: &str, errs: &mut Vec<String>| match p.params.get(usize::from(i)) {
        None => errs.push(format!("program @{}: {what} names parameter {i}, which does not exist", p.name)),
        Some(q) if !matches!(q.ty, Type::Ptr(AddrSpace::Global, _)) => {
            errs.push(format!("program @{}: {what} names %{}, which is not a buffer", p.name, q.name))
        }
        Some(_) => {}
    };
    for c in &p.checks {
        match c {
            ProgramCheck::MinLen { param, .. } => buffer(*param, "check len", errs),
            ProgramCheck::Distinct { a, b } => {
                buffer(*a, "check distinct", errs);
                buffer(*b, "check distinct", errs);
                if a == b {
                    errs.push(format!("program @{}: check distinct names one parameter twice", p.name));
                }
            }
        }
    }
}
