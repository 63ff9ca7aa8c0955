//! Prints `docs/amdgcn-instructions.md`, the instruction reference generated from the table
//! ([`qd_isel_amdgcn::isa::reference::instruction_reference`]).
//!
//! Usage: `cargo run -p qd-isel-amdgcn --example gen_instruction_doc > docs/amdgcn-instructions.md`
//! (`tests/isa_reference_doc.rs` fails, printing this command, when the committed file is stale).

fn main() {
    print!("{}", qd_isel_amdgcn::isa::reference::instruction_reference());
}
