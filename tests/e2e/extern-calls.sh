#!/usr/bin/env bash
# Calls into code built without the pass are fences (docs/dependence.md,
# "Calls into code built without the pass"): a program of ours
# (programs/extern-calls.c) linked with a file built with the pass
# (extern-calls-helper.c) and one built without it (extern-calls-lib.c,
# plain mpicc), at -O0 and -O2 on 2 and 4 ranks.  No hint moves the wait of
# the MPI_Sendrecv whose buffer lib_sum reads past that call, where the
# twin loop calling helper_sum gets its overlap hint; the sends around a
# lib_sum call stay apart and --explain says why; the broadcasts of names
# rank 0 writes with snprintf are not merged and no wait moves past the
# qsort that reads them; `commhint info` counts the calls by name apart
# from the MPI calls; the reference engine and --parallel print the same.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
MPIEXEC=${MPIEXEC:-mpiexec}
src=$P/extern-calls.c
LC=$(line_of "$src" "/* LIB-CALL */"); LR=$(line_of "$src" "/* LIB-READ */")
HC=$(line_of "$src" "/* HELPER-CALL */"); HR=$(line_of "$src" "/* HELPER-READ */")
HU=$(line_of "$src" "/* HELPER-USE */")
S1=$(line_of "$src" "/* SEND-1 */"); SF=$(line_of "$src" "/* SEND-FENCE */"); S2=$(line_of "$src" "/* SEND-2 */")
NB=$(line_of "$src" "/* NAME-BCAST */"); NS=$(line_of "$src" "/* NAME-SORT */")
ITERS=20
for O in -O0 -O2; do
    bin=$WORK/extern-calls$O
    check "extern-calls $O: the library builds without the pass" \
        mpicc -g "$O" -c "$P/extern-calls-lib.c" -o "$WORK/lib$O.o"
    check "extern-calls $O: builds" build_prog "$src" "$bin" "$O" "$P/extern-calls-helper.c" "$WORK/lib$O.o"
    for np in 2 4; do
        d=$WORK/un$O-$np
        trace_run "$d" "$np" "$bin"
        expect_eq "extern-calls $O np=$np: traced run exits 0" "$?" 0
        expect_match "extern-calls $O np=$np: the program's result is unchanged" "$(cat "$d.out")" \
            "^total [0-9.]+, first host-0, 0 duplicates\$"
        txt=$("$CH" hints "$d" --all --explain --stable 2>&1)
        expect_no_match "extern-calls $O np=$np: no hint for the exchange lib_sum reads" "$txt" \
            "extern-calls.c:$LC:[0-9]+: note: \[overlap\]"
        expect_match "extern-calls $O np=$np: the twin exchange's wait moves past helper_sum" "$txt" \
            "extern-calls.c:$HC:[0-9]+: note:   to apply: start the MPI_Sendrecv as MPI_Isendrecv where it is \(line $HC\), and MPI_Wait for it right before the loop at line $HU\$"
        expect_match "extern-calls $O np=$np: helper_sum's loop is in the window" "$txt" \
            "extern-calls-helper.c:[0-9]+:[0-9]+: note:   can run before the wait: the loop at "
        expect_no_match "extern-calls $O np=$np: no group of sends crosses lib_sum" "$txt" \
            "send it with one MPI_Send where the last of them is \(line $S2\)"
        expect_match "extern-calls $O np=$np: the group round the loop is sent where its last send runs" "$txt" \
            "send it with one MPI_Send where the last of them is \(line $S1, in the next iteration of the loop around them\)"
        expect_match "extern-calls $O np=$np: --explain names lib_sum as a fence" "$txt" \
            "note:   the call into code built without commhint's pass at extern-calls.c:$LR is a fence: what that code reads and writes is not in the trace, so no send moves across it\$"
        expect_no_match "extern-calls $O np=$np: the broadcasts of names are not merged" "$txt" \
            "extern-calls.c:$NB:[0-9]+: note: \[collective\]"
        expect_match "extern-calls $O np=$np: --explain says why" "$txt" \
            "extern-calls.c:$NB:[0-9]+: note: \[dropped collective\] the MPI_Bcast calls at lines $NB, $NB are not one MPI_Bcast"
        expect_no_match "extern-calls $O np=$np: no wait moves past the sort" "$txt" \
            "right before (the loop at )?line ($((NS + 1))|$((NS + 2))|$((NS + 3)))"
        expect_match "extern-calls $O np=$np: JSON names lib_sum as the fence" \
            "$(dropped_apart "$d" | awk '$4 == "fence" { print $1, $3 }' | sort -u)" "^$LC $LR\$"
        info=$("$CH" info "$d" 2>&1)
        expect_match "extern-calls $O np=$np: info counts the calls apart" "$info" \
            "^uninstrumented: +[0-9]+ calls into code built without the pass"
        expect_match "extern-calls $O np=$np: info names lib_sum" "$info" \
            " lib_sum=$((np * ITERS + np / 2 * ITERS))( |\$)"
        expect_no_match "extern-calls $O np=$np: the MPI calls line does not list them" "$info" \
            "MPI calls:.*(lib_sum|qsort|uninstrumented)"
        ij=$("$CH" info "$d" --format=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
u = d["uninstrumented_calls"]
print(u.get("lib_sum"), u.get("qsort"), u.get("snprintf"), "helper_sum" in u, d["untraced_mpi_calls"], d["clock_reads"])')
        expect_eq "extern-calls $O np=$np: info's JSON counts them by name" "$ij" \
            "$((np * ITERS + np / 2 * ITERS)) $np 8 False {} {}"
        same_text "extern-calls $O np=$np: the reference engine prints the same" "$txt" \
            "$("$CH" hints "$d" --all --explain --stable --engine=reference 2>&1)"
        same_text "extern-calls $O np=$np: --parallel prints the same" "$txt" \
            "$("$MPIEXEC" -n 2 "$CH" hints --parallel "$d" --all --explain --stable 2>&1)"
    done
done
