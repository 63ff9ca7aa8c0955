//! End-to-end kernels in the simulator, one per target (gfx90a, gfx942, gfx1100 wave64 and
//! wave32): kernarg load through `s_load`, arithmetic, an LDS exchange across the waves of a
//! workgroup around `s_barrier`, a branch under EXEC (`s_and_saveexec` / `s_cbranch_execz`) and a
//! global store — written as assembler text and run from the real encoded bytes.

mod sim_util;

use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};
use qd_amdgcn_sim::{self as sim, Dispatch, GlobalMemory, InstClass, KernelSetup, Program, SimUserSgprs};
use sim_util::{asm, targets};

const BLOCK: u32 = 128;
const GRID: u32 = 3;

/// The exchange kernel: `out[wg * 128 + tid] = ((tid + 64) % 128) * k + 1000` for `tid < n`,
/// the value coming from the LDS slot another wave wrote.
fn exchange_kernel(t: Target) -> String {
    let gfx9 = t.family() == Family::Gfx9;
    let w32 = t.wave == WaveSize::W32;
    let (load4, ds_w, ds_r, add, store) = if gfx9 {
        ("s_load_dwordx4", "ds_write_b32", "ds_read_b32", "v_add_u32_e32", "global_store_dword")
    } else {
        ("s_load_b128", "ds_store_b32", "ds_load_b32", "v_add_nc_u32_e32", "global_store_b32")
    };
    let (vcc, save, or_exec) = if w32 {
        ("vcc_lo", "s_and_saveexec_b32 s8, vcc_lo", "s_or_b32 exec_lo, exec_lo, s8")
    } else {
        ("vcc", "s_and_saveexec_b64 s[8:9], vcc", "s_or_b64 exec, exec, s[8:9]")
    };
    format!(
        "{load4} s[4:7], s[0:1], 0x0        ; s[4:5] = out, s6 = n, s7 = k
         v_and_b32_e32 v0, 0x3ff, v0
         s_waitcnt lgkmcnt(0)
         v_mul_lo_u32 v1, v0, s7
         v_lshlrev_b32_e32 v2, 2, v0
         {ds_w} v2, v1
         {add} v3, 64, v0
         v_and_b32_e32 v3, 0x7f, v3
         v_lshlrev_b32_e32 v3, 2, v3
         s_waitcnt lgkmcnt(0)
         s_barrier
         {ds_r} v4, v3
         v_cmp_gt_u32_e32 {vcc}, s6, v0
         {save}
         s_cbranch_execz skip
         s_lshl_b32 s10, s2, 7
         {add} v5, s10, v0
         v_lshlrev_b32_e32 v5, 2, v5
         s_waitcnt lgkmcnt(0)
         {add} v4, 0x3e8, v4
         {store} v5, v4, s[4:5]
         skip:
         {or_exec}
         s_endpgm"
    )
}

fn setup(t: Target) -> KernelSetup {
    KernelSetup {
        target: t,
        user_sgprs: SimUserSgprs::kernarg_only(),
        workgroup_id: [true, false, false],
        workitem_id_dims: 1,
        group_segment_size: 4 * BLOCK,
        next_free_vgpr: 8,
        next_free_sgpr: 16,
    }
}

fn kernarg(out: u64, n: u32, k: u32) -> Vec<u8> {
    let mut v = out.to_le_bytes().to_vec();
    v.extend(n.to_le_bytes());
    v.extend(k.to_le_bytes());
    v
}

fn read_u32s(mem: &GlobalMemory, addr: u64, n: usize) -> Vec<u32> {
    let bytes = mem.read(addr, 4 * n).expect("read back");
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn exchange_kernel_every_target() {
    for t in targets() {
        let program = Program { setup: setup(t), insts: asm(&exchange_kernel(t), t) };
        for n in [BLOCK, 40, 100] {
            let mut mem = GlobalMemory::new();
            let total = (GRID * BLOCK) as usize;
            let out = mem.alloc(4 * total, 256);
            mem.write(out, &vec![0xEF; 4 * total]).unwrap();
            let k = 3;
            let dispatch = Dispatch { grid: [GRID, 1, 1], block: [BLOCK, 1, 1], kernarg: kernarg(out, n, k) };
            let stats = sim::run(&program, &dispatch, &mut mem).unwrap_or_else(|e| panic!("{t} n={n}: {e}"));
            let got = read_u32s(&mem, out, total);
            for gid in 0..total as u32 {
                let tid = gid % BLOCK;
                let want = if tid < n { (tid + 64) % BLOCK * k + 1000 } else { 0xEFEF_EFEF };
                assert_eq!(got[gid as usize], want, "{t} n={n} gid {gid}");
            }
            let lanes = t.wave.lanes();
            let waves = u64::from(GRID * BLOCK / lanes);
            assert_eq!(stats.waves, waves, "{t}");
            assert_eq!(stats.workgroups, u64::from(GRID));
            assert_eq!(stats.count(InstClass::Barrier), waves, "{t}");
            assert_eq!(stats.count(InstClass::Lds), 2 * waves, "{t}");
            assert_eq!(stats.count(InstClass::Smem), waves, "{t}");
            // Waves whose lanes all fail `tid < n` branch over the store.
            let storing = u64::from(GRID) * u64::from(n.div_ceil(lanes));
            assert_eq!(stats.count(InstClass::Vmem), storing, "{t} n={n}");
            assert!(stats.est_cycles > 0 && stats.max_wave_cycles <= stats.est_cycles);
        }
    }
}

#[test]
fn initial_state_2d_with_dispatch_ptr() {
    // User SGPRs: dispatch ptr s[0:1], kernarg ptr s[2:3]; workgroup ids X, Y in s4, s5.
    // Each work-item stores its raw packed v0, and wave 0 of each workgroup stores the packet's
    // workgroup_size_x (u16 at byte 4) and the workgroup ids.
    let t = Target::wave64(Arch::Gfx942);
    let text = "
        s_load_dwordx2 s[8:9], s[2:3], 0x0
        s_load_dword s10, s[0:1], 0x4
        s_mul_i32 s11, s5, 2
        s_add_u32 s11, s11, s4           ; flat workgroup = y * 2 + x
        s_mul_i32 s11, s11, 0x60         ; 96 work-items per workgroup
        v_and_b32_e32 v1, 0x3ff, v0      ; x
        v_bfe_u32 v2, v0, 10, 10         ; y
        v_mad_u32_u24 v1, v2, 8, v1      ; flat id = y * 8 + x
        v_add_u32_e32 v1, s11, v1
        v_lshlrev_b32_e32 v1, 2, v1
        s_waitcnt lgkmcnt(0)
        global_store_dword v1, v0, s[8:9]
        s_and_b32 s10, s10, 0xffff
        v_mov_b32_e32 v3, s10
        v_mov_b32_e32 v4, s4
        v_mov_b32_e32 v5, s5
        v_mov_b32_e32 v6, 0x600
        s_mul_i32 s12, s5, 2
        s_add_u32 s12, s12, s4
        s_lshl_b32 s12, s12, 4
        v_add_u32_e32 v6, s12, v6
        global_store_dword v6, v3, s[8:9]
        global_store_dword v6, v4, s[8:9] offset:4
        global_store_dword v6, v5, s[8:9] offset:8
        s_endpgm";
    let program = Program {
        setup: KernelSetup {
            target: t,
            user_sgprs: SimUserSgprs { dispatch_ptr: true, kernarg_segment_ptr: true, ..SimUserSgprs::default() },
            workgroup_id: [true, true, false],
            workitem_id_dims: 2,
            group_segment_size: 0,
            next_free_vgpr: 8,
            next_free_sgpr: 16,
        },
        insts: asm(text, t),
    };
    let mut mem = GlobalMemory::new();
    let out = mem.alloc(0x600 + 4 * 16, 256);
    let dispatch = Dispatch { grid: [2, 2, 1], block: [8, 12, 1], kernarg: out.to_le_bytes().to_vec() };
    let stats = sim::run(&program, &dispatch, &mut mem).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.waves, 4 * 2, "96 work-items = 2 waves (the second partial) per workgroup");
    let got = read_u32s(&mem, out, 0x600 / 4 + 16);
    for wg in 0..4u32 {
        for flat in 0..96u32 {
            let (x, y) = (flat % 8, flat / 8);
            assert_eq!(got[(wg * 96 + flat) as usize], x | y << 10, "packed v0 of wg {wg} item {flat}");
        }
        let at = 0x600 / 4 + (wg * 4) as usize;
        assert_eq!(&got[at..at + 3], &[8, wg % 2, wg / 2], "packet size and workgroup ids of wg {wg}");
    }
}

#[test]
fn setup_errors_are_reported() {
    let t = Target::wave64(Arch::Gfx90a);
    let program = Program { setup: setup(t), insts: asm("s_endpgm", t) };
    let mut mem = GlobalMemory::new();
    for (grid, block) in [([0, 1, 1], [64, 1, 1]), ([1, 1, 1], [0, 1, 1]), ([1, 1, 1], [1025, 1, 1])] {
        let d = Dispatch { grid, block, kernarg: vec![] };
        let e = sim::run(&program, &d, &mut mem).expect_err("bad dispatch");
        assert_eq!(e.kind, sim::SimErrorKind::InvalidDispatch);
    }
    // Every user SGPR enabled (15 of them): private segment buffer s[0:3], dispatch ptr s[4:5],
    // queue ptr s[6:7], kernarg ptr s[8:9], dispatch id s[10:11], flat scratch s[12:13],
    // private segment size s14, then workgroup id X in s15.
    let mut all = setup(t);
    all.user_sgprs = SimUserSgprs {
        private_segment_buffer: true,
        dispatch_ptr: true,
        queue_ptr: true,
        kernarg_segment_ptr: true,
        dispatch_id: true,
        flat_scratch_init: true,
        private_segment_size: true,
        extra: 0,
    };
    all.next_free_sgpr = 24;
    let text = "s_load_dwordx2 s[16:17], s[8:9], 0x0
                s_load_dword s18, s[4:5], 0x4
                v_mov_b32_e32 v1, 0
                v_mov_b32_e32 v2, s15
                s_waitcnt lgkmcnt(0)
                v_mov_b32_e32 v3, s18
                global_store_dword v1, v2, s[16:17]
                global_store_dword v1, v3, s[16:17] offset:4
                s_endpgm";
    let out = mem.alloc(8, 8);
    let d = Dispatch { grid: [3, 1, 1], block: [64, 1, 1], kernarg: out.to_le_bytes().to_vec() };
    sim::run(&Program { setup: all, insts: asm(text, t) }, &d, &mut mem).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_u32s(&mem, out, 2), vec![2, 64 | 1 << 16], "last workgroup id; workgroup_size_x and _y");
    // Running off the end of the program is an error naming the last instruction.
    let off_end = Program { setup: setup(t), insts: asm("s_nop 0\ns_nop 0", t) };
    let e = sim::run(&off_end, &d, &mut mem).expect_err("no s_endpgm");
    assert_eq!((e.kind, e.offset), (sim::SimErrorKind::BadBranch, 4));
}

#[test]
fn exchange_kernel_from_a_code_object() {
    use qd_amdgcn_isa::code_object::{
        write_code_object, ArgKind, CodeObjectConfig, KernelArg, KernelCode, KernelResources, UserSgprs,
    };
    use qd_amdgcn_isa::{encode_all, parse_asm};
    for t in targets() {
        let text = exchange_kernel(t);
        let code = encode_all(&parse_asm(&text, t).unwrap(), t).unwrap();
        let kernel = KernelCode {
            name: "exchange".into(),
            code,
            resources: KernelResources {
                next_free_vgpr: 6,
                next_free_sgpr: 11,
                uses_vcc: true,
                group_segment_size: 4 * BLOCK,
                kernarg_size: 16,
                user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
                ..KernelResources::default()
            },
            args: vec![
                KernelArg { name: "out".into(), offset: 0, size: 8, kind: ArgKind::GlobalBuffer },
                KernelArg { name: "n".into(), offset: 8, size: 4, kind: ArgKind::ByValue },
                KernelArg { name: "k".into(), offset: 12, size: 4, kind: ArgKind::ByValue },
            ],
            lines: None,
        };
        let object = write_code_object(&CodeObjectConfig::new(t), &[kernel]).unwrap_or_else(|e| panic!("{t}: {e}"));
        let program = Program::from_code_object(&object, Some("exchange")).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(program.setup.target, t);
        assert_eq!(program.insts, asm(&text, t), "{t}: the loaded code is the assembled code");
        let mut mem = GlobalMemory::new();
        let total = (GRID * BLOCK) as usize;
        let out = mem.alloc(4 * total, 256);
        let dispatch = Dispatch { grid: [GRID, 1, 1], block: [BLOCK, 1, 1], kernarg: kernarg(out, 70, 5) };
        sim::run(&program, &dispatch, &mut mem).unwrap_or_else(|e| panic!("{t}: {e}"));
        let got = read_u32s(&mem, out, total);
        for gid in 0..total as u32 {
            let tid = gid % BLOCK;
            let want = if tid < 70 { (tid + 64) % BLOCK * 5 + 1000 } else { 0 };
            assert_eq!(got[gid as usize], want, "{t} gid {gid}");
        }
        assert!(Program::from_code_object(&object, Some("nope")).is_err());
        assert!(Program::from_code_object(b"not an elf", None).is_err());
    }
}
