; The interpreter module is closed: everything but the runtime's entry points is internal (the
; semantic functions and their markers are gone), every function forbids jump tables and has
; no frame pointer, the whole is optimized at O3, and the module moves to phase `finalized`.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,type-check-strength-reduction,lower-interp-api,interp-finalize \
; RUN:   %S/../../../registry/tests/fixtures/add_and_branch.ll | FileCheck %s

; CHECK: @__deegen_interp_dispatch_table = internal unnamed_addr constant [2 x ptr]
; CHECK-NOT: define {{.*}}@add(
; CHECK-NOT: define {{.*}}@jump_if_lt(
; CHECK-NOT: @__deegen_api_
; CHECK: define internal ghccc void @__deegen_interp_op_Add_SS({{.*}}) #[[HANDLER:[0-9]+]]
; CHECK: define internal ghccc void @__deegen_interp_op_JumpIfLt_SS(
; CHECK: define void @__deegen_interp_enter(
; CHECK: attributes #[[HANDLER]] = { "deegen-handler"="bytecode" "deegen-variant"="0" "frame-pointer"="none" "no-jump-tables"="true" "target-cpu"="x86-64-v2" }
; CHECK: !deegen.phase = !{![[H:[0-9]+]], ![[L:[0-9]+]], ![[F:[0-9]+]]}
; CHECK-DAG: ![[F]] = !{!"finalized"}
