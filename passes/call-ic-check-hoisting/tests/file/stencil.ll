; In a baseline-JIT stencil the cache lives at the instruction's address, a runtime constant
; that interp-call-ic materializes in the probe's block (a pure inline `movabs`). It moves to
; the check block with the probe, where it dominates both the hit (which reads the cached code
; block through it) and the miss (which fills the cache through it).
; RUN: deegen-opt --passes=call-ic-check-hoisting %s | FileCheck %s
; A materialization with effects (an asm that is not a runtime constant) keeps the probe in
; place.
; RUN: sed 's/movabsq $$__deegen_rc_pc, $0/rdtsc/' %s | deegen-opt --passes=call-ic-check-hoisting - | FileCheck %s --check-prefix=KEPT

; CHECK-LABEL: define ghccc void @__deegen_jit_op_Call(
; CHECK:      entry:
; CHECK-NEXT:   %callee = load i64, ptr %base
; CHECK-NEXT:   %rc.pc = call ptr asm "movabsq $$__deegen_rc_pc, $0"
; CHECK-NEXT:   %{{.*}} = getelementptr i8, ptr %rc.pc, i64 6
; CHECK-NEXT:   %[[KEY:.*]] = load i64
; CHECK-NEXT:   %[[HIT:.*]] = icmp eq i64 %callee, %[[KEY]], !deegen.call_ic_probe
; CHECK-NEXT:   br i1 %[[HIT]], label %hit, label %call_ic.check
; CHECK:      probe:
; CHECK-NEXT:   %callee.again = load i64, ptr %base
; CHECK-NEXT:   br label %miss
; CHECK:      call_ic.check:
; CHECK-NEXT:   call zeroext i1 @is_function(i64 %callee)

; KEPT-LABEL: define ghccc void @__deegen_jit_op_Call(
; KEPT:      entry:
; KEPT-NEXT:   %callee = load i64, ptr %base
; KEPT-NEXT:   %isfn = call zeroext i1 @is_function(i64 %callee)
; KEPT:      probe:
; KEPT-NEXT:   %rc.pc = call ptr asm "rdtsc"
target triple = "x86_64-unknown-linux-gnu"

declare void @__deegen_api_make_call_with_code_block(ptr, i64, ptr, ptr) #0
declare ptr @deegen_hook_code_block(i64)
declare zeroext i1 @is_function(i64)
declare void @throw_not_callable(i64) #0

define void @continuation() {
  ret void
}

define ghccc void @__deegen_jit_op_Call(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #1 {
entry:
  %callee = load i64, ptr %base
  %isfn = call zeroext i1 @is_function(i64 %callee)
  br i1 %isfn, label %probe, label %error

probe:
  %rc.pc = call ptr asm "movabsq $$__deegen_rc_pc, $0", "=r"() #2
  %key.addr = getelementptr i8, ptr %rc.pc, i64 6
  %key = load i64, ptr %key.addr, align 1
  %callee.again = load i64, ptr %base, align 8
  %is.hit = icmp eq i64 %callee.again, %key, !deegen.call_ic_probe !5
  br i1 %is.hit, label %hit, label %miss

hit:
  %cb.addr = getelementptr i8, ptr %rc.pc, i64 14
  %cached = load ptr, ptr %cb.addr, align 1
  br label %call

miss:
  %new = call ptr @deegen_hook_code_block(i64 %callee.again)
  %fill.addr = getelementptr i8, ptr %rc.pc, i64 6
  store i64 %callee.again, ptr %fill.addr, align 1
  br label %call

call:
  %code_block = phi ptr [ %cached, %hit ], [ %new, %miss ]
  call void @__deegen_api_make_call_with_code_block(ptr %base, i64 1, ptr @continuation, ptr %code_block)
  unreachable

error:
  call void @throw_not_callable(i64 %callee) #0
  unreachable
}

attributes #0 = { noreturn nounwind }
attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }
attributes #2 = { memory(none) nounwind willreturn }

!deegen.variants = !{!0}
!deegen.type_lattice = !{!1}
!0 = !{!"opcode=0 name=Call bytecode=Call semantics=call result=none length=22 callic@6"}
!1 = !{!"types number function", !"checker is_function proves=function cost=2", !"callable function"}
!deegen.phase = !{!2}
!2 = !{!"handlers"}
!5 = !{}
