//! Float `min` / `max` reductions and scans on *order keys*: the float operators run as the
//! integer ones, which fuse into DPP and take any combination tree.
//!
//! The interpreter's float min/max (`qd_mir::eval`) is minNum/maxNum with `min(+0, -0) = -0`
//! and `max(+0, -0) = +0`: on values that are not NaN it is the IEEE total order's minimum or
//! maximum, and a NaN operand gives the other operand untouched. So over a set of lanes whose
//! values are not all NaN, every combination tree gives the same bits: the total-order extreme of
//! the non-NaN values. The key of a float (the bits with the low 31 — 63 — bits flipped when the
//! sign is set) orders as a signed integer exactly like the total order; a NaN gets the integer
//! identity (`i32::MAX` / `i64::MAX` for min, `MIN` for max), which is also the key of "no
//! value", so the integer reduction or scan of the keys (any tree of `collective/mod.rs` /
//! `int_trees.rs`) decodes to the interpreter's result whenever its key is not the
//! identity.
//!
//! When it is, every value the interpreter combined was NaN, and its result is the NaN its order
//! leaves: two NaNs give the second operand (`b`), so
//!
//! * an inclusive scan (Hillis–Steele, predecessor on the left) keeps the lane's own value;
//! * an exclusive scan never gets there: it shifts the float identity (±inf) into the first
//!   lane of every tile, so every prefix holds a value that is not NaN. Its keys shift with the
//!   identity's key, which is then also a safe filler (it is in every prefix already), so the
//!   integer exclusive trees that shift first apply as they are; the GFX11 tree that shifts last
//!   never shifts the identity in, so its result is combined with the identity's key once;
//! * a reduction (butterfly, own value on the left) takes its partner's value at every level:
//!   lane `i` ends with lane `i ^ (T - 1)`'s value, the tile reversed (DPP quad_perm /
//!   row_half_mirror / row_mirror within rows; `ds_swizzle` or `ds_bpermute` (GFX9) or a
//!   reversing `v_permlanex16` (GFX11) for 32 lanes; `ds_bpermute` (GFX9) or `v_permlane64` +
//!   the reversing `v_permlanex16` (GFX11) for 64).
//!
//! * a segmented reduction (`v[i] = v[i] ⊕ v[i - k]` while the distance to the head allows,
//!   own value on the left) takes its partner's value at every step it combines, and the steps
//!   it takes add up to its distance: lane `i` ends with its segment head's value, read with a
//!   `ds_bpermute` from lane `i − dist`.
//!
//! Reductions, inclusive scans and segmented reductions compute that fallback and select it
//! where the key is the identity.

use qd_mir::eval::identity;
use qd_mir::ops::GroupOp;
use qd_mir::types::ScalarType;

use super::int_trees::HalfTree;
use super::seg_masks::Guards;
use super::seq::{combine, dpp, Arg, Class, R};
use super::{Allow, Kind, Plan, Spec, B};
use qd_amdgcn_isa::{DppCtrl, Op, Operand};

/// The integer tree a key candidate runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyTree {
    /// The butterfly (`reduce`) or Hillis–Steele (`scan`) ladder of `collective/mod.rs`.
    Ladder,
    /// `int_reduce_wide` / `int_scan_wide` (32/64-lane tiles).
    Wide,
    /// `int_reduce_salu` (whole-wave64 reductions, 32-bit).
    Salu,
    /// `int_exclusive_late` (GFX11 exclusive scans, the shift last).
    Late,
    /// `int_reduce_halves` (f64 reductions: two 32-bit passes over the key halves).
    Halves(HalfTree),
    /// `int_seg_wide` (segmented reductions over 32/64-lane tiles).
    SegWide,
    /// `seg_masks` (segmented reductions, guards built on the scalar unit).
    SegMasks(Guards),
}

impl KeyTree {
    /// Every tree, in the order the candidates are built.
    pub(super) const ALL: [KeyTree; 10] = [
        KeyTree::Ladder,
        KeyTree::Wide,
        KeyTree::Salu,
        KeyTree::Late,
        KeyTree::Halves(HalfTree::ALL[0]),
        KeyTree::Halves(HalfTree::ALL[1]),
        KeyTree::Halves(HalfTree::ALL[2]),
        KeyTree::SegWide,
        KeyTree::SegMasks(Guards::Chain),
        KeyTree::SegMasks(Guards::Dist),
    ];
}

/// The order key of float bits `x` (`wide`: f64): the bits below the sign flipped when it is set.
fn order_key(x: u64, wide: bool) -> u64 {
    if wide {
        x ^ (((x as i64) >> 63) as u64 >> 1)
    } else {
        let x = x as u32;
        u64::from(x ^ (((x as i32) >> 31) as u32 >> 1))
    }
}

impl B {
    /// The float min/max candidate on order keys with `tree` (module docs); None where it does
    /// not apply or a read it needs is not allowed.
    pub(super) fn float_keys(&mut self, a: Allow, tree: KeyTree) -> Option<String> {
        let fspec = self.spec;
        let minmax = matches!(fspec.op, GroupOp::Min | GroupOp::Max);
        if !fspec.float() || !minmax || fspec.tl < 2 {
            return None;
        }
        if tree == KeyTree::Wide && fspec.tl < 32 {
            return None;
        }
        if tree == KeyTree::Late && fspec.kind != (Kind::Scan { inclusive: false }) {
            return None;
        }
        let orig = self.cur;
        let kty = if fspec.wide() { ScalarType::I64 } else { ScalarType::I32 };
        let nan = identity(fspec.op, kty);
        self.cur = self.encode_keys(orig, nan);
        // An exclusive scan shifts the float identity in: every lane's prefix holds it, the
        // prefix is never all NaN, and the keys shift with its key as the identity.
        let id = match fspec.kind {
            Kind::Scan { inclusive: false } => order_key(fspec.id, fspec.wide()),
            Kind::Reduce | Kind::Scan { inclusive: true } | Kind::Seg => nan,
        };
        self.spec = Spec { ty: kty, id, ..fspec };
        self.idv = None;
        let name = match (tree, fspec.kind) {
            (KeyTree::Ladder, Kind::Reduce) => self.reduce(a, fspec.tl).map(|()| self.ladder_name("dpp ladder")),
            (KeyTree::Ladder, Kind::Scan { inclusive }) => {
                let shifted = if inclusive { Some(()) } else { self.shift(a) };
                shifted.and_then(|()| self.scan(a)).map(|()| self.ladder_name("dpp ladder"))
            }
            (KeyTree::Wide, Kind::Reduce) => self.int_reduce_wide(a),
            (KeyTree::Wide, Kind::Seg) => None,
            (KeyTree::Wide, _) => self.int_scan_wide(a),
            (KeyTree::Salu, Kind::Reduce) => self.int_reduce_salu(a),
            (KeyTree::Late, _) => self.int_exclusive_late(a).inspect(|_| {
                // The shift came last: the identity the interpreter shifts in is in no prefix
                // yet, and it must be (it absorbs a prefix of NaNs).
                let (cur, idr) = (self.cur, self.id_fill());
                combine(&mut self.s, fspec.op, kty, cur, idr, cur);
            }),
            (KeyTree::Halves(t), Kind::Reduce) => self.int_reduce_halves(a, t),
            (KeyTree::Ladder, Kind::Seg) => self.seg(a).map(|()| self.ladder_name("dpp ladder")),
            (KeyTree::SegWide, Kind::Seg) => self.int_seg_wide(a),
            (KeyTree::SegMasks(g), Kind::Seg) => self.seg_masks(a, g).inspect(|_| {
                // GFX11's row-crossing steps run under an EXEC of the combining lanes and leave
                // restoring it to the frame; the decode after them needs every lane.
                if fspec.framed && !fspec.gfx9() {
                    let (exec, mov) =
                        if self.s.wave64() { (Operand::Exec, Op::SMovB64) } else { (Operand::ExecLo, Op::SMovB32) };
                    self.s.op(mov, &[Arg::K(exec), Arg::K(Operand::Int(-1))]);
                }
            }),
            (KeyTree::Salu | KeyTree::Halves(_), _) | (KeyTree::SegWide | KeyTree::SegMasks(_), _) => None,
        };
        self.spec = fspec;
        self.idv = None;
        let name = name?;
        let key = self.cur;
        let (fallback, rev) = match fspec.kind {
            Kind::Reduce => {
                let (f, rev) = self.reverse_in_tile(a, orig)?;
                (Some(f), rev)
            }
            Kind::Scan { inclusive: true } => (Some(orig), ""),
            Kind::Seg => (Some(self.head_value(orig)), " (NaN segment: bpermute from its head)"),
            Kind::Scan { inclusive: false } => (None, ""),
        };
        self.cur = self.decode_keys(key, fallback, nan);
        Some(format!("{name} on order keys{rev}"))
    }

    /// The order keys of float `x`, NaN lanes given `nan`. The compare goes first, so that the
    /// key's bit operations fill the wait state between it and the select that reads VCC.
    fn encode_keys(&mut self, x: R, nan: u64) -> R {
        let vc = self.vclass();
        let (k, t) = (self.s.temp(vc), self.s.temp(Class::V));
        let vcc = Arg::K(self.s.vcc());
        if self.spec.wide() {
            self.s.op(Op::VCmpOF64, &[vcc, Arg::U(x), Arg::U(x)]);
            let n = [self.select_constant(nan as u32), self.select_constant((nan >> 32) as u32)];
            self.flip_key(x, k, t);
            self.s.op(Op::VCndmaskB32, &[Arg::DL(k), n[0], Arg::UL(k), vcc]);
            self.s.op(Op::VCndmaskB32, &[Arg::DH(k), n[1], Arg::UH(k), vcc]);
        } else {
            self.s.op(Op::VCmpOF32, &[vcc, Arg::U(x), Arg::U(x)]);
            let n = self.select_constant(nan as u32);
            self.flip_key(x, k, t);
            self.s.op(Op::VCndmaskB32, &[Arg::D(k), n, Arg::U(k), vcc]);
        }
        k
    }

    /// `d` = `x` with the bits below the sign flipped where the sign is set (`t`: a VGPR of
    /// scratch): float bits to order key and back — the transform is its own inverse.
    fn flip_key(&mut self, x: R, d: R, t: R) {
        let hi = if self.spec.wide() { Arg::UH(x) } else { Arg::U(x) };
        self.s.op(Op::VAshrrevI32, &[Arg::D(t), Arg::K(Operand::Int(31)), hi]);
        if self.spec.wide() {
            self.s.op(Op::VXorB32, &[Arg::DL(d), Arg::UL(x), Arg::U(t)]);
        }
        self.s.op(Op::VLshrrevB32, &[Arg::D(t), Arg::K(Operand::Int(1)), Arg::U(t)]);
        let dh = if self.spec.wide() { Arg::DH(d) } else { Arg::D(d) };
        self.s.op(Op::VXorB32, &[dh, hi, Arg::U(t)]);
    }

    /// `c` as the `src0` of a `v_cndmask_b32` that reads VCC: a literal there is a second
    /// constant-bus read, which GFX9 does not allow (one per VALU op), so there it goes to a
    /// VGPR first; inline constants and GFX11 (two reads) take it as it is.
    fn select_constant(&mut self, c: u32) -> Arg {
        let k = Operand::imm32(c);
        if !self.spec.gfx9() || !matches!(k, Operand::Literal(_)) {
            return Arg::K(k);
        }
        let v = self.s.temp(Class::V);
        self.s.op(Op::VMovB32, &[Arg::D(v), Arg::K(k)]);
        Arg::U(v)
    }

    /// The float of `key` (the key transform is its own inverse), or `fallback` where the key
    /// is `nan` (only NaNs were combined; None: it never is).
    fn decode_keys(&mut self, key: R, fallback: Option<R>, nan: u64) -> R {
        let whole_wave = self.spec.kind == Kind::Reduce && self.spec.tl == self.spec.w();
        if let (Some(f), true, false) = (fallback, whole_wave, self.spec.gfx9()) {
            return self.decode_uniform(key, f, nan);
        }
        let key = if self.s.class(key) == Class::S {
            let v = self.s.temp(Class::V);
            self.s.op(Op::VMovB32, &[Arg::D(v), Arg::U(key)]);
            v
        } else {
            key
        };
        let vc = self.vclass();
        let (d, t) = (self.s.temp(vc), self.s.temp(Class::V));
        let vcc = Arg::K(self.s.vcc());
        let hi = if self.spec.wide() { Arg::UH(key) } else { Arg::U(key) };
        let top = if self.spec.wide() { 32 } else { 0 };
        // The compare first: the bit operations fill its wait state before the select.
        if fallback.is_some() {
            self.s.op(Op::VCmpNeU32, &[vcc, Arg::K(Operand::imm32((nan >> top) as u32)), hi]);
        }
        self.flip_key(key, d, t);
        if let Some(fallback) = fallback {
            for k in 0..self.s.parts(d) {
                let (dd, f, u) = (self.s.pd(d, k), self.s.pu(fallback, k), self.s.pu(d, k));
                self.s.op(Op::VCndmaskB32, &[dd, f, u, vcc]);
            }
        }
        d
    }

    /// `decode_keys` of a whole-wave reduction on GFX11: the key is uniform, so it is decoded
    /// and tested on the scalar unit (two cycles an op there, against seven for a wave64 VALU
    /// op), and one `v_cndmask_b32_e64` reads the decoded SGPR with VCC (GFX11's constant bus
    /// takes both).
    fn decode_uniform(&mut self, key: R, fallback: R, nan: u64) -> R {
        let parts = self.s.parts(fallback);
        let k: Vec<R> = (0..parts)
            .map(|p| match self.s.class(key) {
                Class::S => key,
                Class::V | Class::W => {
                    let sg = self.s.temp(Class::S);
                    let u = self.s.pu(key, p);
                    self.s.op(Op::VReadfirstlaneB32, &[Arg::D(sg), u]);
                    sg
                }
            })
            .collect();
        let hi = k[parts - 1];
        let (t, out) = (self.s.temp(Class::S), (0..parts).map(|_| self.s.temp(Class::S)).collect::<Vec<R>>());
        self.s.op(Op::SAshrI32, &[Arg::D(t), Arg::U(hi), Arg::K(Operand::Int(31))]);
        if parts == 2 {
            self.s.op(Op::SXorB32, &[Arg::D(out[0]), Arg::U(k[0]), Arg::U(t)]);
        }
        self.s.op(Op::SLshrB32, &[Arg::D(t), Arg::U(t), Arg::K(Operand::Int(1))]);
        self.s.op(Op::SXorB32, &[Arg::D(out[parts - 1]), Arg::U(hi), Arg::U(t)]);
        let nan_hi = Operand::imm32((nan >> (32 * (parts - 1))) as u32);
        self.s.op(Op::SCmpLgU32, &[Arg::U(hi), Arg::K(nan_hi)]);
        let vcc = self.s.vcc();
        let sel = if self.s.wave64() { Op::SCselectB64 } else { Op::SCselectB32 };
        self.s.op(sel, &[Arg::K(vcc), Arg::K(Operand::Int(-1)), Arg::K(Operand::Int(0))]);
        let d = self.s.temp(self.vclass());
        for (p, o) in out.iter().enumerate() {
            let (dd, f) = (self.s.pd(d, p), self.s.pu(fallback, p));
            self.s.op64(Op::VCndmaskB32, &[dd, f, Arg::U(*o), Arg::K(vcc)]);
        }
        d
    }

    /// `x` at the lane's segment head, lane − dist: `bpermute_from`, with the wave64 halves
    /// emulation of GFX11 for 64-lane tiles.
    fn head_value(&mut self, x: R) -> R {
        self.used.bpermute = true;
        let (dist, lane) = (self.dist(), self.lane());
        let src = self.s.temp(Class::V);
        self.s.op64(Op::VSubU32, &[Arg::D(src), Arg::U(lane), Arg::U(dist)]);
        let halves = !self.spec.gfx9() && self.spec.w() == 64 && self.spec.tl == 64;
        let y = self.s.temp(self.vclass());
        let scratch = [0; 5].map(|_| self.s.temp(Class::V));
        self.bpermute_from(src, x, y, halves, scratch);
        y
    }

    /// `x` at lane `i ^ (T - 1)` (the tile reversed) and the name suffix of the kind it used.
    fn reverse_in_tile(&mut self, a: Allow, x: R) -> Option<(R, &'static str)> {
        let (tl, gfx9) = (self.spec.tl, self.spec.gfx9());
        let t = self.s.temp(self.vclass());
        let reversing_plx = Plan::Plx { lo: 0x89AB_CDEF, hi: 0x0123_4567, row2: false, then: None };
        let alts = match tl {
            2 => vec![Plan::Dpp(dpp(DppCtrl::QuadPerm([1, 0, 3, 2])))],
            4 => vec![Plan::Dpp(dpp(DppCtrl::QuadPerm([3, 2, 1, 0])))],
            8 => vec![Plan::Dpp(dpp(DppCtrl::RowHalfMirror))],
            16 => vec![Plan::Dpp(dpp(DppCtrl::RowMirror))],
            32 if gfx9 => vec![Plan::Swizzle(0x7C1F), Plan::Bperm { xor: true, k: 31 }],
            32 => vec![reversing_plx],
            _ if gfx9 => vec![Plan::Bperm { xor: true, k: 63 }],
            _ => {
                if !a.permlane {
                    return None;
                }
                let h = self.s.temp(self.vclass());
                self.read(Plan::Pl64, x, h);
                self.read(reversing_plx, h, t);
                return Some((t, " (NaN tile: permlane64 + permlanex16 reverse)"));
            }
        };
        let p = B::choose(alts, a)?;
        let rev = match p {
            Plan::Dpp(_) | Plan::Dpp2(..) => "",
            Plan::Swizzle(_) => " (NaN tile: swizzle reverse)",
            Plan::Plx { .. } | Plan::Pl64 => " (NaN tile: permlanex16 reverse)",
            Plan::Bperm { .. } => " (NaN tile: bpermute reverse)",
        };
        self.read(p, x, t);
        Some((t, rev))
    }
}
