#!/usr/bin/env bash
# tests/run.sh - runs the whole commhint test suite and ends with the line
# "N passed, N failed, N skipped".  Called by `make check` after everything
# is built:
#   B=<build dir> CLANG=clang-16 OPT=opt-16 FILECHECK=FileCheck-16 bash tests/run.sh [FILTER]
# Every test reports TAP-style lines ("ok - name" / "not ok - name"); a test
# program that exits non-zero without reporting a failure counts as one
# failed check.  A check with a SKIP directive is counted as skipped, not as
# passed and not as failed: "ok # skip why" / "ok - name # SKIP why" (the
# e2e scripts) and "not ok N # SKIP name" (what cmocka's TAP output prints
# for a test that called skip()).  FILTER (a substring) runs only the
# matching test files.  The exit status is 0 only if no check failed.
#
# SAN=1: B is a SAN=1 build (ASan+UBSan); the sanitizers' options are set
# below and the IR tests are skipped (the pass is never sanitized).
# SAN_B=<dir>: after this suite, run it again on the SAN=1 build in <dir>
# (`make check` does).  That second pass prints its own tally, "san pass:
# N passed, N failed, N skipped", and is not added to the last line: the
# last line counts each distinct check of the suite once.  A check that
# fails in the second pass counts as failed there: it is matched with the
# first pass's check of the same test by its TAP description (and its
# occurrence among equal descriptions; temporary directories and the
# build directory are left out of the comparison) and moves from passed
# (or skipped) to failed.  A failure the first pass has no check of that
# name for (a test that died, a description with run-dependent text)
# turns one passed check of the same test into a failed one, or, if there
# is none, adds one failed check.  Either way any failure in either pass
# makes the last line's "failed" non-zero and the exit status 1.  The
# second pass leaves out the e2e tests in SAN_SKIP (docs/reliability.md,
# "Sanitizers and valgrind"): their time goes to tracing, building or
# installing, and programs traced there never run sanitized code (the unit
# tests link a sanitized copy of the runtime; the fuzz harnesses always
# have the sanitizers; valgrind.sh cannot run ASan binaries).
#
# Each check's result is also written, one per line, to $CHECKS_TSV
# (default $B/tests/log/checks.tsv): "pass|fail|skip <TAB> test <TAB> key".
SAN_SKIP="crash exit-loops faults fuzz-corpus install mpi-calls rows runs threads unwritable valgrind"
set -u
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CLANG=${CLANG:-clang-16}
OPT=${OPT:-opt-16}
FILECHECK=${FILECHECK:-FileCheck-16}
FILTER=${1:-}
SAN=${SAN:-}
# seconds per test program or script, longer under the sanitizers: a
# limit for a hang, not a benchmark (the slowest test took 128 s in a CI
# run of 2026-11-30; before the largest examples were cut down for the
# tests that do not need their default sizes, e2e/runs took 826 s)
TIMEOUT=${TEST_TIMEOUT:-$([ -n "$SAN" ] && echo 1800 || echo 1200)}
export B CLANG OPT FILECHECK
LOG=$B/tests/log
mkdir -p "$LOG"
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
skipped=0
failures=()
CHECKS_TSV=${CHECKS_TSV:-$LOG/checks.tsv}
: >"$CHECKS_TSV"

# classify NAME < OUTPUT: one "pass|fail|skip <TAB> NAME <TAB> key" line per
# TAP result line.  The key is the description (test number included, the
# SKIP/TODO directive and the "- " left out), with the build directory and
# the e2e tests' temporary directories replaced, and "#n" for its n-th
# occurrence in the output.
classify() {
    awk -v name="$1" -v b="$B" '
    function norm(s,   i) {
        while (b != "" && (i = index(s, b)) > 0)
            s = substr(s, 1, i - 1) "$B" substr(s, i + length(b))
        gsub(/\/commhint-[A-Za-z0-9_-]*\.[A-Za-z0-9]+/, "/commhint-TMP", s)
        return s
    }
    /^(not )?ok( |$)/ {
        st = /^not ok/ ? "fail" : "pass"
        d = $0
        sub(/^(not )?ok[ \t]*/, "", d)
        if (tolower(d) ~ /(^|[ \t])#[ \t]*skip([^a-z]|$)/) st = "skip"
        sub(/[ \t]*#[ \t]*([Ss][Kk][Ii][Pp]|[Tt][Oo][Dd][Oo])([^A-Za-z].*)?$/, "", d)
        sub(/^- */, "", d)
        k = norm(d)
        printf "%s\t%s\t%s#%d\n", st, name, k, ++seen[k]
    }'
}

# Counts the ok/not ok/skip lines of one test's output.
tally() { # name output-file exit-code
    local name=$1 label=$PASS_LABEL$1 out=$2 rc=$3 recs ok nok skip
    if [ "$rc" -ne 0 ] && [ "$(classify "$name" <"$out" | grep -c '^fail')" -eq 0 ]; then
        echo "not ok - $label exited with status $rc without reporting a failure" >>"$out"
    fi
    recs=$(classify "$name" <"$out")
    [ -z "$recs" ] || printf '%s\n' "$recs" >>"$CHECKS_TSV"
    ok=$(grep -c '^pass' <<<"$recs")
    nok=$(grep -c '^fail' <<<"$recs")
    skip=$(grep -c '^skip' <<<"$recs")
    passed=$((passed + ok))
    failed=$((failed + nok))
    skipped=$((skipped + skip))
    local sk="" secs
    [ "$skip" -eq 0 ] || sk=$(printf ' %3d skipped' "$skip")
    secs=$(printf '  %4d s' $((SECONDS - ${T0:-$SECONDS})))
    if [ "$nok" -gt 0 ]; then
        failures+=("$label")
        printf '  FAIL %-40s %3d passed %3d failed%s%s  (log: %s)\n' "$label" "$ok" "$nok" "$sk" "$secs" "$out"
        grep -E '^not ok' "$out" | grep -viE '^not ok[^#]*#[[:space:]]*skip([^a-z]|$)' | head -20 | sed 's/^/       /'
    else
        printf '  ok   %-40s %3d passed%s%s\n' "$label" "$ok" "$sk" "$secs"
    fi
}

want() { [ -z "$FILTER" ] || [[ "$1" == *"$FILTER"* ]]; }

echo "== unit tests"
for t in "$B"/tests/unit/test-*; do
    [ -x "$t" ] || continue
    name=unit/$(basename "$t")
    want "$name" || continue
    out=$LOG/$(basename "$t").log
    T0=$SECONDS
    COMMHINT_SRCDIR=$PWD CMOCKA_MESSAGE_OUTPUT=TAP timeout "$TIMEOUT" "$t" >"$out" 2>&1
    tally "$name" "$out" $?
done

echo "== format header compiles as C++"
if want "format-cxx"; then
    out=$LOG/format-cxx.log
    T0=$SECONDS
    if echo '#include "trace-format.h"' | clang++-16 -std=c++11 -fsyntax-only -Wall -Wextra -Itracelib -x c++ - >"$out" 2>&1; then
        echo "ok - trace-format.h compiles as C++11" >>"$out"
    else
        echo "not ok - trace-format.h compiles as C++11" >>"$out"
    fi
    tally format-cxx "$out" 0
fi

echo "== pass tests (IR level)${SAN:+: skipped, the pass is the same with SAN=1}"
for t in tests/ir/*.ll tests/ir/*.c tests/ir/*.cpp; do
    [ -z "$SAN" ] || break
    [ -f "$t" ] || continue
    name=ir/$(basename "$t")
    want "$name" || continue
    out=$LOG/ir-$(basename "$t").log
    T0=$SECONDS
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
    T0=$SECONDS
    timeout "$TIMEOUT" bash "$t" >"$out" 2>&1
    tally "$name" "$out" $?
done

if [ -n "${SAN_B:-}" ]; then
    echo
    echo "== the suite again with ASan+UBSan (SAN=1 build in $SAN_B)"
    san_out=$LOG/san-pass.out
    san_tsv=$LOG/san-checks.tsv
    : >"$san_tsv"
    # (B first: in `SAN_B= B=$SAN_B` B would see the emptied SAN_B)
    B=$SAN_B SAN_B= SAN=1 SAN_SUBSET=1 PASS_LABEL=san/ CHECKS_TSV=$san_tsv \
        bash tests/run.sh "$FILTER" | tee "$san_out"
    read -r -a more <<<"$(sed -n 's/^failed: //p' "$san_out")"
    failures+=("${more[@]}")
    # The last line counts the first pass's checks, with those that failed
    # in the second pass counted as failed (see the top of this file).
    read -r passed failed skipped moved added <<<"$(awk -F'\t' '
        FNR == NR { k = $2 FS $3; st[k] = $1; if ($1 == "pass") byname[$2] = byname[$2] SUBSEP k; next }
        $1 == "fail" { sf[++n] = $2 FS $3; sn[n] = $2 }
        END {
            for (i = 1; i <= n; i++)        # the same check failed
                if (sf[i] in st) { if (st[sf[i]] != "fail") { st[sf[i]] = "fail"; moved++ } done[i] = 1 }
            for (i = 1; i <= n; i++) {      # a failure with no check of that name
                if (i in done) continue
                m = split(byname[sn[i]], ks, SUBSEP); hit = 0
                for (j = 2; j <= m && !hit; j++)
                    if (st[ks[j]] == "pass") { st[ks[j]] = "fail"; moved++; hit = 1 }
                if (!hit) added++
            }
            for (k in st) c[st[k]]++
            printf "%d %d %d %d %d\n", c["pass"], c["fail"] + added, c["skip"], moved, added
        }' "$CHECKS_TSV" "$san_tsv")"
    if [ "$moved" -gt 0 ] || [ "$added" -gt 0 ]; then
        echo "failed in the sanitizer pass: $moved passed or skipped checks counted as failed, $added failed checks added"
    fi
    if ! grep -qE '^san pass: [0-9]+ passed, [0-9]+ failed' "$san_out"; then
        failed=$((failed + 1))
        failures+=("san/(the pass did not finish)")
    fi
fi

echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "${PASS_LABEL:+${PASS_LABEL%/} pass: }tests ran for $SECONDS s (each test's seconds are beside its count)"
echo "${PASS_LABEL:+${PASS_LABEL%/} pass: }$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
