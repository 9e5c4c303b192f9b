; A live value the slow path can compute from the handler's arguments (a constant's load from
; the constant table, `!invariant.load`, at an offset that is a runtime constant) is computed
; again there instead of passed: the fast path no longer loads it, nor keeps it in a register.
; A load of memory that may change is passed, as before, and so is a value the fast path uses
; anyway when it cannot be recomputed. In an interpreter handler the constant's index is an
; operand of the bytecode (`!invariant.load` too): the whole decoding moves.
; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s

; CHECK-LABEL: define ghccc void @get(
; CHECK-NOT:     %name =
; CHECK:         %slot = load i64, ptr %base
; CHECK:         musttail call ghccc void @get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %slot, i64 poison,
; CHECK-LABEL: define ghccc void @interp_get(
; CHECK-NOT:     %name
; CHECK:         musttail call ghccc void @interp_get__slow0(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %slot, i64 poison,
; CHECK-LABEL: define internal ghccc void @get__slow0(
; CHECK:         %name.addr = getelementptr i8, ptr %3, i64 sub (i64 ptrtoint (ptr @__deegen_rc_name to i64), i64 2147483648)
; CHECK-NEXT:    %name = load i64, ptr %name.addr, align 8, !invariant.load
; CHECK:         call void @miss(i64 %name, i64
; CHECK-LABEL: define internal ghccc void @interp_get__slow0(
; CHECK:         %index.addr = getelementptr i8, ptr %2, i64 2
; CHECK-NEXT:    %index.raw = load i16, ptr %index.addr, align 1, !invariant.load
; CHECK-NEXT:    %index = zext i16 %index.raw to i64
; CHECK-NEXT:    %neg = sub i64 -1, %index
; CHECK-NEXT:    %name.addr = getelementptr i64, ptr %3, i64 %neg
; CHECK-NEXT:    %name = load i64, ptr %name.addr, align 8, !invariant.load
; CHECK:         call void @miss(i64 %name, i64

declare void @miss(i64, i64)
declare void @next(ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64)

@__deegen_rc_name = external hidden global [0 x i8]

define ghccc void @get(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %name.addr = getelementptr i8, ptr %cb, i64 sub (i64 ptrtoint (ptr @__deegen_rc_name to i64), i64 2147483648)
  %name = load i64, ptr %name.addr, align 8, !invariant.load !0
  %slot = load i64, ptr %base
  %hit = icmp eq i64 %slot, 7
  br i1 %hit, label %done, label %slow

done:
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

slow:
  call void @miss(i64 %name, i64 %slot)
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @interp_get(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %index.addr = getelementptr i8, ptr %pc, i64 2
  %index.raw = load i16, ptr %index.addr, align 1, !invariant.load !0
  %index = zext i16 %index.raw to i64
  %neg = sub i64 -1, %index
  %name.addr = getelementptr i64, ptr %cb, i64 %neg
  %name = load i64, ptr %name.addr, align 8, !invariant.load !0
  %slot = load i64, ptr %base
  %hit = icmp eq i64 %slot, 7
  br i1 %hit, label %done, label %slow

done:
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void

slow:
  call void @miss(i64 %name, i64 %slot)
  musttail call ghccc void @next(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { nounwind }

!0 = !{}
!deegen.phase = !{!1}
!1 = !{!"finalized"}
