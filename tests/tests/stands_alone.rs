//! The repository stands alone: no doc comment, doc page, script or test names a file outside it.
//!
//! The walk covers `crates/`, `docs/`, `benches/`, `tests/`, `scripts/`, `fuzz/` and `README.md`
//! (build outputs under `target/`, hidden directories and insta `snapshots/` directories are not
//! read, nor are files that are not UTF-8 text). A line fails when it
//!
//! * names one of the project's private notes or planning files ([`OUTSIDE`]), or
//! * mentions a `<name>.md` file that does not exist in the repository: a bare name must be the name
//!   of some file in the walked tree; a name with a directory part must resolve from the repository
//!   root or from the mentioning file's directory. Web addresses are not file mentions.
//!
//! Facts the code relies on belong in the repository's own `docs/` pages, which the code cites.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// What the repository is walked for (relative to its root).
const ROOTS: &[&str] = &["crates", "docs", "benches", "tests", "scripts", "fuzz", "README.md"];

/// Text that always names something outside the repository: the private notes and the planning
/// files. Spelled in pieces so that this file does not name them itself.
const OUTSIDE: &[&str] = &[
    concat!("CONTR", "ACTS"),
    concat!("plan", "/"),
    concat!("shared", "/docs"),
    concat!("..", "/shared"),
    concat!("DESIGN", ".md"),
    concat!("test-oracles", ".md"),
    concat!("ptx-spirv-runtime", ".md"),
    concat!("style-anchors", ".md"),
    concat!("quadrants-api", ".md"),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// `path` relative to `root`, with `/` separators.
fn rel(root: &Path, path: &Path) -> String {
    let r = path.strip_prefix(root).unwrap_or(path);
    r.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

fn skipped_dir(name: &str) -> bool {
    name == "target" || name == "snapshots" || name.starts_with('.')
}

/// Every file under `path` (or `path` itself), skipping build outputs, hidden and snapshot
/// directories.
fn walk(path: &Path, out: &mut Vec<PathBuf>) {
    let Ok(meta) = fs::symlink_metadata(path) else { return };
    if meta.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    if !meta.is_dir() {
        return;
    }
    let mut entries: Vec<_> = fs::read_dir(path).expect("readable directory").filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if p.is_dir() && skipped_dir(&name) {
            continue;
        }
        walk(&p, out);
    }
}

/// The `<name>.md` mentions of a line: maximal runs of path characters ending in `.md` (and not
/// continuing with a name character), each with whether it is part of a web address.
fn md_mentions(line: &str) -> Vec<(String, bool)> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(pos) = line[search..].find(".md") {
        let end = search + pos + 3;
        search = end;
        if bytes.get(end).is_some_and(|&b| (b as char).is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            continue;
        }
        let mut start = end - 3;
        while start > 0 && is_path(bytes[start - 1] as char) {
            start -= 1;
        }
        let name = line[start..end].trim_start_matches('/');
        // `.md` alone (the extension, not a file) is not a mention.
        if name.rsplit('/').next().is_some_and(|b| b.trim_start_matches('.') == "md") {
            continue;
        }
        // A web address: the run follows `scheme:` (`https://host/…/NAME.md`).
        let before = &line[..start];
        let url = before.ends_with(':') || before.rsplit(char::is_whitespace).next().is_some_and(|w| w.contains("://"));
        out.push((name.to_string(), url));
    }
    out
}

/// Whether the mention `name` (from the file `from`) names a file in the repository.
fn exists(root: &Path, from: &Path, names: &HashSet<String>, name: &str) -> bool {
    if !name.contains('/') {
        return names.contains(name);
    }
    let dir = from.parent().unwrap_or(root);
    let stripped = name.trim_start_matches("./");
    root.join(stripped).is_file() || dir.join(name).is_file()
}

/// The offending lines of the walked tree, as `path:line: reason`.
fn violations(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), &mut files);
    }
    // Every file name in the repository (for bare `<name>.md` mentions), the skipped directories
    // included: a mention of a snapshot is still a mention of a file that exists.
    let mut all = Vec::new();
    walk_all(root, &mut all);
    let names: HashSet<String> =
        all.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();

    let mut bad = Vec::new();
    for f in &files {
        let rp = rel(root, f);
        let Ok(text) = fs::read_to_string(f) else { continue };
        for (i, line) in text.lines().enumerate() {
            for pat in OUTSIDE {
                if line.contains(pat) {
                    bad.push(format!("{rp}:{}: names `{pat}`, outside the repository: {}", i + 1, line.trim()));
                }
            }
            for (name, url) in md_mentions(line) {
                if !url && !exists(root, f, &names, &name) {
                    bad.push(format!("{rp}:{}: `{name}` is not a file of the repository: {}", i + 1, line.trim()));
                }
            }
        }
    }
    bad
}

/// Every file of the repository except build outputs and git's own directory.
fn walk_all(path: &Path, out: &mut Vec<PathBuf>) {
    let Ok(meta) = fs::symlink_metadata(path) else { return };
    if meta.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    if !meta.is_dir() {
        return;
    }
    for e in fs::read_dir(path).expect("readable directory").filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "target" || name == ".git" {
            continue;
        }
        walk_all(&e.path(), out);
    }
}

#[test]
fn no_file_outside_the_repository_is_named() {
    let root = repo_root();
    let bad = violations(&root);
    assert!(
        bad.is_empty(),
        "{} line(s) name files outside the repository; state the fact in a page under docs/ and cite \
         that page instead:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_must() {
    // Outside names, in pieces as above.
    let design = concat!("see DESIGN", ".md §7");
    assert!(OUTSIDE.iter().any(|p| design.contains(p)));
    // `<name>.md` mentions: bare, with directories, in backticks and links; web addresses flagged.
    let line = concat!(
        "cites `docs/mir",
        ".md` and [x](../docs/a-b_c",
        ".md#s), not https://example.org/n",
        ".md; ",
        "README",
        ".md, ",
        "x",
        ".mdx"
    );
    let got = md_mentions(line);
    let names: Vec<(&str, bool)> = got.iter().map(|(n, u)| (n.as_str(), *u)).collect();
    assert_eq!(
        names,
        [
            (concat!("docs/mir", ".md"), false),
            (concat!("../docs/a-b_c", ".md"), false),
            (concat!("example.org/n", ".md"), true),
            (concat!("README", ".md"), false),
        ]
    );
    // Existence: bare names anywhere, paths from the root or the mentioning file.
    let root = repo_root();
    let names: HashSet<String> = [concat!("mir", ".md").to_string()].into_iter().collect();
    let from = root.join("crates/qd-lib/src/lib.rs");
    assert!(exists(&root, &from, &names, concat!("mir", ".md")));
    assert!(!exists(&root, &from, &names, concat!("nowhere", ".md")));
    assert!(exists(&root, &from, &names, concat!("docs/mir", ".md")));
    assert!(exists(&root, &from, &names, concat!("../../../docs/mir", ".md")));
    assert!(!exists(&root, &from, &names, concat!("docs/nowhere", ".md")));
}
