//! End-to-end tests of `qdc explain` and of `qdc compile --shuffle-lowering` on
//! `docs/examples/explain_shuffles.qdm` (shuffle_xor(1), shuffle_down(1) in tiles of 16, a
//! broadcast of lane 5 in tiles of 16, a reduce_add over the subgroup), for gfx942, gfx1100 wave64
//! and gfx1100 wave32:
//!
//! - the example's shuffles really are the patterns the doc says (the lane analysis classifies
//!   them; the interpreter checks their values in `explain_example_values`);
//! - text and JSON agree and have the promised structure: one block per recorded choice at the
//!   op's `.qdm` line, every candidate listed once, exactly one marked chosen, the bpermute
//!   baseline among them;
//! - under `auto` every chosen sequence costs at most the baseline's estimated cycles and uses no
//!   `ds_bpermute` (a register-only sequence exists for all four ops on every target);
//! - forcing `bpermute` picks the baseline everywhere; forcing a family a target lacks
//!   (`permlane` on gfx942) is an error pointing at the op's line, for `explain` and `compile`;
//! - docs/shuffle-lowering.md shows exactly what `qdc explain` prints for the example.
//!
//! Every op of the example records a choice: `EXPECTED` below must all appear, on every target.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

mod common;

use common::{qdc, stderr, stdout};

fn example() -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "..", "docs", "examples", "explain_shuffles.qdm"].iter().collect();
    p.to_string_lossy().into_owned()
}

/// (flags, architecture, lanes) of every target explained.
const TARGETS: [(&[&str], &str, u64); 3] = [
    (&["--target", "gfx942"], "gfx942", 64),
    (&["--target", "gfx1100"], "gfx1100", 64),
    (&["--target", "gfx1100", "--wave32"], "gfx1100", 32),
];

/// The example's subgroup ops: `.qdm` line, MIR op, and the start of the pattern the selector
/// must report (the `LanePattern` display for shuffles).
const EXPECTED: [(u64, &str, &str); 4] = [
    (11, "shuffle.xor", "xor 1"),
    (19, "shuffle.idx", "down 1 in tiles of 16"),
    (24, "shuffle.idx", "broadcast lane 5 in tiles of 16"),
    (25, "subgroup.reduce", "reduce over"),
];

/// The baseline candidate names of the selector's contract.
const BASELINES: [&str; 3] = ["bpermute", "bpermute halves", "bpermute ladder"];

fn run(extra: &[&str], flags: &[&str]) -> std::process::Output {
    let file = example();
    let mut args = vec!["explain", file.as_str()];
    args.extend_from_slice(flags);
    args.extend_from_slice(extra);
    qdc(&args)
}

/// `qdc explain --format json` parsed; panics with the output when it fails or is not JSON.
fn explain_json(flags: &[&str], lowering: &str) -> Value {
    let o = run(&["--format", "json", "--shuffle-lowering", lowering], flags);
    assert!(o.status.success(), "qdc explain {flags:?} failed:\n{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(&o)))
}

/// The choices of the one kernel of a JSON report, after checking its header.
fn choices(doc: &Value, arch: &str, lanes: u64, lowering: &str) -> Vec<Value> {
    assert_eq!(doc["file"].as_str(), Some(example().as_str()));
    assert_eq!(doc["target"].as_str(), Some(arch));
    assert_eq!(doc["wave"].as_u64(), Some(lanes));
    assert_eq!(doc["shuffle_lowering"].as_str(), Some(lowering));
    let kernels = doc["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0]["name"].as_str(), Some("explain_shuffles"));
    kernels[0]["choices"].as_array().expect("choices").clone()
}

/// Structure every choice must have, whatever was forced; returns (chosen, baseline) candidates.
fn check_choice(c: &Value, what: &str) -> (Value, Value) {
    let line = c["line"].as_u64().expect("line");
    let op = c["op"].as_str().expect("op");
    let &(_, exp_op, exp_pattern) =
        EXPECTED.iter().find(|e| e.0 == line).unwrap_or_else(|| panic!("{what}: a choice at line {line}: {c}"));
    assert!(op.starts_with(exp_op), "{what}: line {line} is `{exp_op}`, the choice says `{op}`");
    let source = c["source"].as_str().expect("source");
    assert!(source.contains(exp_op), "{what}: line {line}'s text is not the op's: {source}");
    let pattern = c["pattern"].as_str().expect("pattern");
    assert!(pattern.starts_with(exp_pattern), "{what}: line {line}: pattern `{pattern}`, want `{exp_pattern}…`");
    assert_eq!(c["type"].as_str(), Some("u32"), "{what}");
    let cands = c["candidates"].as_array().expect("candidates");
    assert!(!cands.is_empty(), "{what}: no candidate");
    let names: BTreeSet<&str> = cands.iter().map(|k| k["name"].as_str().expect("name")).collect();
    assert_eq!(names.len(), cands.len(), "{what}: a candidate listed twice: {names:?}");
    let marked: Vec<&Value> = cands.iter().filter(|k| k["chosen"].as_bool() == Some(true)).collect();
    assert_eq!(marked.len(), 1, "{what}: exactly one chosen candidate");
    assert_eq!(marked[0]["name"], c["chosen"], "{what}");
    for k in cands {
        let fam = k["family"].as_str().expect("family");
        assert!(["dpp", "permlane", "swizzle", "bpermute"].contains(&fam), "{what}: family {fam}");
        assert!(k["cycles"].as_u64().is_some() && k["insts"].as_u64().is_some(), "{what}: {k}");
        assert!(k["lds_ops"].as_u64().expect("lds_ops") <= k["insts"].as_u64().unwrap_or(0), "{what}: {k}");
    }
    let base_name = c["baseline"].as_str().unwrap_or_else(|| panic!("{what}: no bpermute baseline: {c}"));
    assert!(BASELINES.contains(&base_name), "{what}: baseline `{base_name}`");
    let base = cands.iter().find(|k| k["name"].as_str() == Some(base_name)).expect("baseline listed").clone();
    assert_eq!(base["family"].as_str(), Some("bpermute"), "{what}");
    (marked[0].clone(), base)
}

#[test]
fn the_example_shuffles_are_the_documented_patterns() {
    use qd_mir::analysis::lanes::{shuffle_pattern, LanePattern};
    let src = std::fs::read_to_string(example()).expect("example");
    let (m, map) = qd_mir::parse_module_with_map(&src).expect("parses");
    qd_mir::verify::verify_module(&m).expect("verifies");
    let f = &m.kernels[0];
    let at = |line: u32| {
        f.regions[f.body]
            .insts
            .iter()
            .copied()
            .find(|&i| map.line_of(0, qd_mir::AnyEntity::Inst(i)) == Some(line))
            .unwrap_or_else(|| panic!("no instruction at line {line}"))
    };
    for w in [32, 64] {
        assert_eq!(shuffle_pattern(f, at(11), w), LanePattern::Xor { mask: 1 });
        assert_eq!(shuffle_pattern(f, at(19), w), LanePattern::Down { delta: 1, tile: 16 });
        assert_eq!(shuffle_pattern(f, at(24), w), LanePattern::Broadcast { lane: 5, tile: 16 });
    }
    assert_eq!(f.insts[at(25)].opcode.name(), "subgroup.reduce");
}

#[test]
fn explain_example_values() {
    // Lane l of wave base b holds b+l; after the three shuffles every lane of a 16-lane tile with
    // base t holds t+7 (lane 5's down-1 partner is lane 6, whose xor-1 partner is lane 7); the
    // reduce sums 16 × (t+7) over the wave's tiles.
    let file = example();
    let o = qdc(&[
        "run",
        &file,
        "--kernel",
        "explain_shuffles",
        "--subgroup-size",
        "64",
        "--arg",
        "src=iota:u32:128",
        "--arg",
        "dst=zeros:u32:128",
        "--print",
        "dst",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = |base: u32| (0..4).map(|t| 16 * (base + 16 * t + 7)).sum::<u32>().to_string();
    let words: Vec<String> = stdout(&o).split_whitespace().take(128).map(str::to_string).collect();
    assert_eq!(words[..64], vec![want(0); 64][..]);
    assert_eq!(words[64..], vec![want(64); 64][..]);
}

#[test]
fn json_choices_have_a_chosen_candidate_no_dearer_than_the_bpermute_baseline() {
    for (flags, arch, lanes) in TARGETS {
        let doc = explain_json(flags, "auto");
        let cs = choices(&doc, arch, lanes, "auto");
        let lines: BTreeSet<u64> = cs.iter().map(|c| c["line"].as_u64().expect("line")).collect();
        assert_eq!(lines.len(), cs.len(), "{arch}/{lanes}: two choices at one line");
        let want: BTreeSet<u64> = EXPECTED.iter().map(|e| e.0).collect();
        assert_eq!(lines, want, "{arch}/{lanes}: every op of the example records a choice");
        for c in &cs {
            let what = format!("{arch} wave{lanes} line {}", c["line"]);
            let (chosen, base) = check_choice(c, &what);
            assert!(c["forced"].is_null(), "{what}");
            let (cc, bc) = (chosen["cycles"].as_u64().unwrap_or(0), base["cycles"].as_u64().unwrap_or(0));
            assert!(cc <= bc, "{what}: chosen {} ({cc} cycles) dearer than {} ({bc})", chosen["name"], base["name"]);
            // Every op of the example has a register-only sequence on every target.
            assert_ne!(chosen["family"].as_str(), Some("bpermute"), "{what}: chose {}", chosen["name"]);
            if cc < bc {
                let s = c["speedup"].as_f64().expect("speedup");
                assert!((s - bc as f64 / cc as f64).abs() < 1e-3, "{what}: speedup {s} for {cc} vs {bc}");
            }
        }
    }
}

#[test]
fn text_report_lists_the_same_choices_as_json() {
    for (flags, arch, lanes) in TARGETS {
        let o = run(&[], flags);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let header = text.lines().next().unwrap_or("");
        assert_eq!(
            header,
            format!(
                "; qdc explain {}: {arch} (wave{lanes}), shuffle lowering auto; cycles are the selector's estimates",
                example()
            )
        );
        let cs = choices(&explain_json(flags, "auto"), arch, lanes, "auto");
        let n = cs.len();
        let s = if n == 1 { "" } else { "s" };
        assert!(
            text.contains(&format!("\nkernel @explain_shuffles: {n} subgroup op{s} with a lowering choice\n")),
            "{text}"
        );
        // One block per choice, introduced by FILE:LINE: and the line's text, with one `*` row.
        let blocks: Vec<&str> = text.split(&format!("\n{}:", example())).skip(1).collect();
        assert_eq!(blocks.len(), n, "{text}");
        for (b, c) in blocks.iter().zip(&cs) {
            let line = c["line"].as_u64().expect("line");
            assert!(b.starts_with(&format!("{line}: {}\n", c["source"].as_str().unwrap_or(""))), "{b}");
            assert!(b.contains(&format!("\n  op: {} on u32\n", c["op"].as_str().unwrap_or(""))), "{b}");
            assert!(b.contains(&format!("\n  pattern: {}\n", c["pattern"].as_str().unwrap_or(""))), "{b}");
            let starred: Vec<&str> = b.lines().filter(|l| l.starts_with("  * ")).collect();
            assert_eq!(starred.len(), 1, "{b}");
            assert!(starred[0][4..].starts_with(c["chosen"].as_str().unwrap_or("?")), "{b}");
            for k in c["candidates"].as_array().expect("candidates") {
                let name = k["name"].as_str().unwrap_or("?");
                let cell = format!("{name}  ");
                let row = b
                    .lines()
                    .find(|l| l.get(4..).is_some_and(|r| r.starts_with(&cell)))
                    .unwrap_or_else(|| panic!("{name}: {b}"));
                let cols: Vec<&str> = row[4 + name.len()..].split_whitespace().collect();
                assert_eq!(
                    cols,
                    [
                        k["family"].as_str().unwrap_or("?").to_string(),
                        k["cycles"].to_string(),
                        k["insts"].to_string(),
                        k["lds_ops"].to_string()
                    ],
                    "{row}"
                );
            }
            assert!(b.contains("\n  chosen: "), "{b}");
        }
        if n == 0 {
            assert!(text.contains("(no shuffle, broadcast, reduction or scan of VGPR data"), "{text}");
        } else {
            assert!(text.contains("estimated cycles for the chosen sequences vs"), "{text}");
        }
    }
}

#[test]
fn forcing_bpermute_picks_the_baseline_everywhere() {
    for (flags, arch, lanes) in TARGETS {
        let cs = choices(&explain_json(flags, "bpermute"), arch, lanes, "bpermute");
        for c in &cs {
            let what = format!("{arch} wave{lanes} line {} forced bpermute", c["line"]);
            let (chosen, base) = check_choice(c, &what);
            assert_eq!(c["forced"].as_str(), Some("bpermute"), "{what}");
            assert_eq!(chosen["family"].as_str(), Some("bpermute"), "{what}");
            assert_eq!(chosen["name"], base["name"], "{what}");
        }
    }
}

/// `permlane` does not exist on gfx942: the first op the selector lowers is an error at its line.
#[test]
fn forcing_a_family_the_target_lacks_is_an_error_at_the_op_line() {
    let file = example();
    for cmd in ["explain", "compile"] {
        let o = qdc(&[cmd, &file, "--target", "gfx942", "--shuffle-lowering", "permlane"]);
        assert!(!o.status.success(), "qdc {cmd} forced permlane on gfx942 succeeded:\n{}", stdout(&o));
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert!(err.starts_with("error: kernel @explain_shuffles: cannot compile for gfx942: `"), "{err}");
        assert!(err.contains("`permlane`"), "{err}");
        // The op named in the message is on the line the arrow points at, under the caret.
        let op = err.split('`').nth(1).unwrap_or("");
        let (line, _, op_pattern) = *EXPECTED.iter().find(|e| e.1 == op).unwrap_or_else(|| panic!("op `{op}`: {err}"));
        assert!(EXPECTED.iter().any(|e| e.2 == op_pattern));
        assert!(err.contains(&format!("--> {file}:{line}:")), "{err}");
        let src_line = err.lines().find(|l| l.starts_with(&format!("{line} | "))).unwrap_or_else(|| panic!("{err}"));
        assert!(src_line.contains(op), "{err}");
        let caret = err.lines().skip_while(|l| !l.starts_with(&format!("{line} | "))).nth(1).unwrap_or("");
        let col = caret.find('^').unwrap_or(0);
        assert_eq!(&src_line[col..col + op.len()], op, "{err}");
    }
}

#[test]
fn bad_options_are_errors() {
    let file = example();
    for (args, want) in [
        (vec!["explain", &file, "--target", "gfx942", "--format", "yaml"], "--format yaml is not supported"),
        (vec!["explain", &file, "--target", "gfx942", "--shuffle-lowering", "lds"], "unknown shuffle lowering 'lds'"),
        (vec!["compile", &file, "--target", "gfx942", "--shuffle-lowering", "lds"], "unknown shuffle lowering 'lds'"),
        (vec!["explain", &file, "--target", "gfx942", "--kernel", "nope"], "no kernel @nope"),
        (vec!["explain", &file], "missing --target"),
    ] {
        let o = qdc(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}

/// docs/shuffle-lowering.md shows what `qdc explain` prints for the example (the section the
/// catalog example writes: `cargo run -p qd-benches --example shuffle_catalog -- --write-doc`).
#[test]
fn the_doc_shows_what_qdc_explain_prints() {
    let doc_path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "docs", "shuffle-lowering.md"].iter().collect();
    let doc = std::fs::read_to_string(&doc_path).expect("docs/shuffle-lowering.md");
    let (b, e) = ("<!-- BEGIN explain_example -->\n\n", "<!-- END explain_example -->");
    let start = doc.find(b).expect("the explain_example section") + b.len();
    let section = &doc[start..doc[start..].find(e).expect("its end") + start];
    let rel = "docs/examples/explain_shuffles.qdm";
    let repo: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    let mut want = String::new();
    for target in ["gfx942", "gfx1100"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_qdc"))
            .args(["explain", rel, "--target", target])
            .current_dir(&repo)
            .output()
            .expect("qdc runs");
        assert!(o.status.success(), "{}", stderr(&o));
        want.push_str(&format!("```text\n$ qdc explain {rel} --target {target}\n{}```\n\n", stdout(&o)));
    }
    assert_eq!(
        section, want,
        "docs/shuffle-lowering.md is stale: run `cargo run -p qd-benches --example shuffle_catalog -- --write-doc`"
    );
}
