#!/usr/bin/env bash
# The analysis under valgrind's memcheck: `commhint hints`, `info` and
# `export` on 4-rank traces of three examples at -O2 (small arguments, so
# that the whole test takes well under a minute) and on a copy of one with a
# rank cut short, each with --error-exitcode=99 --leak-check=full: no invalid
# read or write, no use of uninitialised memory, no leak.  A SAN=1 build is
# skipped (ASan's and valgrind's instrumentation exclude each other; the
# SAN=1 pass checks those tools with ASan instead).
source "$(dirname "$0")/lib.sh"

if [ -n "${SAN:-}" ]; then
    echo "ok # skip valgrind: the tools of a SAN=1 build run under ASan, not valgrind"
    exit 0
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "ok # skip valgrind: valgrind is not installed (make deps installs it)"
    exit 0
fi
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --num-callers=30)

# memcheck "what" ARGS...: commhint ARGS under memcheck exits with its own
# status (not 99) and valgrind reports nothing.
memcheck() {
    local what=$1 rc; shift
    "${VG[@]}" --log-file="$WORK/vg.log" "$CH" "$@" >"$WORK/vg.out" 2>"$WORK/vg.err"
    rc=$?
    if [ "$rc" -ne 99 ] && [ "$rc" -le 2 ] && ! grep -q . "$WORK/vg.log"; then
        ok "$what: clean under memcheck (exit $rc)"
    elif grep -q "unhandled dwarf2 abbrev form\|Possibly corrupted debuginfo" "$WORK/vg.log" "$WORK/vg.err"; then
        not_ok "$what: clean under memcheck" "valgrind cannot read the DWARF 5 debug information of $CH:" \
            "rebuild it from clean (the Makefile's CFLAGS have -gdwarf-4)"
    else
        not_ok "$what: clean under memcheck" "command: commhint $*" "exit status $rc" \
            "$(grep -v '^==[0-9]*== *$' "$WORK/vg.log" | head -40)" "$(head -5 "$WORK/vg.err")"
    fi
}

for spec in "jacobi 32 20" "gauss 32" "master_worker"; do
    read -r ex args <<<"$spec"
    bin=$B/examples/O2/$ex
    [ -x "$bin" ] || { not_ok "$ex: instrumented binary exists" "$bin"; continue; }
    dir=$WORK/$ex
    # shellcheck disable=SC2086
    trace_run "$dir" "$NP" "$bin" $args
    expect_eq "$ex: traced run on $NP ranks exits 0" "$?" 0
    memcheck "$ex: hints" hints "$dir"
    memcheck "$ex: hints --format=json --explain --waits" hints "$dir" --format=json --explain --waits
    memcheck "$ex: info --format=json" info "$dir" --format=json
    memcheck "$ex: export" export "$dir" -o "$WORK/$ex.json"
done

# error paths: a rank cut short in the middle of a chunk, a rank missing
cut=$WORK/jacobi-cut
cp -r "$WORK/jacobi" "$cut"
f=$cut/rank-00001.chtr
truncate -s $(($(stat -c %s "$f") / 2)) "$f"
rm -f "$cut/rank-00002.chtr"
memcheck "jacobi, rank 1 cut short and rank 2 missing: hints" hints "$cut"
memcheck "jacobi, rank 1 cut short and rank 2 missing: info" info "$cut"
memcheck "jacobi, rank 1 cut short and rank 2 missing: export" export "$cut" -o "$WORK/cut.json"
