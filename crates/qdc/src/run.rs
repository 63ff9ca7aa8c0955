//! `qdc run`: runs a kernel or program of a `.qdm` file on a device (`--device`: `cpu`, the MIR
//! interpreter, by default; `cpu:N`; `cuda`/`cuda:N`; `vulkan`/`vulkan:N`; `best`) with arguments
//! built from SPECs, then prints or saves the buffers asked for. On `cpu` the run reports its
//! lane-instruction count; `--subgroup-size` sets the cpu width (on another device it must be the
//! device's own width: a Vulkan device's is fixed when its driver loads).
//!
//! A `.npy` argument must hold the element type of its buffer parameter (the error names the
//! argument and both dtypes); `--save NAME=FILE.npy` (alias `--out`) writes a buffer after a
//! successful run as a 1-D `.npy`. A program's status word is allocated by the runtime (it is no
//! parameter); its argument checks and status bits fail the run with their message.

use crate::{load, verify};
use qd_mir::interp::{run_kernel, run_program, ArgValue, RunConfig};
use qd_mir::{AddrSpace, Type};
use qd_rt::{Device, DeviceKind, LaunchOptions};
use qdc::npy;
use qdc::spec::{format_buffer, parse_spec};
use std::time::Instant;

struct Options {
    file: String,
    kernel: Option<String>,
    program: Option<String>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    subgroup_size: Option<u32>,
    device: Option<String>,
    args: Vec<(String, String)>,
    print: Vec<String>,
    out: Vec<(String, String)>,
}

fn dims(flag: &str, s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{flag} wants X or X,Y,Z, got '{s}'"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("{flag}: '{p}' is not a positive integer"))?;
    }
    Ok(d)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        file: String::new(),
        kernel: None,
        program: None,
        grid: None,
        block: None,
        subgroup_size: None,
        device: None,
        args: Vec::new(),
        print: Vec::new(),
        out: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--kernel" => o.kernel = Some(value(a)?),
            "--program" => o.program = Some(value(a)?),
            "--grid" => o.grid = Some(dims(a, &value(a)?)?),
            "--block" => o.block = Some(dims(a, &value(a)?)?),
            "--subgroup-size" => {
                let v = value(a)?;
                o.subgroup_size = v
                    .parse::<u32>()
                    .map(Some)
                    .ok()
                    .filter(|s| s.is_some_and(|s| s.is_power_of_two() && s <= 64))
                    .ok_or_else(|| format!("--subgroup-size wants a power of two from 1 to 64, got '{v}'"))?;
            }
            "--device" => o.device = Some(value(a)?),
            "--arg" => {
                let v = value(a)?;
                let (n, s) = v.split_once('=').ok_or_else(|| format!("--arg wants NAME=SPEC, got '{v}'"))?;
                o.args.push((n.to_string(), s.to_string()));
            }
            "--print" => o.print.push(value(a)?),
            "--save" | "--out" => {
                let v = value(a)?;
                let (n, f) = v.split_once('=').ok_or_else(|| format!("{a} wants NAME=FILE.npy, got '{v}'"))?;
                o.out.push((n.to_string(), f.to_string()));
            }
            flag if flag.starts_with("--") => return Err(format!("qdc run: unknown option {flag}")),
            file => {
                if !o.file.is_empty() {
                    return Err(format!("qdc run: more than one file ('{}' and '{file}')", o.file));
                }
                o.file = file.to_string();
            }
        }
    }
    if o.file.is_empty() {
        return Err("qdc run: missing FILE.qdm".into());
    }
    if o.kernel.is_some() == o.program.is_some() {
        return Err("qdc run: give exactly one of --kernel NAME or --program NAME".into());
    }
    Ok(o)
}

/// A `.npy` argument holds the element type of its buffer parameter.
fn check_npy_arg(name: &str, path: &str, ty: Type, v: &ArgValue) -> Result<(), String> {
    let ArgValue::Buffer(b) = v else { return Ok(()) };
    match ty {
        Type::Ptr(AddrSpace::Global, e) if e == b.elem => Ok(()),
        Type::Ptr(AddrSpace::Global, e) => Err(format!(
            "--arg {name}={path}: the file holds {} ({}), but %{name} is {ty}: it needs a .npy of {} ({e})",
            npy::descr(b.elem),
            b.elem,
            npy::descr(e)
        )),
        _ => {
            Err(format!("--arg {name}={path}: %{name} is a {ty} parameter, not a buffer: give a scalar such as {ty}:1"))
        }
    }
}

/// Runs `qdc run`.
pub fn run(args: &[String]) -> Result<(), String> {
    let o = parse_options(args)?;
    let (src, module, map) = load(&o.file)?;
    verify(&o.file, &src, &map, &module)?;
    let params: Vec<(String, Type)> = match (&o.kernel, &o.program) {
        (Some(k), _) => module
            .kernel(k)
            .ok_or_else(|| format!("no kernel @{k} in {}", o.file))?
            .params
            .iter()
            .map(|p| (p.name.clone(), p.ty))
            .collect(),
        (_, Some(p)) => module
            .program(p)
            .ok_or_else(|| format!("no program @{p} in {}", o.file))?
            .params
            .iter()
            .map(|p| (p.name.clone(), p.ty))
            .collect(),
        _ => Vec::new(),
    };
    let param_names: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
    // The buffers to print or save must be buffer parameters: said before the run, not after.
    for (flag, name) in o.print.iter().map(|n| ("--print", n)).chain(o.out.iter().map(|(n, _)| ("--save", n))) {
        match params.iter().find(|(p, _)| p == name) {
            Some((_, Type::Ptr(AddrSpace::Global, _))) => {}
            Some((_, ty)) => return Err(format!("{flag} {name}: %{name} is a {ty} parameter, not a buffer")),
            None => {
                return Err(format!("{flag} {name}: no parameter %{name} (parameters: {})", param_names.join(", ")))
            }
        }
    }
    let mut values: Vec<Option<ArgValue>> = param_names.iter().map(|_| None).collect();
    for (name, spec) in &o.args {
        let i = param_names
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("--arg {name}: no parameter %{name} (parameters: {})", param_names.join(", ")))?;
        let v = parse_spec(spec).map_err(|e| format!("--arg {name}: {e}"))?;
        if spec.ends_with(".npy") {
            check_npy_arg(name, spec, params[i].1, &v)?;
        }
        values[i] = Some(v);
    }
    let mut argv: Vec<ArgValue> = Vec::with_capacity(values.len());
    for (v, name) in values.into_iter().zip(&param_names) {
        argv.push(v.ok_or_else(|| format!("missing --arg {name}=SPEC"))?);
    }
    let device = match (o.device.as_deref(), o.subgroup_size) {
        (None | Some("cpu"), w) => Device::cpu_with_width(w.unwrap_or(32)).map_err(|e| format!("error: {e}"))?,
        (Some("interp"), w) => Device::interp(w.unwrap_or(32)).map_err(|e| format!("error: {e}"))?,
        (Some(spec), w) => {
            let d = Device::open(spec).map_err(|e| format!("error: --device {spec}: {e}"))?;
            if let Some(w) = w {
                if d.info().subgroup_width != w {
                    return Err(format!(
                        "error: --subgroup-size {w} conflicts with --device {spec} (subgroup width {})",
                        d.info().subgroup_width
                    ));
                }
            }
            d
        }
    };
    let info = device.info().clone();
    let start = Instant::now();
    let mut lane_instructions = None;
    if info.kind == DeviceKind::Interp {
        // The interpreter directly, for its statistics.
        let cfg = RunConfig {
            subgroup_size: info.subgroup_width,
            grid: o.grid,
            block: o.block,
            step_limit: None,
            declared_width: true,
        };
        let stats = match (&o.kernel, &o.program) {
            (Some(k), _) => module.kernel(k).map(|f| run_kernel(f, &cfg, &mut argv)),
            (_, Some(p)) => module.program(p).map(|prog| run_program(&module, prog, &cfg, &mut argv)),
            _ => None,
        }
        .ok_or("nothing to run")?
        .map_err(|e| format!("error: {e}"))?;
        lane_instructions = Some(stats.lane_instructions);
    } else {
        let opts = LaunchOptions { grid: o.grid, block: o.block };
        match (&o.kernel, &o.program) {
            (Some(k), _) => device.run_kernel(module.kernel(k).ok_or("nothing to run")?, &mut argv, &opts),
            (_, Some(p)) => {
                if o.grid.is_some() || o.block.is_some() {
                    return Err("error: --grid/--block apply to kernels only, not to programs".into());
                }
                device.run_program(&module, module.program(p).ok_or("nothing to run")?, &mut argv)
            }
            _ => return Err("nothing to run".into()),
        }
        .map_err(|e| format!("error: {e}"))?;
    }
    let elapsed = start.elapsed();
    let buffer = |name: &str| -> Result<&qd_mir::interp::Buffer, String> {
        let i = param_names.iter().position(|p| p == name).ok_or_else(|| format!("no parameter %{name}"))?;
        match &argv[i] {
            ArgValue::Buffer(b) => Ok(b),
            ArgValue::Scalar(..) => Err(format!("%{name} is a scalar, not a buffer")),
        }
    };
    for name in &o.print {
        println!("{}", format_buffer(buffer(name)?));
    }
    for (name, file) in &o.out {
        std::fs::write(file, npy::write(buffer(name)?)).map_err(|e| format!("cannot write {file}: {e}"))?;
    }
    let ms = elapsed.as_secs_f64() * 1e3;
    match lane_instructions {
        Some(n) => {
            eprintln!("ran on interp (subgroup size {}): {n} lane-instructions in {ms:.3} ms", info.subgroup_width)
        }
        None => eprintln!(
            "ran on {} ({}, {}) in {ms:.3} ms (upload, compile, launch, download)",
            info.spec(),
            info.name,
            info.detail
        ),
    }
    Ok(())
}
