//! The PTX text writer: virtual registers by class, labels, instruction lines and the record of
//! the features (and so the `.version`) a kernel needs.
//!
//! Registers are numbered per class and declared at the top of the entry as `%p<N>` (`.pred`),
//! `%r<N>` (`.b32`), `%rd<N>` (`.b64`), `%f<N>` (`.f32`) and `%fd<N>` (`.f64`); ptxas allocates
//! the real ones. Lines are written straight into the text (no instruction objects) through the
//! compile-time templates and operands of [`crate::text`], which keeps MIR → text in the
//! microseconds.

use crate::target::{PtxVersion, Sm};
use crate::text::{put_line, Hex16, Hex8, Operand, Out};
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

const fn name_slots() -> [[u8; SLOT]; PREFIXES.len() * NAMED] {
    let mut out = [[b' '; SLOT]; PREFIXES.len() * NAMED];
    let mut c = 0;
    while c < PREFIXES.len() {
        let p = PREFIXES[c].as_bytes();
        let mut n = 0;
        while n < NAMED {
            let slot = &mut out[c * NAMED + n];
            let mut i = 0;
            while i < p.len() {
                slot[i] = p[i];
                i += 1;
            }
            let len = decimal_len(n);
            let (mut v, mut k) = (n, 0);
            while k < len {
                slot[p.len() + len - 1 - k] = b'0' + (v % 10) as u8;
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
/// time: a register or label name is then one fixed-size move, with no digits to compute.
static NAMES: [[u8; SLOT]; PREFIXES.len() * NAMED] = name_slots();

/// Writes name number `n` of prefix `prefix` (an index into [`PREFIXES`]).
#[inline]
fn put_name(out: &mut Out, prefix: usize, n: u32) {
    let n = n as usize;
    match NAMES.get(prefix * NAMED + n).filter(|_| n < NAMED) {
        Some(slot) => out.slot(slot, PREFIXES[prefix].len() + decimal_len(n)),
        None => {
            out.str(PREFIXES[prefix]);
            n.put(out);
        }
    }
}

/// The name as text, for `Display` (not on the emitter's path).
fn name(prefix: usize, n: u32) -> String {
    let mut out = Out::with_capacity(SLOT);
    put_name(&mut out, prefix, n);
    out.take()
}

impl Operand for Reg {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_name(out, self.class.index(), self.n)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name(self.class.index(), self.n))
    }
}

/// A label (`$L12`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Label(u32);

impl Operand for Label {
    #[inline]
    fn put(&self, out: &mut Out) {
        put_name(out, LABEL_PREFIX, self.0)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name(LABEL_PREFIX, self.0))
    }
}

/// The optional predicate destination of a `shfl`: `|%p3` when it is wanted, nothing otherwise.
#[derive(Copy, Clone, Debug)]
pub(crate) struct OrPred(pub Option<Reg>);

impl Operand for OrPred {
    fn put(&self, out: &mut Out) {
        if let Some(p) = self.0 {
            out.str("|");
            p.put(out);
        }
    }
}

/// A two-register vector, `{%r1, %r2}`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Pair(pub Reg, pub Reg);

impl Operand for Pair {
    fn put(&self, out: &mut Out) {
        out.str("{");
        self.0.put(out);
        out.str(", ");
        self.1.put(out);
        out.str("}");
    }
}

/// The instruction stream of one entry being written.
pub(crate) struct Emitter {
    pub target: Sm,
    /// The lines so far.
    out: Out,
    counts: [u32; 5],
    labels: u32,
    /// The `.version` the target and the features used so far need.
    pub version: PtxVersion,
}

impl Emitter {
    pub(crate) fn new(target: Sm) -> Emitter {
        Emitter { target, out: Out::with_capacity(32 * 1024), counts: [0; 5], labels: 0, version: target.min_version() }
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
        put_line!(self, "{}:\n", l);
    }

    /// Appends a literal piece and an operand (what [`crate::text::put_line`] writes a line
    /// with).
    #[inline]
    pub(crate) fn put<T: Operand + ?Sized>(&mut self, piece: &str, operand: &T) {
        self.out.str(piece);
        operand.put(&mut self.out);
    }

    /// Appends a literal piece.
    #[inline]
    pub(crate) fn put_str(&mut self, piece: &str) {
        self.out.str(piece);
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
        self.out.take()
    }
}

pub(crate) use crate::text::{comment, ins};

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
#[derive(Copy, Clone, Debug)]
pub(crate) struct Immediate(pub ScalarType, pub u64);

impl Operand for Immediate {
    fn put(&self, out: &mut Out) {
        let Immediate(s, bits) = *self;
        match s {
            ScalarType::Bool => (bits & 1).put(out),
            ScalarType::I32 => (bits as u32 as i32).put(out),
            ScalarType::U32 => (bits as u32).put(out),
            ScalarType::I64 => (bits as i64).put(out),
            ScalarType::U64 => bits.put(out),
            ScalarType::F32 => {
                out.str("0f");
                Hex8(bits as u32).put(out)
            }
            ScalarType::F64 => {
                out.str("0d");
                Hex16(bits).put(out)
            }
        }
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
            ins!(e, "mov.b32 {}, {}", r, piece);
        }
        let long = "y".repeat(10_000);
        comment!(e, "{}", long);
        e.place(Label(7));
        let mut want = String::new();
        for n in 0..40 {
            want.push_str(&format!("\tmov.b32 %r0, {}\n", "x".repeat(n)).replace('\n', ";\n"));
        }
        want.push_str(&format!("\t// {long}\n$L7:\n"));
        assert_eq!(e.take_body(), want);
    }

    #[test]
    fn immediates_read_as_ptx_writes_them() {
        let mut e = Emitter::new(Sm::Sm90);
        let r = e.reg(Class::B64);
        let cases = [
            (ScalarType::Bool, 3, "1"),
            (ScalarType::I32, u64::from(u32::MAX), "-1"),
            (ScalarType::U32, u64::MAX, "4294967295"),
            (ScalarType::I64, u64::MAX, "-1"),
            (ScalarType::U64, u64::MAX, "18446744073709551615"),
            (ScalarType::F32, u64::from(1f32.to_bits()), "0f3F800000"),
            (ScalarType::F64, 1f64.to_bits(), "0d3FF0000000000000"),
        ];
        let mut want = String::new();
        for (s, bits, text) in cases {
            ins!(e, "mov {}, {}", Pair(r, r), Immediate(s, bits));
            want.push_str(&format!("\tmov {{%rd0, %rd0}}, {text};\n"));
        }
        assert_eq!(e.take_body(), want);
    }
}
