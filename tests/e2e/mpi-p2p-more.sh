#!/usr/bin/env bash
# The point-to-point calls recorded with their own semantics since issue 15
# (item 4): matched probes, MPI_Isendrecv(_replace), partitioned
# communication, MPI_Cancel / MPI_Test_cancelled and the large-count _c
# forms, and persistent requests started per MPI_Start/MPI_Startall.  Four
# programs of our own, each built at -O0 and -O2 and traced on 2 ranks:
#
#   programs/p2p-mprobe.c       Mprobe + Mrecv (m1), Improbe + Imrecv (m2),
#       a probe of MPI_PROC_NULL (m3), MPI_Send_c / MPI_Recv_c (c1), a
#       cancelled receive followed by a real message on its channel (x1);
#   programs/p2p-isendrecv.c    Isendrecv (s1), Isendrecv_replace (s2);
#   programs/p2p-partitioned.c  Psend_init / Precv_init started twice,
#       Pready, Pready_range, Pready_list, Parrived;
#   programs/p2p-persistent.c   Send_init/Recv_init with MPI_Startall and
#       MPI_Waitall in a loop (q1), Send_init with MPI_Start, a blocking
#       receive and MPI_Wait (q2).
#
# Checked per program and build: the traced run prints what the untraced
# one prints; the statements a call needs (the count from the probe's
# status and the malloc feeding an Mrecv; a status or buffer read after a
# receive or a wait; a send buffer written after the wait of an Isendrecv
# or a partitioned send) are never related lines of its overlap hint, and
# the independent loop next to them is; every message is matched (the
# cancelled receive moves none, and the real one after it still matches);
# the streaming and reference engines agree; `commhint dump` shows the
# calls with their buffers, partitions, sequence numbers and the
# cancellation; `commhint info` lists no untraced call.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs

# patterns of each program: label|call|needed|indep|role
MPROBE='m1 count and buffer from the probed status|MP-MRECV|MP-COUNT MP-MALLOC|MP-INDEP|before
m1 status and buffer read after MPI_Mrecv|MP-MRECV|MP-STATUS MP-USE|MP-RECV-INDEP|after
m2 buffer read after the wait of MPI_Imrecv|IM-WAIT|IM-USE|IM-INDEP|after'
ISENDRECV='s1 send buffer written, receive buffer read after the wait of MPI_Isendrecv|IS-WAIT|IS-SWRITE IS-USE|IS-INDEP|after
s2 buffer read after the wait of MPI_Isendrecv_replace|ISR-WAIT|ISR-USE|ISR-INDEP|after'
PARTITIONED='p1 send buffer written after the wait of a partitioned send|PT-SWAIT|PT-SWRITE|PT-SINDEP|after
p2 receive buffer read after the wait of a partitioned receive|PT-RWAIT|PT-USE|PT-RINDEP|after'
PERSISTENT='q1 buffers used after the MPI_Waitall of persistent requests|PS-WAIT|PS-USE PS-SWRITE|PS-INDEP|after
q2 send buffer rewritten after the wait of a started persistent send|PS1-WAIT|PS1-SWRITE|PS1-INDEP|after'

# unmatched JSON: "sends recvs collectives" left unmatched across ranks
unmatched() {
    python3 -c 'import json,sys; u=json.load(sys.stdin)["unmatched"]; print(u["sends"], u["recvs"], u["collectives"])' <<<"$1" 2>&1
}

# program NAME PATTERNS: build (plain and with the pass), trace and check one
# program; leaves the traces in $WORK/NAME-O.trace.
program() {
    local name=$1 pats=$2 src=$P/$1.c O bin dir js a b want label call needed indep role
    for O in -O0 -O2; do
        bin=$WORK/$name$O
        dir=$WORK/$name$O.trace
        check "$name $O: builds" build_prog "$src" "$bin" "$O"
        check "$name $O: builds without the pass" mpicc -g "$O" -o "$bin-plain" "$src"
        want=$(timeout 60 mpiexec -n 2 "$bin-plain" 2>&1)
        trace_run "$dir" 2 "$bin"
        expect_eq "$name $O: traced run exits 0" "$?" 0
        expect_match "$name $O: prints its checksum" "$(cat "$dir.out")" "^$name: sum="
        expect_eq "$name $O: tracing leaves the output unchanged" "$(grep "^$name:" "$dir.out")" "$want"
        js=$("$CH" hints "$dir" --format=json 2>"$WORK/hints.err")
        expect_eq "$name $O: hints exits 0" "$?" 0
        while IFS='|' read -r label call needed indep role; do
            pattern "$name" "$O" "$js" "$src" "$label" "$call" "$needed" "$indep" "$role"
        done <<<"$pats"
        expect_eq "$name $O: every message and collective is matched" "$(unmatched "$js")" "0 0 0"
        a=$("$CH" hints "$dir" --format=json --stable 2>&1)
        b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>&1)
        if [ "$a" = "$b" ]; then ok "$name $O: streaming and reference engines agree"; else
            not_ok "$name $O: streaming and reference engines agree" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
        got=$("$CH" info "$dir" --format=json 2>&1 | python3 -c '
import json, sys
print(json.load(sys.stdin)["untraced_mpi_calls"])' 2>&1)
        expect_eq "$name $O: info lists no untraced MPI call" "$got" "{}"
        for r in 0 1; do
            "$CH" dump "$dir" --rank $r --format=json --stable >"$WORK/$name$O.r$r.json"
            "$CH" dump "$dir" --rank $r --stable >"$WORK/$name$O.r$r.txt"
        done
    done
}

# ev NAME O RANK MARKER: the JSON events of RANK at the line of /* MARKER */
ev() { grep "\"line\":$(line_of "$P/$1.c" "/* $4 */")," "$WORK/$1$2.r$3.json"; }
fact() { # what name O rank marker regex
    expect_match "$2 $3: $1" "$(ev "$2" "$3" "$4" "$5")" "$6"
}

program p2p-mprobe "$MPROBE"
program p2p-isendrecv "$ISENDRECV"
program p2p-partitioned "$PARTITIONED"
program p2p-persistent "$PERSISTENT"

for O in -O0 -O2; do
    # matched probes: the probe numbers the message, the receive carries its number
    fact "MPI_Mprobe numbers the message it takes (status 0:21:256, rseq 1)" p2p-mprobe $O 1 MP-PROBE \
        '"kind":"MPI_Mprobe".*"rpeer":0,"rtag":21,"st_source":0,"st_tag":21,"st_bytes":256,.*"rseq":1,'
    fact "MPI_Mrecv receives the probed message: 256 bytes from 0, tag 21, rseq 1" p2p-mprobe $O 1 MP-MRECV \
        '"kind":"MPI_Mrecv".*"rbytes":256,.*"rpeer":0,"rtag":21,"st_source":0,"st_tag":21,"st_bytes":256,.*"rseq":1,'
    fact "MPI_Imrecv carries the probe's number, its wait completes it" p2p-mprobe $O 1 IM-WAIT \
        '"completed":\[\{"request":1,"recv":true,"st_source":0,"st_tag":22,"st_bytes":512,"rseq":1\}\]'
    fact "MPI_Mrecv of MPI_MESSAGE_NO_PROC receives nothing" p2p-mprobe $O 1 NP-MRECV \
        '"kind":"MPI_Mrecv".*"rpeer":-3,.*"st_source":-3,.*"rseq":0,'
    # large count
    fact "MPI_Send_c: LARGE_COUNT, 512 bytes, seq 1" p2p-mprobe $O 0 LC-SEND \
        '"kind":"MPI_Send_c","[^}]*"flags":2048,.*"sbytes":512,.*"peer":1,"tag":24,.*"seq":1,.*"count":64,'
    fact "MPI_Recv_c: LARGE_COUNT, matched by rseq 1" p2p-mprobe $O 1 LC-RECV \
        '"kind":"MPI_Recv_c",.*"rbytes":512,.*"st_source":0,"st_tag":24,"st_bytes":512,.*"rseq":1,'
    # cancel
    fact "MPI_Cancel names its request" p2p-mprobe $O 1 CANCEL '"kind":"MPI_Cancel",.*"request":2,'
    fact "the wait completes the receive as cancelled: no source, no number" p2p-mprobe $O 1 CANCEL-WAIT \
        '"completed":\[\{"request":2,"recv":true,"st_source":-1,"st_tag":-1,"st_bytes":0,"rseq":0,"cancelled":true\}\]'
    fact "MPI_Test_cancelled reads the status" p2p-mprobe $O 1 CANCEL-TEST '"kind":"MPI_Test_cancelled"'
    fact "the receive after the cancelled one takes its number back (rseq 1)" p2p-mprobe $O 1 CANCEL-RECV \
        '"kind":"MPI_Recv",.*"st_source":0,"st_tag":25,.*"rseq":1,'
    expect_match "p2p-mprobe $O: dump shows the matched probe and receive" \
        "$(cat "$WORK/p2p-mprobe$O.r1.txt")" 'MPI_Mrecv rank=1 .* rbuf=\+256 src=0 tag=21 status=0:21:256 rseq=1'
    expect_match "p2p-mprobe $O: dump shows the cancellation" \
        "$(cat "$WORK/p2p-mprobe$O.r1.txt")" 'MPI_Wait rank=1 .*done=req2:recv:cancelled'
    # Isendrecv
    for r in 0 1; do
        fact "rank $r MPI_Isendrecv: both buffers, seq and rseq 1" p2p-isendrecv $O $r IS-CALL \
            "\"kind\":\"MPI_Isendrecv\".*\"sbytes\":512,\"rbytes\":512,\"peer\":$((1 - r)),\"tag\":31,\"rpeer\":$((1 - r)),\"rtag\":31,.*\"request\":1,\"seq\":1,\"rseq\":1,"
        fact "rank $r its wait completes the receive from $((1 - r))" p2p-isendrecv $O $r IS-WAIT \
            "\"completed\":\[\{\"request\":1,\"recv\":true,\"st_source\":$((1 - r)),\"st_tag\":31,\"st_bytes\":512,\"rseq\":1\}\]"
    done
    expect_match "p2p-isendrecv $O: dump shows MPI_Isendrecv_replace" \
        "$(cat "$WORK/p2p-isendrecv$O.r0.txt")" 'MPI_Isendrecv_replace rank=0 .*sbuf=\+512 dest=1 tag=32 seq=1 rbuf=\+512 src=1 tag=32 rseq=1'
    # partitioned
    fact "a start of MPI_Psend_init sends the whole buffer" p2p-partitioned $O 0 PT-SWAIT '"completed":\[\{"request":[12],"recv":false'
    expect_match "p2p-partitioned $O: dump shows each start as a send of the whole buffer" \
        "$(cat "$WORK/p2p-partitioned$O.r0.txt")" 'MPI_Start\(MPI_Psend_init\) rank=0 .*sbuf=\+1024 dest=1 tag=41 seq=2 req=2'
    expect_eq "p2p-partitioned $O: MPI_Pready reads its partition (128 bytes), 8 times" \
        "$(grep -c 'MPI_Pready rank=0 .*parts=+128 partitions=1 req=[12] ' "$WORK/p2p-partitioned$O.r0.txt")" 8
    expect_match "p2p-partitioned $O: MPI_Pready_range reads two partitions" \
        "$(cat "$WORK/p2p-partitioned$O.r0.txt")" 'MPI_Pready_range rank=0 .*parts=\+256 partitions=2 req=1 '
    expect_match "p2p-partitioned $O: MPI_Pready_list reads the hull of its partitions" \
        "$(cat "$WORK/p2p-partitioned$O.r0.txt")" 'MPI_Pready_list rank=0 .*parts=\+256 partitions=2 req=2 '
    expect_eq "p2p-partitioned $O: MPI_Parrived writes partition 0 once it arrived, per start" \
        "$(grep -c 'MPI_Parrived rank=1 .*parts=+128 partitions=1 req=[12] .*comm' "$WORK/p2p-partitioned$O.r1.txt")" 2
    expect_eq "p2p-partitioned $O: an MPI_Parrived that found nothing writes nothing" \
        "$(grep 'MPI_Parrived rank=1 ' "$WORK/p2p-partitioned$O.r1.txt" | grep 'flag=false' | grep -c 'parts=')" 0
    expect_match "p2p-partitioned $O: the receive's wait completes start 2 with rseq 2" \
        "$(cat "$WORK/p2p-partitioned$O.r1.txt")" 'MPI_Wait rank=1 .*done=req2:recv:0:41:1024:rseq2'
done
