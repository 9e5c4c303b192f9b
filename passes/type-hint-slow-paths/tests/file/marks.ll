; The edge a hinted operand's types do not take is marked cold (!deegen.cold_edge holds the
; successor's index); a branch on an unhinted value, or one whose answer the hint does not
; decide, is left alone. Input: the pass's fixture (%a hinted a number, %b not).
; RUN: deegen-opt --passes=type-hint-slow-paths %S/../fixtures/hints.ll | FileCheck %s

; CHECK-LABEL: define void @checks(
; CHECK: br i1 %ca, label %unhinted, label %slow, !deegen.cold_edge ![[SECOND:[0-9]+]]
; CHECK: br i1 %cb, label %negated, label %slow{{$}}
; CHECK: br i1 %n, label %slow, label %conjunction, !deegen.cold_edge ![[FIRST:[0-9]+]]
; CHECK: br i1 %both, label %slow, label %disjunction, !deegen.cold_edge ![[FIRST]]
; CHECK: br i1 %either, label %slow, label %done{{$}}
; CHECK-DAG: ![[SECOND]] = !{i32 1}
; CHECK-DAG: ![[FIRST]] = !{i32 0}
