//! `qd-isel-ptx`: MIR → PTX text for sm_70 … sm_90.
//!
//! This crate is filled by a later issue (the PTX back end and CUDA device). Today it holds only
//! this documentation: it exports nothing, so nothing can mistake it for a working back end.
//! The plan (see `docs/` and the design blueprint): virtual registers (ptxas allocates), member
//! masks from the MIR's structure, `redux.sync` on sm_80+ and `elect.sync` on sm_90.
#![forbid(unsafe_code)]
