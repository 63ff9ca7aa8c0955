//! `qd-isel-ptx`: MIR → PTX text for sm_70 … sm_90, with no LLVM and no NVRTC.
//!
//! [`compile_kernel`] (or, for a kernel already verified, [`compile_verified`]) turns one kernel
//! into a PTX module (`.version`, `.target`, `.address_size 64` and one `.visible .entry`) that
//! the CUDA driver JIT-loads and `ptxas` accepts. Registers are virtual (ptxas allocates them);
//! structured regions become labels and predicated `bra`; subgroup ops become the `.sync` warp
//! instructions with member masks taken from the MIR's structure (the full mask where the
//! verifier's uniformity facts prove every lane of the warp active, `activemask` elsewhere).
//! Reductions pick `redux.sync` (sm_80+, 32-bit integers) or a `shfl.sync` tree by cost, or as
//! forced by [`ReduceStrategy`]. The `.version` is the lowest the target and the features used
//! allow, capped by the driver's ([`PtxOptions::max_version`]). Errors are
//! [`qd_mir::CompileError`]s. See `docs/ptx.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod emit;
mod lower;
mod scalar;
mod target;
mod text;
mod warp;

pub use lower::grid_for;
pub use qd_mir::CompileError;
use qd_mir::{KernelFacts, VerifiedKernel};
pub use target::{Feature, PtxVersion, Sm};

/// How subgroup reductions are lowered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReduceStrategy {
    /// The cheapest legal sequence: `redux.sync` where it applies, else the shuffle tree.
    #[default]
    Auto,
    /// `redux.sync` (sm_80+, 32-bit integer `add min max and or xor`); an error elsewhere.
    Redux,
    /// The `shfl.sync.bfly` butterfly (a per-lane gather under partial activity).
    ShuffleTree,
}

impl ReduceStrategy {
    /// Text name (`auto`, `redux`, `shuffle`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceStrategy::Auto => "auto",
            ReduceStrategy::Redux => "redux",
            ReduceStrategy::ShuffleTree => "shuffle",
        }
    }

    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<ReduceStrategy> {
        [ReduceStrategy::Auto, ReduceStrategy::Redux, ReduceStrategy::ShuffleTree].into_iter().find(|r| r.name() == s)
    }
}

/// Options of one compilation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PtxOptions {
    /// The `.target`.
    pub target: Sm,
    /// The newest `.version` the consumer loads (a driver's, from
    /// [`PtxVersion::from_driver_version`]); `None`: no cap.
    pub max_version: Option<PtxVersion>,
    /// How `subgroup.reduce` is lowered.
    pub reduce: ReduceStrategy,
    /// Zero the kernel's shared arrays at block start (the interpreter's documented semantics);
    /// on by default. Off saves the stores and one `bar.sync` when the kernel writes before it
    /// reads.
    pub zero_shared: bool,
}

impl PtxOptions {
    /// Defaults for a target: no version cap, automatic strategies, zeroed shared memory.
    pub fn new(target: Sm) -> PtxOptions {
        PtxOptions { target, max_version: None, reduce: ReduceStrategy::Auto, zero_shared: true }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxKernel {
    /// The entry name (the MIR kernel's name).
    pub name: String,
    /// The whole PTX module.
    pub ptx: String,
    /// Its `.target`.
    pub target: Sm,
    /// Its `.version`.
    pub version: PtxVersion,
    /// Threads per block (from the MIR launch configuration).
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory the launch must pass (non-zero when the shared arrays
    /// exceed the 48 KiB a kernel may declare statically; the launcher must also raise
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    pub dynamic_shared_bytes: u32,
}

/// Compiles one verified kernel (from [`qd_mir::VerifiedKernel::new`] or a builder's
/// `finish_verified`) to a PTX module, with the facts the verifier computed: nothing is checked or
/// analysed again.
pub fn compile_verified(k: &VerifiedKernel, opts: &PtxOptions) -> Result<PtxKernel, CompileError> {
    lower_with(k.function(), k.facts(), opts)
}

/// Compiles one kernel to a PTX module: the MIR verifier (its errors come back as
/// [`CompileError::Verify`]), then the lowering of [`compile_verified`].
pub fn compile_kernel(f: &qd_mir::Function, opts: &PtxOptions) -> Result<PtxKernel, CompileError> {
    let facts = qd_mir::verify::verify_function(f).map_err(|errors| CompileError::verify(f, errors))?;
    lower_with(f, &facts, opts)
}

fn lower_with(f: &qd_mir::Function, facts: &KernelFacts, opts: &PtxOptions) -> Result<PtxKernel, CompileError> {
    if let Some(w) = f.launch.subgroup_size.filter(|&w| w != 32) {
        return Err(CompileError::unsupported(
            opts.target,
            None,
            None,
            format!("kernel @{} was built for subgroup({w}); a CUDA warp has 32 lanes", f.name),
        ));
    }
    lower::lower_kernel(f, facts, opts)
}
