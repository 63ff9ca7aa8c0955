//! No `match` over ops has a catch-all arm: every `match` in the product's source (the crates'
//! `src/`, tests excluded) whose arms name `Opcode`, `OpClass` or one of the op table's sub-kind
//! enums must list every case, so a new op or sub-kind breaks the build in every place that must
//! handle it instead of silently taking a neighbour's lowering. A catch-all is a `_` arm (with or
//! without a guard) or an arm that only binds a name.
//!
//! The scan is lexical (comments, strings and char literals blanked; braces, brackets and
//! parentheses balanced), which is all the question needs.

use std::path::{Path, PathBuf};

/// Path prefixes that name an op or a sub-kind in a pattern (`O` is the crates' usual alias of
/// `Opcode`).
const OP_PATHS: &[&str] = &[
    "Opcode::",
    "O::",
    "OpClass::",
    "BinOp::",
    "UnOp::",
    "MemoryOp::",
    "IndexOp::",
    "ExchangeOp::",
    "ShuffleKind::",
    "LaneMask::",
    "SyncOp::",
    "Collective::",
    "Terminator::",
];

/// Blanks comments, string literals and char literals (keeping line breaks), so that braces and
/// `=>` inside them do not count.
fn blank(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p);
                wipe(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = src[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
                wipe(&mut out, i, end);
                i = end;
            }
            b'"' => {
                // Raw strings (`r"…"`, `r#"…"#`) hold no escapes.
                let raw_hashes = if i > 0 && (b[i - 1] == b'r' || b[i - 1] == b'#') {
                    let mut k = i;
                    let mut h = 0;
                    while k > 0 && b[k - 1] == b'#' {
                        h += 1;
                        k -= 1;
                    }
                    (k > 0 && b[k - 1] == b'r').then_some(h)
                } else {
                    None
                };
                let mut j = i + 1;
                match raw_hashes {
                    Some(h) => {
                        let close = format!("\"{}", "#".repeat(h));
                        j = src[j..].find(&close).map_or(b.len(), |p| j + p + close.len());
                    }
                    None => {
                        while j < b.len() && b[j] != b'"' {
                            j += if b[j] == b'\\' { 2 } else { 1 };
                        }
                        j = (j + 1).min(b.len());
                    }
                }
                wipe(&mut out, i, j);
                i = j;
            }
            b'\'' => {
                // A char literal (`'x'`, `'\n'`, `'\u{..}'`), not a lifetime (`'a`).
                let close = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..].iter().position(|&c| c == b'\'').map(|p| i + 2 + p)
                } else {
                    let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + ch_len) == Some(&b'\'')).then_some(i + 1 + ch_len)
                };
                match close {
                    Some(end) => {
                        wipe(&mut out, i, end + 1);
                        i = end + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The index just past the bracket that closes the one at `open`.
fn close_of(b: &[u8], open: usize) -> usize {
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// The top-level arm patterns (guards removed) of the match body `b[from..to]`.
fn arm_patterns(b: &[u8], from: usize, to: usize) -> Vec<String> {
    let mut pats = Vec::new();
    let mut k = from;
    while k < to {
        // The pattern runs to the `=>` at depth 0.
        let start = k;
        let mut depth = 0i32;
        while k + 1 < to && !(depth == 0 && b[k] == b'=' && b[k + 1] == b'>') {
            match b[k] {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => depth -= 1,
                _ => {}
            }
            k += 1;
        }
        if k + 1 >= to {
            break;
        }
        let pat = String::from_utf8_lossy(&b[start..k]).trim().trim_start_matches(',').trim().to_string();
        let pat = match pat.find(" if ") {
            Some(g) => pat[..g].trim().to_string(),
            None => pat,
        };
        pats.push(pat);
        k += 2;
        // The arm's body: a block, or an expression up to the `,` at depth 0.
        while k < to && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if k < to && b[k] == b'{' {
            k = close_of(b, k);
            continue;
        }
        let mut depth = 0i32;
        while k < to && !(depth == 0 && b[k] == b',') {
            match b[k] {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => depth -= 1,
                _ => {}
            }
            k += 1;
        }
        k += 1;
    }
    pats
}

/// `_`, a lone binding, or a tuple of those (`(_, _)`, `(op, ty)`).
fn is_catch_all(pat: &str) -> bool {
    let p = pat.trim_start_matches('|').trim();
    let p = p.strip_prefix('(').and_then(|q| q.strip_suffix(')')).unwrap_or(p);
    !p.is_empty()
        && p.split(',').all(|part| {
            let part = part.trim();
            !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
}

/// `file:line` of every match over ops with a catch-all arm in `src`.
fn offenders(path: &Path, src: &str) -> Vec<String> {
    // The unit tests at the end of a file are test code.
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(k) => &src[..k],
        None => src,
    };
    let b = blank(src);
    let text = String::from_utf8_lossy(&b).into_owned();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(p) = text[at..].find("match ") {
        let m = at + p;
        at = m + 6;
        if m > 0 && (b[m - 1].is_ascii_alphanumeric() || b[m - 1] == b'_') {
            continue;
        }
        // The body is the first `{` at depth 0 after the scrutinee.
        let mut k = m + 6;
        let mut depth = 0i32;
        while k < b.len() && !(depth == 0 && b[k] == b'{') {
            match b[k] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' => break,
                _ => {}
            }
            k += 1;
        }
        if k >= b.len() || b[k] != b'{' {
            continue;
        }
        let end = close_of(&b, k) - 1;
        let pats = arm_patterns(&b, k + 1, end);
        let over_ops = pats.iter().any(|p| {
            OP_PATHS
                .iter()
                .any(|op| p.match_indices(op).any(|(i, _)| i == 0 || !(p.as_bytes()[i - 1].is_ascii_alphanumeric())))
        });
        if over_ops && pats.iter().any(|p| is_catch_all(p)) {
            let line = src[..m].matches('\n').count() + 1;
            found.push(format!("{}:{line}", path.display()));
        }
    }
    found
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let test_file = name == "tests.rs" || name.ends_with("_tests.rs") || name.starts_with("tests_");
            if !test_file {
                out.push(p);
            }
        }
    }
}

#[test]
fn no_match_over_ops_has_a_catch_all_arm() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), ".."].iter().collect();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).expect("crates/").flatten() {
        rust_sources(&krate.path().join("src"), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable source");
        bad.extend(offenders(f.strip_prefix(&root).unwrap_or(f), &src));
    }
    assert!(bad.is_empty(), "matches over ops with a catch-all arm:\n{}", bad.join("\n"));
}

#[test]
fn the_scan_finds_catch_alls() {
    let flagged = |src: &str| offenders(Path::new("x.rs"), src).len();
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { match op { Opcode::Add => 1, _ => 2 } }"), 1);
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { match op.class() { OpClass::Const => { 1 } other => 2 } }"), 1);
    assert_eq!(flagged("fn f(k: IndexOp) -> u8 { match k { IndexOp::LaneId => 1, _ if true => 2 } }"), 1);
    // Exhaustive, or not over ops, or a wildcard inside a sub-pattern: not flagged.
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { match op { Opcode::Add => 1, Opcode::Sub => 2 } }"), 0);
    assert_eq!(flagged("fn f(t: Ty) -> u8 { match t { Ty::A => 1, _ => 2 } }"), 0);
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { match (op, 1) { (Opcode::Add, _) => 1, (Opcode::Sub, x) => x } }"), 0);
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { match (op, 1) { (Opcode::Add, _) => 1, (_, _) => 2 } }"), 1);
    // Braces in strings and comments do not confuse it.
    assert_eq!(flagged("fn f(op: Opcode) -> u8 { let s = \"{\"; match op { Opcode::Add => 1, // }\n _ => 2 } }"), 1);
}
