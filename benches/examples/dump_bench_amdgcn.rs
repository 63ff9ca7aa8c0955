//! Prints the bench kernel (`qd_benches::build_kernel`) as AMDGCN assembly (one instruction per
//! line with its offset and encoding), or writes its code object with `--code-object FILE`: the
//! qd side of the `llc-19` comparison in `docs/performance.md` ("AMDGCN back end (issue #4)").
//!
//! `cargo run --release -p qd-benches --example dump_bench_amdgcn -- [--target gfx942] [--wave32] [--code-object k.hsaco]`

use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Target, WaveSize};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut arch = Arch::Gfx942;
    let mut wave = WaveSize::W64;
    let mut code_object = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => {
                let name = args.next().ok_or("--target needs a name (gfx942, gfx90a, gfx1100)")?;
                arch = Arch::from_name(&name).ok_or_else(|| format!("unknown target {name}"))?;
            }
            "--wave32" => wave = WaveSize::W32,
            "--code-object" => code_object = Some(args.next().ok_or("--code-object needs a file name")?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let target = Target::new(arch, wave).ok_or_else(|| format!("{arch} cannot run {wave:?}"))?;
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx)?;
    let k = compile_kernel(&kernel, &AmdgcnOptions::new(target))?;
    match code_object {
        Some(path) => std::fs::write(path, &k.code_object)?,
        None => print!("{}", k.asm()),
    }
    Ok(())
}
