// Statements of the C++ library are the program's lines that call them
// (clang_pass/SystemCode.h): at -O0 the calls of std::fill, std::accumulate
// and std::vector's operators are inlined by the pass and their sites take
// the calling line; std::sort's helpers, which recurse, are cloned for the
// calling line (internal, named `.commhint.line<N>`) and every site and
// loop of the clones is that line's.  No site or loop keeps a location in a
// system header, at -O0 or at -O2.
// RUN: COMMHINT_PRINT_SITES=1 %clang -std=c++17 -g -O0 -S -emit-llvm %s -o %t.O0.ll 2> %t.O0.sites
// RUN: %FileCheck %s --check-prefix=SITES < %t.O0.sites
// RUN: %FileCheck %s --check-prefix=NOSYS < %t.O0.sites
// RUN: %FileCheck %s --check-prefix=IR < %t.O0.ll
// RUN: COMMHINT_PRINT_SITES=1 %clang -std=c++17 -g -O2 -S -emit-llvm %s -o %t.O2.ll 2> %t.O2.sites
// RUN: %FileCheck %s --check-prefix=SITES < %t.O2.sites
// RUN: %FileCheck %s --check-prefix=NOSYS < %t.O2.sites
// RUN: %FileCheck %s --check-prefix=IR < %t.O2.ll
#include <algorithm>
#include <numeric>
#include <vector>

double f(std::vector<double> &v, std::vector<long> &k, int n)
{
    std::fill(v.begin(), v.begin() + n, 2.0); // LINE-FILL
    std::sort(k.begin(), k.end(), [](long a, long b) { return a > b; }); // LINE-SORT
    return std::accumulate(v.begin(), v.end(), 0.0); // LINE-SUM
}

// SITES-DAG: site {{[0-9]+}} kind=comp loc={{.*}}system-code.cpp:[[#@LINE-5]]:{{[0-9]+}} func=f {{.*}}access={{.*}}w
// SITES-DAG: site {{[0-9]+}} kind=comp loc={{.*}}system-code.cpp:[[#@LINE-5]]:{{[0-9]+}} func=f {{.*}}access={{.*}}w
// SITES-DAG: site {{[0-9]+}} kind=comp loc={{.*}}system-code.cpp:[[#@LINE-5]]:{{[0-9]+}} func=f {{.*}}access={{.*}}r
// SITES-DAG: loop {{[0-9]+}} loc={{.*}}system-code.cpp:[[#@LINE-8]]:{{[0-9]+}} func=f
// NOSYS-NOT: loc=/usr/
// IR: define internal {{.*}}@{{.*}}introsort_loop{{.*}}.commhint.line[[#@LINE-9]]{{"?}}(
// A filter that takes a function takes the clones for its lines too (they
// are the calling line's code, whatever their name and file):
// RUN: COMMHINT_FILTER='func:_Z1f*' %clang -std=c++17 -g -O2 -S -emit-llvm %s -o %t.F.ll
// RUN: %FileCheck %s --check-prefix=FIR < %t.F.ll
// FIR-LABEL: define internal {{.*}}@{{.*}}introsort_loop{{.*}}.commhint.line23{{"?}}(
// FIR-NOT: {{^}}}
// FIR: call void @__commhint_
