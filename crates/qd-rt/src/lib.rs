//! `qd-rt`: the runtime — one `Device` API over CUDA (cudarc), HSA (dlopen), Vulkan (ash) and the
//! `cpu` device built on the MIR interpreter.
//!
//! This crate is filled by later issues. Today it holds only this documentation and exports
//! nothing; `qdc run` drives the interpreter in `qd-mir` directly until the device API lands.
//! It is the only crate of the workspace allowed `unsafe` (each block with a `// SAFETY:` comment).
