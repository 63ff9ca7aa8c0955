//! Compiles every kernel of a `.qdm` file and prints its spvasm (a development aid):
//! `cargo run -p qd-isel-spirv --example spvc -- FILE [ENV] [WIDTH]`.

use qd_isel_spirv::{compile_kernel, disassemble, DeviceCaps, SpirvOptions, TargetEnv};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: spvc FILE [ENV] [WIDTH]");
        std::process::exit(2);
    };
    let env = args.get(2).and_then(|s| TargetEnv::parse(s)).unwrap_or(TargetEnv::Vulkan1_1);
    let w = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(8);
    let src = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let m = match qd_mir::parse_module(&src) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.render(&src, path));
            std::process::exit(1);
        }
    };
    for f in &m.kernels {
        match compile_kernel(f, &SpirvOptions::new(env, DeviceCaps { subgroup_size: w, ..DeviceCaps::lavapipe() })) {
            Ok(k) => print!("{}", disassemble(&k.words)),
            Err(e) => eprintln!("{e}"),
        }
    }
}
