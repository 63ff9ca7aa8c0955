//! `qdc compile FILE.qdm --target sm_XY --emit ptx [-o OUT] [--kernel NAME] [--reduce R]`: PTX for
//! one kernel, or for every kernel of the file (each a separate PTX module, written one after
//! another, each preceded by a `// ---- kernel @NAME` comment line). `--target vulkan1.x` goes to
//! `compile_spirv.rs`, `--target gfx…` to `compile_amdgcn.rs`.

use crate::{load, verify};
use qd_isel_ptx::{compile_kernel, PtxOptions, PtxVersion, ReduceStrategy, Sm};

/// Runs `qdc compile`.
pub fn compile(args: &[String]) -> Result<(), String> {
    let vulkan = args.windows(2).any(|w| w[0] == "--target" && w[1].starts_with("vulkan"));
    if vulkan {
        return crate::compile_spirv::compile(args);
    }
    let amdgcn = args.windows(2).any(|w| w[0] == "--target" && w[1].starts_with("gfx"));
    if amdgcn {
        return crate::compile_amdgcn::compile(args);
    }
    let mut file = None;
    let mut target = None;
    let mut emit = None;
    let mut out = None;
    let mut kernel = None;
    let mut reduce = ReduceStrategy::Auto;
    let mut max_version = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--target" => {
                let v = value(a)?;
                let names: Vec<&str> = Sm::ALL.iter().map(|s| s.name()).collect();
                target = Some(
                    Sm::from_name(&v)
                        .ok_or_else(|| format!("--target: unknown target '{v}' (want {})", names.join(", ")))?,
                );
            }
            "--emit" => emit = Some(value(a)?),
            "-o" => out = Some(value(a)?),
            "--kernel" => kernel = Some(value(a)?),
            "--reduce" => {
                let v = value(a)?;
                reduce = ReduceStrategy::from_name(&v)
                    .ok_or_else(|| format!("--reduce wants auto, redux or shuffle, got '{v}'"))?;
            }
            "--max-version" => {
                let v = value(a)?;
                let parsed =
                    v.split_once('.').and_then(|(a, b)| Some(PtxVersion::new(a.parse().ok()?, b.parse().ok()?)));
                max_version = Some(parsed.ok_or_else(|| format!("--max-version wants MAJOR.MINOR, got '{v}'"))?);
            }
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
    let target = target.ok_or(
        "qdc compile: missing --target (sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, vulkan1.1, vulkan1.2, vulkan1.3, \
         gfx90a, gfx942 or gfx1100)",
    )?;
    match emit.as_deref() {
        Some("ptx") | None => {}
        Some(other) => return Err(format!("qdc compile: --emit {other} is not supported (want ptx)")),
    }
    let (src, module, map) = load(&file)?;
    verify(&file, &src, &map, &module)?;
    let kernels: Vec<&qd_mir::Function> = match &kernel {
        Some(k) => vec![module.kernel(k).ok_or_else(|| format!("no kernel @{k} in {file}"))?],
        None => module.kernels.iter().collect(),
    };
    if kernels.is_empty() {
        return Err(format!("{file} has no kernel"));
    }
    let opts = PtxOptions { max_version, reduce, ..PtxOptions::new(target) };
    let mut text = String::new();
    for f in &kernels {
        let k = compile_kernel(f, &opts).map_err(|e| format!("error: kernel @{}: {e}", f.name))?;
        if kernel.is_none() {
            text.push_str(&format!("// ---- kernel @{}\n", f.name));
        }
        text.push_str(&k.ptx);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    match out {
        Some(o) => std::fs::write(&o, text).map_err(|e| format!("cannot write {o}: {e}")),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
