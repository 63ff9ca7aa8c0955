//! Code objects checked against LLVM 19's tools: `llvm-readelf-19` accepts ours and shows the
//! header, both symbol tables and the metadata; `llvm-objdump-19` decodes our descriptors back to
//! the resources and disassembles our `.text` cleanly; and objects assembled with `llvm-mc-19` and
//! linked with `ld.lld-19` (the docs/amdgcn-isa-facts.md §16 reference kernel, and a sweep of
//! resource sets) have byte-identical descriptors to ours and parse with our reader.
//!
//! Every test prints `SKIPPED …` and passes when a tool is missing.

mod code_object_util;

use std::path::Path;
use std::process::Command;

use code_object_util::*;
use qd_amdgcn_isa::code_object::msgpack::Value;
use qd_amdgcn_isa::code_object::{
    read_code_object, write_code_object, CodeObjectConfig, FeatureSetting, KernelCode, KernelDescriptor,
    KernelResources, UserSgprs,
};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};

const READELF: &str = "llvm-readelf-19";
const OBJDUMP: &str = "llvm-objdump-19";
const MC: &str = "llvm-mc-19";
const LLD: &str = "ld.lld-19";

fn targets() -> Vec<Target> {
    vec![
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ]
}

fn kernel_sets(arch: Arch) -> Vec<Vec<KernelCode>> {
    vec![
        vec![ref_kernel(arch, "shfl")],
        vec![ref_kernel(arch, "shfl"), rich_kernel(arch, "rich_kernel"), ref_kernel(arch, "last")],
    ]
}

/// Runs a tool and returns (stdout, stderr), asserting success.
fn run2(tool: &str, args: &[&str], cwd: &Path) -> (String, String) {
    let out = Command::new(tool).args(args).current_dir(cwd).output().expect("spawn tool");
    let (o, e) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{tool} {args:?} failed:\n{o}\n{e}");
    (o, e)
}

fn write_obj(dir: &Path, name: &str, cfg: &CodeObjectConfig, kernels: &[KernelCode]) -> String {
    let bytes = write_code_object(cfg, kernels).unwrap();
    let file = format!("{name}.co");
    std::fs::write(dir.join(&file), bytes).unwrap();
    file
}

/// The lines of one symbol table in `llvm-readelf -s --dyn-syms` output.
fn symbol_table<'a>(out: &'a str, table: &str) -> Vec<&'a str> {
    let head = format!("Symbol table '{table}'");
    let Some(start) = out.find(&head) else { return Vec::new() };
    let is_entry = |l: &&str| l.split_once(':').is_some_and(|(n, _)| n.trim().parse::<u32>().is_ok());
    out[start..].lines().skip(2).take_while(is_entry).collect()
}

#[test]
fn readelf_shows_header_symbols_and_metadata() {
    if !tools_present("readelf_shows_header_symbols_and_metadata", &[READELF]) {
        return;
    }
    let dir = scratch_dir("readelf");
    for target in targets() {
        for (set, kernels) in kernel_sets(target.arch).into_iter().enumerate() {
            let cfg = CodeObjectConfig::new(target);
            let file = write_obj(&dir, &format!("{}-{}-{set}", target.arch, target.wave.lanes()), &cfg, &kernels);
            let (out, err) = run2(READELF, &["-h", "-l", "-S", "-s", "--dyn-syms", "--notes", &file], &dir);
            assert!(err.trim().is_empty(), "{target}: readelf warned:\n{err}");
            let field = |key: &str| line_with(&out, key).unwrap_or_else(|| panic!("{key} missing:\n{out}"));
            assert!(field("Type:").ends_with("DYN (Shared object file)"));
            assert!(field("OS/ABI:").ends_with("AMDGPU - HSA"));
            assert!(field("ABI Version:").ends_with(" 3"));
            assert!(field("Machine:").ends_with("EM_AMDGPU"));
            let flags = field("Flags:");
            assert!(flags.contains(&format!("0x{:X}, {}", cfg.e_flags(), target.arch)), "{flags}");
            if target.arch.has_xnack_sramecc() {
                assert!(flags.ends_with("xnack, sramecc"), "{flags}");
            }
            // Segments: .text alone in the R E LOAD, the note in NOTE.
            assert!(out.contains("LOAD") && out.contains("R E") && out.contains("GNU_STACK"));
            assert!(out.lines().any(|l| l.trim() == "02     .text"), "{out}");
            for table in [".dynsym", ".symtab"] {
                let syms = symbol_table(&out, table);
                assert_eq!(syms.len(), 1 + 2 * kernels.len(), "{table}:\n{out}");
                for k in &kernels {
                    let f = syms.iter().find(|l| l.ends_with(&format!(" {}", k.name))).expect("kernel symbol");
                    assert!(f.contains(&format!("{} FUNC    GLOBAL PROTECTED", k.code.len())), "{f}");
                    let kd = syms.iter().find(|l| l.ends_with(&format!(" {}.kd", k.name))).expect("kd symbol");
                    assert!(kd.contains("64 OBJECT  GLOBAL DEFAULT"), "{kd}");
                }
            }
            // The metadata note as YAML.
            assert!(out.contains("NT_AMDGPU_METADATA (AMDGPU Metadata)"));
            assert!(field("amdhsa.target:").ends_with(&cfg.target_id()));
            assert!(out.contains("amdhsa.version:\n  - 1\n  - 2"), "{out}");
            for k in &kernels {
                assert!(out.contains(&format!(".name:           {}\n", k.name)));
                assert!(out.contains(&format!(".symbol:         {}.kd\n", k.name)));
            }
            let count = |key: &str| out.matches(key).count();
            assert_eq!(
                count(".vgpr_count:     2\n"),
                kernels.iter().filter(|k| k.resources.next_free_vgpr == 2).count()
            );
            assert_eq!(count(&format!(".wavefront_size: {}\n", target.wave.lanes())), kernels.len());
            assert_eq!(
                count(".kernarg_segment_size: 8\n"),
                kernels.iter().filter(|k| k.resources.kernarg_size == 8).count()
            );
            assert_eq!(count(".agpr_count:     0\n"), if target.family() == Family::Gfx9 { kernels.len() } else { 0 });
            let sgprs = if target.family() == Family::Gfx9 { 12 } else { 6 };
            if target.arch != Arch::Gfx90a {
                assert!(out.contains(&format!(".sgpr_count:     {sgprs}\n")), "{out}");
            }
            if kernels.len() > 1 {
                for needle in [
                    ".value_kind:     by_value",
                    ".value_kind:     hidden_block_count_x",
                    ".name:           out",
                    ".vgpr_count:     37",
                    ".group_segment_fixed_size: 4096",
                    ".max_flat_workgroup_size: 256",
                ] {
                    assert!(out.contains(needle), "{needle}:\n{out}");
                }
            }
        }
    }
}

/// The `.amdhsa_*` block llvm-objdump prints for `<name>.kd`.
fn kd_block<'a>(out: &'a str, name: &str) -> &'a str {
    let start = out.find(&format!("<{name}.kd>:")).unwrap_or_else(|| panic!("{name}.kd missing:\n{out}"));
    let rest = &out[start..];
    &rest[..rest.find(".end_amdhsa_kernel").unwrap_or(rest.len())]
}

#[test]
fn objdump_decodes_descriptors_back_to_the_resources() {
    if !tools_present("objdump_decodes_descriptors_back_to_the_resources", &[OBJDUMP]) {
        return;
    }
    let dir = scratch_dir("kd");
    for target in targets() {
        let kernels = &kernel_sets(target.arch)[1];
        let cfg = CodeObjectConfig::new(target);
        let file = write_obj(&dir, &format!("{}-{}", target.arch, target.wave.lanes()), &cfg, kernels);
        let out = run(OBJDUMP, &["-D", "-j", ".rodata", &format!("--mcpu={}", target.arch), &file], &dir);
        for k in kernels {
            let b = kd_block(&out, &k.name);
            let v = |key: &str| amdhsa_value(b, key).unwrap_or_else(|| panic!("{key} missing:\n{b}"));
            let r = &k.resources;
            let kd = KernelDescriptor::from_config(&cfg, r);
            // Our printer says exactly what llvm-objdump says, line for line.
            let ours = kd.to_asm(target.arch, &k.name);
            let theirs: Vec<&str> = b
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with(".amdhsa_") && !l.starts_with(".amdhsa_kernel"))
                .collect();
            let ours_lines: Vec<&str> = ours
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with(".amdhsa_") && !l.starts_with(".amdhsa_kernel"))
                .collect();
            assert_eq!(ours_lines, theirs, "{target} {}", k.name);
            assert_eq!(v(".amdhsa_next_free_vgpr"), u64::from(kd.allocated_vgprs(target)));
            assert!(v(".amdhsa_next_free_vgpr") >= u64::from(r.next_free_vgpr));
            assert_eq!(v(".amdhsa_next_free_sgpr"), 8 * (u64::from(kd.granulated_wavefront_sgpr_count) + 1));
            assert_eq!(v(".amdhsa_kernarg_size"), u64::from(r.kernarg_size));
            assert_eq!(v(".amdhsa_group_segment_fixed_size"), u64::from(r.group_segment_size));
            assert_eq!(v(".amdhsa_private_segment_fixed_size"), u64::from(r.private_segment_size));
            assert_eq!(v(".amdhsa_user_sgpr_kernarg_segment_ptr"), u64::from(r.user_sgprs.kernarg_segment_ptr));
            assert_eq!(v(".amdhsa_user_sgpr_dispatch_ptr"), u64::from(r.user_sgprs.dispatch_ptr));
            assert_eq!(v(".amdhsa_user_sgpr_queue_ptr"), u64::from(r.user_sgprs.queue_ptr));
            assert_eq!(v(".amdhsa_user_sgpr_dispatch_id"), u64::from(r.user_sgprs.dispatch_id));
            for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                let key = format!(".amdhsa_system_sgpr_workgroup_id_{axis}");
                assert_eq!(v(&key), u64::from(r.workgroup_id[i]));
            }
            assert_eq!(v(".amdhsa_system_vgpr_workitem_id"), u64::from(r.workitem_id_dims - 1));
            assert_eq!(v(".amdhsa_float_denorm_mode_16_64"), 3);
            assert_eq!((v(".amdhsa_dx10_clamp"), v(".amdhsa_ieee_mode")), (1, 1));
            match target.family() {
                Family::Gfx9 => {
                    assert_eq!(v(".amdhsa_accum_offset"), u64::from(r.next_free_vgpr.div_ceil(4) * 4));
                }
                Family::Gfx11 => {
                    assert_eq!(v(".amdhsa_wavefront_size32"), u64::from(target.wave == WaveSize::W32));
                    assert_eq!((v(".amdhsa_workgroup_processor_mode"), v(".amdhsa_memory_ordered")), (1, 1));
                }
            }
        }
    }
}

#[test]
fn objdump_disassembles_text_without_unknowns() {
    if !tools_present("objdump_disassembles_text_without_unknowns", &[OBJDUMP]) {
        return;
    }
    let dir = scratch_dir("text");
    for target in targets() {
        let kernels = &kernel_sets(target.arch)[1];
        let cfg = CodeObjectConfig::new(target);
        let file = write_obj(&dir, &format!("{}-{}", target.arch, target.wave.lanes()), &cfg, kernels);
        let mattr = match (target.family(), target.wave) {
            (Family::Gfx11, WaveSize::W64) => "--mattr=+wavefrontsize64",
            _ => "--mattr=",
        };
        let out = run(OBJDUMP, &["-d", &format!("--mcpu={}", target.arch), mattr, &file], &dir);
        assert!(!out.contains("<unknown>"), "{target}:\n{out}");
        for k in kernels {
            assert!(out.contains(&format!("<{}>:", k.name)), "{out}");
        }
        let endpgm = out.lines().filter(|l| l.trim_start().starts_with("s_endpgm")).count();
        assert_eq!(endpgm, kernels.iter().map(|k| k.code.len() / 60).sum::<usize>(), "{out}");
        let perm = out.matches("v_permlane64_b32 v1, v1").count();
        assert_eq!(perm > 0, target.family() == Family::Gfx11);
        let code_end = out.lines().filter(|l| l.trim_start().starts_with("s_code_end")).count();
        assert_eq!(code_end >= 96, target.family() == Family::Gfx11, "{out}");
    }
}

// ------------------------------------------------------------------------------------------
// lld-linked objects

/// Doc §16.2 listing as assembler text.
fn ref_listing(arch: Arch) -> &'static str {
    match arch.family() {
        Family::Gfx9 => {
            "  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_lshl_b32 s2, s2, 6
  v_add_u32_e32 v0, s2, v0
  v_lshlrev_b32_e32 v0, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v0, s[4:5]
  s_waitcnt vmcnt(0)
  s_nop 0
  v_add_u32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  global_store_dword v0, v1, s[4:5]
  s_endpgm
"
        }
        Family::Gfx11 => {
            "  s_load_b64 s[4:5], s[0:1], 0x0
  s_lshl_b32 s2, s2, 6
  v_add_nc_u32_e32 v0, s2, v0
  v_lshlrev_b32_e32 v0, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v0, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_nc_u32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_permlane64_b32 v1, v1
  global_store_b32 v0, v1, s[4:5]
  s_endpgm
"
        }
    }
}

/// `.amdhsa_kernel` directives for resources, the way our descriptor reads them.
fn amdhsa_block(cfg: &CodeObjectConfig, name: &str, r: &KernelResources) -> String {
    let t = cfg.target;
    let mut s = format!(".amdhsa_kernel {name}\n");
    let mut d = |k: &str, v: u64| s.push_str(&format!("  .amdhsa_{k} {v}\n"));
    d("group_segment_fixed_size", r.group_segment_size.into());
    d("private_segment_fixed_size", r.private_segment_size.into());
    d("kernarg_size", r.kernarg_size.into());
    d("user_sgpr_dispatch_ptr", r.user_sgprs.dispatch_ptr.into());
    d("user_sgpr_queue_ptr", r.user_sgprs.queue_ptr.into());
    d("user_sgpr_kernarg_segment_ptr", r.user_sgprs.kernarg_segment_ptr.into());
    d("user_sgpr_dispatch_id", r.user_sgprs.dispatch_id.into());
    d("user_sgpr_private_segment_size", r.user_sgprs.private_segment_size.into());
    let private = (r.private_segment_size > 0).into();
    match t.arch {
        Arch::Gfx90a => d("system_sgpr_private_segment_wavefront_offset", private),
        Arch::Gfx942 | Arch::Gfx1100 => d("enable_private_segment", private),
    }
    d("system_sgpr_workgroup_id_x", r.workgroup_id[0].into());
    d("system_sgpr_workgroup_id_y", r.workgroup_id[1].into());
    d("system_sgpr_workgroup_id_z", r.workgroup_id[2].into());
    d("system_vgpr_workitem_id", u64::from(r.workitem_id_dims - 1));
    d("next_free_vgpr", r.next_free_vgpr.into());
    d("next_free_sgpr", r.next_free_sgpr.into());
    d("reserve_vcc", r.uses_vcc.into());
    match t.family() {
        Family::Gfx9 => {
            d("accum_offset", u64::from(r.next_free_vgpr.max(1).div_ceil(4) * 4));
            d("reserve_xnack_mask", (cfg.xnack != FeatureSetting::Off).into());
            if t.arch == Arch::Gfx90a {
                d("reserve_flat_scratch", 0);
            }
        }
        Family::Gfx11 => d("wavefront_size32", (t.wave == WaveSize::W32).into()),
    }
    s.push_str(".end_amdhsa_kernel\n");
    s
}

/// Assembles and links kernels (code from `body`) with llvm-mc-19 + ld.lld-19; returns the
/// linked file's bytes and the relocatable object's bytes.
fn lld_object(
    dir: &Path,
    tag: &str,
    cfg: &CodeObjectConfig,
    kernels: &[(&str, &KernelResources, String)],
    metadata_yaml: &str,
) -> (Vec<u8>, Vec<u8>) {
    let t = cfg.target;
    let mut asm = format!(".amdgcn_target \"{}\"\n.amdhsa_code_object_version 5\n", cfg.target_id());
    for (name, _, body) in kernels {
        asm.push_str(&format!(
            ".text\n.globl {name}\n.p2align 8\n.type {name},@function\n{name}:\n{body}.L{name}_end:\n\
             .size {name}, .L{name}_end-{name}\n"
        ));
    }
    for (name, r, _) in kernels {
        asm.push_str(&format!(".rodata\n.p2align 6\n{}", amdhsa_block(cfg, name, r)));
    }
    asm.push_str(metadata_yaml);
    let s = format!("{tag}.s");
    std::fs::write(dir.join(&s), asm).unwrap();
    let mut mattr = match t.wave {
        WaveSize::W64 if t.family() == Family::Gfx11 => vec!["+wavefrontsize64"],
        WaveSize::W32 => vec!["+wavefrontsize32"],
        WaveSize::W64 => vec![],
    };
    match cfg.xnack {
        FeatureSetting::On => mattr.push("+xnack"),
        FeatureSetting::Off => mattr.push("-xnack"),
        FeatureSetting::Any => {}
    }
    match cfg.sramecc {
        FeatureSetting::On => mattr.push("+sramecc"),
        FeatureSetting::Off => mattr.push("-sramecc"),
        FeatureSetting::Any => {}
    }
    let mcpu = format!("-mcpu={}", t.arch);
    let mattr = format!("-mattr={}", mattr.join(","));
    let (o, co) = (format!("{tag}.o"), format!("{tag}.co"));
    run(MC, &["-triple=amdgcn-amd-amdhsa", &mcpu, &mattr, "-filetype=obj", &s, "-o", &o], dir);
    run(LLD, &["-shared", &o, "-o", &co], dir);
    (std::fs::read(dir.join(co)).unwrap(), std::fs::read(dir.join(o)).unwrap())
}

const REF_YAML_GFX9: &str = ".amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 64
    .name:           shfl
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .symbol:         shfl.kd
    .vgpr_count:     2
    .agpr_count:     0
    .wavefront_size: 64
amdhsa.target:   TARGET
amdhsa.version:
  - 1
  - 2
...
.end_amdgpu_metadata
";

#[test]
fn lld_reference_kernel_matches_ours() {
    if !tools_present("lld_reference_kernel_matches_ours", &[MC, LLD]) {
        return;
    }
    let dir = scratch_dir("lld-ref");
    for arch in Arch::ALL {
        let cfg = CodeObjectConfig::new(Target::wave64(arch));
        let yaml = match arch.family() {
            // gfx90a with xnack "any" adds 4 SGPRs (xnack mask), not gfx942's 6
            // (docs/amdgcn-isa-facts.md §13.5).
            Family::Gfx9 if arch == Arch::Gfx90a => {
                REF_YAML_GFX9.replace("TARGET", &cfg.target_id()).replace(".sgpr_count:     12", ".sgpr_count:     10")
            }
            Family::Gfx9 => REF_YAML_GFX9.replace("TARGET", &cfg.target_id()),
            Family::Gfx11 => REF_YAML_GFX9
                .replace("TARGET", &cfg.target_id())
                .replace("    .agpr_count:     0\n", "")
                .replace(".sgpr_count:     12", ".sgpr_count:     6"),
        };
        let res = ref_resources();
        let (linked, relocatable) =
            lld_object(&dir, arch.name(), &cfg, &[("shfl", &res, ref_listing(arch).to_string())], &yaml);
        let obj = read_code_object(&linked).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(obj.arch, arch);
        assert_eq!(obj.abi_version, 3);
        assert_eq!(obj.kernels.len(), 1);
        let k = &obj.kernels[0];
        assert_eq!(k.name, "shfl");
        assert_eq!(k.code, ref_code(arch), "{arch}: llvm-mc's bytes are the docs/amdgcn-isa-facts.md §16.2 words");
        assert_eq!(k.code_vaddr, 0x1500);
        assert_eq!(k.wave, WaveSize::W64);
        // Same descriptor bytes as ours for the same resources.
        let mut ours = KernelDescriptor::from_config(&cfg, &res);
        ours.kernel_code_entry_byte_offset = 0x10C0;
        assert_eq!(k.descriptor.encode(), ours.encode(), "{arch}");
        assert_eq!(k.descriptor, ours);
        // The metadata LLVM wrote is what ours says for the keys the reference has.
        let meta = k.metadata.as_ref().expect("kernel metadata");
        let our_meta = qd_amdgcn_isa::code_object::metadata::kernel_map(&cfg, &ref_kernel(arch, "shfl"));
        for (key, value) in meta.as_map().unwrap() {
            let key = key.as_str().unwrap();
            assert_eq!(our_meta.get(key), Some(value), "{arch} {key}");
        }
        assert_eq!(obj.metadata.get("amdhsa.target").and_then(Value::as_str), Some(cfg.target_id().as_str()));
        // The docs/amdgcn-isa-facts.md §16.3 bytes for gfx942 / gfx1100 and its e_flags / file size.
        if arch != Arch::Gfx90a {
            assert_eq!(&linked[48..52], &cfg.e_flags().to_le_bytes());
            assert_eq!(linked.len(), 2616, "{arch}: docs/amdgcn-isa-facts.md §16.3 file size");
        }
        // llvm-mc's relocatable object parses too (code through the symbol).
        let rel = read_code_object(&relocatable).unwrap_or_else(|e| panic!("{arch} .o: {e}"));
        assert_eq!(rel.kernels.len(), 1);
        assert_eq!(rel.kernels[0].code, ref_code(arch));
        assert_eq!(rel.kernels[0].descriptor.rsrc1(), ours.rsrc1());
    }
}

fn words_asm(code: &[u8]) -> String {
    code.chunks(4).map(|w| format!("  .long 0x{:08x}\n", u32::from_le_bytes([w[0], w[1], w[2], w[3]]))).collect()
}

/// Resource sets that move every field our descriptor derives.
fn resource_sweep() -> Vec<KernelResources> {
    let base = ref_resources();
    vec![
        base,
        KernelResources { next_free_vgpr: 1, next_free_sgpr: 1, ..base },
        KernelResources { next_free_vgpr: 9, next_free_sgpr: 17, uses_vcc: true, ..base },
        KernelResources { next_free_vgpr: 33, next_free_sgpr: 25, group_segment_size: 65536, ..base },
        KernelResources {
            next_free_vgpr: 65,
            next_free_sgpr: 96,
            workgroup_id: [true, true, true],
            workitem_id_dims: 3,
            ..base
        },
        KernelResources { next_free_vgpr: 129, next_free_sgpr: 102, uses_vcc: true, workitem_id_dims: 2, ..base },
        KernelResources { next_free_vgpr: 256, next_free_sgpr: 40, kernarg_size: 264, ..base },
        KernelResources {
            next_free_vgpr: 24,
            next_free_sgpr: 12,
            user_sgprs: UserSgprs {
                dispatch_ptr: true,
                queue_ptr: true,
                kernarg_segment_ptr: true,
                dispatch_id: true,
                private_segment_size: true,
                pad: 0,
            },
            workgroup_id: [false, false, true],
            ..base
        },
        KernelResources { next_free_vgpr: 4, next_free_sgpr: 8, private_segment_size: 64, ..base },
    ]
}

#[test]
fn lld_descriptors_match_ours_across_resources_and_targets() {
    if !tools_present("lld_descriptors_match_ours_across_resources_and_targets", &[MC, LLD]) {
        return;
    }
    let dir = scratch_dir("lld-sweep");
    let mut configs: Vec<CodeObjectConfig> = targets().into_iter().map(CodeObjectConfig::new).collect();
    for (xnack, sramecc) in [(FeatureSetting::Off, FeatureSetting::Any), (FeatureSetting::On, FeatureSetting::Off)] {
        for arch in [Arch::Gfx90a, Arch::Gfx942] {
            configs.push(CodeObjectConfig { target: Target::wave64(arch), xnack, sramecc });
        }
    }
    for (ci, cfg) in configs.iter().enumerate() {
        let sweep: Vec<KernelResources> =
            resource_sweep().into_iter().filter(|r| r.check(cfg.target).is_ok()).collect();
        let names: Vec<String> = (0..sweep.len()).map(|i| format!("k{i}")).collect();
        let code = words_asm(&ref_code(cfg.target.arch));
        let kernels: Vec<(&str, &KernelResources, String)> =
            names.iter().zip(&sweep).map(|(n, r)| (n.as_str(), r, code.clone())).collect();
        let (linked, _) = lld_object(&dir, &format!("sweep{ci}"), cfg, &kernels, "");
        assert_eq!(&linked[48..52], &cfg.e_flags().to_le_bytes(), "{:?}", cfg);
        let obj = read_code_object(&linked).unwrap();
        assert_eq!((obj.arch, obj.metadata.clone()), (cfg.target.arch, Value::Nil));
        if cfg.target.arch.has_xnack_sramecc() {
            assert_eq!((obj.xnack, obj.sramecc), (cfg.xnack, cfg.sramecc));
        }
        assert_eq!(obj.kernels.len(), sweep.len());
        for (k, r) in obj.kernels.iter().zip(&sweep) {
            let mut ours = KernelDescriptor::from_config(cfg, r);
            ours.kernel_code_entry_byte_offset = k.descriptor.kernel_code_entry_byte_offset;
            assert_eq!(k.descriptor.encode(), ours.encode(), "{:?} {} {r:?}", cfg, k.name);
            assert_eq!(k.code, ref_code(cfg.target.arch));
            assert_eq!(k.code_vaddr % 256, 0);
            assert_eq!(k.wave, cfg.target.wave);
        }
    }
}

/// Random descriptors (reserved bits clear) patched into an object print the same through
/// `KernelDescriptor::to_asm` as through llvm-objdump.
#[test]
fn objdump_and_our_printer_agree_on_random_descriptors() {
    if !tools_present("objdump_and_our_printer_agree_on_random_descriptors", &[OBJDUMP]) {
        return;
    }
    let dir = scratch_dir("kd-random");
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for target in targets() {
        let cfg = CodeObjectConfig::new(target);
        let kernels: Vec<KernelCode> = (0..16).map(|i| ref_kernel(target.arch, &format!("r{i}"))).collect();
        let mut bytes = write_code_object(&cfg, &kernels).unwrap();
        let obj = read_code_object(&bytes).unwrap();
        let mut want = Vec::new();
        for (i, k) in obj.kernels.iter().enumerate() {
            let mut raw = [0u8; 64];
            for chunk in raw.chunks_mut(8) {
                chunk.copy_from_slice(&next().to_le_bytes());
            }
            let mut kd = KernelDescriptor::decode(&raw);
            kd.reserved = Default::default();
            kd.kernel_code_entry_byte_offset = k.descriptor.kernel_code_entry_byte_offset;
            kd.granulated_lds_size = 0;
            kd.enable_trap_handler = false;
            kd.enable_exception_address_watch = false;
            kd.enable_exception_memory = false;
            kd.priority = 0;
            kd.privileged = false;
            kd.debug_mode = false;
            kd.bulky = false;
            kd.cdbg_user = false;
            kd.kernarg_preload_length = 0;
            kd.kernarg_preload_offset = 0;
            kd.compute_pgm_rsrc3 &= match target.family() {
                Family::Gfx9 => 0x1003f,
                Family::Gfx11 => 0xf,
            };
            if target.family() == Family::Gfx9 {
                kd.granulated_wavefront_sgpr_count %= 14;
                kd.enable_wavefront_size32 = false;
                kd.wgp_mode = false;
                kd.mem_ordered = false;
                kd.fwd_progress = false;
            } else {
                kd.granulated_wavefront_sgpr_count = 0;
                kd.enable_wavefront_size32 = target.wave == WaveSize::W32;
                if kd.enable_wavefront_size32 {
                    kd.compute_pgm_rsrc3 = 0;
                }
            }
            if target.arch != Arch::Gfx90a {
                kd.enable_sgpr_private_segment_buffer = false;
                kd.enable_sgpr_flat_scratch_init = false;
            }
            // The R segment maps file offset = vaddr; descriptors are consecutive.
            let at = (k.code_vaddr as i64 - k.descriptor.kernel_code_entry_byte_offset) as usize;
            if i > 0 {
                let first = &obj.kernels[0];
                let first_at = first.code_vaddr as i64 - first.descriptor.kernel_code_entry_byte_offset;
                assert_eq!(at, first_at as usize + 64 * i, "descriptor placement");
            }
            bytes[at..at + 64].copy_from_slice(&kd.encode());
            want.push((k.name.clone(), kd));
        }
        let file = format!("{}-{}.co", target.arch, target.wave.lanes());
        std::fs::write(dir.join(&file), &bytes).unwrap();
        let out = run(OBJDUMP, &["-D", "-j", ".rodata", &format!("--mcpu={}", target.arch), &file], &dir);
        for (name, kd) in want {
            let b = kd_block(&out, &name);
            let directive = |l: &&str| l.starts_with(".amdhsa_") && !l.starts_with(".amdhsa_kernel");
            let theirs: Vec<&str> = b.lines().map(str::trim).filter(directive).collect();
            let ours = kd.to_asm(target.arch, &name);
            let ours: Vec<&str> = ours.lines().map(str::trim).filter(directive).collect();
            assert_eq!(ours, theirs, "{target} {name} {kd:?}\n{b}");
        }
    }
}
