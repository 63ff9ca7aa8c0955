//! The generic subgroup collectives `reduce_tiled_with`, `inclusive_scan_tiled_with` and
//! `exclusive_scan_tiled_with`: every dtype × every tile size × the input patterns, with every
//! builtin operator (bitwise ones on integers; the MIR collectives) and with a custom operator
//! `a * k + b` that is neither commutative nor associative, so the reference must follow the
//! library's trees exactly (butterfly with the own value on the left; Hillis–Steele with the
//! predecessor on the left; exclusive = shift up with the identity in tile lane 0, then scan).
//! The exclusive scans take an explicit identity that is not the operator's (7, or a sample for the
//! custom operator), which Quadrants folds in at every tile's lane 0.

use crate::elem::Elem;
use crate::harness::{check, Outcome, Suite};
use crate::reference;
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, patterns, typed, TILES};
use qd_frontend::{BuildError, KernelBuilder, Val};
use qd_lib::{subgroup as sg, Op};
use qd_mir::{GroupOp, ScalarType};
use qd_rt::Device;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for l in TILES {
            s.case(format!("subgroup::generic/builtin/{}/L{l}", T::TY), move |dev| builtin::<T>(dev, l));
            s.case(format!("subgroup::generic/custom/{}/L{l}", T::TY), move |dev| custom::<T>(dev, l));
        }
    });
}

/// The builtin operators `T` supports.
fn ops<T: Elem>() -> Vec<GroupOp> {
    let mut v = vec![GroupOp::Add, GroupOp::Mul, GroupOp::Min, GroupOp::Max];
    if T::is_int() {
        v.extend([GroupOp::And, GroupOp::Or, GroupOp::Xor]);
    }
    v
}

/// `x` as a `T` (7 for the identity of the exclusive scans; 3 or 0.5 for the custom operator).
fn konst<T: Elem>(int: u64, float: f64) -> T {
    match T::TY {
        ScalarType::F32 => T::from_bits(u64::from((float as f32).to_bits())),
        ScalarType::F64 => T::from_bits(float.to_bits()),
        _ => T::from_bits(int),
    }
}

/// Every builtin operator: reduce, inclusive scan, and exclusive scan with the identity 7.
fn builtin<T: Elem>(dev: &Device, l: u32) -> Outcome {
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(u64::from(l) * 13 + 6000);
    let ops = ops::<T>();
    let seven = konst::<T>(7, 7.0);
    let r = launch(dev, "generic", vec![input(&xs)], &vec![T::TY; 3 * ops.len()], |k, x, _| {
        let mut r = Vec::new();
        for g in &ops {
            let id = k.const_scalar(T::TY, seven.to_bits())?;
            r.push(sg::reduce_tiled_with(k, x[0], Op::Builtin(*g), l)?);
            r.push(sg::inclusive_scan_tiled_with(k, x[0], Op::Builtin(*g), l)?);
            r.push(sg::exclusive_scan_tiled_with(k, x[0], Op::Builtin(*g), id, l)?);
        }
        Ok(r)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    for (j, g) in ops.iter().enumerate() {
        let f = reference::group::<T>(*g);
        let name = g.name();
        check(&format!("reduce_tiled_with({name})"), &typed::<T>(&outs[3 * j]), &reference::reduce_all(&xs, l, &f))?;
        let inc = reference::inclusive(&xs, l, &f);
        check(&format!("inclusive_scan_tiled_with({name})"), &typed::<T>(&outs[3 * j + 1]), &inc)?;
        let exc = reference::exclusive(&xs, l, &f, seven);
        check(&format!("exclusive_scan_tiled_with({name}, 7)"), &typed::<T>(&outs[3 * j + 2]), &exc)?;
    }
    Ok(())
}

/// The custom operator `a * k + b`.
fn custom_op<T: Elem>(k: &mut KernelBuilder<'_>, a: Val, b: Val) -> Result<Val, BuildError> {
    let f = k.const_scalar(T::TY, konst::<T>(3, 0.5).to_bits())?;
    let m = k.mul(a, f)?;
    k.add(m, b)
}

fn custom<T: Elem>(dev: &Device, l: u32) -> Outcome {
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(u64::from(l) * 19 + 7000);
    let id = T::sample(4242);
    let op = Op::custom(&custom_op::<T>);
    let r = launch(dev, "generic_custom", vec![input(&xs)], &[T::TY; 3], |k, x, _| {
        let idv = k.const_scalar(T::TY, id.to_bits())?;
        Ok(vec![
            sg::reduce_tiled_with(k, x[0], op, l)?,
            sg::inclusive_scan_tiled_with(k, x[0], op, l)?,
            sg::exclusive_scan_tiled_with(k, x[0], op, idv, l)?,
        ])
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let kk = konst::<T>(3, 0.5);
    let f = move |a: T, b: T| T::combine(GroupOp::Add, T::combine(GroupOp::Mul, a, kk), b);
    check("reduce_tiled_with(custom)", &typed::<T>(&outs[0]), &reference::reduce_all(&xs, l, &f))?;
    check("inclusive_scan_tiled_with(custom)", &typed::<T>(&outs[1]), &reference::inclusive(&xs, l, &f))?;
    check("exclusive_scan_tiled_with(custom)", &typed::<T>(&outs[2]), &reference::exclusive(&xs, l, &f, id))
}
