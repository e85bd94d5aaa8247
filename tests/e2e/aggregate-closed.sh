#!/usr/bin/env bash
# Sends to one rank kept apart by an event that closed the group
# (docs/dependence.md, "What --explain says of closed groups"): a program
# of ours (programs/agg-closed.c), instrumented at -O0 and -O2 and traced
# on 2 and 4 ranks; --explain names the closing line and the reason (a
# flow dependence, a fence, a send buffer overwritten after a receive),
# the normal output says nothing of them, the reference engine and
# --parallel print the same.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
MPIEXEC=${MPIEXEC:-mpiexec}
src=$P/agg-closed.c
F1=$(line_of "$src" "/* FLOW-1 */"); F2=$(line_of "$src" "/* FLOW-2 */"); FX=$(line_of "$src" "/* FLOW-X */")
F1=$((F1 - 1)); F2=$((F2 - 1)) # the MPI_Sendrecv calls span two lines
E1=$(line_of "$src" "/* FENCE-1 */"); E2=$(line_of "$src" "/* FENCE-2 */"); EX=$(line_of "$src" "/* FENCE-X */")
W1=$(line_of "$src" "/* WAIT-1 */"); W2=$(line_of "$src" "/* WAIT-2 */")
WR=$(line_of "$src" "/* WAIT-R */"); WX=$(line_of "$src" "/* WAIT-X */")
for O in -O0 -O2; do
    bin=$WORK/agg-closed$O
    check "agg-closed $O: builds" build_prog "$src" "$bin" "$O"
    for np in 2 4; do
        d=$WORK/ac$O-$np
        trace_run "$d" "$np" "$bin"
        expect_eq "agg-closed $O np=$np: traced run exits 0" "$?" 0
        txt=$("$CH" hints "$d" --explain --stable 2>&1)
        expect_match "agg-closed $O np=$np: --explain names the flow dependence" "$txt" \
            "agg-closed.c:$F1:[0-9]+: note: \[dropped aggregate\] the MPI_Sendrecv at agg-closed.c:$F1 and the MPI_Sendrecv at agg-closed.c:$F2 \(with the same ranks\) are not one message \(ranks 0-$((np - 1)), $((np * 3)) times\)"
        expect_match "agg-closed $O np=$np: the flow dependence's line and member" "$txt" \
            "agg-closed.c:$F1:[0-9]+: note:   the statement at agg-closed.c:$FX reads what the MPI_Sendrecv at agg-closed.c:$F1 received \(a flow dependence\)\$"
        expect_match "agg-closed $O np=$np: --explain names the fence" "$txt" \
            "agg-closed.c:$E1:[0-9]+: note: \[dropped aggregate\] the MPI_Send at agg-closed.c:$E1 and the MPI_Send at agg-closed.c:$E2 \(to the same rank\) are not one message"
        expect_match "agg-closed $O np=$np: the fence's line" "$txt" \
            "agg-closed.c:$E1:[0-9]+: note:   the MPI_Comm_dup at agg-closed.c:$EX is a fence: no send moves across it\$"
        expect_match "agg-closed $O np=$np: --explain names the overwrite after a receive" "$txt" \
            "agg-closed.c:$W1:[0-9]+: note:   the statement at agg-closed.c:$WX overwrites the send buffer of the MPI_Send at agg-closed.c:$W1 after the group passed the MPI_Recv at agg-closed.c:$WR, which may wait for another rank"
        expect_no_match "agg-closed $O np=$np: no group of the sends kept apart" "$txt" \
            "\[aggregate\] .*lines ($F1|$E1|$W1)"
        plain=$("$CH" hints "$d" --stable 2>&1)
        expect_no_match "agg-closed $O np=$np: the normal output says nothing of them" "$plain" \
            "not one message|dropped"
        json=$("$CH" hints "$d" --format=json --stable 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for h in d["dropped"]:
    if "not-merged" in h["flags"]:
        print(h["line"], h["next"]["line"], h["closed_at"]["line"], h["reason"])')
        expect_match "agg-closed $O np=$np: JSON dropped has the pair, the closing line and the reason" "$json" \
            "^$F1 $F2 $FX flow\$"
        expect_match "agg-closed $O np=$np: JSON names the fence" "$json" "^$E1 $E2 $EX fence\$"
        expect_match "agg-closed $O np=$np: JSON names the overwrite" "$json" "^$W1 $W2 $WX anti-after-wait\$"
        ref=$("$CH" hints "$d" --explain --stable --engine=reference 2>&1)
        if [ "$txt" = "$ref" ]; then ok "agg-closed $O np=$np: the reference engine explains the same"
        else not_ok "agg-closed $O np=$np: the reference engine explains the same" "$(diff <(echo "$txt") <(echo "$ref") | head -20)"; fi
        a=$("$CH" hints "$d" --format=json --stable 2>/dev/null)
        b=$("$CH" hints "$d" --format=json --stable --engine=reference 2>/dev/null)
        expect_eq "agg-closed $O np=$np: the reference engine's JSON is the same" "$a" "$b"
        par=$("$MPIEXEC" -n 2 "$CH" hints --parallel "$d" --explain --stable 2>&1)
        if [ "$txt" = "$par" ]; then ok "agg-closed $O np=$np: --parallel explains the same"
        else not_ok "agg-closed $O np=$np: --parallel explains the same" "$(diff <(echo "$txt") <(echo "$par") | head -20)"; fi
    done
done
