//! The selector's per-thread caches. Building, scheduling, proving and pricing the candidates of
//! a collective is about half of a kernel's compile time when it has a reduction or a scan, and
//! enumerating and proving a shuffle table's sequences most of a shuffle's; both depend on nothing
//! but their key (a collective's [`collective::Spec`]: target, collective, operator, type,
//! identity, tile, framed; a shuffle's target, source table and whether EXEC is known full), so a
//! JIT compiling many kernels with the same subgroup ops pays for each once per thread. Results
//! are identical with and without the caches (tested); [`clear_caches`] empties them, and the
//! `amdgcn` bench times compiles both ways.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::{collective, shuffle};
use qd_amdgcn_isa::Target;

/// Entries per cache: a full cache is cleared before the next insertion.
const CACHE_CAP: usize = 256;

/// The shuffle sequences of a constant table this thread has classified, by target, table and
/// whether EXEC is known full, split into the ones usable there and the ones ruled out (EXEC may
/// be partial and the sequence is not exact then): enumerating and proving them is most of a
/// shuffle's compile time.
type ShuffleEntry = (Vec<shuffle::Seq>, Vec<shuffle::Seq>);
type ShuffleCache = HashMap<(Target, Vec<u8>, bool), ShuffleEntry>;
type CollectiveCache = HashMap<collective::Spec, Rc<[collective::Built]>>;

thread_local! {
    static SHUFFLES: RefCell<ShuffleCache> = RefCell::new(ShuffleCache::new());
    static COLLECTIVES: RefCell<CollectiveCache> = RefCell::new(CollectiveCache::new());
}

/// Every candidate for `spec` ([`collective::candidates`]), from this thread's cache when it was
/// built before: a shared listing (a cache hit copies no candidate).
pub(crate) fn collective_candidates(spec: collective::Spec) -> Rc<[collective::Built]> {
    if let Some(v) = COLLECTIVES.with(|c| c.borrow().get(&spec).cloned()) {
        return v;
    }
    let v: Rc<[collective::Built]> = collective::candidates(spec).into();
    COLLECTIVES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_CAP {
            c.clear();
        }
        c.insert(spec, Rc::clone(&v));
    });
    v
}

/// The candidate sequences of the source table `tab` ([`shuffle::sequences`]) usable when EXEC
/// is every lane (`full`) or may be partial, and the ones ruled out, from this thread's cache when
/// seen before.
pub(crate) fn shuffle_sequences(target: Target, tab: &[u8], full: bool) -> ShuffleEntry {
    let key = (target, tab.to_vec(), full);
    if let Some(v) = SHUFFLES.with(|c| c.borrow().get(&key).cloned()) {
        return v;
    }
    let (usable, dropped): (Vec<shuffle::Seq>, Vec<shuffle::Seq>) =
        shuffle::sequences(target, tab).into_iter().partition(|s| full || s.partial_exact(tab));
    SHUFFLES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_CAP {
            c.clear();
        }
        c.insert(key, (usable.clone(), dropped.clone()));
    });
    (usable, dropped)
}

/// Empties this thread's selector caches, so that the next compile builds and prices every
/// candidate again (what a process's first compile pays; the benches measure both).
pub fn clear_caches() {
    COLLECTIVES.with(|c| c.borrow_mut().clear());
    SHUFFLES.with(|c| c.borrow_mut().clear());
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_amdgcn_isa::{Arch, WaveSize};

    /// A cached collective compiles to the same bytes and choices as a freshly built one, and
    /// the cache is keyed by everything that matters (two specs differing only in the tile do
    /// not share an entry).
    #[test]
    fn the_collective_cache_gives_what_a_fresh_build_gives() {
        let src = "kernel @k(%out: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {\n  \
                   %0 = lane_id : u32\n  %1 = subgroup.reduce add %0 : u32\n  \
                   %2 = subgroup.scan inclusive max tile(3) %0 : u32\n  %6 = const 1 : u32\n  \
                   %7 = shuffle.xor %2, %6 : u32\n  %3 = add %1, %7 : u32\n  \
                   %4 = thread_id x : u32\n  %5 = ptr.offset %out, %4 : ptr<global, u32>\n  \
                   store %5, %3\n  return\n}\n";
        let k = qd_mir::parse_module(src).expect("parses").kernels.remove(0);
        for t in [Target::wave64(Arch::Gfx942), Target::new(Arch::Gfx1100, WaveSize::W32).unwrap()] {
            let opts = crate::AmdgcnOptions::new(t);
            clear_caches();
            let fresh = crate::compile_kernel(&k, &opts).expect("compiles");
            let cached = crate::compile_kernel(&k, &opts).expect("compiles");
            assert!(COLLECTIVES.with(|c| c.borrow().len()) >= 2, "{t}");
            assert!(SHUFFLES.with(|c| c.borrow().len()) >= 1, "{t}");
            assert_eq!(fresh.choices.len(), 3, "{t}");
            assert_eq!(fresh.code, cached.code, "{t}");
            assert_eq!(fresh.choices, cached.choices, "{t}");
        }
        clear_caches();
        assert_eq!(COLLECTIVES.with(|c| c.borrow().len()) + SHUFFLES.with(|c| c.borrow().len()), 0);
    }
}
