//! End to end: straight-line MIR kernels compiled for every AMD target, run on the simulator,
//! compared with the interpreter.

mod lower_util;

use lower_util::*;
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::ScalarType;

#[test]
fn add_one_per_thread() {
    let f = kernel(
        "kernel @add1(%a: ptr<global, u32>, %b: ptr<global, u32>) block(96, 1, 1) grid(2, 1, 1) {
  %0 = thread_id x : u32
  %1 = block_id x : u32
  %2 = block_dim x : u32
  %3 = add %1, %2 : u32
  %4 = add %0, %2 : u32
  %5 = ptr.offset %a, %0 : ptr<global, u32>
  %6 = load %5 : u32
  %7 = add %6, %4 : u32
  %8 = ptr.offset %b, %0 : ptr<global, u32>
  store %8, %7
  return
}
",
    );
    for t in targets() {
        let a = Buffer::from_bits(ScalarType::U32, (0..96u64).map(|i| i * 3));
        let b = Buffer::from_bits(ScalarType::U32, std::iter::repeat_n(0, 96));
        check(&f, t, [1, 1, 1], &[ArgValue::Buffer(a), ArgValue::Buffer(b)]);
    }
}
