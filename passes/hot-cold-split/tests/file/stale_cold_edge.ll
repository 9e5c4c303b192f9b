; `!deegen.cold_edge` names a successor by its index; LLVM keeps it unchanged when it folds the
; branch with another or swaps its successors, and updates only `!prof`. A named edge counts
; only while the branch's weights still make it the clearly less likely one: in `byte`
; (SimplifyCFG folded an argument-count check, whose cold edge was successor 0, with a
; string's tag check, whose successors were the other way round) the index names the fast
; path, which stays in the handler; the call into the runtime is still a slow path. In `agree`
; the weights confirm the index, and the cold edge leaves the handler although it calls
; nothing; in `unweighted` (a type hint's mark: no weights) the index alone decides.
; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s

; CHECK-LABEL: define ghccc void @byte(
; CHECK:         br i1 %ok, label %fast, label %{{.*}}
; CHECK:       fast:
; CHECK-NEXT:    %y = add i64 %x, 1
; CHECK:         musttail call ghccc void @byte__slow0(
; CHECK-LABEL: define ghccc void @agree(
; CHECK-NOT:     %z = add
; CHECK:         musttail call ghccc void @agree__slow0(
; CHECK-LABEL: define ghccc void @unweighted(
; CHECK-NOT:     %z = add
; CHECK:         musttail call ghccc void @unweighted__slow0(
; CHECK-LABEL: define internal ghccc void @byte__slow0(
; CHECK:         call i64 @twin(
; CHECK-NOT:     %y = add
; CHECK-LABEL: define internal ghccc void @agree__slow0(
; CHECK:         %z = add i64 %{{.*}}, 2
; CHECK-LABEL: define internal ghccc void @unweighted__slow0(
; CHECK:         %z = add i64 %{{.*}}, 2

declare i64 @twin(ptr, i64)

define ghccc void @byte(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %x = load i64, ptr %base
  %ok = icmp ugt i64 %x, %tag2
  br i1 %ok, label %fast, label %slow, !prof !1, !deegen.cold_edge !0

fast:
  %y = add i64 %x, 1
  store i64 %y, ptr %base
  br label %done

slow:
  %r = call i64 @twin(ptr %ctx, i64 %x)
  store i64 %r, ptr %base
  br label %done

done:
  %h = load ptr, ptr %pc
  musttail call ghccc void %h(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @agree(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %x = load i64, ptr %base
  %ok = icmp ugt i64 %x, %tag2
  br i1 %ok, label %cold, label %fast, !prof !2, !deegen.cold_edge !0

fast:
  %y = add i64 %x, 1
  store i64 %y, ptr %base
  br label %done

cold:
  %z = add i64 %x, 2
  store i64 %z, ptr %base
  br label %done

done:
  %h = load ptr, ptr %pc
  musttail call ghccc void %h(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

define ghccc void @unweighted(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) #0 {
entry:
  %x = load i64, ptr %base
  %ok = icmp ugt i64 %x, %tag2
  br i1 %ok, label %cold, label %fast, !deegen.cold_edge !0

fast:
  %y = add i64 %x, 1
  store i64 %y, ptr %base
  br label %done

cold:
  %z = add i64 %x, 2
  store i64 %z, ptr %base
  br label %done

done:
  %h = load ptr, ptr %pc
  musttail call ghccc void %h(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 poison, i64 poison, i64 poison, i64 poison, i64 %tag2)
  ret void
}

attributes #0 = { nounwind }

!0 = !{i32 0}
!1 = !{!"branch_weights", i32 4000, i32 4002}
!2 = !{!"branch_weights", i32 1, i32 4000}
!deegen.phase = !{!3}
!3 = !{!"finalized"}
