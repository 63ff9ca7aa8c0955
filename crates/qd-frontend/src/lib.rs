//! `qd-frontend`: the Rust builder API for qd kernels, in the spirit of `cranelift-frontend`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod builder;
pub mod control;
pub mod error;
pub mod ops;
pub mod program;
pub mod ssa;

pub use builder::{Buf, Dims, FunctionBuilderContext, KernelBuilder, Mem, SharedBuf, Val, Var};
pub use error::{BuildError, ErrorKind};
pub use program::{KernelRef, ProgramArg, ProgramBuilder};
pub use qd_mir::{AtomicOp, CmpCond, Dim, Function, GroupOp, Module, PredOp, ScalarType, Scope, Tile, Type};
