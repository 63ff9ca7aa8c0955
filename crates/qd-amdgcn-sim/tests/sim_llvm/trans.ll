; Transcendental results used right away (the gfx942 / gfx1100 trans-use hazards) and mixed with
; integer work, for tests/sim_llvm.rs: compiled by llc-19, linked by ld.lld-19, run by the simulator.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.amdgcn.exp2.f32(float)
declare float @llvm.amdgcn.log.f32(float)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)
declare float @llvm.amdgcn.rsq.f32(float)

define amdgpu_kernel void @trans(ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t1 = add i32 %tid, 1
  %x = uitofp i32 %t1 to float
  %e = call float @llvm.amdgcn.exp2.f32(float %x)
  %l = call float @llvm.amdgcn.log.f32(float %e)
  %r = call float @llvm.amdgcn.rcp.f32(float %l)
  %s = call float @llvm.amdgcn.sqrt.f32(float %r)
  %q = call float @llvm.amdgcn.rsq.f32(float %s)
  %m = fmul float %q, %x
  %i = fptoui float %m to i32
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %i, ptr addrspace(1) %p
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
