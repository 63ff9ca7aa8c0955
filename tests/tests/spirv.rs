//! The SPIR-V back end against its oracles: every kernel of every filetest, of `docs/examples`
//! and (when dumped) of the interpreter tests compiles for vulkan1.1, vulkan1.2 and vulkan1.3,
//! `spirv-val --target-env <env>` accepts each module, and the vulkan1.1 spvasm of each filetest
//! is an insta snapshot a human reviews. Also the back end's errors, one test per `CompileError`
//! variant it returns: a capability the device lacks, a subgroup width mismatch, an
//! (op, type, strategy) with no lowering, device limits, a kernel that does not verify, and
//! (unreachable through the API) the rendering of an internal error.
//!
//! spirv-val comes from Debian's `spirv-tools` (`scripts/test.sh` installs it). Without it the
//! validation test says it is skipped — unless `QD_REQUIRE_SPIRV_VAL=1`, when it fails. The
//! interpreter-test kernels are read from `QD_KERNEL_CORPUS` (default `target/qd-kernel-corpus`,
//! written by `QD_DUMP_KERNELS=DIR cargo test -p qd-mir --lib interp::`) when that directory exists.

use qd_isel_spirv::{
    compile_kernel, compile_verified, disassemble, CompileError, DeviceCaps, ReduceStrategy, SpirvOptions, SubgroupOps,
    TargetEnv,
};
use qd_mir::verify::verify_module;
use qd_mir::{AnyEntity, Function, Module, Opcode, ScalarType, Type, VerifiedKernel};
use std::path::PathBuf;
use std::process::Command;

/// Every verified module of the filetests, the docs' examples and the kernel corpus.
fn modules() -> Vec<(PathBuf, Module)> {
    let root = qd_tests::corpus::repo();
    qd_tests::corpus::verified_modules(&[
        root.join("tests/filetests"),
        root.join("docs"),
        qd_tests::corpus::kernel_corpus_dir(),
    ])
}

/// lavapipe's capabilities at the kernel's declared width (8 when it declares none).
fn opts_for(f: &Function, env: TargetEnv) -> SpirvOptions {
    let w = f.launch.subgroup_size.unwrap_or(8);
    SpirvOptions::new(env, DeviceCaps { subgroup_size: w, ..DeviceCaps::lavapipe() })
}

#[test]
fn every_kernel_compiles_for_every_env() {
    let mut n = 0;
    for (path, m) in modules() {
        for f in &m.kernels {
            for env in TargetEnv::ALL {
                let k = compile_kernel(f, &opts_for(f, env))
                    .unwrap_or_else(|e| panic!("{} @{} for {env}: {e}", path.display(), f.name));
                let (maj, min) = env.spirv_version();
                assert_eq!(k.words[1], (u32::from(maj) << 16) | (u32::from(min) << 8));
                assert_eq!(k.local_size, [f.launch.block.iter().product::<u32>(), 1, 1]);
                assert_eq!(k.bindings.len(), f.params.iter().filter(|p| p.ty.is_ptr()).count());
                n += 1;
            }
        }
    }
    assert!(n >= 3 * 60, "only {n} kernel × env compilations: the filetests went missing?");
}

fn spirv_val() -> Option<PathBuf> {
    let p = std::env::var_os("QD_SPIRV_VAL").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("spirv-val"));
    Command::new(&p).arg("--version").output().ok().filter(|o| o.status.success()).map(|_| p)
}

#[test]
fn spirv_val_accepts_every_module_for_every_env() {
    let Some(val) = spirv_val() else {
        let required = std::env::var("QD_REQUIRE_SPIRV_VAL").is_ok_and(|v| v == "1");
        assert!(!required, "QD_REQUIRE_SPIRV_VAL=1 but spirv-val is not installed");
        eprintln!("SKIPPED: spirv-val not found (apt-get install spirv-tools)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("qd-spirv-val-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut jobs: Vec<(String, TargetEnv, PathBuf)> = Vec::new();
    for (path, m) in modules() {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("k").to_string();
        for f in &m.kernels {
            for env in TargetEnv::ALL {
                let k = compile_kernel(f, &opts_for(f, env)).expect("compiles (checked by the other test)");
                let file = dir.join(format!("{stem}-{}-{}.spv", f.name, env.name()));
                let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&file, bytes).expect("write spv");
                jobs.push((format!("{} @{}", path.display(), f.name), env, file));
            }
        }
    }
    let total = jobs.len();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
    let chunks: Vec<Vec<(String, TargetEnv, PathBuf)>> =
        (0..workers).map(|w| jobs.iter().skip(w).step_by(workers).cloned().collect()).collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let val = &val;
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for (what, env, file) in chunk {
                        let out = Command::new(val)
                            .arg("--target-env")
                            .arg(env.name())
                            .arg(file)
                            .output()
                            .expect("spirv-val runs");
                        if !out.status.success() {
                            fails.push(format!(
                                "{what} on {env}: {}{}",
                                String::from_utf8_lossy(&out.stderr),
                                String::from_utf8_lossy(&out.stdout)
                            ));
                        }
                    }
                    fails
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    for env in TargetEnv::ALL {
        let n = jobs.iter().filter(|j| j.1 == env).count();
        let bad = failures.iter().filter(|f| f.contains(&format!(" on {env}:"))).count();
        eprintln!("spirv-val --target-env {env}: {} of {n} modules accepted", n - bad);
    }
    assert!(failures.is_empty(), "spirv-val rejected {} module(s):\n{}", failures.len(), failures.join("\n"));
    assert!(total >= 3 * 60);
}

#[test]
fn spirv_snapshots() {
    insta::glob!("../filetests", "**/*.qdm", |path| {
        let src = std::fs::read_to_string(path).expect("readable");
        let Ok(m) = qd_mir::parse_module(&src) else { return };
        if verify_module(&m).is_err() {
            return;
        }
        let mut text = String::new();
        for f in &m.kernels {
            let k = compile_kernel(f, &opts_for(f, TargetEnv::Vulkan1_1)).expect("compiles");
            text.push_str(&format!("; ---- kernel @{} (subgroup {})\n", f.name, f.launch.subgroup_size.unwrap_or(8)));
            text.push_str(&disassemble(&k.words));
        }
        if !text.is_empty() {
            insta::assert_snapshot!("spirv_vulkan1_1", text);
        }
    });
}

fn kernel(src: &str) -> Function {
    let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test")));
    m.kernels.into_iter().next().expect("one kernel")
}

const REDUCE: &str = "\
kernel @r(%a: ptr<global, T>) block(32, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %a, %t : ptr<global, T>
  %v = load %p : T
  %s = subgroup.reduce add TILE%v : T
  store %p, %s
  return
}
";

fn reduce(ty: &str, tile: &str) -> Function {
    kernel(&REDUCE.replace("TILE", tile).replace('T', ty))
}

fn asm(f: &Function, opts: &SpirvOptions) -> String {
    disassemble(&compile_kernel(f, opts).unwrap_or_else(|e| panic!("{e}")).words)
}

#[test]
fn reduce_strategy_is_chosen_by_device_and_forceable() {
    let lvp = SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe());
    let all = SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps { subgroup_size: 8, ..DeviceCaps::all() });
    // Full-subgroup u32: the group op; f32: the butterfly (3 ShuffleXor at width 8).
    let text = asm(&reduce("u32", ""), &lvp);
    assert!(text.contains("OpGroupNonUniformIAdd") && text.contains(" Reduce "), "{text}");
    let text = asm(&reduce("f32", ""), &lvp);
    assert_eq!(text.matches("OpGroupNonUniformShuffleXor").count(), 3, "{text}");
    assert!(!text.contains("OpGroupNonUniformFAdd"), "{text}");
    // A 4-lane tile: ClusteredReduce where the device has it, the tree on lavapipe.
    let tile = reduce("u32", "tile(2) ");
    let text = asm(&tile, &all);
    assert!(text.contains("ClusteredReduce") && text.contains("OpCapability GroupNonUniformClustered"), "{text}");
    let text = asm(&tile, &lvp);
    assert!(!text.contains("ClusteredReduce") && text.matches("OpGroupNonUniformShuffleXor").count() == 2, "{text}");
    // Forced: the tree even for u32; clustered on lavapipe is an error naming the capability.
    let text = asm(&reduce("u32", ""), &SpirvOptions { reduce: ReduceStrategy::ShuffleTree, ..lvp });
    assert!(!text.contains("OpGroupNonUniformIAdd") && text.contains("OpGroupNonUniformShuffleXor"), "{text}");
    let e = compile_kernel(&tile, &SpirvOptions { reduce: ReduceStrategy::Clustered, ..lvp }).unwrap_err();
    assert!(
        matches!(&e, CompileError::MissingCapability { target, capability, op: Some(Opcode::SubgroupReduce), at: Some(_) }
            if target == "vulkan1.1" && capability.starts_with("GroupNonUniformClustered ")),
        "{e:?}"
    );
    assert!(e.to_string().contains("vulkan1.1") && e.to_string().contains("CLUSTERED"), "{e}");
}

#[test]
fn a_strategy_without_an_exact_lowering_is_unsupported_naming_op_type_and_target() {
    let f = reduce("f32", "");
    let opts = SpirvOptions {
        reduce: ReduceStrategy::GroupArithmetic,
        ..SpirvOptions::new(TargetEnv::Vulkan1_2, DeviceCaps::lavapipe())
    };
    let e = compile_kernel(&f, &opts).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("subgroup.reduce") && msg.contains("f32") && msg.contains("vulkan1.2"), "{msg}");
    assert!(
        matches!(&e, CompileError::Unsupported { target, op: Some(Opcode::SubgroupReduce), ty: Some(Type::Scalar(ScalarType::F32)), at: Some(_), .. }
            if target == "vulkan1.2"),
        "{e:?}"
    );
    // The instruction it blames is the reduction's.
    let at = e.inst().expect("blames an instruction");
    assert_eq!(f.insts[at].opcode, Opcode::SubgroupReduce);
}

#[test]
fn a_capability_the_device_lacks_is_a_missing_capability_naming_it_and_the_op() {
    let env = TargetEnv::Vulkan1_3;
    let no64 = DeviceCaps { float64: false, int64: false, ..DeviceCaps::lavapipe() };
    let e = compile_kernel(&reduce("f64", ""), &SpirvOptions::new(env, no64)).unwrap_err();
    let missing = |e: &CompileError, cap: &str| match e {
        CompileError::MissingCapability { target, capability, .. } => {
            target == env.name() && capability.starts_with(&format!("{cap} ("))
        }
        _ => false,
    };
    assert!(missing(&e, "Float64"), "{e:?}");
    assert!(e.to_string().contains("shaderFloat64") && e.to_string().contains("vulkan1.3"), "{e}");
    let e = compile_kernel(&reduce("u64", ""), &SpirvOptions::new(env, no64)).unwrap_err();
    assert!(missing(&e, "Int64"), "{e:?}");
    let no_shuffle = DeviceCaps {
        subgroup_ops: SubgroupOps { shuffle: false, ..DeviceCaps::lavapipe().subgroup_ops },
        ..DeviceCaps::lavapipe()
    };
    let f = kernel(
        "kernel @s(%a: ptr<global, u32>) block(8, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %a, %t : ptr<global, u32>
  %v = load %p : u32
  %one = const 1 : u32
  %s = shuffle.xor %v, %one : u32
  store %p, %s
  return
}
",
    );
    let e = compile_kernel(&f, &SpirvOptions::new(env, no_shuffle)).unwrap_err();
    assert!(missing(&e, "GroupNonUniformShuffle"), "{e:?}");
    assert_eq!(e.op(), Some(Opcode::ShuffleXor));
    assert_eq!(e.inst().map(|i| f.insts[i].opcode), Some(Opcode::ShuffleXor));
    let no_fadd = DeviceCaps { float32_atomic_add: false, ..DeviceCaps::lavapipe() };
    let f = kernel(
        "kernel @fa(%a: ptr<global, f32>) block(8, 1, 1) grid(1, 1, 1) {
  %z = const 0 : u32
  %p = ptr.offset %a, %z : ptr<global, f32>
  %h = const 0.5 : f32
  %o = atomic.rmw add device %p, %h : f32
  return
}
",
    );
    let e = compile_kernel(&f, &SpirvOptions::new(env, no_fadd)).unwrap_err();
    assert!(missing(&e, "AtomicFloat32AddEXT"), "{e:?}");
    assert_eq!(e.op(), Some(Opcode::AtomicRmw));
    let text = asm(&f, &SpirvOptions::new(env, DeviceCaps::lavapipe()));
    assert!(text.contains("OpExtension \"SPV_EXT_shader_atomic_float_add\"") && text.contains("OpAtomicFAddEXT"));
}

#[test]
fn a_subgroup_width_mismatch_is_unsupported_naming_both_widths() {
    let f = kernel("kernel @k() block(16, 1, 1) grid(1, 1, 1) subgroup(16) {\n  return\n}\n");
    let e = compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe())).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("subgroup(16)") && msg.contains("8 lanes") && msg.contains("vulkan1.1"), "{msg}");
    assert!(matches!(e, CompileError::Unsupported { op: None, ty: None, at: None, .. }), "{e:?}");
    let caps16 = DeviceCaps { subgroup_size: 16, ..DeviceCaps::lavapipe() };
    assert!(compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_1, caps16)).is_ok());
}

#[test]
fn device_limits_are_limit_errors_naming_the_limit() {
    let f = kernel("kernel @big() block(64, 1, 1) grid(1, 1, 1) {\n  shared @s: [f64; 5000]\n  return\n}\n");
    let e = compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe())).unwrap_err();
    assert!(e.to_string().contains("maxComputeSharedMemorySize") && e.to_string().contains("40000"), "{e}");
    assert!(
        matches!(&e, CompileError::Limit { target, what, needed: 40000, max: 32768 }
            if target == "vulkan1.1" && what.contains("maxComputeSharedMemorySize")),
        "{e:?}"
    );
    let small = DeviceCaps { max_workgroup_invocations: 32, ..DeviceCaps::lavapipe() };
    let g = kernel("kernel @wide() block(64, 1, 1) grid(1, 1, 1) {\n  return\n}\n");
    let e = compile_kernel(&g, &SpirvOptions::new(TargetEnv::Vulkan1_1, small)).unwrap_err();
    assert!(e.to_string().contains("maxComputeWorkGroupInvocations"), "{e}");
    assert!(matches!(&e, CompileError::Limit { needed: 64, max: 32, .. }), "{e:?}");
    // Bools take a 4-byte word each in workgroup memory: 8192 of them are 8 KiB to the verifier,
    // 32 KiB here, over a 16 KiB device.
    let b = kernel("kernel @bools() block(64, 1, 1) grid(1, 1, 1) {\n  shared @s: [bool; 8192]\n  return\n}\n");
    let tiny = DeviceCaps { max_shared_bytes: 16 * 1024, ..DeviceCaps::lavapipe() };
    let e = compile_kernel(&b, &SpirvOptions::new(TargetEnv::Vulkan1_1, tiny)).unwrap_err();
    assert!(matches!(&e, CompileError::Limit { needed: 32768, max: 16384, .. }), "{e:?}");
}

#[test]
fn a_pointer_with_two_bases_is_unsupported() {
    let f = kernel(
        "kernel @two(%a: ptr<global, u32>, %b: ptr<global, u32>) block(8, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %z = const 0 : u32
  %c = cmp eq %t, %z : bool
  %p = select %c, %a, %b : ptr<global, u32>
  store %p, %t
  return
}
",
    );
    let e = compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe())).unwrap_err();
    assert!(
        matches!(&e, CompileError::Unsupported { op: Some(Opcode::Select), ty: Some(Type::Ptr(..)), at: Some(_), .. }),
        "{e:?}"
    );
    assert_eq!(e.inst().map(|i| f.insts[i].opcode), Some(Opcode::Select));
    assert!(e.to_string().contains("two different buffers"), "{e}");
}

#[test]
fn the_abi_puts_buffers_in_bindings_and_scalars_in_push_constants() {
    let f = kernel(
        "kernel @abi(%x: u32 uniform, %a: ptr<global, f32>, %y: f64 uniform, %flag: bool uniform, %b: ptr<global, bool>, %z: i32 uniform) block(8, 2, 1) grid(1, 1, 1) {
  return
}
",
    );
    let k = compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_2, DeviceCaps::lavapipe())).unwrap();
    let b: Vec<(usize, u32, u32)> = k.bindings.iter().map(|b| (b.param, b.set, b.binding)).collect();
    assert_eq!(b, vec![(1, 0, 0), (4, 0, 1)]);
    let p: Vec<(usize, u32)> = k.push_constants.iter().map(|p| (p.param, p.offset)).collect();
    assert_eq!(p, vec![(0, 0), (2, 8), (3, 16), (5, 20)]);
    assert_eq!(k.push_constant_bytes, 24);
    assert_eq!(k.local_size, [16, 1, 1]); // 1-D: x, y, z come from the linear index
    let text = disassemble(&k.words);
    assert!(text.contains("OpMemberDecorate %") && text.contains(" 1 Offset 8"), "{text}");
}

#[test]
fn a_kernel_that_does_not_verify_is_a_verify_error() {
    let mut f = reduce("u32", "");
    f.launch.block = [0, 1, 1];
    let e = compile_kernel(&f, &SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe())).unwrap_err();
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
    let opts = SpirvOptions::new(TargetEnv::Vulkan1_1, DeviceCaps::lavapipe());
    for f in [reduce("u32", ""), reduce("f32", "tile(2) "), reduce("f64", "")] {
        let k = VerifiedKernel::new(f.clone()).expect("verifies");
        assert_eq!(compile_verified(&k, &opts), compile_kernel(&f, &opts));
    }
    // The errors too (the facts change nothing about them).
    let no64 = DeviceCaps { float64: false, int64: false, ..DeviceCaps::lavapipe() };
    let f = reduce("f64", "");
    let k = VerifiedKernel::new(f.clone()).expect("verifies");
    let opts = SpirvOptions::new(TargetEnv::Vulkan1_1, no64);
    assert_eq!(compile_verified(&k, &opts).unwrap_err(), compile_kernel(&f, &opts).unwrap_err());
}

/// `CompileError::Internal` is a back-end defect: every check that can only fail on MIR the
/// verifier rejects. `compile_kernel` verifies first and `compile_verified` takes only kernels
/// the verifier made ([`VerifiedKernel`] has no other constructor), so no public entry point
/// reaches one; what a user would see is its rendering.
#[test]
fn an_internal_error_renders_as_a_defect() {
    let e = CompileError::internal(TargetEnv::Vulkan1_1, "value v3 used before its definition");
    assert_eq!(
        e.to_string(),
        "internal error compiling for vulkan1.1 (a qd defect): value v3 used before its definition"
    );
    assert_eq!(e.target(), Some("vulkan1.1"));
}
