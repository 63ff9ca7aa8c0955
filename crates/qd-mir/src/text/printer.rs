//! The MIR printer: `Function`, `Program` and `Module` to `.qdm` text.
//!
//! Kernel parameters print by name (`%src`), every other value by a dense number assigned in
//! definition order (`%0`, `%1`, …). Floats print as the shortest decimal that reads back to the
//! same bits, or as raw IEEE bits (`0x7fc00001`) when no decimal does (NaN payloads).
//! [`print_function_annotated`] interleaves diagnostics under the lines they concern.

use crate::entities::{AnyEntity, Inst, Region, Value};
use crate::eval::{as_i64, f32_of, f64_of};
use crate::function::{Function, GridPolicy, LaunchArg, Module, Program, ProgramCheck, ValueDef};
use crate::inst::{Imm, Tile};
use crate::ops::Format;
use crate::types::{ScalarType, Type};
use core::fmt::{self, Write};
use cranelift_entity::EntityRef;

/// A callback giving the diagnostics to print under an entity's line.
pub type Annotate<'a> = &'a dyn Fn(AnyEntity) -> Vec<String>;

/// Prints a kernel.
pub fn print_function(func: &Function) -> String {
    let mut s = String::new();
    write_function(&mut s, func, None);
    s
}

/// Prints a kernel with diagnostics: each note from `notes` is printed on its own line, prefixed
/// with `; ^ `, right under the line of the entity it concerns.
pub fn print_function_annotated(func: &Function, notes: Annotate<'_>) -> String {
    let mut s = String::new();
    write_function(&mut s, func, Some(notes));
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
    p.inst(&mut s, inst, 0);
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
        write_function(&mut s, k, None);
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

/// Value numbers, indexed by value (`UNNUMBERED` for values the text never defines).
struct Names {
    num: Vec<u32>,
}

const UNNUMBERED: u32 = u32::MAX;

impl Names {
    /// Numbers values in the order they appear in the text: an instruction's results (on its
    /// line), then each owned region's parameters and contents.
    fn new(func: &Function) -> Names {
        let mut num = vec![UNNUMBERED; func.values.len()];
        let mut next = 0u32;
        Self::number_region(func, func.body, &mut num, &mut next);
        Names { num }
    }

    fn set(num: &mut Vec<u32>, v: Value, n: u32) {
        let i = v.index();
        if i >= num.len() {
            num.resize(i + 1, UNNUMBERED);
        }
        num[i] = n;
    }

    fn number_region(func: &Function, r: Region, num: &mut Vec<u32>, next: &mut u32) {
        for &p in func.region_params(r) {
            Self::set(num, p, *next);
            *next += 1;
        }
        for &inst in &func.regions[r].insts {
            for &v in func.inst_results(inst) {
                Self::set(num, v, *next);
                *next += 1;
            }
            for rg in func.inst_regions(inst) {
                Self::number_region(func, rg, num, next);
            }
        }
    }
}

/// Appends the decimal digits of `n`.
fn push_u64(w: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        w.push(char::from(b));
    }
}

/// Appends `n` spaces.
fn push_indent(w: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        w.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// Appends a type exactly as its `Display` writes it.
fn push_type(w: &mut String, t: Type) {
    match t {
        Type::Scalar(s) => w.push_str(s.name()),
        Type::Ptr(a, s) => {
            w.push_str("ptr<");
            w.push_str(a.name());
            w.push_str(", ");
            w.push_str(s.name());
            w.push('>');
        }
    }
}

/// Appends a constant exactly as [`format_const`] formats it (integers without allocating).
fn push_const(w: &mut String, ty: ScalarType, bits: u64) {
    match ty {
        ScalarType::Bool => w.push_str(if bits & 1 != 0 { "true" } else { "false" }),
        ScalarType::I32 | ScalarType::I64 => {
            let x = as_i64(ty, bits);
            if x < 0 {
                w.push('-');
            }
            push_u64(w, x.unsigned_abs());
        }
        ScalarType::U32 => push_u64(w, u64::from(bits as u32)),
        ScalarType::U64 => push_u64(w, bits),
        ScalarType::F32 | ScalarType::F64 => w.push_str(&format_const(ty, bits)),
    }
}

struct Printer<'a> {
    func: &'a Function,
    names: Names,
    notes: Option<Annotate<'a>>,
}

impl Printer<'_> {
    fn value(&self, w: &mut String, v: Value) {
        if let Some(ValueDef::Param(i)) = self.func.values.get(v).map(|d| d.def) {
            if let Some(p) = self.func.params.get(usize::from(i)) {
                w.push('%');
                w.push_str(&p.name);
                return;
            }
        }
        match self.names.num.get(v.index()).copied() {
            Some(n) if n != UNNUMBERED => {
                w.push('%');
                push_u64(w, u64::from(n));
            }
            _ => {
                w.push_str("%?");
                push_u64(w, u64::from(v.as_u32()));
            }
        }
    }

    fn values(&self, w: &mut String, vs: &[Value]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                w.push_str(", ");
            }
            self.value(w, v);
        }
    }

    fn notes(&self, w: &mut String, indent: usize, e: AnyEntity) {
        if let Some(n) = self.notes {
            for note in n(e) {
                push_indent(w, indent);
                w.push_str("; ^ ");
                w.push_str(&note);
                w.push('\n');
            }
        }
    }

    fn region(&self, w: &mut String, r: Region, indent: usize) {
        for &inst in &self.func.regions[r].insts {
            self.inst(w, inst, indent);
        }
    }

    fn inst(&self, w: &mut String, inst: Inst, indent: usize) {
        let f = self.func;
        let data = &f.insts[inst];
        let op = data.opcode;
        let args = f.args(inst);
        let results = f.inst_results(inst);
        push_indent(w, indent);
        let info = op.info();
        if !results.is_empty() && !matches!(info.format, Format::If | Format::Loop) {
            self.values(w, results);
            w.push_str(" = ");
        }
        match info.format {
            Format::If => {
                if !results.is_empty() {
                    self.values(w, results);
                    w.push_str(" = ");
                }
                w.push_str("if ");
                self.values(w, args);
                self.result_types(w, results);
                w.push_str(" {\n");
                self.notes(w, indent, AnyEntity::Inst(inst));
                let [then, els] = data.regions;
                if let Some(t) = then.expand() {
                    self.notes(w, indent + 2, AnyEntity::Region(t));
                    self.region(w, t, indent + 2);
                }
                if let Some(e) = els.expand() {
                    push_indent(w, indent);
                    w.push_str("} else {\n");
                    self.notes(w, indent + 2, AnyEntity::Region(e));
                    self.region(w, e, indent + 2);
                }
                push_indent(w, indent);
                w.push_str("}\n");
                return;
            }
            Format::Loop => {
                if !results.is_empty() {
                    self.values(w, results);
                    w.push_str(" = ");
                }
                w.push_str("loop (");
                let body = data.regions[0].expand();
                let params = body.map(|b| f.region_params(b)).unwrap_or(&[]);
                for i in 0..params.len().max(args.len()) {
                    if i > 0 {
                        w.push_str(", ");
                    }
                    match params.get(i) {
                        Some(&p) => {
                            self.value(w, p);
                            w.push_str(": ");
                            push_type(w, f.value_type(p));
                        }
                        None => w.push_str("%?: ?"),
                    }
                    w.push_str(" = ");
                    match args.get(i) {
                        Some(&a) => self.value(w, a),
                        None => w.push_str("%?"),
                    }
                }
                w.push(')');
                self.result_types(w, results);
                w.push_str(" {\n");
                self.notes(w, indent, AnyEntity::Inst(inst));
                if let Some(b) = body {
                    self.notes(w, indent + 2, AnyEntity::Region(b));
                    self.region(w, b, indent + 2);
                }
                push_indent(w, indent);
                w.push_str("}\n");
                return;
            }
            _ => {}
        }
        w.push_str(op.name());
        match (info.format, data.imm) {
            (Format::Const, Imm::Const(bits)) => {
                let ty = results.first().and_then(|&r| f.value_type(r).scalar()).unwrap_or(ScalarType::U64);
                w.push(' ');
                push_const(w, ty, bits);
            }
            (Format::Dim, Imm::Dim(d)) => {
                w.push(' ');
                w.push_str(d.name());
            }
            (Format::Cmp, Imm::Cond(c)) => {
                w.push(' ');
                w.push_str(c.name());
            }
            (Format::SharedAddr, Imm::Shared(s)) => match f.shared.get(s) {
                Some(d) => {
                    w.push_str(" @");
                    w.push_str(&d.name);
                }
                None => {
                    w.push_str(" @?");
                    push_u64(w, u64::from(s.as_u32()));
                }
            },
            (Format::Atomic, Imm::Atomic(a, s)) => {
                w.push(' ');
                w.push_str(a.name());
                w.push(' ');
                w.push_str(s.name());
            }
            (Format::AtomicCas, Imm::Scope(s)) | (Format::Fence, Imm::Scope(s)) => {
                w.push(' ');
                w.push_str(s.name());
            }
            (Format::Count, Imm::Count(n)) => {
                w.push(' ');
                push_u64(w, u64::from(n));
            }
            (Format::Tiled, Imm::Tile(t)) => tile(w, t),
            (Format::Group, Imm::Group { op, tile: t, .. }) => {
                w.push(' ');
                w.push_str(op.name());
                tile(w, t);
            }
            (Format::Scan, Imm::Group { op, tile: t, inclusive }) => {
                w.push_str(if inclusive { " inclusive " } else { " exclusive " });
                w.push_str(op.name());
                tile(w, t);
            }
            (Format::SyncPred, Imm::Pred(p)) => {
                w.push(' ');
                w.push_str(p.name());
            }
            (
                Format::Nullary
                | Format::Unary
                | Format::Binary
                | Format::Ternary
                | Format::Terminator
                | Format::Effect,
                Imm::None,
            ) => {}
            (_, imm) => {
                let _ = write!(w, " <bad immediate {imm:?}>");
            }
        }
        if !args.is_empty() {
            w.push(' ');
            self.values(w, args);
        }
        match results {
            [] => {}
            [r] => {
                w.push_str(" : ");
                push_type(w, f.value_type(*r));
            }
            _ => {
                w.push_str(" : (");
                for (i, &r) in results.iter().enumerate() {
                    if i > 0 {
                        w.push_str(", ");
                    }
                    push_type(w, f.value_type(r));
                }
                w.push(')');
            }
        }
        w.push('\n');
        self.notes(w, indent, AnyEntity::Inst(inst));
        if self.notes.is_some() {
            for &r in results {
                self.notes(w, indent, AnyEntity::Value(r));
            }
        }
    }

    fn result_types(&self, w: &mut String, results: &[Value]) {
        if results.is_empty() {
            return;
        }
        w.push_str(" -> (");
        for (i, &r) in results.iter().enumerate() {
            if i > 0 {
                w.push_str(", ");
            }
            push_type(w, self.func.value_type(r));
        }
        w.push(')');
    }
}

fn tile(w: &mut String, t: Tile) {
    match t {
        Tile::Full => {}
        Tile::Log2(l) => {
            w.push_str(" tile(");
            push_u64(w, u64::from(l));
            w.push(')');
        }
    }
}

/// Appends a kernel's text to `w`.
fn write_function(w: &mut String, func: &Function, notes: Option<Annotate<'_>>) {
    let p = Printer { func, names: Names::new(func), notes };
    // About 32 bytes a line, one line per instruction: one allocation for most kernels.
    w.reserve(64 + 32 * (func.insts.len() + func.shared.len()));
    w.push_str("kernel @");
    w.push_str(&func.name);
    w.push('(');
    for (i, param) in func.params.iter().enumerate() {
        if i > 0 {
            w.push_str(", ");
        }
        w.push('%');
        w.push_str(&param.name);
        w.push_str(": ");
        push_type(w, param.ty);
        if param.uniform {
            w.push_str(" uniform");
        }
    }
    let [bx, by, bz] = func.launch.block;
    w.push_str(") block(");
    for (i, n) in [bx, by, bz].into_iter().enumerate() {
        if i > 0 {
            w.push_str(", ");
        }
        push_u64(w, u64::from(n));
    }
    w.push_str(") grid(");
    match func.launch.grid {
        GridPolicy::Fixed(xyz) => {
            for (i, n) in xyz.into_iter().enumerate() {
                if i > 0 {
                    w.push_str(", ");
                }
                push_u64(w, u64::from(n));
            }
        }
        GridPolicy::Cover(i) => match func.params.get(usize::from(i)) {
            Some(param) => {
                w.push_str("cover %");
                w.push_str(&param.name);
            }
            None => {
                w.push_str("cover %?");
                push_u64(w, u64::from(i));
            }
        },
        GridPolicy::Saturating => w.push_str("saturating"),
    }
    w.push(')');
    if let Some(n) = func.launch.subgroup_size {
        w.push_str(" subgroup(");
        push_u64(w, u64::from(n));
        w.push(')');
    }
    w.push_str(" {\n");
    p.notes(w, 0, AnyEntity::Function);
    for i in 0..func.params.len() {
        p.notes(w, 0, AnyEntity::Param(i as u16));
    }
    for (s, d) in func.shared.iter() {
        w.push_str("  shared @");
        w.push_str(&d.name);
        w.push_str(": [");
        w.push_str(d.elem.name());
        w.push_str("; ");
        push_u64(w, u64::from(d.len));
        w.push_str("]\n");
        p.notes(w, 2, AnyEntity::Shared(s));
    }
    p.region(w, func.body, 2);
    w.push_str("}\n");
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
    if let Some(st) = &prog.status {
        for (bit, msg) in &st.bits {
            writeln!(w, "  status %{} bit {bit} {}", st.name, quote(msg))?;
        }
        if st.bits.is_empty() {
            writeln!(w, "  status %{}", st.name)?;
        }
    }
    let pname = |p: u16| prog.params.get(usize::from(p)).map_or_else(|| format!("?{p}"), |q| q.name.clone());
    for c in &prog.checks {
        match c {
            ProgramCheck::MinLen { param, min, why } => {
                writeln!(w, "  check len %{} >= {min} {}", pname(*param), quote(why))?
            }
            ProgramCheck::Distinct { a, b } => writeln!(w, "  check distinct %{}, %{}", pname(*a), pname(*b))?,
        }
    }
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
                LaunchArg::Status => match &prog.status {
                    Some(st) => write!(w, "%{}", st.name)?,
                    None => w.write_str("%?status")?,
                },
            }
        }
        w.write_str(")\n")?;
    }
    w.write_str("}\n")
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_function(self))
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

/// A string literal: `"…"` with `\\` and `\"` escaped (messages never hold newlines).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
