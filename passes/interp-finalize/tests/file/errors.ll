; interp-finalize refuses a module whose handlers still call API markers (lowering skipped:
; the phase was edited to `lowered` here) or whose checkers are not inlined, and one with no
; interpreter at all.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,type-check-strength-reduction %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | sed 's/^!\([0-9]*\) = !{!"handlers"}/!\1 = !{!"lowered"}/' | not deegen-opt --passes=interp-finalize - 2>&1 | FileCheck %s --check-prefix=MARKERS
; MARKERS: deegen-opt: pass 'interp-finalize': API markers were not lowered or checkers not inlined:
; MARKERS: __deegen_interp_op_Add_SS calls __deegen_api_return
; RUN: sed 's/attributes #2 = { inlinehint nounwind }/attributes #2 = { noinline nounwind }/' %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | deegen-opt --passes=interp-create-handlers,inline-semantics,lower-interp-api - \
; RUN:   | not deegen-opt --passes=interp-finalize - 2>&1 | FileCheck %s --check-prefix=CHECKERS
; CHECKERS: type checker is_double is not inlined (run type-check-strength-reduction after inline-semantics)
; RUN: not deegen-opt --passes=interp-finalize %s 2>&1 | FileCheck %s --check-prefix=EMPTY
; EMPTY: deegen-opt: pass 'interp-finalize': the module has no interpreter or stencils: run interp-create-handlers or baseline-create-stencils first
; A type lattice that does not parse (the pass reads it to find checkers left uninlined).
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,type-check-strength-reduction,lower-interp-api %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | sed 's/proves=number cost=1/proves=numbers cost=1/' | not deegen-opt --passes=interp-finalize - 2>&1 | FileCheck %s --check-prefix=LATTICE
; LATTICE: deegen-opt: pass 'interp-finalize': type lattice: unknown type 'numbers'

!deegen.phase = !{!0}
!0 = !{!"lowered"}

; With --verify-each the same edited dump is caught on input, by the `lowered` phase's invariant.
; RUN: deegen-opt --passes=interp-create-handlers,inline-semantics,type-check-strength-reduction %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | sed 's/^!\([0-9]*\) = !{!"handlers"}/!\1 = !{!"lowered"}/' | not deegen-opt --verify-each --passes=interp-finalize - 2>&1 | FileCheck %s --check-prefix=VERIFY
; VERIFY: deegen-opt: the input IR is invalid:
; VERIFY: phase 'lowered': __deegen_interp_op_Add_SS still calls the API marker __deegen_api_return
