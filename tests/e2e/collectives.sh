#!/usr/bin/env bash
# `commhint hints --kind=collective` end to end (docs/collectives.md): a test
# program with one hand-written instance of every pattern, and the bundled
# examples that hide collectives, instrumented at -O0 and -O2 and traced on
# 4 ranks, get the right collective at the right lines; programs without
# such patterns (one that already calls the collectives, a halo exchange)
# get none.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs

# One line per collective hint of `commhint hints DIR --format=json --stable
# --kind=collective`:
#   <collective> <file>:<line> ranks=<r,r> instances=<matched>/<rounds> flags=<f,f> related=<line>,<line>
# or "ERROR ..." if the command fails or its output is not the JSON expected.
coll_of() {
    "$CH" hints "$1" --format=json --stable --kind=collective 2>"$WORK/coll.err" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
for h in doc["hints"]:
    assert h["kind"] == "collective", h
    print("%s %s:%d ranks=%s instances=%d/%d flags=%s related=%s" % (
        h["collective"], h["file"].rsplit("/", 1)[-1], h["line"],
        ",".join(str(r) for r in h["ranks"]), h["with_window"], h["instances"],
        ",".join(h["flags"]), ",".join(str(r["line"]) for r in h["related"])))
' 2>&1 || echo "ERROR $(cat "$WORK/coll.err")"
}

# One line per collective hint, its fix (docs/collectives.md, "The fix"):
#   <collective> <file>:<line> loop=<line|-> root=<rank|-> fix=<text>
fix_of() {
    "$CH" hints "$1" --format=json --stable --kind=collective 2>"$WORK/fix.err" | python3 -c '
import json, sys
for h in json.load(sys.stdin)["hints"]:
    f = h["fix"]
    assert f["call"] == h["collective"], f
    print("%s %s:%d loop=%s root=%s fix=%s" % (
        h["collective"], h["file"].rsplit("/", 1)[-1], h["line"],
        f["loop"]["line"] if f["loop"] else "-", "-" if f["root"] is None else f["root"], f["text"]))
' 2>&1 || echo "ERROR $(cat "$WORK/fix.err")"
}

# expect_fix "what" FIXES COLLECTIVE FILE:LINE LOOP REGEX: the fix of that
# hint names LOOP (a line, or - for none) and matches REGEX.
expect_fix() {
    local what=$1 fixes=$2 coll=$3 at=$4 loop=$5 re=$6 line
    line=$(printf '%s\n' "$fixes" | grep -E "^$coll $at " | head -1)
    if [ -z "$line" ]; then
        not_ok "$what" "no $coll hint at $at" "$(printf '%s\n' "$fixes" | head -20)"
    elif ! printf '%s\n' "$line" | grep -q " loop=$loop "; then
        not_ok "$what" "not the loop at line $loop" "$line"
    elif ! printf '%s\n' "$line" | grep -qE -- "$re"; then
        not_ok "$what" "fix does not match: $re" "$line"
    else
        ok "$what"
    fi
}

# expect_hint "what" HINTS COLLECTIVE FILE:LINE [RELATED-LINE...]: a hint
# for COLLECTIVE at FILE:LINE on ranks 0-3 whose related lines include every
# RELATED-LINE.
expect_hint() {
    local what=$1 hints=$2 coll=$3 at=$4 line l
    shift 4
    line=$(printf '%s\n' "$hints" | grep -E "^$coll $at ranks=0,1,2,3 " | head -1)
    if [ -z "$line" ]; then
        not_ok "$what" "no $coll hint at $at" "$(printf '%s\n' "$hints" | head -20)"
        return
    fi
    for l in "$@"; do
        if ! printf '%s\n' "$line" | grep -qE "related=([0-9]+,)*$l(,|$)"; then
            not_ok "$what" "related line $l missing" "$line"
            return
        fi
    done
    ok "$what"
}

# ---- the test program ----------------------------------------------------------
src=$P/collectives.c
m() { line_of "$src" "/* $1 */"; }
BS=$(m BCAST-SEND); BR=$(m BCAST-RECV); RS=$(m RING-SEND); RR=$(m RING-RECV)
SS=$(m SCATTER-SEND); SR=$(m SCATTER-RECV); VS=$(m SCATTERV-SEND); VR=$(m SCATTERV-RECV)
GS=$(m GATHER-SEND); GR=$(m GATHER-RECV); DS=$(m REDUCE-SEND); DR=$(m REDUCE-RECV)
AS=$(m ALLRED-SEND); AR=$(m ALLRED-RECV); ABS=$(m ALLRED-BSEND); ABR=$(m ALLRED-BRECV)
A2A=$(m ALLTOALL-SR); AG=$(m ALLGATHER-SR)
RG1=$(m REPEAT-GATHER-1); RG2=$(m REPEAT-GATHER-2); RB1=$(m REPEAT-BCAST-1); RB2=$(m REPEAT-BCAST-2)
f=collectives.c
for O in -O0 -O2; do
    bin=$WORK/collectives$O
    check "collectives $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/co$O" "$NP" "$bin"
    expect_eq "collectives $O: traced run exits 0" "$?" 0
    expect_match "collectives $O: prints its checksum" "$(cat "$WORK/co$O.out")" "^collectives: ranks=4 checksum="
    h=$(coll_of "$WORK/co$O")
    expect_hint "collectives $O: flat broadcast -> MPI_Bcast" "$h" MPI_Bcast "$f:$BS" "$BR"
    expect_hint "collectives $O: ring broadcast -> MPI_Bcast" "$h" MPI_Bcast "$f:$RS" "$RR"
    expect_hint "collectives $O: scatter -> MPI_Scatter" "$h" MPI_Scatter "$f:$SS" "$SR"
    expect_hint "collectives $O: slices of different sizes -> MPI_Scatterv" "$h" MPI_Scatterv "$f:$VS" "$VR"
    expect_hint "collectives $O: gather into slices -> MPI_Gather" "$h" MPI_Gather "$f:$GR" "$GS"
    expect_hint "collectives $O: sum into one accumulator -> MPI_Reduce" "$h" MPI_Reduce "$f:$DR" "$DS"
    expect_hint "collectives $O: reduce then broadcast of the sum -> MPI_Allreduce" "$h" MPI_Allreduce "$f:$AR" \
        "$AS" "$ABS" "$ABR"
    expect_hint "collectives $O: pairwise Sendrecv of blocks -> MPI_Alltoall" "$h" MPI_Alltoall "$f:$A2A"
    expect_hint "collectives $O: blocks around a ring -> MPI_Allgather" "$h" MPI_Allgather "$f:$AG"
    expect_hint "collectives $O: two independent gathers -> one MPI_Gather" "$h" MPI_Gather "$f:$RG1" "$RG2"
    expect_hint "collectives $O: two independent broadcasts -> one MPI_Bcast" "$h" MPI_Bcast "$f:$RB1" "$RB2"
    expect_eq "collectives $O: one hint per pattern, nothing else" "$(printf '%s\n' "$h" | grep -c .)" 11
    bad=$(printf '%s\n' "$h" | awk '{ split($4, a, "[=/]"); if (a[2] != 3 || a[3] != 3) print }')
    expect_eq "collectives $O: 3 instances of each, all matching" "$bad" ""
    txt=$("$CH" hints "$WORK/co$O" --kind=collective 2>/dev/null)
    expect_match "collectives $O: the text names the collective, its root and the lines" "$txt" \
        "^$src:$BS:[0-9]+: note: \[collective\] the MPI_Send calls at line $BS and the MPI_Recv calls at line $BR send the same bytes from the root to every rank: use MPI_Bcast \(root = rank 0; ranks 0-3, 3 instances, predicted (saving|to make the run)"
    expect_match "collectives $O: the reduce names its op" "$txt" "use MPI_Reduce with MPI_SUM \(root = rank 0;"
    # the fixes: the loop each collective replaces, the root, buffers,
    # counts and displacements, MPI_IN_PLACE where the root's own slot was
    # never part of a message
    x=$(fix_of "$WORK/co$O")
    expect_fix "collectives $O: bcast fix: the root's loop of sends and the others' receives" "$x" MPI_Bcast \
        "$f:$BS" $((BS - 1)) "in place of, on the root, the loop at line $((BS - 1)) \(its MPI_Send calls at line $BS; keep in it whatever else it does\), and on the other ranks, the MPI_Recv calls at line $BR; root = rank 0; buffer = the one sent at the root and the one received into elsewhere; count and datatype as in the calls \(64 bytes\)$"
    expect_fix "collectives $O: ring bcast fix: no loop, the forwarding sends go too" "$x" MPI_Bcast "$f:$RS" - \
        "and on the other ranks, the MPI_Recv calls at line $RR and the MPI_Send calls at line $RS; root = rank 0"
    expect_fix "collectives $O: scatter fix: where the slices start, MPI_IN_PLACE at the root" "$x" MPI_Scatter \
        "$f:$SS" $((SS - 1)) "sendbuf \(read at the root only\) = the buffer the sends take the slices from, from the root's own slot, one slice \(32 bytes\) before the slice of rank 1, a slice per rank in rank order; sendcount and recvcount with the datatype as in the calls \(32 bytes\); recvbuf = the one received into, MPI_IN_PLACE at the root"
    expect_fix "collectives $O: scatterv fix: counts and displacements" "$x" MPI_Scatterv "$f:$VS" $((VS - 1)) \
        "sendcounts and displs \(at the root only\) = each rank's slice's count and offset"
    expect_fix "collectives $O: gather fix: where the slices start, MPI_IN_PLACE at the root" "$x" MPI_Gather \
        "$f:$GR" $((GR - 1)) "recvbuf \(written at the root only\) = the buffer the receives fill, from the root's own slot, one slice \(32 bytes\) before the slice of rank 1.*sendbuf = the one sent, MPI_IN_PLACE at the root"
    expect_fix "collectives $O: reduce fix: the op, the root's own value not added twice" "$x" MPI_Reduce \
        "$f:$DR" $((DR - 1)) "with the statement at line $((DR + 1)) \(fadd\) that combines the values.*root = rank 0; op = MPI_SUM; sendbuf = the value sent, and at the root the value its accumulator holds before the first receive \(its own contribution: the collective combines it, so it is not added again\)"
    expect_fix "collectives $O: allreduce fix: no root argument" "$x" MPI_Allreduce "$f:$AR" - \
        "; op = MPI_SUM; sendbuf = .*recvbuf = where the result is now"
    expect_no_match "collectives $O: allreduce fix names no root" "$(printf '%s\n' "$x" | grep "^MPI_Allreduce")" \
        "root = "
    expect_fix "collectives $O: alltoall fix: the loop, both buffers, the own block" "$x" MPI_Alltoall \
        "$f:$A2A" $((A2A - 2)) "its MPI_Sendrecv calls at line $A2A.*the block for \(or from\) rank r r slots after it.*MPI_Alltoallv with a count of 0 for the rank itself"
    expect_fix "collectives $O: allgather fix: in place, every own block at its slot" "$x" MPI_Allgather \
        "$f:$AG" $((AG - 2)) "rank r's block r slots after it; sendcount and recvcount with the datatype as in the calls \([0-9]+ bytes\); sendbuf = MPI_IN_PLACE"
    expect_fix "collectives $O: repeated gathers fix: the result comes rank by rank" "$x" MPI_Gather "$f:$RG1" - \
        "make one MPI_Gather where the first of the calls at lines $RG1, $RG2 is now.*the result comes rank by rank, each rank's parts together"
    expect_fix "collectives $O: repeated broadcasts fix: the root packs, the others unpack" "$x" MPI_Bcast \
        "$f:$RB1" - "the root packs their buffers one after the other"
done

# ---- nonblocking point-to-point: the nonblocking collective ---------------------------
src=$P/coll-irecv.c
GR=$(line_of "$src" "/* IGATHER-RECV */"); GS=$(line_of "$src" "/* IGATHER-SEND */")
SS=$(line_of "$src" "/* ISCATTER-SEND */"); SR=$(line_of "$src" "/* ISCATTER-RECV */")
for O in -O0 -O2; do
    bin=$WORK/coll-irecv$O
    check "coll-irecv $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/ci$O" "$NP" "$bin"
    expect_eq "coll-irecv $O: traced run exits 0" "$?" 0
    h=$(coll_of "$WORK/ci$O")
    expect_hint "coll-irecv $O: MPI_Irecv loop + MPI_Waitall into slices is an MPI_Igather" "$h" \
        MPI_Igather "coll-irecv.c:$GR" "$GS"
    expect_hint "coll-irecv $O: MPI_Isend loop of slices is an MPI_Iscatter" "$h" \
        MPI_Iscatter "coll-irecv.c:$SS" "$SR"
    expect_no_match "coll-irecv $O: no blocking collective is advised for them" "$h" "^MPI_(Gather|Scatter) "
done

# ---- a program that calls the collectives already -----------------------------------
src=$P/well-written.c
for O in -O0 -O2; do
    bin=$WORK/well-written$O
    check "well-written $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/ww$O" "$NP" "$bin"
    expect_eq "well-written $O: traced run exits 0" "$?" 0
    expect_eq "well-written $O: no collective hint" "$(coll_of "$WORK/ww$O")" ""
done

# ---- the examples ------------------------------------------------------------------
G=examples/gauss.c
M=examples/master_worker.c
D=examples/dft.c
PIV=$(line_of "$G" "MPI_Send(&prow[k]"); PIVR=$(line_of "$G" "MPI_Recv(&pivot[k]")
XS=$(line_of "$G" "MPI_Send(&x[i]"); XR=$(line_of "$G" "MPI_Recv(&x[i]")
PAR=$(line_of "$M" "MPI_Send(params, NPARAM"); PARR=$(line_of "$M" "MPI_Recv(params, NPARAM")
TSK=$(line_of "$M" "MPI_Send(&tasks["); TSKR=$(line_of "$M" "MPI_Recv(tasks,")
RES=$(line_of "$M" "MPI_Send(results, chunk"); RESR=$(line_of "$M" "MPI_Recv(&results[")
PART=$(line_of "$M" "MPI_Send(&sums[0]"); PARTR=$(line_of "$M" "MPI_Recv(&sums[1]")
SRE=$(grep -n 'MPI_Send(sr,' "$D" | cut -d: -f1); SIM=$(grep -n 'MPI_Send(si,' "$D" | cut -d: -f1)
RRE=$(grep -n 'MPI_Recv(rr,' "$D" | cut -d: -f1); RIM=$(grep -n 'MPI_Recv(ri,' "$D" | cut -d: -f1)
FRE=$(line_of "$D" "MPI_Recv(&fre["); FIM=$(line_of "$D" "MPI_Recv(&fim[")
ZRE=$(line_of "$D" "MPI_Send(zre,"); ZIM=$(line_of "$D" "MPI_Send(zim,")
for O in O0 O2; do
    dir=$WORK/gauss-$O
    trace_run "$dir" "$NP" "$B/examples/$O/gauss"
    h=$(coll_of "$dir")
    expect_hint "gauss $O: the pivot row to every rank is an MPI_Bcast" "$h" MPI_Bcast "gauss.c:$PIV" "$PIVR"
    expect_hint "gauss $O: x[i] to every rank is an MPI_Bcast" "$h" MPI_Bcast "gauss.c:$XS" "$XR"
    expect_no_match "gauss $O: the dependent broadcasts of x are not an allgather" "$h" "^MPI_Allgather"

    dir=$WORK/master_worker-$O
    trace_run "$dir" "$NP" "$B/examples/$O/master_worker"
    h=$(coll_of "$dir")
    expect_hint "master_worker $O: the parameters are an MPI_Bcast" "$h" MPI_Bcast "master_worker.c:$PAR" "$PARR"
    expect_hint "master_worker $O: the task slices are an MPI_Scatter" "$h" MPI_Scatter "master_worker.c:$TSK" \
        "$TSKR"
    expect_hint "master_worker $O: the results are an MPI_Gather" "$h" MPI_Gather "master_worker.c:$RESR" "$RES"
    expect_hint "master_worker $O: the partial sums are an MPI_Reduce" "$h" MPI_Reduce "master_worker.c:$PARTR" \
        "$PART"
    # the fixes as master_worker_after.c applies them
    x=$(fix_of "$dir")
    expect_fix "master_worker $O: the scatter's fix keeps rank 0's slice in place" "$x" MPI_Scatter \
        "master_worker.c:$TSK" $((TSK - 1)) "root = rank 0; sendbuf .* from the root's own slot, one slice \(384 bytes\) before the slice of rank 1.*recvbuf = the one received into, MPI_IN_PLACE at the root"
    expect_fix "master_worker $O: the gather's fix keeps rank 0's results in place" "$x" MPI_Gather \
        "master_worker.c:$RESR" $((RESR - 1)) "sendbuf = the one sent, MPI_IN_PLACE at the root"
    expect_fix "master_worker $O: the reduce's fix takes the root's own sum once" "$x" MPI_Reduce \
        "master_worker.c:$PARTR" $((RESR - 1)) "at the root the value its accumulator holds before the first receive"

    dir=$WORK/dft-$O
    trace_run "$dir" "$NP" "$B/examples/$O/dft"
    h=$(coll_of "$dir")
    # at the first send line; the other send line and both receive lines related
    set -- $SRE $RRE
    first=$1
    shift
    expect_hint "dft $O: the transpose of the real parts is an MPI_Alltoall" "$h" MPI_Alltoall "dft.c:$first" "$@"
    set -- $SIM $RIM
    first=$1
    shift
    expect_hint "dft $O: the transpose of the imaginary parts is an MPI_Alltoall" "$h" MPI_Alltoall "dft.c:$first" \
        "$@"
    expect_hint "dft $O: the real spectrum to rank 0 is an MPI_Gather" "$h" MPI_Gather "dft.c:$FRE" "$ZRE"
    expect_hint "dft $O: the imaginary spectrum to rank 0 is an MPI_Gather" "$h" MPI_Gather "dft.c:$FIM" "$ZIM"

    dir=$WORK/jacobi-$O
    trace_run "$dir" "$NP" "$B/examples/$O/jacobi"
    expect_eq "jacobi $O: a halo exchange is no collective" "$(coll_of "$dir")" ""

    dir=$WORK/small_sends-$O
    trace_run "$dir" "$NP" "$B/examples/$O/small_sends"
    GV=$(line_of examples/small_sends.c "MPI_Gatherv(&c[s]")
    expect_hint "small_sends $O: the gathers of the species in a loop are one MPI_Gatherv" "$(coll_of "$dir")" \
        MPI_Gatherv "small_sends.c:$GV"
    expect_fix "small_sends $O: the merged gather's fix reorders at the root" "$(fix_of "$dir")" MPI_Gatherv \
        "small_sends.c:$GV" - "recvcounts gets each rank's counts summed, displs computed from those sums; the result comes rank by rank"
done
