//! `fma` on f64 rounded once, in integer arithmetic: Vulkan lets `GLSL.std.450 Fma` round twice
//! (lavapipe does) and there is no wider float to compute it in, so the SPIR-V back end does what a
//! soft-float library does, as straight-line `u64` code (no branches, only selects).
//!
//! For finite non-zero `a`, `b`, `c` (the caller handles the rest with float ops, exact there):
//! 1. unpack the three into sign, exponent and 53-bit significand (subnormals without the hidden
//!    bit); the 106-bit product of the significands is formed from four 32×32-bit products;
//! 2. the product and `c` are placed in 128-bit words (a `(hi, lo)` pair of `u64`s) with their
//!    leading one at bit 126, the smaller one shifted right by the exponent difference with a
//!    sticky bit, then added or subtracted (bit 127 takes the carry);
//! 3. the sum is normalised to bit 127 and rounded to nearest-even at bit 75 — or further right
//!    for a subnormal result — and packed; an exponent past the largest gives infinity, an exact
//!    cancellation `+0`.
//!
//! The algorithm is written once over [`Arith`], so the plain-`u64` model that the unit tests check
//! against `f64::mul_add` (special values, subnormal results, overflow, cancellation and random
//! operands) is the very code that emits the SPIR-V.

use crate::lower::Lower;
use crate::scalar;
use crate::CompileError;
use qd_mir::ScalarType;
use qd_mir::UnOp;
use rspirv::spirv::{Capability, GlslStd450Op as Glsl, Op};

/// The operations the algorithm needs, on 64-bit unsigned values and booleans. Shift amounts
/// passed to `shl`/`shr` are always below 64.
pub(crate) trait Arith {
    /// A `u64` value.
    type U: Copy;
    /// A boolean.
    type B: Copy;
    fn k(&mut self, v: u64) -> Self::U;
    fn add(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn sub(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn mul(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn and(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn or(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn xor(&mut self, a: Self::U, b: Self::U) -> Self::U;
    fn shl(&mut self, a: Self::U, s: Self::U) -> Self::U;
    fn shr(&mut self, a: Self::U, s: Self::U) -> Self::U;
    /// Leading zeros (64 for 0).
    fn clz(&mut self, a: Self::U) -> Self::U;
    fn ult(&mut self, a: Self::U, b: Self::U) -> Self::B;
    /// Signed `<` on the two's-complement values.
    fn slt(&mut self, a: Self::U, b: Self::U) -> Self::B;
    fn eq(&mut self, a: Self::U, b: Self::U) -> Self::B;
    fn sel(&mut self, c: Self::B, a: Self::U, b: Self::U) -> Self::U;
    fn band(&mut self, a: Self::B, b: Self::B) -> Self::B;
    fn bor(&mut self, a: Self::B, b: Self::B) -> Self::B;
}

/// A 128-bit value.
#[derive(Clone, Copy)]
struct W<U> {
    hi: U,
    lo: U,
}

fn umin<A: Arith>(o: &mut A, a: A::U, b: A::U) -> A::U {
    let lt = o.ult(a, b);
    o.sel(lt, a, b)
}

fn sel128<A: Arith>(o: &mut A, c: A::B, a: W<A::U>, b: W<A::U>) -> W<A::U> {
    W { hi: o.sel(c, a.hi, b.hi), lo: o.sel(c, a.lo, b.lo) }
}

/// `x << s` for `s` in `0..=128` (0 from 128 on).
fn shl128<A: Arith>(o: &mut A, x: W<A::U>, s: A::U) -> W<A::U> {
    let (c63, c64, c128, one, zero) = (o.k(63), o.k(64), o.k(128), o.k(1), o.k(0));
    let s1 = umin(o, s, c63);
    let r = o.sub(c63, s1);
    let hs = o.shl(x.hi, s1);
    let lo1 = o.shr(x.lo, one);
    let carry = o.shr(lo1, r);
    let small = W { hi: o.or(hs, carry), lo: o.shl(x.lo, s1) };
    let s64 = o.sub(s, c64);
    let s2 = umin(o, s64, c63);
    let big = W { hi: o.shl(x.lo, s2), lo: zero };
    let lt64 = o.ult(s, c64);
    let lt128 = o.ult(s, c128);
    let z = W { hi: zero, lo: zero };
    let r = sel128(o, lt128, big, z);
    sel128(o, lt64, small, r)
}

/// `x >> s` for `s` in `0..=128` (0 from 128 on).
fn shr128<A: Arith>(o: &mut A, x: W<A::U>, s: A::U) -> W<A::U> {
    let (c63, c64, c128, one, zero) = (o.k(63), o.k(64), o.k(128), o.k(1), o.k(0));
    let s1 = umin(o, s, c63);
    let r = o.sub(c63, s1);
    let ls = o.shr(x.lo, s1);
    let hi1 = o.shl(x.hi, one);
    let carry = o.shl(hi1, r);
    let small = W { hi: o.shr(x.hi, s1), lo: o.or(ls, carry) };
    let s64 = o.sub(s, c64);
    let s2 = umin(o, s64, c63);
    let big = W { hi: zero, lo: o.shr(x.hi, s2) };
    let lt64 = o.ult(s, c64);
    let lt128 = o.ult(s, c128);
    let z = W { hi: zero, lo: zero };
    let r = sel128(o, lt128, big, z);
    sel128(o, lt64, small, r)
}

fn eq128<A: Arith>(o: &mut A, a: W<A::U>, b: W<A::U>) -> A::B {
    let h = o.eq(a.hi, b.hi);
    let l = o.eq(a.lo, b.lo);
    o.band(h, l)
}

fn ugt128<A: Arith>(o: &mut A, a: W<A::U>, b: W<A::U>) -> A::B {
    let hg = o.ult(b.hi, a.hi);
    let he = o.eq(a.hi, b.hi);
    let lg = o.ult(b.lo, a.lo);
    let t = o.band(he, lg);
    o.bor(hg, t)
}

fn add128<A: Arith>(o: &mut A, a: W<A::U>, b: W<A::U>) -> W<A::U> {
    let lo = o.add(a.lo, b.lo);
    let c = o.ult(lo, a.lo);
    let (one, zero) = (o.k(1), o.k(0));
    let cv = o.sel(c, one, zero);
    let h = o.add(a.hi, b.hi);
    W { hi: o.add(h, cv), lo }
}

fn sub128<A: Arith>(o: &mut A, a: W<A::U>, b: W<A::U>) -> W<A::U> {
    let lo = o.sub(a.lo, b.lo);
    let bw = o.ult(a.lo, b.lo);
    let (one, zero) = (o.k(1), o.k(0));
    let bv = o.sel(bw, one, zero);
    let h = o.sub(a.hi, b.hi);
    W { hi: o.sub(h, bv), lo }
}

fn clz128<A: Arith>(o: &mut A, x: W<A::U>) -> A::U {
    let zero = o.k(0);
    let hz = o.eq(x.hi, zero);
    let ch = o.clz(x.hi);
    let cl = o.clz(x.lo);
    let c64 = o.k(64);
    let low = o.add(cl, c64);
    o.sel(hz, low, ch)
}

/// The full 128-bit product of two values below 2^64, from 32×32-bit partial products.
fn mul128<A: Arith>(o: &mut A, x: A::U, y: A::U) -> W<A::U> {
    let (m32, c32) = (o.k(0xFFFF_FFFF), o.k(32));
    let (xl, xh) = (o.and(x, m32), o.shr(x, c32));
    let (yl, yh) = (o.and(y, m32), o.shr(y, c32));
    let p0 = o.mul(xl, yl);
    let p1 = o.mul(xl, yh);
    let p2 = o.mul(xh, yl);
    let p3 = o.mul(xh, yh);
    let p0h = o.shr(p0, c32);
    let p1l = o.and(p1, m32);
    let p2l = o.and(p2, m32);
    let mid = o.add(p0h, p1l);
    let mid = o.add(mid, p2l);
    let p0l = o.and(p0, m32);
    let midl = o.shl(mid, c32);
    let lo = o.or(p0l, midl);
    let p1h = o.shr(p1, c32);
    let p2h = o.shr(p2, c32);
    let midh = o.shr(mid, c32);
    let hi = o.add(p3, p1h);
    let hi = o.add(hi, p2h);
    W { hi: o.add(hi, midh), lo }
}

/// Sign bit, exponent `e` (two's complement, value = `m · 2^e`) and significand `m`.
fn unpack<A: Arith>(o: &mut A, x: A::U) -> (A::U, A::U, A::U) {
    let (sign, c52, emask, fmask, hidden) = (o.k(1 << 63), o.k(52), o.k(0x7FF), o.k((1 << 52) - 1), o.k(1 << 52));
    let s = o.and(x, sign);
    let be = o.shr(x, c52);
    let be = o.and(be, emask);
    let frac = o.and(x, fmask);
    let zero = o.k(0);
    let sub = o.eq(be, zero);
    let with_hidden = o.or(frac, hidden);
    let m = o.sel(sub, frac, with_hidden);
    let one = o.k(1);
    let be = o.sel(sub, one, be);
    let bias = o.k(1075);
    (s, o.sub(be, bias), m)
}

/// `a·b + c` rounded once, as f64 bits, for finite non-zero `a`, `b`, `c` (bits).
pub(crate) fn fma_core<A: Arith>(o: &mut A, a: A::U, b: A::U, c: A::U) -> A::U {
    let (sa, ea, ma) = unpack(o, a);
    let (sb, eb, mb) = unpack(o, b);
    let (sc, ec, mc) = unpack(o, c);
    let zero = o.k(0);
    let one = o.k(1);
    let sp = o.xor(sa, sb);
    // The product, leading one moved to bit 126.
    let p = mul128(o, ma, mb);
    let ep = o.add(ea, eb);
    let lzp = clz128(o, p);
    let sh_p = o.sub(lzp, one);
    let p = shl128(o, p, sh_p);
    let ep = o.sub(ep, sh_p);
    // `c`, likewise.
    let cw = W { hi: zero, lo: mc };
    let lzc = clz128(o, cw);
    let sh_c = o.sub(lzc, one);
    let cw = shl128(o, cw, sh_c);
    let ec = o.sub(ec, sh_c);
    // X: the larger exponent, Y: the other, shifted right with a sticky bit.
    let c_big = o.slt(ep, ec);
    let x = sel128(o, c_big, cw, p);
    let y = sel128(o, c_big, p, cw);
    let ex = o.sel(c_big, ec, ep);
    let ey = o.sel(c_big, ep, ec);
    let sx = o.sel(c_big, sc, sp);
    let sy = o.sel(c_big, sp, sc);
    let d = o.sub(ex, ey);
    let c128 = o.k(128);
    let d = umin(o, d, c128);
    let ys = shr128(o, y, d);
    let back = shl128(o, ys, d);
    let exact = eq128(o, back, y);
    let sticky = o.sel(exact, zero, one);
    let y = W { hi: ys.hi, lo: o.or(ys.lo, sticky) };
    // Add or subtract the magnitudes.
    let same = o.eq(sx, sy);
    let sum = add128(o, x, y);
    let y_gt = ugt128(o, y, x);
    let d1 = sub128(o, x, y);
    let d2 = sub128(o, y, x);
    let diff = sel128(o, y_gt, d2, d1);
    let sdiff = o.sel(y_gt, sy, sx);
    let s = sel128(o, same, sum, diff);
    let sign = o.sel(same, sx, sdiff);
    let s_or = o.or(s.hi, s.lo);
    let cancelled = o.eq(s_or, zero);
    // Normalise to bit 127.
    let lz = clz128(o, s);
    let c127 = o.k(127);
    let lz = umin(o, lz, c127);
    let n = shl128(o, s, lz);
    let en = o.sub(ex, lz);
    // Biased exponent of the result: value = n·2^en with n in [2^127, 2^128).
    let c1150 = o.k(1150);
    let biased = o.add(en, c1150);
    let sub = o.slt(biased, one); // biased <= 0: a subnormal result
    let c76 = o.k(76);
    let c75 = o.k(75);
    let sub_shift = o.sub(c76, biased);
    let shift = o.sel(sub, sub_shift, c75);
    let tiny = o.ult(c128, shift); // shift > 128: rounds to zero
    let sh = umin(o, shift, c128);
    let m = shr128(o, n, sh);
    let mb = shl128(o, m, sh);
    let rem = sub128(o, n, mb);
    let c74 = o.k(74);
    let sh1 = o.sub(sh, one);
    let sh1 = o.sel(sub, sh1, c74);
    let half = shl128(o, W { hi: zero, lo: one }, sh1);
    let gt = ugt128(o, rem, half);
    let tie = eq128(o, rem, half);
    let lsb = o.and(m.lo, one);
    let odd = o.eq(lsb, one);
    let tie_up = o.band(tie, odd);
    let up = o.bor(gt, tie_up);
    let inc = o.sel(up, one, zero);
    let mant = o.add(m.lo, inc);
    // Pack: (biased - 1) << 52 plus the significand with its hidden bit (a carry out of the
    // significand bumps the exponent); a subnormal has exponent field 0.
    let c2047 = o.k(2047);
    let big = o.slt(c2047, biased);
    let bc = o.sel(big, c2047, biased);
    let bm1 = o.sub(bc, one);
    let c52 = o.k(52);
    let base = o.shl(bm1, c52);
    let base = o.sel(sub, zero, base);
    let bits = o.add(base, mant);
    let inf = o.k(0x7FF0_0000_0000_0000);
    let bits = umin(o, bits, inf);
    let bits = o.sel(tiny, zero, bits);
    let signed = o.or(bits, sign);
    o.sel(cancelled, zero, signed)
}

/// [`Arith`] emitting SPIR-V `u64` ops; the first failure (a missing capability) is kept and
/// reported by [`fma_f64`].
struct Spv<'l, 'f> {
    lw: &'l mut Lower<'f>,
    u: u32,
    bt: u32,
    err: Option<CompileError>,
}

impl Spv<'_, '_> {
    fn keep(&mut self, r: Result<u32, CompileError>) -> u32 {
        r.unwrap_or_else(|e| {
            self.err.get_or_insert(e);
            0
        })
    }
    fn bin(&mut self, op: Op, a: u32, b: u32) -> u32 {
        self.lw.e.op(op, self.u, &[a, b])
    }
    fn cmp(&mut self, op: Op, a: u32, b: u32) -> u32 {
        self.lw.e.op(op, self.bt, &[a, b])
    }
}

impl Arith for Spv<'_, '_> {
    type U = u32;
    type B = u32;
    fn k(&mut self, v: u64) -> u32 {
        let r = self.lw.c(ScalarType::U64, v);
        self.keep(r)
    }
    fn add(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::IAdd, a, b)
    }
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::ISub, a, b)
    }
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::IMul, a, b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::BitwiseAnd, a, b)
    }
    fn or(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::BitwiseOr, a, b)
    }
    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.bin(Op::BitwiseXor, a, b)
    }
    fn shl(&mut self, a: u32, s: u32) -> u32 {
        self.bin(Op::ShiftLeftLogical, a, s)
    }
    fn shr(&mut self, a: u32, s: u32) -> u32 {
        self.bin(Op::ShiftRightLogical, a, s)
    }
    fn clz(&mut self, a: u32) -> u32 {
        let r = scalar::unary(self.lw, UnOp::Clz, ScalarType::U64, a);
        self.keep(r)
    }
    fn ult(&mut self, a: u32, b: u32) -> u32 {
        self.cmp(Op::ULessThan, a, b)
    }
    fn slt(&mut self, a: u32, b: u32) -> u32 {
        self.cmp(Op::SLessThan, a, b)
    }
    fn eq(&mut self, a: u32, b: u32) -> u32 {
        self.cmp(Op::IEqual, a, b)
    }
    fn sel(&mut self, c: u32, a: u32, b: u32) -> u32 {
        self.lw.e.op(Op::Select, self.u, &[c, a, b])
    }
    fn band(&mut self, a: u32, b: u32) -> u32 {
        self.cmp(Op::LogicalAnd, a, b)
    }
    fn bor(&mut self, a: u32, b: u32) -> u32 {
        self.cmp(Op::LogicalOr, a, b)
    }
}

/// `fma` on f64 values `a`, `b`, `c` (ids), rounded once. Non-finite or zero operands take float
/// ops, exact there: a zero or non-finite factor or a non-finite `c` gives `a·b + c` (with
/// `c` itself for an infinite `c` and finite factors, where `a·b` could overflow), a zero `c`
/// gives `a·b`; everything else is [`fma_core`]. Needs `Int64`.
pub(crate) fn fma_f64(lw: &mut Lower<'_>, a: u32, b: u32, c: u32) -> Result<u32, CompileError> {
    let t = ScalarType::F64;
    lw.need(Capability::Int64, lw.opts.caps.int64, "64-bit integers (shaderInt64) for an exact f64 fma")?;
    let (f, u, bt) = (lw.ty(t)?, lw.ty(ScalarType::U64)?, lw.bool_ty());
    let [ab, bb, cb] = [a, b, c].map(|x| lw.e.op(Op::Bitcast, u, &[x]));
    let mut spv = Spv { lw, u, bt, err: None };
    let core = fma_core(&mut spv, ab, bb, cb);
    if let Some(e) = spv.err {
        return Err(e);
    }
    let core = lw.e.op(Op::Bitcast, f, &[core]);
    let prod = scalar::exact(lw, Op::FMul, f, a, b);
    let float_path = scalar::exact(lw, Op::FAdd, f, prod, c);
    let inf = lw.c(t, f64::INFINITY.to_bits())?;
    let zero = lw.c(t, 0)?;
    let finite = |lw: &mut Lower<'_>, x: u32| {
        let m = lw.e.ext(f, Glsl::FAbs as u32, &[x]);
        lw.e.op(Op::FOrdLessThan, bt, &[m, inf])
    };
    let (fa, fb, fc) = (finite(lw, a), finite(lw, b), finite(lw, c));
    let fab = lw.e.op(Op::LogicalAnd, bt, &[fa, fb]);
    let all = lw.e.op(Op::LogicalAnd, bt, &[fab, fc]);
    let a0 = lw.e.op(Op::FOrdEqual, bt, &[a, zero]);
    let b0 = lw.e.op(Op::FOrdEqual, bt, &[b, zero]);
    let not_all = lw.e.op(Op::LogicalNot, bt, &[all]);
    let z = lw.e.op(Op::LogicalOr, bt, &[a0, b0]);
    let special = lw.e.op(Op::LogicalOr, bt, &[not_all, z]);
    let c_inf = lw.e.op(Op::IsInf, bt, &[c]);
    let keep_c = lw.e.op(Op::LogicalAnd, bt, &[c_inf, fab]);
    let special_r = lw.e.op(Op::Select, f, &[keep_c, c, float_path]);
    let c0 = lw.e.op(Op::FOrdEqual, bt, &[c, zero]);
    let normal_r = lw.e.op(Op::Select, f, &[c0, prod, core]);
    Ok(lw.e.op(Op::Select, f, &[special, special_r, normal_r]))
}

/// The plain-`u64` model of [`Arith`], for the tests.
#[cfg(test)]
pub(crate) struct Model;

#[cfg(test)]
impl Arith for Model {
    type U = u64;
    type B = bool;
    fn k(&mut self, v: u64) -> u64 {
        v
    }
    fn add(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    fn sub(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    fn mul(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_mul(b)
    }
    fn and(&mut self, a: u64, b: u64) -> u64 {
        a & b
    }
    fn or(&mut self, a: u64, b: u64) -> u64 {
        a | b
    }
    fn xor(&mut self, a: u64, b: u64) -> u64 {
        a ^ b
    }
    fn shl(&mut self, a: u64, s: u64) -> u64 {
        assert!(s < 64, "shl by {s}");
        a << s
    }
    fn shr(&mut self, a: u64, s: u64) -> u64 {
        assert!(s < 64, "shr by {s}");
        a >> s
    }
    fn clz(&mut self, a: u64) -> u64 {
        u64::from(a.leading_zeros())
    }
    fn ult(&mut self, a: u64, b: u64) -> bool {
        a < b
    }
    fn slt(&mut self, a: u64, b: u64) -> bool {
        (a as i64) < (b as i64)
    }
    fn eq(&mut self, a: u64, b: u64) -> bool {
        a == b
    }
    fn sel(&mut self, c: bool, a: u64, b: u64) -> u64 {
        if c {
            a
        } else {
            b
        }
    }
    fn band(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn bor(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model with the float-op special cases the lowering puts around it.
    fn fma_model(a: f64, b: f64, c: f64) -> f64 {
        if !a.is_finite() || !b.is_finite() || !c.is_finite() || a == 0.0 || b == 0.0 {
            if c.is_infinite() && a.is_finite() && b.is_finite() {
                return c;
            }
            return a * b + c;
        }
        if c == 0.0 {
            return a * b;
        }
        f64::from_bits(fma_core(&mut Model, a.to_bits(), b.to_bits(), c.to_bits()))
    }

    fn same(x: f64, y: f64) -> bool {
        (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
    }

    fn check(a: f64, b: f64, c: f64) {
        let want = a.mul_add(b, c);
        let got = fma_model(a, b, c);
        assert!(
            same(got, want),
            "fma({a:e}, {b:e}, {c:e}) = {got:e} ({:#x}), want {want:e} ({:#x})",
            got.to_bits(),
            want.to_bits()
        );
    }

    #[test]
    fn special_values_and_edges() {
        let v = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x000F_FFFF_FFFF_FFFF),
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            1e-300,
            3.0,
            1.0 + f64::EPSILON,
            1.0 - f64::EPSILON / 2.0,
            0.1,
            -7.25e-200,
        ];
        for &a in &v {
            for &b in &v {
                for &c in &v {
                    check(a, b, c);
                }
            }
        }
    }

    #[test]
    fn rounding_ties_cancellation_and_subnormal_results() {
        // x*x - (1 + 2^-26·2) style cancellations, exact ties and results near the subnormal edge.
        let e = f64::EPSILON;
        check(1.0 + e, 1.0 + e, -1.0);
        check(1.0 + e, 1.0 - e, -1.0);
        check(1.0 + 2.0 * e, 1.0 + 2.0 * e, -(1.0 + 4.0 * e));
        check(0.5 + e, 2.0, -1.0);
        check(f64::MIN_POSITIVE, 0.5, f64::from_bits(1));
        check(f64::MIN_POSITIVE, -0.5, f64::from_bits(3));
        check(f64::from_bits(3), 0.5, 0.0_f64.copysign(-1.0));
        check(1e-160, 1e-160, -1e-320);
        check(1e308, 10.0, -f64::MAX);
        check(f64::MAX, 1.0 + e, -f64::MAX);
        check(f64::MAX, 2.0, -f64::MAX);
    }

    #[test]
    fn random_operands_match_mul_add() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..400_000u32 {
            // Mostly nearby exponents (cancellation and rounding), sometimes any bits.
            let (a, b, c) = if i % 4 == 0 {
                (f64::from_bits(next()), f64::from_bits(next()), f64::from_bits(next()))
            } else {
                let r = |n: u64, spread: u64| {
                    f64::from_bits(
                        (n & 0x800F_FFFF_FFFF_FFFF) | ((1023 - spread / 2 + (n >> 52) % spread.max(1)) << 52),
                    )
                };
                let (na, nb, nc) = (next(), next(), next());
                let sp = [4, 60, 2000][(i % 3) as usize];
                (r(na, sp), r(nb, sp), r(nc, sp.min(2040)) * if i % 5 == 0 { 1e-300 } else { 1.0 })
            };
            check(a, b, c);
        }
    }
}
