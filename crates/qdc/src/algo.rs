//! `qdc algo`: writes one of qd-lib's device-wide algorithms (reduce, exclusive scan, select,
//! reduce-by-key, radix sort) as a `.qdm` program for a capacity and a target, so that
//! `qdc run FILE.qdm --program NAME` runs it with `.npy` data in and out. Also used by
//! `qdc demo` to build its sort.
//!
//! The program's parameters get Quadrants' names (`arr`, `out`, `scratch`, `n`, `keys`,
//! `tmp_keys`, …); the live count `n` is a one-element `i32` buffer, and the program's own checks
//! hold the lengths every buffer needs for the capacity, which this command also prints.

use qd_frontend::{BuildError, ProgramArg, ProgramBuilder, ScalarType};
use qd_lib::algorithms::{self as alg, Capacity, DeviceClass, Elems, Options, Strategy, Target};
use qd_mir::Module;

/// The algorithms `qdc algo` knows, with their names on the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algo {
    /// `reduce-add`, `reduce-min`, `reduce-max`.
    Reduce(Combine),
    /// `exclusive-scan-add`, `exclusive-scan-min`, `exclusive-scan-max`.
    Scan(Combine),
    /// `select`.
    Select,
    /// `reduce-by-key-add`.
    ReduceByKey,
    /// `sort`.
    Sort,
}

/// The operator of a reduction or scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Sum.
    Add,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

impl Algo {
    /// Every algorithm name `qdc algo` takes.
    pub const NAMES: [&'static str; 9] = [
        "reduce-add",
        "reduce-min",
        "reduce-max",
        "exclusive-scan-add",
        "exclusive-scan-min",
        "exclusive-scan-max",
        "select",
        "reduce-by-key-add",
        "sort",
    ];

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Option<Algo> {
        Some(match s {
            "reduce-add" => Algo::Reduce(Combine::Add),
            "reduce-min" => Algo::Reduce(Combine::Min),
            "reduce-max" => Algo::Reduce(Combine::Max),
            "exclusive-scan-add" => Algo::Scan(Combine::Add),
            "exclusive-scan-min" => Algo::Scan(Combine::Min),
            "exclusive-scan-max" => Algo::Scan(Combine::Max),
            "select" => Algo::Select,
            "reduce-by-key-add" => Algo::ReduceByKey,
            "sort" => Algo::Sort,
            _ => return None,
        })
    }

    /// The program's name (an identifier).
    pub fn program_name(self) -> &'static str {
        match self {
            Algo::Reduce(Combine::Add) => "reduce_add",
            Algo::Reduce(Combine::Min) => "reduce_min",
            Algo::Reduce(Combine::Max) => "reduce_max",
            Algo::Scan(Combine::Add) => "exclusive_scan_add",
            Algo::Scan(Combine::Min) => "exclusive_scan_min",
            Algo::Scan(Combine::Max) => "exclusive_scan_max",
            Algo::Select => "select",
            Algo::ReduceByKey => "reduce_by_key_add",
            Algo::Sort => "sort",
        }
    }
}

/// What to build.
#[derive(Clone, Debug)]
pub struct AlgoSpec {
    /// The algorithm.
    pub algo: Algo,
    /// The element type (keys for sort and reduce-by-key).
    pub dtype: ScalarType,
    /// The value type of a key-value sort or of reduce-by-key (`None`: keys only / `dtype`).
    pub values: Option<ScalarType>,
    /// The capacity.
    pub cap: Capacity,
    /// Sort: the number of low key bits sorted (`None`: all).
    pub end_bit: Option<u32>,
    /// Target and strategy.
    pub opts: Options,
}

/// Builds the program of `spec` into a module (the program and its kernels).
pub fn build(spec: &AlgoSpec) -> Result<Module, BuildError> {
    let name = spec.algo.program_name();
    let mut pb = ProgramBuilder::new(name);
    let (o, c) = (&spec.opts, spec.cap);
    let t = spec.dtype;
    match spec.algo {
        Algo::Reduce(op) => {
            let (arr, out) = (pb.buffer("arr", t), pb.buffer("out", t));
            let scratch = pb.buffer("scratch", alg::scratch_type(t));
            let n = pb.buffer("n", ScalarType::I32);
            let f = match op {
                Combine::Add => alg::reduce_add,
                Combine::Min => alg::reduce_min,
                Combine::Max => alg::reduce_max,
            };
            f(&mut pb, o, arr, out, scratch, n, c)?;
        }
        Algo::Scan(op) => {
            let (arr, out) = (pb.buffer("arr", t), pb.buffer("out", t));
            let scratch = pb.buffer("scratch", alg::scratch_type(t));
            let n = pb.buffer("n", ScalarType::I32);
            let f = match op {
                Combine::Add => alg::exclusive_scan_add,
                Combine::Min => alg::exclusive_scan_min,
                Combine::Max => alg::exclusive_scan_max,
            };
            f(&mut pb, o, arr, out, scratch, n, c)?;
        }
        Algo::Select => {
            let arr = pb.buffer("arr", t);
            let flags = pb.buffer("flags", ScalarType::I32);
            let out = pb.buffer("out", t);
            let num_out = pb.buffer("num_out", ScalarType::I32);
            let scratch = pb.buffer("scratch", ScalarType::U32);
            let n = pb.buffer("n", ScalarType::I32);
            alg::select(&mut pb, o, &Elems::scalar(arr), flags, &Elems::scalar(out), num_out, scratch, n, c)?;
        }
        Algo::ReduceByKey => {
            let v = spec.values.unwrap_or(t);
            let keys_in = pb.buffer("keys_in", t);
            let values_in = pb.buffer("values_in", v);
            let keys_out = pb.buffer("keys_out", t);
            let values_out = pb.buffer("values_out", v);
            let num_runs = pb.buffer("num_runs", ScalarType::I32);
            let scratch = pb.buffer("scratch", ScalarType::U32);
            let n = pb.buffer("n", ScalarType::I32);
            alg::reduce_by_key_add(&mut pb, o, keys_in, values_in, keys_out, values_out, num_runs, scratch, n, c)?;
        }
        Algo::Sort => {
            let keys = pb.buffer("keys", t);
            let tmp_keys = pb.buffer("tmp_keys", t);
            let values: Option<(ProgramArg, ProgramArg)> =
                spec.values.map(|v| (pb.buffer("values", v), pb.buffer("tmp_values", v)));
            let scratch = pb.buffer("scratch", ScalarType::U32);
            let n = pb.buffer("n", ScalarType::I32);
            let end_bit = spec.end_bit.unwrap_or(t.bytes() * 8);
            alg::sort(&mut pb, o, keys, tmp_keys, values, scratch, n, end_bit, c)?;
        }
    }
    pb.finish()
}

/// The arguments of the program in `m` as `qdc run` flags: every buffer with its element type and
/// the length its checks ask for (at least 1).
pub fn arg_flags(m: &Module) -> Vec<String> {
    let Some(p) = m.programs.first() else { return Vec::new() };
    p.params
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let min = p.min_len(i).max(1);
            let elem = match q.ty {
                qd_mir::Type::Ptr(_, e) => e.to_string(),
                t => t.to_string(),
            };
            format!("--arg {}=zeros:{elem}:{min}", q.name)
        })
        .collect()
}

fn value<'a>(it: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a String, String> {
    it.next().ok_or_else(|| format!("qdc algo: {flag} needs a value"))
}

fn number(s: &str, flag: &str) -> Result<u64, String> {
    s.replace('_', "").parse::<u64>().map_err(|_| format!("qdc algo: {flag} wants a number, got '{s}'"))
}

fn dtype(s: &str) -> Result<ScalarType, String> {
    ScalarType::from_name(s).ok_or_else(|| format!("qdc algo: unknown type '{s}' (want i32 u32 f32 i64 u64 f64)"))
}

/// Runs `qdc algo ALGORITHM [options]`.
pub fn algo(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    let name = it.next().ok_or_else(|| format!("qdc algo: which algorithm? ({})", Algo::NAMES.join(", ")))?;
    let algo = Algo::parse(name)
        .ok_or_else(|| format!("qdc algo: unknown algorithm '{name}' (want one of {})", Algo::NAMES.join(", ")))?;
    let (mut t, mut values, mut max_n, mut log256, mut end_bit) = (ScalarType::U32, None, 1_000_000u64, None, None);
    let (mut width, mut fwd, mut strategy, mut out, mut device) = (32u32, false, Strategy::Auto, None, None);
    let mut class = DeviceClass::Gpu;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dtype" | "--keys" => t = dtype(value(&mut it, a)?)?,
            "--values" => values = Some(dtype(value(&mut it, a)?)?),
            "--max-n" => max_n = number(value(&mut it, a)?, a)?,
            "--log256" => log256 = Some(number(value(&mut it, a)?, a)? as u32),
            "--end-bit" => end_bit = Some(number(value(&mut it, a)?, a)? as u32),
            "--subgroup-size" => width = number(value(&mut it, a)?, a)? as u32,
            "--forward-progress" => fwd = true,
            "--cpu" => class = DeviceClass::Cpu,
            "--device" => device = Some(value(&mut it, a)?.clone()),
            "--strategy" => {
                strategy = match value(&mut it, a)?.as_str() {
                    "auto" => Strategy::Auto,
                    "multi-launch" => Strategy::MultiLaunch,
                    "single-pass" => Strategy::SinglePass,
                    "chunked" => Strategy::Chunked,
                    s => {
                        return Err(format!(
                            "qdc algo: --strategy wants auto|multi-launch|single-pass|chunked, got '{s}'"
                        ))
                    }
                }
            }
            "-o" => out = Some(value(&mut it, a)?.clone()),
            other => return Err(format!("qdc algo: unknown option {other}")),
        }
    }
    let target = match device {
        Some(spec) => {
            let d = qd_rt::Device::open(&spec).map_err(|e| format!("error: {e}"))?;
            Target {
                subgroup_width: d.info().subgroup_width,
                forward_progress: d.info().forward_progress,
                class: DeviceClass::of_host(d.info().is_host()),
            }
        }
        None => Target { subgroup_width: width, forward_progress: fwd, class },
    };
    let cap = match log256 {
        Some(d) => Capacity::with_log256(max_n, d),
        None => Capacity::new(max_n),
    }
    .map_err(|e| format!("error: {}", e.message))?;
    let spec = AlgoSpec { algo, dtype: t, values, cap, end_bit, opts: Options { target, strategy } };
    let m = build(&spec).map_err(|e| format!("error: {}", e.message))?;
    let text = qd_mir::text::print_module(&m);
    let file = out.clone().unwrap_or_else(|| format!("{}.qdm", algo.program_name()));
    match &out {
        Some(path) => std::fs::write(path, &text).map_err(|e| format!("qdc algo: cannot write {path}: {e}"))?,
        None => print!("{text}"),
    }
    eprintln!(
        "program @{} for n <= {} (log256_max_n {}), subgroup width {}; run it with\n  qdc run {file} --program {} {}",
        algo.program_name(),
        cap.max_n(),
        cap.log256(),
        target.subgroup_width,
        algo.program_name(),
        arg_flags(&m).join(" ")
    );
    Ok(())
}
