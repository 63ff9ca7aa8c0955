//! Runnable example for `docs/tile.md`: a blocked, batched Cholesky factorisation with register
//! tiles (`qd_lib::tile`). Each subgroup factorises one SPD matrix of a batch in place, `N × N`
//! tiles at a time (`N` = 32 where the subgroup is at least 32 lanes wide, else 16):
//!
//! ```text
//! for each block column kb:
//!     D = A[kb, kb]; D.cholesky_(eps); A[kb, kb] = D          (potrf, on the diagonal tile)
//!     for ib > kb: B = A[ib, kb]; D.solve_triangular_(B); A[ib, kb] = B        (trsm below it)
//!     for kb < jb ≤ ib: T = A[ib, jb]; T -= Σ_c outer(A[ib, kb][:, c], A[jb, kb][:, c])
//!                                                             (the trailing rank-N update, N rank-1
//!                                                              updates with column vectors)
//! ```
//!
//! The block loops are run-time loops (one copy of each tile routine in the kernel, whatever
//! `n`); a last partial block is padded with the identity (`eye` then a clamped load). Every
//! factor is checked against a plain-Rust Cholesky in `f64`; the launch's wall time (upload, run,
//! download) gives the throughput in GFLOP/s (`n³/3` flops per matrix).
//!
//! `cargo run --release -p qd-lib --example cholesky [-- --device SPEC] [--f64]`
//!
//! The suite (`tests/suite/tile.rs`) runs [`run`] on every device of the matrix at small sizes;
//! the criterion bench `benches/benches/tile.rs` times it beside a plain-Rust loop.

use qd_frontend::{BuildError, Dim, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_lib::block;
use qd_lib::tile::{Matrix, TileNxN};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::Function;
use qd_rt::{Device, LaunchOptions};
use std::process::ExitCode;
use std::time::Instant;

/// The element types the example runs (`f32`, `f64`).
pub trait Float: Copy + Send + Sync + 'static {
    /// The MIR type.
    const TY: ScalarType;
    /// From an `f64` (rounded).
    fn of(x: f64) -> Self;
    /// As an `f64`.
    fn to_f64(self) -> f64;
    /// Raw bits, zero-extended.
    fn bits(self) -> u64;
    /// From raw bits.
    fn from_bits(b: u64) -> Self;
    /// The factor's accuracy goal relative to its largest entry, per unit of `n`.
    const TOL: f64;
}

impl Float for f32 {
    const TY: ScalarType = ScalarType::F32;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    const TOL: f64 = 4e-6;
}

impl Float for f64 {
    const TY: ScalarType = ScalarType::F64;
    fn of(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits(b: u64) -> Self {
        f64::from_bits(b)
    }
    const TOL: f64 = 1e-13;
}

/// The pivot floor every factorisation uses.
const EPS: f64 = 1e-12;

/// Builds the kernel: `grid = batch` blocks of one `width`-lane subgroup, block `b` factorising
/// `a[b]` (`n × n`, row-major) in place with `N × N` tiles.
pub fn build<const N: usize>(width: u32, ty: ScalarType, n: u32, batch: u32) -> Result<Function, BuildError> {
    let mut ctx = FunctionBuilderContext::new();
    let name = format!("cholesky_tile{N}_{ty}");
    let mut k = KernelBuilder::new(&mut ctx, &name);
    k.set_subgroup_size(width)?;
    k.set_block_dim(width)?;
    k.grid_fixed(batch)?;
    let a_buf = k.buffer("a", ty);
    let t = N as u32;
    let (nb_v, n_v, t_v) = (k.const_u32(batch)?, k.const_u32(n)?, k.const_u32(t)?);
    let a = Matrix::global(&mut k, a_buf, &[nb_v, n_v, n_v])?;
    let bi = k.block_id(Dim::X)?;
    let eps = if ty == ScalarType::F32 { k.const_f32(EPS as f32)? } else { k.const_f64(EPS)? };
    let blocks = n.div_ceil(t);
    let (zero, one, nblocks) = (k.const_u32(0)?, k.const_u32(1)?, k.const_u32(blocks)?);
    k.for_range(zero, nblocks, None, |k, kb| {
        let k0 = k.mul(kb, t_v)?;
        let k1 = k.add(k0, t_v)?;
        // potrf: the diagonal tile, identity-padded past n.
        let d = TileNxN::<N>::eye(k, ty)?;
        let diag = a.at_batch(k, bi, k0..k1, k0..k1)?;
        d.load(k, &diag)?;
        d.cholesky_(k, eps)?;
        d.store(k, &diag)?;
        // trsm: every tile below it.
        let below = k.add(kb, one)?;
        k.for_range(below, nblocks, None, |k, ib| {
            let i0 = k.mul(ib, t_v)?;
            let i1 = k.add(i0, t_v)?;
            let bt = TileNxN::<N>::zeros(k, ty)?;
            let r = a.at_batch(k, bi, i0..i1, k0..k1)?;
            bt.load(k, &r)?;
            d.solve_triangular_(k, &bt, true)?;
            bt.store(k, &r)
        })?;
        // The update reads rows of the panel other lanes wrote.
        block::sync(k)?;
        // The trailing update of the lower triangle: T(ib, jb) -= L(ib, kb) · L(jb, kb)ᵀ.
        k.for_range(below, nblocks, None, |k, jb| {
            let j0 = k.mul(jb, t_v)?;
            let j1 = k.add(j0, t_v)?;
            k.for_range(jb, nblocks, None, |k, ib| {
                let i0 = k.mul(ib, t_v)?;
                let i1 = k.add(i0, t_v)?;
                let tt = TileNxN::<N>::zeros(k, ty)?;
                let r = a.at_batch(k, bi, i0..i1, j0..j1)?;
                tt.load(k, &r)?;
                for c in 0..t {
                    let cc = k.const_u32(c)?;
                    let col = k.add(k0, cc)?;
                    let ac = a.column_batch(k, bi, i0..i1, col)?;
                    let av = TileNxN::<N>::load_column(k, &ac)?;
                    let bc = a.column_batch(k, bi, j0..j1, col)?;
                    let bv = TileNxN::<N>::load_column(k, &bc)?;
                    tt.sub_outer(k, av, bv)?;
                }
                tt.store(k, &r)
            })
        })?;
        // The next diagonal tile and panel read what this update wrote.
        block::sync(k)
    })?;
    k.finish()
}

/// A batch of SPD matrices `B·Bᵀ + n·I` (`B` with entries in [-1, 1]), row-major.
pub fn matrices<T: Float>(n: usize, batch: usize, seed: u64) -> Vec<T> {
    let mut x = seed;
    let mut next = move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut out = Vec::with_capacity(n * n * batch);
    for _ in 0..batch {
        let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
        for i in 0..n {
            for j in 0..n {
                let mut s: f64 = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum();
                if i == j {
                    s += n as f64;
                }
                out.push(T::of(s));
            }
        }
    }
    out
}

/// The plain-Rust reference: the lower Cholesky factor of `a` (`n × n`) in `f64`.
pub fn cholesky_f64(a: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let s: f64 = (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum();
        let d = (a[j * n + j] - s).max(EPS).sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = (a[i * n + j] - s) / d;
        }
    }
    l
}

/// What one run measured.
#[derive(Clone, Debug)]
pub struct Report {
    /// Matrix size.
    pub n: u32,
    /// Matrices factorised.
    pub batch: u32,
    /// Tile size used (16 or 32).
    pub tile: u32,
    /// Wall time of the warm launch (upload, run, download), ms.
    pub ms: f64,
    /// `batch · n³/3` flops over that time.
    pub gflops: f64,
    /// Largest `|L − L_ref|` over the lower triangles, relative to the largest entry of `L_ref`.
    pub max_rel_err: f64,
}

/// The tile size for `dev`: 32 where a subgroup holds 32 rows (the host devices run any width),
/// 16 where it holds 16 or `n ≤ 16`; `None` on a narrower device.
pub fn tile_for(dev: &Device, n: u32) -> Option<u32> {
    let info = dev.info();
    let w = if info.is_host() { 32 } else { info.subgroup_width };
    match w {
        _ if w >= 32 && n > 16 => Some(32),
        _ if w >= 16 => Some(16),
        _ => None,
    }
}

/// Factorises `batch` random `n × n` SPD matrices on `dev` (a cold launch that compiles, then a
/// warm one that is timed) and checks every factor against [`cholesky_f64`].
pub fn run<T: Float>(dev: &Device, n: u32, batch: u32) -> Result<Report, String> {
    let info = dev.info();
    let Some(tile) = tile_for(dev, n) else {
        return Err(format!(
            "{}: tiles need a subgroup of at least 16 lanes, this one has {}",
            info.spec(),
            info.subgroup_width
        ));
    };
    let width = if info.is_host() { tile } else { info.subgroup_width };
    let f = if tile == 32 { build::<32>(width, T::TY, n, batch) } else { build::<16>(width, T::TY, n, batch) }
        .map_err(|e| e.to_string())?;
    let (nn, nb) = (n as usize, batch as usize);
    let a: Vec<T> = matrices(nn, nb, 0x5eed ^ u64::from(n));
    let input = Buffer::from_bits(T::TY, a.iter().map(|x| x.bits()));
    let mut args = vec![ArgValue::Buffer(input.clone())];
    dev.run_kernel(&f, &mut args, &LaunchOptions::default()).map_err(|e| e.to_string())?;
    args = vec![ArgValue::Buffer(input)];
    let t0 = Instant::now();
    dev.run_kernel(&f, &mut args, &LaunchOptions::default()).map_err(|e| e.to_string())?;
    let secs = t0.elapsed().as_secs_f64();
    let got: Vec<T> = match &args[0] {
        ArgValue::Buffer(b) => b.to_bits().into_iter().map(T::from_bits).collect(),
        ArgValue::Scalar(..) => return Err("the matrix argument is not a buffer".into()),
    };
    let mut worst = 0.0f64;
    for m in 0..nb {
        let block = &a[m * nn * nn..(m + 1) * nn * nn];
        let want = cholesky_f64(&block.iter().map(|x| x.to_f64()).collect::<Vec<_>>(), nn);
        let scale = want.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        for i in 0..nn {
            for j in 0..=i {
                let g = got[m * nn * nn + i * nn + j].to_f64();
                let e = (g - want[i * nn + j]).abs() / scale;
                if e.is_nan() || e > T::TOL * nn as f64 {
                    return Err(format!(
                        "matrix {m}: L[{i}][{j}] = {g}, want {} (relative error {e:e})",
                        want[i * nn + j]
                    ));
                }
                worst = worst.max(e);
            }
        }
    }
    let flops = f64::from(batch) * f64::from(n).powi(3) / 3.0;
    Ok(Report { n, batch, tile, ms: secs * 1e3, gflops: flops / secs / 1e9, max_rel_err: worst })
}

/// The sizes the example runs, with their batch sizes.
pub const SIZES: [(u32, u32); 5] = [(16, 4096), (32, 4096), (40, 2048), (80, 512), (256, 32)];

#[allow(dead_code)] // also compiled into the suite and the bench, which call `run` only
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f64_mode = args.iter().any(|a| a == "--f64");
    let dev = match args.iter().position(|a| a == "--device").and_then(|i| args.get(i + 1)) {
        Some(spec) => match Device::open(spec) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: --device {spec}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => Device::best(),
    };
    let info = dev.info();
    println!("device: {} ({}, subgroup width {})", info.spec(), info.name, info.subgroup_width);
    println!("{:>5} {:>6} {:>5} {:>10} {:>9} {:>12}", "n", "batch", "tile", "ms", "GFLOP/s", "max rel err");
    for (n, batch) in SIZES {
        let r = if f64_mode { run::<f64>(&dev, n, batch) } else { run::<f32>(&dev, n, batch) };
        match r {
            Ok(r) => println!(
                "{:>5} {:>6} {:>5} {:>10.2} {:>9.2} {:>12.2e}",
                r.n, r.batch, r.tile, r.ms, r.gflops, r.max_rel_err
            ),
            Err(e) => {
                eprintln!("error: n = {n}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("ok: every factor matches the plain-Rust Cholesky");
    ExitCode::SUCCESS
}
