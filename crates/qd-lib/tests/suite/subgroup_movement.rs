//! `subgroup::shuffle`, `shuffle_up`, `shuffle_down`, `shuffle_xor`, `broadcast`,
//! `broadcast_first`: every dtype, per-lane and uniform lane operands of every integer type,
//! offsets/masks that cross the wave64 halves (lane ± 32, `^ 32`), out-of-range operands (qd's
//! defined results: wrap for shuffle/broadcast, own value for up/down/xor), against plain-Rust
//! references over each subgroup.

use crate::elem::{mix, Elem};
use crate::harness::{check, width, Outcome, Suite};
use crate::subgroup_util::{input, launch, patterns, typed, N};
use qd_frontend::{BuildError, KernelBuilder, ScalarType, Val};
use qd_lib::subgroup as sg;
use qd_rt::Device;

type Move = fn(&mut KernelBuilder<'_>, Val, Val) -> Result<Val, BuildError>;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(T => {
        s.case(format!("subgroup::movement/shuffle/{}", T::TY), shuffle::<T>);
        for (name, f) in [("shuffle_up", sg::shuffle_up as Move), ("shuffle_down", sg::shuffle_down), ("shuffle_xor", sg::shuffle_xor)] {
            s.case(format!("subgroup::movement/{name}/{}", T::TY), move |dev| offset::<T>(dev, name, f));
        }
        s.case(format!("subgroup::movement/broadcast/{}", T::TY), broadcast::<T>);
    });
    s.case("subgroup::movement/broadcast_in_regions", broadcast_in_regions);
}

/// Source lane (within the subgroup) of `op` for reading lane `i` with operand `d` (None: own).
fn source(op: &str, i: usize, d: u64, w: usize) -> usize {
    let d = d as u32 as usize; // the operand's low 32 bits, as Quadrants' u32
    let src = match op {
        "shuffle" => Some(d % w),
        "shuffle_up" => i.checked_sub(d),
        "shuffle_down" => i.checked_add(d).filter(|s| *s < w),
        _ => Some(i ^ d).filter(|s| *s < w),
    };
    src.unwrap_or(i)
}

/// `xs` moved by per-lane operands `ds`.
fn moved<T: Elem>(op: &str, xs: &[T], ds: &[u64], w: usize) -> Vec<T> {
    (0..xs.len()).map(|g| xs[g - g % w + source(op, g % w, ds[g], w)]).collect()
}

/// Per-lane shuffle indices: in range, wrapped (≥ W), the cross-half partner, lane itself.
fn indices(w: usize) -> Vec<u64> {
    (0..N)
        .map(|g| {
            let r = mix(g as u64 + 555);
            let i = g % w;
            match r % 5 {
                0 => r >> 8 & (w as u64 - 1),
                1 => w as u64 + (r >> 8) % (3 * w as u64), // wraps
                2 => (i ^ (w / 2)) as u64,                 // the other half
                3 => i as u64,
                _ => (w - 1 - i) as u64,
            }
        })
        .collect()
}

fn shuffle<T: Elem>(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let xs: Vec<T> = patterns(11);
    let idx = indices(w);
    let i32s: Vec<i32> = idx.iter().map(|x| *x as i32).collect();
    let u32s: Vec<u32> = idx.iter().map(|x| *x as u32).collect();
    // 64-bit indices carry junk in the high half: only the low 32 bits count.
    let i64s: Vec<i64> = idx.iter().map(|x| (*x as i64) | (5 << 40)).collect();
    let u64s: Vec<u64> = idx.iter().map(|x| *x | (1 << 63)).collect();
    let ins = vec![input(&xs), input(&i32s), input(&u32s), input(&i64s), input(&u64s)];
    let outs = launch(dev, "shuffle", ins, &[T::TY; 4], |k, x, _| {
        Ok(vec![
            sg::shuffle(k, x[0], x[1])?,
            sg::shuffle(k, x[0], x[2])?,
            sg::shuffle(k, x[0], x[3])?,
            sg::shuffle(k, x[0], x[4])?,
        ])
    })?;
    let want = moved("shuffle", &xs, &idx, w);
    for (o, what) in outs.iter().zip(["i32 index", "u32 index", "i64 index", "u64 index"]) {
        check(what, &typed::<T>(o), &want)?;
    }
    Ok(())
}

/// Uniform offsets (constants, including 0, cross-half, W-1 and out of range) and per-lane ones.
fn offset<T: Elem>(dev: &Device, op: &'static str, f: Move) -> Outcome {
    let w = width(dev) as u64;
    let xs: Vec<T> = patterns(23);
    let mut consts: Vec<u64> = vec![0, 1, 2, 3, w / 2, w / 2 + 1, w - 1, w, w + 1, 1 << 20];
    if op == "shuffle_xor" {
        consts = (0..w.trailing_zeros()).map(|b| 1u64 << b).chain([0, 3, w - 1, w, w + 1, 1 << 20]).collect();
    }
    consts.dedup();
    let per_lane: Vec<u32> = (0..N).map(|g| (mix(g as u64 + 99) % (w + w / 2 + 1)) as u32).collect();
    let ins = vec![input(&xs), input(&per_lane)];
    let mut out_tys = vec![T::TY; consts.len() + 2];
    out_tys[0] = T::TY;
    let cs = consts.clone();
    let outs = launch(dev, op, ins, &out_tys, |k, x, _| {
        let mut r = Vec::new();
        for (j, c) in cs.iter().enumerate() {
            // Operands of several integer types.
            let d = match j % 3 {
                0 => k.const_u32(*c as u32)?,
                1 => k.const_i32(*c as i32)?,
                _ => k.const_u64(*c)?,
            };
            r.push(f(k, x[0], d)?);
        }
        r.push(f(k, x[0], x[1])?);
        let wide = k.cast(x[1], ScalarType::I64)?;
        r.push(f(k, x[0], wide)?);
        Ok(r)
    })?;
    for (j, c) in consts.iter().enumerate() {
        let want = moved(op, &xs, &vec![*c; N], w as usize);
        check(&format!("{op} by {c}"), &typed::<T>(&outs[j]), &want)?;
    }
    let ds: Vec<u64> = per_lane.iter().map(|d| u64::from(*d)).collect();
    let want = moved(op, &xs, &ds, w as usize);
    check(&format!("{op} per-lane u32"), &typed::<T>(&outs[consts.len()]), &want)?;
    check(&format!("{op} per-lane i64"), &typed::<T>(&outs[consts.len() + 1]), &want)
}

/// Constant lanes (0, the last, the other half, wrapped), a uniform lane computed from
/// `subgroup_id`, and `broadcast_first`.
fn broadcast<T: Elem>(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let xs: Vec<T> = patterns(37);
    let lanes = [0usize, w - 1, w / 2, w / 2 + 1, w + 3];
    let outs = launch(dev, "broadcast", vec![input(&xs)], &[T::TY; 7], |k, x, _| {
        let mut r = Vec::new();
        for (j, l) in lanes.iter().enumerate() {
            let c = if j % 2 == 0 { k.const_u32(*l as u32)? } else { k.const_i64(*l as i64)? };
            r.push(sg::broadcast(k, x[0], c)?);
        }
        // A uniform, non-constant lane: (subgroup_id * 3 + 1) — wraps on narrow subgroups.
        let sid = k.subgroup_id()?;
        let three = k.const_u32(3)?;
        let one = k.const_u32(1)?;
        let m = k.mul(sid, three)?;
        let l = k.add(m, one)?;
        r.push(sg::broadcast(k, x[0], l)?);
        r.push(sg::broadcast_first(k, x[0])?);
        Ok(r)
    })?;
    for (j, l) in lanes.iter().enumerate() {
        let want: Vec<T> = (0..N).map(|g| xs[g - g % w + l % w]).collect();
        check(&format!("broadcast from lane {l}"), &typed::<T>(&outs[j]), &want)?;
    }
    // subgroup_id counts subgroups within the block.
    let want: Vec<T> = (0..N).map(|g| xs[g - g % w + (((g % 256) / w) * 3 + 1) % w]).collect();
    check("broadcast from subgroup_id*3+1", &typed::<T>(&outs[5]), &want)?;
    let want: Vec<T> = (0..N).map(|g| xs[g - g % w]).collect();
    check("broadcast_first", &typed::<T>(&outs[6]), &want)
}

/// `broadcast` inside a uniform `if` arm and a counted loop (the iteration variable is a uniform
/// index): accepted at the call (the open region is left to the verifier) and correct.
pub fn broadcast_in_regions(dev: &Device) -> Outcome {
    let w = width(dev) as usize;
    let xs: Vec<i32> = (0..N as i32).map(|i| i * 5 - 7).collect();
    let outs = launch(dev, "broadcast_regions", vec![input(&xs)], &[ScalarType::I32; 2], |k, x, _| {
        let zero_i = k.const_i32(0)?;
        let acc = k.declare_named_var("acc", ScalarType::I32);
        k.def_var(acc, zero_i)?;
        let sid = k.subgroup_id()?;
        let zero = k.const_u32(0)?;
        let even = k.const_u32(1)?;
        let low = k.and(sid, even)?;
        let is_even = k.eq(low, zero)?;
        let first = k.declare_named_var("first", ScalarType::I32);
        k.def_var(first, zero_i)?;
        k.if_then(is_even, |k| {
            let two = k.const_u32(2)?;
            let l = k.add(sid, two)?; // uniform, computed inside the arm
            let r = sg::broadcast(k, x[0], l)?;
            k.def_var(first, r)
        })?;
        let four = k.const_u32(4)?;
        k.for_range(zero, four, None, |k, it| {
            let r = sg::broadcast(k, x[0], it)?; // lanes 0..3
            let a = k.use_var(acc)?;
            let s = k.add(a, r)?;
            k.def_var(acc, s)
        })?;
        Ok(vec![k.use_var(first)?, k.use_var(acc)?])
    })?;
    let sid = |g: usize| (g % 256) / w;
    let want: Vec<i32> = (0..N).map(|g| if sid(g) % 2 == 0 { xs[g - g % w + (sid(g) + 2) % w] } else { 0 }).collect();
    check("broadcast in an if arm", &typed::<i32>(&outs[0]), &want)?;
    let want: Vec<i32> = (0..N).map(|g| (0..4).map(|l| xs[g - g % w + l % w]).sum()).collect();
    check("broadcast in a loop", &typed::<i32>(&outs[1]), &want)
}
