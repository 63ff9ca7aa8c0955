//! Thin checked wrappers over the Vulkan calls of the `vulkan` device (ash, with the loader
//! `libvulkan.so.1` opened by `dlopen` at first use: a machine without it gets an
//! [`RtError`] of kind `Unavailable`, never a panic). Every failing `VkResult` becomes an error
//! naming the call and the code (`vkCreateComputePipelines failed with VK_ERROR_UNKNOWN (-13)`).
//!
//! Objects: [`Instance`] (enumeration and properties), [`Gpu`] (a logical device with its queue
//! and command pool), [`Buf`] (a host-visible, coherent, persistently mapped storage buffer),
//! [`Pipe`] (a compute pipeline with its layout) and [`Pending`] (one submitted command buffer of
//! dispatches separated by compute→compute barriers, with its fence). Each object holds an `Arc`
//! of its [`Gpu`] and destroys itself on drop, so the device outlives them all; once the device is
//! poisoned (a timeout or a lost device) nothing is destroyed any more, since the driver may still
//! use it.
//!
//! All `unsafe` of the Vulkan device lives here; each block says why it is sound.

use super::props::{Features, Limits, Props, SizeControl};
use super::staging::Memory;
use crate::error::RtError;
use ash::vk;
use std::ffi::{CStr, CString};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// An error naming a Vulkan call and its result code.
pub(crate) fn vk_err(call: &'static str, r: vk::Result) -> RtError {
    RtError::driver(call, r.as_raw() as u32, format!("VK_{r:?} ({})", r.as_raw()))
}

/// Whether an error leaves the device unusable (a lost device, or a timeout: the dispatch cannot
/// be stopped).
pub(crate) fn is_fatal(e: &RtError) -> bool {
    use crate::error::RtErrorKind;
    match &e.kind {
        RtErrorKind::Driver { name, .. } => name.starts_with("VK_ERROR_DEVICE_LOST"),
        RtErrorKind::Timeout => true,
        _ => false,
    }
}

/// The Vulkan loader, opened once per process.
///
/// lavapipe's on-disk shader cache (Mesa 22.3) does not include `LP_NATIVE_VECTOR_WIDTH` in its
/// key: a process at another width would run machine code compiled for the width of an earlier
/// process (8-lane subgroup operations while the driver reports 4 or 16), and would store its own
/// code for later processes at the default width. So when that variable is set, the Mesa shader
/// cache is turned off (`MESA_SHADER_CACHE_DISABLE=true`, unless the variable is set already)
/// before any driver is loaded.
fn entry() -> Result<&'static ash::Entry, RtError> {
    static ENTRY: OnceLock<Result<ash::Entry, String>> = OnceLock::new();
    let r = ENTRY.get_or_init(|| {
        if std::env::var_os("LP_NATIVE_VECTOR_WIDTH").is_some()
            && std::env::var_os("MESA_SHADER_CACHE_DISABLE").is_none()
        {
            std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
        }
        // SAFETY: `Entry::load` dlopens the system's Vulkan loader and resolves its entry points;
        // the loader's initialisation has no preconditions. The entry is kept for the whole
        // process (in a static), so no function pointer outlives the library.
        unsafe { ash::Entry::load() }.map_err(|e| e.to_string())
    });
    r.as_ref().map_err(|e| {
        RtError::unavailable(format!(
            "no Vulkan loader (libvulkan.so.1) found: {e} (install libvulkan1 and a driver, e.g. mesa-vulkan-drivers)"
        ))
    })
}

/// A Vulkan instance (API 1.1 or newer, capped at 1.3).
pub(crate) struct Instance {
    inst: ash::Instance,
    api: u32,
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object (logical devices) is destroyed before its instance: a `Gpu`
        // owns its `Instance` and drops it last (or leaks both when poisoned).
        unsafe { self.inst.destroy_instance(None) };
    }
}

fn c_text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
}

impl Instance {
    /// Loads the loader and creates an instance.
    pub fn new() -> Result<Instance, RtError> {
        let entry = entry()?;
        // SAFETY: `entry` holds valid loader entry points; the call has no other precondition.
        let loader = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|r| vk_err("vkEnumerateInstanceVersion", r))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader < vk::API_VERSION_1_1 {
            return Err(RtError::unavailable(format!(
                "the Vulkan loader supports only Vulkan {}; qd needs 1.1",
                super::props::version_text(loader)
            )));
        }
        let api = loader.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default().application_name(c"qd").engine_name(c"qd-rt").api_version(api);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: `info` and `app` are valid for the call; no layers or extensions are requested.
        let inst = unsafe { entry.create_instance(&info, None) }.map_err(|r| match r {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => RtError::unavailable(
                "the Vulkan loader found no driver (no ICD; install mesa-vulkan-drivers for lavapipe)",
            ),
            r => vk_err("vkCreateInstance", r),
        })?;
        Ok(Instance { inst, api })
    }

    /// The physical devices, in the loader's order (the ordinal of `vulkan:N`).
    pub fn devices(&self) -> Result<Vec<vk::PhysicalDevice>, RtError> {
        // SAFETY: the instance is valid.
        unsafe { self.inst.enumerate_physical_devices() }.map_err(|r| vk_err("vkEnumeratePhysicalDevices", r))
    }

    /// Describes a physical device of this instance.
    pub fn props(&self, pd: vk::PhysicalDevice) -> Result<Props, RtError> {
        let inst = &self.inst;
        // SAFETY: `pd` came from `enumerate_physical_devices` of this instance.
        let base = unsafe { inst.get_physical_device_properties(pd) };
        let api = base.api_version.min(self.api);
        // SAFETY: as above.
        let exts = unsafe { inst.enumerate_device_extension_properties(pd) }
            .map_err(|r| vk_err("vkEnumerateDeviceExtensionProperties", r))?;
        let has = |n: &CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(n));
        let ssc_ext = api < vk::API_VERSION_1_3 && has(ash::ext::subgroup_size_control::NAME);
        let ssc_ok = api >= vk::API_VERSION_1_3 || ssc_ext;
        let float_ext = has(ash::ext::shader_atomic_float::NAME);
        let driver_ok = api >= vk::API_VERSION_1_2 || has(ash::khr::driver_properties::NAME);

        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut ssc = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut drv = vk::PhysicalDeviceDriverProperties::default();
        let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
        let fc_ok = api >= vk::API_VERSION_1_2 || has(ash::khr::shader_float_controls::NAME);
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sub);
        if fc_ok {
            p2 = p2.push_next(&mut fc);
        }
        if ssc_ok {
            p2 = p2.push_next(&mut ssc);
        }
        if driver_ok {
            p2 = p2.push_next(&mut drv);
        }
        // SAFETY: the chain holds only structures of core 1.1 or of extensions the device has
        // (checked above), each living until after the call.
        unsafe { inst.get_physical_device_properties2(pd, &mut p2) };
        let limits = base.limits;

        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut sscf = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
        let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if api >= vk::API_VERSION_1_2 {
            f2 = f2.push_next(&mut f12);
        }
        if api >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut f13);
        } else if ssc_ext {
            f2 = f2.push_next(&mut sscf);
        }
        if float_ext {
            f2 = f2.push_next(&mut af);
        }
        // SAFETY: as for the properties: only structures the device's version or extensions
        // define, all alive across the call.
        unsafe { inst.get_physical_device_features2(pd, &mut f2) };
        let core = f2.features;

        let (size_ctl, full) = if api >= vk::API_VERSION_1_3 {
            (f13.subgroup_size_control == vk::TRUE, f13.compute_full_subgroups == vk::TRUE)
        } else {
            (sscf.subgroup_size_control == vk::TRUE, sscf.compute_full_subgroups == vk::TRUE)
        };
        let size_control = (ssc_ok
            && size_ctl
            && ssc.required_subgroup_size_stages.contains(vk::ShaderStageFlags::COMPUTE)
            && ssc.min_subgroup_size > 0)
            .then_some(SizeControl {
                min: ssc.min_subgroup_size,
                max: ssc.max_subgroup_size,
                max_workgroup_subgroups: ssc.max_compute_workgroup_subgroups,
                full_subgroups: full,
            });
        let v12 = api >= vk::API_VERSION_1_2;
        let t = |b: vk::Bool32| b == vk::TRUE;
        let features = Features {
            int64: t(core.shader_int64),
            float64: t(core.shader_float64),
            int8: v12 && t(f12.shader_int8),
            storage_8bit: v12 && t(f12.storage_buffer8_bit_access),
            int64_atomics: v12 && t(f12.shader_buffer_int64_atomics) && t(f12.shader_shared_int64_atomics),
            float32_atomic_add: float_ext && t(af.shader_buffer_float32_atomic_add),
            subgroup_extended_types: v12 && t(f12.shader_subgroup_extended_types),
            vulkan_memory_model: v12 && t(f12.vulkan_memory_model),
            vulkan_memory_model_device_scope: v12 && t(f12.vulkan_memory_model_device_scope),
            signed_zero_inf_nan_preserve: [
                fc_ok && t(fc.shader_signed_zero_inf_nan_preserve_float32),
                fc_ok && t(fc.shader_signed_zero_inf_nan_preserve_float64),
            ],
        };
        let mut extensions = Vec::new();
        if ssc_ext && size_control.is_some() {
            extensions.push(ash::ext::subgroup_size_control::NAME);
        }
        if features.float32_atomic_add {
            extensions.push(ash::ext::shader_atomic_float::NAME);
        }
        if api < vk::API_VERSION_1_2 && fc_ok && features.signed_zero_inf_nan_preserve.contains(&true) {
            extensions.push(ash::khr::shader_float_controls::NAME);
        }
        // SAFETY: as above.
        let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
        let name = c_text(base.device_name_as_c_str());
        let queue_family = families
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE) && q.queue_count > 0)
            .ok_or_else(|| RtError::unavailable(format!("Vulkan device {name} has no compute queue")))?;
        let compute_ops = sub.supported_stages.contains(vk::ShaderStageFlags::COMPUTE);
        Ok(Props {
            name,
            device_type: base.device_type,
            api_version: api,
            reported_api: base.api_version,
            driver_name: if driver_ok { c_text(drv.driver_name_as_c_str()) } else { String::new() },
            driver_info: if driver_ok { c_text(drv.driver_info_as_c_str()) } else { String::new() },
            subgroup_size: sub.subgroup_size,
            subgroup_ops: if compute_ops { sub.supported_operations } else { vk::SubgroupFeatureFlags::empty() },
            size_control,
            features,
            limits: Limits {
                max_shared_bytes: limits.max_compute_shared_memory_size,
                max_invocations: limits.max_compute_work_group_invocations,
                max_size: limits.max_compute_work_group_size,
                max_count: limits.max_compute_work_group_count,
                max_push_constants: limits.max_push_constants_size,
                max_storage_buffer_range: limits.max_storage_buffer_range,
                max_storage_buffers: limits.max_per_stage_descriptor_storage_buffers,
            },
            queue_family: queue_family as u32,
            extensions,
            memory: {
                // SAFETY: `pd` came from `enumerate_physical_devices` of this instance.
                let mp = unsafe { inst.get_physical_device_memory_properties(pd) };
                let n = (mp.memory_type_count as usize).min(mp.memory_types.len());
                Memory::choose(base.device_type, &mp.memory_types[..n])
            },
        })
    }
}

/// Every Vulkan device's description, in ordinal order.
pub(crate) fn list() -> Result<Vec<Props>, RtError> {
    let inst = Instance::new()?;
    inst.devices()?.into_iter().map(|pd| inst.props(pd)).collect()
}

/// A logical device: the queue, the command pool and the memory type of buffers.
pub(crate) struct Gpu {
    inst: ManuallyDrop<Instance>,
    pub(super) device: ManuallyDrop<ash::Device>,
    pd: vk::PhysicalDevice,
    pub(super) queue: Mutex<vk::Queue>,
    pub(super) cmd_pool: Mutex<vk::CommandPool>,
    pub props: Props,
    poisoned: AtomicBool,
    /// Where buffers live (`staging`).
    pub(crate) memory: Memory,
    /// How long a buffer copy may take (`QD_VULKAN_TIMEOUT_S`, default 60 s).
    pub(super) timeout: std::time::Duration,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        if self.is_poisoned() {
            // The driver may still be running a dispatch: leak the device and the instance.
            return;
        }
        let pool = *self.cmd_pool.get_mut().unwrap_or_else(|p| p.into_inner());
        // SAFETY: every object created from the device holds an `Arc<Gpu>`, so all of them are
        // gone; waiting for idle finishes any leaked submission before the pool and device go.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(pool, None);
            self.device.destroy_device(None);
            ManuallyDrop::drop(&mut self.device);
            ManuallyDrop::drop(&mut self.inst);
        }
    }
}

impl Gpu {
    /// Opens Vulkan device `ordinal` with every feature qd uses that it has.
    pub fn open(ordinal: usize) -> Result<Arc<Gpu>, RtError> {
        let inst = Instance::new()?;
        let pds = inst.devices()?;
        if pds.is_empty() {
            return Err(RtError::unavailable(
                "the Vulkan loader reports no device (no ICD? install mesa-vulkan-drivers for lavapipe)",
            ));
        }
        let Some(&pd) = pds.get(ordinal) else {
            return Err(RtError::unavailable(format!(
                "no Vulkan device {ordinal} (the loader reports {} device{})",
                pds.len(),
                if pds.len() == 1 { "" } else { "s" }
            )));
        };
        let props = inst.props(pd)?;
        let f = props.features;
        let prio = [1.0f32];
        let queues =
            [vk::DeviceQueueCreateInfo::default().queue_family_index(props.queue_family).queue_priorities(&prio)];
        let core = vk::PhysicalDeviceFeatures::default().shader_int64(f.int64).shader_float64(f.float64);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_int8(f.int8)
            .storage_buffer8_bit_access(f.storage_8bit)
            .shader_buffer_int64_atomics(f.int64_atomics)
            .shader_shared_int64_atomics(f.int64_atomics)
            .shader_subgroup_extended_types(f.subgroup_extended_types)
            .vulkan_memory_model(f.vulkan_memory_model)
            .vulkan_memory_model_device_scope(f.vulkan_memory_model_device_scope);
        let sc = props.size_control;
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(sc.is_some())
            .compute_full_subgroups(sc.is_some_and(|s| s.full_subgroups));
        let mut sscf = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
            .subgroup_size_control(sc.is_some())
            .compute_full_subgroups(sc.is_some_and(|s| s.full_subgroups));
        let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default().shader_buffer_float32_atomic_add(true);
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(core);
        let api = props.api_version;
        if api >= vk::API_VERSION_1_2 {
            f2 = f2.push_next(&mut f12);
        }
        if api >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut f13);
        } else if sc.is_some() {
            f2 = f2.push_next(&mut sscf);
        }
        if f.float32_atomic_add {
            f2 = f2.push_next(&mut af);
        }
        let ext_ptrs: Vec<*const std::ffi::c_char> = props.extensions.iter().map(|e| e.as_ptr()).collect();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut f2);
        // SAFETY: `pd` belongs to `inst`; every feature enabled was reported supported by the
        // device, every chained structure is defined by its API version or by an extension that
        // is enabled in the same call; all pointers live across the call.
        let device = unsafe { inst.inst.create_device(pd, &info, None) }.map_err(|r| vk_err("vkCreateDevice", r))?;
        // SAFETY: the queue family was created with one queue.
        let queue = unsafe { device.get_device_queue(props.queue_family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(props.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: the device is valid; the pool is destroyed in `Gpu::drop`.
        let cmd_pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(p) => p,
            Err(r) => {
                // SAFETY: nothing was created from the device yet.
                unsafe { device.destroy_device(None) };
                return Err(vk_err("vkCreateCommandPool", r));
            }
        };
        let memory = props.memory;
        let secs = std::env::var("QD_VULKAN_TIMEOUT_S").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60);
        Ok(Arc::new(Gpu {
            inst: ManuallyDrop::new(inst),
            device: ManuallyDrop::new(device),
            pd,
            queue: Mutex::new(queue),
            cmd_pool: Mutex::new(cmd_pool),
            props,
            poisoned: AtomicBool::new(false),
            memory,
            timeout: std::time::Duration::from_secs(secs),
        }))
    }

    /// Whether the device was marked unusable.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    /// Marks the device unusable: nothing created from it is destroyed any more.
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
    }

    /// A memory type among `bits` with all of `want`, preferring one that also has `prefer`.
    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags, prefer: vk::MemoryPropertyFlags) -> Option<u32> {
        // SAFETY: `pd` belongs to the instance.
        let mp = unsafe { self.inst.inst.get_physical_device_memory_properties(self.pd) };
        let types = &mp.memory_types[..(mp.memory_type_count as usize).min(mp.memory_types.len())];
        let ok = |i: usize, f: vk::MemoryPropertyFlags| bits & (1 << i) != 0 && types[i].property_flags.contains(f);
        (0..types.len())
            .find(|&i| ok(i, want | prefer))
            .or_else(|| (0..types.len()).find(|&i| ok(i, want)))
            .map(|i| i as u32)
    }

    /// A buffer of `bytes` bytes (at least 16 are allocated: Vulkan has no empty buffers), not
    /// initialised: where [`Memory`] says (a staged device's buffers are device-local and take
    /// transfers), or a host-visible staging buffer when `staging` (`reads`: preferring cached
    /// memory, which the processor reads fast).
    fn raw_buffer(self: &Arc<Self>, bytes: u64, staging: Option<bool>) -> Result<Buf, RtError> {
        let alloc = bytes.max(16).next_multiple_of(16);
        let transfer = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let (usage, want, prefer, mapped) = match (staging, self.memory) {
            (Some(reads), _) => {
                let prefer =
                    if reads { vk::MemoryPropertyFlags::HOST_CACHED } else { vk::MemoryPropertyFlags::empty() };
                (transfer, host, prefer, true)
            }
            (None, Memory::Mapped) => (vk::BufferUsageFlags::STORAGE_BUFFER, host, local, true),
            (None, Memory::Staged) => {
                (vk::BufferUsageFlags::STORAGE_BUFFER | transfer, local, vk::MemoryPropertyFlags::empty(), false)
            }
        };
        let info = vk::BufferCreateInfo::default().size(alloc).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        let d = &self.device;
        // SAFETY: valid device and create info.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(|r| vk_err("vkCreateBuffer", r))?;
        let mut b = Buf {
            gpu: self.clone(),
            buffer,
            memory: vk::DeviceMemory::null(),
            ptr: std::ptr::null_mut(),
            bytes,
            alloc,
        };
        // SAFETY: `buffer` was just created from this device.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let ty = self.memory_type(req.memory_type_bits, want, prefer).ok_or_else(|| {
            RtError::unavailable(format!(
                "Vulkan device {} has no memory of type {want:?} for a buffer",
                self.props.name
            ))
        })?;
        let mi = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty);
        // SAFETY: the type index comes from the device's memory properties.
        b.memory = unsafe { d.allocate_memory(&mi, None) }.map_err(|r| vk_err("vkAllocateMemory", r))?;
        // SAFETY: memory of a compatible type and size, not bound yet; offset 0.
        unsafe { d.bind_buffer_memory(buffer, b.memory, 0) }.map_err(|r| vk_err("vkBindBufferMemory", r))?;
        if mapped {
            // SAFETY: host-visible memory, mapped once for its whole life (unmapped when freed).
            let ptr = unsafe { d.map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }
                .map_err(|r| vk_err("vkMapMemory", r))?;
            b.ptr = ptr.cast::<u8>();
        }
        Ok(b)
    }

    /// A host-visible staging buffer of `bytes` bytes (`reads`: for copies to the host).
    pub(super) fn host_buffer(self: &Arc<Self>, bytes: u64, reads: bool) -> Result<Buf, RtError> {
        self.raw_buffer(bytes, Some(reads))
    }

    /// Storage buffers of the given sizes, each zero-filled and then holding its data at its
    /// start (one submission for all on a staged device).
    pub fn buffers_with(self: &Arc<Self>, items: &[(u64, &[u8])]) -> Result<Vec<Buf>, RtError> {
        let mut bufs = Vec::with_capacity(items.len());
        for &(bytes, _) in items {
            bufs.push(self.raw_buffer(bytes, None)?);
        }
        match self.memory {
            Memory::Mapped => {
                for (b, &(_, data)) in bufs.iter().zip(items) {
                    // SAFETY: the mapping covers at least `alloc` bytes (the requirement's size is
                    // ≥ the buffer's), and nothing else uses the new memory.
                    unsafe { std::ptr::write_bytes(b.ptr, 0, b.alloc as usize) };
                    b.write_mapped(data);
                }
            }
            Memory::Staged => {
                let refs: Vec<&Buf> = bufs.iter().collect();
                self.zero_fill(&refs, self.timeout)?;
                let writes: Vec<(&Buf, &[u8])> = bufs.iter().zip(items).map(|(b, &(_, data))| (b, data)).collect();
                self.write_all(&writes, self.timeout)?;
            }
        }
        Ok(bufs)
    }

    /// Creates a compute pipeline.
    pub fn pipeline(self: &Arc<Self>, d: &PipeDesc<'_>) -> Result<Pipe, RtError> {
        let dev = &self.device;
        let entry = CString::new(d.entry)
            .map_err(|_| RtError::usage(format!("entry point name {:?} contains a NUL byte", d.entry)))?;
        let mut p = Pipe {
            gpu: self.clone(),
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            bindings: d.bindings,
            push_bytes: d.push_bytes,
        };
        let mi = vk::ShaderModuleCreateInfo::default().code(d.words);
        // SAFETY: valid device; the code is a slice of whole words (Vulkan requires nothing more
        // of it here; an invalid module is the driver's error, reported below).
        p.module = unsafe { dev.create_shader_module(&mi, None) }.map_err(|r| vk_err("vkCreateShaderModule", r))?;
        let binds: Vec<vk::DescriptorSetLayoutBinding<'_>> = (0..d.bindings)
            .map(|i| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let li = vk::DescriptorSetLayoutCreateInfo::default().bindings(&binds);
        // SAFETY: valid device and create info.
        p.set_layout = unsafe { dev.create_descriptor_set_layout(&li, None) }
            .map_err(|r| vk_err("vkCreateDescriptorSetLayout", r))?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(d.push_bytes.next_multiple_of(4))];
        let sets = [p.set_layout];
        let mut pli = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets);
        if d.push_bytes > 0 {
            pli = pli.push_constant_ranges(&ranges);
        }
        // SAFETY: valid device; the set layout was created above.
        p.layout =
            unsafe { dev.create_pipeline_layout(&pli, None) }.map_err(|r| vk_err("vkCreatePipelineLayout", r))?;
        let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(d.required_subgroup.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(p.module)
            .name(&entry);
        if d.required_subgroup.is_some() {
            stage = stage.push_next(&mut req);
        }
        if d.full_subgroups {
            stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
        }
        let ci = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(p.layout)];
        // SAFETY: module and layout are valid; a required subgroup size or full subgroups are
        // only asked for when the device enabled subgroupSizeControl / computeFullSubgroups and
        // the caller checked the size range and the block shape.
        let r = unsafe { dev.create_compute_pipelines(vk::PipelineCache::null(), &ci, None) };
        p.pipeline = match r {
            Ok(v) => v.into_iter().next().unwrap_or_default(),
            Err((_, r)) => return Err(vk_err("vkCreateComputePipelines", r)),
        };
        Ok(p)
    }

    /// Records the dispatches into one command buffer (a compute→compute barrier before each,
    /// compute→host after the last) and submits it.
    pub fn submit(self: &Arc<Self>, dispatches: Vec<Dispatch>) -> Result<Pending, RtError> {
        let dev = &self.device;
        let mut p = Pending {
            gpu: self.clone(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            pool: vk::DescriptorPool::null(),
            submitted: false,
            done: false,
            _keep: Vec::new(),
        };
        let n_sets = dispatches.iter().filter(|d| d.pipe.bindings > 0).count() as u32;
        let n_bufs: u32 = dispatches.iter().map(|d| d.pipe.bindings).sum();
        let mut sets = Vec::with_capacity(dispatches.len());
        if n_sets > 0 {
            let sizes =
                [vk::DescriptorPoolSize::default().ty(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(n_bufs)];
            let pi = vk::DescriptorPoolCreateInfo::default().max_sets(n_sets).pool_sizes(&sizes);
            // SAFETY: valid device and create info.
            p.pool =
                unsafe { dev.create_descriptor_pool(&pi, None) }.map_err(|r| vk_err("vkCreateDescriptorPool", r))?;
            let layouts: Vec<vk::DescriptorSetLayout> =
                dispatches.iter().filter(|d| d.pipe.bindings > 0).map(|d| d.pipe.set_layout).collect();
            let ai = vk::DescriptorSetAllocateInfo::default().descriptor_pool(p.pool).set_layouts(&layouts);
            // SAFETY: the pool was sized for exactly these sets.
            let got =
                unsafe { dev.allocate_descriptor_sets(&ai) }.map_err(|r| vk_err("vkAllocateDescriptorSets", r))?;
            let mut got = got.into_iter();
            for d in &dispatches {
                if d.pipe.bindings == 0 {
                    sets.push(vk::DescriptorSet::null());
                    continue;
                }
                let set = got.next().unwrap_or_default();
                let infos: Vec<[vk::DescriptorBufferInfo; 1]> = d
                    .buffers
                    .iter()
                    .map(|b| [vk::DescriptorBufferInfo::default().buffer(b.buffer).offset(0).range(vk::WHOLE_SIZE)])
                    .collect();
                let writes: Vec<vk::WriteDescriptorSet<'_>> = infos
                    .iter()
                    .enumerate()
                    .map(|(i, info)| {
                        vk::WriteDescriptorSet::default()
                            .dst_set(set)
                            .dst_binding(i as u32)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(info)
                    })
                    .collect();
                // SAFETY: the set is fresh (not in use by any command buffer) and each write
                // names a live buffer (kept alive by the `Pending`).
                unsafe { dev.update_descriptor_sets(&writes, &[]) };
                sets.push(set);
            }
        }
        let cmd_pool = self.cmd_pool.lock().unwrap_or_else(|e| e.into_inner());
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(*cmd_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is externally synchronised by its mutex (held).
        p.cmd = unsafe { dev.allocate_command_buffers(&ai) }
            .map_err(|r| vk_err("vkAllocateCommandBuffers", r))?
            .into_iter()
            .next()
            .unwrap_or_default();
        drop(cmd_pool);
        let cmd = p.cmd;
        let barrier = |src: vk::PipelineStageFlags, dst: vk::PipelineStageFlags, a: vk::AccessFlags, b| {
            let mb = [vk::MemoryBarrier::default().src_access_mask(a).dst_access_mask(b)];
            // SAFETY: `cmd` is in the recording state (between begin and end below).
            unsafe { dev.cmd_pipeline_barrier(cmd, src, dst, vk::DependencyFlags::empty(), &mb, &[], &[]) };
        };
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let rw = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
        let bi = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a freshly allocated primary command buffer, used by this thread only.
        unsafe { dev.begin_command_buffer(cmd, &bi) }.map_err(|r| vk_err("vkBeginCommandBuffer", r))?;
        for (d, set) in dispatches.iter().zip(&sets) {
            barrier(compute, compute, vk::AccessFlags::SHADER_WRITE, rw);
            // SAFETY: recording; the pipeline, layout and set are valid and compatible (the set
            // was allocated with this pipeline's set layout); the push-constant bytes fit the
            // range declared in the layout (checked by the caller against the kernel's block).
            unsafe {
                dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, d.pipe.pipeline);
                if d.pipe.bindings > 0 {
                    dev.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, d.pipe.layout, 0, &[*set], &[]);
                }
                if d.pipe.push_bytes > 0 {
                    let mut bytes = d.push.clone();
                    bytes.resize(d.pipe.push_bytes.next_multiple_of(4) as usize, 0);
                    dev.cmd_push_constants(cmd, d.pipe.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes);
                }
                dev.cmd_dispatch(cmd, d.grid[0], d.grid[1], d.grid[2]);
            }
        }
        barrier(compute, vk::PipelineStageFlags::HOST, vk::AccessFlags::SHADER_WRITE, vk::AccessFlags::HOST_READ);
        // SAFETY: recording.
        unsafe { dev.end_command_buffer(cmd) }.map_err(|r| vk_err("vkEndCommandBuffer", r))?;
        // SAFETY: valid device.
        p.fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(|r| vk_err("vkCreateFence", r))?;
        let cmds = [cmd];
        let si = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the queue is externally synchronised by its mutex (held); the command buffer is
        // executable; the fence is unsignalled and unused.
        unsafe { dev.queue_submit(*queue, &si, p.fence) }.map_err(|r| vk_err("vkQueueSubmit", r))?;
        p.submitted = true;
        p._keep = dispatches;
        Ok(p)
    }
}

/// What a compute pipeline is made of.
pub(crate) struct PipeDesc<'a> {
    /// The SPIR-V module.
    pub words: &'a [u32],
    /// The entry point's name.
    pub entry: &'a str,
    /// The storage-buffer bindings 0..bindings of set 0.
    pub bindings: u32,
    /// The push-constant block's size in bytes.
    pub push_bytes: u32,
    /// A subgroup size to require (needs subgroupSizeControl and a size in its range).
    pub required_subgroup: Option<u32>,
    /// Ask for full subgroups (needs computeFullSubgroups and block x a multiple of the size).
    pub full_subgroups: bool,
}

/// A storage buffer: in host-visible coherent memory, mapped for its whole life, or in
/// device-local memory reached by staging copies (`staging`).
pub(crate) struct Buf {
    gpu: Arc<Gpu>,
    pub(super) buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// The mapping (null for a device-local buffer).
    ptr: *mut u8,
    /// The size asked for.
    pub bytes: u64,
    /// The size allocated (a multiple of 16, at least 16).
    alloc: u64,
}

// SAFETY: the mapped pointer is only dereferenced in the copies below, whose callers hold the
// device's state lock and have waited for every submission that uses the buffer; the handles are
// plain identifiers.
unsafe impl Send for Buf {}
// SAFETY: as above: no method mutates through `&self` except the copies into the mapping, which
// the device's lock serialises.
unsafe impl Sync for Buf {}

impl Buf {
    /// Whether the buffer was created by this device.
    pub fn is_of(&self, gpu: &Arc<Gpu>) -> bool {
        Arc::ptr_eq(&self.gpu, gpu)
    }

    /// Copies `data` into the buffer's start (at most `bytes` bytes): through the mapping, or a
    /// staging copy. The caller ensures no pending submission uses the buffer.
    pub fn write(&self, data: &[u8]) -> Result<(), RtError> {
        self.gpu.write_all(&[(self, data)], self.gpu.timeout)
    }

    /// Copies the buffer's start into `out` (at most `bytes` bytes). The caller ensures no
    /// pending submission writes the buffer.
    pub fn read(&self, out: &mut [u8]) -> Result<(), RtError> {
        self.gpu.read_all(&mut [(self, out)], self.gpu.timeout)
    }

    /// Copies `data` into the mapping at byte `at` (at most up to `bytes`); nothing for an
    /// unmapped buffer.
    pub(super) fn write_mapped_at(&self, at: u64, data: &[u8]) {
        if self.ptr.is_null() || at >= self.bytes {
            return;
        }
        let n = data.len().min((self.bytes - at) as usize);
        // SAFETY: the mapping holds at least `bytes` bytes; `at + n ≤ bytes`; the regions cannot
        // overlap (host memory of the caller vs the driver's mapping).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(at as usize), n) };
    }

    /// Copies the mapping from byte `at` into `out`; nothing for an unmapped buffer.
    pub(super) fn read_mapped_at(&self, at: u64, out: &mut [u8]) {
        if self.ptr.is_null() || at >= self.bytes {
            return;
        }
        let n = out.len().min((self.bytes - at) as usize);
        // SAFETY: as for `write_mapped_at`; coherent memory needs no invalidation, and the
        // submission's final barrier made the device's writes visible to the host.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.add(at as usize), out.as_mut_ptr(), n) };
    }

    /// [`Buf::write_mapped_at`] at 0.
    pub(super) fn write_mapped(&self, data: &[u8]) {
        self.write_mapped_at(0, data);
    }

    /// [`Buf::read_mapped_at`] at 0.
    pub(super) fn read_mapped(&self, out: &mut [u8]) {
        self.read_mapped_at(0, out);
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        if self.gpu.is_poisoned() {
            return;
        }
        let d = &self.gpu.device;
        // SAFETY: no pending submission uses the buffer (each `Pending` keeps its buffers alive
        // until it has completed); null handles (a failed creation) are ignored by Vulkan.
        unsafe {
            if !self.ptr.is_null() {
                d.unmap_memory(self.memory);
            }
            d.destroy_buffer(self.buffer, None);
            d.free_memory(self.memory, None);
        }
    }
}

/// A compute pipeline with its layout.
pub(crate) struct Pipe {
    gpu: Arc<Gpu>,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    /// Storage-buffer bindings 0..bindings.
    pub bindings: u32,
    /// Push-constant bytes.
    pub push_bytes: u32,
}

impl Drop for Pipe {
    fn drop(&mut self) {
        if self.gpu.is_poisoned() {
            return;
        }
        let d = &self.gpu.device;
        // SAFETY: no pending submission uses the pipeline (each `Pending` keeps its pipelines
        // alive); null handles are ignored.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
        }
    }
}

/// One dispatch of a submission.
pub(crate) struct Dispatch {
    pub pipe: Arc<Pipe>,
    /// The buffer of each binding, in binding order.
    pub buffers: Vec<Arc<Buf>>,
    /// The push-constant bytes.
    pub push: Vec<u8>,
    /// Workgroups per dimension (none zero).
    pub grid: [u32; 3],
}

/// A submitted command buffer; keeps its pipelines and buffers alive until it has completed.
pub(crate) struct Pending {
    gpu: Arc<Gpu>,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pool: vk::DescriptorPool,
    submitted: bool,
    done: bool,
    _keep: Vec<Dispatch>,
}

impl Pending {
    /// Waits for completion, at most `timeout`.
    pub fn wait(&mut self, timeout: Duration) -> Result<(), RtError> {
        if self.done || !self.submitted {
            return Ok(());
        }
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fence belongs to this device and was submitted with the command buffer.
        match unsafe { self.gpu.device.wait_for_fences(&[self.fence], true, ns) } {
            Ok(()) => {
                self.done = true;
                Ok(())
            }
            Err(vk::Result::TIMEOUT) => Err(RtError::timeout(format!(
                "the dispatch did not finish within {} s (QD_VULKAN_TIMEOUT_S)",
                timeout.as_secs()
            ))),
            Err(r) => Err(vk_err("vkWaitForFences", r)),
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let g = &self.gpu;
        if g.is_poisoned() {
            return;
        }
        // SAFETY: the fence is valid; its status is a query without side effects.
        let finished = self.done || !self.submitted || unsafe { g.device.get_fence_status(self.fence) } == Ok(true);
        if !finished {
            // Still running (dropped after an error): leak the objects, and the pipelines and
            // buffers it uses, rather than block or free memory the dispatch may still touch.
            std::mem::forget(std::mem::take(&mut self._keep));
            return;
        }
        let pool = g.cmd_pool.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the command buffer has completed (or never ran), so the buffer, its descriptor
        // pool and the fence are no longer in use; the command pool's mutex is held; null
        // handles are ignored.
        unsafe {
            if self.cmd != vk::CommandBuffer::null() {
                g.device.free_command_buffers(*pool, &[self.cmd]);
            }
            g.device.destroy_descriptor_pool(self.pool, None);
            g.device.destroy_fence(self.fence, None);
        }
    }
}
