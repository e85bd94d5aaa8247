// CONDITIONAL means "ran on one side of a source-level decision".  Loop
// control is not such a decision: neither a loop's exit test nor the guard
// that -O2's loop rotation puts in front of a loop (`n - 1 > 1` before the
// inner loop of a stencil, inside the outer loop; `m > 0` before the outer
// one) makes a statement conditional.  An `if`, also one around a whole
// loop or with a loop-invariant condition, does, and so does everything in
// a loop inside it (control dependence passes through loop control).
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0
// RUN: %FileCheck %s --check-prefix=NONE < %t.O0
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -S -emit-llvm %s -o %t.O2.ll 2> %t.O2
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2
// RUN: %FileCheck %s --check-prefix=NONE < %t.O2
// The -O2 build has the shapes this is about: the inner loop's guard in the
// outer loop's header, the outer loop's guard before it.
// RUN: %FileCheck %s --check-prefix=SHAPE < %t.O2.ll
// SHAPE-LABEL: define {{.*}}void @stencil(i32 noundef %0, i32 noundef %1)
// SHAPE: icmp slt i32 %1, 1
// SHAPE: [[INNER:%[0-9]+]] = icmp sgt i32 %0, 2
// SHAPE: call void @__commhint_loop_iter(
// SHAPE-NOT: __commhint_
// SHAPE: br i1 [[INNER]],
// SHAPE: ret void

double u[4096], v[4096], w[4096];

// No `if`: nothing conditional, at -O0 and -O2.
// NONE-NOT: func=stencil {{.*}}flags=conditional
void stencil(int n, int m) {
  for (int i = 1; i <= m; i++)
    for (int j = 1; j < n - 1; j++)
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=stencil op=fmul loop={{[0-9]+}} flags=none access=w8
      v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                             u[i * n + j - 1] + u[i * n + j + 1]);
}

// An if/else in the inner loop: its two statements are conditional, the
// statements before and after it are not.
void stencil_if(int n, int m) {
  for (int i = 1; i <= m; i++)
    for (int j = 1; j < n - 1; j++) {
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=stencil_if {{.*}}flags=none
      double c = u[(i - 1) * n + j] + u[(i + 1) * n + j];
      if (c > 0)
        // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=stencil_if {{.*}}flags=conditional
        v[i * n + j] = c;
      else
        // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=stencil_if {{.*}}flags=conditional
        w[i * n + j] = -c;
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=stencil_if {{.*}}flags=none
      u[i * n + j] = 0.5 * c;
    }
}

// A loop inside `if (x)` is conditional: at -O2 the `if` and the loop's
// guard merge into one branch (`x != 0 & n > 0`), which is not loop control.
// The statements around the `if` are not.
void in_if(int x, int n) {
  // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=in_if {{.*}}loop=none flags=none
  w[0] = 1.0;
  if (x)
    for (int j = 0; j < n; j++)
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=in_if {{.*}}flags=conditional access=w8,w8
      u[j] = v[j] = 1.0;
  // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=in_if {{.*}}loop=none flags=none
  w[1] = 2.0;
}

// Nor is a branch that decides more than whether the loop runs: `if (x)`
// before a loop that needs no guard, `if (n > 5)` before one that runs
// when n > 0.
void in_if_const(int x) {
  if (x)
    for (int j = 0; j < 10; j++)
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=in_if_const {{.*}}flags=conditional
      u[j] = 1.0;
}
void in_if_bound(int n) {
  if (n > 5)
    for (int j = 0; j < n; j++)
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=in_if_bound {{.*}}flags=conditional
      u[j] = 1.0;
}

// A loop-invariant `if` in a loop stays conditional.
void invariant_if(int n, int c) {
  for (int j = 0; j < n; j++) {
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=invariant_if {{.*}}flags=none
    u[j] = 1.0;
    if (c)
      // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=invariant_if {{.*}}flags=conditional
      v[j] = 2.0;
  }
}

// Guards of other shapes, none conditional: a pointer walk (SCEV cannot
// count it, the guard is a copy of the latch test), a bound in memory the
// body may change (reloaded every iteration, the guard read it first), a
// count-down loop and a step of 3.
// NONE-NOT: func=walk {{.*}}flags=conditional
// NONE-NOT: func=reload {{.*}}flags=conditional
// NONE-NOT: func=down {{.*}}flags=conditional
struct node {
  struct node *next;
  double val;
};
double walk(struct node *p) {
  double s = 0;
  while (p) {
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=walk {{.*}}flags=none
    s += p->val;
    p = p->next;
  }
  return s;
}
int size;
void touch(int *);
void reload(void) {
  for (int q = 0; q < size; q++) {
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=reload {{.*}}flags=none
    u[q] = 1.0;
    touch(&size);
  }
}
void down(int n) {
  for (int j = n - 1; j >= 0; j--)
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=down {{.*}}flags=none
    u[j] = 1.0;
  for (int j = 0; j < n; j += 3)
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=down {{.*}}flags=none
    v[j] = 1.0;
}

// A check that ends the program on its other side decides nothing for the
// code that goes on: after `if (n <= 0) { ...; exit(1); }` every statement
// runs on every path that returns (real codes check their arguments and
// allocations this way).  The error path itself is conditional.
void exit(int) __attribute__((noreturn));
void abort(void) __attribute__((noreturn));
int report(const char *);
void checked(int n, double *p) {
  if (n <= 0) {
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}flags=conditional
    w[2] = 1.0;
    report("bad n");
    exit(1);
  }
  // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}loop=none flags=none
  w[0] = n;
  if (!p)
    abort();
  for (int j = 0; j < n; j++)
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}flags=none
    u[j] = p[j];
  // an `if` with a check inside one side: still a decision, its side is
  // conditional and what follows it is not
  if (n > 100) {
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}loop=none flags=conditional
    w[3] = 3.0;
    if (p[0] < 0)
      exit(2);
    // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}loop=none flags=conditional
    w[4] = 4.0;
  }
  // SITES-DAG: conditional.c:[[@LINE+1]]:{{[0-9]+}} func=checked {{.*}}loop=none flags=none
  w[1] = 2.0;
}

