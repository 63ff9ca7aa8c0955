//! [`ProgramBuilder`]: an ordered list of kernel launches over shared buffer and scalar
//! parameters (Quadrants' top-level phases), finished into a [`Module`] that holds the program
//! and every kernel it launches.
//!
//! Launches are checked eagerly: the kernel must be known (passed as a [`Function`], or added by
//! [`ProgramBuilder::add_kernel`] and named), the argument count must match its parameters, and
//! each argument's type must equal the parameter's (`ptr<global, T>` buffers, scalars; constants
//! only for scalar parameters). Two different kernels with one name are an error.

use crate::builder::{fresh_id, valid_name};
use crate::error::{BuildError, ErrorKind, Loc};
use qd_mir::eval::{bits_f32, bits_f64, canon};
use qd_mir::text::print_function;
use qd_mir::{
    AddrSpace, Function, Launch, LaunchArg, Module, Program, ProgramCheck, ProgramParam, ProgramStatus, ScalarType,
    Type,
};
use std::panic::Location;

/// An argument of a launch: a program parameter or a scalar constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProgramArg {
    kind: ArgKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum ArgKind {
    Param { index: u16, ty: Type, builder: u32 },
    Const(ScalarType, u64),
    Status { builder: u32 },
}

impl ProgramArg {
    /// A scalar constant from raw bits (canonicalised for `ty`).
    pub fn constant(ty: ScalarType, bits: u64) -> ProgramArg {
        ProgramArg { kind: ArgKind::Const(ty, canon(ty, bits)) }
    }
    /// A `u32` constant.
    pub fn u32(x: u32) -> ProgramArg {
        ProgramArg::constant(ScalarType::U32, u64::from(x))
    }
    /// An `i32` constant.
    pub fn i32(x: i32) -> ProgramArg {
        ProgramArg::constant(ScalarType::I32, u64::from(x as u32))
    }
    /// A `u64` constant.
    pub fn u64(x: u64) -> ProgramArg {
        ProgramArg::constant(ScalarType::U64, x)
    }
    /// An `i64` constant.
    pub fn i64(x: i64) -> ProgramArg {
        ProgramArg::constant(ScalarType::I64, x as u64)
    }
    /// An `f32` constant.
    pub fn f32(x: f32) -> ProgramArg {
        ProgramArg::constant(ScalarType::F32, bits_f32(x))
    }
    /// An `f64` constant.
    pub fn f64(x: f64) -> ProgramArg {
        ProgramArg::constant(ScalarType::F64, bits_f64(x))
    }
    /// A `bool` constant.
    pub fn bool(x: bool) -> ProgramArg {
        ProgramArg::constant(ScalarType::Bool, u64::from(x))
    }
    /// The argument's type.
    pub fn ty(self) -> Type {
        match self.kind {
            ArgKind::Param { ty, .. } => ty,
            ArgKind::Const(s, _) => Type::Scalar(s),
            ArgKind::Status { .. } => Type::Ptr(AddrSpace::Global, ScalarType::U32),
        }
    }
}

/// Which kernel a launch names.
#[derive(Copy, Clone, Debug)]
pub enum KernelRef<'a> {
    /// A kernel by value: added to the module (once per name).
    Function(&'a Function),
    /// A kernel added before with [`ProgramBuilder::add_kernel`] (or launched by value before).
    Name(&'a str),
}

impl<'a> From<&'a Function> for KernelRef<'a> {
    fn from(f: &'a Function) -> KernelRef<'a> {
        KernelRef::Function(f)
    }
}

impl<'a> From<&'a str> for KernelRef<'a> {
    fn from(s: &'a str) -> KernelRef<'a> {
        KernelRef::Name(s)
    }
}

/// Builds a [`Program`] and collects its kernels into a [`Module`].
#[derive(Debug)]
pub struct ProgramBuilder {
    program: Program,
    kernels: Vec<Function>,
    id: u32,
    deferred: Option<BuildError>,
}

impl ProgramBuilder {
    /// Starts a program named `name` (an invalid name is reported by `finish`, located here).
    #[track_caller]
    pub fn new(name: &str) -> ProgramBuilder {
        let loc = Location::caller();
        let mut b = ProgramBuilder { program: Program::new(name), kernels: Vec::new(), id: fresh_id(), deferred: None };
        if !valid_name(name) {
            b.deferred = Some(BuildError::new(
                loc,
                ErrorKind::Config,
                format!("program name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        b
    }

    fn param(&mut self, loc: Loc, what: &str, name: &str, ty: Type) -> ProgramArg {
        let bad = if !valid_name(name) {
            Some(format!("{what}: name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"))
        } else if self.program.param_index(name).is_some() {
            Some(format!("{what}: program @{} already has a parameter %{name}", self.program.name))
        } else {
            None
        };
        if let (Some(m), None) = (bad, &self.deferred) {
            self.deferred = Some(BuildError::new(loc, ErrorKind::Config, m));
        }
        let index = self.program.params.len() as u16;
        self.program.params.push(ProgramParam { name: name.to_string(), ty });
        ProgramArg { kind: ArgKind::Param { index, ty, builder: self.id } }
    }

    /// Declares a buffer parameter `%name: ptr<global, elem>`.
    #[track_caller]
    pub fn buffer(&mut self, name: &str, elem: ScalarType) -> ProgramArg {
        self.param(Location::caller(), "buffer", name, Type::Ptr(AddrSpace::Global, elem))
    }

    /// Declares a scalar parameter `%name: ty`.
    #[track_caller]
    pub fn scalar(&mut self, name: &str, ty: ScalarType) -> ProgramArg {
        self.param(Location::caller(), "scalar", name, Type::Scalar(ty))
    }

    fn add_kernel_at(&mut self, loc: Loc, f: &Function) -> Result<usize, BuildError> {
        if let Some(i) = self.kernels.iter().position(|k| k.name == f.name) {
            if print_function(&self.kernels[i]) != print_function(f) {
                return Err(BuildError::new(
                    loc,
                    ErrorKind::Program,
                    format!("program @{}: two different kernels are named @{}", self.program.name, f.name),
                ));
            }
            return Ok(i);
        }
        self.kernels.push(f.clone());
        Ok(self.kernels.len() - 1)
    }

    /// Adds a kernel to the module (so launches can name it); adding the same kernel twice is fine.
    #[track_caller]
    pub fn add_kernel(&mut self, f: &Function) -> Result<(), BuildError> {
        self.add_kernel_at(Location::caller(), f).map(|_| ())
    }

    /// Appends a launch of `kernel` with `args` (one per kernel parameter, types equal).
    #[track_caller]
    pub fn launch<'a>(&mut self, kernel: impl Into<KernelRef<'a>>, args: &[ProgramArg]) -> Result<(), BuildError> {
        let loc = Location::caller();
        let k = match kernel.into() {
            KernelRef::Function(f) => self.add_kernel_at(loc, f)?,
            KernelRef::Name(n) => self.kernels.iter().position(|k| k.name == n).ok_or_else(|| {
                BuildError::new(
                    loc,
                    ErrorKind::Program,
                    format!("launch @{n}: no such kernel in program @{} (add it first)", self.program.name),
                )
            })?,
        };
        let f = &self.kernels[k];
        if args.len() != f.params.len() {
            return Err(BuildError::new(
                loc,
                ErrorKind::Program,
                format!("launch @{}: expects {} argument(s), got {}", f.name, f.params.len(), args.len()),
            ));
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, (a, p)) in args.iter().zip(&f.params).enumerate() {
            let bad = |m: String| {
                BuildError::new(loc, ErrorKind::Program, format!("launch @{} argument {i} (%{}): {m}", f.name, p.name))
            };
            match a.kind {
                ArgKind::Param { index, ty, builder } => {
                    if builder != self.id {
                        return Err(bad("the parameter belongs to another program builder".into()));
                    }
                    if ty != p.ty {
                        return Err(bad(format!("expected {}, got program parameter of type {ty}", p.ty)));
                    }
                    out.push(LaunchArg::Param(index));
                }
                ArgKind::Const(s, bits) => {
                    if Type::Scalar(s) != p.ty {
                        return Err(bad(format!("expected {}, got a {s} constant", p.ty)));
                    }
                    out.push(LaunchArg::Const(s, bits));
                }
                ArgKind::Status { builder } => {
                    if builder != self.id {
                        return Err(bad("the status word belongs to another program builder".into()));
                    }
                    if a.ty() != p.ty {
                        return Err(bad(format!("expected {}, got the status word (ptr<global, u32>)", p.ty)));
                    }
                    out.push(LaunchArg::Status);
                }
            }
        }
        let kernel = f.name.clone();
        self.program.launches.push(Launch { kernel, args: out });
        Ok(())
    }

    /// Reserves the next bit of the program's status word for `message` and returns the word (a
    /// `ptr<global, u32>` argument for launches) and the bit's mask. The runtime zeroes the word
    /// before the first launch; a kernel that sets the bit (`atomic.rmw or`) makes the run an
    /// error carrying `message`. The word is named `%qd_status` unless a parameter has that name
    /// (then `%qd_status_1`, …). A program has at most 32 bits.
    #[track_caller]
    pub fn status_bit(&mut self, message: &str) -> Result<(ProgramArg, u32), BuildError> {
        let loc = Location::caller();
        let mut name = "qd_status".to_string();
        let mut k = 0;
        while self.program.param_index(&name).is_some() {
            k += 1;
            name = format!("qd_status_{k}");
        }
        let st = self.program.status.get_or_insert_with(|| ProgramStatus { name, bits: Vec::new() });
        let bit = st.bits.len();
        if bit >= 32 {
            return Err(BuildError::new(
                loc,
                ErrorKind::Program,
                format!("program @{}: the status word has 32 bits, all in use", self.program.name),
            ));
        }
        st.bits.push((bit as u8, message.replace('\n', " ")));
        Ok((ProgramArg { kind: ArgKind::Status { builder: self.id } }, 1u32 << bit))
    }

    fn buffer_index(&self, loc: Loc, what: &str, a: ProgramArg) -> Result<u16, BuildError> {
        match a.kind {
            ArgKind::Param { index, ty: Type::Ptr(AddrSpace::Global, _), builder } if builder == self.id => Ok(index),
            _ => Err(BuildError::new(
                loc,
                ErrorKind::Program,
                format!("{what}: expects a buffer parameter of program @{}", self.program.name),
            )),
        }
    }

    /// Adds a check, made by the runtime before the first launch, that buffer `buf` has at least
    /// `min` elements; `why` says where the bound comes from (`reduce_scratch_slots(1000, 2)`)
    /// and is part of the error.
    #[track_caller]
    pub fn check_len(&mut self, buf: ProgramArg, min: u64, why: &str) -> Result<(), BuildError> {
        let param = self.buffer_index(Location::caller(), "check_len", buf)?;
        self.program.checks.push(ProgramCheck::MinLen { param, min, why: why.replace('\n', " ") });
        Ok(())
    }

    /// Adds a check, made by the runtime before the first launch, that buffers `a` and `b` are
    /// not bound to the same device buffer. Passing one parameter twice is an error here: the
    /// two would always alias.
    #[track_caller]
    pub fn check_distinct(&mut self, a: ProgramArg, b: ProgramArg) -> Result<(), BuildError> {
        let loc = Location::caller();
        let ia = self.buffer_index(loc, "check_distinct", a)?;
        let ib = self.buffer_index(loc, "check_distinct", b)?;
        if ia == ib {
            let name = &self.program.params[usize::from(ia)].name;
            return Err(BuildError::new(
                loc,
                ErrorKind::Program,
                format!(
                    "program @{}: %{name} is passed for two arguments that must be distinct buffers",
                    self.program.name
                ),
            ));
        }
        self.program.checks.push(ProgramCheck::Distinct { a: ia, b: ib });
        Ok(())
    }

    /// The program built so far.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Finishes into a module holding the kernels (in the order they were added) and the program.
    #[track_caller]
    pub fn finish(self) -> Result<Module, BuildError> {
        if let Some(e) = self.deferred {
            return Err(e);
        }
        Ok(Module { kernels: self.kernels, programs: vec![self.program] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FunctionBuilderContext, KernelBuilder};
    use qd_mir::text::print_module;

    fn fill(ctx: &mut FunctionBuilderContext) -> Result<Function, BuildError> {
        let mut b = KernelBuilder::new(ctx, "fill");
        let buf = b.buffer("buf", ScalarType::U32);
        let n = b.scalar("n", ScalarType::U32);
        let v = b.scalar("v", ScalarType::U32);
        b.parallel_for(n, |b, i| b.store(buf, i, v))?;
        b.finish()
    }

    #[test]
    fn two_launches_form_a_module() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let fill = fill(&mut ctx)?;
        let mut p = ProgramBuilder::new("twice");
        let data = p.buffer("data", ScalarType::U32);
        let count = p.scalar("count", ScalarType::U32);
        assert_eq!(data.ty(), Type::Ptr(AddrSpace::Global, ScalarType::U32));
        p.launch(&fill, &[data, count, ProgramArg::u32(7)])?;
        p.launch("fill", &[data, ProgramArg::u32(3), count])?;
        p.add_kernel(&fill)?; // the same kernel again: fine
        assert_eq!(p.program().launches.len(), 2);
        let m = p.finish()?;
        assert_eq!(m.kernels.len(), 1);
        let text = print_module(&m);
        let program = &text[text.find("program").unwrap_or(0)..];
        assert_eq!(
            program,
            "program @twice(%data: ptr<global, u32>, %count: u32) {\n  launch @fill(%data, %count, 7 : u32)\n  \
             launch @fill(%data, 3 : u32, %count)\n}\n"
        );
        assert!(text.starts_with("kernel @fill("));
        Ok(())
    }

    #[test]
    fn status_bits_and_checks() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "flag");
        let st = b.buffer("st", ScalarType::U32);
        let z = b.const_u32(0)?;
        let one = b.const_u32(1)?;
        b.atomic_rmw(qd_mir::AtomicOp::Or, qd_mir::Scope::Device, st, z, one)?;
        let flag = b.finish()?;
        let mut p = ProgramBuilder::new("checked");
        let qd_status = p.buffer("qd_status", ScalarType::U32);
        let other = p.buffer("other", ScalarType::U32);
        let (word, m0) = p.status_bit("first")?;
        let (word2, m1) = p.status_bit("second\nline")?;
        assert_eq!((m0, m1, word), (1, 2, word2));
        p.check_len(qd_status, 4, "four")?;
        p.check_distinct(qd_status, other)?;
        let line = line!() + 1;
        let e = p.check_distinct(other, other).unwrap_err();
        assert_eq!(e.location.line(), line);
        assert!(e.message.contains("%other is passed for two arguments that must be distinct"), "{}", e.message);
        assert!(p.check_len(ProgramArg::u32(1), 1, "x").is_err());
        p.launch(&flag, &[word])?;
        let text = print_module(&p.finish()?);
        let program = &text[text.find("program").unwrap_or(0)..];
        assert_eq!(
            program,
            "program @checked(%qd_status: ptr<global, u32>, %other: ptr<global, u32>) {\n  \
             status %qd_status_1 bit 0 \"first\"\n  status %qd_status_1 bit 1 \"second line\"\n  \
             check len %qd_status >= 4 \"four\"\n  check distinct %qd_status, %other\n  launch @flag(%qd_status_1)\n}\n"
        );
        Ok(())
    }

    #[test]
    fn constants_are_canonical() {
        assert_eq!(ProgramArg::i32(-1), ProgramArg::constant(ScalarType::I32, u64::MAX));
        assert_eq!(ProgramArg::bool(true).ty(), Type::BOOL);
        assert_eq!(ProgramArg::f32(1.0), ProgramArg::constant(ScalarType::F32, 0x3f80_0000));
        assert_eq!(ProgramArg::f64(1.0).ty(), Type::F64);
        assert_eq!(ProgramArg::i64(-1), ProgramArg::constant(ScalarType::I64, u64::MAX));
        assert_eq!(ProgramArg::u64(5).ty(), Type::U64);
    }
}
