//! The `*_scratch_slots` helpers: how many scratch elements each algorithm needs for a capacity,
//! with Quadrants' formulas exactly (docs/algorithms.md §5), so a buffer sized for Quadrants
//! is sized for qd. Every helper returns at least 1.

use super::{natural_depth, MAX_LOG256};
use crate::common::err;
use qd_frontend::{BuildError, ErrorKind};
use std::panic::Location;

fn depth(log256_max_n: Option<u32>, n: u64, loc: &'static Location<'static>) -> Result<u32, BuildError> {
    let d = log256_max_n.unwrap_or_else(|| natural_depth(n));
    if d > MAX_LOG256 {
        return Err(err(loc, ErrorKind::OutOfRange, format!("log256_max_n={d} exceeds the maximum of {MAX_LOG256}")));
    }
    Ok(d)
}

/// `ceil(a / 256)`.
fn tiles(a: u64) -> u64 {
    a.div_ceil(256)
}

/// Quadrants' `_level_partials_slots(m, start)`: `start` plus the partials of 8 fixed levels
/// above `m` (each `t_k = ceil(t_{k-1} / 256)`, counted while above 1).
fn level_partials_slots(m: u64, start: u64) -> u64 {
    let mut t = m;
    let mut total = start;
    for _ in 0..8 {
        t = tiles(t);
        if t > 1 {
            total += t;
        }
    }
    total
}

/// `reduce_scratch_slots(n, D)`: the partials of the `D - 1` reduction levels above `n`.
#[track_caller]
pub fn reduce_scratch_slots(n: u64, log256_max_n: Option<u32>) -> Result<u64, BuildError> {
    let d = depth(log256_max_n, n, Location::caller())?;
    let (mut cursor, mut cur) = (0u64, n);
    for _ in 1..d {
        cur = tiles(cur);
        cursor += cur;
    }
    Ok(cursor.max(1))
}

/// `exclusive_scan_scratch_slots(n, D)`: the block partials of the three-pass scan.
#[track_caller]
pub fn exclusive_scan_scratch_slots(n: u64, log256_max_n: Option<u32>) -> Result<u64, BuildError> {
    let d = depth(log256_max_n, n, Location::caller())?;
    if d <= 1 {
        return Ok(1);
    }
    let mut cursor = tiles(n);
    let mut cur = cursor;
    for _ in 2..d {
        cur = tiles(cur);
        cursor += cur;
    }
    Ok(cursor.max(1))
}

/// `select_scratch_slots(n)`: `n` indices, then the partials (natural depth).
pub fn select_scratch_slots(n: u64) -> u64 {
    let b0 = tiles(n);
    if n == 0 {
        return 1;
    }
    level_partials_slots(b0, n + b0).max(1)
}

/// `reduce_by_key_scratch_slots(n)`: `n` head flags scanned in place, then the partials.
pub fn reduce_by_key_scratch_slots(n: u64) -> u64 {
    let b0 = tiles(n);
    let v = if n == 0 {
        0
    } else if n <= 256 {
        n
    } else {
        level_partials_slots(b0, n + b0)
    };
    v.max(1)
}

/// `sort_scratch_slots(n, D)`: the digit-major histograms (`ceil(n / 256) * 256`) and the
/// partials of their in-place scan.
#[track_caller]
pub fn sort_scratch_slots(n: u64, log256_max_n: Option<u32>) -> Result<u64, BuildError> {
    let d = depth(log256_max_n, n, Location::caller())?;
    let hist_len = tiles(n) * 256;
    let (mut cursor, mut nn) = (hist_len, hist_len);
    for _ in 1..d {
        let b = tiles(nn);
        cursor += b;
        nn = b;
    }
    Ok(cursor.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of docs/algorithms.md §5, natural depth: n, reduce, scan, select, rbk, sort.
    const TABLE: [(u64, u64, u64, u64, u64, u64); 9] = [
        (0, 1, 1, 1, 1, 1),
        (1, 1, 1, 2, 1, 256),
        (255, 1, 1, 256, 255, 256),
        (256, 1, 1, 257, 256, 256),
        (257, 2, 2, 259, 259, 514),
        (1024, 4, 4, 1028, 1028, 1028),
        (65536, 256, 256, 65792, 65792, 65792),
        (65537, 259, 259, 65796, 65796, 66051),
        (1_000_000, 3923, 3923, 1_003_923, 1_003_923, 1_004_115),
    ];

    #[test]
    fn quadrants_table() -> Result<(), BuildError> {
        for (n, red, scan, sel, rbk, sort) in TABLE {
            assert_eq!(reduce_scratch_slots(n, None)?, red, "reduce n={n}");
            assert_eq!(exclusive_scan_scratch_slots(n, None)?, scan, "scan n={n}");
            assert_eq!(select_scratch_slots(n), sel, "select n={n}");
            assert_eq!(reduce_by_key_scratch_slots(n), rbk, "rbk n={n}");
            assert_eq!(sort_scratch_slots(n, None)?, sort, "sort n={n}");
        }
        Ok(())
    }

    #[test]
    fn explicit_depths() -> Result<(), BuildError> {
        // n = 1 and n = 257 at D = 1..=4: (reduce, scan, sort).
        let want = [
            (1, [(1, 1, 256), (1, 1, 257), (2, 2, 258), (3, 3, 259)]),
            (257, [(1, 1, 512), (2, 2, 514), (3, 3, 515), (4, 4, 516)]),
        ];
        for (n, rows) in want {
            for (d, (red, scan, sort)) in (1..=4).zip(rows) {
                assert_eq!(reduce_scratch_slots(n, Some(d))?, red, "reduce n={n} D={d}");
                assert_eq!(exclusive_scan_scratch_slots(n, Some(d))?, scan, "scan n={n} D={d}");
                assert_eq!(sort_scratch_slots(n, Some(d))?, sort, "sort n={n} D={d}");
            }
        }
        Ok(())
    }

    #[test]
    fn depth_above_four_is_an_error_at_the_caller() {
        let line = line!() + 1;
        let e = reduce_scratch_slots(10, Some(5)).unwrap_err();
        assert_eq!(e.location.line(), line);
        assert!(e.message.contains("log256_max_n=5"), "{}", e.message);
        assert!(sort_scratch_slots(10, Some(5)).is_err());
        assert!(exclusive_scan_scratch_slots(10, Some(5)).is_err());
    }
}
