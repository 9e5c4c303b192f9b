; The checkers are the module's own (noinline) functions, as inline-semantics leaves them. Both
; runs remove the check the path decides (a nil is never a number). With `keep-checkers` the
; other checks stay calls, for passes that still reason about them (interp-call-ic); without
; it the pass releases the checkers (noinline dropped, alwaysinline added) and inlines them,
; and the unused internal checkers are gone.
; RUN: deegen-opt --passes='type-check-strength-reduction<keep-checkers>' %s | FileCheck %s --check-prefix=KEEP
; RUN: deegen-opt --passes=type-check-strength-reduction %s | FileCheck %s --check-prefix=INLINE

; KEEP-LABEL: define internal zeroext i1 @is_number(
; KEEP-LABEL: define void @f(
; KEEP-NEXT:  entry:
; KEEP-NEXT:    %n = call zeroext i1 @is_nil(i64 %v)
; KEEP:       nil:
; KEEP-NEXT:    call void @use(i1 false)
; KEEP:       other:
; KEEP-NEXT:    %b = call zeroext i1 @is_number(i64 %v)
; KEEP-NEXT:    call void @use(i1 %b)

; INLINE-NOT: define {{.*}} @is_number(
; INLINE-NOT: define {{.*}} @is_nil(
; INLINE-LABEL: define void @f(
; INLINE-NEXT:  entry:
; INLINE-NEXT:    %[[NIL:.*]] = icmp eq i64 %v, -1688849860263936
; INLINE-NEXT:    br i1 %[[NIL]], label %nil, label %other
; INLINE:       nil:
; INLINE-NEXT:    call void @use(i1 false)
; INLINE:       other:
; INLINE-NEXT:    %[[NUMBER:.*]] = icmp ult i64 %v, -2251799813685247
; INLINE-NEXT:    call void @use(i1 %[[NUMBER]])
; INLINE-NOT:   call zeroext i1 @is_

define internal zeroext i1 @is_number(i64 %v) noinline {
  %c = icmp ult i64 %v, -2251799813685247
  ret i1 %c
}

define internal zeroext i1 @is_nil(i64 %v) noinline {
  %c = icmp eq i64 %v, -1688849860263936
  ret i1 %c
}

declare void @use(i1)

define void @f(i64 %v) {
entry:
  %n = call zeroext i1 @is_nil(i64 %v)
  br i1 %n, label %nil, label %other

nil:
  %a = call zeroext i1 @is_number(i64 %v)
  call void @use(i1 %a)
  ret void

other:
  %b = call zeroext i1 @is_number(i64 %v)
  call void @use(i1 %b)
  ret void
}

!deegen.type_lattice = !{!0}
!0 = !{!"types nil number other", !"checker is_nil proves=nil cost=1", !"checker is_number proves=number cost=1"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
