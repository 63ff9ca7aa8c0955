//! Analyses over a [`Function`]'s region tree: structured dominance ([`DomTree`]), use counts
//! ([`UseCounts`]) and SIMT uniformity ([`Uniformity`]), plus the shared [`Layout`] they are built on.
//!
//! [`Layout`] walks the region tree once from the body and records where every reachable
//! instruction and region sits. It never panics, whatever the function holds: dangling region or
//! instruction handles, regions owned twice, cycles and operand lists that do not belong to the
//! function's pool are recorded as [`LayoutDefect`]s (which the verifier reports) and skipped, so
//! the analyses can run on any function — the verifier uses them before it knows the function is
//! well formed.

pub mod dominance;
pub mod lanes;
pub mod uniformity;
pub mod uses;

pub use dominance::{DefSite, DomTree};
pub use lanes::{classify, lane_function, shuffle_pattern, shuffle_sources, LanePattern};
pub use uniformity::Uniformity;
pub use uses::UseCounts;

use crate::entities::{Inst, Region, Value};
use crate::function::Function;
use crate::inst::ValueList;
use core::hash::{Hash, Hasher};
use cranelift_entity::{ListPool, SecondaryMap};

/// Where a placed instruction sits: its region and its index in that region's instruction vector.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstPos {
    /// The region holding the instruction.
    pub region: Region,
    /// Its index in `RegionData::insts`.
    pub index: u32,
}

/// Where a reachable region sits in the tree.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegionPos {
    /// The instruction owning the region (`None` for the body) and the slot (0: then/loop body,
    /// 1: else) it is held in.
    pub owner: Option<(Inst, u8)>,
    /// The region holding `owner` (`None` for the body).
    pub parent: Option<InstPos>,
    /// Nesting depth: 0 for the body.
    pub depth: u32,
}

/// A defect of the region tree found while building a [`Layout`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LayoutDefect {
    /// The function's body region handle does not exist.
    MissingBody,
    /// `inst` names, in region slot `slot`, a region that does not exist.
    MissingRegion {
        /// The owning instruction.
        inst: Inst,
        /// The slot (0 or 1).
        slot: u8,
        /// The dangling handle.
        region: Region,
    },
    /// `inst` owns a region that is already the body or owned by another instruction (or by an
    /// enclosing one: a cycle).
    SharedRegion {
        /// The instruction claiming the region a second time.
        inst: Inst,
        /// The slot (0 or 1).
        slot: u8,
        /// The region.
        region: Region,
    },
    /// `region` lists, at `index`, an instruction handle that does not exist.
    MissingInst {
        /// The region.
        region: Region,
        /// Index in its instruction vector.
        index: u32,
        /// The dangling handle.
        inst: Inst,
    },
    /// An instruction placed a second time (in the same or another region).
    DuplicateInst {
        /// The instruction.
        inst: Inst,
        /// Where it was found again.
        again: InstPos,
        /// Where it was first placed.
        first: InstPos,
    },
}

/// Bounds-checked access to the function's value lists.
///
/// `EntityList::as_slice` indexes the pool without checking that the list fits in it, so a list
/// taken from another pool (or kept across `ListPool::clear`) can make it panic. `cranelift-entity`
/// exposes neither a list's index nor the pool's length, but both feed their `Hash`
/// implementations: a list hashes exactly its index (one `u32`), a pool hashes its data vector,
/// which starts with the vector's length. [`Probe`] is a `Hasher` that records those first
/// writes; a unit test pins both facts down, so a change in `cranelift-entity` fails loudly.
#[derive(Copy, Clone, Debug)]
pub struct PoolView {
    len: usize,
}

/// A `Hasher` that keeps the first `u32` and the first `usize` written to it (see [`PoolView`]).
#[derive(Default)]
struct Probe {
    first_u32: Option<u32>,
    first_usize: Option<usize>,
}

impl Hasher for Probe {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, _bytes: &[u8]) {}
    fn write_u32(&mut self, x: u32) {
        self.first_u32.get_or_insert(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.first_usize.get_or_insert(x);
    }
}

impl PoolView {
    /// Measures a pool.
    pub fn new(pool: &ListPool<Value>) -> PoolView {
        let mut probe = Probe::default();
        pool.hash(&mut probe);
        PoolView { len: probe.first_usize.unwrap_or(0) }
    }

    /// The index of a list's first element in its pool.
    fn index_of(list: &ValueList) -> Option<usize> {
        let mut probe = Probe::default();
        list.hash(&mut probe);
        probe.first_u32.map(|i| i as usize)
    }

    /// The elements of `list`, or `None` if the list does not lie inside the pool.
    pub fn slice<'a>(&self, list: &ValueList, pool: &'a ListPool<Value>) -> Option<&'a [Value]> {
        if list.is_empty() {
            return Some(&[]);
        }
        if !list.is_valid(pool) {
            return None;
        }
        let index = Self::index_of(list)?;
        let len = list.len(pool);
        if index.checked_add(len)? > self.len {
            return None;
        }
        Some(list.as_slice(pool))
    }

    /// The operands of an instruction (`None`: dangling instruction or list).
    pub fn args<'a>(&self, func: &'a Function, inst: Inst) -> Option<&'a [Value]> {
        self.slice(&func.insts.get(inst)?.args, &func.pool)
    }

    /// The results of an instruction (`None`: dangling instruction or list).
    pub fn results<'a>(&self, func: &'a Function, inst: Inst) -> Option<&'a [Value]> {
        func.insts.get(inst)?;
        self.slice(func.results.get(inst)?, &func.pool)
    }

    /// The parameters of a region (`None`: dangling region or list).
    pub fn params<'a>(&self, func: &'a Function, region: Region) -> Option<&'a [Value]> {
        self.slice(&func.regions.get(region)?.params, &func.pool)
    }
}

/// The placement of every instruction and region reachable from the body.
#[derive(Clone, Debug)]
pub struct Layout {
    inst_pos: SecondaryMap<Inst, Option<InstPos>>,
    region_pos: SecondaryMap<Region, Option<RegionPos>>,
    insts: Vec<Inst>,
    regions: Vec<Region>,
    defects: Vec<LayoutDefect>,
    pool: PoolView,
}

impl Layout {
    /// Walks the region tree of `func` (iteratively: no recursion depth limit).
    pub fn new(func: &Function) -> Layout {
        // Sized for the function up front: the maps grow on write, and the walk writes them in
        // no particular handle order.
        let mut l = Layout {
            inst_pos: SecondaryMap::with_capacity(func.insts.len()),
            region_pos: SecondaryMap::with_capacity(func.regions.len()),
            insts: Vec::with_capacity(func.insts.len()),
            regions: Vec::with_capacity(func.regions.len()),
            defects: Vec::new(),
            pool: PoolView::new(&func.pool),
        };
        if func.regions.get(func.body).is_none() {
            l.defects.push(LayoutDefect::MissingBody);
            return l;
        }
        l.region_pos[func.body] = Some(RegionPos { owner: None, parent: None, depth: 0 });
        let mut stack: Vec<(Region, usize)> = vec![(func.body, 0)];
        while let Some(top) = stack.last_mut() {
            let (r, i) = *top;
            top.1 += 1;
            if i == 0 {
                l.regions.push(r);
            }
            let Some(&inst) = func.regions.get(r).and_then(|d| d.insts.get(i)) else {
                stack.pop();
                continue;
            };
            let here = InstPos { region: r, index: i as u32 };
            let Some(data) = func.insts.get(inst) else {
                l.defects.push(LayoutDefect::MissingInst { region: r, index: here.index, inst });
                continue;
            };
            if let Some(first) = l.inst_pos[inst] {
                l.defects.push(LayoutDefect::DuplicateInst { inst, again: here, first });
                continue;
            }
            l.inst_pos[inst] = Some(here);
            l.insts.push(inst);
            let depth = l.region_pos[r].map_or(0, |p| p.depth) + 1;
            let mut children = [None, None];
            for (slot, reg) in data.regions.iter().enumerate() {
                let Some(reg) = reg.expand() else { continue };
                let slot = slot as u8;
                if func.regions.get(reg).is_none() {
                    l.defects.push(LayoutDefect::MissingRegion { inst, slot, region: reg });
                } else if l.region_pos[reg].is_some() {
                    l.defects.push(LayoutDefect::SharedRegion { inst, slot, region: reg });
                } else {
                    l.region_pos[reg] = Some(RegionPos { owner: Some((inst, slot)), parent: Some(here), depth });
                    children[usize::from(slot)] = Some(reg);
                }
            }
            for reg in children.into_iter().rev().flatten() {
                stack.push((reg, 0));
            }
        }
        l
    }

    /// Where `inst` is placed (`None`: not reachable from the body, or dangling).
    pub fn inst_pos(&self, inst: Inst) -> Option<InstPos> {
        self.inst_pos.get(inst).copied().flatten()
    }

    /// Where `region` sits (`None`: not reachable from the body, or dangling).
    pub fn region_pos(&self, region: Region) -> Option<RegionPos> {
        self.region_pos.get(region).copied().flatten()
    }

    /// The region holding the instruction that owns `region` (`None` for the body and
    /// unreachable regions).
    pub fn enclosing_region(&self, region: Region) -> Option<Region> {
        self.region_pos(region).and_then(|p| p.parent).map(|p| p.region)
    }

    /// Every placed instruction, in text order (an instruction before those of its regions).
    pub fn insts(&self) -> &[Inst] {
        &self.insts
    }

    /// Every reachable region, in text order (the order their contents are printed in).
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The defects found.
    pub fn defects(&self) -> &[LayoutDefect] {
        &self.defects
    }

    /// Bounds-checked list access for this function.
    pub fn pool(&self) -> &PoolView {
        &self.pool
    }

    /// True if `outer` is `inner` or encloses it.
    pub fn region_contains(&self, outer: Region, inner: Region) -> bool {
        let (Some(o), Some(mut p)) = (self.region_pos(outer), self.region_pos(inner)) else { return false };
        let mut r = inner;
        while p.depth > o.depth {
            let Some(parent) = p.parent else { return false };
            r = parent.region;
            match self.region_pos(r) {
                Some(q) => p = q,
                None => return false,
            }
        }
        r == outer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::{Imm, InstData};
    use crate::ops::Opcode;
    use crate::types::Type;
    use cranelift_entity::EntityList;

    #[test]
    fn probe_reads_list_index_and_pool_length() {
        // Pins the two `Hash` facts `PoolView` relies on: a fresh pool stores the first list's
        // length at 0 and its elements from 1, in a block of 4 slots for up to 3 elements.
        let a = Value::from_u32(7);
        let mut pool = ListPool::new();
        let l1 = EntityList::from_slice(&[a, a], &mut pool);
        assert_eq!(PoolView::index_of(&l1), Some(1));
        assert_eq!(PoolView::new(&pool).len, 4);
        let l2 = EntityList::from_slice(&[a, a, a], &mut pool);
        assert_eq!(PoolView::index_of(&l2), Some(5));
        assert_eq!(PoolView::new(&pool).len, 8);
        assert_eq!(PoolView::new(&pool).slice(&l2, &pool), Some(&[a, a, a][..]));
    }

    #[test]
    fn pool_view_bounds_lists() {
        let mut f = Function::new("k");
        let a = f.add_param("a", Type::U32, true);
        let i = f.make_inst(Opcode::Add, Imm::None, &[a, a], &[Type::U32]);
        let view = PoolView::new(&f.pool);
        assert_eq!(view.slice(&f.insts[i].args, &f.pool), Some(&[a, a][..]));
        // A list from a bigger pool does not fit in this one.
        let mut other = ListPool::new();
        let mut big = EntityList::new();
        for _ in 0..40 {
            big = EntityList::from_slice(&[a, a, a, a, a, a, a], &mut other);
        }
        assert_eq!(view.slice(&big, &f.pool), None);
        let mut g = f.clone();
        g.insts[i] = InstData::new(Opcode::Add, Imm::None, big);
        assert_eq!(Layout::new(&g).pool().args(&g, i), None);
    }

    #[test]
    fn layout_records_positions_and_defects() {
        let mut f = Function::new("k");
        let c = f.make_inst(Opcode::Const, Imm::Const(1), &[], &[Type::BOOL]);
        let cv = f.first_result(c).unwrap_or(Value::from_u32(0));
        let iff = f.make_inst(Opcode::If, Imm::None, &[cv], &[]);
        let then = f.make_region();
        f.set_inst_regions(iff, Some(then), Some(then));
        let y = f.make_inst(Opcode::Yield, Imm::None, &[], &[]);
        f.append_inst(then, y);
        let body = f.body;
        f.append_inst(body, c);
        f.append_inst(body, iff);
        f.append_inst(body, c);
        f.append_inst(body, Inst::from_u32(99));
        let l = Layout::new(&f);
        assert_eq!(l.insts(), &[c, iff, y]);
        assert_eq!(l.inst_pos(y), Some(InstPos { region: then, index: 0 }));
        assert_eq!(l.region_pos(then).map(|p| p.depth), Some(1));
        assert!(l.region_contains(body, then));
        assert!(!l.region_contains(then, body));
        assert_eq!(
            l.defects(),
            &[
                LayoutDefect::SharedRegion { inst: iff, slot: 1, region: then },
                LayoutDefect::DuplicateInst {
                    inst: c,
                    again: InstPos { region: body, index: 2 },
                    first: InstPos { region: body, index: 0 }
                },
                LayoutDefect::MissingInst { region: body, index: 3, inst: Inst::from_u32(99) },
            ]
        );
    }
}
