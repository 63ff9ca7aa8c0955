//! End-to-end tests of `qdc compile FILE.qdm --target gfx90a|gfx942|gfx1100 [--wave32]`: for
//! every target, `--emit obj` writes a code object that `llvm-objdump-19 -d` disassembles to
//! exactly what `qdc disasm` prints, instruction by instruction; `qdc disasm --mc-syntax` lists
//! exactly the instructions, offsets and encodings of `--emit asm`; `llvm-readelf-19 --notes`
//! shows the metadata the `--emit asm` header promises; `llvm-dwarfdump-19` the line table of the
//! `.qdm` file; `--emit vcode` prints the blocks; and the
//! errors (bad options, a kernel the target cannot run) exit with status 1 and a clear message.
//! The LLVM tools are the oracle; a test that needs one that is not installed prints why and
//! skips.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use qd_amdgcn_isa::code_object::read_code_object;

const OBJDUMP: &str = "llvm-objdump-19";
const READELF: &str = "llvm-readelf-19";
const DWARFDUMP: &str = "llvm-dwarfdump-19";

mod common;

use common::{have, path_str, qdc, stderr, stdout, Scratch};

fn scratch(test: &str) -> Scratch {
    common::scratch_in("compile", test)
}

fn repo() -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect()
}

/// One target: its `qdc compile` flags, `--mcpu`, `--mattr` for llvm-objdump (gfx1100 defaults
/// to wave32 there) and its lanes.
struct T {
    flags: &'static [&'static str],
    arch: &'static str,
    mattr: &'static str,
    lanes: u32,
}

const TARGETS: [T; 4] = [
    T { flags: &["--target", "gfx942"], arch: "gfx942", mattr: "--mattr=", lanes: 64 },
    T { flags: &["--target", "gfx90a"], arch: "gfx90a", mattr: "--mattr=", lanes: 64 },
    T { flags: &["--target", "gfx1100"], arch: "gfx1100", mattr: "--mattr=+wavefrontsize64", lanes: 64 },
    T { flags: &["--target", "gfx1100", "--wave32"], arch: "gfx1100", mattr: "--mattr=", lanes: 32 },
];

impl T {
    fn name(&self) -> String {
        format!("{} (wave{})", self.arch, self.lanes)
    }
}

/// Straight-line kernels every target lowers today: global loads and stores through 64-bit
/// addresses, work-item and workgroup ids, scalar and vector adds (`@add1`), and LDS (`@lds`).
const KERNELS: &str = "\
kernel @add1(%a: ptr<global, u32>, %b: ptr<global, u32>) block(96, 1, 1) grid(2, 1, 1) {
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = block_dim x : u32
  %3 = add %1, %2 : u32
  %4 = add %0, %3 : u32
  %5 = ptr.offset %a, %0 : ptr<global, u32>
  %6 = load %5 : u32
  %7 = add %6, %4 : u32
  %8 = ptr.offset %b, %0 : ptr<global, u32>
  store %8, %7
  return
}

kernel @lds(%out: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  shared @a: [u32; 64]
  %0 = thread_id x : u32
  %1 = shared.addr @a : ptr<shared, u32>
  %2 = ptr.offset %1, %0 : ptr<shared, u32>
  store %2, %0
  %3 = load %2 : u32
  %4 = ptr.offset %out, %0 : ptr<global, u32>
  store %4, %3
  return
}
";

/// Writes [`KERNELS`] to the scratch directory.
fn kernels_file(dir: &Path) -> String {
    let f = dir.join("k.qdm");
    std::fs::write(&f, KERNELS).expect("write k.qdm");
    path_str(&f)
}

/// Runs `qdc compile` with `args` then the target's flags; asserts success.
fn compile(args: &[&str], t: &T) -> Output {
    let mut all = vec!["compile"];
    all.extend_from_slice(args);
    all.extend_from_slice(t.flags);
    let out = qdc(&all);
    assert!(out.status.success(), "qdc {all:?}:\n{}", stderr(&out));
    out
}

/// The instruction lines of an llvm-objdump-style listing: (address, text with the whitespace
/// normalised), the trailing `// ADDRESS: WORDS` comment dropped.
fn objdump_instructions(listing: &str) -> Vec<(u64, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with(".amdhsa_"))
        .filter_map(|l| {
            let (text, comment) = l.split_once("// ")?;
            let addr = u64::from_str_radix(comment.split(':').next()?.trim(), 16).ok()?;
            Some((addr, text.split_whitespace().collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// `qdc disasm` lines as (address, text, lower-case encoding words).
fn disasm_lines(listing: &str) -> Vec<(u64, String, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with(".amdhsa_"))
        .filter_map(|l| {
            let (text, comment) = l.split_once("// ")?;
            let (addr, words) = comment.split_once(": ")?;
            let words: Vec<String> =
                words.split_whitespace().take_while(|w| !w.starts_with('<')).map(str::to_lowercase).collect();
            Some((
                u64::from_str_radix(addr.trim(), 16).ok()?,
                text.split_whitespace().collect::<Vec<_>>().join(" "),
                words.join(" "),
            ))
        })
        .collect()
}

/// `--emit asm` lines (`  TEXT  // OFFSET: WORDS`) as (offset, text, words).
fn asm_lines(listing: &str) -> Vec<(u64, String, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| {
            let (text, comment) = l.split_once("// ").unwrap_or_else(|| panic!("asm line without comment: {l}"));
            let (off, words) = comment.split_once(": ").unwrap_or_else(|| panic!("bad asm comment: {l}"));
            (
                u64::from_str_radix(off.trim(), 16).unwrap_or_else(|_| panic!("bad offset: {l}")),
                text.split_whitespace().collect::<Vec<_>>().join(" "),
                words.trim().to_string(),
            )
        })
        .collect()
}

/// The header line's numbers: (VGPRs, SGPRs, LDS bytes, spill bytes, instructions, code bytes).
fn header_numbers(header: &str) -> [u64; 6] {
    let nums: Vec<u64> =
        header.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect();
    // The arch name and the wave size come first (`gfx942 (wave64)`, `gfx1100 (wave32)`).
    let n = nums.len();
    assert!(n >= 8, "header: {header}");
    [nums[n - 6], nums[n - 5], nums[n - 4], nums[n - 3], nums[n - 2], nums[n - 1]]
}

/// Compares `qdc disasm CO` with `llvm-objdump-19 -d` instruction by instruction; returns how
/// many were compared.
fn compare_with_objdump(co: &str, t: &T, what: &str) -> usize {
    let out = qdc(&["disasm", co, "--no-descriptor"]);
    assert!(out.status.success(), "{what}: {}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{what}: qdc disasm warns:\n{}", stderr(&out));
    let ours = objdump_instructions(&stdout(&out));
    let obj = read_code_object(&std::fs::read(co).expect("read co")).expect("reads");
    let k = &obj.kernels[0];
    let (start, end) = (k.code_vaddr, k.code_vaddr + k.code.len() as u64);
    let dump = Command::new(OBJDUMP)
        .args(["-d", &format!("--mcpu={}", t.arch), t.mattr, co])
        .output()
        .expect("llvm-objdump-19 runs");
    assert!(dump.status.success(), "{what}: {}", stderr(&dump));
    let dump = stdout(&dump);
    let theirs: Vec<(u64, String)> =
        objdump_instructions(&dump).into_iter().filter(|(a, _)| (start..end).contains(a)).collect();
    assert!(!ours.is_empty(), "{what}: qdc disasm listed nothing");
    assert_eq!(ours.len(), theirs.len(), "{what}:\nqdc:\n{}\nllvm-objdump-19:\n{dump}", stdout(&out));
    for ((a1, t1), (a2, t2)) in ours.iter().zip(&theirs) {
        assert_eq!((a1, t1), (a2, t2), "{what}: qdc disasm vs llvm-objdump-19");
    }
    ours.len()
}

/// `--emit obj` → `llvm-objdump-19 -d` and `qdc disasm` list the same instructions, and
/// `qdc disasm --mc-syntax` lists exactly `--emit asm`'s instructions, offsets and encodings.
fn obj_matches_asm_and_objdump(dir: &Path, file: &str, kernel: &str, t: &T) -> usize {
    let tag = format!("{kernel}-{}-w{}", t.arch, t.lanes);
    let co = path_str(&dir.join(format!("{tag}.co")));
    let out = compile(&[file, "--kernel", kernel, "--emit", "obj", "-o", &co], t);
    assert!(stdout(&out).is_empty(), "--emit obj prints nothing on stdout");
    let asm = stdout(&compile(&[file, "--kernel", kernel, "--emit", "asm"], t));
    let header = asm.lines().next().unwrap_or_default();
    assert!(header.starts_with(&format!("; kernel @{kernel}: {}: ", t.name())), "{header}");
    let want = asm_lines(&asm);
    let [.., insts, bytes] = header_numbers(header);
    assert_eq!(want.len() as u64, insts, "{tag}: header instruction count");

    let out = qdc(&["disasm", &co, "--no-descriptor", "--mc-syntax"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{tag}: {}", stderr(&out));
    let got = disasm_lines(&stdout(&out));
    let base = got.first().map_or(0, |l| l.0);
    let got: Vec<(u64, String, String)> = got.into_iter().map(|(a, t, w)| (a - base, t, w)).collect();
    assert_eq!(got, want, "{tag}: qdc disasm --mc-syntax vs --emit asm\n{asm}");
    let obj = read_code_object(&std::fs::read(&co).expect("read co")).expect("reads");
    assert_eq!(obj.kernels.len(), 1);
    assert_eq!(obj.kernels[0].name, kernel);
    assert_eq!(obj.kernels[0].code.len() as u64, bytes, "{tag}: header code size");

    if have(OBJDUMP) {
        compare_with_objdump(&co, t, &tag)
    } else {
        0
    }
}

#[test]
fn compiled_objects_disassemble_as_llvm_objdump_and_emit_asm_on_every_target() {
    if !have(OBJDUMP) {
        println!("llvm-objdump-19 not installed: comparing with qdc disasm only");
    }
    let dir = scratch("objdump");
    let file = kernels_file(&dir);
    let program = path_str(&repo().join("tests/filetests/interp/program.qdm"));
    let mut compared = 0;
    for t in &TARGETS {
        compared += obj_matches_asm_and_objdump(&dir, &file, "add1", t);
        compared += obj_matches_asm_and_objdump(&dir, &file, "lds", t);
        compared += obj_matches_asm_and_objdump(&dir, &program, "bump", t);
    }
    println!("compared {compared} instructions with llvm-objdump-19 on 4 targets: all identical");
}

/// A divergent loop with ops every target lowers today: each lane walks a bool array from its
/// own index to the first `true` (per-lane trip counts; `break` under divergence, an `if` with an
/// `else`). The code object disassembles identically with llvm-objdump-19 and qdc disasm, and
/// lists `--emit asm`'s instructions, with EXEC-mask control flow and backward branches.
const DIVERGENT_LOOP: &str = "\
kernel @dloop(%flags: ptr<global, bool>, %out: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 1 : u32
  %2 = ptr.offset %out, %0 : ptr<global, u32>
  %3 = loop (%4: u32 = %0) -> (u32) {
    %5 = ptr.offset %flags, %4 : ptr<global, bool>
    %6 = load %5 : bool
    if %6 {
      break %4
    } else {
      yield
    }
    %7 = add %4, %1 : u32
    continue %7
  }
  store %2, %3
  return
}
";

#[test]
fn divergent_loop_disassembles_as_llvm_objdump_on_every_target() {
    let dir = scratch("dloop");
    let file = dir.join("dloop.qdm");
    std::fs::write(&file, DIVERGENT_LOOP).expect("write");
    let file = path_str(&file);
    for t in &TARGETS {
        obj_matches_asm_and_objdump(&dir, &file, "dloop", t);
        let asm = stdout(&compile(&[&file], t));
        let exec = if t.lanes == 32 { "exec_lo" } else { "exec" };
        assert!(asm.contains(&format!("s_and_saveexec_b{} ", t.lanes)), "{}:\n{asm}", t.name());
        assert!(asm.contains(&format!("{exec}, ")), "{}:\n{asm}", t.name());
        // A backward branch closes the loop (the assembler spelling prints it negative).
        assert!(asm.lines().any(|l| l.trim_start().starts_with("s_branch -")), "{}:\n{asm}", t.name());
    }
}

/// The "must show": a kernel with a divergent loop — `@loops` of
/// tests/filetests/interp/loops.qdm (per-lane trip counts, `break`, `continue` and `return`
/// inside the loop, a subgroup reduction in its body) — compiles for gfx942 to a code object
/// that llvm-objdump-19 disassembles exactly as `qdc disasm` does (and on the other targets too).
#[test]
fn divergent_loop_kernel_disassembles_as_llvm_objdump() {
    let dir = scratch("loops");
    let file = path_str(&repo().join("tests/filetests/interp/loops.qdm"));
    let co = path_str(&dir.join("loops.co"));
    let out = qdc(&["compile", &file, "--target", "gfx942", "--emit", "obj", "-o", &co, "--kernel", "loops"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(have(OBJDUMP), "llvm-objdump-19 is needed for this test");
    let n = compare_with_objdump(&co, &TARGETS[0], "@loops gfx942");
    assert!(n > 20, "{n} instructions");
    for t in &TARGETS {
        obj_matches_asm_and_objdump(&dir, &file, "loops", t);
    }
}

#[test]
fn readelf_notes_show_the_metadata_of_the_header() {
    if !have(READELF) {
        println!("SKIPPED: {READELF} not installed");
        return;
    }
    let dir = scratch("notes");
    let file = kernels_file(&dir);
    for t in &TARGETS {
        for (kernel, block) in [("add1", 96), ("lds", 64)] {
            let co = path_str(&dir.join(format!("{kernel}-{}-{}.co", t.arch, t.lanes)));
            compile(&[&file, "--kernel", kernel, "--emit", "obj", "-o", &co], t);
            let header =
                stdout(&compile(&[&file, "--kernel", kernel], t)).lines().next().unwrap_or_default().to_string();
            let [vgprs, _sgprs, lds, spill, ..] = header_numbers(&header);
            let out = Command::new(READELF).args(["--notes", &co]).output().expect("readelf runs");
            assert!(out.status.success(), "{}", stderr(&out));
            let notes = stdout(&out);
            // A key of the kernel's map (indented 4 in the YAML) or a top-level one.
            let field = |name: &str| -> String {
                notes
                    .lines()
                    .filter(|l| matches!(l.len() - l.trim_start().len(), 0 | 4))
                    .find_map(|l| l.trim().strip_prefix(&format!("{name}:")).map(|v| v.trim().to_string()))
                    .unwrap_or_else(|| panic!("{kernel} {}: no {name} in\n{notes}", t.name()))
            };
            let what = format!("{kernel} {}: {header}\n{notes}", t.name());
            assert!(notes.contains("NT_AMDGPU_METADATA"), "{what}");
            assert_eq!(field(".name"), kernel, "{what}");
            assert_eq!(field(".symbol"), format!("{kernel}.kd"), "{what}");
            assert!(field("amdhsa.target").starts_with(&format!("amdgcn-amd-amdhsa--{}", t.arch)), "{what}");
            assert_eq!(field(".wavefront_size"), t.lanes.to_string(), "{what}");
            assert_eq!(field(".vgpr_count"), vgprs.to_string(), "{what}");
            assert_eq!(field(".group_segment_fixed_size"), lds.to_string(), "{what}");
            assert_eq!(field(".vgpr_spill_count"), "0", "{what}");
            assert_eq!(spill, 0, "{what}");
            assert_eq!(field(".max_flat_workgroup_size"), block.to_string(), "{what}");
            assert_eq!(lds, if kernel == "lds" { 256 } else { 0 }, "{what}");
            // The kernel's parameters, then qd's own kernarg fields.
            let args: Vec<&str> = notes
                .lines()
                .filter(|l| l.len() - l.trim_start().len() > 4)
                .filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix(".name:"))
                .map(str::trim)
                .collect();
            let params: &[&str] = if kernel == "add1" { &["a", "b"] } else { &["out"] };
            assert_eq!(&args[..params.len()], params, "{what}");
        }
    }
}

/// `--emit obj` carries a DWARF line table: `llvm-dwarfdump-19 --debug-line` names the `.qdm`
/// file and maps the code to the lines of the kernel's instructions (the load on line 8 and the
/// store on line 11 of `@add1` among them).
#[test]
fn obj_has_a_dwarf_line_table_of_the_qdm_file() {
    if !have(DWARFDUMP) {
        println!("SKIPPED: {DWARFDUMP} not installed");
        return;
    }
    let dir = scratch("dwarf");
    let file = kernels_file(&dir);
    for t in &TARGETS {
        let co = path_str(&dir.join(format!("add1-{}-{}.co", t.arch, t.lanes)));
        compile(&[&file, "--kernel", "add1", "--emit", "obj", "-o", &co], t);
        let out = Command::new(DWARFDUMP).args(["--debug-line", &co]).output().expect("dwarfdump runs");
        assert!(out.status.success(), "{}", stderr(&out));
        let dump = stdout(&out);
        assert!(dump.contains(&format!("name: \"{file}\"")), "{}:\n{dump}", t.name());
        let lines: BTreeSet<u32> = dump
            .lines()
            .filter(|l| l.starts_with("0x"))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
            .collect();
        assert!(lines.iter().all(|l| (2..=12).contains(l)), "{}: lines {lines:?}", t.name());
        assert!(lines.contains(&8) && lines.contains(&11), "{}: lines {lines:?}", t.name());
    }
}

#[test]
fn emit_vcode_prints_the_blocks_before_register_allocation() {
    let dir = scratch("vcode");
    let file = kernels_file(&dir);
    for t in &TARGETS {
        let out = stdout(&compile(&[&file, "--emit", "vcode"], t));
        // Both kernels, each after its header, each starting at its entry block.
        let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("; kernel @")).collect();
        assert_eq!(headers.len(), 2, "{out}");
        assert!(headers[0].starts_with(&format!("; kernel @add1: {}: ", t.name())), "{out}");
        assert!(headers[1].starts_with(&format!("; kernel @lds: {}: ", t.name())), "{out}");
        assert_eq!(out.matches("block0 (entry):").count(), 2, "{out}");
        // Virtual registers, not physical ones, and the ops of the kernels.
        assert!(out.contains("%v") && out.contains("%s"), "{out}");
        assert!(out.contains("global_load_dword") && out.contains("ds_write_b32"), "{out}");
        // Different from the final assembly.
        let asm = stdout(&compile(&[&file], t));
        assert_ne!(asm, out);
        assert!(!asm.contains("block0"), "{asm}");
    }
}

#[test]
fn emit_asm_lists_every_kernel_and_writes_to_o() {
    let dir = scratch("asm");
    let file = kernels_file(&dir);
    let t = &TARGETS[2];
    let all = stdout(&compile(&[&file], t));
    let add1 = stdout(&compile(&[&file, "--kernel", "add1", "--emit", "asm"], t));
    let lds = stdout(&compile(&[&file, "--kernel", "lds"], t));
    assert_eq!(all, format!("{add1}\n{lds}"), "every kernel, separated by a blank line");
    assert!(add1.lines().skip(1).all(|l| l.starts_with("  ")), "{add1}");
    assert!(add1.trim_end().lines().last().unwrap_or_default().trim_start().starts_with("s_endpgm"), "{add1}");
    let o = path_str(&dir.join("out.s"));
    let out = compile(&[&file, "-o", &o], t);
    assert!(stdout(&out).is_empty());
    assert_eq!(std::fs::read_to_string(&o).expect("read -o"), all);
    // The default object file is FILE.co.
    let out = compile(&[&file, "--emit", "obj", "--kernel", "lds"], t);
    let co = dir.join("k.co");
    assert!(co.exists(), "default output {} missing", co.display());
    assert!(
        stderr(&out).starts_with(&format!("{}: kernel @lds: gfx1100 (wave64): ", path_str(&co))),
        "{}",
        stderr(&out)
    );
    let obj = read_code_object(&std::fs::read(&co).expect("read")).expect("reads");
    assert_eq!(obj.kernels[0].name, "lds");
    assert_eq!(obj.kernels[0].descriptor.group_segment_fixed_size, 256);
}

#[test]
fn compile_errors_exit_1_with_a_clear_message() {
    let dir = scratch("errors");
    let file = kernels_file(&dir);
    let w32 = dir.join("w32.qdm");
    std::fs::write(
        &w32,
        "kernel @sg32(%out: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) subgroup(32) {\n  return\n}\n",
    )
    .expect("write");
    let w32 = path_str(&w32);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec![&file, "--target", "gfx908"], "unknown architecture 'gfx908'".into()),
        (vec![&file, "--target", "gfx942", "--wave32"], "--wave32 needs --target gfx1100 (gfx942 runs wave64 only)".into()),
        (vec![&file, "--target", "gfx90a", "--wave32"], "--wave32 needs --target gfx1100".into()),
        (vec![&file, "--target", "gfx942", "--emit", "ptx"], "--emit ptx is not supported for AMDGCN (want asm, obj or vcode)".into()),
        (vec![&file, "--target", "gfx942", "--emit", "obj"], "has 2 kernels; --emit obj writes one kernel's code object".into()),
        (vec![&file, "--target", "gfx942", "--kernel", "nope"], format!("no kernel @nope in {file}")),
        (vec![&file, "--target", "gfx942", "--frobnicate"], "unknown option --frobnicate".into()),
        (vec![&file, "--target"], "--target needs a value".into()),
        (vec!["--target", "gfx942"], "missing FILE.qdm".into()),
        (vec!["/nonexistent/k.qdm", "--target", "gfx942"], "cannot read /nonexistent/k.qdm".into()),
        // A kernel built for 32-lane subgroups on a wave64 target: an error about the kernel,
        // pointing at its header.
        (
            vec![&w32, "--target", "gfx942"],
            format!(
                "error: kernel @sg32: cannot compile for gfx942: kernel @sg32 was built for subgroup(32); this target's wave has 64 lanes\n --> {w32}:1:1\n  |\n1 | kernel @sg32("
            ),
        ),
    ];
    for (args, msg) in cases {
        let mut all = vec!["compile"];
        all.extend_from_slice(&args);
        let out = qdc(&all);
        assert_eq!(out.status.code(), Some(1), "{all:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(&msg), "{all:?}: want `{msg}` in:\n{}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
    // The same kernel compiles for gfx1100 in wave32, and no object is left behind by a failure.
    let out = qdc(&["compile", &w32, "--target", "gfx1100", "--wave32", "--emit", "obj"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("w32.co").exists());
    std::fs::remove_file(dir.join("w32.co")).expect("rm");
    let out = qdc(&["compile", &w32, "--target", "gfx1100", "--emit", "obj"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("w32.co").exists(), "no object is written on error");
    // A parse error is rendered with its caret, as for the other targets.
    let bad = dir.join("bad.qdm");
    std::fs::write(&bad, "kernel @k() block(1, 1, 1) grid(1, 1, 1) {\n  %0 = const 5 : u33\n  return\n}\n")
        .expect("write");
    let out = qdc(&["compile", &path_str(&bad), "--target", "gfx90a"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("expected type, found `u33`"), "{}", stderr(&out));
    assert!(stderr(&out).contains(":2:"), "{}", stderr(&out));
}

#[test]
fn help_lists_the_amdgcn_targets() {
    let out = qdc(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    assert!(
        help.contains("qdc compile FILE.qdm --target GFX [--wave32] [--emit asm|obj|vcode] [-o OUT] [--kernel NAME]"),
        "{help}"
    );
    assert!(help.contains("GFX: gfx90a | gfx942 | gfx1100"), "{help}");
}

/// Every kernel of the interpreter and pass filetests, on every target: the code object
/// disassembles with llvm-objdump-19 exactly as `qdc disasm` lists it and as `--emit asm` printed
/// it (the "every code object qd emits passes llvm-objdump-19").
#[test]
fn every_filetest_kernel_disassembles_as_llvm_objdump_on_every_target() {
    let dir = scratch("corpus-objdump");
    let mut kernels = 0;
    let mut compared = 0;
    for sub in ["interp", "opt"] {
        let folder = repo().join("tests/filetests").join(sub);
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&folder).expect("filetests").map(|e| e.expect("entry").path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "qdm")) {
            let text = std::fs::read_to_string(f).expect("read");
            let file = path_str(f);
            for name in
                text.lines().filter_map(|l| l.strip_prefix("kernel @")).map(|l| l.split('(').next().unwrap_or(""))
            {
                kernels += 1;
                for t in &TARGETS {
                    compared += obj_matches_asm_and_objdump(&dir, &file, name, t);
                }
            }
        }
    }
    assert!(kernels > 20, "the filetests have kernels");
    println!("{kernels} filetest kernels on 4 targets: {compared} instructions identical");
}
