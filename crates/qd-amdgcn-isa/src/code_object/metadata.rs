//! The NT_AMDGPU_METADATA map (docs/amdgcn-isa-facts.md §15): built from the kernels, keys sorted as
//! LLVM writes them, and the note record around it (docs/amdgcn-isa-facts.md §12.6).

use super::msgpack::Value;
use super::{descriptor, CodeObjectConfig, KernelArg, KernelCode, NT_AMDGPU_METADATA};
use crate::target::Family;

/// The `.sgpr_count` of a kernel: `next_free_sgpr` plus the extras of docs/amdgcn-isa-facts.md §13.5
/// (on gfx1100 only VCC's 2, when used).
pub fn sgpr_count(cfg: &CodeObjectConfig, k: &KernelCode) -> u32 {
    let r = &k.resources;
    r.next_free_sgpr.saturating_add(descriptor::sgpr_extras(
        cfg.target.arch,
        r.uses_vcc,
        cfg.xnack,
        r.private_segment_size > 0,
    ))
}

/// The `.kernarg_segment_align`: the largest natural alignment of an argument
/// (its size rounded up to a power of two, at most 16), at least 4.
pub fn kernarg_segment_align(args: &[KernelArg]) -> u32 {
    args.iter().map(|a| a.size.max(1).next_power_of_two().min(16)).max().unwrap_or(4).max(4)
}

fn arg_map(arg: &KernelArg) -> Value {
    let mut entries = Vec::new();
    if let Some(space) = arg.kind.address_space() {
        entries.push((".address_space", Value::str(space)));
    }
    if !arg.name.is_empty() {
        entries.push((".name", Value::str(arg.name.clone())));
    }
    entries.push((".offset", Value::UInt(arg.offset.into())));
    entries.push((".size", Value::UInt(arg.size.into())));
    entries.push((".value_kind", Value::str(arg.kind.value_kind())));
    Value::map(entries).sorted()
}

/// The per-kernel map of `amdhsa.kernels`.
pub fn kernel_map(cfg: &CodeObjectConfig, k: &KernelCode) -> Value {
    let r = &k.resources;
    let mut entries = vec![
        (".args", Value::Array(k.args.iter().map(arg_map).collect())),
        (".group_segment_fixed_size", Value::UInt(r.group_segment_size.into())),
        (".kernarg_segment_align", Value::UInt(kernarg_segment_align(&k.args).into())),
        (".kernarg_segment_size", Value::UInt(r.kernarg_size.into())),
        (".max_flat_workgroup_size", Value::UInt(r.max_flat_workgroup_size.into())),
        (".name", Value::str(k.name.clone())),
        (".private_segment_fixed_size", Value::UInt(r.private_segment_size.into())),
        (".sgpr_count", Value::UInt(sgpr_count(cfg, k).into())),
        (".sgpr_spill_count", Value::UInt(0)),
        (".symbol", Value::str(format!("{}.kd", k.name))),
        (".uses_dynamic_stack", Value::Bool(false)),
        (".vgpr_count", Value::UInt(r.next_free_vgpr.into())),
        (".vgpr_spill_count", Value::UInt(0)),
        (".wavefront_size", Value::UInt(cfg.target.wave.lanes().into())),
    ];
    match cfg.target.family() {
        Family::Gfx9 => entries.push((".agpr_count", Value::UInt(0))),
        Family::Gfx11 => entries.push((".workgroup_processor_mode", Value::UInt(1))),
    }
    Value::map(entries).sorted()
}

/// The whole metadata map: `amdhsa.kernels`, `amdhsa.target`, `amdhsa.version` = [1, 2] (v5).
pub fn metadata(cfg: &CodeObjectConfig, kernels: &[KernelCode]) -> Value {
    Value::map([
        ("amdhsa.kernels", Value::Array(kernels.iter().map(|k| kernel_map(cfg, k)).collect())),
        ("amdhsa.target", Value::str(cfg.target_id())),
        ("amdhsa.version", Value::Array(vec![Value::UInt(1), Value::UInt(2)])),
    ])
    .sorted()
}

/// A complete note record: namesz 7, descsz, type 32, `"AMDGPU\0"` padded to 8, the msgpack
/// blob padded to a multiple of 4.
pub(crate) fn note_record(msgpack: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(20 + msgpack.len() + 3);
    out.extend_from_slice(&7u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(msgpack.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
    out.extend_from_slice(b"AMDGPU\0\0");
    out.extend_from_slice(msgpack);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}
