//! The inputs of the device-wide algorithm benches (`benches/benches/algorithms.rs` and the GPU
//! side-by-side binary `examples/gpu_algorithms.rs`): reproducible data for every parameter of a
//! `qdc algo` program, uploaded once as resident device buffers.

use qd_frontend::ScalarType;
use qd_mir::interp::Buffer;
use qd_mir::{Module, Type};
use qd_rt::{Device, DeviceBuffer};

/// The input of parameter `name` (element `elem`, `len` elements) for a run at live count `n`.
pub fn input(name: &str, elem: ScalarType, len: usize, n: u64) -> Buffer {
    let mut next = crate::splitmix64(0x5eed ^ name.len() as u64);
    let bits: Vec<u64> = match name {
        "n" => vec![n],
        "flags" => (0..len).map(|_| next() & 1).collect(),
        // Runs of 1..=16 equal keys.
        "keys_in" => {
            let (mut key, mut left) = (0u64, 0u64);
            (0..len)
                .map(|_| {
                    if left == 0 {
                        key += 1;
                        left = 1 + next() % 16;
                    }
                    left -= 1;
                    key
                })
                .collect()
        }
        "arr" | "keys" | "values" | "values_in" => (0..len)
            .map(|_| match elem {
                // Integer-valued floats keep sums exact; other types take raw random bits.
                ScalarType::F32 => u64::from(((next() % 1000) as f32).to_bits()),
                ScalarType::F64 => ((next() % 1000) as f64).to_bits(),
                ScalarType::U32 | ScalarType::I32 => next() & 0xffff_ffff,
                _ => next(),
            })
            .collect(),
        _ => vec![0; len],
    };
    Buffer::from_bits(elem, bits)
}

/// Device buffers for every parameter of the program of `m`, sized by its checks (an error names
/// the parameter that could not be uploaded, e.g. for lack of device memory).
pub fn buffers(dev: &Device, m: &Module, n: u64) -> Result<Vec<(String, DeviceBuffer, Buffer)>, String> {
    let p = &m.programs[0];
    p.params
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let Type::Ptr(_, elem) = q.ty else {
                return Err(format!("parameter %{}: algorithm programs take buffers only", q.name));
            };
            let len = p.min_len(i).max(1) as usize;
            let host = input(&q.name, elem, len, n);
            let d = dev.upload(&host).map_err(|e| format!("uploading %{} ({len} × {elem}): {e}", q.name))?;
            Ok((q.name.clone(), d, host))
        })
        .collect()
}
