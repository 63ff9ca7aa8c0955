//! Cross-check against LLVM itself: when `llvm-mc-19` is installed (or `LLVM_MC` names an
//! llvm-mc), re-assemble the whole golden table and require identical bytes and text, disassemble
//! the golden bytes and require the golden text, and assemble the text of thousands of random
//! legal instructions (tests/common) and require qd's bytes. Without llvm-mc the tests print why
//! they skip and pass.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use qd_amdgcn_isa::Target;
use qd_amdgcn_isa::{encode, encode_all, parse_asm};

fn llvm_mc() -> Option<String> {
    let mc = std::env::var("LLVM_MC").unwrap_or_else(|_| "llvm-mc-19".to_string());
    match Command::new(&mc).arg("--version").output() {
        Ok(o) if o.status.success() => Some(mc),
        _ => {
            eprintln!("skipping: `{mc}` is not installed (apt-get install llvm-19, or set LLVM_MC)");
            None
        }
    }
}

/// Runs llvm-mc with `args` on `input`; returns (stdout, stderr).
fn run(mc: &str, args: &[String], input: String) -> (String, String) {
    let mut child = Command::new(mc)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llvm-mc");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("llvm-mc output");
    let _ = writer.join();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The (text, bytes) pairs of `-show-encoding` output, in order.
fn encodings(stdout: &str) -> Vec<(String, Vec<u8>)> {
    stdout
        .lines()
        .filter_map(|l| {
            let (text, enc) = l.split_once(" ; encoding: [")?;
            let bytes = enc
                .trim_end_matches(']')
                .split(',')
                .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
                .collect();
            Some((text.trim().to_string(), bytes))
        })
        .collect()
}

/// 1-based input line numbers llvm-mc reported errors for, with the messages.
fn errors(stderr: &str) -> Vec<(usize, String)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("<stdin>:")?;
            let (line, rest) = rest.split_once(':')?;
            let (_, msg) = rest.split_once(": error: ")?;
            Some((line.parse().ok()?, msg.to_string()))
        })
        .collect()
}

fn golden(name: &str) -> Vec<(Vec<u8>, String)> {
    let path = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    src.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (hex, text) = l.split_once(" | ")?;
            Some((hex.split_whitespace().filter_map(|b| u8::from_str_radix(b, 16).ok()).collect(), text.to_string()))
        })
        .collect()
}

fn golden_files() -> Vec<(&'static str, Target)> {
    ["gfx90a", "gfx942", "gfx1100", "gfx1100-wave32"].into_iter().zip(common::targets()).collect()
}

#[test]
fn llvm_mc_reassembles_the_golden_tables_identically() {
    let Some(mc) = llvm_mc() else { return };
    for (name, t) in golden_files() {
        let lines = golden(name);
        let input: String = lines.iter().map(|(_, text)| format!("{text}\n")).collect();
        let mut args = common::mc_flags(t);
        args.push("-show-encoding".into());
        let (out, err) = run(&mc, &args, input);
        let errs = errors(&err);
        assert!(errs.is_empty(), "{name}: llvm-mc rejects golden lines: {:?}", &errs[..errs.len().min(10)]);
        let got = encodings(&out);
        assert_eq!(got.len(), lines.len(), "{name}: llvm-mc printed {} encodings", got.len());
        for ((bytes, text), (mc_text, mc_bytes)) in lines.iter().zip(&got) {
            assert_eq!((mc_text, mc_bytes), (text, bytes), "{name}: llvm-mc disagrees with the golden line");
        }
    }
}

#[test]
fn llvm_mc_disassembles_golden_bytes_to_golden_text() {
    let Some(mc) = llvm_mc() else { return };
    for (name, t) in golden_files() {
        let lines = golden(name);
        let input: String = lines
            .iter()
            .map(|(b, _)| b.iter().map(|x| format!("0x{x:02x}")).collect::<Vec<_>>().join(",") + "\n")
            .collect();
        let mut args = common::mc_flags(t);
        args.extend(["-disassemble".to_string(), "-show-encoding".to_string()]);
        let (out, _) = run(&mc, &args, input);
        let got = encodings(&out);
        assert_eq!(got.len(), lines.len(), "{name}: llvm-mc disassembled {} instructions", got.len());
        let mut diffs = Vec::new();
        for ((bytes, text), (mc_text, mc_bytes)) in lines.iter().zip(&got) {
            // Where the disassembler spells an instruction differently from the assembler (a
            // branch's SIMM16 unsigned, GFX11 SMEM `null` for an absent soffset), qd must still
            // parse its text to the same bytes.
            let same_bytes =
                || parse_asm(mc_text, t).ok().and_then(|i| encode_all(&i, t).ok()).is_some_and(|b| &b == bytes);
            if mc_bytes != bytes || (mc_text != text && !same_bytes()) {
                diffs.push(format!("{name}: golden `{text}` {bytes:02x?}, llvm-mc -disassemble `{mc_text}`"));
            }
        }
        for d in diffs.iter().take(40) {
            eprintln!("{d}");
        }
        assert!(diffs.is_empty(), "{name}: {} disassembly differences", diffs.len());
    }
}

#[test]
fn random_legal_instructions_match_llvm_mc() {
    let Some(mc) = llvm_mc() else { return };
    let seed: u64 = std::env::var("QD_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_0A3D);
    let count: usize = std::env::var("QD_FUZZ_COUNT").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    let mut failures = Vec::new();
    for t in common::targets() {
        let mut rng = common::Rng(seed ^ u64::from(t.wave.lanes()) ^ (t.arch as u64) << 8);
        let insts: Vec<_> = (0..count).map(|_| common::legal(&mut rng, t)).collect();
        let texts: Vec<String> = insts.iter().map(|i| i.display(t).to_string()).collect();
        let mut args = common::mc_flags(t);
        args.push("-show-encoding".into());
        let (out, err) = run(&mc, &args, texts.iter().map(|x| format!("{x}\n")).collect());
        let errs = errors(&err);
        for (line, msg) in &errs {
            failures.push(format!("{t}: llvm-mc rejects `{}`: {msg}", texts[line - 1]));
        }
        let bad: Vec<usize> = errs.iter().map(|e| e.0).collect();
        let kept: Vec<usize> = (1..=texts.len()).filter(|l| !bad.contains(l)).collect();
        let got = encodings(&out);
        for (&line, (mc_text, mc_bytes)) in kept.iter().zip(&got) {
            let mut ours = Vec::new();
            let inst = &insts[line - 1];
            if let Err(e) = encode(inst, t, &mut ours) {
                failures.push(format!("{t}: `{}`: {e}", texts[line - 1]));
                continue;
            }
            // qd prints a non-canonical ds_swizzle bitmask (one LLVM's BITMASK_PERM text would
            // re-assemble differently) as the raw offset, so its text round-trips.
            let raw_swizzle = texts[line - 1].starts_with("ds_swizzle_b32") && mc_text.contains("BITMASK_PERM");
            if &ours != mc_bytes {
                failures.push(format!("{t}: `{}`: qd {ours:02x?}, llvm-mc {mc_bytes:02x?}", texts[line - 1]));
            } else if mc_text != &texts[line - 1] && !raw_swizzle {
                failures.push(format!("{t}: qd prints `{}`, llvm-mc `{mc_text}`", texts[line - 1]));
            }
        }
    }
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} disagreements with llvm-mc (seed {seed})", failures.len());
}
