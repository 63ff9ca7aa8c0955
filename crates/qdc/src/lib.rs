//! Library half of `qdc`: the pieces the command line shares with the test harness — argument
//! specs (`iota:u32:64`, `rand:f32:1024:7`, `.npy` files), the `.npy` reader/writer, and the
//! standard programs of qd-lib's device-wide algorithms (`qdc algo`, the demo's sort, the benches),
//! and the `qdc explain` report of the AMDGCN shuffle selector's choices.
#![forbid(unsafe_code)]

pub mod algo;
pub mod explain;
pub mod npy;
pub mod spec;
