//! `qdc compile FILE.qdm --target vulkan1.1|vulkan1.2|vulkan1.3 --emit spv|spvasm [-o OUT]
//! [--kernel NAME] [--subgroup-size W] [--reduce auto|group|clustered|shuffle]`: SPIR-V for one
//! kernel, or (spvasm only) for every kernel of the file, each module preceded by a
//! `; ---- kernel @NAME` line. `spv` writes the module's binary words (little-endian), so it needs
//! one kernel: the file's only one, or `--kernel NAME`. The device is lavapipe's
//! ([`qd_isel_spirv::DeviceCaps::lavapipe`]) at width `W` (default 8).

use crate::{load, verify};
use qd_isel_spirv::{compile_kernel, disassemble, DeviceCaps, ReduceStrategy, SpirvOptions, TargetEnv};
use std::io::Write;

/// Runs `qdc compile` for a Vulkan target.
pub fn compile(args: &[String]) -> Result<(), String> {
    let mut file = None;
    let mut env = None;
    let mut emit = None;
    let mut out = None;
    let mut kernel = None;
    let mut reduce = ReduceStrategy::Auto;
    let mut width = 8u32;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--target" => {
                let v = value(a)?;
                env =
                    Some(TargetEnv::parse(&v).ok_or_else(|| {
                        format!("--target: unknown target '{v}' (want vulkan1.1, vulkan1.2, vulkan1.3)")
                    })?);
            }
            "--emit" => emit = Some(value(a)?),
            "-o" => out = Some(value(a)?),
            "--kernel" => kernel = Some(value(a)?),
            "--subgroup-size" => {
                let v = value(a)?;
                width = v
                    .parse()
                    .ok()
                    .filter(|w: &u32| w.is_power_of_two() && *w <= 64)
                    .ok_or_else(|| format!("--subgroup-size wants a power of two in 1..=64, got '{v}'"))?;
            }
            "--reduce" => {
                let v = value(a)?;
                reduce = ReduceStrategy::from_name(&v)
                    .ok_or_else(|| format!("--reduce wants auto, group, clustered or shuffle, got '{v}'"))?;
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
    let env = env.ok_or("qdc compile: missing --target")?;
    let binary = match emit.as_deref() {
        Some("spv") => true,
        Some("spvasm") | None => false,
        Some(other) => {
            return Err(format!("qdc compile: --emit {other} is not supported for {env} (want spv or spvasm)"))
        }
    };
    let (src, module, map) = load(&file)?;
    verify(&file, &src, &map, &module)?;
    let kernels: Vec<&qd_mir::Function> = match &kernel {
        Some(k) => vec![module.kernel(k).ok_or_else(|| format!("no kernel @{k} in {file}"))?],
        None => module.kernels.iter().collect(),
    };
    if kernels.is_empty() {
        return Err(format!("{file} has no kernel"));
    }
    if binary && kernels.len() > 1 {
        return Err(format!(
            "qdc compile: {file} has {} kernels; --emit spv writes one module: pick one with --kernel NAME",
            kernels.len()
        ));
    }
    let opts = SpirvOptions {
        reduce,
        ..SpirvOptions::new(env, DeviceCaps { subgroup_size: width, ..DeviceCaps::lavapipe() })
    };
    let mut bytes = Vec::new();
    for f in &kernels {
        let k = compile_kernel(f, &opts).map_err(|e| format!("error: kernel @{}: {e}", f.name))?;
        if binary {
            bytes.extend(k.words.iter().flat_map(|w| w.to_le_bytes()));
        } else {
            if kernel.is_none() {
                bytes.extend_from_slice(format!("; ---- kernel @{}\n", f.name).as_bytes());
            }
            bytes.extend_from_slice(disassemble(&k.words).as_bytes());
        }
    }
    match out {
        Some(o) => std::fs::write(&o, bytes).map_err(|e| format!("cannot write {o}: {e}")),
        None => std::io::stdout().write_all(&bytes).map_err(|e| format!("cannot write to stdout: {e}")),
    }
}
