; After hot-cold-split, the stencil's slow path reads its per-instruction values from the
; SlowPathData record whose address the stencil passes in the pc slot; the stencil records
; the layout. Input: the pass's fixture.
; RUN: deegen-opt --passes=hot-cold-split,baseline-aot-slow-paths %S/../fixtures/stencils.ll | FileCheck %s
; A slow path that reads the pc slot is an error, not a record read from a register that is
; not one.
; RUN: sed 's/@rt_slow(ptr %%ctx/@rt_slow(ptr %%pc/' %S/../fixtures/stencils.ll | not deegen-opt --passes=hot-cold-split,baseline-aot-slow-paths - 2>&1 | FileCheck %s --check-prefix=ERR

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Neg(
; CHECK:         %spd = call ptr asm sideeffect "leaq __deegen_rc_slow_path_data(%rip), $0"
; CHECK:         musttail call ghccc void @__deegen_jit_op_Neg__slow0(ptr %ctx, ptr %base, ptr %spd,
; CHECK-LABEL: define hidden ghccc void @__deegen_jit_op_Neg__slow0(
; CHECK-SAME:    section ".text.__deegen_jit_op_Neg__slow0"
; CHECK:         %spd.__deegen_jit_next = load i64, ptr {{.*}} !invariant.load
; CHECK:         %spd.__deegen_rc_output = load i64, ptr {{.*}} !invariant.load
; CHECK:         %spd.__deegen_rc_pc = load i64, ptr {{.*}} !invariant.load
; CHECK:         getelementptr i8, ptr %1, i64 %spd.__deegen_rc_output
; CHECK:         [[NEXT:%[0-9]+]] = inttoptr i64 %spd.__deegen_jit_next to ptr
; CHECK:         musttail call ghccc void [[NEXT]](
; CHECK: "deegen-slow-path-data"="__deegen_jit_next,__deegen_rc_output,__deegen_rc_pc"

; ERR: deegen-opt: pass 'baseline-aot-slow-paths': {{.*}}reads the pc argument slot
