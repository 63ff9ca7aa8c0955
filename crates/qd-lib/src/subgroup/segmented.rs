//! Segmented reductions (Quadrants §1.6): `segmented_reduce_{add,min,max}(_tiled)(value,
//! head_flag)` — a per-lane inclusive scan within each tile of `2^log2_size` lanes that restarts
//! at every lane whose `head_flag` is non-zero.
//!
//! Lane `i` (tile base `g`) gets `op` over `value[h..=i]`, where `h` is the largest lane in
//! `[g, i]` whose head flag is non-zero, or `g` if none (an implicit head at each tile start).
//! Head flags are any integer (or bool), tested `!= 0`, so `7` or `-1` act as 1. One MIR
//! `subgroup.segreduce OP tile(L)`; PTX: the head distance from a `vote.sync.ballot` and `clz`,
//! then `shfl.sync.up` steps. Combination order (MIR's, Quadrants' tree): for `k = 1, 2, …, T/2`,
//! lanes whose distance to their head is `≥ k` take `v ⊕ shuffle_up(v, k)` (own value on the
//! left). dtypes: i32 u32 i64 u64 f32 f64.

use crate::common::{at, dtype, err, tile, Loc, NUMERIC};
use qd_frontend::{BuildError, ErrorKind, GroupOp, KernelBuilder, Tile, Val};
use std::panic::Location;

fn segmented_impl(
    b: &mut KernelBuilder<'_>,
    loc: Loc,
    name: &str,
    op: GroupOp,
    v: Val,
    head: Val,
    log2_size: Option<u32>,
) -> Result<Val, BuildError> {
    let t = match log2_size {
        Some(l) if l > 6 => {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("{name}: requires log2_size <= 6, got {l} (Quadrants' static_assert)"),
            ))
        }
        Some(l) => tile(b, loc, name, l)?,
        None => Tile::Full,
    };
    dtype(loc, name, v, NUMERIC)?;
    match head.scalar() {
        Some(s) if s.is_int() || s == qd_frontend::ScalarType::Bool => {}
        _ => {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{name}: the head flag must be an integer or bool, got {}", head.ty()),
            ))
        }
    }
    b.segmented_reduce(op, t, v, head)
}

macro_rules! segmented_fns {
    ($tiled:ident, $full:ident, $op:expr, $what:literal) => {
        #[doc = concat!("Quadrants `", stringify!($tiled), "(value, head_flag, log2_size)`: per lane, the ",
                            $what, " of `value` from the lane's segment head (the last lane at or before it, within \
            its tile of `2^log2_size` lanes, whose `head_flag` is non-zero; the tile's first lane if \
            none) to the lane itself.\n\nMIR `subgroup.segreduce` with `tile(log2_size)`; cost on a \
            shuffle back end: 1 ballot, 1 `clz`, `log2_size` shuffles.\n\nErrors: `log2_size > 6` \
            (Quadrants' static assert) or wider than the subgroup; a dtype other than i32 u32 i64 u64 \
            f32 f64; a head flag that is not an integer or bool.")]
        #[track_caller]
        pub fn $tiled(
            b: &mut KernelBuilder<'_>,
            value: Val,
            head_flag: Val,
            log2_size: u32,
        ) -> Result<Val, BuildError> {
            let loc = Location::caller();
            segmented_impl(b, loc, concat!("subgroup::", stringify!($tiled)), $op, value, head_flag, Some(log2_size))
                .map_err(at(loc))
        }

        #[doc = concat!("Quadrants `", stringify!($full), "(value, head_flag)`: [`", stringify!($tiled),
                            "`] over the whole subgroup (MIR `subgroup.segreduce` without a tile).")]
        #[track_caller]
        pub fn $full(b: &mut KernelBuilder<'_>, value: Val, head_flag: Val) -> Result<Val, BuildError> {
            let loc = Location::caller();
            segmented_impl(b, loc, concat!("subgroup::", stringify!($full)), $op, value, head_flag, None)
                .map_err(at(loc))
        }
    };
}

segmented_fns!(segmented_reduce_add_tiled, segmented_reduce_add, GroupOp::Add, "sum");
segmented_fns!(segmented_reduce_min_tiled, segmented_reduce_min, GroupOp::Min, "minimum (floats: minNum, `-0 < +0`)");
segmented_fns!(segmented_reduce_max_tiled, segmented_reduce_max, GroupOp::Max, "maximum (floats: maxNum, `-0 < +0`)");
