//! The PTX back end against its oracles: every kernel of every filetest (and of `docs/examples`)
//! compiles for every target, `ptxas -arch=<target>` accepts each module, and the sm_90 PTX of
//! each file is an insta snapshot a human reviews. Also the back end's errors, one test per
//! `CompileError` variant it returns: a kernel that does not verify, an (op, type, target) with no
//! lowering, a feature a target or a driver's PTX version cap lacks, shared memory past a
//! target's, and (unreachable through the API) the rendering of an internal error.
//!
//! ptxas comes from NVIDIA's PyPI wheels (`scripts/test.sh` installs them under
//! `$QD_TOOLS_DIR`, default `/opt/qd-tools`): CUDA 13 for sm_75+, CUDA 12 for sm_70 (CUDA 13
//! dropped it). Without them the ptxas test says it is skipped — unless `QD_REQUIRE_PTXAS=1`
//! (set by `scripts/test.sh`), when it fails.

use qd_isel_ptx::{compile_kernel, compile_verified, CompileError, PtxOptions, PtxVersion, ReduceStrategy, Sm};
use qd_mir::verify::verify_module;
use qd_mir::{AnyEntity, Function, Module, Opcode, ScalarType, Type, VerifiedKernel};
use std::path::PathBuf;
use std::process::Command;

/// Every verified module of the filetests and the docs' examples.
fn modules() -> Vec<(PathBuf, Module)> {
    let root = qd_tests::corpus::repo();
    qd_tests::corpus::verified_modules(&[root.join("tests/filetests"), root.join("docs")])
}

fn tools_dir() -> PathBuf {
    std::env::var_os("QD_TOOLS_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/opt/qd-tools"))
}

/// The ptxas that assembles `target`: CUDA 12's for sm_70, CUDA 13's for the rest.
fn ptxas_for(target: Sm) -> Option<PathBuf> {
    let (var, rel) = if target == Sm::Sm70 {
        ("QD_PTXAS_CU12", "cu12/nvidia/cuda_nvcc/bin/ptxas")
    } else {
        ("QD_PTXAS", "cu13/nvidia/cu13/bin/ptxas")
    };
    let p = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| tools_dir().join(rel));
    p.is_file().then_some(p)
}

#[test]
fn every_kernel_compiles_for_every_target() {
    let mods = modules();
    let mut n = 0;
    for (path, m) in &mods {
        for f in &m.kernels {
            for t in Sm::ALL {
                let k = compile_kernel(f, &PtxOptions::new(t))
                    .unwrap_or_else(|e| panic!("{} @{} for {t}: {e}", path.display(), f.name));
                assert!(k.ptx.contains(&format!(".target {}", t.name())), "{}", k.ptx);
                assert!(k.ptx.contains(&format!(".visible .entry {}(", f.name)));
                assert!(k.version >= t.min_version());
                n += 1;
            }
        }
    }
    assert!(n >= 6 * 60, "only {n} kernel × target compilations: the filetests went missing?");
}

#[test]
fn ptxas_accepts_every_kernel_on_every_target() {
    let (Some(_), Some(_)) = (ptxas_for(Sm::Sm70), ptxas_for(Sm::Sm90)) else {
        let required = std::env::var("QD_REQUIRE_PTXAS").is_ok_and(|v| v == "1");
        assert!(!required, "QD_REQUIRE_PTXAS=1 but ptxas is not installed under {}", tools_dir().display());
        eprintln!("SKIPPED: ptxas not found under {} (scripts/test.sh installs it)", tools_dir().display());
        return;
    };
    let dir = std::env::temp_dir().join(format!("qd-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut jobs: Vec<(String, Sm, PathBuf)> = Vec::new();
    for (path, m) in modules() {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("k").to_string();
        for f in &m.kernels {
            for t in Sm::ALL {
                let k = compile_kernel(f, &PtxOptions::new(t)).expect("compiles (checked by the other test)");
                let file = dir.join(format!("{stem}-{}-{}.ptx", f.name, t.name()));
                std::fs::write(&file, &k.ptx).expect("write ptx");
                jobs.push((format!("{} @{}", path.display(), f.name), t, file));
            }
        }
    }
    let total = jobs.len();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
    let chunks: Vec<Vec<(String, Sm, PathBuf)>> =
        (0..workers).map(|w| jobs.iter().skip(w).step_by(workers).cloned().collect()).collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for (what, t, file) in chunk {
                        let ptxas = ptxas_for(*t).expect("checked above");
                        let out = Command::new(&ptxas)
                            .arg(format!("-arch={}", t.name()))
                            .arg(file)
                            .arg("-o")
                            .arg(file.with_extension("cubin"))
                            .output()
                            .expect("ptxas runs");
                        if !out.status.success() {
                            fails.push(format!("{what} on {t}: {}", String::from_utf8_lossy(&out.stderr)));
                        }
                    }
                    fails
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("ptxas: {} of {total} modules accepted", total - failures.len());
    assert!(failures.is_empty(), "ptxas rejected {} module(s):\n{}", failures.len(), failures.join("\n"));
    assert!(total >= 6 * 60);
}

#[test]
fn ptx_snapshots() {
    insta::glob!("../filetests", "**/*.qdm", |path| {
        let src = std::fs::read_to_string(path).expect("readable");
        let Ok(m) = qd_mir::parse_module(&src) else { return };
        if verify_module(&m).is_err() {
            return;
        }
        let mut text = String::new();
        for f in &m.kernels {
            text.push_str(&compile_kernel(f, &PtxOptions::new(Sm::Sm90)).expect("compiles").ptx);
        }
        if !text.is_empty() {
            insta::assert_snapshot!("ptx_sm90", text);
        }
    });
}

fn kernel(src: &str) -> Function {
    let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test")));
    m.kernels.into_iter().next().expect("one kernel")
}

const REDUCE_U32: &str = "\
kernel @r(%a: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %a, %t : ptr<global, u32>
  %v = load %p : u32
  %s = subgroup.reduce add %v : u32
  store %p, %s
  return
}
";

#[test]
fn reduce_strategy_is_chosen_by_target_and_forceable() {
    let f = kernel(REDUCE_U32);
    let auto80 = compile_kernel(&f, &PtxOptions::new(Sm::Sm80)).unwrap();
    assert!(auto80.ptx.contains("redux.sync.add.u32"), "{}", auto80.ptx);
    assert_eq!(auto80.version, PtxVersion::new(7, 0));
    let auto75 = compile_kernel(&f, &PtxOptions::new(Sm::Sm75)).unwrap();
    assert!(!auto75.ptx.contains("redux"), "{}", auto75.ptx);
    assert_eq!(auto75.ptx.matches("shfl.sync.bfly.b32").count(), 5);
    let tree =
        compile_kernel(&f, &PtxOptions { reduce: ReduceStrategy::ShuffleTree, ..PtxOptions::new(Sm::Sm90) }).unwrap();
    assert!(!tree.ptx.contains("redux") && tree.ptx.contains("shfl.sync.bfly"));
}

#[test]
fn a_feature_the_target_lacks_is_a_missing_capability_naming_both() {
    let f = kernel(REDUCE_U32);
    let e = compile_kernel(&f, &PtxOptions { reduce: ReduceStrategy::Redux, ..PtxOptions::new(Sm::Sm75) }).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("redux.sync") && msg.contains("sm_75") && msg.contains("sm_80"), "{msg}");
    assert!(
        matches!(&e, CompileError::MissingCapability { target, capability, op: Some(Opcode::SubgroupReduce), at: Some(_) }
            if target == "sm_75" && capability.contains("redux.sync")),
        "{e:?}"
    );
    assert_eq!(e.inst().map(|i| f.insts[i].opcode), Some(Opcode::SubgroupReduce));
    // sm_70 too; sm_80+ accept it.
    assert!(compile_kernel(&f, &PtxOptions { reduce: ReduceStrategy::Redux, ..PtxOptions::new(Sm::Sm70) }).is_err());
    assert!(compile_kernel(&f, &PtxOptions { reduce: ReduceStrategy::Redux, ..PtxOptions::new(Sm::Sm86) }).is_ok());
}

#[test]
fn an_op_type_target_without_lowering_is_unsupported_naming_all_three() {
    let f = kernel(
        &REDUCE_U32
            .replace("u32>", "f32>")
            .replace(": u32\n  %s", ": f32\n  %s")
            .replace("add %v : u32", "add %v : f32"),
    );
    let e = compile_kernel(&f, &PtxOptions { reduce: ReduceStrategy::Redux, ..PtxOptions::new(Sm::Sm90) }).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("subgroup.reduce") && msg.contains("f32") && msg.contains("sm_90"), "{msg}");
    assert!(
        matches!(&e, CompileError::Unsupported { target, op: Some(Opcode::SubgroupReduce), ty: Some(Type::Scalar(ScalarType::F32)), at: Some(_), .. }
            if target == "sm_90"),
        "{e:?}"
    );
    // A kernel built for another subgroup width: unsupported, with no op to blame.
    let g = kernel("kernel @k() block(16, 1, 1) grid(1, 1, 1) subgroup(16) {\n  return\n}\n");
    let e = compile_kernel(&g, &PtxOptions::new(Sm::Sm80)).unwrap_err();
    assert!(matches!(&e, CompileError::Unsupported { op: None, ty: None, at: None, .. }), "{e:?}");
    assert!(e.to_string().contains("subgroup(16)") && e.to_string().contains("32 lanes"), "{e}");
}

#[test]
fn the_driver_version_caps_the_ptx_version() {
    let f = kernel(REDUCE_U32);
    // A CUDA 11.0 driver loads PTX 7.0: fine for sm_80; sm_90 itself needs 7.8.
    let cap = Some(PtxVersion::from_driver_version(11000));
    assert!(compile_kernel(&f, &PtxOptions { max_version: cap, ..PtxOptions::new(Sm::Sm80) }).is_ok());
    let e = compile_kernel(&f, &PtxOptions { max_version: cap, ..PtxOptions::new(Sm::Sm90) }).unwrap_err();
    assert!(e.to_string().contains("7.8") && e.to_string().contains("7.0"), "{e}");
    assert!(
        matches!(&e, CompileError::MissingCapability { target, capability, op: None, at: None }
            if target == "sm_90" && capability.starts_with("PTX ISA 7.8")),
        "{e:?}"
    );
    // A CUDA 11.8 driver loads 7.8, enough for sm_90, but not for the `elect.sync` (PTX 8.0) of
    // this kernel's `elect`: the error blames it.
    let g = kernel(
        "kernel @e(%a: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %a, %t : ptr<global, u32>
  %b = elect : bool
  %v = cast %b : u32
  store %p, %v
  return
}
",
    );
    let cap = Some(PtxVersion::from_driver_version(11080));
    let e = compile_kernel(&g, &PtxOptions { max_version: cap, ..PtxOptions::new(Sm::Sm90) }).unwrap_err();
    assert!(
        matches!(&e, CompileError::MissingCapability { capability, op: Some(Opcode::Elect), at: Some(_), .. }
            if capability.starts_with("PTX ISA 8.0")),
        "{e:?}"
    );
    assert_eq!(e.inst().map(|i| g.insts[i].opcode), Some(Opcode::Elect));
    // sm_80 has no `elect.sync`: the same kernel compiles there without it.
    assert!(compile_kernel(&g, &PtxOptions { max_version: cap, ..PtxOptions::new(Sm::Sm80) }).is_ok());
}

#[test]
fn shared_memory_past_the_targets_is_a_limit() {
    // 65533 bytes as the verifier counts them (under its 64 KiB), but the second array starts at
    // byte 8: 65552 bytes once aligned, over sm_75's 64 KiB; sm_70 has 96 KiB.
    let f = kernel(
        "kernel @big() block(64, 1, 1) grid(1, 1, 1) {\n  shared @a: [bool; 1]\n  shared @b: [u32; 16383]\n  return\n}\n",
    );
    let e = compile_kernel(&f, &PtxOptions::new(Sm::Sm75)).unwrap_err();
    assert!(
        matches!(&e, CompileError::Limit { target, what, needed: 65552, max: 65536 }
            if target == "sm_75" && what == "bytes of shared memory"),
        "{e:?}"
    );
    assert_eq!(e.inst(), None);
    let k = compile_kernel(&f, &PtxOptions::new(Sm::Sm70)).expect("fits sm_70");
    assert_eq!(k.dynamic_shared_bytes, 65552);
}

#[test]
fn a_kernel_that_does_not_verify_is_a_verify_error() {
    let mut f = kernel(REDUCE_U32);
    f.launch.block = [0, 1, 1];
    let e = compile_kernel(&f, &PtxOptions::new(Sm::Sm90)).unwrap_err();
    assert!(e.to_string().contains("does not verify"), "{e}");
    match &e {
        CompileError::Verify { kernel, errors, rendered } => {
            assert_eq!(kernel, "r");
            assert!(errors.0.iter().any(|v| v.location == AnyEntity::Function && v.message.contains("is 0")));
            assert!(rendered.contains("block dimension x is 0"), "{rendered}");
        }
        other => panic!("expected a verifier error, got {other:?}"),
    }
    assert_eq!(e.target(), None);
}

#[test]
fn compile_verified_gives_what_compile_kernel_gives() {
    for f in [kernel(REDUCE_U32), kernel(&REDUCE_U32.replace("reduce add", "scan exclusive max"))] {
        let k = VerifiedKernel::new(f.clone()).expect("verifies");
        for t in Sm::ALL {
            let opts = PtxOptions::new(t);
            assert_eq!(compile_verified(&k, &opts), compile_kernel(&f, &opts), "{t}");
        }
        let forced = PtxOptions { reduce: ReduceStrategy::Redux, ..PtxOptions::new(Sm::Sm75) };
        assert_eq!(compile_verified(&k, &forced).is_err(), compile_kernel(&f, &forced).is_err());
    }
}

/// `CompileError::Internal` is a back-end defect: every check that can only fail on MIR the
/// verifier rejects. `compile_kernel` verifies first and `compile_verified` takes only kernels
/// the verifier made ([`VerifiedKernel`] has no other constructor), so no public entry point
/// reaches one; what a user would see is its rendering.
#[test]
fn an_internal_error_renders_as_a_defect() {
    let e = CompileError::internal(Sm::Sm90, "value v3 used before its definition");
    assert_eq!(e.to_string(), "internal error compiling for sm_90 (a qd defect): value v3 used before its definition");
    assert!(matches!(&e, CompileError::Internal { target, at: None, .. } if target == "sm_90"));
}
