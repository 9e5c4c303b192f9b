; A GHC-convention function without the handler signature cannot be split.
; RUN: not deegen-opt --passes=hot-cold-split %s 2>&1 | FileCheck %s
; CHECK: deegen-opt: pass 'hot-cold-split': odd: a GHC-convention function without the handler signature

define ghccc void @odd(ptr %ctx) {
  ret void
}

!deegen.phase = !{!0}
!0 = !{!"finalized"}
