//! Resident programs: [`Device::run_program_resident`] runs a program of a module over buffers
//! that already live on the device ([`DeviceBuffer`]s), so a benchmark or a replay uploads its
//! data once and runs the program many times, changing only a small input between runs (a live
//! count, with [`Device::write`]).
//!
//! A run makes, before the first launch and in this order: the arguments' number and types
//! against the program's parameters, that every buffer belongs to this device, the program's
//! [`ProgramCheck`](qd_mir::ProgramCheck)s with real buffer identity (`check distinct` fails when
//! one `DeviceBuffer` is bound to both parameters; `check len` reads [`DeviceBuffer::len`]), and
//! every launch's arguments against its kernel's parameters. It then compiles each kernel once
//! (through the device's compiled-kernel cache on CUDA and Vulkan, so later runs reuse the
//! compiled code), allocates a zeroed status word when the program has one, issues the launches
//! in order (one command buffer on Vulkan, the device's stream on CUDA, one after another on
//! `cpu`, `sim-*` and `hsa`), waits for them and reads the status word: a non-zero word is
//! [`RtErrorKind::ProgramStatus`](crate::RtErrorKind::ProgramStatus) with its bits' messages.
//!
//! The `sim-*` and `hsa` devices build their host-buffer runs from these pieces too:
//! `run_program` uploads, runs resident and downloads (`run_program_uploaded`), and the `hsa`
//! device's `run_kernel` compiles, uploads, launches and downloads (`run_kernel_uploaded`).

use crate::error::RtError;
use crate::lowlevel::{check_launch_args, describe_kind, Launch};
use crate::{args, CompiledKernel, Device, DeviceArg, DeviceBuffer, LaunchOptions};
use qd_mir::interp::ArgValue;
use qd_mir::{Function, LaunchArg, Module, Program, ScalarType};
use std::collections::HashMap;

impl Device {
    /// Runs program `p` of `m` over device-resident arguments, one per program parameter (a
    /// [`DeviceArg::Buffer`] for a `ptr<global, T>` parameter, a [`DeviceArg::Scalar`] for a
    /// scalar one); the buffers are updated in place and stay on the device. Returns once every
    /// launch has finished. Errors, each before the first launch unless said otherwise:
    ///
    /// - [`RtErrorKind::Usage`](crate::RtErrorKind::Usage): the wrong number of arguments, an
    ///   argument of the wrong type, a buffer of another device, a launch of a kernel the module
    ///   does not have or whose arguments do not fit it;
    /// - [`RtErrorKind::ProgramCheck`](crate::RtErrorKind::ProgramCheck) naming the parameter: a
    ///   buffer shorter than a `check len`, one buffer bound to both parameters of a
    ///   `check distinct`;
    /// - compile errors and device limits, as for [`Device::launch`];
    /// - after the launches, [`RtErrorKind::ProgramStatus`](crate::RtErrorKind::ProgramStatus):
    ///   the kernels set bits of the program's status word (which each run allocates zeroed).
    pub fn run_program_resident(&self, m: &Module, p: &Program, argv: &[DeviceArg<'_>]) -> Result<(), RtError> {
        self.with_program(m, p, argv, |dev, launches| dev.launch_all(launches))
    }

    /// The run of a resident program around `issue`, which makes the launches: the checks, the
    /// status word, each kernel compiled once, then `issue` with the launches in program order,
    /// a wait for them, and the status word read back.
    pub(crate) fn with_program<R>(
        &self,
        m: &Module,
        p: &Program,
        argv: &[DeviceArg<'_>],
        issue: impl FnOnce(&Device, &[Launch<'_, '_>]) -> Result<R, RtError>,
    ) -> Result<R, RtError> {
        let ctx = format!("program @{}", p.name);
        self.check_resident_args(p, argv)?;
        let status = match p.status {
            Some(_) => Some(self.alloc(ScalarType::U32, 1).map_err(|e| e.context(&ctx))?),
            None => None,
        };
        let mut kernels: HashMap<&str, CompiledKernel> = HashMap::new();
        let mut launch_args: Vec<Vec<DeviceArg<'_>>> = Vec::with_capacity(p.launches.len());
        for (li, l) in p.launches.iter().enumerate() {
            let lctx = || format!("program @{}, launch {li}", p.name);
            let f = m
                .kernel(&l.kernel)
                .ok_or_else(|| RtError::usage(format!("{}: no kernel @{} in the module", lctx(), l.kernel)))?;
            let la = launch_args_of(p, &l.args, argv, status.as_ref()).map_err(|e| e.context(lctx()))?;
            check_launch_args(f, &la).map_err(|e| e.context(lctx()))?;
            if !kernels.contains_key(l.kernel.as_str()) {
                let k = self.compile(f).map_err(|e| e.context(lctx()))?;
                kernels.insert(l.kernel.as_str(), k);
            }
            launch_args.push(la);
        }
        let mut launches = Vec::with_capacity(p.launches.len());
        for (l, la) in p.launches.iter().zip(&launch_args) {
            let kernel = kernels
                .get(l.kernel.as_str())
                .ok_or_else(|| RtError::usage(format!("{ctx}: kernel @{} was not compiled", l.kernel)))?;
            launches.push(Launch { kernel, args: la, grid: None });
        }
        let r = issue(self, &launches).map_err(|e| e.context(&ctx))?;
        self.synchronize().map_err(|e| e.context(&ctx))?;
        if let Some(s) = &status {
            let word = self.download(s).map_err(|e| e.context(&ctx))?;
            let value = word.to_bits().first().map_or(0, |&v| v as u32);
            crate::program::check_status(p, value)?;
        }
        Ok(r)
    }

    /// [`Device::run_program`] built from [`Device::run_program_resident`] (the `sim-*`
    /// devices): the host arguments are checked as every device checks them, each buffer is
    /// uploaded, the program runs resident, and every buffer is downloaded in place — after a
    /// [`RtErrorKind::ProgramStatus`](crate::RtErrorKind::ProgramStatus) too, as on the other
    /// devices.
    pub(crate) fn run_program_uploaded(&self, m: &Module, p: &Program, argv: &mut [ArgValue]) -> Result<(), RtError> {
        crate::program::check_args(p, argv)?;
        enum Slot {
            Buf(DeviceBuffer),
            Scalar(ScalarType, u64),
        }
        let mut slots = Vec::with_capacity(argv.len());
        for a in argv.iter() {
            slots.push(match a {
                ArgValue::Buffer(b) => {
                    Slot::Buf(self.upload(b).map_err(|e| e.context(format!("program @{}", p.name)))?)
                }
                ArgValue::Scalar(t, v) => Slot::Scalar(*t, *v),
            });
        }
        let dargs: Vec<DeviceArg<'_>> = slots
            .iter()
            .map(|s| match s {
                Slot::Buf(b) => DeviceArg::Buffer(b),
                Slot::Scalar(t, v) => DeviceArg::Scalar(*t, *v),
            })
            .collect();
        let r = self.run_program_resident(m, p, &dargs);
        for (a, s) in argv.iter_mut().zip(&slots) {
            if let Slot::Buf(b) = s {
                match self.download(b) {
                    Ok(h) => *a = ArgValue::Buffer(h),
                    Err(e) => return r.and(Err(e)),
                }
            }
        }
        r
    }

    /// [`Device::run_kernel`] built from the lower-level API (the `hsa` device): the arguments
    /// are checked, the kernel is compiled (for `opts.block` when given: the code bakes the block
    /// shape in), each buffer is uploaded, the kernel is launched over `opts.grid` or its policy,
    /// and every buffer is downloaded in place.
    pub(crate) fn run_kernel_uploaded(
        &self,
        f: &Function,
        argv: &mut [ArgValue],
        opts: &LaunchOptions,
    ) -> Result<(), RtError> {
        let ctx = || format!("kernel @{}", f.name);
        args::check_kernel_args(f, argv).map_err(|e| e.context(ctx()))?;
        let f = crate::amdgcn::with_block(f, opts.block);
        let k = self.compile(&f)?;
        enum Slot {
            Buf(DeviceBuffer),
            Scalar(ScalarType, u64),
        }
        let mut slots = Vec::with_capacity(argv.len());
        for a in argv.iter() {
            slots.push(match a {
                ArgValue::Buffer(b) => Slot::Buf(self.upload(b).map_err(|e| e.context(ctx()))?),
                ArgValue::Scalar(t, v) => Slot::Scalar(*t, *v),
            });
        }
        let dargs: Vec<DeviceArg<'_>> = slots
            .iter()
            .map(|s| match s {
                Slot::Buf(b) => DeviceArg::Buffer(b),
                Slot::Scalar(t, v) => DeviceArg::Scalar(*t, *v),
            })
            .collect();
        self.launch(&k, &dargs, opts.grid)?;
        self.synchronize().map_err(|e| e.context(ctx()))?;
        for (a, s) in argv.iter_mut().zip(&slots) {
            if let Slot::Buf(b) = s {
                *a = ArgValue::Buffer(self.download(b).map_err(|e| e.context(ctx()))?);
            }
        }
        Ok(())
    }

    /// The checks of a resident run made before anything is compiled or launched; every
    /// message starts with `program @NAME: `.
    fn check_resident_args(&self, p: &Program, argv: &[DeviceArg<'_>]) -> Result<(), RtError> {
        let ctx = || format!("program @{}", p.name);
        if argv.len() != p.params.len() {
            return Err(
                RtError::usage(format!("expects {} argument(s), got {}", p.params.len(), argv.len())).context(ctx())
            );
        }
        for (i, (param, a)) in p.params.iter().zip(argv).enumerate() {
            let want = args::param_kind(param.ty, &param.name, i).map_err(|e| e.context(ctx()))?;
            if want != a.kind() {
                return Err(RtError::usage(format!(
                    "program argument {i} (%{}): expected {}, got {}",
                    param.name,
                    describe_kind(want),
                    describe_kind(a.kind())
                ))
                .context(ctx()));
            }
            if let DeviceArg::Buffer(b) = a {
                if !self.owns(b) {
                    return Err(RtError::usage(format!(
                        "program argument {i} (%{}): the buffer belongs to another device, not {}",
                        param.name,
                        self.info().spec()
                    ))
                    .context(ctx()));
                }
            }
        }
        let buffer = |i: usize| match argv.get(i) {
            Some(DeviceArg::Buffer(b)) => Some(*b),
            _ => None,
        };
        let len = |i: usize| buffer(i).map(|b| b.len() as u64);
        let same = |i: usize, j: usize| match (buffer(i), buffer(j)) {
            (Some(a), Some(b)) => std::ptr::eq::<DeviceBuffer>(a, b),
            _ => false,
        };
        p.check_args(&len, &same).map_err(RtError::program_check)
    }
}

/// The arguments of one launch: program parameters, typed constants and the status word.
fn launch_args_of<'a>(
    p: &Program,
    largs: &[LaunchArg],
    argv: &[DeviceArg<'a>],
    status: Option<&'a DeviceBuffer>,
) -> Result<Vec<DeviceArg<'a>>, RtError> {
    largs
        .iter()
        .enumerate()
        .map(|(i, la)| match *la {
            LaunchArg::Param(n) => argv
                .get(usize::from(n))
                .copied()
                .ok_or_else(|| RtError::usage(format!("argument {i}: no program parameter {n}"))),
            LaunchArg::Const(t, v) => Ok(DeviceArg::Scalar(t, v)),
            LaunchArg::Status => match status {
                Some(s) => Ok(DeviceArg::Buffer(s)),
                None => {
                    Err(RtError::usage(format!("argument {i} is the status word, but program @{} has none", p.name)))
                }
            },
        })
        .collect()
}
