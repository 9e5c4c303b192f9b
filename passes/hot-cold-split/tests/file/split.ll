; Each slow path (what calls the runtime, or what a type hint marked cold) leaves its handler
; for a GHC function the handler tail-calls, its live values passed in the scratch argument
; slots (and the context's spill area); the kept cases (a stack slot shared with the fast path,
; more live values than slots, a runtime call on every path) stay, and a loop back into the
; entry through slow-path blocks only moves whole. Input: the pass's fixture.
; RUN: deegen-opt --passes=hot-cold-split %S/../fixtures/handlers.ll | FileCheck %s

; CHECK-LABEL: define ghccc void @rejoin(
; CHECK:        musttail call ghccc void @rejoin__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %x, i64 poison, i64 poison, i64 %tag2)
; CHECK-NOT:    call i64 @rt_slow
; CHECK-LABEL: define ghccc void @shared_alloca(
; CHECK-NOT:    @shared_alloca__slow
; CHECK-LABEL: define ghccc void @too_many(
; CHECK-NOT:    @too_many__slow
; CHECK-LABEL: define ghccc void @slow_loop(
; CHECK:        musttail call ghccc void @slow_loop__slow0(
; CHECK-LABEL: define internal ghccc void @rejoin__slow0(
; CHECK-SAME:   ptr %0, ptr %1, ptr %2, ptr %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9) #[[SLOW:[0-9]+]]
; CHECK:        %r = call i64 @rt_slow(ptr %0, i64 %6, i64 %5)
; CHECK: attributes #[[SLOW]] = { nounwind "deegen-slow-path-of"="rejoin" "frame-pointer"="none" }
