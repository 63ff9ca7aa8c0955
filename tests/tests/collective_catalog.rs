//! The collective lowering catalog a reviewer reads: for u32 add/min/and and f32 add — reduce,
//! inclusive scan, exclusive scan, segmented reduce (where the op applies) — at every tile size
//! k = 1..log2(W) on gfx942, gfx1100 wave64 and gfx1100 wave32, the sequence the selector chose,
//! after a header line with the op, type, candidate, family, estimated cycles, instructions, LDS
//! operations and the bpermute ladder's cycles for the same op. One snapshot per (target, op,
//! kind) holding every k, in `tests/tests/snapshots/collective_catalog/`; plus `ratios`, the
//! chosen-vs-bpermute-ladder estimate for every operator and type over the whole wave.
//!
//! Every number comes from `CompiledKernel::choices` (the selector's own `select::estimate`);
//! the semantic proof of every listed sequence is `qd-isel-amdgcn/tests/select_collective.rs`.

use std::fmt::Write as _;

use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Choice, Target, WaveSize};

fn targets() -> [(Target, &'static str); 3] {
    [
        (Target::wave64(Arch::Gfx942), "gfx942"),
        (Target::wave64(Arch::Gfx1100), "gfx1100-w64"),
        (Target { arch: Arch::Gfx1100, wave: WaveSize::W32 }, "gfx1100-w32"),
    ]
}

/// The choice for one collective (`op` is the MIR op text without result, on `%x : ty`).
fn choice(t: Target, ty: &str, op: &str) -> Choice {
    let src = format!(
        "kernel @k(%a: ptr<global, {ty}>, %h: ptr<global, u32>, %o: ptr<global, {ty}>) block(64, 1, 1) grid(1, 1, 1) {{
  %t = thread_id x : u32
  %pa = ptr.offset %a, %t : ptr<global, {ty}>
  %x = load %pa : {ty}
  %ph = ptr.offset %h, %t : ptr<global, u32>
  %hv = load %ph : u32
  %r = {op}
  %po = ptr.offset %o, %t : ptr<global, {ty}>
  store %po, %r
  return
}}
"
    );
    let m = qd_mir::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, "catalog.qdm")));
    let f = m.kernels.into_iter().next().expect("a kernel");
    let k = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
    k.choices.into_iter().next().expect("one choice")
}

fn op_text(kind: &str, op: &str, k: u32, ty: &str) -> String {
    match kind {
        "reduce" => format!("subgroup.reduce {op} tile({k}) %x : {ty}"),
        "inclusive" | "exclusive" => format!("subgroup.scan {kind} {op} tile({k}) %x : {ty}"),
        _ => format!("subgroup.segreduce {op} tile({k}) %x, %hv : {ty}"),
    }
}

/// The header line and listing of a choice.
fn entry(c: &Choice) -> String {
    let ch = &c.candidates[c.chosen];
    let base = c.candidates.iter().find(|x| x.name == "bpermute ladder").expect("the baseline");
    let mut s = format!(
        "; {} ({}) [{}]: `{}` family {}, {} cycles, {} insts, {} LDS ops; bpermute ladder {} cycles ({:.1}x)\n",
        c.op,
        c.ty,
        c.pattern,
        ch.name,
        ch.family,
        ch.cost.cycles,
        ch.cost.insts,
        ch.cost.lds_ops,
        base.cost.cycles,
        f64::from(base.cost.cycles) / f64::from(ch.cost.cycles.max(1)),
    );
    for l in ch.listing.lines() {
        let _ = writeln!(s, "  {l}");
    }
    s
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots/collective_catalog");
    s.set_prepend_module_to_snapshot(false);
    s
}

#[test]
fn catalog() {
    let set: [(&str, &str, &[&str]); 4] = [
        ("u32", "add", &["reduce", "inclusive", "exclusive", "segmented"]),
        ("u32", "min", &["reduce", "inclusive", "exclusive", "segmented"]),
        ("u32", "and", &["reduce", "inclusive", "exclusive"]),
        ("f32", "add", &["reduce", "inclusive", "exclusive", "segmented"]),
    ];
    settings().bind(|| {
        for (t, tn) in targets() {
            let kmax = t.wave.lanes().trailing_zeros();
            for (ty, op, kinds) in set {
                for kind in kinds {
                    let mut text = String::new();
                    for k in 1..=kmax {
                        text.push_str(&entry(&choice(t, ty, &op_text(kind, op, k, ty))));
                    }
                    insta::assert_snapshot!(format!("{tn}__{kind}_{op}_{ty}"), text);
                }
            }
        }
    });
}

/// Chosen vs bpermute-ladder cycles for every operator and type over the whole wave.
#[test]
fn ratios() {
    let types: [(&str, &[&str]); 7] = [
        ("u32", &["add", "mul", "min", "max", "and", "or", "xor"]),
        ("i32", &["add", "mul", "min", "max", "and", "or", "xor"]),
        ("u64", &["add", "mul", "min", "max", "and", "or", "xor"]),
        ("i64", &["add", "mul", "min", "max", "and", "or", "xor"]),
        ("f32", &["add", "mul", "min", "max"]),
        ("f64", &["add", "mul", "min", "max"]),
        ("bool", &["min", "max", "and", "or", "xor"]),
    ];
    let mut text = String::new();
    for (t, tn) in targets() {
        let k = t.wave.lanes().trailing_zeros();
        for (ty, ops) in types {
            for op in ops {
                for kind in ["reduce", "inclusive", "exclusive", "segmented"] {
                    if kind == "segmented" && !matches!(*op, "add" | "min" | "max") {
                        continue;
                    }
                    let c = choice(t, ty, &op_text(kind, op, k, ty));
                    let ch = &c.candidates[c.chosen];
                    let base = c.candidates.iter().find(|x| x.name == "bpermute ladder").expect("baseline");
                    let _ = writeln!(
                        text,
                        "{tn:12} {kind:10} {op:4} {ty:5} k={k}: {:>5} vs {:>5} cycles ({:>4.1}x), {} LDS ops, `{}`",
                        ch.cost.cycles,
                        base.cost.cycles,
                        f64::from(base.cost.cycles) / f64::from(ch.cost.cycles.max(1)),
                        ch.cost.lds_ops,
                        ch.name
                    );
                }
            }
        }
    }
    settings().bind(|| insta::assert_snapshot!("ratios", text));
}
