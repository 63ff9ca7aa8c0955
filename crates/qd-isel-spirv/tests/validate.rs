//! Every kernel of the repository's filetests and doc examples compiles for every target
//! environment (at subgroup widths 4, 8, 16, 32 and 64), and `spirv-val --target-env <env>`
//! accepts every module; also the interpreter-test kernels when they have been dumped to
//! `QD_KERNEL_CORPUS` (default `target/qd-kernel-corpus`). spirv-val comes from Debian's `spirv-tools`; without it the validation
//! test says it is skipped — unless `QD_REQUIRE_SPIRV_VAL=1`, when it fails.

use qd_isel_spirv::{compile_kernel, DeviceCaps, SpirvOptions, TargetEnv};
use qd_mir::verify::verify_module;
use qd_mir::Module;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The verified modules of every `.qdm` under the filetests and the docs.
fn modules() -> Vec<(PathBuf, Module)> {
    let mut files = Vec::new();
    let mut stack = vec![repo().join("tests/filetests"), repo().join("docs")];
    // The interpreter-test kernels, when dumped (`QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib interp::`).
    stack.push(
        std::env::var_os("QD_KERNEL_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo().join("target/qd-kernel-corpus")),
    );
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "qdm") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let src = std::fs::read_to_string(&p).ok()?;
            let m = qd_mir::parse_module(&src).ok()?;
            verify_module(&m).ok()?;
            Some((p, m))
        })
        .collect()
}

fn caps(w: u32) -> DeviceCaps {
    DeviceCaps { subgroup_size: w, ..DeviceCaps::lavapipe() }
}

/// A kernel declaring `subgroup(N)` compiles only at that width.
fn fits(f: &qd_mir::Function, w: u32) -> bool {
    f.launch.subgroup_size.is_none_or(|k| k == w)
}

#[test]
fn every_kernel_compiles_for_every_env_and_width() {
    let mut n = 0;
    for (path, m) in modules() {
        for f in &m.kernels {
            for env in TargetEnv::ALL {
                for w in [4, 8, 16, 32, 64] {
                    if !fits(f, w) {
                        continue;
                    }
                    let k = compile_kernel(f, &SpirvOptions::new(env, caps(w)))
                        .unwrap_or_else(|e| panic!("{} @{} for {env} at width {w}: {e}", path.display(), f.name));
                    assert_eq!(k.words[0], 0x0723_0203);
                    n += 1;
                }
            }
        }
    }
    assert!(n >= 3 * 5 * 60, "only {n} compilations: the filetests went missing?");
}

fn spirv_val() -> Option<PathBuf> {
    let p = std::env::var_os("QD_SPIRV_VAL").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("spirv-val"));
    Command::new(&p).arg("--version").output().ok().filter(|o| o.status.success()).map(|_| p)
}

#[test]
fn spirv_val_accepts_every_module() {
    let Some(val) = spirv_val() else {
        let required = std::env::var("QD_REQUIRE_SPIRV_VAL").is_ok_and(|v| v == "1");
        assert!(!required, "QD_REQUIRE_SPIRV_VAL=1 but spirv-val is not installed");
        eprintln!("SKIPPED: spirv-val not found (apt-get install spirv-tools)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("qd-spirv-val-crate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut fails = Vec::new();
    let mut total = 0;
    for (path, m) in modules() {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("k").to_string();
        for f in &m.kernels {
            for env in TargetEnv::ALL {
                for w in [8, 64] {
                    if !fits(f, w) {
                        continue;
                    }
                    let k = compile_kernel(f, &SpirvOptions::new(env, caps(w))).expect("compiles");
                    let file = dir.join(format!("{stem}-{}-{}-{w}.spv", f.name, env.name()));
                    let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(&file, bytes).expect("write");
                    let out = Command::new(&val).arg("--target-env").arg(env.name()).arg(&file).output().expect("runs");
                    total += 1;
                    if !out.status.success() {
                        fails.push(format!(
                            "{} @{} {env} w{w}: {}{}",
                            path.display(),
                            f.name,
                            String::from_utf8_lossy(&out.stderr),
                            String::from_utf8_lossy(&out.stdout)
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("spirv-val: {} of {total} modules accepted", total - fails.len());
    assert!(fails.is_empty(), "spirv-val rejected {} module(s):\n{}", fails.len(), fails.join("\n"));
}

/// f64 `min`/`max` (signed zeros ordered through the sign bit), `neg` and `abs` work on the
/// 64-bit integer bits of the value: the module declares `Int64` (spirv-val rejected qd-lib's f64
/// min/max scan kernels without it), and a device without `shaderInt64` gets a compile error
/// naming f64 instead of an invalid module.
#[test]
fn f64_sign_bit_ops_declare_int64() {
    let src = "kernel @k(%a: ptr<global, f64>) block(8, 1, 1) grid(1, 1, 1) {\n  %0 = thread_id x : u32\n  \
               %1 = ptr.offset %a, %0 : ptr<global, f64>\n  %2 = load %1 : f64\n  %3 = neg %2 : f64\n  \
               %4 = max %2, %3 : f64\n  %5 = min %4, %2 : f64\n  %6 = abs %5 : f64\n  store %1, %6\n  return\n}\n";
    let m = qd_mir::parse_module(src).expect("parses");
    let f = &m.kernels[0];
    let k = compile_kernel(f, &SpirvOptions::new(TargetEnv::Vulkan1_1, caps(8))).expect("compiles");
    let text = qd_isel_spirv::disassemble(&k.words);
    assert!(text.contains("OpCapability Int64"), "{text}");
    if let Some(val) = spirv_val() {
        let file = std::env::temp_dir().join(format!("qd-f64-int64-{}.spv", std::process::id()));
        let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, bytes).expect("write");
        let out = Command::new(&val).arg("--target-env").arg("vulkan1.1").arg(&file).output().expect("runs");
        let _ = std::fs::remove_file(&file);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let no_int64 = DeviceCaps { int64: false, ..caps(8) };
    let e = compile_kernel(f, &SpirvOptions::new(TargetEnv::Vulkan1_1, no_int64)).expect_err("needs Int64");
    let msg = e.to_string();
    assert!(msg.contains("shaderInt64") && msg.contains("f64"), "{msg}");
    assert!(
        matches!(&e, qd_isel_spirv::CompileError::MissingCapability { capability, op: Some(_), at: Some(_), .. }
            if capability.starts_with("Int64 (")),
        "{e:?}"
    );
}
