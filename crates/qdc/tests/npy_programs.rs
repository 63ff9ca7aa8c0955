//! `.npy` files and programs with a status word and checks through the `qdc` binary:
//! `qdc run FILE.qdm --program P --arg NAME=FILE.npy … --save NAME=FILE.npy`, on the cpu device
//! and (when there is one) on the vulkan device; the saved bytes, the dtype checks and the
//! program's check and status errors (exit status 1, the message on standard error, nothing
//! saved).
//!
//! The files under `tests/npy/` were written by NumPy 2.4 (`np.save`, and
//! `np.lib.format.write_array(…, version=(2, 0) / (3, 0))`): `u32.npy` = `arange(5, '<u4')`,
//! `bool.npy` = `[True, False, True]`, `f64.npy` = `[1.5, -0.0]`, `i64_2x3.npy` =
//! `arange(6, '<i8').reshape(2, 3)`, `f32_0d.npy` = `float32(2.5)`, `i32_v2.npy` / `i32_v3.npy` =
//! `arange(3, '<i4')`, `u32_fortran.npy` = `asfortranarray(arange(6, '<u4').reshape(2, 3))`,
//! `u32_big.npy` = `arange(3, '>u4')`, `i16.npy` = `arange(3, '<i2')`, `empty_u64.npy` =
//! `zeros(0, '<u8')`.

use qd_mir::interp::Buffer;
use qd_mir::ScalarType;
use qdc::npy;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qdc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qdc")).args(args).output().expect("qdc runs")
}

fn fixture(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "tests", "npy", name].iter().collect()
}

fn program_file() -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "..", "tests", "filetests", "interp", "program_status.qdm"].iter().collect();
    p.to_string_lossy().into_owned()
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qdc-npy-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn save(dir: &Path, name: &str, buf: &Buffer) -> String {
    let p = dir.join(name);
    std::fs::write(&p, npy::write(buf)).expect("write .npy");
    p.to_string_lossy().into_owned()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn u32s(v: impl IntoIterator<Item = u32>) -> Buffer {
    Buffer::from_bits(ScalarType::U32, v.into_iter().map(u64::from))
}

fn read(path: &Path) -> npy::Array {
    npy::read(&std::fs::read(path).expect("read")).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn vulkan() -> bool {
    match qd_rt::Device::vulkan(0) {
        Ok(_) => true,
        Err(e) if std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("QD_REQUIRE_VULKAN=1 but vulkan:0 cannot be opened: {e}")
        }
        Err(e) => {
            eprintln!("vulkan runs skipped (no Vulkan device: {e})");
            false
        }
    }
}

#[test]
fn numpy_files_read_and_write_back_byte_for_byte() {
    let bits = |name: &str| {
        let a = read(&fixture(name));
        (a.buffer.elem, a.shape, a.buffer.to_bits())
    };
    assert_eq!(bits("u32.npy"), (ScalarType::U32, vec![5], (0..5).collect()));
    assert_eq!(bits("bool.npy"), (ScalarType::Bool, vec![3], vec![1, 0, 1]));
    assert_eq!(bits("f64.npy"), (ScalarType::F64, vec![2], vec![1.5f64.to_bits(), (-0.0f64).to_bits()]));
    assert_eq!(bits("i64_2x3.npy"), (ScalarType::I64, vec![2, 3], (0..6).collect()));
    assert_eq!(bits("f32_0d.npy"), (ScalarType::F32, vec![], vec![u64::from(2.5f32.to_bits())]));
    assert_eq!(bits("i32_v2.npy"), (ScalarType::I32, vec![3], (0..3).collect()));
    assert_eq!(bits("i32_v3.npy"), (ScalarType::I32, vec![3], (0..3).collect()));
    assert_eq!(bits("empty_u64.npy"), (ScalarType::U64, vec![0], vec![]));
    // The writer gives NumPy's bytes for 1-D arrays.
    for name in ["u32.npy", "bool.npy", "f64.npy", "empty_u64.npy"] {
        let bytes = std::fs::read(fixture(name)).expect("read");
        let a = npy::read(&bytes).expect("reads");
        assert_eq!(npy::write(&a.buffer), bytes, "{name}");
    }
    let err = |name: &str| npy::read(&std::fs::read(fixture(name)).expect("read")).unwrap_err();
    assert!(err("u32_fortran.npy").contains("Fortran-order arrays are not supported"));
    assert!(err("u32_big.npy").contains("big-endian dtype '>u4' is not supported"));
    assert!(err("i16.npy").contains("unsupported dtype '<i2'"));
}

#[test]
fn run_a_program_from_npy_files_and_save_its_buffers() {
    let dir = temp_dir("run");
    let prog = program_file();
    // `src` as a 2-D file: flattened in C order.
    let mut devices = vec!["cpu", "cpu:8"];
    if vulkan() {
        devices.push("vulkan");
    }
    for dev in devices {
        let n = save(&dir, "n.npy", &Buffer::from_bits(ScalarType::I32, [6]));
        let src = fixture("u32.npy"); // 0..5: too short for max_n = 8
        let e = qdc(&[
            "run",
            &prog,
            "--program",
            "twice",
            "--device",
            dev,
            "--arg",
            &format!("n={n}"),
            "--arg",
            &format!("src={}", src.display()),
            "--arg",
            "dst=zeros:u32:8",
            "--arg",
            "sum=zeros:u32:1",
        ]);
        assert_eq!(e.status.code(), Some(1), "{dev}");
        assert_eq!(
            text(&e.stderr).trim(),
            "error: program @twice: buffer %src has 5 element(s), needs at least 8 (max_n)",
            "{dev}"
        );

        let src = save(&dir, "src.npy", &u32s((0..8).map(|i| 10 * i)));
        let dst = dir.join(format!("dst-{dev}.npy"));
        let sum = dir.join(format!("sum-{dev}.npy"));
        let out = qdc(&[
            "run",
            &prog,
            "--program",
            "twice",
            "--device",
            dev,
            "--arg",
            &format!("n={n}"),
            "--arg",
            &format!("src={src}"),
            "--arg",
            "dst=fill:u32:8:7",
            "--arg",
            "sum=zeros:u32:1",
            "--save",
            &format!("dst={}", dst.display()),
            "--out",
            &format!("sum={}", sum.display()),
            "--print",
            "sum",
        ]);
        assert!(out.status.success(), "{dev}: {}", text(&out.stderr));
        // dst[i] = 2 * 10i + 1 for i < 6; sum = 1 + 21 + 41 + 61 + 81 + 101.
        let want_dst = u32s([1, 21, 41, 61, 81, 101, 7, 7]);
        assert_eq!(text(&out.stdout).trim(), "306", "{dev}");
        assert_eq!(std::fs::read(&dst).expect("saved dst"), npy::write(&want_dst), "{dev}: the saved bytes");
        assert_eq!(read(&sum).buffer, u32s([306]), "{dev}");

        // A live count above the capacity: both status bits, exit status 1, nothing saved.
        let big = save(&dir, "n.npy", &Buffer::from_bits(ScalarType::I32, [9]));
        let dst2 = dir.join(format!("dst2-{dev}.npy"));
        let out = qdc(&[
            "run",
            &prog,
            "--program",
            "twice",
            "--device",
            dev,
            "--arg",
            &format!("n={big}"),
            "--arg",
            &format!("src={src}"),
            "--arg",
            "dst=zeros:u32:8",
            "--arg",
            "sum=zeros:u32:1",
            "--save",
            &format!("dst={}", dst2.display()),
        ]);
        assert_eq!(out.status.code(), Some(1), "{dev}");
        assert_eq!(
            text(&out.stderr).trim(),
            "error: program @twice: status %qd_status = 0x9: double: n is outside 0..=8 (max_n); total: n is outside 0..=8 (max_n)",
            "{dev}"
        );
        assert!(!dst2.exists(), "{dev}: nothing saved after a failed run");
    }
}

#[test]
fn npy_arguments_must_match_the_parameter() {
    let dir = temp_dir("dtype");
    let prog = program_file();
    let run = |src: &str| {
        qdc(&[
            "run",
            &prog,
            "--program",
            "twice",
            "--arg",
            "n=i32:[3]",
            "--arg",
            &format!("src={src}"),
            "--arg",
            "dst=zeros:u32:8",
            "--arg",
            "sum=zeros:u32:1",
        ])
    };
    let f = save(&dir, "f.npy", &Buffer::from_bits(ScalarType::F32, [0; 8]));
    let out = run(&f);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        format!("--arg src={f}: the file holds <f4 (f32), but %src is ptr<global, u32>: it needs a .npy of <u4 (u32)")
    );
    let fortran = fixture("u32_fortran.npy");
    let out = run(&fortran.to_string_lossy());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("Fortran-order arrays are not supported"), "{}", text(&out.stderr));
    let junk = dir.join("junk.npy");
    std::fs::write(&junk, b"\x93NUMPY\x01\x00\xff\x7f{'descr'").expect("write");
    let out = run(&junk.to_string_lossy());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        format!("--arg src: {}: truncated header: it should be 32767 bytes, the file has 8", junk.display())
    );
    // A saved name that is not a buffer parameter is refused before the run.
    let out = qdc(&[
        "run",
        &prog,
        "--program",
        "twice",
        "--arg",
        "n=i32:[3]",
        "--arg",
        "src=iota:u32:8",
        "--arg",
        "dst=zeros:u32:8",
        "--arg",
        "sum=zeros:u32:1",
        "--save",
        "qd_status=s.npy",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr).trim(), "--save qd_status: no parameter %qd_status (parameters: n, src, dst, sum)");
}
