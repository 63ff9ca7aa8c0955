//! Structured control flow on the EXEC mask: `if`, `loop`, `yield`, `break`, `continue`,
//! `return`.
//!
//! **Uniform** constructs (an `if` on a uniform condition, a loop whose every exit is under
//! uniform conditions) branch for real on SCC and pass their results as block parameters.
//!
//! **Divergent `if`** (varying condition): `v_cmp_ne_u32` makes the lane mask, `s_and_saveexec`
//! narrows EXEC to the then-lanes (saving the old mask), `s_cbranch_execz` skips an arm no lane
//! takes, `s_andn2` gives the else-lanes, and the join sets EXEC to the lanes still running at the
//! end of either arm (so lanes that left through `break`/`continue`/`return` inside stay off).
//! Results are *merges*: a lane-complete register is written under each arm's EXEC with a move
//! whose def is tied to the register it updates ([`A::Tied`]); block parameters only carry such
//! lane-complete values (and the wave-level masks), and the allocator's moves of VGPRs in
//! divergent blocks are whole-wave, so no lane's value is lost on a skip edge.
//!
//! **Divergent loop** (some `break`/`continue` under a varying condition): every path through the
//! body ends in `break`, `continue` or `return`, each of which records its lanes and turns them
//! off (`brk |= exec` with the loop results merged, `cont |= exec` with the next carried values
//! merged, or just off for `return`), so the body always ends with EXEC empty; the latch sets
//! EXEC to `cont` and loops while it is not empty, and the exit sets EXEC to `brk`. Those loop
//! variables are threaded through every `if` join inside the body as extra block parameters.
//!
//! `return` in a region every lane reaches together ends the wave (`s_endpgm`); elsewhere it turns
//! the lanes off, and code after it runs with fewer lanes (or none: uniform loops then leave at
//! their next `continue` rather than spin with no lanes).

use qd_mir::types::Type;
use qd_mir::{Inst, Opcode, Region, Terminator};
use regalloc2::{Operand as RaOperand, OperandConstraint, OperandKind, OperandPos, VReg};

use super::{Cls, Lower, Val};
use crate::vcode::{MInst, Term, VBlock, A, SGPR, VGPR, VGPR64};
use qd_amdgcn_isa::{Op, Operand};
use qd_mir::CompileError;

/// A lane mask in SGPRs: one in wave32, a pair in wave64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mask {
    /// wave32.
    One(VReg),
    /// wave64 (lo, hi).
    Two(VReg, VReg),
}

impl Mask {
    fn use_(self) -> A {
        match self {
            Mask::One(v) => A::U(v),
            Mask::Two(l, h) => A::SPair(l, h),
        }
    }

    fn def(self) -> A {
        match self {
            Mask::One(v) => A::D(v),
            Mask::Two(l, h) => A::SPairDef(l, h),
        }
    }

    fn vregs(self) -> Vec<VReg> {
        match self {
            Mask::One(v) => vec![v],
            Mask::Two(l, h) => vec![l, h],
        }
    }
}

/// The variables of a divergent loop that its `break`s and `continue`s update.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LoopVars {
    /// Lanes that left through `break`.
    brk: Mask,
    /// Lanes that reached `continue` in this iteration.
    cont: Mask,
    /// The loop's results, merged per breaking lane.
    results: Vec<Val>,
    /// The next iteration's carried values, merged per continuing lane.
    next: Vec<Val>,
}

/// How the innermost loop's exits are lowered.
#[derive(Clone, Debug)]
enum LoopFrame {
    /// Real branches.
    Uniform { header: VBlock, exit: VBlock, carried: Vec<Val>, results: Vec<Val>, exit_used: bool },
    /// EXEC masks.
    Divergent(LoopVars),
}

/// The state of the regions being lowered.
#[derive(Clone, Debug, Default)]
pub(crate) struct CfState {
    /// Nesting depth of the regions being lowered (0: the body).
    pub depth: u32,
    /// True when EXEC may be a strict subset of the lanes the wave started with.
    pub partial: bool,
    /// True after a real jump or `s_endpgm`: the rest of the region is unreachable.
    pub dead: bool,
    /// Blocks in the order they were started (the layout).
    pub order: Vec<VBlock>,
    loops: Vec<LoopFrame>,
    /// The values of the innermost `yield`.
    yielded: Option<Vec<Val>>,
}

// ----- small helpers ------------------------------------------------------------------------

fn new_mask(cx: &mut Lower<'_>) -> Mask {
    if cx.wave64() {
        Mask::Two(cx.new_s(), cx.new_s())
    } else {
        Mask::One(cx.new_s())
    }
}

fn mask_op(cx: &Lower<'_>, w64: Op, w32: Op) -> qd_amdgcn_isa::Inst {
    cx.mi(if cx.wave64() { w64 } else { w32 }, &[])
}

/// A mask with no lane.
fn zero_mask(cx: &mut Lower<'_>) -> Mask {
    let m = new_mask(cx);
    let mut mi = MInst::new();
    for v in m.vregs() {
        mi.step(cx.mi(Op::SMovB32, &[]), &[A::D(v), A::K(Operand::Int(0))]);
    }
    cx.emit(mi);
    m
}

/// The current EXEC as a value.
fn exec_value(cx: &mut Lower<'_>) -> Mask {
    let m = new_mask(cx);
    let t = mask_op(cx, Op::SMovB64, Op::SMovB32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[m.def(), A::K(e)]));
    m
}

/// EXEC = m.
fn set_exec(cx: &mut Lower<'_>, m: Mask) {
    let t = mask_op(cx, Op::SMovB64, Op::SMovB32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[A::K(e), m.use_()]));
}

/// EXEC = 0.
fn exec_off(cx: &mut Lower<'_>) {
    let t = mask_op(cx, Op::SMovB64, Op::SMovB32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[A::K(e), A::K(Operand::Int(0))]));
}

/// `m | exec` as a new mask.
fn or_exec(cx: &mut Lower<'_>, m: Mask) -> Mask {
    let d = new_mask(cx);
    let t = mask_op(cx, Op::SOrB64, Op::SOrB32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[d.def(), m.use_(), A::K(e)]));
    d
}

/// A register of no particular value (the start of a merge).
fn undef(cx: &mut Lower<'_>, like: Val) -> Val {
    let v = match like {
        Val::S(_) => Val::S(cx.new_s()),
        Val::V(_) => Val::V(cx.new_v()),
        Val::S64(..) => Val::S64(cx.new_s(), cx.new_s()),
        Val::V64(_) => Val::V64(cx.new_w()),
    };
    let mut m = MInst::new();
    for r in vregs(v) {
        m.extra(RaOperand::new(r, OperandConstraint::Reg, OperandKind::Def, OperandPos::Late));
    }
    cx.emit(m);
    v
}

fn vregs(v: Val) -> Vec<VReg> {
    match v {
        Val::S(r) | Val::V(r) | Val::V64(r) => vec![r],
        Val::S64(l, h) => vec![l, h],
    }
}

/// Fresh registers of the same form.
fn fresh_like(cx: &mut Lower<'_>, v: Val) -> Val {
    match v {
        Val::S(_) => Val::S(cx.new_s()),
        Val::V(_) => Val::V(cx.new_v()),
        Val::S64(..) => Val::S64(cx.new_s(), cx.new_s()),
        Val::V64(_) => Val::V64(cx.new_w()),
    }
}

fn fresh_mask_like(cx: &mut Lower<'_>, m: Mask) -> Mask {
    match m {
        Mask::One(_) => Mask::One(cx.new_s()),
        Mask::Two(..) => Mask::Two(cx.new_s(), cx.new_s()),
    }
}

/// The form a value of type `ty` takes in VGPRs.
fn vector_form(cx: &mut Lower<'_>, ty: Type) -> Val {
    cx.fresh(ty, Cls::Vector)
}

/// `src` in exactly the form of `like` (a copy when the forms differ).
fn conform(cx: &mut Lower<'_>, src: Val, like: Val) -> Val {
    let same = matches!(
        (src, like),
        (Val::S(_), Val::S(_)) | (Val::V(_), Val::V(_)) | (Val::S64(..), Val::S64(..)) | (Val::V64(_), Val::V64(_))
    );
    if same {
        return src;
    }
    let d = fresh_like(cx, like);
    cx.copy_into(d, src);
    d
}

/// `def = old` with `val` written in the lanes of EXEC (a merge).
fn merge(cx: &mut Lower<'_>, old: Val, val: Val) -> Val {
    let d = fresh_like(cx, old);
    let mv = cx.mi(Op::VMovB32, &[]);
    let mut m = MInst::new();
    match (d, old, val) {
        (Val::V(dv), Val::V(o), Val::V(x) | Val::S(x)) => {
            m.step(mv, &[A::Tied { def: dv, old: o }, A::U(x)]);
        }
        (Val::V64(dw), Val::V64(o), Val::V64(x)) => {
            m.step(mv, &[A::TiedLo { def: dw, old: o }, A::UL(x)]);
            m.step(mv, &[A::DH(dw), A::UH(x)]);
        }
        (Val::V64(dw), Val::V64(o), Val::S64(xl, xh)) => {
            m.step(mv, &[A::TiedLo { def: dw, old: o }, A::U(xl)]);
            m.step(mv, &[A::DH(dw), A::U(xh)]);
        }
        (d, o, x) => panic!("merge of {x:?} into {o:?} as {d:?}: merges are VGPR values"),
    }
    cx.emit(m);
    d
}

fn flatten(vals: &[Val]) -> Vec<VReg> {
    vals.iter().flat_map(|v| vregs(*v)).collect()
}

/// The loop variables threaded through joins (innermost divergent loop), flattened.
fn thread_vals(cx: &Lower<'_>) -> Vec<VReg> {
    match cx.cf.loops.last() {
        Some(LoopFrame::Divergent(lv)) => {
            let mut v = lv.brk.vregs();
            v.extend(lv.cont.vregs());
            v.extend(flatten(&lv.results));
            v.extend(flatten(&lv.next));
            v
        }
        _ => Vec::new(),
    }
}

/// Fresh block parameters for the threaded loop variables; installs them as current.
fn thread_params(cx: &mut Lower<'_>) -> Vec<VReg> {
    let Some(LoopFrame::Divergent(lv)) = cx.cf.loops.last().cloned() else { return Vec::new() };
    let brk = fresh_mask_like(cx, lv.brk);
    let cont = fresh_mask_like(cx, lv.cont);
    let results: Vec<Val> = lv.results.iter().map(|v| fresh_like(cx, *v)).collect();
    let next: Vec<Val> = lv.next.iter().map(|v| fresh_like(cx, *v)).collect();
    let nv = LoopVars { brk, cont, results, next };
    let mut p = nv.brk.vregs();
    p.extend(nv.cont.vregs());
    p.extend(flatten(&nv.results));
    p.extend(flatten(&nv.next));
    if let Some(LoopFrame::Divergent(cur)) = cx.cf.loops.last_mut() {
        *cur = nv;
    }
    p
}

impl CfState {
    /// The state at the kernel's entry block.
    pub(crate) fn new(entry: VBlock) -> CfState {
        CfState { order: vec![entry], ..CfState::default() }
    }
}

/// Starts filling block `b`.
pub(crate) fn switch_to(cx: &mut Lower<'_>, b: VBlock) {
    cx.cur = b;
    cx.cf.order.push(b);
    cx.cf.dead = false;
}

fn new_block(cx: &mut Lower<'_>, name: &str) -> VBlock {
    let partial = cx.cf.partial;
    cx.vcode.new_block(name, partial)
}

fn jump(cx: &mut Lower<'_>, to: VBlock, args: Vec<VReg>) {
    let mut m = MInst::new();
    m.term = Term::Jump(to);
    m.succ_args = vec![args];
    cx.emit(m);
}

/// Ends the block with `branch` (a template ending in an `s_cbranch_*`, after optional steps).
fn branch(cx: &mut Lower<'_>, mut m: MInst, taken: (VBlock, Vec<VReg>), not_taken: (VBlock, Vec<VReg>)) {
    m.term = Term::Branch { taken: taken.0, not_taken: not_taken.0 };
    m.succ_args = vec![taken.1, not_taken.1];
    cx.emit(m);
}

fn set_params(cx: &mut Lower<'_>, b: VBlock, params: Vec<VReg>) {
    cx.vcode.blocks[b.index()].params = params;
}

fn region_yield(cx: &mut Lower<'_>, r: Region) -> Result<Option<Vec<Val>>, CompileError> {
    cx.cf.yielded = None;
    cx.cf.depth += 1;
    cx.lower_region(r)?;
    cx.cf.depth -= 1;
    Ok(cx.cf.yielded.take())
}

// ----- if -------------------------------------------------------------------------------------

/// `if`.
pub(crate) fn if_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let c = cx.f.args(i)[0];
    let Some(then_r) = cx.f.insts[i].regions[0].expand() else {
        return Err(cx.internal(i, "an if without a then region"));
    };
    // No else region: an empty arm (the verifier allows it only for an `if` without results).
    let else_r = cx.f.insts[i].regions[1].expand();
    let results: Vec<qd_mir::Value> = cx.f.inst_results(i).to_vec();
    if cx.facts.uniformity().is_uniform(c) {
        uniform_if(cx, i, c, then_r, else_r, &results)
    } else {
        divergent_if(cx, c, then_r, else_r, &results)
    }
}

fn uniform_if(
    cx: &mut Lower<'_>,
    _i: Inst,
    c: qd_mir::Value,
    then_r: Region,
    else_r: Option<Region>,
    results: &[qd_mir::Value],
) -> Result<(), CompileError> {
    let cv = cx.val(c);
    let Val::S(cs) = cx.in_sgpr(cv) else { unreachable!("a bool is 32-bit") };
    let then_b = new_block(cx, "if.then");
    let else_b = new_block(cx, "if.else");
    let mut m = MInst::one(cx.mi(Op::SCmpLgU32, &[]), &[A::U(cs), A::K(Operand::Int(0))]);
    m.step(cx.mi(Op::SCbranchScc0, &[]), &[]);
    branch(cx, m, (else_b, Vec::new()), (then_b, Vec::new()));
    let forms: Vec<Val> = results.iter().map(|&r| cx.fresh(cx.f.value_type(r), cx.cls_of(r))).collect();
    let mut arrivals: Vec<(VBlock, Vec<VReg>)> = Vec::new();
    let join = new_block(cx, "if.join");
    for (b, r) in [(then_b, Some(then_r)), (else_b, else_r)] {
        switch_to(cx, b);
        let y = match r {
            Some(r) => region_yield(cx, r)?,
            None => Some(Vec::new()),
        };
        if cx.cf.dead {
            continue;
        }
        let vals: Vec<Val> = match y {
            Some(ys) => ys.iter().zip(&forms).map(|(y, f)| conform(cx, *y, *f)).collect(),
            None => forms.iter().map(|f| undef(cx, *f)).collect(),
        };
        let mut args = flatten(&vals);
        args.extend(thread_vals(cx));
        jump(cx, join, args.clone());
        arrivals.push((cx.cur, args));
    }
    if arrivals.is_empty() {
        cx.cf.dead = true;
        // The join block stays empty and unreferenced; give it a terminator so the VCode is whole.
        let saved = cx.cur;
        switch_to(cx, join);
        let mut m = MInst::one(cx.mi(Op::SEndpgm, &[]), &[]);
        m.term = Term::Ret;
        cx.emit(m);
        cx.cur = saved;
        cx.cf.dead = true;
        return Ok(());
    }
    switch_to(cx, join);
    let params_vals: Vec<Val> = forms.iter().map(|f| fresh_like(cx, *f)).collect();
    let mut params = flatten(&params_vals);
    params.extend(thread_params(cx));
    set_params(cx, join, params);
    for (r, v) in results.iter().zip(params_vals) {
        cx.bind(*r, v);
    }
    Ok(())
}

fn divergent_if(
    cx: &mut Lower<'_>,
    c: qd_mir::Value,
    then_r: Region,
    else_r: Option<Region>,
    results: &[qd_mir::Value],
) -> Result<(), CompileError> {
    let cv = cx.val(c);
    let cv = cx.in_vgpr(cv);
    let Val::V(cvv) = cv else { unreachable!("a bool is 32-bit") };
    let mc = new_mask(cx);
    let t = cx.mi(Op::VCmpNeU32, &[]).e64();
    cx.emit(MInst::one(t, &[mc.def(), A::K(Operand::Int(0)), A::U(cvv)]));
    // Everything the skip edge carries is made before EXEC narrows, so that the `s_and_saveexec`
    // is the last instruction of this block before its branch: this block is not divergent, so
    // an allocator move of a VGPR after the narrowing would copy only the then-lanes.
    let forms: Vec<Val> = results.iter().map(|&r| vector_form(cx, cx.f.value_type(r))).collect();
    let r0: Vec<Val> = forms.iter().map(|f| undef(cx, *f)).collect();
    let t0 = zero_mask(cx);
    let saved = new_mask(cx);
    let t = mask_op(cx, Op::SAndSaveexecB64, Op::SAndSaveexecB32);
    cx.emit(MInst::one(t, &[saved.def(), mc.use_()]));
    let was_partial = cx.cf.partial;
    cx.cf.partial = true;
    let then_b = new_block(cx, "if.then");
    let else_head = new_block(cx, "if.else.head");
    let else_b = new_block(cx, "if.else");
    let join = new_block(cx, "if.join");
    let mut skip_args = t0.vregs();
    skip_args.extend(flatten(&r0));
    skip_args.extend(thread_vals(cx));
    let m = MInst::one(cx.mi(Op::SCbranchExecz, &[]), &[]);
    branch(cx, m, (else_head, skip_args), (then_b, Vec::new()));

    // then
    switch_to(cx, then_b);
    let y = region_yield(cx, then_r)?;
    let r1: Vec<Val> = match y {
        Some(ys) => r0.iter().zip(&ys).map(|(o, y)| merge(cx, *o, *y)).collect(),
        None => r0.clone(),
    };
    let t = exec_value(cx);
    let mut args = t.vregs();
    args.extend(flatten(&r1));
    args.extend(thread_vals(cx));
    jump(cx, else_head, args);

    // else head: EXEC = the else-lanes
    switch_to(cx, else_head);
    let tp = fresh_mask_like(cx, t0);
    let rp: Vec<Val> = forms.iter().map(|f| fresh_like(cx, *f)).collect();
    let mut params = tp.vregs();
    params.extend(flatten(&rp));
    params.extend(thread_params(cx));
    set_params(cx, else_head, params);
    let t = mask_op(cx, Op::SAndn2B64, Op::SAndn2B32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[A::K(e), saved.use_(), mc.use_()]));
    let e0 = zero_mask(cx);
    let mut skip = tp.vregs();
    skip.extend(e0.vregs());
    skip.extend(flatten(&rp));
    skip.extend(thread_vals(cx));
    let m = MInst::one(cx.mi(Op::SCbranchExecz, &[]), &[]);
    branch(cx, m, (join, skip), (else_b, Vec::new()));

    // else
    switch_to(cx, else_b);
    let z = match else_r {
        Some(r) => region_yield(cx, r)?,
        None => Some(Vec::new()),
    };
    let r2: Vec<Val> = match z {
        Some(zs) => rp.iter().zip(&zs).map(|(o, z)| merge(cx, *o, *z)).collect(),
        None => rp.clone(),
    };
    let e = exec_value(cx);
    let mut args = tp.vregs();
    args.extend(e.vregs());
    args.extend(flatten(&r2));
    args.extend(thread_vals(cx));
    jump(cx, join, args);

    // join: EXEC = lanes still running in either arm
    switch_to(cx, join);
    let tj = fresh_mask_like(cx, t0);
    let ej = fresh_mask_like(cx, t0);
    let rj: Vec<Val> = forms.iter().map(|f| fresh_like(cx, *f)).collect();
    let mut params = tj.vregs();
    params.extend(ej.vregs());
    params.extend(flatten(&rj));
    params.extend(thread_params(cx));
    set_params(cx, join, params);
    let t = mask_op(cx, Op::SOrB64, Op::SOrB32);
    let e = cx.exec();
    cx.emit(MInst::one(t, &[A::K(e), tj.use_(), ej.use_()]));
    cx.cf.partial = was_partial || cx.cf.loops.iter().any(|l| matches!(l, LoopFrame::Divergent(_)));
    // Lanes that left inside an arm keep EXEC partial from here on.
    if region_has_exit(cx, then_r) || else_r.is_some_and(|r| region_has_exit(cx, r)) {
        cx.cf.partial = true;
    }
    cx.vcode.blocks[join.index()].divergent = true;
    for (r, v) in results.iter().zip(rj) {
        cx.bind(*r, v);
    }
    Ok(())
}

/// True when a `break`, `continue` or `return` sits anywhere inside `r` (outside nested loops
/// for break/continue).
fn region_has_exit(cx: &Lower<'_>, r: Region) -> bool {
    cx.f.regions[r].insts.iter().any(|&i| {
        let d = &cx.f.insts[i];
        let nested =
            |deep: fn(&Lower<'_>, Region) -> bool| d.regions.iter().filter_map(|r| r.expand()).any(|r| deep(cx, r));
        match d.opcode.terminator() {
            Some(t) => t != Terminator::Yield,
            // Inside a nested loop only a `return` leaves this region; only `if` and `loop` own
            // regions, so for every other op `nested` is false.
            None if d.opcode == Opcode::Loop => nested(region_has_return),
            None => nested(region_has_exit),
        }
    })
}

fn region_has_return(cx: &Lower<'_>, r: Region) -> bool {
    cx.f.regions[r].insts.iter().any(|&i| {
        let d = &cx.f.insts[i];
        d.opcode == Opcode::Return || d.regions.iter().filter_map(|r| r.expand()).any(|r| region_has_return(cx, r))
    })
}

// ----- loops ----------------------------------------------------------------------------------

/// `loop`.
pub(crate) fn loop_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let Some(body) = cx.f.insts[i].regions[0].expand() else { return Err(cx.internal(i, "a loop without a body")) };
    let inits: Vec<Val> = cx.f.args(i).iter().map(|&v| cx.val(v)).collect();
    let params: Vec<qd_mir::Value> = cx.f.region_params(body).to_vec();
    let results: Vec<qd_mir::Value> = cx.f.inst_results(i).to_vec();
    if cx.facts.uniformity().has_divergent_exit(i) {
        divergent_loop(cx, body, &inits, &params, &results)
    } else {
        uniform_loop(cx, body, &inits, &params, &results)
    }
}

fn uniform_loop(
    cx: &mut Lower<'_>,
    body: Region,
    inits: &[Val],
    params: &[qd_mir::Value],
    results: &[qd_mir::Value],
) -> Result<(), CompileError> {
    let carried: Vec<Val> = params.iter().map(|&p| cx.fresh(cx.f.value_type(p), cx.cls_of(p))).collect();
    let rforms: Vec<Val> = results.iter().map(|&r| cx.fresh(cx.f.value_type(r), cx.cls_of(r))).collect();
    let init_args: Vec<Val> = inits.iter().zip(&carried).map(|(v, f)| conform(cx, *v, *f)).collect();
    let header = new_block(cx, "loop.header");
    let exit = new_block(cx, "loop.exit");
    // The variables of an enclosing divergent loop are not changed inside a uniform loop (its
    // break/continue are its own), so they stay live across it without threading.
    jump(cx, header, flatten(&init_args));
    switch_to(cx, header);
    let hp: Vec<Val> = carried.iter().map(|f| fresh_like(cx, *f)).collect();
    set_params(cx, header, flatten(&hp));
    for (p, v) in params.iter().zip(&hp) {
        cx.bind(*p, *v);
    }
    cx.cf.loops.push(LoopFrame::Uniform { header, exit, carried, results: rforms.clone(), exit_used: false });
    cx.cf.depth += 1;
    cx.lower_region(body)?;
    cx.cf.depth -= 1;
    let Some(LoopFrame::Uniform { exit_used, .. }) = cx.cf.loops.pop() else { unreachable!("frame pushed above") };
    if !cx.cf.dead {
        return Err(qd_mir::CompileError::internal(cx.target, "a loop body did not end in a terminator"));
    }
    switch_to(cx, exit);
    if !exit_used {
        // No break: the loop never finishes normally.
        let mut m = MInst::one(cx.mi(Op::SEndpgm, &[]), &[]);
        m.term = Term::Ret;
        cx.emit(m);
        cx.cf.dead = true;
        return Ok(());
    }
    let ep: Vec<Val> = rforms.iter().map(|f| fresh_like(cx, *f)).collect();
    set_params(cx, exit, flatten(&ep));
    for (r, v) in results.iter().zip(ep) {
        cx.bind(*r, v);
    }
    Ok(())
}

fn divergent_loop(
    cx: &mut Lower<'_>,
    body: Region,
    inits: &[Val],
    params: &[qd_mir::Value],
    results: &[qd_mir::Value],
) -> Result<(), CompileError> {
    let was_partial = cx.cf.partial;
    let carried: Vec<Val> = params.iter().map(|&p| vector_form(cx, cx.f.value_type(p))).collect();
    let rforms: Vec<Val> = results.iter().map(|&r| vector_form(cx, cx.f.value_type(r))).collect();
    let init_args: Vec<Val> = inits.iter().zip(&carried).map(|(v, f)| conform(cx, *v, *f)).collect();
    let r0: Vec<Val> = rforms.iter().map(|f| undef(cx, *f)).collect();
    let brk0 = zero_mask(cx);
    cx.cf.partial = true;
    let header = new_block(cx, "loop.header");
    let exit = new_block(cx, "loop.exit");
    let mut args = flatten(&init_args);
    args.extend(flatten(&r0));
    args.extend(brk0.vregs());
    jump(cx, header, args);

    switch_to(cx, header);
    let hx: Vec<Val> = carried.iter().map(|f| fresh_like(cx, *f)).collect();
    let hr: Vec<Val> = rforms.iter().map(|f| fresh_like(cx, *f)).collect();
    let hb = fresh_mask_like(cx, brk0);
    let mut hparams = flatten(&hx);
    hparams.extend(flatten(&hr));
    hparams.extend(hb.vregs());
    set_params(cx, header, hparams);
    for (p, v) in params.iter().zip(&hx) {
        cx.bind(*p, *v);
    }
    let cont0 = zero_mask(cx);
    let n0: Vec<Val> = carried.iter().map(|f| undef(cx, *f)).collect();
    cx.cf.loops.push(LoopFrame::Divergent(LoopVars { brk: hb, cont: cont0, results: hr, next: n0 }));
    cx.cf.depth += 1;
    cx.lower_region(body)?;
    cx.cf.depth -= 1;
    let Some(LoopFrame::Divergent(lv)) = cx.cf.loops.pop() else { unreachable!("frame pushed above") };
    // Latch: continue with the lanes that reached `continue`.
    set_exec(cx, lv.cont);
    let mut to_header = flatten(&lv.next);
    to_header.extend(flatten(&lv.results));
    to_header.extend(lv.brk.vregs());
    let mut to_exit = flatten(&lv.results);
    to_exit.extend(lv.brk.vregs());
    let m = MInst::one(cx.mi(Op::SCbranchExecz, &[]), &[]);
    branch(cx, m, (exit, to_exit), (header, to_header));

    switch_to(cx, exit);
    let er: Vec<Val> = rforms.iter().map(|f| fresh_like(cx, *f)).collect();
    let eb = fresh_mask_like(cx, brk0);
    let mut eparams = flatten(&er);
    eparams.extend(eb.vregs());
    set_params(cx, exit, eparams);
    set_exec(cx, eb);
    cx.cf.partial =
        was_partial || region_has_return(cx, body) || cx.cf.loops.iter().any(|l| matches!(l, LoopFrame::Divergent(_)));
    if cx.cf.partial {
        cx.vcode.blocks[exit.index()].divergent = true;
    }
    for (r, v) in results.iter().zip(er) {
        cx.bind(*r, v);
    }
    Ok(())
}

// ----- terminators ----------------------------------------------------------------------------

/// `yield`: hands the values to the enclosing `if`.
pub(crate) fn yield_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let vals: Vec<Val> = cx.f.args(i).iter().map(|&v| cx.val(v)).collect();
    cx.cf.yielded = Some(vals);
    Ok(())
}

/// The lanes of EXEC leave the divergent loop's body: their `vals` are merged into the
/// accumulators `acc`, they are added to `mask`, and EXEC is emptied. Returns the new
/// accumulators and mask.
fn leave(cx: &mut Lower<'_>, acc: &[Val], vals: &[Val], mask: Mask) -> (Vec<Val>, Mask) {
    let acc: Vec<Val> = acc.iter().zip(vals).map(|(o, v)| merge(cx, *o, *v)).collect();
    let mask = or_exec(cx, mask);
    exec_off(cx);
    (acc, mask)
}

/// Records that the innermost (uniform) loop's exit block is reached.
fn exit_used(cx: &mut Lower<'_>) {
    if let Some(LoopFrame::Uniform { exit_used, .. }) = cx.cf.loops.last_mut() {
        *exit_used = true;
    }
}

/// `break`.
pub(crate) fn break_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let vals: Vec<Val> = cx.f.args(i).iter().map(|&v| cx.val(v)).collect();
    match cx.cf.loops.last().cloned() {
        Some(LoopFrame::Uniform { exit, results, .. }) => {
            let args: Vec<Val> = vals.iter().zip(&results).map(|(v, f)| conform(cx, *v, *f)).collect();
            jump(cx, exit, flatten(&args));
            exit_used(cx);
            cx.cf.dead = true;
        }
        Some(LoopFrame::Divergent(lv)) => {
            let (results, brk) = leave(cx, &lv.results, &vals, lv.brk);
            if let Some(LoopFrame::Divergent(cur)) = cx.cf.loops.last_mut() {
                cur.results = results;
                cur.brk = brk;
            }
        }
        None => return Err(cx.internal(i, "break outside a loop")),
    }
    Ok(())
}

/// `continue`.
pub(crate) fn continue_(cx: &mut Lower<'_>, i: Inst) -> Result<(), CompileError> {
    let vals: Vec<Val> = cx.f.args(i).iter().map(|&v| cx.val(v)).collect();
    match cx.cf.loops.last().cloned() {
        Some(LoopFrame::Uniform { header, exit, carried, results, .. }) => {
            let args: Vec<Val> = vals.iter().zip(&carried).map(|(v, f)| conform(cx, *v, *f)).collect();
            let a = flatten(&args);
            if cx.cf.partial {
                // No lane left on this path: leave instead of looping with none.
                let u: Vec<Val> = results.iter().map(|f| undef(cx, *f)).collect();
                let ea = flatten(&u);
                let m = MInst::one(cx.mi(Op::SCbranchExecz, &[]), &[]);
                branch(cx, m, (exit, ea), (header, a));
                exit_used(cx);
            } else {
                jump(cx, header, a);
            }
            cx.cf.dead = true;
        }
        Some(LoopFrame::Divergent(lv)) => {
            let (next, cont) = leave(cx, &lv.next, &vals, lv.cont);
            if let Some(LoopFrame::Divergent(cur)) = cx.cf.loops.last_mut() {
                cur.next = next;
                cur.cont = cont;
            }
        }
        None => return Err(cx.internal(i, "continue outside a loop")),
    }
    Ok(())
}

/// `return`.
pub(crate) fn return_(cx: &mut Lower<'_>, _i: Inst) -> Result<(), CompileError> {
    if !cx.cf.partial {
        cx.end_kernel();
        cx.cf.dead = true;
    } else {
        exec_off(cx);
    }
    Ok(())
}

/// Keeps the register classes referenced (their constants document the forms used here).
const _: [regalloc2::RegClass; 3] = [SGPR, VGPR, VGPR64];
