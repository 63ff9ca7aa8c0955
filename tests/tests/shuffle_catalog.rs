//! The shuffle lowering catalog a reviewer reads: for a sample of every pattern family (xor with
//! the tile's butterfly partner, reverse, down/up by 1 and by half the tile, rotate by 1,
//! broadcast of the last lane) in every tile size, on gfx942, gfx90a, gfx1100 wave64 and wave32,
//! the sequence the selector chooses — as priced, with placeholder registers — under a header
//! with the pattern, the candidate's name and family, its estimated cycles, instructions and LDS
//! operations, and the `ds_bpermute` baseline's cycles; then the other candidates' costs.
//!
//! One insta snapshot per (pattern, target) in `tests/tests/snapshots/shuffle_catalog/`. The
//! sequences' exactness is proved in the simulator by `qd-isel-amdgcn`'s `select_shuffle` test;
//! these snapshots are the human-readable record of what is chosen and what it costs. Review new
//! and changed ones with `cargo insta review` after reading them; never commit `.snap.new`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Target, WaveSize};

fn targets() -> [(Target, &'static str); 4] {
    [
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx90a), "gfx90a"),
        (Target::wave64(Arch::Gfx1100), "gfx1100-w64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100-w32"),
    ]
}

/// A sampled pattern: its snapshot name and the MIR computing `%r` from `%x` (lane id in `%l`).
struct Sample {
    name: String,
    body: String,
}

fn sample(name: String, body: String) -> Sample {
    Sample { name, body }
}

/// `%r = shuffle.idx %x, %i` with `%i` = `expr` over the lane id.
fn idx(name: String, expr: &str) -> Sample {
    sample(name, format!("{expr}  %r = shuffle.idx %x, %i : u32\n"))
}

fn samples(w: u32) -> Vec<Sample> {
    let mut v = Vec::new();
    for t in (1..=6).map(|k| 1u32 << k).filter(|&t| t <= w) {
        let (tm, nb) = (t - 1, !(t - 1));
        v.push(sample(
            format!("xor_{}", t / 2),
            format!("  %m = const {} : u32\n  %r = shuffle.xor %x, %m : u32\n", t / 2),
        ));
        if t >= 4 {
            v.push(sample(
                format!("reverse_in_{t}"),
                format!("  %m = const {tm} : u32\n  %r = shuffle.xor %x, %m : u32\n"),
            ));
        }
        let mut deltas = vec![1];
        if t >= 8 {
            deltas.push(t / 2);
        }
        for d in deltas {
            v.push(idx(
                format!("down_{d}_in_{t}"),
                &format!(
                    "  %tm = const {tm} : u32\n  %d = const {d} : u32\n  %t = const {t} : u32\n  %lt = and %l, %tm : u32\n  %s = add %lt, %d : u32\n  %ok = cmp lt %s, %t : bool\n  %ld = add %l, %d : u32\n  %i = select %ok, %ld, %l : u32\n"
                ),
            ));
            if d == 1 {
                v.push(idx(
                    format!("up_{d}_in_{t}"),
                    &format!(
                        "  %tm = const {tm} : u32\n  %d = const {d} : u32\n  %lt = and %l, %tm : u32\n  %ok = cmp ge %lt, %d : bool\n  %ld = sub %l, %d : u32\n  %i = select %ok, %ld, %l : u32\n"
                    ),
                ));
            }
        }
        if t >= 4 {
            v.push(idx(
                format!("rotate_1_in_{t}"),
                &format!(
                    "  %tm = const {tm} : u32\n  %nb = const {nb} : u32\n  %d = const 1 : u32\n  %b = and %l, %nb : u32\n  %s = add %l, %d : u32\n  %u = and %s, %tm : u32\n  %i = or %b, %u : u32\n"
                ),
            ));
        }
        v.push(idx(
            format!("broadcast_{tm}_in_{t}"),
            &format!(
                "  %nb = const {nb} : u32\n  %j = const {tm} : u32\n  %b = and %l, %nb : u32\n  %i = or %b, %j : u32\n"
            ),
        ));
    }
    v.push(sample("xor_5".into(), "  %m = const 5 : u32\n  %r = shuffle.xor %x, %m : u32\n".into()));
    v.push(idx(
        "broadcast_5_in_16".into(),
        "  %nb = const 4294967280 : u32\n  %j = const 5 : u32\n  %b = and %l, %nb : u32\n  %i = or %b, %j : u32\n",
    ));
    v
}

fn kernel_text(body: &str, w: u32) -> String {
    format!(
        "kernel @k(%a: ptr<global, u32>, %o: ptr<global, u32>) block({w}, 1, 1) grid(1, 1, 1) {{\n  %tid = thread_id x : u32\n  %pa = ptr.offset %a, %tid : ptr<global, u32>\n  %x = load %pa : u32\n  %l = lane_id : u32\n{body}  %po = ptr.offset %o, %tid : ptr<global, u32>\n  store %po, %r\n  return\n}}\n"
    )
}

fn snapshot_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/shuffle_catalog")
}

#[test]
fn shuffle_catalog_snapshots() {
    let mut names = BTreeSet::new();
    let mut mismatches = Vec::new();
    for (t, label) in targets() {
        for s in samples(t.wave.lanes()) {
            let src = kernel_text(&s.body, t.wave.lanes());
            let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, "catalog.qdm")));
            let k = compile_kernel(&m.kernels[0], &AmdgcnOptions::new(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert_eq!(k.choices.len(), 1, "{}", s.name);
            let c = &k.choices[0];
            let ch = &c.candidates[c.chosen];
            let base = c.candidates.iter().find(|x| x.name.starts_with("bpermute")).expect("the bpermute baseline");
            let mut text = format!(
                "; {} on {t}: `{}` ({}): {} cycles, {} insts, {} LDS ops; bpermute baseline: {} cycles\n",
                c.pattern, ch.name, ch.family, ch.cost.cycles, ch.cost.insts, ch.cost.lds_ops, base.cost.cycles
            );
            for l in ch.listing.lines() {
                let _ = writeln!(text, "  {l}");
            }
            for (i, o) in c.candidates.iter().enumerate().filter(|&(i, _)| i != c.chosen) {
                let _ = writeln!(
                    text,
                    "; candidate {i}: `{}` ({}): {} cycles, {} insts, {} LDS ops",
                    o.name, o.family, o.cost.cycles, o.cost.insts, o.cost.lds_ops
                );
            }
            if !c.note.is_empty() {
                let _ = writeln!(text, "; note: {}", c.note);
            }
            let name = format!("{}@{label}", s.name);
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(snapshot_dir());
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.set_description(format!("{} on {t}", c.pattern));
            let checked = catch_unwind(AssertUnwindSafe(|| {
                settings.bind(|| insta::assert_snapshot!(name.clone(), text));
            }));
            if checked.is_err() {
                mismatches.push(name.clone());
            }
            names.insert(name);
        }
    }
    let stale: Vec<String> = std::fs::read_dir(snapshot_dir())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".snap").map(str::to_string))
        .filter(|n| !names.contains(n))
        .collect();
    assert!(mismatches.is_empty(), "{} catalog snapshot(s) differ or are new: {mismatches:#?}", mismatches.len());
    assert!(stale.is_empty(), "stale catalog snapshots: {stale:#?}");
}
