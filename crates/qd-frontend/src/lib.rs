//! `qd-frontend`: the Rust builder API qd kernels are written with, in the spirit of
//! `cranelift-frontend`.
//!
//! A [`KernelBuilder`] builds one kernel (a [`qd_mir::Function`]): parameters, a launch
//! configuration, and a body built with typed op methods ([`ops`]) and structured control flow
//! closures ([`control`]). Mutable *variables* ([`KernelBuilder::declare_var`],
//! [`KernelBuilder::def_var`], [`KernelBuilder::use_var`]) are turned into SSA automatically —
//! `if` results, loop-carried region parameters and loop results — by Braun et al.'s algorithm
//! adapted to structured regions ([`ssa`]). A [`ProgramBuilder`] sequences launches of kernels
//! into a [`qd_mir::Program`] and returns the [`qd_mir::Module`] holding both.
//!
//! Misuse never panics: every method checks its operands eagerly (types, visibility of values,
//! handles of another builder, immediates in range, ops after a region ended) and returns a
//! [`BuildError`] located at the caller's line (`#[track_caller]`), printed as
//! `file:line:col: message`. A [`FunctionBuilderContext`] keeps the builder's scratch allocations
//! across kernels.
//!
//! # Example
//!
//! Sum the positive entries of each row of a matrix, one row per thread (grid-stride):
//!
//! ```
//! use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
//! use qd_mir::text::print_function;
//!
//! fn build(ctx: &mut FunctionBuilderContext) -> Result<qd_mir::Function, BuildError> {
//!     let mut k = KernelBuilder::new(ctx, "sum_positive_rows");
//!     let m = k.buffer("m", ScalarType::F32);
//!     let out = k.buffer("out", ScalarType::F32);
//!     let rows = k.scalar("rows", ScalarType::U32);
//!     let cols = k.scalar("cols", ScalarType::U32);
//!     k.set_block_dim(128)?;
//!     let acc = k.declare_named_var("acc", ScalarType::F32);
//!     // grid-stride loop over the rows; the grid covers `rows` since it is a parameter
//!     k.parallel_for(rows, |k, row| {
//!         let zero = k.const_f32(0.0)?;
//!         k.def_var(acc, zero)?;
//!         let first = k.const_u32(0)?;
//!         let base = k.mul(row, cols)?;
//!         k.for_range(first, cols, None, |k, c| {
//!             let idx = k.add(base, c)?;
//!             let x = k.load(m, idx)?;
//!             let positive = k.gt(x, zero)?;
//!             k.if_then(positive, |k| {
//!                 let a = k.use_var(acc)?; // loop-carried: becomes a loop parameter
//!                 let s = k.add(a, x)?;
//!                 k.def_var(acc, s) // assigned in one arm: becomes an `if` result
//!             })
//!         })?;
//!         let total = k.use_var(acc)?; // the inner loop's result
//!         k.store(out, row, total)
//!     })?;
//!     k.finish()
//! }
//!
//! let mut ctx = FunctionBuilderContext::new();
//! let f = build(&mut ctx)?;
//! assert_eq!(
//!     print_function(&f),
//!     "\
//! kernel @sum_positive_rows(%m: ptr<global, f32>, %out: ptr<global, f32>, %rows: u32 uniform, %cols: u32 uniform) block(128, 1, 1) grid(cover %rows) {
//!   %0 = thread_id x : u32
//!   %1 = block_dim x : u32
//!   %2 = block_id x : u32
//!   %3 = mul %1, %2 : u32
//!   %4 = add %0, %3 : u32
//!   %5 = grid_dim x : u32
//!   %6 = mul %1, %5 : u32
//!   loop (%7: u32 = %4) {
//!     %8 = cmp ge %7, %rows : bool
//!     if %8 {
//!       break
//!     }
//!     %9 = const 0.0 : f32
//!     %10 = const 0 : u32
//!     %11 = mul %7, %cols : u32
//!     %12 = const 1 : u32
//!     %13 = loop (%14: u32 = %10, %15: f32 = %9) -> (f32) {
//!       %16 = cmp ge %14, %cols : bool
//!       if %16 {
//!         break %15
//!       }
//!       %17 = add %11, %14 : u32
//!       %18 = ptr.offset %m, %17 : ptr<global, f32>
//!       %19 = load %18 : f32
//!       %20 = cmp gt %19, %9 : bool
//!       %21 = if %20 -> (f32) {
//!         %22 = add %15, %19 : f32
//!         yield %22
//!       } else {
//!         yield %15
//!       }
//!       %23 = add %14, %12 : u32
//!       continue %23, %21
//!     }
//!     %24 = ptr.offset %out, %7 : ptr<global, f32>
//!     store %24, %13
//!     %25 = add %7, %6 : u32
//!     continue %25
//!   }
//!   return
//! }
//! "
//! );
//!
//! // Misuse is an error at the offending line, not a panic:
//! let mut k = KernelBuilder::new(&mut ctx, "bad");
//! let a = k.const_u32(1)?;
//! let b = k.const_f32(1.0)?;
//! let err = k.add(a, b).unwrap_err();
//! assert!(err.to_string().ends_with("add: operand 2 has type f32, expected u32"));
//! # Ok::<(), BuildError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod builder;
pub mod control;
pub mod error;
pub mod ops;
pub mod program;
pub mod ssa;

pub use builder::{Buf, Dims, FunctionBuilderContext, KernelBuilder, Mem, SharedBuf, SourceLines, Val, Var};
pub use error::{BuildError, ErrorKind};
pub use program::{KernelRef, ProgramArg, ProgramBuilder};
pub use qd_mir::{AtomicOp, CmpCond, Dim, Function, GroupOp, Module, PredOp, ScalarType, Scope, Tile, Type};
