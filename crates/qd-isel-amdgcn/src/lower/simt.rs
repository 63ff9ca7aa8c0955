//! Subgroup (wave) operations: shuffles, `broadcast`, ballots, `match.*`, `activemask`,
//! `elect`, votes, reductions and scans, each behind a strategy the shuffle selector can replace.

use qd_mir::Inst;

use super::Lower;
use crate::CompileError;

macro_rules! not_yet {
    ($($name:ident),*) => {$(
        /// Not lowered yet (a clear compile error).
        pub(crate) fn $name(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
            Err(cx.unsupported(i, "no AMDGCN lowering yet"))
        }
    )*};
}
not_yet!(shuffle, broadcast, ballot, match_, activemask, elect, vote, collective, subgroup_sync);
