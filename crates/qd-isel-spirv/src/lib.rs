//! `qd-isel-spirv`: MIR → SPIR-V (Vulkan 1.1+ compute) through rspirv.
//!
//! This crate is filled by a later issue (the SPIR-V back end and Vulkan device). Today it holds
//! only this documentation and exports nothing. The plan: regions map straight onto
//! `OpSelectionMerge`/`OpLoopMerge` with `OpPhi`; GroupNonUniform capabilities are gated per target.
#![forbid(unsafe_code)]
