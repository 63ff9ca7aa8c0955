//! The `.qdm` text format: printer ([`printer`]) and parser.
//!
//! `print(parse(x))` is a fixed point: the printer numbers values densely in definition order, so
//! the output never depends on how the function was built.

pub mod printer;

pub use printer::{print_function, print_function_annotated, print_module, print_program};
