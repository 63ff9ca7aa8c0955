//! DWARF line tables in code objects, against LLVM 19's tools: kernels encoded by the ISA layer
//! carry line tables; `llvm-dwarfdump-19 --debug-line` must print exactly their rows at the
//! kernels' code addresses (taken from `llvm-readelf-19 --symbols`), one sequence per kernel
//! ending at the code's end; `--verify` finds no error; `llvm-readelf-19 -S` shows the debug
//! sections non-allocated; `llvm-objdump-19 -d -l` still disassembles every instruction and
//! annotates it with its source line; our reader still parses the object. Bad line tables are
//! errors, never panics (a property test over random rows and paths).

mod code_object_util;

use code_object_util::{run, scratch_dir, tools_present};
use qd_amdgcn_isa::code_object::{
    read_code_object, write_code_object, CodeObjectConfig, CodeObjectError, KernelCode, KernelResources,
};
use qd_amdgcn_isa::dwarf::{LineRow, LineTable};
use qd_amdgcn_isa::{decode_all, encode_all, parse_asm};
use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};

const DIR: &str = "/work/src";

fn row(offset: u32, line: u32, column: u32) -> LineRow {
    LineRow { offset, line, column }
}

fn code(text: &str, target: Target) -> Vec<u8> {
    encode_all(&parse_asm(text, target).expect("parses"), target).expect("encodes")
}

fn kernel(name: &str, code: Vec<u8>, lines: Option<LineTable>) -> KernelCode {
    KernelCode { name: name.into(), code, resources: KernelResources::default(), args: vec![], lines }
}

fn table(file: &str, rows: Vec<LineRow>) -> Option<LineTable> {
    Some(LineTable { comp_dir: DIR.into(), file: file.into(), rows })
}

/// Four kernels: two from `kernels/scan.qd`, one from `lib/other.qd`, one without a line table.
/// The rows sit on instruction boundaries (checked against the decoder).
fn kernels(target: Target) -> Vec<KernelCode> {
    let first = code("v_mov_b32_e32 v0, v1\ns_mov_b32 s2, 0x12345678\ns_nop 1\ns_endpgm\n", target);
    let offsets: Vec<u32> = decode_all(&first, target).expect("decodes").iter().map(|(o, _)| *o).collect();
    assert_eq!(offsets, [0, 4, 12, 16], "the literal makes s_mov_b32 8 bytes");
    let second = code("s_nop 0\nv_mov_b32_e32 v1, v0\ns_endpgm\n", target);
    vec![
        kernel(
            "first",
            first,
            table("kernels/scan.qd", vec![row(0, 10, 5), row(4, 11, 3), row(12, 11, 9), row(16, 14, 1)]),
        ),
        kernel("plain", code("s_nop 0\ns_endpgm\n", target), None),
        kernel("second", second, table("kernels/scan.qd", vec![row(0, 20, 1), row(4, 22, 7), row(8, 25, 2)])),
        kernel("other", code("s_endpgm\n", target), table("lib/other.qd", vec![row(0, 3, 1)])),
    ]
}

fn targets() -> Vec<(Target, Vec<&'static str>)> {
    vec![
        (Target::wave64(Arch::Gfx942), vec!["--mcpu=gfx942"]),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, vec!["--mcpu=gfx1100", "--mattr=+wavefrontsize32"]),
    ]
}

/// The value of symbol `name` in `llvm-readelf --symbols` output (the `.symtab` part).
fn symbol_value(readelf: &str, name: &str) -> u64 {
    let symtab = readelf.split("Symbol table '.symtab'").nth(1).expect("a .symtab");
    symtab
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 8 && f[7] == name).then(|| u64::from_str_radix(f[1], 16).expect("hex value"))
        })
        .unwrap_or_else(|| panic!("no symbol {name} in\n{symtab}"))
}

/// The rows `llvm-dwarfdump --debug-line` prints: (address, line, column, end_sequence), per
/// line table in order.
fn dumped_rows(dump: &str) -> Vec<Vec<(u64, u32, u32, bool)>> {
    let mut tables = Vec::new();
    for l in dump.lines() {
        if l.starts_with("debug_line[") {
            tables.push(Vec::new());
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 4 && f[0].starts_with("0x") && f[0].len() == 18 {
            if let (Ok(a), Ok(line), Ok(col)) = (u64::from_str_radix(&f[0][2..], 16), f[1].parse(), f[2].parse()) {
                tables.last_mut().expect("a table header first").push((a, line, col, l.contains("end_sequence")));
            }
        }
    }
    tables
}

/// What the dump must show for one kernel: its rows at `base`, then the end of the sequence at
/// the end of its code with the last row's line and column.
fn expected(base: u64, k: &KernelCode) -> Vec<(u64, u32, u32, bool)> {
    let rows = &k.lines.as_ref().expect("lines").rows;
    let mut v: Vec<_> = rows.iter().map(|r| (base + u64::from(r.offset), r.line, r.column, false)).collect();
    let last = rows.last().expect("rows");
    v.push((base + k.code.len() as u64, last.line, last.column, true));
    v
}

#[test]
fn dwarfdump_prints_the_line_tables_at_the_kernel_addresses() {
    if !tools_present("dwarfdump_prints_the_line_tables", &["llvm-dwarfdump-19", "llvm-readelf-19"]) {
        return;
    }
    for (target, _) in targets() {
        let ks = kernels(target);
        let obj = write_code_object(&CodeObjectConfig::new(target), &ks).unwrap_or_else(|e| panic!("{target}: {e}"));
        let dir = scratch_dir(&format!("dwarf-{}", target.arch.name()));
        std::fs::write(dir.join("k.co"), &obj).expect("write");
        let readelf = run("llvm-readelf-19", &["--symbols", "k.co"], &dir);
        let addr = |name: &str| symbol_value(&readelf, name);
        assert!(addr("first") >= 0x1000 && addr("first") % 256 == 0, "{readelf}");

        let dump = run("llvm-dwarfdump-19", &["--debug-line", "k.co"], &dir);
        let tables = dumped_rows(&dump);
        // One line table per source file, in order of first appearance.
        let scan = [expected(addr("first"), &ks[0]), expected(addr("second"), &ks[2])].concat();
        let other = expected(addr("other"), &ks[3]);
        assert_eq!(tables, vec![scan, other], "{target}:\n{dump}");
        assert!(dump.contains("kernels/scan.qd") && dump.contains("lib/other.qd") && dump.contains(DIR), "{dump}");
        assert!(dump.contains("version: 5") && dump.contains("min_inst_length: 4"), "{dump}");

        let verify = run("llvm-dwarfdump-19", &["--verify", "k.co"], &dir);
        assert!(verify.contains("No errors."), "{target}: {verify}");
        let info = run("llvm-dwarfdump-19", &["--debug-info", "k.co"], &dir);
        for needle in ["DW_TAG_compile_unit", "DW_AT_stmt_list", "DW_TAG_subprogram", "(\"first\")", "(\"other\")"] {
            assert!(info.contains(needle), "{target}: no {needle} in\n{info}");
        }
        assert!(!info.contains("(\"plain\")"), "a kernel without lines has no subprogram:\n{info}");
    }
}

#[test]
fn readelf_shows_non_allocated_debug_sections() {
    if !tools_present("readelf_shows_non_allocated_debug_sections", &["llvm-readelf-19"]) {
        return;
    }
    let target = Target::wave64(Arch::Gfx942);
    let obj = write_code_object(&CodeObjectConfig::new(target), &kernels(target)).expect("writes");
    let dir = scratch_dir("dwarf-sections");
    std::fs::write(dir.join("k.co"), &obj).expect("write");
    let out = run("llvm-readelf-19", &["-S", "-W", "k.co"], &dir);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().any(|w| w == name))
            .unwrap_or_else(|| panic!("no {name} in\n{out}"))
            .to_string()
    };
    let names = [".debug_abbrev", ".debug_info", ".debug_rnglists", ".debug_str", ".debug_line", ".debug_line_str"];
    for name in names {
        let l = line(name);
        let f: Vec<&str> = l.split_whitespace().collect();
        let at = f.iter().position(|w| *w == name).expect("name");
        // Name Type Address Off Size ES Flg Lk Inf Al
        assert_eq!(f[at + 1], "PROGBITS", "{l}");
        assert_eq!(u64::from_str_radix(f[at + 2], 16).expect("address"), 0, "not loaded: {l}");
        let flags = if name.ends_with("str") { "MS" } else { "0" };
        assert_eq!(f[at + 6], flags, "{l}");
    }
    // The debug sections sit between .dynamic and .symtab, as lld puts them.
    let index = |name: &str| out.find(&format!(" {name} ")).unwrap_or_else(|| panic!("{name}"));
    assert!(index(".dynamic") < index(".debug_abbrev") && index(".debug_line_str") < index(".symtab"), "{out}");
    // The loaded segments are unchanged: still only three PT_LOADs.
    let ph = run("llvm-readelf-19", &["-l", "-W", "k.co"], &dir);
    assert_eq!(ph.lines().filter(|l| l.trim_start().starts_with("LOAD")).count(), 3, "{ph}");

    // Without line tables, no debug section at all.
    let mut plain = kernels(target);
    for k in &mut plain {
        k.lines = None;
    }
    let obj = write_code_object(&CodeObjectConfig::new(target), &plain).expect("writes");
    std::fs::write(dir.join("plain.co"), &obj).expect("write");
    let out = run("llvm-readelf-19", &["-S", "-W", "plain.co"], &dir);
    assert!(!out.contains(".debug"), "{out}");
}

#[test]
fn objdump_still_disassembles_and_annotates_lines() {
    if !tools_present("objdump_still_disassembles_and_annotates_lines", &["llvm-objdump-19"]) {
        return;
    }
    for (target, flags) in targets() {
        let ks = kernels(target);
        let obj = write_code_object(&CodeObjectConfig::new(target), &ks).expect("writes");
        let dir = scratch_dir(&format!("dwarf-objdump-{}", target.arch.name()));
        std::fs::write(dir.join("k.co"), &obj).expect("write");
        let mut args = vec!["-d", "-l"];
        args.extend(flags.iter().copied());
        args.push("k.co");
        let out = run("llvm-objdump-19", &args, &dir);
        assert!(!out.contains("<unknown>"), "{out}");
        let body = |name: &str| {
            let start = out.find(&format!("<{name}>:")).unwrap_or_else(|| panic!("no {name} in\n{out}"));
            let rest = &out[start..];
            rest[..rest[1..].find("\n\n").map_or(rest.len(), |e| e + 1)].to_string()
        };
        let first = body("first");
        assert!(first.contains("v_mov_b32_e32 v0, v1") && first.contains("s_mov_b32 s2, 0x12345678"), "{first}");
        // objdump -l prints `; /work/src/kernels/scan.qd:LINE` before the rows' instructions.
        for l in [10, 11, 14] {
            assert!(first.contains(&format!("{DIR}/kernels/scan.qd:{l}")), "{target}: no line {l} in\n{first}");
        }
        assert!(body("other").contains(&format!("{DIR}/lib/other.qd:3")), "{out}");
        assert!(!body("plain").contains(".qd:"), "{out}");
        assert!(body("plain").contains("s_endpgm"), "{out}");
    }
}

#[test]
fn the_reader_parses_objects_with_line_tables() {
    for (target, _) in targets() {
        let ks = kernels(target);
        let obj = write_code_object(&CodeObjectConfig::new(target), &ks).expect("writes");
        let co = read_code_object(&obj).unwrap_or_else(|e| panic!("{target}: {e}"));
        let names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["first", "plain", "second", "other"]);
        for (k, loaded) in ks.iter().zip(&co.kernels) {
            assert_eq!(loaded.code, k.code, "{}", k.name);
        }
        if target.family() == Family::Gfx9 {
            assert_eq!(co.kernels[0].code_vaddr % 256, 0);
        }
    }
}

#[test]
fn bad_line_tables_are_errors() {
    let target = Target::wave64(Arch::Gfx942);
    let cfg = CodeObjectConfig::new(target);
    let base = kernels(target);
    let with_rows = |rows: Vec<LineRow>| {
        let mut ks = base.clone();
        ks[0].lines = table("kernels/scan.qd", rows);
        write_code_object(&cfg, &ks)
    };
    let expect_kernel_error = |r: Result<Vec<u8>, CodeObjectError>, needle: &str| match r {
        Err(CodeObjectError::InvalidKernel { kernel, reason }) => {
            assert_eq!(kernel, "first");
            assert!(reason.starts_with("line table: ") && reason.contains(needle), "{reason}");
        }
        other => panic!("expected an InvalidKernel error with {needle:?}, got {other:?}"),
    };
    expect_kernel_error(with_rows(vec![row(4, 1, 1), row(0, 2, 1)]), "comes after offset 4");
    expect_kernel_error(with_rows(vec![row(2, 1, 1)]), "not a multiple of 4");
    expect_kernel_error(with_rows(vec![row(0, 1, 1), row(20, 2, 1)]), "past the code (20 bytes)");
    // Equal offsets are fine (two rows for one instruction).
    assert!(with_rows(vec![row(0, 1, 1), row(0, 2, 1), row(16, 3, 1)]).is_ok());
    // An empty row list writes the unit without a sequence.
    assert!(with_rows(vec![]).is_ok());

    for (dir, file) in [("", "k.qd"), (DIR, ""), (DIR, "a\0b")] {
        let mut ks = base.clone();
        ks[0].lines = Some(LineTable { comp_dir: dir.into(), file: file.into(), rows: vec![row(0, 1, 1)] });
        match write_code_object(&cfg, &ks) {
            Err(CodeObjectError::InvalidInput(m)) => assert!(m.contains("empty or contains a NUL"), "{m}"),
            other => panic!("{dir:?} {file:?}: {other:?}"),
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any rows and paths: the writer answers Ok or an error, never panics; rows that are in
    /// order, word-aligned and inside the code are always accepted, and the object reads back.
    #[test]
    fn any_line_table_is_written_or_rejected(
        rows in proptest::collection::vec((0u32..40, 0u32..5000, 0u32..200), 0..12),
        file in "[a-z/\\x00]{0,6}",
        sorted in proptest::bool::ANY,
    ) {
        let target = Target::wave64(Arch::Gfx942);
        let mut rows: Vec<LineRow> = rows.into_iter().map(|(o, line, column)| row(o, line, column)).collect();
        if sorted {
            for r in &mut rows {
                r.offset = (r.offset % 5) * 4;
            }
            rows.sort_by_key(|r| r.offset);
        }
        let ks = vec![kernel("k", code("v_mov_b32_e32 v0, v1\ns_mov_b32 s2, 0x12345678\ns_nop 1\ns_endpgm\n", target),
            Some(LineTable { comp_dir: DIR.into(), file: file.clone(), rows: rows.clone() }))];
        let r = write_code_object(&CodeObjectConfig::new(target), &ks);
        let valid_path = !file.is_empty() && !file.contains('\0');
        let valid_rows = rows.windows(2).all(|w| w[0].offset <= w[1].offset)
            && rows.iter().all(|r| r.offset % 4 == 0 && r.offset < 20);
        proptest::prop_assert_eq!(r.is_ok(), valid_path && valid_rows, "{:?}", r.as_ref().err());
        if let Ok(obj) = r {
            let co = read_code_object(&obj).expect("reads back");
            proptest::prop_assert_eq!(&co.kernels[0].code, &ks[0].code);
        }
    }
}
