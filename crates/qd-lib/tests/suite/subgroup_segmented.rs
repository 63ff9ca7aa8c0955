//! `subgroup::segmented_reduce_{add,min,max}(_tiled)`: every op × dtype × tile size × the input
//! patterns × head layouts (random heads with non-binary flags 7 and -1, heads at every tile's
//! lane 0 and last lane, no heads, every lane a head), with i32 head flags, plus u32/i64/u64/bool
//! head flags at the full tile; against the segmented reference on every lane.

use crate::elem::{mix, Elem};
use crate::harness::{check, Outcome, Suite};
use crate::reference;
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, patterns, typed, N, TILES};
use qd_frontend::{BuildError, KernelBuilder, Val};
use qd_lib::subgroup as sg;
use qd_mir::GroupOp;
use qd_rt::Device;

type Tiled = fn(&mut KernelBuilder<'_>, Val, Val, u32) -> Result<Val, BuildError>;
type Full = fn(&mut KernelBuilder<'_>, Val, Val) -> Result<Val, BuildError>;

const OPS: [(GroupOp, Tiled, Full); 3] = [
    (GroupOp::Add, sg::segmented_reduce_add_tiled, sg::segmented_reduce_add),
    (GroupOp::Min, sg::segmented_reduce_min_tiled, sg::segmented_reduce_min),
    (GroupOp::Max, sg::segmented_reduce_max_tiled, sg::segmented_reduce_max),
];

/// Head layouts.
const LAYOUTS: [&str; 5] = ["random", "edges", "none", "all", "last"];

/// The head flags of `layout` for tiles of `2^l` lanes (i32: 0, 1, 7 or -1).
fn heads(layout: &str, l: u32, seed: u64) -> Vec<i32> {
    let t = 1usize << l;
    (0..N)
        .map(|i| {
            let r = mix(seed.wrapping_add(i as u64 * 0x9E37));
            match layout {
                // ~1 in 3 lanes a head, with non-binary flags.
                "random" => [0, 0, 0, 0, 1, 7, -1, 0, 0][r as usize % 9],
                // heads at tile lane 0 and at the tile's last lane (also the subgroup's edges).
                "edges" => i32::from(i % t == 0 || i % t == t - 1) * 7,
                "none" => 0,
                "all" => 1,
                // only the last lane of each tile.
                _ => i32::from(i % t == t - 1),
            }
        })
        .collect()
}

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for (i, (op, ..)) in OPS.iter().enumerate() {
            for l in TILES {
                for layout in LAYOUTS {
                    s.case(format!("subgroup::segmented/{}/{}/L{l}/{layout}", op.name(), T::TY), move |dev| {
                        case::<T>(dev, i, l, layout)
                    });
                }
            }
            s.case(format!("subgroup::segmented/{}/{}/head_dtypes", op.name(), T::TY), move |dev| {
                head_dtypes::<T>(dev, i)
            });
        }
    });
}

fn case<T: Elem>(dev: &Device, i: usize, l: u32, layout: &str) -> Outcome {
    let (op, tiled, full) = OPS[i];
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(u64::from(l) * 5 + i as u64 + 2000);
    let hs = heads(layout, l, u64::from(l) + 77);
    let with_full = l == lw;
    let n_out = if with_full { 2 } else { 1 };
    let r = launch(dev, "segmented", vec![input(&xs), input(&hs)], &vec![T::TY; n_out], |k, x, _| {
        let mut outs = vec![tiled(k, x[0], x[1], l)?];
        if with_full {
            outs.push(full(k, x[0], x[1])?);
        }
        Ok(outs)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let flags: Vec<bool> = hs.iter().map(|h| *h != 0).collect();
    let want = reference::segmented(&xs, &flags, l, &reference::group::<T>(op));
    check("segmented_reduce_*_tiled", &typed::<T>(&outs[0]), &want)?;
    if with_full {
        check("segmented_reduce_* (full)", &typed::<T>(&outs[1]), &want)?;
    }
    Ok(())
}

/// Head flags of every integer dtype and bool give the same result as i32 ones.
fn head_dtypes<T: Elem>(dev: &Device, i: usize) -> Outcome {
    let (op, _, full) = OPS[i];
    let lw = log2_width(dev);
    let xs: Vec<T> = patterns(i as u64 + 3000);
    let hs = heads("random", lw, 99);
    let flags: Vec<bool> = hs.iter().map(|h| *h != 0).collect();
    let want = reference::segmented(&xs, &flags, lw, &reference::group::<T>(op));
    let as_u32: Vec<u32> = hs.iter().map(|h| *h as u32).collect();
    let as_i64: Vec<i64> = hs.iter().map(|h| i64::from(*h) << 33).collect();
    let as_u64: Vec<u64> = hs.iter().map(|h| (*h as u64) << 40).collect();
    let ins = vec![input(&xs), input(&as_u32), input(&as_i64), input(&as_u64), input(&hs)];
    let outs = launch(dev, "segmented_heads", ins, &[T::TY; 4], |k, x, _| {
        let zero = k.const_i32(0)?;
        let as_bool = k.ne(x[4], zero)?;
        Ok(vec![full(k, x[0], x[1])?, full(k, x[0], x[2])?, full(k, x[0], x[3])?, full(k, x[0], as_bool)?])
    })?;
    for (o, what) in outs.iter().zip(["u32 heads", "i64 heads (high bits only)", "u64 heads", "bool heads"]) {
        check(what, &typed::<T>(o), &want)?;
    }
    Ok(())
}
