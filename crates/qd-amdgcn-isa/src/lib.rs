//! `qd-amdgcn-isa`: the AMDGCN machine-code layer of qd — the instruction table, operands,
//! DPP/swizzle/waitcnt fields and the codec built on them (legality checker, encoder, decoder,
//! printer in LLVM 19 syntax, assembler-text parser) for gfx90a, gfx942 and gfx1100 (wave64 and
//! wave32); the HSA code-object reader and writer ([`code_object`]) with its DWARF line tables
//! ([`dwarf`]); and the target description ([`Arch`], [`Family`], [`Target`],
//! [`WaveSize`]).
//!
//! Nothing here depends on MIR or on the compiler: this is the machine-code half of the AMD back
//! end, shared by the instruction selector (`qd-isel-amdgcn`), the wave simulator
//! (`qd-amdgcn-sim`) and `qdc asm`/`qdc disasm`, so that tools which only read, write or run
//! machine code do not pull in the compiler.
//!
//! See `docs/amdgcn.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod code_object;
pub mod dwarf;

mod check;
mod decode;
mod dpp;
mod encode;
mod inst;
mod layout;
mod operand;
mod parse;
mod print;
pub mod reference;
mod swizzle;
mod table;
mod target;
mod waitcnt;

pub use decode::{decode, decode_all};
pub use dpp::{Dpp16, Dpp8, DppCtrl};
pub use encode::{encode, encode_all, inst_size};
pub use inst::{Cache, Dpp, Form, Inst, IsaError, Mods, MAX_OPERANDS};
pub use operand::{InlineFloat, Operand, RegRange};
pub use parse::{parse_asm, AsmError};
pub use print::dpp_ctrl_text;
pub use swizzle::Swizzle;
pub use table::{flags, Enc, Format, Op, OpInfo, Shape, SoppImm};
pub use target::{Arch, Family, Target, WaveSize};
pub use waitcnt::Waitcnt;
