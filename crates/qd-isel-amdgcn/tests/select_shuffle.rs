//! The shuffle selector's exhaustive semantic proof in the wave simulator: for every simulated
//! target, every shuffle pattern (xor m for every m; down, up and rotate by every delta in every
//! tile; broadcast of every lane in every tile; reverse per tile; quad permutations; an arbitrary
//! table) and EVERY candidate the selector lists for it (each forced by name through
//! `AmdgcnOptions::op_candidate`), the compiled kernel runs on all lanes with several data
//! patterns (NaN payloads, sNaN, ±0, ±inf, INT_MIN/INT_MAX bit patterns, all-equal lanes,
//! lane-distinct values; 32- and 64-bit) and must match the MIR interpreter bit for bit, with
//! the simulator's hazard and wait checkers on.
//!
//! Also: under partial EXEC (a divergent `if`, a block that is not a multiple of the wave) only
//! candidates exact for any EXEC are offered and every one matches; forcing a family or a name
//! that has no candidate is a compile error naming the op, the type, the target and the
//! alternatives.

mod lower_util;

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use lower_util::*;
use qd_amdgcn_sim::SimOptions;
use qd_isel_amdgcn::runner;
use qd_isel_amdgcn::{compile_kernel, AmdgcnOptions, CompiledKernel, ShuffleLowering, Target};
use qd_mir::interp::{ArgValue, Buffer, RunConfig};
use qd_mir::{Function, Opcode, ScalarType};

/// Data patterns, one per block of the grid.
const BLOCKS: u32 = 4;

/// One shuffle of the batch: the MIR text defining `%r{k}` from `%x` and `%l` (the lane id).
fn shuffle_text(k: usize, pat: &Pat, ty: ScalarType) -> String {
    let c = |name: &str, v: u32| format!("  %{name}{k} = const {v} : u32\n");
    let mut s = String::new();
    match *pat {
        Pat::Xor(m) => {
            s += &c("m", m);
            let _ = writeln!(s, "  %r{k} = shuffle.xor %x, %m{k} : {ty}");
        }
        Pat::Down(d, t) => {
            s += &c("tm", t - 1);
            s += &c("d", d);
            s += &c("t", t);
            let _ = write!(
                s,
                "  %a{k} = and %l, %tm{k} : u32\n  %s{k} = add %a{k}, %d{k} : u32\n  %ok{k} = cmp lt %s{k}, %t{k} : bool\n  %ld{k} = add %l, %d{k} : u32\n  %i{k} = select %ok{k}, %ld{k}, %l : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
        Pat::Up(d, t) => {
            s += &c("tm", t - 1);
            s += &c("d", d);
            let _ = write!(
                s,
                "  %a{k} = and %l, %tm{k} : u32\n  %ok{k} = cmp ge %a{k}, %d{k} : bool\n  %ld{k} = sub %l, %d{k} : u32\n  %i{k} = select %ok{k}, %ld{k}, %l : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
        Pat::DownWave(d) => {
            s += &c("d", d);
            let _ = writeln!(s, "  %r{k} = shuffle.down %x, %d{k} : {ty}");
        }
        Pat::UpWave(d) => {
            s += &c("d", d);
            let _ = writeln!(s, "  %r{k} = shuffle.up %x, %d{k} : {ty}");
        }
        Pat::Rotate(d, t) => {
            s += &c("tm", t - 1);
            s += &c("nb", !(t - 1));
            s += &c("d", d);
            let _ = write!(
                s,
                "  %b{k} = and %l, %nb{k} : u32\n  %s{k} = add %l, %d{k} : u32\n  %w{k} = and %s{k}, %tm{k} : u32\n  %i{k} = or %b{k}, %w{k} : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
        Pat::Bcast(j, t) => {
            s += &c("nb", !(t - 1));
            s += &c("j", j);
            let _ = write!(
                s,
                "  %b{k} = and %l, %nb{k} : u32\n  %i{k} = or %b{k}, %j{k} : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
        Pat::Quad(sel) => {
            let packed = sel.iter().enumerate().fold(0u32, |a, (i, &x)| a | u32::from(x) << (8 * i));
            s += &c("three", 3);
            s += &c("eight", 8);
            s += &c("pk", packed);
            s += &c("nb", !3);
            let _ = write!(
                s,
                "  %q{k} = and %l, %three{k} : u32\n  %sh{k} = mul %q{k}, %eight{k} : u32\n  %v{k} = shr %pk{k}, %sh{k} : u32\n  %v3{k} = and %v{k}, %three{k} : u32\n  %b{k} = and %l, %nb{k} : u32\n  %i{k} = or %b{k}, %v3{k} : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
        Pat::Arbitrary => {
            s += &c("seven", 7);
            s += &c("three", 3);
            let _ = write!(
                s,
                "  %mm{k} = mul %l, %seven{k} : u32\n  %i{k} = add %mm{k}, %three{k} : u32\n  %r{k} = shuffle.idx %x, %i{k} : {ty}\n"
            );
        }
    }
    s
}

/// A pattern as the test writes it.
#[derive(Clone, Copy, Debug)]
enum Pat {
    Xor(u32),
    Down(u32, u32),
    Up(u32, u32),
    DownWave(u32),
    UpWave(u32),
    Rotate(u32, u32),
    Bcast(u32, u32),
    Quad([u8; 4]),
    Arbitrary,
}

/// Every pattern of a `w`-lane wave (reverse per tile is xor tile − 1).
fn patterns(w: u32) -> Vec<Pat> {
    let mut v: Vec<Pat> = (1..w).map(Pat::Xor).collect();
    for t in (1..=6).map(|k| 1u32 << k).filter(|&t| t <= w) {
        for d in 1..t {
            if t == w {
                v.push(Pat::DownWave(d));
                v.push(Pat::UpWave(d));
            } else {
                v.push(Pat::Down(d, t));
                v.push(Pat::Up(d, t));
            }
            v.push(Pat::Rotate(d, t));
        }
        for j in 0..t {
            v.push(Pat::Bcast(j, t));
        }
    }
    for sel in [[2, 0, 3, 1], [0, 0, 3, 3], [3, 3, 0, 1], [1, 2, 3, 3]] {
        v.push(Pat::Quad(sel));
    }
    v.push(Pat::Arbitrary);
    v
}

/// A kernel running every shuffle of `pats` on `%x = a[global id]`, shuffle k storing to
/// `o[k * blocks * block + global id]`. `guard`: the shuffles run under `if tid % 3 != 0`.
fn batch_kernel(pats: &[Pat], ty: ScalarType, block: u32, guard: bool) -> String {
    let mut s = format!(
        "kernel @k(%a: ptr<global, {ty}>, %o: ptr<global, {ty}>) block({block}, 1, 1) grid({BLOCKS}, 1, 1) {{\n  %tid = thread_id x : u32\n  %bid = block_id x : u32\n  %bs = const {block} : u32\n  %base = mul %bid, %bs : u32\n  %g = add %base, %tid : u32\n  %pa = ptr.offset %a, %g : ptr<global, {ty}>\n  %x = load %pa : {ty}\n  %l = lane_id : u32\n"
    );
    if guard {
        s += "  %c3 = const 3 : u32\n  %rm = rem %tid, %c3 : u32\n  %z = const 0 : u32\n  %gd = cmp ne %rm, %z : bool\n  if %gd {\n";
    }
    for (k, p) in pats.iter().enumerate() {
        s += &shuffle_text(k, p, ty);
        let _ = write!(
            s,
            "  %off{k} = const {} : u32\n  %q{k}o = add %g, %off{k} : u32\n  %p{k} = ptr.offset %o, %q{k}o : ptr<global, {ty}>\n  store %p{k}, %r{k}\n",
            k as u32 * BLOCKS * block
        );
    }
    if guard {
        s += "  yield\n  }\n";
    }
    s += "  return\n}\n";
    s
}

/// The data of block `b` (`n` lanes): special values, lane-distinct values, all-equal lanes, random bits.
fn data(ty: ScalarType, b: u32, n: usize) -> Vec<u64> {
    let f32s: [u64; 12] = [
        0x7fc0_0000,
        0x7fc0_1234,
        0xffc0_0001,
        0x7f80_0001, // sNaN
        0xff80_0005, // sNaN, negative
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fff_ffff,
        0x3f80_0000,
        0x0000_0001,
    ];
    let f64s: [u64; 12] = [
        0x7ff8_0000_0000_0000,
        0x7ff8_0000_0000_1234,
        0xfff8_0000_0000_0001,
        0x7ff0_0000_0000_0001,
        0xfff0_0000_0000_0005,
        0,
        1 << 63,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        1,
    ];
    let wide = ty.bits() == 64;
    let mut x = 0x2545_F491_4F6C_DD1Du64 ^ u64::from(b);
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = match b {
                0 => {
                    if wide {
                        f64s[i % 12]
                    } else {
                        f32s[i % 12]
                    }
                }
                1 => 0x4000_0000_0000_0000 | (i as u64) << 33 | 0x1000 | i as u64,
                2 => 0x7ff8_0000_dead_beef,
                _ => x,
            };
            if wide {
                v
            } else {
                v & 0xffff_ffff
            }
        })
        .collect()
}

/// The shuffle instructions of a kernel, in program order.
fn shuffles(f: &Function) -> Vec<qd_mir::Inst> {
    f.insts
        .keys()
        .filter(|&i| {
            matches!(
                f.insts[i].opcode,
                Opcode::ShuffleIdx | Opcode::ShuffleUp | Opcode::ShuffleDown | Opcode::ShuffleXor | Opcode::Broadcast
            )
        })
        .collect()
}

/// Runs `k` on the simulator and compares every output with `want`.
fn run_and_compare(k: &CompiledKernel, args: &[ArgValue], want: &[ArgValue], what: &str) {
    let mut got = args.to_vec();
    runner::run(k, [BLOCKS, 1, 1], &mut got, None, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{what}: simulator: {e}"));
    let (ArgValue::Buffer(g), ArgValue::Buffer(w)) = (&got[1], &want[1]) else { panic!("buffers") };
    let (g, w) = (g.to_bits(), w.to_bits());
    if let Some(i) = (0..g.len()).find(|&i| g[i] != w[i]) {
        panic!("{what}: output {i} got {:#x} want {:#x}\n{}", g[i], w[i], k.asm());
    }
}

/// Compiles the batch once per candidate index (shuffle k forced to its r-th candidate in round
/// r), runs each and compares with the interpreter. Returns the (pattern, candidate) pairs proved.
fn prove_batch(
    src: &str,
    t: Target,
    ty: ScalarType,
    block: u32,
    check: &dyn Fn(&qd_isel_amdgcn::Choice),
) -> BTreeSet<(String, String)> {
    let f = kernel(src);
    let n = block as usize * BLOCKS as usize;
    let xs: Vec<u64> = (0..BLOCKS).flat_map(|b| data(ty, b, block as usize)).collect();
    let outs = shuffles(&f).len() * n;
    let args = vec![
        ArgValue::Buffer(Buffer::from_bits(ty, xs)),
        ArgValue::Buffer(Buffer::from_bits(ty, std::iter::repeat_n(0, outs))),
    ];
    let mut want = args.clone();
    let cfg = RunConfig { subgroup_size: t.wave.lanes(), grid: Some([BLOCKS, 1, 1]), ..RunConfig::default() };
    qd_mir::interp::run_kernel(&f, &cfg, &mut want).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let base = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
    let cands: HashMap<qd_mir::Inst, (String, Vec<String>)> = base
        .choices
        .iter()
        .map(|c| (c.inst, (c.pattern.clone(), c.candidates.iter().map(|x| x.name.clone()).collect())))
        .collect();
    for c in &base.choices {
        check(c);
    }
    let rounds = cands.values().map(|(_, v)| v.len()).max().unwrap_or(0);
    let mut proved = BTreeSet::new();
    for r in 0..rounds {
        let mut o = AmdgcnOptions::new(t);
        o.check_regalloc = true;
        for (&i, (_, names)) in &cands {
            if let Some(name) = names.get(r) {
                o.op_candidate.push((i, name.clone()));
            }
        }
        let k = compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{t} round {r}: {e}"));
        for c in &k.choices {
            let (pat, names) = &cands[&c.inst];
            if let Some(name) = names.get(r) {
                assert_eq!(&c.candidates[c.chosen].name, name, "{t}: {pat}: forcing a candidate by name");
                proved.insert((pat.clone(), name.clone()));
            }
        }
        run_and_compare(&k, &args, &want, &format!("{t} {ty} round {r}"));
    }
    proved
}

#[test]
fn every_candidate_of_every_pattern_matches_the_interpreter() {
    let mut total = 0usize;
    let mut report = String::new();
    for t in targets() {
        let w = t.wave.lanes();
        let pats = patterns(w);
        let mut proved = BTreeSet::new();
        for ty in [ScalarType::F32, ScalarType::F64] {
            let src = batch_kernel(&pats, ty, w, false);
            let p = prove_batch(&src, t, ty, w, &|c| {
                // Every pattern within tiles of 16 has a register-only sequence.
                let chosen = &c.candidates[c.chosen];
                assert!(
                    !chosen.name.starts_with("bpermute") || !c.pattern.contains("tiles of 16"),
                    "{t}: {}",
                    c.pattern
                );
                // On gfx1100 every constant table has a cheaper register-only sequence.
                let gfx11 = t.arch == qd_isel_amdgcn::Arch::Gfx1100;
                assert!(!gfx11 || !chosen.name.starts_with("bpermute"), "{t}: {}", c.pattern);
            });
            proved.extend(p);
        }
        // The general shapes of select/shuffle/rows.rs are among the ones run: readlane fix-ups
        // everywhere, wave-shift chains on GFX9, permlane rows merged by selects on gfx1100.
        let count = |f: &dyn Fn(&str) -> bool| proved.iter().filter(|(_, n)| f(n)).count();
        let fixups = count(&|n| n.contains("readlane fix-up"));
        let chains = count(&|n| n.starts_with("dpp wave_shl:1 bound_ctrl + dpp wave_shl:1"));
        let rows = count(&|n| n.contains("permlane") && n.contains(" + cndmask"));
        let rows64 = count(&|n| n.starts_with("permlane64 + permlane") && n.contains(" + cndmask"));
        let merged = count(&|n| n.starts_with("permlane64 + cndmask + permlane"));
        let _ = writeln!(
            report,
            "{t}: {fixups} fix-up, {chains} wave-chain, {rows} permlane-rows ({merged} merged) candidates"
        );
        assert!(fixups >= 10, "{t}: {fixups}");
        if t.arch == qd_isel_amdgcn::Arch::Gfx1100 {
            assert!(rows >= 50, "{t}: {rows}");
            assert!(w == 32 || rows64 >= 50 && merged >= 20, "{t}: {rows64} {merged}");
        } else {
            assert!(chains >= 5, "{t}: {chains}");
        }
        let _ = writeln!(report, "{t}: {} (pattern, candidate) cases", proved.len());
        total += proved.len();
    }
    eprintln!("{report}total: {total} (pattern, target, candidate) cases proved");
    assert!(total > 5000, "{report}");
}

/// One shuffle's choice: its pattern, the chosen candidate and its cycles, the bpermute
/// baseline's cycles, and the cheapest register-only candidate (name and cycles) if any.
struct Chosen {
    pattern: String,
    name: String,
    cycles: u32,
    base: u32,
    reg: Option<(String, u32)>,
}

/// The choice of every shuffle of `patterns(w)` on `t` (full EXEC, 32-bit).
fn choices(t: Target) -> Vec<Chosen> {
    let w = t.wave.lanes();
    let f = kernel(&batch_kernel(&patterns(w), ScalarType::F32, w, false));
    let k = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
    k.choices
        .iter()
        .map(|c| {
            let base = c.candidates.iter().find(|x| x.name.starts_with("bpermute")).expect("a baseline");
            let chosen = &c.candidates[c.chosen];
            let reg = c
                .candidates
                .iter()
                .filter(|x| x.family <= ShuffleLowering::Permlane)
                .min_by_key(|x| x.cost.cycles)
                .map(|x| (x.name.clone(), x.cost.cycles));
            Chosen {
                pattern: c.pattern.clone(),
                name: chosen.name.clone(),
                cycles: chosen.cost.cycles,
                base: base.cost.cycles,
                reg,
            }
        })
        .collect()
}

#[test]
fn gfx1100_never_picks_ds_bpermute_for_a_constant_table() {
    // Every pattern family × every tile × every delta, lane and mask, on both wave sizes: the
    // row decomposition (permlane16/x16/64 + selects) or a readlane fix-up is always cheaper
    // than `ds_bpermute` (wave32, 95–100 cycles) and the permlane64 halves (wave64, 218–225).
    for t in [targets()[2], targets()[3]] {
        let all = choices(t);
        assert!(all.len() > 100, "{t}: {}", all.len());
        let mut worst = (0, String::new());
        for Chosen { pattern: pat, name, cycles, base, .. } in &all {
            assert!(!name.starts_with("bpermute"), "{t}: {pat} chose {name}");
            assert!(cycles < base, "{t}: {pat}: {name} {cycles} vs {base}");
            if *cycles > worst.0 {
                worst = (*cycles, format!("{pat}: {name}"));
            }
        }
        eprintln!("{t}: costliest choice {} cycles ({})", worst.0, worst.1);
    }
    // The headline of the issue: down 1 in tiles of 64 on gfx1100 wave64.
    let all = choices(targets()[2]);
    let Chosen { name, cycles, base, .. } = all.iter().find(|c| c.pattern == "down 1 in tiles of 64").unwrap();
    assert!(*cycles <= 50 && *base >= 200, "{name}: {cycles} vs {base}");
}

/// The patterns of `patterns(64)` for which GFX9 still uses `ds_bpermute`, in order: `gfx90a`
/// adds up 7 and rotate 8 and 56 (its bpermute is 8 cycles cheaper than gfx942's).
fn gfx9_gap(gfx90a: bool) -> Vec<String> {
    let mut v: Vec<String> = (32..=62).map(|m| format!("xor {m}")).collect();
    v.push("reverse in tiles of 64".into());
    for d in 7..=56u32 {
        let shift = (8..=55).contains(&d);
        if shift {
            v.push(format!("down {d} in tiles of 64"));
        }
        if shift || gfx90a && d == 7 {
            v.push(format!("up {d} in tiles of 64"));
        }
        if d == 32 {
            v.push("xor 32".into());
        } else if (9..=55).contains(&d) || gfx90a && (d == 8 || d == 56) {
            v.push(format!("rotate {d} in tiles of 64"));
        }
    }
    v.push("arbitrary constant".into());
    v
}

/// The exact list of patterns (every family, tile, delta, lane and mask) for which GFX9 still
/// chooses `ds_bpermute`, and why.
#[test]
fn gfx9_remaining_ds_bpermute_gap_list() {
    // GFX9 has no permlane. Across 16-lane rows it has, in registers: the wave-wide DPP
    // shifts/rotates by one lane, `row_bcast:15/31` (one lane of a row onwards), `ds_swizzle`
    // (within 32 lanes; an LDS-unit op itself, 40 cycles) and readlane/writelane pairs (8
    // cycles each pair on gfx90a, 8 + wait states on gfx942; at most 8 pairs are tried). One
    // `ds_bpermute` costs 90–98 cycles on gfx90a and 98–106 on gfx942 (address setup + LDS
    // round trip). So what remains is everything that moves many lanes across the 32-lane halves
    // or across rows by more than a few lanes:
    // * xor 32..62 and reverse in tiles of 64 (every lane moves to the other half; 64 readlane
    //   pairs would be ~512 cycles): no register-only candidate at all;
    // * down/up/rotate by 8..55 in tiles of 64: a chain of d `wave_shl/shr/rol/ror:1` steps costs
    //   12 cycles a step (DPP + its 2 wait states), so 8 steps + the select of the tail lanes are
    //   108 cycles vs 106 (down) / 102 (up) for the bpermute on gfx942, and 9 steps 120; a row
    //   shift + fix-ups needs 4 × 8 lanes fixed. On gfx90a the bpermute is 8 cycles cheaper, so
    //   up 7 (chain 96 vs 94) and rotate 8/56 (96 vs 90) stay too. Shorter shifts (and down/up
    //   by 56..63, 1..8 lanes moved, readlane fix-ups) are in registers.
    // * the arbitrary table (7·lane + 3): every lane moves, across rows.
    // A pattern leaving this list means a new register sequence won; one joining it is a
    // regression.
    for (t, gfx90a) in [(targets()[0], false), (targets()[1], true)] {
        let all = choices(t);
        let gap: Vec<&Chosen> = all.iter().filter(|c| c.name.starts_with("bpermute")).collect();
        for c in &gap {
            // Where a register-only candidate exists, the cost model rejected it on its cycles.
            if let Some((name, cycles)) = &c.reg {
                assert!(*cycles >= c.cycles, "{t}: {}: {name} {cycles} vs bpermute {}", c.pattern, c.cycles);
            }
        }
        for c in &gap {
            eprintln!("{t}: {} on bpermute, {} cycles (register-only: {:?})", c.pattern, c.cycles, c.reg);
        }
        let gap: Vec<&str> = gap.iter().map(|c| c.pattern.as_str()).collect();
        assert_eq!(gap, gfx9_gap(gfx90a), "{t}");
        assert_eq!(gap.len(), if gfx90a { 179 } else { 176 }, "{t}");
    }
    // The numbers quoted above.
    let cost = |t: Target, pat: &str| choices(t).into_iter().find(|c| c.pattern == pat).unwrap();
    let d8 = cost(targets()[0], "down 8 in tiles of 64");
    assert_eq!((d8.cycles, d8.reg.map(|r| r.1)), (106, Some(108)));
    let r8 = cost(targets()[1], "rotate 8 in tiles of 64");
    assert_eq!((r8.cycles, r8.reg.map(|r| r.1)), (90, Some(96)));
}

/// True for the candidates exact under any EXEC: one DPP16 step (no bound_ctrl), one
/// permlane16/x16 step, and the baselines.
fn partial_exact_name(n: &str) -> bool {
    let single = !n.contains(" + ");
    n.starts_with("bpermute")
        || n == "readlane"
        || n == "own value"
        || single && n.starts_with("dpp ") && !n.contains("bound_ctrl")
        || single && (n.starts_with("permlane16") || n.starts_with("permlanex16"))
}

#[test]
fn under_partial_exec_only_exact_candidates_are_offered_and_all_match() {
    for t in targets() {
        let w = t.wave.lanes();
        let pats: Vec<Pat> = vec![
            Pat::Xor(1),
            Pat::Xor(5),
            Pat::Xor(16),
            Pat::Xor(w - 1),
            Pat::Down(1, 16),
            Pat::Up(3, 8),
            Pat::DownWave(1),
            Pat::Bcast(5, 16),
            Pat::Bcast(3, 8),
            Pat::Bcast(2, w),
            Pat::Rotate(3, 32),
            Pat::Quad([2, 0, 3, 1]),
            Pat::Arbitrary,
        ];
        for ty in [ScalarType::F32, ScalarType::F64] {
            for (block, guard) in [(40, false), (w, true), (40, true)] {
                let src = batch_kernel(&pats, ty, block, guard);
                prove_batch(&src, t, ty, block, &|c| {
                    for cand in &c.candidates {
                        assert!(partial_exact_name(&cand.name), "{t} block {block}: {}: {}", c.pattern, cand.name);
                    }
                });
            }
        }
    }
}

fn one_shuffle(op: &str, ty: ScalarType) -> Function {
    kernel(&format!(
        "kernel @k(%a: ptr<global, {ty}>, %o: ptr<global, {ty}>) block(64, 1, 1) grid(1, 1, 1) {{\n  %tid = thread_id x : u32\n  %pa = ptr.offset %a, %tid : ptr<global, {ty}>\n  %x = load %pa : {ty}\n  {op}\n  %po = ptr.offset %o, %tid : ptr<global, {ty}>\n  store %po, %r\n  return\n}}\n"
    ))
}

#[test]
fn forcing_a_family_or_name_without_a_candidate_is_an_error() {
    let gfx942 = targets()[0];
    let f = one_shuffle("%m = const 32 : u32\n  %r = shuffle.xor %x, %m : f32", ScalarType::F32);
    let inst = shuffles(&f)[0];
    // gfx942 has no permlane and no register-only xor 32: only the bpermute baseline.
    for fam in [ShuffleLowering::Dpp, ShuffleLowering::Permlane, ShuffleLowering::Swizzle] {
        let mut o = AmdgcnOptions::new(gfx942);
        o.shuffle_lowering = fam;
        let e = compile_kernel(&f, &o).unwrap_err().to_string();
        for want in ["shuffle.xor", "f32", "gfx942", &format!("`{fam}`"), "available: bpermute"] {
            assert!(e.contains(want), "missing `{want}` in: {e}");
        }
        let mut o = AmdgcnOptions::new(gfx942);
        o.op_lowering.push((inst, fam));
        assert!(compile_kernel(&f, &o).is_err());
    }
    let mut o = AmdgcnOptions::new(gfx942);
    o.op_candidate.push((inst, "dpp row_xmask:32".into()));
    let e = compile_kernel(&f, &o).unwrap_err().to_string();
    assert!(e.contains("no candidate named `dpp row_xmask:32`") && e.contains("legal: bpermute"), "{e}");

    // xor 1 on gfx1100: DPP, permlane and swizzle exist, and forcing each picks that family.
    let g11 = targets()[2];
    let f = one_shuffle("%m = const 1 : u32\n  %r = shuffle.xor %x, %m : u64", ScalarType::U64);
    for fam in [ShuffleLowering::Dpp, ShuffleLowering::Permlane, ShuffleLowering::Swizzle, ShuffleLowering::Bpermute] {
        let mut o = AmdgcnOptions::new(g11);
        o.shuffle_lowering = fam;
        let k = compile_kernel(&f, &o).unwrap_or_else(|e| panic!("{fam}: {e}"));
        let c = &k.choices[0];
        assert_eq!(c.candidates[c.chosen].family, fam);
        assert_eq!(c.forced, Some(fam));
        let xs: Vec<u64> = data(ScalarType::U64, 3, 64);
        let args = vec![
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U64, xs)),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U64, vec![0; 64])),
        ];
        check_with(&f, &o, [1, 1, 1], &args);
    }
}

#[test]
fn headline_costs() {
    let [g942, _, g11, _] = [targets()[0], targets()[1], targets()[2], targets()[3]];
    let chosen = |t: Target, op: &str| {
        let f = one_shuffle(op, ScalarType::F32);
        let k = compile_kernel(&f, &AmdgcnOptions::new(t)).unwrap();
        let c = k.choices[0].clone();
        let base = c.candidates.iter().find(|x| x.name.starts_with("bpermute")).unwrap().cost;
        (c.candidates[c.chosen].clone(), base, k)
    };
    let (c, base, k) = chosen(g942, "%m = const 1 : u32\n  %r = shuffle.xor %x, %m : f32");
    assert_eq!(c.name, "dpp quad_perm:[1,0,3,2]");
    assert_eq!(c.cost.cycles, 12, "{:?}", c.listing);
    assert!(base.cycles >= 54, "{base:?}");
    assert!(!k.asm().contains("ds_bpermute"));
    let down16 = "%l = lane_id : u32\n  %f = const 15 : u32\n  %lt = and %l, %f : u32\n  %one = const 1 : u32\n  %s = add %lt, %one : u32\n  %sx = const 16 : u32\n  %ok = cmp lt %s, %sx : bool\n  %ld = add %l, %one : u32\n  %i = select %ok, %ld, %l : u32\n  %r = shuffle.idx %x, %i : f32";
    let (c, _, _) = chosen(g11, down16);
    assert_eq!(c.name, "dpp row_shl:1");
    assert_eq!(c.listing.len(), 1, "{:?}", c.listing);
    let bcast16 = "%l = lane_id : u32\n  %nb = const 4294967280 : u32\n  %b = and %l, %nb : u32\n  %j = const 5 : u32\n  %i = or %b, %j : u32\n  %r = shuffle.idx %x, %i : f32";
    assert_eq!(chosen(g942, bcast16).0.name, "dpp row_newbcast:5");
    assert_eq!(chosen(g11, bcast16).0.name, "dpp row_share:5");
}

#[test]
fn broadcast_candidates_match_under_full_and_partial_exec() {
    for t in targets() {
        let w = t.wave.lanes();
        for ty in [ScalarType::F32, ScalarType::F64] {
            for (block, guard) in [(w, false), (40, false), (w, true), (40, true)] {
                let mut s = format!(
                    "kernel @k(%a: ptr<global, {ty}>, %o: ptr<global, {ty}>) block({block}, 1, 1) grid({BLOCKS}, 1, 1) {{\n  %tid = thread_id x : u32\n  %bid = block_id x : u32\n  %bs = const {block} : u32\n  %base = mul %bid, %bs : u32\n  %g = add %base, %tid : u32\n  %pa = ptr.offset %a, %g : ptr<global, {ty}>\n  %x = load %pa : {ty}\n  %l = lane_id : u32\n"
                );
                if guard {
                    s += "  %c3 = const 3 : u32\n  %rm = rem %tid, %c3 : u32\n  %z = const 0 : u32\n  %gd = cmp ne %rm, %z : bool\n  if %gd {\n";
                }
                // A constant lane (inactive under the guard), a uniform index that differs per
                // block, and an index past the wave (wrapped). Every source lane exists in the
                // partial wave of a 40-lane block (a lane that never ran holds no defined value).
                let idx = ["  %i0 = const 3 : u32\n", "  %i1 = add %bid, %c1 : u32\n", "  %i2 = const 69 : u32\n"];
                s += "  %c1 = const 1 : u32\n";
                for (k, i) in idx.iter().enumerate() {
                    s += i;
                    let _ = write!(
                        s,
                        "  %r{k} = broadcast %x, %i{k} : {ty}\n  %off{k} = const {} : u32\n  %q{k} = add %g, %off{k} : u32\n  %p{k} = ptr.offset %o, %q{k} : ptr<global, {ty}>\n  store %p{k}, %r{k}\n",
                        k as u32 * BLOCKS * block
                    );
                }
                if guard {
                    s += "  yield\n  }\n";
                }
                s += "  return\n}\n";
                let proved = prove_batch(&s, t, ty, block, &|c| {
                    assert_eq!(c.op, "broadcast");
                    assert!(c.candidates.iter().any(|x| x.name.starts_with("bpermute")), "{t}: {:?}", c.candidates);
                });
                assert!(proved.len() >= 2, "{t}: {proved:?}");
            }
        }
    }
}
