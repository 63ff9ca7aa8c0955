//! Runnable example of the whole AMDGCN ISA layer: assemble a kernel that computes an inclusive
//! prefix sum within each 16-lane row with four DPP `row_shr` steps, write it into an HSA code
//! object, load the object into the wave simulator, run one workgroup of 64 work-items on gfx942
//! and on gfx1100 (wave64), check every lane against plain Rust, and print the simulator's
//! instruction counts and cycle estimate.
//!
//! Run with `cargo run -p qd-amdgcn-sim --example simulate`.

use qd_amdgcn_isa::code_object::{
    write_code_object, ArgKind, CodeObjectConfig, KernelArg, KernelCode, KernelResources,
};
use qd_amdgcn_isa::{encode_all, parse_asm};
use qd_amdgcn_isa::{Arch, Target};
use qd_amdgcn_sim::{run, Dispatch, GlobalMemory, Program};

/// gfx942: `bound_ctrl:0` is GFX9's spelling of BOUND_CTRL = 1 (lanes with no source add 0), and
/// every DPP read of a VGPR written just before needs two wait states (`s_nop 1`).
const GFX942: &str = "
    s_load_dwordx2 s[4:5], s[0:1], 0x0     ; the buffer pointer, from the kernarg segment
    v_lshlrev_b32 v1, 2, v0                ; byte offset of this lane's element
    s_waitcnt lgkmcnt(0)
    global_load_dword v2, v1, s[4:5]
    s_waitcnt vmcnt(0)
    s_nop 0                                ; (the s_waitcnt was the first wait state)
    v_add_u32_dpp v2, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
    s_nop 1
    v_add_u32_dpp v2, v2, v2 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:0
    s_nop 1
    v_add_u32_dpp v2, v2, v2 row_shr:4 row_mask:0xf bank_mask:0xf bound_ctrl:0
    s_nop 1
    v_add_u32_dpp v2, v2, v2 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:0
    global_store_dword v1, v2, s[4:5]
    s_endpgm
";

/// gfx1100: GFX11 mnemonics, `bound_ctrl:1`, and no DPP wait states.
const GFX1100: &str = "
    s_load_b64 s[4:5], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    global_load_b32 v2, v1, s[4:5]
    s_waitcnt vmcnt(0)
    v_add_nc_u32_dpp v2, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
    v_add_nc_u32_dpp v2, v2, v2 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
    v_add_nc_u32_dpp v2, v2, v2 row_shr:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
    v_add_nc_u32_dpp v2, v2, v2 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
    global_store_b32 v1, v2, s[4:5]
    s_endpgm
";

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    for (arch, src) in [(Arch::Gfx942, GFX942), (Arch::Gfx1100, GFX1100)] {
        let target = Target::wave64(arch);
        // Text -> instructions -> bytes -> code object.
        let insts = parse_asm(src, target).map_err(|e| e.render(src))?;
        let code = encode_all(&insts, target)?;
        let resources = KernelResources {
            next_free_vgpr: 3,
            next_free_sgpr: 6,
            kernarg_size: 8,
            max_flat_workgroup_size: 64,
            ..KernelResources::default()
        };
        let arg = KernelArg { name: "data".into(), offset: 0, size: 8, kind: ArgKind::GlobalBuffer };
        let kernel = KernelCode { name: "row_scan".into(), code, resources, args: vec![arg], lines: None };
        let object = write_code_object(&CodeObjectConfig::new(target), &[kernel])?;

        // Code object -> simulator: one workgroup of 64 work-items over a 64-element buffer.
        let program = Program::from_code_object(&object, Some("row_scan"))?;
        let input: Vec<u32> = (0..64u32).map(|i| i * 7 % 13 + 1).collect();
        let mut mem = GlobalMemory::new();
        let buf = mem.alloc(4 * input.len(), 256);
        mem.write(buf, &input.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())?;
        let dispatch = Dispatch { grid: [1, 1, 1], block: [64, 1, 1], kernarg: buf.to_le_bytes().to_vec() };
        let stats = run(&program, &dispatch, &mut mem)?;

        // Check every lane against plain Rust: an inclusive scan within each row of 16 lanes.
        let out: Vec<u32> =
            mem.read(buf, 4 * input.len())?.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let expected: Vec<u32> = input
            .chunks(16)
            .flat_map(|row| row.iter().scan(0u32, |acc, v| Some(*acc + v).inspect(|s| *acc = *s)).collect::<Vec<_>>())
            .collect();
        assert_eq!(out, expected, "{arch}: row scan");
        println!(
            "{target}: {} bytes of code object, {} instructions executed, ~{} cycles; row sums {:?}",
            object.len(),
            stats.instructions,
            stats.est_cycles,
            [out[15], out[31], out[47], out[63]]
        );
        for (class, n) in &stats.by_class {
            println!("    {class:?}: {n}");
        }
    }
    Ok(())
}
