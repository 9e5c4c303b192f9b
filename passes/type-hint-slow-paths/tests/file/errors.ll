; A hint naming a type the lattice does not have, and a hint that is not a node of strings.
; RUN: not deegen-opt --passes=type-hint-slow-paths %s 2>&1 | FileCheck %s
; CHECK: deegen-opt: pass 'type-hint-slow-paths': !deegen.hint: type lattice: unknown type 'numbers'
; RUN: sed 's/^!2 = .*/!2 = !{i32 7}/' %s | not deegen-opt --passes=type-hint-slow-paths - 2>&1 | FileCheck %s --check-prefix=SHAPE
; SHAPE: deegen-opt: pass 'type-hint-slow-paths': !deegen.hint must hold strings

declare zeroext i1 @is_double(i64)

define void @f(ptr %p) {
entry:
  %a = load i64, ptr %p, !deegen.hint !2
  %c = call zeroext i1 @is_double(i64 %a)
  br i1 %c, label %x, label %y
x:
  ret void
y:
  ret void
}

!deegen.type_lattice = !{!0}
!0 = !{!"types number other", !"checker is_double proves=number cost=1"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
!2 = !{!"numbers"}
