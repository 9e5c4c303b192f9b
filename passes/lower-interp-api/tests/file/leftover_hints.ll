; Slow-path statements that `type-hint-slow-paths` did not act on (it is an optimisation,
; which --opt-bisect-limit may skip) are hints, not code: lower-interp-api erases both kinds
; and lowers the rest of the handler as usual.
; RUN: deegen-opt --passes=lower-interp-api %s | FileCheck %s
; CHECK-LABEL: define ghccc void @__deegen_interp_op_Op(
; CHECK-NOT:     @__deegen_api_
; CHECK:         %next.pc = getelementptr i8, ptr %pc, i64 2
; CHECK:         musttail call ghccc void
; CHECK-NOT:     @__deegen_api_

@__deegen_interp_dispatch_table = internal constant [1 x ptr] [ptr @__deegen_interp_op_Op]

declare void @__deegen_api_cold_path()
declare void @__deegen_api_jit_cold_path()
declare void @__deegen_api_fallthrough()

define ghccc void @__deegen_interp_op_Op(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  call void @__deegen_api_cold_path()
  call void @__deegen_api_jit_cold_path()
  call void @__deegen_api_fallthrough()
  unreachable
}

attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Op bytecode=Op semantics=op result=none length=2"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
