; Each handler becomes one straight function: the semantic function and the value accessors
; are inlined; the language's checkers (`is_double`) stay calls for
; type-check-strength-reduction, and the API markers stay for lower-interp-api.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics %S/../../../registry/tests/fixtures/add_and_branch.ll | FileCheck %s

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Add_SS(
; CHECK-NOT:    call void @add(
; CHECK:        %a.i = call zeroext i1 @is_double(i64 %lhs.value)
; CHECK:        %b.i = call zeroext i1 @is_double(i64 %rhs.value)
; CHECK-NOT:    call double @as_f64
; CHECK:        fadd double
; CHECK:        call void @__deegen_api_return(
; CHECK:        call void @__deegen_api_throw(
; CHECK:      }
; CHECK-LABEL: define ghccc void @__deegen_interp_op_JumpIfLt_SS(
; CHECK-NOT:    call void @jump_if_lt(
; CHECK:        fcmp olt double
; CHECK:        call void @__deegen_api_take_branch()
; CHECK:        call void @__deegen_api_fallthrough()
