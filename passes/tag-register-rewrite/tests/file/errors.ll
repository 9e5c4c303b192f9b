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

define ghccc void @odd(ptr %ctx) {
  ret void
}

!deegen.phase = !{!0}
!0 = !{!"finalized"}
!deegen.tag_registers = !{!1}
!1 = !{!"tag1=oops"}
