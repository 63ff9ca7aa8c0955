//! `qd-isel-amdgcn`: AMDGCN machine code for gfx90a, gfx942 and gfx1100, with no LLVM.
//!
//! Today this crate holds the machine-code half of the AMD back end, independent of MIR:
//! - [`target`]: the architectures and wave sizes;
//! - [`isa`]: the instruction table, operands, encoder, decoder, printer and assembler parser;
//! - [`seq`]: correctly rounded f32/f64 division and square-root instruction sequences;
//!
//! Later issues add MIR instruction selection, register allocation and the shuffle selector.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod code_object;
pub mod isa;
pub mod seq;
pub mod sim;
pub mod target;

pub use target::{Arch, Family, Target, WaveSize};
