// A call of a function that reads a clock (tracelib/mpi-local.h,
// cht_is_clock) gets a CALL site and both hooks, like an MPI call that no
// wrapper records: __commhint_mpi_site before it and
// __commhint_mpi_after(site, name) after it, so that the runtime records it
// by name and the analysis takes it as a fence (docs/dependence.md, "Clock
// reads").  Other calls of libc (getpid, nanosleep) get neither.
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

double MPI_Wtime(void);

// CHECK-DAG: @[[WT:commhint.mpi_name[.0-9]*]] = {{.*}}c"MPI_Wtime\00"
// CHECK-DAG: @[[CG:commhint.mpi_name[.0-9]*]] = {{.*}}c"clock_gettime\00"
// CHECK-DAG: @[[GT:commhint.mpi_name[.0-9]*]] = {{.*}}c"gettimeofday\00"
// CHECK-DAG: @[[RC:commhint.mpi_name[.0-9]*]] = {{.*}}c"llvm.readcyclecounter\00"
// CHECK-LABEL: define {{.*}} @timed(
// CHECK: call void @__commhint_mpi_site(
// CHECK-NEXT: call double @MPI_Wtime(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[WT]])
// CHECK: call void @__commhint_mpi_site(
// CHECK-NEXT: call i32 @clock_gettime(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[CG]])
// CHECK: call void @__commhint_mpi_site(
// CHECK-NEXT: call i32 @gettimeofday(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[GT]])
// CHECK: call void @__commhint_mpi_site(
// CHECK-NEXT: call i64 @llvm.readcyclecounter(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[RC]])
// CHECK-NOT: __commhint_mpi_site
// CHECK: call i32 @getpid(
// CHECK-NOT: __commhint_mpi
// CHECK: ret double

// SITES-DAG: kind=call loc={{.*}}clock-reads.c:[[@LINE+7]]:{{[0-9]+}} func=timed
// SITES-DAG: kind=call loc={{.*}}clock-reads.c:[[@LINE+7]]:{{[0-9]+}} func=timed
// SITES-DAG: kind=call loc={{.*}}clock-reads.c:[[@LINE+7]]:{{[0-9]+}} func=timed
// SITES-DAG: kind=call loc={{.*}}clock-reads.c:[[@LINE+7]]:{{[0-9]+}} func=timed
double timed(void) {
  struct timespec ts;
  struct timeval tv;
  double t0 = MPI_Wtime();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  gettimeofday(&tv, 0);
  unsigned long long c = __builtin_readcyclecounter();
  int pid = getpid();
  return t0 + ts.tv_sec + tv.tv_usec + (double)c + pid;
}
