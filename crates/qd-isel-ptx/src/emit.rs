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

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.class.prefix())?;
        f.write_str(digits(self.n, &mut [0; 10]))
    }
}

/// A label (`$L12`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Label(u32);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$L")?;
        f.write_str(digits(self.0, &mut [0; 10]))
    }
}

/// The instruction stream of one entry being written.
pub(crate) struct Emitter {
    pub target: Sm,
    body: String,
    counts: [u32; 5],
    labels: u32,
    /// The `.version` the target and the features used so far need.
    pub version: PtxVersion,
}

impl Emitter {
    pub(crate) fn new(target: Sm) -> Emitter {
        Emitter {
            target,
            body: String::with_capacity(32 * 1024),
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
        let _ = writeln!(self.body, "{l}:");
    }

    /// Writes one instruction (the `;` and newline are added).
    pub(crate) fn ins(&mut self, args: fmt::Arguments<'_>) {
        self.body.push('\t');
        let _ = self.body.write_fmt(args);
        self.body.push_str(";\n");
    }

    /// Writes a comment line.
    pub(crate) fn comment(&mut self, args: fmt::Arguments<'_>) {
        self.body.push_str("\t// ");
        let _ = self.body.write_fmt(args);
        self.body.push('\n');
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
        core::mem::take(&mut self.body)
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
