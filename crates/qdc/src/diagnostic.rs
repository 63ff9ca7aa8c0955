//! Rendering a back end's [`CompileError`] against the `.qdm` file it came from: the error, then
//! the file, line and column of the instruction it blames (from the parser's [`SourceMap`]), the
//! line itself and a caret under the op's name, the way rustc points at code. An error with no
//! instruction points at the kernel's header line; a verifier error carries its own rendering.
//!
//! Shared by every `qdc compile` target whose back end returns [`qd_mir::CompileError`].

use qd_mir::{AnyEntity, CompileError, Function, Module, SourceMap};
use std::fmt::Write as _;

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
        crate::verify(path, &module)?;
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
                    .ok_or_else(|| format!("no kernel @{k} in {path}"))?;
                vec![(i, &self.module.kernels[i])]
            }
            None => self.module.kernels.iter().enumerate().collect(),
        };
        if kernels.is_empty() {
            return Err(format!("{path} has no kernel"));
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
    let line = match inst {
        Some(i) => map.line_of(index, AnyEntity::Inst(i)),
        None => map.kernel_line(index),
    };
    let Some(line) = line.filter(|&l| l > 0) else { return out };
    let Some(text) = src.lines().nth(line as usize - 1) else { return out };
    // Under the op's name when it is on the line (after the `=` of its results), else under the
    // line's first word.
    let op_at = inst.map(|i| f.insts[i].opcode.name()).and_then(|op| {
        let after_eq = text.find('=').map_or(0, |p| p + 1);
        text[after_eq..].find(op).map(|p| (after_eq + p, op.len()))
    });
    let (col, len) = op_at.unwrap_or_else(|| {
        let start = text.len() - text.trim_start().len();
        (start, text[start..].split_whitespace().next().map_or(1, str::len))
    });
    let num = line.to_string();
    let pad = " ".repeat(num.len());
    let indent: String = text[..col].chars().map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let _ = write!(
        out,
        "{pad}--> {path}:{line}:{}\n{pad} |\n{num} | {text}\n{pad} | {indent}{}\n",
        col + 1,
        "^".repeat(len.max(1))
    );
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
