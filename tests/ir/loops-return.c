// A `return` inside an inner loop leaves both loops: its exit block names
// the outer loop (the runtime pops down to and including it), at -O0 and
// -O2.  The inner loop's normal exit names the inner loop.
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2
// RUN: %FileCheck %s < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2

// SITES: commhint: loop 0 loc={{.*}}loops-return.c:[[@LINE+11]]:3 func=find depth=1 parent=none
// SITES-NEXT: commhint: loop 1 loc={{.*}}loops-return.c:[[@LINE+11]]:5 func=find depth=2 parent=0

// Exactly two exits name loop 0 (the return and the outer loop's end), one
// names loop 1, and there is one enter and one iter per loop.
// CHECK-LABEL: define {{.*}} @find(
// CHECK: [[LB:%[0-9]+]] = load i32, ptr @__commhint_loop_base
// CHECK-COUNT-2: call void @__commhint_loop_exit(i32 [[LB]])
// CHECK-NOT: call void @__commhint_loop_exit(i32 [[LB]])
// CHECK: ret i32
int find(int (*m)[4], int key) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      if (m[i][j] == key)
        return i * 4 + j;
  return -1;
}

// RUN: grep -c '__commhint_loop_exit(i32 %%[0-9]*)' %t.O0.ll | grep -qx 3
// RUN: grep -c '__commhint_loop_exit(i32 %%[0-9]*)' %t.O2.ll | grep -qx 3
// RUN: grep -c 'call void @__commhint_loop_enter(' %t.O0.ll | grep -qx 2
// RUN: grep -c 'call void @__commhint_loop_iter(' %t.O2.ll | grep -qx 2
