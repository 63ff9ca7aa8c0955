//! The AMDGCN ISA layer: the instruction table, operands, DPP/swizzle/waitcnt fields, and (in
//! their own modules) the encoder, decoder, printer and assembler-text parser.
//!
//! Nothing here depends on MIR: this is the machine-code half of the AMD back end.

pub mod dpp;
pub mod inst;
pub mod operand;
pub mod swizzle;
pub mod table;
pub mod waitcnt;

pub use dpp::{Dpp16, Dpp8, DppCtrl};
pub use inst::{Cache, Dpp, Form, Inst, IsaError, Mods, MAX_OPERANDS};
pub use operand::{InlineFloat, Operand, RegRange};
pub use swizzle::Swizzle;
pub use table::{flags, Enc, Format, Op, OpInfo, Shape, SoppImm};
pub use waitcnt::Waitcnt;
