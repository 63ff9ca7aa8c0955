//! `qdc devices` and `qdc run --device vulkan[:N]`: the device list names each Vulkan device (or
//! why there is none), a run on lavapipe prints the same buffer as the interpreter at the device's
//! subgroup width, and a missing device or a bad ordinal is a clear error with exit status 1.
//! With `QD_REQUIRE_VULKAN=1` a machine without a Vulkan device fails instead of checking the
//! error path.

use std::path::PathBuf;
use std::process::{Command, Output};

fn qdc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qdc")).args(args).output().expect("qdc runs")
}

fn example(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "docs", "examples", name].iter().collect();
    p.to_string_lossy().into_owned()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn vulkan_width() -> Option<u32> {
    match qd_rt::Device::vulkan(0) {
        Ok(d) => Some(d.info().subgroup_width),
        Err(e) if std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("QD_REQUIRE_VULKAN=1 but vulkan:0 cannot be opened: {e}")
        }
        Err(_) => None,
    }
}

#[test]
fn devices_lists_vulkan_or_why_not() {
    let out = qdc(&["devices"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    match vulkan_width() {
        Some(w) => {
            let line = s.lines().find(|l| l.starts_with("vulkan:0 ")).unwrap_or_else(|| panic!("{s}"));
            assert!(line.contains(&format!("subgroup size {w}")), "{line}");
            assert!(!s.contains("vulkan: not available"), "{s}");
        }
        None => assert!(s.contains("vulkan: not available: "), "{s}"),
    }
}

#[test]
fn run_on_vulkan() {
    let scan = example("scan.qdm");
    let args =
        ["run", &scan, "--kernel", "scan", "--arg", "src=fill:u32:64:1", "--arg", "dst=zeros:u32:64", "--print", "dst"];
    let mut vk = args.to_vec();
    vk.extend(["--device", "vulkan"]);
    let out = qdc(&vk);
    let Some(w) = vulkan_width() else {
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains("error: --device vulkan: "), "{}", text(&out.stderr));
        return;
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    // An inclusive scan of ones restarts at every subgroup: 1..=w, then again.
    let want: Vec<String> = (0..64).map(|i| (i % w + 1).to_string()).collect();
    assert!(text(&out.stdout).starts_with(&want.join(" ")), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("ran on vulkan:0"), "{}", text(&out.stderr));
    // The same on the interpreter at that width.
    let mut cpu = args.to_vec();
    let spec = format!("cpu:{w}");
    cpu.extend(["--device", &spec]);
    let on_cpu = qdc(&cpu);
    assert_eq!(text(&on_cpu.stdout), text(&out.stdout));
    // --subgroup-size must be the device's own.
    let mut clash = vk.clone();
    let other = (w * 2).to_string();
    clash.extend(["--subgroup-size", &other]);
    let out = qdc(&clash);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("conflicts with --device vulkan"), "{}", text(&out.stderr));
    // A bad ordinal or spec.
    let mut bad = args.to_vec();
    bad.extend(["--device", "vulkan:42"]);
    let out = qdc(&bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no Vulkan device 42"), "{}", text(&out.stderr));
    let mut bad = args.to_vec();
    bad.extend(["--device", "vulkan:x"]);
    let out = qdc(&bad);
    assert!(text(&out.stderr).contains("the ordinal must be a number"), "{}", text(&out.stderr));
}
