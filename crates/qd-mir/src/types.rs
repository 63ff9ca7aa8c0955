//! MIR types: signed/unsigned scalars, pointers with an address space, and shared-array shapes.
//!
//! Types are small `Copy` values (two bytes), compared structurally. Signedness lives in the type,
//! as in Quadrants' dtypes, so ops are polymorphic (`add` on `u32` wraps unsigned, `cmp.lt` on
//! `i32` compares signed) and the verifier checks that operands agree.

use core::fmt;

/// A scalar type: the element of registers, buffers and shared arrays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// A predicate; stored as one byte (0 or 1) in memory.
    Bool,
    /// 32-bit two's-complement signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit two's-complement signed integer.
    I64,
    /// 64-bit unsigned integer.
    U64,
    /// IEEE-754 binary32.
    F32,
    /// IEEE-754 binary64.
    F64,
}

impl ScalarType {
    /// Every scalar type, in a fixed order (used by property tests and tables).
    pub const ALL: [ScalarType; 7] = [
        ScalarType::Bool,
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I64,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// Width in bits of a register of this type (bool: 1).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }

    /// Size in bytes of one element in memory (bool: 1).
    pub fn bytes(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// True for `i32 u32 i64 u64`.
    pub fn is_int(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64)
    }

    /// True for `i32 i64`.
    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }

    /// True for `f32 f64`.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    /// True for every numeric type (integers and floats, not bool).
    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }

    /// The text-format name.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    /// Parses a text-format name.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        Some(match s {
            "bool" => ScalarType::Bool,
            "i32" => ScalarType::I32,
            "u32" => ScalarType::U32,
            "i64" => ScalarType::I64,
            "u64" => ScalarType::U64,
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            _ => return None,
        })
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A memory address space.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddrSpace {
    /// Device memory: kernel buffer parameters.
    Global,
    /// Block-local memory: shared arrays, visible to every thread of a block.
    Shared,
}

impl AddrSpace {
    /// The text-format name.
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
        }
    }

    /// Parses a text-format name.
    pub fn from_name(s: &str) -> Option<AddrSpace> {
        match s {
            "global" => Some(AddrSpace::Global),
            "shared" => Some(AddrSpace::Shared),
            _ => None,
        }
    }
}

impl fmt::Display for AddrSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type of an SSA value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A scalar register value.
    Scalar(ScalarType),
    /// A pointer to elements of a scalar type in an address space (`ptr<global, f32>`).
    Ptr(AddrSpace, ScalarType),
}

impl Type {
    /// `bool`.
    pub const BOOL: Type = Type::Scalar(ScalarType::Bool);
    /// `i32`.
    pub const I32: Type = Type::Scalar(ScalarType::I32);
    /// `u32`.
    pub const U32: Type = Type::Scalar(ScalarType::U32);
    /// `i64`.
    pub const I64: Type = Type::Scalar(ScalarType::I64);
    /// `u64`.
    pub const U64: Type = Type::Scalar(ScalarType::U64);
    /// `f32`.
    pub const F32: Type = Type::Scalar(ScalarType::F32);
    /// `f64`.
    pub const F64: Type = Type::Scalar(ScalarType::F64);

    /// The scalar type, if this is a scalar.
    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(s),
            Type::Ptr(..) => None,
        }
    }

    /// The pointee and address space, if this is a pointer.
    pub fn pointer(self) -> Option<(AddrSpace, ScalarType)> {
        match self {
            Type::Ptr(a, s) => Some((a, s)),
            Type::Scalar(_) => None,
        }
    }

    /// True for integer scalars.
    pub fn is_int(self) -> bool {
        self.scalar().is_some_and(ScalarType::is_int)
    }

    /// True for float scalars.
    pub fn is_float(self) -> bool {
        self.scalar().is_some_and(ScalarType::is_float)
    }

    /// True for `bool`.
    pub fn is_bool(self) -> bool {
        self == Type::BOOL
    }

    /// True for integer and float scalars.
    pub fn is_numeric(self) -> bool {
        self.scalar().is_some_and(ScalarType::is_numeric)
    }

    /// True for pointers.
    pub fn is_ptr(self) -> bool {
        matches!(self, Type::Ptr(..))
    }

    /// Register width in bits (pointers are 64-bit).
    pub fn bits(self) -> u32 {
        match self {
            Type::Scalar(s) => s.bits(),
            Type::Ptr(..) => 64,
        }
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Type {
        Type::Scalar(s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Ptr(a, s) => write!(f, "ptr<{a}, {s}>"),
        }
    }
}
