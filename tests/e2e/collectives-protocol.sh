#!/usr/bin/env bash
# The master/worker "offset, rows, block" protocol (docs/collectives.md,
# "Reduce"): tests/e2e/programs/coll-offset-rows.c, instrumented at -O0 and
# -O2 and traced on 4 ranks.  The offsets and row counts the master
# receives are used as an address and a count, not combined: no MPI_Reduce
# for them, `--explain` says why, and they and the blocks are one
# MPI_Gatherv; the same protocol from the master to the workers is one
# MPI_Scatterv; counts alone, sent or received one per rank through one
# variable, are an MPI_Scatter and an MPI_Gather; the partial sums the
# master adds up next to it still get MPI_Reduce.
source "$(dirname "$0")/lib.sh"

src=tests/e2e/programs/coll-offset-rows.c
f=coll-offset-rows.c
m() { line_of "$src" "/* $1 */"; }
OR=$(m OFFSET-RECV); RR=$(m ROWS-RECV); BR=$(m BLOCK-RECV); BS=$(m BLOCK-SEND)
SR=$(m SUM-RECV); SS=$(m SUM-SEND); OS=$(m OFFSET-SEND); RS=$(m ROWS-SEND)
DOS=$(m DIST-OFF-SEND); DRS=$(m DIST-ROWS-SEND); DBS=$(m DIST-BLOCK-SEND)
DOR=$(m DIST-OFF-RECV); DRR=$(m DIST-ROWS-RECV); DBR=$(m DIST-BLOCK-RECV)
CS=$(m CNT-SEND); CR=$(m CNT-RECV); C2S=$(m CNT2-SEND); C2R=$(m CNT2-RECV); CB2R=$(m CBLK2-RECV)

for O in -O0 -O2; do
    bin=$WORK/cor$O
    check "protocol $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/t$O" "$NP" "$bin"
    expect_eq "protocol $O: traced run exits 0" "$?" 0
    expect_match "protocol $O: prints its checksum" "$(cat "$WORK/t$O.out")" "^coll-offset-rows: ranks=4 checksum="
    h=$(coll_lines "$WORK/t$O")
    expect_match "protocol $O: offset, rows, block at &y[offset] of rows*NC -> one MPI_Gatherv" "$h" \
        "^MPI_Gatherv $f:$OR related=$RR,$BR,$OS,$RS,$BS\$"
    expect_match "protocol $O: offset, rows, block of &x[offset] sent -> one MPI_Scatterv" "$h" \
        "^MPI_Scatterv $f:$DOS related=$DRS,$DBS,$DOR,$DRR,$DBR\$"
    expect_match "protocol $O: a count sent from one variable to every rank -> MPI_Scatter" "$h" \
        "^MPI_Scatter $f:$CS related=$CR\$"
    expect_match "protocol $O: a count received from every rank into one variable -> MPI_Gather" "$h" \
        "^MPI_Gather $f:$C2R related=$C2S\$"
    expect_eq "protocol $O: five hints, nothing else" "$(printf '%s\n' "$h" | grep -c .)" 5
    expect_eq "protocol $O: no MPI_Reduce at the offset, rows or block receives" \
        "$(printf '%s\n' "$h" | grep -E "^MPI_Reduce $f:($OR|$RR|$BR) ")" ""
    expect_match "protocol $O: partial sums added up -> MPI_Reduce" "$h" \
        "^MPI_Reduce $f:$SR related=([0-9]+,)*$SS(,|\$)"
    t=$("$CH" hints "$WORK/t$O" --kind=collective --stable 2>&1)
    expect_match "protocol $O: the offsets and lengths are the displs and recvcounts" "$t" \
        "$f:$OR:[0-9]+: note: \\[collective\\] .* use MPI_Gatherv, the offsets and lengths become its displs and recvcounts arrays, needed on the root only"
    expect_match "protocol $O: the offsets and lengths sent are the displs and sendcounts" "$t" \
        "$f:$DOS:[0-9]+: note: \\[collective\\] .* use MPI_Scatterv, the offsets and lengths become its displs and sendcounts arrays, needed on the root only"
    x=$("$CH" hints "$WORK/t$O" --kind=collective --stable --explain 2>&1)
    for l in "$OR" "$RR" "$C2R"; do
        expect_match "protocol $O: --explain says why the receives at line $l are no reduce" "$x" \
            "$f:$l:[0-9]+: note: +the received value is used as an offset/count at $f:($BR|$CB2R) .*not combined"
    done
done
