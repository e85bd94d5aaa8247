// Two statement roles the related lines of a hint use (trace-format.h):
// a statement that only loads a call's arguments is args-only (part of the
// call), and one that only loads what a `for` header's exit test compares
// is loop-test; a `break` on data inside the body is neither.
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.ll 2> %t.sites
// RUN: %FileCheck %s < %t.sites

int n, bound, key;
int a[100];
void use(int x, int y);

void roles(void) {
  // CHECK-DAG: site {{[0-9]+}} kind=comp loc={{.*}}site-roles.c:[[@LINE+1]]:{{[0-9]+}} func=roles {{.*}}flags=args-only access=r4,r4
  use(n, bound);
  // CHECK-DAG: site {{[0-9]+}} kind=comp loc={{.*}}site-roles.c:[[@LINE+1]]:23 func=roles {{.*}}flags=loop-test access=r4
  for (int i = 0; i < bound; i++) {
    // CHECK-DAG: site {{[0-9]+}} kind=comp loc={{.*}}site-roles.c:[[@LINE+1]]:{{[0-9]+}} func=roles {{.*}}flags=none access=r4,r4
    if (a[i] == key)
      break;
  }
}
