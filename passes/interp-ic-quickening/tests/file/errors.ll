; The misuses interp-ic-quickening refuses: a kinds argument the bytecode does not declare, a
; fused cache in a loop, two runs of the cache, a bytecode that declares no fused cache, and
; malformed markers.
; RUN: not deegen-opt --passes=interp-ic-quickening %s 2>&1 | FileCheck %s --check-prefix=KINDS
; KINDS: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: the fused cache is run with 3 kinds; the bytecode declares 2
; RUN: sed 's/i32 %%computed, i32 3)/i32 %%computed, i32 2)/; s/br label %%done/br label %%entry2/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=LOOP
; LOOP: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: a fused inline cache must not run in a loop (a hit could find another kind than the opcode's)
; RUN: sed 's/i32 %%computed, i32 3)/i32 %%computed, i32 2)/; s/^  %%again = add i32 0, 0/  %%again = call i32 @__deegen_api_ic_fused_kind(i32 %%computed, i32 2)/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=TWICE
; TWICE: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: a fused inline cache runs at most once per bytecode (more than one use found)
; RUN: sed 's/i32 %%computed, i32 3)/i32 %%computed, i32 2)/; s/ fused=1+2"/"/; s/^!deegen.variants = .*/!deegen.variants = !{!0}/; /^![12] = /d' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=UNDECLARED
; UNDECLARED: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: runs a fused inline cache, but bytecode 'GetField' declares none (give its cache operand OperandKind::FusedInlineCache)
; A handler whose variant attribute names no variant.
; RUN: sed 's/i32 %%computed, i32 3)/i32 %%computed, i32 2)/; s/"deegen-variant"="0"/"deegen-variant"="9"/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=OPCODE
; OPCODE: deegen-opt: pass 'interp-ic-quickening': '__deegen_interp_op_GetField': opcode 9 has no variant
; Markers of the wrong shape (a dump edited by hand): the kinds not an integer, the kinds not a
; constant, the kind not an i32, a kind marker that returns nothing.
; RUN: sed 's/^declare i32 @__deegen_api_ic_fused_kind(i32, i32)/declare i32 @__deegen_api_ic_fused_kind(i32, ptr)/; s/i32 %%computed, i32 3)/i32 %%computed, ptr null)/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=KINDS-TYPE
; KINDS-TYPE: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: a fused-cache marker lacks its (integer) kinds argument
; RUN: sed 's/i32 %%computed, i32 3)/i32 %%computed, i32 %%state)/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=KINDS-CONSTANT
; KINDS-CONSTANT: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: the number of kinds of a fused cache must be a constant
; RUN: sed 's/^declare i32 @__deegen_api_ic_fused_kind(i32, i32)/declare i32 @__deegen_api_ic_fused_kind(i64, i32)/; s/i32 %%computed, i32 3)/i64 0, i32 2)/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=KIND-TYPE
; KIND-TYPE: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: a fused-cache marker takes an i32 kind first
; RUN: sed 's/^declare i32 @__deegen_api_ic_fused_kind(i32, i32)/declare void @__deegen_api_ic_fused_kind(i32, i32)/; s/%%kind = call i32 @__deegen_api_ic_fused_kind(i32 %%computed, i32 3)/call void @__deegen_api_ic_fused_kind(i32 %%computed, i32 2)/' %s \
; RUN:   | not deegen-opt --passes=interp-ic-quickening - 2>&1 | FileCheck %s --check-prefix=RESULT
; RESULT: deegen-opt: pass 'interp-ic-quickening': __deegen_interp_op_GetField: the kind marker returns the (i32) kind

declare i32 @__deegen_api_ic_fused_kind(i32, i32)

define ghccc void @__deegen_interp_op_GetField(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  br label %entry2
entry2:
  %state = load i32, ptr %pc
  %computed = and i32 %state, 1
  %kind = call i32 @__deegen_api_ic_fused_kind(i32 %computed, i32 3)
  %again = add i32 0, 0
  br label %done
done:
  ret void
}

attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }

!deegen.variants = !{!0, !1, !2}
!0 = !{!"opcode=0 name=GetField bytecode=GetField semantics=get_field result=none length=8 slot:ic@2:4 fused=1+2"}
!1 = !{!"opcode=1 name=GetField_fused_ic_0 bytecode=GetField semantics=get_field result=none length=8 slot:ic@2:4 quickened=0.0"}
!2 = !{!"opcode=2 name=GetField_fused_ic_1 bytecode=GetField semantics=get_field result=none length=8 slot:ic@2:4 quickened=0.1"}
!deegen.phase = !{!3}
!3 = !{!"handlers"}
