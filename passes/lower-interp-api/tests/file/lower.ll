; The API markers become interpreter code: return(v) stores to the output slot (decoded at
; offset 6) and dispatches to pc + 8 through the dispatch table with musttail; context() is
; the ctx parameter; throw tail-calls the throw handler; take_branch() reads the branch
; offset. The module moves to phase `lowered`.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,type-check-strength-reduction,lower-interp-api \
; RUN:   %S/../../../registry/tests/fixtures/add_and_branch.ll | FileCheck %s

; The semantic functions keep their markers until interp-finalize deletes them; the handlers
; have none left.
; CHECK-LABEL: define ghccc void @__deegen_interp_op_Add_SS(ptr %0, ptr %1, ptr %2, ptr %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9)
; CHECK-NOT:    @__deegen_api_
; CHECK:        %s.i = fadd double
; CHECK:        %output.addr = getelementptr i8, ptr %2, i64 6
; CHECK:        %output.slot = getelementptr i64, ptr %1, i64 %output
; CHECK-NEXT:   store i64 %r.i, ptr %output.slot
; CHECK-NEXT:   %next.pc = getelementptr i8, ptr %2, i64 8
; CHECK:        %next.handler.addr = getelementptr i64, ptr @__deegen_interp_dispatch_table, i64 %next.opcode
; CHECK:        musttail call ghccc void %next.handler(ptr %0, ptr %1, ptr %next.pc, ptr %3, i64 %4,
; CHECK-NEXT:   ret void
; CHECK:      slow.i:
; CHECK-NEXT:   %e.i = call i64 @rt_arith_error(ptr %0, i64 %lhs.value, i64 %rhs.value)
; CHECK-NEXT:   musttail call ghccc void @__deegen_interp_throw(ptr %0, ptr %1, ptr %2, ptr %3, i64 %4, i64 %e.i, i64 1,
; CHECK-NOT:    @__deegen_api_
; CHECK-LABEL: define ghccc void @__deegen_interp_op_JumpIfLt_SS(
; CHECK-NOT:    @__deegen_api_
; CHECK:        getelementptr i8, ptr %2, i64 6
; CHECK:        musttail call ghccc void
; CHECK-NOT:    @__deegen_api_
; CHECK-LABEL: define ghccc void @__deegen_interp_throw(
; CHECK: !deegen.phase = !{![[H:[0-9]+]], ![[L:[0-9]+]]}
; CHECK-DAG: ![[H]] = !{!"handlers"}
; CHECK-DAG: ![[L]] = !{!"lowered"}
