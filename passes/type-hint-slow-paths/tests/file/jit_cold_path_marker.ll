; A slow path stated for JIT code only (`deegen_api::jit_cold_path()`): in a baseline JIT
; stencil it is a slow path like `cold_path()` (the edge into it marked cold and weighted), and
; its call stays as hot-cold-split's directive to split there after the optimizer (which may
; thread another edge past the marked one); in an interpreter handler the marker is erased and
; nothing is marked, so the handler keeps the path in line.
; RUN: deegen-opt --passes=type-hint-slow-paths %s | FileCheck %s

; CHECK-LABEL: define void @stencil(
; CHECK: br i1 %array_hit, label %done, label %hash, !prof ![[W:[0-9]+]], !deegen.cold_edge ![[E:[0-9]+]]
; CHECK: hash:
; CHECK-NEXT: call void @__deegen_split_cold()
; CHECK-NOT: __deegen_api_jit_cold_path
; CHECK-LABEL: define void @handler(
; CHECK: br i1 %array_hit, label %done, label %hash{{$}}
; CHECK-NOT: __deegen_split_cold
; CHECK-NOT: __deegen_api_jit_cold_path
; CHECK-LABEL: define void @no_kind(
; CHECK: br i1 %array_hit, label %done, label %hash{{$}}
; CHECK-NOT: __deegen_api_jit_cold_path
; CHECK-DAG: ![[E]] = !{i32 1}
; CHECK-DAG: ![[W]] = !{!"branch_weights", i32 4000, i32 1}
target triple = "x86_64-unknown-linux-gnu"

declare void @__deegen_api_jit_cold_path()
declare void @probe(ptr)

define void @stencil(ptr %p, i1 %array_hit) #0 {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_jit_cold_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

define void @handler(ptr %p, i1 %array_hit) #1 {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_jit_cold_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

; A function that is neither (a helper): the interpreter's reading.
define void @no_kind(ptr %p, i1 %array_hit) {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_jit_cold_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

attributes #0 = { "deegen-handler"="stencil" }
attributes #1 = { "deegen-handler"="bytecode" }

!deegen.phase = !{!0}
!0 = !{!"handlers"}
