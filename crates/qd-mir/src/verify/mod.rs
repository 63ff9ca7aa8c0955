//! The MIR verifier: checks that a [`Function`] (or a whole [`Module`]) is well formed before any
//! pass, interpreter or back end relies on it.
//!
//! Cranelift-style, it collects every error it finds, each located at an [`AnyEntity`], instead
//! of stopping at the first, and it never panics, whatever the function holds: handles are looked
//! up with `.get()`, value lists through the bounds-checked [`PoolView`](crate::analysis::PoolView),
//! and the region tree through the defect-tolerant [`Layout`]. Checks that need a sound
//! skeleton (types need operand handles, dominance needs a tree) skip what is already broken.
//!
//! The checks, by file:
//! - [`structure`]: handles (tree defects, value lists, definition back-pointers, values defined
//!   twice), region shapes and terminators, `yield`/`break`/`continue` targets and their types,
//!   SSA dominance, and the SIMT rules (block barriers only in uniform control flow, uniform
//!   `broadcast` lanes) using [`Uniformity`];
//! - [`types`]: operand/result arity, the immediate against the format, and the types of every op;
//! - [`launch`]: kernel header (launch configuration, parameters, shared arrays) and module-level
//!   checks ([`verify_module`]).
//!
//! [`VerifyErrors::render`] prints the function with each error under the line it concerns.

mod launch;
mod structure;
#[cfg(test)]
mod tests;
mod types;

pub(crate) use crate::typerules::group_op_legal;
pub use launch::{MAX_BLOCK_THREADS, MAX_SHARED_BYTES};

use crate::analysis::{DomTree, Layout, Uniformity};
use crate::codegen::KernelFacts;
use crate::entities::{AnyEntity, Inst, Region, Value};
use crate::function::{Function, Module, ValueDef};
use crate::text::print_function_annotated;
use core::cell::{OnceCell, RefCell};
use core::fmt;
use cranelift_entity::SecondaryMap;

/// One verifier error: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The entity the error is about.
    pub location: AnyEntity,
    /// The message; it starts with the op name for instruction errors
    /// (`add: operand 2 has type f32, expected u32`).
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", entity_text(self.location), self.message)
    }
}

/// Every error the verifier found in a function (never empty when returned as an error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl VerifyErrors {
    /// Renders the errors on the function's text: each `error: MESSAGE` right under the line of
    /// its entity, then a last line `N verifier error(s)`. Errors whose entity has no line of its
    /// own are listed after the function; a function too broken to print (dangling handles in
    /// its region tree) is replaced by a plain list.
    pub fn render(&self, func: &Function) -> String {
        let mut out = if printable(func) {
            let used = RefCell::new(vec![false; self.0.len()]);
            let notes = |e: AnyEntity| -> Vec<String> {
                let mut used = used.borrow_mut();
                let mut v = Vec::new();
                for (i, err) in self.0.iter().enumerate() {
                    if err.location == e && !used[i] {
                        used[i] = true;
                        v.push(format!("error: {}", err.message));
                    }
                }
                v
            };
            let mut s = print_function_annotated(func, &notes);
            for (i, err) in self.0.iter().enumerate() {
                if !used.borrow()[i] {
                    s.push_str(&format!("error: {} (at {})\n", err.message, entity_text(err.location)));
                }
            }
            s
        } else {
            let mut s = format!("kernel @{}: cannot print the function (malformed region tree)\n", func.name);
            for err in &self.0 {
                s.push_str(&format!("error: {} (at {})\n", err.message, entity_text(err.location)));
            }
            s
        };
        out.push_str(&format!("{} verifier error(s)\n", self.0.len()));
        out
    }
}

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.0 {
            writeln!(f, "{e}")?;
        }
        write!(f, "{} verifier error(s)", self.0.len())
    }
}

impl std::error::Error for VerifyErrors {}

fn entity_text(e: AnyEntity) -> String {
    match e {
        AnyEntity::Function => "function".into(),
        AnyEntity::Param(i) => format!("param {i}"),
        AnyEntity::Shared(s) => s.to_string(),
        AnyEntity::Inst(i) => i.to_string(),
        AnyEntity::Region(r) => r.to_string(),
        AnyEntity::Value(v) => format!("value {v}"),
    }
}

/// True if the printer can print `func` without tripping over broken handles.
fn printable(func: &Function) -> bool {
    let layout = Layout::new(func);
    if !layout.defects().is_empty() {
        return false;
    }
    let pool = layout.pool();
    let lists_ok = layout.insts().iter().all(|&i| {
        pool.args(func, i).is_some()
            && pool.results(func, i).is_some_and(|rs| rs.iter().all(|&v| func.values.get(v).is_some()))
    });
    let params_ok = layout
        .regions()
        .iter()
        .all(|&r| pool.params(func, r).is_some_and(|ps| ps.iter().all(|&v| func.values.get(v).is_some())));
    lists_ok && params_ok
}

/// Value names as the printer assigns them: kernel parameters by name, every other value by a
/// dense number in text order.
pub(crate) struct Names {
    num: SecondaryMap<Value, Option<u32>>,
}

impl Names {
    fn new(func: &Function, layout: &Layout) -> Names {
        let mut num = SecondaryMap::new();
        let mut next = 0u32;
        let pool = layout.pool();
        let mut stack: Vec<(Region, usize)> = Vec::new();
        if layout.region_pos(func.body).is_some() {
            stack.push((func.body, 0));
        }
        while let Some(top) = stack.last_mut() {
            let (r, i) = *top;
            top.1 += 1;
            if i == 0 {
                for &p in pool.params(func, r).unwrap_or(&[]) {
                    num[p] = Some(next);
                    next += 1;
                }
            }
            let Some(&inst) = func.regions.get(r).and_then(|d| d.insts.get(i)) else {
                stack.pop();
                continue;
            };
            if layout.inst_pos(inst).is_none_or(|p| p.region != r || p.index as usize != i) {
                continue;
            }
            for &v in pool.results(func, inst).unwrap_or(&[]) {
                num[v] = Some(next);
                next += 1;
            }
            let owned = func.insts.get(inst).map(|d| d.regions).unwrap_or_default();
            for (slot, reg) in owned.iter().enumerate().rev() {
                let Some(reg) = reg.expand() else { continue };
                if layout.region_pos(reg).and_then(|p| p.owner) == Some((inst, slot as u8)) {
                    stack.push((reg, 0));
                }
            }
        }
        Names { num }
    }

    fn name(&self, func: &Function, v: Value) -> String {
        if let Some(ValueDef::Param(i)) = func.values.get(v).map(|d| d.def) {
            if let Some(p) = func.params.get(usize::from(i)) {
                return format!("%{}", p.name);
            }
        }
        match self.num.get(v).copied().flatten() {
            Some(n) => format!("%{n}"),
            None => format!("%?{}", v.as_u32()),
        }
    }
}

/// State shared by the checks of one function.
pub(crate) struct Ctx<'a> {
    func: &'a Function,
    layout: &'a Layout,
    /// The caller's value names (a parsed kernel's own `%sum`), tried before the printer's.
    naming: Option<&'a dyn Fn(Value) -> Option<String>>,
    /// Value names, computed on the first error that needs one (a valid function needs none).
    names: OnceCell<Names>,
    errors: Vec<VerifyError>,
}

impl<'a> Ctx<'a> {
    fn err(&mut self, location: AnyEntity, message: impl Into<String>) {
        self.errors.push(VerifyError { location, message: message.into() });
    }

    /// The printed name of a value.
    fn name(&self, v: Value) -> String {
        if let Some(n) = self.naming.and_then(|f| f(v)) {
            return n;
        }
        self.names.get_or_init(|| Names::new(self.func, self.layout)).name(self.func, v)
    }

    fn args(&self, inst: Inst) -> Option<&'a [Value]> {
        self.layout.pool().args(self.func, inst)
    }

    fn results(&self, inst: Inst) -> Option<&'a [Value]> {
        self.layout.pool().results(self.func, inst)
    }

    fn params(&self, r: Region) -> Option<&'a [Value]> {
        self.layout.pool().params(self.func, r)
    }

    /// The location of diagnostics about a region (the body has no line of its own).
    fn region_loc(&self, r: Region) -> AnyEntity {
        if r == self.func.body {
            AnyEntity::Function
        } else {
            AnyEntity::Region(r)
        }
    }
}

/// Verifies a kernel; `Ok` holds the [`KernelFacts`] its checks computed (what back ends take),
/// `Err` every error found.
pub fn verify_function(func: &Function) -> Result<KernelFacts, VerifyErrors> {
    verify(func, None)
}

/// [`verify_function`], naming values in messages with `naming` where it answers (`Some("%sum")`
/// for a kernel parsed from text, see [`crate::SourceMap::value_name`]) and with the printer's
/// names (`%3`) elsewhere.
pub fn verify_function_named(
    func: &Function,
    naming: &dyn Fn(Value) -> Option<String>,
) -> Result<KernelFacts, VerifyErrors> {
    verify(func, Some(naming))
}

fn verify<'a>(
    func: &'a Function,
    naming: Option<&'a dyn Fn(Value) -> Option<String>>,
) -> Result<KernelFacts, VerifyErrors> {
    // One layout walk serves every check and both analyses: the dominance tree owns it and the
    // rest borrow it from there.
    let dom = DomTree::new(func);
    let layout = dom.layout();
    let mut cx = Ctx { func, layout, naming, names: OnceCell::new(), errors: Vec::new() };
    launch::check_header(&mut cx);
    structure::check_handles(&mut cx);
    structure::check_regions(&mut cx);
    for &inst in layout.insts() {
        structure::check_context(&mut cx, inst);
        types::check_inst(&mut cx, inst);
    }
    structure::check_dominance(&mut cx, &dom);
    let uni = Uniformity::with_layout(func, layout);
    structure::check_simt(&mut cx, &uni);
    if cx.errors.is_empty() {
        drop(cx);
        Ok(KernelFacts::from_analyses(func, dom.into_layout(), uni))
    } else {
        Err(VerifyErrors(cx.errors))
    }
}

/// The errors of one kernel of a module, rendered on its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelErrors {
    /// The kernel's position in [`Module::kernels`].
    pub index: usize,
    /// The kernel's name.
    pub name: String,
    /// Its errors.
    pub errors: VerifyErrors,
    /// [`VerifyErrors::render`] of them.
    pub rendered: String,
}

/// Every error found in a module: per kernel, and module/program level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleErrors {
    /// Kernels with errors.
    pub kernels: Vec<KernelErrors>,
    /// Module and program level errors (names, launches), one message each.
    pub module: Vec<String>,
}

impl ModuleErrors {
    /// The module/program level messages (duplicate names, bad launches, program parameters).
    pub fn program_errors(&self) -> Vec<String> {
        self.module.clone()
    }

    /// Total number of errors.
    pub fn len(&self) -> usize {
        self.module.len() + self.kernels.iter().map(|k| k.errors.0.len()).sum::<usize>()
    }

    /// True if there is no error.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for ModuleErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for k in &self.kernels {
            f.write_str(&k.rendered)?;
        }
        for m in &self.module {
            writeln!(f, "error: {m}")?;
        }
        write!(f, "{} verifier error(s) in the module", self.len())
    }
}

impl std::error::Error for ModuleErrors {}

/// Verifies every kernel of a module, then the module itself: kernel and program names are
/// unique, program parameters are global buffers or scalars, and every launch names an existing
/// kernel with one argument of the right type per kernel parameter.
pub fn verify_module(m: &Module) -> Result<(), ModuleErrors> {
    let mut errs = ModuleErrors::default();
    for (index, k) in m.kernels.iter().enumerate() {
        if let Err(errors) = verify_function(k) {
            let rendered = errors.render(k);
            errs.kernels.push(KernelErrors { index, name: k.name.clone(), errors, rendered });
        }
    }
    launch::check_module(m, &mut errs.module);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

/// The module and program level checks of [`verify_module`] alone (names, program parameters,
/// launches), for callers that verify each kernel themselves (with [`verify_function_named`]).
pub fn verify_module_level(m: &Module) -> Vec<String> {
    let mut errs = Vec::new();
    launch::check_module(m, &mut errs);
    errs
}
