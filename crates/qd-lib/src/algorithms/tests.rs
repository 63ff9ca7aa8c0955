//! Build-level tests of the public algorithms: the launch topology depends on `log256_max_n`
//! only (Quadrants' counts for the multi-launch forms, 2/2/4/6 for the single pass), the program
//! text does not depend on `max_n` (it is a launch constant), and Auto picks the strategy the
//! docs say.

use super::*;
use qd_frontend::{BuildError, ProgramBuilder, ScalarType};
use qd_mir::Module;

fn target(fp: bool) -> Target {
    Target { subgroup_width: 32, forward_progress: fp, class: DeviceClass::Gpu }
}

/// Builds one call of each algorithm (u32 data) and returns the modules.
fn build_all(opts: &Options, cap: Capacity) -> Result<[Module; 4], BuildError> {
    let mut out = Vec::new();
    for algo in 0..4 {
        let mut pb = ProgramBuilder::new("p");
        let a = pb.buffer("a", ScalarType::U32);
        let b = pb.buffer("b", ScalarType::U32);
        let c = pb.buffer("c", ScalarType::U32);
        let d = pb.buffer("d", ScalarType::U32);
        let cnt = pb.buffer("cnt", ScalarType::I32);
        let flags = pb.buffer("flags", ScalarType::I32);
        let scratch = pb.buffer("scratch", ScalarType::U32);
        let n = pb.buffer("n", ScalarType::I32);
        match algo {
            0 => reduce_add(&mut pb, opts, a, b, scratch, n, cap)?,
            1 => exclusive_scan_add(&mut pb, opts, a, b, scratch, n, cap)?,
            2 => select(&mut pb, opts, &Elems::scalar(a), flags, &Elems::scalar(b), cnt, scratch, n, cap)?,
            _ => reduce_by_key_add(&mut pb, opts, a, b, c, d, cnt, scratch, n, cap)?,
        }
        out.push(pb.finish()?);
    }
    out.try_into().map_err(|_| BuildError::new(std::panic::Location::caller(), qd_frontend::ErrorKind::Config, "four"))
}

#[test]
fn launch_counts_follow_the_depth_only() -> Result<(), BuildError> {
    let multi = Options::new(target(false));
    for d in 1..=4u32 {
        let small = build_all(&multi, Capacity::with_log256(100, d)?)?;
        let max = build_all(&multi, Capacity::with_log256(256u64.pow(d).min(i32::MAX as u64), d)?)?;
        let want = [d, 2 * d - 1, 2 * d + 1, 2 * d + 3];
        for (i, (a, b)) in small.iter().zip(&max).enumerate() {
            assert_eq!(a.programs[0].launches.len() as u32, want[i], "algorithm {i} at D = {d}");
            // same kernels whatever max_n: it is a launch argument, not part of a kernel
            let text = |m: &Module| m.kernels.iter().map(qd_mir::text::print_function).collect::<Vec<_>>();
            assert_eq!(text(a), text(b), "algorithm {i} at D = {d}");
        }
    }
    let single = Options::new(target(true)).with_strategy(Strategy::SinglePass);
    let ms = build_all(&single, Capacity::new(70_000)?)?;
    let counts: Vec<usize> = ms.iter().map(|m| m.programs[0].launches.len()).collect();
    assert_eq!(counts, [2, 2, 4, 6]);
    Ok(())
}

#[test]
fn auto_picks_single_pass_only_with_forward_progress() -> Result<(), BuildError> {
    let cap = Capacity::new(70_000)?;
    let auto_fp = build_all(&Options::new(target(true)), cap)?;
    let auto_no = build_all(&Options::new(target(false)), cap)?;
    let look = |m: &Module| m.kernels.iter().any(|k| k.name.starts_with("qd_lb_scan_"));
    assert!(auto_fp.iter().all(look));
    assert!(!auto_no.iter().any(look));
    // rbk at max_n <= 256: the scratch holds the flags only, Auto stays multi-launch
    let small = build_all(&Options::new(target(true)), Capacity::new(200)?)?;
    assert!(!look(&small[3]) && look(&small[0]));
    Ok(())
}

#[test]
fn auto_keeps_float_add_multi_launch_and_float_min_max_single_pass() -> Result<(), BuildError> {
    for (ty, st) in [(ScalarType::F32, ScalarType::U32), (ScalarType::F64, ScalarType::U64)] {
        let mut pb = ProgramBuilder::new("p");
        let a = pb.buffer("a", ty);
        let b = pb.buffer("b", ty);
        let c = pb.buffer("c", ty);
        let e = pb.buffer("e", ty);
        let s = pb.buffer("s", st);
        let s2 = pb.buffer("s2", st);
        let s3 = pb.buffer("s3", st);
        let n = pb.buffer("n", ScalarType::I32);
        let o = Options::new(target(true));
        let cap = Capacity::new(5000)?;
        reduce_add(&mut pb, &o, a, b, s, n, cap)?;
        exclusive_scan_min(&mut pb, &o, a, c, s2, n, cap)?;
        reduce_max(&mut pb, &o, a, e, s3, n, cap)?;
        let m = pb.finish()?;
        let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
        assert!(names.iter().any(|k| k.starts_with(&format!("qd_scan_reduce_{ty}_add"))), "{names:?}");
        assert!(names.iter().any(|k| k.starts_with(&format!("qd_lb_scan_{ty}_min"))), "{names:?}");
        assert!(names.iter().any(|k| k.starts_with(&format!("qd_lb_scan_{ty}_max"))), "{names:?}");
    }
    Ok(())
}
