//! `qdc compile --emit ptx`, `qdc devices` and `qdc run --device`: the PTX names the entry and
//! the target, the device list has the cpu device, and cuda without a driver is a clear error.

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

#[test]
fn compile_emits_ptx() {
    let out = qdc(&["compile", &example("scan.qdm"), "--target", "sm_80", "--emit", "ptx", "--kernel", "scan"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ptx = text(&out.stdout);
    assert!(ptx.contains(".entry scan"), "{ptx}");
    assert!(ptx.contains(".target sm_80"), "{ptx}");
    assert!(!ptx.contains("// ---- kernel"), "one kernel: no separator");
    // Every kernel: one module each, after a separator line; -o writes a file.
    let dir = std::env::temp_dir().join(format!("qdc-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("all.ptx");
    let out = qdc(&[
        "compile",
        &example("scan.qdm"),
        "--target",
        "sm_90",
        "-o",
        file.to_str().unwrap(),
        "--reduce",
        "shuffle",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = std::fs::read_to_string(&file).unwrap();
    assert!(all.starts_with("// ---- kernel @scan\n"), "{all}");
    assert!(all.contains(".target sm_90"), "{all}");
}

#[test]
fn compile_errors() {
    let out = qdc(&["compile", &example("scan.qdm"), "--target", "sm_61"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown target 'sm_61'"), "{}", text(&out.stderr));
    let out = qdc(&["compile", &example("scan.qdm")]);
    assert!(text(&out.stderr).contains("missing --target"), "{}", text(&out.stderr));
    let out = qdc(&["compile", &example("scan.qdm"), "--target", "sm_80", "--kernel", "nope"]);
    assert!(text(&out.stderr).contains("no kernel @nope"), "{}", text(&out.stderr));
    let out = qdc(&["compile", &example("scan.qdm"), "--target", "sm_80", "--emit", "sass"]);
    assert!(text(&out.stderr).contains("--emit sass is not supported"), "{}", text(&out.stderr));
    let out = qdc(&["compile", &example("scan.qdm"), "--target", "sm_80", "--reduce", "fast"]);
    assert!(text(&out.stderr).contains("--reduce wants auto, redux or shuffle"), "{}", text(&out.stderr));
}

#[test]
fn devices_lists_cpu() {
    let out = qdc(&["devices"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.lines().next().is_some_and(|l| l.starts_with("cpu:32")), "{s}");
    // Either a GPU line or the reason there is none.
    assert!(s.contains("cuda:0") || s.contains("cuda: not available: "), "{s}");
    match qd_rt::Device::hsa_unavailable_reason() {
        Some(why) => assert!(s.contains(&format!("hsa: not available: {why}\n")), "{s}"),
        None => assert!(s.lines().any(|l| l.starts_with("hsa:0 ")), "{s}"),
    }
    // The four simulators, last, each marked.
    let sims: Vec<&str> = s.lines().filter(|l| l.ends_with("[simulator]")).collect();
    assert_eq!(sims.len(), 4, "{s}");
    assert!(sims[0].starts_with("sim-gfx942 AMDGCN wave simulator (gfx942) ("), "{s}");
    assert!(sims[3].starts_with("sim-gfx1100-w32 AMDGCN wave simulator (gfx1100, wave32) ("), "{s}");
    assert!(s.trim_end().ends_with(sims[3]), "{s}");
}

#[test]
fn run_on_devices() {
    let scan = example("scan.qdm");
    let args =
        ["run", &scan, "--kernel", "scan", "--arg", "src=fill:u32:64:1", "--arg", "dst=zeros:u32:64", "--print", "dst"];
    let mut cpu8 = args.to_vec();
    cpu8.extend(["--device", "cpu:8"]);
    let out = qdc(&cpu8);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("1 2 3 4 5 6 7 8 1 2"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("ran on cpu:8 (native code"), "{}", text(&out.stderr));
    let mut interp8 = args.to_vec();
    interp8.extend(["--device", "interp:8"]);
    let out = qdc(&interp8);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("1 2 3 4 5 6 7 8 1 2"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("ran on interp (subgroup size 8)"), "{}", text(&out.stderr));
    let mut cpu = args.to_vec();
    cpu.extend(["--device", "cpu", "--subgroup-size", "16"]);
    let out = qdc(&cpu);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 1 2"));
    let mut clash = args.to_vec();
    clash.extend(["--device", "cpu:8", "--subgroup-size", "16"]);
    let out = qdc(&clash);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("conflicts with --device cpu:8"), "{}", text(&out.stderr));
    let mut bad = args.to_vec();
    bad.extend(["--device", "tpu"]);
    let out = qdc(&bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown device 'tpu'"), "{}", text(&out.stderr));
    // An inline list argument.
    let out = qdc(&[
        "run",
        &scan,
        "--kernel",
        "scan",
        "--arg",
        "src=u32:[5 5 5 5]",
        "--arg",
        "dst=zeros:u32:64",
        "--block",
        "4",
        "--print",
        "dst",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("5 10 15 20 0"), "{}", text(&out.stdout));
    // cuda: runs where a GPU is, else a clear error and exit status 1.
    let mut cuda = args.to_vec();
    cuda.extend(["--device", "cuda"]);
    let out = qdc(&cuda);
    match qd_rt::Device::cuda_unavailable_reason() {
        Some(why) => {
            assert_eq!(out.status.code(), Some(1));
            let err = text(&out.stderr);
            assert!(err.contains("error: --device cuda: "), "{err}");
            if why.contains("libcuda") {
                assert!(err.contains("no CUDA driver (libcuda.so) found"), "{err}");
            }
        }
        None => {
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert!(text(&out.stdout).starts_with("1 2 3 4 5 6 7 8 9 10"), "{}", text(&out.stdout));
            assert!(text(&out.stderr).contains("ran on cuda:0"), "{}", text(&out.stderr));
        }
    }
}
