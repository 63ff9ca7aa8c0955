//! Block barriers with predicates, fences, thread indices, `SharedArray` (2-D, vector and matrix
//! elements, atomics) and the build errors of the block API (each asserting the caller's line and
//! the message).

use crate::block_collective::block_for;
use crate::elem::{mix, Elem};
use crate::harness::{buf, build, check, read, run, zeros, Outcome, Suite};
use qd_frontend::{AtomicOp, Dim, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_lib::{block, block::SharedArray, BuildError, Op};
use qd_rt::Device;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    for m in [1u32, 2, 4, 8] {
        s.case(format!("block::sync_nonzero/i32/x{m}"), move |dev| sync_nonzero::<i32>(dev, m));
        s.case(format!("block::indices_sync_fences/x{m}"), move |dev| indices(dev, m));
    }
    s.case("block::sync_nonzero/u64", |dev| sync_nonzero::<u64>(dev, 2));
    s.case("block::sync_nonzero/bool", sync_bool);
    crate::for_each_dtype!(T => {
        s.case(format!("block::SharedArray/2d/{}", T::TY), shared_2d::<T>);
        s.case(format!("block::SharedArray/vec3_mat2x2/{}", T::TY), shared_vec_mat::<T>);
    });
    crate::for_each_int_dtype!(T => {
        s.case(format!("block::SharedArray/atomics/{}", T::TY), shared_atomics::<T>);
    });
    s.case("block::SharedArray/atomic_add/f32", shared_atomic_f32);
    s.case("block::SharedArray/names_and_footprint", |_| shared_names());
    s.case("block::errors", |_| errors());
}

fn b2s(e: BuildError) -> String {
    e.to_string()
}

/// Three blocks: predicates all false, all true, mixed (and non-bool integer values).
fn sync_nonzero<T: Elem>(dev: &Device, m: u32) -> Outcome {
    let bd = block_for(dev, m) as usize;
    let n = bd * 3;
    let ps: Vec<T> = (0..n)
        .map(|i| match i / bd {
            0 => T::from_bits(0),
            1 => T::from_bits(if i % 2 == 0 { 1 } else { (mix(i as u64) | 1) & 0x7fff_ffff_ffff }),
            _ => T::from_bits(if mix(i as u64).is_multiple_of(3) { 1 << (i % 40) } else { 0 }),
        })
        .collect();
    let f = build(dev, "syncp", bd as u32, |k| {
        k.grid_fixed(3)?;
        let inp = k.buffer("p", T::TY);
        let outs =
            [k.buffer("all", ScalarType::I32), k.buffer("any", ScalarType::I32), k.buffer("cnt", ScalarType::I32)];
        let g = block::global_thread_idx(k)?;
        let p = k.load(inp, g)?;
        let r = [block::sync_all_nonzero(k, p)?, block::sync_any_nonzero(k, p)?, block::sync_count_nonzero(k, p)?];
        for (o, v) in outs.into_iter().zip(r) {
            k.store(o, g, v)?;
        }
        Ok(())
    })?;
    let mut args = vec![buf(&ps), zeros::<i32>(n), zeros::<i32>(n), zeros::<i32>(n)];
    run(dev, &f, &mut args)?;
    let mut want = [vec![], vec![], vec![]];
    for blk in ps.chunks(bd) {
        let c = blk.iter().filter(|p| p.to_bits() != 0).count() as i32;
        want[0].extend(std::iter::repeat_n(i32::from(c == bd as i32), bd));
        want[1].extend(std::iter::repeat_n(i32::from(c > 0), bd));
        want[2].extend(std::iter::repeat_n(c, bd));
    }
    if want[2][0] != 0 || want[2][bd] != bd as i32 || want[2][2 * bd] == 0 || want[2][2 * bd] == bd as i32 {
        return Err(format!("bad test inputs: counts {} {} {}", want[2][0], want[2][bd], want[2][2 * bd]));
    }
    for (i, what) in ["all", "any", "count"].into_iter().enumerate() {
        check(what, &read::<i32>(&args[i + 1]), &want[i])?;
    }
    Ok(())
}

/// A bool predicate (thread_id < 5) in one block.
fn sync_bool(dev: &Device) -> Outcome {
    let bd = block_for(dev, 2);
    let f = build(dev, "syncb", bd, |k| {
        let out = k.buffer("out", ScalarType::I32);
        let t = k.thread_id(Dim::X)?;
        let five = k.const_u32(5)?;
        let p = k.lt(t, five)?;
        let c = block::sync_count_nonzero(k, p)?;
        let a = block::sync_all_nonzero(k, p)?;
        let y = block::sync_any_nonzero(k, p)?;
        let hundred = k.const_i32(100)?;
        let ten = k.const_i32(10)?;
        let a = k.mul(a, hundred)?;
        let y = k.mul(y, ten)?;
        let s = k.add(a, y)?;
        let s = k.add(s, c)?;
        k.store(out, t, s)
    })?;
    let mut args = vec![zeros::<i32>(bd as usize)];
    run(dev, &f, &mut args)?;
    check("100*all + 10*any + count", &read::<i32>(&args[0]), &vec![15; bd as usize])
}

/// thread_idx, global_thread_idx, sync, mem_fence (also divergent), mem_sync: thread `t` writes
/// `smem[t]`, a barrier, reads `smem[(t + 1) % bd]`.
fn indices(dev: &Device, m: u32) -> Outcome {
    let bd = block_for(dev, m);
    let n = (bd * 3) as usize;
    let f = build(dev, "idx", bd, |k| {
        k.grid_fixed(3)?;
        let (o1, o2) = (k.buffer("tid", ScalarType::I32), k.buffer("nbr", ScalarType::I32));
        let smem = SharedArray::new(k, "smem", ScalarType::I32, &[bd])?;
        let t = block::thread_idx(k)?;
        let g = block::global_thread_idx(k)?;
        k.store(o1, g, t)?;
        smem.store(k, &[t], g)?;
        block::mem_fence(k)?;
        block::sync(k)?;
        let one = k.const_i32(1)?;
        let bdv = k.const_i32(bd as i32)?;
        let t1 = k.add(t, one)?;
        let j = k.rem(t1, bdv)?;
        let v = smem.load(k, &[j])?;
        k.store(o2, g, v)?;
        let z = k.const_i32(0)?;
        let first = k.eq(t, z)?;
        k.if_then(first, |k| block::mem_fence(k))?;
        #[allow(deprecated)]
        block::mem_sync(k)?;
        Ok(())
    })?;
    let text = qd_mir::text::print_function(&f);
    if text.matches("fence block").count() != 3 {
        return Err(format!("expected three `fence block`:\n{text}"));
    }
    let mut args = vec![zeros::<i32>(n), zeros::<i32>(n)];
    run(dev, &f, &mut args)?;
    let bd = bd as usize;
    check("thread_idx", &read::<i32>(&args[0]), &(0..n).map(|i| (i % bd) as i32).collect::<Vec<_>>())?;
    let want: Vec<i32> = (0..n).map(|i| (i - i % bd + (i % bd + 1) % bd) as i32).collect();
    check("global_thread_idx of the neighbour", &read::<i32>(&args[1]), &want)
}

/// A 2-D `[4, bd/4]` array: thread `t` stores at `(t / C, t % C)` (i32 and u32 indices), reads the
/// transposed position `(t % 4, t / 4)`, after a barrier.
fn shared_2d<T: Elem>(dev: &Device) -> Outcome {
    let bd = block_for(dev, 2).max(8);
    let (r, c) = (4u32, bd / 4);
    let xs: Vec<T> = (0..bd as u64 * 2).map(|i| T::sample(i + 5)).collect();
    let f = build(dev, "sa2d", bd, |k| {
        k.grid_fixed(2)?;
        let (inp, out) = (k.buffer("inp", T::TY), k.buffer("out", T::TY));
        let a = SharedArray::new(k, "tile", T::TY, &[r, c])?;
        let g = block::global_thread_idx(k)?;
        let x = k.load(inp, g)?;
        let t = k.thread_id(Dim::X)?;
        let cv = k.const_u32(c)?;
        let i = k.div(t, cv)?;
        let j = k.rem(t, cv)?;
        let i = k.cast(i, ScalarType::I32)?;
        a.store(k, &[i, j], x)?;
        block::sync(k)?;
        let rv = k.const_u32(r)?;
        let ri = k.rem(t, rv)?;
        let cj = k.div(t, rv)?;
        let cj = k.cast(cj, ScalarType::I64)?;
        let y = a.load(k, &[ri, cj])?;
        k.store(out, g, y)
    })?;
    let mut args = vec![buf(&xs), zeros::<T>(xs.len())];
    run(dev, &f, &mut args)?;
    let (bd, r, c) = (bd as usize, r as usize, c as usize);
    let want: Vec<T> = (0..xs.len())
        .map(|g| {
            let t = g % bd;
            xs[g - t + (t % r) * c + t / r]
        })
        .collect();
    check("transposed read", &read::<T>(&args[1]), &want)
}

/// Vector elements (3 lanes) and 2×2 matrix elements: whole-element and per-component stores and
/// loads, read back from the neighbouring thread.
fn shared_vec_mat<T: Elem>(dev: &Device) -> Outcome {
    let bd = block_for(dev, 1);
    let n = bd as usize;
    let xs: Vec<T> = (0..n as u64 * 4).map(|i| T::sample(i * 3 + 1)).collect();
    let f = build(dev, "savm", bd, |k| {
        let inp = k.buffer("inp", T::TY);
        let out = k.buffer("out", T::TY);
        let v3 = SharedArray::new_vec(k, "v3", T::TY, &[bd], 3)?;
        let m22 = SharedArray::new_mat(k, "m22", T::TY, &[2, bd / 2], 2, 2)?;
        let t = k.thread_id(Dim::X)?;
        let four = k.const_u32(4)?;
        let base = k.mul(t, four)?;
        let mut x = vec![];
        for c in 0..4 {
            let cv = k.const_u32(c)?;
            let i = k.add(base, cv)?;
            x.push(k.load(inp, i)?);
        }
        v3.store_vec(k, &[t], &x[..3])?;
        let half = k.const_u32(bd / 2)?;
        let (i, j) = (k.div(t, half)?, k.rem(t, half)?);
        for (c, (rr, cc)) in [(0, 1), (1, 1), (1, 0), (0, 0)].into_iter().enumerate() {
            let comp = m22.mat_component(rr, cc)?;
            m22.store_elem(k, &[i, j], comp, x[c])?;
        }
        block::sync(k)?;
        let one = k.const_u32(1)?;
        let bdv = k.const_u32(bd)?;
        let t1 = k.add(t, one)?;
        let nb = k.rem(t1, bdv)?;
        let got = v3.load_vec(k, &[nb])?;
        let (ni, nj) = (k.div(nb, half)?, k.rem(nb, half)?);
        let mut res = got;
        res.push(m22.load_elem(k, &[ni, nj], 0)?); // entry (0, 0) = x[3]
        for (c, v) in res.into_iter().enumerate() {
            let cv = k.const_u32(c as u32)?;
            let i = k.add(base, cv)?;
            k.store(out, i, v)?;
        }
        Ok(())
    })?;
    let mut args = vec![buf(&xs), zeros::<T>(xs.len())];
    run(dev, &f, &mut args)?;
    let want: Vec<T> = (0..n * 4).map(|i| xs[((i / 4 + 1) % n) * 4 + i % 4]).collect();
    check("neighbour's vector and matrix entry", &read::<T>(&args[1]), &want)
}

/// Atomics on a 2-D scalar array and on vector components: add/min/max/and/or/xor/exch/cas.
fn shared_atomics<T: Elem>(dev: &Device) -> Outcome {
    // At least 16 threads: threads 0..12 read the 2×6 results back.
    let bd = block_for(dev, 2).max(16);
    let n = bd as usize;
    let xs: Vec<T> = (0..n as u64).map(|i| T::sample(i * 17 + 2)).collect();
    const OPS: [AtomicOp; 6] =
        [AtomicOp::Add, AtomicOp::Min, AtomicOp::Max, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor];
    let f = build(dev, "satom", bd, |k| {
        let inp = k.buffer("inp", T::TY);
        let out = k.buffer("out", T::TY);
        let cas_out = k.buffer("cas", ScalarType::U32);
        let a = SharedArray::new(k, "acc", T::TY, &[2, 6])?;
        let v = SharedArray::new_vec(k, "vacc", T::TY, &[1], 2)?;
        let t = k.thread_id(Dim::X)?;
        let x = k.load(inp, t)?;
        let z = k.const_u32(0)?;
        let is0 = k.eq(t, z)?;
        k.if_then(is0, |k| {
            for (c, op) in OPS.iter().enumerate() {
                let init = match op {
                    AtomicOp::Min => T::sentinel_max(),
                    AtomicOp::Max => T::identity(qd_mir::GroupOp::Max),
                    AtomicOp::And => T::from_bits(!0),
                    _ => T::from_bits(0),
                };
                let iv = k.const_scalar(T::TY, init.to_bits())?;
                let cv = k.const_u32(c as u32)?;
                for row in 0..2 {
                    let rv = k.const_u32(row)?;
                    a.store(k, &[rv, cv], iv)?;
                }
            }
            let zero = k.const_scalar(T::TY, 0)?;
            v.store_vec(k, &[z], &[zero, zero])
        })?;
        block::sync(k)?;
        // Row = parity of the thread.
        let one = k.const_u32(1)?;
        let row = k.and(t, one)?;
        for (c, op) in OPS.iter().enumerate() {
            let cv = k.const_i32(c as i32)?;
            let _ = a.atomic(k, *op, &[row, cv], x)?;
        }
        let _ = v.atomic_elem(k, AtomicOp::Add, &[z], 1, x)?;
        let _ = v.atomic_elem(k, AtomicOp::Exch, &[z], 0, x)?;
        // Compare-exchange: every thread tries to replace the 0 in a fresh slot; one wins.
        block::sync(k)?;
        let c0 = SharedArray::new(k, "casslot", T::TY, &[1])?;
        k.if_then(is0, |k| {
            let zero = k.const_scalar(T::TY, 0)?;
            c0.store(k, &[z], zero)
        })?;
        block::sync(k)?;
        let t1 = k.add(t, one)?;
        let newv = k.cast(t1, T::TY)?;
        let expected = k.const_scalar(T::TY, 0)?;
        let old = c0.atomic_cas(k, &[z], expected, newv)?;
        let won = k.eq(old, expected)?;
        let won = k.cast(won, ScalarType::U32)?;
        k.store(cas_out, t, won)?;
        block::sync(k)?;
        let lt = k.const_u32(12)?;
        let small = k.lt(t, lt)?;
        k.if_then(small, |k| {
            let six = k.const_u32(6)?;
            let (r, c) = (k.div(t, six)?, k.rem(t, six)?);
            let val = a.load(k, &[r, c])?;
            k.store(out, t, val)
        })?;
        let t12 = k.const_u32(12)?;
        k.if_then(is0, |k| {
            let s = v.load_elem(k, &[z], 1)?;
            k.store(out, t12, s)?;
            let w = c0.load(k, &[z])?;
            let i13 = k.const_u32(13)?;
            k.store(out, i13, w)
        })
    })?;
    let mut args = vec![buf(&xs), zeros::<T>(n.max(14)), zeros::<u32>(n)];
    run(dev, &f, &mut args)?;
    let got = read::<T>(&args[1]);
    let wins = read::<u32>(&args[2]);
    let mut want = got.clone();
    for row in 0..2 {
        let mine: Vec<T> = xs.iter().enumerate().filter(|(i, _)| i % 2 == row).map(|(_, x)| *x).collect();
        for (c, op) in OPS.iter().enumerate() {
            let g = match op {
                AtomicOp::Add => qd_mir::GroupOp::Add,
                AtomicOp::Min => qd_mir::GroupOp::Min,
                AtomicOp::Max => qd_mir::GroupOp::Max,
                AtomicOp::And => qd_mir::GroupOp::And,
                AtomicOp::Or => qd_mir::GroupOp::Or,
                _ => qd_mir::GroupOp::Xor,
            };
            want[row * 6 + c] = mine.iter().fold(T::identity(g), |a, &x| T::combine(g, a, x));
        }
    }
    want[12] = xs.iter().fold(T::from_bits(0), |a, &x| T::combine(qd_mir::GroupOp::Add, a, x));
    check("atomics", &got[..13], &want[..13])?;
    let winners: Vec<usize> = (0..n).filter(|&i| wins[i] == 1).collect();
    if winners.len() != 1 || got[13].to_bits() != winners[0] as u64 + 1 {
        return Err(format!("compare-exchange: winners {winners:?}, slot {:?}", got[13]));
    }
    Ok(())
}

/// f32 atomic add of small integers (exact in any order) into a 2-D histogram.
fn shared_atomic_f32(dev: &Device) -> Outcome {
    let bd = block_for(dev, 4);
    let n = bd as usize;
    let f = build(dev, "saf", bd, |k| {
        let out = k.buffer("out", ScalarType::F32);
        let h = SharedArray::new(k, "hist", ScalarType::F32, &[2, 4])?;
        let t = k.thread_id(Dim::X)?;
        let eight = k.const_u32(8)?;
        let small = k.lt(t, eight)?;
        k.if_then(small, |k| {
            let (four, zero) = (k.const_u32(4)?, k.const_f32(0.0)?);
            let (r, c) = (k.div(t, four)?, k.rem(t, four)?);
            h.store(k, &[r, c], zero)
        })?;
        block::sync(k)?;
        let seven = k.const_u32(7)?;
        let bin = k.and(t, seven)?;
        let four = k.const_u32(4)?;
        let (r, c) = (k.div(bin, four)?, k.rem(bin, four)?);
        let tf = k.cast(t, ScalarType::F32)?;
        let _ = h.atomic_add(k, &[r, c], tf)?;
        block::sync(k)?;
        k.if_then(small, |k| {
            let (r, c) = (k.div(t, four)?, k.rem(t, four)?);
            let v = h.load(k, &[r, c])?;
            k.store(out, t, v)
        })
    })?;
    let mut args = vec![zeros::<f32>(8)];
    run(dev, &f, &mut args)?;
    let want: Vec<f32> = (0..8).map(|b| (0..n).filter(|t| t % 8 == b).map(|t| t as f32).sum()).collect();
    check("histogram", &read::<f32>(&args[0]), &want)
}

/// Constructor names: a taken name gets a suffix; the footprint and the MIR arrays.
fn shared_names() -> Outcome {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "names");
    let a = SharedArray::new(&mut k, "buf", ScalarType::F64, &[3, 5]).map_err(b2s)?;
    let b = SharedArray::new(&mut k, "buf", ScalarType::I32, &[7]).map_err(b2s)?;
    let c = SharedArray::new_mat(&mut k, "buf", ScalarType::F32, &[2], 3, 4).map_err(b2s)?;
    if (a.name(), b.name(), c.name()) != ("buf", "buf_1", "buf_2") {
        return Err(format!("names {} {} {}", a.name(), b.name(), c.name()));
    }
    if (a.bytes(), b.bytes(), c.bytes()) != (120, 28, 96) || c.buf().len() != 24 {
        return Err(format!("bytes {} {} {}", a.bytes(), b.bytes(), c.bytes()));
    }
    let f = k.finish().map_err(b2s)?;
    let text = qd_mir::text::print_function(&f);
    for want in ["shared @buf: [f64; 15]", "shared @buf_1: [i32; 7]", "shared @buf_2: [f32; 24]"] {
        if !text.contains(want) {
            return Err(format!("no `{want}` in\n{text}"));
        }
    }
    Ok(())
}

/// Expects `r` to be an error at `line` whose message contains every one of `parts`.
pub fn expect_err<T>(what: &str, r: Result<T, BuildError>, line: u32, parts: &[&str]) -> Outcome {
    match r {
        Ok(_) => Err(format!("{what}: expected an error")),
        Err(e) if e.location.line() != line || !e.location.file().ends_with(".rs") => {
            Err(format!("{what}: error at line {} (want {line}): {e}", e.location.line()))
        }
        Err(e) if !e.location.file().contains("tests/suite") => Err(format!("{what}: error not at the caller: {e}")),
        Err(e) => match parts.iter().find(|p| !e.message.contains(*p)) {
            Some(p) => Err(format!("{what}: message lacks {p:?}: {e}")),
            None => Ok(()),
        },
    }
}

fn errors() -> Outcome {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "e");
    let x = k.const_f32(1.0).map_err(b2s)?;
    let l = line!() + 1;
    let r = block::reduce_add(&mut k, x, 64);
    expect_err("no width", r, l, &["block::reduce_add", "set_subgroup_size"])?;
    k.set_subgroup_size(32).map_err(b2s)?;
    k.set_block_dim(96).map_err(b2s)?;
    let l = line!() + 1;
    let r = block::inclusive_add(&mut k, x, 48);
    expect_err("not a multiple", r, l, &["block::inclusive_add", "positive multiple", "block_dim 48", "32 lanes"])?;
    let l = line!() + 1;
    let r = block::reduce_all(&mut k, x, 64, Op::MAX);
    expect_err("not the block", r, l, &["block::reduce_all", "block_dim 64", "96 threads"])?;
    let bl = k.const_bool(true).map_err(b2s)?;
    let l = line!() + 1;
    let r = block::exclusive_min(&mut k, bl, 96);
    expect_err("bool dtype", r, l, &["block::exclusive_min", "unsupported dtype bool"])?;
    let l = line!() + 1;
    let r = block::reduce(&mut k, x, 96, Op::XOR);
    expect_err("xor on f32", r, l, &["block::reduce", "unsupported dtype f32", "i32, u32, i64, u64"])?;
    let i = k.const_i32(1).map_err(b2s)?;
    // A custom operator that does not return its operands' type.
    let widen = |k: &mut KernelBuilder<'_>, a: qd_lib::Val, _b: qd_lib::Val| k.cast(a, ScalarType::I64);
    let l = line!() + 1;
    let r = block::reduce(&mut k, i, 96, Op::custom(&widen));
    expect_err("custom op type (reduce)", r, l, &["block::reduce", "custom operator returned i64 for i32 operands"])?;
    let l = line!() + 1;
    let r = block::inclusive_scan(&mut k, i, 96, Op::custom(&widen));
    expect_err("custom op type (scan)", r, l, &["block::inclusive_scan", "custom operator returned i64"])?;
    let l = line!() + 1;
    let r = block::exclusive_scan(&mut k, x, 96, Op::ADD, i);
    expect_err("identity type", r, l, &["block::exclusive_scan", "identity is i32"])?;
    let l = line!() + 1;
    let r = block::sync_all_nonzero(&mut k, x);
    expect_err("f32 predicate", r, l, &["block::sync_all_nonzero", "integer or bool"])?;
    // SharedArray.
    let a = SharedArray::new(&mut k, "a", ScalarType::I32, &[4, 3]).map_err(b2s)?;
    let (c5, c1, cm1) = (k.const_u32(5).map_err(b2s)?, k.const_u32(1).map_err(b2s)?, k.const_i32(-1).map_err(b2s)?);
    let l = line!() + 1;
    let r = a.load(&mut k, &[c5, c1]);
    expect_err("constant index", r, l, &["SharedArray::load @a", "index 5 is out of range for dimension 0", "[4, 3]"])?;
    let l = line!() + 1;
    let r = a.store(&mut k, &[c1, cm1], i);
    expect_err("negative index", r, l, &["index -1 is out of range for dimension 1"])?;
    let l = line!() + 1;
    let r = a.load(&mut k, &[c1]);
    expect_err("index count", r, l, &["1 index(es) for a 2-dimensional array"])?;
    let l = line!() + 1;
    let r = a.store(&mut k, &[c1, c1], x);
    expect_err("store type", r, l, &["SharedArray::store @a", "the value is f32"])?;
    let fa = SharedArray::new(&mut k, "fa", ScalarType::F64, &[2]).map_err(b2s)?;
    let xd = k.const_f64(1.0).map_err(b2s)?;
    let l = line!() + 1;
    let r = fa.atomic_max(&mut k, &[c1], xd);
    expect_err("atomic max on f64", r, l, &["atomic.rmw: operation max", "f64"])?;
    let v = SharedArray::new_vec(&mut k, "v", ScalarType::I32, &[2], 3).map_err(b2s)?;
    let l = line!() + 1;
    let r = v.load_elem(&mut k, &[c1], 3);
    expect_err("component", r, l, &["component 3 is out of range", "Vector(3)"])?;
    let l = line!() + 1;
    let r = v.load(&mut k, &[c1]);
    expect_err("load of a vector element", r, l, &["use load_elem"])?;
    // The hint names functions that exist.
    let l = line!() + 1;
    let r = v.atomic_add(&mut k, &[c1], i);
    expect_err("atomic_add of a vector element", r, l, &["use atomic_elem"])?;
    let l = line!() + 1;
    let r = v.atomic_cas(&mut k, &[c1], i, i);
    expect_err("atomic_cas of a vector element", r, l, &["atomic_cas", "scalar elements only"])?;
    let l = line!() + 1;
    let r = v.store(&mut k, &[c1], i);
    expect_err("store of a vector element", r, l, &["use store_elem", "store_vec"])?;
    let l = line!() + 1;
    let r = SharedArray::new(&mut k, "big", ScalarType::F64, &[8193]);
    expect_err("too big", r, l, &["SharedArray::new @big", "64 KiB"])?;
    let l = line!() + 1;
    let r = SharedArray::new(&mut k, "z", ScalarType::F64, &[4, 0]);
    expect_err("zero dim", r, l, &["shape [4, 0]"])?;
    let l = line!() + 1;
    let r = SharedArray::new(&mut k, "9x", ScalarType::F64, &[4]);
    expect_err("bad name", r, l, &["not an identifier"])?;
    let l = line!() + 1;
    let r = v.mat_component(0, 0);
    expect_err("mat_component of a vector", r, l, &["not inside an element"])?;
    Ok(())
}
