//! Structured control flow on the EXEC mask: `if`, `loop`, `yield`, `break`, `continue`,
//! `return`.

use qd_mir::Inst;

use super::Lower;
use crate::CompileError;

/// The state of the regions being lowered.
#[derive(Clone, Debug, Default)]
pub(crate) struct CfState {
    /// Nesting depth of the regions being lowered (0: the body).
    pub depth: u32,
}

/// `return`.
pub(crate) fn return_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    if cx.cf.depth > 0 {
        return Err(cx.unsupported(i, "no AMDGCN lowering yet"));
    }
    cx.end_kernel();
    Ok(())
}

macro_rules! not_yet {
    ($($name:ident),*) => {$(
        /// Not lowered yet (a clear compile error).
        pub(crate) fn $name(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
            Err(cx.unsupported(i, "no AMDGCN lowering yet"))
        }
    )*};
}
not_yet!(if_, loop_, yield_, break_, continue_);
