//! The general register-only shapes of the shuffle selector, for the constant tables the one- and
//! two-step shapes of `shuffle/mod.rs` cannot do in registers (docs/shuffle-lowering.md §3.1):
//!
//! * **Permlane rows** (GFX11, [`row_sequences`]): any table, decomposed by where each lane's
//!   source lies relative to the lane's own 16-lane row — the same row (one `v_permlane16_b32`,
//!   or a DPP16 control when one fits), the other row of the pair (`v_permlanex16_b32`), the
//!   other 32-lane half on wave64 (`v_permlane64_b32` into the scratch `U`, then a permlane16 or
//!   permlanex16 of `U`). Each class is served by permlanes whose 16-entry selector holds for
//!   every row of the class (a class whose rows disagree on a position is split over several
//!   permlanes); the parts are merged with `v_cndmask_b32` on constant lane masks, lanes whose
//!   source is themselves take `X`, and a fitting DPP16 step for the same-row class writes last
//!   into the result, leaving every other lane alone. When no destination row needs both, the
//!   same-half and other-half classes of one permlane kind share one permlane of `M =
//!   cndmask(X, U)`. `ds_bpermute` on gfx1100 wave64 needs the permlane64 halves, two LDS round
//!   trips and a select (218 cycles); these are 24–85 for every pattern family and the
//!   arbitrary tables of the tests (down 1 in tiles of 64: 49).
//! * **Readlane fix-ups** (both families, [`fixup_sequences`]): a base that is right on all but
//!   a few lanes — one full-write DPP16 step, or on GFX9 a chain of `wave_shl/shr/rol/ror:1`
//!   steps — then the lanes whose source is themselves taken from `X` by one `v_cndmask_b32`,
//!   and each other wrong lane fixed by `v_readlane_b32 s, X, src` + `v_writelane_b32 O, s,
//!   lane` (at most [`MAX_FIXUPS`]). `v_writelane` writes its lane whatever EXEC says: like every
//!   multi-step sequence these are used only under full EXEC.
//!
//! Every sequence here is untied (`X` is never written, so each step may read it) and is proved
//! lane by lane by `shuffle/mod.rs` like the others; the caller keeps the cheapest few by
//! [`rough_cycles`] before the real cost estimate.

use super::{all_ctrls, all_lanes, dpp16_steps, run, Prim, Reg, Seq, Spec, Step};
use qd_amdgcn_isa::DppCtrl;
use qd_amdgcn_isa::{Family, Target};
use qd_amdgcn_sim::cost::CostTable;

/// At most this many readlane/writelane pairs in one candidate (each costs two 4–8 cycle
/// instructions; beyond this, a permlane or `ds_bpermute` is cheaper).
pub(super) const MAX_FIXUPS: usize = 8;

/// The longest chain of GFX9 wave-wide DPP shifts tried (each costs a DPP step and its two wait
/// states, 12 cycles on gfx942: 8 of them cost as much as one `ds_bpermute`).
const MAX_CHAIN: usize = 9;

/// The lanes (bit mask) of `0..w` for which `f` holds.
fn lanes(w: u32, f: impl Fn(usize) -> bool) -> u64 {
    (0..w as usize).filter(|&l| f(l)).fold(0u64, |m, l| m | 1 << l)
}

/// The cross-row class of a lane whose source is another lane: which register a permlane reads
/// (`X`, or `U` = `X` with the halves swapped) and whether it reads the other row of the pair.
fn class(l: usize, s: usize) -> (Reg, bool) {
    match (l / 16) ^ (s / 16) {
        0 => (Reg::X, false),
        1 => (Reg::X, true),
        2 => (Reg::U, false),
        _ => (Reg::U, true),
    }
}

/// The permlanes serving the lanes `mask` of one class: selectors filled row by row, a lane going
/// to the first permlane whose selector is free or already right at its position. Positions no
/// lane needs select their own lane.
fn split(tab: &[u8], mask: u64, cross: bool) -> Vec<(Prim, u64)> {
    let mut parts: Vec<([Option<u8>; 16], u64)> = Vec::new();
    for l in (0..tab.len()).filter(|&l| mask >> l & 1 == 1) {
        let (k, want) = (l % 16, tab[l] % 16);
        match parts.iter_mut().find(|(sel, _)| sel[k].is_none_or(|s| s == want)) {
            Some((sel, m)) => {
                sel[k] = Some(want);
                *m |= 1 << l;
            }
            None => {
                let mut sel = [None; 16];
                sel[k] = Some(want);
                parts.push((sel, 1 << l));
            }
        }
    }
    parts
        .into_iter()
        .map(|(sel, m)| {
            let sel: [u8; 16] = std::array::from_fn(|k| sel[k].unwrap_or(k as u8));
            (Prim::Permlane16 { sel, cross }, m)
        })
        .collect()
}

/// The permlane-rows candidates for `tab` on GFX11: with the same-row class done by a DPP16 step
/// when one fits, and all by permlanes. Empty on GFX9, for the identity, and when a single step
/// does it (the one-step search of `shuffle/mod.rs` has it).
pub(super) fn row_sequences(target: Target, tab: &[u8]) -> Vec<Seq> {
    if target.family() != Family::Gfx11 {
        return Vec::new();
    }
    let w = tab.len() as u32;
    let moved = lanes(w, |l| usize::from(tab[l]) != l);
    let own = all_lanes(w) & !moved;
    if moved == 0 {
        return Vec::new();
    }
    let in_class = |c: (Reg, bool)| lanes(w, |l| moved >> l & 1 == 1 && class(l, usize::from(tab[l])) == c);
    let same = in_class((Reg::X, false));
    let ident: [u8; 64] = std::array::from_fn(|l| l as u8);
    // A DPP16 step for the same-row class, written last: it may write only lanes of that class
    // (or lanes it gives their own value) and leaves the rest unwritten.
    let dpp_last = (same != 0)
        .then(|| {
            let spec = Spec { want: tab, keep_ok: all_lanes(w) & !same, read: ident };
            dpp16_steps(&all_ctrls(target), &spec).into_iter().next()
        })
        .flatten();
    // Merging the other-half class of one kind (permlane16 or permlanex16) into the same-half
    // class of that kind: one permlane of `M`, where `M` = `X` with the rows some destination
    // row reads from the other half taken from `U` (`U = cndmask(X, U)` in place) — possible
    // when no destination row needs both, and the other kind does not need `U` itself.
    let merge_mask = |cross: bool| -> Option<u64> {
        let (near, far) = (in_class((Reg::X, cross)), in_class((Reg::U, cross)));
        if near == 0 || far == 0 || in_class((Reg::U, !cross)) != 0 {
            return None;
        }
        let mut mask = 0u64;
        for r in 0..(w / 16) as usize {
            let row = |m: u64| m >> (16 * r) & 0xFFFF != 0;
            if row(near) && row(far) {
                return None;
            }
            if row(far) {
                mask |= 0xFFFFu64 << (16 * (if cross { r ^ 1 } else { r }));
            }
        }
        Some(mask)
    };
    let mut out = Vec::new();
    for (with_dpp, merge) in [(true, false), (false, false), (true, true), (false, true)] {
        let dpp = match (with_dpp, dpp_last) {
            (true, None) => continue,
            (true, p) => p,
            (false, _) => None,
        };
        // (With the DPP step, the same-row class needs no permlane: only permlanex16 merges.)
        let merged = [false, true]
            .into_iter()
            .filter(|&cross| cross || dpp.is_none())
            .find_map(|cross| merge_mask(cross).map(|m| (cross, m)));
        let merged = match (merge, merged) {
            (true, None) => continue,
            (true, m) => m,
            (false, _) => None,
        };
        let mut classes: Vec<(Reg, bool, u64)> = Vec::new();
        for c in [(Reg::X, false), (Reg::X, true), (Reg::U, false), (Reg::U, true)] {
            if c == (Reg::X, false) && dpp.is_some() {
                continue;
            }
            match merged {
                // The merged class: both halves' lanes of this kind, read from `M` (in `U`).
                Some((cross, _)) if c == (Reg::X, cross) => {}
                Some((cross, _)) if c == (Reg::U, cross) => {
                    classes.push((Reg::U, cross, in_class((Reg::X, cross)) | in_class(c)));
                }
                _ => classes.push((c.0, c.1, in_class(c))),
            }
        }
        let mut parts: Vec<(Reg, Prim, u64)> = Vec::new();
        for (src, cross, m) in classes.into_iter().filter(|c| c.2 != 0) {
            parts.extend(split(tab, m, cross).into_iter().map(|(p, m)| (src, p, m)));
        }
        if parts.is_empty() || parts.len() == 1 && dpp.is_none() && own == 0 {
            continue; // a single DPP16 or permlane step: found by the one-step search
        }
        let mut steps = Vec::new();
        if parts.iter().any(|p| p.0 == Reg::U) {
            steps.push(Step::new(Prim::Permlane64, Reg::U, Reg::X));
        }
        if let Some((_, mask)) = merged {
            steps.push(Step { prim: Prim::Cndmask { mask }, dst: Reg::U, a: Reg::X, b: Reg::U });
        }
        for (k, &(src, p, m)) in parts.iter().enumerate() {
            if k == 0 && own == 0 {
                steps.push(Step::new(p, Reg::O, src));
                continue;
            }
            steps.push(Step::new(p, Reg::T, src));
            let a = if k == 0 { Reg::X } else { Reg::O };
            steps.push(Step { prim: Prim::Cndmask { mask: m }, dst: Reg::O, a, b: Reg::T });
        }
        if let Some(p) = dpp {
            steps.push(Step::new(p, Reg::O, Reg::X));
        }
        out.push(Seq { steps, tied: false });
    }
    out
}

/// The readlane fix-up candidates for `tab` (both families): bases right on all but at most
/// [`MAX_FIXUPS`] lanes whose source is another lane.
pub(super) fn fixup_sequences(target: Target, tab: &[u8]) -> Vec<Seq> {
    let w = tab.len() as u32;
    // Full-write steps: bound_ctrl where the control has invalid sources.
    let dpp = |ctrl: DppCtrl| {
        let bc = (0..w).any(|l| ctrl.src_lane(l, w).is_none_or(|s| s >= w));
        Prim::Dpp16 { ctrl, row_mask: 0xF, bank_mask: 0xF, bc }
    };
    let mut bases: Vec<Vec<Step>> =
        all_ctrls(target).into_iter().map(|c| vec![Step::new(dpp(c), Reg::O, Reg::X)]).collect();
    if target.family() == Family::Gfx9 && w == 64 {
        for c in [DppCtrl::WaveShl1, DppCtrl::WaveShr1, DppCtrl::WaveRol1, DppCtrl::WaveRor1] {
            let mut chain = vec![Step::new(dpp(c), Reg::O, Reg::X)];
            for _ in 1..MAX_CHAIN {
                chain.push(Step::new(dpp(c), Reg::O, Reg::O));
                bases.push(chain.clone());
            }
        }
    }
    let mut out = Vec::new();
    for steps in bases {
        let mut seq = Seq { steps, tied: false };
        let got = run(&seq, w, all_lanes(w));
        let wrong = lanes(w, |l| got[l] != tab[l]);
        let own_wrong = wrong & lanes(w, |l| usize::from(tab[l]) == l);
        let others = wrong & !own_wrong;
        if others.count_ones() as usize > MAX_FIXUPS || wrong == all_lanes(w) {
            continue;
        }
        if wrong != 0 && seq.steps.len() == 1 && others == 0 {
            // One DPP step and a select of `X`: the select shape of `shuffle/mod.rs` has it.
            continue;
        }
        if own_wrong != 0 {
            seq.steps.push(Step { prim: Prim::Cndmask { mask: own_wrong }, dst: Reg::O, a: Reg::O, b: Reg::X });
        }
        for l in (0..w as usize).filter(|&l| others >> l & 1 == 1) {
            seq.steps.push(Step::new(Prim::Writelane { src: tab[l], lane: l as u8 }, Reg::O, Reg::X));
        }
        out.push(seq);
    }
    out
}

/// A rough cycle count of `seq` on `target` from the simulator's cost table, wait states of a
/// dependent GFX9 DPP step included: what the caller keeps the cheapest few of these shapes by.
pub(super) fn rough_cycles(target: Target, seq: &Seq) -> u32 {
    let c = CostTable::for_target(target);
    let gfx9 = target.family() == Family::Gfx9;
    let masks = if target.wave.lanes() == 64 { 2 } else { 1 };
    seq.steps
        .iter()
        .map(|s| match s.prim {
            Prim::Dpp16 { .. } | Prim::Dpp8 { .. } => c.dpp + if gfx9 { 2 * c.nop_state } else { 0 },
            Prim::Swizzle { .. } => c.lds_swizzle,
            Prim::Permlane16 { .. } => 2 * c.salu + c.permlane,
            Prim::Permlane64 => c.permlane,
            Prim::Readlane { .. } => c.readlane + c.valu,
            Prim::Cndmask { .. } => masks * c.salu + c.valu,
            Prim::Writelane { .. } => 2 * c.readlane,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::super::{prove, sequences};
    use super::*;
    use crate::select::ShuffleLowering;
    use qd_amdgcn_isa::{Arch, WaveSize};
    use qd_mir::analysis::lanes::LanePattern;

    fn gfx11() -> [Target; 2] {
        [Target::wave64(Arch::Gfx1100), Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }]
    }

    /// Every pattern family in every tile of a `w`-lane wave, and a few arbitrary tables.
    fn tables(w: u32) -> Vec<(String, Vec<u8>)> {
        let mut pats: Vec<LanePattern> = (1..w).map(|mask| LanePattern::Xor { mask }).collect();
        for tile in (1..=6).map(|k| 1u32 << k).filter(|&t| t <= w) {
            for delta in 1..tile {
                pats.extend([
                    LanePattern::Down { delta, tile },
                    LanePattern::Up { delta, tile },
                    LanePattern::Rotate { delta, tile },
                ]);
            }
            pats.extend((0..tile).map(|lane| LanePattern::Broadcast { lane, tile }));
        }
        let mut v: Vec<(String, Vec<u8>)> = pats.iter().map(|p| (p.to_string(), p.table(w).unwrap())).collect();
        for (a, b) in [(7u32, 3u32), (5, 11), (13, 0), (31, 17)] {
            v.push((format!("{a}l+{b}"), (0..w).map(|l| ((a * l + b) % w) as u8).collect()));
        }
        let mut x = 0x1234_5678u32;
        v.push((
            "random".into(),
            (0..w)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    (x % w) as u8
                })
                .collect(),
        ));
        v
    }

    #[test]
    fn every_table_has_a_proved_register_only_sequence_on_gfx11() {
        for t in gfx11() {
            for (name, tab) in tables(t.wave.lanes()) {
                let seqs = sequences(t, &tab);
                assert!(seqs.iter().all(|s| prove(s, &tab)), "{t} {name}");
                assert!(seqs.iter().any(|s| s.family() <= ShuffleLowering::Permlane), "{t} {name}: none in registers");
            }
        }
    }

    #[test]
    fn row_decomposition_of_down_1_in_64_uses_permlane64_and_a_dpp_row_shift() {
        let t = Target::wave64(Arch::Gfx1100);
        let tab = LanePattern::Down { delta: 1, tile: 64 }.table(64).unwrap();
        let rows = row_sequences(t, &tab);
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|s| prove(s, &tab)));
        let name = rows[0].name(Family::Gfx11);
        assert!(name.starts_with("permlane64 + permlanex16 sel:0123456789abcde0 + cndmask + "), "{name}");
        assert!(name.ends_with(" + dpp row_shl:1"), "{name}");
        // Merged: lanes 15 and 47 read X's next row, lane 31 U's row 0, through one permlanex16
        // of X with row 0 taken from U.
        let name = rows[2].name(Family::Gfx11);
        let want = "permlane64 + cndmask + permlanex16 sel:0123456789abcde0 + cndmask + dpp row_shl:1";
        assert_eq!(name, want);
        // Every row class of a random table, split where the rows disagree.
        let tab: Vec<u8> = (0..64u32).map(|l| ((l * 37 + 11) % 64) as u8).collect();
        assert!(row_sequences(t, &tab).iter().all(|s| prove(s, &tab)));
    }

    #[test]
    fn readlane_fixups_are_named_by_count_and_exact_only_under_full_exec() {
        let t = Target::wave64(Arch::Gfx942);
        let tab = LanePattern::Down { delta: 1, tile: 32 }.table(64).unwrap();
        let fix = fixup_sequences(t, &tab);
        let names: Vec<String> = fix.iter().map(|s| s.name(Family::Gfx9)).collect();
        assert!(names.contains(&"dpp row_shl:1 bound_ctrl + cndmask + 2 readlane fix-ups".to_string()), "{names:?}");
        for s in &fix {
            assert!(prove(s, &tab) && !s.partial_exact(&tab), "{}", s.name(Family::Gfx9));
        }
        // A chain of wave shifts with the tail lanes taken from X.
        let tab = LanePattern::Down { delta: 3, tile: 64 }.table(64).unwrap();
        let names: Vec<String> = fixup_sequences(t, &tab).iter().map(|s| s.name(Family::Gfx9)).collect();
        let chain = "dpp wave_shl:1 bound_ctrl + dpp wave_shl:1 bound_ctrl + dpp wave_shl:1 bound_ctrl + cndmask";
        assert!(names.contains(&chain.to_string()), "{names:?}");
    }
}
