//! Shared pieces of the device-wide algorithm families (`algo_*`): the options for a device, a
//! program runner (with `QD_LIB_DUMP` of every kernel), the inputs (random, sorted, reversed,
//! all-equal, few-distinct, special floats) and the plain-Rust references of reduce, scan,
//! select and reduce-by-key, written from Quadrants' definitions (restated in docs/algorithms.md §6).
//!
//! Float data is integer-valued and small (|x| ≤ 100) so every partial sum is exact: the float
//! add results are then independent of the summation order, and the references can be exact
//! whatever order a back end's subgroup reduction uses. NaN, ±0 and ±inf follow IEEE rules
//! that are order-free as well (a NaN or `inf + -inf` gives NaN; a sum is `-0` only when every
//! term, the identity padding included, is `-0`); the reduce reference reproduces Quadrants'
//! 256-element block tree and its identity padding, which decides those cases.

use crate::elem::{mix, Elem};
use qd_frontend::{BuildError, ProgramBuilder};
use qd_lib::algorithms::{DeviceClass, Options, Strategy, Target};
use qd_mir::interp::ArgValue;
use qd_mir::{GroupOp, Module, ProgramCheck};
use qd_rt::{Device, DeviceArg, RtError, RtErrorKind};
use std::collections::HashSet;
use std::sync::Mutex;

/// The options for `dev` with `strategy`.
pub fn opts(dev: &Device, strategy: Strategy) -> Options {
    let i = dev.info();
    Options {
        target: Target {
            subgroup_width: i.subgroup_width,
            forward_progress: i.forward_progress,
            class: DeviceClass::of_host(i.is_host()),
        },
        strategy,
    }
}

/// The strategies a case runs on `dev`: multi-launch always, single-pass where the device has
/// forward progress.
pub fn strategies(dev: &Device) -> Vec<Strategy> {
    if dev.info().forward_progress {
        vec![Strategy::MultiLaunch, Strategy::SinglePass]
    } else {
        vec![Strategy::MultiLaunch]
    }
}

/// Whether `dev` offers the chunked CPU forms (the host devices): cases add
/// [`Strategy::Chunked`] there for the dtypes it takes.
pub fn chunked_on(dev: &Device) -> bool {
    dev.info().is_host()
}

/// Builds a one-program module; a build error becomes a failure message.
pub fn build_prog(
    dev: &Device,
    name: &str,
    body: impl FnOnce(&mut ProgramBuilder) -> Result<(), BuildError>,
) -> Result<Module, String> {
    let mut pb = ProgramBuilder::new(name);
    body(&mut pb).map_err(|e| format!("build: {e}"))?;
    let m = pb.finish().map_err(|e| format!("build: {e}"))?;
    dump(dev, &m);
    Ok(m)
}

/// With `QD_LIB_DUMP=DIR`, writes each kernel of `m` once per width to `DIR/w{W}_{name}.qdm`.
fn dump(dev: &Device, m: &Module) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let Some(dir) = std::env::var_os("QD_LIB_DUMP") else { return };
    let w = dev.info().subgroup_width;
    for f in &m.kernels {
        let file = format!("w{w}_{}.qdm", f.name);
        let fresh = SEEN.lock().map(|mut g| g.get_or_insert_with(HashSet::new).insert(file.clone())).unwrap_or(false);
        if fresh {
            let path = std::path::Path::new(&dir).join(&file);
            if let Err(e) = std::fs::write(&path, qd_mir::text::print_function(f)) {
                eprintln!("QD_LIB_DUMP: cannot write {}: {e}", path.display());
            }
        }
    }
}

/// Runs the program of `m` on `dev`.
pub fn run_raw(dev: &Device, m: &Module, args: &mut [ArgValue]) -> Result<(), RtError> {
    match m.programs.first() {
        Some(p) => dev.run_program(m, p, args),
        None => panic!("module without a program"),
    }
}

/// Runs the program of `m` on `dev`; an error becomes a failure message.
pub fn run_prog(dev: &Device, m: &Module, args: &mut [ArgValue]) -> Result<(), String> {
    run_raw(dev, m, args).map_err(|e| format!("run on {}: {e}", dev.info().spec()))
}

/// Expects a `ProgramCheck` error naming `param`.
pub fn expect_check(r: Result<(), RtError>, param: &str) -> Result<(), String> {
    match r {
        Err(e) if matches!(&e.kind, RtErrorKind::ProgramCheck { param: p } if p == param) => Ok(()),
        Err(e) => Err(format!("expected a program check on %{param}, got: {e}")),
        Ok(()) => Err(format!("expected a program check on %{param}, the program ran")),
    }
}

/// Runs program `m` resident on `dev` over `args` uploaded, but with parameter `b` bound to the
/// very device buffer of parameter `a` (host arguments are always distinct buffers: aliasing
/// exists only among resident ones), and expects the `ProgramCheck` of `check distinct %a, %b`
/// naming `a`, made before any launch (`a`'s buffer unchanged).
pub fn expect_aliased(dev: &Device, m: &Module, args: &[ArgValue], a: &str, b: &str) -> Result<(), String> {
    let p = m.programs.first().ok_or("module without a program")?;
    let (ia, ib) = match (p.param_index(a), p.param_index(b)) {
        (Some(x), Some(y)) => (x, y),
        _ => return Err(format!("no parameters %{a} and %{b}")),
    };
    let mut bufs = Vec::with_capacity(args.len());
    for x in args {
        bufs.push(match x {
            ArgValue::Buffer(h) => Some(dev.upload(h).map_err(|e| format!("upload: {e}"))?),
            ArgValue::Scalar(..) => None,
        });
    }
    let mut argv = Vec::with_capacity(args.len());
    for (i, x) in args.iter().enumerate() {
        let j = if i == ib { ia } else { i };
        argv.push(match (&bufs[j], x) {
            (Some(d), _) => DeviceArg::Buffer(d),
            (None, ArgValue::Scalar(t, v)) => DeviceArg::Scalar(*t, *v),
            (None, ArgValue::Buffer(_)) => return Err("unreachable: a buffer without its upload".into()),
        });
    }
    match dev.run_program_resident(m, p, &argv) {
        Err(e)
            if matches!(&e.kind, RtErrorKind::ProgramCheck { param } if param == a)
                && e.to_string().contains(&format!("%{b}")) => {}
        Err(e) => return Err(format!("%{b} bound to %{a}: expected a program check naming %{a}, got: {e}")),
        Ok(()) => return Err(format!("%{b} bound to %{a}: the program ran")),
    }
    let (Some(d), ArgValue::Buffer(h)) = (&bufs[ia], &args[ia]) else {
        return Err(format!("%{a} is not a buffer"));
    };
    let after = dev.download(d).map_err(|e| format!("download: {e}"))?;
    if after.to_bits() != h.to_bits() {
        return Err(format!("%{b} bound to %{a}: %{a} was written"));
    }
    Ok(())
}

/// The largest `check len` minimum of parameter `param` of the program of `m`.
pub fn min_len(m: &Module, param: &str) -> Result<u64, String> {
    let p = m.programs.first().ok_or("module without a program")?;
    let i = p.param_index(param).ok_or_else(|| format!("no parameter %{param}"))?;
    p.checks
        .iter()
        .filter_map(|c| match c {
            ProgramCheck::MinLen { param, min, .. } if usize::from(*param) == i => Some(*min),
            _ => None,
        })
        .max()
        .ok_or_else(|| format!("no length check on %{param}"))
}

/// Expects a `ProgramStatus` error whose message names the live count.
pub fn expect_status(r: Result<(), RtError>) -> Result<(), String> {
    match r {
        Err(e)
            if matches!(e.kind, RtErrorKind::ProgramStatus { status } if status != 0)
                && e.to_string().contains("live count n") =>
        {
            Ok(())
        }
        Err(e) => Err(format!("expected a status error for the live count, got: {e}")),
        Ok(()) => Err("expected a status error for the live count, the program ran".into()),
    }
}

/// Expects a build error located at `line` whose message contains `what`.
pub fn expect_build_error(r: Result<(), BuildError>, line: u32, what: &str) -> Result<(), String> {
    match r {
        Err(e) if e.location.line() == line && e.message.contains(what) => Ok(()),
        Err(e) => Err(format!("expected a build error at line {line} containing {what:?}, got: {e}")),
        Ok(()) => Err(format!("expected a build error at line {line} containing {what:?}, it built")),
    }
}

/// The shapes of input data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Pseudo-random.
    Random,
    /// Ascending.
    Sorted,
    /// Descending.
    Reversed,
    /// One value.
    AllEqual,
    /// Four distinct values.
    FewDistinct,
    /// Random with the type's special values mixed in (floats: NaN, ±0, ±inf).
    Specials,
}

/// Every input shape.
pub const INPUTS: [Input; 6] =
    [Input::Random, Input::Sorted, Input::Reversed, Input::AllEqual, Input::FewDistinct, Input::Specials];

/// A value of `T` for the algorithm tests: integers anywhere in the type (sums wrap), floats
/// integer-valued in `-100..=100`.
pub fn value<T: Elem>(seed: u64) -> T {
    if T::is_int() {
        T::sample(seed)
    } else {
        let r = (mix(seed) % 201) as i64 - 100;
        T::from_bits(float_bits::<T>(r as f64))
    }
}

fn float_bits<T: Elem>(x: f64) -> u64 {
    if T::TY == qd_mir::ScalarType::F32 {
        u64::from((x as f32).to_bits())
    } else {
        x.to_bits()
    }
}

/// The special values used in `Input::Specials`: floats NaN (both signs), ±0, ±inf; integers
/// the extremes.
pub fn specials<T: Elem>() -> Vec<T> {
    if T::is_int() {
        T::specials()
    } else {
        [f64::NAN, -f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY]
            .iter()
            .map(|&x| T::from_bits(float_bits::<T>(x)))
            .collect()
    }
}

/// `n` values of shape `input`.
pub fn input<T: Elem>(input: Input, n: usize, seed: u64) -> Vec<T> {
    let mut xs: Vec<T> = (0..n as u64).map(|i| value::<T>(seed.wrapping_mul(1_000_003).wrapping_add(i))).collect();
    match input {
        Input::Random => {}
        Input::Sorted | Input::Reversed => {
            xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            if input == Input::Reversed {
                xs.reverse();
            }
        }
        Input::AllEqual => {
            let v = value::<T>(seed ^ 0x5eed);
            xs.iter_mut().for_each(|x| *x = v);
        }
        Input::FewDistinct => {
            let vs: Vec<T> = (0..4).map(|j| value::<T>(seed ^ (j * 77 + 1))).collect();
            for (i, x) in xs.iter_mut().enumerate() {
                *x = vs[(mix(seed ^ i as u64) % 4) as usize];
            }
        }
        Input::Specials => {
            let sp = specials::<T>();
            for (i, x) in xs.iter_mut().enumerate() {
                let r = mix(seed ^ (i as u64).wrapping_mul(31));
                if r.is_multiple_of(5) {
                    *x = sp[(r / 5 % sp.len() as u64) as usize];
                }
            }
        }
    }
    xs
}

/// `op` over `xs` starting from the identity.
fn fold<T: Elem>(op: GroupOp, xs: &[T]) -> T {
    xs.iter().fold(T::identity(op), |a, &b| T::combine(op, a, b))
}

/// One 256-element block of `_reduce_phase`: the block's values, plus the identity where the
/// block is not full (the padded lanes). Integer-valued floats make the order irrelevant.
fn block<T: Elem>(op: GroupOp, xs: &[T]) -> T {
    if xs.len() < 256 {
        fold(op, xs)
    } else {
        xs[1..].iter().fold(xs[0], |a, &b| T::combine(op, a, b))
    }
}

/// Quadrants' multi-launch reduce (§6.2) at depth `d`: `d - 1` levels of 256-element block
/// partials, then one block over the rest.
pub fn reduce_tree<T: Elem>(op: GroupOp, xs: &[T], d: u32) -> T {
    let mut level = xs.to_vec();
    for _ in 1..d {
        level = level.chunks(256).map(|c| block(op, c)).collect();
    }
    block(op, &level)
}

/// The exclusive scan `out[i] = identity op xs[0] op … op xs[i-1]`.
pub fn exclusive_ref<T: Elem>(op: GroupOp, xs: &[T]) -> Vec<T> {
    let mut acc = T::identity(op);
    xs.iter()
        .map(|&x| {
            let r = acc;
            acc = T::combine(op, acc, x);
            r
        })
        .collect()
}

/// The live counts and input shapes of a small case: every small live count with a rotating
/// shape (every shape appears; `salt` shifts the rotation per dtype/operator), plus the special
/// values at the largest; with `full`, every shape at every live count above 2.
pub fn small_runs(salt: usize, full: bool, max_n: usize) -> Vec<(usize, Input)> {
    let mut runs = Vec::new();
    for (k, &n) in SMALL_NS.iter().enumerate().filter(|(_, &n)| n <= max_n) {
        if full && n > 2 {
            runs.extend(INPUTS.iter().map(|&i| (n, i)));
        } else {
            runs.push((n, INPUTS[(k + salt) % INPUTS.len()]));
        }
    }
    if !full {
        runs.push((max_n, Input::Specials));
    }
    runs
}

/// Live counts of the suite: the small and boundary ones everywhere, the large ones (`big`).
pub const SMALL_NS: [usize; 6] = [0, 1, 2, 255, 256, 257];

/// `{prefix}:{T}` names the buffer dtypes in case names.
pub fn ty<T: Elem>() -> String {
    T::TY.to_string()
}
