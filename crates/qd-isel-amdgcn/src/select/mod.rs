//! The shuffle selector's shared vocabulary: the strategy families a user can force
//! ([`ShuffleLowering`]), a costed candidate sequence ([`Candidate`]), the record of one
//! subgroup op's choice ([`Choice`], what `qdc explain` prints), the one choosing rule (`pick`)
//! and the one cost estimate ([`estimate`]).
//!
//! Every candidate is a straight-line instruction listing; [`estimate`] runs it through the same
//! memory-wait and hazard passes as compiled code (`waitcnt.rs`, `hazard.rs`) and prices each
//! instruction with the simulator's cost table (`qd_amdgcn_sim::cost`, docs/shuffle-lowering.md
//! §5). So the cycles the selector compares, the ones `qdc explain` prints and the ones the catalog
//! reports come from one table, and an estimate includes the `s_nop`s and `s_waitcnt`s the sequence
//! really gets.

use std::fmt;
use std::str::FromStr;

use qd_mir::ScalarType;

use crate::emit::{Emitted, RegLayout};
use qd_amdgcn_isa::Target;
use qd_amdgcn_isa::{Inst, Op, Operand};
use qd_amdgcn_sim::cost::{class, CostTable, InstClass};
use qd_amdgcn_sim::ops::sem;

mod cache;
pub(crate) mod collective;
pub(crate) mod shuffle;

pub use cache::clear_caches;
pub(crate) use cache::{collective_candidates, shuffle_sequences};

/// A family of cross-lane lowering: what `qdc compile --shuffle-lowering` and
/// [`crate::AmdgcnOptions::shuffle_lowering`] force. A candidate's family is the costliest kind of
/// cross-lane instruction it uses, in the order DPP < permlane < swizzle < bpermute
/// (`v_readlane`/`v_writelane` and plain VALU ops count as DPP-family glue).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum ShuffleLowering {
    /// The cheapest legal candidate.
    #[default]
    Auto,
    /// DPP16 / DPP8 (fused into the consuming VALU op where legal), readlane/writelane glue.
    Dpp,
    /// `v_permlane16/x16/64_b32` (with DPP steps).
    Permlane,
    /// `ds_swizzle_b32` (with DPP/permlane steps).
    Swizzle,
    /// `ds_bpermute_b32`: the baseline every pattern has.
    Bpermute,
}

impl ShuffleLowering {
    /// Every family, `Auto` first.
    pub(crate) const ALL: [ShuffleLowering; 5] = [
        ShuffleLowering::Auto,
        ShuffleLowering::Dpp,
        ShuffleLowering::Permlane,
        ShuffleLowering::Swizzle,
        ShuffleLowering::Bpermute,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            ShuffleLowering::Auto => "auto",
            ShuffleLowering::Dpp => "dpp",
            ShuffleLowering::Permlane => "permlane",
            ShuffleLowering::Swizzle => "swizzle",
            ShuffleLowering::Bpermute => "bpermute",
        }
    }
}

impl fmt::Display for ShuffleLowering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ShuffleLowering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ShuffleLowering::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown shuffle lowering '{s}' (want auto, dpp, swizzle, permlane or bpermute)"))
    }
}

/// The estimated cost of one candidate sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    /// Estimated cycles (issue model of [`CostTable`], wait states included).
    pub cycles: u32,
    /// Instructions, `s_nop` and `s_waitcnt` included.
    pub insts: u32,
    /// Instructions that go through the LDS unit (`ds_swizzle`, `ds_bpermute`): they need no LDS
    /// allocation but share the LDS crossbar with every wave of the CU.
    pub lds_ops: u32,
}

/// One way to lower a subgroup op, with its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// A short name: `dpp row_ror:8`, `swizzle xor 16`, `permlanex16 + dpp row_share`, `bpermute`.
    pub name: String,
    /// Its family (never `Auto`).
    pub family: ShuffleLowering,
    /// Its estimated cost ([`estimate`]).
    pub cost: Cost,
    /// The sequence as [`estimate`] priced it (placeholder registers) — the catalog a reviewer
    /// reads; rendered to text only when asked ([`Listing::lines`]).
    pub listing: Listing,
}

/// A candidate's priced instructions, kept as instructions: every op prices several candidates
/// and most are never printed, so the text is made on demand (rendering every listing was a
/// sixth of the selector's compile time).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    target: Option<Target>,
    insts: Vec<Inst>,
}

impl Listing {
    /// The instructions of `target`.
    pub fn new(target: Target, insts: Vec<Inst>) -> Listing {
        Listing { target: Some(target), insts }
    }

    /// One line of assembly per instruction, as `qdc disasm` prints it.
    pub fn lines(&self) -> Vec<String> {
        match self.target {
            Some(t) => self.insts.iter().map(|i| i.display(t).to_string()).collect(),
            None => Vec::new(),
        }
    }

    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// True when there is no instruction (a candidate that needs none, such as a uniform value).
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }
}

impl Candidate {
    /// Whether this is the `ds_bpermute`-only baseline (`bpermute`, `bpermute halves`,
    /// `bpermute ladder`): the lowering qd had before the selector, always among the candidates.
    pub fn is_baseline(&self) -> bool {
        self.name.starts_with("bpermute")
    }
}

/// The selector's decision for one subgroup op of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The MIR instruction.
    pub inst: qd_mir::Inst,
    /// Its source line (0: unknown).
    pub line: u32,
    /// The op as written: `shuffle.xor`, `subgroup.reduce add tile(4)`, `subgroup.scan exclusive min`.
    pub op: String,
    /// The type of the value moved or combined.
    pub ty: ScalarType,
    /// What the selector recognised: `xor 1`, `down 1 in tiles of 16`, `reduce over 64 lanes`, …
    pub pattern: String,
    /// Every legal candidate, cheapest first.
    pub candidates: Vec<Candidate>,
    /// Index of the chosen one in `candidates`.
    pub chosen: usize,
    /// The family that was forced, if any.
    pub forced: Option<ShuffleLowering>,
    /// Why candidates were ruled out, when that matters to a reader ("EXEC may be partial here:
    /// only single-instruction sequences are exact"), else empty.
    pub note: String,
}

/// Why the selector has no sequence to give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NoChoice {
    /// No candidate was built at all (a selector defect).
    NoCandidate,
    /// The forced family has no candidate for this op; `available` are the families that do.
    Family { forced: ShuffleLowering, available: Vec<ShuffleLowering> },
    /// No candidate has the requested name; `legal` are the names there are.
    Name { name: String, legal: Vec<String> },
}

impl fmt::Display for NoChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoChoice::NoCandidate => f.write_str("no candidate sequence"),
            NoChoice::Family { forced, available } => {
                let names: Vec<&str> = available.iter().map(|f| f.name()).collect();
                write!(
                    f,
                    "the forced shuffle lowering `{forced}` has no sequence for this op here (available: {})",
                    names.join(", ")
                )
            }
            NoChoice::Name { name, legal } => {
                write!(f, "no candidate named `{name}` for this op here (legal: {})", legal.join("; "))
            }
        }
    }
}

/// Sorts `cands` cheapest first (cycles, then LDS operations, then instructions, then name) and
/// returns the index of the one to use: the first under `Auto`, the `ds_bpermute`-only baseline
/// under `Bpermute` (so forcing it reproduces what qd emitted before the selector, the reference
/// the catalog compares against, rather than a mixed sequence whose costliest step is a
/// bpermute), else the first of the forced family — or an error naming the families that exist
/// for this op when the forced one has no candidate. Never falls back silently.
pub(crate) fn pick(cands: &mut [Candidate], forced: ShuffleLowering) -> Result<usize, NoChoice> {
    cands.sort_by(|a, b| {
        (a.cost.cycles, a.cost.lds_ops, a.cost.insts, &a.name).cmp(&(
            b.cost.cycles,
            b.cost.lds_ops,
            b.cost.insts,
            &b.name,
        ))
    });
    if cands.is_empty() {
        return Err(NoChoice::NoCandidate);
    }
    if forced == ShuffleLowering::Auto {
        return Ok(0);
    }
    if forced == ShuffleLowering::Bpermute {
        if let Some(i) = cands.iter().position(Candidate::is_baseline) {
            return Ok(i);
        }
    }
    if let Some(i) = cands.iter().position(|c| c.family == forced) {
        return Ok(i);
    }
    let mut available: Vec<ShuffleLowering> = cands.iter().map(|c| c.family).collect();
    available.sort();
    available.dedup();
    Err(NoChoice::Family { forced, available })
}

/// [`pick`], unless `named` names one candidate: then that one (an error listing the legal names
/// when it is not among them).
pub(crate) fn decide(cands: &mut [Candidate], forced: ShuffleLowering, named: Option<&str>) -> Result<usize, NoChoice> {
    let i = pick(cands, forced)?;
    let Some(name) = named else { return Ok(i) };
    cands
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| NoChoice::Name { name: name.to_string(), legal: cands.iter().map(|c| c.name.clone()).collect() })
}

/// Prices a straight-line candidate `body` on `target`. `input` is the VGPR (or first VGPR) the
/// sequence reads its value from and `output` the register holding its result: to price the
/// dependent case of docs/shuffle-lowering.md §5 (the value was just computed and is used right
/// away), a producer writing `input` is placed before the body and a VALU consumer of `output`
/// after it; their own issue costs are not counted, the wait states they force are. Returns the
/// listing (body with its waits and `s_nop`s, without producer and consumer) and the cost.
pub fn estimate(target: Target, body: &[Inst], input: Operand, output: Operand) -> (Vec<Inst>, Cost) {
    let producer = Inst::new_for(target, Op::VMovB32, &[input, Operand::Int(0)]);
    let sink = Operand::Vgpr(qd_amdgcn_isa::RegRange { first: 255, len: 1 });
    let consumer = Inst::new_for(target, Op::VMovB32, &[sink, output]);
    let mut insts = Vec::with_capacity(body.len() + 2);
    insts.push(producer);
    insts.extend_from_slice(body);
    insts.push(consumer);
    let n = insts.len();
    let mut em = Emitted {
        insts,
        lines: vec![0; n],
        targets: vec![None; n],
        block_starts: vec![0],
        layout: RegLayout {
            sgpr_base: 0,
            vgpr_base: 0,
            pair_base: 0,
            next_free_vgpr: 256,
            next_free_sgpr: 104,
            spill_slots: 0,
            reg_slots: 0,
            slot_base: 0,
        },
    };
    let acc = crate::waitcnt::accesses(&em.insts, target);
    let waits = crate::waitcnt::waits(&em, &acc, target);
    // A straight line with no branch targets: the hazard pass only adds wait states.
    if crate::hazard::insert_nops(&mut em, &acc, waits, target).is_err() {
        return (body.to_vec(), Cost { cycles: u32::MAX, insts: body.len() as u32, lds_ops: 0 });
    }
    let table = CostTable::for_target(target);
    let mut all = em.insts;
    // Drop the producer (first) and the consumer (last); keep what was inserted between them.
    all.remove(0);
    all.pop();
    let mut cost = Cost::default();
    for i in &all {
        let c = class(i, sem(i.op));
        let nops = if c == InstClass::Nop { i.imm as u32 + 1 } else { 0 };
        cost.cycles += table.cost(c, nops);
        cost.insts += 1;
        if matches!(c, InstClass::LdsPermute | InstClass::LdsSwizzle) {
            cost.lds_ops += 1;
        }
    }
    (all, cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_amdgcn_isa::{Arch, WaveSize};
    use qd_amdgcn_isa::{Dpp, Dpp16, DppCtrl, RegRange};

    fn v(n: u16) -> Operand {
        Operand::Vgpr(RegRange { first: n, len: 1 })
    }

    #[test]
    fn a_dependent_dpp_step_pays_its_wait_states_on_gfx942_only() {
        let costs: Vec<(u32, u32)> = [(Arch::Gfx942, WaveSize::W64), (Arch::Gfx1100, WaveSize::W64)]
            .into_iter()
            .map(|(a, w)| {
                let t = Target::new(a, w).unwrap();
                let mut mov = Inst::new_for(t, Op::VMovB32, &[v(11), v(10)]);
                mov.dpp = Dpp::Dpp16(Dpp16::new(DppCtrl::QuadPerm([1, 0, 3, 2])));
                let (listing, cost) = estimate(t, &[mov], v(10), v(11));
                (cost.cycles, listing.len() as u32)
            })
            .collect();
        // gfx942: s_nop 1 (2 wait states × 4 clk) + the DPP move (4); gfx1100 wave64: one VALU (7).
        assert_eq!(costs, vec![(12, 2), (7, 1)]);
    }

    #[test]
    fn forcing_a_family_with_no_candidate_is_an_error() {
        let c = |name: &str, family, cycles| Candidate {
            name: name.into(),
            family,
            cost: Cost { cycles, insts: 1, lds_ops: 0 },
            listing: Listing::default(),
        };
        let mut cands = vec![c("bpermute", ShuffleLowering::Bpermute, 54), c("dpp", ShuffleLowering::Dpp, 12)];
        assert_eq!(pick(&mut cands, ShuffleLowering::Auto), Ok(0));
        assert_eq!(cands[0].name, "dpp");
        assert_eq!(pick(&mut cands, ShuffleLowering::Bpermute), Ok(1));
        let e = pick(&mut cands, ShuffleLowering::Swizzle).unwrap_err();
        assert_eq!(
            e,
            NoChoice::Family {
                forced: ShuffleLowering::Swizzle,
                available: vec![ShuffleLowering::Dpp, ShuffleLowering::Bpermute]
            }
        );
        assert!(e.to_string().contains("`swizzle`") && e.to_string().contains("available: dpp, bpermute"), "{e}");
    }
}
