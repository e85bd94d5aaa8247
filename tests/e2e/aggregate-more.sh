#!/usr/bin/env bash
# Aggregation beyond blocking sends (docs/dependence.md, "Exchanges",
# "Nonblocking sends"): a
# program of ours (programs/agg-sendrecv.c), instrumented at -O0 and -O2
# and traced on 2 and 4 ranks, gets exactly one aggregation hint per group
# of MPI_Sendrecv (or Sendrecv_replace) with the same peers, none where
# the second send's buffer is computed from the first exchange's receive,
# the groups that would deadlock are dropped with their reason, two
# MPI_Isend completed by one MPI_Waitall are one group and two completed
# one by one none; both engines print the same hints.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
flat() { python3 tests/e2e/hints-flat.py; }
hints_of() {
    "$CH" hints "$1" --format=json --stable 2>"$WORK/hints.err" | flat 2>&1 || echo "ERROR $(cat "$WORK/hints.err")"
}
same_engines() { # what dir
    local a b
    a=$("$CH" hints "$2" --format=json --stable 2>&1)
    b=$("$CH" hints "$2" --format=json --stable --engine=reference 2>&1)
    if [ "$a" = "$b" ]; then ok "$1"; else not_ok "$1" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
}
count() { printf '%s\n' "$1" | grep -c -E -- "$2"; }

src=$P/agg-sendrecv.c
UR=$(line_of "$src" "/* HALO-UR */"); VR=$(line_of "$src" "/* HALO-VR */")
UL=$(line_of "$src" "/* HALO-UL */"); VL=$(line_of "$src" "/* HALO-VL */")
FX=$(line_of "$src" "/* FACES-X */"); FY=$(line_of "$src" "/* FACES-Y */")
F1=$(line_of "$src" "/* FLOW-1 */"); F2=$(line_of "$src" "/* FLOW-2 */")
D1=$(line_of "$src" "/* DL-1 */"); DW=$(line_of "$src" "/* DL-W */")
D2=$(line_of "$src" "/* DL-2 */"); DS=$(line_of "$src" "/* DL-S */")
R1=$(line_of "$src" "/* RH-1 */"); RW=$(line_of "$src" "/* RH-W */")
R2=$(line_of "$src" "/* RH-2 */"); RS=$(line_of "$src" "/* RH-S */")
R1=$((R1 - 1)); R2=$((R2 - 1))
I1=$(line_of "$src" "/* IS-1 */"); I2=$(line_of "$src" "/* IS-2 */")
A1=$(line_of "$src" "/* IA-1 */"); A2=$(line_of "$src" "/* IA-2 */")
# the MPI_Sendrecv calls span two lines: the hint is at the call's first
UR=$((UR - 1)); VR=$((VR - 1)); UL=$((UL - 1)); VL=$((VL - 1)); FX=$((FX - 1)); FY=$((FY - 1))
F1=$((F1 - 1)); F2=$((F2 - 1)); D1=$((D1 - 1)); D2=$((D2 - 1))
for O in -O0 -O2; do
    bin=$WORK/agg-sendrecv$O
    check "agg-sendrecv $O: builds" build_prog "$src" "$bin" "$O"
    for np in 2 4; do
        d=$WORK/as$O-$np
        trace_run "$d" "$np" "$bin"
        expect_eq "agg-sendrecv $O np=$np: traced run exits 0" "$?" 0
        h=$(hints_of "$d")
        agg=$(printf '%s\n' "$h" | grep "^aggregate")
        if [ "$np" = 2 ]; then
            # left and right are the same rank: the four exchanges are one group
            expect_match "agg-sendrecv $O np=2: the halo's four MPI_Sendrecv are one group" "$agg" \
                "^aggregate MPI_Sendrecv [^ ]*:$UR ranks=0,1 .*related=$VR:member,$UL:member,$VL:member\$"
            expect_eq "agg-sendrecv $O np=2: one hint for the halo" "$(count "$agg" ":($UR|$VR|$UL|$VL)[ :]")" 1
        else
            expect_match "agg-sendrecv $O np=4: the two exchanges to the right are one group" "$agg" \
                "^aggregate MPI_Sendrecv [^ ]*:$UR ranks=0,1,2,3 .*related=$VR:member\$"
            expect_match "agg-sendrecv $O np=4: the two exchanges to the left are one group" "$agg" \
                "^aggregate MPI_Sendrecv [^ ]*:$UL ranks=0,1,2,3 .*related=$VL:member\$"
            expect_eq "agg-sendrecv $O np=4: one hint per direction" "$(count "$agg" ":($UR|$VR|$UL|$VL)[ :]")" 2
        fi
        expect_match "agg-sendrecv $O np=$np: the two MPI_Sendrecv_replace are one group" "$agg" \
            "^aggregate MPI_Sendrecv_replace [^ ]*:$FX ranks=[0-9,]+ .*related=$FY:member\$"
        expect_eq "agg-sendrecv $O np=$np: one hint for the faces" "$(count "$agg" ":($FX|$FY)[ :]")" 1
        expect_eq "agg-sendrecv $O np=$np: no group when the second send needs the first receive" \
            "$(count "$agg" ":($F1|$F2)[ :]")" 0
        expect_eq "agg-sendrecv $O np=$np: no hint for the group that would deadlock" \
            "$(count "$agg" ":($D1|$D2)[ :]")" 0
        why=$("$CH" hints "$d" --format=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(h["kind"] + " " + str(h["line"]) + ": " + (h.get("explain") or "") for h in d.get("dropped", [])))')
        expect_match "agg-sendrecv $O np=$np: the dropped group names the chain" "$why" \
            "^aggregate $D1: delaying the MPI_Sendrecv at agg-sendrecv.c:$D1 \(rank 0 to rank 1\) past the MPI_Recv at agg-sendrecv.c:$DW would deadlock: rank 1 receives that message at agg-sendrecv.c:$D1, and only then sends, at agg-sendrecv.c:$DS, the message rank 0 waits for there"
        expect_eq "agg-sendrecv $O np=$np: no hint when delaying a receive half would deadlock" \
            "$(count "$agg" ":($R1|$R2)[ :]")" 0
        expect_match "agg-sendrecv $O np=$np: the dropped group names the send that waits for the receive" "$why" \
            "^aggregate $R1: delaying the MPI_Sendrecv at agg-sendrecv.c:$R1 \(rank 0 from rank 1\) past the MPI_Recv at agg-sendrecv.c:$RW could deadlock: rank 1 sends, at agg-sendrecv.c:$RS, the message received there \(a send that may wait until the receive is posted\)"
        expect_match "agg-sendrecv $O np=$np: two MPI_Isend completed by one MPI_Waitall are one group" "$agg" \
            "^aggregate MPI_Isend [^ ]*:$I1 ranks=0,1(,2,3)? .*related=$I2:member\$"
        expect_eq "agg-sendrecv $O np=$np: one hint for them" "$(count "$agg" ":($I1|$I2)[ :]")" 1
        expect_eq "agg-sendrecv $O np=$np: no group of MPI_Isend completed one by one" \
            "$(count "$h" "^aggregate .*:($A1|$A2)[ :]")" 0
        txt=$("$CH" hints "$d" --kind=aggregate 2>/dev/null)
        expect_match "agg-sendrecv $O np=$np: the text says what to write" "$txt" \
            "agg-sendrecv.c:$FX:[0-9]+: note: \[aggregate\] 2 MPI_Sendrecv_replace calls with the same ranks at lines $FX, $FY can be one MPI_Sendrecv_replace of their packed buffers"
        expect_match "agg-sendrecv $O np=$np: the text says what to write for MPI_Isend" "$txt" \
            "agg-sendrecv.c:$I1:[0-9]+: note: \[aggregate\] 2 MPI_Isend calls to the same rank at lines $I1-$I2, completed together, can be one MPI_Isend of their packed buffers"
        same_engines "agg-sendrecv $O np=$np: streaming and reference engines agree" "$d"
    done
done
