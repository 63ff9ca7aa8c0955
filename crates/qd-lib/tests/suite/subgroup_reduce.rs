//! `subgroup::reduce_{add,min,max}(_tiled)` and `reduce_all_{add,min,max}(_tiled)`: every dtype ×
//! every tile size × the input patterns, against the butterfly reference. `reduce_*` is checked at
//! tile lane 0 only (the lane Quadrants defines), `reduce_all_*` on every lane; the full-subgroup
//! forms at the device's full tile.

use crate::elem::Elem;
use crate::harness::{check, check_where, Outcome, Suite};
use crate::reference;
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, patterns, typed, TILES};
use qd_frontend::{BuildError, KernelBuilder, Val};
use qd_lib::subgroup;
use qd_mir::GroupOp;
use qd_rt::Device;

type Tiled = fn(&mut KernelBuilder<'_>, Val, u32) -> Result<Val, BuildError>;
type Full = fn(&mut KernelBuilder<'_>, Val) -> Result<Val, BuildError>;

/// (op, reduce_X_tiled, reduce_X, reduce_all_X_tiled, reduce_all_X)
const OPS: [(GroupOp, Tiled, Full, Tiled, Full); 3] = [
    (
        GroupOp::Add,
        subgroup::reduce_add_tiled,
        subgroup::reduce_add,
        subgroup::reduce_all_add_tiled,
        subgroup::reduce_all_add,
    ),
    (
        GroupOp::Min,
        subgroup::reduce_min_tiled,
        subgroup::reduce_min,
        subgroup::reduce_all_min_tiled,
        subgroup::reduce_all_min,
    ),
    (
        GroupOp::Max,
        subgroup::reduce_max_tiled,
        subgroup::reduce_max,
        subgroup::reduce_all_max_tiled,
        subgroup::reduce_all_max,
    ),
];

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for (i, (op, ..)) in OPS.iter().enumerate() {
            for l in TILES {
                s.case(format!("subgroup::reduce/{}/{}/L{l}", op.name(), T::TY), move |dev| case::<T>(dev, i, l));
            }
        }
    });
    s.case("subgroup::reduce/butterfly_vs_quadrants_tree", butterfly_vs_quadrants_tree);
}

fn case<T: Elem>(dev: &Device, i: usize, l: u32) -> Outcome {
    let (op, tiled, full, all_tiled, all_full) = OPS[i];
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(u64::from(l) * 31 + i as u64);
    let with_full = l == lw;
    let n_out = if with_full { 4 } else { 2 };
    let r = launch(dev, "reduce", vec![input(&xs)], &vec![T::TY; n_out], |k, x, _| {
        let mut outs = vec![tiled(k, x[0], l)?, all_tiled(k, x[0], l)?];
        if with_full {
            outs.push(full(k, x[0])?);
            outs.push(all_full(k, x[0])?);
        }
        Ok(outs)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let want = reference::reduce_all(&xs, l, &reference::group::<T>(op));
    let t = 1usize << l;
    let lane0 = |j: usize| j.is_multiple_of(t);
    check_where("reduce_*_tiled at tile lane 0", &typed::<T>(&outs[0]), &want, lane0)?;
    check("reduce_all_*_tiled", &typed::<T>(&outs[1]), &want)?;
    if with_full {
        check_where("reduce_* (full) at lane 0", &typed::<T>(&outs[2]), &want, lane0)?;
        check("reduce_all_* (full)", &typed::<T>(&outs[3]), &want)?;
    }
    Ok(())
}

/// The documented bit-level difference from Quadrants' lane-0 tree: on `f32 [1e8, 1, -1e8, 1]`
/// qd's butterfly gives 0 (each `+1` is absorbed), Quadrants' `shuffle_down` tree (offsets 2, 1),
/// written here with `subgroup::shuffle_down`, gives 2.
fn butterfly_vs_quadrants_tree(dev: &Device) -> Outcome {
    let xs: Vec<f32> = (0..crate::subgroup_util::N).map(|g| [1e8, 1.0, -1e8, 1.0][g % 4]).collect();
    let outs = launch(dev, "trees", vec![input(&xs)], &[f32::TY; 2], |k, x, _| {
        let qd = subgroup::reduce_add_tiled(k, x[0], 2)?;
        let mut v = x[0];
        for off in [2u32, 1] {
            let o = k.const_u32(off)?;
            let other = subgroup::shuffle_down(k, v, o)?;
            v = k.add(v, other)?;
        }
        Ok(vec![qd, v])
    })?;
    let lane0 = |j: usize| j.is_multiple_of(4);
    let n = xs.len();
    check_where("butterfly (qd)", &typed::<f32>(&outs[0]), &vec![0.0; n], lane0)?;
    check_where("shuffle_down tree (Quadrants)", &typed::<f32>(&outs[1]), &vec![2.0; n], lane0)
}
