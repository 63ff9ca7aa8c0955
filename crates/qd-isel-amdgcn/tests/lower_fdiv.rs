//! Float `div`, `sqrt` and `rem` (f32, f64) on every simulated AMD target against the MIR
//! interpreter (Rust's `/`, `sqrt`, `%`): operands varying per thread, one from a parameter (an
//! SGPR copied to a VGPR), both uniform, and constants, over thousands of random and edge
//! operands — zeros of both signs, subnormals, infinities, NaN payloads (quiet, signalling,
//! negative), all-ones significands, extreme exponents, huge and tiny ratios, exact multiples
//! and near multiples for `rem`. The regalloc2 checker and the simulator's hazard and wait
//! checkers are on.
//!
//! Results are compared bit for bit, with one allowance: a NaN *created* by an invalid operation
//! is the host's default NaN in the interpreter (x86: 0xFFC00000 / 0xFFF8000000000000) and may
//! be AMD's (0x7FC00000 / 0x7FF8000000000000) on the GPU. Propagated NaNs (payload and sign)
//! must match exactly.
//!
//! The same kernels also run with the simulator's transcendentals one ULP off
//! (`SimOptions::trans_ulp`): f32 division, both square roots and both remainders must stay
//! exact; f64 division is allowed to be one ULP off there (`seq`'s documented caveat), and the
//! test counts and bounds it.

mod lower_util;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{AmdgcnOptions, CompiledKernel, Target};
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::{Function, ScalarType as S};

const LANES: usize = 128;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ----- operands ------------------------------------------------------------------------------

const F32_EDGES: [u32; 30] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x4040_0000, // 3
    0x3DCC_CCCD, // 0.1
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // qNaN
    0x7FC1_2345, // qNaN payload
    0xFFC0_0001, // negative qNaN
    0x7F80_0001, // sNaN
    0xFFA0_0042, // negative sNaN
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // largest subnormal, negative
    0x0040_0000, // subnormal
    0x0080_0000, // smallest normal
    0x7F7F_FFFF, // max
    0xFF7F_FFFF, // -max
    0x3F7F_FFFF, // all-ones significand
    0x3FFF_FFFF,
    0x4B7F_FFFF,
    0x0FFF_FFFF,
    0x7EFF_FFFF,
    0x3F80_0001,
    0x4F80_0000, // 2^32
    0x5F00_0000, // 2^63
    0x2000_0000,
    0x0100_0000,
    0x4049_0FDB, // pi
];

const F64_EDGES: [u64; 28] = [
    0,
    0x8000_0000_0000_0000,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x4008_0000_0000_0000,
    0x3FB9_9999_9999_999A,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0x7FF8_0000_1234_5678,
    0xFFF8_0000_0000_0001,
    0x7FF0_0000_0000_0001,
    0xFFF4_0000_0000_0042,
    1,
    0x800F_FFFF_FFFF_FFFF,
    0x0008_0000_0000_0000,
    0x0010_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    0x3FEF_FFFF_FFFF_FFFF,
    0x3FFF_FFFF_FFFF_FFFF,
    0x433F_FFFF_FFFF_FFFF,
    0x01FF_FFFF_FFFF_FFFF,
    0x7FDF_FFFF_FFFF_FFFF,
    0x3FF0_0000_0000_0001,
    0x41F0_0000_0000_0000,
    0x2000_0000_0000_0000,
    0x4009_21FB_5444_2D18,
];

fn edges(t: S) -> Vec<u64> {
    match t {
        S::F32 => F32_EDGES.iter().map(|&b| u64::from(b)).collect(),
        _ => F64_EDGES.to_vec(),
    }
}

/// A random float of type `t`, biased toward the hard cases.
fn rand_float(t: S, r: &mut Rng) -> u64 {
    let x = r.next();
    let f32_ = t == S::F32;
    let (mbits, ebits) = if f32_ { (23, 8) } else { (52, 11) };
    let emax = (1u64 << ebits) - 1;
    let sign = (x >> 1 & 1) << (mbits + ebits);
    let mant = r.next() & ((1 << mbits) - 1);
    let e = |v: u64| v << mbits;
    let bits = match r.below(12) {
        0 | 1 => r.next(),
        2 => edges(t)[r.below(edges(t).len() as u64) as usize],
        3 => sign | mant,                                                     // subnormal
        4 => sign | e(1 + r.below(40)) | mant,                                // tiny
        5 => sign | e(emax - 1 - r.below(40)) | mant,                         // huge
        6 => sign | e(1 + r.below(emax - 1)) | (mant & (0xF << (mbits - 4))), // short significand
        7 => sign | e(1 + r.below(emax - 1)) | ((1 << mbits) - 1),            // all-ones significand
        8 => {
            // Small integers.
            let v = (r.below(2000) as i64 - 1000) as f64;
            if f32_ {
                u64::from((v as f32).to_bits())
            } else {
                v.to_bits()
            }
        }
        _ => {
            let mid = if f32_ { 127 } else { 1023 };
            sign | e(mid - 30 + r.below(60)) | mant
        }
    };
    if f32_ {
        bits & 0xFFFF_FFFF
    } else {
        bits
    }
}

fn to_f(t: S, b: u64) -> f64 {
    if t == S::F32 {
        f64::from(f32::from_bits(b as u32))
    } else {
        f64::from_bits(b)
    }
}

fn from_f(t: S, v: f64) -> u64 {
    if t == S::F32 {
        u64::from((v as f32).to_bits())
    } else {
        v.to_bits()
    }
}

/// Operand pairs for `rem`: random pairs, plus exact and near multiples `x = n·y (± 1 ulp)`,
/// huge/tiny ratios and equal magnitudes.
fn rem_pair(t: S, r: &mut Rng) -> (u64, u64) {
    let y = rand_float(t, r);
    match r.below(6) {
        0 | 1 => (rand_float(t, r), y),
        2 => {
            let n = (r.below(1 << 20) + 1) as f64;
            let x = from_f(t, to_f(t, y) * n);
            let x = match r.below(3) {
                0 => x,
                1 => x + 1,
                _ => x.wrapping_sub(1),
            };
            (x, y)
        }
        3 => {
            // Largest magnitudes over the smallest.
            let (mb, eb) = if t == S::F32 { (23u32, 8u32) } else { (52, 11) };
            let big = ((1u64 << eb) - 2 - r.below(3)) << mb | (r.next() & ((1 << mb) - 1));
            // Subnormals with any number of significant bits, or the smallest normals.
            let tiny = match r.below(3) {
                0 => (r.next() & ((1 << mb) - 1)) >> r.below(u64::from(mb)),
                1 => 1 << r.below(8),
                _ => r.next() & ((1 << mb) - 1) | (1 + r.below(2)) << mb,
            };
            (big | (r.next() & 1) << (mb + eb), tiny.max(1) | (r.next() & 1) << (mb + eb))
        }
        4 => (y ^ (r.next() & 1) << (t.bits() - 1), y),
        _ => (y, rand_float(t, r)),
    }
}

// ----- running -------------------------------------------------------------------------------

fn is_host_nan(t: S, bits: u64) -> bool {
    match t {
        S::F32 => bits == 0xFFC0_0000,
        _ => bits == 0xFFF8_0000_0000_0000,
    }
}

fn is_amd_nan(t: S, bits: u64) -> bool {
    match t {
        S::F32 => bits == 0x7FC0_0000,
        _ => bits == 0x7FF8_0000_0000_0000,
    }
}

/// Counts what `compare` saw.
#[derive(Default)]
struct Tally {
    lanes: u64,
    /// Lanes one ULP off (only allowed when `ulp_ok`).
    ulp_off: u64,
    /// Whether a result one ULP from the interpreter's is accepted (and counted).
    ulp_ok: bool,
}

/// Runs the interpreter and the simulator (with `opts`) and compares the output buffer (the
/// last argument) lane by lane (see the module doc for the NaN allowance), counting in `tally`.
fn compare(
    f: &Function,
    k: &CompiledKernel,
    t: Target,
    args: &[ArgValue],
    what: &str,
    opts: &SimOptions,
    tally: &mut Tally,
) {
    let mut want = args.to_vec();
    let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some([1, 1, 1]), ..RunConfig::default() };
    qd_mir::interp::run_kernel(f, &cfg, &mut want).unwrap_or_else(|e| panic!("{what}: interpreter: {e}"));
    let mut got = args.to_vec();
    runner::run(k, [1, 1, 1], &mut got, None, opts)
        .unwrap_or_else(|e| panic!("{t}: {what}: simulator: {e}\n{}", k.asm()));
    let (ArgValue::Buffer(gb), ArgValue::Buffer(wb)) = (got.last().unwrap(), want.last().unwrap()) else {
        panic!("the output is a buffer")
    };
    let (gv, wv) = (gb.to_bits(), wb.to_bits());
    for (lane, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
        tally.lanes += 1;
        let ty = wb.elem;
        if x == y || (is_host_nan(ty, y) && is_amd_nan(ty, x)) {
            continue;
        }
        let sign = 1u64 << (ty.bits() - 1);
        let nan = to_f(ty, y).is_nan() || to_f(ty, x).is_nan();
        if tally.ulp_ok && !nan && x & sign == y & sign && x.abs_diff(y) == 1 {
            tally.ulp_off += 1;
            continue;
        }
        let ins: Vec<String> = args[..args.len() - 1]
            .iter()
            .map(|a| match a {
                ArgValue::Buffer(b) => format!("{:#x}", b.to_bits()[lane]),
                ArgValue::Scalar(_, s) => format!("{s:#x}"),
            })
            .collect();
        panic!("{t}: {what}: lane {lane}: got {x:#x}, want {y:#x} (inputs {})", ins.join(", "));
    }
}

fn buf(t: S, bits: Vec<u64>) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(t, bits))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// Every operand loaded per thread.
    Varying,
    /// The last operand a (non-uniform) parameter: an SGPR.
    Param,
    /// Every operand a `uniform` parameter.
    Uniform,
    /// The last operand a constant.
    Const(u64),
    /// The first operand a constant (binary ops).
    ConstFirst(u64),
}

fn const_text(t: S, bits: u64) -> String {
    if t == S::F32 {
        format!("0x{:08x}", bits as u32)
    } else {
        format!("0x{bits:016x}")
    }
}

/// `%r = <op> %x0[, %x1] : t` over operands produced as `form` says.
fn op_kernel(op: &str, n: usize, t: S, form: Form) -> String {
    let mut params = Vec::new();
    let mut lines = vec!["  %tid = thread_id x : u32".to_string()];
    for j in 0..n {
        let last = j + 1 == n;
        match form {
            Form::Uniform => params.push(format!("%x{j}: {t} uniform")),
            Form::Param if last => params.push(format!("%x{j}: {t}")),
            Form::Const(c) if last => lines.push(format!("  %x{j} = const {} : {t}", const_text(t, c))),
            Form::ConstFirst(c) if j == 0 => lines.push(format!("  %x{j} = const {} : {t}", const_text(t, c))),
            _ => {
                params.push(format!("%b{j}: ptr<global, {t}>"));
                lines.push(format!("  %p{j} = ptr.offset %b{j}, %tid : ptr<global, {t}>"));
                lines.push(format!("  %x{j} = load %p{j} : {t}"));
            }
        }
    }
    params.push(format!("%out: ptr<global, {t}>"));
    let operands: Vec<String> = (0..n).map(|j| format!("%x{j}")).collect();
    lines.push(format!("  %r = {op} {} : {t}", operands.join(", ")));
    lines.push(format!("  %po = ptr.offset %out, %tid : ptr<global, {t}>"));
    lines.push("  store %po, %r".into());
    lines.push("  return".into());
    format!("kernel @k({}) block({LANES}, 1, 1) grid(1, 1, 1) {{\n{}\n}}\n", params.join(", "), lines.join("\n"))
}

/// Lane operands for one launch: `n` columns.
fn lanes(op: &str, t: S, n: usize, r: &mut Rng, round: usize) -> Vec<Vec<u64>> {
    let mut cols = vec![Vec::with_capacity(LANES); n];
    let e = edges(t);
    for lane in 0..LANES {
        // The first launch pairs every edge value with every other (in rotation).
        if round == 0 && lane < e.len() * 4 && n == 2 {
            cols[0].push(e[lane % e.len()]);
            cols[1].push(e[(lane / e.len() * 7 + lane + 1) % e.len()]);
            continue;
        }
        if round == 0 && n == 1 && lane < e.len() {
            cols[0].push(e[lane]);
            continue;
        }
        if n == 2 && op == "rem" {
            let (x, y) = rem_pair(t, r);
            cols[0].push(x);
            cols[1].push(y);
        } else {
            for c in cols.iter_mut() {
                c.push(rand_float(t, r));
            }
        }
    }
    cols
}

/// Runs `op` in every form on every target: `rounds` launches of `LANES` lanes for the varying
/// form, edge values for the scalar forms. Returns the tally.
fn run_op(op: &str, n: usize, t: S, rounds: usize, opts: &SimOptions, ulp_ok: bool) -> Tally {
    let mut tally = Tally { ulp_ok, ..Tally::default() };
    let mut forms = vec![Form::Varying, Form::Param, Form::Uniform];
    for c in [edges(t)[2], edges(t)[4], edges(t)[5], edges(t)[19], edges(t)[13]] {
        forms.push(Form::Const(c));
        if n == 2 {
            forms.push(Form::ConstFirst(c));
        }
    }
    for form in forms {
        let f = kernel(&op_kernel(op, n, t, form));
        for tg in targets() {
            let mut o = AmdgcnOptions::new(tg);
            o.check_regalloc = true;
            let k = qd_isel_amdgcn::compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{tg}: {e}"));
            let what = format!("`{op}` {t} ({form:?})");
            let mut r = Rng(0x1234_5678_9ABC_DEF1 ^ (t.bits() as u64) << 40 ^ op.len() as u64);
            let launches = match form {
                Form::Varying => rounds,
                Form::Param | Form::Uniform => 8,
                Form::Const(_) | Form::ConstFirst(_) => 2,
            };
            for round in 0..launches {
                let cols = lanes(op, t, n, &mut r, round);
                let mut args = Vec::new();
                // Scalar operands: one lane of the generated columns (edge pairs first).
                let pick = (round * 37 + 5) % LANES;
                for (j, col) in cols.into_iter().enumerate() {
                    let last = j + 1 == n;
                    match form {
                        Form::Uniform => args.push(ArgValue::Scalar(t, col[pick])),
                        Form::Param if last => args.push(ArgValue::Scalar(t, col[pick])),
                        Form::Const(_) if last => {}
                        Form::ConstFirst(_) if j == 0 => {}
                        _ => args.push(buf(t, col)),
                    }
                }
                args.push(buf(t, vec![0; LANES]));
                compare(&f, &k, tg, &args, &what, opts, &mut tally);
            }
        }
    }
    eprintln!("`{op}` {t}: {} lanes compared", tally.lanes);
    tally
}

fn exact() -> SimOptions {
    SimOptions::default()
}

fn inexact_trans() -> SimOptions {
    SimOptions { trans_ulp: 1, ..SimOptions::default() }
}

// ----- tests ---------------------------------------------------------------------------------

#[test]
fn div_f32() {
    let t = run_op("div", 2, S::F32, 40, &exact(), false);
    assert!(t.lanes >= 35_000, "{} lanes", t.lanes);
}

#[test]
fn div_f64() {
    let t = run_op("div", 2, S::F64, 40, &exact(), false);
    assert!(t.lanes >= 35_000, "{} lanes", t.lanes);
}

#[test]
fn sqrt_f32() {
    run_op("sqrt", 1, S::F32, 24, &exact(), false);
}

#[test]
fn sqrt_f64() {
    run_op("sqrt", 1, S::F64, 24, &exact(), false);
}

#[test]
fn rem_f32() {
    let t = run_op("rem", 2, S::F32, 40, &exact(), false);
    assert!(t.lanes >= 35_000, "{} lanes", t.lanes);
}

#[test]
fn rem_f64() {
    let t = run_op("rem", 2, S::F64, 40, &exact(), false);
    assert!(t.lanes >= 35_000, "{} lanes", t.lanes);
}

/// With every `v_rcp`/`v_rsq` result one ULP off (up in even lanes, down in odd ones), f32
/// division, square roots and remainders stay exact; f64 division may be one ULP off on a few
/// lanes (all-ones-significand divisors: `seq::div_f64`'s caveat).
#[test]
fn inexact_transcendentals() {
    for t in [S::F32, S::F64] {
        run_op("sqrt", 1, t, 6, &inexact_trans(), false);
        run_op("rem", 2, t, 6, &inexact_trans(), false);
    }
    run_op("div", 2, S::F32, 6, &inexact_trans(), false);
    let d = run_op("div", 2, S::F64, 6, &inexact_trans(), true);
    eprintln!("f64 division with inexact reciprocals: {} of {} lanes one ULP off", d.ulp_off, d.lanes);
    assert!(d.ulp_off * 50 < d.lanes, "f64 division one ULP off on {} of {} lanes", d.ulp_off, d.lanes);
}

/// Every pair of the largest and smallest magnitudes (the longest reductions: exponent gaps up
/// to 276 for f32 and 2097 for f64), with both signs, plus exact and off-by-one-ULP multiples.
#[test]
fn rem_extreme_ratios() {
    for t in [S::F32, S::F64] {
        let (mb, eb) = if t == S::F32 { (23u32, 8u32) } else { (52, 11) };
        let emax = (1u64 << eb) - 2;
        let mmax = (1u64 << mb) - 1;
        let huge =
            [emax << mb | mmax, emax << mb, emax << mb | 1, emax << mb | mmax >> 1, (emax - 1) << mb | 0x5 << (mb - 3)];
        let tiny = [1, 2, 3, 5, 7, mmax, mmax >> 1, 1 << mb, 1 << mb | mmax, 0x1_2345 & mmax, 1 << (mb - 1)];
        let sign = 1u64 << (t.bits() - 1);
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for &h in &huge {
            for &s in &tiny {
                for sg in 0..4u64 {
                    xs.push(h | if sg & 1 == 1 { sign } else { 0 });
                    ys.push(s | if sg & 2 == 2 { sign } else { 0 });
                }
            }
        }
        // Multiples n·y and their neighbours.
        for (j, &s) in tiny.iter().chain(&huge).enumerate() {
            let y = to_f(t, s);
            for n in [1.0, 2.0, 3.0, 1e6 + 1.0, 12345678.0] {
                let x = from_f(t, y * n);
                if to_f(t, x).is_finite() {
                    for d in [0i64, 1, -1] {
                        xs.push(x.wrapping_add_signed(d));
                        ys.push(s | if j % 2 == 1 { sign } else { 0 });
                    }
                }
            }
        }
        let f = kernel(&op_kernel("rem", 2, t, Form::Varying));
        let mut tally = Tally::default();
        for tg in targets() {
            let mut o = AmdgcnOptions::new(tg);
            o.check_regalloc = true;
            let k = qd_isel_amdgcn::compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{tg}: {e}"));
            for (cx, cy) in xs.chunks(LANES).zip(ys.chunks(LANES)) {
                let pad = |c: &[u64]| {
                    let mut v = c.to_vec();
                    v.resize(LANES, c[0]);
                    v
                };
                let args = [buf(t, pad(cx)), buf(t, pad(cy)), buf(t, vec![0; LANES])];
                for opts in [exact(), inexact_trans()] {
                    compare(&f, &k, tg, &args, "rem (extreme ratios)", &opts, &mut tally);
                }
            }
        }
        assert!(xs.len() > 300, "{} pairs", xs.len());
        eprintln!("rem {t} extreme ratios: {} pairs, {} lanes compared", xs.len(), tally.lanes);
    }
}

/// The sequences inside divergent control flow: `rem` on some lanes, `div` and `sqrt` on the
/// others (the allocator's whole-wave moves around the sequences' temporaries).
#[test]
fn in_divergent_branches() {
    for t in [S::F32, S::F64] {
        let f = kernel(&format!(
            "kernel @k(%c: ptr<global, bool>, %a: ptr<global, {t}>, %b: ptr<global, {t}>, %o: ptr<global, {t}>) block({LANES}, 1, 1) grid(1, 1, 1) {{
  %i = thread_id x : u32
  %cp = ptr.offset %c, %i : ptr<global, bool>
  %cv = load %cp : bool
  %ap = ptr.offset %a, %i : ptr<global, {t}>
  %av = load %ap : {t}
  %bp = ptr.offset %b, %i : ptr<global, {t}>
  %bv = load %bp : {t}
  %r = if %cv -> ({t}) {{
    %x = rem %av, %bv : {t}
    yield %x
  }} else {{
    %y = div %av, %bv : {t}
    %z = sqrt %y : {t}
    yield %z
  }}
  %op = ptr.offset %o, %i : ptr<global, {t}>
  store %op, %r
  return
}}
"
        ));
        let mut r = Rng(99);
        let mut tally = Tally::default();
        for tg in targets() {
            let mut o = AmdgcnOptions::new(tg);
            o.check_regalloc = true;
            let k = qd_isel_amdgcn::compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{tg}: {e}"));
            for round in 0..6 {
                let cols = lanes("rem", t, 2, &mut r, round);
                let flags: Vec<u64> = (0..LANES).map(|_| r.below(2)).collect();
                let args =
                    [buf(S::Bool, flags), buf(t, cols[0].clone()), buf(t, cols[1].clone()), buf(t, vec![0; LANES])];
                compare(&f, &k, tg, &args, "rem / div+sqrt in a divergent if", &exact(), &mut tally);
            }
        }
    }
}

/// f32 division uses the variant that is exact with inexact reciprocals (`div_f32_via_f64`).
#[test]
fn f32_division_is_computed_in_f64() {
    let f = kernel(&op_kernel("div", 2, S::F32, Form::Varying));
    for tg in targets() {
        let asm = qd_isel_amdgcn::compile_kernel(&f, &AmdgcnOptions::new(tg)).expect("compiles").asm();
        for want in ["v_rcp_f64", "v_cvt_f32_f64", "v_div_fixup_f32"] {
            assert!(asm.contains(want), "{tg}: no {want}\n{asm}");
        }
        assert!(!asm.contains("v_rcp_f32"), "{tg}: the f32 reciprocal variant\n{asm}");
    }
}

/// 32-bit integer division (`v_rcp_iflag_f32` estimate + corrections) stays exact with the
/// reciprocal one ULP off, for random operands and divisors near powers of two.
#[test]
fn int32_division_with_inexact_reciprocal() {
    let mut r = Rng(4711);
    for t in [S::U32, S::I32] {
        for op in ["div", "rem"] {
            let f = kernel(&op_kernel(op, 2, t, Form::Varying));
            let mut tally = Tally::default();
            for tg in targets() {
                let mut o = AmdgcnOptions::new(tg);
                o.check_regalloc = true;
                let k = qd_isel_amdgcn::compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{tg}: {e}"));
                for _ in 0..8 {
                    let a: Vec<u64> = (0..LANES)
                        .map(|j| match j % 3 {
                            0 => r.next() & 0xFFFF_FFFF,
                            1 => 0xFFFF_FFFF - r.below(4),
                            _ => (r.next() & 0xFFFF_FFFF) >> r.below(32),
                        })
                        .collect();
                    let b: Vec<u64> = (0..LANES)
                        .map(|j| {
                            let p = r.below(32);
                            let v = match j % 4 {
                                0 => (1u64 << p).wrapping_add(r.below(3)).wrapping_sub(1),
                                1 => r.next() & 0xFFFF_FFFF,
                                2 => 0xFFFF_FFFF - r.below(8),
                                _ => (r.next() & 0xFFFF_FFFF) >> r.below(32),
                            } & 0xFFFF_FFFF;
                            v.max(1)
                        })
                        .collect();
                    let args = [buf(t, a), buf(t, b), buf(t, vec![0; LANES])];
                    for opts in [exact(), inexact_trans()] {
                        compare(&f, &k, tg, &args, op, &opts, &mut tally);
                    }
                }
            }
            assert_eq!(tally.ulp_off, 0);
        }
    }
}

/// Size of each lowering on gfx942 (instructions beyond the same kernel with an `add` / `neg`):
/// the unrolled `fmod` is the long one (6 / 46 reduction steps of about 17 instructions).
#[test]
fn sequence_sizes() {
    let count = |op: &str, n: usize, t: S| {
        let f = kernel(&op_kernel(op, n, t, Form::Varying));
        let asm = qd_isel_amdgcn::compile_kernel(&f, &AmdgcnOptions::new(targets()[0])).expect("compiles").asm();
        asm.lines().filter(|l| l.trim_start().starts_with(['v', 's'])).count()
    };
    for (op, n, t, most) in [
        ("div", 2, S::F32, 16),
        ("div", 2, S::F64, 16),
        ("sqrt", 1, S::F32, 32),
        ("sqrt", 1, S::F64, 32),
        ("rem", 2, S::F32, 150),
        ("rem", 2, S::F64, 860),
    ] {
        let base = count(if n == 2 { "add" } else { "neg" }, n, t);
        let extra = count(op, n, t) - base;
        eprintln!("`{op}` {t}: {extra} instructions");
        assert!(extra <= most, "`{op}` {t}: {extra} instructions");
    }
}
