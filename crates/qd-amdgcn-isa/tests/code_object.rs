//! Code-object tests that need no external tool: the kernel descriptor (the docs/amdgcn-isa-facts.md
//! §16.3 reference bytes, the §13.1 granule tables, the §13.2/§13.4 example words, exact round
//! trips), e_flags and target ids, the metadata map, and writer → reader round trips for every
//! target.

mod code_object_util;

use code_object_util::{ref_kernel, ref_resources, rich_kernel};
use proptest::prelude::*;
use qd_amdgcn_isa::code_object::descriptor::{granulated_sgpr_count, granulated_vgpr_count, sgpr_extras};
use qd_amdgcn_isa::code_object::msgpack::Value;
use qd_amdgcn_isa::code_object::{
    metadata, read_code_object, write_code_object, ArgKind, CodeObjectConfig, CodeObjectError, FeatureSetting,
    KernelArg, KernelCode, KernelDescriptor, KernelResources, UserSgprs,
};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Doc §16.3: the lld-linked descriptors of the reference kernel (kd at 0x440, code at 0x1500).
const REF_KD_GFX942: &str = "00000000 00000000 08000000 00000000 c0100000 00000000 00000000 00000000
     00000000 00000000 00000000 00000000 4000ac00 84000000 08000000 00000000";
const REF_KD_GFX1100: &str = "00000000 00000000 08000000 00000000 c0100000 00000000 00000000 00000000
     00000000 00000000 00000000 00000000 0000ac60 84000000 08000000 00000000";

fn all_targets() -> Vec<Target> {
    vec![
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ]
}

#[test]
fn reference_descriptors_are_exact() {
    for (arch, want) in [(Arch::Gfx942, REF_KD_GFX942), (Arch::Gfx1100, REF_KD_GFX1100)] {
        let mut kd = KernelDescriptor::from_resources(Target::wave64(arch), &ref_resources());
        kd.kernel_code_entry_byte_offset = 0x1500 - 0x440;
        assert_eq!(kd.encode().to_vec(), hex(want), "{arch}");
        let back = KernelDescriptor::decode(&kd.encode());
        assert_eq!(back, kd);
        assert!(back.reserved.is_zero());
    }
    // The decoded reading llvm-objdump gives (docs/amdgcn-isa-facts.md §16.3).
    let kd = KernelDescriptor::from_resources(Target::wave64(Arch::Gfx942), &ref_resources());
    assert_eq!(kd.allocated_vgprs(Target::wave64(Arch::Gfx942)), 8);
    assert_eq!(kd.allocated_sgprs(Arch::Gfx942), 16);
    assert_eq!(kd.accum_offset(), 4);
    assert_eq!(kd.rsrc1(), 0x00AC_0040);
    assert_eq!(kd.rsrc2(), 0x84);
    assert_eq!(kd.kernel_code_properties(), 0x0008);
    let kd = KernelDescriptor::from_resources(Target::wave64(Arch::Gfx1100), &ref_resources());
    assert_eq!(kd.allocated_vgprs(Target::wave64(Arch::Gfx1100)), 4);
    assert!(kd.wgp_mode && kd.mem_ordered && !kd.enable_wavefront_size32);
    assert_eq!(kd.rsrc1(), 0x60AC_0000);
    assert_eq!(kd.compute_pgm_rsrc3, 0);
}

#[test]
fn vgpr_granule_table_of_doc_13_1() {
    let cols = [1, 4, 5, 8, 9, 16, 17, 24, 25, 32, 33, 64, 65, 128, 129, 256, 512];
    // None = not in the doc's table ("–" / "n/a").
    let gfx9: [Option<u32>; 17] = [
        Some(0),
        Some(0),
        Some(0),
        Some(0),
        Some(1),
        Some(1),
        Some(2),
        Some(2),
        Some(3),
        None,
        None,
        Some(7),
        Some(8),
        Some(15),
        None,
        Some(31),
        Some(63),
    ];
    let w64 = [0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 31, 32, 63];
    let w32 = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 7, 8, 15, 16, 31];
    for arch in [Arch::Gfx90a, Arch::Gfx942] {
        for (v, want) in cols.iter().zip(gfx9) {
            if let Some(want) = want {
                assert_eq!(granulated_vgpr_count(Target::wave64(arch), *v), want, "{arch} v={v}");
            }
        }
    }
    let t64 = Target::wave64(Arch::Gfx1100);
    let t32 = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };
    for (i, v) in cols[..16].iter().enumerate() {
        assert_eq!(granulated_vgpr_count(t64, *v), w64[i], "gfx1100 w64 v={v}");
        assert_eq!(granulated_vgpr_count(t32, *v), w32[i], "gfx1100 w32 v={v}");
    }
    // 0 VGPRs counts as 1.
    assert_eq!(granulated_vgpr_count(t64, 0), 0);
}

#[test]
fn sgpr_granule_and_extras_of_doc_13_1_and_13_5() {
    // gfx942, reserve_vcc 0, xnack off: always + 6 (architected flat scratch).
    let table = [(1, 0), (2, 0), (8, 1), (9, 1), (16, 2), (17, 2), (24, 3), (25, 3), (96, 12), (102, 13)];
    for (n, want) in table {
        let extras = sgpr_extras(Arch::Gfx942, false, FeatureSetting::Off, false);
        assert_eq!(extras, 6);
        assert_eq!(granulated_sgpr_count(Arch::Gfx942, n + extras), want, "n={n}");
        let res = KernelResources { next_free_sgpr: n, ..ref_resources() };
        let cfg =
            CodeObjectConfig { xnack: FeatureSetting::Off, ..CodeObjectConfig::new(Target::wave64(Arch::Gfx942)) };
        assert_eq!(u32::from(KernelDescriptor::from_config(&cfg, &res).granulated_wavefront_sgpr_count), want);
    }
    // gfx90a: 0 / VCC 2 / xnack 4 / flat scratch 6.
    assert_eq!(sgpr_extras(Arch::Gfx90a, false, FeatureSetting::Off, false), 0);
    assert_eq!(sgpr_extras(Arch::Gfx90a, true, FeatureSetting::Off, false), 2);
    assert_eq!(sgpr_extras(Arch::Gfx90a, true, FeatureSetting::On, false), 4);
    assert_eq!(sgpr_extras(Arch::Gfx90a, false, FeatureSetting::Any, false), 4);
    assert_eq!(sgpr_extras(Arch::Gfx90a, false, FeatureSetting::Off, true), 6);
    // gfx1100: the field is always 0; extras only VCC (for the metadata count).
    assert_eq!(sgpr_extras(Arch::Gfx1100, false, FeatureSetting::On, true), 0);
    assert_eq!(sgpr_extras(Arch::Gfx1100, true, FeatureSetting::Any, false), 2);
    assert_eq!(granulated_sgpr_count(Arch::Gfx1100, 100), 0);
}

#[test]
fn accum_offset_table_of_doc_13_3() {
    for (v, field) in [(1, 0), (4, 0), (8, 1), (12, 2), (64, 15), (128, 31), (256, 63)] {
        let res = KernelResources { next_free_vgpr: v, ..ref_resources() };
        let kd = KernelDescriptor::from_resources(Target::wave64(Arch::Gfx942), &res);
        assert_eq!(kd.compute_pgm_rsrc3, field, "v={v}");
        assert_eq!(kd.accum_offset(), (field + 1) * 4);
    }
}

#[test]
fn rsrc2_and_code_properties_examples_of_doc_13_2_and_13_4() {
    let t942 = Target::wave64(Arch::Gfx942);
    let kd = KernelDescriptor::from_resources(t942, &ref_resources());
    assert_eq!((kd.rsrc2(), kd.kernel_code_properties()), (0x84, 0x0008));

    let res = KernelResources { workgroup_id: [true; 3], workitem_id_dims: 3, ..ref_resources() };
    assert_eq!(KernelDescriptor::from_resources(t942, &res).rsrc2(), 0x1384);

    let user = UserSgprs { dispatch_ptr: true, kernarg_segment_ptr: true, ..UserSgprs::default() };
    let res = KernelResources { user_sgprs: user, private_segment_size: 16, ..ref_resources() };
    let kd = KernelDescriptor::from_resources(t942, &res);
    assert_eq!((kd.rsrc2(), kd.kernel_code_properties()), (0x89, 0x000A));

    let t32 = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };
    let kd = KernelDescriptor::from_resources(t32, &ref_resources());
    assert_eq!(kd.kernel_code_properties(), 0x0408);
    assert_eq!(kd.wave_size(Arch::Gfx1100), WaveSize::W32);
    assert_eq!(kd.wave_size(Arch::Gfx942), WaveSize::W64);
}

proptest! {
    #[test]
    fn descriptor_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 64)) {
        let mut b = [0u8; 64];
        b.copy_from_slice(&bytes);
        let kd = KernelDescriptor::decode(&b);
        prop_assert_eq!(kd.encode(), b);
    }

    #[test]
    fn descriptor_from_resources_round_trips(
        v in 0u32..=256, s in 0u32..=102, vcc: bool, lds in 0u32..=65536, kernarg in 0u32..4096,
        user in 0u8..32, wg in 0u8..8, dims in 1u8..=3, t in 0usize..4,
    ) {
        let target = all_targets()[t];
        let res = KernelResources {
            next_free_vgpr: v,
            next_free_sgpr: s,
            uses_vcc: vcc,
            group_segment_size: lds,
            private_segment_size: 0,
            kernarg_size: kernarg,
            user_sgprs: UserSgprs {
                dispatch_ptr: user & 1 != 0,
                queue_ptr: user & 2 != 0,
                kernarg_segment_ptr: user & 4 != 0,
                dispatch_id: user & 8 != 0,
                private_segment_size: user & 16 != 0,
                pad: 0,
            },
            workgroup_id: [wg & 1 != 0, wg & 2 != 0, wg & 4 != 0],
            workitem_id_dims: dims,
            max_flat_workgroup_size: 256,
            f32_denormals: vcc,
        };
        let kd = KernelDescriptor::from_resources(target, &res);
        prop_assert_eq!(KernelDescriptor::decode(&kd.encode()), kd.clone());
        prop_assert!(kd.allocated_vgprs(target) >= v.max(1));
        prop_assert!(kd.allocated_vgprs(target) < v.max(1) + 8);
        prop_assert_eq!(u32::from(kd.user_sgpr_count), res.user_sgprs.count());
        prop_assert_eq!(kd.enable_vgpr_workitem_id + 1, dims);
    }
}

#[test]
fn e_flags_and_target_ids_of_doc_12_2() {
    use FeatureSetting::{Any, Off, On};
    let cases = [
        (Arch::Gfx942, Any, Any, 0x54C, "amdgcn-amd-amdhsa--gfx942"),
        (Arch::Gfx942, Off, Any, 0x64C, "amdgcn-amd-amdhsa--gfx942:xnack-"),
        (Arch::Gfx942, On, Any, 0x74C, "amdgcn-amd-amdhsa--gfx942:xnack+"),
        (Arch::Gfx942, Off, On, 0xE4C, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"),
        (Arch::Gfx942, Off, Off, 0xA4C, "amdgcn-amd-amdhsa--gfx942:sramecc-:xnack-"),
        (Arch::Gfx90a, Any, Any, 0x53F, "amdgcn-amd-amdhsa--gfx90a"),
        (Arch::Gfx90a, Off, Any, 0x63F, "amdgcn-amd-amdhsa--gfx90a:xnack-"),
        (Arch::Gfx90a, On, On, 0xF3F, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"),
        (Arch::Gfx1100, Any, Any, 0x041, "amdgcn-amd-amdhsa--gfx1100"),
        (Arch::Gfx1100, On, Off, 0x041, "amdgcn-amd-amdhsa--gfx1100"),
    ];
    for (arch, xnack, sramecc, flags, id) in cases {
        let cfg = CodeObjectConfig { target: Target::wave64(arch), xnack, sramecc };
        assert_eq!(cfg.e_flags(), flags, "{id}");
        assert_eq!(cfg.target_id(), id);
        let (a, x, s) = qd_amdgcn_isa::code_object::parse_e_flags(flags).unwrap();
        assert_eq!(a, arch);
        if arch != Arch::Gfx1100 {
            assert_eq!((x, s), (xnack, sramecc));
        }
    }
    assert!(qd_amdgcn_isa::code_object::parse_e_flags(0x530).is_err()); // gfx908
}

#[test]
fn metadata_map_has_every_key_sorted() {
    let cfg = CodeObjectConfig::new(Target::wave64(Arch::Gfx942));
    let mut k = ref_kernel(Arch::Gfx942, "shfl");
    k.args.push(KernelArg { name: "n".into(), offset: 8, size: 4, kind: ArgKind::ByValue });
    k.resources.kernarg_size = 12;
    let m = metadata::metadata(&cfg, &[k]);
    let keys: Vec<&str> = m.as_map().unwrap().iter().map(|(k, _)| k.as_str().unwrap()).collect();
    assert_eq!(keys, ["amdhsa.kernels", "amdhsa.target", "amdhsa.version"]);
    assert_eq!(m.get("amdhsa.version"), Some(&Value::Array(vec![Value::UInt(1), Value::UInt(2)])));
    assert_eq!(m.get("amdhsa.target").and_then(Value::as_str), Some("amdgcn-amd-amdhsa--gfx942"));
    let kern = &m.get("amdhsa.kernels").unwrap().as_array().unwrap()[0];
    let keys: Vec<&str> = kern.as_map().unwrap().iter().map(|(k, _)| k.as_str().unwrap()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    for (key, want) in [
        (".agpr_count", 0),
        (".group_segment_fixed_size", 0),
        (".kernarg_segment_align", 8),
        (".kernarg_segment_size", 12),
        (".max_flat_workgroup_size", 64),
        (".private_segment_fixed_size", 0),
        (".sgpr_count", 12),
        (".vgpr_count", 2),
        (".wavefront_size", 64),
    ] {
        assert_eq!(kern.get(key).and_then(Value::as_u64), Some(want), "{key}");
    }
    assert_eq!(kern.get(".name").and_then(Value::as_str), Some("shfl"));
    assert_eq!(kern.get(".symbol").and_then(Value::as_str), Some("shfl.kd"));
    let args = kern.get(".args").unwrap().as_array().unwrap();
    assert_eq!(args[0].get(".address_space").and_then(Value::as_str), Some("global"));
    assert_eq!(args[0].get(".name"), None);
    assert_eq!(args[1].get(".value_kind").and_then(Value::as_str), Some("by_value"));
    assert_eq!(args[1].get(".name").and_then(Value::as_str), Some("n"));

    // gfx1100: raw SGPR count, no .agpr_count, WGP mode, wave size per config.
    let cfg = CodeObjectConfig::new(Target { arch: Arch::Gfx1100, wave: WaveSize::W32 });
    let kern = metadata::kernel_map(&cfg, &ref_kernel(Arch::Gfx1100, "shfl"));
    assert_eq!(kern.get(".sgpr_count").and_then(Value::as_u64), Some(6));
    assert_eq!(kern.get(".agpr_count"), None);
    assert_eq!(kern.get(".workgroup_processor_mode").and_then(Value::as_u64), Some(1));
    assert_eq!(kern.get(".wavefront_size").and_then(Value::as_u64), Some(32));
}

/// Several kernels with different resources and arguments.
fn kernels_for(arch: Arch) -> Vec<KernelCode> {
    let mut a = ref_kernel(arch, "first");
    a.args[0].name = "p".into();
    let b = rich_kernel(arch, "second_kernel"); // 120 bytes: the next kernel starts 256 bytes later anyway
    let mut c = ref_kernel(arch, "third");
    c.code.truncate(4 * 14); // ends before s_endpgm: any multiple of 4 is fine for the writer
    vec![a, b, c]
}

#[test]
fn write_then_read_every_target() {
    for target in all_targets() {
        for kernels in [vec![ref_kernel(target.arch, "shfl")], kernels_for(target.arch)] {
            let cfg = CodeObjectConfig::new(target);
            let bytes = write_code_object(&cfg, &kernels).unwrap();
            let obj = read_code_object(&bytes).unwrap();
            assert_eq!(obj.arch, target.arch);
            assert_eq!(obj.abi_version, 3);
            assert_eq!((obj.xnack, obj.sramecc), (FeatureSetting::Any, FeatureSetting::Any));
            assert_eq!(obj.metadata, metadata::metadata(&cfg, &kernels));
            assert_eq!(obj.kernels.len(), kernels.len());
            for (got, want) in obj.kernels.iter().zip(&kernels) {
                assert_eq!(got.name, want.name);
                assert_eq!(got.code, want.code, "{target} {}", want.name);
                assert_eq!(got.code_vaddr % 256, 0);
                assert_eq!(got.wave, target.wave);
                assert_eq!(obj.target(got), target);
                let mut kd = KernelDescriptor::from_config(&cfg, &want.resources);
                kd.kernel_code_entry_byte_offset = got.descriptor.kernel_code_entry_byte_offset;
                assert_eq!(got.descriptor, kd);
                let meta = got.metadata.as_ref().unwrap();
                assert_eq!(meta, &metadata::kernel_map(&cfg, want));
            }
            check_elf_layout(&bytes, &cfg);
            // GFX11 code ends like LLVM's: s_code_end to a 128-byte boundary, then 96 more.
            let last = obj.kernels.last().unwrap();
            let text_off = (last.code_vaddr - 0x1000) as usize; // .text is one page above its offset
            let end = text_off + last.code.len();
            let trailer: Vec<u32> = bytes[end..]
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .take_while(|&w| w == 0xBF9F_0000)
                .collect();
            let want = match target.family() {
                Family::Gfx9 => 0,
                Family::Gfx11 => (end.div_ceil(128) * 128 - end) / 4 + 96,
            };
            assert_eq!(trailer.len(), want, "{target}");
        }
    }
}

/// Raw checks of the header and program headers (independent of the reader).
fn check_elf_layout(b: &[u8], cfg: &CodeObjectConfig) {
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    assert_eq!(&b[..16], &[0x7f, b'E', b'L', b'F', 2, 1, 1, 0x40, 3, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(u16_at(16), 3, "ET_DYN");
    assert_eq!(u16_at(18), 0xE0, "EM_AMDGPU");
    assert_eq!(u32_at(48), cfg.e_flags());
    assert_eq!((u16_at(52), u16_at(54), u16_at(58)), (64, 56, 64));
    let phoff = u64_at(32) as usize;
    let phnum = u16_at(56) as usize;
    let mut types = Vec::new();
    for i in 0..phnum {
        let p = phoff + 56 * i;
        let (ty, off, vaddr, align) = (u32_at(p), u64_at(p + 8), u64_at(p + 16), u64_at(p + 48));
        types.push(ty);
        if ty == 1 {
            assert_eq!(align, 0x1000);
            assert_eq!(off % 0x1000, vaddr % 0x1000, "p_vaddr ≡ p_offset mod page");
        }
    }
    // PHDR, LOAD×3, DYNAMIC, GNU_STACK, NOTE.
    assert_eq!(types, [6, 1, 1, 1, 2, 0x6474_e551, 4]);
}

#[test]
fn feature_settings_reach_the_header() {
    let cfg = CodeObjectConfig {
        target: Target::wave64(Arch::Gfx90a),
        xnack: FeatureSetting::Off,
        sramecc: FeatureSetting::On,
    };
    let bytes = write_code_object(&cfg, &[ref_kernel(Arch::Gfx90a, "k")]).unwrap();
    let obj = read_code_object(&bytes).unwrap();
    assert_eq!((obj.xnack, obj.sramecc), (FeatureSetting::Off, FeatureSetting::On));
    assert_eq!(
        obj.metadata.get("amdhsa.target").and_then(Value::as_str),
        Some("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-")
    );
    // xnack off on gfx90a: no SGPR extras without VCC (6 SGPRs → granule 0).
    assert_eq!(obj.kernels[0].descriptor.granulated_wavefront_sgpr_count, 0);
}

#[test]
fn writer_rejects_bad_input() {
    let cfg = CodeObjectConfig::new(Target::wave64(Arch::Gfx942));
    let k = ref_kernel(Arch::Gfx942, "k");
    let bad = |f: &dyn Fn(&mut KernelCode)| {
        let mut k = k.clone();
        f(&mut k);
        write_code_object(&cfg, &[k])
    };
    assert!(matches!(write_code_object(&cfg, &[]), Err(CodeObjectError::InvalidInput(_))));
    assert!(matches!(write_code_object(&cfg, &[k.clone(), k.clone()]), Err(CodeObjectError::InvalidKernel { .. })));
    assert!(bad(&|k| k.name.clear()).is_err());
    assert!(bad(&|k| k.name = "x.kd".into()).is_err());
    assert!(bad(&|k| k.code.pop().map(drop).unwrap_or(())).is_err());
    assert!(bad(&|k| k.code.clear()).is_err());
    assert!(bad(&|k| k.resources.next_free_vgpr = 257).is_err());
    assert!(bad(&|k| k.resources.next_free_sgpr = 103).is_err());
    assert!(bad(&|k| k.resources.workitem_id_dims = 0).is_err());
    assert!(bad(&|k| k.resources.max_flat_workgroup_size = 0).is_err());
    assert!(bad(&|k| k.resources.group_segment_size = 65537).is_err());
    assert!(bad(&|k| k.args[0].size = 16).is_err());
    let err = bad(&|k| k.args[0].offset = 4).unwrap_err();
    assert!(err.to_string().contains("kernarg_size"), "{err}");
    // gfx90a has no wave32; gfx90a scratch is not supported.
    let w32 = CodeObjectConfig::new(Target { arch: Arch::Gfx90a, wave: WaveSize::W32 });
    assert!(write_code_object(&w32, std::slice::from_ref(&k)).is_err());
    let mut scratch = ref_kernel(Arch::Gfx90a, "k");
    scratch.resources.private_segment_size = 16;
    assert!(write_code_object(&CodeObjectConfig::new(Target::wave64(Arch::Gfx90a)), &[scratch.clone()]).is_err());
    // …but scratch on gfx942 is (architected flat scratch).
    assert!(write_code_object(&cfg, &[KernelCode { name: "s".into(), ..scratch }]).is_ok());
}
