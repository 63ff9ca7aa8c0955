//! DWARF lines for a kernel built with the Rust builder: `KernelBuilder::finish_with_lines`
//! records the caller location of every builder call, `compile_kernel_with_lines` writes them as
//! the code object's `.debug_line`, and `llvm-dwarfdump-19` reads back this file's lines.

use qd_frontend::{Dim, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_isel_amdgcn::{compile_kernel_with_lines, AmdgcnOptions, Arch, SourceFile, Target};

#[test]
fn builder_lines_reach_the_debug_line_table() {
    let mut ctx = FunctionBuilderContext::new();
    let mut k = KernelBuilder::new(&mut ctx, "lines");
    let out = k.buffer("out", ScalarType::U32);
    let t = k.thread_id(Dim::X).expect("thread_id"); // an entry register: no instruction of its own
    let one = k.const_u32(1).expect("const");
    let line_one = line!() - 1;
    let x = k.add(t, one).expect("add");
    let line_add = line!() - 1;
    k.store(out, t, x).expect("store");
    let line_store = line!() - 1;
    let (f, lines) = k.finish_with_lines().expect("builds");
    assert_eq!(lines.file(), Some(file!()));
    let src = SourceFile { comp_dir: env!("CARGO_MANIFEST_DIR").to_string(), file: file!().to_string() };
    let target = Target::wave64(Arch::Gfx942);
    let ck =
        compile_kernel_with_lines(&f, &AmdgcnOptions::new(target), Some(&src), &|i| lines.line(i)).expect("compiles");
    // The instructions carry the lines of their builder calls.
    for want in [line_one, line_add, line_store] {
        assert!(ck.lines.contains(&want), "line {want} in {:?}", ck.lines);
    }
    let dump = std::env::temp_dir().join(format!("qd-dwarf-builder-{}.co", std::process::id()));
    std::fs::write(&dump, &ck.code_object).expect("write");
    match std::process::Command::new("llvm-dwarfdump-19").arg("--debug-line").arg(&dump).output() {
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert!(text.contains("dwarf_builder.rs"), "{text}");
            for want in [line_one, line_add, line_store] {
                assert!(
                    text.lines().any(|l| l.split_whitespace().nth(1) == Some(&want.to_string())),
                    "line {want} in the table:\n{text}"
                );
            }
        }
        Err(e) => println!("llvm-dwarfdump-19 not available ({e}): checked the line list only"),
    }
    let _ = std::fs::remove_file(&dump);
}
