//! `subgroup::inclusive_{add,mul,min,max,and,or,xor}(_tiled)` and `exclusive_…(_tiled)`: every op ×
//! dtype (bitwise ops: integers) × tile size × the input patterns, against the Hillis–Steele
//! references, on every lane; the full-subgroup forms at the device's full tile.

use crate::elem::Elem;
use crate::harness::{check, Outcome, Suite};
use crate::reference;
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, patterns, typed, TILES};
use qd_frontend::{BuildError, KernelBuilder, Val};
use qd_lib::subgroup as sg;
use qd_mir::GroupOp;
use qd_rt::Device;

type Tiled = fn(&mut KernelBuilder<'_>, Val, u32) -> Result<Val, BuildError>;
type Full = fn(&mut KernelBuilder<'_>, Val) -> Result<Val, BuildError>;

/// (op, inclusive_tiled, inclusive, exclusive_tiled, exclusive)
const OPS: [(GroupOp, Tiled, Full, Tiled, Full); 7] = [
    (GroupOp::Add, sg::inclusive_add_tiled, sg::inclusive_add, sg::exclusive_add_tiled, sg::exclusive_add),
    (GroupOp::Mul, sg::inclusive_mul_tiled, sg::inclusive_mul, sg::exclusive_mul_tiled, sg::exclusive_mul),
    (GroupOp::Min, sg::inclusive_min_tiled, sg::inclusive_min, sg::exclusive_min_tiled, sg::exclusive_min),
    (GroupOp::Max, sg::inclusive_max_tiled, sg::inclusive_max, sg::exclusive_max_tiled, sg::exclusive_max),
    (GroupOp::And, sg::inclusive_and_tiled, sg::inclusive_and, sg::exclusive_and_tiled, sg::exclusive_and),
    (GroupOp::Or, sg::inclusive_or_tiled, sg::inclusive_or, sg::exclusive_or_tiled, sg::exclusive_or),
    (GroupOp::Xor, sg::inclusive_xor_tiled, sg::inclusive_xor, sg::exclusive_xor_tiled, sg::exclusive_xor),
];

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for (i, (op, ..)) in OPS.iter().enumerate() {
            let bitwise = matches!(op, GroupOp::And | GroupOp::Or | GroupOp::Xor);
            if bitwise && !T::is_int() {
                continue; // a build error, tested in subgroup_errors
            }
            for l in TILES {
                s.case(format!("subgroup::scan/{}/{}/L{l}", op.name(), T::TY), move |dev| case::<T>(dev, i, l));
            }
        }
    });
}

fn case<T: Elem>(dev: &Device, i: usize, l: u32) -> Outcome {
    let (op, inc_tiled, inc_full, exc_tiled, exc_full) = OPS[i];
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(u64::from(l) * 17 + i as u64 + 1000);
    let with_full = l == lw;
    let n_out = if with_full { 4 } else { 2 };
    let r = launch(dev, "scan", vec![input(&xs)], &vec![T::TY; n_out], |k, x, _| {
        let mut outs = vec![inc_tiled(k, x[0], l)?, exc_tiled(k, x[0], l)?];
        if with_full {
            outs.push(inc_full(k, x[0])?);
            outs.push(exc_full(k, x[0])?);
        }
        Ok(outs)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let f = reference::group::<T>(op);
    let inc = reference::inclusive(&xs, l, &f);
    let exc = reference::exclusive(&xs, l, &f, T::identity(op));
    check("inclusive_*_tiled", &typed::<T>(&outs[0]), &inc)?;
    check("exclusive_*_tiled", &typed::<T>(&outs[1]), &exc)?;
    if with_full {
        check("inclusive_* (full)", &typed::<T>(&outs[2]), &inc)?;
        check("exclusive_* (full)", &typed::<T>(&outs[3]), &exc)?;
    }
    Ok(())
}
