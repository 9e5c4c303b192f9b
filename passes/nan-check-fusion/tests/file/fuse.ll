; Before comparing two doubles, one ordered compare (`fcmp ord`, false when either is a NaN)
; stands in for both "is a double" checks; only when it fails do the integer checks run again
; (`.recheck`), since a NaN double and a boxed non-double both fail it. Input: the pass's
; fixture (bound from !deegen.nan_boxing).
; RUN: deegen-opt --passes=nan-check-fusion %S/../fixtures/checks.ll | FileCheck %s
; The bound given as a parameter overrides the module's; a module with neither is left alone.
; RUN: deegen-opt --passes='nan-check-fusion<doubles-below=0xfff8000000000001>' %S/../fixtures/checks.ll | FileCheck %s

; CHECK-LABEL: define void @add(
; CHECK:        fcmp ord double
; CHECK:      entry.recheck:
; CHECK-LABEL: define i64 @less(
; CHECK:        %lhs.as_double = bitcast i64 %a to double
; CHECK-NEXT:   %rhs.as_double = bitcast i64 %b to double
; CHECK-NEXT:   %both.ordered = fcmp ord double %rhs.as_double, %lhs.as_double
; CHECK-NEXT:   br i1 %both.ordered, label %compare, label %check.recheck
; CHECK:      check.recheck:
; CHECK:        br i1 %{{.*}}, label %slow, label %compare
; The ordered compare takes the pair in the order x86 compares it for the predicate (`olt`:
; swapped), so that llc keeps one `ucomisd` for both.
; CHECK-LABEL: define i1 @less_equal(
; CHECK:        fcmp ord double
; CHECK-NOT:    __deegen_uncommon_path
; A fast path that is only the comparison and its branch: a pair of doubles rechecked (one a
; NaN) goes where the comparison sends an unordered pair (`olt`: false, `ult`: true), never
; back into the comparison, which then has one predecessor (phis take the new edge).
; CHECK-LABEL: define i64 @jump_if_not_less(
; CHECK:        %both.ordered = fcmp ord double %rhs.as_double, %lhs.as_double
; CHECK:      taken:
; CHECK-NEXT:   %from = phi i64 [ 2, %fast ], [ 2, %entry.recheck ]
; CHECK:      entry.recheck:
; CHECK:        br i1 %{{.*}}, label %taken, label %slow
; CHECK-LABEL: define i64 @jump_if_unordered_less(
; CHECK:        %both.ordered = fcmp ord double %lhs.as_double, %rhs.as_double
; CHECK:      entry.recheck:
; CHECK:        br i1 %{{.*}}, label %taken, label %slow
; Unless that is the slow block itself.
; CHECK-LABEL: define i64 @less_or_slow(
; CHECK:      other:
; CHECK-NEXT:   %r{{[0-9]*}} = phi i64 [ 2, %entry.recheck ], [ 3, %fast ]{{$}}
; CHECK:      entry.recheck:
; CHECK:        br i1 %{{.*}}, label %fast, label %other
; In a baseline JIT stencil the recheck is an uncommon path, for baseline-cold-split.
; CHECK-LABEL: define ghccc void @less_equal_stencil(
; CHECK:        fcmp ord double
; CHECK:      entry.recheck:
; CHECK-NEXT:   call void @__deegen_uncommon_path()
