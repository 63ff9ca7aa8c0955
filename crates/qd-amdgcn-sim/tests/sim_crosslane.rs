//! Cross-lane instructions in the simulator against an independent plain-Rust model written here
//! from the documented semantics (docs/amdgcn-isa-facts.md §9–§10, the RDNA3 /
//! MI200 ISA guides' pseudocode): every DPP16 control on every architecture that has it, DPP8,
//! `v_permlane16/x16/64`, every `ds_swizzle` mode, `ds_bpermute`/`ds_permute`, and
//! `v_readlane/writelane/readfirstlane`, with random data, random and partial EXEC and varied
//! row/bank masks, bound_ctrl and fi, checked lane by lane. The model never calls simulator code or
//! `DppCtrl::src_lane`. Instructions go through the real assembler, encoder and decoder.

mod sim_util;

use qd_amdgcn_isa::{Arch, Family, Target};
use qd_amdgcn_sim::WaveSim;
use sim_util::{run, targets, Rng};

fn fresh(t: Target) -> WaveSim {
    WaveSim::new(t, 8, 8, 0)
}

fn set_reg(sim: &mut WaveSim, reg: u32, vals: &[u32]) {
    for (lane, &v) in vals.iter().enumerate() {
        sim.set_vgpr(reg, lane as u32, v).expect("set vgpr");
    }
}

fn reg(sim: &WaveSim, reg: u32) -> Vec<u32> {
    (0..sim.lanes()).map(|l| sim.vgpr(reg, l).expect("read vgpr")).collect()
}

fn random_lanes(rng: &mut Rng, lanes: u32) -> Vec<u32> {
    (0..lanes).map(|_| rng.u32()).collect()
}

fn on(exec: u64, lane: u32) -> bool {
    exec >> lane & 1 == 1
}

/// A DPP16 control, as the model sees it.
#[derive(Clone, Copy, Debug)]
enum Ctl {
    Quad([u32; 4]),
    Shl(u32),
    Shr(u32),
    Ror(u32),
    WaveShl,
    WaveRol,
    WaveShr,
    WaveRor,
    Mirror,
    HalfMirror,
    Bcast15,
    Bcast31,
    Share(u32),
    Xmask(u32),
}

fn controls(arch: Arch, rng: &mut Rng) -> Vec<Ctl> {
    let mut v = vec![
        Ctl::Quad([0, 1, 2, 3]),
        Ctl::Quad([1, 0, 3, 2]),
        Ctl::Quad([3, 2, 1, 0]),
        Ctl::Quad([0, 0, 0, 0]),
        Ctl::Quad([3, 3, 3, 3]),
        Ctl::Mirror,
        Ctl::HalfMirror,
    ];
    for _ in 0..6 {
        v.push(Ctl::Quad([rng.below(4), rng.below(4), rng.below(4), rng.below(4)]));
    }
    for n in 1..=15 {
        v.extend([Ctl::Shl(n), Ctl::Shr(n), Ctl::Ror(n)]);
    }
    let gfx9 = arch.family() == Family::Gfx9;
    for n in 0..=15 {
        if !(gfx9 && n == 0) {
            v.push(Ctl::Share(n));
        }
        if !gfx9 {
            v.push(Ctl::Xmask(n));
        }
    }
    if gfx9 {
        v.extend([Ctl::WaveShl, Ctl::WaveRol, Ctl::WaveShr, Ctl::WaveRor, Ctl::Bcast15, Ctl::Bcast31]);
    }
    v
}

fn ctl_text(c: Ctl, gfx9: bool) -> String {
    match c {
        Ctl::Quad(s) => format!("quad_perm:[{},{},{},{}]", s[0], s[1], s[2], s[3]),
        Ctl::Shl(n) => format!("row_shl:{n}"),
        Ctl::Shr(n) => format!("row_shr:{n}"),
        Ctl::Ror(n) => format!("row_ror:{n}"),
        Ctl::WaveShl => "wave_shl:1".into(),
        Ctl::WaveRol => "wave_rol:1".into(),
        Ctl::WaveShr => "wave_shr:1".into(),
        Ctl::WaveRor => "wave_ror:1".into(),
        Ctl::Mirror => "row_mirror".into(),
        Ctl::HalfMirror => "row_half_mirror".into(),
        Ctl::Bcast15 => "row_bcast:15".into(),
        Ctl::Bcast31 => "row_bcast:31".into(),
        Ctl::Share(n) if gfx9 => format!("row_newbcast:{n}"),
        Ctl::Share(n) => format!("row_share:{n}"),
        Ctl::Xmask(n) => format!("row_xmask:{n}"),
    }
}

/// §9.1's src(i) column, restated.
fn model_src(c: Ctl, lane: u32, lanes: u32) -> Option<u32> {
    let row_base = lane / 16 * 16;
    let i = lane % 16;
    match c {
        Ctl::Quad(s) => Some(lane / 4 * 4 + s[(lane % 4) as usize]),
        Ctl::Shl(n) => (i + n <= 15).then(|| lane + n),
        Ctl::Shr(n) => (i >= n).then(|| lane - n),
        Ctl::Ror(n) => Some(row_base + (i + 16 - n) % 16),
        Ctl::WaveShl => (lane + 1 < lanes).then(|| lane + 1),
        Ctl::WaveRol => Some((lane + 1) % lanes),
        Ctl::WaveShr => (lane > 0).then(|| lane - 1),
        Ctl::WaveRor => Some((lane + lanes - 1) % lanes),
        Ctl::Mirror => Some(row_base + 15 - i),
        Ctl::HalfMirror => Some(lane / 8 * 8 + 7 - lane % 8),
        Ctl::Bcast15 => (lane >= 16).then(|| row_base - 16 + 15),
        Ctl::Bcast31 => (lane >= 32).then_some(31),
        Ctl::Share(n) => Some(row_base + n),
        Ctl::Xmask(n) => Some(row_base + (i ^ n)),
    }
}

struct DppCase {
    row_mask: u32,
    bank_mask: u32,
    bc: bool,
    fi: bool,
}

/// §9.2: masked-off lanes and invalid sources without BOUND_CTRL keep `old`; an invalid source
/// with BOUND_CTRL reads 0; an inactive source is invalid unless fi (GFX11).
fn model_dpp16(c: Ctl, k: &DppCase, exec: u64, lanes: u32, old: &[u32], src: &[u32], add: Option<&[u32]>) -> Vec<u32> {
    (0..lanes)
        .map(|lane| {
            let o = old[lane as usize];
            if !on(exec, lane) || k.row_mask >> (lane / 16) & 1 == 0 || k.bank_mask >> (lane / 4 % 4) & 1 == 0 {
                return o;
            }
            let value = match model_src(c, lane, lanes).filter(|&s| s < lanes && (on(exec, s) || k.fi)) {
                Some(s) => src[s as usize],
                None if k.bc => 0,
                None => return o,
            };
            match add {
                Some(b) => value.wrapping_add(b[lane as usize]),
                None => value,
            }
        })
        .collect()
}

fn masks_text(k: &DppCase, gfx9: bool) -> String {
    let mut s = format!(" row_mask:0x{:x} bank_mask:0x{:x}", k.row_mask, k.bank_mask);
    if k.bc {
        // GFX9 assembler text spells the set BOUND_CTRL bit `bound_ctrl:0` (historical).
        s += if gfx9 { " bound_ctrl:0" } else { " bound_ctrl:1" };
    }
    if k.fi {
        s += " fi:1";
    }
    s
}

#[test]
fn dpp16_every_control_every_arch() {
    let mut rng = Rng::new(1);
    let mut checked = 0;
    for t in targets() {
        let gfx9 = t.family() == Family::Gfx9;
        let lanes = t.wave.lanes();
        for c in controls(t.arch, &mut rng) {
            for trial in 0..6 {
                let full = trial < 2;
                let k = DppCase {
                    row_mask: if full { 0xF } else { rng.below(16) },
                    bank_mask: if full { 0xF } else { rng.below(16) },
                    bc: rng.bool(),
                    fi: !gfx9 && rng.bool(),
                };
                let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
                let (old, src, b) =
                    (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
                let vop2 = trial % 2 == 1;
                let text = if vop2 {
                    let name = if gfx9 { "v_add_u32_dpp" } else { "v_add_nc_u32_dpp" };
                    format!("{name} v0, v1, v2 {}{}", ctl_text(c, gfx9), masks_text(&k, gfx9))
                } else {
                    format!("v_mov_b32_dpp v0, v1 {}{}", ctl_text(c, gfx9), masks_text(&k, gfx9))
                };
                let mut sim = fresh(t);
                set_reg(&mut sim, 0, &old);
                set_reg(&mut sim, 1, &src);
                set_reg(&mut sim, 2, &b);
                sim.set_exec(exec);
                run(&mut sim, t, &text).unwrap_or_else(|e| panic!("{t}: {text}: {e}"));
                let want = model_dpp16(c, &k, exec, lanes, &old, &src, vop2.then_some(&b[..]));
                let got = reg(&sim, 0);
                for lane in 0..lanes as usize {
                    assert_eq!(got[lane], want[lane], "{t}: `{text}` exec={exec:#x} lane {lane}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn dpp16_edge_rules_by_hand() {
    // row_shr:1, lane 16 has no in-row source: BOUND_CTRL=1 reads 0, otherwise keeps old.
    for (t, bc_text) in
        [(Target::wave64(Arch::Gfx942), " bound_ctrl:0"), (Target::wave64(Arch::Gfx1100), " bound_ctrl:1")]
    {
        for bc in [false, true] {
            let mut sim = fresh(t);
            set_reg(&mut sim, 0, &vec![7; 64]);
            set_reg(&mut sim, 1, &(100..164).collect::<Vec<u32>>());
            let text =
                format!("v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf{}", if bc { bc_text } else { "" });
            run(&mut sim, t, &text).expect("runs");
            assert_eq!(sim.vgpr(0, 17).unwrap(), 116);
            assert_eq!(sim.vgpr(0, 16).unwrap(), if bc { 0 } else { 7 }, "{t} bc={bc}");
        }
    }
}

#[test]
fn dpp8_every_selector_pattern() {
    let mut rng = Rng::new(2);
    for t in targets().into_iter().filter(|t| t.family() == Family::Gfx11) {
        let lanes = t.wave.lanes();
        for trial in 0..60 {
            let sel: Vec<u32> = (0..8).map(|_| rng.below(8)).collect();
            let fi = rng.bool();
            let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
            let (old, src) = (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
            let list = sel.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
            let text = format!("v_mov_b32_dpp v0, v1 dpp8:[{list}]{}", if fi { " fi:1" } else { "" });
            let mut sim = fresh(t);
            set_reg(&mut sim, 0, &old);
            set_reg(&mut sim, 1, &src);
            sim.set_exec(exec);
            run(&mut sim, t, &text).unwrap_or_else(|e| panic!("{t}: {text}: {e}"));
            let got = reg(&sim, 0);
            for lane in 0..lanes {
                let s = lane / 8 * 8 + sel[(lane % 8) as usize];
                let want = if !on(exec, lane) {
                    old[lane as usize]
                } else if on(exec, s) || fi {
                    src[s as usize]
                } else {
                    0
                };
                assert_eq!(got[lane as usize], want, "{t}: `{text}` exec={exec:#x} lane {lane}");
            }
        }
    }
}

#[test]
fn permlane16_and_x16() {
    let mut rng = Rng::new(3);
    for t in targets().into_iter().filter(|t| t.family() == Family::Gfx11) {
        let lanes = t.wave.lanes();
        for cross in [false, true] {
            for trial in 0..40 {
                let (lo, hi) = (rng.u32(), rng.u32());
                let (fi, bc) = (rng.bool(), rng.bool());
                let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
                let (old, src) = (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
                let name = if cross { "v_permlanex16_b32" } else { "v_permlane16_b32" };
                let op_sel =
                    if fi || bc { format!(" op_sel:[{},{}]", u8::from(fi), u8::from(bc)) } else { String::new() };
                let text = format!("{name} v0, v1, s2, s3{op_sel}");
                let mut sim = fresh(t);
                set_reg(&mut sim, 0, &old);
                set_reg(&mut sim, 1, &src);
                sim.set_sgpr(2, lo).unwrap();
                sim.set_sgpr(3, hi).unwrap();
                sim.set_exec(exec);
                run(&mut sim, t, &text).unwrap_or_else(|e| panic!("{t}: {text}: {e}"));
                let got = reg(&sim, 0);
                let sel = u64::from(hi) << 32 | u64::from(lo);
                for lane in 0..lanes {
                    let row = lane / 16;
                    let src_row = if cross { row ^ 1 } else { row };
                    let s = src_row * 16 + ((sel >> (4 * (lane % 16))) & 0xF) as u32;
                    let want = if !on(exec, lane) {
                        old[lane as usize]
                    } else if on(exec, s) || fi {
                        src[s as usize]
                    } else if bc {
                        0
                    } else {
                        old[lane as usize]
                    };
                    assert_eq!(got[lane as usize], want, "{t}: `{text}` sel={sel:#x} exec={exec:#x} lane {lane}");
                }
            }
        }
    }
}

#[test]
fn permlane64_swaps_halves() {
    let mut rng = Rng::new(4);
    for t in targets().into_iter().filter(|t| t.family() == Family::Gfx11) {
        let lanes = t.wave.lanes();
        for trial in 0..20 {
            let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
            let (old, src) = (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
            let mut sim = fresh(t);
            set_reg(&mut sim, 0, &old);
            set_reg(&mut sim, 1, &src);
            sim.set_exec(exec);
            run(&mut sim, t, "v_permlane64_b32 v0, v1").expect("runs");
            let got = reg(&sim, 0);
            for lane in 0..lanes {
                // wave64: the other half, even from an inactive lane; wave32: no operation.
                let want = if lanes == 32 || !on(exec, lane) { old[lane as usize] } else { src[(lane ^ 32) as usize] };
                assert_eq!(got[lane as usize], want, "{t} exec={exec:#x} lane {lane}");
            }
        }
    }
}

fn rev5(x: u32) -> u32 {
    (0..5).fold(0, |acc, b| acc | ((x >> b) & 1) << (4 - b))
}

/// The ds_swizzle source lane, restated from the ISA guides' DS_SWIZZLE_B32 pseudocode.
fn model_swizzle(offset: u32, i: u32) -> u32 {
    let group = i / 32 * 32;
    let lane = i % 32;
    if offset >= 0xE000 {
        let mask = offset & 31;
        let ones = (0..5).filter(|b| mask >> b & 1 == 1).count() as u32;
        group + ((rev5(lane) >> ones) | (lane & mask)) % 32
    } else if offset >= 0xC000 {
        let amount = (offset >> 5) & 31;
        let mask = offset & 31;
        let moved = if offset & (1 << 10) != 0 { (lane + 32 - amount) % 32 } else { (lane + amount) % 32 };
        group + ((lane & mask) | (moved & !mask & 31))
    } else if offset & 0x8000 != 0 {
        i / 4 * 4 + ((offset >> (2 * (i % 4))) & 3)
    } else {
        let (and, or, xor) = (offset & 31, (offset >> 5) & 31, (offset >> 10) & 31);
        group + (((lane & and) | or) ^ xor)
    }
}

fn swizzle_offsets(rng: &mut Rng) -> Vec<String> {
    let mut v: Vec<String> = [
        "swizzle(QUAD_PERM,1,0,3,2)",
        "swizzle(QUAD_PERM,0,0,0,0)",
        "swizzle(SWAP,1)",
        "swizzle(SWAP,2)",
        "swizzle(SWAP,4)",
        "swizzle(SWAP,8)",
        "swizzle(SWAP,16)",
        "swizzle(REVERSE,2)",
        "swizzle(REVERSE,8)",
        "swizzle(REVERSE,32)",
        "swizzle(BROADCAST,2,0)",
        "swizzle(BROADCAST,4,1)",
        "swizzle(BROADCAST,8,7)",
        "swizzle(BROADCAST,16,15)",
        "swizzle(BROADCAST,32,5)",
        "swizzle(BITMASK_PERM,\"01pip\")",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..12 {
        v.push(format!("0x{:x}", rng.below(0x8000))); // bitmask
        v.push(format!("0x{:x}", 0x8000 | rng.below(0x100))); // quad perm
        v.push(format!("0x{:x}", 0xC000 | rng.below(0x800))); // rotate: amount, direction, mask
        v.push(format!("0x{:x}", 0xE000 | rng.below(0x20))); // FFT
    }
    v
}

#[test]
fn ds_swizzle_every_mode() {
    let mut rng = Rng::new(5);
    for t in targets() {
        let lanes = t.wave.lanes();
        for off in swizzle_offsets(&mut rng) {
            for trial in 0..4 {
                let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
                let (old, src) = (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
                let text = format!("ds_swizzle_b32 v0, v1 offset:{off}");
                let prog = sim_util::asm(&text, t);
                let raw = prog[0].1.imm as u32 & 0xFFFF;
                let mut sim = fresh(t);
                set_reg(&mut sim, 0, &old);
                set_reg(&mut sim, 1, &src);
                sim.set_exec(exec);
                run(&mut sim, t, &text).unwrap_or_else(|e| panic!("{t}: {text}: {e}"));
                let got = reg(&sim, 0);
                for lane in 0..lanes {
                    let s = model_swizzle(raw, lane);
                    let want = if !on(exec, lane) {
                        old[lane as usize]
                    } else if s < lanes && on(exec, s) {
                        src[s as usize]
                    } else {
                        0
                    };
                    assert_eq!(got[lane as usize], want, "{t}: `{text}` ({raw:#x}) exec={exec:#x} lane {lane}");
                }
            }
        }
    }
}

#[test]
fn ds_swizzle_rotate_and_fft_by_hand() {
    let t = Target::wave64(Arch::Gfx942);
    let ids: Vec<u32> = (0..64).collect();
    let cases: [(u32, [(u32, u32); 4]); 4] = [
        // rotate left by 1 (offset[10] = 0): lane i reads i + 1 within its group of 32.
        (0xC020, [(0, 1), (30, 31), (31, 0), (63, 32)]),
        // rotate right by 1: lane i reads i − 1.
        (0xC420, [(0, 31), (1, 0), (32, 63), (33, 32)]),
        // FFT with mask 0: lane i reads the 5-bit reversal of i.
        (0xE000, [(1, 16), (2, 8), (3, 24), (33, 48)]),
        // FFT with mask 1: the reversal shifted right by one, lane bit 0 kept.
        (0xE001, [(1, 9), (2, 4), (3, 13), (6, 6)]),
    ];
    for (off, pairs) in cases {
        let mut sim = fresh(t);
        set_reg(&mut sim, 1, &ids);
        run(&mut sim, t, &format!("ds_swizzle_b32 v0, v1 offset:0x{off:x}")).expect("runs");
        for (lane, src) in pairs {
            assert_eq!(sim.vgpr(0, lane).unwrap(), src, "offset {off:#x} lane {lane}");
        }
    }
}

fn permute_lane(family: Family, lanes: u32, i: u32, addr: u32) -> u32 {
    let index = addr / 4;
    match family {
        Family::Gfx9 => index % lanes,
        // GFX11: within the lane's own 32-lane half.
        Family::Gfx11 => i / 32 * 32 + index % 32,
    }
}

#[test]
fn ds_bpermute_and_permute() {
    let mut rng = Rng::new(6);
    for t in targets() {
        let lanes = t.wave.lanes();
        for backward in [true, false] {
            for trial in 0..40 {
                let exec = if trial == 0 { u64::MAX >> (64 - lanes) } else { rng.exec(lanes) };
                let offset = if rng.bool() { 0 } else { 4 * rng.below(80) };
                let addrs: Vec<u32> = (0..lanes)
                    .map(|_| match rng.below(3) {
                        0 => 4 * rng.below(64),
                        1 => rng.u32(),
                        _ => 4 * rng.below(lanes) + rng.below(4),
                    })
                    .collect();
                let (old, data) = (random_lanes(&mut rng, lanes), random_lanes(&mut rng, lanes));
                let name = if backward { "ds_bpermute_b32" } else { "ds_permute_b32" };
                let text = format!("{name} v0, v1, v2 offset:{offset}");
                let mut sim = fresh(t);
                set_reg(&mut sim, 0, &old);
                set_reg(&mut sim, 1, &addrs);
                set_reg(&mut sim, 2, &data);
                sim.set_exec(exec);
                run(&mut sim, t, &text).unwrap_or_else(|e| panic!("{t}: {text}: {e}"));
                let got = reg(&sim, 0);
                let want: Vec<u32> = if backward {
                    (0..lanes)
                        .map(|i| {
                            if !on(exec, i) {
                                return old[i as usize];
                            }
                            let s = permute_lane(t.family(), lanes, i, addrs[i as usize].wrapping_add(offset));
                            if on(exec, s) {
                                data[s as usize]
                            } else {
                                0
                            }
                        })
                        .collect()
                } else {
                    let mut pushed = vec![0u32; lanes as usize];
                    for i in (0..lanes).filter(|&i| on(exec, i)) {
                        let d = permute_lane(t.family(), lanes, i, addrs[i as usize].wrapping_add(offset));
                        pushed[d as usize] = data[i as usize];
                    }
                    (0..lanes).map(|i| if on(exec, i) { pushed[i as usize] } else { old[i as usize] }).collect()
                };
                for lane in 0..lanes as usize {
                    assert_eq!(got[lane], want[lane], "{t}: `{text}` exec={exec:#x} lane {lane}");
                }
            }
        }
    }
}

#[test]
fn readlane_writelane_readfirstlane() {
    let mut rng = Rng::new(7);
    for t in targets() {
        let lanes = t.wave.lanes();
        for trial in 0..20 {
            let exec = if trial == 0 { 0 } else { rng.exec(lanes) };
            let data = random_lanes(&mut rng, lanes);
            let sel = rng.below(200);
            let value = rng.u32();
            let mut sim = fresh(t);
            set_reg(&mut sim, 1, &data);
            set_reg(&mut sim, 2, &data);
            sim.set_sgpr(4, sel).unwrap();
            sim.set_sgpr(5, value).unwrap();
            sim.set_m0(sel);
            sim.set_exec(exec);
            run(&mut sim, t, "v_readlane_b32 s0, v1, s4\nv_readfirstlane_b32 s1, v1\nv_writelane_b32 v2, s5, m0")
                .unwrap_or_else(|e| panic!("{t}: {e}"));
            // readlane ignores EXEC and takes the select modulo the wave size.
            assert_eq!(sim.sgpr(0).unwrap(), data[(sel % lanes) as usize], "{t} readlane {sel}");
            // readfirstlane: the lowest active lane, lane 0 when EXEC is empty.
            let first = if exec == 0 { 0 } else { exec.trailing_zeros() };
            assert_eq!(sim.sgpr(1).unwrap(), data[first as usize], "{t} readfirstlane exec={exec:#x}");
            // writelane writes exactly one lane, whatever EXEC says.
            for lane in 0..lanes {
                let want = if lane == sel % lanes { value } else { data[lane as usize] };
                assert_eq!(sim.vgpr(2, lane).unwrap(), want, "{t} writelane lane {lane}");
            }
        }
    }
}
