#!/usr/bin/env bash
# Register and control dependences end to end (issue 15, items 1 and 2):
# the statements a blocking call needs are never among its related lines,
# and the real overlap next to them is still found.  Two programs of our
# own, each traced on 2 ranks at -O0 and -O2:
#
#   programs/deps-register.c  a value the call needs travels through a
#       local: its count (a1 returned by a function, a2 an expression of a
#       global), its destination (b), its buffer pointer (c), a malloc'd
#       buffer of an MPI_Bcast (d), a destination delivered by an MPI_Bcast
#       (e), a count loaded in the call's own argument list (f), and after a
#       receive, a local taking the received value (h);
#   programs/deps-control.c   the call is guarded by if (rank % 2 == 0)
#       (g1) or if (size == 2) (g2), or runs nsteps times, nsteps read from
#       argv (g3).
#
#   programs/deps-mpiargs.c   memory an MPI call touches besides its
#       buffers (item 3): a receive's status read after it (i1), the count
#       MPI_Get_count takes from it (i2), the count and displacement arrays
#       of an MPI_Allgatherv computed right before it (i3), the request
#       array MPI_Waitall resets (i4), the arrays of a rooted MPI_Gatherv,
#       read on the root only, computed right before it (i5: merged over
#       the ranks, the hint must still hold on the root).
#   programs/deps-untraced.c  MPI calls commhint does not wrap (item 4;
#       every data-moving call is wrapped, tests/e2e/mpi-coverage.sh, and
#       tested in mpi-rma.sh, mpi-collectives-nb.sh, mpi-p2p-more.sh): a
#       PMPI_Bcast called directly (u1), MPI_Comm_idup and the wait of its
#       request (u2), MPI-IO (u3).  The pass hooks them, the runtime records
#       them as untraced calls (fences), and `commhint info` names them.
#
# Per pattern and build, two checks on `hints --format=json`:
#   - "needs": the NEEDED line (it reads traced memory into what the call
#     uses or what decides whether it runs) is not a related line of the
#     call's overlap hint, in either role;
#   - "overlap": the INDEP line (an array update the call does not touch)
#     is a related line of that hint with the expected role: "before" (can
#     move after the call), or "after" (can run before the wait) for f
#     (once the load in its argument list is a dependence, nothing is left
#     to move after the receive) and h (a check of the forward window).
# Each program's streaming and reference engines must agree as well.
# Written before register and control dependences were implemented: until
# then every "needs" check fails except h's (the local's statement loads
# the received buffer itself); every "overlap" check passes.  a1 at -O0 is
# the one interprocedural case: count_for is not inlined, the count comes
# back as its return value.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs

# patterns of each program: label|call|needed|indep|role
REGISTER='a1 count returned by a function|DEP-COUNT-FN-SEND|DEP-COUNT-FN|DEP-COUNT-FN-INDEP|before
a2 count from an expression|DEP-COUNT-EXPR-SEND|DEP-COUNT-EXPR|DEP-COUNT-EXPR-INDEP|before
b destination in a local|DEP-DEST-SEND|DEP-DEST|DEP-DEST-INDEP|before
c buffer pointer in a local|DEP-PTR-SEND|DEP-PTR|DEP-PTR-INDEP|before
d malloc feeding a Bcast|DEP-MALLOC-BCAST|DEP-MALLOC|DEP-MALLOC-INDEP|before
e destination delivered by a Bcast|DEP-BCAST-PEER-SEND|DEP-BCAST-PEER|DEP-BCAST-PEER-INDEP|before
f count loaded in the argument list|DEP-ROWS-RECV|DEP-ROWS-RECV|DEP-ROWS-INDEP|after
h received value in a local|DEP-RECV-CALL|DEP-RECV-LOCAL DEP-RECV-USE|DEP-RECV-INDEP|after'
CONTROL='g1 guard rank % 2 == 0|DEP-GUARD-PARITY-SEND|DEP-GUARD-PARITY|DEP-GUARD-PARITY-INDEP|before
g2 guard size == 2|DEP-GUARD-SIZE-SEND|DEP-GUARD-SIZE|DEP-GUARD-SIZE-INDEP|before
g3 loop bound read from argv|DEP-NSTEPS-SEND|DEP-NSTEPS|DEP-NSTEPS-INDEP|before'

# program NAME PATTERNS CHECKSUM ARGS...: build, trace and check one program
# (CHECKSUM a regex for the value it prints).
program() {
    local name=$1 pats=$2 sum=$3 src=$P/$1.c O bin dir js a b label call needed indep role
    shift 3
    for O in -O0 -O2; do
        bin=$WORK/$name$O
        dir=$WORK/$name$O.trace
        check "$name $O: builds" build_prog "$src" "$bin" "$O"
        trace_run "$dir" 2 "$bin" "$@"
        expect_eq "$name $O: traced run exits 0" "$?" 0
        expect_match "$name $O: prints its checksum" "$(cat "$dir.out")" "^$name: sum=$sum\$"
        js=$("$CH" hints "$dir" --format=json 2>"$WORK/hints.err")
        expect_eq "$name $O: hints exits 0" "$?" 0
        while IFS='|' read -r label call needed indep role; do
            pattern "$name" "$O" "$js" "$src" "$label" "$call" "$needed" "$indep" "$role"
        done <<<"$pats"
        a=$("$CH" hints "$dir" --format=json --stable 2>&1)
        b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>&1)
        if [ "$a" = "$b" ]; then ok "$name $O: streaming and reference engines agree"; else
            not_ok "$name $O: streaming and reference engines agree" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
    done
}

ARGS='i1 status fields after a receive|ARG-STATUS-RECV|ARG-STATUS|ARG-STATUS-INDEP|after
i2 MPI_Get_count after a receive|ARG-GETCOUNT-RECV|ARG-GETCOUNT|ARG-GETCOUNT-INDEP|after
i3 v-collective arrays computed before the call|ARG-VARRAYS-CALL|ARG-VCOUNTS ARG-VDISPLS ARG-VDISPLS-LOOP|ARG-VARRAYS-INDEP|before
i4 request array after MPI_Waitall|ARG-REQS-WAITALL|ARG-REQS|ARG-REQS-INDEP|after
i5 rooted v-collective arrays computed before the call|ARG-ROOTED-CALL|ARG-RCOUNTS ARG-RDISPLS|ARG-ROOTED-INDEP|after'

UNTRACED='u1 a buffer read after a direct PMPI_Bcast|UNT-PMPI-SEND|UNT-PMPI|UNT-PMPI-INDEP|after
u2 a communicator read after MPI_Comm_idup and its wait|UNT-IDUP-SEND|UNT-IDUP|UNT-IDUP-INDEP|after
u3 a buffer read back with MPI_File_read_at|UNT-FILE-SEND|UNT-FILE|UNT-FILE-INDEP|after'

program deps-register "$REGISTER" '1\.531800e\+04'
program deps-control "$CONTROL" '1\.137900e\+04' 3
program deps-mpiargs "$ARGS" '1\.403100e\+04'
# i5's edit holds on the root: the MPI_Igatherv starts no earlier than the
# loop filling the displacements (after it or at the call), and both ranks
# are in the hint
src=$P/deps-mpiargs.c
for O in -O0 -O2; do
    got=$("$CH" hints "$WORK/deps-mpiargs$O.trace" --format=json --all 2>/dev/null | python3 -c '
import json, os, sys
d = json.load(sys.stdin)
call, displs = int(sys.argv[1]), int(sys.argv[2])
hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == call]
if len(hs) != 1:
    print("%d overlap hints at line %d" % (len(hs), call)); sys.exit()
h = hs[0]; s = h["fix"]["start"]
if h["ranks"] != [0, 1]:
    print("ranks %s" % h["ranks"])
elif not (s["where"] == "at" or (s["where"] == "after" and s["line"] >= displs and not s.get("other_iteration"))):
    print("start %s" % s)
else:
    print("yes")' "$(line_of "$src" "/* ARG-ROOTED-CALL */")" "$(line_of "$src" "/* ARG-RDISPLS */")" 2>&1)
    expect_eq "deps-mpiargs $O: i5: the MPI_Igatherv starts after the root's arrays are filled" "$got" yes
done
program deps-untraced "$UNTRACED" '6\.849000e\+03' "$WORK"
# the untraced calls are counted by name (per rank, both ranks make each)
got=$("$CH" info "$WORK/deps-untraced-O2.trace" --format=json 2>/dev/null | python3 -c '
import json, sys
u = json.load(sys.stdin)["untraced_mpi_calls"]
want = {"PMPI_Bcast": 2, "MPI_Comm_idup": 2, "MPI_File_open": 2, "MPI_File_write_at": 2,
        "MPI_File_read_at": 2, "MPI_File_close": 2}
print("yes" if u == want else "got %r, want %r" % (u, want))' 2>&1)
expect_eq "deps-untraced: info counts the untraced calls by name" "$got" yes
expect_match "deps-untraced: the text summary names them" \
    "$("$CH" info "$WORK/deps-untraced-O2.trace" 2>/dev/null)" "^untraced MPI: +12 calls"
