; An IC stub's arithmetic on its state becomes derived runtime constants: the slot GEP (index
; `state >> 2`, 8-byte elements, after a 96-byte header) is one byte offset the JIT computes,
; the shifted state a store uses is another, and each has a function computing it from the
; state. The generic code (a stencil of a base variant) is left alone.
; RUN: deegen-opt --passes=ic-state-folding %s | FileCheck %s
; RUN: deegen-opt --passes=ic-state-folding %s | llc-22 -O2 -o - | FileCheck %s --check-prefix=ASM
; No stub state: nothing to do.
; RUN: sed 's/@__deegen_rc_ic_state/@other_state/g' %s | deegen-opt --passes=ic-state-folding - | FileCheck %s --check-prefix=NONE
; Run twice, the second finds the first one's functions.
; RUN: not deegen-opt --passes=ic-state-folding,ic-state-folding %s 2>&1 | FileCheck %s --check-prefix=TWICE

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Get_fused_ic_0(
; CHECK:         %ic.slot = getelementptr i8, ptr %obj, i64 ptrtoint (ptr @__deegen_rc_ic_derived_0 to i64)
; CHECK-NEXT:    %value = load i64, ptr %ic.slot
; CHECK:         store i32 ptrtoint (ptr @__deegen_rc_ic_derived_1 to i32), ptr %base
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Get(
; CHECK:         %slot = getelementptr inbounds nuw i64, ptr %header, i64 %index64
; CHECK-LABEL: define hidden i64 @__deegen_ic_derive_0(i32 %0)
; CHECK:         lshr i32 %0, 2
; CHECK:         zext nneg i32 %{{.*}} to i64
; CHECK:         mul i64 %{{.*}}, 8
; CHECK:         add i64 %{{.*}}, 96
; CHECK-LABEL: define hidden i64 @__deegen_ic_derive_1(i32 %0)
; CHECK:         lshr i32 %0, 3
; CHECK: !{i64 0, i64 2147483648}

; ASM-LABEL: __deegen_jit_op_Get_fused_ic_0:
; ASM:         movq __deegen_rc_ic_derived_0(%rbx), %rax
; ASM:         movl $__deegen_rc_ic_derived_1, (%rbp)
; ASM-LABEL: __deegen_ic_derive_0:
; ASM:         shrl $2, %edi
; ASM:         leaq 96(,%rdi,8), %rax

; NONE-NOT: __deegen_ic_derive
; NONE-NOT: __deegen_rc_ic_derived
; TWICE: deegen-opt: pass 'ic-state-folding': the module already has derived constants ('__deegen_ic_derive_0')

target triple = "x86_64-unknown-linux-gnu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

@__deegen_rc_ic_state = external hidden global [0 x i8], !absolute_symbol !1

define ghccc void @__deegen_jit_op_Get_fused_ic_0(ptr %ctx, ptr %base, ptr %pc, ptr %obj, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #0 {
entry:
  %index = lshr i32 ptrtoint (ptr @__deegen_rc_ic_state to i32), 2
  %index64 = zext nneg i32 %index to i64
  %header = getelementptr inbounds nuw i8, ptr %obj, i64 96
  %slot = getelementptr inbounds nuw i64, ptr %header, i64 %index64
  %value = load i64, ptr %slot, align 8
  store i64 %value, ptr %base, align 8
  %eighth = lshr i32 ptrtoint (ptr @__deegen_rc_ic_state to i32), 3
  store i32 %eighth, ptr %base, align 4
  ret void
}

define ghccc void @__deegen_jit_op_Get(ptr %ctx, ptr %base, ptr %pc, ptr %obj, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  %state = load i32, ptr %pc, align 1
  %index = lshr i32 %state, 2
  %index64 = zext nneg i32 %index to i64
  %header = getelementptr inbounds nuw i8, ptr %obj, i64 96
  %slot = getelementptr inbounds nuw i64, ptr %header, i64 %index64
  %value = load i64, ptr %slot, align 8
  store i64 %value, ptr %base, align 8
  ret void
}

attributes #0 = { "deegen-handler"="stencil" "deegen-variant"="1" }
attributes #1 = { "deegen-handler"="stencil" "deegen-variant"="0" }

!deegen.variants = !{!2, !3, !4}
!deegen.phase = !{!0}
!0 = !{!"finalized"}
!1 = !{i64 0, i64 4294967296}
!2 = !{!"opcode=0 name=Get bytecode=Get semantics=get result=none length=10 slot:ic@2:8 fused=1+2"}
!3 = !{!"opcode=1 name=Get_fused_ic_0 bytecode=Get semantics=get result=none length=10 slot:ic@2:8 quickened=0.0"}
!4 = !{!"opcode=2 name=Get_fused_ic_1 bytecode=Get semantics=get result=none length=10 slot:ic@2:8 quickened=0.1"}
