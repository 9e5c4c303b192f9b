; Misuses lower-interp-api reports: a marker in a thunk, a bytecode handler without a valid
; variant attribute, return(v) in a bytecode with no output, take_branch() in one that does
; not branch, a marker it does not know, a variant attribute naming no variant, and markers
; declared with the wrong type.
; RUN: not deegen-opt --passes=lower-interp-api %s 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
; NO-OUTPUT: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: return(value) in a bytecode that has no output
; RUN: sed 's/call void @__deegen_api_return(i64 1)/call void @__deegen_api_take_branch()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-BRANCH
; NO-BRANCH: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: take_branch() in a bytecode that does not branch
; RUN: sed 's/call void @__deegen_api_return(i64 1)/call void @__deegen_api_teleport()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; UNKNOWN: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: unknown API marker '__deegen_api_teleport'
; An inline-cache stub's miss in an interpreter handler (interp-ic-quickening leaves it only in
; IC stubs).
; RUN: sed 's/call void @__deegen_api_return(i64 1)/call void @__deegen_api_ic_next()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=IC-NEXT
; IC-NEXT: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: an inline-cache stub's miss outside a baseline JIT stencil
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="x"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=ATTR
; ATTR: deegen-opt: pass 'lower-interp-api': '__deegen_interp_op_Op' has no valid "deegen-variant" attribute
; RUN: sed 's/"deegen-handler"="bytecode"/"deegen-handler"="thunk"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=THUNK
; THUNK: deegen-opt: pass 'lower-interp-api': '__deegen_interp_op_Op' is a thunk function and may not use the API
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="4"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=OPCODE
; OPCODE: deegen-opt: pass 'lower-interp-api': opcode 4 has no variant
; A marker declared with the wrong result type (a dump edited by hand): none, or another type
; than the pinned state it stands for.
; RUN: sed 's/^declare ptr @__deegen_api_context()/declare void @__deegen_api_context()/; s/^  call void @__deegen_api_return(i64 1)/  call void @__deegen_api_context()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-VALUE
; NO-VALUE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: __deegen_api_context must return a value
; RUN: sed 's/^declare ptr @__deegen_api_context()/declare i64 @__deegen_api_context()/; s/^  call void @__deegen_api_return(i64 1)/  %%c = call i64 @__deegen_api_context()/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=VALUE-TYPE
; VALUE-TYPE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Op: __deegen_api_context returns i64, expected ptr

declare void @__deegen_api_return(i64)
declare void @__deegen_api_take_branch()
declare void @__deegen_api_teleport()
declare void @__deegen_api_ic_next()
declare ptr @__deegen_api_context()

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
