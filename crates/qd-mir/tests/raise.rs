//! Tests of the `raise` pass (`qd_mir::passes::raise`) on `.qdm` files and on inline kernels.
//!
//! `filetests_raise` runs every `tests/filetests/raise/*.qdm`. Each file names its pipeline and
//! width on a `; test: opt PASSES width=W` line (the same line the workspace filetest harness
//! reads), and says per kernel what must be raised:
//!
//! - `; raised: @KERNEL OP TEXT` — one line per collective the pass must create in that kernel
//!   (`subgroup.reduce add tile(5)`, `subgroup.scan exclusive min tile(3)`); a kernel without such
//!   a line must have nothing raised (the near misses);
//! - `; left: @KERNEL N` — the number of shuffles/broadcasts left in the kernel afterwards.
//!
//! For every kernel the test then runs the interpreter before and after the passes, at sg=W with
//! the kernel's own launch, on data patterns that make combination order visible (several NaN
//! payloads and an sNaN, ±0, ±inf, subnormals, values of widely different magnitudes,
//! INT_MIN/INT_MAX, all-equal lanes, random bits) and requires every output buffer to be
//! bit-identical. `data_patterns_expose_wrong_rewrites` shows that the same patterns catch an
//! unsound rewrite (a float butterfly in the wrong order, a lane-0 tree raised without its guard).

use qd_mir::interp::{run_kernel, ArgValue, Buffer, RunConfig};
use qd_mir::passes::raise::{raise, Raised};
use qd_mir::passes::{Pass, PassOptions};
use qd_mir::verify::verify_function;
use qd_mir::{Function, GridPolicy, GroupOp, Imm, Opcode, ScalarType, Tile, Type};
use std::path::PathBuf;

fn raise_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/raise")
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

const F32_SPECIAL: [u32; 16] = [
    0x7FC0_0000, // qNaN
    0x7FC1_2345, // qNaN with a payload
    0xFFC0_0001, // negative qNaN with a payload
    0x7F80_0001, // sNaN
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x0000_0001, // smallest subnormal
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x7F7F_FFFF, // max
    0x3DCC_CCCD, // 0.1
    0x4B80_0001, // 16777218 (rounding)
    0x3380_0000, // 2^-24
    0xC2F6_E979, // -123.456
];

const F64_SPECIAL: [u64; 16] = [
    0x7FF8_0000_0000_0000,
    0x7FF8_0000_0012_3456,
    0xFFF8_0000_0000_0001,
    0x7FF0_0000_0000_0001,
    0,
    0x8000_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    1,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0x3FB9_9999_9999_999A,
    0x4340_0000_0000_0001,
    0x3CA0_0000_0000_0000,
    0xC05E_DD2F_1A9F_BE77,
];

/// A float of moderate but widely varying magnitude (so sums round differently by order).
fn wide_f32(r: &mut Rng) -> u64 {
    let x = r.next();
    let sign = (x & 1) as u32;
    let exp = 127 - 24 + (x >> 8) as u32 % 48;
    u64::from(sign << 31 | exp << 23 | (x >> 20) as u32 & 0x7F_FFFF)
}

fn wide_f64(r: &mut Rng) -> u64 {
    let x = r.next();
    let sign = x & 1;
    let exp = 1023 - 53 + (x >> 8) % 106;
    sign << 63 | exp << 52 | (r.next() & 0xF_FFFF_FFFF_FFFF)
}

/// Number of data patterns per element type.
const PATTERNS: usize = 7;

/// Element `i` of data pattern `p` for type `ty` (canonical bits).
fn datum(ty: ScalarType, p: usize, i: usize, r: &mut Rng) -> u64 {
    let bits = match ty {
        ScalarType::F32 => match p {
            0 => 0x4049_0FDB,                                                            // all equal (pi)
            1 => u64::from(F32_SPECIAL[i % 16]),                                         // specials
            2 => wide_f32(r),                                                            // rounding-sensitive
            3 => u64::from([0u32, 0x8000_0000][(r.next() & 1) as usize]),                // ±0 mix
            4 if i.is_multiple_of(5) => u64::from(F32_SPECIAL[(r.next() % 4) as usize]), // NaNs sprinkled
            4 => wide_f32(r),
            5 => u64::from((i as f32 * 0.1).to_bits()),
            _ => r.next() & 0xFFFF_FFFF, // raw bits
        },
        ScalarType::F64 => match p {
            0 => 0x4009_21FB_5444_2D18,
            1 => F64_SPECIAL[i % 16],
            2 => wide_f64(r),
            3 => [0u64, 0x8000_0000_0000_0000][(r.next() & 1) as usize],
            4 if i.is_multiple_of(5) => F64_SPECIAL[(r.next() % 4) as usize],
            4 => wide_f64(r),
            5 => (i as f64 * 0.1).to_bits(),
            _ => r.next(),
        },
        ScalarType::Bool => match p {
            0 => 1,
            1 => u64::from(i % 7 != 3),
            2 => 0,
            3 => u64::from(i.is_multiple_of(2)),
            _ => r.next() & 1,
        },
        ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
            let wide = matches!(ty, ScalarType::I64 | ScalarType::U64);
            let (min, max) = if wide { (1u64 << 63, (1u64 << 63) - 1) } else { (1u64 << 31, (1u64 << 31) - 1) };
            match p {
                0 => 7,
                1 => [min, max, 0, u64::MAX, 1, 2, 3, min + 1][i % 8],
                2 => r.next(),
                3 => i as u64,
                4 => r.next() % 9, // small values: products stay interesting
                5 => u64::MAX - (r.next() % 4),
                _ => [min, max][(r.next() & 1) as usize] ^ (r.next() % 3),
            }
        }
    };
    qd_mir::eval::canon(ty, bits)
}

/// Total threads of a fixed-grid kernel launch.
fn threads(f: &Function) -> usize {
    let GridPolicy::Fixed(g) = f.launch.grid else { panic!("@{}: raise tests use fixed grids", f.name) };
    f.launch.block.iter().chain(g.iter()).map(|&d| d as usize).product()
}

/// Arguments for pattern `p`: every buffer has one element per thread; scalars are the thread count.
fn args_for(f: &Function, p: usize) -> Vec<ArgValue> {
    let n = threads(f);
    let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ (p as u64 + 1).wrapping_mul(0x1234_5678_9ABC_DEF1));
    f.params
        .iter()
        .map(|param| match param.ty {
            Type::Ptr(_, elem) => ArgValue::Buffer(Buffer::from_bits(elem, (0..n).map(|i| datum(elem, p, i, &mut r)))),
            Type::Scalar(s) => ArgValue::Scalar(s, n as u64),
        })
        .collect()
}

/// Runs `f` on pattern `p`: every buffer's bits after the run, or the error text.
fn run_bits(f: &Function, w: u32, p: usize) -> Result<Vec<Vec<u64>>, String> {
    let mut args = args_for(f, p);
    let cfg = RunConfig { subgroup_size: w, step_limit: Some(10_000_000), ..RunConfig::default() };
    run_kernel(f, &cfg, &mut args).map_err(|e| e.to_string())?;
    Ok(args
        .iter()
        .filter_map(|a| match a {
            ArgValue::Buffer(b) => Some(b.to_bits()),
            ArgValue::Scalar(..) => None,
        })
        .collect())
}

/// Number of `ScalarType` patterns run for a kernel.
fn compare_runs(before: &Function, after: &Function, w: u32) -> Result<usize, String> {
    for p in 0..PATTERNS {
        let b = run_bits(before, w, p);
        let a = run_bits(after, w, p);
        if a != b {
            return Err(format!("pattern {p}: results differ\n before: {b:x?}\n after:  {a:x?}"));
        }
    }
    Ok(PATTERNS)
}

fn shuffles_left(f: &Function) -> usize {
    f.walk_insts()
        .into_iter()
        .filter(|&i| {
            matches!(
                f.insts[i].opcode,
                Opcode::ShuffleIdx | Opcode::ShuffleUp | Opcode::ShuffleDown | Opcode::ShuffleXor | Opcode::Broadcast
            )
        })
        .count()
}

/// Runs `passes` on `f` (verifier after each); returns what `raise` raised.
fn pipeline(f: &mut Function, passes: &[Pass], opts: &PassOptions) -> Result<Vec<Raised>, String> {
    let mut raised = Vec::new();
    for &p in passes {
        if p == Pass::Raise {
            raised.extend(raise(f, opts));
        } else {
            p.run(f, opts).map_err(|e| e.to_string())?;
        }
        verify_function(f).map_err(|e| format!("after {p}: {}", e.render(f)))?;
    }
    Ok(raised)
}

/// The file's `; test: opt` passes and width.
fn test_line(src: &str) -> Option<(Vec<Pass>, u32)> {
    let line = src.lines().find_map(|l| l.trim().strip_prefix("; test: opt "))?;
    let mut passes = Vec::new();
    let mut width = None;
    for w in line.split_whitespace() {
        match w.strip_prefix("width=") {
            Some(n) => width = n.parse().ok(),
            None => passes.extend(w.split(',').map(|p| Pass::from_name(p).unwrap_or_else(|| panic!("pass {p}")))),
        }
    }
    Some((passes, width?))
}

/// `; KEY: @kernel REST` lines.
fn kernel_lines<'a>(src: &'a str, key: &str, kernel: &str) -> Vec<&'a str> {
    let prefix = format!("; {key}: @{kernel} ");
    src.lines().filter_map(|l| l.trim().strip_prefix(prefix.as_str())).map(str::trim).collect()
}

#[test]
fn filetests_raise() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(raise_dir())
        .expect("tests/filetests/raise")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "qdm"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "raise filetests missing: {files:?}");
    let (mut kernels, mut raised_total, mut near_misses, mut runs) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let shown = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let src = std::fs::read_to_string(path).expect("read");
        let (passes, w) = test_line(&src).unwrap_or_else(|| panic!("{shown}: no `; test: opt PASSES width=W` line"));
        assert!(passes.contains(&Pass::Raise), "{shown}: the pipeline does not run raise");
        let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &shown)));
        for k in &m.kernels {
            kernels += 1;
            verify_function(k).unwrap_or_else(|e| panic!("{shown} @{}: {}", k.name, e.render(k)));
            let mut after = k.clone();
            let opts = PassOptions::with_width(w);
            let result = pipeline(&mut after, &passes, &opts).and_then(|raised| {
                let mut got: Vec<String> = raised.iter().map(Raised::to_string).collect();
                let mut want: Vec<String> =
                    kernel_lines(&src, "raised", &k.name).into_iter().map(String::from).collect();
                got.sort();
                want.sort();
                if got != want {
                    return Err(format!("raised {got:?}, expected {want:?}\n{}", qd_mir::text::print_function(&after)));
                }
                if let Some(n) = kernel_lines(&src, "left", &k.name).first() {
                    let n: usize = n.parse().map_err(|_| format!("bad `; left:` {n}"))?;
                    let left = shuffles_left(&after);
                    if left != n {
                        return Err(format!(
                            "{left} shuffles left, expected {n}\n{}",
                            qd_mir::text::print_function(&after)
                        ));
                    }
                }
                if want.is_empty() {
                    near_misses += 1;
                }
                raised_total += got.len();
                runs += compare_runs(k, &after, w)?;
                Ok(())
            });
            if let Err(e) = result {
                failures.push(format!("{shown} @{}: {e}", k.name));
            }
        }
    }
    println!(
        "raise filetests: {} files, {kernels} kernels, {raised_total} trees raised, {near_misses} kernels \
         with nothing raised, {runs} bit-exact before/after runs",
        files.len()
    );
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// Kernel `name` of `tests/filetests/raise/FILE`.
fn kernel(file: &str, name: &str) -> Function {
    let src = std::fs::read_to_string(raise_dir().join(file)).expect("read");
    let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, file)));
    m.kernel(name).unwrap_or_else(|| panic!("{file}: no @{name}")).clone()
}

/// The instruction defining the value stored by the first `store` whose value is not a load.
fn stored_root(f: &Function) -> qd_mir::Inst {
    let st = f
        .walk_insts()
        .into_iter()
        .find(|&i| f.insts[i].opcode == Opcode::Store)
        .unwrap_or_else(|| panic!("@{}: no store", f.name));
    let v = f.args(st)[1];
    match f.values[v].def {
        qd_mir::ValueDef::Result(i, _) => i,
        other => panic!("@{}: stored value is {other:?}", f.name),
    }
}

/// What an unsound pass would do: rewrite the stored tree's root into a collective of the first
/// loaded value, whatever the tree is.
fn force(f: &Function, inclusive_kind: Option<bool>, op: GroupOp, log2: u8) -> Function {
    let mut g = f.clone();
    let root = stored_root(&g);
    let x = g
        .walk_insts()
        .into_iter()
        .find(|&i| g.insts[i].opcode == Opcode::Load)
        .and_then(|i| g.first_result(i))
        .expect("a load");
    let data = &mut g.insts[root];
    data.opcode = if inclusive_kind.is_some() { Opcode::SubgroupScan } else { Opcode::SubgroupReduce };
    data.imm = Imm::Group { op, tile: Tile::Log2(log2), inclusive: inclusive_kind.unwrap_or(true) };
    data.regions = [None.into(), None.into()];
    g.set_args(root, &[x]);
    verify_function(&g).unwrap_or_else(|e| panic!("{}", e.render(&g)));
    g
}

#[test]
fn data_patterns_expose_wrong_rewrites() {
    // Each near miss, rewritten anyway into the collective it resembles, gives different bits on
    // the test data: the pass was right to refuse, and the before/after comparison would catch
    // a pass that did not.
    let cases: [(&str, Option<bool>, GroupOp, u8); 14] = [
        ("float_desc_add_f32", None, GroupOp::Add, 5),
        ("float_partner_left_add_f32", None, GroupOp::Add, 5),
        ("float_down_lane0_add_f32", None, GroupOp::Add, 5),
        ("float_partner_left_max_f64", None, GroupOp::Max, 2),
        ("missing_guard_add_i32", None, GroupOp::Add, 5),
        ("wrong_lane_guard_add_i32", None, GroupOp::Add, 5),
        ("guard_tile_mismatch_add_u32", None, GroupOp::Add, 4),
        ("wrong_mask_add_u32", None, GroupOp::Add, 5),
        ("wrong_identity_excl_add_u32", Some(false), GroupOp::Add, 5),
        ("scan_wrong_guard_add_u32", Some(true), GroupOp::Add, 5),
        ("float_scan_own_left_add_f32", Some(true), GroupOp::Add, 5),
        ("divergent_region_add_u32", None, GroupOp::Add, 5),
        ("block_not_multiple_add_u32", None, GroupOp::Add, 5),
        ("divergent_return_add_u32", None, GroupOp::Add, 5),
    ];
    for (name, scan, op, log2) in cases {
        let f = kernel("near_misses.qdm", name);
        let g = force(&f, scan, op, log2);
        assert!(compare_runs(&f, &g, 32).is_err(), "@{name}: the forced rewrite is not caught by the test data");
    }
    // The inclusive-then-shift float exclusive scan is not the interpreter's exclusive scan.
    let f = kernel("near_misses.qdm", "float_incl_then_shift_add_f32");
    let mut g = f.clone();
    let raised = raise(&mut g, &PassOptions::with_width(32));
    assert_eq!(raised.len(), 1);
    let shift = stored_root(&g);
    let x = f.walk_insts().into_iter().find(|&i| f.insts[i].opcode == Opcode::Load).and_then(|i| f.first_result(i));
    let data = &mut g.insts[shift];
    data.opcode = Opcode::SubgroupScan;
    data.imm = Imm::Group { op: GroupOp::Add, tile: Tile::Log2(5), inclusive: false };
    g.set_args(shift, &[x.expect("load")]);
    assert!(compare_runs(&f, &g, 32).is_err(), "float inclusive-then-shift taken for an exclusive scan");
}

#[test]
fn needs_a_known_matching_width() {
    let f = kernel("quadrants_reduce_all.qdm", "all_add_f32");
    let mut g = f.clone();
    assert!(raise(&mut g, &PassOptions::default()).is_empty(), "no width: nothing raised");
    let mut g = f.clone();
    g.launch.subgroup_size = Some(64);
    assert!(raise(&mut g, &PassOptions::with_width(32)).is_empty(), "kernel built for W=64, pass at 32");
    let mut g = f.clone();
    g.launch.subgroup_size = Some(32);
    assert_eq!(raise(&mut g, &PassOptions::with_width(32)).len(), 1);
    // At W=64 the five masks make a 32-lane tile of a 64-lane subgroup.
    let mut g = f.clone();
    g.launch.block = [128, 1, 1];
    let raised = raise(&mut g, &PassOptions::with_width(64));
    assert_eq!(raised.iter().map(Raised::to_string).collect::<Vec<_>>(), ["subgroup.reduce add tile(5)"]);
    let mut before = f.clone();
    before.launch.block = [128, 1, 1];
    assert_eq!(compare_runs(&before, &g, 64), Ok(PATTERNS));
    // A width of 16 makes masks 16 out of range (own value): no 16- or 32-lane reduction.
    let mut g = f.clone();
    assert!(raise(&mut g, &PassOptions::with_width(16)).is_empty());
}

#[test]
fn rewrites_the_root_in_place() {
    let f = kernel("quadrants_scan.qdm", "incl_add_f32");
    let root = stored_root(&f);
    let value = f.first_result(root).expect("result");
    assert_eq!(f.insts[root].opcode, Opcode::If);
    let mut g = f.clone();
    let raised = raise(&mut g, &PassOptions::with_width(32));
    assert_eq!(raised.len(), 1);
    let r = &raised[0];
    assert_eq!((r.inst, r.tile, r.op, r.ty, r.lanes), (root, 32, GroupOp::Add, ScalarType::F32, u64::from(u32::MAX)));
    assert_eq!(stored_root(&g), root, "the store still reads the same instruction's result");
    assert_eq!(g.first_result(root), Some(value));
    assert_eq!(g.insts[root].opcode, Opcode::SubgroupScan);
    assert_eq!(g.inst_regions(root).count(), 0);
    // Lane-0 trees record the lanes they are exact on.
    let mut g = kernel("quadrants_reduce_tiled.qdm", "lane0_max_u32_t16");
    let raised = raise(&mut g, &PassOptions::with_width(32));
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].lanes & 0x0001_0001, 0x0001_0001);
    assert_ne!(raised[0].lanes, u64::from(u32::MAX));
}

#[test]
fn runs_by_name_in_a_pipeline_and_cleans_up_its_shuffles() {
    let f = kernel("cuda_idioms.qdm", "shfl_up_scan_add_i32");
    assert_eq!(shuffles_left(&f), 5);
    let mut g = f.clone();
    let raise_pass = Pass::from_name("raise").expect("raise");
    // Raise alone already removes the tree's shuffles (dce never removes convergent ops); the
    // lane arithmetic and constants are left for dce.
    assert!(raise_pass.run(&mut g, &PassOptions::with_width(32)).expect("runs"));
    assert_eq!(shuffles_left(&g), 0);
    let consts = |f: &Function| f.walk_insts().into_iter().filter(|&i| f.insts[i].opcode == Opcode::Const).count();
    assert!(consts(&g) > 0);
    qd_mir::passes::run_pipeline(&mut g, &[Pass::Dce], &PassOptions::with_width(32)).expect("dce");
    assert_eq!(consts(&g), 0, "{}", qd_mir::text::print_function(&g));
    assert_eq!(compare_runs(&f, &g, 32), Ok(PATTERNS));
    // A second run finds nothing more.
    assert!(!raise_pass.run(&mut g, &PassOptions::with_width(32)).expect("runs"));
}

#[test]
fn dce_keeps_a_dead_shuffle_that_is_no_tree() {
    // A stray unused shuffle is neither a tree nor removed by dce (convergent): it stays.
    let src = "kernel @k(%x: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {\n\
        %0 = thread_id x : u32\n\
        %1 = ptr.offset %x, %0 : ptr<global, u32>\n\
        %2 = load %1 : u32\n\
        %3 = const 1 : u32\n\
        %4 = shuffle.xor %2, %3 : u32\n\
        return\n}\n";
    let mut f = qd_mir::parse_module(src).expect("parses").kernels[0].clone();
    qd_mir::passes::run_pipeline(&mut f, &[Pass::Raise, Pass::Dce], &PassOptions::with_width(32)).expect("runs");
    assert_eq!(shuffles_left(&f), 1);
}
