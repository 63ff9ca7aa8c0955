//! Prints the bench kernel (`qd_benches::build_kernel`) as PTX, or as `.qdm` MIR text with
//! `--mir`: the inputs of the `llc-19` / `ptxas` comparison in `docs/performance.md`.
//!
//! `cargo run --release -p qd-benches --example dump_bench_ptx -- [sm_90] [--mir] > bench_kernel.ptx`

use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;
use qd_isel_ptx::{compile_kernel, PtxOptions, Sm};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut target = Sm::Sm90;
    let mut mir = false;
    for arg in std::env::args().skip(1) {
        if arg == "--mir" {
            mir = true;
        } else {
            target = Sm::from_name(&arg).ok_or_else(|| format!("unknown target {arg}"))?;
        }
    }
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx)?;
    if mir {
        print!("{}", qd_mir::text::print_function(&kernel));
    } else {
        print!("{}", compile_kernel(&kernel, &PtxOptions::new(target))?.ptx);
    }
    Ok(())
}
