// Every direct call of an MPI_* or PMPI_* function is preceded by
// __commhint_mpi_site(site) naming a CALL site at the call's location; other
// calls (MPIX_*, helpers) are not.
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s < %t.O0.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s < %t.O2.ll
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites

int MPI_Barrier(int comm);
int PMPI_Barrier(int comm);
int MPIX_Stream_create(int info);
void helper(void);

// CHECK-LABEL: define {{.*}} @sync(
// CHECK: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
// CHECK: call void @__commhint_mpi_site(i32 [[BASE]])
// CHECK-NEXT: call i32 @MPI_Barrier(
// CHECK-NOT: __commhint_mpi_site
// CHECK: [[ID:%[0-9]+]] = add i32 [[BASE]], 1
// CHECK-NEXT: call void @__commhint_mpi_site(i32 [[ID]])
// CHECK-NEXT: call i32 @PMPI_Barrier(
// CHECK-NOT: __commhint_mpi_site
// CHECK: ret i32

// SITES: commhint: site 0 kind=call loc={{.*}}mpi-site.c:[[@LINE+6]]:3 func=sync op=none loop=none flags=none access=-
// SITES-NEXT: commhint: site 1 kind=call loc={{.*}}mpi-site.c:[[@LINE+7]]:14 func=sync op=none loop=none flags=none access=-
// SITES-NOT: site 2
int sync(void) {
  int r;
  helper();
  MPI_Barrier(0);
  r = MPIX_Stream_create(0);
  return r + PMPI_Barrier(0);
}
