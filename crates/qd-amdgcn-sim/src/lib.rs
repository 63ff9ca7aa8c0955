//! `qd-amdgcn-sim`: a lane-exact AMDGCN wave simulator and hazard checker for gfx90a, gfx942 and
//! gfx1100 (wave64 everywhere, wave32 on gfx1100), the cost table the shuffle selector prices
//! sequences with, and a loader for HSA code objects.
//!
//! It depends on the ISA layer (`qd-amdgcn-isa`) only, never on the compiler it checks
//! (`qd-isel-amdgcn`): the simulator is the reference the compiler's output is tested against,
//! so it must not share the compiler's code. The compiler, in turn, uses the simulator's
//! per-instruction semantics ([`ops`]), register accesses ([`access`]), hazard rules
//! ([`hazard`]) and costs ([`cost`]), so that the wait states and prices it inserts are the ones
//! checked here.
//!
//! [`run`] executes a [`Program`] — decoded instructions at their byte offsets plus the kernel
//! setup a code object's descriptor describes — for a [`Dispatch`] (grid of workgroups,
//! workgroup size, kernarg bytes) over a bounds-checked [`GlobalMemory`]. Every workgroup gets its
//! own LDS; its waves run round-robin, each until it reaches `s_barrier` or `s_endpgm`, and
//! a barrier releases when every live wave of the workgroup has reached it (a wave that ended no
//! longer counts, as on the hardware). Initial register state follows docs/amdgcn-isa-facts.md §14:
//! the enabled user SGPRs in the fixed order from s0, then the workgroup ids; v0 holds the packed
//! work-item id (X in bits 9:0, Y in 19:10 and Z in 29:20 when enabled); EXEC has one bit per live
//! work-item, so the last wave of a workgroup may be partial. Everything else the hardware leaves
//! undefined (other VGPRs, v0 outside EXEC, later SGPRs, VCC, M0, the LDS) starts as garbage
//! ([`SimOptions::poison_undefined`], on by default) or, with that off, as zero.
//!
//! Every instruction runs through one exhaustive `match` over the table (`ops::sem`) with
//! per-architecture semantics. Along the way the simulator checks the hazard matrix of
//! docs/amdgcn-isa-facts.md §11.1 ([`SimErrorKind::Hazard`]), reads of registers whose memory
//! results were not waited for ([`SimErrorKind::MissingWait`]), LDS and global accesses outside
//! memory ([`SimErrorKind::OutOfBounds`]) and registers outside the kernel's allocation; each error
//! names the instruction's byte offset, the wave and, where it applies, the lane. It counts
//! executed instructions by [`InstClass`] and estimates cycles with the one [`CostTable`]
//! (docs/shuffle-lowering.md §5).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod access;
mod alu;
pub mod cost;
mod crosslane;
mod fp;
pub mod hazard;
mod loader;
mod mem_ops;
mod memory;
pub mod ops;
mod salu;
mod single;
mod state;
mod valu;
mod waits;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use qd_amdgcn_isa::{Family, Inst, Target};

pub use cost::{CostTable, InstClass};
pub use memory::GlobalMemory;
pub use single::WaveSim;

use access::Access;
use memory::Lds;
use ops::Sem;
use salu::Flow;
use state::Wave;
use waits::Kind;

/// The user SGPRs a kernel asks for (KERNEL_CODE_PROPERTIES bits), initialised from s0 in this
/// order (docs/amdgcn-isa-facts.md §14.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimUserSgprs {
    /// 4 SGPRs, zero in the simulator (no scratch).
    pub private_segment_buffer: bool,
    /// 2 SGPRs: the address of a 64-byte AQL dispatch packet the simulator fills in.
    pub dispatch_ptr: bool,
    /// 2 SGPRs: the address of a zeroed 256-byte queue block.
    pub queue_ptr: bool,
    /// 2 SGPRs: the address of the kernarg bytes.
    pub kernarg_segment_ptr: bool,
    /// 2 SGPRs: the dispatch id (0).
    pub dispatch_id: bool,
    /// 2 SGPRs, zero (no scratch).
    pub flat_scratch_init: bool,
    /// 1 SGPR: the private segment size (0).
    pub private_segment_size: bool,
    /// More user SGPRs after the enabled ones (zero): a descriptor's USER_SGPR_COUNT may exceed
    /// what its enabled items take (LLVM 19 writes 13 for gfx1100 wave32 kernels that enable 6),
    /// and the system SGPRs (workgroup ids) then start after all of them.
    pub extra: u8,
}

impl SimUserSgprs {
    /// Only the kernarg pointer (`s[0:1]`).
    pub fn kernarg_only() -> SimUserSgprs {
        SimUserSgprs { kernarg_segment_ptr: true, ..SimUserSgprs::default() }
    }
}

/// What a code object's kernel descriptor says, in simulator terms.
///
/// The float mode is not a field: the simulator always runs round-to-nearest-even, IEEE mode,
/// DX10 clamp, with f32 and f64 denormals kept (FLOAT_DENORM_MODE_32 = FLOAT_DENORM_MODE_16_64
/// = 3, what LLVM 19 writes for kernels with IEEE denormals), and
/// [`Program::from_code_object`] refuses kernels with float instructions whose descriptor says
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSetup {
    /// Architecture and wave size.
    pub target: Target,
    /// Enabled user SGPRs.
    pub user_sgprs: SimUserSgprs,
    /// Workgroup ids X, Y, Z in SGPRs after the user SGPRs.
    pub workgroup_id: [bool; 3],
    /// 1 = X only, 2 = X and Y, 3 = X, Y and Z in v0.
    pub workitem_id_dims: u8,
    /// LDS bytes per workgroup.
    pub group_segment_size: u32,
    /// VGPRs allocated (v0..); accesses beyond are errors.
    pub next_free_vgpr: u32,
    /// SGPRs allocated (s0..); accesses beyond are errors.
    pub next_free_sgpr: u32,
}

impl KernelSetup {
    /// Kernarg pointer in `s[0:1]`, workgroup id X in s2, X ids in v0, no LDS, 32 VGPRs, 16 SGPRs.
    pub fn new(target: Target) -> KernelSetup {
        KernelSetup {
            target,
            user_sgprs: SimUserSgprs::kernarg_only(),
            workgroup_id: [true, false, false],
            workitem_id_dims: 1,
            group_segment_size: 0,
            next_free_vgpr: 32,
            next_free_sgpr: 16,
        }
    }
}

/// A kernel: its setup and its decoded instructions with their byte offsets.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The setup.
    pub setup: KernelSetup,
    /// `(byte offset, instruction)` in increasing offset order; execution starts at the first.
    pub insts: Vec<(u32, Inst)>,
}

/// A launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Workgroups in X, Y, Z.
    pub grid: [u32; 3],
    /// Work-items per workgroup in X, Y, Z.
    pub block: [u32; 3],
    /// The kernarg segment.
    pub kernarg: Vec<u8>,
}

/// Simulation limits and switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Instructions one wave may execute before [`SimErrorKind::StepLimit`].
    pub max_steps_per_wave: u64,
    /// Check the §11.1 hazards.
    pub check_hazards: bool,
    /// Check memory-result waits.
    pub check_waits: bool,
    /// Moves the results of `v_rcp`, `v_rcp_iflag`, `v_rsq` and `v_sqrt` (f32 and f64) this many
    /// ULPs away from the correctly rounded value — up in even lanes, down in odd lanes — where
    /// the result is finite and nonzero, to test that code is correct for the hardware's ≈1 ULP
    /// approximations too. 0 (the default): correctly rounded.
    pub trans_ulp: i8,
    /// Fills what the hardware leaves undefined at dispatch with garbage instead of zeros: every
    /// VGPR but v0 (and v0 in lanes outside the initial EXEC), the SGPRs after the initialised
    /// user and system SGPRs, VCC, M0 and the workgroup's LDS. The pattern is a deterministic
    /// hash of the register, lane and wave, so a kernel that reads any of them before writing
    /// it computes visibly wrong results here as it would on a GPU (on by default).
    pub poison_undefined: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            max_steps_per_wave: 1_000_000,
            check_hazards: true,
            check_waits: true,
            trans_ulp: 0,
            poison_undefined: true,
        }
    }
}

/// Which wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct WaveId {
    /// Workgroup id X, Y, Z.
    pub workgroup: [u32; 3],
    /// Wave index inside the workgroup.
    pub wave: u32,
}

impl fmt::Display for WaveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "wave {} of workgroup ({x}, {y}, {z})", self.wave)
    }
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimErrorKind {
    /// A §11.1 hazard: missing wait states or `s_waitcnt_depctr`.
    Hazard,
    /// A register read or overwritten before its memory result was waited for, or LDS writes not
    /// waited for before `s_barrier`.
    MissingWait,
    /// An LDS or global access outside memory.
    OutOfBounds,
    /// A misaligned LDS access or atomic.
    Misaligned,
    /// A register outside the ISA or the kernel's allocation.
    RegisterRange,
    /// An operand of the wrong kind or width, or an illegal modifier combination.
    InvalidOperand,
    /// The op does not exist on the architecture, or a mode the simulator does not model.
    Unsupported,
    /// A branch target that is not an instruction, or execution past the last instruction.
    BadBranch,
    /// `s_trap`.
    Trap,
    /// A wave ran more than [`SimOptions::max_steps_per_wave`] instructions.
    StepLimit,
    /// The program's setup or the dispatch is inconsistent.
    InvalidDispatch,
}

/// A simulation error, naming the instruction's byte offset, the wave and the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    /// What went wrong.
    pub kind: SimErrorKind,
    /// Byte offset of the instruction.
    pub offset: u32,
    /// The lane, for per-lane faults.
    pub lane: Option<u32>,
    /// The wave.
    pub wave: Option<WaveId>,
    /// The instruction's mnemonic (empty for errors outside the program, such as host accesses).
    pub mnemonic: String,
    /// Details.
    pub message: String,
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.kind)?;
        if !self.mnemonic.is_empty() {
            write!(f, " at offset 0x{:x} (`{}`)", self.offset, self.mnemonic)?;
        }
        if let Some(w) = self.wave {
            write!(f, ", {w}")?;
        }
        if let Some(l) = self.lane {
            write!(f, ", lane {l}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SimError {}

/// LDS bytes a workgroup may have (64 KiB on every supported target).
pub(crate) const MAX_LDS: u32 = 64 * 1024;

/// An error inside an instruction, before the simulator adds where it happened.
#[derive(Clone, Debug)]
pub struct Fault {
    /// What kind of error.
    pub kind: SimErrorKind,
    /// The lane, where one is to blame.
    pub lane: Option<u32>,
    /// What went wrong.
    pub message: String,
}

impl Fault {
    pub(crate) fn new(kind: SimErrorKind, message: String) -> Fault {
        Fault { kind, lane: None, message }
    }

    /// Attaches a lane (the innermost one wins).
    pub(crate) fn at_lane(mut self, lane: u32) -> Fault {
        self.lane.get_or_insert(lane);
        self
    }

    pub(crate) fn into_host_error(self) -> SimError {
        SimError {
            kind: self.kind,
            offset: 0,
            lane: self.lane,
            wave: None,
            mnemonic: String::new(),
            message: self.message,
        }
    }
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Executed instructions per class (all waves).
    pub by_class: BTreeMap<InstClass, u64>,
    /// Executed instructions (all waves).
    pub instructions: u64,
    /// Waves run.
    pub waves: u64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Estimated cycles, summed over waves (serial issue model, [`CostTable`]).
    pub est_cycles: u64,
    /// The largest per-wave estimate.
    pub max_wave_cycles: u64,
}

impl SimStats {
    /// Executed instructions of one class.
    pub fn count(&self, class: InstClass) -> u64 {
        self.by_class.get(&class).copied().unwrap_or(0)
    }

    fn finish_wave(&mut self, w: &Wave) {
        self.waves += 1;
        self.est_cycles += w.cycles;
        self.max_wave_cycles = self.max_wave_cycles.max(w.cycles);
    }
}

/// One instruction with everything precomputed.
struct Step {
    offset: u32,
    inst: Inst,
    sem: Sem,
    acc: Access,
    class: InstClass,
}

/// A program prepared for a target.
pub(crate) struct Prepared {
    target: Target,
    steps: Vec<Step>,
    index: HashMap<u32, usize>,
    costs: CostTable,
}

impl Prepared {
    pub(crate) fn new(target: Target, insts: &[(u32, Inst)]) -> Prepared {
        let family = target.family();
        let lanes = target.wave.lanes();
        let steps = insts
            .iter()
            .map(|&(offset, inst)| {
                let sem = ops::sem(inst.op);
                Step {
                    offset,
                    inst,
                    sem,
                    acc: access::access(&inst, sem, family, lanes),
                    class: cost::class(&inst, sem),
                }
            })
            .collect();
        let index = insts.iter().enumerate().map(|(i, &(o, _))| (o, i)).collect();
        Prepared { target, steps, index, costs: CostTable::for_target(target) }
    }

    fn error(&self, w: &Wave, pc: usize, f: Fault) -> SimError {
        let (offset, mnemonic) = match self.steps.get(pc) {
            Some(s) => (s.offset, s.inst.op.name(self.target.arch).to_string()),
            None => (self.steps.last().map_or(0, |s| s.offset), "<end of program>".to_string()),
        };
        SimError { kind: f.kind, offset, lane: f.lane, wave: Some(w.id), mnemonic, message: f.message }
    }
}

/// Why a wave stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    Barrier,
    End,
}

/// Runs one wave until it ends or reaches a barrier. `end_ok`: running past the last
/// instruction ends the wave instead of being an error.
pub(crate) fn run_wave(
    p: &Prepared,
    w: &mut Wave,
    mem: &mut GlobalMemory,
    lds: &mut Lds,
    stats: &mut SimStats,
    opts: &SimOptions,
    end_ok: bool,
) -> Result<Stop, SimError> {
    loop {
        let Some(step) = p.steps.get(w.pc) else {
            if end_ok {
                return Ok(Stop::End);
            }
            return Err(p.error(
                w,
                w.pc,
                Fault::new(SimErrorKind::BadBranch, "execution ran past the last instruction".into()),
            ));
        };
        if w.steps >= opts.max_steps_per_wave {
            return Err(p.error(
                w,
                w.pc,
                Fault::new(SimErrorKind::StepLimit, format!("more than {} instructions", opts.max_steps_per_wave)),
            ));
        }
        w.steps += 1;
        let next = p.steps.get(w.pc + 1).map_or(u64::from(step.offset) + 4, |s| u64::from(s.offset));
        let flow = execute(p, w, step, next, mem, lds, opts).map_err(|f| p.error(w, w.pc, f))?;
        let nop_states = if step.sem == Sem::SNop { (step.inst.imm as u32 & 0xF) + 1 } else { 1 };
        *stats.by_class.entry(step.class).or_insert(0) += 1;
        stats.instructions += 1;
        w.cycles += u64::from(p.costs.cost(step.class, nop_states));
        match flow {
            Flow::Next => w.pc += 1,
            Flow::Jump(target) => {
                let idx = u32::try_from(target).ok().and_then(|t| p.index.get(&t).copied());
                match idx {
                    Some(i) => w.pc = i,
                    None => {
                        return Err(p.error(
                            w,
                            w.pc,
                            Fault::new(
                                SimErrorKind::BadBranch,
                                format!("branch target 0x{target:x} is not the start of an instruction"),
                            ),
                        ));
                    }
                }
            }
            Flow::End => {
                w.done = true;
                return Ok(Stop::End);
            }
            Flow::Barrier => {
                w.pc += 1;
                return Ok(Stop::Barrier);
            }
        }
    }
}

/// Executes one instruction with its checks.
fn execute(
    p: &Prepared,
    w: &mut Wave,
    step: &Step,
    next: u64,
    mem: &mut GlobalMemory,
    lds: &mut Lds,
    opts: &SimOptions,
) -> Result<Flow, Fault> {
    let (inst, sem, acc) = (&step.inst, step.sem, &step.acc);
    let arch = p.target.arch;
    if !inst.op.available(arch) {
        return Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} does not exist on {}", inst.op, p.target)));
    }
    if opts.check_hazards {
        w.hazards.check(arch, w.lanes, inst, sem, acc)?;
    }
    let mem_kind = memory_kind(inst, sem);
    if opts.check_waits {
        w.waits.check(acc, mem_kind)?;
    }
    let flow = match sem {
        _ if ops::is_salu(sem) => salu::exec(w, inst, sem, next)?,
        Sem::SWaitcntVscnt
        | Sem::SNop
        | Sem::SEndpgm
        | Sem::SBranch(_)
        | Sem::SBarrier
        | Sem::SWaitcnt
        | Sem::SWaitcntDepctr
        | Sem::STrap
        | Sem::SHint => salu::exec(w, inst, sem, next)?,
        Sem::SLoad | Sem::SBufferLoad | Sem::SDcacheInv | Sem::SMemtime => {
            mem_ops::smem(w, inst, sem, mem)?;
            Flow::Next
        }
        Sem::VReadfirstlane => {
            crosslane::readfirstlane(w, inst)?;
            Flow::Next
        }
        Sem::VReadlane => {
            crosslane::readlane(w, inst)?;
            Flow::Next
        }
        Sem::VWritelane => {
            crosslane::writelane(w, inst)?;
            Flow::Next
        }
        Sem::VPermlane16 | Sem::VPermlanex16 => {
            crosslane::permlane16(w, inst, sem == Sem::VPermlanex16)?;
            Flow::Next
        }
        Sem::VPermlane64 => {
            crosslane::permlane64(w, inst)?;
            Flow::Next
        }
        _ if ops::is_valu(sem) => {
            valu::exec(w, inst, sem, opts.trans_ulp)?;
            Flow::Next
        }
        Sem::DsSwizzle => {
            crosslane::swizzle(w, inst)?;
            Flow::Next
        }
        Sem::DsBpermute | Sem::DsPermute => {
            crosslane::permute(w, inst, sem == Sem::DsBpermute)?;
            Flow::Next
        }
        _ if ops::is_ds(sem) => {
            mem_ops::ds(w, inst, sem, lds)?;
            Flow::Next
        }
        _ if ops::is_vmem(sem) => {
            mem_ops::vmem(w, inst, sem, mem)?;
            Flow::Next
        }
        Sem::CacheCtl => Flow::Next,
        _ => return Err(Fault::new(SimErrorKind::Unsupported, format!("{:?} has no executor", inst.op))),
    };
    if flow == Flow::Barrier && opts.check_waits {
        w.waits.check_barrier()?;
    }
    let family = p.target.family();
    match sem {
        Sem::FlatLoad | Sem::FlatStore => w.waits.issue_flat(family, sem == Sem::FlatStore, step.offset, acc),
        _ => {
            if let Some(kind) = mem_kind {
                let lds_write = kind == Kind::Ds && ops::is_ds(sem) && lds_writes(sem);
                w.waits.issue(family, kind, step.offset, acc, lds_write);
            }
        }
    }
    w.hazards.record(family, w.lanes, inst, sem, acc, step.offset);
    Ok(flow)
}

fn lds_writes(sem: Sem) -> bool {
    matches!(sem, Sem::DsStore | Sem::DsAtomic(..) | Sem::DsCmpst)
}

/// The wait counter an instruction's result is tracked by.
fn memory_kind(inst: &Inst, sem: Sem) -> Option<Kind> {
    match sem {
        Sem::SLoad | Sem::SBufferLoad | Sem::SMemtime => Some(Kind::Smem),
        _ if ops::is_ds(sem) => Some(Kind::Ds),
        Sem::FlatLoad | Sem::GLoad(_) => Some(Kind::VmLoad),
        Sem::FlatStore | Sem::GStore(_) => Some(Kind::VmStore),
        Sem::GAtomic(_) | Sem::GCas => {
            Some(if inst.operands[0] == qd_amdgcn_isa::Operand::None { Kind::VmStore } else { Kind::VmLoad })
        }
        _ => None,
    }
}

fn setup_error(msg: String) -> SimError {
    SimError {
        kind: SimErrorKind::InvalidDispatch,
        offset: 0,
        lane: None,
        wave: None,
        mnemonic: String::new(),
        message: msg,
    }
}

/// Addresses of the dispatch's memory blocks.
struct Blocks {
    kernarg: u64,
    packet: u64,
    queue: u64,
}

fn write_u(mem: &mut GlobalMemory, addr: u64, bytes: &[u8]) -> Result<(), SimError> {
    mem.write(addr, bytes)
}

fn alloc_blocks(setup: &KernelSetup, d: &Dispatch, mem: &mut GlobalMemory) -> Result<Blocks, SimError> {
    let kernarg = mem.alloc(d.kernarg.len(), 64);
    mem.write(kernarg, &d.kernarg)?;
    let packet = mem.alloc(64, 64);
    let dims: u16 = if d.grid[2] > 1 || d.block[2] > 1 {
        3
    } else if d.grid[1] > 1 || d.block[1] > 1 {
        2
    } else {
        1
    };
    write_u(mem, packet + 2, &dims.to_le_bytes())?;
    for k in 0..3 {
        write_u(mem, packet + 4 + 2 * k, &(d.block[k as usize] as u16).to_le_bytes())?;
        let items = d.grid[k as usize].wrapping_mul(d.block[k as usize]);
        write_u(mem, packet + 12 + 4 * k, &items.to_le_bytes())?;
    }
    write_u(mem, packet + 28, &setup.group_segment_size.to_le_bytes())?;
    write_u(mem, packet + 40, &kernarg.to_le_bytes())?;
    let queue = mem.alloc(256, 64);
    Ok(Blocks { kernarg, packet, queue })
}

/// A garbage word for an undefined register or LDS dword (splitmix64 of `key`).
pub(crate) fn poison_word(key: u64) -> u32 {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// The initial state of wave `index` of workgroup `wg` (undefined registers poisoned when
/// `poison`).
fn init_wave(
    setup: &KernelSetup,
    d: &Dispatch,
    blocks: &Blocks,
    wg: [u32; 3],
    index: u32,
    poison: bool,
) -> Result<Wave, SimError> {
    let t = setup.target;
    let u = setup.user_sgprs;
    let mut sgprs: Vec<u32> = Vec::new();
    let pair = |v: u64| [v as u32, (v >> 32) as u32];
    if u.private_segment_buffer {
        sgprs.extend([0; 4]);
    }
    if u.dispatch_ptr {
        sgprs.extend(pair(blocks.packet));
    }
    if u.queue_ptr {
        sgprs.extend(pair(blocks.queue));
    }
    if u.kernarg_segment_ptr {
        sgprs.extend(pair(blocks.kernarg));
    }
    if u.dispatch_id {
        sgprs.extend([0; 2]);
    }
    if u.flat_scratch_init {
        sgprs.extend([0; 2]);
    }
    if u.private_segment_size {
        sgprs.push(0);
    }
    if sgprs.len() > 16 {
        return Err(setup_error(format!("{} user SGPRs requested; at most 16 are initialised", sgprs.len())));
    }
    sgprs.extend(std::iter::repeat_n(0, usize::from(u.extra)));
    if sgprs.len() > 31 {
        return Err(setup_error(format!("USER_SGPR_COUNT {} exceeds the 5-bit field", sgprs.len())));
    }
    for (&enabled, &id) in setup.workgroup_id.iter().zip(&wg) {
        if enabled {
            sgprs.push(id);
        }
    }
    let max_sgpr = match t.family() {
        Family::Gfx9 => 102,
        Family::Gfx11 => state::NUM_SGPRS as u32,
    };
    let limit = setup.next_free_sgpr.max(sgprs.len() as u32).min(max_sgpr);
    if setup.next_free_vgpr == 0 || setup.next_free_vgpr > 256 {
        return Err(setup_error(format!("next_free_vgpr = {} (must be 1..=256)", setup.next_free_vgpr)));
    }
    let mut w = Wave::new(t, WaveId { workgroup: wg, wave: index }, limit, setup.next_free_vgpr);
    let seed = (u64::from(wg[0]) | u64::from(wg[1]) << 16 | u64::from(wg[2]) << 32) << 12 | u64::from(index);
    if poison {
        for r in sgprs.len()..state::NUM_SGPRS {
            w.sgpr_init(r, poison_word(seed << 20 | 0x8_0000 | r as u64));
        }
        for (k, v) in w.vgpr.iter_mut().enumerate() {
            *v = poison_word(seed << 20 | k as u64);
        }
        w.vcc = u64::from(poison_word(seed << 20 | 0x9_0000)) | u64::from(poison_word(seed << 20 | 0x9_0001)) << 32;
        w.m0 = poison_word(seed << 20 | 0x9_0002);
    }
    for (i, &v) in sgprs.iter().enumerate() {
        w.sgpr_init(i, v);
    }
    let [bx, by, bz] = d.block;
    let total = bx * by * bz;
    for lane in 0..w.lanes {
        let flat = index * w.lanes + lane;
        if flat >= total {
            continue;
        }
        w.exec |= 1 << lane;
        let (x, y, z) = (flat % bx, flat / bx % by, flat / (bx * by));
        let mut v0 = x;
        if setup.workitem_id_dims >= 2 {
            v0 |= y << 10;
        }
        if setup.workitem_id_dims >= 3 {
            v0 |= z << 20;
        }
        w.vgpr[lane as usize] = v0;
    }
    Ok(w)
}

/// Runs a program for a dispatch with the default [`SimOptions`].
pub fn run(program: &Program, dispatch: &Dispatch, mem: &mut GlobalMemory) -> Result<SimStats, SimError> {
    run_with(program, dispatch, mem, &SimOptions::default())
}

/// Runs a program for a dispatch. The kernarg bytes, a dispatch packet and a queue block are
/// allocated in `mem` first.
pub fn run_with(
    program: &Program,
    dispatch: &Dispatch,
    mem: &mut GlobalMemory,
    opts: &SimOptions,
) -> Result<SimStats, SimError> {
    let setup = &program.setup;
    let t = setup.target;
    if Target::new(t.arch, t.wave).is_none() {
        return Err(setup_error(format!("{} cannot run {:?}", t.arch, t.wave)));
    }
    let [bx, by, bz] = dispatch.block;
    if bx == 0 || by == 0 || bz == 0 || bx > 1024 || by > 1024 || bz > 1024 || bx * by * bz > 1024 {
        return Err(setup_error(format!("workgroup size {:?} must be 1..=1024 work-items", dispatch.block)));
    }
    if dispatch.grid.contains(&0) {
        return Err(setup_error(format!("grid {:?} has an empty dimension", dispatch.grid)));
    }
    if !(1..=3).contains(&setup.workitem_id_dims) {
        return Err(setup_error(format!("workitem_id_dims = {} (must be 1..=3)", setup.workitem_id_dims)));
    }
    if setup.group_segment_size > MAX_LDS {
        return Err(setup_error(format!("group_segment_size = {} exceeds 64 KiB", setup.group_segment_size)));
    }
    if program.insts.is_empty() {
        return Err(setup_error("the program has no instructions".into()));
    }
    let prepared = Prepared::new(t, &program.insts);
    let blocks = alloc_blocks(setup, dispatch, mem)?;
    let lanes = t.wave.lanes();
    let waves_per_group = (bx * by * bz).div_ceil(lanes);
    let mut stats = SimStats::default();
    for z in 0..dispatch.grid[2] {
        for y in 0..dispatch.grid[1] {
            for x in 0..dispatch.grid[0] {
                let wg = [x, y, z];
                let mut lds = if opts.poison_undefined {
                    let seed = u64::from(x) | u64::from(y) << 16 | u64::from(z) << 32;
                    Lds::poisoned(setup.group_segment_size, seed)
                } else {
                    Lds::new(setup.group_segment_size)
                };
                let mut waves = (0..waves_per_group)
                    .map(|i| init_wave(setup, dispatch, &blocks, wg, i, opts.poison_undefined))
                    .collect::<Result<Vec<_>, _>>()?;
                loop {
                    for w in waves.iter_mut().filter(|w| !w.done && !w.at_barrier) {
                        let stop = run_wave(&prepared, w, mem, &mut lds, &mut stats, opts, false)?;
                        w.at_barrier = stop == Stop::Barrier;
                    }
                    if waves.iter().all(|w| w.done) {
                        break;
                    }
                    for w in waves.iter_mut() {
                        w.at_barrier = false;
                    }
                }
                for w in &waves {
                    stats.finish_wave(w);
                }
                stats.workgroups += 1;
            }
        }
    }
    Ok(stats)
}
