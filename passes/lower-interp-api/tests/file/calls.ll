; Calls and returns. make_call(frame, n, k) writes the callee's frame header above `frame`
; (caller base, the continuation handler of `k` for this variant, caller pc) and enters the
; callee through its code block's entry, with base = frame + 5 slots and the code block pinned.
; make_tail_call(frame, n) moves the callee and its arguments over the current frame (its
; original position when a vararg entry moved it, which the frame header's #varargs count
; tells; the arguments word by word, no memmove
; call), counts one more tail call in the top bits of the caller-base slot, and enters the
; callee. In a continuation, return_values() is a0/a1, and
; return_from_function(p, n) tail-calls the return continuation in the frame header.
; RUN: deegen-opt --passes=lower-interp-api %s | FileCheck %s

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call(
; CHECK:       call:
; CHECK-NEXT:    %callee.base = getelementptr i64, ptr %frame, i64 5
; CHECK-NEXT:    %hdr.caller_base = getelementptr i64, ptr %callee.base, i64 -4
; CHECK-NEXT:    store ptr %base, ptr %hdr.caller_base
; CHECK-NEXT:    %hdr.ret = getelementptr i64, ptr %callee.base, i64 -3
; CHECK-NEXT:    store ptr @__deegen_interp_op_Call__ret__k, ptr %hdr.ret
; CHECK-NEXT:    %hdr.caller_pc = getelementptr i64, ptr %callee.base, i64 -2
; CHECK-NEXT:    store ptr %pc, ptr %hdr.caller_pc
; CHECK-NEXT:    %callee = load i64, ptr %frame
; CHECK-NEXT:    %callee.cb = call ptr @deegen_hook_code_block(i64 %callee)
; CHECK-NEXT:    %callee.entry = load ptr, ptr %callee.cb
; CHECK-NEXT:    musttail call ghccc void %callee.entry(ptr %ctx, ptr %callee.base, ptr poison, ptr %callee.cb, i64 %t1, i64 2, i64 poison, i64 poison, i64 poison, i64 %t2)
; CHECK-NEXT:    ret void
; CHECK:       tail_call:
; The frame was moved when the header's #varargs slot (which every entry writes) is above 0:
; no test of the running function's entry.
; CHECK-NOT:     @__deegen_interp_entry_bytecode_vararg
; CHECK:         %num_varargs = load i64, ptr %hdr.num_varargs
; CHECK:         %frame.moved = icmp ugt i64 %num_varargs, 0
; A branch weighted past LLVM's predictable threshold (not a select: the common case does not
; compute the moved frame's original position).
; CHECK-NEXT:    br i1 %frame.moved, label %tail.frame_moved, label %tail.frame, !prof ![[MOVED:[0-9]+]]
; CHECK:       tail.frame_moved:
; CHECK:         %original.base = getelementptr i64, ptr %base, i64 %back
; CHECK:       tail.frame:
; CHECK-NEXT:    %tail.base = phi ptr [ %original.base, %tail.frame_moved ], [ %base, %tail_call ]
; CHECK-NEXT:    %[[CALLEE:callee[0-9]+]] = load i64, ptr %frame
; CHECK-NEXT:    %hdr.callee = getelementptr i64, ptr %tail.base, i64 -5
; CHECK-NEXT:    store i64 %[[CALLEE]], ptr %hdr.callee
; The count saturates where adding one carries out of the slot's top bits.
; CHECK:         %caller.slot.add = call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %caller.slot, i64 281474976710656)
; CHECK-NEXT:    %caller.slot.counted = extractvalue { i64, i1 } %caller.slot.add, 0
; CHECK-NEXT:    %tail_calls.saturated = extractvalue { i64, i1 } %caller.slot.add, 1
; CHECK-NEXT:    %caller.slot.new = select i1 %tail_calls.saturated, i64 %caller.slot, i64 %caller.slot.counted
; CHECK:         %args = getelementptr i64, ptr %frame, i64 5
; CHECK-NEXT:    br label %tail.args.head
; CHECK:       tail.args.head:
; CHECK-NEXT:    %tail.args.i = phi i64 [ 0, %tail.frame ], [ %tail.args.next, %tail.args.body ]
; CHECK-NEXT:    %tail.args.more = icmp ult i64 %tail.args.i, 2
; CHECK:       tail.args.body:
; CHECK-NEXT:    %tail.args.from = getelementptr i64, ptr %args, i64 %tail.args.i
; CHECK-NEXT:    %tail.args.value = load volatile i64, ptr %tail.args.from, align 8
; CHECK-NEXT:    %tail.args.to = getelementptr i64, ptr %tail.base, i64 %tail.args.i
; CHECK-NEXT:    store volatile i64 %tail.args.value, ptr %tail.args.to, align 8
; CHECK-NEXT:    %tail.args.next = add i64 %tail.args.i, 1
; CHECK-NEXT:    br label %tail.args.head, !llvm.loop ![[LOOP:[0-9]+]]
; CHECK:       tail.args.done:
; CHECK-NOT:     @llvm.memmove
; CHECK:         musttail call ghccc void %{{callee.entry[0-9]+}}(ptr %ctx, ptr %tail.base, ptr poison, ptr %{{callee.cb[0-9]+}}, i64 %t1, i64 2,

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Call__ret__k__body(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %retvals = inttoptr i64 %a0 to ptr
; CHECK-NEXT:    %retp = ptrtoint ptr %retvals to i64
; CHECK-NEXT:    %hdr.ret = getelementptr i64, ptr %base, i64 -3
; CHECK-NEXT:    %ret.cont = load ptr, ptr %hdr.ret
; CHECK-NEXT:    musttail call ghccc void %ret.cont(ptr %ctx, ptr %base, ptr poison, ptr poison, i64 %t1, i64 %retp, i64 %a1, i64 poison, i64 poison, i64 %t2)
; The frame move's loop is not to be unrolled for a count known only at run time (a known
; count is unrolled in full): a loop ID that refers to itself.
; CHECK:       ![[MOVED]] = !{!"branch_weights", i32 1, i32 200}
; CHECK:       ![[LOOP]] = distinct !{![[LOOP]], ![[NOUNROLL:[0-9]+]]}
; CHECK-NEXT:  ![[NOUNROLL]] = !{!"llvm.loop.unroll.runtime.disable"}

; With a call inline cache (interp-call-ic), the cached code block is used and the hook is
; only the cache's miss path.
; RUN: deegen-opt --passes=interp-call-ic,lower-interp-api %s | FileCheck %s --check-prefix=CACHED
; CACHED-LABEL: define ghccc void @__deegen_interp_op_Call(
; CACHED-NOT:     @__deegen_api_
; CACHED:       call_ic.call:
; CACHED-NEXT:    %call_ic.callee_code_block = phi ptr
; CACHED:         %callee = load i64, ptr %frame
; CACHED-NEXT:    %callee.entry = load ptr, ptr %call_ic.callee_code_block
; CACHED-NEXT:    musttail call ghccc void %callee.entry(ptr %ctx, ptr %callee.base, ptr poison, ptr %call_ic.callee_code_block, i64 %t1, i64 2,
; CACHED-NOT:     @__deegen_api_
; CACHED-LABEL: define ghccc void @__deegen_interp_op_Call__ret__k(

; With the tier-up hook, a taken backward branch counts down the code block's hotness (at
; offset 40) and tiers up out of line when it runs out; a return does not (the entry thunks
; count calls, `interp-create-handlers`).
; RUN: sed 's/^; tier-up: //' %s | deegen-opt --passes=lower-interp-api - | FileCheck %s --check-prefix=HOT
; RUN: deegen-opt --passes=lower-interp-api %s | FileCheck %s --check-prefix=COLD
; HOT-LABEL: define ghccc void @__deegen_interp_op_Call__ret__k__body(
; HOT-NOT:     hotness
; HOT-NOT:     @__deegen_interp_tier_up
; HOT:         ret void
; HOT-LABEL: define ghccc void @__deegen_interp_op_Loop(
; HOT:         %backward = icmp slt i64 %branch.offset, 0
; HOT-NEXT:    br i1 %backward, label %hotness.count, label %hotness.done
; HOT:       hotness.count:
; HOT-NEXT:    %hotness.addr = getelementptr i8, ptr %cb, i64 40
; HOT-NEXT:    %hotness = load i64, ptr %hotness.addr
; HOT-NEXT:    %hotness.next = sub i64 %hotness, 1
; HOT-NEXT:    store i64 %hotness.next, ptr %hotness.addr
; HOT-NEXT:    %hotness.ran_out = icmp slt i64 %hotness.next, 0
; HOT-NEXT:    br i1 %hotness.ran_out, label %hotness.tier_up, label %hotness.done
; HOT:         musttail call ghccc void @__deegen_interp_tier_up_at(ptr %ctx, ptr %base, ptr %branch.target, ptr %cb,
; COLD-NOT: hotness
; COLD-NOT: @__deegen_interp_tier_up

; The errors of calls: a continuation computed at run time, a continuation without its
; handler, and a missing or mistyped code-block hook.
; RUN: sed 's/^  call void @__deegen_api_make_call(ptr %%frame, i64 2, ptr @k)/  %%chosen = load ptr, ptr %%cb\n  call void @__deegen_api_make_call(ptr %%frame, i64 2, ptr %%chosen)/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=COMPUTED
; COMPUTED: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: the continuation passed to make_call must be a function named at the call (`f as *const ()`), not a value computed at run time
; RUN: sed 's/@__deegen_interp_op_Call__ret__k(/@not_the_continuation_handler(/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-HANDLER
; NO-HANDLER: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: no continuation handler '__deegen_interp_op_Call__ret__k': run interp-create-handlers first
; RUN: sed 's/^define ptr @deegen_hook_code_block(/define ptr @not_the_hook(/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-HOOK
; NO-HOOK: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: the semantics do not define deegen_hook_code_block
; RUN: sed 's/^define ptr @deegen_hook_code_block.*/define void @deegen_hook_code_block(i64 %%callee) { ret void }/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=HOOK-TYPE
; HOOK-TYPE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: deegen_hook_code_block must return a pointer
; return_values() outside a return continuation.
; A hook that returns an integer (it used to panic the pass).
; RUN: sed 's/^define ptr @deegen_hook_code_block.*/define i64 @deegen_hook_code_block(i64 %%callee) { ret i64 0 }/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=HOOK-INT
; HOOK-INT: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: deegen_hook_code_block must return a pointer
; A frame that is not a pointer (it used to panic the pass).
; RUN: sed 's/@__deegen_api_make_call(ptr %%frame, i64 2, ptr @k)/@__deegen_api_make_call(i64 2, i64 2, ptr @k)/; s/^declare void @__deegen_api_make_call(ptr, i64, ptr)/declare void @__deegen_api_make_call(i64, i64, ptr)/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=FRAME-TYPE
; FRAME-TYPE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: marker call argument 0 must be a pointer, not i64
; A marker declared with an argument too few: the callee is not taken for the missing one.
; RUN: sed 's/@__deegen_api_make_call(ptr %%frame, i64 2, ptr @k)/@__deegen_api_make_call(ptr %%frame, i64 2)/; s/^declare void @__deegen_api_make_call(ptr, i64, ptr)/declare void @__deegen_api_make_call(ptr, i64)/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=TOO-FEW
; TOO-FEW: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: marker call lacks argument 2 (it has 2)
; A run-time value that only has the continuation's name is not the continuation.
; RUN: sed 's/^  call void @__deegen_api_make_call(ptr %%frame, i64 2, ptr @k)/  %%k = load ptr, ptr %%cb\n  call void @__deegen_api_make_call(ptr %%frame, i64 2, ptr %%k)/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NAMED-LIKE
; NAMED-LIKE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call: the continuation passed to make_call must be a function named at the call

; RUN: sed 's/"deegen-handler"="continuation-body"/"deegen-handler"="bytecode"/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=VALUES
; VALUES: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Call__ret__k__body: return_values() is only available in a return continuation
; Dispatching needs the dispatch table.
; RUN: sed '/^@__deegen_interp_dispatch_table/d' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NO-TABLE
; NO-TABLE: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Loop: the module has no table '__deegen_interp_dispatch_table': run interp-create-handlers first

@__deegen_interp_dispatch_table = internal constant [2 x ptr] [ptr @__deegen_interp_op_Call, ptr @__deegen_interp_op_Loop]

declare void @__deegen_api_make_call(ptr, i64, ptr)
declare void @__deegen_api_make_tail_call(ptr, i64)
declare void @__deegen_api_return_from_function(ptr, i64)
declare ptr @__deegen_api_return_values_ptr()
declare i64 @__deegen_api_return_values_count()
declare void @__deegen_api_take_branch()

define void @k() { ret void }
define ptr @deegen_hook_code_block(i64 %callee) { %p = inttoptr i64 %callee to ptr  ret ptr %p }
; tier-up: define ptr @deegen_hook_tier_up(ptr %ctx, ptr %cb, ptr %pc) { ret ptr null }

define ghccc void @__deegen_interp_op_Call(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #0 {
entry:
  %frame = getelementptr i64, ptr %base, i64 3
  %tail = icmp eq i64 %a0, 0
  br i1 %tail, label %tail_call, label %call

call:
  call void @__deegen_api_make_call(ptr %frame, i64 2, ptr @k)
  unreachable

tail_call:
  call void @__deegen_api_make_tail_call(ptr %frame, i64 2)
  unreachable
}

define ghccc void @__deegen_interp_op_Call__ret__k(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  ret void
}

define ghccc void @__deegen_interp_op_Call__ret__k__body(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #2 {
entry:
  %values = call ptr @__deegen_api_return_values_ptr()
  %count = call i64 @__deegen_api_return_values_count()
  call void @__deegen_api_return_from_function(ptr %values, i64 %count)
  unreachable
}

define ghccc void @__deegen_interp_op_Loop(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #3 {
entry:
  call void @__deegen_api_take_branch()
  unreachable
}

attributes #0 = { "deegen-handler"="bytecode" "deegen-variant"="0" }
attributes #1 = { "deegen-continuation"="k" "deegen-handler"="continuation" "deegen-variant"="0" }
attributes #2 = { "deegen-continuation"="k" "deegen-handler"="continuation-body" "deegen-variant"="0" }
attributes #3 = { "deegen-handler"="bytecode" "deegen-variant"="1" }

!deegen.variants = !{!0, !1}
!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=2"}
!1 = !{!"opcode=1 name=Loop bytecode=Loop semantics=loop result=branch length=6 branch@2"}
!deegen.phase = !{!2}
!2 = !{!"handlers"}
