//! What the two devices that run qd's AMDGCN code share: the `sim-*` devices (the wave simulator,
//! [`crate::sim`]) and the `hsa` device (an AMD GPU, `crate::hsa::device`). Both compile a kernel
//! with `qd_isel_amdgcn::compile_kernel` for their target (a back-end error is
//! [`RtErrorKind::Compile`](crate::RtErrorKind::Compile) naming the kernel), recompile it for a
//! launch's block override (the code bakes the block shape in), compute the grid as every device
//! does (`grid(saturating)` at 4 blocks per compute unit, with the device's unit count), and lay
//! out the kernarg segment the back end's ABI fixes (`qd_isel_amdgcn::abi`: the parameters, then
//! `qd.grid_x/y/z` in blocks, then the `qd.spill` pointer) with a spill area of
//! [`spill_area_bytes`] when the kernel spills. The simulator's launches build the same segment
//! and area in `qd_isel_amdgcn::runner`.

use crate::args;
use crate::error::RtError;
use qd_isel_amdgcn::abi::KernargValue;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, CompiledKernel, Target};
use qd_mir::{Function, ScalarType};
use std::borrow::Cow;

/// Compiles `f` for `target`; a back-end error is a compile error naming the kernel.
pub(crate) fn compile(target: Target, f: &Function) -> Result<CompiledKernel, RtError> {
    compile_kernel(f, &AmdgcnOptions::new(target))
        .map_err(|e| RtError::compile_text(e.to_string()).context(format!("kernel @{}", f.name)))
}

/// `f` with its block size replaced by `block` (a copy only when it differs).
pub(crate) fn with_block(f: &Function, block: Option<[u32; 3]>) -> Cow<'_, Function> {
    match block {
        Some(b) if b != f.launch.block => {
            let mut g = f.clone();
            g.launch.block = b;
            Cow::Owned(g)
        }
        _ => Cow::Borrowed(f),
    }
}

/// The grid of a launch of `f` in blocks: the override, else its policy (`grid(saturating)`: 4
/// blocks per compute unit, `units` of them). `scalar(i)` gives parameter `i`'s scalar argument.
pub(crate) fn grid(
    f: &Function,
    grid_override: Option<[u32; 3]>,
    scalar: impl Fn(usize) -> Option<(ScalarType, u64)>,
    units: u32,
) -> Result<[u32; 3], RtError> {
    args::grid(f, grid_override, scalar, units).map_err(|e| e.context(format!("kernel @{}", f.name)))
}

/// The bytes of the spill area of a launch of `k` over `grid` blocks: one slot area per lane of
/// every wave (`waves × lanes × spill_bytes_per_lane`), 0 when the kernel does not spill.
pub(crate) fn spill_area_bytes(k: &CompiledKernel, grid: [u32; 3]) -> Result<usize, RtError> {
    let bytes = k.spill_area_bytes(grid);
    usize::try_from(bytes).map_err(|_| {
        RtError::usage(format!(
            "kernel @{}: the spill area of grid {grid:?} ({bytes} bytes, {} per lane) is too large",
            k.name, k.spill_bytes_per_lane
        ))
    })
}

/// The kernarg segment of a launch: one value per parameter (a buffer's device address, or a
/// scalar packed as its launch slot: narrow types in the low bytes, `bool` 0/1), the grid in
/// blocks and the spill area's address (0 without one).
pub(crate) fn kernarg(k: &CompiledKernel, values: &[KernargValue], grid: [u32; 3], spill: u64) -> Vec<u8> {
    k.kernarg.bytes(values, grid, spill)
}

/// A scalar argument as a kernarg value.
pub(crate) fn scalar_value(ty: ScalarType, bits: u64) -> KernargValue {
    KernargValue::Bits(args::scalar_slot(ty, bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_isel_amdgcn::{Arch, WaveSize};

    fn kernel(src: &str) -> Function {
        let m = qd_mir::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "t.qdm")));
        m.kernels.into_iter().next().unwrap()
    }

    const K: &str = "kernel @k(%a: ptr<global, u32>, %b: bool uniform, %c: u64 uniform, %n: i32 uniform) \
                     block(96, 1, 1) grid(saturating) {\n  return\n}\n";

    #[test]
    fn the_kernarg_segment_follows_the_abi() {
        let f = kernel(K);
        let k = compile(Target::wave64(Arch::Gfx942), &f).unwrap();
        let values = [
            KernargValue::Ptr(0x1122_3344_5566_7788),
            scalar_value(ScalarType::Bool, 0xfe), // only bit 0 counts: false
            scalar_value(ScalarType::U64, 0x0102_0304_0506_0708),
            scalar_value(ScalarType::I32, 0xffff_ffff_8000_0000),
        ];
        let b = kernarg(&k, &values, [7, 2, 1], 0xabcd_0000);
        // a @0 (8), b @8 (4), c @16 (8), n @24 (4), grid @28..40, spill @40 (8): 48 bytes.
        assert_eq!(b.len(), 48);
        assert_eq!(u64::from_le_bytes(b[0..8].try_into().unwrap()), 0x1122_3344_5566_7788);
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 0);
        assert_eq!(u64::from_le_bytes(b[16..24].try_into().unwrap()), 0x0102_0304_0506_0708);
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 0x8000_0000);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 7);
        assert_eq!(u32::from_le_bytes(b[32..36].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 1);
        assert_eq!(u64::from_le_bytes(b[40..48].try_into().unwrap()), 0xabcd_0000);
        let b = kernarg(&k, &[values[0], scalar_value(ScalarType::Bool, 3), values[2], values[3]], [1, 1, 1], 0);
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 1);
    }

    #[test]
    fn the_spill_area_counts_every_lane_of_every_wave() {
        let f = kernel(K);
        let mut k = compile(Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, &f).unwrap();
        assert_eq!(spill_area_bytes(&k, [5, 1, 1]).unwrap(), 0, "no spills, no area");
        k.spill_bytes_per_lane = 12;
        // 96 threads = 3 waves of 32 per block, 5 × 2 blocks: 30 waves × 32 lanes × 12 bytes.
        assert_eq!(spill_area_bytes(&k, [5, 2, 1]).unwrap(), 30 * 32 * 12);
        let mut k = compile(Target::wave64(Arch::Gfx90a), &f).unwrap();
        k.spill_bytes_per_lane = 8;
        // 96 threads = 2 waves of 64 (the second half empty; its lanes still get slots).
        assert_eq!(spill_area_bytes(&k, [3, 1, 1]).unwrap(), 2 * 3 * 64 * 8);
        k.spill_bytes_per_lane = u32::MAX;
        if usize::BITS == 64 {
            let e = spill_area_bytes(&k, [u32::MAX, u32::MAX, 65535]).unwrap_err();
            assert!(e.message.contains("too large"), "{e}");
        }
    }

    #[test]
    fn saturating_grids_scale_with_the_units_and_blocks_recompile() {
        let f = kernel(K);
        assert_eq!(grid(&f, None, |_| None, 1).unwrap(), [4, 1, 1]);
        assert_eq!(grid(&f, None, |_| None, 304).unwrap(), [1216, 1, 1]);
        assert_eq!(grid(&f, Some([3, 2, 1]), |_| None, 304).unwrap(), [3, 2, 1]);
        assert!(matches!(with_block(&f, None), Cow::Borrowed(_)));
        assert!(matches!(with_block(&f, Some([96, 1, 1])), Cow::Borrowed(_)));
        assert_eq!(with_block(&f, Some([32, 2, 1])).launch.block, [32, 2, 1]);
        let e = compile(Target::wave64(Arch::Gfx942), &with_block(&f, Some([2048, 1, 1]))).unwrap_err();
        assert_eq!(e.kind, crate::RtErrorKind::Compile);
        // 2048 threads per block is the verifier's to reject, before any target.
        assert!(e.message.contains("does not verify") && e.message.contains("2048 threads"), "{e}");
    }
}
