//! The device matrix of the test suites: every device this machine has that a test run should
//! cover, and for each one left out, why.
//!
//! A suite written against [`DeviceMatrix`] runs its whole body on each device, so a device kind
//! added to qd-rt later is covered by every existing suite without new test code. What is in the
//! matrix:
//!
//! - `cpu:4`, `cpu:8`, `cpu:16`, `cpu:32`, `cpu:64`: native code (`qd-isel-cpu`) at every
//!   subgroup width a device of qd has (lavapipe's 4–16, CUDA's 32, AMD's wave64); always
//!   present. The interpreter (`interp:W`) is the oracle the corpora are checked against and has
//!   its own tests; a suite runs on it when named: `QD_TEST_DEVICES=interp:32`.
//! - `cuda:N` for every NVIDIA GPU, when `QD_TEST_CUDA=1` (a GPU test run is opt-in, since CI has
//!   no GPU); otherwise the entry is skipped with the reason.
//! - `vulkan:N` for every Vulkan device the loader reports (on a machine without GPU: lavapipe,
//!   at the subgroup size its process was started with — `LP_NATIVE_VECTOR_WIDTH=128/256/512`
//!   gives 4/8/16, read by the driver when it loads, so other widths need other processes); without
//!   a loader, an ICD or a device, a `vulkan` entry is skipped with the reason.
//!
//! `QD_TEST_DEVICES=cpu:32,cuda:0` replaces the matrix by exactly those specs (a spec that cannot
//! be opened is skipped with the driver's reason). The AMDGCN simulators (`sim-gfx942`,
//! `sim-gfx90a`, `sim-gfx1100`, `sim-gfx1100-w32`: qd's AMD machine code on the wave simulator)
//! are never in the default matrix — they are far slower than the interpreter and are not
//! hardware — so a suite runs on them only when named here:
//! `QD_TEST_DEVICES=sim-gfx942 cargo test -p qd-lib --test suite`. An AMD GPU (`hsa:N`) is not in
//! the default matrix either while the AMDGCN back end lowers only part of MIR:
//! `QD_TEST_DEVICES=hsa:0` runs a suite on it.

use crate::{Device, DeviceKind};

/// A device the matrix leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The device spec (`cuda`, `cuda:1`).
    pub spec: String,
    /// Why it is not run (`QD_TEST_CUDA is not set`, `no CUDA driver (libcuda.so) found`).
    pub reason: String,
}

/// The devices a test suite runs on.
#[derive(Debug, Default)]
pub struct DeviceMatrix {
    /// The devices to run on, in order.
    pub devices: Vec<Device>,
    /// The devices left out, with the reason (a suite prints these: no device is skipped silently).
    pub skipped: Vec<Skipped>,
}

/// The cpu widths of the default matrix.
pub const CPU_WIDTHS: [u32; 5] = [4, 8, 16, 32, 64];

impl DeviceMatrix {
    /// The matrix for this machine and environment (see the module documentation).
    pub fn from_env() -> DeviceMatrix {
        match std::env::var("QD_TEST_DEVICES") {
            Ok(list) if !list.trim().is_empty() => DeviceMatrix::from_specs(list.split(',').map(str::trim)),
            _ => DeviceMatrix::default_matrix(std::env::var("QD_TEST_CUDA").is_ok_and(|v| v == "1")),
        }
    }

    /// Exactly these device specs (each opened with [`Device::open`]; a failure is a skip).
    pub fn from_specs<'a>(specs: impl IntoIterator<Item = &'a str>) -> DeviceMatrix {
        let mut m = DeviceMatrix::default();
        for spec in specs.into_iter().filter(|s| !s.is_empty()) {
            match Device::open(spec) {
                Ok(d) => m.devices.push(d),
                Err(e) => m.skipped.push(Skipped { spec: spec.to_string(), reason: e.to_string() }),
            }
        }
        m
    }

    /// The default matrix: the cpu widths, then every CUDA GPU when `with_cuda`, then every
    /// Vulkan device.
    pub fn default_matrix(with_cuda: bool) -> DeviceMatrix {
        let mut m = DeviceMatrix::default();
        for w in CPU_WIDTHS {
            // The widths are powers of two in 1..=64, which `cpu_with_width` accepts.
            match Device::cpu_with_width(w) {
                Ok(d) => m.devices.push(d),
                Err(e) => m.skipped.push(Skipped { spec: format!("cpu:{w}"), reason: e.to_string() }),
            }
        }
        if !with_cuda {
            m.skipped.push(Skipped {
                spec: "cuda".into(),
                reason: "QD_TEST_CUDA is not set to 1 (GPU runs are opt-in)".into(),
            });
        } else if let Some(reason) = Device::cuda_unavailable_reason() {
            m.skipped.push(Skipped { spec: "cuda".into(), reason });
        } else {
            for info in Device::available().into_iter().filter(|i| i.kind == DeviceKind::Cuda) {
                match Device::cuda(info.ordinal) {
                    Ok(d) => m.devices.push(d),
                    Err(e) => m.skipped.push(Skipped { spec: info.spec(), reason: e.to_string() }),
                }
            }
        }
        match crate::vulkan::list() {
            Err(e) => m.skipped.push(Skipped { spec: "vulkan".into(), reason: e.to_string() }),
            Ok(list) => {
                for info in list {
                    match Device::vulkan(info.ordinal) {
                        Ok(d) => m.devices.push(d),
                        Err(e) => m.skipped.push(Skipped { spec: info.spec(), reason: e.to_string() }),
                    }
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_matrix_has_the_cpu_widths_and_explains_cuda() {
        let m = DeviceMatrix::default_matrix(false);
        let specs: Vec<String> = m.devices.iter().map(|d| d.info().spec()).collect();
        assert_eq!(specs[..5], ["cpu:4", "cpu:8", "cpu:16", "cpu:32", "cpu:64"]);
        assert_eq!(m.skipped[0].spec, "cuda");
        assert!(m.skipped[0].reason.contains("QD_TEST_CUDA"));
        // Every Vulkan device is in the matrix, or a `vulkan` entry says why none is.
        let vulkan = specs[5..].iter().filter(|s| s.starts_with("vulkan:")).count();
        let skipped = m.skipped.iter().filter(|s| s.spec.starts_with("vulkan")).count();
        assert_eq!(specs.len(), 5 + vulkan);
        assert!(vulkan + skipped >= 1, "{m:?}");
        if std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1") {
            assert!(vulkan >= 1, "QD_REQUIRE_VULKAN=1 but the matrix has no vulkan device: {:?}", m.skipped);
        }
    }

    #[test]
    fn sim_devices_only_when_named() {
        let m = DeviceMatrix::default_matrix(false);
        assert!(m.devices.iter().all(|d| d.info().kind != DeviceKind::Sim));
        let m = DeviceMatrix::from_specs(["sim-gfx90a", "cpu:64", "sim-gfx1100"]);
        let specs: Vec<String> = m.devices.iter().map(|d| d.info().spec()).collect();
        assert_eq!(specs, ["sim-gfx90a", "cpu:64", "sim-gfx1100"]);
        assert!(m.skipped.is_empty());
    }

    #[test]
    fn specs_that_cannot_open_are_skipped_with_the_reason() {
        let m = DeviceMatrix::from_specs(["cpu:16", "cpu:3", "nope"]);
        let i = DeviceMatrix::from_specs(["interp:8"]);
        assert_eq!(i.devices[0].info().spec(), "interp:8");
        assert_eq!(m.devices.len(), 1);
        assert_eq!(m.devices[0].info().subgroup_width, 16);
        assert_eq!(m.skipped.len(), 2);
        assert!(m.skipped[0].reason.contains("power of two"), "{:?}", m.skipped[0]);
        assert!(m.skipped[1].reason.contains("unknown device"), "{:?}", m.skipped[1]);
    }
}
