; The errors about signatures and variant lines, on the smallest semantics module the pass
; accepts (one bytecode, the four hooks written one per line so sed can swap them).
; RUN: deegen-opt --passes=interp-create-handlers %s | FileCheck %s --check-prefix=VALID
; VALID: define ghccc void @__deegen_interp_op_Nop(

; A semantic function with more parameters than the bytecode has operands.
; RUN: sed 's/^define void @nop(i64 %%x)/define void @nop(i64 %%x, i64 %%y)/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=COUNT
; COUNT: deegen-opt: pass 'interp-create-handlers': variant Nop: 'nop' takes 2 parameters but the bytecode has 1 operands

; A slot operand is passed by value (an i64), a slotref operand by address (a pointer).
; RUN: sed 's/^define void @nop(i64 %%x)/define void @nop(ptr %%x)/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=INT
; INT: deegen-opt: pass 'interp-create-handlers': variant Nop: parameter for operand 'x' of 'nop' must be a 64-bit integer
; RUN: sed 's/ x:slot@2:2/ x:slotref@2:2/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=PTR
; PTR: deegen-opt: pass 'interp-create-handlers': variant Nop: parameter for operand 'x' of 'nop' must be a pointer

; Hooks that return nothing, or the wrong kind of value.
; RUN: sed 's/^define ptr @deegen_hook_code_block.*/define i64 @deegen_hook_code_block(i64 %%callee) { ret i64 %%callee }/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=CODE-BLOCK
; CODE-BLOCK: deegen-opt: pass 'interp-create-handlers': 'deegen_hook_code_block' must return a pointer
; RUN: sed 's/^define i64 @deegen_hook_nil.*/define void @deegen_hook_nil() { ret void }/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=NIL
; NIL: deegen-opt: pass 'interp-create-handlers': nil hook returns a value
; RUN: sed 's/^define i64 @deegen_hook_stack_overflow.*/define void @deegen_hook_stack_overflow(ptr %%ctx, ptr %%base) { ret void }/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=OVERFLOW
; OVERFLOW: deegen-opt: pass 'interp-create-handlers': stack overflow hook returns a value
; RUN: sed 's/^define i64 @deegen_hook_stack_overflow.*/define i64 @deegen_hook_stack_overflow(ptr %%ctx) { ret i64 0 }/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=OVERFLOW-PARAMS
; OVERFLOW-PARAMS: deegen-opt: pass 'interp-create-handlers': 'deegen_hook_stack_overflow' must take the context and the base of the frame that does not fit (two pointers)
; The optional instruction hook (the debugger's) returns a status.
; RUN: sed 's/^; instruction hook: //' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=INSTRUCTION
; INSTRUCTION: deegen-opt: pass 'interp-create-handlers': the instruction hook returns a value
; A hook that is only declared is missing too.
; RUN: sed 's/^define void @deegen_hook_on_throw.*/declare void @deegen_hook_on_throw(ptr, ptr, ptr, i64, i64)/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=DECLARED
; DECLARED: deegen-opt: pass 'interp-create-handlers': the semantics do not define the hook 'deegen_hook_on_throw'

; Variant lines that do not parse, opcodes out of order, a call cache for an opcode with no
; variant.
; RUN: sed 's/ result=none / result=maybe /' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=LINE
; LINE: deegen-opt: pass 'interp-create-handlers': malformed variant line 'opcode=0 name=Nop bytecode=Nop semantics=nop result=maybe length=4 x:slot@2:2': result is none, value or branch
; RUN: sed 's/opcode=0 name=Nop/opcode=1 name=Nop/' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=DENSE
; DENSE: deegen-opt: pass 'interp-create-handlers': variant 'Nop' has opcode 1 at position 0: opcodes must be dense and ordered
; RUN: sed 's/^; call caches: //' %s \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=CALL-ICS
; CALL-ICS: deegen-opt: pass 'interp-create-handlers': !deegen.call_ics names opcode 3, which has no variant

declare void @__deegen_api_fallthrough()

define void @nop(i64 %x) {
  call void @__deegen_api_fallthrough()
  unreachable
}

define ptr @deegen_hook_code_block(i64 %callee) { %p = inttoptr i64 %callee to ptr  ret ptr %p }
define i64 @deegen_hook_nil() { ret i64 0 }
define i64 @deegen_hook_stack_overflow(ptr %ctx, ptr %base) { ret i64 0 }
define void @deegen_hook_on_throw(ptr %ctx, ptr %base, ptr %pc, i64 %v, i64 %pos) { ret void }
; instruction hook: define void @deegen_hook_instruction(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %entry) { ret void }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Nop bytecode=Nop semantics=nop result=none length=4 x:slot@2:2"}
; call caches: !deegen.call_ics = !{!1}
; call caches: !1 = !{!"3"}
