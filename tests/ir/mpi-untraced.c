// After every call of an MPI function that is not local (tracelib/mpi-local.h)
// the pass puts __commhint_mpi_after(site, name): the runtime records the
// call as untraced when no wrapper took its site.  Local calls (MPI_Comm_rank,
// MPI_Type_size) get no hook, except MPI_Wtime, a clock read (clock-reads.c);
// wrapped calls get one too (the wrapper takes the site, so nothing is
// recorded twice).
// RUN: %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %clang -g -O2 -S -emit-llvm %s -o %t.O2.ll
// RUN: %FileCheck %s < %t.O2.ll

int MPI_Put(const void *o, int n, int t, int target, long d, int tn, int tt, int win);
int MPI_Send(const void *b, int n, int t, int dest, int tag, int comm);
int MPI_Comm_rank(int comm, int *rank);
double MPI_Wtime(void);
int MPI_Type_size(int type, int *size);

// CHECK-DAG: @[[PUT:commhint.mpi_name[.0-9]*]] = {{.*}}c"MPI_Put\00"
// CHECK-DAG: @[[SEND:commhint.mpi_name[.0-9]*]] = {{.*}}c"MPI_Send\00"
// CHECK-DAG: @[[WTIME:commhint.mpi_name[.0-9]*]] = {{.*}}c"MPI_Wtime\00"
// CHECK-LABEL: define {{.*}} @exchange(
// CHECK: call i32 @MPI_Comm_rank(
// CHECK-NOT: __commhint_mpi_after
// CHECK: call double @MPI_Wtime(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[WTIME]])
// CHECK: call i32 @MPI_Type_size(
// CHECK-NOT: __commhint_mpi_after
// CHECK: call i32 @MPI_Put(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[PUT]])
// CHECK: call i32 @MPI_Send(
// CHECK-NEXT: call void @__commhint_mpi_after(i32 {{%[0-9]+}}, ptr @[[SEND]])
// CHECK: ret
double exchange(const double *buf, int win, int comm) {
  int rank, tsize;
  MPI_Comm_rank(comm, &rank);
  double t = MPI_Wtime();
  MPI_Type_size(3, &tsize);
  MPI_Put(buf, 4, 3, rank + 1, 0, 4, 3, win);
  MPI_Send(buf, tsize, 3, rank + 1, 0, comm);
  return t;
}
