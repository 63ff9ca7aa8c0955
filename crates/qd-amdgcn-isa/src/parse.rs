//! The assembler-text parser: [`parse_asm`] reads LLVM 19 AMDGPU assembler syntax (everything
//! [`Inst::display`] prints, plus the `_e32`-less spellings llvm-mc accepts) into [`Inst`]s.
//!
//! One instruction per line; `;` and `//` comments; blank lines; labels `name:` whose names may
//! be used as branch operands (resolved to the signed dword offset from the next instruction).
//! Errors carry a line and column and render rustc-style with a caret. The parser never panics:
//! every malformed input is an [`AsmError`].

use std::fmt;

use crate::check;
use crate::dpp::{Dpp16, Dpp8, DppCtrl};
use crate::encode::inst_size;
use crate::inst::{Cache, Dpp, Form, Inst, Mods, MAX_OPERANDS};
use crate::layout::{self, Field, Kind, Slot, Variant};
use crate::operand::{InlineFloat, Operand, RegRange};
use crate::print::{DELAY_IDS, DELAY_SKIPS, DEPCTR_FIELDS};
use crate::swizzle::Swizzle;
use crate::table::{Format, Op, Shape, SoppImm};
use crate::target::{Arch, Family, Target, WaveSize};
use crate::waitcnt::Waitcnt;

/// A parse error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl AsmError {
    /// Renders the error rustc-style against the source text, with a caret under the column.
    pub fn render(&self, src: &str) -> String {
        let text = src.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        let caret = " ".repeat(self.col.saturating_sub(1));
        format!(
            "error: {}\n{pad}--> line {}:{}\n{pad} |\n{num} | {text}\n{pad} | {caret}^\n",
            self.message, self.line, self.col
        )
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for AsmError {}

/// A column-tagged error inside one line (0-based byte column, converted at the end).
struct LineErr {
    col: usize,
    message: String,
}

fn lerr(col: usize, message: impl Into<String>) -> LineErr {
    LineErr { col, message: message.into() }
}

/// Parses assembler text into instructions (see the module doc).
pub fn parse_asm(text: &str, target: Target) -> Result<Vec<Inst>, AsmError> {
    let mut insts: Vec<Inst> = Vec::new();
    // (instruction index, label, line, col)
    let mut refs: Vec<(usize, String, usize, usize)> = Vec::new();
    let mut labels: Vec<(String, usize)> = Vec::new(); // label -> instruction index
    for (lineno, raw_line) in text.lines().enumerate() {
        let line_no = lineno + 1;
        let to_err = |e: LineErr| AsmError {
            line: line_no,
            col: raw_line.get(..e.col.min(raw_line.len())).map_or(e.col, |p| p.chars().count()) + 1,
            message: e.message,
        };
        let code = strip_comment(raw_line);
        let mut start = code.len() - code.trim_start().len();
        let mut rest = code.trim();
        // Labels (possibly followed by an instruction).
        loop {
            let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..word_end];
            if let Some(name) = word.strip_suffix(':') {
                if is_ident(name) {
                    if labels.iter().any(|(l, _)| l == name) {
                        return Err(to_err(lerr(start, format!("label `{name}` defined twice"))));
                    }
                    labels.push((name.to_string(), insts.len()));
                    let after = &rest[word_end..];
                    start += word_end + (after.len() - after.trim_start().len());
                    rest = after.trim();
                    continue;
                }
            }
            break;
        }
        if rest.is_empty() {
            continue;
        }
        if rest.starts_with('.') {
            if rest == ".text" {
                continue;
            }
            return Err(to_err(lerr(start, format!("unsupported directive `{rest}`"))));
        }
        let (inst, label) = parse_inst(rest, start, target).map_err(to_err)?;
        if let Some((name, col)) = label {
            refs.push((insts.len(), name, line_no, col));
        }
        insts.push(inst);
    }
    // Resolve branch labels to dword offsets from the instruction after the branch.
    let mut offsets = Vec::with_capacity(insts.len() + 1);
    let mut at = 0i64;
    for inst in &insts {
        offsets.push(at);
        at += inst_size(inst, target) as i64;
    }
    offsets.push(at);
    for (idx, name, line, col) in refs {
        let Some(&(_, target_idx)) = labels.iter().find(|(l, _)| *l == name) else {
            return Err(AsmError { line, col, message: format!("undefined label `{name}`") });
        };
        let delta = offsets[target_idx] - (offsets[idx] + 4);
        let dwords = delta / 4;
        if !(-32768..=32767).contains(&dwords) {
            return Err(AsmError { line, col, message: format!("branch to `{name}` is out of range") });
        }
        insts[idx].imm = dwords as i32;
        check::resolve(&insts[idx], target).map_err(|e| AsmError { line, col, message: e.to_string() })?;
    }
    Ok(insts)
}

fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' => in_str = !in_str,
            b';' if !in_str => return &line[..i],
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
}

/// Splits at top-level separators (outside (), [] and ""), trimming; returns (byte column, piece).
fn split_top<'a>(s: &'a str, base: usize, is_sep: impl Fn(char) -> bool) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut piece_start = 0usize;
    let push = |from: usize, to: usize, out: &mut Vec<(usize, &'a str)>| {
        let p = &s[from..to];
        let lead = p.len() - p.trim_start().len();
        let t = p.trim();
        if !t.is_empty() {
            out.push((base + from + lead, t));
        }
    };
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '(' | '[' if !in_str => depth += 1,
            ')' | ']' if !in_str => depth -= 1,
            c if depth <= 0 && !in_str && is_sep(c) => {
                push(piece_start, i, &mut out);
                piece_start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    push(piece_start, s.len(), &mut out);
    out
}

/// How a mnemonic suffix constrains the encoding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Suffix {
    None,
    E32,
    E64,
    Dpp,
    E64Dpp,
}

fn find_mnemonic(name: &str, arch: Arch) -> Option<(Op, Suffix)> {
    let lookup = |base: &str| Op::ALL.iter().copied().find(|op| op.enc(arch).is_some_and(|e| e.name == base));
    for (suf, kind) in
        [("_e64_dpp", Suffix::E64Dpp), ("_dpp", Suffix::Dpp), ("_e32", Suffix::E32), ("_e64", Suffix::E64)]
    {
        if let Some(base) = name.strip_suffix(suf) {
            if let Some(op) = lookup(base) {
                return Some((op, kind));
            }
        }
    }
    lookup(name).map(|op| (op, Suffix::None))
}

fn blank(op: Op) -> Inst {
    Inst {
        op,
        form: Form::Native,
        dpp: Dpp::None,
        operands: [Operand::None; MAX_OPERANDS],
        mods: Mods::default(),
        imm: 0,
        imm1: 0,
        cache: Cache::default(),
    }
}

/// Parses one instruction; `col0` is the byte column of `text` in its line. Returns the
/// instruction and a branch label it names.
fn parse_inst(text: &str, col0: usize, target: Target) -> Result<(Inst, Option<(String, usize)>), LineErr> {
    let arch = target.arch;
    let name_end = text.find(char::is_whitespace).unwrap_or(text.len());
    let name = text[..name_end].to_ascii_lowercase();
    let rest = &text[name_end..];
    let rest_col = col0 + name_end;
    if name.ends_with("_sdwa") {
        return Err(lerr(col0, "SDWA is not supported"));
    }
    let (op, suffix) = find_mnemonic(&name, arch).ok_or_else(|| {
        let other = Op::ALL.iter().any(|op| {
            let i = op.info();
            [i.gfx9, i.gfx11].iter().flatten().any(|e| name.starts_with(e.name))
        });
        if other {
            lerr(col0, format!("`{name}` is not an instruction of {arch} (or has a bad suffix)"))
        } else {
            lerr(col0, format!("unknown instruction `{name}`"))
        }
    })?;
    let enc = op.enc(arch).ok_or_else(|| lerr(col0, "unavailable"))?;
    let shape = op.info().shape;
    let mut inst = blank(op);
    // SOPP: the whole rest is the immediate.
    if let Shape::Sopp(kind) = shape {
        let label =
            parse_sopp(&mut inst, kind, rest.trim(), rest_col + (rest.len() - rest.trim_start().len()), target)?;
        check::resolve(&inst, target).map_err(|e| lerr(col0, e.to_string()))?;
        return Ok((inst, label));
    }
    let parts = split_top(rest, rest_col, |c| c == ',');
    let mut operand_tokens: Vec<(usize, &str)> = Vec::new();
    let mut mods: Vec<(usize, &str)> = Vec::new();
    let nparts = parts.len();
    for (i, (pcol, p)) in parts.into_iter().enumerate() {
        let words = split_top(p, pcol, char::is_whitespace);
        for (j, w) in words.into_iter().enumerate() {
            if j == 0 && !is_modifier_word(w.1) {
                operand_tokens.push(w);
            } else if i + 1 == nparts {
                mods.push(w);
            } else {
                return Err(lerr(w.0, format!("unexpected `{}` (missing comma?)", w.1)));
            }
        }
    }
    let dpp = parse_dpp_mods(&mods, target)?;
    let valu = layout::is_valu(enc.format);
    let own32 = matches!(enc.format, Format::Vop1 | Format::Vop2 | Format::Vopc);
    let vop3_form = layout::vop3_form(op);
    let forms: Vec<Form> = match (valu, suffix) {
        (false, Suffix::None) => vec![Form::Native],
        (false, _) => return Err(lerr(col0, "encoding suffixes apply only to VALU instructions")),
        (true, Suffix::E32) if own32 => vec![Form::E32],
        (true, Suffix::E32) => return Err(lerr(col0, format!("`{name}` has no 32-bit encoding on {arch}"))),
        (true, Suffix::E64 | Suffix::E64Dpp) => vec![if own32 { Form::E64 } else { vop3_form }],
        (true, Suffix::Dpp) if own32 => vec![Form::E32],
        (true, Suffix::Dpp) => return Err(lerr(col0, "use the _e64_dpp suffix for VOP3 DPP")),
        (true, Suffix::None) if own32 => vec![Form::E32, Form::E64],
        (true, Suffix::None) => vec![vop3_form],
    };
    if matches!(suffix, Suffix::Dpp | Suffix::E64Dpp) && dpp == Dpp::None {
        return Err(lerr(col0, "a _dpp instruction needs a DPP control"));
    }
    let mut first_err: Option<LineErr> = None;
    for form in forms {
        let mut cand = blank(op);
        cand.form = form;
        cand.dpp = dpp;
        match fill(&mut cand, &operand_tokens, &mods, target, rest_col) {
            Ok(()) => match check::resolve(&cand, target) {
                Ok(_) => return Ok((cand, None)),
                Err(e) => {
                    first_err.get_or_insert(lerr(col0, e.to_string()));
                }
            },
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| lerr(col0, "cannot encode")))
}

fn is_modifier_word(w: &str) -> bool {
    let key = w.split(':').next().unwrap_or(w);
    matches!(
        key,
        "clamp"
            | "mul"
            | "div"
            | "op_sel"
            | "quad_perm"
            | "row_shl"
            | "row_shr"
            | "row_ror"
            | "wave_shl"
            | "wave_rol"
            | "wave_shr"
            | "wave_ror"
            | "row_mirror"
            | "row_half_mirror"
            | "row_bcast"
            | "row_newbcast"
            | "row_share"
            | "row_xmask"
            | "row_mask"
            | "bank_mask"
            | "bound_ctrl"
            | "fi"
            | "dpp8"
            | "offset"
            | "offset0"
            | "offset1"
            | "glc"
            | "slc"
            | "dlc"
            | "sc0"
            | "sc1"
            | "nt"
            | "gds"
    )
}

/// Parses an integer: decimal, `0x` hex, optional sign.
fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() || h.len() > 16 {
            return None;
        }
        i64::try_from(u64::from_str_radix(h, 16).ok()?).ok()?
    } else {
        if body.is_empty() || body.len() > 18 || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_list(s: &str) -> Option<Vec<i64>> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    inner.split(',').map(|x| parse_int(x.trim())).collect()
}

fn parse_dpp_mods(mods: &[(usize, &str)], target: Target) -> Result<Dpp, LineErr> {
    let fam = target.family();
    let mut ctrl: Option<DppCtrl> = None;
    let mut dpp8: Option<[u8; 8]> = None;
    let (mut row_mask, mut bank_mask, mut bc, mut fi) = (0xF, 0xF, false, false);
    let mut masks_given = false;
    for &(col, w) in mods {
        let (key, val) = match w.split_once(':') {
            Some((k, v)) => (k, Some(v)),
            None => (w, None),
        };
        let num = |max: i64| -> Result<u8, LineErr> {
            let v = val.and_then(parse_int).ok_or_else(|| lerr(col, format!("`{w}` needs a number")))?;
            if (0..=max).contains(&v) {
                Ok(v as u8)
            } else {
                Err(lerr(col, format!("invalid {key} value")))
            }
        };
        let c = match key {
            "quad_perm" => {
                let l = val.and_then(parse_list).ok_or_else(|| lerr(col, "quad_perm needs [a,b,c,d]"))?;
                if l.len() != 4 || l.iter().any(|&x| !(0..4).contains(&x)) {
                    return Err(lerr(col, "invalid quad_perm"));
                }
                Some(DppCtrl::QuadPerm([l[0] as u8, l[1] as u8, l[2] as u8, l[3] as u8]))
            }
            "row_shl" | "row_shr" | "row_ror" => {
                let n = num(15)?;
                if n == 0 {
                    return Err(lerr(col, format!("invalid {key} value")));
                }
                Some(match key {
                    "row_shl" => DppCtrl::RowShl(n),
                    "row_shr" => DppCtrl::RowShr(n),
                    _ => DppCtrl::RowRor(n),
                })
            }
            "wave_shl" | "wave_rol" | "wave_shr" | "wave_ror" => {
                if num(1)? != 1 {
                    return Err(lerr(col, format!("invalid {key} value")));
                }
                Some(match key {
                    "wave_shl" => DppCtrl::WaveShl1,
                    "wave_rol" => DppCtrl::WaveRol1,
                    "wave_shr" => DppCtrl::WaveShr1,
                    _ => DppCtrl::WaveRor1,
                })
            }
            "row_mirror" if val.is_none() => Some(DppCtrl::RowMirror),
            "row_half_mirror" if val.is_none() => Some(DppCtrl::RowHalfMirror),
            "row_bcast" => match num(31)? {
                15 => Some(DppCtrl::RowBcast15),
                31 => Some(DppCtrl::RowBcast31),
                _ => return Err(lerr(col, "invalid row_bcast value")),
            },
            "row_newbcast" if fam == Family::Gfx9 => Some(DppCtrl::RowShare(num(15)?)),
            "row_share" if fam == Family::Gfx11 => Some(DppCtrl::RowShare(num(15)?)),
            "row_xmask" => Some(DppCtrl::RowXmask(num(15)?)),
            "row_mask" => {
                row_mask = num(15)?;
                masks_given = true;
                None
            }
            "bank_mask" => {
                bank_mask = num(15)?;
                masks_given = true;
                None
            }
            "bound_ctrl" => {
                let v = num(1)?;
                bc = fam == Family::Gfx9 || v == 1;
                None
            }
            "fi" => {
                fi = num(1)? == 1;
                None
            }
            "dpp8" => {
                let l = val.and_then(parse_list).ok_or_else(|| lerr(col, "dpp8 needs [8 selectors]"))?;
                if l.len() != 8 || l.iter().any(|&x| !(0..8).contains(&x)) {
                    return Err(lerr(col, "invalid dpp8 selectors"));
                }
                dpp8 = Some(std::array::from_fn(|i| l[i] as u8));
                None
            }
            _ => None,
        };
        if let Some(c) = c {
            if ctrl.is_some() {
                return Err(lerr(col, "more than one DPP control"));
            }
            ctrl = Some(c);
        }
    }
    match (ctrl, dpp8) {
        (Some(_), Some(_)) => Err(lerr(mods.first().map_or(0, |m| m.0), "both DPP16 and DPP8 controls")),
        (Some(ctrl), None) => Ok(Dpp::Dpp16(Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl: bc, fi })),
        (None, Some(sel)) => {
            if masks_given || bc {
                return Err(lerr(mods.first().map_or(0, |m| m.0), "DPP8 has no masks or bound_ctrl"));
            }
            Ok(Dpp::Dpp8(Dpp8 { sel, fi }))
        }
        (None, None) => {
            if masks_given || bc || fi {
                return Err(lerr(mods.first().map_or(0, |m| m.0), "DPP masks without a DPP control"));
            }
            Ok(Dpp::None)
        }
    }
}

/// A parsed operand token: the operand plus neg/abs modifiers, or an integer whose operand form
/// depends on the slot.
struct Tok {
    op: Operand,
    int: Option<i64>,
    float: Option<f64>,
    neg: bool,
    abs: bool,
    off: bool,
}

fn reg_range(s: &str) -> Option<(u16, u8)> {
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let (a, b) = inner.split_once(':')?;
        let (a, b) = (a.trim().parse::<u16>().ok()?, b.trim().parse::<u16>().ok()?);
        if b < a || b - a >= 16 {
            return None;
        }
        Some((a, (b - a + 1) as u8))
    } else {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 4 {
            return None;
        }
        Some((s.parse().ok()?, 1))
    }
}

fn parse_tok(t: &str, col: usize) -> Result<Tok, LineErr> {
    let mut s = t;
    let mut neg = false;
    let mut abs = false;
    if let Some(r) = s.strip_prefix('-') {
        if r.starts_with('|') || r.starts_with(|c: char| c.is_ascii_alphabetic()) {
            neg = true;
            s = r;
        }
    }
    if let Some(inner) = s.strip_prefix("neg(").and_then(|x| x.strip_suffix(')')) {
        neg = true;
        s = inner;
    }
    if let Some(inner) = s.strip_prefix('|').and_then(|x| x.strip_suffix('|')) {
        abs = true;
        s = inner;
    } else if let Some(inner) = s.strip_prefix("abs(").and_then(|x| x.strip_suffix(')')) {
        abs = true;
        s = inner;
    }
    let lower = s.to_ascii_lowercase();
    let special = match lower.as_str() {
        "vcc" => Some(Operand::Vcc),
        "vcc_lo" => Some(Operand::VccLo),
        "vcc_hi" => Some(Operand::VccHi),
        "exec" => Some(Operand::Exec),
        "exec_lo" => Some(Operand::ExecLo),
        "exec_hi" => Some(Operand::ExecHi),
        "m0" => Some(Operand::M0),
        "null" => Some(Operand::Null),
        "src_scc" | "scc" => Some(Operand::Scc),
        "off" => return Ok(Tok { op: Operand::None, int: None, float: None, neg, abs, off: true }),
        _ => None,
    };
    let mk = |op| Tok { op, int: None, float: None, neg, abs, off: false };
    if let Some(op) = special {
        return Ok(mk(op));
    }
    if let Some(r) = lower.strip_prefix('s').and_then(reg_range) {
        return Ok(mk(Operand::Sgpr(RegRange { first: r.0, len: r.1 })));
    }
    if let Some(r) = lower.strip_prefix('v').and_then(reg_range) {
        return Ok(mk(Operand::Vgpr(RegRange { first: r.0, len: r.1 })));
    }
    if let Some(v) = parse_int(&lower) {
        return Ok(Tok { op: Operand::None, int: Some(v), float: None, neg, abs, off: false });
    }
    if lower.contains('.') {
        if let Ok(f) = lower.parse::<f64>() {
            if f.is_finite() {
                return Ok(Tok { op: Operand::None, int: None, float: Some(f), neg, abs, off: false });
            }
        }
    }
    Err(lerr(col, format!("cannot parse operand `{t}`")))
}

/// The operand an integer/float token becomes in a slot of `width` registers.
fn const_operand(tok: &Tok, width: u8, col: usize) -> Result<Operand, LineErr> {
    if let Some(v) = tok.int {
        if (-16..=64).contains(&v) {
            return Ok(Operand::Int(v as i8));
        }
        let bits = if (0..=i64::from(u32::MAX)).contains(&v) {
            v as u32
        } else if (i64::from(i32::MIN)..0).contains(&v) {
            v as i32 as u32
        } else {
            return Err(lerr(col, format!("constant {v} does not fit in 32 bits")));
        };
        return Ok(if width == 1 { Operand::imm32(bits) } else { Operand::Literal(bits) });
    }
    if let Some(f) = tok.float {
        if let Some(x) = InlineFloat::ALL.into_iter().find(|x| match x {
            InlineFloat::InvTwoPi if width == 1 => f == 0.159_154_94,
            InlineFloat::InvTwoPi => f == 0.159_154_943_091_895_32,
            _ => x.text().parse::<f64>().is_ok_and(|v| v == f),
        }) {
            return Ok(Operand::Float(x));
        }
        if width == 1 {
            return Ok(Operand::imm32((f as f32).to_bits()));
        }
        return Err(lerr(col, "a non-inline float constant needs a 32-bit operand"));
    }
    Ok(tok.op)
}

/// Fills operands and modifiers of `inst` (form and dpp already set).
fn fill(
    inst: &mut Inst,
    toks: &[(usize, &str)],
    mods: &[(usize, &str)],
    target: Target,
    col0: usize,
) -> Result<(), LineErr> {
    let op = inst.op;
    let shape = op.info().shape;
    let enc = op.enc(target.arch).ok_or_else(|| lerr(col0, "unavailable"))?;
    let enc32 = layout::resolve_form(op, enc, inst.form).map_err(|e| lerr(col0, e))?;
    let mut parsed: Vec<(usize, Tok)> = Vec::new();
    for &(c, t) in toks {
        parsed.push((c, parse_tok(t, c)?));
    }
    let global = matches!(
        shape,
        Shape::GlobalLoad { .. }
            | Shape::GlobalStore { .. }
            | Shape::GlobalAtomic { .. }
            | Shape::GlobalAtomicCas { .. }
    );
    let saddr = global && parsed.last().is_some_and(|t| !t.1.off);
    let variant = Variant { vop3: enc32 == layout::Enc32::Vop3, dpp: inst.dpp != Dpp::None, saddr };
    let slots = layout::layout(op, target, variant);
    // Map tokens to slots.
    let mut slot_for: Vec<(usize, &Slot)> = slots.iter().enumerate().collect();
    let atomic = matches!(shape, Shape::GlobalAtomic { .. } | Shape::GlobalAtomicCas { .. });
    if atomic && parsed.len() + 1 == slots.len() {
        slot_for.remove(0);
    }
    let smem_load = matches!(shape, Shape::SmemLoad { .. });
    let sopk = matches!(shape, Shape::Sopk | Shape::SopkCmp | Shape::SopkWaitcnt);
    let expected = slot_for.len() + usize::from(sopk);
    if parsed.len() != expected {
        return Err(lerr(col0, format!("expected {expected} operands, found {}", parsed.len())));
    }
    let mut src_index = 0u8;
    for (k, (c, tok)) in parsed.iter().enumerate() {
        if sopk && k == parsed.len() - 1 {
            let v = tok.int.ok_or_else(|| lerr(*c, "expected a 16-bit immediate"))?;
            if !(-32768..=65535).contains(&v) {
                return Err(lerr(*c, "immediate does not fit in 16 bits"));
            }
            inst.imm = v as i32;
            continue;
        }
        let (i, s) = slot_for[k];
        // The GFX11 disassembler spells an absent soffset with offset 0 as `null`.
        if smem_load && s.field == Field::SmemOff && tok.op == Operand::Null {
            continue;
        }
        if smem_load && s.field == Field::SmemOff && tok.op == Operand::None && !tok.off {
            let v = tok.int.ok_or_else(|| lerr(*c, "expected an offset or an SGPR"))?;
            inst.imm = i32::try_from(v).map_err(|_| lerr(*c, "offset out of range"))?;
            continue;
        }
        if tok.off && s.field != Field::FlatSaddr {
            return Err(lerr(*c, "`off` is only a global saddr"));
        }
        let mut o = const_operand(tok, s.width, *c)?;
        // In wave32 `vcc`/`exec` in a 32-bit slot are vcc_lo/exec_lo.
        if target.wave == WaveSize::W32 && s.width == 1 {
            o = match o {
                Operand::Vcc => Operand::VccLo,
                Operand::Exec => Operand::ExecLo,
                other => other,
            };
        }
        inst.operands[i] = o;
        let value_src = matches!(s.field, Field::Src0 | Field::Src1 | Field::Src2) && s.kind != Kind::MaskSrc;
        if value_src {
            let bit = 1u8 << src_index;
            src_index += 1;
            if tok.neg {
                inst.mods.neg |= bit;
            }
            if tok.abs {
                inst.mods.abs |= bit;
            }
        } else if tok.neg || tok.abs {
            return Err(lerr(*c, "neg/abs modifiers apply only to VALU sources"));
        }
    }
    parse_other_mods(inst, mods, target, shape, atomic)?;
    Ok(())
}

fn parse_other_mods(
    inst: &mut Inst,
    mods: &[(usize, &str)],
    target: Target,
    shape: Shape,
    atomic: bool,
) -> Result<(), LineErr> {
    let arch = target.arch;
    let mut glc = false;
    for &(col, w) in mods {
        let (key, val) = match w.split_once(':') {
            Some((k, v)) => (k, Some(v)),
            None => (w, None),
        };
        let int = || val.and_then(parse_int).ok_or_else(|| lerr(col, format!("`{w}` needs a number")));
        match (key, val) {
            ("clamp", None) => inst.mods.clamp = true,
            ("mul", Some("2")) => inst.mods.omod = 1,
            ("mul", Some("4")) => inst.mods.omod = 2,
            ("div", Some("2")) => inst.mods.omod = 3,
            ("op_sel", Some(v)) => {
                let l = parse_list(v).ok_or_else(|| lerr(col, "op_sel needs [a,b,...]"))?;
                let mut bits = 0u8;
                for (i, x) in l.iter().enumerate() {
                    match x {
                        0 => {}
                        1 if i < 4 => bits |= 1 << i,
                        _ => return Err(lerr(col, "invalid op_sel")),
                    }
                }
                inst.mods.op_sel = bits;
            }
            ("offset", Some(v)) if matches!(shape, Shape::DsSwizzle) => {
                inst.imm = i32::from(parse_swizzle(v).ok_or_else(|| lerr(col, "invalid swizzle offset"))?);
            }
            ("offset", Some(_)) => {
                inst.imm = i32::try_from(int()?).map_err(|_| lerr(col, "offset out of range"))?;
            }
            ("offset0", Some(_)) => inst.imm = i32::try_from(int()?).map_err(|_| lerr(col, "offset out of range"))?,
            ("offset1", Some(_)) => {
                inst.imm1 = u8::try_from(int()?).map_err(|_| lerr(col, "offset1 is 0..=255"))?;
            }
            ("glc", None) if arch != Arch::Gfx942 || matches!(shape, Shape::SmemLoad { .. }) => glc = true,
            ("sc0", None) if arch == Arch::Gfx942 => glc = true,
            ("slc", None) if arch != Arch::Gfx942 => inst.cache.slc_nt = true,
            ("nt", None) if arch == Arch::Gfx942 => inst.cache.slc_nt = true,
            ("sc1", None) if arch == Arch::Gfx942 => inst.cache.sc1 = true,
            ("dlc", None) if arch == Arch::Gfx1100 => inst.cache.dlc = true,
            (
                "quad_perm" | "row_shl" | "row_shr" | "row_ror" | "wave_shl" | "wave_rol" | "wave_shr" | "wave_ror"
                | "row_mirror" | "row_half_mirror" | "row_bcast" | "row_newbcast" | "row_share" | "row_xmask"
                | "row_mask" | "bank_mask" | "bound_ctrl" | "fi" | "dpp8",
                _,
            ) => {}
            _ => return Err(lerr(col, format!("unknown or unsupported modifier `{w}` on {arch}"))),
        }
    }
    if atomic {
        let ret = inst.operands[0] != Operand::None;
        if glc != ret {
            let col = mods.first().map_or(0, |m| m.0);
            return Err(lerr(col, "a returning atomic needs glc/sc0 and a non-returning one must not have it"));
        }
    } else {
        inst.cache.glc_sc0 = glc;
    }
    Ok(())
}

/// Parses `swizzle(...)` or a raw number.
fn parse_swizzle(v: &str) -> Option<u16> {
    if let Some(n) = parse_int(v) {
        return u16::try_from(n).ok();
    }
    let inner = v.strip_prefix("swizzle(")?.strip_suffix(')')?;
    let args: Vec<&str> = inner.split(',').map(str::trim).collect();
    let nums = |from: usize| -> Option<Vec<i64>> { args.get(from..)?.iter().map(|a| parse_int(a)).collect() };
    match *args.first()? {
        "QUAD_PERM" => {
            let l = nums(1)?;
            if l.len() != 4 || l.iter().any(|&x| !(0..4).contains(&x)) {
                return None;
            }
            Some(Swizzle::QuadPerm([l[0] as u8, l[1] as u8, l[2] as u8, l[3] as u8]).encode())
        }
        "BITMASK_PERM" => {
            let s = args.get(1)?.strip_prefix('"')?.strip_suffix('"')?;
            if s.len() != 5 {
                return None;
            }
            let (mut and, mut or, mut xor) = (0u8, 0u8, 0u8);
            for (i, ch) in s.chars().enumerate() {
                let bit = 1u8 << (4 - i);
                match ch {
                    '0' => {}
                    '1' => or |= bit,
                    'p' => and |= bit,
                    'i' => {
                        and |= bit;
                        xor |= bit;
                    }
                    _ => return None,
                }
            }
            Some(Swizzle::Bitmask { and, or, xor }.encode())
        }
        "SWAP" => {
            let l = nums(1)?;
            let n = *l.first()?;
            if l.len() != 1 || !(1..=16).contains(&n) || !(n as u32).is_power_of_two() {
                return None;
            }
            Some(Swizzle::Bitmask { and: 0x1F, or: 0, xor: n as u8 }.encode())
        }
        "REVERSE" => {
            let l = nums(1)?;
            let n = *l.first()?;
            if l.len() != 1 || !(2..=32).contains(&n) || !(n as u32).is_power_of_two() {
                return None;
            }
            Some(Swizzle::Bitmask { and: 0x1F, or: 0, xor: (n - 1) as u8 }.encode())
        }
        "BROADCAST" => {
            let l = nums(1)?;
            if l.len() != 2 {
                return None;
            }
            let (g, k) = (l[0], l[1]);
            if !(2..=32).contains(&g) || !(g as u32).is_power_of_two() || !(0..g).contains(&k) {
                return None;
            }
            Some(Swizzle::Bitmask { and: (0x1F & !(g - 1)) as u8, or: k as u8, xor: 0 }.encode())
        }
        _ => None,
    }
}

/// Parses the immediate of a SOPP instruction. Returns a label reference for branches.
fn parse_sopp(
    inst: &mut Inst,
    kind: SoppImm,
    text: &str,
    col: usize,
    target: Target,
) -> Result<Option<(String, usize)>, LineErr> {
    let fam = target.family();
    let raw16 = |s: &str| -> Result<i32, LineErr> {
        let v = parse_int(s).ok_or_else(|| lerr(col, format!("expected a number, found `{s}`")))?;
        if (0..=0xFFFF).contains(&v) {
            Ok(v as i32)
        } else {
            Err(lerr(col, "immediate does not fit in 16 bits"))
        }
    };
    match kind {
        SoppImm::None => {
            if !text.is_empty() {
                inst.imm = raw16(text)?;
            }
        }
        SoppImm::Imm => inst.imm = raw16(text)?,
        SoppImm::Branch => {
            if let Some(v) = parse_int(text) {
                // The disassembler prints SIMM16 unsigned; read 32768..=65535 as negative.
                let v = if (32768..=65535).contains(&v) { v - 65536 } else { v };
                inst.imm = i32::try_from(v).map_err(|_| lerr(col, "branch offset out of range"))?;
            } else if is_ident(text) {
                return Ok(Some((text.to_string(), col)));
            } else {
                return Err(lerr(col, "expected a label or a dword offset"));
            }
        }
        SoppImm::Waitcnt => {
            if let Some(v) = parse_int(text) {
                inst.imm = raw16(&v.to_string())?;
                return Ok(None);
            }
            let mut w = Waitcnt::none(fam);
            for (c, part) in split_top(text, col, |c| c.is_whitespace() || c == ',' || c == '&') {
                let (name, n) = call(part)
                    .ok_or_else(|| lerr(c, format!("expected vmcnt(N)/expcnt(N)/lgkmcnt(N), found `{part}`")))?;
                let n = parse_int(n).ok_or_else(|| lerr(c, "expected a count"))?;
                let max = match name {
                    "vmcnt" => i64::from(Waitcnt::VM_MAX),
                    "expcnt" => i64::from(Waitcnt::EXP_MAX),
                    "lgkmcnt" => i64::from(Waitcnt::lgkm_max(fam)),
                    _ => return Err(lerr(c, format!("unknown counter `{name}`"))),
                };
                if !(0..=max).contains(&n) {
                    return Err(lerr(c, format!("{name} is 0..={max}")));
                }
                match name {
                    "vmcnt" => w.vm = n as u8,
                    "expcnt" => w.exp = n as u8,
                    _ => w.lgkm = n as u8,
                }
            }
            inst.imm = i32::from(w.encode(fam));
        }
        SoppImm::Depctr => {
            if let Some(v) = parse_int(text) {
                inst.imm = raw16(&v.to_string())?;
                return Ok(None);
            }
            let mut v: u16 = DEPCTR_FIELDS.iter().fold(0, |a, &(_, d, off, _)| a | d << off);
            for (c, part) in split_top(text, col, |c| c.is_whitespace() || c == ',' || c == '&') {
                let (name, n) = call(part).ok_or_else(|| lerr(c, format!("expected depctr_*(N), found `{part}`")))?;
                let &(_, max, off, _) = DEPCTR_FIELDS
                    .iter()
                    .find(|f| f.0 == name)
                    .ok_or_else(|| lerr(c, format!("unknown field `{name}`")))?;
                let n = parse_int(n)
                    .filter(|n| (0..=i64::from(max)).contains(n))
                    .ok_or_else(|| lerr(c, "invalid value"))?;
                v = v & !(max << off) | (n as u16) << off;
            }
            inst.imm = i32::from(v);
        }
        SoppImm::DelayAlu => {
            if let Some(v) = parse_int(text) {
                inst.imm = raw16(&v.to_string())?;
                return Ok(None);
            }
            let mut v = 0u16;
            for (c, part) in split_top(text, col, |c| c.is_whitespace() || c == '|') {
                let (name, arg) =
                    call(part).ok_or_else(|| lerr(c, format!("expected instid0/instskip/instid1, found `{part}`")))?;
                let pos = |list: &[&str]| list.iter().position(|x| *x == arg).map(|p| p as u16);
                match name {
                    "instid0" => v |= pos(&DELAY_IDS).ok_or_else(|| lerr(c, "unknown instid"))?,
                    "instskip" => v |= pos(&DELAY_SKIPS).ok_or_else(|| lerr(c, "unknown instskip"))? << 4,
                    "instid1" => v |= pos(&DELAY_IDS).ok_or_else(|| lerr(c, "unknown instid"))? << 7,
                    _ => return Err(lerr(c, format!("unknown field `{name}`"))),
                }
            }
            inst.imm = i32::from(v);
        }
        SoppImm::Sendmsg => {
            if let Some(v) = parse_int(text) {
                inst.imm = raw16(&v.to_string())?;
                return Ok(None);
            }
            let norm: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let id = (0u16..64).find(|&i| {
                check::sendmsg_name(i, fam)
                    .is_some_and(|n| n.chars().filter(|c| !c.is_whitespace()).collect::<String>() == norm)
            });
            inst.imm = i32::from(id.ok_or_else(|| lerr(col, format!("unsupported message `{text}`")))?);
        }
    }
    Ok(None)
}

/// Splits `name(arg)`.
fn call(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once('(')?;
    Some((name.trim(), rest.strip_suffix(')')?.trim()))
}
