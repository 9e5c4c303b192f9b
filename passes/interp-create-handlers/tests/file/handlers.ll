; One handler per variant: it decodes each operand at its offset in the instruction (a 16-bit
; slot index), loads the slot (with the operand's type hint), and calls the semantic function;
; the dispatch table lists the handlers by opcode, and the module moves to phase `handlers`.
; The input is the interpreter pipeline's fixture (Add and JumpIfLt).
; RUN: deegen-opt --passes=interp-create-handlers %S/../../../registry/tests/fixtures/add_and_branch.ll | FileCheck %s

; CHECK: @__deegen_interp_dispatch_table = internal constant [2 x ptr] [ptr @__deegen_interp_op_Add_SS, ptr @__deegen_interp_op_JumpIfLt_SS]
; CHECK-LABEL: define ghccc void @__deegen_interp_op_Add_SS(ptr %0, ptr %1, ptr %2, ptr %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9)
; CHECK-NEXT: entry:
; CHECK-NEXT:   %lhs.addr = getelementptr i8, ptr %2, i64 2
; CHECK-NEXT:   %lhs.raw = load i16, ptr %lhs.addr
; CHECK-NEXT:   %lhs = zext i16 %lhs.raw to i64
; CHECK-NEXT:   %lhs.slot = getelementptr i64, ptr %1, i64 %lhs
; CHECK-NEXT:   %lhs.value = load i64, ptr %lhs.slot, align 8, !deegen.hint ![[NUMBER:[0-9]+]]
; CHECK:        %rhs.addr = getelementptr i8, ptr %2, i64 4
; CHECK:        call void @add(i64 %lhs.value, i64 %rhs.value)
; CHECK-NEXT:   unreachable
; CHECK-LABEL: define ghccc void @__deegen_interp_op_JumpIfLt_SS(
; CHECK:        call void @jump_if_lt(
; CHECK-LABEL: define ghccc void @__deegen_interp_throw(
; CHECK-LABEL: define void @__deegen_interp_enter(ptr %0, ptr %1, i64 %2)
; CHECK: !deegen.phase = !{![[PHASE:[0-9]+]]}
; CHECK-DAG: ![[PHASE]] = !{!"handlers"}
; CHECK-DAG: ![[NUMBER]] = !{!"number"}
