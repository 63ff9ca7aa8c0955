//! The `hsa` device (qd's AMDGCN code on an AMD GPU through the HSA runtime).
//!
//! Everywhere: `hsa` / `hsa:N` specs parse (a bad ordinal is a usage error, the unknown-device
//! message lists them); on a machine without an AMD GPU, opening fails with kind `Unavailable`
//! naming the failing HSA call (never a panic), `Device::hsa_unavailable_reason` says why, and
//! `Device::available` / `Device::best` still work without an hsa entry.
//!
//! With a GPU agent (or `QD_REQUIRE_HSA=1`, which makes a missing one a failure): the device
//! describes itself, runs kernels bit-identically to the interpreter at its wave width (fixed
//! grids, block overrides, one buffer bound to several parameters, the common kernels where the
//! back end compiles them), runs programs with status words and argument checks through host
//! and resident buffers, and refuses buffers and kernels of other devices. Without a GPU those
//! tests print why they are skipped.

mod common;

use common::*;
use qd_mir::ScalarType;
use qd_rt::crosscheck::{self, Outcome};
use qd_rt::{ArgValue, Device, DeviceArg, DeviceKind, HostBuffer, LaunchOptions, RtErrorKind};

fn required() -> bool {
    std::env::var("QD_REQUIRE_HSA").as_deref() == Ok("1")
}

/// `hsa:0`, or `None` (printing why) when there is no usable AMD GPU; with `QD_REQUIRE_HSA=1` a
/// missing GPU fails the test.
fn gpu(test: &str) -> Option<Device> {
    match Device::hsa(0) {
        Ok(d) => {
            eprintln!("{test}: on {} ({})", d.info().name, d.info().detail);
            Some(d)
        }
        Err(e) if required() => panic!("QD_REQUIRE_HSA=1 but hsa:0 cannot be opened: {e}"),
        Err(e) => {
            eprintln!("{test}: skipped (no usable AMD GPU: {e})");
            None
        }
    }
}

fn parse(src: &str) -> qd_mir::Module {
    let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "hsa.qdm")));
    if let Err(e) = qd_mir::verify::verify_module(&m) {
        panic!("{e}");
    }
    m
}

/// How an hsa open may fail on a machine without a usable AMD GPU.
fn is_clear_unavailable(text: &str) -> bool {
    [
        "no HSA runtime (libhsa-runtime64.so) found",
        "hsa_init failed with HSA_STATUS_",
        "hsa_iterate_agents found no GPU agent",
        "hsa_iterate_agents failed with HSA_STATUS_",
        "no HSA GPU agent ",
        "HSA GPU agent ",
    ]
    .iter()
    .any(|p| text.starts_with(p))
}

#[test]
fn opening_without_a_gpu_is_unavailable_never_a_panic() {
    let reason = Device::hsa_unavailable_reason();
    for spec in ["hsa", "hsa:0", "hsa:7"] {
        match Device::open(spec) {
            Ok(d) => {
                assert!(reason.is_none(), "{spec} opens, yet hsa_unavailable_reason() is {reason:?}");
                assert_eq!(d.info().kind, DeviceKind::Hsa);
                assert_eq!(Device::open(&d.info().spec()).unwrap().info(), d.info());
            }
            Err(e) => {
                let text = e.to_string();
                eprintln!("{spec}: {text}");
                assert!(e.is_unavailable(), "{spec}: {e:?}");
                assert!(is_clear_unavailable(&text), "{spec}: {text}");
                if spec != "hsa:7" {
                    assert!(!required(), "QD_REQUIRE_HSA=1 but {spec} cannot be opened: {text}");
                    // The reason is the same failure (or, with GPU agents of other
                    // architectures, names them).
                    let why = reason.clone().expect("hsa:0 fails, so there is a reason");
                    assert!(is_clear_unavailable(&why), "{why}");
                    if text.starts_with("hsa_init failed") || text.starts_with("no HSA runtime") {
                        assert_eq!(why, text);
                    }
                }
                // Asking again gives the same answer (nothing left half-initialised).
                assert_eq!(Device::open(spec).unwrap_err().to_string(), text);
            }
        }
    }
    // On a machine with the runtime library but no /dev/kfd (this project's CI), the failure
    // names hsa_init and its status.
    let lib = std::path::Path::new("/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1").exists();
    if lib && !std::path::Path::new("/dev/kfd").exists() {
        let e = Device::hsa(0).unwrap_err();
        assert!(e.to_string().starts_with("hsa_init failed with HSA_STATUS_ERROR"), "{e}");
        assert!(e.to_string().contains("(no AMD GPU, or no access to /dev/kfd)"), "{e}");
    }
}

#[test]
fn hsa_specs_parse() {
    for (spec, want) in
        [("hsa:x", "hsa:x: the ordinal must be a number"), ("hsa:-1", "hsa:-1: the ordinal must be a number")]
    {
        let e = Device::open(spec).unwrap_err();
        assert_eq!(e.kind, RtErrorKind::Usage, "{spec}");
        assert_eq!(e.to_string(), want);
    }
    for spec in ["HSA", "hsa0", "rocm", "hip:0"] {
        let e = Device::open(spec).unwrap_err();
        assert_eq!(e.kind, RtErrorKind::Usage, "{spec}");
        assert!(e.to_string().starts_with(&format!("unknown device '{spec}'")), "{e}");
        assert!(e.to_string().contains("vulkan:ORDINAL, hsa, hsa:ORDINAL, sim-gfx942"), "{e}");
    }
    assert_eq!(DeviceKind::Hsa.name(), "hsa");
}

#[test]
fn available_and_best_work_with_or_without_a_gpu() {
    let list = Device::available();
    assert_eq!(list[0].spec(), "cpu:32");
    let hsa: Vec<_> = list.iter().filter(|i| i.kind == DeviceKind::Hsa).collect();
    match Device::hsa_unavailable_reason() {
        Some(why) => {
            eprintln!("hsa: not available: {why}");
            assert!(hsa.is_empty(), "{hsa:?}");
            assert_ne!(Device::best().info().kind, DeviceKind::Hsa);
        }
        None => {
            assert!(!hsa.is_empty());
            for info in hsa {
                let d = Device::open(&info.spec()).unwrap();
                assert_eq!(d.info(), info);
                assert!(info.forward_progress);
                assert!(matches!(info.subgroup_width, 32 | 64), "{info:?}");
            }
            // cuda first, then hsa.
            let best = Device::best().info().kind;
            let want = if Device::cuda_unavailable_reason().is_none() { DeviceKind::Cuda } else { DeviceKind::Hsa };
            assert_eq!(best, want);
        }
    }
    // The list is ordered: cpu, cuda, hsa, vulkan.
    let rank = |k: DeviceKind| match k {
        DeviceKind::Cpu | DeviceKind::Interp => 0,
        DeviceKind::Cuda => 1,
        DeviceKind::Hsa => 2,
        DeviceKind::Vulkan => 3,
        DeviceKind::Sim => 4,
    };
    assert!(list.windows(2).all(|w| rank(w[0].kind) <= rank(w[1].kind)), "{list:?}");
}

fn add_args(blocks: u32) -> Vec<ArgValue> {
    let n = blocks * 64;
    vec![
        u32s((0..n).map(|i| i.wrapping_mul(2_654_435_761))),
        u32s((0..n).map(|i| u32::MAX - i * 3)),
        u32s(std::iter::repeat_n(0xdead_beef, n as usize)),
    ]
}

#[test]
fn device_info_on_the_gpu() {
    let Some(dev) = gpu("device_info_on_the_gpu") else { return };
    let info = dev.info();
    assert_eq!(info.kind, DeviceKind::Hsa);
    assert_eq!(info.spec(), "hsa:0");
    assert!(matches!(info.subgroup_width, 32 | 64), "{info:?}");
    assert!(info.detail.starts_with("amdgcn-amd-amdhsa--gfx"), "{}", info.detail);
    assert!(info.detail.contains(&format!("wave{}", info.subgroup_width)), "{}", info.detail);
    assert!(info.forward_progress);
    assert!(Device::hsa_unavailable_reason().is_none());
    assert!(Device::available().iter().any(|i| i == info));
}

#[test]
fn kernels_match_the_interpreter_on_the_gpu() {
    let Some(dev) = gpu("kernels_match_the_interpreter_on_the_gpu") else { return };
    let m = parse(&add_kernel("3, 1, 1"));
    let f = m.kernel("addk").unwrap();
    let r = crosscheck::kernel(&dev, f, &add_args(3), &LaunchOptions::default());
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    let mut a = add_args(3);
    dev.run_kernel(f, &mut a, &LaunchOptions::default()).unwrap();
    let want: Vec<u64> = bits(&a[0])
        .iter()
        .zip(bits(&a[1]))
        .map(|(p, q)| u64::from((*p as u32).wrapping_add(q as u32).wrapping_add(3 + 64)))
        .collect();
    assert_eq!(bits(&a[2]), want);
    // A block override recompiles: 32-thread blocks, grid 2; the rest is untouched.
    let opts = LaunchOptions { grid: Some([2, 1, 1]), block: Some([32, 1, 1]) };
    let r = crosscheck::kernel(&dev, f, &add_args(2), &opts);
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    let mut a = add_args(2);
    dev.run_kernel(f, &mut a, &opts).unwrap();
    let out = bits(&a[2]);
    assert_ne!(out[64], 0xdead_beef);
    assert!(out[32..64].iter().chain(&out[96..]).all(|&v| v == 0xdead_beef));
    // An empty grid launches nothing.
    let mut a = add_args(1);
    dev.run_kernel(f, &mut a, &LaunchOptions { grid: Some([0, 1, 1]), block: None }).unwrap();
    assert!(bits(&a[2]).iter().all(|&v| v == 0xdead_beef));
}

/// Every kernel of the common module: where the back end compiles it for the GPU, the GPU
/// matches the interpreter; where it does not, the launch is the back end's compile error.
#[test]
fn common_kernels_match_or_fail_to_compile_on_the_gpu() {
    let Some(dev) = gpu("common_kernels_match_or_fail_to_compile_on_the_gpu") else { return };
    let m = module();
    for k in ["scan", "init", "bump", "stride", "bigshared", "mixed"] {
        let f = m.kernel(k).unwrap();
        let r = crosscheck::kernel(&dev, f, &args_for(k), &LaunchOptions::default());
        eprintln!("{r}");
        match dev.compile(f) {
            // `bump` reads a scalar parameter that the waitcnt pass does not wait for (the
            // simulator's wait checker reports it, crates/qd-rt/tests/sim.rs): on hardware it may
            // read a stale register, so its outcome is printed, not asserted, until that is fixed.
            Ok(_) if KNOWN_MISSING_WAITS.contains(&k) => eprintln!("known back-end bug, outcome: {r}"),
            Ok(_) => assert_eq!(r.outcome, Outcome::Matched, "{r}"),
            Err(ce) => {
                assert_eq!(ce.kind, RtErrorKind::Compile, "{ce}");
                match &r.outcome {
                    Outcome::DeviceError(e) => assert_eq!(e, &ce, "{r}"),
                    _ => panic!("{k}: the back end refuses it ({ce}), yet the device ran it: {r}"),
                }
            }
        }
    }
}

/// Kernels of `common` that hit a known back-end bug (see the use).
const KNOWN_MISSING_WAITS: [&str; 1] = ["bump"];

/// The kernels the GPU tests run compile for every AMDGCN target and give the numbers the GPU
/// tests expect on the simulators, so those tests fail on hardware only for a hardware reason.
#[test]
fn the_gpu_test_kernels_run_on_the_simulators() {
    let add = parse(&add_kernel("3, 1, 1"));
    let f = add.kernel("addk").unwrap();
    let prog = parse(PROGRAM);
    let p = prog.program("guarded").unwrap();
    for spec in ["sim-gfx942", "sim-gfx90a", "sim-gfx1100", "sim-gfx1100-w32"] {
        let dev = Device::open(spec).unwrap();
        let mut a = add_args(3);
        dev.run_kernel(f, &mut a, &LaunchOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let want: Vec<u64> = bits(&a[0])
            .iter()
            .zip(bits(&a[1]))
            .map(|(p, q)| u64::from((*p as u32).wrapping_add(q as u32).wrapping_add(3 + 64)))
            .collect();
        assert_eq!(bits(&a[2]), want, "{spec}");
        let mut a = program_args(3, 64, 3);
        let e = dev.run_program(&prog, p, &mut a).unwrap_err();
        assert_eq!(e.kind, RtErrorKind::ProgramStatus { status: 3 }, "{spec}: {e}");
        assert_eq!(bits(&a[1]), (0..64u64).map(|i| i * 11 + 3).collect::<Vec<_>>(), "{spec}");
    }
}

#[test]
fn buffers_and_kernels_stay_with_their_device() {
    let Some(dev) = gpu("buffers_and_kernels_stay_with_their_device") else { return };
    let m = parse(&add_kernel("2, 1, 1"));
    let f = m.kernel("addk").unwrap();
    let k = dev.compile(f).unwrap();
    assert_eq!(&k.code_object().unwrap()[..4], b"\x7fELF");
    assert!(k.amdgcn_asm().unwrap().contains("s_endpgm"));
    assert!(k.ptx().is_none() && k.spirv().is_none());
    // One buffer bound to all three parameters is one memory, as on the cpu device.
    let cpu = Device::cpu_with_width(dev.info().subgroup_width).unwrap();
    let ck = cpu.compile(f).unwrap();
    let run = |d: &Device, k: &qd_rt::CompiledKernel| {
        let x = d.upload(&HostBuffer::from_bits(ScalarType::U32, (0..128).map(|i| i * 5))).unwrap();
        let y = d.upload(&HostBuffer::from_bits(ScalarType::U32, 0..128)).unwrap();
        for _ in 0..2 {
            d.launch(k, &[DeviceArg::Buffer(&x), DeviceArg::Buffer(&x), DeviceArg::Buffer(&x)], None).unwrap();
        }
        d.launch(k, &[DeviceArg::Buffer(&x), DeviceArg::Buffer(&x), DeviceArg::Buffer(&y)], None).unwrap();
        d.synchronize().unwrap();
        (d.download(&x).unwrap().to_bits(), d.download(&y).unwrap().to_bits())
    };
    let (x, y) = run(&dev, &k);
    let want_x: Vec<u64> = (0..128u64).map(|i| ((i * 5) * 2 + 66) * 2 + 66).collect();
    assert_eq!(x, want_x);
    assert_eq!(y, want_x.iter().map(|v| v * 2 + 66).collect::<Vec<_>>());
    assert_eq!((x, y), run(&cpu, &ck));
    // Other devices' buffers and kernels are refused with a usage error.
    let h = cpu.alloc(ScalarType::U32, 128).unwrap();
    let e = dev.launch(&k, &[DeviceArg::Buffer(&h), DeviceArg::Buffer(&h), DeviceArg::Buffer(&h)], None).unwrap_err();
    assert!(e.to_string().contains("a buffer of another device passed to the hsa device"), "{e}");
    let z = dev.alloc(ScalarType::U32, 128).unwrap();
    assert_eq!(dev.download(&z).unwrap().to_bits(), vec![0; 128], "alloc zero-fills");
    let e = dev.launch(&ck, &[DeviceArg::Buffer(&z), DeviceArg::Buffer(&z), DeviceArg::Buffer(&z)], None).unwrap_err();
    assert!(e.to_string().contains("compiled for another device"), "{e}");
    assert!(cpu.download(&z).unwrap_err().to_string().contains("an hsa buffer can only be read by its hsa device"));
    // write: the start of the buffer only.
    dev.write(&z, &HostBuffer::from_bits(ScalarType::U32, [9, 8, 7])).unwrap();
    assert_eq!(dev.download(&z).unwrap().to_bits()[..4], [9, 8, 7, 0]);
}

#[test]
fn programs_match_the_cpu_device_on_the_gpu() {
    let Some(dev) = gpu("programs_match_the_cpu_device_on_the_gpu") else { return };
    let m = parse(PROGRAM);
    let p = m.program("guarded").unwrap();
    let cpu = Device::cpu_with_width(dev.info().subgroup_width).unwrap();
    for (n, flags) in [(4, 0), (8, 0), (3, 3), (2, 2)] {
        let mut a = program_args(n, 64, flags);
        let mut c = program_args(n, 64, flags);
        let (r, cr) = (dev.run_program(&m, p, &mut a), cpu.run_program(&m, p, &mut c));
        assert_eq!(r, cr, "n={n} flags={flags}");
        assert_eq!(a, c, "n={n} flags={flags}: the buffers are downloaded after a status error too");
        assert_eq!(bits(&a[1]), (0..64u64).map(|i| i * 11 + u64::from(n)).collect::<Vec<_>>());
    }
    let r = crosscheck::program(&dev, &m, p, &program_args(8, 64, 0));
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    // Argument checks before any launch, with the cpu device's messages.
    let mut a = program_args(4, 63, 0);
    let e = dev.run_program(&m, p, &mut a).unwrap_err();
    assert_eq!(e.kind, RtErrorKind::ProgramCheck { param: "src".into() });
    assert_eq!(e, cpu.run_program(&m, p, &mut program_args(4, 63, 0)).unwrap_err());

    // Resident: one upload, runs with new inputs written in between.
    let src = dev.upload(&HostBuffer::from_bits(ScalarType::U32, (0..64).map(|i| i * 11))).unwrap();
    let dst = dev.alloc(ScalarType::U32, 64).unwrap();
    let n = dev.alloc(ScalarType::U32, 1).unwrap();
    let flags = dev.alloc(ScalarType::U32, 1).unwrap();
    let argv = [DeviceArg::Buffer(&src), DeviceArg::Buffer(&dst), DeviceArg::Buffer(&n), DeviceArg::Buffer(&flags)];
    for (live, status) in [(0u32, 0u32), (2, 2), (4, 0), (1, 1), (7, 0)] {
        dev.write(&n, &HostBuffer::from_bits(ScalarType::U32, [u64::from(live)])).unwrap();
        dev.write(&flags, &HostBuffer::from_bits(ScalarType::U32, [u64::from(status)])).unwrap();
        let r = dev.run_program_resident(&m, p, &argv);
        match status {
            0 => r.unwrap(),
            s => assert_eq!(r.unwrap_err().kind, RtErrorKind::ProgramStatus { status: s }),
        }
        let want: Vec<u64> = (0..64u64).map(|i| i * 11 + u64::from(live)).collect();
        assert_eq!(dev.download(&dst).unwrap().to_bits(), want, "n={live}");
    }
    let same = [DeviceArg::Buffer(&src), DeviceArg::Buffer(&src), DeviceArg::Buffer(&n), DeviceArg::Buffer(&flags)];
    let e = dev.run_program_resident(&m, p, &same).unwrap_err();
    assert!(matches!(e.kind, RtErrorKind::ProgramCheck { .. }), "{e}");
}

#[test]
fn compile_errors_on_the_gpu_are_compile_errors() {
    let Some(dev) = gpu("compile_errors_on_the_gpu_are_compile_errors") else { return };
    let own = dev.info().subgroup_width;
    let other = 96 - own;
    let src = format!(
        "kernel @narrow(%out: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) subgroup({other}) {{\n  return\n}}\n"
    );
    let m = parse(&src);
    let mut a = vec![zeros(ScalarType::U32, 64)];
    let e = dev.run_kernel(m.kernel("narrow").unwrap(), &mut a, &LaunchOptions::default()).unwrap_err();
    assert_eq!(e.kind, RtErrorKind::Compile, "{e}");
    assert!(e.to_string().starts_with("kernel @narrow: cannot compile for gfx"), "{e}");
    assert!(e.to_string().ends_with(&format!("this target's wave has {own} lanes")), "{e}");
}
