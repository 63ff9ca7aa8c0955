//! The lower-level device API: buffers that live on the device ([`DeviceBuffer`]), compiled
//! kernels ([`CompiledKernel`], cached by kernel text and target on CUDA and Vulkan; AMDGCN code
//! objects on the `sim-*` and `hsa` devices, loaded into an executable on `hsa`), asynchronous
//! launches
//! over [`DeviceArg`]s and `synchronize`. `Device::run_kernel`/`run_program` are built from the
//! same pieces; use these to keep buffers resident across several launches.

use crate::amdgcn;
use crate::args;
use crate::cpu::{self, CpuBuffer};
use crate::cuda::{self, CudaBuffer, Loaded, Slot};
use crate::error::RtError;
use crate::hsa::{device::Slot as HsaSlot, HsaBuffer, HsaKernel};
use crate::sim;
use crate::vulkan::{self, raw::Buf};
use crate::{Device, HostBuffer, Imp};
use qd_mir::interp::ArgValue;
use qd_mir::{Function, ScalarType};
use std::sync::{Arc, Mutex};

/// A buffer on a device (host memory for `cpu` and `sim-*`, device memory for `cuda` and `hsa`
/// (coarse-grained GPU memory), a host-visible storage buffer for `vulkan`; freed on drop). The `cpu` and `sim-*` devices both
/// keep their buffers in host memory and each may launch on the other's buffers.
pub struct DeviceBuffer {
    elem: ScalarType,
    len: usize,
    imp: BufImp,
}

enum BufImp {
    Cpu(CpuBuffer),
    Cuda(CudaBuffer),
    Vulkan(Arc<Buf>),
    Hsa(HsaBuffer),
}

impl DeviceBuffer {
    /// The element type.
    pub fn elem(&self) -> ScalarType {
        self.elem
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when it has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A kernel argument of a launch.
#[derive(Clone, Copy)]
pub enum DeviceArg<'a> {
    /// A buffer, for a `ptr<global, T>` parameter.
    Buffer(&'a DeviceBuffer),
    /// A scalar of a type and its raw bits.
    Scalar(ScalarType, u64),
}

/// One launch of [`Device::launch_all`]: a kernel, its arguments and an optional grid override.
pub(crate) struct Launch<'k, 'a> {
    pub kernel: &'k CompiledKernel,
    pub args: &'k [DeviceArg<'a>],
    pub grid: Option<[u32; 3]>,
}

/// Checks a launch's arguments against the kernel's parameters: their number, and for each a
/// buffer of the pointee type or a scalar of the type.
pub(crate) fn check_launch_args(f: &Function, argv: &[DeviceArg<'_>]) -> Result<(), RtError> {
    let ctx = || format!("kernel @{}", f.name);
    if argv.len() != f.params.len() {
        return Err(RtError::usage(format!("{}: expects {} argument(s), got {}", ctx(), f.params.len(), argv.len())));
    }
    for (i, (p, a)) in f.params.iter().zip(argv).enumerate() {
        let want = args::param_kind(p.ty, &p.name, i).map_err(|e| e.context(ctx()))?;
        if want != a.kind() {
            return Err(RtError::usage(format!(
                "{}: argument {i} (%{}) has the wrong type: expected {}, got {}",
                ctx(),
                p.name,
                describe_kind(want),
                describe_kind(a.kind())
            )));
        }
    }
    Ok(())
}

/// `a buffer of u32` / `a u32 scalar`.
pub(crate) fn describe_kind(k: args::ArgKind) -> String {
    match k {
        args::ArgKind::Buffer(e) => format!("a buffer of {e}"),
        args::ArgKind::Scalar(s) => format!("a {s} scalar"),
    }
}

impl DeviceArg<'_> {
    /// What this argument is: a buffer of its element type or a scalar of its type.
    pub(crate) fn kind(&self) -> args::ArgKind {
        match self {
            DeviceArg::Buffer(b) => args::ArgKind::Buffer(b.elem),
            DeviceArg::Scalar(t, _) => args::ArgKind::Scalar(*t),
        }
    }
}

/// A kernel ready to launch on one device.
pub struct CompiledKernel {
    function: Arc<Function>,
    cuda: Option<Loaded>,
    vulkan: Option<Arc<vulkan::Kernel>>,
    amdgcn: Option<Arc<qd_isel_amdgcn::CompiledKernel>>,
    hsa: Option<HsaKernel>,
}

impl CompiledKernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.function.name
    }

    /// The PTX module (CUDA only).
    pub fn ptx(&self) -> Option<&str> {
        self.cuda.as_ref().map(|l| l.ptx.ptx.as_str())
    }

    /// The SPIR-V module (Vulkan only).
    pub fn spirv(&self) -> Option<&[u32]> {
        self.vulkan.as_ref().map(|k| &*k.words)
    }

    /// The AMDGCN code object (an HSA ELF; `sim-*` and `hsa` devices only).
    pub fn code_object(&self) -> Option<&[u8]> {
        self.amdgcn.as_ref().map(|k| &*k.code_object)
    }

    /// The AMDGCN assembly listing (`sim-*` and `hsa` devices only).
    pub fn amdgcn_asm(&self) -> Option<String> {
        self.amdgcn.as_ref().map(|k| k.asm())
    }

    /// The subgroup width the kernel was compiled for (Vulkan only; the cpu, cuda, hsa and sim
    /// devices have one width).
    pub fn subgroup_width(&self) -> Option<u32> {
        self.vulkan.as_ref().map(|k| k.width)
    }

    /// Threads per block.
    pub fn block(&self) -> [u32; 3] {
        self.function.launch.block
    }
}

impl Device {
    /// Allocates a zero-filled buffer of `len` elements.
    pub fn alloc(&self, elem: ScalarType, len: usize) -> Result<DeviceBuffer, RtError> {
        self.upload(&HostBuffer { elem, data: vec![0; len * elem.bytes() as usize] })
    }

    /// Copies a host buffer to a new device buffer.
    pub fn upload(&self, b: &HostBuffer) -> Result<DeviceBuffer, RtError> {
        let len = b.len();
        let imp = match &self.imp {
            Imp::Cpu { .. } | Imp::Sim { .. } => BufImp::Cpu(CpuBuffer(Mutex::new(b.clone()))),
            Imp::Cuda(c) => {
                let st = c.shared.lock()?;
                BufImp::Cuda(c.upload(&st, &b.data)?)
            }
            Imp::Vulkan(v) => BufImp::Vulkan(Arc::new(v.upload(&b.data)?)),
            Imp::Hsa(g) => {
                let d = g.dev.alloc(b.data.len())?;
                g.dev.upload(&d, &b.data)?;
                BufImp::Hsa(d)
            }
        };
        Ok(DeviceBuffer { elem: b.elem, len, imp })
    }

    /// Copies a device buffer back to the host (waits for the launches before it on CUDA and
    /// Vulkan).
    pub fn download(&self, b: &DeviceBuffer) -> Result<HostBuffer, RtError> {
        match (&self.imp, &b.imp) {
            (_, BufImp::Cpu(h)) => Ok(h.0.lock().unwrap_or_else(|p| p.into_inner()).clone()),
            (Imp::Cuda(c), BufImp::Cuda(d)) => {
                let st = c.shared.lock()?;
                c.sync(&st)?;
                let mut data = vec![0u8; b.len * b.elem.bytes() as usize];
                c.download(&st, d, &mut data)?;
                Ok(HostBuffer { elem: b.elem, data })
            }
            (Imp::Vulkan(v), BufImp::Vulkan(d)) if d.is_of(&v.gpu) => {
                v.sync()?;
                let mut data = vec![0u8; b.len * b.elem.bytes() as usize];
                d.read(&mut data)?;
                Ok(HostBuffer { elem: b.elem, data })
            }
            (Imp::Hsa(g), BufImp::Hsa(d)) if d.is_of(&g.dev) => {
                let mut data = vec![0u8; b.len * b.elem.bytes() as usize];
                g.dev.download(d, &mut data)?;
                Ok(HostBuffer { elem: b.elem, data })
            }
            (_, BufImp::Cuda(_)) => Err(RtError::usage("a cuda buffer can only be read by its cuda device")),
            (_, BufImp::Vulkan(_)) => Err(RtError::usage("a vulkan buffer can only be read by its vulkan device")),
            (_, BufImp::Hsa(_)) => Err(RtError::usage("an hsa buffer can only be read by its hsa device")),
        }
    }

    /// Copies a host buffer into the start of a device buffer (elements `0..src.len()`; the rest
    /// keeps its contents), once the launches issued before have finished (CUDA, Vulkan). This is
    /// how a resident program gets new inputs between runs, such as a new live count in a
    /// one-element buffer. The element types must be the same and `src` no longer than `dst`.
    pub fn write(&self, dst: &DeviceBuffer, src: &HostBuffer) -> Result<(), RtError> {
        if src.elem != dst.elem {
            return Err(RtError::usage(format!(
                "write: the host buffer holds {}, the device buffer {}",
                src.elem, dst.elem
            )));
        }
        let bytes = dst.len * dst.elem.bytes() as usize;
        if src.data.len() > bytes {
            return Err(RtError::usage(format!(
                "write: the host buffer has {} element(s), the device buffer only {}",
                src.len(),
                dst.len
            )));
        }
        match (&self.imp, &dst.imp) {
            (_, BufImp::Cpu(h)) => {
                let mut g = h.0.lock().unwrap_or_else(|p| p.into_inner());
                match g.data.get_mut(..src.data.len()) {
                    Some(d) => {
                        d.copy_from_slice(&src.data);
                        Ok(())
                    }
                    None => Err(RtError::usage("write: the buffer is in use by a launch on another thread")),
                }
            }
            (Imp::Cuda(c), BufImp::Cuda(d)) => {
                let mut st = c.shared.lock()?;
                c.sync(&st).map_err(|e| c.recover(&mut st, e))?;
                c.write(&st, d, &src.data)
            }
            (Imp::Vulkan(v), BufImp::Vulkan(d)) if d.is_of(&v.gpu) => {
                v.sync()?;
                d.write(&src.data)
            }
            (Imp::Hsa(g), BufImp::Hsa(d)) if d.is_of(&g.dev) => g.dev.upload(d, &src.data),
            (_, BufImp::Cuda(_)) => Err(RtError::usage("a cuda buffer can only be written by its cuda device")),
            (_, BufImp::Vulkan(_)) => Err(RtError::usage("a vulkan buffer can only be written by its vulkan device")),
            (_, BufImp::Hsa(_)) => Err(RtError::usage("an hsa buffer can only be written by its hsa device")),
        }
    }

    /// Whether a launch on this device can take `b`: a buffer this device made (a host-memory
    /// buffer of a `cpu` or `sim-*` device for those devices).
    pub(crate) fn owns(&self, b: &DeviceBuffer) -> bool {
        match (&self.imp, &b.imp) {
            (Imp::Cpu { .. } | Imp::Sim { .. }, BufImp::Cpu(_)) => true,
            (Imp::Cuda(c), BufImp::Cuda(d)) => d.is_of(&c.shared),
            (Imp::Vulkan(v), BufImp::Vulkan(d)) => d.is_of(&v.gpu),
            (Imp::Hsa(g), BufImp::Hsa(d)) => d.is_of(&g.dev),
            _ => false,
        }
    }

    /// Compiles a kernel for this device (CUDA: PTX for its `sm_XY`, loaded and cached by kernel
    /// text and target; sim: an AMDGCN code object for its target; hsa: an AMDGCN code object for
    /// the GPU's architecture and wave size, loaded into an executable). To change the block size,
    /// compile a copy of the function with `launch.block` replaced: the PTX and AMDGCN code bake
    /// the block shape in.
    pub fn compile(&self, f: &Function) -> Result<CompiledKernel, RtError> {
        let function = Arc::new(f.clone());
        match &self.imp {
            Imp::Cpu { .. } => Ok(CompiledKernel { function, cuda: None, vulkan: None, amdgcn: None, hsa: None }),
            Imp::Cuda(c) => {
                let mut st = c.shared.lock()?;
                let l = c.load(&mut st, f)?;
                Ok(CompiledKernel { function, cuda: Some(l), vulkan: None, amdgcn: None, hsa: None })
            }
            Imp::Vulkan(v) => {
                Ok(CompiledKernel { function, cuda: None, vulkan: Some(v.compile(f)?), amdgcn: None, hsa: None })
            }
            Imp::Hsa(g) => {
                let (code, kernel) = g.compile(f)?;
                Ok(CompiledKernel {
                    function,
                    cuda: None,
                    vulkan: None,
                    amdgcn: Some(Arc::new(code)),
                    hsa: Some(kernel),
                })
            }
            Imp::Sim { target } => Ok(CompiledKernel {
                function,
                cuda: None,
                vulkan: None,
                amdgcn: Some(Arc::new(amdgcn::compile(*target, f)?)),
                hsa: None,
            }),
        }
    }

    /// Launches a compiled kernel; `grid` overrides the kernel's grid policy. Asynchronous on
    /// CUDA and Vulkan (call [`Device::synchronize`] or [`Device::download`]); the `cpu`, `sim-*`
    /// and `hsa` devices run it to completion.
    pub fn launch(&self, k: &CompiledKernel, argv: &[DeviceArg<'_>], grid: Option<[u32; 3]>) -> Result<(), RtError> {
        self.launch_all(&[Launch { kernel: k, args: argv, grid }])
    }

    /// Launches kernels in order, asynchronously as [`Device::launch`]: every launch's arguments
    /// are checked before the first one starts; on Vulkan they go in one command buffer (a
    /// compute→compute barrier before each), on CUDA on the device's stream, on `cpu`, `sim-*`
    /// and `hsa` one after another (on `hsa` each dispatch waits for the one before).
    pub(crate) fn launch_all(&self, launches: &[Launch<'_, '_>]) -> Result<(), RtError> {
        for l in launches {
            check_launch_args(&l.kernel.function, l.args)?;
        }
        match &self.imp {
            Imp::Cpu { engine, width } => {
                for l in launches {
                    let f = &*l.kernel.function;
                    let (bufs, scalars) = host_args(f, l.args, "cpu")?;
                    cpu::launch(*engine, *width, f, &bufs, scalars, l.grid)?;
                }
                Ok(())
            }
            Imp::Sim { .. } => {
                let mut ready = Vec::with_capacity(launches.len());
                for l in launches {
                    let f = &*l.kernel.function;
                    let k =
                        l.kernel.amdgcn.as_ref().ok_or_else(|| {
                            RtError::usage(format!("kernel @{}: compiled for another device", f.name))
                        })?;
                    ready.push((f, k, host_args(f, l.args, "sim")?, l.grid));
                }
                for (f, k, (bufs, scalars), grid) in ready {
                    sim::launch(k, f, &bufs, scalars, grid)?;
                }
                Ok(())
            }
            Imp::Cuda(c) => {
                let mut ready = Vec::with_capacity(launches.len());
                for l in launches {
                    let f = &*l.kernel.function;
                    let ctx = || format!("kernel @{}", f.name);
                    let loaded = l
                        .kernel
                        .cuda
                        .as_ref()
                        .ok_or_else(|| RtError::usage(format!("{}: compiled for another device", ctx())))?;
                    let mut slots = Vec::with_capacity(l.args.len());
                    for a in l.args {
                        slots.push(match a {
                            DeviceArg::Buffer(b) => match &b.imp {
                                BufImp::Cuda(d) => Slot::Ptr(d.ptr),
                                BufImp::Cpu(_) | BufImp::Vulkan(_) | BufImp::Hsa(_) => {
                                    return Err(RtError::usage(format!(
                                        "{}: a buffer of another device passed to the cuda device",
                                        ctx()
                                    )))
                                }
                            },
                            DeviceArg::Scalar(t, v) => Slot::Scalar(*t, *v),
                        });
                    }
                    let g = args::grid(
                        f,
                        l.grid,
                        |i| match slots.get(i) {
                            Some(Slot::Scalar(t, v)) => Some((*t, *v)),
                            _ => None,
                        },
                        c.sms,
                    )
                    .map_err(|e| e.context(ctx()))?;
                    ready.push((loaded, slots, g));
                }
                let mut st = c.shared.lock()?;
                for (loaded, slots, g) in &ready {
                    c.launch(&st, loaded, slots, *g).map_err(|e| c.recover(&mut st, e))?;
                }
                Ok(())
            }
            Imp::Vulkan(v) => {
                let mut ds = Vec::with_capacity(launches.len());
                for l in launches {
                    let f = &*l.kernel.function;
                    let ctx = || format!("kernel @{}", f.name);
                    let k = l
                        .kernel
                        .vulkan
                        .as_ref()
                        .ok_or_else(|| RtError::usage(format!("{}: compiled for another device", ctx())))?;
                    let mut slots = Vec::with_capacity(l.args.len());
                    for a in l.args {
                        slots.push(match a {
                            DeviceArg::Buffer(b) => match &b.imp {
                                BufImp::Vulkan(d) if d.is_of(&v.gpu) => vulkan::Slot::Buf(d.clone()),
                                BufImp::Cpu(_) | BufImp::Cuda(_) | BufImp::Vulkan(_) | BufImp::Hsa(_) => {
                                    return Err(RtError::usage(format!(
                                        "{}: a buffer of another device passed to the vulkan device",
                                        ctx()
                                    )))
                                }
                            },
                            DeviceArg::Scalar(t, v) => vulkan::Slot::Scalar(*t, *v),
                        });
                    }
                    if let Some(d) = v.dispatch(k, f, &slots, l.grid).map_err(|e| e.context(ctx()))? {
                        ds.push(d);
                    }
                }
                v.launch_all(ds)
            }
            Imp::Hsa(g) => {
                let mut ready = Vec::with_capacity(launches.len());
                for l in launches {
                    let f = &*l.kernel.function;
                    let ctx = || format!("kernel @{}", f.name);
                    let (Some(code), Some(kernel)) = (&l.kernel.amdgcn, &l.kernel.hsa) else {
                        return Err(RtError::usage(format!("{}: compiled for another device", ctx())));
                    };
                    let mut slots = Vec::with_capacity(l.args.len());
                    for a in l.args {
                        slots.push(match a {
                            DeviceArg::Buffer(b) => match &b.imp {
                                BufImp::Hsa(d) if d.is_of(&g.dev) => HsaSlot::Ptr(d.device_ptr()),
                                BufImp::Cpu(_) | BufImp::Cuda(_) | BufImp::Vulkan(_) | BufImp::Hsa(_) => {
                                    return Err(RtError::usage(format!(
                                        "{}: a buffer of another device passed to the hsa device",
                                        ctx()
                                    )))
                                }
                            },
                            DeviceArg::Scalar(t, v) => HsaSlot::Scalar(*t, *v),
                        });
                    }
                    ready.push(g.prepare(f, code, kernel, &slots, l.grid)?);
                }
                for r in ready.iter().flatten() {
                    g.dispatch(r)?;
                }
                Ok(())
            }
        }
    }

    /// Waits for every launch issued so far.
    pub fn synchronize(&self) -> Result<(), RtError> {
        match &self.imp {
            // Every hsa dispatch waits for its completion signal.
            Imp::Cpu { .. } | Imp::Sim { .. } | Imp::Hsa(_) => Ok(()),
            Imp::Cuda(c) => {
                let mut st = c.shared.lock()?;
                c.sync(&st).map_err(|e| c.recover(&mut st, e))
            }
            Imp::Vulkan(v) => v.sync(),
        }
    }
}

/// The host-memory buffers and scalars of a launch on the `cpu` or a `sim-*` device (`device`
/// names it in the error for a buffer of a GPU device): `bufs[i]` is parameter `i`'s buffer,
/// `scalars[i]` its scalar (a placeholder where there is a buffer).
type HostArgs<'b> = (Vec<Option<&'b CpuBuffer>>, Vec<ArgValue>);

fn host_args<'b>(f: &Function, argv: &[DeviceArg<'b>], device: &str) -> Result<HostArgs<'b>, RtError> {
    let mut bufs = Vec::with_capacity(argv.len());
    let mut scalars = Vec::with_capacity(argv.len());
    for a in argv {
        match a {
            DeviceArg::Buffer(b) => match &b.imp {
                BufImp::Cpu(h) => {
                    bufs.push(Some(h));
                    scalars.push(ArgValue::Scalar(ScalarType::U32, 0));
                }
                BufImp::Cuda(_) | BufImp::Vulkan(_) | BufImp::Hsa(_) => {
                    return Err(RtError::usage(format!(
                        "kernel @{}: a buffer of a GPU device passed to the {device} device",
                        f.name
                    )))
                }
            },
            DeviceArg::Scalar(t, v) => {
                bufs.push(None);
                scalars.push(ArgValue::Scalar(*t, *v));
            }
        }
    }
    Ok((bufs, scalars))
}

/// Compile-time check: the handles a multi-threaded host shares are `Send + Sync`.
const _: () = {
    const fn is<T: Send + Sync>() {}
    is::<DeviceBuffer>();
    is::<CompiledKernel>();
    is::<cuda::CudaDevice>();
    is::<vulkan::VulkanDevice>();
    is::<crate::hsa::device::HsaGpu>();
};
