//! `qd-isel-spirv`: MIR → SPIR-V (Vulkan 1.1 / 1.2 / 1.3 compute shaders), with no LLVM, no
//! glslang and no spirv-tools at compile time.
//!
//! [`compile_kernel`] (or, for a kernel already verified, [`compile_verified`]) turns one kernel
//! into the words of a SPIR-V module (1.3, 1.5 or 1.6 for [`TargetEnv::Vulkan1_1`] /
//! [`Vulkan1_2`](TargetEnv::Vulkan1_2) / [`Vulkan1_3`](TargetEnv::Vulkan1_3)) with one
//! `GLCompute` entry point named [`ENTRY_POINT`]. The words are written directly (the `spirv`
//! enums of rspirv name every opcode and operand); rspirv's loader and disassembler give the text
//! form ([`disassemble`]). Errors are [`qd_mir::CompileError`]s.
//!
//! - **ABI** (fixed, the Vulkan device relies on it): buffer parameter `k` (counting buffers only)
//!   is a `StorageBuffer` at descriptor set 0, binding `k`: a `Block` struct holding one runtime
//!   array of the element type (`bool` buffers hold one byte per element and are read and written
//!   through the `u32` words that contain them). Scalar parameters live in one push-constant block,
//!   in parameter order, each at its natural alignment (`bool` as a `u32` 0/1). See
//!   [`SpirvKernel::bindings`] and [`SpirvKernel::push_constants`].
//! - **Control flow**: MIR's regions become `OpSelectionMerge`/`OpLoopMerge` constructs with
//!   `OpPhi`s; `break`/`continue` branch to the innermost loop's merge / continue target and
//!   `return` is an `OpReturn`, all structured exits SPIR-V allows at any depth.
//! - **Subgroups** use `OpGroupNonUniform*` with the interpreter's exact semantics (own value for
//!   out-of-range or inactive shuffle sources, identity for inactive lanes in collectives, the
//!   expansion's combination order for floats). See `docs/spirv.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod control;
mod emit;
mod lower;
mod scalar;
mod softfma;
mod subgroup;
mod tree;

use core::fmt;
pub use qd_mir::CompileError;
use qd_mir::{KernelFacts, ScalarType, VerifiedKernel};

/// The name of the module's one entry point.
pub const ENTRY_POINT: &str = "main";

/// A Vulkan target environment: which SPIR-V version the module declares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TargetEnv {
    /// Vulkan 1.1: SPIR-V 1.3.
    Vulkan1_1,
    /// Vulkan 1.2: SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3: SPIR-V 1.6.
    Vulkan1_3,
}

impl TargetEnv {
    /// Every environment, oldest first.
    pub const ALL: [TargetEnv; 3] = [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_2, TargetEnv::Vulkan1_3];

    /// The name spirv-val's `--target-env` uses (`vulkan1.1`).
    pub fn name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// Parses a name (`vulkan1.2`).
    pub fn parse(s: &str) -> Option<TargetEnv> {
        TargetEnv::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The SPIR-V version of the modules for this environment.
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }
}

impl fmt::Display for TargetEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The subgroup operation classes a device supports (`VkSubgroupFeatureFlags`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SubgroupOps {
    /// `BASIC` (`OpGroupNonUniformElect`, subgroup built-ins).
    pub basic: bool,
    /// `VOTE` (`OpGroupNonUniformAll/Any/AllEqual`).
    pub vote: bool,
    /// `ARITHMETIC` (reductions and scans).
    pub arithmetic: bool,
    /// `BALLOT` (`OpGroupNonUniformBallot`, `BroadcastFirst`).
    pub ballot: bool,
    /// `SHUFFLE` (`OpGroupNonUniformShuffle/ShuffleXor`).
    pub shuffle: bool,
    /// `SHUFFLE_RELATIVE` (`ShuffleUp/Down`).
    pub shuffle_relative: bool,
    /// `CLUSTERED` (`ClusteredReduce`).
    pub clustered: bool,
    /// `QUAD`.
    pub quad: bool,
}

impl SubgroupOps {
    /// Every class.
    pub fn all() -> SubgroupOps {
        SubgroupOps {
            basic: true,
            vote: true,
            arithmetic: true,
            ballot: true,
            shuffle: true,
            shuffle_relative: true,
            clustered: true,
            quad: true,
        }
    }
}

/// What the device can do (from `VkPhysicalDeviceSubgroupProperties`, the features and limits).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceCaps {
    /// The subgroup width the kernel is compiled for (a power of two, 1 … 64).
    pub subgroup_size: u32,
    /// The supported subgroup operations (in compute shaders).
    pub subgroup_ops: SubgroupOps,
    /// `shaderInt64`.
    pub int64: bool,
    /// `shaderFloat64`.
    pub float64: bool,
    /// 64-bit integer atomics on buffers and shared memory.
    pub int64_atomics: bool,
    /// `shaderBufferFloat32AtomicAdd` / `shaderSharedFloat32AtomicAdd`.
    pub float32_atomic_add: bool,
    /// `maxComputeSharedMemorySize`.
    pub max_shared_bytes: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_workgroup_invocations: u32,
    /// `shaderSignedZeroInfNanPreserveFloat32` / `…Float64` (float controls, Vulkan 1.2): the
    /// module then declares `SignedZeroInfNanPreserve` for the float widths it uses, so that the
    /// driver keeps IEEE signed zeros (`-0 + 0 = +0`) instead of folding `x + 0.0` to `x`.
    pub signed_zero_inf_nan_preserve: [bool; 2],
}

impl DeviceCaps {
    /// Mesa's lavapipe at its default width (docs/vulkan.md, "lavapipe's widths"): subgroups of 8,
    /// every operation class but `CLUSTERED`, 64-bit types and atomics, 32 KiB of shared memory.
    pub fn lavapipe() -> DeviceCaps {
        DeviceCaps {
            subgroup_size: 8,
            subgroup_ops: SubgroupOps { clustered: false, ..SubgroupOps::all() },
            int64: true,
            float64: true,
            int64_atomics: true,
            float32_atomic_add: true,
            max_shared_bytes: 32 * 1024,
            signed_zero_inf_nan_preserve: [true, true],
            max_workgroup_invocations: 1024,
        }
    }

    /// A device with everything, at subgroup width 32.
    pub fn all() -> DeviceCaps {
        DeviceCaps {
            subgroup_size: 32,
            subgroup_ops: SubgroupOps::all(),
            int64: true,
            float64: true,
            int64_atomics: true,
            float32_atomic_add: true,
            max_shared_bytes: 64 * 1024,
            max_workgroup_invocations: 1024,
            signed_zero_inf_nan_preserve: [true, true],
        }
    }
}

/// How `subgroup.reduce` is lowered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReduceStrategy {
    /// Per op: `OpGroupNonUniform*` `Reduce` for full-subgroup 32-bit integer and `bool`
    /// reductions, `ClusteredReduce` for tiles when the device has `CLUSTERED`, else the shuffle
    /// tree (always for floats and 64-bit values, whose order or types the group ops cannot
    /// guarantee).
    #[default]
    Auto,
    /// `OpGroupNonUniform*` `Reduce` (full subgroup); an error where it does not apply.
    GroupArithmetic,
    /// `ClusteredReduce`; an error where it does not apply.
    Clustered,
    /// The butterfly of `OpGroupNonUniformShuffleXor` (the MIR `expand` order).
    ShuffleTree,
}

impl ReduceStrategy {
    /// Text name (`auto`, `group`, `clustered`, `shuffle`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceStrategy::Auto => "auto",
            ReduceStrategy::GroupArithmetic => "group",
            ReduceStrategy::Clustered => "clustered",
            ReduceStrategy::ShuffleTree => "shuffle",
        }
    }

    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<ReduceStrategy> {
        [ReduceStrategy::Auto, ReduceStrategy::GroupArithmetic, ReduceStrategy::Clustered, ReduceStrategy::ShuffleTree]
            .into_iter()
            .find(|r| r.name() == s)
    }
}

/// Options of one compilation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SpirvOptions {
    /// The target environment.
    pub env: TargetEnv,
    /// The device's capabilities (and subgroup width).
    pub caps: DeviceCaps,
    /// How reductions are lowered.
    pub reduce: ReduceStrategy,
}

impl SpirvOptions {
    /// Defaults for an environment and a device: the automatic strategy.
    pub fn new(env: TargetEnv, caps: DeviceCaps) -> SpirvOptions {
        SpirvOptions { env, caps, reduce: ReduceStrategy::Auto }
    }
}

/// One storage-buffer binding: MIR parameter `param` (a `ptr<global, elem>`) at
/// `layout(set = set, binding = binding)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// The MIR parameter index.
    pub param: usize,
    /// The descriptor set (always 0).
    pub set: u32,
    /// The binding (the buffer's rank among the buffer parameters).
    pub binding: u32,
    /// The element type (`bool`: one byte per element in memory).
    pub elem: ScalarType,
}

/// One scalar parameter in the push-constant block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PushField {
    /// The MIR parameter index.
    pub param: usize,
    /// Its byte offset in the block.
    pub offset: u32,
    /// Its type (`bool` is passed as a `u32` 0 or 1; 64-bit types take 8 bytes, 8-aligned).
    pub ty: ScalarType,
}

impl PushField {
    /// The bytes the field occupies (4 or 8).
    pub fn bytes(&self) -> u32 {
        if self.ty.bits() == 64 {
            8
        } else {
            4
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpirvKernel {
    /// The MIR kernel's name (the entry point itself is [`ENTRY_POINT`]).
    pub name: String,
    /// The SPIR-V module.
    pub words: Vec<u32>,
    /// The environment it was compiled for.
    pub env: TargetEnv,
    /// The workgroup size (`LocalSize` execution mode): always 1-D, `[bx·by·bz, 1, 1]` for the MIR
    /// block `[bx, by, bz]` (the kernel derives its 3-D thread ids from the linear index).
    pub local_size: [u32; 3],
    /// One per buffer parameter, in parameter order.
    pub bindings: Vec<Binding>,
    /// The size of the push-constant block (a multiple of 4; 0 without scalar parameters).
    pub push_constant_bytes: u32,
    /// One per scalar parameter, in parameter order.
    pub push_constants: Vec<PushField>,
    /// Bytes of workgroup memory the module declares (shared arrays, `bool`s as 4 bytes, plus
    /// the `block.sync_pred` slot).
    pub shared_bytes: u32,
}

/// Compiles one verified kernel (from [`qd_mir::VerifiedKernel::new`] or a builder's
/// `finish_verified`) to a SPIR-V module, with the facts the verifier computed: nothing is checked
/// or analysed again.
pub fn compile_verified(k: &VerifiedKernel, opts: &SpirvOptions) -> Result<SpirvKernel, CompileError> {
    lower_with(k.function(), k.facts(), opts)
}

/// Compiles one kernel to a SPIR-V module: the MIR verifier (its errors come back as
/// [`CompileError::Verify`]), then the lowering of [`compile_verified`].
pub fn compile_kernel(f: &qd_mir::Function, opts: &SpirvOptions) -> Result<SpirvKernel, CompileError> {
    let facts = qd_mir::verify::verify_function(f).map_err(|errors| CompileError::verify(f, errors))?;
    lower_with(f, &facts, opts)
}

fn lower_with(f: &qd_mir::Function, facts: &KernelFacts, opts: &SpirvOptions) -> Result<SpirvKernel, CompileError> {
    let env = opts.env;
    let w = opts.caps.subgroup_size;
    if !w.is_power_of_two() || w > 64 {
        return Err(CompileError::unsupported(
            env,
            None,
            None,
            format!("subgroup size {w} is not a power of two in 1..=64"),
        ));
    }
    if let Some(k) = f.launch.subgroup_size.filter(|&k| k != w) {
        return Err(CompileError::unsupported(
            env,
            None,
            None,
            format!("kernel @{} was built for subgroup({k}); the device's subgroups have {w} lanes", f.name),
        ));
    }
    lower::lower_kernel(f, facts, opts)
}

/// The module as spvasm text (rspirv's disassembler); a message if the words do not parse.
pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    match rspirv::dr::load_words(words) {
        Ok(m) => m.disassemble(),
        Err(e) => format!("; cannot disassemble: {e}\n"),
    }
}
