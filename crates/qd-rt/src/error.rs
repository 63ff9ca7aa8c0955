//! [`RtError`]: every failure of the runtime, naming the driver API call and its result code (CUDA
//! or Vulkan), the compile error, the device limit a launch exceeds, or the interpreter fault.

use core::fmt;

/// What went wrong, by source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RtErrorKind {
    /// A bad device spec, bad arguments or an unsupported request.
    Usage,
    /// The device is not there (no driver library, no such ordinal, no CUDA-capable GPU, no
    /// Vulkan loader or ICD).
    Unavailable,
    /// A driver call returned an error code.
    Driver {
        /// The API function (`cuModuleLoadDataEx`, `vkCreateComputePipelines`).
        call: &'static str,
        /// The code (`CUresult`, or a `VkResult` as its two's-complement bits).
        code: u32,
        /// The code's name (`CUDA_ERROR_INVALID_PTX`, `VK_ERROR_DEVICE_LOST`).
        name: String,
    },
    /// The back end (PTX, SPIR-V or AMDGCN) rejected the kernel.
    Compile,
    /// A launch needs more than a device limit allows; raised before the launch.
    Limit {
        /// The limit's name as the API spells it (`maxComputeSharedMemorySize`).
        name: &'static str,
        /// What the launch needs.
        needed: u64,
        /// The device's limit.
        max: u64,
    },
    /// The interpreter (the `cpu` device) faulted or rejected the arguments.
    Interp,
    /// The AMDGCN wave simulator (a `sim-*` device) stopped: a memory fault, a trap, a wave past
    /// the step limit, or a missing wait state or memory wait (a back-end bug the simulator's
    /// checkers catch).
    Simulator,
    /// A kernel ran past the launch timeout.
    Timeout,
    /// A program's arguments failed one of its checks (a buffer shorter than the program needs,
    /// two arguments that must be distinct bound to one buffer); raised before the first launch.
    ProgramCheck {
        /// The program parameter concerned (without `%`).
        param: String,
    },
    /// A program's kernels set bits of its status word (a live count above the capacity the
    /// program was built for); raised after the last launch.
    ProgramStatus {
        /// The final status word.
        status: u32,
    },
}

/// A runtime error. `Display` gives one paragraph: the context, then what failed (the API call and
/// code, the compile error or the interpreter's fault), then any log (the JIT's error log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtError {
    /// The kind, with the driver call and code where one failed.
    pub kind: RtErrorKind,
    /// The message.
    pub message: String,
    /// Extra text (the PTX JIT error log), shown after the message.
    pub log: Option<String>,
}

impl RtError {
    pub(crate) fn usage(message: impl Into<String>) -> RtError {
        RtError { kind: RtErrorKind::Usage, message: message.into(), log: None }
    }

    pub(crate) fn unavailable(message: impl Into<String>) -> RtError {
        RtError { kind: RtErrorKind::Unavailable, message: message.into(), log: None }
    }

    pub(crate) fn driver(call: &'static str, code: u32, name: String) -> RtError {
        let message = format!("{call} failed with {name} ({code})");
        RtError { kind: RtErrorKind::Driver { call, code, name }, message, log: None }
    }

    /// A back end's compile error (PTX, SPIR-V: [`qd_mir::CompileError`]).
    pub(crate) fn compile(e: &qd_mir::CompileError) -> RtError {
        RtError { kind: RtErrorKind::Compile, message: e.to_string(), log: None }
    }

    pub(crate) fn limit(name: &'static str, needed: u64, max: u64, what: impl fmt::Display) -> RtError {
        let message = format!("{what}: over the device's {name} ({max})");
        RtError { kind: RtErrorKind::Limit { name, needed, max }, message, log: None }
    }

    /// A compile error of a back end given as text (the SPIR-V and AMDGCN back ends' `Display`).
    pub(crate) fn compile_text(message: impl Into<String>) -> RtError {
        RtError { kind: RtErrorKind::Compile, message: message.into(), log: None }
    }

    pub(crate) fn interp(e: &qd_mir::interp::InterpError) -> RtError {
        RtError { kind: RtErrorKind::Interp, message: e.to_string(), log: None }
    }

    pub(crate) fn simulator(message: impl Into<String>) -> RtError {
        RtError { kind: RtErrorKind::Simulator, message: message.into(), log: None }
    }

    pub(crate) fn program_check(f: qd_mir::CheckFailure) -> RtError {
        RtError { kind: RtErrorKind::ProgramCheck { param: f.param }, message: f.message, log: None }
    }

    pub(crate) fn program_status(status: u32, message: String) -> RtError {
        RtError { kind: RtErrorKind::ProgramStatus { status }, message, log: None }
    }

    pub(crate) fn timeout(message: impl Into<String>) -> RtError {
        RtError { kind: RtErrorKind::Timeout, message: message.into(), log: None }
    }

    /// Prefixes the message with context (`kernel @k: `).
    pub(crate) fn context(mut self, ctx: impl fmt::Display) -> RtError {
        self.message = format!("{ctx}: {}", self.message);
        self
    }

    pub(crate) fn with_log(mut self, log: String) -> RtError {
        if !log.trim().is_empty() {
            self.log = Some(log);
        }
        self
    }

    /// True when the device is not present at all (no driver, no GPU), as opposed to a failure of
    /// a device that is there.
    pub fn is_unavailable(&self) -> bool {
        self.kind == RtErrorKind::Unavailable
    }
}

impl fmt::Display for RtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(log) = &self.log {
            write!(f, "\n{}", log.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for RtError {}
