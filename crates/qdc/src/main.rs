//! `qdc`: the qd command line.
//!
//! - `qdc check FILE.qdm` parses and verifies; every error points at its line and column with a
//!   caret (verifier errors with the file's own value names); exit status 1 on any error.
//! - `qdc fmt FILE.qdm [--check]` prints the canonical text (or checks the file already is).
//! - `qdc run FILE.qdm (--kernel NAME | --program NAME) [--device D] [--grid G] [--block B]
//!   [--subgroup-size S] [--arg NAME=SPEC]… [--print NAME]… [--save NAME=FILE.npy]…` runs on a
//!   device: `cpu` (the interpreter, the default), `cpu:N`, `cuda`, `cuda:N`, `vulkan`,
//!   `vulkan:N` or `best`.
//! - `qdc compile FILE.qdm --target sm_XY [--emit ptx] [-o OUT] [--kernel NAME]
//!   [--reduce auto|redux|shuffle] [--max-version X.Y]` prints (or writes) PTX: one kernel's
//!   module, or every kernel's module one after another, each after a `// ---- kernel @NAME` line.
//! - `qdc compile FILE.qdm --target vulkan1.1|vulkan1.2|vulkan1.3 --emit spv|spvasm [-o OUT]
//!   [--kernel NAME] [--subgroup-size W] [--reduce auto|group|clustered|shuffle]` writes SPIR-V
//!   (binary words of one kernel, or the spvasm text of each).
//! - `qdc compile FILE.qdm --target gfx90a|gfx942|gfx1100 [--wave32] [--emit asm|obj|vcode]
//!   [-o OUT] [--kernel NAME] [--shuffle-lowering auto|dpp|swizzle|permlane|bpermute]` compiles
//!   to AMDGCN machine code: the final assembly with a resource header (default), the HSA code
//!   object of one kernel (default OUT: FILE.co), or the VCode before register allocation;
//!   `--shuffle-lowering` forces one cross-lane family on every shuffle, reduction and scan (an
//!   op it cannot lower is an error at the op's line).
//! - `qdc explain FILE.qdm --target gfx90a|gfx942|gfx1100 [--wave32] [--kernel NAME]
//!   [--shuffle-lowering F] [--format text|json]` prints, for every subgroup op the AMDGCN
//!   shuffle selector lowered, the pattern found, every candidate sequence with its estimated
//!   cycles, instructions and LDS operations, the one chosen and its speed-up over the bpermute
//!   baseline (docs/shuffle-lowering.md).
//! - `qdc devices` lists the devices (`cpu:32`, each CUDA GPU, each HSA (AMD) GPU, each Vulkan
//!   device), says why CUDA, HSA or Vulkan is absent, and lists the AMDGCN simulators (`sim-*`,
//!   marked `[simulator]`).
//! - `qdc demo` builds a subgroup reduction with the Rust builder and runs it on the best device,
//!   then sorts one million keys there with `qd_lib::algorithms::sort` and prints the time.
//! - `qdc algo ALGORITHM …` writes a qd-lib device-wide algorithm (reduce, exclusive scan, select,
//!   reduce-by-key, sort) as a `.qdm` program for a capacity and target, and prints the
//!   `qdc run` arguments it needs.
//! - `qdc asm FILE.s --target T [-o OUT.co] [--kernel NAME] [--lds BYTES] [--kernarg-size BYTES]
//!   [--workgroup-size N]` assembles AMDGCN assembler text (LLVM 19 syntax) into an HSA code
//!   object with one kernel (resources computed from the instructions; ABI in docs/qdc.md).
//! - `qdc disasm FILE.co [--kernel NAME] [--no-descriptor] [--mc-syntax] [--strict]`
//!   disassembles the kernels of a code object (qd's or an LLVM/lld one) as `llvm-objdump-19 -d`
//!   prints them, then prints each kernel descriptor as `.amdhsa_*` directives.
//!
//! Later issues add more devices.

#![forbid(unsafe_code)]

mod asm;
mod compile;
mod compile_amdgcn;
mod compile_spirv;
mod demo;
mod devices;
mod diagnostic;
mod disasm;
mod run;

use std::process::ExitCode;

const USAGE: &str = "\
qdc — the qd compiler driver

USAGE:
  qdc check FILE.qdm
  qdc fmt FILE.qdm [--check]
  qdc run FILE.qdm (--kernel NAME | --program NAME) [--device D] [--grid G] [--block B]
          [--subgroup-size S] [--arg NAME=SPEC]... [--print NAME]... [--save NAME=FILE.npy]...
  qdc compile FILE.qdm --target SM [--emit ptx] [-o OUT] [--kernel NAME] [--reduce R]
          [--max-version X.Y]
  qdc compile FILE.qdm --target VK --emit spv|spvasm [-o OUT] [--kernel NAME]
          [--subgroup-size W] [--reduce auto|group|clustered|shuffle]
  qdc compile FILE.qdm --target GFX [--wave32] [--emit asm|obj|vcode] [-o OUT] [--kernel NAME]
          [--shuffle-lowering F]
  qdc explain FILE.qdm --target GFX [--wave32] [--kernel NAME] [--shuffle-lowering F]
          [--format text|json]
  qdc devices
  qdc demo [--subgroup-size S | --device D] [--sort-n N]
  qdc algo ALGORITHM [--dtype T] [--values T] [--max-n N] [--log256 D] [--end-bit B]
          [--device D | --subgroup-size W [--forward-progress]]
          [--cpu] [--strategy auto|multi-launch|single-pass|chunked] [-o OUT.qdm]
  qdc asm FILE.s --target T [-o OUT.co] [--kernel NAME] [--lds BYTES] [--kernarg-size BYTES]
          [--workgroup-size N]
  qdc disasm FILE.co [--kernel NAME] [--no-descriptor] [--mc-syntax] [--strict]

G and B are `X` or `X,Y,Z` (default: the kernel's launch configuration); S defaults to 32.
D: cpu (default) | cpu:WIDTH | cuda | cuda:ORDINAL | vulkan | vulkan:ORDINAL | hsa | hsa:ORDINAL | best
   | sim-gfx942 | sim-gfx90a | sim-gfx1100 | sim-gfx1100-w32 (`qdc devices` lists them)
ALGORITHM: reduce-add | reduce-min | reduce-max | exclusive-scan-add | exclusive-scan-min
      | exclusive-scan-max | select | reduce-by-key-add | sort (N defaults to 1000000, T to u32)
SPEC: iota:TYPE:N | zeros:TYPE:N | fill:TYPE:N:VALUE | rand:TYPE:N:SEED | FILE.npy | TYPE:[V V ...]
      | TYPE:VALUE
SM: sm_70 | sm_75 | sm_80 | sm_86 | sm_89 | sm_90; R: auto | redux | shuffle (compile writes every
    kernel's PTX module one after another, each after a `// ---- kernel @NAME` line, unless
    --kernel picks one)
VK: vulkan1.1 | vulkan1.2 | vulkan1.3 (SPIR-V 1.3 / 1.5 / 1.6 for lavapipe's capabilities at width W,
    default 8; spv needs one kernel)
GFX: gfx90a | gfx942 | gfx1100 (AMDGCN, wave64; --wave32: gfx1100 in wave32). --emit asm (default)
     prints each kernel's final instructions after a header with its VGPR/SGPR/LDS/spill counts,
     obj writes one kernel's HSA code object (OUT defaults to FILE.co), vcode the code before
     register allocation
F: auto (default: the cheapest legal sequence) | dpp | swizzle | permlane | bpermute — forces that
   family on every shuffle, broadcast, reduction and scan (AMDGCN; an op it cannot lower is an
   error at its line). `qdc explain` lists each op's candidates, their estimated cycles, LDS use
   and the one chosen (text, or one JSON document with --format json)
T: gfx90a | gfx942 | gfx1100 | gfx1100:wave32 (AMDGCN; OUT defaults to FILE.co, NAME to the
   file stem; ABI: kernarg pointer in s[0:1], workgroup ids x,y,z in s2..s4, work-item ids in v0)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("check") => check(&args[1..]),
        Some("fmt") => fmt(&args[1..]),
        Some("run") => run::run(&args[1..]),
        Some("compile") => compile::compile(&args[1..]),
        Some("explain") => compile_amdgcn::explain(&args[1..]),
        Some("devices") => devices::devices(&args[1..]),
        Some("demo") => demo::demo(&args[1..]),
        Some("algo") => qdc::algo::algo(&args[1..]),
        Some("asm") => asm::asm(&args[1..]),
        Some("disasm") => disasm::disasm(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{USAGE}")),
        None => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{}", msg.trim_end());
            ExitCode::FAILURE
        }
    }
}

/// Reads a `.qdm` file and parses it with its source map; parse errors come back rendered with a
/// caret.
pub fn load(path: &str) -> Result<(String, qd_mir::Module, qd_mir::SourceMap), String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("error: cannot read {path}: {e}"))?;
    match qd_mir::parse_module_with_map(&src) {
        Ok((m, map)) => Ok((src, m, map)),
        Err(e) => Err(e.render(&src, path)),
    }
}

/// Verifies every kernel and program; each error is rendered rustc-style at its line and column
/// of the file, with the file's own value names ([`diagnostic::verify_rendered`]).
pub fn verify(path: &str, src: &str, map: &qd_mir::SourceMap, module: &qd_mir::Module) -> Result<(), String> {
    diagnostic::verify_rendered(src, path, map, module)
}

fn one_file(args: &[String], cmd: &str) -> Result<String, String> {
    match args.iter().find(|a| !a.starts_with("--")) {
        Some(f) => Ok(f.clone()),
        None => Err(format!("qdc {cmd}: missing FILE.qdm\n\n{USAGE}")),
    }
}

fn check(args: &[String]) -> Result<(), String> {
    let path = one_file(args, "check")?;
    let (src, module, map) = load(&path)?;
    verify(&path, &src, &map, &module)?;
    println!("{path}: ok ({} kernels, {} programs)", module.kernels.len(), module.programs.len());
    Ok(())
}

fn fmt(args: &[String]) -> Result<(), String> {
    let path = one_file(args, "fmt")?;
    let (src, module, _) = load(&path)?;
    let text = qd_mir::text::print_module(&module);
    if args.iter().any(|a| a == "--check") {
        if text != src {
            return Err(format!("{path}: not formatted (run `qdc fmt {path}` to see the canonical text)"));
        }
        return Ok(());
    }
    print!("{text}");
    Ok(())
}
