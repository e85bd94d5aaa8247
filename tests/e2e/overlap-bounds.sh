#!/usr/bin/env bash
# Where an overlap fix may start a call whose windows are bounded by a
# statement of a function off the call's path (programs/bound-in-helper.c,
# as graph500's CSR build: an MPI_Barrier in a helper closes each block of
# a loop that also updates the reduced buffer, and the last block's tail
# can move after the start).  Both engines, -O0 and -O2, 2 ranks:
#   - the plain build: no hint of the MPI_Allreduce starts it right before
#     the blocks' loop (BOUND-LOOP), which would move every block's scan of
#     the buffer and every barrier after the start; before the fix it said
#     "start ... right before the loop at line <BOUND-LOOP>";
#   - -DBOUND_BEFORE (barrier after all the scans, the tails in a loop of
#     their own): the hint is found and starts right before the tails'
#     loop (BOUND-TAILS), which the bound does not run in.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
SRC=$P/bound-in-helper.c
call=$(line_of "$SRC" "/* BOUND-ALLMAX */")
loop=$(line_of "$SRC" "/* BOUND-LOOP */")
tails=$(line_of "$SRC" "/* BOUND-TAILS */")

# starts JSON: one line per overlap hint of the MPI_Allreduce, "<where> <loop> <line>"
starts() {
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
for h in d["hints"]:
    if h["kind"] == "overlap" and h["line"] == int(sys.argv[1]):
        s = h["fix"]["start"]
        print(s["where"], "loop" if s.get("loop") else "line", s["line"])
' "$call" <<<"$1"
}

for o in -O0 -O2; do
    for v in plain before; do
        flags=()
        [ $v = before ] && flags=(-DBOUND_BEFORE)
        build_prog "$SRC" "$WORK/b-$v$o" "$o" "${flags[@]}" >"$WORK/b.err" 2>&1
        expect_eq "bound-in-helper $v $o builds" "$?" 0
        trace_run "$WORK/t-$v$o" 2 "$WORK/b-$v$o"
        expect_eq "bound-in-helper $v $o is traced" "$?" 0
        for eng in streaming reference; do
            js=$("$CH" hints "$WORK/t-$v$o" --format=json --engine=$eng 2>"$WORK/h.err")
            expect_eq "$v $o $eng: hints runs" "$?" 0
            got=$(starts "$js")
            if [ $v = plain ]; then
                expect_no_match "$v $o $eng: no start right before the blocks' loop (line $loop)" "$got" \
                    "^before loop $loop\$"
            else
                expect_eq "$v $o $eng: the start right before the tails' loop (line $tails)" "$got" \
                    "before loop $tails"
            fi
        done
    done
done
