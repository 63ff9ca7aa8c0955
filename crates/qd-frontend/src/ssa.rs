//! Variables → SSA through structured regions: Braun et al. 2013 ("Simple and Efficient
//! Construction of Static Single Assignment Form"), adapted to MIR's `if`/`loop` regions.
//!
//! # The algorithm
//!
//! Braun et al. keep, per block, the current definition of every variable, look a use up
//! recursively through the predecessors, create *incomplete* φs in blocks that are not sealed yet
//! (loop headers), and remove *trivial* φs (whose operands are only the φ itself and one other
//! value). MIR has no CFG and no φs: an `if` yields values to its results and a `loop` body has
//! region parameters (fed by the loop's operands and by each `continue`) and results (fed by each
//! `break`). The frontend knows the structure as it builds it, so the adaptation is:
//!
//! * **Current definitions** are scoped per open region. Each frame of the region stack has an
//!   undo log; `def_var` at depth `d` records the shadowed definition and sets
//!   `cur[var] = (value, d)`. Popping a frame replays its log backwards (a scoped symbol table), so
//!   after an arm or a loop body ends, the enclosing region sees its own definitions again.
//! * **Reading** (`use_var`, [`KernelBuilder::read_var`]): take `cur[var] = (v, dd)`. Every loop
//!   frame between depth `dd` and the reading depth is a loop header the value flows through
//!   without a definition inside that loop: there the read creates a region parameter `p` (the
//!   incomplete φ) with incoming value `v`, logs `cur[var] = (p, loop depth)` in that loop's frame,
//!   and continues with `v = p` inward. A variable with no definition at all is an error naming the
//!   variable.
//! * **`if` arms** are the two predecessors of the join. When an arm ends open, the variables it
//!   defined (its undo log) and their final values are collected. At the join, for each variable
//!   defined in either open arm, an arm that did not define it contributes the incoming value (read
//!   at the parent depth — which may itself create loop parameters further out). If every open
//!   arm gives the same value and that value is visible after the `if`, it is simply the new
//!   definition; otherwise it becomes an `if` result yielded by both arms (one arm ending in
//!   `break`/`continue`/`return` yields nothing, and contributes nothing). A variable undefined on
//!   an open path stays undefined after the `if` (a later use is an error).
//! * **Loop exits.** A `break`/`continue` records a *snapshot*: the variables defined inside the
//!   loop up to that point (the undo logs of the loop frame and the arms inside it) with their
//!   current values. A variable absent from a snapshot still has its value at the loop header.
//! * **Finishing a loop** (the body closure returned; an open body gets an implicit `continue`):
//!   1. the loop frame's log is undone, giving the loop-entry view;
//!   2. every variable defined in the loop that some `break` does not define is read at the
//!      header, i.e. gets a parameter now if it had none (Braun: the exit reads the header φ);
//!   3. *trivial parameters* are removed, to a fixpoint: a parameter is trivial when every
//!      `continue` passes either the parameter itself or its incoming value (the variable is never
//!      redefined in the loop). Its uses in the loop body are rewritten to the incoming value and
//!      it disappears from the region's parameter list (Braun's `tryRemoveTrivialPhi`);
//!   4. each `continue` passes, for every remaining parameter, the snapshot value or the
//!      parameter itself; `for_range` loops pass the incremented induction variable first;
//!   5. after the loop a variable defined in the loop has the value it has at the `break`s: if
//!      all `break`s agree on one value visible outside the loop it is just redefined to it,
//!      otherwise it becomes a loop result fed by every `break`. Without any `break` the loop
//!      never ends and nothing is carried out.
//!
//! Loop results and `if` results are created eagerly for every variable assigned inside (a
//! variable that is never read afterwards gives a dead result that DCE can remove); loop
//! parameters are created lazily, as in the paper, and trivial ones never reach the MIR.

use crate::builder::{Carried, Exit, FrameKind, KernelBuilder, Val, Var, VarSlot};
use crate::error::{BuildError, ErrorKind, Loc};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityList, SecondaryMap};
use qd_mir::{Imm, Inst, Opcode, Region, Type, Value, ValueDef};
use std::mem;
use std::panic::Location;

/// Follows trivial-parameter replacements to the final value.
fn resolve(alias: &SecondaryMap<Value, PackedOption<Value>>, mut v: Value) -> Value {
    // Replacements always point to values defined outside the loop of the removed parameter,
    // so chains are acyclic; the bound only guards against a corrupted map.
    for _ in 0..1024 {
        match alias[v].expand() {
            Some(next) => v = next,
            None => break,
        }
    }
    v
}

/// The value a loop exit's snapshot records for `var`.
fn snap_of(snaps: &[(u32, Value)], e: &Exit, var: u32) -> Option<Value> {
    let s = snaps.get(e.snap.0 as usize..e.snap.1 as usize)?;
    s.binary_search_by_key(&var, |&(v, _)| v).ok().map(|i| s[i].1)
}

/// The value a sorted (var, value) list records for `var`.
fn lookup(defs: &[(u32, Value)], var: u32) -> Option<Value> {
    defs.binary_search_by_key(&var, |&(v, _)| v).ok().map(|i| defs[i].1)
}

impl KernelBuilder<'_> {
    /// Declares a variable of type `ty` (a scalar or a pointer type).
    pub fn declare_var(&mut self, ty: impl Into<Type>) -> Var {
        self.declare(ty.into(), None)
    }

    /// Declares a variable with a name used in error messages.
    pub fn declare_named_var(&mut self, name: &str, ty: impl Into<Type>) -> Var {
        self.declare(ty.into(), Some(name.to_string()))
    }

    fn declare(&mut self, ty: Type, name: Option<String>) -> Var {
        let index = self.ctx.vars.len() as u32;
        self.ctx.vars.push(VarSlot { ty, name, cur: None });
        Var { index, ty, builder: self.id }
    }

    /// Assigns `val` to `var` at the current point.
    #[track_caller]
    pub fn def_var(&mut self, var: Var, val: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.check_var(loc, "def_var", var)?;
        self.check_val(loc, "def_var", val)?;
        if val.ty != var.ty {
            return Err(BuildError::new(
                loc,
                ErrorKind::TypeMismatch,
                format!(
                    "def_var: variable {} has type {} but the value has type {}",
                    self.var_name(var.index),
                    var.ty,
                    val.ty
                ),
            ));
        }
        let d = self.depth();
        self.def_at(var.index, val.value, d);
        Ok(())
    }

    /// The value of `var` at the current point (creating loop-carried parameters as needed).
    #[track_caller]
    pub fn use_var(&mut self, var: Var) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.check_var(loc, "use_var", var)?;
        let d = self.depth();
        match self.read_var(var.index, d) {
            Some(v) => Ok(self.val(v)),
            None => Err(BuildError::new(
                loc,
                ErrorKind::UndefinedVar,
                format!(
                    "use_var: variable {} ({}) is used before it is defined on some path to this point",
                    self.var_name(var.index),
                    var.ty
                ),
            )),
        }
    }

    fn check_var(&self, loc: Loc, op: &str, var: Var) -> Result<(), BuildError> {
        if var.builder != self.id || var.index as usize >= self.ctx.vars.len() {
            return Err(BuildError::new(
                loc,
                ErrorKind::ForeignHandle,
                format!("{op}: variable v{} ({}) was declared by another kernel builder", var.index, var.ty),
            ));
        }
        Ok(())
    }

    /// `name` or `v<index>`.
    pub(crate) fn var_name(&self, var: u32) -> String {
        match self.ctx.vars.get(var as usize).and_then(|s| s.name.as_deref()) {
            Some(n) => format!("`{n}` (v{var})"),
            None => format!("v{var}"),
        }
    }

    /// Records `var = value` in the frame at `depth`.
    pub(crate) fn def_at(&mut self, var: u32, value: Value, depth: usize) {
        let Some(slot) = self.ctx.vars.get_mut(var as usize) else { return };
        let old = slot.cur.replace((value, depth as u32));
        if let Some(s) = self.ctx.scratch.get_mut(depth) {
            s.log.push((var, old));
        }
    }

    /// Reads `var` as seen at `depth`, creating a loop parameter in every loop the current
    /// definition flows into. `None`: undefined.
    pub(crate) fn read_var(&mut self, var: u32, depth: usize) -> Option<Value> {
        let slot = self.ctx.vars.get(var as usize)?;
        let ty = slot.ty;
        let (mut v, dd) = slot.cur?;
        for l in (dd as usize + 1)..=depth {
            let Some(frame) = self.ctx.frames.get(l).copied() else { break };
            if let FrameKind::Loop(_) = frame.kind {
                let p = self.func.add_region_param(frame.region, ty);
                self.ctx.value_region[p] = frame.region.into();
                self.ctx.scratch[l].carried.push(Carried { var, param: p, init: v, removed: false });
                self.def_at(var, p, l);
                v = p;
            }
        }
        Some(v)
    }

    /// Appends the variables defined in the frame at `depth` (deduplicated, sorted by variable)
    /// with their current values to `ctx.arm_defs`.
    pub(crate) fn collect_arm_defs(&mut self, depth: usize) {
        let epoch = self.ctx.next_epoch();
        let start = self.ctx.arm_defs.len();
        let n = self.ctx.scratch.get(depth).map_or(0, |s| s.log.len());
        for i in 0..n {
            let var = self.ctx.scratch[depth].log[i].0 as usize;
            if self.ctx.stamps[var] != epoch {
                self.ctx.stamps[var] = epoch;
                if let Some((v, _)) = self.ctx.vars[var].cur {
                    self.ctx.arm_defs.push((var as u32, v));
                }
            }
        }
        self.ctx.arm_defs[start..].sort_unstable_by_key(|&(v, _)| v);
    }

    /// Records a `break`/`continue` of the loop at `loop_depth` with its variable snapshot.
    pub(crate) fn record_exit(&mut self, loop_depth: usize, inst: Inst, is_break: bool, next: Option<Value>) {
        let epoch = self.ctx.next_epoch();
        let start = self.ctx.scratch[loop_depth].snaps.len();
        for f in loop_depth..=self.depth() {
            for i in 0..self.ctx.scratch[f].log.len() {
                let var = self.ctx.scratch[f].log[i].0 as usize;
                if self.ctx.stamps[var] != epoch {
                    self.ctx.stamps[var] = epoch;
                    if let Some((v, _)) = self.ctx.vars[var].cur {
                        self.ctx.scratch[loop_depth].snaps.push((var as u32, v));
                    }
                }
            }
        }
        let s = &mut self.ctx.scratch[loop_depth];
        s.snaps[start..].sort_unstable_by_key(|&(v, _)| v);
        let snap = (start as u32, s.snaps.len() as u32);
        s.exits.push(Exit { inst, is_break, snap, next });
    }

    /// Joins the arms of an `if` (both arm frames already popped) and emits the `if`.
    /// `ctx.arm_defs[s0..s1]` are the then-arm's definitions, `[s1..]` the else-arm's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_if(
        &mut self,
        loc: Loc,
        cond: Value,
        then_r: Region,
        then_open: bool,
        mut else_r: Option<Region>,
        else_open: bool,
        s0: usize,
        s1: usize,
    ) -> Result<(), BuildError> {
        let parent = self.depth();
        let mut vars = mem::take(&mut self.ctx.tmp_vars);
        let mut merge = mem::take(&mut self.ctx.merge);
        vars.clear();
        merge.clear();
        vars.extend(self.ctx.arm_defs[s0..].iter().map(|&(v, _)| v));
        vars.sort_unstable();
        vars.dedup();
        for &var in &vars {
            let tv = lookup(&self.ctx.arm_defs[s0..s1], var);
            let ev = lookup(&self.ctx.arm_defs[s1..], var);
            let incoming = if (then_open && tv.is_none()) || (else_open && ev.is_none()) {
                self.read_var(var, parent)
            } else {
                None
            };
            let t = if then_open { tv.or(incoming) } else { None };
            let e = if else_open { ev.or(incoming) } else { None };
            if (then_open && t.is_none()) || (else_open && e.is_none()) {
                continue; // undefined on an open path: stays undefined after the `if`
            }
            let same = match (t, e) {
                (Some(a), Some(b)) => (a == b).then_some(a),
                (Some(a), None) | (None, Some(a)) => Some(a),
                (None, None) => continue, // no open arm
            };
            match same {
                Some(v) if self.visible(v) => self.def_at(var, v, parent),
                _ => merge.push((var, t, e)),
            }
        }
        let mut vals = mem::take(&mut self.ctx.tmp_vals);
        if then_open {
            vals.clear();
            vals.extend(merge.iter().filter_map(|m| m.1));
            self.append_terminator(then_r, Opcode::Yield, &vals);
        }
        if else_open && (else_r.is_some() || !merge.is_empty()) {
            let r = match else_r {
                Some(r) => r,
                None => self.func.make_region(),
            };
            else_r = Some(r);
            vals.clear();
            vals.extend(merge.iter().filter_map(|m| m.2));
            self.append_terminator(r, Opcode::Yield, &vals);
        }
        let mut types = mem::take(&mut self.ctx.tmp_types);
        types.clear();
        types.extend(merge.iter().map(|m| self.ctx.vars[m.0 as usize].ty));
        let res = self.emit_inst_multi(loc, Opcode::If, Imm::None, &[cond], &types);
        if let Ok(inst) = res {
            self.func.set_inst_regions(inst, Some(then_r), else_r);
            for (k, m) in merge.iter().enumerate() {
                if let Some(&r) = self.func.inst_results(inst).get(k) {
                    self.def_at(m.0, r, parent);
                }
            }
        }
        self.ctx.tmp_vars = vars;
        self.ctx.merge = merge;
        self.ctx.tmp_vals = vals;
        self.ctx.tmp_types = types;
        res.map(|_| ())
    }

    fn append_terminator(&mut self, region: Region, op: Opcode, args: &[Value]) {
        let inst = self.func.make_inst(op, Imm::None, args, &[]);
        self.func.append_inst(region, inst);
    }

    /// Finishes the loop whose body frame is on top of the stack (the body is terminated) and
    /// emits the `loop` in the enclosing region. See the module docs, steps 1–5.
    pub(crate) fn finish_loop(&mut self, loc: Loc) -> Result<(), BuildError> {
        let l = self.depth();
        let frame = self.top();
        let FrameKind::Loop(induction) = frame.kind else {
            return Err(BuildError::new(loc, ErrorKind::Structure, "loop: the innermost open region is not a loop"));
        };
        let body = frame.region;
        // 1. the loop-entry view of every variable
        self.restore_log(l);
        let mut carried = mem::take(&mut self.ctx.scratch[l].carried);
        let exits = mem::take(&mut self.ctx.scratch[l].exits);
        let snaps = mem::take(&mut self.ctx.scratch[l].snaps);
        let mut vars = mem::take(&mut self.ctx.tmp_vars);
        vars.clear();
        vars.extend(snaps.iter().map(|&(v, _)| v));
        vars.sort_unstable();
        vars.dedup();
        // 2. header parameters read by the exits
        for &x in &vars {
            if carried.iter().any(|c| c.var == x) {
                continue;
            }
            if !exits.iter().any(|e| e.is_break && snap_of(&snaps, e, x).is_none()) {
                continue;
            }
            if let Some(init) = self.read_var(x, l.saturating_sub(1)) {
                let ty = self.ctx.vars[x as usize].ty;
                let p = self.func.add_region_param(body, ty);
                self.ctx.value_region[p] = body.into();
                carried.push(Carried { var: x, param: p, init, removed: false });
            }
        }
        carried.sort_by_key(|c| c.var);
        // 3. trivial parameters, to a fixpoint
        loop {
            let mut changed = false;
            for c in carried.iter_mut().filter(|c| !c.removed) {
                let init = resolve(&self.ctx.alias, c.init);
                let trivial = exits.iter().filter(|e| !e.is_break).all(|e| {
                    let o = resolve(&self.ctx.alias, snap_of(&snaps, e, c.var).unwrap_or(c.param));
                    o == c.param || o == init
                });
                if trivial {
                    self.ctx.alias[c.param] = init.into();
                    self.ctx.value_region[c.param] = None.into();
                    c.removed = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let header = |carried: &[Carried], x: u32| carried.iter().find(|c| c.var == x).map(|c| c.param);
        // 5. loop results (computed before the frame closes, while visibility is known)
        let mut results = mem::take(&mut self.ctx.loop_results);
        results.clear();
        let mut post = mem::take(&mut self.ctx.merge);
        post.clear();
        let has_break = exits.iter().any(|e| e.is_break);
        for &x in &vars {
            if !has_break {
                break;
            }
            let h = header(&carried, x);
            let mut first = None;
            let mut all_same = true;
            let mut defined = true;
            for e in exits.iter().filter(|e| e.is_break) {
                match snap_of(&snaps, e, x).or(h) {
                    None => defined = false,
                    Some(v) => {
                        let v = resolve(&self.ctx.alias, v);
                        match first {
                            None => first = Some(v),
                            Some(f) if f != v => all_same = false,
                            Some(_) => {}
                        }
                    }
                }
            }
            match first {
                Some(v) if defined && all_same && self.visible_outside(v, l) => post.push((x, Some(v), None)),
                Some(_) if defined => results.push(x),
                _ => {}
            }
        }
        // rewrite uses of removed parameters inside the body
        if carried.iter().any(|c| c.removed) {
            self.rewrite_uses(body);
        }
        // 4. exit operands
        let mut args = mem::take(&mut self.ctx.tmp_vals);
        let mut err = None;
        for e in &exits {
            args.clear();
            if e.is_break {
                for &x in &results {
                    match snap_of(&snaps, e, x).or(header(&carried, x)) {
                        Some(v) => args.push(resolve(&self.ctx.alias, v)),
                        None => err = Some("a loop result has no value at a `break`"),
                    }
                }
            } else {
                args.extend(e.next);
                for c in carried.iter().filter(|c| !c.removed) {
                    args.push(resolve(&self.ctx.alias, snap_of(&snaps, e, c.var).unwrap_or(c.param)));
                }
            }
            self.func.set_args(e.inst, &args);
        }
        // the parameter list: induction variable, then the surviving carried variables
        let mut params = mem::replace(&mut self.func.regions[body].params, EntityList::new());
        params.clear(&mut self.func.pool);
        let mut list = EntityList::new();
        args.clear();
        if let Some(ind) = induction {
            list.push(ind.param, &mut self.func.pool);
            args.push(ind.start);
        }
        for c in carried.iter().filter(|c| !c.removed) {
            let n = list.push(c.param, &mut self.func.pool);
            self.func.values[c.param].def = ValueDef::RegionParam(body, n as u16);
            args.push(resolve(&self.ctx.alias, c.init));
        }
        self.func.regions[body].params = list;
        let mut types = mem::take(&mut self.ctx.tmp_types);
        types.clear();
        types.extend(results.iter().map(|&x| self.ctx.vars[x as usize].ty));
        // close the body and emit the loop
        self.pop_frame();
        let res = match err {
            Some(m) => Err(BuildError::new(loc, ErrorKind::Structure, format!("loop: {m}"))),
            None => self.emit_inst_multi(loc, Opcode::Loop, Imm::None, &args, &types),
        };
        if let Ok(inst) = res {
            self.func.set_inst_regions(inst, Some(body), None);
            let parent = self.depth();
            for (k, &x) in results.iter().enumerate() {
                if let Some(&r) = self.func.inst_results(inst).get(k) {
                    self.def_at(x, r, parent);
                }
            }
            for &(x, v, _) in &post {
                if let Some(v) = v {
                    self.def_at(x, v, parent);
                }
            }
        }
        // give the scratch vectors back
        let s = &mut self.ctx.scratch[l];
        s.carried = carried;
        s.exits = exits;
        s.snaps = snaps;
        self.ctx.tmp_vars = vars;
        self.ctx.tmp_vals = args;
        self.ctx.tmp_types = types;
        self.ctx.merge = post;
        self.ctx.loop_results = results;
        res.map(|_| ())
    }

    /// True if `v` is defined in a region enclosing the loop body at depth `l`.
    fn visible_outside(&self, v: Value, l: usize) -> bool {
        self.ctx.value_region.get(v).and_then(|r| r.expand()).is_some_and(|r| {
            let d = self.ctx.region_depth[r];
            d != 0 && (d as usize) <= l
        })
    }

    /// Rewrites every operand in the region tree under `root` through `ctx.alias`.
    fn rewrite_uses(&mut self, root: Region) {
        let mut stack = mem::take(&mut self.ctx.walk);
        stack.clear();
        stack.push(root);
        while let Some(r) = stack.pop() {
            for i in 0..self.func.regions[r].insts.len() {
                let inst = self.func.regions[r].insts[i];
                let mut args = self.func.insts[inst].args;
                for a in args.as_mut_slice(&mut self.func.pool) {
                    *a = resolve(&self.ctx.alias, *a);
                }
                stack.extend(self.func.insts[inst].regions.iter().filter_map(|r| r.expand()));
            }
        }
        self.ctx.walk = stack;
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildError, FunctionBuilderContext, KernelBuilder, ScalarType};
    use qd_mir::text::print_function;
    use qd_mir::ValueDef;

    #[test]
    fn removed_params_renumber_the_survivors() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "swap");
        let out = b.buffer("out", ScalarType::U32);
        let [k, x, y] = [0; 3].map(|_| b.declare_var(ScalarType::U32));
        let (zero, one) = (b.const_u32(0)?, b.const_u32(1)?);
        b.def_var(k, one)?;
        b.def_var(x, zero)?;
        b.def_var(y, one)?;
        let t = b.const_bool(true)?;
        b.loop_(|b| {
            let kv = b.use_var(k)?; // read-only: its parameter (index 0 when created) is trivial
            let (xv, yv) = (b.use_var(x)?, b.use_var(y)?);
            b.def_var(x, yv)?;
            b.def_var(y, xv)?;
            b.store(out, kv, xv)?;
            b.if_then(t, |b| b.break_())
        })?;
        let f = b.finish()?;
        assert_eq!(
            print_function(&f),
            "\
kernel @swap(%out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  %1 = const 1 : u32
  %2 = const true : bool
  %3, %4 = loop (%5: u32 = %0, %6: u32 = %1) -> (u32, u32) {
    %7 = ptr.offset %out, %1 : ptr<global, u32>
    store %7, %5
    if %2 {
      break %6, %5
    }
    continue %6, %5
  }
  return
}
"
        );
        let body = f.insts[f.walk_insts()[3]].regions[0].expand().ok_or_else(no_body_err)?;
        for (n, &p) in f.region_params(body).iter().enumerate() {
            assert_eq!(f.values[p].def, ValueDef::RegionParam(body, n as u16));
        }
        Ok(())
    }

    fn no_body_err() -> BuildError {
        BuildError::new(std::panic::Location::caller(), crate::ErrorKind::Structure, "no loop body")
    }

    #[test]
    fn equal_values_from_both_arms_need_no_result() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "same");
        let n = b.scalar("n", ScalarType::U32);
        let out = b.buffer("out", ScalarType::U32);
        let v = b.declare_var(ScalarType::U32);
        let c = b.const_bool(false)?;
        b.if_then_else(c, |b| b.def_var(v, n), |b| b.def_var(v, n))?;
        let r = b.use_var(v)?;
        b.store(out, n, r)?;
        let f = b.finish()?;
        assert_eq!(
            print_function(&f),
            "\
kernel @same(%n: u32 uniform, %out: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const false : bool
  if %0 {
    yield
  } else {
    yield
  }
  %1 = ptr.offset %out, %n : ptr<global, u32>
  store %1, %n
  return
}
"
        );
        Ok(())
    }

    #[test]
    fn a_loop_left_only_by_return_has_no_results() -> Result<(), BuildError> {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = KernelBuilder::new(&mut ctx, "spin");
        let flag = b.buffer("flag", ScalarType::U32);
        let v = b.declare_var(ScalarType::U32);
        let zero = b.const_u32(0)?;
        b.def_var(v, zero)?;
        b.loop_(|b| {
            let x = b.load(flag, zero)?;
            let old = b.use_var(v)?;
            let s = b.add(old, x)?;
            b.def_var(v, s)?;
            let done = b.ne(x, zero)?;
            b.if_then(done, |b| b.return_())
        })?;
        let f = b.finish()?;
        assert_eq!(
            print_function(&f),
            "\
kernel @spin(%flag: ptr<global, u32>) block(1, 1, 1) grid(1, 1, 1) {
  %0 = const 0 : u32
  loop (%1: u32 = %0) {
    %2 = ptr.offset %flag, %0 : ptr<global, u32>
    %3 = load %2 : u32
    %4 = add %1, %3 : u32
    %5 = cmp ne %3, %0 : bool
    if %5 {
      return
    }
    continue %4
  }
  return
}
"
        );
        Ok(())
    }
}
