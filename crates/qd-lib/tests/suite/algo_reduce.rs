//! `algorithms::reduce_{add,min,max}`: every dtype × operator, one compiled program replayed at
//! every small live count × every input shape (depths 1, 2 and an over-specified 3), the large
//! live counts for a few dtypes, both strategies where the device has forward progress (and
//! their bit-for-bit agreement on integers), 1 000 003 elements on CUDA only, and the error paths
//! (short scratch, live count out of range, build errors at the caller's line).

use crate::algo_ref::{
    build_prog, chunked_on, expect_build_error, expect_check, expect_status, input, opts, reduce_tree, run_prog,
    run_raw, small_runs, strategies, ty, Input,
};
use crate::elem::Elem;
use crate::harness::{buf, check, read, Outcome, Suite};
use qd_frontend::{BuildError, ProgramArg, ProgramBuilder};
use qd_lib::algorithms::{self, reduce_scratch_slots, Capacity, Options, Strategy};
use qd_mir::{GroupOp, ScalarType};
use qd_rt::{Device, DeviceKind};

type ReduceFn = fn(
    &mut ProgramBuilder,
    &Options,
    ProgramArg,
    ProgramArg,
    ProgramArg,
    ProgramArg,
    Capacity,
) -> Result<(), BuildError>;

fn reduce_fn(op: GroupOp) -> ReduceFn {
    match op {
        GroupOp::Add => algorithms::reduce_add,
        GroupOp::Min => algorithms::reduce_min,
        _ => algorithms::reduce_max,
    }
}

const OPS: [GroupOp; 3] = [GroupOp::Add, GroupOp::Min, GroupOp::Max];

/// Registers the cases.
pub fn register(s: &mut Suite) {
    let mut salt = 0usize;
    crate::for_each_dtype!(T => {
        for op in OPS {
            salt += 1;
            // every shape at every live count for i32 add and the float adds; an over-specified
            // depth for i32 and f64
            let full = op == GroupOp::Add && (T::TY == ScalarType::I32 || !T::is_int());
            let deep = T::TY == ScalarType::I32 && op == GroupOp::Add;
            let name = format!("algo::reduce_{}/{}/small_ns", op.name(), ty::<T>());
            s.case(name, move |dev| small::<T>(dev, op, salt, full, deep));
        }
    });
    s.case("algo::reduce_add/i32/big_ns", |dev| {
        big::<i32>(dev, GroupOp::Add, &[(65_535, Input::Random), (65_536, Input::Specials), (65_537, Input::Sorted)])
    });
    s.case("algo::reduce_min/f32/big_ns", |dev| big::<f32>(dev, GroupOp::Min, &[(65_537, Input::Specials)]));
    s.case("algo::reduce_add/u32/strategies_agree", |dev| {
        agree::<u32>(dev, GroupOp::Add, &[(65_537, Input::Random), (3000, Input::FewDistinct)])
    });
    s.case("algo::reduce_min/i64/strategies_agree", |dev| agree::<i64>(dev, GroupOp::Min, &[(3000, Input::Specials)]));
    s.case("algo::reduce/f32/identity_padding", |dev| padding::<f32>(dev, 65_536));
    s.case("algo::reduce/f64/identity_padding", |dev| padding::<f64>(dev, 1024));
    s.case("algo::reduce_add/i32/n1000003_cuda_only", huge);
    s.case("algo::reduce/errors/short_scratch", short_scratch);
    s.case("algo::reduce/errors/live_count_out_of_range", out_of_range);
    s.case("algo::reduce/errors/build", |_| build_errors());
    s.case("algo::chunked/errors/build", |_| chunked_errors());
}

/// Builds `reduce_<op>` over buffers `arr`, `out`, `scratch`, `n` for `cap`.
fn program<T: Elem>(dev: &Device, op: GroupOp, o: &Options, cap: Capacity) -> Result<qd_mir::Module, String> {
    build_prog(dev, "reduce", |pb| {
        let arr = pb.buffer("arr", T::TY);
        let out = pb.buffer("out", T::TY);
        let st = if T::TY.bits() > 32 { ScalarType::U64 } else { ScalarType::U32 };
        let scratch = pb.buffer("scratch", st);
        let n = pb.buffer("n", ScalarType::I32);
        reduce_fn(op)(pb, o, arr, out, scratch, n, cap)
    })
}

/// The arguments for `xs` padded to `max_n`, a live count `live` and exactly the formula's
/// scratch.
fn args<T: Elem>(xs: &[T], max_n: usize, live: i64, cap: Capacity) -> Result<Vec<qd_mir::interp::ArgValue>, String> {
    let mut data = xs.to_vec();
    data.resize(max_n.max(1), T::identity(GroupOp::Add));
    let slots = reduce_scratch_slots(cap.max_n(), Some(cap.log256())).map_err(|e| e.to_string())? as usize;
    let scratch =
        if T::TY.bits() > 32 { buf(&vec![0xdead_beef_u64; slots]) } else { buf(&vec![0xdead_beef_u32; slots]) };
    Ok(vec![buf(&data), buf(&[T::from_bits(0x5a)]), scratch, buf(&[live as i32])])
}

/// One reduce at live count `xs.len()` with a program built for `cap`; returns `out[0]`.
fn run_one<T: Elem>(dev: &Device, m: &qd_mir::Module, xs: &[T], cap: Capacity) -> Result<T, String> {
    let mut a = args(xs, cap.max_n() as usize, xs.len() as i64, cap)?;
    run_prog(dev, m, &mut a)?;
    Ok(read::<T>(&a[1])[0])
}

/// A strategy, a capacity and the runs of one compiled program.
type Plan = (Strategy, Capacity, Vec<(usize, Input)>);

/// One program per capacity replayed over the small live counts: depth 2 (`max_n` 257) with
/// every shape (rotating, or all of them for `full`), depth 1 (`max_n` 256), an over-specified
/// depth 3 for `deep`; the single pass (forward-progress devices) at three live counts.
fn small<T: Elem>(dev: &Device, op: GroupOp, salt: usize, full: bool, deep: bool) -> Outcome {
    let mut plans: Vec<Plan> = vec![
        (Strategy::MultiLaunch, cap(257, None)?, small_runs(salt, full, 257)),
        (Strategy::MultiLaunch, cap(256, None)?, vec![(0, Input::Random), (256, Input::Specials)]),
    ];
    if deep {
        plans.push((Strategy::MultiLaunch, cap(257, Some(3))?, vec![(1, Input::Random), (257, Input::Reversed)]));
    }
    if chunked_on(dev) {
        // the CPU form (floats: the GPU form's tree, exactly): depth 1 and 2, and 64 chunks with
        // live counts around the chunk size
        plans.push((Strategy::Chunked, cap(257, None)?, small_runs(salt, full, 257)));
        plans.push((Strategy::Chunked, cap(256, None)?, vec![(0, Input::Random), (256, Input::Specials)]));
        let runs = [(1, Input::Random), (63, Input::Sorted), (64, Input::Specials), (65, Input::Reversed)];
        let more = [(8191, Input::FewDistinct), (16_384, Input::Random), (20_000, Input::AllEqual)];
        plans.push((Strategy::Chunked, cap(20_000, None)?, runs.into_iter().chain(more).collect()));
    }
    if dev.info().forward_progress {
        let runs = vec![(0, Input::Random), (257, Input::Specials)];
        plans.push((Strategy::SinglePass, cap(257, None)?, runs));
    }
    for (strategy, cap, runs) in plans {
        let m = program::<T>(dev, op, &opts(dev, strategy), cap)?;
        for (k, (n, shape)) in runs.into_iter().enumerate() {
            let xs: Vec<T> = input(shape, n, (k + salt * 16) as u64);
            let got = run_one(dev, &m, &xs, cap)?;
            check(&format!("{strategy:?} D={} n={n} {shape:?}", cap.log256()), &[got], &[want_of(op, &xs, cap)])?;
        }
    }
    Ok(())
}

/// A capacity (natural depth, or `log256`).
fn cap(max_n: u64, log256: Option<u32>) -> Result<Capacity, String> {
    match log256 {
        None => Capacity::new(max_n),
        Some(d) => Capacity::with_log256(max_n, d),
    }
    .map_err(|e| e.to_string())
}

/// The expected result: Quadrants' block tree, for both strategies (the single pass folds
/// 1024-element tiles with the neutral element and applies Quadrants' identity padding at the
/// end; `padding` checks the cases where the padding decides).
fn want_of<T: Elem>(op: GroupOp, xs: &[T], cap: Capacity) -> T {
    reduce_tree(op, xs, cap.log256())
}

/// Multi-launch (and the chunked CPU form on the host devices) at large live counts (one
/// program each, `max_n` 65 537, depth 3).
fn big<T: Elem>(dev: &Device, op: GroupOp, runs: &[(usize, Input)]) -> Outcome {
    let cap = cap(65_537, None)?;
    let chunked = chunked_on(dev).then_some(Strategy::Chunked);
    for strategy in std::iter::once(Strategy::MultiLaunch).chain(chunked) {
        let m = program::<T>(dev, op, &opts(dev, strategy), cap)?;
        for &(n, shape) in runs {
            let xs: Vec<T> = input(shape, n, n as u64 + 5);
            let got = run_one(dev, &m, &xs, cap)?;
            check(&format!("{strategy:?} n={n} {shape:?}"), &[got], &[want_of(op, &xs, cap)])?;
        }
    }
    Ok(())
}

/// Multi-launch and single pass bit-for-bit on integers (forward-progress devices).
fn agree<T: Elem>(dev: &Device, op: GroupOp, runs: &[(usize, Input)]) -> Outcome {
    let cap = Capacity::new(70_000).map_err(|e| e.to_string())?;
    let multi = program::<T>(dev, op, &opts(dev, Strategy::MultiLaunch), cap)?;
    // Without forward progress there is one strategy: it is checked against the reference.
    let single = match dev.info().forward_progress {
        true => Some(program::<T>(dev, op, &opts(dev, Strategy::SinglePass), cap)?),
        false => None,
    };
    let chunked = match chunked_on(dev) && T::is_int() {
        true => Some(program::<T>(dev, op, &opts(dev, Strategy::Chunked), cap)?),
        false => None,
    };
    for &(n, shape) in runs {
        let xs: Vec<T> = input(shape, n, 99);
        let a = run_one(dev, &multi, &xs, cap)?;
        if let Some(single) = &single {
            let b = run_one(dev, single, &xs, cap)?;
            if a.to_bits() != b.to_bits() {
                return Err(format!("n={n}: multi-launch {a:?}, single-pass {b:?}"));
            }
        }
        if let Some(chunked) = &chunked {
            let c = run_one(dev, chunked, &xs, cap)?;
            if a.to_bits() != c.to_bits() {
                return Err(format!("n={n}: multi-launch {a:?}, chunked {c:?}"));
            }
        }
        check(&format!("n={n}"), &[a], &[reduce_tree(op, &xs, cap.log256())])?;
    }
    Ok(())
}

/// Where Quadrants' identity padding shows: a float min/max over NaNs only is NaN when
/// `n = 256^D` (no padded lane in the block tree) and the identity otherwise; a float sum of
/// `-0.0`s only is `-0.0` under the same condition. Multi-launch against the reference tree, and
/// the forced single pass against multi-launch (forward-progress devices), at
/// capacities 256 (`D = 1`), 1024 and `big` (`D = 2`; `big = 65 536` fills the tree).
fn padding<T: Elem>(dev: &Device, big: usize) -> Outcome {
    let nan = |i: usize| {
        T::from_bits(
            if T::TY.bits() == 64 { 0x7FF8_0000_0000_0000 } else { 0x7FC0_0000 }
                | ((i as u64 % 2) << (T::TY.bits() - 1)),
        )
    };
    let neg_zero = T::from_bits(1 << (T::TY.bits() - 1));
    for max_n in [256usize, 1024, big] {
        let cap = cap(max_n as u64, None)?;
        for op in OPS {
            let multi = program::<T>(dev, op, &opts(dev, Strategy::MultiLaunch), cap)?;
            let single = match dev.info().forward_progress {
                true => Some(program::<T>(dev, op, &opts(dev, Strategy::SinglePass), cap)?),
                false => None,
            };
            let chunked = match chunked_on(dev) {
                true => Some(program::<T>(dev, op, &opts(dev, Strategy::Chunked), cap)?),
                false => None,
            };
            let mut runs: Vec<(&str, Vec<T>)> = Vec::new();
            if op == GroupOp::Add {
                runs.push(("all -0.0", vec![neg_zero; max_n]));
                runs.push(("all -0.0 but the last", vec![neg_zero; max_n - 1]));
            } else {
                runs.push(("all NaN", (0..max_n).map(nan).collect()));
                runs.push(("all NaN but the last", (0..max_n - 1).map(nan).collect()));
                let mut xs: Vec<T> = (0..max_n).map(nan).collect();
                xs[max_n / 3] = neg_zero;
                runs.push(("NaN and one -0.0", xs));
            }
            for (what, xs) in runs {
                let what = format!("{} n = {} {what}", op.name(), xs.len());
                let a = run_one(dev, &multi, &xs, cap)?;
                check(&format!("multi-launch {what}"), &[a], &[reduce_tree(op, &xs, cap.log256())])?;
                if let Some(single) = &single {
                    let b = run_one(dev, single, &xs, cap)?;
                    // bit for bit, but for a NaN's sign and payload (the back end's: the
                    // interpreter keeps an operand's, PTX `min`/`max` return the canonical NaN)
                    if !T::same(a, b) {
                        return Err(format!("{what}: multi-launch {a:?}, single-pass {b:?}"));
                    }
                }
                if let Some(chunked) = &chunked {
                    // the same tree on the same device: bit for bit, NaN payloads included
                    let c = run_one(dev, chunked, &xs, cap)?;
                    if a.to_bits() != c.to_bits() {
                        return Err(format!("{what}: multi-launch {a:?}, chunked {c:?}"));
                    }
                }
            }
        }
    }
    Ok(())
}

fn huge(dev: &Device) -> Outcome {
    if dev.info().kind != DeviceKind::Cuda {
        return Ok(()); // 1 000 003 elements: cuda only (too slow for the interpreter and lavapipe)
    }
    let n = 1_000_003usize;
    let cap = Capacity::new(n as u64).map_err(|e| e.to_string())?;
    for strategy in strategies(dev) {
        let m = program::<i32>(dev, GroupOp::Add, &opts(dev, strategy), cap)?;
        let xs: Vec<i32> = input(Input::Random, n, 7);
        let got = run_one(dev, &m, &xs, cap)?;
        check(&format!("{strategy:?}"), &[got], &[reduce_tree(GroupOp::Add, &xs, cap.log256())])?;
    }
    Ok(())
}

fn short_scratch(dev: &Device) -> Outcome {
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let m = program::<u32>(dev, GroupOp::Add, &opts(dev, Strategy::Auto), cap)?;
    let xs: Vec<u32> = input(Input::Random, 1000, 1);
    let mut a = args(&xs, 1000, 1000, cap)?;
    a[2] = buf(&[0u32; 3]); // reduce_scratch_slots(1000, 2) = 4
    expect_check(run_raw(dev, &m, &mut a), "scratch")?;
    let mut a = args(&xs, 1000, 1000, cap)?;
    a[0] = buf(&xs[..999]);
    expect_check(run_raw(dev, &m, &mut a), "arr")
}

fn out_of_range(dev: &Device) -> Outcome {
    let cap = Capacity::new(300).map_err(|e| e.to_string())?;
    for strategy in strategies(dev) {
        let m = program::<f32>(dev, GroupOp::Max, &opts(dev, strategy), cap)?;
        let xs: Vec<f32> = input(Input::Random, 300, 2);
        for live in [301i64, -1, i64::from(i32::MIN)] {
            let mut a = args(&xs, 300, live, cap)?;
            expect_status(run_raw(dev, &m, &mut a))?;
            check(&format!("{strategy:?} out untouched (n = {live})"), &read::<f32>(&a[1]), &[f32::from_bits(0x5a)])?;
            let scratch: Vec<u32> = read(&a[2]);
            if scratch.iter().any(|&w| w != 0xdead_beef) {
                return Err(format!("{strategy:?} n = {live}: the scratch was written"));
            }
        }
    }
    Ok(())
}

fn build_errors() -> Outcome {
    let o = Options::new(algorithms::Target {
        subgroup_width: 32,
        forward_progress: false,
        class: algorithms::DeviceClass::Gpu,
    });
    let cap = Capacity::new(100).map_err(|e| e.to_string())?;
    let mut pb = ProgramBuilder::new("e");
    let b = pb.buffer("b", ScalarType::Bool);
    let f = pb.buffer("f", ScalarType::F32);
    let d = pb.buffer("d", ScalarType::F64);
    let u = pb.buffer("u", ScalarType::U32);
    let n = pb.buffer("n", ScalarType::I32);
    let nu = pb.buffer("nu", ScalarType::U32);
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &o, b, b, u, n, cap);
    expect_build_error(r, line, "`arr` must be a buffer of i32")?;
    let line = line!() + 1;
    let r = algorithms::reduce_min(&mut pb, &o, f, d, u, n, cap);
    expect_build_error(r, line, "`out` must be a buffer of f32")?;
    let line = line!() + 1;
    let r = algorithms::reduce_max(&mut pb, &o, d, f, u, n, cap);
    expect_build_error(r, line, "`out` must be a buffer of f64")?;
    let d2 = pb.buffer("d2", ScalarType::F64);
    let line = line!() + 1;
    let r = algorithms::reduce_max(&mut pb, &o, d, d2, u, n, cap);
    expect_build_error(r, line, "`scratch` must be a buffer of u64")?;
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &o, f, f, u, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &o, u, f, u, n, cap);
    expect_build_error(r, line, "`out` must be a buffer of u32")?;
    let u2 = pb.buffer("u2", ScalarType::U32);
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &o, u2, u, u, n, cap);
    expect_build_error(r, line, "must be distinct")?;
    let fout = pb.buffer("fout", ScalarType::F32);
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &o, f, fout, u, nu, cap);
    expect_build_error(r, line, "`n` must be a buffer of i32")?;
    let fs = o.with_strategy(Strategy::SinglePass);
    let f2 = pb.buffer("f2", ScalarType::F32);
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &fs, f, f2, u, n, cap);
    expect_build_error(r, line, "forward progress")?;
    Ok(())
}

/// [`Strategy::Chunked`] forced where it is not offered — a GPU target, a reduce-by-key of at
/// most 256 keys, a sort of capacity 0 — each a build error at the caller's line; where it is
/// offered (float reduce and scan, reduce-by-key above one tile, u32 reduce) it builds.
fn chunked_errors() -> Outcome {
    let target = |class| algorithms::Target { subgroup_width: 32, forward_progress: true, class };
    let gpu = Options::new(target(algorithms::DeviceClass::Gpu)).with_strategy(Strategy::Chunked);
    let cpu = Options::new(target(algorithms::DeviceClass::Cpu)).with_strategy(Strategy::Chunked);
    let cap = Capacity::new(1000).map_err(|e| e.to_string())?;
    let mut pb = ProgramBuilder::new("e");
    let u = pb.buffer("u", ScalarType::U32);
    let u2 = pb.buffer("u2", ScalarType::U32);
    let us = pb.buffer("us", ScalarType::U32);
    let f = pb.buffer("f", ScalarType::F32);
    let f2 = pb.buffer("f2", ScalarType::F32);
    let n = pb.buffer("n", ScalarType::I32);
    let line = line!() + 1;
    let r = algorithms::reduce_add(&mut pb, &gpu, u, u2, us, n, cap);
    expect_build_error(r, line, "Strategy::Chunked is the CPU form")?;
    // a float reduction is offered (the GPU form's tree, exactly)
    algorithms::reduce_min(&mut pb, &cpu, f, f2, us, n, cap).map_err(|e| e.to_string())?;
    // a float scan is offered too (the GPU form's order, exactly)
    algorithms::exclusive_scan_add(&mut pb, &cpu, f, f2, us, n, cap).map_err(|e| e.to_string())?;
    let (ko, vo, runs) =
        (pb.buffer("ko", ScalarType::U32), pb.buffer("vo", ScalarType::U32), pb.buffer("r", ScalarType::I32));
    // reduce-by-key: above one tile it is offered; at most 256 keys its scratch has no room
    algorithms::reduce_by_key_add(&mut pb, &cpu, u, u2, ko, vo, runs, us, n, cap).map_err(|e| e.to_string())?;
    let small = Capacity::new(200).map_err(|e| e.to_string())?;
    let line = line!() + 1;
    let r = algorithms::reduce_by_key_add(&mut pb, &cpu, u, u2, ko, vo, runs, us, n, small);
    expect_build_error(r, line, "a capacity of at most 256 keeps the GPU forms")?;
    // and a sort of capacity 0
    let (k1, k2) = (pb.buffer("k1", ScalarType::U32), pb.buffer("k2", ScalarType::U32));
    let none = Capacity::new(0).map_err(|e| e.to_string())?;
    let line = line!() + 1;
    let r = algorithms::sort(&mut pb, &cpu, k1, k2, None, us, n, 32, none);
    expect_build_error(r, line, "a capacity of 0 keeps the GPU forms")?;
    // and where it is offered, it builds: u32 reduce on a CPU target
    let o = pb.buffer("o", ScalarType::U32);
    algorithms::reduce_add(&mut pb, &cpu, u, o, us, n, cap).map_err(|e| e.to_string())
}
