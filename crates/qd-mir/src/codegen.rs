//! The back-end contract: what every back end (PTX, SPIR-V, AMDGCN, native `cpu` code) takes
//! and how it fails.
//!
//! - [`KernelFacts`]: the analyses every back end needs (the region layout, uniformity, whether
//!   some `return` is divergent, the thread count), computed once by the verifier
//!   ([`crate::verify::verify_function`]) and handed down instead of being recomputed by each
//!   back end.
//! - [`VerifiedKernel`]: a [`Function`] together with its facts, which only the verifier can
//!   make. A back end's `compile_verified` takes one and trusts it: whatever it still checks is an
//!   [`CompileError::Internal`] error, never a user-facing one. A back end's `compile_kernel`
//!   is the verifier followed by the same lowering.
//! - [`CompileError`]: the one error type every back end returns, rendered one way everywhere.

use crate::analysis::{Layout, Uniformity};
use crate::entities::Inst;
use crate::function::Function;
use crate::ops::Opcode;
use crate::types::Type;
use crate::verify::VerifyErrors;
use core::fmt;

/// The analyses of a verified kernel that every back end needs, computed once.
#[derive(Clone, Debug)]
pub struct KernelFacts {
    layout: Layout,
    uniformity: Uniformity,
    divergent_return: bool,
    threads: u32,
}

impl KernelFacts {
    /// Facts from the verifier's own analyses.
    pub(crate) fn from_analyses(func: &Function, layout: Layout, uniformity: Uniformity) -> KernelFacts {
        let divergent_return = layout.insts().iter().any(|&i| {
            func.insts.get(i).is_some_and(|d| d.opcode == Opcode::Return)
                && layout.inst_pos(i).is_some_and(|p| !uniformity.is_uniform_region(p.region))
        });
        let threads = func.launch.block.iter().fold(1u32, |n, &d| n.saturating_mul(d));
        KernelFacts { layout, uniformity, divergent_return, threads }
    }

    /// Recomputes the facts of a kernel that a pass derived from verified MIR (a pass keeps MIR
    /// valid, so its output needs its analyses, not the verifier's checks again).
    pub fn analyze(func: &Function) -> KernelFacts {
        let layout = Layout::new(func);
        let uniformity = Uniformity::with_layout(func, &layout);
        KernelFacts::from_analyses(func, layout, uniformity)
    }

    /// The region tree in text order.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Which values are uniform and which regions every lane of a subgroup runs together.
    pub fn uniformity(&self) -> &Uniformity {
        &self.uniformity
    }

    /// Some `return` sits under a varying condition, so no region after it is known to have
    /// every lane active.
    pub fn divergent_return(&self) -> bool {
        self.divergent_return
    }

    /// Threads per block (the product of the launch's block dimensions).
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Every subgroup of a block is whole at subgroup width `width` (threads per block a
    /// multiple of it).
    pub fn whole_subgroups(&self, width: u32) -> bool {
        width != 0 && self.threads.is_multiple_of(width)
    }
}

/// A kernel the verifier accepted, with the facts it computed. Only [`VerifiedKernel::new`]
/// makes one, so a back end's `compile_verified` may trust it.
#[derive(Clone, Debug)]
pub struct VerifiedKernel {
    func: Function,
    facts: KernelFacts,
}

impl VerifiedKernel {
    /// Verifies `func`; the error carries every verifier error, rendered on the function.
    pub fn new(func: Function) -> Result<VerifiedKernel, CompileError> {
        match crate::verify::verify_function(&func) {
            Ok(facts) => Ok(VerifiedKernel { func, facts }),
            Err(errors) => Err(CompileError::verify(&func, errors)),
        }
    }

    /// The kernel.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// Its facts.
    pub fn facts(&self) -> &KernelFacts {
        &self.facts
    }

    /// The kernel, giving up the facts (to edit it; verify it again afterwards).
    pub fn into_function(self) -> Function {
        self.func
    }
}

impl core::ops::Deref for VerifiedKernel {
    type Target = Function;
    fn deref(&self) -> &Function {
        &self.func
    }
}

/// Why a kernel cannot be compiled: the one error type of every back end.
///
/// `target` is the back end's name for what it compiled for (`sm_90`, `vulkan1.1`,
/// `gfx1100 (wave32)`); `at`, where one instruction is to blame, lets a caller point at its
/// source line (`qdc` does, with the `.qdm` source map).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The kernel fails the MIR verifier (only from `compile_kernel`; `compile_verified` takes
    /// verified kernels). Each error keeps its entity, so a caller with a source map can point at
    /// the user's own line.
    Verify {
        /// The kernel's name.
        kernel: String,
        /// Every error found.
        errors: VerifyErrors,
        /// The errors rendered under the lines of the printed kernel.
        rendered: String,
    },
    /// The target has no lowering of `op` at type `ty` (or, with no op, of a kernel-level
    /// feature such as a parameter kind or a subgroup width).
    Unsupported {
        /// The target.
        target: String,
        /// The op, when one is to blame.
        op: Option<Opcode>,
        /// The type it was used at, when one is.
        ty: Option<Type>,
        /// The instruction, when one is to blame.
        at: Option<Inst>,
        /// Why.
        why: String,
    },
    /// The target could lower the kernel, but the device or the options lack a capability it
    /// needs (a Vulkan subgroup feature, a PTX ISA version, an architecture's instruction).
    MissingCapability {
        /// The target.
        target: String,
        /// The capability (`subgroup ballot operations`, `PTX ISA 7.8`).
        capability: String,
        /// The op that needs it, when one does.
        op: Option<Opcode>,
        /// The instruction, when one is to blame.
        at: Option<Inst>,
    },
    /// The kernel needs more of a resource than the target has.
    Limit {
        /// The target.
        target: String,
        /// What (`bytes of shared memory`, `threads per block`).
        what: String,
        /// How much the kernel needs.
        needed: u64,
        /// How much the target has.
        max: u64,
    },
    /// A back-end defect: a check on verified MIR failed, or a later stage rejected what an
    /// earlier one made. Never the user's fault; please report it.
    Internal {
        /// The target.
        target: String,
        /// What went wrong.
        message: String,
        /// The instruction being lowered, when known.
        at: Option<Inst>,
    },
}

impl CompileError {
    /// The verifier's errors on `func`, rendered.
    pub fn verify(func: &Function, errors: VerifyErrors) -> CompileError {
        let rendered = errors.render(func);
        CompileError::Verify { kernel: func.name.clone(), errors, rendered }
    }

    /// `op` (or, with none, a kernel-level feature) has no lowering at `ty` on `target`.
    pub fn unsupported(
        target: impl fmt::Display,
        op: Option<Opcode>,
        ty: Option<Type>,
        why: impl Into<String>,
    ) -> CompileError {
        CompileError::Unsupported { target: target.to_string(), op, ty, at: None, why: why.into() }
    }

    /// The target lacks `capability`, which `op` needs.
    pub fn missing_capability(
        target: impl fmt::Display,
        capability: impl Into<String>,
        op: Option<Opcode>,
    ) -> CompileError {
        CompileError::MissingCapability { target: target.to_string(), capability: capability.into(), op, at: None }
    }

    /// The kernel needs `needed` of `what`; the target has `max`.
    pub fn limit(target: impl fmt::Display, what: impl Into<String>, needed: u64, max: u64) -> CompileError {
        CompileError::Limit { target: target.to_string(), what: what.into(), needed, max }
    }

    /// A back-end defect.
    pub fn internal(target: impl fmt::Display, message: impl Into<String>) -> CompileError {
        CompileError::Internal { target: target.to_string(), message: message.into(), at: None }
    }

    /// The same error, blamed on instruction `inst` (where the variant has a place for one and
    /// none is set yet).
    pub fn at(mut self, inst: Inst) -> CompileError {
        match &mut self {
            CompileError::Unsupported { at, .. }
            | CompileError::MissingCapability { at, .. }
            | CompileError::Internal { at, .. } => {
                at.get_or_insert(inst);
            }
            CompileError::Verify { .. } | CompileError::Limit { .. } => {}
        }
        self
    }

    /// The instruction the error blames, if any.
    pub fn inst(&self) -> Option<Inst> {
        match self {
            CompileError::Unsupported { at, .. }
            | CompileError::MissingCapability { at, .. }
            | CompileError::Internal { at, .. } => *at,
            CompileError::Verify { .. } | CompileError::Limit { .. } => None,
        }
    }

    /// The op the error blames, if any.
    pub fn op(&self) -> Option<Opcode> {
        match self {
            CompileError::Unsupported { op, .. } | CompileError::MissingCapability { op, .. } => *op,
            CompileError::Verify { .. } | CompileError::Limit { .. } | CompileError::Internal { .. } => None,
        }
    }

    /// The target, if the error is about one (verifier errors are not).
    pub fn target(&self) -> Option<&str> {
        match self {
            CompileError::Unsupported { target, .. }
            | CompileError::MissingCapability { target, .. }
            | CompileError::Limit { target, .. }
            | CompileError::Internal { target, .. } => Some(target),
            CompileError::Verify { .. } => None,
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Verify { kernel, rendered, .. } => {
                write!(f, "kernel @{kernel} does not verify:\n{}", rendered.trim_end())
            }
            CompileError::Unsupported { target, op, ty, why, .. } => {
                write!(f, "cannot compile for {target}: ")?;
                if let Some(op) = op {
                    write!(f, "`{op}`")?;
                    if let Some(ty) = ty {
                        write!(f, " on {ty}")?;
                    }
                    f.write_str(": ")?;
                }
                f.write_str(why)
            }
            CompileError::MissingCapability { target, capability, op, .. } => {
                write!(f, "cannot compile for {target}: ")?;
                if let Some(op) = op {
                    write!(f, "`{op}` ")?;
                }
                write!(f, "needs {capability}, which the target does not have")
            }
            CompileError::Limit { target, what, needed, max } => {
                write!(f, "cannot compile for {target}: the kernel needs {needed} {what}; the target has {max}")
            }
            CompileError::Internal { target, message, .. } => {
                write!(f, "internal error compiling for {target} (a qd defect): {message}")
            }
        }
    }
}

impl std::error::Error for CompileError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ScalarType;

    #[test]
    fn every_variant_renders_its_parts() {
        let u = CompileError::unsupported("sm_70", Some(Opcode::Sqrt), Some(Type::Scalar(ScalarType::U32)), "no");
        assert_eq!(u.to_string(), "cannot compile for sm_70: `sqrt` on u32: no");
        let k = CompileError::unsupported("gfx942", None, None, "shared pointer parameter");
        assert_eq!(k.to_string(), "cannot compile for gfx942: shared pointer parameter");
        let c = CompileError::missing_capability("vulkan1.1", "subgroup ballot operations", Some(Opcode::Ballot));
        assert_eq!(
            c.to_string(),
            "cannot compile for vulkan1.1: `ballot` needs subgroup ballot operations, which the target does not have"
        );
        let l = CompileError::limit("gfx1100", "bytes of shared memory", 70000, 65536);
        assert_eq!(
            l.to_string(),
            "cannot compile for gfx1100: the kernel needs 70000 bytes of shared memory; the target has 65536"
        );
        let i = CompileError::internal("sm_90", "register class mismatch");
        assert_eq!(i.to_string(), "internal error compiling for sm_90 (a qd defect): register class mismatch");
        assert_eq!(i.target(), Some("sm_90"));
        assert_eq!(u.op(), Some(Opcode::Sqrt));
    }
}
