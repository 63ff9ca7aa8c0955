//! Structured control flow: `if_then`, `if_then_else`, `loop_`, `for_range`, `parallel_for`,
//! `break_`, `continue_` and `return_`.
//!
//! Each construct pushes a frame for its region, runs the user's closure, and pops the frame
//! again whatever the closure returned, so the region stack is balanced after every call — an
//! error inside a closure abandons that construct (its regions are never attached to the body)
//! and leaves the builder usable. Variables flowing in and out are handled by [`crate::ssa`].
//!
//! `for_range` emits exactly the shape the unroll pass matches:
//!
//! ```text
//! loop (%i: u32 = %start, <carried vars…>) -> (<var results…>) {
//!   %c = cmp ge %i, %end : bool
//!   if %c { break <carried vars…> }
//!   …body…
//!   %n = add %i, %step : u32
//!   continue %n, <carried vars…>
//! }
//! ```
//!
//! and a `continue_` inside its body increments the induction variable the same way.

use crate::builder::{FrameKind, Induction, KernelBuilder, Val};
use crate::error::{BuildError, ErrorKind, Loc};
use qd_mir::{CmpCond, Dim, GridPolicy, Imm, Opcode, ScalarType, Type, Value};
use std::panic::Location;

/// The closure type of a region body.
type NoElse<'c> = fn(&mut KernelBuilder<'c>) -> Result<(), BuildError>;

impl<'c> KernelBuilder<'c> {
    /// `if cond { then }`: variables assigned in `then` flow out as `if` results.
    #[track_caller]
    pub fn if_then<T>(&mut self, cond: Val, then: T) -> Result<(), BuildError>
    where
        T: FnOnce(&mut Self) -> Result<(), BuildError>,
    {
        let loc = Location::caller();
        self.if_impl(loc, cond, then, None::<NoElse<'c>>)
    }

    /// `if cond { then } else { els }`: variables assigned in either arm become `if` results.
    #[track_caller]
    pub fn if_then_else<T, E>(&mut self, cond: Val, then: T, els: E) -> Result<(), BuildError>
    where
        T: FnOnce(&mut Self) -> Result<(), BuildError>,
        E: FnOnce(&mut Self) -> Result<(), BuildError>,
    {
        let loc = Location::caller();
        self.if_impl(loc, cond, then, Some(els))
    }

    fn if_impl<T, E>(&mut self, loc: Loc, cond: Val, then: T, els: Option<E>) -> Result<(), BuildError>
    where
        T: FnOnce(&mut Self) -> Result<(), BuildError>,
        E: FnOnce(&mut Self) -> Result<(), BuildError>,
    {
        self.typed(loc, Opcode::If, Imm::None, &[cond], None)?;
        self.check_open(loc, "if")?;
        let s0 = self.ctx.arm_defs.len();
        let arms = self.build_arm(then).and_then(|(then_r, then_open)| {
            let s1 = self.ctx.arm_defs.len();
            let (else_r, else_open) = match els {
                Some(f) => self.build_arm(f).map(|(r, open)| (Some(r), open))?,
                None => (None, true),
            };
            Ok((then_r, then_open, s1, else_r, else_open))
        });
        let res = arms.and_then(|(then_r, then_open, s1, else_r, else_open)| {
            self.finish_if(loc, cond.value, then_r, then_open, else_r, else_open, s0, s1)
        });
        self.ctx.arm_defs.truncate(s0);
        res
    }

    /// Builds one `if` arm in a new region; returns it and whether it ended open.
    fn build_arm<F>(&mut self, f: F) -> Result<(qd_mir::Region, bool), BuildError>
    where
        F: FnOnce(&mut Self) -> Result<(), BuildError>,
    {
        let r = self.func.make_region();
        self.push_frame(r, FrameKind::Arm);
        let d = self.depth();
        let res = f(self);
        self.pop_to(d);
        let open = !self.top().terminated;
        if res.is_ok() && open {
            self.collect_arm_defs(d);
        }
        self.pop_frame();
        res.map(|()| (r, open))
    }

    /// Pops frames above depth `d` (closures cannot leave any; this keeps the stack balanced).
    fn pop_to(&mut self, d: usize) {
        while self.depth() > d {
            self.pop_frame();
        }
    }

    /// `loop { body }`: the body runs until a `break_`; reaching its end continues.
    #[track_caller]
    pub fn loop_<F>(&mut self, body: F) -> Result<(), BuildError>
    where
        F: FnOnce(&mut Self) -> Result<(), BuildError>,
    {
        let loc = Location::caller();
        self.check_open(loc, "loop")?;
        let r = self.func.make_region();
        self.push_frame(r, FrameKind::Loop(None));
        let d = self.depth();
        let res = body(self);
        self.pop_to(d);
        self.end_loop(loc, res)
    }

    /// Closes the loop body on top of the stack: implicit `continue`, then [`Self::finish_loop`].
    fn end_loop(&mut self, loc: Loc, res: Result<(), BuildError>) -> Result<(), BuildError> {
        let res = res.and_then(|()| if self.top().terminated { Ok(()) } else { self.exit_impl(loc, false) });
        match res {
            Ok(()) => self.finish_loop(loc),
            Err(e) => {
                self.pop_frame();
                Err(e)
            }
        }
    }

    /// `for i in (start..end).step_by(step)` over an integer type (`step` defaults to 1): the loop
    /// ends when `i >= end` (signed for `i32`/`i64`).
    #[track_caller]
    pub fn for_range<F>(&mut self, start: Val, end: Val, step: Option<Val>, body: F) -> Result<(), BuildError>
    where
        F: FnOnce(&mut Self, Val) -> Result<(), BuildError>,
    {
        let loc = Location::caller();
        self.check_val(loc, "for_range", start)?;
        self.check_val(loc, "for_range", end)?;
        let ty = match start.ty.scalar() {
            Some(s) if s.is_int() && end.ty == start.ty => s,
            _ => {
                return Err(BuildError::new(
                    loc,
                    ErrorKind::TypeMismatch,
                    format!(
                        "for_range: start and end must have the same integer type, got {} and {}",
                        start.ty, end.ty
                    ),
                ))
            }
        };
        let step = match step {
            Some(s) => {
                self.check_val(loc, "for_range", s)?;
                if s.ty != start.ty {
                    return Err(BuildError::new(
                        loc,
                        ErrorKind::TypeMismatch,
                        format!("for_range: step has type {} but the range is {}", s.ty, start.ty),
                    ));
                }
                s.value
            }
            None => {
                self.check_open(loc, "for_range")?;
                self.const_bits(loc, ty, 1)?.value
            }
        };
        self.range_loop(loc, start.value, end.value, step, ty, body)
    }

    /// Emits a `for_range`-shaped loop (after the operands were checked).
    fn range_loop<F>(
        &mut self,
        loc: Loc,
        start: Value,
        end: Value,
        step: Value,
        ty: ScalarType,
        body: F,
    ) -> Result<(), BuildError>
    where
        F: FnOnce(&mut Self, Val) -> Result<(), BuildError>,
    {
        self.check_open(loc, "for_range")?;
        let r = self.func.make_region();
        let param = self.func.add_region_param(r, Type::Scalar(ty));
        self.ctx.value_region[param] = r.into();
        self.push_frame(r, FrameKind::Loop(Some(Induction { param, start, step, ty })));
        let d = self.depth();
        let head = self.emit_val(loc, Opcode::Cmp, Imm::Cond(CmpCond::Ge), &[param, end], Type::BOOL);
        let res = head
            .and_then(|c| self.if_impl(loc, c, |b: &mut Self| b.exit_impl(loc, true), None::<NoElse<'c>>))
            .and_then(|()| {
                let i = self.val(param);
                body(self, i)
            });
        self.pop_to(d);
        self.end_loop(loc, res)
    }

    /// Quadrants' grid-stride range-for: `i = thread_id.x + block_dim.x * block_id.x;
    /// while i < n { body(i); i += block_dim.x * grid_dim.x }`, emitted as a `for_range` loop.
    /// Sets the grid policy to `cover n` if `n` is a scalar kernel parameter, else saturating.
    #[track_caller]
    pub fn parallel_for<F>(&mut self, n: Val, body: F) -> Result<(), BuildError>
    where
        F: FnOnce(&mut Self, Val) -> Result<(), BuildError>,
    {
        let loc = Location::caller();
        self.check_val(loc, "parallel_for", n)?;
        let ty = match n.ty.scalar() {
            Some(s) if s.is_int() => s,
            _ => {
                return Err(BuildError::new(
                    loc,
                    ErrorKind::TypeMismatch,
                    format!("parallel_for: the count must be an integer, got {}", n.ty),
                ))
            }
        };
        self.check_open(loc, "parallel_for")?;
        let u32t = Type::U32;
        let tid = self.emit_val(loc, Opcode::ThreadId, Imm::Dim(Dim::X), &[], u32t)?;
        let bdim = self.emit_val(loc, Opcode::BlockDim, Imm::Dim(Dim::X), &[], u32t)?;
        let bid = self.emit_val(loc, Opcode::BlockId, Imm::Dim(Dim::X), &[], u32t)?;
        let base = self.emit_val(loc, Opcode::Mul, Imm::None, &[bdim.value, bid.value], u32t)?;
        let mut start = self.emit_val(loc, Opcode::Add, Imm::None, &[tid.value, base.value], u32t)?;
        let gdim = self.emit_val(loc, Opcode::GridDim, Imm::Dim(Dim::X), &[], u32t)?;
        let mut stride = self.emit_val(loc, Opcode::Mul, Imm::None, &[bdim.value, gdim.value], u32t)?;
        if ty != ScalarType::U32 {
            start = self.emit_val(loc, Opcode::Cast, Imm::None, &[start.value], n.ty)?;
            stride = self.emit_val(loc, Opcode::Cast, Imm::None, &[stride.value], n.ty)?;
        }
        self.func.launch.grid = match self.scalar_param_index(n) {
            Some(i) => GridPolicy::Cover(i),
            None => GridPolicy::Saturating,
        };
        self.range_loop(loc, start.value, n.value, stride.value, ty, body)
    }

    /// Leaves the innermost loop; variables carry their current values out.
    #[track_caller]
    pub fn break_(&mut self) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.exit_impl(loc, true)
    }

    /// Starts the next iteration of the innermost loop (a `for_range` first increments its
    /// induction variable).
    #[track_caller]
    pub fn continue_(&mut self) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.exit_impl(loc, false)
    }

    fn exit_impl(&mut self, loc: Loc, is_break: bool) -> Result<(), BuildError> {
        let name = if is_break { "break" } else { "continue" };
        let Some(l) = self.ctx.frames.iter().rposition(|f| matches!(f.kind, FrameKind::Loop(_))) else {
            return Err(BuildError::new(loc, ErrorKind::NotInLoop, format!("{name}: not inside a loop")));
        };
        self.check_open(loc, name)?;
        let next = match self.ctx.frames[l].kind {
            FrameKind::Loop(Some(ind)) if !is_break => {
                Some(self.emit_val(loc, Opcode::Add, Imm::None, &[ind.param, ind.step], Type::Scalar(ind.ty))?.value)
            }
            _ => None,
        };
        let op = if is_break { Opcode::Break } else { Opcode::Continue };
        let inst = self.emit_inst(loc, op, Imm::None, &[], None)?;
        self.record_exit(l, inst, is_break, next);
        self.set_terminated();
        Ok(())
    }

    /// Ends the thread (`return`).
    #[track_caller]
    pub fn return_(&mut self) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.emit(loc, Opcode::Return, Imm::None, &[], None)?;
        self.set_terminated();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
    use qd_mir::text::print_function;

    #[test]
    fn signed_for_range_with_step_and_break_from_a_nested_arm() -> Result<(), BuildError> {
        // `found` is never assigned on a path that continues, so its parameter is trivial: the
        // normal exit passes the value from before the loop, the inner `break` passes `i`.
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "down");
        let out = b.buffer("out", ScalarType::I32);
        let found = b.declare_named_var("found", ScalarType::I32);
        let (start, end, step) = (b.const_i32(-8)?, b.const_i32(8)?, b.const_i32(2)?);
        let none = b.const_i32(-1)?;
        b.def_var(found, none)?;
        b.for_range(start, end, Some(step), |b, i| {
            let x = b.load(out, i)?;
            let zero = b.const_i32(0)?;
            let neg = b.lt(x, zero)?;
            b.if_then(neg, |b| {
                let big = b.lt(x, start)?;
                b.if_then(big, |b| {
                    b.def_var(found, i)?;
                    b.break_()
                })
            })
        })?;
        let r = b.use_var(found)?;
        b.store(out, start, r)?;
        let f = b.finish()?;
        assert_eq!(
            print_function(&f),
            "\
kernel @down(%out: ptr<global, i32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const -8 : i32
  %1 = const 8 : i32
  %2 = const 2 : i32
  %3 = const -1 : i32
  %4 = loop (%5: i32 = %0) -> (i32) {
    %6 = cmp ge %5, %1 : bool
    if %6 {
      break %3
    }
    %7 = ptr.offset %out, %5 : ptr<global, i32>
    %8 = load %7 : i32
    %9 = const 0 : i32
    %10 = cmp lt %8, %9 : bool
    if %10 {
      %11 = cmp lt %8, %0 : bool
      if %11 {
        break %5
      }
      yield
    }
    %12 = add %5, %2 : i32
    continue %12
  }
  %13 = ptr.offset %out, %0 : ptr<global, i32>
  store %13, %4
  return
}
"
        );
        Ok(())
    }
}
