#!/usr/bin/env bash
# Nonblocking, persistent and neighbourhood collectives end to end: they are
# recorded by their wrappers (no longer untraced fences) and their buffers
# and arrays are in use from the start until the wait.  Programs of our own:
#
#   programs/coll-nonblocking.c  (2 ranks, -O0 and -O2)
#     n1 the buffer MPI_Ibcast delivered, read after the wait, is never
#        "can run before the wait" of that wait; an independent loop after
#        the wait is;
#     n2 MPI_Iallreduce: the blocking MPI_Allreduce between its start and
#        its wait still has its overlap (the independent loop after it); the
#        wait's overlap holds the independent loop after it, never the
#        statement rewriting the Iallreduce's send buffer;
#     n3 MPI_Ialltoallv: the count array rewritten after the wait cannot run
#        before the wait (the arrays are held until it), an independent loop
#        can;
#     n4 MPI_Allreduce_init started in a loop: the result read after each
#        wait cannot run before it, an independent loop can;
#   and the calls of every pattern match across ranks (JSON "unmatched" all
#   0, `commhint export` shows the collective instances at the waits).
#   programs/coll-neighbor.c     (4 ranks) neighbourhood collectives on a 2-D
#     periodic Cartesian grid (one block per neighbour: 4 per side), on a 1-D
#     non-periodic grid (2 blocks, a border rank's MPI_PROC_NULL block
#     moves nothing) and on a ring made with MPI_Dist_graph_create_adjacent.
# Each program: output unchanged by tracing, streaming and reference engines
# agree, `commhint info` lists no untraced call.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs

NB='n1 Ibcast: the delivered buffer read after the wait|NB-IBCAST-WAIT|NB-IBCAST-READ|NB-IBCAST-INDEPW|after
n1 blocking Sendrecv before the Ibcast keeps its overlap|NB-IBCAST-SR||NB-IBCAST-INDEP|after
n2 Iallreduce: the blocking Allreduce between start and wait keeps its overlap|NB-AR-C||NB-IAR-INDEPA|after
n2 Iallreduce: its send buffer rewritten after the wait|NB-IAR-WAIT|NB-IAR-WSEND2|NB-IAR-INDEPW|after
n3 Ialltoallv: its count array rewritten after the wait|NB-A2AV-WAIT|NB-A2AV-ARRAYS|NB-A2AV-INDEP|after
n4 Allreduce_init: the result read after each wait|NB-PERS-WAIT|NB-PERS-READ|NB-PERS-INDEP|after'

# same_output NAME NP BIN: the program prints the same with and without tracing
same_output() {
    local name=$1 np=$2 bin=$3 dir=$4 plain
    plain=$(mpirun -n "$np" "$bin" 2>/dev/null)
    expect_eq "$name: output unchanged by tracing" "$(grep -v "^$dir\$" "$dir.out")" "$plain"
}

# common NAME DIR: checks every trace gets
common() {
    local name=$1 dir=$2 js a b u
    js=$("$CH" hints "$dir" --format=json 2>/dev/null)
    u=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["unmatched"])' <<<"$js" 2>&1)
    expect_eq "$name: every message and collective matches" "$u" \
        "{'sends': 0, 'recvs': 0, 'collectives': 0}"
    a=$("$CH" hints "$dir" --format=json --stable 2>&1)
    b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>&1)
    if [ "$a" = "$b" ]; then ok "$name: streaming and reference engines agree"; else
        not_ok "$name: streaming and reference engines agree" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
    u=$("$CH" info "$dir" --format=json 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin).get("untraced_mpi_calls") or {})' 2>&1)
    expect_eq "$name: info lists no untraced call" "$u" "{}"
}

src=$P/coll-nonblocking.c
for O in -O0 -O2; do
    name=coll-nonblocking$O
    bin=$WORK/$name
    dir=$WORK/$name.trace
    check "$name: builds" build_prog "$src" "$bin" "$O"
    trace_run "$dir" 2 "$bin"
    expect_eq "$name: traced run exits 0" "$?" 0
    expect_match "$name: prints its checksum" "$(cat "$dir.out")" '^coll-nonblocking: sum=1\.650000e\+02 work=1\.752000e\+03$'
    same_output "$name" 2 "$bin" "$dir"
    js=$("$CH" hints "$dir" --format=json 2>/dev/null)
    while IFS='|' read -r label call needed indep role; do
        pattern coll-nonblocking "$O" "$js" "$src" "$label" "$call" "$needed" "$indep" "$role"
    done <<<"$NB"
    common "$name" "$dir"
    d=$("$CH" dump "$dir" --stable 2>/dev/null)
    expect_match "$name: dump shows MPI_Ibcast with root, buffer, number and request" "$d" \
        'MPI_Ibcast rank=1 .* root=0 rbuf=\+512 seq=[0-9]+ req=[0-9]+( [a-z]+=[^ ]+)* comm=world'
    expect_match "$name: dump shows each start of the persistent Allreduce" "$d" \
        'MPI_Start\(MPI_Allreduce_init\) rank=0 .*iter=\[L[0-9]+=4\] sbuf=\+512 rbuf=\+512 op=MPI_SUM seq=[0-9]+ req='
    expect_match "$name: dump shows MPI_Ialltoallw with a block per rank" "$d" \
        'MPI_Ialltoallw rank=0 .* sblocks=2 rblocks=2 req='
    expect_match "$name: dump labels the large-count call" "$d" 'MPI_Iallreduce_c rank=0 '
    "$CH" export "$dir" --format=chrome -o "$WORK/$name.json" 2>/dev/null
    n=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
print(sum(1 for e in ev if e.get("name") == "MPI_Wait" and "instance" in e.get("args", {})
          and e["args"].get("members") == 2))' "$WORK/$name.json" 2>&1)
    expect_match "$name: export shows the waits of the nonblocking collectives as instances" \
        "$n" '^([6-9]|[1-9][0-9]+)$'
done

src=$P/coll-neighbor.c
for O in -O0 -O2; do
    name=coll-neighbor$O
    bin=$WORK/$name
    dir=$WORK/$name.trace
    check "$name: builds" build_prog "$src" "$bin" "$O"
    trace_run "$dir" 4 "$bin"
    expect_eq "$name: traced run on 4 ranks exits 0" "$?" 0
    expect_match "$name: prints its checksum" "$(cat "$dir.out")" '^coll-neighbor: sum=2\.002400e\+04$'
    same_output "$name" 4 "$bin" "$dir"
    common "$name" "$dir"
    d=$("$CH" dump "$dir" --stable 2>/dev/null)
    for r in 0 1 2 3; do
        expect_match "$name: rank $r: Neighbor_alltoall on the 2x2 periodic grid has a block per neighbour" \
            "$d" "MPI_Neighbor_alltoall rank=$r .* sbuf=\\+128 rbuf=\\+128 seq=1 sblocks=4 rblocks=4 "
    done
    expect_match "$name: rank 0 on the line: its MPI_PROC_NULL block moves nothing" "$d" \
        'MPI_Neighbor_alltoall rank=0 .* sbuf=\+32 rbuf=\+32 seq=1 sblocks=2 rblocks=2 '
    expect_match "$name: rank 1 on the line: both blocks move" "$d" \
        'MPI_Neighbor_alltoall rank=1 .* sbuf=\+64 rbuf=\+64 seq=1 sblocks=2 rblocks=2 '
    expect_match "$name: the persistent neighbour alltoallv is started as itself" "$d" \
        'MPI_Start\(MPI_Neighbor_alltoallv_init\) rank=2 .* sblocks=4 rblocks=4 req='
    expect_match "$name: the dist-graph ring's Neighbor_alltoallw_c" "$d" \
        'MPI_Neighbor_alltoallw_c rank=3 .* sblocks=2 rblocks=2( [a-z]+=[^ ]+)* comm=0x'
done
