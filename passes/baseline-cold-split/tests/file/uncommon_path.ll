; An uncommon path the semantics stated (`deegen_api::uncommon_path()`, here already the
; directive `type-hint-slow-paths` makes of it in a stencil): the block with the directive and
; every block it dominates (a probe loop, its exits) are cold, the edge into it gets weight 0,
; and the directive is erased, also from an AOT slow path that copied it. The join where the
; uncommon path comes back (reached from the fast path too) stays hot. Compiled, the probe
; loop is in the stencil's cold part, on the same registers (no call, no spill), and continues
; from there (here llc duplicated the short join into it).
; RUN: deegen-opt --passes=baseline-cold-split %s | FileCheck %s
; RUN: deegen-opt --passes=baseline-cold-split %s | llc-22 -O2 -enable-split-machine-functions -mfs-count-threshold=1024 | FileCheck %s --check-prefix=ASM

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Get(
; CHECK-SAME:    !prof [[ENTRY:![0-9]+]]
; CHECK:         br i1 %in_array, label %array, label %hash, !prof [[HOT_COLD:![0-9]+]]
; CHECK:       hash:
; CHECK-NEXT:    %mask = load i64, ptr %pc
; CHECK:       probe:
; CHECK:         br i1 %found, label %join, label %probe{{$}}
; CHECK:       join:
; CHECK-LABEL: define internal ghccc void @__deegen_jit_op_Get__slow0(
; CHECK-NOT:     call void @__deegen_uncommon_path
; CHECK:         ret void
; CHECK-DAG:   [[ENTRY]] = !{!"function_entry_count", i64 1073741824}
; CHECK-DAG:   [[HOT_COLD]] = !{!"branch_weights", i32 1048576, i32 0}
; CHECK-NOT:   __deegen_uncommon_path

; ASM-LABEL: __deegen_jit_op_Get:
; ASM-NOT:     call
; ASM:         jmp __deegen_jit_next
; ASM:         .section .text.split.__deegen_jit_op_Get
; ASM-NEXT:  __deegen_jit_op_Get.cold: # %hash
; ASM-NOT:     call
; ASM:         jne .LBB0_
; ASM:         jmp __deegen_jit_next
; ASM-NOT:     __deegen_uncommon_path

target triple = "x86_64-unknown-linux-gnu"

declare hidden ghccc void @__deegen_jit_next(ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64)
declare void @__deegen_uncommon_path() #2

define ghccc void @__deegen_jit_op_Get(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %key = load i64, ptr %base
  %len = load i64, ptr %cb
  %in_array = icmp ult i64 %key, %len
  br i1 %in_array, label %array, label %hash

array:
  %slot = getelementptr i64, ptr %cb, i64 %key
  %v = load i64, ptr %slot
  br label %join

hash:
  call void @__deegen_uncommon_path()
  %mask = load i64, ptr %pc
  br label %probe

probe:
  %i = phi i64 [ %key, %hash ], [ %next, %probe ]
  %masked = and i64 %i, %mask
  %node = getelementptr i64, ptr %ctx, i64 %masked
  %k = load i64, ptr %node
  %found = icmp eq i64 %k, %key
  %next = add i64 %i, 1
  br i1 %found, label %join, label %probe

join:
  %r = phi i64 [ %v, %array ], [ %k, %probe ]
  store i64 %r, ptr %base
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define internal ghccc void @__deegen_jit_op_Get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #1 {
entry:
  call void @__deegen_uncommon_path()
  store i64 %v, ptr %base
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { "deegen-handler"="stencil" "deegen-variant"="0" "frame-pointer"="none" }
attributes #1 = { "deegen-slow-path-of"="__deegen_jit_op_Get" "frame-pointer"="none" }
attributes #2 = { nounwind willreturn }

!deegen.phase = !{!1}
!1 = !{!"finalized"}
