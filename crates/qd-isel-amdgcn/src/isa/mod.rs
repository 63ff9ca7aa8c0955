//! The AMDGCN ISA layer: the instruction table, operands, DPP/swizzle/waitcnt fields, and the
//! codec built on them — legality checker, encoder, decoder, printer (LLVM 19 syntax) and
//! assembler-text parser — for gfx90a, gfx942 and gfx1100 (wave64 and wave32).
//!
//! Nothing here depends on MIR: this is the machine-code half of the AMD back end.

mod check;
mod decode;
pub mod dpp;
mod encode;
pub mod inst;
mod layout;
pub mod operand;
mod parse;
mod print;
pub mod reference;
pub mod swizzle;
pub mod table;
pub mod waitcnt;

pub use decode::{decode, decode_all};
pub use dpp::{Dpp16, Dpp8, DppCtrl};
pub use encode::{encode, encode_all, inst_size};
pub use inst::{Cache, Dpp, Form, Inst, IsaError, Mods, MAX_OPERANDS};
pub use operand::{InlineFloat, Operand, RegRange};
pub use parse::{parse_asm, AsmError};
pub(crate) use print::dpp_ctrl_text;
pub use swizzle::Swizzle;
pub use table::{flags, Enc, Format, Op, OpInfo, Shape, SoppImm};
pub use waitcnt::Waitcnt;
