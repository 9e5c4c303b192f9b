; A type lattice that does not parse.
; RUN: not deegen-opt --passes=call-ic-check-hoisting %s 2>&1 | FileCheck %s
; CHECK: deegen-opt: pass 'call-ic-check-hoisting': type lattice: unknown type 'closure'

!deegen.type_lattice = !{!0}
!0 = !{!"types function other", !"callable function", !"checker is_function proves=closure cost=1"}
!deegen.phase = !{!1}
!1 = !{!"handlers"}
