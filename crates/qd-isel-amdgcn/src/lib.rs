//! `qd-isel-amdgcn`: AMDGCN machine code for gfx90a, gfx942 and gfx1100, with no LLVM.
//!
//! - [`compile_kernel`] selects instructions for a verified MIR kernel (`lower`: uniform values
//!   in SGPRs, varying ones in VGPRs, structured control flow on the EXEC mask), allocates
//!   registers with regalloc2 (`vcode`, `regalloc`), emits the final instructions (`emit`) with
//!   memory waits (`waitcnt`) and hazard wait states (`hazard`), encodes them and writes an HSA
//!   code object (`qd_amdgcn_isa::code_object`);
//! - [`select`]: the shuffle selector, which picks the cross-lane sequence for every shuffle,
//!   broadcast, reduction and scan;
//! - [`abi`]: the kernarg layout and entry registers;
//! - [`seq`]: correctly rounded f32/f64 division and square-root instruction sequences;
//! - [`runner`]: compile-and-simulate helpers that run a [`CompiledKernel`] on the wave simulator.
//!
//! The machine-code layer (instruction table, encoder, decoder, printer, parser, code objects,
//! targets) is the `qd-amdgcn-isa` crate, and the wave simulator that checks this crate's output
//! is `qd-amdgcn-sim`; the target types are re-exported here for convenience.
//!
//! See `docs/amdgcn.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod abi;
mod emit;
mod hazard;
mod lower;
mod regalloc;
mod relax;
pub mod runner;
pub mod select;
pub mod seq;
mod vcode;
mod waitcnt;

use qd_mir::{Function, Inst, KernelFacts, VerifiedKernel};

pub use qd_mir::CompileError;

pub use qd_amdgcn_isa::{Arch, Family, Target, WaveSize};
pub use select::{Candidate, Choice, Cost, Listing, ShuffleLowering};

use abi::KernargLayout;
use qd_amdgcn_isa::code_object::{self, CodeObjectConfig, KernelCode, KernelResources, UserSgprs};
use qd_amdgcn_isa::dwarf;
use qd_amdgcn_sim as sim;

/// What to compile for, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmdgcnOptions {
    /// Architecture and wave size.
    pub target: Target,
    /// VGPRs the kernel may use in all (occupancy budget; spills beyond). At most 256.
    pub max_vgprs: u32,
    /// SGPRs the kernel may use in all (at most the architecture's addressable count).
    pub max_sgprs: u32,
    /// Run regalloc2's SSA validator and checker on the allocation (tests turn this on).
    pub check_regalloc: bool,
    /// Keep the VCode listing in [`CompiledKernel::vcode`] (`qdc compile --emit vcode`); off by
    /// default, as printing it costs more than a quarter of a compile.
    pub keep_vcode: bool,
    /// The cross-lane lowering family forced on every shuffle, reduction and scan of the kernel
    /// (`Auto`: the selector's cheapest; `qdc compile --shuffle-lowering`). A family with no
    /// sequence for some op is a compile error naming the op.
    pub shuffle_lowering: ShuffleLowering,
    /// Per-op overrides of `shuffle_lowering`, by MIR instruction (the last entry for an
    /// instruction wins).
    pub op_lowering: Vec<(qd_mir::Inst, ShuffleLowering)>,
    /// Per-op choice of one named candidate ([`Candidate::name`], as `qdc explain` lists them),
    /// overriding both of the above: the research hook and what the exhaustive strategy tests
    /// use. A name that is not a legal candidate for the op is a compile error listing the legal ones.
    pub op_candidate: Vec<(qd_mir::Inst, String)>,
    /// Run the raising pass (`qd_mir::passes::raise`) before lowering, so hand-written shuffle
    /// trees (xor butterflies, `shuffle_down` trees read on tile lane 0, shift-up scans) become
    /// `subgroup.reduce`/`subgroup.scan` and get the selector's collective sequences. It only
    /// raises bit-exact trees; on by default.
    pub raise: bool,
}

/// Where the MIR came from, for the DWARF line table of the code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The compilation directory.
    pub comp_dir: String,
    /// The file name (the `.qdm` file, or the Rust file of the builder calls).
    pub file: String,
}

impl AmdgcnOptions {
    /// Defaults for a target: the whole register file, no checker.
    pub fn new(target: Target) -> AmdgcnOptions {
        AmdgcnOptions {
            target,
            max_vgprs: 256,
            max_sgprs: 104,
            check_regalloc: false,
            keep_vcode: false,
            shuffle_lowering: ShuffleLowering::Auto,
            op_lowering: Vec::new(),
            op_candidate: Vec::new(),
            raise: true,
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// The kernel's name.
    pub name: String,
    /// Target.
    pub target: Target,
    /// The final instructions at their byte offsets.
    pub insts: Vec<(u32, qd_amdgcn_isa::Inst)>,
    /// MIR source line per instruction (0 = none), parallel to `insts`.
    pub lines: Vec<u32>,
    /// The encoded `.text` of the kernel.
    pub code: Vec<u8>,
    /// The HSA code object (ELF) holding it.
    pub code_object: Vec<u8>,
    /// The resources written into the descriptor.
    pub resources: KernelResources,
    /// The kernarg layout.
    pub kernarg: KernargLayout,
    /// Spill bytes each lane needs in the spill area (0: no spills to memory).
    pub spill_bytes_per_lane: u32,
    /// VGPRs (counted in `resources.next_free_vgpr`) that hold spill slots: the register
    /// allocator places at most 63 registers of a class, and the slots it spills go to the spare
    /// VGPRs above those first (a spill or reload is a `v_mov`), to memory only past them.
    pub spill_vgprs: u32,
    /// The block size the kernel was compiled for.
    pub block: [u32; 3],
    /// The VCode before register allocation, when [`AmdgcnOptions::keep_vcode`] asked for it
    /// (empty otherwise).
    pub vcode: String,
    /// The shuffle selector's decision for every shuffle, broadcast, reduction and scan, in
    /// lowering order (what `qdc explain` prints).
    pub choices: Vec<Choice>,
}

impl CompiledKernel {
    /// The assembly listing: one instruction per line with its offset and encoding.
    pub fn asm(&self) -> String {
        let mut s = String::new();
        for (k, (off, inst)) in self.insts.iter().enumerate() {
            let end = self.insts.get(k + 1).map_or(self.code.len() as u32, |x| x.0);
            let words: Vec<String> = self.code[*off as usize..end as usize]
                .chunks(4)
                .map(|w| format!("{:08x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect();
            let text = inst.display(self.target).to_string();
            s.push_str(&format!("  {text:<48} // {off:06x}: {}\n", words.join(" ")));
        }
        s
    }

    /// Bytes of the spill area a launch over `grid` blocks needs: a record of
    /// [`CompiledKernel::spill_bytes_per_lane`] for every lane of every wave (0 when the kernel
    /// does not spill). The spill prologue addresses exactly this layout.
    pub fn spill_area_bytes(&self, grid: [u32; 3]) -> u128 {
        let lanes = self.target.wave.lanes();
        let threads: u32 = self.block.iter().product();
        let blocks = grid.iter().map(|&g| u128::from(g)).product::<u128>();
        u128::from(threads.div_ceil(lanes)) * blocks * u128::from(lanes) * u128::from(self.spill_bytes_per_lane)
    }

    /// The simulator's view of the kernel.
    pub(crate) fn sim_program(&self) -> sim::Program {
        let mut setup = sim::KernelSetup::new(self.target);
        setup.user_sgprs =
            sim::SimUserSgprs { extra: self.resources.user_sgprs.pad, ..sim::SimUserSgprs::kernarg_only() };
        setup.workgroup_id = self.resources.workgroup_id;
        setup.workitem_id_dims = self.resources.workitem_id_dims;
        setup.group_segment_size = self.resources.group_segment_size;
        setup.next_free_vgpr = self.resources.next_free_vgpr;
        setup.next_free_sgpr = self.resources.next_free_sgpr;
        sim::Program { setup, insts: self.insts.clone() }
    }
}

/// Compiles a kernel the verifier already accepted (built with
/// `KernelBuilder::finish_verified`, or wrapped by [`VerifiedKernel::new`]): no second
/// verification, and the verifier's analyses are reused.
pub fn compile_verified(k: &VerifiedKernel, opts: &AmdgcnOptions) -> Result<CompiledKernel, CompileError> {
    compile_with_facts(k.function(), k.facts(), opts, None, &|_| None)
}

/// Verifies a kernel, then compiles it with no source lines.
pub fn compile_kernel(f: &Function, opts: &AmdgcnOptions) -> Result<CompiledKernel, CompileError> {
    compile_kernel_with_lines(f, opts, None, &|_| None)
}

/// Verifies a kernel, then compiles it; `lines` gives the MIR source line of an instruction (the
/// `.qdm` line or the builder's caller). With a `source`, the code object carries a DWARF
/// `.debug_line` table mapping every instruction to its line in that file.
pub fn compile_kernel_with_lines(
    f: &Function,
    opts: &AmdgcnOptions,
    source: Option<&SourceFile>,
    lines: &dyn Fn(Inst) -> Option<u32>,
) -> Result<CompiledKernel, CompileError> {
    let facts = qd_mir::verify::verify_function(f).map_err(|e| CompileError::verify(f, e))?;
    compile_with_facts(f, &facts, opts, source, lines)
}

/// [`compile_verified`] with source lines (see [`compile_kernel_with_lines`]).
pub fn compile_verified_with_lines(
    k: &VerifiedKernel,
    opts: &AmdgcnOptions,
    source: Option<&SourceFile>,
    lines: &dyn Fn(Inst) -> Option<u32>,
) -> Result<CompiledKernel, CompileError> {
    compile_with_facts(k.function(), k.facts(), opts, source, lines)
}

/// The pipeline on verified MIR and its facts.
fn compile_with_facts(
    f: &Function,
    facts: &KernelFacts,
    opts: &AmdgcnOptions,
    source: Option<&SourceFile>,
    lines: &dyn Fn(Inst) -> Option<u32>,
) -> Result<CompiledKernel, CompileError> {
    let target = opts.target;
    if Target::new(target.arch, target.wave).is_none() {
        return Err(CompileError::missing_capability(
            target,
            format!("{}-lane waves on {}", target.wave.lanes(), target.arch),
            None,
        ));
    }
    if let Some(w) = f.launch.subgroup_size.filter(|&w| w != target.wave.lanes()) {
        return Err(CompileError::unsupported(
            target,
            None,
            None,
            format!(
                "kernel @{} was built for subgroup({w}); this target's wave has {} lanes",
                f.name,
                target.wave.lanes()
            ),
        ));
    }
    let block = f.launch.block;
    let threads = facts.threads();
    // Hand-written shuffle trees become collectives (in place: Inst handles, and so source lines
    // and per-op options, carry over); the raised kernel gets its own facts.
    let raised_fn;
    let raised_facts;
    let (f, facts, raised) = match raise_trees(f, opts) {
        Some((g, r)) => {
            raised_facts = KernelFacts::analyze(&g);
            raised_fn = g;
            (&raised_fn, &raised_facts, r)
        }
        None => (f, facts, Vec::new()),
    };
    let kernarg = KernargLayout::new(f);
    let mut cx = lower::Lower::new(f, facts, opts, kernarg.clone(), lines);
    // LDS layout: shared arrays in declaration order, each aligned to its element size.
    let mut lds = 0u32;
    for (s, data) in f.shared.iter() {
        let size = lower::memory::elem_bytes(data.elem).max(1);
        let start = lds.next_multiple_of(size.max(4));
        cx.shared_offsets[s] = start;
        lds = start + size * data.len;
    }
    if cx.needs.sync_pred {
        cx.sync_pred_word = Some(lds.next_multiple_of(4));
        lds = lds.next_multiple_of(4) + 4;
    }
    cx.lds_bytes = lds;
    cx.entry();
    // MIR's shared arrays start zero-filled in every block; LDS is undefined at dispatch.
    lower::memory::zero_shared(&mut cx);
    cx.lower_region(f.body)?;
    if !cx.cf.dead {
        cx.end_kernel();
    }
    let lds = cx.lds_bytes;
    if lds > 65536 {
        return Err(CompileError::limit(target, "bytes of shared memory (LDS) per workgroup", u64::from(lds), 65536));
    }
    let order = std::mem::take(&mut cx.cf.order);
    let mut choices = std::mem::take(&mut cx.choices);
    for c in &mut choices {
        if let Some(r) = raised.iter().find(|r| r.inst == c.inst) {
            c.pattern = format!("{} (raised from a hand-written shuffle tree into `{r}`)", c.pattern);
        }
    }
    let mut vcode = cx.vcode;
    vcode.reorder(&order);
    vcode.split_critical_edges();
    let vcode_text = if opts.keep_vcode { vcode.to_string() } else { String::new() };
    // The fixed VGPR quad, when an instruction needs it, comes out of the VGPR budget.
    let uses_quad = vcode.uses_quad();
    let budget =
        regalloc::Budget::new(target, opts.max_vgprs.saturating_sub(if uses_quad { 4 } else { 0 }), opts.max_sgprs);
    let alloc = regalloc::allocate(&vcode, budget, opts.check_regalloc, target)?;
    let spill_abi = emit::SpillAbi {
        spill_ptr_offset: kernarg.spill_ptr_offset,
        grid_offset: kernarg.grid_offset,
        block,
        workgroup_id_sgpr: abi::workgroup_id_sgpr(target),
        uses_quad,
        max_vgprs: opts.max_vgprs,
    };
    let mut em = emit::emit(&vcode, &alloc, target, &spill_abi)?;
    let accesses = waitcnt::accesses(&em.insts, target);
    let waits = waitcnt::waits(&em, &accesses, target);
    hazard::insert_nops(&mut em, &accesses, waits, target)?;
    let (code, insts) = relax::encode(&mut em, target)?;
    let layout = em.layout;
    let resources = KernelResources {
        next_free_vgpr: layout.next_free_vgpr.max(1),
        next_free_sgpr: layout.next_free_sgpr,
        uses_vcc: true,
        group_segment_size: lds,
        private_segment_size: 0,
        kernarg_size: kernarg.size,
        user_sgprs: UserSgprs { kernarg_segment_ptr: true, pad: abi::user_sgpr_pad(target), ..UserSgprs::default() },
        workgroup_id: [true, true, true],
        workitem_id_dims: 3,
        max_flat_workgroup_size: threads,
        f32_denormals: true,
    };
    resources.check(target).map_err(|m| CompileError::internal(target, m))?;
    let line_table = source.map(|src| {
        let mut rows: Vec<dwarf::LineRow> = Vec::new();
        for (k, (off, _)) in insts.iter().enumerate() {
            let line = em.lines[k];
            if line != 0 && rows.last().is_none_or(|r| r.line != line) {
                rows.push(dwarf::LineRow { offset: *off, line, column: 0 });
            }
        }
        dwarf::LineTable { comp_dir: src.comp_dir.clone(), file: src.file.clone(), rows }
    });
    let kc = KernelCode {
        name: f.name.clone(),
        code: code.clone(),
        resources,
        args: kernarg.args.clone(),
        lines: line_table.filter(|t| !t.rows.is_empty()),
    };
    let code_object = code_object::write_code_object(&CodeObjectConfig::new(target), &[kc])
        .map_err(|e| CompileError::internal(target, e.to_string()))?;
    Ok(CompiledKernel {
        name: f.name.clone(),
        target,
        insts,
        lines: em.lines,
        code,
        code_object,
        resources,
        spill_bytes_per_lane: layout.spill_slots * 4,
        spill_vgprs: layout.reg_slots,
        kernarg,
        block,
        vcode: vcode_text,
        choices,
    })
}

/// Runs the raising pass on a copy of `f` when it is on and `f` has a shuffle to raise from;
/// `None` when nothing was raised.
fn raise_trees(f: &Function, opts: &AmdgcnOptions) -> Option<(Function, Vec<qd_mir::passes::raise::Raised>)> {
    use qd_mir::Opcode as O;
    let shuffles = f
        .insts
        .values()
        .any(|d| matches!(d.opcode, O::ShuffleIdx | O::ShuffleUp | O::ShuffleDown | O::ShuffleXor | O::Broadcast));
    if !opts.raise || !shuffles {
        return None;
    }
    let mut g = f.clone();
    let raised =
        qd_mir::passes::raise::raise(&mut g, &qd_mir::passes::PassOptions::with_width(opts.target.wave.lanes()));
    if raised.is_empty() {
        return None;
    }
    // The raised trees' lane-index arithmetic is now dead pure code.
    qd_mir::passes::dce::run(&mut g);
    Some((g, raised))
}

/// The back end's guide (`docs/amdgcn-backend.md`); its Rust examples run as doctests.
#[doc = include_str!("../../../docs/amdgcn-backend.md")]
pub mod guide {}
