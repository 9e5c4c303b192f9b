; A hint naming a type the lattice does not have, a hint that is not a node of strings, a hint
; naming no type, and malformed lattices.
; RUN: not deegen-opt --passes=type-hint-slow-paths %s 2>&1 | FileCheck %s
; CHECK: deegen-opt: pass 'type-hint-slow-paths': !deegen.hint: type lattice: unknown type 'numbers'
; RUN: sed 's/^!2 = .*/!2 = !{i32 7}/' %s | not deegen-opt --passes=type-hint-slow-paths - 2>&1 | FileCheck %s --check-prefix=SHAPE
; SHAPE: deegen-opt: pass 'type-hint-slow-paths': !deegen.hint must hold strings
; RUN: sed 's/^!2 = .*/!2 = !{}/' %s | not deegen-opt --passes=type-hint-slow-paths - 2>&1 | FileCheck %s --check-prefix=EMPTY
; EMPTY: deegen-opt: pass 'type-hint-slow-paths': !deegen.hint names no type
; The lattice itself: a checker proving a type it does not declare, and two lattices.
; RUN: sed 's/proves=number cost=1/proves=numbers cost=1/; s/^!2 = .*/!2 = !{!"number"}/' %s \
; RUN:   | not deegen-opt --passes=type-hint-slow-paths - 2>&1 | FileCheck %s --check-prefix=LATTICE
; LATTICE: deegen-opt: pass 'type-hint-slow-paths': type lattice: unknown type 'numbers'
; RUN: sed 's/^!deegen.type_lattice = .*/!deegen.type_lattice = !{!0, !0}/' %s \
; RUN:   | not deegen-opt --passes=type-hint-slow-paths - 2>&1 | FileCheck %s --check-prefix=TWO
; TWO: deegen-opt: pass 'type-hint-slow-paths': !deegen.type_lattice must hold one node

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
