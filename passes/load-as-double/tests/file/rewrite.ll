; A slot read that is only type-checked, passed to the slow path and used as a double is read
; as a double; its bits for the checks come from that read. Input: the pass's fixture.
; RUN: deegen-opt --passes=load-as-double %S/../fixtures/slots.ll | FileCheck %s

; CHECK-LABEL: define ghccc void @add(
; CHECK:        %a.double = load double, ptr %a.slot, align 8, !invariant.load
; CHECK-NEXT:   %a.bits = bitcast double %a.double to i64
; CHECK:        %b.double = load double, ptr %b.slot, align 8{{$}}
; CHECK-NEXT:   %b.bits = bitcast double %b.double to i64
; CHECK:        icmp ult i64 %a.bits, %bound
; CHECK:        fadd double %a.double, %b.double
; CHECK:        call ghccc void @slow(ptr %slots, i64 %a.bits, i64 %b.bits)
; An integer use (a pointer masked out), a raw equality and a volatile read keep their loads.
; CHECK-LABEL: define void @pointer_use(
; CHECK-NOT:    load double
; CHECK-LABEL: define void @left_alone(
; CHECK-NOT:    load double
; CHECK:        ret void
; A key converted to an array index keeps its integer read and gets a double one for the index.
; CHECK-LABEL: define i64 @index(
; CHECK:        %k = load i64, ptr %slots, align 8
; CHECK-NEXT:   %k.double = load double, ptr %slots, align 8
; CHECK:        fptosi double %k.double to i64
; CHECK:        and i64 %k, 281474976710655
