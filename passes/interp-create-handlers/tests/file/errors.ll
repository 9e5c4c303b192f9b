; Every error interp-create-handlers reports on a semantics module it cannot turn into an
; interpreter. Each RUN line edits the pipeline's fixture with sed.
; RUN: sed '/^!deegen.variants/d' %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=NO-VARIANTS
; NO-VARIANTS: deegen-opt: pass 'interp-create-handlers': the module carries no !deegen.variants: nothing to generate

; RUN: sed 's/define i64 @deegen_hook_nil()/define i64 @not_the_nil_hook()/' %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=NO-HOOK
; NO-HOOK: deegen-opt: pass 'interp-create-handlers': the semantics do not define the hook 'deegen_hook_nil'

; RUN: sed 's/semantics=add /semantics=subtract /' %S/../../../registry/tests/fixtures/add_and_branch.ll \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=NO-SEMANTICS
; NO-SEMANTICS: deegen-opt: pass 'interp-create-handlers': variant Add_SS: semantic function 'subtract' is not defined in the module

; A dump whose phase was edited away, given to the pass a second time.
; RUN: deegen-opt --passes=interp-create-handlers %S/../../../registry/tests/fixtures/add_and_branch.ll | grep -v '^!deegen.phase' \
; RUN:   | not deegen-opt --passes=interp-create-handlers - 2>&1 | FileCheck %s --check-prefix=TWICE
; TWICE: deegen-opt: pass 'interp-create-handlers': the module already has interpreter handlers

; The same, with the phase intact: the manager refuses the order before the pass runs.
; RUN: not deegen-opt --passes=interp-create-handlers,interp-create-handlers %S/../../../registry/tests/fixtures/add_and_branch.ll 2>&1 \
; RUN:   | FileCheck %s --check-prefix=ORDER
; ORDER: deegen-opt: pass 'interp-create-handlers' runs on llvm IR in phase 'semantics', but at this point of the pipeline the IR is in phase 'handlers'; it must run before 'interp-create-handlers'
