//! Sorts 100 000 `f32` keys with an index payload on the cpu device.
use qd_frontend::{ProgramBuilder, ScalarType};
use qd_lib::algorithms::{sort, sort_scratch_slots, Capacity, Options, Strategy, Target};
use qd_mir::interp::{ArgValue, Buffer};
use qd_rt::Device;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let single = std::env::args().nth(2).is_some();
    let dev = match std::env::var("W") {
        Ok(w) => Device::cpu_with_width(w.parse()?)?,
        Err(_) => Device::cpu(),
    };
    let info = dev.info();
    let target = Target { subgroup_width: info.subgroup_width, forward_progress: info.forward_progress };
    let opts = Options::new(target).with_strategy(if single { Strategy::Auto } else { Strategy::MultiLaunch });
    let cap = Capacity::new(n as u64)?;
    let t0 = std::time::Instant::now();
    let mut pb = ProgramBuilder::new("sort_example");
    let keys = pb.buffer("keys", ScalarType::F32);
    let tmp_keys = pb.buffer("tmp_keys", ScalarType::F32);
    let values = pb.buffer("values", ScalarType::U32);
    let tmp_values = pb.buffer("tmp_values", ScalarType::U32);
    let scratch = pb.buffer("scratch", ScalarType::U32);
    let count = pb.buffer("n", ScalarType::I32);
    sort(&mut pb, &opts, keys, tmp_keys, Some((values, tmp_values)), scratch, count, 32, cap)?;
    let module = pb.finish()?;
    let t1 = t0.elapsed();
    let xs: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 - 500.0).collect();
    let f = |v: &[f32]| Buffer::from_bits(ScalarType::F32, v.iter().map(|x| u64::from(x.to_bits())));
    let mut args = vec![
        ArgValue::Buffer(f(&xs)),
        ArgValue::Buffer(f(&vec![0.0; n])),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, 0..n as u64)),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; n])),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; sort_scratch_slots(n as u64, None)? as usize])),
        ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [n as u64])),
    ];
    dev.run_program(&module, &module.programs[0], &mut args)?;
    println!("build {:?} run {:?} launches {}", t1, t0.elapsed() - t1, module.programs[0].launches.len());
    Ok(())
}
