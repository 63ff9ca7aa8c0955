//! The `.qdm` parser: recursive descent over the lexer's tokens, building [`Module`]s through the
//! [`Function`] API.
//!
//! The printer ([`super::printer`]) defines the syntax; `print(parse(x))` is a fixed point. The
//! parser checks syntax and names only — unknown ops and types, undefined or redefined values,
//! undefined shared arrays and kernels, malformed immediates — and leaves types, operand counts
//! and dominance to the verifier. It dispatches instructions through [`Opcode::from_name`] and
//! the op table's [`Format`], so a new op in an existing format needs no parser change. It never
//! panics: every problem is a [`ParseError`] at a line and column, rendered rustc-style by
//! [`ParseError::render`].

use super::lexer::{self, LexError, Tok, Token};
use crate::entities::{AnyEntity, Inst, Region, SharedArr, Value};
use crate::function::{
    Function, GridPolicy, Launch, LaunchArg, Module, Program, ProgramCheck, ProgramParam, ProgramStatus,
};
use crate::inst::{Imm, Tile};
use crate::ops::{AtomicOp, CmpCond, Dim, Format, GroupOp, Opcode, PredOp, Scope};
use crate::types::{AddrSpace, ScalarType, Type};
use core::fmt;
use core::hash::{BuildHasher, Hasher};
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;

/// How deeply `if`/`loop` regions may nest before the parser gives up (bounds its recursion).
pub const MAX_NESTING: u32 = 256;

/// A syntax or name error, at a 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// Renders the error rustc-style, with carets under the offending token:
    ///
    /// ```text
    /// error: unknown op `ad`
    ///  --> k.qdm:3:8
    ///   |
    /// 3 |   %2 = ad %0, %1 : u32
    ///   |        ^^
    /// ```
    pub fn render(&self, src: &str, path: &str) -> String {
        let (line_start, text) = line_text(src, self.line);
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        let skip = (self.col as usize).saturating_sub(1);
        // Indent the carets with the line's own tabs so they line up in any tab width.
        let indent: String = text.chars().take(skip).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let offset = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
        let remaining = text.chars().count().saturating_sub(skip).max(1);
        let carets = lexer::token_chars_at(src, line_start + offset).min(remaining);
        format!(
            "error: {msg}\n{pad}--> {path}:{line}:{col}\n{pad} |\n{num} | {text}\n{pad} | {indent}{carets}\n",
            msg = self.message,
            line = self.line,
            col = self.col,
            carets = "^".repeat(carets),
        )
    }
}

/// Where the entities of parsed kernels were defined (1-based lines and columns), and the text
/// name of every value.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    kernels: Vec<KernelLines>,
    programs: Vec<u32>,
}

/// A 1-based line and column (in characters); 0 means unknown.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Pos {
    line: u32,
    col: u32,
}

#[derive(Clone, Debug, Default)]
struct KernelLines {
    /// The `kernel` keyword.
    header: Pos,
    /// Each parameter's `%name`.
    params: Vec<Pos>,
    /// Each shared array's `@name`.
    shared: SecondaryMap<SharedArr, Pos>,
    /// Each instruction's op name.
    insts: SecondaryMap<Inst, Pos>,
    /// The `if`/`loop`/`else` keyword of each region.
    regions: SecondaryMap<Region, Pos>,
    /// Each value's defining `%name`.
    values: SecondaryMap<Value, Pos>,
    /// The byte range of each value's `%name` in the source.
    names: SecondaryMap<Value, (u32, u32)>,
}

impl SourceMap {
    /// The line where entity `e` of kernel number `kernel` (in file order) is defined: the
    /// header for the function and its parameters, the declaration of a shared array, the line
    /// of an instruction or of a value's definition, and for a region the line of the owning
    /// `if`/`loop` (or of `} else {`; the body region maps to the header).
    pub fn line_of(&self, kernel: usize, e: AnyEntity) -> Option<u32> {
        self.position_of(kernel, e).map(|(line, _)| line)
    }

    /// The line and column where entity `e` of kernel number `kernel` is defined: the `kernel`
    /// keyword for the function, a parameter's `%name`, a shared array's `@name`, an
    /// instruction's op name, a value's defining `%name`, and for a region the `if`, `loop` or
    /// `else` keyword that opens it (the body maps to the `kernel` keyword).
    pub fn position_of(&self, kernel: usize, e: AnyEntity) -> Option<(u32, u32)> {
        let k = self.kernels.get(kernel)?;
        let pos = match e {
            AnyEntity::Function => k.header,
            AnyEntity::Param(i) => k.params.get(usize::from(i)).copied().unwrap_or_default(),
            AnyEntity::Shared(s) => k.shared.get(s).copied().unwrap_or_default(),
            AnyEntity::Inst(i) => k.insts.get(i).copied().unwrap_or_default(),
            AnyEntity::Region(r) => k.regions.get(r).copied().unwrap_or_default(),
            AnyEntity::Value(v) => k.values.get(v).copied().unwrap_or_default(),
        };
        (pos.line != 0).then_some((pos.line, pos.col))
    }

    /// The text name (`%sum`) value `v` of kernel number `kernel` has in `src` (the source this
    /// map was parsed from).
    pub fn value_name<'s>(&self, kernel: usize, v: Value, src: &'s str) -> Option<&'s str> {
        let &(start, len) = self.kernels.get(kernel)?.names.get(v)?;
        (len != 0).then(|| src.get(start as usize..(start + len) as usize)).flatten()
    }

    /// The header line of kernel number `kernel`.
    pub fn kernel_line(&self, kernel: usize) -> Option<u32> {
        self.kernels.get(kernel).map(|k| k.header.line)
    }

    /// The header line of program number `program`.
    pub fn program_line(&self, program: usize) -> Option<u32> {
        self.programs.get(program).copied()
    }
}

/// Parses a module: any number of kernels and programs, in any order.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    parse_module_with_map(src).map(|(m, _)| m)
}

/// Parses a module and records where each kernel entity was defined.
pub fn parse_module_with_map(src: &str) -> Result<(Module, SourceMap), ParseError> {
    if src.len() >= lexer::MAX_SOURCE_LEN {
        return Err(ParseError { line: 1, col: 1, message: "source is too large (4 GiB or more)".into() });
    }
    Parser::new(src).module()
}

/// Parses a file holding exactly one kernel (and no programs).
pub fn parse_function(src: &str) -> Result<Function, ParseError> {
    let (m, map) = parse_module_with_map(src)?;
    let at = |line: Option<u32>, message: String| ParseError { line: line.unwrap_or(1), col: 1, message };
    if let Some(line) = map.program_line(0) {
        return Err(at(Some(line), "expected exactly one kernel, found a program".into()));
    }
    if m.kernels.len() > 1 {
        return Err(at(map.kernel_line(1), "expected exactly one kernel, found a second one".into()));
    }
    m.kernels.into_iter().next().ok_or_else(|| at(Some(1), "expected exactly one kernel, found none".into()))
}

/// A small, fast string hasher for name tables (FxHash-style; names are not adversarial keys
/// worth SipHash, and parsing speed matters).
#[derive(Copy, Clone, Default)]
struct FxBuild;

struct FxHasher(u64);

impl BuildHasher for FxBuild {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Names<'a, T> = HashMap<&'a str, T, FxBuild>;

/// Per-kernel state: the function being built and its name tables.
struct Kernel<'a> {
    func: Function,
    values: Names<'a, Value>,
    shared: Names<'a, SharedArr>,
    lines: KernelLines,
    depth: u32,
}

/// A constant literal: an optional `-` token, then the number or word token.
#[derive(Copy, Clone)]
struct Literal {
    first: usize,
    neg: bool,
    tok: usize,
}

/// The result names of an instruction: `count` value tokens from `first`, every other token
/// (`%a, %b, %c`), so naming needs no allocation.
#[derive(Copy, Clone)]
struct ResultNames {
    first: usize,
    count: usize,
}

impl ResultNames {
    fn tokens(self) -> impl Iterator<Item = usize> {
        (0..self.count).map(move |i| self.first + 2 * i)
    }
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// Scratch operand list (taken and restored around use).
    args: Vec<Value>,
    /// Scratch result-type list (taken and restored around use).
    tys: Vec<Type>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser { src, toks: lexer::tokenize(src), pos: 0, args: Vec::new(), tys: Vec::new() }
    }

    // ---- token helpers ------------------------------------------------------------------

    fn tok(&self, i: usize) -> Token {
        // `toks` always ends with Eof and `pos` never passes it.
        self.toks.get(i).or(self.toks.last()).copied().unwrap_or(Token::EMPTY_EOF)
    }

    fn peek(&self) -> Token {
        self.tok(self.pos)
    }

    fn peek_kind(&self) -> Tok {
        self.peek().kind
    }

    fn text(&self, i: usize) -> &'a str {
        let t = self.tok(i);
        self.src.get(t.start()..t.end()).unwrap_or("")
    }

    fn bump(&mut self) -> usize {
        let at = self.pos;
        if at + 1 < self.toks.len() {
            self.pos += 1;
        }
        at
    }

    fn at_ident(&self, word: &str) -> bool {
        self.peek_kind() == Tok::Ident && self.text(self.pos) == word
    }

    fn eat(&mut self, kind: Tok) -> bool {
        if self.peek_kind() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<usize, ParseError> {
        if self.peek_kind() == kind {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    /// An identifier naming one of a fixed set of keywords (`x`, `lt`, `device`, ...).
    fn keyword<T>(&mut self, parse: fn(&str) -> Option<T>, what: &str) -> Result<T, ParseError> {
        if self.peek_kind() == Tok::Ident {
            if let Some(v) = parse(self.text(self.pos)) {
                self.bump();
                return Ok(v);
            }
        }
        Err(self.expected(what))
    }

    /// The line and column of token `i`.
    fn position(&self, i: usize) -> (u32, u32) {
        let t = self.tok(i);
        let before = self.src.get(..t.start()).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let col = before.get(line_start..).map_or(0, |s| s.chars().count());
        (t.line, u32::try_from(col).unwrap_or(u32::MAX).saturating_add(1))
    }

    fn pos_of(&self, i: usize) -> Pos {
        let (line, col) = self.position(i);
        Pos { line, col }
    }

    fn err_at(&self, i: usize, message: impl Into<String>) -> ParseError {
        let (line, col) = self.position(i);
        ParseError { line, col, message: message.into() }
    }

    /// How a token reads in a message: its text in backquotes, or a phrase.
    fn describe(&self, i: usize) -> String {
        match self.tok(i).kind {
            Tok::Eof => "end of input".into(),
            _ => {
                let text = self.text(i);
                if text.chars().count() > 40 {
                    format!("`{}…`", text.chars().take(40).collect::<String>())
                } else {
                    format!("`{text}`")
                }
            }
        }
    }

    /// "expected WHAT, found TOKEN" at the current token (or the lexer's complaint about it).
    fn expected(&self, what: &str) -> ParseError {
        let t = self.peek();
        let message = match t.kind {
            Tok::Error(LexError::BadChar) => format!("unexpected character {}", self.describe(self.pos)),
            Tok::Error(LexError::EmptyValue) => "expected a value name after `%`".into(),
            Tok::Error(LexError::EmptyGlobal) => "expected a name after `@`".into(),
            Tok::Error(LexError::UnterminatedString) => "unterminated string (no closing `\"` on this line)".into(),
            _ => format!("expected {what}, found {}", self.describe(self.pos)),
        };
        self.err_at(self.pos, message)
    }

    // ---- module level -------------------------------------------------------------------

    fn module(mut self) -> Result<(Module, SourceMap), ParseError> {
        let mut module = Module::default();
        let mut map = SourceMap::default();
        // `launch @k` tokens, checked once every kernel is known (items come in any order).
        let mut launches: Vec<usize> = Vec::new();
        loop {
            match self.peek_kind() {
                Tok::Eof => break,
                Tok::Ident if self.at_ident("kernel") => {
                    let (f, lines) = self.kernel()?;
                    module.kernels.push(f);
                    map.kernels.push(lines);
                }
                Tok::Ident if self.at_ident("program") => {
                    map.programs.push(self.peek().line);
                    let p = self.program(&mut launches)?;
                    module.programs.push(p);
                }
                _ => return Err(self.expected("`kernel` or `program`")),
            }
        }
        let known: Names<'_, ()> = module.kernels.iter().map(|k| (k.name.as_str(), ())).collect();
        for &at in &launches {
            let name = self.text(at).get(1..).unwrap_or("");
            if !known.contains_key(name) {
                return Err(self.err_at(at, format!("unknown kernel @{name} in `launch`")));
            }
        }
        Ok((module, map))
    }

    fn global_name(&mut self, what: &str) -> Result<(usize, &'a str), ParseError> {
        let at = self.expect(Tok::Global, what)?;
        Ok((at, self.text(at).get(1..).unwrap_or("")))
    }

    fn value_name(&self, at: usize) -> &'a str {
        self.text(at).get(1..).unwrap_or("")
    }

    fn program(&mut self, launches: &mut Vec<usize>) -> Result<Program, ParseError> {
        self.bump();
        let (_, name) = self.global_name("a program name (`@name`)")?;
        let mut prog = Program::new(name);
        let mut names: Names<'a, u16> = HashMap::default();
        self.expect(Tok::LParen, "`(`")?;
        if !self.eat(Tok::RParen) {
            loop {
                let at = self.expect(Tok::Value, "a parameter name (`%name`)")?;
                let pname = self.value_name(at);
                self.expect(Tok::Colon, "`:`")?;
                let ty = self.ty()?;
                let idx = u16::try_from(prog.params.len()).map_err(|_| self.err_at(at, "too many parameters"))?;
                if names.insert(pname, idx).is_some() {
                    return Err(self.err_at(at, format!("parameter %{pname} is already defined")));
                }
                prog.params.push(ProgramParam { name: pname.to_string(), ty });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
        }
        self.expect(Tok::LBrace, "`{`")?;
        while !self.eat(Tok::RBrace) {
            if self.at_ident("status") {
                self.program_status(&mut prog, &names)?;
                continue;
            }
            if self.at_ident("check") {
                self.program_check(&mut prog, &names)?;
                continue;
            }
            if !self.at_ident("launch") {
                return Err(self.expected("`status`, `check`, `launch` or `}`"));
            }
            self.bump();
            let (at, kernel) = self.global_name("a kernel name (`@name`)")?;
            launches.push(at);
            let mut args = Vec::new();
            self.expect(Tok::LParen, "`(`")?;
            if !self.eat(Tok::RParen) {
                loop {
                    if self.peek_kind() == Tok::Value
                        && prog.status.as_ref().is_some_and(|st| st.name == self.value_name(self.pos))
                    {
                        self.bump();
                        args.push(LaunchArg::Status);
                    } else if self.peek_kind() == Tok::Value {
                        let at = self.bump();
                        let pname = self.value_name(at);
                        let idx = names
                            .get(pname)
                            .copied()
                            .ok_or_else(|| self.err_at(at, format!("parameter %{pname} is not defined")))?;
                        args.push(LaunchArg::Param(idx));
                    } else {
                        let lit = self.literal()?;
                        self.expect(Tok::Colon, "`:` and the constant's type")?;
                        let ty_at = self.pos;
                        let ty = self.ty()?;
                        let ty = self.scalar_of(ty_at, ty)?;
                        args.push(LaunchArg::Const(ty, self.const_bits(lit, ty)?));
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "`,` or `)`")?;
            }
            prog.launches.push(Launch { kernel: kernel.to_string(), args });
        }
        Ok(prog)
    }

    fn string(&mut self, what: &str) -> Result<String, ParseError> {
        let at = self.expect(Tok::Str, what)?;
        Ok(lexer::unquote(self.text(at)))
    }

    /// `status %NAME bit K "message"` (or `status %NAME` alone).
    fn program_status(&mut self, prog: &mut Program, names: &Names<'a, u16>) -> Result<(), ParseError> {
        self.bump();
        let at = self.expect(Tok::Value, "the status word's name (`%name`)")?;
        let sname = self.value_name(at);
        if names.contains_key(sname) {
            return Err(self.err_at(at, format!("%{sname} is a parameter; the status word needs its own name")));
        }
        match &prog.status {
            Some(st) if st.name != sname => {
                return Err(self.err_at(at, format!("the program already has the status word %{}", st.name)))
            }
            Some(_) => {}
            None => prog.status = Some(ProgramStatus { name: sname.to_string(), bits: Vec::new() }),
        }
        if !self.at_ident("bit") {
            return Ok(());
        }
        self.bump();
        let bit_at = self.expect(Tok::Num, "a bit index (0 to 31)")?;
        let bit = self.text(bit_at).parse::<u8>().ok().filter(|b| *b < 32);
        let bit = bit.ok_or_else(|| self.err_at(bit_at, "a status bit index is 0 to 31"))?;
        let msg = self.string("the bit's message (`\"…\"`)")?;
        let st = prog.status.as_mut().ok_or_else(|| self.err_at(at, "no status word"))?;
        if st.bits.iter().any(|(b, _)| *b == bit) {
            return Err(self.err_at(bit_at, format!("status bit {bit} already has a message")));
        }
        st.bits.push((bit, msg));
        st.bits.sort_by_key(|(b, _)| *b);
        Ok(())
    }

    fn buffer_param(&mut self, names: &Names<'a, u16>) -> Result<u16, ParseError> {
        let at = self.expect(Tok::Value, "a parameter name (`%name`)")?;
        let pname = self.value_name(at);
        names.get(pname).copied().ok_or_else(|| self.err_at(at, format!("parameter %{pname} is not defined")))
    }

    /// `check len %P >= N "why"` or `check distinct %A, %B`.
    fn program_check(&mut self, prog: &mut Program, names: &Names<'a, u16>) -> Result<(), ParseError> {
        self.bump();
        if self.at_ident("len") {
            self.bump();
            let param = self.buffer_param(names)?;
            self.expect(Tok::Gt, "`>=`")?;
            self.expect(Tok::Eq, "`>=`")?;
            let n_at = self.expect(Tok::Num, "a length")?;
            let min = self.text(n_at).parse::<u64>().map_err(|_| self.err_at(n_at, "expected a decimal length"))?;
            let why = self.string("the bound's origin (`\"…\"`)")?;
            prog.checks.push(ProgramCheck::MinLen { param, min, why });
            Ok(())
        } else if self.at_ident("distinct") {
            self.bump();
            let a = self.buffer_param(names)?;
            self.expect(Tok::Comma, "`,`")?;
            let b = self.buffer_param(names)?;
            prog.checks.push(ProgramCheck::Distinct { a, b });
            Ok(())
        } else {
            Err(self.expected("`len` or `distinct`"))
        }
    }

    // ---- kernels ------------------------------------------------------------------------

    fn kernel(&mut self) -> Result<(Function, KernelLines), ParseError> {
        let header = self.pos_of(self.pos);
        self.bump();
        let (_, name) = self.global_name("a kernel name (`@name`)")?;
        let mut k = Kernel {
            func: Function::new(name),
            values: HashMap::with_capacity_and_hasher(((self.toks.len() - self.pos) / 8).min(4096), FxBuild),
            shared: HashMap::default(),
            lines: KernelLines { header, ..KernelLines::default() },
            depth: 0,
        };
        let body = k.func.body;
        k.lines.regions[body] = header;
        self.expect(Tok::LParen, "`(`")?;
        if !self.eat(Tok::RParen) {
            loop {
                self.param(&mut k)?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
        }
        if self.at_ident("block") {
            self.bump();
            k.func.launch.block = self.dims("block size")?;
        }
        if self.at_ident("grid") {
            self.bump();
            k.func.launch.grid = self.grid(&k)?;
        }
        if self.at_ident("subgroup") {
            self.bump();
            self.expect(Tok::LParen, "`(`")?;
            k.func.launch.subgroup_size = Some(self.number_u32("subgroup width")?);
            self.expect(Tok::RParen, "`)`")?;
        }
        self.expect(Tok::LBrace, "`{`")?;
        self.region(&mut k, body, true)?;
        self.expect(Tok::RBrace, "`}`")?;
        Ok((k.func, k.lines))
    }

    fn param(&mut self, k: &mut Kernel<'a>) -> Result<(), ParseError> {
        let at = self.expect(Tok::Value, "a parameter name (`%name`)")?;
        let name = self.value_name(at);
        if name.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.err_at(at, format!("parameter names must not be numbers (%{name} is a numbered value)")));
        }
        self.expect(Tok::Colon, "`:`")?;
        let ty = self.ty()?;
        let uniform = self.at_ident("uniform");
        if uniform {
            self.bump();
        }
        if k.func.params.len() >= usize::from(u16::MAX) {
            return Err(self.err_at(at, "too many parameters"));
        }
        let v = k.func.add_param(name, ty, uniform);
        k.lines.params.push(self.pos_of(at));
        self.define(k, at, v)
    }

    /// `(x)`, `(x, y)` or `(x, y, z)`; missing dimensions are 1.
    fn dims(&mut self, what: &str) -> Result<[u32; 3], ParseError> {
        self.expect(Tok::LParen, "`(`")?;
        let mut d = [1u32; 3];
        for (i, slot) in d.iter_mut().enumerate() {
            *slot = self.number_u32(what)?;
            if i == 2 || !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen, "`,` or `)`")?;
        Ok(d)
    }

    fn grid(&mut self, k: &Kernel<'a>) -> Result<GridPolicy, ParseError> {
        if self.peek_kind() != Tok::LParen {
            return Err(self.expected("`(`"));
        }
        if self.tok(self.pos + 1).kind != Tok::Ident {
            return Ok(GridPolicy::Fixed(self.dims("grid size")?));
        }
        self.bump();
        let policy = if self.at_ident("cover") {
            self.bump();
            let at = self.expect(Tok::Value, "a parameter name (`%name`)")?;
            let name = self.value_name(at);
            let idx = k
                .func
                .param_index(name)
                .and_then(|i| u16::try_from(i).ok())
                .ok_or_else(|| self.err_at(at, format!("%{name} is not a parameter of this kernel")))?;
            GridPolicy::Cover(idx)
        } else if self.at_ident("saturating") {
            self.bump();
            GridPolicy::Saturating
        } else {
            return Err(self.expected("a grid size, `cover %param` or `saturating`"));
        };
        self.expect(Tok::RParen, "`)`")?;
        Ok(policy)
    }

    fn shared_decl(&mut self, k: &mut Kernel<'a>) -> Result<(), ParseError> {
        self.bump();
        let (at, name) = self.global_name("a shared array name (`@name`)")?;
        self.expect(Tok::Colon, "`:`")?;
        self.expect(Tok::LBracket, "`[`")?;
        let ty_at = self.pos;
        let elem = self.ty()?;
        let elem = elem
            .scalar()
            .ok_or_else(|| self.err_at(ty_at, format!("expected a scalar element type, found `{elem}`")))?;
        self.expect(Tok::Semi, "`;`")?;
        let len = self.number_u32("array length")?;
        self.expect(Tok::RBracket, "`]`")?;
        if k.shared.contains_key(name) {
            return Err(self.err_at(at, format!("shared array @{name} is already defined")));
        }
        let s = k.func.add_shared(name, elem, len);
        k.shared.insert(name, s);
        k.lines.shared[s] = self.pos_of(at);
        Ok(())
    }

    fn define(&self, k: &mut Kernel<'a>, at: usize, v: Value) -> Result<(), ParseError> {
        let name = self.value_name(at);
        if k.values.insert(name, v).is_some() {
            return Err(self.err_at(at, format!("value %{name} is already defined")));
        }
        k.lines.values[v] = self.pos_of(at);
        let t = self.tok(at);
        let span = (u32::try_from(t.start()).unwrap_or(0), u32::try_from(t.end() - t.start()).unwrap_or(0));
        k.lines.names[v] = span;
        Ok(())
    }

    fn use_value(&mut self, k: &Kernel<'a>) -> Result<Value, ParseError> {
        let at = self.expect(Tok::Value, "a value (`%name`)")?;
        let name = self.value_name(at);
        k.values.get(name).copied().ok_or_else(|| self.err_at(at, format!("value %{name} is not defined")))
    }

    /// Operands: a comma-separated list of values, possibly empty. The first must be on
    /// `line` (the instruction's), so an op without operands does not swallow the next line.
    fn operands(&mut self, k: &Kernel<'a>, line: u32, out: &mut Vec<Value>) -> Result<(), ParseError> {
        out.clear();
        let t = self.peek();
        if t.kind != Tok::Value || t.line != line {
            return Ok(());
        }
        loop {
            out.push(self.use_value(k)?);
            if !self.eat(Tok::Comma) {
                return Ok(());
            }
        }
    }

    // ---- regions and instructions -------------------------------------------------------

    /// Instructions up to (not including) the closing `}`.
    fn region(&mut self, k: &mut Kernel<'a>, region: Region, top: bool) -> Result<(), ParseError> {
        loop {
            match self.peek_kind() {
                Tok::RBrace => return Ok(()),
                Tok::Eof => return Err(self.expected("an instruction or `}`")),
                Tok::Ident if self.at_ident("shared") => {
                    if !top {
                        return Err(self.err_at(self.pos, "shared arrays are declared at the top level of a kernel"));
                    }
                    self.shared_decl(k)?;
                }
                _ => self.inst(k, region)?,
            }
        }
    }

    fn inst(&mut self, k: &mut Kernel<'a>, region: Region) -> Result<(), ParseError> {
        let line = self.peek().line;
        let mut names = ResultNames { first: self.pos, count: 0 };
        if self.peek_kind() == Tok::Value {
            loop {
                self.expect(Tok::Value, "a result name (`%name`)")?;
                names.count += 1;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Eq, "`=` or `,`")?;
        }
        if self.peek_kind() != Tok::Ident {
            return Err(self.expected("an instruction"));
        }
        let op_at = self.bump();
        let op_name = self.text(op_at);
        let op = Opcode::from_name(op_name).ok_or_else(|| self.err_at(op_at, format!("unknown op `{op_name}`")))?;
        let info = op.info();
        let mut imm = Imm::None;
        let mut literal = None;
        match info.format {
            Format::If => return self.if_inst(k, region, line, op_at, names),
            Format::Loop => return self.loop_inst(k, region, op_at, names),
            Format::Const => literal = Some(self.literal()?),
            Format::Nullary
            | Format::Unary
            | Format::Binary
            | Format::Ternary
            | Format::Terminator
            | Format::Effect => {}
            Format::Dim => imm = Imm::Dim(self.keyword(Dim::from_name, "a dimension (`x`, `y` or `z`)")?),
            Format::Cmp => imm = Imm::Cond(self.keyword(CmpCond::from_name, "a condition (`eq`, `lt`, ...)")?),
            Format::SharedAddr => {
                let (at, name) = self.global_name("a shared array (`@name`)")?;
                let s = k.shared.get(name).copied();
                imm = Imm::Shared(s.ok_or_else(|| self.err_at(at, format!("shared array @{name} is not defined")))?);
            }
            Format::Atomic => {
                let a = self.keyword(AtomicOp::from_name, "an atomic operation (`add`, `exch`, ...)")?;
                imm = Imm::Atomic(a, self.scope()?);
            }
            Format::AtomicCas | Format::Fence => imm = Imm::Scope(self.scope()?),
            Format::Count => {
                let at = self.pos;
                let n = self.number_u32("lane count")?;
                imm = Imm::Count(u8::try_from(n).map_err(|_| self.err_at(at, format!("lane count {n} is too large")))?);
            }
            Format::Tiled => imm = Imm::Tile(self.tile()?),
            Format::Group => {
                let op = self.keyword(GroupOp::from_name, "a group operator (`add`, `min`, ...)")?;
                imm = Imm::Group { op, tile: self.tile()?, inclusive: true };
            }
            Format::Scan => {
                let inclusive = self.keyword(
                    |s| match s {
                        "inclusive" => Some(true),
                        "exclusive" => Some(false),
                        _ => None,
                    },
                    "`inclusive` or `exclusive`",
                )?;
                let op = self.keyword(GroupOp::from_name, "a group operator (`add`, `min`, ...)")?;
                imm = Imm::Group { op, tile: self.tile()?, inclusive };
            }
            Format::SyncPred => imm = Imm::Pred(self.keyword(PredOp::from_name, "`and`, `or` or `count`")?),
        }
        let mut args = std::mem::take(&mut self.args);
        self.operands(k, line, &mut args)?;
        let colon = self.pos;
        let mut types = std::mem::take(&mut self.tys);
        types.clear();
        if self.eat(Tok::Colon) {
            self.types(false, &mut types)?;
        }
        let want = usize::from(info.num_results.unwrap_or(0));
        if names.count != want {
            return Err(self.err_at(
                if names.count > 0 { names.first } else { op_at },
                match want {
                    0 => format!("`{op_name}` has no result, but {} name(s) are given", names.count),
                    _ => format!("`{op_name}` has {want} result(s); write `%name = {op_name} ...`"),
                },
            ));
        }
        if types.len() != want {
            return Err(match (want, types.len()) {
                (0, _) => self.err_at(colon, format!("`{op_name}` has no result to annotate with a type")),
                (_, 0) => self.expected("`:` and the result type"),
                (_, n) => self.err_at(colon, format!("`{op_name}` has {want} result(s), but {n} types are given")),
            });
        }
        if let Some(lit) = literal {
            let ty = types.first().copied().unwrap_or(Type::U32);
            let ty = self.scalar_of(colon + 1, ty)?;
            imm = Imm::Const(self.const_bits(lit, ty)?);
        }
        let inst = k.func.make_inst(op, imm, &args, &types);
        self.args = args;
        self.tys = types;
        self.finish_inst(k, region, inst, op_at, names)
    }

    /// Appends `inst`, names its results and records where its op name `op_at` is.
    fn finish_inst(
        &mut self,
        k: &mut Kernel<'a>,
        region: Region,
        inst: Inst,
        op_at: usize,
        names: ResultNames,
    ) -> Result<(), ParseError> {
        k.func.append_inst(region, inst);
        k.lines.insts[inst] = self.pos_of(op_at);
        let results = k.func.results[inst];
        for (i, at) in names.tokens().enumerate() {
            if let Some(v) = results.get(i, &k.func.pool) {
                self.define(k, at, v)?;
            }
        }
        Ok(())
    }

    fn check_result_names(&self, names: ResultNames, types: &[Type], at: usize, op: &str) -> Result<(), ParseError> {
        if names.count == types.len() {
            return Ok(());
        }
        let (n, t) = (names.count, types.len());
        Err(self.err_at(
            if n > 0 { names.first } else { at },
            format!("`{op}` has {t} result type(s) after `->`, but {n} result name(s) are given"),
        ))
    }

    fn enter(&mut self, k: &mut Kernel<'a>) -> Result<(), ParseError> {
        k.depth += 1;
        if k.depth > MAX_NESTING {
            return Err(self.err_at(self.pos, format!("regions nest more than {MAX_NESTING} deep")));
        }
        Ok(())
    }

    fn if_inst(
        &mut self,
        k: &mut Kernel<'a>,
        region: Region,
        line: u32,
        op_at: usize,
        names: ResultNames,
    ) -> Result<(), ParseError> {
        let mut args = std::mem::take(&mut self.args);
        self.operands(k, line, &mut args)?;
        let mut types = std::mem::take(&mut self.tys);
        types.clear();
        if self.eat(Tok::Arrow) {
            self.types(true, &mut types)?;
        }
        self.check_result_names(names, &types, op_at, "if")?;
        let inst = k.func.make_inst(Opcode::If, Imm::None, &args, &types);
        self.args = args;
        self.tys = types;
        self.finish_inst(k, region, inst, op_at, names)?;
        self.enter(k)?;
        self.expect(Tok::LBrace, "`{`")?;
        let then = k.func.make_region();
        k.lines.regions[then] = self.pos_of(op_at);
        self.region(k, then, false)?;
        self.bump();
        let mut els = None;
        if self.at_ident("else") {
            let else_pos = self.pos_of(self.pos);
            self.bump();
            self.expect(Tok::LBrace, "`{`")?;
            let e = k.func.make_region();
            k.lines.regions[e] = else_pos;
            self.region(k, e, false)?;
            self.bump();
            els = Some(e);
        }
        k.func.set_inst_regions(inst, Some(then), els);
        k.depth -= 1;
        Ok(())
    }

    fn loop_inst(
        &mut self,
        k: &mut Kernel<'a>,
        region: Region,
        op_at: usize,
        names: ResultNames,
    ) -> Result<(), ParseError> {
        self.expect(Tok::LParen, "`(`")?;
        let mut params: Vec<(usize, Type)> = Vec::new();
        let mut inits = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                let at = self.expect(Tok::Value, "a loop parameter (`%name: T = %init`)")?;
                self.expect(Tok::Colon, "`:`")?;
                let ty = self.ty()?;
                self.expect(Tok::Eq, "`=`")?;
                inits.push(self.use_value(k)?);
                params.push((at, ty));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
        }
        let mut types = std::mem::take(&mut self.tys);
        types.clear();
        if self.eat(Tok::Arrow) {
            self.types(true, &mut types)?;
        }
        self.check_result_names(names, &types, op_at, "loop")?;
        let inst = k.func.make_inst(Opcode::Loop, Imm::None, &inits, &types);
        self.tys = types;
        self.finish_inst(k, region, inst, op_at, names)?;
        let body = k.func.make_region();
        k.lines.regions[body] = self.pos_of(op_at);
        for (at, ty) in params {
            let v = k.func.add_region_param(body, ty);
            self.define(k, at, v)?;
        }
        self.enter(k)?;
        self.expect(Tok::LBrace, "`{`")?;
        self.region(k, body, false)?;
        self.bump();
        k.func.set_inst_regions(inst, Some(body), None);
        k.depth -= 1;
        Ok(())
    }

    // ---- types and immediates -----------------------------------------------------------

    fn ty(&mut self) -> Result<Type, ParseError> {
        if self.peek_kind() == Tok::Ident {
            let word = self.text(self.pos);
            if let Some(s) = ScalarType::from_name(word) {
                self.bump();
                return Ok(Type::Scalar(s));
            }
            if word == "ptr" {
                self.bump();
                self.expect(Tok::Lt, "`<`")?;
                let space = self.keyword(AddrSpace::from_name, "an address space (`global` or `shared`)")?;
                self.expect(Tok::Comma, "`,`")?;
                let elem = self.keyword(ScalarType::from_name, "a scalar type")?;
                self.expect(Tok::Gt, "`>`")?;
                return Ok(Type::Ptr(space, elem));
            }
        }
        Err(self.expected("type"))
    }

    /// `T` or `(T, ...)`; with `parens`, only the parenthesised form (possibly empty).
    fn types(&mut self, parens: bool, list: &mut Vec<Type>) -> Result<(), ParseError> {
        if !parens && self.peek_kind() != Tok::LParen {
            list.push(self.ty()?);
            return Ok(());
        }
        self.expect(Tok::LParen, "`(`")?;
        if !self.eat(Tok::RParen) {
            loop {
                list.push(self.ty()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "`,` or `)`")?;
        }
        Ok(())
    }

    fn scalar_of(&self, at: usize, ty: Type) -> Result<ScalarType, ParseError> {
        ty.scalar().ok_or_else(|| self.err_at(at, format!("a constant must have a scalar type, found `{ty}`")))
    }

    fn scope(&mut self) -> Result<Scope, ParseError> {
        self.keyword(Scope::from_name, "a scope (`subgroup`, `block` or `device`)")
    }

    /// An optional `tile(N)`.
    fn tile(&mut self) -> Result<Tile, ParseError> {
        if !self.at_ident("tile") {
            return Ok(Tile::Full);
        }
        self.bump();
        self.expect(Tok::LParen, "`(`")?;
        let at = self.pos;
        let n = self.number_u32("tile size (log2 lanes)")?;
        let l = u8::try_from(n).map_err(|_| self.err_at(at, format!("tile size {n} is too large")))?;
        self.expect(Tok::RParen, "`)`")?;
        Ok(Tile::Log2(l))
    }

    /// A decimal `u32` (sizes, counts).
    fn number_u32(&mut self, what: &str) -> Result<u32, ParseError> {
        let at = self.pos;
        if self.peek_kind() != Tok::Num {
            return Err(self.expected(what));
        }
        let text = self.text(at);
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.expected(what));
        }
        self.bump();
        let n = decimal(text).unwrap_or(u64::MAX);
        u32::try_from(n).map_err(|_| self.err_at(at, format!("{what} `{text}` does not fit in 32 bits")))
    }

    /// A constant literal, converted once its type is known ([`Self::const_bits`]).
    fn literal(&mut self) -> Result<Literal, ParseError> {
        let first = self.pos;
        let neg = self.peek_kind() == Tok::Minus;
        if neg {
            let sign = self.peek();
            let next = self.tok(self.pos + 1);
            if !matches!(next.kind, Tok::Num | Tok::Ident) || next.start() != sign.end() {
                self.bump();
                return Err(self.expected("a number right after `-`"));
            }
            self.bump();
        }
        if !matches!(self.peek_kind(), Tok::Num | Tok::Ident) {
            return Err(self.expected("a constant"));
        }
        Ok(Literal { first, neg, tok: self.bump() })
    }

    /// The raw bits of `lit` as a constant of type `ty`.
    fn const_bits(&self, lit: Literal, ty: ScalarType) -> Result<u64, ParseError> {
        let text = self.text(lit.tok);
        let sign = if lit.neg { "-" } else { "" };
        let err = |msg: String| Err(self.err_at(lit.first, msg));
        let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
        if let Some(digits) = hex {
            if lit.neg {
                return err(format!("raw bits `{text}` cannot be negative"));
            }
            let bits =
                parse_hex(digits).ok_or_else(|| self.err_at(lit.first, format!("malformed hex constant `{text}`")))?;
            let fits = ty.bits() >= 64 || bits >> ty.bits() == 0;
            if ty == ScalarType::Bool || !fits {
                return err(format!("raw bits `{text}` do not fit in `{ty}`"));
            }
            return Ok(bits);
        }
        match ty {
            ScalarType::Bool => match (lit.neg, text) {
                (false, "true") => Ok(1),
                (false, "false") => Ok(0),
                _ => err(format!("expected `true` or `false` for a `bool` constant, found `{sign}{text}`")),
            },
            ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 => {
                if !text.bytes().all(|b| b.is_ascii_digit()) {
                    return err(format!("expected an integer constant for `{ty}`, found `{sign}{text}`"));
                }
                let out_of_range = || self.err_at(lit.first, format!("`{sign}{text}` is out of range for `{ty}`"));
                let mag = decimal(text).ok_or_else(out_of_range)?;
                let (min_mag, max) = match ty {
                    ScalarType::I32 => (1u64 << 31, (1u64 << 31) - 1),
                    ScalarType::I64 => (1u64 << 63, (1u64 << 63) - 1),
                    ScalarType::U32 => (0, u64::from(u32::MAX)),
                    _ => (0, u64::MAX),
                };
                if lit.neg && mag != 0 {
                    if mag > min_mag {
                        return Err(out_of_range());
                    }
                    let bits = (mag as i64).wrapping_neg() as u64;
                    Ok(if ty.bits() == 32 { bits & 0xFFFF_FFFF } else { bits })
                } else if mag > max {
                    Err(out_of_range())
                } else {
                    Ok(mag)
                }
            }
            ScalarType::F32 | ScalarType::F64 => {
                if text == "nan" || text == "NaN" {
                    let raw = if ty == ScalarType::F32 { "0x7fc00000" } else { "0x7ff8000000000000" };
                    return err(format!(
                        "`{sign}{text}` is not a valid constant: write a NaN as its raw bits, e.g. `{raw}`"
                    ));
                }
                let x = if text == "inf" {
                    f64::INFINITY
                } else if is_decimal_float(text) {
                    if ty == ScalarType::F32 {
                        let x: f32 = text.parse().map_err(|_| self.err_at(lit.first, "malformed float"))?;
                        let x = if lit.neg { -x } else { x };
                        return Ok(u64::from(x.to_bits()));
                    }
                    text.parse().map_err(|_| self.err_at(lit.first, "malformed float"))?
                } else {
                    return err(format!("expected a float constant for `{ty}`, found `{sign}{text}`"));
                };
                let x = if lit.neg { -x } else { x };
                Ok(if ty == ScalarType::F32 { u64::from((x as f32).to_bits()) } else { x.to_bits() })
            }
        }
    }
}

/// The byte offset and text (without the line break) of 1-based line `line` (empty past the end).
fn line_text(src: &str, line: u32) -> (usize, &str) {
    let mut start = 0usize;
    for _ in 1..line {
        match src.get(start..).and_then(|s| s.find('\n')) {
            Some(n) => start += n + 1,
            None => return (src.len(), ""),
        }
    }
    let rest = src.get(start..).unwrap_or("");
    let text = rest.split('\n').next().unwrap_or("");
    (start, text.strip_suffix('\r').unwrap_or(text))
}

/// A decimal integer of any length that fits in `u64`.
fn decimal(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.bytes().try_fold(0u64, |n, b| {
        let d = b.checked_sub(b'0').filter(|&d| d <= 9)?;
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

/// Hex digits (no prefix) that fit in `u64`.
fn parse_hex(digits: &str) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.bytes().try_fold(0u64, |n, b| {
        let d = (b as char).to_digit(16)?;
        if n >> 60 != 0 {
            return None;
        }
        Some(n << 4 | u64::from(d))
    })
}

/// `digits [. digits] [(e|E) [+|-] digits]`: the float spellings the printer produces.
fn is_decimal_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
