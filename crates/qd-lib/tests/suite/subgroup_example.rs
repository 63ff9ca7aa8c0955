//! `examples/warp_reduce.rs` (the `Device::best()` example of docs/subgroup.md), run on every
//! device of the matrix instead of only the best one.

use crate::harness::Suite;

#[path = "../../examples/warp_reduce.rs"]
mod warp_reduce;

/// Registers the case.
pub fn register(s: &mut Suite) {
    s.case("subgroup::example/warp_reduce", |dev| warp_reduce::run(dev).map(|_| ()));
}
