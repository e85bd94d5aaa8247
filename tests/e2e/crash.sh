#!/usr/bin/env bash
# A rank that segfaults, aborts, is sent SIGTERM or SIGKILL or calls
# MPI_Abort leaves a trace readable up to its last completed chunk; info says
# it was cut short and still summarises the rest; dump shows its events and
# exits 0.  The ranks the launcher kills then (with SIGKILL: no handler runs)
# keep what they recorded up to the flush period before (COMMHINT_FLUSH_MS).
source "$(dirname "$0")/lib.sh"
SRC=tests/e2e/programs/crash.c
if ! out=$(build_prog $SRC "$WORK/crash" -O1 2>&1); then not_ok "crash.c builds" "$out"; exit 0; fi
ok "crash.c builds"
for how in segv abort term mpiabort kill; do
    dir=$WORK/t-$how
    trace_run "$dir" 4 "$WORK/crash" $how
    rc=$?
    [ "$rc" -ne 0 ] && ok "$how: the job fails as it would untraced (status $rc)" || not_ok "$how: the job fails" "status 0"
    info=$("$CH" info "$dir" --format=json)
    expect_eq "$how: info exits 0 (cut short is not damage)" "$?" 0
    expect_match "$how: rank 2 is reported cut short" "$info" '"rank":2,"present":true,"status":"cut-short"'
    r2=$("$CH" dump "$dir" --rank 2 2>"$WORK/err")
    expect_eq "$how: dump of the cut rank exits 0" "$?" 0
    expect_match "$how: dump warns that rank 2 was cut short" "$(cat "$WORK/err")" "rank 2 was cut short"
    n=$(grep -c 'MPI_Allreduce' <<<"$r2")
    expect_eq "$how: rank 2 kept all 20 of its MPI_Allreduce calls" "$n" 20
    expect_match "$how: rank 2 kept its computation events" "$r2" ' comp rank=2 '
    for r in 0 1 3; do
        n=$("$CH" dump "$dir" --rank $r 2>/dev/null | grep -c 'MPI_Allreduce')
        expect_eq "$how: rank $r, killed by the launcher, kept all 20 of its MPI_Allreduce calls" "$n" 20
    done
    txt=$("$CH" info "$dir")
    expect_match "$how: text info names the cut-short rank" "$txt" '^rank 2 cut short: '
    js=$("$CH" hints "$dir" --format=json 2>"$WORK/err")
    expect_eq "$how: hints exits 0 on a trace with a rank cut short" "$?" 0
    expect_match "$how: hints warns that rank 2 was cut short" "$(cat "$WORK/err")" "rank 2 was cut short"
    got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); u=d["unmatched"]; print("unmatched", u["sends"] + u["recvs"] + u["collectives"] > 0)' <<<"$js" 2>&1)
    expect_eq "$how: hints matches every rank's 20 collectives (none left unmatched)" "$got" "unmatched False"
done
