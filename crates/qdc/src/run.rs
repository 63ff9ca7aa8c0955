//! `qdc run`: runs a kernel or program of a `.qdm` file on the `cpu` device (the MIR interpreter)
//! with arguments built from SPECs, then prints or saves the buffers asked for.

use crate::{load, verify};
use qd_mir::interp::{run_kernel, run_program, ArgValue, RunConfig};
use qdc::npy;
use qdc::spec::{format_buffer, parse_spec};
use std::time::Instant;

struct Options {
    file: String,
    kernel: Option<String>,
    program: Option<String>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    subgroup_size: u32,
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
        subgroup_size: 32,
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
                    .ok()
                    .filter(|s| s.is_power_of_two() && *s <= 64)
                    .ok_or_else(|| format!("--subgroup-size wants a power of two from 1 to 64, got '{v}'"))?;
            }
            "--arg" => {
                let v = value(a)?;
                let (n, s) = v.split_once('=').ok_or_else(|| format!("--arg wants NAME=SPEC, got '{v}'"))?;
                o.args.push((n.to_string(), s.to_string()));
            }
            "--print" => o.print.push(value(a)?),
            "--out" => {
                let v = value(a)?;
                let (n, f) = v.split_once('=').ok_or_else(|| format!("--out wants NAME=FILE.npy, got '{v}'"))?;
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

/// Runs `qdc run`.
pub fn run(args: &[String]) -> Result<(), String> {
    let o = parse_options(args)?;
    let (_, module) = load(&o.file)?;
    verify(&o.file, &module)?;
    let param_names: Vec<String> = match (&o.kernel, &o.program) {
        (Some(k), _) => module
            .kernel(k)
            .ok_or_else(|| format!("no kernel @{k} in {}", o.file))?
            .params
            .iter()
            .map(|p| p.name.clone())
            .collect(),
        (_, Some(p)) => module
            .program(p)
            .ok_or_else(|| format!("no program @{p} in {}", o.file))?
            .params
            .iter()
            .map(|p| p.name.clone())
            .collect(),
        _ => Vec::new(),
    };
    let mut values: Vec<Option<ArgValue>> = param_names.iter().map(|_| None).collect();
    for (name, spec) in &o.args {
        let i = param_names
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("--arg {name}: no parameter %{name} (parameters: {})", param_names.join(", ")))?;
        values[i] = Some(parse_spec(spec).map_err(|e| format!("--arg {name}: {e}"))?);
    }
    let mut argv: Vec<ArgValue> = Vec::with_capacity(values.len());
    for (v, name) in values.into_iter().zip(&param_names) {
        argv.push(v.ok_or_else(|| format!("missing --arg {name}=SPEC"))?);
    }
    let cfg = RunConfig { subgroup_size: o.subgroup_size, grid: o.grid, block: o.block, step_limit: None };
    let start = Instant::now();
    let stats = match (&o.kernel, &o.program) {
        (Some(k), _) => module.kernel(k).map(|f| run_kernel(f, &cfg, &mut argv)),
        (_, Some(p)) => module.program(p).map(|prog| run_program(&module, prog, &cfg, &mut argv)),
        _ => None,
    }
    .ok_or("nothing to run")?
    .map_err(|e| format!("error: {e}"))?;
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
    eprintln!(
        "ran on cpu (subgroup size {}): {} lane-instructions in {:.3} ms",
        o.subgroup_size,
        stats.lane_instructions,
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}
