//! Block reductions and scans: every op × dtype × block_dim = 1×, 2×, 4×, 8× the device width
//! (capped at 1024 threads), three blocks per launch (random; NaN/±0/±inf/INT_MIN/INT_MAX mixed
//! in; all-equal), against plain-Rust references that follow Quadrants' block algorithm
//! (§2.3–§2.4) on top of the subgroup references: the subgroup step (butterfly reduce /
//! Hillis–Steele scans), lane 0 (reduce) or the last lane (scans) publishing, thread 0's left
//! fold, every thread's redundant prefix fold with the prefix on the left.

use crate::elem::{mix, Elem};
use crate::harness::{buf, build, check, check_where, read, run, width, zeros, Outcome, Suite};
use crate::reference::{self, Combine};
use qd_frontend::{KernelBuilder, Val};
use qd_lib::{block, BuildError, Op};
use qd_mir::GroupOp;
use qd_rt::Device;

/// Blocks per launch.
const BLOCKS: u32 = 3;

/// Which block collective a case runs.
#[derive(Copy, Clone, Debug)]
enum Kind {
    Reduce,
    ReduceAll,
    Inclusive,
    Exclusive,
}

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        for m in [1u32, 2, 4, 8] {
            for (op, g) in [("add", GroupOp::Add), ("min", GroupOp::Min), ("max", GroupOp::Max)] {
                for kind in [Kind::Reduce, Kind::ReduceAll, Kind::Inclusive, Kind::Exclusive] {
                    let fname = match kind {
                        Kind::Reduce => format!("reduce_{op}"),
                        Kind::ReduceAll => format!("reduce_all_{op}"),
                        Kind::Inclusive => format!("inclusive_{op}"),
                        Kind::Exclusive => format!("exclusive_{op}"),
                    };
                    s.case(format!("block::{fname}/{}/x{m}", T::TY), move |dev| builtin::<T>(dev, m, kind, g));
                }
            }
            for kind in [Kind::Reduce, Kind::ReduceAll, Kind::Inclusive, Kind::Exclusive] {
                s.case(format!("block::{kind:?}/custom/{}/x{m}", T::TY), move |dev| custom::<T>(dev, m, kind));
            }
            s.case(format!("block::exclusive_scan/add_identity7/{}/x{m}", T::TY), move |dev| {
                exclusive_seven::<T>(dev, m)
            });
        }
    });
    crate::for_each_int_dtype!(T => {
        for m in [1u32, 4] {
            for g in [GroupOp::And, GroupOp::Or, GroupOp::Xor, GroupOp::Mul] {
                s.case(format!("block::reduce_all+inclusive_scan/{}/{}/x{m}", g.name(), T::TY), move |dev| {
                    bitwise::<T>(dev, m, g)
                });
            }
        }
    });
    s.case("block::two_call_sites_one_kernel", two_call_sites);
    s.case("block::emits_mir_collectives", emits_collectives);
}

/// The block size for multiplier `m` on `dev` (capped at 1024 threads, a multiple of the width).
pub fn block_for(dev: &Device, m: u32) -> u32 {
    (width(dev) * m).min(1024)
}

/// Inputs over `BLOCKS` blocks: block 0 samples; block 1 samples with the special values (NaN,
/// ±0, ±inf, INT_MIN, INT_MAX, …) mixed in, 1 in 5; block 2 one value everywhere (all-equal:
/// INT_MIN, 0 for unsigned, -0.0 for floats).
fn inputs<T: Elem>(n: usize, seed: u64) -> Vec<T> {
    let sp = T::specials();
    let per_block = n / BLOCKS as usize;
    let same = if T::is_int() { sp[3] } else { sp[2] };
    (0..n as u64)
        .map(|i| {
            let r = mix(i ^ (seed << 20));
            match i as usize / per_block {
                0 => T::sample(i * 31 + seed),
                1 if r.is_multiple_of(5) => sp[(r / 5) as usize % sp.len()],
                1 => T::sample(i * 31 + seed),
                _ => same,
            }
        })
        .collect()
}

/// Builds and runs `out[g] = body(inp[g])` over `BLOCKS` blocks of `bd` threads, `g` being
/// `block::global_thread_idx`.
pub fn run_block<T: Elem>(
    dev: &Device,
    bd: u32,
    xs: &[T],
    body: impl FnOnce(&mut KernelBuilder<'_>, Val) -> Result<Val, BuildError>,
) -> Result<Vec<T>, String> {
    let f = build(dev, "blk", bd, |k| {
        k.grid_fixed(BLOCKS)?;
        let (inp, out) = (k.buffer("inp", T::TY), k.buffer("out", T::TY));
        let g = block::global_thread_idx(k)?;
        let x = k.load(inp, g)?;
        let r = body(k, x)?;
        k.store(out, g, r)
    })?;
    let mut args = vec![buf(xs), zeros::<T>(xs.len())];
    run(dev, &f, &mut args)?;
    Ok(read::<T>(&args[1]))
}

// ---- references ---------------------------------------------------------------------------------

/// Quadrants' block reduce of one block: the subgroup butterfly, lane 0's value of each subgroup,
/// then thread 0's left fold. Returns the value thread 0 holds.
pub fn ref_reduce<T: Elem>(xs: &[T], w: usize, op: Combine<'_, T>) -> T {
    let l = w.trailing_zeros();
    let sg = reference::reduce_all(xs, l, op);
    let mut r = sg[0];
    for s in 1..xs.len() / w {
        r = op(r, sg[s * w]);
    }
    r
}

/// The cross-subgroup step of the block scans: `scan` per thread, `agg[s]` published by subgroup
/// `s`'s last lane.
fn fold_scan<T: Elem>(scan: &[T], agg: &[T], w: usize, op: Combine<'_, T>) -> Vec<T> {
    let nsg = agg.len();
    if nsg == 1 {
        return scan.to_vec();
    }
    let mut prefix = vec![agg[0]; nsg];
    let mut running = agg[0];
    for s in 1..nsg {
        prefix[s] = running;
        running = op(running, agg[s]);
    }
    (0..scan.len()).map(|i| if i / w == 0 { scan[i] } else { op(prefix[i / w], scan[i]) }).collect()
}

/// Quadrants' block inclusive scan of one block.
pub fn ref_inclusive<T: Elem>(xs: &[T], w: usize, op: Combine<'_, T>) -> Vec<T> {
    let scan = reference::inclusive(xs, w.trailing_zeros(), op);
    let agg: Vec<T> = (0..xs.len() / w).map(|s| scan[s * w + w - 1]).collect();
    fold_scan(&scan, &agg, w, op)
}

/// Quadrants' block exclusive scan of one block with `identity`.
pub fn ref_exclusive<T: Elem>(xs: &[T], w: usize, op: Combine<'_, T>, identity: T) -> Vec<T> {
    let scan = reference::exclusive(xs, w.trailing_zeros(), op, identity);
    let agg: Vec<T> = (0..xs.len() / w).map(|s| op(scan[s * w + w - 1], xs[s * w + w - 1])).collect();
    fold_scan(&scan, &agg, w, op)
}

/// The reference of `kind` over every block of `xs`; the mask of defined results.
fn reference_of<T: Elem>(kind: Kind, xs: &[T], bd: usize, w: usize, op: Combine<'_, T>, identity: T) -> Vec<T> {
    xs.chunks(bd)
        .flat_map(|blk| match kind {
            Kind::Reduce | Kind::ReduceAll => vec![ref_reduce(blk, w, op); bd],
            Kind::Inclusive => ref_inclusive(blk, w, op),
            Kind::Exclusive => ref_exclusive(blk, w, op, identity),
        })
        .collect()
}

fn compare<T: Elem>(kind: Kind, got: &[T], want: &[T], bd: usize) -> Outcome {
    match kind {
        Kind::Reduce => check_where("thread 0 of each block", got, want, |i| i % bd == 0),
        _ => check("every thread", got, want),
    }
}

// ---- cases ----------------------------------------------------------------------------------------

fn builtin<T: Elem>(dev: &Device, m: u32, kind: Kind, g: GroupOp) -> Outcome {
    let (w, bd) = (width(dev), block_for(dev, m));
    let n = (bd * BLOCKS) as usize;
    let xs = inputs::<T>(n, u64::from(m) * 7 + g as u64);
    let got = run_block(dev, bd, &xs, |k, x| {
        let f = match (kind, g) {
            (Kind::Reduce, GroupOp::Add) => block::reduce_add,
            (Kind::Reduce, GroupOp::Min) => block::reduce_min,
            (Kind::Reduce, _) => block::reduce_max,
            (Kind::ReduceAll, GroupOp::Add) => block::reduce_all_add,
            (Kind::ReduceAll, GroupOp::Min) => block::reduce_all_min,
            (Kind::ReduceAll, _) => block::reduce_all_max,
            (Kind::Inclusive, GroupOp::Add) => block::inclusive_add,
            (Kind::Inclusive, GroupOp::Min) => block::inclusive_min,
            (Kind::Inclusive, _) => block::inclusive_max,
            (Kind::Exclusive, GroupOp::Add) => block::exclusive_add,
            (Kind::Exclusive, GroupOp::Min) => block::exclusive_min,
            (Kind::Exclusive, _) => block::exclusive_max,
        };
        f(k, x, bd)
    })?;
    let op = reference::group::<T>(g);
    let want = reference_of(kind, &xs, bd as usize, w as usize, &op, T::identity(g));
    compare(kind, &got, &want, bd as usize)
}

/// `k` for the custom operator `a * k + b`: 3 on integers (wrapping), 0.5 on floats (bounded).
fn factor<T: Elem>() -> T {
    match T::TY {
        qd_mir::ScalarType::F32 => T::from_bits(u64::from(0.5f32.to_bits())),
        qd_mir::ScalarType::F64 => T::from_bits(0.5f64.to_bits()),
        _ => T::from_bits(3),
    }
}

/// The custom operator `a * k + b`: neither commutative nor associative, so every combination
/// order shows in the result (the reference must follow Quadrants' order exactly).
fn custom_op<T: Elem>(k: &mut KernelBuilder<'_>, a: Val, b: Val) -> Result<Val, BuildError> {
    let f = k.const_scalar(T::TY, factor::<T>().to_bits())?;
    let m = k.mul(a, f)?;
    k.add(m, b)
}

fn custom<T: Elem>(dev: &Device, m: u32, kind: Kind) -> Outcome {
    let (w, bd) = (width(dev), block_for(dev, m));
    let n = (bd * BLOCKS) as usize;
    let xs = inputs::<T>(n, u64::from(m) * 11 + 3);
    let id = T::sample(99);
    let op = Op::custom(&custom_op::<T>);
    let got = run_block(dev, bd, &xs, |k, x| match kind {
        Kind::Reduce => block::reduce(k, x, bd, op),
        Kind::ReduceAll => block::reduce_all(k, x, bd, op),
        Kind::Inclusive => block::inclusive_scan(k, x, bd, op),
        Kind::Exclusive => {
            let idv = k.const_scalar(T::TY, id.to_bits())?;
            block::exclusive_scan(k, x, bd, op, idv)
        }
    })?;
    let rop = |a: T, b: T| T::combine(GroupOp::Add, T::combine(GroupOp::Mul, a, factor::<T>()), b);
    let want = reference_of(kind, &xs, bd as usize, w as usize, &rop, id);
    compare(kind, &got, &want, bd as usize)
}

/// `exclusive_scan` with the builtin `add` and the non-standard identity 7: Quadrants'
/// shift-then-scan order, 7 in thread 0 and folded into every prefix.
fn exclusive_seven<T: Elem>(dev: &Device, m: u32) -> Outcome {
    let (w, bd) = (width(dev), block_for(dev, m));
    let n = (bd * BLOCKS) as usize;
    let xs = inputs::<T>(n, u64::from(m) * 5 + 1);
    let seven = match T::TY {
        qd_mir::ScalarType::F32 => T::from_bits(u64::from(7.0f32.to_bits())),
        qd_mir::ScalarType::F64 => T::from_bits(7.0f64.to_bits()),
        _ => T::from_bits(7),
    };
    let got = run_block(dev, bd, &xs, |k, x| {
        let id = k.const_scalar(T::TY, seven.to_bits())?;
        block::exclusive_scan(k, x, bd, Op::ADD, id)
    })?;
    let op = reference::group::<T>(GroupOp::Add);
    let want = reference_of(Kind::Exclusive, &xs, bd as usize, w as usize, &op, seven);
    check("every thread", &got, &want)?;
    // Thread 0 of each block holds the identity.
    if (0..BLOCKS as usize).any(|b| !T::same(got[b * bd as usize], seven)) {
        return Err("thread 0 does not hold the identity 7".into());
    }
    Ok(())
}

/// The generic forms with the integer-only and the multiplicative builtin operators.
fn bitwise<T: Elem>(dev: &Device, m: u32, g: GroupOp) -> Outcome {
    let (w, bd) = (width(dev), block_for(dev, m));
    let n = (bd * BLOCKS) as usize;
    let xs = inputs::<T>(n, u64::from(m) * 13 + g as u64);
    let op = reference::group::<T>(g);
    let got = run_block(dev, bd, &xs, |k, x| block::reduce_all(k, x, bd, Op::Builtin(g)))?;
    check("reduce_all", &got, &reference_of(Kind::ReduceAll, &xs, bd as usize, w as usize, &op, T::identity(g)))?;
    let got = run_block(dev, bd, &xs, |k, x| block::inclusive_scan(k, x, bd, Op::Builtin(g)))?;
    check("inclusive_scan", &got, &reference_of(Kind::Inclusive, &xs, bd as usize, w as usize, &op, T::identity(g)))
}

/// Two reductions and two scans in one kernel: each call site gets its own shared arrays.
fn two_call_sites(dev: &Device) -> Outcome {
    let (w, bd) = (width(dev), block_for(dev, 4));
    let n = (bd * BLOCKS) as usize;
    let xs = inputs::<i64>(n, 77);
    let got = run_block(dev, bd, &xs, |k, x| {
        let a = block::reduce_all_add(k, x, bd)?;
        let b = block::reduce_all_max(k, x, bd)?;
        let c = block::inclusive_add(k, x, bd)?;
        let d = block::exclusive_max(k, x, bd)?;
        let ab = k.xor(a, b)?;
        let cd = k.xor(c, d)?;
        k.xor(ab, cd)
    })?;
    let (add, max) = (reference::group::<i64>(GroupOp::Add), reference::group::<i64>(GroupOp::Max));
    let a = reference_of(Kind::ReduceAll, &xs, bd as usize, w as usize, &add, 0);
    let b = reference_of(Kind::ReduceAll, &xs, bd as usize, w as usize, &max, i64::MIN);
    let c = reference_of(Kind::Inclusive, &xs, bd as usize, w as usize, &add, 0);
    let d = reference_of(Kind::Exclusive, &xs, bd as usize, w as usize, &max, i64::MIN);
    let want: Vec<i64> = (0..n).map(|i| a[i] ^ b[i] ^ c[i] ^ d[i]).collect();
    check("a ^ b ^ c ^ d", &got, &want)
}

/// Builtin operators become MIR collectives; more than one subgroup adds the shared slots and the
/// barrier; one subgroup needs neither.
fn emits_collectives(dev: &Device) -> Outcome {
    let w = width(dev);
    for (bd, multi) in [(w, false), (2 * w, true)] {
        let f = build(dev, "c", bd, |k| {
            let x = k.const_f32(1.5)?;
            let _ = block::reduce_add(k, x, bd)?;
            let _ = block::exclusive_min(k, x, bd)?;
            Ok(())
        })?;
        let text = qd_mir::text::print_function(&f);
        for want in ["subgroup.reduce add", "subgroup.scan exclusive min"] {
            if !text.contains(want) {
                return Err(format!("block_dim {bd}: no `{want}` in\n{text}"));
            }
        }
        if text.contains("block.sync") != multi || text.contains("shared @") != multi {
            return Err(format!("block_dim {bd}: barrier/shared arrays {} expected in\n{text}", multi));
        }
    }
    Ok(())
}
