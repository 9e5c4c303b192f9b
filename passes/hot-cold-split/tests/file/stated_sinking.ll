; What a stated slow path (a `__deegen_split_cold` directive) alone uses moves into it: the
; slow path computes it instead of the fast path computing and passing it (a return
; continuation's restore of its caller's frame). A load does not move past a store; a value
; the fast path also uses stays and is passed.
; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s

; CHECK-LABEL: define ghccc void @restore(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    br label %slow0
; CHECK:         musttail call ghccc void @restore__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison,
; CHECK-LABEL: define ghccc void @behind_a_store(
; CHECK:         %early = load i64, ptr %base
; CHECK-NEXT:    store i64 0, ptr %base
; CHECK-NOT:     load
; CHECK:         musttail call ghccc void @behind_a_store__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %early,
; CHECK-LABEL: define ghccc void @shared_with_fast_path(
; CHECK:         %flag = load i64, ptr %base
; CHECK:         musttail call ghccc void @shared_with_fast_path__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %flag,
; CHECK-LABEL: define internal ghccc void @restore__slow0(
; CHECK:         %caller.slot = getelementptr i8, ptr %1, i64 -32
; CHECK-NEXT:    %caller = load i64, ptr %caller.slot
; CHECK-NEXT:    %caller.bits = and i64 %caller, 281474976710655
; CHECK-NEXT:    %caller.base = inttoptr i64 %caller.bits to ptr
; CHECK-NEXT:    %v = load i64, ptr %caller.base

declare void @__deegen_split_cold()
declare void @next(ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64)

; Every computation before the directive is only used after it: all of it moves.
define ghccc void @restore(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %caller.slot = getelementptr i8, ptr %base, i64 -32
  %caller = load i64, ptr %caller.slot
  %caller.bits = and i64 %caller, 281474976710655
  %caller.base = inttoptr i64 %caller.bits to ptr
  call void @__deegen_split_cold()
  %v = load i64, ptr %caller.base
  %p1 = getelementptr i64, ptr %caller.base, i64 1
  store i64 %v, ptr %p1
  musttail call ghccc void @next(ptr %ctx, ptr %caller.base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

; The load before the store stays (and is passed); nothing after the store is left to move.
define ghccc void @behind_a_store(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %early = load i64, ptr %base
  store i64 0, ptr %base
  call void @__deegen_split_cold()
  %p1 = getelementptr i64, ptr %base, i64 1
  store i64 %early, ptr %p1
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

; %flag decides the fast path's branch too: it stays.
define ghccc void @shared_with_fast_path(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %flag = load i64, ptr %base
  %zero = icmp eq i64 %flag, 0
  br i1 %zero, label %fast, label %slow

fast:
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

slow:
  call void @__deegen_split_cold()
  %p1 = getelementptr i64, ptr %base, i64 1
  store i64 %flag, ptr %p1
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { nounwind }

!deegen.phase = !{!0}
!0 = !{!"finalized"}
