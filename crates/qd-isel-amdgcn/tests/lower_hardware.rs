//! Hardware facts the simulator was once kinder about than a GPU, each with a test that fails
//! if the simulator (or the lowering) forgets it:
//!
//! - registers and LDS the hardware leaves undefined at dispatch are garbage, not zero (the
//!   simulator poisons them, `SimOptions::poison_undefined`), so reading them is visible;
//! - GFX9 soft clauses with XNACK on (qd's code objects say xnack "any"): a run of consecutive
//!   VMEM (or SMEM) instructions may be replayed, so no member may read a register a member
//!   writes, and no store may join a run that writes registers (docs/amdgcn-isa-facts.md §11.1
//!   row 12); the hazard pass ends such runs with `s_nop 0`.

mod lower_util;
// The simulator crate's test helpers, shared rather than copied.
#[path = "../../qd-amdgcn-sim/tests/sim_util/mod.rs"]
mod sim_util;

use lower_util::*;
use qd_amdgcn_sim::{GlobalMemory, SimErrorKind, SimOptions, WaveSim};
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{Arch, Target, WaveSize};
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::ScalarType;

const GFX90A: Target = Target { arch: Arch::Gfx90a, wave: WaveSize::W64 };
const GFX942: Target = Target { arch: Arch::Gfx942, wave: WaveSize::W64 };
const GFX1100: Target = Target { arch: Arch::Gfx1100, wave: WaveSize::W64 };

fn u32s(n: usize, f: impl Fn(u64) -> u64) -> Buffer {
    Buffer::from_bits(ScalarType::U32, (0..n as u64).map(f))
}

/// Runs `f` on the simulator with `opts` and returns the buffers.
fn sim_run(f: &qd_mir::Function, t: Target, args: &[ArgValue], opts: &SimOptions) -> Vec<ArgValue> {
    let k = compile(f, t);
    let mut got = args.to_vec();
    runner::run(&k, [1, 1, 1], &mut got, None, opts).unwrap_or_else(|e| panic!("{t}: {e}\n{}", k.asm()));
    got
}

/// A kernel that reads shared memory before anything wrote it: MIR's shared arrays start
/// zero-filled, the GPU's LDS holds whatever the previous workgroup left. The simulator poisons
/// LDS at dispatch as a GPU would, and the compiled kernel's entry zero-fills its arrays, so it
/// reads zeros either way.
#[test]
fn lds_is_zero_filled_at_entry_though_garbage_at_dispatch() {
    let f = kernel(
        "kernel @k(%o: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  shared @s: [u32; 64]
  %t = thread_id x : u32
  %sp = shared.addr @s : ptr<shared, u32>
  %p = ptr.offset %sp, %t : ptr<shared, u32>
  %x = load %p : u32
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %x
  return
}
",
    );
    for t in targets() {
        let args = [ArgValue::Buffer(u32s(64, |_| 7))];
        let mut want = args.to_vec();
        let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some([1, 1, 1]), ..RunConfig::default() };
        qd_mir::interp::run_kernel(&f, &cfg, &mut want).unwrap();
        let zeroed = sim_run(&f, t, &args, &SimOptions { poison_undefined: false, ..SimOptions::default() });
        assert_eq!(zeroed, want, "{t}: without poisoning the simulator's LDS starts at zero");
        let poisoned = sim_run(&f, t, &args, &SimOptions::default());
        assert_eq!(poisoned, want, "{t}: the entry zero-fills the poisoned LDS");
    }
}

/// `broadcast` from a lane past the end of the block (wave32, 40 work-items: the second wave has
/// lanes 0..7): that lane never wrote its register, so a GPU reads garbage. The simulator does
/// too, where it used to read the zero the interpreter defines.
#[test]
fn lanes_past_the_block_hold_garbage() {
    let f = kernel(
        "kernel @k(%a: ptr<global, u32>, %o: ptr<global, u32>) block(40, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %ap = ptr.offset %a, %t : ptr<global, u32>
  %x = load %ap : u32
  %l = const 31 : u32
  %r = broadcast %x, %l : u32
  %op = ptr.offset %o, %t : ptr<global, u32>
  store %op, %r
  return
}
",
    );
    let t = Target { arch: Arch::Gfx1100, wave: WaveSize::W32 };
    let args = [ArgValue::Buffer(u32s(40, |i| i + 1)), ArgValue::Buffer(u32s(40, |_| 0))];
    let got = sim_run(&f, t, &args, &SimOptions::default());
    let ArgValue::Buffer(b) = &got[1] else { panic!("a buffer") };
    let b = b.to_bits();
    assert!(b[..32].iter().all(|&x| x == 32), "the full wave reads lane 31's value: {b:?}");
    assert!(b[32..].iter().all(|&x| x != 0 && x == b[32]), "the partial wave reads one garbage word: {b:?}");
}

fn clause_sim(t: Target) -> (WaveSim, GlobalMemory) {
    let mut mem = GlobalMemory::new();
    let buf = mem.alloc(256, 256);
    let mut sim = WaveSim::new(t, 16, 32, 0);
    for lane in 0..sim.lanes() {
        for (lo, hi) in [(4, 5), (6, 7)] {
            sim.set_vgpr(lo, lane, buf as u32 + 4 * lane).unwrap();
            sim.set_vgpr(hi, lane, (buf >> 32) as u32).unwrap();
        }
    }
    (sim, mem)
}

fn run_text(t: Target, text: &str) -> Result<(), qd_amdgcn_sim::SimError> {
    let (mut sim, mut mem) = clause_sim(t);
    sim.run(&sim_util::asm(text, t), &mut mem).map(|_| ())
}

/// docs/amdgcn-isa-facts.md §11.1 row 12 on GFX9: a load that overwrites the address of another load
/// of its clause, and a store after a load in one clause, are hazards; `s_nop 0` between them ends
/// the clause; a single load that overwrites its own address is no clause; GFX11 has no such rule.
#[test]
fn soft_clause_rule() {
    let (ld, st) = ("global_load_dword", "global_store_dword");
    let overwrite = format!("{ld} v8, v[6:7], off\n{ld} v6, v[4:5], off\ns_waitcnt vmcnt(0)");
    let store_after_load = format!("{ld} v8, v[6:7], off\n{st} v[4:5], v9, off\ns_waitcnt vmcnt(0)");
    for t in [GFX90A, GFX942] {
        for text in [&overwrite, &store_after_load] {
            let e = run_text(t, text).expect_err(&format!("{t}: a soft-clause hazard in\n{text}"));
            assert_eq!(e.kind, SimErrorKind::Hazard, "{t}: {e}");
            assert!(e.to_string().contains("row 12"), "{t}: {e}");
            let fixed = text.replacen('\n', "\ns_nop 0\n", 1);
            run_text(t, &fixed).unwrap_or_else(|e| panic!("{t}: {e}\n{fixed}"));
        }
        let alone = format!("{ld} v4, v[4:5], off\ns_waitcnt vmcnt(0)");
        run_text(t, &alone).unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    let g11 = |s: &str| s.replace(ld, "global_load_b32").replace(st, "global_store_b32");
    for text in [&overwrite, &store_after_load] {
        run_text(GFX1100, &g11(text)).unwrap_or_else(|e| panic!("gfx1100: {e}"));
    }
}

/// A compiled load followed by an independent store: on GFX9 the hazard pass puts a non-memory
/// instruction between them (the store may not join the load's clause); the result is checked
/// against the interpreter on every target.
#[test]
fn compiled_load_then_store_breaks_the_clause() {
    let f = kernel(
        "kernel @k(%a: ptr<global, u32>, %o: ptr<global, u32>, %q: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %ap = ptr.offset %a, %t : ptr<global, u32>
  %qp = ptr.offset %q, %t : ptr<global, u32>
  %op = ptr.offset %o, %t : ptr<global, u32>
  %x = load %ap : u32
  store %qp, %t
  store %op, %x
  return
}
",
    );
    for t in targets() {
        let args = [
            ArgValue::Buffer(u32s(64, |i| i * 3 + 1)),
            ArgValue::Buffer(u32s(64, |_| 0)),
            ArgValue::Buffer(u32s(64, |_| 0)),
        ];
        let (_, k) = check_kernel(&f, &qd_isel_amdgcn::AmdgcnOptions::new(t), [1, 1, 1], &args);
        if t.arch.family() == qd_isel_amdgcn::Family::Gfx9 {
            let ops: Vec<String> = k.insts.iter().map(|(_, i)| i.display(t).to_string()).collect();
            for w in ops.windows(2) {
                let load = w[0].starts_with("global_load") || w[0].starts_with("global_atomic");
                let store = w[1].starts_with("global_store") || w[1].starts_with("global_atomic");
                assert!(!(load && store), "{t}: `{}` directly after `{}`\n{}", w[1], w[0], k.asm());
            }
        }
    }
}

/// Between a divergent `if`'s `s_and_saveexec` and its `s_cbranch_execz` only scalar
/// instructions may run: the block is not divergent, so an allocator move of a VGPR there would
/// copy only the then-lanes (the else-lanes' values would be lost on the way to the else arm).
/// Checked under register pressure (a 16-VGPR budget), where the allocator moves most.
#[test]
fn nothing_vector_between_saveexec_and_its_branch() {
    let mut src = String::from(
        "kernel @k(%c: ptr<global, bool>, %a: ptr<global, u32>, %o: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %t = thread_id x : u32
  %cp = ptr.offset %c, %t : ptr<global, bool>
  %cv = load %cp : bool
  %k64 = const 64 : u32
",
    );
    let n = 10;
    for j in 0..n {
        let prev = if j == 0 { "%t".to_string() } else { format!("%i{}", j - 1) };
        src.push_str(&format!(
            "  %i{j} = add {prev}, %k64 : u32\n  %p{j} = ptr.offset %a, %i{j} : ptr<global, u32>\n  %v{j} = load %p{j} : u32\n"
        ));
    }
    src.push_str("  %r = if %cv -> (u32) {\n    %x = add %v0, %v1 : u32\n    yield %x\n  } else {\n    %y = add %v2, %v3 : u32\n    yield %y\n  }\n");
    let mut acc = "%r".to_string();
    for j in 0..n {
        src.push_str(&format!("  %w{j} = add {acc}, %v{j} : u32\n"));
        acc = format!("%w{j}");
    }
    src.push_str(&format!("  %op = ptr.offset %o, %t : ptr<global, u32>\n  store %op, {acc}\n  return\n}}\n"));
    let f = kernel(&src);
    for t in targets() {
        for budget in [16, 24, 256] {
            let mut o = qd_isel_amdgcn::AmdgcnOptions::new(t);
            o.check_regalloc = true;
            o.max_vgprs = budget;
            let args = [
                ArgValue::Buffer(Buffer::from_bits(ScalarType::Bool, (0..64).map(|i| u64::from(i % 3 == 0)))),
                ArgValue::Buffer(u32s(64 * (n + 1), |i| i * 7 + 1)),
                ArgValue::Buffer(u32s(64, |_| 0)),
            ];
            let (_, k) = check_kernel(&f, &o, [1, 1, 1], &args);
            let ops: Vec<String> = k.insts.iter().map(|(_, i)| i.display(t).to_string()).collect();
            let mut open = false;
            for op in &ops {
                if op.starts_with("s_and_saveexec") {
                    open = true;
                } else if op.starts_with("s_cbranch") {
                    open = false;
                } else if open {
                    assert!(
                        op.starts_with("s_"),
                        "{t} ({budget} VGPRs): `{op}` between saveexec and its branch\n{}",
                        k.asm()
                    );
                }
            }
        }
    }
}
