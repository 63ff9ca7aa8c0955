//! The PTX text writer: virtual registers by class, labels, instruction lines and the record of
//! the features (and so the `.version`) a kernel needs.
//!
//! Registers are numbered per class and declared at the top of the entry as `%p<N>` (`.pred`),
//! `%r<N>` (`.b32`), `%rd<N>` (`.b64`), `%f<N>` (`.f32`) and `%fd<N>` (`.f64`); ptxas allocates
//! the real ones. Lines are written straight into one `String` (no instruction objects), which
//! keeps MIR → text in the microseconds.

use crate::target::{PtxVersion, Sm};
use core::fmt::{self, Write};
use qd_mir::{AddrSpace, ScalarType, Type};

/// A register class (one `.reg` declaration each).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// `.pred`
    Pred,
    /// `.b32`: 32-bit integers and shared-space addresses.
    B32,
    /// `.b64`: 64-bit integers and global addresses.
    B64,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
}

impl Class {
    const ALL: [Class; 5] = [Class::Pred, Class::B32, Class::B64, Class::F32, Class::F64];

    fn index(self) -> usize {
        match self {
            Class::Pred => 0,
            Class::B32 => 1,
            Class::B64 => 2,
            Class::F32 => 3,
            Class::F64 => 4,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "%p",
            Class::B32 => "%r",
            Class::B64 => "%rd",
            Class::F32 => "%f",
            Class::F64 => "%fd",
        }
    }

    fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
        }
    }

    /// The class of a scalar.
    pub(crate) fn of_scalar(s: ScalarType) -> Class {
        match s {
            ScalarType::Bool => Class::Pred,
            ScalarType::I32 | ScalarType::U32 => Class::B32,
            ScalarType::I64 | ScalarType::U64 => Class::B64,
            ScalarType::F32 => Class::F32,
            ScalarType::F64 => Class::F64,
        }
    }

    /// The class of a MIR type: global pointers are 64-bit addresses, shared ones 32-bit.
    pub(crate) fn of(t: Type) -> Class {
        match t {
            Type::Scalar(s) => Class::of_scalar(s),
            Type::Ptr(AddrSpace::Global, _) => Class::B64,
            Type::Ptr(AddrSpace::Shared, _) => Class::B32,
        }
    }
}

/// A virtual register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Reg {
    pub class: Class,
    n: u32,
}

/// Decimal digits of `n` into `buf`, returning the used tail (no formatting machinery: the
/// emitter prints thousands of register names per kernel).
fn digits(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    core::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// How many names of each prefix [`NAMES`] holds.
const NAMED: usize = 1024;
/// The name prefixes: the register classes in [`Class::index`] order, then labels.
const PREFIXES: [&str; 6] = ["%p", "%r", "%rd", "%f", "%fd", "$L"];
/// Bytes per name in [`NAMES`] (the longest, `%rd1023`, has 7).
const SLOT: usize = 8;
const LABEL_PREFIX: usize = 5;

const fn decimal_len(n: usize) -> usize {
    if n < 10 {
        1
    } else if n < 100 {
        2
    } else if n < 1000 {
        3
    } else {
        4
    }
}

const fn name_bytes() -> [u8; PREFIXES.len() * NAMED * SLOT] {
    let mut out = [b' '; PREFIXES.len() * NAMED * SLOT];
    let mut c = 0;
    while c < PREFIXES.len() {
        let p = PREFIXES[c].as_bytes();
        let mut n = 0;
        while n < NAMED {
            let base = (c * NAMED + n) * SLOT;
            let mut i = 0;
            while i < p.len() {
                out[base + i] = p[i];
                i += 1;
            }
            let len = decimal_len(n);
            let (mut v, mut k) = (n, 0);
            while k < len {
                out[base + p.len() + len - 1 - k] = b'0' + (v % 10) as u8;
                v /= 10;
                k += 1;
            }
            n += 1;
        }
        c += 1;
    }
    out
}

/// `%p0 … %p1023`, `%r0 …`, … `$L0 … $L1023`, each in a [`SLOT`]-byte slot, built at compile
/// time: a register or label name is then one `write_str` of a slice, with no digits to compute.
static NAMES: &str = match core::str::from_utf8(&name_bytes()) {
    Ok(s) => s,
    Err(_) => panic!("register names are ASCII"),
};

/// Writes name number `n` of prefix `prefix` (an index into [`PREFIXES`]).
fn write_name(f: &mut fmt::Formatter<'_>, prefix: usize, n: u32) -> fmt::Result {
    let n = n as usize;
    if n < NAMED {
        let base = (prefix * NAMED + n) * SLOT;
        if let Some(s) = NAMES.get(base..base + PREFIXES[prefix].len() + decimal_len(n)) {
            return f.write_str(s);
        }
    }
    f.write_str(PREFIXES[prefix])?;
    f.write_str(digits(n as u32, &mut [0; 10]))
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, self.class.index(), self.n)
    }
}

/// A label (`$L12`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Label(u32);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, LABEL_PREFIX, self.0)
    }
}

/// Bytes of the line buffer: longer lines (none the lowering writes) take the slow path.
const LINE: usize = 256;

/// A line being formatted into [`Emitter`]'s line buffer. Pieces of up to 32 bytes (nearly all:
/// register names, opcodes, punctuation) are copied with fixed-size moves instead of a `memcpy`
/// call each, and the finished line reaches the body in one copy.
struct LineSink<'a> {
    buf: &'a mut [u8; LINE],
    len: usize,
}

impl fmt::Write for LineSink<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let src = s.as_bytes();
        let (at, n) = (self.len, src.len());
        let dst = self.buf.get_mut(at..at + n).ok_or(fmt::Error)?;
        copy_small(dst, src);
        self.len = at + n;
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

/// The body as `fmt::Write` (the slow path of lines longer than [`LINE`]).
struct BodySink<'a>(&'a mut Vec<u8>);

impl fmt::Write for BodySink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The instruction stream of one entry being written.
pub(crate) struct Emitter {
    pub target: Sm,
    /// The lines so far (UTF-8: only `&str` pieces are ever written).
    body: Vec<u8>,
    /// The line being formatted.
    line: [u8; LINE],
    counts: [u32; 5],
    labels: u32,
    /// The `.version` the target and the features used so far need.
    pub version: PtxVersion,
}

impl Emitter {
    pub(crate) fn new(target: Sm) -> Emitter {
        Emitter {
            target,
            body: Vec::with_capacity(32 * 1024),
            line: [0; LINE],
            counts: [0; 5],
            labels: 0,
            version: target.min_version(),
        }
    }

    /// A fresh register.
    pub(crate) fn reg(&mut self, class: Class) -> Reg {
        let c = &mut self.counts[class.index()];
        let r = Reg { class, n: *c };
        *c += 1;
        r
    }

    /// A fresh label.
    pub(crate) fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels)
    }

    /// Places a label here.
    pub(crate) fn place(&mut self, l: Label) {
        self.line_of("", format_args!("{l}"), ":\n");
    }

    /// Writes one instruction (the `;` and newline are added).
    pub(crate) fn ins(&mut self, args: fmt::Arguments<'_>) {
        self.line_of("\t", args, ";\n");
    }

    /// Writes a comment line.
    pub(crate) fn comment(&mut self, args: fmt::Arguments<'_>) {
        self.line_of("\t// ", args, "\n");
    }

    /// Writes `head`, `args` and `tail` as one line: formatted in the line buffer, then copied.
    fn line_of(&mut self, head: &str, args: fmt::Arguments<'_>, tail: &str) {
        let mut line = LineSink { buf: &mut self.line, len: 0 };
        let fits = line.write_str(head).is_ok() && line.write_fmt(args).is_ok() && line.write_str(tail).is_ok();
        if fits {
            let len = line.len;
            self.body.extend_from_slice(&self.line[..len]);
        } else {
            let mut body = BodySink(&mut self.body);
            let _ = body.write_str(head);
            let _ = body.write_fmt(args);
            let _ = body.write_str(tail);
        }
    }

    /// The `.reg` declarations of every register used.
    pub(crate) fn reg_decls(&self) -> String {
        let mut s = String::new();
        for c in Class::ALL {
            let n = self.counts[c.index()];
            if n > 0 {
                let _ = writeln!(s, "\t.reg {} {}<{}>;", c.decl(), c.prefix(), n);
            }
        }
        s
    }

    /// The instructions written so far.
    pub(crate) fn take_body(&mut self) -> String {
        let body = core::mem::take(&mut self.body);
        String::from_utf8(body).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// `ins!(e, "add.s32 {}, {}, {}", d, a, b)` writes one instruction.
macro_rules! ins {
    ($e:expr, $($t:tt)*) => { $e.ins(format_args!($($t)*)) };
}
pub(crate) use ins;

/// The PTX type suffix for arithmetic on a scalar (`s32 u32 s64 u64 f32 f64`; bool `pred`).
pub(crate) fn arith(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "pred",
        ScalarType::I32 => "s32",
        ScalarType::U32 => "u32",
        ScalarType::I64 => "s64",
        ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
    }
}

/// The untyped bit-size suffix (`b32 b64`; bool `pred`).
pub(crate) fn bits(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "pred",
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => "b32",
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => "b64",
    }
}

/// An immediate of a scalar in PTX syntax (`42`, `0f3F800000`, `0d3FF0000000000000`).
pub(crate) fn imm(s: ScalarType, bits: u64) -> String {
    match s {
        ScalarType::Bool => format!("{}", bits & 1),
        ScalarType::I32 => format!("{}", bits as u32 as i32),
        ScalarType::U32 => format!("{}", bits as u32),
        ScalarType::I64 => format!("{}", bits as i64),
        ScalarType::U64 => format!("{bits}"),
        ScalarType::F32 => format!("0f{:08X}", bits as u32),
        ScalarType::F64 => format!("0d{bits:016X}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_table_and_past_it_are_prefix_and_decimal() {
        for c in Class::ALL {
            for n in [0, 1, 9, 10, 99, 100, 999, 1000, 1023, 1024, 12345] {
                assert_eq!(Reg { class: c, n }.to_string(), format!("{}{n}", c.prefix()));
            }
        }
        assert_eq!(Label(0).to_string(), "$L0");
        assert_eq!(Label(1023).to_string(), "$L1023");
        assert_eq!(Label(70000).to_string(), "$L70000");
        assert_eq!(PREFIXES[LABEL_PREFIX], "$L");
        assert!(Class::ALL.iter().all(|c| PREFIXES[c.index()] == c.prefix()));
    }

    #[test]
    fn lines_of_any_length_come_out_whole() {
        let mut e = Emitter::new(Sm::Sm90);
        let r = e.reg(Class::B32);
        for n in 0..40 {
            let piece = "x".repeat(n);
            ins!(e, "mov.b32 {r}, {piece}");
        }
        let long = "y".repeat(2 * LINE);
        e.comment(format_args!("{long}"));
        e.place(Label(7));
        let mut want = String::new();
        for n in 0..40 {
            want.push_str(&format!("\tmov.b32 %r0, {}\n", "x".repeat(n)).replace('\n', ";\n"));
        }
        want.push_str(&format!("\t// {long}\n$L7:\n"));
        assert_eq!(e.take_body(), want);
    }
}
