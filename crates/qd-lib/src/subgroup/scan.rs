//! Subgroup scans (Quadrants §1.7): `inclusive_{add,mul,min,max,and,or,xor}(_tiled)` and
//! `exclusive_{…}(_tiled)`, per-lane prefixes within each tile of `2^log2_size` lanes.
//!
//! Each is one MIR `subgroup.scan inclusive|exclusive OP tile(L)` (the full forms: the whole
//! subgroup); PTX lowers it as a `shfl.sync.up` Hillis–Steele scan. Combination order (fixed by
//! MIR, the same as Quadrants' tree): for `k = 1, 2, …, T/2`, tile lanes `≥ k` take
//! `shuffle_up(v, k) ⊕ v` (predecessor on the left). Exclusive scans shift the input up one lane
//! first, with the operator's identity in tile lane 0, then run the inclusive scan — also
//! Quadrants' order, so float results match Quadrants bit for bit.
//!
//! Identities (from the dtype): add/or/xor 0, mul 1, and all ones, min `+inf` / `INT_MAX` /
//! `UINT_MAX`, max `-inf` / `INT_MIN` / 0 (unsigned). dtypes: i32 u32 i64 u64 f32 f64; `and`,
//! `or`, `xor` integers only.

use super::generic::{exclusive_impl, inclusive_impl};
use crate::common::at;
use crate::op::Op;
use qd_frontend::{BuildError, KernelBuilder, Val};
use std::panic::Location;

macro_rules! scan_fns {
    ($op:expr, $what:literal, $dtypes:literal,
     $inc_t:ident, $inc:ident, $exc_t:ident, $exc:ident, $identity:literal) => {
        #[doc = concat!("Quadrants `", stringify!($inc_t), "(value, log2_size)`: inclusive ", $what,
                    " scan within each tile of `2^log2_size` lanes — tile lane `k` gets \
            `v[0] ⊕ … ⊕ v[k]` (tile lane order, per lane).\n\nMIR `subgroup.scan inclusive` with \
            `tile(log2_size)`; cost on a shuffle back end: `log2_size` shuffles and ops.\n\n\
            Errors: a tile wider than the subgroup; a dtype other than ", $dtypes, ".")]
        #[track_caller]
        pub fn $inc_t(b: &mut KernelBuilder<'_>, value: Val, log2_size: u32) -> Result<Val, BuildError> {
            let loc = Location::caller();
            inclusive_impl(b, loc, concat!("subgroup::", stringify!($inc_t)), value, $op, Some(log2_size))
                .map_err(at(loc))
        }

        #[doc = concat!("Quadrants `", stringify!($inc), "(value)`: [`", stringify!($inc_t),
                    "`] over the whole subgroup (MIR `subgroup.scan inclusive` without a tile).\n\n\
            Errors: a dtype other than ", $dtypes, ".")]
        #[track_caller]
        pub fn $inc(b: &mut KernelBuilder<'_>, value: Val) -> Result<Val, BuildError> {
            let loc = Location::caller();
            inclusive_impl(b, loc, concat!("subgroup::", stringify!($inc)), value, $op, None).map_err(at(loc))
        }

        #[doc = concat!("Quadrants `", stringify!($exc_t), "(value, log2_size)`: exclusive ", $what,
                    " scan within each tile of `2^log2_size` lanes — tile lane 0 gets the identity (", $identity,
                    "), tile lane `k` gets `v[0] ⊕ … ⊕ v[k-1]` (computed as the inclusive scan of the input \
            shifted up one lane, the identity taking part: Quadrants' order).\n\nMIR `subgroup.scan \
            exclusive` with `tile(log2_size)`; cost: `log2_size + 1` shuffles.\n\nErrors: a tile wider \
            than the subgroup; a dtype other than ", $dtypes, ".")]
        #[track_caller]
        pub fn $exc_t(b: &mut KernelBuilder<'_>, value: Val, log2_size: u32) -> Result<Val, BuildError> {
            let loc = Location::caller();
            exclusive_impl(b, loc, concat!("subgroup::", stringify!($exc_t)), value, $op, None, Some(log2_size))
                .map_err(at(loc))
        }

        #[doc = concat!("Quadrants `", stringify!($exc), "(value)`: [`", stringify!($exc_t),
                    "`] over the whole subgroup (MIR `subgroup.scan exclusive` without a tile).\n\n\
            Errors: a dtype other than ", $dtypes, ".")]
        #[track_caller]
        pub fn $exc(b: &mut KernelBuilder<'_>, value: Val) -> Result<Val, BuildError> {
            let loc = Location::caller();
            exclusive_impl(b, loc, concat!("subgroup::", stringify!($exc)), value, $op, None, None).map_err(at(loc))
        }
    };
}

scan_fns!(
    Op::ADD,
    "sum",
    "i32 u32 i64 u64 f32 f64",
    inclusive_add_tiled,
    inclusive_add,
    exclusive_add_tiled,
    exclusive_add,
    "0"
);
scan_fns!(
    Op::MUL,
    "product",
    "i32 u32 i64 u64 f32 f64",
    inclusive_mul_tiled,
    inclusive_mul,
    exclusive_mul_tiled,
    exclusive_mul,
    "1"
);
scan_fns!(
    Op::MIN,
    "minimum (floats: minNum, `-0 < +0`)",
    "i32 u32 i64 u64 f32 f64",
    inclusive_min_tiled,
    inclusive_min,
    exclusive_min_tiled,
    exclusive_min,
    "`+inf`, `INT_MAX` or `UINT_MAX`"
);
scan_fns!(
    Op::MAX,
    "maximum (floats: maxNum, `-0 < +0`)",
    "i32 u32 i64 u64 f32 f64",
    inclusive_max_tiled,
    inclusive_max,
    exclusive_max_tiled,
    exclusive_max,
    "`-inf`, `INT_MIN` or 0 for unsigned"
);
scan_fns!(
    Op::AND,
    "bitwise-and",
    "i32 u32 i64 u64 (integers only)",
    inclusive_and_tiled,
    inclusive_and,
    exclusive_and_tiled,
    exclusive_and,
    "all bits set"
);
scan_fns!(
    Op::OR,
    "bitwise-or",
    "i32 u32 i64 u64 (integers only)",
    inclusive_or_tiled,
    inclusive_or,
    exclusive_or_tiled,
    exclusive_or,
    "0"
);
scan_fns!(
    Op::XOR,
    "bitwise-xor",
    "i32 u32 i64 u64 (integers only)",
    inclusive_xor_tiled,
    inclusive_xor,
    exclusive_xor_tiled,
    exclusive_xor,
    "0"
);
