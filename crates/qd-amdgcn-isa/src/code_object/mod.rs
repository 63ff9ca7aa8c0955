//! The HSA code object: the ELF file the ROCm runtime loads (docs/amdgcn-isa-facts.md §12–§15).
//!
//! - [`write_code_object`] lays out an `ET_DYN` AMDGPU ELF the way `ld.lld-19 -shared` does:
//!   the NT_AMDGPU_METADATA note, `.dynsym`/`.hash`/`.dynstr`/`.dynamic`, one 64-byte
//!   [`KernelDescriptor`] per kernel in `.rodata`, the kernels' code 256-byte aligned in `.text`,
//!   a `.symtab` (which the ROCr loader reads) with `name` and `name.kd` for every kernel, and,
//!   when kernels carry a [`LineTable`], DWARF line information in non-allocated `.debug_*`
//!   sections;
//! - [`read_code_object`] parses those objects and lld-linked ones back (for `qdc disasm` and the
//!   simulator), never panicking on malformed input;
//! - [`descriptor`] holds the descriptor with its granule rules, [`metadata`] the metadata map,
//!   [`msgpack`] the small MessagePack codec the note needs.

pub mod descriptor;
pub mod metadata;
pub mod msgpack;
mod reader;
mod writer;

use std::fmt;

pub use descriptor::KernelDescriptor;
pub use reader::read_code_object;
pub use writer::write_code_object;

use crate::dwarf::LineTable;
use crate::target::{Arch, Family, Target, WaveSize};

/// `e_ident[EI_OSABI]` of an HSA code object.
pub(crate) const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `e_ident[EI_ABIVERSION]` for code object v5.
pub(crate) const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
/// The note type of the metadata note.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// e_flags: the MACH field.
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// e_flags: the xnack field.
pub(crate) const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
/// e_flags: the sramecc field.
pub(crate) const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;

/// An xnack / sramecc target-feature setting (e_flags bits; not applicable on gfx1100, where it
/// is ignored when writing and read back as `Any`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FeatureSetting {
    /// Runs in either mode (the target id names no setting).
    #[default]
    Any,
    /// Requires the feature on (`:xnack+`).
    On,
    /// Requires the feature off (`:xnack-`).
    Off,
}

impl FeatureSetting {
    /// The e_flags field value in its low two bits (1 any, 2 off, 3 on;
    /// docs/amdgcn-isa-facts.md §12.2).
    fn flag_bits(self) -> u32 {
        match self {
            FeatureSetting::Any => 1,
            FeatureSetting::Off => 2,
            FeatureSetting::On => 3,
        }
    }

    fn from_flag_bits(bits: u32) -> FeatureSetting {
        match bits & 3 {
            2 => FeatureSetting::Off,
            3 => FeatureSetting::On,
            _ => FeatureSetting::Any,
        }
    }

    /// The target-id suffix sign: `Some('+')`, `Some('-')` or `None` for `Any`.
    fn sign(self) -> Option<char> {
        match self {
            FeatureSetting::Any => None,
            FeatureSetting::On => Some('+'),
            FeatureSetting::Off => Some('-'),
        }
    }
}

/// What the object is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeObjectConfig {
    /// Architecture and wave size (every kernel of the object uses this wave size).
    pub target: Target,
    /// xnack setting (gfx90a/gfx942).
    pub xnack: FeatureSetting,
    /// sramecc setting (gfx90a/gfx942).
    pub sramecc: FeatureSetting,
}

impl CodeObjectConfig {
    /// A config with xnack and sramecc "any" (runs on agents in either mode).
    pub fn new(target: Target) -> Self {
        CodeObjectConfig { target, xnack: FeatureSetting::Any, sramecc: FeatureSetting::Any }
    }

    /// The ELF `e_flags`: MACH | XNACK | SRAMECC (docs/amdgcn-isa-facts.md §12.2; gfx1100 has
    /// neither feature).
    pub fn e_flags(&self) -> u32 {
        let arch = self.target.arch;
        let mut flags = arch.mach();
        if arch.has_xnack_sramecc() {
            flags |= self.xnack.flag_bits() << 8;
            flags |= self.sramecc.flag_bits() << 10;
        }
        flags
    }

    /// The target-id string of the metadata, e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`
    /// (features only when On/Off, sramecc before xnack; gfx1100 never has any).
    pub fn target_id(&self) -> String {
        let mut id = format!("amdgcn-amd-amdhsa--{}", self.target.arch.name());
        if self.target.arch.has_xnack_sramecc() {
            if let Some(s) = self.sramecc.sign() {
                id.push_str(&format!(":sramecc{s}"));
            }
            if let Some(s) = self.xnack.sign() {
                id.push_str(&format!(":xnack{s}"));
            }
        }
        id
    }
}

/// Which user SGPRs the kernel asks for (docs/amdgcn-isa-facts.md §13.4, §14.1; in this order
/// from s0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct UserSgprs {
    /// Dispatch packet pointer (2 SGPRs).
    pub dispatch_ptr: bool,
    /// Queue pointer (2 SGPRs).
    pub queue_ptr: bool,
    /// Kernarg segment pointer (2 SGPRs).
    pub kernarg_segment_ptr: bool,
    /// Dispatch id (2 SGPRs).
    pub dispatch_id: bool,
    /// Private segment size (1 SGPR).
    pub private_segment_size: bool,
    /// Unused user SGPRs after the enabled ones, so that USER_SGPR_COUNT (and the start of the
    /// system SGPRs, the workgroup ids) moves up: gfx1100 in wave32 needs at least 16 user +
    /// system SGPRs (LLVM's "UserSGPRInit16Bug" workaround, which pads USER_SGPR_COUNT to 13 for
    /// a kernarg pointer and three workgroup ids).
    pub pad: u8,
}

impl UserSgprs {
    /// The number of user SGPRs these take.
    pub fn count(&self) -> u32 {
        descriptor::user_sgpr_count(self)
    }
}

/// What a kernel uses; the descriptor and the metadata are derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelResources {
    /// Highest VGPR used + 1 (architected VGPRs; no AGPRs).
    pub next_free_vgpr: u32,
    /// Highest SGPR used + 1 (without VCC / flat scratch / xnack mask).
    pub next_free_sgpr: u32,
    /// Whether the kernel uses VCC.
    pub uses_vcc: bool,
    /// Static LDS bytes per workgroup.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item (0 = no scratch).
    pub private_segment_size: u32,
    /// Bytes of the kernarg segment.
    pub kernarg_size: u32,
    /// The user SGPRs.
    pub user_sgprs: UserSgprs,
    /// Which workgroup ids (x, y, z) the hardware puts in SGPRs after the user SGPRs.
    pub workgroup_id: [bool; 3],
    /// How many work-item id dimensions v0 holds (1..=3).
    pub workitem_id_dims: u8,
    /// The largest workgroup (work-items) the kernel may be launched with.
    pub max_flat_workgroup_size: u32,
    /// Keep f32 denormals (FLOAT_DENORM_MODE_32 = 3, IEEE semantics as MIR needs); `false` is
    /// the assembler default (flush).
    pub f32_denormals: bool,
}

impl Default for KernelResources {
    /// One VGPR and no SGPRs, kernarg pointer and workgroup id x enabled, one work-item
    /// dimension, workgroups of up to 1024 work-items.
    fn default() -> Self {
        KernelResources {
            next_free_vgpr: 1,
            next_free_sgpr: 0,
            uses_vcc: false,
            group_segment_size: 0,
            private_segment_size: 0,
            kernarg_size: 0,
            user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
            workgroup_id: [true, false, false],
            workitem_id_dims: 1,
            max_flat_workgroup_size: 1024,
            f32_denormals: false,
        }
    }
}

impl KernelResources {
    /// Checks the resources against the target's limits.
    pub fn check(&self, target: Target) -> Result<(), String> {
        let max_sgprs = match target.family() {
            Family::Gfx9 => 102,
            Family::Gfx11 => 106,
        };
        if self.next_free_vgpr > 256 {
            return Err(format!("next_free_vgpr {} exceeds 256", self.next_free_vgpr));
        }
        if self.next_free_sgpr > max_sgprs {
            return Err(format!("next_free_sgpr {} exceeds {max_sgprs} on {}", self.next_free_sgpr, target.arch));
        }
        if !(1..=3).contains(&self.workitem_id_dims) {
            return Err(format!("workitem_id_dims {} is not 1, 2 or 3", self.workitem_id_dims));
        }
        if !(1..=1024).contains(&self.max_flat_workgroup_size) {
            return Err(format!("max_flat_workgroup_size {} is not in 1..=1024", self.max_flat_workgroup_size));
        }
        if self.group_segment_size > 65536 {
            return Err(format!("group_segment_size {} exceeds 64 KiB", self.group_segment_size));
        }
        let user = self.user_sgprs.count();
        if user > 16 {
            return Err(format!("{user} user SGPRs exceed 16"));
        }
        if self.private_segment_size > 0 && target.arch == Arch::Gfx90a {
            return Err("scratch on gfx90a needs the private segment buffer and flat scratch \
                        init SGPRs, which are not supported"
                .into());
        }
        Ok(())
    }
}

/// The kind of a kernel argument (its metadata `.value_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A pointer to global memory (`global_buffer`, address space `global`).
    GlobalBuffer,
    /// A value passed in the kernarg segment (`by_value`).
    ByValue,
    /// The dynamic LDS pointer (`dynamic_shared_pointer`, address space `local`).
    DynamicSharedPointer,
    /// A hidden argument; the string is the full value kind, e.g. `hidden_block_count_x`.
    Hidden(&'static str),
}

impl ArgKind {
    /// The metadata `.value_kind` string.
    pub fn value_kind(self) -> &'static str {
        match self {
            ArgKind::GlobalBuffer => "global_buffer",
            ArgKind::ByValue => "by_value",
            ArgKind::DynamicSharedPointer => "dynamic_shared_pointer",
            ArgKind::Hidden(kind) => kind,
        }
    }

    /// The metadata `.address_space`, for pointer kinds.
    pub fn address_space(self) -> Option<&'static str> {
        match self {
            ArgKind::GlobalBuffer => Some("global"),
            ArgKind::DynamicSharedPointer => Some("local"),
            ArgKind::ByValue | ArgKind::Hidden(_) => None,
        }
    }
}

/// One kernel argument in the kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelArg {
    /// Source name (may be empty: then no `.name` key is written).
    pub name: String,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Its kind.
    pub kind: ArgKind,
}

/// One kernel to put in a code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCode {
    /// The kernel's symbol name (the descriptor is `<name>.kd`).
    pub name: String,
    /// Machine code (a multiple of 4 bytes; the entry is its first byte).
    pub code: Vec<u8>,
    /// What it uses.
    pub resources: KernelResources,
    /// Its arguments, in kernarg order.
    pub args: Vec<KernelArg>,
    /// Its source line table, when it has one: the writer then adds DWARF line information
    /// (`.debug_line` and the sections that go with it, see [`crate::dwarf`]).
    pub lines: Option<LineTable>,
}

/// A code object read back by [`read_code_object`].
#[derive(Clone, Debug, PartialEq)]
pub struct CodeObject {
    /// From `e_flags`.
    pub arch: Arch,
    /// From `e_flags` (`Any` on gfx1100).
    pub xnack: FeatureSetting,
    /// From `e_flags` (`Any` on gfx1100).
    pub sramecc: FeatureSetting,
    /// `e_ident[EI_ABIVERSION]` (3 = code object v5).
    pub abi_version: u8,
    /// Every kernel (every global `*.kd` symbol), in symbol-table order.
    pub kernels: Vec<LoadedKernel>,
    /// The whole metadata map (`Nil` when the object has no metadata note).
    pub metadata: msgpack::Value,
}

/// One kernel of a [`CodeObject`].
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedKernel {
    /// The kernel name (the `.kd` symbol without `.kd`).
    pub name: String,
    /// Its code: `st_size` bytes of the kernel symbol (or up to the next symbol / end of the
    /// section when the symbol has no size or is missing).
    pub code: Vec<u8>,
    /// The entry's virtual address (descriptor address + entry offset).
    pub code_vaddr: u64,
    /// The decoded descriptor.
    pub descriptor: KernelDescriptor,
    /// The wave size the descriptor selects.
    pub wave: WaveSize,
    /// This kernel's map from `amdhsa.kernels`, when present.
    pub metadata: Option<msgpack::Value>,
}

impl CodeObject {
    /// The [`Target`] of one kernel.
    pub fn target(&self, kernel: &LoadedKernel) -> Target {
        Target { arch: self.arch, wave: kernel.wave }
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&LoadedKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// Why a code object could not be written or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeObjectError {
    /// A kernel given to the writer is not acceptable.
    InvalidKernel {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// The config or the kernel list as a whole is not acceptable.
    InvalidInput(String),
    /// The bytes are not a well-formed ELF file / code object.
    Malformed(String),
    /// A well-formed object this reader does not handle (other machine, class, target…).
    Unsupported(String),
}

impl fmt::Display for CodeObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeObjectError::InvalidKernel { kernel, reason } => {
                write!(f, "kernel `{kernel}`: {reason}")
            }
            CodeObjectError::InvalidInput(m) => write!(f, "invalid code object input: {m}"),
            CodeObjectError::Malformed(m) => write!(f, "malformed code object: {m}"),
            CodeObjectError::Unsupported(m) => write!(f, "unsupported code object: {m}"),
        }
    }
}

impl std::error::Error for CodeObjectError {}

/// Parses `e_flags` into (arch, xnack, sramecc).
pub fn parse_e_flags(flags: u32) -> Result<(Arch, FeatureSetting, FeatureSetting), CodeObjectError> {
    let mach = flags & EF_AMDGPU_MACH;
    let arch = Arch::ALL
        .into_iter()
        .find(|a| a.mach() == mach)
        .ok_or_else(|| CodeObjectError::Unsupported(format!("EF_AMDGPU_MACH {mach:#x}")))?;
    if arch.has_xnack_sramecc() {
        Ok((
            arch,
            FeatureSetting::from_flag_bits((flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8),
            FeatureSetting::from_flag_bits((flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10),
        ))
    } else {
        Ok((arch, FeatureSetting::Any, FeatureSetting::Any))
    }
}
