// Site facts in the table: op of the stored value, ACCUMULATE (stores
// op(load of the same address, x)), CONDITIONAL (control-dependent on a
// branch other than a loop's own exit test or guard), INLINED, ATOMIC,
// VECTOR; and more than four addresses go through __commhint_evn.
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0
// RUN: %FileCheck %s --check-prefix=O0 < %t.O0
// RUN: %FileCheck %s --check-prefix=IR < %t.O0.ll
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2
// RUN: %FileCheck %s --check-prefix=O2 < %t.O2
// RUN: %FileCheck %s --check-prefix=IR < %t.O2.ll

typedef double v2d __attribute__((vector_size(16)));
double x[100], y[100], s;
int cnt, imax;
v2d va, vb;

static inline __attribute__((always_inline)) void put(int i, double v) {
  y[i] = v;
}

void facts(int n) {
  // O0: site 0 kind=comp loc={{.*}}site-facts.c:[[@LINE+3]]:7 func=facts op=fadd loop=0 flags=accumulate access=r8,r8,w8
  // O2: site 2 kind=comp loc={{.*}}site-facts.c:[[@LINE+2]]:10 func=facts op=none loop=0 flags=none access=r8
  for (int i = 0; i < n; i++)
    s += x[i];
  // The loop is not conditional, even behind its -O2 guard (n > 0); the
  // store under the `if` is.
  // O0: site 1 kind=comp loc={{.*}}site-facts.c:[[@LINE+5]]:9 func=facts op=none loop=1 flags=none access=r8
  // O0: site 2 kind=comp loc={{.*}}site-facts.c:[[@LINE+5]]:12 func=facts op=copy loop=1 flags=conditional access=r8,w8
  // O2: site 4 kind=comp loc={{.*}}site-facts.c:[[@LINE+3]]:9 func=facts op=none loop=1 flags=none access=r8
  // O2: site 5 kind=comp loc={{.*}}site-facts.c:[[@LINE+3]]:12 func=facts op=none loop=1 flags=conditional access=w8
  for (int i = 0; i < n; i++)
    if (x[i] > 0)
      y[i] = x[i];
  // (func= is the function the source line is in: put, inlined into facts)
  // O0: site 4 kind=comp loc={{.*}}site-facts.c:18:8 func=put op=none loop=2 flags=inlined access=w8
  for (int i = 0; i < n; i++)
    put(i, x[i]);
  // O0: site 5 kind=comp loc={{.*}}site-facts.c:[[@LINE+2]]:3 func=facts op=add loop=none flags=accumulate|atomic access=rw4
  // O2: site 6 kind=comp loc={{.*}}site-facts.c:[[@LINE+1]]:3 func=facts op=add loop=none flags=accumulate|atomic access=rw4
  __atomic_fetch_add(&cnt, 1, __ATOMIC_RELAXED);
  // O0: site 6 kind=comp loc={{.*}}site-facts.c:[[@LINE+2]]:6 func=facts op=copy loop=none flags=vector access=r16,w16
  // O2: site 7 kind=comp loc={{.*}}site-facts.c:[[@LINE+1]]:6 func=facts op=copy loop=none flags=vector access=r16,w16
  va = vb;
  // O0: site 7 kind=comp loc={{.*}}site-facts.c:[[@LINE+2]]:8 func=facts op=fsub loop=none flags=none access=r8,r8,r8,r8,r8,w8
  // O2: site 8 kind=comp loc={{.*}}site-facts.c:[[@LINE+1]]:8 func=facts op=fsub loop=none flags=none access=r8,r8,r8,r8,r8,w8
  y[0] = x[1] * x[2] + x[3] - x[4] / x[5];
  // O2: site 9 kind=comp loc={{.*}}site-facts.c:[[@LINE+1]]:8 func=facts op=max loop=none flags=accumulate access=r4,r4,w4
  imax = imax > cnt ? imax : cnt;
}

// IR: call void @__commhint_evn(i32 {{%[0-9]+}}, i32 6, ptr [[ARR:%[0-9]+]])
