//! Plain-Rust references of the subgroup collectives, over a whole launch: lane `i` of the input
//! is thread `i`; subgroups are the aligned runs of `width` threads and tiles the aligned runs of
//! `2^log2` lanes within them. The combination orders are the ones MIR fixes (docs/mir.md §5.12),
//! written here from the definitions, not from the interpreter.

use crate::elem::Elem;
use qd_mir::GroupOp;

/// A binary operator of a reference: a MIR group operator or a test's own closure.
pub type Combine<'a, T> = &'a dyn Fn(T, T) -> T;

/// The combine function of a group operator.
pub fn group<T: Elem>(op: GroupOp) -> impl Fn(T, T) -> T {
    move |a, b| T::combine(op, a, b)
}

/// Butterfly reduce: every lane of each tile of `2^log2` lanes gets the reduction, combined as
/// `v = v op v[lane ^ k]` for `k = 1, 2, …`.
pub fn reduce_all<T: Elem>(xs: &[T], log2: u32, op: Combine<'_, T>) -> Vec<T> {
    let mut v = xs.to_vec();
    for i in 0..log2 {
        let k = 1usize << i;
        v = (0..v.len()).map(|j| if (j ^ k) < v.len() { op(v[j], v[j ^ k]) } else { v[j] }).collect();
    }
    v
}

/// Hillis–Steele inclusive scan within tiles of `2^log2` lanes: `v = v[lane-k] op v` on tile
/// lanes `>= k`.
pub fn inclusive<T: Elem>(xs: &[T], log2: u32, op: Combine<'_, T>) -> Vec<T> {
    let t = 1usize << log2;
    let mut v = xs.to_vec();
    for i in 0..log2 {
        let k = 1usize << i;
        v = (0..v.len()).map(|j| if j % t >= k { op(v[j - k], v[j]) } else { v[j] }).collect();
    }
    v
}

/// Exclusive scan: the input shifted up one lane within each tile (`identity` in tile lane 0),
/// then [`inclusive`].
pub fn exclusive<T: Elem>(xs: &[T], log2: u32, op: Combine<'_, T>, identity: T) -> Vec<T> {
    let t = 1usize << log2;
    let shifted: Vec<T> = (0..xs.len()).map(|j| if j % t == 0 { identity } else { xs[j - 1] }).collect();
    inclusive(&shifted, log2, op)
}

/// Segmented inclusive scan: lane `i` combines `v[h..=i]` where `h` is the last head in
/// `[tile base, i]` (the tile base if none), in the Hillis–Steele order on the distance
/// `d = i - h`: `v = v op v[lane-k]` when `d >= k` (own value on the left).
pub fn segmented<T: Elem>(xs: &[T], heads: &[bool], log2: u32, op: Combine<'_, T>) -> Vec<T> {
    let t = 1usize << log2;
    let dist: Vec<usize> = (0..xs.len())
        .map(|i| {
            let base = i - i % t;
            let h = (base..=i).rev().find(|&j| heads[j]).unwrap_or(base);
            i - h
        })
        .collect();
    let mut v = xs.to_vec();
    for s in 0..log2 {
        let k = 1usize << s;
        v = (0..v.len()).map(|j| if dist[j] >= k { op(v[j], v[j - k]) } else { v[j] }).collect();
    }
    v
}
