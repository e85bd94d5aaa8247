; Loop structure: the pass first simplifies loops (preheader, dedicated
; exits), then puts __commhint_loop_enter at the end of the preheader,
; __commhint_loop_iter at the top of the header and, in each exit block, one
; __commhint_loop_exit naming the OUTERMOST loop the exit leaves.  Here the
; `return` from inside the inner loop (block %found) leaves both loops, so it
; names the outer loop 0; the inner loop's normal exit names loop 1.  The
; exit block %done is shared with the path from %found, so the pass splits
; off a dedicated exit for the outer loop.  Every loop here records each
; iteration (-commhint-exit-loops=false; exit-loops.c tests the others).
; RUN: COMMHINT_PRINT_SITES=1 %opt -commhint-inline=false -commhint-exit-loops=false -passes=commhint-instrument -S %s -o %t.ll 2> %t.sites
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=SITES < %t.sites

; SITES: commhint: loop 0 loc={{.*}} func=find depth=1 parent=none
; SITES-NEXT: commhint: loop 1 loc={{.*}} func=find depth=2 parent=0
; SITES-NEXT: commhint: site 0 kind=comp {{.*}} func=find op=none loop=1 flags=none access=r4
; SITES-NOT: site 1

; CHECK-LABEL: define i32 @find(
; CHECK: entry:
; CHECK: [[LB:%[^ ,)]+]] = load i32, ptr @__commhint_loop_base
; CHECK: call void @__commhint_loop_enter(i32 [[LB]])
; CHECK-NEXT: br label %outer

; CHECK: outer:
; CHECK-NEXT: %i = phi
; CHECK-NEXT: call void @__commhint_loop_iter(i32 [[LB]])
; CHECK-NEXT: [[L1:%[0-9]+]] = add i32 [[LB]], 1
; CHECK-NEXT: call void @__commhint_loop_enter(i32 [[L1]])
; CHECK-NEXT: br label %inner

; CHECK: inner:
; CHECK-NEXT: %j = phi
; CHECK-NEXT: [[L1B:%[0-9]+]] = add i32 [[LB]], 1
; CHECK-NEXT: call void @__commhint_loop_iter(i32 [[L1B]])
; CHECK: %v = load i32, ptr %p
; CHECK-NEXT: call void @__commhint_ev1(
; CHECK: br i1 %eq, label %found, label %inner.latch

; CHECK: inner.latch:
; CHECK-NOT: __commhint_loop
; CHECK: br i1 %jc, label %inner, label %outer.latch

; CHECK: outer.latch:
; CHECK-NEXT: [[L1C:%[0-9]+]] = add i32 [[LB]], 1
; CHECK-NEXT: call void @__commhint_loop_exit(i32 [[L1C]])
; CHECK-NOT: __commhint_loop
; CHECK: br i1 %ic, label %outer, label %[[DEDICATED:[^ ,]+]]

; CHECK: found:
; CHECK-NEXT: call void @__commhint_loop_exit(i32 [[LB]])
; CHECK-NEXT: br label %done

; CHECK: [[DEDICATED]]:
; CHECK-NEXT: call void @__commhint_loop_exit(i32 [[LB]])
; CHECK-NEXT: br label %done

; CHECK: done:
; CHECK-NOT: __commhint
; CHECK: ret i32

define i32 @find(ptr %m, i32 %key) {
entry:
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner

inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner.latch ]
  %i4 = mul i32 %i, 4
  %idx = add i32 %i4, %j
  %p = getelementptr inbounds i32, ptr %m, i32 %idx
  %v = load i32, ptr %p
  %eq = icmp eq i32 %v, %key
  br i1 %eq, label %found, label %inner.latch

inner.latch:
  %j.next = add i32 %j, 1
  %jc = icmp slt i32 %j.next, 4
  br i1 %jc, label %inner, label %outer.latch

outer.latch:
  %i.next = add i32 %i, 1
  %ic = icmp slt i32 %i.next, 3
  br i1 %ic, label %outer, label %done

found:
  br label %done

done:
  %r = phi i32 [ %idx, %found ], [ -1, %outer.latch ]
  ret i32 %r
}

; A loop without a preheader (its header has two predecessors outside the
; loop) gets one, and enter goes there, not in the predecessors.
; CHECK-LABEL: define void @no_preheader(
; CHECK: a:
; CHECK-NOT: __commhint_loop
; CHECK: br label %[[PH:[^ ,]+]]
; CHECK: b:
; CHECK-NOT: __commhint_loop
; CHECK: br label %[[PH]]
; CHECK: [[PH]]:
; CHECK: call void @__commhint_loop_enter(
; CHECK-NEXT: br label %loop
define void @no_preheader(i1 %c, i32 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %loop
b:
  br label %loop
loop:
  %i = phi i32 [ 0, %a ], [ 1, %b ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %lc = icmp slt i32 %i.next, %n
  br i1 %lc, label %loop, label %exit
exit:
  ret void
}
