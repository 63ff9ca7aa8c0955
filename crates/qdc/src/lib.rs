//! Library half of `qdc`: the pieces the command line shares with the test harness — argument
//! specs (`iota:u32:64`, `rand:f32:1024:7`, `.npy` files) and the `.npy` reader/writer.
#![forbid(unsafe_code)]

pub mod npy;
pub mod spec;
