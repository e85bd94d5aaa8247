#!/usr/bin/env bash
# tests/run.sh - runs the whole commhint test suite and ends with the line
# "N passed, N failed".  Called by `make check` after everything is built:
#   B=<build dir> CLANG=clang-16 OPT=opt-16 FILECHECK=FileCheck-16 bash tests/run.sh [FILTER]
# Every test reports TAP-style lines ("ok - name" / "not ok - name"); a test
# program that dies without reporting counts as one failure.  FILTER (a
# substring) runs only the matching test files.
set -u
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CLANG=${CLANG:-clang-16}
OPT=${OPT:-opt-16}
FILECHECK=${FILECHECK:-FileCheck-16}
FILTER=${1:-}
TIMEOUT=${TEST_TIMEOUT:-600}
export B CLANG OPT FILECHECK
LOG=$B/tests/log
mkdir -p "$LOG"

passed=0
failed=0
failures=()

# Counts the ok/not ok lines of one test's output.
tally() { # name output-file exit-code
    local name=$1 out=$2 rc=$3 ok nok
    ok=$(grep -cE '^ok( |$)' "$out")
    nok=$(grep -cE '^not ok( |$)' "$out")
    if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
        nok=1
        echo "not ok - $name exited with status $rc without reporting a failure" >>"$out"
    fi
    passed=$((passed + ok))
    failed=$((failed + nok))
    if [ "$nok" -gt 0 ]; then
        failures+=("$name")
        printf '  FAIL %-40s %3d passed %3d failed  (log: %s)\n' "$name" "$ok" "$nok" "$out"
        grep -E '^not ok' "$out" | head -20 | sed 's/^/       /'
    else
        printf '  ok   %-40s %3d passed\n' "$name" "$ok"
    fi
}

want() { [ -z "$FILTER" ] || [[ "$1" == *"$FILTER"* ]]; }

echo "== unit tests"
for t in "$B"/tests/unit/test-*; do
    [ -x "$t" ] || continue
    name=unit/$(basename "$t")
    want "$name" || continue
    out=$LOG/$(basename "$t").log
    COMMHINT_SRCDIR=$PWD CMOCKA_MESSAGE_OUTPUT=TAP timeout "$TIMEOUT" "$t" >"$out" 2>&1
    tally "$name" "$out" $?
done

echo "== format header compiles as C++"
if want "format-cxx"; then
    out=$LOG/format-cxx.log
    if echo '#include "trace-format.h"' | clang++-16 -std=c++11 -fsyntax-only -Wall -Wextra -Itracelib -x c++ - >"$out" 2>&1; then
        echo "ok - trace-format.h compiles as C++11" >>"$out"
    else
        echo "not ok - trace-format.h compiles as C++11" >>"$out"
    fi
    tally format-cxx "$out" 0
fi

echo "== pass tests (IR level)"
for t in tests/ir/*.ll tests/ir/*.c; do
    [ -f "$t" ] || continue
    name=ir/$(basename "$t")
    want "$name" || continue
    out=$LOG/ir-$(basename "$t").log
    if PLUGIN=$B/lib/commhint-pass.so OPT=$OPT CLANG=$CLANG FILECHECK=$FILECHECK \
        RTLIB=$B/lib timeout "$TIMEOUT" bash tests/ir/run-one.sh "$t" >"$out" 2>&1; then
        echo "ok - $name" >>"$out"
    else
        echo "not ok - $name" >>"$out"
    fi
    tally "$name" "$out" 0
done

echo "== end-to-end tests"
for t in tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    case $(basename "$t") in lib.sh) continue ;; esac
    name=e2e/$(basename "$t" .sh)
    want "$name" || continue
    out=$LOG/e2e-$(basename "$t" .sh).log
    timeout "$TIMEOUT" bash "$t" >"$out" 2>&1
    tally "$name" "$out" $?
done

echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
