; A stencil's exits into its AOT slow paths get weight 0 and the stencil an entry count and no
; section, so that llc's machine function splitter moves them into `.text.split.<name>`: a
; direct exit, one behind a block that only leads to exits, a switch case. Hot weights the
; branch had stay. A stencil without exits, and a function that is not a stencil, are left
; alone. The second RUN line compiles the result: the exits are in the cold part, the fast
; path ends with its jump to the next instruction (exits that are a bare tail call become a
; conditional tail call in line, which takes no more room than a branch to the cold part).
; RUN: deegen-opt --passes=baseline-cold-split %s | FileCheck %s
; RUN: deegen-opt --passes=baseline-cold-split %s | llc-22 -O2 -enable-split-machine-functions -mfs-count-threshold=1024 | FileCheck %s --check-prefix=ASM

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Get(
; CHECK-NOT:     section
; CHECK-SAME:    !prof [[ENTRY:![0-9]+]]
; CHECK:         br i1 %is_table, label %table, label %slow, !prof [[HOT_COLD:![0-9]+]]
; CHECK:         br i1 %hit, label %done, label %miss, !prof [[KEPT:![0-9]+]]
; CHECK:         switch i64 %kind, label %store [
; CHECK:         ], !prof [[SWITCH:![0-9]+]]
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Mov(
; CHECK-SAME:    section ".text.__deegen_jit_op_Mov"
; CHECK-NOT:     !prof
; CHECK-LABEL: define internal ghccc void @__deegen_jit_op_Get__slow0(
; CHECK-NOT:     !prof
; CHECK-LABEL: define hidden i64 @helper(
; CHECK-NOT:     !prof
; CHECK-DAG:   [[ENTRY]] = !{!"function_entry_count", i64 1073741824}
; CHECK-DAG:   [[HOT_COLD]] = !{!"branch_weights", i32 1048576, i32 0}
; CHECK-DAG:   [[KEPT]] = !{!"branch_weights", i32 4000, i32 0}
; CHECK-DAG:   [[SWITCH]] = !{!"branch_weights", i32 1048576, i32 0, i32 1048576}

; ASM-LABEL: __deegen_jit_op_Get:
; ASM:         jmp __deegen_jit_next
; ASM-NEXT:  .LBB_END
; ASM:         .section .text.split.__deegen_jit_op_Get
; ASM-NEXT:  __deegen_jit_op_Get.cold: # %miss
; ASM:         jmp __deegen_jit_op_Get__slow0

target triple = "x86_64-unknown-linux-gnu"

declare hidden ghccc void @__deegen_jit_next(ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64)

define ghccc void @__deegen_jit_op_Get(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 section ".text.__deegen_jit_op_Get" {
entry:
  %v = load i64, ptr %base
  %is_table = icmp ult i64 %v, %tag1
  br i1 %is_table, label %table, label %slow

table:
  %key = load i64, ptr %pc
  %hit = icmp eq i64 %key, %v
  br i1 %hit, label %done, label %miss, !prof !2

; Only leads to exits: cold itself, its edge in is weighed instead.
miss:
  %again = icmp eq i64 %key, 0
  br i1 %again, label %slow, label %slow_too

slow_too:
  musttail call ghccc void @__deegen_jit_op_Get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %key, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

done:
  %kind = and i64 %key, 3
  switch i64 %kind, label %store [
    i64 1, label %slow
    i64 2, label %store
  ]

store:
  store i64 %key, ptr %base
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

slow:
  musttail call ghccc void @__deegen_jit_op_Get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @__deegen_jit_op_Mov(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 section ".text.__deegen_jit_op_Mov" {
entry:
  %v = load i64, ptr %base
  %c = icmp eq i64 %v, 0
  br i1 %c, label %a, label %b

a:
  store i64 1, ptr %base
  br label %b

b:
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define internal ghccc void @__deegen_jit_op_Get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #1 {
entry:
  %r = call i64 @helper(i64 %v)
  store i64 %r, ptr %base
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define hidden i64 @helper(i64 %v) {
  %c = icmp eq i64 %v, 0
  br i1 %c, label %a, label %b
a:
  ret i64 1
b:
  ret i64 %v
}

attributes #0 = { "deegen-handler"="stencil" "deegen-variant"="0" "frame-pointer"="none" }
attributes #1 = { "deegen-slow-path-of"="__deegen_jit_op_Get" "frame-pointer"="none" }

!2 = !{!"branch_weights", i32 4000, i32 1}
!deegen.phase = !{!1}
!1 = !{!"finalized"}
