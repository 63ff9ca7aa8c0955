//! Argument checking and the kernel parameter ABI shared by the devices: which argument a
//! parameter takes, how a scalar is packed into its 8-byte launch slot, and the grid a launch uses.
//!
//! ABI (docs/ptx.md §2): one `.param` per MIR parameter, in order: `ptr<global,T>` → `.u64` device
//! pointer, `bool` → `.u32` 0/1, `i32`/`u32`/`f32` → 4 bytes, `i64`/`u64`/`f64` → 8 bytes.

use crate::error::RtError;
use qd_mir::interp::ArgValue;
use qd_mir::{AddrSpace, Function, GridPolicy, ScalarType, Type};

/// What one parameter receives, checked against its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgKind {
    /// A buffer of this element type.
    Buffer(ScalarType),
    /// A scalar of this type.
    Scalar(ScalarType),
}

/// The argument kind a parameter type takes from the host.
pub(crate) fn param_kind(ty: Type, name: &str, index: usize) -> Result<ArgKind, RtError> {
    match ty {
        Type::Scalar(s) => Ok(ArgKind::Scalar(s)),
        Type::Ptr(AddrSpace::Global, e) => Ok(ArgKind::Buffer(e)),
        Type::Ptr(..) => {
            Err(RtError::usage(format!("argument {index} (%{name}): parameter type {ty} cannot be passed by the host")))
        }
    }
}

/// Checks one argument against a parameter type (the interpreter's rules and messages).
pub(crate) fn check_arg(ty: Type, name: &str, index: usize, arg: &ArgValue) -> Result<(), RtError> {
    let want = param_kind(ty, name, index)?;
    let ok = match (want, arg) {
        (ArgKind::Buffer(e), ArgValue::Buffer(b)) => b.elem == e,
        (ArgKind::Scalar(s), ArgValue::Scalar(t, _)) => s == *t,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let wanted = match want {
        ArgKind::Buffer(e) => format!("a buffer of {e}"),
        ArgKind::Scalar(s) => format!("a {s} scalar"),
    };
    Err(RtError::usage(format!("argument {index} (%{name}): expected {wanted}, got {}", describe(arg))))
}

/// `a buffer of u32` / `a u32 scalar`.
pub(crate) fn describe(arg: &ArgValue) -> String {
    match arg {
        ArgValue::Buffer(b) => format!("a buffer of {}", b.elem),
        ArgValue::Scalar(t, _) => format!("a {t} scalar"),
    }
}

/// Checks a kernel's argument list.
pub(crate) fn check_kernel_args(f: &Function, args: &[ArgValue]) -> Result<(), RtError> {
    if args.len() != f.params.len() {
        return Err(RtError::usage(format!("expects {} argument(s), got {}", f.params.len(), args.len())));
    }
    for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
        check_arg(p.ty, &p.name, i, a)?;
    }
    Ok(())
}

/// The 8-byte launch slot of a scalar (narrow types in the low bytes, `bool` as 0/1).
pub(crate) fn scalar_slot(ty: ScalarType, bits: u64) -> u64 {
    match ty {
        ScalarType::Bool => u64::from(bits & 1 != 0),
        ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => bits & 0xFFFF_FFFF,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => bits,
    }
}

/// The value a `grid(cover %n)` reads: negative signed values count as 0 (no blocks).
fn cover_count(ty: ScalarType, bits: u64) -> u64 {
    match ty {
        ScalarType::I32 => u64::try_from(bits as u32 as i32).unwrap_or(0),
        ScalarType::I64 => u64::try_from(bits as i64).unwrap_or(0),
        ScalarType::U32 => bits & 0xFFFF_FFFF,
        ScalarType::Bool => bits & 1,
        _ => bits,
    }
}

/// The grid of a launch: the override, else the kernel's policy (`qd_isel_ptx::grid_for`, with
/// `grid(saturating)` at 4 blocks per SM). `scalar(i)` gives parameter `i`'s scalar argument.
pub(crate) fn grid(
    f: &Function,
    grid_override: Option<[u32; 3]>,
    scalar: impl Fn(usize) -> Option<(ScalarType, u64)>,
    sms: u32,
) -> Result<[u32; 3], RtError> {
    if let Some(g) = grid_override {
        return Ok(g);
    }
    qd_isel_ptx::grid_for(f, |i| scalar(i).map(|(t, b)| cover_count(t, b)), sms).ok_or_else(|| match f.launch.grid {
        GridPolicy::Cover(i) => RtError::usage(format!(
            "grid(cover %{}) needs a scalar argument that fits u32 blocks",
            f.params.get(usize::from(i)).map_or("?", |p| p.name.as_str())
        )),
        _ => RtError::usage("cannot compute the grid"),
    })
}

/// Whether a grid launches no block at all.
pub(crate) fn is_empty_grid(g: [u32; 3]) -> bool {
    g.contains(&0)
}
