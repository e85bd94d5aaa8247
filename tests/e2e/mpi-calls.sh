#!/usr/bin/env bash
# Every wrapped MPI call of programs/mpi-calls.c, traced on 4 ranks at -O0
# and -O2: buffers and extents (incl. a derived datatype), world-rank peers,
# wildcards resolved by the status, channel sequence numbers that match
# sends to receives, requests and their completions, collective numbering,
# per-rank blocks, and communicator ids that agree across ranks.
source "$(dirname "$0")/lib.sh"
SRC=tests/e2e/programs/mpi-calls.c

for O in -O0 -O2; do
    if ! out=$(build_prog $SRC "$WORK/mpi-calls$O" $O 2>&1); then
        not_ok "mpi-calls.c builds $O" "$out"; continue
    fi
    trace_run "$WORK/t$O" 4 "$WORK/mpi-calls$O"
    expect_eq "$O: traced run exits 0" "$?" 0
    expect_eq "$O: every rank's own data checks pass" "$(grep -c 'mpi-calls: rank [0-3] ok' "$WORK/t$O.out")" 4
    for r in 0 1 2 3; do
        "$CH" dump "$WORK/t$O" --rank $r --format=json --stable >"$WORK/r$r$O.json"
    done
    # ev R NAME: the JSON events of rank R at the line marked FACT:NAME
    ev() { grep "\"line\":$(line_of $SRC "FACT:$2 ")," "$WORK/r$1$O.json"; }
    fact() { # what rank name regex
        expect_match "$O: $1" "$(ev "$2" "$3")" "$4"
    }
    fact "MPI_Send of 100 doubles: 800 bytes to rank 1 tag 7, seq 1" 0 send \
        '"kind":"MPI_Send".*"sbytes":800,.*"peer":1,"tag":7,.*"seq":1,.*"count":100,"datatype_size":8,"comm_size":4'
    fact "matching MPI_Recv: status 0/7/800, rseq 1" 1 recv \
        '"kind":"MPI_Recv".*"rbytes":800,.*"rpeer":0,"rtag":7,"st_source":0,"st_tag":7,"st_bytes":800,.*"rseq":1,'
    fact "MPI_ANY_SOURCE receive resolved by its status to the Ssend (rseq 2)" 1 recv_any \
        '"flags":516,.*"rpeer":-2,.*"st_source":0,"st_tag":7,"st_bytes":40,.*"rseq":2,'
    fact "MPI_ANY_TAG receive resolved by its status" 3 recv_anytag '"flags":520,.*"rtag":-2,"st_source":2,"st_tag":3,"st_bytes":20,.*"rseq":1,'
    fact "Wait completes the Irecv with its status in a COMPLETE record" 3 wait_rsend \
        '"completed":\[\{"request":1,"recv":true,"st_source":2,"st_tag":4,"st_bytes":24,"rseq":1\}\]'
    fact "Iprobe that finds nothing is flagged" 0 iprobe_none '"kind":"MPI_Iprobe","[^}]*"flags":68,'
    for r in 0 1 2 3; do
        left=$(( (r + 3) % 4 )); right=$(( (r + 1) % 4 ))
        fact "rank $r ring Isend to $right, 200 bytes, seq 1" $r ring_isend "\"kind\":\"MPI_Isend\".*\"sbytes\":200,.*\"peer\":$right,\"tag\":20,.*\"seq\":1,"
        fact "rank $r Waitall completes a receive from $left and a send" $r waitall \
            "\"completed\":\[\{\"request\":[0-9]+,\"recv\":true,\"st_source\":$left,\"st_tag\":20,\"st_bytes\":200,\"rseq\":1\},\{\"request\":[0-9]+,\"recv\":false"
        fact "rank $r Sendrecv: both halves with seq/rseq 1" $r sendrecv \
            "\"sbytes\":32,\"rbytes\":32,\"peer\":$right,\"tag\":50,\"rpeer\":$left,\"rtag\":50,\"st_source\":$left,.*\"seq\":1,\"rseq\":1,"
    done
    fact "Waitany resolves the wildcard Irecv (rseq 1)" 2 waitany '"completed":\[\{"request":3,"recv":true,"st_source":0,"st_tag":21,"st_bytes":32,"rseq":1\}\]'
    fact "Test with no completion is flagged and completes nothing" 1 test_none '"flags":64,.*"completed":\[\]'
    fact "Request_free completes the Isend" 0 request_free '"completed":\[\{"request":5,"recv":false'
    fact "derived datatype: MPI_Type_vector send covers its true extent (136 bytes)" 2 send_vector \
        '"sbytes":136,.*"peer":0,"tag":70,.*"count":1,"datatype_size":64,'
    fact "Bcast root reads, seq 5" 1 bcast '"flags":128,.*"sbytes":40,"rbytes":0,"peer":1,.*"seq":5,'
    fact "Bcast non-root writes" 0 bcast '"sbytes":0,"rbytes":40,"peer":1,.*"seq":5,'
    fact "Reduce with MPI_SUM at root 2" 2 reduce '"flags":128,.*"sbytes":40,"rbytes":40,"peer":2,.*"seq":6,.*"op":"MPI_SUM"'
    fact "Allreduce with MPI_IN_PLACE" 3 allreduce_inplace '"flags":1,.*"sbytes":0,"rbytes":12,.*"seq":7,.*"op":"MPI_MAX"'
    fact "Gatherv root has per-rank receive blocks" 3 gatherv '"rbytes":52,.*"rblocks":\[\[0,4\],\[8,8\],\[20,12\],\[36,16\]\]'
    fact "Scatterv root has per-rank send blocks" 0 scatterv '"sblocks":\[\[24,16\],\[12,12\],\[4,8\],\[0,4\]\]'
    fact "Alltoall has both sides' blocks, seq 14" 1 alltoall '"seq":14,.*"sblocks":\[\[0,8\],\[8,8\],\[16,8\],\[24,8\]\],"rblocks":\[\[0,8\],\[8,8\],\[16,8\],\[24,8\]\]'
    for r in 0 1 2 3; do
        fact "rank $r Comm_dup: id 0x100000001, members 0-3" $r comm_dup '"newcomm":\{"id":4294967297,"parent":0,"size":4,"my_rank":'$r',"members":\[0,1,2,3\]\}'
        fact "rank $r collective on the dup counts from 1" $r allreduce_dup '"comm":4294967297,.*"seq":1,'
    done
    fact "Comm_split even: id 0x300000001 members [2,0]" 0 comm_split '"newcomm":\{"id":12884901889,"parent":0,"size":2,"my_rank":1,"members":\[2,0\]\}'
    fact "Comm_split even on rank 2: same id" 2 comm_split '"newcomm":\{"id":12884901889,"parent":0,"size":2,"my_rank":0,"members":\[2,0\]\}'
    fact "Comm_split odd: id 0x400000001 members [3,1]" 1 comm_split '"newcomm":\{"id":17179869185,'
    fact "send on the split communicator names the world rank" 2 send_split '"comm":12884901889,.*"peer":0,"tag":80,.*"seq":1,.*"comm_size":2'
    fact "receive on the split communicator: world source 2, rseq 1" 0 recv_split '"comm":12884901889,.*"st_source":2,.*"rseq":1,'
    # Cross-rank matching: every message's (source, destination, tag,
    # channel sequence number) as the sender recorded it equals what its
    # receiver recorded (blocking receives, Sendrecv, and COMPLETE records).
    cat "$WORK"/r?$O.json >"$WORK/all$O.json"
    awk -f tests/e2e/match-messages.awk -v side=send "$WORK/all$O.json" | sort >"$WORK/sends$O"
    awk -f tests/e2e/match-messages.awk -v side=recv "$WORK/all$O.json" | sort >"$WORK/recvs$O"
    expect_eq "$O: 26 messages sent (18 sends, 8 Sendrecv halves)" "$(wc -l <"$WORK/sends$O")" 26
    expect_eq "$O: every send matches exactly one receive by (src, dst, tag, seq)" \
        "$(diff "$WORK/sends$O" "$WORK/recvs$O" && echo same)" same
done
