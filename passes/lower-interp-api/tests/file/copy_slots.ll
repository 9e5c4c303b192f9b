; copy_slots(to, from, count) in the middle of a block: the block is split after the marker,
; the copy is the generator's own word-by-word loop (volatile, so no memmove call, and marked
; not to be unrolled for a count known only at run time: no vectorised or four-times-unrolled
; copy), and the code after the marker, phis of its successors included, goes on from the
; loop's exit.
; RUN: deegen-opt --passes=lower-interp-api %s | FileCheck %s

; CHECK-LABEL: define ghccc void @__deegen_interp_op_Copy(
; CHECK:       entry:
; CHECK-NEXT:    %to = getelementptr i64, ptr %base, i64 1
; CHECK-NEXT:    %from = getelementptr i64, ptr %base, i64 8
; CHECK-NEXT:    br label %copy.head
; CHECK-NOT:     @__deegen_api_copy_slots
; CHECK:       join:
; CHECK-NEXT:    %{{which[0-9]*}} = phi i64 [ 1, %copy.rest ], [ 2, %big ]
; CHECK:       copy.rest:
; CHECK-NEXT:    %small = icmp ult i64 %a0, 4
; CHECK-NEXT:    br i1 %small, label %join, label %big
; CHECK:       copy.head:
; CHECK-NEXT:    %copy.i = phi i64 [ 0, %entry ], [ %copy.next, %copy.body ]
; CHECK-NEXT:    %copy.more = icmp ult i64 %copy.i, %a0
; CHECK-NEXT:    br i1 %copy.more, label %copy.body, label %copy.done
; CHECK:       copy.body:
; CHECK-NEXT:    %copy.from = getelementptr i64, ptr %from, i64 %copy.i
; CHECK-NEXT:    %copy.value = load volatile i64, ptr %copy.from, align 8
; CHECK-NEXT:    %copy.to = getelementptr i64, ptr %to, i64 %copy.i
; CHECK-NEXT:    store volatile i64 %copy.value, ptr %copy.to, align 8
; CHECK-NEXT:    %copy.next = add i64 %copy.i, 1
; CHECK-NEXT:    br label %copy.head, !llvm.loop ![[LOOP:[0-9]+]]
; CHECK:       copy.done:
; CHECK-NEXT:    br label %copy.rest
; CHECK-NOT:     @llvm.memmove
; CHECK:       ![[LOOP]] = distinct !{![[LOOP]], ![[NOUNROLL:[0-9]+]]}
; CHECK-NEXT:  ![[NOUNROLL]] = !{!"llvm.loop.unroll.runtime.disable"}

; A destination that is not a pointer is an error, not a panic.
; RUN: sed 's/@__deegen_api_copy_slots(ptr %%to,/@__deegen_api_copy_slots(i64 %%a1,/; s/^declare void @__deegen_api_copy_slots(ptr,/declare void @__deegen_api_copy_slots(i64,/' %s \
; RUN:   | not deegen-opt --passes=lower-interp-api - 2>&1 | FileCheck %s --check-prefix=NOT-PTR
; NOT-PTR: deegen-opt: pass 'lower-interp-api': __deegen_interp_op_Copy: marker call argument 0 must be a pointer, not i64

@__deegen_interp_dispatch_table = internal constant [1 x ptr] [ptr @__deegen_interp_op_Copy]

declare void @__deegen_api_copy_slots(ptr, ptr, i64)
declare void @__deegen_api_fallthrough()

define ghccc void @__deegen_interp_op_Copy(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %t1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %t2) #0 {
entry:
  %to = getelementptr i64, ptr %base, i64 1
  %from = getelementptr i64, ptr %base, i64 8
  call void @__deegen_api_copy_slots(ptr %to, ptr %from, i64 %a0)
  %small = icmp ult i64 %a0, 4
  br i1 %small, label %join, label %big

big:
  br label %join

join:
  %which = phi i64 [ 1, %entry ], [ 2, %big ]
  store i64 %which, ptr %base
  call void @__deegen_api_fallthrough()
  unreachable
}

attributes #0 = { "deegen-handler"="bytecode" "deegen-variant"="0" }

!deegen.variants = !{!0}
!0 = !{!"opcode=0 name=Copy bytecode=Copy semantics=copy result=none length=2"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
