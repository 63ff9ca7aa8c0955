//! LLVM 19 as an oracle for the simulator: small IR kernels (tests/sim_llvm/*.ll: cross-lane
//! intrinsics per family, transcendental chains, an LDS exchange with a barrier) are compiled by
//! `llc-19`, linked by `ld.lld-19 -shared`, loaded with `Program::from_code_object` and run. LLVM's
//! hazard recogniser and waitcnt inserter made the code correct, so the simulator's hazard and
//! wait checkers must accept it (no false positives), and the results must match the IR's meaning
//! computed here. Skipped, with a message, when the LLVM tools are not installed
//! (scripts/test.sh installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use qd_amdgcn_isa::{Arch, Target, WaveSize};
use qd_amdgcn_sim::{self as sim, Dispatch, GlobalMemory, Program};

fn tools_present() -> bool {
    ["llc-19", "ld.lld-19"].iter().all(|t| Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success()))
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn configs() -> Vec<(Target, &'static str)> {
    vec![
        (Target::wave64(Arch::Gfx90a), ""),
        (Target::wave64(Arch::Gfx942), ""),
        (Target::wave64(Arch::Gfx1100), "+wavefrontsize64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "+wavefrontsize32"),
    ]
}

/// Compiles and links `ll` for the target; the linked object's bytes.
fn build(dir: &Path, ll: &str, t: Target, attr: &str) -> Vec<u8> {
    let path = format!("{}/tests/sim_llvm/{ll}", env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(&path).expect("read the .ll");
    if t.wave == WaveSize::W32 {
        // In wave32 `v_permlane64_b32` writes nothing (RDNA3 ISA guide: "translated to V_NOP and
        // performs no writes", which the simulator follows), but LLVM 19 emits it for the
        // (identity) wave32 intrinsic with a destination other than its source. Use the identity.
        text = text.replace("call i32 @llvm.amdgcn.permlane64(i32 %b)", "add i32 %b, 0");
    }
    let tag = format!("{}-{}", t.arch.name(), t.wave.lanes());
    let src = dir.join(format!("{ll}-{tag}.ll"));
    std::fs::write(&src, text).expect("write the .ll");
    let obj = dir.join(format!("{ll}-{tag}.o"));
    let so = dir.join(format!("{ll}-{tag}.so"));
    let mut llc = Command::new("llc-19");
    llc.args(["-O2", "-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={}", t.arch.name()), "-filetype=obj"]);
    if !attr.is_empty() {
        llc.arg(format!("-mattr={attr}"));
    }
    // No VOPD dual-issue pairs (wave32 only; not in the table).
    llc.arg("-amdgpu-enable-vopd=0");
    let out = llc.arg(&src).arg("-o").arg(&obj).output().expect("run llc-19");
    assert!(out.status.success(), "llc-19 {tag}: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new("ld.lld-19").arg("-shared").arg(&obj).arg("-o").arg(&so).output().expect("run ld.lld-19");
    assert!(out.status.success(), "ld.lld-19 {tag}: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(&so).expect("read the linked object")
}

fn kernarg(out: u64, n: u32, k: u32) -> Vec<u8> {
    let mut v = vec![0u8; 512];
    v[..8].copy_from_slice(&out.to_le_bytes());
    v[8..12].copy_from_slice(&n.to_le_bytes());
    v[12..16].copy_from_slice(&k.to_le_bytes());
    v
}

fn read_u32s(mem: &GlobalMemory, addr: u64, n: usize) -> Vec<u32> {
    let bytes = mem.read(addr, 4 * n).expect("read back");
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The meaning of crosslane.ll for one wave of `lanes` lanes starting at work-item `base`.
fn crosslane_model(lanes: usize, base: u32) -> Vec<u32> {
    let v: Vec<u32> = (0..lanes).map(|l| (base + l as u32) * 3).collect();
    let a1: Vec<u32> = (0..lanes).map(|l| v[l].wrapping_add(if l % 16 >= 1 { v[l - 1] } else { 0 })).collect();
    let a2: Vec<u32> = (0..lanes).map(|l| a1[l].wrapping_add(if l % 16 >= 2 { a1[l - 2] } else { 0 })).collect();
    let sw: Vec<u32> = (0..lanes).map(|l| a2[l ^ 1]).collect();
    let bp: Vec<u32> = (0..lanes).map(|l| sw[l ^ 5]).collect();
    (0..lanes).map(|l| bp[l].wrapping_add(bp[7])).collect()
}

/// The meaning of gfx11_lanes.ll for one wave.
fn gfx11_model(lanes: usize, base: u32) -> Vec<u32> {
    let v: Vec<u32> = (0..lanes).map(|l| (base + l as u32) * 5 + 1).collect();
    let a: Vec<u32> = (0..lanes).map(|l| v[l / 16 * 16 + 15 - l % 16]).collect(); // reverse in row
    let b: Vec<u32> = (0..lanes).map(|l| a[l ^ 16]).collect(); // other row of the pair
    let c: Vec<u32> = (0..lanes).map(|l| if lanes == 64 { b[l ^ 32] } else { b[l] }).collect();
    let d: Vec<u32> = (0..lanes).map(|l| c[l ^ 1]).collect(); // dpp8 [1,0,3,2,5,4,7,6]
    let e: Vec<u32> = (0..lanes).map(|l| d[l ^ 1]).collect(); // row_xmask:1
    let f: Vec<u32> = (0..lanes).map(|l| e[l / 16 * 16 + 3]).collect(); // row_share:3
    (0..lanes).map(|l| f[l].wrapping_add(base + l as u32)).collect()
}

/// The meaning of gfx9_lanes.ll (one wave of 64).
fn gfx9_model() -> Vec<u32> {
    let v: Vec<u32> = (0..64).map(|l: u32| l * 7 + 3).collect();
    let a: Vec<u32> = (0..64).map(|l| if l == 0 { 100 } else { v[l - 1] }).collect();
    let b: Vec<u32> = (0..64).map(|l| if [1, 3].contains(&(l / 16)) { a[l / 16 * 16 - 1] } else { 0 }).collect();
    let c: Vec<u32> = (0..64).map(|l| if l >= 32 { b[31] } else { 0 }).collect();
    let d: Vec<u32> = (0..64).map(|l| v[(l + 1) % 64]).collect();
    (0..64)
        .map(|l| {
            a[l].wrapping_add(b[l].wrapping_mul(3))
                .wrapping_add(c[l].wrapping_mul(5))
                .wrapping_add(d[l].wrapping_mul(7))
        })
        .collect()
}

#[test]
fn llvm_compiled_kernels_run_clean_and_right() {
    if !tools_present() {
        eprintln!("skipping: llc-19 / ld.lld-19 not installed (scripts/test.sh installs them)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("qd-sim-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let scratch = Scratch(dir);
    for (t, attr) in configs() {
        // Cross-lane kernel: one workgroup of 64.
        let obj = build(&scratch.0, "crosslane.ll", t, attr);
        let program = Program::from_code_object(&obj, Some("crosslane")).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(program.setup.target, t);
        let mut mem = GlobalMemory::new();
        let out = mem.alloc(256, 256);
        let d = Dispatch { grid: [1, 1, 1], block: [64, 1, 1], kernarg: kernarg(out, 0, 0) };
        sim::run(&program, &d, &mut mem).unwrap_or_else(|e| panic!("{t} crosslane: {e}"));
        let lanes = t.wave.lanes() as usize;
        let want: Vec<u32> = (0..64 / lanes).flat_map(|w| crosslane_model(lanes, (w * lanes) as u32)).collect();
        assert_eq!(read_u32s(&mem, out, 64), want, "{t} crosslane");

        // Per-family cross-lane intrinsics.
        let (ll, name) = match t.arch {
            Arch::Gfx1100 => ("gfx11_lanes.ll", "gfx11_lanes"),
            Arch::Gfx90a | Arch::Gfx942 => ("gfx9_lanes.ll", "gfx9_lanes"),
        };
        let obj = build(&scratch.0, ll, t, attr);
        let program = Program::from_code_object(&obj, Some(name)).unwrap_or_else(|e| panic!("{t}: {e}"));
        let mut mem = GlobalMemory::new();
        let out = mem.alloc(256, 256);
        let d = Dispatch { grid: [1, 1, 1], block: [64, 1, 1], kernarg: kernarg(out, 0, 0) };
        sim::run(&program, &d, &mut mem).unwrap_or_else(|e| panic!("{t} {name}: {e}"));
        let want: Vec<u32> = match t.arch {
            Arch::Gfx1100 => (0..64 / lanes).flat_map(|w| gfx11_model(lanes, (w * lanes) as u32)).collect(),
            Arch::Gfx90a | Arch::Gfx942 => gfx9_model(),
        };
        assert_eq!(read_u32s(&mem, out, 64), want, "{t} {name}");

        // Transcendental chains (gfx942: s_nop before a non-trans use; gfx1100: depctr between).
        let obj = build(&scratch.0, "trans.ll", t, attr);
        let program = Program::from_code_object(&obj, Some("trans")).unwrap_or_else(|e| panic!("{t}: {e}"));
        let mut mem = GlobalMemory::new();
        let out = mem.alloc(256, 256);
        let d = Dispatch { grid: [1, 1, 1], block: [64, 1, 1], kernarg: kernarg(out, 0, 0) };
        sim::run(&program, &d, &mut mem).unwrap_or_else(|e| panic!("{t} trans: {e}"));
        let want: Vec<u32> = (1..=64u32)
            .map(|i| {
                // The simulator's correctly rounded steps: exp2/log2 of a small integer are exact.
                let x = i as f32;
                let r = 1.0 / x;
                let s = r.sqrt();
                let q = (1.0 / f64::from(s).sqrt()) as f32;
                (q * x) as u32
            })
            .collect();
        assert_eq!(read_u32s(&mem, out, 64), want, "{t} trans");

        // LDS exchange across waves, barrier, branch, global store: 3 workgroups of 128.
        let obj = build(&scratch.0, "exchange.ll", t, attr);
        let program = Program::from_code_object(&obj, Some("exchange")).unwrap_or_else(|e| panic!("{t}: {e}"));
        for n in [128, 50] {
            let mut mem = GlobalMemory::new();
            let out = mem.alloc(4 * 384, 256);
            let d = Dispatch { grid: [3, 1, 1], block: [128, 1, 1], kernarg: kernarg(out, n, 7) };
            let stats = sim::run(&program, &d, &mut mem).unwrap_or_else(|e| panic!("{t} exchange n={n}: {e}"));
            let got = read_u32s(&mem, out, 384);
            for gid in 0..384u32 {
                let tid = gid % 128;
                let want = if tid < n { (tid + 64) % 128 * 7 + 1000 } else { 0 };
                assert_eq!(got[gid as usize], want, "{t} exchange n={n} gid {gid}");
            }
            assert_eq!(stats.waves, 3 * 128 / t.wave.lanes() as u64);
        }
    }
}
