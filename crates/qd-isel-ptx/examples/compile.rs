//! Compiles every kernel of a `.qdm` file to PTX and prints it: the back end without `qdc`.
//!
//! `cargo run -p qd-isel-ptx --example compile -- FILE.qdm [sm_80]`
//! (with no file, compiles a built-in subgroup-sum kernel for sm_90).

use qd_isel_ptx::{compile_kernel, PtxOptions, Sm};

const BUILTIN: &str = "\
kernel @warp_sum(%src: ptr<global, u32>, %dst: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %p = ptr.offset %src, %t : ptr<global, u32>
  %v = load %p : u32
  %s = subgroup.reduce add %v : u32
  %q = ptr.offset %dst, %t : ptr<global, u32>
  store %q, %s
  return
}
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (src, name) = match args.first() {
        Some(path) => (std::fs::read_to_string(path)?, path.clone()),
        None => (BUILTIN.to_string(), "builtin".to_string()),
    };
    let target = match args.get(1) {
        Some(t) => Sm::from_name(t).ok_or_else(|| format!("unknown target {t}"))?,
        None => Sm::Sm90,
    };
    let module = qd_mir::parse_module(&src).map_err(|e| e.render(&src, &name))?;
    for f in &module.kernels {
        let k = compile_kernel(f, &PtxOptions::new(target))?;
        print!("{}", k.ptx);
    }
    Ok(())
}
