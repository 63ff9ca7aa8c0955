//! Rustc-style diagnostics on `.qdm` source: a caret under a line and column
//! ([`caret`]), and the verifier's errors rendered that way at the user's own lines, columns and
//! value names ([`verify_rendered`]) instead of on a re-printed, renumbered copy of the kernel.

use qd_mir::verify::{verify_function_named, verify_module_level};
use qd_mir::{AnyEntity, Module, SourceMap};
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
            let col = text.len() - text.trim_start().len() + 1;
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
/// `kernel @k: …`; the first of that name).
fn module_line(module: &Module, map: &SourceMap, message: &str) -> Option<u32> {
    let name = |rest: &str| rest.split(|c: char| c == ':' || c.is_whitespace()).next().unwrap_or("").to_string();
    if let Some(rest) = message.strip_prefix("program @") {
        let n = name(rest);
        let i = module.programs.iter().position(|p| p.name == n)?;
        return map.program_line(i);
    }
    if let Some(rest) = message.strip_prefix("kernel @") {
        let n = name(rest);
        let i = module.kernels.iter().position(|k| k.name == n)?;
        return map.kernel_line(i);
    }
    None
}
