//! The builder and the verifier agree on the MIR type rules, for every op × operand types ×
//! immediate (group operator, atomic operation, `cmp` condition, cast target, tile, lane count,
//! predicate combiner, shared element type).
//!
//! For each combination the op is built twice: with the [`KernelBuilder`] method of the op, on
//! kernel parameters of the operand types, and by hand with the raw `qd_mir` API, which the
//! verifier judges. Then:
//! - if the builder accepts (the op call and `finish`), the verifier accepts the hand-built
//!   instruction with the builder's result type;
//! - if the builder rejects, it does so at the op call — `err.location` is the line of the call
//!   in this file, never `finish` — and the verifier rejects the instruction whatever its result
//!   type.
//!
//! `loop` and the terminators are left out: their operands are carried values whose types the
//! region rules (not the op rules) decide.

use qd_frontend::{BuildError, FunctionBuilderContext, KernelBuilder, Val};
use qd_mir::verify::verify_function;
use qd_mir::{
    AddrSpace, AtomicOp, CmpCond, Dim, Format, Function, GroupOp, Imm, Opcode, PredOp, ScalarType, Scope, Tile, Type,
};

/// The operand types tried: every scalar and a global pointer to every scalar.
fn all_types() -> Vec<Type> {
    let mut v: Vec<Type> = ScalarType::ALL.iter().map(|&s| Type::Scalar(s)).collect();
    v.extend(ScalarType::ALL.iter().map(|&s| Type::Ptr(AddrSpace::Global, s)));
    v
}

/// One combination.
#[derive(Clone, Debug)]
struct Case {
    op: Opcode,
    imm: Imm,
    args: Vec<Type>,
    /// The result type the instruction names (`const`, `cast`, `bitcast`).
    to: Option<ScalarType>,
    /// The kernel's fixed subgroup width.
    subgroup: Option<u32>,
    /// The element type of the kernel's shared array (`shared.addr`).
    shared: Option<ScalarType>,
}

const TILES: [Tile; 5] = [Tile::Full, Tile::Log2(0), Tile::Log2(5), Tile::Log2(6), Tile::Log2(7)];

/// The immediates (with cast targets, subgroup widths and shared arrays) tried for `op`.
/// An immediate with the case's cast target, subgroup width and shared element type.
type Variant = (Imm, Option<ScalarType>, Option<u32>, Option<ScalarType>);

fn variants(op: Opcode) -> Vec<Variant> {
    let plain = |imm| vec![(imm, None, None, None)];
    let tiled = |imms: Vec<Imm>| {
        let mut v = Vec::new();
        for imm in imms {
            v.push((imm, None, None, None));
            v.push((imm, None, Some(32), None));
        }
        v
    };
    match op.info().format {
        Format::Const => ScalarType::ALL.iter().map(|&s| (Imm::Const(1), Some(s), None, None)).collect(),
        Format::Nullary | Format::Binary | Format::Ternary | Format::Effect | Format::If => plain(Imm::None),
        Format::Unary => match op {
            Opcode::Cast | Opcode::Bitcast => {
                ScalarType::ALL.iter().map(|&s| (Imm::None, Some(s), None, None)).collect()
            }
            _ => plain(Imm::None),
        },
        Format::Dim => plain(Imm::Dim(Dim::X)),
        Format::Cmp => CmpCond::ALL.iter().map(|&c| (Imm::Cond(c), None, None, None)).collect(),
        Format::SharedAddr => ScalarType::ALL.iter().map(|&s| (Imm::None, None, None, Some(s))).collect(),
        Format::Atomic => AtomicOp::ALL.iter().map(|&a| (Imm::Atomic(a, Scope::Device), None, None, None)).collect(),
        Format::AtomicCas => plain(Imm::Scope(Scope::Device)),
        Format::Fence => plain(Imm::Scope(Scope::Block)),
        Format::Count => [0u8, 1, 16, 32, 33, 255].iter().map(|&n| (Imm::Count(n), None, None, None)).collect(),
        Format::Tiled => tiled(TILES.iter().map(|&t| Imm::Tile(t)).collect()),
        Format::Group => {
            // The builder's reductions are inclusive; it cannot express an exclusive one.
            let tiles: &[Tile] =
                if op == Opcode::SegmentedReduce { &[Tile::Full, Tile::Log2(6), Tile::Log2(7)] } else { &TILES };
            let mut imms = Vec::new();
            for &g in &GroupOp::ALL {
                for &tile in tiles {
                    imms.push(Imm::Group { op: g, tile, inclusive: true });
                }
            }
            tiled(imms)
        }
        Format::Scan => {
            let mut imms = Vec::new();
            for &g in &GroupOp::ALL {
                for tile in TILES {
                    for inclusive in [true, false] {
                        imms.push(Imm::Group { op: g, tile, inclusive });
                    }
                }
            }
            tiled(imms)
        }
        Format::SyncPred => {
            [PredOp::And, PredOp::Or, PredOp::Count].iter().map(|&p| (Imm::Pred(p), None, None, None)).collect()
        }
        Format::Loop | Format::Terminator => Vec::new(),
    }
}

/// Every combination of every op that is checked.
fn cases() -> Vec<Case> {
    let types = all_types();
    let mut out = Vec::new();
    for &op in Opcode::ALL {
        let n = usize::from(op.info().num_args.unwrap_or(0));
        for (imm, to, subgroup, shared) in variants(op) {
            let mut idx = vec![0usize; n];
            loop {
                let args = idx.iter().map(|&i| types[i]).collect();
                out.push(Case { op, imm, args, to, subgroup, shared });
                // next operand-type tuple (odometer)
                let mut k = 0;
                while k < n {
                    idx[k] += 1;
                    if idx[k] < types.len() {
                        break;
                    }
                    idx[k] = 0;
                    k += 1;
                }
                if k == n {
                    break;
                }
            }
        }
    }
    out
}

/// The verdict of the verifier on `case` built by hand with result type `result`.
fn verifier_accepts(case: &Case, result: Option<Type>) -> bool {
    let mut f = Function::new("k");
    f.launch.subgroup_size = case.subgroup;
    let mut imm = case.imm;
    if let Some(elem) = case.shared {
        imm = Imm::Shared(f.add_shared("s", elem, 4));
    }
    let args: Vec<_> =
        case.args.iter().enumerate().map(|(i, &t)| f.add_param(format!("a{i}"), t, t.scalar().is_some())).collect();
    let results: Vec<Type> = result.into_iter().collect();
    let inst = f.make_inst(case.op, imm, &args, &results);
    let body = f.body;
    f.append_inst(body, inst);
    if case.op == Opcode::If {
        let then = f.make_region();
        let y = f.make_inst(Opcode::Yield, Imm::None, &[], &[]);
        f.append_inst(then, y);
        f.set_inst_regions(inst, Some(then), None);
    }
    let ret = f.make_inst(Opcode::Return, Imm::None, &[], &[]);
    f.append_inst(body, ret);
    verify_function(&f).is_ok()
}

/// Calls the builder method of `op`; returns its result (`None` for ops without one) and the line
/// of the call.
fn call(
    b: &mut KernelBuilder<'_>,
    case: &Case,
    a: &[Val],
    shared: Option<qd_frontend::SharedBuf>,
) -> (Result<Option<Val>, BuildError>, u32) {
    let v = |r: Result<Val, BuildError>| r.map(Some);
    let e = |r: Result<(), BuildError>| r.map(|()| None);
    let to = case.to.unwrap_or(ScalarType::U32);
    let imm = case.imm;
    let group = || match imm {
        Imm::Group { op, tile, inclusive } => (op, tile, inclusive),
        other => panic!("{}: not a group immediate: {other:?}", case.op),
    };
    let tile = || match imm {
        Imm::Tile(t) => t,
        other => panic!("{}: not a tile: {other:?}", case.op),
    };
    match case.op {
        Opcode::Const => (v(b.const_scalar(to, 1)), line!()),
        Opcode::Add => (v(b.add(a[0], a[1])), line!()),
        Opcode::Sub => (v(b.sub(a[0], a[1])), line!()),
        Opcode::Mul => (v(b.mul(a[0], a[1])), line!()),
        Opcode::Div => (v(b.div(a[0], a[1])), line!()),
        Opcode::Rem => (v(b.rem(a[0], a[1])), line!()),
        Opcode::Min => (v(b.min(a[0], a[1])), line!()),
        Opcode::Max => (v(b.max(a[0], a[1])), line!()),
        Opcode::And => (v(b.and(a[0], a[1])), line!()),
        Opcode::Or => (v(b.or(a[0], a[1])), line!()),
        Opcode::Xor => (v(b.xor(a[0], a[1])), line!()),
        Opcode::Shl => (v(b.shl(a[0], a[1])), line!()),
        Opcode::Shr => (v(b.shr(a[0], a[1])), line!()),
        Opcode::Neg => (v(b.neg(a[0])), line!()),
        Opcode::Abs => (v(b.abs(a[0])), line!()),
        Opcode::Not => (v(b.not(a[0])), line!()),
        Opcode::Sqrt => (v(b.sqrt(a[0])), line!()),
        Opcode::Clz => (v(b.clz(a[0])), line!()),
        Opcode::Popcount => (v(b.popcount(a[0])), line!()),
        Opcode::Bitrev => (v(b.bitrev(a[0])), line!()),
        Opcode::Fma => (v(b.fma(a[0], a[1], a[2])), line!()),
        Opcode::Select => (v(b.select(a[0], a[1], a[2])), line!()),
        Opcode::Cmp => {
            let Imm::Cond(c) = imm else { panic!("cmp without a condition") };
            (v(b.cmp(c, a[0], a[1])), line!())
        }
        Opcode::Cast => (v(b.cast(a[0], to)), line!()),
        Opcode::Bitcast => (v(b.bitcast(a[0], to)), line!()),
        Opcode::SharedAddr => (v(b.shared_addr(shared.expect("a shared array"))), line!()),
        Opcode::PtrOffset => (v(b.ptr_offset(a[0], a[1])), line!()),
        Opcode::Load => (v(b.load_ptr(a[0])), line!()),
        Opcode::Store => (e(b.store_ptr(a[0], a[1])), line!()),
        Opcode::AtomicRmw => {
            let Imm::Atomic(op, scope) = imm else { panic!("atomic.rmw without an operation") };
            (v(b.atomic_rmw_ptr(op, scope, a[0], a[1])), line!())
        }
        Opcode::AtomicCas => (v(b.atomic_cas_ptr(Scope::Device, a[0], a[1], a[2])), line!()),
        Opcode::ThreadId => (v(b.thread_id(Dim::X)), line!()),
        Opcode::BlockId => (v(b.block_id(Dim::X)), line!()),
        Opcode::BlockDim => (v(b.block_dim(Dim::X)), line!()),
        Opcode::GridDim => (v(b.grid_dim(Dim::X)), line!()),
        Opcode::LaneId => (v(b.lane_id()), line!()),
        Opcode::SubgroupId => (v(b.subgroup_id()), line!()),
        Opcode::SubgroupSize => (v(b.subgroup_size()), line!()),
        Opcode::LaneMaskLt => (v(b.lane_mask_lt()), line!()),
        Opcode::LaneMaskLe => (v(b.lane_mask_le()), line!()),
        Opcode::LaneMaskEq => (v(b.lane_mask_eq()), line!()),
        Opcode::LaneMaskGe => (v(b.lane_mask_ge()), line!()),
        Opcode::LaneMaskGt => (v(b.lane_mask_gt()), line!()),
        Opcode::ShuffleIdx => (v(b.shuffle_idx(a[0], a[1])), line!()),
        Opcode::ShuffleUp => (v(b.shuffle_up(a[0], a[1])), line!()),
        Opcode::ShuffleDown => (v(b.shuffle_down(a[0], a[1])), line!()),
        Opcode::ShuffleXor => (v(b.shuffle_xor(a[0], a[1])), line!()),
        Opcode::Broadcast => (v(b.broadcast(a[0], a[1])), line!()),
        Opcode::Ballot => (v(b.ballot(a[0])), line!()),
        Opcode::BallotFirstN => {
            let Imm::Count(n) = imm else { panic!("ballot.first_n without a count") };
            (v(b.ballot_first_n(u32::from(n), a[0])), line!())
        }
        Opcode::MatchAny => (v(b.match_any(a[0])), line!()),
        Opcode::MatchAll => (v(b.match_all(a[0])), line!()),
        Opcode::ActiveMask => (v(b.active_mask()), line!()),
        Opcode::Elect => (v(b.elect()), line!()),
        Opcode::VoteAll => (v(b.vote_all(tile(), a[0])), line!()),
        Opcode::VoteAny => (v(b.vote_any(tile(), a[0])), line!()),
        Opcode::VoteEq => (v(b.vote_eq(tile(), a[0])), line!()),
        Opcode::SubgroupReduce => {
            let (op, tile, _) = group();
            (v(b.subgroup_reduce(op, tile, a[0])), line!())
        }
        Opcode::SubgroupScan => {
            let (op, tile, inclusive) = group();
            (v(b.subgroup_scan(op, tile, inclusive, a[0])), line!())
        }
        Opcode::SegmentedReduce => {
            let (op, tile, _) = group();
            (v(b.segmented_reduce(op, tile, a[0], a[1])), line!())
        }
        Opcode::SubgroupSync => (e(b.subgroup_sync()), line!()),
        Opcode::BlockSync => (e(b.block_sync()), line!()),
        Opcode::BlockSyncPred => {
            let Imm::Pred(p) = imm else { panic!("block.sync_pred without a combiner") };
            (v(b.block_sync_pred(p, a[0])), line!())
        }
        Opcode::Fence => (e(b.fence(Scope::Block)), line!()),
        Opcode::Nanosleep => (e(b.nanosleep(a[0])), line!()),
        Opcode::If => (e(b.if_then(a[0], |_| Ok(()))), line!()),
        Opcode::Loop | Opcode::Yield | Opcode::Break | Opcode::Continue | Opcode::Return => {
            panic!("{} is not an op-rule case", case.op)
        }
    }
}

/// What the builder did with a case.
enum Built {
    /// The op call and `finish` succeeded; the op's result type.
    Accepted(Option<Type>),
    /// The op call failed at its own line.
    Rejected(String),
}

/// Builds `case` with the builder; `Err` describes a disagreement in the builder alone (an error
/// at the wrong place).
fn build(case: &Case) -> Result<Built, String> {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = KernelBuilder::new(&mut ctx, "k");
    if let Some(w) = case.subgroup {
        b.set_subgroup_size(w).map_err(|e| e.to_string())?;
    }
    let shared = case.shared.map(|elem| b.shared_array("s", elem, 4));
    let vals: Vec<Val> = case
        .args
        .iter()
        .enumerate()
        .map(|(i, &t)| match t {
            Type::Scalar(s) => b.scalar(&format!("a{i}"), s),
            Type::Ptr(_, s) => b.buffer(&format!("a{i}"), s).ptr(),
        })
        .collect();
    let (r, line) = call(&mut b, case, &vals, shared);
    match r {
        Err(e) => {
            if e.location.line() != line || !e.location.file().ends_with("type_agreement.rs") {
                return Err(format!(
                    "rejected at {}:{}, not at the call (line {line}): {e}",
                    e.location.file(),
                    e.location.line()
                ));
            }
            Ok(Built::Rejected(e.message))
        }
        Ok(v) => match b.finish() {
            Ok(_) => Ok(Built::Accepted(v.map(|v| v.ty()))),
            Err(e) => Err(format!("accepted at the call, rejected at finish: {e}")),
        },
    }
}

#[test]
fn builder_and_verifier_agree_on_every_op_and_type() {
    let types = all_types();
    let cases = cases();
    let mut failures = Vec::new();
    let (mut accepted, mut rejected) = (0usize, 0usize);
    let mut per_op: Vec<(Opcode, usize, usize)> = Vec::new();
    for case in &cases {
        let verdict = build(case);
        let builder_ok = matches!(verdict, Ok(Built::Accepted(_)));
        let problem = match verdict {
            Err(why) => Some(why),
            Ok(Built::Accepted(ty)) => {
                accepted += 1;
                let want = ty.or(case.to.map(Type::Scalar));
                (!verifier_accepts(case, want))
                    .then(|| format!("the builder accepts (result {want:?}), the verifier rejects"))
            }
            Ok(Built::Rejected(msg)) => {
                rejected += 1;
                // The result types the instruction could name: none, the one the case names
                // (`const`, `cast`, `bitcast`), or any.
                let results: Vec<Option<Type>> = match (case.op.info().num_results, case.to) {
                    (Some(0), _) => vec![None],
                    (_, Some(to)) => vec![Some(Type::Scalar(to))],
                    _ => types.iter().map(|&t| Some(t)).collect(),
                };
                results
                    .iter()
                    .find(|&&r| verifier_accepts(case, r))
                    .map(|r| format!("the builder rejects ({msg}), the verifier accepts result {r:?}"))
            }
        };
        match per_op.last_mut() {
            Some((op, n, ok)) if *op == case.op => {
                *n += 1;
                *ok += usize::from(builder_ok);
            }
            _ => per_op.push((case.op, 1, usize::from(builder_ok))),
        }
        if let Some(p) = problem {
            failures.push(format!("{case:?}: {p}"));
        }
    }
    eprintln!("{} combinations: {accepted} accepted by both, {rejected} rejected by both", cases.len());
    // Every op has an accepted combination, so no op's rules are vacuously "agreed" on.
    for (op, n, ok) in &per_op {
        eprintln!("  {op}: {n} combinations, {ok} accepted");
        assert!(*ok > 0, "{op}: no accepted combination among {n}");
    }
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(failures.is_empty(), "{} disagreements, e.g.:\n{shown:#?}", failures.len());
}
