; A bound that leaves NaN patterns to doubles cannot be NaN-boxing; malformed parameters and
; metadata are errors too.
; RUN: not deegen-opt --passes='nan-check-fusion<doubles-below=0x10>' %s 2>&1 | FileCheck %s --check-prefix=BOUND
; BOUND: deegen-opt: pass 'nan-check-fusion': doubles-below=0x10 leaves non-NaN patterns to non-doubles (it must be at least 0xfff0000000000001)
; RUN: not deegen-opt --passes='nan-check-fusion<doubles-below=lots>' %s 2>&1 | FileCheck %s --check-prefix=PARAM
; PARAM: deegen-opt: pass 'nan-check-fusion': parameter 'doubles-below' expects an integer (decimal or 0x hex), got 'lots'
; RUN: not deegen-opt --passes=nan-check-fusion %s 2>&1 | FileCheck %s --check-prefix=META
; META: deegen-opt: pass 'nan-check-fusion': !deegen.nan_boxing: 'many' is not an integer
; RUN: sed 's/^!1 = .*/!1 = !{!"bound=5"}/' %s | not deegen-opt --passes=nan-check-fusion - 2>&1 | FileCheck %s --check-prefix=KEY
; KEY: deegen-opt: pass 'nan-check-fusion': !deegen.nan_boxing: 'bound=5' is not doubles_below=<u64>
; RUN: sed 's/^!1 = .*/!1 = !{i64 5}/' %s | not deegen-opt --passes=nan-check-fusion - 2>&1 | FileCheck %s --check-prefix=STRING
; STRING: deegen-opt: pass 'nan-check-fusion': !deegen.nan_boxing holds a non-string
; RUN: sed 's/^!deegen.nan_boxing = .*/!deegen.nan_boxing = !{!1, !1}/' %s | not deegen-opt --passes=nan-check-fusion - 2>&1 | FileCheck %s --check-prefix=NODES
; NODES: deegen-opt: pass 'nan-check-fusion': !deegen.nan_boxing must hold one node

!deegen.phase = !{!0}
!0 = !{!"finalized"}
!deegen.nan_boxing = !{!1}
!1 = !{!"doubles_below=many"}
