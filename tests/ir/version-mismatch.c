// A plugin built for one LLVM major version refuses to load into a clang of
// another: one sentence on stderr, then clang's own plugin error and a
// non-zero exit (the plugin answers with API version 0).  Needs clang-14
// (or CLANG_OTHER=clang-NN of a version other than the plugin's); the test
// passes without running when it is not installed.
// RUN: other=${CLANG_OTHER:-clang-14}; \
// RUN: if ! command -v "$other" >/dev/null; then echo "skipped: $other not installed"; exit 0; fi; \
// RUN: not "$other" -fpass-plugin=%plugin -c %s -o %t.o 2> %t.err && \
// RUN: %FileCheck %s < %t.err

// CHECK: commhint-pass.so: built for LLVM {{[0-9]+}} but loaded by LLVM {{[0-9]+}}: compile with clang-{{[0-9]+}} (or rebuild commhint with make CLANG=clang-{{[0-9]+}} LLVM_CONFIG=llvm-config-{{[0-9]+}})
// CHECK: error: unable to load plugin '{{.*}}'

int main(void) { return 0; }
