; bench_kernel_amdgcn.ll: LLVM 19 IR that does the same work as qd's bench kernel, for timing
; `llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942` beside qd's own MIR -> code object back end
; (docs/performance.md, "AMDGCN back end (issue #4)").
;
; It mirrors `benches/lib.rs::build_kernel` (106 MIR instructions; print them with
; `cargo run -p qd-benches --example dump_bench_ptx -- --mir`), translated op by op, for a wave64
; gfx942 kernel under qd's ABI (crates/qd-isel-amdgcn/src/abi.rs). Each value `%vN` is MIR value
; `%N`; comments give the MIR op where the translation is more than one instruction.
;   * the kernel arguments are the MIR parameters followed by qd's hidden ones: the grid size in
;     blocks `qd.grid_x/y/z` (three i32) and the per-lane spill area pointer `qd.spill`, so the
;     kernarg segment has qd's layout; `block_dim` is the compile-time constant 256 (qd compiles
;     for the kernel's block size; "amdgpu-flat-work-group-size"="256,256");
;   * `thread_id x` is `llvm.amdgcn.workitem.id.x`, `block_id x` is `llvm.amdgcn.workgroup.id.x`,
;     `grid_dim x` is the `qd.grid_x` argument, `lane_id` is `llvm.amdgcn.mbcnt.lo/hi`;
;   * buffers are `ptr addrspace(1)`; `ptr.offset` is a zero-extended-index GEP;
;   * the grid-stride loop is a header that tests `i >= n` and a latch that adds the stride (a
;     divergent loop: the exit depends on the work-item id);
;   * the divergent `if` is a branch diamond with a phi (MIR `if ... -> (f32)` with `yield`);
;   * float `min`/`max` are `llvm.minnum`/`llvm.maxnum` plus a signed-zero fix-up (where the
;     operands compare equal, the OR / AND of their bits: min(-0, +0) = -0, max(-0, +0) = +0),
;     the interpreter's IEEE minNum/maxNum;
;   * the subgroup ops sit inside the divergent loop, so they read the active-lane mask
;     (`llvm.amdgcn.ballot.i64(true)`, EXEC) and move values with `llvm.amdgcn.ds.bpermute`
;     (byte address = 4 x source lane), with the exact partial-activity algorithms qd's PTX back
;     end uses, widened to wave64:
;       - `subgroup.reduce max` is a 6-step butterfly: at step k every lane reads the partial of
;         the first active lane of its partner k-lane group (cttz of the group's EXEC bits) and
;         takes the identity -inf where that group has no active lane;
;       - `subgroup.scan inclusive add tile(3)` gathers the 8 lanes of the tile (0 for inactive
;         lanes), runs a Kogge-Stone prefix over the 8 and picks the lane's own prefix with a
;         3-level select tree;
;       - `shuffle.xor %56, 1` reads lane ^ 1 and keeps the lane's own value where that lane is
;         inactive.
;
;   llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 -O2 -filetype=obj benches/llvm/bench_kernel_amdgcn.ll -o k.o
;   ld.lld-19 -shared k.o -o k.hsaco      # the full code object, as qd writes one

target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @bench_kernel(ptr addrspace(1) %src, ptr addrspace(1) %idx, ptr addrspace(1) %dst, i32 %n, float %scale, i32 %qd.grid_x, i32 %qd.grid_y, i32 %qd.grid_z, ptr addrspace(1) %qd.spill) #0 {
entry:
  %v0 = call i32 @llvm.amdgcn.workitem.id.x()
  ; %1 = block_dim x: the constant 256
  %v2 = call i32 @llvm.amdgcn.workgroup.id.x()
  %v3 = mul i32 256, %v2
  %v4 = add i32 %v0, %v3
  ; %5 = grid_dim x: the qd.grid_x argument
  %v6 = mul i32 256, %qd.grid_x
  br label %loop

loop:                                             ; loop (%7: u32 = %4)
  %v7 = phi i32 [ %v4, %entry ], [ %v98, %latch ]
  %v8 = icmp uge i32 %v7, %n
  br i1 %v8, label %exit, label %body

body:
  %i64 = zext i32 %v7 to i64
  %v9 = getelementptr inbounds float, ptr addrspace(1) %src, i64 %i64
  %v10 = load float, ptr addrspace(1) %v9, align 4
  %v11 = getelementptr inbounds i32, ptr addrspace(1) %idx, i64 %i64
  %v12 = load i32, ptr addrspace(1) %v11, align 4
  %v15 = add i32 %v12, 1
  %v16 = and i32 %v15, 1023
  %v17 = mul i32 %v16, %v15
  %v18 = xor i32 %v17, %v12
  %v20 = lshr i32 %v18, 3
  %v21 = call i32 @llvm.ctpop.i32(i32 %v20)
  %v22 = call i32 @llvm.ctlz.i32(i32 %v21, i1 false)
  %v23 = call i32 @llvm.umin.i32(i32 %v22, i32 %v20)
  %v24 = urem i32 %v23, %n
  %j64 = zext i32 %v24 to i64
  %v25 = getelementptr inbounds float, ptr addrspace(1) %src, i64 %j64
  %v26 = load float, ptr addrspace(1) %v25, align 4
  %v27 = fmul float %v10, %scale
  %v28 = call float @llvm.fma.f32(float %v26, float %v27, float %v10)
  %v29 = call float @llvm.fabs.f32(float %v28)
  %v30 = call float @llvm.sqrt.f32(float %v29)
  %v32 = fcmp ogt float %v28, 0.0
  br i1 %v32, label %then, label %else

then:                                             ; %33 = if %32 -> (f32)
  %v35 = fmul float %v30, 2.0
  %v36 = uitofp i32 %v21 to float
  %v37 = fadd float %v35, %v36
  br label %join

else:
  %v38 = fneg float %v30
  ; %40 = max %38, 0.5 : f32
  %v40.m = call float @llvm.maxnum.f32(float %v38, float 0.5)
  %v40.eq = fcmp oeq float %v38, 0.5
  %v40.ai = bitcast float %v38 to i32
  %v40.zi = and i32 %v40.ai, 1056964608
  %v40.z = bitcast i32 %v40.zi to float
  %v40 = select i1 %v40.eq, float %v40.z, float %v40.m
  br label %join

join:
  %v33 = phi float [ %v37, %then ], [ %v40, %else ]
  ; %41 = lane_id
  %v41.lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %v41 = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %v41.lo)
  %v42 = uitofp i32 %v41 to float
  %v43 = fadd float %v33, %v42

  ; %44 = subgroup.reduce max %43 : f32 -- the exact partial-activity butterfly over 64 lanes
  %red.am = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %red.x0 = bitcast float %v43 to i32
  ; step 0: partner group of 1 lane(s)
  %red.s0.gx = xor i32 %v41, 1
  %red.s0.g = and i32 %red.s0.gx, -1
  %red.s0.g64 = zext i32 %red.s0.g to i64
  %red.s0.sh = lshr i64 %red.am, %red.s0.g64
  %red.s0.gm = and i64 %red.s0.sh, 1
  %red.s0.tz = call i64 @llvm.cttz.i64(i64 %red.s0.gm, i1 false)
  %red.s0.tz32 = trunc i64 %red.s0.tz to i32
  %red.s0.src = add i32 %red.s0.tz32, %red.s0.g
  %red.s0.addr = shl i32 %red.s0.src, 2
  %red.s0.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s0.addr, i32 %red.x0)
  %red.s0.r = bitcast i32 %red.s0.ri to float
  %red.s0.any = icmp ne i64 %red.s0.gm, 0
  %red.s0.p = select i1 %red.s0.any, float %red.s0.r, float 0xFFF0000000000000
  %red.s0.x.m = call float @llvm.maxnum.f32(float %v43, float %red.s0.p)
  %red.s0.x.eq = fcmp oeq float %v43, %red.s0.p
  %red.s0.x.ai = bitcast float %v43 to i32
  %red.s0.x.bi = bitcast float %red.s0.p to i32
  %red.s0.x.zi = and i32 %red.s0.x.ai, %red.s0.x.bi
  %red.s0.x.z = bitcast i32 %red.s0.x.zi to float
  %red.s0.x = select i1 %red.s0.x.eq, float %red.s0.x.z, float %red.s0.x.m
  %red.s0.xi = bitcast float %red.s0.x to i32
  ; step 1: partner group of 2 lane(s)
  %red.s1.gx = xor i32 %v41, 2
  %red.s1.g = and i32 %red.s1.gx, -2
  %red.s1.g64 = zext i32 %red.s1.g to i64
  %red.s1.sh = lshr i64 %red.am, %red.s1.g64
  %red.s1.gm = and i64 %red.s1.sh, 3
  %red.s1.tz = call i64 @llvm.cttz.i64(i64 %red.s1.gm, i1 false)
  %red.s1.tz32 = trunc i64 %red.s1.tz to i32
  %red.s1.src = add i32 %red.s1.tz32, %red.s1.g
  %red.s1.addr = shl i32 %red.s1.src, 2
  %red.s1.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s1.addr, i32 %red.s0.xi)
  %red.s1.r = bitcast i32 %red.s1.ri to float
  %red.s1.any = icmp ne i64 %red.s1.gm, 0
  %red.s1.p = select i1 %red.s1.any, float %red.s1.r, float 0xFFF0000000000000
  %red.s1.x.m = call float @llvm.maxnum.f32(float %red.s0.x, float %red.s1.p)
  %red.s1.x.eq = fcmp oeq float %red.s0.x, %red.s1.p
  %red.s1.x.ai = bitcast float %red.s0.x to i32
  %red.s1.x.bi = bitcast float %red.s1.p to i32
  %red.s1.x.zi = and i32 %red.s1.x.ai, %red.s1.x.bi
  %red.s1.x.z = bitcast i32 %red.s1.x.zi to float
  %red.s1.x = select i1 %red.s1.x.eq, float %red.s1.x.z, float %red.s1.x.m
  %red.s1.xi = bitcast float %red.s1.x to i32
  ; step 2: partner group of 4 lane(s)
  %red.s2.gx = xor i32 %v41, 4
  %red.s2.g = and i32 %red.s2.gx, -4
  %red.s2.g64 = zext i32 %red.s2.g to i64
  %red.s2.sh = lshr i64 %red.am, %red.s2.g64
  %red.s2.gm = and i64 %red.s2.sh, 15
  %red.s2.tz = call i64 @llvm.cttz.i64(i64 %red.s2.gm, i1 false)
  %red.s2.tz32 = trunc i64 %red.s2.tz to i32
  %red.s2.src = add i32 %red.s2.tz32, %red.s2.g
  %red.s2.addr = shl i32 %red.s2.src, 2
  %red.s2.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s2.addr, i32 %red.s1.xi)
  %red.s2.r = bitcast i32 %red.s2.ri to float
  %red.s2.any = icmp ne i64 %red.s2.gm, 0
  %red.s2.p = select i1 %red.s2.any, float %red.s2.r, float 0xFFF0000000000000
  %red.s2.x.m = call float @llvm.maxnum.f32(float %red.s1.x, float %red.s2.p)
  %red.s2.x.eq = fcmp oeq float %red.s1.x, %red.s2.p
  %red.s2.x.ai = bitcast float %red.s1.x to i32
  %red.s2.x.bi = bitcast float %red.s2.p to i32
  %red.s2.x.zi = and i32 %red.s2.x.ai, %red.s2.x.bi
  %red.s2.x.z = bitcast i32 %red.s2.x.zi to float
  %red.s2.x = select i1 %red.s2.x.eq, float %red.s2.x.z, float %red.s2.x.m
  %red.s2.xi = bitcast float %red.s2.x to i32
  ; step 3: partner group of 8 lane(s)
  %red.s3.gx = xor i32 %v41, 8
  %red.s3.g = and i32 %red.s3.gx, -8
  %red.s3.g64 = zext i32 %red.s3.g to i64
  %red.s3.sh = lshr i64 %red.am, %red.s3.g64
  %red.s3.gm = and i64 %red.s3.sh, 255
  %red.s3.tz = call i64 @llvm.cttz.i64(i64 %red.s3.gm, i1 false)
  %red.s3.tz32 = trunc i64 %red.s3.tz to i32
  %red.s3.src = add i32 %red.s3.tz32, %red.s3.g
  %red.s3.addr = shl i32 %red.s3.src, 2
  %red.s3.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s3.addr, i32 %red.s2.xi)
  %red.s3.r = bitcast i32 %red.s3.ri to float
  %red.s3.any = icmp ne i64 %red.s3.gm, 0
  %red.s3.p = select i1 %red.s3.any, float %red.s3.r, float 0xFFF0000000000000
  %red.s3.x.m = call float @llvm.maxnum.f32(float %red.s2.x, float %red.s3.p)
  %red.s3.x.eq = fcmp oeq float %red.s2.x, %red.s3.p
  %red.s3.x.ai = bitcast float %red.s2.x to i32
  %red.s3.x.bi = bitcast float %red.s3.p to i32
  %red.s3.x.zi = and i32 %red.s3.x.ai, %red.s3.x.bi
  %red.s3.x.z = bitcast i32 %red.s3.x.zi to float
  %red.s3.x = select i1 %red.s3.x.eq, float %red.s3.x.z, float %red.s3.x.m
  %red.s3.xi = bitcast float %red.s3.x to i32
  ; step 4: partner group of 16 lane(s)
  %red.s4.gx = xor i32 %v41, 16
  %red.s4.g = and i32 %red.s4.gx, -16
  %red.s4.g64 = zext i32 %red.s4.g to i64
  %red.s4.sh = lshr i64 %red.am, %red.s4.g64
  %red.s4.gm = and i64 %red.s4.sh, 65535
  %red.s4.tz = call i64 @llvm.cttz.i64(i64 %red.s4.gm, i1 false)
  %red.s4.tz32 = trunc i64 %red.s4.tz to i32
  %red.s4.src = add i32 %red.s4.tz32, %red.s4.g
  %red.s4.addr = shl i32 %red.s4.src, 2
  %red.s4.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s4.addr, i32 %red.s3.xi)
  %red.s4.r = bitcast i32 %red.s4.ri to float
  %red.s4.any = icmp ne i64 %red.s4.gm, 0
  %red.s4.p = select i1 %red.s4.any, float %red.s4.r, float 0xFFF0000000000000
  %red.s4.x.m = call float @llvm.maxnum.f32(float %red.s3.x, float %red.s4.p)
  %red.s4.x.eq = fcmp oeq float %red.s3.x, %red.s4.p
  %red.s4.x.ai = bitcast float %red.s3.x to i32
  %red.s4.x.bi = bitcast float %red.s4.p to i32
  %red.s4.x.zi = and i32 %red.s4.x.ai, %red.s4.x.bi
  %red.s4.x.z = bitcast i32 %red.s4.x.zi to float
  %red.s4.x = select i1 %red.s4.x.eq, float %red.s4.x.z, float %red.s4.x.m
  %red.s4.xi = bitcast float %red.s4.x to i32
  ; step 5: partner group of 32 lane(s)
  %red.s5.gx = xor i32 %v41, 32
  %red.s5.g = and i32 %red.s5.gx, -32
  %red.s5.g64 = zext i32 %red.s5.g to i64
  %red.s5.sh = lshr i64 %red.am, %red.s5.g64
  %red.s5.gm = and i64 %red.s5.sh, 4294967295
  %red.s5.tz = call i64 @llvm.cttz.i64(i64 %red.s5.gm, i1 false)
  %red.s5.tz32 = trunc i64 %red.s5.tz to i32
  %red.s5.src = add i32 %red.s5.tz32, %red.s5.g
  %red.s5.addr = shl i32 %red.s5.src, 2
  %red.s5.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %red.s5.addr, i32 %red.s4.xi)
  %red.s5.r = bitcast i32 %red.s5.ri to float
  %red.s5.any = icmp ne i64 %red.s5.gm, 0
  %red.s5.p = select i1 %red.s5.any, float %red.s5.r, float 0xFFF0000000000000
  %red.s5.x.m = call float @llvm.maxnum.f32(float %red.s4.x, float %red.s5.p)
  %red.s5.x.eq = fcmp oeq float %red.s4.x, %red.s5.p
  %red.s5.x.ai = bitcast float %red.s4.x to i32
  %red.s5.x.bi = bitcast float %red.s5.p to i32
  %red.s5.x.zi = and i32 %red.s5.x.ai, %red.s5.x.bi
  %red.s5.x.z = bitcast i32 %red.s5.x.zi to float
  %red.s5.x = select i1 %red.s5.x.eq, float %red.s5.x.z, float %red.s5.x.m
  ; %red.s5.x is %44

  ; %45 = subgroup.scan inclusive add tile(3) %21 : u32 -- gather the 8 lanes of the tile, 0 where
  ; inactive, a Kogge-Stone prefix over the 8, then pick this lane's prefix with a select tree
  %scan.am = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %scan.base = and i32 %v41, -8
  %scan.base64 = zext i32 %scan.base to i64
  %scan.on = lshr i64 %scan.am, %scan.base64
  %scan.src0 = add i32 %scan.base, 0
  %scan.addr0 = shl i32 %scan.src0, 2
  %scan.v0 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr0, i32 %v21)
  %scan.bit0 = and i64 %scan.on, 1
  %scan.act0 = icmp ne i64 %scan.bit0, 0
  %scan.g0 = select i1 %scan.act0, i32 %scan.v0, i32 0
  %scan.src1 = add i32 %scan.base, 1
  %scan.addr1 = shl i32 %scan.src1, 2
  %scan.v1 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr1, i32 %v21)
  %scan.bit1 = and i64 %scan.on, 2
  %scan.act1 = icmp ne i64 %scan.bit1, 0
  %scan.g1 = select i1 %scan.act1, i32 %scan.v1, i32 0
  %scan.src2 = add i32 %scan.base, 2
  %scan.addr2 = shl i32 %scan.src2, 2
  %scan.v2 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr2, i32 %v21)
  %scan.bit2 = and i64 %scan.on, 4
  %scan.act2 = icmp ne i64 %scan.bit2, 0
  %scan.g2 = select i1 %scan.act2, i32 %scan.v2, i32 0
  %scan.src3 = add i32 %scan.base, 3
  %scan.addr3 = shl i32 %scan.src3, 2
  %scan.v3 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr3, i32 %v21)
  %scan.bit3 = and i64 %scan.on, 8
  %scan.act3 = icmp ne i64 %scan.bit3, 0
  %scan.g3 = select i1 %scan.act3, i32 %scan.v3, i32 0
  %scan.src4 = add i32 %scan.base, 4
  %scan.addr4 = shl i32 %scan.src4, 2
  %scan.v4 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr4, i32 %v21)
  %scan.bit4 = and i64 %scan.on, 16
  %scan.act4 = icmp ne i64 %scan.bit4, 0
  %scan.g4 = select i1 %scan.act4, i32 %scan.v4, i32 0
  %scan.src5 = add i32 %scan.base, 5
  %scan.addr5 = shl i32 %scan.src5, 2
  %scan.v5 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr5, i32 %v21)
  %scan.bit5 = and i64 %scan.on, 32
  %scan.act5 = icmp ne i64 %scan.bit5, 0
  %scan.g5 = select i1 %scan.act5, i32 %scan.v5, i32 0
  %scan.src6 = add i32 %scan.base, 6
  %scan.addr6 = shl i32 %scan.src6, 2
  %scan.v6 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr6, i32 %v21)
  %scan.bit6 = and i64 %scan.on, 64
  %scan.act6 = icmp ne i64 %scan.bit6, 0
  %scan.g6 = select i1 %scan.act6, i32 %scan.v6, i32 0
  %scan.src7 = add i32 %scan.base, 7
  %scan.addr7 = shl i32 %scan.src7, 2
  %scan.v7 = call i32 @llvm.amdgcn.ds.bpermute(i32 %scan.addr7, i32 %v21)
  %scan.bit7 = and i64 %scan.on, 128
  %scan.act7 = icmp ne i64 %scan.bit7, 0
  %scan.g7 = select i1 %scan.act7, i32 %scan.v7, i32 0
  %scan.s1.7 = add i32 %scan.g6, %scan.g7
  %scan.s1.6 = add i32 %scan.g5, %scan.g6
  %scan.s1.5 = add i32 %scan.g4, %scan.g5
  %scan.s1.4 = add i32 %scan.g3, %scan.g4
  %scan.s1.3 = add i32 %scan.g2, %scan.g3
  %scan.s1.2 = add i32 %scan.g1, %scan.g2
  %scan.s1.1 = add i32 %scan.g0, %scan.g1
  %scan.s2.7 = add i32 %scan.s1.5, %scan.s1.7
  %scan.s2.6 = add i32 %scan.s1.4, %scan.s1.6
  %scan.s2.5 = add i32 %scan.s1.3, %scan.s1.5
  %scan.s2.4 = add i32 %scan.s1.2, %scan.s1.4
  %scan.s2.3 = add i32 %scan.s1.1, %scan.s1.3
  %scan.s2.2 = add i32 %scan.g0, %scan.s1.2
  %scan.s3.7 = add i32 %scan.s2.3, %scan.s2.7
  %scan.s3.6 = add i32 %scan.s2.2, %scan.s2.6
  %scan.s3.5 = add i32 %scan.s1.1, %scan.s2.5
  %scan.s3.4 = add i32 %scan.g0, %scan.s2.4
  %scan.idx = and i32 %v41, 7
  %scan.b0 = and i32 %scan.idx, 1
  %scan.c0 = icmp ne i32 %scan.b0, 0
  %scan.p0.0 = select i1 %scan.c0, i32 %scan.s1.1, i32 %scan.g0
  %scan.p0.1 = select i1 %scan.c0, i32 %scan.s2.3, i32 %scan.s2.2
  %scan.p0.2 = select i1 %scan.c0, i32 %scan.s3.5, i32 %scan.s3.4
  %scan.p0.3 = select i1 %scan.c0, i32 %scan.s3.7, i32 %scan.s3.6
  %scan.b1 = and i32 %scan.idx, 2
  %scan.c1 = icmp ne i32 %scan.b1, 0
  %scan.p1.0 = select i1 %scan.c1, i32 %scan.p0.1, i32 %scan.p0.0
  %scan.p1.1 = select i1 %scan.c1, i32 %scan.p0.3, i32 %scan.p0.2
  %scan.b2 = and i32 %scan.idx, 4
  %scan.c2 = icmp ne i32 %scan.b2, 0
  %scan.p2.0 = select i1 %scan.c2, i32 %scan.p1.1, i32 %scan.p1.0
  ; %scan.p2.0 is %45

  %v46 = uitofp i32 %scan.p2.0 to float
  %v47 = fsub float %red.s5.x, %v46
  ; %48 = min %47, %43 : f32
  %v48.m = call float @llvm.minnum.f32(float %v47, float %v43)
  %v48.eq = fcmp oeq float %v47, %v43
  %v48.ai = bitcast float %v47 to i32
  %v48.bi = bitcast float %v43 to i32
  %v48.zi = or i32 %v48.ai, %v48.bi
  %v48.z = bitcast i32 %v48.zi to float
  %v48 = select i1 %v48.eq, float %v48.z, float %v48.m
  ; %50 = max %48, -1000000.0 : f32
  %v50.m = call float @llvm.maxnum.f32(float %v48, float -1.000000e+06)
  %v50.eq = fcmp oeq float %v48, -1.000000e+06
  %v50.ai = bitcast float %v48 to i32
  %v50.zi = and i32 %v50.ai, 3379831808
  %v50.z = bitcast i32 %v50.zi to float
  %v50 = select i1 %v50.eq, float %v50.z, float %v50.m
  %v51 = bitcast float %v50 to i32
  %v52 = call i32 @llvm.bitreverse.i32(i32 %v51)
  %v53 = and i32 %v52, 1
  %v55 = icmp ne i32 %v53, 0
  %v56 = select i1 %v55, float %v50, float %v43
  ; %57 = shuffle.xor %56, 1 : f32 -- the lane's own value where lane ^ 1 is inactive
  %shx.am = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %shx.src = xor i32 %v41, 1
  %shx.addr = shl i32 %shx.src, 2
  %shx.xi = bitcast float %v56 to i32
  %shx.ri = call i32 @llvm.amdgcn.ds.bpermute(i32 %shx.addr, i32 %shx.xi)
  %shx.r = bitcast i32 %shx.ri to float
  %shx.src64 = zext i32 %shx.src to i64
  %shx.on = lshr i64 %shx.am, %shx.src64
  %shx.bit = and i64 %shx.on, 1
  %shx.act = icmp ne i64 %shx.bit, 0
  %v57 = select i1 %shx.act, float %shx.r, float %v56
  %v58 = fadd float %v56, %v57
  ; the 8-term Horner polynomial in %50
  %v60 = call float @llvm.fma.f32(float %v58, float %v50, float 0.5)
  %v62 = call float @llvm.fma.f32(float %v60, float %v50, float -1.25)
  %v64 = call float @llvm.fma.f32(float %v62, float %v50, float 2.0)
  %v66 = call float @llvm.fma.f32(float %v64, float %v50, float 0.125)
  %v68 = call float @llvm.fma.f32(float %v66, float %v50, float -3.5)
  %v70 = call float @llvm.fma.f32(float %v68, float %v50, float 1.0)
  %v72 = call float @llvm.fma.f32(float %v70, float %v50, float 0.75)
  %v74 = call float @llvm.fma.f32(float %v72, float %v50, float -0.0625)
  ; the integer hash of %12
  %v76 = mul i32 %v12, 2654435769
  %v78 = lshr i32 %v76, 16
  %v79 = xor i32 %v76, %v78
  %v81 = mul i32 %v79, 2246822507
  %v83 = lshr i32 %v81, 16
  %v84 = xor i32 %v81, %v83
  %v86 = mul i32 %v84, 3266489909
  %v88 = lshr i32 %v86, 16
  %v89 = xor i32 %v86, %v88
  %v91 = mul i32 %v89, 668265263
  %v93 = lshr i32 %v91, 16
  %v94 = xor i32 %v91, %v93
  %v95 = uitofp i32 %v94 to float
  %v96 = fadd float %v74, %v95
  %v97 = getelementptr inbounds float, ptr addrspace(1) %dst, i64 %i64
  store float %v96, ptr addrspace(1) %v97, align 4
  br label %latch

latch:                                            ; continue %98
  %v98 = add i32 %v7, %v6
  br label %loop

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.bitreverse.i32(i32)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }
