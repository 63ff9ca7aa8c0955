//! MIR → SPIR-V for a Vulkan device: the compile options from the device's properties and the
//! module's interface (bindings and push constants) in the form the device launches with.

use super::props::Props;
use crate::error::RtError;
use qd_mir::{Function, ScalarType};

/// A compiled kernel module and its interface.
pub(crate) struct Compiled {
    pub words: Vec<u32>,
    /// The entry point's name.
    pub entry: String,
    /// For each binding k (in order) the parameter index of buffer parameter k.
    pub bindings: Vec<usize>,
    /// Each scalar parameter's (index, byte offset, type) in the push-constant block.
    pub push: Vec<(usize, u32, ScalarType)>,
    pub push_bytes: u32,
}

/// Compiles a kernel for a device at subgroup width `width`.
pub(crate) fn compile(_f: &Function, _props: &Props, _width: u32) -> Result<Compiled, RtError> {
    Err(RtError::compile_text("the SPIR-V back end is not linked into this build yet"))
}
