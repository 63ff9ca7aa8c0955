//! Every `BuildError` path of `qd_lib::tile`: each misuse is built into a fresh kernel and must fail
//! with the library's message, naming the call, at this file's line (the user's line, never a
//! line inside the library).

use crate::harness::{Outcome, Suite};
use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_lib::block::SharedArray;
use qd_lib::tile::{Matrix, Tile16x16, Tile32x32};

/// Builds `body` into a kernel of subgroup width `w`; it must fail with a message containing
/// every string of `want`, located in this file.
fn expect(
    what: &str,
    w: u32,
    want: &[&str],
    body: impl FnOnce(&mut KernelBuilder<'_>) -> Result<(), BuildError>,
) -> Outcome {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "tile_error");
    let r = (|| {
        k.set_subgroup_size(w)?;
        k.set_block_dim(w)?;
        body(&mut k)
    })();
    match r {
        Ok(()) => Err(format!("{what}: built without an error")),
        Err(e) if !e.location.file().ends_with("tile_errors.rs") => {
            Err(format!("{what}: the error points at {}, not the caller: {e}", e.location))
        }
        Err(e) if want.iter().all(|s| e.message.contains(s)) => Ok(()),
        Err(e) => Err(format!("{what}: unexpected message {:?} (want {want:?})", e.message)),
    }
}

fn square(k: &mut KernelBuilder<'_>, ty: ScalarType) -> Result<Matrix, BuildError> {
    let buf = k.buffer("m", ty);
    let n = k.const_u32(16)?;
    Matrix::global(k, buf, &[n, n])
}

fn all() -> Outcome {
    expect("dtype", 32, &["Tile16x16::zeros", "unsupported dtype i32"], |k| {
        Tile16x16::zeros(k, ScalarType::I32).map(drop)
    })?;
    expect("narrow subgroup", 16, &["Tile32x32::eye", "at least 32 lanes", "width is 16"], |k| {
        Tile32x32::eye(k, ScalarType::F32).map(drop)
    })?;
    expect("narrow subgroup, column", 8, &["Tile16x16::load_column", "at least 16 lanes"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        let c = m.column(k, z..e, z)?;
        Tile16x16::load_column(k, &c).map(drop)
    })?;
    {
        let mut ctx = FunctionBuilderContext::new();
        let mut k = KernelBuilder::new(&mut ctx, "no_width");
        match Tile16x16::zeros(&mut k, ScalarType::F32) {
            Err(e) if e.message.contains("Tile16x16::zeros: needs the target's subgroup width") => {}
            other => return Err(format!("no width: {other:?}")),
        }
    }
    expect("lower = false", 32, &["Tile16x16::solve_triangular_", "only lower = true"], |k| {
        let l = Tile16x16::eye(k, ScalarType::F32)?;
        let b = Tile16x16::zeros(k, ScalarType::F32)?;
        l.solve_triangular_(k, &b, false)
    })?;
    expect("solve dtype", 32, &["solve_triangular_", "holds f64 but L holds f32"], |k| {
        let l = Tile16x16::eye(k, ScalarType::F32)?;
        let b = Tile16x16::zeros(k, ScalarType::F64)?;
        l.solve_triangular_(k, &b, true)
    })?;
    expect("solve in place", 32, &["solve_triangular_", "another tile"], |k| {
        let l = Tile16x16::eye(k, ScalarType::F32)?;
        l.solve_triangular_(k, &l, true)
    })?;
    expect("eps dtype", 32, &["Tile16x16::cholesky_", "eps has type f64"], |k| {
        let t = Tile16x16::eye(k, ScalarType::F32)?;
        let eps = k.const_f64(1e-6)?;
        t.cholesky_(k, eps)
    })?;
    expect("outer dtype", 32, &["Tile32x32::sub_outer", "b has type u32"], |k| {
        let t = Tile32x32::eye(k, ScalarType::F64)?;
        let a = k.const_f64(1.0)?;
        let b = k.const_u32(1)?;
        t.sub_outer(k, a, b)
    })?;
    expect("set dtype", 32, &["Tile16x16::set", "the value has type f64"], |k| {
        let t = Tile16x16::eye(k, ScalarType::F32)?;
        let v = k.const_f64(1.0)?;
        t.set(k, 3, v)
    })?;
    expect("column index", 32, &["Tile16x16::get", "column 16 is outside the tile"], |k| {
        let t = Tile16x16::eye(k, ScalarType::F32)?;
        t.get(k, 16).map(drop)
    })?;
    expect("load dtype", 32, &["Tile16x16::load", "the array holds f64 but the tile holds f32"], |k| {
        let m = square(k, ScalarType::F64)?;
        let t = Tile16x16::zeros(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        let r = m.at(k, z..e, z..e)?;
        t.load(k, &r)
    })?;
    expect("store dtype", 32, &["Tile16x16::store", "the array holds f64"], |k| {
        let m = square(k, ScalarType::F64)?;
        let t = Tile16x16::zeros(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        let r = m.at(k, z..e, z..e)?;
        t.store(k, &r)
    })?;
    expect("missing stop", 32, &["tile::Matrix::at", "row range needs both start and stop"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        m.at(k, z.., z..e).map(drop)
    })?;
    expect("missing start", 32, &["column range needs both start and stop"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        m.at(k, z..e, ..e).map(drop)
    })?;
    expect("full range", 32, &["row range needs both start and stop"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        m.at(k, .., z..e).map(drop)
    })?;
    expect("inclusive range", 32, &["half-open"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(15)?);
        m.at(k, z..=e, z..e).map(drop)
    })?;
    expect("negative index", 32, &["the row start is negative", "negative indices are not supported"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (neg, e) = (k.const_i32(-1)?, k.const_i32(15)?);
        m.at(k, neg..e, e..e).map(drop)
    })?;
    expect("negative column", 32, &["tile::Matrix::column", "the column is negative"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e, neg) = (k.const_i32(0)?, k.const_i32(16)?, k.const_i32(-3)?);
        m.column(k, z..e, neg).map(drop)
    })?;
    expect("float index", 32, &["the column start must be u32 or i32, got f32"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e, x) = (k.const_u32(0)?, k.const_u32(16)?, k.const_f32(0.0)?);
        m.at(k, z..e, x..e).map(drop)
    })?;
    expect("2-D slice of a 3-D array", 32, &["`at` slices a 2-D array but this one is 3-D", "at_batch"], |k| {
        let buf = k.buffer("m", ScalarType::F32);
        let n = k.const_u32(16)?;
        let m = Matrix::global(k, buf, &[n, n, n])?;
        let z = k.const_u32(0)?;
        m.at(k, z..n, z..n).map(drop)
    })?;
    expect("3-D slice of a 2-D array", 32, &["`at_batch` slices a 3-D array but this one is 2-D"], |k| {
        let m = square(k, ScalarType::F32)?;
        let (z, e) = (k.const_u32(0)?, k.const_u32(16)?);
        m.at_batch(k, z, z..e, z..e).map(drop)
    })?;
    expect("integer buffer", 32, &["tile::Matrix::global", "the buffer holds u32"], |k| {
        let buf = k.buffer("m", ScalarType::U32);
        let n = k.const_u32(16)?;
        Matrix::global(k, buf, &[n, n]).map(drop)
    })?;
    expect("1-D shape", 32, &["tile::Matrix::global", "shape of 1 dimensions"], |k| {
        let buf = k.buffer("m", ScalarType::F32);
        let n = k.const_u32(16)?;
        Matrix::global(k, buf, &[n]).map(drop)
    })?;
    expect("vector shared array", 32, &["tile::Matrix::shared", "@v holds Vector(2)"], |k| {
        let sh = SharedArray::new_vec(k, "v", ScalarType::F32, &[16, 16], 2)?;
        Matrix::shared(k, &sh).map(drop)
    })?;
    expect("1-D shared array", 32, &["tile::Matrix::shared", "a tile array is 2-D or 3-D"], |k| {
        let sh = SharedArray::new(k, "s", ScalarType::F32, &[256])?;
        Matrix::shared(k, &sh).map(drop)
    })
}

/// Registers the error case (build only; the same on every device).
pub fn register(s: &mut Suite) {
    s.case("tile::errors/build", |_| all());
}
