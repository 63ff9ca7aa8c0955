//! The device-wide radix sort on the `cpu` device: builds one program that sorts `f32` keys
//! with a `u32` payload, runs it at two live counts without rebuilding, and checks each result
//! against Rust's stable sort by `f32::total_cmp` (which is exactly the sort's float order:
//! `-NaN < -inf < … < -0.0 < +0.0 < … < +inf < +NaN`).
//!
//! `cargo run -p qd-lib --example sort [N]` (N defaults to 10 000).

use qd_frontend::{ProgramBuilder, ScalarType};
use qd_lib::algorithms::{sort, sort_scratch_slots, Capacity, DeviceClass, Options, Target};
use qd_mir::interp::{ArgValue, Buffer};
use qd_rt::Device;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let max_n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let dev = Device::cpu();
    let info = dev.info();
    let opts = Options::new(Target {
        subgroup_width: info.subgroup_width,
        forward_progress: info.forward_progress,
        class: DeviceClass::of_host(info.is_host()),
    });
    let cap = Capacity::new(max_n as u64)?;

    // The program: keys, tmp_keys, values, tmp_values, scratch, n.
    let mut pb = ProgramBuilder::new("sort_f32");
    let keys = pb.buffer("keys", ScalarType::F32);
    let tmp_keys = pb.buffer("tmp_keys", ScalarType::F32);
    let values = pb.buffer("values", ScalarType::U32);
    let tmp_values = pb.buffer("tmp_values", ScalarType::U32);
    let scratch = pb.buffer("scratch", ScalarType::U32);
    let n = pb.buffer("n", ScalarType::I32);
    sort(&mut pb, &opts, keys, tmp_keys, Some((values, tmp_values)), scratch, n, 32, cap)?;
    let module = pb.finish()?;
    let program = &module.programs[0];
    println!("{} launches of {} kernels on {}", program.launches.len(), module.kernels.len(), info.spec());

    let mut xs: Vec<f32> = (0..max_n).map(|i| ((i * 7919) % 1000) as f32 / 8.0 - 60.0).collect();
    xs[0] = f32::NAN;
    xs[1 % max_n] = -0.0;
    let f32s = |v: &[f32]| Buffer::from_bits(ScalarType::F32, v.iter().map(|x| u64::from(x.to_bits())));
    let slots = sort_scratch_slots(max_n as u64, Some(cap.log256()))?;
    for live in [max_n, max_n / 3, 0] {
        let mut args = vec![
            ArgValue::Buffer(f32s(&xs)),
            ArgValue::Buffer(f32s(&vec![0.0; max_n])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, 0..max_n as u64)),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; max_n])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, vec![0; slots as usize])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [live as u64])),
        ];
        dev.run_program(&module, program, &mut args)?;
        let (ArgValue::Buffer(k), ArgValue::Buffer(v)) = (&args[0], &args[2]) else {
            return Err("not buffers".into());
        };
        let mut want: Vec<usize> = (0..live).collect();
        want.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
        let got_keys: Vec<u32> = k.to_bits().into_iter().take(live).map(|b| b as u32).collect();
        let got_idx: Vec<usize> = v.to_bits().into_iter().take(live).map(|b| b as usize).collect();
        let want_keys: Vec<u32> = want.iter().map(|&i| xs[i].to_bits()).collect();
        if live == 0 {
            continue;
        }
        if got_keys != want_keys || got_idx != want {
            return Err(format!("n = {live}: the device result differs from the stable host sort").into());
        }
        let ends: Vec<f32> = [0, live.saturating_sub(1)].iter().map(|&i| f32::from_bits(got_keys[i])).collect();
        println!("n = {live}: sorted and stable, from {} to {}", ends[0], ends[1]);
    }
    Ok(())
}
