//! Runs one device-wide algorithm program on the native `cpu` device in a loop, for a profiler:
//! `cargo run --release -p qd-benches --example cpu_algo_profile -- reduce-add|exclusive-scan-add|sort [N] [RUNS] [WIDTH]`.

use qd_frontend::ScalarType;
use qd_lib::algorithms::{Capacity, DeviceClass, Options, Target};
use qd_mir::interp::Buffer;
use qd_mir::Type;
use qd_rt::{Device, DeviceArg};
use qdc::algo::{build, Algo, AlgoSpec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let algo = Algo::parse(args.get(1).map_or("reduce-add", String::as_str)).expect("an algorithm name");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1 << 22);
    let runs: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let w: u32 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(32);
    let dev = Device::cpu_with_width(w).expect("cpu");
    let target = Target { subgroup_width: w, forward_progress: true, class: DeviceClass::Gpu };
    let spec = AlgoSpec {
        algo,
        dtype: ScalarType::U32,
        values: None,
        cap: Capacity::new(n).expect("capacity"),
        end_bit: None,
        opts: Options::new(target),
    };
    let m = build(&spec).expect("builds");
    let p = &m.programs[0];
    let bufs: Vec<_> = p
        .params
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let Type::Ptr(_, elem) = q.ty else { panic!("buffers only") };
            let len = p.min_len(i).max(1) as usize;
            let host = if q.name == "n" {
                Buffer::from_bits(elem, [n])
            } else {
                Buffer::from_bits(elem, (0..len as u64).map(|x| x.wrapping_mul(2_654_435_761) & 0xffff_ffff))
            };
            dev.upload(&host).expect("upload")
        })
        .collect();
    let argv: Vec<DeviceArg<'_>> = bufs.iter().map(DeviceArg::Buffer).collect();
    dev.run_program_resident(&m, p, &argv).expect("first run");
    let t = std::time::Instant::now();
    for _ in 0..runs {
        dev.run_program_resident(&m, p, &argv).expect("run");
    }
    eprintln!("{} of {n}: {:.2} ms a run", p.name, t.elapsed().as_secs_f64() * 1e3 / f64::from(runs));
}
