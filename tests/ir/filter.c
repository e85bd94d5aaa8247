// Selective instrumentation with COMMHINT_FILTER (comma-separated
// [!]file:GLOB / [!]func:GLOB), COMMHINT_FILTER_FILE (one pattern per line,
// `#` comments) and -mllvm -commhint-filter= (the plugin must then also be
// loaded early with -fplugin=, clang parses -mllvm before -fpass-plugin
// loads it).  With an include pattern only matching functions are
// instrumented; exclude patterns always win; a bad pattern is an error.
//
// RUN: COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.all.ll 2> %t.all
// RUN: %FileCheck %s --check-prefixes=ALPHA,BETA,GAMMA < %t.all
// RUN: COMMHINT_FILTER=func:alpha COMMHINT_PRINT_SITES=1 %clang -g -O0 -S -emit-llvm %s -o %t.1.ll 2> %t.1
// RUN: %FileCheck %s --check-prefixes=ALPHA --implicit-check-not=func=beta --implicit-check-not=func=gamma < %t.1
// RUN: %FileCheck %s --check-prefix=IR1 < %t.1.ll
// RUN: COMMHINT_FILTER='func:*,!func:be*' COMMHINT_PRINT_SITES=1 %clang -g -O0 -c %s -o %t.2.o 2> %t.2
// RUN: %FileCheck %s --check-prefixes=ALPHA,GAMMA --implicit-check-not=func=beta < %t.2
// RUN: COMMHINT_FILTER='file:filter.c,!func:gamma' COMMHINT_PRINT_SITES=1 %clang -g -O0 -c %s -o %t.3.o 2> %t.3
// RUN: %FileCheck %s --check-prefixes=ALPHA,BETA --implicit-check-not=func=gamma < %t.3
// RUN: COMMHINT_FILTER='file:*/filter.c' COMMHINT_PRINT_SITES=1 %clang -g -O0 -c %s -o %t.4.o 2> %t.4
// RUN: %FileCheck %s --check-prefixes=ALPHA,BETA,GAMMA < %t.4
//
// Nothing matches: no site table, no constructor, no runtime reference.
// RUN: COMMHINT_FILTER='file:other.c' %clang -g -O0 -S -emit-llvm %s -o %t.5.ll
// RUN: %FileCheck %s --check-prefix=NONE < %t.5.ll
// RUN: COMMHINT_FILTER='!file:*.c' %clang -g -O0 -S -emit-llvm %s -o %t.6.ll
// RUN: %FileCheck %s --check-prefix=NONE < %t.6.ll
//
// RUN: printf '# only beta\nfunc:beta   # trailing comment\n\n' > %t.filter
// RUN: COMMHINT_FILTER_FILE=%t.filter COMMHINT_PRINT_SITES=1 %clang -g -O0 -c %s -o %t.7.o 2> %t.7
// RUN: %FileCheck %s --check-prefixes=BETA --implicit-check-not=func=alpha --implicit-check-not=func=gamma < %t.7
//
// RUN: COMMHINT_PRINT_SITES=1 %clang -fplugin=%plugin -mllvm -commhint-filter=func:gamma -g -O0 -c %s -o %t.8.o 2> %t.8
// RUN: %FileCheck %s --check-prefixes=GAMMA --implicit-check-not=func=alpha --implicit-check-not=func=beta < %t.8
//
// RUN: COMMHINT_FILTER='func:alpha,fnc:beta' not %clang -g -O0 -c %s -o %t.9.o 2> %t.9
// RUN: %FileCheck %s --check-prefix=BAD < %t.9
// RUN: COMMHINT_FILTER='func:[ab' not %clang -g -O0 -c %s -o %t.10.o 2> %t.10
// RUN: %FileCheck %s --check-prefix=BADGLOB < %t.10

// ALPHA-DAG: func=alpha
// BETA-DAG: func=beta
// GAMMA-DAG: func=gamma

// IR1-LABEL: define {{.*}} @beta(
// IR1-NOT: __commhint
// IR1: ret void
// IR1: define internal void @commhint.module_ctor()

// NONE-NOT: __commhint
// NONE-NOT: commhint.module_ctor

// BAD: error: bad commhint filter pattern, expected [!]file:GLOB or [!]func:GLOB: pattern=fnc:beta origin=COMMHINT_FILTER
// BADGLOB: error: bad commhint filter pattern, the glob is empty or has an unclosed '[': pattern=func:[ab origin=COMMHINT_FILTER

double x[4];

void alpha(void) { x[0] = 1; }
void beta(void) { x[1] = 2; }
void gamma(void) { x[2] = 3; }
