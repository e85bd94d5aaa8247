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
# programs/one-pass.c (as miniFE's make_local_matrix: one send per
# neighbour from one local int, in a loop that runs once on 2 ranks):
#   - on 2 ranks the send's hint waits for every send after the loop and
#     carries the flag one-pass, with its caveat in the text;
#   - on 3 ranks (the loop runs twice) no hint has the flag, and no hint
#     that holds on every call waits after the loop.
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

OP=$P/one-pass.c
opsend=$(line_of "$OP" "/* OP-SEND */")
for o in -O0 -O2; do
    if ! build_prog "$OP" "$WORK/op$o" "$o" >"$WORK/build.log" 2>&1; then
        not_ok "one-pass $o: builds with commhint cc" "$(cat "$WORK/build.log")"
        continue
    fi
    for n in 2 3; do
        trace_run "$WORK/op$o-$n" "$n" "$WORK/op$o"
        js=$("$CH" hints --all --format=json "$WORK/op$o-$n" 2>/dev/null)
        got=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == int(sys.argv[1])]
print(" ".join(sorted(("one-pass" if "one-pass" in h["flags"] else "-") +
                      (":all-wait-after" if h["fix"]["wait"].get("per_call") and "some-iterations" not in h["flags"] else "")
                      for h in hs)) or "none")' "$opsend" <<<"$js" 2>&1)
        if [ "$n" = 2 ]; then
            expect_eq "one-pass $o, 2 ranks: the send's hint waits after the loop and says the loop ran once" \
                "$got" "one-pass:all-wait-after"
            expect_match "one-pass $o, 2 ranks: the text says so" "$("$CH" hints --all "$WORK/op$o-$n" 2>/dev/null)" \
                "one-pass\.c:$opsend:[0-9]+: note:   check by hand: .*the loop around the call ran once each time in this run"
        else
            expect_no_match "one-pass $o, 3 ranks: no flag, no hint of every call waiting after the loop" "$got" \
                "one-pass|all-wait-after"
        fi
    done
done
