; Misuses lower-interp-api reports: a marker in a thunk, a bytecode handler without a valid
; variant attribute, return(v) in a bytecode with no output, take_branch() in one that does
; not branch, and a marker it does not know.
; RUN: not deegen-opt --passes=lower-interp-api %s 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
; NO-OUTPUT: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: return(value) in a bytecode that has no output
; RUN: sed 's/call void @__deegen_api_return(i64 1)/call void @__deegen_api_take_branch()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-BRANCH
; NO-BRANCH: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: take_branch() in a bytecode that does not branch
; RUN: sed 's/call void @__deegen_api_return(i64 1)/call void @__deegen_api_teleport()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; UNKNOWN: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: unknown API marker '__deegen_api_teleport'
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="x"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=ATTR
; ATTR: deegen-opt: pass 'lower-interp-api': '__deegen_interp_op_Op' has no valid "deegen-variant" attribute
; RUN: sed 's/"deegen-handler"="bytecode"/"deegen-handler"="thunk"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=THUNK
; THUNK: deegen-opt: pass 'lower-interp-api': '__deegen_interp_op_Op' is a thunk function and may not use the API

declare void @__deegen_api_return(i64)
declare void @__deegen_api_take_branch()
declare void @__deegen_api_teleport()

define ghccc void @__deegen_interp_op_Op(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  call void @__deegen_api_return(i64 1)
  unreachable
}

attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Op bytecode=Op semantics=op result=none length=2"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
