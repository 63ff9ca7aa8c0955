; An LDS exchange across two waves around s_barrier, a branch and a global store, for
; tests/sim_llvm.rs: compiled by llc-19, linked by ld.lld-19, run by the simulator.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()

@lds = internal addrspace(3) global [128 x i32] poison, align 4

define amdgpu_kernel void @exchange(ptr addrspace(1) %out, i32 %n, i32 %k) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %v = mul i32 %tid, %k
  %slot = getelementptr [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %tid
  store i32 %v, ptr addrspace(3) %slot
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %o = add i32 %tid, 64
  %o2 = and i32 %o, 127
  %slot2 = getelementptr [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %o2
  %w = load i32, ptr addrspace(3) %slot2
  %c = icmp ult i32 %tid, %n
  br i1 %c, label %then, label %done
then:
  %base = shl i32 %wg, 7
  %gid = add i32 %base, %tid
  %r = add i32 %w, 1000
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %p
  br label %done
done:
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="128,128" }
