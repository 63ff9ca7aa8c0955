//! `qd-isel-amdgcn`: MIR → AMDGCN machine code in an HSA code object (gfx90a, gfx942, gfx1100).
//!
//! This crate is filled by later issues (the AMDGCN ISA layer, the back end and the shuffle
//! selector). Today it holds only this documentation and exports nothing. The plan: uniformity-driven
//! SGPR/VGPR choice, EXEC-mask linearisation, VCode + regalloc2, waitcnt and hazard insertion, an
//! own encoder and decoder, the code-object writer, the DPP/permlane/swizzle shuffle selector and a
//! lane-exact wave simulator.
#![forbid(unsafe_code)]
