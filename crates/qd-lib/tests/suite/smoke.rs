//! The harness's own cases: the generic collectives with builtin and custom operators against the
//! references, and the errors for a missing width and a tile wider than the subgroup.

use crate::elem::Elem;
use crate::harness::{buf, build, check, read, run, width, zeros, Suite};
use crate::reference;
use crate::subgroup_util::expect_wide_tile_error;
use qd_frontend::{Dim, KernelBuilder, Val};
use qd_lib::{subgroup, BuildError, Op};
use qd_mir::GroupOp;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for l in 0..=6u32 {
            s.case(format!("subgroup::reduce_add_tiled/{}/L{l}", T::TY), move |dev| reduce_add::<T>(dev, l));
            s.case(format!("subgroup::inclusive_scan_tiled_with/custom/{}/L{l}", T::TY), move |dev| {
                custom_scan::<T>(dev, l)
            });
        }
    });
    s.case("subgroup::errors/no_width_and_wide_tile", |_| errors());
}

fn reduce_add<T: Elem>(dev: &qd_rt::Device, l: u32) -> crate::harness::Outcome {
    let n = 128usize;
    let xs: Vec<T> = (0..n as u64).map(|i| T::sample(i * 7 + u64::from(l))).collect();
    let f = build(dev, "reduce_add", n as u32, |k| {
        let (inp, out) = (k.buffer("inp", T::TY), k.buffer("out", T::TY));
        let i = k.thread_id(Dim::X)?;
        let x = k.load(inp, i)?;
        let r = subgroup::reduce_add_tiled(k, x, l)?;
        k.store(out, i, r)
    });
    if l > width(dev).trailing_zeros() {
        return expect_wide_tile_error(dev, l, f);
    }
    let f = f?;
    let mut args = vec![buf(&xs), zeros::<T>(n)];
    run(dev, &f, &mut args)?;
    let want = reference::reduce_all(&xs, l, &reference::group::<T>(GroupOp::Add));
    check("lane 0 of each tile", &read::<T>(&args[1]), &want)
}

/// A custom operator `a * 3 + b` (associative only in the scan's fixed order, which is the
/// point: the order must be the reference's exactly).
fn custom_scan<T: Elem>(dev: &qd_rt::Device, l: u32) -> crate::harness::Outcome {
    let n = 128usize;
    let xs: Vec<T> = (0..n as u64).map(|i| T::sample(i * 13 + u64::from(l))).collect();
    let op = |k: &mut KernelBuilder<'_>, a: Val, b: Val| -> Result<Val, BuildError> {
        let three = k.const_scalar(T::TY, T::to_bits(three::<T>()))?;
        let m = k.mul(a, three)?;
        k.add(m, b)
    };
    let f = build(dev, "custom_scan", n as u32, |k| {
        let (inp, out) = (k.buffer("inp", T::TY), k.buffer("out", T::TY));
        let i = k.thread_id(Dim::X)?;
        let x = k.load(inp, i)?;
        let r = subgroup::inclusive_scan_tiled_with(k, x, Op::custom(&op), l)?;
        k.store(out, i, r)
    });
    if l > width(dev).trailing_zeros() {
        return expect_wide_tile_error(dev, l, f);
    }
    let f = f?;
    let mut args = vec![buf(&xs), zeros::<T>(n)];
    run(dev, &f, &mut args)?;
    let rop = |a: T, b: T| T::combine(GroupOp::Add, T::combine(GroupOp::Mul, a, three::<T>()), b);
    let want = reference::inclusive(&xs, l, &rop);
    check("inclusive scan", &read::<T>(&args[1]), &want)
}

fn three<T: Elem>() -> T {
    let one = T::identity(GroupOp::Mul);
    T::combine(GroupOp::Add, T::combine(GroupOp::Add, one, one), one)
}

fn errors() -> crate::harness::Outcome {
    let mut ctx = qd_frontend::FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "e");
    let x = k.const_u32(1).map_err(|e| e.to_string())?;
    let line = line!() + 1;
    let e = subgroup::reduce_add_tiled(&mut k, x, 2).expect_err("no width set");
    if e.location.line() != line || !e.message.contains("set_subgroup_size") {
        return Err(format!("missing width: {e}"));
    }
    k.set_subgroup_size(32).map_err(|e| e.to_string())?;
    let line = line!() + 1;
    let e = subgroup::reduce_add_tiled(&mut k, x, 6).expect_err("tile wider than the subgroup");
    if e.location.line() != line || !e.message.contains("log2_size 6") || !e.message.contains("32 lanes") {
        return Err(format!("wide tile: {e}"));
    }
    let b = k.const_bool(true).map_err(|e| e.to_string())?;
    let e = subgroup::reduce_add_tiled(&mut k, b, 2).expect_err("bool is not a dtype");
    if !e.message.contains("unsupported dtype bool") {
        return Err(format!("dtype: {e}"));
    }
    Ok(())
}
