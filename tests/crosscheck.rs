//! Cross-checking `; run:` lines on a device (the CUDA and Vulkan checks of the filetests and of
//! the interpreter-test kernel corpus): every run line runs on the interpreter at the device's
//! subgroup width (the reference, whatever its `sg=`: 32 for CUDA, the driver's size for Vulkan)
//! and on the device, through `qd_rt::crosscheck`.
//!
//! The device comes from the environment ([`device_from_env`]): `QD_TEST_CUDA=1` → `cuda:0`
//! (failing when it cannot be opened); `QD_CROSSCHECK_DEVICE=SPEC` picks another (`cpu:32`
//! exercises the harness without a GPU); neither → no cross-check.

use crate::directives::{self, RunLine};
use qd_mir::Module;
use qd_rt::crosscheck::{self, Report, Tally};
use qd_rt::{Device, LaunchOptions};
use qdc::spec::parse_spec;
use std::path::Path;

/// The device to cross-check on, if the environment asks for one. Panics when it asks for one
/// that cannot be opened (an opted-in check must run for real).
pub fn device_from_env() -> Option<Device> {
    let spec = match std::env::var("QD_CROSSCHECK_DEVICE") {
        Ok(s) if !s.is_empty() => s,
        _ if std::env::var("QD_TEST_CUDA").as_deref() == Ok("1") => "cuda:0".to_string(),
        _ => return None,
    };
    match Device::open(&spec) {
        Ok(d) => Some(d),
        Err(e) => panic!("cross-check device {spec} cannot be opened: {e}"),
    }
}

/// The parameter names and arguments of a run line, one per parameter of its kernel or program, in order (shared by
/// the filetest harness and the cross-check).
pub fn run_args(m: &Module, run: &RunLine) -> Result<(Vec<String>, Vec<qd_mir::interp::ArgValue>), String> {
    let names: Vec<String> = if run.program {
        m.program(&run.target)
            .ok_or(format!("no program @{}", run.target))?
            .params
            .iter()
            .map(|p| p.name.clone())
            .collect()
    } else {
        m.kernel(&run.target)
            .ok_or(format!("no kernel @{}", run.target))?
            .params
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    let mut args = Vec::new();
    for n in &names {
        let spec = run.args.iter().find(|(a, _)| a == n).map(|(_, s)| s).ok_or(format!("run line misses {n}="))?;
        args.push(parse_spec(spec)?);
    }
    Ok((names, args))
}

/// Cross-checks one run line of a module (its arguments as given, at the device's width).
pub fn run_line(m: &Module, run: &RunLine, dev: &Device) -> Result<Report, String> {
    let (_, args) = run_args(m, run)?;
    Ok(if run.program {
        let p = m.program(&run.target).ok_or("no program")?;
        if run.grid.is_some() || run.block.is_some() {
            // The interpreter rejects overrides on programs: an expected fault.
            return Ok(Report {
                what: format!("program @{}", p.name),
                device: dev.info().spec(),
                outcome: crosscheck::Outcome::Skipped("grid/block overrides apply to kernels only".into()),
            });
        }
        crosscheck::program(dev, m, p, &args)
    } else {
        let k = m.kernel(&run.target).ok_or("no kernel")?;
        crosscheck::kernel(dev, k, &args, &LaunchOptions { grid: run.grid, block: run.block })
    })
}

/// Cross-checks every run line of one `.qdm` source, adding to `tally` (a file that does not
/// parse or verify, or a run line that cannot be built, is a failure).
pub fn file(src: &str, path: &Path, dev: &Device, tally: &mut Tally) {
    let shown = path.display().to_string();
    let d = match directives::parse(src) {
        Ok(d) => d,
        Err(e) => return tally.fail(&shown, &format!("bad directives: {e}")),
    };
    if d.runs.is_empty() {
        return;
    }
    let m = match qd_mir::parse_module(src) {
        Ok(m) => m,
        Err(e) => return tally.fail(&shown, &e.render(src, &shown)),
    };
    if let Err(e) = qd_mir::verify::verify_module(&m) {
        return tally.fail(&shown, &format!("does not verify: {e}"));
    }
    for run in &d.runs {
        let at = format!("{shown}:{}", run.line);
        match run_line(&m, run, dev) {
            Ok(mut r) => {
                schedule_dependent(&mut r);
                if r.is_failure() {
                    eprintln!("FAIL {at}: {r}");
                }
                tally.add(&at, &r);
            }
            Err(e) => tally.fail(&at, &e),
        }
    }
}

/// Buffers that record the order threads ran in (the values atomics returned): the interpreter's
/// schedule is deterministic and documented, a GPU's is not, so their contents cannot match.
/// (kernel, buffer): `@atom %olds` (old counter values) and `@dims %order` (block arrival order),
/// both from the interpreter's unit tests.
const SCHEDULE_DEPENDENT: &[(&str, &str)] = &[("atom", "olds"), ("dims", "order")];

/// Turns a mismatch in a schedule-dependent buffer into a skip that says why.
fn schedule_dependent(r: &mut Report) {
    if let crosscheck::Outcome::Mismatch(m) = &r.outcome {
        let kernel = r.what.rsplit('@').next().unwrap_or_default();
        if SCHEDULE_DEPENDENT.iter().any(|&(k, b)| k == kernel && b == m.buffer) {
            r.outcome = crosscheck::Outcome::Skipped(format!(
                "%{} records the thread schedule (atomic return order), which the GPU does not fix",
                m.buffer
            ));
        }
    }
}

/// Cross-checks every run line of `files` on each device of `devices` (`(label, device)`), prints a
/// summary line per device (`LABEL WHAT: N matched, …`) and fails with every failure at the end
/// (a device with nothing matched fails too). The check of the simulator and native-cpu corpora.
pub fn files_on_devices(devices: &[(String, Device)], files: &[std::path::PathBuf], what: &str) {
    let mut failures = Vec::new();
    for (label, dev) in devices {
        let mut tally = Tally::default();
        for f in files {
            let src = std::fs::read_to_string(f).unwrap_or_default();
            file(&src, f, dev, &mut tally);
        }
        let label = format!("{label} {what}");
        println!("{}", tally.summary(&label));
        assert!(tally.matched > 0, "{label}: nothing matched");
        failures.extend(tally.failures.iter().map(|f| format!("{label}: {f}")));
    }
    assert!(failures.is_empty(), "{} cross-check failure(s):\n{}", failures.len(), failures.join("\n"));
}
