; The function prologue stencil: the entry of a function without variable arguments, built like
; the interpreter's entry thunk, with the parameter count and the frame size runtime constants
; (an `imm32` and a `disp32` hole) instead of loads from the code block, falling through to the
; first instruction's code (`__deegen_jit_next`). Filling missing parameters with nil and
; raising the stack's high-water mark are uncommon paths (the prologue's cold part); a stack
; overflow, weighted never-taken, is a slow path (`hot-cold-split` outlines it).
; RUN: deegen-opt --passes=baseline-create-stencils %s | FileCheck %s
; CHECK-LABEL: define ghccc void @__deegen_jit_function_entry(
; CHECK:         store i64 0, ptr %hdr.num_varargs
; CHECK-NEXT:    %needs_fill = icmp ult i64 %5, ptrtoint (ptr @__deegen_rc_num_params to i64)
; CHECK:       fill:
; CHECK-NEXT:    %i = phi i64
; CHECK-NEXT:    call void @__deegen_uncommon_path()
; CHECK:         %more = icmp ult i64 %i.next, ptrtoint (ptr @__deegen_rc_num_params to i64)
; CHECK:       check_stack:
; CHECK-NEXT:    %frame_end = getelementptr i8, ptr %1, i64 ptrtoint (ptr @__deegen_rc_frame_size to i64)
; CHECK:         br i1 %too_big, label %overflow, label %fits, !prof ![[NEVER:[0-9]+]]
; CHECK:       overflow:
; CHECK:         musttail call ghccc void @__deegen_interp_throw(
; CHECK:       run:
; CHECK-NEXT:    musttail call ghccc void @__deegen_jit_next(
; CHECK:       record_high_water:
; CHECK-NEXT:    call void @__deegen_uncommon_path()
; CHECK-NOT:   define ghccc void @__deegen_jit_function_entry_vararg
; CHECK:       ![[NEVER]] = !{!"branch_weights", i32 1, i32 1048576}
; Through the baseline pipeline up to `hot-cold-split`: the constants get their ranges (below
; 2^31, so a sign-extended `imm32` or `disp32` holds them), and the overflow's outlined slow
; path reads nothing of the function, so it needs no SlowPathData record.
; RUN: deegen-opt --passes='baseline-create-stencils,inline-semantics,interp-ic-quickening,type-hint-slow-paths,type-check-strength-reduction<keep-checkers>,interp-call-ic,call-ic-check-hoisting,type-check-strength-reduction,lower-interp-api,runtime-constant-range,interp-finalize,ic-state-folding,nan-check-fusion,hot-cold-split' %s | FileCheck %s --check-prefix=PIPE
; PIPE:        @__deegen_rc_num_params = external hidden global [0 x i8], !absolute_symbol ![[RANGE:[0-9]+]]
; PIPE-NEXT:   @__deegen_rc_frame_size = external hidden global [0 x i8], !absolute_symbol ![[RANGE]]
; PIPE-LABEL:  define internal ghccc void @__deegen_jit_function_entry__slow0(
; PIPE-NOT:      __deegen_rc_
; PIPE:          musttail call ghccc void @__deegen_interp_throw(
; PIPE:        ![[RANGE]] = !{i64 0, i64 2147483648}

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

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=6 frame:slotref@2:2 n:ulit@4:2"}
