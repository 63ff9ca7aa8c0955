//! The documentation is up to date with the code: `docs/amdgcn-instructions.md` must equal what
//! `reference::instruction_reference` renders now, the generated blocks of `docs/amdgcn.md`
//! (between `<!-- BEGIN generated: NAME -->` and `<!-- END generated: NAME -->`) must equal the op
//! counts of the table and the line counts of the golden files, and the page's example program
//! (`examples/assemble.rs`) must run. On a mismatch the tests print how to regenerate.

#[path = "../examples/assemble.rs"]
mod assemble;

use qd_amdgcn_isa::reference::{instruction_reference, support_summary};
use qd_amdgcn_isa::Op;

const REGENERATE: &str = "cargo run -p qd-amdgcn-isa --example gen_instruction_doc > docs/amdgcn-instructions.md";

fn docs_file(name: &str) -> (String, String) {
    let path = format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (path, text)
}

/// The first differing line of two texts, for the failure message.
fn first_difference(committed: &str, fresh: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), fresh.lines().collect());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied(), b.get(i).copied());
        if x != y {
            return format!("line {}:\n  committed: {x:?}\n  generated: {y:?}", i + 1);
        }
    }
    "(only line endings differ)".into()
}

#[test]
fn instruction_reference_is_up_to_date() {
    let (path, committed) = docs_file("amdgcn-instructions.md");
    let fresh = instruction_reference();
    assert!(
        committed == fresh,
        "docs/amdgcn-instructions.md ({path}) is stale; regenerate it with\n\n    {REGENERATE}\n\nfirst difference at {}",
        first_difference(&committed, &fresh)
    );
}

#[test]
fn instruction_reference_lists_every_op_once() {
    let doc = instruction_reference();
    for &op in Op::ALL {
        let cell = format!("| `{op:?}` |");
        assert_eq!(doc.matches(&cell).count(), 1, "{op:?} should have exactly one row");
    }
}

/// Asserts that the block `name` of docs/amdgcn.md holds exactly `fresh`.
fn generated_block_is(name: &str, fresh: &str) {
    let (path, text) = docs_file("amdgcn.md");
    let begin = format!("<!-- BEGIN generated: {name} -->\n");
    let end = format!("<!-- END generated: {name} -->");
    let start = text.find(&begin).unwrap_or_else(|| panic!("{path}: no `{}` marker", begin.trim())) + begin.len();
    let stop = text[start..].find(&end).unwrap_or_else(|| panic!("{path}: no `{end}` marker")) + start;
    assert!(
        text[start..stop] == *fresh,
        "the `{name}` block of docs/amdgcn.md is stale; replace the lines between its markers with\n\n{fresh}"
    );
}

#[test]
fn user_guide_op_counts_are_up_to_date() {
    generated_block_is("support summary", &support_summary());
}

#[test]
fn user_guide_golden_counts_are_up_to_date() {
    let files = [
        ("gfx90a.txt", "gfx90a"),
        ("gfx942.txt", "gfx942"),
        ("gfx1100.txt", "gfx1100 (wave64)"),
        ("gfx1100-wave32.txt", "gfx1100 (wave32)"),
    ];
    let mut table = String::from("| golden file | target | lines |\n|---|---|---:|\n");
    let mut total = 0;
    for (file, target) in files {
        let path = format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).count();
        total += lines;
        table.push_str(&format!("| `tests/golden/{file}` | {target} | {lines} |\n"));
    }
    table.push_str(&format!("| **all** | | **{total}** |\n"));
    generated_block_is("golden counts", &table);
}

#[test]
fn the_pages_example_runs() {
    assemble::main().unwrap_or_else(|e| panic!("examples/assemble.rs: {e}"));
}
