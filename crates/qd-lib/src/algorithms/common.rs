//! What every phase kernel of every algorithm shares: the per-call plumbing (the live count `n`,
//! the capacity, the status bit of the call) passed as the first four kernel parameters, the
//! live-count prologue that turns an out-of-range `n` into a status bit and an early return, the
//! grid-stride loop over 256-element tiles, and the buffer-type checks of the public functions.
//!
//! Kernel names encode every build-time parameter (algorithm, phase, dtype, operator, width);
//! everything particular to one call (offsets, `max_n`, the status mask) is a launch constant, so
//! two calls in one program share kernels and a program's text is independent of `max_n`.

use super::{Capacity, Options, Strategy, BLOCK_DIM};
use crate::common::{at, err, Loc};
use qd_frontend::{
    AtomicOp, Buf, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder,
    ScalarType, Scope, Type, Val,
};
use qd_mir::AddrSpace;

/// One algorithm call's plumbing: its live-count buffer, capacity and status bit.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Call {
    /// The live count `n`: a one-element `ptr<global, i32>` buffer.
    pub n: ProgramArg,
    /// The program's status word.
    pub status: ProgramArg,
    /// This call's status bit.
    pub mask: u32,
    /// The capacity.
    pub cap: Capacity,
}

impl Call {
    /// Registers a call of `algo`: `n` must be an `i32` buffer (checked to have an element),
    /// the target width must divide [`BLOCK_DIM`], and a status bit is reserved for an
    /// out-of-range live count.
    pub(crate) fn new(
        pb: &mut ProgramBuilder,
        loc: Loc,
        algo: &str,
        opts: &Options,
        n: ProgramArg,
        cap: Capacity,
    ) -> Result<Call, BuildError> {
        buffer_elem(loc, algo, "n", n, Some(ScalarType::I32))?;
        let w = opts.target.subgroup_width;
        if !w.is_power_of_two() || w > 64 || !BLOCK_DIM.is_multiple_of(w) {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{algo}: subgroup width {w} must be a power of two up to 64 dividing {BLOCK_DIM}"),
            ));
        }
        let msg = format!(
            "{algo}: the live count n is outside 0..={}, the capacity the program was built for; nothing was written",
            cap.max_n()
        );
        let (status, mask) = pb.status_bit(&msg).map_err(at(loc))?;
        pb.check_len(n, 1, "the live count n").map_err(at(loc))?;
        Ok(Call { n, status, mask, cap })
    }

    /// The first four launch arguments of every phase kernel (see [`phase_kernel`]).
    pub(crate) fn args(&self) -> [ProgramArg; 4] {
        [self.n, ProgramArg::i32(self.cap.max_n() as i32), self.status, ProgramArg::u32(self.mask)]
    }
}

/// The first four parameters of a phase kernel.
#[derive(Copy, Clone, Debug)]
pub(crate) struct PhaseParams {
    /// `%n: ptr<global, i32>`.
    pub n: Buf,
    /// `%max_n: i32`.
    pub max_n: Val,
    /// `%status: ptr<global, u32>`.
    pub status: Buf,
    /// `%mask: u32`.
    pub mask: Val,
}

/// Starts a phase kernel named `name`: block [`BLOCK_DIM`], the target's subgroup width, a
/// saturating grid (phases loop grid-stride; change it with `grid_fixed` for one-block
/// phases), and the four parameters [`Call::args`] passes.
pub(crate) fn phase_kernel<'c>(
    ctx: &'c mut FunctionBuilderContext,
    name: &str,
    opts: &Options,
) -> Result<(KernelBuilder<'c>, PhaseParams), BuildError> {
    let (mut k, p) = shaped_phase_kernel(ctx, name, BLOCK_DIM, opts.target.subgroup_width)?;
    k.grid_saturating();
    Ok((k, p))
}

/// Starts a phase kernel of `block` threads at subgroup width `width` with the four parameters
/// [`Call::args`] passes (the grid is the caller's to set).
pub(crate) fn shaped_phase_kernel<'c>(
    ctx: &'c mut FunctionBuilderContext,
    name: &str,
    block: u32,
    width: u32,
) -> Result<(KernelBuilder<'c>, PhaseParams), BuildError> {
    let mut k = KernelBuilder::new(ctx, name);
    k.set_block_dim(block)?;
    k.set_subgroup_size(width)?;
    let n = k.buffer("n", ScalarType::I32);
    let max_n = k.scalar("max_n", ScalarType::I32);
    let status = k.buffer("status", ScalarType::U32);
    let mask = k.scalar("mask", ScalarType::U32);
    Ok((k, PhaseParams { n, max_n, status, mask }))
}

/// Reads the live count (made subgroup-uniform) and checks it against the capacity: when `n < 0` or `n > max_n`,
/// thread 0 of block 0 sets the call's status bit and every thread returns (the condition is
/// uniform, so no barrier is left half-reached). Returns `n` as a `u32`.
pub(crate) fn live_count(k: &mut KernelBuilder<'_>, p: &PhaseParams) -> Result<Val, BuildError> {
    let zero = k.const_i32(0)?;
    let z = k.const_u32(0)?;
    let loaded = k.load(p.n, z)?;
    // Every thread loads the same word (no phase writes `n`); the broadcast says so to the
    // uniformity analysis, so barriers under `n`-dependent loops verify (AMDGCN: a readfirstlane).
    let n = k.broadcast(loaded, z)?;
    let neg = k.lt(n, zero)?;
    let over = k.gt(n, p.max_n)?;
    let bad = k.or(neg, over)?;
    k.if_then(bad, |k| {
        let t = k.thread_id(Dim::X)?;
        let b = k.block_id(Dim::X)?;
        let tb = k.or(t, b)?;
        let first = k.eq(tb, z)?;
        k.if_then(first, |k| {
            k.atomic_rmw(AtomicOp::Or, Scope::Device, p.status, z, p.mask)?;
            Ok(())
        })?;
        k.return_()
    })?;
    k.cast(n, ScalarType::U32)
}

/// `for tile in (block_id.x .. num_tiles).step_by(grid_dim.x)`, with `block.sync()` at the start
/// of every iteration (Quadrants does the same: the block collectives of one iteration reuse the
/// shared scratch of the previous one). `num_tiles` is a `u32` uniform over the block.
pub(crate) fn for_tiles<F>(k: &mut KernelBuilder<'_>, num_tiles: Val, body: F) -> Result<(), BuildError>
where
    F: FnOnce(&mut KernelBuilder<'_>, Val) -> Result<(), BuildError>,
{
    let start = k.block_id(Dim::X)?;
    let step = k.grid_dim(Dim::X)?;
    k.for_range(start, num_tiles, Some(step), |k, tile| {
        crate::block::sync(k)?;
        body(k, tile)
    })
}

/// Resolves the strategy of one call of `algo`: `true` for the single-pass form. `fits` tells
/// whether the single-pass state fits in the scratch the Quadrants formula gives for the
/// capacity (`need` describes what it would need, for the error). Auto picks single-pass when
/// the target has forward progress and it fits; forcing it otherwise is an error.
pub(crate) fn single_pass(loc: Loc, algo: &str, opts: &Options, fits: bool, need: &str) -> Result<bool, BuildError> {
    match opts.strategy {
        Strategy::MultiLaunch => Ok(false),
        Strategy::Auto => Ok(opts.target.forward_progress && fits),
        Strategy::SinglePass if !opts.target.forward_progress => Err(err(
            loc,
            ErrorKind::Config,
            format!(
                "{algo}: Strategy::SinglePass needs a target with forward progress between blocks \
                 (Target::forward_progress); use Strategy::MultiLaunch or Auto"
            ),
        )),
        Strategy::SinglePass if !fits => Err(err(
            loc,
            ErrorKind::Config,
            format!("{algo}: Strategy::SinglePass does not fit the scratch for this capacity ({need})"),
        )),
        Strategy::SinglePass => Ok(true),
        Strategy::Chunked => {
            Err(err(loc, ErrorKind::Config, format!("{algo}: Strategy::Chunked is not offered by {algo}")))
        }
    }
}

/// `ceil(x / 256)` for a `u32` value.
pub(crate) fn tiles_of(k: &mut KernelBuilder<'_>, x: Val) -> Result<Val, BuildError> {
    let c = k.const_u32(BLOCK_DIM - 1)?;
    let s = k.add(x, c)?;
    let d = k.const_u32(BLOCK_DIM)?;
    k.div(s, d)
}

/// Checks that `a` is a buffer parameter (of element `elem` when given) and returns its element
/// type; the error names the algorithm and the argument.
pub(crate) fn buffer_elem(
    loc: Loc,
    algo: &str,
    what: &str,
    a: ProgramArg,
    elem: Option<ScalarType>,
) -> Result<ScalarType, BuildError> {
    match (a.ty(), elem) {
        (Type::Ptr(AddrSpace::Global, e), Some(want)) if e == want => Ok(e),
        (Type::Ptr(AddrSpace::Global, e), None) => Ok(e),
        (t, Some(want)) => Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("{algo}: `{what}` must be a buffer of {want} (ptr<global, {want}>), got {t}"),
        )),
        (t, None) => Err(err(loc, ErrorKind::TypeMismatch, format!("{algo}: `{what}` must be a buffer, got {t}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Capacity, DeviceClass, Options, Target};
    use super::*;
    use qd_mir::verify::verify_module;

    /// A phase with the prologue and a tile loop holding a block collective verifies: the
    /// live count loaded from memory is uniform enough for barriers inside the loop.
    #[test]
    fn prologue_and_tile_loop_verify() -> Result<(), BuildError> {
        let opts = Options::new(Target { subgroup_width: 32, forward_progress: false, class: DeviceClass::Gpu });
        let mut pb = ProgramBuilder::new("p");
        let arr = pb.buffer("arr", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        let call = Call::new(&mut pb, std::panic::Location::caller(), "t", &opts, n, Capacity::new(1000)?)?;
        let mut ctx = FunctionBuilderContext::new();
        let (mut k, p) = phase_kernel(&mut ctx, "qd_t_phase", &opts)?;
        let data = k.buffer("arr", ScalarType::U32);
        let live = live_count(&mut k, &p)?;
        let nt = tiles_of(&mut k, live)?;
        for_tiles(&mut k, nt, |k, tile| {
            let t = k.thread_id(Dim::X)?;
            let base = k.const_u32(BLOCK_DIM)?;
            let i0 = k.mul(tile, base)?;
            let i = k.add(i0, t)?;
            let v = k.load(data, i)?;
            let s = crate::block::reduce_add(k, v, BLOCK_DIM)?;
            k.store(data, i, s)
        })?;
        let f = k.finish()?;
        let [a0, a1, a2, a3] = call.args();
        pb.launch(&f, &[a0, a1, a2, a3, arr])?;
        let m = pb.finish()?;
        if let Err(e) = verify_module(&m) {
            panic!("{e}");
        }
        Ok(())
    }
}
