; An uncommon path (`deegen_api::uncommon_path()`) is not a slow path: no edge is marked cold.
; In a baseline JIT stencil its call becomes `baseline-cold-split`'s directive, declared
; `nounwind willreturn` so the optimizer keeps it in place without treating it as an unwinding
; call; in an interpreter handler, and in a function of no kind, it is erased, and the edge
; into it gets the uncommon branch weights (1:64, far from hot-cold-split's 1/1000), so that
; llc lays it out after the common path.
; RUN: deegen-opt --passes=type-hint-slow-paths %s | FileCheck %s

; CHECK-LABEL: define void @stencil(
; CHECK: br i1 %array_hit, label %done, label %hash{{$}}
; CHECK: hash:
; CHECK-NEXT: call void @__deegen_uncommon_path()
; CHECK-NEXT: call void @probe(ptr %p)
; CHECK-LABEL: define void @handler(
; CHECK: br i1 %array_hit, label %done, label %hash, !prof ![[UNCOMMON:[0-9]+]]
; CHECK: hash:
; CHECK-NEXT: call void @probe(ptr %p)
; CHECK-LABEL: define void @no_kind(
; CHECK: br i1 %array_hit, label %done, label %hash, !prof ![[UNCOMMON]]
; CHECK: hash:
; CHECK-NEXT: call void @probe(ptr %p)
; CHECK: declare void @__deegen_uncommon_path() #[[ATTRS:[0-9]+]]
; CHECK: attributes #[[ATTRS]] = { nounwind willreturn }
; CHECK-NOT: call void @__deegen_api_uncommon_path
; CHECK: ![[UNCOMMON]] = !{!"branch_weights", i32 64, i32 1}
target triple = "x86_64-unknown-linux-gnu"

declare void @__deegen_api_uncommon_path()
declare void @probe(ptr)

define void @stencil(ptr %p, i1 %array_hit) #0 {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_uncommon_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

define void @handler(ptr %p, i1 %array_hit) #1 {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_uncommon_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

define void @no_kind(ptr %p, i1 %array_hit) {
entry:
  br i1 %array_hit, label %done, label %hash

hash:
  call void @__deegen_api_uncommon_path()
  call void @probe(ptr %p)
  br label %done

done:
  ret void
}

attributes #0 = { "deegen-handler"="stencil" }
attributes #1 = { "deegen-handler"="bytecode" }

!deegen.phase = !{!0}
!0 = !{!"handlers"}
