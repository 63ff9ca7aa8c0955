//! The SIMT interpreter (placeholder module root in this worktree: only the pure collective
//! semantics in [`simt`] live here; the interpreter core replaces this file at merge).

pub mod simt;
