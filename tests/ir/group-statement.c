// Consecutive accesses of one statement in one basic block are one site:
// `a[i] = b[i] + c[i]` gives one COMP site (read 8, read 8, write 8, op
// fadd, named after the store's column) and one __commhint_ev3 per
// iteration, right after the store, at -O0 and at -O2 as `commhint cc`
// builds it (no unrolling, no vectorisation; the loop recorded per
// iteration, COMMHINT_EXIT_LOOPS=0, as at -O0).
// RUN: COMMHINT_INLINE=0 COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s --check-prefix=IR < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: %FileCheck %s --check-prefix=BLOB < %t.O0.ll
// RUN: COMMHINT_EXIT_LOOPS=0 COMMHINT_INLINE=0 COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s --check-prefix=IR < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites
// RUN: %FileCheck %s --check-prefix=BLOB < %t.O2.ll

double a[10], b[10], c[10];

// IR-LABEL: define {{.*}}void @f()
// IR: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
// IR: call void @__commhint_loop_iter(
// IR: [[PB:%[^ ,)]+]] = getelementptr inbounds [10 x double], ptr @b,
// IR: load double, ptr [[PB]]
// IR: [[PC:%[^ ,)]+]] = getelementptr inbounds [10 x double], ptr @c,
// IR: load double, ptr [[PC]]
// IR: [[PA:%[^ ,)]+]] = getelementptr inbounds [10 x double], ptr @a,
// IR: store double {{%[^ ,)]+}}, ptr [[PA]]
// IR-NEXT: call void @__commhint_ev3(i32 [[BASE]], ptr [[PB]], ptr [[PC]], ptr [[PA]])
// IR-NOT: call void @__commhint_ev
// IR: call void @__commhint_loop_exit(
// IR: ret void

// SITES: commhint: loop 0 loc={{.*}}group-statement.c:[[@LINE+4]]:3 func=f depth=1 parent=none
// SITES-NEXT: commhint: site 0 kind=comp loc={{.*}}group-statement.c:[[@LINE+4]]:10 func=f op=fadd loop=0 flags=none access=r8,r8,w8
void f(void) {
  int i;
  for (i = 0; i < 10; i++)
    a[i] = b[i] + c[i];
}

// In the blob: 2 sites, 2 loops, 7 accesses; the access table is f's read
// 8, read 8, write 8, then g's read 8 x3, write 8, followed by the
// dependence section, the cost section and the strings ("" first, then
// the file, f, g).
// BLOB: @__commhint_site_table = private constant [{{[0-9]+}} x i8] c"CHTU\03\00@\00{{.*}}\02\00\00\00\02\00\00\00\07\00\00\00{{.*}}\08\00\00\00\01\00\00\00\08\00\00\00\01\00\00\00\08\00\00\00\02\00\00\00\08\00\00\00\01\00\00\00\08\00\00\00\01\00\00\00\08\00\00\00\01\00\00\00\08\00\00\00\02\00\00\00{{.*}}\00/{{.*}}group-statement.c\00f\00g\00

// A call that touches no memory (llvm.fmuladd from contracting b*c + a)
// does not split the statement; the store adds to what was loaded from the
// same element, at -O0 through a second computation of &a[i].
// IR-LABEL: define {{.*}}void @g()
// IR: store double
// IR-NEXT: add i32 {{%[0-9]+}}, 1
// IR-NEXT: call void @__commhint_ev4(
// IR-NOT: call void @__commhint_ev
// IR: ret void
// SITES: commhint: loop 1 loc={{.*}}group-statement.c:[[@LINE+4]]:3 func=g depth=1 parent=none
// SITES-NEXT: commhint: site 1 kind=comp loc={{.*}}group-statement.c:[[@LINE+4]]:10 func=g op=fadd loop=1 flags=accumulate access=r8,r8,r8,w8
// SITES-NOT: site 2
void g(void) {
  for (int i = 0; i < 10; i++)
    a[i] = b[i] * c[i] + a[i];
}
