//! [`Program::from_code_object`]: a kernel of an HSA code object (read by
//! [`qd_amdgcn_isa::code_object::read_code_object`], decoded by [`qd_amdgcn_isa::decode_all`]) as a simulator
//! [`Program`], its [`KernelSetup`] taken from the kernel descriptor.
//!
//! What the simulator does not model is refused rather than run wrongly: scratch
//! (`private_segment_fixed_size` > 0), the workgroup-info SGPR, kernarg preloading, a
//! descriptor whose USER_SGPR_COUNT is smaller than its enabled user SGPRs take, and a kernel
//! with float VALU instructions whose descriptor flushes denormals (FLOAT_DENORM_MODE_32 or
//! FLOAT_DENORM_MODE_16_64 other than 3): the simulator always keeps f32 and f64 denormals. A larger
//! USER_SGPR_COUNT is padding ([`SimUserSgprs::extra`]): the system SGPRs follow it.

use qd_amdgcn_isa::code_object::{read_code_object, UserSgprs};
use qd_amdgcn_isa::decode_all;
use qd_amdgcn_isa::Family;

use super::{KernelSetup, Program, SimError, SimErrorKind, SimUserSgprs};

impl From<UserSgprs> for SimUserSgprs {
    fn from(u: UserSgprs) -> Self {
        SimUserSgprs {
            private_segment_buffer: false,
            dispatch_ptr: u.dispatch_ptr,
            queue_ptr: u.queue_ptr,
            kernarg_segment_ptr: u.kernarg_segment_ptr,
            dispatch_id: u.dispatch_id,
            flat_scratch_init: false,
            private_segment_size: u.private_segment_size,
            extra: u.pad,
        }
    }
}

fn refuse(kind: SimErrorKind, message: String) -> SimError {
    SimError { kind, offset: 0, lane: None, wave: None, mnemonic: String::new(), message }
}

impl SimUserSgprs {
    /// How many SGPRs these take.
    pub fn count(&self) -> u32 {
        4 * u32::from(self.private_segment_buffer)
            + 2 * u32::from(self.dispatch_ptr)
            + 2 * u32::from(self.queue_ptr)
            + 2 * u32::from(self.kernarg_segment_ptr)
            + 2 * u32::from(self.dispatch_id)
            + 2 * u32::from(self.flat_scratch_init)
            + u32::from(self.private_segment_size)
            + u32::from(self.extra)
    }
}

impl Program {
    /// The kernel `kernel` (or, with `None`, the object's only kernel) of a code object.
    pub fn from_code_object(bytes: &[u8], kernel: Option<&str>) -> Result<Program, SimError> {
        let co = read_code_object(bytes).map_err(|e| refuse(SimErrorKind::InvalidDispatch, format!("{e}")))?;
        let k = match kernel {
            Some(name) => co.kernel(name).ok_or_else(|| {
                refuse(SimErrorKind::InvalidDispatch, format!("the code object has no kernel `{name}`"))
            })?,
            None if co.kernels.len() == 1 => &co.kernels[0],
            None => {
                return Err(refuse(
                    SimErrorKind::InvalidDispatch,
                    format!("the code object has {} kernels; name one", co.kernels.len()),
                ));
            }
        };
        let target = co.target(k);
        let d = &k.descriptor;
        if d.private_segment_fixed_size > 0 || d.enable_sgpr_workgroup_info || d.kernarg_preload_length > 0 {
            return Err(refuse(
                SimErrorKind::Unsupported,
                format!(
                    "kernel `{}` uses scratch, the workgroup-info SGPR or kernarg preloading, which the simulator \
                     does not model",
                    k.name
                ),
            ));
        }
        let mut user_sgprs = SimUserSgprs {
            private_segment_buffer: d.enable_sgpr_private_segment_buffer,
            dispatch_ptr: d.enable_sgpr_dispatch_ptr,
            queue_ptr: d.enable_sgpr_queue_ptr,
            kernarg_segment_ptr: d.enable_sgpr_kernarg_segment_ptr,
            dispatch_id: d.enable_sgpr_dispatch_id,
            flat_scratch_init: d.enable_sgpr_flat_scratch_init,
            private_segment_size: d.enable_sgpr_private_segment_size,
            extra: 0,
        };
        // USER_SGPR_COUNT may exceed the enabled items (padding); it may not be smaller.
        user_sgprs.extra = d.user_sgpr_count.saturating_sub(user_sgprs.count() as u8);
        if user_sgprs.count() != u32::from(d.user_sgpr_count) {
            return Err(refuse(
                SimErrorKind::InvalidDispatch,
                format!(
                    "kernel `{}`: USER_SGPR_COUNT is {} but the enabled user SGPRs take {}",
                    k.name,
                    d.user_sgpr_count,
                    user_sgprs.count()
                ),
            ));
        }
        let next_free_sgpr = match target.family() {
            Family::Gfx9 => d.allocated_sgprs(target.arch).min(102),
            Family::Gfx11 => super::state::NUM_SGPRS as u32,
        };
        let setup = KernelSetup {
            target,
            user_sgprs,
            workgroup_id: d.enable_sgpr_workgroup_id,
            workitem_id_dims: d.enable_vgpr_workitem_id.saturating_add(1),
            group_segment_size: d.group_segment_fixed_size,
            next_free_vgpr: d.allocated_vgprs(target).min(256),
            next_free_sgpr,
        };
        let insts = decode_all(&k.code, target)
            .map_err(|e| refuse(SimErrorKind::InvalidDispatch, format!("kernel `{}`: {e}", k.name)))?;
        if (d.float_denorm_mode_32 != 3 || d.float_denorm_mode_16_64 != 3)
            && insts.iter().any(|(_, i)| i.op.has(qd_amdgcn_isa::flags::FLOAT))
        {
            return Err(refuse(
                SimErrorKind::Unsupported,
                format!(
                    "kernel `{}` has float instructions but its descriptor flushes denormals \
                     (FLOAT_DENORM_MODE_32 {}, FLOAT_DENORM_MODE_16_64 {}); the simulator models mode 3 only",
                    k.name, d.float_denorm_mode_32, d.float_denorm_mode_16_64
                ),
            ));
        }
        Ok(Program { setup, insts })
    }
}
