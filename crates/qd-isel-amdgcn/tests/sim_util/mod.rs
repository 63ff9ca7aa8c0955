//! Shared helpers of the simulator tests: assembling text through the real codec (parse → encode →
//! decode, so the simulator runs exactly what the bytes say), the targets, and a small PRNG.
#![allow(dead_code)]

use qd_amdgcn_isa::{decode_all, encode_all, parse_asm, Inst};
use qd_amdgcn_sim::{GlobalMemory, SimError, WaveSim};
use qd_isel_amdgcn::{Arch, Target, WaveSize};

/// Every target the simulator runs: the three architectures in wave64 and gfx1100 in wave32.
pub fn targets() -> Vec<Target> {
    vec![
        Target::wave64(Arch::Gfx90a),
        Target::wave64(Arch::Gfx942),
        Target::wave64(Arch::Gfx1100),
        Target::new(Arch::Gfx1100, WaveSize::W32).expect("gfx1100 runs wave32"),
    ]
}

/// Assembles `text` for `t` and decodes the bytes back: `(byte offset, instruction)` pairs.
pub fn asm(text: &str, t: Target) -> Vec<(u32, Inst)> {
    let insts = parse_asm(text, t).unwrap_or_else(|e| panic!("{t}: {}", e.render(text)));
    let bytes = encode_all(&insts, t).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
    let decoded = decode_all(&bytes, t).unwrap_or_else(|e| panic!("{t}: {e}\n{text}"));
    assert_eq!(decoded.len(), insts.len(), "{t}: decode count\n{text}");
    decoded
}

/// Runs `text` once on `sim`.
pub fn run(sim: &mut WaveSim, t: Target, text: &str) -> Result<(), SimError> {
    let prog = asm(text, t);
    let mut mem = GlobalMemory::new();
    sim.run(&prog, &mut mem).map(|_| ())
}

/// xorshift64* — deterministic test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }

    pub fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// An EXEC mask for `lanes` lanes: full, empty, random dense, random sparse or a prefix.
    pub fn exec(&mut self, lanes: u32) -> u64 {
        let full = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
        let m = match self.below(6) {
            0 => full,
            1 => 0,
            2 => self.next() | self.next(),
            3 => self.next() & self.next() & self.next(),
            4 => (1u64 << self.below(lanes)) - 1,
            _ => self.next(),
        };
        m & full
    }
}
