; A slow path whose region reached the fast path's tail call of another slow path of the same
; stencil (hot-cold-split copies blocks the paths share: GetMethod's chain walk ends where the
; metatable probe's slow path begins) passes the record's address on in the pc slot: the same
; record, its layout the union of both slow paths' fields. Passing it in any other slot is
; still an error.
; RUN: deegen-opt --passes=baseline-aot-slow-paths %s | FileCheck %s
; RUN: sed '/musttail/s/@__deegen_jit_op_Walk__slow1(ptr %%ctx, ptr %%base, ptr %%pc, ptr %%cb/@__deegen_jit_op_Walk__slow1(ptr %%ctx, ptr %%base, ptr %%pc, ptr %%pc/' %s \
; RUN:   | not deegen-opt --passes=baseline-aot-slow-paths - 2>&1 | FileCheck %s --check-prefix=ERR

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Walk(
; CHECK:         musttail call ghccc void @__deegen_jit_op_Walk__slow0(ptr %ctx, ptr %base, ptr %spd,
; CHECK-LABEL: define hidden ghccc void @__deegen_jit_op_Walk__slow0(
; CHECK:         musttail call ghccc void @__deegen_jit_op_Walk__slow1(ptr %ctx, ptr %base, ptr %pc,
; CHECK-LABEL: define hidden ghccc void @__deegen_jit_op_Walk__slow1(
; CHECK:         %spd.__deegen_rc_output = load i64
; CHECK: "deegen-slow-path-data"="__deegen_jit_next,__deegen_rc_output"

; ERR: deegen-opt: pass 'baseline-aot-slow-paths': __deegen_jit_op_Walk__slow0: reads the pc argument slot

target triple = "x86_64-unknown-linux-gnu"

@__deegen_rc_output = external hidden global [0 x i8], !absolute_symbol !0

declare hidden i64 @rt_slow(ptr, i64) nounwind
declare hidden ghccc void @__deegen_jit_next(ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64)

define ghccc void @__deegen_jit_op_Walk(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 section ".text.__deegen_jit_op_Walk" {
entry:
  %v = load i64, ptr %base
  %fast = icmp ult i64 %v, %tag1
  br i1 %fast, label %done, label %slow

done:
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

slow:
  musttail call ghccc void @__deegen_jit_op_Walk__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

; The first slow path goes on to the second.
define internal ghccc void @__deegen_jit_op_Walk__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #1 {
entry:
  %r = call i64 @rt_slow(ptr %ctx, i64 %v)
  %again = icmp eq i64 %r, 0
  br i1 %again, label %next, label %on

next:
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

on:
  musttail call ghccc void @__deegen_jit_op_Walk__slow1(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

; The second writes the output slot.
define internal ghccc void @__deegen_jit_op_Walk__slow1(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %v, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #2 {
entry:
  %out = getelementptr i8, ptr %base, i64 ptrtoint (ptr @__deegen_rc_output to i64)
  store i64 %v, ptr %out
  musttail call ghccc void @__deegen_jit_next(ptr %ctx, ptr %base, ptr poison, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { "deegen-handler"="stencil" "deegen-variant"="0" "frame-pointer"="none" }
attributes #1 = { "deegen-slow-path-of"="__deegen_jit_op_Walk" "frame-pointer"="none" }
attributes #2 = { "deegen-slow-path-of"="__deegen_jit_op_Walk" "frame-pointer"="none" }

!0 = !{i64 0, i64 524288}
!deegen.phase = !{!1}
!1 = !{!"finalized"}
