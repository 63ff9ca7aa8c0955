//! The lower-level device API: buffers that live on the device ([`DeviceBuffer`]), compiled
//! kernels ([`CompiledKernel`], cached by kernel text and target on CUDA and Vulkan), asynchronous launches
//! over [`DeviceArg`]s and `synchronize`. `Device::run_kernel`/`run_program` are built from the
//! same pieces; use these to keep buffers resident across several launches.

use crate::args;
use crate::cpu::{self, CpuBuffer};
use crate::cuda::{self, CudaBuffer, Loaded, Slot};
use crate::error::RtError;
use crate::vulkan::{self, raw::Buf};
use crate::{Device, HostBuffer, Imp};
use qd_mir::interp::ArgValue;
use qd_mir::{Function, ScalarType};
use std::sync::{Arc, Mutex};

/// A buffer on a device (host memory for `cpu`, device memory for `cuda`, a host-visible storage
/// buffer for `vulkan`; freed on drop).
pub struct DeviceBuffer {
    elem: ScalarType,
    len: usize,
    imp: BufImp,
}

enum BufImp {
    Cpu(CpuBuffer),
    Cuda(CudaBuffer),
    Vulkan(Arc<Buf>),
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

/// A kernel ready to launch on one device.
pub struct CompiledKernel {
    function: Arc<Function>,
    cuda: Option<Loaded>,
    vulkan: Option<Arc<vulkan::Kernel>>,
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

    /// The subgroup width the kernel was compiled for (Vulkan only; the cpu and cuda devices
    /// have one width).
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
            Imp::Cpu { .. } => BufImp::Cpu(CpuBuffer(Mutex::new(b.clone()))),
            Imp::Cuda(c) => {
                let st = c.shared.lock()?;
                BufImp::Cuda(c.upload(&st, &b.data)?)
            }
            Imp::Vulkan(v) => BufImp::Vulkan(Arc::new(v.upload(&b.data)?)),
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
                d.read(&mut data);
                Ok(HostBuffer { elem: b.elem, data })
            }
            (_, BufImp::Cuda(_)) => Err(RtError::usage("a cuda buffer can only be read by its cuda device")),
            (_, BufImp::Vulkan(_)) => Err(RtError::usage("a vulkan buffer can only be read by its vulkan device")),
        }
    }

    /// Compiles a kernel for this device (CUDA: PTX for its `sm_XY`, loaded and cached by kernel
    /// text and target). To change the block size, compile a copy of the function with
    /// `launch.block` replaced: the PTX bakes the block shape in.
    pub fn compile(&self, f: &Function) -> Result<CompiledKernel, RtError> {
        let function = Arc::new(f.clone());
        match &self.imp {
            Imp::Cpu { .. } => Ok(CompiledKernel { function, cuda: None, vulkan: None }),
            Imp::Cuda(c) => {
                let mut st = c.shared.lock()?;
                let l = c.load(&mut st, f)?;
                Ok(CompiledKernel { function, cuda: Some(l), vulkan: None })
            }
            Imp::Vulkan(v) => Ok(CompiledKernel { function, cuda: None, vulkan: Some(v.compile(f)?) }),
        }
    }

    /// Launches a compiled kernel; `grid` overrides the kernel's grid policy. Asynchronous on
    /// CUDA (call [`Device::synchronize`] or [`Device::download`]); the `cpu` device runs it to
    /// completion.
    pub fn launch(&self, k: &CompiledKernel, argv: &[DeviceArg<'_>], grid: Option<[u32; 3]>) -> Result<(), RtError> {
        let f = &*k.function;
        let ctx = || format!("kernel @{}", f.name);
        if argv.len() != f.params.len() {
            return Err(RtError::usage(format!(
                "{}: expects {} argument(s), got {}",
                ctx(),
                f.params.len(),
                argv.len()
            )));
        }
        for (i, (p, a)) in f.params.iter().zip(argv).enumerate() {
            let want = args::param_kind(p.ty, &p.name, i).map_err(|e| e.context(ctx()))?;
            let ok = match a {
                DeviceArg::Buffer(b) => want == args::ArgKind::Buffer(b.elem),
                DeviceArg::Scalar(t, _) => want == args::ArgKind::Scalar(*t),
            };
            if !ok {
                return Err(RtError::usage(format!("{}: argument {i} (%{}) has the wrong type", ctx(), p.name)));
            }
        }
        match &self.imp {
            Imp::Cpu { width } => {
                let mut bufs = Vec::new();
                let mut scalars = Vec::new();
                for a in argv {
                    match a {
                        DeviceArg::Buffer(b) => match &b.imp {
                            BufImp::Cpu(h) => {
                                bufs.push(Some(h));
                                scalars.push(ArgValue::Scalar(ScalarType::U32, 0));
                            }
                            BufImp::Cuda(_) | BufImp::Vulkan(_) => {
                                return Err(RtError::usage(format!(
                                    "{}: a device buffer passed to the cpu device",
                                    ctx()
                                )))
                            }
                        },
                        DeviceArg::Scalar(t, v) => {
                            bufs.push(None);
                            scalars.push(ArgValue::Scalar(*t, *v));
                        }
                    }
                }
                cpu::launch(*width, f, &bufs, scalars, grid)
            }
            Imp::Cuda(c) => {
                let loaded =
                    k.cuda.as_ref().ok_or_else(|| RtError::usage(format!("{}: compiled for the cpu device", ctx())))?;
                let mut slots = Vec::with_capacity(argv.len());
                for a in argv {
                    slots.push(match a {
                        DeviceArg::Buffer(b) => match &b.imp {
                            BufImp::Cuda(d) => Slot::Ptr(d.ptr),
                            BufImp::Cpu(_) | BufImp::Vulkan(_) => {
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
                    grid,
                    |i| match slots.get(i) {
                        Some(Slot::Scalar(t, v)) => Some((*t, *v)),
                        _ => None,
                    },
                    c.sms,
                )
                .map_err(|e| e.context(ctx()))?;
                let mut st = c.shared.lock()?;
                c.launch(&st, loaded, &slots, g).map_err(|e| c.recover(&mut st, e))
            }
            Imp::Vulkan(v) => {
                let k = k
                    .vulkan
                    .as_ref()
                    .ok_or_else(|| RtError::usage(format!("{}: compiled for another device", ctx())))?;
                let mut slots = Vec::with_capacity(argv.len());
                for a in argv {
                    slots.push(match a {
                        DeviceArg::Buffer(b) => match &b.imp {
                            BufImp::Vulkan(d) if d.is_of(&v.gpu) => vulkan::Slot::Buf(d.clone()),
                            BufImp::Cpu(_) | BufImp::Cuda(_) | BufImp::Vulkan(_) => {
                                return Err(RtError::usage(format!(
                                    "{}: a buffer of another device passed to the vulkan device",
                                    ctx()
                                )))
                            }
                        },
                        DeviceArg::Scalar(t, v) => vulkan::Slot::Scalar(*t, *v),
                    });
                }
                match v.dispatch(k, f, &slots, grid).map_err(|e| e.context(ctx()))? {
                    Some(d) => v.launch(d).map_err(|e| e.context(ctx())),
                    None => Ok(()),
                }
            }
        }
    }

    /// Waits for every launch issued so far.
    pub fn synchronize(&self) -> Result<(), RtError> {
        match &self.imp {
            Imp::Cpu { .. } => Ok(()),
            Imp::Cuda(c) => {
                let mut st = c.shared.lock()?;
                c.sync(&st).map_err(|e| c.recover(&mut st, e))
            }
            Imp::Vulkan(v) => v.sync(),
        }
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<DeviceBuffer>();
    is::<CompiledKernel>();
    is::<cuda::CudaDevice>();
    is::<vulkan::VulkanDevice>();
}
