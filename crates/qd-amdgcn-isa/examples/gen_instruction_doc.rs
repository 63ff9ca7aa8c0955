//! Prints `docs/amdgcn-instructions.md`, the instruction reference generated from the table
//! ([`qd_amdgcn_isa::reference::instruction_reference`]).
//!
//! Usage: `cargo run -p qd-amdgcn-isa --example gen_instruction_doc > docs/amdgcn-instructions.md`
//! (`tests/isa_reference_doc.rs` fails, printing this command, when the committed file is stale).

fn main() {
    print!("{}", qd_amdgcn_isa::reference::instruction_reference());
}
