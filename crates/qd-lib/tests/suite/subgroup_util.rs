//! What the `subgroup_*` families share: the input patterns every collective is tested on (random,
//! specials sprinkled, specials dense, all-equal, all-equal special), a one-kernel launcher over
//! several blocks of several subgroups, and the tile checks.
//!
//! A launch is `BLOCKS` blocks of `BLOCK` threads: thread `g = block_id * BLOCK + thread_id` reads
//! element `g` of each input and writes element `g` of each output. With BLOCK = 256 every device
//! width (8 … 64) gives several subgroups per block and several blocks, so the references run on
//! the flat arrays (subgroups and tiles are aligned runs of lanes) and check every subgroup
//! independently.

use crate::elem::{mix, Elem};
use crate::harness::{build, run, width};
use qd_frontend::{BuildError, Dim, KernelBuilder, ScalarType, Val};
use qd_mir::interp::{ArgValue, Buffer};
use qd_rt::Device;

/// Threads per block.
pub const BLOCK: usize = 256;
/// Blocks per launch: one per input pattern.
pub const BLOCKS: usize = 5;
/// Threads per launch.
pub const N: usize = BLOCK * BLOCKS;

/// The input of a launch: block 0 random samples, block 1 samples with specials sprinkled
/// (1 in 4), block 2 specials only (cycling, so NaN/±0/±inf/INT_MIN/INT_MAX all meet), block 3
/// one value everywhere, block 4 one special everywhere (INT_MIN, or -0.0 for floats).
pub fn patterns<T: Elem>(seed: u64) -> Vec<T> {
    let sp = T::specials();
    let same = T::sample(seed ^ 0xABCD);
    let same_special = if T::is_int() { sp[3] } else { sp[2] };
    (0..N)
        .map(|i| {
            let r = mix(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
            match i / BLOCK {
                0 => T::sample(r),
                1 if r.is_multiple_of(4) => sp[(r >> 8) as usize % sp.len()],
                1 => T::sample(r),
                2 => sp[(i * 7 + (r as usize % 3)) % sp.len()],
                3 => same,
                _ => same_special,
            }
        })
        .collect()
}

/// A buffer of `xs`.
pub fn input<T: Elem>(xs: &[T]) -> (ScalarType, ArgValue) {
    (T::TY, ArgValue::Buffer(Buffer::from_bits(T::TY, xs.iter().map(|x| x.to_bits()))))
}

/// Builds and runs one kernel: `ins` are read at the thread's global index and handed to `body`
/// (with that index, u32), whose results are stored to outputs of types `outs`; returns the
/// output buffers' raw bits.
pub fn launch(
    dev: &Device,
    name: &str,
    ins: Vec<(ScalarType, ArgValue)>,
    outs: &[ScalarType],
    body: impl FnOnce(&mut KernelBuilder<'_>, &[Val], Val) -> Result<Vec<Val>, BuildError>,
) -> Result<Vec<Vec<u64>>, String> {
    let n_in = ins.len();
    let f = build(dev, name, BLOCK as u32, |k| {
        k.grid_fixed(BLOCKS as u32)?;
        let in_bufs: Vec<_> = ins.iter().enumerate().map(|(i, (ty, _))| k.buffer(&format!("in{i}"), *ty)).collect();
        let out_bufs: Vec<_> = outs.iter().enumerate().map(|(i, ty)| k.buffer(&format!("out{i}"), *ty)).collect();
        let t = k.thread_id(Dim::X)?;
        let blk = k.block_id(Dim::X)?;
        let bd = k.block_dim(Dim::X)?;
        let base = k.mul(blk, bd)?;
        let g = k.add(base, t)?;
        let mut xs = Vec::with_capacity(in_bufs.len());
        for b in &in_bufs {
            xs.push(k.load(*b, g)?);
        }
        let rs = body(k, &xs, g)?;
        if rs.len() != out_bufs.len() {
            return Err(BuildError::new(
                std::panic::Location::caller(),
                qd_frontend::ErrorKind::Config,
                format!("test body returned {} results for {} outputs", rs.len(), out_bufs.len()),
            ));
        }
        for (b, r) in out_bufs.iter().zip(rs) {
            k.store(*b, g, r)?;
        }
        Ok(())
    })?;
    let mut args: Vec<ArgValue> = ins.into_iter().map(|(_, a)| a).collect();
    args.extend(outs.iter().map(|ty| ArgValue::Buffer(Buffer::from_bits(*ty, vec![0; N]))));
    run(dev, &f, &mut args)?;
    Ok(args[n_in..]
        .iter()
        .map(|a| match a {
            ArgValue::Buffer(b) => b.to_bits(),
            ArgValue::Scalar(_, v) => vec![*v],
        })
        .collect())
}

/// Raw bits as `T`s.
pub fn typed<T: Elem>(bits: &[u64]) -> Vec<T> {
    bits.iter().map(|b| T::from_bits(*b)).collect()
}

/// log2 of the device's width.
pub fn log2_width(dev: &Device) -> u32 {
    width(dev).trailing_zeros()
}

/// For a tile wider than the device's subgroup: checks that building `op` with it fails with the
/// library's message, so every (op, tile) case tests something on every device.
pub fn expect_wide_tile_error<T>(dev: &Device, l: u32, r: Result<T, String>) -> Result<(), String> {
    match r {
        Ok(_) => Err(format!("log2_size {l} on a {}-lane device built and ran", width(dev))),
        Err(e) if e.contains(&format!("log2_size {l}")) && e.contains("wider than the subgroup") => Ok(()),
        Err(e) => Err(format!("log2_size {l}: unexpected error: {e}")),
    }
}

/// Tile sizes the cases run over: 0..=6, every size of every device (wider ones are errors).
pub const TILES: std::ops::RangeInclusive<u32> = 0..=6;
