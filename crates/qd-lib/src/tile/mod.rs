//! Register tiles (Quadrants §5, `qd.simt.Tile16x16` / `qd.simt.Tile32x32`): an `N × N` matrix
//! spread over the first `N` lanes of one subgroup, **one row per lane**, each row `N` scalar
//! registers. Cross-lane work (rank-1 updates, Cholesky, triangular solves) is done with
//! constant-lane broadcasts only — no shared memory, no barriers — so a tile costs nothing but
//! registers, and every back end sees plain straight-line MIR.
//!
//! One generic implementation, [`TileNxN<N>`], serves both sizes: [`Tile16x16`] and
//! [`Tile32x32`] are its two instances (any other `N` does not compile). The registers are
//! frontend variables ([`qd_frontend::Var`]), so a tile can be loaded before an `if`, updated in
//! a loop body and stored after it, like any other variable; helper functions take `&TileNxN`.
//!
//! Layout and rules (docs/tile.md has the whole page):
//!
//! * lane `i < N` holds row `i`; register `j` of that lane is column `j`. Lanes `≥ N` of a wider
//!   subgroup hold nothing a tile operation reads or writes (their registers are unspecified);
//! * loads and stores go through a [`Matrix`] view (a 2-D or 3-D row-major global buffer, or a
//!   block [`SharedArray`](crate::block::SharedArray)) and a [`Region`] with Quadrants' slice
//!   rules ([`matrix`] module docs);
//! * arithmetic is single-rounded: `t -= outer(a, b)` is one `fma(-a, b_j, t_j)` per register,
//!   and the dot products of `cholesky_` and `solve_triangular_` are `fma` chains, so every back
//!   end computes the same bits (the interpreter, the native cpu device, PTX, SPIR-V, AMDGCN).
//!
//! Differences from Quadrants: tiles also run on the `cpu` device (Quadrants refuses its CPU back
//! ends); a subgroup narrower than `N` is a [`BuildError`] at the call (Quadrants assumes the
//! width); a column load also gives 0 when the column is past the array (Quadrants reads it);
//! rank-1 updates and dot products are fused (`fma`) by definition rather than by the
//! compiler's choice.

mod matrix;

pub use matrix::{Column, Matrix, Region};

use crate::common::{at, err, width, Loc};
use qd_frontend::{BuildError, ErrorKind, KernelBuilder, ScalarType, Val, Var};
use std::panic::Location;

/// The example of `docs/tile.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/tile.md")]
pub struct TileMdExamples;

/// An `N × N` register tile (see the module docs). `N` is 16 or 32.
#[derive(Clone, Debug)]
pub struct TileNxN<const N: usize> {
    regs: [Var; N],
    dtype: ScalarType,
}

/// Quadrants' `qd.simt.Tile16x16`: 16 lanes, 16 registers per lane.
pub type Tile16x16 = TileNxN<16>;
/// Quadrants' `qd.simt.Tile32x32`: 32 lanes, 32 registers per lane.
pub type Tile32x32 = TileNxN<32>;

/// The element types a tile holds.
const FLOATS: &[ScalarType] = &[ScalarType::F32, ScalarType::F64];

/// A constant of a float type.
fn float(b: &mut KernelBuilder<'_>, ty: ScalarType, x: f64) -> Result<Val, BuildError> {
    match ty {
        ScalarType::F32 => b.const_f32(x as f32),
        _ => b.const_f64(x),
    }
}

/// Sums products pairwise-interleaved in two `fma` chains (even and odd terms; their sum at the
/// end): half the dependent latency of one chain. `terms` yields `(x, y)` pairs; no terms is 0.
/// The plain-Rust references of the suite and the example follow the same order.
fn dot2(
    b: &mut KernelBuilder<'_>,
    ty: ScalarType,
    terms: impl IntoIterator<Item = (Val, Val)>,
) -> Result<Val, BuildError> {
    let mut acc: [Option<Val>; 2] = [None, None];
    for (i, (x, y)) in terms.into_iter().enumerate() {
        let slot = &mut acc[i % 2];
        *slot = Some(match *slot {
            None => b.mul(x, y)?,
            Some(a) => b.fma(x, y, a)?,
        });
    }
    match acc {
        [None, _] => float(b, ty, 0.0),
        [Some(a), None] => Ok(a),
        [Some(a), Some(c)] => b.add(a, c),
    }
}

impl<const N: usize> TileNxN<N> {
    /// The tile's dimension (`N`): Quadrants' `TileNxN.SIZE`.
    pub const SIZE: u32 = N as u32;

    /// Rejects every `N` but 16 and 32 when the tile type is used.
    const SUPPORTED: () = assert!(N == 16 || N == 32, "register tiles are 16x16 or 32x32");

    fn name(op: &str) -> String {
        format!("Tile{N}x{N}::{op}")
    }

    /// The kernel's subgroup must hold a row per lane.
    fn width_ok(b: &KernelBuilder<'_>, loc: Loc, name: &str) -> Result<(), BuildError> {
        let w = width(b, loc, name)?;
        if w >= Self::SIZE {
            return Ok(());
        }
        Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{name}: a {N}x{N} tile needs a subgroup of at least {N} lanes (one row per lane); \
                 this kernel's subgroup width is {w}"
            ),
        ))
    }

    /// A tile with fresh, undefined registers, after the dtype and width checks of `op`.
    fn declare(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, dtype: ScalarType) -> Result<Self, BuildError> {
        let () = Self::SUPPORTED;
        let name = Self::name(op);
        if !FLOATS.contains(&dtype) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{name}: unsupported dtype {dtype} (supported: f32, f64)"),
            ));
        }
        Self::width_ok(b, loc, &name)?;
        let regs = std::array::from_fn(|j| b.declare_named_var(&format!("tile.r{j}"), dtype));
        Ok(TileNxN { regs, dtype })
    }

    /// Quadrants `TileNxN.zeros(dtype)`: a tile of zeros. `dtype` is `f32` or `f64`; the kernel's
    /// subgroup width must be at least `N` ([`KernelBuilder::set_subgroup_size`]).
    #[track_caller]
    pub fn zeros(b: &mut KernelBuilder<'_>, dtype: ScalarType) -> Result<Self, BuildError> {
        let loc = Location::caller();
        (|| {
            let t = Self::declare(b, loc, "zeros", dtype)?;
            let zero = float(b, dtype, 0.0)?;
            for &r in &t.regs {
                b.def_var(r, zero)?;
            }
            Ok(t)
        })()
        .map_err(at(loc))
    }

    /// Quadrants `TileNxN.eye(dtype)`: the identity (lane `i` has 1 in register `i`, 0 elsewhere).
    #[track_caller]
    pub fn eye(b: &mut KernelBuilder<'_>, dtype: ScalarType) -> Result<Self, BuildError> {
        let loc = Location::caller();
        (|| {
            let t = Self::declare(b, loc, "eye", dtype)?;
            t.set_eye(b)?;
            Ok(t)
        })()
        .map_err(at(loc))
    }

    /// Quadrants `t.eye_()`: resets this tile to the identity in place.
    #[track_caller]
    pub fn eye_(&self, b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.set_eye(b).map_err(at(loc))
    }

    fn set_eye(&self, b: &mut KernelBuilder<'_>) -> Result<(), BuildError> {
        let lane = b.lane_id()?;
        let zero = float(b, self.dtype, 0.0)?;
        let one = float(b, self.dtype, 1.0)?;
        for (j, &r) in self.regs.iter().enumerate() {
            let jv = b.const_u32(j as u32)?;
            let diag = b.eq(lane, jv)?;
            let v = b.select(diag, one, zero)?;
            b.def_var(r, v)?;
        }
        Ok(())
    }

    /// The element type (`f32` or `f64`).
    pub fn dtype(&self) -> ScalarType {
        self.dtype
    }

    fn reg(&self, loc: Loc, op: &str, j: usize) -> Result<Var, BuildError> {
        self.regs.get(j).copied().ok_or_else(|| {
            err(loc, ErrorKind::OutOfRange, format!("{}: column {j} is outside the tile (0..{N})", Self::name(op)))
        })
    }

    fn same_dtype(&self, loc: Loc, op: &str, what: &str, v: Val) -> Result<(), BuildError> {
        if v.scalar() == Some(self.dtype) {
            return Ok(());
        }
        Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("{}: {what} has type {} but the tile holds {}", Self::name(op), v.ty(), self.dtype),
        ))
    }

    /// This lane's element in column `j` (`0 ≤ j < N`): Quadrants' private `_get_col(j)`, public
    /// here for kernels that combine tiles element by element (e.g. the rank-`N` update of a
    /// blocked factorisation, which feeds column `j` of one tile to [`TileNxN::sub_outer`]).
    #[track_caller]
    pub fn get(&self, b: &mut KernelBuilder<'_>, j: usize) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let r = self.reg(loc, "get", j)?;
        b.use_var(r).map_err(at(loc))
    }

    /// Sets this lane's element in column `j` to `v` (of the tile's dtype).
    #[track_caller]
    pub fn set(&self, b: &mut KernelBuilder<'_>, j: usize, v: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        let r = self.reg(loc, "set", j)?;
        self.same_dtype(loc, "set", "the value", v)?;
        b.def_var(r, v).map_err(at(loc))
    }

    /// Quadrants `t -= qd.outer(a, b)`: the rank-1 update `t[i][j] -= a_i · b_j`, where lane `i`
    /// supplies `a_i` and `b_i` (per-lane values of the tile's dtype; pass the same value twice
    /// for the symmetric `outer(v, v)`). Register `j` becomes `fma(-a, broadcast(b, j), t_j)`:
    /// `N` constant-lane broadcasts and `N` fused multiply-adds per lane.
    #[track_caller]
    pub fn sub_outer(&self, b: &mut KernelBuilder<'_>, a: Val, bv: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.same_dtype(loc, "sub_outer", "a", a)?;
        self.same_dtype(loc, "sub_outer", "b", bv)?;
        (|| {
            let neg_a = b.neg(a)?;
            for (j, &r) in self.regs.iter().enumerate() {
                let lane = b.const_u32(j as u32)?;
                let bj = b.broadcast(bv, lane)?;
                let t = b.use_var(r)?;
                let v = b.fma(neg_a, bj, t)?;
                b.def_var(r, v)?;
            }
            Ok(())
        })()
        .map_err(at(loc))
    }

    /// Quadrants `t.cholesky_(eps)`: in-place lower Cholesky factorisation, `L · Lᵀ ≈ A`.
    ///
    /// Column by column (`k = 0 … N−1`, left-looking): lane `k` computes the pivot
    /// `sqrt(max(a_kk − Σ_{j<k} L_kj², eps))` (the sum kept per lane as the rows are finished, so
    /// each pivot is O(1)) and every lane reads it by broadcast; lanes `i > k` then set
    /// `L_ik = (a_ik − Σ_{j<k} L_ij · L_kj) / pivot`, reading `L_kj` by broadcast. The strict
    /// upper triangle keeps what it held. `eps` (the tile's dtype) may differ per lane: only lane
    /// `k`'s `eps` floors pivot `k`.
    #[track_caller]
    pub fn cholesky_(&self, b: &mut KernelBuilder<'_>, eps: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.same_dtype(loc, "cholesky_", "eps", eps)?;
        (|| {
            let lane = b.lane_id()?;
            let mut norm = float(b, self.dtype, 0.0)?;
            for k in 0..N {
                let kv = b.const_u32(k as u32)?;
                let akk = b.use_var(self.regs[k])?;
                let rest = b.sub(akk, norm)?;
                let floored = b.max(rest, eps)?;
                let local = b.sqrt(floored)?;
                let pivot = b.broadcast(local, kv)?;
                let mut terms = Vec::with_capacity(k);
                for &r in &self.regs[..k] {
                    let mine = b.use_var(r)?;
                    let lk = b.broadcast(mine, kv)?;
                    terms.push((lk, mine));
                }
                let dot = dot2(b, self.dtype, terms)?;
                let num = b.sub(akk, dot)?;
                let lik = b.div(num, pivot)?;
                let below = b.gt(lane, kv)?;
                let on = b.eq(lane, kv)?;
                let diag = b.select(on, pivot, akk)?;
                let v = b.select(below, lik, diag)?;
                b.def_var(self.regs[k], v)?;
                let grown = b.fma(lik, lik, norm)?;
                norm = b.select(below, grown, norm)?;
            }
            Ok(())
        })()
        .map_err(at(loc))
    }

    /// Quadrants `L.solve_triangular_(B, lower)`: solves `X · Lᵀ = B` for `X` in place of `rhs`
    /// (`B`), with this tile the lower-triangular `L` (e.g. from [`TileNxN::cholesky_`]; its
    /// strict upper triangle is never read). Column by column: `X_ic = (B_ic − Σ_{j<c} X_ij ·
    /// L_cj) / L_cc`, `L_cj` read by broadcast. `lower = false` is a [`BuildError`] (Quadrants
    /// supports only the lower form), as is a right-hand side of another dtype or the tile itself.
    /// A zero on the diagonal gives infinities or NaN, as in Quadrants.
    #[track_caller]
    pub fn solve_triangular_(&self, b: &mut KernelBuilder<'_>, rhs: &Self, lower: bool) -> Result<(), BuildError> {
        let loc = Location::caller();
        let name = Self::name("solve_triangular_");
        if !lower {
            return Err(err(loc, ErrorKind::Config, format!("{name}: only lower = true is supported")));
        }
        if rhs.dtype != self.dtype {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{name}: the right-hand side holds {} but L holds {}", rhs.dtype, self.dtype),
            ));
        }
        if rhs.regs[0] == self.regs[0] {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{name}: the right-hand side must be another tile than L (it is overwritten with X)"),
            ));
        }
        (|| {
            for c in 0..N {
                let cv = b.const_u32(c as u32)?;
                let mut terms = Vec::with_capacity(c);
                for j in 0..c {
                    let lj = b.use_var(self.regs[j])?;
                    let lcj = b.broadcast(lj, cv)?;
                    let xj = b.use_var(rhs.regs[j])?;
                    terms.push((xj, lcj));
                }
                let dot = dot2(b, self.dtype, terms)?;
                let lc = b.use_var(self.regs[c])?;
                let diag = b.broadcast(lc, cv)?;
                let bc = b.use_var(rhs.regs[c])?;
                let num = b.sub(bc, dot)?;
                let x = b.div(num, diag)?;
                b.def_var(rhs.regs[c], x)?;
            }
            Ok(())
        })()
        .map_err(at(loc))
    }

    /// Quadrants' column vector `v = arr[r0:r1, col]` (or `arr[batch, r0:r1, col]`): lane
    /// `i < N` gets `arr[r0 + i, col]` when that row is inside the range and the array and `col`
    /// is inside the array; every other lane gets 0. The value feeds [`TileNxN::sub_outer`].
    #[track_caller]
    pub fn load_column(b: &mut KernelBuilder<'_>, column: &Column) -> Result<Val, BuildError> {
        let loc = Location::caller();
        let () = Self::SUPPORTED;
        Self::width_ok(b, loc, &Self::name("load_column"))?;
        column.load(b, Self::SIZE).map_err(at(loc))
    }

    /// Quadrants `t[:] = arr[r0:r1, c0:c1]` (or `arr[batch, r0:r1, c0:c1]`): loads `region` into
    /// this tile. Lane `i < N` reads row `r0 + i` when that row is inside both the range and the
    /// array; it reads columns `c0 … min(c1, width) − 1` (at most `N`) into registers `0, 1, …`.
    /// Every other register is left as it was (zero for a fresh [`TileNxN::zeros`] tile).
    #[track_caller]
    pub fn load(&self, b: &mut KernelBuilder<'_>, region: &Region) -> Result<(), BuildError> {
        let loc = Location::caller();
        region.load_into(b, loc, &Self::name("load"), self.dtype, &self.regs).map_err(at(loc))
    }

    /// Quadrants `arr[r0:r1, c0:c1] = t` (or `arr[batch, r0:r1, c0:c1] = t`): stores this tile
    /// into `region`, with the same row and column rules as [`TileNxN::load`]; array elements
    /// outside the clamped region are untouched.
    #[track_caller]
    pub fn store(&self, b: &mut KernelBuilder<'_>, region: &Region) -> Result<(), BuildError> {
        let loc = Location::caller();
        region.store_from(b, loc, &Self::name("store"), self.dtype, &self.regs).map_err(at(loc))
    }
}
