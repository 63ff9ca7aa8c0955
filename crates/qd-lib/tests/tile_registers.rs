//! Register tiles are registers: the tile kernels — one tile factorised (`cholesky_`), a factor
//! and a right-hand side (`cholesky_` then `solve_triangular_`, two tiles live), and the blocked
//! Cholesky of `examples/cholesky.rs` (n = 80) — for both sizes and both dtypes, compiled for
//! gfx942, gfx90a, gfx1100 (wave64 and wave32) must not spill to memory, and for sm_90 `ptxas -v`
//! must report no spill stores. Prints the register table `docs/tile.md` and
//! `docs/performance.md` quote (`cargo test -p qd-lib --test tile_registers -- --nocapture`).
//!
//! ptxas is found as `tests/tests/ptx.rs` finds it (`$QD_PTXAS`, else
//! `$QD_TOOLS_DIR/cu13/nvidia/cu13/bin/ptxas`, default `/opt/qd-tools`); without it the PTX half
//! says it is skipped, unless `QD_REQUIRE_PTXAS=1`.

#[allow(dead_code)]
#[path = "../examples/cholesky.rs"]
mod cholesky;

use qd_amdgcn_isa::{Arch, Target, WaveSize};
use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
use qd_isel_amdgcn::{compile_kernel as amdgcn, AmdgcnOptions};
use qd_isel_ptx::{compile_kernel as ptx, PtxOptions, Sm};
use qd_lib::tile::{Matrix, TileNxN};
use qd_mir::Function;
use std::path::PathBuf;
use std::process::Command;

/// `a` loaded into a tile, factorised, stored; with `solve`, `b` solved against it too.
fn tile_kernel<const N: usize>(width: u32, ty: ScalarType, solve: bool) -> Result<Function, BuildError> {
    let mut ctx = FunctionBuilderContext::new();
    let what = if solve { "cholesky_solve" } else { "cholesky" };
    let mut k = KernelBuilder::new(&mut ctx, &format!("tile{N}_{what}_{ty}"));
    k.set_subgroup_size(width)?;
    k.set_block_dim(width)?;
    let n = k.const_u32(N as u32)?;
    let z = k.const_u32(0)?;
    let a_buf = k.buffer("a", ty);
    let a = Matrix::global(&mut k, a_buf, &[n, n])?;
    let eps = if ty == ScalarType::F32 { k.const_f32(1e-6)? } else { k.const_f64(1e-6)? };
    let l = TileNxN::<N>::zeros(&mut k, ty)?;
    let r = a.at(&mut k, z..n, z..n)?;
    l.load(&mut k, &r)?;
    l.cholesky_(&mut k, eps)?;
    l.store(&mut k, &r)?;
    if solve {
        let b_buf = k.buffer("b", ty);
        let bm = Matrix::global(&mut k, b_buf, &[n, n])?;
        let bt = TileNxN::<N>::zeros(&mut k, ty)?;
        let rb = bm.at(&mut k, z..n, z..n)?;
        bt.load(&mut k, &rb)?;
        l.solve_triangular_(&mut k, &bt, true)?;
        bt.store(&mut k, &rb)?;
    }
    k.finish()
}

/// Every kernel of the table at `width`.
fn kernels(width: u32) -> Vec<Function> {
    let mut v = Vec::new();
    for ty in [ScalarType::F32, ScalarType::F64] {
        for solve in [false, true] {
            v.push(tile_kernel::<16>(width, ty, solve).expect("builds"));
            v.push(tile_kernel::<32>(width, ty, solve).expect("builds"));
        }
        v.push(cholesky::build::<16>(width, ty, 80, 4).expect("builds"));
        v.push(cholesky::build::<32>(width, ty, 80, 4).expect("builds"));
    }
    v
}

fn ptxas() -> Option<PathBuf> {
    let dir = std::env::var_os("QD_TOOLS_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/opt/qd-tools"));
    let p = std::env::var_os("QD_PTXAS").map(PathBuf::from).unwrap_or_else(|| dir.join("cu13/nvidia/cu13/bin/ptxas"));
    p.is_file().then_some(p)
}

/// `(registers, spill store bytes)` from `ptxas -v` output.
fn ptxas_usage(text: &str) -> Option<(u32, u32)> {
    let num_before = |s: &str, key: &str| -> Option<u32> {
        let i = s.find(key)?;
        s[..i].split_whitespace().last()?.parse().ok()
    };
    let regs = text.lines().find_map(|l| num_before(l, " registers"))?;
    let spills = text.lines().find_map(|l| num_before(l, " bytes spill stores"))?;
    Some((regs, spills))
}

#[test]
fn tile_kernels_do_not_spill() {
    let targets = [
        ("gfx942", Target::wave64(Arch::Gfx942)),
        ("gfx90a", Target::wave64(Arch::Gfx90a)),
        ("gfx1100", Target::wave64(Arch::Gfx1100)),
        ("gfx1100 w32", Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }),
    ];
    println!("| kernel | dtype | {} | sm_90 (ptxas -v) |", targets.map(|t| t.0).join(" | "));
    println!("|---|---|{}---|", "---|".repeat(targets.len()));
    let ptxas = ptxas();
    if ptxas.is_none() {
        let required = std::env::var("QD_REQUIRE_PTXAS").is_ok_and(|v| v == "1");
        assert!(!required, "QD_REQUIRE_PTXAS=1 but ptxas is not installed");
        eprintln!("SKIPPED the PTX column: ptxas not found");
    }
    let dir = std::env::temp_dir().join(format!("qd-tile-registers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let w64 = kernels(64);
    let w32 = kernels(32);
    for (i, f32k) in w32.iter().enumerate() {
        let mut row = Vec::new();
        for (name, t) in targets {
            let f = if t.wave == WaveSize::W32 { f32k } else { &w64[i] };
            let k = amdgcn(f, &AmdgcnOptions::new(t)).unwrap_or_else(|e| panic!("{name} @{}: {e}", f.name));
            assert_eq!(k.spill_bytes_per_lane, 0, "{name} @{}: spills to memory", f.name);
            row.push(format!("{} VGPRs", k.resources.next_free_vgpr));
        }
        let ptx_cell = match &ptxas {
            Some(p) => {
                let k = ptx(f32k, &PtxOptions::new(Sm::Sm90)).unwrap_or_else(|e| panic!("sm_90 @{}: {e}", f32k.name));
                let file = dir.join(format!("{}.ptx", f32k.name));
                std::fs::write(&file, &k.ptx).expect("write ptx");
                let out = Command::new(p)
                    .args(["-arch=sm_90", "-v", "-o", "/dev/null"])
                    .arg(&file)
                    .output()
                    .expect("ptxas runs");
                let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
                assert!(out.status.success(), "ptxas rejects @{}: {text}", f32k.name);
                let (regs, spills) = ptxas_usage(&text).unwrap_or_else(|| panic!("no usage line in {text}"));
                assert_eq!(spills, 0, "sm_90 @{}: {spills} bytes of spill stores", f32k.name);
                format!("{regs} registers")
            }
            None => "(no ptxas)".into(),
        };
        let ty = if f32k.name.contains("f64") { "f64" } else { "f32" };
        println!("| `{}` | {ty} | {} | {ptx_cell} |", f32k.name, row.join(" | "));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
