#!/usr/bin/env bash
# Facts known from the source of programs/facts.c, checked in the dumped
# trace at -O0 and -O2: a 10-iteration loop statement gives 10 events with
# two 8-byte reads and one 8-byte write and iterations 1..10; an MPI_Send of
# 100 doubles reads 800 bytes at its buffer; the matching receive carries the
# same channel sequence number; memcpy records ranges; nested loops give
# two-level iteration vectors.
source "$(dirname "$0")/lib.sh"
SRC=tests/e2e/programs/facts.c
L_LOOP=$(line_of $SRC FACT:loop)
L_SEND=$(line_of $SRC FACT:send)
L_RECV=$(line_of $SRC FACT:recv)
L_MEMCPY=$(line_of $SRC FACT:memcpy)
L_NESTED=$(line_of $SRC FACT:nested)

for O in -O0 -O2; do
    if ! out=$(build_prog $SRC "$WORK/facts$O" $O 2>&1); then
        not_ok "facts.c builds with commhint cc mpicc $O" "$out"; continue
    fi
    ok "facts.c builds with commhint cc mpicc $O"
    trace_run "$WORK/t$O" 4 "$WORK/facts$O"
    expect_eq "$O: traced run exits 0" "$?" 0
    J0=$("$CH" dump "$WORK/t$O" --rank 0 --format=json --stable)
    J1=$("$CH" dump "$WORK/t$O" --rank 1 --format=json --stable)

    loop=$(grep '"kind":"comp"' <<<"$J0" | grep "\"line\":$L_LOOP,")
    expect_eq "$O: 10 computation events at facts.c:$L_LOOP" "$(grep -c . <<<"$loop")" 10
    expect_eq "$O: each reads two 8-byte ranges and writes one" \
        "$(grep -c '"ranges":\[{"len":8,"access":"read"},{"len":8,"access":"read"},{"len":8,"access":"write"}\]' <<<"$loop")" 10
    iters=$(grep -o "\"line\":$L_LOOP,\"iter\":[0-9]*" <<<"$loop" | sed 's/.*://' | tr '\n' ' ')
    expect_eq "$O: iteration numbers 1..10 of the loop at line $L_LOOP" "$iters" "1 2 3 4 5 6 7 8 9 10 "
    expect_match "$O: the statement's site names facts.c and main" "$loop" '"file":"[^"]*facts.c","line":[0-9]+,"col":[0-9]+,"func":"main"'

    send=$(grep '"kind":"MPI_Send"' <<<"$J0" | grep "\"line\":$L_SEND,")
    expect_eq "$O: one MPI_Send at facts.c:$L_SEND" "$(grep -c . <<<"$send")" 1
    expect_match "$O: MPI_Send of 100 doubles reads 800 bytes" "$send" '"sbytes":800,'
    expect_match "$O: MPI_Send to rank 1 with tag 7" "$send" '"peer":1,"tag":7,'
    recv=$(grep '"kind":"MPI_Recv"' <<<"$J1" | grep "\"line\":$L_RECV,")
    expect_eq "$O: one MPI_Recv at facts.c:$L_RECV on rank 1" "$(grep -c . <<<"$recv")" 1
    expect_match "$O: MPI_Recv may write 800 bytes and got 800 from rank 0" "$recv" '"rbytes":800,.*"st_source":0,"st_tag":7,"st_bytes":800'
    sseq=$(grep -o '"seq":[0-9]*' <<<"$send" | cut -d: -f2)
    rseq=$(grep -o '"rseq":[0-9]*' <<<"$recv" | cut -d: -f2)
    expect_eq "$O: matched send and receive carry the same channel sequence number" "$rseq" "$sseq"
    [ -n "$sseq" ] && [ "$sseq" -ge 1 ] && ok "$O: sequence numbers start at 1" || not_ok "$O: sequence numbers start at 1" "seq=$sseq"

    mc=$(grep '"kind":"memcpy"' <<<"$J0" | grep "\"line\":$L_MEMCPY,")
    expect_eq "$O: one memcpy event at facts.c:$L_MEMCPY" "$(grep -c . <<<"$mc")" 1
    expect_match "$O: memcpy of 50 doubles reads and writes 400-byte ranges" "$mc" \
        '"ranges":\[\{"len":400,"access":"read"\},\{"len":400,"access":"write"\}\]'

    nest=$(grep '"kind":"comp"' <<<"$J0" | grep "\"line\":$L_NESTED,")
    vec=$(while read -r l; do grep -o '"iter":[0-9]\+' <<<"$l" | cut -d: -f2 | paste -sd, -; done <<<"$nest" | tr '\n' ' ')
    expect_eq "$O: nested loop statement has iteration vectors (1,1)..(3,4)" "$vec" \
        "1,1 1,2 1,3 1,4 2,1 2,2 2,3 2,4 3,1 3,2 3,3 3,4 "

    txt=$("$CH" dump "$WORK/t$O" --rank 0)
    expect_match "$O: text dump prints compiler-style locations with ranges and iterations" "$txt" \
        "facts.c:$L_LOOP:[0-9]+: comp rank=0 ev=[0-9]+ iter=\[L$L_LOOP=10\] R:0x[0-9a-f]+\+8 R:0x[0-9a-f]+\+8 W:0x[0-9a-f]+\+8"
    expect_match "$O: text dump shows the MPI_Send arguments" "$txt" \
        "facts.c:$L_SEND:[0-9]+: MPI_Send rank=0 .*sbuf=0x[0-9a-f]+\+800 dest=1 tag=7 seq=$sseq .*comm=world t="
done
