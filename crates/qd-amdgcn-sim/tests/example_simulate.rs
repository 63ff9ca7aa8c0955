//! The wave-simulator example of docs/amdgcn.md (`examples/simulate.rs`) must keep running: it
//! assembles, writes a code object, simulates it on gfx942 and gfx1100 and asserts every lane.

#[path = "../examples/simulate.rs"]
#[allow(dead_code)]
mod simulate;

#[test]
fn the_simulator_example_runs_and_checks_every_lane() {
    simulate::main().unwrap_or_else(|e| panic!("examples/simulate.rs: {e}"));
}
