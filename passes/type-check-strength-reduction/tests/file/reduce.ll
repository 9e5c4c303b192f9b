; SCCP over the type lattice: a check whose answer the path decides becomes a constant, and
; a check that only has to tell apart what is left becomes the cheaper checker that does.
; With `keep-checkers` the checker calls stay; without it they are inlined (the checkers here
; are declarations, so the calls remain either way).
; RUN: deegen-opt --passes='type-check-strength-reduction<keep-checkers>' %s | FileCheck %s
; RUN: deegen-opt --passes=type-check-strength-reduction %s | FileCheck %s

declare zeroext i1 @is_nil(i64)
declare zeroext i1 @is_number(i64)
declare zeroext i1 @is_heap(i64)
declare zeroext i1 @is_string(i64)
declare zeroext i1 @heap_is_string(i64)
declare void @use(i1)

; CHECK-LABEL: define void @repeated(
; CHECK:         %a = call i1 @is_number(i64 %v)
; CHECK:       number:
; CHECK-NEXT:    call void @use(i1 true)
; CHECK:       other:
; CHECK-NEXT:    call void @use(i1 false)
define void @repeated(i64 %v) {
entry:
  %a = call i1 @is_number(i64 %v)
  br i1 %a, label %number, label %other
number:
  %b = call i1 @is_number(i64 %v)
  call void @use(i1 %b)
  ret void
other:
  %c = call i1 @is_number(i64 %v)
  call void @use(i1 %c)
  ret void
}

; Not nil and not a number: a heap object, so is_heap is true and is_string needs only the
; cheaper heap_is_string.
; CHECK-LABEL: define void @excluded(
; CHECK:       object:
; CHECK-NEXT:    call void @use(i1 true)
; CHECK-NEXT:    %s = call i1 @heap_is_string(i64 %v)
; CHECK-NOT:     @is_string
; CHECK:         ret void
define void @excluded(i64 %v) {
entry:
  %n = call i1 @is_nil(i64 %v)
  br i1 %n, label %done, label %not_nil
not_nil:
  %d = call i1 @is_number(i64 %v)
  br i1 %d, label %done, label %object
object:
  %h = call i1 @is_heap(i64 %v)
  call void @use(i1 %h)
  %s = call i1 @is_string(i64 %v)
  call void @use(i1 %s)
  ret void
done:
  ret void
}

!deegen.type_lattice = !{!0}
!0 = !{!"types nil number string table", !"checker is_nil proves=nil cost=1", !"checker is_number proves=number cost=1", !"checker is_heap proves=string|table cost=1", !"checker is_string proves=string cost=3", !"checker heap_is_string proves=string requires=string|table cost=2"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
