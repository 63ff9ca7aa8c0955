//! Memory lowering end to end: loads and stores of every scalar type in global and shared memory
//! (uniform and varying pointers, negative and 64-bit indices), atomics (every op × type × space,
//! all lanes on one word and on a few words), `atomic.cas`, fences, `block.sync` across several
//! waves (block sizes that are and are not multiples of the wave), `block.sync_pred`, `nanosleep`,
//! and the LDS size limit. Each kernel runs on the simulator for every target and is compared bit
//! for bit with the MIR interpreter at the same wave width (`lower_util::check`).

mod lower_util;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::{CompileError, Opcode, ScalarType};

const TYPES: [(&str, ScalarType); 7] = [
    ("bool", ScalarType::Bool),
    ("i32", ScalarType::I32),
    ("u32", ScalarType::U32),
    ("f32", ScalarType::F32),
    ("i64", ScalarType::I64),
    ("u64", ScalarType::U64),
    ("f64", ScalarType::F64),
];

/// Edge-case bit patterns of a type, cycled to `n` elements (mixed with a per-index pattern).
fn values(ty: ScalarType, n: usize, salt: u64) -> Vec<u64> {
    let edge: &[u64] = match ty {
        ScalarType::Bool => &[0, 1, 1, 0, 1],
        ScalarType::I32 | ScalarType::U32 => &[0, 1, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 0xdead_beef],
        ScalarType::F32 => &[0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_1234, 0x0000_0001, 0x3f80_0000],
        ScalarType::I64 | ScalarType::U64 => {
            &[0, 1, 0x8000_0000_0000_0000, 0x7fff_ffff_ffff_ffff, u64::MAX, 0x0123_4567_89ab_cdef]
        }
        ScalarType::F64 => {
            &[0, 0x8000_0000_0000_0000, 0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0042, 1, 0x3ff0_0000_0000_0000]
        }
    };
    (0..n as u64)
        .map(|i| {
            let x = edge[(i as usize) % edge.len()];
            let mix = (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(salt);
            let x = if i as usize >= edge.len() { x ^ mix } else { x };
            match ty {
                ScalarType::Bool => x & 1,
                ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => x & 0xffff_ffff,
                ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => x,
            }
        })
        .collect()
}

fn buf(ty: ScalarType, bits: impl IntoIterator<Item = u64>) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(ty, bits))
}

fn zeros(ty: ScalarType, n: usize) -> ArgValue {
    buf(ty, std::iter::repeat_n(0, n))
}

/// A permutation of `0..n` that moves most elements to another wave.
fn perm(n: usize) -> Vec<u64> {
    (0..n as u64).map(|t| (t * 37 + 11) % n as u64).collect()
}

#[test]
fn global_load_store_every_type_varying_and_uniform_pointers() {
    for (name, ty) in TYPES {
        let src = format!(
            "kernel @ls(%a: ptr<global, {name}>, %b: ptr<global, {name}>, %c: ptr<global, {name}>) block(96, 1, 1) grid(1, 1, 1) {{
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, {name}>
  %2 = load %1 : {name}
  %3 = ptr.offset %b, %0 : ptr<global, {name}>
  store %3, %2
  %4 = const 5 : u32
  %5 = ptr.offset %a, %4 : ptr<global, {name}>
  %6 = load %5 : {name}
  %7 = ptr.offset %c, %0 : ptr<global, {name}>
  store %7, %6
  %8 = load %a : {name}
  store %c, %8
  return
}}
"
        );
        let f = kernel(&src);
        for t in targets() {
            check(&f, t, [1, 1, 1], &[buf(ty, values(ty, 96, 7)), zeros(ty, 96), zeros(ty, 96)]);
        }
    }
}

#[test]
fn bool_load_reads_any_nonzero_byte_as_true() {
    let f = kernel(
        "kernel @b(%a: ptr<global, bool>, %b: ptr<global, bool>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, bool>
  %2 = load %1 : bool
  %3 = ptr.offset %b, %0 : ptr<global, bool>
  store %3, %2
  return
}
",
    );
    for t in targets() {
        let mut a = Buffer::from_bits(ScalarType::Bool, std::iter::repeat_n(0, 64));
        for (i, b) in a.data.iter_mut().enumerate() {
            *b = [0u8, 1, 2, 0x80, 0xff][i % 5];
        }
        let got = check(&f, t, [1, 1, 1], &[ArgValue::Buffer(a), zeros(ScalarType::Bool, 64)]);
        let ArgValue::Buffer(b) = &got[1] else { panic!() };
        let want: Vec<u8> = (0..64).map(|i| u8::from(i % 5 != 0)).collect();
        assert_eq!(b.data, want, "{t}");
    }
}

#[test]
fn negative_and_64_bit_indices_global() {
    // Index types i32 / u32 / i64 / u64, varying (loaded) and uniform (constants), from a base in
    // the middle of the buffer.
    let f = kernel(
        "kernel @ix(%a: ptr<global, u32>, %i32: ptr<global, i32>, %i64: ptr<global, i64>, %u64: ptr<global, u64>, %o: ptr<global, u32>, %k: i32, %kk: i64) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 100 : u32
  %2 = ptr.offset %a, %1 : ptr<global, u32>
  %3 = ptr.offset %i32, %0 : ptr<global, i32>
  %4 = load %3 : i32
  %5 = ptr.offset %2, %4 : ptr<global, u32>
  %6 = load %5 : u32
  %7 = ptr.offset %i64, %0 : ptr<global, i64>
  %8 = load %7 : i64
  %9 = ptr.offset %2, %8 : ptr<global, u32>
  %10 = load %9 : u32
  %11 = ptr.offset %u64, %0 : ptr<global, u64>
  %12 = load %11 : u64
  %13 = ptr.offset %a, %12 : ptr<global, u32>
  %14 = load %13 : u32
  %15 = ptr.offset %2, %k : ptr<global, u32>
  %16 = load %15 : u32
  %17 = ptr.offset %2, %kk : ptr<global, u32>
  %18 = load %17 : u32
  %19 = const -3 : i32
  %20 = ptr.offset %2, %19 : ptr<global, u32>
  %21 = ptr.offset %20, %0 : ptr<global, u32>
  %22 = load %21 : u32
  %23 = const -9 : i64
  %24 = ptr.offset %2, %23 : ptr<global, u32>
  %25 = load %24 : u32
  %26 = add %6, %10 : u32
  %27 = add %26, %14 : u32
  %28 = add %27, %16 : u32
  %29 = add %28, %18 : u32
  %30 = add %29, %22 : u32
  %31 = add %30, %25 : u32
  %32 = ptr.offset %o, %0 : ptr<global, u32>
  store %32, %31
  return
}
",
    );
    for t in targets() {
        let a = buf(ScalarType::U32, (0..200u64).map(|i| i * i + 7));
        let i32s = buf(ScalarType::I32, (0..64i64).map(|i| ((i % 17) - 60) as u32 as u64));
        let i64s = buf(ScalarType::I64, (0..64i64).map(|i| (i - 99 + (i % 5) * 7) as u64));
        let u64s = buf(ScalarType::U64, (0..64u64).map(|i| 199 - i * 3));
        let args = [
            a,
            i32s,
            i64s,
            u64s,
            zeros(ScalarType::U32, 64),
            ArgValue::Scalar(ScalarType::I32, (-37i64) as u32 as u64),
            ArgValue::Scalar(ScalarType::I64, (-100i64) as u64),
        ];
        check(&f, t, [1, 1, 1], &args);
    }
}

#[test]
fn wide_elements_with_wide_indices() {
    // 8-byte elements: the index is scaled by 8 in 64 bits (a negative i64 index included).
    for (name, ty) in [("i64", ScalarType::I64), ("f64", ScalarType::F64)] {
        let src = format!(
            "kernel @w(%a: ptr<global, {name}>, %ix: ptr<global, i64>, %o: ptr<global, {name}>) block(64, 1, 1) grid(1, 1, 1) {{
  %0 = thread_id x : u32
  %1 = const 64 : u64
  %2 = ptr.offset %a, %1 : ptr<global, {name}>
  %3 = ptr.offset %ix, %0 : ptr<global, i64>
  %4 = load %3 : i64
  %5 = ptr.offset %2, %4 : ptr<global, {name}>
  %6 = load %5 : {name}
  %7 = ptr.offset %o, %0 : ptr<global, {name}>
  store %7, %6
  return
}}
"
        );
        let f = kernel(&src);
        for t in targets() {
            let ix = buf(ScalarType::I64, (0..64i64).map(|i| (i - 64 + (i * 7) % 64) as u64));
            check(&f, t, [1, 1, 1], &[buf(ty, values(ty, 128, 3)), ix, zeros(ty, 64)]);
        }
    }
}

fn shared_exchange_src(name: &str, n: u32, idx: &str) -> String {
    format!(
        "kernel @sx(%a: ptr<global, {name}>, %p: ptr<global, {idx}>, %o: ptr<global, {name}>) block({n}, 1, 1) grid(2, 1, 1) {{
  shared @pad: [u32; 3]
  shared @s: [{name}; {n}]
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, {name}>
  %2 = load %1 : {name}
  %3 = shared.addr @s : ptr<shared, {name}>
  %4 = ptr.offset %3, %0 : ptr<shared, {name}>
  store %4, %2
  block.sync
  %5 = ptr.offset %p, %0 : ptr<global, {idx}>
  %6 = load %5 : {idx}
  %7 = ptr.offset %3, %6 : ptr<shared, {name}>
  %8 = load %7 : {name}
  %9 = ptr.offset %o, %0 : ptr<global, {name}>
  store %9, %8
  return
}}
"
    )
}

#[test]
fn shared_exchange_every_type_across_waves() {
    for (name, ty) in TYPES {
        for n in [64u32, 100, 256] {
            let f = kernel(&shared_exchange_src(name, n, "u32"));
            for t in targets() {
                let args = [
                    buf(ty, values(ty, n as usize, 11)),
                    buf(ScalarType::U32, perm(n as usize)),
                    zeros(ty, n as usize),
                ];
                check(&f, t, [2, 1, 1], &args);
            }
        }
    }
}

#[test]
fn shared_indices_of_every_type() {
    for idx in ["i32", "u32", "i64", "u64"] {
        let f = kernel(&shared_exchange_src("u32", 128, idx));
        for t in targets() {
            let ity = match idx {
                "i32" => ScalarType::I32,
                "u32" => ScalarType::U32,
                "i64" => ScalarType::I64,
                _ => ScalarType::U64,
            };
            let args = [
                buf(ScalarType::U32, values(ScalarType::U32, 128, 5)),
                buf(ity, perm(128)),
                zeros(ScalarType::U32, 128),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
    // A negative index from a pointer into the middle of a shared array.
    let f = kernel(
        "kernel @neg(%a: ptr<global, u32>, %o: ptr<global, u32>, %k: i32) block(64, 1, 1) grid(1, 1, 1) {
  shared @s: [u32; 128]
  %0 = thread_id x : u32
  %1 = shared.addr @s : ptr<shared, u32>
  %2 = ptr.offset %1, %0 : ptr<shared, u32>
  %3 = ptr.offset %a, %0 : ptr<global, u32>
  %4 = load %3 : u32
  store %2, %4
  %5 = const 64 : u32
  %6 = ptr.offset %2, %5 : ptr<shared, u32>
  store %6, %0
  block.sync
  %7 = const 100 : u32
  %8 = ptr.offset %1, %7 : ptr<shared, u32>
  %9 = ptr.offset %8, %k : ptr<shared, u32>
  %10 = ptr.offset %9, %0 : ptr<shared, u32>
  %11 = load %10 : u32
  %12 = ptr.offset %o, %0 : ptr<global, u32>
  store %12, %11
  return
}
",
    );
    for t in targets() {
        let args = [
            buf(ScalarType::U32, values(ScalarType::U32, 64, 9)),
            zeros(ScalarType::U32, 64),
            ArgValue::Scalar(ScalarType::I32, (-70i64) as u32 as u64),
        ];
        check(&f, t, [1, 1, 1], &args);
    }
}

#[test]
fn block_sync_makes_global_writes_visible_to_the_block() {
    for n in [64u32, 96, 100, 256] {
        let f = kernel(&format!(
            "kernel @gv(%a: ptr<global, u32>, %b: ptr<global, u32>, %p: ptr<global, u32>, %o: ptr<global, u32>) block({n}, 1, 1) grid(1, 1, 1) {{
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = add %2, %0 : u32
  %4 = ptr.offset %b, %0 : ptr<global, u32>
  store %4, %3
  block.sync
  %5 = ptr.offset %p, %0 : ptr<global, u32>
  %6 = load %5 : u32
  %7 = ptr.offset %b, %6 : ptr<global, u32>
  %8 = load %7 : u32
  %9 = ptr.offset %o, %0 : ptr<global, u32>
  store %9, %8
  block.sync
  store %4, %0
  return
}}
"
        ));
        for t in targets() {
            let n = n as usize;
            let args = [
                buf(ScalarType::U32, values(ScalarType::U32, n, 1)),
                zeros(ScalarType::U32, n),
                buf(ScalarType::U32, perm(n)),
                zeros(ScalarType::U32, n),
            ];
            check(&f, t, [1, 1, 1], &args);
        }
    }
}

// ----- atomics -------------------------------------------------------------------------------

/// `atomic.rmw OP SCOPE` in global or shared memory: every lane on word 0 (`one`), or on the
/// word its index buffer names. The old values are written out, and for shared memory also the
/// final words (global words are the buffer `%g` itself).
fn rmw_src(op: &str, name: &str, shared: bool, one: bool, n: u32) -> String {
    let word = if one { "%c0" } else { "%10" };
    let (scope, decl, at, init, fin) = if shared {
        (
            "block",
            format!("  shared @s: [{name}; 8]\n"),
            "%w",
            format!(
                "  %b = shared.addr @s : ptr<shared, {name}>\n  %w = ptr.offset %b, {word} : ptr<shared, {name}>\n  %12 = load %gi : {name}\n  store %w, %12\n  block.sync\n"
            ),
            format!("  block.sync\n  %20 = load %w : {name}\n  %21 = ptr.offset %f, %0 : ptr<global, {name}>\n  store %21, %20\n"),
        )
    } else {
        ("device", String::new(), "%gi", String::new(), String::new())
    };
    format!(
        "kernel @rmw(%g: ptr<global, {name}>, %v: ptr<global, {name}>, %ix: ptr<global, u32>, %o: ptr<global, {name}>, %f: ptr<global, {name}>) block({n}, 1, 1) grid(1, 1, 1) {{
{decl}  %0 = thread_id x : u32
  %c0 = const 0 : u32
  %9 = ptr.offset %ix, %0 : ptr<global, u32>
  %10 = load %9 : u32
  %gi = ptr.offset %g, {word} : ptr<global, {name}>
{init}  %1 = ptr.offset %v, %0 : ptr<global, {name}>
  %2 = load %1 : {name}
  %3 = atomic.rmw {op} {scope} {at}, %2 : {name}
  %4 = ptr.offset %o, %0 : ptr<global, {name}>
  store %4, %3
{fin}  return
}}
"
    )
}

/// Which (op, type, space) have a lowering on `arch` today.
fn rmw_supported(_op: &str, _ty: ScalarType, _shared: bool, _arch: Arch) -> bool {
    true
}

fn rmw_types(op: &str) -> Vec<(&'static str, ScalarType)> {
    TYPES
        .into_iter()
        .filter(|(_, ty)| match op {
            "add" => *ty != ScalarType::Bool && *ty != ScalarType::F64,
            "exch" => *ty != ScalarType::Bool,
            _ => ty.is_int(),
        })
        .collect()
}

fn run_rmw(op: &str, shared: bool, one: bool, n: u32) {
    for (name, ty) in rmw_types(op) {
        let f = kernel(&rmw_src(op, name, shared, one, n));
        for t in targets() {
            let nn = n as usize;
            // Small values for float adds keep the sums interesting (no inf - inf).
            let vals = if ty == ScalarType::F32 {
                (0..nn as u64).map(|i| f32::to_bits(((i % 13) as f32 - 6.0) * 0.37) as u64).collect()
            } else {
                values(ty, nn, 17)
            };
            let init = if ty == ScalarType::F32 { vec![0x3f80_0000; 8] } else { values(ty, 8, 23) };
            let ix: Vec<u64> = (0..nn as u64).map(|i| (i * 5 + i / 7) % 8).collect();
            let args = [buf(ty, init), buf(ty, vals), buf(ScalarType::U32, ix), zeros(ty, nn), zeros(ty, nn)];
            if rmw_supported(op, ty, shared, t.arch) {
                check(&f, t, [1, 1, 1], &args);
            } else {
                let e = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap_err();
                let CompileError::Unsupported { op: Some(o), ty: Some(ty), at: Some(_), .. } = &e else {
                    panic!("{t} {op} {name}: not an Unsupported error naming the op, type and instruction: {e}")
                };
                assert_eq!(*o, Opcode::AtomicRmw, "{t} {op} {name}: {e}");
                assert_eq!(ty.to_string(), name, "{t} {op} {name}: {e}");
            }
        }
    }
}

#[test]
fn atomic_rmw_global_one_word() {
    for op in ["add", "min", "max", "and", "or", "xor", "exch"] {
        run_rmw(op, false, true, 64);
    }
}

#[test]
fn atomic_rmw_global_several_words_several_waves() {
    for op in ["add", "min", "max", "and", "or", "xor", "exch"] {
        run_rmw(op, false, false, 160);
    }
}

#[test]
fn atomic_rmw_shared_one_word() {
    for op in ["add", "min", "max", "and", "or", "xor", "exch"] {
        run_rmw(op, true, true, 64);
    }
}

#[test]
fn atomic_rmw_shared_several_words_several_waves() {
    for op in ["add", "min", "max", "and", "or", "xor", "exch"] {
        run_rmw(op, true, false, 160);
    }
}

/// Adding 1 from every thread of several blocks to one word: whatever order the lanes and waves
/// take, the old values are a permutation of 0..threads and the word ends at `threads`.
#[test]
fn atomic_add_contention_old_values_are_a_permutation() {
    for shared in [false, true] {
        let (scope, decl, ptr, fin) = if shared {
            (
                "block",
                "  shared @s: [u32; 1]\n",
                "  %w = shared.addr @s : ptr<shared, u32>\n  store %w, %c0\n  block.sync\n",
                "  block.sync\n  %20 = load %w : u32\n  %21 = ptr.offset %f, %0 : ptr<global, u32>\n  store %21, %20\n",
            )
        } else {
            ("device", "", "  %w = ptr.offset %g, %c0 : ptr<global, u32>\n", "")
        };
        let f = kernel(&format!(
            "kernel @cnt(%g: ptr<global, u32>, %o: ptr<global, u32>, %f: ptr<global, u32>) block(256, 1, 1) grid(1, 1, 1) {{
{decl}  %0 = thread_id x : u32
  %c0 = const 0 : u32
  %c1 = const 1 : u32
{ptr}  %3 = atomic.rmw add {scope} %w, %c1 : u32
  %4 = ptr.offset %o, %0 : ptr<global, u32>
  store %4, %3
{fin}  return
}}
"
        ));
        for t in targets() {
            let k = compile(&f, t);
            let mut args = vec![zeros(ScalarType::U32, 1), zeros(ScalarType::U32, 256), zeros(ScalarType::U32, 256)];
            runner::run(&k, [1, 1, 1], &mut args, None, &SimOptions::default())
                .unwrap_or_else(|e| panic!("{t}: {e}\n{}", k.asm()));
            let bits = |a: &ArgValue| match a {
                ArgValue::Buffer(b) => b.to_bits(),
                ArgValue::Scalar(..) => unreachable!(),
            };
            let mut olds = bits(&args[1]);
            olds.sort_unstable();
            assert_eq!(olds, (0..256).collect::<Vec<u64>>(), "{t} shared={shared}");
            if shared {
                assert!(bits(&args[2]).iter().all(|&x| x == 256), "{t}");
            } else {
                assert_eq!(bits(&args[0]), vec![256], "{t}");
            }
        }
    }
}

#[test]
fn atomic_cas_both_spaces() {
    let types =
        [("i32", ScalarType::I32), ("u32", ScalarType::U32), ("i64", ScalarType::I64), ("u64", ScalarType::U64)];
    for (name, ty) in types {
        for shared in [false, true] {
            let (scope, decl, ptr, fin) = if shared {
                (
                    "block",
                    format!("  shared @s: [{name}; 4]\n"),
                    format!(
                        "  %a = shared.addr @s : ptr<shared, {name}>\n  %w = ptr.offset %a, %10 : ptr<shared, {name}>\n  %12 = load %g : {name}\n  store %w, %12\n  block.sync\n"
                    ),
                    format!(
                        "  block.sync\n  %20 = load %w : {name}\n  %21 = ptr.offset %f, %0 : ptr<global, {name}>\n  store %21, %20\n"
                    ),
                )
            } else {
                ("device", String::new(), format!("  %w = ptr.offset %g, %10 : ptr<global, {name}>\n"), String::new())
            };
            let f = kernel(&format!(
                "kernel @cas(%g: ptr<global, {name}>, %e: ptr<global, {name}>, %n: ptr<global, {name}>, %ix: ptr<global, u32>, %o: ptr<global, {name}>, %f: ptr<global, {name}>) block(128, 1, 1) grid(1, 1, 1) {{
{decl}  %0 = thread_id x : u32
  %9 = ptr.offset %ix, %0 : ptr<global, u32>
  %10 = load %9 : u32
{ptr}  %1 = ptr.offset %e, %0 : ptr<global, {name}>
  %2 = load %1 : {name}
  %3 = ptr.offset %n, %0 : ptr<global, {name}>
  %4 = load %3 : {name}
  %5 = atomic.cas {scope} %w, %2, %4 : {name}
  %6 = ptr.offset %o, %0 : ptr<global, {name}>
  store %6, %5
{fin}  return
}}
"
            ));
            for t in targets() {
                // Lane l expects l (or a miss on every third lane) and stores l + 1: chains of
                // successes per word, broken by the misses.
                let e: Vec<u64> = (0..128u64).map(|l| if l % 3 == 2 { 0xffff_ffff } else { l / 4 }).collect();
                let nv: Vec<u64> = (0..128u64).map(|l| l / 4 + 1).collect();
                let ix: Vec<u64> = (0..128u64).map(|l| l % 4).collect();
                let args = [
                    buf(ty, [0, 0, 0, 0]),
                    buf(ty, e),
                    buf(ty, nv),
                    buf(ScalarType::U32, ix),
                    zeros(ty, 128),
                    zeros(ty, 128),
                ];
                check(&f, t, [1, 1, 1], &args);
            }
        }
    }
}

/// 64-bit global `atomic.cas` takes its data in the fixed VGPR quad, which shifts the
/// allocated VGPRs up by four: the listing names `v[6:9]`.
#[test]
fn atomic_cas_64_bit_global_uses_the_vgpr_quad() {
    let f = kernel(
        "kernel @c(%g: ptr<global, u64>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = const 1 : u64
  %1 = atomic.cas device %g, %0, %0 : u64
  store %g, %1
  return
}
",
    );
    for t in targets() {
        let k = compile_kernel(&f, &AmdgcnOptions::new(t)).expect("compiles");
        assert!(k.asm().contains("v[6:9]"), "{t}:\n{}", k.asm());
    }
}

// ----- fences, barriers, sleep ---------------------------------------------------------------

#[test]
fn fences_keep_values_and_emit_the_memory_model_sequences() {
    for scope in ["subgroup", "block", "device"] {
        let f = kernel(&format!(
            "kernel @fe(%a: ptr<global, u32>, %b: ptr<global, u32>) block(128, 1, 1) grid(1, 1, 1) {{
  shared @s: [u32; 128]
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = shared.addr @s : ptr<shared, u32>
  %4 = ptr.offset %3, %0 : ptr<shared, u32>
  store %4, %2
  %5 = ptr.offset %b, %0 : ptr<global, u32>
  store %5, %2
  fence {scope}
  %6 = load %4 : u32
  %7 = load %5 : u32
  %8 = add %6, %7 : u32
  store %1, %8
  return
}}
"
        ));
        for t in targets() {
            check(
                &f,
                t,
                [1, 1, 1],
                &[buf(ScalarType::U32, values(ScalarType::U32, 128, 2)), zeros(ScalarType::U32, 128)],
            );
            let asm = compile(&f, t).asm();
            let want: &[&str] = match (scope, t.arch) {
                ("subgroup", _) => &[],
                ("block", Arch::Gfx1100) => &["buffer_gl0_inv", "s_waitcnt_vscnt"],
                ("block", _) => &["lgkmcnt(0)"],
                ("device", Arch::Gfx90a) => &["vmcnt(0) lgkmcnt(0)", "buffer_wbinvl1_vol"],
                ("device", Arch::Gfx942) => &["buffer_wbl2 sc1", "vmcnt(0) lgkmcnt(0)", "buffer_inv sc1"],
                ("device", _) => &["vmcnt(0) lgkmcnt(0)", "s_waitcnt_vscnt", "buffer_gl1_inv", "buffer_gl0_inv"],
                _ => unreachable!(),
            };
            for w in want {
                assert!(asm.contains(w), "{t} fence {scope}: no `{w}` in\n{asm}");
            }
            if scope == "subgroup" {
                // A subgroup fence emits nothing: the kernel without it compiles the same (the
                // entry's shared-memory zero-fill and its barrier are in both).
                let text = format!("{f}");
                let src = text.replace("  fence subgroup\n", "");
                assert_ne!(src, text, "the printed kernel has the fence line");
                let without = compile(&kernel(&src), t).asm();
                assert_eq!(asm, without, "{t} fence subgroup emitted code");
            }
        }
    }
}

fn sync_pred_src(n: u32, op1: &str, op2: &str) -> String {
    let ty = |op: &str| if op == "count" { "u32" } else { "bool" };
    let (t1, t2) = (ty(op1), ty(op2));
    format!(
        "kernel @sp(%p: ptr<global, bool>, %q: ptr<global, bool>, %o1: ptr<global, {t1}>, %o2: ptr<global, {t2}>, %o3: ptr<global, u32>) block({n}, 1, 1) grid(2, 1, 1) {{
  %0 = thread_id x : u32
  %1 = ptr.offset %p, %0 : ptr<global, bool>
  %2 = load %1 : bool
  %3 = block.sync_pred {op1} %2 : {t1}
  %4 = ptr.offset %o1, %0 : ptr<global, {t1}>
  store %4, %3
  %5 = ptr.offset %q, %0 : ptr<global, bool>
  %6 = load %5 : bool
  %7 = block.sync_pred {op2} %6 : {t2}
  %8 = ptr.offset %o2, %0 : ptr<global, {t2}>
  store %8, %7
  %9 = block.sync_pred count %6 : u32
  %10 = ptr.offset %o3, %0 : ptr<global, u32>
  store %10, %9
  return
}}
"
    )
}

#[test]
fn block_sync_pred_and_or_count() {
    type Pattern = (&'static str, fn(usize) -> u64);
    let patterns: [Pattern; 5] = [
        ("all", |_| 1),
        ("none", |_| 0),
        ("one", |i| u64::from(i == 77)),
        ("all but one", |i| u64::from(i != 3)),
        ("mixed", |i| u64::from((i * 7) % 5 < 2)),
    ];
    for n in [64u32, 100, 256] {
        for (op1, op2) in [("and", "or"), ("or", "count"), ("count", "and")] {
            let f = kernel(&sync_pred_src(n, op1, op2));
            let ty = |op: &str| if op == "count" { ScalarType::U32 } else { ScalarType::Bool };
            for (pname, pat) in &patterns {
                for (qname, qat) in &patterns {
                    if pname == qname && *pname != "mixed" {
                        continue;
                    }
                    let n = n as usize;
                    for t in targets() {
                        let args = [
                            buf(ScalarType::Bool, (0..n).map(*pat)),
                            buf(ScalarType::Bool, (0..n).map(*qat)),
                            zeros(ty(op1), n),
                            zeros(ty(op2), n),
                            zeros(ScalarType::U32, n),
                        ];
                        check(&f, t, [2, 1, 1], &args);
                    }
                }
            }
        }
    }
}

#[test]
fn block_sync_pred_shares_one_zeroed_lds_word() {
    let f = kernel(&sync_pred_src(64, "and", "or"));
    for t in targets() {
        let k = compile(&f, t);
        assert_eq!(k.resources.group_segment_size, 4, "{t}: one reserved word");
        // the entry zeroes it behind a barrier: 1 + 2 per block.sync_pred
        assert_eq!(k.asm().matches("s_barrier").count(), 7, "{t}\n{}", k.asm());
    }
}

#[test]
fn nanosleep_sleeps_without_changing_values() {
    let f = kernel(
        "kernel @ns(%a: ptr<global, u32>, %d: u32) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %a, %0 : ptr<global, u32>
  %2 = const 1000 : u32
  nanosleep %2
  nanosleep %d
  %3 = const 100000 : u32
  nanosleep %3
  store %1, %0
  return
}
",
    );
    for t in targets() {
        check(&f, t, [1, 1, 1], &[zeros(ScalarType::U32, 64), ArgValue::Scalar(ScalarType::U32, 5000)]);
        let asm = compile(&f, t).asm();
        for w in ["s_sleep 32", "s_sleep 1", "s_sleep 0x7f"] {
            assert!(asm.contains(w), "{t}: no `{w}` in\n{asm}");
        }
    }
}

#[test]
fn lds_over_64k_is_a_verifier_error_and_64k_fits() {
    // Declared shared arrays over 64 KiB are the verifier's to reject.
    let declared = kernel(
        "kernel @big(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  shared @s: [u32; 16385]
  %0 = thread_id x : u32
  %1 = shared.addr @s : ptr<shared, u32>
  %2 = ptr.offset %1, %0 : ptr<shared, u32>
  store %2, %0
  return
}
",
    );
    for t in targets() {
        let e = compile_kernel(&declared, &AmdgcnOptions::new(t)).unwrap_err();
        assert!(matches!(&e, CompileError::Verify { rendered, .. } if rendered.contains("65540")), "{e}");
    }
    // 64 KiB declared plus the LDS word of `block.sync_pred` is the back end's `Limit`
    // (tests/compile_errors.rs).
    // Exactly 64 KiB is fine.
    let ok = kernel(
        "kernel @fits(%a: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  shared @s: [u32; 16384]
  %0 = thread_id x : u32
  %1 = shared.addr @s : ptr<shared, u32>
  %2 = ptr.offset %1, %0 : ptr<shared, u32>
  store %2, %0
  %3 = load %2 : u32
  %4 = ptr.offset %a, %0 : ptr<global, u32>
  store %4, %3
  return
}
",
    );
    for t in targets() {
        check(&ok, t, [1, 1, 1], &[zeros(ScalarType::U32, 64)]);
    }
}

/// Global f32 `atomic.rmw add`: native on gfx942, a compare-and-swap loop on gfx90a and gfx1100
/// (their global f32 atomics ignore the IEEE denormal mode). Run under a divergent `if` (only the
/// flagged lanes add), with denormals, signed zeros and a NaN among the addends, all lanes of
/// several waves on two words.
#[test]
fn global_f32_add_cas_loop_under_divergence() {
    let f = kernel(
        "kernel @fa(%g: ptr<global, f32>, %v: ptr<global, f32>, %c: ptr<global, bool>, %ix: ptr<global, u32>, %o: ptr<global, f32>) block(160, 1, 1) grid(2, 1, 1) {
  %t = thread_id x : u32
  %cp = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %cp : bool
  %vp = ptr.offset %v, %t : ptr<global, f32>
  %vv = load %vp : f32
  %ip = ptr.offset %ix, %t : ptr<global, u32>
  %iv = load %ip : u32
  %w = ptr.offset %g, %iv : ptr<global, f32>
  %op = ptr.offset %o, %t : ptr<global, f32>
  if %cv {
    %old = atomic.rmw add device %w, %vv : f32
    store %op, %old
    yield
  } else {
    yield
  }
  return
}
",
    );
    for t in targets() {
        let asm = compile(&f, t).asm();
        if t.arch == Arch::Gfx942 {
            assert!(asm.contains("global_atomic_add_f32") && !asm.contains("cmpswap"), "{t}\n{asm}");
        } else {
            assert!(asm.contains("global_atomic_cmpswap") && asm.contains("s_cbranch_execnz"), "{t}\n{asm}");
        }
        for (nan_lane, every) in [(None, 2u64), (Some(77usize), 3)] {
            let vals: Vec<u64> = (0..160usize)
                .map(|i| match i % 6 {
                    _ if Some(i) == nan_lane => 0x7fc0_0042,
                    0 => 0x0000_0003, // denormal
                    1 => 0x8000_0000, // -0
                    2 => 0x0080_0000, // smallest normal
                    3 => f32::to_bits(1.5) as u64,
                    4 => 0x8000_0001, // negative denormal
                    _ => f32::to_bits(-0.25) as u64,
                })
                .collect();
            let flags: Vec<u64> = (0..160u64).map(|i| u64::from((i * 7 + 3) % every != 0)).collect();
            let ix: Vec<u64> = (0..160u64).map(|i| i % 2).collect();
            let args = [
                buf(ScalarType::F32, [0x8000_0000, 0x0000_0001]),
                buf(ScalarType::F32, vals),
                buf(ScalarType::Bool, flags),
                buf(ScalarType::U32, ix),
                zeros(ScalarType::F32, 160),
            ];
            check(&f, t, [2, 1, 1], &args);
        }
    }
}

/// The CAS loop and the LDS atomics keep their values when registers are scarce (spills inside
/// the divergent loop block are whole-wave).
#[test]
fn atomics_under_a_small_register_budget() {
    let f = kernel(&rmw_src("add", "f32", false, false, 128));
    for t in targets() {
        let mut o = AmdgcnOptions::new(t);
        o.check_regalloc = true;
        o.max_vgprs = 16;
        let vals: Vec<u64> = (0..128u64).map(|i| f32::to_bits(i as f32 * 0.5 - 3.0) as u64).collect();
        let ix: Vec<u64> = (0..128u64).map(|i| (i * 3) % 8).collect();
        let args = [
            buf(ScalarType::F32, vec![0; 8]),
            buf(ScalarType::F32, vals),
            buf(ScalarType::U32, ix),
            zeros(ScalarType::F32, 128),
            zeros(ScalarType::F32, 128),
        ];
        let (_, k) = check_kernel(&f, &o, [1, 1, 1], &args);
        if t.arch != Arch::Gfx942 {
            assert!(k.spill_bytes_per_lane > 0, "{t}: the budget should force spills in the CAS loop");
        }
    }
}
