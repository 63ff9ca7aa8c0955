//! Working registers of the collectives lowered in `simt_coll.rs`. The group operators
//! themselves (`a ⊕ b` bit-identical to the interpreter on every type) are VALU steps of a
//! collective sequence: `select/collective/seq.rs` (`combine`), so that the selector prices
//! exactly what is emitted.

use qd_mir::types::ScalarType;

use super::{Lower, Val};

/// A fresh working register (VGPR or VGPR pair) for values of `ty`.
pub(crate) fn work_reg(cx: &mut Lower<'_>, ty: ScalarType) -> Val {
    if ty.bits() == 64 {
        Val::V64(cx.new_w())
    } else {
        Val::V(cx.new_v())
    }
}
