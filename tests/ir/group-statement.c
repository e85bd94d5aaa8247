// Consecutive accesses of one statement in one basic block are one site:
// `a[i] = b[i] + c[i]` gives one COMP site (read 8, read 8, write 8, op
// fadd, named after the store's column) and one __commhint_ev3 per
// iteration, right after the store, at -O0 and at -O2 as `commhint cc`
// builds it (no unrolling, no vectorisation).
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s --check-prefix=IR < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: %FileCheck %s --check-prefix=BLOB < %t.O0.ll
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
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

// SITES: commhint: loop 0 loc={{.*}}group-statement.c:[[@LINE+5]]:3 func=f depth=1 parent=none
// SITES-NEXT: commhint: site 0 kind=comp loc={{.*}}group-statement.c:[[@LINE+5]]:10 func=f op=fadd loop=0 flags=none access=r8,r8,w8
// SITES-NOT: site 1
void f(void) {
  int i;
  for (i = 0; i < 10; i++)
    a[i] = b[i] + c[i];
}

// In the blob: 1 site, 1 loop, 3 accesses; the access table is read 8,
// read 8, write 8 and is followed by the strings ("" first).
// BLOB: @__commhint_site_table = private constant [{{[0-9]+}} x i8] c"CHTU\01\00@\00{{.*}}\01\00\00\00\01\00\00\00\03\00\00\00{{.*}}\08\00\00\00\01\00\00\00\08\00\00\00\01\00\00\00\08\00\00\00\02\00\00\00\00/{{.*}}group-statement.c\00f\00
