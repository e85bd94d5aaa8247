// With -fpass-plugin the pass runs at every optimisation level, -O0
// included (it is a required pass, added at the OptimizerLast extension
// point, which LLVM 16 also runs in its -O0 pipeline), and every
// instrumented module gets its constructors (its functions that take a
// pointer, then its site table).
// RUN: %clang -g -O0 -S -emit-llvm %s -o - | %FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -g -O1 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -g -O2 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -g -O3 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -g -Os -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -O2 -S -emit-llvm %s -o - | %FileCheck %s
// RUN: %clang -g -O2 -flto=thin -S -emit-llvm %s -o - | %FileCheck %s
// The pass is required: -opt-bisect-limit=0 skips every optional pass.
// RUN: %clang -g -O2 -mllvm -opt-bisect-limit=0 -S -emit-llvm %s -o - 2>/dev/null | %FileCheck %s
// Compiling to an object works too.
// RUN: %clang -g -O2 -c %s -o %t.o

// CHECK: @llvm.global_ctors = appending global [2 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @commhint.code_ctor, ptr null }, { i32, ptr, ptr } { i32 1, ptr @commhint.module_ctor, ptr null }]
// CHECK-LABEL: define {{.*}} @scale(
// CHECK-DAG: call void @__commhint_loop_enter(
// Per iteration at -O0 (an iter call and an event call); optimised, the
// loop is one block and its records are made at its exit (exit-loops.c).
// CHECK-DAG: call void @__commhint_{{loop_iter|loop_affine}}(
// O0-DAG: call void @__commhint_ev{{[1-4n]}}(
// CHECK-DAG: call void @__commhint_loop_exit(
// CHECK-LABEL: define internal void @commhint.module_ctor()
// CHECK-NEXT: call void @__commhint_register_tu(i32 7, ptr @__commhint_site_table, i32 {{[0-9]+}}, ptr @__commhint_site_base, ptr @__commhint_loop_base)
// CHECK-NEXT: ret void

void scale(double *restrict y, const double *restrict x, int n) {
  for (int i = 0; i < n; i++)
    y[i] = 2.0 * x[i];
}
