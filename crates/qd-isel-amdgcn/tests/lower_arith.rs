//! Scalar arithmetic on every simulated AMD target against the MIR interpreter: every op × type,
//! with both operands varying (loaded per thread), one operand from a parameter (SGPR operands
//! on the VALU), both operands uniform (the SALU path, several launches of edge values) and a
//! constant operand. 128 lanes of edge cases and random values per kernel.
//!
//! Results are compared bit for bit, with one exception: a NaN *created* by an operation is the
//! host's default NaN in the interpreter (x86: 0xFFC00000 / 0xFFF8000000000000) and the AMD
//! canonical one on the GPU (0x7FC00000 / 0x7FF8000000000000). Propagated NaNs (payloads, signs)
//! must match exactly.

mod lower_util;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{CompiledKernel, Target};
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::{Function, ScalarType as S};

const LANES: usize = 128;

// ----- inputs --------------------------------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn f32b(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn f64b(x: f64) -> u64 {
    x.to_bits()
}

/// Edge cases of a type, then random values (raw bits and, for floats, moderate values).
fn values(t: S, seed: u64) -> Vec<u64> {
    let mut v: Vec<u64> = match t {
        S::Bool => vec![0, 1],
        S::I32 | S::U32 => vec![
            0,
            1,
            2,
            3,
            7,
            31,
            32,
            33,
            63,
            64,
            0xFFFF_FFFF,
            0xFFFF_FFFE,
            0x8000_0000,
            0x7FFF_FFFF,
            0x8000_0001,
            0x1_0000 - 1,
            0x1_0000,
            0xFFFF_0000,
            0x00FF_FFFF,
            0x0100_0001,
            1 << 24,
            (1 << 24) + 1,
        ],
        S::I64 | S::U64 => vec![
            0,
            1,
            2,
            3,
            63,
            64,
            65,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 63) - 1,
            (1 << 63) + 1,
            0xFFFF_FFFF,
            1 << 32,
            (1 << 32) + 1,
            0x8000_0000,
            0xFFFF_FFFF_0000_0000,
            0x0020_0000_0000_0001,
            0x0020_0000_0000_0003,
            0x00FF_FFFF_FFFF_FFFF,
            0x0000_0000_FFFF_FF81,
            0x7FFF_FFFF_FFFF_FDFF,
        ],
        S::F32 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            3.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            2147483648.0,
            -2147483648.0,
            -2147483904.0,
            4294967296.0,
            4294967040.0,
            9.223372e18,
            -9.223372e18,
            1.8446744e19,
            -0.75,
            1e-3,
        ]
        .iter()
        .map(|&x| f32b(x))
        .chain([0x7FC0_0000, 0x7FC1_2345, 0xFFC0_0001, 0x7F80_0001, 0xFF80_0042, 1, 0x807F_FFFF, 0x0040_0000])
        .collect(),
        S::F64 => [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            2147483648.0,
            -2147483649.0,
            4294967295.9,
            4294967296.0,
            9.223372036854775e18,
            9.223372036854776e18,
            -9.223372036854776e18,
            -9.223372036854778e18,
            (u64::MAX - 2047) as f64,
            1.8446744073709552e19,
            f64::from(f32::MAX),
            3.4028235677973366e38,
            1e-300,
            -0.75,
        ]
        .iter()
        .map(|&x| f64b(x))
        .chain([
            0x7FF8_0000_0000_0000,
            0x7FF8_0000_1234_5678,
            0xFFF8_0000_0000_0001,
            0x7FF0_0000_0000_0001,
            1,
            0x800F_FFFF_FFFF_FFFF,
        ])
        .collect(),
    };
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    while v.len() < LANES {
        let x = r.next();
        let k = v.len() % 4;
        v.push(match t {
            S::Bool => x & 1,
            S::I32 | S::U32 => match k {
                0 => x & 0xFFFF_FFFF,
                1 => x & 0xFF,
                2 => (x & 0xFFFF) as u32 as u64,
                _ => (x >> 7) & 0x7FFF_FFFF,
            },
            S::I64 | S::U64 => match k {
                0 => x,
                1 => x & 0xFFFF,
                2 => x & 0xFFFF_FFFF,
                _ => x >> (x % 64),
            },
            S::F32 => match k {
                0 => x & 0xFFFF_FFFF,
                1 => f32b((x % 20001) as f32 / 7.0 - 1400.0),
                2 => f32b(((x >> 11) as f64 / (1u64 << 53) as f64 * 2e10 - 1e10) as f32),
                _ => f32b(((x % 1000) as f32 - 500.0) * 1e7),
            },
            S::F64 => match k {
                0 => x,
                1 => f64b((x % 200_001) as f64 / 7.0 - 14000.0),
                2 => f64b((x >> 11) as f64 / (1u64 << 53) as f64 * 4e19 - 2e19),
                _ => f64b(((x % 1000) as f64 - 500.0) * 1e17),
            },
        });
    }
    v.truncate(LANES);
    v
}

/// The same values rotated, so that lane i pairs different edge cases.
fn rotated(mut v: Vec<u64>, by: usize) -> Vec<u64> {
    let n = v.len();
    v.rotate_left(by % n);
    v
}

// ----- running -------------------------------------------------------------------------------

fn is_default_nan(t: S, bits: u64) -> bool {
    match t {
        S::F32 => bits == 0xFFC0_0000,
        S::F64 => bits == 0xFFF8_0000_0000_0000,
        _ => false,
    }
}

fn is_amd_nan(t: S, bits: u64) -> bool {
    match t {
        S::F32 => bits == 0x7FC0_0000,
        S::F64 => bits == 0x7FF8_0000_0000_0000,
        _ => false,
    }
}

fn compile_for(f: &Function, t: Target) -> CompiledKernel {
    compile(f, t)
}

/// Runs the interpreter and the simulator on `args`; compares every buffer (see the module doc
/// for the one NaN allowance). `inputs` names the arguments for the failure message.
fn compare(f: &Function, k: &CompiledKernel, t: Target, args: &[ArgValue], what: &str) {
    let mut want = args.to_vec();
    let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some([1, 1, 1]), ..RunConfig::default() };
    qd_mir::interp::run_kernel(f, &cfg, &mut want).unwrap_or_else(|e| panic!("{what}: interpreter: {e}"));
    let mut got = args.to_vec();
    runner::run(k, [1, 1, 1], &mut got, None, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{t}: {what}: simulator: {e}\n{}", k.asm()));
    for (ai, (g, w)) in got.iter().zip(&want).enumerate() {
        if let (ArgValue::Buffer(gb), ArgValue::Buffer(wb)) = (g, w) {
            let (gv, wv) = (gb.to_bits(), wb.to_bits());
            for (lane, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
                let ok = x == y || (is_default_nan(wb.elem, y) && is_amd_nan(wb.elem, x));
                if !ok {
                    let ins: Vec<String> = args
                        .iter()
                        .map(|a| match a {
                            ArgValue::Buffer(b) => format!("{:#x}", b.to_bits().get(lane).copied().unwrap_or(0)),
                            ArgValue::Scalar(_, s) => format!("{s:#x}"),
                        })
                        .collect();
                    panic!(
                        "{t}: {what}: argument {ai} lane {lane}: got {x:#x}, want {y:#x} (inputs {})\n{}",
                        ins.join(", "),
                        k.asm()
                    );
                }
            }
        } else {
            assert_eq!(g, w, "{t}: {what}: argument {ai}");
        }
    }
}

fn buf(t: S, bits: Vec<u64>) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(t, bits))
}

fn zeros(t: S) -> ArgValue {
    buf(t, vec![0; LANES])
}

// ----- kernels -------------------------------------------------------------------------------

/// How the operands of the op under test are produced.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// Every operand loaded per thread.
    Varying,
    /// The last operand a non-uniform parameter (in an SGPR, the op on the VALU).
    Param,
    /// Every operand a `uniform` parameter (the SALU path where one exists).
    Uniform,
    /// The last operand a constant.
    Const(u64),
}

/// A kernel computing `%r = <op text over %x0, %x1, …> : rt` for operand types `ts`.
fn op_kernel(body: &str, ts: &[S], rt: S, form: Form) -> String {
    let n = ts.len();
    let mut params = Vec::new();
    let mut lines = vec!["  %tid = thread_id x : u32".to_string()];
    for (j, t) in ts.iter().enumerate() {
        let last = j + 1 == n;
        match form {
            Form::Uniform => params.push(format!("%x{j}: {t} uniform")),
            Form::Param if last => params.push(format!("%x{j}: {t}")),
            Form::Const(bits) if last => lines.push(format!("  %x{j} = const {} : {t}", const_text(*t, bits))),
            _ => {
                params.push(format!("%b{j}: ptr<global, {t}>"));
                lines.push(format!("  %p{j} = ptr.offset %b{j}, %tid : ptr<global, {t}>"));
                lines.push(format!("  %x{j} = load %p{j} : {t}"));
            }
        }
    }
    params.push(format!("%out: ptr<global, {rt}>"));
    lines.push(format!("  %r = {body} : {rt}"));
    lines.push(format!("  %po = ptr.offset %out, %tid : ptr<global, {rt}>"));
    lines.push("  store %po, %r".into());
    lines.push("  return".into());
    format!("kernel @k({}) block({LANES}, 1, 1) grid(1, 1, 1) {{\n{}\n}}\n", params.join(", "), lines.join("\n"))
}

fn const_text(t: S, bits: u64) -> String {
    match t {
        S::Bool => (if bits & 1 == 1 { "true" } else { "false" }).into(),
        S::I32 => (bits as u32 as i32).to_string(),
        S::U32 => (bits as u32).to_string(),
        S::I64 => (bits as i64).to_string(),
        S::U64 => bits.to_string(),
        S::F32 => format!("0x{:08x}", bits as u32),
        S::F64 => format!("0x{bits:016x}"),
    }
}

/// Runs `body` over operands `ts` in every form on every target, with `vals[j]` the lane values
/// of operand j (uniform and parameter forms take edge values of those lists).
fn run_op(body: &str, ts: &[S], rt: S, vals: &[Vec<u64>], consts: &[u64]) {
    let mut forms = vec![Form::Varying, Form::Param, Form::Uniform];
    forms.extend(consts.iter().map(|&c| Form::Const(c)));
    for form in forms {
        let src = op_kernel(body, ts, rt, form);
        let f = kernel(&src);
        for t in targets() {
            let k = compile_for(&f, t);
            let what = format!("`{body}` ({form:?})");
            let n = ts.len();
            // Argument sets: one for varying/const forms; several launches for parameters.
            let launches: Vec<Vec<u64>> = match form {
                Form::Varying | Form::Const(_) => vec![vec![]],
                Form::Param => (0..3).map(|l| vec![vals[n - 1][l * 5 % vals[n - 1].len()]]).collect(),
                Form::Uniform => {
                    (0..6).map(|l| (0..n).map(|j| vals[j][(l * 7 + j * 3) % 24 % vals[j].len()]).collect()).collect()
                }
            };
            for scalars in launches {
                let mut args = Vec::new();
                for (j, &ty) in ts.iter().enumerate() {
                    let last = j + 1 == n;
                    match form {
                        Form::Uniform => args.push(ArgValue::Scalar(ty, scalars[j])),
                        Form::Param if last => args.push(ArgValue::Scalar(ty, scalars[0])),
                        Form::Const(_) if last => {}
                        _ => args.push(buf(ty, vals[j].clone())),
                    }
                }
                args.push(zeros(rt));
                compare(&f, &k, t, &args, &what);
            }
        }
    }
}

const INTS: [S; 4] = [S::I32, S::U32, S::I64, S::U64];
const FLOATS: [S; 2] = [S::F32, S::F64];

fn bin(op: &str, t: S, a: Vec<u64>, b: Vec<u64>, consts: &[u64]) {
    run_op(&format!("{op} %x0, %x1"), &[t, t], t, &[a, b], consts);
}

// ----- tests ---------------------------------------------------------------------------------

#[test]
fn int_add_sub_mul_min_max() {
    for (n, t) in INTS.into_iter().enumerate() {
        for op in ["add", "sub", "mul", "min", "max"] {
            let a = values(t, 1 + n as u64);
            let b = rotated(values(t, 2 + n as u64), 5);
            bin(op, t, a, b, &[1, 0xFFFF_FFFF_FFFF_FFFF]);
        }
    }
}

#[test]
fn int_and_bool_bitwise() {
    for (n, t) in INTS.into_iter().chain([S::Bool]).enumerate() {
        for op in ["and", "or", "xor"] {
            let a = values(t, 10 + n as u64);
            let b = rotated(values(t, 20 + n as u64), 3);
            bin(op, t, a, b, &[0x0001_2345_6781]);
        }
    }
}

#[test]
fn int_shifts() {
    for (n, t) in INTS.into_iter().enumerate() {
        let w = t.bits() as u64;
        let mut r = Rng(77 + n as u64);
        // Amounts: in range, the width and just past it, huge.
        let mut amt: Vec<u64> = vec![0, 1, w - 1, w, w + 1, 2 * w, 0xFFFF_FFFF, u64::MAX, 1 << 32, (1 << 32) + 3];
        while amt.len() < LANES {
            amt.push(r.next() % (w + 8));
        }
        let amt: Vec<u64> = amt.into_iter().map(|x| if w == 32 { x & 0xFFFF_FFFF } else { x }).collect();
        for op in ["shl", "shr"] {
            bin(op, t, values(t, 30 + n as u64), amt.clone(), &[3, w, w - 1]);
        }
    }
}

#[test]
fn int_div_rem() {
    for (n, t) in INTS.into_iter().enumerate() {
        let nz = |v: Vec<u64>| v.into_iter().map(|x| if x == 0 { 1 } else { x }).collect::<Vec<_>>();
        let a = values(t, 40 + n as u64);
        let b = nz(rotated(values(t, 50 + n as u64), 7));
        for op in ["div", "rem"] {
            bin(op, t, a.clone(), b.clone(), &[1, 7, 0xFFFF_FFFF_FFFF_FFFF]);
        }
    }
}

/// The 32-bit reciprocal division against Rust on many random and edge operands.
#[test]
fn int32_div_rem_many() {
    let mut r = Rng(4242);
    for t in [S::U32, S::I32] {
        let src = op_kernel("div %x0, %x1", &[t, t], t, Form::Varying);
        let srcr = op_kernel("rem %x0, %x1", &[t, t], t, Form::Varying);
        let (f, fr) = (kernel(&src), kernel(&srcr));
        let tg = targets()[0];
        let (k, kr) = (compile_for(&f, tg), compile_for(&fr, tg));
        for round in 0..40 {
            let mut a = Vec::new();
            let mut b = Vec::new();
            for j in 0..LANES {
                let x = r.next();
                let sh = (x >> 40) % 32;
                a.push(match j % 3 {
                    0 => x & 0xFFFF_FFFF,
                    1 => u64::from(u32::MAX - (x as u32 % 3)),
                    _ => (x as u32 >> sh) as u64,
                });
                let y = match (j + round) % 5 {
                    0 => 1u64 << (x % 32),
                    1 => (x >> 32) & 0xFFFF_FFFF,
                    2 => u64::from(u32::MAX - (x as u32 % 5)),
                    3 => (x >> 32) as u32 as u64 >> ((x >> 8) % 32),
                    _ => (x >> 13) % 1000,
                };
                b.push(if y == 0 { 3 } else { y });
            }
            let args = vec![buf(t, a), buf(t, b), zeros(t)];
            compare(&f, &k, tg, &args, "div (many)");
            compare(&fr, &kr, tg, &args, "rem (many)");
        }
    }
}

/// Division by zero does not trap: the quotient is all ones, the remainder the dividend.
#[test]
fn int_div_by_zero_is_defined() {
    for t in INTS {
        let ones = if t.bits() == 32 { 0xFFFF_FFFF } else { u64::MAX };
        for (op, rem) in [("div", false), ("rem", true)] {
            let f = kernel(&op_kernel(&format!("{op} %x0, %x1"), &[t, t], t, Form::Varying));
            let a = values(t, 60);
            for tg in targets() {
                let k = compile_for(&f, tg);
                let mut args = vec![buf(t, a.clone()), zeros(t), zeros(t)];
                runner::run(&k, [1, 1, 1], &mut args, None, &SimOptions::default()).expect("runs");
                let ArgValue::Buffer(out) = &args[2] else { panic!("a buffer") };
                let want: Vec<u64> = a.iter().map(|&x| if rem { x } else { ones }).collect();
                assert_eq!(out.to_bits(), want, "{tg}: {op} {t} by zero");
            }
        }
    }
}

#[test]
fn float_add_sub_mul_min_max() {
    for (n, t) in FLOATS.into_iter().enumerate() {
        for op in ["add", "sub", "mul", "min", "max"] {
            let a = values(t, 70 + n as u64);
            let b = rotated(values(t, 80 + n as u64), 9);
            let one = if t == S::F32 { f32b(1.5) } else { f64b(1.5) };
            let nan = if t == S::F32 { 0x7FC0_0ABC } else { 0x7FF8_0000_0000_0ABC };
            bin(op, t, a.clone(), b, &[one, nan]);
            // Each value against itself and every pairing of the edge values.
            bin(op, t, a.clone(), rotated(a.clone(), 1), &[]);
        }
    }
}

/// NaN operands one position at a time: with several NaN operands the interpreter's result is
/// whatever the host's `fma` library picks (glibc prefers a signalling NaN in any position), not
/// a rule the GPU can follow.
#[test]
fn float_fma() {
    for (n, t) in FLOATS.into_iter().enumerate() {
        let is_nan = |b: u64| if t == S::F32 { f32::from_bits(b as u32).is_nan() } else { f64::from_bits(b).is_nan() };
        let one = if t == S::F32 { f32b(1.0) } else { f64b(1.0) };
        let no_nan = |v: Vec<u64>| v.into_iter().map(|b| if is_nan(b) { one } else { b }).collect::<Vec<_>>();
        for nan_at in 0..3 {
            let mut vals =
                vec![values(t, 90 + n as u64), rotated(values(t, 91 + n as u64), 4), rotated(values(t, 92), 11)];
            for (j, v) in vals.iter_mut().enumerate() {
                if j != nan_at {
                    *v = no_nan(std::mem::take(v));
                }
            }
            let c = if t == S::F32 { f32b(-0.25) } else { f64b(-0.25) };
            run_op("fma %x0, %x1, %x2", &[t, t, t], t, &vals, &[c]);
        }
    }
}

#[test]
fn unary_ops() {
    for (n, t) in INTS.into_iter().enumerate() {
        for op in ["neg", "abs", "not", "clz", "popcount", "bitrev"] {
            run_op(&format!("{op} %x0"), &[t], t, &[values(t, 100 + n as u64)], &[]);
        }
    }
    for (n, t) in FLOATS.into_iter().enumerate() {
        for op in ["neg", "abs"] {
            run_op(&format!("{op} %x0"), &[t], t, &[values(t, 110 + n as u64)], &[]);
        }
    }
    run_op("not %x0", &[S::Bool], S::Bool, &[values(S::Bool, 120)], &[]);
}

#[test]
fn compares() {
    for (n, t) in INTS.into_iter().chain(FLOATS).chain([S::Bool]).enumerate() {
        let a = values(t, 130 + n as u64);
        // Pair each value with itself, its neighbour and a random one.
        let b: Vec<u64> =
            a.iter().enumerate().map(|(j, &x)| if j % 3 == 0 { x } else { a[(j * 7 + 1) % a.len()] }).collect();
        let conds: &[&str] = if t == S::Bool { &["eq", "ne"] } else { &["eq", "ne", "lt", "le", "gt", "ge"] };
        for cond in conds {
            run_op(&format!("cmp {cond} %x0, %x1"), &[t, t], S::Bool, &[a.clone(), b.clone()], &[a[4]]);
        }
    }
}

#[test]
fn selects() {
    for (n, t) in INTS.into_iter().chain(FLOATS).chain([S::Bool]).enumerate() {
        let vals = [values(S::Bool, 140 + n as u64), values(t, 150 + n as u64), rotated(values(t, 160), 3)];
        run_op("select %x0, %x1, %x2", &[S::Bool, t, t], t, &vals, &[values(t, 1)[5]]);
    }
}

#[test]
fn casts() {
    let all = [S::Bool, S::I32, S::U32, S::I64, S::U64, S::F32, S::F64];
    for (n, from) in all.into_iter().enumerate() {
        for to in all {
            if from == to {
                continue;
            }
            run_op("cast %x0", &[from], to, &[values(from, 170 + n as u64)], &[]);
        }
    }
}

/// u64/i64 → f32 rounds once: values whose double rounding through f64 would differ.
#[test]
fn casts_64_to_f32_round_once() {
    let mut v: Vec<u64> = vec![
        // 2^60 + 2^36 + 1: halfway in f32 after a first rounding to f64.
        (1 << 60) + (1 << 36) + 1,
        (1 << 60) + (1 << 36),
        (1 << 60) + (1 << 36) - 1,
        (1 << 60) + (3 << 36) + 1,
        0x0000_0100_0000_0001,
        0x0000_0100_8000_0000,
        0x0000_0100_8000_0001,
        0xFFFF_FF80_0000_0000,
        0xFFFF_FF7F_FFFF_FFFF,
        0xFFFF_FFFF_FFFF_FFFF,
        0x8000_0080_0000_0000,
        0x8000_0080_0000_0001,
    ];
    let mut r = Rng(999);
    while v.len() < LANES {
        let x = r.next();
        let bits = 25 + x % 39;
        // Random values with a halfway pattern near the f32 rounding position.
        let top = (x >> 20) | 1 << 63 >> (64 - bits) << (64 - bits);
        v.push(top >> (64 - bits) | (x & 1));
    }
    for t in [S::U64, S::I64] {
        run_op("cast %x0", &[t], S::F32, &[v.clone()], &[]);
    }
}

#[test]
fn bitcasts() {
    let groups = [[S::I32, S::U32, S::F32], [S::I64, S::U64, S::F64]];
    for g in groups {
        for from in g {
            for to in g {
                if from != to {
                    run_op("bitcast %x0", &[from], to, &[values(from, 190)], &[]);
                }
            }
        }
    }
}

#[test]
fn constants_of_every_type() {
    for t in INTS.into_iter().chain(FLOATS).chain([S::Bool]) {
        for bits in values(t, 200).into_iter().take(12) {
            let src = format!(
                "kernel @k(%out: ptr<global, {t}>) block({LANES}, 1, 1) grid(1, 1, 1) {{\n  %tid = thread_id x : u32\n  %c = const {} : {t}\n  %po = ptr.offset %out, %tid : ptr<global, {t}>\n  store %po, %c\n  return\n}}\n",
                const_text(t, bits)
            );
            let f = kernel(&src);
            for tg in targets() {
                let k = compile_for(&f, tg);
                compare(&f, &k, tg, &[zeros(t)], "const");
            }
        }
    }
}

/// Uniform integer ops run on the scalar ALU (the uniform forms above test their values).
#[test]
fn uniform_ints_use_the_salu() {
    let cases = [
        ("add %x0, %x1", S::U64, &["s_add_u32", "s_addc_u32"][..], "v_readfirstlane"),
        ("mul %x0, %x1", S::I32, &["s_mul_i32"][..], "v_mul_lo_u32"),
        ("shl %x0, %x1", S::U32, &["s_lshl_b32", "s_cselect_b32"][..], "v_lshlrev_b32"),
        ("min %x0, %x1", S::I64, &["s_subb_u32", "s_cselect_b32"][..], "v_cmp_lt_i64"),
        ("cmp lt %x0, %x1", S::I32, &["s_cmp_lt_i32", "s_cselect_b32"][..], "v_cmp_lt_i32"),
    ];
    for (body, t, want, not) in cases {
        let rt = if body.starts_with("cmp") { S::Bool } else { t };
        let f = kernel(&op_kernel(body, &[t, t], rt, Form::Uniform));
        for tg in targets() {
            let asm = compile_for(&f, tg).asm();
            for w in want {
                assert!(asm.contains(w), "{tg}: `{body}` {t}: no {w}\n{asm}");
            }
            assert!(!asm.contains(not), "{tg}: `{body}` {t}: {not} on the VALU\n{asm}");
        }
    }
}
