#!/usr/bin/env bash
# Every bundled example, instrumented at -O0 and -O2, runs on 4 ranks under
# `commhint run` with the same output as the uninstrumented program, and
# leaves a complete trace: 4 ranks, no rank cut short, computation and MPI
# events on every rank, readable by dump and info.
source "$(dirname "$0")/lib.sh"

for src in examples/*.c; do
    ex=$(basename "$src" .c)
    if ! out=$(mpicc -std=c11 -O2 -o "$WORK/plain-$ex" "$src" -lm 2>&1); then
        not_ok "$ex: plain build" "$out"; continue
    fi
    want=$(mpiexec -n "$NP" "$WORK/plain-$ex" 2>&1)
    for O in O0 O2; do
        bin=$B/examples/$O/$ex
        [ -x "$bin" ] || { not_ok "$ex $O: instrumented binary exists" "$bin"; continue; }
        dir=$WORK/$ex-$O
        trace_run "$dir" "$NP" "$bin"
        rc=$?
        expect_eq "$ex $O: traced run exits 0" "$rc" 0
        got=$(sed '$d' "$dir.out")
        expect_eq "$ex $O: output identical to the uninstrumented program" "$got" "$want"
        expect_eq "$ex $O: commhint run prints the trace directory last" "$(tail -1 "$dir.out")" "$(cd "$dir" && pwd -P)"
        info=$("$CH" info "$dir" --format=json)
        expect_eq "$ex $O: info exits 0" "$?" 0
        expect_match "$ex $O: 4 ranks" "$info" '"world_size":4,'
        expect_eq "$ex $O: every rank complete" "$(grep -o '"status":"complete"' <<<"$info" | wc -l)" 4
        nz=$(grep -o '"rank":[0-9]*,"present":true,"status":"complete","comp_events":[1-9][0-9]*,"mpi_events":[1-9]' <<<"$info" | wc -l)
        expect_eq "$ex $O: computation and MPI events on every rank" "$nz" 4
        n=$("$CH" dump "$dir" | wc -l)
        ev=$(grep -o '"events":[0-9]*' <<<"$info" | cut -d: -f2)
        expect_eq "$ex $O: dump prints one line per event" "$n" "$ev"
        "$CH" dump "$dir" --format=json --rank 3 >/dev/null
        expect_eq "$ex $O: json dump of rank 3 exits 0" "$?" 0
        if "$CH" dump "$dir" --rank 4 >/dev/null 2>"$WORK/err"; then
            not_ok "$ex $O: --rank beyond the world size is an error"
        else
            expect_match "$ex $O: --rank beyond the world size is an error" "$(cat "$WORK/err")" "no such rank in this trace: rank=4 world_size=4"
        fi
    done
done
