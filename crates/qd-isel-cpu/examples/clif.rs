//! Prints the Cranelift IR of a `.qdm` kernel for the `cpu` device, with the compile times:
//! `cargo run -p qd-isel-cpu --example clif -- FILE.qdm KERNEL [WIDTH]` (with `QD_CPU_DISASM=1`,
//! the machine code too).

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(kernel)) = (args.get(1), args.get(2)) else {
        return Err("usage: clif FILE.qdm KERNEL [WIDTH]".into());
    };
    let width: u32 = args.get(3).and_then(|w| w.parse().ok()).unwrap_or(qd_isel_cpu::DEFAULT_WIDTH);
    let src = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let m = qd_mir::parse_module(&src).map_err(|e| e.render(&src, file))?;
    let f = m.kernel(kernel).ok_or(format!("no kernel @{kernel}"))?;
    let vk = qd_mir::VerifiedKernel::new(f.clone()).map_err(|e| e.to_string())?;
    let k = qd_isel_cpu::compile_with_clif(&vk, &qd_isel_cpu::CpuOptions { width }).map_err(|e| e.to_string())?;
    println!("{}", k.clif().unwrap_or_default());
    if std::env::var_os("QD_CPU_DISASM").is_some() {
        println!("{}", k.disasm().unwrap_or_default());
    }
    if std::env::var_os("QD_CPU_PASS_TIMES").is_some() {
        let _ = cranelift_codegen::timing::take_current();
        for _ in 0..20 {
            qd_isel_cpu::compile_verified(&vk, &qd_isel_cpu::CpuOptions { width }).map_err(|e| e.to_string())?;
        }
        eprintln!("{}", cranelift_codegen::timing::take_current());
    }
    let t = k.times();
    eprintln!("lowering {:?}, Cranelift {:?}", t.lower, t.codegen);
    Ok(())
}
