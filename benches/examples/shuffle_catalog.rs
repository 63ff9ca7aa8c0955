//! The lowering catalog of docs/shuffle-lowering.md: for every subgroup op × tile size T = 2^k
//! (k = 1..6, 1..5 in wave32) × target (gfx942, gfx1100 wave64, gfx1100 wave32), builds a tiny
//! MIR kernel holding that one op, compiles it with `qd_isel_amdgcn::compile_kernel`, reads the
//! shuffle selector's [`Choice`] for the op from `CompiledKernel::choices`, and prints the
//! markdown table the doc pastes: the chosen sequence, its instructions and estimated cycles, the
//! bpermute-only baseline's instructions and cycles, the speed-up, the chosen sequence's
//! `ds_bpermute` count, and what `llc-19 -O2` emits for the same op written as Quadrants writes it
//! (instructions, `ds_bpermute`s; read from `benches/llvm/shuffle/llc19_counts.tsv`, made by
//! `benches/llvm/shuffle/llc19.py`). A summary after the tables checks the issue's targets: no
//! `ds_bpermute` where a register-only candidate exists, and the wave64 reduce/scan speed-ups.
//!
//! The ops: shuffles within tiles of T (xor T/2, down 1, up 1, broadcast of tile lane 0, rotate 1,
//! reverse), written as Quadrants writes them (`shuffle.xor` with a constant; `shuffle.idx` with
//! the lane expression; `broadcast` of lane 0 when the tile is the whole wave); reduce, inclusive
//! scan, exclusive scan and segmented reduce on u32 add; reduce and inclusive scan on f32 add and
//! u32 min, and, xor, mul. Blocks are 128 work-items, so EXEC is full at every op.
//!
//! `cargo run -p qd-benches --example shuffle_catalog` prints the section;
//! `… -- --write-doc` replaces it in docs/shuffle-lowering.md between the
//! `<!-- BEGIN shuffle_catalog -->` and `<!-- END shuffle_catalog -->` lines, and replaces the
//! `<!-- BEGIN explain_example -->` … `<!-- END explain_example -->` section with what
//! `qdc explain docs/examples/explain_shuffles.qdm --target gfx942` and `--target gfx1100` print
//! (rendered by the same `qdc::explain::text`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, Arch, Candidate, Choice, ShuffleLowering, Target, WaveSize};

/// One target: qd's target, the heading, and the `target`/`wave` keys of the llc-19 table.
struct Tgt {
    target: Target,
    title: &'static str,
    llc: (&'static str, u32),
}

fn targets() -> [Tgt; 3] {
    [
        Tgt { target: Target::wave64(Arch::Gfx942), title: "gfx942 (wave64)", llc: ("gfx942", 64) },
        Tgt { target: Target::wave64(Arch::Gfx1100), title: "gfx1100 (wave64)", llc: ("gfx1100", 64) },
        Tgt {
            target: Target { arch: Arch::Gfx1100, wave: WaveSize::W32 },
            title: "gfx1100 (wave32)",
            llc: ("gfx1100", 32),
        },
    ]
}

/// One catalog row kind.
#[derive(Clone, Copy)]
enum Op {
    /// A shuffle within tiles: `xor`, `down`, `up`, `broadcast`, `rotate`, `reverse`.
    Shuffle(&'static str),
    /// `subgroup.reduce OP`, `subgroup.scan inclusive/exclusive OP`, `subgroup.segreduce OP`.
    Collective { kind: &'static str, op: &'static str, ty: &'static str },
}

impl Op {
    /// The row's name in the table and its key in the llc-19 table (`op`, `type`).
    fn names(self) -> (String, &'static str, String) {
        match self {
            Op::Shuffle(s) => {
                let shown = match s {
                    "xor" => "shuffle xor T/2",
                    "down" => "shuffle down 1",
                    "up" => "shuffle up 1",
                    "broadcast" => "broadcast tile lane 0",
                    "rotate" => "rotate 1",
                    _ => "reverse",
                };
                (shown.to_string(), s, "-".to_string())
            }
            Op::Collective { kind, op, ty } => {
                let llc = match kind {
                    "reduce" => "reduce",
                    "inclusive" => "scan_incl",
                    "exclusive" => "scan_excl",
                    _ => "segreduce",
                };
                let shown = match kind {
                    "reduce" => format!("reduce {op} {ty}"),
                    "segreduce" => format!("segreduce {op} {ty}"),
                    scan => format!("{scan} scan {op} {ty}"),
                };
                (shown, llc, format!("{op}.{ty}"))
            }
        }
    }

    /// The prefix of `Choice::op` that identifies this op's choice in a kernel.
    fn choice_prefix(self, k: u32, lanes: u32) -> &'static str {
        match self {
            Op::Shuffle("broadcast") if 1 << k == lanes => "broadcast",
            Op::Shuffle(_) => "shuffle",
            Op::Collective { kind: "reduce", .. } => "subgroup.reduce",
            Op::Collective { kind: "segreduce", .. } => "subgroup.segreduce",
            Op::Collective { .. } => "subgroup.scan",
        }
    }
}

/// The catalog's rows, in table order.
fn ops() -> Vec<Op> {
    let mut v: Vec<Op> = ["xor", "down", "up", "broadcast", "rotate", "reverse"].into_iter().map(Op::Shuffle).collect();
    for kind in ["reduce", "inclusive", "exclusive", "segreduce"] {
        v.push(Op::Collective { kind, op: "add", ty: "u32" });
    }
    for (op, ty) in [("add", "f32"), ("min", "u32"), ("and", "u32"), ("xor", "u32"), ("mul", "u32")] {
        v.push(Op::Collective { kind: "reduce", op, ty });
        v.push(Op::Collective { kind: "inclusive", op, ty });
    }
    v
}

/// A `.qdm` kernel under construction.
struct Qdm {
    body: String,
    n: u32,
}

impl Qdm {
    fn v(&mut self, rhs: &str) -> String {
        let name = format!("%{}", self.n);
        self.n += 1;
        let _ = writeln!(self.body, "  {name} = {rhs}");
        name
    }
}

/// The one-op kernel of `op` at tile 2^k on a `lanes`-wide wave.
fn kernel(op: Op, k: u32, lanes: u32) -> String {
    let t = 1u32 << k;
    let m = t - 1;
    let ty = match op {
        Op::Collective { ty, .. } => ty,
        Op::Shuffle(_) => "u32",
    };
    let mut q = Qdm { body: String::new(), n: 0 };
    let tid = q.v("thread_id x : u32");
    let lane = q.v("lane_id : u32");
    let p = q.v(&format!("ptr.offset %src, {tid} : ptr<global, {ty}>"));
    let x = q.v(&format!("load {p} : {ty}"));
    let tile = if t == lanes { String::new() } else { format!("tile({k}) ") };
    let r = match op {
        Op::Shuffle(s) => {
            let c = |q: &mut Qdm, n: u32| q.v(&format!("const {n} : u32"));
            match s {
                "xor" | "reverse" => {
                    let mask = c(&mut q, if s == "xor" { t / 2 } else { m });
                    q.v(&format!("shuffle.xor {x}, {mask} : u32"))
                }
                "broadcast" if t == lanes => {
                    let zero = c(&mut q, 0);
                    q.v(&format!("broadcast {x}, {zero} : u32"))
                }
                _ => {
                    let idx = match s {
                        "down" => {
                            let (cm, one, ct) = (c(&mut q, m), c(&mut q, 1), c(&mut q, t));
                            let lig = q.v(&format!("and {lane}, {cm} : u32"));
                            let nxt = q.v(&format!("add {lig}, {one} : u32"));
                            let ok = q.v(&format!("cmp lt {nxt}, {ct} : bool"));
                            let up = q.v(&format!("add {lane}, {one} : u32"));
                            q.v(&format!("select {ok}, {up}, {lane} : u32"))
                        }
                        "up" => {
                            let (cm, one) = (c(&mut q, m), c(&mut q, 1));
                            let lig = q.v(&format!("and {lane}, {cm} : u32"));
                            let ok = q.v(&format!("cmp ge {lig}, {one} : bool"));
                            let dn = q.v(&format!("sub {lane}, {one} : u32"));
                            q.v(&format!("select {ok}, {dn}, {lane} : u32"))
                        }
                        "broadcast" => {
                            let hi = c(&mut q, !m);
                            q.v(&format!("and {lane}, {hi} : u32"))
                        }
                        _ => {
                            let (hi, cm, one) = (c(&mut q, !m), c(&mut q, m), c(&mut q, 1));
                            let base = q.v(&format!("and {lane}, {hi} : u32"));
                            let nxt = q.v(&format!("add {lane}, {one} : u32"));
                            let wrapped = q.v(&format!("and {nxt}, {cm} : u32"));
                            q.v(&format!("or {base}, {wrapped} : u32"))
                        }
                    };
                    q.v(&format!("shuffle.idx {x}, {idx} : u32"))
                }
            }
        }
        Op::Collective { kind: "reduce", op, ty } => q.v(&format!("subgroup.reduce {op} {tile}{x} : {ty}")),
        Op::Collective { kind: "segreduce", op, ty } => {
            let hp = q.v(&format!("ptr.offset %heads, {tid} : ptr<global, u32>"));
            let h = q.v(&format!("load {hp} : u32"));
            q.v(&format!("subgroup.segreduce {op} {tile}{x}, {h} : {ty}"))
        }
        Op::Collective { kind, op, ty } => q.v(&format!("subgroup.scan {kind} {op} {tile}{x} : {ty}")),
    };
    let d = q.v(&format!("ptr.offset %dst, {tid} : ptr<global, {ty}>"));
    format!(
        "kernel @row(%src: ptr<global, {ty}>, %heads: ptr<global, u32>, %dst: ptr<global, {ty}>) block(128, 1, 1) \
         grid(1, 1, 1) {{\n{}  store {d}, {r}\n  return\n}}\n",
        q.body
    )
}

/// Checks that a shuffle row's kernel moves exactly the lanes its name says (the lane analysis's
/// source table against the definition), so the table cannot mislabel a row.
fn check_sources(f: &qd_mir::Function, op: Op, k: u32, lanes: u32) -> Result<(), String> {
    let Op::Shuffle(s) = op else { return Ok(()) };
    let (t, m) = (1u32 << k, (1u32 << k) - 1);
    let want: Vec<u8> = (0..lanes)
        .map(|l| match s {
            "xor" => l ^ (t / 2),
            "reverse" => l ^ m,
            "down" => {
                if (l & m) + 1 < t {
                    l + 1
                } else {
                    l
                }
            }
            "up" => {
                if l & m >= 1 {
                    l - 1
                } else {
                    l
                }
            }
            "broadcast" => l & !m,
            _ => (l & !m) | ((l + 1) & m),
        } as u8)
        .collect();
    let inst = f
        .insts
        .keys()
        .find(|&i| matches!(f.insts[i].opcode.name(), "shuffle.idx" | "shuffle.xor" | "broadcast"))
        .ok_or("no shuffle in the row's kernel")?;
    match qd_mir::analysis::lanes::shuffle_sources(f, inst, lanes) {
        Some(got) if got == want => Ok(()),
        got => Err(format!("{s} T={t}: source lanes {got:?}, want {want:?}")),
    }
}

/// llc-19's (instructions, ds_bpermute) by (target, wave, op, type, k).
type Llc = HashMap<(String, u32, String, String, u32), (u32, u32)>;

fn read_llc() -> Result<Llc, String> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "llvm", "shuffle", "llc19_counts.tsv"].iter().collect();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut m = Llc::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.starts_with("target\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<u32>().ok()).ok_or_else(|| format!("bad line: {line}"));
        m.insert((f[0].to_string(), num(1)?, f[2].to_string(), f[3].to_string(), num(4)?), (num(5)?, num(6)?));
    }
    Ok(m)
}

/// `ds_bpermute` instructions in a candidate's listing.
fn bpermutes(c: &Candidate) -> usize {
    c.listing.lines().iter().filter(|l| l.trim_start().starts_with("ds_bpermute")).count()
}

/// The baseline among a choice's candidates (the contract's names, else the bpermute family).
fn baseline(c: &Choice) -> Option<&Candidate> {
    c.candidates
        .iter()
        .find(|k| matches!(k.name.as_str(), "bpermute" | "bpermute halves" | "bpermute ladder"))
        .or_else(|| c.candidates.iter().find(|k| k.family == ShuffleLowering::Bpermute))
}

/// One table row's facts.
struct Row {
    name: String,
    /// A reduction or scan (not a shuffle).
    coll: bool,
    k: u32,
    choice: Option<Choice>,
    llc: Option<(u32, u32)>,
}

/// Compiles every row for `t`.
fn rows(t: &Tgt, llc: &Llc) -> Result<Vec<Row>, String> {
    let lanes = t.target.wave.lanes();
    let kmax = lanes.trailing_zeros();
    let mut out = Vec::new();
    for op in ops() {
        for k in 1..=kmax {
            let src = kernel(op, k, lanes);
            let m = qd_mir::parse_module(&src).map_err(|e| format!("{}\n{src}", e.render(&src, "row.qdm")))?;
            qd_mir::verify::verify_module(&m).map_err(|_| format!("does not verify:\n{src}"))?;
            check_sources(&m.kernels[0], op, k, lanes).map_err(|e| format!("{e}\n{src}"))?;
            let compiled = compile_kernel(&m.kernels[0], &AmdgcnOptions::new(t.target))
                .map_err(|e| format!("{}: {e}\n{src}", t.title))?;
            let prefix = op.choice_prefix(k, lanes);
            let choice = compiled.choices.into_iter().find(|c| c.op.starts_with(prefix));
            let (name, llc_op, llc_ty) = op.names();
            let key = (t.llc.0.to_string(), t.llc.1, llc_op.to_string(), llc_ty, k);
            out.push(Row { name, coll: matches!(op, Op::Collective { .. }), k, choice, llc: llc.get(&key).copied() });
        }
    }
    Ok(out)
}

fn cell(s: &str) -> String {
    format!("`{}`", s.replace('|', "\\|"))
}

/// The markdown section (tables and summary).
fn catalog() -> Result<String, String> {
    let llc = read_llc()?;
    let mut s = String::new();
    let mut summary = Vec::new();
    for t in targets() {
        let rows = rows(&t, &llc)?;
        let _ = writeln!(s, "#### {}\n", t.title);
        s.push_str(
            "| op | T | chosen sequence | insts | est. cycles | bpermute insts | bpermute cycles | speed-up | \
             ds_bpermute | llc-19 insts | llc-19 ds_bpermute |\n",
        );
        s.push_str("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        let (mut recorded, mut needless_bpermute) = (0, Vec::new());
        let mut worst_coll: Option<(f64, String)> = None;
        for r in &rows {
            let llc_cells =
                r.llc.map_or(("—".to_string(), "—".to_string()), |(i, b)| (i.to_string(), b.to_string()));
            let Some(c) = &r.choice else {
                let _ = writeln!(
                    s,
                    "| {} | {} | — (no choice recorded) | — | — | — | — | — | — | {} | {} |",
                    r.name,
                    1 << r.k,
                    llc_cells.0,
                    llc_cells.1
                );
                continue;
            };
            recorded += 1;
            let chosen = &c.candidates[c.chosen];
            let base = baseline(c);
            let ratio = base
                .filter(|_| chosen.cost.cycles > 0)
                .map(|b| f64::from(b.cost.cycles) / f64::from(chosen.cost.cycles));
            if bpermutes(chosen) > 0 && c.candidates.iter().any(|k| bpermutes(k) == 0) {
                needless_bpermute.push(format!("{} T={}", r.name, 1 << r.k));
            }
            if r.coll && r.k == 6 {
                if let Some(x) = ratio {
                    if worst_coll.as_ref().is_none_or(|(w, _)| x < *w) {
                        worst_coll = Some((x, r.name.clone()));
                    }
                }
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.name,
                1 << r.k,
                cell(&chosen.name),
                chosen.cost.insts,
                chosen.cost.cycles,
                base.map_or("—".to_string(), |b| b.cost.insts.to_string()),
                base.map_or("—".to_string(), |b| b.cost.cycles.to_string()),
                ratio.map_or("—".to_string(), |x| format!("{x:.2}x")),
                bpermutes(chosen),
                llc_cells.0,
                llc_cells.1
            );
        }
        s.push('\n');
        let mut line = format!("- {}: {recorded} of {} rows recorded a choice", t.title, rows.len());
        if recorded > 0 {
            if needless_bpermute.is_empty() {
                line.push_str("; no chosen sequence uses ds_bpermute where a register-only candidate exists");
            } else {
                let _ = write!(
                    line,
                    "; ds_bpermute chosen although a register-only candidate exists: {}",
                    needless_bpermute.join(", ")
                );
            }
            if let Some((x, name)) = worst_coll {
                let _ = write!(line, "; smallest T=64 reduce/scan speed-up over the bpermute ladder: {x:.2}x ({name})");
            }
        }
        summary.push(line);
    }
    s.push_str(
        "Summary (targets: 0 ds_bpermute wherever a register-only sequence exists; wave64 reduce/scan at least 4x the \
                bpermute ladder on gfx942 and 8x on gfx1100):\n\n",
    );
    for l in summary {
        s.push_str(&l);
        s.push('\n');
    }
    Ok(s)
}

/// What `qdc explain docs/examples/explain_shuffles.qdm --target T` prints for gfx942 and
/// gfx1100 wave64, as shell sessions in markdown.
fn explain_example() -> Result<String, String> {
    let file = "docs/examples/explain_shuffles.qdm";
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", file].iter().collect();
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (m, map) = qd_mir::parse_module_with_map(&src).map_err(|e| e.render(&src, file))?;
    let mut s = String::new();
    for (flag, target) in [("gfx942", Target::wave64(Arch::Gfx942)), ("gfx1100", Target::wave64(Arch::Gfx1100))] {
        let k = compile_kernel(&m.kernels[0], &AmdgcnOptions::new(target)).map_err(|e| format!("{flag}: {e}"))?;
        let report = qdc::explain::kernel_report(&k, &src, |i| map.line_of(0, qd_mir::AnyEntity::Inst(i)));
        let h = qdc::explain::Header { file, target, lowering: ShuffleLowering::Auto };
        let _ =
            write!(s, "```text\n$ qdc explain {file} --target {flag}\n{}```\n\n", qdc::explain::text(&h, &[report]));
    }
    Ok(s)
}

/// Replaces the lines between `<!-- BEGIN name -->` and `<!-- END name -->` of `doc` with `body`.
fn splice(doc: &str, name: &str, body: &str) -> Result<String, String> {
    let (begin, end) = (format!("<!-- BEGIN {name} -->"), format!("<!-- END {name} -->"));
    let (Some(b), Some(e)) = (doc.find(&begin), doc.find(&end)) else {
        return Err(format!("docs/shuffle-lowering.md lacks the {begin} / {end} lines"));
    };
    let start = b + begin.len();
    Ok(format!("{}\n\n{body}{}", &doc[..start], &doc[e..]))
}

fn main() -> Result<(), String> {
    let write_doc = std::env::args().skip(1).any(|a| a == "--write-doc");
    let section = catalog()?;
    if !write_doc {
        print!("{section}");
        return Ok(());
    }
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "docs", "shuffle-lowering.md"].iter().collect();
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = splice(&doc, "shuffle_catalog", &format!("{section}\n"))?;
    let doc = splice(&doc, "explain_example", &explain_example()?)?;
    std::fs::write(&path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("{}: catalog and explain example rewritten", path.display());
    Ok(())
}
