//! Hand-checked values for the division, square-root and rounding helpers, the three-operand
//! min/max/median ops, `v_mad_i64_i32`, `s_bfm`/`s_lshlN_add`, byte and 64-bit LDS operations and
//! 64-bit global atomics, on every target that has them (assembled from text through the codec),
//! plus the GFX9 VCC → `v_div_fmas` hazard (docs/amdgcn-isa-facts.md §11.1 row 18).

mod sim_util;

use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};
use qd_amdgcn_sim::{GlobalMemory, SimErrorKind, WaveSim};
use sim_util::{asm, targets};

/// Runs `text` on lane 0 only, with v[1..] preset from `inputs` (dwords), and returns the wave.
fn lane0(t: Target, text: &str, inputs: &[u32]) -> WaveSim {
    let mut s = WaveSim::new(t, 32, 16, 0);
    s.set_exec(1);
    for (i, &v) in inputs.iter().enumerate() {
        s.set_vgpr(1 + i as u32, 0, v).unwrap();
    }
    s.run(&asm(text, t), &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
    s
}

fn f32op(t: Target, text: &str, inputs: &[u32]) -> u32 {
    lane0(t, text, inputs).vgpr(0, 0).unwrap()
}

/// An op on f64 pairs: inputs at v[2:3], v[4:5], v[6:7]; result v[0:1].
fn f64op(t: Target, text: &str, inputs: &[u64]) -> u64 {
    let words: Vec<u32> = std::iter::once(0).chain(inputs.iter().flat_map(|&x| [x as u32, (x >> 32) as u32])).collect();
    let s = lane0(t, text, &words);
    u64::from(s.vgpr(0, 0).unwrap()) | u64::from(s.vgpr(1, 0).unwrap()) << 32
}

fn b(x: f32) -> u32 {
    x.to_bits()
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

#[test]
fn rounding_fract_frexp_ldexp() {
    for t in targets() {
        let rndne = |x: f32| f32op(t, "v_rndne_f32 v0, v1", &[b(x)]);
        assert_eq!([rndne(2.5), rndne(3.5), rndne(-0.5), rndne(-1.5)], [b(2.0), b(4.0), b(-0.0), b(-2.0)], "{t}");
        assert_eq!(f64op(t, "v_rndne_f64 v[0:1], v[2:3]", &[d(0.5)]), d(0.0));
        assert_eq!(f64op(t, "v_trunc_f64 v[0:1], v[2:3]", &[d(-2.75)]), d(-2.0));
        assert_eq!(f64op(t, "v_floor_f64 v[0:1], v[2:3]", &[d(-2.25)]), d(-3.0));
        assert_eq!(f32op(t, "v_fract_f32 v0, v1", &[b(-0.25)]), b(0.75), "{t}");
        assert_eq!(f64op(t, "v_fract_f64 v[0:1], v[2:3]", &[d(5.125)]), d(0.125));
        // frexp: 12 = 0.75·2^4; the smallest subnormal f32 = 0.5·2^-148.
        assert_eq!(f32op(t, "v_frexp_mant_f32 v0, v1", &[b(-12.0)]), b(-0.75), "{t}");
        assert_eq!(f32op(t, "v_frexp_exp_i32_f32 v0, v1", &[b(12.0)]), 4, "{t}");
        assert_eq!(f32op(t, "v_frexp_mant_f32 v0, v1", &[1]), b(0.5), "{t}");
        assert_eq!(f32op(t, "v_frexp_exp_i32_f32 v0, v1", &[1]), (-148i32) as u32, "{t}");
        assert_eq!(f32op(t, "v_frexp_exp_i32_f32 v0, v1", &[0x7F80_0000]), 0, "{t} inf → 0");
        assert_eq!(f64op(t, "v_frexp_mant_f64 v[0:1], v[2:3]", &[d(1.0)]), d(0.5));
        let s = lane0(t, "v_frexp_exp_i32_f64 v0, v[2:3]", &[0, 0, 0x3FF0_0000]);
        assert_eq!(s.vgpr(0, 0).unwrap(), 1, "{t} frexp_exp(1.0)");
        // ldexp rounds once into the subnormal range (1.5·2^-149 → tie → 2^-148).
        assert_eq!(f32op(t, "v_ldexp_f32 v0, v1, v2", &[b(1.5), (-149i32) as u32]), 2, "{t}");
        assert_eq!(f32op(t, "v_ldexp_f32 v0, v1, v2", &[b(1.25), (-149i32) as u32]), 1, "{t}");
        assert_eq!(f32op(t, "v_ldexp_f32 v0, v1, v2", &[b(1.0), 128]), 0x7F80_0000, "{t} overflow");
        assert_eq!(f32op(t, "v_ldexp_f32 v0, v1, v2", &[1, 149]), b(1.0), "{t} subnormal input");
        let s = lane0(t, "v_ldexp_f64 v[0:1], v[2:3], v4", &[0, 0, 0x3FF8_0000, (-1074i32) as u32]);
        assert_eq!((s.vgpr(0, 0).unwrap(), s.vgpr(1, 0).unwrap()), (2, 0), "{t} f64 1.5·2^-1074: tie → 2^-1073");
    }
}

#[test]
fn f64_transcendentals_are_correctly_rounded() {
    for t in targets() {
        let sqrt2 = 2f64.sqrt();
        assert_eq!(f64op(t, "v_sqrt_f64 v[0:1], v[2:3]", &[d(2.0)]), d(sqrt2), "{t}");
        assert_eq!(f64op(t, "v_rcp_f64 v[0:1], v[2:3]", &[d(3.0)]), d(1.0 / 3.0), "{t}");
        // 1/sqrt(2^(2k+1)) = sqrt(2)/2^(k+1) exactly as rounded values.
        for k in [-500i32, -3, 0, 1, 200] {
            let x = 2f64.powi(2 * k + 1);
            let want = sqrt2 / 2f64.powi(k + 1);
            assert_eq!(f64op(t, "v_rsq_f64 v[0:1], v[2:3]", &[d(x)]), d(want), "{t} rsq(2^{})", 2 * k + 1);
        }
        assert_eq!(f64op(t, "v_rsq_f64 v[0:1], v[2:3]", &[1]), d(2f64.powi(537)), "{t} rsq(2^-1074)");
        assert_eq!(f64op(t, "v_rsq_f64 v[0:1], v[2:3]", &[d(-0.0)]), d(f64::NEG_INFINITY), "{t}");
        assert!(f64::from_bits(f64op(t, "v_rsq_f64 v[0:1], v[2:3]", &[d(-1.0)])).is_nan(), "{t}");
        assert_eq!(f32op(t, "v_rcp_iflag_f32 v0, v1", &[b(4.0)]), b(0.25), "{t}");
    }
}

#[test]
fn div_scale_fmas_fixup() {
    for t in targets() {
        let vcc = if t.wave == WaveSize::W64 { "vcc" } else { "vcc_lo" };
        // (S0, S1 = den, S2 = num) → (result, vcc bit).
        let scale = |s0: f32, den: f32, num: f32| {
            let s = lane0(t, &format!("v_div_scale_f32 v0, {vcc}, v1, v2, v3"), &[b(s0), b(den), b(num)]);
            (f32::from_bits(s.vgpr(0, 0).unwrap()), s.vcc() & 1 == 1)
        };
        assert_eq!(scale(3.0, 3.0, 6.0), (3.0, false), "{t} ordinary");
        // Quotient near the top of the range: the denominator is scaled up, VCC set.
        assert_eq!(scale(0.5, 0.5, 2e38), (0.5 * 2f32.powi(64), true), "{t}");
        assert_eq!(scale(2e38, 0.5, 2e38), (2e38, true), "{t} the numerator is left alone");
        // A subnormal denominator (2^-137) with a moderate quotient: both scaled up, no
        // post-scale; with 1.0 over it (2^137 overflows) the exponent test comes first.
        let den = f32::from_bits(0x0000_1000);
        assert_eq!(scale(den, den, 2f32.powi(-120)), (den * 2f32.powi(64), false), "{t}");
        assert_eq!(scale(den, den, 1.0), (den * 2f32.powi(64), true), "{t}");
        // A subnormal quotient: the numerator is scaled up, VCC set.
        assert_eq!(scale(1e-30, 1e10, 1e-30), (1e-30 * 2f32.powi(64), true), "{t}");
        // A tiny numerator with a normal quotient: both scaled up.
        assert_eq!(scale(2e-38, 1e-20, 2e-38), (2e-38 * 2f32.powi(64), false), "{t}");
        assert!(scale(1.0, 0.0, 1.0).0.is_nan(), "{t} zero denominator");
        // v_div_fmas: fma, then ×2^64 (|S2| ≥ 2) or ×2^-64 (|S2| < 2) where VCC is set; one rounding.
        let fmas = |vcc_bit: u64, a: f32, bb: f32, c: f32| {
            let mut s = WaveSim::new(t, 16, 16, 0);
            s.set_exec(1);
            s.set_vcc(vcc_bit);
            for (i, x) in [a, bb, c].iter().enumerate() {
                s.set_vgpr(1 + i as u32, 0, b(*x)).unwrap();
            }
            s.run(&asm("v_div_fmas_f32 v0, v1, v2, v3", t), &mut GlobalMemory::new()).unwrap();
            s.vgpr(0, 0).unwrap()
        };
        assert_eq!(fmas(0, 2.0, 3.0, 1.0), b(7.0), "{t}");
        assert_eq!(fmas(1, 2.0, 3.0, 4.0), b(10.0 * 2f32.powi(64)), "{t}");
        assert_eq!(fmas(1, 0.25, 1.0, 0.5), b(0.75 * 2f32.powi(-64)), "{t}");
        // 1.5·2^-85 · 2^-64 = 1.5·2^-149: a tie between subnormals 1 and 2, to even → 2.
        assert_eq!(fmas(1, 1.5 * 2f32.powi(-85), 1.0, 0.0), 2, "{t} single rounding");
        // v_div_fixup (S0 = quotient, S1 = den, S2 = num).
        let fixb = |q: u32, den: u32, num: u32| f32op(t, "v_div_fixup_f32 v0, v1, v2, v3", &[q, den, num]);
        let fix = |q: u32, den: f32, num: f32| fixb(q, b(den), b(num));
        assert_eq!(fix(0, 0.0, 0.0), 0xFFC0_0000, "{t} 0/0");
        assert_eq!(fix(0, f32::INFINITY, f32::NEG_INFINITY), 0xFFC0_0000, "{t} inf/inf");
        assert_eq!(fix(0, -0.0, 1.0), b(f32::NEG_INFINITY), "{t} x/-0");
        assert_eq!(fix(0, 2.0, f32::NEG_INFINITY), b(f32::NEG_INFINITY), "{t} -inf/y");
        assert_eq!(fix(b(1.0), f32::INFINITY, -3.0), b(-0.0), "{t} x/inf");
        assert_eq!(fix(b(5.0), -2.0, 0.0), b(-0.0), "{t} 0/y");
        assert_eq!(fix(0x7FC0_0000, 1e-30, 1e30), 0x7F80_0000, "{t} a NaN quotient is overflow");
        assert_eq!(fix(b(1.0), 1e38, 1e-38), 0, "{t} far below the subnormals");
        assert_eq!(fix(b(-2.5), -2.0, 5.0), b(-2.5), "{t} sign of den·num");
        assert_eq!(fixb(b(2.5), 0x7FA0_0000, 0x7F80_0001), 0x7FC0_0001, "{t} the numerator's NaN first, quieted");
        assert_eq!(fixb(0, 0x7F80_0005, b(1.0)), 0x7FC0_0005, "{t} the denominator's NaN, quieted");
        // f64: the same shape with 2^128.
        assert_eq!(
            f64op(t, &format!("v_div_scale_f64 v[0:1], {vcc}, v[2:3], v[4:5], v[6:7]"), &[d(0.5), d(0.5), d(1e300)]),
            d(0.5 * 2f64.powi(128)),
            "{t}"
        );
        assert_eq!(f64op(t, "v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]", &[0, 0, 0]), 0xFFF8_0000_0000_0000);
    }
}

#[test]
fn cmp_class_bits() {
    let cases: [(u32, u32); 10] = [
        (0x7FA0_0000, 0), // signalling NaN
        (0x7FC0_0000, 1), // quiet NaN
        (0xFF80_0000, 2), // −∞
        (b(-1.0), 3),     // −normal
        (0x8000_0001, 4), // −subnormal
        (0x8000_0000, 5), // −0
        (0, 6),           // +0
        (0x0000_0001, 7), // +subnormal
        (b(1.0), 8),      // +normal
        (0x7F80_0000, 9), // +∞
    ];
    for t in targets() {
        let mut s = WaveSim::new(t, 16, 16, 0);
        for (lane, &(x, _)) in cases.iter().enumerate() {
            s.set_vgpr(1, lane as u32, x).unwrap();
        }
        for bit in 0..10u32 {
            for lane in 0..s.lanes() {
                s.set_vgpr(2, lane, 1 << bit).unwrap();
            }
            let vcc = if t.wave == WaveSize::W64 { "vcc" } else { "vcc_lo" };
            s.run(&asm(&format!("v_cmp_class_f32 {vcc}, v1, v2"), t), &mut GlobalMemory::new())
                .unwrap_or_else(|e| panic!("{t}: {e}"));
            let want = cases.iter().enumerate().filter(|(_, c)| c.1 == bit).fold(0u64, |m, (l, _)| m | 1 << l);
            // Lanes 10.. hold 0 (+0).
            let extra = if bit == 6 { (!0u64 << 10) & if s.lanes() == 64 { u64::MAX } else { 0xFFFF_FFFF } } else { 0 };
            assert_eq!(s.vcc(), want | extra, "{t} class bit {bit}");
        }
        // e64 with an SGPR destination and neg on src0 (−(+∞) is −∞, bit 2), f64.
        let mut s = WaveSim::new(t, 16, 16, 0);
        s.set_exec(1);
        s.set_vgpr(2, 0, 0).unwrap();
        s.set_vgpr(3, 0, 0x7FF0_0000).unwrap();
        let dst = if t.wave == WaveSize::W64 { "s[4:5]" } else { "s4" };
        s.run(&asm(&format!("v_cmp_class_f64_e64 {dst}, -v[2:3], 4"), t), &mut GlobalMemory::new()).unwrap();
        assert_eq!(s.sgpr(4).unwrap(), 1, "{t}");
    }
}

#[test]
fn three_operand_min_max_med_and_mad_i64() {
    for t in targets() {
        let ter = |op: &str, a: u32, bb: u32, c: u32| f32op(t, &format!("{op} v0, v1, v2, v3"), &[a, bb, c]);
        assert_eq!(ter("v_med3_i32", (-5i32) as u32, 7, 2), 2, "{t}");
        assert_eq!(ter("v_med3_u32", (-5i32) as u32, 7, 2), 7, "{t}");
        assert_eq!(ter("v_med3_f32", b(3.0), b(-1.0), b(2.0)), b(2.0), "{t}");
        assert_eq!(ter("v_med3_f32", b(3.0), 0x7FC0_0000, b(2.0)), b(2.0), "{t} NaN: min3 of the others");
        assert_eq!(ter("v_min3_f32", b(3.0), b(-1.0), b(2.0)), b(-1.0), "{t}");
        assert_eq!(ter("v_max3_f32", b(-0.0), b(0.0), b(-1.0)), b(0.0), "{t}");
        assert_eq!(ter("v_min3_i32", 4, (-9i32) as u32, 3), (-9i32) as u32, "{t}");
        assert_eq!(ter("v_min3_u32", 4, (-9i32) as u32, 3), 3, "{t}");
        assert_eq!(ter("v_max3_i32", 4, (-9i32) as u32, 3), 4, "{t}");
        assert_eq!(ter("v_max3_u32", 4, (-9i32) as u32, 3), (-9i32) as u32, "{t}");
        assert_eq!(f32op(t, "v_cvt_f32_ubyte0 v0, v1", &[0x1234_56FE]), b(254.0), "{t}");
        // v_mad_i64_i32: (−3)·5 + (−1) = −16, mask bit = bit 64 of the 65-bit sum (set: negative).
        let mask = if t.wave == WaveSize::W64 { "s[4:5]" } else { "s4" };
        let s = lane0(
            t,
            &format!("v_mad_i64_i32 v[6:7], {mask}, v1, v2, v[4:5]"),
            &[(-3i32) as u32, 5, 0, u32::MAX, u32::MAX],
        );
        let r = u64::from(s.vgpr(6, 0).unwrap()) | u64::from(s.vgpr(7, 0).unwrap()) << 32;
        assert_eq!(r as i64, -16, "{t}");
        assert_eq!(s.sgpr(4).unwrap() & 1, 1, "{t} 65-bit sign");
    }
}

#[test]
fn salu_bfm_and_shift_add() {
    for t in targets() {
        let mut s = WaveSim::new(t, 8, 16, 0);
        s.set_sgpr(8, 0x8000_0001).unwrap();
        s.set_scc(true);
        s.run(&asm("s_bfm_b32 s4, 5, 3", t), &mut GlobalMemory::new()).unwrap();
        assert_eq!((s.sgpr(4).unwrap(), s.scc()), (0b1111_1000, true), "{t} bfm keeps SCC");
        s.run(&asm("s_lshl2_add_u32 s4, s8, 3", t), &mut GlobalMemory::new()).unwrap();
        assert_eq!((s.sgpr(4).unwrap(), s.scc()), (7, true), "{t} carry out of the shift");
        s.run(&asm("s_lshl1_add_u32 s4, 4, 1", t), &mut GlobalMemory::new()).unwrap();
        assert_eq!((s.sgpr(4).unwrap(), s.scc()), (9, false), "{t}");
        s.run(&asm("s_lshl4_add_u32 s4, 1, 2\ns_lshl3_add_u32 s5, 1, 0", t), &mut GlobalMemory::new()).unwrap();
        assert_eq!((s.sgpr(4).unwrap(), s.sgpr(5).unwrap()), (18, 8), "{t}");
    }
}

#[test]
fn lds_bytes_and_64_bit_atomics() {
    for t in targets() {
        let g11 = t.family() == Family::Gfx11;
        let n = |g9: &'static str, g11n: &'static str| if g11 { g11n } else { g9 };
        let mut s = WaveSim::new(t, 16, 8, 256);
        s.set_exec(0b11);
        for lane in 0..2u32 {
            s.set_vgpr(1, lane, 8 * lane).unwrap(); // lane 0 → 0, lane 1 → 8
            s.set_vgpr(2, lane, 0x1_0000 + 0x11 * (lane + 1)).unwrap(); // byte 0x11 / 0x22
            s.set_vgpr(4, lane, 0xFFFF_FFFF).unwrap(); // data = −1 (64-bit)
            s.set_vgpr(5, lane, 0xFFFF_FFFF).unwrap();
        }
        let write_qword = |s: &mut WaveSim, addr: u32, v: u64| {
            s.lds_write(addr, v as u32).unwrap();
            s.lds_write(addr + 4, (v >> 32) as u32).unwrap();
        };
        let read_qword = |s: &WaveSim, addr: u32| {
            u64::from(s.lds_read(addr).unwrap()) | u64::from(s.lds_read(addr + 4).unwrap()) << 32
        };
        // Bytes: lane 0 stores 0x11 at 67, lane 1 0x22 at 75; then read back zero-extended.
        let text = format!(
            "{st} v1, v2 offset:67\n{ld} v3, v1 offset:67\ns_waitcnt lgkmcnt(0)",
            st = n("ds_write_b8", "ds_store_b8"),
            ld = n("ds_read_u8", "ds_load_u8")
        );
        s.run(&asm(&text, t), &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!((s.vgpr(3, 0).unwrap(), s.vgpr(3, 1).unwrap()), (0x11, 0x22), "{t}");
        assert_eq!(s.lds_read(64).unwrap(), 0x1100_0000, "{t} one byte written");
        // 64-bit atomics with return, on qwords at 128 (lane 0) and 136 (lane 1), data −1.
        let start: u64 = 0x0000_0005_0000_0007;
        let cases: [(&str, &str, u64); 9] = [
            ("ds_add_rtn_u64", "ds_add_rtn_u64", start.wrapping_sub(1)),
            ("ds_sub_rtn_u64", "ds_sub_rtn_u64", start + 1),
            ("ds_min_rtn_i64", "ds_min_rtn_i64", u64::MAX),
            ("ds_max_rtn_i64", "ds_max_rtn_i64", start),
            ("ds_min_rtn_u64", "ds_min_rtn_u64", start),
            ("ds_max_rtn_u64", "ds_max_rtn_u64", u64::MAX),
            ("ds_and_rtn_b64", "ds_and_rtn_b64", start),
            ("ds_xor_rtn_b64", "ds_xor_rtn_b64", !start),
            ("ds_wrxchg_rtn_b64", "ds_storexchg_rtn_b64", u64::MAX),
        ];
        for (g9n, g11n, want) in cases {
            write_qword(&mut s, 128, start);
            write_qword(&mut s, 136, start);
            let text = format!("{} v[6:7], v1, v[4:5] offset:128\ns_waitcnt lgkmcnt(0)", n(g9n, g11n));
            s.run(&asm(&text, t), &mut GlobalMemory::new()).unwrap_or_else(|e| panic!("{t}: {e}"));
            for lane in 0..2 {
                let old = u64::from(s.vgpr(6, lane).unwrap()) | u64::from(s.vgpr(7, lane).unwrap()) << 32;
                assert_eq!(old, start, "{t} {g9n} returns the old value");
                assert_eq!(read_qword(&s, 128 + 8 * lane), want, "{t} {g9n} memory");
            }
        }
        write_qword(&mut s, 128, 3);
        s.run(&asm("ds_or_rtn_b64 v[6:7], v1, v[8:9] offset:128\ns_waitcnt lgkmcnt(0)", t), &mut GlobalMemory::new())
            .unwrap();
        assert_eq!(read_qword(&s, 128), 3, "{t} or with v[8:9] = 0");
        // Compare-and-store: GFX9 compares with data0 and stores data1; GFX11 the other way.
        write_qword(&mut s, 128, 40);
        write_qword(&mut s, 136, 41);
        s.set_exec(0b11);
        for lane in 0..2 {
            s.set_vgpr(8, lane, 40).unwrap(); // data0
            s.set_vgpr(9, lane, 0).unwrap();
            s.set_vgpr(10, lane, 99).unwrap(); // data1
            s.set_vgpr(11, lane, 0).unwrap();
        }
        let cmp = n("ds_cmpst_rtn_b64", "ds_cmpstore_rtn_b64");
        let text = format!("{cmp} v[6:7], v1, v[8:9], v[10:11] offset:128\ns_waitcnt lgkmcnt(0)");
        s.run(&asm(&text, t), &mut GlobalMemory::new()).unwrap();
        assert_eq!((s.vgpr(6, 0).unwrap(), s.vgpr(6, 1).unwrap()), (40, 41), "{t} old values");
        if g11 {
            // Stores data0 = 40 where memory equals data1 = 99: neither lane matches.
            assert_eq!((read_qword(&s, 128), read_qword(&s, 136)), (40, 41), "{t}");
        } else {
            // Stores data1 = 99 where memory equals data0 = 40: lane 0 matches.
            assert_eq!((read_qword(&s, 128), read_qword(&s, 136)), (99, 41), "{t}");
        }
        // Misaligned 64-bit atomics are errors.
        s.set_exec(1);
        s.set_vgpr(1, 0, 4).unwrap();
        let err = s.run(&asm("ds_add_rtn_u64 v[6:7], v1, v[4:5] offset:128", t), &mut GlobalMemory::new()).unwrap_err();
        assert_eq!(err.kind, SimErrorKind::Misaligned, "{t}");
    }
}

#[test]
fn global_64_bit_atomics() {
    for t in targets() {
        let g9 = t.family() == Family::Gfx9;
        let rtn = if t.arch == Arch::Gfx942 { "sc0" } else { "glc" };
        let start: u64 = 0x8000_0000_0000_0010; // negative as i64
        let data: u64 = 0x0000_0000_0000_0020;
        let cases: [(&str, &str, u64); 9] = [
            ("global_atomic_swap_x2", "global_atomic_swap_b64", data),
            ("global_atomic_sub_x2", "global_atomic_sub_u64", start - data),
            ("global_atomic_smin_x2", "global_atomic_min_i64", start),
            ("global_atomic_umin_x2", "global_atomic_min_u64", data),
            ("global_atomic_smax_x2", "global_atomic_max_i64", data),
            ("global_atomic_umax_x2", "global_atomic_max_u64", start),
            ("global_atomic_and_x2", "global_atomic_and_b64", 0),
            ("global_atomic_or_x2", "global_atomic_or_b64", start | data),
            ("global_atomic_xor_x2", "global_atomic_xor_b64", start ^ data),
        ];
        for (g9n, g11n, want) in cases {
            let name = if g9 { g9n } else { g11n };
            let mut mem = GlobalMemory::new();
            let buf = mem.alloc(64, 64);
            mem.write(buf + 8, &start.to_le_bytes()).unwrap();
            let mut s = WaveSim::new(t, 16, 8, 0);
            s.set_exec(1);
            s.set_vgpr(1, 0, 8).unwrap();
            s.set_vgpr(4, 0, data as u32).unwrap();
            s.set_vgpr(5, 0, (data >> 32) as u32).unwrap();
            s.set_sgpr(2, buf as u32).unwrap();
            s.set_sgpr(3, (buf >> 32) as u32).unwrap();
            let text = format!("{name} v[6:7], v1, v[4:5], s[2:3] {rtn}\ns_waitcnt vmcnt(0)");
            s.run(&asm(&text, t), &mut mem).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
            let old = u64::from(s.vgpr(6, 0).unwrap()) | u64::from(s.vgpr(7, 0).unwrap()) << 32;
            let bytes = mem.read(buf + 8, 8).unwrap();
            let now = u64::from_le_bytes(bytes.try_into().unwrap());
            assert_eq!((old, now), (start, want), "{t} {name}");
        }
    }
}

#[test]
fn gfx9_div_fmas_waits_four_states_after_a_valu_vcc_write() {
    for t in targets() {
        let vcc = if t.wave == WaveSize::W64 { "vcc" } else { "vcc_lo" };
        let run = |nops: &str| {
            let mut s = WaveSim::new(t, 16, 16, 0);
            let text = format!("v_cmp_eq_u32 {vcc}, v1, v2\n{nops}v_div_fmas_f32 v0, v1, v2, v3");
            s.run(&asm(&text, t), &mut GlobalMemory::new())
        };
        if t.family() == Family::Gfx9 {
            let e = run("s_nop 2\n").unwrap_err();
            assert_eq!(e.kind, SimErrorKind::Hazard, "{t}");
            assert!(e.to_string().contains("row 18"), "{t}: {e}");
            run("s_nop 3\n").unwrap_or_else(|e| panic!("{t}: {e}"));
        } else {
            run("").unwrap_or_else(|e| panic!("{t}: {e}"));
        }
    }
}

#[test]
fn div_fmas_reads_vcc_on_the_constant_bus() {
    let g9 = Target::wave64(Arch::Gfx942);
    assert!(asm_err("v_div_fmas_f32 v0, s1, v2, v3", g9), "GFX9: VCC and s1 are two scalar values");
    let g11 = Target::wave64(Arch::Gfx1100);
    assert!(!asm_err("v_div_fmas_f32 v0, s1, v2, v3", g11), "GFX11 allows two");
    assert!(asm_err("v_div_fmas_f32 v0, s1, s2, v3", g11), "but not three");
}

fn asm_err(text: &str, t: Target) -> bool {
    qd_amdgcn_isa::parse_asm(text, t).is_err()
}

/// The simulator keeps f32/f64 denormals (FLOAT_DENORM_MODE 3); a code object whose descriptor
/// flushes them (qd's writer still writes the assembler default FLOAT_DENORM_MODE_32 = 0) is
/// refused when it has float instructions, and loaded when it has none.
#[test]
fn loader_refuses_float_kernels_with_flushing_descriptors() {
    use qd_amdgcn_isa::code_object::{write_code_object, CodeObjectConfig, KernelCode, KernelResources};
    use qd_amdgcn_isa::{encode_all, parse_asm};
    use qd_amdgcn_sim::Program;
    for t in targets() {
        let object = |text: &str| {
            let code = encode_all(&parse_asm(text, t).unwrap(), t).unwrap();
            let resources = KernelResources { next_free_vgpr: 4, next_free_sgpr: 4, ..KernelResources::default() };
            let kernel = KernelCode { name: "k".into(), code, resources, args: vec![], lines: None };
            write_code_object(&CodeObjectConfig::new(t), &[kernel]).unwrap()
        };
        let e = Program::from_code_object(&object("v_add_f32 v0, v1, v2\ns_endpgm"), None).unwrap_err();
        assert_eq!(e.kind, SimErrorKind::Unsupported, "{t}");
        assert!(e.to_string().contains("FLOAT_DENORM_MODE_32 0"), "{t}: {e}");
        let int_add = if t.family() == Family::Gfx9 { "v_add_u32 v0, v1, v2" } else { "v_add_nc_u32 v0, v1, v2" };
        Program::from_code_object(&object(&format!("{int_add}\ns_endpgm")), None)
            .unwrap_or_else(|e| panic!("{t}: {e}"));
    }
}
