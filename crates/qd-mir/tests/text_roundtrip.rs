//! Round-trip and robustness tests of the `.qdm` text format.
//!
//! A generator builds random, well-typed modules through the `Function` API (parameters, shared
//! arrays, every opcode with operands of in-scope values, nested `if`/`loop` regions with region
//! parameters and results, proper terminators, programs launching the kernels). Each is printed,
//! parsed and printed again; the two texts must be identical. A second family of properties feeds
//! the parser arbitrary strings and randomly edited valid programs: it must never panic, and
//! whatever it accepts must print to a fixed point.

use proptest::prelude::*;
use qd_mir::text::{print_function, print_module};
use qd_mir::{
    parse_function, parse_module, parse_module_with_map, AddrSpace, AnyEntity, AtomicOp, CmpCond, Dim, Function,
    GridPolicy, GroupOp, Imm, Launch, LaunchArg, Module, Opcode, PredOp, Program, ProgramCheck, ProgramParam,
    ProgramStatus, Region, ScalarType, Scope, Tile, Type, Value,
};
use std::collections::BTreeSet;

/// A stream of choices; zeros once exhausted, so generation always terminates.
struct Choices<'a> {
    data: &'a [u32],
    at: usize,
}

impl Choices<'_> {
    fn next(&mut self) -> u32 {
        let v = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.next() as usize % n
        }
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, one_in: u32) -> bool {
        self.next().is_multiple_of(one_in)
    }
    fn wide(&mut self) -> u64 {
        u64::from(self.next()) << 32 | u64::from(self.next())
    }
}

const NUMERIC: [ScalarType; 6] =
    [ScalarType::I32, ScalarType::U32, ScalarType::I64, ScalarType::U64, ScalarType::F32, ScalarType::F64];
const INTS: [ScalarType; 4] = [ScalarType::I32, ScalarType::U32, ScalarType::I64, ScalarType::U64];
const LOGIC: [ScalarType; 5] = [ScalarType::Bool, ScalarType::I32, ScalarType::U32, ScalarType::I64, ScalarType::U64];
const FLOATS: [ScalarType; 2] = [ScalarType::F32, ScalarType::F64];
const SCOPES: [Scope; 3] = [Scope::Subgroup, Scope::Block, Scope::Device];
const DIMS: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];
const PREDS: [PredOp; 3] = [PredOp::And, PredOp::Or, PredOp::Count];

/// What may end the region being generated.
#[derive(Clone)]
struct Ctx {
    /// Result types of the enclosing `if` when generating one of its arms.
    yield_tys: Option<Vec<Type>>,
    /// Parameter and result types of the innermost loop.
    loop_tys: Option<(Vec<Type>, Vec<Type>)>,
}

struct Gen<'a, 'c> {
    c: &'a mut Choices<'c>,
    f: Function,
    /// Values visible at the current point (a stack; regions truncate it on exit).
    scope: Vec<Value>,
    ops: &'a mut BTreeSet<Opcode>,
}

impl Gen<'_, '_> {
    fn scalar(&mut self, from: &[ScalarType]) -> ScalarType {
        self.c.pick(from)
    }

    fn tile(&mut self) -> Tile {
        match self.c.below(7) {
            6 => Tile::Full,
            l => Tile::Log2(l as u8),
        }
    }

    fn const_bits(&mut self, ty: ScalarType) -> u64 {
        let raw = self.c.wide();
        let special = self.c.below(8);
        let bits = match ty {
            ScalarType::Bool => raw & 1,
            ScalarType::I32 | ScalarType::U32 => {
                [raw, 0, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF][special % 5] & 0xFFFF_FFFF
            }
            ScalarType::I64 | ScalarType::U64 => [raw, 0, u64::MAX, 1 << 63, (1 << 63) - 1][special % 5],
            ScalarType::F32 => {
                let sp = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-7, f32::MIN_POSITIVE / 4.0, 1.5];
                match sp.get(special) {
                    Some(x) => u64::from(x.to_bits()),
                    None => raw & 0xFFFF_FFFF,
                }
            }
            ScalarType::F64 => {
                let sp = [0.0f64, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e300, f64::MIN_POSITIVE / 4.0, 0.1];
                sp.get(special).map_or(raw, |x| x.to_bits())
            }
        };
        // Every NaN (the canonical quiet NaNs included) prints as raw bits; make them common.
        match (ty, special) {
            (ScalarType::F32, 7) if raw & 1 == 0 => 0x7FC0_0000,
            (ScalarType::F64, 7) if raw & 1 == 0 => 0x7FF8_0000_0000_0000,
            _ => bits,
        }
    }

    fn inst(&mut self, region: Region, op: Opcode, imm: Imm, args: &[Value], results: &[Type]) -> Vec<Value> {
        let inst = self.f.make_inst(op, imm, args, results);
        self.f.append_inst(region, inst);
        self.ops.insert(op);
        let rs = self.f.inst_results(inst).to_vec();
        self.scope.extend_from_slice(&rs);
        rs
    }

    /// A visible value of type `ty`, or a new constant / pointer producing one.
    fn value_of(&mut self, region: Region, ty: Type) -> Value {
        let have: Vec<Value> = self.scope.iter().copied().filter(|&v| self.f.value_type(v) == ty).collect();
        if !have.is_empty() && !self.c.chance(4) {
            return self.c.pick(&have);
        }
        match ty {
            Type::Scalar(s) => {
                let bits = self.const_bits(s);
                self.inst(region, Opcode::Const, Imm::Const(bits), &[], &[ty])[0]
            }
            Type::Ptr(..) => match have.first() {
                Some(&v) => v,
                // Pointers are requested only for types that exist (see `pointer`).
                None => self.value_of(region, Type::U32),
            },
        }
    }

    /// Some visible pointer (a parameter, a `shared.addr` or a `ptr.offset` result), making a
    /// `shared.addr` when the choice falls on a shared array.
    fn pointer(&mut self, region: Region) -> Value {
        let ptrs: Vec<Value> = self.scope.iter().copied().filter(|&v| self.f.value_type(v).is_ptr()).collect();
        let shared: Vec<_> = self.f.shared.keys().collect();
        if ptrs.is_empty() || (!shared.is_empty() && self.c.chance(4)) {
            if let Some(&s) = shared.get(self.c.below(shared.len())) {
                let ty = Type::Ptr(AddrSpace::Shared, self.f.shared[s].elem);
                return self.inst(region, Opcode::SharedAddr, Imm::Shared(s), &[], &[ty])[0];
            }
        }
        self.c.pick(&ptrs)
    }

    fn elem(&self, p: Value) -> Type {
        self.f.value_type(p).pointer().map_or(Type::U32, |(_, e)| Type::Scalar(e))
    }

    /// Emits one non-terminator op with well-typed operands.
    fn op(&mut self, region: Region, op: Opcode, ctx: &Ctx, depth: u32) {
        let r = region;
        match op {
            Opcode::Const => {
                let s = self.scalar(&ScalarType::ALL);
                let bits = self.const_bits(s);
                self.inst(r, op, Imm::Const(bits), &[], &[s.into()]);
            }
            Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Div | Opcode::Rem | Opcode::Min | Opcode::Max => {
                let t = self.scalar(&NUMERIC).into();
                let (a, b) = (self.value_of(r, t), self.value_of(r, t));
                self.inst(r, op, Imm::None, &[a, b], &[t]);
            }
            Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Shl | Opcode::Shr => {
                let from: &[ScalarType] = if matches!(op, Opcode::Shl | Opcode::Shr) { &INTS } else { &LOGIC };
                let t = self.scalar(from).into();
                let (a, b) = (self.value_of(r, t), self.value_of(r, t));
                self.inst(r, op, Imm::None, &[a, b], &[t]);
            }
            Opcode::Neg
            | Opcode::Abs
            | Opcode::Not
            | Opcode::Sqrt
            | Opcode::Clz
            | Opcode::Popcount
            | Opcode::Bitrev => {
                let from: &[ScalarType] = match op {
                    Opcode::Neg | Opcode::Abs => &NUMERIC,
                    Opcode::Not => &LOGIC,
                    Opcode::Sqrt => &FLOATS,
                    _ => &INTS,
                };
                let t = self.scalar(from).into();
                let a = self.value_of(r, t);
                self.inst(r, op, Imm::None, &[a], &[t]);
            }
            Opcode::Fma | Opcode::Select => {
                let (t, first) = if op == Opcode::Fma {
                    let t = self.scalar(&FLOATS).into();
                    (t, t)
                } else {
                    (self.scalar(&ScalarType::ALL).into(), Type::BOOL)
                };
                let a = self.value_of(r, first);
                let (b, c) = (self.value_of(r, t), self.value_of(r, t));
                self.inst(r, op, Imm::None, &[a, b, c], &[t]);
            }
            Opcode::Cmp => {
                let t = self.scalar(&NUMERIC).into();
                let cond = self.c.pick(&CmpCond::ALL);
                let (a, b) = (self.value_of(r, t), self.value_of(r, t));
                self.inst(r, op, Imm::Cond(cond), &[a, b], &[Type::BOOL]);
            }
            Opcode::Cast | Opcode::Bitcast => {
                let from = self.scalar(&ScalarType::ALL);
                let to = if op == Opcode::Cast {
                    self.scalar(&ScalarType::ALL)
                } else {
                    let same: Vec<ScalarType> = NUMERIC.into_iter().filter(|t| t.bits() == from.bits()).collect();
                    if same.is_empty() {
                        from
                    } else {
                        self.c.pick(&same)
                    }
                };
                let a = self.value_of(r, from.into());
                self.inst(r, op, Imm::None, &[a], &[to.into()]);
            }
            Opcode::SharedAddr => match self.f.shared.keys().next() {
                Some(s) => {
                    let ty = Type::Ptr(AddrSpace::Shared, self.f.shared[s].elem);
                    self.inst(r, op, Imm::Shared(s), &[], &[ty]);
                }
                None => self.op(r, Opcode::LaneId, ctx, depth),
            },
            Opcode::PtrOffset => {
                let p = self.pointer(r);
                let i_ty = self.scalar(&INTS).into();
                let i = self.value_of(r, i_ty);
                let ty = self.f.value_type(p);
                self.inst(r, op, Imm::None, &[p, i], &[ty]);
            }
            Opcode::Load => {
                let p = self.pointer(r);
                let ty = self.elem(p);
                self.inst(r, op, Imm::None, &[p], &[ty]);
            }
            Opcode::Store => {
                let p = self.pointer(r);
                let ty = self.elem(p);
                let v = self.value_of(r, ty);
                self.inst(r, op, Imm::None, &[p, v], &[]);
            }
            Opcode::AtomicRmw | Opcode::AtomicCas => {
                let p = self.pointer(r);
                let ty = self.elem(p);
                let scope = self.c.pick(&SCOPES);
                let mut args = vec![p, self.value_of(r, ty)];
                let imm = if op == Opcode::AtomicRmw {
                    Imm::Atomic(self.c.pick(&AtomicOp::ALL), scope)
                } else {
                    args.push(self.value_of(r, ty));
                    Imm::Scope(scope)
                };
                self.inst(r, op, imm, &args, &[ty]);
            }
            Opcode::ThreadId | Opcode::BlockId | Opcode::BlockDim | Opcode::GridDim => {
                let d = self.c.pick(&DIMS);
                self.inst(r, op, Imm::Dim(d), &[], &[Type::U32]);
            }
            Opcode::LaneId | Opcode::SubgroupId | Opcode::SubgroupSize => {
                self.inst(r, op, Imm::None, &[], &[Type::U32]);
            }
            Opcode::LaneMaskLt
            | Opcode::LaneMaskLe
            | Opcode::LaneMaskEq
            | Opcode::LaneMaskGe
            | Opcode::LaneMaskGt
            | Opcode::ActiveMask => {
                self.inst(r, op, Imm::None, &[], &[Type::U64]);
            }
            Opcode::Elect => {
                self.inst(r, op, Imm::None, &[], &[Type::BOOL]);
            }
            Opcode::MatchAny | Opcode::MatchAll => {
                let t = self.scalar(&ScalarType::ALL).into();
                let v = self.value_of(r, t);
                self.inst(r, op, Imm::None, &[v], &[Type::U64]);
            }
            Opcode::Nanosleep => {
                let ns = self.value_of(r, Type::U32);
                self.inst(r, op, Imm::None, &[ns], &[]);
            }
            Opcode::ShuffleIdx | Opcode::ShuffleUp | Opcode::ShuffleDown | Opcode::ShuffleXor | Opcode::Broadcast => {
                let t = self.scalar(&ScalarType::ALL).into();
                let (v, lane) = (self.value_of(r, t), self.value_of(r, Type::U32));
                self.inst(r, op, Imm::None, &[v, lane], &[t]);
            }
            Opcode::Ballot | Opcode::BallotFirstN => {
                let p = self.value_of(r, Type::BOOL);
                if op == Opcode::Ballot {
                    self.inst(r, op, Imm::None, &[p], &[Type::U64]);
                } else {
                    let n = 1 + self.c.below(32) as u8;
                    self.inst(r, op, Imm::Count(n), &[p], &[Type::U32]);
                }
            }
            Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteEq => {
                let t = if op == Opcode::VoteEq { self.scalar(&ScalarType::ALL).into() } else { Type::BOOL };
                let tile = self.tile();
                let v = self.value_of(r, t);
                self.inst(r, op, Imm::Tile(tile), &[v], &[Type::BOOL]);
            }
            Opcode::SubgroupReduce | Opcode::SubgroupScan | Opcode::SegmentedReduce => {
                let gop = self.c.pick(&GroupOp::ALL);
                let from: &[ScalarType] =
                    if matches!(gop, GroupOp::And | GroupOp::Or | GroupOp::Xor) { &LOGIC } else { &NUMERIC };
                let t = self.scalar(from).into();
                let tile = self.tile();
                let inclusive = op != Opcode::SubgroupScan || self.c.chance(2);
                let mut args = vec![self.value_of(r, t)];
                if op == Opcode::SegmentedReduce {
                    args.push(self.value_of(r, Type::BOOL));
                }
                self.inst(r, op, Imm::Group { op: gop, tile, inclusive }, &args, &[t]);
            }
            Opcode::SubgroupSync | Opcode::BlockSync => {
                self.inst(r, op, Imm::None, &[], &[]);
            }
            Opcode::BlockSyncPred => {
                let pred = self.c.pick(&PREDS);
                let p = self.value_of(r, Type::BOOL);
                let ty = if pred == PredOp::Count { Type::U32 } else { Type::BOOL };
                self.inst(r, op, Imm::Pred(pred), &[p], &[ty]);
            }
            Opcode::Fence => {
                let s = self.c.pick(&SCOPES);
                self.inst(r, op, Imm::Scope(s), &[], &[]);
            }
            Opcode::If => {
                let c = self.value_of(r, Type::BOOL);
                let tys = self.types(3);
                let inst = self.f.make_inst(op, Imm::None, &[c], &tys);
                self.f.append_inst(r, inst);
                self.ops.insert(op);
                let inner = Ctx { yield_tys: Some(tys.clone()), loop_tys: ctx.loop_tys.clone() };
                let then = self.f.make_region();
                self.region(then, &inner, depth + 1);
                let els = if !tys.is_empty() || self.c.chance(2) {
                    let e = self.f.make_region();
                    self.region(e, &inner, depth + 1);
                    Some(e)
                } else {
                    None
                };
                self.f.set_inst_regions(inst, Some(then), els);
                let rs = self.f.inst_results(inst).to_vec();
                self.scope.extend(rs);
            }
            Opcode::Loop => {
                let params = self.types(3);
                let inits: Vec<Value> = params.iter().map(|&t| self.value_of(r, t)).collect();
                let results = self.types(3);
                let inst = self.f.make_inst(op, Imm::None, &inits, &results);
                self.f.append_inst(r, inst);
                self.ops.insert(op);
                let body = self.f.make_region();
                let mark = self.scope.len();
                for &t in &params {
                    let v = self.f.add_region_param(body, t);
                    self.scope.push(v);
                }
                let inner = Ctx { yield_tys: None, loop_tys: Some((params, results)) };
                self.region(body, &inner, depth + 1);
                self.scope.truncate(mark);
                self.f.set_inst_regions(inst, Some(body), None);
                let rs = self.f.inst_results(inst).to_vec();
                self.scope.extend(rs);
            }
            Opcode::Yield | Opcode::Break | Opcode::Continue | Opcode::Return => self.terminator(r, ctx),
        }
    }

    fn types(&mut self, max: usize) -> Vec<Type> {
        let n = self.c.below(max + 1);
        (0..n).map(|_| Type::Scalar(self.c.pick(&ScalarType::ALL))).collect()
    }

    /// Ends a region with a terminator its context allows.
    fn terminator(&mut self, r: Region, ctx: &Ctx) {
        let mut choices = vec![Opcode::Return];
        if ctx.yield_tys.is_some() {
            choices.extend([Opcode::Yield, Opcode::Yield]);
        }
        if ctx.loop_tys.is_some() {
            choices.extend([Opcode::Break, Opcode::Continue, Opcode::Continue]);
        }
        let op = self.c.pick(&choices);
        let tys = match (op, &ctx.yield_tys, &ctx.loop_tys) {
            (Opcode::Yield, Some(t), _) => t.clone(),
            (Opcode::Break, _, Some((_, res))) => res.clone(),
            (Opcode::Continue, _, Some((params, _))) => params.clone(),
            _ => Vec::new(),
        };
        let args: Vec<Value> = tys.iter().map(|&t| self.value_of(r, t)).collect();
        self.inst(r, op, Imm::None, &args, &[]);
    }

    /// Fills a region with random ops and a terminator; its values go out of scope after it.
    fn region(&mut self, r: Region, ctx: &Ctx, depth: u32) {
        let mark = self.scope.len();
        let n = self.c.below(if depth == 0 { 24 } else { 6 });
        for _ in 0..n {
            let op = if self.c.chance(6) { self.c.pick(&[Opcode::If, Opcode::Loop]) } else { self.c.pick(Opcode::ALL) };
            let op = match op {
                Opcode::If | Opcode::Loop if depth >= 3 => Opcode::Add,
                Opcode::Yield | Opcode::Break | Opcode::Continue | Opcode::Return => Opcode::Const,
                other => other,
            };
            self.op(r, op, ctx, depth);
        }
        self.terminator(r, ctx);
        self.scope.truncate(mark);
    }
}

/// A random kernel named `name`.
fn gen_kernel(c: &mut Choices<'_>, ops: &mut BTreeSet<Opcode>, name: &str) -> Function {
    let mut f = Function::new(name);
    // Always one global buffer, so memory ops have a pointer to use.
    let elem = c.pick(&ScalarType::ALL);
    f.add_param("buf", Type::Ptr(AddrSpace::Global, elem), false);
    for i in 0..c.below(4) {
        let ty = if c.chance(2) {
            Type::Ptr(AddrSpace::Global, c.pick(&ScalarType::ALL))
        } else {
            Type::Scalar(c.pick(&ScalarType::ALL))
        };
        f.add_param(format!("p{i}_x"), ty, c.chance(2));
    }
    for i in 0..c.below(3) {
        let elem = c.pick(&ScalarType::ALL);
        let len = 1 + c.below(4096) as u32;
        f.add_shared(format!("s{i}"), elem, len);
    }
    f.launch.block = [1 + c.below(1024) as u32, 1 + c.below(4) as u32, 1];
    let ints: Vec<u16> = (0..f.params.len() as u16).filter(|&i| f.params[usize::from(i)].ty.is_int()).collect();
    f.launch.grid = match c.below(3) {
        0 if !ints.is_empty() => GridPolicy::Cover(c.pick(&ints)),
        1 => GridPolicy::Saturating,
        _ => GridPolicy::Fixed([c.next(), 1 + c.below(8) as u32, 1]),
    };
    let scope: Vec<Value> = f.params.iter().map(|p| p.value).collect();
    let body = f.body;
    let mut g = Gen { c, f, scope, ops };
    g.region(body, &Ctx { yield_tys: None, loop_tys: None }, 0);
    g.f
}

/// A random module: kernels and programs launching them.
fn gen_module(data: &[u32], ops: &mut BTreeSet<Opcode>) -> Module {
    let mut c = Choices { data, at: 0 };
    let mut m = Module::default();
    for i in 0..1 + c.below(3) {
        m.kernels.push(gen_kernel(&mut c, ops, &format!("k{i}")));
    }
    for i in 0..c.below(3) {
        let params: Vec<ProgramParam> = (0..c.below(4))
            .map(|j| ProgramParam { name: format!("a{j}"), ty: Type::Ptr(AddrSpace::Global, c.pick(&ScalarType::ALL)) })
            .collect();
        let mut launches = Vec::new();
        for _ in 0..c.below(4) {
            let k = &m.kernels[c.below(m.kernels.len())];
            let args = k
                .params
                .iter()
                .map(|p| match p.ty {
                    Type::Scalar(s) => {
                        let bits = match s {
                            ScalarType::Bool => u64::from(c.next() & 1),
                            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => u64::from(c.next()) & 0x7F7F_FFFF,
                            _ => c.wide() & 0x7FEF_FFFF_FFFF_FFFF,
                        };
                        LaunchArg::Const(s, bits)
                    }
                    Type::Ptr(..) => LaunchArg::Param(c.below(params.len()) as u16),
                })
                .collect();
            launches.push(Launch { kernel: k.name.clone(), args });
        }
        // Launches of kernels with buffers need a program parameter to pass.
        let params = if params.is_empty() {
            vec![ProgramParam { name: "buf".into(), ty: Type::Ptr(AddrSpace::Global, ScalarType::U32) }]
        } else {
            params
        };
        // Some programs get a status word and checks (the text round trip covers their syntax).
        let mut prog = Program { name: format!("prog{i}"), params, status: None, checks: Vec::new(), launches };
        if c.below(2) == 1 {
            let bits = (0..c.below(3)).map(|b| (b as u8 * 7, format!("bit \"{b}\" \\ set"))).collect();
            prog.status = Some(ProgramStatus { name: "status".into(), bits });
            prog.checks.push(ProgramCheck::MinLen { param: 0, min: c.wide() >> 1, why: "slots(n; 2)".into() });
            if prog.params.len() > 1 {
                prog.checks.push(ProgramCheck::Distinct { a: 1, b: 0 });
            }
        }
        m.programs.push(prog);
    }
    m
}

/// Prints, parses and reprints `m`; the texts must agree, and the source map must point each
/// instruction at a line naming its opcode.
fn assert_roundtrip(m: &Module) -> Result<(), TestCaseError> {
    let text = print_module(m);
    let (parsed, map) = match parse_module_with_map(&text) {
        Ok(x) => x,
        Err(e) => return Err(TestCaseError::fail(e.render(&text, "generated.qdm"))),
    };
    prop_assert_eq!(&print_module(&parsed), &text);
    prop_assert_eq!(parsed.kernels.len(), m.kernels.len());
    let lines: Vec<&str> = text.lines().collect();
    for (ki, k) in parsed.kernels.iter().enumerate() {
        prop_assert_eq!(k.walk_insts().len(), m.kernels[ki].walk_insts().len());
        for inst in k.walk_insts() {
            let line = map.line_of(ki, AnyEntity::Inst(inst)).unwrap_or(0) as usize;
            let name = k.insts[inst].opcode.name();
            let shown = lines.get(line.wrapping_sub(1)).copied().unwrap_or("");
            prop_assert!(shown.split_whitespace().any(|w| w == name), "line {} `{}` lacks `{}`", line, shown, name);
        }
    }
    Ok(())
}

/// Parses `src`; if it is accepted, its printed form must parse and print to the same text.
fn assert_fixed_point_if_accepted(src: &str) -> Result<(), TestCaseError> {
    if let Ok(m) = parse_module(src) {
        let once = print_module(&m);
        match parse_module(&once) {
            Ok(m2) => prop_assert_eq!(print_module(&m2), once),
            Err(e) => return Err(TestCaseError::fail(format!("{}\n(from input {src:?})", e.render(&once, "p.qdm")))),
        }
    }
    Ok(())
}

/// Deterministic pseudo-random choices (xorshift), for the coverage test.
fn stream(seed: u64, n: usize) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect()
}

#[test]
fn generator_covers_every_opcode_and_roundtrips() {
    let mut ops = BTreeSet::new();
    for seed in 0..64 {
        let m = gen_module(&stream(seed, 3000), &mut ops);
        if let Err(e) = assert_roundtrip(&m) {
            panic!("seed {seed}: {e}");
        }
    }
    let missing: Vec<&str> = Opcode::ALL.iter().filter(|op| !ops.contains(op)).map(|op| op.name()).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// The docs/examples/scan.qdm kernel, comment included.
const SCAN: &str = "\
; A subgroup inclusive prefix sum: each lane gets the sum of its subgroup's inputs up to itself.
kernel @scan(%src: ptr<global, u32>, %dst: ptr<global, u32>) block(64, 1, 1) grid(1, 1, 1) {
  %0 = thread_id x : u32
  %1 = ptr.offset %src, %0 : ptr<global, u32>
  %2 = load %1 : u32
  %3 = subgroup.scan inclusive add %2 : u32
  %4 = ptr.offset %dst, %0 : ptr<global, u32>
  store %4, %3
  return
}
";

#[test]
fn scan_example_reprints_identically() {
    let f = match parse_function(SCAN) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.render(SCAN, "scan.qdm")),
    };
    let body = SCAN.split_once('\n').map_or("", |(_, rest)| rest);
    assert_eq!(print_function(&f), body);
    let ops: Vec<Opcode> = f.walk_insts().into_iter().map(|i| f.insts[i].opcode).collect();
    assert_eq!(
        ops,
        [
            Opcode::ThreadId,
            Opcode::PtrOffset,
            Opcode::Load,
            Opcode::SubgroupScan,
            Opcode::PtrOffset,
            Opcode::Store,
            Opcode::Return
        ]
    );
    assert_eq!(f.params[1].name, "dst");
}

#[test]
fn values_may_have_any_names() {
    let src = "kernel @k(%n: u32) {\n  %tid = thread_id x : u32\n  %17 = add %tid, %n : u32\n  %sum.2 = add %17, %17 : u32\n  return\n}\n";
    let f = match parse_function(src) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.render(src, "k.qdm")),
    };
    assert_eq!(
        print_function(&f),
        "kernel @k(%n: u32) block(1, 1, 1) grid(1, 1, 1) {\n  %0 = thread_id x : u32\n  %1 = add %0, %n : u32\n  %2 = add %1, %1 : u32\n  return\n}\n"
    );
}

/// Tokens the mutation and token-soup properties draw from.
const TOKENS: &[&str] = &[
    "kernel",
    "program",
    "launch",
    "@k",
    "@s",
    "%0",
    "%1",
    "%a",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    ";",
    "=",
    "->",
    "-",
    "u32",
    "f32",
    "bool",
    "ptr",
    "global",
    "shared",
    "if",
    "else",
    "loop",
    "yield",
    "break",
    "continue",
    "return",
    "const",
    "add",
    "1",
    "0x7fc00001",
    "1.5e-3",
    "inf",
    "nan",
    "true",
    "tile(3)",
    "block",
    "grid",
    "cover",
    "saturating",
    "\n",
    "é",
    "%",
    "@",
    "99999999999999999999999",
];

fn soup(picks: &[usize]) -> String {
    picks.iter().map(|&i| TOKENS[i % TOKENS.len()]).collect::<Vec<_>>().join(" ")
}

/// Applies byte edits to `text`: (position, kind, byte) triples.
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(pos, kind, b) in edits {
        if bytes.is_empty() {
            bytes.push(b);
            continue;
        }
        let at = pos % bytes.len();
        match kind % 6 {
            // Benign edits: whitespace and comments, digit changes (often still valid).
            4 => {
                let filler: &[u8] = [&b" "[..], b"\n", b" ; note\n", b"\t"][usize::from(b) % 4];
                bytes.splice(at..at, filler.iter().copied());
            }
            5 if bytes[at].is_ascii_digit() => bytes[at] = b'0' + b % 10,
            0 => bytes[at] = b,
            1 => bytes.insert(at, b),
            2 => {
                bytes.remove(at);
            }
            _ => {
                // Duplicate a slice (repeats lines, braces, names).
                let end = (at + usize::from(b)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Inserts comments, blank lines and extra spaces at line boundaries: (line, kind) pairs.
fn decorate(text: &str, edits: &[(usize, u8)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for &(at, kind) in edits {
        if lines.is_empty() {
            break;
        }
        let i = at % lines.len();
        match kind % 4 {
            0 => lines[i].push_str(" ; a comment { } %9 = @x"),
            1 => lines.insert(i, String::new()),
            2 => lines.insert(i, "    ; a comment line".into()),
            _ => lines[i].insert_str(0, " \t "),
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_modules_roundtrip(data in prop::collection::vec(any::<u32>(), 0..600)) {
        let mut ops = BTreeSet::new();
        let m = gen_module(&data, &mut ops);
        assert_roundtrip(&m)?;
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>(), picks in prop::collection::vec(any::<usize>(), 0..80)) {
        assert_fixed_point_if_accepted(&s)?;
        assert_fixed_point_if_accepted(&soup(&picks))?;
    }

    #[test]
    fn comments_and_blank_lines_are_ignored(
        data in prop::collection::vec(any::<u32>(), 0..300),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 0..8),
    ) {
        let mut ops = BTreeSet::new();
        let text = print_module(&gen_module(&data, &mut ops));
        let decorated = decorate(&text, &edits);
        match parse_module(&decorated) {
            Ok(m) => prop_assert_eq!(print_module(&m), text),
            Err(e) => return Err(TestCaseError::fail(e.render(&decorated, "decorated.qdm"))),
        }
    }

    #[test]
    fn mutated_programs_never_panic(
        data in prop::collection::vec(any::<u32>(), 0..300),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
    ) {
        let mut ops = BTreeSet::new();
        let text = print_module(&gen_module(&data, &mut ops));
        assert_fixed_point_if_accepted(&mutate(&text, &edits))?;
        // Edits that keep the text ASCII-printable are likelier to get deep into the parser.
        let printable: Vec<(usize, u8, u8)> = edits.iter().map(|&(p, k, b)| (p, k, 0x20 + b % 0x5f)).collect();
        assert_fixed_point_if_accepted(&mutate(&text, &printable))?;
    }
}
