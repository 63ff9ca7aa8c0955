//! The qd-lib suite: every library op × dtype × tile size on every device of the matrix, against
//! plain-Rust references (harness = false: one binary that prints the per-device pass counts).

mod block_basic;
mod block_collective;
mod block_radix;
#[allow(dead_code)]
mod elem;
#[allow(dead_code)]
mod harness;
#[allow(dead_code)]
mod reference;
mod smoke;
mod warp_grid;

fn main() -> std::process::ExitCode {
    let mut suite = harness::Suite::default();
    smoke::register(&mut suite);
    block_basic::register(&mut suite);
    block_collective::register(&mut suite);
    block_radix::register(&mut suite);
    warp_grid::register(&mut suite);
    suite.run()
}
