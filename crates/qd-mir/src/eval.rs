//! Scalar semantics of every pure op on raw register bits — the one definition shared by the
//! interpreter (per lane), the constant folder and the reference tests.
//!
//! A value's bits are held in a `u64`, canonical for its type: 32-bit types zero-extended (an
//! `i32` −1 is `0xFFFF_FFFF`), floats as their IEEE bits, `bool` as 0 or 1, pointers as the
//! interpreter's address encoding.

use crate::ops::{BinOp, CmpCond, GroupOp, Opcode, UnOp};
use crate::types::ScalarType;

/// Why a scalar op has no result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// Integer division or remainder by zero.
    DivByZero,
    /// The op does not apply to the type (the verifier rejects this; kept as an error, never a panic).
    BadType,
}

/// Bits → f32.
pub fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}
/// Bits → f64.
pub fn f64_of(bits: u64) -> f64 {
    f64::from_bits(bits)
}
/// f32 → canonical bits.
pub fn bits_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}
/// f64 → canonical bits.
pub fn bits_f64(x: f64) -> u64 {
    x.to_bits()
}

/// Canonicalises bits for a type (truncates 32-bit values, bool to 0/1).
pub fn canon(ty: ScalarType, bits: u64) -> u64 {
    match ty {
        ScalarType::Bool => u64::from(bits & 1 != 0),
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => bits & 0xFFFF_FFFF,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => bits,
    }
}

/// The signed value of integer bits (sign-extended from 32 bits for `i32`).
pub fn as_i64(ty: ScalarType, bits: u64) -> i64 {
    match ty {
        ScalarType::I32 => bits as u32 as i32 as i64,
        ScalarType::U32 => (bits as u32) as i64,
        _ => bits as i64,
    }
}

/// Integer bits as a wide value preserving the type's signedness.
fn wide(ty: ScalarType, bits: u64) -> i128 {
    match ty {
        ScalarType::I32 => bits as u32 as i32 as i128,
        ScalarType::U32 => (bits as u32) as i128,
        ScalarType::I64 => bits as i64 as i128,
        ScalarType::U64 | ScalarType::Bool => bits as i128,
        ScalarType::F32 | ScalarType::F64 => 0,
    }
}

/// Evaluates a binary op (`add sub mul div rem min max and or xor shl shr`); any other opcode is
/// [`EvalError::BadType`].
pub fn binary(op: Opcode, ty: ScalarType, a: u64, b: u64) -> Result<u64, EvalError> {
    match op.as_binop() {
        Some(op) => eval_binop(op, ty, a, b),
        None => Err(EvalError::BadType),
    }
}

/// Evaluates a [`BinOp`] on two values of type `ty`.
pub fn eval_binop(op: BinOp, ty: ScalarType, a: u64, b: u64) -> Result<u64, EvalError> {
    use ScalarType as S;
    let r = match ty {
        S::F32 => {
            let (x, y) = (f32_of(a), f32_of(b));
            bits_f32(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Rem => x % y,
                BinOp::Min => min_f32(x, y),
                BinOp::Max => max_f32(x, y),
                BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => return Err(EvalError::BadType),
            })
        }
        S::F64 => {
            let (x, y) = (f64_of(a), f64_of(b));
            bits_f64(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Rem => x % y,
                BinOp::Min => min_f64(x, y),
                BinOp::Max => max_f64(x, y),
                BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => return Err(EvalError::BadType),
            })
        }
        S::Bool => match op {
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Min
            | BinOp::Max
            | BinOp::Shl
            | BinOp::Shr => return Err(EvalError::BadType),
        },
        S::I32 | S::U32 | S::I64 | S::U64 => {
            let bits = ty.bits();
            let (x, y) = (wide(ty, a), wide(ty, b));
            match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div | BinOp::Rem => {
                    if y == 0 {
                        return Err(EvalError::DivByZero);
                    }
                    // i128 cannot overflow here; INT_MIN / -1 wraps to INT_MIN after canon.
                    (if op == BinOp::Div { x / y } else { x % y }) as u64
                }
                BinOp::Min => x.min(y) as u64,
                BinOp::Max => x.max(y) as u64,
                BinOp::And => a & b,
                BinOp::Or => a | b,
                BinOp::Xor => a ^ b,
                BinOp::Shl => {
                    let s = wide(ty.unsigned(), b);
                    if s >= i128::from(bits) {
                        0
                    } else {
                        a << s
                    }
                }
                BinOp::Shr => {
                    // Amounts ≥ the width saturate: sign fill for signed, 0 for unsigned (PTX's clamp).
                    let s = wide(ty.unsigned(), b).min(i128::from(bits) - 1);
                    let sat = wide(ty.unsigned(), b) >= i128::from(bits);
                    if sat && !ty.is_signed() {
                        0
                    } else {
                        (x >> s) as u64
                    }
                }
            }
        }
    };
    Ok(canon(ty, r))
}

// Float min/max: IEEE 754-2008 minNum/maxNum (a single NaN operand is ignored; two NaNs give
// NaN), made commutative and deterministic on signed zeros: min(+0, -0) = -0, max(+0, -0) = +0
// (as IEEE 754-2019 minimum/maximum order zeros). Reductions then give bit-identical results on
// every lane whatever the combination order.
fn min_f32(x: f32, y: f32) -> f32 {
    if x == y {
        f32::from_bits(x.to_bits() | y.to_bits())
    } else {
        x.min(y)
    }
}
fn max_f32(x: f32, y: f32) -> f32 {
    if x == y {
        f32::from_bits(x.to_bits() & y.to_bits())
    } else {
        x.max(y)
    }
}
fn min_f64(x: f64, y: f64) -> f64 {
    if x == y {
        f64::from_bits(x.to_bits() | y.to_bits())
    } else {
        x.min(y)
    }
}
fn max_f64(x: f64, y: f64) -> f64 {
    if x == y {
        f64::from_bits(x.to_bits() & y.to_bits())
    } else {
        x.max(y)
    }
}

/// Evaluates a unary op (`neg abs not sqrt clz popcount bitrev`); any other opcode is
/// [`EvalError::BadType`].
pub fn unary(op: Opcode, ty: ScalarType, a: u64) -> Result<u64, EvalError> {
    match op.as_unop() {
        Some(op) => eval_unop(op, ty, a),
        None => Err(EvalError::BadType),
    }
}

/// Evaluates a [`UnOp`] on a value of type `ty`.
pub fn eval_unop(op: UnOp, ty: ScalarType, a: u64) -> Result<u64, EvalError> {
    use ScalarType as S;
    let r = match ty {
        S::F32 => {
            let x = f32_of(a);
            bits_f32(match op {
                UnOp::Neg => -x,
                UnOp::Abs => x.abs(),
                UnOp::Sqrt => x.sqrt(),
                UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => return Err(EvalError::BadType),
            })
        }
        S::F64 => {
            let x = f64_of(a);
            bits_f64(match op {
                UnOp::Neg => -x,
                UnOp::Abs => x.abs(),
                UnOp::Sqrt => x.sqrt(),
                UnOp::Not | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => return Err(EvalError::BadType),
            })
        }
        S::Bool => match op {
            UnOp::Not => a ^ 1,
            UnOp::Neg | UnOp::Abs | UnOp::Sqrt | UnOp::Clz | UnOp::Popcount | UnOp::Bitrev => {
                return Err(EvalError::BadType)
            }
        },
        S::I32 | S::U32 | S::I64 | S::U64 => {
            let w = ty.bits();
            match op {
                UnOp::Neg => a.wrapping_neg(),
                UnOp::Abs => {
                    if ty.is_signed() {
                        wide(ty, a).unsigned_abs() as u64
                    } else {
                        a
                    }
                }
                UnOp::Not => !a,
                UnOp::Clz => u64::from(if w == 32 { (a as u32).leading_zeros() } else { a.leading_zeros() }),
                UnOp::Popcount => u64::from(canon(ty, a).count_ones()),
                UnOp::Bitrev => {
                    if w == 32 {
                        u64::from((a as u32).reverse_bits())
                    } else {
                        a.reverse_bits()
                    }
                }
                UnOp::Sqrt => return Err(EvalError::BadType),
            }
        }
    };
    Ok(canon(ty, r))
}

/// Evaluates `fma a, b, c` (floats, one rounding).
pub fn fma(ty: ScalarType, a: u64, b: u64, c: u64) -> Result<u64, EvalError> {
    match ty {
        ScalarType::F32 => Ok(bits_f32(f32_of(a).mul_add(f32_of(b), f32_of(c)))),
        ScalarType::F64 => Ok(bits_f64(f64_of(a).mul_add(f64_of(b), f64_of(c)))),
        _ => Err(EvalError::BadType),
    }
}

/// Evaluates a comparison of two values of type `ty`.
pub fn compare(cond: CmpCond, ty: ScalarType, a: u64, b: u64) -> bool {
    use core::cmp::Ordering;
    let ord: Option<Ordering> = match ty {
        ScalarType::F32 => f32_of(a).partial_cmp(&f32_of(b)),
        ScalarType::F64 => f64_of(a).partial_cmp(&f64_of(b)),
        _ => Some(wide(ty, a).cmp(&wide(ty, b))),
    };
    match (cond, ord) {
        (CmpCond::Ne, None) => true,
        (_, None) => false,
        (CmpCond::Eq, Some(o)) => o == Ordering::Equal,
        (CmpCond::Ne, Some(o)) => o != Ordering::Equal,
        (CmpCond::Lt, Some(o)) => o == Ordering::Less,
        (CmpCond::Le, Some(o)) => o != Ordering::Greater,
        (CmpCond::Gt, Some(o)) => o == Ordering::Greater,
        (CmpCond::Ge, Some(o)) => o != Ordering::Less,
    }
}

/// Evaluates a numeric conversion `cast` from `from` to `to`.
pub fn cast(from: ScalarType, to: ScalarType, a: u64) -> u64 {
    use ScalarType as S;
    if to == S::Bool {
        return u64::from(match from {
            S::F32 => f32_of(a) != 0.0,
            S::F64 => f64_of(a) != 0.0,
            _ => canon(from, a) != 0,
        });
    }
    let r = match from {
        S::F32 | S::F64 => {
            let x = if from == S::F32 { f64::from(f32_of(a)) } else { f64_of(a) };
            match to {
                S::F32 => bits_f32(if from == S::F32 { f32_of(a) } else { x as f32 }),
                S::F64 => bits_f64(x),
                S::I32 => x as i32 as u32 as u64,
                S::U32 => u64::from(x as u32),
                S::I64 => x as i64 as u64,
                S::U64 => x as u64,
                S::Bool => unreachable_bool(),
            }
        }
        S::Bool | S::I32 | S::U32 | S::I64 | S::U64 => {
            let v = wide(from, a);
            match to {
                S::F32 => bits_f32(v as f32),
                S::F64 => bits_f64(v as f64),
                S::I32 | S::U32 | S::I64 | S::U64 => v as u64,
                S::Bool => unreachable_bool(),
            }
        }
    };
    canon(to, r)
}

// `to == Bool` returns early above; this keeps the matches exhaustive without a panic path.
fn unreachable_bool() -> u64 {
    0
}

/// The identity element of a group operator for a type.
pub fn identity(op: GroupOp, ty: ScalarType) -> u64 {
    op.identity(ty)
}

/// Combines two values with a group operator (`a ⊕ b`, `a` the lower lane).
pub fn combine(op: GroupOp, ty: ScalarType, a: u64, b: u64) -> Result<u64, EvalError> {
    if ty == ScalarType::Bool {
        return match op {
            GroupOp::Add | GroupOp::Or | GroupOp::Max => Ok(a | b),
            GroupOp::Mul | GroupOp::And | GroupOp::Min => Ok(a & b),
            GroupOp::Xor => Ok(a ^ b),
        };
    }
    binary(op.opcode(), ty, a, b)
}

impl ScalarType {
    /// The unsigned type of the same width (floats and bool map to themselves).
    pub fn unsigned(self) -> ScalarType {
        match self {
            ScalarType::I32 => ScalarType::U32,
            ScalarType::I64 => ScalarType::U64,
            other => other,
        }
    }
}
