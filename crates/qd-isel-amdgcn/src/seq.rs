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
//! Each sequence is written once, as a `*_body` function over a `Builder` generic in the
//! register names (`Sink`): the functions below run it on physical VGPRs (their tests drive
//! the simulator directly), and instruction selection (`lower::fdiv`) runs the same body over
//! virtual registers, as one `MInst` whose temporaries the allocator places.
//!
//! Register rules of the physical API (checked; violations are a [`SeqError`]): every register is a VGPR number;
//! f64 values are pairs `v[n:n+1]` named by their first register, which must be even on GFX9;
//! temporaries must be distinct from each other and from the sources, and pairs must not
//! overlap; `dst` may be any register, including a source or a temporary (it is written last).
//! Every sequence clobbers VCC (`vcc` in wave64, `vcc_lo` in wave32) and reads no SGPR. Hazard
//! padding (`s_nop` on GFX9, `s_waitcnt_depctr` on GFX11) is included.

use std::fmt;

use qd_amdgcn_isa::{Family, Target, WaveSize};
use qd_amdgcn_isa::{InlineFloat, Inst, Mods, Op, Operand};

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

/// How a sequence names one register: `R` is the caller's register name (a VGPR number for the
/// physical API, a virtual register for instruction selection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reg<R> {
    /// A 32-bit VGPR.
    One(R),
    /// A VGPR pair, as one 64-bit operand.
    Pair(R),
    /// The low VGPR of a pair.
    Lo(R),
    /// The high VGPR of a pair.
    Hi(R),
}

/// One operand slot of a sequence step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot<R> {
    /// A fixed operand (constant, `vcc`), already in the template.
    K(Operand),
    /// A register the step reads.
    Read(Reg<R>),
    /// A register the step writes.
    Write(Reg<R>),
}

/// Where a sequence's instructions go: each step is an instruction template (its fixed operands,
/// modifiers and immediates set) and its slots in assembler order. One definition of each
/// sequence serves the physical-register API of this module and instruction selection
/// (`lower::fdiv`, which names virtual registers).
pub(crate) trait Sink {
    /// The register names.
    type R: Copy;
    /// Appends one step.
    fn step(&mut self, template: Inst, slots: &[Slot<Self::R>]);
}

/// Physical VGPRs: the instructions themselves.
struct Phys(Vec<Inst>);

impl Sink for Phys {
    type R = u16;
    fn step(&mut self, mut template: Inst, slots: &[Slot<u16>]) {
        for (slot, s) in slots.iter().enumerate() {
            if let Slot::Read(r) | Slot::Write(r) = *s {
                template.operands[slot] = match r {
                    Reg::One(n) | Reg::Lo(n) => Operand::v(n),
                    Reg::Pair(n) => Operand::vr(n, 2),
                    Reg::Hi(n) => Operand::v(n + 1),
                };
            }
        }
        self.0.push(template);
    }
}

/// Builds a sequence into a [`Sink`].
pub(crate) struct Builder<'s, S: Sink> {
    target: Target,
    sink: &'s mut S,
}

// Slot constructors: read/write a VGPR, a pair, or a half of a pair.
fn rd<R>(r: R) -> Slot<R> {
    Slot::Read(Reg::One(r))
}
fn wr<R>(r: R) -> Slot<R> {
    Slot::Write(Reg::One(r))
}
fn rd2<R>(r: R) -> Slot<R> {
    Slot::Read(Reg::Pair(r))
}
fn wr2<R>(r: R) -> Slot<R> {
    Slot::Write(Reg::Pair(r))
}
fn rdlo<R>(r: R) -> Slot<R> {
    Slot::Read(Reg::Lo(r))
}
fn wrlo<R>(r: R) -> Slot<R> {
    Slot::Write(Reg::Lo(r))
}
fn rdhi<R>(r: R) -> Slot<R> {
    Slot::Read(Reg::Hi(r))
}
fn wrhi<R>(r: R) -> Slot<R> {
    Slot::Write(Reg::Hi(r))
}
fn k<R>(o: Operand) -> Slot<R> {
    Slot::K(o)
}

impl<'s, S: Sink> Builder<'s, S> {
    /// A builder for `target` appending to `sink`.
    pub(crate) fn new(target: Target, sink: &'s mut S) -> Self {
        Builder { target, sink }
    }

    fn vcc(&self) -> Slot<S::R> {
        Slot::K(match self.target.wave {
            WaveSize::W64 => Operand::Vcc,
            WaveSize::W32 => Operand::VccLo,
        })
    }

    fn template(&self, op: Op, slots: &[Slot<S::R>]) -> Inst {
        let ops: Vec<Operand> = slots.iter().map(|s| if let Slot::K(o) = s { *o } else { Operand::None }).collect();
        Inst::new_for(self.target, op, &ops)
    }

    fn op(&mut self, op: Op, slots: &[Slot<S::R>]) {
        let t = self.template(op, slots);
        self.sink.step(t, slots);
    }

    /// An op with source `neg` modifier bits.
    fn neg(&mut self, op: Op, slots: &[Slot<S::R>], neg: u8) {
        let mut t = self.template(op, slots);
        t.mods = Mods { neg, ..Mods::default() };
        self.sink.step(t, slots);
    }

    /// An op in the VOP3 encoding.
    fn e64(&mut self, op: Op, slots: &[Slot<S::R>]) {
        let t = self.template(op, slots).e64();
        self.sink.step(t, slots);
    }

    /// `s_nop imm` (GFX9 wait states).
    fn nop(&mut self, imm: i32) {
        self.sink.step(Inst::new_for(self.target, Op::SNop, &[]).imm(imm), &[]);
    }

    /// GFX11: wait for outstanding VALU results (the transcendental-use hazard,
    /// docs/amdgcn-isa-facts.md §11.1 row 13).
    fn trans_wait(&mut self) {
        if self.target.family() == Family::Gfx11 {
            self.sink.step(Inst::new_for(self.target, Op::SWaitcntDepctr, &[]).imm(0x0FFF), &[]);
        }
    }
}

/// Runs a body on physical registers and checks every instruction for the target.
fn phys(target: Target, body: impl FnOnce(&mut Builder<'_, Phys>)) -> Result<Vec<Inst>, SeqError> {
    let mut sink = Phys(Vec::new());
    body(&mut Builder::new(target, &mut sink));
    for i in &sink.0 {
        i.check(target).map_err(|e| err(e.to_string()))?;
    }
    Ok(sink.0)
}

/// `dst = a / b` in f32, correctly rounded (IEEE-754 round to nearest even, subnormals kept).
///
/// `tmp`: five distinct VGPRs, distinct from `a` and `b`. `a` and `b` may be the same register.
pub fn div_f32(target: Target, dst: u16, a: u16, b: u16, tmp: [u16; 5]) -> Result<Vec<Inst>, SeqError> {
    let run = |first, what| Run { first, len: 1, what };
    check_regs(target, &[run(a, "a"), run(b, "b")], &tmp.map(|t| run(t, "temporary")))?;
    check_regs(target, &[run(dst, "dst")], &[])?;
    phys(target, |s| div_f32_body(s, dst, a, b, tmp))
}

/// The body of [`div_f32`] over any register names (`tmp`: five 32-bit temporaries).
pub(crate) fn div_f32_body<S: Sink>(s: &mut Builder<'_, S>, dst: S::R, a: S::R, b: S::R, tmp: [S::R; 5]) {
    let [d, r, n, q, e] = tmp;
    let vcc = s.vcc();
    s.op(Op::VDivScaleF32, &[wr(d), vcc, rd(b), rd(b), rd(a)]);
    s.op(Op::VRcpF32, &[wr(r), rd(d)]);
    s.op(Op::VDivScaleF32, &[wr(n), vcc, rd(a), rd(b), rd(a)]);
    s.trans_wait();
    let one = k(Operand::Float(InlineFloat::One));
    s.neg(Op::VFmaF32, &[wr(q), rd(d), rd(r), one], 1); // e = 1 − d·r
    s.op(Op::VFmaF32, &[wr(r), rd(q), rd(r), rd(r)]); // r = r + e·r
    s.op(Op::VMulF32, &[wr(q), rd(n), rd(r)]); // q = n·r
    s.neg(Op::VFmaF32, &[wr(e), rd(d), rd(q), rd(n)], 1); // rem = n − d·q
    s.op(Op::VFmaF32, &[wr(q), rd(e), rd(r), rd(q)]); // q = q + rem·r
    s.neg(Op::VFmaF32, &[wr(d), rd(d), rd(q), rd(n)], 1); // rem = n − d·q
    s.op(Op::VDivFmasF32, &[wr(d), rd(d), rd(r), rd(q)]);
    s.op(Op::VDivFixupF32, &[wr(dst), rd(d), rd(b), rd(a)]);
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
    phys(target, |s| div_f32_via_f64_body(s, dst, a, b, tmp))
}

/// The body of [`div_f32_via_f64`] over any register names (`dst`, `a`, `b` 32-bit; `tmp` four
/// pairs).
pub(crate) fn div_f32_via_f64_body<S: Sink>(s: &mut Builder<'_, S>, dst: S::R, a: S::R, b: S::R, tmp: [S::R; 4]) {
    let [wa, wb, y, t] = tmp;
    let one = k(Operand::Float(InlineFloat::One));
    s.op(Op::VCvtF64F32, &[wr2(wa), rd(a)]);
    s.op(Op::VCvtF64F32, &[wr2(wb), rd(b)]);
    s.op(Op::VRcpF64, &[wr2(y), rd2(wb)]);
    s.trans_wait();
    if s.target.family() == Family::Gfx9 {
        // gfx942, docs/amdgcn-isa-facts.md §11.1 row 13: a transcendental result read by the next
        // VALU needs one state.
        s.nop(0);
    }
    s.neg(Op::VFmaF64, &[wr2(t), rd2(wb), rd2(y), one], 1); // e = 1 − b·y
    s.op(Op::VFmaF64, &[wr2(y), rd2(y), rd2(t), rd2(y)]); // y = y + y·e
    s.op(Op::VMulF64, &[wr2(t), rd2(wa), rd2(y)]); // q = a·y
    s.neg(Op::VFmaF64, &[wr2(wa), rd2(wb), rd2(t), rd2(wa)], 1); // rem = a − b·q
    s.op(Op::VFmaF64, &[wr2(t), rd2(wa), rd2(y), rd2(t)]); // q = q + rem·y
    s.op(Op::VCvtF32F64, &[wrlo(t), rd2(t)]);
    s.op(Op::VDivFixupF32, &[wr(dst), rdlo(t), rd(b), rd(a)]);
}

/// `dst = a / b` in f64, correctly rounded.
///
/// All operands are VGPR pairs named by their first register (even on GFX9). `tmp`: four pairs,
/// not overlapping each other, `a` or `b`. `a` and `b` may be the same pair.
pub fn div_f64(target: Target, dst: u16, a: u16, b: u16, tmp: [u16; 4]) -> Result<Vec<Inst>, SeqError> {
    let run = |first, what| Run { first, len: 2, what };
    check_regs(target, &[run(a, "a"), run(b, "b")], &tmp.map(|t| run(t, "temporary")))?;
    check_regs(target, &[run(dst, "dst")], &[])?;
    phys(target, |s| div_f64_body(s, dst, a, b, tmp))
}

/// The body of [`div_f64`] over any register names (every one a pair).
pub(crate) fn div_f64_body<S: Sink>(s: &mut Builder<'_, S>, dst: S::R, a: S::R, b: S::R, tmp: [S::R; 4]) {
    let [d, r, n, q] = tmp;
    let vcc = s.vcc();
    let one = k(Operand::Float(InlineFloat::One));
    s.op(Op::VDivScaleF64, &[wr2(d), vcc, rd2(b), rd2(b), rd2(a)]);
    s.op(Op::VRcpF64, &[wr2(r), rd2(d)]);
    s.op(Op::VDivScaleF64, &[wr2(n), vcc, rd2(a), rd2(b), rd2(a)]);
    s.trans_wait();
    for _ in 0..2 {
        s.neg(Op::VFmaF64, &[wr2(q), rd2(d), rd2(r), one], 1); // e = 1 − d·r
        s.op(Op::VFmaF64, &[wr2(r), rd2(r), rd2(q), rd2(r)]); // r = r + r·e
    }
    s.op(Op::VMulF64, &[wr2(q), rd2(n), rd2(r)]); // q = n·r
    s.neg(Op::VFmaF64, &[wr2(d), rd2(d), rd2(q), rd2(n)], 1); // rem = n − d·q
    s.op(Op::VDivFmasF64, &[wr2(d), rd2(d), rd2(r), rd2(q)]);
    s.op(Op::VDivFixupF64, &[wr2(dst), rd2(d), rd2(b), rd2(a)]);
}

/// The body of [`sqrt_f64`] over any register names: `dst`, `x` and `tmp` pairs, `kr` a 32-bit
/// temporary.
pub(crate) fn sqrt_f64_body<S: Sink>(s: &mut Builder<'_, S>, dst: S::R, x: S::R, tmp: [S::R; 4], kr: S::R) {
    let [g, t, xs, h] = tmp;
    let vcc = s.vcc();
    let half = k(Operand::Float(InlineFloat::Half));
    let int = |i| k(Operand::Int(i));
    // g = 2^-767 (0x10000000_00000000); VCC = x < 2^-767.
    s.op(Op::VMovB32, &[wrlo(g), int(0)]);
    s.op(Op::VBfrevB32, &[wrhi(g), int(8)]);
    s.op(Op::VCmpGtF64, &[vcc, rd2(g), rd2(x)]);
    if s.target.family() == Family::Gfx9 {
        // gfx942, docs/amdgcn-isa-facts.md §11.1 row 9: a VALU reads VCC two wait states after a
        // VALU wrote it.
        s.nop(1);
    }
    // t.lo = 256 or 0; k = −128 or 0.
    s.e64(Op::VCndmaskB32, &[wrlo(t), int(0), int(1), vcc]);
    s.op(Op::VLshlrevB32, &[wrlo(t), int(8), rdlo(t)]);
    s.op(Op::VLshrrevB32, &[wr(kr), int(1), rdlo(t)]);
    s.op(Op::VSubU32, &[wr(kr), int(0), rd(kr)]);
    s.op(Op::VLdexpF64, &[wr2(xs), rd2(x), rdlo(t)]); // x' = x·2^(256 or 0)
    s.op(Op::VRsqF64, &[wr2(h), rd2(xs)]); // y ≈ 1/sqrt(x')
    s.op(Op::VMovB32, &[wrlo(g), k(Operand::Literal(0x260))]);
    s.op(Op::VCmpClassF64, &[vcc, rd2(xs), rdlo(g)]); // x' ∈ {±0, +∞}
    s.trans_wait();
    s.op(Op::VMulF64, &[wr2(g), rd2(xs), rd2(h)]); // g = x'·y
    s.op(Op::VMulF64, &[wr2(h), rd2(h), half]); // h = y/2
    s.neg(Op::VFmaF64, &[wr2(t), rd2(h), rd2(g), half], 1); // r = ½ − h·g
    s.op(Op::VFmaF64, &[wr2(g), rd2(g), rd2(t), rd2(g)]); // g = g + g·r
    s.op(Op::VFmaF64, &[wr2(h), rd2(h), rd2(t), rd2(h)]); // h = h + h·r
    for _ in 0..2 {
        s.neg(Op::VFmaF64, &[wr2(t), rd2(g), rd2(g), rd2(xs)], 1); // d = x' − g²
        s.op(Op::VFmaF64, &[wr2(g), rd2(t), rd2(h), rd2(g)]); // g = g + d·h
    }
    s.op(Op::VLdexpF64, &[wr2(g), rd2(g), rd(kr)]);
    s.op(Op::VCndmaskB32, &[wrlo(dst), rdlo(g), rdlo(xs), vcc]);
    s.op(Op::VCndmaskB32, &[wrhi(dst), rdhi(g), rdhi(xs), vcc]);
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
    phys(target, |s| sqrt_f64_body(s, dst, x, tmp, k))
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
    phys(target, |s| sqrt_f32_body(s, dst, x, tmp, k))
}

/// The body of [`sqrt_f32`] over any register names (`dst`, `x`, `kr` 32-bit; `tmp` pairs).
pub(crate) fn sqrt_f32_body<S: Sink>(s: &mut Builder<'_, S>, dst: S::R, x: S::R, tmp: [S::R; 4], kr: S::R) {
    // The widened input lives in tmp[3] (written again only after the body last reads x) and
    // the f64 result in tmp[0].
    s.op(Op::VCvtF64F32, &[wr2(tmp[3]), rd(x)]);
    sqrt_f64_body(s, tmp[0], tmp[3], tmp, kr);
    s.op(Op::VCvtF32F64, &[wr(dst), rd2(tmp[0])]);
}
