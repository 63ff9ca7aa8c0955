//! Prints the bench kernel (`qd_benches::build_kernel`) as AMDGCN assembly (one instruction per
//! line with its offset and encoding), or writes its code object with `--code-object FILE`: the
//! qd side of the `llc-19` comparison in `docs/performance.md` ("AMDGCN back end (issue #4)").
//!
//! With `--repeat N` it instead compiles the kernel N times and prints the mean time per compile
//! (wall clock, and the process's cpu time from `/proc/self/stat` where there is one) and the
//! register counts: a loop to run under `perf record`, and the cpu-time figures of the document.
//!
//! `cargo run --release -p qd-benches --example dump_bench_amdgcn -- [--target gfx942] [--wave32] [--code-object k.hsaco] [--repeat N]`

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
    let mut repeat = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => {
                let name = args.next().ok_or("--target needs a name (gfx942, gfx90a, gfx1100)")?;
                arch = Arch::from_name(&name).ok_or_else(|| format!("unknown target {name}"))?;
            }
            "--wave32" => wave = WaveSize::W32,
            "--code-object" => code_object = Some(args.next().ok_or("--code-object needs a file name")?),
            "--repeat" => repeat = Some(args.next().ok_or("--repeat needs a count")?.parse::<u32>()?.max(1)),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let target = Target::new(arch, wave).ok_or_else(|| format!("{arch} cannot run {wave:?}"))?;
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx)?;
    let opts = AmdgcnOptions::new(target);
    let k = compile_kernel(&kernel, &opts)?;
    if let Some(n) = repeat {
        let cpu0 = cpu_seconds();
        let t0 = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(compile_kernel(std::hint::black_box(&kernel), &opts)?);
        }
        let wall = t0.elapsed().as_secs_f64() / f64::from(n);
        let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| (b - a) / f64::from(n));
        println!(
            "{target}: {n} compiles, {:.1} us wall, {} cpu per compile; {} instructions, {} bytes of code, \
             {}-byte code object, {} VGPRs, {} SGPRs, {} spill bytes per lane",
            wall * 1e6,
            cpu.map_or("?".to_string(), |c| format!("{:.1} us", c * 1e6)),
            k.insts.len(),
            k.code.len(),
            k.code_object.len(),
            k.resources.next_free_vgpr,
            k.resources.next_free_sgpr,
            k.spill_bytes_per_lane
        );
        return Ok(());
    }
    match code_object {
        Some(path) => std::fs::write(path, &k.code_object)?,
        None => print!("{}", k.asm()),
    }
    Ok(())
}

/// User + system cpu seconds of this process (`/proc/self/stat` fields 14 and 15, in clock ticks
/// of 1/100 s), or `None` where that file does not exist.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
