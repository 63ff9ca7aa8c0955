//! Kernels shared by the qd-rt tests: a `.qdm` module with a W-dependent scan, a cover-grid
//! kernel, a saturating grid-stride kernel, a faulting kernel, a big-shared-memory kernel and a
//! three-launch program; and a second module whose program has a status word and argument checks
//! (`@twice`: a live count `n` read from a buffer, capacity 64).

#![allow(dead_code)]

use qd_mir::ScalarType;
use qd_rt::{ArgValue, HostBuffer};

pub const MODULE: &str = r#"
kernel @scan(%src: ptr<global, u32>, %dst: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %src, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = subgroup.scan inclusive add %2 : u32
  %4 = ptr.offset %dst, %0 : ptr<global, u32>
  store %4, %3
  return
}

kernel @init(%buf: ptr<global, u32>, %n: u32 uniform) block(16, 1, 1) grid(cover %n) {
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = block_dim x : u32
  %3 = mul %1, %2 : u32
  %4 = add %3, %0 : u32
  %5 = cmp lt %4, %n : bool
  if %5 {
    %6 = const 3 : u32
    %7 = mul %4, %6 : u32
    %8 = ptr.offset %buf, %4 : ptr<global, u32>
    store %8, %7
    yield
  }
  return
}

kernel @bump(%buf: ptr<global, u32>, %k: u32 uniform) block(32, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %buf, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = add %2, %k : u32
  store %1, %3
  return
}

kernel @stride(%out: ptr<global, u32>, %n: u32 uniform) block(16, 1, 1) grid(saturating) {
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = block_dim x : u32
  %3 = mul %1, %2 : u32
  %4 = add %3, %0 : u32
  %5 = grid_dim x : u32
  %6 = mul %5, %2 : u32
  loop (%7: u32 = %4) {
    %8 = cmp ge %7, %n : bool
    if %8 {
      break
    }
    %9 = ptr.offset %out, %7 : ptr<global, u32>
    %10 = const 1 : u32
    %11 = add %7, %10 : u32
    store %9, %11
    %12 = add %7, %6 : u32
    continue %12
  }
  return
}

kernel @divide(%out: ptr<global, u32>, %d: u32 uniform) block(32, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = div %0, %d : u32
  %2 = ptr.offset %out, %0 : ptr<global, u32>
  store %2, %1
  return
}

kernel @bigshared(%out: ptr<global, u32>) block(256, 1, 1) grid(2, 1, 1) {
  shared @s: [u32; 16384]
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = const 64 : u32
  %3 = mul %0, %2 : u32
  %4 = shared.addr @s : ptr<shared, u32>
  %5 = ptr.offset %4, %3 : ptr<shared, u32>
  %6 = add %0, %1 : u32
  store %5, %6
  block.sync
  %7 = const 255 : u32
  %8 = sub %7, %0 : u32
  %9 = mul %8, %2 : u32
  %10 = ptr.offset %4, %9 : ptr<shared, u32>
  %11 = load %10 : u32
  %12 = block_dim x : u32
  %13 = mul %1, %12 : u32
  %14 = add %13, %0 : u32
  %15 = ptr.offset %out, %14 : ptr<global, u32>
  store %15, %11
  return
}

kernel @mixed(%f: ptr<global, f32>, %d: ptr<global, f64>, %b: ptr<global, bool>, %x: f32 uniform, %y: f64 uniform, %z: i64 uniform, %flag: bool uniform) block(32, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = cast %0 : f32
  %2 = mul %1, %x : f32
  %3 = ptr.offset %f, %0 : ptr<global, f32>
  store %3, %2
  %4 = cast %0 : f64
  %5 = add %4, %y : f64
  %6 = cast %z : f64
  %7 = add %5, %6 : f64
  %8 = ptr.offset %d, %0 : ptr<global, f64>
  store %8, %7
  %9 = const 1 : u32
  %10 = and %0, %9 : u32
  %11 = cmp eq %10, %9 : bool
  %12 = xor %11, %flag : bool
  %13 = ptr.offset %b, %0 : ptr<global, bool>
  store %13, %12
  return
}

kernel @wild(%out: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = const 1073741823 : u32
  %2 = mul %0, %1 : u32
  %3 = ptr.offset %out, %2 : ptr<global, u32>
  store %3, %0
  return
}

program @pipeline(%data: ptr<global, u32>, %out: ptr<global, u32>, %n: u32) {
  launch @init(%data, %n)
  launch @scan(%data, %out)
  launch @bump(%out, 5 : u32)
}
"#;

/// `@twice(%n, %src, %dst, %sum)`: with `0 <= n[0] <= 64`, `dst[i] = 2 * src[i] + 1` for
/// `i < n` (the rest of `dst` untouched) and `sum[0] = dst[0] + … + dst[n-1]`; otherwise each
/// kernel sets its status bit (`@double` bit 0, `@total` bit 3) and writes nothing. Checks:
/// `len %n >= 1`, `len %src >= 64`, `len %dst >= 64`, `len %sum >= 1`, `distinct %src, %dst`.
pub const STATUS_MODULE: &str = r#"
kernel @double(%n: ptr<global, i32>, %src: ptr<global, u32>, %dst: ptr<global, u32>, %st: ptr<global, u32>, %cap: i32 uniform, %mask: u32 uniform) block(32, 1, 1) grid(1, 1, 1) {
  %0 = load %n : i32
  %1 = const 0 : i32
  %2 = cmp lt %0, %1 : bool
  %3 = cmp gt %0, %cap : bool
  %4 = or %2, %3 : bool
  %5 = thread_id x : u32
  if %4 {
    %6 = const 0 : u32
    %7 = cmp eq %5, %6 : bool
    if %7 {
      %8 = atomic.rmw or device %st, %mask : u32
      yield
    }
    return
  }
  %9 = cast %0 : u32
  loop (%10: u32 = %5) {
    %11 = cmp ge %10, %9 : bool
    if %11 {
      break
    }
    %12 = ptr.offset %src, %10 : ptr<global, u32>
    %13 = load %12 : u32
    %14 = const 2 : u32
    %15 = mul %13, %14 : u32
    %16 = const 1 : u32
    %17 = add %15, %16 : u32
    %18 = ptr.offset %dst, %10 : ptr<global, u32>
    store %18, %17
    %19 = const 32 : u32
    %20 = add %10, %19 : u32
    continue %20
  }
  return
}

kernel @total(%n: ptr<global, i32>, %dst: ptr<global, u32>, %sum: ptr<global, u32>, %st: ptr<global, u32>, %cap: i32 uniform, %mask: u32 uniform) block(1, 1, 1) grid(1, 1, 1) {
  %0 = load %n : i32
  %1 = const 0 : i32
  %2 = cmp lt %0, %1 : bool
  %3 = cmp gt %0, %cap : bool
  %4 = or %2, %3 : bool
  if %4 {
    %5 = atomic.rmw or device %st, %mask : u32
    return
  }
  %6 = cast %0 : u32
  %7 = const 0 : u32
  %8 = loop (%9: u32 = %7, %10: u32 = %7) -> (u32) {
    %11 = cmp ge %9, %6 : bool
    if %11 {
      break %10
    }
    %12 = ptr.offset %dst, %9 : ptr<global, u32>
    %13 = load %12 : u32
    %14 = add %10, %13 : u32
    %15 = const 1 : u32
    %16 = add %9, %15 : u32
    continue %16, %14
  }
  store %sum, %8
  return
}

program @twice(%n: ptr<global, i32>, %src: ptr<global, u32>, %dst: ptr<global, u32>, %sum: ptr<global, u32>) {
  status %qd_status bit 0 "double: n is outside 0..=64 (max_n)"
  status %qd_status bit 3 "total: n is outside 0..=64 (max_n)"
  check len %n >= 1 "the live count"
  check len %src >= 64 "max_n"
  check len %dst >= 64 "max_n"
  check len %sum >= 1 "one element"
  check distinct %src, %dst
  launch @double(%n, %src, %dst, %qd_status, 64 : i32, 1 : u32)
  launch @total(%n, %dst, %sum, %qd_status, 64 : i32, 8 : u32)
}
"#;

/// The parsed and verified [`STATUS_MODULE`].
pub fn status_module() -> qd_mir::Module {
    let m = qd_mir::parse_module(STATUS_MODULE).unwrap_or_else(|e| panic!("{}", e.render(STATUS_MODULE, "status")));
    if let Err(e) = qd_mir::verify::verify_module(&m) {
        panic!("{e}");
    }
    m
}

pub fn module() -> qd_mir::Module {
    let m = qd_mir::parse_module(MODULE).unwrap_or_else(|e| panic!("{}", e.render(MODULE, "common")));
    if let Err(e) = qd_mir::verify::verify_module(&m) {
        panic!("{e}");
    }
    m
}

pub fn u32s(v: impl IntoIterator<Item = u32>) -> ArgValue {
    ArgValue::Buffer(HostBuffer::from_bits(ScalarType::U32, v.into_iter().map(u64::from)))
}

pub fn zeros(elem: ScalarType, n: usize) -> ArgValue {
    ArgValue::Buffer(HostBuffer::from_bits(elem, vec![0; n]))
}

pub fn scalar_u32(v: u32) -> ArgValue {
    ArgValue::Scalar(ScalarType::U32, u64::from(v))
}

pub fn bits(a: &ArgValue) -> Vec<u64> {
    match a {
        ArgValue::Buffer(b) => b.to_bits(),
        ArgValue::Scalar(_, v) => vec![*v],
    }
}

/// Arguments for each kernel of the module (the inputs of one run).
pub fn args_for(name: &str) -> Vec<ArgValue> {
    match name {
        "scan" => vec![u32s((0..64).map(|i| i * 7 % 13)), zeros(ScalarType::U32, 64)],
        "init" => vec![zeros(ScalarType::U32, 100), scalar_u32(70)],
        "bump" => vec![u32s(0..32), scalar_u32(9)],
        "stride" => vec![zeros(ScalarType::U32, 1000), scalar_u32(1000)],
        "divide" => vec![zeros(ScalarType::U32, 32), scalar_u32(3)],
        "bigshared" => vec![zeros(ScalarType::U32, 512)],
        "mixed" => vec![
            zeros(ScalarType::F32, 32),
            zeros(ScalarType::F64, 32),
            zeros(ScalarType::Bool, 32),
            ArgValue::Scalar(ScalarType::F32, u64::from(1.5f32.to_bits())),
            ArgValue::Scalar(ScalarType::F64, (-0.25f64).to_bits()),
            ArgValue::Scalar(ScalarType::I64, (-3i64) as u64),
            ArgValue::Scalar(ScalarType::Bool, 1),
        ],
        other => panic!("no args for {other}"),
    }
}

/// `@guarded`: `dst[i] = src[i] + n[0]` for the first 64 elements, then the status word is set
/// to `flags[0]` (bit 0 "n is odd", bit 1 "n has bit 1"); the sim and hsa device tests share it.
pub const PROGRAM: &str = r#"
kernel @shift(%src: ptr<global, u32>, %dst: ptr<global, u32>, %n: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %src, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = load %n : u32
  %4 = add %2, %3 : u32
  %5 = ptr.offset %dst, %0 : ptr<global, u32>
  store %5, %4
  return
}

kernel @flag(%flags: ptr<global, u32>, %st: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %0 = load %flags : u32
  store %st, %0
  return
}

program @guarded(%src: ptr<global, u32>, %dst: ptr<global, u32>, %n: ptr<global, u32>, %flags: ptr<global, u32>) {
  status %qd_status bit 0 "n is odd"
  status %qd_status bit 1 "n has bit 1"
  check len %src >= 64 "one block"
  check len %dst >= 64 "one block"
  check len %n >= 1 "the count"
  check distinct %src, %dst
  launch @shift(%src, %dst, %n)
  launch @flag(%flags, %qd_status)
}
"#;

pub fn program_args(n: u32, src_len: u32, flags: u32) -> Vec<ArgValue> {
    vec![u32s((0..src_len).map(|i| i * 11)), zeros(ScalarType::U32, 64), u32s([n]), u32s([flags])]
}

/// `out[g] = a[g] + b[g] + grid_dim + block_dim` with `g = block_id * 64 + thread_id`, over the
/// grid `grid` (the sim and hsa device tests share it).
pub fn add_kernel(grid: &str) -> String {
    format!(
        r#"
kernel @addk(%a: ptr<global, u32>, %b: ptr<global, u32>, %out: ptr<global, u32>) block(64, 1, 1) grid({grid}) {{
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %20 = const 64 : u32
  %2 = mul %1, %20 : u32
  %8 = add %2, %0 : u32
  %9 = ptr.offset %a, %8 : ptr<global, u32>
  %10 = load %9 : u32
  %11 = ptr.offset %b, %8 : ptr<global, u32>
  %12 = load %11 : u32
  %13 = add %10, %12 : u32
  %14 = grid_dim x : u32
  %15 = block_dim x : u32
  %16 = add %13, %14 : u32
  %17 = add %16, %15 : u32
  %18 = ptr.offset %out, %8 : ptr<global, u32>
  store %18, %17
  return
}}
"#
    )
}
