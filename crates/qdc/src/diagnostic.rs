//! Rustc-style diagnostics on `.qdm` source: a caret under a line and column ([`caret`]); the
//! verifier's errors rendered that way at the user's own lines, columns and value names
//! ([`verify_rendered`]) instead of on a re-printed, renumbered copy of the kernel; and a back
//! end's [`CompileError`] rendered against the file it came from ([`render_compile_error`]): the
//! error, then the file, line and column of the instruction it blames (from the parser's
//! [`SourceMap`]) and a caret under the op's name. An error with no instruction points at the
//! kernel's header line; a verifier error carries its own rendering. Shared by every `qdc`
//! command that reads a `.qdm` file.

use qd_mir::verify::{verify_function_named, verify_module_level};
use qd_mir::{AnyEntity, CompileError, Function, Module, SourceMap};
use std::fmt::Write as _;

/// The ` --> path:line:col` block with line `line` of `src` and `len` carets (at least one) under
/// 1-based column `col` (in characters):
///
/// ```text
///  --> k.qdm:3:8
///   |
/// 3 |   %2 = add %0, %1 : u32
///   |        ^^^
/// ```
pub fn caret(src: &str, path: &str, line: u32, col: u32, len: u32) -> String {
    let text = src.lines().nth((line as usize).saturating_sub(1)).unwrap_or("");
    let num = line.to_string();
    let pad = " ".repeat(num.len());
    let skip = (col as usize).saturating_sub(1);
    // Indent with the line's own tabs so the carets line up in any tab width.
    let indent: String = text.chars().take(skip).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    format!(
        "{pad}--> {path}:{line}:{col}\n{pad} |\n{num} | {text}\n{pad} | {indent}{}\n",
        "^".repeat(len.max(1) as usize)
    )
}

/// The length in characters of the token starting at 1-based column `col` of line `line`
/// (`%sum`, `add`, `subgroup.reduce`, `kernel`, `@tile`).
fn token_len(src: &str, line: u32, col: u32) -> u32 {
    let text = src.lines().nth((line as usize).saturating_sub(1)).unwrap_or("");
    let n = text
        .chars()
        .skip((col as usize).saturating_sub(1))
        .take_while(|&c| c.is_alphanumeric() || matches!(c, '%' | '@' | '_' | '.'))
        .count();
    u32::try_from(n).unwrap_or(1)
}

/// Verifies every kernel of `module` (parsed from `src` with `map`) and the module itself;
/// `Err` renders every error rustc-style at its line and column in `src`, naming values as the
/// file does, then a last line counting them.
pub fn verify_rendered(src: &str, path: &str, map: &SourceMap, module: &Module) -> Result<(), String> {
    let mut out = String::new();
    let mut count = 0usize;
    for (i, k) in module.kernels.iter().enumerate() {
        let names = |v| map.value_name(i, v, src).map(str::to_string);
        let Err(errs) = verify_function_named(k, &names) else { continue };
        for e in &errs.0 {
            count += 1;
            let _ = writeln!(out, "error: kernel @{}: {}", k.name, e.message);
            // An entity without a position of its own (a value made by no text) points at the header.
            let at = map.position_of(i, e.location).or_else(|| map.position_of(i, AnyEntity::Function));
            match at {
                Some((line, col)) => out.push_str(&caret(src, path, line, col, token_len(src, line, col))),
                None => out.push_str(&format!("  --> {path}\n")),
            }
            out.push('\n');
        }
    }
    for m in verify_module_level(module) {
        count += 1;
        let _ = writeln!(out, "error: {m}");
        if let Some(line) = module_line(module, map, &m) {
            let text = src.lines().nth((line as usize).saturating_sub(1)).unwrap_or("");
            let col = text.chars().take_while(|c| c.is_whitespace()).count() + 1;
            out.push_str(&caret(src, path, line, col as u32, token_len(src, line, col as u32)));
        }
        out.push('\n');
    }
    if count == 0 {
        return Ok(());
    }
    let _ = write!(out, "error: {path}: {count} verifier error{}", if count == 1 { "" } else { "s" });
    Err(out)
}

/// The header line of the program or kernel a module-level message is about (`program @p: …`,
/// `kernel @k: …`): the first of that name, or the second when the message is that the name is
/// used twice (the duplicate is what is wrong).
fn module_line(module: &Module, map: &SourceMap, message: &str) -> Option<u32> {
    let name = |rest: &str| rest.split(|c: char| c == ':' || c.is_whitespace()).next().unwrap_or("").to_string();
    let nth = if message.ends_with(": name already used") { 1 } else { 0 };
    if let Some(rest) = message.strip_prefix("program @") {
        let n = name(rest);
        let i = module.programs.iter().enumerate().filter(|(_, p)| p.name == n).nth(nth)?.0;
        return map.program_line(i);
    }
    if let Some(rest) = message.strip_prefix("kernel @") {
        let n = name(rest);
        let i = module.kernels.iter().enumerate().filter(|(_, k)| k.name == n).nth(nth)?.0;
        return map.kernel_line(i);
    }
    None
}

/// A `.qdm` file read and parsed with its source map (and verified: every back end's
/// `compile_kernel` verifies again, but `qdc` reports the whole module's errors first).
pub(crate) struct Source {
    /// The file's text.
    pub src: String,
    /// The parsed module.
    pub module: Module,
    /// Where each kernel and instruction is in `src`.
    pub map: SourceMap,
}

impl Source {
    /// Reads, parses and verifies `path`; errors come back rendered.
    pub(crate) fn read(path: &str) -> Result<Source, String> {
        let src = std::fs::read_to_string(path).map_err(|e| format!("error: cannot read {path}: {e}"))?;
        let (module, map) = qd_mir::parse_module_with_map(&src).map_err(|e| e.render(&src, path))?;
        crate::verify(path, &src, &map, &module)?;
        Ok(Source { src, module, map })
    }

    /// The kernel named `kernel` (with its index in the file), or every kernel; an error when
    /// there is none.
    pub(crate) fn kernels(&self, kernel: Option<&str>, path: &str) -> Result<Vec<(usize, &Function)>, String> {
        let kernels: Vec<(usize, &Function)> = match kernel {
            Some(k) => {
                let i = self
                    .module
                    .kernels
                    .iter()
                    .position(|f| f.name == k)
                    .ok_or_else(|| format!("error: no kernel @{k} in {path}"))?;
                vec![(i, &self.module.kernels[i])]
            }
            None => self.module.kernels.iter().enumerate().collect(),
        };
        if kernels.is_empty() {
            return Err(format!("error: {path} has no kernel"));
        }
        Ok(kernels)
    }

    /// [`render_compile_error`] for kernel number `index` of this file.
    pub(crate) fn render(&self, e: &CompileError, f: &Function, index: usize, path: &str) -> String {
        render_compile_error(e, f, index, &self.map, &self.src, path)
    }
}

/// Renders a compile error of kernel `f` (number `index` of the file `path`, whose text is `src`
/// and whose source map is `map`): `error: kernel @NAME: ERROR`, then, where the map knows the
/// line, `--> path:line:col`, the line and a caret under the blamed op (its instruction's line:
/// [`CompileError::inst`]) or under the kernel header's first word. The result ends in a newline.
pub fn render_compile_error(
    e: &CompileError,
    f: &Function,
    index: usize,
    map: &SourceMap,
    src: &str,
    path: &str,
) -> String {
    let mut out = format!("error: kernel @{}: {e}\n", f.name);
    if matches!(e, CompileError::Verify { .. }) {
        return out; // the verifier's rendering already points at each error
    }
    let inst = e.inst().filter(|&i| f.insts.get(i).is_some());
    // Under the op's name (its instruction's position) or under the kernel header's first word.
    let at = inst.and_then(|i| map.position_of(index, AnyEntity::Inst(i)));
    let Some((line, col)) = at.or_else(|| map.position_of(index, AnyEntity::Function)) else { return out };
    out.push_str(&caret(src, path, line, col, token_len(src, line, col)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_mir::{Opcode, Type};

    const SRC: &str = "kernel @k(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 7 : u32
  %2 = rem %0, %1 : u32
  return
}
";

    #[test]
    fn errors_point_at_the_op_on_its_line_or_at_the_kernel() {
        let (m, map) = qd_mir::parse_module_with_map(SRC).expect("parses");
        let f = &m.kernels[0];
        let rem = f.regions[f.body].insts[2];
        let e = CompileError::unsupported("sm_70", Some(Opcode::Rem), Some(Type::U32), "an example message").at(rem);
        assert_eq!(
            render_compile_error(&e, f, 0, &map, SRC, "k.qdm"),
            "error: kernel @k: cannot compile for sm_70: `rem` on u32: an example message
 --> k.qdm:4:8
  |
4 |   %2 = rem %0, %1 : u32
  |        ^^^
"
        );
        let e = CompileError::limit("vulkan1.1", "bytes of workgroup memory", 40000, 32768);
        assert_eq!(
            render_compile_error(&e, f, 0, &map, SRC, "k.qdm"),
            "error: kernel @k: cannot compile for vulkan1.1: the kernel needs 40000 bytes of workgroup memory; \
             the target has 32768
 --> k.qdm:1:1
  |
1 | kernel @k(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  | ^^^^^^
"
        );
        // No source map entry: the error alone.
        let e = CompileError::internal("sm_90", "a defect");
        assert_eq!(
            render_compile_error(&e, f, 7, &map, SRC, "k.qdm"),
            "error: kernel @k: internal error compiling for sm_90 (a qd defect): a defect\n"
        );
    }
}
