// The local MPI queries no wrapper records (tracelib/mpi-local.h) write
// their output arguments: right after MPI_Comm_rank, MPI_Cart_coords and
// MPI_Cart_shift the pass records those writes as memset sites at the
// call's location (4 bytes per int, an element count taken from the call's
// argument and kept within 0..64), so that a statement reading `rank`
// depends on the query (a call under `if (rank > 0)` does not start
// before MPI_Comm_rank).
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites

int MPI_Comm_rank(int comm, int *rank);
int MPI_Cart_coords(int comm, int rank, int maxdims, int coords[]);
int MPI_Cart_shift(int comm, int dir, int disp, int *src, int *dst);
int MPI_Recv(void *b, int n, int t, int src, int tag, int comm, void *st);

// CHECK-LABEL: define {{.*}} @peers(
// CHECK: call i32 @MPI_Comm_rank(i32 {{[^,]*}}, ptr noundef {{(nonnull )?}}[[RANK:%[0-9]+]])
// CHECK-NEXT: call void @__commhint_memset(i32 {{%[0-9]+}}, ptr [[RANK]], i64 4)
// CHECK: call i32 @MPI_Cart_coords(i32 {{[^,]*}}, i32 {{[^,]*}}, i32 noundef [[ND:%[0-9]+]], ptr noundef {{(nonnull )?}}[[CO:%[0-9]+]])
// CHECK-NEXT: [[N:%[0-9]+]] = sext i32 [[ND]] to i64
// CHECK: [[LEN:%[0-9]+]] = mul i64 4, {{%[0-9]+}}
// CHECK-NEXT: call void @__commhint_memset(i32 {{%[0-9]+}}, ptr [[CO]], i64 [[LEN]])
// CHECK: call i32 @MPI_Cart_shift(i32 {{[^,]*}}, i32 noundef 0, i32 noundef 1, ptr noundef {{(nonnull )?}}[[SRC:%[0-9]+]], ptr noundef {{(nonnull )?}}[[DST:%[0-9]+]])
// CHECK-DAG: call void @__commhint_memset(i32 {{%[0-9]+}}, ptr [[SRC]], i64 4)
// CHECK-DAG: call void @__commhint_memset(i32 {{%[0-9]+}}, ptr [[DST]], i64 4)
// CHECK: call i32 @MPI_Recv(
// CHECK-NOT: __commhint_memset
// CHECK: ret

// SITES: kind=call loc={{.*}}mpi-query-outputs.c:[[#RANK:]]:3 func=peers
// SITES-NEXT: kind=memset loc={{.*}}mpi-query-outputs.c:[[#RANK]]:3 func=peers
// SITES: kind=call loc={{.*}}mpi-query-outputs.c:[[#RANK+1]]:3 func=peers
// SITES-NEXT: kind=memset loc={{.*}}mpi-query-outputs.c:[[#RANK+1]]:3 func=peers
// SITES-NEXT: kind=call loc={{.*}}mpi-query-outputs.c:[[#RANK+2]]:3 func=peers
// SITES-NEXT: kind=memset loc={{.*}}mpi-query-outputs.c:[[#RANK+2]]:3 func=peers
// SITES-NEXT: kind=memset loc={{.*}}mpi-query-outputs.c:[[#RANK+2]]:3 func=peers
// SITES-NOT: kind=memset
int peers(int comm, int nd, double *buf) {
  int rank, coords[8], left, right;
  MPI_Comm_rank(comm, &rank);
  MPI_Cart_coords(comm, rank, nd, coords);
  MPI_Cart_shift(comm, 0, 1, &left, &right);
  if (rank > 0)
    MPI_Recv(buf, coords[0], 3, left, 0, comm, 0);
  return right;
}
