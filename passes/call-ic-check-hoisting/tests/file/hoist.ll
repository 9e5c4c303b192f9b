; A call IC probe right under `is_function(callee)` moves above the check: the probe compares
; the callee the check block loaded, a hit jumps straight to the cached call, and the check
; runs only on a miss (`call_ic.check`). Input: the pass's fixture, after interp-call-ic.
; RUN: deegen-opt --passes=interp-call-ic,call-ic-check-hoisting %S/../fixtures/checked_calls.ll | FileCheck %s
; Without interp-call-ic there is no probe, and nothing moves.
; RUN: deegen-opt --passes=call-ic-check-hoisting %S/../fixtures/checked_calls.ll | FileCheck %s --check-prefix=NOPROBE

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call(
; CHECK:      entry:
; CHECK:        %callee = load i64, ptr %base
; CHECK-NOT:    @is_function
; CHECK:        %[[HIT:call_ic.hit[0-9]*]] = icmp eq i64 %callee, %{{call_ic.key[0-9]*}}, !deegen.call_ic_probe
; CHECK-NEXT:   br i1 %[[HIT]], label %call_ic.hit1, label %call_ic.check
; CHECK:      call_ic.check:
; CHECK-NEXT:   %isfn = call zeroext i1 @is_function(i64 %callee)
; CHECK-LABEL: define ghccc void @__deegen_interp_op_CallNegated(

; NOPROBE-LABEL: define ghccc void @__deegen_interp_op_Call(
; NOPROBE:      entry:
; NOPROBE:        %isfn = call zeroext i1 @is_function(i64 %callee)
; NOPROBE-NOT:    call_ic
