//! `qd_lib::block`: Quadrants' `qd.simt.block` — barriers (plain and with a predicate), fences,
//! thread indices, shared arrays, block reductions and scans (builtin and user operators) and the
//! radix-rank primitive of the device sort.
//!
//! Block collectives combine a subgroup collective with one slot per subgroup in shared memory, so
//! they need the target's subgroup width ([`qd_frontend::KernelBuilder::set_subgroup_size`]) and a
//! `block_dim` that is a positive multiple of it; both are checked at the caller's line.
