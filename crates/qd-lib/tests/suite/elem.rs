//! [`Elem`]: the six Quadrants dtypes as plain Rust values, with MIR's arithmetic written out in
//! Rust (wrapping integers, IEEE floats, minNum/maxNum with `-0 < +0`) so that the references of the
//! suite do not reuse the interpreter's code. Also deterministic inputs, including the special
//! values every op is tested on (NaN, ±0, ±inf, INT_MIN, INT_MAX, all-equal runs).

#![allow(trivial_numeric_casts)] // the dtype macros cast through the same type for some dtypes
use qd_mir::{GroupOp, ScalarType};
use std::fmt::Debug;

/// A dtype of the library's API.
pub trait Elem: Copy + Debug + PartialOrd + Send + Sync + 'static {
    /// Its MIR type.
    const TY: ScalarType;
    /// Raw bits, zero-extended.
    fn to_bits(self) -> u64;
    /// From raw bits.
    fn from_bits(b: u64) -> Self;
    /// `a op b` with MIR's semantics; `and`/`or`/`xor` exist on integers only.
    fn combine(op: GroupOp, a: Self, b: Self) -> Self;
    /// The identity of `op`.
    fn identity(op: GroupOp) -> Self;
    /// A deterministic pseudo-random value (small magnitudes for floats so sums stay finite).
    fn sample(seed: u64) -> Self;
    /// The special values of the type.
    fn specials() -> Vec<Self>;
    /// A value greater than every sample (the bitonic-sort padding sentinel).
    fn sentinel_max() -> Self;
    /// True for integer types.
    fn is_int() -> bool {
        Self::TY.is_int()
    }
    /// Equality for result checks: same bits, except that any two NaNs match (devices may
    /// canonicalise NaN payloads).
    fn same(a: Self, b: Self) -> bool;
}

/// splitmix64: deterministic, well mixed.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

macro_rules! int_elem {
    ($t:ty, $st:expr, $bits:ty) => {
        impl Elem for $t {
            const TY: ScalarType = $st;
            fn to_bits(self) -> u64 {
                self as $bits as u64
            }
            fn from_bits(b: u64) -> Self {
                b as $bits as $t
            }
            fn combine(op: GroupOp, a: Self, b: Self) -> Self {
                match op {
                    GroupOp::Add => a.wrapping_add(b),
                    GroupOp::Mul => a.wrapping_mul(b),
                    GroupOp::Min => a.min(b),
                    GroupOp::Max => a.max(b),
                    GroupOp::And => a & b,
                    GroupOp::Or => a | b,
                    GroupOp::Xor => a ^ b,
                }
            }
            fn identity(op: GroupOp) -> Self {
                match op {
                    GroupOp::Add | GroupOp::Or | GroupOp::Xor => 0,
                    GroupOp::Mul => 1,
                    GroupOp::And => !0,
                    GroupOp::Min => <$t>::MAX,
                    GroupOp::Max => <$t>::MIN,
                }
            }
            fn sample(seed: u64) -> Self {
                // Mostly small values (so sums and products exercise carries without always
                // wrapping), sometimes full-range ones.
                let r = mix(seed);
                if r % 4 == 0 {
                    r as $t
                } else {
                    ((r >> 8) % 2001) as i64 as $t - (if <$t>::MIN == 0 { 0 } else { 1000 as $t })
                }
            }
            fn specials() -> Vec<Self> {
                vec![0, 1, <$t>::MAX, <$t>::MIN, <$t>::MAX - 1, (<$t>::MIN).wrapping_add(1), !0]
            }
            fn sentinel_max() -> Self {
                <$t>::MAX
            }
            fn same(a: Self, b: Self) -> bool {
                a == b
            }
        }
    };
}

int_elem!(i32, ScalarType::I32, u32);
int_elem!(u32, ScalarType::U32, u32);
int_elem!(i64, ScalarType::I64, u64);
int_elem!(u64, ScalarType::U64, u64);

macro_rules! float_elem {
    ($t:ty, $st:expr, $bits:ty) => {
        impl Elem for $t {
            const TY: ScalarType = $st;
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
            fn from_bits(b: u64) -> Self {
                <$t>::from_bits(b as $bits)
            }
            fn combine(op: GroupOp, a: Self, b: Self) -> Self {
                match op {
                    GroupOp::Add => a + b,
                    GroupOp::Mul => a * b,
                    // minNum / maxNum: a NaN operand is ignored; signed zeros are ordered.
                    GroupOp::Min | GroupOp::Max => {
                        if a.is_nan() {
                            return b;
                        }
                        if b.is_nan() {
                            return a;
                        }
                        let min = op == GroupOp::Min;
                        if a == b {
                            // Equal values: only ±0 can differ; min takes -0, max takes +0.
                            if a.is_sign_negative() == min {
                                a
                            } else {
                                b
                            }
                        } else if (a < b) == min {
                            a
                        } else {
                            b
                        }
                    }
                    GroupOp::And | GroupOp::Or | GroupOp::Xor => {
                        panic!("{:?} is not defined on {}", op, stringify!($t))
                    }
                }
            }
            fn identity(op: GroupOp) -> Self {
                match op {
                    GroupOp::Add | GroupOp::Or | GroupOp::Xor => 0.0,
                    GroupOp::Mul => 1.0,
                    GroupOp::And => <$t>::from_bits(!0),
                    GroupOp::Min => <$t>::INFINITY,
                    GroupOp::Max => <$t>::NEG_INFINITY,
                }
            }
            fn sample(seed: u64) -> Self {
                // Values with fractional bits so that the combination order shows in the result.
                let r = mix(seed);
                let m = ((r >> 11) % 2_000_001) as $t - 1_000_000.0;
                m / 1024.0
            }
            fn specials() -> Vec<Self> {
                vec![
                    <$t>::NAN,
                    0.0,
                    -0.0,
                    <$t>::INFINITY,
                    <$t>::NEG_INFINITY,
                    <$t>::MAX,
                    <$t>::MIN,
                    <$t>::MIN_POSITIVE,
                    1.0,
                    -1.0,
                ]
            }
            fn sentinel_max() -> Self {
                <$t>::INFINITY
            }
            fn same(a: Self, b: Self) -> bool {
                (a.is_nan() && b.is_nan()) || <$t>::to_bits(a) == <$t>::to_bits(b)
            }
        }
    };
}

float_elem!(f32, ScalarType::F32, u32);
float_elem!(f64, ScalarType::F64, u64);

/// Calls `$body` with the type alias `$T` bound to each of the six dtypes (`$ints`: integers only).
#[macro_export]
macro_rules! for_each_dtype {
    ($T:ident => $body:block) => {{
        {
            type $T = i32;
            $body
        }
        {
            type $T = u32;
            $body
        }
        {
            type $T = i64;
            $body
        }
        {
            type $T = u64;
            $body
        }
        {
            type $T = f32;
            $body
        }
        {
            type $T = f64;
            $body
        }
    }};
}

/// Calls `$body` with `$T` bound to each integer dtype.
#[macro_export]
macro_rules! for_each_int_dtype {
    ($T:ident => $body:block) => {{
        {
            type $T = i32;
            $body
        }
        {
            type $T = u32;
            $body
        }
        {
            type $T = i64;
            $body
        }
        {
            type $T = u64;
            $body
        }
    }};
}
