#!/usr/bin/env bash
# One-sided communication (issue 15, item 4; docs/dependence.md, "One-sided
# communication"): windows, operations and synchronisations are recorded by
# their wrappers (tracelib/rt/mpi-rma.c) with their real semantics instead
# of as untraced fences.  programs/rma-exchange.c, traced on 2 ranks at -O0
# and -O2:
#   r1 a window read after MPI_Put and MPI_Win_fence (RMA-FENCE-READ) is
#      never a related line of the earlier send, whose wait would cross the
#      fence; the INDEP loop next to it still is ("can run before the wait");
#   r2 an origin buffer written after MPI_Put, before the closing fence
#      (RMA-ORIGIN-WRITE), is never a related line of any hint;
#   r3 passive target: rank 0 locks, Puts and unlocks rank 1's window, then
#      both call MPI_Barrier; rank 1's read of its window after the barrier
#      (RMA-PASSIVE-READ) never moves above it (never "can run before the
#      wait" of rank 1's receive before the barrier), although rank 1 makes
#      no one-sided call;
#   r4 a result buffer of MPI_Rget read after its MPI_Wait (RMA-RGET-READ).
# Also: every one-sided call shows in `commhint dump` with its window and
# target, `commhint info` counts them and lists no untraced call, the
# streaming and reference engines agree, and tracing does not change what
# the program prints.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
src=$P/rma-exchange.c

# rma_pattern O JSON LABEL CALL NEEDED INDEP ROLE: NEEDED is not a related line
# of CALL's hint nor of any other hint; INDEP is a related line of CALL's.
rma_pattern() {
    local o=$1 js=$2 label=$3 call=$4 needed=$5 indep=$6 role=$7 cl nl
    cl=$(line_of "$src" "/* $call */")
    nl=$(line_of "$src" "/* $needed */")
    related "rma-exchange $o: $label: $needed is not a related line of $call" "$js" "$src" "$cl" "$nl" none
    related "rma-exchange $o: $label: $needed is not a related line of any hint" "$js" "$src" 0 "$nl" none
    related "rma-exchange $o: $label: $indep is still a related line of $call ($role)" "$js" "$src" \
        "$cl" "$(line_of "$src" "/* $indep */")" "$role"
}

PATTERNS='r1 window read after MPI_Put and MPI_Win_fence|RMA-FENCE-CALL|RMA-FENCE-READ|RMA-FENCE-INDEP|after
r2 origin buffer written before the closing fence|RMA-ORIGIN-CALL|RMA-ORIGIN-WRITE|RMA-ORIGIN-INDEP|after
r3 target reads its window after a barrier (passive target)|RMA-PASSIVE-CALL|RMA-PASSIVE-READ|RMA-PASSIVE-INDEP|after
r4 result of MPI_Rget read after its MPI_Wait|RMA-RGET-CALL|RMA-RGET-READ|RMA-RGET-INDEP|after'

# every one-sided call the program makes, as `commhint dump` names it
CALLS='MPI_Win_create MPI_Win_create_c MPI_Win_allocate MPI_Win_allocate_shared MPI_Win_create_dynamic
MPI_Win_attach MPI_Win_detach MPI_Win_free MPI_Put MPI_Put_c MPI_Get MPI_Get_c MPI_Accumulate
MPI_Get_accumulate MPI_Fetch_and_op MPI_Compare_and_swap MPI_Rput MPI_Rget MPI_Raccumulate
MPI_Rget_accumulate MPI_Win_fence MPI_Win_lock MPI_Win_unlock MPI_Win_lock_all MPI_Win_unlock_all
MPI_Win_flush MPI_Win_flush_all MPI_Win_flush_local MPI_Win_flush_local_all MPI_Win_post
MPI_Win_start MPI_Win_complete MPI_Win_wait MPI_Win_test MPI_Win_sync'

for O in -O0 -O2; do
    bin=$WORK/rma$O
    dir=$WORK/rma$O.trace
    check "rma-exchange $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$dir" 2 "$bin"
    expect_eq "rma-exchange $O: traced run exits 0" "$?" 0
    plain=$(mpiexec -n 2 "$bin" 2>&1)
    expect_match "rma-exchange $O: prints its checksum" "$plain" '^rma-exchange: sum=4\.865000e\+02$'
    # (commhint run adds the trace directory's path as a line of its own)
    expect_eq "rma-exchange $O: tracing does not change what it prints" \
        "$(grep -vxF "$dir" "$dir.out")" "$plain"

    js=$("$CH" hints "$dir" --format=json 2>"$WORK/hints.err")
    expect_eq "rma-exchange $O: hints exits 0" "$?" 0
    while IFS='|' read -r label call needed indep role; do
        rma_pattern "$O" "$js" "$label" "$call" "$needed" "$indep" "$role"
    done <<<"$PATTERNS"

    a=$("$CH" hints "$dir" --format=json --stable 2>&1)
    b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>&1)
    if [ "$a" = "$b" ]; then ok "rma-exchange $O: streaming and reference engines agree"; else
        not_ok "rma-exchange $O: streaming and reference engines agree" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi

    dump=$("$CH" dump "$dir" --stable 2>&1)
    missing=""
    for c in $CALLS; do
        grep -qE ": $c rank=0 .* win=W0\.[0-9]+" <<<"$dump" || missing="$missing $c"
    done
    expect_eq "rma-exchange $O: dump shows every one-sided call with its window" "${missing:-none}" none
    expect_match "rma-exchange $O: dump shows a Put's target and origin" "$dump" \
        "rma-exchange\.c:$(line_of "$src" "MPI_Put(origin, N,"):[0-9]+: MPI_Put rank=0 ev=[0-9]+ win=W0\.1 target=1 origin=\+512( [a-z]+=[^ ]+)* comm=world"
    expect_match "rma-exchange $O: dump shows a fence with its number on the window" "$dump" \
        ": MPI_Win_fence rank=1 ev=[0-9]+ win=W0\.1 wseq=2 comm=world"
    expect_match "rma-exchange $O: dump shows a lock's target and type" "$dump" \
        ": MPI_Win_lock rank=0 ev=[0-9]+ win=W0\.1 target=1 lock=exclusive"
    expect_match "rma-exchange $O: dump shows an R-operation's result buffer and request" "$dump" \
        ": MPI_Rget rank=1 ev=[0-9]+ win=W0\.1 target=0 result=\+512 req=[0-9]+"
    expect_match "rma-exchange $O: dump shows a window's memory" "$dump" \
        ": MPI_Win_create rank=1 ev=[0-9]+ win=W0\.1 mem=\+512 wseq=1"
    expect_no_match "rma-exchange $O: dump has no untraced call" "$dump" "\(untraced\)"

    got=$("$CH" info "$dir" --format=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
calls = {}  # info counts the large-count forms by their own name: add them up
for k, v in d["mpi_calls"].items():
    base = k[:-2] if k.endswith("_c") else k
    calls[base] = calls.get(base, 0) + v
d["mpi_calls"] = calls
want = {"MPI_Win_create": 4, "MPI_Win_fence": 16, "MPI_Put": 7, "MPI_Get": 4, "MPI_Win_free": 10,
        "MPI_Win_lock": 3, "MPI_Rput": 2, "MPI_Win_allocate_shared": 2}
bad = {k: d["mpi_calls"].get(k) for k in want if d["mpi_calls"].get(k) != want[k]}
if d["mpi_calls"].get("MPI_Win_test", 0) < 2:  # a loop until it succeeds, once per rank at least
    bad["MPI_Win_test"] = d["mpi_calls"].get("MPI_Win_test", 0)
    want["MPI_Win_test"] = ">= 2"
if d["untraced_mpi_calls"]:
    print("untraced: %r" % d["untraced_mpi_calls"])
elif bad:
    print("counts differ: %r, want %r" % (bad, {k: want[k] for k in bad}))
else:
    print("yes")' 2>&1)
    expect_eq "rma-exchange $O: info counts the one-sided calls and lists none as untraced" "$got" yes
    expect_no_match "rma-exchange $O: the text summary lists no untraced call" \
        "$("$CH" info "$dir" 2>/dev/null)" "^untraced MPI:"
done
