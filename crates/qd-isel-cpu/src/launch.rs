//! One launch of a compiled kernel: arguments checked and bound as the interpreter binds them,
//! blocks run in parallel, the subgroups of a block on one thread, faults rendered as the
//! interpreter renders them.
//!
//! # Threads and blocks
//!
//! A pool of `min(cores, blocks)` scoped threads takes blocks from one counter in increasing
//! linear order (x fastest). A block that waits for an earlier one (decoupled look-back, the
//! onesweep sort) therefore waits only for a block that some thread already runs. When a block
//! faults, no block after it starts; blocks before it finish, and the fault of the lowest faulting
//! block is reported — the one the interpreter, which runs blocks in order, would report.
//!
//! # Subgroups and block barriers
//!
//! The subgroups of a block take turns exactly as in the interpreter: subgroup 0 runs until it
//! finishes or reaches a block barrier, then subgroup 1, and so on; when every subgroup still
//! running waits, all must wait at the same barrier, `block.sync_pred` is combined, and the round
//! starts again. A kernel with a barrier and more than one subgroup per block runs each subgroup
//! on a coroutine (its own small stack, switched on the same thread), so a barrier anywhere — in
//! loops and `if`s included — is a suspension of the subgroup's native code; everything the code
//! holds stays on its stack. Kernels without barriers, and blocks of one subgroup, call the code
//! directly.
//!
//! # Limits
//!
//! The code counts lane-instructions (per region entry: the region's instructions times its
//! active lanes) against a budget it refills from the launch every [`BUDGET_CHUNK`] steps; the
//! refill checks the step limit, the time limit and a fault elsewhere. A kernel that never ends
//! is therefore stopped with a fault naming the instruction it was at.

use crate::abi::{MemDesc, SgCtx, STATUS_ABORT, STATUS_DONE};
use crate::helpers::{sync_pred_result, BarrierCall, BarrierReply, PendingFault, SgHost, BUDGET_CHUNK};
use crate::CpuKernel;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use qd_mir::interp::{self, pointer, ArgValue, FaultSite, InterpError, RunStats, MAX_SHARED_BYTES};
use qd_mir::text::printer::print_inst;
use qd_mir::{AddrSpace, Type};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Limits that stop a kernel that runs too long.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Fault after about this many lane-instructions (counted per region entry).
    pub step_limit: Option<u64>,
    /// Fault after this much wall-clock time.
    pub time_limit: Option<Duration>,
}

/// How to run one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Overrides the kernel's grid.
    pub grid: Option<[u32; 3]>,
    /// Overrides the kernel's block size.
    pub block: Option<[u32; 3]>,
    /// Step and time limits.
    pub limits: Limits,
    /// Worker threads (default: the machine's available parallelism).
    pub threads: Option<usize>,
}

/// What every subgroup of a launch shares.
pub struct Shared<'k> {
    /// The kernel.
    pub kernel: &'k CpuKernel,
    /// Byte lengths of the global buffers (per parameter; `None` for scalars).
    pub global_len: Vec<Option<usize>>,
    /// Byte lengths of the shared arrays.
    pub shared_len: Vec<usize>,
    /// Set when a fault stops the launch.
    pub abort: AtomicBool,
    /// Lane-instructions charged so far.
    pub steps: AtomicU64,
    /// The limits.
    pub limits: Limits,
    /// When the time limit runs out.
    pub deadline: Option<Instant>,
}

impl Shared<'_> {
    /// The byte length of buffer `id` in `space`, `None` when there is no such buffer.
    pub fn len_of(&self, space: AddrSpace, id: usize) -> Option<usize> {
        match space {
            AddrSpace::Global => self.global_len.get(id).copied().flatten(),
            AddrSpace::Shared => self.shared_len.get(id).copied(),
        }
    }
}

/// The global part of the memory table, shared by the worker threads.
struct Globals(Vec<MemDesc>);

// SAFETY: the descriptors point into the caller's argument buffers, which outlive the launch's
// thread scope; the threads access that memory only through compiled kernel code, whose
// concurrent accesses are the kernel's own (atomics are machine atomics).
unsafe impl Sync for Globals {}
// SAFETY: as above.
unsafe impl Send for Globals {}

impl Globals {
    fn table(&self) -> &[MemDesc] {
        &self.0
    }
}

/// Stack size of a subgroup coroutine.
const STACK_BYTES: usize = 256 << 10;

impl CpuKernel {
    /// Runs the kernel over `args` (one per parameter; buffers updated in place).
    pub fn run(&self, args: &mut [ArgValue], opts: &RunOptions) -> Result<RunStats, InterpError> {
        let bind: Vec<usize> = (0..args.len()).collect();
        if args.len() != self.function().params.len() {
            let f = self.function();
            return Err(InterpError::new(
                &f.name,
                format!("expects {} argument(s), got {}", f.params.len(), args.len()),
            ));
        }
        self.run_shared(args, &bind, opts)
    }

    /// Runs the kernel with parameter `i` bound to `args[bind[i]]`, so one buffer can be bound to
    /// several parameters (see `qd_mir::interp::run_kernel_shared`).
    pub fn run_shared(
        &self,
        args: &mut [ArgValue],
        bind: &[usize],
        opts: &RunOptions,
    ) -> Result<RunStats, InterpError> {
        let f = self.function();
        let (scalars, param_slot) = interp::bind_args(f, args, bind)?;
        let (block, grid) = interp::geometry(f, opts.grid, opts.block, &scalars)?;
        let shared_len: Vec<usize> = f.shared.values().map(|s| s.len as usize * s.elem.bytes() as usize).collect();
        let shared_bytes: u64 = shared_len.iter().map(|&b| b as u64).sum();
        if shared_bytes > MAX_SHARED_BYTES {
            return Err(InterpError::new(
                &f.name,
                format!("shared arrays need {shared_bytes} bytes, more than {MAX_SHARED_BYTES}"),
            ));
        }
        // The global memory table.
        let mut bases: Vec<(*mut u8, usize)> = Vec::with_capacity(args.len());
        for a in args.iter_mut() {
            bases.push(match a {
                ArgValue::Buffer(b) => {
                    let n = b.elem.bytes() as usize;
                    let len = b.data.len() / n * n;
                    (b.data.as_mut_ptr(), len)
                }
                ArgValue::Scalar(..) => (std::ptr::null_mut(), 0),
            });
        }
        let mut globals = Vec::with_capacity(f.params.len());
        let mut global_len = Vec::with_capacity(f.params.len());
        let mut params = Vec::with_capacity(f.params.len());
        for (i, p) in f.params.iter().enumerate() {
            match param_slot[i] {
                Some(k) => {
                    let (base, len) = bases[k];
                    globals.push(MemDesc { base, len: len as u64 });
                    global_len.push(Some(len));
                }
                None => {
                    globals.push(MemDesc { base: std::ptr::null_mut(), len: 0 });
                    global_len.push(None);
                }
            }
            params.push(match (p.ty, scalars[i]) {
                (Type::Ptr(space, _), _) => pointer::encode(space, i as u32, 0),
                (Type::Scalar(s), Some(bits)) => qd_mir::eval::canon(s, bits),
                (Type::Scalar(_), None) => 0,
            });
        }
        let globals = Globals(globals);
        let total = u64::from(grid[0]) * u64::from(grid[1]) * u64::from(grid[2]);
        let sh = Shared {
            kernel: self,
            global_len,
            shared_len,
            abort: AtomicBool::new(false),
            steps: AtomicU64::new(0),
            limits: opts.limits,
            deadline: opts.limits.time_limit.map(|d| Instant::now() + d),
        };
        let threads = opts
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
            .max(1)
            .min(total.max(1) as usize);
        let next = AtomicU64::new(0);
        let bound = AtomicU64::new(u64::MAX);
        let first_fault: Mutex<Option<(u64, InterpError)>> = Mutex::new(None);
        let barriers = AtomicU64::new(0);
        let geo = Geo { block, grid };
        let work = || {
            let mut w = Worker::new(&sh, globals.table(), &params, geo);
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= total || b > bound.load(Ordering::Relaxed) {
                    break;
                }
                match w.run_block(b) {
                    Ok(n) => {
                        barriers.fetch_add(n, Ordering::Relaxed);
                    }
                    Err(None) => {}
                    Err(Some(e)) => {
                        bound.fetch_min(b, Ordering::Relaxed);
                        let mut g = first_fault.lock().unwrap_or_else(|p| p.into_inner());
                        if g.as_ref().is_none_or(|(fb, _)| b < *fb) {
                            *g = Some((b, e));
                        }
                    }
                }
            }
            w.steps
        };
        let steps: u64 = if threads <= 1 {
            work()
        } else {
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
                hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
            })
        };
        if let Some((_, e)) = first_fault.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        Ok(RunStats { lane_instructions: steps, blocks: total, barriers: barriers.into_inner() })
    }
}

#[derive(Copy, Clone)]
struct Geo {
    block: [u32; 3],
    grid: [u32; 3],
}

/// One worker thread's state: a register file, contexts and shared memory for one block.
struct Worker<'k> {
    sh: &'k Shared<'k>,
    geo: Geo,
    nsg: usize,
    regs: Vec<u64>,
    mem: Vec<MemDesc>,
    shared_mem: Vec<Vec<u8>>,
    params: &'k [u64],
    stacks: Vec<DefaultStack>,
    steps: u64,
}

impl<'k> Worker<'k> {
    fn new(sh: &'k Shared<'k>, globals: &[MemDesc], params: &'k [u64], geo: Geo) -> Worker<'k> {
        let w = sh.kernel.width() as u64;
        let threads = geo.block.iter().map(|&d| u64::from(d)).product::<u64>();
        let nsg = threads.div_ceil(w) as usize;
        let per = sh.kernel.slots() as usize * w as usize;
        let mut shared_mem: Vec<Vec<u8>> = sh.shared_len.iter().map(|&n| vec![0u8; n]).collect();
        let mut mem = globals.to_vec();
        for s in &mut shared_mem {
            // The arrays' heap storage does not move when the vector of them moves into the worker.
            mem.push(MemDesc { base: s.as_mut_ptr(), len: s.len() as u64 });
        }
        // One entry more than the kernel names: the inline check may read it before faulting.
        mem.push(MemDesc { base: std::ptr::null_mut(), len: 0 });
        Worker { sh, geo, nsg, regs: vec![0; per * nsg], mem, shared_mem, params, stacks: Vec::new(), steps: 0 }
    }

    /// Runs block `b` (linear index); the number of barriers released, or the fault (`None` when
    /// the block was abandoned because of a fault elsewhere).
    fn run_block(&mut self, b: u64) -> Result<u64, Option<InterpError>> {
        let [gx, gy, _] = self.geo.grid;
        let (gx, gy) = (u64::from(gx), u64::from(gy));
        let block_id = [(b % gx) as u32, (b / gx % gy) as u32, (b / (gx * gy)) as u32];
        for s in &mut self.shared_mem {
            s.fill(0);
        }
        let k = self.sh.kernel;
        let w = k.width() as usize;
        let threads = self.geo.block.iter().map(|&d| u64::from(d)).product::<u64>();
        let per = k.slots() as usize * w;
        let mut hosts: Vec<SgHost<'_>> = (0..self.nsg)
            .map(|_| SgHost {
                shared: self.sh,
                fault: None,
                yielder: std::ptr::null(),
                pred: std::ptr::null(),
                live: 0,
                steps: 0,
            })
            .collect();
        let regs = self.regs.as_mut_ptr();
        let mut ctxs: Vec<SgCtx> = (0..self.nsg)
            .map(|i| {
                let first = (i * w) as u64;
                let present = threads.saturating_sub(first).min(w as u64) as u32;
                SgCtx {
                    // SAFETY: `regs` holds `per` slots for each of the `nsg` subgroups.
                    regs: unsafe { regs.add(i * per) },
                    mem: self.mem.as_ptr(),
                    params: self.params.as_ptr(),
                    block_id,
                    subgroup_id: i as u32,
                    block_dim: self.geo.block,
                    first_thread: first as u32,
                    grid_dim: self.geo.grid,
                    pad: 0,
                    live: if present >= 64 { u64::MAX } else { (1u64 << present) - 1 },
                    budget: BUDGET_CHUNK,
                    host: std::ptr::null_mut(),
                }
            })
            .collect();
        for (c, h) in ctxs.iter_mut().zip(hosts.iter_mut()) {
            c.host = h as *mut SgHost<'_> as *mut core::ffi::c_void;
        }
        let result = if k.has_barrier() && self.nsg > 1 {
            self.run_coroutines(&mut ctxs, &mut hosts, block_id, b)
        } else {
            let mut r = Ok(0);
            for i in 0..self.nsg {
                // SAFETY: the context is fully initialised, its host and register slots are this
                // subgroup's alone, and the entry has the `Entry` signature.
                let status = unsafe { (k.entry())(&mut ctxs[i]) };
                if status != STATUS_DONE {
                    r = Err(self.fault_of(&hosts[i], &ctxs[i], status, block_id));
                    break;
                }
            }
            r
        };
        for (c, h) in ctxs.iter().zip(&hosts) {
            self.steps += h.steps + (BUDGET_CHUNK - c.budget).max(0) as u64;
        }
        result
    }

    /// Turns a subgroup's status into the launch's fault (or `None` when it was aborted).
    fn fault_of(&self, h: &SgHost<'_>, c: &SgCtx, status: u32, block: [u32; 3]) -> Option<InterpError> {
        if status == STATUS_ABORT {
            return None;
        }
        let f = self.sh.kernel.function();
        let pf = h.fault.clone().unwrap_or(PendingFault {
            key: 0,
            message: format!("the native code stopped with status {status}"),
            inst: None,
            lane: None,
        });
        let at = FaultSite {
            inst: pf.inst.map(|i| print_inst(f, i)),
            block: Some(block),
            subgroup: if pf.lane.is_none() && pf.inst.is_some() { Some(c.subgroup_id) } else { None },
            thread: pf.lane.map(|l| c.first_thread + l),
            lane: pf.lane,
        };
        self.sh.abort.store(true, Ordering::Relaxed);
        Some(InterpError { at: Box::new(at), ..InterpError::new(&f.name, pf.message) })
    }

    /// Runs the subgroups of a block on coroutines, taking turns at barriers.
    fn run_coroutines(
        &mut self,
        ctxs: &mut [SgCtx],
        hosts: &mut [SgHost<'_>],
        block: [u32; 3],
        linear: u64,
    ) -> Result<u64, Option<InterpError>> {
        type Co = Coroutine<BarrierReply, BarrierCall, u32, DefaultStack>;
        let k = self.sh.kernel;
        let entry = k.entry();
        let mut cos: Vec<Co> = Vec::with_capacity(ctxs.len());
        for c in ctxs.iter_mut() {
            let stack = match self.stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(STACK_BYTES).map_err(|e| {
                    Some(InterpError::new(&k.function().name, format!("cannot allocate a subgroup stack: {e}")))
                })?,
            };
            let ctx_addr = c as *mut SgCtx as usize;
            cos.push(Coroutine::with_stack(stack, move |y: &Yielder<BarrierReply, BarrierCall>, _first| {
                let ctx = ctx_addr as *mut SgCtx;
                // SAFETY: the context and its host outlive the coroutine (it is driven to
                // completion below before either is dropped); the yielder is this coroutine's.
                unsafe {
                    (*((*ctx).host as *mut SgHost<'_>)).yielder = y;
                    entry(ctx)
                }
            }));
        }
        #[derive(Copy, Clone, PartialEq)]
        enum St {
            Run(u64),
            Wait(qd_mir::Inst),
            Done,
        }
        let mut st = vec![St::Run(0); cos.len()];
        let mut released = 0u64;
        let mut fault: Option<Option<InterpError>> = None;
        'rounds: loop {
            for i in 0..cos.len() {
                let St::Run(v) = st[i] else { continue };
                match cos[i].resume(BarrierReply::Release(v)) {
                    CoroutineResult::Yield(call) => st[i] = St::Wait(call.inst),
                    CoroutineResult::Return(status) => {
                        st[i] = St::Done;
                        if status != STATUS_DONE {
                            fault = Some(self.fault_of(&hosts[i], &ctxs[i], status, block));
                            break 'rounds;
                        }
                    }
                }
            }
            let waiting: Vec<(usize, qd_mir::Inst)> = st
                .iter()
                .enumerate()
                .filter_map(|(i, s)| if let St::Wait(b) = s { Some((i, *b)) } else { None })
                .collect();
            let Some(&(first_sg, barrier)) = waiting.first() else { break };
            if let Some(&(other_sg, other)) = waiting.iter().find(|&&(_, b)| b != barrier) {
                let f = k.function();
                let msg = format!(
                    "subgroups of block {linear} wait at different barriers: subgroup {first_sg} at `{}` ({barrier}), \
                     subgroup {other_sg} at `{}` ({other})",
                    print_inst(f, barrier),
                    print_inst(f, other)
                );
                let at = FaultSite { block: Some(block), ..FaultSite::default() };
                self.sh.abort.store(true, Ordering::Relaxed);
                fault = Some(Some(InterpError { at: Box::new(at), ..InterpError::new(&f.name, msg) }));
                break;
            }
            let preds: Vec<(*const u64, u64)> = waiting.iter().map(|&(i, _)| (hosts[i].pred, hosts[i].live)).collect();
            let v = sync_pred_result(k.function(), barrier, &preds, k.width() as usize);
            for &(i, _) in &waiting {
                st[i] = St::Run(v);
            }
            released += 1;
        }
        // Stop the subgroups still suspended, so every coroutine ends on its own (a coroutine
        // dropped while suspended would have to unwind through native code).
        for co in cos.iter_mut() {
            if co.started() && !co.done() {
                let _ = co.resume(BarrierReply::Abort);
            }
        }
        for co in cos {
            if co.done() {
                self.stacks.push(co.into_stack());
            }
        }
        match fault {
            Some(e) => Err(e),
            None => Ok(released),
        }
    }
}
