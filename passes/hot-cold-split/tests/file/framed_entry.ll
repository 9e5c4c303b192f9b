; A handler whose first block already calls the runtime (Lua's concatenation) has its frame on
; every path: its runtime calls stay where they are, and only what is marked cold leaves (here
; by branch weights, as `cold_path()` leaves them after the optimizer folded the branches into
; a switch): in a baseline JIT stencil that is most of its bytes. Without a cold mark nothing
; moves.
; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s

; CHECK-LABEL: define ghccc void @concat(
; CHECK:         call i64 @rt_concat(
; CHECK:         call void @rt_gc_check(
; CHECK:         musttail call ghccc void @concat__slow0(
; CHECK-NOT:     call i64 @rt_call_handler
; CHECK-LABEL: define ghccc void @unmarked(
; CHECK:         call i64 @rt_call_handler(
; CHECK-NOT:     @unmarked__slow
; CHECK-LABEL: define internal ghccc void @concat__slow0(
; CHECK:         call i64 @rt_call_handler(

target triple = "x86_64-unknown-linux-gnu"

declare i64 @rt_concat(ptr)
declare void @rt_gc_check(ptr)
declare i64 @rt_call_handler(ptr, i64)

define ghccc void @concat(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %r = call i64 @rt_concat(ptr %ctx)
  switch i64 %r, label %value [
    i64 1, label %metamethod
  ], !prof !0

value:
  store i64 %r, ptr %base
  call void @rt_gc_check(ptr %ctx)
  musttail call ghccc void @concat(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

metamethod:
  %h = call i64 @rt_call_handler(ptr %ctx, i64 %r)
  store i64 %h, ptr %base
  musttail call ghccc void @concat(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @unmarked(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %r = call i64 @rt_concat(ptr %ctx)
  %mm = icmp eq i64 %r, 1
  br i1 %mm, label %metamethod, label %value

value:
  store i64 %r, ptr %base
  musttail call ghccc void @unmarked(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

metamethod:
  %h = call i64 @rt_call_handler(ptr %ctx, i64 %r)
  store i64 %h, ptr %base
  musttail call ghccc void @unmarked(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { nounwind "deegen-handler"="bytecode" "frame-pointer"="none" }

!0 = !{!"branch_weights", i32 4000, i32 1}
!deegen.phase = !{!1}
!1 = !{!"finalized"}
