//! Program-level checks shared by every device: the arguments against the program's parameters
//! and its [`ProgramCheck`](qd_mir::ProgramCheck)s before the first launch, and its status word
//! after the last. Each `run_program` calls these, so a short scratch buffer or a live count
//! above capacity is the same error on the cpu, CUDA and Vulkan devices.

use crate::args;
use crate::error::RtError;
use qd_mir::interp::ArgValue;
use qd_mir::Program;

/// Checks the arguments of a program run: one per parameter, of its type, then the program's
/// checks (each host argument is its own buffer, so `distinct` holds unless one index is named
/// twice). Every message starts with `program @NAME: `.
pub(crate) fn check_args(p: &Program, argv: &[ArgValue]) -> Result<(), RtError> {
    let ctx = || format!("program @{}", p.name);
    if argv.len() != p.params.len() {
        return Err(
            RtError::usage(format!("expects {} argument(s), got {}", p.params.len(), argv.len())).context(ctx())
        );
    }
    for (i, (param, a)) in p.params.iter().zip(argv).enumerate() {
        args::check_arg(param.ty, &param.name, i, a)
            .map_err(|e| RtError { message: format!("program {}", e.message), ..e }.context(ctx()))?;
    }
    let len = |i: usize| match argv.get(i) {
        Some(ArgValue::Buffer(b)) => Some(b.len() as u64),
        _ => None,
    };
    p.check_args(&len, &|a, b| a == b).map_err(RtError::program_check)
}

/// Turns a non-zero final status word into the error naming its bits' messages.
pub(crate) fn check_status(p: &Program, status: u32) -> Result<(), RtError> {
    match p.status_message(status) {
        Some(m) => Err(RtError::program_status(status, m)),
        None => Ok(()),
    }
}
