//! Prints the assembler lines `scripts/amdgcn-goldens.sh` feeds to `llvm-mc-19` to build the golden
//! tables: for every op of the table available on the target, a set of variants covering its
//! encodings (e32, e64, DPP16 with every control the target has, DPP8, VOP3-DPP), operand kinds
//! (VGPR, SGPR, high registers, inline integers and floats, literals, special registers),
//! modifiers, memory offsets, saddr/off, cache bits, returning and non-returning atomics, SMEM
//! offset forms, waitcnt layouts and every ds_swizzle mode.
//!
//! Only variants that pass qd's own checker are printed; the bytes and canonical text in the
//! golden files come from llvm-mc, so the tables are an independent oracle for qd's codec.
//!
//! Usage: `cargo run -p qd-amdgcn-isa --example golden_inputs -- <gfx90a|gfx942|gfx1100> [w32|w64]`

use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};
use qd_amdgcn_isa::{
    Cache, Dpp16, Dpp8, DppCtrl, Form, Format, InlineFloat, Inst, Mods, Op, Operand, Shape, SoppImm, Swizzle, Waitcnt,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(arch) = args.get(1).and_then(|a| Arch::from_name(a)) else {
        eprintln!("usage: golden_inputs <gfx90a|gfx942|gfx1100> [w32|w64]");
        std::process::exit(2);
    };
    let wave = if args.get(2).map(String::as_str) == Some("w32") { WaveSize::W32 } else { WaveSize::W64 };
    let Some(target) = Target::new(arch, wave) else {
        eprintln!("{arch} cannot run that wave size");
        std::process::exit(2);
    };
    let mut seen = std::collections::HashSet::new();
    for &op in Op::ALL {
        if !op.available(arch) {
            continue;
        }
        for inst in variants(op, target) {
            if inst.check(target).is_ok() {
                let text = inst.display(target).to_string();
                if seen.insert(text.clone()) {
                    println!("{text}");
                }
            }
        }
    }
}

/// Every DPP16 control worth a golden line (legality is the checker's business).
fn all_ctrls() -> Vec<DppCtrl> {
    let mut v = vec![
        DppCtrl::QuadPerm([0, 1, 2, 3]),
        DppCtrl::QuadPerm([1, 0, 3, 2]),
        DppCtrl::QuadPerm([3, 2, 1, 0]),
        DppCtrl::QuadPerm([0, 0, 0, 0]),
        DppCtrl::QuadPerm([3, 3, 3, 3]),
        DppCtrl::QuadPerm([2, 3, 0, 1]),
        DppCtrl::WaveShl1,
        DppCtrl::WaveRol1,
        DppCtrl::WaveShr1,
        DppCtrl::WaveRor1,
        DppCtrl::RowMirror,
        DppCtrl::RowHalfMirror,
        DppCtrl::RowBcast15,
        DppCtrl::RowBcast31,
    ];
    for n in 1..=15 {
        v.extend([DppCtrl::RowShl(n), DppCtrl::RowShr(n), DppCtrl::RowRor(n)]);
    }
    for n in 0..=15 {
        v.extend([DppCtrl::RowShare(n), DppCtrl::RowXmask(n)]);
    }
    v
}

fn some_ctrls() -> Vec<DppCtrl> {
    vec![
        DppCtrl::QuadPerm([1, 0, 3, 2]),
        DppCtrl::RowShr(1),
        DppCtrl::RowBcast15,
        DppCtrl::WaveRor1,
        DppCtrl::RowShare(3),
        DppCtrl::RowXmask(1),
    ]
}

fn with_ops(op: Op, form: Form, ops: &[Operand]) -> Inst {
    let mut i = Inst::new(op, ops);
    i.form = form;
    i
}

/// The mask operand of the target (`vcc` / `vcc_lo`) and an SGPR mask.
fn masks(t: Target) -> (Operand, Operand) {
    match t.wave {
        WaveSize::W64 => (Operand::Vcc, Operand::s2(8)),
        WaveSize::W32 => (Operand::VccLo, Operand::s(8)),
    }
}

fn v(n: u16, w: u8) -> Operand {
    Operand::vr(n, w)
}

fn s(n: u16, w: u8) -> Operand {
    Operand::sr(n, w)
}

/// Source operands to try in a VALU source of width `w`.
fn sources(w: u8, float: bool) -> Vec<Operand> {
    let mut out = vec![v(2, w), v(254, w), s(6, w), s(100, w), Operand::Int(0), Operand::Int(-16), Operand::Int(64)];
    out.push(Operand::Float(InlineFloat::Half));
    out.push(Operand::Float(InlineFloat::InvTwoPi));
    if w == 1 {
        out.extend([
            Operand::VccLo,
            Operand::ExecHi,
            Operand::M0,
            Operand::Literal(if float { 0x4049_0fdb } else { 0x1234 }),
        ]);
        out.push(Operand::Scc);
    } else {
        out.extend([Operand::Vcc, Operand::Exec]);
    }
    out
}

fn variants(op: Op, t: Target) -> Vec<Inst> {
    let info = op.info();
    let float = op.has(qd_amdgcn_isa::flags::FLOAT);
    let (vcc, smask) = masks(t);
    let fam = t.family();
    let mut out = Vec::new();
    let scalar_srcs = |w: u8| -> Vec<Operand> {
        let mut o = vec![s(2, w), s(100, w), Operand::Int(-1), Operand::Int(64), Operand::Float(InlineFloat::NegFour)];
        if w == 1 {
            o.extend([Operand::Literal(0x1234_5678), Operand::M0, Operand::VccHi, Operand::ExecLo, Operand::Scc]);
            if fam == Family::Gfx11 {
                o.push(Operand::Null);
            }
        } else {
            o.extend([Operand::Vcc, Operand::Exec, Operand::Literal(0x1234_5678)]);
        }
        o
    };
    let sdsts = |w: u8| -> Vec<Operand> {
        let mut o = vec![s(0, w), s(100, w)];
        if w == 1 {
            o.extend([Operand::VccLo, Operand::M0, Operand::ExecHi]);
        } else {
            o.extend([Operand::Vcc, Operand::Exec]);
        }
        if fam == Family::Gfx11 {
            o.push(Operand::Null);
        }
        o
    };
    match info.shape {
        Shape::Sop1 { d, s: sw } => {
            for x in scalar_srcs(sw) {
                out.push(Inst::new(op, &[s(4, d), x]));
            }
            for dst in sdsts(d) {
                out.push(Inst::new(op, &[dst, s(2, sw)]));
            }
        }
        Shape::Sop1Dst { d } => out.extend(sdsts(d).into_iter().map(|x| Inst::new(op, &[x]))),
        Shape::Sop1Src { s: sw } => out.extend(scalar_srcs(sw).into_iter().map(|x| Inst::new(op, &[x]))),
        Shape::Sop2 { d, s0, s1 } => {
            for x in scalar_srcs(s0) {
                out.push(Inst::new(op, &[s(4, d), x, s(2, s1)]));
            }
            for x in scalar_srcs(s1) {
                out.push(Inst::new(op, &[s(4, d), s(2, s0), x]));
            }
            for dst in sdsts(d) {
                out.push(Inst::new(op, &[dst, s(2, s0), s(6, s1)]));
            }
        }
        Shape::Sopk | Shape::SopkCmp => {
            for imm in [0, 0x1234, 0x7FFF, 0xFFFF, -1] {
                out.push(Inst::new(op, &[s(5, 1)]).imm(imm));
            }
            out.push(Inst::new(op, &[Operand::M0]).imm(16));
            out.push(Inst::new(op, &[s(101, 1)]).imm(16));
        }
        Shape::SopkWaitcnt => {
            for imm in [0, 1, 0x3F, 0xFFFF] {
                out.push(Inst::new(op, &[Operand::Null]).imm(imm));
            }
        }
        Shape::Sopc { s: w } => {
            for x in scalar_srcs(w) {
                out.push(Inst::new(op, &[x, s(2, w)]));
                out.push(Inst::new(op, &[s(2, w), x]));
            }
        }
        Shape::Sopp(kind) => out.extend(sopp_variants(op, kind, fam)),
        Shape::SmemLoad { d, base } => {
            let b = s(4, base);
            let dst = s(if d >= 4 { 8 } else { 2 }, d);
            for imm in [0, 0x10, 0xF_FFFF, -0x10_0000, -4] {
                out.push(Inst::new(op, &[dst, b]).imm(imm));
            }
            out.push(Inst::new(op, &[dst, b, s(6, 1)]));
            out.push(Inst::new(op, &[dst, b, s(101, 1)]).imm(0x10));
            out.push(Inst::new(op, &[s(96, d.min(4)), s(100, base)]).imm(0x10));
            for cache in caches(t.arch, false) {
                out.push(Inst::new(op, &[dst, b]).imm(8).cache(cache));
            }
        }
        Shape::SmemNone => out.push(Inst::new(op, &[])),
        Shape::SmemDst { d } => out.extend([Inst::new(op, &[s(0, d)]), Inst::new(op, &[s(100, d)])]),
        Shape::Vop1None => out.push(Inst::new(op, &[])),
        Shape::Vop1Sdst => {
            for dst in [s(0, 1), s(101, 1), Operand::M0, Operand::VccHi] {
                out.push(Inst::new(op, &[dst, v(1, 1)]));
            }
            out.push(Inst::new(op, &[s(7, 1), v(255, 1)]));
        }
        Shape::Readlane => {
            for lane in
                [s(2, 1), Operand::M0, Operand::Int(5), Operand::Int(63), Operand::Literal(0x41), Operand::VccLo]
            {
                out.push(Inst::new(op, &[s(0, 1), v(1, 1), lane]));
            }
            out.push(Inst::new(op, &[s(101, 1), v(255, 1), s(100, 1)]));
            out.push(Inst::new(op, &[Operand::M0, v(1, 1), s(2, 1)]));
        }
        Shape::Writelane => {
            for src in
                [s(1, 1), Operand::Int(7), Operand::M0, Operand::Literal(0x1234), Operand::Float(InlineFloat::One)]
            {
                for lane in [s(2, 1), Operand::M0, Operand::Int(5), Operand::Literal(0x41)] {
                    out.push(Inst::new(op, &[v(0, 1), src, lane]));
                }
            }
        }
        Shape::Permlane => {
            for (a, b) in [
                (s(2, 1), s(3, 1)),
                (Operand::Int(-1), Operand::Int(-1)),
                (Operand::Literal(0x7654_3210), s(3, 1)),
                (Operand::M0, Operand::VccLo),
            ] {
                out.push(Inst::new(op, &[v(0, 1), v(1, 1), a, b]));
            }
            for op_sel in 1..=3 {
                out.push(
                    Inst::new(op, &[v(0, 1), v(255, 1), s(2, 1), s(3, 1)]).mods(Mods { op_sel, ..Mods::default() }),
                );
            }
        }
        Shape::DsLoad { .. }
        | Shape::DsLoad2 { .. }
        | Shape::DsStore { .. }
        | Shape::DsAtomic { .. }
        | Shape::DsAtomicRtn { .. }
        | Shape::DsCmpstRtn { .. }
        | Shape::DsSwizzle
        | Shape::DsAddtid => out.extend(ds_variants(op, info.shape)),
        Shape::FlatLoad { .. }
        | Shape::FlatStore { .. }
        | Shape::GlobalLoad { .. }
        | Shape::GlobalStore { .. }
        | Shape::GlobalAtomic { .. }
        | Shape::GlobalAtomicCas { .. } => out.extend(mem_variants(op, info.shape, t)),
        Shape::CacheCtl => {
            out.push(Inst::new(op, &[]));
            for c in caches(t.arch, false) {
                out.push(Inst::new(op, &[]).cache(c));
            }
        }
        Shape::Vop1 { .. }
        | Shape::Vop2 { .. }
        | Shape::Vop2Tied
        | Shape::Vop2Cndmask
        | Shape::Vop2CarryOut
        | Shape::Vop2CarryInOut
        | Shape::Vopc { .. }
        | Shape::VopcX { .. }
        | Shape::Vop3 { .. }
        | Shape::Vop3Three { .. }
        | Shape::Vop3bMad
        | Shape::Vop3bDivScale { .. }
        | Shape::VopcClass { .. } => out.extend(valu_variants(op, t, float, vcc, smask)),
    }
    out
}

fn sopp_variants(op: Op, kind: SoppImm, fam: Family) -> Vec<Inst> {
    let imms: Vec<i32> = match kind {
        SoppImm::None => vec![0],
        SoppImm::Imm => match op {
            Op::SClause => vec![0, 3, 0x3F],
            Op::SNop => vec![0, 1, 7, 15],
            _ => vec![0, 1, 3, 0xFFFF],
        },
        SoppImm::Branch => vec![0, 4, -1, -2, 32767, -32768],
        SoppImm::Waitcnt => {
            let none = Waitcnt::none(fam);
            let mut v = vec![
                Waitcnt { vm: 0, exp: 0, lgkm: 0 },
                Waitcnt::vm(0, fam),
                Waitcnt::vm(1, fam),
                Waitcnt::vm(63, fam),
                Waitcnt::vm(17, fam),
                Waitcnt::lgkm(0, fam),
                Waitcnt::lgkm(1, fam),
                Waitcnt { exp: 0, ..none },
                Waitcnt { exp: 3, lgkm: 2, ..none },
                Waitcnt { vm: 0, lgkm: 0, ..none },
                none,
            ];
            if fam == Family::Gfx11 {
                v.push(Waitcnt::lgkm(40, fam));
            }
            v.into_iter().map(|w| i32::from(w.encode(fam))).collect()
        }
        SoppImm::Depctr => vec![0, 0x0FFF, 0xFFFE, 0x0F9F, 0xFF83, 0xFF9F, 0x7F9F, 0xFFFF],
        SoppImm::DelayAlu => vec![0, 1, 0x91, 0x5, 0x9, 0x1B, 0x4A1, 0x585],
        SoppImm::Sendmsg => vec![1, 3],
    };
    imms.into_iter().map(|i| Inst::new(op, &[]).imm(i)).collect()
}

fn caches(arch: Arch, atomic: bool) -> Vec<Cache> {
    let c = |glc_sc0, slc_nt, sc1, dlc| Cache { glc_sc0, slc_nt, sc1, dlc };
    let mut v = match arch {
        Arch::Gfx90a => vec![c(true, false, false, false), c(false, true, false, false), c(true, true, false, false)],
        Arch::Gfx942 => vec![
            c(true, false, false, false),
            c(false, true, false, false),
            c(false, false, true, false),
            c(true, true, true, false),
        ],
        Arch::Gfx1100 => vec![
            c(true, false, false, false),
            c(false, true, false, false),
            c(false, false, false, true),
            c(true, true, false, true),
        ],
    };
    if atomic {
        for x in &mut v {
            x.glc_sc0 = false;
        }
        v.retain(|x| *x != Cache::default());
    }
    v
}

fn ds_variants(op: Op, shape: Shape) -> Vec<Inst> {
    let mut out = Vec::new();
    let addr = v(1, 1);
    match shape {
        Shape::DsLoad { d } => {
            for imm in [0, 16, 65535] {
                out.push(Inst::new(op, &[v(2, d), addr]).imm(imm));
            }
            out.push(Inst::new(op, &[v(252, d), v(255, 1)]));
        }
        Shape::DsLoad2 { d } => {
            for (a, b) in [(0, 0), (1, 2), (0, 255), (255, 0), (7, 9)] {
                let mut i = Inst::new(op, &[v(2, 2 * d), addr]).imm(a);
                i.imm1 = b;
                out.push(i);
            }
        }
        Shape::DsStore { s: w } | Shape::DsAtomic { s: w } => {
            for imm in [0, 8, 65535] {
                out.push(Inst::new(op, &[addr, v(2, w)]).imm(imm));
            }
            out.push(Inst::new(op, &[v(255, 1), v(252, w)]));
        }
        Shape::DsAtomicRtn { s: w } => {
            for imm in [0, 4, 65535] {
                out.push(Inst::new(op, &[v(4, w), addr, v(2, w)]).imm(imm));
            }
            out.push(Inst::new(op, &[v(254, w), v(255, 1), v(252, w)]));
        }
        Shape::DsCmpstRtn { s: 1 } => {
            out.push(Inst::new(op, &[v(0, 1), v(1, 1), v(2, 1), v(3, 1)]));
            out.push(Inst::new(op, &[v(255, 1), v(254, 1), v(253, 1), v(252, 1)]).imm(1024));
        }
        Shape::DsCmpstRtn { s: w } => {
            out.push(Inst::new(op, &[v(0, w), v(1, 1), v(2, w), v(4, w)]));
            out.push(Inst::new(op, &[v(254, w), v(253, 1), v(250, w), v(246, w)]).imm(1024));
        }
        Shape::DsSwizzle => {
            let pats = [
                Swizzle::QuadPerm([1, 0, 3, 2]),
                Swizzle::QuadPerm([0, 0, 0, 0]),
                Swizzle::QuadPerm([3, 2, 1, 0]),
                Swizzle::Bitmask { and: 0x1F, or: 0, xor: 0 },
                Swizzle::Bitmask { and: 0x07, or: 0x08, xor: 0x02 },
                Swizzle::Bitmask { and: 0x1F, or: 0, xor: 1 },
                Swizzle::Bitmask { and: 0x1F, or: 0, xor: 16 },
                Swizzle::Bitmask { and: 0x1F, or: 0, xor: 3 },
                Swizzle::Bitmask { and: 0x1F, or: 0, xor: 31 },
                Swizzle::Bitmask { and: 0x1C, or: 1, xor: 0 },
                Swizzle::Bitmask { and: 0x00, or: 5, xor: 0 },
                Swizzle::Bitmask { and: 0x10, or: 15, xor: 0 },
                Swizzle::Rotate { right: true, amount: 1, mask: 0 },
                Swizzle::Rotate { right: false, amount: 31, mask: 0 },
                Swizzle::Fft(0),
                Swizzle::Fft(31),
            ];
            for p in pats {
                out.push(Inst::new(op, &[v(0, 1), v(1, 1)]).imm(i32::from(p.encode())));
            }
            out.push(Inst::new(op, &[v(0, 1), v(1, 1)]).imm(0x8100));
        }
        Shape::DsAddtid => {
            for imm in [0, 4, 65535] {
                out.push(Inst::new(op, &[v(0, 1)]).imm(imm));
            }
        }
        _ => {}
    }
    out
}

fn mem_variants(op: Op, shape: Shape, t: Target) -> Vec<Inst> {
    let mut out = Vec::new();
    let sa = s(4, 2);
    match shape {
        Shape::FlatLoad { d } => {
            for imm in [0, 16, 4095] {
                out.push(Inst::new(op, &[v(4, d), v(2, 2)]).imm(imm));
            }
            for c in caches(t.arch, false) {
                out.push(Inst::new(op, &[v(4, d), v(254, 2)]).cache(c));
            }
        }
        Shape::FlatStore { s: w } => {
            for imm in [0, 16, 4095] {
                out.push(Inst::new(op, &[v(2, 2), v(4, w)]).imm(imm));
            }
            for c in caches(t.arch, false) {
                out.push(Inst::new(op, &[v(254, 2), v(4, w)]).cache(c));
            }
        }
        Shape::GlobalLoad { d } => {
            for imm in [0, 16, -16, 4095, -4096] {
                out.push(Inst::new(op, &[v(4, d), v(2, 2)]).imm(imm));
                out.push(Inst::new(op, &[v(4, d), v(1, 1), sa]).imm(imm));
            }
            out.push(Inst::new(op, &[v(252, d), v(255, 1), s(100, 2)]));
            for c in caches(t.arch, false) {
                out.push(Inst::new(op, &[v(4, d), v(2, 2)]).cache(c));
            }
        }
        Shape::GlobalStore { s: w } => {
            for imm in [0, 8, -16, 4095, -4096] {
                out.push(Inst::new(op, &[v(2, 2), v(4, w)]).imm(imm));
                out.push(Inst::new(op, &[v(1, 1), v(4, w), sa]).imm(imm));
            }
            out.push(Inst::new(op, &[v(255, 1), v(252, w), s(100, 2)]));
            for c in caches(t.arch, false) {
                out.push(Inst::new(op, &[v(2, 2), v(4, w)]).cache(c));
            }
        }
        Shape::GlobalAtomic { s: w } | Shape::GlobalAtomicCas { s: w } => {
            let dw = if matches!(shape, Shape::GlobalAtomicCas { .. }) { 2 * w } else { w };
            for imm in [0, -16, 4095] {
                out.push(Inst::new(op, &[Operand::None, v(2, 2), v(4, dw)]).imm(imm));
                out.push(Inst::new(op, &[v(0, w), v(2, 2), v(4, dw)]).imm(imm));
                out.push(Inst::new(op, &[Operand::None, v(1, 1), v(4, dw), sa]).imm(imm));
                out.push(Inst::new(op, &[v(0, w), v(1, 1), v(4, dw), sa]).imm(imm));
            }
            for c in caches(t.arch, true) {
                out.push(Inst::new(op, &[Operand::None, v(2, 2), v(4, dw)]).cache(c));
                out.push(Inst::new(op, &[v(0, w), v(2, 2), v(4, dw)]).cache(c));
            }
        }
        _ => {}
    }
    out
}

/// The operand list of a VALU shape with sources `srcs` (value sources in order), the mask
/// operand `mask` where the shape has one, and destination registers chosen per width.
fn valu_ops(op: Op, t: Target, srcs: &[Operand], mask_out: Operand, mask_in: Operand) -> Vec<Operand> {
    let src = |i: usize| srcs.get(i).copied().unwrap_or(Operand::None);
    match op.info().shape {
        Shape::Vop1 { d, .. } => vec![v(0, d), src(0)],
        Shape::Vop2 { d, .. } | Shape::Vop3 { d, .. } => vec![v(0, d), src(0), src(1)],
        Shape::Vop2Tied => vec![v(0, 1), src(0), src(1)],
        Shape::Vop2Cndmask => vec![v(0, 1), src(0), src(1), mask_in],
        Shape::Vop2CarryOut => vec![v(0, 1), mask_out, src(0), src(1)],
        Shape::Vop2CarryInOut => vec![v(0, 1), mask_out, src(0), src(1), mask_in],
        Shape::Vopc { .. } => vec![mask_out, src(0), src(1)],
        Shape::VopcX { .. } => match t.family() {
            Family::Gfx9 => vec![mask_out, src(0), src(1)],
            Family::Gfx11 => vec![src(0), src(1)],
        },
        Shape::Vop3Three { d, .. } => vec![v(0, d), src(0), src(1), src(2)],
        Shape::Vop3bMad => vec![v(0, 2), mask_out, src(0), src(1), src(2)],
        Shape::Vop3bDivScale { s } => vec![v(0, s), mask_out, src(0), src(1), src(2)],
        Shape::VopcClass { .. } => vec![mask_out, src(0), src(1)],
        _ => vec![],
    }
}

/// Source widths of a VALU shape.
fn src_widths(shape: Shape) -> Vec<u8> {
    match shape {
        Shape::Vop1 { s, .. } => vec![s],
        Shape::Vop2 { s0, s1, .. } | Shape::Vop3 { s0, s1, .. } => vec![s0, s1],
        Shape::Vop2Tied | Shape::Vop2Cndmask | Shape::Vop2CarryOut | Shape::Vop2CarryInOut => vec![1, 1],
        Shape::Vopc { s } | Shape::VopcX { s } => vec![s, s],
        Shape::Vop3Three { s0, s1, s2, .. } => vec![s0, s1, s2],
        Shape::Vop3bMad => vec![1, 1, 2],
        Shape::Vop3bDivScale { s } => vec![s, s, s],
        Shape::VopcClass { s } => vec![s, 1],
        _ => vec![],
    }
}

/// A few sources for the secondary (VOP3) form of an op.
fn short_sources(w: u8) -> Vec<Operand> {
    vec![s(6, w), Operand::Int(-16), Operand::Float(InlineFloat::Half), Operand::Literal(0x1234)]
}

/// Whether the op has a 32-bit (e32) encoding on the target.
fn layout_has_e32(op: Op, t: Target) -> bool {
    op.enc(t.arch).is_some_and(|e| matches!(e.format, Format::Vop1 | Format::Vop2 | Format::Vopc))
}

fn valu_variants(op: Op, t: Target, float: bool, vcc: Operand, smask: Operand) -> Vec<Inst> {
    let mut out = Vec::new();
    let shape = op.info().shape;
    let widths = src_widths(shape);
    let vregs: Vec<Operand> = widths.iter().enumerate().map(|(i, &w)| v(2 + 2 * i as u16, w)).collect();
    let forms = [Form::E32, Form::E64, Form::Native];
    let mask_in_e64 = smask;
    let null_or_mask = if t.family() == Family::Gfx11 { Operand::Null } else { smask };
    for form in forms {
        let vop3 = form != Form::E32;
        let (mo, mi) = if vop3 { (smask, mask_in_e64) } else { (vcc, vcc) };
        // Base: all VGPRs; high registers.
        out.push(with_ops(op, form, &valu_ops(op, t, &vregs, mo, mi)));
        let high: Vec<Operand> = widths.iter().map(|&w| v(256 - 2 * u16::from(w), w)).collect();
        out.push(with_ops(op, form, &valu_ops(op, t, &high, mo, mi)));
        if vop3 {
            out.push(with_ops(op, form, &valu_ops(op, t, &vregs, vcc, vcc)));
            out.push(with_ops(op, form, &valu_ops(op, t, &vregs, null_or_mask, mi)));
        }
        // Each source slot with each kind of source (the full list in the op's primary
        // encoding, a short one in its VOP3 form).
        let primary = form == Form::E32 || !layout_has_e32(op, t);
        for (i, &w) in widths.iter().enumerate() {
            // Every op gets SGPR and literal sources; the other kinds rotate over the ops so
            // each kind appears on every format without every op repeating them all.
            let kinds: Vec<Operand> = if primary {
                let salt = op as usize + i;
                sources(w, float)
                    .into_iter()
                    .enumerate()
                    .filter(|(k, x)| {
                        matches!(x, Operand::Sgpr(_) | Operand::Literal(_)) || (k + salt).is_multiple_of(3)
                    })
                    .map(|(_, x)| x)
                    .collect()
            } else {
                short_sources(w)
            };
            for x in kinds {
                let mut srcs = vregs.clone();
                srcs[i] = x;
                out.push(with_ops(op, form, &valu_ops(op, t, &srcs, mo, mi)));
            }
        }
        // Two SGPRs (legal on GFX11 only), the same SGPR twice, two equal literals.
        if widths.len() >= 2 {
            let mut srcs = vregs.clone();
            srcs[0] = s(6, widths[0]);
            srcs[1] = s(8, widths[1]);
            out.push(with_ops(op, form, &valu_ops(op, t, &srcs, mo, mi)));
            srcs[1] = s(6, widths[1]);
            out.push(with_ops(op, form, &valu_ops(op, t, &srcs, mo, mi)));
            srcs[0] = Operand::Literal(0x1234);
            srcs[1] = Operand::Literal(0x1234);
            out.push(with_ops(op, form, &valu_ops(op, t, &srcs, mo, mi)));
        }
        // Modifiers.
        if vop3 && float {
            let n = widths.len() as u8;
            let all = (1u8 << n) - 1;
            for m in [
                Mods { neg: 1, abs: all, ..Mods::default() },
                Mods { neg: all, abs: 1, clamp: true, ..Mods::default() },
                Mods { omod: 1, ..Mods::default() },
                Mods { omod: 2, clamp: true, ..Mods::default() },
                Mods { omod: 3, neg: 2 & all, ..Mods::default() },
                // For ops that take modifiers on some sources only (an integer operand, VOP3B
                // with no abs, class compares with no clamp).
                Mods { neg: 1, abs: 1, ..Mods::default() },
                Mods { neg: 1, clamp: true, ..Mods::default() },
                Mods { neg: n.min(3) & 6, ..Mods::default() },
            ] {
                out.push(with_ops(op, form, &valu_ops(op, t, &vregs, mo, mi)).mods(m));
            }
        }
        // DPP16 / DPP8 (32-bit VGPR ops only): every control on the moves, a few elsewhere.
        if widths.iter().all(|&w| w == 1) || op == Op::VMovB64 {
            let ctrls = if matches!(op, Op::VMovB32 | Op::VMovB64) && form == Form::E32 {
                all_ctrls()
            } else if primary {
                some_ctrls()
            } else {
                some_ctrls().into_iter().take(3).collect()
            };
            for ctrl in ctrls {
                let base = with_ops(op, form, &valu_ops(op, t, &vregs, mo, mi));
                out.push(base.dpp16(Dpp16::new(ctrl)));
            }
            let base = with_ops(op, form, &valu_ops(op, t, &vregs, mo, mi));
            let d = Dpp16::new(DppCtrl::RowShr(1));
            out.push(base.dpp16(Dpp16 { row_mask: 0xA, bank_mask: 0x5, ..d }));
            out.push(base.dpp16(Dpp16 { bound_ctrl: true, ..d }));
            out.push(base.dpp16(Dpp16 { fi: true, ..d }));
            out.push(base.dpp16(Dpp16 { bound_ctrl: true, fi: true, row_mask: 0x1, bank_mask: 0x3, ..d }));
            if op == Op::VMovB64 {
                out.push(base.dpp16(Dpp16::new(DppCtrl::RowShare(15))));
            }
            if float {
                out.push(base.dpp16(d).mods(Mods { neg: 1, abs: 2 & ((1 << widths.len()) - 1), ..Mods::default() }));
                out.push(base.dpp16(d).mods(Mods { neg: 2 & ((1 << widths.len()) - 1), abs: 1, ..Mods::default() }));
                out.push(base.dpp16(d).mods(Mods { clamp: true, ..Mods::default() }));
            }
            if widths.len() >= 3 {
                let mut srcs = vregs.clone();
                srcs[2] = Operand::Int(5);
                out.push(with_ops(op, form, &valu_ops(op, t, &srcs, mo, mi)).dpp16(d));
            }
            let sels: &[[u8; 8]] = if primary {
                &[[7, 6, 5, 4, 3, 2, 1, 0], [0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]]
            } else {
                &[[7, 6, 5, 4, 3, 2, 1, 0]]
            };
            for &sel in sels {
                out.push(base.dpp8(Dpp8 { sel, fi: false }));
            }
            out.push(base.dpp8(Dpp8 { sel: [3, 3, 3, 3, 0, 0, 0, 0], fi: true }));
            if float {
                out.push(base.dpp8(Dpp8 { sel: [0; 8], fi: false }).mods(Mods { neg: 1, ..Mods::default() }));
            }
        }
    }
    out
}
