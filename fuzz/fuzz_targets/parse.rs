//! Fuzzes the `.qdm` parser: any input (decoded lossily as UTF-8) must parse or fail with an
//! error, never panic; and whatever parses must print to a fixed point (`print(parse(x))` parses
//! again and prints identically); and the verifier, run on every parsed kernel and module, returns
//! its errors without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qd_mir::parse_module;
use qd_mir::text::print_module;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Ok(module) = parse_module(&src) {
        for kernel in &module.kernels {
            if let Err(errors) = qd_mir::verify::verify_function(kernel) {
                let _ = errors.render(kernel);
            }
        }
        let _ = qd_mir::verify::verify_module(&module);
        let printed = print_module(&module);
        match parse_module(&printed) {
            Ok(again) => assert_eq!(print_module(&again), printed, "print(parse(x)) is not a fixed point"),
            Err(e) => panic!("printed module does not parse:\n{}\n{printed}", e.render(&printed, "printed.qdm")),
        }
    }
});
