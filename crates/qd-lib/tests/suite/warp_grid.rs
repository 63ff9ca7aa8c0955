//! `warp::*` (the CUDA warp builtins with member masks) at the device's width when it is at most 32
//! lanes — several member masks, uniform and divergent `if` arms (MIR's active mask: the lanes that
//! took the arm) — against a plain-Rust model of the portable semantics; the BuildError naming the
//! op and the width on wider subgroups; `grid::mem_fence` and the deprecated `grid::memfence`.

use crate::block_basic::expect_err;
use crate::elem::mix;
use crate::harness::{buf, build, check, read, run, width, zeros, Outcome, Suite};
use qd_frontend::{FunctionBuilderContext, KernelBuilder, ScalarType, Val};
use qd_lib::{grid, warp, BuildError};
use qd_rt::Device;

/// Results per thread (all stored as u32 bits).
const NOUT: usize = 14;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    let masks: [(&str, u32, u32); 4] = [
        ("full", !0, !0),
        ("halves", 0x0000_FFFF, 0xFFFF_0000),
        ("alternate", 0x5555_5555, 0xAAAA_AAAA),
        ("sparse", 0x0000_0F0F, 0x8000_0001),
    ];
    for (mname, ma, mb) in masks {
        for arms in ["uniform", "divergent", "lower_half"] {
            s.case(format!("warp::builtins/{mname}/{arms}"), move |dev| builtins(dev, ma, mb, arms));
        }
    }
    s.case("warp::errors_on_64_lanes", |_| wide_errors());
    s.case("grid::mem_fence_and_memfence", grid_fence);
}

/// All warp ops on `v`/`p`/`arg` with member mask `mask`, stored at `out[g*NOUT ..]`.
fn all_ops(
    k: &mut KernelBuilder<'_>,
    out: qd_frontend::Buf,
    base: Val,
    mask: u32,
    x: [Val; 4],
) -> Result<(), BuildError> {
    let [p, v, fv, arg] = x;
    let m = k.const_u32(mask)?;
    warp::sync(k, m)?;
    let rs = [
        warp::all_nonzero(k, m, p)?,
        warp::any_nonzero(k, m, p)?,
        warp::unique(k, m, p)?,
        warp::ballot(k, p)?,
        warp::match_any(k, m, v)?,
        warp::match_all(k, m, v)?,
        warp::active_mask(k)?,
        warp::shfl_sync_i32(k, m, v, arg)?,
        warp::shfl_sync_f32(k, m, fv, arg)?,
        warp::shfl_up_i32(k, m, v, arg)?,
        warp::shfl_up_f32(k, m, fv, arg)?,
        warp::shfl_down_i32(k, m, v, arg)?,
        warp::shfl_down_f32(k, m, fv, arg)?,
        warp::shfl_xor_i32(k, m, v, arg)?,
    ];
    for (j, r) in rs.into_iter().enumerate() {
        let r = if r.scalar() == Some(ScalarType::U32) { r } else { k.bitcast(r, ScalarType::U32)? };
        let jv = k.const_i32(j as i32)?;
        let i = k.add(base, jv)?;
        k.store(out, i, r)?;
    }
    Ok(())
}

fn builtins(dev: &Device, ma: u32, mb: u32, arms: &'static str) -> Outcome {
    let w = width(dev);
    let bd = (w * 4).max(32);
    let n = (bd * 2) as usize;
    let body = |k: &mut KernelBuilder<'_>| -> Result<(), BuildError> {
        k.grid_fixed(2)?;
        let (pb, vb, fb, ab, cb) = (
            k.buffer("p", ScalarType::I64),
            k.buffer("v", ScalarType::I32),
            k.buffer("fv", ScalarType::F32),
            k.buffer("arg", ScalarType::U32),
            k.buffer("cond", ScalarType::U32),
        );
        let out = k.buffer("out", ScalarType::U32);
        let g = qd_lib::block::global_thread_idx(k)?;
        let x = [k.load(pb, g)?, k.load(vb, g)?, k.load(fb, g)?, k.load(ab, g)?];
        let c = k.load(cb, g)?;
        let z = k.const_u32(0)?;
        let c = k.ne(c, z)?;
        let nout = k.const_i32(NOUT as i32)?;
        let base = k.mul(g, nout)?;
        k.if_then_else(c, |k| all_ops(k, out, base, ma, x), |k| all_ops(k, out, base, mb, x))
    };
    if w > 32 {
        // A 64-lane subgroup: the first warp op is an error naming it and the width.
        let e = build(dev, "warp", bd, body).expect_err("warp ops on a 64-lane subgroup");
        return if e.contains("warp::sync") && e.contains("64 lanes") { Ok(()) } else { Err(e) };
    }
    let f = build(dev, "warp", bd, body)?;
    let p: Vec<i64> =
        (0..n as u64).map(|i| if mix(i).is_multiple_of(3) { 0 } else { (mix(i + 9) >> 20) as i64 }).collect();
    let v: Vec<i32> = (0..n as u64).map(|i| (mix(i * 5) % 3) as i32 - 1).collect();
    let fv: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 3.0).collect();
    let arg: Vec<u32> = (0..n as u64).map(|i| (mix(i * 7 + 1) % u64::from(w + 3)) as u32).collect();
    let cond: Vec<u32> = (0..n)
        .map(|i| match arms {
            "uniform" => 1,
            "divergent" => u32::from(!mix(i as u64 * 11).is_multiple_of(3)),
            _ => u32::from((i as u32 % w) < w / 2),
        })
        .collect();
    // The pattern "all p true in the lanes of an arm" must occur too: zero out p's zeros in the
    // first subgroup.
    let p: Vec<i64> = p.iter().enumerate().map(|(i, &x)| if i < w as usize && x == 0 { 3 } else { x }).collect();
    let mut args = vec![buf(&p), buf(&v), buf(&fv), buf(&arg), buf(&cond), zeros::<u32>(n * NOUT)];
    run(dev, &f, &mut args)?;
    let want = model(w as usize, &p, &v, &fv, &arg, &cond, ma, mb);
    check("warp results (14 per thread)", &read::<u32>(&args[5]), &want)
}

/// The portable semantics, per thread: members = mask ∩ the lanes of its subgroup in the same arm.
#[allow(clippy::too_many_arguments)]
fn model(w: usize, p: &[i64], v: &[i32], fv: &[f32], arg: &[u32], cond: &[u32], ma: u32, mb: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(p.len() * NOUT);
    for i in 0..p.len() {
        let (base, lane) = (i - i % w, i % w);
        let arm = cond[i] != 0;
        let act: u32 = (0..w).filter(|&j| (cond[base + j] != 0) == arm).fold(0, |m, j| m | 1 << j);
        let mask = if arm { ma } else { mb };
        let mem = mask & act;
        let ballot: u32 = (0..w).filter(|&j| act >> j & 1 == 1 && p[base + j] != 0).fold(0, |m, j| m | 1 << j);
        let bm = ballot & mem;
        let same: u32 = (0..w).filter(|&j| act >> j & 1 == 1 && v[base + j] == v[i]).fold(0, |m, j| m | 1 << j);
        let same = same & mem;
        let a = arg[i] as usize;
        let pick = |src: Option<usize>| -> usize {
            match src {
                Some(s) if s < w && act >> s & 1 == 1 && mask >> s & 1 == 1 => base + s,
                _ => i,
            }
        };
        let idx = pick(Some(a & (w - 1)));
        let up = pick(lane.checked_sub(a));
        let down = pick(Some(lane + a));
        let xor = pick(Some(lane ^ a));
        out.extend_from_slice(&[
            u32::from(bm == mem),
            u32::from(bm != 0),
            u32::from(bm == mem || bm == 0),
            ballot,
            same,
            if same == mem { mask } else { 0 },
            act,
            v[idx] as u32,
            fv[idx].to_bits(),
            v[up] as u32,
            fv[up].to_bits(),
            v[down] as u32,
            fv[down].to_bits(),
            v[xor] as u32,
        ]);
    }
    out
}

fn wide_errors() -> Outcome {
    let b2s = |e: BuildError| e.to_string();
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "w64");
    let x = k.const_i32(1).map_err(b2s)?;
    let l = line!() + 1;
    let r = warp::ballot(&mut k, x);
    expect_err("no width", r, l, &["warp::ballot", "set_subgroup_size"])?;
    k.set_subgroup_size(64).map_err(b2s)?;
    let l = line!() + 1;
    let r = warp::match_any(&mut k, x, x);
    expect_err("match_any", r, l, &["warp::match_any", "32-lane", "64 lanes"])?;
    let l = line!() + 1;
    let r = warp::shfl_down_f32(&mut k, x, x, x);
    expect_err("shfl_down_f32", r, l, &["warp::shfl_down_f32", "64 lanes"])?;
    let l = line!() + 1;
    let r = warp::active_mask(&mut k);
    expect_err("active_mask", r, l, &["warp::active_mask", "64 lanes"])?;
    let l = line!() + 1;
    let r = warp::sync(&mut k, x);
    expect_err("sync", r, l, &["warp::sync", "64 lanes"])?;
    // Type errors on a 32-lane kernel.
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "w32");
    k.set_subgroup_size(32).map_err(b2s)?;
    let f = k.const_f32(1.0).map_err(b2s)?;
    let x = k.const_i32(1).map_err(b2s)?;
    let l = line!() + 1;
    let r = warp::shfl_sync_i32(&mut k, x, f, x);
    expect_err("shfl of f32 as i32", r, l, &["warp::shfl_sync_i32", "must be i32, got f32"])?;
    let l = line!() + 1;
    let r = warp::all_nonzero(&mut k, f, x);
    expect_err("f32 mask", r, l, &["warp::all_nonzero", "member mask must be an integer"])?;
    let bl = k.const_bool(true).map_err(b2s)?;
    let l = line!() + 1;
    let r = warp::match_all(&mut k, x, bl);
    expect_err("bool match", r, l, &["warp::match_all", "unsupported dtype bool"])?;
    Ok(())
}

fn grid_fence(dev: &Device) -> Outcome {
    let bd = width(dev);
    let n = (bd * 3) as usize;
    let f = build(dev, "gf", bd, |k| {
        k.grid_fixed(3)?;
        let out = k.buffer("out", ScalarType::I32);
        let g = qd_lib::block::global_thread_idx(k)?;
        k.store(out, g, g)?;
        grid::mem_fence(k)?;
        let z = k.const_i32(0)?;
        let first = k.eq(g, z)?;
        k.if_then(first, |k| {
            #[allow(deprecated)]
            grid::memfence(k)
        })
    })?;
    let text = qd_mir::text::print_function(&f);
    if text.matches("fence device").count() != 2 {
        return Err(format!("expected two `fence device`:\n{text}"));
    }
    let mut args = vec![zeros::<i32>(n)];
    run(dev, &f, &mut args)?;
    check("global ids", &read::<i32>(&args[0]), &(0..n as i32).collect::<Vec<_>>())?;
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "gl");
    let l = line!() + 1;
    let r = grid::mem_fence(&mut k);
    match r {
        Ok(()) => Ok(()),
        Err(e) => Err(format!("grid::mem_fence at line {l}: {e}")),
    }
}
