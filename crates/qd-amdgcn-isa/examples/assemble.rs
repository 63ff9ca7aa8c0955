//! Assembles a few lines of AMDGCN assembly for gfx942 and gfx1100 with qd's own parser and
//! encoder, decodes the bytes back and prints each instruction with its offset, its machine words
//! and the canonical LLVM 19 text — the whole ISA layer in one screen (see docs/amdgcn.md).
//!
//! Run: `cargo run -p qd-amdgcn-isa --example assemble`

use qd_amdgcn_isa::{decode_all, encode_all, inst_size, parse_asm};
use qd_amdgcn_isa::{Arch, Target};

/// gfx942 (GFX9): a suffixless compare (the parser picks `_e32`), DPP with the GFX9 spelling
/// `bound_ctrl:0` of BOUND_CTRL = 1, saveexec, global memory with an SGPR base.
const GFX942: &str = "
    s_load_dwordx2 s[0:1], s[4:5], 0x0      ; the kernarg buffer pointer
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    global_load_dword v2, v1, s[0:1]
    s_waitcnt vmcnt(0)
    s_nop 0                                 ; GFX9 DPP hazard: 2 wait states after v2's write
    v_add_f32_dpp v2, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
    v_cmp_gt_u32 vcc, 32, v0
    s_and_saveexec_b64 s[2:3], vcc
    global_store_dword v1, v2, s[0:1]
    s_endpgm
";

/// gfx1100 (GFX11, wave64): GFX11 mnemonics, a VOP3-only carry add, row_xmask, DPP8,
/// v_permlane64 and a backward branch to a label.
const GFX1100: &str = "
    s_load_b64 s[0:1], s[4:5], 0x0
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    global_load_b32 v2, v1, s[0:1]
    s_waitcnt vmcnt(0)
    v_add_f32_dpp v2, v2, v2 row_xmask:1 row_mask:0xf bank_mask:0xf
    v_add_co_u32 v3, vcc, v1, v2
    v_permlane64_b32 v4, v2
    v_mov_b32_dpp v5, v2 dpp8:[7,6,5,4,3,2,1,0]
  loop:
    s_sub_u32 s2, s2, 1
    s_cbranch_scc1 loop
    global_store_b32 v1, v2, s[0:1]
    s_endpgm
";

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    for (target, src) in [(Target::wave64(Arch::Gfx942), GFX942), (Target::wave64(Arch::Gfx1100), GFX1100)] {
        // Text -> instructions (labels resolved) -> bytes; errors render with a caret.
        let insts = parse_asm(src, target).map_err(|e| e.render(src))?;
        let bytes = encode_all(&insts, target)?;
        println!("{target}: {} instructions, {} bytes", insts.len(), bytes.len());
        // Bytes -> instructions: the decoder re-encodes what it read, so this is exact.
        for (offset, inst) in decode_all(&bytes, target)? {
            let at = offset as usize;
            let words: Vec<String> = bytes[at..at + inst_size(&inst, target)]
                .chunks(4)
                .map(|w| format!("{:08x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect();
            println!("  {offset:3x}: {:<26} {}", words.join(" "), inst.display(target));
        }
    }
    Ok(())
}
