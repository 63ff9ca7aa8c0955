//! Correctly rounded float division and square root as AMDGCN instruction sequences over given
//! physical VGPRs, for the instruction selector to emit where MIR asks for an IEEE `a / b` or
//! `sqrt(x)` (the hardware's `v_rcp`/`v_rsq`/`v_sqrt` are only ≈1 ULP).
//!
//! The sequences are the standard Newton–Raphson / Goldschmidt refinements the AMD ISA guides
//! design `v_div_scale`, `v_div_fmas` and `v_div_fixup` for (written here from the ISA's
//! description of those instructions):
//!
//! * **division** — `v_div_scale` scales the denominator and the numerator by 2^±64 (f32) /
//!   2^±128 (f64) where a reciprocal or the quotient would be subnormal or would overflow, and
//!   sets VCC where the quotient needs post-scaling; `v_rcp` gives r ≈ 1/d; Newton steps
//!   `e = 1 − d·r; r = r + r·e` (once for f32, twice for f64); `q = n·r`, then the remainder
//!   `rem = n − d·q` corrects q (`q = q + rem·r` once more for f32); `v_div_fmas` computes the last
//!   `rem·r + q` with one rounding and applies the post-scale; `v_div_fixup` produces the IEEE
//!   special cases (NaN, 0/0, ∞/∞, x/0, ∞/y, x/∞, 0/y, underflow, overflow) and the sign.
//! * **f64 square root** — inputs below 2^−767 are scaled by 2^256 (`v_ldexp_f64`) so no term
//!   is subnormal; `y = rsq(x)`, `g = x·y`, `h = y/2`, one coupled step `r = ½ − h·g;
//!   g += g·r; h += h·r`, then two corrections `d = x − g²; g += d·h`, the result scaled back by
//!   2^−128; ±0 and +∞ (`v_cmp_class_f64` mask 0x260) return the input, and NaN / negative inputs
//!   come out NaN through `v_rsq_f64`.
//! * **f32 square root** — `v_cvt_f64_f32`, the f64 sequence, `v_cvt_f32_f64`: double rounding
//!   is harmless for square root since 53 ≥ 2·24 + 2.
//!
//! * **f32 division in f64** ([`div_f32_via_f64`]) — the same Newton/remainder steps on the
//!   widened operands, rounded once to f32, with `v_div_fixup_f32` for the special cases.
//!
//! Every sequence is checked by `tests/seq_sim.rs` on the simulator, bit for bit against Rust's
//! `/` and `sqrt` for thousands of operand pairs (subnormals, zeros, infinities, NaNs, huge and
//! tiny ratios) on gfx90a, gfx942, gfx1100 wave64 and wave32, with the hazard checker on, both
//! with correctly rounded `v_rcp`/`v_rsq` and with results one ULP off (`SimOptions::trans_ulp`).
//!
//! **Accuracy caveat (read before choosing):** the hardware's `v_rcp_f32/f64` are only
//! specified to ≈1 ULP. [`div_f32`] and [`div_f64`] (LLVM's sequences) are exact when the
//! reciprocal refinement reaches the correctly rounded 1/b, which a Newton step from a 1 ULP
//! start does *except* at Markstein's exceptional divisors (significand all ones, e.g.
//! 0x3F7FFFFF): with a reciprocal one ULP low there, the refinement stalls on a tie and the
//! quotient can be one ULP off (the simulator shows it with `trans_ulp = 1`; whether real
//! hardware ever returns such a reciprocal is not known here — LLVM relies on it not doing so).
//! [`div_f32_via_f64`], [`sqrt_f64`] and [`sqrt_f32`] are exact for any ≤1 ULP `v_rcp_f64` /
//! `v_rsq_f64`.
//!
//! Mode assumptions: round to nearest even and denormals enabled for f32 and f64
//! (FLOAT_DENORM_MODE_32 = FLOAT_DENORM_MODE_16_64 = 3 in the kernel descriptor): with f32
//! denormals flushed the f32 division would lose subnormal quotients and the intermediate
//! remainders (LLVM toggles the mode around the sequence in that case; qd does not).
//!
//! Register rules (checked; violations are a [`SeqError`]): every register is a VGPR number;
//! f64 values are pairs `v[n:n+1]` named by their first register, which must be even on GFX9;
//! temporaries must be distinct from each other and from the sources, and pairs must not
//! overlap; `dst` may be any register, including a source or a temporary (it is written last).
//! Every sequence clobbers VCC (`vcc` in wave64, `vcc_lo` in wave32) and reads no SGPR. Hazard
//! padding (`s_nop` on GFX9, `s_waitcnt_depctr` on GFX11) is included.

use std::fmt;

use crate::isa::{InlineFloat, Inst, Mods, Op, Operand};
use crate::target::{Family, Target, WaveSize};

/// Why a sequence cannot be built with the given registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqError {
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for SeqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sequence registers: {}", self.reason)
    }
}

impl std::error::Error for SeqError {}

fn err(reason: String) -> SeqError {
    SeqError { reason }
}

/// A register run `v[first .. first+len)`.
#[derive(Clone, Copy)]
struct Run {
    first: u16,
    len: u16,
    what: &'static str,
}

fn overlaps(a: Run, b: Run) -> bool {
    a.first < b.first + b.len && b.first < a.first + a.len
}

/// Checks ranges and alignment of every run, and that each temporary overlaps nothing else.
fn check_regs(target: Target, sources: &[Run], temps: &[Run]) -> Result<(), SeqError> {
    for r in sources.iter().chain(temps) {
        if r.first + r.len > 256 {
            return Err(err(format!("{} v{} runs past v255", r.what, r.first)));
        }
        if r.len == 2 && target.family() == Family::Gfx9 && r.first % 2 != 0 {
            return Err(err(format!("{} v[{}:{}] must start on an even VGPR on GFX9", r.what, r.first, r.first + 1)));
        }
    }
    for (i, t) in temps.iter().enumerate() {
        for o in sources.iter().chain(&temps[..i]) {
            if overlaps(*t, *o) {
                return Err(err(format!("{} v{} overlaps {} v{}", t.what, t.first, o.what, o.first)));
            }
        }
    }
    Ok(())
}

struct Builder {
    target: Target,
    out: Vec<Inst>,
}

impl Builder {
    fn new(target: Target) -> Builder {
        Builder { target, out: Vec::new() }
    }

    fn vcc(&self) -> Operand {
        match self.target.wave {
            WaveSize::W64 => Operand::Vcc,
            WaveSize::W32 => Operand::VccLo,
        }
    }

    fn op(&mut self, op: Op, ops: &[Operand]) -> &mut Inst {
        self.out.push(Inst::new_for(self.target, op, ops));
        self.out.last_mut().expect("just pushed")
    }

    /// An op with source `neg` modifier bits.
    fn neg(&mut self, op: Op, ops: &[Operand], neg: u8) {
        let i = self.op(op, ops);
        i.mods = Mods { neg, ..Mods::default() };
    }

    /// GFX11: wait for outstanding VALU results (the transcendental-use hazard, §11.1 row 13).
    fn trans_wait(&mut self) {
        if self.target.family() == Family::Gfx11 {
            self.op(Op::SWaitcntDepctr, &[]).imm = 0x0FFF;
        }
    }

    fn finish(self) -> Result<Vec<Inst>, SeqError> {
        for i in &self.out {
            i.check(self.target).map_err(|e| err(e.to_string()))?;
        }
        Ok(self.out)
    }
}

fn v(n: u16) -> Operand {
    Operand::v(n)
}

fn v2(n: u16) -> Operand {
    Operand::vr(n, 2)
}

/// `dst = a / b` in f32, correctly rounded (IEEE-754 round to nearest even, subnormals kept).
///
/// `tmp`: five distinct VGPRs, distinct from `a` and `b`. `a` and `b` may be the same register.
pub fn div_f32(target: Target, dst: u16, a: u16, b: u16, tmp: [u16; 5]) -> Result<Vec<Inst>, SeqError> {
    let run = |first, what| Run { first, len: 1, what };
    check_regs(target, &[run(a, "a"), run(b, "b")], &tmp.map(|t| run(t, "temporary")))?;
    check_regs(target, &[run(dst, "dst")], &[])?;
    let [d, r, n, q, e] = tmp;
    let mut s = Builder::new(target);
    let vcc = s.vcc();
    s.op(Op::VDivScaleF32, &[v(d), vcc, v(b), v(b), v(a)]);
    s.op(Op::VRcpF32, &[v(r), v(d)]);
    s.op(Op::VDivScaleF32, &[v(n), vcc, v(a), v(b), v(a)]);
    s.trans_wait();
    let one = Operand::Float(InlineFloat::One);
    s.neg(Op::VFmaF32, &[v(q), v(d), v(r), one], 1); // e = 1 − d·r
    s.op(Op::VFmaF32, &[v(r), v(q), v(r), v(r)]); // r = r + e·r
    s.op(Op::VMulF32, &[v(q), v(n), v(r)]); // q = n·r
    s.neg(Op::VFmaF32, &[v(e), v(d), v(q), v(n)], 1); // rem = n − d·q
    s.op(Op::VFmaF32, &[v(q), v(e), v(r), v(q)]); // q = q + rem·r
    s.neg(Op::VFmaF32, &[v(d), v(d), v(q), v(n)], 1); // rem = n − d·q
    s.op(Op::VDivFmasF32, &[v(d), v(d), v(r), v(q)]);
    s.op(Op::VDivFixupF32, &[v(dst), v(d), v(b), v(a)]);
    s.finish()
}

/// `dst = a / b` in f32, correctly rounded, computed in f64: `y = rcp_f64(b)`, one Newton step,
/// `q = a·y`, one remainder correction, `v_cvt_f32_f64`, and `v_div_fixup_f32` for the special
/// cases. Unlike [`div_f32`] this is correct for *any* `v_rcp_f64` within a few ULPs (the f64
/// quotient is within ~2^−52 of a/b, and a/b is never closer than ~2^−49 to an f32 rounding
/// boundary it does not lie on; quotients that lie on one — exact or subnormal midpoints — are
/// f64 values the remainder step reproduces exactly). It does not touch VCC, but runs at the
/// f64 rate (full rate on gfx90a/gfx942, a fraction of it on gfx1100).
///
/// `tmp`: four VGPR pairs (even on GFX9), not overlapping each other, `a` or `b`; `dst` may be
/// any register.
pub fn div_f32_via_f64(target: Target, dst: u16, a: u16, b: u16, tmp: [u16; 4]) -> Result<Vec<Inst>, SeqError> {
    let one_reg = |first, what| Run { first, len: 1, what };
    let temps = tmp.map(|t| Run { first: t, len: 2, what: "temporary" });
    check_regs(target, &[one_reg(a, "a"), one_reg(b, "b")], &temps)?;
    check_regs(target, &[one_reg(dst, "dst")], &[])?;
    let [wa, wb, y, t] = tmp;
    let mut s = Builder::new(target);
    let one = Operand::Float(InlineFloat::One);
    s.op(Op::VCvtF64F32, &[v2(wa), v(a)]);
    s.op(Op::VCvtF64F32, &[v2(wb), v(b)]);
    s.op(Op::VRcpF64, &[v2(y), v2(wb)]);
    s.trans_wait();
    if s.target.family() == Family::Gfx9 {
        // gfx942 §11.1 row 13: a transcendental result read by the next VALU needs one state.
        s.op(Op::SNop, &[]).imm = 0;
    }
    s.neg(Op::VFmaF64, &[v2(t), v2(wb), v2(y), one], 1); // e = 1 − b·y
    s.op(Op::VFmaF64, &[v2(y), v2(y), v2(t), v2(y)]); // y = y + y·e
    s.op(Op::VMulF64, &[v2(t), v2(wa), v2(y)]); // q = a·y
    s.neg(Op::VFmaF64, &[v2(wa), v2(wb), v2(t), v2(wa)], 1); // rem = a − b·q
    s.op(Op::VFmaF64, &[v2(t), v2(wa), v2(y), v2(t)]); // q = q + rem·y
    s.op(Op::VCvtF32F64, &[v(t), v2(t)]);
    s.op(Op::VDivFixupF32, &[v(dst), v(t), v(b), v(a)]);
    s.finish()
}

/// `dst = a / b` in f64, correctly rounded.
///
/// All operands are VGPR pairs named by their first register (even on GFX9). `tmp`: four pairs,
/// not overlapping each other, `a` or `b`. `a` and `b` may be the same pair.
pub fn div_f64(target: Target, dst: u16, a: u16, b: u16, tmp: [u16; 4]) -> Result<Vec<Inst>, SeqError> {
    let run = |first, what| Run { first, len: 2, what };
    check_regs(target, &[run(a, "a"), run(b, "b")], &tmp.map(|t| run(t, "temporary")))?;
    check_regs(target, &[run(dst, "dst")], &[])?;
    let [d, r, n, q] = tmp;
    let mut s = Builder::new(target);
    let vcc = s.vcc();
    let one = Operand::Float(InlineFloat::One);
    s.op(Op::VDivScaleF64, &[v2(d), vcc, v2(b), v2(b), v2(a)]);
    s.op(Op::VRcpF64, &[v2(r), v2(d)]);
    s.op(Op::VDivScaleF64, &[v2(n), vcc, v2(a), v2(b), v2(a)]);
    s.trans_wait();
    for _ in 0..2 {
        s.neg(Op::VFmaF64, &[v2(q), v2(d), v2(r), one], 1); // e = 1 − d·r
        s.op(Op::VFmaF64, &[v2(r), v2(r), v2(q), v2(r)]); // r = r + r·e
    }
    s.op(Op::VMulF64, &[v2(q), v2(n), v2(r)]); // q = n·r
    s.neg(Op::VFmaF64, &[v2(d), v2(d), v2(q), v2(n)], 1); // rem = n − d·q
    s.op(Op::VDivFmasF64, &[v2(d), v2(d), v2(r), v2(q)]);
    s.op(Op::VDivFixupF64, &[v2(dst), v2(d), v2(b), v2(a)]);
    s.finish()
}

/// The f64 square-root body: `dst = sqrt(x)` with the register roles of [`sqrt_f64`].
fn sqrt_f64_into(s: &mut Builder, dst: u16, x: u16, tmp: [u16; 4], k: u16) {
    let [g, t, xs, h] = tmp;
    let vcc = s.vcc();
    let half = Operand::Float(InlineFloat::Half);
    // g = 2^-767 (0x10000000_00000000); VCC = x < 2^-767.
    s.op(Op::VMovB32, &[v(g), Operand::Int(0)]);
    s.op(Op::VBfrevB32, &[v(g + 1), Operand::Int(8)]);
    s.op(Op::VCmpGtF64, &[vcc, v2(g), v2(x)]);
    if s.target.family() == Family::Gfx9 {
        // gfx942 §11.1 row 9: a VALU reads VCC two wait states after a VALU wrote it.
        s.op(Op::SNop, &[]).imm = 1;
    }
    // t.lo = 256 or 0; k = −128 or 0.
    let sel = s.op(Op::VCndmaskB32, &[v(t), Operand::Int(0), Operand::Int(1), vcc]);
    *sel = sel.e64();
    s.op(Op::VLshlrevB32, &[v(t), Operand::Int(8), v(t)]);
    s.op(Op::VLshrrevB32, &[v(k), Operand::Int(1), v(t)]);
    s.op(Op::VSubU32, &[v(k), Operand::Int(0), v(k)]);
    s.op(Op::VLdexpF64, &[v2(xs), v2(x), v(t)]); // x' = x·2^(256 or 0)
    s.op(Op::VRsqF64, &[v2(h), v2(xs)]); // y ≈ 1/sqrt(x')
    s.op(Op::VMovB32, &[v(g), Operand::Literal(0x260)]);
    s.op(Op::VCmpClassF64, &[vcc, v2(xs), v(g)]); // x' ∈ {±0, +∞}
    s.trans_wait();
    s.op(Op::VMulF64, &[v2(g), v2(xs), v2(h)]); // g = x'·y
    s.op(Op::VMulF64, &[v2(h), v2(h), half]); // h = y/2
    s.neg(Op::VFmaF64, &[v2(t), v2(h), v2(g), half], 1); // r = ½ − h·g
    s.op(Op::VFmaF64, &[v2(g), v2(g), v2(t), v2(g)]); // g = g + g·r
    s.op(Op::VFmaF64, &[v2(h), v2(h), v2(t), v2(h)]); // h = h + h·r
    for _ in 0..2 {
        s.neg(Op::VFmaF64, &[v2(t), v2(g), v2(g), v2(xs)], 1); // d = x' − g²
        s.op(Op::VFmaF64, &[v2(g), v2(t), v2(h), v2(g)]); // g = g + d·h
    }
    s.op(Op::VLdexpF64, &[v2(g), v2(g), v(k)]);
    s.op(Op::VCndmaskB32, &[v(dst), v(g), v(xs), vcc]);
    s.op(Op::VCndmaskB32, &[v(dst + 1), v(g + 1), v(xs + 1), vcc]);
}

/// `dst = sqrt(x)` in f64, correctly rounded (NaN for negative inputs and NaN, ±0 and +∞ kept).
///
/// `dst`, `x` and the four `tmp` entries are VGPR pairs (even on GFX9); `k` is one VGPR. The
/// temporaries and `k` must not overlap each other or `x`; `dst` may overlap anything.
pub fn sqrt_f64(target: Target, dst: u16, x: u16, tmp: [u16; 4], k: u16) -> Result<Vec<Inst>, SeqError> {
    let pair = |first, what| Run { first, len: 2, what };
    let mut temps: Vec<Run> = tmp.iter().map(|&t| pair(t, "temporary")).collect();
    temps.push(Run { first: k, len: 1, what: "k" });
    check_regs(target, &[pair(x, "x")], &temps)?;
    check_regs(target, &[pair(dst, "dst")], &[])?;
    let mut s = Builder::new(target);
    sqrt_f64_into(&mut s, dst, x, tmp, k);
    s.finish()
}

/// `dst = sqrt(x)` in f32, correctly rounded: the f64 sequence on the widened input.
///
/// `dst` and `x` are single VGPRs; `tmp` four VGPR pairs (even on GFX9) and `k` one VGPR, none
/// overlapping each other or `x`; `dst` may be any register.
pub fn sqrt_f32(target: Target, dst: u16, x: u16, tmp: [u16; 4], k: u16) -> Result<Vec<Inst>, SeqError> {
    let pair = |first, what| Run { first, len: 2, what };
    let mut temps: Vec<Run> = tmp.iter().map(|&t| pair(t, "temporary")).collect();
    temps.push(Run { first: k, len: 1, what: "k" });
    check_regs(target, &[Run { first: x, len: 1, what: "x" }], &temps)?;
    check_regs(target, &[Run { first: dst, len: 1, what: "dst" }], &[])?;
    let mut s = Builder::new(target);
    // The widened input lives in tmp[3] (written again only after the body last reads x) and
    // the f64 result in tmp[0].
    s.op(Op::VCvtF64F32, &[v2(tmp[3]), v(x)]);
    sqrt_f64_into(&mut s, tmp[0], tmp[3], tmp, k);
    s.op(Op::VCvtF32F64, &[v(dst), v2(tmp[0])]);
    s.finish()
}
