; A stack slot only the slow path uses, whose `lifetime.start` LLVM hoisted into the entry
; (above the branch into the slow path, as it does for Lua's `#` when the slot's initialisation
; is shared by several paths): the marker is the fast path's only use, so the slot still moves
; to the slow path, the marker goes, and the fast path keeps no stack slot. A slot the fast
; path really uses (a store besides the marker) still keeps its slow path in place.
; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s

; CHECK-LABEL: define ghccc void @hoisted(
; CHECK-NOT:    alloca
; CHECK-NOT:    llvm.lifetime
; CHECK:        musttail call ghccc void @hoisted__slow0(
; CHECK-LABEL: define ghccc void @used(
; CHECK:        alloca
; CHECK-NOT:    @used__slow
; CHECK-LABEL: define internal ghccc void @hoisted__slow0(
; CHECK:        %out = alloca i64
; CHECK:        call void @rt_out(ptr %0, ptr %out)
; CHECK:        call void @llvm.lifetime.end.p0(ptr %out)

target triple = "x86_64-unknown-linux-gnu"

declare void @rt_out(ptr, ptr)
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)

define ghccc void @hoisted(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %out = alloca i64
  %x = load i64, ptr %base
  call void @llvm.lifetime.start.p0(ptr %out)
  %isnum = icmp ult i64 %x, %tag1
  br i1 %isnum, label %done, label %slow

slow:
  store i64 0, ptr %out
  call void @rt_out(ptr %ctx, ptr %out)
  %o = load i64, ptr %out
  store i64 %o, ptr %base
  call void @llvm.lifetime.end.p0(ptr %out)
  br label %done

done:
  musttail call ghccc void @hoisted(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @used(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %out = alloca i64
  %x = load i64, ptr %base
  call void @llvm.lifetime.start.p0(ptr %out)
  store i64 %x, ptr %out
  %isnum = icmp ult i64 %x, %tag1
  br i1 %isnum, label %done, label %slow

slow:
  call void @rt_out(ptr %ctx, ptr %out)
  br label %done

done:
  musttail call ghccc void @used(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { nounwind "deegen-handler"="bytecode" "frame-pointer"="none" }

!deegen.phase = !{!0}
!0 = !{!"finalized"}
