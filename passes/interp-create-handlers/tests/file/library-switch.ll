; Switching stacks (coroutines): `make_call_in` is make_call in another context (the callee's
; frame on another stack, which the callee then runs with as its pinned context), and its
; continuation gets a handler like make_call's; `return_in` returns values from a frame of
; another context, to that frame's return continuation, which runs with that context.
; RUN: deegen-opt --passes=interp-create-handlers %s | FileCheck %s
; CHECK: define ghccc void @__deegen_lib_switch__ret__switch_back(

; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,lower-interp-api %s | FileCheck %s --check-prefix=LOWERED
; The call: the header as make_call writes it, then the callee's entry with the other context.
; LOWERED-LABEL: define ghccc void @__deegen_lib_switch(
; LOWERED:         %other.i = load ptr, ptr %slot.i
; LOWERED:         %callee.base = getelementptr i64, ptr %frame.i, i64 5
; LOWERED:         store ptr %1, ptr %hdr.caller_base
; LOWERED:         store ptr @__deegen_lib_switch__ret__switch_back, ptr %hdr.ret
; LOWERED:         store ptr null, ptr %hdr.caller_pc
; LOWERED:         musttail call ghccc void %callee.entry(ptr %other.i, ptr %callee.base,
; The return: the target frame's continuation, with its context and base.
; LOWERED-LABEL: define internal ghccc void @__deegen_lib_switch__ret__switch_back__body(
; LOWERED:         %retp = ptrtoint ptr %1 to i64
; LOWERED:         %hdr.ret = getelementptr i64, ptr %target.i, i64 -3
; LOWERED:         %ret.cont = load ptr, ptr %hdr.ret
; LOWERED:         musttail call ghccc void %ret.cont(ptr %back.i, ptr %target.i, ptr poison, ptr poison, i64 %4, i64 %retp, i64 2,

declare void @__deegen_api_make_call_in(ptr, ptr, i64, ptr)
declare void @__deegen_api_return_in(ptr, ptr, ptr, i64)
declare ptr @__deegen_api_stack_base()
declare ptr @__deegen_api_context()

define void @switch(i64 %n) {
  %base = call ptr @__deegen_api_stack_base()
  %slot = getelementptr i64, ptr %base, i64 1
  %other = load ptr, ptr %slot
  %frame = load ptr, ptr %base
  call void @__deegen_api_make_call_in(ptr %other, ptr %frame, i64 %n, ptr @switch_back)
  unreachable
}

define void @switch_back() {
  %base = call ptr @__deegen_api_stack_base()
  %back = load ptr, ptr %base
  %slot = getelementptr i64, ptr %base, i64 1
  %target = load ptr, ptr %slot
  call void @__deegen_api_return_in(ptr %back, ptr %target, ptr %base, i64 2)
  unreachable
}

define ptr @deegen_hook_code_block(i64 %callee) { %p = inttoptr i64 %callee to ptr  ret ptr %p }
define i64 @deegen_hook_nil() { ret i64 0 }
define i64 @deegen_hook_stack_overflow(ptr %ctx, ptr %base) { ret i64 0 }
define void @deegen_hook_on_throw(ptr %ctx, ptr %base, ptr %pc, i64 %v, i64 %pos) { ret void }

define void @nop(i64 %x) {
  call void @__deegen_api_fallthrough()
  unreachable
}
declare void @__deegen_api_fallthrough()

!deegen.variants = !{!1}
!1 = !{!"opcode=0 name=Nop bytecode=Nop semantics=nop result=none length=4 x:slot@2:2"}
!deegen.library = !{!0}
!0 = !{!"switch switch"}
