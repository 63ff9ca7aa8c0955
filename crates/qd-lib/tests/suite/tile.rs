//! Register tiles (`qd_lib::tile`): `Tile16x16` and `Tile32x32` of `f32` and `f64` on every
//! device of the matrix, against plain-Rust references written here — creation, loads and stores
//! with Quadrants' slice rules (partial tiles, clamped columns, 3-D batches, shared arrays, the
//! untouched-outside-the-region rule), rank-1 updates, Cholesky (uniform and per-lane `eps`,
//! near-singular inputs), triangular solves, both in one kernel, a tile passed to a helper, and
//! every `BuildError` path.
//!
//! The references follow the library's operation order (the same `fma` chains), so on devices
//! whose division and square root are correctly rounded the results are the same bits; the
//! comparison allows a few hundred ulps for the devices that are not required to round them
//! exactly (Vulkan allows 2.5 ulp for `OpFDiv`), and the factorisations are also checked by their
//! residual `‖L·Lᵀ − A‖`.
//!
//! Host devices (cpu, interp) run a kernel at the width it declares, so a tile kernel built for
//! `max(width, N)` runs there at every width of the matrix; a GPU-like device narrower than `N`
//! must refuse the tile with the library's `BuildError`, which the case checks instead.

use crate::elem::{mix, Elem};
use crate::harness::{buf, read, run, width, Outcome, Suite};
use qd_frontend::{BuildError, Dim, FunctionBuilderContext, KernelBuilder, ScalarType, Val};
use qd_lib::block::SharedArray;
use qd_lib::tile::{Matrix, TileNxN};
use qd_mir::interp::ArgValue;
use qd_mir::Function;
use qd_rt::Device;

/// The float types of a tile, with the arithmetic the references need.
pub trait Real: Elem {
    fn of(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn fma(self, y: Self, z: Self) -> Self;
    fn sqrt(self) -> Self;
    fn maxnum(self, y: Self) -> Self;
    fn add(self, y: Self) -> Self;
    fn sub(self, y: Self) -> Self;
    fn mul(self, y: Self) -> Self;
    fn div(self, y: Self) -> Self;
    fn neg(self) -> Self;
    const EPS: f64;
}

#[allow(trivial_numeric_casts)] // the f64 instance casts through its own type
macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            fn of(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn fma(self, y: Self, z: Self) -> Self {
                self.mul_add(y, z)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn maxnum(self, y: Self) -> Self {
                <$t>::max(self, y)
            }
            fn add(self, y: Self) -> Self {
                self + y
            }
            fn sub(self, y: Self) -> Self {
                self - y
            }
            fn mul(self, y: Self) -> Self {
                self * y
            }
            fn div(self, y: Self) -> Self {
                self / y
            }
            fn neg(self) -> Self {
                -self
            }
            const EPS: f64 = <$t>::EPSILON as f64;
        }
    };
}
#[allow(trivial_numeric_casts)]
mod real_impls {
    use super::*;
    real!(f32);
    real!(f64);
}

// ---- plain-Rust references (the library's operation order) ------------------------------------

/// `Σ x·y` in the library's two interleaved `fma` chains.
pub fn dot2<T: Real>(terms: impl IntoIterator<Item = (T, T)>) -> T {
    let mut acc: [Option<T>; 2] = [None, None];
    for (i, (x, y)) in terms.into_iter().enumerate() {
        let s = &mut acc[i % 2];
        *s = Some(match *s {
            None => x.mul(y),
            Some(a) => x.fma(y, a),
        });
    }
    match acc {
        [None, _] => T::of(0.0),
        [Some(a), None] => a,
        [Some(a), Some(c)] => a.add(c),
    }
}

/// `cholesky_` of the `n × n` row-major `a` in place; `eps[k]` floors pivot `k`.
pub fn cholesky_ref<T: Real>(a: &mut [T], n: usize, eps: &[T]) {
    let mut norm = vec![T::of(0.0); n];
    for k in 0..n {
        let pivot = a[k * n + k].sub(norm[k]).maxnum(eps[k]).sqrt();
        let row_k: Vec<T> = a[k * n..k * n + k].to_vec();
        for i in 0..n {
            if i == k {
                a[k * n + k] = pivot;
            } else if i > k {
                let dot = dot2((0..k).map(|j| (row_k[j], a[i * n + j])));
                let lik = a[i * n + k].sub(dot).div(pivot);
                a[i * n + k] = lik;
                norm[i] = lik.fma(lik, norm[i]);
            }
        }
    }
}

/// `L.solve_triangular_(B)`: `X · Lᵀ = B`, `X` in place of `b` (`n × n` row-major).
pub fn solve_ref<T: Real>(l: &[T], b: &mut [T], n: usize) {
    for i in 0..n {
        for c in 0..n {
            let dot = dot2((0..c).map(|j| (b[i * n + j], l[c * n + j])));
            b[i * n + c] = b[i * n + c].sub(dot).div(l[c * n + c]);
        }
    }
}

/// A random symmetric positive definite `n × n` matrix `B·Bᵀ + n·I` (or, with `rank < n`, the
/// singular `B·Bᵀ` of an `n × rank` `B`: its later pivots are rounding noise, so the floor decides).
pub fn spd<T: Real>(n: usize, rank: usize, seed: u64) -> Vec<T> {
    let bm: Vec<f64> = (0..n * rank).map(|i| (mix(seed ^ i as u64) % 2001) as f64 / 1000.0 - 1.0).collect();
    let mut a = vec![T::of(0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s: f64 = (0..rank).map(|k| bm[i * rank + k] * bm[j * rank + k]).sum();
            if i == j && rank == n {
                s += n as f64;
            }
            a[i * n + j] = T::of(s);
        }
    }
    a
}

/// Pseudo-random values in [-2, 2).
fn values<T: Real>(len: usize, seed: u64) -> Vec<T> {
    (0..len).map(|i| T::of((mix(seed.wrapping_mul(31) ^ i as u64) % 4096) as f64 / 1024.0 - 2.0)).collect()
}

/// Element-wise comparison within `ulps` ulps of the dtype, relative to `max(1, |want|)`.
fn close<T: Real>(what: &str, got: &[T], want: &[T], ulps: f64) -> Outcome {
    crate::harness::check_by(what, got, want, |g, w| {
        let (g, w) = (g.to_f64(), w.to_f64());
        g.to_bits() == w.to_bits() || (g - w).abs() <= ulps * T::EPS * w.abs().max(1.0)
    })
}

/// `max |(L·Lᵀ − A)_ij| / max |A_ij|` over the lower triangle of `l` (`n × n`).
fn residual<T: Real>(l: &[T], a: &[T], n: usize) -> f64 {
    let scale = a.iter().fold(0.0f64, |m, x| m.max(x.to_f64().abs()));
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..=j).map(|k| l[i * n + k].to_f64() * l[j * n + k].to_f64()).sum();
            worst = worst.max((s - a[i * n + j].to_f64()).abs());
        }
    }
    worst / scale
}

// ---- building and running ---------------------------------------------------------------------

/// The width a tile kernel of `n` rows is built for on `dev`: the device's, or at least `n` on
/// the host devices (which run a kernel at the width it declares).
fn tile_width(dev: &Device, n: usize) -> u32 {
    let w = width(dev);
    if dev.info().is_host() {
        w.max(n as u32)
    } else {
        w
    }
}

/// Builds a tile kernel (one subgroup per block, `grid` blocks). `Ok(None)` when the device is
/// narrower than `n` and the library refused the tile with its message, as it must.
fn kernel<T: Real>(
    dev: &Device,
    n: usize,
    name: &str,
    grid: u32,
    body: impl FnOnce(&mut KernelBuilder<'_>) -> Result<(), BuildError>,
) -> Result<Option<Function>, String> {
    let w = tile_width(dev, n);
    let mut ctx = FunctionBuilderContext::new();
    let name = format!("{name}_{n}x{n}_{}", T::TY);
    let mut k = KernelBuilder::new(&mut ctx, &name);
    let built = (|| {
        k.set_subgroup_size(w)?;
        k.set_block_dim(w)?;
        k.grid_fixed(grid)?;
        body(&mut k)
    })();
    match built {
        Err(e) if (w as usize) < n => {
            let want = format!("tile needs a subgroup of at least {n} lanes");
            if e.message.contains(&want) && e.location.file().ends_with("tile.rs") {
                Ok(None)
            } else {
                Err(format!("a {w}-lane device: unexpected error {e}"))
            }
        }
        Err(e) => Err(format!("build: {e}")),
        Ok(()) if (w as usize) < n => Err(format!("a {n}x{n} tile built for a {w}-lane subgroup")),
        Ok(()) => {
            let f = k.finish().map_err(|e| format!("build: {e}"))?;
            crate::harness::dump(dev, &f);
            Ok(Some(f))
        }
    }
}

/// A 2-D matrix over buffer `name` with constant shape.
fn matrix2(k: &mut KernelBuilder<'_>, name: &str, ty: ScalarType, rows: u32, cols: u32) -> Result<Matrix, BuildError> {
    let buf = k.buffer(name, ty);
    let (r, c) = (k.const_u32(rows)?, k.const_u32(cols)?);
    Matrix::global(k, buf, &[r, c])
}

fn full<T: Real>(k: &mut KernelBuilder<'_>, m: &Matrix, n: usize) -> Result<qd_lib::tile::Region, BuildError> {
    let _ = T::TY;
    let (z, e) = (k.const_u32(0)?, k.const_u32(n as u32)?);
    m.at(k, z..e, z..e)
}

fn eye_or_zero<T: Real>(i: usize, j: usize) -> T {
    T::of(if i == j { 1.0 } else { 0.0 })
}

// ---- cases ------------------------------------------------------------------------------------

/// `zeros`, `eye`, and `eye_` over a loaded tile.
fn create<const N: usize, T: Real>(dev: &Device) -> Outcome {
    let n = N;
    let src: Vec<T> = values(n * n, 7);
    let Some(f) = kernel::<T>(dev, n, "tile_create", 1, |k| {
        let a = matrix2(k, "a", T::TY, n as u32, n as u32)?;
        let z = matrix2(k, "z", T::TY, n as u32, n as u32)?;
        let e = matrix2(k, "e", T::TY, n as u32, n as u32)?;
        let e2 = matrix2(k, "e2", T::TY, n as u32, n as u32)?;
        let t = TileNxN::<N>::zeros(k, T::TY)?;
        let r = full::<T>(k, &z, n)?;
        t.store(k, &r)?;
        let i = TileNxN::<N>::eye(k, T::TY)?;
        let r = full::<T>(k, &e, n)?;
        i.store(k, &r)?;
        let r = full::<T>(k, &a, n)?;
        t.load(k, &r)?;
        t.eye_(k)?;
        let r = full::<T>(k, &e2, n)?;
        t.store(k, &r)
    })?
    else {
        return Ok(());
    };
    let sentinel = vec![T::of(9.0); n * n];
    let mut args = vec![buf(&src), buf(&sentinel), buf(&sentinel), buf(&sentinel)];
    run(dev, &f, &mut args)?;
    let eye: Vec<T> = (0..n * n).map(|x| eye_or_zero(x / n, x % n)).collect();
    crate::harness::check("zeros", &read::<T>(&args[1]), &vec![T::of(0.0); n * n])?;
    crate::harness::check("eye", &read::<T>(&args[2]), &eye)?;
    crate::harness::check("eye_", &read::<T>(&args[3]), &eye)
}

/// One load/store geometry: the array's shape and the slice, all relative to the offset `o`.
#[derive(Clone, Copy, Debug)]
struct Geo {
    rows: usize,
    cols: usize,
    r: (usize, usize),
    c: (usize, usize),
}

fn geometries(n: usize, o: usize) -> [Geo; 3] {
    [
        // a whole tile inside the array
        Geo { rows: o + n + 1, cols: o + n + 2, r: (o, o + n), c: (o, o + n) },
        // a partial row range, a column range wider than the tile (clamped to n columns)
        Geo { rows: o + n + 1, cols: o + n + 2, r: (o, o + n - 3), c: (o + 1, o + n + 3) },
        // the array ends inside the tile (rows and columns clamped by the shape)
        Geo { rows: o + n - 5, cols: o + n - 2, r: (o, o + n), c: (o, o + n) },
    ]
}

/// `t = eye; t[:] = src[r0:r1, c0:c1]; dump[0:N, 0:N] = t; dst[r0:r1, c0:c1] = t` — with the
/// bounds as constants or as kernel parameters (the folded and the run-time forms).
fn load_store<const N: usize, T: Real>(dev: &Device, o: usize, g: Geo, dynamic: bool) -> Outcome {
    let n = N;
    let Some(f) = kernel::<T>(dev, n, "tile_load_store", 1, |k| {
        let src_b = k.buffer("src", T::TY);
        let dst_b = k.buffer("dst", T::TY);
        let dump = matrix2(k, "dump", T::TY, n as u32, n as u32)?;
        let bounds: Vec<Val> = if dynamic {
            ["rows", "cols", "r0", "r1", "c0", "c1"].iter().map(|p| k.scalar(p, ScalarType::U32)).collect()
        } else {
            [g.rows, g.cols, g.r.0, g.r.1, g.c.0, g.c.1]
                .iter()
                .map(|&x| k.const_u32(x as u32))
                .collect::<Result<_, _>>()?
        };
        let (shape, r0, r1, c0, c1) = (&bounds[..2], bounds[2], bounds[3], bounds[4], bounds[5]);
        let src = Matrix::global(k, src_b, shape)?;
        let dst = Matrix::global(k, dst_b, shape)?;
        let t = TileNxN::<N>::eye(k, T::TY)?;
        let r = src.at(k, r0..r1, c0..c1)?;
        t.load(k, &r)?;
        let r = full::<T>(k, &dump, n)?;
        t.store(k, &r)?;
        let r = dst.at(k, r0..r1, c0..c1)?;
        t.store(k, &r)
    })?
    else {
        return Ok(());
    };
    let src: Vec<T> = values(g.rows * g.cols, 11 + o as u64);
    let sentinel = T::of(-7.5);
    let mut args = vec![buf(&src), buf(&vec![sentinel; g.rows * g.cols]), buf(&vec![T::of(0.0); n * n])];
    if dynamic {
        for x in [g.rows, g.cols, g.r.0, g.r.1, g.c.0, g.c.1] {
            args.push(ArgValue::Scalar(ScalarType::U32, x as u64));
        }
    }
    run(dev, &f, &mut args)?;
    let row_end = g.r.1.min(g.rows);
    let ncols = g.c.1.min(g.cols).saturating_sub(g.c.0).min(n);
    let in_tile = |i: usize, j: usize| g.r.0 + i < row_end && j < ncols;
    let dump: Vec<T> = (0..n * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            if in_tile(i, j) {
                src[(g.r.0 + i) * g.cols + g.c.0 + j]
            } else {
                eye_or_zero(i, j)
            }
        })
        .collect();
    let dst: Vec<T> = (0..g.rows * g.cols)
        .map(|x| {
            let (r, c) = (x / g.cols, x % g.cols);
            let inside = r >= g.r.0 && c >= g.c.0 && in_tile(r - g.r.0, c - g.c.0);
            if inside {
                src[x]
            } else {
                sentinel
            }
        })
        .collect();
    crate::harness::check("the loaded tile (untouched registers keep the identity)", &read::<T>(&args[2]), &dump)?;
    crate::harness::check("dst (untouched outside the region)", &read::<T>(&args[1]), &dst)
}

/// 3-D arrays: block `b` loads `src[b, r0:r1, c0:c1]` and the column `src[b, r0:r1, 2]`, applies
/// the rank-1 update with that column, and stores to `dst[b, r0:r1, c0:c1]`.
fn batched<const N: usize, T: Real>(dev: &Device) -> Outcome {
    let n = N;
    let (nb, rows, cols) = (3usize, n + 2, n + 1);
    let (r, c) = ((1usize, n + 1), (0usize, n - 2));
    let Some(f) = kernel::<T>(dev, n, "tile_batched", nb as u32, |k| {
        let src_b = k.buffer("src", T::TY);
        let dst_b = k.buffer("dst", T::TY);
        let shape = [k.const_u32(nb as u32)?, k.scalar("rows", ScalarType::U32), k.const_u32(cols as u32)?];
        let src = Matrix::global(k, src_b, &shape)?;
        let dst = Matrix::global(k, dst_b, &shape)?;
        let bi = k.block_id(Dim::X)?;
        let (r0, r1, c0, c1, two) = (
            k.const_i32(r.0 as i32)?,
            k.const_i32(r.1 as i32)?,
            k.const_u32(c.0 as u32)?,
            k.const_u32(c.1 as u32)?,
            k.const_u32(2)?,
        );
        let t = TileNxN::<N>::zeros(k, T::TY)?;
        let reg = src.at_batch(k, bi, r0..r1, c0..c1)?;
        t.load(k, &reg)?;
        let col = src.column_batch(k, bi, r0..r1, two)?;
        let v = TileNxN::<N>::load_column(k, &col)?;
        t.sub_outer(k, v, v)?;
        let reg = dst.at_batch(k, bi, r0..r1, c0..c1)?;
        t.store(k, &reg)
    })?
    else {
        return Ok(());
    };
    let total = nb * rows * cols;
    let src: Vec<T> = values(total, 23);
    let sentinel = T::of(3.25);
    let mut args = vec![buf(&src), buf(&vec![sentinel; total]), ArgValue::Scalar(ScalarType::U32, rows as u64)];
    run(dev, &f, &mut args)?;
    let mut want = vec![sentinel; total];
    let ncols = c.1 - c.0;
    for b in 0..nb {
        let at = |rr: usize, cc: usize| src[(b * rows + rr) * cols + cc];
        let v: Vec<T> = (0..n).map(|i| if r.0 + i < r.1.min(rows) { at(r.0 + i, 2) } else { T::of(0.0) }).collect();
        for i in 0..n {
            let row = r.0 + i;
            if row >= r.1.min(rows) {
                continue;
            }
            for j in 0..ncols {
                want[(b * rows + row) * cols + c.0 + j] = v[i].neg().fma(v[j], at(row, c.0 + j));
            }
        }
    }
    close("dst", &read::<T>(&args[1]), &want, 0.0)
}

/// Shared arrays: a tile stored to a 2-D shared array narrower than the tile (columns clamped),
/// read back into a fresh tile (the clamped columns stay zero) and stored to global memory;
/// a 3-D shared array round trip; a column loaded from shared memory.
fn shared<const N: usize, T: Real>(dev: &Device) -> Outcome {
    let n = N;
    let narrow = n as u32 - 3;
    let Some(f) = kernel::<T>(dev, n, "tile_shared", 1, |k| {
        let a = matrix2(k, "a", T::TY, n as u32, n as u32)?;
        let out = matrix2(k, "out", T::TY, n as u32, n as u32)?;
        let out3 = matrix2(k, "out3", T::TY, n as u32, n as u32)?;
        let col_out = k.buffer("col", T::TY);
        let sh = SharedArray::new(k, "sh", T::TY, &[n as u32 + 1, narrow])?;
        let sh3 = SharedArray::new(k, "sh3", T::TY, &[2, n as u32, n as u32])?;
        let shm = Matrix::shared(k, &sh)?;
        let sh3m = Matrix::shared(k, &sh3)?;
        let t = TileNxN::<N>::zeros(k, T::TY)?;
        let r = full::<T>(k, &a, n)?;
        t.load(k, &r)?;
        let r = full::<T>(k, &shm, n)?;
        t.store(k, &r)?;
        let one = k.const_u32(1)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(n as u32)?);
        let r3 = sh3m.at_batch(k, one, z..e, z..e)?;
        t.store(k, &r3)?;
        qd_lib::block::sync(k)?;
        let t2 = TileNxN::<N>::zeros(k, T::TY)?;
        t2.load(k, &r)?;
        let r = full::<T>(k, &out, n)?;
        t2.store(k, &r)?;
        let t3 = TileNxN::<N>::zeros(k, T::TY)?;
        t3.load(k, &r3)?;
        let r = full::<T>(k, &out3, n)?;
        t3.store(k, &r)?;
        let c = k.const_u32(1)?;
        let col = shm.column(k, z..e, c)?;
        let v = TileNxN::<N>::load_column(k, &col)?;
        let lane = k.lane_id()?;
        let lim = k.const_u32(n as u32)?;
        let mine = k.lt(lane, lim)?;
        k.if_then(mine, |k| k.store(col_out, lane, v))
    })?
    else {
        return Ok(());
    };
    let a: Vec<T> = values(n * n, 31);
    let mut args =
        vec![buf(&a), buf(&vec![T::of(5.0); n * n]), buf(&vec![T::of(5.0); n * n]), buf(&vec![T::of(5.0); n])];
    run(dev, &f, &mut args)?;
    let clamped: Vec<T> = (0..n * n).map(|x| if x % n < narrow as usize { a[x] } else { T::of(0.0) }).collect();
    crate::harness::check("via the narrow shared array", &read::<T>(&args[1]), &clamped)?;
    crate::harness::check("via the 3-D shared array", &read::<T>(&args[2]), &a)?;
    let col: Vec<T> = (0..n).map(|i| a[i * n + 1]).collect();
    crate::harness::check("the shared column", &read::<T>(&args[3]), &col)
}

/// `t -= outer(a, b)` with columns of partial ranges (`a`: rows 0..N−2, so its last two lanes
/// are 0; `b`: rows 1..N+1 of an array of N rows, so its last lane is 0), and a column past the
/// array (all 0: `t` unchanged by that update).
fn outer<const N: usize, T: Real>(dev: &Device) -> Outcome {
    let n = N;
    let Some(f) = kernel::<T>(dev, n, "tile_outer", 1, |k| {
        let c = matrix2(k, "c", T::TY, n as u32, n as u32)?;
        let a = matrix2(k, "a", T::TY, n as u32, 4)?;
        let out = matrix2(k, "out", T::TY, n as u32, n as u32)?;
        let t = TileNxN::<N>::zeros(k, T::TY)?;
        let r = full::<T>(k, &c, n)?;
        t.load(k, &r)?;
        let (z, one, nm2, n1) =
            (k.const_u32(0)?, k.const_u32(1)?, k.const_u32(n as u32 - 2)?, k.const_u32(n as u32 + 1)?);
        let three = k.const_u32(3)?;
        let ca = a.column(k, z..nm2, three)?;
        let av = TileNxN::<N>::load_column(k, &ca)?;
        let cb = a.column(k, one..n1, z)?;
        let bv = TileNxN::<N>::load_column(k, &cb)?;
        t.sub_outer(k, av, bv)?;
        let past = k.const_u32(4)?;
        let cp = a.column(k, z..n1, past)?;
        let pv = TileNxN::<N>::load_column(k, &cp)?;
        t.sub_outer(k, pv, pv)?;
        let r = full::<T>(k, &out, n)?;
        t.store(k, &r)
    })?
    else {
        return Ok(());
    };
    let cm: Vec<T> = values(n * n, 41);
    let am: Vec<T> = values(n * 4, 43);
    let mut args = vec![buf(&cm), buf(&am), buf(&vec![T::of(0.0); n * n])];
    run(dev, &f, &mut args)?;
    let av: Vec<T> = (0..n).map(|i| if i < n - 2 { am[i * 4 + 3] } else { T::of(0.0) }).collect();
    let bv: Vec<T> = (0..n).map(|i| if i + 1 < n { am[(i + 1) * 4] } else { T::of(0.0) }).collect();
    let want: Vec<T> = (0..n * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            av[i].neg().fma(bv[j], cm[x])
        })
        .collect();
    close("t - outer(a, b)", &read::<T>(&args[2]), &want, 0.0)
}

/// What a factorisation case feeds the tile.
#[derive(Clone, Copy, Debug)]
enum Chol {
    /// A well-conditioned SPD matrix, one `eps` for all lanes.
    Spd,
    /// The same with a per-lane `eps` (relative to each row's diagonal).
    PerLane,
    /// A singular `B·Bᵀ` (rank N/2): the later pivots hit the floor.
    NearSingular,
}

/// `t = A; t.cholesky_(eps); out = t` against the reference, plus the residual `L·Lᵀ ≈ A` for
/// the SPD inputs and the untouched strict upper triangle.
fn cholesky<const N: usize, T: Real>(dev: &Device, kind: Chol) -> Outcome {
    let n = N;
    let per_lane = matches!(kind, Chol::PerLane);
    let Some(f) = kernel::<T>(dev, n, "tile_cholesky", 1, |k| {
        let a = matrix2(k, "a", T::TY, n as u32, n as u32)?;
        let eps_b = k.buffer("eps", T::TY);
        let out = matrix2(k, "out", T::TY, n as u32, n as u32)?;
        let t = TileNxN::<N>::zeros(k, T::TY)?;
        let r = full::<T>(k, &a, n)?;
        t.load(k, &r)?;
        let eps = if per_lane {
            let lane = k.lane_id()?;
            let last = k.const_u32(n as u32 - 1)?;
            let i = k.min(lane, last)?;
            k.load(eps_b, i)?
        } else {
            let z = k.const_u32(0)?;
            k.load(eps_b, z)?
        };
        t.cholesky_(k, eps)?;
        let r = full::<T>(k, &out, n)?;
        t.store(k, &r)
    })?
    else {
        return Ok(());
    };
    let rank = if matches!(kind, Chol::NearSingular) { n / 2 } else { n };
    let a: Vec<T> = spd(n, rank, 53 + n as u64);
    let eps: Vec<T> = match kind {
        Chol::Spd => vec![T::of(1e-6); n],
        Chol::PerLane => (0..n).map(|i| a[i * n + i].mul(T::of(1e-3 * (1 + i % 3) as f64))).collect(),
        Chol::NearSingular => vec![T::of(1e-2); n],
    };
    let mut args = vec![buf(&a), buf(&eps), buf(&vec![T::of(0.0); n * n])];
    run(dev, &f, &mut args)?;
    let got = read::<T>(&args[2]);
    let mut want = a.clone();
    cholesky_ref(&mut want, n, &eps);
    close("L", &got, &want, 256.0)?;
    let upper_ok = (0..n * n).filter(|x| x % n > x / n).all(|x| got[x].to_bits() == a[x].to_bits());
    if !upper_ok {
        return Err("the strict upper triangle changed".into());
    }
    if matches!(kind, Chol::NearSingular) {
        // the floor: every pivot is at least sqrt(eps)
        let floor = eps[0].sqrt().to_f64() * (1.0 - 1e-6);
        if let Some(k) = (0..n).find(|&k| got[k * n + k].to_f64() < floor) {
            return Err(format!("pivot {k} = {:?} is below sqrt(eps)", got[k * n + k]));
        }
        return Ok(());
    }
    let res = residual(&got, &a, n);
    if res > 64.0 * n as f64 * T::EPS {
        return Err(format!("‖L·Lᵀ − A‖/‖A‖ = {res:e}"));
    }
    Ok(())
}

/// `L.solve_triangular_(B)` with `L` from the reference factorisation (its upper triangle left
/// holding `A`, which the solve must not read), and Cholesky then solve in one kernel.
fn solve<const N: usize, T: Real>(dev: &Device, fused: bool) -> Outcome {
    let n = N;
    let Some(f) = kernel::<T>(dev, n, "tile_solve", 1, |k| {
        let l = matrix2(k, "l", T::TY, n as u32, n as u32)?;
        let bm = matrix2(k, "b", T::TY, n as u32, n as u32)?;
        let lt = TileNxN::<N>::zeros(k, T::TY)?;
        let r = full::<T>(k, &l, n)?;
        lt.load(k, &r)?;
        if fused {
            let eps = if T::TY == ScalarType::F32 { k.const_f32(1e-6)? } else { k.const_f64(1e-6)? };
            lt.cholesky_(k, eps)?;
        }
        let bt = TileNxN::<N>::zeros(k, T::TY)?;
        let rb = full::<T>(k, &bm, n)?;
        bt.load(k, &rb)?;
        lt.solve_triangular_(k, &bt, true)?;
        bt.store(k, &rb)
    })?
    else {
        return Ok(());
    };
    let a: Vec<T> = spd(n, n, 61 + n as u64);
    let mut l = a.clone();
    cholesky_ref(&mut l, n, &vec![T::of(1e-6); n]);
    let b: Vec<T> = values(n * n, 67);
    let mut args = vec![buf(if fused { &a } else { &l }), buf(&b)];
    run(dev, &f, &mut args)?;
    let got = read::<T>(&args[1]);
    let mut want = b.clone();
    solve_ref(&l, &mut want, n);
    close("X", &got, &want, 512.0)?;
    // X · Lᵀ ≈ B
    let scale = b.iter().fold(1.0f64, |m, x| m.max(x.to_f64().abs()));
    for i in 0..n {
        for c in 0..n {
            let s: f64 = (0..=c).map(|j| got[i * n + j].to_f64() * l[c * n + j].to_f64()).sum();
            if (s - b[i * n + c].to_f64()).abs() > 256.0 * n as f64 * T::EPS * scale {
                return Err(format!("(X·Lᵀ)[{i}][{c}] = {s}, B = {:?}", b[i * n + c]));
            }
        }
    }
    Ok(())
}

/// A user helper taking a tile, called inside an `if` (a tile crosses regions like any variable).
fn factor_block<const N: usize>(k: &mut KernelBuilder<'_>, t: &TileNxN<N>, m: &Matrix) -> Result<(), BuildError> {
    let (z, e) = (k.const_u32(0)?, k.const_u32(N as u32)?);
    let r = m.at(k, z..e, z..e)?;
    t.load(k, &r)?;
    let eps = if t.dtype() == ScalarType::F32 { k.const_f32(1e-6)? } else { k.const_f64(1e-6)? };
    t.cholesky_(k, eps)
}

fn helper<const N: usize, T: Real>(dev: &Device) -> Outcome {
    let n = N;
    let Some(f) = kernel::<T>(dev, n, "tile_helper", 2, |k| {
        let a = matrix2(k, "a", T::TY, n as u32, n as u32)?;
        let out_b = k.buffer("out", T::TY);
        let two = k.const_u32(2)?;
        let shape = [two, k.const_u32(n as u32)?, k.const_u32(n as u32)?];
        let out = Matrix::global(k, out_b, &shape)?;
        let t = TileNxN::<N>::eye(k, T::TY)?;
        let bi = k.block_id(Dim::X)?;
        let zero = k.const_u32(0)?;
        let first = k.eq(bi, zero)?;
        k.if_then(first, |k| factor_block(k, &t, &a))?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(n as u32)?);
        let r = out.at_batch(k, bi, z..e, z..e)?;
        t.store(k, &r)
    })?
    else {
        return Ok(());
    };
    let a: Vec<T> = spd(n, n, 71);
    let mut args = vec![buf(&a), buf(&vec![T::of(0.0); 2 * n * n])];
    run(dev, &f, &mut args)?;
    let got = read::<T>(&args[1]);
    let mut want = a.clone();
    cholesky_ref(&mut want, n, &vec![T::of(1e-6); n]);
    want.extend((0..n * n).map(|x| eye_or_zero::<T>(x / n, x % n)));
    close("block 0 factored, block 1 the identity", &got, &want, 256.0)
}

fn register_size<const N: usize, T: Real>(s: &mut Suite, dt: &str) {
    let tag = format!("{N}x{N}/{dt}");
    s.case(format!("tile::create/{tag}"), create::<N, T>);
    for o in [0usize, 5, 32] {
        for (gi, g) in geometries(N, o).into_iter().enumerate() {
            s.case(format!("tile::load_store/{tag}/off{o}/geometry{gi}"), move |d| {
                load_store::<N, T>(d, o, g, false).map_err(|e| format!("constant bounds: {e}"))?;
                load_store::<N, T>(d, o, g, true).map_err(|e| format!("run-time bounds: {e}"))
            });
        }
    }
    s.case(format!("tile::batched/{tag}"), batched::<N, T>);
    s.case(format!("tile::shared/{tag}"), shared::<N, T>);
    s.case(format!("tile::outer/{tag}"), outer::<N, T>);
    s.case(format!("tile::cholesky/{tag}/spd"), |d| cholesky::<N, T>(d, Chol::Spd));
    s.case(format!("tile::cholesky/{tag}/per_lane_eps"), |d| cholesky::<N, T>(d, Chol::PerLane));
    s.case(format!("tile::cholesky/{tag}/near_singular"), |d| cholesky::<N, T>(d, Chol::NearSingular));
    s.case(format!("tile::solve/{tag}"), |d| solve::<N, T>(d, false));
    s.case(format!("tile::cholesky_solve/{tag}"), |d| solve::<N, T>(d, true));
    s.case(format!("tile::helper/{tag}"), helper::<N, T>);
}

/// Registers the tile cases.
pub fn register(s: &mut Suite) {
    register_size::<16, f32>(s, "f32");
    register_size::<16, f64>(s, "f64");
    register_size::<32, f32>(s, "f32");
    register_size::<32, f64>(s, "f64");
    crate::tile_errors::register(s);
}
