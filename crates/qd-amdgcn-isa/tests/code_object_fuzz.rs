//! Never-panic and round-trip properties: the MessagePack codec (random values round trip, random
//! and mutated bytes decode or fail cleanly) and the code-object reader (random bytes, and valid
//! objects with bytes flipped, fields overwritten with extreme values, or truncated).

mod code_object_util;

use code_object_util::ref_kernel;
use proptest::prelude::*;
use qd_amdgcn_isa::code_object::msgpack::{self, Value};
use qd_amdgcn_isa::code_object::{read_code_object, write_code_object, CodeObjectConfig};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Nil),
        any::<bool>().prop_map(Value::Bool),
        (i64::MIN..0).prop_map(Value::Int),
        any::<u64>().prop_map(Value::UInt),
        (0u64..300).prop_map(Value::UInt),
        any::<f64>().prop_filter("NaN is not equal to itself", |f| !f.is_nan()).prop_map(Value::Float),
        ".{0,40}".prop_map(Value::Str),
        "[a-z]{30,300}".prop_map(Value::Str),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Bin),
        (any::<i8>(), proptest::collection::vec(any::<u8>(), 0..20)).prop_map(|(t, d)| Value::Ext(t, d)),
    ];
    leaf.prop_recursive(4, 64, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::Array),
            proptest::collection::vec((inner.clone(), inner), 0..20).prop_map(Value::Map),
        ]
    })
}

#[test]
fn msgpack_known_encodings() {
    // docs/amdgcn-isa-facts.md §12.6: fixmap, fixstr, fixarray, positive fixint, uint16 for 256.
    let v = Value::map([("amdhsa.kernels", Value::Array(vec![Value::UInt(0)]))]);
    let mut want = vec![0x81, 0xae];
    want.extend_from_slice(b"amdhsa.kernels");
    want.extend_from_slice(&[0x91, 0x00]);
    assert_eq!(msgpack::encode(&v), want);
    assert_eq!(msgpack::encode(&Value::UInt(256)), [0xcd, 0x01, 0x00]);
    assert_eq!(msgpack::encode(&Value::UInt(255)), [0xcc, 0xff]);
    assert_eq!(msgpack::encode(&Value::UInt(127)), [0x7f]);
    assert_eq!(msgpack::encode(&Value::UInt(1 << 16)), [0xce, 0, 1, 0, 0]);
    assert_eq!(msgpack::encode(&Value::UInt(1 << 32)), [0xcf, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(msgpack::encode(&Value::Int(-1)), [0xff]);
    assert_eq!(msgpack::encode(&Value::Int(-33)), [0xd0, 0xdf]);
    assert_eq!(msgpack::encode(&Value::Int(-129)), [0xd1, 0xff, 0x7f]);
    assert_eq!(msgpack::encode(&Value::Int(5)), [0x05]);
    assert_eq!(msgpack::encode(&Value::Bool(false)), [0xc2]);
    assert_eq!(msgpack::encode(&Value::str("a".repeat(32)))[..2], [0xd9, 32]);
    assert_eq!(msgpack::encode(&Value::Array(vec![Value::Nil; 16]))[..3], [0xdc, 0, 16]);
    // Decoding: int forms holding non-negative values read as UInt; float32 widens.
    assert_eq!(msgpack::decode(&[0xd0, 0x05]), Ok(Value::UInt(5)));
    assert_eq!(msgpack::decode(&[0xd3, 0, 0, 0, 0, 0, 0, 0, 7]), Ok(Value::UInt(7)));
    assert_eq!(msgpack::decode(&[0xca, 0x3f, 0x80, 0, 0]), Ok(Value::Float(1.0)));
    // Sorting: string keys in byte order.
    let m = Value::map([("b", Value::Nil), (".a", Value::Nil), ("a", Value::Nil)]).sorted();
    let keys: Vec<_> = m.as_map().unwrap().iter().map(|(k, _)| k.as_str().unwrap()).collect();
    assert_eq!(keys, [".a", "a", "b"]);
    assert_eq!(m.to_string(), "{\".a\": nil, \"a\": nil, \"b\": nil}");
}

#[test]
fn msgpack_rejects_malformed_input() {
    assert!(msgpack::decode(&[]).is_err());
    assert!(msgpack::decode(&[0xc1]).is_err());
    assert!(msgpack::decode(&[0xa5, b'a']).is_err()); // truncated string
    assert!(msgpack::decode(&[0xa1, 0xff]).is_err()); // not UTF-8
    assert!(msgpack::decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err()); // 4G elements, no bytes
    assert!(msgpack::decode(&[0x00, 0x00]).is_err()); // trailing byte
    assert!(msgpack::decode(&vec![0x91; 10_000]).is_err()); // nesting too deep
    let err = msgpack::decode(&[0x92, 0x01]).unwrap_err();
    assert_eq!(err.offset, 1);
    assert!(err.to_string().contains("cannot fit"), "{err}");
    let err = msgpack::decode(&[0x92, 0x01, 0xcd, 0x01]).unwrap_err();
    assert_eq!(err.offset, 3);
    assert!(err.to_string().contains("truncated"), "{err}");
}

proptest! {
    #[test]
    fn msgpack_round_trips(v in value_strategy()) {
        let bytes = msgpack::encode(&v);
        prop_assert_eq!(msgpack::decode(&bytes), Ok(v));
    }

    #[test]
    fn msgpack_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = msgpack::decode(&bytes);
    }

    #[test]
    fn msgpack_decoder_survives_mutations(v in value_strategy(), at in any::<usize>(), byte: u8, cut in any::<usize>()) {
        let mut bytes = msgpack::encode(&v);
        if !bytes.is_empty() {
            let i = at % bytes.len();
            bytes[i] = byte;
            let _ = msgpack::decode(&bytes);
            bytes.truncate(cut % bytes.len());
            let _ = msgpack::decode(&bytes);
        }
    }
}

fn valid_objects() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for target in [
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
    ] {
        let cfg = CodeObjectConfig::new(target);
        let kernels = [ref_kernel(target.arch, "a"), ref_kernel(target.arch, "bb")];
        out.push(write_code_object(&cfg, &kernels).unwrap());
    }
    out
}

/// A mutation of a valid object.
#[derive(Clone, Debug)]
enum Mutation {
    /// Set one byte.
    Byte(usize, u8),
    /// Overwrite a little-endian u32 (header counts, sizes, name offsets, note sizes…).
    Word(usize, u32),
    /// Overwrite a little-endian u64 (offsets, addresses, symbol values and sizes…).
    Quad(usize, u64),
    /// Cut the file short.
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let extreme32 = prop_oneof![Just(0u32), Just(u32::MAX), Just(0x8000_0000), any::<u32>(), 0u32..0x2000];
    let extreme64 = prop_oneof![Just(0u64), Just(u64::MAX), Just(1 << 63), any::<u64>(), 0u64..0x3000];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        (any::<usize>(), extreme32).prop_map(|(i, w)| Mutation::Word(i, w)),
        (any::<usize>(), extreme64).prop_map(|(i, q)| Mutation::Quad(i, q)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match *m {
        Mutation::Byte(i, b) => bytes[i % len] = b,
        Mutation::Word(i, w) => {
            let i = i % (len - 3);
            bytes[i..i + 4].copy_from_slice(&w.to_le_bytes());
        }
        Mutation::Quad(i, q) => {
            let i = i % (len - 7);
            bytes[i..i + 8].copy_from_slice(&q.to_le_bytes());
        }
        Mutation::Truncate(n) => bytes.truncate(n % len),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn reader_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = read_code_object(&bytes);
    }

    #[test]
    fn reader_never_panics_on_random_bytes_behind_a_valid_header(
        which in 0usize..4, tail in proptest::collection::vec(any::<u8>(), 0..2000),
    ) {
        let mut bytes = valid_objects()[which][..64].to_vec();
        bytes.extend(tail);
        let _ = read_code_object(&bytes);
    }

    #[test]
    fn reader_never_panics_on_mutated_objects(
        which in 0usize..4, muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = valid_objects()[which].clone();
        for m in &muts {
            if bytes.len() < 8 {
                break;
            }
            apply(&mut bytes, m);
        }
        if let Ok(obj) = read_code_object(&bytes) {
            // Whatever parses is internally consistent.
            for k in &obj.kernels {
                prop_assert!(k.code.len() <= bytes.len());
            }
        }
    }
}

#[test]
fn reader_rejects_foreign_objects() {
    let good = &valid_objects()[1];
    let mut other_machine = good.clone();
    other_machine[18] = 0x3e; // EM_X86_64
    assert!(read_code_object(&other_machine).unwrap_err().to_string().contains("EM_AMDGPU"));
    let mut other_abi = good.clone();
    other_abi[7] = 0;
    assert!(read_code_object(&other_abi).is_err());
    let mut gfx908 = good.clone();
    gfx908[48] = 0x30;
    assert!(read_code_object(&gfx908).unwrap_err().to_string().contains("MACH"));
    assert!(read_code_object(b"\x7fELF").is_err());
    assert!(read_code_object(&good[..100]).is_err());
    // Misaligned input still parses (the reader does not need aligned bytes).
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(good);
    assert_eq!(read_code_object(&shifted[1..]).unwrap(), read_code_object(good).unwrap());
}

fn kernel_strategy() -> impl Strategy<Value = qd_amdgcn_isa::code_object::KernelCode> {
    use qd_amdgcn_isa::code_object::{ArgKind, KernelArg, KernelCode, KernelResources, UserSgprs};
    let arg = ("[a-z]{0,6}", 0u32..64, 0u32..16, 0u8..4).prop_map(|(name, offset, size, kind)| KernelArg {
        name,
        offset,
        size,
        kind: match kind {
            0 => ArgKind::GlobalBuffer,
            1 => ArgKind::ByValue,
            2 => ArgKind::DynamicSharedPointer,
            _ => ArgKind::Hidden("hidden_block_count_x"),
        },
    });
    (
        prop_oneof![4 => "[a-z_][a-z0-9_.]{0,10}", 1 => ".{0,12}"],
        prop_oneof![
            4 => proptest::collection::vec(any::<u32>(), 0..150)
                .prop_map(|w| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()),
            1 => proptest::collection::vec(any::<u8>(), 0..600),
        ],
        (0u32..270, 0u32..110, any::<bool>(), 0u32..70_000, 0u32..3, 40u32..100),
        (0u8..32, 0u8..8, 1u8..4, 1u32..1100),
        proptest::collection::vec(arg, 0..4),
    )
        .prop_map(|(name, code, (v, s, vcc, lds, scratch, kernarg), (user, wg, dims, maxwg), args)| KernelCode {
            name,
            code,
            resources: KernelResources {
                next_free_vgpr: v,
                next_free_sgpr: s,
                uses_vcc: vcc,
                group_segment_size: lds,
                private_segment_size: scratch * 16,
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
                max_flat_workgroup_size: maxwg,
                f32_denormals: false,
            },
            args,
            lines: None,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Any input gives an object that reads back exactly, or an error; never a panic.
    #[test]
    fn writer_never_panics_and_what_it_writes_reads_back(
        t in 0usize..5, kernels in proptest::collection::vec(kernel_strategy(), 0..4),
    ) {
        use qd_amdgcn_isa::code_object::{metadata, KernelDescriptor};
        let target = match t {
            0 => Target::wave64(Arch::Gfx90a),
            1 => Target::wave64(Arch::Gfx942),
            2 => Target::wave64(Arch::Gfx1100),
            3 => Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
            _ => Target { arch: Arch::Gfx942, wave: WaveSize::W32 }, // not a real target
        };
        let cfg = CodeObjectConfig::new(target);
        let written = write_code_object(&cfg, &kernels);
        let all_valid = t < 4
            && !kernels.is_empty()
            && kernels.iter().all(|k| {
                !k.name.is_empty()
                    && !k.name.contains('\0')
                    && !k.name.ends_with(".kd")
                    && !k.code.is_empty()
                    && k.code.len() % 4 == 0
                    && k.resources.check(target).is_ok()
                    && k.args.iter().all(|a| a.offset + a.size <= k.resources.kernarg_size)
            })
            && (1..kernels.len()).all(|i| kernels[..i].iter().all(|k| k.name != kernels[i].name));
        prop_assert_eq!(written.is_ok(), all_valid, "{:?}", written.as_ref().err());
        if let Ok(bytes) = written {
            let obj = read_code_object(&bytes).unwrap();
            prop_assert_eq!(obj.kernels.len(), kernels.len());
            prop_assert_eq!(&obj.metadata, &metadata::metadata(&cfg, &kernels));
            for (got, want) in obj.kernels.iter().zip(&kernels) {
                prop_assert_eq!(&got.name, &want.name);
                prop_assert_eq!(&got.code, &want.code);
                let mut kd = KernelDescriptor::from_config(&cfg, &want.resources);
                kd.kernel_code_entry_byte_offset = got.descriptor.kernel_code_entry_byte_offset;
                prop_assert_eq!(&got.descriptor, &kd);
            }
        }
    }
}
