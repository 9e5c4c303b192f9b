; The boxing's two 64-bit constants (given as parameters here; by default from
; !deegen.tag_registers) are read from the pinned tag registers instead of materialized with
; movabs; `u< C+1` compares are rewritten to use the register value itself (`ugt C-1` becomes
; `uge C`). Input: the pass's fixture.
; RUN: deegen-opt --passes='tag-register-rewrite<tag1=0xfff8000000000001;tag2=0xffffffffffff>' %S/../fixtures/handlers.ll | FileCheck %s

; CHECK-LABEL: define ghccc void @__deegen_interp_op_A(
; CHECK:        %is_double = icmp ult i64 %v, %tag1
; CHECK:        %exact = icmp eq i64 %v, %tag1
; CHECK-NEXT:   %p = select i1 %exact, i64 %tag1, i64 %v
; CHECK:        %addr = and i64 %v, %tag2
; CHECK:        %heap = icmp uge i64 %k, %tag2
; CHECK-LABEL: define ghccc void @__deegen_interp_op_B(
; CHECK:        store i64 %tag2, ptr %base
