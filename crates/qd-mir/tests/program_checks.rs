//! Program status words and argument checks: the `.qdm` syntax round trip, the verifier's rules,
//! and what the interpreter's `run_program` reports (a short buffer named with the bound's origin,
//! a status bit's message after the launches, no error when every check holds).

use qd_mir::interp::{run_program, ArgValue, Buffer, RunConfig};
use qd_mir::text::print_module;
use qd_mir::verify::verify_module;
use qd_mir::{parse_module, ScalarType};

const SRC: &str = r#"kernel @guard(%n: ptr<global, i32>, %data: ptr<global, u32>, %st: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %0 = load %n : i32
  %1 = const 8 : i32
  %2 = cmp gt %0, %1 : bool
  %3 = thread_id x : u32
  %4 = const 0 : u32
  %5 = cmp eq %3, %4 : bool
  %6 = and %2, %5 : bool
  if %6 {
    %7 = const 1 : u32
    %8 = atomic.rmw or device %st, %7 : u32
    yield
  }
  %9 = not %2 : bool
  %10 = and %9, %5 : bool
  if %10 {
    %11 = const 7 : u32
    store %data, %11
    yield
  }
  return
}

program @p(%n: ptr<global, i32>, %data: ptr<global, u32>, %other: ptr<global, u32>) {
  status %qd_status bit 0 "guard: n is above the capacity 8 (\"max_n\")"
  check len %data >= 8 "max_n"
  check distinct %data, %other
  launch @guard(%n, %data, %qd_status)
}
"#;

fn buf(elem: ScalarType, v: &[u64]) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(elem, v.iter().copied()))
}

#[test]
fn status_and_checks() {
    let m = match parse_module(SRC) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(verify_module(&m), Ok(()));
    // The printer writes what the parser reads.
    let text = print_module(&m);
    let again = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print_module(&again), text);
    assert!(
        text.contains("  status %qd_status bit 0 \"guard: n is above the capacity 8 (\\\"max_n\\\")\"\n"),
        "{text}"
    );
    assert!(text.contains("  check len %data >= 8 \"max_n\"\n  check distinct %data, %other\n"), "{text}");
    let p = &m.programs[0];
    assert_eq!((p.min_len(0), p.min_len(1), p.min_len(2)), (0, 8, 0), "lengths the checks ask for");
    let cfg = RunConfig { subgroup_size: 32, ..RunConfig::default() };

    // Every check holds and n is within capacity: the kernel runs.
    let mut args = vec![buf(ScalarType::I32, &[3]), buf(ScalarType::U32, &[0; 8]), buf(ScalarType::U32, &[0])];
    run_program(&m, p, &cfg, &mut args).unwrap_or_else(|e| panic!("{e}"));
    let ArgValue::Buffer(d) = &args[1] else { panic!("not a buffer") };
    assert_eq!(d.to_bits()[0], 7);

    // A short buffer is refused before any launch, naming it and the bound's origin.
    let mut short = vec![buf(ScalarType::I32, &[3]), buf(ScalarType::U32, &[0; 7]), buf(ScalarType::U32, &[0])];
    let e = run_program(&m, p, &cfg, &mut short).unwrap_err();
    assert_eq!(e.message, "program @p: buffer %data has 7 element(s), needs at least 8 (max_n)");
    assert_eq!(e.to_string(), e.message, "the program is named once");
    let ArgValue::Buffer(d) = &short[1] else { panic!("not a buffer") };
    assert_eq!(d.to_bits(), vec![0; 7], "nothing ran");

    // n above the capacity: the kernel sets bit 0, writes nothing, and the run is an error.
    let mut over = vec![buf(ScalarType::I32, &[9]), buf(ScalarType::U32, &[0; 8]), buf(ScalarType::U32, &[0])];
    let e = run_program(&m, p, &cfg, &mut over).unwrap_err();
    assert_eq!(e.message, "program @p: status %qd_status = 0x1: guard: n is above the capacity 8 (\"max_n\")");
    assert_eq!(e.to_string(), e.message, "the program is named once");
    let ArgValue::Buffer(d) = &over[1] else { panic!("not a buffer") };
    assert_eq!(d.to_bits(), vec![0; 8]);
    // The status word starts at 0 on every run: a good run after a bad one succeeds.
    run_program(&m, p, &cfg, &mut args).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn bad_status_and_check_text() {
    let cases: [(&str, &str); 6] = [
        ("  status %n bit 0 \"x\"\n", "%n is a parameter"),
        ("  status %s bit 32 \"x\"\n", "a status bit index is 0 to 31"),
        ("  status %s bit 1 \"x\"\n  status %s bit 1 \"y\"\n", "status bit 1 already has a message"),
        ("  status %s bit 1 \"x\n", "unterminated string"),
        ("  check len %nope >= 1 \"x\"\n", "parameter %nope is not defined"),
        ("  check size %n\n", "expected `len` or `distinct`"),
    ];
    for (line, want) in cases {
        let src = format!("program @p(%n: ptr<global, i32>) {{\n{line}}}\n");
        match parse_module(&src) {
            Ok(_) => panic!("accepted:\n{src}"),
            Err(e) => assert!(e.to_string().contains(want), "{src}\n{e}"),
        }
    }
    // Verifier: a status argument without a status word; a check on a scalar; distinct twice.
    let src = "kernel @k(%s: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {\n  return\n}\n\
               program @p(%n: u32, %b: ptr<global, u32>) {\n  check len %n >= 1 \"x\"\n  check distinct %b, %b\n  launch @k(%b)\n}\n";
    let m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
    let e = verify_module(&m).unwrap_err();
    let msgs = e.program_errors().join("\n");
    assert!(msgs.contains("check len names %n, which is not a buffer"), "{msgs}");
    assert!(msgs.contains("check distinct names one parameter twice"), "{msgs}");
}
