//! PTX text without `core::fmt`: line templates split at compile time and operands that append
//! their own bytes.
//!
//! A line is written as `ins!(e, "add.{} {}, {}, {}", ty, d, a, b)`: the macro splits the
//! literal at its `{}` holes in a `const` (so a template whose holes and arguments differ in
//! number fails to compile, as with `format_args!`), then writes literal piece, operand, literal
//! piece, … into [`Out`]. Operands are [`Operand`]s: strings, integers in decimal, [`Hex8`],
//! [`Hex16`] and [`Hex`] for the hexadecimal forms, and the emitter's registers and labels.
//! Nothing is interpreted at run time and nothing is allocated per line.

use core::fmt;

/// Holes a template may have.
pub(crate) const MAX_HOLES: usize = 8;

/// A line template split at its `{}` holes: `pieces[i]` comes before hole `i`, and
/// `pieces[holes]` ends the line (the unused pieces are empty).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Template {
    pub pieces: [&'static str; MAX_HOLES + 1],
}

impl Template {
    /// Splits `t` at its holes (`{}` only: no escapes, names or format specs), checking that
    /// there are `args` of them. Evaluated in a `const`, so a bad template is a compile error.
    pub(crate) const fn parse(t: &'static str, args: usize) -> Template {
        let b = t.as_bytes();
        let mut pieces = [""; MAX_HOLES + 1];
        let (mut start, mut i, mut holes) = (0, 0, 0);
        while i < b.len() {
            if b[i] == b'{' {
                assert!(i + 1 < b.len() && b[i + 1] == b'}', "a PTX line template's holes are `{{}}`");
                assert!(holes < MAX_HOLES, "too many holes in a PTX line template");
                pieces[holes] = sub(t, start, i);
                holes += 1;
                i += 2;
                start = i;
            } else {
                assert!(b[i] != b'}', "a PTX line template's holes are `{{}}`");
                i += 1;
            }
        }
        pieces[holes] = sub(t, start, b.len());
        assert!(holes == args, "a PTX line template's `{{}}` holes and its arguments differ in number");
        Template { pieces }
    }
}

/// `t[from..to]` in a `const` (the cuts are at ASCII braces, so the piece is UTF-8).
const fn sub(t: &'static str, from: usize, to: usize) -> &'static str {
    let (head, _) = t.as_bytes().split_at(to);
    let (_, piece) = head.split_at(from);
    match core::str::from_utf8(piece) {
        Ok(s) => s,
        Err(_) => panic!("a PTX line template is cut at ASCII braces"),
    }
}

/// Writes one line from a literal template (see the module docs): `put_line!(e, "{}:\n", l)`.
/// `e` is an [`crate::emit::Emitter`] place; the operands are evaluated in order, each just
/// before it is written.
macro_rules! put_line {
    ($e:expr, $t:expr $(, $a:expr)* $(,)?) => {{
        const T: $crate::text::Template = $crate::text::Template::parse($t, <[&str]>::len(&[$(stringify!($a)),*]));
        let i = 0usize;
        $(
            let i = {
                $e.put(T.pieces[i], &$a);
                i + 1
            };
        )*
        $e.put_str(T.pieces[i]);
    }};
}
pub(crate) use put_line;

/// `ins!(e, "add.s32 {}, {}, {}", d, a, b)` writes one instruction (the tab before it and the
/// `;` and newline after it are added).
macro_rules! ins {
    ($e:expr, $t:literal $(, $a:expr)* $(,)?) => {
        $crate::text::put_line!($e, concat!("\t", $t, ";\n") $(, $a)*)
    };
}
pub(crate) use ins;

/// `comment!(e, "fmod {} = {} rem {}", d, x, y)` writes a `//` comment line.
macro_rules! comment {
    ($e:expr, $t:literal $(, $a:expr)* $(,)?) => {
        $crate::text::put_line!($e, concat!("\t// ", $t, "\n") $(, $a)*)
    };
}
pub(crate) use comment;

/// Bytes gathered before they are appended to the body: many lines, so the body grows by one
/// copy per chunk rather than one per line.
const CHUNK: usize = 512;

/// The text being written: a chunk buffer in front of the body. Pieces of up to 32 bytes
/// (nearly all: register names, opcodes, punctuation) are copied into the chunk with fixed-size
/// moves instead of a `memcpy` call each.
pub(crate) struct Out {
    chunk: [u8; CHUNK],
    len: usize,
    /// The text before the chunk (UTF-8: only `&str` pieces are ever written).
    body: Vec<u8>,
}

impl Out {
    pub(crate) fn with_capacity(bytes: usize) -> Out {
        Out { chunk: [0; CHUNK], len: 0, body: Vec::with_capacity(bytes) }
    }

    /// Appends `s`.
    #[inline]
    pub(crate) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Appends `src`, which is UTF-8: a `&str`'s bytes or ASCII digits (module-private, so
    /// nothing else reaches the body).
    #[inline]
    fn bytes(&mut self, src: &[u8]) {
        let (at, n) = (self.len, src.len());
        match self.chunk.get_mut(at..at + n) {
            Some(dst) => {
                copy_small(dst, src);
                self.len = at + n;
            }
            None => self.spill(src),
        }
    }

    /// Appends the first `n` bytes of `slot` (ASCII) with one fixed-size move where the chunk
    /// has room for the whole slot.
    #[inline]
    pub(crate) fn slot<const N: usize>(&mut self, slot: &[u8; N], n: usize) {
        let at = self.len;
        if let Some(dst) = self.chunk.get_mut(at..at + N).and_then(|d| <&mut [u8; N]>::try_from(d).ok()) {
            *dst = *slot;
            self.len = at + n.min(N);
        } else {
            self.spill(slot.get(..n).unwrap_or(slot));
        }
    }

    /// The slow path of a piece that does not fit the chunk: the chunk goes to the body, then
    /// the piece (into the emptied chunk, or straight to the body when longer than a chunk).
    #[cold]
    fn spill(&mut self, src: &[u8]) {
        self.flush();
        match self.chunk.get_mut(..src.len()) {
            Some(dst) => {
                dst.copy_from_slice(src);
                self.len = src.len();
            }
            None => self.body.extend_from_slice(src),
        }
    }

    fn flush(&mut self) {
        self.body.extend_from_slice(&self.chunk[..self.len]);
        self.len = 0;
    }

    /// Everything written so far, which empties the writer.
    pub(crate) fn take(&mut self) -> String {
        self.flush();
        let body = core::mem::take(&mut self.body);
        String::from_utf8(body).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// `Display` into [`Out`], for the rare text that is not a template line.
impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.str(s);
        Ok(())
    }
}

/// `dst.copy_from_slice(src)` (equal lengths) with fixed-size moves up to 32 bytes: two
/// overlapping 16-, 8- or 4-byte moves, or single bytes.
#[inline]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if (16..=32).contains(&n) {
        move_n::<16>(dst, src, 0);
        move_n::<16>(dst, src, n - 16);
    } else if (8..16).contains(&n) {
        move_n::<8>(dst, src, 0);
        move_n::<8>(dst, src, n - 8);
    } else if (4..8).contains(&n) {
        move_n::<4>(dst, src, 0);
        move_n::<4>(dst, src, n - 4);
    } else if n < 4 {
        for (d, s) in dst.iter_mut().zip(src).take(3) {
            *d = *s;
        }
    } else {
        dst.copy_from_slice(src);
    }
}

/// `dst[at..at + N] = src[at..at + N]`.
#[inline(always)]
fn move_n<const N: usize>(dst: &mut [u8], src: &[u8], at: usize) {
    if let (Some(d), Some(s)) = (dst.get_mut(at..at + N), src.get(at..at + N)) {
        if let (Ok(d), Ok(s)) = (<&mut [u8; N]>::try_from(d), <&[u8; N]>::try_from(s)) {
            *d = *s;
        }
    }
}

/// Something a template hole takes: it appends its PTX spelling to the text.
pub(crate) trait Operand {
    fn put(&self, out: &mut Out);
}

impl<T: Operand + ?Sized> Operand for &T {
    #[inline]
    fn put(&self, out: &mut Out) {
        (**self).put(out)
    }
}

impl Operand for str {
    #[inline]
    fn put(&self, out: &mut Out) {
        out.str(self)
    }
}

impl Operand for String {
    #[inline]
    fn put(&self, out: &mut Out) {
        out.str(self)
    }
}

/// Decimal digits of `n`, right-aligned in a 20-byte slot, and how many there are.
#[inline]
fn decimal(mut n: u64) -> ([u8; 20], usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    (buf, buf.len() - i)
}

/// Appends `n` in decimal, `-` first where `negative`.
fn put_decimal(out: &mut Out, negative: bool, n: u64) {
    if negative {
        out.str("-");
    }
    let (buf, len) = decimal(n);
    out.bytes(&buf[buf.len() - len..]);
}

impl Operand for u64 {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_decimal(out, false, *self)
    }
}

impl Operand for u32 {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_decimal(out, false, u64::from(*self))
    }
}

impl Operand for usize {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_decimal(out, false, *self as u64)
    }
}

impl Operand for i64 {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_decimal(out, *self < 0, self.unsigned_abs())
    }
}

impl Operand for i32 {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_decimal(out, *self < 0, u64::from(self.unsigned_abs()))
    }
}

/// Appends the low `digits` hexadecimal digits of `n`, uppercase, or all of them without leading
/// zeros where `digits` is 0.
fn put_hex(out: &mut Out, n: u64, digits: usize) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut buf = [b'0'; 16];
    for (k, b) in buf.iter_mut().rev().enumerate() {
        *b = HEX[((n >> (4 * k)) & 0xF) as usize];
    }
    let len = if digits == 0 { (16 - n.leading_zeros() as usize / 4).max(1) } else { digits };
    out.bytes(&buf[16 - len.min(16)..]);
}

/// `{:08X}`: eight uppercase hexadecimal digits.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hex8(pub u32);

impl Operand for Hex8 {
    fn put(&self, out: &mut Out) {
        put_hex(out, u64::from(self.0), 8)
    }
}

/// `{:016X}`: sixteen uppercase hexadecimal digits.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hex16(pub u64);

impl Operand for Hex16 {
    fn put(&self, out: &mut Out) {
        put_hex(out, self.0, 16)
    }
}

/// `{:X}`: uppercase hexadecimal without leading zeros.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hex(pub u32);

impl Operand for Hex {
    fn put(&self, out: &mut Out) {
        put_hex(out, u64::from(self.0), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(o: &dyn Operand) -> String {
        let mut out = Out::with_capacity(0);
        o.put(&mut out);
        out.take()
    }

    #[test]
    fn numbers_read_as_format_writes_them() {
        for n in [0u64, 1, 9, 10, 99, 100, 4096, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(text(&n), n.to_string());
            assert_eq!(text(&Hex16(n)), format!("{n:016X}"));
            let m = n as u32;
            assert_eq!(text(&m), m.to_string());
            assert_eq!(text(&Hex8(m)), format!("{m:08X}"));
            assert_eq!(text(&Hex(m)), format!("{m:X}"));
            let (s, t) = (n as i64, n as i32);
            assert_eq!(text(&s), s.to_string());
            assert_eq!(text(&t), t.to_string());
        }
        for n in [i64::MIN, -1, -10] {
            assert_eq!(text(&n), n.to_string());
        }
        assert_eq!(text(&i32::MIN), i32::MIN.to_string());
    }

    #[test]
    fn templates_split_at_their_holes() {
        const T: Template = Template::parse("a{}bc{}{}d", 3);
        assert_eq!(T.pieces[..4], ["a", "bc", "", "d"]);
        const U: Template = Template::parse("", 0);
        assert_eq!(U.pieces[0], "");
    }

    #[test]
    fn text_past_a_chunk_comes_out_whole_and_in_order() {
        let mut out = Out::with_capacity(0);
        let mut want = String::new();
        for n in 0..3 * CHUNK {
            let piece = "x".repeat(n % 50);
            out.str(&piece);
            (n as u32).put(&mut out);
            want.push_str(&piece);
            want.push_str(&n.to_string());
        }
        let long = "y".repeat(2 * CHUNK + 3);
        out.str(&long);
        want.push_str(&long);
        assert_eq!(out.take(), want);
    }
}
