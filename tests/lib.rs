//! `qd-tests`: cross-crate integration tests (`tests/*.rs`) and the `.qdm` filetest harness
//! (`tests/filetests.rs` over `filetests/**/*.qdm`). This library half holds the harness's
//! directive parsing so it can be unit-tested, and the device cross-check of run lines.
#![forbid(unsafe_code)]

pub mod corpus;
pub mod crosscheck;
pub mod directives;
