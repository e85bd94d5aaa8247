#!/usr/bin/env bash
# A process started by a traced rank (system(), popen(), fork and exec)
# inherits the trace directory and the launcher's rank variables.  It must
# not write into the rank's trace: it records nothing, unless it is given a
# trace directory of its own (docs/reliability.md, "Processes a rank starts").
source "$(dirname "$0")/lib.sh"
P=tests/e2e/programs
build_prog $P/child.c "$WORK/child" -O1 >"$WORK/b1.err" 2>&1 &&
    "$CH" cc mpicc -g -O1 -o "$WORK/helper" $P/child-helper.c >"$WORK/b2.err" 2>&1
expect_eq "child.c and child-helper.c build" "$?" 0

# ---- the helper inherits everything -----------------------------------------
trace_run "$WORK/t" 2 "$WORK/child" "$WORK/helper 5000"
expect_eq "the traced run exits 0" "$?" 0
expect_eq "the helper ran (twice, once per rank)" "$(grep -c '^helper: ' "$WORK/t.out")" 2
expect_eq "the run's output is the untraced one's" "$(grep -c '^child: ' "$WORK/t.out")" 1
info=$("$CH" info "$WORK/t" --format=json 2>"$WORK/info.err")
expect_eq "info reads the trace" "$?" 0
expect_eq "the meta file is the run's: 2 ranks" "$(jq .world_size <<<"$info")" 2
expect_eq "both ranks ended normally" "$(jq -c "[.ranks[].status]" <<<"$info")" "[\"complete\",\"complete\"]"
for r in 0 1; do
    n=$("$CH" dump "$WORK/t" --rank $r 2>/dev/null | grep -c MPI_Allreduce)
    expect_eq "rank $r kept its 10 MPI_Allreduce calls, before and after the helper" "$n" 10
done
expect_eq "the helper left no file in the trace directory" \
    "$(cd "$WORK/t" && ls | grep -v -e '^commhint.meta$' -e '^rank-0000[01].chtr$' | tr '\n' ' ')" ""
"$CH" hints "$WORK/t" >/dev/null 2>"$WORK/hints.err"
expect_eq "hints analyses the run" "$?" 0

# ---- the helper is given its own trace directory ----------------------------
trace_run "$WORK/t2" 2 "$WORK/child" "COMMHINT_TRACE_DIR=$WORK/h-\$PMI_RANK $WORK/helper 5000"
expect_eq "with a directory of its own: the traced run exits 0" "$?" 0
for r in 0 1; do
    expect_eq "rank $r kept its 10 MPI_Allreduce calls" \
        "$("$CH" dump "$WORK/t2" --rank $r 2>/dev/null | grep -c MPI_Allreduce)" 10
done
hi=$("$CH" info "$WORK/h-0" --format=json 2>/dev/null)
expect_eq "the helper of rank 0 traced itself into its own directory, as a process of its own (not rank 0 of 2)" \
    "$(jq -c '[.world_size, .ranks[0].status, (.events > 0)]' <<<"$hi")" '[1,"complete",true]'
