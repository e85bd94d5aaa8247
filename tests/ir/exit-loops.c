// Loops recorded at their exits (clang_pass/ExitRecorded.h, ABI 5): an
// innermost loop of one block that calls nothing and whose addresses are
// affine in it gets no iter call and no event call per iteration.  Where it
// is entered: its frame (commhint-rt.h) filled (desc, loop base, site base,
// done = made = 0, the starts: the addresses of iteration 0 computed
// before the loop), linked to __commhint_fast.loop (offset 1184) after a
// signal fence; an iteration counter (0 on entry, +1 each iteration) whose
// value each iteration stores into the frame (volatile); and in its exit
// block, before the exit record, __commhint_loop_affine(frame, trips).
// desc: loop 0 | 1 site << 32, then site 0 | 2 addresses << 32, then the
// steps 8, 8.  An indirect address (gather), a call in the body (call) or
// a trip count known to be small (three: at most 16) keep the calls per
// iteration; so does COMMHINT_EXIT_LOOPS=0 (or
// -commhint-exit-loops=false, which fast-path.ll uses).
// RUN: %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: COMMHINT_EXIT_LOOPS=0 %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.off.ll
// RUN: %FileCheck %s --check-prefix=OFF < %t.off.ll

// CHECK: @commhint.loop_desc = private unnamed_addr constant [4 x i64] [i64 4294967296, i64 8589934592, i64 8, i64 8], align 8
// CHECK-NOT: @commhint.loop_desc

// CHECK-LABEL: define {{.*}} @scale(
// CHECK: [[FRAME:%[0-9]+]] = alloca [7 x i64]
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
// CHECK-NEXT: [[X:%[0-9]+]] = ptrtoint ptr %1 to i64
// CHECK-NEXT: [[F40:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 40
// CHECK-NEXT: store i64 [[X]], ptr [[F40]]
// CHECK-NEXT: [[Y:%[0-9]+]] = ptrtoint ptr %0 to i64
// CHECK-NEXT: [[F48:%[0-9]+]] = getelementptr inbounds i8, ptr [[FRAME]], i64 48
// CHECK-NEXT: store i64 [[Y]], ptr [[F48]]
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
// CHECK-NOT: __commhint_loop_affine
// CHECK: call void @__commhint_loop_iter(
// CHECK: call void @__commhint_ev2(
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
