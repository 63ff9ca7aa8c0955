//! Subgroup reductions (Quadrants §1.5): `reduce_{add,min,max}(_tiled)` (result defined at tile
//! lane 0) and `reduce_all_{add,min,max}(_tiled)` (result on every lane of the tile).
//!
//! Both emit one MIR `subgroup.reduce OP tile(L)` (the full forms: the whole subgroup), which
//! gives every lane of the tile the reduction: `reduce_*` is therefore also valid on every lane
//! in qd, but only tile lane 0 is defined by Quadrants, so portable code reads lane 0. Each back
//! end picks its sequence (PTX: `redux.sync` for 32-bit integers on sm_80+, else the
//! `shfl.sync.bfly` butterfly).
//!
//! Combination order: MIR's butterfly, `v = v ⊕ shuffle_xor(v, k)` for `k = 1, 2, …, T/2`, for
//! both families. Quadrants' `reduce_*` uses a `shuffle_down` tree (offsets `T/2 … 1`) instead;
//! integer results and min/max are identical, float sums may differ from Quadrants' in the last
//! bits (docs/subgroup.md explains when). dtypes: i32 u32 i64 u64 f32 f64; float min/max are
//! IEEE minNum/maxNum (a NaN operand is ignored) with `-0 < +0`.

use super::generic::reduce_impl;
use crate::common::at;
use crate::op::Op;
use qd_frontend::{BuildError, KernelBuilder, Val};
use std::panic::Location;

macro_rules! reduce_fns {
    ($tiled:ident, $full:ident, $op:expr, $what:literal, $placement:literal) => {
        #[doc = concat!("Quadrants `", stringify!($tiled), "(value, log2_size)`: the ", $what,
                            " of `value` over each tile of `2^log2_size` lanes; ", $placement,
                            "\n\nMIR `subgroup.reduce` with `tile(log2_size)` (butterfly order); cost on a shuffle \
            back end: `log2_size` shuffles and ops.\n\nErrors: a tile wider than the subgroup; a dtype \
            other than i32 u32 i64 u64 f32 f64.")]
        #[track_caller]
        pub fn $tiled(b: &mut KernelBuilder<'_>, value: Val, log2_size: u32) -> Result<Val, BuildError> {
            let loc = Location::caller();
            reduce_impl(b, loc, concat!("subgroup::", stringify!($tiled)), value, $op, Some(log2_size)).map_err(at(loc))
        }

        #[doc = concat!("Quadrants `", stringify!($full), "(value)`: [`", stringify!($tiled),
                            "`] over the whole subgroup (MIR `subgroup.reduce` without a tile); ", $placement,
                            "\n\nErrors: a dtype other than i32 u32 i64 u64 f32 f64.")]
        #[track_caller]
        pub fn $full(b: &mut KernelBuilder<'_>, value: Val) -> Result<Val, BuildError> {
            let loc = Location::caller();
            reduce_impl(b, loc, concat!("subgroup::", stringify!($full)), value, $op, None).map_err(at(loc))
        }
    };
}

reduce_fns!(
    reduce_add_tiled,
    reduce_add,
    Op::ADD,
    "sum",
    "the result is defined at tile lane 0 (qd gives every lane of the tile the same value)."
);
reduce_fns!(
    reduce_min_tiled,
    reduce_min,
    Op::MIN,
    "minimum",
    "the result is defined at tile lane 0 (qd gives every lane of the tile the same value)."
);
reduce_fns!(
    reduce_max_tiled,
    reduce_max,
    Op::MAX,
    "maximum",
    "the result is defined at tile lane 0 (qd gives every lane of the tile the same value)."
);
reduce_fns!(
    reduce_all_add_tiled,
    reduce_all_add,
    Op::ADD,
    "sum",
    "every lane of the tile receives it (bit-identical across the tile)."
);
reduce_fns!(reduce_all_min_tiled, reduce_all_min, Op::MIN, "minimum", "every lane of the tile receives it.");
reduce_fns!(reduce_all_max_tiled, reduce_all_max, Op::MAX, "maximum", "every lane of the tile receives it.");
