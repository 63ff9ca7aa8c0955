//! Runnable example for `docs/subgroup.md`: sums each 8-lane tile of a 1024-element array with
//! `qd_lib::subgroup::reduce_add_tiled` on `qd_rt::Device::best()` (the first CUDA GPU, else the
//! MIR interpreter), prints a few tile sums and checks every one against a host computation;
//! exits non-zero on a mismatch.
//!
//! `cargo run -p qd-lib --example warp_reduce`
//!
//! The suite (`tests/suite/subgroup_example.rs`) also runs [`run`] on every device of the matrix.

use qd_frontend::{BuildError, Dim, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_lib::subgroup;
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::Function;
use qd_rt::{Device, LaunchOptions};
use std::process::ExitCode;

/// Elements (a multiple of the block size).
const N: u32 = 1024;
/// Threads per block.
const BLOCK: u32 = 256;

/// The kernel: `out[i] = reduce_add_tiled(data[i], log2_tile)` — the sum of thread `i`'s tile,
/// defined at tile lane 0.
fn build(width: u32, log2_tile: u32) -> Result<Function, BuildError> {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "tile_sums");
    k.set_subgroup_size(width)?; // the device's width: the tile is checked against it
    k.set_block_dim(BLOCK)?;
    k.grid_fixed(N / BLOCK)?;
    let data = k.buffer("data", ScalarType::F32);
    let out = k.buffer("out", ScalarType::F32);
    let t = k.thread_id(Dim::X)?;
    let blk = k.block_id(Dim::X)?;
    let bd = k.block_dim(Dim::X)?;
    let base = k.mul(blk, bd)?;
    let i = k.add(base, t)?;
    let x = k.load(data, i)?;
    let s = subgroup::reduce_add_tiled(&mut k, x, log2_tile)?;
    k.store(out, i, s)?;
    k.finish()
}

/// Builds, runs and checks the kernel on `dev`; returns the tile size and the tile sums.
pub fn run(dev: &Device) -> Result<(u32, Vec<f32>), String> {
    let width = dev.info().subgroup_width;
    let log2_tile = width.trailing_zeros().min(3); // 8-lane tiles, or the whole subgroup if narrower
    let tile = 1usize << log2_tile;
    let f = build(width, log2_tile).map_err(|e| e.to_string())?;
    // Small integers in f32: every sum is exact, so the host check does not depend on the order.
    let xs: Vec<f32> = (0..N).map(|i| ((i * 37 + 11) % 101) as f32 - 50.0).collect();
    let mut args = vec![
        ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, xs.iter().map(|x| u64::from(x.to_bits())))),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, vec![0; N as usize])),
    ];
    dev.run_kernel(&f, &mut args, &LaunchOptions::default()).map_err(|e| e.to_string())?;
    let got: Vec<f32> = match &args[1] {
        ArgValue::Buffer(b) => b.to_bits().into_iter().map(|b| f32::from_bits(b as u32)).collect(),
        ArgValue::Scalar(..) => return Err("the output is not a buffer".into()),
    };
    let mut sums = Vec::new();
    for (t, chunk) in xs.chunks(tile).enumerate() {
        let want: f32 = chunk.iter().sum();
        let at = got[t * tile]; // the result is defined at tile lane 0
        if at.to_bits() != want.to_bits() {
            return Err(format!("tile {t}: got {at}, want {want}"));
        }
        sums.push(at);
    }
    Ok((tile as u32, sums))
}

#[allow(dead_code)] // also compiled into the suite, which calls `run` only
fn main() -> ExitCode {
    let dev = Device::best();
    let info = dev.info();
    println!("device: {} ({}, subgroup width {})", info.spec(), info.name, info.subgroup_width);
    match run(&dev) {
        Ok((tile, sums)) => {
            println!("{} tiles of {tile} lanes; first sums: {:?}", sums.len(), &sums[..sums.len().min(8)]);
            println!("ok: every tile sum matches the host");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("warp_reduce FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
