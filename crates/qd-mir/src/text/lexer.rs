//! The `.qdm` lexer: source text to a flat vector of tokens, in one pass over the bytes.
//!
//! Tokens do not own text: each records its byte span and line, and the parser slices the source
//! when it needs a name. Comments run from `;` to the end of the line, except inside `[...]`,
//! where `;` separates a shared array's element type from its length (`[u32; 16]`). Malformed
//! input never stops the lexer: it becomes a [`Tok::Error`] token that the parser reports if and
//! when it reaches it, so errors come out in source order.

/// The kind of a token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A bare word: `kernel`, `add`, `shared.addr`, `u32`, `x`, `inf`, `true`.
    Ident,
    /// `%name`: a value.
    Value,
    /// `@name`: a kernel, program or shared array.
    Global,
    /// Something starting with a digit: `42`, `0x7fc00001`, `1.5`, `1e-7` (validated by the parser).
    Num,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `;` inside brackets.
    Semi,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// `-` not followed by `>` (the sign of a constant).
    Minus,
    /// `"…"`: a string (program status and check messages), `\"` and `\\` escaped.
    Str,
    /// Input the lexer cannot read.
    Error(LexError),
    /// End of input (placed right after the last token).
    Eof,
}

/// Why a piece of input is not a token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LexError {
    /// A character that starts no token.
    BadChar,
    /// `%` not followed by a name.
    EmptyValue,
    /// `@` not followed by a name.
    EmptyGlobal,
    /// `"` with no closing `"` on the same line.
    UnterminatedString,
}

/// One token: its kind, byte span and 1-based line (16 bytes; sources are under 4 GiB).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// The kind.
    pub kind: Tok,
    /// Byte offset of the first byte.
    start: u32,
    /// Byte offset one past the last byte.
    end: u32,
    /// 1-based line of the first byte.
    pub line: u32,
}

impl Token {
    /// The end-of-input token of an empty source.
    pub(crate) const EMPTY_EOF: Token = Token { kind: Tok::Eof, start: 0, end: 0, line: 1 };

    /// Byte offset of the first byte.
    pub(crate) fn start(&self) -> usize {
        self.start as usize
    }

    /// Byte offset one past the last byte.
    pub(crate) fn end(&self) -> usize {
        self.end as usize
    }
}

/// The largest source the lexer accepts (offsets are `u32`).
pub(crate) const MAX_SOURCE_LEN: usize = u32::MAX as usize;

/// Bytes that may continue a name, `[A-Za-z0-9_.]`, as a lookup table (the lexer's hot loop).
static NAME_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        b += 1;
    }
    t
};

/// True for the bytes that may continue a name: `[A-Za-z0-9_.]`.
pub(crate) fn is_name_byte(b: u8) -> bool {
    NAME_BYTES[usize::from(b)]
}

/// Splits `src` into tokens; the last token is always [`Tok::Eof`]. Offsets of a source longer
/// than [`MAX_SOURCE_LEN`] would wrap, so callers reject those first.
pub(crate) fn tokenize(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut toks = Vec::with_capacity(bytes.len() / 3 + 1);
    let mut pos = 0usize;
    let mut line = 1u32;
    let mut brackets = 0u32;
    let mut last_end = 0usize;
    let mut last_line = 1u32;
    while pos < bytes.len() {
        let b = bytes[pos];
        match b {
            b'\n' => {
                line = line.saturating_add(1);
                pos += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                pos += 1;
                while pos < bytes.len() && bytes[pos] == b' ' {
                    pos += 1;
                }
                continue;
            }
            b';' if brackets == 0 => {
                while pos < bytes.len() && bytes[pos] != b'\n' {
                    pos += 1;
                }
                continue;
            }
            _ => {}
        }
        let (kind, end) = lex_one(bytes, pos);
        match kind {
            Tok::LBracket => brackets = brackets.saturating_add(1),
            Tok::RBracket => brackets = brackets.saturating_sub(1),
            _ => {}
        }
        // A bad character may be the first byte of a multi-byte UTF-8 sequence: keep the
        // whole character in the token so spans stay on character boundaries.
        let end = if kind == Tok::Error(LexError::BadChar) { char_end(src, pos) } else { end };
        toks.push(Token { kind, start: pos as u32, end: end as u32, line });
        last_end = end;
        last_line = line;
        pos = end;
    }
    toks.push(Token { kind: Tok::Eof, start: last_end as u32, end: last_end as u32, line: last_line });
    toks
}

/// Scans a string's body from just after its opening `"`: the token and the end past the closing
/// `"` (an unterminated string ends at the line's end).
fn scan_string(bytes: &[u8], mut pos: usize) -> (Tok, usize) {
    while pos < bytes.len() {
        match bytes[pos] {
            b'"' => return (Tok::Str, pos + 1),
            b'\\' if matches!(bytes.get(pos + 1), Some(b'"' | b'\\')) => pos += 2,
            b'\n' => break,
            _ => pos += 1,
        }
    }
    (Tok::Error(LexError::UnterminatedString), pos)
}

/// The value of a [`Tok::Str`] token's text (with its quotes).
pub(crate) fn unquote(text: &str) -> String {
    let body = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Lexes the token starting at `pos` (not whitespace or a comment): its kind and end offset.
#[inline]
fn lex_one(bytes: &[u8], pos: usize) -> (Tok, usize) {
    let b = bytes[pos];
    let next = bytes.get(pos + 1).copied();
    let single = |k: Tok| (k, pos + 1);
    match b {
        b'(' => single(Tok::LParen),
        b')' => single(Tok::RParen),
        b'{' => single(Tok::LBrace),
        b'}' => single(Tok::RBrace),
        b'[' => single(Tok::LBracket),
        b']' => single(Tok::RBracket),
        b'<' => single(Tok::Lt),
        b'>' => single(Tok::Gt),
        b',' => single(Tok::Comma),
        b':' => single(Tok::Colon),
        b';' => single(Tok::Semi),
        b'=' => single(Tok::Eq),
        b'-' if next == Some(b'>') => (Tok::Arrow, pos + 2),
        b'-' => single(Tok::Minus),
        b'%' | b'@' => {
            let end = scan_name(bytes, pos + 1);
            let kind = match (b, end > pos + 1) {
                (b'%', true) => Tok::Value,
                (b'%', false) => Tok::Error(LexError::EmptyValue),
                (_, true) => Tok::Global,
                (_, false) => Tok::Error(LexError::EmptyGlobal),
            };
            (kind, end)
        }
        b'"' => scan_string(bytes, pos + 1),
        b'0'..=b'9' => (Tok::Num, scan_number(bytes, pos)),
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => (Tok::Ident, scan_name(bytes, pos + 1)),
        _ => single(Tok::Error(LexError::BadChar)),
    }
}

/// The end of a run of name bytes starting at `pos`.
#[inline]
fn scan_name(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && is_name_byte(bytes[pos]) {
        pos += 1;
    }
    pos
}

/// The end of a number starting at `pos`: name bytes, plus a sign right after a decimal
/// exponent marker (`1e-7`).
fn scan_number(bytes: &[u8], start: usize) -> usize {
    let hex = bytes.get(start + 1).is_some_and(|&b| b == b'x' || b == b'X') && bytes[start] == b'0';
    let mut pos = start;
    while pos < bytes.len() {
        let b = bytes[pos];
        let sign = (b == b'+' || b == b'-')
            && !hex
            && matches!(bytes[pos - 1], b'e' | b'E')
            && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit);
        if !is_name_byte(b) && !sign {
            break;
        }
        pos += 1;
    }
    pos
}

/// The byte offset after the character starting at `pos` (or `pos + 1` off a boundary).
fn char_end(src: &str, pos: usize) -> usize {
    src.get(pos..).and_then(|s| s.chars().next()).map_or(pos + 1, |c| pos + c.len_utf8())
}

/// Length in characters of the token starting at byte `pos` (at least 1); used to draw carets.
pub(crate) fn token_chars_at(src: &str, pos: usize) -> usize {
    let bytes = src.as_bytes();
    match bytes.get(pos) {
        None | Some(b'\n' | b' ' | b'\t' | b'\r') => 1,
        Some(_) => {
            let (kind, end) = lex_one(bytes, pos);
            let end = if kind == Tok::Error(LexError::BadChar) { char_end(src, pos) } else { end };
            src.get(pos..end).map_or(1, |s| s.chars().count().max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        tokenize(src).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn punctuation_names_and_numbers() {
        assert_eq!(
            kinds("%a = add %0, %b.c : u32 -> @k(-1.5e-7) ptr<global, f32>"),
            vec![
                Tok::Value,
                Tok::Eq,
                Tok::Ident,
                Tok::Value,
                Tok::Comma,
                Tok::Value,
                Tok::Colon,
                Tok::Ident,
                Tok::Arrow,
                Tok::Global,
                Tok::LParen,
                Tok::Minus,
                Tok::Num,
                Tok::RParen,
                Tok::Ident,
                Tok::Lt,
                Tok::Ident,
                Tok::Comma,
                Tok::Ident,
                Tok::Gt,
                Tok::Eof
            ]
        );
        let src = "1e-7 0x1e-3";
        let t = tokenize(src);
        assert_eq!(&src[t[0].start()..t[0].end()], "1e-7");
        assert_eq!(&src[t[1].start()..t[1].end()], "0x1e");
        assert_eq!(t[2].kind, Tok::Minus);
    }

    #[test]
    fn comments_and_brackets() {
        let src = "; a comment\nshared @s: [u32; 16] ; trailing\n  x";
        let t = tokenize(src);
        let k: Vec<Tok> = t.iter().map(|t| t.kind).collect();
        assert_eq!(
            k,
            vec![
                Tok::Ident,
                Tok::Global,
                Tok::Colon,
                Tok::LBracket,
                Tok::Ident,
                Tok::Semi,
                Tok::Num,
                Tok::RBracket,
                Tok::Ident,
                Tok::Eof
            ]
        );
        assert_eq!(t[0].line, 2);
        assert_eq!(t[8].line, 3);
        // Eof sits right after the last token.
        assert_eq!(t[9].start(), src.len());
    }

    #[test]
    fn errors_keep_whole_characters() {
        let src = "é % @";
        let t = tokenize(src);
        assert_eq!(t[0].kind, Tok::Error(LexError::BadChar));
        assert_eq!((t[0].start(), t[0].end()), (0, 2));
        assert_eq!(t[1].kind, Tok::Error(LexError::EmptyValue));
        assert_eq!(t[2].kind, Tok::Error(LexError::EmptyGlobal));
        assert_eq!(token_chars_at(src, 0), 1);
        assert_eq!(token_chars_at("  add %x", 2), 3);
        assert_eq!(token_chars_at("abc", 3), 1);
    }
}
