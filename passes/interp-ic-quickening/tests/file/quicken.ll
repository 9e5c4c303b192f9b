; A quickened variant's hit runs its own kind's effect only (GetField_fused_ic_0: inline
; slots, no `hit.out`), every cache fill rewrites the opcode to base + kind (here 2 + (kind & 1)),
; and no fused-cache marker is left. Input: the pass's fixture.
; RUN: deegen-opt --passes=interp-ic-quickening %S/../fixtures/fused.ll | FileCheck %s

; CHECK-NOT: call i32 @__deegen_api_ic_fused_kind
; CHECK-NOT: call void @__deegen_api_ic_quicken
; CHECK-LABEL: define ghccc void @__deegen_interp_op_GetField(
; CHECK:        %quicken.kind = and i16 %{{[0-9]+}}, 1
; CHECK-NEXT:   %quicken.opcode = or disjoint i16 %quicken.kind, 2
; CHECK-NEXT:   store i16 %quicken.opcode, ptr %pc, align 2
; CHECK-LABEL: define ghccc void @__deegen_interp_op_GetField_fused_ic_0(
; CHECK:        br i1 %is.hit, label %hit.in, label %miss
; CHECK-NOT:  hit.out:
; CHECK:        store i16 %quicken.opcode, ptr %pc, align 2
; CHECK-LABEL: define ghccc void @__deegen_interp_op_GetField_fused_ic_1(
; CHECK-NOT: call i32 @__deegen_api_ic_fused_kind
; CHECK-NOT: call void @__deegen_api_ic_quicken
