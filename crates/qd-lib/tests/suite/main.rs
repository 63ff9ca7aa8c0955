//! The qd-lib suite: every library op × dtype × tile size on every device of the matrix, against
//! plain-Rust references (harness = false: one binary that prints the per-device pass counts).

mod algo_rbk;
mod algo_reduce;
#[allow(dead_code)]
mod algo_ref;
mod algo_scan;
mod algo_select;
mod algo_sort;
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
mod subgroup_errors;
mod subgroup_example;
mod subgroup_generic;
mod subgroup_movement;
mod subgroup_reduce;
mod subgroup_scan;
mod subgroup_segmented;
mod subgroup_sort;
#[allow(dead_code)]
mod subgroup_util;
mod subgroup_vote;
mod tile;
mod tile_errors;
mod tile_example;
mod warp_grid;

fn main() -> std::process::ExitCode {
    let mut suite = harness::Suite::default();
    smoke::register(&mut suite);
    algo_reduce::register(&mut suite);
    algo_scan::register(&mut suite);
    algo_select::register(&mut suite);
    algo_rbk::register(&mut suite);
    algo_sort::register(&mut suite);
    block_basic::register(&mut suite);
    block_collective::register(&mut suite);
    block_radix::register(&mut suite);
    warp_grid::register(&mut suite);
    subgroup_reduce::register(&mut suite);
    subgroup_scan::register(&mut suite);
    subgroup_segmented::register(&mut suite);
    subgroup_movement::register(&mut suite);
    subgroup_vote::register(&mut suite);
    subgroup_sort::register(&mut suite);
    subgroup_errors::register(&mut suite);
    subgroup_example::register(&mut suite);
    subgroup_generic::register(&mut suite);
    tile::register(&mut suite);
    tile_example::register(&mut suite);
    suite.run()
}
