//! The printer against LLVM's disassembler on whole code objects: every instruction of every
//! golden table (all ops, forms and modifiers on every target) is encoded by qd into one kernel,
//! written into a code object by qd, and disassembled by `llvm-objdump-19 -d`. objdump must
//! decode every word (no `<unknown>`) and print, instruction by instruction, exactly the text of
//! [`Inst::display_disasm`] — the text `qdc disasm` prints.

mod code_object_util;

use code_object_util::{ref_resources, run, scratch_dir, tools_present};
use qd_amdgcn_isa::code_object::{write_code_object, CodeObjectConfig, KernelCode};
use qd_amdgcn_isa::{decode_all, encode_all, parse_asm};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};

/// The golden files and their targets.
fn golden_targets() -> Vec<(&'static str, Target)> {
    vec![
        ("gfx90a", Target::wave64(Arch::Gfx90a)),
        ("gfx942", Target::wave64(Arch::Gfx942)),
        ("gfx1100", Target::wave64(Arch::Gfx1100)),
        ("gfx1100-wave32", Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }),
    ]
}

/// The golden instruction texts of one file.
fn golden_texts(file: &str) -> Vec<String> {
    let path = format!("{}/tests/golden/{file}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(" | ").map(|(_, t)| t.trim().to_string()))
        .collect()
}

/// The instruction lines of `llvm-objdump -d` output: the text before the `//` address comment.
fn objdump_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with('\t'))
        .map(|l| {
            let text = l.split("//").next().unwrap_or(l);
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

#[test]
fn objdump_prints_every_golden_instruction_like_our_printer() {
    if !tools_present("objdump_prints_every_golden_instruction_like_our_printer", &["llvm-objdump-19"]) {
        return;
    }
    for (file, target) in golden_targets() {
        let texts = golden_texts(file);
        let insts = parse_asm(&texts.join("\n"), target).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let code = encode_all(&insts, target).unwrap_or_else(|e| panic!("{file}: {e}"));
        let decoded = decode_all(&code, target).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(decoded.len(), insts.len(), "{file}: decode_all count");

        let cfg = CodeObjectConfig::new(target);
        let kernel = KernelCode { name: "golden".into(), code, resources: ref_resources(), args: vec![], lines: None };
        let object = write_code_object(&cfg, &[kernel]).unwrap_or_else(|e| panic!("{file}: {e}"));
        let dir = scratch_dir(&format!("objdump-{file}"));
        let path = dir.join("golden.co");
        std::fs::write(&path, &object).expect("write code object");

        let mcpu = format!("--mcpu={}", target.arch.name());
        let mut args = vec!["-d", mcpu.as_str()];
        match (target.family(), target.wave) {
            (Family::Gfx11, WaveSize::W64) => args.push("--mattr=+wavefrontsize64"),
            (Family::Gfx11, WaveSize::W32) => args.push("--mattr=+wavefrontsize32"),
            (Family::Gfx9, _) => {}
        }
        args.push("golden.co");
        let out = run("llvm-objdump-19", &args, &dir);
        assert!(!out.contains("<unknown>"), "{file}: objdump found undecodable words");
        let theirs = objdump_lines(&out);
        // gfx1100 objects end with s_code_end padding after the kernel.
        let theirs: Vec<&String> = theirs.iter().take(decoded.len()).collect();
        assert_eq!(theirs.len(), decoded.len(), "{file}: objdump printed {} instructions", theirs.len());
        let mut mismatches = Vec::new();
        for ((offset, inst), objdump) in decoded.iter().zip(theirs) {
            let ours = inst.display_disasm(target).to_string();
            if &ours != objdump {
                mismatches.push(format!("  +{offset:#x}: qd `{ours}` vs objdump `{objdump}`"));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{file}: {} of {} instructions print differently:\n{}",
            mismatches.len(),
            decoded.len(),
            mismatches.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
        );
        println!("{file}: {} instructions agree with llvm-objdump-19", decoded.len());
    }
}
