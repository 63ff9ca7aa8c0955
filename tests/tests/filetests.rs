//! The filetest harness: every `filetests/**/*.qdm` runs the commands its `; test:` lines name
//! (see `qd_tests::directives`). Text a human reviews (printed MIR) is snapshotted with insta;
//! numbers (`; run:` results) and verifier errors are asserted.
//!
//! With `QD_TEST_CUDA=1` every `; run:` line is also cross-checked on `cuda:0` against the
//! interpreter at subgroup width 32 (`qd_tests::crosscheck`; `QD_CROSSCHECK_DEVICE=SPEC` picks
//! another device), with a summary line
//! `cuda filetests: N matched, M skipped (expected fault), K failed`.

use qd_mir::interp::{run_kernel, run_program, ArgValue, RunConfig};
use qd_mir::passes::{run_pipeline, Pass, PassOptions};
use qd_mir::text::{parse_module_with_map, print_module};
use qd_mir::verify::{verify_function, verify_module};
use qd_mir::{AnyEntity, Module};
use qd_tests::directives::{self, Expect, RunLine};
use qdc::spec::{format_buffer, parse_spec};
use std::path::Path;

fn verify_all(m: &Module) -> Result<(), String> {
    verify_module(m).map_err(|e| e.to_string())
}

/// Runs one `; run:` line: the printed buffers on success, nothing when the expected fault
/// happened.
fn execute(m: &Module, run: &RunLine) -> Result<Vec<(String, String)>, String> {
    let (names, mut args) = qd_tests::crosscheck::run_args(m, run)?;
    let cfg = RunConfig {
        subgroup_size: run.subgroup_size,
        grid: run.grid,
        block: run.block,
        step_limit: Some(50_000_000),
        declared_width: false,
    };
    let result = if run.program {
        let p = m.program(&run.target).ok_or("no program")?;
        run_program(m, p, &cfg, &mut args)
    } else {
        let k = m.kernel(&run.target).ok_or("no kernel")?;
        run_kernel(k, &cfg, &mut args)
    };
    match (&run.expect, result) {
        (Expect::Fault(want), Err(e)) => {
            let msg = e.to_string();
            if msg.contains(want.as_str()) {
                Ok(Vec::new())
            } else {
                Err(format!("expected fault containing '{want}', got: {msg}"))
            }
        }
        (Expect::Fault(want), Ok(_)) => Err(format!("expected fault containing '{want}', but the run succeeded")),
        (Expect::Buffers(_), Err(e)) => Err(format!("run failed: {e}")),
        (Expect::Buffers(_), Ok(_)) => Ok(names
            .iter()
            .zip(&args)
            .filter_map(|(n, a)| match a {
                ArgValue::Buffer(b) => Some((n.clone(), format_buffer(b))),
                ArgValue::Scalar(..) => None,
            })
            .collect()),
    }
}

fn expected_text(spec: &str) -> Result<String, String> {
    if let Some(list) = spec.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        return Ok(list.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    match parse_spec(spec)? {
        ArgValue::Buffer(b) => Ok(format_buffer(&b)),
        ArgValue::Scalar(..) => Err(format!("expected value '{spec}' must be a buffer")),
    }
}

fn check_runs(m: &Module, runs: &[RunLine], path: &Path, what: &str) -> Vec<Vec<(String, String)>> {
    let mut all = Vec::new();
    for run in runs {
        let got = execute(m, run).unwrap_or_else(|e| panic!("{}:{} ({what}): {e}", path.display(), run.line));
        if let Expect::Buffers(want) = &run.expect {
            for (name, spec) in want {
                let actual = got.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone());
                let actual = actual.unwrap_or_else(|| panic!("{}:{}: no buffer %{name}", path.display(), run.line));
                let expected = expected_text(spec).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), run.line));
                assert_eq!(actual, expected, "{}:{} ({what}): buffer %{name}", path.display(), run.line);
            }
        }
        all.push(got);
    }
    all
}

fn check_verify(src: &str, path: &Path) {
    let d = directives::parse(src).unwrap();
    let (m, map) =
        parse_module_with_map(src).unwrap_or_else(|e| panic!("{}", e.render(src, &path.display().to_string())));
    let mut got: Vec<(u32, String)> = Vec::new();
    for (ki, k) in m.kernels.iter().enumerate() {
        if let Err(errs) = verify_function(k) {
            for e in &errs.0 {
                let line = map.line_of(ki, e.location).or_else(|| map.line_of(ki, AnyEntity::Function)).unwrap_or(0);
                got.push((line, e.message.clone()));
            }
        }
    }
    if got.is_empty() {
        if let Err(e) = verify_module(&m) {
            for msg in e.program_errors() {
                got.push((0, msg));
            }
        }
    }
    for (line, want) in &d.errors {
        assert!(
            got.iter().any(|(l, msg)| l == line && msg.contains(want.as_str())),
            "{}:{line}: expected a verifier error containing '{want}' at this line; got {got:#?}",
            path.display()
        );
    }
    for (line, msg) in &got {
        assert!(
            d.errors.iter().any(|(l, want)| l == line && msg.contains(want.as_str())),
            "{}:{line}: unexpected verifier error: {msg}",
            path.display()
        );
    }
}

fn run_file(path: &Path) {
    let src = std::fs::read_to_string(path).unwrap();
    let d = directives::parse(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!d.tests.is_empty(), "{}: no `; test:` line", path.display());
    let shown = path.display().to_string();
    for test in &d.tests {
        let mut words = test.split_whitespace();
        let cmd = words.next().unwrap_or_default();
        match cmd {
            "parse" => {
                let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &shown)));
                let printed = print_module(&m);
                let again = qd_mir::parse_module(&printed)
                    .unwrap_or_else(|e| panic!("reparse: {}", e.render(&printed, &shown)));
                assert_eq!(print_module(&again), printed, "{shown}: print(parse(x)) is not a fixed point");
                insta::assert_snapshot!("parse", printed);
            }
            "verify" => check_verify(&src, path),
            "interp" => {
                let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &shown)));
                verify_all(&m).unwrap_or_else(|e| panic!("{shown}: {e}"));
                assert!(!d.runs.is_empty(), "{shown}: interp test without `; run:` lines");
                check_runs(&m, &d.runs, path, "interp");
            }
            "opt" => {
                let mut m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &shown)));
                verify_all(&m).unwrap_or_else(|e| panic!("{shown}: {e}"));
                let mut passes = Vec::new();
                let mut opts = PassOptions::default();
                for w in words {
                    if let Some(n) = w.strip_prefix("width=") {
                        opts.subgroup_width = Some(n.parse().expect("width=N"));
                    } else {
                        for p in w.split(',') {
                            passes.push(Pass::from_name(p).unwrap_or_else(|| panic!("{shown}: unknown pass {p}")));
                        }
                    }
                }
                opts.verify = Some(qd_mir::passes::verify_hook);
                let before = check_runs(&m, &d.runs, path, "before opt");
                for k in &mut m.kernels {
                    run_pipeline(k, &passes, &opts).unwrap_or_else(|e| panic!("{shown}: {e}"));
                }
                verify_all(&m).unwrap_or_else(|e| panic!("{shown}: after opt: {e}"));
                let after = check_runs(&m, &d.runs, path, "after opt");
                assert_eq!(before, after, "{shown}: passes changed run results");
                insta::assert_snapshot!(format!("opt-{}", test.replace([' ', ',', '='], "_")), print_module(&m));
            }
            other => panic!("{shown}: unknown test command '{other}'"),
        }
    }
}

#[test]
fn filetests() {
    // Every file runs even when an earlier one fails; the failures are listed together at the end.
    let mut failures: Vec<String> = Vec::new();
    let device = qd_tests::crosscheck::device_from_env();
    let mut tally = qd_rt::crosscheck::Tally::default();
    insta::glob!("../filetests", "**/*.qdm", |path| {
        if let Some(dev) = &device {
            let src = std::fs::read_to_string(path).unwrap_or_default();
            qd_tests::crosscheck::file(&src, path, dev, &mut tally);
        }
        if let Err(payload) = std::panic::catch_unwind(|| run_file(path)) {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic without a message".into());
            failures.push(format!("--- {}\n{msg}", path.display()));
        }
    });
    match &device {
        Some(dev) => {
            let label = format!("{} filetests", dev.info().kind.name());
            println!("{}", tally.summary(&label));
            eprintln!("{}", tally.summary(&label));
            if !tally.failures.is_empty() {
                failures.push(format!(
                    "--- {label} cross-check ({}):\n{}",
                    dev.info().spec(),
                    tally.failures.join("\n")
                ));
            }
        }
        None => eprintln!("cuda filetests: skipped (set QD_TEST_CUDA=1 to cross-check every run line on cuda:0)"),
    }
    assert!(failures.is_empty(), "{} filetest(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn enough_filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "qdm") {
                count += 1;
            }
        }
    }
    assert!(count >= 40, "only {count} filetests");
}
