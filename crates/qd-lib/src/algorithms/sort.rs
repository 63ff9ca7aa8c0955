//! The device-wide radix sort (Quadrants `qd.algorithms.sort`, docs/algorithms.md §6): a
//! stable ascending LSB radix sort of `keys` (and `values`) in place, 8 bits per pass.
//!
//! This module checks the arguments, adds the program checks, picks the strategy and lays out
//! the passes; the phases live in [`super::chunked`] (the CPU form), [`super::sort_multi`] (Quadrants' multi-launch form, every
//! target), [`super::sort_onesweep`] (single pass per digit with decoupled look-back, targets
//! with forward progress), [`super::sort_keys`] (dtypes, twiddle, moves, the copy phase) and
//! [`super::sort_rank`] (the block rank).

use super::args::{dtype_in, need_data, need_distinct, need_len};
use super::common::{single_pass, Call};
use super::sort_keys::{copy_phase, Dir, KeyType, Payload, KEY_TYPES};
use super::{chunked, sort_multi, sort_onesweep, sort_rank, sort_scratch_slots, Capacity, Options, RADIX_BITS};
use crate::common::{at, err, Loc};
use qd_frontend::{BuildError, ErrorKind, ProgramArg, ProgramBuilder, ScalarType};
use std::panic::Location;

/// The value dtypes: every scalar type a buffer can hold.
const VALUE_TYPES: &[ScalarType] = &[
    ScalarType::Bool,
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
];

/// Stable ascending radix sort of `keys[0:n]` in place, carrying `values[0:n]` along — Quadrants
/// `qd.algorithms.sort(keys, tmp_keys, values, tmp_values, scratch, n, key_dtype, has_values,
/// end_bit, log256_max_n)`.
///
/// * `keys`, `tmp_keys`: buffers of one key dtype — `u32 i32 f32` (32-bit) or `u64 i64 f64`
///   (64-bit) — each holding at least `max_n` elements; `tmp_keys` is the ping-pong buffer
///   (its contents afterwards are unspecified).
/// * `values`: `Some((values, tmp_values))`, buffers of any one scalar dtype (independent of the
///   key dtype), or `None` to sort keys only (Quadrants passes the keys twice with
///   `has_values=False`).
/// * `scratch`: a `u32` buffer of at least
///   [`sort_scratch_slots(max_n, Some(D))`](super::sort_scratch_slots) elements.
/// * `n`: a one-element `i32` buffer with the live count (`0 <= n <= max_n`).
/// * `end_bit`: the number of low key bits sorted on, a multiple of 8 in `8..=` the key width
///   (32 or 64); `end_bit / 8` passes. Quadrants requires an even pass count (an odd one leaves
///   the result in `tmp_*`); here an odd count ends with a copy phase `tmp → keys`.
///
/// Order: the keys' sortable bits (Quadrants' twiddle): unsigned as they are, signed with the
/// sign bit flipped, floats with all bits flipped when the sign is set and the sign bit flipped
/// otherwise — so `-0.0` sorts before `+0.0`, NaNs with the sign set before `-inf` and those
/// without after `+inf`. With `end_bit` below the width only the low `end_bit` bits of the
/// twiddled keys count (for signed keys the sign flip then plays no part: `-1_i64` with
/// `end_bit = 8` sorts by its low byte 0xFF). Equal keys keep their order (stable).
///
/// Program checks (made by the runtime before the first launch): the buffer lengths above
/// (`tmp_*` and `values` also `max_n`), `tmp_keys`/`keys`, `tmp_values`/`values` and every other
/// pair of same-typed buffers of the call distinct (the same parameter twice is a
/// [`BuildError`]); a live `n` outside `0..=max_n` sets the call's status bit and nothing is
/// written. Errors ([`BuildError`] at the caller's line): a key dtype outside the six, buffers of
/// mismatched dtypes, `scratch` not `u32`, a bad `end_bit`, a subgroup width below 2, a forced
/// [`Strategy::SinglePass`](super::Strategy::SinglePass) that the target or the scratch cannot
/// take.
///
/// Strategies and launches (`P = end_bit / 8`, `+1` for the copy phase when `P` is odd):
/// multi-launch `P * (2D + 1)`; onesweep `3 + P`; chunked (the CPU form, `Auto` on CPU targets)
/// `3P`. See `docs/algorithms.md` (§4 strategies, §6 order).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn sort(
    pb: &mut ProgramBuilder,
    opts: &Options,
    keys: ProgramArg,
    tmp_keys: ProgramArg,
    values: Option<(ProgramArg, ProgramArg)>,
    scratch: ProgramArg,
    n: ProgramArg,
    end_bit: u32,
    cap: Capacity,
) -> Result<(), BuildError> {
    let loc = Location::caller();
    sort_impl(pb, loc, opts, keys, tmp_keys, values, scratch, n, end_bit, cap)
}

#[allow(clippy::too_many_arguments)]
fn sort_impl(
    pb: &mut ProgramBuilder,
    loc: Loc,
    opts: &Options,
    keys: ProgramArg,
    tmp_keys: ProgramArg,
    values: Option<(ProgramArg, ProgramArg)>,
    scratch: ProgramArg,
    n: ProgramArg,
    end_bit: u32,
    cap: Capacity,
) -> Result<(), BuildError> {
    let algo = "sort";
    let kelem = dtype_in(loc, algo, "keys", keys, KEY_TYPES)?;
    let kt = KeyType::of(loc, kelem)?;
    dtype_in(loc, algo, "tmp_keys", tmp_keys, &[kelem])?;
    let velem = match values {
        Some((v, tv)) => {
            let e = dtype_in(loc, algo, "values", v, VALUE_TYPES)?;
            dtype_in(loc, algo, "tmp_values", tv, &[e])?;
            Some(e)
        }
        None => None,
    };
    dtype_in(loc, algo, "scratch", scratch, &[ScalarType::U32])?;
    if end_bit == 0 || !end_bit.is_multiple_of(RADIX_BITS) || end_bit > kt.bits() {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "sort: end_bit {end_bit} must be a multiple of {RADIX_BITS} in {RADIX_BITS}..={} (the {} key width)",
                kt.bits(),
                kelem
            ),
        ));
    }
    sort_rank::check_width(loc, opts.target.subgroup_width)?;
    let call = Call::new(pb, loc, algo, opts, n, cap)?;
    let d = cap.log256();
    let mut data = vec![keys, tmp_keys];
    let mut roles = vec![(keys, true), (tmp_keys, true)];
    if let Some((v, tv)) = values {
        data.extend([v, tv]);
        roles.extend([(v, true), (tv, true)]);
    }
    need_data(pb, loc, cap, &data)?;
    let slots = sort_scratch_slots(cap.max_n(), Some(d)).map_err(at(loc))?;
    need_len(pb, loc, scratch, slots, &format!("sort_scratch_slots({}, {d})", cap.max_n()))?;
    roles.extend([(scratch, true), (n, false)]);
    need_distinct(pb, loc, &roles)?;

    let passes = end_bit / RADIX_BITS;
    let payload = Payload { kt, values: velem };
    // Capacity 0 has no histogram room in the scratch (its formula gives 1 slot).
    let chunk = chunked::pick(loc, algo, opts, cap.max_n() > 0, "a capacity of 0 keeps the GPU forms")?;
    let fit = sort_onesweep::fits(cap, passes);
    let single = !chunk && single_pass(loc, algo, opts, fit.ok, &fit.need)?;
    // Pass p reads keys (even p) or tmp_keys (odd p) and writes the other.
    let dirs: Vec<Dir> = (0..passes)
        .map(|p| {
            let fwd = p % 2 == 0;
            let (src, dst) = if fwd { (keys, tmp_keys) } else { (tmp_keys, keys) };
            let values = values.map(|(v, tv)| if fwd { (v, tv) } else { (tv, v) });
            Dir { src, dst, values }
        })
        .collect();
    (|| {
        if chunk {
            chunked::sort(pb, &call, payload, &dirs, scratch)?;
        } else if single {
            sort_onesweep::emit(pb, opts, &call, payload, &dirs, scratch)?;
        } else {
            sort_multi::emit(pb, opts, &call, payload, &dirs, scratch)?;
        }
        if passes % 2 == 1 {
            let back = Dir { src: tmp_keys, dst: keys, values: values.map(|(v, tv)| (tv, v)) };
            copy_phase(pb, opts, &call, payload, back)?;
        }
        Ok(())
    })()
    .map_err(at(loc))
}

#[cfg(test)]
mod tests {
    use super::super::{DeviceClass, Strategy, Target};
    use super::*;
    use qd_mir::interp::{ArgValue, Buffer};
    use qd_mir::verify::verify_module;
    use qd_mir::Module;

    fn build(
        w: u32,
        strategy: Strategy,
        kt: ScalarType,
        vt: Option<ScalarType>,
        max_n: u64,
    ) -> Result<Module, BuildError> {
        let opts = Options::new(Target { subgroup_width: w, forward_progress: true, class: DeviceClass::Gpu })
            .with_strategy(strategy);
        let mut pb = ProgramBuilder::new("s");
        let keys = pb.buffer("keys", kt);
        let tmp = pb.buffer("tmp", kt);
        let values = vt.map(|v| (pb.buffer("values", v), pb.buffer("tmp_values", v)));
        let scratch = pb.buffer("scratch", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        sort(&mut pb, &opts, keys, tmp, values, scratch, n, kt.bits(), Capacity::new(max_n)?)?;
        pb.finish()
    }

    /// Every width from 2 to 64, both strategies, 32- and 64-bit keys, with and without values:
    /// the kernels build and the module verifies.
    #[test]
    fn builds_at_every_width() -> Result<(), BuildError> {
        for w in [2u32, 4, 8, 16, 32, 64] {
            for strategy in [Strategy::MultiLaunch, Strategy::SinglePass] {
                for (kt, vt) in [(ScalarType::U32, None), (ScalarType::F64, Some(ScalarType::I64))] {
                    let m = build(w, strategy, kt, vt, 5000)?;
                    if let Err(e) = verify_module(&m) {
                        panic!("w{w} {strategy:?} {kt}: {e}");
                    }
                }
            }
        }
        Ok(())
    }

    /// Widths outside the suite's matrix (2 and 4) on the interpreter, both strategies: stable
    /// and sorted like a host stable sort of the twiddled keys.
    #[test]
    fn sorts_at_narrow_widths() -> Result<(), BuildError> {
        let n = 3000usize;
        let keys: Vec<i32> = (0..n as i64).map(|i| ((i * 7919) % 201 - 100) as i32).collect();
        let mut want: Vec<usize> = (0..n).collect();
        want.sort_by_key(|&i| keys[i]);
        for w in [2u32, 4] {
            for strategy in [Strategy::MultiLaunch, Strategy::SinglePass] {
                let m = build(w, strategy, ScalarType::I32, Some(ScalarType::U32), n as u64)?;
                let slots = sort_scratch_slots(n as u64, None)? as usize;
                let mut args = vec![
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, keys.iter().map(|&k| u64::from(k as u32)))),
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, vec![0; n])),
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, 0..n as u64)),
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; n])),
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; slots])),
                    ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [n as u64])),
                ];
                let dev = qd_rt::Device::cpu_with_width(w)
                    .map_err(|e| err(Location::caller(), ErrorKind::Config, e.to_string()))?;
                if let Err(e) = dev.run_program(&m, &m.programs[0], &mut args) {
                    panic!("w{w} {strategy:?}: {e}");
                }
                let (ArgValue::Buffer(k), ArgValue::Buffer(v)) = (&args[0], &args[2]) else { panic!("not buffers") };
                let got_k: Vec<i32> = k.to_bits().into_iter().map(|b| b as u32 as i32).collect();
                let got_v: Vec<usize> = v.to_bits().into_iter().map(|b| b as usize).collect();
                assert_eq!(got_v, want, "w{w} {strategy:?}: order");
                assert!(got_k.iter().zip(&want).all(|(&g, &i)| g == keys[i]), "w{w} {strategy:?}: keys");
            }
        }
        Ok(())
    }
}
