//! `qdc demo`: the README's first command. Builds a subgroup reduction with the Rust builder
//! (`qd-frontend`), verifies it, runs it on the best device present (`Device::best()`: CUDA when a
//! driver and GPU are there, else the `cpu` device, the MIR interpreter; `--device SPEC` or
//! `--subgroup-size N` for `cpu:N` choose), checks every result against a plain-Rust reference,
//! and prints the sums and the time each step took.

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
fn device(args: &[String]) -> Result<Device, String> {
    let mut it = args.iter();
    let mut spec = "best".to_string();
    while let Some(a) = it.next() {
        match a.as_str() {
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
    Device::open(&spec).map_err(|e| format!("error: {e}"))
}

/// Runs `qdc demo`.
pub fn demo(args: &[String]) -> Result<(), String> {
    let dev = device(args)?;
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
        "built + verified in {:.1} µs; compiled (for a GPU), uploaded, ran and downloaded in {:.2} ms",
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_runs_at_every_width() {
        for w in ["8", "32", "64"] {
            demo(&["--subgroup-size".to_string(), w.to_string()]).expect("demo");
        }
        assert!(demo(&["--subgroup-size".to_string(), "48".to_string()]).is_err());
    }
}
