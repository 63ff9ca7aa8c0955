//! `qdc compile FILE.qdm --target gfx90a|gfx942|gfx1100 [--wave32] [--emit asm|obj|vcode]
//! [-o OUT] [--kernel NAME] [--shuffle-lowering auto|dpp|swizzle|permlane|bpermute]`: AMDGCN
//! machine code from `qd_isel_amdgcn::compile_kernel`; and `qdc explain FILE.qdm --target …
//! [--wave32] [--kernel NAME] [--shuffle-lowering F] [--format text|json]`, which compiles the
//! same way and prints the shuffle selector's choices (the report is [`qdc::explain`]).
//!
//! - `asm` (the default) prints, for one kernel or for every kernel of the file, a `;` comment
//!   header (kernel, target, VGPRs, SGPRs, LDS bytes, spill bytes per lane, code size) and then
//!   [`CompiledKernel::asm`]: the final instructions, each with its offset and encoding;
//! - `obj` writes the kernel's HSA code object (one kernel: the file's only one or `--kernel`),
//!   by default to FILE with the extension `.co`, with a DWARF line table mapping each
//!   instruction to its `.qdm` line, and prints a summary on standard error;
//! - `vcode` prints [`CompiledKernel::vcode`], the machine code before register allocation.
//!
//! `--wave32` (or `--target gfx1100:wave32`) picks gfx1100's 32-lane waves; the GFX9 targets run
//! wave64 only. `--shuffle-lowering` forces one cross-lane family on every shuffle, broadcast,
//! reduction and scan ([`AmdgcnOptions::shuffle_lowering`]; `auto`, the default, lets the selector
//! pick the cheapest): an op the family cannot lower is a compile error at the op's line, never a
//! silent fallback (docs/shuffle-lowering.md). A kernel that cannot be compiled is an error naming the op, the type and the
//! target, pointing at the `.qdm` line of the instruction that was being lowered (or at the
//! kernel's header for errors about the kernel as a whole).

use std::io::Write as _;
use std::path::Path;

use qd_isel_amdgcn::{
    compile_kernel_with_lines, AmdgcnOptions, CompiledKernel, ShuffleLowering, SourceFile, Target, WaveSize,
};
use qd_mir::{AnyEntity, Function, Inst};
use qdc::explain::{kernel_report, Header, KernelReport};

use crate::asm::parse_target;
use crate::diagnostic::Source;

/// What `--emit` asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Emit {
    Asm,
    Obj,
    Vcode,
}

struct Options {
    file: String,
    target: Target,
    emit: Emit,
    out: Option<String>,
    kernel: Option<String>,
    shuffle_lowering: ShuffleLowering,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let mut target = None;
    let mut wave32 = false;
    let mut emit = Emit::Asm;
    let mut out = None;
    let mut kernel = None;
    let mut shuffle_lowering = ShuffleLowering::Auto;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("qdc compile: {flag} needs a value"));
        match a.as_str() {
            "--target" => target = Some(parse_target(&value(a)?)?),
            "--wave32" => wave32 = true,
            "--shuffle-lowering" => shuffle_lowering = parse_shuffle_lowering("qdc compile", &value(a)?)?,
            "--emit" => {
                emit = match value(a)?.as_str() {
                    "asm" => Emit::Asm,
                    "obj" => Emit::Obj,
                    "vcode" => Emit::Vcode,
                    other => {
                        return Err(format!(
                            "qdc compile: --emit {other} is not supported for AMDGCN (want asm, obj or vcode)"
                        ))
                    }
                }
            }
            "-o" => out = Some(value(a)?),
            "--kernel" => kernel = Some(value(a)?),
            flag if flag.starts_with('-') => return Err(format!("qdc compile: unknown option {flag}")),
            f => {
                if let Some(prev) = &file {
                    return Err(format!("qdc compile: more than one file ('{prev}' and '{f}')"));
                }
                file = Some(f.to_string());
            }
        }
    }
    let file = file.ok_or("qdc compile: missing FILE.qdm")?;
    let target = with_wave32("qdc compile", target.ok_or("qdc compile: missing --target")?, wave32)?;
    Ok(Options { file, target, emit, out, kernel, shuffle_lowering })
}

/// `--shuffle-lowering NAME` of `cmd` (`qdc compile`, `qdc explain`).
pub(crate) fn parse_shuffle_lowering(cmd: &str, v: &str) -> Result<ShuffleLowering, String> {
    v.parse::<ShuffleLowering>().map_err(|e| format!("{cmd}: --shuffle-lowering: {e}"))
}

/// `target` in wave32 when `--wave32` was given (gfx1100 only).
pub(crate) fn with_wave32(cmd: &str, target: Target, wave32: bool) -> Result<Target, String> {
    if !wave32 {
        return Ok(target);
    }
    Target::new(target.arch, WaveSize::W32)
        .ok_or_else(|| format!("{cmd}: --wave32 needs --target gfx1100 ({} runs wave64 only)", target.arch))
}

/// `gfx942 (wave64)`: the architecture and the wave size, for every target alike.
pub(crate) fn target_name(t: Target) -> String {
    format!("{} (wave{})", t.arch, t.wave.lanes())
}

/// The `;` header printed before a kernel's listing.
fn header(k: &CompiledKernel) -> String {
    let r = &k.resources;
    format!(
        "; kernel @{}: {}: {} VGPRs, {} SGPRs, {} bytes LDS, {} spill bytes per lane; {} instructions, {} bytes of code\n",
        k.name,
        target_name(k.target),
        r.next_free_vgpr,
        r.next_free_sgpr,
        r.group_segment_size,
        k.spill_bytes_per_lane,
        k.insts.len(),
        k.code.len()
    )
}

/// Compiles kernel number `index` of the file with `opts` (target, forced shuffle lowering); the
/// error is rendered at the `.qdm` line and column of the instruction it blames.
pub(crate) fn compile_one(
    f: &Function,
    index: usize,
    source: &Source,
    opts: &AmdgcnOptions,
    path: &str,
) -> Result<CompiledKernel, String> {
    let lines = |i: Inst| source.map.line_of(index, AnyEntity::Inst(i));
    // The code object's DWARF line table names the file as given, relative to the current
    // directory.
    let comp_dir = std::env::current_dir().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    let file = SourceFile { comp_dir, file: path.to_string() };
    compile_kernel_with_lines(f, opts, Some(&file), &lines).map_err(|e| source.render(&e, f, index, path))
}

/// Runs `qdc compile` for an AMDGCN target.
pub fn compile(args: &[String]) -> Result<(), String> {
    let o = parse_options(args)?;
    let loaded = Source::read(&o.file)?;
    let kernels = loaded.kernels(o.kernel.as_deref(), &o.file)?;
    if o.emit == Emit::Obj && kernels.len() > 1 {
        return Err(format!(
            "qdc compile: {} has {} kernels; --emit obj writes one kernel's code object: pick one with --kernel NAME",
            o.file,
            kernels.len()
        ));
    }
    // The VCode listing is kept for `--emit vcode` (any emit: it is cheap next to a process).
    let opts = AmdgcnOptions { keep_vcode: true, shuffle_lowering: o.shuffle_lowering, ..AmdgcnOptions::new(o.target) };
    let mut text = String::new();
    for (n, &(index, f)) in kernels.iter().enumerate() {
        let k = compile_one(f, index, &loaded, &opts, &o.file)?;
        match o.emit {
            Emit::Obj => {
                let out = o
                    .out
                    .clone()
                    .unwrap_or_else(|| Path::new(&o.file).with_extension("co").to_string_lossy().into_owned());
                std::fs::write(&out, &k.code_object).map_err(|e| format!("error: cannot write {out}: {e}"))?;
                eprint!("{out}: {}", header(&k).trim_start_matches("; "));
                return Ok(());
            }
            Emit::Asm | Emit::Vcode => {
                if n > 0 {
                    text.push('\n');
                }
                text.push_str(&header(&k));
                let body = if o.emit == Emit::Asm { k.asm() } else { k.vcode.clone() };
                text.push_str(&body);
                if !text.ends_with('\n') {
                    text.push('\n');
                }
            }
        }
    }
    match &o.out {
        Some(out) => std::fs::write(out, text).map_err(|e| format!("error: cannot write {out}: {e}")),
        None => std::io::stdout().write_all(text.as_bytes()).map_err(|e| format!("error: cannot write to stdout: {e}")),
    }
}

// ----- qdc explain ---------------------------------------------------------------------------

/// The output format of `qdc explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// `qdc explain`'s options.
#[derive(Debug)]
struct ExplainOptions {
    file: String,
    target: Target,
    kernel: Option<String>,
    shuffle_lowering: ShuffleLowering,
    format: Format,
}

fn parse_explain_options(args: &[String]) -> Result<ExplainOptions, String> {
    let mut file = None;
    let mut target = None;
    let mut wave32 = false;
    let mut kernel = None;
    let mut shuffle_lowering = ShuffleLowering::Auto;
    let mut format = Format::Text;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("qdc explain: {flag} needs a value"));
        match a.as_str() {
            "--target" => target = Some(parse_target(&value(a)?)?),
            "--wave32" => wave32 = true,
            "--kernel" => kernel = Some(value(a)?),
            "--shuffle-lowering" => shuffle_lowering = parse_shuffle_lowering("qdc explain", &value(a)?)?,
            "--format" => {
                format = match value(a)?.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    other => return Err(format!("qdc explain: --format {other} is not supported (want text or json)")),
                }
            }
            flag if flag.starts_with('-') => return Err(format!("qdc explain: unknown option {flag}")),
            f => {
                if let Some(prev) = &file {
                    return Err(format!("qdc explain: more than one file ('{prev}' and '{f}')"));
                }
                file = Some(f.to_string());
            }
        }
    }
    let file = file.ok_or("qdc explain: missing FILE.qdm")?;
    let target = target.ok_or("qdc explain: missing --target (gfx90a, gfx942 or gfx1100)")?;
    let target = with_wave32("qdc explain", target, wave32)?;
    Ok(ExplainOptions { file, target, kernel, shuffle_lowering, format })
}

/// Runs `qdc explain`: compiles every kernel (or `--kernel`'s) as `qdc compile` does and prints
/// the shuffle selector's choices ([`qdc::explain`]).
pub fn explain(args: &[String]) -> Result<(), String> {
    let o = parse_explain_options(args)?;
    let loaded = Source::read(&o.file)?;
    let kernels = loaded.kernels(o.kernel.as_deref(), &o.file)?;
    let opts = AmdgcnOptions { shuffle_lowering: o.shuffle_lowering, ..AmdgcnOptions::new(o.target) };
    let mut compiled = Vec::with_capacity(kernels.len());
    for &(index, f) in &kernels {
        compiled.push((index, compile_one(f, index, &loaded, &opts, &o.file)?));
    }
    let reports: Vec<KernelReport<'_>> = compiled
        .iter()
        .map(|(index, k)| kernel_report(k, &loaded.src, |i| loaded.map.line_of(*index, AnyEntity::Inst(i))))
        .collect();
    let h = Header { file: &o.file, target: o.target, lowering: o.shuffle_lowering };
    let out = match o.format {
        Format::Text => qdc::explain::text(&h, &reports),
        Format::Json => qdc::explain::json(&h, &reports),
    };
    std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("error: cannot write to stdout: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_isel_amdgcn::Arch;

    #[test]
    fn wave32_only_with_gfx1100() {
        let args = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let o = parse_options(&args("k.qdm --target gfx1100 --wave32 --emit obj")).expect("parses");
        assert_eq!(o.target, Target { arch: Arch::Gfx1100, wave: WaveSize::W32 });
        assert!(o.emit == Emit::Obj);
        let o = parse_options(&args("k.qdm --target gfx1100:wave32")).expect("parses");
        assert_eq!(o.target.wave, WaveSize::W32);
        let o = parse_options(&args("k.qdm --target gfx1100")).expect("parses");
        assert_eq!(o.target.wave, WaveSize::W64);
        let e = parse_options(&args("k.qdm --target gfx90a --wave32")).err().unwrap_or_default();
        assert_eq!(e, "qdc compile: --wave32 needs --target gfx1100 (gfx90a runs wave64 only)");
    }

    #[test]
    fn explain_options() {
        let args = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let o = parse_explain_options(&args(
            "k.qdm --target gfx1100 --wave32 --format json --shuffle-lowering dpp --kernel k",
        ))
        .expect("parses");
        assert_eq!(o.target, Target { arch: Arch::Gfx1100, wave: WaveSize::W32 });
        assert_eq!(
            (o.format, o.shuffle_lowering, o.kernel.as_deref()),
            (Format::Json, ShuffleLowering::Dpp, Some("k"))
        );
        let e = parse_explain_options(&args("k.qdm --target gfx942 --shuffle-lowering lds")).unwrap_err();
        assert!(e.starts_with("qdc explain: --shuffle-lowering: unknown shuffle lowering 'lds'"), "{e}");
        let e = parse_explain_options(&args("k.qdm --target gfx942 --format yaml")).unwrap_err();
        assert_eq!(e, "qdc explain: --format yaml is not supported (want text or json)");
        let e = parse_explain_options(&args("k.qdm")).unwrap_err();
        assert!(e.contains("missing --target"), "{e}");
        let e = parse_explain_options(&args("k.qdm --target gfx942 --wave32")).unwrap_err();
        assert_eq!(e, "qdc explain: --wave32 needs --target gfx1100 (gfx942 runs wave64 only)");
        let o = parse_options(&args("k.qdm --target gfx942 --shuffle-lowering bpermute")).expect("parses");
        assert_eq!(o.shuffle_lowering, ShuffleLowering::Bpermute);
    }
}
