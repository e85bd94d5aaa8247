#!/usr/bin/env bash
# The collective search looks only at the point-to-point records a pattern
# could use (search/xrank/collectives/candidates.c: streams that reach
# every rank, send groups that do, forwarded bytes and the groups they
# came from, the other ends and control messages of those) and withholds
# the rest, as process 0 will be sent only those (issue 22).  It must find
# the same: `hints --all --explain --waits` JSON and messages are the same
# with COMMHINT_COLL_EVERY_RECORD=1 (every record searched) on
#   - programs/coll-tree.c on 8 and 6 ranks: a broadcast forwarded along a
#     binomial tree (the root's stream reaches log2 P ranks), one sent on a
#     tag per rank, a ring exchange no pattern can use, and a gather whose
#     call site also receives once from one rank on another tag (a round
#     left out of the search, still counted: "holds on 3 of 4 calls"),
#     and the same with --parallel on 2 and 3 processes;
#   - the collective programs of the other tests on 4 and 3 ranks;
#   - every bundled example on 4 ranks (not under the sanitizers: the
#     programs above run candidates.c's every rule there).
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
MPIEXEC=${MPIEXEC:-mpiexec}

# same_search WHAT DIR: the analysis of DIR, every record against candidates.
same_search() {
    local want got
    want=$(COMMHINT_COLL_EVERY_RECORD=1 "$CH" hints "$2" --format=json --all --explain --waits 2>&1)
    got=$("$CH" hints "$2" --format=json --all --explain --waits 2>&1)
    if [ "$got" = "$want" ]; then ok "$1: the same hints from the candidates as from every record"
    else not_ok "$1: the same hints from the candidates as from every record" "$(diff <(echo "$want") <(echo "$got") | head -20)"; fi
}

src=$P/coll-tree.c
bin=$WORK/coll-tree
check "coll-tree builds" build_prog "$src" "$bin" -O0
plain=$(mpiexec -n 6 "$bin" 2>&1)
for np in 8 6; do
    d=$WORK/tree-$np
    trace_run "$d" "$np" "$bin"
    expect_eq "coll-tree: traced on $np ranks" "$?" 0
    [ "$np" = 6 ] && expect_eq "coll-tree: the traced run prints what the untraced one prints" "$(grep checksum "$d.out")" "$plain"
    same_search "coll-tree, $np ranks" "$d"
    text=$("$CH" hints "$d" --all --kind=collective 2>&1)
    expect_match "coll-tree, $np ranks: the tree broadcast" "$text" \
        "coll-tree.c:$(line_of "$src" "t1-send"):[0-9]+: note: \[collective\] .*forwarded from rank to rank: use MPI_Bcast \(root = rank 0; ranks 0-$((np - 1)),"
    expect_match "coll-tree, $np ranks: the broadcast on a tag per rank" "$text" \
        "coll-tree.c:$(line_of "$src" "t2-send"):[0-9]+: note: \[collective\] .* send the same bytes from the root to every rank: use MPI_Bcast"
    expect_match "coll-tree, $np ranks: the gather holds on 3 of its 4 calls" "$text" \
        "coll-tree.c:$(line_of "$src" "t4-recv"):[0-9]+: note: +check by hand: holds on 3 of 4 calls"
    expect_no_match "coll-tree, $np ranks: nothing for the ring exchange" "$text" \
        "coll-tree.c:($(line_of "$src" "t3-irecv")|$(line_of "$src" "t3-isend")):[0-9]+: note: \[collective\]"
    # spread: the sparse logs built where the logs are, the rounds left at
    # the gather's call site counted there (the COUNTS job)
    serial=$("$CH" hints "$d" --format=json --all --explain --waits 2>&1)
    for k in 2 3; do
        got=$("$MPIEXEC" -n "$k" "$CH" hints --parallel "$d" --format=json --all --explain --waits 2>&1)
        expect_eq "coll-tree, $np ranks: --parallel with $k processes gives the serial hints" "$got" "$serial"
    done
    text=$("$MPIEXEC" -n 3 "$CH" hints --parallel "$d" --all --kind=collective 2>&1)
    expect_match "coll-tree, $np ranks, 3 processes: the gather holds on 3 of its 4 calls" "$text" \
        "coll-tree.c:$(line_of "$src" "t4-recv"):[0-9]+: note: +check by hand: holds on 3 of 4 calls"
done

for prog in collectives coll-grid2 coll-irecv coll-offset-rows round-sum sized-parts helper-tail; do
    bin=$WORK/$prog
    build_prog "$P/$prog.c" "$bin" -O0 >/dev/null 2>&1
    for np in 4 3; do
        trace_run "$WORK/$prog-$np" "$np" "$bin"
        expect_eq "$prog: traced on $np ranks" "$?" 0
        same_search "$prog, $np ranks" "$WORK/$prog-$np"
    done
done

[ -n "${SAN:-}" ] && exit 0
n=0
for exe in "$B"/examples/O0/*; do
    ex=$(basename "$exe")
    args=()
    read -r -a args <<<"$(small_args "$ex")"
    trace_run "$WORK/ex-$ex" 4 "$exe" "${args[@]}"
    expect_eq "$ex: traced on 4 ranks" "$?" 0
    same_search "$ex, 4 ranks" "$WORK/ex-$ex"
    n=$((n + 1))
done
expect_eq "every example was searched both ways" "$([ "$n" -ge 17 ] && echo yes)" yes
