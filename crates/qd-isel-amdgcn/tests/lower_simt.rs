//! Index and subgroup ops compiled for every AMD target and run on the simulator, compared bit
//! for bit with the MIR interpreter at the same wave width: `lane_id`, `subgroup_id`,
//! `subgroup_size`, `lanemask.*`, shuffles, `broadcast`, ballots, `match.*`, `activemask`,
//! `elect`, votes, reductions, scans and segmented reductions, over every type and tile, with
//! full and partial waves (block sizes that leave the last wave partly filled) and uniform and
//! varying lane operands.

mod lower_util;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::ScalarType;

const TYPES: [ScalarType; 7] = [
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::F32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F64,
    ScalarType::Bool,
];

/// Block sizes: one full wave64, a partial wave64 (two full wave32s plus a partial one at
/// width 32 would be 72), and a size with a partial last wave at both widths.
const BLOCKS: [u32; 3] = [64, 40, 100];

/// A tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11 ^ self.0 << 17
    }
}

/// Values of `ty` with edge cases mixed in. `tame`: floats finite and small (no NaN/inf, so
/// sums and products never create a NaN whose payload the host and the device choose
/// differently).
fn values(ty: ScalarType, n: usize, seed: u64, tame: bool) -> Vec<u64> {
    let mut r = Rng(seed);
    let f32s: [f32; 10] = [0.0, -0.0, 1.5, -2.25, f32::MIN_POSITIVE / 4.0, 3.0, -7.0, 0.125, 1.0, 2.0];
    let f32_wild: [u32; 6] = [0x7f80_0000, 0xff80_0000, 0x7fc0_1234, 0x7f80_0001, 0xffc0_0000, 0x8000_0000];
    let f64s: [f64; 10] = [0.0, -0.0, 1.5, -2.25, f64::MIN_POSITIVE / 4.0, 3.0, -7.0, 0.125, 1.0, 2.0];
    let f64_wild: [u64; 5] =
        [0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0x7ff8_0000_0000_1234, 0x7ff0_0000_0000_0001, 1 << 63];
    (0..n)
        .map(|i| {
            let x = r.next();
            match ty {
                ScalarType::Bool => x & 1,
                ScalarType::I32 | ScalarType::U32 => match x % 8 {
                    0 => 0x8000_0000,
                    1 => 0x7fff_ffff,
                    2 => 0xffff_ffff,
                    3 => 0,
                    4 => (i as u64) % 5,
                    _ => (x >> 7) & 0xffff_ffff,
                },
                ScalarType::I64 | ScalarType::U64 => match x % 8 {
                    0 => 1 << 63,
                    1 => i64::MAX as u64,
                    2 => u64::MAX,
                    3 => 0,
                    4 => (i as u64) % 5,
                    _ => x.rotate_left(13),
                },
                ScalarType::F32 => {
                    if !tame && x.is_multiple_of(4) {
                        u64::from(f32_wild[(x >> 5) as usize % f32_wild.len()])
                    } else {
                        u64::from(f32s[(x >> 9) as usize % f32s.len()].to_bits())
                    }
                }
                ScalarType::F64 => {
                    if !tame && x.is_multiple_of(4) {
                        f64_wild[(x >> 5) as usize % f64_wild.len()]
                    } else {
                        f64s[(x >> 9) as usize % f64s.len()].to_bits()
                    }
                }
            }
        })
        .collect()
}

/// A kernel over one block: `%x` = a[tid] : T, `%dv` = d[tid] : u32, `%u` a u32 parameter; the
/// body `op` (MIR text defining `%r : R`) is stored to o[tid].
fn kernel_text(body: &str, ty: ScalarType, out: ScalarType, block: u32) -> String {
    format!(
        "kernel @k(%a: ptr<global, {ty}>, %d: ptr<global, u32>, %o: ptr<global, {out}>, %u: u32) block({block}, 1, 1) grid(1, 1, 1) {{
  %t = thread_id x : u32
  %pa = ptr.offset %a, %t : ptr<global, {ty}>
  %x = load %pa : {ty}
  %pd = ptr.offset %d, %t : ptr<global, u32>
  %dv = load %pd : u32
{body}
  %po = ptr.offset %o, %t : ptr<global, {out}>
  store %po, %r
  return
}}
"
    )
}

/// Compiles and checks `body` on every target and block size with generated inputs.
fn check_op(body: &str, ty: ScalarType, out: ScalarType, tame: bool, ds: &dyn Fn(usize) -> u64, u: u32) {
    check_op_where(body, ty, out, tame, ds, u, &|_, _| true);
}

/// [`check_op`] on the (target, block size) pairs `keep` accepts.
fn check_op_where(
    body: &str,
    ty: ScalarType,
    out: ScalarType,
    tame: bool,
    ds: &dyn Fn(usize) -> u64,
    u: u32,
    keep: &dyn Fn(qd_isel_amdgcn::Target, u32) -> bool,
) {
    for block in BLOCKS {
        let f = kernel(&kernel_text(body, ty, out, block));
        let n = block as usize;
        for t in targets().into_iter().filter(|&t| keep(t, block)) {
            let xs = values(ty, n, u64::from(block) * 31 + ty.bits() as u64, tame);
            let a = Buffer::from_bits(ty, xs);
            let d = Buffer::from_bits(ScalarType::U32, (0..n).map(ds));
            let o = Buffer::from_bits(out, std::iter::repeat_n(0, n));
            let args = [
                ArgValue::Buffer(a),
                ArgValue::Buffer(d),
                ArgValue::Buffer(o),
                ArgValue::Scalar(ScalarType::U32, u64::from(u)),
            ];
            check_lanes(&f, t, &args, &format!("{t} block {block}: {body} ({ty})"));
        }
    }
}

/// [`check`], first comparing the output buffer lane by lane to name the lanes that differ.
fn check_lanes(f: &qd_mir::Function, t: qd_isel_amdgcn::Target, args: &[ArgValue], what: &str) {
    let k = compile(f, t);
    let mut want = args.to_vec();
    let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some([1, 1, 1]), ..RunConfig::default() };
    qd_mir::interp::run_kernel(f, &cfg, &mut want).unwrap_or_else(|e| panic!("{what}: interpreter: {e}"));
    let mut got = args.to_vec();
    runner::run(&k, [1, 1, 1], &mut got, None, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{what}: simulator: {e}\n{}", k.asm()));
    let (ArgValue::Buffer(g), ArgValue::Buffer(w), ArgValue::Buffer(x)) = (&got[2], &want[2], &args[0]) else {
        panic!("buffers")
    };
    let (g, w, x) = (g.to_bits(), w.to_bits(), x.to_bits());
    let bad: Vec<String> = (0..g.len())
        .filter(|&i| g[i] != w[i])
        .take(6)
        .map(|i| format!("lane {i}: got {:#x} want {:#x} (x = {:#x})", g[i], w[i], x[i]))
        .collect();
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

#[test]
fn lane_indices_and_masks() {
    check_op("  %r = lane_id : u32", ScalarType::U32, ScalarType::U32, true, &|_| 0, 0);
    check_op("  %r = subgroup_id : u32", ScalarType::U32, ScalarType::U32, true, &|_| 0, 0);
    check_op("  %r = subgroup_size : u32", ScalarType::U32, ScalarType::U32, true, &|_| 0, 0);
    for m in ["lt", "le", "eq", "ge", "gt"] {
        check_op(&format!("  %r = lanemask.{m} : u64"), ScalarType::U32, ScalarType::U64, true, &|_| 0, 0);
    }
}

#[test]
fn subgroup_id_in_a_3d_block() {
    // o[tx + 4·ty + 12·tz] = subgroup_id, the offsets built from repeated ptr.offset.
    let mut body = String::from(
        "kernel @k(%o: ptr<global, u32>) block(4, 3, 5) grid(1, 1, 1) {
  %tx = thread_id x : u32
  %ty = thread_id y : u32
  %tz = thread_id z : u32
  %p0 = ptr.offset %o, %tx : ptr<global, u32>
",
    );
    let mut last = "p0".to_string();
    for k in 0..4 {
        body.push_str(&format!("  %py{k} = ptr.offset %{last}, %ty : ptr<global, u32>\n"));
        last = format!("py{k}");
    }
    for k in 0..12 {
        body.push_str(&format!("  %pz{k} = ptr.offset %{last}, %tz : ptr<global, u32>\n"));
        last = format!("pz{k}");
    }
    body.push_str(&format!("  %s = subgroup_id : u32\n  store %{last}, %s\n  return\n}}\n"));
    let f = kernel(&body);
    for t in targets() {
        let o = Buffer::from_bits(ScalarType::U32, std::iter::repeat_n(0, 60));
        let got = check(&f, t, [1, 1, 1], &[ArgValue::Buffer(o)]);
        let ArgValue::Buffer(b) = &got[0] else { panic!() };
        let w = t.wave.lanes() as u64;
        let want: Vec<u64> = (0..60u64).map(|i| i / w).collect();
        assert_eq!(b.to_bits(), want, "{t}");
    }
}

#[test]
fn shuffles_every_type() {
    let deltas: [(&str, &dyn Fn(usize) -> u64); 4] = [
        ("small", &|i| (i as u64 * 7 + 3) % 9),
        ("wide", &|i| (i as u64 * 13) % 70),
        ("huge", &|i| if i % 3 == 0 { 0xffff_ffff } else { 0xffff_ffc0 + (i as u64 % 64) }),
        ("pow2", &|i| 1 << (i % 6)),
    ];
    for ty in TYPES {
        for op in ["shuffle.idx", "shuffle.up", "shuffle.down", "shuffle.xor"] {
            for (_, ds) in deltas {
                check_op(&format!("  %r = {op} %x, %dv : {ty}"), ty, ty, false, ds, 0);
            }
            // Uniform operand (a parameter), including out-of-range ones.
            for u in [0u32, 1, 5, 33, 63, 64, 0xffff_ffff] {
                check_op(&format!("  %r = {op} %x, %u : {ty}"), ty, ty, false, &|_| 0, u);
                check_op(&format!("  %l = const {u} : u32\n  %r = {op} %x, %l : {ty}"), ty, ty, false, &|_| 0, u);
            }
        }
    }
}

/// `broadcast` from a lane that exists in every wave of the block. A lane past the end of the
/// block (the partial last wave) never wrote its registers: the interpreter reads 0 there
/// (its registers start at 0) but a GPU reads whatever the register file held — the simulator
/// poisons it — so those lanes are not a defined source.
#[test]
fn broadcast_every_type() {
    for ty in TYPES {
        for u in [0u32, 3, 31, 39, 70] {
            let live = |t: qd_isel_amdgcn::Target, block: u32| {
                let w = t.wave.lanes();
                block.is_multiple_of(w) || u % w < block % w
            };
            let body = format!("  %l = const {u} : u32\n  %r = broadcast %x, %l : {ty}");
            check_op_where(&body, ty, ty, false, &|_| 0, u, &live);
        }
    }
}

#[test]
fn ballots_activemask_elect() {
    for n in [1, 5, 16, 32] {
        check_op(&format!("  %r = ballot.first_n {n} %x : u32"), ScalarType::Bool, ScalarType::U32, true, &|_| 0, 0);
    }
    check_op("  %r = ballot %x : u64", ScalarType::Bool, ScalarType::U64, true, &|_| 0, 0);
    check_op("  %r = activemask : u64", ScalarType::U32, ScalarType::U64, true, &|_| 0, 0);
    check_op("  %r = elect : bool", ScalarType::U32, ScalarType::Bool, true, &|_| 0, 0);
}

/// The group operators that apply to a type (the verifier's rule), and to segmented reductions.
fn ops_for(ty: ScalarType, segmented: bool) -> Vec<&'static str> {
    let all = match ty {
        ScalarType::F32 | ScalarType::F64 => vec!["add", "mul", "min", "max"],
        ScalarType::Bool => vec!["min", "max", "and", "or", "xor"],
        _ => vec!["add", "mul", "min", "max", "and", "or", "xor"],
    };
    all.into_iter().filter(|o| !segmented || matches!(*o, "add" | "min" | "max")).collect()
}

const TILES: [&str; 8] = ["", "tile(0) ", "tile(1) ", "tile(2) ", "tile(3) ", "tile(4) ", "tile(5) ", "tile(6) "];

fn tame(op: &str) -> bool {
    op == "add" || op == "mul"
}

#[test]
fn reductions_every_op_type_tile() {
    for ty in TYPES {
        for op in ops_for(ty, false) {
            for tile in TILES {
                check_op(&format!("  %r = subgroup.reduce {op} {tile}%x : {ty}"), ty, ty, tame(op), &|_| 0, 0);
            }
        }
    }
}

#[test]
fn scans_every_op_type_tile() {
    for ty in TYPES {
        for op in ops_for(ty, false) {
            for tile in TILES {
                for kind in ["inclusive", "exclusive"] {
                    check_op(&format!("  %r = subgroup.scan {kind} {op} {tile}%x : {ty}"), ty, ty, tame(op), &|_| 0, 0);
                }
            }
        }
    }
}

#[test]
fn segmented_reductions_every_op_type_tile() {
    for ty in TYPES {
        for op in ops_for(ty, true) {
            for tile in TILES {
                check_op(
                    &format!("  %r = subgroup.segreduce {op} {tile}%x, %dv : {ty}"),
                    ty,
                    ty,
                    tame(op),
                    &|i| u64::from((i * 7) % 5 == 0) * (i as u64 + 1),
                    0,
                );
            }
        }
    }
}

#[test]
fn votes_every_type_tile() {
    for ty in TYPES {
        for op in ["vote.all", "vote.any", "vote.eq"] {
            if op != "vote.eq" && ty != ScalarType::Bool {
                continue;
            }
            for tile in TILES {
                check_op(&format!("  %r = {op} {tile}%x : bool"), ty, ScalarType::Bool, false, &|_| 0, 0);
            }
        }
    }
}

#[test]
fn match_every_type() {
    for ty in TYPES {
        for op in ["match.any", "match.all"] {
            check_op(&format!("  %r = {op} %x : u64"), ty, ScalarType::U64, false, &|_| 0, 0);
        }
    }
}
