; deegen-opt's own errors: one line on stderr, exit status 1, nothing run.
; RUN: not deegen-opt --passes=inline-semantics,inline-semantix %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; UNKNOWN: deegen-opt: unknown pass 'inline-semantix' in pipeline 'inline-semantics,inline-semantix' (did you mean 'inline-semantics'?); `--list-passes` lists the llvm passes
; RUN: not deegen-opt --passes='hot-cold-split,,x' %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
; SYNTAX: deegen-opt: invalid pipeline 'hot-cold-split,,x': expected a pass name, found ',' at offset 15
; RUN: not deegen-opt --passes='hot-cold-split<fast>' %s 2>&1 | FileCheck %s --check-prefix=PARAM
; PARAM: deegen-opt: pass 'hot-cold-split': unknown parameter 'fast' (it takes none)
; RUN: not deegen-opt --passes=hot-cold-split %S/does-not-exist.ll 2>&1 | FileCheck %s --check-prefix=MISSING
; MISSING: deegen-opt: cannot read '{{.*}}does-not-exist.ll': No such file or directory
; RUN: echo 'define void @f( {' | not deegen-opt --passes=hot-cold-split - 2>&1 | FileCheck %s --check-prefix=MALFORMED
; MALFORMED: deegen-opt: '<stdin>' is not valid LLVM IR:
; RUN: not deegen-opt --passes=hot-cold-split --opt-bisect-limit=many %s 2>&1 | FileCheck %s --check-prefix=BADLIMIT
; BADLIMIT: deegen-opt: --opt-bisect-limit expects a number of passes (or -1), got 'many'
; RUN: not deegen-opt --emit=exe %s 2>&1 | FileCheck %s --check-prefix=EMIT
; EMIT: deegen-opt: unknown --emit kind 'exe' (ll, bc, asm or obj)
; RUN: not deegen-opt --passes=hot-cold-split 2>&1 | FileCheck %s --check-prefix=NOINPUT
; NOINPUT: deegen-opt: no input file
; RUN: sed 's/"finalized"/"optimized"/' %s | not deegen-opt --passes=hot-cold-split - 2>&1 | FileCheck %s --check-prefix=PHASE
; PHASE: deegen-opt: cannot read the input's phase: !deegen.phase names 'optimized', which is not a phase (known: semantics, handlers, lowered, finalized)

; --opt-bisect-limit skips the optimisations after the first N, and says so as LLVM does.
; RUN: deegen-opt --passes=nan-check-fusion,hot-cold-split,tag-register-rewrite --opt-bisect-limit=1 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG
; LOG: BISECT: running pass (1) nan-check-fusion
; LOG-NEXT: BISECT: NOT running pass (2) hot-cold-split
; LOG-NEXT: BISECT: NOT running pass (3) tag-register-rewrite

; --list-passes=markdown prints the table passes/README.md carries.
; RUN: deegen-opt --list-passes=markdown | FileCheck %s --check-prefix=TABLE
; TABLE: | pass | runs in | produces | kind | what it does |
; TABLE: | [`interp-create-handlers`](interp-create-handlers/README.md) | `semantics` | `handlers` | required |

!deegen.phase = !{!0}
!0 = !{!"finalized"}
