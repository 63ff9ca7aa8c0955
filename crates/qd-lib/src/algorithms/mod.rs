//! `qd_lib::algorithms`: Quadrants' device-wide algorithms (`qd.algorithms`) — reduce, exclusive
//! scan, select, radix sort, reduce-by-key — as phases appended to a
//! [`ProgramBuilder`](qd_frontend::ProgramBuilder).
//!
//! Every algorithm takes a device-resident live count `n` (a one-element `i32` buffer, read by
//! the kernels) and a build-time [`Capacity`] (`max_n` and Quadrants' `log256_max_n`): one
//! compiled program replays for any `0 <= n <= max_n` without recompiling. What Quadrants leaves
//! unchecked is checked here: the program carries length checks on every buffer (scratch against
//! the `*_scratch_slots` formulas, data against `max_n`) and distinctness checks (`out` is not
//! `arr`, `tmp_keys` is not `keys`), which the runtime makes before the first launch; a live `n`
//! outside `0..=max_n` sets a bit of the program's status word, every phase then does nothing,
//! and the runtime reports the bit's message after the program.
//!
//! Strategies: the portable multi-launch forms run everywhere; on devices with forward progress
//! between blocks ([`Target::forward_progress`]) single-pass forms (decoupled look-back scan,
//! onesweep radix sort) are chosen by [`Strategy::Auto`] when their state fits the scratch the
//! Quadrants formula gives for the capacity, and can be forced. The single-pass scan (tiles of
//! 1024 elements, its state in the scratch) is used under `Auto` only where its result is the
//! multi-launch result bit for bit (integers; float min and max); select and reduce-by-key
//! reuse it. The guide, with the tables of launches, scratch and strategies per device and a
//! runnable example per algorithm: `docs/algorithms.md`.

mod args;
pub mod chunked;
mod common;
mod lookback;
mod slots;
pub(crate) mod staircase;

mod reduce;
mod reduce_by_key;
mod scan;
mod select;
#[cfg(test)]
mod tests;

mod sort;
mod sort_keys;
mod sort_multi;
mod sort_onesweep;
mod sort_rank;
pub use sort::sort;

pub use args::scratch_type;
pub use reduce::{reduce_add, reduce_max, reduce_min};
pub use reduce_by_key::reduce_by_key_add;
pub use scan::{exclusive_scan_add, exclusive_scan_max, exclusive_scan_min};
pub use select::{select, Elems};
pub use slots::{
    exclusive_scan_scratch_slots, reduce_by_key_scratch_slots, reduce_scratch_slots, select_scratch_slots,
    sort_scratch_slots,
};

/// The examples of `docs/algorithms.md`, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/algorithms.md")]
pub struct AlgorithmsMdExamples;

use crate::common::{err, Loc};
use qd_frontend::{BuildError, ErrorKind};
use std::panic::Location;

/// `BLOCK_DIM` of every phase (a multiple of 32 and 64), as in Quadrants.
pub const BLOCK_DIM: u32 = 256;
/// Radix sort digit width in bits (`RADIX_BITS`).
pub const RADIX_BITS: u32 = 8;
/// The largest `log256_max_n` (Quadrants' `_validate_log256_max_n`).
pub const MAX_LOG256: u32 = 4;

/// What the kernels are built for: the device's subgroup width (every GPU-form phase kernel is
/// built with [`KernelBuilder::set_subgroup_size`](qd_frontend::KernelBuilder::set_subgroup_size)
/// at this width, so a device of another width refuses the program), whether blocks of one launch
/// can wait on blocks that started earlier (`qd_rt::DeviceInfo::forward_progress`), and the kind
/// of machine, which picks the shapes [`Strategy::Auto`] builds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The subgroup width (a power of two that divides [`BLOCK_DIM`]).
    pub subgroup_width: u32,
    /// True when single-pass strategies may be used.
    pub forward_progress: bool,
    /// A GPU or a host CPU (`qd_rt::DeviceInfo::is_host`).
    pub class: DeviceClass,
}

/// The kind of machine a program is built for: what [`Strategy::Auto`] tunes its shapes to, as
/// CUB tunes per architecture.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceClass {
    /// A GPU (or its simulator): 256-thread blocks, cross-lane ranks, many blocks in flight.
    #[default]
    Gpu,
    /// A host CPU (the `cpu` and `interp` devices, which run a kernel at the width it declares):
    /// [`Strategy::Chunked`] forms where they give the GPU forms' exact results.
    Cpu,
}

impl DeviceClass {
    /// [`DeviceClass::Cpu`] for a host device (`qd_rt::DeviceInfo::is_host`), else
    /// [`DeviceClass::Gpu`].
    pub fn of_host(host: bool) -> DeviceClass {
        if host {
            DeviceClass::Cpu
        } else {
            DeviceClass::Gpu
        }
    }
}

/// Which form of an algorithm to build.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Single-pass where the target has forward progress and its state fits the scratch the
    /// Quadrants formula gives for the capacity; multi-launch otherwise.
    #[default]
    Auto,
    /// The portable multi-launch form (Quadrants' phases), on any target.
    MultiLaunch,
    /// The single-pass form (decoupled look-back scan, onesweep sort): an error on a target
    /// without forward progress, or when its state does not fit the scratch.
    SinglePass,
    /// The CPU form: [`CHUNKS`](chunked::CHUNKS) one-thread blocks at subgroup width 1, each a
    /// serial loop over one contiguous chunk of the data (reduce, scan and sort; see
    /// `docs/algorithms.md`). An error on a [`DeviceClass::Gpu`] target (a GPU would run one
    /// lane of 64), and for float reduce and scan (their sums would round in chunk order).
    Chunked,
}

/// How to build: the target and the strategy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The target.
    pub target: Target,
    /// The strategy.
    pub strategy: Strategy,
}

impl Options {
    /// [`Strategy::Auto`] for `target`.
    pub fn new(target: Target) -> Options {
        Options { target, strategy: Strategy::Auto }
    }

    /// The same options with another strategy.
    pub fn with_strategy(self, strategy: Strategy) -> Options {
        Options { strategy, ..self }
    }
}

/// The build-time capacity of an algorithm: the largest live count `max_n` the buffers are
/// sized for, and Quadrants' `log256_max_n` (`D`), which fixes the launch topology. `max_n` is at
/// most `min(256^D, i32::MAX)` (the live count is an `i32`, as Quadrants' `count[0]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    max_n: u64,
    log256: u32,
}

impl Capacity {
    /// The natural depth for `max_n`: the least `D >= 1` with `256^D >= max_n`.
    #[track_caller]
    pub fn new(max_n: u64) -> Result<Capacity, BuildError> {
        let loc = Location::caller();
        Capacity::checked(loc, max_n, natural_depth(max_n))
    }

    /// An explicit `log256_max_n` (1..=4; over-specifying is safe, as in Quadrants).
    #[track_caller]
    pub fn with_log256(max_n: u64, log256_max_n: u32) -> Result<Capacity, BuildError> {
        Capacity::checked(Location::caller(), max_n, log256_max_n)
    }

    fn checked(loc: Loc, max_n: u64, d: u32) -> Result<Capacity, BuildError> {
        if d == 0 || d > MAX_LOG256 {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("log256_max_n={d} is outside 1..={MAX_LOG256} (Quadrants allows at most {MAX_LOG256})"),
            ));
        }
        if max_n > i32::MAX as u64 {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("max_n={max_n} is above i32::MAX: the live count is an i32 (Quadrants' count[0])"),
            ));
        }
        let cap = 256u64.pow(d);
        if max_n > cap {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("max_n={max_n} is above 256^{d} = {cap}, what log256_max_n={d} can hold"),
            ));
        }
        Ok(Capacity { max_n, log256: d })
    }

    /// The largest live count.
    pub fn max_n(self) -> u64 {
        self.max_n
    }

    /// Quadrants' `log256_max_n`.
    pub fn log256(self) -> u32 {
        self.log256
    }
}

/// The least `D >= 1` with `256^D >= n` (4 for anything above `256^3`).
pub(crate) fn natural_depth(n: u64) -> u32 {
    let mut d = 1;
    while d < MAX_LOG256 && 256u64.pow(d) < n {
        d += 1;
    }
    d
}
