// The static cost of a site (site table version 3, SiteCost.cpp): its
// loads and stores 1 each, arithmetic 1, a division or sqrt 4, a call to a
// function this unit defines 2, a call the pass cannot see into (libm's
// exp) 40, but one of libm's one-instruction functions (ceil) 1;
// instructions of the statement's line that are no access go to
// its site.  A copy of a scalar global costs 2 (its load and its store).
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0
// RUN: %FileCheck %s --check-prefix=O0 < %t.O0
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2
// RUN: %FileCheck %s --check-prefix=O2 < %t.O2
#include <math.h>

double x, y, z;
int taskid, tcopy;

__attribute__((noinline)) double h(double v) { return v + 1; }

void costs(void) {
  tcopy = taskid;
  y = exp(x);
  y = sqrt(x);
  z = x / y;
  y = h(x);
  z = ceil(x);
}

// O0: site 0 kind=comp loc={{.*}}site-cost.c:19:9 {{.*}} access=r4,w4 cost=2{{$}}
// O0: site 1 kind=comp loc={{.*}}site-cost.c:20:11 {{.*}} access=r8 cost=1{{$}}
// O0: site 2 kind=comp loc={{.*}}site-cost.c:20:5 {{.*}} access=w8 cost=41{{$}}
// O0: site 4 kind=comp loc={{.*}}site-cost.c:21:5 {{.*}} access=w8 cost=5{{$}}
// O0: site 5 kind=comp loc={{.*}}site-cost.c:22:5 {{.*}} access=r8,r8,w8 cost=7{{$}}
// O0: site 7 kind=comp loc={{.*}}site-cost.c:23:5 {{.*}} access=w8 cost=3{{$}}
// O0: site 8 kind=comp loc={{.*}}site-cost.c:24:5 {{.*}} access=r8,w8 cost=3{{$}}
// At -O2 x is loaded once and y and z stored once: exp and sqrt go to the
// load of their line.
// O2: site 0 kind=comp loc={{.*}}site-cost.c:19:9 {{.*}} access=r4,w4 cost=2{{$}}
// O2: site 1 kind=comp loc={{.*}}site-cost.c:20:11 {{.*}} access=r8 cost=41{{$}}
// O2: site 2 kind=comp loc={{.*}}site-cost.c:21:12 {{.*}} access=r8 cost=5{{$}}
// O2: site 4 kind=comp loc={{.*}}site-cost.c:23:5 {{.*}} access=w8 cost=3{{$}}
// O2: site 5 kind=comp loc={{.*}}site-cost.c:24:5 {{.*}} access=w8 cost=2{{$}}
