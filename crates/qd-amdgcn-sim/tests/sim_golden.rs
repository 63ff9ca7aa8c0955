//! Every instruction of the codec's golden tables (llvm-mc-19 bytes for every op, form, DPP
//! control, modifier and operand kind on every target) decodes and runs in the simulator: the
//! only errors allowed are the ones its arbitrary operands can legitimately cause (addresses
//! outside memory, misalignment, branch targets outside the one-instruction program or back to
//! itself, `s_trap`) — and the one modifier the simulator declines to guess: an output modifier
//! (`mul:2/4`, `div:2`) on a float → integer conversion, which the ISA guides define only for
//! float results.

mod sim_util;

use qd_amdgcn_isa::decode;
use qd_amdgcn_sim::{GlobalMemory, SimErrorKind, WaveSim};
use sim_util::{targets, Rng};

fn golden_file(t: qd_amdgcn_isa::Target) -> String {
    let name = match (t.arch.name(), t.wave.lanes()) {
        (n, 32) => format!("{n}-wave32.txt"),
        (n, _) => format!("{n}.txt"),
    };
    let path = format!("{}/../qd-amdgcn-isa/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn omod(text: &str) -> bool {
    text.contains("mul:2") || text.contains("mul:4") || text.contains("div:2")
}

#[test]
fn every_golden_instruction_runs() {
    let mut rng = Rng::new(21);
    let mut problems = Vec::new();
    let mut ran = 0;
    let mut declined = 0;
    for t in targets() {
        for line in golden_file(t).lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let Some((hex, text)) = line.split_once('|') else { continue };
            let bytes: Vec<u8> = hex.split_whitespace().filter_map(|b| u8::from_str_radix(b, 16).ok()).collect();
            let (inst, _) = decode(&bytes, t).unwrap_or_else(|e| panic!("{t}: {line}: {e}"));
            let mut sim = WaveSim::new(t, 256, 106, 64 * 1024);
            sim.options.max_steps_per_wave = 16;
            sim.set_exec(rng.next());
            for lane in 0..sim.lanes() {
                for r in 0..16 {
                    sim.set_vgpr(r, lane, rng.below(64) * 4).unwrap();
                }
            }
            let mut mem = GlobalMemory::new();
            match sim.run(&[(0, inst)], &mut mem) {
                Ok(_) => ran += 1,
                Err(e)
                    if matches!(
                        e.kind,
                        SimErrorKind::OutOfBounds
                            | SimErrorKind::Misaligned
                            | SimErrorKind::BadBranch
                            | SimErrorKind::Trap
                            | SimErrorKind::StepLimit
                    ) =>
                {
                    ran += 1
                }
                Err(e) if e.kind == SimErrorKind::Unsupported && text.contains("v_cvt_") && omod(text) => declined += 1,
                Err(e) => problems.push(format!("{t}: {}: {e}", text.trim())),
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(ran > 20_000, "{ran}");
    assert!(declined < 100, "{declined}");
}
