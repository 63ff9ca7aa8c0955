//! Runs the bench kernel on the native `cpu` device in a loop, for a profiler:
//! `cargo run --release -p qd-benches --example cpu_profile -- [WIDTH] [RUNS]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let width: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let runs: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut ctx = qd_frontend::FunctionBuilderContext::new();
    let f = qd_benches::build_kernel(&mut ctx).expect("builds");
    let k = qd_isel_cpu::cache::get(&f, width).expect("compiles");
    let mut a = qd_benches::bench_kernel_args();
    let opts = qd_isel_cpu::RunOptions { threads: Some(1), ..Default::default() };
    let t = std::time::Instant::now();
    let mut steps = 0;
    for _ in 0..runs {
        steps = k.run(&mut a, &opts).expect("runs").lane_instructions;
    }
    let s = t.elapsed().as_secs_f64();
    eprintln!(
        "{runs} runs in {s:.3} s: {:.1} µs a run, {steps} lane-instructions (native count)",
        s / f64::from(runs) * 1e6
    );
}
