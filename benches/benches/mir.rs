//! MIR latency benches (the numbers `docs/performance.md` reports): build + verify a
//! ~100-instruction kernel with the Rust builder, verify alone, print to `.qdm` text, and parse
//! that text back. Run with `cargo bench -p qd-benches --bench mir`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qd_benches::build_kernel;
use qd_frontend::FunctionBuilderContext;

fn mir(c: &mut Criterion) {
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build_kernel(&mut ctx).expect("bench kernel builds");
    let text = qd_mir::text::print_function(&kernel);
    let insts = kernel.walk_insts().len();
    eprintln!("bench kernel: {insts} MIR instructions, {} bytes of text", text.len());

    c.bench_function("build+verify (~100 insts)", |b| {
        b.iter(|| black_box(build_kernel(&mut ctx).expect("builds")));
    });
    c.bench_function("verify (~100 insts)", |b| {
        b.iter(|| black_box(qd_mir::verify::verify_function(black_box(&kernel)).is_ok()));
    });
    c.bench_function("print (~100 insts)", |b| {
        b.iter(|| black_box(qd_mir::text::print_function(black_box(&kernel))));
    });
    c.bench_function("parse (~100 insts)", |b| {
        b.iter(|| black_box(qd_mir::parse_module(black_box(&text)).expect("parses")));
    });
}

criterion_group!(benches, mir);
criterion_main!(benches);
