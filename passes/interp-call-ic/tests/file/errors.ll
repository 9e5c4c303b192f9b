; A handler without a valid variant attribute, a variant attribute naming no variant, a call
; marker not followed by `unreachable`, a missing or mistyped code-block hook, and a malformed
; list of call caches.
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="zero"/' %s | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=ATTR
; ATTR: deegen-opt: pass 'interp-call-ic': '__deegen_interp_op_Call' has no valid "deegen-variant" attribute
; RUN: sed 's/"deegen-variant"="0"/"deegen-variant"="7"/' %s | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=OPCODE
; OPCODE: deegen-opt: pass 'interp-call-ic': opcode 7 has no variant
; RUN: not deegen-opt --passes=interp-call-ic %s 2>&1 | FileCheck %s --check-prefix=MARKER
; MARKER: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: a call marker must be followed by unreachable
; The language hook a miss asks for the callee's code block: missing, or returning nothing.
; RUN: sed 's/^  ret void$/  unreachable/; s/^define ptr @deegen_hook_code_block(i64 %%callee) {/define ptr @not_the_hook(i64 %%callee) {/' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=NO-HOOK
; NO-HOOK: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: the semantics do not define deegen_hook_code_block
; RUN: sed 's/^  ret void$/  unreachable/; s/^define ptr @deegen_hook_code_block(i64 %%callee) {/define void @deegen_hook_code_block(i64 %%callee) {/; s/^  ret ptr null$/  ret void/' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=HOOK-TYPE
; HOOK-TYPE: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: deegen_hook_code_block must return a pointer
; A call-cache list naming something that is not an opcode.
; RUN: sed 's/^  ret void$/  unreachable/; s/^; call caches: //' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=CALL-ICS
; CALL-ICS: deegen-opt: pass 'interp-call-ic': !deegen.call_ics: 'first' is not an opcode

; A hook returning an integer, a frame that is not a pointer, and a marker declared with an
; argument too few (each used to panic the pass or read the callee as the missing argument).
; RUN: sed 's/^  ret void$/  unreachable/; s/^define ptr @deegen_hook_code_block(i64 %%callee) {/define i64 @deegen_hook_code_block(i64 %%callee) {/; s/^  ret ptr null$/  ret i64 0/' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=HOOK-INT
; HOOK-INT: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: deegen_hook_code_block must return a pointer
; RUN: sed 's/^  ret void$/  unreachable/; s/(ptr %%base, i64 1)/(i64 0, i64 1)/; s/make_tail_call(ptr, i64)/make_tail_call(i64, i64)/' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=FRAME-TYPE
; FRAME-TYPE: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: marker call argument 0 must be a pointer, not i64
; RUN: sed 's/^  ret void$/  unreachable/; s/(ptr %%base, i64 1)/(ptr %%base)/; s/make_tail_call(ptr, i64)/make_tail_call(ptr)/' %s \
; RUN:   | not deegen-opt --passes=interp-call-ic - 2>&1 | FileCheck %s --check-prefix=TOO-FEW
; TOO-FEW: deegen-opt: pass 'interp-call-ic': __deegen_interp_op_Call: marker call lacks argument 1 (it has 1)

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
; call caches: !deegen.call_ics = !{!2}
; call caches: !2 = !{!"first"}
