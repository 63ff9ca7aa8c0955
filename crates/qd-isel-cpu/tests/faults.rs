//! Faults and limits on native code, against the interpreter: an out-of-bounds store is reported
//! with the interpreter's text and site and writes nothing outside its buffer (a neighbouring
//! buffer stays as it was); a division by zero and subgroups of a block at different barriers
//! likewise (a barrier under divergence is a verifier error, so it never reaches a back end); a kernel that never ends is stopped by the step limit and by
//! the time limit; many blocks on several threads add with real atomics.

use qd_isel_cpu::{cache, Limits, RunOptions};
use qd_mir::interp::{self, ArgValue, Buffer, RunConfig};
use qd_mir::ScalarType;
use std::time::{Duration, Instant};

const SRC: &str = r#"
kernel @oob(%dst: ptr<global, u32>, %other: ptr<global, u32>, %k: u32 uniform) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = add %0, %k : u32
  %2 = ptr.offset %dst, %1 : ptr<global, u32>
  %3 = const 7 : u32
  store %2, %3
  return
}

kernel @divide(%dst: ptr<global, i32>, %d: i32 uniform) block(8, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = cast %0 : i32
  %2 = sub %1, %d : i32
  %3 = const 100 : i32
  %4 = div %3, %2 : i32
  %5 = ptr.offset %dst, %0 : ptr<global, i32>
  store %5, %4
  return
}

kernel @two_barriers(%out: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = subgroup_id : u32
  %1 = const 0 : u32
  %2 = cmp eq %0, %1 : bool
  if %2 {
    block.sync
    yield
  } else {
    block.sync
    yield
  }
  return
}

kernel @forever(%out: ptr<global, u32>) block(32, 1, 1) grid(1, 1, 1) {
  %0 = const 1 : u32
  %1 = const 0 : u32
  %2 = loop (%3: u32 = %1) -> (u32) {
    %4 = add %3, %0 : u32
    continue %4
  }
  return
}

kernel @count(%total: ptr<global, u32>) block(64, 1, 1) grid(1000, 1, 1) {
  %0 = const 0 : u32
  %1 = ptr.offset %total, %0 : ptr<global, u32>
  %2 = thread_id x : u32
  %3 = const 1 : u32
  %4 = add %2, %3 : u32
  %5 = atomic.rmw add device %1, %4 : u32
  return
}
"#;

fn module() -> qd_mir::Module {
    qd_mir::parse_module(SRC).expect("parses")
}

fn u32s(n: usize, v: u32) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, (0..n).map(|_| u64::from(v))))
}

/// Runs `kernel` on the interpreter and on native code at `w`; both must fault alike and leave
/// memory alike. Gives the fault's text and the native run's arguments afterwards.
fn same_fault(kernel: &str, args: Vec<ArgValue>, w: u32) -> (String, Vec<ArgValue>) {
    let m = module();
    let f = m.kernel(kernel).expect("kernel");
    let mut reference = args.clone();
    let cfg = RunConfig { subgroup_size: w, step_limit: Some(1_000_000), ..RunConfig::default() };
    let want = interp::run_kernel(f, &cfg, &mut reference).expect_err("the interpreter faults").to_string();
    let mut got = args;
    let k = cache::get(f, w).expect("compiles");
    let e = k.run(&mut got, &RunOptions::default()).expect_err("native code faults").to_string();
    assert_eq!(e, want, "kernel @{kernel} at width {w}");
    assert_eq!(got, reference, "kernel @{kernel} at width {w}: memory after the fault");
    (e, got)
}

#[test]
fn an_out_of_bounds_store_faults_and_writes_nothing_outside_its_buffer() {
    for w in [4, 8, 32, 64] {
        let (e, got) = same_fault("oob", vec![u32s(40, 0), u32s(16, 9), ArgValue::Scalar(ScalarType::U32, 3)], w);
        assert!(e.contains("out of bounds: index 40 of %dst (length 40)"), "{e}");
        assert!(e.contains("thread 37"), "{e}");
        // The neighbour is untouched; the in-bounds stores before the faulting lane happened.
        assert_eq!(got[1], u32s(16, 9));
        let ArgValue::Buffer(dst) = &got[0] else { panic!("a buffer") };
        assert!(dst.to_bits()[..3].iter().all(|&x| x == 0));
    }
}

#[test]
fn division_by_zero_faults_on_the_lane_that_divides() {
    for w in [1, 4, 8] {
        let dst = ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [0; 8]));
        let (e, _) = same_fault("divide", vec![dst, ArgValue::Scalar(ScalarType::I32, 5)], w);
        assert!(e.contains("integer division by zero") && e.contains("thread 5"), "{e}");
    }
}

#[test]
fn subgroups_at_different_barriers_fault() {
    for w in [8, 32] {
        let (e, _) = same_fault("two_barriers", vec![u32s(1, 0)], w);
        assert!(e.contains("wait at different barriers"), "{e}");
    }
}

#[test]
fn a_kernel_that_never_ends_stops_at_the_step_limit_and_at_the_time_limit() {
    let m = module();
    let f = m.kernel("forever").expect("kernel");
    let k = cache::get(f, 32).expect("compiles");
    let limits = Limits { step_limit: Some(50_000_000), time_limit: None };
    let e = k.run(&mut [u32s(1, 0)], &RunOptions { limits, ..RunOptions::default() }).expect_err("stops");
    assert!(e.to_string().contains("step limit of 50000000 lane-instructions exceeded"), "{e}");
    let t = Instant::now();
    let limits = Limits { step_limit: None, time_limit: Some(Duration::from_millis(300)) };
    let e = k.run(&mut [u32s(1, 0)], &RunOptions { limits, ..RunOptions::default() }).expect_err("stops");
    assert!(e.to_string().contains("time limit of 0.3 s exceeded"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
}

#[test]
fn blocks_on_several_threads_add_with_real_atomics() {
    let m = module();
    let f = m.kernel("count").expect("kernel");
    for w in [8, 64] {
        let k = cache::get(f, w).expect("compiles");
        let mut a = vec![u32s(1, 0)];
        let stats = k.run(&mut a, &RunOptions { threads: Some(4), ..RunOptions::default() }).expect("runs");
        assert_eq!(stats.blocks, 1000);
        let ArgValue::Buffer(b) = &a[0] else { panic!("a buffer") };
        assert_eq!(b.to_bits(), [1000 * (64 * 65 / 2)]);
    }
}
