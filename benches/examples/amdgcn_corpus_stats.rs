//! Compiles every kernel of the `.qdm` files in the given directories (default: the filetest
//! corpus, `tests/filetests/interp` and `tests/filetests/opt`) for gfx942, gfx90a, gfx1100 wave64
//! and gfx1100 wave32, and prints one line per kernel and target: instructions, code bytes, VGPRs
//! and SGPRs (as written into the descriptor, and granulated as the hardware allocates them),
//! spill bytes per lane, and a digest of the code object — then the totals per target. The
//! register-count figures of `docs/performance.md` ("AMDGCN back end (issue #4)") come from it,
//! and comparing the digests of two builds shows whether a change altered any emitted code.
//!
//! `cargo run --release -p qd-benches --example amdgcn_corpus_stats -- [DIR ...]`

use std::path::{Path, PathBuf};

use qd_amdgcn_isa::code_object::{descriptor, FeatureSetting};
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Family, Target, WaveSize};

fn targets() -> [(Target, &'static str); 4] {
    [
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx90a), "gfx90a"),
        (Target::wave64(Arch::Gfx1100), "gfx1100w64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100w32"),
    ]
}

/// VGPRs the hardware allocates for `n` (the descriptor's granulated count × the granule).
fn granulated_vgprs(n: u32, target: Target) -> u32 {
    (descriptor::granulated_vgpr_count(target, n) + 1) * descriptor::vgpr_granule(target)
}

/// SGPRs the hardware allocates for `n` on GFX9 (with the extras LLVM adds for VCC, flat scratch
/// and the xnack mask, as the code object's config has them); GFX11 allocates a fixed file, so
/// the raw count is shown.
fn granulated_sgprs(n: u32, target: Target) -> u32 {
    match target.family() {
        Family::Gfx9 => {
            let extras = descriptor::sgpr_extras(target.arch, true, FeatureSetting::Any, false);
            (descriptor::granulated_sgpr_count(target.arch, n + extras) + 1) * 8
        }
        Family::Gfx11 => n,
    }
}

/// 64-bit FNV-1a.
fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn qdm_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            eprintln!("cannot read {}", d.display());
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "qdm") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests");
    let dirs = if args.is_empty() { vec![root.join("interp"), root.join("opt")] } else { args };
    let mut totals = [(0u32, 0u64, 0u64, 0u64, 0u64, 0u32); 4];
    for path in qdm_files(&dirs) {
        let src = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        let Ok(m) = qd_mir::parse_module(&src) else { continue };
        let file = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for f in &m.kernels {
            for (k, (t, label)) in targets().into_iter().enumerate() {
                match compile_kernel(f, &AmdgcnOptions::new(t)) {
                    Ok(c) => {
                        let (v, s) = (c.resources.next_free_vgpr, c.resources.next_free_sgpr);
                        println!(
                            "{file} @{} {label}: {} insts, {} bytes, {v} vgprs ({} granulated), {s} sgprs ({} granulated), \
                             {} spill bytes, {:016x}",
                            f.name,
                            c.insts.len(),
                            c.code.len(),
                            granulated_vgprs(v, t),
                            granulated_sgprs(s, t),
                            c.spill_bytes_per_lane,
                            digest(&c.code_object)
                        );
                        let tot = &mut totals[k];
                        tot.0 += 1;
                        tot.1 += u64::from(v);
                        tot.2 += u64::from(granulated_vgprs(v, t));
                        tot.3 += u64::from(s);
                        tot.4 += c.insts.len() as u64;
                        tot.5 += u32::from(c.spill_bytes_per_lane > 0);
                    }
                    Err(e) => println!("{file} @{} {label}: error: {e}", f.name),
                }
            }
        }
    }
    for (k, (_, label)) in targets().into_iter().enumerate() {
        let (n, v, vg, s, insts, spills) = totals[k];
        let n64 = u64::from(n.max(1));
        println!(
            "total {label}: {n} kernels, mean {:.1} vgprs ({:.1} granulated), mean {:.1} sgprs, {insts} instructions, \
             {spills} kernels spill",
            v as f64 / n64 as f64,
            vg as f64 / n64 as f64,
            s as f64 / n64 as f64
        );
    }
}
