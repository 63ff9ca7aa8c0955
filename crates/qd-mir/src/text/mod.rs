//! The `.qdm` text format: printer ([`printer`]), lexer and parser ([`parser`]).
//!
//! `print(parse(x))` is a fixed point: the printer numbers values densely in definition order, so
//! the output never depends on how the function was built, and the parser accepts everything the
//! printer writes.

mod lexer;
pub mod parser;
pub mod printer;

pub use parser::{parse_function, parse_module, parse_module_with_map, ParseError, SourceMap};
pub use printer::{print_function, print_function_annotated, print_module, print_program};
