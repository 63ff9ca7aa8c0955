//! `qd-mir`: qd's structured-SSA mid-level IR.
//!
//! A kernel is a [`Function`]: typed parameters, a launch configuration, shared arrays and a body
//! [`Region`] whose `if`/`loop` instructions own nested regions (MLIR `scf` style). Every op is
//! declared once in the op table ([`ops`]). Around that core this crate owns the verifier, the
//! `.qdm` text format, analyses, passes and the SIMT interpreter (the reference oracle for every
//! back end and the engine of the `cpu` device).
//!
//! ```text
//! kernel @double(%buf: ptr<global, u32>, %n: u32 uniform) block(64, 1, 1) grid(cover %n) {
//!   %0 = thread_id x : u32
//!   …
//! }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod analysis;
pub mod codegen;
pub mod entities;
pub mod eval;
pub mod function;
pub mod inst;
pub mod interp;
pub mod ops;
pub mod passes;
pub mod text;
pub mod typerules;
pub mod types;
pub mod verify;

pub use codegen::{CompileError, KernelFacts, VerifiedKernel};
pub use entities::{AnyEntity, Inst, Param, Region, SharedArr, Value};
pub use function::{
    CheckFailure, Function, GridPolicy, Launch, LaunchArg, LaunchConfig, Module, ParamData, Program, ProgramCheck,
    ProgramParam, ProgramStatus, RegionData, SharedArrData, ValueData, ValueDef,
};
pub use inst::{Imm, InstData, Tile, ValueList};
pub use ops::{
    AtomicOp, BinOp, CmpCond, Collective, Dim, ExchangeOp, Format, GroupDomain, GroupOp, IndexOp, LaneMask, MemoryOp,
    OpClass, OpInfo, Opcode, PredOp, Scope, ShuffleKind, SyncOp, Terminator, UnOp,
};
pub use text::{parse_function, parse_module, parse_module_with_map, ParseError, SourceMap};
pub use types::{AddrSpace, ScalarType, Type};
