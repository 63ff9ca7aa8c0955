//! Plumbing tests of the `vulkan` device with a hand-built SPIR-V module (rspirv), independent of
//! the SPIR-V back end: pipelines with bindings and push constants, one command buffer of several
//! dispatches with barriers between them, the low-level asynchronous launches, the subgroup size
//! the pipeline really runs at. Skipped (with a message) without a Vulkan device, unless
//! `QD_REQUIRE_VULKAN=1`, which turns a missing device into a failure.

use super::{open, Compiled, Slot, VulkanDevice};
use qd_mir::ScalarType;
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl, MemoryModel,
    StorageClass,
};
use std::sync::Arc;

pub(crate) fn device(test: &str) -> Option<VulkanDevice> {
    match open(0) {
        Ok((d, info)) => {
            eprintln!("{test}: on {} ({})", info.name, info.detail);
            Some(d)
        }
        Err(e) if std::env::var("QD_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("QD_REQUIRE_VULKAN=1 but vulkan:0 cannot be opened: {e}")
        }
        Err(e) => {
            eprintln!("{test}: skipped (no Vulkan device: {e})");
            None
        }
    }
}

/// `data[i] += k; width[i] = SubgroupSize` with i the global invocation x, block (64, 1, 1):
/// buffer 0 = `data` (binding 0), buffer 1 = `width` (binding 1), push constant `k` at offset 0.
fn add_k_module() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    b.capability(Capability::GroupNonUniform);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let u32t = b.type_int(32, 0);
    let v3 = b.type_vector(u32t, 3);
    let rta = b.type_runtime_array(u32t);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let sb = b.type_struct([rta]);
    b.decorate(sb, Decoration::Block, []);
    b.member_decorate(sb, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let psb = b.type_pointer(None, StorageClass::StorageBuffer, sb);
    let mut bufs = Vec::new();
    for binding in 0..2 {
        let v = b.variable(psb, None, StorageClass::StorageBuffer, None);
        b.decorate(v, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(v, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        bufs.push(v);
    }
    let pcs = b.type_struct([u32t]);
    b.decorate(pcs, Decoration::Block, []);
    b.member_decorate(pcs, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let ppc = b.type_pointer(None, StorageClass::PushConstant, pcs);
    let pc = b.variable(ppc, None, StorageClass::PushConstant, None);
    let pin3 = b.type_pointer(None, StorageClass::Input, v3);
    let gid = b.variable(pin3, None, StorageClass::Input, None);
    b.decorate(gid, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::GlobalInvocationId)]);
    let pin = b.type_pointer(None, StorageClass::Input, u32t);
    let sgs = b.variable(pin, None, StorageClass::Input, None);
    b.decorate(sgs, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::SubgroupSize)]);
    let c0 = b.constant_bit32(u32t, 0);
    let pel = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let ppk = b.type_pointer(None, StorageClass::PushConstant, u32t);
    let fty = b.type_function(void, []);
    let f = b.begin_function(void, None, FunctionControl::NONE, fty).unwrap();
    b.begin_block(None).unwrap();
    let g = b.load(v3, None, gid, None, []).unwrap();
    let x = b.composite_extract(u32t, None, g, [0]).unwrap();
    let p0 = b.access_chain(pel, None, bufs[0], [c0, x]).unwrap();
    let v = b.load(u32t, None, p0, None, []).unwrap();
    let pk = b.access_chain(ppk, None, pc, [c0]).unwrap();
    let k = b.load(u32t, None, pk, None, []).unwrap();
    let s = b.i_add(u32t, None, v, k).unwrap();
    b.store(p0, s, None, []).unwrap();
    let n = b.load(u32t, None, sgs, None, []).unwrap();
    let p1 = b.access_chain(pel, None, bufs[1], [c0, x]).unwrap();
    b.store(p1, n, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::GLCompute, f, "add_k", [gid, sgs]);
    b.execution_mode(f, ExecutionMode::LocalSize, [64, 1, 1]);
    b.module().assemble()
}

/// The MIR signature the hand-built module implements (for the grid policy and arguments).
fn signature() -> qd_mir::Function {
    let m = qd_mir::parse_module(
        "kernel @add_k(%data: ptr<global, u32>, %width: ptr<global, u32>, %k: u32 uniform) block(64, 1, 1) grid(2, 1, 1) {\n  return\n}\n",
    )
    .unwrap();
    m.kernels[0].clone()
}

fn add_k(dev: &VulkanDevice) -> Arc<super::Kernel> {
    let c = Compiled {
        words: add_k_module(),
        entry: "add_k".into(),
        bindings: vec![0, 1],
        push: vec![(2, 0, ScalarType::U32)],
        push_bytes: 4,
    };
    Arc::new(dev.make_kernel([64, 1, 1], c, dev.gpu.props.subgroup_size, None).unwrap())
}

fn bytes(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn one_command_buffer_of_dispatches_with_barriers() {
    let Some(dev) = device("one_command_buffer_of_dispatches_with_barriers") else { return };
    let k = add_k(&dev);
    let f = signature();
    let data = Arc::new(dev.upload(&bytes(0..128)).unwrap());
    let width = Arc::new(dev.upload(&bytes([0; 128])).unwrap());
    let slots = |k: u64| vec![Slot::Buf(data.clone()), Slot::Buf(width.clone()), Slot::Scalar(ScalarType::U32, k)];
    // Three dependent read-modify-write dispatches in one submission: the barriers order them.
    let ds: Vec<_> = [100, 10, 1].iter().map(|&a| dev.dispatch(&k, &f, &slots(a), None).unwrap().unwrap()).collect();
    dev.run(ds).unwrap();
    let mut out = vec![0u8; 512];
    data.read(&mut out).unwrap();
    assert_eq!(words(&out), (111..239).collect::<Vec<u32>>());
    width.read(&mut out).unwrap();
    assert_eq!(words(&out), vec![dev.gpu.props.subgroup_size; 128], "SubgroupSize is the device's");
    // An empty grid launches nothing.
    assert!(dev.dispatch(&k, &f, &slots(5), Some([0, 1, 1])).unwrap().is_none());
}

#[test]
fn low_level_launches_are_asynchronous_and_ordered() {
    let Some(dev) = device("low_level_launches_are_asynchronous_and_ordered") else { return };
    let k = add_k(&dev);
    let f = signature();
    let data = Arc::new(dev.upload(&bytes([7; 128])).unwrap());
    let width = Arc::new(dev.upload(&bytes([0; 128])).unwrap());
    for a in 1..=20 {
        let s = vec![Slot::Buf(data.clone()), Slot::Buf(width.clone()), Slot::Scalar(ScalarType::U32, a)];
        dev.launch_all(vec![dev.dispatch(&k, &f, &s, None).unwrap().unwrap()]).unwrap();
    }
    drop(k);
    dev.sync().unwrap();
    let mut out = vec![0u8; 512];
    data.read(&mut out).unwrap();
    assert_eq!(words(&out), vec![7 + 210; 128]);
}

#[test]
fn bad_modules_and_arguments_are_errors() {
    let Some(dev) = device("bad_modules_and_arguments_are_errors") else { return };
    let k = add_k(&dev);
    let f = signature();
    let data = Arc::new(dev.upload(&bytes(0..128)).unwrap());
    // A scalar where the binding wants a buffer.
    let s = vec![Slot::Scalar(ScalarType::U32, 1), Slot::Buf(data.clone()), Slot::Scalar(ScalarType::U32, 1)];
    let e = dev.dispatch(&k, &f, &s, None).err().unwrap();
    assert!(e.to_string().contains("binding 0: parameter 0 is not a buffer"), "{e}");
    let s = vec![Slot::Buf(data.clone()), Slot::Buf(data.clone()), Slot::Scalar(ScalarType::I32, 1)];
    let e = dev.dispatch(&k, &f, &s, None).err().unwrap();
    assert!(e.to_string().contains("parameter 2 is i32, not u32"), "{e}");
    // A grid over maxComputeWorkGroupCount is refused before the launch.
    let s = vec![Slot::Buf(data.clone()), Slot::Buf(data.clone()), Slot::Scalar(ScalarType::U32, 1)];
    let over = dev.gpu.props.limits.max_count[0].saturating_add(1);
    let e = dev.dispatch(&k, &f, &s, Some([over, 1, 1])).err().unwrap();
    assert!(matches!(e.kind, crate::RtErrorKind::Limit { name: "maxComputeWorkGroupCount", .. }), "{e}");
    // Push constants over maxPushConstantsSize.
    let c =
        Compiled { words: add_k_module(), entry: "add_k".into(), bindings: vec![0, 1], push: vec![], push_bytes: 4096 };
    let e = dev.make_kernel([64, 1, 1], c, 8, None).err().unwrap();
    assert!(e.to_string().contains("maxPushConstantsSize"), "{e}");
}

#[test]
fn dropping_the_device_with_launches_pending() {
    let Some(dev) = device("dropping_the_device_with_launches_pending") else { return };
    let k = add_k(&dev);
    let f = signature();
    let data = Arc::new(dev.upload(&bytes([1; 128])).unwrap());
    let width = Arc::new(dev.upload(&bytes([0; 128])).unwrap());
    for a in 0..8 {
        let s = vec![Slot::Buf(data.clone()), Slot::Buf(width.clone()), Slot::Scalar(ScalarType::U32, a)];
        dev.launch_all(vec![dev.dispatch(&k, &f, &s, None).unwrap().unwrap()]).unwrap();
    }
    drop((k, width));
    let data = Arc::try_unwrap(data).ok();
    assert!(data.is_none(), "the pending launches hold the buffer");
    drop(dev); // waits for them, then frees everything
}
