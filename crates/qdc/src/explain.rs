//! The report of `qdc explain` (the command itself is in the `qdc` binary's `compile_amdgcn.rs`):
//! what the AMDGCN shuffle selector decided for each subgroup op of a kernel, and why, as text
//! ([`text`]) or as one JSON document for scripts ([`json`]). The catalog example
//! (`benches/examples/shuffle_catalog.rs`) renders the example of docs/shuffle-lowering.md with
//! it too.
//!
//! For every [`Choice`] the selector recorded (one per shuffle, broadcast, reduction and scan of
//! VGPR data) the text report prints: the `.qdm` line and its text, the op and its type, the
//! pattern the selector recognised, a table of every legal candidate (name, family, estimated
//! cycles, instructions, LDS operations) with the chosen one marked `*`, the forced family if any,
//! the selector's note, the speed-up of the chosen sequence over the bpermute baseline (the
//! candidate named `bpermute`, `bpermute halves` or `bpermute ladder`), and the chosen sequence as
//! the cost model priced it. The JSON report holds the same facts (schema in
//! docs/shuffle-lowering.md); it is written by hand here, with string escaping, as the workspace
//! has no JSON dependency.
//!
//! All cycle numbers are the selector's estimates (`qd_isel_amdgcn::select::estimate`: the
//! candidate's listing through the real wait-state and hazard passes, priced with the simulator's
//! cost table), not measurements.

use std::fmt::Write as _;

use qd_isel_amdgcn::{Candidate, Choice, CompiledKernel, ShuffleLowering, Target};

/// What the report is about: the file, the target and the forced lowering family.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    /// The `.qdm` file as named on the command line.
    pub file: &'a str,
    /// The target.
    pub target: Target,
    /// The family forced on every op (`Auto`: none).
    pub lowering: ShuffleLowering,
}

/// One kernel's part of the report.
pub struct KernelReport<'a> {
    /// The kernel's name.
    pub name: &'a str,
    /// Its recorded choices, in lowering order.
    pub choices: Vec<Explained<'a>>,
}

/// A compiled kernel's choices with their `.qdm` lines: `line_of` gives the line of an
/// instruction when the choice does not carry one, `src` is the file's text.
pub fn kernel_report<'a>(
    k: &'a CompiledKernel,
    src: &'a str,
    line_of: impl Fn(qd_mir::Inst) -> Option<u32>,
) -> KernelReport<'a> {
    let choices = k
        .choices
        .iter()
        .map(|c| {
            let line = if c.line != 0 { c.line } else { line_of(c.inst).unwrap_or(0) };
            let source = line.checked_sub(1).and_then(|l| src.lines().nth(l as usize)).map_or("", str::trim);
            Explained { choice: c, line, source }
        })
        .collect();
    KernelReport { name: &k.name, choices }
}

/// One recorded choice with what the printers need beside it: its `.qdm` line number and text.
pub struct Explained<'a> {
    /// The selector's record.
    pub choice: &'a Choice,
    /// Its `.qdm` line (0: unknown).
    pub line: u32,
    /// The line's text, trimmed.
    pub source: &'a str,
}

/// Index of the bpermute baseline among `c`'s candidates (`Candidate::is_baseline`: what forcing
/// `bpermute` picks), else the cheapest of the bpermute family.
pub fn baseline(c: &Choice) -> Option<usize> {
    c.candidates
        .iter()
        .position(Candidate::is_baseline)
        .or_else(|| c.candidates.iter().position(|k| k.family == ShuffleLowering::Bpermute))
}

/// `baseline / chosen` estimated cycles (None without a baseline or with a free chosen sequence).
fn speedup(chosen: &Candidate, base: &Candidate) -> Option<f64> {
    (chosen.cost.cycles > 0).then(|| f64::from(base.cost.cycles) / f64::from(chosen.cost.cycles))
}

/// The text report.
pub fn text(h: &Header<'_>, kernels: &[KernelReport<'_>]) -> String {
    let mut s = format!(
        "; qdc explain {}: {} (wave{}), shuffle lowering {}; cycles are the selector's estimates\n",
        h.file,
        h.target.arch,
        h.target.wave.lanes(),
        h.lowering
    );
    for KernelReport { name, choices } in kernels {
        let n = choices.len();
        let _ =
            writeln!(s, "\nkernel @{name}: {n} subgroup op{} with a lowering choice", if n == 1 { "" } else { "s" });
        if n == 0 {
            s.push_str("  (no shuffle, broadcast, reduction or scan of VGPR data to choose a lowering for)\n");
        }
        let (mut chosen_sum, mut base_sum) = (0u64, 0u64);
        for e in choices {
            s.push('\n');
            write_choice(&mut s, h.file, e);
            let c = e.choice;
            if let Some(b) = baseline(c) {
                chosen_sum += u64::from(c.candidates[c.chosen].cost.cycles);
                base_sum += u64::from(c.candidates[b].cost.cycles);
            }
        }
        if chosen_sum > 0 {
            let _ = writeln!(
                s,
                "\nkernel @{name}: {chosen_sum} estimated cycles for the chosen sequences vs {base_sum} with bpermute only ({:.2}x)",
                base_sum as f64 / chosen_sum as f64
            );
        }
    }
    s
}

/// One choice of the text report.
fn write_choice(s: &mut String, file: &str, e: &Explained<'_>) {
    let c = e.choice;
    if e.line == 0 {
        let _ = writeln!(s, "{file}: (line unknown)");
    } else {
        let _ = writeln!(s, "{file}:{}: {}", e.line, e.source);
    }
    let _ = writeln!(s, "  op: {} on {}", c.op, c.ty);
    let _ = writeln!(s, "  pattern: {}", c.pattern);
    if let Some(f) = c.forced {
        let _ = writeln!(s, "  forced: {f}");
    }
    if !c.note.is_empty() {
        let _ = writeln!(s, "  note: {}", c.note);
    }
    let name_w = c.candidates.iter().map(|k| k.name.len()).max().unwrap_or(0).max("candidate".len());
    let _ = writeln!(
        s,
        "    {:<name_w$}  {:<8}  {:>11}  {:>5}  {:>7}",
        "candidate", "family", "est. cycles", "insts", "LDS ops"
    );
    for (i, k) in c.candidates.iter().enumerate() {
        let mark = if i == c.chosen { '*' } else { ' ' };
        let _ = writeln!(
            s,
            "  {mark} {:<name_w$}  {:<8}  {:>11}  {:>5}  {:>7}",
            k.name,
            k.family.name(),
            k.cost.cycles,
            k.cost.insts,
            k.cost.lds_ops
        );
    }
    let Some(chosen) = c.candidates.get(c.chosen) else {
        s.push_str("  chosen: none (the selector recorded no candidate)\n");
        return;
    };
    match baseline(c).map(|b| &c.candidates[b]) {
        Some(base) if std::ptr::eq(base, chosen) => {
            let _ = writeln!(s, "  chosen: {} (the bpermute baseline, {} cycles)", chosen.name, chosen.cost.cycles);
        }
        Some(base) => {
            let ratio = speedup(chosen, base).map_or_else(|| "free".to_string(), |x| format!("{x:.2}x"));
            let _ = writeln!(
                s,
                "  chosen: {}: {} vs {} estimated cycles for {} ({ratio})",
                chosen.name, chosen.cost.cycles, base.cost.cycles, base.name
            );
        }
        None => {
            let _ =
                writeln!(s, "  chosen: {} ({} cycles; no bpermute baseline recorded)", chosen.name, chosen.cost.cycles);
        }
    }
    if !chosen.listing.is_empty() {
        s.push_str("  sequence:\n");
        for l in chosen.listing.lines() {
            let _ = writeln!(s, "    {l}");
        }
    }
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An optional JSON string.
fn json_opt(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_string(), json_str)
}

/// The JSON report: `{file, target, wave, shuffle_lowering, kernels: [{name, choices: [...]}]}`.
pub fn json(h: &Header<'_>, kernels: &[KernelReport<'_>]) -> String {
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"file\": {},", json_str(h.file));
    let _ = writeln!(s, "  \"target\": {},", json_str(&h.target.arch.to_string()));
    let _ = writeln!(s, "  \"wave\": {},", h.target.wave.lanes());
    let _ = writeln!(s, "  \"shuffle_lowering\": {},", json_str(h.lowering.name()));
    s.push_str("  \"kernels\": [");
    for (n, KernelReport { name, choices }) in kernels.iter().enumerate() {
        s.push_str(if n == 0 { "\n" } else { ",\n" });
        let _ = write!(s, "    {{\n      \"name\": {},\n      \"choices\": [", json_str(name));
        for (m, e) in choices.iter().enumerate() {
            s.push_str(if m == 0 { "\n" } else { ",\n" });
            json_choice(&mut s, e);
        }
        s.push_str(if choices.is_empty() { "]\n    }" } else { "\n      ]\n    }" });
    }
    s.push_str(if kernels.is_empty() { "]\n}\n" } else { "\n  ]\n}\n" });
    s
}

/// One choice of the JSON report.
fn json_choice(s: &mut String, e: &Explained<'_>) {
    let c = e.choice;
    let base = baseline(c);
    let chosen = c.candidates.get(c.chosen);
    let ratio = match (chosen, base.map(|b| &c.candidates[b])) {
        (Some(ch), Some(b)) => {
            speedup(ch, b).filter(|x| x.is_finite()).map_or("null".to_string(), |x| format!("{x:.3}"))
        }
        _ => "null".to_string(),
    };
    let pad = "          ";
    let _ = writeln!(s, "        {{");
    let _ = writeln!(s, "{pad}\"line\": {},", e.line);
    let _ = writeln!(s, "{pad}\"source\": {},", json_str(e.source));
    let _ = writeln!(s, "{pad}\"op\": {},", json_str(&c.op));
    let _ = writeln!(s, "{pad}\"type\": {},", json_str(&c.ty.to_string()));
    let _ = writeln!(s, "{pad}\"pattern\": {},", json_str(&c.pattern));
    let _ = writeln!(s, "{pad}\"forced\": {},", json_opt(c.forced.map(|f| f.name())));
    let _ = writeln!(s, "{pad}\"note\": {},", json_str(&c.note));
    let _ = writeln!(s, "{pad}\"chosen\": {},", json_opt(chosen.map(|k| k.name.as_str())));
    let _ = writeln!(s, "{pad}\"baseline\": {},", json_opt(base.map(|b| c.candidates[b].name.as_str())));
    let _ = writeln!(s, "{pad}\"speedup\": {ratio},");
    let _ = write!(s, "{pad}\"candidates\": [");
    for (i, k) in c.candidates.iter().enumerate() {
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        let listing: Vec<String> = k.listing.lines().iter().map(|l| json_str(l)).collect();
        let _ = write!(
            s,
            "{pad}  {{\"name\": {}, \"family\": {}, \"cycles\": {}, \"insts\": {}, \"lds_ops\": {}, \"chosen\": {}, \"listing\": [{}]}}",
            json_str(&k.name),
            json_str(k.family.name()),
            k.cost.cycles,
            k.cost.insts,
            k.cost.lds_ops,
            i == c.chosen,
            listing.join(", ")
        );
    }
    s.push_str(if c.candidates.is_empty() { "]\n" } else { "\n          ]\n" });
    s.push_str("        }");
}

#[cfg(test)]
mod tests {
    use super::*;
    use qd_isel_amdgcn::{Arch, Cost, Listing};
    use qd_mir::ScalarType;

    fn cand(name: &str, family: ShuffleLowering, cycles: u32, lds_ops: u32) -> Candidate {
        Candidate {
            name: name.into(),
            family,
            cost: Cost { cycles, insts: 2, lds_ops },
            listing: Listing::new(
                Target::wave64(Arch::Gfx942),
                vec![qd_amdgcn_isa::Inst::new(qd_amdgcn_isa::Op::SNop, &[]).imm(1)],
            ),
        }
    }

    /// A choice over a real MIR instruction (the first of a one-instruction kernel).
    fn choice(cands: Vec<Candidate>, chosen: usize, forced: Option<ShuffleLowering>) -> Choice {
        let m =
            qd_mir::parse_module("kernel @k() block(64, 1, 1) grid(1, 1, 1) {\n  %0 = lane_id : u32\n  return\n}\n")
                .expect("parses");
        let f = &m.kernels[0];
        Choice {
            inst: f.regions[f.body].insts[0],
            line: 2,
            op: "shuffle.xor".into(),
            ty: ScalarType::U32,
            pattern: "xor 1".into(),
            candidates: cands,
            chosen,
            forced,
            note: String::new(),
        }
    }

    #[test]
    fn the_baseline_is_the_named_bpermute_candidate_and_the_speedup_is_its_ratio() {
        let c = choice(
            vec![
                cand("dpp quad_perm:[1,0,3,2]", ShuffleLowering::Dpp, 12, 0),
                cand("swizzle xor 1", ShuffleLowering::Swizzle, 40, 1),
                cand("bpermute", ShuffleLowering::Bpermute, 54, 1),
            ],
            0,
            None,
        );
        assert_eq!(baseline(&c), Some(2));
        assert_eq!(speedup(&c.candidates[0], &c.candidates[2]), Some(4.5));
        let c = choice(vec![cand("bpermute ladder", ShuffleLowering::Bpermute, 300, 6)], 0, None);
        assert_eq!(baseline(&c), Some(0));
        let c = choice(vec![cand("dpp", ShuffleLowering::Dpp, 12, 0)], 0, None);
        assert_eq!(baseline(&c), None);
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd\te\u{1}"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
        assert_eq!(json_str("lane ≥ 32"), "\"lane ≥ 32\"");
    }

    #[test]
    fn text_and_json_show_every_candidate_and_mark_the_chosen_one() {
        let h = Header { file: "k.qdm", target: Target::wave64(Arch::Gfx942), lowering: ShuffleLowering::Swizzle };
        let c = choice(
            vec![
                cand("dpp quad_perm:[1,0,3,2]", ShuffleLowering::Dpp, 12, 0),
                cand("swizzle xor 1", ShuffleLowering::Swizzle, 40, 1),
                cand("bpermute", ShuffleLowering::Bpermute, 54, 1),
            ],
            1,
            Some(ShuffleLowering::Swizzle),
        );
        let e = Explained { choice: &c, line: 2, source: "%0 = lane_id : u32" };
        let mut s = String::new();
        write_choice(&mut s, h.file, &e);
        assert!(
            s.starts_with(
                "k.qdm:2: %0 = lane_id : u32\n  op: shuffle.xor on u32\n  pattern: xor 1\n  forced: swizzle\n"
            ),
            "{s}"
        );
        let rows: Vec<&str> = s
            .lines()
            .filter(|l| l.contains("  dpp  ") || l.contains("  swizzle  ") || l.contains("  bpermute  "))
            .collect();
        assert_eq!(rows.len(), 3, "{s}");
        assert!(rows[1].starts_with("  * swizzle xor 1"), "{s}");
        assert!(rows[0].starts_with("    dpp quad_perm"), "{s}");
        assert!(s.contains("  chosen: swizzle xor 1: 40 vs 54 estimated cycles for bpermute (1.35x)\n"), "{s}");
        let mut j = String::new();
        json_choice(&mut j, &e);
        assert!(j.contains("\"chosen\": \"swizzle xor 1\""), "{j}");
        assert!(j.contains("\"forced\": \"swizzle\""), "{j}");
        assert!(j.contains("\"speedup\": 1.350"), "{j}");
        assert_eq!(j.matches("\"chosen\": true").count(), 1, "{j}");
        assert_eq!(j.matches("\"listing\": [\"s_nop 1\"]").count(), 3, "{j}");
        assert!(s.contains("  sequence:\n    s_nop 1\n"), "{s}");
    }
}
