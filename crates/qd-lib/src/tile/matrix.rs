//! The arrays a register tile moves to and from: [`Matrix`], a row-major 2-D or 3-D (batched) view
//! of a global buffer or a block [`SharedArray`], and the slices of it a tile operation takes —
//! [`Region`] (`arr[r0:r1, c0:c1]`, `arr[batch, r0:r1, c0:c1]`) and [`Column`] (`arr[r0:r1, col]`).
//!
//! Quadrants' slice rules, as implemented here:
//!
//! * both bounds of a row or column range are required (`..`, `r0..` and `..r1` are
//!   [`BuildError`]s), and a range is half-open (`r0..=r1` is an error too);
//! * indices are `u32` or `i32` values; a negative constant is a [`BuildError`]; a negative `i32`
//!   computed at run time reads as a huge `u32` (past the array, so skipped);
//! * lane `i < N` owns row `r0 + i`; it is skipped when `r0 + i ≥ min(r1, rows)`;
//! * columns `c0 … min(c1, cols) − 1`, at most `N` of them, map to registers `0, 1, …`; the other
//!   registers are untouched by a load and not written by a store;
//! * the element offset `((batch · rows) + row) · cols + col` is `u32` arithmetic: an array holds
//!   at most 2³² − 1 elements.
//!
//! Every count that is a compile-time constant (shared-array shapes, constant bounds) is folded
//! here, so a full tile of a constant-shaped array loads with no column tests at all.

use crate::block::shared::const_int;
use crate::block::{ElemShape, SharedArray};
use crate::common::{err, Loc};
use qd_frontend::{Buf, BuildError, ErrorKind, KernelBuilder, ScalarType, SharedBuf, Val, Var};
use std::ops::{Bound, RangeBounds};
use std::panic::Location;

use super::FLOATS;

/// Where a matrix lives.
#[derive(Copy, Clone, Debug)]
enum Store {
    Global(Buf),
    Shared(SharedBuf),
}

/// A row-major 2-D (`[rows, cols]`) or 3-D (`[batch, rows, cols]`) array a tile loads from and
/// stores to. Build one with [`Matrix::global`] (a buffer parameter and its shape, given as
/// values) or [`Matrix::shared`] (a block shared array of scalars, whose shape is known).
#[derive(Clone, Debug)]
pub struct Matrix {
    store: Store,
    dtype: ScalarType,
    /// `[rows, cols]` or `[batch, rows, cols]`, as `u32` values.
    shape: Vec<Val>,
}

/// A tile-shaped slice of a [`Matrix`]: `arr[r0:r1, c0:c1]` or `arr[batch, r0:r1, c0:c1]`.
#[derive(Clone, Debug)]
pub struct Region {
    m: Matrix,
    batch: Option<Val>,
    rows: (Val, Val),
    cols: (Val, Val),
}

/// A column slice of a [`Matrix`]: `arr[r0:r1, col]` or `arr[batch, r0:r1, col]`, one element per
/// lane (the vector operand of [`TileNxN::sub_outer`](super::TileNxN::sub_outer)).
#[derive(Clone, Debug)]
pub struct Column {
    m: Matrix,
    batch: Option<Val>,
    rows: (Val, Val),
    col: Val,
}

/// A `u32` count that may be known at build time.
#[derive(Copy, Clone)]
enum Num {
    Const(u32),
    Dyn(Val),
}

impl Num {
    fn of(b: &KernelBuilder<'_>, v: Val) -> Num {
        match const_int(b, v).and_then(|c| u32::try_from(c).ok()) {
            Some(c) => Num::Const(c),
            None => Num::Dyn(v),
        }
    }

    fn val(self, b: &mut KernelBuilder<'_>) -> Result<Val, BuildError> {
        match self {
            Num::Const(c) => b.const_u32(c),
            Num::Dyn(v) => Ok(v),
        }
    }

    fn min(self, b: &mut KernelBuilder<'_>, o: Num) -> Result<Num, BuildError> {
        Ok(match (self, o) {
            (Num::Const(x), Num::Const(y)) => Num::Const(x.min(y)),
            (x, y) => {
                let (x, y) = (x.val(b)?, y.val(b)?);
                Num::Dyn(b.min(x, y)?)
            }
        })
    }

    /// `max(self − o, 0)`.
    fn sat_sub(self, b: &mut KernelBuilder<'_>, o: Num) -> Result<Num, BuildError> {
        Ok(match (self, o) {
            (Num::Const(x), Num::Const(y)) => Num::Const(x.saturating_sub(y)),
            (x, y) => {
                let (x, y) = (x.val(b)?, y.val(b)?);
                let d = b.sub(x, y)?;
                let pos = b.gt(x, y)?;
                let zero = b.const_u32(0)?;
                Num::Dyn(b.select(pos, d, zero)?)
            }
        })
    }
}

/// An index operand as `u32` (see the module docs).
fn index(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, what: &str, v: Val) -> Result<Val, BuildError> {
    match v.scalar() {
        Some(ScalarType::U32) => Ok(v),
        Some(ScalarType::I32) => match const_int(b, v) {
            Some(c) if c < 0 => Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("{op}: {what} is negative; negative indices are not supported"),
            )),
            // A constant stays a constant, so that the counts built from it fold.
            Some(c) => b.const_u32(c as u32),
            None => b.cast(v, ScalarType::U32),
        },
        _ => Err(err(loc, ErrorKind::TypeMismatch, format!("{op}: {what} must be u32 or i32, got {}", v.ty()))),
    }
}

/// The `(start, stop)` of a range operand, both required.
fn bounds(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    op: &str,
    what: &str,
    r: &impl RangeBounds<Val>,
) -> Result<(Val, Val), BuildError> {
    let missing = || {
        err(
            loc,
            ErrorKind::Config,
            format!("{op}: the {what} range needs both start and stop indices (write start..stop)"),
        )
    };
    let start = match r.start_bound() {
        Bound::Included(&v) => v,
        Bound::Excluded(_) | Bound::Unbounded => return Err(missing()),
    };
    let stop = match r.end_bound() {
        Bound::Excluded(&v) => v,
        Bound::Included(_) => {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{op}: the {what} range must be half-open (start..stop), not inclusive"),
            ))
        }
        Bound::Unbounded => return Err(missing()),
    };
    Ok((index(b, loc, op, &format!("the {what} start"), start)?, index(b, loc, op, &format!("the {what} stop"), stop)?))
}

impl Matrix {
    /// A view of the global buffer `buf` (elements `f32` or `f64`) as a row-major array of
    /// `shape` — `[rows, cols]` or `[batch, rows, cols]`, each a `u32` or `i32` value (a kernel
    /// parameter or a constant).
    #[track_caller]
    pub fn global(b: &mut KernelBuilder<'_>, buf: Buf, shape: &[Val]) -> Result<Matrix, BuildError> {
        let loc = Location::caller();
        let op = "tile::Matrix::global";
        if !FLOATS.contains(&buf.elem()) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{op}: the buffer holds {}; tiles load f32 or f64", buf.elem()),
            ));
        }
        if !matches!(shape.len(), 2 | 3) {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{op}: a tile array is 2-D or 3-D; got a shape of {} dimensions", shape.len()),
            ));
        }
        let shape = shape
            .iter()
            .enumerate()
            .map(|(i, &d)| index(b, loc, op, &format!("dimension {i}"), d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Matrix { store: Store::Global(buf), dtype: buf.elem(), shape })
    }

    /// A view of a block shared array of scalars (`f32` or `f64`) with a 2-D or 3-D shape.
    #[track_caller]
    pub fn shared(b: &mut KernelBuilder<'_>, arr: &SharedArray) -> Result<Matrix, BuildError> {
        let loc = Location::caller();
        let op = "tile::Matrix::shared";
        if arr.elem_shape() != ElemShape::Scalar || !FLOATS.contains(&arr.dtype()) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!(
                    "{op}: @{} holds {:?} elements of {}; tiles load scalar f32 or f64",
                    arr.name(),
                    arr.elem_shape(),
                    arr.dtype()
                ),
            ));
        }
        if !matches!(arr.shape().len(), 2 | 3) {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{op}: @{} has shape {:?}; a tile array is 2-D or 3-D", arr.name(), arr.shape()),
            ));
        }
        let shape = arr.shape().iter().map(|&d| b.const_u32(d)).collect::<Result<Vec<_>, _>>()?;
        Ok(Matrix { store: Store::Shared(arr.buf()), dtype: arr.dtype(), shape })
    }

    /// The element type.
    pub fn dtype(&self) -> ScalarType {
        self.dtype
    }

    fn dims_ok(&self, loc: Loc, op: &str, batched: bool) -> Result<(), BuildError> {
        let want = if batched { 3 } else { 2 };
        if self.shape.len() == want {
            return Ok(());
        }
        let (form, other) = if batched { ("at_batch", "at") } else { ("at", "at_batch") };
        Err(err(
            loc,
            ErrorKind::Config,
            format!("{op}: `{form}` slices a {want}-D array but this one is {}-D (use `{other}`)", self.shape.len()),
        ))
    }

    /// `arr[r0:r1, c0:c1]` of a 2-D array.
    #[track_caller]
    pub fn at(
        &self,
        b: &mut KernelBuilder<'_>,
        rows: impl RangeBounds<Val>,
        cols: impl RangeBounds<Val>,
    ) -> Result<Region, BuildError> {
        self.region(b, Location::caller(), None, &rows, &cols)
    }

    /// `arr[batch, r0:r1, c0:c1]` of a 3-D array.
    #[track_caller]
    pub fn at_batch(
        &self,
        b: &mut KernelBuilder<'_>,
        batch: Val,
        rows: impl RangeBounds<Val>,
        cols: impl RangeBounds<Val>,
    ) -> Result<Region, BuildError> {
        self.region(b, Location::caller(), Some(batch), &rows, &cols)
    }

    fn region(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        batch: Option<Val>,
        rows: &impl RangeBounds<Val>,
        cols: &impl RangeBounds<Val>,
    ) -> Result<Region, BuildError> {
        let op = "tile::Matrix::at";
        self.dims_ok(loc, op, batch.is_some())?;
        let batch = batch.map(|v| index(b, loc, op, "the batch index", v)).transpose()?;
        let rows = bounds(b, loc, op, "row", rows)?;
        let cols = bounds(b, loc, op, "column", cols)?;
        Ok(Region { m: self.clone(), batch, rows, cols })
    }

    /// `arr[r0:r1, col]` of a 2-D array.
    #[track_caller]
    pub fn column(
        &self,
        b: &mut KernelBuilder<'_>,
        rows: impl RangeBounds<Val>,
        col: Val,
    ) -> Result<Column, BuildError> {
        self.column_slice(b, Location::caller(), None, &rows, col)
    }

    /// `arr[batch, r0:r1, col]` of a 3-D array.
    #[track_caller]
    pub fn column_batch(
        &self,
        b: &mut KernelBuilder<'_>,
        batch: Val,
        rows: impl RangeBounds<Val>,
        col: Val,
    ) -> Result<Column, BuildError> {
        self.column_slice(b, Location::caller(), Some(batch), &rows, col)
    }

    fn column_slice(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        batch: Option<Val>,
        rows: &impl RangeBounds<Val>,
        col: Val,
    ) -> Result<Column, BuildError> {
        let op = "tile::Matrix::column";
        self.dims_ok(loc, op, batch.is_some())?;
        let batch = batch.map(|v| index(b, loc, op, "the batch index", v)).transpose()?;
        let rows = bounds(b, loc, op, "row", rows)?;
        let col = index(b, loc, op, "the column", col)?;
        Ok(Column { m: self.clone(), batch, rows, col })
    }

    fn base(&self) -> Val {
        match self.store {
            Store::Global(buf) => buf.ptr(),
            Store::Shared(s) => s.ptr(),
        }
    }

    /// `(rows, cols)` of the matrix (the last two dimensions).
    fn rows_cols(&self) -> (Val, Val) {
        let n = self.shape.len();
        (self.shape[n - 2], self.shape[n - 1])
    }

    /// The pointer to element `(batch, row, col)`.
    fn element(&self, b: &mut KernelBuilder<'_>, batch: Option<Val>, row: Val, col: Val) -> Result<Val, BuildError> {
        let (rows, cols) = self.rows_cols();
        let flat_row = match batch {
            Some(bi) => {
                let first = b.mul(bi, rows)?;
                b.add(first, row)?
            }
            None => row,
        };
        let start = b.mul(flat_row, cols)?;
        let at = b.add(start, col)?;
        let base = self.base();
        b.ptr_offset(base, at)
    }
}

/// What a tile load or store of a [`Region`] needs on each lane.
struct Geometry {
    /// This lane owns a row inside the range and the array, and at least one column is in.
    active: Val,
    /// The pointer to the lane's element at column `c0`.
    row_ptr: Val,
    /// How many columns (registers from 0) are inside the range and the array, at most `N`.
    ncols: Num,
}

/// The lane's row `r0 + lane` if it is inside `[r0, min(r1, rows))` and `lane < n`; with
/// `bool` whether it is.
fn lane_row(b: &mut KernelBuilder<'_>, rows: (Val, Val), array_rows: Val, n: u32) -> Result<(Val, Val), BuildError> {
    let (r0, r1) = (Num::of(b, rows.0), Num::of(b, rows.1));
    let limit = r1.min(b, Num::of(b, array_rows))?;
    let count = limit.sat_sub(b, r0)?.min(b, Num::Const(n))?;
    let lane = b.lane_id()?;
    let count = count.val(b)?;
    let inside = b.lt(lane, count)?;
    let row = b.add(rows.0, lane)?;
    Ok((row, inside))
}

impl Region {
    fn geometry(&self, b: &mut KernelBuilder<'_>, n: u32) -> Result<Geometry, BuildError> {
        let (array_rows, array_cols) = self.m.rows_cols();
        let (row, inside) = lane_row(b, self.rows, array_rows, n)?;
        let (c0, c1) = (Num::of(b, self.cols.0), Num::of(b, self.cols.1));
        let limit = c1.min(b, Num::of(b, array_cols))?;
        let ncols = limit.sat_sub(b, c0)?.min(b, Num::Const(n))?;
        let active = match ncols {
            Num::Const(_) => inside,
            Num::Dyn(c) => {
                let zero = b.const_u32(0)?;
                let some = b.gt(c, zero)?;
                b.and(inside, some)?
            }
        };
        let row_ptr = self.m.element(b, self.batch, row, self.cols.0)?;
        Ok(Geometry { active, row_ptr, ncols })
    }

    /// The dtype check and the geometry of a tile access of `n` rows; `None` when no column is
    /// inside the region (known at build time: nothing to emit).
    fn prepare(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        dtype: ScalarType,
        n: usize,
    ) -> Result<Option<Geometry>, BuildError> {
        if self.m.dtype != dtype {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{op}: the array holds {} but the tile holds {dtype}", self.m.dtype),
            ));
        }
        let g = self.geometry(b, n as u32)?;
        Ok((!matches!(g.ncols, Num::Const(0))).then_some(g))
    }

    /// Loads the region into `regs` (see [`super::TileNxN::load`]). With a run-time column count
    /// every in-row load reads a valid column (`min(j, ncols − 1)`) and a select keeps the old
    /// register past the count: straight-line code, no branch per column.
    pub(super) fn load_into(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        dtype: ScalarType,
        regs: &[Var],
    ) -> Result<(), BuildError> {
        let Some(g) = self.prepare(b, loc, op, dtype, regs.len())? else { return Ok(()) };
        b.if_then(g.active, |b| {
            let last = match g.ncols {
                Num::Const(_) => None,
                Num::Dyn(c) => {
                    let one = b.const_u32(1)?;
                    Some((c, b.sub(c, one)?))
                }
            };
            for (j, &r) in regs.iter().enumerate() {
                let jv = b.const_u32(j as u32)?;
                match (g.ncols, last) {
                    (Num::Const(c), _) if j as u32 >= c => break,
                    (Num::Dyn(_), Some((count, last))) if j > 0 => {
                        let col = b.min(jv, last)?;
                        let p = b.ptr_offset(g.row_ptr, col)?;
                        let v = b.load_ptr(p)?;
                        let keep = b.lt(jv, count)?;
                        let old = b.use_var(r)?;
                        let v = b.select(keep, v, old)?;
                        b.def_var(r, v)?;
                    }
                    _ => {
                        let p = b.ptr_offset(g.row_ptr, jv)?;
                        let v = b.load_ptr(p)?;
                        b.def_var(r, v)?;
                    }
                }
            }
            Ok(())
        })
    }

    /// Stores `regs` into the region (see [`super::TileNxN::store`]); a run-time column count
    /// guards each column past the first with a uniform branch.
    pub(super) fn store_from(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        dtype: ScalarType,
        regs: &[Var],
    ) -> Result<(), BuildError> {
        let Some(g) = self.prepare(b, loc, op, dtype, regs.len())? else { return Ok(()) };
        b.if_then(g.active, |b| {
            for (j, &r) in regs.iter().enumerate() {
                let jv = b.const_u32(j as u32)?;
                let v = b.use_var(r)?;
                match g.ncols {
                    Num::Const(c) if j as u32 >= c => break,
                    Num::Dyn(count) if j > 0 => {
                        let inside = b.lt(jv, count)?;
                        b.if_then(inside, |b| {
                            let p = b.ptr_offset(g.row_ptr, jv)?;
                            b.store_ptr(p, v)
                        })?;
                    }
                    _ => {
                        let p = b.ptr_offset(g.row_ptr, jv)?;
                        b.store_ptr(p, v)?;
                    }
                }
            }
            Ok(())
        })
    }
}

impl Column {
    /// The element type.
    pub fn dtype(&self) -> ScalarType {
        self.m.dtype
    }

    /// Loads the column for a tile of `n` rows (see [`super::TileNxN::load_column`]).
    pub(super) fn load(&self, b: &mut KernelBuilder<'_>, n: u32) -> Result<Val, BuildError> {
        {
            let (array_rows, array_cols) = self.m.rows_cols();
            let (row, inside) = lane_row(b, self.rows, array_rows, n)?;
            let in_cols = b.lt(self.col, array_cols)?;
            let active = b.and(inside, in_cols)?;
            let p = self.m.element(b, self.batch, row, self.col)?;
            let out = b.declare_named_var("tile.column", self.m.dtype);
            let zero = super::float(b, self.m.dtype, 0.0)?;
            b.def_var(out, zero)?;
            b.if_then(active, |b| {
                let v = b.load_ptr(p)?;
                b.def_var(out, v)
            })?;
            b.use_var(out)
        }
    }
}
