//! `qdc demo`: the README's first command. Builds a subgroup reduction with the Rust builder
//! (`qd-frontend`), verifies it, runs it on the best device present (`Device::best()`: CUDA when a
//! driver and GPU are there, else the `cpu` device, native code on every core; `--device SPEC` or
//! `--subgroup-size N` for `cpu:N` choose), checks every result against a plain-Rust reference,
//! and prints the sums and the time each step took. Then it sorts one million random `u32` keys on
//! the same device with `qd_lib::algorithms::sort` (one program, compiled once, replayable for
//! any live count up to its capacity), checks the result and prints the time (`--sort-n N`
//! changes the count, `--sort-n 0` skips the step).

use qd_frontend::{BuildError, Dim, FunctionBuilderContext, GroupOp, KernelBuilder, ScalarType, Tile};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::Function;
use qd_rt::{Device, LaunchOptions};
use std::time::Instant;

/// Elements reduced by the demo.
const N: u32 = 4096;
/// Threads per block.
const BLOCK: u32 = 256;

/// Builds `@subgroup_sum`: every thread loads one element, the subgroup adds its elements with
/// `subgroup.reduce add`, and lane 0 of each subgroup stores the sum at the subgroup's index.
pub fn build(ctx: &mut FunctionBuilderContext) -> Result<Function, BuildError> {
    let mut b = KernelBuilder::new(ctx, "subgroup_sum");
    let src = b.buffer("src", ScalarType::U32);
    let dst = b.buffer("dst", ScalarType::U32);
    let n = b.scalar("n", ScalarType::U32);
    b.set_block_dim(BLOCK)?;
    b.grid_cover(n)?;
    let tid = b.thread_id(Dim::X)?;
    let bid = b.block_id(Dim::X)?;
    let bdim = b.block_dim(Dim::X)?;
    let base = b.mul(bid, bdim)?;
    let i = b.add(base, tid)?;
    // Out-of-range threads contribute 0 but still take part in the reduction (uniform control flow).
    let in_range = b.lt(i, n)?;
    let zero = b.const_u32(0)?;
    let x = b.declare_var(qd_mir::Type::U32);
    b.def_var(x, zero)?;
    b.if_then(in_range, |b| {
        let v = b.load(src, i)?;
        b.def_var(x, v)
    })?;
    let v = b.use_var(x)?;
    let sum = b.subgroup_reduce(GroupOp::Add, Tile::Full, v)?;
    let lane = b.lane_id()?;
    let is_leader = b.eq(lane, zero)?;
    let size = b.subgroup_size()?;
    b.if_then(is_leader, |b| {
        let slot = b.div(i, size)?;
        b.store(dst, slot, sum)
    })?;
    b.finish()
}

/// The device the demo runs on: `--device SPEC` (default `best`), or `--subgroup-size N` for the
/// `cpu` device at width N.
fn device(args: &[String]) -> Result<(Device, u64), String> {
    let mut it = args.iter();
    let mut spec = "best".to_string();
    let mut sort_n = SORT_N;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sort-n" => {
                let v = it.next().ok_or("--sort-n needs a value")?;
                sort_n = v
                    .replace('_', "")
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n <= i32::MAX as u64)
                    .ok_or_else(|| format!("--sort-n wants a count up to {}, got '{v}'", i32::MAX))?;
            }
            "--subgroup-size" => {
                let v = it.next().ok_or("--subgroup-size needs a value")?;
                let size = v
                    .parse::<u32>()
                    .ok()
                    .filter(|s| s.is_power_of_two() && *s <= 64)
                    .ok_or_else(|| format!("--subgroup-size wants a power of two from 1 to 64, got '{v}'"))?;
                spec = format!("cpu:{size}");
            }
            "--device" => spec = it.next().ok_or("--device needs a value")?.clone(),
            other => return Err(format!("qdc demo: unknown option {other}")),
        }
    }
    Ok((Device::open(&spec).map_err(|e| format!("error: {e}"))?, sort_n))
}

/// Runs `qdc demo`.
pub fn demo(args: &[String]) -> Result<(), String> {
    let (dev, sort_n) = device(args)?;
    let width = dev.info().subgroup_width;
    let mut ctx = FunctionBuilderContext::new();
    let t0 = Instant::now();
    let kernel = build(&mut ctx).map_err(|e| format!("demo kernel failed to build: {e}"))?;
    let build_time = t0.elapsed();

    let input: Vec<u32> = (0..N).map(|i| (i * 7 + 3) % 1000).collect();
    let src = Buffer::from_bits(ScalarType::U32, input.iter().map(|&x| u64::from(x)));
    let groups = N / width;
    let dst = Buffer::from_bits(ScalarType::U32, (0..groups).map(|_| 0));
    let mut argv = vec![ArgValue::Buffer(src), ArgValue::Buffer(dst), ArgValue::Scalar(ScalarType::U32, u64::from(N))];
    let t1 = Instant::now();
    dev.run_kernel(&kernel, &mut argv, &LaunchOptions::default()).map_err(|e| format!("error: {e}"))?;
    let run_time = t1.elapsed();

    let ArgValue::Buffer(out) = &argv[1] else { return Err("internal error: dst is not a buffer".into()) };
    let got: Vec<u64> = out.to_bits();
    let want: Vec<u64> = input.chunks(width as usize).map(|c| c.iter().map(|&x| u64::from(x)).sum()).collect();
    println!("{}", qd_mir::text::print_function(&kernel));
    let info = dev.info();
    println!("device: {} — {} ({}), subgroup size {width}", info.spec(), info.name, info.detail);
    println!(
        "built + verified in {:.1} µs; compiled (GPU or native cpu), uploaded, ran and downloaded in {:.2} ms",
        build_time.as_secs_f64() * 1e6,
        run_time.as_secs_f64() * 1e3
    );
    let shown: Vec<String> = got.iter().take(8).map(u64::to_string).collect();
    println!("subgroup sums of {N} elements ({groups} subgroups): {} …", shown.join(" "));
    if got != want {
        let bad = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
        return Err(format!("MISMATCH at subgroup {bad}: got {:?}, want {:?}", got.get(bad), want.get(bad)));
    }
    println!("all {groups} sums match the plain-Rust reference");
    if sort_n > 0 {
        sort_demo(&dev, sort_n)?;
    }
    Ok(())
}

/// Keys sorted by the demo's second step.
const SORT_N: u64 = 1_000_000;

/// Sorts `n` random `u32` keys on `dev` with `qd_lib::algorithms::sort` and checks them against
/// `sort_unstable` (keys only: stability does not show). The program is built for capacity `n`
/// and run once to compile its kernels; the second run, with fresh keys written to the resident
/// buffers, is the one timed.
fn sort_demo(dev: &Device, n: u64) -> Result<(), String> {
    use qd_lib::algorithms::{sort_scratch_slots, Capacity, DeviceClass, Options, Target};
    let info = dev.info();
    let target = Target {
        subgroup_width: info.subgroup_width,
        forward_progress: info.forward_progress,
        class: DeviceClass::of_host(info.is_host()),
    };
    let cap = Capacity::new(n).map_err(|e| format!("error: {}", e.message))?;
    let spec = qdc::algo::AlgoSpec {
        algo: qdc::algo::Algo::Sort,
        dtype: ScalarType::U32,
        values: None,
        cap,
        end_bit: None,
        opts: Options::new(target),
    };
    let t0 = Instant::now();
    let m = qdc::algo::build(&spec).map_err(|e| format!("error: sort failed to build: {}", e.message))?;
    let build_time = t0.elapsed();
    let p = &m.programs[0];
    let len = n as usize;
    let slots = sort_scratch_slots(n, Some(cap.log256())).map_err(|e| e.message)? as usize;
    // SplitMix64 keys: the same on every run and device.
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    };
    let keys: Vec<u32> = (0..len).map(|_| next()).collect();
    let host = Buffer::from_bits(ScalarType::U32, keys.iter().map(|&k| u64::from(k)));
    let e = |e: qd_rt::RtError| format!("error: {e}");
    let d_keys = dev.upload(&host).map_err(e)?;
    let d_tmp = dev.alloc(ScalarType::U32, len).map_err(e)?;
    let d_scratch = dev.alloc(ScalarType::U32, slots).map_err(e)?;
    let d_n = dev.upload(&Buffer::from_bits(ScalarType::I32, [n])).map_err(e)?;
    let argv = [
        qd_rt::DeviceArg::Buffer(&d_keys),
        qd_rt::DeviceArg::Buffer(&d_tmp),
        qd_rt::DeviceArg::Buffer(&d_scratch),
        qd_rt::DeviceArg::Buffer(&d_n),
    ];
    // A GPU device and the native cpu device compile the kernels on the first run: run once
    // untimed, rewrite the keys, then time the second run. The interpreter compiles nothing, so
    // its one run is timed.
    let compiles = info.kind != qd_rt::DeviceKind::Interp;
    let mut first_run = None;
    if compiles {
        let t = Instant::now();
        dev.run_program_resident(&m, p, &argv).map_err(e)?;
        first_run = Some(t.elapsed());
        dev.write(&d_keys, &host).map_err(e)?;
    } else {
        println!("sort: {n} random u32 keys on {} (the interpreter: about 25 µs a key) …", info.spec());
    }
    let t2 = Instant::now();
    dev.run_program_resident(&m, p, &argv).map_err(e)?;
    let run = t2.elapsed();
    let got = dev.download(&d_keys).map_err(e)?.to_bits();
    let mut want = keys;
    want.sort_unstable();
    if got.iter().zip(&want).any(|(g, w)| *g != u64::from(*w)) || got.len() != want.len() {
        let bad = got.iter().zip(&want).position(|(g, w)| *g != u64::from(*w)).unwrap_or(0);
        return Err(format!("sort MISMATCH at {bad}: got {:?}, want {:?}", got.get(bad), want.get(bad)));
    }
    let launches = p.launches.len();
    println!(
        "sort: {n} random u32 keys on {} in {:.1} ms ({:.3} Mkeys/s; one program of {launches} launches, built in \
         {:.2} ms{}); sorted order matches the plain-Rust reference",
        info.spec(),
        run.as_secs_f64() * 1e3,
        n as f64 / run.as_secs_f64() / 1e6,
        build_time.as_secs_f64() * 1e3,
        match first_run {
            Some(t) => format!(
                ", timed on its second run; the first, compiling its kernels, took {:.1} ms",
                t.as_secs_f64() * 1e3
            ),
            None => String::new(),
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_runs_at_every_width() {
        for w in ["8", "32", "64"] {
            let args = ["--subgroup-size", w, "--sort-n", "3000"].map(String::from);
            demo(&args).expect("demo");
        }
        assert!(demo(&["--subgroup-size".to_string(), "48".to_string()]).is_err());
    }
}
