//! `qd-lib`: the Quadrants SIMT library in Rust — the functions kernels actually call.
//!
//! Same names and semantics as Quadrants' `qd.simt` (`subgroup`, `block`, `grid`, `warp`, and the
//! register tiles `Tile16x16`/`Tile32x32` in [`tile`]), written
//! as functions over `qd-frontend`'s [`KernelBuilder`]: where Quadrants traces a Python function
//! into IR, here a Rust function emits MIR into the kernel being built. Compile-time parameters
//! (`log2_size`, `block_dim`, `n`, the operator of a generic reduction) are ordinary Rust values.
//!
//! ```
//! use qd_frontend::{FunctionBuilderContext, KernelBuilder, ScalarType};
//! use qd_lib::subgroup;
//!
//! let mut ctx = FunctionBuilderContext::new();
//! let mut k = KernelBuilder::new(&mut ctx, "tile_sums");
//! k.set_subgroup_size(32)?; // the device's width: tiled ops are checked against it
//! k.set_block_dim(64)?;
//! let data = k.buffer("data", ScalarType::F32);
//! let out = k.buffer("out", ScalarType::F32);
//! let i = k.thread_id(qd_frontend::Dim::X)?;
//! let x = k.load(data, i)?;
//! let s = subgroup::reduce_add_tiled(&mut k, x, 3)?; // sum of each 8-lane tile, at tile lane 0
//! k.store(out, i, s)?;
//! let kernel = k.finish()?;
//! # let _ = kernel;
//! # Ok::<(), qd_frontend::BuildError>(())
//! ```
//!
//! # The target's subgroup width
//!
//! Quadrants knows the subgroup width when it traces (`group_size()` is a Python int). Here the
//! kernel carries it: [`KernelBuilder::set_subgroup_size`] records it in the kernel
//! (`subgroup(N)` in the MIR text), the library reads it back, and a device of another width
//! refuses the kernel rather than run it wrongly. Full-subgroup ops do not need it; everything
//! that does (tiled ops, `group_size`, block collectives) is a [`BuildError`] at the caller's line
//! when it is missing.
//!
//! # Errors
//!
//! Every public function is `#[track_caller]`: any error — a bad dtype, a `log2_size` wider than
//! the subgroup, a `block_dim` that is not a multiple of the width — is a [`BuildError`] located at
//! the line of the user's code that called the library, never a panic or a wrong answer.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod algorithms;
pub mod block;
mod common;
pub mod grid;
mod op;
pub mod subgroup;
pub mod tile;
pub mod warp;

pub use op::Op;
pub use qd_frontend::{BuildError, KernelBuilder, Val};
