; A bound that leaves NaN patterns to doubles cannot be NaN-boxing; malformed parameters and
; metadata are errors too.
; RUN: not deegen-opt --passes='nan-check-fusion<doubles-below=0x10>' %s 2>&1 | FileCheck %s --check-prefix=BOUND
; BOUND: deegen-opt: pass 'nan-check-fusion': doubles-below=0x10 leaves non-NaN patterns to non-doubles (it must be at least 0xfff0000000000001)
; RUN: not deegen-opt --passes='nan-check-fusion<doubles-below=lots>' %s 2>&1 | FileCheck %s --check-prefix=PARAM
; PARAM: deegen-opt: pass 'nan-check-fusion': parameter 'doubles-below' expects an integer (decimal or 0x hex), got 'lots'
; RUN: not deegen-opt --passes=nan-check-fusion %s 2>&1 | FileCheck %s --check-prefix=META
; META: deegen-opt: pass 'nan-check-fusion': !deegen.nan_boxing: 'many' is not an integer

!deegen.phase = !{!0}
!0 = !{!"finalized"}
!deegen.nan_boxing = !{!1}
!1 = !{!"doubles_below=many"}
