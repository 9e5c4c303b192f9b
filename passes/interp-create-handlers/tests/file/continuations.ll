; Return continuations: every function the semantics (or a function they call) pass to
; make_call gets a continuation handler, here two chosen by a `select` in a helper. The handler
; restores the caller's frame from the callee's frame header (base without the tail-call count,
; pc, the code block through the hook) and tail-calls a body that decodes the same operands and
; runs the continuation. A slotref operand is passed by address, an unsigned literal zero-extended.
; RUN: deegen-opt --passes=interp-create-handlers %s | FileCheck %s
; A baseline JIT stencil's continuation is code compiled for one function: its code block is
; the runtime constant `__deegen_rc_code_block` (a `movabs`), not loaded through the frame.
; RUN: deegen-opt --passes=baseline-create-stencils %s | FileCheck %s --check-prefix=STENCIL
; STENCIL-LABEL: define ghccc void @__deegen_jit_op_Call__ret__after_call(
; STENCIL-NOT:     @deegen_hook_code_block
; STENCIL:         %caller.cb = call ptr asm "movabsq $$__deegen_rc_code_block, $0", "=r"()
; STENCIL-NEXT:    musttail call ghccc void @__deegen_jit_op_Call__ret__after_call__body(ptr %0, ptr %caller.base, ptr %caller.pc, ptr %caller.cb,

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %frame.addr = getelementptr i8, ptr %2, i64 2
; CHECK-NEXT:    %frame.raw = load i16, ptr %frame.addr, align 1
; CHECK-NEXT:    %frame = zext i16 %frame.raw to i64
; CHECK-NEXT:    %frame.slot = getelementptr i64, ptr %1, i64 %frame
; CHECK-NEXT:    %n.addr = getelementptr i8, ptr %2, i64 4
; CHECK-NEXT:    %n.raw = load i16, ptr %n.addr, align 1
; CHECK-NEXT:    %n = zext i16 %n.raw to i64
; CHECK-NEXT:    call void @call(ptr %frame.slot, i64 %n)
; CHECK-NEXT:    unreachable

; CHECK-LABEL: define internal ghccc void @__deegen_interp_op_Call__ret__after_call__body(
; CHECK-SAME:    #[[BODY:[0-9]+]]
; CHECK:         %frame.slot = getelementptr i64, ptr %1, i64 %frame
; CHECK:         call void @after_call(ptr %frame.slot, i64 %n)

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call__ret__after_call(
; CHECK-SAME:    #[[CONT:[0-9]+]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %hdr.caller_base = getelementptr i64, ptr %1, i64 -4
; CHECK-NEXT:    %caller.base.slot = load i64, ptr %hdr.caller_base
; CHECK-NEXT:    %caller.base.bits = and i64 %caller.base.slot, 281474976710655
; CHECK-NEXT:    %caller.base = inttoptr i64 %caller.base.bits to ptr
; CHECK-NEXT:    %hdr.caller_pc = getelementptr i64, ptr %1, i64 -2
; CHECK-NEXT:    %caller.pc = load ptr, ptr %hdr.caller_pc
; CHECK-NEXT:    %caller.fn.addr = getelementptr i64, ptr %caller.base, i64 -5
; CHECK-NEXT:    %caller.fn = load i64, ptr %caller.fn.addr
; CHECK-NEXT:    %cb = call ptr @deegen_hook_code_block(i64 %caller.fn)
; CHECK-NEXT:    musttail call ghccc void @__deegen_interp_op_Call__ret__after_call__body(ptr %0, ptr %caller.base, ptr %caller.pc, ptr %cb, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9)
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal ghccc void @__deegen_interp_op_Call__ret__after_slow_call__body(
; CHECK:         call void @after_slow_call(ptr %frame.slot, i64 %n)
; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call__ret__after_slow_call(
; CHECK:         musttail call ghccc void @__deegen_interp_op_Call__ret__after_slow_call__body(

; CHECK: attributes #[[BODY]] = { "deegen-continuation"="after_call" "deegen-handler"="continuation-body" "deegen-variant"="0" }
; CHECK: attributes #[[CONT]] = { "deegen-continuation"="after_call" "deegen-handler"="continuation" "deegen-variant"="0" }

; Without the optional hooks there is one read-only dispatch table and no hook or tier-up
; thunk. With the instruction hook (the debugger's), the two tables the interpreter dispatches
; through are writable and hidden, a read-only copy holds the handlers, and the hook thunks call
; the hook (entry 0 for an instruction, 1 for a function's first) before dispatching through
; the copy; a call's first instruction dispatches through the entry table. With the tier-up
; hook, two thunks call it out of line.
; RUN: deegen-opt --passes=interp-create-handlers %s | FileCheck %s --check-prefix=PLAIN
; PLAIN: @__deegen_interp_dispatch_table = internal constant [1 x ptr] [ptr @__deegen_interp_op_Call]
; PLAIN-NOT: @__deegen_interp_entry_dispatch_table
; PLAIN-NOT: @__deegen_interp_hook_thunk
; PLAIN-NOT: @__deegen_interp_tier_up
; RUN: sed 's/^; optional hooks: //' %s | deegen-opt --passes=interp-create-handlers - | FileCheck %s --check-prefix=HOOKS
; HOOKS:       @__deegen_interp_dispatch_table = hidden global [1 x ptr] [ptr @__deegen_interp_op_Call]
; HOOKS-NEXT:  @__deegen_interp_entry_dispatch_table = hidden global [1 x ptr] [ptr @__deegen_interp_op_Call]
; HOOKS-NEXT:  @__deegen_interp_handler_table = hidden constant [1 x ptr] [ptr @__deegen_interp_op_Call]
; HOOKS-LABEL: define ghccc void @__deegen_interp_entry_bytecode(
; With a tier-up hook every entry (a call or a tail call) counts the function's hotness down
; and tiers up at its first instruction when it runs out.
; HOOKS:       hotness.count:
; HOOKS-NEXT:    %hotness.addr = getelementptr i8, ptr %3, i64 40
; HOOKS:         br i1 %hotness.ran_out, label %hotness.tier_up, label %hotness.done
; HOOKS:       hotness.tier_up:
; HOOKS-NEXT:    musttail call ghccc void @__deegen_interp_tier_up_entry(
; HOOKS:         getelementptr i64, ptr @__deegen_interp_entry_dispatch_table, i64 %next.opcode
; The thunk it calls (noinline: see `function_entry`) continues in JIT code at the first
; instruction, or dispatches it through the entry table as a call would.
; HOOKS-LABEL: define ghccc void @__deegen_interp_tier_up_entry(
; HOOKS:         %bytecode = load ptr, ptr %bytecode.addr
; HOOKS-NEXT:    %jit.code = call ptr @deegen_hook_tier_up(ptr %0, ptr %3, ptr %bytecode)
; HOOKS:         br i1 %compiled, label %osr_entry, label %stay
; HOOKS:         getelementptr i64, ptr @__deegen_interp_entry_dispatch_table, i64 %next.opcode
; With a tier-up hook the interpreter also gets the baseline JIT's doors: entries that jump
; to the code block's JIT code, OSR entry from the tier-up thunk, and the table of return
; continuation handlers a frame leaving JIT code returns into.
; HOOKS-LABEL: define ghccc void @__deegen_jit_entry_bytecode(
; HOOKS:         %jit_code = load ptr, ptr %jit_code.addr
; HOOKS:         musttail call ghccc void %jit_code(
; HOOKS-LABEL: define ghccc void @__deegen_interp_tier_up_at(
; HOOKS:         %jit.code = call ptr @deegen_hook_tier_up(ptr %0, ptr %3, ptr %2)
; HOOKS:         br i1 %compiled, label %osr_entry, label %stay
; HOOKS:       osr_entry:
; HOOKS-NEXT:    musttail call ghccc void %jit.code(
; HOOKS:         getelementptr i64, ptr @__deegen_interp_dispatch_table, i64 %next.opcode
; HOOKS-LABEL: define ghccc void @__deegen_interp_hook_thunk(
; HOOKS-NEXT:  entry:
; HOOKS-NEXT:    %hook.status = call i64 @deegen_hook_instruction(ptr %0, ptr %1, ptr %2, ptr %3, i64 0)
; HOOKS-NEXT:    %hook.failed = icmp ne i64 %hook.status, 0
; HOOKS-NEXT:    br i1 %hook.failed, label %error, label %ok
; HOOKS:         musttail call ghccc void @__deegen_interp_throw(
; HOOKS:         getelementptr i64, ptr @__deegen_interp_handler_table, i64 %next.opcode
; HOOKS-LABEL: define ghccc void @__deegen_interp_hook_entry_thunk(
; HOOKS:         call i64 @deegen_hook_instruction(ptr %0, ptr %1, ptr %2, ptr %3, i64 1)

declare void @__deegen_api_make_call(ptr, i64, ptr)
declare void @__deegen_api_fallthrough()

define void @call(ptr %frame, i64 %n) {
  call void @do_call(ptr %frame, i64 %n)
  unreachable
}

define void @do_call(ptr %frame, i64 %n) {
  %none = icmp eq i64 %n, 0
  %k = select i1 %none, ptr @after_call, ptr @after_slow_call
  call void @__deegen_api_make_call(ptr %frame, i64 %n, ptr %k)
  unreachable
}

define void @after_call(ptr %frame, i64 %n) {
  call void @__deegen_api_fallthrough()
  unreachable
}

define void @after_slow_call(ptr %frame, i64 %n) {
  call void @__deegen_api_fallthrough()
  unreachable
}

define ptr @deegen_hook_code_block(i64 %callee) { %p = inttoptr i64 %callee to ptr  ret ptr %p }
define i64 @deegen_hook_nil() { ret i64 0 }
define i64 @deegen_hook_stack_overflow(ptr %ctx, ptr %base) { ret i64 0 }
define void @deegen_hook_on_throw(ptr %ctx, ptr %base, ptr %pc, i64 %v, i64 %pos) { ret void }
; optional hooks: define i64 @deegen_hook_instruction(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %entry) { ret i64 0 }
; optional hooks: define ptr @deegen_hook_tier_up(ptr %ctx, ptr %cb, ptr %pc) { ret ptr null }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=6 frame:slotref@2:2 n:ulit@4:2"}
