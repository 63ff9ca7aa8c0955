//! Batched Cholesky with register tiles (`qd_lib::tile`, the kernel of
//! `crates/qd-lib/examples/cholesky.rs`): 4,096 SPD matrices of 32 × 32 `f32` factorised in place,
//! one subgroup per matrix, on the `cpu` device (one `Tile32x32`, the kernel declaring width 32)
//! and on each Vulkan device whose subgroup holds a 16-row tile (lavapipe with
//! `LP_NATIVE_VECTOR_WIDTH=512`: a 2 × 2 blocked factorisation with `Tile16x16`), beside plain
//! Rust: the same left-looking factorisation on one thread and on every core. Buffers are
//! resident; the input is rewritten (untimed) before each launch.
//!
//! `cargo bench -p qd-benches --bench tile` (`QD_BENCH_DEVICES=cpu,vulkan` picks devices,
//! `QD_TILE_BATCH` changes the batch).

#[allow(dead_code)]
#[path = "../../crates/qd-lib/examples/cholesky.rs"]
mod cholesky;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use qd_mir::interp::Buffer;
use qd_rt::{Device, DeviceArg};

const N: usize = 32;

/// The plain-Rust anchor: `a` (a batch of `N × N` row-major matrices) factorised in place, with
/// plain `*` and `+` (`f32::mul_add` is a libm call without a target FMA feature, which would
/// flatter qd).
fn factor_all(a: &mut [f32]) {
    for m in a.chunks_mut(N * N) {
        for j in 0..N {
            let mut s = 0.0f32;
            for k in 0..j {
                s += m[j * N + k] * m[j * N + k];
            }
            let d = (m[j * N + j] - s).max(1e-12).sqrt();
            m[j * N + j] = d;
            for i in j + 1..N {
                let mut s = 0.0f32;
                for k in 0..j {
                    s += m[i * N + k] * m[j * N + k];
                }
                m[i * N + j] = (m[i * N + j] - s) / d;
            }
        }
    }
}

fn devices() -> Vec<Device> {
    match std::env::var("QD_BENCH_DEVICES") {
        Ok(list) if !list.trim().is_empty() => {
            list.split(',').map(|s| Device::open(s.trim()).unwrap_or_else(|e| panic!("{s}: {e}"))).collect()
        }
        _ => {
            let mut v = vec![Device::cpu()];
            v.extend(
                Device::available()
                    .iter()
                    .filter(|i| i.spec().starts_with("vulkan"))
                    .filter_map(|i| Device::open(&i.spec()).ok()),
            );
            v
        }
    }
}

fn tile(c: &mut Criterion) {
    let batch: usize = std::env::var("QD_TILE_BATCH").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let input: Vec<f32> = cholesky::matrices(N, batch, 0x7115);
    let mut group = c.benchmark_group(format!("tile cholesky {N}x{N} f32 batch={batch}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(batch as u64));
    group.bench_function("plain Rust, 1 thread", |b| {
        b.iter_batched(|| input.clone(), |mut a| factor_all(&mut a), BatchSize::LargeInput)
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    group.bench_function(BenchmarkId::new("plain Rust, threads", threads), |b| {
        b.iter_batched(
            || input.clone(),
            |mut a| {
                let per = batch.div_ceil(threads) * N * N;
                std::thread::scope(|s| {
                    for chunk in a.chunks_mut(per) {
                        s.spawn(move || factor_all(chunk));
                    }
                });
            },
            BatchSize::LargeInput,
        )
    });
    for dev in devices() {
        let info = dev.info().clone();
        let Some(t) = cholesky::tile_for(&dev, N as u32) else {
            eprintln!("{}: subgroup width {} holds no 16-row tile: skipped", info.spec(), info.subgroup_width);
            continue;
        };
        let width = if info.is_host() { t } else { info.subgroup_width };
        let f = if t == 32 {
            cholesky::build::<32>(width, qd_frontend::ScalarType::F32, N as u32, batch as u32)
        } else {
            cholesky::build::<16>(width, qd_frontend::ScalarType::F32, N as u32, batch as u32)
        }
        .expect("builds");
        let k = dev.compile(&f).expect("compiles");
        let host = Buffer::from_bits(qd_frontend::ScalarType::F32, input.iter().map(|x| u64::from(x.to_bits())));
        let buf = dev.upload(&host).expect("upload");
        let argv = [DeviceArg::Buffer(&buf)];
        let id = BenchmarkId::new(info.spec(), format!("Tile{t}x{t} at width {width}"));
        group.bench_function(id, |b| {
            b.iter_batched(
                || dev.write(&buf, &host).expect("write"),
                |()| {
                    dev.launch(&k, &argv, None).expect("launch");
                    dev.synchronize().expect("sync");
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, tile);
criterion_main!(benches);
