//! Cross-checking a device against the interpreter: run a kernel (or a program) on the MIR
//! interpreter at the device's subgroup width — the reference: 32 for CUDA, the driver's
//! `subgroupSize` for Vulkan (8 on lavapipe by default) — and on a [`Device`], then compare every
//! buffer bit for bit (floats by their bits, so `-0.0 ≠ +0.0` and NaN payloads count).
//!
//! ```no_run
//! # fn demo(f: &qd_mir::Function, args: &[qd_rt::ArgValue]) {
//! let dev = qd_rt::Device::cuda(0).expect("a GPU");
//! let report = qd_rt::crosscheck::kernel(&dev, f, args, &qd_rt::LaunchOptions::default());
//! assert!(!report.is_failure(), "{report}");
//! # }
//! ```
//!
//! A kernel the interpreter faults on at that width (an expected-fault test: out of bounds, division
//! by zero, a divergent barrier…) is not run on the device and is reported as
//! [`Outcome::Skipped`]: hardware behaviour is undefined there. [`Tally`] counts reports for a
//! summary line.
//!
//! `grid(saturating)` is the one launch whose size is implementation-defined (the interpreter runs
//! 4 blocks, a GPU 4 per SM); a kernel may observe it (`grid_dim`), so the device side of a
//! cross-check runs saturating kernels with the interpreter's 4 blocks (a fixed grid), programs
//! included.

use crate::{Device, DeviceKind, LaunchOptions, RtError};
use core::fmt;
use qd_mir::interp::{self, ArgValue, RunConfig};
use qd_mir::{Function, GridPolicy, Module, Program, ScalarType};

/// The step limit of the interpreter's reference run (lane-instructions, all launches together).
pub const REFERENCE_STEP_LIMIT: u64 = 50_000_000;

/// The reference subgroup width of the CUDA device (the reference runs at the device's width).
pub const REFERENCE_WIDTH: u32 = 32;

/// The first difference between the reference and the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The parameter (kernel or program) that holds the buffer, without `%`.
    pub buffer: String,
    /// The element index.
    pub index: usize,
    /// The interpreter's value, formatted (`7 (0x7)`, `1.5 (0x3fc00000)`).
    pub reference: String,
    /// The device's value, formatted alike.
    pub device: String,
    /// How many elements of this buffer differ in all.
    pub count: usize,
}

/// How a cross-check ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every buffer is bit-identical.
    Matched,
    /// The interpreter faults at the device's width (the reason); the device was not run.
    Skipped(String),
    /// A buffer differs.
    Mismatch(Mismatch),
    /// The device failed (compile error, driver error, timeout).
    DeviceError(RtError),
    /// The interpreter faults and the device reported the same fault (host devices only).
    FaultMatched(String),
}

/// The result of one cross-check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// `kernel @k` or `program @p`.
    pub what: String,
    /// The device's spec (`cuda:0`).
    pub device: String,
    /// What happened.
    pub outcome: Outcome,
}

impl Report {
    /// True for a mismatch or a device error.
    pub fn is_failure(&self) -> bool {
        matches!(self.outcome, Outcome::Mismatch(_) | Outcome::DeviceError(_))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Matched => write!(f, "{} on {}: matched the interpreter", self.what, self.device),
            Outcome::Skipped(why) => write!(f, "{}: skipped (expected fault: {why})", self.what),
            Outcome::Mismatch(m) => write!(
                f,
                "{} on {}: buffer %{} differs from the interpreter at index {}: interpreter {}, device {} ({} element{} differ)",
                self.what,
                self.device,
                m.buffer,
                m.index,
                m.reference,
                m.device,
                m.count,
                if m.count == 1 { "" } else { "s" }
            ),
            Outcome::DeviceError(e) => write!(f, "{} on {}: device error: {e}", self.what, self.device),
            Outcome::FaultMatched(m) => write!(f, "{} on {}: faulted as the interpreter does ({m})", self.what, self.device),
        }
    }
}

/// Formats an element's bits: the value, then the raw bits in hex.
pub fn format_element(elem: ScalarType, bits: u64) -> String {
    match elem {
        ScalarType::Bool => format!("{}", bits & 1),
        ScalarType::I32 => format!("{} (0x{:08x})", bits as u32 as i32, bits as u32),
        ScalarType::U32 => format!("{} (0x{:08x})", bits as u32, bits as u32),
        ScalarType::I64 => format!("{} (0x{bits:016x})", bits as i64),
        ScalarType::U64 => format!("{bits} (0x{bits:016x})"),
        ScalarType::F32 => format!("{:?} (0x{:08x})", f32::from_bits(bits as u32), bits as u32),
        ScalarType::F64 => format!("{:?} (0x{bits:016x})", f64::from_bits(bits)),
    }
}

/// Compares the buffers of two argument lists; `names` names the parameters.
pub fn compare(names: &[String], reference: &[ArgValue], device: &[ArgValue]) -> Option<Mismatch> {
    for (i, (r, d)) in reference.iter().zip(device).enumerate() {
        let (ArgValue::Buffer(r), ArgValue::Buffer(d)) = (r, d) else { continue };
        if r.data == d.data {
            continue;
        }
        let name = names.get(i).cloned().unwrap_or_else(|| format!("arg{i}"));
        let (rb, db) = (r.to_bits(), d.to_bits());
        let count = rb.iter().zip(&db).filter(|(a, b)| a != b).count() + rb.len().abs_diff(db.len());
        let index = rb.iter().zip(&db).position(|(a, b)| a != b).unwrap_or(rb.len().min(db.len()));
        let show = |v: Option<&u64>| v.map_or("(missing)".to_string(), |b| format_element(r.elem, *b));
        return Some(Mismatch {
            buffer: name,
            index,
            reference: show(rb.get(index)),
            device: show(db.get(index)),
            count,
        });
    }
    None
}

/// The interpreter's configuration for the reference run on `dev`: its width, and on the host
/// devices (which run a kernel at the width it declares) the same rule.
fn reference_config(dev: &Device, opts: &LaunchOptions) -> RunConfig {
    let info = dev.info();
    RunConfig {
        subgroup_size: info.subgroup_width,
        grid: opts.grid,
        block: opts.block,
        step_limit: Some(REFERENCE_STEP_LIMIT),
        declared_width: info.is_host(),
    }
}

/// A copy of `f` whose `grid(saturating)` is the interpreter's fixed 4 blocks.
fn interp_grid(f: &Function) -> Function {
    let mut g = f.clone();
    if g.launch.grid == GridPolicy::Saturating {
        g.launch.grid = GridPolicy::Fixed([GridPolicy::INTERP_SATURATING_BLOCKS, 1, 1]);
    }
    g
}

/// The one difference AMD devices may show that is not MIR semantics: a NaN created by an
/// invalid operation has AMD's default bits where the interpreter has its host's
/// (`qd_isel_amdgcn::runner::adopt_host_default_nans`, which reconciles exactly that pair).
fn device_default_nans(dev: &Device, reference: &[ArgValue], got: &mut [ArgValue]) {
    match dev.info().kind {
        DeviceKind::Sim | DeviceKind::Hsa => qd_isel_amdgcn::runner::adopt_host_default_nans(reference, got),
        DeviceKind::Cpu | DeviceKind::Interp | DeviceKind::Cuda | DeviceKind::Vulkan => {}
    }
}

/// Cross-checks one kernel launch with `args` (the inputs; not modified) and launch overrides.
pub fn kernel(dev: &Device, f: &Function, args: &[ArgValue], opts: &LaunchOptions) -> Report {
    let what = format!("kernel @{}", f.name);
    let device = dev.info().spec();
    let mut reference = args.to_vec();
    let w = dev.info().subgroup_width;
    if let Err(e) = interp::run_kernel(f, &reference_config(dev, opts), &mut reference) {
        if dev.info().kind == DeviceKind::Cpu {
            let mut got = args.to_vec();
            let r = crate::cpu::jit_kernel_limited(w, &interp_grid(f), &mut got, opts, fault_limits());
            return Report { what, device, outcome: same_fault(&e, r) };
        }
        return Report { what, device, outcome: Outcome::Skipped(format!("at width {w}: {e}")) };
    }
    let mut got = args.to_vec();
    let outcome = match dev.run_kernel(&interp_grid(f), &mut got, opts) {
        Err(e) => Outcome::DeviceError(e),
        Ok(()) => {
            device_default_nans(dev, &reference, &mut got);
            let names: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
            compare(&names, &reference, &got).map_or(Outcome::Matched, Outcome::Mismatch)
        }
    };
    Report { what, device, outcome }
}

/// Cross-checks a program of `m` with `args` (the inputs; not modified).
pub fn program(dev: &Device, m: &Module, p: &Program, args: &[ArgValue]) -> Report {
    let what = format!("program @{}", p.name);
    let device = dev.info().spec();
    let mut reference = args.to_vec();
    let w = dev.info().subgroup_width;
    if let Err(e) = interp::run_program(m, p, &reference_config(dev, &LaunchOptions::default()), &mut reference) {
        if dev.info().kind == DeviceKind::Cpu {
            let mut got = args.to_vec();
            let mut fixed = m.clone();
            fixed.kernels = fixed.kernels.iter().map(interp_grid).collect();
            let r = crate::cpu::jit_program_limited(w, &fixed, p, &mut got, fault_limits());
            return Report { what, device, outcome: same_fault(&e, r) };
        }
        return Report { what, device, outcome: Outcome::Skipped(format!("at width {w}: {e}")) };
    }
    let mut got = args.to_vec();
    let mut fixed = m.clone();
    fixed.kernels = fixed.kernels.iter().map(interp_grid).collect();
    let outcome = match dev.run_program(&fixed, p, &mut got) {
        Err(e) => Outcome::DeviceError(e),
        Ok(()) => {
            device_default_nans(dev, &reference, &mut got);
            let names: Vec<String> = p.params.iter().map(|p| p.name.clone()).collect();
            compare(&names, &reference, &got).map_or(Outcome::Matched, Outcome::Mismatch)
        }
    };
    Report { what, device, outcome }
}

/// The limits of a native run of an expected-fault case: the reference's step limit (a time limit
/// too, so that a defect cannot hang the check).
fn fault_limits() -> qd_isel_cpu::Limits {
    qd_isel_cpu::Limits { step_limit: Some(REFERENCE_STEP_LIMIT), time_limit: Some(std::time::Duration::from_secs(60)) }
}

/// Whether the native `cpu` device reported the interpreter's fault `reference`: the same text,
/// site included (kernel, instruction, block, thread, lane). A step-limit fault matches on its
/// message alone: the native code counts steps per region, not per instruction, so it stops at
/// another instruction.
fn same_fault(reference: &interp::InterpError, got: Result<(), RtError>) -> Outcome {
    let want = RtError::interp(reference).to_string();
    match got {
        Ok(()) => Outcome::DeviceError(RtError::usage(format!("the device did not fault; the interpreter: {want}"))),
        Err(e) => {
            let text = e.to_string();
            let step = reference.message.starts_with("step limit of ");
            let same = if step { text.contains(&reference.message) } else { text == want };
            if same {
                Outcome::FaultMatched(reference.message.clone())
            } else {
                Outcome::DeviceError(RtError::usage(format!("a different fault: {text}; the interpreter: {want}")))
            }
        }
    }
}

/// Counts cross-check reports and keeps the failures' texts.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Matched reports.
    pub matched: usize,
    /// Skipped reports (expected faults).
    pub skipped: usize,
    /// Expected faults the device reported as the interpreter does (the host devices).
    pub faults: usize,
    /// Failures, each as `WHERE: REPORT`.
    pub failures: Vec<String>,
}

impl Tally {
    /// Adds a report; `at` says where it came from (a file and line).
    pub fn add(&mut self, at: &str, r: &Report) {
        match r.outcome {
            Outcome::Matched => self.matched += 1,
            Outcome::Skipped(_) => self.skipped += 1,
            Outcome::FaultMatched(_) => self.faults += 1,
            _ => self.failures.push(format!("{at}: {r}")),
        }
    }

    /// Adds a failure that happened before a cross-check could run (a file that does not parse).
    pub fn fail(&mut self, at: &str, why: &str) {
        self.failures.push(format!("{at}: {why}"));
    }

    /// `LABEL: N matched, M skipped (expected fault), K failed` (with `F faults matched` when
    /// the device reported expected faults).
    pub fn summary(&self, label: &str) -> String {
        let faults = if self.faults > 0 { format!(", {} faults matched", self.faults) } else { String::new() };
        format!(
            "{label}: {} matched{faults}, {} skipped (expected fault), {} failed",
            self.matched,
            self.skipped,
            self.failures.len()
        )
    }
}
