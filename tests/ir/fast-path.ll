; The inline fast path (commhint-rt.h, ABI 2): before each call of
; __commhint_ev1..4 and __commhint_loop_*, the pass compares the record with
; __commhint_fast.slot[phase] (key = type | aux << 16 | id << 32, then each
; address) and, when it is the one the thread's run expects and `left` is not
; 0, absorbs it without a call: the expected addresses advance by their
; strides, the phase moves on (to 0 after `period`), and `left` drops by
; one, last.  Otherwise (ABI 4) the record goes to the thread's queue if
; qpos + 8 * (1 + addresses) <= qend: the addresses, the key, a signal fence,
; then qpos moves on; and only without room is the call made as before.  -commhint-inline=false (or COMMHINT_INLINE=0)
; leaves only the calls.  The loop here records each iteration
; (-commhint-exit-loops=false): exit-loops.ll tests the loops recorded at
; their exits.
; RUN: %opt -commhint-exit-loops=false -passes=commhint-instrument -S %s -o %t.ll
; RUN: %FileCheck %s < %t.ll
; RUN: %opt -commhint-exit-loops=false -commhint-inline=false -passes=commhint-instrument -S %s -o %t.off.ll
; RUN: %FileCheck %s --check-prefix=OFF < %t.off.ll
; RUN: COMMHINT_EXIT_LOOPS=0 COMMHINT_INLINE=0 %opt -passes=commhint-instrument -S %s -o %t.env.ll
; RUN: %FileCheck %s --check-prefix=OFF < %t.env.ll

; CHECK: @__commhint_fast = external thread_local(initialexec) global [1192 x i8], align 8

; CHECK-LABEL: define void @fill(
; CHECK: entry:
; CHECK: [[SB:%commhint.site_base]] = load i32, ptr @__commhint_site_base
; CHECK-NEXT: [[SBZ:%[0-9]+]] = zext i32 [[SB]] to i64
; CHECK-NEXT: [[SKEY:%[0-9]+]] = shl i64 [[SBZ]], 32
; CHECK: [[LB:%commhint.loop_base]] = load i32, ptr @__commhint_loop_base
; CHECK-NEXT: [[LBZ:%[0-9]+]] = zext i32 [[LB]] to i64
; CHECK-NEXT: [[LKEY:%[0-9]+]] = shl i64 [[LBZ]], 32
; loop_enter of loop 0: key LOOP(3) | ENTER(1) << 16 = 65539
; CHECK-NEXT: [[EKEY:%[0-9]+]] = add i64 [[LKEY]], 65539
; CHECK: call void @__commhint_loop_enter(i32 [[LB]])

; loop_iter: key LOOP(3) | ITER(2) << 16 = 131075
; CHECK: loop:
; CHECK: [[IKEY:%[0-9]+]] = add i64 [[LKEY]], 131075
; CHECK-NEXT: [[F1:%[0-9]+]] = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @__commhint_fast)
; CHECK-NEXT: [[PH1:%commhint.phase[0-9]*]] = load i32, ptr [[F1]], align 4
; CHECK-NEXT: [[LP1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 4
; CHECK-NEXT: [[LEFT1:%commhint.left[0-9]*]] = load i32, ptr [[LP1]], align 4
; CHECK-NEXT: [[PZ1:%[0-9]+]] = zext i32 [[PH1]] to i64
; CHECK-NEXT: [[PM1:%[0-9]+]] = mul i64 [[PZ1]], 72
; CHECK-NEXT: [[PO1:%[0-9]+]] = add i64 [[PM1]], 16
; CHECK-NEXT: [[SL1:%commhint.slot[0-9]*]] = getelementptr inbounds i8, ptr [[F1]], i64 [[PO1]]
; CHECK-NEXT: [[K1:%[0-9]+]] = load i64, ptr [[SL1]], align 8
; CHECK-NEXT: [[C1:%[0-9]+]] = icmp eq i64 [[K1]], [[IKEY]]
; CHECK-NEXT: [[NZ1:%[0-9]+]] = icmp ne i32 [[LEFT1]], 0
; CHECK-NEXT: [[OK1:%[0-9]+]] = and i1 [[C1]], [[NZ1]]
; CHECK-NEXT: br i1 [[OK1]], label %[[FAST1:[0-9]+]], label %[[SLOW1:[0-9]+]], !prof [[W:![0-9]+]]
; CHECK: [[FAST1]]:
; CHECK-NEXT: [[PRP1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 8
; CHECK-NEXT: [[PR1:%[0-9]+]] = load i32, ptr [[PRP1]], align 4
; CHECK-NEXT: [[INC1:%[0-9]+]] = add i32 [[PH1]], 1
; CHECK-NEXT: [[WR1:%[0-9]+]] = icmp eq i32 [[INC1]], [[PR1]]
; CHECK-NEXT: [[NP1:%[0-9]+]] = select i1 [[WR1]], i32 0, i32 [[INC1]]
; CHECK-NEXT: store i32 [[NP1]], ptr [[F1]], align 4
; CHECK-NEXT: [[DEC1:%[0-9]+]] = sub i32 [[LEFT1]], 1
; CHECK-NEXT: [[LQ1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 4
; CHECK-NEXT: store i32 [[DEC1]], ptr [[LQ1]], align 4
; CHECK-NEXT: br label %[[JOIN1:[0-9]+]]
; CHECK: [[SLOW1]]:
; CHECK-NEXT: [[QPP1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 1168
; CHECK-NEXT: [[QP1:%commhint.qpos[0-9]*]] = load i64, ptr [[QPP1]], align 8
; CHECK-NEXT: [[QEP1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 1176
; CHECK-NEXT: [[QE1:%commhint.qend[0-9]*]] = load i64, ptr [[QEP1]], align 8
; CHECK-NEXT: [[QN1:%[0-9]+]] = add i64 [[QP1]], 8
; CHECK-NEXT: [[ROOM1:%[0-9]+]] = icmp ule i64 [[QN1]], [[QE1]]
; CHECK-NEXT: br i1 [[ROOM1]], label %[[QUEUE1:[0-9]+]], label %[[CALL1:[0-9]+]], !prof [[W]]
; CHECK: [[QUEUE1]]:
; CHECK-NEXT: [[Q1:%commhint.queue[0-9]*]] = inttoptr i64 [[QP1]] to ptr
; CHECK-NEXT: store i64 [[IKEY]], ptr [[Q1]], align 8
; CHECK-NEXT: fence syncscope("singlethread") release
; CHECK-NEXT: [[QPQ1:%[0-9]+]] = getelementptr inbounds i8, ptr [[F1]], i64 1168
; CHECK-NEXT: store i64 [[QN1]], ptr [[QPQ1]], align 8
; CHECK-NEXT: br label %[[QJ1:[0-9]+]]
; CHECK: [[CALL1]]:
; CHECK-NEXT: call void @__commhint_loop_iter(i32 [[LB]])
; CHECK-NEXT: br label %[[QJ1]]
; CHECK: [[QJ1]]:
; CHECK-NEXT: br label %[[JOIN1]]

; the store to a[i]: site 0, COMP(1) | 1 address << 16 = 65537
; CHECK: store i32 7, ptr [[P:%p]], align 4
; CHECK-NEXT: [[CKEY:%[0-9]+]] = add i64 [[SKEY]], 65537
; CHECK: [[SL2:%commhint.slot[0-9]*]] = getelementptr inbounds i8, ptr {{%[0-9]+}}, i64 {{%[0-9]+}}
; CHECK-NEXT: [[K2:%[0-9]+]] = load i64, ptr [[SL2]], align 8
; CHECK-NEXT: [[C2:%[0-9]+]] = icmp eq i64 [[K2]], [[CKEY]]
; CHECK-NEXT: [[A2:%[0-9]+]] = ptrtoint ptr [[P]] to i64
; CHECK-NEXT: [[NA2:%[0-9]+]] = getelementptr inbounds i8, ptr [[SL2]], i64 8
; CHECK-NEXT: [[N2:%[0-9]+]] = load i64, ptr [[NA2]], align 8
; CHECK-NEXT: [[E2:%[0-9]+]] = icmp eq i64 [[N2]], [[A2]]
; CHECK-NEXT: [[AND2:%[0-9]+]] = and i1 [[C2]], [[E2]]
; CHECK-NEXT: [[NZ2:%[0-9]+]] = icmp ne i32 {{%commhint.left[0-9]*}}, 0
; CHECK-NEXT: [[OK2:%[0-9]+]] = and i1 [[AND2]], [[NZ2]]
; CHECK-NEXT: br i1 [[OK2]], label %[[FAST2:[0-9]+]], label %[[SLOW2:[0-9]+]], !prof [[W]]
; CHECK: [[FAST2]]:
; CHECK-NEXT: [[SA2:%[0-9]+]] = getelementptr inbounds i8, ptr [[SL2]], i64 40
; CHECK-NEXT: [[S2:%[0-9]+]] = load i64, ptr [[SA2]], align 8
; CHECK-NEXT: [[ADV2:%[0-9]+]] = add i64 [[A2]], [[S2]]
; CHECK-NEXT: [[NB2:%[0-9]+]] = getelementptr inbounds i8, ptr [[SL2]], i64 8
; CHECK-NEXT: store i64 [[ADV2]], ptr [[NB2]], align 8
; CHECK: [[SLOW2]]:
; CHECK: [[QN2:%[0-9]+]] = add i64 {{%commhint.qpos[0-9]*}}, 16
; CHECK: [[Q2:%commhint.queue[0-9]*]] = inttoptr i64 {{%commhint.qpos[0-9]*}} to ptr
; the address first, at qpos + 8, then the key
; CHECK-NEXT: [[QA2:%[0-9]+]] = getelementptr inbounds i8, ptr [[Q2]], i64 8
; CHECK-NEXT: store i64 [[A2]], ptr [[QA2]], align 8
; CHECK-NEXT: store i64 [[CKEY]], ptr [[Q2]], align 8
; CHECK-NEXT: fence syncscope("singlethread") release
; CHECK: store i64 [[QN2]], ptr {{%[0-9]+}}, align 8
; CHECK: call void @__commhint_ev1(i32 [[SB]], ptr [[P]])

; loop_exit: key LOOP(3) | EXIT(3) << 16 = 196611
; CHECK: add i64 [[LKEY]], 196611
; CHECK: call void @__commhint_loop_exit(i32 [[LB]])
; CHECK: [[W]] = !{!"branch_weights", i32 1000, i32 1}

; OFF-NOT: __commhint_fast
; OFF: call void @__commhint_loop_enter(
; OFF: call void @__commhint_loop_iter(
; OFF: call void @__commhint_ev1(
; OFF: call void @__commhint_loop_exit(
; OFF-NOT: __commhint_fast

target triple = "x86_64-unknown-linux-gnu"

define void @fill(ptr %a, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 7, ptr %p, align 4
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}
