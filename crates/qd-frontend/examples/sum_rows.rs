//! Runnable example for `docs/frontend.md`: builds a kernel with the Rust builder (grid-stride
//! loop over rows, an inner `for_range`, a variable that becomes loop-carried SSA), prints its MIR,
//! runs it on the `cpu` device (the MIR interpreter) and checks the result against plain Rust.
//!
//! `cargo run -p qd-frontend --example sum_rows`

use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_mir::interp::{run_kernel, ArgValue, Buffer, RunConfig};

fn build(ctx: &mut FunctionBuilderContext) -> Result<qd_mir::Function, BuildError> {
    let mut k = KernelBuilder::new(ctx, "sum_positive_rows");
    let m = k.buffer("m", ScalarType::F32);
    let out = k.buffer("out", ScalarType::F32);
    let rows = k.scalar("rows", ScalarType::U32);
    let cols = k.scalar("cols", ScalarType::U32);
    k.set_block_dim(64)?;
    let acc = k.declare_named_var("acc", ScalarType::F32);
    k.parallel_for(rows, |k, row| {
        let zero = k.const_f32(0.0)?;
        k.def_var(acc, zero)?;
        let first = k.const_u32(0)?;
        let base = k.mul(row, cols)?;
        k.for_range(first, cols, None, |k, c| {
            let idx = k.add(base, c)?;
            let x = k.load(m, idx)?;
            let positive = k.gt(x, zero)?;
            k.if_then(positive, |k| {
                let a = k.use_var(acc)?;
                let s = k.add(a, x)?;
                k.def_var(acc, s)
            })
        })?;
        let total = k.use_var(acc)?;
        k.store(out, row, total)
    })?;
    k.finish()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (rows, cols) = (100u32, 7u32);
    let mut ctx = FunctionBuilderContext::new();
    let kernel = build(&mut ctx)?;
    println!("{}", qd_mir::text::print_function(&kernel));

    let data: Vec<f32> = (0..rows * cols).map(|i| (i % 11) as f32 - 5.0).collect();
    let mut args = vec![
        ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, data.iter().map(|x| u64::from(x.to_bits())))),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, (0..rows).map(|_| 0))),
        ArgValue::Scalar(ScalarType::U32, u64::from(rows)),
        ArgValue::Scalar(ScalarType::U32, u64::from(cols)),
    ];
    let stats = run_kernel(&kernel, &RunConfig::default(), &mut args)?;
    let ArgValue::Buffer(out) = &args[1] else { return Err("out is not a buffer".into()) };
    let got: Vec<f32> = out.to_bits().into_iter().map(|b| f32::from_bits(b as u32)).collect();
    let want: Vec<f32> = data.chunks(cols as usize).map(|r| r.iter().filter(|&&x| x > 0.0).sum::<f32>()).collect();
    assert_eq!(got, want, "kernel result differs from the plain-Rust reference");
    println!("row sums (first 8): {:?}", &got[..8]);
    println!("{} rows match the reference; {} lane-instructions on the cpu device", rows, stats.lane_instructions);
    Ok(())
}
