//! The device-generic harness of the library suite: a case is a closure over a [`Device`],
//! written once; [`Suite::run`] runs every case on every device of the [`DeviceMatrix`] (cpu at
//! widths 8, 32 and 64; cuda with `QD_TEST_CUDA=1`; vulkan; the AMDGCN simulators with
//! `QD_TEST_DEVICES=sim-gfx942,…`; every device kind qd-rt adds later) and
//! prints the pass counts per device, the skipped devices with their reasons, and each failure.
//!
//! A case builds its kernel for the device's subgroup width (`build`), runs it (`run`), and
//! compares the buffers with a plain-Rust reference (`check`). Arguments after `--` filter cases
//! by substring, as libtest does (`cargo test -p qd-lib --test suite -- reduce_add`).

use crate::elem::Elem;
use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::Function;
use qd_rt::{Device, DeviceMatrix, LaunchOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a case returns: `Err` describes the mismatch.
pub type Outcome = Result<(), String>;

type Body = Box<dyn Fn(&Device) -> Outcome + Send + Sync>;

struct Case {
    name: String,
    body: Body,
}

/// The registered cases.
#[derive(Default)]
pub struct Suite {
    cases: Vec<Case>,
}

impl Suite {
    /// Registers a case; `name` is `family::op/dtype/detail`.
    pub fn case(&mut self, name: impl Into<String>, body: impl Fn(&Device) -> Outcome + Send + Sync + 'static) {
        self.cases.push(Case { name: name.into(), body: Box::new(body) });
    }

    /// Runs every case matching the command-line filters on every device of the matrix.
    pub fn run(self) -> ExitCode {
        let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
        let list_only = std::env::args().any(|a| a == "--list");
        let cases: Vec<&Case> =
            self.cases.iter().filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f))).collect();
        if list_only {
            for c in &cases {
                println!("{}: test", c.name);
            }
            return ExitCode::SUCCESS;
        }
        let matrix = DeviceMatrix::from_env();
        println!("qd-lib suite: {} case(s) × {} device(s)", cases.len(), matrix.devices.len());
        for s in &matrix.skipped {
            println!("  device {} skipped: {}", s.spec, s.reason);
        }
        let mut total_ok = 0usize;
        let mut total_bad = 0usize;
        for dev in &matrix.devices {
            let t0 = std::time::Instant::now();
            let failures = run_on(dev, &cases);
            let bad = failures.len();
            let ok = cases.len() - bad;
            total_ok += ok;
            total_bad += bad;
            let info = dev.info();
            println!(
                "  device {:<8} ({}, subgroup width {}): {ok} ok, {bad} failing, {:.1} s",
                info.spec(),
                info.name,
                info.subgroup_width,
                t0.elapsed().as_secs_f64()
            );
            for (name, why) in failures.iter().take(40) {
                println!("    FAIL [{}] {name}: {why}", info.spec());
            }
            if failures.len() > 40 {
                println!("    … and {} more failures on {}", failures.len() - 40, info.spec());
            }
        }
        let verdict = if total_bad == 0 { "ok" } else { "FAILED" };
        println!(
            "test result: {verdict}. {total_ok} passed; {total_bad} failed; 0 ignored; 0 measured; 0 filtered out"
        );
        if total_bad == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

/// Runs `cases` on `dev` on every core; returns the failures in case order.
fn run_on(dev: &Device, cases: &[&Case]) -> Vec<(String, String)> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let r = catch_unwind(AssertUnwindSafe(|| (case.body)(dev)))
                    .unwrap_or_else(|p| Err(format!("panicked: {}", panic_text(&p))));
                if let Err(why) = r {
                    failures.lock().unwrap_or_else(|e| e.into_inner()).push((i, case.name.clone(), why));
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    f.sort_by_key(|x| x.0);
    f.into_iter().map(|(_, n, w)| (n, w)).collect()
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// The subgroup width of `dev`.
pub fn width(dev: &Device) -> u32 {
    dev.info().subgroup_width
}

/// Builds a kernel for `dev`: its subgroup width, `block` threads, one block unless the body sets
/// another grid, then the body; a build error becomes a failure message.
pub fn build(
    dev: &Device,
    name: &str,
    block: u32,
    body: impl FnOnce(&mut KernelBuilder<'_>) -> Result<(), BuildError>,
) -> Result<Function, String> {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, name);
    let r = (|| {
        k.set_subgroup_size(width(dev))?;
        k.set_block_dim(block)?;
        body(&mut k)
    })();
    r.map_err(|e| format!("build: {e}"))?;
    let f = k.finish().map_err(|e| format!("build: {e}"))?;
    dump(dev, &f);
    Ok(f)
}

/// With `QD_LIB_DUMP=DIR`, writes every kernel the suite builds to `DIR/w{width}_{n}_{name}.qdm`
/// (to feed the kernels to other oracles, e.g. `qdc compile --target sm_80` and ptxas).
pub fn dump(dev: &Device, f: &Function) {
    static N: AtomicUsize = AtomicUsize::new(0);
    if let Some(dir) = std::env::var_os("QD_LIB_DUMP") {
        let n = N.fetch_add(1, Ordering::Relaxed);
        let path = std::path::Path::new(&dir).join(format!("w{}_{n}_{}.qdm", width(dev), f.name));
        if let Err(e) = std::fs::write(&path, qd_mir::text::print_function(f)) {
            eprintln!("QD_LIB_DUMP: cannot write {}: {e}", path.display());
        }
    }
}

/// Runs a kernel on `dev` (its own launch configuration).
pub fn run(dev: &Device, f: &Function, args: &mut [ArgValue]) -> Outcome {
    dev.run_kernel(f, args, &LaunchOptions::default()).map_err(|e| format!("run on {}: {e}", dev.info().spec()))
}

/// Runs a kernel like [`run`]; `Ok(false)` when the device refuses it before launch because it
/// needs more than one of the device's limits (e.g. lavapipe's 32 KiB of shared memory): the
/// error names the limit, and the case has nothing to compare.
pub fn run_or_limit(dev: &Device, f: &Function, args: &mut [ArgValue]) -> Result<bool, String> {
    match dev.run_kernel(f, args, &LaunchOptions::default()) {
        Ok(()) => Ok(true),
        Err(e) => match e.kind {
            qd_rt::RtErrorKind::Limit { name, needed, max } if needed > max && e.to_string().contains(name) => {
                Ok(false)
            }
            _ => Err(format!("run on {}: {e}", dev.info().spec())),
        },
    }
}

/// A buffer holding `xs`.
pub fn buf<T: Elem>(xs: &[T]) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(T::TY, xs.iter().map(|x| x.to_bits())))
}

/// A zeroed buffer of `n` elements of `T`.
pub fn zeros<T: Elem>(n: usize) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(T::TY, vec![0; n]))
}

/// The contents of a buffer argument.
pub fn read<T: Elem>(a: &ArgValue) -> Vec<T> {
    match a {
        ArgValue::Buffer(b) => b.to_bits().into_iter().map(T::from_bits).collect(),
        ArgValue::Scalar(_, v) => vec![T::from_bits(*v)],
    }
}

/// Compares `got` with `want` element by element (floats: same bits, any NaN matches any NaN);
/// the message lists the first mismatches with their index.
pub fn check<T: Elem>(what: &str, got: &[T], want: &[T]) -> Outcome {
    check_by(what, got, want, T::same)
}

/// Compares `got` with `want` element by element with `same` (e.g. a tolerance); the message
/// lists the first mismatches with their index.
pub fn check_by<T: Elem>(what: &str, got: &[T], want: &[T], same: impl Fn(T, T) -> bool) -> Outcome {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, want {}", got.len(), want.len()));
    }
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| !same(**g, **w))
        .take(4)
        .map(|(i, (g, w))| format!("[{i}] got {g:?} want {w:?}"))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", bad.join(", ")))
    }
}

/// Compares only the elements where `mask(i)` holds (results defined on some lanes only).
pub fn check_where<T: Elem>(what: &str, got: &[T], want: &[T], mask: impl Fn(usize) -> bool) -> Outcome {
    let g: Vec<T> = got.iter().enumerate().filter(|(i, _)| mask(*i)).map(|(_, x)| *x).collect();
    let w: Vec<T> = want.iter().enumerate().filter(|(i, _)| mask(*i)).map(|(_, x)| *x).collect();
    check(what, &g, &w)
}
