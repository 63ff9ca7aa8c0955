//! [`WaveSim`]: one wave with host access to its registers and LDS, for unit tests of individual
//! instructions and short sequences (cross-lane patterns, hazards) without building a kernel.

use qd_amdgcn_isa::Inst;
use qd_amdgcn_isa::Target;

use super::memory::Lds;
use super::state::Wave;
use super::{run_wave, Fault, GlobalMemory, Prepared, SimError, SimErrorKind, SimOptions, SimStats, Stop, WaveId};

/// One wave whose registers the host sets and reads directly.
#[derive(Clone, Debug)]
pub struct WaveSim {
    wave: Wave,
    lds: Lds,
    lds_bytes: u32,
    /// Limits and checks used by [`WaveSim::run`].
    pub options: SimOptions,
}

fn host(kind: SimErrorKind, message: String) -> SimError {
    Fault::new(kind, message).into_host_error()
}

impl WaveSim {
    /// A wave of `target` with `vgprs` VGPRs (at most 256), `sgprs` SGPRs and `lds_bytes` of LDS
    /// (at most 64 KiB); every register zero, EXEC all ones.
    pub fn new(target: Target, vgprs: u32, sgprs: u32, lds_bytes: u32) -> WaveSim {
        let lds_bytes = lds_bytes.min(super::MAX_LDS);
        let mut wave = Wave::new(target, WaveId::default(), sgprs.min(super::state::NUM_SGPRS as u32), vgprs.min(256));
        wave.exec = wave.full_mask();
        WaveSim { wave, lds: Lds::new(lds_bytes), lds_bytes, options: SimOptions::default() }
    }

    /// Lanes per wave.
    pub fn lanes(&self) -> u32 {
        self.wave.lanes
    }

    /// EXEC.
    pub fn exec(&self) -> u64 {
        self.wave.exec
    }

    /// Sets EXEC.
    pub fn set_exec(&mut self, exec: u64) {
        self.wave.exec = exec;
    }

    /// VCC.
    pub fn vcc(&self) -> u64 {
        self.wave.vcc
    }

    /// Sets VCC.
    pub fn set_vcc(&mut self, vcc: u64) {
        self.wave.vcc = vcc;
    }

    /// SCC.
    pub fn scc(&self) -> bool {
        self.wave.scc
    }

    /// Sets SCC.
    pub fn set_scc(&mut self, scc: bool) {
        self.wave.scc = scc;
    }

    /// M0.
    pub fn m0(&self) -> u32 {
        self.wave.m0
    }

    /// Sets M0.
    pub fn set_m0(&mut self, m0: u32) {
        self.wave.m0 = m0;
    }

    /// Reads VGPR `reg` in `lane`.
    pub fn vgpr(&self, reg: u32, lane: u32) -> Result<u32, SimError> {
        if lane >= self.wave.lanes {
            return Err(host(SimErrorKind::RegisterRange, format!("lane {lane} does not exist")));
        }
        self.wave.vgpr_read(reg, lane).map_err(Fault::into_host_error)
    }

    /// Writes VGPR `reg` in `lane`.
    pub fn set_vgpr(&mut self, reg: u32, lane: u32, value: u32) -> Result<(), SimError> {
        if lane >= self.wave.lanes {
            return Err(host(SimErrorKind::RegisterRange, format!("lane {lane} does not exist")));
        }
        self.wave.vgpr_write(reg, lane, value).map_err(Fault::into_host_error)
    }

    /// Reads SGPR `reg`.
    pub fn sgpr(&self, reg: u32) -> Result<u32, SimError> {
        self.wave.sgpr_read(reg).map_err(Fault::into_host_error)
    }

    /// Writes SGPR `reg`.
    pub fn set_sgpr(&mut self, reg: u32, value: u32) -> Result<(), SimError> {
        self.wave.sgpr_write(reg, value).map_err(Fault::into_host_error)
    }

    /// Reads an LDS dword.
    pub fn lds_read(&self, addr: u32) -> Result<u32, SimError> {
        self.lds.read32(addr).map_err(Fault::into_host_error)
    }

    /// Writes an LDS dword.
    pub fn lds_write(&mut self, addr: u32, value: u32) -> Result<(), SimError> {
        self.lds.write32(addr, value).map_err(Fault::into_host_error)
    }

    /// LDS size in bytes.
    pub fn lds_bytes(&self) -> u32 {
        self.lds_bytes
    }

    /// Runs `insts` from the first until `s_endpgm` or past the last one (`s_barrier` passes at
    /// once: the wave is alone). Hazard and wait state carries over between calls.
    pub fn run(&mut self, insts: &[(u32, Inst)], mem: &mut GlobalMemory) -> Result<SimStats, SimError> {
        let prepared = Prepared::new(self.wave.target, insts);
        let mut stats = SimStats::default();
        self.wave.pc = 0;
        self.wave.done = false;
        self.wave.steps = 0;
        let start = self.wave.cycles;
        loop {
            let stop = run_wave(&prepared, &mut self.wave, mem, &mut self.lds, &mut stats, &self.options, true)?;
            if stop == Stop::End {
                break;
            }
        }
        stats.waves = 1;
        stats.est_cycles = self.wave.cycles - start;
        stats.max_wave_cycles = stats.est_cycles;
        Ok(stats)
    }
}
