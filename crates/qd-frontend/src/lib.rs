//! `qd-frontend`: the kernel builder (filled by this frontend work).
#![forbid(unsafe_code)]
