//! The `cuda` device on a real GPU. Opt-in: `QD_TEST_CUDA=1 cargo test -p qd-rt --test cuda`;
//! without it every test prints that it is skipped. With it, a missing driver or GPU fails.

mod common;

use common::*;
use qd_mir::ScalarType;
use qd_rt::crosscheck::{self, Outcome};
use qd_rt::{Device, DeviceArg, DeviceKind, LaunchOptions};

fn gpu(test: &str) -> Option<Device> {
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

#[test]
fn device_info() {
    let Some(dev) = gpu("device_info") else { return };
    let info = dev.info();
    assert_eq!(info.kind, DeviceKind::Cuda);
    assert_eq!(info.subgroup_width, 32);
    assert!(info.detail.starts_with("sm_"), "{}", info.detail);
    assert!(Device::available().iter().any(|d| d.kind == DeviceKind::Cuda));
    assert_eq!(Device::best().info().kind, DeviceKind::Cuda);
    assert!(Device::cuda_unavailable_reason().is_none());
}

#[test]
fn kernels_match_the_interpreter() {
    let Some(dev) = gpu("kernels_match_the_interpreter") else { return };
    let m = module();
    for k in ["scan", "init", "bump", "stride", "mixed", "bigshared"] {
        let r = crosscheck::kernel(&dev, m.kernel(k).unwrap(), &args_for(k), &LaunchOptions::default());
        eprintln!("{r}");
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
    }
    // Expected faults are skipped without running on the GPU.
    let r = crosscheck::kernel(
        &dev,
        m.kernel("divide").unwrap(),
        &[zeros(ScalarType::U32, 32), scalar_u32(0)],
        &LaunchOptions::default(),
    );
    assert!(matches!(r.outcome, Outcome::Skipped(_)), "{r}");
}

#[test]
fn program_matches_the_interpreter() {
    let Some(dev) = gpu("program_matches_the_interpreter") else { return };
    let m = module();
    let p = m.program("pipeline").unwrap();
    for n in [64, 40, 0] {
        let a = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 64), scalar_u32(n)];
        let r = crosscheck::program(&dev, &m, p, &a);
        assert_eq!(r.outcome, Outcome::Matched, "{r}");
    }
}

#[test]
fn overrides_and_empty_grids() {
    let Some(dev) = gpu("overrides_and_empty_grids") else { return };
    let m = module();
    let f = m.kernel("init").unwrap();
    let opts = LaunchOptions { grid: Some([1, 1, 1]), block: Some([8, 1, 1]) };
    let r = crosscheck::kernel(&dev, f, &args_for("init"), &opts);
    assert_eq!(r.outcome, Outcome::Matched, "{r}");
    let mut a = vec![u32s(std::iter::repeat_n(7, 16)), scalar_u32(0)];
    dev.run_kernel(f, &mut a, &LaunchOptions::default()).unwrap();
    assert_eq!(bits(&a[0]), vec![7; 16], "grid(cover 0) launches nothing");
    // The saturating grid is 4 blocks per SM on the GPU: a grid-stride loop covers n anyway.
    let mut a = args_for("stride");
    dev.run_kernel(m.kernel("stride").unwrap(), &mut a, &LaunchOptions::default()).unwrap();
    assert_eq!(bits(&a[0]), (1..=1000).collect::<Vec<u64>>());
}

#[test]
fn low_level_api() {
    let Some(dev) = gpu("low_level_api") else { return };
    let m = module();
    let k = dev.compile(m.kernel("bump").unwrap()).unwrap();
    let ptx = k.ptx().unwrap();
    assert!(ptx.contains(".entry bump"), "{ptx}");
    let buf = dev.upload(&qd_rt::HostBuffer::from_bits(ScalarType::U32, 0..32)).unwrap();
    for add in [10, 1] {
        dev.launch(&k, &[DeviceArg::Buffer(&buf), DeviceArg::Scalar(ScalarType::U32, add)], None).unwrap();
    }
    dev.synchronize().unwrap();
    assert_eq!(dev.download(&buf).unwrap().to_bits(), (11..43).collect::<Vec<u64>>());
    let z = dev.alloc(ScalarType::F64, 5).unwrap();
    assert_eq!(dev.download(&z).unwrap().to_bits(), vec![0; 5]);
    // A second compile of the same kernel comes from the cache.
    let again = dev.compile(m.kernel("bump").unwrap()).unwrap();
    assert_eq!(again.ptx(), k.ptx());
}
