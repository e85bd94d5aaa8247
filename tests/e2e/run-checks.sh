#!/usr/bin/env bash
# No silent success with nothing recorded (issue 19, item 9): `commhint
# run` on a program built with plain mpicc warns (one line, with the fix)
# that the run recorded no trace; bad COMMHINT_BUFFER_KB and
# COMMHINT_ZSTD_LEVEL values get one warning saying what is used instead;
# --mpiexec takes a launcher with arguments.
source "$(dirname "$0")/lib.sh"

SRC=tests/e2e/programs/hints-basic.c
mpicc -O2 -o "$WORK/plain" "$SRC"
out=$("$CH" run -n 2 -o "$WORK/plain.trace" -- "$WORK/plain" 2>&1 >/dev/null); rc=$?
expect_eq "plain program: commhint run exits with the program's status" "$rc" 0
expect_match "plain program: warns that nothing was recorded, and how to fix it" "$out" \
    "^commhint: warning: the run recorded no trace: build the program with 'commhint cc' .*dir=$WORK/plain.trace\$"

if ! build_prog "$SRC" "$WORK/prog" -O2 >"$WORK/build.log" 2>&1; then
    not_ok "run checks: builds with commhint cc" "$(cat "$WORK/build.log")"
    exit 0
fi
out=$("$CH" run -n 2 -o "$WORK/ok.trace" -- "$WORK/prog" 2>&1 >/dev/null)
expect_eq "instrumented program: no warning" "$out" ""

out=$(COMMHINT_BUFFER_KB=lots "$CH" run -n 2 -o "$WORK/b.trace" -- "$WORK/prog" 2>&1 >/dev/null | sort -u)
expect_eq "COMMHINT_BUFFER_KB=lots: one warning, the default used" "$out" \
    "commhint: COMMHINT_BUFFER_KB is not a number: the default is used: value=lots default=1024"
out=$(COMMHINT_ZSTD_LEVEL=99 "$CH" run -n 2 -o "$WORK/z.trace" -- "$WORK/prog" 2>&1 >/dev/null | sort -u)
expect_eq "COMMHINT_ZSTD_LEVEL=99: one warning, the largest used" "$out" \
    "commhint: COMMHINT_ZSTD_LEVEL is out of range: 12 is used: value=99 min=-5 max=12"
expect_eq "COMMHINT_ZSTD_LEVEL=99: the trace is complete" \
    "$("$CH" info "$WORK/z.trace" --format=json | grep -o '"status":"complete"' | wc -l)" 2

out=$("$CH" run --mpiexec "mpiexec -genv COMMHINT_TEST_VAR 1" -n 2 -o "$WORK/m.trace" -- "$WORK/prog" 2>&1); rc=$?
expect_eq "--mpiexec with arguments: the run works" "$rc" 0
expect_eq "--mpiexec with arguments: the trace is complete" \
    "$("$CH" info "$WORK/m.trace" --format=json | grep -o '"status":"complete"' | wc -l)" 2
"$CH" run --mpiexec "  " -n 2 -o "$WORK/e.trace" -- "$WORK/prog" >/dev/null 2>&1
expect_eq "--mpiexec with only blanks is a usage error" "$?" 2
