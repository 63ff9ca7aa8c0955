//! The keys and values of the radix sort in the phase kernels: the key dtypes and their
//! sortable-bits twiddle (Quadrants' `_twiddle_forward`), digit extraction, the data buffers a
//! moving phase declares, the element moves, and the kernel names.
//!
//! Twiddle (forward; keys keep their own bits in memory, the twiddle is applied when a phase
//! extracts a digit, so no inverse pass is needed): unsigned keys as they are; signed keys with
//! the sign bit flipped; floats with every bit flipped when the sign is set, else the sign bit
//! flipped. Ascending order of the twiddled bits is then: `-NaN` (sign set) < `-inf` < … < `-0.0`
//! < `+0.0` < … < `+inf` < `+NaN`, exactly Quadrants' order.

use super::common::{live_count, phase_kernel, tiles_of, Call};
use super::staircase::finish_phase;
use super::{Options, BLOCK_DIM, RADIX_BITS};
use crate::common::{err, Loc};
use qd_frontend::{
    Buf, BuildError, Dim, ErrorKind, FunctionBuilderContext, KernelBuilder, ProgramArg, ProgramBuilder, ScalarType, Val,
};

/// The key dtypes of the sort (Quadrants: `{u32, i32, f32, u64, i64, f64}`).
pub(crate) const KEY_TYPES: &[ScalarType] =
    &[ScalarType::U32, ScalarType::I32, ScalarType::F32, ScalarType::U64, ScalarType::I64, ScalarType::F64];

/// A key dtype: its element type and the unsigned word of its bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyType {
    /// The buffer's element type.
    pub elem: ScalarType,
    /// `u32` or `u64`.
    pub word: ScalarType,
}

impl KeyType {
    /// The key type of buffer element `elem`, or the error naming the supported set.
    pub(crate) fn of(loc: Loc, elem: ScalarType) -> Result<KeyType, BuildError> {
        let word = match elem {
            ScalarType::U32 | ScalarType::I32 | ScalarType::F32 => ScalarType::U32,
            ScalarType::U64 | ScalarType::I64 | ScalarType::F64 => ScalarType::U64,
            ScalarType::Bool => {
                return Err(err(
                    loc,
                    ErrorKind::TypeMismatch,
                    "sort: key dtype bool is not supported (keys: u32, i32, f32, u64, i64, f64)",
                ))
            }
        };
        Ok(KeyType { elem, word })
    }

    /// The key width in bits (32 or 64).
    pub(crate) fn bits(self) -> u32 {
        self.word.bits()
    }

    /// The largest number of 8-bit passes (4 or 8).
    pub(crate) fn max_passes(self) -> u32 {
        self.bits() / RADIX_BITS
    }

    fn sign(self) -> u64 {
        1u64 << (self.bits() - 1)
    }

    fn ones(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        }
    }
}

/// The sortable (twiddled) bits of a loaded key, as the key's unsigned word.
pub(crate) fn sortable(k: &mut KernelBuilder<'_>, kt: KeyType, key: Val) -> Result<Val, BuildError> {
    let bits = if kt.elem == kt.word { key } else { k.bitcast(key, kt.word)? };
    match kt.elem {
        ScalarType::U32 | ScalarType::U64 | ScalarType::Bool => Ok(bits),
        ScalarType::I32 | ScalarType::I64 => {
            let s = k.const_scalar(kt.word, kt.sign())?;
            k.xor(bits, s)
        }
        ScalarType::F32 | ScalarType::F64 => {
            let s = k.const_scalar(kt.word, kt.sign())?;
            let ones = k.const_scalar(kt.word, kt.ones())?;
            let negative = k.ge(bits, s)?;
            let mask = k.select(negative, ones, s)?;
            k.xor(bits, mask)
        }
    }
}

/// `(bits >> bit_start) & 0xFF` as a `u32` (`bit_start`: a `u32` value below the key width).
pub(crate) fn digit(k: &mut KernelBuilder<'_>, kt: KeyType, bits: Val, bit_start: Val) -> Result<Val, BuildError> {
    let sh = if kt.word == ScalarType::U32 { bit_start } else { k.cast(bit_start, kt.word)? };
    let shifted = k.shr(bits, sh)?;
    let m = k.const_scalar(kt.word, 0xFF)?;
    let d = k.and(shifted, m)?;
    if kt.word == ScalarType::U32 {
        Ok(d)
    } else {
        k.cast(d, ScalarType::U32)
    }
}

/// The digit of the key at `src[idx]` for pass `bit_start`.
pub(crate) fn load_digit(
    k: &mut KernelBuilder<'_>,
    kt: KeyType,
    src: Buf,
    idx: Val,
    bit_start: Val,
) -> Result<(Val, Val), BuildError> {
    let key = k.load(src, idx)?;
    let bits = sortable(k, kt, key)?;
    Ok((key, digit(k, kt, bits, bit_start)?))
}

/// What is sorted: the key type and the value type (keys-only: `None`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Payload {
    /// The keys.
    pub kt: KeyType,
    /// The values' element type.
    pub values: Option<ScalarType>,
}

impl Payload {
    /// `qd_sort_<phase>_<key>[_<value>]_w<W><suffix>`; `with_values` is false for phases that
    /// read keys only.
    pub(crate) fn name(&self, phase: &str, with_values: bool, opts: &Options, suffix: &str) -> String {
        let v = match (with_values, self.values) {
            (true, Some(v)) => format!("_{v}"),
            _ => String::new(),
        };
        format!("qd_sort_{phase}_{}{v}_w{}{suffix}", self.kt.elem, opts.target.subgroup_width)
    }
}

/// The buffers of a moving phase (keys from `src` to `dst`, values alongside).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Moves {
    /// The source keys.
    pub src: Buf,
    /// The destination keys.
    pub dst: Buf,
    /// The source and destination values.
    pub values: Option<(Buf, Buf)>,
}

impl Moves {
    /// Declares `src`, `dst` (and `vsrc`, `vdst`) on the kernel.
    pub(crate) fn declare(k: &mut KernelBuilder<'_>, p: Payload) -> Moves {
        let src = k.buffer("src", p.kt.elem);
        let dst = k.buffer("dst", p.kt.elem);
        let values = p.values.map(|v| (k.buffer("vsrc", v), k.buffer("vdst", v)));
        Moves { src, dst, values }
    }

    /// Stores `key` (loaded from `src[from]`) at `dst[to]` and moves the value alongside.
    pub(crate) fn put(&self, k: &mut KernelBuilder<'_>, key: Val, from: Val, to: Val) -> Result<(), BuildError> {
        k.store(self.dst, to, key)?;
        if let Some((vs, vd)) = self.values {
            let v = k.load(vs, from)?;
            k.store(vd, to, v)?;
        }
        Ok(())
    }
}

/// The launch arguments of [`Moves::declare`]'s buffers for one direction.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Dir {
    /// Keys read.
    pub src: ProgramArg,
    /// Keys written.
    pub dst: ProgramArg,
    /// Values read and written.
    pub values: Option<(ProgramArg, ProgramArg)>,
}

impl Dir {
    /// The arguments in declaration order.
    pub(crate) fn args(&self) -> Vec<ProgramArg> {
        let mut a = vec![self.src, self.dst];
        if let Some((s, d)) = self.values {
            a.push(s);
            a.push(d);
        }
        a
    }
}

/// The copy phase after an odd number of passes (the result is in `tmp_*`): grid-stride
/// `keys[i] = tmp_keys[i]` (and values) for `i < n`. Kernel `qd_sort_copy_<key>[_<value>]_w<W>`.
pub(crate) fn copy_phase(
    pb: &mut ProgramBuilder,
    opts: &Options,
    call: &Call,
    p: Payload,
    dir: Dir,
) -> Result<(), BuildError> {
    let name = p.name("copy", true, opts, "");
    let mut ctx = FunctionBuilderContext::new();
    let (mut k, pp) = phase_kernel(&mut ctx, &name, opts)?;
    let mv = Moves::declare(&mut k, p);
    let n = live_count(&mut k, &pp)?;
    let nt = tiles_of(&mut k, n)?;
    let start = k.block_id(Dim::X)?;
    let step = k.grid_dim(Dim::X)?;
    k.for_range(start, nt, Some(step), |k, tile| {
        let t = k.thread_id(Dim::X)?;
        let bd = k.const_u32(BLOCK_DIM)?;
        let base = k.mul(tile, bd)?;
        let i = k.add(base, t)?;
        let inr = k.lt(i, n)?;
        k.if_then(inr, |k| {
            let key = k.load(mv.src, i)?;
            mv.put(k, key, i, i)
        })
    })?;
    let f = finish_phase(k, opts)?;
    let mut args = call.args().to_vec();
    args.extend(dir.args());
    pb.launch(&f, &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host model of [`sortable`] (the suite checks the device against its own copy).
    fn host(elem: ScalarType, bits: u64) -> u64 {
        let kt = KeyType::of(std::panic::Location::caller(), elem).unwrap_or(KeyType { elem, word: elem });
        match elem {
            ScalarType::I32 | ScalarType::I64 => bits ^ kt.sign(),
            ScalarType::F32 | ScalarType::F64 if bits & kt.sign() != 0 => bits ^ kt.ones(),
            ScalarType::F32 | ScalarType::F64 => bits ^ kt.sign(),
            _ => bits,
        }
    }

    #[test]
    fn twiddle_orders_floats_like_quadrants() {
        let order = [
            f32::from_bits(0xFFC0_0000), // -NaN
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-40,
            2.0,
            f32::INFINITY,
            f32::from_bits(0x7FC0_0000), // +NaN
        ];
        let tw: Vec<u64> = order.iter().map(|x| host(ScalarType::F32, u64::from(x.to_bits()))).collect();
        assert!(tw.windows(2).all(|w| w[0] < w[1]), "{tw:x?}");
        let ints = [i64::MIN, -1, 0, 1, i64::MAX];
        let tw: Vec<u64> = ints.iter().map(|&x| host(ScalarType::I64, x as u64)).collect();
        assert!(tw.windows(2).all(|w| w[0] < w[1]));
        assert!(KeyType::of(std::panic::Location::caller(), ScalarType::Bool).is_err());
    }
}
