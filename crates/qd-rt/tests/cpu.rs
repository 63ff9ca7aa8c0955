//! The `cpu` device: runs kernels and programs exactly as `qd_mir::interp` does, opens by spec,
//! reports clear errors, and the cross-check helper matches, skips expected faults and names the
//! first differing element.

mod common;

use common::*;
use qd_mir::interp::{self, RunConfig};
use qd_mir::ScalarType;
use qd_rt::crosscheck::{self, Outcome, Tally};
use qd_rt::{Device, DeviceArg, DeviceKind, LaunchOptions};

#[test]
fn cpu_runs_kernels_like_the_interpreter() {
    let m = module();
    for w in [32, 8] {
        let dev = Device::cpu_with_width(w).unwrap();
        assert_eq!(dev.info().subgroup_width, w);
        for k in ["scan", "init", "bump", "stride", "mixed", "bigshared"] {
            let f = m.kernel(k).unwrap();
            let mut a = args_for(k);
            let mut b = a.clone();
            dev.run_kernel(f, &mut a, &LaunchOptions::default()).unwrap();
            interp::run_kernel(f, &RunConfig { subgroup_size: w, ..RunConfig::default() }, &mut b).unwrap();
            assert_eq!(a, b, "kernel @{k} at width {w}");
        }
    }
    // Width 8 restarts the scan every 8 lanes.
    let mut a = vec![u32s(std::iter::repeat_n(1, 64)), zeros(ScalarType::U32, 64)];
    Device::open("cpu:8").unwrap().run_kernel(m.kernel("scan").unwrap(), &mut a, &LaunchOptions::default()).unwrap();
    assert_eq!(&bits(&a[1])[..9], &[1, 2, 3, 4, 5, 6, 7, 8, 1]);
}

#[test]
fn cpu_launch_overrides() {
    let m = module();
    let f = m.kernel("init").unwrap();
    let mut a = args_for("init");
    Device::cpu().run_kernel(f, &mut a, &LaunchOptions { grid: Some([1, 1, 1]), block: Some([8, 1, 1]) }).unwrap();
    let got = bits(&a[0]);
    assert_eq!(&got[..9], &[0, 3, 6, 9, 12, 15, 18, 21, 0]);
}

#[test]
fn cpu_runs_programs_like_the_interpreter() {
    let m = module();
    let p = m.program("pipeline").unwrap();
    let mut a = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 64), scalar_u32(64)];
    let mut b = a.clone();
    Device::cpu().run_program(&m, p, &mut a).unwrap();
    interp::run_program(&m, p, &RunConfig::default(), &mut b).unwrap();
    assert_eq!(a, b);
    assert_eq!(bits(&a[1])[..3], [5, 8, 14]);
}

#[test]
fn low_level_api_on_cpu() {
    let m = module();
    let dev = Device::cpu();
    let k = dev.compile(m.kernel("bump").unwrap()).unwrap();
    assert_eq!(k.name(), "bump");
    assert!(k.ptx().is_none());
    let buf = dev.upload(&qd_rt::HostBuffer::from_bits(ScalarType::U32, 0..32)).unwrap();
    assert_eq!(buf.len(), 32);
    dev.launch(&k, &[DeviceArg::Buffer(&buf), DeviceArg::Scalar(ScalarType::U32, 10)], None).unwrap();
    dev.launch(&k, &[DeviceArg::Buffer(&buf), DeviceArg::Scalar(ScalarType::U32, 1)], None).unwrap();
    dev.synchronize().unwrap();
    let out = dev.download(&buf).unwrap();
    assert_eq!(out.to_bits(), (11..43).collect::<Vec<u64>>());
    let e = dev.launch(&k, &[DeviceArg::Buffer(&buf)], None).unwrap_err();
    assert!(e.to_string().contains("expects 2 argument(s), got 1"), "{e}");
    let e = dev
        .launch(&k, &[DeviceArg::Scalar(ScalarType::U32, 1), DeviceArg::Scalar(ScalarType::U32, 1)], None)
        .unwrap_err();
    assert!(e.to_string().contains("argument 0 (%buf)"), "{e}");
    let z = dev.alloc(ScalarType::F64, 3).unwrap();
    assert_eq!(dev.download(&z).unwrap().to_bits(), vec![0, 0, 0]);
}

#[test]
fn device_specs_and_errors() {
    assert_eq!(Device::open("cpu").unwrap().info().subgroup_width, 32);
    assert_eq!(Device::open("cpu:16").unwrap().info().spec(), "cpu:16");
    for bad in ["gpu", "cpu:3", "cpu:128", "cpu:x", "cuda:x", "", "best:1"] {
        let e = Device::open(bad).unwrap_err();
        assert!(!e.to_string().is_empty(), "{bad}");
    }
    assert!(Device::open("cpu:3").unwrap_err().to_string().contains("power of two"));
    assert!(Device::open("gpu").unwrap_err().to_string().contains("unknown device 'gpu'"));
    assert!(Device::cpu_with_width(0).is_err());
    let avail = Device::available();
    assert_eq!(avail[0].kind, DeviceKind::Cpu);
    assert_eq!(avail[0].kind.name(), "cpu");
}

#[test]
fn cuda_without_a_driver_is_a_clear_error() {
    match Device::cuda_unavailable_reason() {
        Some(reason) => {
            // No usable GPU here: every CUDA entry point says why, and `best` falls back to cpu.
            let e = Device::cuda(0).unwrap_err();
            eprintln!("cuda unavailable: {e}");
            if reason.contains("libcuda") {
                assert_eq!(e.to_string(), "no CUDA driver (libcuda.so) found");
                assert!(e.is_unavailable());
            }
            assert!(Device::open("cuda:1").is_err());
            // `best` is then a Vulkan GPU if there is one (never lavapipe), else cpu.
            assert_ne!(Device::best().info().kind, DeviceKind::Cuda);
            // The host devices: native code and the interpreter.
            let host: Vec<DeviceKind> =
                Device::available().iter().filter(|d| d.kind != DeviceKind::Vulkan).map(|d| d.kind).collect();
            assert_eq!(host, [DeviceKind::Cpu, DeviceKind::Interp]);
        }
        None => {
            assert_eq!(Device::best().info().kind, DeviceKind::Cuda);
            let e = Device::cuda(1000).unwrap_err();
            assert!(e.to_string().contains("no CUDA device 1000"), "{e}");
        }
    }
}

#[test]
fn argument_errors_are_clear() {
    let m = module();
    let f = m.kernel("bump").unwrap();
    let e = Device::cpu().run_kernel(f, &mut [zeros(ScalarType::U32, 4)], &LaunchOptions::default()).unwrap_err();
    assert!(e.to_string().contains("expects 2 argument(s), got 1"), "{e}");
    let e = Device::cpu()
        .run_kernel(f, &mut [zeros(ScalarType::F32, 4), scalar_u32(1)], &LaunchOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("expected a buffer of u32, got a buffer of f32"), "{e}");
}

#[test]
fn crosscheck_matches_skips_and_reports_mismatches() {
    let m = module();
    let mut tally = Tally::default();
    for k in ["scan", "init", "bump", "stride", "mixed", "bigshared", "divide"] {
        let r = crosscheck::kernel(&Device::cpu(), m.kernel(k).unwrap(), &args_for(k), &LaunchOptions::default());
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
        tally.add(k, &r);
    }
    let p = m.program("pipeline").unwrap();
    let pa = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 64), scalar_u32(40)];
    let r = crosscheck::program(&Device::cpu(), &m, p, &pa);
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    tally.add("pipeline", &r);
    // Division by zero faults on the interpreter: the native cpu device must report the same
    // fault; any other device is not run (skipped).
    let zero_args = [zeros(ScalarType::U32, 32), scalar_u32(0)];
    let r = crosscheck::kernel(&Device::cpu(), m.kernel("divide").unwrap(), &zero_args, &LaunchOptions::default());
    assert!(matches!(&r.outcome, Outcome::FaultMatched(why) if why.contains("division by zero")), "{r}");
    tally.add("divide0", &r);
    let interp = Device::interp(32).unwrap();
    let r = crosscheck::kernel(&interp, m.kernel("divide").unwrap(), &zero_args, &LaunchOptions::default());
    assert!(matches!(&r.outcome, Outcome::Skipped(why) if why.contains("division by zero")), "{r}");
    tally.add("divide0-interp", &r);
    // The reference runs at the device's width: cpu:8 matches it.
    let dev8 = Device::cpu_with_width(8).unwrap();
    let r = crosscheck::kernel(&dev8, m.kernel("scan").unwrap(), &args_for("scan"), &LaunchOptions::default());
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    // Width 8 differs from width 32 at element 8 of %dst: how a mismatch is reported.
    let (mut at32, mut at8) = (args_for("scan"), args_for("scan"));
    Device::cpu().run_kernel(m.kernel("scan").unwrap(), &mut at32, &LaunchOptions::default()).unwrap();
    dev8.run_kernel(m.kernel("scan").unwrap(), &mut at8, &LaunchOptions::default()).unwrap();
    let names = ["src".to_string(), "dst".to_string()];
    let mm = crosscheck::compare(&names, &at32, &at8).expect("the widths differ");
    let r = crosscheck::Report { what: "kernel @scan".into(), device: "cpu:8".into(), outcome: Outcome::Mismatch(mm) };
    let Outcome::Mismatch(mm) = &r.outcome else { panic!("{r}") };
    assert_eq!((mm.buffer.as_str(), mm.index), ("dst", 8));
    assert!(r.is_failure());
    let text = r.to_string();
    assert!(text.contains("buffer %dst differs from the interpreter at index 8"), "{text}");
    tally.add("scan@8", &r);
    assert_eq!(tally.summary("cpu"), "cpu: 8 matched, 1 faults matched, 1 skipped (expected fault), 1 failed");
    // A kernel that declares another width than the device's runs at its own width on both
    // engines (host devices offer every width): it matches the reference and the cpu:32 result.
    let mut fixed = m.kernel("scan").unwrap().clone();
    fixed.launch.subgroup_size = Some(32);
    for dev in [dev8, Device::interp(8).unwrap()] {
        let r = crosscheck::kernel(&dev, &fixed, &args_for("scan"), &LaunchOptions::default());
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
        let mut got = args_for("scan");
        dev.run_kernel(&fixed, &mut got, &LaunchOptions::default()).unwrap();
        assert!(
            crosscheck::compare(&names, &at32, &got).is_none(),
            "{} ran subgroup(32) at width 8",
            dev.info().spec()
        );
    }
    // Bad arguments are caught by the reference first, and by the native code alike.
    let r = crosscheck::kernel(&Device::cpu(), m.kernel("scan").unwrap(), &[], &LaunchOptions::default());
    assert!(matches!(r.outcome, Outcome::FaultMatched(_)), "{r}");
}

#[test]
fn format_element_shows_value_and_bits() {
    assert_eq!(crosscheck::format_element(ScalarType::F32, u64::from(1.5f32.to_bits())), "1.5 (0x3fc00000)");
    assert_eq!(crosscheck::format_element(ScalarType::I32, 0xFFFF_FFFF), "-1 (0xffffffff)");
}
