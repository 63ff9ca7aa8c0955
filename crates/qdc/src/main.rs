//! `qdc`: the qd command line.
fn main() {}
