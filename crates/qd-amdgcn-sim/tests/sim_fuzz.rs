//! The simulator never panics: random instructions (any op, any operands, modifiers, DPP, forms,
//! immediates — legal or not), random byte strings decoded by the real decoder, and random
//! dispatches all end in `Ok` or a `SimError`.

mod sim_util;

use qd_amdgcn_isa::{
    decode_all, Cache, Dpp, Dpp16, Dpp8, DppCtrl, Form, InlineFloat, Inst, Mods, Op, Operand, RegRange,
};
use qd_amdgcn_sim::{self as sim, Dispatch, GlobalMemory, KernelSetup, Program, SimUserSgprs, WaveSim};
use sim_util::{targets, Rng};

fn operand(r: &mut Rng) -> Operand {
    let len = [1, 1, 1, 2, 2, 4, 8, 0, 3][r.below(9) as usize];
    match r.below(20) {
        0 => Operand::None,
        1..=4 => Operand::Sgpr(RegRange {
            first: if r.below(8) == 0 { r.below(70000) as u16 } else { r.below(24) as u16 },
            len,
        }),
        5..=10 => Operand::Vgpr(RegRange {
            first: if r.below(8) == 0 { r.below(70000) as u16 } else { r.below(24) as u16 },
            len,
        }),
        11 => Operand::Vcc,
        12 => [Operand::VccLo, Operand::VccHi, Operand::Exec, Operand::ExecLo][r.below(4) as usize],
        13 => [Operand::ExecHi, Operand::M0, Operand::Null, Operand::Scc][r.below(4) as usize],
        14 | 15 => Operand::Int(r.u32() as i8),
        16 => Operand::Float(InlineFloat::ALL[r.below(9) as usize]),
        _ => Operand::Literal(r.u32()),
    }
}

fn inst(r: &mut Rng) -> Inst {
    let op = Op::ALL[r.below(Op::ALL.len() as u32) as usize];
    let mut i = Inst::new(op, &[operand(r), operand(r), operand(r), operand(r), operand(r)]);
    if r.below(4) == 0 {
        i.form = [Form::Native, Form::E32, Form::E64][r.below(3) as usize];
    }
    i.dpp = match r.below(6) {
        0 => Dpp::Dpp16(Dpp16 {
            ctrl: DppCtrl::decode(r.below(0x170) as u16).unwrap_or(DppCtrl::RowMirror),
            row_mask: r.below(16) as u8,
            bank_mask: r.below(16) as u8,
            bound_ctrl: r.bool(),
            fi: r.bool(),
        }),
        1 => Dpp::Dpp8(Dpp8 { sel: std::array::from_fn(|_| r.below(8) as u8), fi: r.bool() }),
        _ => Dpp::None,
    };
    if r.below(3) == 0 {
        i.mods = Mods {
            neg: r.below(8) as u8,
            abs: r.below(8) as u8,
            clamp: r.bool(),
            omod: r.below(4) as u8,
            op_sel: r.below(16) as u8,
        };
    }
    i.imm = match r.below(4) {
        0 => 0,
        1 => r.below(64) as i32,
        2 => r.u32() as i32,
        _ => (r.below(0x10000) as i32) - 0x8000,
    };
    i.imm1 = r.below(256) as u8;
    i.cache = Cache { glc_sc0: r.bool(), slc_nt: r.bool(), sc1: r.bool(), dlc: r.bool() };
    i
}

fn program(r: &mut Rng) -> Vec<(u32, Inst)> {
    let n = 1 + r.below(8);
    let mut off = 0;
    (0..n)
        .map(|_| {
            let at = off;
            off += 4 * (1 + r.below(3));
            (at, inst(r))
        })
        .collect()
}

#[test]
fn random_instructions_never_panic() {
    let mut r = Rng::new(11);
    let mut errors = 0;
    for round in 0..6000 {
        for t in targets() {
            let mut mem = GlobalMemory::new();
            let buf = mem.alloc(512, 256);
            let mut sim = WaveSim::new(t, 24, 24, if round % 2 == 0 { 256 } else { 0 });
            sim.options.max_steps_per_wave = 200;
            sim.set_exec(r.next());
            for lane in 0..sim.lanes() {
                for reg in 0..24 {
                    let v = match r.below(4) {
                        0 => buf as u32 + r.below(600),
                        1 => (buf >> 32) as u32,
                        2 => r.below(300),
                        _ => r.u32(),
                    };
                    sim.set_vgpr(reg, lane, v).unwrap();
                }
            }
            for reg in 0..24 {
                sim.set_sgpr(reg, if reg % 2 == 1 { (buf >> 32) as u32 } else { buf as u32 + r.below(64) }).unwrap();
            }
            if sim.run(&program(&mut r), &mut mem).is_err() {
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
}

#[test]
fn random_bytes_decoded_never_panic() {
    let mut r = Rng::new(12);
    let mut ran = 0;
    for _ in 0..20000 {
        for t in targets() {
            let bytes: Vec<u8> = (0..4 * (1 + r.below(6))).map(|_| r.u32() as u8).collect();
            let Ok(prog) = decode_all(&bytes, t) else { continue };
            let mut mem = GlobalMemory::new();
            let mut sim = WaveSim::new(t, 256, 106, 1024);
            sim.options.max_steps_per_wave = 100;
            let _ = sim.run(&prog, &mut mem);
            ran += 1;
        }
    }
    assert!(ran > 1000, "{ran}");
}

#[test]
fn random_dispatches_never_panic() {
    let mut r = Rng::new(13);
    for _ in 0..300 {
        for t in targets() {
            let setup = KernelSetup {
                target: t,
                user_sgprs: SimUserSgprs {
                    private_segment_buffer: r.bool(),
                    dispatch_ptr: r.bool(),
                    queue_ptr: r.bool(),
                    kernarg_segment_ptr: r.bool(),
                    dispatch_id: r.bool(),
                    flat_scratch_init: r.bool(),
                    private_segment_size: r.bool(),
                    extra: r.below(20) as u8,
                },
                workgroup_id: [r.bool(), r.bool(), r.bool()],
                workitem_id_dims: r.below(5) as u8,
                group_segment_size: [0, 256, 70000][r.below(3) as usize],
                next_free_vgpr: [0, 1, 16, 300][r.below(4) as usize],
                next_free_sgpr: r.below(120),
            };
            let program = Program { setup, insts: program(&mut r) };
            let d = Dispatch {
                grid: [r.below(3), 1 + r.below(2), 1],
                block: [r.below(200), 1 + r.below(3), [1, 2000][r.below(2) as usize]],
                kernarg: (0..r.below(40)).map(|_| r.u32() as u8).collect(),
            };
            let mut mem = GlobalMemory::new();
            let opts = sim::SimOptions { max_steps_per_wave: 200, ..sim::SimOptions::default() };
            let _ = sim::run_with(&program, &d, &mut mem, &opts);
        }
    }
}
