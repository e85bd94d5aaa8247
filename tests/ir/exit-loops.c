// Loops recorded at their exits (clang_pass/ExitRecorded.h, ABI 6): an
// innermost loop of one block that calls nothing gets no iter call and no
// event call per iteration.  Where it is entered: its frame (commhint-rt.h)
// filled (desc, loop base, site base, done = made = 0, the irregular
// buffer or null, the starts: the affine addresses of iteration 0 computed
// before the loop, 0 for an irregular one), linked to __commhint_fast.loop
// (offset 1184) after a signal fence; an iteration counter (0 on entry, +1
// each iteration) whose value each iteration stores into the frame
// (volatile); and in its exit block, before the exit record,
// __commhint_loop_affine(frame, trips).  desc: loop 0 | 1 site << 32, then
// site 0 | 2 addresses << 32, then the steps 8, 8.  An indirect address
// (gather: x[idx[i]]) has the step INT64_MIN; each iteration stores it
// (volatile) into the buffer (128 iterations of one address) at its
// counter modulo 128, before the iterations done, and calls
// __commhint_loop_flush(frame) when it filled the buffer's last slot.  A
// call in the body (call) or a trip count known to be small (three: at
// most 16) keep the calls per iteration; so does COMMHINT_EXIT_LOOPS=0 (or
// -commhint-exit-loops=false, which fast-path.ll uses).
// RUN: %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: COMMHINT_EXIT_LOOPS=0 %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.off.ll
// RUN: %FileCheck %s --check-prefix=OFF < %t.off.ll

// CHECK: @commhint.loop_desc = private unnamed_addr constant [4 x i64] [i64 4294967296, i64 8589934592, i64 8, i64 8], align 8
// CHECK-NEXT: @commhint.loop_desc.1 = private unnamed_addr constant [4 x i64] [i64 4294967297, i64 8589934593, i64 4, i64 -9223372036854775808], align 8
// CHECK-NOT: @commhint.loop_desc

// CHECK-LABEL: define {{.*}} @scale(
// CHECK: [[FRAME:%[0-9]+]] = alloca [8 x i64]
// CHECK: [[SB:%[0-9]+]] = load i32, ptr @__commhint_site_base
// CHECK: [[LB:%[0-9]+]] = load i32, ptr @__commhint_loop_base
// CHECK: call void @__commhint_loop_enter(i32 [[LB]])
// CHECK: [[F0:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 0
// CHECK-NEXT: store ptr @commhint.loop_desc, ptr [[F0]]
// CHECK-NEXT: [[F8:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 8
// CHECK-NEXT: store i32 [[LB]], ptr [[F8]]
// CHECK-NEXT: [[F12:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 12
// CHECK-NEXT: store i32 [[SB]], ptr [[F12]]
// CHECK-NEXT: [[F16:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 16
// CHECK-NEXT: store i64 0, ptr [[F16]]
// CHECK-NEXT: [[F24:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 24
// CHECK-NEXT: store i64 0, ptr [[F24]]
// CHECK-NEXT: [[F40:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 40
// CHECK-NEXT: store ptr null, ptr [[F40]]
// CHECK-NEXT: [[X:%[0-9]+]] = ptrtoint ptr %1 to i64
// CHECK-NEXT: [[F48:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 48
// CHECK-NEXT: store i64 [[X]], ptr [[F48]]
// CHECK-NEXT: [[Y:%[0-9]+]] = ptrtoint ptr %0 to i64
// CHECK-NEXT: [[F56:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 56
// CHECK-NEXT: store i64 [[Y]], ptr [[F56]]
// CHECK-NEXT: [[FAST:%[0-9]+]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@__commhint_fast)
// CHECK-NEXT: [[LINK:%[0-9]+]] = getelementptr inbounds i8, ptr [[FAST]], i64 1184
// CHECK-NEXT: [[PREV:%[0-9]+]] = load ptr, ptr [[LINK]]
// CHECK-NEXT: [[F32:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 32
// CHECK-NEXT: store ptr [[PREV]], ptr [[F32]]
// CHECK-NEXT: fence syncscope("singlethread") release
// CHECK-NEXT: store ptr [[FRAME]], ptr [[LINK]]
// CHECK: call void @__commhint_loop_affine(ptr [[FRAME]], i64 [[TRIPS:%[0-9]+]])
// CHECK: call void @__commhint_loop_exit(i32 [[LB]])
// CHECK: [[ITER:%[0-9]+]] = phi i64 [ 0, %{{[0-9]+}} ], [ [[TRIPS]], %[[HEAD:[0-9]+]] ]
// CHECK-NOT: call void @__commhint
// CHECK: [[TRIPS]] = add nuw i64 [[ITER]], 1
// CHECK-NEXT: [[DONE:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 16
// CHECK-NEXT: store volatile i64 [[TRIPS]], ptr [[DONE]]
// CHECK-NEXT: br i1 {{.*}}, label %{{[0-9]+}}, label %[[HEAD]]
// CHECK-NEXT: }
// OFF-NOT: __commhint_loop_affine
// OFF-LABEL: define {{.*}} @scale(
// OFF: call void @__commhint_loop_iter(
// OFF: call void @__commhint_ev2(
void scale(double *restrict y, const double *restrict x, long n) {
  for (long i = 0; i < n; i++)
    y[i] = 2.0 * x[i];
}

// CHECK-LABEL: define {{.*}} @gather(
// CHECK: [[GF:%[0-9]+]] = alloca [8 x i64]
// CHECK-NEXT: [[BUF:%[0-9]+]] = alloca [128 x i64]
// CHECK-NOT: call void @__commhint_loop_iter(
// CHECK-NOT: call void @__commhint_ev
// CHECK: store ptr @commhint.loop_desc.1, ptr
// CHECK: [[G40:%[0-9]+]] = getelementptr inbounds i8, ptr [[GF]], i64 40
// CHECK-NEXT: store ptr [[BUF]], ptr [[G40]]
// CHECK: [[G56:%[0-9]+]] = getelementptr inbounds i8, ptr [[GF]], i64 56
// CHECK-NEXT: store i64 0, ptr [[G56]]
// CHECK: call void @__commhint_loop_affine(ptr [[GF]], i64 [[GTRIPS:%[0-9]+]])
// CHECK: [[GITER:%[0-9]+]] = phi i64 [ 0, %{{[0-9]+}} ], [ [[GTRIPS]], %{{[0-9]+}} ]
// CHECK: [[XP:%[0-9]+]] = getelementptr inbounds double, ptr %0, i64 %{{[0-9]+}}
// CHECK: [[GTRIPS]] = add nuw i64 [[GITER]], 1
// CHECK-NEXT: [[SLOT:%[0-9]+]] = and i64 [[GITER]], 127
// CHECK: [[AT:%[0-9]+]] = getelementptr inbounds i64, ptr [[BUF]], i64 %{{[0-9]+}}
// CHECK-NEXT: [[XI:%[0-9]+]] = ptrtoint ptr [[XP]] to i64
// CHECK-NEXT: store volatile i64 [[XI]], ptr [[AT]]
// CHECK-NEXT: [[GDONE:%[0-9]+]] = getelementptr inbounds i8, ptr [[GF]], i64 16
// CHECK-NEXT: store volatile i64 [[GTRIPS]], ptr [[GDONE]]
// CHECK-NEXT: [[FULL:%[0-9]+]] = icmp eq i64 [[SLOT]], 127
// CHECK-NEXT: br i1 [[FULL]], label %[[FLUSH:[0-9]+]], label %{{[0-9]+}}
// CHECK: [[FLUSH]]:
// CHECK-NEXT: call void @__commhint_loop_flush(ptr [[GF]])
// CHECK-LABEL: define {{.*}} @call(
double gather(const double *x, const int *idx, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += x[idx[i]];
  return s;
}

// CHECK-NOT: __commhint_loop_affine
// CHECK: call void @__commhint_loop_iter(
// CHECK: call void @__commhint_ev1(
// CHECK-LABEL: define {{.*}} @three(
// CHECK-NOT: __commhint_loop_affine
// CHECK: call void @__commhint_loop_iter(
// CHECK: call void @__commhint_ev3(
// CHECK-LABEL: define internal void @commhint.module_ctor()
double ext(double);
void call(double *a, long n) {
  for (long i = 0; i < n; i++)
    a[i] = ext(a[i]);
}

void three(double *restrict a, const double *restrict b) {
  for (int m = 0; m < 3; m++)
    a[m] += b[m];
}
