//! The `vulkan` device through the public API (on a machine without GPU: Mesa's lavapipe). Each
//! test prints the device it ran on; without a Vulkan loader or device every test prints that it
//! is skipped, unless `QD_REQUIRE_VULKAN=1` (set by scripts/test.sh when it installed lavapipe),
//! which turns that into a failure. The cross-checks compare with the interpreter at the device's
//! subgroup width (`LP_NATIVE_VECTOR_WIDTH=128/512` runs lavapipe at 4/16 instead of 8).

mod common;

use common::*;
use qd_mir::ScalarType;
use qd_rt::crosscheck::{self, Outcome};
use qd_rt::{Device, DeviceArg, DeviceKind, HostBuffer, LaunchOptions, RtErrorKind};

fn required() -> bool {
    std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1")
}

fn vk(test: &str) -> Option<Device> {
    match Device::vulkan(0) {
        Ok(d) => {
            eprintln!("{test}: on {} ({})", d.info().name, d.info().detail);
            Some(d)
        }
        Err(e) if required() => panic!("QD_REQUIRE_VULKAN=1 but vulkan:0 cannot be opened: {e}"),
        Err(e) => {
            eprintln!("{test}: skipped (no Vulkan device: {e})");
            None
        }
    }
}

#[test]
fn device_info_specs_and_errors() {
    let Some(dev) = vk("device_info_specs_and_errors") else { return };
    let info = dev.info();
    assert_eq!(info.kind, DeviceKind::Vulkan);
    assert_eq!(info.spec(), "vulkan:0");
    let w = info.subgroup_width;
    assert!(w.is_power_of_two() && (1..=128).contains(&w), "{w}");
    assert!(
        info.detail.contains("Vulkan 1.") && info.detail.contains(&format!("subgroup size {w}")),
        "{}",
        info.detail
    );
    let again = Device::open("vulkan").unwrap();
    assert_eq!(again.info(), info);
    assert!(Device::available().iter().any(|d| d.kind == DeviceKind::Vulkan && d.ordinal == 0));
    assert!(Device::vulkan_unavailable_reason().is_none());
    let e = Device::open("vulkan:99").unwrap_err();
    assert!(e.is_unavailable() && e.to_string().contains("no Vulkan device 99 (the loader reports"), "{e}");
    let e = Device::open("vulkan:first").unwrap_err();
    assert_eq!(e.kind, RtErrorKind::Usage);
    assert!(e.to_string().contains("vulkan:first: the ordinal must be a number"), "{e}");
    // lavapipe (a CPU implementation) is never `best`.
    if info.detail.contains(", cpu,") {
        assert_ne!(Device::best().info().kind, DeviceKind::Vulkan);
    }
}

#[test]
fn limits_are_checked_before_launch() {
    let Some(dev) = vk("limits_are_checked_before_launch") else { return };
    let m = module();
    // 64 KiB of shared memory: over lavapipe's 32 KiB (a GPU may allow it).
    let mut a = args_for("bigshared");
    match dev.run_kernel(m.kernel("bigshared").unwrap(), &mut a, &LaunchOptions::default()) {
        Err(e) => {
            eprintln!("{e}");
            assert!(
                matches!(e.kind, RtErrorKind::Limit { name: "maxComputeSharedMemorySize", needed: 65536, .. }),
                "{e}"
            );
            assert!(e.to_string().starts_with("kernel @bigshared: the kernel's shared arrays take 65536 bytes"), "{e}");
            assert_eq!(bits(&a[0]), vec![0; 512], "nothing ran");
        }
        Ok(()) => eprintln!("the device has room for 64 KiB of shared memory"),
    }
    let f = m.kernel("bump").unwrap();
    let mut a = args_for("bump");
    let opts = LaunchOptions { grid: None, block: Some([64, 64, 1]) };
    let e = dev.run_kernel(f, &mut a, &opts).unwrap_err();
    assert!(matches!(e.kind, RtErrorKind::Limit { name: "maxComputeWorkGroupInvocations", needed: 4096, .. }), "{e}");
    let opts = LaunchOptions { grid: None, block: Some([1, 1, 1 << 20]) };
    let e = dev.run_kernel(f, &mut a, &opts).unwrap_err();
    assert!(e.to_string().contains("maxComputeWorkGroupSize"), "{e}");
    let opts = LaunchOptions { grid: Some([u32::MAX, 1, 1]), block: None };
    let e = dev.run_kernel(f, &mut a, &opts).unwrap_err();
    assert!(matches!(e.kind, RtErrorKind::Limit { name: "maxComputeWorkGroupCount", .. }), "{e}");
    assert_eq!(bits(&a[0]), (0..32).collect::<Vec<u64>>(), "nothing ran");
}

#[test]
fn buffers_round_trip() {
    let Some(dev) = vk("buffers_round_trip") else { return };
    for (elem, v) in [
        (ScalarType::U32, vec![1, 0xFFFF_FFFF, 7]),
        (ScalarType::I64, vec![(-5i64) as u64, 1 << 40]),
        (ScalarType::F64, vec![(-0.0f64).to_bits(), f64::NAN.to_bits()]),
        (ScalarType::Bool, vec![1, 0, 1, 1, 0]),
        (ScalarType::F32, vec![]),
    ] {
        let h = HostBuffer::from_bits(elem, v.clone());
        let b = dev.upload(&h).unwrap();
        assert_eq!((b.elem(), b.len()), (elem, v.len()));
        assert_eq!(dev.download(&b).unwrap(), h);
    }
    assert_eq!(dev.download(&dev.alloc(ScalarType::U64, 9).unwrap()).unwrap().to_bits(), vec![0; 9]);
    // A buffer of another device is refused.
    let cpu = Device::cpu();
    let theirs = cpu.upload(&HostBuffer::from_bits(ScalarType::U32, [1])).unwrap();
    let mine = dev.upload(&HostBuffer::from_bits(ScalarType::U32, [1])).unwrap();
    assert!(cpu.download(&mine).is_err());
    assert!(dev.download(&theirs).is_ok(), "a cpu buffer is host memory");
}

/// Run in a child process with no ICD: the device is unavailable with a clear reason.
#[test]
fn no_driver_is_a_clear_error() {
    if std::env::var("QD_VK_NO_ICD_CHILD").as_deref() == Ok("1") {
        let e = Device::vulkan(0).unwrap_err();
        eprintln!("child: {e}");
        assert!(e.is_unavailable(), "{e:?}");
        assert!(e.to_string().contains("Vulkan"), "{e}");
        let why = Device::vulkan_unavailable_reason().expect("a reason");
        assert!(why.contains("Vulkan"), "{why}");
        assert!(Device::available().iter().all(|d| d.kind != DeviceKind::Vulkan));
        let m = qd_rt::DeviceMatrix::default_matrix(false);
        assert!(m.skipped.iter().any(|s| s.spec == "vulkan" && s.reason == why), "{:?}", m.skipped);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["no_driver_is_a_clear_error", "--exact", "--nocapture"])
        .env("QD_VK_NO_ICD_CHILD", "1")
        .env("VK_ICD_FILENAMES", "/nonexistent/qd-no-icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/qd-no-icd.json")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    eprintln!("{text}");
    assert!(out.status.success(), "the child failed:\n{text}\n{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn kernels_match_the_interpreter() {
    let Some(dev) = vk("kernels_match_the_interpreter") else { return };
    let m = module();
    for k in ["scan", "init", "bump", "stride", "mixed"] {
        let r = crosscheck::kernel(&dev, m.kernel(k).unwrap(), &args_for(k), &LaunchOptions::default());
        eprintln!("{r}");
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
    }
    // Expected faults are skipped without running on the device.
    let r = crosscheck::kernel(
        &dev,
        m.kernel("divide").unwrap(),
        &[zeros(ScalarType::U32, 32), scalar_u32(0)],
        &LaunchOptions::default(),
    );
    assert!(matches!(r.outcome, Outcome::Skipped(_)), "{r}");
    // The scan really runs at the device's width: a subgroup's inclusive sum restarts at each
    // multiple of the width.
    let w = dev.info().subgroup_width as usize;
    let mut a = args_for("scan");
    dev.run_kernel(m.kernel("scan").unwrap(), &mut a, &LaunchOptions::default()).unwrap();
    let src: Vec<u64> = (0..64).map(|i| i * 7 % 13).collect();
    let want: Vec<u64> = (0..64).map(|i| src[i - i % w..=i].iter().sum()).collect();
    assert_eq!(bits(&a[1]), want);
}

#[test]
fn program_with_barriers_matches_the_interpreter() {
    let Some(dev) = vk("program_with_barriers_matches_the_interpreter") else { return };
    let m = module();
    let p = m.program("pipeline").unwrap();
    for n in [64, 40, 0] {
        let a = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 64), scalar_u32(n)];
        let r = crosscheck::program(&dev, &m, p, &a);
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
    }
}

#[test]
fn overrides_empty_grids_and_saturating() {
    let Some(dev) = vk("overrides_empty_grids_and_saturating") else { return };
    let m = module();
    let f = m.kernel("init").unwrap();
    let opts = LaunchOptions { grid: Some([1, 1, 1]), block: Some([8, 1, 1]) };
    let r = crosscheck::kernel(&dev, f, &args_for("init"), &opts);
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    let mut a = vec![u32s(std::iter::repeat_n(7, 16)), scalar_u32(0)];
    dev.run_kernel(f, &mut a, &LaunchOptions::default()).unwrap();
    assert_eq!(bits(&a[0]), vec![7; 16], "grid(cover 0) launches nothing");
    let mut a = args_for("stride");
    dev.run_kernel(m.kernel("stride").unwrap(), &mut a, &LaunchOptions::default()).unwrap();
    assert_eq!(bits(&a[0]), (1..=1000).collect::<Vec<u64>>());
}

#[test]
fn low_level_api() {
    let Some(dev) = vk("low_level_api") else { return };
    let m = module();
    let k = dev.compile(m.kernel("bump").unwrap()).unwrap();
    let words = k.spirv().unwrap();
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
    assert_eq!(k.subgroup_width(), Some(dev.info().subgroup_width));
    let buf = dev.upload(&HostBuffer::from_bits(ScalarType::U32, 0..32)).unwrap();
    for add in [10, 1] {
        dev.launch(&k, &[DeviceArg::Buffer(&buf), DeviceArg::Scalar(ScalarType::U32, add)], None).unwrap();
    }
    dev.synchronize().unwrap();
    assert_eq!(dev.download(&buf).unwrap().to_bits(), (11..43).collect::<Vec<u64>>());
    let e = dev.launch(&k, &[DeviceArg::Buffer(&buf), DeviceArg::Scalar(ScalarType::I32, 1)], None).unwrap_err();
    assert!(e.to_string().contains("wrong type"), "{e}");
    let again = dev.compile(m.kernel("bump").unwrap()).unwrap();
    assert_eq!(again.spirv(), k.spirv(), "from the cache");
}

#[test]
fn declared_subgroup_widths() {
    let Some(dev) = vk("declared_subgroup_widths") else { return };
    let w = dev.info().subgroup_width;
    let m = module();
    // Declared at the device's own width: runs and matches.
    let mut f = m.kernel("scan").unwrap().clone();
    f.launch.subgroup_size = Some(w);
    let r = crosscheck::kernel(&dev, &f, &args_for("scan"), &LaunchOptions::default());
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    // Declared at a width the device cannot run (lavapipe's size is fixed per process): refused
    // before anything runs, naming both widths.
    f.launch.subgroup_size = Some(w * 2);
    let mut a = args_for("scan");
    match dev.run_kernel(&f, &mut a, &LaunchOptions::default()) {
        Err(e) => {
            assert_eq!(e.kind, RtErrorKind::Usage, "{e}");
            let want =
                format!("kernel @scan: the kernel declares subgroup({}) but the device runs subgroups of {w}", w * 2);
            assert!(e.to_string().starts_with(&want), "{e}");
            assert_eq!(bits(&a[1]), vec![0; 64]);
        }
        Ok(()) => eprintln!("the device offers subgroup size {} through size control", w * 2),
    }
}
