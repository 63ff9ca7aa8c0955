//! Ballots, votes, lane masks and ids: `ballot` (and the deprecated `ballot_full_subgroup`),
//! `ballot_first_n` for n in 1..=32, `all_true`/`any_true` (+ `_tiled`) on predicates of every
//! integer type and bool, `all_equal` (+ `_tiled`) on every dtype (NaN, ±0, runs of equal values),
//! `lanemask_*` on lanes 0..=31 and beyond (the saturating rule), `elect`, `invocation_id`,
//! `group_size`, `log2_group_size`, `sync`/`mem_fence` and their deprecated names.

use crate::elem::{mix, Elem};
use crate::harness::{check, width, Outcome, Suite};
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, typed, BLOCK, N, TILES};
use qd_frontend::{BuildError, KernelBuilder, ScalarType, Val};
use qd_lib::subgroup as sg;
use qd_rt::Device;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    s.case("subgroup::vote/ballot", ballot);
    s.case("subgroup::vote/ballot_first_n", ballot_first_n);
    for l in TILES {
        s.case(format!("subgroup::vote/all_any_true/L{l}"), move |dev| all_any(dev, l));
    }
    crate::for_each_dtype!(T => {
        for l in TILES {
            s.case(format!("subgroup::vote/all_equal/{}/L{l}", T::TY), move |dev| all_equal::<T>(dev, l));
        }
    });
    s.case("subgroup::vote/lanemask", lanemask);
    s.case("subgroup::vote/ids_elect_sync", ids);
}

/// Predicates (i32): block 0 mixed (non-binary truthy values), block 1 mostly true, block 2
/// mostly false, block 3 all true, block 4 all false.
fn predicates() -> Vec<i32> {
    (0..N)
        .map(|g| {
            let r = mix(g as u64 + 4242);
            match g / BLOCK {
                0 => [0, 1, 7, -1, 0, 0][r as usize % 6],
                1 => i32::from(!r.is_multiple_of(61)) * 3,
                2 => i32::from(r.is_multiple_of(53)),
                3 => [1, 7, -1, i32::MIN][r as usize % 4],
                _ => 0,
            }
        })
        .collect()
}

/// The same predicate as i32, u32, i64 (truth in the high half only), u64 and bool.
fn typed_predicates(k: &mut KernelBuilder<'_>, p: Val) -> Result<Vec<Val>, BuildError> {
    let zero = k.const_i32(0)?;
    let b = k.ne(p, zero)?;
    let u = k.cast(p, ScalarType::U32)?;
    let i64v = k.cast(b, ScalarType::I64)?;
    let shift = k.const_i64(40)?;
    let hi = k.shl(i64v, shift)?;
    let u64v = k.cast(p, ScalarType::U64)?;
    Ok(vec![p, u, hi, u64v, b])
}

fn ballot(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let ps = predicates();
    #[allow(deprecated)]
    let outs = launch(dev, "ballot", vec![input(&ps)], &[ScalarType::U64; 6], |k, x, _| {
        let mut r = Vec::new();
        for p in typed_predicates(k, x[0])? {
            r.push(sg::ballot(k, p)?);
        }
        r.push(sg::ballot_full_subgroup(k, x[0])?);
        Ok(r)
    })?;
    let want: Vec<u64> = (0..N)
        .map(|g| {
            let base = g - g % w;
            (0..w).filter(|i| ps[base + i] != 0).fold(0u64, |m, i| m | 1 << i)
        })
        .collect();
    for (o, what) in outs.iter().zip(["i32", "u32", "i64", "u64", "bool", "ballot_full_subgroup"]) {
        check(&format!("ballot of {what}"), &typed::<u64>(o), &want)?;
    }
    Ok(())
}

fn ballot_first_n(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let ps = predicates();
    let ns = [1u32, 2, 5, 8, 16, 17, 31, 32];
    let outs = launch(dev, "ballot_first_n", vec![input(&ps)], &[ScalarType::U32; 8], |k, x, _| {
        ns.iter().map(|n| sg::ballot_first_n(k, x[0], *n)).collect()
    })?;
    for (o, n) in outs.iter().zip(ns) {
        let want: Vec<u32> = (0..N)
            .map(|g| {
                let base = g - g % w;
                (0..w.min(n as usize)).filter(|i| ps[base + i] != 0).fold(0u32, |m, i| m | 1 << i)
            })
            .collect();
        check(&format!("ballot_first_n({n})"), &typed::<u32>(o), &want)?;
    }
    Ok(())
}

fn all_any(dev: &Device, l: u32) -> Outcome {
    let lw = log2_width(dev);
    let ps = predicates();
    let with_full = l == lw;
    let n_out = if with_full { 12 } else { 10 };
    let r = launch(dev, "votes", vec![input(&ps)], &vec![ScalarType::I32; n_out], |k, x, _| {
        let mut r = Vec::new();
        for p in typed_predicates(k, x[0])? {
            r.push(sg::all_true_tiled(k, p, l)?);
            r.push(sg::any_true_tiled(k, p, l)?);
        }
        if with_full {
            r.push(sg::all_true(k, x[0])?);
            r.push(sg::any_true(k, x[0])?);
        }
        Ok(r)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let t = 1usize << l;
    let tile = |g: usize| (g - g % t)..(g - g % t + t);
    let all: Vec<i32> = (0..N).map(|g| i32::from(tile(g).all(|j| ps[j] != 0))).collect();
    let any: Vec<i32> = (0..N).map(|g| i32::from(tile(g).any(|j| ps[j] != 0))).collect();
    for (j, what) in ["i32", "u32", "i64", "u64", "bool"].iter().enumerate() {
        check(&format!("all_true_tiled({what})"), &typed::<i32>(&outs[2 * j]), &all)?;
        check(&format!("any_true_tiled({what})"), &typed::<i32>(&outs[2 * j + 1]), &any)?;
    }
    if with_full {
        check("all_true", &typed::<i32>(&outs[10]), &all)?;
        check("any_true", &typed::<i32>(&outs[11]), &any)?;
    }
    Ok(())
}

/// Values for the equality vote: block 0 runs of 4 equal lanes, block 1 runs of 16 with a
/// perturbed lane every 64, block 2 alternating -0/+0 (floats; 0 for integers: all equal),
/// block 3 NaN everywhere (floats; INT_MIN for integers), block 4 one value with a NaN (floats)
/// or a different value (integers) every 32 lanes.
fn equal_values<T: Elem>() -> Vec<T> {
    let sp = T::specials();
    (0..N)
        .map(|g| {
            let i = g % BLOCK;
            match g / BLOCK {
                0 => T::sample(g as u64 >> 2),
                1 if i % 64 == 37 => T::sample(1 << 40),
                1 => T::sample(g as u64 >> 4),
                2 if T::is_int() => sp[0],
                2 => sp[1 + i % 2],
                3 if T::is_int() => sp[3],
                3 => sp[0],
                _ if i % 32 == 5 => {
                    if T::is_int() {
                        sp[2]
                    } else {
                        sp[0]
                    }
                }
                _ => sp[1],
            }
        })
        .collect()
}

fn all_equal<T: Elem>(dev: &Device, l: u32) -> Outcome {
    let lw = log2_width(dev);
    let xs = equal_values::<T>();
    let with_full = l == lw;
    let n_out = if with_full { 2 } else { 1 };
    let r = launch(dev, "all_equal", vec![input(&xs)], &vec![ScalarType::I32; n_out], |k, x, _| {
        let mut r = vec![sg::all_equal_tiled(k, x[0], l)?];
        if with_full {
            r.push(sg::all_equal(k, x[0])?);
        }
        Ok(r)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let t = 1usize << l;
    // The dtype's `==`: NaN equals nothing, +0 == -0.
    #[allow(clippy::eq_op)]
    let want: Vec<i32> = (0..N)
        .map(|g| {
            let base = g - g % t;
            i32::from((base..base + t).all(|j| xs[j].partial_cmp(&xs[base]) == Some(std::cmp::Ordering::Equal)))
        })
        .collect();
    check("all_equal_tiled", &typed::<i32>(&outs[0]), &want)?;
    if with_full {
        check("all_equal", &typed::<i32>(&outs[1]), &want)?;
    }
    Ok(())
}

/// Quadrants' formulas on lanes 0..=31 (lane 31 and lane 0 edges) and qd's saturation beyond.
fn lanemask_ref(which: usize, l: u64) -> u32 {
    let bit: u32 = if l >= 32 { 0 } else { 1 << l };
    let lt = bit.wrapping_sub(1);
    let le = bit | lt;
    [lt, le, bit, !le, !lt][which]
}

fn lanemask(dev: &Device) -> Outcome {
    // Lanes 0..=31, then out of range ones.
    let extra: [i64; 8] = [32, 33, 63, 64, 1000, -1, i64::from(i32::MIN), 1 << 32];
    let lanes: Vec<i64> = (0..N).map(|g| if g % 40 < 32 { (g % 40) as i64 } else { extra[g % 40 - 32] }).collect();
    let as_i32: Vec<i32> = lanes.iter().map(|l| *l as i32).collect();
    let as_u64: Vec<u64> = lanes.iter().map(|l| *l as u64).collect();
    let ins = vec![input(&as_i32), input(&lanes), input(&as_u64)];
    type Mask = fn(&mut KernelBuilder<'_>, Val) -> Result<Val, BuildError>;
    let fs: [Mask; 5] = [sg::lanemask_lt, sg::lanemask_le, sg::lanemask_eq, sg::lanemask_gt, sg::lanemask_ge];
    let outs = launch(dev, "lanemask", ins, &[ScalarType::U32; 20], |k, x, _| {
        let u = k.cast(x[0], ScalarType::U32)?;
        let mut r = Vec::new();
        for f in fs {
            for v in [x[0], u, x[1], x[2]] {
                r.push(f(k, v)?);
            }
        }
        Ok(r)
    })?;
    let names = ["lanemask_lt", "lanemask_le", "lanemask_eq", "lanemask_gt", "lanemask_ge"];
    for (which, name) in names.iter().enumerate() {
        // i32 and u32 lanes: the 32-bit value read unsigned; i64/u64: the 64-bit value unsigned.
        let narrow: Vec<u32> = as_i32.iter().map(|l| lanemask_ref(which, u64::from(*l as u32))).collect();
        let wide: Vec<u32> = as_u64.iter().map(|l| lanemask_ref(which, *l)).collect();
        for (j, (want, ty)) in [(&narrow, "i32"), (&narrow, "u32"), (&wide, "i64"), (&wide, "u64")].iter().enumerate() {
            check(&format!("{name}({ty})"), &typed::<u32>(&outs[which * 4 + j]), want)?;
        }
    }
    // Spot values that document the edge cases.
    let spot = [(0, 31, u32::MAX >> 1), (1, 31, u32::MAX), (3, 31, 0), (4, 0, u32::MAX), (0, 32, u32::MAX), (2, 32, 0)];
    for (which, l, v) in spot {
        if lanemask_ref(which, l) != v {
            return Err(format!("{}({l}) reference is {:#x}, want {v:#x}", names[which], lanemask_ref(which, l)));
        }
    }
    Ok(())
}

/// `invocation_id`, `elect`, `group_size`, `log2_group_size`, and `sync`/`mem_fence` (+ the
/// deprecated `barrier`/`memory_barrier`) between a shared store and a neighbour's load.
fn ids(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let xs: Vec<i32> = (0..N as i32).map(|i| i * 3 + 1).collect();
    let mut sizes = (0, 0);
    #[allow(deprecated)]
    let outs = launch(dev, "ids", vec![input(&xs)], &[ScalarType::I32; 4], |k, x, _| {
        sizes = (sg::group_size(k)?, sg::log2_group_size(k)?);
        let id = sg::invocation_id(k)?;
        let e = sg::elect(k)?;
        // Each lane stores its value to shared memory and reads its xor-1 neighbour's after the
        // fence + sync (twice: the current names and the deprecated ones).
        let sh = k.shared_array("sh", ScalarType::I32, BLOCK as u32);
        let t = k.thread_id(qd_frontend::Dim::X)?;
        k.store(sh, t, x[0])?;
        sg::mem_fence(k)?;
        sg::sync(k)?;
        let one = k.const_u32(1)?;
        let nb = k.xor(t, one)?;
        let a = k.load(sh, nb)?;
        let two = k.const_i32(2)?;
        let y = k.mul(x[0], two)?;
        sg::barrier(k)?;
        k.store(sh, t, y)?;
        sg::memory_barrier(k)?;
        sg::barrier(k)?;
        let bv = k.load(sh, nb)?;
        Ok(vec![id, e, a, bv])
    })?;
    if sizes != (w as u32, w.trailing_zeros()) {
        return Err(format!("group_size/log2_group_size = {sizes:?} on a {w}-lane device"));
    }
    let lane: Vec<i32> = (0..N).map(|g| (g % w) as i32).collect();
    check("invocation_id", &typed::<i32>(&outs[0]), &lane)?;
    let elect: Vec<i32> = (0..N).map(|g| i32::from(g % w == 0)).collect();
    check("elect", &typed::<i32>(&outs[1]), &elect)?;
    let nb: Vec<i32> = (0..N).map(|g| xs[g ^ 1]).collect();
    check("neighbour after mem_fence + sync", &typed::<i32>(&outs[2]), &nb)?;
    let nb2: Vec<i32> = nb.iter().map(|v| v * 2).collect();
    check("neighbour after memory_barrier + barrier", &typed::<i32>(&outs[3]), &nb2)
}
