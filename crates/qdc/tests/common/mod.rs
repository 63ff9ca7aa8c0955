//! Helpers the qdc end-to-end test files share: running the `qdc` binary, its output as text,
//! whether an LLVM tool is installed, and per-test scratch directories.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `qdc` binary under test.
pub fn qdc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qdc")).args(args).output().expect("qdc runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// True when `tool --version` runs.
pub fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// A fresh scratch directory per test, removed when the test passes (kept for a look when it
/// fails).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("scratch files kept in {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The scratch directory of test `test` of the test file `group`.
pub fn scratch_in(group: &str, test: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("qdc-{group}-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    Scratch(dir)
}

/// A path as a `String` argument.
pub fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
