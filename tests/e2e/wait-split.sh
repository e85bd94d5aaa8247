#!/usr/bin/env bash
# A blocking MPI_Wait placed right before the loop that reads what it
# waited for, where only part of the loop can run before it
# (programs/wait-split.c, as LULESH's CommSBN: each field's destination is
# read from a table before the field's data).  Both engines, -O0 and -O2,
# 2 ranks, --all (the saving is a few ns): the MPI_Wait's hint puts the
# wait right before that loop and says to split it, with the executions
# that can run before the wait.  Before, the text stopped at "move the
# MPI_Wait right before the loop at line N", where the wait already is.
source "$(dirname "$0")/lib.sh"

SRC=tests/e2e/programs/wait-split.c
call=$(line_of "$SRC" "/* WAIT-CALL */")
loop=$(line_of "$SRC" "/* UNPACK-LOOP */")
dest=$(line_of "$SRC" "/* UNPACK-DEST */")

# waits JSON: one line per overlap hint of the MPI_Wait,
# "<where> <loop|line> <line> split=<0|1> related=<line>:<executions>/<total>,..." then its fix text
waits() {
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
for h in d["hints"]:
    if h["kind"] == "overlap" and h["call"] == "MPI_Wait" and h["line"] == int(sys.argv[1]):
        w = h["fix"]["wait"]
        rel = ",".join("%d:%d/%d" % (r["line"], r["executions"], r["total"]) for r in h["related"])
        print(w["where"], "loop" if w.get("loop") else "line", w["line"],
              "split=%d" % bool(w.get("split_loop")), "related=" + rel)
        print(h["fix"]["text"])
' "$call" <<<"$1"
}

for o in -O0 -O2; do
    build_prog "$SRC" "$WORK/w$o" "$o" >"$WORK/b.err" 2>&1
    expect_eq "wait-split $o builds" "$?" 0
    trace_run "$WORK/t$o" 2 "$WORK/w$o"
    expect_eq "wait-split $o is traced" "$?" 0
    for eng in streaming reference; do
        js=$("$CH" hints "$WORK/t$o" --all --format=json --engine=$eng 2>"$WORK/h.err")
        expect_eq "$o $eng: hints runs" "$?" 0
        got=$(waits "$js")
        # 2 ranks x 20 exchanges of 3 fields: the first field's table read of each
        expect_eq "$o $eng: the wait goes right before the unpacking loop (line $loop), split" \
            "$(head -1 <<<"$got")" "before loop $loop split=1 related=$dest:40/120"
        expect_match "$o $eng: the fix says to split the loop" "$(sed -n 2p <<<"$got")" \
            "^move the MPI_Wait right before the loop at line $loop; the computation that can run before the wait is inside the loop at line $loop: split it, running before the wait the part that does not need the data \\(40 of 120 executions\\)\$"
    done
done
