//! The 64-byte kernel descriptor (`<kernel>.kd`, docs/amdgcn-isa-facts.md §13): every field decoded,
//! exact encode/decode, and [`KernelDescriptor::from_resources`] with the granule rules of
//! §13.1/§13.5.
//!
//! `decode` keeps the reserved bytes and bits too, so `encode(decode(b)) == b` for any 64 bytes.
//! COMPUTE_PGM_RSRC3 means different things on GFX9 and GFX11, and the descriptor alone does not
//! say which, so it is kept as the raw word with per-family accessors.

use super::{CodeObjectConfig, FeatureSetting, KernelResources};
use crate::target::{Arch, Family, Target, WaveSize};

/// A kernel descriptor, field by field (docs/amdgcn-isa-facts.md §13).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// Bytes 0–3: static LDS bytes per workgroup.
    pub group_segment_fixed_size: u32,
    /// Bytes 4–7: scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes 8–11: kernarg segment bytes.
    pub kernarg_size: u32,
    /// Bytes 16–23: entry address minus descriptor address.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 44–47: COMPUTE_PGM_RSRC3, raw (see [`Self::accum_offset`] and friends).
    pub compute_pgm_rsrc3: u32,

    // --- COMPUTE_PGM_RSRC1 (bytes 48–51) ---
    /// `RSRC1[5:0]` GRANULATED_WORKITEM_VGPR_COUNT.
    pub granulated_workitem_vgpr_count: u8,
    /// `RSRC1[9:6]` GRANULATED_WAVEFRONT_SGPR_COUNT (0 on GFX11).
    pub granulated_wavefront_sgpr_count: u8,
    /// `RSRC1[11:10]` PRIORITY.
    pub priority: u8,
    /// `RSRC1[13:12]` FLOAT_ROUND_MODE_32.
    pub float_round_mode_32: u8,
    /// `RSRC1[15:14]` FLOAT_ROUND_MODE_16_64.
    pub float_round_mode_16_64: u8,
    /// `RSRC1[17:16]` FLOAT_DENORM_MODE_32 (0 flush src+dst … 3 none).
    pub float_denorm_mode_32: u8,
    /// `RSRC1[19:18]` FLOAT_DENORM_MODE_16_64.
    pub float_denorm_mode_16_64: u8,
    /// `RSRC1[20]` PRIV.
    pub privileged: bool,
    /// `RSRC1[21]` ENABLE_DX10_CLAMP.
    pub enable_dx10_clamp: bool,
    /// `RSRC1[22]` DEBUG_MODE.
    pub debug_mode: bool,
    /// `RSRC1[23]` ENABLE_IEEE_MODE.
    pub enable_ieee_mode: bool,
    /// `RSRC1[24]` BULKY.
    pub bulky: bool,
    /// `RSRC1[25]` CDBG_USER.
    pub cdbg_user: bool,
    /// `RSRC1[26]` FP16_OVFL.
    pub fp16_ovfl: bool,
    /// `RSRC1[29]` WGP_MODE (GFX10+).
    pub wgp_mode: bool,
    /// `RSRC1[30]` MEM_ORDERED (GFX10+).
    pub mem_ordered: bool,
    /// `RSRC1[31]` FWD_PROGRESS (GFX10+).
    pub fwd_progress: bool,

    // --- COMPUTE_PGM_RSRC2 (bytes 52–55) ---
    /// `RSRC2[0]` ENABLE_PRIVATE_SEGMENT.
    pub enable_private_segment: bool,
    /// `RSRC2[5:1]` USER_SGPR_COUNT.
    pub user_sgpr_count: u8,
    /// `RSRC2[6]` ENABLE_TRAP_HANDLER.
    pub enable_trap_handler: bool,
    /// `RSRC2[9:7]` ENABLE_SGPR_WORKGROUP_ID_X/Y/Z.
    pub enable_sgpr_workgroup_id: [bool; 3],
    /// `RSRC2[10]` ENABLE_SGPR_WORKGROUP_INFO.
    pub enable_sgpr_workgroup_info: bool,
    /// `RSRC2[12:11]` ENABLE_VGPR_WORKITEM_ID (0 = X, 1 = X,Y, 2 = X,Y,Z).
    pub enable_vgpr_workitem_id: u8,
    /// `RSRC2[13]` ENABLE_EXCEPTION_ADDRESS_WATCH.
    pub enable_exception_address_watch: bool,
    /// `RSRC2[14]` ENABLE_EXCEPTION_MEMORY.
    pub enable_exception_memory: bool,
    /// `RSRC2[23:15]` GRANULATED_LDS_SIZE (must be 0).
    pub granulated_lds_size: u16,
    /// `RSRC2[30:24]` the seven FP/int exception enables (invalid, denorm, div0, overflow,
    /// underflow, inexact, int div0), bit 0 = invalid.
    pub enable_exceptions: u8,

    // --- KERNEL_CODE_PROPERTIES (bytes 56–57) ---
    /// `KCP[0]` ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER.
    pub enable_sgpr_private_segment_buffer: bool,
    /// `KCP[1]` ENABLE_SGPR_DISPATCH_PTR.
    pub enable_sgpr_dispatch_ptr: bool,
    /// `KCP[2]` ENABLE_SGPR_QUEUE_PTR.
    pub enable_sgpr_queue_ptr: bool,
    /// `KCP[3]` ENABLE_SGPR_KERNARG_SEGMENT_PTR.
    pub enable_sgpr_kernarg_segment_ptr: bool,
    /// `KCP[4]` ENABLE_SGPR_DISPATCH_ID.
    pub enable_sgpr_dispatch_id: bool,
    /// `KCP[5]` ENABLE_SGPR_FLAT_SCRATCH_INIT.
    pub enable_sgpr_flat_scratch_init: bool,
    /// `KCP[6]` ENABLE_SGPR_PRIVATE_SEGMENT_SIZE.
    pub enable_sgpr_private_segment_size: bool,
    /// `KCP[10]` ENABLE_WAVEFRONT_SIZE32 (GFX10+; 0 = wave64).
    pub enable_wavefront_size32: bool,
    /// `KCP[11]` USES_DYNAMIC_STACK.
    pub uses_dynamic_stack: bool,

    // --- KERNARG_PRELOAD (bytes 58–59) ---
    /// Preloaded kernarg length in dwords (bits `[6:0]`).
    pub kernarg_preload_length: u8,
    /// Preloaded kernarg offset in dwords (bits `[15:7]`).
    pub kernarg_preload_offset: u16,

    /// Reserved bytes and bits, kept so that decode/encode is exact.
    pub reserved: ReservedBits,
}

/// The reserved parts of a descriptor (all zero in a well-formed one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReservedBits {
    /// Bytes 12–15.
    pub bytes_12: [u8; 4],
    /// Bytes 24–43.
    pub bytes_24: [u8; 20],
    /// Bytes 60–63.
    pub bytes_60: [u8; 4],
    /// RSRC1 bits `[28:27]` (in place).
    pub rsrc1: u32,
    /// RSRC2 bit 31 (in place).
    pub rsrc2: u32,
    /// KERNEL_CODE_PROPERTIES bits `[9:7]` and `[15:12]` (in place).
    pub kernel_code_properties: u16,
}

impl ReservedBits {
    /// Whether every reserved byte and bit is zero.
    pub fn is_zero(&self) -> bool {
        *self == ReservedBits::default()
    }
}

const RSRC1_RESERVED: u32 = 0x1800_0000;
const RSRC2_RESERVED: u32 = 0x8000_0000;
const KCP_RESERVED: u16 = 0xf380;

fn bit(word: u32, n: u32) -> bool {
    (word >> n) & 1 != 0
}

fn field(word: u32, lo: u32, width: u32) -> u32 {
    (word >> lo) & ((1u32 << width) - 1)
}

fn put(value: u32, lo: u32, width: u32) -> u32 {
    (value & ((1u32 << width) - 1)) << lo
}

/// The VGPR allocation granule of a target (docs/amdgcn-isa-facts.md §1, §13.1): 8 on gfx90a/gfx942
/// (unified file), 4 on gfx1100 wave64, 8 on gfx1100 wave32.
pub fn vgpr_granule(target: Target) -> u32 {
    match (target.family(), target.wave) {
        (Family::Gfx9, _) => 8,
        (Family::Gfx11, WaveSize::W64) => 4,
        (Family::Gfx11, WaveSize::W32) => 8,
    }
}

/// RSRC1 GRANULATED_WORKITEM_VGPR_COUNT for `next_free_vgpr` architected VGPRs and no AGPRs
/// (docs/amdgcn-isa-facts.md §13.1): GFX9 `ceil(max(1, align(v, 4)) / 8) − 1`; gfx1100
/// `ceil(max(1, v) / granule) − 1`.
pub fn granulated_vgpr_count(target: Target, next_free_vgpr: u32) -> u32 {
    let v = match target.family() {
        // total = align(arch_vgprs, 4) + agprs, with no AGPRs.
        Family::Gfx9 => next_free_vgpr.max(1).div_ceil(4) * 4,
        Family::Gfx11 => next_free_vgpr.max(1),
    };
    v.div_ceil(vgpr_granule(target)) - 1
}

/// The SGPRs LLVM adds to `next_free_sgpr` before granulating (docs/amdgcn-isa-facts.md §13.5):
/// 2 for VCC, replaced by 4 when xnack is on or "any", replaced by 6 when flat scratch is used
/// or the target has architected flat scratch (gfx942 always). GFX11 only ever adds VCC's 2
/// (and its descriptor field is 0 anyway).
pub fn sgpr_extras(arch: Arch, uses_vcc: bool, xnack: FeatureSetting, flat_scratch: bool) -> u32 {
    let mut extras = if uses_vcc { 2 } else { 0 };
    match arch {
        Arch::Gfx1100 => return extras,
        Arch::Gfx90a | Arch::Gfx942 => {}
    }
    if matches!(xnack, FeatureSetting::On | FeatureSetting::Any) {
        extras = 4;
    }
    let architected_flat_scratch = arch == Arch::Gfx942;
    if flat_scratch || architected_flat_scratch {
        extras = 6;
    }
    extras
}

/// RSRC1 GRANULATED_WAVEFRONT_SGPR_COUNT for a total SGPR count (including extras):
/// GFX9 `ceil(max(1, s) / 8) − 1` as LLVM 19 emits it (docs/amdgcn-isa-facts.md §13.1); GFX11
/// always 0.
pub fn granulated_sgpr_count(arch: Arch, total_sgprs: u32) -> u32 {
    match arch.family() {
        Family::Gfx9 => total_sgprs.max(1).div_ceil(8) - 1,
        Family::Gfx11 => 0,
    }
}

/// The number of user SGPRs the enabled items take (docs/amdgcn-isa-facts.md §13.4, §14.1).
pub fn user_sgpr_count(user: &super::UserSgprs) -> u32 {
    2 * u32::from(user.dispatch_ptr)
        + 2 * u32::from(user.queue_ptr)
        + 2 * u32::from(user.kernarg_segment_ptr)
        + 2 * u32::from(user.dispatch_id)
        + u32::from(user.private_segment_size)
        + u32::from(user.pad)
}

impl KernelDescriptor {
    /// The 64 bytes.
    pub fn encode(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved.bytes_12);
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[24..44].copy_from_slice(&self.reserved.bytes_24);
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.rsrc1().to_le_bytes());
        b[52..56].copy_from_slice(&self.rsrc2().to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties().to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload().to_le_bytes());
        b[60..64].copy_from_slice(&self.reserved.bytes_60);
        b
    }

    /// Decodes 64 bytes (any bytes: reserved parts are kept in [`Self::reserved`]).
    pub fn decode(bytes: &[u8; 64]) -> Self {
        let u32_at = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&bytes[16..24]);
        let mut reserved = ReservedBits::default();
        reserved.bytes_12.copy_from_slice(&bytes[12..16]);
        reserved.bytes_24.copy_from_slice(&bytes[24..44]);
        reserved.bytes_60.copy_from_slice(&bytes[60..64]);
        let r1 = u32_at(48);
        let r2 = u32_at(52);
        let kcp = u16_at(56);
        let preload = u32::from(u16_at(58));
        reserved.rsrc1 = r1 & RSRC1_RESERVED;
        reserved.rsrc2 = r2 & RSRC2_RESERVED;
        reserved.kernel_code_properties = kcp & KCP_RESERVED;
        let kcp = u32::from(kcp);
        KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(entry),
            compute_pgm_rsrc3: u32_at(44),
            granulated_workitem_vgpr_count: field(r1, 0, 6) as u8,
            granulated_wavefront_sgpr_count: field(r1, 6, 4) as u8,
            priority: field(r1, 10, 2) as u8,
            float_round_mode_32: field(r1, 12, 2) as u8,
            float_round_mode_16_64: field(r1, 14, 2) as u8,
            float_denorm_mode_32: field(r1, 16, 2) as u8,
            float_denorm_mode_16_64: field(r1, 18, 2) as u8,
            privileged: bit(r1, 20),
            enable_dx10_clamp: bit(r1, 21),
            debug_mode: bit(r1, 22),
            enable_ieee_mode: bit(r1, 23),
            bulky: bit(r1, 24),
            cdbg_user: bit(r1, 25),
            fp16_ovfl: bit(r1, 26),
            wgp_mode: bit(r1, 29),
            mem_ordered: bit(r1, 30),
            fwd_progress: bit(r1, 31),
            enable_private_segment: bit(r2, 0),
            user_sgpr_count: field(r2, 1, 5) as u8,
            enable_trap_handler: bit(r2, 6),
            enable_sgpr_workgroup_id: [bit(r2, 7), bit(r2, 8), bit(r2, 9)],
            enable_sgpr_workgroup_info: bit(r2, 10),
            enable_vgpr_workitem_id: field(r2, 11, 2) as u8,
            enable_exception_address_watch: bit(r2, 13),
            enable_exception_memory: bit(r2, 14),
            granulated_lds_size: field(r2, 15, 9) as u16,
            enable_exceptions: field(r2, 24, 7) as u8,
            enable_sgpr_private_segment_buffer: bit(kcp, 0),
            enable_sgpr_dispatch_ptr: bit(kcp, 1),
            enable_sgpr_queue_ptr: bit(kcp, 2),
            enable_sgpr_kernarg_segment_ptr: bit(kcp, 3),
            enable_sgpr_dispatch_id: bit(kcp, 4),
            enable_sgpr_flat_scratch_init: bit(kcp, 5),
            enable_sgpr_private_segment_size: bit(kcp, 6),
            enable_wavefront_size32: bit(kcp, 10),
            uses_dynamic_stack: bit(kcp, 11),
            kernarg_preload_length: field(preload, 0, 7) as u8,
            kernarg_preload_offset: field(preload, 7, 9) as u16,
            reserved,
        }
    }

    /// COMPUTE_PGM_RSRC1 as a word (fields wider than their bits are truncated).
    pub fn rsrc1(&self) -> u32 {
        put(self.granulated_workitem_vgpr_count.into(), 0, 6)
            | put(self.granulated_wavefront_sgpr_count.into(), 6, 4)
            | put(self.priority.into(), 10, 2)
            | put(self.float_round_mode_32.into(), 12, 2)
            | put(self.float_round_mode_16_64.into(), 14, 2)
            | put(self.float_denorm_mode_32.into(), 16, 2)
            | put(self.float_denorm_mode_16_64.into(), 18, 2)
            | put(self.privileged.into(), 20, 1)
            | put(self.enable_dx10_clamp.into(), 21, 1)
            | put(self.debug_mode.into(), 22, 1)
            | put(self.enable_ieee_mode.into(), 23, 1)
            | put(self.bulky.into(), 24, 1)
            | put(self.cdbg_user.into(), 25, 1)
            | put(self.fp16_ovfl.into(), 26, 1)
            | put(self.wgp_mode.into(), 29, 1)
            | put(self.mem_ordered.into(), 30, 1)
            | put(self.fwd_progress.into(), 31, 1)
            | (self.reserved.rsrc1 & RSRC1_RESERVED)
    }

    /// COMPUTE_PGM_RSRC2 as a word.
    pub fn rsrc2(&self) -> u32 {
        let [x, y, z] = self.enable_sgpr_workgroup_id;
        put(self.enable_private_segment.into(), 0, 1)
            | put(self.user_sgpr_count.into(), 1, 5)
            | put(self.enable_trap_handler.into(), 6, 1)
            | put(x.into(), 7, 1)
            | put(y.into(), 8, 1)
            | put(z.into(), 9, 1)
            | put(self.enable_sgpr_workgroup_info.into(), 10, 1)
            | put(self.enable_vgpr_workitem_id.into(), 11, 2)
            | put(self.enable_exception_address_watch.into(), 13, 1)
            | put(self.enable_exception_memory.into(), 14, 1)
            | put(self.granulated_lds_size.into(), 15, 9)
            | put(self.enable_exceptions.into(), 24, 7)
            | (self.reserved.rsrc2 & RSRC2_RESERVED)
    }

    /// KERNEL_CODE_PROPERTIES as a half-word.
    pub fn kernel_code_properties(&self) -> u16 {
        let word = put(self.enable_sgpr_private_segment_buffer.into(), 0, 1)
            | put(self.enable_sgpr_dispatch_ptr.into(), 1, 1)
            | put(self.enable_sgpr_queue_ptr.into(), 2, 1)
            | put(self.enable_sgpr_kernarg_segment_ptr.into(), 3, 1)
            | put(self.enable_sgpr_dispatch_id.into(), 4, 1)
            | put(self.enable_sgpr_flat_scratch_init.into(), 5, 1)
            | put(self.enable_sgpr_private_segment_size.into(), 6, 1)
            | put(self.enable_wavefront_size32.into(), 10, 1)
            | put(self.uses_dynamic_stack.into(), 11, 1);
        word as u16 | (self.reserved.kernel_code_properties & KCP_RESERVED)
    }

    /// KERNARG_PRELOAD as a half-word.
    pub(crate) fn kernarg_preload(&self) -> u16 {
        (put(self.kernarg_preload_length.into(), 0, 7) | put(self.kernarg_preload_offset.into(), 7, 9)) as u16
    }

    /// GFX9 `RSRC3[5:0]` ACCUM_OFFSET as the first AGPR index (`(field + 1) * 4`).
    pub fn accum_offset(&self) -> u32 {
        (field(self.compute_pgm_rsrc3, 0, 6) + 1) * 4
    }

    /// GFX9 `RSRC3[16]` TG_SPLIT.
    pub(crate) fn tg_split(&self) -> bool {
        bit(self.compute_pgm_rsrc3, 16)
    }

    /// GFX11 `RSRC3[3:0]` SHARED_VGPR_COUNT.
    pub(crate) fn shared_vgpr_count(&self) -> u32 {
        field(self.compute_pgm_rsrc3, 0, 4)
    }

    /// GFX11 `RSRC3[9:4]` INST_PREF_SIZE (in 128-byte units).
    pub fn inst_pref_size(&self) -> u32 {
        field(self.compute_pgm_rsrc3, 4, 6)
    }

    /// GFX11 `RSRC3[10]` TRAP_ON_START.
    pub fn trap_on_start(&self) -> bool {
        bit(self.compute_pgm_rsrc3, 10)
    }

    /// GFX11 `RSRC3[11]` TRAP_ON_END.
    pub fn trap_on_end(&self) -> bool {
        bit(self.compute_pgm_rsrc3, 11)
    }

    /// GFX11 `RSRC3[31]` IMAGE_OP.
    pub fn image_op(&self) -> bool {
        bit(self.compute_pgm_rsrc3, 31)
    }

    /// The wave size the descriptor selects on `arch` (GFX9 is always wave64).
    pub fn wave_size(&self, arch: Arch) -> WaveSize {
        match arch.family() {
            Family::Gfx11 if self.enable_wavefront_size32 => WaveSize::W32,
            Family::Gfx9 | Family::Gfx11 => WaveSize::W64,
        }
    }

    /// VGPRs the descriptor allocates per work-item (granules times the granule), as
    /// `llvm-objdump` prints `.amdhsa_next_free_vgpr`.
    pub fn allocated_vgprs(&self, target: Target) -> u32 {
        (u32::from(self.granulated_workitem_vgpr_count) + 1) * vgpr_granule(target)
    }

    /// SGPRs the descriptor allocates per wave on GFX9 (granules times 8); 0 on GFX11.
    pub fn allocated_sgprs(&self, arch: Arch) -> u32 {
        match arch.family() {
            Family::Gfx9 => (u32::from(self.granulated_wavefront_sgpr_count) + 1) * 8,
            Family::Gfx11 => 0,
        }
    }

    /// The `.amdhsa_*` directives that describe this descriptor on `arch`, in the order and with
    /// the values `llvm-objdump-19 -D` prints for a `.kd` symbol (VGPR/SGPR counts as allocated
    /// granules; `reserve_*` as 0). Kernarg preload appears only when non-zero (objdump 19 never
    /// prints it). Reserved bits are not shown.
    pub fn directives(&self, arch: Arch) -> Vec<(&'static str, u64)> {
        let gfx9 = arch.family() == Family::Gfx9;
        let target = Target { arch, wave: self.wave_size(arch) };
        let mut d: Vec<(&'static str, u64)> = vec![
            ("group_segment_fixed_size", self.group_segment_fixed_size.into()),
            ("private_segment_fixed_size", self.private_segment_fixed_size.into()),
            ("kernarg_size", self.kernarg_size.into()),
        ];
        if gfx9 {
            d.push(("accum_offset", self.accum_offset().into()));
            d.push(("tg_split", self.tg_split().into()));
        } else if target.wave == WaveSize::W64 {
            // Shared VGPRs exist only in wave64.
            d.push(("shared_vgpr_count", self.shared_vgpr_count().into()));
        }
        d.push(("next_free_vgpr", self.allocated_vgprs(target).into()));
        d.push(("reserve_vcc", 0));
        if arch == Arch::Gfx90a {
            d.push(("reserve_flat_scratch", 0));
        }
        d.push(("reserve_xnack_mask", 0));
        d.push(("next_free_sgpr", ((u32::from(self.granulated_wavefront_sgpr_count) + 1) * 8).into()));
        d.extend([
            ("float_round_mode_32", self.float_round_mode_32.into()),
            ("float_round_mode_16_64", self.float_round_mode_16_64.into()),
            ("float_denorm_mode_32", self.float_denorm_mode_32.into()),
            ("float_denorm_mode_16_64", self.float_denorm_mode_16_64.into()),
            ("dx10_clamp", self.enable_dx10_clamp.into()),
            ("ieee_mode", self.enable_ieee_mode.into()),
            ("fp16_overflow", self.fp16_ovfl.into()),
        ]);
        if !gfx9 {
            d.push(("workgroup_processor_mode", self.wgp_mode.into()));
            d.push(("memory_ordered", self.mem_ordered.into()));
            d.push(("forward_progress", self.fwd_progress.into()));
        }
        let private = if arch == Arch::Gfx90a {
            "system_sgpr_private_segment_wavefront_offset"
        } else {
            "enable_private_segment"
        };
        let [x, y, z] = self.enable_sgpr_workgroup_id;
        d.extend([
            (private, self.enable_private_segment.into()),
            ("system_sgpr_workgroup_id_x", x.into()),
            ("system_sgpr_workgroup_id_y", y.into()),
            ("system_sgpr_workgroup_id_z", z.into()),
            ("system_sgpr_workgroup_info", self.enable_sgpr_workgroup_info.into()),
            ("system_vgpr_workitem_id", self.enable_vgpr_workitem_id.into()),
        ]);
        const EXCEPTIONS: [&str; 7] = [
            "exception_fp_ieee_invalid_op",
            "exception_fp_denorm_src",
            "exception_fp_ieee_div_zero",
            "exception_fp_ieee_overflow",
            "exception_fp_ieee_underflow",
            "exception_fp_ieee_inexact",
            "exception_int_div_zero",
        ];
        for (i, name) in EXCEPTIONS.into_iter().enumerate() {
            d.push((name, u64::from((self.enable_exceptions >> i) & 1)));
        }
        if arch == Arch::Gfx90a {
            d.push(("user_sgpr_private_segment_buffer", self.enable_sgpr_private_segment_buffer.into()));
        }
        d.extend([
            ("user_sgpr_dispatch_ptr", self.enable_sgpr_dispatch_ptr.into()),
            ("user_sgpr_queue_ptr", self.enable_sgpr_queue_ptr.into()),
            ("user_sgpr_kernarg_segment_ptr", self.enable_sgpr_kernarg_segment_ptr.into()),
            ("user_sgpr_dispatch_id", self.enable_sgpr_dispatch_id.into()),
        ]);
        if arch == Arch::Gfx90a {
            d.push(("user_sgpr_flat_scratch_init", self.enable_sgpr_flat_scratch_init.into()));
        }
        if self.kernarg_preload_length != 0 || self.kernarg_preload_offset != 0 {
            d.push(("user_sgpr_kernarg_preload_length", self.kernarg_preload_length.into()));
            d.push(("user_sgpr_kernarg_preload_offset", self.kernarg_preload_offset.into()));
        }
        d.push(("user_sgpr_private_segment_size", self.enable_sgpr_private_segment_size.into()));
        if !gfx9 {
            d.push(("wavefront_size32", self.enable_wavefront_size32.into()));
        }
        d.push(("uses_dynamic_stack", self.uses_dynamic_stack.into()));
        d
    }

    /// The `.amdhsa_kernel <name>` … `.end_amdhsa_kernel` block for [`Self::directives`], one
    /// tab-indented directive per line (what `qdc disasm` prints for a descriptor).
    pub fn to_asm(&self, arch: Arch, name: &str) -> String {
        let mut s = format!(".amdhsa_kernel {name}\n");
        for (key, value) in self.directives(arch) {
            s.push_str(&format!("\t.amdhsa_{key} {value}\n"));
        }
        s.push_str(".end_amdhsa_kernel\n");
        s
    }

    /// The descriptor for a kernel with these resources, with the assembler's defaults for
    /// everything else and xnack "any" (see [`Self::from_config`]).
    ///
    /// `kernel_code_entry_byte_offset` is 0: the code-object writer fills it in.
    pub fn from_resources(target: Target, res: &KernelResources) -> Self {
        let cfg = CodeObjectConfig { target, xnack: FeatureSetting::Any, sramecc: FeatureSetting::Any };
        Self::from_config(&cfg, res)
    }

    /// The descriptor for a kernel with these resources in an object for `cfg` (whose xnack
    /// setting changes the gfx90a SGPR extras, docs/amdgcn-isa-facts.md §13.5).
    ///
    /// Matches what `llvm-mc-19` emits for an `.amdhsa_kernel` block with
    /// `.amdhsa_next_free_vgpr/sgpr` = the resources, `.amdhsa_reserve_vcc` = `uses_vcc`,
    /// `.amdhsa_accum_offset` = `align(max(1, next_free_vgpr), 4)` on GFX9, the user/system
    /// SGPR enables, and the assembler defaults for the float modes
    /// (round nearest-even, f32 denormals flushed, f16/f64 denormals kept, DX10 clamp and IEEE
    /// mode on; on gfx1100 also WGP mode and memory ordering on).
    /// `private_segment_size > 0` enables the private segment (and counts as flat-scratch use
    /// for the gfx90a extras); workitem_id_dims 1/2/3 gives ENABLE_VGPR_WORKITEM_ID 0/1/2.
    pub fn from_config(cfg: &CodeObjectConfig, res: &KernelResources) -> Self {
        let target = cfg.target;
        let arch = target.arch;
        let gfx11 = target.family() == Family::Gfx11;
        let scratch = res.private_segment_size > 0;
        let extras = sgpr_extras(arch, res.uses_vcc, cfg.xnack, scratch);
        let accum_offset_field = match target.family() {
            Family::Gfx9 => res.next_free_vgpr.max(1).div_ceil(4) - 1,
            Family::Gfx11 => 0,
        };
        KernelDescriptor {
            group_segment_fixed_size: res.group_segment_size,
            private_segment_fixed_size: res.private_segment_size,
            kernarg_size: res.kernarg_size,
            kernel_code_entry_byte_offset: 0,
            compute_pgm_rsrc3: accum_offset_field & 0x3f,
            granulated_workitem_vgpr_count: (granulated_vgpr_count(target, res.next_free_vgpr) & 0x3f) as u8,
            granulated_wavefront_sgpr_count: (granulated_sgpr_count(arch, res.next_free_sgpr.saturating_add(extras))
                & 0xf) as u8,
            float_denorm_mode_32: if res.f32_denormals { 3 } else { 0 },
            float_denorm_mode_16_64: 3,
            enable_dx10_clamp: true,
            enable_ieee_mode: true,
            wgp_mode: gfx11,
            mem_ordered: gfx11,
            enable_private_segment: scratch,
            user_sgpr_count: (user_sgpr_count(&res.user_sgprs) & 0x1f) as u8,
            enable_sgpr_workgroup_id: res.workgroup_id,
            enable_vgpr_workitem_id: res.workitem_id_dims.clamp(1, 3) - 1,
            enable_sgpr_dispatch_ptr: res.user_sgprs.dispatch_ptr,
            enable_sgpr_queue_ptr: res.user_sgprs.queue_ptr,
            enable_sgpr_kernarg_segment_ptr: res.user_sgprs.kernarg_segment_ptr,
            enable_sgpr_dispatch_id: res.user_sgprs.dispatch_id,
            enable_sgpr_private_segment_size: res.user_sgprs.private_segment_size,
            enable_wavefront_size32: gfx11 && target.wave == WaveSize::W32,
            ..KernelDescriptor::default()
        }
    }
}
