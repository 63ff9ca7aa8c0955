; GFX11 cross-lane intrinsics (permlane16, permlanex16, permlane64, DPP8, row_xmask, row_share)
; for tests/sim_llvm.rs: compiled by llc-19, linked by ld.lld-19, run by the simulator.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.permlane16(i32, i32, i32, i32, i1, i1)
declare i32 @llvm.amdgcn.permlanex16(i32, i32, i32, i32, i1, i1)
declare i32 @llvm.amdgcn.permlane64(i32)
declare i32 @llvm.amdgcn.mov.dpp8.i32(i32, i32)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)

define amdgpu_kernel void @gfx11_lanes(ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %tid, 5
  %v = add i32 %m, 1
  ; reverse within each row of 16
  %a = call i32 @llvm.amdgcn.permlane16(i32 0, i32 %v, i32 u0x89abcdef, i32 u0x01234567, i1 false, i1 false)
  ; the other row of the pair, same lane
  %b = call i32 @llvm.amdgcn.permlanex16(i32 0, i32 %a, i32 u0x76543210, i32 u0xfedcba98, i1 false, i1 false)
  %c = call i32 @llvm.amdgcn.permlane64(i32 %b)
  ; dpp8:[1,0,3,2,5,4,7,6] = 1 | 0<<3 | 3<<6 | 2<<9 | 5<<12 | 4<<15 | 7<<18 | 6<<21
  %d = call i32 @llvm.amdgcn.mov.dpp8.i32(i32 %c, i32 14570689)
  ; row_xmask:1 (0x161), row_share:3 (0x153)
  %e = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %d, i32 353, i32 15, i32 15, i1 false)
  %f = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %e, i32 339, i32 15, i32 15, i1 false)
  %r = add i32 %f, %tid
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
