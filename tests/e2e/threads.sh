#!/usr/bin/env bash
# Threads inside a rank: programs/threads.c (MPI_THREAD_MULTIPLE: three
# threads that compute and call MPI, two that only compute, one still
# inside a loop at exit) and programs/openmp.c (OpenMP parallel regions)
# traced on 4 ranks.  Every thread's records are checked from `commhint dump
# --format=json` by threads-check.py: exact counts per statement and per
# thread, addresses in program order (no record lost, none from another
# thread), iteration vectors of the thread's own loops, MPI calls with the
# right peers and channel sequence numbers, matched across ranks.  Traced
# with runs (the default) and with COMMHINT_RUNS=0 and 64 KiB buffers (many
# chunks of different threads interleaved in the file) the threads' streams
# are the same; info counts the threads; hints analyses the traces.
source "$(dirname "$0")/lib.sh"
CHECK=tests/e2e/threads-check.py
export OMP_WAIT_POLICY=passive # no spinning OpenMP threads on a shared machine

# dumps DIR into DIR.dump/rank-R.json (with addresses), and --stable into DIR.stable/
dump_ranks() {
    local dir=$1 r
    mkdir -p "$dir.dump" "$dir.stable"
    for r in $(seq 0 $((NP - 1))); do
        "$CH" dump "$dir" --rank "$r" --format=json >"$dir.dump/rank-$r.json" 2>>"$dir.derr" || return 1
        "$CH" dump "$dir" --rank "$r" --format=json --stable --loops >"$dir.stable/rank-$r.json" 2>>"$dir.derr" || return 1
    done
}

# info_threads DIR: the writer threads of every rank, from info --format=json
info_threads() {
    "$CH" info "$1" --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(str(r["threads"]) for r in d["ranks"]))'
}

# hints_ok LABEL DIR: hints runs on the trace, text and JSON, and every message is matched
hints_ok() {
    local label=$1 dir=$2 js
    check "$label: commhint hints exits 0" "$CH" hints "$dir"
    js=$("$CH" hints "$dir" --format=json --stable 2>"$dir.herr")
    expect_eq "$label: commhint hints --format=json exits 0" "$?" 0
    expect_eq "$label: hints finds every send, receive and collective matched across ranks" \
        "$(python3 -c 'import json,sys; u=json.load(sys.stdin)["unmatched"]; print(u["sends"], u["recvs"], u["collectives"])' <<<"$js" 2>&1)" "0 0 0"
}

# ---- MPI_THREAD_MULTIPLE and pthreads ------------------------------------------
SRC=tests/e2e/programs/threads.c
K=40 M=25
LINES="mstore=$(line_of $SRC FACT:mstore) sendrecv=$(line_of $SRC FACT:sendrecv) allreduce=$(line_of $SRC FACT:allreduce) cstore=$(line_of $SRC FACT:cstore) wstore=$(line_of $SRC FACT:wstore)"
for O in -O2 -O0; do
    if ! out=$(build_prog $SRC "$WORK/threads$O" $O -pthread 2>&1); then
        not_ok "threads.c builds with commhint cc mpicc $O" "$out"; continue
    fi
    ok "threads.c builds with commhint cc mpicc $O"
    modes="runs plain"
    [ $O = -O0 ] && modes=runs # -O2 covers the rest: keep the suite short
    for mode in $modes; do
        dir=$WORK/threads$O-$mode
        if [ $mode = runs ]; then
            trace_run "$dir" "$NP" "$WORK/threads$O" $K $M
        else
            COMMHINT_RUNS=0 COMMHINT_BUFFER_KB=64 trace_run "$dir" "$NP" "$WORK/threads$O" $K $M
        fi
        expect_eq "threads $O $mode: traced run exits 0" "$?" 0
        expect_match "threads $O $mode: the program checked its results" "$(cat "$dir.out")" "^threads: ranks=$NP k=$K m=$M OK"
        expect_eq "threads $O $mode: info counts 7 threads on every rank" "$(info_threads "$dir")" "7 7 7 7"
        if ! dump_ranks "$dir"; then not_ok "threads $O $mode: dump exits 0" "$(cat "$dir.derr")"; continue; fi
        ok "threads $O $mode: dump exits 0"
        # shellcheck disable=SC2086
        python3 $CHECK threads "threads $O $mode" "$dir.dump" "$NP" $K $M $LINES
    done
    hints_ok "threads $O" "$WORK/threads$O-runs"
    [ $O = -O2 ] || continue
    python3 $CHECK same "threads $O: with runs and with COMMHINT_RUNS=0 and 64 KiB buffers" \
        "$WORK/threads$O-runs.stable" "$WORK/threads$O-plain.stable" "$NP"
    # the check above means something only if threads' chunks do interleave
    segs=$(python3 -c '
import re, sys
best = 0
for path in sys.argv[1:]:
    seq = [m.group(1) for m in (re.search(r"\"thread\":(\d+),", l) for l in open(path)) if m]
    runs = [t for i, t in enumerate(seq) if i == 0 or seq[i - 1] != t]
    best = max(best, max(runs.count(t) for t in set(runs)))
print(best)' "$WORK/threads$O-plain.stable"/rank-*.json)
    [ "${segs:-0}" -ge 2 ] && ok "threads $O plain: a thread's events come in $segs pieces between other threads' chunks" ||
        not_ok "threads $O plain: a thread's events come in pieces between other threads' chunks" "most pieces: $segs"
done

# ---- OpenMP -------------------------------------------------------------------
SRC=tests/e2e/programs/openmp.c
N=4000
LINES="ostore=$(line_of $SRC FACT:ostore) ofor=$(line_of $SRC FACT:ofor)"
if ! out=$(build_prog $SRC "$WORK/openmp" -O2 -fopenmp 2>&1); then
    not_ok "openmp.c builds with commhint cc mpicc -O2 -fopenmp" "$out"
else
    ok "openmp.c builds with commhint cc mpicc -O2 -fopenmp"
    for mode in runs plain; do
        dir=$WORK/openmp-$mode
        if [ $mode = runs ]; then
            trace_run "$dir" "$NP" "$WORK/openmp" $N
        else
            COMMHINT_RUNS=0 COMMHINT_BUFFER_KB=64 trace_run "$dir" "$NP" "$WORK/openmp" $N
        fi
        expect_eq "openmp $mode: traced run exits 0" "$?" 0
        expect_match "openmp $mode: the program checked its results" "$(cat "$dir.out")" "^openmp: ranks=$NP n=$N OK"
        expect_eq "openmp $mode: info counts 4 threads on every rank" "$(info_threads "$dir")" "4 4 4 4"
        if ! dump_ranks "$dir"; then not_ok "openmp $mode: dump exits 0" "$(cat "$dir.derr")"; continue; fi
        ok "openmp $mode: dump exits 0"
        # shellcheck disable=SC2086
        python3 $CHECK openmp "openmp $mode" "$dir.dump" "$NP" $N 0 $LINES
    done
    python3 $CHECK same "openmp: with runs and with COMMHINT_RUNS=0 and 64 KiB buffers" \
        "$WORK/openmp-runs.stable" "$WORK/openmp-plain.stable" "$NP"
    hints_ok "openmp" "$WORK/openmp-runs"
fi
