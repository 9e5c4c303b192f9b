; Equal tags, half the tags, a bad number, a GHC function without the tag parameter, and
; malformed metadata.
; RUN: not deegen-opt --passes='tag-register-rewrite<tag1=5;tag2=5>' %s 2>&1 | FileCheck %s --check-prefix=EQUAL
; EQUAL: deegen-opt: pass 'tag-register-rewrite': tag1 and tag2 are both 0x5
; RUN: not deegen-opt --passes='tag-register-rewrite<tag1=5>' %s 2>&1 | FileCheck %s --check-prefix=HALF
; HALF: deegen-opt: pass 'tag-register-rewrite': give both tag1 and tag2, or neither
; RUN: not deegen-opt --passes='tag-register-rewrite<tag1=x;tag2=6>' %s 2>&1 | FileCheck %s --check-prefix=NUMBER
; NUMBER: deegen-opt: pass 'tag-register-rewrite': parameter 'tag1' expects an integer (decimal or 0x hex), got 'x'
; RUN: not deegen-opt --passes='tag-register-rewrite<tag1=5;tag2=6>' %s 2>&1 | FileCheck %s --check-prefix=SIGNATURE
; SIGNATURE: deegen-opt: pass 'tag-register-rewrite': odd: GHC-convention function without the i64 tag parameter 4
; RUN: not deegen-opt --passes=tag-register-rewrite %s 2>&1 | FileCheck %s --check-prefix=META
; META: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers: 'oops' is not an integer
; RUN: sed 's/^!1 = .*/!1 = !{!"tag1"}/' %s | not deegen-opt --passes=tag-register-rewrite - 2>&1 | FileCheck %s --check-prefix=KEY-VALUE
; KEY-VALUE: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers: 'tag1' is not key=value
; RUN: sed 's/^!1 = .*/!1 = !{!"tag3=1"}/' %s | not deegen-opt --passes=tag-register-rewrite - 2>&1 | FileCheck %s --check-prefix=KEY
; KEY: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers: unknown key 'tag3'
; RUN: sed 's/^!1 = .*/!1 = !{!"tag1=1"}/' %s | not deegen-opt --passes=tag-register-rewrite - 2>&1 | FileCheck %s --check-prefix=BOTH
; BOTH: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers must give tag1 and tag2
; RUN: sed 's/^!1 = .*/!1 = !{i64 1}/' %s | not deegen-opt --passes=tag-register-rewrite - 2>&1 | FileCheck %s --check-prefix=STRING
; STRING: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers holds a non-string
; RUN: sed 's/^!deegen.tag_registers = .*/!deegen.tag_registers = !{!1, !1}/' %s | not deegen-opt --passes=tag-register-rewrite - 2>&1 | FileCheck %s --check-prefix=NODES
; NODES: deegen-opt: pass 'tag-register-rewrite': !deegen.tag_registers must hold one node

; The registers hold the tags only because nothing writes anything else into them: a handler
; must pass its own tag parameters on, and the entry thunks (C convention) must have tag
; arguments to set.
; RUN: sed 's/^; through: //' %s | not deegen-opt --passes='tag-register-rewrite<tag1=5;tag2=6>' - 2>&1 | FileCheck %s --check-prefix=THROUGH
; THROUGH: deegen-opt: pass 'tag-register-rewrite': passes_seven: a call into the interpreter does not pass tag parameter 9 through
; RUN: sed 's/^; enter: //' %s | not deegen-opt --passes='tag-register-rewrite<tag1=5;tag2=6>' - 2>&1 | FileCheck %s --check-prefix=ENTER
; ENTER: deegen-opt: pass 'tag-register-rewrite': __deegen_interp_enter: a call into the interpreter has no tag argument 4

; through: define ghccc void @passes_seven(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %tag2) { musttail call ghccc void @passes_seven(ptr %ctx, ptr %base, ptr %pc, ptr %cb, i64 %tag1, i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 7)  ret void }
; enter: declare ghccc void @short(ptr)  define void @__deegen_interp_enter(ptr %ctx) { call ghccc void @short(ptr %ctx)  ret void }
define ghccc void @odd(ptr %ctx) {
  ret void
}

!deegen.phase = !{!0}
!0 = !{!"finalized"}
!deegen.tag_registers = !{!1}
!1 = !{!"tag1=oops"}
