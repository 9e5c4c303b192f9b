; A module that says it is in phase `handlers` but has no handlers (an edited dump), and a
; malformed type lattice.
; RUN: cat %S/../../../registry/tests/fixtures/add_and_branch.ll %s \
; RUN:   | not deegen-opt --passes=inline-semantics - 2>&1 | FileCheck %s --check-prefix=NO-HANDLERS
; NO-HANDLERS: deegen-opt: pass 'inline-semantics': the module has no generated functions: run interp-create-handlers first

; RUN: sed 's/proves=number/proves=strings/' %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | not deegen-opt --passes=interp-create-handlers,inline-semantics - 2>&1 | FileCheck %s --check-prefix=LATTICE
; LATTICE: deegen-opt: pass 'inline-semantics': type lattice: unknown type 'strings'

!deegen.phase = !{!99}
!99 = !{!"handlers"}
