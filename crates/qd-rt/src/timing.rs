//! Timing work on a device: [`Device::timed`] measures a stretch of launches where it runs — with
//! two CUDA events recorded on the device's stream around it on `cuda` (the GPU's own clock, no
//! host overhead or launch latency counted twice), and with the wall clock around the work and a
//! [`Device::synchronize`] elsewhere (`cpu`, `interp`, `sim-*`, `hsa`, and `vulkan`, whose
//! submissions are waited for) — and [`Device::run_program_phases`] times each launch of a program
//! on its own, to show which launch costs what.

use crate::error::RtError;
use crate::{Device, DeviceArg, Imp};
use qd_mir::{Module, Program};
use std::time::{Duration, Instant};

/// Which clock a [`Device::timed`] measurement came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Clock {
    /// CUDA events on the device's stream.
    DeviceEvents,
    /// The host's monotonic clock around the work and a synchronize.
    WallClock,
}

impl Clock {
    /// A short name for reports (`events`, `wall`).
    pub fn name(self) -> &'static str {
        match self {
            Clock::DeviceEvents => "events",
            Clock::WallClock => "wall",
        }
    }
}

/// One launch of a program and its time ([`Device::run_program_phases`]).
#[derive(Clone, Debug)]
pub struct Phase {
    /// The launch's index in the program.
    pub index: usize,
    /// The kernel it launches.
    pub kernel: String,
    /// How long it took.
    pub elapsed: Duration,
}

impl Device {
    /// Runs `work` (launches and copies on this device) and returns its result with how long it
    /// took on the device and the [`Clock`] that measured it. The work is complete when this
    /// returns.
    pub fn timed<R>(&self, work: impl FnOnce(&Device) -> Result<R, RtError>) -> Result<(R, Duration, Clock), RtError> {
        match &self.imp {
            Imp::Cuda(c) => {
                let start = {
                    let st = c.shared.lock()?;
                    let e = crate::cuda::driver::Event::new()?;
                    e.record(st.ctx.stream)?;
                    e
                };
                let r = work(self)?;
                let st = c.shared.lock()?;
                let end = crate::cuda::driver::Event::new()?;
                end.record(st.ctx.stream)?;
                let ms = end.elapsed_ms_since(&start)?;
                Ok((r, Duration::from_secs_f64(f64::from(ms) / 1e3), Clock::DeviceEvents))
            }
            Imp::Cpu { .. } | Imp::Vulkan(_) | Imp::Hsa(_) | Imp::Sim { .. } => {
                let t0 = Instant::now();
                let r = work(self)?;
                self.synchronize()?;
                Ok((r, t0.elapsed(), Clock::WallClock))
            }
        }
    }

    /// Runs program `p` of `m` like [`Device::run_program_resident`] (the same checks, the same
    /// launches in the same order, the status word read at the end) but times each launch on its
    /// own with [`Device::timed`], waiting for it before the next: the per-phase times of the
    /// program (their sum exceeds one whole run by the waits).
    pub fn run_program_phases(&self, m: &Module, p: &Program, argv: &[DeviceArg<'_>]) -> Result<Vec<Phase>, RtError> {
        self.with_program(m, p, argv, |dev, launches| {
            let mut phases = Vec::with_capacity(launches.len());
            for (index, l) in launches.iter().enumerate() {
                let ((), elapsed, _) = dev.timed(|d| d.launch_all(std::slice::from_ref(l)))?;
                phases.push(Phase { index, kernel: l.kernel.name().to_string(), elapsed });
            }
            Ok(phases)
        })
    }
}
