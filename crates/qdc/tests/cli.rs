//! End-to-end tests of the `qdc` binary: the commands the README and the issue promise, with their
//! exact output and exit status.

use std::path::PathBuf;
use std::process::{Command, Output};

fn qdc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qdc")).args(args).output().expect("qdc runs")
}

fn example(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "docs", "examples", name].iter().collect();
    p.to_string_lossy().into_owned()
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("qdc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p.to_string_lossy().into_owned()
}

#[test]
fn run_scan_at_three_subgroup_widths() {
    let scan = example("scan.qdm");
    for width in [8u32, 32, 64] {
        let out = qdc(&[
            "run",
            &scan,
            "--kernel",
            "scan",
            "--subgroup-size",
            &width.to_string(),
            "--arg",
            "src=fill:u32:64:1",
            "--arg",
            "dst=zeros:u32:64",
            "--print",
            "dst",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let want: Vec<String> = (0..64).map(|i| (i % width + 1).to_string()).collect();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want.join(" "), "width {width}");
    }
}

#[test]
fn check_reports_a_type_error_at_its_line() {
    let f = temp_file(
        "type_error.qdm",
        "kernel @k(%a: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {\n  %0 = thread_id x : u32\n  %1 = const 1.5 : f32\n  %2 = add %0, %1 : u32\n  return\n}\n",
    );
    let out = qdc(&["check", &f]);
    assert_eq!(out.status.code(), Some(1));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // At the op of line 4, the file's own names.
    let want = format!(
        "error: kernel @k: add: operand 2 has type f32, expected u32 (operand 2 is %1)\n --> {f}:4:8\n  |\n4 |   %2 = add %0, %1 : u32\n  |        ^^^\n"
    );
    assert!(text.contains(&want), "{text}");
    assert!(text.contains("1 verifier error"), "{text}");
}

#[test]
fn check_reports_a_parse_error_with_a_caret() {
    let f =
        temp_file("parse_error.qdm", "kernel @k() block(1, 1, 1) grid(1, 1, 1) {\n  %0 = const 5 : u33\n  return\n}\n");
    let out = qdc(&["check", &f]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: expected type, found `u33`"), "{err}");
    assert!(err.contains(":2:18\n"), "{err}");
    assert!(err.contains("2 |   %0 = const 5 : u33\n  |                  ^^^"), "{err}");
}

#[test]
fn fmt_prints_canonical_text_and_check_accepts_it() {
    let scan = example("scan.qdm");
    let out = qdc(&["fmt", &scan]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("kernel @scan("), "{text}");
    let f = temp_file("formatted.qdm", &text);
    assert!(qdc(&["fmt", &f, "--check"]).status.success());
    assert!(qdc(&["check", &f]).status.success());
}

#[test]
fn run_reports_faults_and_bad_arguments() {
    let scan = example("scan.qdm");
    let out = qdc(&["run", &scan, "--kernel", "scan", "--arg", "src=fill:u32:10:1", "--arg", "dst=zeros:u32:64"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("out of bounds"), "{err}");
    let out = qdc(&["run", &scan, "--kernel", "scan", "--arg", "src=fill:u32:64:1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing --arg dst=SPEC"));
}

#[test]
fn demo_prints_verified_sums() {
    let out = qdc(&["demo", "--subgroup-size", "64"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("subgroup.reduce add"), "{text}");
    assert!(text.contains("all 64 sums match the plain-Rust reference"), "{text}");
}

#[test]
fn compile_for_vulkan_emits_spvasm_and_spv() {
    let scan = example("scan.qdm");
    for env in ["vulkan1.1", "vulkan1.2", "vulkan1.3"] {
        let out = qdc(&["compile", &scan, "--target", env, "--emit", "spvasm"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let version = match env {
            "vulkan1.1" => "; Version: 1.3",
            "vulkan1.2" => "; Version: 1.5",
            _ => "; Version: 1.6",
        };
        assert!(text.contains(version), "{text}");
        assert!(text.contains("OpEntryPoint GLCompute %1 \"main\""), "{text}");
        assert!(text.contains("OpExecutionMode %1 LocalSize 64 1 1"), "{text}");
        assert!(text.contains("OpGroupNonUniformIAdd"), "{text}");
    }
    let spv = std::env::temp_dir().join(format!("qdc-cli-{}-scan.spv", std::process::id()));
    let spv_s = spv.to_string_lossy().into_owned();
    let out = qdc(&["compile", &scan, "--target", "vulkan1.2", "--emit", "spv", "-o", &spv_s]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&spv).expect("spv written");
    assert_eq!(bytes.len() % 4, 0);
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
    assert_eq!(&bytes[4..8], &0x0001_0500u32.to_le_bytes());
    if let Ok(v) = Command::new("spirv-val").args(["--target-env", "vulkan1.2", &spv_s]).output() {
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    }
    let _ = std::fs::remove_file(&spv);
}

#[test]
fn compile_for_vulkan_reports_bad_requests() {
    let two = temp_file(
        "two_kernels.qdm",
        "kernel @a() block(8, 1, 1) grid(1, 1, 1) {\n  return\n}\nkernel @b() block(8, 1, 1) grid(1, 1, 1) {\n  return\n}\n",
    );
    let out = qdc(&["compile", &two, "--target", "vulkan1.1", "--emit", "spv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pick one with --kernel NAME"));
    let out = qdc(&["compile", &two, "--target", "vulkan1.1", "--emit", "spv", "--kernel", "b"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = qdc(&["compile", &two, "--target", "vulkan1.4", "--emit", "spv"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown target 'vulkan1.4'"));
    let out = qdc(&["compile", &two, "--target", "vulkan1.1", "--emit", "ptx"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--emit ptx is not supported for vulkan1.1"));
    // A width the kernel was not built for is a compile error naming both.
    let w16 = temp_file("w16.qdm", "kernel @k() block(16, 1, 1) grid(1, 1, 1) subgroup(16) {\n  return\n}\n");
    let out = qdc(&["compile", &w16, "--target", "vulkan1.3", "--emit", "spvasm", "--subgroup-size", "8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("subgroup(16)") && err.contains("vulkan1.3") && err.contains("8 lanes"), "{err}");
}

#[test]
fn compile_errors_point_at_the_op_on_its_line() {
    let src = "kernel @r(%a: ptr<global, f32>) block(32, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %a, %t : ptr<global, f32>
  %v = load %p : f32
  %s = subgroup.reduce add %v : f32
  store %p, %s
  return
}
";
    let file = temp_file("reduce_f32.qdm", src);
    // PTX: `redux.sync` has no f32 form.
    let out = qdc(&["compile", &file, "--target", "sm_90", "--reduce", "redux"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: kernel @r: cannot compile for sm_90: `subgroup.reduce` on f32: "), "{err}");
    assert!(
        err.ends_with(&format!(
            " --> {file}:5:8\n  |\n5 |   %s = subgroup.reduce add %v : f32\n  |        ^^^^^^^^^^^^^^^\n"
        )),
        "{err}"
    );
    // SPIR-V: the forced group arithmetic has no exact f32 reduction.
    let out = qdc(&["compile", &file, "--target", "vulkan1.1", "--emit", "spvasm", "--reduce", "group"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: kernel @r: cannot compile for vulkan1.1: `subgroup.reduce` on f32: "), "{err}");
    assert!(err.contains(&format!(" --> {file}:5:8\n")), "{err}");
}
