; The baseline JIT's two lowerings of a fused cache (input: the pass's `stub.ll` fixture). The
; interpreter's handler and the JIT's generic code (the base variant's stencil) read the first
; entry from the cache and fill it on a miss; the generic code then tells the JIT
; (`__deegen_jit_ic_filled(ctx, pc, kind)`), the interpreter does not. The IC stub (the stencil
; of a quickened variant) compares with the runtime constant `__deegen_rc_ic_key`, runs its
; kind's effect with `__deegen_rc_ic_state`, and its miss is the next-stub marker alone: no
; lookup, no fill, no quickening.
; RUN: deegen-opt --passes=interp-ic-quickening %S/../fixtures/stub.ll | FileCheck %s
; Then `lower-interp-api` makes the stub's miss a jump to the next stub's code.
; RUN: deegen-opt --passes=interp-ic-quickening,lower-interp-api %S/../fixtures/stub.ll | FileCheck %s --check-prefix=LOWERED
; LOWERED-LABEL: define ghccc void @__deegen_jit_op_GetField_fused_ic_1(
; LOWERED:      stub.miss:
; LOWERED-NEXT:   musttail call ghccc void @__deegen_jit_ic_next(ptr %ctx, ptr %base, ptr poison, ptr %cb,
; LOWERED-NEXT:   ret void

; CHECK-NOT: call i32 @__deegen_api_ic_entry_key
; CHECK-NOT: call i32 @__deegen_api_ic_entry_state
; CHECK-NOT: call i32 @__deegen_api_ic_in_stub
; CHECK-LABEL: define ghccc void @__deegen_interp_op_GetField(
; CHECK:        %ic.entry = load i32, ptr %ic, align 1
; CHECK:        %is.hit = icmp eq i32 %key, %ic.entry
; CHECK-NOT:    __deegen_api_ic_next
; CHECK-NOT:    __deegen_jit_ic_filled
; CHECK:        store i16 %quicken.opcode, ptr %pc, align 2
; CHECK-LABEL: define ghccc void @__deegen_jit_op_GetField(
; CHECK:        %ic.entry = load i32, ptr %ic, align 1
; CHECK-NOT:    __deegen_api_ic_next
; CHECK:        store i16 %quicken.opcode, ptr %rc.pc, align 2
; CHECK-NEXT:   call void @__deegen_jit_ic_filled(ptr %ctx, ptr nonnull %rc.pc, i32 %new.kind)
; CHECK-LABEL: define ghccc void @__deegen_jit_op_GetField_fused_ic_1(
; CHECK:        %is.hit = icmp eq i32 %key, ptrtoint (ptr @__deegen_rc_ic_key to i32)
; CHECK-NEXT:   br i1 %is.hit, label %hit.out, label %stub.miss
; CHECK:        %index = lshr i32 ptrtoint (ptr @__deegen_rc_ic_state to i32), 1
; CHECK-NOT:    @lookup
; CHECK-NOT:    __deegen_api_ic_quicken
; CHECK-NOT:    __deegen_jit_ic_filled
; CHECK:      stub.miss:
; CHECK-NEXT:   call void @__deegen_api_ic_next()
; CHECK-NEXT:   unreachable
; CHECK-NEXT: }
