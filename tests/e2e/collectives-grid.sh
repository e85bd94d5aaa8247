#!/usr/bin/env bash
# Communicators of two ranks (issue 16, item 5): programs/coll-grid2.c
# passes a vector along each row of a process grid in a hand-written ring
# and gathers blocks down each column by hand, on row and column
# communicators made with MPI_Comm_split.
#   4 ranks (2x2, -O0 and -O2): every row and column has two ranks, each
#     round is one message: no collective hint, and `--explain` says so for
#     the ring and the gather, one line per pair of sites, naming them and
#     "the two ranks"; the plain output does not mention it; JSON has both
#     in `dropped` (kind collective, no collective named); the reference
#     engine and `--parallel 2` and `3` agree.
#   9 ranks (3x3): MPI_Bcast at the ring and MPI_Gather at the gather, and
#     no two-ranks line.
#   6 ranks (2 rows of 3): MPI_Bcast at the ring; the columns have two
#     ranks: the gather gets the two-ranks line, the ring none; the same
#     at `--parallel 2` and `4` (the ring's records, claimed by the
#     MPI_Bcast hint, are left out by the process of each of their ends).
source "$(dirname "$0")/lib.sh"

src=tests/e2e/programs/coll-grid2.c
f=coll-grid2.c
m() { line_of "$src" "/* $1 */"; }
RS=$(m RING-SEND); RR=$(m RING-RECV); GS=$(m GATHER-SEND); GR=$(m GATHER-RECV)

# One line per dropped collective entry of the JSON: <file>:<line> collective=<c> message
dropped_of() {
    python3 -c '
import json, sys
for h in json.load(sys.stdin)["dropped"]:
    if h["kind"] == "collective":
        print("%s:%d collective=%s %s" % (h["file"].rsplit("/", 1)[-1], h["line"], h["collective"], h["message"]))
' <<<"$1" 2>&1
}

two() { echo "$f:$1:[0-9]+: note: \\[dropped collective\\] the MPI_Send calls at line $1 and the MPI_Recv calls at line $2 move data only between the two ranks of their communicator \\(([0-9]+) messages\\)\$"; }
why="note:   each round is one message, .* with 3 or more ranks per communicator these sites are checked for collectives\$"

for O in -O0 -O2; do
    bin=$WORK/grid$O
    check "grid $O: builds" build_prog "$src" "$bin" "$O"
    dir=$WORK/t4$O
    trace_run "$dir" 4 "$bin"
    expect_eq "grid $O 4 ranks: traced run exits 0" "$?" 0
    expect_match "grid $O 4 ranks: a 2x2 grid, with its checksum" "$(cat "$dir.out")" \
        "^coll-grid2: ranks=4 grid=2x2 checksum="
    expect_eq "grid $O 4 ranks: no collective hint on communicators of two ranks" "$(coll_lines "$dir")" ""
    x=$("$CH" hints "$dir" --kind=collective --stable --explain 2>&1)
    expect_match "grid $O 4 ranks: --explain: the ring's sites move data between two ranks only" "$x" "$(two "$RS" "$RR")"
    expect_match "grid $O 4 ranks: --explain: the gather's sites move data between two ranks only" "$x" "$(two "$GS" "$GR")"
    expect_match "grid $O 4 ranks: --explain: why, at the ring's send" "$x" "$f:$RS:[0-9]+: $why"
    expect_eq "grid $O 4 ranks: --explain: one entry per pair of sites, nothing else dropped" \
        "$(printf '%s\n' "$x" | grep -c '\[dropped')" 2
    expect_eq "grid $O 4 ranks: the ring's entry counts its 6 messages (3 iterations x 2 rows)" \
        "$(printf '%s\n' "$x" | grep -E "$(two "$RS" "$RR")" | sed -E 's/.*\(([0-9]+) messages\)$/\1/')" 6
    plain=$("$CH" hints "$dir" --stable 2>"$WORK/plain.err")
    expect_no_match "grid $O 4 ranks: without --explain no word of it on stdout" "$plain" "two ranks|dropped"
    expect_match "grid $O 4 ranks: the summary points to --explain" "$(cat "$WORK/plain.err")" \
        "2 dropped by cross-rank checks \(--explain\)"
    js=$("$CH" hints "$dir" --format=json --stable 2>"$WORK/js.err")
    d=$(dropped_of "$js")
    expect_match "grid $O 4 ranks: json: the ring in dropped, no collective named" "$d" \
        "^$f:$RS collective=None the MPI_Send calls at line $RS and the MPI_Recv calls at line $RR move data only between the two ranks"
    expect_match "grid $O 4 ranks: json: the gather in dropped" "$d" "^$f:$GS collective=None "
    if [ "$O" = -O2 ]; then
        b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>"$WORK/js.err")
        if [ "$js" = "$b" ]; then ok "grid $O 4 ranks: streaming and reference engines agree"; else
            not_ok "grid $O 4 ranks: streaming and reference engines agree" "$(diff <(echo "$js") <(echo "$b") | head -20)"; fi
        for k in 2 3; do
            c=$(timeout 120 mpiexec -n $k "$CH" hints --parallel "$dir" --format=json --stable 2>"$WORK/par.err")
            if [ "$js" = "$c" ]; then ok "grid $O 4 ranks: --parallel $k gives the same JSON"; else
                not_ok "grid $O 4 ranks: --parallel $k gives the same JSON" "$(diff <(echo "$js") <(echo "$c") | head -20)"; fi
        done
    fi
done

# 9 ranks (3x3, oversubscribed) and 6 ranks (2x3), at -O2
bin=$WORK/grid-O2
for np in 9 6; do
    dir=$WORK/t$np
    trace_run "$dir" "$np" "$bin"
    expect_eq "grid $np ranks: traced run exits 0" "$?" 0
    h=$(coll_lines "$dir")
    expect_match "grid $np ranks: the ring along each row is an MPI_Bcast" "$h" "^MPI_Bcast $f:$RS related=$RR\$"
    x=$("$CH" hints "$dir" --kind=collective --stable --explain 2>&1)
    expect_no_match "grid $np ranks: --explain: no two-ranks line for the ring" "$x" "$f:$RS:[0-9]+: .*two ranks"
done
expect_match "grid 9 ranks: the gather down each column is an MPI_Gather" "$(coll_lines "$WORK/t9")" \
    "^MPI_Gather $f:$GR related=$GS\$"
expect_no_match "grid 9 ranks: --explain: nothing about two ranks" \
    "$("$CH" hints "$WORK/t9" --kind=collective --stable --explain 2>&1)" "two ranks"
expect_no_match "grid 6 ranks: no MPI_Gather on columns of two ranks" "$(coll_lines "$WORK/t6")" "^MPI_Gather"
x6=$("$CH" hints "$WORK/t6" --kind=collective --stable --explain 2>&1)
expect_match "grid 6 ranks: --explain: the gather's sites move data between two ranks only" "$x6" "$(two "$GS" "$GR")"
# spread, each process scans its ranks' logs for the pairs of sites, leaving
# out the records the MPI_Bcast hint claimed on its ranks and their peers'
js6=$("$CH" hints "$WORK/t6" --format=json --stable 2>/dev/null)
for k in 2 4; do
    c=$(timeout 120 mpiexec -n $k "$CH" hints --parallel "$WORK/t6" --format=json --stable 2>/dev/null)
    if [ "$js6" = "$c" ]; then ok "grid 6 ranks: --parallel $k gives the same JSON (hints and dropped)"; else
        not_ok "grid 6 ranks: --parallel $k gives the same JSON (hints and dropped)" "$(diff <(echo "$js6") <(echo "$c") | head -20)"; fi
    c=$(timeout 120 mpiexec -n $k "$CH" hints --parallel "$WORK/t6" --kind=collective --stable --explain 2>&1)
    expect_eq "grid 6 ranks: --parallel $k: the same --explain" "$c" "$x6"
done
