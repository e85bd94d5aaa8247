// A call that hands the program's memory to a function this file does not
// define (a declaration: libc's qsort, another file's function; or a
// function pointer) gets an extern CALL site and __commhint_extern_call
// (site, callee, name) right before it, and no __commhint_mpi_site: the
// runtime records it as a fence when the callee is not a function that
// code built with the pass registered (docs/dependence.md, "Calls into
// code built without the pass").  Calls that hand no such pointer (string
// literals, stderr, numbers) and calls of functions defined here get
// nothing; the functions defined here that take a pointer are registered
// by a constructor of their own (__commhint_register_code).
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void other_file(int *p);
int by_value(int x);

// CHECK-DAG: @__commhint_code = private constant [2 x ptr] [ptr @cmp, ptr @sorted]
// CHECK-DAG: @[[QS:commhint.callee[.0-9]*]] = {{.*}}c"qsort\00"
// CHECK-DAG: @[[OF:commhint.callee[.0-9]*]] = {{.*}}c"other_file\00"
// CHECK-DAG: @[[FP:commhint.callee[.0-9]*]] = {{.*}}c"fprintf\00"

__attribute__((noinline)) int cmp(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

// CHECK-LABEL: define {{.*}} @sorted(
// CHECK-NOT: __commhint_mpi_site
// CHECK: call void @__commhint_extern_call(i32 {{%[0-9]+}}, ptr @qsort, ptr @[[QS]])
// CHECK-NEXT: call void @qsort(
// CHECK: call void @__commhint_extern_call(i32 {{%[0-9]+}}, ptr @other_file, ptr @[[OF]])
// CHECK-NEXT: call void @other_file(
// CHECK: call void @__commhint_extern_call(i32 {{%[0-9]+}}, ptr [[FN:%[0-9a-z.]+]], ptr null)
// CHECK-NEXT: call void [[FN]](
// CHECK-NOT: __commhint_extern_call
// CHECK: call i32 (ptr, ptr, ...) @fprintf(
// CHECK-NOT: __commhint_extern_call
// CHECK: call void @__commhint_extern_call(i32 {{%[0-9]+}}, ptr @fprintf, ptr @[[FP]])
// CHECK-NEXT: call i32 (ptr, ptr, ...) @fprintf({{.*}}@sorted.local_copy)
// CHECK-NOT: __commhint_extern_call
// CHECK-NOT: __commhint_mpi_site
// CHECK: ret i32

// SITES-DAG: kind=extern loc={{.*}}extern-calls.c:[[@LINE+9]]:{{[0-9]+}} func=sorted
// SITES-DAG: kind=extern loc={{.*}}extern-calls.c:[[@LINE+9]]:{{[0-9]+}} func=sorted
// SITES-DAG: kind=extern loc={{.*}}extern-calls.c:[[@LINE+9]]:{{[0-9]+}} func=sorted
// SITES-DAG: kind=extern loc={{.*}}extern-calls.c:[[@LINE+13]]:{{[0-9]+}} func=sorted
// SITES-NOT: kind=extern
int sorted(int *v, int n, void (*fn)(int *)) {
  static int local_copy[16];
  memcpy(local_copy, v, 4 * sizeof(int));
  int s = by_value(n);
  qsort(v, (size_t)n, sizeof *v, cmp);
  other_file(v);
  fn(v);
  s += cmp(v, v + 1);
  fprintf(stderr, "%d values\n", n);
  printf("%d\n", s);
  s += (int)strlen("constant");
  fprintf(stderr, "%s\n", (char *)local_copy);
  return s;
}
