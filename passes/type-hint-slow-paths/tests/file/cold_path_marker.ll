; A slow path the semantics state with `deegen_api::cold_path()`: every edge into the
; marker's block is marked cold, also through a block that only passes control on, and the
; marker's call is gone. A branch that may still reach the fast path (%hit's false edge goes to
; another check) is not marked. Each marked edge also gets branch weights (1 against 4000),
; which survive the optimizer folding the branch into a `switch` where `!deegen.cold_edge` does
; not. No type lattice is needed for it. In a baseline JIT stencil the call also stays, as
; hot-cold-split's split directive: the optimizer may thread a branch past the marked edges
; (GetMethod's method-cache miss went past its key filter into the shape probe, in line).
; RUN: deegen-opt --passes=type-hint-slow-paths %s | FileCheck %s

; CHECK-LABEL: define void @ic_miss(
; CHECK: br i1 %hit, label %effect, label %check_valid{{$}}
; CHECK: br i1 %valid, label %effect, label %miss, !prof ![[SECOND_W:[0-9]+]], !deegen.cold_edge ![[SECOND:[0-9]+]]
; CHECK: br i1 %other, label %forward, label %done, !prof ![[FIRST_W:[0-9]+]], !deegen.cold_edge ![[FIRST:[0-9]+]]
; CHECK-LABEL: define void @metamethod_continuation(
; CHECK-NEXT: entry:
; CHECK-NEXT:   load i64
; CHECK-NEXT:   call void @__deegen_split_cold()
; CHECK-NOT: __deegen_api_cold_path
; CHECK-LABEL: define void @stencil_ic_miss(
; CHECK: br i1 %valid, label %effect, label %miss, !prof ![[SECOND_W]], !deegen.cold_edge ![[SECOND]]
; CHECK: miss:
; CHECK-NEXT: call void @__deegen_split_cold()
; CHECK-NOT: __deegen_api_cold_path
; CHECK-DAG: ![[SECOND]] = !{i32 1}
; CHECK-DAG: ![[FIRST]] = !{i32 0}
; CHECK-DAG: ![[SECOND_W]] = !{!"branch_weights", i32 4000, i32 1}
; CHECK-DAG: ![[FIRST_W]] = !{!"branch_weights", i32 1, i32 4000}
target triple = "x86_64-unknown-linux-gnu"

declare void @__deegen_api_cold_path()
declare void @body(ptr)

define void @ic_miss(ptr %p, i32 %key, i32 %cached, i1 %other) {
entry:
  %hit = icmp eq i32 %key, %cached
  br i1 %hit, label %effect, label %check_valid

check_valid:
  %valid = icmp ne i32 %cached, 0
  br i1 %valid, label %effect, label %miss

effect:
  br i1 %other, label %forward, label %done

forward:
  br label %miss

miss:
  call void @__deegen_api_cold_path()
  call void @body(ptr %p)
  br label %done

done:
  ret void
}

; No branch leads to the marker: the rest of the function is a slow path, which
; hot-cold-split splits off after the optimizer (the marker becomes its directive).
define void @metamethod_continuation(ptr %p) {
entry:
  %v = load i64, ptr %p
  call void @__deegen_api_cold_path()
  call void @body(ptr %p)
  ret void
}

define void @stencil_ic_miss(ptr %p, i32 %key, i32 %cached) #0 {
entry:
  %hit = icmp eq i32 %key, %cached
  br i1 %hit, label %effect, label %check_valid

check_valid:
  %valid = icmp ne i32 %cached, 0
  br i1 %valid, label %effect, label %miss

effect:
  ret void

miss:
  call void @__deegen_api_cold_path()
  call void @body(ptr %p)
  ret void
}

attributes #0 = { "deegen-handler"="stencil" }

!deegen.phase = !{!0}
!0 = !{!"handlers"}
