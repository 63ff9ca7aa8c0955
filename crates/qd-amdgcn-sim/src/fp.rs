//! Exact IEEE-754 helpers for the float operations whose single rounding Rust's `f32`/`f64`
//! arithmetic cannot express directly: `ldexp` (a scaled value rounded once, subnormals
//! included), the scaled fused multiply-add of `v_div_fmas` (the 2^±64 / 2^±128 post-scale is
//! applied to the exact fma before the one rounding, so a subnormal quotient is not rounded
//! twice), and a correctly rounded f64 reciprocal square root.
//!
//! Values are handled as `sign, M·2^e` with an integer significand; [`round`] rounds such a value
//! (plus a sticky bit for discarded nonzero bits far below the rounding point) to nearest-even in
//! the target format, producing subnormals, zeros and infinities as IEEE-754 requires.

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fmt {
    /// Stored significand bits (23 / 52).
    mant: u32,
    /// Exponent bias (127 / 1023).
    bias: i32,
}

pub(crate) const F32: Fmt = Fmt { mant: 23, bias: 127 };
pub(crate) const F64: Fmt = Fmt { mant: 52, bias: 1023 };

impl Fmt {
    fn exp_bits(self) -> u32 {
        if self.mant == 23 {
            8
        } else {
            11
        }
    }

    fn emin(self) -> i32 {
        1 - self.bias
    }

    fn sign_bit(self) -> u64 {
        1 << (self.mant + self.exp_bits())
    }

    fn inf(self, neg: bool) -> u64 {
        let v = ((1u64 << self.exp_bits()) - 1) << self.mant;
        if neg {
            v | self.sign_bit()
        } else {
            v
        }
    }
}

/// `(negative, M, e)` with value `M·2^e` of a finite value's bits (`None` for NaN and infinity).
pub(crate) fn decompose(bits: u64, fmt: Fmt) -> Option<(bool, u64, i32)> {
    let neg = bits & fmt.sign_bit() != 0;
    let biased = ((bits >> fmt.mant) & ((1 << fmt.exp_bits()) - 1)) as i32;
    let frac = bits & ((1u64 << fmt.mant) - 1);
    if biased == (1 << fmt.exp_bits()) - 1 {
        return None;
    }
    let lsb = fmt.emin() - fmt.mant as i32;
    Some(if biased == 0 { (neg, frac, lsb) } else { (neg, frac | 1 << fmt.mant, biased - 1 + lsb) })
}

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// Rounds `±(M + s)·2^e` to nearest-even in `fmt`, where `s` ∈ (0, 1) when `sticky` (a nonzero
/// fraction of one unit of `2^e`; callers keep at least two bits below the rounding point, so
/// the fraction never reaches half an ulp on its own).
pub(crate) fn round(neg: bool, m: u128, e: i32, sticky: bool, fmt: Fmt) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if m == 0 {
        // A sticky-only value is below half the smallest subnormal: it rounds to zero.
        return sign;
    }
    let top = bitlen(m) - 1 + e;
    let lsb = top.max(fmt.emin()) - fmt.mant as i32;
    let shift = lsb - e;
    let q: u128 = if shift <= 0 {
        m << (-shift) as u32
    } else if shift > 127 {
        0
    } else {
        let q = m >> shift as u32;
        let rem = m & ((1u128 << shift as u32) - 1);
        let half = 1u128 << (shift - 1) as u32;
        let up = rem > half || (rem == half && (sticky || q & 1 == 1));
        q + u128::from(up)
    };
    if q == 0 {
        return sign;
    }
    // q·2^lsb, with q < 2^(mant+2).
    let (q, lsb) = if bitlen(q) as u32 > fmt.mant + 1 { (q >> 1, lsb + 1) } else { (q, lsb) };
    let t = bitlen(q) - 1 + lsb;
    if t > fmt.bias {
        return fmt.inf(neg);
    }
    let bits = if bitlen(q) as u32 == fmt.mant + 1 {
        let biased = (t + fmt.bias) as u64;
        biased << fmt.mant | (q as u64 & ((1u64 << fmt.mant) - 1))
    } else {
        q as u64
    };
    sign | bits
}

/// `x·2^n` rounded once (x finite; NaN, infinities and zeros are returned unchanged).
pub(crate) fn ldexp(x: u64, n: i32, fmt: Fmt) -> u64 {
    match decompose(x, fmt) {
        Some((neg, m, e)) if m != 0 => {
            // Beyond ±2200 every finite input over- or underflows in both formats.
            let n = n.clamp(-2200, 2200);
            round(neg, u128::from(m), e + n, false, fmt)
        }
        _ => x,
    }
}

/// `fma(a, b, c)·2^k` with one rounding, for finite `a`, `b`, `c` (the caller handles NaN and
/// infinities with ordinary arithmetic, where the scale does not matter).
pub(crate) fn fma_scaled(a: u64, b: u64, c: u64, k: i32, fmt: Fmt) -> Option<u64> {
    let (sa, ma, ea) = decompose(a, fmt)?;
    let (sb, mb, eb) = decompose(b, fmt)?;
    let (sc, mc, ec) = decompose(c, fmt)?;
    let (sp, mp, ep) = (sa != sb, u128::from(ma) * u128::from(mb), ea + eb);
    let mc = u128::from(mc);
    if mp == 0 && mc == 0 {
        // Exact zero: +0 unless both terms are −0 (round to nearest).
        let neg = sp && sc;
        return Some(if neg { fmt.sign_bit() } else { 0 });
    }
    if mp == 0 {
        return Some(round(sc, mc, ec + k, false, fmt));
    }
    if mc == 0 {
        return Some(round(sp, mp, ep + k, false, fmt));
    }
    // A 120-bit window below the higher top bit: the term owning that top bit fits exactly; the
    // other keeps its bits down to the window and a sticky for the rest (when it has any bits
    // below the window it is at least 2^13 times smaller, so cancellation costs at most one bit).
    let top = (bitlen(mp) + ep).max(bitlen(mc) + ec);
    let w = top - 120;
    let fit = |m: u128, e: i32| -> (u128, bool) {
        if e >= w {
            (m << (e - w) as u32, false)
        } else if w - e > 127 {
            (0, true)
        } else {
            let s = (w - e) as u32;
            (m >> s, m & ((1u128 << s) - 1) != 0)
        }
    };
    let (p, p_st) = fit(mp, ep);
    let (q, q_st) = fit(mc, ec);
    let (neg, m, sticky) = if sp == sc {
        (sp, p + q, p_st || q_st)
    } else if p >= q {
        // p − (q + f): borrow one unit when the smaller term lost a fraction.
        let st = q_st;
        (sp, p - q - u128::from(st), st || p_st)
    } else {
        let st = p_st;
        (sc, q - p - u128::from(st), st || q_st)
    };
    if m == 0 && !sticky {
        return Some(0);
    }
    Some(round(neg, m, w + k, sticky, fmt))
}

/// Correctly rounded `1/sqrt(x)` of a positive finite f64 (not zero).
pub(crate) fn rsq64(x: f64) -> f64 {
    let (_, mx, ex) = decompose(x.to_bits(), F64).expect("finite");
    // Whether t²·x < 1 for t = M·2^e (exact: M < 2^55, mx < 2^53, so M²·mx < 2^163).
    let below_one = |mt: u64, et: i32| -> bool {
        let m2 = u128::from(mt) * u128::from(mt);
        let (hi, lo) = (m2 >> 64, m2 & u128::from(u64::MAX));
        let lo_p = lo * u128::from(mx);
        let hi_p = hi * u128::from(mx) + (lo_p >> 64);
        // The product is hi_p·2^64 + (lo_p mod 2^64), compared with 2^(−2·et − ex).
        let len = if hi_p != 0 { bitlen(hi_p) + 64 } else { bitlen(lo_p & u128::from(u64::MAX)) };
        // P < 2^k exactly when P's top bit lies below bit k (a midpoint never squares to 1/x).
        len - 1 < -2 * et - ex
    };
    // Midpoint between the positive normal y and its neighbour above/below, as M·2^e.
    let mid = |y: f64, up: bool| -> (u64, i32) {
        let z = if up { f64::from_bits(y.to_bits() + 1) } else { f64::from_bits(y.to_bits() - 1) };
        let (_, my, ey) = decompose(y.to_bits(), F64).expect("finite");
        let (_, mz, ez) = decompose(z.to_bits(), F64).expect("finite");
        let e = ey.min(ez);
        ((my << (ey - e)) + (mz << (ez - e)), e - 1)
    };
    let mut y = 1.0 / x.sqrt();
    for _ in 0..4 {
        let (mh, eh) = mid(y, true);
        if below_one(mh, eh) {
            y = f64::from_bits(y.to_bits() + 1);
            continue;
        }
        let (ml, el) = mid(y, false);
        if !below_one(ml, el) {
            y = f64::from_bits(y.to_bits() - 1);
            continue;
        }
        break;
    }
    y
}
