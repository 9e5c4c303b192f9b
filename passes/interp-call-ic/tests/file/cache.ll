; Each call a bytecode makes off its cold edges probes a (callee, code block) cache appended
; to the instruction (at its old length: 4 for Call, 2 for TailCall); a hit reuses the cached
; code block, a miss asks the language's hook and fills the cache. Add's call sits behind a
; cold edge (a metamethod) and stays uncached. The opcodes with a cache are listed in
; !deegen.call_ics. Input: the pass's fixture.
; RUN: deegen-opt --passes=interp-call-ic %S/../fixtures/calls.ll | FileCheck %s
; In a baseline JIT stencil a miss is an uncommon path (the directive `baseline-cold-split`
; reads): out of the main stream, on the stencil's registers.
; RUN: sed 's/"deegen-handler"="bytecode"/"deegen-handler"="stencil"/' %S/../fixtures/calls.ll | deegen-opt --passes=interp-call-ic - | FileCheck %s --check-prefix=STENCIL
; STENCIL:      call_ic.miss:
; STENCIL-NEXT:   call void @__deegen_uncommon_path()
; STENCIL-NEXT:   %call_ic.new_code_block = call ptr @deegen_hook_code_block(i64 %call_ic.callee)

; CHECK-LABEL: define ghccc void @__deegen_interp_op_TailCall(
; CHECK:        %call_ic.key.addr = getelementptr i8, ptr %pc, i64 2
; CHECK-NEXT:   %call_ic.key = load i64, ptr %call_ic.key.addr, align 1
; CHECK-NEXT:   %call_ic.callee = load i64, ptr %base
; CHECK-NEXT:   %call_ic.hit = icmp eq i64 %call_ic.callee, %call_ic.key, !deegen.call_ic_probe
; CHECK-NEXT:   br i1 %call_ic.hit, label %call_ic.hit1, label %call_ic.miss
; CHECK:      call_ic.hit1:
; CHECK:        %call_ic.code_block.addr = getelementptr i8, ptr %pc, i64 10
; CHECK:      call_ic.miss:
; CHECK-NEXT:   %call_ic.new_code_block = call ptr @deegen_hook_code_block(i64 %call_ic.callee)
; CHECK:        store i64 %call_ic.callee, ptr %call_ic.fill.key.addr
; CHECK:        store ptr %call_ic.new_code_block, ptr %call_ic.fill.code_block.addr
; CHECK:        call void @__deegen_api_make_tail_call_with_code_block(ptr %base, i64 1, ptr %call_ic.callee_code_block)
; CHECK-LABEL: define ghccc void @__deegen_interp_op_Add(
; CHECK-NOT:    call_ic
; CHECK:        call void @__deegen_api_make_call(ptr %base, i64 2, ptr @continuation)
; CHECK: !deegen.call_ics = !{![[CALL:[0-9]+]], ![[TAIL:[0-9]+]]}
; CHECK-DAG: ![[CALL]] = !{!"0"}
; CHECK-DAG: ![[TAIL]] = !{!"1"}
