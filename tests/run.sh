#!/usr/bin/env bash
# tests/run.sh - runs the whole commhint test suite and ends with the line
# "N passed, N failed".  Called by `make check` after everything is built:
#   B=<build dir> CLANG=clang-16 OPT=opt-16 FILECHECK=FileCheck-16 bash tests/run.sh [FILTER]
# Every test reports TAP-style lines ("ok - name" / "not ok - name"); a test
# program that dies without reporting counts as one failure.  FILTER (a
# substring) runs only the matching test files.
#
# SAN=1: B is a SAN=1 build (ASan+UBSan); the sanitizers' options are set
# below and the IR tests are skipped (the pass is never sanitized).
# SAN_B=<dir>: after this suite, run it again on the SAN=1 build in <dir>
# (`make check` does); the last line then sums both passes.  That second
# pass leaves out the e2e tests in SAN_SKIP (docs/reliability.md,
# "Sanitizers and valgrind"): their time goes to tracing, building or
# installing, and programs traced there never run sanitized code (the unit
# tests link a sanitized copy of the runtime; the fuzz harnesses always
# have the sanitizers; valgrind.sh cannot run ASan binaries).
SAN_SKIP="crash faults fuzz-corpus install mpi-calls runs threads unwritable valgrind"
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
SAN=${SAN:-}
PASS_LABEL=${PASS_LABEL:-} # prefix of the test names, "san/" in the second pass
if [ -n "$SAN" ]; then
    # Only the tools and tests are sanitized; programs traced by the e2e
    # tests are built without the sanitizers and ignore these.
    export SAN
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:strict_string_checks=1}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi

passed=0
failed=0
failures=()

# Counts the ok/not ok lines of one test's output.
tally() { # name output-file exit-code
    local name=$PASS_LABEL$1 out=$2 rc=$3 ok nok
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

echo "== pass tests (IR level)${SAN:+: skipped, the pass is the same with SAN=1}"
for t in tests/ir/*.ll tests/ir/*.c; do
    [ -z "$SAN" ] || break
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

echo "== end-to-end tests${SAN_SUBSET:+ (not: $SAN_SKIP)}"
for t in tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    case $(basename "$t") in lib.sh) continue ;; esac
    [ -n "${SAN_SUBSET:-}" ] && [[ " $SAN_SKIP " == *" $(basename "$t" .sh) "* ]] && continue
    name=e2e/$(basename "$t" .sh)
    want "$name" || continue
    out=$LOG/e2e-$(basename "$t" .sh).log
    timeout "$TIMEOUT" bash "$t" >"$out" 2>&1
    tally "$name" "$out" $?
done

if [ -n "${SAN_B:-}" ]; then
    echo
    echo "== the suite again with ASan+UBSan (SAN=1 build in $SAN_B)"
    san_out=$LOG/san-pass.out
    # (B first: in `SAN_B= B=$SAN_B` B would see the emptied SAN_B)
    B=$SAN_B SAN_B= SAN=1 SAN_SUBSET=1 PASS_LABEL=san/ bash tests/run.sh "$FILTER" | tee "$san_out"
    tally_line=$(sed -n 's/^san pass: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$san_out")
    if [ -n "$tally_line" ]; then
        read -r p f <<<"$tally_line"
        passed=$((passed + p))
        failed=$((failed + f))
        read -r -a more <<<"$(sed -n 's/^failed: //p' "$san_out")"
        failures+=("${more[@]}")
    else
        failed=$((failed + 1))
        failures+=("san/(the pass did not finish)")
    fi
fi

echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "${PASS_LABEL:+${PASS_LABEL%/} pass: }$passed passed, $failed failed"
[ "$failed" -eq 0 ]
