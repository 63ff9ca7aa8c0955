//! Test-only function builder for the pass tests (no parser is available to the passes'
//! worktree, so tests build MIR through the `Function` API) and small inspection helpers.

use crate::entities::{Region, Value};
use crate::function::Function;
use crate::inst::{Imm, Tile};
use crate::ops::{CmpCond, GroupOp, Opcode};
use crate::text::print_function;
use crate::types::{ScalarType, Type};

/// A boxed arm builder.
pub type Arm<'a> = Box<dyn FnOnce(&mut B) + 'a>;

/// Builds a function region by region; `cur` is the region instructions are appended to.
pub struct B {
    pub f: Function,
    cur: Vec<Region>,
}

impl B {
    pub fn new() -> B {
        let f = Function::new("k");
        let body = f.body;
        B { f, cur: vec![body] }
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Value {
        self.f.add_param(name, ty, false)
    }

    fn region(&self) -> Region {
        *self.cur.last().expect("builder region stack")
    }

    pub fn inst(&mut self, op: Opcode, imm: Imm, args: &[Value], tys: &[Type]) -> Vec<Value> {
        let i = self.f.make_inst(op, imm, args, tys);
        let r = self.region();
        self.f.append_inst(r, i);
        self.f.inst_results(i).to_vec()
    }

    pub fn op(&mut self, op: Opcode, imm: Imm, args: &[Value], ty: Type) -> Value {
        self.inst(op, imm, args, &[ty])[0]
    }

    pub fn k(&mut self, ty: ScalarType, bits: u64) -> Value {
        self.op(Opcode::Const, Imm::Const(crate::eval::canon(ty, bits)), &[], ty.into())
    }

    pub fn u32(&mut self, x: u32) -> Value {
        self.k(ScalarType::U32, u64::from(x))
    }

    pub fn f32(&mut self, x: f32) -> Value {
        self.k(ScalarType::F32, u64::from(x.to_bits()))
    }

    pub fn bin(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.op(op, Imm::None, &[a, b], ty)
    }

    pub fn un(&mut self, op: Opcode, a: Value) -> Value {
        let ty = self.f.value_type(a);
        self.op(op, Imm::None, &[a], ty)
    }

    pub fn cmp(&mut self, c: CmpCond, a: Value, b: Value) -> Value {
        self.op(Opcode::Cmp, Imm::Cond(c), &[a, b], Type::BOOL)
    }

    pub fn group(&mut self, op: Opcode, g: GroupOp, tile: Tile, inclusive: bool, args: &[Value]) -> Value {
        let ty = self.f.value_type(args[0]);
        self.op(op, Imm::Group { op: g, tile, inclusive }, args, ty)
    }

    pub fn load(&mut self, p: Value) -> Value {
        let ty = self.f.value_type(p).pointer().map(|(_, s)| Type::from(s)).unwrap_or(Type::U32);
        self.op(Opcode::Load, Imm::None, &[p], ty)
    }

    pub fn store(&mut self, p: Value, v: Value) {
        self.inst(Opcode::Store, Imm::None, &[p, v], &[]);
    }

    pub fn term(&mut self, op: Opcode, args: &[Value]) {
        self.inst(op, Imm::None, args, &[]);
    }

    /// `if cond -> tys { then } else { els }`; `els: None` leaves the else arm absent.
    pub fn if_(&mut self, cond: Value, tys: &[Type], then: impl FnOnce(&mut B), els: Option<Arm<'_>>) -> Vec<Value> {
        let i = self.f.make_inst(Opcode::If, Imm::None, &[cond], tys);
        let r = self.region();
        self.f.append_inst(r, i);
        let t = self.f.make_region();
        self.cur.push(t);
        then(self);
        self.cur.pop();
        let e = els.map(|g| {
            let e = self.f.make_region();
            self.cur.push(e);
            g(self);
            self.cur.pop();
            e
        });
        self.f.set_inst_regions(i, Some(t), e);
        self.f.inst_results(i).to_vec()
    }

    /// `loop (params = inits) -> tys { body(params) }`.
    pub fn loop_(&mut self, inits: &[Value], tys: &[Type], body: impl FnOnce(&mut B, &[Value])) -> Vec<Value> {
        let i = self.f.make_inst(Opcode::Loop, Imm::None, inits, tys);
        let r = self.region();
        self.f.append_inst(r, i);
        let b = self.f.make_region();
        let params: Vec<Value> = inits
            .iter()
            .map(|&v| {
                let ty = self.f.value_type(v);
                self.f.add_region_param(b, ty)
            })
            .collect();
        self.f.set_inst_regions(i, Some(b), None);
        self.cur.push(b);
        body(self, &params);
        self.cur.pop();
        self.f.inst_results(i).to_vec()
    }

    /// Stores `v` to `out[0]` where `out` is a fresh `ptr<global, T>` parameter.
    pub fn sink(&mut self, v: Value) {
        let ty = self.f.value_type(v).scalar().unwrap_or(ScalarType::U32);
        let p = self.f.add_param(format!("out{}", self.f.params.len()), Type::Ptr(crate::AddrSpace::Global, ty), false);
        self.store(p, v);
    }

    pub fn print(&self) -> String {
        print_function(&self.f)
    }
}

/// Number of reachable instructions with the given opcode.
pub fn count(f: &Function, op: Opcode) -> usize {
    f.walk_insts().into_iter().filter(|&i| f.insts[i].opcode == op).count()
}

/// The constant stored by the `n`-th reachable `store` (its value operand must be a `const`).
pub fn stored_const(f: &Function, n: usize) -> Option<u64> {
    let st = f.walk_insts().into_iter().filter(|&i| f.insts[i].opcode == Opcode::Store).nth(n)?;
    let v = *f.args(st).get(1)?;
    super::rewrite::const_of(f, v).map(|(_, b)| b)
}
