//! Shuffle strategies: the per-arch candidate sequences for a constant shuffle table (every lane
//! pattern of `qd_mir::analysis::lanes`), each with its lane-exact model and proof.
//!
//! # Candidates are data
//!
//! A candidate is a [`Seq`]: a few [`Step`]s, each one cross-lane primitive ([`Prim`]: a DPP16 or
//! DPP8 move, a `ds_swizzle`, a permlane, a readlane broadcast, a constant-mask select, a
//! readlane/writelane fix-up of one lane) between four registers — the value `X`, the result
//! `O`, the scratch registers `T` and `U` — where `O` may be *tied* to
//! `X` (the same register, so lanes a step does not write keep their own value: DPP16 with
//! bound_ctrl 0 and `old` = own). [`lane_model`] is the one function that says, per primitive,
//! what a lane receives under an EXEC mask: a lane of the first or second operand, zero, or
//! nothing (the destination keeps its old contents). A new strategy is a new `Prim` variant with
//! its arm in `lane_model` (plus its instruction in `lower/shuffle_emit.rs`), or a new way of combining
//! primitives in [`sequences`].
//!
//! # Every candidate is proved
//!
//! [`prove`] runs a sequence symbolically through `lane_model` over all lanes with EXEC full and
//! compares the result register with the shuffle's source table; a candidate that disagrees is
//! dropped (and fails a `debug_assert`, so tests catch a wrong generator). [`Seq::partial_exact`]
//! runs it again under a fixed set of partial EXEC masks against MIR's rule (an inactive source
//! lane gives the own value); by docs/shuffle-lowering.md §4.2 only single-instruction sequences
//! are accepted as exact under partial EXEC, and the masks confirm which single ones are (DPP16
//! with bound_ctrl 0 and `old` = own, permlane16/x16 with FI = 0, BC = 0 and `vdst` = own).
//!
//! # How candidates are found (docs/shuffle-lowering.md §2–§3)
//!
//! * One step: every legal DPP16 control with the smallest row/bank masks that cover the lanes
//!   that must move (tied, bound_ctrl 0); DPP8 (GFX11); `ds_swizzle` in bitmask, quad-perm,
//!   rotate and FFT modes; `v_permlane16/x16` with derived selectors (GFX11, tied);
//!   `v_permlane64` (GFX11 wave64); `v_readlane` for a wave-wide broadcast.
//! * Two steps, when no single register-only step exists: a full-write first step `A` (quad
//!   xor/broadcast, row rotate/mirror/share/xmask, wave rotates, bound_ctrl row/wave shifts and
//!   row broadcasts, a derived `v_permlanex16`, `v_permlane64`) followed by a DPP16 (or permlane)
//!   step `B` that either reads `A`'s result into the tied result ("compose": `hmir + quad_perm`
//!   for xor 4..6), reads it in place ("in place": `quad_perm + row_shr:4 bank_mask:0xa` for a
//!   broadcast in tiles of 8), or reads `X` with `A`'s result as `old` ("old-chained":
//!   `permlanex16 + row_share` for a broadcast in tiles of 32 on GFX11).
//! * Select: when neither exists, two full-write primitives (or one and `X` itself) whose correct
//!   lanes cover the wave, merged by a `v_cndmask_b32` on a constant lane mask (`wave_shl:1 +
//!   cndmask` for down 1 in tiles of 32 on GFX9, `swizzle rotate + cndmask` for down d in tiles of
//!   32).
//! * General shapes (`shuffle/rows.rs`), when still nothing is register-only: on GFX11 the
//!   *permlane rows* decomposition of any table (same-row / pair-row / other-half classes, one
//!   permlane16/x16 — of `X`, or of its `v_permlane64` copy `U` — per consistent selector, merged
//!   by selects, a DPP16 step for the same-row class last); on both families *readlane fix-ups*
//!   (a DPP16 step or a GFX9 `wave_shl/shr/rol/ror:1` chain, a select of `X` for the lanes whose
//!   source is themselves, and `v_readlane` + `v_writelane` for at most 8 other lanes).
//!
//! The `ds_bpermute` baseline and the uniform-index readlane are not here: they are the existing
//! lowerings of `lower/simt.rs`, priced from their own instructions.

use std::fmt::Write as _;

mod rows;

use crate::select::ShuffleLowering;
use qd_amdgcn_isa::{Dpp16, Dpp8, DppCtrl, Swizzle};
use qd_amdgcn_isa::{Family, Target};

/// A register of a candidate sequence (one 32-bit part of the value; 64-bit values run the
/// sequence on each half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Reg {
    /// The shuffled value.
    X,
    /// The result (the same register as `X` when the sequence is tied).
    O,
    /// A scratch VGPR.
    T,
    /// A second scratch VGPR (the `v_permlane64` copy of the row decomposition).
    U,
}

/// One cross-lane primitive with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Prim {
    /// `v_mov_b32_dpp dst, a` with a DPP16 control, write masks and the bound_ctrl bit (FI 0).
    Dpp16 {
        /// The control.
        ctrl: DppCtrl,
        /// Rows written.
        row_mask: u8,
        /// Banks written.
        bank_mask: u8,
        /// Bound_ctrl bit: an invalid source reads 0 (else the lane is not written).
        bc: bool,
    },
    /// `v_mov_b32 dst, a dpp8:[sel]` (GFX11; FI 0: an inactive source reads 0).
    Dpp8 {
        /// Source of each lane of a group of 8.
        sel: [u8; 8],
    },
    /// `ds_swizzle_b32 dst, a offset:…` (an inactive source reads 0).
    Swizzle {
        /// The 16-bit pattern.
        offset: u16,
    },
    /// `v_permlane16_b32` (`cross` = `v_permlanex16_b32`) with FI 0 and BC 0: an inactive source
    /// leaves the lane unwritten. Selectors come from two SGPR constants.
    Permlane16 {
        /// Source lane (in the own or the other row) of each lane of a row.
        sel: [u8; 16],
        /// Read the other row of the pair.
        cross: bool,
    },
    /// `v_permlane64_b32 dst, a` (GFX11 wave64; reads lane `l ^ 32` whatever its EXEC bit).
    Permlane64,
    /// `v_readlane_b32 s, a, lane` then `v_mov_b32 dst, s` (reads the lane whatever its EXEC bit).
    Readlane {
        /// The lane read.
        lane: u8,
    },
    /// `v_cndmask_b32 dst, a, b, vcc` with VCC a constant lane mask: lanes with the bit take `b`.
    Cndmask {
        /// The lanes that take `b`.
        mask: u64,
    },
    /// A readlane fix-up: `v_readlane_b32 s, a, src` then `v_writelane_b32 dst, s, lane`. Only
    /// lane `lane` of `dst` is written, whatever its EXEC bit (and `src` is read whatever its
    /// EXEC bit): exact only under full EXEC, like every multi-step sequence.
    Writelane {
        /// The lane read.
        src: u8,
        /// The lane written.
        lane: u8,
    },
}

/// What one lane of a step's destination receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recv {
    /// Lane `s` of the first operand.
    A(u32),
    /// Lane `s` of the second operand.
    B(u32),
    /// Zero.
    Zero,
    /// Nothing: the destination keeps its contents.
    Keep,
}

/// THE lane model: what lane `lane` of a wave of `w` lanes receives from primitive `p` when EXEC
/// is `exec` (the semantics of `qd-amdgcn-sim`'s `crosslane.rs`, docs/amdgcn-isa-facts.md §9–§10).
pub(crate) fn lane_model(p: &Prim, lane: u32, w: u32, exec: u64) -> Recv {
    let on = |l: u32| l < w && exec >> l & 1 == 1;
    // `v_writelane_b32` writes its lane whatever EXEC says; every other primitive leaves an
    // inactive lane alone.
    if !on(lane) && !matches!(p, Prim::Writelane { .. }) {
        return Recv::Keep;
    }
    match *p {
        Prim::Dpp16 { ctrl, row_mask, bank_mask, bc } => {
            let d = Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl: bc, fi: false };
            if !d.lane_enabled(lane) {
                return Recv::Keep;
            }
            match ctrl.src_lane(lane, w).filter(|&s| on(s)) {
                Some(s) => Recv::A(s),
                None if bc => Recv::Zero,
                None => Recv::Keep,
            }
        }
        Prim::Dpp8 { sel } => {
            let s = Dpp8 { sel, fi: false }.src_lane(lane);
            if on(s) {
                Recv::A(s)
            } else {
                Recv::Zero
            }
        }
        Prim::Swizzle { offset } => {
            let s = Swizzle::decode(offset).src_lane(lane);
            if on(s) {
                Recv::A(s)
            } else {
                Recv::Zero
            }
        }
        Prim::Permlane16 { sel, cross } => {
            let row = if cross { (lane >> 4) ^ 1 } else { lane >> 4 };
            let s = row * 16 + u32::from(sel[(lane & 15) as usize] & 15);
            if on(s) {
                Recv::A(s)
            } else {
                Recv::Keep
            }
        }
        Prim::Permlane64 => {
            if w == 64 {
                Recv::A(lane ^ 32)
            } else {
                Recv::Keep
            }
        }
        Prim::Readlane { lane: j } => Recv::A(u32::from(j) % w),
        Prim::Cndmask { mask } => {
            if mask >> lane & 1 == 1 {
                Recv::B(lane)
            } else {
                Recv::A(lane)
            }
        }
        Prim::Writelane { src, lane: to } => {
            if lane == u32::from(to) && lane < w {
                Recv::A(u32::from(src) % w)
            } else {
                Recv::Keep
            }
        }
    }
}

/// One step of a sequence: `dst = prim(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Step {
    /// The primitive.
    pub prim: Prim,
    /// The register written.
    pub dst: Reg,
    /// The first operand.
    pub a: Reg,
    /// The second operand (only `Cndmask` reads it).
    pub b: Reg,
}

impl Step {
    fn new(prim: Prim, dst: Reg, a: Reg) -> Step {
        Step { prim, dst, a, b: a }
    }
}

/// A candidate sequence for one shuffle table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Seq {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// `O` is `X`'s register (lanes no step writes keep their own value).
    pub tied: bool,
}

/// Symbol of a lane's contents in [`run`]: a lane of `X`, zero, or unknown.
const ZERO: u8 = 0xFE;
const UNDEF: u8 = 0xFF;

/// Runs `seq` symbolically: the contents of `O` on every lane (lane `s` of `X` as `s`).
pub(crate) fn run(seq: &Seq, w: u32, exec: u64) -> [u8; 64] {
    let mut regs = [[UNDEF; 64]; 4];
    for (l, x) in regs[0].iter_mut().enumerate() {
        *x = l as u8;
    }
    let slot = |r: Reg| match r {
        Reg::X => 0,
        Reg::O if seq.tied => 0,
        Reg::O => 1,
        Reg::T => 2,
        Reg::U => 3,
    };
    for st in &seq.steps {
        let (a, b) = (regs[slot(st.a)], regs[slot(st.b)]);
        let d = slot(st.dst);
        for l in 0..w {
            match lane_model(&st.prim, l, w, exec) {
                Recv::A(s) => regs[d][l as usize] = a[s as usize],
                Recv::B(s) => regs[d][l as usize] = b[s as usize],
                Recv::Zero => regs[d][l as usize] = ZERO,
                Recv::Keep => {}
            }
        }
    }
    regs[slot(Reg::O)]
}

fn all_lanes(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// True when `seq` gives every lane its source in `tab` with every lane active.
pub(crate) fn prove(seq: &Seq, tab: &[u8]) -> bool {
    let w = tab.len() as u32;
    let got = run(seq, w, all_lanes(w));
    got[..tab.len()] == *tab
}

/// The partial EXEC masks [`Seq::partial_exact`] checks: every lane off alone, alternating lanes,
/// quads, rows and halves, and a few pseudo-random masks.
fn partial_masks(w: u32) -> Vec<u64> {
    let full = all_lanes(w);
    let mut m: Vec<u64> = (0..w).map(|l| full & !(1u64 << l)).collect();
    m.extend([0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA, 0x0F0F_0F0F_0F0F_0F0F, 0x00FF_00FF_00FF_00FF]);
    m.extend([0x0000_FFFF_0000_FFFF, 0xFFFF_0000_FFFF_0000, 0x0000_0000_FFFF_FFFF, 0xFFFF_FFFF_0000_0000, 1, 1 << 63]);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..16 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        m.push(x);
    }
    m.into_iter().map(|e| e & full).filter(|&e| e != 0 && e != full).collect()
}

impl Seq {
    /// The family of the sequence: its costliest cross-lane kind (DPP < permlane < swizzle).
    pub(crate) fn family(&self) -> ShuffleLowering {
        self.steps
            .iter()
            .map(|s| match s.prim {
                Prim::Dpp16 { .. }
                | Prim::Dpp8 { .. }
                | Prim::Readlane { .. }
                | Prim::Cndmask { .. }
                | Prim::Writelane { .. } => ShuffleLowering::Dpp,
                Prim::Permlane16 { .. } | Prim::Permlane64 => ShuffleLowering::Permlane,
                Prim::Swizzle { .. } => ShuffleLowering::Swizzle,
            })
            .max()
            .unwrap_or(ShuffleLowering::Dpp)
    }

    /// True when the sequence is exact under any EXEC (MIR: an inactive source lane gives the own
    /// value; inactive lanes' results are free): a single instruction whose model agrees on every
    /// mask of [`partial_masks`].
    pub(crate) fn partial_exact(&self, tab: &[u8]) -> bool {
        let w = tab.len() as u32;
        self.steps.len() == 1
            && partial_masks(w).into_iter().all(|exec| {
                let got = run(self, w, exec);
                (0..w as usize).filter(|&l| exec >> l & 1 == 1).all(|l| {
                    let s = tab[l] as usize;
                    got[l] as usize == if exec >> s & 1 == 1 { s } else { l }
                })
            })
    }

    /// True when any step reads or writes the register `r` (a scratch register needs a VGPR).
    pub(crate) fn uses(&self, r: Reg) -> bool {
        self.steps.iter().any(|s| s.dst == r || s.a == r || s.b == r)
    }

    /// The candidate's name: its steps' names joined by ` + `, a run of readlane fix-ups named
    /// once with its count (`dpp row_shl:1 bound_ctrl + 3 readlane fix-ups`).
    pub(crate) fn name(&self, family: Family) -> String {
        let mut names: Vec<String> = Vec::new();
        let mut fixups = 0usize;
        for (k, s) in self.steps.iter().enumerate() {
            if matches!(s.prim, Prim::Writelane { .. }) {
                fixups += 1;
                let last = !matches!(self.steps.get(k + 1).map(|n| n.prim), Some(Prim::Writelane { .. }));
                if last {
                    let plural = if fixups == 1 { "" } else { "s" };
                    names.push(format!("{fixups} readlane fix-up{plural}"));
                    fixups = 0;
                }
            } else {
                names.push(prim_name(&s.prim, family));
            }
        }
        names.join(" + ")
    }
}

/// The name of one primitive (`dpp row_shl:1`, `dpp8 [1,0,3,2,5,4,7,6]`, `swizzle xor 16`,
/// `permlanex16`, `permlane64`, `readlane 5`, `cndmask`).
pub(crate) fn prim_name(p: &Prim, family: Family) -> String {
    match *p {
        Prim::Dpp16 { ctrl, row_mask, bank_mask, bc } => {
            let mut s = format!("dpp {}", qd_amdgcn_isa::dpp_ctrl_text(ctrl, family));
            if row_mask != 0xF {
                let _ = write!(s, " row_mask:0x{row_mask:x}");
            }
            if bank_mask != 0xF {
                let _ = write!(s, " bank_mask:0x{bank_mask:x}");
            }
            if bc {
                s.push_str(" bound_ctrl");
            }
            s
        }
        Prim::Dpp8 { sel } => {
            let v: Vec<String> = sel.iter().map(|x| x.to_string()).collect();
            format!("dpp8 [{}]", v.join(","))
        }
        Prim::Swizzle { offset } => match Swizzle::decode(offset) {
            Swizzle::Bitmask { and: 0x1F, or: 0, xor } => format!("swizzle xor {xor}"),
            Swizzle::Bitmask { and, or, xor } => format!("swizzle and:0x{and:x} or:{or} xor:{xor}"),
            Swizzle::QuadPerm(s) => format!("swizzle quad_perm:[{},{},{},{}]", s[0], s[1], s[2], s[3]),
            Swizzle::Rotate { right, amount, mask } => {
                let dir = if right { "right" } else { "left" };
                if mask == 0 {
                    format!("swizzle rotate {dir} {amount}")
                } else {
                    format!("swizzle rotate {dir} {amount} mask:0x{mask:x}")
                }
            }
            Swizzle::Fft(n) => format!("swizzle fft {n}"),
        },
        Prim::Permlane16 { sel, cross } => {
            let op = if cross { "permlanex16" } else { "permlane16" };
            if sel.iter().enumerate().all(|(k, &s)| usize::from(s) == k) {
                op.to_string()
            } else {
                let hex: String = sel.iter().map(|s| char::from_digit(u32::from(*s), 16).unwrap_or('?')).collect();
                format!("{op} sel:{hex}")
            }
        }
        Prim::Permlane64 => "permlane64".into(),
        Prim::Readlane { lane } => format!("readlane {lane}"),
        Prim::Cndmask { .. } => "cndmask".into(),
        Prim::Writelane { src, lane } => format!("writelane {lane} <- {src}"),
    }
}

// ----- finding candidates ----------------------------------------------------------------------

/// Every DPP16 control `target` accepts.
fn all_ctrls(target: Target) -> Vec<DppCtrl> {
    let mut v: Vec<DppCtrl> = (0..256u16).filter_map(DppCtrl::decode).collect();
    for n in 1..16u8 {
        v.extend([DppCtrl::RowShl(n), DppCtrl::RowShr(n), DppCtrl::RowRor(n)]);
    }
    v.extend([
        DppCtrl::WaveShl1,
        DppCtrl::WaveRol1,
        DppCtrl::WaveShr1,
        DppCtrl::WaveRor1,
        DppCtrl::RowMirror,
        DppCtrl::RowHalfMirror,
        DppCtrl::RowBcast15,
        DppCtrl::RowBcast31,
    ]);
    for n in 0..16u8 {
        v.extend([DppCtrl::RowShare(n), DppCtrl::RowXmask(n)]);
    }
    v.retain(|c| c.legal_on(target.arch));
    if target.wave.lanes() == 32 {
        // The wave-wide controls exist only on GFX9, which is always wave64 here.
        v.retain(|c| !matches!(c, DppCtrl::WaveShl1 | DppCtrl::WaveRol1 | DppCtrl::WaveShr1 | DppCtrl::WaveRor1));
    }
    v
}

/// What a step must achieve: lane `l` must end with symbol `want[l]`; lanes in `keep_ok`
/// already hold it (so may be left unwritten); a read of lane `s` of the step's operand gives
/// `read[s]`.
struct Spec<'a> {
    want: &'a [u8],
    keep_ok: u64,
    read: [u8; 64],
}

/// The DPP16 steps (bound_ctrl 0) that meet `spec`, each with the smallest row and bank masks
/// that cover the lanes that must be written.
fn dpp16_steps(ctrls: &[DppCtrl], spec: &Spec<'_>) -> Vec<Prim> {
    let w = spec.want.len() as u32;
    let must = all_lanes(w) & !spec.keep_ok;
    if must == 0 {
        return Vec::new();
    }
    let (mut rows, mut banks) = (0u8, 0u8);
    for l in (0..w).filter(|&l| must >> l & 1 == 1) {
        rows |= 1 << (l >> 4);
        banks |= 1 << ((l >> 2) & 3);
    }
    let all_rows = ((1u16 << (w / 16)) - 1) as u8;
    let row_mask = if rows == all_rows { 0xF } else { rows };
    let mut out = Vec::new();
    'ctrl: for &ctrl in ctrls {
        for l in 0..w {
            if rows >> (l >> 4) & 1 == 0 || banks >> ((l >> 2) & 3) & 1 == 0 {
                continue;
            }
            let ok = match ctrl.src_lane(l, w).filter(|&s| s < w) {
                Some(s) => spec.read[s as usize] == spec.want[l as usize],
                None => spec.keep_ok >> l & 1 == 1,
            };
            if !ok {
                continue 'ctrl;
            }
        }
        out.push(Prim::Dpp16 { ctrl, row_mask, bank_mask: banks, bc: false });
    }
    out
}

/// `v_permlane16/x16` steps meeting `spec` (they write every lane): selectors derived lane by
/// lane, preferring a lane's own position.
fn permlane_steps(spec: &Spec<'_>) -> Vec<Prim> {
    let w = spec.want.len() as u32;
    let mut out = Vec::new();
    for cross in [false, true] {
        let mut sel = [0u8; 16];
        let found = (0..16u32).all(|k| {
            let order = std::iter::once(k).chain((0..16).filter(|&s| s != k));
            for s in order {
                let fits = (0..w / 16).all(|r| {
                    let src_row = if cross { r ^ 1 } else { r };
                    spec.read[(src_row * 16 + s) as usize] == spec.want[(r * 16 + k) as usize]
                });
                if fits {
                    sel[k as usize] = s as u8;
                    return true;
                }
            }
            false
        });
        if found {
            out.push(Prim::Permlane16 { sel, cross });
        }
    }
    out
}

/// DPP8 selectors reproducing `tab` (every group of 8 the same permutation), if any.
fn dpp8_step(tab: &[u8]) -> Option<Prim> {
    let w = tab.len() as u32;
    let mut sel = [0u8; 8];
    for j in 0..8u32 {
        let s = (0..8u32).find(|&s| (0..w / 8).all(|g| u32::from(tab[(g * 8 + j) as usize]) == g * 8 + s))?;
        sel[j as usize] = s as u8;
    }
    Some(Prim::Dpp8 { sel })
}

/// One `ds_swizzle_b32` reproducing `tab`: the bitmask mode derived bit by bit, else the first
/// quad-perm, rotate or FFT pattern whose model matches.
fn swizzle_step(tab: &[u8]) -> Option<Prim> {
    let w = tab.len() as u32;
    let fits = |offset: u16| (0..w).all(|l| Swizzle::decode(offset).src_lane(l) == u32::from(tab[l as usize]));
    let (mut and, mut or, mut xor) = (0u16, 0u16, 0u16);
    for b in 0..5 {
        let v0 = tab[0] >> b & 1;
        let v1 = tab.get(1 << b).map_or(v0, |&s| s >> b & 1);
        match (v0, v1) {
            (0, 1) => and |= 1 << b,
            (1, 0) => {
                and |= 1 << b;
                xor |= 1 << b;
            }
            (1, 1) => or |= 1 << b,
            _ => {}
        }
    }
    let mut offsets = vec![and | or << 5 | xor << 10];
    let quad: [u8; 4] = std::array::from_fn(|k| tab.get(k).map_or(0, |&s| s & 3));
    offsets.push(Swizzle::QuadPerm(quad).encode());
    for mask in [0u8, 0x10, 0x18, 0x1C, 0x1E] {
        for amount in 1..32u8 {
            offsets.push(Swizzle::Rotate { right: false, amount, mask }.encode());
        }
    }
    offsets.extend((0..32u8).map(|n| Swizzle::Fft(n).encode()));
    offsets.into_iter().find(|&o| fits(o)).map(|offset| Prim::Swizzle { offset })
}

/// The symbol table of a full-write primitive applied to `X` with every lane active.
fn table_of(p: &Prim, w: u32) -> [u8; 64] {
    let seq = Seq { steps: vec![Step::new(*p, Reg::O, Reg::X)], tied: false };
    run(&seq, w, all_lanes(w))
}

/// First steps of the two-step shapes: primitives that write every lane.
fn first_steps(target: Target, tab: &[u8]) -> Vec<Prim> {
    let w = tab.len() as u32;
    let gfx9 = target.family() == Family::Gfx9;
    let dpp = |ctrl: DppCtrl, bc: bool| Prim::Dpp16 { ctrl, row_mask: 0xF, bank_mask: 0xF, bc };
    let mut v = Vec::new();
    for s in [[1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]] {
        v.push(dpp(DppCtrl::QuadPerm(s), false));
    }
    v.extend([dpp(DppCtrl::RowMirror, false), dpp(DppCtrl::RowHalfMirror, false)]);
    for n in 1..16u8 {
        v.extend([dpp(DppCtrl::RowRor(n), false), dpp(DppCtrl::RowShl(n), true), dpp(DppCtrl::RowShr(n), true)]);
        if !gfx9 {
            v.push(dpp(DppCtrl::RowXmask(n), false));
        }
    }
    for n in 0..16u8 {
        v.push(dpp(DppCtrl::RowShare(n), false));
    }
    if gfx9 && w == 64 {
        v.extend([dpp(DppCtrl::WaveRol1, false), dpp(DppCtrl::WaveRor1, false)]);
        v.extend([dpp(DppCtrl::WaveShl1, true), dpp(DppCtrl::WaveShr1, true)]);
        v.extend([dpp(DppCtrl::RowBcast15, true), dpp(DppCtrl::RowBcast31, true)]);
    }
    if !gfx9 {
        // A permlanex16 serving the lanes whose source is in the other row of their pair.
        let mut sel: [u8; 16] = std::array::from_fn(|k| k as u8);
        let consistent = (0..16usize).all(|k| {
            let mut need = None;
            for r in 0..(w / 16) as usize {
                let (l, s) = (r * 16 + k, usize::from(tab[r * 16 + k]));
                if s / 16 == (l / 16) ^ 1 && s / 32 == l / 32 {
                    if need.is_some_and(|n| n != s % 16) {
                        return false;
                    }
                    need = Some(s % 16);
                }
            }
            if let Some(n) = need {
                sel[k] = n as u8;
            }
            true
        });
        if consistent {
            v.push(Prim::Permlane16 { sel, cross: true });
        }
        if w == 64 {
            v.push(Prim::Permlane64);
        }
    }
    v
}

/// Full-write primitives the select shape merges (with `X` itself).
fn merge_parts(target: Target, w: u32) -> Vec<Prim> {
    let mut v: Vec<Prim> = all_ctrls(target)
        .into_iter()
        .map(|ctrl| Prim::Dpp16 { ctrl, row_mask: 0xF, bank_mask: 0xF, bc: true })
        .collect();
    for mask in [0u8, 0x10, 0x18, 0x1C, 0x1E] {
        for amount in 1..32u8 {
            v.push(Prim::Swizzle { offset: Swizzle::Rotate { right: false, amount, mask }.encode() });
        }
    }
    for x in 1..32u16 {
        v.push(Prim::Swizzle { offset: 0x1F | x << 10 });
    }
    if target.family() == Family::Gfx11 {
        v.push(Prim::Permlane16 { sel: std::array::from_fn(|k| k as u8), cross: true });
        if w == 64 {
            v.push(Prim::Permlane64);
        }
    }
    v
}

/// How many multi-step candidates of one family [`sequences`] keeps (the ones with the fewest
/// LDS and permlane steps): enough for a reader to compare, few enough to test each one.
const MULTI_PER_FAMILY: usize = 2;

/// Every proved candidate sequence for the source table `tab` (`tab.len()` = the wave's lanes)
/// on `target`, without duplicates. Two-step shapes are searched only when no single DPP or
/// permlane step exists, selects and the general shapes of `shuffle/rows.rs` only when no one-
/// or two-step DPP/permlane sequence does.
pub(crate) fn sequences(target: Target, tab: &[u8]) -> Vec<Seq> {
    let w = tab.len() as u32;
    let gfx11 = target.family() == Family::Gfx11;
    let fam = target.family();
    let ident: [u8; 64] = std::array::from_fn(|l| l as u8);
    let own = (0..w).filter(|&l| u32::from(tab[l as usize]) == l).fold(0u64, |m, l| m | 1 << l);
    let ctrls = all_ctrls(target);
    let mut out: Vec<Seq> = Vec::new();
    let single = |p: Prim, tied: bool| Seq { steps: vec![Step::new(p, Reg::O, Reg::X)], tied };

    // One step.
    let spec = Spec { want: tab, keep_ok: own, read: ident };
    for p in dpp16_steps(&ctrls, &spec) {
        out.push(single(p, true));
    }
    if gfx11 {
        for p in permlane_steps(&spec) {
            out.push(single(p, true));
        }
        if let Some(p) = dpp8_step(tab) {
            out.push(single(p, false));
        }
        if w == 64 && (0..64).all(|l| u32::from(tab[l]) == l as u32 ^ 32) {
            out.push(single(Prim::Permlane64, false));
        }
    }
    if let Some(p) = swizzle_step(tab) {
        out.push(single(p, false));
    }
    if tab.iter().all(|&s| s == tab[0]) {
        out.push(single(Prim::Readlane { lane: tab[0] }, false));
    }

    let register_only = |v: &[Seq]| v.iter().any(|s| s.family() <= ShuffleLowering::Permlane);
    let mut multi: Vec<Seq> = Vec::new();
    if !register_only(&out) {
        for a in first_steps(target, tab) {
            let t = table_of(&a, w);
            let right = (0..w).filter(|&l| t[l as usize] == tab[l as usize]).fold(0u64, |m, l| m | 1 << l);
            // Compose: T = A(X); O (tied) = B(T).
            let spec = Spec { want: tab, keep_ok: own, read: t };
            let mut bs = dpp16_steps(&ctrls, &spec);
            if gfx11 {
                bs.extend(permlane_steps(&spec));
            }
            for b in bs {
                multi.push(Seq { steps: vec![Step::new(a, Reg::T, Reg::X), Step::new(b, Reg::O, Reg::T)], tied: true });
            }
            // In place: O = A(X); O = B(O).
            let spec = Spec { want: tab, keep_ok: right, read: t };
            for b in dpp16_steps(&ctrls, &spec) {
                multi
                    .push(Seq { steps: vec![Step::new(a, Reg::O, Reg::X), Step::new(b, Reg::O, Reg::O)], tied: false });
            }
            // Old-chained: O = A(X); O = B(X) (unwritten lanes keep A's result).
            let spec = Spec { want: tab, keep_ok: right, read: ident };
            for b in dpp16_steps(&ctrls, &spec) {
                multi
                    .push(Seq { steps: vec![Step::new(a, Reg::O, Reg::X), Step::new(b, Reg::O, Reg::X)], tied: false });
            }
        }
    }
    if !register_only(&out) && !register_only(&multi) {
        // Select: O = P(X); [T = Q(X);] O = cndmask(O, T or X).
        let parts: Vec<(Prim, u64)> = merge_parts(target, w)
            .into_iter()
            .map(|p| {
                let t = table_of(&p, w);
                (p, (0..w).filter(|&l| t[l as usize] == tab[l as usize]).fold(0u64, |m, l| m | 1 << l))
            })
            .filter(|&(_, r)| r != 0)
            .collect();
        let full = all_lanes(w);
        for (i, &(p, rp)) in parts.iter().enumerate() {
            if rp | own == full && rp != full {
                let mask = full & !rp;
                multi.push(Seq {
                    steps: vec![
                        Step::new(p, Reg::O, Reg::X),
                        Step { prim: Prim::Cndmask { mask }, dst: Reg::O, a: Reg::O, b: Reg::X },
                    ],
                    tied: false,
                });
            }
            for &(q, rq) in &parts[i + 1..] {
                if rp | rq == full && rp != full && rq != full {
                    let mask = full & !rp;
                    multi.push(Seq {
                        steps: vec![
                            Step::new(p, Reg::O, Reg::X),
                            Step::new(q, Reg::T, Reg::X),
                            Step { prim: Prim::Cndmask { mask }, dst: Reg::O, a: Reg::O, b: Reg::T },
                        ],
                        tied: false,
                    });
                }
            }
        }
    }
    // The general shapes (shuffle/rows.rs): permlane rows on GFX11, readlane fix-ups and wave
    // shift chains; only when nothing above is register-only, the cheapest few by a rough count.
    let mut general: Vec<Seq> = Vec::new();
    if !register_only(&out) && !register_only(&multi) {
        general.extend(rows::row_sequences(target, tab));
        general.extend(rows::fixup_sequences(target, tab));
        general.sort_by_key(|s| (rows::rough_cycles(target, s), s.steps.len()));
    }
    // Keep the multi-step candidates with the fewest LDS, then permlane, then total steps.
    let weight = |s: &Seq| {
        let lds = s.steps.iter().filter(|st| matches!(st.prim, Prim::Swizzle { .. })).count();
        let pl = s.steps.iter().filter(|st| matches!(st.prim, Prim::Permlane16 { .. } | Prim::Permlane64)).count();
        (lds, pl, s.steps.len())
    };
    multi.sort_by_key(weight);
    let mut kept_per_family = std::collections::HashMap::new();
    for s in multi {
        let n = kept_per_family.entry(s.family()).or_insert(0usize);
        if *n < MULTI_PER_FAMILY {
            *n += 1;
            out.push(s);
        }
    }
    let mut kept_general = std::collections::HashMap::new();
    for s in general {
        let n = kept_general.entry(s.family()).or_insert(0usize);
        if *n < MULTI_PER_FAMILY {
            *n += 1;
            out.push(s);
        }
    }
    let mut names = std::collections::HashSet::new();
    out.retain(|s| names.insert(s.name(fam)));
    out.retain(|s| {
        let ok = prove(s, tab);
        debug_assert!(ok, "shuffle candidate `{}` disagrees with its table on {target}", s.name(fam));
        ok
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_amdgcn_isa::{Arch, WaveSize};
    use qd_mir::analysis::lanes::LanePattern;

    fn targets() -> Vec<Target> {
        vec![
            Target::wave64(Arch::Gfx942),
            Target::wave64(Arch::Gfx90a),
            Target::wave64(Arch::Gfx1100),
            Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
        ]
    }

    fn names(t: Target, p: &LanePattern) -> Vec<String> {
        let tab = p.table(t.wave.lanes()).unwrap();
        sequences(t, &tab).iter().map(|s| s.name(t.family())).collect()
    }

    #[test]
    fn the_catalog_picks_of_shuffle_lowering_md_are_found() {
        let g942 = Target::wave64(Arch::Gfx942);
        let g11 = Target::wave64(Arch::Gfx1100);
        assert!(names(g942, &LanePattern::Xor { mask: 1 }).contains(&"dpp quad_perm:[1,0,3,2]".to_string()));
        assert!(names(g942, &LanePattern::Xor { mask: 8 }).contains(&"dpp row_ror:8".to_string()));
        assert!(names(g942, &LanePattern::Xor { mask: 5 }).iter().any(|n| n.contains(" + ")));
        assert!(names(g942, &LanePattern::Xor { mask: 16 }).contains(&"swizzle xor 16".to_string()));
        assert!(names(g942, &LanePattern::Broadcast { lane: 5, tile: 16 }).contains(&"dpp row_newbcast:5".to_string()));
        assert!(names(g11, &LanePattern::Broadcast { lane: 5, tile: 16 }).contains(&"dpp row_share:5".to_string()));
        assert_eq!(names(g11, &LanePattern::Down { delta: 1, tile: 16 })[0], "dpp row_shl:1");
        assert!(names(g11, &LanePattern::Xor { mask: 16 }).contains(&"permlanex16".to_string()));
        assert!(names(g11, &LanePattern::Xor { mask: 32 }).contains(&"permlane64".to_string()));
        assert!(
            names(g942, &LanePattern::Down { delta: 4, tile: 8 }).contains(&"dpp row_shl:4 bank_mask:0x5".to_string())
        );
        assert!(names(g942, &LanePattern::Down { delta: 1, tile: 64 }).contains(&"dpp wave_shl:1".to_string()));
        assert!(names(g942, &LanePattern::Broadcast { lane: 7, tile: 64 }).contains(&"readlane 7".to_string()));
    }

    #[test]
    fn every_generated_candidate_proves_and_single_dpp_is_partial_exact() {
        for t in targets() {
            let w = t.wave.lanes();
            let mut pats = Vec::new();
            for m in 1..w {
                pats.push(LanePattern::Xor { mask: m });
            }
            for tile in (1..=6).map(|k| 1u32 << k).filter(|&x| x <= w) {
                for d in 1..tile {
                    pats.push(LanePattern::Down { delta: d, tile });
                    pats.push(LanePattern::Up { delta: d, tile });
                    pats.push(LanePattern::Rotate { delta: d, tile });
                }
                for j in 0..tile {
                    pats.push(LanePattern::Broadcast { lane: j, tile });
                }
            }
            for p in pats {
                let tab = p.table(w).unwrap();
                for s in sequences(t, &tab) {
                    assert!(prove(&s, &tab), "{t} {p}: {}", s.name(t.family()));
                    let single_dpp = s.steps.len() == 1 && matches!(s.steps[0].prim, Prim::Dpp16 { bc: false, .. });
                    if single_dpp {
                        assert!(s.tied && s.partial_exact(&tab), "{t} {p}: {}", s.name(t.family()));
                    }
                    if s.steps.len() > 1 || matches!(s.steps[0].prim, Prim::Swizzle { .. } | Prim::Dpp8 { .. }) {
                        assert!(!s.partial_exact(&tab));
                    }
                }
            }
        }
    }
}
