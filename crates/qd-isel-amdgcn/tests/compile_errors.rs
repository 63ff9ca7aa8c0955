//! The AMDGCN back end's [`CompileError`]s, one test per variant it can produce, each asserting the
//! variant and its fields (not only the text): `compile_kernel` on MIR the verifier rejects is
//! `Verify`; an option the target cannot honour (a forced candidate that does not exist, a kernel
//! built for another subgroup width) is `Unsupported` naming op, type and target; a wave size the
//! architecture lacks is `MissingCapability`; LDS beyond 64 KiB is `Limit`. `Internal` is a
//! back-end defect that no public entry point reaches on verified MIR; its rendering is checked.

use qd_isel_amdgcn::{compile_kernel, compile_verified, AmdgcnOptions, Arch, CompileError, Target, WaveSize};
use qd_mir::{Opcode, ScalarType, Type, VerifiedKernel};

fn parse(src: &str) -> qd_mir::Function {
    qd_mir::parse_function(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test.qdm")))
}

const REDUCE: &str = "kernel @k(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = subgroup.reduce add %0 : u32
  %2 = ptr.offset %a, %0 : ptr<global, u32>
  store %2, %1
  return
}
";

#[test]
fn a_kernel_that_does_not_verify_is_a_verify_error() {
    let f = parse(
        "kernel @bad(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 1.5 : f32
  %2 = add %0, %1 : u32
  return
}
",
    );
    let e = compile_kernel(&f, &AmdgcnOptions::new(Target::wave64(Arch::Gfx942))).unwrap_err();
    let CompileError::Verify { kernel, errors, rendered } = &e else { panic!("not a Verify error: {e}") };
    assert_eq!(kernel, "bad");
    assert_eq!(errors.0.len(), 1, "{rendered}");
    assert!(rendered.contains("add: operand 2 has type f32, expected u32"), "{rendered}");
    assert_eq!(e.target(), None);
}

#[test]
fn a_forced_candidate_that_does_not_exist_is_unsupported_naming_op_type_and_target() {
    let f = parse(REDUCE);
    let reduce = f.walk_insts().into_iter().find(|&i| f.insts[i].opcode == Opcode::SubgroupReduce).expect("reduce");
    let t = Target::wave64(Arch::Gfx942);
    let mut opts = AmdgcnOptions::new(t);
    opts.op_candidate.push((reduce, "no such sequence".into()));
    let e = compile_kernel(&f, &opts).unwrap_err();
    let CompileError::Unsupported { target, op, ty, at, why } = &e else { panic!("not Unsupported: {e}") };
    assert_eq!(target, "gfx942");
    assert_eq!(*op, Some(Opcode::SubgroupReduce));
    assert_eq!(*ty, Some(Type::Scalar(ScalarType::U32)));
    assert_eq!(*at, Some(reduce));
    assert!(why.contains("no such sequence"), "{why}");
}

#[test]
fn a_kernel_built_for_another_subgroup_width_is_unsupported() {
    let f = parse(&REDUCE.replace("grid(1, 1, 1)", "grid(1, 1, 1) subgroup(32)"));
    let e = compile_kernel(&f, &AmdgcnOptions::new(Target::wave64(Arch::Gfx90a))).unwrap_err();
    assert!(
        matches!(&e, CompileError::Unsupported { op: None, ty: None, at: None, why, .. } if why.contains("subgroup(32)")),
        "{e}"
    );
}

#[test]
fn a_wave_size_the_architecture_lacks_is_a_missing_capability() {
    let f = parse(REDUCE);
    let t = Target { arch: Arch::Gfx942, wave: WaveSize::W32 };
    let e = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap_err();
    let CompileError::MissingCapability { capability, op, .. } = &e else { panic!("not MissingCapability: {e}") };
    assert_eq!(capability, "32-lane waves on gfx942");
    assert_eq!(*op, None);
}

#[test]
fn lds_beyond_64k_is_a_limit_with_the_numbers() {
    // 64 KiB of declared arrays verifies; the word `block.sync_pred` combines through does not fit.
    let f = parse(
        "kernel @big(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  shared @s: [u32; 16384]
  %0 = thread_id x : u32
  %1 = shared.addr @s : ptr<shared, u32>
  %2 = ptr.offset %1, %0 : ptr<shared, u32>
  store %2, %0
  %3 = const true : bool
  %4 = block.sync_pred count %3 : u32
  return
}
",
    );
    let e = compile_kernel(&f, &AmdgcnOptions::new(Target::wave64(Arch::Gfx90a))).unwrap_err();
    let CompileError::Limit { target, what, needed, max } = &e else { panic!("not a Limit: {e}") };
    assert_eq!((target.as_str(), *needed, *max), ("gfx90a", 65540, 65536));
    assert!(what.contains("LDS"), "{what}");
}

#[test]
fn an_internal_error_renders_as_a_defect() {
    // No public entry point reaches an internal error on verified MIR; what one says is fixed.
    let e = CompileError::internal(
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
        "regalloc2 panicked on this kernel",
    );
    assert_eq!(
        e.to_string(),
        "internal error compiling for gfx1100 (wave32) (a qd defect): regalloc2 panicked on this kernel"
    );
}

#[test]
fn compile_verified_gives_what_compile_kernel_gives() {
    let f = parse(REDUCE);
    for t in [
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ] {
        let opts = AmdgcnOptions::new(t);
        let a = compile_kernel(&f, &opts).expect("compiles");
        let k = VerifiedKernel::new(f.clone()).expect("verifies");
        let b = compile_verified(&k, &opts).expect("compiles");
        assert_eq!(a.code_object, b.code_object, "{t}");
    }
}
