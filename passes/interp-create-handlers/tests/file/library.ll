; Library functions (`!deegen.library`): a function value's body written in the semantics. The
; entry runs the body with the number of arguments (a0) in the function's own frame, with no
; instruction (pc is null: a walk of the stack sees a native frame). Each continuation the
; body or its catch passes to make_call gets a handler that restores the library frame from the
; callee's header, like a bytecode's; a function that catches errors gets a catch handler, and
; the catch table pairs each of its continuations with it (a frame returning to one of them was
; called by the function, which catches what it throws).
; RUN: deegen-opt --passes=interp-create-handlers %s | FileCheck %s

; CHECK: @__deegen_lib_catch_table = hidden constant [1 x [2 x ptr]] {{\[\[}}2 x ptr] [ptr @__deegen_lib_guard__ret__guard_return, ptr @__deegen_lib_guard__catch]]
; CHECK: @__deegen_lib_catch_count = hidden constant i32 1

; CHECK-LABEL: define ghccc void @__deegen_lib_guard(
; CHECK-SAME:    #[[ENTRY:[0-9]+]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %hdr.num_varargs = getelementptr i64, ptr %1, i64 -1
; CHECK-NEXT:    store i64 0, ptr %hdr.num_varargs
; CHECK-NEXT:    call void @guard(i64 %5)
; CHECK-NEXT:    unreachable

; CHECK-LABEL: define internal ghccc void @__deegen_lib_guard__ret__guard_return__body(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    call void @guard_return()
; CHECK-NEXT:    unreachable

; CHECK-LABEL: define ghccc void @__deegen_lib_guard__ret__guard_return(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %hdr.caller_base = getelementptr i64, ptr %1, i64 -4
; CHECK:         musttail call ghccc void @__deegen_lib_guard__ret__guard_return__body(ptr %0, ptr %caller.base, ptr %caller.pc, ptr %cb,

; CHECK-LABEL: define ghccc void @__deegen_lib_guard__catch(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    call void @guard_catch()
; CHECK-NEXT:    unreachable

; CHECK-LABEL: define ghccc void @__deegen_lib_plain(
; CHECK:         call void @plain(i64 %5)
; CHECK-NOT:   @__deegen_lib_plain__catch

; The throw thunk continues at the catch handler the throw hook chose, with its frame.
; CHECK-LABEL: define ghccc void @__deegen_interp_throw(
; CHECK:         call void @deegen_hook_on_throw(
; CHECK:         %catch.entry = load ptr, ptr %ctx.catch_entry
; CHECK:         br i1 %uncaught, label %leave, label %caught
; CHECK:       caught:
; CHECK-NEXT:    store ptr null, ptr %ctx.catch_entry
; CHECK:         %catch.base = load ptr, ptr %ctx.catch_base
; CHECK:         musttail call ghccc void %catch.entry(ptr %0, ptr %catch.base, ptr null, ptr %cb,

; CHECK: attributes #[[ENTRY]] = { "deegen-handler"="library" "deegen-library"="guard" }

; Lowering: return, fallthrough and branches have no instruction to go to in a library
; function; calls return to the library function's continuation handler.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,lower-interp-api %s | FileCheck %s --check-prefix=LOWERED
; LOWERED-LABEL: define ghccc void @__deegen_lib_guard(
; LOWERED:         store ptr @__deegen_lib_guard__ret__guard_return, ptr %hdr.ret
; LOWERED:         store ptr null, ptr %hdr.caller_pc
; RUN: sed 's/^; bad return: //' %s | not deegen-opt --passes=interp-create-handlers,inline-semantics,lower-interp-api - 2>&1 \
; RUN:   | FileCheck %s --check-prefix=RETURN
; RETURN: deegen-opt: pass 'lower-interp-api': __deegen_lib_plain: fallthrough() in library function 'plain', which has no instruction: end it with return_from_function
; A semantic function with the wrong parameters, a missing one, a malformed line.
; RUN: sed 's/^define void @plain(i64 %%n)/define void @plain(i64 %%n, i64 %%m)/' %s | not deegen-opt --passes=interp-create-handlers - 2>&1 \
; RUN:   | FileCheck %s --check-prefix=PARAMS
; PARAMS: deegen-opt: pass 'interp-create-handlers': library function plain: 'plain' must take one 64-bit integer (the number of arguments)
; RUN: sed 's/catch=guard_catch/catch=missing/' %s | not deegen-opt --passes=interp-create-handlers - 2>&1 \
; RUN:   | FileCheck %s --check-prefix=MISSING
; MISSING: deegen-opt: pass 'interp-create-handlers': library function guard: semantic function 'missing' is not defined in the module
; RUN: sed 's/!"plain plain"/!"plain"/' %s | not deegen-opt --passes=interp-create-handlers - 2>&1 \
; RUN:   | FileCheck %s --check-prefix=LINE
; LINE: deegen-opt: pass 'interp-create-handlers': malformed variant line 'plain': no semantic function

declare void @__deegen_api_fallthrough()
declare void @__deegen_api_make_call(ptr, i64, ptr)
declare void @__deegen_api_return_from_function(ptr, i64)
declare ptr @__deegen_api_stack_base()

define void @nop(i64 %x) {
  call void @__deegen_api_fallthrough()
  unreachable
}

define void @guard(i64 %n) {
  %base = call ptr @__deegen_api_stack_base()
  %frame = getelementptr i64, ptr %base, i64 %n
  call void @__deegen_api_make_call(ptr %frame, i64 0, ptr @guard_return)
  unreachable
}

define void @guard_return() {
  %base = call ptr @__deegen_api_stack_base()
  call void @__deegen_api_return_from_function(ptr %base, i64 1)
  unreachable
}

define void @guard_catch() {
  %base = call ptr @__deegen_api_stack_base()
  call void @__deegen_api_return_from_function(ptr %base, i64 2)
  unreachable
}

define void @plain(i64 %n) {
  %base = call ptr @__deegen_api_stack_base()
; bad return:   call void @__deegen_api_fallthrough()
  call void @__deegen_api_return_from_function(ptr %base, i64 %n)
  unreachable
}

define ptr @deegen_hook_code_block(i64 %callee) { %p = inttoptr i64 %callee to ptr  ret ptr %p }
define i64 @deegen_hook_nil() { ret i64 0 }
define i64 @deegen_hook_stack_overflow(ptr %ctx, ptr %base) { ret i64 0 }
define void @deegen_hook_on_throw(ptr %ctx, ptr %base, ptr %pc, i64 %v, i64 %pos) { ret void }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Nop bytecode=Nop semantics=nop result=none length=4 x:slot@2:2"}
!deegen.library = !{!1, !2}
!1 = !{!"guard guard catch=guard_catch"}
!2 = !{!"plain plain"}
