//! Where a Vulkan device keeps its buffers, and the copies that move data in and out of them.
//!
//! A CPU implementation (lavapipe), an integrated GPU or a discrete GPU with its whole memory
//! mapped (resizable BAR) has memory that is both device-local and host-visible: buffers live
//! there, mapped for their whole life, and uploads and downloads are copies into the mapping
//! ([`Memory::Mapped`]). A discrete GPU's own memory is not host-visible, or only through a
//! small window that the processor reads uncached across the bus: buffers live in device-local
//! memory, and data moves through a host-visible staging buffer with `vkCmdCopyBuffer` on the
//! compute queue (every compute family can transfer), one command buffer per batch of copies
//! ([`Memory::Staged`]). New buffers are zero-filled either way (`vkCmdFillBuffer` when staged).
//!
//! `QD_VULKAN_MEMORY=staged` or `=mapped` overrides the choice (staged runs on every device;
//! mapped needs host-visible memory), so the staged path is tested on lavapipe.

use super::raw::{vk_err, Buf, Gpu};
use crate::error::RtError;
use ash::vk;
use std::sync::Arc;
use std::time::Duration;

/// How a device's buffers are placed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Memory {
    /// Host-visible (and device-local where the device has such memory), mapped.
    Mapped,
    /// Device-local, reached through staging copies.
    Staged,
}

impl Memory {
    /// The placement for a device of `device_type` with memory types `types`: staged on a
    /// discrete GPU, or where no memory type is host-visible and coherent; mapped elsewhere.
    /// `QD_VULKAN_MEMORY` overrides it.
    pub(crate) fn choose(device_type: vk::PhysicalDeviceType, types: &[vk::MemoryType]) -> Memory {
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let mappable = types.iter().any(|t| t.property_flags.contains(host));
        match std::env::var("QD_VULKAN_MEMORY").ok().as_deref() {
            Some("staged") => return Memory::Staged,
            Some("mapped") if mappable => return Memory::Mapped,
            _ => {}
        }
        if device_type == vk::PhysicalDeviceType::DISCRETE_GPU || !mappable {
            Memory::Staged
        } else {
            Memory::Mapped
        }
    }

    /// `mapped` or `staged`, for the device's detail line.
    pub(crate) fn text(self) -> &'static str {
        match self {
            Memory::Mapped => "host-visible buffers",
            Memory::Staged => "device-local buffers with staging copies",
        }
    }
}

/// Where each copy of a batch lies in its staging buffer.
struct Staging {
    /// Per copy: its offset in the staging buffer and its byte count (the host side's length,
    /// at most the device buffer's size); 16-byte aligned offsets.
    slots: Vec<(u64, u64)>,
    /// The staging buffer's size.
    total: u64,
}

impl Staging {
    /// The layout for copies of `(device buffer bytes, host bytes)`; `None` when nothing moves.
    fn plan(items: impl Iterator<Item = (u64, usize)>) -> Option<Staging> {
        let mut slots = Vec::new();
        let mut total = 0u64;
        for (bytes, host) in items {
            let n = (host as u64).min(bytes);
            slots.push((total, n));
            total += n.next_multiple_of(16);
        }
        (total > 0).then_some(Staging { slots, total })
    }
}

/// The global memory barrier between compute work and transfers (in both directions).
fn barrier(d: &ash::Device, cmd: vk::CommandBuffer, dst_stage: vk::PipelineStageFlags, dst: vk::AccessFlags) {
    let all = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
    let writes = vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE;
    let mb = [vk::MemoryBarrier::default().src_access_mask(writes).dst_access_mask(dst)];
    // SAFETY: `cmd` is recording (the callers' one-shot command buffers).
    unsafe { d.cmd_pipeline_barrier(cmd, all, dst_stage, vk::DependencyFlags::empty(), &mb, &[], &[]) };
}

/// The barrier after writing buffers that later work reads or writes: every compute and transfer
/// access waits for the writes.
fn barrier_to_use(d: &ash::Device, cmd: vk::CommandBuffer) {
    let after = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
    let rw = vk::AccessFlags::SHADER_READ
        | vk::AccessFlags::SHADER_WRITE
        | vk::AccessFlags::TRANSFER_READ
        | vk::AccessFlags::TRANSFER_WRITE;
    barrier(d, cmd, after, rw);
}

impl Gpu {
    /// Records `record` into a one-time command buffer, submits it and waits for it (at most
    /// `timeout`).
    pub(crate) fn one_shot(
        &self,
        timeout: Duration,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<(), RtError> {
        let d = &self.device;
        let pool = self.cmd_pool.lock().unwrap_or_else(|e| e.into_inner());
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(*pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is externally synchronised by its mutex (held).
        let cmd = unsafe { d.allocate_command_buffers(&ai) }
            .map_err(|r| vk_err("vkAllocateCommandBuffers", r))?
            .into_iter()
            .next()
            .unwrap_or_default();
        drop(pool);
        let free = |gpu: &Gpu| {
            let pool = gpu.cmd_pool.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: the command buffer is not pending (never submitted, or its fence signalled).
            unsafe { gpu.device.free_command_buffers(*pool, &[cmd]) };
        };
        let bi = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a freshly allocated primary command buffer, used by this thread only.
        if let Err(r) = unsafe { d.begin_command_buffer(cmd, &bi) } {
            free(self);
            return Err(vk_err("vkBeginCommandBuffer", r));
        }
        record(d, cmd);
        // SAFETY: recording.
        if let Err(r) = unsafe { d.end_command_buffer(cmd) } {
            free(self);
            return Err(vk_err("vkEndCommandBuffer", r));
        }
        // SAFETY: valid device.
        let fence = match unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(f) => f,
            Err(r) => {
                free(self);
                return Err(vk_err("vkCreateFence", r));
            }
        };
        let cmds = [cmd];
        let si = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the queue is externally synchronised by its mutex (held); the command buffer is
        // executable; the fence is unsignalled.
        let submitted = unsafe { d.queue_submit(*queue, &si, fence) };
        drop(queue);
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        let waited = submitted.and_then(|()| {
            // SAFETY: the fence was submitted with the command buffer.
            unsafe { d.wait_for_fences(&[fence], true, ns) }
        });
        match waited {
            Ok(()) => {
                // SAFETY: the submission completed: neither object is in use.
                unsafe { d.destroy_fence(fence, None) };
                free(self);
                Ok(())
            }
            Err(vk::Result::TIMEOUT) => {
                // Still running: leak the command buffer and the fence rather than free them.
                self.poison();
                Err(RtError::timeout(format!(
                    "a buffer copy did not finish within {} s (QD_VULKAN_TIMEOUT_S)",
                    timeout.as_secs()
                )))
            }
            Err(r) => {
                if submitted.is_err() {
                    // SAFETY: never submitted: neither object is in use.
                    unsafe { d.destroy_fence(fence, None) };
                    free(self);
                }
                Err(vk_err(if submitted.is_err() { "vkQueueSubmit" } else { "vkWaitForFences" }, r))
            }
        }
    }

    /// Zero-fills `bufs` (device-local buffers) in one submission.
    pub(crate) fn zero_fill(&self, bufs: &[&Buf], timeout: Duration) -> Result<(), RtError> {
        if bufs.is_empty() {
            return Ok(());
        }
        self.one_shot(timeout, |d, cmd| {
            barrier(d, cmd, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_WRITE);
            for b in bufs {
                // SAFETY: recording; the buffer was created with TRANSFER_DST; WHOLE_SIZE fills
                // its whole (16-byte multiple) size.
                unsafe { d.cmd_fill_buffer(cmd, b.buffer, 0, vk::WHOLE_SIZE, 0) };
            }
            barrier_to_use(d, cmd);
        })
    }

    /// Copies each `data` into the start of its buffer (at most the buffer's size), through one
    /// staging buffer and one submission for a staged device, by the mapping otherwise. The
    /// caller ensures no pending submission uses the buffers.
    pub(crate) fn write_all(self: &Arc<Self>, items: &[(&Buf, &[u8])], timeout: Duration) -> Result<(), RtError> {
        if self.memory == Memory::Mapped {
            for (b, data) in items {
                b.write_mapped(data);
            }
            return Ok(());
        }
        let Some(plan) = Staging::plan(items.iter().map(|(b, data)| (b.bytes, data.len()))) else {
            return Ok(());
        };
        let stage = self.host_buffer(plan.total, false)?;
        let mut copies = Vec::with_capacity(items.len());
        for ((b, data), &(at, n)) in items.iter().zip(&plan.slots) {
            if n > 0 {
                stage.write_mapped_at(at, &data[..n as usize]);
                copies.push((b.buffer, vk::BufferCopy { src_offset: at, dst_offset: 0, size: n }));
            }
        }
        self.one_shot(timeout, |d, cmd| {
            barrier(d, cmd, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_WRITE);
            for (dst, region) in &copies {
                // SAFETY: recording; both buffers were created for transfers and the region lies
                // inside both.
                unsafe { d.cmd_copy_buffer(cmd, stage.buffer, *dst, std::slice::from_ref(region)) };
            }
            barrier_to_use(d, cmd);
        })
    }

    /// Copies the start of each buffer into its `out` (at most the buffer's size), through one
    /// staging buffer and one submission for a staged device. The caller ensures no pending
    /// submission writes the buffers.
    pub(crate) fn read_all(
        self: &Arc<Self>,
        items: &mut [(&Buf, &mut [u8])],
        timeout: Duration,
    ) -> Result<(), RtError> {
        if self.memory == Memory::Mapped {
            for (b, out) in items.iter_mut() {
                b.read_mapped(out);
            }
            return Ok(());
        }
        let Some(plan) = Staging::plan(items.iter().map(|(b, out)| (b.bytes, out.len()))) else {
            return Ok(());
        };
        let stage = self.host_buffer(plan.total, true)?;
        let copies: Vec<_> = items
            .iter()
            .zip(&plan.slots)
            .filter(|&(_, &(_, n))| n > 0)
            .map(|((b, _), &(at, n))| (b.buffer, vk::BufferCopy { src_offset: 0, dst_offset: at, size: n }))
            .collect();
        self.one_shot(timeout, |d, cmd| {
            barrier(d, cmd, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_READ);
            for (src, region) in &copies {
                // SAFETY: recording; both buffers were created for transfers and the region lies
                // inside both.
                unsafe { d.cmd_copy_buffer(cmd, *src, stage.buffer, std::slice::from_ref(region)) };
            }
            barrier(d, cmd, vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);
        })?;
        for ((_, out), &(at, n)) in items.iter_mut().zip(&plan.slots) {
            stage.read_mapped_at(at, &mut out[..n as usize]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(f: vk::MemoryPropertyFlags) -> vk::MemoryType {
        vk::MemoryType { property_flags: f, heap_index: 0 }
    }

    #[test]
    fn discrete_gpus_stage_and_host_memory_maps() {
        if std::env::var_os("QD_VULKAN_MEMORY").is_some() {
            return; // the override decides
        }
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let gpu = [ty(local), ty(host), ty(host | vk::MemoryPropertyFlags::HOST_CACHED)];
        assert_eq!(Memory::choose(vk::PhysicalDeviceType::DISCRETE_GPU, &gpu), Memory::Staged);
        // resizable BAR: device-local memory is mappable, and still staged (uncached reads)
        let rebar = [ty(local | host), ty(host)];
        assert_eq!(Memory::choose(vk::PhysicalDeviceType::DISCRETE_GPU, &rebar), Memory::Staged);
        let unified = [ty(local | host)];
        assert_eq!(Memory::choose(vk::PhysicalDeviceType::CPU, &unified), Memory::Mapped);
        assert_eq!(Memory::choose(vk::PhysicalDeviceType::INTEGRATED_GPU, &unified), Memory::Mapped);
        // nothing mappable: staged whatever the type
        assert_eq!(Memory::choose(vk::PhysicalDeviceType::INTEGRATED_GPU, &[ty(local)]), Memory::Staged);
    }
}
