//! `qd_lib::warp`: Quadrants' legacy `qd.simt.warp`, the CUDA warp builtins with member masks.
