//! Shared inputs of qd's criterion benches (`benches/benches/*.rs`): the ~100-instruction kernel
//! whose build, verify, print and parse latency `docs/performance.md` reports, built with the Rust
//! builder exactly as a JIT user would build it.
#![forbid(unsafe_code)]

pub mod algo_inputs;

use qd_frontend::{BuildError, FunctionBuilderContext, GroupOp, KernelBuilder, ScalarType, Tile};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::{Function, VerifiedKernel};

/// Builds `@bench_kernel`: a grid-stride loop whose body mixes integer and float arithmetic,
/// memory, a divergent `if`, a subgroup reduction and an inclusive scan — about 100 MIR
/// instructions, the size the performance goals are stated for.
pub fn build_kernel(ctx: &mut FunctionBuilderContext) -> Result<Function, BuildError> {
    build_verified_kernel(ctx).map(VerifiedKernel::into_function)
}

/// [`build_kernel`], keeping the verifier's facts (`KernelBuilder::finish_verified`): the input of
/// the back ends' `compile_verified`.
pub fn build_verified_kernel(ctx: &mut FunctionBuilderContext) -> Result<VerifiedKernel, BuildError> {
    let mut b = KernelBuilder::new(ctx, "bench_kernel");
    let src = b.buffer("src", ScalarType::F32);
    let idx = b.buffer("idx", ScalarType::U32);
    let dst = b.buffer("dst", ScalarType::F32);
    let n = b.scalar("n", ScalarType::U32);
    let scale = b.scalar("scale", ScalarType::F32);
    b.set_block_dim(256)?;
    b.parallel_for(n, |b, i| {
        let x = b.load(src, i)?;
        let k = b.load(idx, i)?;
        let one = b.const_u32(1)?;
        let mask = b.const_u32(1023)?;
        let k1 = b.add(k, one)?;
        let k2 = b.and(k1, mask)?;
        let k3 = b.mul(k2, k1)?;
        let k4 = b.xor(k3, k)?;
        let sh = b.const_u32(3)?;
        let k5 = b.shr(k4, sh)?;
        let k6 = b.popcount(k5)?;
        let k7 = b.clz(k6)?;
        let k8 = b.min(k7, k5)?;
        let j = b.rem(k8, n)?;
        let y = b.load(src, j)?;
        let s = b.mul(x, scale)?;
        let t = b.fma(y, s, x)?;
        let ax = b.abs(t)?;
        let r = b.sqrt(ax)?;
        let acc = b.declare_var(qd_mir::Type::F32);
        b.def_var(acc, r)?;
        let zero = b.const_f32(0.0)?;
        let pos = b.gt(t, zero)?;
        b.if_then_else(
            pos,
            |b| {
                let two = b.const_f32(2.0)?;
                let a = b.use_var(acc)?;
                let m = b.mul(a, two)?;
                let c = b.cast(k6, ScalarType::F32)?;
                let m2 = b.add(m, c)?;
                b.def_var(acc, m2)
            },
            |b| {
                let a = b.use_var(acc)?;
                let ng = b.neg(a)?;
                let h = b.const_f32(0.5)?;
                let m = b.max(ng, h)?;
                b.def_var(acc, m)
            },
        )?;
        let a = b.use_var(acc)?;
        let lane = b.lane_id()?;
        let lf = b.cast(lane, ScalarType::F32)?;
        let a2 = b.add(a, lf)?;
        let red = b.subgroup_reduce(GroupOp::Max, Tile::Full, a2)?;
        let sc = b.subgroup_scan(GroupOp::Add, Tile::Log2(3), true, k6)?;
        let scf = b.cast(sc, ScalarType::F32)?;
        let z = b.sub(red, scf)?;
        let z2 = b.min(z, a2)?;
        let lo = b.const_f32(-1.0e6)?;
        let z3 = b.max(z2, lo)?;
        let bits = b.bitcast(z3, ScalarType::U32)?;
        let bits2 = b.bitrev(bits)?;
        let odd = b.and(bits2, one)?;
        let zero_u = b.const_u32(0)?;
        let is_odd = b.ne(odd, zero_u)?;
        let w = b.select(is_odd, z3, a2)?;
        let sh2 = b.shuffle_xor(w, one)?;
        let total = b.add(w, sh2)?;
        // A Horner polynomial and an integer hash: the straight-line bulk of a real kernel.
        let mut poly = total;
        for c in [0.5f32, -1.25, 2.0, 0.125, -3.5, 1.0, 0.75, -0.0625] {
            let cc = b.const_f32(c)?;
            poly = b.fma(poly, z3, cc)?;
        }
        let mut h = k;
        for m in [0x9E37_79B9u32, 0x85EB_CA6B, 0xC2B2_AE35, 0x27D4_EB2F] {
            let mm = b.const_u32(m)?;
            h = b.mul(h, mm)?;
            let s16 = b.const_u32(16)?;
            let hs = b.shr(h, s16)?;
            h = b.xor(h, hs)?;
        }
        let hf = b.cast(h, ScalarType::F32)?;
        let out = b.add(poly, hf)?;
        b.store(dst, i, out)
    })?;
    b.finish_verified()
}

/// Elements of the bench kernel's buffers in the throughput benches.
pub const BENCH_N: u32 = 16 * 1024;

/// The bench kernel's arguments for [`BENCH_N`] elements (the interpreter and cpu throughput
/// benches run it on these).
pub fn bench_kernel_args() -> Vec<ArgValue> {
    let n = BENCH_N;
    let src = Buffer::from_bits(ScalarType::F32, (0..n).map(|i| u64::from((i as f32 * 0.25 - 100.0).to_bits())));
    let idx = Buffer::from_bits(ScalarType::U32, (0..n).map(|i| u64::from(i.wrapping_mul(2_654_435_761) % n)));
    let dst = Buffer::from_bits(ScalarType::F32, (0..n).map(|_| 0));
    vec![
        ArgValue::Buffer(src),
        ArgValue::Buffer(idx),
        ArgValue::Buffer(dst),
        ArgValue::Scalar(ScalarType::U32, u64::from(n)),
        ArgValue::Scalar(ScalarType::F32, u64::from(1.5f32.to_bits())),
    ]
}

/// SplitMix64 from `seed`: the benches' reproducible random data.
pub fn splitmix64(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_kernel_is_about_100_instructions_and_verifies() {
        let mut ctx = FunctionBuilderContext::new();
        let k = build_kernel(&mut ctx).expect("builds and verifies");
        let n = k.walk_insts().len();
        assert!((90..=130).contains(&n), "bench kernel has {n} instructions");
        let text = qd_mir::text::print_function(&k);
        let back = qd_mir::parse_function(&text).expect("parses");
        assert_eq!(qd_mir::text::print_function(&back), text);
    }
}
