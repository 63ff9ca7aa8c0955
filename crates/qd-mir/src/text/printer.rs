//! The MIR printer: `Function`, `Program` and `Module` to `.qdm` text.
//!
//! Kernel parameters print by name (`%src`), every other value by a dense number assigned in
//! definition order (`%0`, `%1`, …). Floats print as the shortest decimal that reads back to the
//! same bits, or as raw IEEE bits (`0x7fc00001`) when no decimal does (NaN payloads).
//! [`print_function_annotated`] interleaves diagnostics under the lines they concern.

use crate::entities::{AnyEntity, Inst, Region, Value};
use crate::eval::{as_i64, f32_of, f64_of};
use crate::function::{Function, GridPolicy, LaunchArg, Module, Program, ValueDef};
use crate::inst::{Imm, Tile};
use crate::ops::Format;
use crate::types::ScalarType;
use core::fmt::{self, Write};
use cranelift_entity::SecondaryMap;

/// A callback giving the diagnostics to print under an entity's line.
pub type Annotate<'a> = &'a dyn Fn(AnyEntity) -> Vec<String>;

/// Prints a kernel.
pub fn print_function(func: &Function) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_function(&mut s, func, None);
    s
}

/// Prints a kernel with diagnostics: each note from `notes` is printed on its own line, prefixed
/// with `; ^ `, right under the line of the entity it concerns.
pub fn print_function_annotated(func: &Function, notes: Annotate<'_>) -> String {
    let mut s = String::new();
    let _ = write_function(&mut s, func, Some(notes));
    s
}

/// Prints the single line of one instruction, without indentation or trailing newline, numbering
/// values as [`print_function`] does. For `if` and `loop` only the header is printed (without the
/// opening brace and the nested regions). Used by diagnostics (the interpreter's faults).
pub fn print_inst(func: &Function, inst: Inst) -> String {
    if func.insts.get(inst).is_none() {
        return format!("<invalid {inst}>");
    }
    let p = Printer { func, names: Names::new(func), notes: None };
    let mut s = String::new();
    let _ = p.inst(&mut s, inst, 0);
    let line = s.lines().next().unwrap_or("");
    line.strip_suffix(" {").unwrap_or(line).to_string()
}

/// Prints a program.
pub fn print_program(prog: &Program) -> String {
    let mut s = String::new();
    let _ = write_program(&mut s, prog);
    s
}

/// Prints a module: kernels, then programs, separated by blank lines.
pub fn print_module(m: &Module) -> String {
    let mut s = String::new();
    let mut first = true;
    for k in &m.kernels {
        if !first {
            s.push('\n');
        }
        first = false;
        let _ = write_function(&mut s, k, None);
    }
    for p in &m.programs {
        if !first {
            s.push('\n');
        }
        first = false;
        let _ = write_program(&mut s, p);
    }
    s
}

/// Formats a constant's bits for its type. Floats print as the shortest decimal that reads back to
/// the same bits (`1.5`, `-0.0`, `inf`, `1e-7`); every NaN prints as its raw IEEE bits
/// (`0x7fc00000`) so that its payload survives and `nan` never appears in the text.
pub fn format_const(ty: ScalarType, bits: u64) -> String {
    match ty {
        ScalarType::Bool => if bits & 1 != 0 { "true" } else { "false" }.to_string(),
        ScalarType::I32 | ScalarType::I64 => as_i64(ty, bits).to_string(),
        ScalarType::U32 => (bits as u32).to_string(),
        ScalarType::U64 => bits.to_string(),
        ScalarType::F32 => {
            let x = f32_of(bits);
            let d = format!("{x:?}");
            if !x.is_nan() && d.parse::<f32>().map(f32::to_bits) == Ok(bits as u32) {
                d
            } else {
                format!("{:#010x}", bits as u32)
            }
        }
        ScalarType::F64 => {
            let x = f64_of(bits);
            let d = format!("{x:?}");
            if !x.is_nan() && d.parse::<f64>().map(f64::to_bits) == Ok(bits) {
                d
            } else {
                format!("{bits:#018x}")
            }
        }
    }
}

struct Names {
    num: SecondaryMap<Value, u32>,
}

const UNNUMBERED: u32 = u32::MAX;

impl Names {
    /// Numbers values in the order they appear in the text: an instruction's results (on its
    /// line), then each owned region's parameters and contents.
    fn new(func: &Function) -> Names {
        let mut num = SecondaryMap::with_default(UNNUMBERED);
        let mut next = 0u32;
        Self::number_region(func, func.body, &mut num, &mut next);
        Names { num }
    }

    fn number_region(func: &Function, r: Region, num: &mut SecondaryMap<Value, u32>, next: &mut u32) {
        for &p in func.region_params(r) {
            num[p] = *next;
            *next += 1;
        }
        for &inst in &func.regions[r].insts {
            for &v in func.inst_results(inst) {
                num[v] = *next;
                *next += 1;
            }
            for rg in func.inst_regions(inst) {
                Self::number_region(func, rg, num, next);
            }
        }
    }
}

struct Printer<'a> {
    func: &'a Function,
    names: Names,
    notes: Option<Annotate<'a>>,
}

impl Printer<'_> {
    fn value(&self, w: &mut dyn Write, v: Value) -> fmt::Result {
        if let Some(ValueDef::Param(i)) = self.func.values.get(v).map(|d| d.def) {
            if let Some(p) = self.func.params.get(usize::from(i)) {
                return write!(w, "%{}", p.name);
            }
        }
        match self.names.num.get(v).copied() {
            Some(n) if n != UNNUMBERED => write!(w, "%{n}"),
            _ => write!(w, "%?{}", v.as_u32()),
        }
    }

    fn values(&self, w: &mut dyn Write, vs: &[Value]) -> fmt::Result {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            self.value(w, v)?;
        }
        Ok(())
    }

    fn notes(&self, w: &mut dyn Write, indent: usize, e: AnyEntity) -> fmt::Result {
        if let Some(n) = self.notes {
            for note in n(e) {
                writeln!(w, "{:indent$}; ^ {note}", "")?;
            }
        }
        Ok(())
    }

    fn region(&self, w: &mut dyn Write, r: Region, indent: usize) -> fmt::Result {
        for &inst in &self.func.regions[r].insts {
            self.inst(w, inst, indent)?;
        }
        Ok(())
    }

    fn inst(&self, w: &mut dyn Write, inst: Inst, indent: usize) -> fmt::Result {
        let f = self.func;
        let data = &f.insts[inst];
        let op = data.opcode;
        let args = f.args(inst);
        let results = f.inst_results(inst);
        write!(w, "{:indent$}", "")?;
        let info = op.info();
        if !results.is_empty() && !matches!(info.format, Format::If | Format::Loop) {
            self.values(w, results)?;
            w.write_str(" = ")?;
        }
        match info.format {
            Format::If => {
                if !results.is_empty() {
                    self.values(w, results)?;
                    w.write_str(" = ")?;
                }
                w.write_str("if ")?;
                self.values(w, args)?;
                self.result_types(w, results)?;
                w.write_str(" {\n")?;
                self.notes(w, indent, AnyEntity::Inst(inst))?;
                let [then, els] = data.regions;
                if let Some(t) = then.expand() {
                    self.notes(w, indent + 2, AnyEntity::Region(t))?;
                    self.region(w, t, indent + 2)?;
                }
                if let Some(e) = els.expand() {
                    writeln!(w, "{:indent$}}} else {{", "")?;
                    self.notes(w, indent + 2, AnyEntity::Region(e))?;
                    self.region(w, e, indent + 2)?;
                }
                return writeln!(w, "{:indent$}}}", "");
            }
            Format::Loop => {
                if !results.is_empty() {
                    self.values(w, results)?;
                    w.write_str(" = ")?;
                }
                w.write_str("loop (")?;
                let body = data.regions[0].expand();
                let params = body.map(|b| f.region_params(b)).unwrap_or(&[]);
                for i in 0..params.len().max(args.len()) {
                    if i > 0 {
                        w.write_str(", ")?;
                    }
                    match params.get(i) {
                        Some(&p) => {
                            self.value(w, p)?;
                            write!(w, ": {}", f.value_type(p))?;
                        }
                        None => w.write_str("%?: ?")?,
                    }
                    w.write_str(" = ")?;
                    match args.get(i) {
                        Some(&a) => self.value(w, a)?,
                        None => w.write_str("%?")?,
                    }
                }
                w.write_str(")")?;
                self.result_types(w, results)?;
                w.write_str(" {\n")?;
                self.notes(w, indent, AnyEntity::Inst(inst))?;
                if let Some(b) = body {
                    self.notes(w, indent + 2, AnyEntity::Region(b))?;
                    self.region(w, b, indent + 2)?;
                }
                return writeln!(w, "{:indent$}}}", "");
            }
            _ => {}
        }
        w.write_str(op.name())?;
        match (info.format, data.imm) {
            (Format::Const, Imm::Const(bits)) => {
                let ty = results.first().and_then(|&r| f.value_type(r).scalar()).unwrap_or(ScalarType::U64);
                write!(w, " {}", format_const(ty, bits))?;
            }
            (Format::Dim, Imm::Dim(d)) => write!(w, " {}", d.name())?,
            (Format::Cmp, Imm::Cond(c)) => write!(w, " {}", c.name())?,
            (Format::SharedAddr, Imm::Shared(s)) => match f.shared.get(s) {
                Some(d) => write!(w, " @{}", d.name)?,
                None => write!(w, " @?{}", s.as_u32())?,
            },
            (Format::Atomic, Imm::Atomic(a, s)) => write!(w, " {} {}", a.name(), s.name())?,
            (Format::AtomicCas, Imm::Scope(s)) | (Format::Fence, Imm::Scope(s)) => write!(w, " {}", s.name())?,
            (Format::Count, Imm::Count(n)) => write!(w, " {n}")?,
            (Format::Tiled, Imm::Tile(t)) => tile(w, t)?,
            (Format::Group, Imm::Group { op, tile: t, .. }) => {
                write!(w, " {}", op.name())?;
                tile(w, t)?;
            }
            (Format::Scan, Imm::Group { op, tile: t, inclusive }) => {
                write!(w, " {} {}", if inclusive { "inclusive" } else { "exclusive" }, op.name())?;
                tile(w, t)?;
            }
            (Format::SyncPred, Imm::Pred(p)) => write!(w, " {}", p.name())?,
            (
                Format::Nullary
                | Format::Unary
                | Format::Binary
                | Format::Ternary
                | Format::Terminator
                | Format::Effect,
                Imm::None,
            ) => {}
            (_, imm) => write!(w, " <bad immediate {imm:?}>")?,
        }
        if !args.is_empty() {
            w.write_str(" ")?;
            self.values(w, args)?;
        }
        match results {
            [] => {}
            [r] => write!(w, " : {}", f.value_type(*r))?,
            _ => {
                w.write_str(" : (")?;
                for (i, &r) in results.iter().enumerate() {
                    if i > 0 {
                        w.write_str(", ")?;
                    }
                    write!(w, "{}", f.value_type(r))?;
                }
                w.write_str(")")?;
            }
        }
        w.write_str("\n")?;
        self.notes(w, indent, AnyEntity::Inst(inst))?;
        for &r in results {
            self.notes(w, indent, AnyEntity::Value(r))?;
        }
        Ok(())
    }

    fn result_types(&self, w: &mut dyn Write, results: &[Value]) -> fmt::Result {
        if results.is_empty() {
            return Ok(());
        }
        w.write_str(" -> (")?;
        for (i, &r) in results.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            write!(w, "{}", self.func.value_type(r))?;
        }
        w.write_str(")")
    }
}

fn tile(w: &mut dyn Write, t: Tile) -> fmt::Result {
    match t {
        Tile::Full => Ok(()),
        Tile::Log2(l) => write!(w, " tile({l})"),
    }
}

fn write_function(w: &mut dyn Write, func: &Function, notes: Option<Annotate<'_>>) -> fmt::Result {
    let p = Printer { func, names: Names::new(func), notes };
    write!(w, "kernel @{}(", func.name)?;
    for (i, param) in func.params.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "%{}: {}", param.name, param.ty)?;
        if param.uniform {
            w.write_str(" uniform")?;
        }
    }
    let [bx, by, bz] = func.launch.block;
    write!(w, ") block({bx}, {by}, {bz}) grid(")?;
    match func.launch.grid {
        GridPolicy::Fixed([x, y, z]) => write!(w, "{x}, {y}, {z}")?,
        GridPolicy::Cover(i) => match func.params.get(usize::from(i)) {
            Some(param) => write!(w, "cover %{}", param.name)?,
            None => write!(w, "cover %?{i}")?,
        },
        GridPolicy::Saturating => w.write_str("saturating")?,
    }
    w.write_str(") {\n")?;
    p.notes(w, 0, AnyEntity::Function)?;
    for i in 0..func.params.len() {
        p.notes(w, 0, AnyEntity::Param(i as u16))?;
    }
    for (s, d) in func.shared.iter() {
        writeln!(w, "  shared @{}: [{}; {}]", d.name, d.elem, d.len)?;
        p.notes(w, 2, AnyEntity::Shared(s))?;
    }
    p.region(w, func.body, 2)?;
    w.write_str("}\n")
}

fn write_program(w: &mut dyn Write, prog: &Program) -> fmt::Result {
    write!(w, "program @{}(", prog.name)?;
    for (i, param) in prog.params.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "%{}: {}", param.name, param.ty)?;
    }
    w.write_str(") {\n")?;
    for l in &prog.launches {
        write!(w, "  launch @{}(", l.kernel)?;
        for (i, a) in l.args.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            match *a {
                LaunchArg::Param(p) => match prog.params.get(usize::from(p)) {
                    Some(param) => write!(w, "%{}", param.name)?,
                    None => write!(w, "%?{p}")?,
                },
                LaunchArg::Const(ty, bits) => write!(w, "{} : {}", format_const(ty, bits), ty)?,
            }
        }
        w.write_str(")\n")?;
    }
    w.write_str("}\n")
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_function(f, self, None)
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_program(f, self)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}
