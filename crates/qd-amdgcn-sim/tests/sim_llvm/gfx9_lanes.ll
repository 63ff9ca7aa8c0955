; GFX9-only DPP controls (wave_shr:1, wave_rol:1, row_bcast:15, row_bcast:31 with row masks) for
; tests/sim_llvm.rs: compiled by llc-19, linked by ld.lld-19, run by the simulator.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)

define amdgpu_kernel void @gfx9_lanes(ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %tid, 7
  %v = add i32 %m, 3
  ; wave_shr:1 (0x138): lane 0 has no source and keeps old = 100
  %a = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %v, i32 312, i32 15, i32 15, i1 false)
  ; row_bcast:15 (0x142) on rows 1 and 3 (row_mask 0xa)
  %b = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %a, i32 322, i32 10, i32 15, i1 false)
  ; row_bcast:31 (0x143) on rows 2 and 3 (row_mask 0xc)
  %c = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %b, i32 323, i32 12, i32 15, i1 false)
  ; wave_rol:1 (0x134)
  %d = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %v, i32 308, i32 15, i32 15, i1 false)
  %b3 = mul i32 %b, 3
  %c5 = mul i32 %c, 5
  %d7 = mul i32 %d, 7
  %s1 = add i32 %a, %b3
  %s2 = add i32 %s1, %c5
  %r = add i32 %s2, %d7
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
