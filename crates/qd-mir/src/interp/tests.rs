//! Interpreter tests, part 1: a small kernel builder (there is no parser here), then arithmetic,
//! memory, faults, atomics, grid policies, partial subgroups, programs and the step limit.
//! Control flow and barriers are in `tests_control.rs`.

use super::*;
use crate::entities::{Region, SharedArr, Value};
use crate::function::{Launch as ProgLaunch, ProgramParam};
use crate::inst::{Imm, Tile};
use crate::ops::{AtomicOp, CmpCond, Dim, GroupOp, Opcode, Scope};

/// Test hook: the interpreter's `run_kernel` (shadowing the glob import), first dumping the
/// kernel and its inputs for the CUDA cross-check when `QD_DUMP_KERNELS` is set (see [`dump`]).
pub(super) fn run_kernel(f: &Function, cfg: &RunConfig, args: &mut [ArgValue]) -> Result<RunStats, InterpError> {
    dump::kernel(f, cfg, args);
    super::run_kernel(f, cfg, args)
}

/// Test hook: the interpreter's `run_program`, first dumping the program like [`run_kernel`].
pub(super) fn run_program(
    m: &Module,
    p: &Program,
    cfg: &RunConfig,
    args: &mut [ArgValue],
) -> Result<RunStats, InterpError> {
    dump::program(m, p, cfg, args);
    super::run_program(m, p, cfg, args)
}

/// `QD_DUMP_KERNELS=DIR`: every kernel (or program) an interpreter test runs is written, with its
/// input arguments (before the run), to `DIR/<test>-<n>.qdm` as a `.qdm` file whose `; run:` line
/// gives the buffers inline (`u32:[1 2 3]`, floats as raw bits `f32:[0x3f800000]`), in the
/// filetest syntax. `tests/tests/cuda_corpus.rs` cross-checks that corpus on a GPU. Kernels that
/// do not verify, and argument lists that do not fit the parameters, are not written.
pub(super) mod dump {
    use super::super::{ArgValue, RunConfig};
    use crate::function::{Function, Module, Program};
    use crate::types::{ScalarType, Type};
    use std::cell::Cell;
    use std::path::PathBuf;

    thread_local! {
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    fn dir() -> Option<PathBuf> {
        std::env::var_os("QD_DUMP_KERNELS").filter(|d| !d.is_empty()).map(PathBuf::from)
    }

    fn elem(ty: ScalarType, bits: u64) -> String {
        match ty {
            ScalarType::Bool => (bits & 1).to_string(),
            ScalarType::I32 => (bits as u32 as i32).to_string(),
            ScalarType::I64 => (bits as i64).to_string(),
            ScalarType::U32 | ScalarType::U64 => bits.to_string(),
            ScalarType::F32 => format!("0x{:08x}", bits as u32),
            ScalarType::F64 => format!("0x{bits:016x}"),
        }
    }

    fn spec(a: &ArgValue) -> String {
        match a {
            ArgValue::Buffer(b) => {
                let items: Vec<String> = b.to_bits().into_iter().map(|v| elem(b.elem, v)).collect();
                format!("{}:[{}]", b.elem, items.join(" "))
            }
            ArgValue::Scalar(t, v) => format!("{t}:{}", elem(*t, *v)),
        }
    }

    fn fits(params: &[(String, Type)], args: &[ArgValue]) -> bool {
        params.len() == args.len()
            && params.iter().zip(args).all(|((_, ty), a)| match (ty, a) {
                (Type::Ptr(_, e), ArgValue::Buffer(b)) => *e == b.elem,
                (Type::Scalar(s), ArgValue::Scalar(t, _)) => s == t,
                _ => false,
            })
    }

    fn write(target: &str, params: &[(String, Type)], text: String, cfg: &RunConfig, args: &[ArgValue]) {
        let Some(dir) = dir() else { return };
        if !fits(params, args) {
            return;
        }
        let mut line = format!("; run: {target} sg={}", cfg.subgroup_size);
        for (flag, d) in [("grid", cfg.grid), ("block", cfg.block)] {
            if let Some([x, y, z]) = d {
                line.push_str(&format!(" {flag}={x},{y},{z}"));
            }
        }
        for ((name, _), a) in params.iter().zip(args) {
            line.push_str(&format!(" {name}={}", spec(a)));
        }
        line.push_str(" =>\n");
        let thread = std::thread::current();
        let test = thread.name().unwrap_or("test").rsplit("::").next().unwrap_or("test").to_string();
        let n = COUNT.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        let file = dir.join(format!("{test}-{n}.qdm"));
        let body = format!("; Dumped from the interpreter test `{test}` (call {n}) by QD_DUMP_KERNELS.\n{text}{line}");
        let _ = std::fs::create_dir_all(&dir);
        if let Err(e) = std::fs::write(&file, body) {
            eprintln!("QD_DUMP_KERNELS: cannot write {}: {e}", file.display());
        }
    }

    pub fn kernel(f: &Function, cfg: &RunConfig, args: &[ArgValue]) {
        if dir().is_none() || crate::verify::verify_function(f).is_err() {
            return;
        }
        let params: Vec<(String, Type)> = f.params.iter().map(|p| (p.name.clone(), p.ty)).collect();
        write(&format!("@{}", f.name), &params, crate::text::print_function(f), cfg, args);
    }

    pub fn program(m: &Module, p: &Program, cfg: &RunConfig, args: &[ArgValue]) {
        if dir().is_none() {
            return;
        }
        let mut m = m.clone();
        m.programs.retain(|q| q.name != p.name);
        m.programs.push(p.clone());
        if crate::verify::verify_module(&m).is_err() {
            return;
        }
        let params: Vec<(String, Type)> = p.params.iter().map(|q| (q.name.clone(), q.ty)).collect();
        write(&format!("program @{}", p.name), &params, crate::text::print_module(&m), cfg, args);
    }
}

/// Builds a kernel instruction by instruction into a current region.
pub(super) struct B {
    pub f: Function,
    cur: Vec<Region>,
}

pub(super) const U32: Type = Type::U32;

impl B {
    pub fn new(name: &str, block: [u32; 3], grid: GridPolicy) -> B {
        let mut f = Function::new(name);
        f.launch.block = block;
        f.launch.grid = grid;
        let body = f.body;
        B { f, cur: vec![body] }
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Value {
        self.f.add_param(name, ty, !ty.is_ptr())
    }

    pub fn buf(&mut self, name: &str, elem: ScalarType) -> Value {
        self.param(name, Type::Ptr(AddrSpace::Global, elem))
    }

    pub fn shared(&mut self, name: &str, elem: ScalarType, len: u32) -> SharedArr {
        self.f.add_shared(name, elem, len)
    }

    fn region(&self) -> Region {
        *self.cur.last().unwrap()
    }

    pub fn inst(&mut self, op: Opcode, imm: Imm, args: &[Value], tys: &[Type]) -> Inst {
        let i = self.f.make_inst(op, imm, args, tys);
        let r = self.region();
        self.f.append_inst(r, i);
        i
    }

    pub fn op(&mut self, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
        let i = self.inst(op, imm, args, &[ty]);
        self.f.first_result(i).unwrap()
    }

    pub fn c(&mut self, ty: ScalarType, bits: u64) -> Value {
        self.op(Opcode::Const, Imm::Const(bits), &[], ty.into())
    }

    pub fn u(&mut self, v: u32) -> Value {
        self.c(ScalarType::U32, u64::from(v))
    }

    pub fn bin(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.op(op, Imm::None, &[a, b], ty)
    }

    pub fn un(&mut self, op: Opcode, a: Value, ty: Type) -> Value {
        self.op(op, Imm::None, &[a], ty)
    }

    pub fn cmp(&mut self, cond: CmpCond, a: Value, b: Value) -> Value {
        self.op(Opcode::Cmp, Imm::Cond(cond), &[a, b], Type::BOOL)
    }

    pub fn dim(&mut self, op: Opcode, d: Dim) -> Value {
        self.op(op, Imm::Dim(d), &[], U32)
    }

    pub fn nullary(&mut self, op: Opcode) -> Value {
        self.op(op, Imm::None, &[], U32)
    }

    /// Global thread index `block_id.x * block_dim.x + thread_id.x`.
    pub fn gid(&mut self) -> Value {
        let b = self.dim(Opcode::BlockId, Dim::X);
        let d = self.dim(Opcode::BlockDim, Dim::X);
        let t = self.dim(Opcode::ThreadId, Dim::X);
        let m = self.bin(Opcode::Mul, b, d);
        self.bin(Opcode::Add, m, t)
    }

    pub fn at(&mut self, p: Value, i: Value) -> Value {
        let ty = self.f.value_type(p);
        self.op(Opcode::PtrOffset, Imm::None, &[p, i], ty)
    }

    pub fn load(&mut self, p: Value) -> Value {
        let (_, e) = self.f.value_type(p).pointer().unwrap();
        self.op(Opcode::Load, Imm::None, &[p], e.into())
    }

    pub fn load_at(&mut self, p: Value, i: Value) -> Value {
        let q = self.at(p, i);
        self.load(q)
    }

    pub fn store_at(&mut self, p: Value, i: Value, v: Value) {
        let q = self.at(p, i);
        self.inst(Opcode::Store, Imm::None, &[q, v], &[]);
    }

    pub fn term(&mut self, op: Opcode, args: &[Value]) {
        self.inst(op, Imm::None, args, &[]);
    }

    pub fn sync(&mut self) {
        self.inst(Opcode::BlockSync, Imm::None, &[], &[]);
    }

    pub fn if_(&mut self, c: Value, tys: &[Type], then: impl FnOnce(&mut B), els: impl FnOnce(&mut B)) -> Vec<Value> {
        let i = self.inst(Opcode::If, Imm::None, &[c], tys);
        let (t, e) = (self.f.make_region(), self.f.make_region());
        self.f.set_inst_regions(i, Some(t), Some(e));
        self.cur.push(t);
        then(self);
        self.cur.pop();
        self.cur.push(e);
        els(self);
        self.cur.pop();
        self.f.inst_results(i).to_vec()
    }

    pub fn loop_(&mut self, inits: &[Value], tys: &[Type], body: impl FnOnce(&mut B, &[Value])) -> Vec<Value> {
        let i = self.inst(Opcode::Loop, Imm::None, inits, tys);
        let r = self.f.make_region();
        let params: Vec<Value> = inits
            .iter()
            .map(|&v| self.f.value_type(v))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| self.f.add_region_param(r, t))
            .collect();
        self.f.set_inst_regions(i, Some(r), None);
        self.cur.push(r);
        body(self, &params);
        self.cur.pop();
        self.f.inst_results(i).to_vec()
    }

    pub fn ret(&mut self) {
        self.term(Opcode::Return, &[]);
    }
}

pub(super) fn cfg(w: u32) -> RunConfig {
    RunConfig { subgroup_size: w, step_limit: Some(10_000_000), ..RunConfig::default() }
}

pub(super) fn zeros(elem: ScalarType, n: usize) -> ArgValue {
    ArgValue::Buffer(Buffer::from_bits(elem, vec![0; n]))
}

pub(super) fn bits(a: &ArgValue) -> Vec<u64> {
    match a {
        ArgValue::Buffer(b) => b.to_bits(),
        ArgValue::Scalar(_, v) => vec![*v],
    }
}

pub(super) fn u32s(a: &ArgValue) -> Vec<u32> {
    bits(a).into_iter().map(|b| b as u32).collect()
}

/// `out[gid] = in[gid] * 3 + gid` plus signed div/rem and f32 fma.
#[test]
fn arithmetic_and_memory() {
    let mut b = B::new("arith", [64, 1, 1], GridPolicy::Fixed([2, 1, 1]));
    let inp = b.buf("inp", ScalarType::U32);
    let out = b.buf("out", ScalarType::U32);
    let sdiv = b.buf("sdiv", ScalarType::I32);
    let fo = b.buf("fo", ScalarType::F32);
    let g = b.gid();
    let x = b.load_at(inp, g);
    let three = b.u(3);
    let m = b.bin(Opcode::Mul, x, three);
    let r = b.bin(Opcode::Add, m, g);
    b.store_at(out, g, r);
    // signed: (-(gid) - 7) / 4 and rem
    let gi = b.un(Opcode::Cast, g, Type::I32);
    let n = b.un(Opcode::Neg, gi, Type::I32);
    let seven = b.c(ScalarType::I32, 7);
    let n7 = b.bin(Opcode::Sub, n, seven);
    let four = b.c(ScalarType::I32, 4);
    let q = b.bin(Opcode::Div, n7, four);
    let rm = b.bin(Opcode::Rem, n7, four);
    let hundred = b.c(ScalarType::I32, 100);
    let q100 = b.bin(Opcode::Mul, q, hundred);
    let enc = b.bin(Opcode::Add, q100, rm);
    b.store_at(sdiv, g, enc);
    let gf = b.un(Opcode::Cast, g, Type::F32);
    let half = b.c(ScalarType::F32, u64::from(0.5f32.to_bits()));
    let one = b.c(ScalarType::F32, u64::from(1.0f32.to_bits()));
    let fm = b.op(Opcode::Fma, Imm::None, &[gf, half, one], Type::F32);
    b.store_at(fo, g, fm);
    b.ret();
    let mut args = vec![
        ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, (0..128).map(|i| i * 10))),
        zeros(ScalarType::U32, 128),
        zeros(ScalarType::I32, 128),
        zeros(ScalarType::F32, 128),
    ];
    let stats = run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    assert_eq!(u32s(&args[1]), (0..128).map(|i| i * 30 + i).collect::<Vec<u32>>());
    let want: Vec<u32> = (0..128i32).map(|i| ((-i - 7) / 4 * 100 + (-i - 7) % 4) as u32).collect();
    assert_eq!(u32s(&args[2]), want);
    let wantf: Vec<u32> = (0..128).map(|i| (i as f32 * 0.5 + 1.0).to_bits()).collect();
    assert_eq!(u32s(&args[3]), wantf);
    assert_eq!(stats.blocks, 2);
    // 36 instructions (30 + gid's 5 + return) on 128 threads.
    assert_eq!(stats.lane_instructions, 128 * b.f.walk_insts().len() as u64);
}

#[test]
fn division_by_zero_fault_names_kernel_instruction_and_lane() {
    let mut b = B::new("k", [32, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let k = b.u(17);
    let one = b.u(1);
    let d = b.bin(Opcode::Sub, t, k);
    let q = b.bin(Opcode::Div, one, d);
    b.store_at(out, t, q);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 32)];
    let e = run_kernel(&b.f, &cfg(32), &mut args).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel @k: integer division by zero in `%4 = div %2, %3 : u32` (block (0,0,0), thread 17, lane 17)"
    );
    assert_eq!((e.at.thread, e.at.lane, e.at.block), (Some(17), Some(17), Some([0, 0, 0])));
}

#[test]
fn out_of_bounds_fault_names_buffer_and_index() {
    let mut b = B::new("oob", [16, 1, 1], GridPolicy::Fixed([2, 1, 1]));
    let buf = b.buf("buf", ScalarType::F32);
    let g = b.gid();
    let five = b.u(5);
    let i = b.bin(Opcode::Add, g, five);
    let v = b.load_at(buf, i);
    b.store_at(buf, g, v);
    b.ret();
    let mut args = vec![zeros(ScalarType::F32, 20)];
    let e = run_kernel(&b.f, &cfg(8), &mut args).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel @oob: out of bounds: index 20 of %buf (length 20) in `%8 = load %7 : f32` (block (0,0,0), thread 15, lane 7)"
    );
    // Misaligned and negative: ptr.offset by -1 on element 0.
    let mut b = B::new("neg", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let buf = b.buf("buf", ScalarType::U32);
    let m1 = b.c(ScalarType::I32, u64::from(u32::MAX));
    let v = b.load_at(buf, m1);
    let z = b.u(0);
    b.store_at(buf, z, v);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut [zeros(ScalarType::U32, 4)]).unwrap_err();
    assert!(e.message.contains("out of bounds: index -1 of %buf (length 4)"), "{e}");
}

#[test]
fn argument_mismatches_are_errors_naming_the_parameter() {
    let mut b = B::new("args", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    b.buf("buf", ScalarType::U32);
    b.param("n", U32);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut [zeros(ScalarType::U32, 1)]).unwrap_err();
    assert_eq!(e.to_string(), "kernel @args: expects 2 argument(s), got 1");
    let e =
        run_kernel(&b.f, &cfg(32), &mut [zeros(ScalarType::F32, 1), ArgValue::Scalar(ScalarType::U32, 1)]).unwrap_err();
    assert_eq!(e.to_string(), "kernel @args: argument 0 (%buf): expected a buffer of u32, got a buffer of f32");
    let e = run_kernel(&b.f, &cfg(32), &mut [zeros(ScalarType::U32, 1), zeros(ScalarType::U32, 1)]).unwrap_err();
    assert_eq!(e.to_string(), "kernel @args: argument 1 (%n): expected a u32 scalar, got a buffer of u32");
    let e =
        run_kernel(&b.f, &cfg(48), &mut [zeros(ScalarType::U32, 1), ArgValue::Scalar(ScalarType::U32, 1)]).unwrap_err();
    assert!(e.message.contains("power of two"));
}

/// Global counter incremented by every thread of 4 blocks; f32 add; cas in lane order; shared
/// min/max.
#[test]
fn atomics() {
    let mut b = B::new("atom", [64, 1, 1], GridPolicy::Fixed([4, 1, 1]));
    let ctr = b.buf("ctr", ScalarType::U32);
    let olds = b.buf("olds", ScalarType::U32);
    let fsum = b.buf("fsum", ScalarType::F32);
    let cas = b.buf("cas", ScalarType::U32);
    let mm = b.buf("mm", ScalarType::I32);
    let s = b.shared("s", ScalarType::I32, 2);
    let g = b.gid();
    let z = b.u(0);
    let one = b.u(1);
    let p = b.at(ctr, z);
    let old = b.op(Opcode::AtomicRmw, Imm::Atomic(AtomicOp::Add, Scope::Device), &[p, one], U32);
    b.store_at(olds, g, old);
    let fp = b.at(fsum, z);
    let half = b.c(ScalarType::F32, u64::from(0.5f32.to_bits()));
    b.op(Opcode::AtomicRmw, Imm::Atomic(AtomicOp::Add, Scope::Device), &[fp, half], Type::F32);
    // cas(cas[0], expected = lane, new = lane + 1): succeeds for every lane in ascending order.
    let lane = b.nullary(Opcode::LaneId);
    let l1 = b.bin(Opcode::Add, lane, one);
    let cp = b.at(cas, z);
    let sg = b.nullary(Opcode::SubgroupId);
    let blk = b.dim(Opcode::BlockId, Dim::X);
    let first = b.bin(Opcode::Or, sg, blk);
    let is_first = b.cmp(CmpCond::Eq, first, z);
    b.if_(
        is_first,
        &[],
        |b| {
            b.op(Opcode::AtomicCas, Imm::Scope(Scope::Device), &[cp, lane, l1], U32);
            b.term(Opcode::Yield, &[]);
        },
        |b| b.term(Opcode::Yield, &[]),
    );
    // shared min/max of (tid - 20), then thread 0 publishes.
    let sa = b.op(Opcode::SharedAddr, Imm::Shared(s), &[], Type::Ptr(AddrSpace::Shared, ScalarType::I32));
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let ti = b.un(Opcode::Cast, t, Type::I32);
    let twenty = b.c(ScalarType::I32, 20);
    let v = b.bin(Opcode::Sub, ti, twenty);
    let s1 = b.at(sa, one);
    b.op(Opcode::AtomicRmw, Imm::Atomic(AtomicOp::Min, Scope::Block), &[sa, v], Type::I32);
    b.op(Opcode::AtomicRmw, Imm::Atomic(AtomicOp::Max, Scope::Block), &[s1, v], Type::I32);
    b.sync();
    let t0 = b.cmp(CmpCond::Eq, t, z);
    b.if_(
        t0,
        &[],
        |b| {
            let lo = b.load(sa);
            let hi = b.load(s1);
            let two = b.u(2);
            let bi = b.bin(Opcode::Mul, blk, two);
            let bi1 = b.bin(Opcode::Add, bi, one);
            b.store_at(mm, bi, lo);
            b.store_at(mm, bi1, hi);
            b.term(Opcode::Yield, &[]);
        },
        |b| b.term(Opcode::Yield, &[]),
    );
    b.ret();
    let mut args = vec![
        zeros(ScalarType::U32, 1),
        zeros(ScalarType::U32, 256),
        zeros(ScalarType::F32, 1),
        zeros(ScalarType::U32, 1),
        zeros(ScalarType::I32, 8),
    ];
    let stats = run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    assert_eq!(u32s(&args[0]), vec![256]);
    // Sequential blocks, subgroups in order, lanes ascending: the old values are 0..256 in order.
    assert_eq!(u32s(&args[1]), (0..256).collect::<Vec<u32>>());
    assert_eq!(u32s(&args[2]), vec![128.0f32.to_bits()]);
    assert_eq!(u32s(&args[3]), vec![32]);
    // Shared memory is fresh per block, so every block sees min -20, max 43.
    assert_eq!(u32s(&args[4]), [-20i32, 43, -20, 43, -20, 43, -20, 43].map(|v| v as u32).to_vec());
    assert_eq!(stats.barriers, 4);
}

#[test]
fn grid_policies_cover_and_saturating() {
    // Grid-stride loop over n: out[i] += 1 for i < n.
    let build = |grid: GridPolicy| {
        let mut b = B::new("gs", [32, 1, 1], grid);
        let out = b.buf("out", ScalarType::U32);
        let n = b.param("n", U32);
        let g = b.gid();
        b.loop_(&[g], &[], |b, p| {
            let i = p[0];
            let done = b.cmp(CmpCond::Ge, i, n);
            b.if_(done, &[], |b| b.term(Opcode::Break, &[]), |b| b.term(Opcode::Yield, &[]));
            let v = b.load_at(out, i);
            let one = b.u(1);
            let v1 = b.bin(Opcode::Add, v, one);
            b.store_at(out, i, v1);
            let bd = b.dim(Opcode::BlockDim, Dim::X);
            let gd = b.dim(Opcode::GridDim, Dim::X);
            let stride = b.bin(Opcode::Mul, bd, gd);
            let next = b.bin(Opcode::Add, i, stride);
            b.term(Opcode::Continue, &[next]);
        });
        b.ret();
        b.f
    };
    for (grid, n, blocks) in [
        (GridPolicy::Cover(1), 100u32, 4u64),
        (GridPolicy::Cover(1), 0, 0),
        (GridPolicy::Cover(1), 32, 1),
        (GridPolicy::Saturating, 1000, 4),
        (GridPolicy::Fixed([3, 1, 1]), 1000, 3),
    ] {
        let f = build(grid);
        let mut args = vec![zeros(ScalarType::U32, 1000), ArgValue::Scalar(ScalarType::U32, u64::from(n))];
        let stats = run_kernel(&f, &cfg(16), &mut args).unwrap();
        assert_eq!(stats.blocks, blocks, "{grid:?} n={n}");
        let want: Vec<u32> = (0..1000).map(|i| u32::from(i < n)).collect();
        assert_eq!(u32s(&args[0]), want, "{grid:?} n={n}");
    }
}

/// Block of 40 threads at W = 32: subgroup 1 has 8 live lanes.
#[test]
fn partial_last_subgroup() {
    let mut b = B::new("part", [40, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let ballots = b.buf("ballots", ScalarType::U64);
    let t = b.dim(Opcode::ThreadId, Dim::X);
    let lane = b.nullary(Opcode::LaneId);
    let sg = b.nullary(Opcode::SubgroupId);
    let one = b.u(1);
    let sum =
        b.op(Opcode::SubgroupReduce, Imm::Group { op: GroupOp::Add, tile: Tile::Full, inclusive: true }, &[one], U32);
    let k = b.u(1000);
    let a = b.bin(Opcode::Mul, sg, k);
    let a = b.bin(Opcode::Add, a, lane);
    let k2 = b.u(100_000);
    let s = b.bin(Opcode::Mul, sum, k2);
    let v = b.bin(Opcode::Add, a, s);
    b.store_at(out, t, v);
    let tru = b.c(ScalarType::Bool, 1);
    let bal = b.op(Opcode::Ballot, Imm::None, &[tru], Type::U64);
    b.store_at(ballots, sg, bal);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 40), zeros(ScalarType::U64, 2)];
    let stats = run_kernel(&b.f, &cfg(32), &mut args).unwrap();
    let want: Vec<u32> = (0..40).map(|t| if t < 32 { 3_200_000 + t } else { 800_000 + 1000 + t - 32 }).collect();
    assert_eq!(u32s(&args[0]), want);
    assert_eq!(bits(&args[1]), vec![0xFFFF_FFFF, 0xFF]);
    assert_eq!(stats.lane_instructions, 40 * b.f.walk_insts().len() as u64);
}

#[test]
fn program_of_two_launches_shares_buffers() {
    let mut m = Module::default();
    let mut b = B::new("square", [16, 1, 1], GridPolicy::Cover(1));
    let out = b.buf("out", ScalarType::U32);
    b.param("n", U32);
    let g = b.gid();
    let sq = b.bin(Opcode::Mul, g, g);
    b.store_at(out, g, sq);
    b.ret();
    m.kernels.push(b.f);
    let mut b = B::new("plus", [16, 1, 1], GridPolicy::Fixed([2, 1, 1]));
    let src = b.buf("src", ScalarType::U32);
    let dst = b.buf("dst", ScalarType::U32);
    let k = b.param("k", U32);
    let g = b.gid();
    let v = b.load_at(src, g);
    let v = b.bin(Opcode::Add, v, k);
    b.store_at(dst, g, v);
    b.ret();
    m.kernels.push(b.f);
    let p = Program {
        name: "prog".into(),
        status: None,
        checks: vec![],
        params: vec![
            ProgramParam { name: "a".into(), ty: Type::Ptr(AddrSpace::Global, ScalarType::U32) },
            ProgramParam { name: "b".into(), ty: Type::Ptr(AddrSpace::Global, ScalarType::U32) },
            ProgramParam { name: "n".into(), ty: U32 },
        ],
        launches: vec![
            ProgLaunch { kernel: "square".into(), args: vec![LaunchArg::Param(0), LaunchArg::Param(2)] },
            ProgLaunch {
                kernel: "plus".into(),
                args: vec![LaunchArg::Param(0), LaunchArg::Param(1), LaunchArg::Const(ScalarType::U32, 7)],
            },
        ],
    };
    let mut args = vec![zeros(ScalarType::U32, 32), zeros(ScalarType::U32, 32), ArgValue::Scalar(ScalarType::U32, 32)];
    let stats = run_program(&m, &p, &cfg(8), &mut args).unwrap();
    assert_eq!(u32s(&args[0]), (0..32).map(|i| i * i).collect::<Vec<u32>>());
    assert_eq!(u32s(&args[1]), (0..32).map(|i| i * i + 7).collect::<Vec<u32>>());
    assert_eq!(stats.blocks, 4);
    // Errors name the program, the launch and the kernel.
    let mut bad = p.clone();
    bad.launches[1].args[2] = LaunchArg::Const(ScalarType::I32, 7);
    let e = run_program(&m, &bad, &cfg(8), &mut args).unwrap_err();
    assert_eq!(
        e.to_string(),
        "program @prog, launch 1: kernel @plus: argument 2 (%k): expected a u32 scalar, got a i32 scalar"
    );
    let mut small = vec![zeros(ScalarType::U32, 32), zeros(ScalarType::U32, 31), ArgValue::Scalar(ScalarType::U32, 32)];
    let e = run_program(&m, &p, &cfg(8), &mut small).unwrap_err();
    assert!(e.to_string().starts_with("program @prog, launch 1: kernel @plus: out of bounds: index 31 of %dst"), "{e}");
    let e = run_program(&m, &p, &RunConfig { block: Some([8, 1, 1]), ..cfg(8) }, &mut args).unwrap_err();
    assert!(e.message.contains("kernels only"));
}

#[test]
fn step_limit_faults() {
    let mut b = B::new("spin", [4, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let z = b.u(0);
    b.loop_(&[z], &[], |b, p| {
        let one = b.u(1);
        let n = b.bin(Opcode::Add, p[0], one);
        b.term(Opcode::Continue, &[n]);
    });
    b.ret();
    let cfg = RunConfig { step_limit: Some(1000), ..cfg(4) };
    let e = run_kernel(&b.f, &cfg, &mut []).unwrap_err();
    assert!(e.to_string().starts_with("kernel @spin: step limit of 1000 lane-instructions exceeded in `"), "{e}");
}

#[test]
fn collectives_at_several_widths() {
    for w in [1u32, 2, 8, 32, 64] {
        let mut b = B::new("coll", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
        let out = b.buf("out", ScalarType::U32);
        let t = b.dim(Opcode::ThreadId, Dim::X);
        let one = b.u(1);
        let x = b.op(Opcode::ShuffleXor, Imm::None, &[t, one], U32);
        let scan = b.op(
            Opcode::SubgroupScan,
            Imm::Group { op: GroupOp::Add, tile: Tile::Full, inclusive: false },
            &[one],
            U32,
        );
        let k = b.u(1000);
        let xs = b.bin(Opcode::Mul, x, k);
        let v = b.bin(Opcode::Add, xs, scan);
        b.store_at(out, t, v);
        b.ret();
        let mut args = vec![zeros(ScalarType::U32, 64)];
        run_kernel(&b.f, &cfg(w), &mut args).unwrap();
        let want: Vec<u32> = (0..64u32).map(|t| (if w == 1 { t } else { t ^ 1 }) * 1000 + t % w).collect();
        assert_eq!(u32s(&args[0]), want, "w={w}");
    }
}

#[test]
fn malformed_kernels_are_errors_not_panics() {
    // An operand-count error and a dangling value handle.
    let mut b = B::new("bad", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let a = b.u(1);
    b.op(Opcode::Add, Imm::None, &[a], U32);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert!(e.message.contains("malformed kernel: `add` takes 2 operand(s), has 1"), "{e}");
    let mut b = B::new("bad2", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let a = b.u(1);
    let pt = b.op(Opcode::Add, Imm::None, &[a, a], Type::Ptr(AddrSpace::Global, ScalarType::U32));
    let _ = b.load(pt);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert!(e.message.contains("expected a scalar"), "{e}");
    // A load through a non-pointer value.
    let mut b = B::new("bad3", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let a = b.u(1);
    b.op(Opcode::Load, Imm::None, &[a], U32);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert!(e.message.contains("expected a pointer"), "{e}");
    // A bogus tile.
    let mut b = B::new("bad4", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let a = b.c(ScalarType::Bool, 1);
    b.op(Opcode::VoteAll, Imm::Tile(Tile::Log2(200)), &[a], Type::BOOL);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert!(e.message.contains("invalid tile"), "{e}");
    // Operand types that disagree with the result type.
    let mut b = B::new("bad7", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let a = b.u(1);
    let x = b.c(ScalarType::F32, 0);
    b.op(Opcode::Add, Imm::None, &[a, x], U32);
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel @bad7: type mismatch: expected u32, found f32 in `%2 = add %0, %1 : u32` (block (0,0,0), subgroup 0)"
    );
    // A loop body ending in `yield`, and an `if` arm without a terminator.
    let mut b = B::new("bad5", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    b.loop_(&[], &[], |b, _| b.term(Opcode::Yield, &[]));
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert_eq!(e.to_string(), "kernel @bad5: `yield` outside an `if` arm in `yield` (block (0,0,0), subgroup 0)");
    let mut b = B::new("bad6", [1, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let t = b.c(ScalarType::Bool, 1);
    b.if_(t, &[], |_| {}, |b| b.term(Opcode::Yield, &[]));
    b.ret();
    let e = run_kernel(&b.f, &cfg(32), &mut []).unwrap_err();
    assert_eq!(e.to_string(), "kernel @bad6: region ends without a terminator in `if %0` (block (0,0,0), subgroup 0)");
}

/// Throughput of straight-line arithmetic (run with
/// `cargo test --release -p qd-mir --lib interp::tests::throughput -- --ignored --nocapture`).
#[test]
#[ignore]
fn throughput() {
    let mut b = B::new("alu", [256, 1, 1], GridPolicy::Fixed([256, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let g = b.gid();
    let k = b.u(0x9E37_79B9);
    let s = b.u(7);
    let mut x = g;
    for _ in 0..50 {
        let m = b.bin(Opcode::Mul, x, k);
        let a = b.bin(Opcode::Add, m, g);
        let h = b.bin(Opcode::Shr, a, s);
        x = b.bin(Opcode::Xor, a, h);
    }
    b.store_at(out, g, x);
    b.ret();
    for w in [32u32, 64, 8] {
        let mut args = vec![zeros(ScalarType::U32, 256 * 256)];
        let t0 = std::time::Instant::now();
        let stats = run_kernel(&b.f, &RunConfig { subgroup_size: w, ..RunConfig::default() }, &mut args).unwrap();
        let dt = t0.elapsed().as_secs_f64();
        println!(
            "W={w}: {} lane-instructions in {:.3} s = {:.1} M lane-instructions/s",
            stats.lane_instructions,
            dt,
            stats.lane_instructions as f64 / dt / 1e6
        );
    }
}

/// Multi-dimensional blocks and grids: thread ids x fastest, subgroups over the linear index,
/// blocks in linear order.
#[test]
fn multi_dimensional_ids() {
    let mut b = B::new("dims", [4, 2, 2], GridPolicy::Fixed([2, 2, 1]));
    let out = b.buf("out", ScalarType::U32);
    let order = b.buf("order", ScalarType::U32);
    let mut acc = b.u(0);
    let mut scale = 1;
    for (op, d) in [
        (Opcode::ThreadId, Dim::X),
        (Opcode::ThreadId, Dim::Y),
        (Opcode::ThreadId, Dim::Z),
        (Opcode::BlockId, Dim::X),
        (Opcode::BlockId, Dim::Y),
    ] {
        let v = b.dim(op, d);
        let k = b.u(scale);
        let m = b.bin(Opcode::Mul, v, k);
        acc = b.bin(Opcode::Add, acc, m);
        scale *= 10;
    }
    let sg = b.nullary(Opcode::SubgroupId);
    let lane = b.nullary(Opcode::LaneId);
    let size = b.nullary(Opcode::SubgroupSize);
    let k = b.u(100_000);
    let m = b.bin(Opcode::Mul, sg, k);
    acc = b.bin(Opcode::Add, acc, m);
    // linear global index = ((bid.y * 2 + bid.x) * 16) + linear thread = sg * size + lane
    let bx = b.dim(Opcode::BlockId, Dim::X);
    let by = b.dim(Opcode::BlockId, Dim::Y);
    let gx = b.dim(Opcode::GridDim, Dim::X);
    let bl = b.bin(Opcode::Mul, by, gx);
    let bl = b.bin(Opcode::Add, bl, bx);
    let sixteen = b.u(16);
    let base = b.bin(Opcode::Mul, bl, sixteen);
    let lin = b.bin(Opcode::Mul, sg, size);
    let lin = b.bin(Opcode::Add, lin, lane);
    let idx = b.bin(Opcode::Add, base, lin);
    b.store_at(out, idx, acc);
    // A counter records the order in which threads run.
    let z = b.u(0);
    let one = b.u(1);
    let p = b.at(order, z);
    let n = b.op(Opcode::AtomicRmw, Imm::Atomic(AtomicOp::Add, Scope::Device), &[p, one], U32);
    let n1 = b.bin(Opcode::Add, n, one);
    let q = b.bin(Opcode::Add, idx, one);
    b.store_at(order, q, n1);
    b.ret();
    let mut args = vec![zeros(ScalarType::U32, 64), zeros(ScalarType::U32, 65)];
    run_kernel(&b.f, &cfg(4), &mut args).unwrap();
    let want: Vec<u32> = (0..64u32)
        .map(|g| {
            let (blk, t) = (g / 16, g % 16);
            t % 4 + 10 * (t / 4 % 2) + 100 * (t / 8) + 1000 * (blk % 2) + 10_000 * (blk / 2) + 100_000 * (t / 4)
        })
        .collect();
    assert_eq!(u32s(&args[0]), want);
    assert_eq!(u32s(&args[1]), std::iter::once(64).chain(1..=64).collect::<Vec<u32>>());
}

/// A kernel built for one subgroup width refuses to run at another, and `fold` uses its width.
#[test]
fn kernel_built_for_a_width_runs_only_at_that_width() {
    let mut b = B::new("w", [64, 1, 1], GridPolicy::Fixed([1, 1, 1]));
    let out = b.buf("out", ScalarType::U32);
    let g = b.gid();
    let w = b.op(Opcode::SubgroupSize, Imm::None, &[], Type::U32);
    b.store_at(out, g, w);
    b.ret();
    b.f.launch.subgroup_size = Some(16);
    let mut args = vec![zeros(ScalarType::U32, 64)];
    run_kernel(&b.f, &cfg(16), &mut args).unwrap();
    assert_eq!(u32s(&args[0]), vec![16; 64]);
    let e = run_kernel(&b.f, &cfg(32), &mut args).unwrap_err();
    assert!(e.to_string().contains("built for subgroup(16) and cannot run at subgroup width 32"), "{e}");
    let mut folded = b.f.clone();
    crate::passes::fold::run(&mut folded, &crate::passes::PassOptions::default());
    let text = crate::text::print_function(&folded);
    assert!(text.contains("const 16 : u32") && !text.contains("subgroup_size"), "{text}");
}
