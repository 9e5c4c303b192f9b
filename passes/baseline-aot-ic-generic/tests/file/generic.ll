; The generic code of a fused inline cache (GetField's base variant) becomes a helper that
; reads the instruction's SlowPathData record, its stencil a trampoline that passes the
; record's address, and the code as it was the stencil a megamorphic site copies, which passes
; a record of the same layout to the same slow path; the stub and the stencil without a cache
; are left alone. Input: the pass's fixture.
; RUN: deegen-opt --passes=hot-cold-split,baseline-aot-ic-generic,baseline-aot-slow-paths %S/../fixtures/stencils.ll | FileCheck %s
; Alone, the pass makes the trampoline and hands the generic code its pc slot (the record, once
; baseline-aot-slow-paths has run) for the slow paths it tail-calls.
; RUN: deegen-opt --passes=hot-cold-split,baseline-aot-ic-generic %S/../fixtures/stencils.ll | FileCheck %s --check-prefix=ALONE
; A module whose variants declare no fused cache is unchanged.
; RUN: sed 's/ fused=2+2//; s/ quickened=0\.[01]//' %S/../fixtures/stencils.ll | deegen-opt --passes=baseline-aot-ic-generic - | FileCheck %s --check-prefix=NONE

; CHECK-LABEL: define ghccc void @__deegen_jit_op_GetField__megamorphic(
; CHECK-SAME:    section ".text.__deegen_jit_op_GetField__megamorphic"
; CHECK:         getelementptr i8, ptr %base, i64 ptrtoint (ptr @__deegen_rc_op_table to i64)
; CHECK:         %spd = call ptr asm sideeffect "leaq __deegen_rc_slow_path_data(%rip), $0"
; CHECK:         musttail call ghccc void @__deegen_jit_op_GetField__slow0(ptr %ctx, ptr %base, ptr %spd,
; CHECK-LABEL: define ghccc void @__deegen_jit_op_GetField_fused_ic_0(
; CHECK:         ptrtoint (ptr @__deegen_rc_op_table to i64)
; CHECK-LABEL: define hidden ghccc void @__deegen_jit_op_GetField__generic(
; CHECK-SAME:    section ".text.__deegen_jit_op_GetField__generic"
; CHECK:         %spd.__deegen_rc_op_table = load i64, ptr {{.*}} !invariant.load
; CHECK:         getelementptr i8, ptr %base, i64 %spd.__deegen_rc_op_table
; CHECK:         musttail call ghccc void @__deegen_jit_op_GetField__slow0(ptr %ctx, ptr %base, ptr %pc,
; CHECK-LABEL: define ghccc void @__deegen_jit_op_GetField(
; CHECK-SAME:    section ".text.__deegen_jit_op_GetField"
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %spd = call ptr asm sideeffect "leaq __deegen_rc_slow_path_data(%rip), $0"
; CHECK-NEXT:    musttail call ghccc void @__deegen_jit_op_GetField__generic(ptr %ctx, ptr %base, ptr %spd, ptr %cb,
; CHECK-NEXT:    ret void
; CHECK: "deegen-handler"="stencil" "deegen-slow-path-data"="__deegen_jit_next,__deegen_rc_op_table,__deegen_rc_output,__deegen_rc_pc" "deegen-variant"="0"

; ALONE-LABEL: define ghccc void @__deegen_jit_op_GetField__megamorphic(
; ALONE-LABEL: define internal ghccc void @__deegen_jit_op_GetField__generic(
; ALONE:         musttail call ghccc void @__deegen_jit_op_GetField__slow0(ptr %ctx, ptr %base, ptr %pc,
; ALONE-LABEL: define ghccc void @__deegen_jit_op_GetField(
; ALONE:         musttail call ghccc void @__deegen_jit_op_GetField__generic(ptr %ctx, ptr %base, ptr %pc, ptr %cb,
; ALONE: "deegen-slow-path-of"="__deegen_jit_op_GetField"

; NONE-LABEL: define ghccc void @__deegen_jit_op_GetField(
; NONE-NOT:    __generic
