//! Shared helpers of the MIR-lowering tests: compile a `.qdm` kernel for every simulated target,
//! run it on the wave simulator and on the MIR interpreter at the same wave width, and compare
//! every buffer bit for bit.

#![allow(dead_code)]

use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, CompiledKernel, Target, WaveSize};
use qd_mir::interp::{ArgValue, RunConfig};
use qd_mir::Function;

/// Every simulated target: gfx942, gfx90a, gfx1100 wave64 and wave32.
pub fn targets() -> Vec<Target> {
    vec![
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ]
}

/// Parses the first kernel of a `.qdm` text.
pub fn kernel(src: &str) -> Function {
    let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test.qdm")));
    m.kernels.into_iter().next().expect("a kernel")
}

/// Compiles with the regalloc2 checker on.
pub fn compile(f: &Function, t: Target) -> CompiledKernel {
    let mut o = AmdgcnOptions::new(t);
    o.check_regalloc = true;
    compile_kernel(f, &o).unwrap_or_else(|e| panic!("{t}: {e}"))
}

/// Runs on the interpreter (width = the target's lanes) and on the simulator; asserts equal
/// buffers. Returns the simulator's buffers.
pub fn check(f: &Function, t: Target, grid: [u32; 3], args: &[ArgValue]) -> Vec<ArgValue> {
    let mut o = AmdgcnOptions::new(t);
    o.check_regalloc = true;
    check_with(f, &o, grid, args)
}

/// [`check`] with explicit compile options; returns the simulator's buffers and the kernel.
pub fn check_with(f: &Function, o: &AmdgcnOptions, grid: [u32; 3], args: &[ArgValue]) -> Vec<ArgValue> {
    check_kernel(f, o, grid, args).0
}

/// [`check_with`], also returning the compiled kernel.
pub fn check_kernel(
    f: &Function,
    o: &AmdgcnOptions,
    grid: [u32; 3],
    args: &[ArgValue],
) -> (Vec<ArgValue>, CompiledKernel) {
    let t = o.target;
    let k = compile_kernel(f, o).unwrap_or_else(|e| panic!("{t}: {e}"));
    let mut want = args.to_vec();
    let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some(grid), ..RunConfig::default() };
    qd_mir::interp::run_kernel(f, &cfg, &mut want).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let mut got = args.to_vec();
    runner::run(&k, grid, &mut got, None, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{t}: simulator: {e}\n{}", k.asm()));
    // AMD's default NaN for an invalid operation is not the x86 host's (see the runner).
    runner::adopt_host_default_nans(&want, &mut got);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{t}: argument {i} differs\n{}", k.asm());
    }
    (got, k)
}
