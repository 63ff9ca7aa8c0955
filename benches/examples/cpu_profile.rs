//! Runs the bench kernel on the native `cpu` device in a loop, for a profiler:
//! `cargo run --release -p qd-benches --example cpu_profile -- [WIDTH] [RUNS]`.

use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::ScalarType;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let width: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let runs: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let n = 16 * 1024u32;
    let mut ctx = qd_frontend::FunctionBuilderContext::new();
    let f = qd_benches::build_kernel(&mut ctx).expect("builds");
    let k = qd_isel_cpu::cache::get(&f, width).expect("compiles");
    let mut a = vec![
        ArgValue::Buffer(Buffer::from_bits(
            ScalarType::F32,
            (0..n).map(|i| u64::from((i as f32 * 0.25 - 100.0).to_bits())),
        )),
        ArgValue::Buffer(Buffer::from_bits(
            ScalarType::U32,
            (0..n).map(|i| u64::from(i.wrapping_mul(2_654_435_761) % n)),
        )),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, (0..n).map(|_| 0))),
        ArgValue::Scalar(ScalarType::U32, u64::from(n)),
        ArgValue::Scalar(ScalarType::F32, u64::from(1.5f32.to_bits())),
    ];
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
