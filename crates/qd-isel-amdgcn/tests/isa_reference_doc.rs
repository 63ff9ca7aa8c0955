//! The generated documentation is up to date with the table: `docs/amdgcn-instructions.md` must
//! equal what `isa::reference::instruction_reference` renders now. On a mismatch the test prints
//! the command that regenerates it.

use qd_isel_amdgcn::isa::reference::instruction_reference;
use qd_isel_amdgcn::isa::Op;

const REGENERATE: &str = "cargo run -p qd-isel-amdgcn --example gen_instruction_doc > docs/amdgcn-instructions.md";

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
