//! Prints the bench kernel (`qd_benches::build_kernel`) as MIR text, for tools that take `.qdm`
//! (`cargo run -p qd-isel-cpu --example clif`): `cargo run -p qd-benches --example dump_bench_qdm`.

fn main() {
    let mut ctx = qd_frontend::FunctionBuilderContext::new();
    let f = qd_benches::build_kernel(&mut ctx).expect("the bench kernel builds");
    print!("{}", qd_mir::text::print_function(&f));
}
