// Loops recorded at their exits (clang_pass/ExitRecorded.h, ABI 5): an
// innermost loop of one block that calls nothing and whose addresses are
// affine in it gets no iter call and no event call per iteration; an
// iteration counter (0 in the preheader, +1 each iteration) and, in its exit
// block before the exit record, the starts (the addresses of iteration 0,
// computed before the loop) in an array and one call of
// __commhint_loop_affine(desc, loop base, site base, trips, starts).  desc:
// loop 0 | 1 site << 32, then site 0 | 2 addresses << 32, then the steps 8, 8.
// An indirect address (gather) or a call in the body (call) keep the calls
// per iteration; so does COMMHINT_EXIT_LOOPS=0 (or -commhint-exit-loops=false,
// which fast-path.ll uses).
// RUN: %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: COMMHINT_EXIT_LOOPS=0 %clang -g -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o %t.off.ll
// RUN: %FileCheck %s --check-prefix=OFF < %t.off.ll

// CHECK: @commhint.loop_desc = private unnamed_addr constant [4 x i64] [i64 4294967296, i64 8589934592, i64 8, i64 8], align 8
// CHECK-NOT: @commhint.loop_desc

// CHECK-LABEL: define {{.*}} @scale(
// CHECK: [[STARTS:%[0-9]+]] = alloca [2 x i64]
// CHECK: [[SB:%[0-9]+]] = load i32, ptr @__commhint_site_base
// CHECK: [[LB:%[0-9]+]] = load i32, ptr @__commhint_loop_base
// CHECK: call void @__commhint_loop_enter(i32 [[LB]])
// CHECK: [[X:%[0-9]+]] = ptrtoint ptr %1 to i64
// CHECK-NEXT: [[P0:%[0-9]+]] = getelementptr inbounds [2 x i64], ptr [[STARTS]], i32 0, i32 0
// CHECK-NEXT: store i64 [[X]], ptr [[P0]]
// CHECK-NEXT: [[Y:%[0-9]+]] = ptrtoint ptr %0 to i64
// CHECK-NEXT: [[P1:%[0-9]+]] = getelementptr inbounds [2 x i64], ptr [[STARTS]], i32 0, i32 1
// CHECK-NEXT: store i64 [[Y]], ptr [[P1]]
// CHECK-NEXT: call void @__commhint_loop_affine(ptr @commhint.loop_desc, i32 [[LB]], i32 [[SB]], i64 [[TRIPS:%[0-9]+]], ptr [[STARTS]])
// CHECK: call void @__commhint_loop_exit(i32 [[LB]])
// CHECK: [[ITER:%[0-9]+]] = phi i64 [ 0, %{{[0-9]+}} ], [ [[TRIPS]], %[[HEAD:[0-9]+]] ]
// CHECK-NOT: call void @__commhint
// CHECK: [[TRIPS]] = add nuw i64 [[ITER]], 1
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
// CHECK-LABEL: define internal void @commhint.module_ctor()
double ext(double);
void call(double *a, long n) {
  for (long i = 0; i < n; i++)
    a[i] = ext(a[i]);
}
