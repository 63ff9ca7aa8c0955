//! `qdc check` renders verifier errors rustc-style at the user's own line and column of the
//! `.qdm` file, with the file's own value names — in every kernel of a multi-kernel file.

use std::process::Command;

fn check(name: &str, text: &str) -> (Option<i32>, String, String) {
    let dir = std::env::temp_dir().join(format!("qdc-check-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    let path = p.to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_qdc")).args(["check", &path]).output().expect("qdc runs");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), path)
}

const TWO_KERNELS: &str = "\
kernel @fine(%out: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %tid = thread_id x : u32
  %p = ptr.offset %out, %tid : ptr<global, u32>
  store %p, %tid
  return
}

kernel @broken(%out: ptr<global, u32>, %scale: f32) block(32, 1, 1) grid(1, 1, 1) {
  %tid = thread_id x : u32
  %sum = add %tid, %scale : u32
  %zero = const 0 : u32
  %first = cmp eq %tid, %zero : bool
  if %first {
    block.sync
    yield
  }
  return
}
";

#[test]
fn errors_of_the_second_kernel_point_into_its_lines_with_its_names() {
    let (code, err, path) = check("two_kernels.qdm", TWO_KERNELS);
    assert_eq!(code, Some(1), "{err}");
    let type_error = format!(
        "error: kernel @broken: add: operand 2 has type f32, expected u32 (operand 2 is %scale)\n\
         \x20 --> {path}:10:10\n\
         \x20  |\n\
         10 |   %sum = add %tid, %scale : u32\n\
         \x20  |          ^^^\n"
    );
    assert!(err.contains(&type_error), "{err}");
    // The barrier in divergent control flow: at `block.sync` on line 14, naming `%first`.
    let barrier = format!("\x20 --> {path}:14:5\n   |\n14 |     block.sync\n   |     ^^^^^^^^^^\n");
    assert!(err.contains(&barrier), "{err}");
    let barrier_msg = err.lines().find(|l| l.contains("block.sync")).unwrap_or("");
    assert!(barrier_msg.starts_with("error: kernel @broken:") && barrier_msg.contains("%first"), "{err}");
    // Nothing points into the first kernel, and nothing uses the printer's renumbered names.
    assert!(!err.contains("@fine"), "{err}");
    assert!(!err.contains(":2:") && !err.contains(":3:") && !err.contains(":4:"), "{err}");
    assert!(!err.contains("%1") && !err.contains("%0"), "{err}");
    assert!(err.trim_end().ends_with(&format!("error: {path}: 2 verifier errors")), "{err}");
}

#[test]
fn program_errors_point_at_the_program() {
    let text = "\
kernel @k(%n: u32) block(32, 1, 1) grid(1, 1, 1) {
  return
}

program @p(%x: f32) {
  launch @k(%x)
}
";
    let (code, err, path) = check("program.qdm", text);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error: program @p: launch 0 of @k:"), "{err}");
    assert!(err.contains(&format!(" --> {path}:5:1\n  |\n5 | program @p(%x: f32) {{\n  | ^^^^^^^\n")), "{err}");
}

#[test]
fn a_name_used_twice_points_at_the_second_definition() {
    let one = "kernel @k(%out: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {\n  return\n}\n";
    let (code, err, path) = check("twice.qdm", &format!("{one}\n{one}"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("kernel @k: name already used"), "{err}");
    assert!(err.contains(&format!("--> {path}:5:1")), "the caret is not under the duplicate:\n{err}");
}
