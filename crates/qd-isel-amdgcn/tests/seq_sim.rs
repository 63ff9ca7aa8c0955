//! The `seq` division and square-root sequences, run on the simulator (hazard and wait checks on)
//! on gfx90a, gfx942, gfx1100 wave64 and gfx1100 wave32, agree bit for bit with Rust's IEEE `/`
//! and `sqrt` — both with correctly rounded `v_rcp`/`v_rsq` and with their results one ULP off
//! (`SimOptions::trans_ulp`, up in even lanes and down in odd ones, as the hardware's ≈1 ULP
//! approximations may be) — for thousands of operands per target: random bit patterns of every class,
//! subnormals, zeros, infinities, NaNs, extreme exponents and huge/tiny ratios. A NaN result may
//! be any NaN (the ISA's 0/0 is the negative default NaN; Rust's is target-dependent), but must be
//! a NaN exactly when Rust's is. Also: the register checks reject overlapping temporaries and odd
//! GFX9 pairs.

// The simulator crate's test helpers, shared rather than copied.
#[path = "../../qd-amdgcn-sim/tests/sim_util/mod.rs"]
mod sim_util;

use qd_amdgcn_isa::{decode_all, encode_all, Inst};
use qd_amdgcn_sim::{GlobalMemory, WaveSim};
use qd_isel_amdgcn::seq;
use qd_isel_amdgcn::{Arch, Target};
use sim_util::{targets, Rng};

/// Encodes and decodes `insts` (so the simulator runs what the bytes say) with their offsets.
fn program(insts: &[Inst], t: Target) -> Vec<(u32, Inst)> {
    let bytes = encode_all(insts, t).unwrap_or_else(|e| panic!("{t}: {e}"));
    decode_all(&bytes, t).unwrap_or_else(|e| panic!("{t}: {e}"))
}

/// A random f32 bit pattern, biased toward the cases division and sqrt get wrong.
fn f32_bits(rng: &mut Rng) -> u32 {
    let sign = rng.u32() & 0x8000_0000;
    let mant = rng.u32() & 0x007F_FFFF;
    match rng.below(10) {
        0 | 1 => rng.u32(),
        2 => {
            let specials = [
                0,
                0x8000_0000,
                0x7F80_0000,
                0xFF80_0000,
                0x7FC0_0000,
                0x7FA0_0001,
                1,
                0x007F_FFFF,
                0x0080_0000,
                0x7F7F_FFFF,
                0x3F80_0000,
                0x4000_0000,
                0x3F7F_FFFF,
                0x3F80_0001,
            ];
            specials[rng.below(specials.len() as u32) as usize] | sign
        }
        3 => sign | mant, // subnormal
        4 => sign | (rng.below(24) + 1) << 23 | mant,
        5 => sign | (230 + rng.below(25)) << 23 | mant,
        6 => sign | (rng.below(254) + 1) << 23 | (mant & 0x0070_0000),
        _ => sign | (100 + rng.below(56)) << 23 | mant,
    }
}

/// A random f64 bit pattern, biased like [`f32_bits`].
fn f64_bits(rng: &mut Rng) -> u64 {
    let sign = rng.next() & (1 << 63);
    let mant = rng.next() & ((1 << 52) - 1);
    let exp = |e: u64| e << 52;
    match rng.below(10) {
        0 | 1 => rng.next(),
        2 => {
            let specials: [u64; 12] = [
                0,
                0x7FF0_0000_0000_0000,
                0x7FF8_0000_0000_0000,
                0x7FF4_0000_0000_0001,
                1,
                0x000F_FFFF_FFFF_FFFF,
                0x0010_0000_0000_0000,
                0x7FEF_FFFF_FFFF_FFFF,
                0x3FF0_0000_0000_0000,
                0x4000_0000_0000_0000,
                0x3FEF_FFFF_FFFF_FFFF,
                0x3FF0_0000_0000_0001,
            ];
            specials[rng.below(specials.len() as u32) as usize] | sign
        }
        3 => sign | mant,
        4 => sign | exp(u64::from(rng.below(60)) + 1) | mant,
        5 => sign | exp(1980 + u64::from(rng.below(67))) | mant,
        6 => sign | exp(u64::from(rng.below(2046)) + 1) | (mant & (0xF << 48)),
        _ => sign | exp(900 + u64::from(rng.below(250))) | mant,
    }
}

fn same32(got: u32, want: f32) -> bool {
    if want.is_nan() {
        f32::from_bits(got).is_nan()
    } else {
        got == want.to_bits()
    }
}

/// Equal, or (when `loose`) one ULP apart with the same sign — the caveat of `seq::div_f32` /
/// `seq::div_f64` with a reciprocal one ULP off.
fn near32(got: u32, want: f32, loose: bool) -> bool {
    same32(got, want)
        || (loose && !want.is_nan() && got >> 31 == want.to_bits() >> 31 && got.abs_diff(want.to_bits()) == 1)
}

fn near64(got: u64, want: f64, loose: bool) -> bool {
    same64(got, want)
        || (loose && !want.is_nan() && got >> 63 == want.to_bits() >> 63 && got.abs_diff(want.to_bits()) == 1)
}

fn same64(got: u64, want: f64) -> bool {
    if want.is_nan() {
        f64::from_bits(got).is_nan()
    } else {
        got == want.to_bits()
    }
}

fn read64(sim: &WaveSim, reg: u32, lane: u32) -> u64 {
    u64::from(sim.vgpr(reg, lane).unwrap()) | u64::from(sim.vgpr(reg + 1, lane).unwrap()) << 32
}

fn write64(sim: &mut WaveSim, reg: u32, lane: u32, v: u64) {
    sim.set_vgpr(reg, lane, v as u32).unwrap();
    sim.set_vgpr(reg + 1, lane, (v >> 32) as u32).unwrap();
}

const ROUNDS: u32 = 120;

/// A wave with the transcendental results exact (round 0 mod 2) or one ULP off (odd rounds).
fn wave(t: Target, round: u32) -> WaveSim {
    let mut sim = WaveSim::new(t, 16, 16, 0);
    sim.options.trans_ulp = (round % 2) as i8;
    sim
}

/// Runs an f32 division sequence (`a` in v1, `b` in v2, result in v0) over random operands;
/// `exact_always`: bit-exact also with the reciprocal one ULP off. Returns the number of lanes
/// that were one ULP off in those rounds.
fn check_div_f32(name: &str, t: Target, insts: Vec<Inst>, exact_always: bool) -> u32 {
    let prog = program(&insts, t);
    let mut rng = Rng::new(0xD1F3_2000 + t.wave.lanes() as u64 + t.arch as u64);
    let (mut checked, mut off) = (0, 0);
    for round in 0..ROUNDS {
        let mut sim = wave(t, round);
        let loose = round % 2 == 1 && !exact_always;
        let mut cases = Vec::new();
        for lane in 0..sim.lanes() {
            let (a, b) = (f32_bits(&mut rng), f32_bits(&mut rng));
            sim.set_vgpr(1, lane, a).unwrap();
            sim.set_vgpr(2, lane, b).unwrap();
            cases.push((a, b));
        }
        sim.run(&prog, &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{name} {t}: {e}"));
        for (lane, &(a, b)) in cases.iter().enumerate() {
            let got = sim.vgpr(0, lane as u32).unwrap();
            let want = f32::from_bits(a) / f32::from_bits(b);
            assert!(
                near32(got, want, loose),
                "{name} {t} (trans_ulp {}): {a:#010x} / {b:#010x} ({:e} / {:e}) = {got:#010x}, IEEE {:#010x} ({want:e})",
                round % 2,
                f32::from_bits(a),
                f32::from_bits(b),
                want.to_bits()
            );
            off += u32::from(!same32(got, want));
            checked += 1;
        }
    }
    assert_eq!(checked, ROUNDS * t.wave.lanes());
    off
}

#[test]
fn div_f32_matches_ieee_division() {
    for t in targets() {
        let off = check_div_f32("div_f32", t, seq::div_f32(t, 0, 1, 2, [3, 4, 5, 6, 7]).expect("registers"), false);
        // Off-by-one results need the rare Markstein divisors; the random data hits few or none.
        assert!(off < ROUNDS * t.wave.lanes() / 100, "{t}: {off} lanes one ULP off");
    }
}

#[test]
fn div_f32_via_f64_matches_ieee_division_even_with_inexact_reciprocals() {
    for t in targets() {
        let insts = seq::div_f32_via_f64(t, 0, 1, 2, [4, 6, 8, 10]).expect("registers");
        assert_eq!(check_div_f32("div_f32_via_f64", t, insts, true), 0);
    }
}

/// The divisor with an all-ones significand (Markstein's exception), exactly: `div_f32` is exact
/// with a correctly rounded reciprocal and one ULP off with a reciprocal one ULP off; the f64
/// route is exact either way.
#[test]
fn all_ones_divisor() {
    let t = Target::wave64(Arch::Gfx942);
    let lls = program(&seq::div_f32(t, 0, 1, 2, [3, 4, 5, 6, 7]).expect("registers"), t);
    let wide = program(&seq::div_f32_via_f64(t, 0, 1, 2, [4, 6, 8, 10]).expect("registers"), t);
    let (a, b) = (2.0f32, f32::from_bits(0x3F7F_FFFF));
    let want = (a / b).to_bits();
    for (prog, ulp, exact) in [(&lls, 0, true), (&lls, 1, false), (&wide, 0, true), (&wide, 1, true)] {
        let mut sim = WaveSim::new(t, 16, 16, 0);
        sim.options.trans_ulp = ulp;
        for lane in 0..64 {
            sim.set_vgpr(1, lane, a.to_bits()).unwrap();
            sim.set_vgpr(2, lane, b.to_bits()).unwrap();
        }
        sim.run(prog, &mut GlobalMemory::new()).unwrap();
        // Even lanes get the reciprocal one ULP high, odd lanes one ULP low: from either, the
        // Newton step of div_f32 rounds (a tie, or just below one) to 1.0 instead of 1 + 2^-23.
        for lane in [0, 1] {
            let got = sim.vgpr(0, lane).unwrap();
            if exact {
                assert_eq!(got, want, "trans_ulp {ulp} lane {lane}");
            } else {
                assert_eq!(got, want - 1, "the documented caveat: one ULP low (lane {lane})");
            }
        }
    }
}

#[test]
fn div_f64_matches_ieee_division() {
    for t in targets() {
        let prog = program(&seq::div_f64(t, 0, 2, 4, [6, 8, 10, 12]).expect("registers"), t);
        let mut rng = Rng::new(0xD1F6_4000 + t.wave.lanes() as u64 + t.arch as u64);
        let mut off = 0;
        for round in 0..ROUNDS {
            let mut sim = wave(t, round);
            let loose = round % 2 == 1;
            let mut cases = Vec::new();
            for lane in 0..sim.lanes() {
                let (a, b) = (f64_bits(&mut rng), f64_bits(&mut rng));
                write64(&mut sim, 2, lane, a);
                write64(&mut sim, 4, lane, b);
                cases.push((a, b));
            }
            sim.run(&prog, &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}"));
            for (lane, &(a, b)) in cases.iter().enumerate() {
                let got = read64(&sim, 0, lane as u32);
                let want = f64::from_bits(a) / f64::from_bits(b);
                off += u32::from(!same64(got, want));
                assert!(
                    near64(got, want, loose),
                    "{t} (trans_ulp {}): {a:#018x} / {b:#018x} ({:e} / {:e}) = {got:#018x}, IEEE {:#018x} ({want:e})",
                    round % 2,
                    f64::from_bits(a),
                    f64::from_bits(b),
                    want.to_bits()
                );
            }
        }
        assert!(off < ROUNDS * t.wave.lanes() / 100, "{t}: {off} lanes one ULP off");
    }
}

#[test]
fn sqrt_f64_matches_ieee_sqrt() {
    for t in targets() {
        let prog = program(&seq::sqrt_f64(t, 0, 2, [4, 6, 8, 10], 12).expect("registers"), t);
        let mut rng = Rng::new(0x5F64 + t.wave.lanes() as u64 + t.arch as u64);
        for round in 0..ROUNDS {
            let mut sim = wave(t, round);
            let mut cases = Vec::new();
            for lane in 0..sim.lanes() {
                let x = f64_bits(&mut rng);
                write64(&mut sim, 2, lane, x);
                cases.push(x);
            }
            sim.run(&prog, &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}"));
            for (lane, &x) in cases.iter().enumerate() {
                let got = read64(&sim, 0, lane as u32);
                let want = f64::from_bits(x).sqrt();
                assert!(same64(got, want), "{t}: sqrt({x:#018x}) = {got:#018x}, IEEE {:#018x}", want.to_bits());
            }
        }
    }
}

#[test]
fn sqrt_f32_matches_ieee_sqrt() {
    for t in targets() {
        let prog = program(&seq::sqrt_f32(t, 0, 1, [2, 4, 6, 8], 10).expect("registers"), t);
        let mut rng = Rng::new(0x5F32 + t.wave.lanes() as u64 + t.arch as u64);
        for round in 0..ROUNDS {
            let mut sim = wave(t, round);
            let mut cases = Vec::new();
            for lane in 0..sim.lanes() {
                let x = f32_bits(&mut rng);
                sim.set_vgpr(1, lane, x).unwrap();
                cases.push(x);
            }
            sim.run(&prog, &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}"));
            for (lane, &x) in cases.iter().enumerate() {
                let got = sim.vgpr(0, lane as u32).unwrap();
                let want = f32::from_bits(x).sqrt();
                assert!(same32(got, want), "{t}: sqrt({x:#010x}) = {got:#010x}, IEEE {:#010x}", want.to_bits());
            }
        }
    }
}

/// Subnormal quotients that are exactly halfway between two f32 values (odd·2^-149 / 2): round
/// to even, also when the reciprocal is one ULP off — the remainder step of `div_f32_via_f64`
/// makes the f64 quotient exact before its one rounding.
#[test]
fn subnormal_midpoint_quotients_round_to_even() {
    for t in targets() {
        let lls = program(&seq::div_f32(t, 0, 1, 2, [3, 4, 5, 6, 7]).expect("registers"), t);
        let wide = program(&seq::div_f32_via_f64(t, 0, 1, 2, [4, 6, 8, 10]).expect("registers"), t);
        for (name, prog, ulps) in [("div_f32", &lls, &[0][..]), ("div_f32_via_f64", &wide, &[0, 1][..])] {
            for &ulp in ulps {
                let mut sim = WaveSim::new(t, 16, 16, 0);
                sim.options.trans_ulp = ulp;
                let mut cases = Vec::new();
                for lane in 0..sim.lanes() {
                    let a = (((2 * lane + 1) * 0x3_0001) & 0x007F_FFFF) | 1 | ((lane & 1) << 31);
                    let b = [2.0f32, -2.0, 6.0, 0.5][lane as usize % 4].to_bits();
                    sim.set_vgpr(1, lane, a).unwrap();
                    sim.set_vgpr(2, lane, b).unwrap();
                    cases.push((a, b));
                }
                sim.run(prog, &mut GlobalMemory::new()).unwrap();
                for (lane, &(a, b)) in cases.iter().enumerate() {
                    let want = (f32::from_bits(a) / f32::from_bits(b)).to_bits();
                    let got = sim.vgpr(0, lane as u32).unwrap();
                    assert_eq!(got, want, "{name} {t} trans_ulp {ulp}: {a:#010x} / {b:#010x}");
                }
            }
        }
    }
}

/// Every square of a float is an exact case for sqrt; every product of two floats with an exact
/// quotient for division — the cases where a last-bit error is most visible.
#[test]
fn exact_quotients_and_roots_are_exact() {
    let t = Target::wave64(Arch::Gfx942);
    let div = program(&seq::div_f64(t, 0, 2, 4, [6, 8, 10, 12]).expect("registers"), t);
    let sqrt = program(&seq::sqrt_f64(t, 0, 2, [4, 6, 8, 10], 12).expect("registers"), t);
    let mut rng = Rng::new(77);
    for _ in 0..40 {
        let mut sim = WaveSim::new(t, 16, 16, 0);
        let mut cases = Vec::new();
        for lane in 0..64 {
            // 26-bit significands so products and squares are exact.
            let a = f64::from(rng.u32() >> 6) * 2f64.powi(rng.below(200) as i32 - 100);
            let b = f64::from(rng.u32() >> 6 | 1) * 2f64.powi(rng.below(200) as i32 - 100);
            write64(&mut sim, 2, lane, (a * b).to_bits());
            write64(&mut sim, 4, lane, b.to_bits());
            cases.push((a, b));
        }
        sim.run(&div, &mut GlobalMemory::new()).unwrap();
        for (lane, &(a, _)) in cases.iter().enumerate() {
            assert_eq!(f64::from_bits(read64(&sim, 0, lane as u32)), a);
        }
        let mut sim = WaveSim::new(t, 16, 16, 0);
        for (lane, &(a, _)) in cases.iter().enumerate() {
            write64(&mut sim, 2, lane as u32, (a * a).to_bits());
        }
        sim.run(&sqrt, &mut GlobalMemory::new()).unwrap();
        for (lane, &(a, _)) in cases.iter().enumerate() {
            assert_eq!(f64::from_bits(read64(&sim, 0, lane as u32)), a.abs());
        }
    }
}

#[test]
fn register_rules_are_checked() {
    let g9 = Target::wave64(Arch::Gfx942);
    let g11 = Target::wave64(Arch::Gfx1100);
    assert!(seq::div_f32(g9, 0, 1, 2, [3, 4, 5, 6, 1]).is_err(), "temporary aliases a");
    assert!(seq::div_f32(g9, 0, 1, 2, [3, 4, 5, 6, 6]).is_err(), "temporaries alias");
    assert!(seq::div_f32(g9, 1, 1, 1, [3, 4, 5, 6, 7]).is_ok(), "dst and both sources may alias");
    assert!(seq::div_f64(g9, 0, 3, 4, [6, 8, 10, 12]).is_err(), "odd pair on GFX9");
    assert!(seq::div_f64(g11, 0, 3, 5, [7, 9, 11, 13]).is_ok(), "odd pairs are fine on GFX11");
    assert!(seq::div_f64(g9, 0, 2, 4, [6, 7, 10, 12]).is_err(), "odd temporary pair");
    assert!(seq::div_f64(g11, 0, 2, 4, [6, 7, 10, 12]).is_err(), "overlapping temporary pairs");
    assert!(seq::sqrt_f64(g9, 0, 2, [4, 6, 8, 10], 11).is_err(), "k overlaps a pair");
    assert!(seq::sqrt_f64(g9, 2, 2, [4, 6, 8, 10], 12).is_ok(), "dst may alias x");
    assert!(seq::sqrt_f32(g9, 0, 254, [2, 4, 6, 254], 10).is_err(), "temporary overlaps x");
    assert!(seq::div_f32(g9, 0, 1, 2, [3, 4, 5, 6, 256]).is_err(), "v256 does not exist");
    assert!(seq::div_f32_via_f64(g9, 1, 1, 2, [4, 6, 8, 10]).is_ok(), "dst may alias a");
    assert!(seq::div_f32_via_f64(g9, 0, 1, 4, [4, 6, 8, 10]).is_err(), "temporary overlaps b");
}
