//! Program status words and argument checks on every device, through `Device::run_program`
//! (host buffers) and `Device::run_program_resident` (device buffers, one upload, replays at
//! several live counts with `Device::write`): a short buffer is `RtErrorKind::ProgramCheck`
//! naming its parameter and nothing runs; one buffer bound to both parameters of a
//! `check distinct` is the same error (resident runs only: host arguments are always distinct);
//! a status bit set by a kernel is `RtErrorKind::ProgramStatus` with its message; the status word
//! starts at zero on every run, so a good run after a bad one succeeds.
//!
//! The cpu device always runs; the vulkan device when there is one (lavapipe here; without one
//! each vulkan test says it is skipped, unless `QD_REQUIRE_VULKAN=1`); the cuda device only with
//! `QD_TEST_CUDA=1`.

mod common;

use common::*;
use qd_mir::ScalarType;
use qd_rt::{ArgValue, Device, DeviceArg, DeviceKind, HostBuffer, RtError, RtErrorKind};

fn vulkan(test: &str) -> Option<Device> {
    match Device::vulkan(0) {
        Ok(d) => {
            eprintln!("{test}: on {} ({})", d.info().name, d.info().detail);
            Some(d)
        }
        Err(e) if std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("QD_REQUIRE_VULKAN=1 but vulkan:0 cannot be opened: {e}")
        }
        Err(e) => {
            eprintln!("{test}: skipped (no Vulkan device: {e})");
            None
        }
    }
}

fn cuda(test: &str) -> Option<Device> {
    if std::env::var("QD_TEST_CUDA").as_deref() != Ok("1") {
        eprintln!("{test}: skipped (set QD_TEST_CUDA=1 to run the CUDA tests)");
        return None;
    }
    match Device::cuda(0) {
        Ok(d) => {
            eprintln!("{test}: on {} ({})", d.info().name, d.info().detail);
            Some(d)
        }
        Err(e) => panic!("QD_TEST_CUDA=1 but cuda:0 cannot be opened: {e}"),
    }
}

fn cpus() -> Vec<Device> {
    [8, 32].iter().map(|&w| Device::cpu_with_width(w).expect("a valid width")).collect()
}

const STATUS_BOTH: &str =
    "program @twice: status %qd_status = 0x9: double: n is outside 0..=64 (max_n); total: n is outside 0..=64 (max_n)";

fn i32s(v: &[i32]) -> HostBuffer {
    HostBuffer::from_bits(ScalarType::I32, v.iter().map(|&x| u64::from(x as u32)))
}

fn u32s_host(v: impl IntoIterator<Item = u32>) -> HostBuffer {
    HostBuffer::from_bits(ScalarType::U32, v.into_iter().map(u64::from))
}

/// `dst` after runs at these live counts, in order, over `src = 0..64` and a zeroed `dst`.
fn dst_after(ns: &[usize]) -> Vec<u64> {
    let mut d = vec![0u64; 64];
    for &n in ns {
        for (i, x) in d.iter_mut().enumerate().take(n) {
            *x = 2 * i as u64 + 1;
        }
    }
    d
}

/// The arguments of `@twice` as host buffers: the live count, `src = 0..64`, a zeroed `dst` of
/// `dst_len` elements and `sum = [77]` (a value no run computes, to see that nothing ran).
fn host_args(n: i32, dst_len: usize) -> Vec<ArgValue> {
    vec![ArgValue::Buffer(i32s(&[n])), u32s(0..64), zeros(ScalarType::U32, dst_len), u32s([77])]
}

fn assert_kind(e: &RtError, kind: RtErrorKind, message: &str) {
    assert_eq!(e.kind, kind, "{e}");
    assert_eq!(e.to_string(), message);
}

/// `run_program` with host buffers: checks, status, and a good run after a bad one.
fn checks_and_status(dev: &Device) {
    let m = status_module();
    let p = m.program("twice").expect("@twice");
    let spec = dev.info().spec();
    for n in [10usize, 64, 0] {
        let mut a = host_args(n as i32, 64);
        dev.run_program(&m, p, &mut a).unwrap_or_else(|e| panic!("{spec}, n = {n}: {e}"));
        assert_eq!(bits(&a[2]), dst_after(&[n]), "{spec}: dst at n = {n}");
        assert_eq!(bits(&a[3]), vec![(n * n) as u64], "{spec}: sum at n = {n}");
    }
    // A short buffer: named, with the bound's origin, before anything runs.
    let mut a = host_args(10, 63);
    let e = dev.run_program(&m, p, &mut a).unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::ProgramCheck { param: "dst".into() },
        "program @twice: buffer %dst has 63 element(s), needs at least 64 (max_n)",
    );
    assert_eq!((bits(&a[2]), bits(&a[3])), (vec![0; 63], vec![77]), "{spec}: nothing ran");
    let mut a = host_args(10, 64);
    a[0] = zeros(ScalarType::I32, 0);
    let e = dev.run_program(&m, p, &mut a).unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::ProgramCheck { param: "n".into() },
        "program @twice: buffer %n has 0 element(s), needs at least 1 (the live count)",
    );
    // A wrong element type is a usage error naming the argument.
    let mut a = host_args(10, 64);
    a[1] = zeros(ScalarType::F32, 64);
    let e = dev.run_program(&m, p, &mut a).unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::Usage,
        "program @twice: program argument 1 (%src): expected a buffer of u32, got a buffer of f32",
    );
    // A live count out of range: both kernels set their bit and write nothing.
    for n in [65, -1, i32::MAX] {
        let mut a = host_args(n, 64);
        let e = dev.run_program(&m, p, &mut a).unwrap_err();
        assert_kind(&e, RtErrorKind::ProgramStatus { status: 0x9 }, STATUS_BOTH);
        assert_eq!((bits(&a[2]), bits(&a[3])), (vec![0; 64], vec![77]), "{spec}: n = {n} wrote nothing");
    }
    // The word is zeroed for each run: a good run after the bad ones succeeds.
    let mut a = host_args(5, 64);
    dev.run_program(&m, p, &mut a).unwrap_or_else(|e| panic!("{spec}: a good run after a bad one: {e}"));
    assert_eq!(bits(&a[3]), vec![25]);
}

/// `run_program_resident`: one upload, replays at several live counts, checks with real buffer
/// identity, status errors, type errors.
fn resident(dev: &Device) {
    let m = status_module();
    let p = m.program("twice").expect("@twice");
    let spec = dev.info().spec();
    let n = dev.upload(&i32s(&[10])).unwrap();
    let src = dev.upload(&u32s_host(0..64)).unwrap();
    let dst = dev.alloc(ScalarType::U32, 64).unwrap();
    let sum = dev.upload(&u32s_host([77])).unwrap();
    let argv = [DeviceArg::Buffer(&n), DeviceArg::Buffer(&src), DeviceArg::Buffer(&dst), DeviceArg::Buffer(&sum)];
    let read = |b| dev.download(b).unwrap().to_bits();
    let mut done = Vec::new();
    for live in [10usize, 40, 0, 64, 3] {
        dev.write(&n, &i32s(&[live as i32])).unwrap();
        dev.run_program_resident(&m, p, &argv).unwrap_or_else(|e| panic!("{spec}, n = {live}: {e}"));
        done.push(live);
        assert_eq!(read(&dst), dst_after(&done), "{spec}: dst after n = {done:?}");
        assert_eq!(read(&sum), vec![(live * live) as u64], "{spec}: sum at n = {live}");
    }
    // Out of range: the status error, nothing written; then a good run again.
    for bad in [65, -7] {
        dev.write(&n, &i32s(&[bad])).unwrap();
        let e = dev.run_program_resident(&m, p, &argv).unwrap_err();
        assert_kind(&e, RtErrorKind::ProgramStatus { status: 0x9 }, STATUS_BOTH);
        assert_eq!((read(&dst), read(&sum)), (dst_after(&done), vec![9]), "{spec}: n = {bad} wrote nothing");
    }
    dev.write(&n, &i32s(&[2])).unwrap();
    dev.run_program_resident(&m, p, &argv).unwrap_or_else(|e| panic!("{spec}: a good run after a bad one: {e}"));
    assert_eq!(read(&sum), vec![4]);

    // One buffer for both parameters of `check distinct`: refused before anything runs.
    let aliased = [DeviceArg::Buffer(&n), DeviceArg::Buffer(&src), DeviceArg::Buffer(&src), DeviceArg::Buffer(&sum)];
    let e = dev.run_program_resident(&m, p, &aliased).unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::ProgramCheck { param: "src".into() },
        "program @twice: %src and %dst are the same buffer; they must be distinct",
    );
    // Two buffers with the same contents are distinct.
    let copy = dev.upload(&dev.download(&src).unwrap()).unwrap();
    let two = [DeviceArg::Buffer(&n), DeviceArg::Buffer(&src), DeviceArg::Buffer(&copy), DeviceArg::Buffer(&sum)];
    dev.run_program_resident(&m, p, &two).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(read(&copy)[..4], [1, 3, 2, 3], "n = 2: two elements doubled, the rest as uploaded");
    assert_eq!(read(&src), (0..64).collect::<Vec<u64>>(), "src is only read");
    // A short buffer, by its real length.
    let short = dev.alloc(ScalarType::U32, 63).unwrap();
    let e = dev
        .run_program_resident(
            &m,
            p,
            &[DeviceArg::Buffer(&n), DeviceArg::Buffer(&src), DeviceArg::Buffer(&short), DeviceArg::Buffer(&sum)],
        )
        .unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::ProgramCheck { param: "dst".into() },
        "program @twice: buffer %dst has 63 element(s), needs at least 64 (max_n)",
    );
    assert_eq!(read(&short), vec![0; 63], "nothing ran");
    assert_eq!(read(&sum), vec![4], "nothing ran");
    // Types and counts.
    let f = dev.alloc(ScalarType::F32, 64).unwrap();
    let e = dev
        .run_program_resident(
            &m,
            p,
            &[DeviceArg::Buffer(&n), DeviceArg::Buffer(&f), DeviceArg::Buffer(&dst), DeviceArg::Buffer(&sum)],
        )
        .unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::Usage,
        "program @twice: program argument 1 (%src): expected a buffer of u32, got a buffer of f32",
    );
    let e = dev
        .run_program_resident(
            &m,
            p,
            &[
                DeviceArg::Scalar(ScalarType::I32, 3),
                DeviceArg::Buffer(&src),
                DeviceArg::Buffer(&dst),
                DeviceArg::Buffer(&sum),
            ],
        )
        .unwrap_err();
    assert_kind(
        &e,
        RtErrorKind::Usage,
        "program @twice: program argument 0 (%n): expected a buffer of i32, got a i32 scalar",
    );
    let e = dev.run_program_resident(&m, p, &argv[..3]).unwrap_err();
    assert_kind(&e, RtErrorKind::Usage, "program @twice: expects 4 argument(s), got 3");
    // A buffer of another device.
    if dev.info().kind != DeviceKind::Cpu {
        let host = Device::cpu().upload(&u32s_host(0..64)).unwrap();
        let e = dev
            .run_program_resident(
                &m,
                p,
                &[DeviceArg::Buffer(&n), DeviceArg::Buffer(&host), DeviceArg::Buffer(&dst), DeviceArg::Buffer(&sum)],
            )
            .unwrap_err();
        assert_eq!(e.kind, RtErrorKind::Usage, "{e}");
        assert!(e.to_string().contains("(%src): the buffer belongs to another device"), "{e}");
    }
    assert_eq!(read(&sum), vec![4], "nothing ran");
}

/// `Device::write`: a prefix of the buffer, the element type and length checked.
fn write_helper(dev: &Device) {
    let b = dev.upload(&u32s_host(0..8)).unwrap();
    dev.write(&b, &u32s_host([70, 71, 72])).unwrap();
    assert_eq!(dev.download(&b).unwrap().to_bits(), vec![70, 71, 72, 3, 4, 5, 6, 7]);
    dev.write(&b, &u32s_host([])).unwrap();
    let e = dev.write(&b, &i32s(&[1])).unwrap_err();
    assert_kind(&e, RtErrorKind::Usage, "write: the host buffer holds i32, the device buffer u32");
    let e = dev.write(&b, &u32s_host(0..9)).unwrap_err();
    assert_kind(&e, RtErrorKind::Usage, "write: the host buffer has 9 element(s), the device buffer only 8");
    assert_eq!(dev.download(&b).unwrap().to_bits(), vec![70, 71, 72, 3, 4, 5, 6, 7]);
}

#[test]
fn status_and_checks_on_cpu() {
    for dev in cpus() {
        checks_and_status(&dev);
    }
}

#[test]
fn status_and_checks_on_vulkan() {
    let Some(dev) = vulkan("status_and_checks_on_vulkan") else { return };
    checks_and_status(&dev);
}

#[test]
fn status_and_checks_on_cuda() {
    let Some(dev) = cuda("status_and_checks_on_cuda") else { return };
    checks_and_status(&dev);
}

#[test]
fn resident_replay_on_cpu() {
    for dev in cpus() {
        resident(&dev);
        write_helper(&dev);
    }
}

#[test]
fn resident_replay_on_vulkan() {
    let Some(dev) = vulkan("resident_replay_on_vulkan") else { return };
    resident(&dev);
    write_helper(&dev);
}

#[test]
fn resident_replay_on_cuda() {
    let Some(dev) = cuda("resident_replay_on_cuda") else { return };
    resident(&dev);
    write_helper(&dev);
}

/// The resident path and the host path agree with the interpreter on the same inputs.
#[test]
fn resident_matches_run_program_on_cpu() {
    let m = status_module();
    let p = m.program("twice").expect("@twice");
    let dev = Device::cpu();
    let mut host = host_args(37, 64);
    dev.run_program(&m, p, &mut host).unwrap();
    let bufs: Vec<_> = host_args(37, 64)
        .iter()
        .map(|a| match a {
            ArgValue::Buffer(b) => dev.upload(b).unwrap(),
            ArgValue::Scalar(..) => unreachable!("@twice takes buffers only"),
        })
        .collect();
    let argv: Vec<DeviceArg<'_>> = bufs.iter().map(DeviceArg::Buffer).collect();
    dev.run_program_resident(&m, p, &argv).unwrap();
    for (h, d) in host.iter().zip(&bufs) {
        assert_eq!(bits(h), dev.download(d).unwrap().to_bits());
    }
}

/// One program parameter passed for two parameters of a kernel (the algorithms' staircase reads
/// one region of the scratch and writes another): one memory, on every device and through both
/// program paths; and a direct `launch` with one buffer twice.
fn shared_buffer(dev: &Device) {
    let src = "kernel @inc(%a: ptr<global, u32>, %b: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {\n  \
               %0 = thread_id x : u32\n  %1 = ptr.offset %a, %0 : ptr<global, u32>\n  %2 = load %1 : u32\n  \
               %3 = const 1 : u32\n  %4 = add %2, %3 : u32\n  %5 = ptr.offset %b, %0 : ptr<global, u32>\n  \
               store %5, %4\n  return\n}\nprogram @p(%x: ptr<global, u32>) {\n  launch @inc(%x, %x)\n  launch @inc(%x, %x)\n}\n";
    let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{e}"));
    let p = m.program("p").expect("@p");
    let spec = dev.info().spec();
    let want: Vec<u64> = (0..64).map(|i| i + 2).collect();
    let mut a = vec![u32s(0..64)];
    dev.run_program(&m, p, &mut a).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(bits(&a[0]), want, "{spec}: run_program");
    let x = dev.upload(&u32s_host(0..64)).unwrap();
    dev.run_program_resident(&m, p, &[DeviceArg::Buffer(&x)]).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(dev.download(&x).unwrap().to_bits(), want, "{spec}: run_program_resident");
    let k = dev.compile(m.kernel("inc").expect("@inc")).unwrap();
    dev.launch(&k, &[DeviceArg::Buffer(&x), DeviceArg::Buffer(&x)], None).unwrap_or_else(|e| panic!("{spec}: {e}"));
    dev.synchronize().unwrap();
    assert_eq!(dev.download(&x).unwrap().to_bits(), (0..64).map(|i| i + 3).collect::<Vec<u64>>(), "{spec}: launch");
}

#[test]
fn shared_buffer_on_cpu() {
    for d in cpus() {
        shared_buffer(&d);
    }
}

#[test]
fn shared_buffer_on_vulkan() {
    if let Some(d) = vulkan("shared_buffer_on_vulkan") {
        shared_buffer(&d);
    }
}

#[test]
fn shared_buffer_on_cuda() {
    if let Some(d) = cuda("shared_buffer_on_cuda") {
        shared_buffer(&d);
    }
}

/// `Device::run_program_phases`: the same checks, launches and results as a resident run, one
/// timed phase per launch naming its kernel, the status word still read (a bad live count is the
/// status error); `Device::timed` around a resident run.
fn phases(dev: &Device) {
    let m = status_module();
    let p = m.program("twice").expect("@twice");
    let spec = dev.info().spec();
    let n = dev.upload(&i32s(&[40])).unwrap();
    let src = dev.upload(&u32s_host(0..64)).unwrap();
    let dst = dev.alloc(ScalarType::U32, 64).unwrap();
    let sum = dev.upload(&u32s_host([77])).unwrap();
    let argv = [DeviceArg::Buffer(&n), DeviceArg::Buffer(&src), DeviceArg::Buffer(&dst), DeviceArg::Buffer(&sum)];
    let got = dev.run_program_phases(&m, p, &argv).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let kernels: Vec<&str> = p.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(got.iter().map(|ph| ph.kernel.as_str()).collect::<Vec<_>>(), kernels, "{spec}: one phase per launch");
    assert!(got.iter().enumerate().all(|(i, ph)| ph.index == i));
    assert_eq!(dev.download(&dst).unwrap().to_bits(), dst_after(&[40]), "{spec}: the phases did the program's work");
    assert_eq!(dev.download(&sum).unwrap().to_bits(), vec![1600]);
    dev.write(&n, &i32s(&[65])).unwrap();
    let e = dev.run_program_phases(&m, p, &argv).unwrap_err();
    assert_kind(&e, RtErrorKind::ProgramStatus { status: 0x9 }, STATUS_BOTH);
    dev.write(&n, &i32s(&[3])).unwrap();
    let ((), elapsed, clock) = dev.timed(|d| d.run_program_resident(&m, p, &argv)).unwrap();
    let want = if dev.info().kind == DeviceKind::Cuda { qd_rt::Clock::DeviceEvents } else { qd_rt::Clock::WallClock };
    assert_eq!(clock, want, "{spec}");
    assert!(elapsed > std::time::Duration::ZERO, "{spec}: {elapsed:?}");
    assert_eq!(dev.download(&sum).unwrap().to_bits(), vec![9]);
}

#[test]
fn phases_on_cpu() {
    for dev in cpus() {
        phases(&dev);
    }
}

#[test]
fn phases_on_vulkan() {
    if let Some(d) = vulkan("phases_on_vulkan") {
        phases(&d);
    }
}

#[test]
fn phases_on_cuda() {
    if let Some(d) = cuda("phases_on_cuda") {
        phases(&d);
    }
}
