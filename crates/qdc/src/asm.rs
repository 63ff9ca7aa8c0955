//! `qdc asm`: assembles AMDGCN assembler text (LLVM 19 syntax, one instruction per line, as
//! `qd_amdgcn_isa::parse_asm` reads it) into an HSA code object holding one kernel.
//!
//! The kernel's resources are computed from its instructions under one fixed ABI (see
//! [`resources`] and docs/qdc.md): user SGPRs = the kernarg segment pointer in `s[0:1]`; then the
//! workgroup ids x, y, z in `s2`, `s3`, `s4`; the work-item ids x, y, z packed in `v0`.

use std::path::Path;

use qd_amdgcn_isa::code_object::{write_code_object, CodeObjectConfig, KernelCode, KernelResources, UserSgprs};
use qd_amdgcn_isa::{encode_all, parse_asm, Inst, Op, Operand, Shape, SoppImm};
use qd_amdgcn_isa::{Arch, Target, WaveSize};

/// The SGPRs the hardware initialises under this ABI: `s[0:1]` kernarg pointer, `s2..s4`
/// workgroup ids x, y, z. `next_free_sgpr` is never below this.
pub const ABI_SGPRS: u32 = 5;

struct Options {
    file: String,
    target: Target,
    out: Option<String>,
    kernel: Option<String>,
    lds: u32,
    kernarg_size: u32,
    workgroup_size: u32,
}

/// Parses `gfx90a`, `gfx942`, `gfx1100`, `gfx1100:wave64`, `gfx1100:wave32` (wave64 is the
/// default; gfx90a and gfx942 run wave64 only).
pub fn parse_target(s: &str) -> Result<Target, String> {
    let (name, wave) = match s.split_once(':') {
        Some((name, "wave64")) => (name, WaveSize::W64),
        Some((name, "wave32")) => (name, WaveSize::W32),
        Some((_, other)) => return Err(format!("--target: unknown feature '{other}' (wave32 or wave64)")),
        None => (s, WaveSize::W64),
    };
    let arch = Arch::from_name(name)
        .ok_or_else(|| format!("--target: unknown architecture '{name}' (gfx90a, gfx942, gfx1100)"))?;
    Target::new(arch, wave).ok_or_else(|| format!("--target: {arch} cannot run {} lanes per wave", wave.lanes()))
}

fn number(flag: &str, s: &str) -> Result<u32, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse::<u32>(),
    };
    parsed.map_err(|_| format!("{flag}: '{s}' is not a non-negative integer"))
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let mut target = None;
    let mut out = None;
    let mut kernel = None;
    let mut lds = 0;
    let mut kernarg_size = 0;
    let mut workgroup_size = 1024;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("qdc asm: {flag} needs a value"));
        match a.as_str() {
            "--target" => target = Some(parse_target(&value(a)?)?),
            "-o" | "--out" => out = Some(value(a)?),
            "--kernel" => kernel = Some(value(a)?),
            "--lds" => lds = number(a, &value(a)?)?,
            "--kernarg-size" => kernarg_size = number(a, &value(a)?)?,
            "--workgroup-size" => {
                workgroup_size = number(a, &value(a)?)?;
                if !(1..=1024).contains(&workgroup_size) {
                    return Err(format!("--workgroup-size: {workgroup_size} is not in 1..=1024"));
                }
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("qdc asm: unknown option '{flag}'"));
            }
            path => {
                if file.replace(path.to_string()).is_some() {
                    return Err("qdc asm: more than one input file".into());
                }
            }
        }
    }
    let file = file.ok_or("qdc asm: missing FILE.s (see `qdc help`)")?;
    let target = target.ok_or("qdc asm: missing --target (gfx90a, gfx942, gfx1100 or gfx1100:wave32)")?;
    Ok(Options { file, target, out, kernel, lds, kernarg_size, workgroup_size })
}

/// Whether an instruction reads or writes VCC without naming it (branches on VCC).
fn implicit_vcc(op: Op) -> bool {
    matches!(op, Op::SCbranchVccz | Op::SCbranchVccnz)
}

/// The resources of a kernel made of `insts` under `qdc asm`'s ABI: `next_free_sgpr` /
/// `next_free_vgpr` = highest register named + 1 (at least [`ABI_SGPRS`] SGPRs, one VGPR),
/// `uses_vcc` when any operand is `vcc`/`vcc_lo`/`vcc_hi` or a branch tests VCC; kernarg segment
/// pointer, workgroup ids x/y/z and work-item ids x/y/z enabled; no scratch.
pub fn resources(insts: &[Inst], lds: u32, kernarg_size: u32, workgroup_size: u32) -> KernelResources {
    let mut sgprs = ABI_SGPRS;
    let mut vgprs = 1u32;
    let mut uses_vcc = false;
    for inst in insts {
        uses_vcc |= implicit_vcc(inst.op);
        for op in inst.ops() {
            match op {
                Operand::Sgpr(r) => sgprs = sgprs.max(u32::from(r.last()) + 1),
                Operand::Vgpr(r) => vgprs = vgprs.max(u32::from(r.last()) + 1),
                Operand::Vcc | Operand::VccLo | Operand::VccHi => uses_vcc = true,
                Operand::None
                | Operand::Exec
                | Operand::ExecLo
                | Operand::ExecHi
                | Operand::M0
                | Operand::Null
                | Operand::Scc
                | Operand::Int(_)
                | Operand::Float(_)
                | Operand::Literal(_) => {}
            }
        }
    }
    KernelResources {
        next_free_vgpr: vgprs,
        next_free_sgpr: sgprs,
        uses_vcc,
        group_segment_size: lds,
        private_segment_size: 0,
        kernarg_size,
        user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
        workgroup_id: [true, true, true],
        workitem_id_dims: 3,
        max_flat_workgroup_size: workgroup_size,
        f32_denormals: false,
    }
}

/// Rewrites the `--> line L:C` of a rendered [`qd_amdgcn_isa::AsmError`] to name the file.
fn render_error(rendered: &str, path: &str) -> String {
    match rendered.find("--> line ") {
        Some(at) => format!("{}--> {path}:{}", &rendered[..at], &rendered[at + "--> line ".len()..]),
        None => format!("{rendered}(in {path})\n"),
    }
}

/// The default output path: FILE with its extension replaced by `.co`.
fn default_out(file: &str) -> String {
    Path::new(file).with_extension("co").to_string_lossy().into_owned()
}

/// `qdc asm FILE.s --target T [-o OUT.co] [--kernel NAME] [--lds BYTES] [--kernarg-size BYTES]
/// [--workgroup-size N]`.
pub fn asm(args: &[String]) -> Result<(), String> {
    let o = parse_options(args)?;
    let src = std::fs::read_to_string(&o.file).map_err(|e| format!("error: cannot read {}: {e}", o.file))?;
    let insts = parse_asm(&src, o.target).map_err(|e| render_error(&e.render(&src), &o.file))?;
    if insts.is_empty() {
        return Err(format!("error: {}: no instructions", o.file));
    }
    let code = encode_all(&insts, o.target).map_err(|e| format!("error: {}: {e}", o.file))?;
    let name = match o.kernel {
        Some(name) => name,
        None => Path::new(&o.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("error: {}: cannot derive a kernel name; pass --kernel NAME", o.file))?,
    };
    let resources = resources(&insts, o.lds, o.kernarg_size, o.workgroup_size);
    let kernel = KernelCode { name: name.clone(), code, resources, args: Vec::new(), lines: None };
    let cfg = CodeObjectConfig::new(o.target);
    let object = write_code_object(&cfg, std::slice::from_ref(&kernel)).map_err(|e| format!("error: {e}"))?;
    let out = o.out.unwrap_or_else(|| default_out(&o.file));
    std::fs::write(&out, &object).map_err(|e| format!("error: cannot write {out}: {e}"))?;
    eprintln!(
        "{out}: kernel {name} for {} ({} instructions, {} bytes of code; next_free_vgpr {}, next_free_sgpr {}{})",
        cfg.target_id(),
        insts.len(),
        kernel.code.len(),
        resources.next_free_vgpr,
        resources.next_free_sgpr,
        if resources.uses_vcc { ", uses VCC" } else { "" },
    );
    Ok(())
}

/// Whether `inst` is a SOPP branch (its immediate is a dword offset from the next instruction).
pub fn is_branch(inst: &Inst) -> bool {
    matches!(inst.op.info().shape, Shape::Sopp(SoppImm::Branch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        assert_eq!(parse_target("gfx942"), Ok(Target::wave64(Arch::Gfx942)));
        assert_eq!(parse_target("gfx1100:wave32"), Ok(Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }));
        assert_eq!(parse_target("gfx1100:wave64"), Ok(Target::wave64(Arch::Gfx1100)));
        assert!(parse_target("gfx90a:wave32").unwrap_err().contains("cannot run 32 lanes"));
        assert!(parse_target("gfx908").unwrap_err().contains("unknown architecture"));
        assert!(parse_target("gfx1100:xnack+").unwrap_err().contains("unknown feature"));
    }

    #[test]
    fn resources_count_the_highest_registers_and_vcc() {
        let t = Target::wave64(Arch::Gfx942);
        let insts = parse_asm("s_load_dwordx2 s[10:11], s[0:1], 0x0\nv_mov_b32_e32 v7, v1\ns_endpgm\n", t).unwrap();
        let r = resources(&insts, 64, 8, 256);
        assert_eq!((r.next_free_sgpr, r.next_free_vgpr, r.uses_vcc), (12, 8, false));
        assert_eq!((r.group_segment_size, r.kernarg_size, r.max_flat_workgroup_size), (64, 8, 256));
        let insts = parse_asm("s_endpgm\n", t).unwrap();
        let r = resources(&insts, 0, 0, 1024);
        assert_eq!((r.next_free_sgpr, r.next_free_vgpr), (ABI_SGPRS, 1));
        let insts = parse_asm("v_cmp_eq_u32_e32 vcc, v0, v1\ns_endpgm\n", t).unwrap();
        assert!(resources(&insts, 0, 0, 1024).uses_vcc);
        let insts = parse_asm("s_cbranch_vccz 0\ns_endpgm\n", t).unwrap();
        assert!(resources(&insts, 0, 0, 1024).uses_vcc);
    }

    #[test]
    fn errors_name_the_file() {
        let r = "error: bad\n --> line 3:7\n  |\n3 | x\n  |       ^\n";
        assert_eq!(render_error(r, "k.s"), "error: bad\n --> k.s:3:7\n  |\n3 | x\n  |       ^\n");
        assert_eq!(default_out("dir/k.s"), "dir/k.co");
        assert_eq!(default_out("k"), "k.co");
    }
}
