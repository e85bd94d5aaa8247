#!/usr/bin/env bash
# Clock reads are fences (docs/dependence.md, "Clock reads"): a program of
# ours (programs/timed-loop.c) that times an MPI_Iallgather and its wait
# with MPI_Wtime and reads clock_gettime between two sends, instrumented
# at -O0 and -O2 and traced on 2 and 4 ranks.  No hint moves the timed
# wait past the clock read after it (the untimed twin loop gets its
# overlap hint), the sends with a clock read between them stay apart and
# --explain says why, `commhint info` counts the clock reads by name apart
# from the untraced MPI calls, and the reference engine and --parallel
# print the same.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
MPIEXEC=${MPIEXEC:-mpiexec}
src=$P/timed-loop.c
TW=$(line_of "$src" "/* TIMED-WAIT */"); TC=$(line_of "$src" "/* TIMED-CLOCK */")
UW=$(line_of "$src" "/* UNTIMED-WAIT */")
C1=$(line_of "$src" "/* CLOCK-1 */"); CX=$(line_of "$src" "/* CLOCK-X */"); C2=$(line_of "$src" "/* CLOCK-2 */")
Q1=$(line_of "$src" "/* PLAIN-1 */"); Q2=$(line_of "$src" "/* PLAIN-2 */")
ITERS=30
for O in -O0 -O2; do
    bin=$WORK/timed-loop$O
    check "timed-loop $O: builds" build_prog "$src" "$bin" "$O"
    for np in 2 4; do
        d=$WORK/tl$O-$np
        trace_run "$d" "$np" "$bin"
        expect_eq "timed-loop $O np=$np: traced run exits 0" "$?" 0
        txt=$("$CH" hints "$d" --all --explain --stable 2>&1)
        expect_match "timed-loop $O np=$np: the untimed wait can move past the computation" "$txt" \
            "timed-loop.c:$UW:[0-9]+: note: \[overlap\] MPI_Wait can overlap with the computation"
        expect_no_match "timed-loop $O np=$np: no hint for the timed wait" "$txt" \
            "timed-loop.c:$TW:[0-9]+: note: \[overlap\]"
        expect_no_match "timed-loop $O np=$np: no MPI_Iallgather moved either" "$txt" \
            "timed-loop.c:$((TW - 1)):[0-9]+: note: \[overlap\]"
        expect_match "timed-loop $O np=$np: the sends around the clock read stay apart" "$txt" \
            "timed-loop.c:$C1:[0-9]+: note: \[dropped aggregate\] the MPI_Send at timed-loop.c:$C1 and the MPI_Send at timed-loop.c:$C2 \(to the same rank\) are not one message"
        expect_match "timed-loop $O np=$np: --explain names the clock read" "$txt" \
            "timed-loop.c:$C1:[0-9]+: note:   the clock read at timed-loop.c:$CX is a fence: the program measures time there, and a send moved across it would change what it measures\$"
        expect_match "timed-loop $O np=$np: the sends after it are one message" "$txt" \
            "timed-loop.c:$C2:[0-9]+: note: \[aggregate\] 3 MPI_Send calls to the same rank at lines $C2-$Q2 can be sent as one message"
        expect_no_match "timed-loop $O np=$np: no group crosses the clock read" "$txt" \
            "\[aggregate\] .*lines $C1-"
        expect_match "timed-loop $O np=$np: JSON names the clock read as the fence" "$(dropped_apart "$d")" \
            "^$C1 $C2 $CX fence\$"
        info=$("$CH" info "$d" 2>&1)
        expect_match "timed-loop $O np=$np: info counts the clock reads" "$info" \
            "^clock reads: +$((np * 2 * ITERS + np / 2 * ITERS)) "
        expect_match "timed-loop $O np=$np: info names them" "$info" \
            "\): MPI_Wtime=$((np * 2 * ITERS)) clock_gettime=$((np / 2 * ITERS))\$|\): clock_gettime=$((np / 2 * ITERS)) MPI_Wtime=$((np * 2 * ITERS))\$"
        expect_no_match "timed-loop $O np=$np: no untraced MPI call" "$info" "untraced MPI:"
        expect_no_match "timed-loop $O np=$np: the MPI calls line does not list them" "$info" \
            "MPI calls:.*(clock read|untraced)"
        ij=$("$CH" info "$d" --format=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sorted(d["clock_reads"].items()), d["untraced_mpi_calls"])')
        expect_eq "timed-loop $O np=$np: info's JSON has the clock reads apart" "$ij" \
            "[('MPI_Wtime', $((np * 2 * ITERS))), ('clock_gettime', $((np / 2 * ITERS)))] {}"
        same_text "timed-loop $O np=$np: the reference engine prints the same" "$txt" \
            "$("$CH" hints "$d" --all --explain --stable --engine=reference 2>&1)"
        same_text "timed-loop $O np=$np: --parallel prints the same" "$txt" \
            "$("$MPIEXEC" -n 2 "$CH" hints --parallel "$d" --all --explain --stable 2>&1)"
    done
done
