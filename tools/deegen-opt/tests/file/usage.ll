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

; The command line itself.
; RUN: not deegen-opt --passes=hot-cold-split --fast %s 2>&1 | FileCheck %s --check-prefix=OPTION
; OPTION: deegen-opt: unknown option '--fast'
; OPTION-NEXT: usage: deegen-opt
; RUN: not deegen-opt --passes=hot-cold-split %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS
; TWO-INPUTS: deegen-opt: more than one input file ('{{.*}}usage.ll')
; RUN: not deegen-opt --passes=hot-cold-split %s -o 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
; NO-OUTPUT: deegen-opt: -o needs a file name
; RUN: not deegen-opt %s --passes 2>&1 | FileCheck %s --check-prefix=NO-PIPELINE
; NO-PIPELINE: deegen-opt: --passes needs a pipeline
; RUN: not deegen-opt --list-passes=json 2>&1 | FileCheck %s --check-prefix=LIST
; LIST: deegen-opt: unknown --list-passes format 'json' (text or markdown)
; RUN: not deegen-opt --passes=hot-cold-split %s -o %t.missing/out.ll 2>&1 | FileCheck %s --check-prefix=WRITE
; WRITE: deegen-opt: cannot write '{{.*}}.missing/out.ll': No such file or directory
; RUN: printf 'BC\300\336 not bitcode' | not deegen-opt - 2>&1 | FileCheck %s --check-prefix=BITCODE
; BITCODE: deegen-opt: '<stdin>' is not valid LLVM bitcode:

; Pipelines: an unterminated parameter list, an empty pipeline, a nested pipeline given to a
; pass, and the fixpoint adaptor's own errors.
; RUN: not deegen-opt --passes='hot-cold-split<x' %s 2>&1 | FileCheck %s --check-prefix=UNCLOSED
; UNCLOSED:      deegen-opt: invalid pipeline 'hot-cold-split<x': expected ';' or '>' in parameter list at offset 16
; UNCLOSED-NEXT: {{^}}  hot-cold-split<x{{$}}
; UNCLOSED-NEXT: {{^}}                  ^{{$}}
; RUN: not deegen-opt --passes= %s 2>&1 | FileCheck %s --check-prefix=EMPTY
; EMPTY: deegen-opt: invalid pipeline '': expected a pass name, found end of pipeline at offset 0
; RUN: not deegen-opt --passes='hot-cold-split(tag-register-rewrite)' %s 2>&1 | FileCheck %s --check-prefix=NESTED
; NESTED: deegen-opt: pass 'hot-cold-split': 'hot-cold-split' is a pass, not an adaptor: it takes no nested pipeline
; RUN: not deegen-opt --passes=fixpoint %s 2>&1 | FileCheck %s --check-prefix=FIXPOINT
; FIXPOINT: deegen-opt: pass 'fixpoint': 'fixpoint' needs a nested pipeline: fixpoint(a,b)
; RUN: not deegen-opt --passes='fixpoint<max-iterations=x>(hot-cold-split)' %s 2>&1 | FileCheck %s --check-prefix=ITERATIONS
; ITERATIONS: deegen-opt: pass 'fixpoint': parameter 'max-iterations' expects an integer, got 'x'
; RUN: not deegen-opt --passes='fixpoint<rounds=2>(hot-cold-split)' %s 2>&1 | FileCheck %s --check-prefix=ROUNDS
; ROUNDS: deegen-opt: pass 'fixpoint': unknown parameter 'rounds' (expected one of: max-iterations)
; RUN: sed 's/"finalized"/"semantics"/' %s | not deegen-opt --passes='fixpoint(interp-create-handlers)' - 2>&1 | FileCheck %s --check-prefix=FIXPOINT-PHASE
; FIXPOINT-PHASE: deegen-opt: the nested pipeline of 'fixpoint' moves the IR from phase 'semantics' to 'handlers': a fixpoint must stay in one phase

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

; Invalid IR never reaches the code generator (which may crash on it): parsed, but not valid.
; RUN: printf 'define i32 @f(i32 %%%%x) {\n  %%%%y = add i32 %%%%z, 1\n  %%%%z = add i32 %%%%x, 1\n  ret i32 %%%%y\n}\n' \
; RUN:   | not deegen-opt --emit=asm - 2>&1 | FileCheck %s --check-prefix=INVALID-EMIT
; INVALID-EMIT: deegen-opt: code generation failed: the module is not valid IR: Instruction does not dominate all uses!
