; Baseline JIT call stubs. `baseline-create-stencils` copied each calling variant's main
; component three times (`deegen-call-ic-stub`): the direct stub compares the callee with the
; runtime constant CALL_IC_KEY and calls the cached callee directly, the closure stub compares
; the callee's code block with CALL_IC_CODE_BLOCK, and a miss of either goes on along the chain
; (`ic_next`); the generic copy a megamorphic site runs fills the cache without reporting to the
; JIT, where the instruction's own stencil reports each fill (`__deegen_jit_ic_filled`). Only a
; call the entry reaches with nothing written gets the probe: Call's second call follows
; `__call`'s handler and stays an uncached call in the stubs. `Close` writes before its call
; and `Index` can finish without one: neither keeps stubs. `Join` reaches its call both past a
; store and without one: a miss would start it over after the store, so it keeps none either.
; `VarArgs` reads the pinned context (`__deegen_api_context`, which writes nothing) before its
; call, and keeps its stubs.
; (A type check is a call without effects: the lattice names the checker.)
; RUN: deegen-opt --passes=interp-call-ic %s | FileCheck %s
; RUN: deegen-opt --passes=interp-call-ic %s | FileCheck %s --check-prefix=GONE
; `call-ic-check-hoisting` moves a direct stub's probe, whose key is a runtime constant, above
; the function check, and sends its miss straight along the chain: the check and the calls
; behind it (the next stub's, or the generic code's to make) leave the stub.
; RUN: deegen-opt --passes=interp-call-ic,call-ic-check-hoisting %s | FileCheck %s --check-prefix=HOIST
; HOIST-LABEL: define ghccc void @__deegen_jit_op_Call__call_ic_direct(
; HOIST:       entry:
; HOIST-NEXT:    %frame = getelementptr i64, ptr %base, i64 4
; HOIST-NEXT:    %callee = load i64, ptr %frame
; HOIST-NEXT:    %[[RC:.*]] = call ptr asm "movabsq $$__deegen_rc_call_ic_key, $0"
; HOIST-NEXT:    %[[KEY:.*]] = ptrtoint ptr %[[RC]] to i64
; HOIST-NEXT:    %[[HIT:.*]] = icmp eq i64 %callee, %[[KEY]], !deegen.call_ic_probe
; HOIST-NEXT:    br i1 %[[HIT]], label %call_ic.hit1, label %call_ic.miss
; HOIST-NOT:   is_function
; HOIST:       call_ic.miss:
; HOIST-NEXT:    call void @__deegen_api_ic_next()
; HOIST-NEXT:    unreachable
; HOIST-NEXT:  }
; `lower-interp-api` makes the stub's call a direct jump to its target and its miss a jump to
; the chain's next stub.
; RUN: deegen-opt --passes=interp-call-ic,call-ic-check-hoisting,lower-interp-api %s | FileCheck %s --check-prefix=LOWER
; LOWER-LABEL: define ghccc void @__deegen_jit_op_Call__call_ic_direct(
; LOWER:         musttail call ghccc void @__deegen_jit_call_ic_target(ptr %ctx, ptr %{{.*}}, ptr poison, ptr %call_ic.code_block, i64 %t1, i64 2,
; LOWER:         musttail call ghccc void @__deegen_jit_ic_next(

; GONE-NOT: @__deegen_jit_op_Close__call_ic
; GONE-NOT: @__deegen_jit_op_Index__call_ic
; GONE-NOT: @__deegen_jit_op_Join__call_ic

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Call(
; CHECK:       call_ic.miss:
; CHECK:         store i64 %call_ic.callee, ptr %call_ic.fill.key.addr
; CHECK:         call void @__deegen_jit_ic_filled(ptr %ctx, ptr %{{.*}}, i32 0)
; CHECK:       call_ic.miss9:
; CHECK:         store i64 %call_ic.callee6, ptr %call_ic.fill.key.addr14
; CHECK-NOT:     __deegen_jit_ic_filled
; CHECK:         call void @__deegen_api_make_call_with_code_block(ptr %frame, i64 3
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Call__call_ic_direct(
; CHECK:         %call_ic.callee = load i64, ptr %frame
; CHECK-NEXT:    %call_ic.key.rc = call ptr asm "movabsq $$__deegen_rc_call_ic_key, $0"
; CHECK-NEXT:    %call_ic.key = ptrtoint ptr %call_ic.key.rc to i64
; CHECK-NEXT:    %call_ic.hit = icmp eq i64 %call_ic.callee, %call_ic.key, !deegen.call_ic_probe
; CHECK:       meta:
; CHECK:         call void @__deegen_api_make_call(ptr %frame, i64 3, ptr @continuation)
; CHECK:       call_ic.hit1:
; CHECK:         call void @__deegen_api_make_call_direct(ptr %frame, i64 2, ptr @continuation, ptr %call_ic.code_block)
; CHECK:       call_ic.miss:
; CHECK-NEXT:    call void @__deegen_api_ic_next()
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Call__call_ic_closure(
; CHECK:         %call_ic.callee_code_block = call ptr @deegen_hook_code_block(i64 %call_ic.callee)
; CHECK:         %call_ic.hit = icmp eq i64 %call_ic.callee_code_block.bits, %call_ic.key
; CHECK:         call void @__deegen_api_make_call_direct(
; CHECK:         call void @__deegen_api_ic_next()
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Call__call_ic_generic(
; CHECK:         store i64 %call_ic.callee, ptr %call_ic.fill.key.addr
; CHECK-NOT:     __deegen_jit_ic_filled
; CHECK:         call void @__deegen_api_make_call_with_code_block(
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Close(
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Index(
; CHECK-LABEL: define ghccc void @__deegen_jit_op_Join(
; CHECK-NOT:     __deegen_jit_ic_filled
; CHECK-LABEL: define ghccc void @__deegen_jit_op_VarArgs(
; CHECK:         call void @__deegen_jit_ic_filled(
; CHECK-LABEL: define ghccc void @__deegen_jit_op_VarArgs__call_ic_direct(
; CHECK:         %call_ic.hit = icmp eq i64 %call_ic.callee, %call_ic.key, !deegen.call_ic_probe
; CHECK:         call void @__deegen_api_make_call_direct(ptr %base, i64 %n, ptr @continuation,
target triple = "x86_64-unknown-linux-gnu"

declare void @__deegen_api_make_call(ptr, i64, ptr) #0
declare void @__deegen_api_return(i64) #0
declare zeroext i1 @is_function(i64)
declare i64 @call_handler(ptr)
declare ptr @__deegen_api_context()

define ptr @deegen_hook_code_block(i64 %callee) {
  %p = and i64 %callee, 281474976710655
  %closure = inttoptr i64 %p to ptr
  %cb.addr = getelementptr i8, ptr %closure, i64 16
  %cb = load ptr, ptr %cb.addr
  ret ptr %cb
}

define void @continuation() {
  ret void
}

define ghccc void @__deegen_jit_op_Call(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  %frame = getelementptr i64, ptr %base, i64 4
  %callee = load i64, ptr %frame
  %isfn = call zeroext i1 @is_function(i64 %callee)
  br i1 %isfn, label %call, label %meta

call:
  call void @__deegen_api_make_call(ptr %frame, i64 2, ptr @continuation) #0
  unreachable

meta:
  %r = call i64 @call_handler(ptr %frame)
  call void @__deegen_api_make_call(ptr %frame, i64 3, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Call__call_ic_direct(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #2 {
entry:
  %frame = getelementptr i64, ptr %base, i64 4
  %callee = load i64, ptr %frame
  %isfn = call zeroext i1 @is_function(i64 %callee)
  br i1 %isfn, label %call, label %meta

call:
  call void @__deegen_api_make_call(ptr %frame, i64 2, ptr @continuation) #0
  unreachable

meta:
  %r = call i64 @call_handler(ptr %frame)
  call void @__deegen_api_make_call(ptr %frame, i64 3, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Call__call_ic_closure(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #3 {
entry:
  %frame = getelementptr i64, ptr %base, i64 4
  %callee = load i64, ptr %frame
  %isfn = call zeroext i1 @is_function(i64 %callee)
  br i1 %isfn, label %call, label %meta

call:
  call void @__deegen_api_make_call(ptr %frame, i64 2, ptr @continuation) #0
  unreachable

meta:
  %r = call i64 @call_handler(ptr %frame)
  call void @__deegen_api_make_call(ptr %frame, i64 3, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Call__call_ic_generic(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #4 {
entry:
  %frame = getelementptr i64, ptr %base, i64 4
  %callee = load i64, ptr %frame
  %isfn = call zeroext i1 @is_function(i64 %callee)
  br i1 %isfn, label %call, label %meta

call:
  call void @__deegen_api_make_call(ptr %frame, i64 2, ptr @continuation) #0
  unreachable

meta:
  %r = call i64 @call_handler(ptr %frame)
  call void @__deegen_api_make_call(ptr %frame, i64 3, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Close(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #5 {
entry:
  store i64 0, ptr %base
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Close__call_ic_direct(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #6 {
entry:
  store i64 0, ptr %base
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Index(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #7 {
entry:
  %v = load i64, ptr %base
  %isfn = call zeroext i1 @is_function(i64 %v)
  br i1 %isfn, label %call, label %done

call:
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable

done:
  call void @__deegen_api_return(i64 %v) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Index__call_ic_direct(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #8 {
entry:
  %v = load i64, ptr %base
  %isfn = call zeroext i1 @is_function(i64 %v)
  br i1 %isfn, label %call, label %done

call:
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable

done:
  call void @__deegen_api_return(i64 %v) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Join(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #9 {
entry:
  %v = load i64, ptr %base
  %z = icmp eq i64 %v, 0
  br i1 %z, label %write, label %call

write:
  store i64 1, ptr %base
  br label %call

call:
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_Join__call_ic_direct(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #10 {
entry:
  %v = load i64, ptr %base
  %z = icmp eq i64 %v, 0
  br i1 %z, label %write, label %call

write:
  store i64 1, ptr %base
  br label %call

call:
  call void @__deegen_api_make_call(ptr %base, i64 1, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_VarArgs(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #11 {
entry:
  %c = call ptr @__deegen_api_context()
  %n.addr = getelementptr i8, ptr %c, i64 184
  %n = load i64, ptr %n.addr
  call void @__deegen_api_make_call(ptr %base, i64 %n, ptr @continuation) #0
  unreachable
}

define ghccc void @__deegen_jit_op_VarArgs__call_ic_direct(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #12 {
entry:
  %c = call ptr @__deegen_api_context()
  %n.addr = getelementptr i8, ptr %c, i64 184
  %n = load i64, ptr %n.addr
  call void @__deegen_api_make_call(ptr %base, i64 %n, ptr @continuation) #0
  unreachable
}

attributes #0 = { noreturn nounwind }
attributes #1 = { "deegen-handler"="stencil" "deegen-variant"="0" }
attributes #2 = { "deegen-handler"="stencil" "deegen-variant"="0" "deegen-call-ic-stub"="direct" }
attributes #3 = { "deegen-handler"="stencil" "deegen-variant"="0" "deegen-call-ic-stub"="closure" }
attributes #4 = { "deegen-handler"="stencil" "deegen-variant"="0" "deegen-call-ic-stub"="generic" }
attributes #5 = { "deegen-handler"="stencil" "deegen-variant"="1" }
attributes #6 = { "deegen-handler"="stencil" "deegen-variant"="1" "deegen-call-ic-stub"="direct" }
attributes #7 = { "deegen-handler"="stencil" "deegen-variant"="2" }
attributes #8 = { "deegen-handler"="stencil" "deegen-variant"="2" "deegen-call-ic-stub"="direct" }
attributes #9 = { "deegen-handler"="stencil" "deegen-variant"="3" }
attributes #10 = { "deegen-handler"="stencil" "deegen-variant"="3" "deegen-call-ic-stub"="direct" }
attributes #11 = { "deegen-handler"="stencil" "deegen-variant"="4" }
attributes #12 = { "deegen-handler"="stencil" "deegen-variant"="4" "deegen-call-ic-stub"="direct" }

!deegen.variants = !{!0, !1, !2, !5, !6}
!deegen.type_lattice = !{!4}

!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=4 frame:slotref@2:2"}
!1 = !{!"opcode=1 name=Close bytecode=Close semantics=close result=none length=2"}
!2 = !{!"opcode=2 name=Index bytecode=Index semantics=index result=value length=4 output@2"}
!5 = !{!"opcode=3 name=Join bytecode=Join semantics=join result=none length=2"}
!6 = !{!"opcode=4 name=VarArgs bytecode=VarArgs semantics=var_args result=none length=2"}
!4 = !{!"types number function", !"checker is_function proves=function cost=2", !"callable function"}

!deegen.phase = !{!11}
!11 = !{!"handlers"}
