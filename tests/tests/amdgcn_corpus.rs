//! The AMDGCN cross-check of the filetest corpus: every `; run:` line of
//! `tests/filetests/interp/*.qdm` and `tests/filetests/opt/*.qdm` runs on the wave simulator
//! (`qd_isel_amdgcn::compile_kernel` with the regalloc2 checker, then `runner::run` with the
//! hazard and wait checkers on) for each of the four targets — gfx942, gfx90a, gfx1100 wave64,
//! gfx1100 wave32 — and every buffer must match, bit for bit, the interpreter's run of the same
//! line at the target's wave width.
//!
//! - Every run line runs at the target's wave width whatever its `sg=` says (the reference is
//!   the interpreter at that same width), except where a kernel it launches was built for
//!   another width (`subgroup(N)`): those are skipped and counted; so is a line that expects a
//!   fault (`=> fault: …`), and one the interpreter faults on at that width (hardware behaviour
//!   is undefined there).
//! - A `run: program` line runs launch by launch: each launch's kernel is compiled once, its
//!   arguments are the program's buffers (one simulated buffer per program buffer, however many
//!   parameters name it), its constants and the program's status word, which must end at 0 as it
//!   does in the interpreter.
//! - Grid policies are the interpreter's: `grid(cover %n)` is `ceil(n / block.x)` blocks,
//!   `grid(saturating)` is its 4 blocks. A `block=` override is compiled into the kernel (the
//!   block size is a compile-time constant of the AMDGCN code).
//!
//! The test prints a summary per target (passed / failed / not lowered / skipped, with why) and
//! lists every failure with the compile error or the first differing buffer. Every failure —
//! wrong result, simulator error, compile error — fails the test: the back end lowers every op,
//! so [`STRICT`] is on. (With it off, a `CompileError::Unsupported` would be
//! counted as "not lowered" and listed instead, the mode the harness had while the lowering was
//! being written.)

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::{compile_kernel, runner, AmdgcnOptions, Arch, CompileError, CompiledKernel, Target, WaveSize};
use qd_mir::interp::{self, ArgValue, Buffer, RunConfig};
use qd_mir::{Function, GridPolicy, LaunchArg, Module, ScalarType};
use qd_rt::crosscheck::{compare, REFERENCE_STEP_LIMIT};
use qd_tests::directives::{self, Expect, RunLine};

/// Fail on "not lowered" compile errors too (on: every op lowers).
const STRICT: bool = true;

/// The four simulated targets, with a label.
fn targets() -> [(Target, &'static str); 4] {
    [
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx90a), "gfx90a"),
        (Target::wave64(Arch::Gfx1100), "gfx1100 wave64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100 wave32"),
    ]
}

/// How one run line went on one target.
enum Outcome {
    Passed,
    /// A kernel has an op with no lowering yet (the compile error).
    NotLowered(String),
    /// `sg=` is not the target's wave size.
    OtherWidth,
    /// The run line expects a fault.
    ExpectsFault,
    /// The interpreter faults at the target's width (its message).
    InterpreterFaults(String),
    /// Anything else: the reason.
    Failed(String),
}

/// The counts of one target.
#[derive(Default)]
struct Tally {
    passed: usize,
    not_lowered: Vec<String>,
    other_width: usize,
    expects_fault: usize,
    interpreter_faults: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, at: &str, o: Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::NotLowered(e) if STRICT => self.failures.push(format!("{at}: {e}")),
            Outcome::NotLowered(e) => self.not_lowered.push(format!("{at}: {e}")),
            Outcome::OtherWidth => self.other_width += 1,
            Outcome::ExpectsFault => self.expects_fault += 1,
            Outcome::InterpreterFaults(e) => self.interpreter_faults.push(format!("{at}: {e}")),
            Outcome::Failed(e) => self.failures.push(format!("{at}: {e}")),
        }
    }

    fn summary(&self, label: &str, lanes: u32) -> String {
        format!(
            "{label}: {} passed, {} failed, {} not lowered; skipped: {} (sg≠{lanes}), {} (expect a fault), {} (interpreter faults at width {lanes})",
            self.passed,
            self.failures.len(),
            self.not_lowered.len(),
            self.other_width,
            self.expects_fault,
            self.interpreter_faults.len(),
        )
    }
}

/// Compiled kernels of one file for one target, by (kernel, block).
type Cache = HashMap<(String, [u32; 3]), Result<CompiledKernel, CompileError>>;

/// Compiles (once) `f` with its block set to `block`.
fn compiled<'c>(cache: &'c mut Cache, f: &Function, block: [u32; 3], t: Target) -> Result<&'c CompiledKernel, Outcome> {
    let k = cache.entry((f.name.clone(), block)).or_insert_with(|| {
        let mut g = f.clone();
        g.launch.block = block;
        compile_kernel(&g, &AmdgcnOptions { check_regalloc: true, ..AmdgcnOptions::new(t) })
    });
    match k {
        Ok(k) => Ok(k),
        Err(e @ CompileError::Unsupported { .. }) => Err(Outcome::NotLowered(format!("@{}: {e}", f.name))),
        Err(e) => Err(Outcome::Failed(format!("@{}: compile error: {e}", f.name))),
    }
}

/// The grid of a launch of `f` (block already overridden), as the interpreter computes it.
fn grid_of(f: &Function, args: &[ArgValue]) -> Result<[u32; 3], String> {
    match f.launch.grid {
        GridPolicy::Fixed(g) => Ok(g),
        GridPolicy::Saturating => Ok([GridPolicy::INTERP_SATURATING_BLOCKS, 1, 1]),
        GridPolicy::Cover(_) => {
            let scalar = |i: usize| match args.get(i) {
                Some(ArgValue::Scalar(_, bits)) => Some(*bits),
                _ => None,
            };
            qd_isel_ptx::grid_for(f, scalar, 1).ok_or_else(|| format!("@{}: grid(cover) cannot be computed", f.name))
        }
    }
}

/// Runs a compiled kernel on the simulator; the error says what failed.
fn simulate(k: &CompiledKernel, grid: [u32; 3], args: &mut [ArgValue], bind: Option<&[usize]>) -> Result<(), String> {
    runner::run(k, grid, args, bind, &SimOptions::default())
        .map(|_| ())
        .map_err(|e| format!("@{}: simulator: {e}", k.name))
}

/// The first buffer that differs from the interpreter's, as a failure.
fn mismatch(names: &[String], want: &[ArgValue], got: &[ArgValue]) -> Option<Outcome> {
    // AMD's default NaN for an invalid operation is not the x86 host's.
    let mut got = got.to_vec();
    runner::adopt_host_default_nans(want, &mut got);
    compare(names, want, &got).map(|m| {
        Outcome::Failed(format!(
            "buffer %{} differs from the interpreter at index {}: interpreter {}, simulator {} ({} element{} differ)",
            m.buffer,
            m.index,
            m.reference,
            m.device,
            m.count,
            if m.count == 1 { "" } else { "s" }
        ))
    })
}

/// One kernel run line on one target.
fn run_kernel(m: &Module, run: &RunLine, t: Target, cache: &mut Cache) -> Outcome {
    let Some(f) = m.kernel(&run.target) else { return Outcome::Failed(format!("no kernel @{}", run.target)) };
    let (names, args) = match qd_tests::crosscheck::run_args(m, run) {
        Ok(a) => a,
        Err(e) => return Outcome::Failed(e),
    };
    let lanes = t.wave.lanes();
    let cfg = RunConfig {
        subgroup_size: lanes,
        grid: run.grid,
        block: run.block,
        step_limit: Some(REFERENCE_STEP_LIMIT),
        declared_width: false,
    };
    let mut want = args.clone();
    if let Err(e) = interp::run_kernel(f, &cfg, &mut want) {
        return Outcome::InterpreterFaults(e.to_string());
    }
    let block = run.block.unwrap_or(f.launch.block);
    let k = match compiled(cache, f, block, t) {
        Ok(k) => k,
        Err(o) => return o,
    };
    let mut g = f.clone();
    g.launch.block = block;
    let grid = match run.grid.map_or_else(|| grid_of(&g, &args), Ok) {
        Ok(g) => g,
        Err(e) => return Outcome::Failed(e),
    };
    let mut got = args;
    if let Err(e) = simulate(k, grid, &mut got, None) {
        return Outcome::Failed(e);
    }
    mismatch(&names, &want, &got).unwrap_or(Outcome::Passed)
}

/// One program run line on one target: the launches in order over shared buffers.
fn run_program(m: &Module, run: &RunLine, t: Target, cache: &mut Cache) -> Outcome {
    let Some(p) = m.program(&run.target) else { return Outcome::Failed(format!("no program @{}", run.target)) };
    let (names, args) = match qd_tests::crosscheck::run_args(m, run) {
        Ok(a) => a,
        Err(e) => return Outcome::Failed(e),
    };
    let lanes = t.wave.lanes();
    let cfg = RunConfig {
        subgroup_size: lanes,
        grid: run.grid,
        block: run.block,
        step_limit: Some(REFERENCE_STEP_LIMIT),
        declared_width: false,
    };
    let mut want = args.clone();
    if let Err(e) = interp::run_program(m, p, &cfg, &mut want) {
        return Outcome::InterpreterFaults(e.to_string());
    }
    // Compile every launched kernel first, so that a missing lowering is reported as such.
    for l in &p.launches {
        let Some(f) = m.kernel(&l.kernel) else { return Outcome::Failed(format!("no kernel @{}", l.kernel)) };
        if let Err(o) = compiled(cache, f, f.launch.block, t) {
            return o;
        }
    }
    let mut got = args;
    let mut status = Buffer::from_bits(ScalarType::U32, [0u64]);
    for (li, l) in p.launches.iter().enumerate() {
        let Some(f) = m.kernel(&l.kernel) else { return Outcome::Failed(format!("no kernel @{}", l.kernel)) };
        // The launch's arguments; parameters naming the same program buffer share one
        // simulated buffer (`bind`).
        let mut largs = Vec::with_capacity(l.args.len());
        let mut bind = Vec::with_capacity(l.args.len());
        for (i, a) in l.args.iter().enumerate() {
            let (value, owner) = match *a {
                LaunchArg::Param(pi) => {
                    let first = l.args.iter().position(|b| *b == LaunchArg::Param(pi)).unwrap_or(i);
                    (got[usize::from(pi)].clone(), first)
                }
                LaunchArg::Const(ty, bits) => (ArgValue::Scalar(ty, bits), i),
                LaunchArg::Status => {
                    let first = l.args.iter().position(|b| *b == LaunchArg::Status).unwrap_or(i);
                    (ArgValue::Buffer(status.clone()), first)
                }
            };
            largs.push(value);
            bind.push(owner);
        }
        let grid = match grid_of(f, &largs) {
            Ok(g) => g,
            Err(e) => return Outcome::Failed(format!("launch {li}: {e}")),
        };
        let k = match compiled(cache, f, f.launch.block, t) {
            Ok(k) => k,
            Err(o) => return o,
        };
        if let Err(e) = simulate(k, grid, &mut largs, Some(&bind)) {
            return Outcome::Failed(format!("launch {li}: {e}"));
        }
        for (a, v) in l.args.iter().zip(largs) {
            match (*a, v) {
                (LaunchArg::Param(pi), v @ ArgValue::Buffer(_)) => got[usize::from(pi)] = v,
                (LaunchArg::Status, ArgValue::Buffer(b)) => status = b,
                _ => {}
            }
        }
    }
    let word = status.to_bits().first().copied().unwrap_or(0);
    if word != 0 {
        return Outcome::Failed(format!("the status word is {word:#x} after the launches; the interpreter's is 0"));
    }
    mismatch(&names, &want, &got).unwrap_or(Outcome::Passed)
}

/// Every run line of one file on one target.
fn check_file(path: &Path, t: Target, tally: &mut Tally) {
    let shown = path.strip_prefix(qd_tests::corpus::repo()).unwrap_or(path).display().to_string();
    let src = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return tally.add(&shown, Outcome::Failed(format!("cannot read: {e}"))),
    };
    let d = match directives::parse(&src) {
        Ok(d) => d,
        Err(e) => return tally.add(&shown, Outcome::Failed(format!("bad directives: {e}"))),
    };
    if d.runs.is_empty() {
        return;
    }
    let m = match qd_mir::parse_module(&src) {
        Ok(m) => m,
        Err(e) => return tally.add(&shown, Outcome::Failed(e.render(&src, &shown))),
    };
    if let Err(e) = qd_mir::verify::verify_module(&m) {
        return tally.add(&shown, Outcome::Failed(format!("does not verify: {e}")));
    }
    let mut cache = Cache::new();
    for run in &d.runs {
        let at = format!("{shown}:{}", run.line);
        let outcome = if built_for_other_width(&m, run, t.wave.lanes()) {
            Outcome::OtherWidth
        } else if matches!(run.expect, Expect::Fault(_)) {
            Outcome::ExpectsFault
        } else if run.program {
            run_program(&m, run, t, &mut cache)
        } else {
            run_kernel(&m, run, t, &mut cache)
        };
        tally.add(&at, outcome);
    }
}

/// True when a kernel the run line launches declares a subgroup width other than `lanes`.
fn built_for_other_width(m: &qd_mir::Module, run: &RunLine, lanes: u32) -> bool {
    let other = |k: &str| m.kernel(k).and_then(|f| f.launch.subgroup_size).is_some_and(|w| w != lanes);
    if run.program {
        m.programs.iter().filter(|p| p.name == run.target).flat_map(|p| &p.launches).any(|l| other(&l.kernel))
    } else {
        other(&run.target)
    }
}

fn corpus() -> Vec<PathBuf> {
    let root = qd_tests::corpus::repo().join("tests/filetests");
    qd_tests::corpus::qdm_files(&[root.join("interp"), root.join("opt")])
}

#[test]
fn filetest_run_lines_match_the_interpreter_on_the_simulator() {
    let files = corpus();
    assert!(files.len() > 20, "{} filetests", files.len());
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut summaries = Vec::new();
    for (t, label) in targets() {
        let mut tally = Tally::default();
        for f in &files {
            check_file(f, t, &mut tally);
        }
        let summary = tally.summary(label, t.wave.lanes());
        let _ = writeln!(report, "\n== {summary}");
        for (what, list) in [
            ("failed", &tally.failures),
            ("not lowered", &tally.not_lowered),
            ("skipped, the interpreter faults", &tally.interpreter_faults),
        ] {
            for l in list {
                let _ = writeln!(report, "  {what}: {l}");
            }
        }
        failures.extend(tally.failures.iter().map(|f| format!("{label}: {f}")));
        summaries.push(summary);
    }
    println!("{report}");
    println!("AMDGCN corpus (STRICT = {STRICT}):");
    for s in &summaries {
        println!("  {s}");
    }
    assert!(failures.is_empty(), "{} AMDGCN corpus failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// The harness itself, on kernels every target lowers today: kernel lines (a `block=` override
/// compiled in, a `grid=` override, `grid(cover %n)`), a program whose launches share buffers,
/// name one buffer twice, pass constants and the status word; the skips; and a wrong result
/// reported as the first differing buffer.
#[test]
fn the_harness_runs_kernels_and_programs_and_counts_skips() {
    let src = "\
kernel @add(%a: ptr<global, u32>, %b: ptr<global, u32>, %k: u32 uniform) block(64, 1, 1) grid(cover %k) {
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = add %0, %1 : u32
  %3 = ptr.offset %a, %0 : ptr<global, u32>
  %4 = load %3 : u32
  %5 = add %4, %2 : u32
  %6 = add %5, %k : u32
  %7 = ptr.offset %b, %0 : ptr<global, u32>
  store %7, %6
  return
}

kernel @status(%st: ptr<global, u32>, %v: u32 uniform) block(1, 1, 1) grid(1, 1, 1) {
  store %st, %v
  return
}

program @p(%x: ptr<global, u32>, %y: ptr<global, u32>, %n: u32) {
  status %qd_status bit 0 \"never set\"
  launch @add(%x, %y, %n)
  launch @add(%y, %y, 3 : u32)
  launch @status(%qd_status, 0 : u32)
  launch @add(%y, %x, %n)
}
; run: @add sg=64 a=iota:u32:64 b=zeros:u32:64 k=u32:7 => b=zeros:u32:64
; run: @add sg=32 a=iota:u32:64 b=zeros:u32:64 k=u32:100 => b=zeros:u32:64
; run: @add sg=64 block=16 grid=3 a=rand:u32:64:1 b=zeros:u32:64 k=u32:0 => b=zeros:u32:64
; run: @add sg=32 block=40 a=rand:u32:64:2 b=zeros:u32:64 k=u32:1 => b=zeros:u32:64
; run: program @p sg=64 x=iota:u32:64 y=zeros:u32:64 n=u32:64 => y=zeros:u32:64
; run: program @p sg=32 x=rand:u32:64:3 y=zeros:u32:64 n=u32:9 => y=zeros:u32:64
; run: @add sg=8 a=iota:u32:64 b=zeros:u32:64 k=u32:7 => b=zeros:u32:64
; run: @add sg=32 a=iota:u32:8 b=zeros:u32:64 k=u32:7 => fault: out of bounds
; run: @add sg=64 a=iota:u32:8 b=zeros:u32:64 k=u32:7 => b=zeros:u32:64
";
    let dir = std::env::temp_dir().join(format!("qd-amdgcn-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("self.qdm");
    std::fs::write(&path, src).expect("write");
    for (t, label) in targets() {
        let mut tally = Tally::default();
        check_file(&path, t, &mut tally);
        let summary = tally.summary(label, t.wave.lanes());
        println!("{summary}");
        assert!(tally.failures.is_empty() && tally.not_lowered.is_empty(), "{summary}\n{:#?}", tally.failures);
        // Every line runs at the target's width: 7 pass; the `fault:` line is skipped and the
        // interpreter faults on the 8-element input at either width.
        assert_eq!(tally.passed, 7, "{summary}");
        assert_eq!(tally.other_width, 0, "{summary}");
        assert_eq!(tally.expects_fault, 1, "{summary}");
        assert_eq!(tally.interpreter_faults.len(), 1, "{summary}");
    }
    let _ = std::fs::remove_dir_all(&dir);

    // A differing buffer is a failure naming the buffer, the first index and both values.
    let names = vec!["n".to_string(), "out".to_string()];
    let want =
        [ArgValue::Scalar(ScalarType::U32, 3), ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, [1u64, 2, 3]))];
    let got =
        [ArgValue::Scalar(ScalarType::U32, 3), ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, [1u64, 5, 7]))];
    match mismatch(&names, &want, &got) {
        Some(Outcome::Failed(m)) => assert_eq!(
            m,
            "buffer %out differs from the interpreter at index 1: interpreter 2 (0x00000002), simulator 5 (0x00000005) (2 elements differ)"
        ),
        _ => panic!("a differing buffer must be a failure"),
    }
    assert!(mismatch(&names, &want, &want).is_none());
}
