//! Tests of the `hsa` device that run without an AMD GPU: the runtime library loads when it is
//! installed (Debian's `libhsa-runtime64-1`), opening a device on a machine without `/dev/kfd`
//! fails with kind `Unavailable` naming the HSA call and its status (never a panic), a missing
//! library gives "no HSA runtime", and the dispatch packet is laid out and validated as the AQL
//! format says. With a GPU agent present the open test also round-trips a buffer through device
//! memory. `QD_REQUIRE_HSA=1` makes a missing GPU agent a failure.

use super::ffi::{self, DispatchPacket};
use super::{dispatch_header, dispatch_packet, queue_size, HsaDevice, KernelSegments};
use crate::error::RtErrorKind;
use std::mem::offset_of;

/// Whether the runtime library is installed in one of the usual places.
fn library_installed() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1",
        "/usr/lib/aarch64-linux-gnu/libhsa-runtime64.so.1",
        "/usr/lib64/libhsa-runtime64.so.1",
        "/opt/rocm/lib/libhsa-runtime64.so.1",
    ]
    .iter()
    .any(|p| std::path::Path::new(p).exists())
}

#[test]
fn the_runtime_library_loads_when_installed() {
    if !library_installed() {
        eprintln!("the_runtime_library_loads_when_installed: skipped (no libhsa-runtime64.so.1; apt-get install libhsa-runtime-dev)");
        return;
    }
    let api = ffi::api().unwrap_or_else(|e| panic!("the HSA runtime is installed but does not load: {e}"));
    assert!(api.path.contains("libhsa-runtime64"), "{}", api.path);
    // The status text comes from the library itself (works before hsa_init).
    let text = api.status_text(0x1001).expect("hsa_status_string answers before hsa_init");
    assert!(text.starts_with("One of the actual arguments"), "{text}");
}

#[test]
fn open_fails_cleanly_or_works() {
    match HsaDevice::open(0) {
        Ok((dev, info)) => {
            eprintln!(
                "open_fails_cleanly_or_works: on {} ({}, {}), wave {}",
                info.name, info.product, info.isa, info.wavefront_size
            );
            assert!(info.name.starts_with("gfx"), "{info:?}");
            assert!(info.isa.starts_with("amdgcn-amd-amdhsa--gfx"), "{info:?}");
            assert!(matches!(info.wavefront_size, 32 | 64), "{info:?}");
            assert!(info.queue_size.is_power_of_two(), "{info:?}");
            let data: Vec<u8> = (0..4099u32).map(|i| (i * 7 + 3) as u8).collect();
            let buf = dev.alloc(data.len()).expect("alloc");
            dev.upload(&buf, &data).expect("upload");
            let mut back = vec![0u8; data.len()];
            dev.download(&buf, &mut back).expect("download");
            assert_eq!(back, data);
            let too_long = vec![0u8; data.len() + 1];
            let e = dev.upload(&buf, &too_long).unwrap_err();
            assert_eq!(e.kind, RtErrorKind::Usage, "{e}");
            let e = dev.load_kernel(b"not an ELF file", "k").err().expect("garbage is not a code object");
            assert!(
                e.message.contains("hsa_code_object_reader_create_from_memory") || e.message.contains("hsa_executable"),
                "{e}"
            );
        }
        Err(e) => {
            let text = e.to_string();
            eprintln!("open_fails_cleanly_or_works: {text}");
            if std::env::var("QD_REQUIRE_HSA").as_deref() == Ok("1") {
                panic!("QD_REQUIRE_HSA=1 but hsa:0 cannot be opened: {text}");
            }
            assert!(e.is_unavailable(), "{e:?}");
            if library_installed() {
                // The library is there: the failure must name the HSA call and its status.
                let named = (text.starts_with("hsa_init failed with HSA_STATUS_") && text.contains("(0x"))
                    || text.starts_with("hsa_iterate_agents found no GPU agent")
                    || text.starts_with("hsa_iterate_agents failed with HSA_STATUS_");
                assert!(named, "{text}");
            } else {
                assert!(text.starts_with("no HSA runtime (libhsa-runtime64.so) found"), "{text}");
            }
            // A second attempt gives the same answer (no state left half-initialised).
            let again = HsaDevice::open(0).err().expect("the second open fails like the first");
            assert_eq!(again.to_string(), text);
        }
    }
}

#[test]
fn a_missing_library_is_no_hsa_runtime() {
    let e = ffi::load_from(&["libqd-no-such-hsa-runtime.so.1", "/nonexistent/libhsa-runtime64.so"]).err().unwrap();
    assert!(e.is_unavailable(), "{e:?}");
    assert!(e.message.starts_with("no HSA runtime (libhsa-runtime64.so) found"), "{e}");
    assert!(e.message.contains("libqd-no-such-hsa-runtime.so.1"), "{e}");
}

#[test]
fn status_names_and_errors() {
    assert_eq!(ffi::status_name(0x1008), "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
    assert_eq!(ffi::status_name(41), "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION");
    assert_eq!(ffi::status_name(0x1017), "HSA_STATUS_ERROR_INVALID_ISA_NAME");
    assert_eq!(ffi::status_name(0x7777), "an unknown HSA status");
    if let Ok(api) = ffi::api() {
        let e = api.error("hsa_queue_create", 0x1002);
        assert!(
            e.message.starts_with("hsa_queue_create failed with HSA_STATUS_ERROR_INVALID_QUEUE_CREATION (0x1002)"),
            "{e}"
        );
        assert_eq!(
            e.kind,
            RtErrorKind::Driver {
                call: "hsa_queue_create",
                code: 0x1002,
                name: "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION".into()
            }
        );
        let u = api.check_unavailable("hsa_init", 0x1008).unwrap_err();
        assert!(
            u.is_unavailable() && u.message.starts_with("hsa_init failed with HSA_STATUS_ERROR_OUT_OF_RESOURCES"),
            "{u}"
        );
        assert!(api.check("hsa_init", 0).is_ok());
    }
}

#[test]
fn packet_and_queue_layout_match_the_headers() {
    assert_eq!(std::mem::size_of::<DispatchPacket>(), 64);
    assert_eq!(offset_of!(DispatchPacket, setup), 2);
    assert_eq!(offset_of!(DispatchPacket, workgroup_size), 4);
    assert_eq!(offset_of!(DispatchPacket, reserved0), 10);
    assert_eq!(offset_of!(DispatchPacket, grid_size), 12);
    assert_eq!(offset_of!(DispatchPacket, private_segment_size), 24);
    assert_eq!(offset_of!(DispatchPacket, group_segment_size), 28);
    assert_eq!(offset_of!(DispatchPacket, kernel_object), 32);
    assert_eq!(offset_of!(DispatchPacket, kernarg_address), 40);
    assert_eq!(offset_of!(DispatchPacket, reserved2), 48);
    assert_eq!(offset_of!(DispatchPacket, completion_signal), 56);
    assert_eq!(offset_of!(ffi::Queue, base_address), 8);
    assert_eq!(offset_of!(ffi::Queue, doorbell_signal), 16);
    assert_eq!(offset_of!(ffi::Queue, size), 24);
    assert_eq!(offset_of!(ffi::Queue, id), 32);
    // type KERNEL_DISPATCH (2) | barrier (bit 8) | acquire system (2 << 9) | release system (2 << 11).
    assert_eq!(dispatch_header(), 0x1502);
    assert_eq!(queue_size(131072), 1024);
    assert_eq!(queue_size(100), 64);
    assert_eq!(queue_size(0), 1);
}

fn kernel() -> KernelSegments {
    KernelSegments {
        name: "k".into(),
        kernel_object: 0xdead_beef_0040,
        kernarg_segment_size: 24,
        kernarg_segment_align: 8,
        group_segment_size: 512,
        private_segment_size: 16,
    }
}

#[test]
fn the_packet_counts_work_items_and_dimensions() {
    let k = kernel();
    let p = dispatch_packet(&k, [10, 1, 1], [256, 1, 1], 1024, 1024).unwrap();
    assert_eq!(p.header, 0x1502);
    assert_eq!(p.setup, 1);
    assert_eq!(p.workgroup_size, [256, 1, 1]);
    assert_eq!(p.grid_size, [2560, 1, 1]);
    assert_eq!(p.group_segment_size, 512 + 1024);
    assert_eq!(p.private_segment_size, 16);
    assert_eq!(p.kernel_object, 0xdead_beef_0040);
    assert_eq!(p.reserved0, 0);
    assert_eq!(p.reserved2, 0);

    let p = dispatch_packet(&k, [3, 5, 1], [16, 8, 1], 0, 1024).unwrap();
    assert_eq!((p.setup, p.grid_size, p.workgroup_size), (2, [48, 40, 1], [16, 8, 1]));
    let p = dispatch_packet(&k, [1, 1, 7], [4, 4, 4], 0, 1024).unwrap();
    assert_eq!((p.setup, p.grid_size), (3, [4, 4, 28]));
    // One block of one work-item in y is still 1-D.
    let p = dispatch_packet(&k, [2, 1, 1], [64, 1, 1], 0, 1024).unwrap();
    assert_eq!(p.setup, 1);
}

#[test]
fn the_packet_rejects_bad_launches() {
    let k = kernel();
    let e = dispatch_packet(&k, [0, 1, 1], [64, 1, 1], 0, 1024).unwrap_err();
    assert_eq!(e.kind, RtErrorKind::Usage, "{e}");
    let e = dispatch_packet(&k, [1, 1, 1], [64, 32, 1], 0, 1024).unwrap_err();
    assert_eq!(
        e.kind,
        RtErrorKind::Limit { name: "HSA_AGENT_INFO_WORKGROUP_MAX_SIZE", needed: 2048, max: 1024 },
        "{e}"
    );
    let e = dispatch_packet(&k, [u32::MAX, 1, 1], [2, 1, 1], 0, 1024).unwrap_err();
    assert!(matches!(e.kind, RtErrorKind::Limit { name: "grid_size (32 bits, in work-items)", .. }), "{e}");
    let e = dispatch_packet(&k, [1, 1, 1], [64, 1, 1], 65536, 1024).unwrap_err();
    assert!(
        matches!(
            e.kind,
            RtErrorKind::Limit { name: "group segment size (LDS per workgroup)", needed: 66048, max: 65536 }
        ),
        "{e}"
    );
    assert!(e.message.contains("kernel k"), "{e}");
}
