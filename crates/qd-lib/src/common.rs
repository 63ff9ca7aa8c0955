//! What every library function shares: the caller location every error is re-pointed at, the
//! kernel's subgroup width and tile checks, the dtype sets of the Quadrants API, and the small
//! conversions between Quadrants' value conventions (i32 predicates and 0/1 results, u32 lane
//! operands) and MIR's (bool, u32).

use qd_frontend::{BuildError, ErrorKind, KernelBuilder, ScalarType, Tile, Val};
use qd_mir::GroupOp;
use std::panic::Location;

/// The caller location a public function captured with `#[track_caller]`.
pub(crate) type Loc = &'static Location<'static>;

/// Re-points an error raised inside the library at the user's call, so that every error names
/// the user's line whatever builder call inside the library failed.
pub(crate) fn at(loc: Loc) -> impl Fn(BuildError) -> BuildError {
    move |e| BuildError { location: loc, ..e }
}

/// An error at `loc`.
pub(crate) fn err(loc: Loc, kind: ErrorKind, message: impl Into<String>) -> BuildError {
    BuildError::new(loc, kind, message)
}

/// The kernel's subgroup width, which `op` needs ([`KernelBuilder::set_subgroup_size`]).
pub(crate) fn width(b: &KernelBuilder<'_>, loc: Loc, op: &str) -> Result<u32, BuildError> {
    b.subgroup_size_hint().ok_or_else(|| {
        err(
            loc,
            ErrorKind::Config,
            format!(
                "{op}: needs the target's subgroup width; call KernelBuilder::set_subgroup_size \
                 with the device's width (qd_rt::DeviceInfo::subgroup_width) before building"
            ),
        )
    })
}

/// log2 of the kernel's subgroup width.
pub(crate) fn log2_width(b: &KernelBuilder<'_>, loc: Loc, op: &str) -> Result<u32, BuildError> {
    Ok(width(b, loc, op)?.trailing_zeros())
}

/// The tile of `2^log2_size` lanes, checked against the kernel's width: a tile wider than the
/// subgroup is an error here, where Quadrants computes a wrong answer.
pub(crate) fn tile(b: &KernelBuilder<'_>, loc: Loc, op: &str, log2_size: u32) -> Result<Tile, BuildError> {
    let w = width(b, loc, op)?;
    let lw = w.trailing_zeros();
    if log2_size > lw {
        return Err(err(
            loc,
            ErrorKind::OutOfRange,
            format!(
                "{op}: log2_size {log2_size} (a tile of {} lanes) is wider than the subgroup \
                 ({w} lanes, log2 {lw})",
                1u64 << log2_size.min(63)
            ),
        ));
    }
    // `log2_size <= lw <= 6`, so it fits a u8.
    Ok(Tile::Log2(log2_size as u8))
}

/// The dtypes of the subgroup data movement, reductions and scans (Quadrants §1.2).
pub(crate) const NUMERIC: &[ScalarType] =
    &[ScalarType::I32, ScalarType::U32, ScalarType::I64, ScalarType::U64, ScalarType::F32, ScalarType::F64];

/// The integer dtypes (`and`/`or`/`xor` scans).
pub(crate) const INTEGER: &[ScalarType] = &[ScalarType::I32, ScalarType::U32, ScalarType::I64, ScalarType::U64];

/// `v`'s scalar type if it is one of `allowed`, else an error naming the op, the type and the set.
pub(crate) fn dtype(loc: Loc, op: &str, v: Val, allowed: &[ScalarType]) -> Result<ScalarType, BuildError> {
    match v.scalar() {
        Some(s) if allowed.contains(&s) => Ok(s),
        _ => {
            let set: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
            Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("{op}: unsupported dtype {} (supported: {})", v.ty(), set.join(", ")),
            ))
        }
    }
}

/// The dtypes `op` supports: integers only for the bitwise operators.
pub(crate) fn dtypes_of(op: GroupOp) -> &'static [ScalarType] {
    match op {
        GroupOp::And | GroupOp::Or | GroupOp::Xor => INTEGER,
        GroupOp::Add | GroupOp::Mul | GroupOp::Min | GroupOp::Max => NUMERIC,
    }
}

/// A Quadrants predicate (any integer, or bool) as a MIR bool: `p != 0`.
pub(crate) fn truthy(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, p: Val) -> Result<Val, BuildError> {
    match p.scalar() {
        Some(ScalarType::Bool) => Ok(p),
        Some(s) if s.is_int() => {
            let zero = b.const_scalar(s, 0)?;
            b.ne(p, zero)
        }
        _ => Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("{op}: the predicate must be an integer or bool, got {}", p.ty()),
        )),
    }
}

/// A lane index, offset or mask of any integer type as the u32 MIR's shuffles take (wider or
/// signed values are truncated to their low 32 bits, as Quadrants' u32 IR signature does).
pub(crate) fn lane_u32(b: &mut KernelBuilder<'_>, loc: Loc, op: &str, what: &str, v: Val) -> Result<Val, BuildError> {
    match v.scalar() {
        Some(ScalarType::U32) => Ok(v),
        Some(s) if s.is_int() => b.cast(v, ScalarType::U32),
        _ => Err(err(loc, ErrorKind::TypeMismatch, format!("{op}: {what} must be an integer, got {}", v.ty()))),
    }
}

/// A MIR bool as Quadrants' i32 0/1.
pub(crate) fn i32_of_bool(b: &mut KernelBuilder<'_>, v: Val) -> Result<Val, BuildError> {
    b.cast(v, ScalarType::I32)
}

/// The identity of `op` on `ty` as a constant (`eval::identity`: 0, 1, all ones, ±inf,
/// INT_MAX/INT_MIN, 0 for the unsigned max).
pub(crate) fn identity(b: &mut KernelBuilder<'_>, op: GroupOp, ty: ScalarType) -> Result<Val, BuildError> {
    b.const_scalar(ty, qd_mir::eval::identity(op, ty))
}

/// `lane_id & (2^log2 - 1)`: the lane's index within its tile.
pub(crate) fn lane_in_tile(b: &mut KernelBuilder<'_>, log2: u32) -> Result<Val, BuildError> {
    let lane = b.lane_id()?;
    let mask = b.const_u32((1u32 << log2) - 1)?;
    b.and(lane, mask)
}
