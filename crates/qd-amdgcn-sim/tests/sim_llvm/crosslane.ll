; A cross-lane kernel (two DPP row_shr steps, ds_swizzle SWAP 1, ds_bpermute xor 5, readlane 7) for
; tests/sim_llvm.rs: compiled by llc-19, linked by ld.lld-19, run by the simulator.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)

define amdgpu_kernel void @crosslane(ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = mul i32 %tid, 3
  %s1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %v, i32 273, i32 15, i32 15, i1 false)
  %a1 = add i32 %v, %s1
  %s2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %a1, i32 274, i32 15, i32 15, i1 false)
  %a2 = add i32 %a1, %s2
  %sw = call i32 @llvm.amdgcn.ds.swizzle(i32 %a2, i32 1055)
  %x = xor i32 %tid, 5
  %addr = shl i32 %x, 2
  %bp = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %sw)
  %rl = call i32 @llvm.amdgcn.readlane.i32(i32 %bp, i32 7)
  %r = add i32 %bp, %rl
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
