//! `qd-lib`: the Quadrants SIMT library (subgroup, block, grid, device-wide algorithms) in Rust.
//!
//! This crate is filled by later issues. Today it holds only this documentation and exports
//! nothing. The plan: functions over `qd-frontend`'s builder with the names and semantics of the
//! Quadrants API (`subgroup::reduce_add_tiled`, `block::exclusive_scan`, `algorithms::sort`, …).
#![forbid(unsafe_code)]
