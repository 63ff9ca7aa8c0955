//! Per-lane arithmetic of the vector ALU, as pure functions of the source bits.
//!
//! Floating point follows the kernel's default mode as LLVM sets it for compute kernels: IEEE mode
//! on, denormals kept (FLOAT_DENORM_MODE 3), round to nearest even, DX10 clamp. NaN results: an
//! input NaN propagates quieted (the first NaN source wins), a NaN created by the operation is the
//! canonical 0x7FC00000 / 0x7FF8000000000000. `v_min/max_f32/f64` follow the ISA pseudocode for
//! IEEE mode (signalling NaN → quieted NaN, quiet NaN → the other operand, −0 < +0).
//! Transcendentals (`v_rcp/sqrt/rsq/exp/log_f32`, `v_rcp_iflag_f32`, and `v_rcp/rsq/sqrt_f64`)
//! return the correctly rounded value; the hardware is accurate to about 1 ULP, so bit-exact
//! comparisons against hardware must allow that, and code sequences (`qd_isel_amdgcn::seq`) must be correct
//! for any result within the hardware's error, not only for the rounded one.
//! Float → integer conversions saturate and map NaN to 0, as the hardware does.
//!
//! Denormals: every operation keeps f32 and f64 denormal inputs and produces denormal results
//! (FLOAT_DENORM_MODE_32 = FLOAT_DENORM_MODE_16_64 = 3, "no flush"); the simulator does not
//! model the flushing modes, so a kernel descriptor must select mode 3 for both for the
//! simulator's results to be the hardware's (see `sim::KernelSetup` and the loader).
//!
//! The division helpers follow the ISA pseudocode (MI300 / RDNA3 ISA guides):
//! `v_div_scale` (S0 = value to scale, S1 = denominator, S2 = numerator) returns S0, scaled by
//! 2^±64 (f32) / 2^±128 (f64) where the quotient or the reciprocal of the denominator would be
//! subnormal or the quotient would overflow, and sets the lane's VCC bit when the quotient
//! needs post-scaling; `v_div_fmas` is `fma(S0, S1, S2)`, times 2^64 / 2^128 when VCC is set and
//! |S2| ≥ 2 (the denominator was scaled up), times 2^−64 / 2^−128 when VCC is set and |S2| < 2
//! (the numerator was scaled up), rounded once; `v_div_fixup` (S0 = quotient, S1 = denominator,
//! S2 = numerator) produces the IEEE special results (NaN operands quieted, 0/0 and ∞/∞ the
//! default NaN 0xFFC00000 / 0xFFF8000000000000, x/0 and ∞/y infinity, x/∞ and 0/y zero, a
//! quotient far below the smallest subnormal zero, a NaN quotient — the Newton iteration
//! overflowed — infinity) with the sign of S1·S2, and otherwise S0 with that sign.
//! One point of the published pseudocode is read by its evident intent: where 1/denominator and
//! the quotient are both subnormal, the denominator is scaled *down* by 2^64 (2^128) with VCC
//! set, as in the branch for a subnormal reciprocal alone (scaling it up would overflow).

use super::fp;
use super::ops::{CmpTy, Rel, VBin, VTer, VUn};

pub(crate) const QNAN32: u32 = 0x7FC0_0000;
pub(crate) const QNAN64: u64 = 0x7FF8_0000_0000_0000;

fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn d(x: u64) -> f64 {
    f64::from_bits(x)
}

fn is_nan32(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}

fn is_nan64(x: u64) -> bool {
    f64::from_bits(x).is_nan()
}

fn is_snan32(x: u32) -> bool {
    is_nan32(x) && x & 0x0040_0000 == 0
}

fn is_snan64(x: u64) -> bool {
    is_nan64(x) && x & 0x0008_0000_0000_0000 == 0
}

/// The f32 result of an operation on f32 sources (NaN rules of the module doc).
pub(crate) fn fop32(srcs: &[u32], r: impl FnOnce() -> f32) -> u64 {
    if let Some(&n) = srcs.iter().find(|&&s| is_nan32(s)) {
        return u64::from(n | 0x0040_0000);
    }
    let r = r();
    u64::from(if r.is_nan() { QNAN32 } else { r.to_bits() })
}

/// The f64 result of an operation on f64 sources.
pub(crate) fn fop64(srcs: &[u64], r: impl FnOnce() -> f64) -> u64 {
    if let Some(&n) = srcs.iter().find(|&&s| is_nan64(s)) {
        return n | 0x0008_0000_0000_0000;
    }
    let r = r();
    if r.is_nan() {
        QNAN64
    } else {
        r.to_bits()
    }
}

fn min_max32(a: u32, b: u32, max: bool) -> u32 {
    if is_snan32(a) {
        return a | 0x0040_0000;
    }
    if is_snan32(b) {
        return b | 0x0040_0000;
    }
    if is_nan32(a) {
        return b;
    }
    if is_nan32(b) {
        return a;
    }
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x == y {
        // ±0: min prefers −0, max prefers +0.
        let a_neg = a >> 31 == 1;
        return if a_neg != max { a } else { b };
    }
    if (x < y) != max {
        a
    } else {
        b
    }
}

fn min_max64(a: u64, b: u64, max: bool) -> u64 {
    if is_snan64(a) {
        return a | 0x0008_0000_0000_0000;
    }
    if is_snan64(b) {
        return b | 0x0008_0000_0000_0000;
    }
    if is_nan64(a) {
        return b;
    }
    if is_nan64(b) {
        return a;
    }
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    if x == y {
        let a_neg = a >> 63 == 1;
        return if a_neg != max { a } else { b };
    }
    if (x < y) != max {
        a
    } else {
        b
    }
}

fn f64_to_f32_bits(x: u64) -> u32 {
    if is_nan64(x) {
        let sign = (x >> 63) as u32;
        return sign << 31 | QNAN32 | ((x >> 29) as u32 & 0x003F_FFFF);
    }
    (f64::from_bits(x) as f32).to_bits()
}

fn f32_to_f64_bits(x: u32) -> u64 {
    if is_nan32(x) {
        let sign = u64::from(x >> 31);
        return sign << 63 | QNAN64 | (u64::from(x & 0x003F_FFFF) << 29);
    }
    f64::from(f32::from_bits(x)).to_bits()
}

fn sext24(x: u64) -> i64 {
    i64::from(((x as u32) << 8) as i32 >> 8)
}

fn clz32(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}

/// `x` moved `k` ULPs away from zero (toward zero for negative `k`) when it is finite and
/// nonzero and stays so (`SimOptions::trans_ulp`).
pub(crate) fn nudge(x: u64, is64: bool, k: i8) -> u64 {
    let (mag_mask, inf) = if is64 { (!(1u64 << 63), 0x7FF0_0000_0000_0000) } else { (0x7FFF_FFFF, 0x7F80_0000) };
    let (sign, mag) = (x & !mag_mask, x & mag_mask);
    if mag == 0 || mag >= inf {
        return x;
    }
    match mag.checked_add_signed(i64::from(k)) {
        Some(m) if m != 0 && m < inf => sign | m,
        _ => x,
    }
}

/// One-source VALU operations.
pub(crate) fn un(op: VUn, a: u64) -> u64 {
    let a32 = a as u32;
    match op {
        VUn::Mov | VUn::MovB64 => a,
        VUn::Not => u64::from(!a32),
        VUn::Bfrev => u64::from(a32.reverse_bits()),
        VUn::FfbhU => u64::from(clz32(a32)),
        VUn::FfblB => u64::from(if a32 == 0 { u32::MAX } else { a32.trailing_zeros() }),
        VUn::FfbhI => {
            let s = a32 as i32;
            u64::from(if s == 0 || s == -1 { u32::MAX } else { clz32(a32 ^ (s >> 31) as u32) })
        }
        VUn::CvtF32I32 => u64::from((a32 as i32 as f32).to_bits()),
        VUn::CvtF32U32 => u64::from((a32 as f32).to_bits()),
        VUn::CvtU32F32 => u64::from(f(a) as u32),
        VUn::CvtI32F32 => u64::from(f(a) as i32 as u32),
        VUn::CvtF64I32 => f64::from(a32 as i32).to_bits(),
        VUn::CvtF64U32 => f64::from(a32).to_bits(),
        VUn::CvtI32F64 => u64::from(d(a) as i32 as u32),
        VUn::CvtU32F64 => u64::from(d(a) as u32),
        VUn::CvtF32F64 => u64::from(f64_to_f32_bits(a)),
        VUn::CvtF64F32 => f32_to_f64_bits(a32),
        VUn::Rcp => fop32(&[a32], || 1.0 / f(a)),
        VUn::Sqrt => fop32(&[a32], || f(a).sqrt()),
        VUn::Rsq => fop32(&[a32], || (1.0 / f64::from(f(a)).sqrt()) as f32),
        VUn::Exp => fop32(&[a32], || f64::from(f(a)).exp2() as f32),
        VUn::Log => fop32(&[a32], || f64::from(f(a)).log2() as f32),
        VUn::Trunc => fop32(&[a32], || f(a).trunc()),
        VUn::Floor => fop32(&[a32], || f(a).floor()),
        VUn::RcpIflag => fop32(&[a32], || 1.0 / f(a)),
        VUn::RcpF64 => fop64(&[a], || 1.0 / d(a)),
        VUn::SqrtF64 => fop64(&[a], || d(a).sqrt()),
        VUn::RsqF64 => fop64(&[a], || {
            let x = d(a);
            if x > 0.0 && x.is_finite() {
                fp::rsq64(x)
            } else {
                1.0 / x.sqrt()
            }
        }),
        VUn::TruncF64 => fop64(&[a], || d(a).trunc()),
        VUn::FloorF64 => fop64(&[a], || d(a).floor()),
        VUn::RndneF32 => fop32(&[a32], || f(a).round_ties_even()),
        VUn::RndneF64 => fop64(&[a], || d(a).round_ties_even()),
        VUn::FractF32 => fop32(&[a32], || f(a) - f(a).floor()),
        VUn::FractF64 => fop64(&[a], || d(a) - d(a).floor()),
        VUn::FrexpMantF32 => fop32(&[a32], || f32::from_bits(frexp_mant(u64::from(a32), fp::F32) as u32)),
        VUn::FrexpMantF64 => fop64(&[a], || f64::from_bits(frexp_mant(a, fp::F64))),
        VUn::FrexpExpF32 => u64::from(frexp_exp(u64::from(a32), fp::F32) as u32),
        VUn::FrexpExpF64 => u64::from(frexp_exp(a, fp::F64) as u32),
        VUn::CvtF32Ubyte0 => u64::from(((a32 & 0xFF) as f32).to_bits()),
    }
}

/// The significand of a finite nonzero value scaled into [0.5, 1), with the value's sign
/// (`v_frexp_mant`); zeros return themselves, infinities too (NaN is handled by the caller).
fn frexp_mant(x: u64, fmt: fp::Fmt) -> u64 {
    match fp::decompose(x, fmt) {
        Some((neg, m, _)) if m != 0 => {
            let len = 64 - m.leading_zeros() as i32;
            fp::round(neg, u128::from(m), -len, false, fmt)
        }
        _ => x,
    }
}

/// The exponent `e` with x = mant·2^e and |mant| in [0.5, 1) (`v_frexp_exp_i32`); 0 for zero,
/// infinities and NaN.
fn frexp_exp(x: u64, fmt: fp::Fmt) -> i32 {
    match fp::decompose(x, fmt) {
        Some((_, m, e)) if m != 0 => 64 - m.leading_zeros() as i32 + e,
        _ => 0,
    }
}

/// Two-source VALU operations (`lane` for `v_mbcnt`).
pub(crate) fn bin(op: VBin, a: u64, b: u64, lane: u32) -> u64 {
    let (a32, b32) = (a as u32, b as u32);
    match op {
        VBin::AddF32 => fop32(&[a32, b32], || f(a) + f(b)),
        VBin::SubF32 => fop32(&[a32, b32], || f(a) - f(b)),
        VBin::SubrevF32 => fop32(&[b32, a32], || f(b) - f(a)),
        VBin::MulF32 => fop32(&[a32, b32], || f(a) * f(b)),
        VBin::MulI32I24 => u64::from((sext24(a) * sext24(b)) as u32),
        VBin::MulU32U24 => u64::from(((a & 0xFF_FFFF) * (b & 0xFF_FFFF)) as u32),
        VBin::MulHiU32U24 => ((a & 0xFF_FFFF) * (b & 0xFF_FFFF)) >> 32,
        VBin::MinF32 => u64::from(min_max32(a32, b32, false)),
        VBin::MaxF32 => u64::from(min_max32(a32, b32, true)),
        VBin::MinI32 => u64::from((a32 as i32).min(b32 as i32) as u32),
        VBin::MaxI32 => u64::from((a32 as i32).max(b32 as i32) as u32),
        VBin::MinU32 => u64::from(a32.min(b32)),
        VBin::MaxU32 => u64::from(a32.max(b32)),
        VBin::Lshrrev => u64::from(b32 >> (a32 & 31)),
        VBin::Ashrrev => u64::from(((b32 as i32) >> (a32 & 31)) as u32),
        VBin::Lshlrev => u64::from(b32 << (a32 & 31)),
        VBin::And => u64::from(a32 & b32),
        VBin::Or => u64::from(a32 | b32),
        VBin::Xor => u64::from(a32 ^ b32),
        VBin::AddU32 => u64::from(a32.wrapping_add(b32)),
        VBin::SubU32 => u64::from(a32.wrapping_sub(b32)),
        VBin::SubrevU32 => u64::from(b32.wrapping_sub(a32)),
        VBin::MulLoU32 => u64::from(a32.wrapping_mul(b32)),
        VBin::MulHiU32 => (u64::from(a32) * u64::from(b32)) >> 32,
        VBin::MulHiI32 => u64::from(((i64::from(a32 as i32) * i64::from(b32 as i32)) >> 32) as u32),
        VBin::Lshlrev64 => b << (a32 & 63),
        VBin::Lshrrev64 => b >> (a32 & 63),
        VBin::Ashrrev64 => ((b as i64) >> (a32 & 63)) as u64,
        VBin::Bcnt => u64::from(a32.count_ones().wrapping_add(b32)),
        VBin::MbcntLo => {
            let mask = if lane >= 32 { u32::MAX } else { (1u32 << lane) - 1 };
            u64::from((a32 & mask).count_ones().wrapping_add(b32))
        }
        VBin::MbcntHi => {
            let mask = if lane < 32 { 0 } else { ((1u64 << (lane - 32)) - 1) as u32 };
            u64::from((a32 & mask).count_ones().wrapping_add(b32))
        }
        VBin::AddF64 => fop64(&[a, b], || d(a) + d(b)),
        VBin::MulF64 => fop64(&[a, b], || d(a) * d(b)),
        VBin::MinF64 => min_max64(a, b, false),
        VBin::MaxF64 => min_max64(a, b, true),
        VBin::LdexpF32 => fop32(&[a32], || f32::from_bits(fp::ldexp(u64::from(a32), b32 as i32, fp::F32) as u32)),
        VBin::LdexpF64 => fop64(&[a], || f64::from_bits(fp::ldexp(a, b32 as i32, fp::F64))),
    }
}

/// Three-source VALU operations (for `v_fmac_f32` the third source is the old destination).
pub(crate) fn ter(op: VTer, a: u64, b: u64, c: u64) -> u64 {
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    match op {
        VTer::FmacF32 | VTer::FmaF32 => fop32(&[a32, b32, c32], || f(a).mul_add(f(b), f(c))),
        VTer::FmaF64 => fop64(&[a, b, c], || d(a).mul_add(d(b), d(c))),
        VTer::MadU32U24 => u64::from((((a & 0xFF_FFFF) * (b & 0xFF_FFFF)) as u32).wrapping_add(c32)),
        VTer::BfeU32 => {
            let (off, w) = (b32 & 31, c32 & 31);
            u64::from(if w == 0 { 0 } else { (a32 >> off) & ((1u32 << w) - 1) })
        }
        VTer::BfeI32 => {
            let (off, w) = (b32 & 31, c32 & 31);
            if w == 0 {
                0
            } else {
                let field = (((a32 as i32) >> off) as u32) & ((1u32 << w) - 1);
                u64::from(((field << (32 - w)) as i32 >> (32 - w)) as u32)
            }
        }
        VTer::BfiB32 => u64::from((a32 & b32) | (!a32 & c32)),
        VTer::Alignbit => ((u64::from(a32) << 32 | u64::from(b32)) >> (c32 & 31)) & 0xFFFF_FFFF,
        VTer::LshlAddU32 => u64::from((a32 << (b32 & 31)).wrapping_add(c32)),
        VTer::AddLshlU32 => u64::from(a32.wrapping_add(b32) << (c32 & 31)),
        VTer::Add3U32 => u64::from(a32.wrapping_add(b32).wrapping_add(c32)),
        VTer::LshlAddU64 => (a << (b32 & 7)).wrapping_add(c),
        VTer::DivFixupF32 => u64::from(div_fixup32(a32, b32, c32)),
        VTer::DivFixupF64 => div_fixup64(a, b, c),
        VTer::Min3F32 => u64::from(min_max32(min_max32(a32, b32, false), c32, false)),
        VTer::Max3F32 => u64::from(min_max32(min_max32(a32, b32, true), c32, true)),
        VTer::Med3F32 => u64::from(med3_f32(a32, b32, c32)),
        VTer::Min3I32 => u64::from((a32 as i32).min(b32 as i32).min(c32 as i32) as u32),
        VTer::Max3I32 => u64::from((a32 as i32).max(b32 as i32).max(c32 as i32) as u32),
        VTer::Min3U32 => u64::from(a32.min(b32).min(c32)),
        VTer::Max3U32 => u64::from(a32.max(b32).max(c32)),
        VTer::Med3I32 => {
            let (x, y, z) = (a32 as i32, b32 as i32, c32 as i32);
            u64::from(x.max(y).min(x.min(y).max(z)) as u32)
        }
        VTer::Med3U32 => u64::from(a32.max(b32).min(a32.min(b32).max(c32))),
    }
}

/// `v_med3_f32` (ISA pseudocode, IEEE mode): with a NaN source the min3 of the three, otherwise
/// the max of the two sources that are not the max3.
fn med3_f32(a: u32, b: u32, c: u32) -> u32 {
    if is_nan32(a) || is_nan32(b) || is_nan32(c) {
        return min_max32(min_max32(a, b, false), c, false);
    }
    let m = min_max32(min_max32(a, b, true), c, true);
    if m == a {
        min_max32(b, c, true)
    } else if m == b {
        min_max32(a, c, true)
    } else {
        min_max32(a, b, true)
    }
}

/// The biased exponent field.
fn exp_field(x: u64, fmt_f64: bool) -> i32 {
    if fmt_f64 {
        ((x >> 52) & 0x7FF) as i32
    } else {
        ((x >> 23) & 0xFF) as i32
    }
}

/// `v_div_scale_f32/f64` on one lane: `(result, vcc bit)` for value S0, denominator S1,
/// numerator S2 (module doc).
pub(crate) fn div_scale(s0: u64, s1: u64, s2: u64, is64: bool) -> (u64, bool) {
    let (fmt, k, big, tiny_num) = if is64 { (fp::F64, 128, 768, 53) } else { (fp::F32, 64, 96, 23) };
    let val = |x: u64| if is64 { d(x) } else { f64::from(f(x)) };
    let is_denorm = |x: f64| -> bool {
        if is64 {
            x != 0.0 && x.is_finite() && x.abs() < f64::MIN_POSITIVE
        } else {
            let y = x as f32;
            y != 0.0 && y.is_finite() && y.abs() < f32::MIN_POSITIVE
        }
    };
    let (v1, v2) = (val(s1), val(s2));
    let same = |x: u64, y: u64| val(x) == val(y);
    let scaled = |n: i32| fp::ldexp(s0, n, fmt);
    if v2 == 0.0 || v1 == 0.0 {
        return (if is64 { QNAN64 } else { u64::from(QNAN32) }, false);
    }
    let quot = if is64 { v2 / v1 } else { f64::from(f(s2) / f(s1)) };
    let rcp_denorm = if is64 { is_denorm(1.0 / v1) } else { is_denorm(f64::from(1.0 / f(s1))) };
    if exp_field(s2, is64) - exp_field(s1, is64) >= big {
        // N/D near the largest finite value: scale the denominator up, post-scale up.
        (if same(s0, s1) { scaled(k) } else { s0 }, true)
    } else if is_denorm(v1) {
        (scaled(k), false)
    } else if rcp_denorm && is_denorm(quot) {
        (if same(s0, s1) { scaled(-k) } else { s0 }, true)
    } else if rcp_denorm {
        (scaled(-k), false)
    } else if is_denorm(quot) {
        (if same(s0, s2) { scaled(k) } else { s0 }, true)
    } else if exp_field(s2, is64) <= tiny_num {
        // Tiny numerator: scale both up.
        (scaled(k), false)
    } else {
        (s0, false)
    }
}

/// `v_div_fmas_f32/f64` on one lane (module doc).
pub(crate) fn div_fmas(a: u64, b: u64, c: u64, vcc: bool, is64: bool) -> u64 {
    let (fmt, k) = if is64 { (fp::F64, 128) } else { (fp::F32, 64) };
    let k = if !vcc {
        0
    } else if (if is64 { d(c).abs() } else { f64::from(f(c).abs()) }) >= 2.0 {
        k
    } else {
        -k
    };
    let (a, b, c) = if is64 { (a, b, c) } else { (a & 0xFFFF_FFFF, b & 0xFFFF_FFFF, c & 0xFFFF_FFFF) };
    match fp::fma_scaled(a, b, c, k, fmt) {
        Some(r) => r,
        None if is64 => fop64(&[a, b, c], || d(a).mul_add(d(b), d(c))),
        None => fop32(&[a as u32, b as u32, c as u32], || f(a).mul_add(f(b), f(c))),
    }
}

fn div_fixup32(q: u32, den: u32, num: u32) -> u32 {
    let neg = (den ^ num) >> 31 == 1;
    let sign = if neg { 0x8000_0000 } else { 0 };
    let (fd, fnm) = (f32::from_bits(den), f32::from_bits(num));
    if fnm.is_nan() {
        num | 0x0040_0000
    } else if fd.is_nan() {
        den | 0x0040_0000
    } else if (fd == 0.0 && fnm == 0.0) || (fd.is_infinite() && fnm.is_infinite()) {
        0xFFC0_0000
    } else if fd == 0.0 || fnm.is_infinite() {
        sign | 0x7F80_0000
    } else if fd.is_infinite()
        || fnm == 0.0
        || exp_field(u64::from(num), false) - exp_field(u64::from(den), false) < -150
    {
        // x/∞, 0/y, and quotients below half the smallest subnormal: zero.
        sign
    } else if is_nan32(q) {
        sign | 0x7F80_0000
    } else {
        sign | (q & 0x7FFF_FFFF)
    }
}

fn div_fixup64(q: u64, den: u64, num: u64) -> u64 {
    let neg = (den ^ num) >> 63 == 1;
    let sign = if neg { 1 << 63 } else { 0 };
    let inf = 0x7FF0_0000_0000_0000;
    let (fd, fnm) = (d(den), d(num));
    if fnm.is_nan() {
        num | 0x0008_0000_0000_0000
    } else if fd.is_nan() {
        den | 0x0008_0000_0000_0000
    } else if (fd == 0.0 && fnm == 0.0) || (fd.is_infinite() && fnm.is_infinite()) {
        0xFFF8_0000_0000_0000
    } else if fd == 0.0 || fnm.is_infinite() {
        sign | inf
    } else if fd.is_infinite() || fnm == 0.0 || exp_field(num, true) - exp_field(den, true) < -1075 {
        sign
    } else if is_nan64(q) {
        sign | inf
    } else {
        sign | (q & !(1 << 63))
    }
}

/// `v_cmp_class_f32/f64`: whether the value's class is in the mask (bit 0 signalling NaN, 1 quiet
/// NaN, 2 −∞, 3 −normal, 4 −subnormal, 5 −0, 6 +0, 7 +subnormal, 8 +normal, 9 +∞).
pub(crate) fn class(x: u64, mask: u32, is64: bool) -> bool {
    let (v, snan, neg) = if is64 {
        (d(x), is_snan64(x), x >> 63 == 1)
    } else {
        (f64::from(f(x)), is_snan32(x as u32), x >> 31 & 1 == 1)
    };
    let sub =
        if is64 { v != 0.0 && v.abs() < f64::MIN_POSITIVE } else { v != 0.0 && v.abs() < f64::from(f32::MIN_POSITIVE) };
    let bit = if v.is_nan() {
        if snan {
            0
        } else {
            1
        }
    } else if v.is_infinite() {
        if neg {
            2
        } else {
            9
        }
    } else if v == 0.0 {
        if neg {
            5
        } else {
            6
        }
    } else if sub {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        3
    } else {
        8
    };
    mask >> bit & 1 == 1
}

/// A comparison of two lanes' sources.
pub(crate) fn cmp(rel: Rel, ty: CmpTy, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match ty {
        CmpTy::I32 => Some((a as u32 as i32).cmp(&(b as u32 as i32))),
        CmpTy::U32 => Some((a as u32).cmp(&(b as u32))),
        CmpTy::I64 => Some((a as i64).cmp(&(b as i64))),
        CmpTy::U64 => Some(a.cmp(&b)),
        CmpTy::F32 => f(a).partial_cmp(&f(b)),
        CmpTy::F64 => d(a).partial_cmp(&d(b)),
    };
    match (rel, ord) {
        (Rel::Eq, o) => o == Some(Ordering::Equal),
        (Rel::Ne, o) => o != Some(Ordering::Equal),
        (Rel::Lt, o) => o == Some(Ordering::Less),
        (Rel::Le, o) => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        (Rel::Gt, o) => o == Some(Ordering::Greater),
        (Rel::Ge, o) => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        (Rel::O, o) => o.is_some(),
        (Rel::U, o) => o.is_none(),
        (Rel::Lg, o) => matches!(o, Some(Ordering::Less | Ordering::Greater)),
        (Rel::Neq, o) => o != Some(Ordering::Equal),
    }
}

/// DX10 clamp of an f32 result to [0, 1] (NaN → 0).
pub(crate) fn clamp32(x: u64) -> u64 {
    let v = f(x);
    if v.is_nan() || v < 0.0 {
        0
    } else if v >= 1.0 {
        u64::from(1.0f32.to_bits())
    } else {
        x & 0xFFFF_FFFF
    }
}

/// DX10 clamp of an f64 result to [0, 1] (NaN → 0).
pub(crate) fn clamp64(x: u64) -> u64 {
    let v = d(x);
    if v.is_nan() || v < 0.0 {
        0
    } else if v >= 1.0 {
        1.0f64.to_bits()
    } else {
        x
    }
}

/// The output modifier (1 ×2, 2 ×4, 3 ÷2) on an f32 result.
pub(crate) fn omod32(x: u64, omod: u8) -> u64 {
    let k = match omod {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => return x,
    };
    fop32(&[x as u32], || f(x) * k)
}

/// The output modifier on an f64 result.
pub(crate) fn omod64(x: u64, omod: u8) -> u64 {
    let k = match omod {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => return x,
    };
    fop64(&[x], || d(x) * k)
}
