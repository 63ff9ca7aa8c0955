//! The argument checks the public algorithms share: the value dtype of a buffer (one of a set),
//! the staging scratch type of a value type, and the program checks every call adds — data
//! buffers hold `max_n` elements, one-element outputs one, scratch what its formula says, and no
//! buffer an algorithm writes is bound to another buffer of the same element type that the call
//! reads or writes.

use super::Capacity;
use crate::common::{at, err, Loc};
use qd_frontend::{BuildError, ErrorKind, ProgramArg, ProgramBuilder, ScalarType, Type};
use qd_mir::AddrSpace;

/// The element type of buffer `a`, which must be one of `allowed`; the error names the
/// algorithm, the argument and the set.
pub(crate) fn dtype_in(
    loc: Loc,
    algo: &str,
    what: &str,
    a: ProgramArg,
    allowed: &[ScalarType],
) -> Result<ScalarType, BuildError> {
    let set: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
    match a.ty() {
        Type::Ptr(AddrSpace::Global, e) if allowed.contains(&e) => Ok(e),
        t => Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("{algo}: `{what}` must be a buffer of {} (ptr<global, T>), got {t}", set.join(", ")),
        )),
    }
}

/// The scratch element type that stages values of `ty` in reduce and scan (Quadrants: u32 for
/// 4-byte dtypes, u64 for 8-byte ones).
pub fn scratch_type(ty: ScalarType) -> ScalarType {
    if ty.bits() > 32 {
        ScalarType::U64
    } else {
        ScalarType::U32
    }
}

/// The scratch a call checks for: Quadrants' `formula` (the helper call `helper`, e.g.
/// `select_scratch_slots(1000)`), or `footprint` — where the partial levels of an over-specified
/// depth `d` end — when that is larger; with the text the check error shows.
pub(crate) fn scratch_need(helper: String, formula: u64, footprint: u64, d: u32) -> (u64, String) {
    if footprint > formula {
        (footprint, format!("{helper} = {formula}, plus the partials of log256_max_n = {d}: {footprint}"))
    } else {
        (formula, helper)
    }
}

/// `check len %a >= min "why"`, located at the user's call.
pub(crate) fn need_len(
    pb: &mut ProgramBuilder,
    loc: Loc,
    a: ProgramArg,
    min: u64,
    why: &str,
) -> Result<(), BuildError> {
    pb.check_len(a, min, why).map_err(at(loc))
}

/// `check len %a >= max_n "max_n"` for each data buffer.
pub(crate) fn need_data(
    pb: &mut ProgramBuilder,
    loc: Loc,
    cap: Capacity,
    bufs: &[ProgramArg],
) -> Result<(), BuildError> {
    for &b in bufs {
        need_len(pb, loc, b, cap.max_n(), &format!("max_n = {}", cap.max_n()))?;
    }
    Ok(())
}

/// `check distinct` between every buffer the call writes and every other buffer of the call
/// with the same element type (a written buffer bound to one of those would corrupt the result);
/// the same program parameter passed for two such roles is a [`BuildError`] here. `roles` lists
/// each buffer argument of the call once, with whether the call writes it.
pub(crate) fn need_distinct(pb: &mut ProgramBuilder, loc: Loc, roles: &[(ProgramArg, bool)]) -> Result<(), BuildError> {
    for (i, (a, wa)) in roles.iter().enumerate() {
        for (b, wb) in &roles[i + 1..] {
            if (*wa || *wb) && a.ty() == b.ty() {
                pb.check_distinct(*a, *b).map_err(at(loc))?;
            }
        }
    }
    Ok(())
}
