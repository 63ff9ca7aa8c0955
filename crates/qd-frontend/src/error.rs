//! [`BuildError`]: what every fallible builder method returns on misuse.
//!
//! Every public builder method is `#[track_caller]` and captures
//! [`Location::caller`] on entry, so an error points at the line of the user's kernel code that
//! made the bad call (not at a line inside this crate). `Display` prints `file:line:col: message`,
//! the format editors and terminals turn into links. `Error`/`Display` are implemented by hand
//! (no `thiserror`), as in Cranelift's `result.rs`.

use core::fmt;
use std::panic::Location;

/// The caller location captured by `#[track_caller]` builder methods.
pub(crate) type Loc = &'static Location<'static>;

/// The category of a [`BuildError`], for callers that branch on it (the message says the rest).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Operand types disagree with each other or with the op (`add u32, f32`, `sqrt` of an integer).
    TypeMismatch,
    /// A value, variable or handle made by another builder (or for another kernel).
    ForeignHandle,
    /// A value used outside the region that defines it (e.g. an `if` arm or loop body that ended).
    NotVisible,
    /// A variable used where it has no definition on some path.
    UndefinedVar,
    /// An instruction emitted after the current region already ended (`break`, `continue`, `return`).
    RegionEnded,
    /// `break`/`continue` outside of any loop.
    NotInLoop,
    /// An immediate out of its range (`ballot_first_n` count, tile size, block size, …).
    OutOfRange,
    /// A bad name or launch configuration (parameter names, grid policy parameter, …).
    Config,
    /// Structural misuse: regions left open at `finish`.
    Structure,
    /// A program launch that does not match its kernel (unknown kernel, arity, argument types).
    Program,
    /// The finished kernel fails the MIR verifier (a rule the builder cannot check eagerly, e.g. a
    /// block barrier inside divergent control flow); the message holds the annotated MIR.
    Verify,
}

/// A misuse of the builder, located at the caller's source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// Where the offending builder call was made (file, line, column).
    pub location: &'static Location<'static>,
    /// The category.
    pub kind: ErrorKind,
    /// A message naming the op (or construct) and the types involved.
    pub message: String,
}

impl BuildError {
    /// Creates an error at `location`.
    pub fn new(location: &'static Location<'static>, kind: ErrorKind, message: impl Into<String>) -> BuildError {
        BuildError { location, kind, message: message.into() }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.location.file(), self.location.line(), self.location.column(), self.message)
    }
}

impl std::error::Error for BuildError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_file_line_col_message() {
        let loc = Location::caller();
        let e = BuildError::new(loc, ErrorKind::TypeMismatch, "add: operand 2 has type f32, expected u32");
        assert_eq!(
            e.to_string(),
            format!("{}:{}:{}: add: operand 2 has type f32, expected u32", loc.file(), loc.line(), loc.column())
        );
        assert!(e.to_string().starts_with("crates/qd-frontend/src/error.rs:"));
    }
}
