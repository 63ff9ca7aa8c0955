//! Filetest directives: the `;`-comment lines a `.qdm` filetest carries.
//!
//! - `; test: parse` — the file parses and `print(parse(x))` is a fixed point; the printed text is
//!   snapshotted.
//! - `; test: verify` — every `; error: SUBSTRING` comment (at the end of a line, or alone on the
//!   line right after it) must match a verifier error reported at that line, and every verifier
//!   error must be expected.
//! - `; test: opt PASS,PASS… [width=N]` — the MIR after the passes (verifier after each) is
//!   snapshotted; any `; run:` lines must give the same results before and after.
//! - `; test: interp` — every `; run:` line is executed on the interpreter and its results asserted.
//!
//! A run line: `; run: (@KERNEL | program @NAME) [sg=N] [grid=X,Y,Z] [block=X,Y,Z] NAME=SPEC…
//! => NAME=EXPECTED… | => fault: SUBSTRING`, where SPEC is a `qdc run` spec and EXPECTED is a spec
//! or a literal list `[1 2 3]`.

/// One `; run:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based source line.
    pub line: u32,
    /// Kernel or program name.
    pub target: String,
    /// True for `program @NAME`.
    pub program: bool,
    /// Subgroup width.
    pub subgroup_size: u32,
    /// Grid override.
    pub grid: Option<[u32; 3]>,
    /// Block override.
    pub block: Option<[u32; 3]>,
    /// `NAME=SPEC` arguments.
    pub args: Vec<(String, String)>,
    /// What to expect.
    pub expect: Expect,
}

/// The expected outcome of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Buffers and their expected contents (a spec or a literal `[…]` list).
    Buffers(Vec<(String, String)>),
    /// A fault whose message contains this text.
    Fault(String),
}

/// What a filetest asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `; test:` commands (e.g. `parse`, `opt fold,dce width=8`).
    pub tests: Vec<String>,
    /// `; error:` expectations: (line, substring).
    pub errors: Vec<(u32, String)>,
    /// `; run:` lines.
    pub runs: Vec<RunLine>,
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate() {
        if i >= 3 {
            return Err(format!("too many dimensions in '{s}'"));
        }
        d[i] = p.parse().map_err(|_| format!("bad dimension '{p}'"))?;
    }
    Ok(d)
}

// Splits on whitespace but keeps `[ ... ]` lists together.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '[' => {
                depth += 1;
                cur.push(c);
            }
            ']' => {
                depth -= 1;
                cur.push(c);
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse_run(line: u32, text: &str) -> Result<RunLine, String> {
    let (lhs, rhs) = text.split_once("=>").ok_or("run line needs `=>`")?;
    let mut w = words(lhs).into_iter().peekable();
    let program = w.peek().is_some_and(|s| s == "program");
    if program {
        w.next();
    }
    let target = w.next().and_then(|t| t.strip_prefix('@').map(str::to_string)).ok_or("run line needs @NAME")?;
    let mut run = RunLine {
        line,
        target,
        program,
        subgroup_size: 32,
        grid: None,
        block: None,
        args: Vec::new(),
        expect: Expect::Buffers(Vec::new()),
    };
    for word in w {
        let (k, v) = word.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, got '{word}'"))?;
        match k {
            "sg" => run.subgroup_size = v.parse().map_err(|_| format!("bad sg '{v}'"))?,
            "grid" => run.grid = Some(dims(v)?),
            "block" => run.block = Some(dims(v)?),
            name => run.args.push((name.trim_start_matches('%').to_string(), v.to_string())),
        }
    }
    let rhs = rhs.trim();
    run.expect = if let Some(f) = rhs.strip_prefix("fault:") {
        Expect::Fault(f.trim().to_string())
    } else {
        let mut bufs = Vec::new();
        for word in words(rhs) {
            let (k, v) = word.split_once('=').ok_or_else(|| format!("expected NAME=EXPECTED, got '{word}'"))?;
            bufs.push((k.trim_start_matches('%').to_string(), v.to_string()));
        }
        Expect::Buffers(bufs)
    };
    Ok(run)
}

/// Reads the directives of a filetest source.
pub fn parse(src: &str) -> Result<Directives, String> {
    let mut d = Directives::default();
    let mut last_code_line = 0u32;
    for (i, l) in src.lines().enumerate() {
        let n = i as u32 + 1;
        let (code, comment) = match l.find(';') {
            Some(at) => (&l[..at], Some(l[at + 1..].trim())),
            None => (l, None),
        };
        let has_code = !code.trim().is_empty();
        if has_code {
            last_code_line = n;
        }
        let Some(c) = comment else { continue };
        if let Some(t) = c.strip_prefix("test:") {
            d.tests.push(t.trim().to_string());
        } else if let Some(e) = c.strip_prefix("error:") {
            d.errors.push((if has_code { n } else { last_code_line }, e.trim().to_string()));
        } else if let Some(r) = c.strip_prefix("run:") {
            d.runs.push(parse_run(n, r).map_err(|e| format!("line {n}: {e}"))?);
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_directives() {
        let src = "; test: interp\nkernel @k() block(1, 1, 1) grid(1, 1, 1) {\n  %0 = add %a, %b : u32 ; error: mismatch\n  ; error: second\n}\n; run: @k sg=8 block=32 src=iota:u32:32 => dst=[0 1 2] out=zeros:u32:3\n; run: program @p x=u32:1 => fault: out of bounds\n";
        let d = parse(src).unwrap();
        assert_eq!(d.tests, vec!["interp"]);
        assert_eq!(d.errors, vec![(3, "mismatch".to_string()), (3, "second".to_string())]);
        assert_eq!(d.runs.len(), 2);
        assert_eq!(d.runs[0].subgroup_size, 8);
        assert_eq!(d.runs[0].block, Some([32, 1, 1]));
        assert_eq!(d.runs[0].args, vec![("src".to_string(), "iota:u32:32".to_string())]);
        assert_eq!(
            d.runs[0].expect,
            Expect::Buffers(vec![("dst".into(), "[0 1 2]".into()), ("out".into(), "zeros:u32:3".into())])
        );
        assert!(d.runs[1].program);
        assert_eq!(d.runs[1].expect, Expect::Fault("out of bounds".into()));
    }
}
