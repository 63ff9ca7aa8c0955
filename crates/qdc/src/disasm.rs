//! `qdc disasm`: prints the kernels of an HSA code object (qd's or an LLVM/lld one) — a header,
//! every instruction of the kernel's code in LLVM 19 syntax with the address and hex dwords in
//! `llvm-objdump-19 -d`'s comment format, and the kernel descriptor as `.amdhsa_*` directives.
//!
//! Instructions print in LLVM's disassembler spelling ([`Inst::display_disasm`], so the lines are
//! llvm-objdump's), or with `--mc-syntax` in its assembler's ([`Inst::display`], as
//! `llvm-mc -show-encoding` prints them); `qdc asm` reads both.

use std::fmt::Write as _;

use qd_amdgcn_isa::code_object::{read_code_object, CodeObject, CodeObjectConfig, LoadedKernel};
use qd_amdgcn_isa::{decode, Inst};

use crate::asm::is_branch;

struct Options {
    file: String,
    kernel: Option<String>,
    descriptor: bool,
    strict: bool,
    mc_syntax: bool,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options { file: String::new(), kernel: None, descriptor: true, strict: false, mc_syntax: false };
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--kernel" => {
                o.kernel = Some(it.next().cloned().ok_or("qdc disasm: --kernel needs a value")?);
            }
            "--no-descriptor" => o.descriptor = false,
            "--strict" => o.strict = true,
            "--mc-syntax" => o.mc_syntax = true,
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("qdc disasm: unknown option '{flag}'"));
            }
            path => {
                if file.replace(path.to_string()).is_some() {
                    return Err("qdc disasm: more than one input file".into());
                }
            }
        }
    }
    o.file = file.ok_or("qdc disasm: missing FILE.co (see `qdc help`)")?;
    Ok(o)
}

/// One line in `llvm-objdump-19 -d`'s AMDGPU layout: a tab, the text left-justified to 59
/// columns, then `// ADDRESS: DWORDS` (12 upper-case hex digits; dwords as upper-case hex).
fn objdump_line(out: &mut String, text: &str, addr: u64, bytes: &[u8]) {
    let _ = write!(out, "\t{text:<59}// {addr:012X}:");
    if bytes.len() >= 4 {
        for w in bytes.chunks_exact(4) {
            let _ = write!(out, " {:08X}", u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
    } else {
        for b in bytes {
            let _ = write!(out, " {b:02X}");
        }
    }
}

/// What one kernel disassembles to, and how many words could not be decoded.
pub struct Listing {
    /// The text (header, instructions, descriptor).
    pub text: String,
    /// Words printed as `.long` because the decoder rejected them.
    pub undecodable: usize,
}

/// How a listing is printed.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Print the kernel descriptor after the code.
    pub descriptor: bool,
    /// Print instructions as LLVM's assembler does (`Inst::display`) rather than as its
    /// disassembler does (`Inst::display_disasm`).
    pub mc_syntax: bool,
}

fn inst_text(inst: &Inst, target: qd_amdgcn_isa::Target, mc_syntax: bool) -> String {
    if mc_syntax {
        inst.display(target).to_string()
    } else {
        inst.display_disasm(target).to_string()
    }
}

/// Disassembles one kernel of a code object.
pub fn listing(obj: &CodeObject, k: &LoadedKernel, style: Style) -> Listing {
    let target = obj.target(k);
    let cfg = CodeObjectConfig { target, xnack: obj.xnack, sramecc: obj.sramecc };
    let mut out = String::new();
    // The header is a comment, so that the instruction listing (without the descriptor) is
    // itself input for `qdc asm`.
    let _ = writeln!(
        out,
        "; kernel {}: {} (wave{}), {} bytes of code at {:#x}",
        k.name,
        cfg.target_id(),
        target.wave.lanes(),
        k.code.len(),
        k.code_vaddr
    );
    let mut undecodable = 0;
    let mut at = 0usize;
    while at < k.code.len() {
        let addr = k.code_vaddr.wrapping_add(at as u64);
        let rest = &k.code[at..];
        match decode(rest, target) {
            Ok((inst, size)) => {
                objdump_line(&mut out, &inst_text(&inst, target, style.mc_syntax), addr, &rest[..size]);
                if is_branch(&inst) {
                    let dest = (at as i64) + 4 + 4 * i64::from(inst.imm);
                    match dest {
                        0 => {
                            let _ = write!(out, " <{}>", k.name);
                        }
                        d if d > 0 => {
                            let _ = write!(out, " <{}+{d:#x}>", k.name);
                        }
                        _ => {}
                    }
                }
                at += size;
            }
            Err(e) => {
                undecodable += 1;
                let size = rest.len().min(4);
                let text = if size == 4 {
                    format!(".long 0x{:08x}", u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]))
                } else {
                    let bytes: Vec<String> = rest.iter().map(|b| format!("0x{b:02x}")).collect();
                    format!(".byte {}", bytes.join(", "))
                };
                objdump_line(&mut out, &text, addr, &rest[..size]);
                let _ = write!(out, " ; qdc: not decoded: {}", e.reason);
                at += size;
            }
        }
        out.push('\n');
    }
    if style.descriptor {
        out.push('\n');
        out.push_str(&k.descriptor.to_asm(obj.arch, &k.name));
    }
    Listing { text: out, undecodable }
}

/// `qdc disasm FILE.co [--kernel NAME] [--no-descriptor] [--mc-syntax] [--strict]`.
pub fn disasm(args: &[String]) -> Result<(), String> {
    let o = parse_options(args)?;
    let bytes = std::fs::read(&o.file).map_err(|e| format!("error: cannot read {}: {e}", o.file))?;
    let obj = read_code_object(&bytes).map_err(|e| format!("error: {}: {e}", o.file))?;
    let kernels: Vec<&LoadedKernel> = match &o.kernel {
        Some(name) => {
            let k = obj.kernel(name).ok_or_else(|| {
                let names: Vec<&str> = obj.kernels.iter().map(|k| k.name.as_str()).collect();
                format!("error: {}: no kernel named '{name}' (kernels: {})", o.file, names.join(", "))
            })?;
            vec![k]
        }
        None => obj.kernels.iter().collect(),
    };
    if kernels.is_empty() {
        return Err(format!("error: {}: the code object has no kernels (no `*.kd` symbols)", o.file));
    }
    let mut undecodable = 0;
    for (i, k) in kernels.iter().enumerate() {
        let l = listing(&obj, k, Style { descriptor: o.descriptor, mc_syntax: o.mc_syntax });
        if i > 0 {
            println!();
        }
        print!("{}", l.text);
        if l.undecodable > 0 {
            eprintln!(
                "warning: kernel {}: {} word{} not decoded (printed as .long)",
                k.name,
                l.undecodable,
                if l.undecodable == 1 { "" } else { "s" }
            );
        }
        undecodable += l.undecodable;
    }
    if o.strict && undecodable > 0 {
        return Err(format!("error: {}: {undecodable} word(s) not decoded (--strict)", o.file));
    }
    Ok(())
}
