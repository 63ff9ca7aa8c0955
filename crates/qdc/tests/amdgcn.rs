//! End-to-end tests of `qdc asm` and `qdc disasm` on every AMDGCN target: assemble → disassemble
//! gives back the program's canonical text and bytes; bad assembly and bad objects fail with
//! clear messages and exit status 1; and — when `llvm-objdump-19` is installed — `qdc disasm`
//! prints every instruction exactly as `llvm-objdump-19 -d` does, and `qdc disasm --mc-syntax`
//! as `llvm-mc-19 -show-encoding` does (they differ in two spellings, checked here too).

use std::path::{Path, PathBuf};
use std::process::Command;

use qd_amdgcn_isa::code_object::{
    read_code_object, write_code_object, CodeObjectConfig, KernelCode, KernelDescriptor, KernelResources, UserSgprs,
};
use qd_amdgcn_isa::{encode_all, parse_asm};
use qd_isel_amdgcn::{Arch, Family, Target, WaveSize};

const OBJDUMP: &str = "llvm-objdump-19";
const MC: &str = "llvm-mc-19";
const LLD: &str = "ld.lld-19";

mod common;

use common::{have, path_str, qdc, stderr, stdout, Scratch};

fn scratch(test: &str) -> Scratch {
    common::scratch_in("amdgcn", test)
}

/// The four targets and their `--target` spelling.
fn targets() -> Vec<(Target, &'static str)> {
    vec![
        (Target::wave64(Arch::Gfx90a), "gfx90a"),
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx1100), "gfx1100"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100:wave32"),
    ]
}

/// `--mattr` for llvm-objdump / llvm-mc (gfx1100 defaults to wave32).
fn mattr(target: Target) -> &'static str {
    match (target.family(), target.wave) {
        (Family::Gfx11, WaveSize::W64) => "--mattr=+wavefrontsize64",
        _ => "--mattr=",
    }
}

/// A non-trivial kernel for each target: SMEM kernarg loads, scalar and vector ALU, a compare
/// into VCC and an EXEC-masked region, a forward and a backward branch, DPP16 (and DPP8 and
/// permlane16/x16/64 on gfx1100), LDS stores/loads/swizzle/bpermute/atomics, global memory with
/// `saddr` and with `off`, global atomics, and `s_waitcnt`s.
fn kernel(target: Target) -> String {
    let body = match target.family() {
        Family::Gfx9 => {
            let (cache_ret, extra) = match target.arch {
                Arch::Gfx942 => (
                    "sc0",
                    "  v_lshl_add_u64 v[10:11], v[2:3], 2, v[4:5]
  global_load_dword v19, v2, s[4:5] sc0 sc1
  global_store_dword v2, v3, s[4:5] nt
  s_nop 1
  v_mov_b32_dpp v6, v3 row_newbcast:1 row_mask:0xf bank_mask:0xf
",
                ),
                _ => ("glc", "  global_load_dword v19, v2, s[4:5] glc slc\n"),
            };
            format!(
                "; {target}: qdc asm / disasm test kernel
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  s_lshl_b32 s2, s2, 6
  s_movk_i32 s11, 0x1234
  s_mov_b64 s[12:13], exec
  v_and_b32_e32 v1, 0x3ff, v0
  v_add_u32_e32 v1, s2, v1
  v_lshlrev_b32_e32 v2, 2, v1
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc, s6, v1
  s_and_saveexec_b64 s[8:9], vcc
  s_cbranch_execz .Ldone          // forward branch
  global_load_dword v3, v2, s[4:5]
  v_mov_b32_e32 v4, s4
  v_mov_b32_e32 v5, s5
  v_add_co_u32_e32 v4, vcc, v4, v2
  v_addc_co_u32_e32 v5, vcc, 0, v5, vcc
  s_waitcnt vmcnt(0)
  s_nop 1
  v_add_u32_dpp v3, v3, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v6, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_readfirstlane_b32 s14, v3
  v_mad_u64_u32 v[10:11], s[16:17], v1, v2, v[4:5]
  ds_write_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v7, v2 offset:4
  ds_read2_b32 v[12:13], v2 offset0:1 offset1:2
  ds_swizzle_b32 v8, v3 offset:swizzle(SWAP,16)
  ds_bpermute_b32 v9, v2, v3
  ds_add_rtn_u32 v14, v2, v3 offset:8
  s_waitcnt lgkmcnt(0)
  v_add_f32_e64 v7, -v7, |v8|
  v_max_f32_e32 v15, 1.0, v7
  v_cndmask_b32_e32 v7, v7, v9, vcc
  global_load_dwordx2 v[16:17], v[4:5], off
  global_atomic_add v18, v2, v3, s[4:5] {cache_ret}
  global_atomic_add v2, v3, s[4:5] offset:8
{extra}  s_mov_b32 s10, 0
.Lloop:
  s_add_u32 s10, s10, 1
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .Lloop           ; backward branch
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v[4:5], v7, off offset:16
  s_or_b64 exec, exec, s[8:9]
.Ldone:
  s_endpgm
"
            )
        }
        Family::Gfx11 => {
            let w64 = target.wave == WaveSize::W64;
            let (vcc, exec, save, b) =
                if w64 { ("vcc", "exec", "s[8:9]", "b64") } else { ("vcc_lo", "exec_lo", "s8", "b32") };
            let perm64 = if w64 { "  v_permlane64_b32 v12, v3\n" } else { "" };
            format!(
                "; {target}: qdc asm / disasm test kernel
  s_load_b64 s[4:5], s[0:1], 0x0
  s_load_b32 s6, s[0:1], 0x8
  s_lshl_b32 s2, s2, 6
  s_movk_i32 s11, 0x1234
  s_mov_b64 s[16:17], s[0:1]
  v_and_b32_e32 v1, 0x3ff, v0
  v_add_nc_u32_e32 v1, s2, v1
  v_lshlrev_b32_e32 v2, 2, v1
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 {vcc}, s6, v1
  s_and_saveexec_{b} {save}, {vcc}
  s_cbranch_execz .Ldone          // forward branch
  global_load_b32 v3, v2, s[4:5]
  v_mov_b32_e32 v4, s4
  v_mov_b32_e32 v5, s5
  v_add_co_u32 v4, {vcc}, v4, v2
  v_add_co_ci_u32_e32 v5, {vcc}, 0, v5, {vcc}
  s_waitcnt vmcnt(0)
  v_add_nc_u32_dpp v3, v3, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v6, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v6, v3 dpp8:[1,0,3,2,5,4,7,6]
  v_add_f32_e64_dpp v6, v1, v2 dpp8:[7,6,5,4,3,2,1,0]
  v_add3_u32_e64_dpp v0, v1, v2, 5 row_shr:1 row_mask:0xf bank_mask:0xf
  s_delay_alu instid0(VALU_DEP_1)
  v_readfirstlane_b32 s14, v3
  v_mad_u64_u32 v[10:11], null, v1, v2, v[4:5]
  ds_store_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_load_b32 v7, v2 offset:4
  ds_load_2addr_b32 v[12:13], v2 offset0:1 offset1:2
  ds_swizzle_b32 v8, v3 offset:swizzle(SWAP,16)
  ds_bpermute_b32 v9, v2, v3
  ds_add_rtn_u32 v14, v2, v3 offset:8
  v_permlane16_b32 v10, v3, s2, s3
  v_permlanex16_b32 v11, v3, s2, s3 op_sel:[1,1]
{perm64}  s_waitcnt lgkmcnt(0)
  v_add_f32_e64 v7, -v7, |v8|
  v_max_f32_e32 v15, 1.0, v7
  v_cndmask_b32_e32 v7, v7, v9, {vcc}
  global_load_b64 v[16:17], v[4:5], off
  global_atomic_add_u32 v18, v2, v3, s[4:5] glc
  global_atomic_add_u32 v2, v3, s[4:5] offset:8
  s_mov_b32 s10, 0
.Lloop:
  s_add_u32 s10, s10, 1
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .Lloop           ; backward branch
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_b32 v[4:5], v7, off offset:16
  s_waitcnt_vscnt null, 0x0
  s_or_{b} {exec}, {exec}, {save}
.Ldone:
  s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
  s_endpgm
"
            )
        }
    };
    body
}

/// The file stem of a target's kernel (also the kernel name).
fn stem(spelling: &str) -> String {
    format!("k_{}", spelling.replace(':', "_"))
}

/// Writes the target's kernel to `dir` and assembles it with `qdc asm`; returns the .co path.
fn assemble(dir: &Path, target: Target, spelling: &str) -> String {
    let src = dir.join(format!("{}.s", stem(spelling)));
    std::fs::write(&src, kernel(target)).expect("write kernel");
    let out = qdc(&["asm", &path_str(&src), "--target", spelling, "--kernarg-size", "24", "--lds", "1024"]);
    assert!(out.status.success(), "{spelling}: qdc asm failed:\n{}", stderr(&out));
    let co = src.with_extension("co");
    assert!(co.exists(), "{spelling}: default output {} missing", co.display());
    path_str(&co)
}

/// The instruction lines of a listing in llvm-objdump's layout: (address, text) with the text's
/// whitespace normalised and the trailing `// ADDRESS: WORDS …` comment removed.
fn instructions(listing: &str) -> Vec<(u64, String)> {
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

/// The canonical text of a program: parse, then print each instruction with our printer, in
/// LLVM's disassembler spelling (`Inst::display_disasm`, what `qdc disasm` prints) or, with
/// `mc_syntax`, its assembler's (`Inst::display`, what `qdc disasm --mc-syntax` prints).
fn canonical(text: &str, target: Target, mc_syntax: bool) -> Vec<String> {
    let insts = parse_asm(text, target).unwrap_or_else(|e| panic!("{target}: {}", e.render(text)));
    insts
        .iter()
        .map(|i| if mc_syntax { i.display(target).to_string() } else { i.display_disasm(target).to_string() })
        .collect()
}

/// Where LLVM's assembler and disassembler spell the same instruction differently (so `qdc
/// disasm` and `qdc disasm --mc-syntax` may differ): returns which of the two cases `(mc, dis)` is.
fn spelling_difference(mc: &str, dis: &str) -> Option<&'static str> {
    // 1. Negative SOPP branch offsets: the assembler prints `-3`, the disassembler the simm16
    //    unsigned, `65533`.
    if let (Some((m1, a)), Some((m2, b))) = (mc.split_once(' '), dis.split_once(' ')) {
        if m1 == m2 && m1.contains("branch") {
            if let (Ok(a), Ok(b)) = (a.parse::<i32>(), b.parse::<u32>()) {
                if a < 0 && u32::from(a as u16) == b {
                    return Some("negative branch offset");
                }
            }
        }
    }
    // 2. GFX11 SMEM with offset 0 and no SGPR offset: `0x0` vs `null`.
    if let (Some(a), Some(b)) = (mc.strip_suffix(", 0x0"), dis.strip_suffix(", null")) {
        if a == b && a.starts_with("s_") {
            return Some("GFX11 SMEM zero offset");
        }
    }
    None
}

#[test]
fn asm_then_disasm_gives_back_the_canonical_program_on_every_target() {
    let dir = scratch("round-trip");
    for (target, spelling) in targets() {
        let co = assemble(&dir, target, spelling);
        let out = qdc(&["disasm", &co]);
        assert!(out.status.success(), "{spelling}: {}", stderr(&out));
        let listing = stdout(&out);
        assert!(stderr(&out).is_empty(), "{spelling}: unexpected warnings:\n{}", stderr(&out));

        // Header.
        let src = kernel(target);
        let code = encode_all(&parse_asm(&src, target).expect("parses"), target).expect("encodes");
        let name = stem(spelling);
        let header = listing.lines().next().unwrap_or_default();
        let tid = format!("amdgcn-amd-amdhsa--{}", target.arch);
        assert!(header.starts_with(&format!("; kernel {name}: {tid} (wave{}), ", target.wave.lanes())), "{header}");
        assert!(header.contains(&format!(", {} bytes of code at 0x", code.len())), "{header}");

        // Every instruction is the canonical text, in order, at consecutive addresses, and the
        // hex words are the encoder's bytes; with --mc-syntax the assembler's canonical text,
        // which differs only in the two spellings.
        let got = instructions(&listing);
        let want = canonical(&src, target, false);
        let texts: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, want, "{spelling}:\n{listing}");
        let out = qdc(&["disasm", &co, "--mc-syntax"]);
        assert!(out.status.success(), "{spelling}: {}", stderr(&out));
        let mc: Vec<String> = instructions(&stdout(&out)).into_iter().map(|(_, t)| t).collect();
        assert_eq!(mc, canonical(&src, target, true), "{spelling} --mc-syntax");
        let mut kinds = std::collections::BTreeSet::new();
        for (m, d) in mc.iter().zip(&want) {
            if m != d {
                kinds.insert(spelling_difference(m, d).unwrap_or_else(|| panic!("{spelling}: `{m}` vs `{d}`")));
            }
        }
        // The test kernel has a backward branch everywhere and a zero-offset s_load on gfx1100.
        let want_kinds: &[&str] = match target.family() {
            Family::Gfx9 => &["negative branch offset"],
            Family::Gfx11 => &["GFX11 SMEM zero offset", "negative branch offset"],
        };
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), want_kinds, "{spelling}");
        let words: Vec<String> = listing
            .lines()
            .filter(|l| l.starts_with('\t') && l.contains("// "))
            .flat_map(|l| {
                let comment = l.split_once("// ").map_or("", |(_, c)| c);
                let after = comment.split_once(": ").map_or("", |(_, w)| w);
                after.split_whitespace().take_while(|w| !w.starts_with('<')).map(str::to_string).collect::<Vec<_>>()
            })
            .collect();
        let want_words: Vec<String> =
            code.chunks_exact(4).map(|w| format!("{:08X}", u32::from_le_bytes([w[0], w[1], w[2], w[3]]))).collect();
        assert_eq!(words, want_words, "{spelling}");

        // The descriptor block, from the resources of the ABI `qdc asm` documents.
        let obj = read_code_object(&std::fs::read(&co).expect("read co")).expect("our reader reads it");
        let k = obj.kernel(&name).expect("kernel present");
        assert_eq!(k.code, code, "{spelling}");
        assert_eq!(obj.target(k), target);
        let want_res = KernelResources {
            next_free_vgpr: 20,
            next_free_sgpr: 18,
            uses_vcc: true,
            group_segment_size: 1024,
            private_segment_size: 0,
            kernarg_size: 24,
            user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
            workgroup_id: [true, true, true],
            workitem_id_dims: 3,
            max_flat_workgroup_size: 1024,
            f32_denormals: false,
        };
        let mut want_kd = KernelDescriptor::from_resources(target, &want_res);
        want_kd.kernel_code_entry_byte_offset = k.descriptor.kernel_code_entry_byte_offset;
        assert_eq!(k.descriptor, want_kd, "{spelling}");
        assert!(listing.ends_with(&format!("\n{}", want_kd.to_asm(target.arch, &name))), "{spelling}:\n{listing}");
        assert!(listing.contains("\t.amdhsa_kernarg_size 24\n"), "{listing}");
        assert!(listing.contains("\t.amdhsa_group_segment_fixed_size 1024\n"), "{listing}");

        // --no-descriptor: the listing alone, in either spelling, assembles back to the same
        // bytes.
        for flags in [&["--no-descriptor"][..], &["--no-descriptor", "--mc-syntax"]] {
            let mut args = vec!["disasm", co.as_str(), "--kernel", name.as_str()];
            args.extend_from_slice(flags);
            let out = qdc(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            assert!(!stdout(&out).contains(".amdhsa"), "{}", stdout(&out));
            let again = dir.join(format!("{name}_again.s"));
            std::fs::write(&again, stdout(&out)).expect("write listing");
            let co2 = dir.join(format!("{name}_again.co"));
            let out = qdc(&["asm", &path_str(&again), "--target", spelling, "-o", &path_str(&co2), "--kernel", &name]);
            assert!(
                out.status.success(),
                "{spelling} {flags:?}: the listing does not assemble back:\n{}",
                stderr(&out)
            );
            let obj2 = read_code_object(&std::fs::read(&co2).expect("read co")).expect("reads");
            assert_eq!(obj2.kernels[0].code, code, "{spelling} {flags:?}");
        }
    }
}

#[test]
fn asm_reports_bad_assembly_with_a_caret_in_the_users_file() {
    let dir = scratch("bad-asm");
    let src = dir.join("bad.s");
    std::fs::write(&src, "  v_mov_b32_e32 v0, v1\n  v_bogus_b32 v1, v2\n  s_endpgm\n").expect("write");
    let file = path_str(&src);
    let out = qdc(&["asm", &file, "--target", "gfx942"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error: unknown instruction `v_bogus_b32`"), "{err}");
    assert!(err.contains(&format!("--> {file}:2:3\n")), "{err}");
    assert!(err.contains("2 |   v_bogus_b32 v1, v2\n  |   ^\n"), "{err}");
    assert!(!dir.join("bad.co").exists(), "no object is written on error");

    // An instruction that exists but not on this target, and an illegal operand.
    std::fs::write(&src, "v_permlane64_b32 v1, v1\n").expect("write");
    let out = qdc(&["asm", &file, "--target", "gfx90a"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&format!("--> {file}:1:")), "{}", stderr(&out));
    std::fs::write(&src, "s_endpgm\ns_cbranch_scc0 .Lnowhere\n").expect("write");
    let out = qdc(&["asm", &file, "--target", "gfx1100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("undefined label `.Lnowhere`"), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("--> {file}:2:")), "{}", stderr(&out));
}

#[test]
fn asm_rejects_bad_options() {
    let dir = scratch("bad-options");
    let src = dir.join("k.s");
    std::fs::write(&src, "s_endpgm\n").expect("write");
    let file = path_str(&src);
    for (args, msg) in [
        (vec!["asm", file.as_str()], "missing --target"),
        (vec!["asm", file.as_str(), "--target", "gfx908"], "unknown architecture 'gfx908'"),
        (vec!["asm", file.as_str(), "--target", "gfx942:wave32"], "gfx942 cannot run 32 lanes"),
        (vec!["asm", file.as_str(), "--target", "gfx942", "--workgroup-size", "2048"], "not in 1..=1024"),
        (vec!["asm", file.as_str(), "--target", "gfx942", "--lds", "lots"], "--lds: 'lots'"),
        (vec!["asm", file.as_str(), "--target", "gfx942", "--lds", "100000"], "group_segment_size 100000"),
        (vec!["asm", file.as_str(), "--target", "gfx942", "--frobnicate"], "unknown option '--frobnicate'"),
        (vec!["asm", "--target", "gfx942"], "missing FILE.s"),
        (vec!["asm", "/nonexistent/k.s", "--target", "gfx942"], "cannot read /nonexistent/k.s"),
    ] {
        let out = qdc(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(msg), "{args:?}: {}", stderr(&out));
    }
    // An empty program, and the options that name things.
    std::fs::write(&src, "; nothing\n").expect("write");
    let out = qdc(&["asm", &file, "--target", "gfx942"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no instructions"), "{}", stderr(&out));
    std::fs::write(&src, "s_endpgm\n").expect("write");
    let co = path_str(&dir.join("named.co"));
    let out = qdc(&["asm", &file, "--target", "gfx942", "-o", &co, "--kernel", "my_kernel", "--workgroup-size", "64"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let obj = read_code_object(&std::fs::read(&co).expect("read")).expect("reads");
    assert_eq!(obj.kernels.len(), 1);
    assert_eq!(obj.kernels[0].name, "my_kernel");
    let md = obj.kernels[0].metadata.as_ref().expect("metadata");
    assert_eq!(md.get(".max_flat_workgroup_size").and_then(|v| v.as_u64()), Some(64));
}

#[test]
fn disasm_rejects_what_is_not_an_amdgpu_code_object() {
    let dir = scratch("bad-objects");
    let garbage = dir.join("garbage.co");
    let bytes: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&garbage, &bytes).expect("write");
    let truncated = dir.join("truncated.co");
    let good = write_code_object(
        &CodeObjectConfig::new(Target::wave64(Arch::Gfx942)),
        &[KernelCode {
            name: "k".into(),
            code: 0xBF81_0000u32.to_le_bytes().to_vec(),
            resources: KernelResources::default(),
            args: vec![],
            lines: None,
        }],
    )
    .expect("writes");
    std::fs::write(&truncated, &good[..good.len() / 3]).expect("write");
    let empty = dir.join("empty.co");
    std::fs::write(&empty, b"").expect("write");
    let cases = [
        (path_str(&garbage), "malformed code object"),
        (path_str(&truncated), "code object"),
        (path_str(&empty), "malformed code object"),
        // An ELF file of another machine: the qdc executable itself.
        (env!("CARGO_BIN_EXE_qdc").to_string(), "is not EM_AMDGPU"),
        (path_str(&dir.join("missing.co")), "cannot read"),
    ];
    for (file, msg) in cases {
        let out = qdc(&["disasm", &file]);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{file}: {err}");
        assert!(err.contains(msg), "{file}: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
        assert!(stdout(&out).is_empty(), "{file}");
    }
    let good_file = dir.join("good.co");
    std::fs::write(&good_file, &good).expect("write");
    let out = qdc(&["disasm", &path_str(&good_file), "--kernel", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no kernel named 'nope' (kernels: k)"), "{}", stderr(&out));
    let out = qdc(&["disasm"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("missing FILE.co"), "{}", stderr(&out));
}

#[test]
fn disasm_prints_undecodable_words_as_long_and_strict_fails() {
    let dir = scratch("undecodable");
    // s_nop 0; a word no table row decodes; s_endpgm.
    let words = [0xBF80_0000u32, 0xFFFF_FFFF, 0xBF81_0000];
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let target = Target::wave64(Arch::Gfx90a);
    let obj = write_code_object(
        &CodeObjectConfig::new(target),
        &[KernelCode { name: "odd".into(), code, resources: KernelResources::default(), args: vec![], lines: None }],
    )
    .expect("writes");
    let file = dir.join("odd.co");
    std::fs::write(&file, obj).expect("write");
    let file = path_str(&file);
    let out = qdc(&["disasm", &file, "--no-descriptor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[1].starts_with("\ts_nop 0 "), "{text}");
    assert!(lines[2].starts_with("\t.long 0xffffffff "), "{text}");
    assert!(lines[2].contains(": FFFFFFFF ; qdc: not decoded: "), "{text}");
    assert!(lines[3].starts_with("\ts_endpgm "), "{text}");
    assert!(stderr(&out).contains("warning: kernel odd: 1 word not decoded (printed as .long)"), "{}", stderr(&out));
    let out = qdc(&["disasm", &file, "--strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("1 word(s) not decoded (--strict)"), "{}", stderr(&out));
}

/// Runs a tool, asserting success; returns its stdout.
fn run_tool(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool).args(args).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(out.status.success(), "{tool} {args:?}:\n{}", stderr(&out));
    stdout(&out)
}

/// Compares `qdc disasm FILE` with `llvm-objdump-19 -d` instruction by instruction (objdump's
/// lines restricted to the kernel's code: it also lists the padding after it). Returns our
/// listing, (address, normalised text); panics on any difference (or an undecodable word).
fn compare_with_objdump(co: &str, target: Target, what: &str) -> Vec<(u64, String)> {
    let out = qdc(&["disasm", co, "--no-descriptor"]);
    assert!(out.status.success(), "{what}: {}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{what}: {}", stderr(&out));
    let ours = instructions(&stdout(&out));
    let obj = read_code_object(&std::fs::read(co).expect("read")).expect("reads");
    let k = &obj.kernels[0];
    let (start, end) = (k.code_vaddr, k.code_vaddr + k.code.len() as u64);
    let dump = run_tool(OBJDUMP, &["-d", &format!("--mcpu={}", target.arch), mattr(target), co]);
    let theirs: Vec<(u64, String)> =
        instructions(&dump).into_iter().filter(|(addr, _)| (start..end).contains(addr)).collect();
    assert!(!theirs.is_empty(), "{what}: llvm-objdump listed nothing in {start:#x}..{end:#x}:\n{dump}");
    let mut mismatches = Vec::new();
    for i in 0..ours.len().max(theirs.len()) {
        match (ours.get(i), theirs.get(i)) {
            (Some((a1, t1)), Some((a2, t2))) if a1 == a2 && t1 == t2 => {}
            (Some((a1, t1)), Some((a2, t2))) if a1 == a2 => {
                mismatches.push(format!("@{a1:#x}: qd `{t1}`\n        llvm-objdump-19 `{t2}`"));
            }
            (a, b) => mismatches.push(format!("qd {a:?}\n        llvm-objdump-19 {b:?}")),
        }
    }
    if !mismatches.is_empty() {
        let listings = if ours.len() <= 200 {
            format!("\n\nqdc:\n{}\nllvm-objdump-19:\n{dump}", stdout(&out))
        } else {
            String::new()
        };
        panic!(
            "{what}: qdc disasm and llvm-objdump-19 disagree on {} instruction(s):\n  {}{listings}",
            mismatches.len(),
            mismatches.iter().take(40).cloned().collect::<Vec<_>>().join("\n  "),
        );
    }
    ours
}

/// THE comparison: for every target, a kernel assembled by `qdc asm` disassembles with
/// `qdc disasm` to exactly what `llvm-objdump-19 -d --mcpu=<arch>` prints, instruction by
/// instruction (whitespace and the trailing comment normalised).
#[test]
fn disasm_matches_llvm_objdump_on_every_target() {
    if !have(OBJDUMP) {
        println!("SKIPPED: llvm-objdump-19 not installed");
        return;
    }
    let dir = scratch("objdump");
    let mut compared = 0;
    for (target, spelling) in targets() {
        let co = assemble(&dir, target, spelling);
        compared += compare_with_objdump(&co, target, spelling).len();
    }
    println!("compared {compared} instructions on 4 targets with llvm-objdump-19: all identical");
}

/// `qdc disasm` reads lld-linked objects too: the same kernels assembled by `llvm-mc-19` and
/// linked by `ld.lld-19` disassemble as `llvm-objdump-19` prints them, and the descriptor block
/// is llvm-objdump's `.kd` block.
#[test]
fn disasm_reads_lld_linked_objects() {
    let missing: Vec<&str> = [OBJDUMP, MC, LLD].into_iter().filter(|t| !have(t)).collect();
    if !missing.is_empty() {
        println!("SKIPPED: {} not installed", missing.join(", "));
        return;
    }
    let dir = scratch("lld");
    for (target, spelling) in targets() {
        let name = stem(spelling);
        let w32 = u8::from(target.wave == WaveSize::W32);
        let mut src = format!(
            ".amdgcn_target \"amdgcn-amd-amdhsa--{arch}\"\n.text\n.globl {name}\n.p2align 8\n.type {name},@function\n{name}:\n{body}.Lend:\n.size {name}, .Lend-{name}\n.rodata\n.p2align 6\n.amdhsa_kernel {name}\n  .amdhsa_next_free_vgpr 20\n  .amdhsa_next_free_sgpr 18\n  .amdhsa_kernarg_size 24\n",
            arch = target.arch,
            body = kernel(target),
        );
        match target.family() {
            Family::Gfx9 => src.push_str("  .amdhsa_accum_offset 20\n"),
            Family::Gfx11 => src.push_str(&format!("  .amdhsa_wavefront_size32 {w32}\n")),
        }
        src.push_str(".end_amdhsa_kernel\n");
        let s = dir.join(format!("{name}.s"));
        std::fs::write(&s, &src).expect("write");
        let o = path_str(&dir.join(format!("{name}.o")));
        let co = path_str(&dir.join(format!("{name}.co")));
        let mcpu = format!("-mcpu={}", target.arch);
        run_tool(MC, &["-triple=amdgcn-amd-amdhsa", &mcpu, mattr(target), "-filetype=obj", &path_str(&s), "-o", &o]);
        run_tool(LLD, &["-shared", &o, "-o", &co]);
        compare_with_objdump(&co, target, &format!("{spelling} (lld)"));
        // The descriptor block equals llvm-objdump's `.kd` block, directive for directive.
        let ours = stdout(&qdc(&["disasm", &co]));
        let ours_kd: Vec<&str> = ours.lines().map(str::trim).filter(|l| l.starts_with(".amdhsa_")).collect();
        let dump = run_tool(OBJDUMP, &["-D", "-j", ".rodata", &format!("--mcpu={}", target.arch), mattr(target), &co]);
        let theirs_kd: Vec<&str> = dump
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with(".amdhsa_") && !l.starts_with(".amdhsa_kernel"))
            .collect();
        let ours_kd: Vec<&str> = ours_kd.into_iter().filter(|l| !l.starts_with(".amdhsa_kernel")).collect();
        assert_eq!(ours_kd, theirs_kd, "{spelling}:\n{ours}\n{dump}");
    }
}

/// The codec's golden tables (`crates/qd-amdgcn-isa/tests/golden/<target>.txt`: llvm-mc-19's
/// bytes and text for every instruction form), when present: put all of a table's bytes in one
/// kernel; `qdc disasm` prints each instruction exactly as `llvm-objdump-19 -d` does, and
/// `qdc disasm --mc-syntax` as the table's (llvm-mc's) text; the two differ only in the two
/// spellings of [`spelling_difference`].
#[test]
fn disasm_matches_llvm_objdump_on_the_codec_golden_tables() {
    if !have(OBJDUMP) {
        println!("SKIPPED: llvm-objdump-19 not installed");
        return;
    }
    let golden_dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "qd-amdgcn-isa", "tests", "golden"].iter().collect();
    let dir = scratch("golden");
    for (target, spelling) in targets() {
        let file = golden_dir.join(format!("{}.txt", spelling.replace(":wave32", "-wave32")));
        let Ok(table) = std::fs::read_to_string(&file) else {
            println!("SKIPPED {spelling}: no golden table at {}", file.display());
            continue;
        };
        let mut code = Vec::new();
        let mut want = Vec::new();
        for line in table.lines().filter(|l| !l.starts_with('#') && l.contains('|')) {
            let (hex, text) = line.split_once('|').unwrap_or_default();
            want.push((code.len() as u64, text.split_whitespace().collect::<Vec<_>>().join(" ")));
            for b in hex.split_whitespace() {
                code.push(u8::from_str_radix(b, 16).unwrap_or_else(|_| panic!("{}: bad byte `{b}`", file.display())));
            }
        }
        let kernel = KernelCode {
            name: "golden".into(),
            code,
            resources: KernelResources::default(),
            args: vec![],
            lines: None,
        };
        let obj = write_code_object(&CodeObjectConfig::new(target), &[kernel]).expect("writes");
        let co = dir.join(format!("{}.co", stem(spelling)));
        std::fs::write(&co, obj).expect("write");
        let co = path_str(&co);
        let dis = compare_with_objdump(&co, target, spelling);
        let out = qdc(&["disasm", &co, "--no-descriptor", "--mc-syntax"]);
        assert!(out.status.success() && stderr(&out).is_empty(), "{spelling}: {}", stderr(&out));
        let mc = instructions(&stdout(&out));
        let base = mc.first().map_or(0, |(a, _)| *a);
        assert_eq!(mc.len(), want.len(), "{spelling}");
        let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
        for (((a, m), w), (_, d)) in mc.iter().zip(&want).zip(&dis) {
            assert_eq!((a - base, m), (w.0, &w.1), "{spelling}: qdc disasm --mc-syntax vs the golden table");
            if m != d {
                let kind = spelling_difference(m, d).unwrap_or_else(|| panic!("{spelling}: `{m}` vs `{d}`"));
                *kinds.entry(kind).or_default() += 1;
            }
        }
        println!(
            "{spelling}: {} golden instructions: as llvm-objdump-19 prints them, and with --mc-syntax as the table; \
             spellings that differ: {kinds:?}",
            want.len()
        );
    }
}

/// The example session of docs/qdc.md is what `qdc asm` and `qdc disasm` really print.
#[test]
fn the_documented_example_session_is_real() {
    let doc_path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "docs", "qdc.md"].iter().collect();
    let doc = std::fs::read_to_string(&doc_path).expect("docs/qdc.md");
    let section = |from: &str, to: &str| -> String {
        let start = doc.find(from).unwrap_or_else(|| panic!("docs/qdc.md lacks `{from}`")) + from.len();
        let len = doc[start..].find(to).unwrap_or_else(|| panic!("docs/qdc.md lacks `{to}` after `{from}`"));
        doc[start..start + len].to_string()
    };
    let program = section("$ cat add_one.s\n", "$ qdc asm");
    let summary = section("--workgroup-size 64\n", "\n$ qdc disasm");
    let listing = section("$ qdc disasm add_one.co\n", "\n.amdhsa_kernel");
    let dir = scratch("doc-example");
    let src = dir.join("add_one.s");
    std::fs::write(&src, &program).expect("write");
    let out = qdc(&["asm", &path_str(&src), "--target", "gfx942", "--kernarg-size", "12", "--workgroup-size", "64"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let co = path_str(&dir.join("add_one.co"));
    assert_eq!(stderr(&out).trim_end(), summary.replacen("add_one.co", &co, 1), "the documented summary");
    let out = qdc(&["disasm", &co]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = stdout(&out);
    assert!(got.starts_with(&listing), "docs/qdc.md's listing is not what qdc prints:\n{got}");
    // The documented descriptor lines (the `…` elide others) appear in order.
    let kd = section("\n.amdhsa_kernel add_one\n", ".end_amdhsa_kernel");
    let mut rest = got.as_str();
    for line in kd.lines().filter(|l| !l.contains('…')) {
        let at = rest.find(&format!("{line}\n")).unwrap_or_else(|| panic!("`{line}` missing or out of order:\n{got}"));
        rest = &rest[at + line.len()..];
    }
    if have(OBJDUMP) {
        compare_with_objdump(&co, Target::wave64(Arch::Gfx942), "docs example");
    }
}

/// Objects with several kernels: each is listed (header, code, descriptor), and `--kernel`
/// picks one.
#[test]
fn disasm_lists_every_kernel_and_kernel_picks_one() {
    let dir = scratch("multi");
    let target = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };
    let kernel = |name: &str, text: &str| KernelCode {
        name: name.into(),
        code: encode_all(&parse_asm(text, target).expect("parses"), target).expect("encodes"),
        resources: KernelResources::default(),
        args: vec![],
        lines: None,
    };
    let obj = write_code_object(
        &CodeObjectConfig::new(target),
        &[kernel("first", "s_nop 0\ns_endpgm\n"), kernel("second", "v_mov_b32_e32 v0, v1\ns_endpgm\n")],
    )
    .expect("writes");
    let file = path_str(&dir.join("two.co"));
    std::fs::write(&file, obj).expect("write");
    let out = qdc(&["disasm", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.find("; kernel first: amdgcn-amd-amdhsa--gfx1100 (wave32), 8 bytes of code at 0x").expect(&text);
    let second = text.find("\n\n; kernel second: amdgcn-amd-amdhsa--gfx1100 (wave32), 8 bytes").expect(&text);
    assert!(first < second, "{text}");
    assert_eq!(text.matches(".amdhsa_kernel ").count(), 2, "{text}");
    assert!(text.contains("\t.amdhsa_wavefront_size32 1\n"), "{text}");
    let listed: Vec<String> = instructions(&text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(listed, ["s_nop 0", "s_endpgm", "v_mov_b32_e32 v0, v1", "s_endpgm"]);
    let out = qdc(&["disasm", &file, "--kernel", "second", "--no-descriptor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("; kernel second:"), "{text}");
    let listed: Vec<String> = instructions(&text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(listed, ["v_mov_b32_e32 v0, v1", "s_endpgm"]);
}
