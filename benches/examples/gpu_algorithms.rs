//! qd's side of the GPU table beside CUB (`benches/cuda/cub_bench.cu` prints the other side in the
//! same format): every device-wide algorithm of qd-lib on one device — reduce-add, exclusive
//! scan-add, select, reduce-by-key-add (u32 keys), radix sort of keys and of key-value pairs (u32
//! values) — for the types u32, f32 and u64 at n = 2^e, each program the one `qdc algo` builds for
//! the device (`Strategy::Auto`), its buffers resident, timed with `Device::timed` (CUDA events on
//! the device's stream on `cuda`, the wall clock elsewhere): the median of `--reps` warm runs, the
//! input rewritten (untimed) before each run of the in-place sorts. Then one run's per-launch
//! times (`Device::run_program_phases`): which launch costs what.
//!
//! ```text
//! cargo run --release -p qd-benches --example gpu_algorithms -- \
//!     [--device cuda:0] [--exps 20,24,28] [--types u32,f32,u64] [--reps 10]
//! ```
//!
//! One tab-separated line per measurement:
//!
//! ```text
//! qd     ALGO TYPE N MEDIAN_MS INPUT_GB/s CLOCK LAUNCHES
//! phase  ALGO TYPE N INDEX KERNEL MS
//! error  ALGO TYPE N MESSAGE            (e.g. out of device memory at 2^28; the run goes on)
//! skip   ALGO TYPE N REASON             (reduce-by-key of u64 values, which qd-lib does not offer)
//! ```
//!
//! `INPUT_GB/s` is `n × sizeof(TYPE)` bytes per second (keys and values for the pairs sort), the
//! bytes every implementation must read once; `scripts/gpu-cuda-check.sh` runs this beside the
//! CUB binary and the copy bandwidth it measures.

use qd_benches::algo_inputs::buffers;
use qd_frontend::ScalarType;
use qd_lib::algorithms::{Capacity, DeviceClass, Options, Strategy, Target};
use qd_rt::{Device, DeviceArg};
use qdc::algo::{build, Algo, AlgoSpec, Combine};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

/// The algorithms: report name, algorithm, whether keys are u32 (reduce-by-key), pair values.
const ALGOS: [(&str, Algo, bool, Option<ScalarType>); 6] = [
    ("reduce_add", Algo::Reduce(Combine::Add), false, None),
    ("exclusive_scan_add", Algo::Scan(Combine::Add), false, None),
    ("select", Algo::Select, false, None),
    ("reduce_by_key_add", Algo::ReduceByKey, true, None),
    ("sort_keys", Algo::Sort, false, None),
    ("sort_pairs", Algo::Sort, false, Some(ScalarType::U32)),
];

struct Args {
    device: Option<String>,
    exps: Vec<u32>,
    types: Vec<ScalarType>,
    reps: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        device: None,
        exps: vec![20, 24, 28],
        types: vec![ScalarType::U32, ScalarType::F32, ScalarType::U64],
        reps: 10,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--device" => a.device = Some(value()?),
            "--exps" => {
                a.exps = value()?
                    .split(',')
                    .map(|e| e.trim().parse::<u32>().ok().filter(|&e| (1..=30).contains(&e)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("--exps takes exponents 1..=30, comma-separated")?
            }
            "--types" => {
                a.types = value()?
                    .split(',')
                    .map(|t| match t.trim() {
                        "u32" => Ok(ScalarType::U32),
                        "f32" => Ok(ScalarType::F32),
                        "u64" => Ok(ScalarType::U64),
                        other => Err(format!("--types: {other} is not one of u32, f32, u64")),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            "--reps" => a.reps = value()?.parse().ok().filter(|&r| r >= 1).ok_or("--reps takes a count ≥ 1")?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

/// Measures one (algorithm, type, n): the median time, the clock, the launch count and one run's
/// phases.
#[allow(clippy::type_complexity)]
fn measure(
    dev: &Device,
    spec: &AlgoSpec,
    n: u64,
    reps: usize,
    in_place: bool,
) -> Result<(Duration, qd_rt::Clock, usize, Vec<qd_rt::Phase>), String> {
    let m = build(spec).map_err(|e| e.to_string())?;
    let bufs = buffers(dev, &m, n)?;
    let argv: Vec<DeviceArg<'_>> = bufs.iter().map(|(_, d, _)| DeviceArg::Buffer(d)).collect();
    let p = &m.programs[0];
    let restore = || -> Result<(), String> {
        if in_place {
            // The sorts work in place on their keys and values; the scratch needs no reset.
            for (_, d, host) in bufs.iter().filter(|(name, _, _)| name == "keys" || name == "values") {
                dev.write(d, host).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    };
    dev.run_program_resident(&m, p, &argv).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(reps);
    let mut clock = qd_rt::Clock::WallClock;
    for _ in 0..reps {
        restore()?;
        let ((), t, c) = dev.timed(|d| d.run_program_resident(&m, p, &argv)).map_err(|e| e.to_string())?;
        times.push(t);
        clock = c;
    }
    times.sort();
    restore()?;
    let phases = dev.run_program_phases(&m, p, &argv).map_err(|e| e.to_string())?;
    Ok((times[times.len() / 2], clock, p.launches.len(), phases))
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let dev = match &args.device {
        Some(s) => match Device::open(s) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: --device {s}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => Device::best(),
    };
    let info = dev.info().clone();
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) ends the run quietly.
    macro_rules! emit {
        ($($t:tt)*) => {
            if writeln!(out, $($t)*).is_err() {
                return ExitCode::SUCCESS;
            }
        };
    }
    emit!("# device\t{}\t{}\t{}", info.spec(), info.name, info.detail);
    let target = Target {
        subgroup_width: info.subgroup_width,
        forward_progress: info.forward_progress,
        class: DeviceClass::of_host(info.is_host()),
    };
    let mut measured = 0;
    for &e in &args.exps {
        let n = 1u64 << e;
        let Ok(cap) = Capacity::new(n) else { continue };
        for &t in &args.types {
            for (name, algo, u32_keys, values) in ALGOS {
                let (dtype, values) = if u32_keys { (ScalarType::U32, Some(t)) } else { (t, values) };
                if u32_keys && t == ScalarType::U64 {
                    // Quadrants' reduce_by_key_add takes i32, u32 or f32 values.
                    emit!("skip\t{name}\t{t}\t{n}\treduce-by-key values are i32, u32 or f32");
                    continue;
                }
                let spec = AlgoSpec {
                    algo,
                    dtype,
                    values,
                    cap,
                    end_bit: None,
                    opts: Options { target, strategy: Strategy::Auto },
                };
                let in_place = matches!(algo, Algo::Sort);
                match measure(&dev, &spec, n, args.reps, in_place) {
                    Ok((median, clock, launches, phases)) => {
                        let elem =
                            u64::from(t.bytes()) + values.filter(|_| !u32_keys).map_or(0, |v| u64::from(v.bytes()));
                        let gbps = (n * elem) as f64 / median.as_secs_f64() / 1e9;
                        let ms = median.as_secs_f64() * 1e3;
                        emit!("qd\t{name}\t{t}\t{n}\t{ms:.4}\t{gbps:.2}\t{}\t{launches}", clock.name());
                        for ph in phases {
                            let pms = ph.elapsed.as_secs_f64() * 1e3;
                            emit!("phase\t{name}\t{t}\t{n}\t{}\t{}\t{pms:.4}", ph.index, ph.kernel);
                        }
                        measured += 1;
                    }
                    Err(msg) => emit!("error\t{name}\t{t}\t{n}\t{}", msg.replace(['\t', '\n'], " ")),
                }
            }
        }
    }
    if measured == 0 {
        eprintln!("error: nothing was measured");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
