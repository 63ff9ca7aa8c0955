//! Exhaustive semantic proof of every collective candidate sequence in the wave simulator.
//!
//! For every target (gfx942, gfx90a, gfx1100 wave64, gfx1100 wave32) and every type, one kernel
//! holds every applicable collective — reduce, inclusive and exclusive scan for every operator
//! of the type, segmented reduce for add/min/max — at every tile size k = 0..log2(W), each
//! result stored to its own slice of the output, in three settings: inside a divergent `if` (so
//! some lanes are inactive) in a block whose size is not a multiple of the wave (the last wave is
//! partial) and in a block of 64 — both in the whole-wave frame — and in uniform control flow in
//! a block of 64, where EXEC is every lane and the sequences run frameless. The
//! kernel is compiled once per candidate rank: every op is forced (`AmdgcnOptions::op_candidate`)
//! to its j-th candidate by name, so every candidate of every op runs. Each compilation runs on
//! several data sets (NaN payloads including signalling ones, ±0, ±inf, INT_MIN/INT_MAX,
//! all-equal lanes, random values, a different NaN on every lane; several activity and
//! segment-head patterns) with the
//! simulator's hazard and wait checkers on, and every output element is compared bit for bit
//! with the MIR interpreter at the same wave width.

mod lower_util;

use std::collections::BTreeSet;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Target};
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::ScalarType;

const TYPES: [ScalarType; 7] = [
    ScalarType::U32,
    ScalarType::I32,
    ScalarType::F32,
    ScalarType::U64,
    ScalarType::I64,
    ScalarType::F64,
    ScalarType::Bool,
];

/// A tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11 ^ self.0 << 17
    }
}

fn ops_for(ty: ScalarType) -> Vec<&'static str> {
    match ty {
        ScalarType::F32 | ScalarType::F64 => vec!["add", "mul", "min", "max"],
        ScalarType::Bool => vec!["min", "max", "and", "or", "xor"],
        _ => vec!["add", "mul", "min", "max", "and", "or", "xor"],
    }
}

/// The collective ops of the kernel for `ty` at wave width `w` (MIR text of the op, without
/// result).
fn op_texts(ty: ScalarType, w: u32) -> Vec<String> {
    let kmax = w.trailing_zeros();
    let mut v = Vec::new();
    for k in 0..=kmax {
        for op in ops_for(ty) {
            v.push(format!("subgroup.reduce {op} tile({k}) %x : {ty}"));
            v.push(format!("subgroup.scan inclusive {op} tile({k}) %x : {ty}"));
            v.push(format!("subgroup.scan exclusive {op} tile({k}) %x : {ty}"));
            if matches!(op, "add" | "min" | "max") {
                v.push(format!("subgroup.segreduce {op} tile({k}) %x, %hv : {ty}"));
            }
        }
    }
    v
}

/// The kernel: loads `%x`, a head flag and an activity flag per thread; inside `if %cv`
/// (`divergent`, else before it, with every lane active) every op of `ops` stores its result to
/// `o[n * block + tid]`.
fn kernel_text(ty: ScalarType, ops: &[String], block: u32, divergent: bool) -> String {
    let mut s = format!(
        "kernel @k(%a: ptr<global, {ty}>, %h: ptr<global, u32>, %c: ptr<global, bool>, %o: ptr<global, {ty}>) block({block}, 1, 1) grid(1, 1, 1) {{
  %t = thread_id x : u32
  %pa = ptr.offset %a, %t : ptr<global, {ty}>
  %x = load %pa : {ty}
  %ph = ptr.offset %h, %t : ptr<global, u32>
  %hv = load %ph : u32
  %pc = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %pc : bool
"
    );
    if divergent {
        s.push_str("  if %cv {\n");
    }
    for (n, op) in ops.iter().enumerate() {
        let off = n as u32 * block;
        s.push_str(&format!(
            "    %r{n} = {op}\n    %k{n} = const {off} : u32\n    %i{n} = add %t, %k{n} : u32\n    %p{n} = ptr.offset %o, %i{n} : ptr<global, {ty}>\n    store %p{n}, %r{n}\n"
        ));
    }
    if divergent {
        s.push_str("    yield\n  } else {\n    yield\n  }\n");
    }
    s.push_str("  return\n}\n");
    s
}

/// Data set `d` of `n` values of `ty`.
fn values(ty: ScalarType, n: usize, d: u64) -> Vec<u64> {
    let mut r = Rng(d * 7919 + ty.bits() as u64);
    let f32_edge: [u32; 12] = [
        0x7fc0_0000, // qNaN
        0x7f80_0001, // sNaN
        0xffc0_1234, // -qNaN payload
        0x7fa0_0005, // sNaN payload
        0x7f80_0000, // +inf
        0xff80_0000, // -inf
        0x0000_0000,
        0x8000_0000,
        0x3fc0_0000, // 1.5
        0xc010_0000, // -2.25
        0x0000_0001, // denormal
        0x4040_0000, // 3.0
    ];
    let f64_edge: [u64; 12] = [
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0xfff8_0000_0000_1234,
        0x7ff4_0000_0000_0005,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0,
        1 << 63,
        0x3ff8_0000_0000_0000,
        0xc002_0000_0000_0000,
        1,
        0x4008_0000_0000_0000,
    ];
    // Every lane a different NaN (both signs, quiet and signalling): all-NaN tiles, where a
    // float min/max leaves on each lane the NaN of the lane its combination order ends on —
    // with every lane active (data set 6) and with scattered inactive lanes (7).
    if d >= 6 && ty.is_float() {
        return (0..n as u64)
            .map(|i| match (ty, i % 2) {
                (ScalarType::F32, 0) => 0x7fc0_0000 | (i + 1),
                (ScalarType::F32, _) => 0xff80_0000 | (i + 1),
                (_, 0) => 0x7ff8_0000_0000_0000 | (i + 1),
                _ => 0xfff0_0000_0000_0000 | (i + 1),
            })
            .collect();
    }
    let all_equal = r.next();
    (0..n)
        .map(|_| {
            let x = r.next();
            match d % 3 {
                // Edge values.
                0 => match ty {
                    ScalarType::F32 => u64::from(f32_edge[(x >> 7) as usize % f32_edge.len()]),
                    ScalarType::F64 => f64_edge[(x >> 7) as usize % f64_edge.len()],
                    ScalarType::Bool => x & 1,
                    ScalarType::I32 | ScalarType::U32 => {
                        [0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 0, 1, 2, x & 0xffff_ffff][(x >> 7) as usize % 7]
                    }
                    _ => [1 << 63, i64::MAX as u64, u64::MAX, 0, 1, 0xffff_ffff, x][(x >> 7) as usize % 7],
                },
                // All lanes equal.
                1 => match ty {
                    ScalarType::F32 => u64::from(f32_edge[(all_equal >> 7) as usize % f32_edge.len()]),
                    ScalarType::F64 => f64_edge[(all_equal >> 7) as usize % f64_edge.len()],
                    ScalarType::Bool => all_equal & 1,
                    ScalarType::I32 | ScalarType::U32 => all_equal & 0xffff_ffff,
                    _ => all_equal,
                },
                // Random (floats: small finite values, and some NaNs).
                _ => match ty {
                    ScalarType::F32 => {
                        if x.is_multiple_of(16) {
                            u64::from(f32_edge[(x >> 9) as usize % 4])
                        } else {
                            u64::from((((x >> 20) as i32 % 1000) as f32 / 8.0).to_bits())
                        }
                    }
                    ScalarType::F64 => {
                        if x.is_multiple_of(16) {
                            f64_edge[(x >> 9) as usize % 4]
                        } else {
                            (((x >> 20) as i64 % 100_000) as f64 / 16.0).to_bits()
                        }
                    }
                    ScalarType::Bool => x & 1,
                    ScalarType::I32 | ScalarType::U32 => x & 0xffff_ffff,
                    _ => x,
                },
            }
        })
        .collect()
}

/// Head flags for data set `d` (one pattern per data set): random, none, every lane, irregular,
/// around every 16-lane row boundary (the row-crossing steps of the segmented scan trees), and a
/// single head per wave in the upper half.
fn heads(n: usize, d: u64) -> Vec<u64> {
    let mut r = Rng(d * 31 + 5);
    (0..n)
        .map(|i| match d % 6 {
            0 => u64::from(r.next().is_multiple_of(5)) * (i as u64 + 1),
            1 => 0,
            2 => 1,
            3 => u64::from(i % 7 == 3 || i % 13 == 0),
            4 => u64::from(matches!(i % 16, 1 | 15) || i % 32 == 17),
            _ => u64::from(i % 64 == 40),
        })
        .collect()
}

/// Activity flags for data set `d` (the `if` condition).
fn active(n: usize, d: u64) -> Vec<u64> {
    let mut r = Rng(d * 131 + 9);
    (0..n)
        .map(|i| match d % 3 {
            0 => 1,
            1 => u64::from(!r.next().is_multiple_of(4)),
            _ => u64::from(i % 5 != 2),
        })
        .collect()
}

/// Compiles and checks one kernel per candidate rank; returns (kernels, runs, (op, candidate)
/// pairs proven).
fn prove(t: Target, ty: ScalarType, block: u32, divergent: bool) -> (usize, usize, usize) {
    let w = t.wave.lanes();
    let ops = op_texts(ty, w);
    let f = kernel(&kernel_text(ty, &ops, block, divergent));
    let base = AmdgcnOptions::new(t);
    let auto = compile_kernel(&f, &base).unwrap_or_else(|e| panic!("{t}: {e}"));
    assert_eq!(auto.choices.len(), ops.len(), "{t} {ty}: one choice per collective");
    for c in &auto.choices {
        let names: Vec<&str> = c.candidates.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"bpermute ladder"), "{t} {}: {names:?}", c.op);
        // Frameless exactly when EXEC is known to be every lane; the listings say which.
        let framed = divergent || !block.is_multiple_of(w);
        assert_eq!(c.note.contains("whole-wave frame"), framed, "{t} {}: {}", c.op, c.note);
        assert_eq!(c.note.contains("frameless"), !framed, "{t} {}: {}", c.op, c.note);
        for cand in &c.candidates {
            let saves = cand.listing.lines().iter().any(|l| l.starts_with("s_or_saveexec"));
            assert_eq!(saves, framed, "{t} {} {}: {:?}", c.op, cand.name, cand.listing);
        }
        // A candidate that does not name an LDS kind is register-only.
        for cand in &c.candidates {
            let lds = cand.listing.lines().iter().any(|l| l.starts_with("ds_"));
            let named = cand.name.contains("bpermute") || cand.name.contains("swizzle");
            assert!(!lds || named, "{t} {} {}: {:?}", c.op, cand.name, cand.listing);
        }
    }
    let ranks = auto.choices.iter().map(|c| c.candidates.len()).max().unwrap_or(1);
    let n = block as usize;
    let mut proven = BTreeSet::new();
    let mut runs = 0;
    for j in 0..ranks {
        let mut o = base.clone();
        o.check_regalloc = true;
        for c in &auto.choices {
            if let Some(cand) = c.candidates.get(j) {
                o.op_candidate.push((c.inst, cand.name.clone()));
                proven.insert((c.op.clone(), cand.name.clone()));
            }
        }
        let k = compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{t} {ty} rank {j}: {e}"));
        for c in &k.choices {
            if let Some(cand) = c.candidates.get(j) {
                assert_eq!(c.candidates[c.chosen].name, cand.name, "{t} {}: the forced candidate", c.op);
            }
        }
        for d in 0..8u64 {
            let args = [
                ArgValue::Buffer(Buffer::from_bits(ty, values(ty, n, d))),
                ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, heads(n, d))),
                ArgValue::Buffer(Buffer::from_bits(ScalarType::Bool, active(n, d))),
                ArgValue::Buffer(Buffer::from_bits(ty, std::iter::repeat_n(0, n * ops.len()))),
            ];
            let mut want = args.to_vec();
            let cfg = RunConfig { subgroup_size: w, grid: Some([1, 1, 1]), ..RunConfig::default() };
            qd_mir::interp::run_kernel(&f, &cfg, &mut want).unwrap_or_else(|e| panic!("interpreter: {e}"));
            let mut got = args.to_vec();
            runner::run(&k, [1, 1, 1], &mut got, None, &SimOptions::default())
                .unwrap_or_else(|e| panic!("{t} {ty} rank {j} data {d}: simulator: {e}"));
            runner::adopt_host_default_nans(&want, &mut got);
            let (ArgValue::Buffer(g), ArgValue::Buffer(wb)) = (&got[3], &want[3]) else { panic!("buffers") };
            let (g, wb) = (g.to_bits(), wb.to_bits());
            for (opi, op) in ops.iter().enumerate() {
                let bad: Vec<String> = (0..n)
                    .filter(|&i| g[opi * n + i] != wb[opi * n + i])
                    .take(4)
                    .map(|i| format!("lane {i}: got {:#x} want {:#x}", g[opi * n + i], wb[opi * n + i]))
                    .collect();
                if !bad.is_empty() {
                    let c = &k.choices[opi];
                    panic!(
                        "{t} block {block} divergent {divergent} data {d}: `{op}` with `{}`:\n{}\n{}",
                        c.candidates[c.chosen].name,
                        bad.join("\n"),
                        c.candidates[c.chosen].listing.lines().join("\n")
                    );
                }
            }
            runs += 1;
        }
    }
    (ranks, runs, proven.len())
}

fn prove_target(t: Target) {
    let start = std::time::Instant::now();
    let (mut kernels, mut runs, mut pairs) = (0, 0, 0);
    for ty in TYPES {
        for (block, divergent) in [(100u32, true), (64, true), (64, false)] {
            let (k, r, p) = prove(t, ty, block, divergent);
            kernels += k;
            runs += r;
            pairs += p;
        }
    }
    eprintln!(
        "{t}: {pairs} (op, candidate) pairs proven, {kernels} kernels, {runs} simulator runs, {:.1?}",
        start.elapsed()
    );
}

#[test]
fn every_candidate_gfx942() {
    prove_target(Target::wave64(Arch::Gfx942));
}

#[test]
fn every_candidate_gfx90a() {
    prove_target(Target::wave64(Arch::Gfx90a));
}

#[test]
fn every_candidate_gfx1100_w64() {
    prove_target(Target::wave64(Arch::Gfx1100));
}

#[test]
fn every_candidate_gfx1100_w32() {
    prove_target(targets()[3]);
}
