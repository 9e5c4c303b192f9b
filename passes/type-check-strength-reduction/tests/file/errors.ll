; A lattice naming a checker's type that is not declared, and a `!deegen.known_types` tag
; with a type the lattice does not have.
; RUN: sed 's/proves=number cost=1/proves=numbers cost=1/' %s | not deegen-opt --passes=type-check-strength-reduction - 2>&1 \
; RUN:   | FileCheck %s --check-prefix=LATTICE
; LATTICE: deegen-opt: pass 'type-check-strength-reduction': type lattice: unknown type 'numbers'

; RUN: not deegen-opt --passes=type-check-strength-reduction %s 2>&1 | FileCheck %s --check-prefix=KNOWN
; KNOWN: deegen-opt: pass 'type-check-strength-reduction': !deegen.known_types: type lattice: unknown type 'strings'

declare zeroext i1 @is_number(i64)

define i1 @f(ptr %p) {
  %v = load i64, ptr %p, !deegen.known_types !2
  %c = call i1 @is_number(i64 %v)
  ret i1 %c
}

!deegen.type_lattice = !{!0}
!0 = !{!"types number other", !"checker is_number proves=number cost=1"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
!2 = !{!"strings"}
