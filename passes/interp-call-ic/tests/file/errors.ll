; A handler without a valid variant attribute, a variant attribute naming no variant, and a
; call marker not followed by `unreachable`.
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="zero"/' %s | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=ATTR
; ATTR: deegen-opt: pass 'interp-call-ic': '__deegen_interp_op_Call' has no valid "deegen-variant" attribute
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="7"/' %s | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=OPCODE
; OPCODE: deegen-opt: pass 'interp-call-ic': opcode 7 has no variant
; RUN: not deegen-opt --passes=interp-call-ic %s 2>&1 | FileCheck %s --check-prefix=MARKER
; MARKER: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: a call marker must be followed by unreachable

declare void @__deegen_api_make_tail_call(ptr, i64) #0

define ptr @deegen_hook_code_block(i64 %callee) {
  ret ptr null
}

define ghccc void @__deegen_interp_op_Call(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  call void @__deegen_api_make_tail_call(ptr %base, i64 1) #0
  ret void
}

attributes #0 = { noreturn nounwind }
attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=2"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
