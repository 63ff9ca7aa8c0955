//! Property tests: the verifier and the analyses never panic, whatever a `Function` holds.
//!
//! Functions are built from random recipes: random opcodes with random immediates, operands that
//! are random (often dangling) value handles, random result types, region links to random (often
//! dangling or shared) regions, instructions placed zero, one or two times, then random
//! corruptions: wrong value definitions, region parents, dangling instructions in regions, a
//! dangling body, value lists from a foreign pool. Rendering the errors must not panic either.

use cranelift_entity::{EntityList, EntityRef, ListPool};
use proptest::prelude::*;
use qd_mir::analysis::{DomTree, Uniformity, UseCounts};
use qd_mir::verify::{verify_function, verify_module};
use qd_mir::{
    AddrSpace, AtomicOp, CmpCond, Dim, Function, GridPolicy, GroupOp, Imm, Inst, Launch, LaunchArg, Module, Opcode,
    PredOp, Program, ProgramParam, Region, ScalarType, Scope, SharedArr, Tile, Type, Value, ValueDef,
};

fn ty(sel: u8) -> Type {
    let s = ScalarType::ALL[usize::from(sel) % ScalarType::ALL.len()];
    match sel / 7 % 3 {
        0 | 1 => Type::Scalar(s),
        _ => Type::Ptr(if sel.is_multiple_of(2) { AddrSpace::Global } else { AddrSpace::Shared }, s),
    }
}

fn tile(x: u8) -> Tile {
    if x.is_multiple_of(3) {
        Tile::Full
    } else {
        Tile::Log2(x % 11)
    }
}

fn imm(sel: u8, x: u64) -> Imm {
    let b = x as u8;
    match sel % 12 {
        0 => Imm::None,
        1 => Imm::Const(x),
        2 => Imm::Cond(CmpCond::ALL[usize::from(b) % 6]),
        3 => Imm::Dim([Dim::X, Dim::Y, Dim::Z][usize::from(b) % 3]),
        4 => Imm::Shared(SharedArr::from_u32((x % 5) as u32)),
        5 => Imm::Atomic(
            AtomicOp::ALL[usize::from(b) % 7],
            [Scope::Subgroup, Scope::Block, Scope::Device][usize::from(b) % 3],
        ),
        6 => Imm::Scope([Scope::Subgroup, Scope::Block, Scope::Device][usize::from(b) % 3]),
        7 => Imm::Count(b),
        8 => Imm::Tile(tile(b)),
        9 => Imm::Group { op: GroupOp::ALL[usize::from(b) % 7], tile: tile(b / 7), inclusive: x & 256 != 0 },
        10 => Imm::Pred([PredOp::And, PredOp::Or, PredOp::Count][usize::from(b) % 3]),
        _ => Imm::None,
    }
}

/// One random instruction.
#[derive(Clone, Debug)]
struct InstRecipe {
    opcode: usize,
    /// Imm selector: < 128 picks the imm fitting the opcode's format (most functions get far).
    imm_sel: u8,
    imm_val: u64,
    args: Vec<u32>,
    results: Vec<u8>,
    regions: [Option<u32>; 2],
    /// Region to append to (index into the created regions; large values: not placed).
    place: u32,
    twice: bool,
}

#[derive(Clone, Debug)]
struct Recipe {
    params: Vec<(u8, bool)>,
    shared: Vec<(u8, u32)>,
    block: [u32; 3],
    grid: (u8, u16),
    extra_regions: u32,
    region_params: Vec<(u32, u8)>,
    insts: Vec<InstRecipe>,
    corruptions: Vec<(u8, u32, u32)>,
}

fn inst_recipe() -> impl Strategy<Value = InstRecipe> {
    (
        0..Opcode::ALL.len(),
        any::<u8>(),
        any::<u64>(),
        prop::collection::vec(any::<u32>(), 0..4),
        prop::collection::vec(any::<u8>(), 0..3),
        (prop::option::of(0u32..10), prop::option::of(0u32..10)),
        0u32..12,
        any::<bool>(),
    )
        .prop_map(|(opcode, imm_sel, imm_val, args, results, (r0, r1), place, twice)| InstRecipe {
            opcode,
            imm_sel,
            imm_val,
            args,
            results,
            regions: [r0, r1],
            place,
            twice: twice && place % 5 == 0,
        })
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        prop::collection::vec((any::<u8>(), any::<bool>()), 0..4),
        prop::collection::vec((any::<u8>(), 0u32..20000), 0..3),
        prop::array::uniform3(prop_oneof![Just(0u32), 1u32..64, Just(1024), Just(u32::MAX)]),
        (any::<u8>(), 0u16..6),
        0u32..6,
        prop::collection::vec((0u32..8, any::<u8>()), 0..4),
        prop::collection::vec(inst_recipe(), 0..24),
        prop::collection::vec((any::<u8>(), any::<u32>(), any::<u32>()), 0..3),
    )
        .prop_map(|(params, shared, block, grid, extra_regions, region_params, insts, corruptions)| Recipe {
            params,
            shared,
            block,
            grid,
            extra_regions,
            region_params,
            insts,
            corruptions,
        })
}

/// The immediate variant an opcode's format wants, with random contents.
fn fitting_imm(op: Opcode, x: u64) -> Imm {
    use qd_mir::Format as F;
    let sel = match op.info().format {
        F::Const => 1,
        F::Cmp => 2,
        F::Dim => 3,
        F::SharedAddr => 4,
        F::Atomic => 5,
        F::AtomicCas | F::Fence => 6,
        F::Count => 7,
        F::Tiled => 8,
        F::Group | F::Scan => 9,
        F::SyncPred => 10,
        F::Nullary | F::Unary | F::Binary | F::Ternary | F::If | F::Loop | F::Terminator | F::Effect => 0,
    };
    imm(sel, x)
}

fn build(r: &Recipe) -> Function {
    let mut f = Function::new("p");
    for (i, &(t, u)) in r.params.iter().enumerate() {
        f.add_param(format!("a{}", i % 3), ty(t), u);
    }
    for (i, &(t, len)) in r.shared.iter().enumerate() {
        f.add_shared(format!("s{}", i % 2), ScalarType::ALL[usize::from(t) % 7], len);
    }
    f.launch.block = r.block;
    f.launch.grid = match r.grid.0 % 3 {
        0 => GridPolicy::Fixed([1, 2, 3]),
        1 => GridPolicy::Cover(r.grid.1),
        _ => GridPolicy::Saturating,
    };
    let mut regions = vec![f.body];
    for _ in 0..r.extra_regions {
        regions.push(f.make_region());
    }
    for &(ri, t) in &r.region_params {
        if let Some(&reg) = regions.get(ri as usize) {
            f.add_region_param(reg, ty(t));
        }
    }
    for ir in &r.insts {
        let op = Opcode::ALL[ir.opcode];
        let nvals = f.values.len() as u32;
        // Mostly existing values; sometimes dangling handles.
        let mut args: Vec<Value> =
            ir.args.iter().map(|&a| Value::from_u32(if a % 8 == 0 { a } else { a % (nvals + 2) })).collect();
        let mut results: Vec<Type> = ir.results.iter().map(|&t| ty(t)).collect();
        // Usually respect the op's arity (with in-range operands), so type checks get exercised.
        if ir.imm_sel < 160 {
            let info = op.info();
            if let Some(n) = info.num_args {
                let pick = |k: usize| {
                    let a = ir.args.get(k).copied().unwrap_or(k as u32);
                    Value::from_u32(if nvals == 0 { a } else { a % nvals })
                };
                args = (0..usize::from(n)).map(pick).collect();
            }
            if let Some(n) = info.num_results {
                results = (0..usize::from(n)).map(|k| ty(ir.results.get(k).copied().unwrap_or(2) % 21)).collect();
            }
        }
        let im = if ir.imm_sel < 200 { fitting_imm(op, ir.imm_val) } else { imm(ir.imm_sel, ir.imm_val) };
        let inst = f.make_inst(op, im, &args, &results);
        for (slot, reg) in ir.regions.iter().enumerate() {
            if let Some(ri) = reg {
                let reg = Region::from_u32(*ri);
                f.insts[inst].regions[slot] = reg.into();
                if let Some(rd) = f.regions.get_mut(reg) {
                    rd.parent = inst.into();
                }
            }
        }
        if let Some(&reg) = regions.get(ir.place as usize) {
            f.append_inst(reg, inst);
            if ir.twice {
                f.append_inst(reg, inst);
            }
        }
    }
    // Often end the body properly so that later checks get exercised.
    if !r.insts.len().is_multiple_of(3) {
        let ret = f.make_inst(Opcode::Return, Imm::None, &[], &[]);
        let body = f.body;
        f.append_inst(body, ret);
    }
    let mut foreign = ListPool::new();
    let mut big = EntityList::new();
    for _ in 0..50 {
        big = EntityList::from_slice(&[Value::from_u32(0); 9], &mut foreign);
    }
    for &(kind, a, b) in &r.corruptions {
        let ninst = f.insts.len().max(1) as u32;
        let nval = f.values.len().max(1) as u32;
        let nreg = f.regions.len() as u32;
        match kind % 8 {
            0 => {
                let v = Value::from_u32(a % nval);
                if let Some(d) = f.values.get_mut(v) {
                    d.def = match b % 3 {
                        0 => ValueDef::Result(Inst::from_u32(b % (ninst + 2)), (b % 3) as u16),
                        1 => ValueDef::RegionParam(Region::from_u32(b % (nreg + 2)), (b % 2) as u16),
                        _ => ValueDef::Param((b % 4) as u16),
                    };
                }
            }
            1 => {
                if let Some(rd) = f.regions.get_mut(Region::from_u32(a % nreg.max(1))) {
                    rd.parent = Inst::from_u32(b % (ninst + 2)).into();
                }
            }
            2 => {
                if let Some(rd) = f.regions.get_mut(Region::from_u32(a % nreg.max(1))) {
                    rd.insts.push(Inst::from_u32(b % (ninst + 3)));
                }
            }
            3 => f.body = Region::from_u32(a % (nreg + 2)),
            4 => {
                if let Some(d) = f.insts.get_mut(Inst::from_u32(a % ninst)) {
                    d.args = big;
                }
            }
            5 => {
                let i = Inst::from_u32(a % ninst);
                if f.insts.get(i).is_some() {
                    f.results[i] = big;
                }
            }
            6 => {
                if let Some(rd) = f.regions.get_mut(Region::from_u32(a % nreg.max(1))) {
                    rd.params = big;
                }
            }
            _ => {
                if let Some(p) = f.params.get_mut(a as usize % 4) {
                    p.value = Value::from_u32(b % (nval + 3));
                }
            }
        }
    }
    f
}

fn exercise(f: &Function) {
    if let Err(e) = verify_function(f) {
        assert!(!e.0.is_empty());
        let text = e.render(f);
        assert!(text.ends_with(&format!("{} verifier error(s)\n", e.0.len())));
        let _ = e.to_string();
    }
    let dom = DomTree::new(f);
    let uses = UseCounts::new(f);
    let uni = Uniformity::new(f);
    let nv = f.values.len() as u32 + 2;
    for v in 0..nv {
        let v = Value::from_u32(v);
        let _ = uses.count(v);
        let _ = uni.is_uniform(v);
        for i in 0..(f.insts.len() as u32 + 1).min(8) {
            let _ = dom.dominates(v, Inst::from_u32(i));
        }
    }
    for r in 0..f.regions.len() + 2 {
        let r = Region::new(r);
        let _ = uni.is_uniform_region(r);
        let _ = uni.divergence_cause(r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn verifier_never_panics(r in recipe()) {
        let f = build(&r);
        exercise(&f);
    }

    #[test]
    fn module_verifier_never_panics(rs in prop::collection::vec(recipe(), 1..3), launches in prop::collection::vec((any::<u8>(), prop::collection::vec((any::<u8>(), any::<u64>()), 0..4)), 0..4), pt in prop::collection::vec(any::<u8>(), 0..3)) {
        let mut m = Module::default();
        for r in &rs {
            m.kernels.push(build(r));
        }
        let names = ["p", "q", "nope"];
        m.programs.push(Program {
            name: "prog".into(),
            status: None,
            checks: vec![],
            params: pt.iter().enumerate().map(|(i, &t)| ProgramParam { name: format!("b{i}"), ty: ty(t) }).collect(),
            launches: launches
                .iter()
                .map(|(k, args)| Launch {
                    kernel: names[usize::from(*k) % 3].into(),
                    args: args
                        .iter()
                        .map(|&(s, x)| if s % 2 == 0 {
                            LaunchArg::Param(u16::from(s) % 5)
                        } else {
                            LaunchArg::Const(ScalarType::ALL[usize::from(s) % 7], x)
                        })
                        .collect(),
                })
                .collect(),
        });
        if let Err(e) = verify_module(&m) {
            let _ = e.to_string();
            let _ = e.program_errors();
        }
    }
}
