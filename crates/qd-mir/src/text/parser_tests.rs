//! Unit tests of the `.qdm` parser (kept beside `parser.rs` to keep that file short): every
//! instruction format, constants, error positions and messages, rendering and the source map.

use super::*;
use crate::text::print_module;

/// A kernel using every instruction format, in the printer's exact spelling.
const ALL_FORMATS: &str = "\
kernel @all(%buf: ptr<global, u32>, %fb: ptr<global, f32>, %n: u32 uniform) block(64, 2, 1) grid(cover %n) {
  shared @tmp: [u32; 16]
  %0 = const 42 : u32
  %1 = const -7 : i32
  %2 = const 1.5 : f32
  %3 = const 0x7fc00001 : f32
  %4 = const true : bool
  %5 = thread_id x : u32
  %6 = lane_id : u32
  %7 = neg %1 : i32
  %8 = add %0, %5 : u32
  %9 = select %4, %0, %8 : u32
  %10 = cmp lt %0, %8 : bool
  %11 = shared.addr @tmp : ptr<shared, u32>
  %12 = atomic.rmw add device %buf, %0 : u32
  %13 = atomic.cas block %11, %0, %8 : u32
  %14 = ballot.first_n 16 %10 : u32
  %15 = vote.all tile(3) %10 : bool
  %16 = vote.any %10 : bool
  %17 = subgroup.reduce add tile(2) %0 : u32
  %18 = subgroup.segreduce max %0, %10 : u32
  %19 = subgroup.scan exclusive mul tile(4) %0 : u32
  %20 = subgroup.scan inclusive add %0 : u32
  %21 = block.sync_pred count %10 : u32
  fence device
  block.sync
  store %buf, %21
  %22, %23 = if %10 -> (u32, f32) {
    yield %0, %2
  } else {
    %24 = fma %2, %2, %2 : f32
    yield %8, %24
  }
  if %4 {
    return
  }
  %25 = loop (%26: u32 = %0, %27: f32 = %23) -> (u32) {
    %28 = cmp ge %26, %n : bool
    if %28 {
      break %26
    }
    %29 = add %26, %22 : u32
    continue %29, %27
  }
  return
}
";

fn kernel_of(src: &str) -> Function {
    match parse_function(src) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.render(src, "test.qdm")),
    }
}

fn err_of(src: &str) -> ParseError {
    match parse_module(src) {
        Ok(_) => panic!("expected a parse error for:\n{src}"),
        Err(e) => e,
    }
}

fn assert_err(src: &str, line: u32, col: u32, message: &str) {
    let e = err_of(src);
    assert_eq!((e.line, e.col, e.message.as_str()), (line, col, message), "source:\n{src}");
}

/// Parses a one-instruction kernel body and returns the instruction's immediate.
fn imm_of(body: &str) -> Imm {
    let src = format!("kernel @k(%p: ptr<global, u32>, %b: bool) {{\n  shared @s: [u32; 4]\n  {body}\n}}\n");
    let f = kernel_of(&src);
    let inst = f.regions[f.body].insts[0];
    f.insts[inst].imm
}

fn const_bits(lit: &str, ty: &str) -> Result<u64, String> {
    let src = format!("kernel @k() {{\n  %0 = const {lit} : {ty}\n}}\n");
    match parse_function(&src) {
        Ok(f) => Ok(match f.insts[f.regions[f.body].insts[0]].imm {
            Imm::Const(b) => b,
            other => return Err(format!("not a const: {other:?}")),
        }),
        Err(e) => Err(e.message),
    }
}

#[test]
fn every_format_parses_and_reprints_identically() {
    let f = kernel_of(ALL_FORMATS);
    assert_eq!(crate::text::print_function(&f), ALL_FORMATS);
    assert_eq!(f.params.len(), 3);
    assert!(f.params[2].uniform && !f.params[0].uniform);
    assert_eq!(f.launch.block, [64, 2, 1]);
    assert_eq!(f.launch.grid, GridPolicy::Cover(2));
    assert_eq!(f.shared.len(), 1);
    assert_eq!(f.walk_insts().len(), 38);
}

#[test]
fn immediates() {
    assert_eq!(imm_of("%0 = thread_id z : u32"), Imm::Dim(Dim::Z));
    assert_eq!(imm_of("%0 = cmp ne %b, %b : bool"), Imm::Cond(CmpCond::Ne));
    assert_eq!(imm_of("%0 = shared.addr @s : ptr<shared, u32>"), Imm::Shared(SharedArr::from_u32(0)));
    assert_eq!(imm_of("%0 = atomic.rmw exch subgroup %p, %p : u32"), Imm::Atomic(AtomicOp::Exch, Scope::Subgroup));
    assert_eq!(imm_of("%0 = atomic.cas device %p, %p, %p : u32"), Imm::Scope(Scope::Device));
    assert_eq!(imm_of("%0 = ballot.first_n 32 %b : u32"), Imm::Count(32));
    assert_eq!(imm_of("%0 = vote.eq tile(5) %b : bool"), Imm::Tile(Tile::Log2(5)));
    assert_eq!(imm_of("%0 = vote.eq %b : bool"), Imm::Tile(Tile::Full));
    assert_eq!(
        imm_of("%0 = subgroup.reduce xor tile(0) %b : bool"),
        Imm::Group { op: GroupOp::Xor, tile: Tile::Log2(0), inclusive: true }
    );
    assert_eq!(
        imm_of("%0 = subgroup.scan exclusive min %b : bool"),
        Imm::Group { op: GroupOp::Min, tile: Tile::Full, inclusive: false }
    );
    assert_eq!(imm_of("%0 = block.sync_pred or %b : bool"), Imm::Pred(PredOp::Or));
    assert_eq!(imm_of("fence subgroup"), Imm::Scope(Scope::Subgroup));
    assert_eq!(imm_of("subgroup.sync"), Imm::None);
}

#[test]
fn constants() {
    assert_eq!(const_bits("-1", "i32"), Ok(0xFFFF_FFFF));
    assert_eq!(const_bits("-2147483648", "i32"), Ok(0x8000_0000));
    assert_eq!(const_bits("-9223372036854775808", "i64"), Ok(1 << 63));
    assert_eq!(const_bits("18446744073709551615", "u64"), Ok(u64::MAX));
    assert_eq!(const_bits("0xffffffff", "u32"), Ok(0xFFFF_FFFF));
    assert_eq!(const_bits("false", "bool"), Ok(0));
    assert_eq!(const_bits("-0.0", "f32"), Ok(0x8000_0000));
    assert_eq!(const_bits("-inf", "f64"), Ok(f64::NEG_INFINITY.to_bits()));
    assert_eq!(const_bits("inf", "f32"), Ok(u64::from(f32::INFINITY.to_bits())));
    assert_eq!(const_bits("1e-7", "f32"), Ok(u64::from(1e-7f32.to_bits())));
    assert_eq!(const_bits("2.5E+3", "f64"), Ok(2500f64.to_bits()));
    assert_eq!(const_bits("3", "f64"), Ok(3f64.to_bits()));
    assert_eq!(const_bits("0x7ff8000000000001", "f64"), Ok(0x7ff8_0000_0000_0001));
    assert_eq!(const_bits("2147483648", "i32"), Err("`2147483648` is out of range for `i32`".into()));
    assert_eq!(const_bits("-1", "u32"), Err("`-1` is out of range for `u32`".into()));
    assert_eq!(
        const_bits("99999999999999999999999", "u64"),
        Err("`99999999999999999999999` is out of range for `u64`".into())
    );
    assert_eq!(const_bits("0x100000000", "f32"), Err("raw bits `0x100000000` do not fit in `f32`".into()));
    assert_eq!(const_bits("0x1ffffffffffffffff", "u64"), Err("malformed hex constant `0x1ffffffffffffffff`".into()));
    assert_eq!(const_bits("-0x1", "i32"), Err("raw bits `0x1` cannot be negative".into()));
    assert_eq!(const_bits("1", "bool"), Err("expected `true` or `false` for a `bool` constant, found `1`".into()));
    assert_eq!(const_bits("1.5", "u32"), Err("expected an integer constant for `u32`, found `1.5`".into()));
    assert_eq!(const_bits("1.", "f32"), Err("expected a float constant for `f32`, found `1.`".into()));
    assert_eq!(const_bits("infinity", "f32"), Err("expected a float constant for `f32`, found `infinity`".into()));
    assert_eq!(
        const_bits("nan", "f32"),
        Err("`nan` is not a valid constant: write a NaN as its raw bits, e.g. `0x7fc00000`".into())
    );
    assert_eq!(
        const_bits("-nan", "f64"),
        Err("`-nan` is not a valid constant: write a NaN as its raw bits, e.g. `0x7ff8000000000000`".into())
    );
    assert_eq!(const_bits("- 1", "i32"), Err("expected a number right after `-`, found `1`".into()));
    assert_eq!(
        const_bits("1", "ptr<global, u32>"),
        Err("a constant must have a scalar type, found `ptr<global, u32>`".into())
    );
}

#[test]
fn error_positions_and_messages() {
    assert_err("kernel @k() {\n  %0 = const 1 : u33\n}\n", 2, 18, "expected type, found `u33`");
    assert_err("kernel @k() {\n  %0 = const 1 : u32\n  %1 = ad %0, %0 : u32\n}\n", 3, 8, "unknown op `ad`");
    assert_err("kernel @k() {\n  %0 = const 1 : u32\n  %1 = add %0, %7 : u32\n}\n", 3, 16, "value %7 is not defined");
    assert_err("kernel @k() {\n  %0 = const 1 : u32\n  %0 = const 2 : u32\n}\n", 3, 3, "value %0 is already defined");
    assert_err("kernel @k(%a: u32, %a: u32) {\n}\n", 1, 20, "value %a is already defined");
    assert_err("kernel @k(%0: u32) {\n}\n", 1, 11, "parameter names must not be numbers (%0 is a numbered value)");
    assert_err(
        "kernel @k() {\n  %0 = shared.addr @nope : ptr<shared, u32>\n}\n",
        2,
        20,
        "shared array @nope is not defined",
    );
    assert_err("kernel @k() {\n  %0 = lane_id\n}\n", 3, 1, "expected `:` and the result type, found `}`");
    assert_err("kernel @k() {\n  lane_id : u32\n}\n", 2, 3, "`lane_id` has 1 result(s); write `%name = lane_id ...`");
    assert_err("kernel @k() {\n  %0 = fence block\n}\n", 2, 3, "`fence` has no result, but 1 name(s) are given");
    assert_err("kernel @k() {\n  block.sync : u32\n}\n", 2, 14, "`block.sync` has no result to annotate with a type");
    assert_err(
        "kernel @k() {\n  %0 = thread_id w : u32\n}\n",
        2,
        18,
        "expected a dimension (`x`, `y` or `z`), found `w`",
    );
    assert_err("kernel @k() {\n  %0 = lane_id : u32\n", 2, 21, "expected an instruction or `}`, found end of input");
    assert_err("kernel @k() {\n  %0 = lane_id : u32 é\n}\n", 2, 22, "unexpected character `é`");
    assert_err("kernel @k() {\n  % = lane_id : u32\n}\n", 2, 3, "expected a value name after `%`");
    assert_err("func @k() {}\n", 1, 1, "expected `kernel` or `program`, found `func`");
    assert_err("kernel @k() grid(cover %n) {\n}\n", 1, 24, "%n is not a parameter of this kernel");
    assert_err("kernel @k() block(99999999999) {\n}\n", 1, 19, "block size `99999999999` does not fit in 32 bits");
}

#[test]
fn if_and_loop_result_counts() {
    assert_err(
        "kernel @k() {\n  %0 = const true : bool\n  %1, %2 = if %0 -> (u32) {\n  }\n}\n",
        3,
        3,
        "`if` has 1 result type(s) after `->`, but 2 result name(s) are given",
    );
    assert_err("kernel @k() {\n  loop (%x: u32 = %x) {\n  }\n}\n", 2, 19, "value %x is not defined");
    assert_err("kernel @k() {\n  if %c {\n  }\n}\n", 2, 6, "value %c is not defined");
}

#[test]
fn programs_and_launches() {
    let src = "\
program @p(%a: ptr<global, u32>, %n: u32) {
  launch @k(%a, %n)
  launch @k(%a, -3 : i32)
}

kernel @k(%a: ptr<global, u32>, %n: u32) block(32, 1, 1) grid(saturating) {
  return
}
";
    let m = match parse_module(src) {
        Ok(m) => m,
        Err(e) => panic!("{}", e.render(src, "p.qdm")),
    };
    assert_eq!(m.kernels.len(), 1);
    assert_eq!(
        m.programs[0].launches[1].args,
        vec![LaunchArg::Param(0), LaunchArg::Const(ScalarType::I32, 0xFFFF_FFFD)]
    );
    assert_eq!(m.kernels[0].launch.grid, GridPolicy::Saturating);
    // Kernels print before programs.
    let printed = print_module(&m);
    assert!(printed.starts_with("kernel @k("), "{printed}");
    assert_eq!(parse_module(&printed).map(|m| print_module(&m)), Ok(printed));

    assert_err("program @p() {\n  launch @nope()\n}\n", 2, 10, "unknown kernel @nope in `launch`");
    assert_err("program @p() {\n  launch @k(%x)\n}\n", 2, 13, "parameter %x is not defined");
    assert_err("program @p() {\n  run @k()\n}\n", 2, 3, "expected `status`, `check`, `launch` or `}`, found `run`");
}

#[test]
fn comments_blank_lines_and_short_launch_forms() {
    let src = "; leading comment\n\nkernel @k(%n: u32) block(64) grid(4) { ; trailing\n\n  ; inside\n  %v = lane_id : u32 ; after\n  return\n}\n";
    let f = kernel_of(src);
    assert_eq!(f.launch.block, [64, 1, 1]);
    assert_eq!(f.launch.grid, GridPolicy::Fixed([4, 1, 1]));
    assert_eq!(
        crate::text::print_function(&f),
        "kernel @k(%n: u32) block(64, 1, 1) grid(4, 1, 1) {\n  %0 = lane_id : u32\n  return\n}\n"
    );
}

#[test]
fn parse_function_wants_exactly_one_kernel() {
    let e = parse_function("; nothing\n").err();
    assert_eq!(e.map(|e| e.message), Some("expected exactly one kernel, found none".into()));
    let e = parse_function("kernel @a() {\n}\n\nkernel @b() {\n}\n").err();
    assert_eq!(e.map(|e| (e.line, e.message)), Some((4, "expected exactly one kernel, found a second one".into())));
}

#[test]
fn render_is_rustc_style() {
    let src = "kernel @k() {\n  %0 = const 1 : u32\n  %1 = ad %0, %0 : u32\n}\n";
    let e = err_of(src);
    assert_eq!(
        e.render(src, "k.qdm"),
        "error: unknown op `ad`\n --> k.qdm:3:8\n  |\n3 |   %1 = ad %0, %0 : u32\n  |        ^^\n"
    );
    assert_eq!(e.to_string(), "3:8: unknown op `ad`");
    // End of input points right after the last token (not at trailing blank lines), one caret.
    let src = format!("kernel @k() {{\n  %x = lane_id : u32\n{}", "\n".repeat(9));
    let e = err_of(&src);
    assert_eq!(
        e.render(&src, "k.qdm"),
        "error: expected an instruction or `}`, found end of input\n --> k.qdm:2:21\n  |\n2 |   %x = lane_id : u32\n  |                     ^\n"
    );
    // Two-digit line numbers widen the gutter; tabs before the column are kept.
    let e = ParseError { line: 12, col: 3, message: "m".into() };
    let src = "\n".repeat(11) + "\t %abc = x\n";
    assert_eq!(e.render(&src, "f"), "error: m\n  --> f:12:3\n   |\n12 | \t %abc = x\n   | \t ^^^^\n");
    // Out-of-range positions render without panicking.
    let e = ParseError { line: 99, col: 99, message: "m".into() };
    assert_eq!(e.render("x", "f"), "error: m\n  --> f:99:99\n   |\n99 | \n   | ^\n");
}

#[test]
fn source_map_lines() {
    let (m, map) = match parse_module_with_map(ALL_FORMATS) {
        Ok(x) => x,
        Err(e) => panic!("{}", e.render(ALL_FORMATS, "all.qdm")),
    };
    let f = &m.kernels[0];
    assert_eq!(map.line_of(0, AnyEntity::Function), Some(1));
    assert_eq!(map.line_of(0, AnyEntity::Param(2)), Some(1));
    assert_eq!(map.line_of(0, AnyEntity::Param(3)), None);
    assert_eq!(map.line_of(0, AnyEntity::Shared(SharedArr::from_u32(0))), Some(2));
    let body = &f.regions[f.body].insts;
    assert_eq!(map.line_of(0, AnyEntity::Inst(body[0])), Some(3));
    assert_eq!(map.line_of(0, AnyEntity::Value(f.inst_results(body[0])[0])), Some(3));
    // The `if` with an else arm: its regions map to the `if` line and the `} else {` line.
    let iff = body.iter().copied().find(|&i| f.insts[i].opcode == Opcode::If).unwrap_or(body[0]);
    let regions: Vec<Region> = f.inst_regions(iff).collect();
    assert_eq!(map.line_of(0, AnyEntity::Inst(iff)), Some(28));
    assert_eq!(map.line_of(0, AnyEntity::Region(regions[0])), Some(28));
    assert_eq!(map.line_of(0, AnyEntity::Region(regions[1])), Some(30));
    let lp = body.iter().copied().find(|&i| f.insts[i].opcode == Opcode::Loop).unwrap_or(body[0]);
    let lbody = f.inst_regions(lp).next().unwrap_or(f.body);
    assert_eq!(map.line_of(0, AnyEntity::Value(f.region_params(lbody)[1])), Some(37));
    assert_eq!(map.line_of(0, AnyEntity::Region(lbody)), Some(37));
    assert_eq!(map.line_of(1, AnyEntity::Function), None);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let depth = 400;
    let mut src = String::from("kernel @k() {\n  %c = const true : bool\n");
    for _ in 0..depth {
        src.push_str("if %c {\n");
    }
    for _ in 0..depth {
        src.push_str("}\n");
    }
    src.push_str("}\n");
    let e = err_of(&src);
    assert_eq!(e.message, format!("regions nest more than {MAX_NESTING} deep"));
    assert_eq!(e.line, 2 + MAX_NESTING + 1);

    // Exactly at the limit is fine.
    let mut src = String::from("kernel @k() {\n  %c = const true : bool\n");
    for _ in 0..MAX_NESTING {
        src.push_str("if %c {\n");
    }
    for _ in 0..MAX_NESTING {
        src.push_str("}\n");
    }
    src.push_str("}\n");
    assert!(parse_function(&src).is_ok());
}

#[test]
fn hostile_inputs_do_not_panic() {
    assert_eq!(parse_module("").map(|m| m.kernels.len()), Ok(0));
    for src in [
        "kernel",
        "kernel @",
        "kernel @k(",
        "kernel @k(%a: ptr<",
        "kernel @k() { %0 = const",
        "kernel @k() { %0 = const -",
        "kernel @k() { %0 = const 1e",
        "kernel @k() { %0 = const 1e+ : f32 }",
        "kernel @k() { shared @s: [u32; ",
        "kernel @k() { if",
        "kernel @k() { loop (",
        "program @p(%a: u32) { launch @k(%a, ",
        "\u{feff}kernel @k() {}",
        "kernel @k() {} ]]]] ;;; [[[ ;",
        "kernel @k() { %0 = ballot.first_n 99999999999999999999999999 %0 : u32 }",
        "kernel @k() { %0 = vote.all tile(256) %0 : bool }",
    ] {
        assert!(parse_module(src).is_err(), "{src}");
    }
}

/// The CUDA warp builtins, in the printer's exact spelling.
const WARP_BUILTINS: &str = "\
kernel @warp(%x: f32, %b: bool, %ns: u32) block(1, 1, 1) grid(1, 1, 1) {
  %0 = match.any %x : u64
  %1 = match.all %b : u64
  %2 = activemask : u64
  %3 = lanemask.lt : u64
  %4 = lanemask.le : u64
  %5 = lanemask.eq : u64
  %6 = lanemask.ge : u64
  %7 = lanemask.gt : u64
  %8 = elect : bool
  nanosleep %ns
  return
}
";

#[test]
fn warp_builtins_parse_and_reprint_identically() {
    let f = kernel_of(WARP_BUILTINS);
    assert_eq!(crate::text::print_function(&f), WARP_BUILTINS);
    let ops: Vec<Opcode> = f.walk_insts().into_iter().map(|i| f.insts[i].opcode).collect();
    use Opcode as O;
    let want = [
        O::MatchAny,
        O::MatchAll,
        O::ActiveMask,
        O::LaneMaskLt,
        O::LaneMaskLe,
        O::LaneMaskEq,
        O::LaneMaskGe,
        O::LaneMaskGt,
        O::Elect,
        O::Nanosleep,
        O::Return,
    ];
    assert_eq!(ops, want);
    if let Err(e) = crate::verify::verify_function(&f) {
        panic!("{}", e.render(&f));
    }
}

/// Parses `src` (which must parse) and returns its verifier messages.
fn verify_messages(src: &str) -> Vec<String> {
    let f = kernel_of(src);
    match crate::verify::verify_function(&f) {
        Ok(_) => Vec::new(),
        Err(e) => e.0.into_iter().map(|e| e.message).collect(),
    }
}

#[test]
fn warp_builtin_errors() {
    // Syntax and names are the parser's.
    assert_err("kernel @k() {\n  nanosleep %t\n}\n", 2, 13, "value %t is not defined");
    assert_err("kernel @k() {\n  elect : bool\n}\n", 2, 3, "`elect` has 1 result(s); write `%name = elect ...`");
    assert_err("kernel @k() {\n  %0 = activemask\n}\n", 3, 1, "expected `:` and the result type, found `}`");
    assert_err(
        "kernel @k(%n: u32) {\n  nanosleep %n : u32\n}\n",
        2,
        16,
        "`nanosleep` has no result to annotate with a type",
    );
    assert_err("kernel @k() {\n  %0 = lanemask.ne : u64\n}\n", 2, 8, "unknown op `lanemask.ne`");
    // Operand counts and types are the verifier's.
    let k = |body: &str| format!("kernel @k(%n: u64, %p: ptr<global, u32>) {{\n  {body}\n  return\n}}\n");
    assert_eq!(
        verify_messages(&k("nanosleep %n")),
        ["nanosleep: operand 1 has type u64, expected u32 (operand 1 is %n)"]
    );
    assert_eq!(verify_messages(&k("nanosleep")), ["nanosleep: expected 1 operand(s), found 0"]);
    assert_eq!(verify_messages(&k("%0 = match.any : u64")), ["match.any: expected 1 operand(s), found 0"]);
    assert_eq!(
        verify_messages(&k("%0 = match.all %p : u64")),
        ["match.all: operand 1 has type ptr<global, u32>, expected a scalar type (operand 1 is %p)"]
    );
    assert_eq!(verify_messages(&k("%0 = match.any %n : u32")), ["match.any: result has type u32, expected u64"]);
    assert_eq!(verify_messages(&k("%0 = lanemask.ge : u32")), ["lanemask.ge: result has type u32, expected u64"]);
    assert_eq!(verify_messages(&k("%0 = elect %n : bool")), ["elect: expected 0 operand(s), found 1"]);
    assert_eq!(verify_messages(&k("%0 = activemask : bool")), ["activemask: result has type bool, expected u64"]);
}

#[test]
fn subgroup_width_of_a_kernel() {
    let src = "\
kernel @k(%a: ptr<global, u32>) block(64, 1, 1) grid(2, 1, 1) subgroup(32) {
  %0 = lane_id : u32
  %1 = subgroup.reduce add tile(5) %0 : u32
  return
}
";
    let m = match parse_module(src) {
        Ok(m) => m,
        Err(e) => panic!("{}", e.render(src, "p.qdm")),
    };
    assert_eq!(m.kernels[0].launch.subgroup_size, Some(32));
    assert_eq!(print_module(&m), src);
    assert!(crate::verify::verify_function(&m.kernels[0]).is_ok());
    // A tile wider than the declared subgroup, and a width that is not a power of two.
    let wide = src.replace("tile(5)", "tile(6)");
    let e = crate::verify::verify_function(&parse_module(&wide).unwrap().kernels[0]).unwrap_err();
    assert!(format!("{e:?}").contains("tile(2^6) is wider than the kernel's subgroup(32)"), "{e:?}");
    let odd = src.replace("subgroup(32)", "subgroup(24)");
    let e = crate::verify::verify_function(&parse_module(&odd).unwrap().kernels[0]).unwrap_err();
    assert!(format!("{e:?}").contains("subgroup(24) must be a power of two"), "{e:?}");
    assert_err("kernel @k() subgroup 32 {\n  return\n}\n", 1, 22, "expected `(`, found `32`");
}
